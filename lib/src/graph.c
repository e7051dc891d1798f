/*
 * graph.c: the in-neighbour CSR of an igraph graph, and block-diagonal batches of them.
 *
 * The CSR is built with two stable counting sorts and no comparison sort: entries are first
 * bucketed by source in edge-id order, then moved to their destination row visiting sources in
 * increasing order. Each row therefore comes out sorted by (source, edge id) in O(N + E).
 */
#include <string.h>
#include "internal.h"
#include "attngraph/graph.h"

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

ag_error_t ag_graph_from_igraph(ag_graph_t *graph, const igraph_t *ig) {
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

    int64_t *out_ptr = NULL;  /* (N+1) entries with source s are out_ptr[s] .. out_ptr[s+1]-1 */
    int32_t *out_dst = NULL;  /* (n_entries) destination of each entry, bucketed by source */
    int64_t *out_eid = NULL;  /* (n_entries) edge id of each entry, bucketed by source */
    int64_t *cursor = NULL;   /* (N) next free slot per row */
    if ((rc = ag_i_alloc_array((void **)&out_ptr, n + 1, sizeof *out_ptr, "CSR scratch")) ||
        (rc = ag_i_alloc_array((void **)&out_dst, n_entries, sizeof *out_dst, "CSR scratch")) ||
        (rc = ag_i_alloc_array((void **)&out_eid, n_entries, sizeof *out_eid, "CSR scratch")) ||
        (rc = ag_i_alloc_array((void **)&cursor, n, sizeof *cursor, "CSR scratch")))
        goto done;

    /* Count entries per source and per destination. */
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        out_ptr[u + 1]++;
        graph->indptr[v + 1]++;
        if (!directed && u != v) {
            out_ptr[v + 1]++;
            graph->indptr[u + 1]++;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        out_ptr[i + 1] += out_ptr[i];
        graph->indptr[i + 1] += graph->indptr[i];
    }

    /* Pass 1: bucket by source, visiting edges in id order (stable, so ids ascend per bucket). */
    memcpy(cursor, out_ptr, (size_t)n * sizeof *cursor);
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        int64_t k = cursor[u]++;
        out_dst[k] = (int32_t)v;
        out_eid[k] = e;
        if (!directed && u != v) {
            k = cursor[v]++;
            out_dst[k] = (int32_t)u;
            out_eid[k] = e;
        }
    }

    /* Pass 2: move to destination rows visiting sources in increasing order (stable again). */
    memcpy(cursor, graph->indptr, (size_t)n * sizeof *cursor);
    for (int64_t s = 0; s < n; s++) {
        for (int64_t k = out_ptr[s]; k < out_ptr[s + 1]; k++) {
            const int64_t slot = cursor[out_dst[k]]++;
            graph->src[slot] = (int32_t)s;
            graph->edge[slot] = out_eid[k];
        }
    }

done:
    ag_i_free(out_ptr);
    ag_i_free(out_dst);
    ag_i_free(out_eid);
    ag_i_free(cursor);
    if (rc) ag_graph_destroy(graph);
    return rc;
}

ag_error_t ag_graph_batch(ag_graph_t *batch, const ag_graph_t *const *graphs, int64_t count) {
    memset(batch, 0, sizeof *batch);
    if (count <= 0) return AG_ERROR(AG_EINVAL, "ag_graph_batch: count is %lld, must be positive", (long long)count);
    if (!graphs) return AG_ERROR(AG_EINVAL, "ag_graph_batch: graphs is NULL");

    int64_t n = 0, entries = 0, edges = 0, n_graphs = 0;
    for (int64_t g = 0; g < count; g++) {
        const ag_graph_t *x = graphs[g];
        if (!x) return AG_ERROR(AG_EINVAL, "ag_graph_batch: graph %lld is NULL", (long long)g);
        if (x->directed != graphs[0]->directed)
            return AG_ERROR(AG_EMISMATCH, "ag_graph_batch: graph %lld is %s but graph 0 is %s", (long long)g,
                            x->directed ? "directed" : "undirected", graphs[0]->directed ? "directed" : "undirected");
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
    batch->directed = graphs[0]->directed;

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
