/*
 * colstats.h: per-column statistics over streamed rows (internal), the one rule behind the
 * standardisation of vertex attributes, edge attributes and node tables.
 */
#ifndef ATTNGRAPH_COLSTATS_H
#define ATTNGRAPH_COLSTATS_H

#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

typedef struct {
    int64_t cols;  /* F */
    int64_t rows;  /* rows added so far */
    double *shift; /* (F) the first row: differences from it keep a constant column's deviation exactly 0 */
    double *sum;   /* (F) sum of differences from shift */
    double *sq;    /* (F) sum of squared differences */
    double *amax;  /* (F) largest |value| */
} ag_colstats_t;

/* Zeroed statistics for cols columns; `what` names them in an allocation error. */
ag_error_t ag_i_colstats_init(ag_colstats_t *s, int64_t cols, const char *what);

/* Adds n rows of data (n x stride, row-major); the statistics take the first s->cols of each. */
void ag_i_colstats_add(ag_colstats_t *s, const float *data, int64_t n, int64_t stride);

/* Whether column c has a value beyond [-1, 1]: AG_NORM_STANDARDIZE_RAW standardises only those. */
int ag_i_colstats_raw(const ag_colstats_t *s, int64_t c);

/* Column c's mean and standard deviation. A deviation that counts as 0 (a constant column) gives
 * std 1, so the column is only centred: with rel_tol 0, one below the smallest normal float32;
 * otherwise one below rel_tol * max(|mean|, 1). raw_only (AG_NORM_STANDARDIZE_RAW): a column
 * within [-1, 1] gets mean 0 and std 1, left as it is. */
void ag_i_colstats_get(const ag_colstats_t *s, int64_t c, double rel_tol, int raw_only, float *mean, float *std);

void ag_i_colstats_destroy(ag_colstats_t *s);

#pragma GCC visibility pop
#endif
