/*
 * posenc.c: degree, Laplacian eigenvector and random-walk encodings of a graph's nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "attngraph/posenc.h"
#include "internal.h"

/* Adjacency lists in CSR form, built straight from igraph's edge vectors (no igraph call). */
typedef struct csr_t {
    int64_t n;
    int64_t *indptr; /* (N+1) */
    int64_t *nbr;    /* (indptr[N]) */
} csr_t;

static void csr_destroy(csr_t *c) {
    ag_i_free(c->indptr);
    ag_i_free(c->nbr);
    c->indptr = NULL;
    c->nbr = NULL;
}

static void graph_shape(const igraph_t *ig, int64_t *n, int64_t *e, int *directed) {
    ag_i_igraph_enter();
    *n = (int64_t)igraph_vcount(ig);
    *e = (int64_t)igraph_ecount(ig);
    *directed = igraph_is_directed(ig) ? 1 : 0;
    ag_i_igraph_leave();
}

/* mode 0: the simple undirected graph (direction ignored, loops dropped, multi-edges collapsed),
 *         rows sorted; what the Laplacian is defined on.
 * mode 1: walk steps: out-neighbours with multiplicity (both ends for undirected edges, a
 *         self-loop once), in edge-id order. */
static ag_error_t csr_build(const igraph_t *ig, int mode, csr_t *c) {
    int64_t n, e;
    int directed;
    graph_shape(ig, &n, &e, &directed);
    void *p;
    c->n = n;
    c->indptr = NULL;
    c->nbr = NULL;
    AG_CHECK(ag_i_alloc_array(&p, n + 1, sizeof(int64_t), "adjacency offsets"));
    c->indptr = p;
    int64_t *cnt = c->indptr + 1; /* counts shifted by one, then prefix-summed in place */
    for (int64_t i = 0; i < e; i++) {
        int64_t u = IGRAPH_FROM(ig, i), v = IGRAPH_TO(ig, i);
        if (mode == 0) {
            if (u == v) continue;
            cnt[u]++;
            cnt[v]++;
        } else {
            cnt[u]++;
            if (!directed && u != v) cnt[v]++;
        }
    }
    for (int64_t i = 0; i < n; i++) c->indptr[i + 1] += c->indptr[i];
    ag_error_t rc = ag_i_alloc_array(&p, c->indptr[n], sizeof(int64_t), "adjacency lists");
    if (rc != AG_SUCCESS) {
        csr_destroy(c);
        return rc;
    }
    c->nbr = p;
    int64_t *fill;
    rc = ag_i_alloc_array(&p, n, sizeof(int64_t), "adjacency fill pointers");
    if (rc != AG_SUCCESS) {
        csr_destroy(c);
        return rc;
    }
    fill = p;
    for (int64_t i = 0; i < n; i++) fill[i] = c->indptr[i];
    for (int64_t i = 0; i < e; i++) {
        int64_t u = IGRAPH_FROM(ig, i), v = IGRAPH_TO(ig, i);
        if (mode == 0) {
            if (u == v) continue;
            c->nbr[fill[u]++] = v;
            c->nbr[fill[v]++] = u;
        } else {
            c->nbr[fill[u]++] = v;
            if (!directed && u != v) c->nbr[fill[v]++] = u;
        }
    }
    ag_i_free(fill);
    if (mode == 0) {
        /* Sort and deduplicate each row, compacting the lists in place. */
        int64_t w = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t b = c->indptr[i], en = c->indptr[i + 1];
            qsort(c->nbr + b, (size_t)(en - b), sizeof(int64_t), ag_i_cmp_i64);
            c->indptr[i] = w;
            for (int64_t j = b; j < en; j++)
                if (j == b || c->nbr[j] != c->nbr[j - 1]) c->nbr[w++] = c->nbr[j];
        }
        c->indptr[n] = w;
    }
    return AG_SUCCESS;
}

/* Moves a freshly computed matrix into the caller's output. */
static void give(ag_fmat_t *out, ag_fmat_t *fresh) {
    ag_fmat_destroy(out);
    *out = *fresh;
    fresh->data = NULL;
}

int64_t ag_posenc_degree_width(int directed) { return directed ? 2 : 1; }

