/*
 * modelfile.c: a model bundle (model + featuriser + node-table normalisation + labels) in one
 * safetensors file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/modelfile.h"
#include "attngraph/safetensors.h"
#include "attngraph/train.h"
#include "internal.h"
#include "name_index.h"
#include "json.h"
#include "model_json.h"
#include "featurizer_json.h"

void ag_bundle_destroy(ag_bundle_t *b) {
    if (!b) return;
    /* model is members[0]: every model of a bundle is in members (ag_bundle_init, ag_bundle_load) */
    for (int64_t m = 0; m < b->n_members; m++) ag_model_destroy(b->members[m]);
    ag_i_free(b->members);
    ag_featurizer_destroy(&b->featurizer);
    ag_table_norm_destroy(&b->table);
    ag_i_strings_free(b->names, b->n_names);
    ag_i_free(b->label_attr);
    ag_i_free(b->target_column);
    memset(b, 0, sizeof *b);
}

/* The metadata key 'split''s values, by ag_split_source_t (0, unknown, is never written) */
static const char *const split_sources[] = {"", "random", "file", "folds", "kfold", "nodes"};
#define N_SPLIT_SOURCES ((int)(sizeof split_sources / sizeof split_sources[0]))

/* The parts agree with each other: names per output, input widths per the model. */
static ag_error_t check_parts(const ag_model_t *model, const ag_featurizer_t *f, const ag_table_norm_t *t,
                              int64_t n_names, ag_error_t code, const char *where) {
    const ag_model_config_t *c = ag_model_config(model);
    int64_t Ft = t ? t->width : 0;
    if (n_names != c->n_out)
        return AG_ERROR(code, "%s%lld %s names for a model of %lld outputs", where, (long long)n_names,
                        ag_task_is_classification(c->task) ? "class" : "task", (long long)c->n_out);
    if (f->n_features + Ft != c->in_dim)
        return AG_ERROR(code,
                        "%sthe featuriser gives %lld columns (+ %lld node-table columns) but the model takes %lld",
                        where, (long long)f->n_features, (long long)Ft, (long long)c->in_dim);
    if (c->edge_dim != f->n_edge_features)
        return AG_ERROR(code, "%sthe featuriser gives %lld edge columns but the model takes %lld", where,
                        (long long)f->n_edge_features, (long long)c->edge_dim);
    if (Ft > 0 && ag_task_is_graph_level(c->task))
        return AG_ERROR(code, "%sa graph-level model cannot take a node table", where);
    return AG_SUCCESS;
}

ag_error_t ag_bundle_init(ag_bundle_t *b, ag_model_t **model, ag_featurizer_t *f, ag_table_norm_t *table,
                          const char *const *names, int64_t n_names, const char *label_attr) {
    if (!b) return AG_ERROR(AG_EINVAL, "ag_bundle_init: NULL bundle");
    memset(b, 0, sizeof *b);
    if (n_names > 0 && !names) return AG_ERROR(AG_EINVAL, "ag_bundle_init: NULL names for %lld outputs", (long long)n_names);
    if (!model || !*model || !f) return AG_ERROR(AG_EINVAL, "ag_bundle_init: NULL model or featuriser");
    AG_CHECK(check_parts(*model, f, table, n_names, AG_EINVAL, ""));
    void *mem;
    AG_CHECK(ag_i_alloc_array(&mem, 1, sizeof(ag_model_t *), "ensemble members"));
    ag_error_t rc = ag_i_strings_dup(&b->names, names, n_names);
    if (rc != AG_SUCCESS) {
        ag_i_free(mem);
        memset(b, 0, sizeof *b);
        return rc;
    }
    b->n_names = n_names;
    if (label_attr && !(b->label_attr = ag_i_strdup(label_attr))) {
        ag_i_strings_free(b->names, n_names);
        ag_i_free(mem);
        memset(b, 0, sizeof *b);
        return AG_ERROR(AG_ENOMEM, "out of memory");
    }
    b->members = mem;
    b->members[0] = b->model = *model;
    b->n_members = 1;
    *model = NULL;
    b->featurizer = *f;
    memset(f, 0, sizeof *f);
    if (table) {
        b->table = *table;
        memset(table, 0, sizeof *table);
    }
    return AG_SUCCESS;
}

/* The configuration as JSON without its seed: what members of one ensemble share. */
static ag_error_t config_unseeded(const ag_model_t *model, ag_strbuf_t *sb) {
    ag_model_config_t c = *ag_model_config(model);
    c.seed = 0;
    AG_CHECK(ag_model_config_to_json(&c, sb));
    return sb->failed ? AG_ERROR(AG_ENOMEM, "out of memory") : AG_SUCCESS;
}

/* A member fits the ensemble: its configuration is the first member's but for the seed, and its
 * target scaling is the same (ag_ensemble_evaluate checks the scaling again on every use). */
static ag_error_t check_member(const ag_model_t *first, const ag_model_t *model, int64_t index) {
    ag_strbuf_t a, c;
    ag_strbuf_init(&a);
    ag_strbuf_init(&c);
    ag_error_t rc = config_unseeded(first, &a);
    if (rc == AG_SUCCESS) rc = config_unseeded(model, &c);
    if (rc == AG_SUCCESS && strcmp(a.data, c.data) != 0) {
        /* name the first setting that differs: the "key": value pair around the first other byte */
        size_t i = 0;
        while (a.data[i] == c.data[i]) i++;
        size_t from = i;
        while (from > 0 && a.data[from - 1] != ',' && a.data[from - 1] != '{') from--;
        while (from < i && a.data[from] == ' ') from++;
        size_t ea = i, ec = i;
        while (a.data[ea] && a.data[ea] != ',' && a.data[ea] != '}') ea++;
        while (c.data[ec] && c.data[ec] != ',' && c.data[ec] != '}') ec++;
        rc = AG_ERROR(AG_EMISMATCH, "ensemble member %lld has %.*s where member 0 has %.*s (the members must share "
                      "the architecture)", (long long)index, (int)(ec - from), c.data + from, (int)(ea - from),
                      a.data + from);
    }
    ag_strbuf_destroy(&a);
    ag_strbuf_destroy(&c);
    AG_CHECK(rc);
    return ag_i_check_member_scaling(first, model, index);
}

/* Appends n checked models to the bundle's members, taking them (the caller's entries are set to
 * NULL); on failure nothing is taken. */
static ag_error_t append_members(ag_bundle_t *b, ag_model_t **models, int64_t n) {
    void *mem;
    AG_CHECK(ag_i_alloc_array(&mem, b->n_members + n, sizeof(ag_model_t *), "ensemble members"));
    ag_model_t **all = mem;
    memcpy(all, b->members, (size_t)b->n_members * sizeof(ag_model_t *));
    memcpy(all + b->n_members, models, (size_t)n * sizeof(ag_model_t *));
    memset(models, 0, (size_t)n * sizeof(ag_model_t *));
    ag_i_free(b->members);
    b->members = all;
    b->n_members += n;
    return AG_SUCCESS;
}

