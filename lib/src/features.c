/*
 * features.c: the featuriser, from igraph attributes and structure to float32 feature matrices.
 */
#include <float.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/features.h"
#include "attngraph/posenc.h"
#include "colstats.h"
#include "internal.h"
#include "json.h"
#include "name_index.h"
#include "featurizer_json.h"

#define FEATURIZER_FORMAT "attngraph.featurizer"
/* Version 2: Laplacian PE columns scaled by sqrt(N) (lap_pe_scaled). A featuriser without
 * Laplacian columns is written as version 1, which it is exactly, so that such model files stay
 * readable by earlier attn-graph versions; one with scaled columns as version 2, which they refuse
 * rather than featurise differently. */
#define FEATURIZER_VERSION 3
/* Version 3: edge columns standardised ("edge_mean", "edge_std"); written only by a featuriser
 * that has them, so that earlier versions refuse it rather than read raw edge values. */
/* Upper bound on PE sizes and vocabulary sizes accepted from a model file. */
#define MAX_K 1000000

/* "id", then attn-graph's own outputs (ag_featurizer_output_patterns) */
static const char *const default_exclude[] = {"id",       "pred",          "prob*",
                                              "attnL*",   "selfAttnL*",    "attnToTokenL*",
                                              "tokenAttnL*"};

void ag_featurizer_config_init(ag_featurizer_config_t *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->vertex_select = AG_SELECT_ALL;
    cfg->edge_select = AG_SELECT_ALL;
    cfg->exclude = default_exclude;
    cfg->n_exclude = (int64_t)(sizeof default_exclude / sizeof *default_exclude);
    cfg->norm = AG_NORM_NONE;
}

int64_t ag_featurizer_output_patterns(const char *const **patterns) {
    *patterns = default_exclude + 1;
    return (int64_t)(sizeof default_exclude / sizeof *default_exclude) - 1;
}

int64_t ag_featurizer_attr_width(ag_attr_type_t type, int64_t distinct_values) {
    return type == AG_ATTR_STRING ? distinct_values + 1 : 1;
}

static const char *kind_name(ag_attr_type_t type) { return ag_attr_type_name(type); }

static const char *elem_name(int is_edge) { return is_edge ? "edge" : "vertex"; }

static void free_attr(ag_feature_attr_t *a) {
    ag_i_free(a->name);
    for (int64_t i = 0; i < a->vocab_size; i++) ag_i_free(a->vocab[i]);
    ag_i_free(a->vocab);
    memset(a, 0, sizeof *a);
}

void ag_featurizer_destroy(ag_featurizer_t *f) {
    if (!f) return;
    for (int64_t i = 0; i < f->n_vattrs; i++) free_attr(&f->vattrs[i]);
    for (int64_t i = 0; i < f->n_eattrs; i++) free_attr(&f->eattrs[i]);
    ag_i_free(f->vattrs);
    ag_i_free(f->eattrs);
    ag_i_free(f->mean);
    ag_i_free(f->std);
    ag_i_free(f->edge_mean);
    ag_i_free(f->edge_std);
    ag_i_strings_free(f->names, f->n_features);
    ag_i_strings_free(f->edge_names, f->n_edge_features);
    ag_i_strings_free(f->left_out, f->n_left_out);
    memset(f, 0, sizeof *f);
}

static int64_t degree_cols(const ag_featurizer_t *f) { return f->degree ? ag_posenc_degree_width(f->directed) : 0; }

/* Columns the normalisation statistics cover: attributes and degree. */
static int64_t stat_cols(const ag_featurizer_t *f) { return f->n_attr_features + degree_cols(f); }

static ag_error_t dup_name(char **out, const char *fmt1, const char *a, const char *b) {
    int len = snprintf(NULL, 0, fmt1, a, b);
    *out = ag_i_malloc((size_t)len + 1);
    if (!*out) return AG_ERROR(AG_ENOMEM, "out of memory for a feature column name");
    snprintf(*out, (size_t)len + 1, fmt1, a, b);
    return AG_SUCCESS;
}

static ag_error_t attr_names(ag_feature_attr_t *attrs, int64_t n, char **names) {
    for (int64_t i = 0; i < n; i++) {
        ag_feature_attr_t *a = &attrs[i];
        if (a->type != AG_ATTR_STRING) {
            AG_CHECK(dup_name(&names[a->offset], "%s%s", a->name, ""));
            continue;
        }
        for (int64_t v = 0; v < a->vocab_size; v++) AG_CHECK(dup_name(&names[a->offset + v], "%s=%s", a->name, a->vocab[v]));
        AG_CHECK(dup_name(&names[a->offset + a->vocab_size], "%s=%s", a->name, "<other>"));
    }
    return AG_SUCCESS;
}

/* From the attributes (with vocabularies) and structural settings: offsets, widths, F, Fe and
 * the column names. Shared by fit and from_json so both lay out columns the same way. */
static ag_error_t layout(ag_featurizer_t *f) {
    int64_t off = 0;
    for (int64_t i = 0; i < f->n_vattrs; i++) {
        f->vattrs[i].offset = off;
        f->vattrs[i].width = ag_featurizer_attr_width(f->vattrs[i].type, f->vattrs[i].vocab_size);
        off += f->vattrs[i].width;
    }
    f->n_attr_features = off;
    f->n_features = off + degree_cols(f) + f->lap_pe_k + f->rw_pe_k;
    off = 0;
    for (int64_t i = 0; i < f->n_eattrs; i++) {
        f->eattrs[i].offset = off;
        f->eattrs[i].width = ag_featurizer_attr_width(f->eattrs[i].type, f->eattrs[i].vocab_size);
        off += f->eattrs[i].width;
    }
    f->n_edge_features = off;
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, f->n_features, sizeof(char *), "feature column names"));
    f->names = p;
    AG_CHECK(ag_i_alloc_array(&p, f->n_edge_features, sizeof(char *), "edge feature column names"));
    f->edge_names = p;
    AG_CHECK(attr_names(f->vattrs, f->n_vattrs, f->names));
    AG_CHECK(attr_names(f->eattrs, f->n_eattrs, f->edge_names));
    int64_t j = f->n_attr_features;
    if (f->degree) {
        if (f->directed) {
            AG_CHECK(dup_name(&f->names[j++], "%s%s", "in_degree", ""));
            AG_CHECK(dup_name(&f->names[j++], "%s%s", "out_degree", ""));
        } else {
            AG_CHECK(dup_name(&f->names[j++], "%s%s", "degree", ""));
        }
    }
    char num[32];
    for (int64_t t = 1; t <= f->lap_pe_k; t++) {
        snprintf(num, sizeof num, "%lld", (long long)t);
        AG_CHECK(dup_name(&f->names[j++], "lap_pe.%s%s", num, ""));
    }
    for (int64_t t = 1; t <= f->rw_pe_k; t++) {
        snprintf(num, sizeof num, "%lld", (long long)t);
        AG_CHECK(dup_name(&f->names[j++], "rw_pe.%s%s", num, ""));
    }
    return AG_SUCCESS;
}

const char *ag_featurizer_column_name(const ag_featurizer_t *f, int64_t j) {
    if (!f || j < 0 || j >= f->n_features || !f->names) return NULL;
    return f->names[j];
}

const char *ag_featurizer_edge_column_name(const ag_featurizer_t *f, int64_t j) {
    if (!f || j < 0 || j >= f->n_edge_features || !f->edge_names) return NULL;
    return f->edge_names[j];
}

/* ---- reading attributes from igraph ---- */

/* The vertex or edge attributes of a graph: names and igraph types in igraph's order, and an index
 * by name. A graph's A attributes are each looked up once or twice per graph (select, encode):
 * a linear search made that A^2 per graph. */
typedef struct attr_list_t {
    igraph_strvector_t names;
    igraph_vector_int_t types;
    ag_i_name_index_t index; /* (A) the names, positions those in names */
    int made;                /* attr_list_get() succeeded: the three above are to be destroyed */
} attr_list_t;

static ag_error_t attr_list_get(const igraph_t *ig, int is_edge, attr_list_t *l) {
    igraph_strvector_t gn, vn, en;
    igraph_vector_int_t gt, vt, et;
    igraph_error_t rc;
    ag_i_igraph_enter();
    /* igraph initialises nothing for us: six containers, destroyed in reverse on failure. */
    rc = igraph_strvector_init(&gn, 0);
    if (rc == IGRAPH_SUCCESS && (rc = igraph_strvector_init(&vn, 0)) != IGRAPH_SUCCESS) igraph_strvector_destroy(&gn);
    if (rc == IGRAPH_SUCCESS && (rc = igraph_strvector_init(&en, 0)) != IGRAPH_SUCCESS) {
        igraph_strvector_destroy(&vn);
        igraph_strvector_destroy(&gn);
    }
    if (rc == IGRAPH_SUCCESS && (rc = igraph_vector_int_init(&gt, 0)) != IGRAPH_SUCCESS) {
        igraph_strvector_destroy(&en);
        igraph_strvector_destroy(&vn);
        igraph_strvector_destroy(&gn);
    }
    if (rc == IGRAPH_SUCCESS && (rc = igraph_vector_int_init(&vt, 0)) != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&gt);
        igraph_strvector_destroy(&en);
        igraph_strvector_destroy(&vn);
        igraph_strvector_destroy(&gn);
    }
    if (rc == IGRAPH_SUCCESS && (rc = igraph_vector_int_init(&et, 0)) != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&vt);
        igraph_vector_int_destroy(&gt);
        igraph_strvector_destroy(&en);
        igraph_strvector_destroy(&vn);
        igraph_strvector_destroy(&gn);
    }
    if (rc != IGRAPH_SUCCESS) {
        ag_i_igraph_leave();
        return AG_ERROR(AG_ENOMEM, "out of memory listing attributes");
    }
    /* Without igraph's attribute handler (or for a graph made before it was installed) there are
     * no attributes, and igraph_cattribute_list would dereference a NULL table: empty lists. */
    if (igraph_has_attribute_table() && ig->attr) rc = igraph_cattribute_list(ig, &gn, &gt, &vn, &vt, &en, &et);
    igraph_strvector_destroy(&gn);
    igraph_vector_int_destroy(&gt);
    if (is_edge) {
        l->names = en;
        l->types = et;
        igraph_strvector_destroy(&vn);
        igraph_vector_int_destroy(&vt);
    } else {
        l->names = vn;
        l->types = vt;
        igraph_strvector_destroy(&en);
        igraph_vector_int_destroy(&et);
    }
    l->made = 0;
    l->index = (ag_i_name_index_t){0, NULL};
    if (rc == IGRAPH_SUCCESS) {
        const int64_t A = igraph_strvector_size(&l->names);
        if (ag_i_name_index_init(&l->index, A, "attribute index") != AG_SUCCESS) rc = IGRAPH_ENOMEM;
        for (int64_t i = 0; rc == IGRAPH_SUCCESS && i < A; i++)
            ag_i_name_index_put(&l->index, i, igraph_strvector_get(&l->names, i));
        /* a name listed twice answers with its first entry (the index finds the smallest
         * position), as a search in igraph's order did */
        if (rc == IGRAPH_SUCCESS) ag_i_name_index_sort(&l->index);
        l->made = rc == IGRAPH_SUCCESS;
    }
    if (rc != IGRAPH_SUCCESS) {
        ag_i_name_index_destroy(&l->index);
        igraph_strvector_destroy(&l->names);
        igraph_vector_int_destroy(&l->types);
    }
    ag_i_igraph_leave();
    if (rc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory listing attributes");
    if (rc != IGRAPH_SUCCESS)
        return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__,
                                 "listing %s attributes (is igraph's C attribute handler installed?)", elem_name(is_edge));
    return AG_SUCCESS;
}

