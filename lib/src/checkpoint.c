/*
 * checkpoint.c: a training run's state (train.h's ag_train_state_t) with the model's weights in
 * one safetensors file, written atomically, read back with every field validated.
 *
 * Tensors: "model.<param>" (the weights of the last completed epoch), "optim.m" and "optim.v"
 * (P each; v only for Adam/AdamW), "best" (P). Metadata (strings): "kind" = "checkpoint",
 * "checkpoint_version", "config" (the model configuration's JSON, compared on load), and the
 * counters; numbers that must come back bit for bit are written exactly (integers in decimal,
 * the best metric with 17 significant digits).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/safetensors.h"
#include "attngraph/train.h"
#include "internal.h"
#include "json.h"
#include "model_json.h"
#include "name_index.h"

#define CHECKPOINT_VERSION 1

static ag_error_t set_i64(ag_metadata_t *m, const char *key, long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return ag_metadata_set(m, key, buf);
}

static ag_error_t set_u64(ag_metadata_t *m, const char *key, unsigned long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    return ag_metadata_set(m, key, buf);
}

static ag_error_t set_f64(ag_metadata_t *m, const char *key, double v) {
    char buf[40];
    if (isnan(v)) snprintf(buf, sizeof buf, "nan");
    else snprintf(buf, sizeof buf, "%.17g", v);
    return ag_metadata_set(m, key, buf);
}

static ag_error_t build_meta(ag_metadata_t *m, const ag_model_t *model, const ag_train_state_t *st,
                             const ag_metadata_t *extra) {
    AG_CHECK(ag_i_metadata_merge(m, extra));
    AG_CHECK(ag_metadata_set(m, "kind", "checkpoint"));
    AG_CHECK(set_i64(m, "checkpoint_version", CHECKPOINT_VERSION));
    AG_CHECK(ag_metadata_set(m, "attn_graph_version", ag_version()));
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    ag_error_t rc = ag_model_config_to_json(ag_model_config(model), &sb);
    if (rc == AG_SUCCESS && sb.failed) rc = AG_ERROR(AG_ENOMEM, "out of memory writing a checkpoint");
    if (rc == AG_SUCCESS) rc = ag_metadata_set(m, "config", sb.data ? sb.data : "");
    ag_strbuf_destroy(&sb);
    AG_CHECK(rc);
    AG_CHECK(ag_metadata_set(m, "train_config", st->config));
    AG_CHECK(set_i64(m, "epoch", st->epoch));
    AG_CHECK(set_i64(m, "step", st->step));
    AG_CHECK(set_u64(m, "rng_seed", st->rng.seed));
    AG_CHECK(set_u64(m, "rng_stream", st->rng.stream));
    AG_CHECK(set_i64(m, "optim_kind", st->optim.cfg.kind));
    AG_CHECK(set_i64(m, "optim_step", st->optim.step));
    AG_CHECK(set_f64(m, "best_metric", st->best_metric));
    AG_CHECK(set_i64(m, "best_epoch", st->best_epoch));
    AG_CHECK(set_i64(m, "since_best", st->since_best));
    AG_CHECK(set_f64(m, "seconds", st->seconds));
    /* the shuffle order: decimal indices separated by commas */
    ag_strbuf_init(&sb);
    for (int64_t i = 0; i < st->n_order; i++) ag_strbuf_printf(&sb, "%s%lld", i ? "," : "", (long long)st->order[i]);
    rc = sb.failed ? AG_ERROR(AG_ENOMEM, "out of memory writing a checkpoint") : AG_SUCCESS;
    if (rc == AG_SUCCESS) rc = ag_metadata_set(m, "order", sb.data ? sb.data : "");
    ag_strbuf_destroy(&sb);
    return rc;
}

