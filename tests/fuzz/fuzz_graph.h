/*
 * fuzz_graph.h: the graph-file targets (one per format) share this driver: the input is a graph
 * file read through ag_graph_read(), then the in-neighbour CSR, a label attribute, and a featuriser
 * fitted on the graph's attributes and applied to it, as a node-classification run loads a graph.
 */
#ifndef AG_FUZZ_GRAPH_H
#define AG_FUZZ_GRAPH_H

#include <igraph.h>
#include "attngraph/graph.h"
#include "attngraph/features.h"
#include "attngraph/labels.h"
#include "fuzz_common.h"

static inline int fuzz_graph_input_directed(const uint8_t *data, size_t size, const char *suffix, ag_format_t format,
                                            int directed) {
    const char *path = fuzz_write_file(data, size, suffix);
    igraph_t ig;
    ag_error_clear();
    ag_error_t rc = ag_graph_read(&ig, path, format, directed);
    fuzz_check_result(rc, "ag_graph_read");
    if (rc != AG_SUCCESS) return 0;
    ag_graph_t g;
    rc = ag_graph_from_igraph(&g, &ig);
    fuzz_check_result(rc, "ag_graph_from_igraph");
    if (rc == AG_SUCCESS)
        ag_graph_destroy(&g);
    else
        fuzz_check_zeroed(&g, sizeof g, "ag_graph_from_igraph");
    /* labels from "label" (GML, GraphML) and "name" (the vertex names of NCOL, LGL, DL, Pajek) */
    static const char *const label_attrs[] = {"label", "name"};
    for (int k = 0; k < 2; k++) {
        ag_labels_t lab;
        rc = ag_labels_from_attr(&lab, &ig, label_attrs[k], NULL, 0);
        fuzz_check_result(rc, "ag_labels_from_attr");
        if (rc == AG_SUCCESS)
            ag_labels_destroy(&lab);
        else
            fuzz_check_zeroed(&lab, sizeof lab, "ag_labels_from_attr");
    }
    /* the featuriser over every attribute the file gave (strings one-hot, numbers, booleans on
     * vertices and edges) plus degree columns, fitted on the graph and applied to it */
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    fc.norm = size % 2 ? AG_NORM_STANDARDIZE : AG_NORM_L1_ROWS;
    ag_featurizer_t f;
    const igraph_t *one = &ig;
    rc = ag_featurizer_fit(&f, &fc, &one, 1);
    fuzz_check_result(rc, "ag_featurizer_fit");
    if (rc == AG_SUCCESS) {
        ag_fmat_t X = {0}, E = {0};
        rc = ag_featurizer_transform(&f, &ig, &X, &E);
        fuzz_check_result(rc, "ag_featurizer_transform");
        if (rc == AG_SUCCESS && (X.cols != f.n_features || E.cols != f.n_edge_features)) abort();
        ag_fmat_destroy(&X);
        ag_fmat_destroy(&E);
        ag_featurizer_destroy(&f);
    } else {
        fuzz_check_zeroed(&f, sizeof f, "ag_featurizer_fit");
    }
    igraph_destroy(&ig);
    return 0;
}

static inline int fuzz_graph_input(const uint8_t *data, size_t size, const char *suffix, ag_format_t format) {
    return fuzz_graph_input_directed(data, size, suffix, format, 0);
}

#endif