ag_error_t ag_posenc_degree(const igraph_t *ig, ag_fmat_t *out) {
    int64_t n, e;
    int directed;
    graph_shape(ig, &n, &e, &directed);
    int64_t w = ag_posenc_degree_width(directed);
    ag_fmat_t m;
    AG_CHECK(ag_fmat_init(&m, n, w));
    for (int64_t i = 0; i < e; i++) {
        int64_t u = IGRAPH_FROM(ig, i), v = IGRAPH_TO(ig, i);
        if (directed) {
            m.data[v * 2 + 0] += 1.0f; /* in */
            m.data[u * 2 + 1] += 1.0f; /* out */
        } else {
            m.data[u] += 1.0f;
            if (u != v) m.data[v] += 1.0f;
        }
    }
    give(out, &m);
    return AG_SUCCESS;
}

/* ---- Laplacian eigenvectors ---- */

/* What both solvers share: the simple graph, D^-1/2, and the null space of L, known exactly:
 * one vector D^1/2 1_C / ||D^1/2 1_C|| per connected component C with at least one edge
 * (isolated vertices have L_ii = 1, so they add none). Components are numbered in order of their
 * smallest vertex. Using these vectors instead of what a solver returns for the repeated
 * eigenvalue 0 makes the null-space columns of a disconnected graph canonical, and lets ARPACK
 * work on the rest (a single-vector Lanczos method finds only one vector of a repeated
 * eigenvalue). */
typedef struct lap_t {
    const csr_t *c;
    double *dinv;  /* (N) 1/sqrt(degree), 0 for isolated vertices */
    int64_t *comp; /* (N) component of each vertex, -1 for isolated vertices */
    double *q;     /* (N) entry of the vertex's null vector, 0 for isolated vertices */
    double *dots;  /* (c0) scratch for the ARPACK operator */
    int64_t c0;    /* number of components with an edge = multiplicity of eigenvalue 0 */
} lap_t;

static void lap_destroy(lap_t *l) {
    ag_i_free(l->dinv);
    ag_i_free(l->comp);
    ag_i_free(l->q);
    ag_i_free(l->dots);
}

static ag_error_t lap_init(lap_t *l, const csr_t *c) {
    int64_t n = c->n;
    void *p;
    memset(l, 0, sizeof *l);
    l->c = c;
    int64_t *queue = NULL;
    double *vol = NULL;
    ag_error_t err = ag_i_alloc_array(&p, n, sizeof(double), "inverse square-root degrees");
    l->dinv = p;
    if (err == AG_SUCCESS) {
        err = ag_i_alloc_array(&p, n, sizeof(int64_t), "component labels");
        l->comp = p;
    }
    if (err == AG_SUCCESS) {
        err = ag_i_alloc_array(&p, n, sizeof(double), "null-space vectors");
        l->q = p;
    }
    if (err == AG_SUCCESS) {
        err = ag_i_alloc_array(&p, n, sizeof(int64_t), "breadth-first queue");
        queue = p;
    }
    if (err == AG_SUCCESS) {
        err = ag_i_alloc_array(&p, n + 1, sizeof(double), "component volumes");
        vol = p;
    }
    if (err != AG_SUCCESS) {
        ag_i_free(queue);
        ag_i_free(vol);
        lap_destroy(l);
        return err;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t d = c->indptr[i + 1] - c->indptr[i];
        l->dinv[i] = d > 0 ? 1.0 / sqrt((double)d) : 0.0;
        l->comp[i] = -1;
    }
    for (int64_t s = 0; s < n; s++) {
        if (l->comp[s] >= 0 || c->indptr[s + 1] == c->indptr[s]) continue;
        int64_t head = 0, tail = 0, id = l->c0++;
        queue[tail++] = s;
        l->comp[s] = id;
        while (head < tail) {
            int64_t u = queue[head++];
            vol[id] += (double)(c->indptr[u + 1] - c->indptr[u]);
            for (int64_t q = c->indptr[u]; q < c->indptr[u + 1]; q++)
                if (l->comp[c->nbr[q]] < 0) {
                    l->comp[c->nbr[q]] = id;
                    queue[tail++] = c->nbr[q];
                }
        }
    }
    for (int64_t i = 0; i < n; i++)
        l->q[i] = l->comp[i] < 0 ? 0.0 : sqrt((double)(c->indptr[i + 1] - c->indptr[i]) / vol[l->comp[i]]);
    ag_i_free(queue);
    ag_i_free(vol);
    err = ag_i_alloc_array(&p, l->c0, sizeof(double), "null-space products");
    l->dots = p;
    if (err != AG_SUCCESS) lap_destroy(l);
    return err;
}