static void attr_list_destroy(attr_list_t *l) {
    ag_i_name_index_destroy(&l->index);
    l->made = 0;
    ag_i_igraph_enter();
    igraph_strvector_destroy(&l->names);
    igraph_vector_int_destroy(&l->types);
    ag_i_igraph_leave();
}

static const char *attr_list_name(const attr_list_t *l, int64_t i) {
    ag_i_igraph_enter();
    const char *s = igraph_strvector_get(&l->names, i);
    ag_i_igraph_leave();
    return s;
}

/* -1 if absent; else the igraph type. */
static int attr_list_type(const attr_list_t *l, const char *name) {
    const int64_t at = ag_i_name_index_find(&l->index, name);
    return at >= 0 ? (int)VECTOR(l->types)[at] : -1;
}

static int usable_kind(int igraph_type, ag_attr_type_t *kind) {
    switch (igraph_type) {
    case IGRAPH_ATTRIBUTE_NUMERIC: *kind = AG_ATTR_NUMERIC; return 1;
    case IGRAPH_ATTRIBUTE_STRING: *kind = AG_ATTR_STRING; return 1;
    case IGRAPH_ATTRIBUTE_BOOLEAN: *kind = AG_ATTR_BOOLEAN; return 1;
    default: return 0;
    }
}

static const char *igraph_type_name(int t) {
    switch (t) {
    case IGRAPH_ATTRIBUTE_NUMERIC: return "numeric";
    case IGRAPH_ATTRIBUTE_STRING: return "string";
    case IGRAPH_ATTRIBUTE_BOOLEAN: return "boolean";
    default: return "of a non-scalar type";
    }
}

static int64_t elem_count(const igraph_t *ig, int is_edge) {
    ag_i_igraph_enter();
    int64_t n = is_edge ? (int64_t)igraph_ecount(ig) : (int64_t)igraph_vcount(ig);
    ag_i_igraph_leave();
    return n;
}

static int graph_directed(const igraph_t *ig) {
    ag_i_igraph_enter();
    int d = igraph_is_directed(ig) ? 1 : 0;
    ag_i_igraph_leave();
    return d;
}

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Column index of value s in the sorted vocabulary, or vocab_size (the "<other>" slot). */
static int64_t vocab_index(const ag_feature_attr_t *a, const char *s) {
    const char *key = s;
    char **hit = a->vocab_size ? bsearch(&key, a->vocab, (size_t)a->vocab_size, sizeof(char *), cmp_str_ptr) : NULL;
    return hit ? (int64_t)(hit - a->vocab) : a->vocab_size;
}

static ag_error_t read_error(igraph_error_t rc, const char *el, const char *name) {
    if (rc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory reading %s attribute '%s'", el, name);
    return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "reading %s attribute '%s'", el, name);
}

/* The name under which the graph of list l holds the model's attribute `name` (as graph_name()
 * returns it), or NULL: the name itself, else the name without the bytes other than ASCII letters
 * and digits, which is how igraph's GML writer keys it ("atomic_num" becomes "atomicnum", so a
 * molecule that attn-graph label or explain, or any igraph program, wrote as GML would otherwise
 * no longer fit the model that labelled it). buf (cap bytes) holds that second form. */
static const char *graph_name(const attr_list_t *l, const char *name, char *buf, size_t cap) {
    if (attr_list_type(l, name) >= 0) return name;
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < cap; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) buf[n++] = *c;
    buf[n] = '\0';
    return n > 0 && strcmp(buf, name) != 0 && attr_list_type(l, buf) >= 0 ? buf : NULL;
}

/* The values of string attribute `name` of every vertex (or edge) of ig into v, initialised here;
 * the caller destroys it (inside the igraph guard). */
static ag_error_t read_strings(const igraph_t *ig, int is_edge, const char *name, igraph_strvector_t *v) {
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_init(v, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = is_edge ? igraph_cattribute_EASV(ig, name, igraph_ess_all(IGRAPH_EDGEORDER_ID), v)
                     : igraph_cattribute_VASV(ig, name, igraph_vss_all(), v);
        if (rc != IGRAPH_SUCCESS) igraph_strvector_destroy(v);
    }
    ag_i_igraph_leave();
    return rc == IGRAPH_SUCCESS ? AG_SUCCESS : read_error(rc, elem_name(is_edge), name);
}

/* (ag_i_vertex_own_key: internal.h) */
void ag_i_vertex_own_key(const igraph_t *ig, int64_t v, char *buf, size_t cap) {
    static const char *const keys[2] = {"id", "name"};
    buf[0] = '\0';
    ag_i_igraph_enter();
    for (int k = 0; k < 2 && !buf[0]; k++) {
        igraph_attribute_type_t t;
        if (!igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, keys[k]) ||
            igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_VERTEX, keys[k]) != IGRAPH_SUCCESS)
            continue;
        if (t == IGRAPH_ATTRIBUTE_STRING) {
            const char *s = VAS(ig, keys[k], v);
            char index[24];
            snprintf(index, sizeof index, "%lld", (long long)v);
            /* not UTF-8 text, a message cannot show it; the index itself ("0" at 0), it adds nothing */
            if (!ag_utf8_valid(s, NULL) || !strcmp(s, index)) continue;
            int len = (int)strnlen(s, 60);
            while (len > 0 && (s[len] & 0xC0) == 0x80) len--; /* not inside a UTF-8 character */
            if (s[0]) snprintf(buf, cap, " (%s '%.*s')", keys[k], len, s);
        } else if (t == IGRAPH_ATTRIBUTE_NUMERIC && k == 0) {
            double x = VAN(ig, keys[k], v);
            if (x == x && x != (double)v) snprintf(buf, cap, " (id %.10g)", x);
        }
    }
    ag_i_igraph_leave();
}

/* Writes attribute a of every vertex (or edge) of ig, which holds it as gname (graph_name()), into
 * out (rows x ld) at columns a->offset..
 * The caller has checked that the attribute exists with the type `data`: a's own, or numeric for
 * a boolean a (igraph's GML writer stores booleans as 0/1, so a graph a model labelled and wrote
 * to GML is read back that way), whose values must then be 0 or 1, or boolean for a numeric a,
 * read as 0/1 (a GML-trained molecule model given GraphML whose writer, networkx for one, typed
 * Python's True/False flags as booleans: one column either way). */
static ag_error_t encode_attr(const igraph_t *ig, int is_edge, const ag_feature_attr_t *a, const char *gname,
                              ag_attr_type_t data, int64_t rows, float *out, int64_t ld, int fitting) {
    igraph_error_t rc;
    const char *el = elem_name(is_edge);
    if (data == AG_ATTR_NUMERIC) {
        igraph_vector_t v;
        ag_i_igraph_enter();
        rc = igraph_vector_init(&v, 0);
        if (rc == IGRAPH_SUCCESS) {
            rc = is_edge ? igraph_cattribute_EANV(ig, gname, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v)
                         : igraph_cattribute_VANV(ig, gname, igraph_vss_all(), &v);
            if (rc != IGRAPH_SUCCESS) igraph_vector_destroy(&v);
        }
        ag_i_igraph_leave();
        if (rc != IGRAPH_SUCCESS) return read_error(rc, el, gname);
        ag_error_t err = AG_SUCCESS;
        char key[96];
        for (int64_t r = 0; r < rows; r++) {
            double x = VECTOR(v)[r];
            int bad_bool = a->type == AG_ATTR_BOOLEAN && x != 0.0 && x != 1.0;
            if (bad_bool || !(fabs(x) <= FLT_MAX)) {
                if (is_edge) key[0] = '\0';
                else ag_i_vertex_own_key(ig, r, key, sizeof key);
            }
            if (bad_bool) {
                err = AG_ERROR(AG_EATTR, "numeric %s attribute '%s' is %g on %s %lld%s (the model expects boolean %s "
                               "attribute '%s': true/false, or 0/1 as GML stores booleans)", el, gname, x, el,
                               (long long)r, key, el, a->name);
                break;
            }
            if (isnan(x)) {
                err = AG_ERROR(AG_EVALUE, "numeric %s attribute '%s' is missing on %s %lld%s (NaN; every %s needs a "
                               "number)", el, gname, el, (long long)r, key, el);
                break;
            }
            if (!(fabs(x) <= FLT_MAX)) {
                err = AG_ERROR(AG_EVALUE, "numeric %s attribute '%s' is %s on %s %lld%s", el, gname,
                               isinf(x) ? "infinite" : "out of float32 range", el, (long long)r, key);
                break;
            }
            out[r * ld + a->offset] = (float)x;
        }
        ag_i_igraph_enter();
        igraph_vector_destroy(&v);
        ag_i_igraph_leave();
        return err;
    }
    if (data == AG_ATTR_BOOLEAN) {
        igraph_vector_bool_t v;
        ag_i_igraph_enter();
        rc = igraph_vector_bool_init(&v, 0);
        if (rc == IGRAPH_SUCCESS) {
            rc = is_edge ? igraph_cattribute_EABV(ig, gname, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v)
                         : igraph_cattribute_VABV(ig, gname, igraph_vss_all(), &v);
            if (rc != IGRAPH_SUCCESS) igraph_vector_bool_destroy(&v);
        }
        ag_i_igraph_leave();
        if (rc != IGRAPH_SUCCESS) return read_error(rc, el, gname);
        for (int64_t r = 0; r < rows; r++) out[r * ld + a->offset] = VECTOR(v)[r] ? 1.0f : 0.0f;
        ag_i_igraph_enter();
        igraph_vector_bool_destroy(&v);
        ag_i_igraph_leave();
        return AG_SUCCESS;
    }
    igraph_strvector_t v;
    AG_CHECK(read_strings(ig, is_edge, gname, &v));
    ag_i_igraph_enter();
    int64_t empty = 0;
    for (int64_t r = 0; r < rows; r++) {
        const char *x = igraph_strvector_get(&v, r);
        /* "" is a missing value (what GML and GraphML give an element without it), not a value
         * outside the vocabulary: the 'other' column would tell the model "some rare atom" where
         * nothing is known, so the block stays zero */
        if (x[0] == '\0') {
            empty++;
            continue;
        }
        out[r * ld + a->offset + vocab_index(a, x)] = 1.0f;
    }
    igraph_strvector_destroy(&v);
    ag_i_igraph_leave();
    /* On every element the attribute is not there at all, and the model would predict from rows
     * it never saw this empty. A model fitted on nothing but "" (a GraphML key declared without
     * values) saw exactly that: it takes it. */
    if (!fitting && empty == rows && a->vocab_size > 0)
        return AG_ERROR(AG_EATTR, "%s attribute '%s' is empty on every %s: it is missing (the model expects string %s "
                        "attribute '%s')", el, gname, el, el, a->name);
    return AG_SUCCESS;
}

/* What to add to "attribute 'x' is missing" when the graph carries no attributes at all because
 * igraph's attribute handler was not installed when it was built or read (igraph then drops every
 * attribute of a GML file silently, and SETVAN cannot set one): "" otherwise. */
