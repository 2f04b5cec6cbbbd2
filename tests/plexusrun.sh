#!/bin/sh
# tests/plexusrun.sh — end-to-end tests of the launcher tools/plexusrun and
# of the bootstrap env interface, using tests/boot_probe as the rank program.
#
# usage: tests/plexusrun.sh [BUILDDIR]
#   Finds BUILDDIR/tools/plexusrun and BUILDDIR/tests/boot_probe; BUILDDIR
#   defaults to $top_builddir (set by make check), else ".".  $PLEXUSRUN and
#   $BOOT_PROBE override each path.  Exit 0 when all checks pass, 1 when
#   one fails, 99 when the programs are missing (automake: hard error).
#
# Checks: 4 ranks succeed; a rank exiting 3 / killed by SIGKILL fails the
# job with a message naming rank and status/signal and the others die
# within ~2 s; --timeout (124); --tag-output; partial lines; bad usage (2),
# malformed numbers (-n 4x, -n 0, --timeout -1: 2, naming the value), the
# accepted option forms, the program's arguments passing through, --help;
# SIGTERM forwarding; process-group kill of the ranks' children; the env
# plexusrun gives (PLX_LOCAL_RANK/SIZE per simulated node too); --bind-to
# core|none and the default, as --report-bindings says and as each rank's
# /proc/self/status shows; exit 127 explained; /dev/shm/plx-<jobid>-*
# cleanup; 3 processes started by hand with PLX_RANK/PLX_SIZE/PLX_BOOTSTRAP/
# PLX_JOB_KEY (rank 0 serves); a rank with a wrong key fails the others
# within seconds, naming it.

set -u
B=${1:-${top_builddir:-.}}
RUN=${PLEXUSRUN:-$B/tools/plexusrun}
PROBE=${BOOT_PROBE:-$B/tests/boot_probe}
for f in "$RUN" "$PROBE"; do
    if [ ! -x "$f" ]; then echo "plexusrun.sh: $f not built" >&2; exit 99; fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/plxrun.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_BOOTSTRAP_SERVE PLX_LAUNCHER
export PLX_TIMEOUT=20     # a broken bootstrap must not stall the suite
fails=0
ok()   { echo "ok   - $1"; }
bad()  { echo "FAIL - $1" >&2; fails=$((fails + 1)); }
ms()   { echo $(( $(date +%s%N) / 1000000 )); }
# run plexusrun, capture stdout/stderr/status/elapsed ms
prun() { t0=$(ms); "$RUN" "$@" >"$T/out" 2>"$T/err"; rc=$?; dt=$(( $(ms) - t0 )); }
# a live process (zombies count as dead: PID 1 of a container may not reap them)
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
show() { echo "  exit $rc after ${dt} ms; stdout:"; sed 's/^/    /' "$T/out"; echo "  stderr:"; sed 's/^/    /' "$T/err"; }

# --- success -----------------------------------------------------------------
prun -n 4 "$PROBE" --rounds 3
n=$(grep -c 'boot_probe: rank [0-3] of 4 ok' "$T/out")
if [ $rc -eq 0 ] && [ "$n" -eq 4 ]; then ok "4 ranks succeed (exit 0)"; else bad "4 ranks succeed"; show; fi

prun -n 1 "$PROBE"
if [ $rc -eq 0 ] && grep -q 'rank 0 of 1 ok' "$T/out"; then ok "-n 1"; else bad "-n 1"; show; fi

# --- a rank exits 3 ------------------------------------------------------------
prun -n 4 "$PROBE" --exit 1:3 --sleep -1:30
if [ $rc -eq 3 ] && grep -q 'plexusrun: rank 1 (pid [0-9]*) exited with status 3' "$T/err" &&
   [ $dt -lt 5000 ]; then ok "rank exiting 3 -> exit 3, named, others stopped (${dt} ms)"
else bad "rank exiting 3"; show; fi

# --- a rank killed by SIGKILL; the others sleep 30 s and must die fast --------
prun -n 4 "$PROBE" --kill 2:9 --sleep -1:30
if [ $rc -eq 137 ] && grep -q 'plexusrun: rank 2 (pid [0-9]*) killed by signal 9 (Killed)' "$T/err" &&
   [ $dt -lt 3000 ]; then ok "rank killed by SIGKILL -> 137, signal named, others killed in ${dt} ms"
else bad "rank killed by SIGKILL"; show; fi

