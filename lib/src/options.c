/*
 * options.c: what the options of `attn-graph train` mean (attngraph/options.h), shared by the
 * program and the igraph-style facade (api.c) so that both build the same model and training.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "attngraph/options.h"
#include "internal.h"

void ag_net_train_options_init(ag_net_train_options_t *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->lap_pe = o->rw_pe = -1;
    o->layers = o->heads = o->head_dim = o->hidden = o->hops = o->head_hidden = -1;
    o->dropout = o->attn_dropout = -1.0;
    o->epochs = o->batch_size = o->patience = o->warmup = -1;
    o->lr = o->weight_decay = o->clip = -1.0;
    o->seed = 1;
}

/* The option the last ag_net_train_options_train_config() or _model_config() call on this
 * thread refused (NULL: none) and why, for ag_net_train_options_refused() and
 * ag_net_train_options_refused_reason(); recorded only while one of them runs (recording), since
 * refuse() is reached from outside them too: ag_net_train_options_uses_edges() builds a
 * configuration of its own, and api.c checks an option with ag_i_option_index(). */
static _Thread_local const char *refused_option;
static _Thread_local char refused_reason[1024];
static _Thread_local int recording;

const char *ag_net_train_options_refused(void) { return refused_option; }
const char *ag_net_train_options_refused_reason(void) { return refused_reason; }

/* Refuses option name (a field of ag_net_train_options_t) with AG_EINVAL: the message is "option
 * NAME: REASON", REASON from fmt, and within a configuration call both parts are kept apart. */
static ag_error_t refuse(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ag_error_t refuse(const char *name, const char *fmt, ...) {
    char reason[sizeof refused_reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (recording) {
        refused_option = name;
        memcpy(refused_reason, reason, sizeof reason);
    }
    return AG_ERROR(AG_EINVAL, "option %s: %s", name, reason);
}

ag_error_t ag_i_option_index(const char *opt, const char *v, const char *const *names, int n, int *out) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], v)) {
            *out = i;
            return AG_SUCCESS;
        }
    char list[256] = "";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
    }
    return refuse(opt, "unknown value '%s' (expected %s)", v, list);
}

/* Starts (on = 1) or ends a configuration call's record of the option it refuses. */
static void record_refusals(int on) {
    if (on) {
        refused_option = NULL;
        refused_reason[0] = '\0';
    }
    recording = on;
}

const char *ag_net_train_options_preset(const ag_net_train_options_t *t, ag_task_t task, const ag_prepared_t *p,
                                        const int64_t *train, int64_t n_train, ag_preset_reason_t *why) {
    ag_preset_reason_t r;
    if (!why) why = &r;
    *why = AG_PRESET_GIVEN;
    if (t->preset) return t->preset;
    const int described = t->layers > 0 || t->heads > 0 || t->head_dim > 0 || t->hidden > 0 || t->hops > 0 ||
                          t->mask || t->score || t->attn_norm || t->readout || t->edge_mode || t->norm || t->no_ffn ||
                          t->no_residual || t->virtual_node || t->head_hidden >= 0;
    if (ag_task_is_graph_level(task)) {
        *why = AG_PRESET_TASK;
        return "graph";
    }
    const int64_t Fa = p->featurizer.n_attr_features, Ft = p->table.width;
    *why = task != AG_TASK_NODE_CLASSIFICATION || p->set.n_examples != 1 ? AG_PRESET_TASK
           : described                                                   ? AG_PRESET_MODEL_OPTIONS
           : Fa + Ft == 0                                                ? AG_PRESET_STRUCTURE_ONLY
                                                                         : AG_PRESET_DATA_FEATURES;
    if (*why != AG_PRESET_DATA_FEATURES) return "transformer";
    /* a column standardised by AG_NORM_STANDARDIZE_RAW held raw values, whatever its z-scores */
    const ag_featurizer_t *f = &p->featurizer;
    for (int64_t j = 0; f->norm == AG_NORM_STANDARDIZE && f->mean && j < Fa; j++)
        if (f->mean[j] != 0.0f || f->std[j] != 1.0f) *why = AG_PRESET_RAW_VALUES;
    for (int64_t j = 0; p->table.norm == AG_NORM_STANDARDIZE && p->table.mean && j < Ft; j++)
        if (p->table.mean[j] != 0.0f || p->table.std[j] != 1.0f) *why = AG_PRESET_RAW_VALUES;
    if (*why == AG_PRESET_RAW_VALUES) return "transformer";
    /* the data columns: the attributes' first, the feature matrix's last */
    const ag_fmat_t *X = &p->set.examples[0].X;
    const int64_t F = X->cols;
    for (int64_t i = 0; i < X->rows; i++) {
        const float *row = X->data + i * F;
        for (int64_t j = 0; j < F; j++)
            if ((j < Fa || j >= F - Ft) && !(fabsf(row[j]) <= 1.0f)) {
                *why = AG_PRESET_RAW_VALUES;
                return "transformer";
            }
    }
    /* GAT averages its neighbours (no residual keeps a vertex's own features apart): where the
     * training labels say that edges join classes no more often than chance, it falls below a
     * model of the features alone (docs/cli.md), and the transformer does not */
    double h;
    int64_t m;
    if (train && n_train > 0 && ag_prepared_homophily(p, train, n_train, &h, &m) == AG_SUCCESS &&
        m >= AG_PRESET_HOMOPHILY_EDGES && h < AG_PRESET_HOMOPHILY_MIN) {
        *why = AG_PRESET_HETEROPHILY;
        return "transformer";
    }
    return "gat";
}

