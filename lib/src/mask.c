/*
 * mask.c: attention masks (who attends to whom) as a CSR of candidate sources per destination,
 * with the transposed CSR the backward pass gathers over.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/attention.h"
#include "attngraph/model.h"
#include "internal.h"

void ag_mask_destroy(ag_mask_t *mask) {
    if (!mask) return;
    ag_i_free(mask->indptr);
    ag_i_free(mask->src);
    ag_i_free(mask->edge);
    ag_i_free(mask->t_indptr);
    ag_i_free(mask->t_entry);
    ag_i_free(mask->graph_ptr);
    ag_i_free(mask->node_graph);
    memset(mask, 0, sizeof *mask);
}

/* 1 if destination i has an input self-loop among its graph entries. */
static int has_input_self_loop(const ag_graph_t *g, int64_t i) {
    for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++)
        if (g->src[k] == i) return 1;
    return 0;
}

/* Neighbour entries (also the CSR of the full mask): the graph's entries in their order, plus an
 * added self-loop (edge -1) in its sorted place for a node without an input one. */
static ag_error_t build_neighbours(ag_mask_t *mask, const ag_graph_t *g, int self_loops) {
    int64_t N = g->n_nodes;
    AG_CHECK(ag_i_alloc_array((void **)&mask->indptr, N + 1, sizeof(int64_t), "mask indptr"));
    int64_t m = 0;
    for (int64_t i = 0; i < N; i++) {
        mask->indptr[i] = m;
        m += g->indptr[i + 1] - g->indptr[i];
        if (self_loops && !has_input_self_loop(g, i)) m++;
    }
    mask->indptr[N] = m;
    mask->n_entries = m;
    AG_CHECK(ag_i_alloc_array((void **)&mask->src, m, sizeof(int32_t), "mask sources"));
    AG_CHECK(ag_i_alloc_array((void **)&mask->edge, m, sizeof(int64_t), "mask edge ids"));
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++) {
        int64_t o = mask->indptr[i];
        int add = mask->indptr[i + 1] - o > g->indptr[i + 1] - g->indptr[i];
        for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++) {
            if (add && g->src[k] > i) {
                mask->src[o] = (int32_t)i;
                mask->edge[o++] = -1;
                add = 0;
            }
            mask->src[o] = g->src[k];
            mask->edge[o++] = g->edge[k];
        }
        if (add) {
            mask->src[o] = (int32_t)i;
            mask->edge[o] = -1;
        }
    }
    return AG_SUCCESS;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Per-thread BFS scratch for the k-hop mask. */
typedef struct {
    int64_t *stamp;  /* (N) last destination that visited each node, +1 */
    int64_t *first;  /* (N) edge id of a direct in-neighbour (valid when stamped at depth 1) */
    int32_t *list;   /* (N) the visited sources of the current destination */
} khop_scratch_t;

/* The sources of destination i within `hops` steps along in-edges, sorted, into s->list; returns
 * how many. i itself is a source only through an input self-loop or an added one. */
static int64_t khop_sources(const ag_graph_t *g, int64_t i, int hops, int self_loops, khop_scratch_t *s) {
    int64_t tag = i + 1, n = 0;
    s->stamp[i] = tag; /* never re-entered through a cycle */
    int self = 0;
    int64_t self_edge = -1;
    for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++) {
        int32_t j = g->src[k];
        if (j == i) {
            if (!self) self_edge = g->edge[k];
            self = 1;
            continue;
        }
        if (s->stamp[j] != tag) {
            s->stamp[j] = tag;
            s->first[j] = g->edge[k]; /* entries are sorted by (source, edge): the smallest id */
            s->list[n++] = j;
        }
    }
    int64_t lo = 0;
    for (int depth = 2; depth <= hops && lo < n; depth++) {
        int64_t hi = n;
        for (int64_t q = lo; q < hi; q++) {
            int32_t u = s->list[q];
            for (int64_t k = g->indptr[u]; k < g->indptr[u + 1]; k++) {
                int32_t j = g->src[k];
                if (s->stamp[j] != tag) {
                    s->stamp[j] = tag;
                    s->first[j] = -1;
                    s->list[n++] = j;
                }
            }
        }
        lo = hi;
    }
    if (self || self_loops) {
        s->first[i] = self ? self_edge : -1;
        s->list[n++] = (int32_t)i;
    }
    qsort(s->list, (size_t)n, sizeof(int32_t), cmp_i32);
    return n;
}

