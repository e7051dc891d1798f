/*
 * summary.c: counts, degrees and attribute statistics of a graph, for `attn-graph info`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "attngraph/graph.h"
#include "attngraph/summary.h"

const char *ag_attr_kind_name(ag_attr_kind_t kind) {
    switch (kind) {
    case AG_ATTR_VERTEX: return "vertex";
    case AG_ATTR_EDGE: return "edge";
    case AG_ATTR_GRAPH: return "graph";
    default: return "unknown";
    }
}

const char *ag_attr_type_name(ag_attr_type_t type) {
    switch (type) {
    case AG_ATTR_NUMERIC: return "numeric";
    case AG_ATTR_STRING: return "string";
    case AG_ATTR_BOOLEAN: return "boolean";
    default: return "unknown";
    }
}

void ag_graph_summary_destroy(ag_graph_summary_t *summary) {
    if (!summary) return;
    for (int64_t i = 0; i < summary->n_attrs; i++) {
        ag_i_free(summary->attrs[i].name);
        ag_i_free(summary->attrs[i].string);
    }
    ag_i_free(summary->attrs);
    memset(summary, 0, sizeof *summary);
}

/* Degrees from igraph's edge vectors (IGRAPH_FROM/TO are field accesses, not calls). */
static ag_error_t summarize_degrees(const igraph_t *ig, ag_graph_summary_t *s) {
    const int64_t n = s->nodes;
    int64_t *in = NULL, *out = NULL; /* (N) in- and out-degree */
    ag_error_t rc;
    if ((rc = ag_i_alloc_array((void **)&in, n, sizeof *in, "in-degrees")) ||
        (rc = ag_i_alloc_array((void **)&out, n, sizeof *out, "out-degrees"))) {
        ag_i_free(in);
        return rc;
    }
    for (int64_t e = 0; e < s->edges; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        out[u]++;
        in[v]++;
        if (u == v) s->self_loops++;
    }
    int64_t total_sum = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t d = in[i] + out[i];
        total_sum += d;
        if (i == 0 || d < s->degree_min) s->degree_min = d;
        if (i == 0 || d > s->degree_max) s->degree_max = d;
        if (s->directed) {
            if (i == 0 || in[i] < s->in_degree_min) s->in_degree_min = in[i];
            if (i == 0 || in[i] > s->in_degree_max) s->in_degree_max = in[i];
            if (i == 0 || out[i] < s->out_degree_min) s->out_degree_min = out[i];
            if (i == 0 || out[i] > s->out_degree_max) s->out_degree_max = out[i];
        }
    }
    s->degree_mean = n > 0 ? (double)total_sum / (double)n : 0.0;
    ag_i_free(in);
    ag_i_free(out);
    return AG_SUCCESS;
}

/* Multi-edges from the in-neighbour CSR, whose rows are sorted by source: a repeated source in a
 * row is a repeated edge. An undirected edge {u, v} sits in two rows; only the row of the larger
 * endpoint (source <= destination) counts it. */