static ag_error_t model_config(const ag_net_train_options_t *t, ag_task_t task, int64_t F, int64_t Fe, int64_t n_out,
                               ag_model_config_t *mc);

int ag_net_train_options_uses_edges(const ag_net_train_options_t *t, ag_task_t task) {
    ag_model_config_t mc;
    /* the edge modes follow from the options and the preset alone, not from the widths; not a
     * configuration call of its own: the option a call refused stays its answer */
    if (model_config(t, task, 1, 1, 2, &mc)) return 1;
    for (int l = 0; l < mc.n_blocks; l++)
        if (mc.blocks[l].attn.edge_mode != AG_EDGE_NONE) return 1;
    return 0;
}

/* An integer option: -1 (the default) or within [lo, hi]. */
static ag_error_t int_option(const char *name, igraph_integer_t v, igraph_integer_t lo, igraph_integer_t hi) {
    if (v == -1 || (v >= lo && v <= hi)) return AG_SUCCESS;
    return refuse(name, "-1 (the default) or an integer in [%lld, %lld], not %lld", (long long)lo, (long long)hi,
                  (long long)v);
}

/* A number option: -1 (the default) or within [lo, hi]. */
static ag_error_t real_option(const char *name, double v, double lo, double hi) {
    if (v == -1.0 || (v >= lo && v <= hi)) return AG_SUCCESS;
    return refuse(name, "-1 (the default) or a number in [%g, %g], not %g", lo, hi, v);
}

/* The options' values against the ranges the CLI takes (docs/cli.md), so that a library caller's
 * heads = 0 is refused as `--heads 0` is rather than quietly becoming the default. */
static ag_error_t check_ranges(const ag_net_train_options_t *t) {
    AG_CHECK(int_option("layers", t->layers, 1, AG_MODEL_MAX_BLOCKS));
    AG_CHECK(int_option("heads", t->heads, 1, 4096));
    AG_CHECK(int_option("head_dim", t->head_dim, 1, 1 << 20));
    AG_CHECK(int_option("hidden", t->hidden, 1, 1 << 20));
    AG_CHECK(int_option("hops", t->hops, 1, 64));
    AG_CHECK(int_option("head_hidden", t->head_hidden, 0, 1 << 20));
    AG_CHECK(int_option("lap_pe", t->lap_pe, 0, 1000));
    AG_CHECK(int_option("rw_pe", t->rw_pe, 0, 1000));
    AG_CHECK(int_option("epochs", t->epochs, 1, 100000000));
    AG_CHECK(int_option("batch_size", t->batch_size, 1, 1 << 30));
    AG_CHECK(int_option("patience", t->patience, 0, 100000000));
    AG_CHECK(int_option("warmup", t->warmup, 0, 100000000));
    AG_CHECK(real_option("lr", t->lr, 1e-12, 100.0));
    AG_CHECK(real_option("weight_decay", t->weight_decay, 0.0, 100.0));
    AG_CHECK(real_option("clip", t->clip, 0.0, 1e9));
    AG_CHECK(real_option("dropout", t->dropout, 0.0, 0.99));
    AG_CHECK(real_option("attn_dropout", t->attn_dropout, 0.0, 0.99));
    /* threads' default is 0 (the count left as it is), not -1 */
    if (t->threads < 0 || t->threads > AG_THREADS_MAX)
        return refuse("threads", "0 (the default: the thread count left as it is) or an integer in [1, %d], not %d",
                      AG_THREADS_MAX, t->threads);
    /* huber's default is 0 (the mean squared error), not -1; NaN fails both tests */
    if (!(t->huber == 0.0 || (t->huber >= 1e-6 && t->huber <= 1e6)))
        return refuse("huber", "0 (the default: mean squared error) or a number in [1e-06, 1e+06], "
                      "not %g", t->huber);
    return AG_SUCCESS;
}