ag_error_t ag_bundle_add_member(ag_bundle_t *b, ag_model_t **model) {
    if (!b || !b->members) return AG_ERROR(AG_EINVAL, "ag_bundle_add_member: the bundle has no model");
    if (!model || !*model) return AG_ERROR(AG_EINVAL, "ag_bundle_add_member: NULL model");
    /* the bundle takes ownership: a model it holds already would be destroyed twice */
    for (int64_t m = 0; m < b->n_members; m++)
        if (b->members[m] == *model)
            return AG_ERROR(AG_EINVAL, "ag_bundle_add_member: the model is member %lld of the bundle already",
                            (long long)m);
    AG_CHECK(check_member(b->model, *model, b->n_members));
    return append_members(b, model, 1);
}

/* Most iterations a smoothing may run: far beyond where it has converged (alpha^t < 1e-6 by 50
 * steps for alpha 0.75), few enough that a damaged file cannot make a prediction run for hours. */
#define AG_MAX_SMOOTH_ITERATIONS 100000

static ag_error_t check_smooth(const ag_smooth_config_t *c, ag_task_t task, ag_error_t code, const char *where) {
    if (task != AG_TASK_NODE_CLASSIFICATION)
        return AG_ERROR(code, "%sCorrect and Smooth is for node classification, not %s", where, ag_task_name(task));
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%ssmoothing: ", where);
    AG_CHECK(ag_i_smooth_alphas_check(c, code, prefix));
    if (c->iterations < 0 || c->iterations > AG_MAX_SMOOTH_ITERATIONS)
        return AG_ERROR(code, "%ssmoothing: %lld iterations is not in 0..%d", where, (long long)c->iterations,
                        AG_MAX_SMOOTH_ITERATIONS);
    return AG_SUCCESS;
}

ag_error_t ag_bundle_set_smooth(ag_bundle_t *b, const ag_smooth_config_t *cfg) {
    if (!b || !b->model) return AG_ERROR(AG_EINVAL, "ag_bundle_set_smooth: the bundle has no model");
    if (!cfg) {
        b->has_smooth = 0;
        return AG_SUCCESS;
    }
    AG_CHECK(check_smooth(cfg, ag_model_config(b->model)->task, AG_EINVAL, "ag_bundle_set_smooth: "));
    b->smooth = *cfg;
    b->has_smooth = 1;
    return AG_SUCCESS;
}

ag_error_t ag_bundle_set_target_column(ag_bundle_t *b, const char *column) {
    if (!b) return AG_ERROR(AG_EINVAL, "ag_bundle_set_target_column: NULL bundle");
    char *c = NULL;
    if (column && !(c = ag_i_strdup(column))) return AG_ERROR(AG_ENOMEM, "out of memory");
    ag_i_free(b->target_column);
    b->target_column = c;
    return AG_SUCCESS;
}

ag_error_t ag_bundle_set_graph(ag_bundle_t *b, const igraph_t *ig) {
    if (!b || !b->model) return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph: NULL bundle or a bundle without model");
    if (ag_task_is_graph_level(ag_model_config(b->model)->task))
        return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph: a graph-level model is trained on many graphs");
    b->has_graph = 0;
    if (!ig) return AG_SUCCESS;
    AG_CHECK(ag_graph_print(ig, &b->graph));
    b->has_graph = 1;
    return AG_SUCCESS;
}

ag_error_t ag_bundle_set_graph_sizes(ag_bundle_t *b, const igraph_t *graphs, const int64_t *idx, int64_t n) {
    if (!b || !b->model) return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph_sizes: NULL bundle or a bundle without model");
    if (!ag_task_is_graph_level(ag_model_config(b->model)->task))
        return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph_sizes: a node model is trained on one graph (ag_bundle_set_graph "
                        "records it)");
    if (!graphs) {
        b->has_sizes = 0;
        return AG_SUCCESS;
    }
    if (n < 1) return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph_sizes: no graphs (n %lld)", (long long)n);
    int64_t v[2] = {INT64_MAX, 0}, e[2] = {INT64_MAX, 0};
    for (int64_t i = 0; i < n; i++) {
        const int64_t g = idx ? idx[i] : i;
        if (g < 0) return AG_ERROR(AG_EINVAL, "ag_bundle_set_graph_sizes: index %lld is %lld", (long long)i, (long long)g);
        const int64_t nv = igraph_vcount(&graphs[g]), ne = igraph_ecount(&graphs[g]);
        if (nv < v[0]) v[0] = nv;
        if (nv > v[1]) v[1] = nv;
        if (ne < e[0]) e[0] = ne;
        if (ne > e[1]) e[1] = ne;
    }
    memcpy(b->size_vertices, v, sizeof v);
    memcpy(b->size_edges, e, sizeof e);
    b->has_sizes = 1;
    return AG_SUCCESS;
}

/* The rule: a factor of two either way. Within the training range a model has seen the sizes;
 * just beyond it (31 vertices for a range of 10 to 30) the readout's sums, the diameter and the
 * neighbourhoods' shares move by little more than they did across the range itself, and a warning
 * there would come with most predictions and be ignored. A factor of two is a size the model has
 * not met by any reading, while still wide of one where the harm was measured (a triangle detector
 * trained on 10 to 30 vertices said "yes" with p 0.9997 for a 300-vertex tree). Half the smallest
 * is the mirror image: the counts enter the readouts in proportion, so a graph a few times smaller
 * is as unknown to the model as one a few times larger. */
int ag_bundle_graph_size_outside(const ag_bundle_t *b, int64_t vertices) {
    if (!b || !b->has_sizes) return 0;
    /* the counts are at most 9e15 (count64 on loading): twice one does not overflow */
    if (vertices > 2 * b->size_vertices[1]) return 1;
    if (2 * vertices < b->size_vertices[0]) return -1;
    return 0;
}

int ag_bundle_other_graph(const ag_bundle_t *b, const igraph_t *ig, ag_graph_print_t *print) {
    ag_graph_print_t p;
    if (!print) print = &p;
    if (!b || !b->has_graph || !ig || ag_graph_print(ig, print) != AG_SUCCESS) return 0;
    return !ag_graph_print_same_shape(&b->graph, print) ? 1 : !ag_graph_print_equal(&b->graph, print) ? 2 : 0;
}

ag_error_t ag_bundle_set_label_attr(ag_bundle_t *b, const char *attr) {
    if (!b || !b->model) return AG_ERROR(AG_EINVAL, "ag_bundle_set_label_attr: NULL bundle or a bundle without model");
    if (ag_task_is_graph_level(ag_model_config(b->model)->task))
        return AG_ERROR(AG_EINVAL, "ag_bundle_set_label_attr: a graph-level model reads its targets from a table, not "
                        "from a vertex attribute");
    char *a = NULL;
    if (attr && !(a = ag_i_strdup(attr))) return AG_ERROR(AG_ENOMEM, "out of memory");
    ag_i_free(b->label_attr);
    b->label_attr = a;
    return AG_SUCCESS;
}

/* ---- saving */

static void floats_json(ag_strbuf_t *sb, const float *x, int64_t n) {
    ag_strbuf_append(sb, "[", 1);
    for (int64_t i = 0; i < n; i++) {
        if (i) ag_strbuf_append(sb, ",", 1);
        ag_strbuf_json_float(sb, x[i]);
    }
    ag_strbuf_append(sb, "]", 1);
}

static const char *norm_name(ag_feature_norm_t n) {
    return n == AG_NORM_STANDARDIZE ? "standardize" : n == AG_NORM_L1_ROWS ? "l1_rows" : "none";
}