# a rank that ignores SIGTERM still goes (SIGKILL after ~1 s)
prun -n 3 sh -c 'trap "" TERM; if [ "$PLX_RANK" = 1 ]; then exit 5; fi; sleep 30'
if [ $rc -eq 5 ] && [ $dt -lt 4000 ] && grep -q 'rank 1 (pid [0-9]*) exited with status 5' "$T/err"
then ok "SIGTERM-ignoring ranks are SIGKILLed (${dt} ms)"; else bad "SIGTERM-ignoring ranks"; show; fi

# --- --timeout -----------------------------------------------------------------
prun -n 3 --timeout 1 "$PROBE" --sleep -1:30
if [ $rc -eq 124 ] && grep -q 'plexusrun: job timed out after 1 s; killing ranks 0-2 still running' "$T/err" &&
   [ $dt -lt 4000 ]; then ok "--timeout 1 -> 124 (${dt} ms)"; else bad "--timeout"; show; fi

prun -n 4 --timeout 1.5 "$PROBE" --sleep 1:30 --sleep 3:30
if [ $rc -eq 124 ] && grep -q 'killing ranks 1,3 still running' "$T/err"; then
    ok "--timeout names only the ranks still running"; else bad "--timeout names ranks"; show; fi

# --- output forwarding ------------------------------------------------------
prun -n 3 --tag-output "$PROBE" --lines 1:3 --stderr
good=1
for r in 0 1 2; do
    grep -q "^\[$r\] boot_probe: rank $r of 3 ok" "$T/out" || good=0
    grep -q "^\[$r\] boot_probe: rank $r says hello on stderr" "$T/err" || good=0
done
grep -q '^\[1\] line 2 of rank 1$' "$T/out" || good=0       # unterminated last line
untagged=$(grep -vc '^\[[0-2]\] ' "$T/out")
if [ $rc -eq 0 ] && [ $good -eq 1 ] && [ "$untagged" -eq 0 ]; then ok "--tag-output prefixes stdout and stderr lines"
else bad "--tag-output"; show; fi

prun -n 2 "$PROBE" --lines 0:2
if [ $rc -eq 0 ] && grep -q '^line 0 of rank 0$' "$T/out" && grep -q 'line 1 of rank 0' "$T/out" &&
   ! grep -q '^\[' "$T/out"; then ok "untagged output passes through (partial last line kept)"
else bad "untagged output"; show; fi

# a partial line is shown before the rank finishes (e.g. a prompt)
"$RUN" -n 1 sh -c 'printf "prompt> "; sleep 2; echo done' >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
if grep -q '^prompt> $' "$T/out"; then ok "partial line flushed while the rank runs"
else bad "partial line flush"; cat "$T/out"; fi
wait $pid

# --- the environment a rank gets ------------------------------------------
prun -n 2 --tag-output sh -c 'echo "r=$PLX_RANK s=$PLX_SIZE l=$PLX_LAUNCHER serve=$PLX_BOOTSTRAP_SERVE id=$PLX_JOB_ID boot=$PLX_BOOTSTRAP"; echo "$PLX_JOB_KEY" | grep -Eq "^[0-9a-f]{64}$" && echo key-ok'
if [ $rc -eq 0 ] && grep -q '^\[1\] r=1 s=2 l=plexusrun serve=0 id=[0-9a-f]\{8\} boot=127.0.0.1:[0-9]*$' "$T/out" &&
   [ "$(grep -c key-ok "$T/out")" -eq 2 ]; then ok "rank environment"; else bad "rank environment"; show; fi