static ag_error_t train_config(const ag_net_train_options_t *t, ag_task_t task, ag_train_config_t *tc) {
    ag_train_config_default(tc, task);
    AG_CHECK(check_ranges(t));
    if (t->preset && !strcmp(t->preset, "gat")) {
        tc->optim.lr = 0.005f;
        tc->optim.weight_decay = 5e-4f;
        tc->patience = 100;
    } else if (t->preset && !strcmp(t->preset, "graph")) {
        /* the default patience stays: over the whole schedule, ESOL's and Tox21's runs kept the
         * epochs an early stop keeps (docs/cli.md), in a third to a half of the time */
        tc->lr_schedule = AG_LR_COSINE;
        tc->clip_norm = 1.0f;
    }
    int k;
    if (t->optimizer) {
        static const char *const opts[] = {"sgd", "adam", "adamw"};
        AG_CHECK(ag_i_option_index("optimizer", t->optimizer, opts, 3, &k));
        float lr = tc->optim.lr, wd = tc->optim.weight_decay;
        ag_optim_config_default(&tc->optim, (ag_optim_kind_t)k);
        tc->optim.lr = lr;
        tc->optim.weight_decay = wd;
    }
    if (t->schedule) {
        static const char *const s[] = {"constant", "step", "cosine"};
        AG_CHECK(ag_i_option_index("schedule", t->schedule, s, 3, &k));
        tc->lr_schedule = (ag_lr_kind_t)k;
    }
    /* ag_metric_from_name's message ("unknown metric 'x' (expected ...)") is the reason as it is */
    ag_error_t rc;
    if (t->metric && (rc = ag_metric_from_name(t->metric, &tc->metric)) != AG_SUCCESS) {
        refused_option = "metric";
        snprintf(refused_reason, sizeof refused_reason, "%s", ag_error_message());
        return rc;
    }
    if (t->lr > 0) tc->optim.lr = (float)t->lr;
    if (t->weight_decay >= 0) tc->optim.weight_decay = (float)t->weight_decay;
    if (t->clip >= 0) tc->clip_norm = (float)t->clip;
    if (t->huber > 0) tc->huber_delta = (float)t->huber;
    if (t->epochs > 0) tc->epochs = t->epochs;
    if (t->batch_size > 0) tc->batch_size = t->batch_size;
    if (t->patience >= 0) tc->patience = t->patience;
    if (t->warmup >= 0) tc->warmup_epochs = t->warmup;
    if (t->min_epochs > 0) tc->min_epochs = t->min_epochs;
    tc->seed = t->seed;
    if (t->no_train_metric) tc->eval_train = 0;
    tc->progress = t->progress;
    tc->progress_user = t->progress_user;
    tc->stop = t->stop;
    return AG_SUCCESS;
}

ag_error_t ag_net_train_options_train_config(const ag_net_train_options_t *t, ag_task_t task, ag_train_config_t *tc) {
    record_refusals(1);
    const ag_error_t rc = train_config(t, task, tc);
    record_refusals(0);
    return rc;
}

/* Block l's mask of a list such as "neighbours,full": one name per block, the list repeated when
 * shorter than the L blocks, so that local and global blocks can alternate (GraphGPS's point:
 * a global block sees what neighbour blocks take many layers to reach). A single name is a list
 * of one. */
