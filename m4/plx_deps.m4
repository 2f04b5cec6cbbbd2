# m4/plx_deps.m4 -- optional dependencies of Plexus: UCX, CUDA, NCCL, PMIx.
#
# Each macro handles --with-X[=DIR] / --without-X the same way:
#   (not given)      auto: use X if it is found, skip quietly otherwise
#   --with-X         X is required: configure fails if it is not found
#   --with-X=DIR     X is required and looked for under DIR
#   --without-X      X is not used
# and sets
#   plx_X=yes|no, plx_X_why (for the summary), X_CPPFLAGS/X_LDFLAGS/X_LIBS
#   (AC_SUBST), PLX_HAVE_X in config.h and the automake conditional PLX_HAVE_X.

# _PLX_WITH(NAME, HELP-TEXT)
# Sets plx_want_NAME to auto|yes|no and plx_dir_NAME to the DIR (or empty).
AC_DEFUN([_PLX_WITH], [
  AC_ARG_WITH([$1], [AS_HELP_STRING([--with-$1@<:@=DIR@:>@], [$2])],
              [], [with_$1=auto])
  plx_dir_$1=
  AS_CASE(["$with_$1"],
    [auto], [plx_want_$1=auto],
    [no],   [plx_want_$1=no],
    [yes],  [plx_want_$1=yes],
    [plx_want_$1=yes
     plx_dir_$1=$with_$1
     AS_IF([test -d "$plx_dir_$1"], [],
           [AC_MSG_ERROR([--with-$1=$plx_dir_$1: no such directory])])])
])

# _PLX_NOT_FOUND(NAME, WHY)
# Explicit request and not found: error. Auto: remember why and go on.
AC_DEFUN([_PLX_NOT_FOUND], [
  plx_$1=no
  plx_$1_why="$2"
  AS_IF([test "x$plx_want_$1" = xyes],
        [AC_MSG_ERROR([--with-$1 was given but $2])])
])

# _PLX_TRY_LINK(HEADER, LIB-FLAGS, PROLOGUE, BODY, CPPFLAGS, LDFLAGS)
# Compile and link a test program with the extra flags; set plx_ok=yes|no.
AC_DEFUN([_PLX_TRY_LINK], [
  plx_save_CPPFLAGS=$CPPFLAGS plx_save_LDFLAGS=$LDFLAGS plx_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $5" LDFLAGS="$LDFLAGS $6" LIBS="$2 $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <$1>
$3]], [[$4]])], [plx_ok=yes], [plx_ok=no])
  CPPFLAGS=$plx_save_CPPFLAGS LDFLAGS=$plx_save_LDFLAGS LIBS=$plx_save_LIBS
])

# _PLX_LIBDIRS(DIR): the library directories to try under an install prefix.
m4_define([_PLX_LIBDIRS], [$1/lib64 $1/lib $1/lib/${host_cpu}-${host_os} $1/targets/${host_cpu}-linux/lib $1/targets/sbsa-linux/lib])

# _PLX_HAS_LIB(DIR, LIB): true when DIR holds libLIB.so or libLIB.a, so that
# a -LDIR link test cannot pass on a copy of LIB in the system paths.
m4_define([_PLX_HAS_LIB], [{ test -f "$1/lib$2.so" || test -f "$1/lib$2.a"; }])

# _PLX_FINISH(NAME, MACRO)
AC_DEFUN([_PLX_FINISH], [
  AS_IF([test "x$plx_$1" = xyes],
        [AC_DEFINE([PLX_HAVE_$2], [1], [Define to 1 if Plexus is built with $2 support.])])
  AM_CONDITIONAL([PLX_HAVE_$2], [test "x$plx_$1" = xyes])
])