/* Sets one metadata key from a string buffer, then empties the buffer. */
static ag_error_t put(ag_metadata_t *m, const char *key, ag_strbuf_t *sb) {
    if (sb->failed) return AG_ERROR(AG_ENOMEM, "out of memory writing model metadata '%s'", key);
    ag_error_t rc = ag_metadata_set(m, key, sb->data ? sb->data : "");
    ag_strbuf_destroy(sb);
    ag_strbuf_init(sb);
    return rc;
}

static ag_error_t build_metadata(const ag_bundle_t *b, ag_metadata_t *m, ag_strbuf_t *sb) {
    const ag_model_config_t *c = ag_model_config(b->model);
    AG_CHECK(ag_model_config_to_json(c, sb));
    AG_CHECK(put(m, "config", sb));
    ag_featurizer_to_json(&b->featurizer, sb);
    AG_CHECK(put(m, "featurizer", sb));
    ag_strbuf_printf(sb, "{\"task\":\"%s\",\"%s\":[", ag_task_name(c->task),
                     ag_task_is_classification(c->task) ? "classes" : "tasks");
    for (int64_t i = 0; i < b->n_names; i++) {
        if (i) ag_strbuf_append(sb, ",", 1);
        ag_strbuf_json_string(sb, b->names[i]);
    }
    ag_strbuf_append(sb, "],\"label_attr\":", 15);
    if (b->label_attr) ag_strbuf_json_string(sb, b->label_attr);
    else ag_strbuf_append(sb, "null", 4);
    ag_strbuf_append(sb, ",\"target_column\":", 17);
    if (b->target_column) ag_strbuf_json_string(sb, b->target_column);
    else ag_strbuf_append(sb, "null", 4);
    /* so that eval draws the parts train drew: the seed is the model's, the fractions are these */
    if (b->has_split_random) ag_strbuf_printf(sb, ",\"split_random\":[%.17g,%.17g]", b->split_random[0], b->split_random[1]);
    ag_strbuf_append(sb, "}", 1);
    AG_CHECK(put(m, "labels", sb));
    if (b->table.width > 0) {
        ag_strbuf_printf(sb, "{\"width\":%lld,\"normalization\":\"%s\"", (long long)b->table.width,
                         norm_name(b->table.norm));
        if (b->table.norm == AG_NORM_STANDARDIZE) {
            ag_strbuf_append(sb, ",\"mean\":", 8);
            floats_json(sb, b->table.mean, b->table.width);
            ag_strbuf_append(sb, ",\"std\":", 7);
            floats_json(sb, b->table.std, b->table.width);
        }
        if (b->table.columns) {
            /* read by this version to match a table's columns by name; ignored by earlier ones */
            ag_strbuf_append(sb, ",\"columns\":[", 12);
            for (int64_t j = 0; j < b->table.width; j++) {
                if (j) ag_strbuf_append(sb, ",", 1);
                ag_strbuf_json_string(sb, b->table.columns[j]);
            }
            ag_strbuf_append(sb, "]", 1);
        }
        ag_strbuf_append(sb, "}", 1);
        AG_CHECK(put(m, "node_table", sb));
    }
    const float *mean, *std;
    ag_model_target_scaling(b->model, &mean, &std);
    floats_json(sb, mean, c->n_out);
    AG_CHECK(put(m, "target_mean", sb));
    floats_json(sb, std, c->n_out);
    AG_CHECK(put(m, "target_std", sb));
    if (b->n_members > 1) {
        /* the members' seeds: the configuration above is member 0's */
        ag_strbuf_printf(sb, "{\"count\":%lld,\"seeds\":[", (long long)b->n_members);
        for (int64_t k = 0; k < b->n_members; k++)
            ag_strbuf_printf(sb, "%s\"%llu\"", k ? "," : "", (unsigned long long)ag_model_config(b->members[k])->seed);
        ag_strbuf_append(sb, "]}", 2);
        AG_CHECK(put(m, "members", sb));
    }
    if (b->has_smooth) {
        /* 17 digits: the double the weights were validated with reads back exactly */
        ag_strbuf_printf(sb, "{\"correct_alpha\":%.17g,\"smooth_alpha\":%.17g,\"iterations\":%lld}",
                         b->smooth.correct_alpha, b->smooth.smooth_alpha, (long long)b->smooth.iterations);
        AG_CHECK(put(m, "smooth", sb));
    }
    if (b->has_graph) {
        /* the hash as a string: a 64-bit integer does not survive a JSON number */
        ag_strbuf_printf(sb,
                         "{\"vertices\":%lld,\"edges\":%lld,\"directed\":%s,\"hash\":\"%016llx\","
                         "\"numbering\":\"%016llx\"}",
                         (long long)b->graph.vertices, (long long)b->graph.edges, b->graph.directed ? "true" : "false",
                         (unsigned long long)b->graph.hash, (unsigned long long)b->graph.numbered);
        AG_CHECK(put(m, "graph", sb));
    }
    if (b->has_sizes) {
        ag_strbuf_printf(sb, "{\"vertices\":[%lld,%lld],\"edges\":[%lld,%lld]}", (long long)b->size_vertices[0],
                         (long long)b->size_vertices[1], (long long)b->size_edges[0], (long long)b->size_edges[1]);
        AG_CHECK(put(m, "graph_sizes", sb));
    }
    /* advice for eval, which a reader without it may ignore: a metadata key of its own, plain text */
    if ((int)b->split_source > 0 && (int)b->split_source < N_SPLIT_SOURCES)
        AG_CHECK(ag_metadata_set(m, "split", split_sources[b->split_source]));
    if (b->has_split_random && b->split_stratified) AG_CHECK(ag_metadata_set(m, "split_stratified", "true"));
    ag_strbuf_printf(sb, "%d", b->has_smooth ? 3 : b->n_members > 1 ? 2 : 1);
    AG_CHECK(put(m, "bundle_version", sb));
    AG_CHECK(ag_metadata_set(m, "attn_graph_version", ag_version()));
    return AG_SUCCESS;
}

/* Every member's parameters in one list, member k > 0 under the prefix "member<k>". */
static ag_error_t member_params(ag_model_t *const *members, int64_t k, ag_param_list_t *all) {
    for (int64_t m = 0; m < k; m++) {
        char prefix[32] = "";
        if (m > 0) snprintf(prefix, sizeof prefix, "member%lld", (long long)m);
        const ag_param_list_t *p = ag_model_params(members[m]);
        for (int64_t i = 0; i < p->count; i++) {
            const ag_param_t *t = &p->items[i];
            AG_CHECK(ag_param_list_add(all, prefix, t->name, t->ndim, t->shape[0], t->shape[1], t->value, t->grad,
                                       t->decay));
        }
    }
    return AG_SUCCESS;
}

ag_error_t ag_bundle_save(const char *path, const ag_bundle_t *b) {
    if (!b || !b->model) return AG_ERROR(AG_EINVAL, "ag_bundle_save: no model");
    ag_metadata_t m;
    ag_metadata_init(&m);
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    ag_error_t rc = build_metadata(b, &m, &sb);
    ag_strbuf_destroy(&sb);
    /* member k > 0 writes its tensors as "member<k>.<name>": member 0's names stay those of a
     * single model, so an ensemble's first member reads like any model file */
    ag_param_list_t all;
    ag_param_list_init(&all);
    const ag_param_list_t *params = ag_model_params(b->model);
    if (rc == AG_SUCCESS && b->n_members > 1) rc = member_params(b->members, b->n_members, &all);
    if (b->n_members > 1) params = &all;
    if (rc == AG_SUCCESS) rc = ag_safetensors_write_params(path, params, &m);
    ag_param_list_destroy(&all);
    ag_metadata_destroy(&m);
    return rc;
}

