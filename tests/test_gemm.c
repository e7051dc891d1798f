/* Tests of the dense product wrapper (loop and BLAS paths against the naive loop, all four
 * transpositions, both sides of the crossover) and of the sparse-times-dense products. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include <attngraph/rng.h>
#include "blas.h"
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

static float *rnd(int64_t n, uint64_t stream, float zero_fraction) {
    float *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t k = 0; k < n; k++) {
        float u = ag_rng_uniform(3, stream, (uint64_t)k);
        b[k] = ag_rng_uniform(4, stream, (uint64_t)k) < zero_fraction ? 0.0f : 2.0f * u - 1.0f;
    }
    return b;
}

/* Checks C against a double-precision product with the rigorous bound of a float sum of K terms
 * in any order: |error| <= (K + 3) u (|alpha| sum |a b| + |beta c0|), u = 2^-24 (+ 1 ulp slack). */
static void check_product(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                          const float *B, float beta, const float *C0, const float *C) {
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0, abs_s = 0;
            for (int64_t k = 0; k < K; k++) {
                double a = ta ? A[k * lda + i] : A[i * lda + k];
                double b = tb ? B[j * ldb + k] : B[k * ldb + j];
                s += a * b;
                abs_s += fabs(a * b);
            }
            double c0 = C0[i * N + j];
            double want = alpha * s + (beta == 0.0f ? 0.0 : beta * c0);
            double tol = (double)(K + 3) * 5.97e-8 * (fabs(alpha) * abs_s + fabs(beta * c0)) + 1e-30;
            if (fabs(C[i * N + j] - want) > tol + 1.2e-7 * fabs(want))
                fail_msg("ta %d tb %d %lldx%lldx%lld: C[%lld,%lld] = %.9g, want %.9g", ta, tb, (long long)M,
                         (long long)N, (long long)K, (long long)i, (long long)j, C[i * N + j], want);
        }
}

