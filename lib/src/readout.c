/*
 * readout.c: mean, sum, max and attention pooling of node rows into graph rows, and the graph
 * token readout (the last row of each graph).
 */
#include <math.h>
#include <string.h>
#include "attngraph/readout.h"
#include "attngraph/rng.h"
#include "blas.h"
#include "internal.h"

typedef struct readout_cache_t {
    int64_t n_nodes;   /* N of the last forward, -1 before any */
    int64_t n_graphs;  /* G of the last forward */
    int64_t *argmax;   /* (G x F) max: row holding the maximum, -1 for an empty graph */
    int64_t argmax_cap;
    float *alpha;      /* (N) attention: softmax weights of the gate */
    float *ds;         /* (N) attention: dL/ds, scratch of backward */
    int64_t alpha_cap;
} readout_cache_t;

static const char *const kind_names[AG_READOUT_COUNT] = {"mean", "sum", "max", "attention", "vnode"};

const char *ag_readout_kind_name(ag_readout_kind_t kind) {
    if ((int)kind < 0 || kind >= AG_READOUT_COUNT) return "unknown";
    return kind_names[kind];
}

ag_error_t ag_readout_kind_from_name(const char *name, ag_readout_kind_t *kind) {
    for (int k = 0; k < AG_READOUT_COUNT; k++)
        if (name && !strcmp(name, kind_names[k])) {
            *kind = (ag_readout_kind_t)k;
            return AG_SUCCESS;
        }
    return AG_ERROR(AG_EINVAL, "unknown readout '%s' (valid: mean, sum, max, attention, vnode)",
                    name ? name : "(null)");
}

ag_error_t ag_readout_kinds_from_list(const char *list, ag_readout_kind_t *kinds, int *n) {
    *n = 0;
    if (!list || !*list) return AG_ERROR(AG_EINVAL, "empty readout list (valid: mean, sum, max, attention, vnode)");
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < AG_READOUT_COUNT; k++)
            if (len == strlen(kind_names[k]) && !strncmp(p, kind_names[k], len)) found = k;
        if (found < 0)
            return AG_ERROR(AG_EINVAL, "unknown readout '%.*s' in '%s' (valid: mean, sum, max, attention, vnode)",
                            (int)len, p, list);
        for (int r = 0; r < *n; r++)
            if ((int)kinds[r] == found) return AG_ERROR(AG_EINVAL, "readout '%s' given twice in '%s'", kind_names[found], list);
        kinds[(*n)++] = (ag_readout_kind_t)found; /* distinct kinds: at most AG_READOUT_COUNT */
        if (!p[len]) return AG_SUCCESS;
        p += len + 1;
    }
}

ag_error_t ag_readout_init(ag_readout_t *ro, ag_readout_kind_t kind, int64_t dim, uint64_t seed) {
    memset(ro, 0, sizeof *ro);
    if ((int)kind < 0 || kind >= AG_READOUT_COUNT)
        return AG_ERROR(AG_EINVAL, "unknown readout kind %d", (int)kind);
    if (dim < 1) return AG_ERROR(AG_EINVAL, "readout width must be at least 1, not %lld", (long long)dim);
    ro->kind = kind;
    ro->dim = dim;
    readout_cache_t *c = ag_i_calloc(1, sizeof *c);
    if (!c) return AG_ERROR(AG_ENOMEM, "out of memory allocating a readout");
    c->n_nodes = -1;
    ro->cache = c;
    if (kind == AG_READOUT_ATTENTION) {
        /* params, grads (F + 1): the gate's weights w_gate, then its bias */
        ag_error_t rc = ag_i_alloc_array((void **)&ro->params, dim + 1, sizeof(float), "readout gate");
        if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&ro->grads, dim + 1, sizeof(float), "readout gate gradient");
        if (rc != AG_SUCCESS) {
            ag_readout_destroy(ro);
            return rc;
        }
        ro->w_gate = ro->params;
        ro->b_gate = ro->params + dim;
        ro->dw_gate = ro->grads;
        ro->db_gate = ro->grads + dim;
        float limit = sqrtf(6.0f / (float)(dim + 1));
        for (int64_t f = 0; f < dim; f++)
            ro->w_gate[f] = (2.0f * ag_rng_uniform(seed, 0, (uint64_t)f) - 1.0f) * limit;
        ro->b_gate[0] = 0.0f;
    }
    return AG_SUCCESS;
}