ag_error_t ag_train_state_save(const char *path, const ag_model_t *model, const ag_train_state_t *st,
                               const ag_metadata_t *extra) {
    if (!path || !model || !st) return AG_ERROR(AG_EINVAL, "ag_train_state_save: NULL path, model or state");
    const ag_param_list_t *params = ag_model_params(model);
    if (st->n_params != ag_param_list_size(params) || st->optim.size != st->n_params)
        return AG_ERROR(AG_EINVAL, "%s: the training state is not for this model", path);
    int64_t n = params->count + 3;
    ag_tensor_t *ts = NULL;
    char **names = NULL;
    ag_metadata_t m;
    ag_metadata_init(&m);
    ag_error_t rc = ag_i_alloc_array((void **)&ts, n, sizeof *ts, "checkpoint tensors");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&names, params->count, sizeof *names, "checkpoint names");
    int64_t k = 0;
    for (int64_t i = 0; rc == AG_SUCCESS && i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        size_t len = strlen(p->name) + 7;
        names[i] = ag_i_malloc(len);
        if (!names[i]) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory writing a checkpoint");
            break;
        }
        snprintf(names[i], len, "model.%s", p->name);
        ts[k].name = names[i];
        ts[k].ndim = p->ndim;
        ts[k].shape[0] = p->shape[0];
        ts[k].shape[1] = p->shape[1];
        ts[k].data = p->value;
        k++;
    }
    if (rc == AG_SUCCESS) {
        ts[k].name = "optim.m";
        ts[k].ndim = 1;
        ts[k].shape[0] = st->n_params;
        ts[k++].data = st->optim.m;
        if (st->optim.v) {
            ts[k].name = "optim.v";
            ts[k].ndim = 1;
            ts[k].shape[0] = st->n_params;
            ts[k++].data = st->optim.v;
        }
        ts[k].name = "best";
        ts[k].ndim = 1;
        ts[k].shape[0] = st->n_params;
        ts[k++].data = st->best;
        rc = build_meta(&m, model, st, extra);
    }
    if (rc == AG_SUCCESS) rc = ag_safetensors_write(path, ts, k, &m);
    for (int64_t i = 0; names && i < params->count; i++) ag_i_free(names[i]);
    ag_i_free(names);
    ag_i_free(ts);
    ag_metadata_destroy(&m);
    return rc;
}

/* ---- loading */

static ag_error_t get_text(const ag_safetensors_t *f, const char *key, const char **out) {
    *out = ag_metadata_get(&f->metadata, key);
    if (!*out) return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata '%s' is missing", f->path, key);
    return AG_SUCCESS;
}

static ag_error_t get_i64(const ag_safetensors_t *f, const char *key, int64_t lo, int64_t *out) {
    const char *s;
    AG_CHECK(get_text(f, key, &s));
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || errno == ERANGE) /* beyond int64: refused, not clamped */
        return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata '%s' is '%s', not an integer >= %lld", f->path, key, s,
                        (long long)lo);
    *out = v;
    return AG_SUCCESS;
}

static ag_error_t get_u64(const ag_safetensors_t *f, const char *key, uint64_t *out) {
    const char *s;
    AG_CHECK(get_text(f, key, &s));
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || *s == '-' || errno == ERANGE)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata '%s' is '%s', not an unsigned integer", f->path, key, s);
    *out = v;
    return AG_SUCCESS;
}

static ag_error_t get_f64(const ag_safetensors_t *f, const char *key, double *out) {
    const char *s;
    AG_CHECK(get_text(f, key, &s));
    char *end = NULL;
    double v = strtod(s, &end);
    if (!*s || *end || isinf(v))
        return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata '%s' is '%s', not a number", f->path, key, s);
    *out = v;
    return AG_SUCCESS;
}

static ag_error_t get_vector(const ag_safetensors_t *f, const char *name, int64_t P, const float **out) {
    const ag_tensor_t *t = ag_safetensors_find(f, name);
    if (!t) return AG_ERROR(AG_EMODEL, "%s: checkpoint tensor '%s' is missing", f->path, name);
    if (t->ndim != 1 || t->shape[0] != P)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint tensor '%s' does not hold %lld values (the model's parameters)",
                        f->path, name, (long long)P);
    *out = t->data;
    return AG_SUCCESS;
}

