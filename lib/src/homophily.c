/*
 * homophily.c: how much more often than chance an edge joins two vertices of one class, read
 * from the training labels alone (the default preset's choice between GAT and the transformer).
 */
#include <math.h>
#include <stdint.h>
#include "attngraph/prepare.h"
#include "internal.h"

ag_error_t ag_prepared_homophily(const ag_prepared_t *p, const int64_t *train, int64_t n_train, double *h_adj,
                                 int64_t *n_edges) {
    if (h_adj) *h_adj = NAN;
    if (n_edges) *n_edges = 0;
    if (!p || !h_adj || (n_train > 0 && !train) || n_train < 0)
        return AG_ERROR(AG_EINVAL, "ag_prepared_homophily: NULL argument or negative count");
    const ag_trainset_t *s = &p->set;
    if (s->task != AG_TASK_NODE_CLASSIFICATION || s->n_examples != 1 || !s->examples || s->n_cols != 1)
        return AG_ERROR(AG_EINVAL, "ag_prepared_homophily: not node classification on one graph");
    const ag_graph_t *g = &s->examples[0].graph;
    const int64_t N = g->n_nodes, C = s->n_classes;
    if (C < 1) return AG_ERROR(AG_EINVAL, "ag_prepared_homophily: no classes");
    int32_t *cls = NULL;   /* (N) class of a training vertex with a label, else -1 */
    int64_t *deg = NULL;   /* (C) endpoints of counted entries, per class */
    AG_CHECK(ag_i_alloc_array((void **)&cls, N > 0 ? N : 1, sizeof(int32_t), "homophily classes"));
    ag_error_t rc = ag_i_alloc_array((void **)&deg, C, sizeof(int64_t), "homophily class degrees");
    for (int64_t v = 0; v < N && rc == AG_SUCCESS; v++) cls[v] = -1;
    for (int64_t k = 0; k < n_train && rc == AG_SUCCESS; k++) {
        const int64_t v = train[k];
        if (v < 0 || v >= N) {
            rc = AG_ERROR(AG_EINVAL, "ag_prepared_homophily: training index %lld outside [0, %lld)", (long long)v,
                          (long long)N);
            break;
        }
        const float y = s->targets[v];
        if (y == y) cls[v] = (int32_t)y; /* NaN: unlabelled */
    }
    /* entries, not edges: an undirected edge is counted from both ends, so the class shares are
     * those of the edges' endpoints (degree-weighted), as the adjusted homophily defines them */
    int64_t m = 0, same = 0;
    for (int64_t i = 0; i < N && rc == AG_SUCCESS; i++) {
        if (cls[i] < 0) continue;
        for (int64_t e = g->indptr[i]; e < g->indptr[i + 1]; e++) {
            const int32_t j = g->src[e];
            /* entries are sorted by source: a multi-edge's copies are neighbours, counted once
             * (a repeated edge is no more evidence of how classes meet) */
            if (j == i || cls[j] < 0 || (e > g->indptr[i] && g->src[e - 1] == j)) continue;
            m++;
            same += cls[j] == cls[i];
            deg[cls[i]]++;
            deg[cls[j]]++;
        }
    }
    if (rc == AG_SUCCESS && m > 0) {
        /* Platonov et al. (2023): (h_edge - sum_k p_k^2) / (1 - sum_k p_k^2), p_k the share of
         * class k among the entries' endpoints; 0 for a graph wired at random, 1 when every edge
         * stays within its class, negative when edges prefer other classes */
        double chance = 0.0;
        for (int64_t c = 0; c < C; c++) {
            const double pk = (double)deg[c] / (2.0 * (double)m);
            chance += pk * pk;
        }
        if (chance < 1.0) *h_adj = ((double)same / (double)m - chance) / (1.0 - chance);
        if (n_edges) *n_edges = g->directed ? m : m / 2;
    }
    ag_i_free(cls);
    ag_i_free(deg);
    return rc;
}