static ag_error_t mask_at(const char *list, int l, int L, const char *const *names, int *out) {
    int n = 1;
    for (const char *c = list; *c; c++) n += *c == ',';
    if (n > L)
        return refuse("mask", "%d masks in '%s' for %d block%s (one per block, repeated when fewer)",
                      n, list, L, L == 1 ? "" : "s");
    const char *start = list;
    for (int i = 0; i < l % n; i++) start = strchr(start, ',') + 1;
    const char *end = strchr(start, ',');
    const size_t len = end ? (size_t)(end - start) : strlen(start);
    char one[16];
    if (len >= sizeof one) {
        if (n == 1) return ag_i_option_index("mask", list, names, 3, out);
        return refuse("mask", "entry %d of '%s' is not neighbours, khop or full", l % n + 1, list);
    }
    memcpy(one, start, len);
    one[len] = '\0';
    if (n == 1) return ag_i_option_index("mask", one, names, 3, out);
    if (ag_i_option_index("mask", one, names, 3, out) != AG_SUCCESS)
        return refuse("mask", "entry %d of '%s' is '%s', not neighbours, khop or full", l % n + 1,
                      list, one);
    return AG_SUCCESS;
}

static ag_error_t model_config(const ag_net_train_options_t *t, ag_task_t task, int64_t F, int64_t Fe, int64_t n_out,
                               ag_model_config_t *mc) {
    AG_CHECK(check_ranges(t));
    static const char *const presets[] = {"transformer", "gat", "graph"};
    int preset = 0, k;
    if (t->preset) AG_CHECK(ag_i_option_index("preset", t->preset, presets, 3, &preset));
    if (preset == 2 && !ag_task_is_graph_level(task))
        return refuse("preset", "'graph' is the model of graph tasks (a graph token as "
                      "readout); node tasks take transformer or gat");
    if (t->layers > AG_MODEL_MAX_BLOCKS)
        return refuse("layers", "at most %d, not %lld", AG_MODEL_MAX_BLOCKS, (long long)t->layers);
    if (preset == 1) {
        if (ag_task_is_graph_level(task))
            return refuse("preset", "'gat' is the node-classification model of the GAT paper; use "
                          "score 'gat' for graph tasks");
        ag_model_config_gat(mc, F, n_out);
        int L = t->layers > 0 ? (int)t->layers : 2;
        if (L < 2) L = 2;
        ag_block_config_t first = mc->blocks[0], last = mc->blocks[1];
        mc->n_blocks = L;
        for (int l = 0; l < L - 1; l++) mc->blocks[l] = first;
        mc->blocks[L - 1] = last;
        for (int l = 0; l < L - 1; l++) {
            if (t->heads > 0) mc->blocks[l].attn.heads = t->heads;
            if (t->head_dim > 0) mc->blocks[l].attn.head_dim = t->head_dim;
        }
        if (t->hidden > 0) mc->hidden = t->hidden;
    } else {
        ag_model_config_default(mc, task);
        if (t->layers > 0) mc->n_blocks = (int)t->layers;
        else if (preset == 2) mc->n_blocks = 4;
        int64_t W = t->hidden > 0 ? t->hidden : 64;
        mc->hidden = W;
        for (int l = 0; l < mc->n_blocks; l++) {
            ag_block_config_t *b = &mc->blocks[l];
            *b = mc->blocks[0];
            if (t->heads > 0) b->attn.heads = t->heads;
            else if (preset == 2) b->attn.heads = 8;
            if (preset == 2) b->attn.score = AG_SCORE_GATV2;
            b->attn.head_dim = t->head_dim > 0 ? t->head_dim : (W / b->attn.heads > 0 ? W / b->attn.heads : 1);
            b->attn.out_dim = W;
            b->ffn_hidden = 2 * W;
        }
        mc->head_hidden = W;
    }
    mc->task = task;
    mc->in_dim = F;
    mc->edge_dim = Fe;
    mc->n_out = n_out;
    for (int l = 0; l < mc->n_blocks; l++) {
        ag_block_config_t *b = &mc->blocks[l];
        static const char *const masks[] = {"neighbours", "khop", "full"};
        static const char *const scores[] = {"dot", "gat", "gatv2"};
        static const char *const anorms[] = {"softmax", "relu"};
        static const char *const emodes[] = {"none", "key", "bias"};
        static const char *const norms[] = {"none", "pre", "post"};
        if (t->mask) {
            AG_CHECK(mask_at(t->mask, l, mc->n_blocks, masks, &k));
            b->mask = (ag_mask_kind_t)k;
        }
        if (t->hops > 0) b->hops = (int)t->hops;
        if (t->score) {
            AG_CHECK(ag_i_option_index("score", t->score, scores, 3, &k));
            b->attn.score = (ag_score_t)k;
        }
        if (t->attn_norm) {
            AG_CHECK(ag_i_option_index("attn_norm", t->attn_norm, anorms, 2, &k));
            b->attn.norm = (ag_norm_t)k;
        }
        if (t->edge_mode) {
            AG_CHECK(ag_i_option_index("edge_mode", t->edge_mode, emodes, 3, &k));
            b->attn.edge_mode = (ag_edge_mode_t)k;
        } else {
            b->attn.edge_mode = Fe == 0 || preset == 1 ? AG_EDGE_NONE : preset == 2 ? AG_EDGE_BIAS : AG_EDGE_KEY;
        }
        if (t->norm) {
            AG_CHECK(ag_i_option_index("norm", t->norm, norms, 3, &k));
            b->norm = (ag_norm_place_t)k;
        }
        if (t->dropout >= 0) b->dropout = (float)t->dropout;
        if (t->attn_dropout >= 0) b->attn.attn_dropout = (float)t->attn_dropout;
        if (t->dropout >= 0) b->ffn_dropout = (float)t->dropout;
        if (t->no_ffn) b->ffn = 0;
        if (t->no_residual) b->residual = 0;
    }
    if (t->dropout >= 0 && preset != 1) mc->head_dropout = (float)t->dropout;
    if (!t->readout && preset == 2) {
        mc->n_readouts = 1;
        mc->readouts[0] = AG_READOUT_VNODE;
    }
    if (t->readout && !ag_task_is_graph_level(task))
        return refuse("readout", "node tasks read each node's own output; the option pools the "
                      "nodes of a graph, for graph tasks");
    if (t->readout && ag_readout_kinds_from_list(t->readout, mc->readouts, &mc->n_readouts))
        return refuse("readout", "unknown value '%s' (expected mean, sum, max, attention or "
                      "vnode, or several of them joined by commas, each once)", t->readout);
    if (t->head_hidden >= 0) {
        if (!ag_task_is_graph_level(task))
            return refuse("head_hidden", "node tasks have a linear head on each node; the "
                          "option is for graph tasks");
        mc->head_hidden = t->head_hidden;
    }
    if (t->virtual_node) mc->virtual_node = 1;
    for (int r = 0; r < mc->n_readouts; r++)
        if (mc->readouts[r] == AG_READOUT_VNODE) mc->virtual_node = 1;
    mc->seed = t->seed;
    return AG_SUCCESS;
}