static ag_error_t build_khop(ag_mask_t *mask, const ag_graph_t *g, int hops, int self_loops) {
    int64_t N = g->n_nodes;
    int nt = ag_threads_get();
    ag_error_t rc = AG_SUCCESS;
    khop_scratch_t *scr = NULL;
    rc = ag_i_alloc_array((void **)&scr, nt, sizeof *scr, "k-hop scratch");
    if (rc) return rc;
    for (int t = 0; t < nt && !rc; t++) {
        rc = ag_i_alloc_array((void **)&scr[t].stamp, N, sizeof(int64_t), "k-hop scratch");
        if (!rc) rc = ag_i_alloc_array((void **)&scr[t].first, N, sizeof(int64_t), "k-hop scratch");
        if (!rc) rc = ag_i_alloc_array((void **)&scr[t].list, N, sizeof(int32_t), "k-hop scratch");
    }
    if (!rc) rc = ag_i_alloc_array((void **)&mask->indptr, N + 1, sizeof(int64_t), "mask indptr");
    if (!rc) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
        for (int64_t i = 0; i < N; i++) {
            khop_scratch_t *s = &scr[omp_get_thread_num()];
            mask->indptr[i + 1] = khop_sources(g, i, hops, self_loops, s);
        }
        for (int64_t i = 0; i < N; i++) mask->indptr[i + 1] += mask->indptr[i];
        mask->n_entries = mask->indptr[N];
        rc = ag_i_alloc_array((void **)&mask->src, mask->n_entries, sizeof(int32_t), "mask sources");
        if (!rc) rc = ag_i_alloc_array((void **)&mask->edge, mask->n_entries, sizeof(int64_t), "mask edge ids");
    }
    if (!rc) {
        /* The stamps of the counting pass are reused: tags are per destination, so clear them. */
        for (int t = 0; t < nt; t++) memset(scr[t].stamp, 0, (size_t)N * sizeof(int64_t));
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
        for (int64_t i = 0; i < N; i++) {
            khop_scratch_t *s = &scr[omp_get_thread_num()];
            int64_t n = khop_sources(g, i, hops, self_loops, s);
            int64_t o = mask->indptr[i];
            for (int64_t q = 0; q < n; q++) {
                int32_t j = s->list[q];
                mask->src[o + q] = j;
                mask->edge[o + q] = s->first[j];
            }
        }
    }
    for (int t = 0; t < nt; t++) {
        ag_i_free(scr[t].stamp);
        ag_i_free(scr[t].first);
        ag_i_free(scr[t].list);
    }
    ag_i_free(scr);
    return rc;
}

/* Entries grouped by source, each group in increasing entry order (a stable counting sort). */
static ag_error_t build_transpose(ag_mask_t *mask) {
    int64_t N = mask->n_nodes, M = mask->n_entries;
    AG_CHECK(ag_i_alloc_array((void **)&mask->t_indptr, N + 1, sizeof(int64_t), "mask transposed indptr"));
    AG_CHECK(ag_i_alloc_array((void **)&mask->t_entry, M, sizeof(int64_t), "mask transposed entries"));
    for (int64_t k = 0; k < M; k++) mask->t_indptr[mask->src[k] + 1]++;
    for (int64_t j = 0; j < N; j++) mask->t_indptr[j + 1] += mask->t_indptr[j];
    int64_t *fill = NULL; /* (N) the next free slot of each source's group */
    AG_CHECK(ag_i_alloc_array((void **)&fill, N, sizeof(int64_t), "mask transpose scratch"));
    memcpy(fill, mask->t_indptr, (size_t)N * sizeof(int64_t));
    for (int64_t k = 0; k < M; k++) mask->t_entry[fill[mask->src[k]]++] = k;
    ag_i_free(fill);
    return AG_SUCCESS;
}

