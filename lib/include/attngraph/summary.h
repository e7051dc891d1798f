/*
 * attngraph/summary.h: what a graph file holds, as `attn-graph info` shows it.
 *
 * Counts (nodes, edges, self-loops, multi-edges, weak components, degrees) and every vertex, edge
 * and graph attribute with its type, an example value, how many values are missing and how many
 * feature columns it would give:
 *   numeric -> 1 column; string -> one column per distinct value plus one "other" column;
 *   boolean -> 1 column (0/1); graph attributes -> 0 (they are labels, not node features).
 *
 *   igraph_t ig;
 *   ag_graph_summary_t s;
 *   if (ag_graph_read(&ig, "aspirin.gml", AG_FORMAT_AUTO, 0) == AG_SUCCESS) {
 *       if (ag_graph_summarize(&ig, &s) == AG_SUCCESS) {
 *           printf("nodes: %lld\n", (long long)s.nodes);
 *           ag_graph_summary_destroy(&s);
 *       }
 *       igraph_destroy(&ig);
 *   }
 */
#ifndef ATTNGRAPH_SUMMARY_H
#define ATTNGRAPH_SUMMARY_H

#include <igraph.h>
#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ag_attr_kind_t { AG_ATTR_VERTEX = 0, AG_ATTR_EDGE, AG_ATTR_GRAPH } ag_attr_kind_t;
typedef enum ag_attr_type_t { AG_ATTR_NUMERIC = 0, AG_ATTR_STRING, AG_ATTR_BOOLEAN } ag_attr_type_t;

/** One attribute of a graph. */
typedef struct ag_attr_summary_t {
    char *name;
    ag_attr_kind_t kind;
    ag_attr_type_t type;
    /* The first non-missing value (by vertex or edge id): `number` for numeric and boolean (0/1),
     * `string` for string attributes (NULL otherwise). has_example is 0 if every value is missing. */
    int has_example;
    double number;
    char *string;
    int64_t missing;       /* values that are NaN (numeric) or "" (string); booleans are never missing */
    int64_t distinct;      /* string attributes: distinct non-missing values; otherwise 0 */
    int64_t feature_width; /* feature columns (see the rule above); 0 for graph attributes */
} ag_attr_summary_t;

/** The summary of one graph. */
typedef struct ag_graph_summary_t {
    int directed;
    int64_t nodes;
    int64_t edges;
    int64_t self_loops;  /* edges i -> i */
    int64_t multi_edges; /* edges that repeat an earlier edge's endpoints (both ways if undirected) */
    int64_t components;  /* weakly connected components */
    /* Degree = in + out, a self-loop counting twice (igraph's convention). */
    int64_t degree_min, degree_max;
    double degree_mean;
    /* Directed graphs only (0 otherwise). */
    int64_t in_degree_min, in_degree_max, out_degree_min, out_degree_max;
    int64_t n_attrs;
    ag_attr_summary_t *attrs; /* (n_attrs) vertex attributes, then edge, then graph; each in igraph's order */
} ag_graph_summary_t;

/**
 * \function ag_graph_summarize
 * Summarises a graph. Attributes are read through igraph's C attribute handler (the one
 * ag_graph_read() installs); if no attribute handler is installed the list is empty.
 * \param ig       The graph.
 * \param summary  Output, uninitialised; free with ag_graph_summary_destroy().
 * \return AG_SUCCESS, AG_ENOMEM, AG_ELIMIT, AG_EIGRAPH.
 * Time complexity: O(|V| + |E| log d) for maximum in-degree d (the multi-edges are counted on the
 * CSR), plus O(|V|) or O(|E|) per attribute and O(k log k) per string attribute with k values;
 * O(|V| + |E|) working memory.
 */
ag_error_t ag_graph_summarize(const igraph_t *ig, ag_graph_summary_t *summary);

/** \function ag_graph_summary_destroy
 * Frees a summary; safe on a zero-initialised one.
 * Time complexity: O(n_attrs). */
void ag_graph_summary_destroy(ag_graph_summary_t *summary);

/** \function ag_attr_kind_name
 * "vertex", "edge" or "graph".
 * Time complexity: O(1). */
const char *ag_attr_kind_name(ag_attr_kind_t kind);

/** \function ag_attr_type_name
 * "numeric", "string" or "boolean".
 * Time complexity: O(1). */
const char *ag_attr_type_name(ag_attr_type_t type);

#ifdef __cplusplus
}
#endif
#endif