# --- PLX_LOCAL_RANK / PLX_LOCAL_SIZE, per (simulated) node -------------------
prun -n 5 --nodes 2 --tag-output sh -c 'echo "$PLX_NODE_ID $PLX_LOCAL_RANK/$PLX_LOCAL_SIZE"'
got=$(sort "$T/out" | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$got" = "[0] node0 0/3 [1] node0 1/3 [2] node0 2/3 [3] node1 0/2 [4] node1 1/2 " ]
then ok "PLX_LOCAL_RANK/SIZE per node (block)"; else bad "PLX_LOCAL_RANK/SIZE block: '$got'"; show; fi
prun -n 3 --tag-output sh -c 'echo "$PLX_LOCAL_RANK/$PLX_LOCAL_SIZE"'
got=$(sort "$T/out" | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$got" = "[0] 0/3 [1] 1/3 [2] 2/3 " ]; then ok "PLX_LOCAL_RANK/SIZE on one node"
else bad "PLX_LOCAL_RANK/SIZE one node: '$got'"; show; fi

# --- --bind-to / --report-bindings: what is reported is what each rank gets --
# (compares the report with the rank's own /proc/self/status, so it holds on
# any number of cores; --bind-to core with 3 ranks wraps around on 2 cores)
bindings_match() {   # $1: number of ranks
    good=1
    for r in $(seq 0 $(($1 - 1))); do
        want=$(sed -n "s/^plexusrun: rank $r \(bound to core [0-9]* of [0-9]*\|not bound\): cpus //p" "$T/err")
        have=$(sed -n "s/^\[$r\] Cpus_allowed_list:[[:space:]]*//p" "$T/out")
        [ -n "$want" ] && [ "$want" = "$have" ] || { good=0; echo "  rank $r: reported '$want', has '$have'"; }
    done
    [ $good -eq 1 ]
}
for mode in core none; do
    prun -n 3 --bind-to $mode --report-bindings --tag-output grep Cpus_allowed_list /proc/self/status
    if [ $rc -eq 0 ] && bindings_match 3 && { [ $mode = none ] || [ "$(grep -c ' bound to core ' "$T/err")" -eq 3 ]; } &&
       { [ $mode = core ] || [ "$(grep -c ' not bound: ' "$T/err")" -eq 3 ]; }
    then ok "--bind-to $mode --report-bindings: $(grep -v 'rank [0-9]' "$T/err" | sed 's/^plexusrun: //')"
    else bad "--bind-to $mode"; show; fi
done
# the default (make check exports PLX_BIND_TO=none for the other tests)
saved_bind=${PLX_BIND_TO-}
unset PLX_BIND_TO
prun -n 1 --report-bindings --tag-output grep Cpus_allowed_list /proc/self/status
if [ $rc -eq 0 ] && bindings_match 1 && grep -q 'rank 0 bound to core 0 of' "$T/err"; then
    ok "default: one rank is bound to a core"; else bad "default binding of 1 rank"; show; fi
many=$(( $(nproc) * 2 + 1 ))
prun -n $many --report-bindings true
if [ $rc -eq 0 ] && grep -q "^plexusrun: not binding: $many ranks are more than the" "$T/err"; then
    ok "default: $many ranks on $(nproc) CPUs are not bound (said so)"; else bad "default binding oversubscribed"; show; fi
PLX_BIND_TO=none prun -n 1 --report-bindings true
if [ $rc -eq 0 ] && grep -q 'rank 0 not bound' "$T/err"; then ok "PLX_BIND_TO=none sets the default"
else bad "PLX_BIND_TO=none"; show; fi
PLX_BIND_TO=socket prun -n 1 true
if [ $rc -eq 2 ] && grep -q "PLX_BIND_TO='socket' is not one of auto, core, none" "$T/err"; then
    ok "a bad PLX_BIND_TO is a usage error"; else bad "bad PLX_BIND_TO"; show; fi
if [ -n "$saved_bind" ]; then export PLX_BIND_TO=$saved_bind; fi

# --- exit 127 is explained -----------------------------------------------------
prun -n 2 sh -c 'if [ "$PLX_RANK" = 1 ]; then exec no-such-command-plx; fi; sleep 30'
if [ $rc -eq 127 ] && grep -q 'rank 1 (pid [0-9]*) exited with status 127' "$T/err" &&
   grep -q 'status 127 means a program could not be started' "$T/err"; then ok "exit 127 explained"
else bad "exit 127 explained"; show; fi

# --- bad usage -----------------------------------------------------------------
for args in "" "-n" "-n 0 $PROBE" "-n -3 $PROBE" "-n 99999 $PROBE" "-n x $PROBE" "-n 2" \
            "-n 2 /nonexistent/prog" "-n 2 no-such-program-plx" "--frobnicate -n 2 $PROBE" \
            "-n 2 --timeout 0 $PROBE" "-n 2 --timeout abc $PROBE" "-n 2 --bind-to socket $PROBE" \
            "-n 2 --bind-to"; do
    # shellcheck disable=SC2086
    prun $args
    if [ $rc -eq 2 ] && grep -q '^plexusrun: ' "$T/err"; then :; else bad "bad usage '$args' (exit $rc)"; show; fi
done
ok "bad usage exits 2 with a message"

# --- malformed numbers: exit 2, a message naming the option and the value ----
for spec in "-n 4x|-n needs a whole number, not '4x'" "-n4x|-n needs a whole number, not '4x'" \
            "-n 0|-n 0: must be 1..1024" "-np 2.5|-n needs a whole number, not '2.5'" \
            "--np=|-n needs a whole number, not ''" "-n -1|-n needs a whole number, not '-1'" \
            "-n 2 --timeout -1|--timeout needs a positive number of seconds" \
            "-n 2 --timeout 1s|--timeout needs a positive number of seconds" \
            "-n 2 --timeout=nan|--timeout needs a positive number of seconds" \
            "-n 4 --nodes 2x|--nodes needs a whole number, not '2x'" \
            "-n 4 --nodes 0|--nodes 0: must be 1..1024" "-n 2 -np|option '-np' needs a value" \
            "-n 2 --timeout|option '--timeout' needs a value"; do
    args=${spec%%|*} want=${spec#*|}
    prog=$PROBE
    case "$want" in *"needs a value") prog= ;; esac   # the option is last
    # shellcheck disable=SC2086
    prun $args $prog
    if [ $rc -eq 2 ] && grep -qF "plexusrun: $want" "$T/err" && [ ! -s "$T/out" ]; then :
    else bad "malformed number '$args' (exit $rc, want: $want)"; show; fi
done
ok "malformed numbers (-n 4x, -n 0, --timeout -1, ...) exit 2 naming the value"

# --- the forms that are good: -np N, -nN, --np=N, --timeout=S, "--" ---------
prun -np 2 --timeout=30 -- "$PROBE"
n1=$(grep -c 'rank [01] of 2 ok' "$T/out"); r1=$rc
prun -n2 --np=3 --timeout 30.5 "$PROBE"
n2=$(grep -c 'rank [0-2] of 3 ok' "$T/out"); r2=$rc
if [ $r1 -eq 0 ] && [ "$n1" -eq 2 ] && [ $r2 -eq 0 ] && [ "$n2" -eq 3 ]; then
    ok "-np 2, -n2, --np=3 (the last wins), --timeout=30, --"
else bad "good option forms ($r1 $n1, $r2 $n2)"; show; fi

# --- the program's own options pass through untouched (even ours, and --) ----
prun -n 1 sh -c 'printf "<%s>" "$@"; echo' prog -n 4x --help -- --timeout -1
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "<-n><4x><--help><--><--timeout><-1>" ]; then
    ok "the program's arguments pass through untouched"
else bad "program arguments"; show; fi
prun -n 1 -- sh -c 'printf "<%s>" "$@"; echo' prog -- -h
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "<--><-h>" ]; then ok "-- ends plexusrun's options"
else bad "-- ends the options"; show; fi