# ---------------------------------------------------------------------------
# UCX: pkg-config "ucx" first (system install), else DIR/include/ucp/api/ucp.h
# with -lucp -luct -lucs.  With --with-ucx=DIR, DIR/lib{,64}/pkgconfig/ucx.pc
# is preferred when it exists.
AC_DEFUN([PLX_CHECK_UCX], [
  _PLX_WITH([ucx], [use UCX for inter-node transfers (default: auto, pkg-config ucx)])
  UCX_CPPFLAGS= UCX_LDFLAGS= UCX_LIBS= plx_ucx_pc=no
  AS_IF([test "x$plx_want_ucx" = xno], [plx_ucx=no plx_ucx_why="--without-ucx"], [
    AC_MSG_CHECKING([for UCX])
    plx_ucx=no
    plx_ucx_try_pc=yes
    plx_save_PKG_CONFIG_PATH=$PKG_CONFIG_PATH
    AS_IF([test -n "$plx_dir_ucx"], [
      plx_ucx_try_pc=no
      for d in _PLX_LIBDIRS([$plx_dir_ucx]); do
        AS_IF([test -f "$d/pkgconfig/ucx.pc"],
              [PKG_CONFIG_PATH="$d/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
               plx_ucx_try_pc=yes; break])
      done])
    AS_IF([test "x$plx_ucx_try_pc" = xyes && test -n "$PKG_CONFIG" &&
           $PKG_CONFIG --exists ucx 2>/dev/null], [
      plx_c=`$PKG_CONFIG --cflags ucx`
      plx_l=`$PKG_CONFIG --libs ucx`
      _PLX_TRY_LINK([ucp/api/ucp.h], [$plx_l], [],
                    [unsigned a, b, c; ucp_get_version(&a, &b, &c); return 0;],
                    [$plx_c], [])
      AS_IF([test "x$plx_ok" = xyes],
            [plx_ucx=yes plx_ucx_pc=yes UCX_CPPFLAGS=$plx_c UCX_LIBS=$plx_l
             plx_ucx_why="pkg-config ucx `$PKG_CONFIG --modversion ucx`"])])
    PKG_CONFIG_PATH=$plx_save_PKG_CONFIG_PATH
    AS_IF([test "x$plx_ucx" = xno], [
      AS_IF([test -n "$plx_dir_ucx"], [plx_ucx_dirs=`echo _PLX_LIBDIRS([$plx_dir_ucx])`],
            [plx_ucx_dirs=system])
      for d in $plx_ucx_dirs; do
        AS_IF([test "x$d" = xsystem], [plx_c= plx_L=],
              [test -f "$plx_dir_ucx/include/ucp/api/ucp.h" && _PLX_HAS_LIB([$d], [ucp])],
              [plx_c="-I$plx_dir_ucx/include" plx_L="-L$d"], [continue])
        _PLX_TRY_LINK([ucp/api/ucp.h], [-lucp -luct -lucs], [],
                      [unsigned a, b, c; ucp_get_version(&a, &b, &c); return 0;],
                      [$plx_c], [$plx_L])
        AS_IF([test "x$plx_ok" = xyes],
              [plx_ucx=yes UCX_CPPFLAGS=$plx_c UCX_LDFLAGS=$plx_L
               UCX_LIBS="-lucp -luct -lucs"
               AS_IF([test "x$d" = xsystem], [plx_ucx_why="ucp.h and -lucp found"],
                     [plx_ucx_why="$plx_dir_ucx"])
               break])
      done])
    AC_MSG_RESULT([$plx_ucx])
    AS_IF([test "x$plx_ucx" = xno],
          [AS_IF([test -n "$plx_dir_ucx"],
                 [_PLX_NOT_FOUND([ucx], [ucp/api/ucp.h or -lucp -luct -lucs not usable under $plx_dir_ucx])],
                 [_PLX_NOT_FOUND([ucx], [neither pkg-config ucx nor ucp/api/ucp.h with -lucp was found (Debian: apt-get install libucx-dev)])])])
  ])
  AC_SUBST([UCX_CPPFLAGS]) AC_SUBST([UCX_LDFLAGS]) AC_SUBST([UCX_LIBS])
  _PLX_FINISH([ucx], [UCX])
  AM_CONDITIONAL([PLX_UCX_PKGCONFIG], [test "x$plx_ucx_pc" = xyes])
])

# ---------------------------------------------------------------------------
# CUDA runtime: cuda_runtime.h and a link test of cudaGetDeviceCount with
# -lcudart.  Never -lcuda: libcuda.so is the driver (absent or a stub on build
# machines); the runtime loads it at run time.
AC_DEFUN([PLX_CHECK_CUDA], [
  _PLX_WITH([cuda], [use the CUDA runtime (default: auto, in /usr/local/cuda or the system paths)])
  CUDA_CPPFLAGS= CUDA_LDFLAGS= CUDA_LIBS= CUDA_HOME=
  AS_IF([test "x$plx_want_cuda" = xno], [plx_cuda=no plx_cuda_why="--without-cuda"], [
    AC_MSG_CHECKING([for the CUDA runtime (cuda_runtime.h, -lcudart)])
    plx_cuda=no
    AS_IF([test -n "$plx_dir_cuda"], [plx_homes=$plx_dir_cuda],
          [plx_homes="/usr/local/cuda system"])
    for h in $plx_homes; do
      AS_IF([test "x$h" = xsystem], [plx_dirs=system],
            [test -f "$h/include/cuda_runtime.h"], [plx_dirs=`echo _PLX_LIBDIRS([$h])`],
            [continue])
      for d in $plx_dirs; do
        AS_IF([test "x$d" = xsystem], [plx_c= plx_L=],
              [_PLX_HAS_LIB([$d], [cudart])], [plx_c="-I$h/include" plx_L="-L$d"], [continue])
        _PLX_TRY_LINK([cuda_runtime.h], [-lcudart], [],
                      [int n = 0; return (int)cudaGetDeviceCount(&n);],
                      [$plx_c], [$plx_L])
        AS_IF([test "x$plx_ok" = xyes],
              [plx_cuda=yes CUDA_CPPFLAGS=$plx_c CUDA_LDFLAGS=$plx_L CUDA_LIBS=-lcudart
               AS_IF([test "x$d" = xsystem], [CUDA_HOME= plx_cuda_why="system paths"],
                     [CUDA_HOME=$h plx_cuda_why=$h])
               break 2])
      done
    done
    AC_MSG_RESULT([$plx_cuda])
    AS_IF([test "x$plx_cuda" = xno],
          [_PLX_NOT_FOUND([cuda], [cuda_runtime.h with -lcudart was not found in ${plx_dir_cuda:-/usr/local/cuda or the system paths}])])
  ])
  AC_SUBST([CUDA_CPPFLAGS]) AC_SUBST([CUDA_LDFLAGS]) AC_SUBST([CUDA_LIBS])
  _PLX_FINISH([cuda], [CUDA])
])

