#!/bin/bash
# tests/mr/run_graph.sh — the task-graph tests (tests/mr/graph_check.c)
# through plexusrun:
#   every section at 1, 2, 3 and 4 ranks with PLX_PROGRESS=caller, and at 2
#   and 3 ranks with PLX_PROGRESS=thread (the 3- and 4-rank runs are
#   oversubscribed on 2 cores), the scheduling test there with 20 launches
#   per policy;
#   the scheduling test (R must start before the slow allreduce A completes
#   under comm_first and compute_first -- a few misses, printed, are allowed
#   on a loaded machine, one in ten at most; FIFO must serialise them), 100
#   launches per policy, under both progress modes, at 2 ranks with one
#   worker thread;
#   the priority order with one worker thread (PLX_GRAPH_THREADS=1);
#   a compute node that outlives PLX_TIMEOUT=1 (graph_check --only timeout);
#   perf/graph_bench overhead, nodes and overlap (three small layers),
#   briefly (it runs, and its result check passes; no timing is asserted).
# Each run must exit 0 and every rank must print "graph_check: rank R: N
# checks, 0 failures".  Prints each command, its time and ok/FAIL; exits 0/1.
# Measured on 2 busy cores: ~60-90 s for the whole script.
#
# Environment: top_builddir (set by make check; default: this script's
# ../..), PLX_MR_QUICK=1 (fewer runs: 1-3 ranks caller, 2 ranks thread).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=$top_builddir/tools/plexusrun
MR=$top_builddir/tests/mr
QUICK=${PLX_MR_QUICK:-0}

for f in "$RUN" "$MR/graph_check"; do
    if [ ! -x "$f" ]; then
        echo "run_graph.sh: FAIL: $f not built"
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plx_run_graph.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
t_start=$(date +%s.%N)

# run_job LABEL N TIMEOUT ENV... -- ARGS... : env ENV plexusrun -n N
# --timeout TIMEOUT ARGS; the job must exit 0 and N ranks report 0 failures.
run_job() {
    local label=$1 n=$2 tmo=$3
    shift 3
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local log=$tmp/$label.$n.log
    echo "+ ${envs[*]} $RUN -n $n --timeout $tmo $*"
    local t0 t1 rc ok dt
    t0=$(date +%s.%N)
    env "${envs[@]}" "$RUN" -n "$n" --timeout "$tmo" "$@" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    ok=$(grep -c "^graph_check: rank [0-9]*: [0-9]* checks, 0 failures" "$log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$n" ]; then
        grep "^graph_check: \(sched\|many\)" "$log" | sed 's/^/  /'   # misses included
        echo "  ok: $label at $n ranks (${dt} s)"
    else
        cat "$log"
        echo "  FAIL: $label at $n ranks: exit $rc, $ok of $n ranks reported 0 failures (${dt} s)"
        fails=$((fails + 1))
    fi
}

if [ "$QUICK" = 1 ]; then
    caller_sizes="1 2 3"
    thread_sizes="2"
else
    caller_sizes="1 2 3 4"
    thread_sizes="2 3"
fi

for n in $caller_sizes; do
    run_job all-caller "$n" 240 PLX_PROGRESS=caller -- "$MR/graph_check" --reps 20
done
for n in $thread_sizes; do
    run_job all-thread "$n" 240 PLX_PROGRESS=thread -- "$MR/graph_check" --reps 20
done
# the scheduling test alone, once more under each progress mode with one worker
run_job sched-caller-1thread 2 120 PLX_PROGRESS=caller PLX_GRAPH_THREADS=1 -- "$MR/graph_check" --only sched --reps 100
run_job sched-thread-1thread 2 120 PLX_PROGRESS=thread PLX_GRAPH_THREADS=1 -- "$MR/graph_check" --only sched --reps 100
run_job prio-1thread 2 120 PLX_GRAPH_THREADS=1 -- "$MR/graph_check" --only prio
run_job timeout 2 60 PLX_TIMEOUT=1 -- "$MR/graph_check" --only timeout

# the benchmark runs (a smoke test: no timing is asserted)
BENCH=$top_builddir/perf/graph_bench
if [ -x "$BENCH" ]; then
    # overlap on three small layers: its ideal and free passes run
    printf 'a\t65536\nb\t1048576\nc\t4096\n' >"$tmp/layers.txt"
    for args in "-m overhead --rounds 1 --time 0.05" "-m nodes --sizes 10,1000 --rounds 1 --time 0.05" \
        "-m overlap --iters 1 --layers $tmp/layers.txt"; do
        log=$tmp/bench.log
        echo "+ $RUN -n 2 --timeout 120 $BENCH $args"
        # shellcheck disable=SC2086
        if "$RUN" -n 2 --timeout 120 "$BENCH" $args >"$log" 2>&1; then
            echo "  ok: graph_bench $args"
        else
            cat "$log"
            echo "  FAIL: graph_bench $args"
            fails=$((fails + 1))
        fi
    done
else
    echo "run_graph.sh: note: $BENCH not built, benchmark smoke run skipped"
fi

t_end=$(date +%s.%N)
total=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
if [ "$fails" -eq 0 ]; then
    echo "run_graph.sh: PASS (${total} s)"
    exit 0
fi
echo "run_graph.sh: FAIL: $fails job(s) failed (${total} s)"
exit 1
