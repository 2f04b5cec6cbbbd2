# man/gen_man3.awk — section-3 man pages from the doc comments of
# include/plexus.h, the one source of the API's documentation.
#
#   awk -v outdir=man/man3 -v version=0.1.0 -v bugs=URL -f man/gen_man3.awk include/plexus.h
#
# Writes one page per documented group of declarations: the comment right
# above one or more consecutive function declarations documents them all,
# and the page is named after the first (the others get ".so" pages that
# point to it).  A declaration with no comment of its own above it (only a
# section comment "/* ---- title ---- ... */" farther up) is documented by
# that section's text.  Each page also carries its section's text under
# "CONTEXT" when that differs from the description, and plexus(3) holds the
# header's opening comment.  Prints the names of the pages it wrote, one
# per line (what make install installs).
#
# POSIX awk only (mawk, busybox, gawk): the build needs no other tool.

# The bug address, AC_INIT's (make passes -v bugs='$(PACKAGE_BUGREPORT)').
function print_bugs(f) {
    if (bugs == "") return
    print ".SH BUGS" > f
    print "Report bugs at" > f
    print ".UR " bugs > f
    print ".UE ." > f
}

function roff_escape(s) {
    gsub(/\\/, "\\e", s)
    # UTF-8 punctuation of the header as roff glyphs: groff reads bytes
    gsub(/\342\200\224/, "\\(em", s)
    gsub(/\342\200\223/, "\\(en", s)
    gsub(/\302\265/, "\\(mc", s)
    gsub(/\303\227/, "\\(mu", s)
    gsub(/\342\200\234/, "\\(lq", s)
    gsub(/\342\200\235/, "\\(rq", s)
    gsub(/\342\200\231/, "\\(aq", s)
    gsub(/\342\211\244/, "\\(<=", s)
    gsub(/\342\211\245/, "\\(>=", s)
    gsub(/\342\206\222/, "\\(->", s)
    if (s ~ /^[.']/) s = "\\&" s
    return s
}

# Comment lines (already stripped of "/*", " * ", "*/") to roff: blank lines
# start paragraphs, lines indented by three or more spaces (code, lists)
# are kept as they are.
function roff_text(n, lines,    i, out, pre, l) {
    out = ""; pre = 0
    for (i = 1; i <= n; i++) {
        l = lines[i]
        if (l ~ /^[ \t]*$/) {
            if (pre) { out = out ".fi\n"; pre = 0 }
            out = out ".PP\n"
            continue
        }
        if (l ~ /^   /) {
            if (!pre) { out = out ".nf\n"; pre = 1 }
            out = out roff_escape(l) "\n"
        } else {
            if (pre) { out = out ".fi\n"; pre = 0 }
            sub(/^ +/, "", l)
            out = out roff_escape(l) "\n"
        }
    }
    if (pre) out = out ".fi\n"
    return out
}

# The first sentence of a comment, for the NAME line.
function summary(n, lines,    i, s, p) {
    s = ""
    for (i = 1; i <= n; i++) {
        if (lines[i] ~ /^[ \t]*$/) { if (s != "") break; else continue }
        s = s " " lines[i]
    }
    gsub(/[ \t]+/, " ", s); sub(/^ /, "", s)
    p = index(s, ". ")
    if (p > 0) s = substr(s, 1, p - 1)
    sub(/\.$/, "", s)
    if (length(s) > 110) s = substr(s, 1, 107) "..."
    return roff_escape(s)
}

function page_header(f, name) {
    printf ".TH %s 3 \"\" \"Plexus %s\" \"Plexus Programmer's Manual\"\n", toupper(name), version > f
    printf ".\\\" Generated from include/plexus.h by man/gen_man3.awk: edit the header, not this file.\n" > f
}

function flush_group(    f, i, names, desc_n, desc, sec_n, sec, j, same) {
    if (ngroup == 0) return
    # the description: the comment above the group, else the section's text
    if (doc_n > 0 && !doc_used) {
        desc_n = doc_n; for (i = 1; i <= doc_n; i++) desc[i] = doc[i]
    } else {
        desc_n = sect_n; for (i = 1; i <= sect_n; i++) desc[i] = sect[i]
    }
    doc_used = 1
    f = outdir "/" gname[1] ".3"
    names = gname[1]
    for (i = 2; i <= ngroup; i++) names = names ", " gname[i]
    page_header(f, gname[1])
    print ".SH NAME" > f
    print names " \\- " (desc_n > 0 ? summary(desc_n, desc) : "a Plexus call") > f
    print ".SH SYNOPSIS" > f
    print ".nf" > f
    print ".B #include <plexus.h>" > f
    print ".PP" > f
    for (i = 1; i <= ngroup; i++) printf "%s", gdecl[i] > f
    print ".fi" > f
    print ".SH DESCRIPTION" > f
    if (desc_n > 0) printf "%s", roff_text(desc_n, desc) > f
    else print "Not documented in plexus.h." > f
    same = (desc_n == sect_n)
    if (same) for (j = 1; j <= sect_n; j++) if (desc[j] != sect[j]) { same = 0; break }
    if (sect_n > 0 && !same) {
        print ".SH CONTEXT" > f
        print "From the section \\(lq" roff_escape(sect_title) "\\(rq of plexus.h:" > f
        print ".PP" > f
        printf "%s", roff_text(sect_n, sect) > f
    }
    print ".SH RETURN VALUE" > f
    if (gret ~ /plx_status_t/) {
        print "PLX_SUCCESS, or the status of the failure; plx_strerror(3) explains it." > f
        print "Bad arguments give PLX_ERR_INVALID_ARG (with a one-line message at PLX_LOG=warn)," > f
        print "and out-parameters are then set to NULL, \\-1 or 0, never left as garbage." > f
    } else {
        print "See DESCRIPTION." > f
    }
    print_bugs(f)
    print ".SH SEE ALSO" > f
    print "plexus(3), plx_strerror(3), plexusrun(1), plexus_info(1)" > f
    close(f)
    print gname[1] ".3"
    for (i = 2; i <= ngroup; i++) {
        f = outdir "/" gname[i] ".3"
        print ".so man3/" gname[1] ".3" > f
        close(f)
        print gname[i] ".3"
    }
    ngroup = 0
}

BEGIN {
    if (outdir == "") outdir = "."
    if (version == "") version = "?"
    incomment = 0; ngroup = 0; doc_n = 0; doc_used = 1; sect_n = 0; intro_done = 0
    indecl = 0; pending_type = ""
}

# ---- comments -------------------------------------------------------------
!indecl && /^[ \t]*\/\*/ {
    flush_group()
    line = $0
    sub(/^[ \t]*\/\*+ ?/, "", line)
    cn = 0
    title = ""
    closed = (line ~ /\*\//)
    if (line ~ /^---- /) {            # "/* ---- title ------" section header
        title = line
        sub(/^---- /, "", title); sub(/ *-+ *(\*\/)? *$/, "", title)
        line = ""
    }
    sub(/ *\*\/.*$/, "", line)
    if (line !~ /^[ \t]*$/) cn = 1
    cbuf[cn] = line
    if (closed) { finish_comment(); next }
    incomment = 1
    next
}
incomment {
    line = $0
    closed = (line ~ /\*\//)
    sub(/ *\*\/.*$/, "", line)
    sub(/^[ \t]*\* ?/, "", line)
    if (!(closed && line ~ /^[ \t]*$/)) cbuf[++cn] = line
    if (closed) { incomment = 0; finish_comment() }
    next
}

function finish_comment(    i) {
    while (cn > 0 && cbuf[cn] ~ /^[ \t]*$/) cn--
    if (!intro_done) {                # the header's opening comment: plexus(3)
        intro_done = 1
        f = outdir "/plexus.3"
        page_header(f, "plexus")
        print ".SH NAME" > f
        print "plexus \\- an MPI-style collective communication library" > f
        print ".SH SYNOPSIS" > f
        print ".nf" > f
        print ".B #include <plexus.h>" > f
        print ".PP" > f
        print "cc app.c $(pkg-config \\-\\-cflags \\-\\-libs plexus)" > f
        print ".fi" > f
        print ".SH DESCRIPTION" > f
        printf "%s", roff_text(cn, cbuf) > f
        print ".PP" > f
        print "Each function has its own page, e.g. plx_init(3), plx_allreduce(3)." > f
        print_bugs(f)
        print ".SH SEE ALSO" > f
        print "plexusrun(1), plexus_info(1), plx_perf(1)" > f
        close(f)
        print "plexus.3"
        return
    }
    if (title != "") {
        sect_title = title
        sect_n = cn; for (i = 1; i <= cn; i++) sect[i] = cbuf[i]
        doc_n = 0; doc_used = 1
        return
    }
    doc_n = cn; for (i = 1; i <= cn; i++) doc[i] = cbuf[i]
    doc_used = 0
}

# ---- declarations ---------------------------------------------------------
# "type plx_name(" on one line, or the type alone on the line before
# ("plx_status_t" then "plx_name(...)", the BSD style).
!indecl && pending_type != "" && /^plx_[a-z0-9_]+\(/ {
    indecl = 1
    decl = roff_escape(pending_type) "\n"
    pending_type = ""
}
pending_type != "" {            # the type line was something else after all
    pending_type = ""
    flush_group()
}
!indecl && /^(const )?[A-Za-z_][A-Za-z0-9_]*( \*+| )*$/ && $0 !~ /^(typedef|struct|enum|union|extern)/ {
    pending_type = $0
    next
}
!indecl && /^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*]plx_[a-z0-9_]+\(/ && $0 !~ /^typedef/ && $0 !~ /^#/ {
    indecl = 1
    decl = ""
}
indecl {
    decl = decl roff_escape($0) "\n"
    if ($0 ~ /\);/) {
        indecl = 0
        name = decl
        sub(/\(.*/, "", name)
        gsub(/\n/, " ", name)
        sub(/.*[ *]/, "", name)
        ngroup++
        gname[ngroup] = name
        gdecl[ngroup] = decl
        if (ngroup == 1) gret = decl
    }
    next
}

# anything else (blank line, typedef, #define, struct) ends a group
{ flush_group() }

END { flush_group() }
