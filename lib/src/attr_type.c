/*
 * attr_type.c: the type of a named igraph attribute (see attr_type.h).
 */
#include <stdio.h>
#include <string.h>
#include "attr_type.h"
#include "internal.h"

ag_error_t ag_i_attr_type(const igraph_t *graph, igraph_attribute_elemtype_t elem, const char *name,
                          igraph_attribute_type_t *type) {
    igraph_strvector_t names[3];
    igraph_vector_int_t types[3];
    int k = 0, ok = 1;
    *type = IGRAPH_ATTRIBUTE_UNSPECIFIED;
    /* A graph made while no attribute handler was installed has no attribute record at all, and
     * the C handler's functions would dereference it. */
    if (!igraph_has_attribute_table() || !graph->attr) return AG_SUCCESS;
    ag_i_igraph_enter();
    for (; k < 3; k++) {
        if (igraph_strvector_init(&names[k], 0) != IGRAPH_SUCCESS) {
            ok = 0;
            break;
        }
        if (igraph_vector_int_init(&types[k], 0) != IGRAPH_SUCCESS) {
            igraph_strvector_destroy(&names[k]);
            ok = 0;
            break;
        }
    }
    igraph_error_t rc = IGRAPH_ENOMEM;
    if (ok) rc = igraph_cattribute_list(graph, &names[0], &types[0], &names[1], &types[1], &names[2], &types[2]);
    if (rc == IGRAPH_SUCCESS) {
        int which = elem == IGRAPH_ATTRIBUTE_GRAPH ? 0 : elem == IGRAPH_ATTRIBUTE_VERTEX ? 1 : 2;
        for (igraph_integer_t i = 0; i < igraph_strvector_size(&names[which]); i++)
            if (strcmp(igraph_strvector_get(&names[which], i), name) == 0)
                *type = (igraph_attribute_type_t)VECTOR(types[which])[i];
    }
    for (int j = 0; j < k; j++) {
        igraph_strvector_destroy(&names[j]);
        igraph_vector_int_destroy(&types[j]);
    }
    ag_i_igraph_leave();
    if (rc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory listing attributes");
    if (rc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "listing attributes");
    return AG_SUCCESS;
}

const char *ag_i_attr_names(const igraph_t *graph, igraph_attribute_elemtype_t elem, char *buf, size_t cap) {
    snprintf(buf, cap, "none");
    if (!igraph_has_attribute_table() || !graph->attr || cap < 8) return buf;
    igraph_strvector_t names;
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_init(&names, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = elem == IGRAPH_ATTRIBUTE_GRAPH    ? igraph_cattribute_list(graph, &names, NULL, NULL, NULL, NULL, NULL)
             : elem == IGRAPH_ATTRIBUTE_VERTEX ? igraph_cattribute_list(graph, NULL, NULL, &names, NULL, NULL, NULL)
                                               : igraph_cattribute_list(graph, NULL, NULL, NULL, NULL, &names, NULL);
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
