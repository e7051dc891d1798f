/*
 * runtime.c: threads, BLAS provider and version.
 */
#include <omp.h>
#include "internal.h"

#ifdef AG_BLAS_BLIS
/* BLIS runs on one thread unless told; keep its pool the same size as ours so that the two
 * never oversubscribe the cores. Declared here to avoid depending on blis.h. */
void bli_thread_set_num_threads(long n);
#endif

static int num_threads = 0; /* 0: OpenMP's default */

void ag_set_num_threads(int n) {
    num_threads = n > 0 ? n : 0;
    int effective = ag_get_num_threads();
    omp_set_num_threads(effective);
#ifdef AG_BLAS_BLIS
    bli_thread_set_num_threads(effective);
#endif
}

int ag_get_num_threads(void) {
    if (num_threads > 0) return num_threads;
    return omp_get_max_threads();
}

const char *ag_blas_name(void) { return AG_BLAS_NAME; }

const char *ag_version(void) { return "0.1.0"; }