void ag_readout_destroy(ag_readout_t *ro) {
    readout_cache_t *c = ro->cache;
    if (c) {
        ag_i_free(c->argmax);
        ag_i_free(c->alpha);
        ag_i_free(c->ds);
        ag_i_free(c);
    }
    ag_i_free(ro->params);
    ag_i_free(ro->grads);
    memset(ro, 0, sizeof *ro);
}

ag_error_t ag_readout_params(ag_readout_t *ro, ag_param_list_t *list, const char *prefix) {
    if (ro->kind != AG_READOUT_ATTENTION) return AG_SUCCESS;
    AG_CHECK(ag_param_list_add(list, prefix, "gate.w", 1, ro->dim, 1, ro->w_gate, ro->dw_gate, 1));
    AG_CHECK(ag_param_list_add(list, prefix, "gate.b", 1, 1, 1, ro->b_gate, ro->db_gate, 0));
    return AG_SUCCESS;
}

static ag_error_t check_graph_ptr(const int64_t *graph_ptr, int64_t n_graphs) {
    if (n_graphs < 0) return AG_ERROR(AG_EINVAL, "readout: negative number of graphs (%lld)", (long long)n_graphs);
    if (!graph_ptr) return AG_ERROR(AG_EINVAL, "readout: graph_ptr is NULL");
    if (graph_ptr[0] != 0)
        return AG_ERROR(AG_EINVAL, "readout: graph_ptr[0] is %lld, not 0", (long long)graph_ptr[0]);
    for (int64_t g = 0; g < n_graphs; g++)
        if (graph_ptr[g + 1] < graph_ptr[g])
            return AG_ERROR(AG_EINVAL, "readout: graph_ptr decreases at graph %lld (%lld after %lld)",
                            (long long)g, (long long)graph_ptr[g + 1], (long long)graph_ptr[g]);
    return AG_SUCCESS;
}

/* Grows a cache buffer to at least n elements; old contents are not kept. */
static ag_error_t grow(void **buf, int64_t *cap, int64_t n, size_t size, const char *what) {
    if (n <= *cap) return AG_SUCCESS;
    void *fresh;
    AG_CHECK(ag_i_alloc_array(&fresh, n, size, what));
    ag_i_free(*buf);
    *buf = fresh;
    *cap = n;
    return AG_SUCCESS;
}

static void pool_mean_sum(const int64_t *graph_ptr, int64_t G, int64_t F, const float *X, float *Y, int mean) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
    for (int64_t g = 0; g < G; g++) {
        float *y = Y + g * F; /* (F) */
        int64_t n0 = graph_ptr[g], n1 = graph_ptr[g + 1];
        for (int64_t f = 0; f < F; f++) {
            double acc = 0.0;
            for (int64_t n = n0; n < n1; n++) acc += X[n * F + f];
            y[f] = (float)(mean && n1 > n0 ? acc / (double)(n1 - n0) : acc);
        }
    }
}

static void pool_max(const int64_t *graph_ptr, int64_t G, int64_t F, const float *X, float *Y, int64_t *argmax) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
    for (int64_t g = 0; g < G; g++) {
        float *y = Y + g * F;          /* (F) */
        int64_t *am = argmax + g * F;  /* (F) */
        int64_t n0 = graph_ptr[g], n1 = graph_ptr[g + 1];
        for (int64_t f = 0; f < F; f++) {
            if (n0 == n1) {
                y[f] = 0.0f;
                am[f] = -1;
                continue;
            }
            int64_t best = n0;
            /* strict '>' keeps the first of equal maxima */
            for (int64_t n = n0 + 1; n < n1; n++)
                if (X[n * F + f] > X[best * F + f]) best = n;
            y[f] = X[best * F + f];
            am[f] = best;
        }
    }
}

