/*
 * graph.c: the in-neighbour CSR of an igraph graph, and block-diagonal batches of them.
 *
 * The CSR is built with one counting sort by destination in edge-id order (one pass of scattered
 * writes, the expensive part on large graphs), then each row is sorted by source where it lies,
 * in cache: O(N + E log d) for largest in-degree d. An earlier version used a second counting sort
 * instead of the row sorts; its second scatter made it about twice as slow.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "rng_internal.h"
#include "attngraph/graph.h"

/* Most rounds of colour refinement in a print: refinement stops when a round splits no colour
 * class, which takes about the graph's diameter on trees and paths; the bound keeps a long path
 * from costing N passes over the edges. */
#define PRINT_MAX_ROUNDS 64

static uint64_t mix2(uint64_t a, uint64_t b) {
    return ag_i_rng_mix(ag_i_rng_mix(a + 0x9e3779b97f4a7c15ULL) ^ (b + 0x632be59bd9b4e019ULL));
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct values in v (n), sorting scratch (n). */
static int64_t distinct(const uint64_t *v, uint64_t *scratch, int64_t n) {
    if (n == 0) return 0;
    memcpy(scratch, v, (size_t)n * sizeof *v);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_u64);
    int64_t k = 1;
    for (int64_t i = 1; i < n; i++) k += scratch[i] != scratch[i - 1];
    return k;
}

ag_error_t ag_graph_print(const igraph_t *ig, ag_graph_print_t *out) {
    if (!ig || !out) return AG_ERROR(AG_EINVAL, "ag_graph_print: NULL argument");
    ag_i_igraph_enter();
    out->vertices = (int64_t)igraph_vcount(ig);
    out->edges = (int64_t)igraph_ecount(ig);
    out->directed = igraph_is_directed(ig) ? 1 : 0;
    ag_i_igraph_leave();
    const int64_t n = out->vertices, m = out->edges;
    /* the numbering: a sum over the edges as numbered, an undirected edge's ends in order, so that
     * the order of the edges does not count */
    uint64_t numbered = 0;
    for (int64_t e = 0; e < m; e++) {
        uint64_t u = (uint64_t)IGRAPH_FROM(ig, e), v = (uint64_t)IGRAPH_TO(ig, e);
        if (!out->directed && v < u) {
            const uint64_t t = u;
            u = v;
            v = t;
        }
        numbered += mix2(u, v);
    }
    out->numbered = numbered;
    /* the shape: Weisfeiler-Lehman colour refinement until stable, a vertex's colour refined by the
     * order-free sums of its in- and out-neighbours' colours; the graphs it cannot tell apart are
     * those 1-WL cannot (two regular graphs of one size and degree, say) */
    uint64_t *col = NULL, *in = NULL, *outs = NULL; /* (N) each; outs is also the sorting scratch */
    const size_t n1 = n > 0 ? (size_t)n : 1;
    ag_error_t rc = ag_i_alloc_array((void **)&col, n1, sizeof *col, "graph print");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&in, n1, sizeof *in, "graph print");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&outs, n1, sizeof *outs, "graph print");
    for (int64_t v = 0; v < n && rc == AG_SUCCESS; v++) col[v] = 1;
    int64_t classes = n > 0 ? 1 : 0;
    for (int r = 0; r < PRINT_MAX_ROUNDS && rc == AG_SUCCESS; r++) {
        memset(in, 0, n1 * sizeof *in);
        memset(outs, 0, n1 * sizeof *outs);
        for (int64_t e = 0; e < m; e++) {
            const int64_t u = (int64_t)IGRAPH_FROM(ig, e), v = (int64_t)IGRAPH_TO(ig, e);
            in[v] += ag_i_rng_mix(col[u]);
            if (out->directed) outs[u] += ag_i_rng_mix(col[v] ^ 0xa5a5a5a5a5a5a5a5ULL);
            else in[u] += ag_i_rng_mix(col[v]);
        }
        for (int64_t v = 0; v < n; v++) col[v] = mix2(mix2(col[v], in[v]), outs[v]);
        /* refinement only splits classes: as many as before means the same partition */
        const int64_t k = distinct(col, outs, n);
        if (k == classes) break;
        classes = k;
    }
    uint64_t h = 0;
    for (int64_t v = 0; v < n && rc == AG_SUCCESS; v++) h += ag_i_rng_mix(col[v]);
    out->hash = h;
    ag_i_free(col);
    ag_i_free(in);
    ag_i_free(outs);
    return rc;
}

int ag_graph_print_same_shape(const ag_graph_print_t *a, const ag_graph_print_t *b) {
    return a->vertices == b->vertices && a->edges == b->edges && a->directed == b->directed && a->hash == b->hash;
}

