/*
 * attr_type.c: the type of a named igraph attribute (see attr_type.h).
 */
#include <stdio.h>
#include <string.h>
#include "attr_type.h"
#include "internal.h"
#include "name_index.h"

/* igraph_cattribute_list for the one kind elem: copying the other kinds' names too made a lookup
 * of a graph attribute cost the vertex attributes' count (hundreds in a TU set's continuous
 * attributes). types may be NULL. */
static igraph_error_t list_kind(const igraph_t *graph, igraph_attribute_elemtype_t elem, igraph_strvector_t *names,
                                igraph_vector_int_t *types) {
    return elem == IGRAPH_ATTRIBUTE_GRAPH    ? igraph_cattribute_list(graph, names, types, NULL, NULL, NULL, NULL)
           : elem == IGRAPH_ATTRIBUTE_VERTEX ? igraph_cattribute_list(graph, NULL, NULL, names, types, NULL, NULL)
                                             : igraph_cattribute_list(graph, NULL, NULL, NULL, NULL, names, types);
}

/* The listed names indexed (positions those in names), into ix; IGRAPH_ENOMEM when it cannot be. */
static igraph_error_t index_listed(ag_i_name_index_t *ix, const igraph_strvector_t *names) {
    const int64_t A = igraph_strvector_size(names);
    if (ag_i_name_index_init(ix, A, "attribute index") != AG_SUCCESS) return IGRAPH_ENOMEM;
    for (int64_t i = 0; i < A; i++) ag_i_name_index_put(ix, i, igraph_strvector_get(names, i));
    ag_i_name_index_sort(ix);
    return IGRAPH_SUCCESS;
}

ag_error_t ag_i_attr_types(const igraph_t *graph, igraph_attribute_elemtype_t elem, const char *const *names,
                           int64_t n, igraph_attribute_type_t *types) {
    for (int64_t i = 0; i < n; i++) types[i] = IGRAPH_ATTRIBUTE_UNSPECIFIED;
    /* A graph made while no attribute handler was installed has no attribute record at all, and
     * the C handler's functions would dereference it. */
    if (n <= 0 || !igraph_has_attribute_table() || !graph->attr) return AG_SUCCESS;
    igraph_strvector_t listed;
    igraph_vector_int_t listed_types;
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_init(&listed, 0);
    if (rc == IGRAPH_SUCCESS && (rc = igraph_vector_int_init(&listed_types, 0)) != IGRAPH_SUCCESS)
        igraph_strvector_destroy(&listed);
    const int have = rc == IGRAPH_SUCCESS;
    if (have) rc = list_kind(graph, elem, &listed, &listed_types);
    ag_i_name_index_t ix = {0, NULL}; /* (A) */
    if (rc == IGRAPH_SUCCESS) rc = index_listed(&ix, &listed);
    for (int64_t i = 0; rc == IGRAPH_SUCCESS && i < n; i++) {
        const int64_t at = names[i] ? ag_i_name_index_find(&ix, names[i]) : -1;
        if (at >= 0) types[i] = (igraph_attribute_type_t)VECTOR(listed_types)[at];
    }
    ag_i_name_index_destroy(&ix);
    if (have) {
        igraph_strvector_destroy(&listed);
        igraph_vector_int_destroy(&listed_types);
    }
    ag_i_igraph_leave();
    if (rc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory listing attributes");
    if (rc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "listing attributes");
    return AG_SUCCESS;
}

ag_error_t ag_i_attr_type(const igraph_t *graph, igraph_attribute_elemtype_t elem, const char *name,
                          igraph_attribute_type_t *type) {
    return ag_i_attr_types(graph, elem, &name, 1, type);
}

const char *ag_i_attr_names(const igraph_t *graph, igraph_attribute_elemtype_t elem, char *buf, size_t cap) {
    snprintf(buf, cap, "none");
    if (!igraph_has_attribute_table() || !graph->attr || cap < 8) return buf;
    igraph_strvector_t names;
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_init(&names, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = list_kind(graph, elem, &names, NULL);
        size_t k = 0;
        for (igraph_integer_t i = 0; rc == IGRAPH_SUCCESS && i < igraph_strvector_size(&names); i++) {
            char shown[128];
            const char *name = ag_i_utf8_show(igraph_strvector_get(&names, i), shown, sizeof shown);
            const size_t need = strlen(name) + (i ? 2 : 0);
            if (k + need + 4 >= cap) { /* room for "..." and the terminator */
                snprintf(buf + k, cap - k, "%s...", i ? ", " : "");
                break;
            }
            k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", name);
        }
        igraph_strvector_destroy(&names);
    }
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) snprintf(buf, cap, "?");
    return buf;
}