/* Column j of out: the null vector of component `comp` (non-negative, so the sign convention
 * holds as it is). */
static void put_null_column(ag_fmat_t *out, int64_t j, const lap_t *l, int64_t comp) {
    for (int64_t i = 0; i < out->rows; i++) out->data[i * out->cols + j] = l->comp[i] == comp ? (float)l->q[i] : 0.0f;
}

/* Writes eigenvector column `col` of vecs (N x m, column-major igraph) into out column j with
 * the sign convention: the entry of largest magnitude (first on near-ties) is positive. */
static void put_column(ag_fmat_t *out, int64_t j, const igraph_matrix_t *vecs, int64_t col) {
    int64_t n = out->rows, k = out->cols;
    double maxabs = 0.0;
    for (int64_t i = 0; i < n; i++) maxabs = fmax(maxabs, fabs(MATRIX(*vecs, i, col)));
    double sign = 1.0;
    for (int64_t i = 0; i < n; i++) {
        double v = MATRIX(*vecs, i, col);
        if (fabs(v) >= maxabs * (1.0 - 1e-6)) {
            sign = v < 0 ? -1.0 : 1.0;
            break;
        }
    }
    for (int64_t i = 0; i < n; i++) out->data[i * k + j] = (float)(sign * MATRIX(*vecs, i, col));
}

/* Output column j holds the (j+1)-th eigenpair in ascending order (the 0-th is skipped):
 * a null vector while j + 1 < c0, else the (j + 1 - c0)-th non-zero eigenpair. */

static ag_error_t laplacian_dense(const lap_t *l, int64_t k, ag_fmat_t *out) {
    const csr_t *c = l->c;
    int64_t n = c->n;
    int64_t m = k + 1 < n ? k + 1 : n; /* eigenpairs wanted, including the trivial one */
    igraph_matrix_t L, vecs;
    igraph_vector_t vals;
    igraph_error_t rc;
    ag_i_igraph_enter();
    rc = igraph_matrix_init(&L, n, n);
    if (rc == IGRAPH_SUCCESS) {
        rc = igraph_matrix_init(&vecs, 0, 0);
        if (rc == IGRAPH_SUCCESS) {
            rc = igraph_vector_init(&vals, 0);
            if (rc != IGRAPH_SUCCESS) igraph_matrix_destroy(&vecs);
        }
        if (rc != IGRAPH_SUCCESS) igraph_matrix_destroy(&L);
    }
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS)
        return AG_ERROR(AG_ENOMEM, "out of memory for the dense %lld x %lld Laplacian", (long long)n, (long long)n);
    for (int64_t i = 0; i < n; i++) {
        MATRIX(L, i, i) = 1.0;
        for (int64_t q = c->indptr[i]; q < c->indptr[i + 1]; q++) {
            int64_t j = c->nbr[q];
            MATRIX(L, i, j) = -l->dinv[i] * l->dinv[j];
        }
    }
    ag_i_igraph_enter();
    /* For a subset LAPACK falls back to bisection and inverse iteration, slower than the full
     * MRRR solve on small matrices (molecules): ask for everything there. */
    if (n <= 256)
        rc = igraph_lapack_dsyevr(&L, IGRAPH_LAPACK_DSYEV_ALL, 0.0, 0.0, 0, 0, 0, 0.0, &vals, &vecs, NULL);
    else
        rc = igraph_lapack_dsyevr(&L, IGRAPH_LAPACK_DSYEV_SELECT, 0.0, 0.0, 0, 1, (int)m, 0.0, &vals, &vecs, NULL);
    ag_i_igraph_leave();
    ag_error_t err = AG_SUCCESS;
    if (rc != IGRAPH_SUCCESS) {
        err = rc == IGRAPH_ENOMEM ? AG_ERROR(AG_ENOMEM, "out of memory in igraph_lapack_dsyevr")
                                  : ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__,
                                                      "Laplacian eigenvectors of a %lld-vertex graph (LAPACK dsyevr)", (long long)n);
    } else {
        /* dsyevr returns eigenvalues in ascending order, the c0 zero ones first; those are
         * replaced by the canonical null vectors. */
        for (int64_t j = 0; j + 1 < m; j++) {
            if (j + 1 < l->c0)
                put_null_column(out, j, l, j + 1);
            else
                put_column(out, j, &vecs, j + 1);
        }
    }
    ag_i_igraph_enter();
    igraph_matrix_destroy(&L);
    igraph_matrix_destroy(&vecs);
    igraph_vector_destroy(&vals);
    ag_i_igraph_leave();
    return err;
}

