/*
 * colstats.c: per-column statistics over streamed rows.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "colstats.h"
#include "internal.h"

ag_error_t ag_i_colstats_init(ag_colstats_t *s, int64_t cols, const char *what) {
    memset(s, 0, sizeof *s);
    void *p;
    /* one block for the four arrays; at least one element, so that 0 columns still allocate */
    AG_CHECK(ag_i_alloc_array(&p, 4 * (cols > 0 ? cols : 1), sizeof(double), what));
    s->cols = cols;
    s->shift = p;
    s->sum = s->shift + cols;
    s->sq = s->sum + cols;
    s->amax = s->sq + cols;
    return AG_SUCCESS;
}

void ag_i_colstats_add(ag_colstats_t *s, const float *data, int64_t n, int64_t stride) {
    for (int64_t r = 0; r < n; r++, s->rows++) {
        const float *row = data + r * stride;
        for (int64_t c = 0; c < s->cols; c++) {
            const double x = row[c];
            if (s->rows == 0) s->shift[c] = x;
            const double d = x - s->shift[c];
            s->sum[c] += d;
            s->sq[c] += d * d;
            if (fabs(x) > s->amax[c]) s->amax[c] = fabs(x);
        }
    }
}

int ag_i_colstats_raw(const ag_colstats_t *s, int64_t c) { return s->amax[c] > 1.0; }

void ag_i_colstats_get(const ag_colstats_t *s, int64_t c, double rel_tol, int raw_only, float *mean, float *std) {
    if (raw_only && !ag_i_colstats_raw(s, c)) {
        *mean = 0.0f;
        *std = 1.0f;
        return;
    }
    const double n = (double)s->rows;
    const double mu = s->rows ? s->sum[c] / n : 0.0;
    const double var = s->rows ? s->sq[c] / n - mu * mu : 0.0;
    const double sd = var > 0.0 ? sqrt(var) : 0.0, m = s->shift[c] + mu;
    const int constant = rel_tol > 0.0 ? sd < rel_tol * (fabs(m) > 1.0 ? fabs(m) : 1.0) : !((float)sd >= FLT_MIN);
    *mean = (float)m;
    *std = constant ? 1.0f : (float)sd;
}

void ag_i_colstats_destroy(ag_colstats_t *s) {
    if (!s) return;
    ag_i_free(s->shift);
    memset(s, 0, sizeof *s);
}