/* Parses the shuffle order into st (allocated). */
static ag_error_t parse_order(const ag_safetensors_t *f, ag_train_state_t *st) {
    const char *s;
    AG_CHECK(get_text(f, "order", &s));
    int64_t n = *s ? 1 : 0;
    for (const char *c = s; *c; c++) n += *c == ',';
    AG_CHECK(ag_i_alloc_array((void **)&st->order, n, sizeof(int64_t), "checkpoint order"));
    st->n_order = n;
    const char *c = s;
    for (int64_t i = 0; i < n; i++) {
        char *end = NULL;
        long long v = strtoll(c, &end, 10);
        if (end == c || v < 0 || (*end != ',' && *end != '\0') || (*end == '\0' && i != n - 1))
            return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata 'order' is malformed at item %lld", f->path, (long long)i);
        st->order[i] = v;
        c = *end ? end + 1 : end;
    }
    return AG_SUCCESS;
}

/* The stored configuration, read as a model file's: every field valid and no key this version does
 * not know (a damaged file is told from one of another architecture). */
static ag_error_t read_config(const ag_safetensors_t *f, ag_model_config_t *cfg) {
    const char *text;
    AG_CHECK(get_text(f, "config", &text));
    ag_json_t *j = NULL;
    ag_error_t rc = ag_json_parse(text, strlen(text), "config", &j);
    if (rc == AG_SUCCESS) rc = ag_model_config_from_json(cfg, j);
    ag_json_free(j);
    return rc == AG_SUCCESS ? rc : ag_i_model_file_error(rc, f->path, "checkpoint configuration: ");
}

static ag_error_t check_version(const ag_safetensors_t *f) {
    int64_t version;
    AG_CHECK(get_i64(f, "checkpoint_version", 1, &version));
    if (version > CHECKPOINT_VERSION)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint version %lld is newer than this attn-graph reads (%d)", f->path,
                        (long long)version, CHECKPOINT_VERSION);
    return AG_SUCCESS;
}

/* The architecture must be exactly the caller's model's: compared as this version writes both, so
 * that a checkpoint written before a field existed (read with its default) is not taken for
 * another architecture. */
static ag_error_t check_architecture(const ag_safetensors_t *f, const ag_model_t *model) {
    ag_model_config_t stored;
    AG_CHECK(read_config(f, &stored));
    ag_strbuf_t sb, sb_stored;
    ag_strbuf_init(&sb);
    ag_strbuf_init(&sb_stored);
    ag_error_t rc = ag_model_config_to_json(ag_model_config(model), &sb);
    if (rc == AG_SUCCESS) rc = ag_model_config_to_json(&stored, &sb_stored);
    if (rc == AG_SUCCESS && (sb.failed || sb_stored.failed))
        rc = AG_ERROR(AG_ENOMEM, "out of memory reading a checkpoint");
    if (rc == AG_SUCCESS && strcmp(sb.data ? sb.data : "", sb_stored.data ? sb_stored.data : "") != 0)
        rc = AG_ERROR(AG_EMISMATCH, "%s: the checkpoint is for another model architecture (its configuration differs "
                      "from this run's)", f->path);
    ag_strbuf_destroy(&sb);
    ag_strbuf_destroy(&sb_stored);
    return rc;
}

/* "model." and a parameter's name */
#define MODEL_TENSOR_NAME_CAP (AG_PARAM_NAME_MAX + 8)

/* The file's tensor "model.<p's name>", written into name (MODEL_TENSOR_NAME_CAP bytes), or NULL. */
static const ag_tensor_t *find_model_tensor(const ag_safetensors_t *f, const ag_i_name_index_t *ix, char *name,
                                            const ag_param_t *p) {
    snprintf(name, MODEL_TENSOR_NAME_CAP, "model.%s", p->name);
    int64_t at = ag_i_name_index_find(ix, name);
    return at >= 0 ? &f->tensors[at] : NULL;
}