# ---------------------------------------------------------------------------
# NCCL: nccl.h and a link test of ncclGetVersion with -lnccl.  Default DIR is
# the CUDA directory (then the system paths).  Needs CUDA (nccl.h includes
# cuda_runtime.h), so PLX_CHECK_CUDA must run first.
AC_DEFUN([PLX_CHECK_NCCL], [
  AC_REQUIRE([PLX_CHECK_CUDA])
  _PLX_WITH([nccl], [use NCCL for collectives on GPU buffers (default: auto, in the CUDA directory); needs CUDA])
  NCCL_CPPFLAGS= NCCL_LDFLAGS= NCCL_LIBS=
  AS_IF([test "x$plx_want_nccl" = xno], [plx_nccl=no plx_nccl_why="--without-nccl"],
        [test "x$plx_cuda" != xyes], [_PLX_NOT_FOUND([nccl], [NCCL needs CUDA, which is not used ($plx_cuda_why)])], [
    AC_MSG_CHECKING([for NCCL (nccl.h, -lnccl)])
    plx_nccl=no
    AS_IF([test -n "$plx_dir_nccl"], [plx_homes=$plx_dir_nccl],
          [test -n "$CUDA_HOME"], [plx_homes="$CUDA_HOME system"],
          [plx_homes=system])
    for h in $plx_homes; do
      AS_IF([test "x$h" = xsystem], [plx_dirs=system],
            [test -f "$h/include/nccl.h"], [plx_dirs=`echo _PLX_LIBDIRS([$h])`],
            [continue])
      for d in $plx_dirs; do
        AS_IF([test "x$d" = xsystem], [plx_c= plx_L=],
              [_PLX_HAS_LIB([$d], [nccl])], [plx_c="-I$h/include" plx_L="-L$d"], [continue])
        _PLX_TRY_LINK([nccl.h], [-lnccl $CUDA_LIBS], [],
                      [int v = 0; return (int)ncclGetVersion(&v);],
                      [$plx_c $CUDA_CPPFLAGS], [$plx_L $CUDA_LDFLAGS])
        AS_IF([test "x$plx_ok" = xyes],
              [plx_nccl=yes NCCL_LIBS=-lnccl
               dnl do not repeat the CUDA flags when NCCL lives in the CUDA tree
               AS_IF([test "x$plx_c" = "x$CUDA_CPPFLAGS"], [NCCL_CPPFLAGS=], [NCCL_CPPFLAGS=$plx_c])
               AS_IF([test "x$plx_L" = "x$CUDA_LDFLAGS"], [NCCL_LDFLAGS=], [NCCL_LDFLAGS=$plx_L])
               AS_IF([test "x$d" = xsystem], [plx_nccl_why="system paths"], [plx_nccl_why=$h])
               break 2])
      done
    done
    AC_MSG_RESULT([$plx_nccl])
    AS_IF([test "x$plx_nccl" = xno],
          [_PLX_NOT_FOUND([nccl], [nccl.h with -lnccl was not found in ${plx_dir_nccl:-${CUDA_HOME:-the system paths}}])])
  ])
  AC_SUBST([NCCL_CPPFLAGS]) AC_SUBST([NCCL_LDFLAGS]) AC_SUBST([NCCL_LIBS])
  _PLX_FINISH([nccl], [NCCL])
])

# ---------------------------------------------------------------------------
# PMIx (pkg-config pmix): the bootstrap through a launcher's PMIx server
# (lib/bootstrap/pmix.c).  Sets PMIX_CFLAGS/PMIX_LIBS (added to PLX_EXT_* in
# configure.ac), PLX_HAVE_PMIX in plx_config.h and the automake conditional.
AC_DEFUN([PLX_CHECK_PMIX], [
  AC_ARG_WITH([pmix], [AS_HELP_STRING([--with-pmix], [detect PMIx for the bootstrap (default: auto, pkg-config pmix)])],
              [], [with_pmix=auto])
  plx_want_pmix=$with_pmix
  AS_CASE(["$with_pmix"], [auto|yes|no], [],
          [AC_MSG_ERROR([--with-pmix takes no directory; set PKG_CONFIG_PATH to the directory of pmix.pc instead])])
  AS_IF([test "x$plx_want_pmix" = xno], [plx_pmix=no plx_pmix_why="--without-pmix"], [
    PKG_CHECK_MODULES([PMIX], [pmix],
      [plx_pmix=yes plx_pmix_why="pkg-config pmix `$PKG_CONFIG --modversion pmix`"],
      [_PLX_NOT_FOUND([pmix], [pkg-config pmix was not found (Debian: apt-get install libpmix-dev)])])
  ])
  _PLX_FINISH([pmix], [PMIX])
])
