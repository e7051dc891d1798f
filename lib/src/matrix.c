/*
 * matrix.c: the float32 row-major matrix and its conversion to and from igraph matrices.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "attngraph/matrix.h"
#include "internal.h"

ag_error_t ag_fmat_init(ag_fmat_t *m, int64_t rows, int64_t cols) {
    int64_t count;
    m->data = NULL;
    m->rows = m->cols = 0;
    if (rows < 0 || cols < 0) return AG_ERROR(AG_EINVAL, "matrix shape %lld x %lld is negative", (long long)rows, (long long)cols);
    if (ag_i_mul_overflow(rows, cols, &count))
        return AG_ERROR(AG_ELIMIT, "matrix shape %lld x %lld overflows", (long long)rows, (long long)cols);
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, count, sizeof(float), "float matrix"));
    m->data = p;
    m->rows = rows;
    m->cols = cols;
    return AG_SUCCESS;
}

void ag_fmat_destroy(ag_fmat_t *m) {
    if (!m) return;
    ag_i_free(m->data);
    m->data = NULL;
    m->rows = m->cols = 0;
}

ag_error_t ag_fmat_resize(ag_fmat_t *m, int64_t rows, int64_t cols) {
    ag_fmat_t fresh;
    AG_CHECK(ag_fmat_init(&fresh, rows, cols));
    ag_fmat_destroy(m);
    *m = fresh;
    return AG_SUCCESS;
}

ag_error_t ag_fmat_copy(ag_fmat_t *dst, const ag_fmat_t *src) {
    AG_CHECK(ag_fmat_init(dst, src->rows, src->cols));
    if (src->rows * src->cols > 0)
        memcpy(dst->data, src->data, (size_t)(src->rows * src->cols) * sizeof(float));
    return AG_SUCCESS;
}

ag_error_t ag_fmat_to_igraph(const ag_fmat_t *m, igraph_matrix_t *out) {
    AG_CHECK(AG_I_READY(out->data.stor_begin, "ag_fmat_to_igraph", "out"));
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_matrix_resize(out, m->rows, m->cols);
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory resizing an igraph matrix to %lld x %lld", (long long)m->rows, (long long)m->cols);
    for (int64_t r = 0; r < m->rows; r++)
        for (int64_t c = 0; c < m->cols; c++) MATRIX(*out, r, c) = m->data[r * m->cols + c];
    return AG_SUCCESS;
}

ag_error_t ag_fmat_from_igraph(ag_fmat_t *m, const igraph_matrix_t *in) {
    m->data = NULL; /* empty on failure, as the header says */
    m->rows = m->cols = 0;
    /* a destroyed igraph matrix keeps its shape with its data freed: refused, not read */
    AG_CHECK(AG_I_READY(in->data.stor_begin, "ag_fmat_from_igraph", "in"));
    int64_t rows = igraph_matrix_nrow(in), cols = igraph_matrix_ncol(in);
    AG_CHECK(ag_fmat_init(m, rows, cols));
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            double v = MATRIX(*in, r, c);
            if (!isfinite(v)) {
                ag_fmat_destroy(m);
                return AG_ERROR(AG_EVALUE, "matrix value at row %lld, column %lld is %s", (long long)r, (long long)c, isnan(v) ? "NaN" : "infinite");
            }
            if (fabs(v) > FLT_MAX) {
                /* the cast would make it infinite, and every prediction it reaches NaN */
                ag_fmat_destroy(m);
                return AG_ERROR(AG_EVALUE, "matrix value at row %lld, column %lld (%g) is out of float32 range",
                                (long long)r, (long long)c, v);
            }
            m->data[r * cols + c] = (float)v;
        }
    return AG_SUCCESS;
}