/* The state of a checkpoint whose version and architecture are checked: the model's weights, the
 * optimiser's, the best weights and the counters, each checked before any is written; ix indexes
 * f's tensor names. */
static ag_error_t load_state_indexed(const ag_safetensors_t *f, const ag_i_name_index_t *ix, ag_model_t *model,
                                     ag_train_state_t *st) {
    const ag_param_list_t *params = ag_model_params(model);
    int64_t P = ag_param_list_size(params), k;
    char name[MODEL_TENSOR_NAME_CAP];
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        const ag_tensor_t *t = find_model_tensor(f, ix, name, p);
        if (!t) return AG_ERROR(AG_EMODEL, "%s: checkpoint tensor '%s' is missing", f->path, name);
        if (t->ndim != p->ndim || t->shape[0] != p->shape[0] || (p->ndim == 2 && t->shape[1] != p->shape[1]))
            return AG_ERROR(AG_EMODEL, "%s: checkpoint tensor '%s' has another shape than the model's", f->path, name);
    }
    int64_t optim_kind;
    AG_CHECK(get_i64(f, "optim_kind", 0, &optim_kind));
    if (optim_kind > AG_OPTIM_ADAMW)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint optim_kind %lld is unknown", f->path, (long long)optim_kind);
    ag_optim_config_t oc;
    ag_optim_config_default(&oc, (ag_optim_kind_t)optim_kind);
    const float *m = NULL, *v = NULL, *best = NULL;
    AG_CHECK(get_vector(f, "optim.m", P, &m));
    if (optim_kind != AG_OPTIM_SGD) AG_CHECK(get_vector(f, "optim.v", P, &v));
    AG_CHECK(get_vector(f, "best", P, &best));
    int64_t expect_tensors = params->count + 2 + (v != NULL);
    if (f->n_tensors != expect_tensors)
        return AG_ERROR(AG_EMODEL, "%s: the checkpoint holds %lld tensors, a checkpoint of this model %lld", f->path,
                        (long long)f->n_tensors, (long long)expect_tensors);
    const char *tc;
    AG_CHECK(get_text(f, "train_config", &tc));
    if (strlen(tc) >= sizeof st->config)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint metadata 'train_config' is too long", f->path);
    snprintf(st->config, sizeof st->config, "%s", tc);
    AG_CHECK(get_i64(f, "epoch", 0, &st->epoch));
    AG_CHECK(get_i64(f, "step", 0, &st->step));
    AG_CHECK(get_u64(f, "rng_seed", &st->rng.seed));
    AG_CHECK(get_u64(f, "rng_stream", &st->rng.stream));
    AG_CHECK(get_f64(f, "best_metric", &st->best_metric));
    AG_CHECK(get_i64(f, "best_epoch", 0, &st->best_epoch));
    AG_CHECK(get_i64(f, "since_best", 0, &st->since_best));
    AG_CHECK(get_f64(f, "seconds", &st->seconds));
    AG_CHECK(get_i64(f, "optim_step", 0, &k));
    /* what the counters say of one another, whatever the data: checked here so that `info`, which
     * has no data, finds what --resume would (ag_model_train_resume checks them against the data too) */
    /* the epochs since the best are at most those after it (fewer when some came before
     * min_epochs, which do not count) */
    if (st->best_epoch > st->epoch || st->since_best > st->epoch - st->best_epoch || k > st->step)
        return AG_ERROR(AG_EMODEL, "%s: checkpoint: inconsistent counters (epoch %lld, best epoch %lld, %lld epochs "
                        "since the best, %lld optimiser steps of which %lld in the optimiser)", f->path,
                        (long long)st->epoch, (long long)st->best_epoch, (long long)st->since_best,
                        (long long)st->step, (long long)k);
    AG_CHECK(parse_order(f, st));
    /* the optimiser state, sized from the model's list, then filled */
    AG_CHECK(ag_optim_init(&st->optim, &oc, params));
    st->optim.step = k;
    memcpy(st->optim.m, m, (size_t)P * sizeof(float));
    if (v) memcpy(st->optim.v, v, (size_t)P * sizeof(float));
    AG_CHECK(ag_i_alloc_array((void **)&st->best, P, sizeof(float), "checkpoint best weights"));
    memcpy(st->best, best, (size_t)P * sizeof(float));
    st->n_params = P;
    /* everything checked: now the model's weights */
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        const ag_tensor_t *t = find_model_tensor(f, ix, name, p);
        memcpy(p->value, t->data, (size_t)(p->shape[0] * p->shape[1]) * sizeof(float));
    }
    return AG_SUCCESS;
}