static ag_error_t build_graphs(ag_mask_t *mask, const ag_graph_t *g) {
    int64_t N = g->n_nodes;
    int64_t G = g->graph_ptr ? g->n_graphs : 1;
    mask->n_graphs = G;
    AG_CHECK(ag_i_alloc_array((void **)&mask->graph_ptr, G + 1, sizeof(int64_t), "mask graph ranges"));
    AG_CHECK(ag_i_alloc_array((void **)&mask->node_graph, N, sizeof(int32_t), "mask node graphs"));
    if (g->graph_ptr) {
        memcpy(mask->graph_ptr, g->graph_ptr, (size_t)(G + 1) * sizeof(int64_t));
        for (int64_t gi = 0; gi < G; gi++)
            for (int64_t i = g->graph_ptr[gi]; i < g->graph_ptr[gi + 1]; i++) mask->node_graph[i] = (int32_t)gi;
    } else {
        mask->graph_ptr[1] = N; /* a hand-made graph without ranges is one graph */
    }
    return AG_SUCCESS;
}

static ag_error_t check_graph(const ag_graph_t *g) {
    if (g->n_nodes < 0 || g->n_nodes > INT32_MAX)
        return AG_ERROR(AG_ELIMIT, "mask: graph has %lld nodes (at most 2^31-1)", (long long)g->n_nodes);
    if (!g->indptr || (g->n_entries > 0 && (!g->src || !g->edge)))
        return AG_ERROR(AG_EINVAL, "mask: graph has no CSR");
    /* the CSR is read through indptr: a malformed one is an error here, not a read past src */
    if (g->indptr[0] != 0 || g->indptr[g->n_nodes] != g->n_entries)
        return AG_ERROR(AG_EINVAL, "mask: the CSR's offsets run from %lld to %lld, not from 0 to its %lld entries",
                        (long long)g->indptr[0], (long long)g->indptr[g->n_nodes], (long long)g->n_entries);
    for (int64_t i = 0; i < g->n_nodes; i++)
        if (g->indptr[i + 1] < g->indptr[i])
            return AG_ERROR(AG_EINVAL, "mask: the CSR's offsets decrease at vertex %lld", (long long)i);
    if (g->graph_ptr) {
        if (g->n_graphs < 1 || g->graph_ptr[0] != 0 || g->graph_ptr[g->n_graphs] != g->n_nodes)
            return AG_ERROR(AG_EINVAL, "mask: graph ranges do not cover the %lld nodes", (long long)g->n_nodes);
        for (int64_t gi = 0; gi < g->n_graphs; gi++)
            if (g->graph_ptr[gi + 1] < g->graph_ptr[gi])
                return AG_ERROR(AG_EINVAL, "mask: graph range %lld is decreasing", (long long)gi);
    }
    for (int64_t i = 0; i < g->n_nodes; i++)
        for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++) {
            if (g->src[k] < 0 || g->src[k] >= g->n_nodes)
                return AG_ERROR(AG_EINVAL, "mask: entry %lld of vertex %lld has source %d out of range",
                                (long long)k, (long long)i, g->src[k]);
            if (g->edge[k] < -1 || g->edge[k] >= g->n_edges) /* -1: an added self-loop */
                return AG_ERROR(AG_EINVAL, "mask: entry %lld of vertex %lld has edge id %lld, not -1 or in 0..%lld",
                                (long long)k, (long long)i, (long long)g->edge[k], (long long)g->n_edges - 1);
        }
    return AG_SUCCESS;
}

ag_error_t ag_mask_build(ag_mask_t *mask, const ag_graph_t *graph, ag_mask_kind_t kind, int hops,
                         int self_loops) {
    if (!mask) return AG_ERROR(AG_EINVAL, "mask: NULL mask");
    memset(mask, 0, sizeof *mask);
    if (!graph) return AG_ERROR(AG_EINVAL, "mask: NULL graph");
    if (kind != AG_MASK_NEIGHBOURS && kind != AG_MASK_KHOP && kind != AG_MASK_FULL)
        return AG_ERROR(AG_EINVAL, "mask: unknown mask kind %d", (int)kind);
    if (kind == AG_MASK_KHOP && hops < 1)
        return AG_ERROR(AG_EINVAL, "mask: k-hop mask needs hops >= 1, not %d", hops);
    AG_CHECK(check_graph(graph));
    mask->kind = kind;
    mask->hops = kind == AG_MASK_KHOP ? hops : 1;
    mask->self_loops = self_loops ? 1 : 0;
    mask->n_nodes = graph->n_nodes;
    ag_error_t rc = kind == AG_MASK_KHOP ? build_khop(mask, graph, hops, mask->self_loops)
                                         : build_neighbours(mask, graph, mask->self_loops);
    if (!rc) rc = build_transpose(mask);
    if (!rc) rc = build_graphs(mask, graph);
    if (rc) ag_mask_destroy(mask);
    return rc;
}