static const char *no_handler_hint(const igraph_t *ig) {
    if (igraph_has_attribute_table() && ig->attr) return "";
    return "; the graph carries no attributes at all: it was built or read before igraph's attribute "
           "handler was installed (call igraph_set_attribute_table(&igraph_cattribute_table) first)";
}

/* Encodes all attributes of one kind of element into out (rows x ld, zero-filled by the caller),
 * checking first that each exists with the fitted type. fitting: a value that cannot be encoded
 * (NaN, infinite) comes with the way to train without its attribute; at prediction the model
 * needs it. */
static ag_error_t encode_attrs(const igraph_t *ig, int is_edge, const ag_feature_attr_t *attrs, int64_t n_attrs,
                               int64_t rows, float *out, int64_t ld, int fitting) {
    if (n_attrs == 0 || rows == 0) return AG_SUCCESS;
    attr_list_t l;
    AG_CHECK(attr_list_get(ig, is_edge, &l));
    ag_error_t err = AG_SUCCESS;
    for (int64_t i = 0; i < n_attrs && err == AG_SUCCESS; i++) {
        const ag_feature_attr_t *a = &attrs[i];
        char buf[256];
        const char *gname = graph_name(&l, a->name, buf, sizeof buf);
        int t = gname ? attr_list_type(&l, gname) : -1;
        ag_attr_type_t kind;
        if (t < 0)
            err = AG_ERROR(AG_EATTR, "attribute '%s' is missing (the model expects %s %s attribute '%s')%s", a->name,
                           kind_name(a->type), elem_name(is_edge), a->name, no_handler_hint(ig));
        else if (!usable_kind(t, &kind) ||
                 (kind != a->type && !(a->type == AG_ATTR_BOOLEAN && kind == AG_ATTR_NUMERIC) &&
                  !(a->type == AG_ATTR_NUMERIC && kind == AG_ATTR_BOOLEAN)))
            err = AG_ERROR(AG_EATTR, "%s attribute '%s' is %s (the model expects %s %s attribute '%s')", elem_name(is_edge),
                           gname, igraph_type_name(t), kind_name(a->type), elem_name(is_edge), a->name);
        else
            err = encode_attr(ig, is_edge, a, gname, kind, rows, out, ld, fitting);
        if (err == AG_EVALUE && fitting) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s", ag_error_message());
            err = AG_ERROR(AG_EVALUE, "%s; to train without it, leave it out (option exclude_attrs or exclude_more: "
                           "'%s')", msg, gname);
        }
    }
    attr_list_destroy(&l);
    return err;
}

/* Counts the values of string attribute a (held as gname) outside its vocabulary into *unseen,
 * keeping the first in example (cap bytes), and the empty (missing) ones into *missing. */
static ag_error_t count_values(const igraph_t *ig, int is_edge, const ag_feature_attr_t *a, const char *gname,
                               int64_t *unseen, int64_t *missing, char *example, size_t cap) {
    igraph_strvector_t v;
    AG_CHECK(read_strings(ig, is_edge, gname, &v));
    ag_i_igraph_enter();
    int64_t n = (int64_t)igraph_strvector_size(&v);
    *unseen = *missing = 0;
    for (int64_t r = 0; r < n; r++) {
        const char *s = igraph_strvector_get(&v, r);
        if (s[0] == '\0') (*missing)++;
        else if (vocab_index(a, s) == a->vocab_size && (*unseen)++ == 0) snprintf(example, cap, "%s", s);
    }
    igraph_strvector_destroy(&v);
    ag_i_igraph_leave();
    return AG_SUCCESS;
}

/* The name under which ig holds string attribute a as a string (graph_name(), in buf of cap
 * bytes), or NULL: another type or its absence is transform's error to give, not a count. */
static const char *string_name(const attr_list_t *l, const ag_feature_attr_t *a, char *buf, size_t cap) {
    const char *gname = a->type == AG_ATTR_STRING ? graph_name(l, a->name, buf, cap) : NULL;
    return gname && attr_list_type(l, gname) == IGRAPH_ATTRIBUTE_STRING ? gname : NULL;
}

ag_error_t ag_featurizer_unseen(const ag_featurizer_t *f, const igraph_t *ig, ag_unseen_t *worst) {
    if (!f || !ig || !worst) return AG_ERROR(AG_EINVAL, "ag_featurizer_unseen: NULL argument");
    memset(worst, 0, sizeof *worst);
    ag_error_t err = AG_SUCCESS;
    for (int is_edge = 0; is_edge < 2 && err == AG_SUCCESS; is_edge++) {
        const ag_feature_attr_t *attrs = is_edge ? f->eattrs : f->vattrs;
        int64_t n_attrs = is_edge ? f->n_eattrs : f->n_vattrs, total = elem_count(ig, is_edge);
        if (n_attrs == 0 || total == 0) continue;
        attr_list_t l;
        AG_CHECK(attr_list_get(ig, is_edge, &l));
        for (int64_t i = 0; i < n_attrs && err == AG_SUCCESS; i++) {
            const ag_feature_attr_t *a = &attrs[i];
            char buf[256];
            const char *gname = string_name(&l, a, buf, sizeof buf);
            if (!gname) continue;
            int64_t count = 0, missing = 0;
            char example[sizeof worst->example];
            err = count_values(ig, is_edge, a, gname, &count, &missing, example, sizeof example);
            /* count / total > worst->count / worst->total, without division */
            if (err == AG_SUCCESS && count > 0 && (!worst->attr || count * worst->total > worst->count * total)) {
                worst->attr = a->name;
                worst->is_edge = is_edge;
                worst->count = count;
                worst->total = total;
                memcpy(worst->example, example, sizeof example);
            }
        }
        attr_list_destroy(&l);
    }
    if (err != AG_SUCCESS) memset(worst, 0, sizeof *worst);
    return err;
}

ag_error_t ag_featurizer_missing(const ag_featurizer_t *f, const igraph_t *ig, int is_edge, int64_t i,
                                 int64_t *count) {
    if (count) *count = 0;
    if (!f || !ig || !count) return AG_ERROR(AG_EINVAL, "ag_featurizer_missing: NULL argument");
    const int64_t n_attrs = is_edge ? f->n_eattrs : f->n_vattrs;
    if (i < 0 || i >= n_attrs)
        return AG_ERROR(AG_EINVAL, "ag_featurizer_missing: %s attribute %lld of %lld", elem_name(is_edge),
                        (long long)i, (long long)n_attrs);
    const ag_feature_attr_t *a = is_edge ? &f->eattrs[i] : &f->vattrs[i];
    if (a->type != AG_ATTR_STRING || elem_count(ig, is_edge) == 0) return AG_SUCCESS;
    attr_list_t l;
    AG_CHECK(attr_list_get(ig, is_edge, &l));
    char buf[256], example[2];
    const char *gname = string_name(&l, a, buf, sizeof buf);
    int64_t unseen = 0;
    ag_error_t err = gname ? count_values(ig, is_edge, a, gname, &unseen, count, example, sizeof example) : AG_SUCCESS;
    attr_list_destroy(&l);
    if (err != AG_SUCCESS) *count = 0;
    return err;
}

/* Not only the degree columns: the attention masks and the positional encodings read a directed
 * graph's edges one way, so its predictions would be confidently wrong. */
static ag_error_t check_direction(const ag_featurizer_t *f, const igraph_t *ig) {
    static const char *const why[2] = {
            "the graph is directed but the model was trained on undirected graphs (edges would be read one way); "
            "give it as undirected (GML 'directed 0', GraphML edgedefault=\"undirected\"; an edge list, NCOL, LGL, "
            "DIMACS or DL file: read it as undirected)",
            "the graph is undirected but the model was trained on directed graphs (edges would be read both ways); "
            "give it as directed (GML 'directed 1', GraphML edgedefault=\"directed\"; an edge list, NCOL, LGL, DIMACS "
            "or DL file: read it as directed)"};
    if (graph_directed(ig) != f->directed) return AG_ERROR(AG_EMISMATCH, "%s", why[f->directed ? 1 : 0]);
    return AG_SUCCESS;
}

/* X's attribute and degree columns, unnormalised; PE columns stay zero. */
static ag_error_t transform_raw(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *X, int fitting) {
    int64_t n = elem_count(ig, 0);
    AG_CHECK(check_direction(f, ig));
    AG_CHECK(ag_fmat_init(X, n, f->n_features));
    ag_error_t err = encode_attrs(ig, 0, f->vattrs, f->n_vattrs, n, X->data, f->n_features, fitting);
    if (err == AG_SUCCESS && f->degree && n > 0) {
        ag_fmat_t d = {0};
        err = ag_posenc_degree(ig, &d);
        if (err == AG_SUCCESS)
            for (int64_t r = 0; r < n; r++)
                for (int64_t c = 0; c < d.cols; c++) X->data[r * f->n_features + f->n_attr_features + c] = d.data[r * d.cols + c];
        ag_fmat_destroy(&d);
    }
    if (err != AG_SUCCESS) ag_fmat_destroy(X);
    return err;
}

static void put_block(ag_fmat_t *X, int64_t col0, const ag_fmat_t *B) {
    for (int64_t r = 0; r < B->rows; r++)
        for (int64_t c = 0; c < B->cols; c++) X->data[r * X->cols + col0 + c] = B->data[r * B->cols + c];
}

void ag_featurizer_lap_columns(const ag_featurizer_t *f, int64_t *col0, int64_t *n) {
    *col0 = stat_cols(f);
    *n = f->lap_pe_k;
}

/* x (rows x cols, row stride ld) standardised in place with the fitted statistics of the vertex
 * or edge columns. A float32 value far enough from the fitted mean overflows in standard
 * deviations (1e38 against a std of 0.1): refused, naming the column and the row, since the model
 * cannot read it (an infinity reached a prediction unnoticed). */
static ag_error_t standardise(const ag_featurizer_t *f, int edges, float *x, int64_t rows, int64_t cols, int64_t ld) {
    const float *mean = edges ? f->edge_mean : f->mean, *sd = edges ? f->edge_std : f->std;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            const float raw = x[r * ld + c], z = (raw - mean[c]) / sd[c];
            if (!isfinite(z)) {
                const char *name = edges ? ag_featurizer_edge_column_name(f, c) : ag_featurizer_column_name(f, c);
                return AG_ERROR(AG_EVALUE, "%sfeature column '%s' is %g on %s %lld: beyond float32 in training "
                                "standard deviations (mean %g, std %g), more than the model can read",
                                edges ? "edge " : "", name ? name : "?", (double)raw, edges ? "edge" : "vertex",
                                (long long)r, (double)mean[c], (double)sd[c]);
            }
            x[r * ld + c] = z;
        }
    return AG_SUCCESS;
}

/* The edge features (E x Fe) of ig into *e (uninitialised), standardised as fitted. */
static ag_error_t edge_features(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *e) {
    int64_t m = elem_count(ig, 1);
    AG_CHECK(ag_fmat_init(e, m, f->n_edge_features));
    /* A graph without edges has no edge attributes in igraph: 0 rows, nothing to check. */
    ag_error_t err = encode_attrs(ig, 1, f->eattrs, f->n_eattrs, m, e->data, f->n_edge_features, 0);
    const int64_t Fe = f->n_edge_features;
    if (err == AG_SUCCESS && f->edge_mean) err = standardise(f, 1, e->data, m, Fe, Fe);
    if (err != AG_SUCCESS) ag_fmat_destroy(e);
    return err;
}

