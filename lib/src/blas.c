/*
 * blas.c: dense products through CBLAS with a plain loop below the size where BLAS pays off, and
 * sparse (CSR) times dense products.
 */
#ifdef AG_BLAS_BLIS
/* First: blis.h sets the POSIX feature macros it needs (pthread barriers) before any libc header.
 * It also declares the CBLAS interface. */
#include <blis.h>
#else
#include <cblas.h>
#endif
#include <omp.h>
#include <string.h>
#include "blas.h"
#include "internal.h"

/* Below this many multiply-adds a BLAS call's fixed cost outweighs its faster kernel. Measured with
 * BLIS 0.9 on one thread on this machine class (docs/blas.md): the loop is 5x faster at 8^3, 1.8x
 * at 12^3, even at 16^3, and 1.6x to 5x slower from 20^3 on (a molecule's 20 x 64 by 64 x 64 runs
 * at 65 GFLOP/s in BLIS against 11 in the loop). */
#define AG_GEMM_SMALL_FLOPS (16 * 16 * 16)

/* Products of at most AG_GEMM_CHUNK_ROWS rows (weight gradients X^T dY: 64 rows, a sum over
 * thousands) run on one BLIS thread below this many multiply-adds, on BLIS's threads above: on two
 * cores shared with other work, a two-thread BLIS call on a small product waits for a descheduled
 * thread at its barrier and slows down 100x or more (docs/blas.md). Taller products are cut into
 * row blocks shared by our own threads (below). */
#define AG_GEMM_PARALLEL_FLOPS ((int64_t)1 << 24)

/* Row blocks (below) are shared between threads from this many multiply-adds on (about 10 us of
 * work on one core): one OpenMP join per product, no BLIS barrier. */
#define AG_GEMM_PARALLEL_FLOPS_OWN ((int64_t)1 << 20)

int64_t ag_i_gemm_small_flops(void) { return AG_GEMM_SMALL_FLOPS; }

#ifdef AG_BLAS_BLIS
/* Products of more rows than this are cut into blocks of this many rows of C, one BLIS call per
 * block. The blocks depend only on the shape, never on the thread count: BLIS's skinny-product
 * ("sup") kernels round differently depending on where a row falls in the call (measured:
 * splitting 3371 x 64 by 64 x 64 with both operands transposed, or 1000 x 64 by 64 x 7 with B
 * transposed, changes bits), so the same cut for every thread count is what keeps results
 * bit-identical. 256 is a multiple of every BLIS micro-tile height; a 256 x 64 by 64 x 64 call
 * runs at 108 GFLOP/s against 112 for 3371 rows in one call. */
#define AG_GEMM_CHUNK_ROWS 256

/* One BLIS call on one thread. BLIS's typed API takes the stored matrices' strides (row-major:
 * row stride ld, column stride 1) and applies the transposition itself. */
static void blis_gemm1(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                       int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rntm);
    bli_sgemm_ex(trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
                 (dim_t)M, (dim_t)N, (dim_t)K, &alpha, (float *)A, (inc_t)lda, 1, (float *)B, (inc_t)ldb, 1,
                 &beta, C, (inc_t)ldc, 1, NULL, &rntm);
}

/* The blocks of AG_GEMM_CHUNK_ROWS rows, shared by our own OpenMP threads (one join, which sleeps
 * under OMP_WAIT_POLICY=passive) rather than by BLIS's threads (whose barriers spin, several per
 * call: a descheduled thread on a shared machine stalls the others). A batch of molecules
 * (thousands of rows by 64 by 64, 14 million multiply-adds) thus uses both cores. */
static void gemm_row_chunks(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                            int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    int64_t nchunks = (M + AG_GEMM_CHUNK_ROWS - 1) / AG_GEMM_CHUNK_ROWS;
#pragma omp parallel for schedule(dynamic, 1) if (M * N * K >= AG_GEMM_PARALLEL_FLOPS_OWN && !omp_in_parallel()) num_threads(ag_threads_get())
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t i0 = c * AG_GEMM_CHUNK_ROWS, m = M - i0 < AG_GEMM_CHUNK_ROWS ? M - i0 : AG_GEMM_CHUNK_ROWS;
        const float *a = trans_a ? A + i0 : A + i0 * lda; /* op(A)'s rows i0.. */
        blis_gemm1(trans_a, trans_b, m, N, K, alpha, a, lda, B, ldb, beta, C + i0 * ldc, ldc);
    }
}
#endif

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