/* The graph token readout: a model with a virtual node keeps each graph's token last. */
static void pool_last(const int64_t *graph_ptr, int64_t G, int64_t F, const float *X, float *Y) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t g = 0; g < G; g++) {
        float *y = Y + g * F; /* (F) */
        if (graph_ptr[g + 1] == graph_ptr[g]) {
            memset(y, 0, (size_t)F * sizeof(float));
            continue;
        }
        memcpy(y, X + (graph_ptr[g + 1] - 1) * F, (size_t)F * sizeof(float));
    }
}

static void pool_attention(const int64_t *graph_ptr, int64_t G, int64_t F, const float *X, const float *w,
                           float b, float *Y, float *alpha) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
    for (int64_t g = 0; g < G; g++) {
        float *y = Y + g * F; /* (F) */
        int64_t n0 = graph_ptr[g], n1 = graph_ptr[g + 1];
        for (int64_t f = 0; f < F; f++) y[f] = 0.0f;
        if (n0 == n1) continue;
        float smax = -INFINITY;
        for (int64_t n = n0; n < n1; n++) {
            float s = b;
            for (int64_t f = 0; f < F; f++) s += X[n * F + f] * w[f];
            alpha[n] = s;
            if (s > smax) smax = s;
        }
        double z = 0.0;
        for (int64_t n = n0; n < n1; n++) {
            alpha[n] = expf(alpha[n] - smax);
            z += alpha[n];
        }
        for (int64_t n = n0; n < n1; n++) {
            alpha[n] = (float)(alpha[n] / z);
            for (int64_t f = 0; f < F; f++) y[f] += alpha[n] * X[n * F + f];
        }
    }
}

ag_error_t ag_readout_forward(ag_readout_t *ro, const int64_t *graph_ptr, int64_t n_graphs,
                              const float *X, float *Y) {
    readout_cache_t *c = ro->cache;
    if (!c) return AG_ERROR(AG_EINVAL, "readout: not initialised");
    AG_CHECK(check_graph_ptr(graph_ptr, n_graphs));
    int64_t G = n_graphs, F = ro->dim, N = graph_ptr[G];
    c->n_nodes = -1; /* invalid until this pass succeeds */
    switch (ro->kind) {
    case AG_READOUT_MEAN:
    case AG_READOUT_SUM:
        pool_mean_sum(graph_ptr, G, F, X, Y, ro->kind == AG_READOUT_MEAN);
        break;
    case AG_READOUT_MAX: {
        int64_t GF;
        if (ag_i_mul_overflow(G, F, &GF)) return AG_ERROR(AG_ELIMIT, "readout: G x F overflows");
        AG_CHECK(grow((void **)&c->argmax, &c->argmax_cap, GF, sizeof(int64_t), "max readout cache"));
        pool_max(graph_ptr, G, F, X, Y, c->argmax);
        break;
    }
    case AG_READOUT_VNODE:
        pool_last(graph_ptr, G, F, X, Y);
        break;
    case AG_READOUT_ATTENTION: {
        if (N > c->alpha_cap) {
            ag_i_free(c->alpha);
            ag_i_free(c->ds);
            c->alpha = c->ds = NULL;
            c->alpha_cap = 0;
            /* alpha (N): each node's gate weight within its graph; ds (N): its score's gradient */
            AG_CHECK(ag_i_alloc_array((void **)&c->alpha, N, sizeof(float), "attention readout cache"));
            AG_CHECK(ag_i_alloc_array((void **)&c->ds, N, sizeof(float), "attention readout cache"));
            c->alpha_cap = N;
        }
        pool_attention(graph_ptr, G, F, X, ro->w_gate, ro->b_gate[0], Y, c->alpha);
        break;
    }
    default:
        return AG_ERROR(AG_EINVAL, "readout: unknown kind %d", (int)ro->kind);
    }
    c->n_nodes = N;
    c->n_graphs = G;
    return AG_SUCCESS;
}