/* ---- loading */

static ag_error_t meta_json(const ag_safetensors_t *file, const char *path, const char *key, int required,
                            ag_json_t **out) {
    *out = NULL;
    const char *v = ag_metadata_get(&file->metadata, key);
    if (!v) {
        if (!required) return AG_SUCCESS;
        return AG_ERROR(AG_EMODEL, "%s: metadata '%s' is missing (not a model saved by attn-graph train?)", path, key);
    }
    ag_error_t rc = ag_json_parse(v, strlen(v), key, out);
    if (rc != AG_SUCCESS) return ag_i_model_file_error(rc, path, "");
    return AG_SUCCESS;
}

/* The keys of a metadata object: those listed, each once. The objects are closed: a key this
 * version does not know is information it would drop (model-format.md, "Versioning"); only the
 * metadata's own keys are open to any (the caller's). */
static ag_error_t meta_keys(const ag_json_t *j, const char *path, const char *key, const char *const *known,
                            size_t n_known) {
    char prefix[1100], object[64];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    snprintf(object, sizeof object, "metadata '%s'", key);
    return ag_json_check_keys(j, known, n_known, AG_EMODEL, prefix, object);
}

#define META_KEYS(j, path, key, known) meta_keys((j), (path), (key), (known), sizeof(known) / sizeof *(known))

static ag_error_t floats_from(const ag_json_t *arr, const char *path, const char *key, int64_t n, float *out) {
    if (!arr || arr->type != AG_JSON_ARRAY || arr->count != n)
        return AG_ERROR(AG_EMODEL, "%s: metadata '%s' must be an array of %lld numbers", path, key, (long long)n);
    for (int64_t i = 0; i < n; i++) {
        const ag_json_t *v = &arr->items[i];
        if (v->type != AG_JSON_NUMBER || !isfinite(v->number) || fabs(v->number) > 3.4e38)
            return AG_ERROR(AG_EMODEL, "%s: metadata '%s'[%lld] is not a finite float32 number", path, key,
                            (long long)i);
        out[i] = (float)v->number;
    }
    return AG_SUCCESS;
}

static ag_error_t load_labels(ag_bundle_t *b, const ag_json_t *j, const char *path) {
    const ag_model_config_t *c = ag_model_config(b->model);
    if (!j || j->type != AG_JSON_OBJECT) return AG_ERROR(AG_EMODEL, "%s: metadata 'labels' is not a JSON object", path);
    const ag_json_t *task = ag_json_get(j, "task");
    if (!task || task->type != AG_JSON_STRING || strcmp(task->string, ag_task_name(c->task)) != 0)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'labels' names task '%s' but the model is for %s", path,
                        task && task->type == AG_JSON_STRING ? task->string : "?", ag_task_name(c->task));
    const char *key = ag_task_is_classification(c->task) ? "classes" : "tasks";
    const char *other = ag_task_is_classification(c->task) ? "tasks" : "classes";
    if (ag_json_get(j, other))
        return AG_ERROR(AG_EMODEL, "%s: metadata 'labels' has '%s', which a %s model does not have (it lists '%s')",
                        path, other, ag_task_name(c->task), key);
    const char *const known[] = {"task", key, "label_attr", "target_column", "split_random"};
    AG_CHECK(META_KEYS(j, path, "labels", known));
    const ag_json_t *arr = ag_json_get(j, key);
    if (!arr || arr->type != AG_JSON_ARRAY || arr->count != c->n_out)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'labels' must list %lld %s", path, (long long)c->n_out, key);
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, c->n_out, sizeof(char *), "names"));
    b->names = p;
    ag_error_t rc = AG_SUCCESS;
    for (int64_t i = 0; i < c->n_out && rc == AG_SUCCESS; i++) {
        const ag_json_t *s = &arr->items[i];
        if (s->type != AG_JSON_STRING)
            rc = AG_ERROR(AG_EMODEL, "%s: labels.%s[%lld] is not a string", path, key, (long long)i);
        else if (!(b->names[i] = ag_i_strdup(s->string))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        else b->n_names = i + 1;
    }
    /* the names are checked in order: one repeated before the first defect is the error (found by
     * sorting, as a bundle may have thousands of classes) */
    int64_t repeat;
    AG_CHECK(ag_i_first_repeat(b->n_names ? &b->names[0] : NULL, sizeof *b->names, b->n_names, &repeat));
    if (repeat >= 0) return AG_ERROR(AG_EMODEL, "%s: labels.%s has '%s' twice", path, key, b->names[repeat]);
    AG_CHECK(rc);
    const ag_json_t *la = ag_json_get(j, "label_attr");
    if (la && la->type == AG_JSON_STRING) {
        if (!(b->label_attr = ag_i_strdup(la->string))) return AG_ERROR(AG_ENOMEM, "out of memory");
    } else if (la && la->type != AG_JSON_NULL) {
        return AG_ERROR(AG_EMODEL, "%s: labels.label_attr must be a string or null", path);
    }
    const ag_json_t *tc = ag_json_get(j, "target_column");
    if (tc && tc->type == AG_JSON_STRING) {
        if (!(b->target_column = ag_i_strdup(tc->string))) return AG_ERROR(AG_ENOMEM, "out of memory");
    } else if (tc && tc->type != AG_JSON_NULL) {
        return AG_ERROR(AG_EMODEL, "%s: labels.target_column must be a string or null", path);
    }
    const ag_json_t *sr = ag_json_get(j, "split_random"); /* absent before 2026-12-06 */
    if (sr) {
        const int ok = sr->type == AG_JSON_ARRAY && sr->count == 2 && sr->items[0].type == AG_JSON_NUMBER &&
                       sr->items[1].type == AG_JSON_NUMBER && sr->items[0].number > 0.0 &&
                       sr->items[1].number >= 0.0 && sr->items[0].number + sr->items[1].number <= 1.0 + 1e-9;
        if (!ok)
            return AG_ERROR(AG_EMODEL, "%s: labels.split_random must be [train, val]: two fractions, train above 0, "
                            "adding up to at most 1", path);
        b->split_random[0] = sr->items[0].number;
        b->split_random[1] = sr->items[1].number;
        b->has_split_random = 1;
    }
    return AG_SUCCESS;
}

/* 1 and *v when j is a string of 16 lowercase hexadecimal digits. */
static int hex64(const ag_json_t *j, uint64_t *v) {
    if (!j || j->type != AG_JSON_STRING || strlen(j->string) != 16 || strspn(j->string, "0123456789abcdef") != 16)
        return 0;
    *v = (uint64_t)strtoull(j->string, NULL, 16);
    return 1;
}

/* 1 and *v when j is a whole number in 0..9e15 (the integers a double holds one by one). */
static int count64(const ag_json_t *j, int64_t *v) {
    if (!j || j->type != AG_JSON_NUMBER || !(j->number >= 0 && j->number <= 9e15) || j->number != floor(j->number))
        return 0;
    *v = (int64_t)j->number;
    return 1;
}