# --- --help: every option with its default, on stdout, exit 0 ---------------
for h in --help -h; do
    prun $h
    good=1
    [ $rc -eq 0 ] && [ ! -s "$T/err" ] || good=0
    for o in "-n, -np, --np N" --nodes --node-map --timeout --tag-output "--bind HOST" --bind-to \
             --report-bindings "-h, --help" "default 127.0.0.1" "default block" "default auto" \
             "Exit status" "Bugs: https://"; do
        grep -qF -- "$o" "$T/out" || { good=0; echo "  --help lacks '$o'"; }
    done
    if [ $good = 1 ]; then ok "$h prints every option and default, exit 0"; else bad "$h"; show; fi
done

# --- SIGTERM to plexusrun is forwarded; children of ranks die too ---------
: >"$T/kids"
"$RUN" -n 3 sh -c 'sleep 60 & echo $! >>'"$T/kids"'; wait' >"$T/out" 2>"$T/err" &
pid=$!
i=0; while [ "$(wc -l <"$T/kids")" -lt 3 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t0=$(ms)
kill -TERM $pid
wait $pid; rc=$?; dt=$(( $(ms) - t0 ))
alive=0
for k in $(cat "$T/kids"); do alive "$k" && alive=$((alive + 1)); done
if [ $rc -eq 143 ] && [ $alive -eq 0 ] && [ $dt -lt 3000 ] && grep -q 'forwarding' "$T/err"; then
    ok "SIGTERM forwarded; ranks and their children gone (${dt} ms)"
else bad "SIGTERM forwarding (exit $rc, $alive children alive, ${dt} ms)"; cat "$T/err"; fi

# a failing rank takes its siblings' children with it (process groups)
: >"$T/kids"
prun -n 3 sh -c 'sleep 60 & echo $! >>'"$T/kids"'; if [ "$PLX_RANK" = 2 ]; then sleep 0.5; exit 1; fi; wait'
alive=0
for k in $(cat "$T/kids"); do alive "$k" && alive=$((alive + 1)); done
if [ $rc -eq 1 ] && [ $alive -eq 0 ] && [ "$(wc -l <"$T/kids")" -eq 3 ]; then ok "failure kills the ranks' process groups"
else bad "process groups ($alive children alive)"; show; fi

# --- /dev/shm cleanup --------------------------------------------------------
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    prun -n 2 --tag-output sh -c 'touch /dev/shm/plx-$PLX_JOB_ID-leak$PLX_RANK; echo "id $PLX_JOB_ID"'
    id=$(sed -n 's/^\[0\] id //p' "$T/out")
    if [ -n "$id" ] && ! ls /dev/shm/plx-"$id"-* >/dev/null 2>&1 && grep -q 'removed 2 shared-memory' "$T/err"
    then ok "/dev/shm/plx-<jobid>-* removed after the job"; else bad "/dev/shm cleanup"; show; fi
    prun -n 2 --tag-output sh -c 'touch /dev/shm/plx-$PLX_JOB_ID-x$PLX_RANK; echo "id $PLX_JOB_ID"; exit 4'
    id=$(sed -n 's/^\[[01]\] id //p' "$T/out" | head -1)
    if [ $rc -eq 4 ] && [ -n "$id" ] && ! ls /dev/shm/plx-"$id"-* >/dev/null 2>&1
    then ok "/dev/shm cleanup after a failed job"; else bad "/dev/shm cleanup (failure)"; show; fi
fi

# --- the env interface without plexusrun: 3 processes, rank 0 serves -------
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
started=0
for attempt in 1 2 3; do
    port=$("$PROBE" --print-free-port) || break
    # ranks 2 and 1 first: they must retry until rank 0's server is up
    for r in 2 1 0; do
        PLX_RANK=$r PLX_SIZE=3 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$key \
            "$PROBE" --rounds 2 >"$T/by$r" 2>&1 &
        eval "p$r=\$!"
        sleep 0.2
    done
    # shellcheck disable=SC2154
    wait "$p0"; r0=$?; wait "$p1"; r1=$?; wait "$p2"; r2=$?
    if grep -q 'Address already in use' "$T/by0"; then continue; fi   # port stolen: retry
    started=1
    break
done
if [ $started -eq 1 ] && [ $r0 -eq 0 ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
   grep -q 'rank 2 of 3 ok' "$T/by2"; then ok "env interface without plexusrun (rank 0 serves)"
else bad "env interface without plexusrun ($r0 $r1 $r2)"; cat "$T/by0" "$T/by1" "$T/by2"; fi

# a rank started with the wrong key is refused at once, and the others do not
# wait PLX_TIMEOUT (20 s here) for it: their plx_init fails within seconds,
# naming the refused rank (rank 0 serves; its server waits a 3 s grace for a
# real rank 1 first)
port=$("$PROBE" --print-free-port)
badkey=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
t0=$(ms)
PLX_RANK=0 PLX_SIZE=3 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$key "$PROBE" >"$T/g0" 2>&1 &
g0=$!
PLX_RANK=2 PLX_SIZE=3 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$key "$PROBE" >"$T/g2" 2>&1 &
g2=$!
sleep 0.3
PLX_RANK=1 PLX_SIZE=3 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$badkey "$PROBE" >"$T/evil" 2>&1; re=$?
dte=$(( $(ms) - t0 ))
wait $g0; r0=$?
wait $g2; r2=$?
dt=$(( $(ms) - t0 ))
if [ $re -ne 0 ] && grep -q 'refused rank 1' "$T/evil" && [ $r0 -ne 0 ] && [ $r2 -ne 0 ] &&
   [ $dt -lt 15000 ] && grep -q 'rank 1 was refused' "$T/g0" && grep -q 'rank 1 was refused' "$T/g2"; then
    ok "wrong key: rank 1 refused (${dte} ms), ranks 0 and 2 fail naming it (${dt} ms, not 20 s)"
else bad "wrong key ($re $r0 $r2, ${dt} ms)"; cat "$T/evil" "$T/g0" "$T/g2"; fi

# no server at all: a bounded wait and a message, not a hang
port=$("$PROBE" --print-free-port)
t0=$(ms)
PLX_RANK=1 PLX_SIZE=2 PLX_BOOTSTRAP=127.0.0.1:$port PLX_JOB_KEY=$key PLX_TIMEOUT=1 "$PROBE" >"$T/lone" 2>&1; rl=$?
dt=$(( $(ms) - t0 ))
if [ $rl -ne 0 ] && [ $dt -lt 3000 ] && grep -q 'no bootstrap server' "$T/lone"; then ok "no server: error after PLX_TIMEOUT (${dt} ms)"
else bad "no server ($rl, ${dt} ms)"; cat "$T/lone"; fi

if [ $fails -ne 0 ]; then echo "plexusrun.sh: $fails check(s) failed" >&2; exit 1; fi
echo "plexusrun.sh: all checks passed"
exit 0