ag_error_t ag_readout_backward(ag_readout_t *ro, const int64_t *graph_ptr, int64_t n_graphs,
                               const float *X, const float *dY, float *dX) {
    readout_cache_t *c = ro->cache;
    if (!c) return AG_ERROR(AG_EINVAL, "readout: not initialised");
    AG_CHECK(check_graph_ptr(graph_ptr, n_graphs));
    int64_t G = n_graphs, F = ro->dim, N = graph_ptr[G];
    if (c->n_nodes != N || c->n_graphs != G)
        return AG_ERROR(AG_EINVAL, "readout backward: no forward pass on %lld nodes in %lld graphs to differentiate",
                        (long long)N, (long long)G);
    switch (ro->kind) {
    case AG_READOUT_MEAN:
    case AG_READOUT_SUM: {
        int mean = ro->kind == AG_READOUT_MEAN;
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
        for (int64_t g = 0; g < G; g++) {
            const float *dy = dY + g * F; /* (F) */
            int64_t n0 = graph_ptr[g], n1 = graph_ptr[g + 1];
            if (n0 == n1) continue;
            float k = mean ? 1.0f / (float)(n1 - n0) : 1.0f;
            for (int64_t n = n0; n < n1; n++)
                for (int64_t f = 0; f < F; f++) dX[n * F + f] += k * dy[f];
        }
        break;
    }
    case AG_READOUT_MAX: {
        const int64_t *argmax = c->argmax; /* (G x F) */
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
        for (int64_t g = 0; g < G; g++)
            for (int64_t f = 0; f < F; f++) {
                int64_t n = argmax[g * F + f];
                if (n >= 0) dX[n * F + f] += dY[g * F + f];
            }
        break;
    }
    case AG_READOUT_VNODE:
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t g = 0; g < G; g++) {
            if (graph_ptr[g + 1] == graph_ptr[g]) continue;
            float *dx = dX + (graph_ptr[g + 1] - 1) * F; /* (F) */
            for (int64_t f = 0; f < F; f++) dx[f] += dY[g * F + f];
        }
        break;
    case AG_READOUT_ATTENTION: {
        const float *alpha = c->alpha; /* (N) */
        float *ds = c->ds;             /* (N) */
        const float *w = ro->w_gate;   /* (F) */
        /* With c_n = X_n . dy:  dL/da_n = c_n, and through the softmax
         * dL/ds_n = a_n (c_n - sum_m a_m c_m); X_n gets a_n dy (the weighted sum) + dL/ds_n w (the gate). */
#pragma omp parallel for schedule(dynamic, 16) num_threads(ag_threads_get())
        for (int64_t g = 0; g < G; g++) {
            const float *dy = dY + g * F; /* (F) */
            int64_t n0 = graph_ptr[g], n1 = graph_ptr[g + 1];
            double cbar = 0.0;
            for (int64_t n = n0; n < n1; n++) {
                float cn = 0.0f;
                for (int64_t f = 0; f < F; f++) cn += X[n * F + f] * dy[f];
                ds[n] = cn;
                cbar += (double)alpha[n] * cn;
            }
            for (int64_t n = n0; n < n1; n++) {
                ds[n] = alpha[n] * (float)(ds[n] - cbar);
                for (int64_t f = 0; f < F; f++) dX[n * F + f] += alpha[n] * dy[f] + ds[n] * w[f];
            }
        }
        if (N > 0) {
            /* dw (1 x F) += ds^T (1 x N) X (N x F): one product, outside any parallel region */
            ag_i_gemm(1, 0, 1, F, N, 1.0f, ds, 1, X, F, 1.0f, ro->dw_gate, F);
            double db = 0.0;
            for (int64_t n = 0; n < N; n++) db += ds[n];
            ro->db_gate[0] += (float)db;
        }
        break;
    }
    default:
        return AG_ERROR(AG_EINVAL, "readout: unknown kind %d", (int)ro->kind);
    }
    return AG_SUCCESS;
}

ag_error_t ag_readout_gate_weights(const ag_readout_t *ro, int64_t n_nodes, float *alpha) {
    const readout_cache_t *c = ro->cache;
    if (ro->kind != AG_READOUT_ATTENTION)
        return AG_ERROR(AG_EINVAL, "readout: %s pooling has no gate weights", ag_readout_kind_name(ro->kind));
    if (!c || c->n_nodes != n_nodes)
        return AG_ERROR(AG_EINVAL, "readout: no forward pass on %lld nodes to report gate weights of",
                        (long long)n_nodes);
    if (n_nodes > 0) memcpy(alpha, c->alpha, (size_t)n_nodes * sizeof(float));
    return AG_SUCCESS;
}
