/*
 * blas.h: the library's one door to dense products (internal).
 */
#ifndef ATTNGRAPH_BLAS_H
#define ATTNGRAPH_BLAS_H

#include <stdint.h>

/* C = alpha * op(A) * op(B) + beta * C, all row-major float32.
 * op(A) is M x K, op(B) is K x N, C is M x N; lda, ldb, ldc are row strides.
 * Large products go to the CBLAS chosen at build time; small ones (a molecule's 20 x 64 by 64 x 64,
 * where a BLAS call costs more than it saves) run a plain loop. Both sum over K in increasing order
 * per output element, so the result does not depend on the number of threads.
 * Must not be called from inside an OpenMP parallel region (the BLAS has its own threads). */
void ag_i_gemm(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* The plain-loop product, always; the reference the tests compare ag_i_gemm against. */
void ag_i_gemm_naive(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

#endif
