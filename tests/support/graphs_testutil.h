/*
 * graphs_testutil.h: graphs built by hand for the tests (no igraph, no ag_graph_from_igraph), so
 * that the kernels can be tested independently of the igraph conversion. The CSR follows the rules
 * of attngraph/graph.h: a directed edge u -> v is one entry (destination v, source u); an undirected
 * edge {u, v} with u != v is two entries sharing the edge id; a self-loop is one entry; multi-edges
 * stay separate; entries of each destination are sorted by source, then edge id.
 */
#ifndef AG_GRAPHS_TESTUTIL_H
#define AG_GRAPHS_TESTUTIL_H

#include <stdint.h>
#include <attngraph/graph.h>

/* Builds a batch of count graphs: graph g has n_nodes[g] nodes and n_edges[g] edges given as
 * (from, to) pairs of graph-local node ids in edges[g] (n_edges[g] x 2). Edge ids are the position
 * in the list plus the batch offset. Returns 0 on success, -1 on a bad node id or no memory.
 * Free with ag_test_graph_free(). */
int ag_test_graph_build(ag_graph_t *g, int directed, int64_t count, const int64_t *n_nodes,
                        const int64_t *n_edges, const int64_t *const *edges);

/* Frees what ag_test_graph_build() or ag_test_graph_random() allocated. */
void ag_test_graph_free(ag_graph_t *g);

/* Random batch: graph g has n_nodes[g] nodes of which the last n_isolated[g] never get an edge,
 * and n_edges[g] random edges among the others. With probability p_self an edge is a self-loop,
 * with probability p_multi it repeats an earlier edge of the same graph (a multi-edge).
 * Deterministic in seed. Returns 0 on success. */
int ag_test_graph_random(ag_graph_t *g, uint64_t seed, int directed, int64_t count,
                         const int64_t *n_nodes, const int64_t *n_edges, const int64_t *n_isolated,
                         double p_self, double p_multi);

/* Fills x (n values) with uniform draws in [lo, hi), deterministic in seed. */
void ag_test_fill_uniform(float *x, int64_t n, float lo, float hi, uint64_t seed);
void ag_test_fill_uniform_d(double *x, int64_t n, double lo, double hi, uint64_t seed);

#endif