ag_error_t ag_featurizer_transform_edges(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *Ee) {
    if (!f || !ig || !Ee) return AG_ERROR(AG_EINVAL, "ag_featurizer_transform_edges: NULL argument");
    AG_CHECK(check_direction(f, ig));
    ag_fmat_t e = {0};
    AG_CHECK(edge_features(f, ig, &e));
    ag_fmat_destroy(Ee);
    *Ee = e;
    return AG_SUCCESS;
}

ag_error_t ag_featurizer_transform(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *X, ag_fmat_t *Ee) {
    if (!f || !ig || !X) return AG_ERROR(AG_EINVAL, "ag_featurizer_transform: NULL argument");
    ag_fmat_t x, e = {0}, pe = {0};
    AG_CHECK(transform_raw(f, ig, &x, 0));
    int64_t n = x.rows, F = f->n_features;
    ag_error_t err = AG_SUCCESS;
    int64_t col = stat_cols(f);
    if (f->lap_pe_k > 0) {
        err = ag_posenc_laplacian(ig, f->lap_pe_k, AG_EIGEN_AUTO, &pe);
        if (err == AG_SUCCESS && f->lap_pe_scaled) {
            float scale = sqrtf((float)pe.rows);
            for (int64_t i = 0; i < pe.rows * pe.cols; i++) pe.data[i] *= scale;
        }
        if (err == AG_SUCCESS) put_block(&x, col, &pe);
        col += f->lap_pe_k;
    }
    if (err == AG_SUCCESS && f->rw_pe_k > 0) {
        err = ag_posenc_random_walk(ig, f->rw_pe_k, &pe);
        if (err == AG_SUCCESS) put_block(&x, col, &pe);
    }
    ag_fmat_destroy(&pe);
    if (err == AG_SUCCESS && f->norm == AG_NORM_STANDARDIZE) {
        err = standardise(f, 0, x.data, n, stat_cols(f), F);
    } else if (err == AG_SUCCESS && f->norm == AG_NORM_L1_ROWS) {
        for (int64_t r = 0; r < n; r++) {
            float s = 0.0f;
            for (int64_t c = 0; c < f->n_attr_features; c++) s += fabsf(x.data[r * F + c]);
            if (s > 0.0f)
                for (int64_t c = 0; c < f->n_attr_features; c++) x.data[r * F + c] /= s;
        }
    }
    if (err == AG_SUCCESS && Ee) err = edge_features(f, ig, &e);
    if (err != AG_SUCCESS) {
        ag_fmat_destroy(&x);
        ag_fmat_destroy(&e);
        return err;
    }
    ag_fmat_destroy(X);
    *X = x;
    if (Ee) {
        ag_fmat_destroy(Ee);
        *Ee = e;
    }
    return AG_SUCCESS;
}

/* ---- fitting ---- */

static int is_pattern(const char *s) { return strpbrk(s, "*?[") != NULL; }

int ag_featurizer_config_excludes(const ag_featurizer_config_t *cfg, const char *name) {
    if (!cfg || !name) return 0;
    for (int64_t i = 0; i < cfg->n_exclude; i++)
        if (cfg->exclude[i] && fnmatch(cfg->exclude[i], name, 0) == 0) return 1;
    for (int64_t i = 0; i < cfg->n_exclude_more; i++)
        if (cfg->exclude_more[i] && fnmatch(cfg->exclude_more[i], name, 0) == 0) return 1;
    return 0;
}

/* An attribute name with its kind, being considered for selection. */
typedef struct cand_t {
    char *name;
    ag_attr_type_t type;
    int common;  /* present with this usable type in every graph that has elements */
    int64_t conflict_graph; /* first graph where it has another type, -1 if none */
    int conflict_type;      /* the igraph type there */
} cand_t;

static void cands_free(cand_t *c, int64_t n) {
    for (int64_t i = 0; i < n; i++) ag_i_free(c[i].name);
    ag_i_free(c);
}

static int cmp_cand(const void *a, const void *b) { return strcmp(((const cand_t *)a)->name, ((const cand_t *)b)->name); }

/* The attributes of the first graph with elements, sorted by name, each marked common if every
 * graph with elements has it with the same usable type; a type conflict is recorded, and is an
 * error only if the attribute is selected (an excluded attribute may disagree). */
static ag_error_t common_attrs(const igraph_t *const *graphs, int64_t count, int is_edge, cand_t **out, int64_t *n_out,
                               int64_t *first_graph) {
    cand_t *c = NULL;
    int64_t n = 0;
    *first_graph = -1;
    for (int64_t g = 0; g < count; g++) {
        if (elem_count(graphs[g], is_edge) == 0) continue;
        attr_list_t l;
        ag_error_t err = attr_list_get(graphs[g], is_edge, &l);
        if (err != AG_SUCCESS) {
            cands_free(c, n);
            return err;
        }
        if (*first_graph < 0) {
            *first_graph = g;
            int64_t m = (int64_t)igraph_strvector_size(&l.names);
            void *p;
            err = ag_i_alloc_array(&p, m, sizeof(cand_t), "attribute candidates");
            c = p;
            for (int64_t i = 0; err == AG_SUCCESS && i < m; i++) {
                ag_attr_type_t kind;
                if (!usable_kind((int)VECTOR(l.types)[i], &kind)) continue;
                c[n].name = ag_i_strdup(attr_list_name(&l, i));
                if (!c[n].name) err = AG_ERROR(AG_ENOMEM, "out of memory copying an attribute name");
                c[n].type = kind;
                c[n].common = 1;
                c[n].conflict_graph = -1;
                n++;
            }
        } else {
            for (int64_t i = 0; err == AG_SUCCESS && i < n; i++) {
                int t = attr_list_type(&l, c[i].name);
                ag_attr_type_t kind;
                if (t < 0) {
                    c[i].common = 0;
                } else if (usable_kind(t, &kind) && kind != c[i].type && kind != AG_ATTR_STRING &&
                           c[i].type != AG_ATTR_STRING) {
                    /* a boolean here, numbers there (GraphML's true/false, GML's 0/1: GML has no
                     * booleans): one numeric column, as a numeric attribute reads booleans as 0/1
                     * when the model is applied */
                    c[i].type = AG_ATTR_NUMERIC;
                } else if ((!usable_kind(t, &kind) || kind != c[i].type) && c[i].conflict_graph < 0) {
                    c[i].conflict_graph = g;
                    c[i].conflict_type = t;
                }
            }
        }
        attr_list_destroy(&l);
        if (err != AG_SUCCESS) {
            cands_free(c, n);
            return err;
        }
    }
    if (n > 1) qsort(c, (size_t)n, sizeof(cand_t), cmp_cand);
    *out = c;
    *n_out = n;
    return AG_SUCCESS;
}

/* Explains why a listed plain name cannot be used: missing from a graph, or of an unusable type. */
static ag_error_t explain_missing(const igraph_t *const *graphs, const char *const *names, int64_t count, int is_edge,
                                  const char *name) {
    for (int64_t g = 0; g < count; g++) {
        if (elem_count(graphs[g], is_edge) == 0) continue;
        attr_list_t l;
        AG_CHECK(attr_list_get(graphs[g], is_edge, &l));
        int t = attr_list_type(&l, name);
        attr_list_destroy(&l);
        ag_attr_type_t kind;
        /* one graph's callers name its file; several graphs need the index */
        char where[320] = "", label[48];
        if (count > 1)
            snprintf(where, sizeof where, " %s %s", t < 0 ? "from" : "in",
                     ag_i_item_name(names, "graph", g, label, sizeof label));
        if (t < 0)
            return AG_ERROR(AG_EATTR, "%s attribute '%s' is missing%s%s", elem_name(is_edge), name, where,
                            no_handler_hint(graphs[g]));
        if (!usable_kind(t, &kind))
            return AG_ERROR(AG_EATTR, "%s attribute '%s' is %s%s: only numeric, string and boolean attributes can be features",
                            elem_name(is_edge), name, igraph_type_name(t), where);
    }
    return AG_ERROR(AG_EATTR, "%s attribute '%s' is missing: no graph has %ss", elem_name(is_edge), name, elem_name(is_edge));
}

static int already(const ag_feature_attr_t *a, int64_t n, const char *name) {
    for (int64_t i = 0; i < n; i++)
        if (strcmp(a[i].name, name) == 0) return 1;
    return 0;
}

static ag_error_t add_attr(ag_feature_attr_t *a, int64_t *n, const cand_t *c, int is_edge, int64_t first,
                           const char *const *names) {
    if (c->conflict_graph >= 0) {
        char l1[48], l2[48];
        return AG_ERROR(AG_EATTR, "%s attribute '%s' is %s in %s but %s in %s", elem_name(is_edge), c->name,
                        igraph_type_name(c->conflict_type),
                        ag_i_item_name(names, "graph", c->conflict_graph, l1, sizeof l1), kind_name(c->type),
                        ag_i_item_name(names, "graph", first, l2, sizeof l2));
    }
    if (already(a, *n, c->name)) return AG_SUCCESS;
    if (!ag_utf8_valid(c->name, NULL)) {
        char shown[200];
        return AG_ERROR(AG_EATTR, "the name of %s attribute '%s' is not valid UTF-8: a model file stores its feature "
                        "attributes' names as UTF-8 text; convert the graph file to UTF-8 (e.g. iconv -f latin1 -t utf-8) "
                        "or leave the attribute out", elem_name(is_edge), ag_i_utf8_show(c->name, shown, sizeof shown));
    }
    a[*n].name = ag_i_strdup(c->name);
    if (!a[*n].name) return AG_ERROR(AG_ENOMEM, "out of memory copying an attribute name");
    a[*n].type = c->type;
    (*n)++;
    return AG_SUCCESS;
}

