/*
 * runtime.c: threads, BLAS provider and version.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

#ifdef AG_BLAS_BLIS
/* BLIS runs on one thread unless told; keep its pool the same size as ours so that the two
 * never oversubscribe the cores. Declared here to avoid depending on blis.h. */
void bli_thread_set_num_threads(long n);
#endif

/* 0: OpenMP's default. Every parallel region of the library takes its team size from
 * ag_threads_get() (a num_threads clause): omp_set_num_threads() would set it for the calling
 * thread alone, so a caller's other threads would run on OpenMP's default, and the caller's own
 * OpenMP code would be changed too. */
static int num_threads = 0;

void ag_threads_set(int n) {
    num_threads = n <= 0 ? 0 : n > AG_THREADS_MAX ? AG_THREADS_MAX : n;
#ifdef AG_BLAS_BLIS
    bli_thread_set_num_threads(ag_threads_get());
#endif
}

/* OpenMP threads under the default wait policy spin at every barrier; sharing their cores with
 * other busy processes, each waits for the others' time slices. On 2 cores beside two other busy
 * processes, Cora's training (README) took 33.7 s with 2 threads and 10.9 s with 1 (7.5 s under
 * OMP_WAIT_POLICY=passive, which a program cannot set for itself: the OpenMP runtime reads it
 * when it loads). Two measures must both say other work is there: the 1-minute load average lags
 * (a run of ours that just ended is still in it) and the tasks runnable now are a snapshot (a
 * passing task is in it). */
int ag_i_threads_from_load(int cores, const char *loadavg) {
    double avg;
    long runnable, total;
    if (cores <= 1 || !loadavg || sscanf(loadavg, "%lf %*f %*f %ld/%ld", &avg, &runnable, &total) != 3)
        return cores;
    if (!(avg >= 0.0)) return cores; /* NaN */
    const double others = (double)(runnable - 1); /* the count includes the calling process */
    const double busy = avg < others ? avg : others;
    if (busy <= 0.0) return cores;
    const double idle = (double)cores - busy + 0.5;
    return idle < 1.0 ? 1 : idle > (double)cores ? cores : (int)idle;
}

int ag_threads_idle(void) {
    const int cores = omp_get_max_threads();
    if (cores <= 1 || getenv("OMP_NUM_THREADS")) return cores;
    char text[128] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return cores;
    const int ok = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    return ok ? ag_i_threads_from_load(cores, text) : cores;
}

/* Calls on work too small to share (ag_i_small_begin) run on the calling thread: depth of such
 * calls on this thread, and its OpenMP thread count to restore. */
static _Thread_local int small_depth;
static _Thread_local int small_saved;

int ag_threads_get(void) {
    if (small_depth > 0) return 1;
    if (num_threads > 0) return num_threads;
    return omp_get_max_threads();
}

/* AG_SMALL_ROWS in the environment replaces the default (0: share every batch; the tests set it so
 * that their small graphs still exercise the parallel kernels). */
static int64_t small_rows(void) {
    const char *e = getenv("AG_SMALL_ROWS");
    if (!e || !*e) return AG_SMALL_ROWS;
    char *end;
    long long v = strtoll(e, &end, 10);
    return (*end == '\0' && v >= 0) ? (int64_t)v : AG_SMALL_ROWS;
}

int ag_i_small_begin(int64_t rows) {
    if (rows >= small_rows() || omp_in_parallel()) return 0;
    if (small_depth++ == 0) {
        small_saved = omp_get_max_threads();
        omp_set_num_threads(1);
    }
    return 1;
}

void ag_i_small_end(int began) {
    if (began && --small_depth == 0) omp_set_num_threads(small_saved);
}

const char *ag_blas_name(void) { return AG_BLAS_NAME; }

const char *ag_version(void) { return "0.1.0"; }
