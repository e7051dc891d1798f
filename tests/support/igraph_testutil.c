#include "igraph_testutil.h"
#include <igraph.h>
#include <attngraph/attngraph.h>

int ag_test_igraph_graph(ag_graph_t *g, int n, const int *edges, int m) {
    igraph_t ig;
    igraph_vector_int_t ev;
    if (igraph_vector_int_init(&ev, 2 * m)) return AG_ENOMEM;
    for (int i = 0; i < 2 * m; i++) VECTOR(ev)[i] = edges[i];
    if (igraph_create(&ig, &ev, n, IGRAPH_UNDIRECTED)) {
        igraph_vector_int_destroy(&ev);
        return AG_EINVAL;
    }
    int rc = ag_graph_from_igraph(g, &ig);
    igraph_vector_int_destroy(&ev);
    igraph_destroy(&ig);
    return rc;
}

void ag_test_fill_signed(float *x, int64_t n, uint64_t seed, float scale) {
    for (int64_t i = 0; i < n; i++) x[i] = scale * (2.0f * ag_rng_uniform(seed, 7, (uint64_t)i) - 1.0f);
}
