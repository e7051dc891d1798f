/*
 * attr_type.h: the type of a named igraph attribute (internal). igraph 0.10's C attribute handler
 * has no public per-name type query, so this lists the attributes of the kind asked once.
 */
#ifndef ATTNGRAPH_ATTR_TYPE_H
#define ATTNGRAPH_ATTR_TYPE_H

#include <igraph.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* Sets *type to the type of attribute `name` of kind `elem` (graph, vertex or edge), or
 * IGRAPH_ATTRIBUTE_UNSPECIFIED if the graph has no such attribute. Runs inside the igraph guard. */
ag_error_t ag_i_attr_type(const igraph_t *graph, igraph_attribute_elemtype_t elem, const char *name,
                          igraph_attribute_type_t *type);

/* ag_i_attr_type for n names at once (a NULL name is absent), into types (n): the graph's
 * attributes are listed once, where a call per name listed them all each time. Time:
 * O((A + n) log A) for the graph's A attributes of kind elem. Runs inside the igraph guard. */
ag_error_t ag_i_attr_types(const igraph_t *graph, igraph_attribute_elemtype_t elem, const char *const *names,
                           int64_t n, igraph_attribute_type_t *types);

/* The names of graph's attributes of kind elem, comma-separated, into buf (cap bytes; cut with
 * "..." when they do not fit; "none" when there are none), for a message that says an attribute is
 * missing: a misspelt name is then seen beside the right one. Returns buf; never fails (an
 * allocation failure gives "?"). Runs inside the igraph guard. */
const char *ag_i_attr_names(const igraph_t *graph, igraph_attribute_elemtype_t elem, char *buf, size_t cap);

#pragma GCC visibility pop
#endif
