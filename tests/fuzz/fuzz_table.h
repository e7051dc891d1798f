/*
 * fuzz_table.h: the node-table targets (one per text form) share this driver.
 *
 * The first input byte chooses the graph and the options, the rest is the table file:
 *   bits 0-2  vertices n = 1..8; vertex v has numeric `id` 10 * (v + 1) and string `name` "a", "b", ...
 *   bit 3     ids are vertex indices (match_index)
 *   bit 4     ids are matched to `name` instead of `id`
 *   bit 5     delimited: label column "label"; whitespace: the last field is a label
 *   bit 6     delimited: feature columns "x", "y" only; sparse: width 4
 *   bit 7     delimited: the id column is "name" (else the first column)
 * The read limit is FUZZ_READ_LIMIT (fuzz_common.h).
 * These match the shipped test tables (tests/data/tables: 4 vertices with those ids and names).
 */
#ifndef AG_FUZZ_TABLE_H
#define AG_FUZZ_TABLE_H

#include <igraph.h>
#include "attngraph/graph.h"
#include "attngraph/labels.h"
#include "attngraph/table.h"
#include "fuzz_common.h"

static int fuzz_table_run(const uint8_t *data, size_t size, ag_table_format_t format, const char *suffix) {
    if (size < 1) return 0;
    const uint8_t b = data[0];
    const char *path = fuzz_write_file(data + 1, size - 1, suffix);
    const int n = (b & 7) + 1;
    static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    static const char *const xy[] = {"x", "y"};

    igraph_set_attribute_table(&igraph_cattribute_table);
    /* a sparse index of a few digits asks for a dense matrix of gigabytes: the read limit refuses
     * it (AG_EREADLIMIT) before anything is allocated, as the program does */
    ag_graph_read_set_max_memory(FUZZ_READ_LIMIT);
    igraph_t ig;
    if (igraph_empty(&ig, n, IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS) abort();
    for (int v = 0; v < n; v++) {
        if (igraph_cattribute_VAN_set(&ig, "id", v, 10.0 * (v + 1)) != IGRAPH_SUCCESS) abort();
        if (igraph_cattribute_VAS_set(&ig, "name", v, names[v]) != IGRAPH_SUCCESS) abort();
    }

    ag_table_options_t o;
    ag_table_options_init(&o);
    o.format = format;
    o.match_index = (b >> 3) & 1;
    if ((b >> 4) & 1) o.vertex_attr = "name";
    if ((b >> 5) & 1) {
        if (format == AG_TABLE_DELIMITED)
            o.label_column = "label";
        else
            o.last_is_label = 1;
    }
    if ((b >> 6) & 1) {
        if (format == AG_TABLE_DELIMITED) {
            o.columns = xy;
            o.n_columns = 2;
        } else {
            o.width = 4;
        }
    }
    if (((b >> 7) & 1) && format == AG_TABLE_DELIMITED) o.id_column = "name";

    ag_node_table_t t;
    ag_error_clear();
    ag_error_t rc = ag_table_read(&t, path, &ig, &o);
    fuzz_check_result(rc, "ag_table_read");
    if (rc == AG_SUCCESS) {
        if (t.features.rows != n) abort();
        if (t.labels) {
            ag_labels_t lab;
            rc = ag_labels_from_strings(&lab, (const char *const *)t.labels, n, NULL, 0, "fuzz");
            fuzz_check_result(rc, "ag_labels_from_strings");
            if (rc == AG_SUCCESS)
                ag_labels_destroy(&lab);
            else
                fuzz_check_zeroed(&lab, sizeof lab, "ag_labels_from_strings");
        }
        ag_node_table_destroy(&t);
    } else {
        fuzz_check_zeroed(&t, sizeof t, "ag_table_read");
    }
    igraph_destroy(&ig);
    return 0;
}

#endif
