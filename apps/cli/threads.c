/*
 * threads.c: the program's thread count when none is given, the cores other work leaves idle.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

/* OpenMP threads under the default wait policy spin at every barrier; sharing their cores with
 * other busy processes, each waits for the others' time slices. On 2 cores beside two other busy
 * processes, Cora's training (README) took 33.7 s with 2 threads and 10.9 s with 1 (7.5 s under
 * OMP_WAIT_POLICY=passive, which a program cannot set for itself: the OpenMP runtime reads it
 * when it loads). So the cores busy with other work are left out. Two measures must both say
 * they are busy: the 1-minute load average lags (a run of ours that just ended is still in it)
 * and the tasks runnable now are a snapshot (a passing task is in it). */
int cli_threads_from_load(int cores, const char *loadavg) {
    double avg;
    long runnable, total;
    if (cores <= 1 || !loadavg || sscanf(loadavg, "%lf %*f %*f %ld/%ld", &avg, &runnable, &total) != 3)
        return cores;
    if (!(avg >= 0.0)) return cores; /* NaN */
    const double others = (double)(runnable - 1); /* the count includes this process */
    const double busy = avg < others ? avg : others;
    if (busy <= 0.0) return cores;
    const double idle = (double)cores - busy + 0.5;
    return idle < 1.0 ? 1 : idle > (double)cores ? cores : (int)idle;
}

int cli_threads_default(int cores) {
    if (cores <= 1 || getenv("OMP_NUM_THREADS")) return cores;
    char text[128] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return cores;
    const int ok = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    return ok ? cli_threads_from_load(cores, text) : cores;
}