int ag_graph_print_equal(const ag_graph_print_t *a, const ag_graph_print_t *b) {
    return ag_graph_print_same_shape(a, b) && a->numbered == b->numbered;
}

void ag_graph_destroy(ag_graph_t *graph) {
    if (!graph) return;
    ag_i_free(graph->indptr);
    ag_i_free(graph->src);
    ag_i_free(graph->edge);
    ag_i_free(graph->graph_ptr);
    ag_i_free(graph->edge_ptr);
    ag_i_free(graph->node_graph);
    memset(graph, 0, sizeof *graph);
}

/* Allocates every array of a graph with the given sizes (zeroed); on failure frees them all. */
static ag_error_t graph_alloc(ag_graph_t *g, int64_t n_nodes, int64_t n_entries, int64_t n_graphs) {
    ag_error_t rc;
    memset(g, 0, sizeof *g);
    g->n_nodes = n_nodes;
    g->n_entries = n_entries;
    g->n_graphs = n_graphs;
    if ((rc = ag_i_alloc_array((void **)&g->indptr, n_nodes + 1, sizeof *g->indptr, "CSR indptr")) ||
        (rc = ag_i_alloc_array((void **)&g->src, n_entries, sizeof *g->src, "CSR sources")) ||
        (rc = ag_i_alloc_array((void **)&g->edge, n_entries, sizeof *g->edge, "CSR edge ids")) ||
        (rc = ag_i_alloc_array((void **)&g->graph_ptr, n_graphs + 1, sizeof *g->graph_ptr, "graph offsets")) ||
        (rc = ag_i_alloc_array((void **)&g->edge_ptr, n_graphs + 1, sizeof *g->edge_ptr, "edge offsets")) ||
        (rc = ag_i_alloc_array((void **)&g->node_graph, n_nodes, sizeof *g->node_graph, "node graph ids"))) {
        ag_graph_destroy(g);
        return rc;
    }
    return AG_SUCCESS;
}

typedef struct {
    int32_t src;
    int64_t eid;
} entry_t;

static int cmp_entry(const void *a, const void *b) {
    const entry_t *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->eid > y->eid) - (x->eid < y->eid);
}

/* Sorts one row (len entries) by (source, edge id). The row arrives in edge-id order, so a stable
 * sort by source suffices: insertion sort for the short rows that dominate real graphs, qsort
 * through `scratch` (at least len entries) for hubs. */
static void sort_row(int32_t *src, int64_t *eid, int64_t len, entry_t *scratch) {
    if (len <= 32) {
        for (int64_t i = 1; i < len; i++) {
            const int32_t s = src[i];
            const int64_t e = eid[i];
            int64_t j = i;
            for (; j > 0 && src[j - 1] > s; j--) {
                src[j] = src[j - 1];
                eid[j] = eid[j - 1];
            }
            src[j] = s;
            eid[j] = e;
        }
        return;
    }
    for (int64_t i = 0; i < len; i++) scratch[i] = (entry_t){src[i], eid[i]};
    qsort(scratch, (size_t)len, sizeof *scratch, cmp_entry);
    for (int64_t i = 0; i < len; i++) {
        src[i] = scratch[i].src;
        eid[i] = scratch[i].eid;
    }
}