/* The "graph" metadata: {"vertices": n, "edges": m, "directed": bool, "hash": 16 hex digits,
 * "numbering": 16 hex digits}. */
static ag_error_t graph_from(ag_bundle_t *b, const ag_json_t *j, const char *path) {
    static const char *const known[] = {"vertices", "edges", "directed", "hash", "numbering"};
    AG_CHECK(META_KEYS(j, path, "graph", known));
    const int obj = j->type == AG_JSON_OBJECT;
    const ag_json_t *d = obj ? ag_json_get(j, "directed") : NULL;
    int64_t vertices = 0, edges = 0;
    uint64_t hash = 0, numbered = 0;
    if (!count64(obj ? ag_json_get(j, "vertices") : NULL, &vertices) ||
        !count64(obj ? ag_json_get(j, "edges") : NULL, &edges) || !d || d->type != AG_JSON_BOOL ||
        !hex64(obj ? ag_json_get(j, "hash") : NULL, &hash) || !hex64(obj ? ag_json_get(j, "numbering") : NULL, &numbered))
        return AG_ERROR(AG_EMODEL, "%s: metadata 'graph' needs integers 'vertices' and 'edges' (0 or more), a boolean "
                        "'directed', and a 'hash' and a 'numbering' of 16 lowercase hexadecimal digits each", path);
    if (ag_task_is_graph_level(ag_model_config(b->model)->task))
        return AG_ERROR(AG_EMODEL, "%s: metadata 'graph' is for node models; this one is a graph-level model", path);
    b->graph.vertices = vertices;
    b->graph.edges = edges;
    b->graph.directed = d->boolean ? 1 : 0;
    b->graph.hash = hash;
    b->graph.numbered = numbered;
    b->has_graph = 1;
    return AG_SUCCESS;
}

/* One [smallest, largest] pair of "graph_sizes": two counts, the smallest first. */
static ag_error_t size_range_from(const ag_json_t *j, const char *path, const char *key, int64_t range[2]) {
    const ag_json_t *r = j->type == AG_JSON_OBJECT ? ag_json_get(j, key) : NULL;
    if (!r || r->type != AG_JSON_ARRAY || r->count != 2 || !count64(&r->items[0], &range[0]) ||
        !count64(&r->items[1], &range[1]))
        return AG_ERROR(AG_EMODEL, "%s: metadata 'graph_sizes' needs '%s' as [smallest, largest]: two integers, 0 or "
                        "more", path, key);
    if (range[0] > range[1])
        return AG_ERROR(AG_EMODEL, "%s: metadata 'graph_sizes': '%s' has its smallest count %lld above its largest "
                        "%lld", path, key, (long long)range[0], (long long)range[1]);
    return AG_SUCCESS;
}

/* The "graph_sizes" metadata of a graph-level model: {"vertices": [min, max], "edges": [min, max]}. */
static ag_error_t sizes_from(ag_bundle_t *b, const ag_json_t *j, const char *path) {
    static const char *const known[] = {"vertices", "edges"};
    AG_CHECK(META_KEYS(j, path, "graph_sizes", known));
    int64_t v[2], e[2];
    AG_CHECK(size_range_from(j, path, "vertices", v));
    AG_CHECK(size_range_from(j, path, "edges", e));
    if (!ag_task_is_graph_level(ag_model_config(b->model)->task))
        return AG_ERROR(AG_EMODEL, "%s: metadata 'graph_sizes' is for graph-level models; this one is a node model "
                        "(its graph is in metadata 'graph')", path);
    memcpy(b->size_vertices, v, sizeof v);
    memcpy(b->size_edges, e, sizeof e);
    b->has_sizes = 1;
    return AG_SUCCESS;
}

/* The "smooth" metadata: {"correct_alpha": a, "smooth_alpha": b, "iterations": n}. */
static ag_error_t smooth_from(ag_bundle_t *b, const ag_json_t *j, const char *path) {
    static const char *const keys[] = {"correct_alpha", "smooth_alpha", "iterations"};
    AG_CHECK(META_KEYS(j, path, "smooth", keys));
    double x[3];
    for (int i = 0; i < 3; i++) {
        const ag_json_t *v = j->type == AG_JSON_OBJECT ? ag_json_get(j, keys[i]) : NULL;
        if (!v || v->type != AG_JSON_NUMBER || !isfinite(v->number))
            return AG_ERROR(AG_EMODEL, "%s: metadata 'smooth' needs a number '%s'", path, keys[i]);
        x[i] = v->number;
    }
    if (x[2] != floor(x[2]) || x[2] < 0 || x[2] > AG_MAX_SMOOTH_ITERATIONS)
        return AG_ERROR(AG_EMODEL, "%s: smooth.iterations %g is not an integer in 0..%d", path, x[2],
                        AG_MAX_SMOOTH_ITERATIONS);
    ag_smooth_config_t c = {x[0], x[1], (int64_t)x[2]};
    char where[1100];
    snprintf(where, sizeof where, "%s: metadata 'smooth': ", path);
    AG_CHECK(check_smooth(&c, ag_model_config(b->model)->task, AG_EMODEL, where));
    b->smooth = c;
    b->has_smooth = 1;
    return AG_SUCCESS;
}

static ag_error_t load_table(ag_bundle_t *b, const ag_json_t *j, const char *path) {
    if (!j) return AG_SUCCESS;
    static const char *const known[] = {"width", "normalization", "mean", "std", "columns"};
    AG_CHECK(META_KEYS(j, path, "node_table", known));
    const ag_json_t *w = ag_json_get(j, "width"), *n = ag_json_get(j, "normalization");
    if (j->type != AG_JSON_OBJECT || !w || w->type != AG_JSON_NUMBER || w->number != floor(w->number) ||
        w->number < 1 || w->number > 1e9 || !n || n->type != AG_JSON_STRING)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'node_table' needs an integer 'width' >= 1 and a 'normalization'",
                        path);
    b->table.width = (int64_t)w->number;
    if (!strcmp(n->string, "none")) b->table.norm = AG_NORM_NONE;
    else if (!strcmp(n->string, "l1_rows")) b->table.norm = AG_NORM_L1_ROWS;
    else if (!strcmp(n->string, "standardize")) b->table.norm = AG_NORM_STANDARDIZE;
    else return AG_ERROR(AG_EMODEL, "%s: node_table.normalization '%s' is unknown", path, n->string);
    const ag_json_t *cols = ag_json_get(j, "columns");
    if (cols) {
        if (cols->type != AG_JSON_ARRAY || cols->count != b->table.width)
            return AG_ERROR(AG_EMODEL, "%s: node_table.columns is not an array of %lld names", path,
                            (long long)b->table.width);
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, b->table.width, sizeof(char *), "node-table column names"));
        b->table.columns = p;
        for (int64_t i = 0; i < b->table.width; i++) {
            const ag_json_t *c = &cols->items[i];
            if (c->type != AG_JSON_STRING || !c->string[0])
                return AG_ERROR(AG_EMODEL, "%s: node_table.columns[%lld] is not a non-empty string", path, (long long)i);
            if (!(b->table.columns[i] = ag_i_strdup(c->string))) return AG_ERROR(AG_ENOMEM, "out of memory");
        }
    }
    if (b->table.norm != AG_NORM_STANDARDIZE) {
        /* statistics the normalisation does not use: read by nobody, so written by no attn-graph */
        if (ag_json_get(j, "mean") || ag_json_get(j, "std"))
            return AG_ERROR(AG_EMODEL, "%s: metadata 'node_table' has 'mean'/'std' but its normalization is '%s'",
                            path, n->string);
        return AG_SUCCESS;
    }
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, b->table.width, sizeof(float), "node-table statistics"));
    b->table.mean = p;
    AG_CHECK(ag_i_alloc_array(&p, b->table.width, sizeof(float), "node-table statistics"));
    b->table.std = p;
    AG_CHECK(floats_from(ag_json_get(j, "mean"), path, "node_table.mean", b->table.width, b->table.mean));
    AG_CHECK(floats_from(ag_json_get(j, "std"), path, "node_table.std", b->table.width, b->table.std));
    for (int64_t i = 0; i < b->table.width; i++)
        if (!(b->table.std[i] > 0.0f))
            return AG_ERROR(AG_EMODEL, "%s: node_table.std[%lld] is not positive", path, (long long)i);
    return AG_SUCCESS;
}

