/*
 * igraph_testutil.h: small graphs made through igraph and the library's own conversion
 * (ag_graph_from_igraph), for the model-level tests, and the symmetric random fill they share.
 */
#ifndef AG_IGRAPH_TESTUTIL_H
#define AG_IGRAPH_TESTUTIL_H

#include <stdint.h>
#include <attngraph/graph.h>

/* An undirected graph of n vertices and the m edges (edges[2k], edges[2k+1]), converted with
 * ag_graph_from_igraph. Returns its error code (AG_SUCCESS = 0). */
int ag_test_igraph_graph(ag_graph_t *g, int n, const int *edges, int m);

/* x[i] = scale * U(-1, 1), from the library's counter RNG (seed, stream 7, counter i). */
void ag_test_fill_signed(float *x, int64_t n, uint64_t seed, float scale);

#endif