static void run_case(int ta, int tb, int64_t M, int64_t N, int64_t K, float alpha, float beta, int expect_loop) {
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    float *A = rnd(M * K, 1, 0), *B = rnd(K * N, 2, 0), *C0 = rnd(M * N, 3, 0);
    float *C = malloc((size_t)(M * N) * sizeof(float)), *R = malloc((size_t)(M * N) * sizeof(float));
    memcpy(C, C0, (size_t)(M * N) * sizeof(float));
    memcpy(R, C0, (size_t)(M * N) * sizeof(float));
    ag_i_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
    ag_i_gemm_naive(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, R, N);
    check_product(ta, tb, M, N, K, alpha, A, B, beta, C0, C);
    check_product(ta, tb, M, N, K, alpha, A, B, beta, C0, R);
    /* below the crossover the loop runs: the same operations in the same order as the reference */
    if (expect_loop) assert_memory_equal(C, R, (size_t)(M * N) * sizeof(float));
    /* the loop kernel itself matches the reference bit for bit at any size */
    memcpy(C, C0, (size_t)(M * N) * sizeof(float));
    ag_i_gemm_small(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
    assert_memory_equal(C, R, (size_t)(M * N) * sizeof(float));
    free(A);
    free(B);
    free(C0);
    free(C);
    free(R);
}

static void test_gemm_all_transpositions(void **state) {
    (void)state;
    assert_int_equal(ag_i_gemm_small_flops(), 4096);
    struct { int64_t M, N, K; int loop; } cases[] = {
        {3, 9, 4, 1},      /* tiny: loop */
        {16, 16, 16, 1},   /* at the crossover: loop */
        {2, 8, 3, 1},
        {1, 5, 7, 0},      /* one row: BLAS (gemv) */
        {20, 1, 64, 0},    /* one column: BLAS (gemv) */
        {17, 16, 16, 0},   /* just above: BLAS on one thread */
        {20, 64, 64, 0},   /* a molecule's layer */
        {7, 300, 13, 0},   /* wider than the loop's 256-column block */
        {300, 70, 900, 0}, /* above 2^24 and 256 rows: the row-block route with BLIS */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int ta = 0; ta <= 1; ta++)
            for (int tb = 0; tb <= 1; tb++) {
                run_case(ta, tb, cases[c].M, cases[c].N, cases[c].K, 1.0f, 0.0f, cases[c].loop);
                run_case(ta, tb, cases[c].M, cases[c].N, cases[c].K, 0.5f, -1.5f, cases[c].loop);
            }
}

static void test_gemm_edge_cases(void **state) {
    (void)state;
    /* beta = 0 overwrites C without reading it: NaN in C does not survive, loop or BLAS */
    const int64_t sizes[2] = {4, 40};
    for (int s = 0; s < 2; s++) {
        int64_t n = sizes[s];
        float *A = rnd(n * n, 5, 0), *B = rnd(n * n, 6, 0), *C = malloc((size_t)(n * n) * sizeof(float));
        for (int64_t k = 0; k < n * n; k++) C[k] = NAN;
        ag_i_gemm(0, 0, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
        for (int64_t k = 0; k < n * n; k++) assert_false(isnan(C[k]));
        /* K = 0: C = beta C; alpha = 0 likewise, without reading A or B */
        for (int64_t k = 0; k < n * n; k++) C[k] = 2.0f;
        ag_i_gemm(0, 0, n, n, 0, 1.0f, NULL, n, NULL, n, 0.5f, C, n);
        assert_float_equal(C[0], 1.0f, 0.0f);
        ag_i_gemm(0, 0, n, n, n, 0.0f, NULL, n, NULL, n, 3.0f, C, n);
        assert_float_equal(C[n * n - 1], 3.0f, 0.0f);
        /* M = 0 or N = 0: nothing is touched */
        ag_i_gemm(0, 0, 0, n, n, 1.0f, NULL, n, NULL, n, 0.0f, NULL, n);
        free(A);
        free(B);
        free(C);
    }
    /* strided operands: a 3x2 block inside a 3x5 matrix */
    const float A[15] = {1, 2, 9, 9, 9, 3, 4, 9, 9, 9, 5, 6, 9, 9, 9}, B[4] = {1, 0, 0, 1};
    float C[6];
    ag_i_gemm(0, 0, 3, 2, 2, 1.0f, A, 5, B, 2, 0.0f, C, 2);
    const float want[6] = {1, 2, 3, 4, 5, 6};
    assert_memory_equal(C, want, sizeof want);
}

static void test_gemm_threads_bit_identical(void **state) {
    (void)state;
    /* Cora's first layer: 2708 x 1433 (98.7% zeros) by 1433 x 64, and its weight gradient */
    const int64_t M = 2708, K = 1433, N = 64;
    float *X = rnd(M * K, 7, 0.987f), *W = rnd(K * N, 8, 0), *dY = rnd(M * N, 9, 0);
    float *Y1 = malloc((size_t)(M * N) * sizeof(float)), *Y2 = malloc((size_t)(M * N) * sizeof(float));
    float *G1 = malloc((size_t)(K * N) * sizeof(float)), *G2 = malloc((size_t)(K * N) * sizeof(float));
    ag_threads_set(1);
    ag_i_gemm(0, 0, M, N, K, 1.0f, X, K, W, N, 0.0f, Y1, N);
    ag_i_gemm(1, 0, K, N, M, 1.0f, X, K, dY, N, 0.0f, G1, N);
    ag_threads_set(2);
    ag_i_gemm(0, 0, M, N, K, 1.0f, X, K, W, N, 0.0f, Y2, N);
    ag_i_gemm(1, 0, K, N, M, 1.0f, X, K, dY, N, 0.0f, G2, N);
    ag_threads_set(0);
    assert_memory_equal(Y1, Y2, (size_t)(M * N) * sizeof(float));
    assert_memory_equal(G1, G2, (size_t)(K * N) * sizeof(float));
    /* and the product is right: spot-check rows against the definition */
    for (int64_t i = 0; i < M; i += 677) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) s += (double)X[i * K + k] * W[k * N + 5];
        assert_float_equal(Y1[i * N + 5], (float)s, 1e-4f);
    }
    free(X);
    free(W);
    free(dY);
    free(Y1);
    free(Y2);
    free(G1);
    free(G2);
}

