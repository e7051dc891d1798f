/*
 * blas.h: the library's one door to dense products, and sparse-times-dense products (internal).
 */
#ifndef ATTNGRAPH_BLAS_H
#define ATTNGRAPH_BLAS_H

#include <stdint.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* C = alpha * op(A) * op(B) + beta * C, all row-major float32.
 * op(A) is M x K, op(B) is K x N, C is M x N; lda, ldb, ldc are row strides.
 * Large products go to the CBLAS chosen at build time; small ones (a molecule's 20 x 64 by 64 x 64,
 * where a BLAS call costs more than it saves) run a plain loop (ag_i_gemm_small). With BLIS,
 * products of more than 256 rows run as fixed blocks of 256 rows of C (one single-threaded BLIS
 * call each) shared between the threads. Nothing splits the sum over K between threads, and the
 * blocks depend only on the shape, so the result does not depend on the number of threads.
 * beta = 0 overwrites C without reading it (NaN in C does not propagate).
 * Must not be called from inside an OpenMP parallel region (the BLAS has its own threads). */
void ag_i_gemm(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* The plain-loop product, always; the reference the tests compare ag_i_gemm against. */
void ag_i_gemm_naive(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* The loop ag_i_gemm runs below the crossover: rows of C accumulated along K in a small buffer
 * (vectorisable over N), the same operations in the same order as ag_i_gemm_naive, so the same
 * bits. Single-threaded. */
void ag_i_gemm_small(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* Products below this many multiply-adds (M N K) take the plain loop. Measured; docs/blas.md. */
int64_t ag_i_gemm_small_flops(void);

/* A sparse float matrix in CSR form (rows x cols, nnz stored entries, columns increasing per row),
 * for inputs like Cora's bag-of-words features (98.7% zeros). */
typedef struct ag_i_csr_t {
    int64_t rows, cols, nnz;
    int64_t *indptr; /* (rows + 1) */
    int32_t *col;    /* (nnz) */
    float *val;      /* (nnz) */
} ag_i_csr_t;

/* S = the nonzeros of the dense (rows x cols) row-major A (exact zeros are dropped).
 * Returns AG_SUCCESS, AG_ENOMEM, AG_ELIMIT (cols above 2^31-1). S is zero-filled on failure. */
ag_error_t ag_i_csr_from_dense(ag_i_csr_t *S, const float *A, int64_t rows, int64_t cols);

/* T = S^T in CSR (so T's rows are S's columns, entries by increasing S row). For the transposed
 * product S^T B, computed as a gather per output row, in a fixed order. */
ag_error_t ag_i_csr_transpose(ag_i_csr_t *T, const ag_i_csr_t *S);

/* Frees S; safe on a zero-filled one. */
void ag_i_csr_destroy(ag_i_csr_t *S);

/* C (S.rows x N) = alpha * S B + beta * C, B is (S.cols x N) with row stride ldb. Each output row
 * sums its row's entries in column order: for finite inputs the same bits as the dense
 * ag_i_gemm_naive on the densified S (adding a zero product does not change a float sum).
 * Parallel over rows; bit-identical for any number of threads. Use ag_i_csr_transpose() for
 * X^T dY (the weight gradient): spmm(T, dY). */
void ag_i_spmm(const ag_i_csr_t *S, const float *B, int64_t ldb, int64_t N, float alpha, float beta,
               float *C, int64_t ldc);

#pragma GCC visibility pop
#endif
