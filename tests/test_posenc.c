/* Tests of the structural encodings: degree, Laplacian eigenvectors, random-walk return
 * probabilities. References are independent: igraph's own Laplacian, dense matrix powers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/posenc.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

static void make_graph(igraph_t *g, int64_t n, const igraph_integer_t *edges, int64_t ne, int directed) {
    igraph_vector_int_t v;
    igraph_vector_int_init(&v, 2 * ne);
    for (int64_t i = 0; i < 2 * ne; i++) VECTOR(v)[i] = edges[i];
    assert_int_equal(igraph_create(g, &v, n, directed ? IGRAPH_DIRECTED : IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&v);
}

static void read_gml(igraph_t *g, const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(igraph_read_graph_gml(g, f), IGRAPH_SUCCESS);
    fclose(f);
}

static void assert_fmat(const ag_fmat_t *m, int64_t rows, int64_t cols, const float *expect, float eps) {
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    for (int64_t i = 0; i < rows * cols; i++) assert_float_equal(m->data[i], expect[i], eps);
}

static void test_degree(void **state) {
    (void)state;
    /* undirected: a double edge 0-1, an edge 1-2, a self-loop at 2, vertex 3 isolated */
    const igraph_integer_t e1[] = {0, 1, 1, 0, 1, 2, 2, 2};
    igraph_t g;
    make_graph(&g, 4, e1, 4, 0);
    ag_fmat_t d = {0};
    assert_int_equal(ag_posenc_degree(&g, &d), AG_SUCCESS);
    const float want1[] = {2, 3, 2, 0};
    assert_fmat(&d, 4, 1, want1, 0.0f);
    igraph_destroy(&g);
    /* directed: 0->1, 1->2, 2->0, 2->2, 0->1 again; columns in, out */
    const igraph_integer_t e2[] = {0, 1, 1, 2, 2, 0, 2, 2, 0, 1};
    make_graph(&g, 3, e2, 5, 1);
    assert_int_equal(ag_posenc_degree(&g, &d), AG_SUCCESS); /* reuses d: resized */
    const float want2[] = {1, 2, 2, 1, 2, 2};
    assert_fmat(&d, 3, 2, want2, 0.0f);
    /* column 0 is exactly the number of CSR entries attention aggregates over */
    ag_graph_t csr;
    assert_int_equal(ag_graph_from_igraph(&csr, &g), AG_SUCCESS);
    for (int64_t i = 0; i < 3; i++) assert_float_equal(d.data[i * 2], (float)(csr.indptr[i + 1] - csr.indptr[i]), 0.0f);
    ag_graph_destroy(&csr);
    igraph_destroy(&g);
    make_graph(&g, 4, e1, 4, 0);
    assert_int_equal(ag_posenc_degree(&g, &d), AG_SUCCESS);
    assert_int_equal(ag_graph_from_igraph(&csr, &g), AG_SUCCESS);
    for (int64_t i = 0; i < 4; i++) assert_float_equal(d.data[i], (float)(csr.indptr[i + 1] - csr.indptr[i]), 0.0f);
    ag_graph_destroy(&csr);
    assert_int_equal(ag_posenc_degree_width(1), 2);
    assert_int_equal(ag_posenc_degree_width(0), 1);
    igraph_destroy(&g);
    ag_fmat_destroy(&d);
}