ag_error_t ag_graph_from_igraph(ag_graph_t *graph, const igraph_t *ig) {
    if (!graph) return AG_ERROR(AG_EINVAL, "ag_graph_from_igraph: NULL output");
    memset(graph, 0, sizeof *graph);
    if (!ig) return AG_ERROR(AG_EINVAL, "ag_graph_from_igraph: graph is NULL");
    ag_i_igraph_enter();
    const int64_t n = (int64_t)igraph_vcount(ig);
    const int64_t m = (int64_t)igraph_ecount(ig);
    const int directed = igraph_is_directed(ig) ? 1 : 0;
    ag_i_igraph_leave();
    if (n > INT32_MAX)
        return AG_ERROR(AG_ELIMIT, "graph has %lld nodes; at most %d are supported", (long long)n, INT32_MAX);

    /* Read the endpoints straight from igraph's edge vectors (IGRAPH_FROM/TO are field accesses,
     * not calls): a 10M-edge graph needs no edge-list copy. */
    int64_t loops = 0;
    for (int64_t e = 0; e < m; e++)
        if (IGRAPH_FROM(ig, e) == IGRAPH_TO(ig, e)) loops++;
    const int64_t n_entries = directed ? m : 2 * m - loops;

    ag_error_t rc = graph_alloc(graph, n, n_entries, 1);
    if (rc) return rc;
    graph->n_edges = m;
    graph->directed = directed;
    graph->graph_ptr[1] = n;
    graph->edge_ptr[1] = m;
    /* node_graph is already all zero: every node belongs to graph 0 */

    int64_t *cursor = NULL;  /* (N) next free slot per row */
    entry_t *scratch = NULL; /* (largest row) for sorting hub rows */
    if ((rc = ag_i_alloc_array((void **)&cursor, n, sizeof *cursor, "CSR scratch"))) goto done;

    /* Count entries per destination. */
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        graph->indptr[v + 1]++;
        if (!directed && u != v) graph->indptr[u + 1]++;
    }
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++) {
        if (graph->indptr[i + 1] > longest) longest = graph->indptr[i + 1];
        graph->indptr[i + 1] += graph->indptr[i];
    }
    if (longest > 32 && (rc = ag_i_alloc_array((void **)&scratch, longest, sizeof *scratch, "CSR scratch")))
        goto done;

    /* Bucket by destination, visiting edges in id order: each row comes out in edge-id order. */
    memcpy(cursor, graph->indptr, (size_t)n * sizeof *cursor);
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        int64_t k = cursor[v]++;
        graph->src[k] = (int32_t)u;
        graph->edge[k] = e;
        if (!directed && u != v) {
            k = cursor[u]++;
            graph->src[k] = (int32_t)v;
            graph->edge[k] = e;
        }
    }
    for (int64_t i = 0; i < n; i++)
        sort_row(graph->src + graph->indptr[i], graph->edge + graph->indptr[i],
                 graph->indptr[i + 1] - graph->indptr[i], scratch);

done:
    ag_i_free(cursor);
    ag_i_free(scratch);
    if (rc) ag_graph_destroy(graph);
    return rc;
}

ag_error_t ag_graph_batch(ag_graph_t *batch, const ag_graph_t *const *graphs, int64_t count) {
    if (!batch) return AG_ERROR(AG_EINVAL, "ag_graph_batch: NULL output");
    memset(batch, 0, sizeof *batch);
    if (count <= 0) return AG_ERROR(AG_EINVAL, "ag_graph_batch: count is %lld, must be positive", (long long)count);
    if (!graphs) return AG_ERROR(AG_EINVAL, "ag_graph_batch: graphs is NULL");
    const ag_graph_t *g0 = graphs[0];
    int64_t n = 0, entries = 0, edges = 0, n_graphs = 0;
    for (int64_t g = 0; g < count; g++) {
        const ag_graph_t *x = graphs[g];
        if (!x) return AG_ERROR(AG_EINVAL, "ag_graph_batch: graph %lld is NULL", (long long)g);
        if (x->directed != g0->directed)
            return AG_ERROR(AG_EMISMATCH, "ag_graph_batch: graph %lld is %s but graph 0 is %s", (long long)g,
                            x->directed ? "directed" : "undirected", g0->directed ? "directed" : "undirected");
        n += x->n_nodes;
        entries += x->n_entries;
        edges += x->n_edges;
        n_graphs += x->n_graphs;
    }
    if (n > INT32_MAX)
        return AG_ERROR(AG_ELIMIT, "batch has %lld nodes; at most %d are supported", (long long)n, INT32_MAX);

    ag_error_t rc = graph_alloc(batch, n, entries, n_graphs);
    if (rc) return rc;
    batch->n_edges = edges;
    batch->directed = g0->directed;

    /* A member may itself be a batch: its graph offsets are carried over, shifted. */
    int64_t node_off = 0, entry_off = 0, edge_off = 0, graph_off = 0;
    for (int64_t g = 0; g < count; g++) {
        const ag_graph_t *x = graphs[g];
        for (int64_t i = 0; i < x->n_nodes; i++) {
            batch->indptr[node_off + i] = entry_off + x->indptr[i];
            batch->node_graph[node_off + i] = (int32_t)(graph_off + x->node_graph[i]);
        }
        for (int64_t k = 0; k < x->n_entries; k++) {
            batch->src[entry_off + k] = (int32_t)(node_off + x->src[k]);
            batch->edge[entry_off + k] = edge_off + x->edge[k];
        }
        for (int64_t j = 0; j < x->n_graphs; j++) {
            batch->graph_ptr[graph_off + j] = node_off + x->graph_ptr[j];
            batch->edge_ptr[graph_off + j] = edge_off + x->edge_ptr[j];
        }
        node_off += x->n_nodes;
        entry_off += x->n_entries;
        edge_off += x->n_edges;
        graph_off += x->n_graphs;
    }
    batch->indptr[n] = entries;
    batch->graph_ptr[n_graphs] = n;
    batch->edge_ptr[n_graphs] = edges;
    return AG_SUCCESS;
}