/* to = (2I - L - 2 Q Q^T) from = from + D^-1/2 A D^-1/2 from - 2 Q Q^T from, Q the null vectors:
 * the smallest non-zero eigenvalues of L become the largest of this operator, which Lanczos
 * finds fastest, and the null space (projected to 0) is out of its way. */
static igraph_error_t shifted_matvec(igraph_real_t *to, const igraph_real_t *from, int n, void *extra) {
    const lap_t *l = extra;
    const csr_t *c = l->c;
    for (int64_t id = 0; id < l->c0; id++) l->dots[id] = 0.0;
    for (int i = 0; i < n; i++)
        if (l->comp[i] >= 0) l->dots[l->comp[i]] += l->q[i] * from[i];
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t q = c->indptr[i]; q < c->indptr[i + 1]; q++) {
            int64_t j = c->nbr[q];
            s += l->dinv[j] * from[j];
        }
        to[i] = from[i] + l->dinv[i] * s;
        if (l->comp[i] >= 0) to[i] -= 2.0 * l->q[i] * l->dots[l->comp[i]];
    }
    return IGRAPH_SUCCESS;
}

static ag_error_t laplacian_arpack(lap_t *l, int64_t k, ag_fmat_t *out) {
    int64_t n = l->c->n;
    for (int64_t j = 0; j < k && j + 1 < l->c0; j++) put_null_column(out, j, l, j + 1);
    int64_t first = l->c0 > 0 ? l->c0 - 1 : 0; /* first output column from ARPACK */
    int64_t nev = k - first;                    /* non-zero eigenpairs wanted */
    if (nev <= 0) return AG_SUCCESS;
    if (n > INT32_MAX) return AG_ERROR(AG_ELIMIT, "ARPACK cannot handle %lld vertices", (long long)n);
    igraph_arpack_options_t opt;
    igraph_matrix_t vecs;
    igraph_vector_t vals;
    igraph_error_t rc;
    ag_i_igraph_enter();
    igraph_arpack_options_init(&opt);
    rc = igraph_matrix_init(&vecs, n, 1);
    if (rc == IGRAPH_SUCCESS) {
        rc = igraph_vector_init(&vals, 0);
        if (rc != IGRAPH_SUCCESS) igraph_matrix_destroy(&vecs);
    }
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory for ARPACK's eigenvectors");
    /* A fixed, dense starting vector (igraph's default draws from its global RNG, which would make
     * the result depend on what ran before). */
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        MATRIX(vecs, i, 0) = 0.5 + (double)(z >> 11) * (1.0 / 9007199254740992.0);
    }
    opt.n = (int)n;
    opt.which[0] = 'L';
    opt.which[1] = 'A';
    opt.nev = (int)nev;
    opt.ncv = (int)(2 * nev + 20 < n ? 2 * nev + 20 : n);
    opt.tol = 1e-10;
    opt.mxiter = 20000;
    opt.start = 1;
    ag_i_igraph_enter();
    rc = igraph_arpack_rssolve(shifted_matvec, l, &opt, NULL, &vals, &vecs);
    int64_t got = rc == IGRAPH_SUCCESS ? (int64_t)igraph_vector_size(&vals) : 0;
    ag_i_igraph_leave();
    ag_error_t err = AG_SUCCESS;
    if (rc != IGRAPH_SUCCESS) {
        err = rc == IGRAPH_ENOMEM ? AG_ERROR(AG_ENOMEM, "out of memory in igraph_arpack_rssolve")
                                  : ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__,
                                                      "Laplacian eigenvectors of a %lld-vertex graph (ARPACK)", (long long)n);
    } else if (opt.nconv < opt.nev || got < nev) {
        err = AG_ERROR(AG_EIGRAPH, "Laplacian eigenvectors of a %lld-vertex graph: ARPACK converged on %d of %d eigenpairs",
                       (long long)n, opt.nconv, opt.nev);
    } else {
        /* Ascending eigenvalues of L are descending ones of the operator; nev is small, so an
         * insertion sort (stable: index breaks ties). */
        int64_t *order = NULL;
        void *op;
        err = ag_i_alloc_array(&op, nev, sizeof(int64_t), "eigenvalue order");
        order = op;
        if (err == AG_SUCCESS) {
            for (int64_t j = 0; j < nev; j++) order[j] = j;
            for (int64_t a = 1; a < nev; a++)
                for (int64_t b = a; b > 0 && VECTOR(vals)[order[b]] > VECTOR(vals)[order[b - 1]]; b--) {
                    int64_t t = order[b];
                    order[b] = order[b - 1];
                    order[b - 1] = t;
                }
            for (int64_t j = 0; j < nev; j++) put_column(out, first + j, &vecs, order[j]);
        }
        ag_i_free(order);
    }
    ag_i_igraph_enter();
    igraph_matrix_destroy(&vecs);
    igraph_vector_destroy(&vals);
    ag_i_igraph_leave();
    return err;
}

