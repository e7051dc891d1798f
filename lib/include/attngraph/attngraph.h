/*
 * attngraph.h: the umbrella header of attn-graph, graph self-attention networks in C on igraph.
 *
 * The whole use in one program: load a trained model, read a graph with igraph, predict, print.
 * (scripts/check-install.sh compiles and runs the code between the quickstart marks against the
 * installed package, so it stays correct.) Build: cc app.c $(pkg-config --cflags --libs attngraph),
 * or in CMake find_package(attngraph) and target_link_libraries(app attngraph::attngraph).
 *
 * <quickstart>
#include <stdio.h>
#include <attngraph/attngraph.h>

int main(int argc, char **argv) {                  // usage: app MODEL.safetensors GRAPH.gml
    if (argc != 3) return 2;
    igraph_set_attribute_table(&igraph_cattribute_table);  // the model reads vertex attributes
    FILE *f = fopen(argv[2], "r");
    igraph_t g;
    if (!f || igraph_read_graph_gml(&g, f) != IGRAPH_SUCCESS) return 1;
    fclose(f);
    ag_net_t *net = NULL;
    igraph_vector_t out;                           // caller-initialised, resized by the callee
    igraph_vector_int_t labels;
    igraph_vector_init(&out, 0);
    igraph_vector_int_init(&labels, 0);
    ag_error_t rc = ag_net_load(&net, argv[1]);
    if (rc == AG_SUCCESS && ag_task_is_graph_level(ag_net_task(net))) {
        rc = ag_net_predict_graph(net, &g, NULL, &out);      // probabilities or values
        for (igraph_integer_t i = 0; rc == AG_SUCCESS && i < igraph_vector_size(&out); i++)
            printf("%s: %.4f\n", ag_net_output_name(net, i), VECTOR(out)[i]);
    } else if (rc == AG_SUCCESS && ag_net_task(net) == AG_TASK_NODE_REGRESSION) {
        igraph_matrix_t values;                    // N x T: the values in target units
        igraph_matrix_init(&values, 0, 0);
        rc = ag_net_predict_nodes(net, &g, NULL, NULL, &values);
        for (igraph_integer_t v = 0; rc == AG_SUCCESS && v < igraph_matrix_nrow(&values); v++)
            printf("vertex %lld: %s %.4f\n", (long long)v, ag_net_output_name(net, 0), MATRIX(values, v, 0));
        igraph_matrix_destroy(&values);
    } else if (rc == AG_SUCCESS) {
        rc = ag_net_predict_nodes(net, &g, NULL, &labels, NULL);   // one class per vertex
        for (igraph_integer_t v = 0; rc == AG_SUCCESS && v < igraph_vector_int_size(&labels); v++)
            printf("vertex %lld: %s\n", (long long)v, ag_net_output_name(net, VECTOR(labels)[v]));
    }
    if (rc != AG_SUCCESS) fprintf(stderr, "error: %s\n", ag_error_message());
    ag_net_destroy(net);
    igraph_vector_destroy(&out);
    igraph_vector_int_destroy(&labels);
    igraph_destroy(&g);
    return rc == AG_SUCCESS ? 0 : 1;
}
 * </quickstart>
 *
 * api.h is the facade used above (load, predict, attention per edge, train from C, save); the
 * other headers are the layers under it, for advanced use (docs/api.md has the map).
 */
#ifndef ATTNGRAPH_H
#define ATTNGRAPH_H

#include "attngraph/common.h"
#include "attngraph/matrix.h"
#include "attngraph/graph.h"
#include "attngraph/summary.h"
#include "attngraph/features.h"
#include "attngraph/posenc.h"
#include "attngraph/table.h"
#include "attngraph/labels.h"
#include "attngraph/dataset.h"
#include "attngraph/split.h"
#include "attngraph/param.h"
#include "attngraph/rng.h"
#include "attngraph/readout.h"
#include "attngraph/loss.h"
#include "attngraph/metrics.h"
#include "attngraph/safetensors.h"
#include "attngraph/attention.h"
#include "attngraph/layers.h"
#include "attngraph/optim.h"
#include "attngraph/model.h"
#include "attngraph/train.h"
#include "attngraph/smooth.h"
#include "attngraph/prepare.h"
#include "attngraph/modelfile.h"
#include "attngraph/options.h"
#include "attngraph/api.h"

#endif