static void test_laplacian_exact_small(void **state) {
    (void)state;
    igraph_t g;
    ag_fmat_t pe = {0};
    const float r = 0.70710678f;
    /* path 0-1-2: eigenvalues 0, 1, 2; v1 = (1, 0, -1)/sqrt2, v2 = (1, -sqrt2, 1)/2 whose largest
     * entry is negative, so it is flipped; k = 3 > N - 1 pads one zero column */
    const igraph_integer_t p3[] = {0, 1, 1, 2};
    make_graph(&g, 3, p3, 2, 0);
    assert_int_equal(ag_posenc_laplacian(&g, 3, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    const float want[] = {r, -0.5f, 0, 0, r, 0, -r, -0.5f, 0};
    assert_fmat(&pe, 3, 3, want, 1e-5f);
    igraph_destroy(&g);
    /* an edge 0-1 and isolated vertex 2: L = [[1,-1,0],[-1,1,0],[0,0,1]] (L_22 = 1 by definition),
     * eigenvalues 0, 1, 2: e_2 for 1, (1,-1,0)/sqrt2 for 2 */
    const igraph_integer_t e[] = {0, 1};
    make_graph(&g, 3, e, 1, 0);
    assert_int_equal(ag_posenc_laplacian(&g, 2, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    const float want2[] = {0, r, 0, -r, 1, 0};
    assert_fmat(&pe, 3, 2, want2, 1e-5f);
    /* multi-edges, self-loops and direction do not change it */
    igraph_destroy(&g);
    const igraph_integer_t e3[] = {1, 0, 0, 1, 1, 1, 2, 2};
    make_graph(&g, 3, e3, 4, 1);
    assert_int_equal(ag_posenc_laplacian(&g, 2, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    assert_fmat(&pe, 3, 2, want2, 1e-5f);
    igraph_destroy(&g);
    /* single vertex, empty graph, k = 0 */
    igraph_empty(&g, 1, IGRAPH_UNDIRECTED);
    assert_int_equal(ag_posenc_laplacian(&g, 2, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    const float zero2[] = {0, 0};
    assert_fmat(&pe, 1, 2, zero2, 0.0f);
    igraph_destroy(&g);
    igraph_empty(&g, 0, IGRAPH_UNDIRECTED);
    assert_int_equal(ag_posenc_laplacian(&g, 2, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    assert_int_equal(pe.rows, 0);
    assert_int_equal(pe.cols, 2);
    assert_int_equal(ag_posenc_laplacian(&g, -1, AG_EIGEN_AUTO, &pe), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "k = -1 is negative"));
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
}

/* Checks every column against igraph's own symmetric normalised Laplacian (simple graphs without
 * isolated vertices, where the two definitions agree): unit norm, L v = lambda v within 1e-4,
 * eigenvalues ascending, columns orthogonal to each other and to the skipped trivial eigenvector,
 * and the sign convention. Returns the eigenvalues in lam (k). */
static void check_eigvecs(const igraph_t *g, const ag_fmat_t *pe, int64_t k, double *lam) {
    int64_t n = igraph_vcount(g);
    igraph_sparsemat_t L;
    igraph_sparsemat_init(&L, n, n, 0);
    assert_int_equal(igraph_get_laplacian_sparse(g, &L, IGRAPH_ALL, IGRAPH_LAPLACIAN_SYMMETRIC, NULL), IGRAPH_SUCCESS);
    igraph_sparsemat_t Lc;
    igraph_sparsemat_compress(&L, &Lc);
    igraph_vector_int_t deg, memb;
    igraph_vector_int_init(&deg, 0);
    igraph_vector_int_init(&memb, 0);
    igraph_degree(g, &deg, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
    igraph_connected_components(g, &memb, NULL, NULL, IGRAPH_WEAK);
    igraph_vector_t v, Lv;
    igraph_vector_init(&v, n);
    igraph_vector_init(&Lv, n);
    double prev = 1e-9;
    for (int64_t j = 0; j < k; j++) {
        double norm = 0, dot1 = 0, maxabs = 0, maxv = 0;
        for (int64_t i = 0; i < n; i++) {
            double x = pe->data[i * k + j];
            VECTOR(v)[i] = x;
            norm += x * x;
            /* the skipped trivial vector: D^1/2 1 on the component of vertex 0 */
            if (VECTOR(memb)[i] == VECTOR(memb)[0]) dot1 += x * sqrt((double)VECTOR(deg)[i]);
            if (fabs(x) > maxabs + 1e-6) {
                maxabs = fabs(x);
                maxv = x;
            }
        }
        assert_float_equal(norm, 1.0, 1e-5);
        assert_float_equal(dot1, 0.0, 1e-3);
        assert_true(maxv > 0);
        igraph_vector_null(&Lv);
        igraph_sparsemat_gaxpy(&Lc, &v, &Lv);
        double l = 0;
        for (int64_t i = 0; i < n; i++) l += VECTOR(v)[i] * VECTOR(Lv)[i];
        for (int64_t i = 0; i < n; i++) assert_float_equal(VECTOR(Lv)[i], l * VECTOR(v)[i], 1e-4);
        assert_true(l >= prev - 1e-5);
        prev = l;
        if (lam) lam[j] = l;
        for (int64_t c = 0; c < j; c++) { /* columns are orthogonal */
            double d = 0;
            for (int64_t i = 0; i < n; i++) d += (double)pe->data[i * k + j] * pe->data[i * k + c];
            assert_float_equal(d, 0.0, 1e-4);
        }
    }
    igraph_vector_int_destroy(&memb);
    igraph_vector_destroy(&v);
    igraph_vector_destroy(&Lv);
    igraph_vector_int_destroy(&deg);
    igraph_sparsemat_destroy(&L);
    igraph_sparsemat_destroy(&Lc);
}

static void test_laplacian_path_cycle(void **state) {
    (void)state;
    igraph_t g;
    ag_fmat_t pe = {0};
    double lam[4];
    igraph_ring(&g, 7, IGRAPH_UNDIRECTED, 0, 0); /* path of 7 */
    assert_int_equal(ag_posenc_laplacian(&g, 4, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    check_eigvecs(&g, &pe, 4, lam);
    /* the path's normalised Laplacian has eigenvalues 1 - cos(pi j / (n-1)), j = 0..n-1 */
    for (int j = 0; j < 4; j++) assert_float_equal(lam[j], 1 - cos(M_PI * (j + 1) / 6.0), 1e-5);
    igraph_destroy(&g);
    igraph_ring(&g, 8, IGRAPH_UNDIRECTED, 0, 1); /* cycle of 8: 1 - cos(2 pi j / n), doubled */
    assert_int_equal(ag_posenc_laplacian(&g, 4, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    check_eigvecs(&g, &pe, 4, lam);
    const double want[] = {1 - cos(M_PI / 4), 1 - cos(M_PI / 4), 1 - cos(M_PI / 2), 1 - cos(M_PI / 2)};
    for (int j = 0; j < 4; j++) assert_float_equal(lam[j], want[j], 1e-5);
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
}

static void test_laplacian_tox21_molecule(void **state) {
    (void)state;
    igraph_t g;
    read_gml(&g, AG_SOURCE_DIR "/tests/data/tox21-mini/0001.gml");
    assert_int_equal(igraph_vcount(&g), 16);
    ag_fmat_t pe = {0}, pa = {0};
    double ld[6], la[6];
    assert_int_equal(ag_posenc_laplacian(&g, 6, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    check_eigvecs(&g, &pe, 6, ld);
    /* ARPACK forced on the same molecule finds the same eigenvalues */
    assert_int_equal(ag_posenc_laplacian(&g, 6, AG_EIGEN_ARPACK, &pa), AG_SUCCESS);
    check_eigvecs(&g, &pa, 6, la);
    for (int j = 0; j < 6; j++) assert_float_equal(la[j], ld[j], 1e-5);
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
    ag_fmat_destroy(&pa);
}

static void test_laplacian_disconnected(void **state) {
    (void)state;
    /* edge 0-4, edge 1-5, path 2-6-3 (interleaved, so no solver sees blocks): eigenvalues
     * 0, 0, 0, 1, 2, 2, 2. The zero eigenvalue's vectors are the canonical D^1/2 1_C / norm per
     * component, numbered by smallest vertex (the first skipped), then the path's
     * (1, 0, -1)/sqrt2 on (2, 6, 3); both solvers give exactly this */
    const float r = 0.70710678f;
    const igraph_integer_t e[] = {0, 4, 1, 5, 2, 6, 6, 3};
    igraph_t g;
    make_graph(&g, 7, e, 4, 0);
    const float want[] = {0, 0, 0, r, 0, 0, 0, 0.5f, r, 0, 0.5f, -r, 0, 0, 0, r, 0, 0, 0, r, 0};
    ag_fmat_t pe = {0};
    assert_int_equal(ag_posenc_laplacian(&g, 3, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    assert_fmat(&pe, 7, 3, want, 1e-5f);
    assert_int_equal(ag_posenc_laplacian(&g, 3, AG_EIGEN_ARPACK, &pe), AG_SUCCESS);
    assert_fmat(&pe, 7, 3, want, 1e-5f);
    igraph_destroy(&g);
    /* 3000 vertices in two components through ARPACK: column 0 is the second component's null
     * vector, the rest are non-trivial eigenvectors */
    igraph_t a, b;
    igraph_rng_seed(igraph_rng_default(), 11);
    igraph_watts_strogatz_game(&a, 1, 1500, 3, 0.2, 0, 0);
    igraph_watts_strogatz_game(&b, 1, 1500, 3, 0.2, 0, 0);
    igraph_disjoint_union(&g, &a, &b);
    assert_int_equal(ag_posenc_laplacian(&g, 4, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    check_eigvecs(&g, &pe, 4, NULL);
    igraph_vector_int_t deg;
    igraph_vector_int_init(&deg, 0);
    igraph_degree(&g, &deg, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
    double vol = 0;
    for (int i = 1500; i < 3000; i++) vol += VECTOR(deg)[i];
    for (int i = 0; i < 3000; i++)
        assert_float_equal(pe.data[i * 4], i < 1500 ? 0.0 : sqrt(VECTOR(deg)[i] / vol), 1e-6);
    igraph_vector_int_destroy(&deg);
    igraph_destroy(&a);
    igraph_destroy(&b);
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
}

static void test_laplacian_dense_vs_arpack(void **state) {
    (void)state;
    igraph_t g;
    igraph_rng_seed(igraph_rng_default(), 7);
    /* a 300-node connected random graph with a simple low spectrum */
    igraph_barabasi_game(&g, 300, 1, 2, NULL, 1, 1, IGRAPH_UNDIRECTED, IGRAPH_BARABASI_PSUMTREE, NULL);
    igraph_simplify(&g, 1, 1, NULL);
    ag_fmat_t pe = {0}, pa = {0};
    double ld[5], la[5];
    assert_int_equal(ag_posenc_laplacian(&g, 5, AG_EIGEN_DENSE, &pe), AG_SUCCESS);
    assert_int_equal(ag_posenc_laplacian(&g, 5, AG_EIGEN_ARPACK, &pa), AG_SUCCESS);
    check_eigvecs(&g, &pe, 5, ld);
    check_eigvecs(&g, &pa, 5, la);
    for (int j = 0; j < 5; j++) {
        assert_float_equal(la[j], ld[j], 1e-6);
        if (j == 0 || ld[j] - ld[j - 1] > 1e-3) { /* distinct eigenvalue: same vector up to sign */
            double dot = 0;
            for (int i = 0; i < 300; i++) dot += (double)pe.data[i * 5 + j] * pa.data[i * 5 + j];
            assert_float_equal(fabs(dot), 1.0, 1e-4);
        }
    }
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
    ag_fmat_destroy(&pa);
}

static void test_laplacian_arpack_large(void **state) {
    (void)state;
    igraph_t g;
    igraph_rng_seed(igraph_rng_default(), 42);
    /* 3000 nodes (above AG_POSENC_DENSE_MAX, so ARPACK): a ring lattice with rewired shortcuts */
    igraph_watts_strogatz_game(&g, 1, 3000, 3, 0.2, 0, 0);
    igraph_vector_int_t deg;
    igraph_vector_int_init(&deg, 0);
    igraph_degree(&g, &deg, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
    assert_true(igraph_vector_int_min(&deg) > 0);
    igraph_vector_int_destroy(&deg);
    ag_fmat_t pe = {0};
    assert_int_equal(ag_posenc_laplacian(&g, 4, AG_EIGEN_AUTO, &pe), AG_SUCCESS);
    check_eigvecs(&g, &pe, 4, NULL);
    igraph_destroy(&g);
    ag_fmat_destroy(&pe);
}

/* Reference: the diagonal of (D^-1 A)^t by dense matrix powers. */
static void rw_reference(const igraph_t *g, int64_t k, double *R /* (N x k) */) {
    int64_t n = igraph_vcount(g), e = igraph_ecount(g);
    double *A = calloc((size_t)(n * n), sizeof(double)), *P = calloc((size_t)(n * n), sizeof(double));
    double *Q = calloc((size_t)(n * n), sizeof(double)), *T = calloc((size_t)(n * n), sizeof(double));
    for (int64_t i = 0; i < e; i++) {
        int64_t u = IGRAPH_FROM(g, i), v = IGRAPH_TO(g, i);
        A[u * n + v] += 1;
        if (!igraph_is_directed(g) && u != v) A[v * n + u] += 1;
    }
    for (int64_t i = 0; i < n; i++) {
        double d = 0;
        for (int64_t j = 0; j < n; j++) d += A[i * n + j];
        for (int64_t j = 0; j < n; j++) P[i * n + j] = d > 0 ? A[i * n + j] / d : 0;
    }
    memcpy(Q, P, (size_t)(n * n) * sizeof(double));
    for (int64_t t = 0; t < k; t++) {
        for (int64_t i = 0; i < n; i++) R[i * k + t] = Q[i * n + i];
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t l = 0; l < n; l++) s += Q[i * n + l] * P[l * n + j];
                T[i * n + j] = s;
            }
        memcpy(Q, T, (size_t)(n * n) * sizeof(double));
    }
    free(A);
    free(P);
    free(Q);
    free(T);
}

static void check_rw(const igraph_t *g, int64_t k) {
    int64_t n = igraph_vcount(g);
    double *R = calloc((size_t)(n * k) + 1, sizeof(double));
    rw_reference(g, k, R);
    ag_fmat_t m = {0};
    assert_int_equal(ag_posenc_random_walk(g, k, &m), AG_SUCCESS);
    assert_int_equal(m.rows, n);
    assert_int_equal(m.cols, k);
    for (int64_t i = 0; i < n * k; i++) assert_float_equal(m.data[i], R[i], 1e-6);
    ag_fmat_destroy(&m);
    free(R);
}

static void test_random_walk(void **state) {
    (void)state;
    igraph_t g;
    /* hand-computed: path 0-1-2, P = [[0,1,0],[.5,0,.5],[0,1,0]]; odd steps never return;
     * diag P^2 = (0.5, 1, 0.5) and diag P^4 = (0.25 + 0.5 * 0.5, 1, 0.5) */
    const igraph_integer_t p3[] = {0, 1, 1, 2};
    make_graph(&g, 3, p3, 2, 0);
    ag_fmat_t m = {0};
    assert_int_equal(ag_posenc_random_walk(&g, 4, &m), AG_SUCCESS);
    const float want[] = {0, 0.5f, 0, 0.5f, 0, 1, 0, 1, 0, 0.5f, 0, 0.5f};
    assert_fmat(&m, 3, 4, want, 1e-7f);
    check_rw(&g, 6);
    igraph_destroy(&g);
    /* undirected with a double edge, a self-loop and an isolated vertex */
    const igraph_integer_t e1[] = {0, 1, 1, 0, 1, 2, 2, 2, 2, 3, 3, 0};
    make_graph(&g, 5, e1, 6, 0);
    check_rw(&g, 7);
    igraph_destroy(&g);
    /* directed with a sink (vertex 3 has no way out) and a self-loop */
    const igraph_integer_t e2[] = {0, 1, 1, 2, 2, 0, 2, 2, 1, 3, 0, 2};
    make_graph(&g, 4, e2, 6, 1);
    check_rw(&g, 7);
    igraph_destroy(&g);
    /* a molecule, and a 200-node random graph (run by several threads) */
    read_gml(&g, AG_SOURCE_DIR "/tests/data/tox21-mini/0001.gml");
    check_rw(&g, 8);
    igraph_destroy(&g);
    igraph_rng_seed(igraph_rng_default(), 3);
    igraph_erdos_renyi_game_gnm(&g, 200, 500, IGRAPH_DIRECTED, IGRAPH_LOOPS);
    check_rw(&g, 5);
    igraph_destroy(&g);
    assert_int_equal(ag_posenc_random_walk(&g, -2, &m), AG_EINVAL);
    ag_fmat_destroy(&m);
}

static void test_alloc_failures(void **state) {
    (void)state;
    igraph_t g;
    igraph_ring(&g, 70, IGRAPH_UNDIRECTED, 0, 1);
    /* every allocation of each function fails once in turn: an error, no leak, out untouched */
    for (int which = 0; which < 3; which++) {
        for (int64_t n = 1;; n++) {
            ag_fmat_t m = {0};
            ag_i_alloc_fail_at(n);
            ag_error_t rc = which == 0   ? ag_posenc_degree(&g, &m)
                            : which == 1 ? ag_posenc_laplacian(&g, 3, AG_EIGEN_DENSE, &m)
                                         : ag_posenc_random_walk(&g, 3, &m);
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) {
                ag_fmat_destroy(&m);
                break;
            }
            assert_int_equal(rc, AG_ENOMEM);
            assert_null(m.data);
        }
    }
    igraph_destroy(&g);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degree),
        cmocka_unit_test(test_laplacian_exact_small),
        cmocka_unit_test(test_laplacian_path_cycle),
        cmocka_unit_test(test_laplacian_tox21_molecule),
        cmocka_unit_test(test_laplacian_disconnected),
        cmocka_unit_test(test_laplacian_dense_vs_arpack),
        cmocka_unit_test(test_laplacian_arpack_large),
        cmocka_unit_test(test_random_walk),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