static ag_error_t select_attrs(const ag_featurizer_config_t *cfg, const igraph_t *const *graphs,
                               const char *const *names, int64_t count, int is_edge, ag_feature_attr_t **out,
                               int64_t *n_out) {
    ag_attr_select_t sel = is_edge ? cfg->edge_select : cfg->vertex_select;
    const char *const *list = is_edge ? cfg->edge_attrs : cfg->vertex_attrs;
    int64_t n_list = is_edge ? cfg->n_edge_attrs : cfg->n_vertex_attrs;
    *out = NULL;
    *n_out = 0;
    if (sel == AG_SELECT_NONE) return AG_SUCCESS;
    if (sel == AG_SELECT_LIST && (n_list < 0 || (n_list > 0 && !list)))
        return AG_ERROR(AG_EINVAL, "%s attribute list: %lld names but no array", elem_name(is_edge), (long long)n_list);
    cand_t *c;
    int64_t n, first;
    AG_CHECK(common_attrs(graphs, count, is_edge, &c, &n, &first));
    void *p;
    int64_t cap = n + (sel == AG_SELECT_LIST ? n_list : 0);
    ag_error_t err = ag_i_alloc_array(&p, cap, sizeof(ag_feature_attr_t), "feature attributes");
    ag_feature_attr_t *a = p;
    int64_t m = 0;
    if (err == AG_SUCCESS && sel == AG_SELECT_ALL) {
        for (int64_t i = 0; err == AG_SUCCESS && i < n; i++)
            if (c[i].common && !ag_featurizer_config_excludes(cfg, c[i].name)) err = add_attr(a, &m, &c[i], is_edge, first, names);
    } else if (err == AG_SUCCESS) {
        for (int64_t k = 0; err == AG_SUCCESS && k < n_list; k++) {
            const char *pat = list[k];
            if (!pat || !pat[0]) {
                err = AG_ERROR(AG_EINVAL, "%s attribute list: entry %lld is empty", elem_name(is_edge), (long long)k);
                break;
            }
            if (is_pattern(pat)) {
                int64_t hits = 0;
                for (int64_t i = 0; err == AG_SUCCESS && i < n; i++)
                    if (c[i].common && fnmatch(pat, c[i].name, 0) == 0 && !ag_featurizer_config_excludes(cfg, c[i].name)) {
                        err = add_attr(a, &m, &c[i], is_edge, first, names);
                        hits++;
                    }
                if (err == AG_SUCCESS && hits == 0) {
                    /* matched, but all left out: say by what, not that nothing matched */
                    char left[256] = "";
                    for (int64_t i = 0; i < n; i++)
                        if (c[i].common && fnmatch(pat, c[i].name, 0) == 0) {
                            const size_t len = strlen(left);
                            snprintf(left + len, sizeof left - len, "%s'%s'", len ? ", " : "", c[i].name);
                        }
                    if (left[0])
                        err = AG_ERROR(AG_EATTR, "pattern '%s' matches only %s attributes left out (the label or "
                                       "target, an attribute that mirrors or copies it, or an exclusion): %s", pat,
                                       elem_name(is_edge), left);
                    else
                        err = AG_ERROR(AG_EATTR, "pattern '%s' matches no %s attribute of usable type present in "
                                       "every graph", pat, elem_name(is_edge));
                }
            } else {
                int64_t i = 0;
                while (i < n && !(c[i].common && strcmp(c[i].name, pat) == 0)) i++;
                err = i < n ? add_attr(a, &m, &c[i], is_edge, first, names) : explain_missing(graphs, names, count, is_edge, pat);
            }
        }
    }
    cands_free(c, n);
    if (err != AG_SUCCESS) {
        for (int64_t i = 0; i < m; i++) free_attr(&a[i]);
        ag_i_free(a);
        return err;
    }
    *out = a;
    *n_out = m;
    return AG_SUCCESS;
}

/* A string attribute's vocabulary while it is fitted: v[0..sorted) sorted and distinct, then
 * v[sorted..n) values of later graphs found not among them (copies, which may repeat one another).
 * Merging each graph's values into the whole vocabulary made a fit of G graphs cost G x V (V the
 * vocabulary's size) when most values are new, as one name per vertex is; the new values are
 * sorted in only once they outnumber the sorted ones, so a fit of T values costs T log T. */
typedef struct vocab_build_t {
    char **v;   /* (cap) */
    int64_t n, sorted, cap;
} vocab_build_t;

static void vocab_build_free(vocab_build_t *b) {
    ag_i_strings_free(b->v, b->n);
    memset(b, 0, sizeof *b);
}

/* Sorts all of b's values in, freeing the repeats: the vocabulary is the sorted distinct values
 * whichever graph brought them, so this order is the one a merge per graph gave. */
static void vocab_build_sort(vocab_build_t *b) {
    if (b->sorted == b->n) return;
    qsort(b->v, (size_t)b->n, sizeof(char *), cmp_str_ptr);
    int64_t m = 0;
    for (int64_t i = 0; i < b->n; i++) {
        if (m > 0 && strcmp(b->v[i], b->v[m - 1]) == 0) ag_i_free(b->v[i]);
        else b->v[m++] = b->v[i];
    }
    b->n = b->sorted = m;
}

/* Adds the distinct values of string attribute a in graph ig to b. */
static ag_error_t grow_vocab(const ag_feature_attr_t *a, vocab_build_t *b, const igraph_t *ig, int is_edge) {
    int64_t rows = elem_count(ig, is_edge);
    if (rows == 0) return AG_SUCCESS;
    igraph_strvector_t v;
    igraph_error_t rc;
    ag_i_igraph_enter();
    rc = igraph_strvector_init(&v, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = is_edge ? igraph_cattribute_EASV(ig, a->name, igraph_ess_all(IGRAPH_EDGEORDER_ID), &v)
                     : igraph_cattribute_VASV(ig, a->name, igraph_vss_all(), &v);
        if (rc != IGRAPH_SUCCESS) igraph_strvector_destroy(&v);
    }
    ag_i_igraph_leave();
    if (rc == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory reading %s attribute '%s'", elem_name(is_edge), a->name);
    if (rc != IGRAPH_SUCCESS)
        return ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading string %s attribute '%s'", elem_name(is_edge),
                                 a->name);
    const char **vals = NULL; /* (rows) */
    void *p;
    ag_error_t err = ag_i_alloc_array(&p, rows, sizeof(char *), "string values");
    vals = p;
    int64_t nv = 0;
    if (err == AG_SUCCESS) {
        ag_i_igraph_enter();
        for (int64_t r = 0; r < rows; r++) vals[r] = igraph_strvector_get(&v, r);
        ag_i_igraph_leave();
        /* The vocabulary goes into the model file's JSON header, which must be UTF-8: a Latin-1
         * file would otherwise train to the end and fail only when the model is saved. */
        for (int64_t r = 0; r < rows && err == AG_SUCCESS; r++)
            if (!ag_utf8_valid(vals[r], NULL)) {
                char shown[200];
                err = AG_ERROR(AG_EATTR, "%s attribute '%s' of %s %lld is '%s', which is not valid UTF-8: a model file "
                               "stores the values of a text attribute as UTF-8; convert the graph file to UTF-8 (e.g. "
                               "iconv -f latin1 -t utf-8) or leave the attribute out", elem_name(is_edge), a->name,
                               elem_name(is_edge), (long long)r, ag_i_utf8_show(vals[r], shown, sizeof shown));
            }
    }
    if (err == AG_SUCCESS) {
        qsort(vals, (size_t)rows, sizeof(char *), cmp_str_ptr);
        /* "" is what igraph gives a vertex lacking the attribute in GML or GraphML: it is
         * missing, not a category (encode_attr() sets no column for it; the width rule of
         * summary.h does not count it either). */
        for (int64_t r = 0; r < rows; r++)
            if (vals[r][0] != '\0' && (nv == 0 || strcmp(vals[r], vals[nv - 1]) != 0)) vals[nv++] = vals[r];
    }
    for (int64_t j = 0; j < nv && err == AG_SUCCESS; j++) {
        if (b->sorted > 0 && bsearch(&vals[j], b->v, (size_t)b->sorted, sizeof(char *), cmp_str_ptr)) continue;
        if (b->n == b->cap) {
            const int64_t cap = b->cap ? 2 * b->cap : 64;
            err = ag_i_realloc_array(&p, b->v, cap, sizeof(char *), "vocabulary");
            if (err != AG_SUCCESS) break;
            b->v = p;
            b->cap = cap;
        }
        if (!(b->v[b->n] = ag_i_strdup(vals[j])))
            err = AG_ERROR(AG_ENOMEM, "out of memory building the vocabulary of '%s'", a->name);
        else
            b->n++;
    }
    if (err == AG_SUCCESS && b->n - b->sorted > b->sorted) vocab_build_sort(b);
    ag_i_free(vals);
    ag_i_igraph_enter();
    igraph_strvector_destroy(&v);
    ag_i_igraph_leave();
    return err;
}

/* A string attribute empty on every vertex (edge) of the graphs fitted on (a GraphML key declared
 * and never used) gives a constant column and would make every graph to predict need the
 * attribute: left out when the attributes were taken all, refused when named. */
static ag_error_t drop_empty(ag_feature_attr_t *attrs, int64_t *n, int is_edge, int taken_all) {
    int64_t m = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (attrs[i].type != AG_ATTR_STRING || attrs[i].vocab_size > 0) {
            attrs[m++] = attrs[i];
            continue;
        }
        if (!taken_all) {
            ag_error_t err = AG_ERROR(AG_EATTR, "string %s attribute '%s' is empty on every %s of the graphs fitted on: "
                                      "it gives no feature; leave it out", elem_name(is_edge), attrs[i].name,
                                      elem_name(is_edge));
            for (int64_t j = i; j < *n; j++) attrs[m++] = attrs[j]; /* the caller frees them all */
            *n = m;
            return err;
        }
        free_attr(&attrs[i]);
    }
    *n = m;
    return AG_SUCCESS;
}

/* Whether a sequence of n values counts the places 0, 1, ... or 1, 2, ...: the numbers
 * themselves, or a prefix common to all and the number ("v1", "node0"). */
static int numbering(char *const *ref, int64_t n) {
    size_t plen = strlen(ref[0]); /* the prefix: the first value without its trailing digits */
    while (plen > 0 && ref[0][plen - 1] >= '0' && ref[0][plen - 1] <= '9') plen--;
    for (int64_t off = 0; off < 2; off++) {
        int ok = 1;
        for (int64_t i = 0; i < n && ok; i++) {
            char want[32];
            snprintf(want, sizeof want, "%lld", (long long)(i + off));
            ok = strncmp(ref[i], ref[0], plen) == 0 && strcmp(ref[i] + plen, want) == 0;
        }
        if (ok) return 1;
    }
    return 0;
}

/* The vertex attribute lists of the graphs fitted on, each made the first time vertex_key() reads
 * a number from its graph: listing a graph's A attributes for each attribute read made the check
 * A^2 x G. Made lazily because most attributes are told from a key by their first graph (a value
 * repeats there), and then the other graphs' lists are never needed. */
typedef struct attr_lists_t {
    const igraph_t *const *graphs;
    attr_list_t *l; /* (G) l[g] is listed where l[g].made is set */
    int64_t count;  /* G */
} attr_lists_t;

static ag_error_t attr_lists_init(attr_lists_t *ls, const igraph_t *const *graphs, int64_t count) {
    void *p;
    ls->graphs = graphs;
    ls->count = count;
    AG_CHECK(ag_i_alloc_array(&p, count > 0 ? count : 1, sizeof(attr_list_t), "attribute lists"));
    ls->l = p;
    return AG_SUCCESS;
}

static void attr_lists_destroy(attr_lists_t *ls) {
    for (int64_t g = 0; ls->l && g < ls->count; g++)
        if (ls->l[g].made) attr_list_destroy(&ls->l[g]);
    ag_i_free(ls->l);
    memset(ls, 0, sizeof *ls);
}

static ag_error_t attr_lists_at(attr_lists_t *ls, int64_t g, const attr_list_t **out) {
    if (!ls->l[g].made) AG_CHECK(attr_list_get(ls->graphs[g], 0, &ls->l[g]));
    *out = &ls->l[g];
    return AG_SUCCESS;
}

/* The values of numeric vertex attribute `name` of ig, whose vertex attributes l lists, into x,
 * initialised here (the caller destroys it inside the igraph guard). A graph may hold it as a
 * boolean (select_attrs() fits a numeric attribute from GraphML's true/false in some graphs and
 * GML's 0/1 in others): 0/1. */