static ag_error_t summarize_multi_edges(const igraph_t *ig, ag_graph_summary_t *s) {
    ag_graph_t csr;
    AG_CHECK(ag_graph_from_igraph(&csr, ig));
    int64_t multi = 0;
    for (int64_t d = 0; d < csr.n_nodes; d++) {
        int64_t prev = -1;
        for (int64_t k = csr.indptr[d]; k < csr.indptr[d + 1]; k++) {
            const int64_t src = csr.src[k];
            if (!csr.directed && src > d) break;
            if (src == prev) multi++;
            prev = src;
        }
    }
    s->multi_edges = multi;
    ag_graph_destroy(&csr);
    return AG_SUCCESS;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Fills one attribute's statistics. Inside the igraph guard; destroys what it initialises. */
static ag_error_t summarize_attr(const igraph_t *ig, ag_attr_summary_t *a) {
    const int is_graph = a->kind == AG_ATTR_GRAPH;
    const int is_vertex = a->kind == AG_ATTR_VERTEX;
    igraph_error_t irc = IGRAPH_SUCCESS;
    ag_error_t rc = AG_SUCCESS;

    if (a->type == AG_ATTR_NUMERIC) {
        igraph_vector_t v;
        if ((irc = igraph_vector_init(&v, 0))) goto igraph_failed;
        if (is_graph) irc = igraph_vector_push_back(&v, igraph_cattribute_GAN(ig, a->name));
        else if (is_vertex) irc = igraph_cattribute_VANV(ig, a->name, igraph_vss_all(), &v);
        else irc = igraph_cattribute_EANV(ig, a->name, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v);
        if (!irc) {
            for (igraph_integer_t i = 0; i < igraph_vector_size(&v); i++) {
                const double x = VECTOR(v)[i];
                if (isnan(x)) {
                    a->missing++;
                } else if (!a->has_example) {
                    a->has_example = 1;
                    a->number = x;
                }
            }
            a->feature_width = is_graph ? 0 : 1;
        }
        igraph_vector_destroy(&v);
        if (irc) goto igraph_failed;
    } else if (a->type == AG_ATTR_BOOLEAN) {
        igraph_vector_bool_t v;
        if ((irc = igraph_vector_bool_init(&v, 0))) goto igraph_failed;
        if (is_graph) irc = igraph_vector_bool_push_back(&v, igraph_cattribute_GAB(ig, a->name));
        else if (is_vertex) irc = igraph_cattribute_VABV(ig, a->name, igraph_vss_all(), &v);
        else irc = igraph_cattribute_EABV(ig, a->name, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v);
        if (!irc && igraph_vector_bool_size(&v) > 0) {
            a->has_example = 1;
            a->number = VECTOR(v)[0] ? 1.0 : 0.0;
        }
        if (!irc) a->feature_width = is_graph ? 0 : 1;
        igraph_vector_bool_destroy(&v);
        if (irc) goto igraph_failed;
    } else {
        igraph_strvector_t v;
        const char **sorted = NULL; /* (count) non-missing values, sorted to count distinct ones */
        if ((irc = igraph_strvector_init(&v, 0))) goto igraph_failed;
        if (is_graph) irc = igraph_strvector_push_back(&v, igraph_cattribute_GAS(ig, a->name));
        else if (is_vertex) irc = igraph_cattribute_VASV(ig, a->name, igraph_vss_all(), &v);
        else irc = igraph_cattribute_EASV(ig, a->name, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v);
        if (!irc) {
            const int64_t count = igraph_strvector_size(&v);
            rc = ag_i_alloc_array((void **)&sorted, count, sizeof *sorted, "string attribute values");
            int64_t present = 0;
            for (int64_t i = 0; !rc && i < count; i++) {
                const char *x = igraph_strvector_get(&v, i);
                if (!x || !x[0]) {
                    a->missing++;
                    continue;
                }
                if (!a->has_example) {
                    a->has_example = 1;
                    if (!(a->string = ag_i_strdup(x)))
                        rc = AG_ERROR(AG_ENOMEM, "out of memory copying attribute '%s'", a->name);
                }
                sorted[present++] = x;
            }
            if (!rc) {
                qsort(sorted, (size_t)present, sizeof *sorted, cmp_str);
                for (int64_t i = 0; i < present; i++)
                    if (i == 0 || strcmp(sorted[i], sorted[i - 1])) a->distinct++;
                a->feature_width = is_graph ? 0 : a->distinct + 1;
            }
        }
        ag_i_free(sorted);
        igraph_strvector_destroy(&v);
        if (irc) goto igraph_failed;
    }
    return rc;

igraph_failed:
    if (irc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory in igraph reading attribute '%s'", a->name);
    return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "%s attribute '%s'", ag_attr_kind_name(a->kind),
                             a->name);
}

/* Is igraph's C attribute handler the installed one? igraph can only tell by swapping. */
static int cattribute_installed(void) {
    igraph_attribute_table_t *old = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_attribute_table(old);
    return old == &igraph_cattribute_table;
}

static ag_error_t summarize_attrs(const igraph_t *ig, ag_graph_summary_t *s) {
    igraph_strvector_t names[3];
    igraph_vector_int_t types[3];
    int inited = 0;
    igraph_error_t irc = IGRAPH_SUCCESS;
    ag_error_t rc = AG_SUCCESS;

    for (; inited < 3; inited++) {
        if ((irc = igraph_strvector_init(&names[inited], 0))) break;
        if ((irc = igraph_vector_int_init(&types[inited], 0))) {
            igraph_strvector_destroy(&names[inited]);
            break;
        }
    }
    /* Order of the output: vertex, edge, graph; igraph_cattribute_list takes graph first. */
    if (!irc) irc = igraph_cattribute_list(ig, &names[AG_ATTR_GRAPH], &types[AG_ATTR_GRAPH], &names[AG_ATTR_VERTEX],
                                           &types[AG_ATTR_VERTEX], &names[AG_ATTR_EDGE], &types[AG_ATTR_EDGE]);
    if (irc) {
        rc = irc == IGRAPH_ENOMEM ? AG_ERROR(AG_ENOMEM, "out of memory in igraph listing attributes")
                                  : ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "listing attributes");
        goto done;
    }
    int64_t total = 0;
    for (int k = 0; k < 3; k++) total += igraph_strvector_size(&names[k]);
    if ((rc = ag_i_alloc_array((void **)&s->attrs, total, sizeof *s->attrs, "attribute summaries"))) goto done;
    for (int k = 0; k < 3 && !rc; k++) {
        for (igraph_integer_t i = 0; i < igraph_strvector_size(&names[k]); i++) {
            ag_attr_summary_t *a = &s->attrs[s->n_attrs];
            a->kind = (ag_attr_kind_t)k;
            switch (VECTOR(types[k])[i]) {
            case IGRAPH_ATTRIBUTE_NUMERIC: a->type = AG_ATTR_NUMERIC; break;
            case IGRAPH_ATTRIBUTE_BOOLEAN: a->type = AG_ATTR_BOOLEAN; break;
            case IGRAPH_ATTRIBUTE_STRING: a->type = AG_ATTR_STRING; break;
            default: continue; /* the C handler only holds the three types above */
            }
            if (!(a->name = ag_i_strdup(igraph_strvector_get(&names[k], i)))) {
                rc = AG_ERROR(AG_ENOMEM, "out of memory copying an attribute name");
                break;
            }
            s->n_attrs++; /* counted before filling so that destroy frees a half-filled entry */
            if ((rc = summarize_attr(ig, a))) break;
        }
    }
done:
    for (int k = 0; k < inited; k++) {
        igraph_strvector_destroy(&names[k]);
        igraph_vector_int_destroy(&types[k]);
    }
    return rc;
}