ag_error_t ag_net_train_options_model_config(const ag_net_train_options_t *t, ag_task_t task, int64_t F, int64_t Fe,
                                             int64_t n_out, ag_model_config_t *mc) {
    record_refusals(1);
    const ag_error_t rc = model_config(t, task, F, Fe, n_out, mc);
    record_refusals(0);
    return rc;
}

void ag_net_train_options_feature_defaults(const ag_net_train_options_t *t, ag_task_t task, const char *preset,
                                          ag_featurizer_config_t *fc) {
    if (!ag_task_is_graph_level(task)) {
        /* whatever the preset: the gat preset has no normalisation layer, and the transformer
         * stopped early at chance on a graph whose one raw column (an age) sat beside one-hot ones */
        if (!t->normalize) fc->norm = AG_NORM_STANDARDIZE_RAW;
        /* a structural option given, even 0, is the user's choice of columns */
        if (t->lap_pe < 0 && t->rw_pe < 0) fc->lap_pe_if_featureless = AG_FEATURELESS_LAP_PE;
        return;
    }
    if (!preset || strcmp(preset, "graph") != 0) return;
    if (!t->normalize) fc->norm = AG_NORM_STANDARDIZE;
    if (t->rw_pe < 0) fc->rw_pe_k = 8;
}

void ag_net_train_options_sign_flip(const ag_net_train_options_t *o, ag_task_t task, const ag_featurizer_t *f,
                                    ag_train_config_t *tc) {
    tc->flip_col0 = tc->flip_cols = 0;
    if (!o->no_sign_flip && ag_task_is_graph_level(task)) ag_featurizer_lap_columns(f, &tc->flip_col0, &tc->flip_cols);
}