static ag_error_t read_vertex_numbers(const igraph_t *ig, const attr_list_t *l, const char *name, igraph_vector_t *x) {
    const int type = attr_list_type(l, name);
    igraph_vector_bool_t b;
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_vector_init(x, 0);
    const int have_x = rc == IGRAPH_SUCCESS;
    if (rc == IGRAPH_SUCCESS && type != IGRAPH_ATTRIBUTE_BOOLEAN) {
        rc = igraph_cattribute_VANV(ig, name, igraph_vss_all(), x);
    } else if (rc == IGRAPH_SUCCESS && (rc = igraph_vector_bool_init(&b, 0)) == IGRAPH_SUCCESS) {
        rc = igraph_cattribute_VABV(ig, name, igraph_vss_all(), &b);
        if (rc == IGRAPH_SUCCESS) rc = igraph_vector_resize(x, igraph_vector_bool_size(&b));
        for (igraph_integer_t i = 0; rc == IGRAPH_SUCCESS && i < igraph_vector_size(x); i++)
            VECTOR(*x)[i] = VECTOR(b)[i] ? 1.0 : 0.0;
        igraph_vector_bool_destroy(&b);
    }
    if (rc != IGRAPH_SUCCESS && have_x) igraph_vector_destroy(x);
    ag_i_igraph_leave();
    return rc == IGRAPH_SUCCESS ? AG_SUCCESS : read_error(rc, "vertex", name);
}

/* Vertex attribute a of graph g of ls as text into v (initialised here; the caller destroys it
 * inside the igraph guard): a string one as it is, a number in the digits that tell it from every
 * other double ("%.17g", -0 as 0), so that one comparison of text serves both kinds. *nan is set
 * when a number is NaN, which equals no value and so makes no key. */
static ag_error_t read_as_text(attr_lists_t *ls, int64_t g, const ag_feature_attr_t *a, igraph_strvector_t *v,
                               int *nan) {
    const igraph_t *ig = ls->graphs[g];
    *nan = 0;
    if (a->type == AG_ATTR_STRING) return read_strings(ig, 0, a->name, v);
    const attr_list_t *l;
    AG_CHECK(attr_lists_at(ls, g, &l));
    igraph_vector_t x;
    AG_CHECK(read_vertex_numbers(ig, l, a->name, &x));
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_init(v, igraph_vector_size(&x));
    for (igraph_integer_t i = 0; rc == IGRAPH_SUCCESS && i < igraph_vector_size(&x); i++) {
        char num[32];
        const double d = VECTOR(x)[i];
        *nan |= isnan(d);
        snprintf(num, sizeof num, "%.17g", d == 0.0 ? 0.0 : d);
        if ((rc = igraph_strvector_set(v, i, num)) != IGRAPH_SUCCESS) igraph_strvector_destroy(v);
    }
    igraph_vector_destroy(&x);
    ag_i_igraph_leave();
    return rc == IGRAPH_SUCCESS ? AG_SUCCESS : read_error(rc, "vertex", a->name);
}

/* Whether vertex attribute a names the vertices of each graph instead of describing them: a value
 * different on every vertex of each graph (of 2 or more vertices), and either the same sequence in
 * every graph's vertex order while the graphs differ in size (networkx's GML `label` "0", "1", ...,
 * Pajek's `name` "v1", "v2", ...: a vertex's place in its file), or that sequence counting the
 * places in graphs of one size (networkx's graphs of 20 vertices), or, for a string, values that
 * seldom recur across graphs (more distinct values than half the vertices: people's names). As a
 * feature it tells a graph-level model where each vertex sits in its file, and a graph written
 * otherwise is predicted from noise: cycles, paths and stars written by networkx trained to test
 * accuracy 1.0 and put every one of 12 new graphs, their vertices named "atom0"..., in one class.
 * Graphs of one size whose vertices carry the same values in the same order, not a count (a brain
 * atlas's regions), share their vertices' identity, and keep the attribute. */
static ag_error_t vertex_key(const ag_feature_attr_t *a, attr_lists_t *ls, int *key) {
    const igraph_t *const *graphs = ls->graphs;
    const int64_t count = ls->count;
    *key = 0;
    if (a->type == AG_ATTR_BOOLEAN) return AG_SUCCESS;
    int64_t big = 0, total = 0, ref_n = 0, first_n = -1;
    int same_order = 1, sizes_differ = 0, distinct = 1;
    char **ref = NULL;          /* (ref_n) the value at each place, from the graphs so far */
    const char **sorted = NULL; /* (n) this graph's values, sorted to find a repeat */
    ag_error_t err = AG_SUCCESS;
    for (int64_t g = 0; g < count && err == AG_SUCCESS && distinct; g++) {
        ag_i_igraph_enter();
        const int64_t n = (int64_t)igraph_vcount(graphs[g]);
        ag_i_igraph_leave();
        if (n < 2) continue;
        big += n >= 3;
        total += n;
        if (first_n < 0) first_n = n;
        else if (n != first_n) sizes_differ = 1;
        igraph_strvector_t sv;
        int nan;
        if ((err = read_as_text(ls, g, a, &sv, &nan)) != AG_SUCCESS) break;
        if (nan) distinct = 0;
        void *p;
        if (n > ref_n && (err = ag_i_realloc_array(&p, ref, n, sizeof(char *), "vertex key values")) == AG_SUCCESS)
            ref = p; /* the places this graph adds to the reference sequence */
        if (err == AG_SUCCESS && (err = ag_i_realloc_array(&p, sorted, n, sizeof(char *), "vertex key values")) == AG_SUCCESS)
            sorted = p;
        ag_i_igraph_enter();
        for (int64_t v = 0; v < n && err == AG_SUCCESS && distinct; v++) {
            const char *s = igraph_strvector_get(&sv, v);
            sorted[v] = s;
            if (v < ref_n) same_order &= strcmp(ref[v], s) == 0;
            else if (!(ref[v] = ag_i_strdup(s))) err = AG_ERROR(AG_ENOMEM, "out of memory copying a vertex key");
            else ref_n = v + 1;
        }
        ag_i_igraph_leave();
        /* sorted holds pointers into sv: checked before it goes */
        if (err == AG_SUCCESS && distinct) {
            qsort(sorted, (size_t)n, sizeof(char *), cmp_str_ptr);
            for (int64_t v = 1; v < n && distinct; v++) distinct = strcmp(sorted[v - 1], sorted[v]) != 0;
        }
        ag_i_igraph_enter();
        igraph_strvector_destroy(&sv);
        ag_i_igraph_leave();
    }
    if (err == AG_SUCCESS && distinct && big >= 2)
        *key = (same_order && (sizes_differ || numbering(ref, ref_n))) ||
               (a->type == AG_ATTR_STRING && a->vocab_size * 2 > total);
    if (ref) ag_i_strings_free(ref, ref_n);
    ag_i_free(sorted);
    return err;
}

/* Leaves out of f's vertex attributes the graphs' vertex keys (vertex_key()), naming them in
 * f->left_out for the caller's messages. */
static ag_error_t drop_vertex_keys(ag_featurizer_t *f, const igraph_t *const *graphs, int64_t count) {
    int64_t m = 0;
    attr_lists_t ls;
    AG_CHECK(attr_lists_init(&ls, graphs, count));
    for (int64_t i = 0; i < f->n_vattrs; i++) {
        int key;
        ag_error_t err = vertex_key(&f->vattrs[i], &ls, &key);
        if (err == AG_SUCCESS && key) {
            void *p;
            err = ag_i_realloc_array(&p, f->left_out, f->n_left_out + 1, sizeof(char *), "left-out attributes");
            if (err == AG_SUCCESS) {
                f->left_out = p;
                f->left_out[f->n_left_out++] = f->vattrs[i].name;
                f->vattrs[i].name = NULL;
                free_attr(&f->vattrs[i]);
                continue;
            }
        }
        if (err != AG_SUCCESS) {
            for (int64_t j = i; j < f->n_vattrs; j++) f->vattrs[m++] = f->vattrs[j]; /* destroy frees them */
            f->n_vattrs = m;
            attr_lists_destroy(&ls);
            return err;
        }
        f->vattrs[m++] = f->vattrs[i];
    }
    f->n_vattrs = m;
    attr_lists_destroy(&ls);
    return AG_SUCCESS;
}

/* Re-raises the last error with graph g's name in front: its file when the caller named the
 * graphs, else "graph g" when there are several to tell apart (one graph's callers name its file). */
static ag_error_t in_graph(ag_error_t code, const char *const *names, int64_t g, int64_t count) {
    if (count == 1 && !(names && names[0])) return code;
    char msg[900], label[48];
    snprintf(msg, sizeof msg, "%s", ag_error_message());
    return AG_ERROR(code, "%s: %s", ag_i_item_name(names, "graph", g, label, sizeof label), msg);
}

/* raw_only: AG_NORM_STANDARDIZE_RAW, whose attribute columns within [-1, 1] and degree columns
 * keep mean 0 and std 1. */
static ag_error_t fit_stats(ag_featurizer_t *f, const igraph_t *const *graphs, const char *const *names, int64_t count,
                            int raw_only) {
    const int64_t S = stat_cols(f);
    const int want = f->norm == AG_NORM_STANDARDIZE;
    ag_colstats_t st = {0};
    void *p;
    ag_error_t err = want ? ag_i_colstats_init(&st, S, "normalisation sums") : AG_SUCCESS;
    /* Every graph is encoded once here, also without normalisation: it validates the values
     * (NaN, infinities) at fit time, with the graph's index in the message. */
    for (int64_t g = 0; err == AG_SUCCESS && g < count; g++) {
        ag_fmat_t x;
        err = transform_raw(f, graphs[g], &x, 1);
        if (err != AG_SUCCESS) {
            err = in_graph(err, names, g, count);
            break;
        }
        if (want) ag_i_colstats_add(&st, x.data, x.rows, x.cols);
        ag_fmat_destroy(&x);
    }
    if (err == AG_SUCCESS && want) {
        err = ag_i_alloc_array(&p, S, sizeof(float), "feature means");
        f->mean = p;
        if (err == AG_SUCCESS) {
            err = ag_i_alloc_array(&p, S, sizeof(float), "feature standard deviations");
            f->std = p;
        }
        for (int64_t c = 0; err == AG_SUCCESS && c < S; c++) {
            if (raw_only && c >= f->n_attr_features) {
                /* degree columns: --normalize auto leaves them as they are */
                f->mean[c] = 0.0f;
                f->std[c] = 1.0f;
            } else {
                ag_i_colstats_get(&st, c, 0.0, raw_only, &f->mean[c], &f->std[c]);
            }
        }
    }
    ag_i_colstats_destroy(&st);
    return err;
}

/* Encodes every fitted graph's edges once: it validates their values (NaN, infinities) at fit
 * time, with the graph's index in the message, and with stats (AG_NORM_STANDARDIZE_RAW) fits the
 * edge statistics; edge_mean and edge_std stay NULL when no edge column goes beyond [-1, 1]. */