/* The model a configuration describes must fit the weights the file holds, checked before the
 * model is built: a few edited bytes ("in_dim": 200000000) would otherwise make the loader
 * allocate and initialise gigabytes, only to find afterwards that no tensor has that shape. The
 * memory estimate of one forward pass on one node is about twice the parameters (values and
 * gradients) plus a few rows of activations; a genuine file holds every parameter once, so its
 * estimate stays near twice the file's tensor bytes. Four times, plus 1 MiB for the activations of
 * tiny models, leaves a wide margin for the estimate's approximations. */
ag_error_t ag_i_model_config_fits(const ag_model_config_t *cfg, int64_t members, const ag_safetensors_t *file,
                                  const char *path) {
    int64_t floats = 0;
    for (int64_t i = 0; i < file->n_tensors; i++) {
        int64_t n = 1;
        for (int d = 0; d < file->tensors[i].ndim; d++) n *= file->tensors[i].shape[d];
        floats += n; /* the reader checked that the tensors tile the file's data */
    }
    int64_t need = 0;
    ag_error_t rc = ag_model_estimate_memory(cfg, 1, 0, 1, 0, &need);
    if (rc == AG_ELIMIT)
        return AG_ERROR(AG_EMODEL, "%s: the model configuration describes a model whose size overflows (in_dim %lld, "
                        "hidden %lld, %d blocks); the file holds %lld weights", path, (long long)cfg->in_dim,
                        (long long)cfg->hidden, cfg->n_blocks, (long long)floats);
    if (rc != AG_SUCCESS) return ag_i_model_file_error(rc, path, "");
    if (need > INT64_MAX / members) need = INT64_MAX;
    else need *= members;
    if (need > 4 * 4 * floats + (1 << 20))
        return AG_ERROR(AG_EMODEL, "%s: the model configuration describes a model of about %lld MB (in_dim %lld, hidden "
                        "%lld, %d blocks), but the file holds only %lld weights (%lld KB)", path,
                        (long long)(need >> 20), (long long)cfg->in_dim, (long long)cfg->hidden, cfg->n_blocks,
                        (long long)floats, (long long)(4 * floats) >> 10);
    return AG_SUCCESS;
}

/* Most members an ensemble file may declare: far more than anyone trains, few enough that a damaged
 * count cannot make the loader build thousands of models before the size check. */
#define AG_MAX_MEMBERS 256

/* The "members" metadata of an ensemble: {"count": k, "seeds": [k decimal strings]} (strings, as
 * config.seed, since a 64-bit seed does not fit a JSON number), k in 2..AG_MAX_MEMBERS. */
static ag_error_t members_from(const ag_json_t *j, const char *path, int64_t *k, uint64_t **seeds) {
    static const char *const known[] = {"count", "seeds"};
    AG_CHECK(META_KEYS(j, path, "members", known));
    const ag_json_t *cnt = j->type == AG_JSON_OBJECT ? ag_json_get(j, "count") : NULL;
    const ag_json_t *arr = j->type == AG_JSON_OBJECT ? ag_json_get(j, "seeds") : NULL;
    if (!cnt || cnt->type != AG_JSON_NUMBER || cnt->number != floor(cnt->number) || cnt->number < 2 ||
        cnt->number > AG_MAX_MEMBERS)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'members' needs an integer 'count' from 2 to %d", path,
                        AG_MAX_MEMBERS);
    int64_t n = (int64_t)cnt->number;
    if (!arr || arr->type != AG_JSON_ARRAY || arr->count != n)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'members' needs 'seeds', an array of %lld decimal strings", path,
                        (long long)n);
    void *mem;
    AG_CHECK(ag_i_alloc_array(&mem, n, sizeof(uint64_t), "ensemble seeds"));
    uint64_t *s = mem;
    for (int64_t i = 0; i < n; i++) {
        const ag_json_t *x = &arr->items[i];
        char *end = NULL;
        if (x->type == AG_JSON_STRING && x->string[0] >= '0' && x->string[0] <= '9') {
            errno = 0;
            s[i] = strtoull(x->string, &end, 10);
        }
        if (!end || *end || errno) {
            ag_i_free(s);
            return AG_ERROR(AG_EMODEL, "%s: members.seeds[%lld] is not a decimal string of a 64-bit seed", path,
                            (long long)i);
        }
    }
    *k = n;
    *seeds = s;
    return AG_SUCCESS;
}

/* A NaN or infinite weight (a damaged file whose checksum was rewritten, or a run that diverged)
 * would give NaN predictions with AG_SUCCESS: such a file is refused as damaged. */
static ag_error_t finite_weights(const ag_param_list_t *params, const char *path) {
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        const int64_t n = p->shape[0] * p->shape[1];
        for (int64_t j = 0; j < n; j++)
            if (!isfinite(p->value[j]))
                return AG_ERROR(AG_EMODEL, "%s: tensor '%s' holds %s at element %lld: the model is damaged", path,
                                p->name, isnan(p->value[j]) ? "NaN" : "an infinite value", (long long)j);
    }
    return AG_SUCCESS;
}