ag_error_t ag_posenc_laplacian(const igraph_t *ig, int64_t k, ag_eigen_solver_t solver, ag_fmat_t *out) {
    if (k < 0) return AG_ERROR(AG_EINVAL, "Laplacian PE: k = %lld is negative", (long long)k);
    if (solver != AG_EIGEN_AUTO && solver != AG_EIGEN_DENSE && solver != AG_EIGEN_ARPACK)
        return AG_ERROR(AG_EINVAL, "Laplacian PE: unknown eigensolver %d", (int)solver);
    csr_t c;
    AG_CHECK(csr_build(ig, 0, &c));
    int64_t n = c.n;
    ag_fmat_t m;
    ag_error_t rc = ag_fmat_init(&m, n, k);
    if (rc != AG_SUCCESS) {
        csr_destroy(&c);
        return rc;
    }
    if (n >= 2 && k > 0) {
        lap_t l;
        rc = lap_init(&l, &c);
        if (rc == AG_SUCCESS) {
            int dense = solver == AG_EIGEN_DENSE || (solver == AG_EIGEN_AUTO && n <= AG_POSENC_DENSE_MAX);
            /* ARPACK needs nev < n with room for its Lanczos basis (and the null space is
             * projected out); beyond that the dense solver. */
            int64_t first = l.c0 > 0 ? l.c0 - 1 : 0;
            if (!dense && (k - first) + 2 >= n - l.c0) dense = 1;
            rc = dense ? laplacian_dense(&l, k, &m) : laplacian_arpack(&l, k, &m);
            lap_destroy(&l);
        }
    }
    csr_destroy(&c);
    if (rc != AG_SUCCESS) {
        ag_fmat_destroy(&m);
        return rc;
    }
    give(out, &m);
    return AG_SUCCESS;
}

/* ---- random-walk return probabilities ---- */

typedef struct rw_ctx_t {
    const int64_t *indptr, *nbr;
    int64_t n, k;
    float *R; /* (N x k) */
} rw_ctx_t;

static void rw_init_stamps(const rw_ctx_t *c, int64_t *stamp) {
    for (int64_t i = 0; i < c->n; i++) stamp[i] = -1;
}

/* Row s of the output: propagate the walk's distribution from s for k steps over the nodes it
 * reaches, reading the mass back at s after each step. prob (2N), list (2N) and stamp (N) are
 * one thread's scratch; stamp[v] records the (start, step) in which v was last reached, so
 * nothing is cleared between rows. */
