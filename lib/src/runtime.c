/*
 * runtime.c: threads, BLAS provider and version.
 */
#include <omp.h>
#include <stdlib.h>
#include "internal.h"

#ifdef AG_BLAS_BLIS
/* BLIS runs on one thread unless told; keep its pool the same size as ours so that the two
 * never oversubscribe the cores. Declared here to avoid depending on blis.h. */
void bli_thread_set_num_threads(long n);
#endif

static int num_threads = 0; /* 0: OpenMP's default */

void ag_threads_set(int n) {
    num_threads = n > 0 ? n : 0;
    int effective = ag_threads_get();
    omp_set_num_threads(effective);
#ifdef AG_BLAS_BLIS
    bli_thread_set_num_threads(effective);
#endif
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