/* ---- masks with a virtual node (graph token) per graph */

ag_error_t ag_mask_build_vnode(ag_mask_t *mask, const ag_graph_t *graph, ag_mask_kind_t kind, int hops,
                               int self_loops) {
    if (!mask) return AG_ERROR(AG_EINVAL, "mask: NULL mask");
    memset(mask, 0, sizeof *mask);
    /* The graph's own mask first: token pairs are added after, so k hops never pass through a token. */
    ag_mask_t base;
    AG_CHECK(ag_mask_build(&base, graph, kind, hops, self_loops));
    int64_t N = base.n_nodes, G = base.n_graphs, N2 = N + G;
    /* every node gains its token; every token has its graph's nodes (and itself with self-loops);
     * with N + G below 2^31 this cannot overflow */
    int64_t M2 = base.n_entries + 2 * N + (base.self_loops ? G : 0);
    ag_error_t rc = AG_SUCCESS;
    if (N2 > INT32_MAX) rc = AG_ERROR(AG_ELIMIT, "mask: %lld nodes and %lld graph tokens exceed 2^31-1", (long long)N,
                                      (long long)G);
    mask->kind = base.kind;
    mask->hops = base.hops;
    mask->self_loops = base.self_loops;
    mask->n_nodes = N2;
    mask->n_entries = M2;
    mask->n_graphs = G;
    if (!rc) rc = ag_i_alloc_array((void **)&mask->indptr, N2 + 1, sizeof(int64_t), "mask indptr");
    if (!rc) rc = ag_i_alloc_array((void **)&mask->src, M2, sizeof(int32_t), "mask sources");
    if (!rc) rc = ag_i_alloc_array((void **)&mask->edge, M2, sizeof(int64_t), "mask edge ids");
    if (!rc) rc = ag_i_alloc_array((void **)&mask->graph_ptr, G + 1, sizeof(int64_t), "mask graph ranges");
    if (!rc) rc = ag_i_alloc_array((void **)&mask->node_graph, N2, sizeof(int32_t), "mask node graphs");
    if (!rc) {
        /* Node i of graph g becomes row i + g; graph g's token is row graph_ptr[g+1] + g, the last of
         * its range. Sources of a row stay sorted: every source lies in the row's graph, below its token. */
        int64_t o = 0;
        for (int64_t g = 0; g < G; g++) {
            int64_t n0 = base.graph_ptr[g], n1 = base.graph_ptr[g + 1], tok = n1 + g;
            mask->graph_ptr[g] = n0 + g;
            for (int64_t i = n0; i < n1; i++) {
                mask->indptr[i + g] = o;
                mask->node_graph[i + g] = (int32_t)g;
                for (int64_t k = base.indptr[i]; k < base.indptr[i + 1]; k++) {
                    int32_t j = base.src[k];
                    mask->src[o] = j + base.node_graph[j];
                    mask->edge[o++] = base.edge[k];
                }
                mask->src[o] = (int32_t)tok;
                mask->edge[o++] = -1;
            }
            mask->indptr[tok] = o;
            mask->node_graph[tok] = (int32_t)g;
            for (int64_t i = n0; i <= n1; i++) {
                if (i == n1 && !base.self_loops) break;
                mask->src[o] = (int32_t)(i + g);
                mask->edge[o++] = -1;
            }
        }
        mask->indptr[N2] = o;
        mask->graph_ptr[G] = N2;
        rc = build_transpose(mask);
    }
    ag_mask_destroy(&base);
    if (rc) ag_mask_destroy(mask);
    return rc;
}
