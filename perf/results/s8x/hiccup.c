/* hiccup.c CPU SECONDS: spin pinned to CPU, report every gap > 200 us between two
 * clock_gettime calls, and this thread's run_delay (/proc/self/schedstat: time it
 * waited on a runqueue: another guest task had the CPU) and nivcsw over the run.
 * A gap with no run_delay is time the vCPU itself did not run (host). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static long long rundelay(void) { long long a, b, c; FILE *f = fopen("/proc/self/schedstat", "r"); if (!f || fscanf(f, "%lld %lld %lld", &a, &b, &c) != 3) c = -1; if (f) fclose(f); return b; }
int main(int argc, char **argv)
{
    int cpu = atoi(argv[1]); double secs = atof(argv[2]);
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s);
    long long rd0 = rundelay(); double t0 = now(), last = t0, sum = 0; int n = 0;
    struct rusage r0, r1; getrusage(RUSAGE_SELF, &r0);
    while (last - t0 < secs) {
        double t = now();
        if (t - last > 200e-6) {
            long long rd = rundelay();
            if (n < 40) printf("cpu%d gap at %.4f: %.0f us (run_delay so far %.0f us)\n", cpu, last - t0, (t - last) * 1e6, (rd - rd0) / 1e3);
            n++; sum += t - last;
        }
        last = t;
    }
    getrusage(RUSAGE_SELF, &r1);
    printf("cpu%d: %d gaps > 200 us, %.0f us in all over %.1f s; run_delay %.0f us; nivcsw %ld nvcsw %ld\n", cpu, n, sum * 1e6, secs,
           (rundelay() - rd0) / 1e3, r1.ru_nivcsw - r0.ru_nivcsw, r1.ru_nvcsw - r0.ru_nvcsw);
    return 0;
}