static ag_error_t fit_edges(ag_featurizer_t *f, const igraph_t *const *graphs, const char *const *names, int64_t count,
                            int stats) {
    const int64_t Fe = f->n_edge_features;
    if (Fe == 0) return AG_SUCCESS;
    ag_colstats_t st = {0};
    ag_error_t err = stats ? ag_i_colstats_init(&st, Fe, "edge normalisation sums") : AG_SUCCESS;
    for (int64_t g = 0; err == AG_SUCCESS && g < count; g++) {
        const int64_t m = elem_count(graphs[g], 1);
        if (m == 0) continue; /* igraph keeps no edge attribute on a graph without edges */
        ag_fmat_t e = {0}; /* (E x Fe) */
        err = ag_fmat_init(&e, m, Fe);
        if (err == AG_SUCCESS) err = encode_attrs(graphs[g], 1, f->eattrs, f->n_eattrs, m, e.data, Fe, 1);
        if (err != AG_SUCCESS) err = in_graph(err, names, g, count);
        else if (stats) ag_i_colstats_add(&st, e.data, m, Fe);
        ag_fmat_destroy(&e);
    }
    int raw = 0;
    for (int64_t c = 0; stats && c < Fe; c++) raw |= ag_i_colstats_raw(&st, c);
    if (err == AG_SUCCESS && raw) {
        void *p;
        err = ag_i_alloc_array(&p, Fe, sizeof(float), "edge feature means");
        f->edge_mean = p;
        if (err == AG_SUCCESS) err = ag_i_alloc_array(&p, Fe, sizeof(float), "edge feature standard deviations");
        if (err == AG_SUCCESS) f->edge_std = p;
        /* as the vertex columns: within [-1, 1] left alone, a constant column only centred */
        for (int64_t c = 0; err == AG_SUCCESS && c < Fe; c++)
            ag_i_colstats_get(&st, c, 0.0, 1, &f->edge_mean[c], &f->edge_std[c]);
    }
    ag_i_colstats_destroy(&st);
    return err;
}

/* Degree columns need every graph of one kind: 1 or 2 columns per vertex. */
static ag_error_t check_one_kind(const ag_featurizer_t *f, const igraph_t *const *graphs, const char *const *names,
                                 int64_t count) {
    char l1[48], l2[48];
    for (int64_t g = 1; g < count; g++)
        if (graph_directed(graphs[g]) != f->directed)
            return AG_ERROR(AG_EMISMATCH, "%s is %s but %s is %s: degree columns need one kind",
                            ag_i_item_name(names, "graph", g, l1, sizeof l1), f->directed ? "undirected" : "directed",
                            ag_i_item_name(names, "graph", 0, l2, sizeof l2), f->directed ? "directed" : "undirected");
    return AG_SUCCESS;
}

ag_error_t ag_featurizer_fit(ag_featurizer_t *f, const ag_featurizer_config_t *cfg, const igraph_t *const *graphs, int64_t count) {
    return ag_featurizer_fit_named(f, cfg, graphs, NULL, count);
}

ag_error_t ag_featurizer_fit_named(ag_featurizer_t *f, const ag_featurizer_config_t *cfg, const igraph_t *const *graphs,
                                   const char *const *names, int64_t count) {
    if (!f) return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: NULL output");
    memset(f, 0, sizeof *f);
    if (!cfg || !graphs) return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: NULL argument");
    if (count < 1) return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: no graphs to fit on (count = %lld)", (long long)count);
    for (int64_t g = 0; g < count; g++)
        if (!graphs[g]) return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: graph %lld is NULL", (long long)g);
    if (cfg->lap_pe_k < 0 || cfg->rw_pe_k < 0 || cfg->lap_pe_k > MAX_K || cfg->rw_pe_k > MAX_K ||
        cfg->lap_pe_if_featureless < 0 || cfg->lap_pe_if_featureless > MAX_K)
        return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: PE sizes must be in 0..%d (lap_pe_k %lld, rw_pe_k %lld, "
                        "lap_pe_if_featureless %lld)", MAX_K, (long long)cfg->lap_pe_k, (long long)cfg->rw_pe_k,
                        (long long)cfg->lap_pe_if_featureless);
    if ((unsigned)cfg->norm > AG_NORM_STANDARDIZE_RAW) return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: unknown normalisation %d", (int)cfg->norm);
    if ((unsigned)cfg->vertex_select > AG_SELECT_NONE || (unsigned)cfg->edge_select > AG_SELECT_NONE)
        return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: unknown attribute selection mode");
    if (cfg->n_exclude < 0 || (cfg->n_exclude > 0 && !cfg->exclude))
        return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: %lld exclusions but no array", (long long)cfg->n_exclude);
    if (cfg->n_exclude_more < 0 || (cfg->n_exclude_more > 0 && !cfg->exclude_more))
        return AG_ERROR(AG_EINVAL, "ag_featurizer_fit: %lld more exclusions but no array",
                        (long long)cfg->n_exclude_more);
    int raw_only = cfg->norm == AG_NORM_STANDARDIZE_RAW;
    f->norm = raw_only ? AG_NORM_STANDARDIZE : cfg->norm;
    f->degree = cfg->degree ? 1 : 0;
    f->lap_pe_k = cfg->lap_pe_k;
    f->lap_pe_scaled = 1;
    f->rw_pe_k = cfg->rw_pe_k;
    f->directed = graph_directed(graphs[0]);
    ag_error_t err = f->degree ? check_one_kind(f, graphs, names, count) : AG_SUCCESS;
    if (err == AG_SUCCESS) err = select_attrs(cfg, graphs, names, count, 0, &f->vattrs, &f->n_vattrs);
    if (err == AG_SUCCESS) err = select_attrs(cfg, graphs, names, count, 1, &f->eattrs, &f->n_eattrs);
    for (int is_edge = 0; is_edge < 2 && err == AG_SUCCESS; is_edge++) {
        ag_feature_attr_t *attrs = is_edge ? f->eattrs : f->vattrs;
        int64_t *n = is_edge ? &f->n_eattrs : &f->n_vattrs;
        for (int64_t i = 0; i < *n && err == AG_SUCCESS; i++)
            if (attrs[i].type == AG_ATTR_STRING) {
                vocab_build_t b = {0};
                for (int64_t g = 0; g < count && err == AG_SUCCESS; g++)
                    if ((err = grow_vocab(&attrs[i], &b, graphs[g], is_edge)) == AG_EATTR) err = in_graph(err, names, g, count);
                if (err == AG_SUCCESS) {
                    vocab_build_sort(&b);
                    attrs[i].vocab = b.v;
                    attrs[i].vocab_size = b.n;
                    b = (vocab_build_t){0};
                }
                vocab_build_free(&b);
            }
        if (err == AG_SUCCESS) err = drop_empty(attrs, n, is_edge, (is_edge ? cfg->edge_select : cfg->vertex_select) == AG_SELECT_ALL);
    }
    /* one graph's names are a node task's business (transductive: identity features can serve it) */
    if (err == AG_SUCCESS && count >= 2 && cfg->vertex_select == AG_SELECT_ALL) err = drop_vertex_keys(f, graphs, count);
    if (err == AG_SUCCESS && cfg->degree_if_featureless && f->n_vattrs == 0 && !f->degree) {
        /* no attribute column and no structural one asked for: the Laplacian columns, as many as
         * the largest graph has non-trivial eigenvectors (beyond them they would be zeros) */
        if (!f->lap_pe_k && !f->rw_pe_k && cfg->lap_pe_if_featureless > 0) {
            int64_t nmax = 0;
            for (int64_t g = 0; g < count; g++) {
                ag_i_igraph_enter();
                const int64_t n = (int64_t)igraph_vcount(graphs[g]);
                ag_i_igraph_leave();
                if (n > nmax) nmax = n;
            }
            f->lap_pe_k = nmax - 1 < cfg->lap_pe_if_featureless ? (nmax > 1 ? nmax - 1 : 0) : cfg->lap_pe_if_featureless;
        }
        /* the degree too, standardised, since raw degrees run to the hundreds on social graphs
         * (AG_NORM_L1_ROWS would leave them raw, having no attribute to act on); positional
         * columns say where a vertex is, not how connected it is */
        f->degree = 1;
        f->norm = AG_NORM_STANDARDIZE;
        raw_only = 0;
        err = check_one_kind(f, graphs, names, count);
    }
    if (err == AG_SUCCESS) err = layout(f);
    if (err == AG_SUCCESS) err = fit_stats(f, graphs, names, count, raw_only);
    if (err == AG_SUCCESS) err = fit_edges(f, graphs, names, count, cfg->norm == AG_NORM_STANDARDIZE_RAW);
    if (err != AG_SUCCESS) ag_featurizer_destroy(f);
    return err;
}

/* ---- JSON ---- */

static const char *norm_name(ag_feature_norm_t n) {
    return n == AG_NORM_STANDARDIZE ? "standardize" : n == AG_NORM_L1_ROWS ? "l1_rows" : "none";
}

