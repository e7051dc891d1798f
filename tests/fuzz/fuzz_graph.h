/*
 * fuzz_graph.h: the graph-file targets (one per format) share this driver: the input is a graph
 * file read through ag_graph_read(), then the in-neighbour CSR and a label attribute, as a
 * node-classification run loads a graph.
 */
#ifndef AG_FUZZ_GRAPH_H
#define AG_FUZZ_GRAPH_H

#include <igraph.h>
#include "attngraph/graph.h"
#include "attngraph/labels.h"
#include "fuzz_common.h"

static inline int fuzz_graph_input(const uint8_t *data, size_t size, const char *suffix, ag_format_t format) {
    const char *path = fuzz_write_file(data, size, suffix);
    igraph_t ig;
    ag_error_clear();
    ag_error_t rc = ag_graph_read(&ig, path, format, 0);
    fuzz_check_result(rc, "ag_graph_read");
    if (rc != AG_SUCCESS) return 0;
    ag_graph_t g;
    rc = ag_graph_from_igraph(&g, &ig);
    fuzz_check_result(rc, "ag_graph_from_igraph");
    if (rc == AG_SUCCESS)
        ag_graph_destroy(&g);
    else
        fuzz_check_zeroed(&g, sizeof g, "ag_graph_from_igraph");
    ag_labels_t lab;
    rc = ag_labels_from_attr(&lab, &ig, "label", NULL, 0);
    fuzz_check_result(rc, "ag_labels_from_attr");
    if (rc == AG_SUCCESS)
        ag_labels_destroy(&lab);
    else
        fuzz_check_zeroed(&lab, sizeof lab, "ag_labels_from_attr");
    igraph_destroy(&ig);
    return 0;
}

#endif
