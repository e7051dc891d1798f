/*
 * graphs_testutil.c: hand-built CSR graphs for the tests (see graphs_testutil.h).
 */
#include <stdlib.h>
#include <string.h>
#include <attngraph/rng.h>
#include "graphs_testutil.h"

typedef struct entry_t {
    int64_t dst;
    int64_t src;
    int64_t edge;
} entry_t;

static int cmp_entry(const void *a, const void *b) {
    const entry_t *x = a, *y = b;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->edge != y->edge) return x->edge < y->edge ? -1 : 1;
    return 0;
}

void ag_test_graph_free(ag_graph_t *g) {
    free(g->indptr);
    free(g->src);
    free(g->edge);
    free(g->graph_ptr);
    free(g->edge_ptr);
    free(g->node_graph);
    memset(g, 0, sizeof *g);
}

int ag_test_graph_build(ag_graph_t *g, int directed, int64_t count, const int64_t *n_nodes,
                        const int64_t *n_edges, const int64_t *const *edges) {
    memset(g, 0, sizeof *g);
    int64_t N = 0, E = 0;
    for (int64_t k = 0; k < count; k++) {
        N += n_nodes[k];
        E += n_edges[k];
    }
    entry_t *ent = calloc((size_t)(2 * E + 1), sizeof *ent); /* (at most 2E) */
    g->indptr = calloc((size_t)N + 1, sizeof *g->indptr);
    g->graph_ptr = calloc((size_t)count + 1, sizeof *g->graph_ptr);
    g->edge_ptr = calloc((size_t)count + 1, sizeof *g->edge_ptr);
    g->node_graph = calloc((size_t)N + 1, sizeof *g->node_graph);
    if (!ent || !g->indptr || !g->graph_ptr || !g->edge_ptr || !g->node_graph) goto fail;
    int64_t m = 0, node0 = 0, edge0 = 0;
    for (int64_t k = 0; k < count; k++) {
        g->graph_ptr[k] = node0;
        g->edge_ptr[k] = edge0;
        for (int64_t i = 0; i < n_nodes[k]; i++) g->node_graph[node0 + i] = (int32_t)k;
        for (int64_t e = 0; e < n_edges[k]; e++) {
            int64_t u = edges[k][2 * e], v = edges[k][2 * e + 1];
            if (u < 0 || v < 0 || u >= n_nodes[k] || v >= n_nodes[k]) goto fail;
            ent[m++] = (entry_t){node0 + v, node0 + u, edge0 + e};
            if (!directed && u != v) ent[m++] = (entry_t){node0 + u, node0 + v, edge0 + e};
        }
        node0 += n_nodes[k];
        edge0 += n_edges[k];
    }
    g->graph_ptr[count] = node0;
    g->edge_ptr[count] = edge0;
    qsort(ent, (size_t)m, sizeof *ent, cmp_entry);
    g->src = calloc((size_t)m + 1, sizeof *g->src);
    g->edge = calloc((size_t)m + 1, sizeof *g->edge);
    if (!g->src || !g->edge) goto fail;
    for (int64_t k = 0; k < m; k++) {
        g->src[k] = (int32_t)ent[k].src;
        g->edge[k] = ent[k].edge;
        g->indptr[ent[k].dst + 1]++;
    }
    for (int64_t i = 0; i < N; i++) g->indptr[i + 1] += g->indptr[i];
    g->n_nodes = N;
    g->n_entries = m;
    g->n_edges = E;
    g->n_graphs = count;
    g->directed = directed;
    free(ent);
    return 0;
fail:
    free(ent);
    ag_test_graph_free(g);
    return -1;
}

int ag_test_graph_random(ag_graph_t *g, uint64_t seed, int directed, int64_t count,
                         const int64_t *n_nodes, const int64_t *n_edges, const int64_t *n_isolated,
                         double p_self, double p_multi) {
    int64_t **lists = calloc((size_t)count, sizeof *lists);
    int rc = -1;
    if (!lists) return -1;
    uint64_t draw = 0;
    for (int64_t k = 0; k < count; k++) {
        lists[k] = calloc((size_t)(2 * n_edges[k] + 1), sizeof **lists);
        if (!lists[k]) goto done;
        int64_t live = n_nodes[k] - n_isolated[k];
        if (live <= 0 && n_edges[k] > 0) goto done;
        for (int64_t e = 0; e < n_edges[k]; e++) {
            float r = ag_rng_uniform(seed, 1, draw++);
            int64_t u = (int64_t)(ag_rng_u64(seed, 2, draw++) % (uint64_t)live);
            int64_t v = (int64_t)(ag_rng_u64(seed, 3, draw++) % (uint64_t)live);
            if (e > 0 && r < p_multi) {
                int64_t old = (int64_t)(ag_rng_u64(seed, 4, draw++) % (uint64_t)e);
                u = lists[k][2 * old];
                v = lists[k][2 * old + 1];
            } else if (r < p_multi + p_self) {
                v = u;
            } else if (u == v && live > 1) {
                v = (u + 1) % live;
            }
            lists[k][2 * e] = u;
            lists[k][2 * e + 1] = v;
        }
    }
    rc = ag_test_graph_build(g, directed, count, n_nodes, n_edges, (const int64_t *const *)lists);
done:
    for (int64_t k = 0; k < count; k++) free(lists[k]);
    free(lists);
    return rc;
}

void ag_test_fill_uniform(float *x, int64_t n, float lo, float hi, uint64_t seed) {
    for (int64_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * ag_rng_uniform(seed, 77, (uint64_t)i);
}

void ag_test_fill_uniform_d(double *x, int64_t n, double lo, double hi, uint64_t seed) {
    for (int64_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * (double)ag_rng_uniform(seed, 77, (uint64_t)i);
}