static void attrs_to_json(const ag_feature_attr_t *a, int64_t n, ag_strbuf_t *sb) {
    ag_strbuf_append(sb, "[", 1);
    for (int64_t i = 0; i < n; i++) {
        ag_strbuf_append(sb, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
        ag_strbuf_json_string(sb, a[i].name);
        ag_strbuf_printf(sb, ",\"type\":\"%s\"", kind_name(a[i].type));
        if (a[i].type == AG_ATTR_STRING) {
            ag_strbuf_append(sb, ",\"vocabulary\":[", 15);
            for (int64_t v = 0; v < a[i].vocab_size; v++) {
                if (v) ag_strbuf_append(sb, ",", 1);
                ag_strbuf_json_string(sb, a[i].vocab[v]);
            }
            ag_strbuf_append(sb, "]", 1);
        }
        ag_strbuf_append(sb, "}", 1);
    }
    ag_strbuf_append(sb, "]", 1);
}

static void floats_to_json(const float *x, int64_t n, ag_strbuf_t *sb) {
    ag_strbuf_append(sb, "[", 1);
    for (int64_t i = 0; i < n; i++) {
        if (i) ag_strbuf_append(sb, ",", 1);
        ag_strbuf_json_float(sb, x[i]);
    }
    ag_strbuf_append(sb, "]", 1);
}

void ag_featurizer_to_json(const ag_featurizer_t *f, ag_strbuf_t *sb) {
    ag_strbuf_printf(sb, "{\"format\":\"%s\",\"version\":%d,\"normalization\":\"%s\",\"degree\":%s,\"directed\":%s,"
                         "\"lap_pe_k\":%lld,\"rw_pe_k\":%lld,\"n_features\":%lld,\"n_edge_features\":%lld,\"vertex_attributes\":",
                     FEATURIZER_FORMAT, f->edge_mean ? 3 : f->lap_pe_k > 0 && f->lap_pe_scaled ? 2 : 1, norm_name(f->norm), f->degree ? "true" : "false",
                     f->directed ? "true" : "false", (long long)f->lap_pe_k, (long long)f->rw_pe_k, (long long)f->n_features,
                     (long long)f->n_edge_features);
    attrs_to_json(f->vattrs, f->n_vattrs, sb);
    ag_strbuf_append(sb, ",\"edge_attributes\":", 19);
    attrs_to_json(f->eattrs, f->n_eattrs, sb);
    if (f->norm == AG_NORM_STANDARDIZE) {
        ag_strbuf_append(sb, ",\"mean\":", 8);
        floats_to_json(f->mean, stat_cols(f), sb);
        ag_strbuf_append(sb, ",\"std\":", 7);
        floats_to_json(f->std, stat_cols(f), sb);
    }
    if (f->edge_mean) {
        ag_strbuf_append(sb, ",\"edge_mean\":", 13);
        floats_to_json(f->edge_mean, f->n_edge_features, sb);
        ag_strbuf_append(sb, ",\"edge_std\":", 12);
        floats_to_json(f->edge_std, f->n_edge_features, sb);
    }
    ag_strbuf_append(sb, "}", 1);
}

static ag_error_t member(const ag_json_t *obj, const char *where, const char *key, ag_json_type_t type, const ag_json_t **out) {
    const ag_json_t *v = ag_json_get(obj, key);
    static const char *const tn[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    if (!v) return AG_ERROR(AG_EMODEL, "featuriser: %s has no member '%s'", where, key);
    if (v->type != type) return AG_ERROR(AG_EMODEL, "featuriser: %s member '%s' is %s, expected %s", where, key, tn[v->type], tn[type]);
    *out = v;
    return AG_SUCCESS;
}

static ag_error_t int_member(const ag_json_t *obj, const char *key, int64_t lo, int64_t hi, int64_t *out) {
    const ag_json_t *v = NULL;
    AG_CHECK(member(obj, "the object", key, AG_JSON_NUMBER, &v));
    if (!(v->number >= (double)lo && v->number <= (double)hi) || v->number != floor(v->number))
        return AG_ERROR(AG_EMODEL, "featuriser: '%s' = %g is not an integer in %lld..%lld", key, v->number, (long long)lo, (long long)hi);
    *out = (int64_t)v->number;
    return AG_SUCCESS;
}

static ag_error_t attrs_from_json(const ag_json_t *arr, int is_edge, ag_feature_attr_t **out, int64_t *n_out) {
    const char *list = is_edge ? "edge_attributes" : "vertex_attributes";
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, arr->count, sizeof(ag_feature_attr_t), "feature attributes"));
    ag_feature_attr_t *a = p;
    *out = a;
    *n_out = 0;
    char where[64];
    for (int64_t i = 0; i < arr->count; i++) {
        const ag_json_t *o = &arr->items[i], *name = NULL, *type = NULL, *voc = NULL;
        snprintf(where, sizeof where, "%s[%lld]", list, (long long)i);
        if (o->type != AG_JSON_OBJECT) return AG_ERROR(AG_EMODEL, "featuriser: %s is not an object", where);
        static const char *const keys[] = {"name", "type", "vocabulary"};
        char object[96];
        snprintf(object, sizeof object, "%s of metadata 'featurizer'", where);
        AG_CHECK(ag_json_check_keys(o, keys, sizeof keys / sizeof *keys, AG_EMODEL, "featuriser: ", object));
        AG_CHECK(member(o, where, "name", AG_JSON_STRING, &name));
        AG_CHECK(member(o, where, "type", AG_JSON_STRING, &type));
        if (!name->string[0]) return AG_ERROR(AG_EMODEL, "featuriser: %s has an empty name", where);
        if (already(a, *n_out, name->string))
            return AG_ERROR(AG_EMODEL, "featuriser: %s repeats attribute '%s'", where, name->string);
        ag_attr_type_t kind;
        if (strcmp(type->string, "numeric") == 0) kind = AG_ATTR_NUMERIC;
        else if (strcmp(type->string, "string") == 0) kind = AG_ATTR_STRING;
        else if (strcmp(type->string, "boolean") == 0) kind = AG_ATTR_BOOLEAN;
        else return AG_ERROR(AG_EMODEL, "featuriser: %s has unknown type '%s'", where, type->string);
        a[i].name = ag_i_strdup(name->string);
        if (!a[i].name) return AG_ERROR(AG_ENOMEM, "out of memory copying an attribute name");
        a[i].type = kind;
        (*n_out)++;
        if (kind != AG_ATTR_STRING) {
            if (ag_json_get(o, "vocabulary"))
                return AG_ERROR(AG_EMODEL, "featuriser: %s ('%s') is %s but has a vocabulary", where, name->string, type->string);
            continue;
        }
        AG_CHECK(member(o, where, "vocabulary", AG_JSON_ARRAY, &voc));
        if (voc->count > MAX_K) return AG_ERROR(AG_EMODEL, "featuriser: %s has %lld vocabulary entries (limit %d)", where, (long long)voc->count, MAX_K);
        AG_CHECK(ag_i_alloc_array(&p, voc->count, sizeof(char *), "vocabulary"));
        a[i].vocab = p;
        for (int64_t v = 0; v < voc->count; v++) {
            const ag_json_t *s = &voc->items[v];
            if (s->type != AG_JSON_STRING || !s->string[0])
                return AG_ERROR(AG_EMODEL, "featuriser: %s vocabulary entry %lld is not a non-empty string", where, (long long)v);
            /* Strictly increasing: transform looks values up by binary search. */
            if (v > 0 && strcmp(a[i].vocab[v - 1], s->string) >= 0)
                return AG_ERROR(AG_EMODEL, "featuriser: %s vocabulary is not sorted and distinct at entry %lld ('%s')", where,
                                (long long)v, s->string);
            a[i].vocab[v] = ag_i_strdup(s->string);
            if (!a[i].vocab[v]) return AG_ERROR(AG_ENOMEM, "out of memory copying a vocabulary entry");
            a[i].vocab_size++;
        }
    }
    return AG_SUCCESS;
}

static ag_error_t floats_from_json(const ag_json_t *obj, const char *key, int64_t n, int positive, float **out) {
    const ag_json_t *arr = NULL;
    AG_CHECK(member(obj, "the object", key, AG_JSON_ARRAY, &arr));
    if (arr->count != n)
        return AG_ERROR(AG_EMODEL, "featuriser: '%s' has %lld values, expected %lld", key, (long long)arr->count, (long long)n);
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n, sizeof(float), key));
    *out = p;
    for (int64_t i = 0; i < n; i++) {
        const ag_json_t *v = &arr->items[i];
        if (v->type != AG_JSON_NUMBER || !(fabs(v->number) <= FLT_MAX) || (positive && !(v->number > 0)))
            return AG_ERROR(AG_EMODEL, "featuriser: '%s'[%lld] is not a finite%s number", key, (long long)i, positive ? " positive" : "");
        (*out)[i] = (float)v->number;
        if (positive && !((*out)[i] > 0.0f))
            return AG_ERROR(AG_EMODEL, "featuriser: '%s'[%lld] is 0 in float32", key, (long long)i);
    }
    return AG_SUCCESS;
}

static ag_error_t from_json(ag_featurizer_t *f, const ag_json_t *obj) {
    const ag_json_t *v = NULL;
    if (!obj || obj->type != AG_JSON_OBJECT) return AG_ERROR(AG_EMODEL, "featuriser: not a JSON object");
    AG_CHECK(member(obj, "the object", "format", AG_JSON_STRING, &v));
    if (strcmp(v->string, FEATURIZER_FORMAT) != 0)
        return AG_ERROR(AG_EMODEL, "featuriser: format is '%s', expected '%s'", v->string, FEATURIZER_FORMAT);
    int64_t version;
    AG_CHECK(int_member(obj, "version", 1, INT32_MAX, &version));
    if (version > FEATURIZER_VERSION)
        return AG_ERROR(AG_EMODEL, "featuriser: version %lld is not supported (this library reads versions 1 to %d)",
                        (long long)version, FEATURIZER_VERSION);
    f->lap_pe_scaled = version >= 2;
    /* every key to_json writes (of any version), and nothing else: a featurisation setting this
     * version does not know would transform graphs otherwise than the model was trained on (after
     * the version, which says more of a newer featuriser's keys) */
    static const char *const keys[] = {"format", "version", "normalization", "degree", "directed", "lap_pe_k",
                                       "rw_pe_k", "n_features", "n_edge_features", "vertex_attributes",
                                       "edge_attributes", "mean", "std", "edge_mean", "edge_std"};
    AG_CHECK(ag_json_check_keys(obj, keys, sizeof keys / sizeof *keys, AG_EMODEL, "featuriser: ",
                                "metadata 'featurizer'"));
    AG_CHECK(member(obj, "the object", "normalization", AG_JSON_STRING, &v));
    if (strcmp(v->string, "none") == 0) f->norm = AG_NORM_NONE;
    else if (strcmp(v->string, "standardize") == 0) f->norm = AG_NORM_STANDARDIZE;
    else if (strcmp(v->string, "l1_rows") == 0) f->norm = AG_NORM_L1_ROWS;
    else return AG_ERROR(AG_EMODEL, "featuriser: unknown normalization '%s'", v->string);
    AG_CHECK(member(obj, "the object", "degree", AG_JSON_BOOL, &v));
    f->degree = v->boolean ? 1 : 0;
    AG_CHECK(member(obj, "the object", "directed", AG_JSON_BOOL, &v));
    f->directed = v->boolean ? 1 : 0;
    AG_CHECK(int_member(obj, "lap_pe_k", 0, MAX_K, &f->lap_pe_k));
    AG_CHECK(int_member(obj, "rw_pe_k", 0, MAX_K, &f->rw_pe_k));
    int64_t nf, nfe;
    AG_CHECK(int_member(obj, "n_features", 0, INT64_C(1) << 40, &nf));
    AG_CHECK(int_member(obj, "n_edge_features", 0, INT64_C(1) << 40, &nfe));
    AG_CHECK(member(obj, "the object", "vertex_attributes", AG_JSON_ARRAY, &v));
    AG_CHECK(attrs_from_json(v, 0, &f->vattrs, &f->n_vattrs));
    AG_CHECK(member(obj, "the object", "edge_attributes", AG_JSON_ARRAY, &v));
    AG_CHECK(attrs_from_json(v, 1, &f->eattrs, &f->n_eattrs));
    AG_CHECK(layout(f));
    if (f->n_features != nf || f->n_edge_features != nfe)
        return AG_ERROR(AG_EMODEL, "featuriser: the columns give %lld vertex and %lld edge features but the file says %lld and %lld",
                        (long long)f->n_features, (long long)f->n_edge_features, (long long)nf, (long long)nfe);
    if (f->norm == AG_NORM_STANDARDIZE) {
        AG_CHECK(floats_from_json(obj, "mean", stat_cols(f), 0, &f->mean));
        AG_CHECK(floats_from_json(obj, "std", stat_cols(f), 1, &f->std));
    } else if (ag_json_get(obj, "mean") || ag_json_get(obj, "std")) {
        return AG_ERROR(AG_EMODEL, "featuriser: 'mean'/'std' given but normalization is '%s'", norm_name(f->norm));
    }
    const int edge_stats = ag_json_get(obj, "edge_mean") || ag_json_get(obj, "edge_std");
    if (edge_stats != (version >= 3))
        return AG_ERROR(AG_EMODEL, "featuriser: version %lld %s 'edge_mean' and 'edge_std'", (long long)version,
                        version >= 3 ? "needs" : "has no");
    if (edge_stats) {
        AG_CHECK(floats_from_json(obj, "edge_mean", f->n_edge_features, 0, &f->edge_mean));
        AG_CHECK(floats_from_json(obj, "edge_std", f->n_edge_features, 1, &f->edge_std));
    }
    return AG_SUCCESS;
}

ag_error_t ag_featurizer_from_json(ag_featurizer_t *f, const ag_json_t *obj) {
    memset(f, 0, sizeof *f);
    ag_error_t err = from_json(f, obj);
    if (err != AG_SUCCESS) ag_featurizer_destroy(f);
    return err;
}
