/*
 * attngraph/matrix.h: the float32 row-major matrix every kernel works on.
 *
 * igraph's matrices are double precision and column-major; attngraph computes in float32,
 * row-major, so that a node's feature vector is contiguous. Conversion happens at the boundary.
 */
#ifndef ATTNGRAPH_MATRIX_H
#define ATTNGRAPH_MATRIX_H

#include <igraph.h>
#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A float32 row-major matrix: element (r, c) is data[r * cols + c]. Owns its data. */
typedef struct ag_fmat_t {
    float *data;   /* (rows x cols) */
    int64_t rows;
    int64_t cols;
} ag_fmat_t;

/** \function ag_fmat_init
 * Allocates a zero-filled rows x cols matrix (m is empty on failure).
 * \return AG_SUCCESS; AG_EINVAL (a negative size); AG_ELIMIT (rows * cols overflows); AG_ENOMEM.
 * Time complexity: O(rows * cols), the zero fill. */
ag_error_t ag_fmat_init(ag_fmat_t *m, int64_t rows, int64_t cols);

/** \function ag_fmat_destroy
 * Frees the data; safe on a zero-initialised or already destroyed matrix.
 * Time complexity: O(1). */
void ag_fmat_destroy(ag_fmat_t *m);

/** \function ag_fmat_resize
 * Changes the shape; contents become zero.
 * \return As ag_fmat_init(); m is unchanged on failure.
 * Time complexity: O(rows * cols), as ag_fmat_init(); the old data is freed only once the new is allocated. */
ag_error_t ag_fmat_resize(ag_fmat_t *m, int64_t rows, int64_t cols);

/** \function ag_fmat_copy
 * Initialises dst as a copy of src.
 * \return AG_SUCCESS; AG_ENOMEM.
 * Time complexity: O(rows * cols). */
ag_error_t ag_fmat_copy(ag_fmat_t *dst, const ag_fmat_t *src);

/** \function ag_fmat_to_igraph
 * Writes m into a caller-initialised igraph matrix (double, column-major), resizing it.
 * \return AG_SUCCESS; AG_ENOMEM (igraph could not resize out).
 * Time complexity: O(rows * cols). */
ag_error_t ag_fmat_to_igraph(const ag_fmat_t *m, igraph_matrix_t *out);

/** \function ag_fmat_from_igraph
 * Initialises m from an igraph matrix (m is empty on failure).
 * \return AG_SUCCESS; AG_EINVAL (in never initialised or already destroyed); AG_EVALUE (a NaN or
 *         infinite value: names its row and column); AG_ENOMEM.
 * Time complexity: O(rows * cols). */
ag_error_t ag_fmat_from_igraph(ag_fmat_t *m, const igraph_matrix_t *in);

#ifdef __cplusplus
}
#endif
#endif