static ag_error_t load(ag_bundle_t *b, const ag_safetensors_t *file, const char *path) {
    const char *ver = ag_metadata_get(&file->metadata, "bundle_version");
    const char *kind = ag_metadata_get(&file->metadata, "kind");
    if (!ver && kind && !strcmp(kind, "checkpoint"))
        return AG_ERROR(AG_EMODEL, "%s is a training checkpoint, not a model: the run's model is the file its -o "
                        "names ('attn-graph info %s' shows the command); 'attn-graph train --resume %s' finishes a "
                        "run that was stopped", path, path, path);
    if (!ver)
        return AG_ERROR(AG_EMODEL, "%s: metadata 'bundle_version' is missing (not a model saved by attn-graph train?)",
                        path);
    char *end = NULL;
    long v = strtol(ver, &end, 10);
    if (!*ver || *end || v < 1)
        return AG_ERROR(AG_EMODEL, "%s: bundle_version '%s' is not a positive integer", path, ver);
    if (v > AG_BUNDLE_VERSION)
        return AG_ERROR(AG_EMODEL,
                        "%s: bundle version %ld is newer than this attn-graph (%s) reads (%d); "
                        "the model was saved by attn-graph %s",
                        path, v, ag_version(), AG_BUNDLE_VERSION,
                        ag_metadata_get(&file->metadata, "attn_graph_version")
                                ? ag_metadata_get(&file->metadata, "attn_graph_version")
                                : "?");
    ag_json_t *jc = NULL, *jf = NULL, *jl = NULL, *jt = NULL, *jm = NULL, *js = NULL, *je = NULL, *jsm = NULL,
              *jg = NULL, *jz = NULL;
    ag_model_config_t cfg;
    int64_t k = 1;
    uint64_t *seeds = NULL; /* (k) the members' seeds */
    ag_param_list_t all;
    ag_param_list_init(&all);
    ag_error_t rc = meta_json(file, path, "members", 0, &je);
    if (rc == AG_SUCCESS && je && v < 2)
        rc = AG_ERROR(AG_EMODEL, "%s: bundle version %ld cannot hold ensemble members (metadata 'members'); "
                      "the file is damaged", path, v);
    if (rc == AG_SUCCESS && je) rc = members_from(je, path, &k, &seeds);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "config", 1, &jc);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "featurizer", 1, &jf);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "labels", 1, &jl);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "node_table", 0, &jt);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "target_mean", 1, &jm);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "target_std", 1, &js);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "smooth", 0, &jsm);
    if (rc == AG_SUCCESS && jsm && v < 3)
        rc = AG_ERROR(AG_EMODEL, "%s: bundle version %ld cannot hold smoothing weights (metadata 'smooth'); "
                      "the file is damaged", path, v);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "graph", 0, &jg);
    if (rc == AG_SUCCESS) rc = meta_json(file, path, "graph_sizes", 0, &jz); /* absent before 2026-12-07 */
    const char *split = ag_metadata_get(&file->metadata, "split"); /* absent before 2026-12-07 */
    int split_source = 0;
    while (rc == AG_SUCCESS && split && ++split_source < N_SPLIT_SOURCES && strcmp(split, split_sources[split_source]))
        ;
    if (rc == AG_SUCCESS && split && split_source == N_SPLIT_SOURCES)
        rc = AG_ERROR(AG_EMODEL, "%s: metadata 'split' must be random, file, folds, kfold or nodes, not '%.40s'", path,
                      split);
    const char *stratified = ag_metadata_get(&file->metadata, "split_stratified"); /* absent before 2026-12-08 */
    if (rc == AG_SUCCESS && stratified && strcmp(stratified, "true") && strcmp(stratified, "false"))
        rc = AG_ERROR(AG_EMODEL, "%s: metadata 'split_stratified' must be true or false, not '%.40s'", path,
                      stratified);
    if (rc == AG_SUCCESS && (rc = ag_model_config_from_json(&cfg, jc)) != AG_SUCCESS)
        rc = ag_i_model_file_error(rc, path, "");
    if (rc == AG_SUCCESS) rc = ag_i_model_config_fits(&cfg, k, file, path);
    if (rc == AG_SUCCESS) {
        void *mem;
        rc = ag_i_alloc_array(&mem, k, sizeof(ag_model_t *), "ensemble members");
        if (rc == AG_SUCCESS) {
            b->members = mem;
            b->n_members = k;
        }
    }
    for (int64_t m = 0; m < k && rc == AG_SUCCESS; m++) {
        if (seeds) cfg.seed = seeds[m];
        if ((rc = ag_model_create(&b->members[m], &cfg)) != AG_SUCCESS) rc = ag_i_model_file_error(rc, path, "");
    }
    if (rc == AG_SUCCESS) b->model = b->members[0];
    if (rc == AG_SUCCESS && k > 1) rc = member_params(b->members, k, &all);
    if (rc == AG_SUCCESS) rc = ag_safetensors_to_params(file, k > 1 ? &all : ag_model_params(b->model));
    if (rc == AG_SUCCESS) rc = finite_weights(k > 1 ? &all : ag_model_params(b->model), path);
    if (rc == AG_SUCCESS && (rc = ag_featurizer_from_json(&b->featurizer, jf)) != AG_SUCCESS)
        rc = ag_i_model_file_error(rc, path, "");
    if (rc == AG_SUCCESS) rc = load_labels(b, jl, path);
    if (rc == AG_SUCCESS) rc = load_table(b, jt, path);
    if (rc == AG_SUCCESS && jsm) rc = smooth_from(b, jsm, path);
    if (rc == AG_SUCCESS && jg) rc = graph_from(b, jg, path);
    if (rc == AG_SUCCESS && jz) rc = sizes_from(b, jz, path);
    if (rc == AG_SUCCESS && split) b->split_source = (ag_split_source_t)split_source;
    /* it says how the random split of labels.split_random was drawn */
    if (rc == AG_SUCCESS && stratified && !strcmp(stratified, "true")) {
        if (!b->has_split_random)
            rc = AG_ERROR(AG_EMODEL, "%s: metadata 'split_stratified' is true, but 'labels' has no split_random "
                          "for it to qualify", path);
        b->split_stratified = 1;
    }
    if (rc == AG_SUCCESS) rc = check_parts(b->model, &b->featurizer, &b->table, b->n_names, AG_EMODEL, "");
    if (rc == AG_EMODEL && strncmp(ag_error_message(), path, strlen(path)) != 0)
        rc = ag_i_model_file_error(rc, path, "");
    if (rc == AG_SUCCESS) {
        float *ms = NULL;
        int64_t C = cfg.n_out;
        rc = ag_i_alloc_array((void **)&ms, 2 * C, sizeof(float), "target scaling");
        if (rc == AG_SUCCESS) rc = floats_from(jm, path, "target_mean", C, ms);
        if (rc == AG_SUCCESS) rc = floats_from(js, path, "target_std", C, ms + C);
        for (int64_t m = 0; m < k && rc == AG_SUCCESS; m++)
            if ((rc = ag_model_set_target_scaling(b->members[m], ms, ms + C)) != AG_SUCCESS)
                rc = ag_i_model_file_error(rc, path, "");
        ag_i_free(ms);
    }
    ag_param_list_destroy(&all);
    ag_i_free(seeds);
    ag_json_free(je);
    ag_json_free(jc);
    ag_json_free(jf);
    ag_json_free(jl);
    ag_json_free(jt);
    ag_json_free(jm);
    ag_json_free(js);
    ag_json_free(jsm);
    ag_json_free(jg);
    ag_json_free(jz);
    return rc;
}

ag_error_t ag_bundle_from_safetensors(const ag_safetensors_t *file, ag_bundle_t *b) {
    if (!b) return AG_ERROR(AG_EINVAL, "ag_bundle_from_safetensors: NULL bundle");
    memset(b, 0, sizeof *b);
    if (!file || !file->path)
        return AG_ERROR(AG_EINVAL, "ag_bundle_from_safetensors: the file was not read by ag_safetensors_read");
    if (file->foreign)
        return AG_ERROR(AG_EMODEL, "%s: not an attn-graph model file (no \"format\": \"attn-graph\" in its metadata)",
                        file->path);
    ag_error_t rc = load(b, file, file->path);
    if (rc != AG_SUCCESS) ag_bundle_destroy(b);
    return rc;
}