ag_error_t ag_graph_summarize(const igraph_t *ig, ag_graph_summary_t *summary) {
    memset(summary, 0, sizeof *summary);
    if (!ig) return AG_ERROR(AG_EINVAL, "ag_graph_summarize: graph is NULL");
    ag_i_igraph_enter();
    summary->nodes = (int64_t)igraph_vcount(ig);
    summary->edges = (int64_t)igraph_ecount(ig);
    summary->directed = igraph_is_directed(ig) ? 1 : 0;
    ag_i_igraph_leave();

    ag_error_t rc;
    if ((rc = summarize_degrees(ig, summary)) || (rc = summarize_multi_edges(ig, summary))) goto fail;

    igraph_integer_t components = 0;
    ag_i_igraph_enter();
    igraph_error_t irc = igraph_connected_components(ig, NULL, NULL, &components, IGRAPH_WEAK);
    ag_i_igraph_leave();
    if (irc) {
        rc = irc == IGRAPH_ENOMEM ? AG_ERROR(AG_ENOMEM, "out of memory in igraph counting components")
                                  : ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "counting components");
        goto fail;
    }
    summary->components = (int64_t)components;

    ag_i_igraph_enter();
    const int has_attrs = igraph_has_attribute_table() && ig->attr && cattribute_installed();
    rc = has_attrs ? summarize_attrs(ig, summary) : AG_SUCCESS;
    ag_i_igraph_leave();
    if (rc) goto fail;
    return AG_SUCCESS;

fail:
    ag_graph_summary_destroy(summary);
    return rc;
}