static void test_spmm_matches_dense(void **state) {
    (void)state;
    const int64_t M = 50, K = 40, N = 70; /* N above 64 and below 256; a second case crosses 256 */
    const int64_t widths[2] = {N, 300};
    for (int w = 0; w < 2; w++) {
        int64_t n = widths[w];
        float *X = rnd(M * K, 10, 0.9f), *B = rnd(K * n, 11, 0), *D = rnd(M * n, 12, 0);
        ag_i_csr_t S, T;
        assert_int_equal(ag_i_csr_from_dense(&S, X, M, K), AG_SUCCESS);
        int64_t nnz = 0;
        for (int64_t k = 0; k < M * K; k++) nnz += X[k] != 0.0f;
        assert_int_equal(S.nnz, nnz);
        assert_true(nnz > 0 && nnz < M * K / 4);
        float *C = rnd(M * n, 13, 0), *R = malloc((size_t)(M * n) * sizeof(float));
        memcpy(R, C, (size_t)(M * n) * sizeof(float));
        /* C = 0.5 S B - 2 C: the same bits as the dense naive product (zeros add nothing) */
        ag_i_spmm(&S, B, n, n, 0.5f, -2.0f, C, n);
        ag_i_gemm_naive(0, 0, M, n, K, 0.5f, X, K, B, n, -2.0f, R, n);
        assert_memory_equal(C, R, (size_t)(M * n) * sizeof(float));
        /* the weight gradient X^T D through the transpose */
        assert_int_equal(ag_i_csr_transpose(&T, &S), AG_SUCCESS);
        assert_int_equal(T.rows, K);
        assert_int_equal(T.cols, M);
        float *G = malloc((size_t)(K * n) * sizeof(float)), *GR = malloc((size_t)(K * n) * sizeof(float));
        ag_i_spmm(&T, D, n, n, 1.0f, 0.0f, G, n);
        ag_i_gemm_naive(1, 0, K, n, M, 1.0f, X, K, D, n, 0.0f, GR, n);
        assert_memory_equal(G, GR, (size_t)(K * n) * sizeof(float));
        free(X);
        free(B);
        free(D);
        free(C);
        free(R);
        free(G);
        free(GR);
        ag_i_csr_destroy(&S);
        ag_i_csr_destroy(&T);
        ag_i_csr_destroy(&T);
    }
}

static void test_spmm_threads_and_errors(void **state) {
    (void)state;
    const int64_t M = 2708, K = 1433, N = 64;
    float *X = rnd(M * K, 14, 0.987f), *W = rnd(K * N, 15, 0);
    ag_i_csr_t S;
    assert_int_equal(ag_i_csr_from_dense(&S, X, M, K), AG_SUCCESS);
    float *Y1 = malloc((size_t)(M * N) * sizeof(float)), *Y2 = malloc((size_t)(M * N) * sizeof(float));
    ag_threads_set(1);
    ag_i_spmm(&S, W, N, N, 1.0f, 0.0f, Y1, N);
    ag_threads_set(2);
    ag_i_spmm(&S, W, N, N, 1.0f, 0.0f, Y2, N);
    ag_threads_set(0);
    assert_memory_equal(Y1, Y2, (size_t)(M * N) * sizeof(float));
    ag_i_csr_destroy(&S);
    free(X);
    free(W);
    free(Y1);
    free(Y2);
    /* errors: shapes, allocation failures at each step (ASan checks nothing leaks) */
    float A[6] = {0, 1, 0, 2, 0, 3};
    assert_int_equal(ag_i_csr_from_dense(&S, A, -1, 3), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "negative shape -1 x 3"));
    assert_int_equal(ag_i_csr_from_dense(&S, A, 1, (int64_t)INT32_MAX + 1), AG_ELIMIT);
    for (int n = 1; n <= 4; n++) { /* row counts, then row pointers, columns, values */
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_i_csr_from_dense(&S, A, 2, 3), AG_ENOMEM);
        assert_null(S.indptr);
    }
    ag_i_alloc_fail_at(0);
    assert_int_equal(ag_i_csr_from_dense(&S, A, 2, 3), AG_SUCCESS);
    assert_int_equal(S.nnz, 3);
    assert_int_equal(S.indptr[1], 1);
    assert_int_equal(S.col[2], 2);
    ag_i_csr_t T;
    for (int n = 1; n <= 4; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_i_csr_transpose(&T, &S), AG_ENOMEM);
    }
    ag_i_alloc_fail_at(0);
    assert_int_equal(ag_i_csr_transpose(&T, &S), AG_SUCCESS);
    /* S = [[0,1,0],[2,0,3]]: T = S^T = [[0,2],[1,0],[0,3]] */
    assert_int_equal(T.indptr[1], 1);
    assert_int_equal(T.col[0], 1);
    assert_float_equal(T.val[0], 2.0f, 0.0f);
    assert_float_equal(T.val[2], 3.0f, 0.0f);
    ag_i_csr_destroy(&T);
    ag_i_csr_destroy(&S);
}

