/*
 * layer_common.c: cache growth and fixed-order column sums shared by the layers.
 */
#include "internal.h"
#include "layers_internal.h"

ag_error_t ag_i_cache_grow(float **buf, int64_t old_rows, int64_t rows, int64_t cols, const char *what) {
    if (*buf && rows <= old_rows) return AG_SUCCESS;
    int64_t count;
    if (ag_i_mul_overflow(rows, cols, &count))
        return AG_ERROR(AG_ELIMIT, "%s: %lld x %lld overflows", what, (long long)rows, (long long)cols);
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, count, sizeof(float), what));
    ag_i_free(*buf);
    *buf = p;
    return AG_SUCCESS;
}

void ag_i_colsum_add(const float *A, int64_t rows, int64_t cols, float *out) {
    /* Blocks of columns, so that each thread streams along rows; a column's sum never splits. */
    enum { BLOCK = 16 };
    int64_t nblocks = (cols + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static) if (rows * cols > 32768) num_threads(ag_threads_get())
    for (int64_t blk = 0; blk < nblocks; blk++) {
        int64_t c0 = blk * BLOCK, c1 = c0 + BLOCK < cols ? c0 + BLOCK : cols;
        double acc[BLOCK] = {0};
        for (int64_t r = 0; r < rows; r++) {
            const float *a = A + r * cols;
            for (int64_t c = c0; c < c1; c++) acc[c - c0] += a[c];
        }
        for (int64_t c = c0; c < c1; c++) out[c] += (float)acc[c - c0];
    }
}

ag_error_t ag_i_check_forward(const char *layer, const void *X, const void *Y, int64_t N) {
    if (N < 0) return AG_ERROR(AG_EINVAL, "%s forward: negative row count %lld", layer, (long long)N);
    if (N > 0 && (!X || !Y)) return AG_ERROR(AG_EINVAL, "%s forward: NULL input or output", layer);
    return AG_SUCCESS;
}
