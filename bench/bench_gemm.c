/* bench_gemm: times the plain loop against cblas_sgemm for the shapes attn-graph uses, to set
 * AG_GEMM_SMALL_FLOPS in lib/src/blas.c (figures in docs/blas.md). Not part of the build or the
 * tests (timings never are). Build against a configured build tree:
 *   gcc -O2 -fopenmp -Ilib/include -Ilib/src bench/bench_gemm.c build/lib/libattngraph.a \
 *       -lblis -ligraph -lm -o /tmp/bench_gemm            (or -lopenblas for an OpenBLAS tree)
 *   /tmp/bench_gemm [threads]
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include <attngraph/common.h>
#include "blas.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef void (*gemm_fn)(int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                        int64_t, float, float *, int64_t);

static void blas_only(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                      const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
                (int)K, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* Median-free but robust enough: best of 5 batches, each long enough to be timed (>= 20 ms). */
static double gflops(gemm_fn f, int ta, int tb, int64_t M, int64_t N, int64_t K, float *A, float *B, float *C) {
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    double flops = 2.0 * (double)M * (double)N * (double)K, best = 0;
    int reps = 1;
    for (;;) {
        double t0 = now();
        for (int r = 0; r < reps; r++) f(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
        if (now() - t0 > 0.02) break;
        reps *= 2;
    }
    for (int b = 0; b < 5; b++) {
        double t0 = now();
        for (int r = 0; r < reps; r++) f(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
        double g = flops * reps / (now() - t0) / 1e9;
        if (g > best) best = g;
    }
    return best;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    ag_threads_set(threads);
    printf("# %s, %d thread(s); GFLOP/s, best of 5\n", ag_blas_name(), threads);
    printf("%-40s %8s %8s %8s %9s\n", "shape op(A) MxK by KxN, trans", "loop", "cblas", "ag_gemm", "loop/cblas");
    struct { int64_t M, N, K; int ta, tb; const char *what; } shapes[] = {
        {8, 8, 8, 0, 0, "cube 8"},
        {12, 12, 12, 0, 0, "cube 12"},
        {16, 16, 16, 0, 0, "cube 16"},
        {20, 20, 20, 0, 0, "cube 20"},
        {24, 24, 24, 0, 0, "cube 24"},
        {32, 32, 32, 0, 0, "cube 32"},
        {40, 40, 40, 0, 0, "cube 40"},
        {48, 48, 48, 0, 0, "cube 48"},
        {56, 56, 56, 0, 0, "cube 56"},
        {64, 64, 64, 0, 0, "cube 64"},
        {96, 96, 96, 0, 0, "cube 96"},
        {128, 128, 128, 0, 0, "cube 128"},
        {1, 64, 64, 0, 0, "readout vector W"},
        {20, 1, 64, 0, 0, "molecule 64 -> 1"},
        {20, 7, 64, 0, 0, "molecule 64 -> 7"},
        {20, 64, 8, 0, 0, "molecule 8 -> 64"},
        {20, 16, 16, 0, 0, "molecule 16 -> 16"},
        {20, 32, 32, 0, 0, "molecule 32 -> 32"},
        {20, 64, 64, 0, 0, "molecule X W"},
        {64, 64, 20, 1, 0, "molecule X^T dY"},
        {20, 64, 64, 0, 1, "molecule dY W^T"},
        {20, 16, 64, 0, 0, "molecule X W, 16 out"},
        {40, 64, 64, 0, 0, "2 molecules X W"},
        {80, 64, 64, 0, 0, "4 molecules X W"},
        {2708, 64, 1433, 0, 0, "Cora X W"},
        {1433, 64, 2708, 1, 0, "Cora X^T dY"},
        {100000, 64, 64, 0, 0, "large X W"},
        {64, 64, 100000, 1, 0, "large X^T dY"},
    };
    int count = (int)(sizeof shapes / sizeof shapes[0]);
    for (int s = 0; s < count; s++) {
        int64_t M = shapes[s].M, N = shapes[s].N, K = shapes[s].K;
        float *A = malloc((size_t)(M * K) * sizeof(float)), *B = malloc((size_t)(K * N) * sizeof(float));
        float *C = malloc((size_t)(M * N) * sizeof(float));
        for (int64_t k = 0; k < M * K; k++) A[k] = (float)((k * 7) % 13) * 0.1f - 0.6f;
        for (int64_t k = 0; k < K * N; k++) B[k] = (float)((k * 5) % 11) * 0.1f - 0.5f;
        int big = M * N * K > 50000000;
        double gl = big ? 0 : gflops(ag_i_gemm_small, shapes[s].ta, shapes[s].tb, M, N, K, A, B, C);
        double gb = gflops(blas_only, shapes[s].ta, shapes[s].tb, M, N, K, A, B, C);
        double ga = gflops(ag_i_gemm, shapes[s].ta, shapes[s].tb, M, N, K, A, B, C);
        char name[64];
        snprintf(name, sizeof name, "%s %lldx%lld by %lldx%lld %c%c", shapes[s].what, (long long)M, (long long)K,
                 (long long)K, (long long)N, shapes[s].ta ? 'T' : 'N', shapes[s].tb ? 'T' : 'N');
        if (big) printf("%-40s %8s %8.1f %8.1f %9s\n", name, "-", gb, ga, "-");
        else printf("%-40s %8.2f %8.2f %8.2f %9.2f\n", name, gl, gb, ga, gl / gb);
        free(A);
        free(B);
        free(C);
    }
    /* Cora's first layer with its real sparsity (98.7% zeros): CSR x dense against the dense product */
    {
        const int64_t M = 2708, K = 1433, N = 64;
        float *X = malloc((size_t)(M * K) * sizeof(float)), *W = malloc((size_t)(K * N) * sizeof(float));
        float *Y = malloc((size_t)(M * N) * sizeof(float)), *G = malloc((size_t)(K * N) * sizeof(float));
        for (int64_t k = 0; k < M * K; k++) X[k] = ((uint64_t)k * 2654435761u) % 1000 < 13 ? 1.0f : 0.0f;
        for (int64_t k = 0; k < K * N; k++) W[k] = (float)(k % 7) * 0.1f;
        ag_i_csr_t S, T;
        ag_i_csr_from_dense(&S, X, M, K);
        ag_i_csr_transpose(&T, &S);
        int reps = 20;
        double t0 = now();
        for (int r = 0; r < reps; r++) ag_i_gemm(0, 0, M, N, K, 1.0f, X, K, W, N, 0.0f, Y, N);
        double td = (now() - t0) / reps;
        t0 = now();
        for (int r = 0; r < reps; r++) ag_i_spmm(&S, W, N, N, 1.0f, 0.0f, Y, N);
        double ts = (now() - t0) / reps;
        t0 = now();
        for (int r = 0; r < reps; r++) ag_i_gemm(1, 0, K, N, M, 1.0f, X, K, Y, N, 0.0f, G, N);
        double tdg = (now() - t0) / reps;
        t0 = now();
        for (int r = 0; r < reps; r++) ag_i_spmm(&T, Y, N, N, 1.0f, 0.0f, G, N);
        double tsg = (now() - t0) / reps;
        printf("Cora X W (nnz %lld): dense %.2f ms, CSR %.3f ms; X^T dY: dense %.2f ms, CSR %.3f ms\n",
               (long long)S.nnz, td * 1e3, ts * 1e3, tdg * 1e3, tsg * 1e3);
        ag_i_csr_destroy(&S);
        ag_i_csr_destroy(&T);
        free(X);
        free(W);
        free(Y);
        free(G);
    }
    return 0;
}