/* C = 0.5 op(A) op(B) + C0 on 1 thread and on 2 (operands from rnd streams stream, stream + 1 and
 * stream + 2): right against the double product, and the same bits for both thread counts. */
static void check_threads_bit_identical(int ta, int tb, int64_t M, int64_t N, int64_t K, uint64_t stream) {
    const int64_t lda = ta ? M : K, ldb = tb ? K : N;
    float *A = rnd(M * K, stream, 0), *B = rnd(K * N, stream + 1, 0), *C0 = rnd(M * N, stream + 2, 0);
    float *C1 = malloc((size_t)(M * N) * sizeof(float)), *C2 = malloc((size_t)(M * N) * sizeof(float));
    memcpy(C1, C0, (size_t)(M * N) * sizeof(float));
    memcpy(C2, C0, (size_t)(M * N) * sizeof(float));
    ag_threads_set(1);
    ag_i_gemm(ta, tb, M, N, K, 0.5f, A, lda, B, ldb, 1.0f, C1, N);
    ag_threads_set(2);
    ag_i_gemm(ta, tb, M, N, K, 0.5f, A, lda, B, ldb, 1.0f, C2, N);
    ag_threads_set(0);
    check_product(ta, tb, M, N, K, 0.5f, A, B, 1.0f, C0, C1);
    if (memcmp(C1, C2, (size_t)(M * N) * sizeof(float)) != 0)
        fail_msg("ta %d tb %d %lldx%lldx%lld: 1 and 2 threads differ", ta, tb, (long long)M, (long long)N, (long long)K);
    free(A);
    free(B);
    free(C0);
    free(C1);
    free(C2);
}

/* Products of more than 256 rows run as blocks of 256 rows shared between threads: every
 * transposition, a row count that is not a multiple of the block (the blocks do not depend on the
 * thread count). */
static void test_gemm_row_blocks(void **state) {
    (void)state;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++) check_threads_bit_identical(ta, tb, 1000, 64, 48, 11);
}

/* Products of at most 256 rows with 2^24 multiply-adds or more go to BLAS in one call, on BLAS's own
 * threads: nothing of ours fixes how BLAS shares the work, so its results are checked here. A
 * weight gradient X^T dY of a 64-wide layer over 8192 rows, and a 256-cube at the threshold. */
static void test_gemm_blas_threads_bit_identical(void **state) {
    (void)state;
    struct { int ta, tb; int64_t M, N, K; } cases[] = {
        {1, 0, 64, 64, 8192}, {0, 0, 256, 256, 256}, {0, 1, 256, 256, 256}, {1, 1, 256, 256, 256},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        assert_true(cases[c].M <= 256 && cases[c].M * cases[c].N * cases[c].K >= ((int64_t)1 << 24));
        check_threads_bit_identical(cases[c].ta, cases[c].tb, cases[c].M, cases[c].N, cases[c].K, 16);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_all_transpositions),
        cmocka_unit_test(test_gemm_edge_cases),
        cmocka_unit_test(test_gemm_threads_bit_identical),
        cmocka_unit_test(test_gemm_row_blocks),
        cmocka_unit_test(test_gemm_blas_threads_bit_identical),
        cmocka_unit_test(test_spmm_matches_dense),
        cmocka_unit_test(test_spmm_threads_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