static void rw_row(const rw_ctx_t *c, int64_t s, double *prob, int64_t *list, int64_t *stamp) {
    const int64_t *indptr = c->indptr, *nbr = c->nbr;
    int64_t n = c->n, k = c->k;
    double *x = prob, *y = prob + n;
    int64_t *cur = list, *nxt = list + n;
    int64_t ncur = 1;
    cur[0] = s;
    x[s] = 1.0;
    stamp[s] = s * (k + 1);
    for (int64_t t = 1; t <= k; t++) {
        int64_t tag = s * (k + 1) + t, nnxt = 0;
        /* Mass that can no longer come back within the remaining steps is still carried:
         * pruning by distance would need distances to s, which cost as much. */
        for (int64_t a = 0; a < ncur; a++) {
            int64_t u = cur[a];
            int64_t d = indptr[u + 1] - indptr[u];
            if (d == 0 || x[u] == 0.0) continue;
            double w = x[u] / (double)d;
            for (int64_t q = indptr[u]; q < indptr[u + 1]; q++) {
                int64_t v = nbr[q];
                if (stamp[v] != tag) {
                    stamp[v] = tag;
                    nxt[nnxt++] = v;
                    y[v] = 0.0;
                }
                y[v] += w;
            }
        }
        c->R[s * k + (t - 1)] = stamp[s] == tag ? (float)y[s] : 0.0f;
        double *tx = x;
        x = y;
        y = tx;
        int64_t *tl = cur;
        cur = nxt;
        nxt = tl;
        ncur = nnxt;
    }
}

ag_error_t ag_posenc_random_walk(const igraph_t *ig, int64_t k, ag_fmat_t *out) {
    if (k < 0) return AG_ERROR(AG_EINVAL, "random-walk PE: k = %lld is negative", (long long)k);
    csr_t c;
    AG_CHECK(csr_build(ig, 1, &c));
    int64_t n = c.n;
    ag_fmat_t m;
    ag_error_t rc = ag_fmat_init(&m, n, k);
    if (rc != AG_SUCCESS || n == 0 || k == 0) {
        csr_destroy(&c);
        if (rc == AG_SUCCESS) give(out, &m);
        return rc;
    }
    /* Threads pay off only for real work: a parallel region costs tens of microseconds, far more
     * on a busy machine, against about a microsecond for a molecule's whole walk. */
    int nt = (double)n * (double)k * (double)(c.indptr[n] + n) >= 1e7 ? ag_threads_get() : 1;
    if (nt < 1) nt = 1;
    /* Per-thread scratch: two distributions, their lists of reached nodes, and a stamp per node
     * saying in which (start, step) it was last reached. */
    double *prob = NULL;  /* (nt x 2N) */
    int64_t *list = NULL; /* (nt x 2N) */
    int64_t *stamp = NULL; /* (nt x N) */
    void *p;
    rc = ag_i_alloc_array(&p, nt * 2 * n, sizeof(double), "random-walk distributions");
    prob = p;
    if (rc == AG_SUCCESS) {
        rc = ag_i_alloc_array(&p, nt * 2 * n, sizeof(int64_t), "random-walk node lists");
        list = p;
    }
    if (rc == AG_SUCCESS) {
        rc = ag_i_alloc_array(&p, nt * n, sizeof(int64_t), "random-walk stamps");
        stamp = p;
    }
    if (rc != AG_SUCCESS) {
        ag_i_free(prob);
        ag_i_free(list);
        ag_i_free(stamp);
        ag_fmat_destroy(&m);
        csr_destroy(&c);
        return rc;
    }
    const int64_t *indptr = c.indptr, *nbr = c.nbr;
    rw_ctx_t ctx = {indptr, nbr, n, k, m.data};
    if (nt == 1) {
        /* Small graphs (molecules): no parallel region, whose start-up costs more than the walk. */
        rw_init_stamps(&ctx, stamp);
        for (int64_t s = 0; s < n; s++) rw_row(&ctx, s, prob, list, stamp);
    } else {
#pragma omp parallel num_threads(nt)
        {
            int tid = omp_get_thread_num();
            double *x = prob + (int64_t)tid * 2 * n;
            int64_t *l = list + (int64_t)tid * 2 * n, *st = stamp + (int64_t)tid * n;
            rw_init_stamps(&ctx, st);
#pragma omp for schedule(dynamic, 16)
            for (int64_t s = 0; s < n; s++) rw_row(&ctx, s, x, l, st);
        }
    }
    ag_i_free(prob);
    ag_i_free(list);
    ag_i_free(stamp);
    csr_destroy(&c);
    give(out, &m);
    return AG_SUCCESS;
}