/* load_state_indexed with the file's names indexed once: a scan per parameter is O(T^2). */
static ag_error_t load_state(const ag_safetensors_t *f, ag_model_t *model, ag_train_state_t *st) {
    ag_i_name_index_t ix;
    AG_CHECK(ag_i_tensor_index(&ix, f));
    ag_error_t rc = load_state_indexed(f, &ix, model, st);
    ag_i_name_index_destroy(&ix);
    return rc;
}

/* A model file is the likely mix-up (both are safetensors), hence the hint. */
static ag_error_t check_kind(const ag_safetensors_t *f) {
    const char *kind = ag_metadata_get(&f->metadata, "kind");
    if (!kind || strcmp(kind, "checkpoint") != 0)
        return AG_ERROR(AG_EMODEL,
                        "%s: not a training checkpoint (metadata 'kind' is not \"checkpoint\"; a model file? resume "
                        "from the file given to --checkpoint)",
                        f->path);
    return AG_SUCCESS;
}

ag_error_t ag_train_state_load(const char *path, ag_model_t *model, ag_train_state_t *st, ag_metadata_t *extra) {
    if (!st) return AG_ERROR(AG_EINVAL, "ag_train_state_load: NULL state");
    memset(st, 0, sizeof *st);
    if (!path || !model) return AG_ERROR(AG_EINVAL, "ag_train_state_load: NULL path or model");
    ag_safetensors_t f;
    AG_CHECK(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT));
    ag_error_t rc = check_kind(&f);
    if (rc == AG_SUCCESS) rc = check_version(&f);
    if (rc == AG_SUCCESS) rc = check_architecture(&f, model);
    if (rc == AG_SUCCESS) rc = load_state(&f, model, st);
    if (rc == AG_SUCCESS && extra) rc = ag_i_metadata_merge(extra, &f.metadata);
    ag_safetensors_destroy(&f);
    if (rc != AG_SUCCESS) ag_train_state_destroy(st);
    return rc;
}

ag_error_t ag_train_state_open(const ag_safetensors_t *f, ag_model_t **model, ag_train_state_t *st) {
    if (!model || !st) return AG_ERROR(AG_EINVAL, "ag_train_state_open: NULL model or state output");
    memset(st, 0, sizeof *st);
    *model = NULL;
    if (!f || !f->path) return AG_ERROR(AG_EINVAL, "ag_train_state_open: the file was not read");
    AG_CHECK(check_kind(f));
    AG_CHECK(check_version(f));
    /* the model is built from the stored configuration, so it has the checkpoint's architecture:
     * nothing to compare */
    ag_model_config_t cfg;
    AG_CHECK(read_config(f, &cfg));
    AG_CHECK(ag_i_model_config_fits(&cfg, 1, f, f->path));
    ag_error_t rc = ag_model_create(model, &cfg);
    if (rc != AG_SUCCESS) return ag_i_model_file_error(rc, f->path, "checkpoint configuration: ");
    if ((rc = load_state(f, *model, st)) != AG_SUCCESS) {
        ag_train_state_destroy(st);
        ag_model_destroy(*model);
        *model = NULL;
    }
    return rc;
}