ag_error_t ag_bundle_load(const char *path, ag_bundle_t *b) {
    if (!b || !path) return AG_ERROR(AG_EINVAL, "ag_bundle_load: NULL path or bundle");
    memset(b, 0, sizeof *b);
    ag_safetensors_t file;
    AG_CHECK(ag_safetensors_read(&file, path, AG_SAFETENSORS_STRICT));
    ag_error_t rc = ag_bundle_from_safetensors(&file, b);
    ag_safetensors_destroy(&file);
    return rc;
}

/* ---- using a bundle */

ag_error_t ag_bundle_featurize(const ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, ag_fmat_t *X,
                               ag_fmat_t *E) {
    if (!b) return AG_ERROR(AG_EINVAL, "ag_bundle_featurize: NULL bundle");
    return ag_inputs_featurize(&b->featurizer, &b->table, ig, table, X, E);
}

ag_error_t ag_bundle_predict_graph(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, ag_fmat_t *out) {
    if (!b || !b->model || !b->members) return AG_ERROR(AG_EINVAL, "ag_bundle_predict_graph: the bundle has no model");
    if (!ig || !out) return AG_ERROR(AG_EINVAL, "ag_bundle_predict_graph: NULL graph or output");
    ag_fmat_t X = {0}, E = {0}, Y = {0};
    ag_graph_t g;
    memset(&g, 0, sizeof g);
    const ag_model_config_t *c = ag_model_config(b->model);
    ag_error_t rc = ag_bundle_featurize(b, ig, table, &X, &E);
    if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&g, ig);
    if (rc == AG_SUCCESS) rc = ag_fmat_init(&Y, ag_task_is_graph_level(c->task) ? 1 : g.n_nodes, c->n_out);
    if (rc == AG_SUCCESS) {
        ag_batch_t batch;
        ag_batch_init(&batch, &g, X.data, c->edge_dim > 0 ? E.data : NULL);
        /* the batch dies here: nothing can ask its attention weights */
        rc = ag_i_ensemble_predict_lean(b->members, b->n_members, &batch, Y.data);
        ag_batch_destroy(&batch);
    }
    ag_graph_destroy(&g);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    if (rc != AG_SUCCESS) {
        ag_fmat_destroy(&Y);
        return rc;
    }
    ag_fmat_destroy(out);
    *out = Y;
    return AG_SUCCESS;
}

ag_error_t ag_bundle_predict_batch(ag_bundle_t *b, ag_batch_t *batch, float *out) {
    if (!b || !b->members) return AG_ERROR(AG_EINVAL, "ag_bundle_predict_batch: the bundle has no model");
    return ag_ensemble_predict_batch(b->members, b->n_members, batch, out);
}

ag_error_t ag_bundle_evaluate(ag_bundle_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                              ag_scores_t *scores) {
    if (!b || !b->members) return AG_ERROR(AG_EINVAL, "ag_bundle_evaluate: the bundle has no model");
    return ag_ensemble_evaluate(b->members, b->n_members, set, idx, n, scores);
}

ag_error_t ag_bundle_evaluate_tasks(ag_bundle_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                   ag_scores_t *scores, ag_scores_t *per_task) {
    if (!b || !b->members) return AG_ERROR(AG_EINVAL, "ag_bundle_evaluate_tasks: the bundle has no model");
    return ag_ensemble_evaluate_tasks(b->members, b->n_members, set, idx, n, scores, per_task);
}

ag_error_t ag_bundle_merge(ag_bundle_t *dst, ag_bundle_t *src) {
    if (!dst || !src || !dst->members || !src->members)
        return AG_ERROR(AG_EINVAL, "ag_bundle_merge: a bundle without model");
    if (dst == src) return AG_ERROR(AG_EINVAL, "ag_bundle_merge: a bundle merged into itself");
    /* everything but the weights must be the same; compared as it would be written */
    static const char *const shared[] = {"featurizer", "labels", "node_table", "target_mean", "target_std"};
    static const char *const what[] = {"featurisers (attributes, vocabularies, normalisation)", "task or class names",
                                       "node-table normalisation", "target scaling", "target scaling"};
    ag_metadata_t ma, mb;
    ag_metadata_init(&ma);
    ag_metadata_init(&mb);
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    ag_error_t rc = build_metadata(dst, &ma, &sb);
    if (rc == AG_SUCCESS) rc = build_metadata(src, &mb, &sb);
    ag_strbuf_destroy(&sb);
    /* first: of two graphs, the featurisers differ too (the degree's statistics), and say less */
    const ag_graph_print_t *ga = &dst->graph, *gb = &src->graph;
    if (rc == AG_SUCCESS && dst->has_graph && src->has_graph && !ag_graph_print_equal(ga, gb)) {
        if (ag_graph_print_same_shape(ga, gb))
            rc = AG_ERROR(AG_EMISMATCH, "the models were trained on one graph numbered two ways (its Laplacian "
                          "columns can differ between them)");
        else if (ga->directed != gb->directed)
            rc = AG_ERROR(AG_EMISMATCH, "the models were trained on different graphs (one directed, one undirected)");
        else if (ga->vertices == gb->vertices && ga->edges == gb->edges)
            rc = AG_ERROR(AG_EMISMATCH, "the models were trained on different graphs (both of %lld vertices and %lld "
                          "edges, joined otherwise)", (long long)ga->vertices, (long long)ga->edges);
        else
            rc = AG_ERROR(AG_EMISMATCH, "the models were trained on different graphs (%lld vertices and %lld edges, "
                          "%lld and %lld)", (long long)ga->vertices, (long long)ga->edges, (long long)gb->vertices,
                          (long long)gb->edges);
    }
    for (size_t i = 0; i < sizeof shared / sizeof *shared && rc == AG_SUCCESS; i++) {
        const char *a = ag_metadata_get(&ma, shared[i]), *b = ag_metadata_get(&mb, shared[i]);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            rc = AG_ERROR(AG_EMISMATCH, "the models have different %s: they were not trained on the same data with "
                          "the same feature options", what[i]);
    }
    ag_metadata_destroy(&ma);
    ag_metadata_destroy(&mb);
    for (int64_t m = 0; m < src->n_members && rc == AG_SUCCESS; m++)
        rc = check_member(dst->model, src->members[m], dst->n_members + m);
    AG_CHECK(rc);
    if (!dst->has_graph && src->has_graph) {
        dst->graph = src->graph;
        dst->has_graph = 1;
    }
    AG_CHECK(append_members(dst, src->members, src->n_members));
    /* after the last step that can fail, which leaves both bundles unchanged: the ensemble has
     * seen every size either bundle has; one that does not know its own leaves the ensemble's
     * unknown, rather than narrower than what it was trained on */
    if (dst->has_sizes && src->has_sizes) {
        if (src->size_vertices[0] < dst->size_vertices[0]) dst->size_vertices[0] = src->size_vertices[0];
        if (src->size_vertices[1] > dst->size_vertices[1]) dst->size_vertices[1] = src->size_vertices[1];
        if (src->size_edges[0] < dst->size_edges[0]) dst->size_edges[0] = src->size_edges[0];
        if (src->size_edges[1] > dst->size_edges[1]) dst->size_edges[1] = src->size_edges[1];
    } else {
        dst->has_sizes = 0;
    }
    src->model = NULL; /* its members now belong to dst; the rest of src goes */
    ag_bundle_destroy(src);
    return AG_SUCCESS;
}
