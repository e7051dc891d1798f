/*
 * blas.c: dense products through CBLAS, with a plain loop below the size where BLAS pays off.
 */
#include <cblas.h>
#include "blas.h"

/* Below this many multiply-adds a CBLAS call's fixed cost (packing, thread start) dominates.
 * Measured with BLIS 0.9 on this machine class; see docs/blas.md. */
#define AG_GEMM_SMALL_FLOPS (32 * 32 * 32)

void ag_i_gemm_naive(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                float a = trans_a ? A[k * lda + i] : A[i * lda + k];
                float b = trans_b ? B[j * ldb + k] : B[k * ldb + j];
                acc += a * b;
            }
            float *c = &C[i * ldc + j];
            *c = (beta == 0.0f ? 0.0f : beta * *c) + alpha * acc;
        }
}

void ag_i_gemm(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
        return;
    }
    if (M * N * K <= AG_GEMM_SMALL_FLOPS) {
        ag_i_gemm_naive(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                (int)M, (int)N, (int)K, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}