void ag_i_gemm_small(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    enum { JB = 256 };
    float acc[JB];
    if (N < 8) {
        /* Too narrow to vectorise over columns: the naive order with the sum in a register. */
        ag_i_gemm_naive(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    for (int64_t j0 = 0; j0 < N; j0 += JB) {
        int64_t nj = N - j0 < JB ? N - j0 : JB;
        for (int64_t i = 0; i < M; i++) {
            for (int64_t j = 0; j < nj; j++) acc[j] = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                float a = trans_a ? A[k * lda + i] : A[i * lda + k];
                if (trans_b) {
                    const float *b = B + j0 * ldb + k;
                    for (int64_t j = 0; j < nj; j++) acc[j] += a * b[j * ldb];
                } else {
                    const float *b = B + k * ldb + j0;
                    for (int64_t j = 0; j < nj; j++) acc[j] += a * b[j];
                }
            }
            float *c = C + i * ldc + j0;
            for (int64_t j = 0; j < nj; j++) c[j] = (beta == 0.0f ? 0.0f : beta * c[j]) + alpha * acc[j];
        }
    }
}

void ag_i_gemm(int trans_a, int trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0 || alpha == 0.0f) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
        return;
    }
    /* One row, or fewer than 8 columns, is (nearly) a matrix-vector product, where BLIS beats the
     * loop at any size (1 x 64 by 64 x 64: 17 against 6 GFLOP/s; 20 x 64 by 64 x 1: 14 against 2). */
    if (M * N * K <= AG_GEMM_SMALL_FLOPS && M >= 2 && N >= 8) {
        ag_i_gemm_small(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#ifdef AG_BLAS_BLIS
    /* M or N of 1 stays with CBLAS: BLIS's BLAS layer turns it into a (single-threaded) gemv,
     * 3-5x faster than the gemm machinery. */
    if (M > AG_GEMM_CHUNK_ROWS && N > 1) {
        gemm_row_chunks(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if (M * N * K < AG_GEMM_PARALLEL_FLOPS && M > 1 && N > 1) {
        blis_gemm1(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#endif
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                (int)M, (int)N, (int)K, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* ---- sparse times dense ---- */

void ag_i_csr_destroy(ag_i_csr_t *S) {
    if (!S) return;
    ag_i_free(S->indptr);
    ag_i_free(S->col);
    ag_i_free(S->val);
    memset(S, 0, sizeof *S);
}

static ag_error_t csr_alloc(ag_i_csr_t *S, int64_t rows, int64_t cols, int64_t nnz) {
    void *p = NULL, *c = NULL, *v = NULL;
    memset(S, 0, sizeof *S);
    ag_error_t rc = ag_i_alloc_array(&p, rows + 1, sizeof(int64_t), "sparse matrix row pointers");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array(&c, nnz, sizeof(int32_t), "sparse matrix columns");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array(&v, nnz, sizeof(float), "sparse matrix values");
    if (rc != AG_SUCCESS) {
        ag_i_free(p);
        ag_i_free(c);
        ag_i_free(v);
        return rc;
    }
    S->indptr = p;
    S->col = c;
    S->val = v;
    S->rows = rows;
    S->cols = cols;
    S->nnz = nnz;
    return AG_SUCCESS;
}

ag_error_t ag_i_csr_from_dense(ag_i_csr_t *S, const float *A, int64_t rows, int64_t cols) {
    memset(S, 0, sizeof *S);
    if (rows < 0 || cols < 0) return AG_ERROR(AG_EINVAL, "sparse matrix: negative shape %lld x %lld", (long long)rows, (long long)cols);
    if (cols > INT32_MAX) return AG_ERROR(AG_ELIMIT, "sparse matrix: %lld columns exceed 2^31-1", (long long)cols);
    int64_t n, nnz = 0;
    if (ag_i_mul_overflow(rows, cols, &n)) return AG_ERROR(AG_ELIMIT, "sparse matrix: %lld x %lld overflows", (long long)rows, (long long)cols);
    /* Rows are counted and filled in parallel (each row by one thread, integer counts): the
     * result does not depend on the thread count. A model builds this once per forward pass
     * (the input of a layer changes with dropout), so the two passes over A matter. */
    int64_t *cnt; /* (rows + 1) */
    AG_CHECK(ag_i_alloc_array((void **)&cnt, rows + 1, sizeof *cnt, "sparse matrix row counts"));
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
    for (int64_t r = 0; r < rows; r++) {
        const float *a = A + r * cols;
        int64_t c = 0, k = 0;
        for (; c + 16 <= cols; c += 16) { /* vectorised count of a chunk */
            int32_t t = 0;
            for (int j = 0; j < 16; j++) t += a[c + j] != 0.0f;
            k += t;
        }
        for (; c < cols; c++) k += a[c] != 0.0f;
        cnt[r + 1] = k;
    }
    for (int64_t r = 0; r < rows; r++) cnt[r + 1] += cnt[r];
    nnz = cnt[rows];
    ag_error_t rc = csr_alloc(S, rows, cols, nnz);
    if (rc) {
        ag_i_free(cnt);
        return rc;
    }
    memcpy(S->indptr, cnt, (size_t)(rows + 1) * sizeof *cnt);
    ag_i_free(cnt);
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
    for (int64_t r = 0; r < rows; r++) {
        const float *a = A + r * cols;
        int64_t e = S->indptr[r], c = 0;
        for (; c + 16 <= cols; c += 16) {
            int32_t any = 0;
            for (int j = 0; j < 16; j++) any |= a[c + j] != 0.0f;
            if (!any) continue; /* a chunk of zeros: one test */
            for (int j = 0; j < 16; j++)
                if (a[c + j] != 0.0f) {
                    S->col[e] = (int32_t)(c + j);
                    S->val[e++] = a[c + j];
                }
        }
        for (; c < cols; c++)
            if (a[c] != 0.0f) {
                S->col[e] = (int32_t)c;
                S->val[e++] = a[c];
            }
    }
    return AG_SUCCESS;
}

ag_error_t ag_i_csr_transpose(ag_i_csr_t *T, const ag_i_csr_t *S) {
    if (S->rows > INT32_MAX) {
        memset(T, 0, sizeof *T);
        return AG_ERROR(AG_ELIMIT, "sparse matrix: %lld rows exceed 2^31-1", (long long)S->rows);
    }
    AG_CHECK(csr_alloc(T, S->cols, S->rows, S->nnz));
    /* Counting sort by column; walking S's rows in order keeps each T row sorted by S row. */
    for (int64_t e = 0; e < S->nnz; e++) T->indptr[S->col[e] + 1]++;
    for (int64_t c = 0; c < S->cols; c++) T->indptr[c + 1] += T->indptr[c];
    void *fill;
    ag_error_t rc = ag_i_alloc_array(&fill, S->cols, sizeof(int64_t), "sparse transpose cursor");
    if (rc != AG_SUCCESS) {
        ag_i_csr_destroy(T);
        return rc;
    }
    int64_t *next = fill;
    memcpy(next, T->indptr, (size_t)S->cols * sizeof(int64_t));
    for (int64_t r = 0; r < S->rows; r++)
        for (int64_t e = S->indptr[r]; e < S->indptr[r + 1]; e++) {
            int64_t d = next[S->col[e]]++;
            T->col[d] = (int32_t)r;
            T->val[d] = S->val[e];
        }
    ag_i_free(next);
    return AG_SUCCESS;
}

void ag_i_spmm(const ag_i_csr_t *S, const float *B, int64_t ldb, int64_t N, float alpha, float beta,
               float *C, int64_t ldc) {
    enum { JB = 256 };
#pragma omp parallel for schedule(dynamic, 16) if (S->nnz * N > 65536) num_threads(ag_threads_get())
    for (int64_t r = 0; r < S->rows; r++) {
        float acc[JB];
        float *c = C + r * ldc;
        for (int64_t j0 = 0; j0 < N; j0 += JB) {
            int64_t nj = N - j0 < JB ? N - j0 : JB;
            for (int64_t j = 0; j < nj; j++) acc[j] = 0.0f;
            for (int64_t e = S->indptr[r]; e < S->indptr[r + 1]; e++) {
                float a = S->val[e];
                const float *b = B + (int64_t)S->col[e] * ldb + j0;
                for (int64_t j = 0; j < nj; j++) acc[j] += a * b[j];
            }
            for (int64_t j = 0; j < nj; j++) c[j0 + j] = (beta == 0.0f ? 0.0f : beta * c[j0 + j]) + alpha * acc[j];
        }
    }
}
