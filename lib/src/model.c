/*
 * model.c: a graph attention model as a tape of operations.
 *
 * The architecture (input projection, blocks, readout, head) is compiled once into a flat list of
 * operations. Value k+1 is the output of operation k applied to value k (value 0 is the input X);
 * a residual is an ADD operation that also reads an earlier value. Forward runs the tape in order;
 * backward runs it in reverse, adding each operation's input gradient into the gradient of value k
 * (and, for ADD, of the earlier value). In training every value has its own buffer, grown with N,
 * so a training step of a size already seen allocates nothing. Evaluation has no backward to keep
 * values for: the val[] buffers are a pool from which each value takes one when it is written and
 * to which it returns it after its last reader, so a pass holds a few values, not every block's.
 */
#include <math.h>
#include <string.h>
#include "attngraph/model.h"
#include "internal.h"
#include "json.h"
#include "model_json.h"
#include "layers_internal.h"

typedef enum op_kind_t {
    OP_DROPOUT,
    OP_LINEAR,
    OP_ATTENTION,
    OP_ACT,
    OP_LAYERNORM,
    OP_FFN,
    OP_ADD,
    OP_READOUT,
    OP_VNODE_ADD,  /* N x W -> (N + G) x W: inserts each graph's token after its nodes */
    OP_VNODE_DROP  /* (N + G) x W -> N x W: removes the tokens again */
} op_kind_t;

typedef struct op_t {
    op_kind_t kind;
    int64_t in_w, out_w; /* widths of the input and output values */
    int graph_rows;      /* the output has one row per graph (the readout and what follows); 2: one
                            row per node and per graph token (virtual node, rows N + G) */
    int add_from;        /* OP_ADD: index of the earlier value added to the input */
    int block;           /* OP_ATTENTION: the block it belongs to */
    int has_params;
    char name[48];       /* prefix of its parameters: input.proj, blocks.L.attn, blocks.L.norm1, ... */
    union {
        ag_dropout_t drop;
        ag_linear_t lin;
        ag_attention_t attn;
        ag_act_t act;
        ag_layernorm_t ln;
        ag_ffn_t ffn;
        struct {
            int n;
            ag_readout_t r[AG_READOUT_COUNT]; /* each pools the same rows; outputs side by side */
        } ro;
        struct {
            float *emb, *demb; /* (W) the graph token's embedding and its gradient */
        } vn;
    } u;
} op_t;

#define AG_MODEL_MAX_OPS (8 + 12 * AG_MODEL_MAX_BLOCKS)

struct ag_model_t {
    ag_model_config_t cfg;
    int n_ops;
    op_t ops[AG_MODEL_MAX_OPS];
    int attn_op[AG_MODEL_MAX_BLOCKS];  /* op index of each block's attention */
    ag_param_list_t params;
    /* Values and their gradients: value k is (rows_k x width_k), rows N or G. */
    float *val[AG_MODEL_MAX_OPS + 1];   /* val[0] is unused: the input is the batch's X */
    float *grad[AG_MODEL_MAX_OPS + 1];  /* grad[0] is never computed (nothing upstream learns) */
    int64_t width[AG_MODEL_MAX_OPS + 1];
    int graph_rows[AG_MODEL_MAX_OPS + 1];
    int needs_grad[AG_MODEL_MAX_OPS + 1]; /* a parameter lies upstream of value k */
    float *target_mean, *target_std;      /* (n_out) regression scaling: out * std + mean */
    int64_t val_cap[AG_MODEL_MAX_OPS + 1];  /* floats each buffer holds */
    int64_t grad_cap[AG_MODEL_MAX_OPS + 1];
    /* Evaluation needs a value only until its last reader has run (training keeps them all for
     * the backward): ev_last[k] is the step after which nothing reads value k's buffer, -1 for a
     * value with no buffer of its own in evaluation (see eval_liveness). */
    int ev_last[AG_MODEL_MAX_OPS + 1];
    /* The last forward pass that completed, which backward and the attention weights read: its
     * batch, what the batch wrapped and its sizes (a batch rebuilt in place on other data at the
     * same address shows as other sizes or pointers); last_batch NULL before any or after one
     * that failed, whose activations are partial. */
    const ag_batch_t *last_batch;
    const ag_graph_t *last_graph;
    const float *last_X, *last_E;
    int64_t last_nodes, last_graphs, last_edges;
    int last_training;
    /* keep_attn: evaluation passes keep each attention layer's cache for the attention weights
     * (the default; ag_model_keep_attention); 0: the layers share one workspace from the pool
     * (attention_forward). last_lean: the last pass was such a pass, which left no weights. */
    int keep_attn, last_lean;
    int64_t *vn_ptr;  /* (G+1) virtual node: graph ranges of the widened batch, tokens last */
    int64_t vn_cap;
    /* Several readouts: their operands and results, one readout at a time. */
    float *ro_x, *ro_dx;  /* (N x W) the node rows without the tokens (a vnode readout among them) */
    float *ro_y, *ro_dy;  /* (G x W) one readout's output and its gradient */
    int64_t ro_x_cap, ro_dx_cap, ro_y_cap, ro_dy_cap;
};

/* ---- names */

static const char *const task_names[] = {"node-classification", "node-regression", "graph-classification",
                                         "graph-multitask", "graph-regression"};
static const char *const score_names[] = {"dot", "gat", "gatv2"};
static const char *const attnnorm_names[] = {"softmax", "relu"};
static const char *const mask_names[] = {"neighbours", "khop", "full"};
static const char *const combine_names[] = {"concat", "mean"};
static const char *const edge_names[] = {"none", "key", "bias"};
static const char *const normplace_names[] = {"none", "pre", "post"};
static const char *const act_names[] = {"identity", "relu", "leaky_relu", "elu", "gelu"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int name_index(const char *const *names, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

const char *ag_task_name(ag_task_t task) {
    return (int)task >= 0 && (int)task < COUNT(task_names) ? task_names[task] : "unknown";
}

ag_error_t ag_task_from_name(const char *name, ag_task_t *task) {
    if (!name || !task) return AG_ERROR(AG_EINVAL, "task name: NULL name or output");
    int i = name_index(task_names, COUNT(task_names), name);
    if (i < 0)
        return AG_ERROR(AG_EINVAL, "unknown task '%s' (expected node-classification, node-regression, "
                        "graph-classification, graph-multitask or graph-regression)", name);
    *task = (ag_task_t)i;
    return AG_SUCCESS;
}

int ag_task_is_graph_level(ag_task_t task) { return task >= AG_TASK_GRAPH_CLASSIFICATION; }
int ag_task_is_classification(ag_task_t task) {
    return task == AG_TASK_NODE_CLASSIFICATION || task == AG_TASK_GRAPH_CLASSIFICATION;
}
int ag_task_is_regression(ag_task_t task) {
    return task == AG_TASK_NODE_REGRESSION || task == AG_TASK_GRAPH_REGRESSION;
}

/* The configuration's own names, for a reader of a model (attn-graph info) as for its file. */
#define NAME_OF(table, i) ((int)(i) >= 0 && (int)(i) < COUNT(table) ? (table)[i] : "unknown")
const char *ag_score_name(ag_score_t score) { return NAME_OF(score_names, score); }
const char *ag_attn_norm_name(ag_norm_t norm) { return NAME_OF(attnnorm_names, norm); }
const char *ag_mask_kind_name(ag_mask_kind_t kind) { return NAME_OF(mask_names, kind); }
const char *ag_edge_mode_name(ag_edge_mode_t mode) { return NAME_OF(edge_names, mode); }
const char *ag_norm_place_name(ag_norm_place_t place) { return NAME_OF(normplace_names, place); }
#undef NAME_OF

/* ---- configurations */

void ag_model_config_default(ag_model_config_t *cfg, ag_task_t task) {
    memset(cfg, 0, sizeof *cfg);
    cfg->task = task;
    cfg->hidden = 64;
    cfg->n_blocks = 3;
    for (int l = 0; l < cfg->n_blocks; l++) {
        ag_block_config_t *b = &cfg->blocks[l];
        ag_attention_config_default(&b->attn, cfg->hidden);
        b->attn.heads = 4;
        b->attn.head_dim = 16;
        b->attn.out_dim = 64;
        b->mask = AG_MASK_NEIGHBOURS;
        b->hops = 2;
        b->self_loops = 1;
        b->dropout = 0.1f;
        b->act = AG_ACT_IDENTITY;
        b->residual = 1;
        b->norm = AG_NORMPLACE_PRE;
        b->ffn = 1;
        b->ffn_hidden = 128;
        b->ffn_act = AG_ACT_GELU;
        b->ffn_dropout = 0.1f;
    }
    cfg->n_readouts = 1;
    cfg->readouts[0] = AG_READOUT_MEAN;
    cfg->head_hidden = 64;
    cfg->head_act = AG_ACT_RELU;
    cfg->head_dropout = 0.1f;
    cfg->node_head = 1;
    cfg->seed = 1;
}

void ag_model_config_gat(ag_model_config_t *cfg, int64_t in_dim, int64_t n_out) {
    memset(cfg, 0, sizeof *cfg);
    cfg->task = AG_TASK_NODE_CLASSIFICATION;
    cfg->in_dim = in_dim;
    cfg->n_out = n_out;
    cfg->hidden = 0;
    cfg->n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        ag_block_config_t *b = &cfg->blocks[l];
        ag_attention_config_default(&b->attn, in_dim);
        b->attn.score = AG_SCORE_GAT;
        b->attn.norm = AG_NORM_SOFTMAX;
        b->attn.out_proj = 0;
        b->attn.bias = 1;
        b->attn.negative_slope = 0.2f;
        b->attn.attn_dropout = 0.6f;
        b->mask = AG_MASK_NEIGHBOURS;
        b->hops = 2;
        b->self_loops = 1;
        b->dropout = 0.6f;
        b->residual = 0;
        b->norm = AG_NORMPLACE_NONE;
        b->ffn = 0;
        b->ffn_act = AG_ACT_GELU;
    }
    cfg->blocks[0].attn.heads = 8;
    cfg->blocks[0].attn.head_dim = 8;
    cfg->blocks[0].attn.combine = AG_HEADS_CONCAT;
    cfg->blocks[0].act = AG_ACT_ELU;
    cfg->blocks[1].attn.heads = 1;
    cfg->blocks[1].attn.head_dim = n_out;
    cfg->blocks[1].attn.combine = AG_HEADS_MEAN;
    cfg->blocks[1].act = AG_ACT_IDENTITY;
    cfg->n_readouts = 1;
    cfg->readouts[0] = AG_READOUT_MEAN;
    cfg->head_act = AG_ACT_RELU;
    cfg->node_head = 0;
    cfg->seed = 1;
}

/* ---- JSON */

static void json_key(ag_strbuf_t *sb, const char *key, int *first) {
    if (!*first) ag_strbuf_append(sb, ", ", 2);
    *first = 0;
    ag_strbuf_json_string(sb, key);
    ag_strbuf_append(sb, ": ", 2);
}

static void json_str(ag_strbuf_t *sb, const char *key, const char *v, int *first) {
    json_key(sb, key, first);
    ag_strbuf_json_string(sb, v);
}

static void json_int(ag_strbuf_t *sb, const char *key, int64_t v, int *first) {
    json_key(sb, key, first);
    ag_strbuf_printf(sb, "%lld", (long long)v);
}

static void json_flt(ag_strbuf_t *sb, const char *key, float v, int *first) {
    json_key(sb, key, first);
    ag_strbuf_json_float(sb, v);
}

/* An enum field holds one of its names' indices: to_json indexes the names with it. */
static ag_error_t check_enum(int v, int n, const char *where, const char *key) {
    if (v < 0 || v >= n)
        return AG_ERROR(AG_EINVAL, "model configuration: %s.%s is %d, not one of the %d known values", where, key, v, n);
    return AG_SUCCESS;
}

/* What to_json reads by index or loop bound, checked before it writes anything. */
static ag_error_t check_writable(const ag_model_config_t *cfg) {
    AG_CHECK(check_enum((int)cfg->task, COUNT(task_names), "config", "task"));
    AG_CHECK(check_enum((int)cfg->head_act, COUNT(act_names), "config", "head_act"));
    if (cfg->n_readouts < 1 || cfg->n_readouts > AG_READOUT_COUNT)
        return AG_ERROR(AG_EINVAL, "model configuration: 1 to %d readouts, not %d", AG_READOUT_COUNT, cfg->n_readouts);
    for (int r = 0; r < cfg->n_readouts; r++)
        AG_CHECK(check_enum((int)cfg->readouts[r], AG_READOUT_COUNT, "config", "readout"));
    if (cfg->n_blocks < 1 || cfg->n_blocks > AG_MODEL_MAX_BLOCKS)
        return AG_ERROR(AG_EINVAL, "model configuration: %d blocks, not 1 to %d", cfg->n_blocks, AG_MODEL_MAX_BLOCKS);
    for (int l = 0; l < cfg->n_blocks; l++) {
        const ag_block_config_t *b = &cfg->blocks[l];
        char where[32];
        snprintf(where, sizeof where, "blocks[%d]", l);
        AG_CHECK(check_enum((int)b->attn.score, COUNT(score_names), where, "score"));
        AG_CHECK(check_enum((int)b->attn.norm, COUNT(attnnorm_names), where, "attn_norm"));
        AG_CHECK(check_enum((int)b->attn.combine, COUNT(combine_names), where, "combine"));
        AG_CHECK(check_enum((int)b->attn.edge_mode, COUNT(edge_names), where, "edge_mode"));
        AG_CHECK(check_enum((int)b->mask, COUNT(mask_names), where, "mask"));
        AG_CHECK(check_enum((int)b->act, COUNT(act_names), where, "act"));
        AG_CHECK(check_enum((int)b->norm, COUNT(normplace_names), where, "norm"));
        AG_CHECK(check_enum((int)b->ffn_act, COUNT(act_names), where, "ffn_act"));
    }
    return AG_SUCCESS;
}

ag_error_t ag_model_config_to_json(const ag_model_config_t *cfg, ag_strbuf_t *sb) {
    if (!cfg || !sb) return AG_ERROR(AG_EINVAL, "model configuration: NULL configuration or buffer");
    AG_CHECK(check_writable(cfg));
    int first = 1;
    ag_strbuf_append(sb, "{", 1);
    json_str(sb, "task", ag_task_name(cfg->task), &first);
    json_int(sb, "in_dim", cfg->in_dim, &first);
    json_int(sb, "edge_dim", cfg->edge_dim, &first);
    json_int(sb, "n_out", cfg->n_out, &first);
    json_int(sb, "hidden", cfg->hidden, &first);
    json_flt(sb, "input_dropout", cfg->input_dropout, &first);
    /* one name, or several joined by commas ("vnode,sum"): a single readout reads as before */
    json_key(sb, "readout", &first);
    ag_strbuf_append(sb, "\"", 1);
    for (int r = 0; r < cfg->n_readouts; r++) {
        const char *name = ag_readout_kind_name(cfg->readouts[r]);
        if (r) ag_strbuf_append(sb, ",", 1);
        ag_strbuf_append(sb, name, strlen(name));
    }
    ag_strbuf_append(sb, "\"", 1);
    json_int(sb, "head_hidden", cfg->head_hidden, &first);
    json_str(sb, "head_act", act_names[cfg->head_act], &first);
    json_flt(sb, "head_dropout", cfg->head_dropout, &first);
    json_int(sb, "node_head", cfg->node_head, &first);
    json_int(sb, "virtual_node", cfg->virtual_node, &first);
    json_key(sb, "seed", &first);
    ag_strbuf_printf(sb, "\"%llu\"", (unsigned long long)cfg->seed);
    json_key(sb, "blocks", &first);
    ag_strbuf_append(sb, "[", 1);
    for (int l = 0; l < cfg->n_blocks; l++) {
        const ag_block_config_t *b = &cfg->blocks[l];
        int bf = 1;
        ag_strbuf_append(sb, l ? ", {" : "{", l ? 3 : 1);
        json_int(sb, "heads", b->attn.heads, &bf);
        json_int(sb, "head_dim", b->attn.head_dim, &bf);
        json_int(sb, "out_dim", b->attn.out_dim, &bf);
        json_str(sb, "score", score_names[b->attn.score], &bf);
        json_str(sb, "attn_norm", attnnorm_names[b->attn.norm], &bf);
        json_str(sb, "combine", combine_names[b->attn.combine], &bf);
        json_int(sb, "out_proj", b->attn.out_proj, &bf);
        json_int(sb, "bias", b->attn.bias, &bf);
        json_str(sb, "edge_mode", edge_names[b->attn.edge_mode], &bf);
        json_flt(sb, "negative_slope", b->attn.negative_slope, &bf);
        json_flt(sb, "attn_dropout", b->attn.attn_dropout, &bf);
        json_str(sb, "mask", mask_names[b->mask], &bf);
        json_int(sb, "hops", b->hops, &bf);
        json_int(sb, "self_loops", b->self_loops, &bf);
        json_flt(sb, "dropout", b->dropout, &bf);
        json_str(sb, "act", act_names[b->act], &bf);
        json_int(sb, "residual", b->residual, &bf);
        json_str(sb, "norm", normplace_names[b->norm], &bf);
        json_int(sb, "ffn", b->ffn, &bf);
        json_int(sb, "ffn_hidden", b->ffn_hidden, &bf);
        json_str(sb, "ffn_act", act_names[b->ffn_act], &bf);
        json_flt(sb, "ffn_dropout", b->ffn_dropout, &bf);
        ag_strbuf_append(sb, "}", 1);
    }
    ag_strbuf_append(sb, "]}", 2);
    if (sb->failed) return AG_ERROR(AG_ENOMEM, "out of memory writing the model configuration");
    return AG_SUCCESS;
}

/* Readers of one field each; `where` names the object in messages ("blocks[1]"). */
static ag_error_t get_int(const ag_json_t *o, const char *where, const char *key, int64_t lo, int64_t hi,
                          int64_t *out) {
    const ag_json_t *v = ag_json_get(o, key);
    if (!v || v->type != AG_JSON_NUMBER || v->number != floor(v->number) || v->number < (double)lo ||
        v->number > (double)hi)
        return AG_ERROR(AG_EMODEL, "model configuration: %s.%s must be an integer in [%lld, %lld]", where, key,
                        (long long)lo, (long long)hi);
    *out = (int64_t)v->number;
    return AG_SUCCESS;
}

static ag_error_t get_flt(const ag_json_t *o, const char *where, const char *key, float lo, float hi, float *out) {
    const ag_json_t *v = ag_json_get(o, key);
    if (!v || v->type != AG_JSON_NUMBER || !(v->number >= lo && v->number <= hi))
        return AG_ERROR(AG_EMODEL, "model configuration: %s.%s must be a number in [%g, %g]", where, key, (double)lo,
                        (double)hi);
    *out = (float)v->number;
    return AG_SUCCESS;
}

static ag_error_t get_enum(const ag_json_t *o, const char *where, const char *key, const char *const *names, int n,
                           int *out) {
    const ag_json_t *v = ag_json_get(o, key);
    int i = (v && v->type == AG_JSON_STRING) ? name_index(names, n, v->string) : -1;
    if (i < 0) return AG_ERROR(AG_EMODEL, "model configuration: %s.%s is missing or not a known name", where, key);
    *out = i;
    return AG_SUCCESS;
}

/* "readout": one name or distinct names joined by commas. */
static ag_error_t get_readouts(const ag_json_t *o, ag_model_config_t *cfg) {
    const ag_json_t *v = ag_json_get(o, "readout");
    if (!v || v->type != AG_JSON_STRING || ag_readout_kinds_from_list(v->string, cfg->readouts, &cfg->n_readouts))
        return AG_ERROR(AG_EMODEL, "model configuration: config.readout is missing or not a known name or list of "
                        "distinct names");
    return AG_SUCCESS;
}

#define BIG ((int64_t)1 << 40)

/* The seed is a string because JSON numbers (doubles) cannot hold every 64-bit value: 1 to 20
 * decimal digits, nothing else, at most 2^64-1. */
static ag_error_t parse_seed(const ag_json_t *v, uint64_t *out) {
    const char *p = v && v->type == AG_JSON_STRING ? v->string : NULL;
    size_t n = p ? strlen(p) : 0;
    int ok = n >= 1 && n <= 20;
    uint64_t x = 0;
    for (size_t i = 0; ok && i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (p[i] < '0' || p[i] > '9' || x > (UINT64_MAX - d) / 10) ok = 0;
        else x = x * 10 + d;
    }
    if (!ok)
        return AG_ERROR(AG_EMODEL, "model configuration: config.seed must be a decimal string of 0 to %llu",
                        (unsigned long long)UINT64_MAX);
    *out = x;
    return AG_SUCCESS;
}

/* Every key to_json writes, and nothing else: an architecture setting this version does not know
 * would be built without it (virtual_node is optional: files before it lack it). */
static const char *const config_keys[] = {"task", "in_dim", "edge_dim", "n_out", "hidden", "input_dropout",
                                          "readout", "head_hidden", "head_act", "head_dropout", "node_head",
                                          "virtual_node", "seed", "blocks"};
static const char *const block_keys[] = {"heads", "head_dim", "out_dim", "score", "attn_norm", "combine",
                                         "out_proj", "bias", "edge_mode", "negative_slope", "attn_dropout", "mask",
                                         "hops", "self_loops", "dropout", "act", "residual", "norm", "ffn",
                                         "ffn_hidden", "ffn_act", "ffn_dropout"};

ag_error_t ag_model_config_from_json(ag_model_config_t *cfg, const ag_json_t *j) {
    int64_t iv;
    int e = 0;
    memset(cfg, 0, sizeof *cfg);
    if (!j || j->type != AG_JSON_OBJECT) return AG_ERROR(AG_EMODEL, "model configuration is not a JSON object");
    AG_CHECK(ag_json_check_keys(j, config_keys, COUNT(config_keys), AG_EMODEL, "model configuration: ",
                                "metadata 'config'"));
    AG_CHECK(get_enum(j, "config", "task", task_names, COUNT(task_names), &e));
    cfg->task = (ag_task_t)e;
    AG_CHECK(get_int(j, "config", "in_dim", 1, BIG, &cfg->in_dim));
    AG_CHECK(get_int(j, "config", "edge_dim", 0, BIG, &cfg->edge_dim));
    AG_CHECK(get_int(j, "config", "n_out", 1, BIG, &cfg->n_out));
    AG_CHECK(get_int(j, "config", "hidden", 0, BIG, &cfg->hidden));
    AG_CHECK(get_flt(j, "config", "input_dropout", 0.0f, 1.0f, &cfg->input_dropout));
    AG_CHECK(get_readouts(j, cfg));
    AG_CHECK(get_int(j, "config", "head_hidden", 0, BIG, &cfg->head_hidden));
    AG_CHECK(get_enum(j, "config", "head_act", act_names, COUNT(act_names), &e));
    cfg->head_act = (ag_act_kind_t)e;
    AG_CHECK(get_flt(j, "config", "head_dropout", 0.0f, 1.0f, &cfg->head_dropout));
    AG_CHECK(get_int(j, "config", "node_head", 0, 1, &iv));
    cfg->node_head = (int)iv;
    if (ag_json_get(j, "virtual_node")) { /* absent in files written before it existed: off */
        AG_CHECK(get_int(j, "config", "virtual_node", 0, 1, &iv));
        cfg->virtual_node = (int)iv;
    }
    const ag_json_t *seed = ag_json_get(j, "seed");
    AG_CHECK(parse_seed(seed, &cfg->seed));
    const ag_json_t *blocks = ag_json_get(j, "blocks");
    if (!blocks || blocks->type != AG_JSON_ARRAY || blocks->count < 1 || blocks->count > AG_MODEL_MAX_BLOCKS)
        return AG_ERROR(AG_EMODEL, "model configuration: blocks must be an array of 1 to %d blocks",
                        AG_MODEL_MAX_BLOCKS);
    cfg->n_blocks = (int)blocks->count;
    for (int l = 0; l < cfg->n_blocks; l++) {
        const ag_json_t *o = &blocks->items[l];
        ag_block_config_t *b = &cfg->blocks[l];
        char where[32];
        snprintf(where, sizeof where, "blocks[%d]", l);
        if (o->type != AG_JSON_OBJECT) return AG_ERROR(AG_EMODEL, "model configuration: %s is not an object", where);
        char object[64];
        snprintf(object, sizeof object, "%s of metadata 'config'", where);
        AG_CHECK(ag_json_check_keys(o, block_keys, COUNT(block_keys), AG_EMODEL, "model configuration: ", object));
        AG_CHECK(get_int(o, where, "heads", 1, 4096, &b->attn.heads));
        AG_CHECK(get_int(o, where, "head_dim", 1, BIG, &b->attn.head_dim));
        AG_CHECK(get_int(o, where, "out_dim", 0, BIG, &b->attn.out_dim));
        AG_CHECK(get_enum(o, where, "score", score_names, COUNT(score_names), &e));
        b->attn.score = (ag_score_t)e;
        AG_CHECK(get_enum(o, where, "attn_norm", attnnorm_names, COUNT(attnnorm_names), &e));
        b->attn.norm = (ag_norm_t)e;
        AG_CHECK(get_enum(o, where, "combine", combine_names, COUNT(combine_names), &e));
        b->attn.combine = (ag_heads_t)e;
        AG_CHECK(get_int(o, where, "out_proj", 0, 1, &iv));
        b->attn.out_proj = (int)iv;
        AG_CHECK(get_int(o, where, "bias", 0, 1, &iv));
        b->attn.bias = (int)iv;
        AG_CHECK(get_enum(o, where, "edge_mode", edge_names, COUNT(edge_names), &e));
        b->attn.edge_mode = (ag_edge_mode_t)e;
        AG_CHECK(get_flt(o, where, "negative_slope", 0.0f, 1.0f, &b->attn.negative_slope));
        AG_CHECK(get_flt(o, where, "attn_dropout", 0.0f, 1.0f, &b->attn.attn_dropout));
        AG_CHECK(get_enum(o, where, "mask", mask_names, COUNT(mask_names), &e));
        b->mask = (ag_mask_kind_t)e;
        AG_CHECK(get_int(o, where, "hops", 1, 64, &iv));
        b->hops = (int)iv;
        AG_CHECK(get_int(o, where, "self_loops", 0, 1, &iv));
        b->self_loops = (int)iv;
        AG_CHECK(get_flt(o, where, "dropout", 0.0f, 1.0f, &b->dropout));
        AG_CHECK(get_enum(o, where, "act", act_names, COUNT(act_names), &e));
        b->act = (ag_act_kind_t)e;
        AG_CHECK(get_int(o, where, "residual", 0, 1, &iv));
        b->residual = (int)iv;
        AG_CHECK(get_enum(o, where, "norm", normplace_names, COUNT(normplace_names), &e));
        b->norm = (ag_norm_place_t)e;
        AG_CHECK(get_int(o, where, "ffn", 0, 1, &iv));
        b->ffn = (int)iv;
        AG_CHECK(get_int(o, where, "ffn_hidden", 0, BIG, &b->ffn_hidden));
        AG_CHECK(get_enum(o, where, "ffn_act", act_names, COUNT(act_names), &e));
        b->ffn_act = (ag_act_kind_t)e;
        AG_CHECK(get_flt(o, where, "ffn_dropout", 0.0f, 1.0f, &b->ffn_dropout));
    }
    return AG_SUCCESS;
}

/* ---- building the tape */

static op_t *push_op(ag_model_t *m, op_kind_t kind, int64_t in_w, int64_t out_w, const char *name) {
    if (m->n_ops >= AG_MODEL_MAX_OPS) return NULL;
    op_t *op = &m->ops[m->n_ops++];
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "%s", name);
    op->kind = kind;
    op->in_w = in_w;
    op->out_w = out_w;
    op->add_from = -1;
    op->block = -1;
    return op;
}

static uint64_t op_seed(const ag_model_t *m) { return ag_rng_u64(m->cfg.seed, 0x6d6f64656cULL, (uint64_t)m->n_ops); }

static ag_error_t add_dropout(ag_model_t *m, int64_t w, float p) {
    if (p <= 0.0f) return AG_SUCCESS;
    uint64_t seed = op_seed(m);
    op_t *op = push_op(m, OP_DROPOUT, w, w, "dropout");
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    ag_dropout_config_t c = {w, p};
    return ag_dropout_init(&op->u.drop, &c, seed);
}

static ag_error_t add_linear(ag_model_t *m, int64_t in_w, int64_t out_w, const char *name) {
    uint64_t seed = op_seed(m);
    op_t *op = push_op(m, OP_LINEAR, in_w, out_w, name);
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    op->has_params = 1;
    ag_linear_config_t c = {in_w, out_w, 1};
    return ag_linear_init(&op->u.lin, &c, seed);
}

static ag_error_t add_act(ag_model_t *m, int64_t w, ag_act_kind_t kind) {
    if (kind == AG_ACT_IDENTITY) return AG_SUCCESS;
    uint64_t seed = op_seed(m);
    op_t *op = push_op(m, OP_ACT, w, w, "act");
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    ag_act_config_t c = {kind, w, 0.01f, 1.0f};
    return ag_act_init(&op->u.act, &c, seed);
}

static ag_error_t add_layernorm(ag_model_t *m, int64_t w, const char *name) {
    uint64_t seed = op_seed(m);
    op_t *op = push_op(m, OP_LAYERNORM, w, w, name);
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    op->has_params = 1;
    ag_layernorm_config_t c = {w, 1e-5f};
    return ag_layernorm_init(&op->u.ln, &c, seed);
}

static ag_error_t add_add(ag_model_t *m, int64_t w, int from) {
    op_t *op = push_op(m, OP_ADD, w, w, "add");
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    op->add_from = from;
    return AG_SUCCESS;
}

/* The graph token: one learned row of width w (Glorot-uniform as a w x 1 matrix), one allocation
 * for the embedding and its gradient. */
static ag_error_t add_vnode(ag_model_t *m, int64_t w) {
    uint64_t seed = op_seed(m);
    op_t *op = push_op(m, OP_VNODE_ADD, w, w, "vnode");
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    op->has_params = 1;
    AG_CHECK(ag_i_alloc_array((void **)&op->u.vn.emb, 2 * w, sizeof(float), "virtual node embedding"));
    op->u.vn.demb = op->u.vn.emb + w;
    float limit = sqrtf(6.0f / (float)(w + 1));
    for (int64_t f = 0; f < w; f++) {
        op->u.vn.emb[f] = (2.0f * ag_rng_uniform(seed, 0, (uint64_t)f) - 1.0f) * limit;
        op->u.vn.demb[f] = 0.0f;
    }
    return AG_SUCCESS;
}

/* Appends one block reading a value of width w; returns the output width in *out_w. */
static ag_error_t add_block(ag_model_t *m, int l, int64_t w, int64_t *out_w) {
    const ag_block_config_t *b = &m->cfg.blocks[l];
    int start = m->n_ops; /* the block input is value `start` */
    char norm1[48], norm2[48], name[48];
    snprintf(norm1, sizeof norm1, "blocks.%d.norm1", l);
    snprintf(norm2, sizeof norm2, "blocks.%d.norm2", l);
    if (b->norm == AG_NORMPLACE_PRE) AG_CHECK(add_layernorm(m, w, norm1));
    AG_CHECK(add_dropout(m, w, b->dropout));
    ag_attention_config_t ac = b->attn;
    ac.in_dim = w;
    ac.edge_dim = m->cfg.edge_dim;
    if (m->cfg.edge_dim == 0) ac.edge_mode = AG_EDGE_NONE;
    else if (ac.edge_mode == AG_EDGE_NONE) ac.edge_dim = 0;
    int64_t wa = ag_attention_out_dim(&ac);
    uint64_t seed = op_seed(m);
    snprintf(name, sizeof name, "blocks.%d.attn", l);
    op_t *op = push_op(m, OP_ATTENTION, w, wa, name);
    if (!op) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    op->has_params = 1;
    op->block = l;
    m->attn_op[l] = m->n_ops - 1;
    AG_CHECK(ag_attention_init(&op->u.attn, &ac, seed));
    AG_CHECK(add_act(m, wa, b->act));
    if (b->residual && wa == w) AG_CHECK(add_add(m, wa, start));
    if (b->norm == AG_NORMPLACE_POST) AG_CHECK(add_layernorm(m, wa, norm1));
    if (b->ffn) {
        int start2 = m->n_ops;
        if (b->norm == AG_NORMPLACE_PRE) AG_CHECK(add_layernorm(m, wa, norm2));
        uint64_t fseed = op_seed(m);
        snprintf(name, sizeof name, "blocks.%d.ffn", l);
        op_t *f = push_op(m, OP_FFN, wa, wa, name);
        if (!f) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
        f->has_params = 1;
        ag_ffn_config_t fc;
        ag_ffn_config_default(&fc, wa);
        fc.hidden = b->ffn_hidden > 0 ? b->ffn_hidden : 2 * wa;
        fc.act = b->ffn_act;
        fc.dropout = b->ffn_dropout;
        AG_CHECK(ag_ffn_init(&f->u.ffn, &fc, fseed));
        if (b->residual) AG_CHECK(add_add(m, wa, start2));
        if (b->norm == AG_NORMPLACE_POST) AG_CHECK(add_layernorm(m, wa, norm2));
    }
    *out_w = wa;
    return AG_SUCCESS;
}

static ag_error_t validate(const ag_model_config_t *c) {
    if (c->in_dim < 1) return AG_ERROR(AG_EINVAL, "model configuration: in_dim must be at least 1");
    if (c->n_out < 1) return AG_ERROR(AG_EINVAL, "model configuration: n_out must be at least 1");
    if (c->edge_dim < 0 || c->hidden < 0 || c->head_hidden < 0)
        return AG_ERROR(AG_EINVAL, "model configuration: widths must not be negative");
    if (c->n_blocks < 1 || c->n_blocks > AG_MODEL_MAX_BLOCKS)
        return AG_ERROR(AG_EINVAL, "model configuration: 1 to %d blocks, not %d", AG_MODEL_MAX_BLOCKS, c->n_blocks);
    if ((int)c->task < 0 || (int)c->task >= COUNT(task_names))
        return AG_ERROR(AG_EINVAL, "model configuration: unknown task");
    if (c->virtual_node != 0 && c->virtual_node != 1)
        return AG_ERROR(AG_EINVAL, "model configuration: virtual_node must be 0 or 1, not %d", c->virtual_node);
    if (ag_task_is_graph_level(c->task)) {
        if (c->n_readouts < 1 || c->n_readouts > AG_READOUT_COUNT)
            return AG_ERROR(AG_EINVAL, "model configuration: 1 to %d readouts, not %d", AG_READOUT_COUNT, c->n_readouts);
        for (int r = 0; r < c->n_readouts; r++) {
            if ((int)c->readouts[r] < 0 || (int)c->readouts[r] >= AG_READOUT_COUNT)
                return AG_ERROR(AG_EINVAL, "model configuration: unknown readout %d (readouts[%d])", (int)c->readouts[r], r);
            for (int q = 0; q < r; q++)
                if (c->readouts[q] == c->readouts[r])
                    return AG_ERROR(AG_EINVAL, "model configuration: readout %s given twice",
                                    ag_readout_kind_name(c->readouts[r]));
            if (c->readouts[r] == AG_READOUT_VNODE && !c->virtual_node)
                return AG_ERROR(AG_EINVAL, "model configuration: the vnode readout needs the virtual node (virtual_node 1)");
        }
    }
    for (int l = 0; l < c->n_blocks; l++) {
        const ag_block_config_t *b = &c->blocks[l];
        if (b->mask == AG_MASK_KHOP && b->hops < 1)
            return AG_ERROR(AG_EINVAL, "model configuration: block %d: k-hop attention needs hops >= 1", l);
        if (!(b->dropout >= 0.0f && b->dropout < 1.0f) || !(b->ffn_dropout >= 0.0f && b->ffn_dropout < 1.0f))
            return AG_ERROR(AG_EINVAL, "model configuration: block %d: dropout must be in [0, 1)", l);
    }
    if (!(c->input_dropout >= 0.0f && c->input_dropout < 1.0f) || !(c->head_dropout >= 0.0f && c->head_dropout < 1.0f))
        return AG_ERROR(AG_EINVAL, "model configuration: dropout must be in [0, 1)");
    /* every enum in range (the blocks' mask and norm among them), even one the configuration does
     * not use (edge_mode without edge features), as the model file writes them all by name; last,
     * so that the checks above keep their own messages */
    AG_CHECK(check_writable(c));
    return AG_SUCCESS;
}

static int has_readout(const ag_model_config_t *c, ag_readout_kind_t kind) {
    for (int r = 0; r < c->n_readouts; r++)
        if (c->readouts[r] == kind) return 1;
    return 0;
}

static void eval_liveness(ag_model_t *m);

static ag_error_t build(ag_model_t *m) {
    const ag_model_config_t *c = &m->cfg;
    int64_t w = c->in_dim;
    AG_CHECK(add_dropout(m, w, c->input_dropout));
    if (c->hidden > 0) {
        AG_CHECK(add_linear(m, w, c->hidden, "input.proj"));
        w = c->hidden;
    }
    int vn_first = -1;
    if (c->virtual_node) {
        vn_first = m->n_ops;
        AG_CHECK(add_vnode(m, w));
    }
    int any_pre = 0;
    for (int l = 0; l < c->n_blocks; l++) {
        AG_CHECK(add_block(m, l, w, &w));
        any_pre |= c->blocks[l].norm == AG_NORMPLACE_PRE;
    }
    /* Pre-norm stacks leave the residual stream unnormalised: one final LayerNorm, as in GPT-2. */
    if (any_pre) AG_CHECK(add_layernorm(m, w, "final_norm"));
    if (vn_first >= 0) {
        for (int k = vn_first; k < m->n_ops; k++) m->ops[k].graph_rows = 2;
        /* the vnode readout reads the tokens (and gathers the node rows for readouts beside it);
         * every other readout and the node head only the nodes */
        if (!ag_task_is_graph_level(c->task) || !has_readout(c, AG_READOUT_VNODE))
            if (!push_op(m, OP_VNODE_DROP, w, w, "vnode.drop"))
                return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
    }
    if (ag_task_is_graph_level(c->task)) {
        uint64_t seed = op_seed(m);
        op_t *ro = push_op(m, OP_READOUT, w, w * c->n_readouts, "readout");
        if (!ro) return AG_ERROR(AG_EINVAL, "model configuration has too many operations");
        ro->graph_rows = 1;
        ro->has_params = has_readout(c, AG_READOUT_ATTENTION);
        /* every readout's kind is distinct, so the one with a gate keeps its names (readout.gate.w) */
        for (int r = 0; r < c->n_readouts; r++) {
            AG_CHECK(ag_readout_init(&ro->u.ro.r[r], c->readouts[r], w, seed));
            ro->u.ro.n = r + 1;
        }
        w *= c->n_readouts;
        int first_head = m->n_ops;
        if (c->head_hidden > 0) {
            AG_CHECK(add_linear(m, w, c->head_hidden, "head.hidden"));
            AG_CHECK(add_act(m, c->head_hidden, c->head_act));
            AG_CHECK(add_dropout(m, c->head_hidden, c->head_dropout));
            w = c->head_hidden;
        }
        AG_CHECK(add_linear(m, w, c->n_out, "head.out"));
        for (int k = first_head; k < m->n_ops; k++) m->ops[k].graph_rows = 1;
    } else if (c->node_head) {
        AG_CHECK(add_linear(m, w, c->n_out, "head.out"));
    } else if (w != c->n_out) {
        return AG_ERROR(AG_EINVAL, "model configuration: without a node head the last block must output n_out = %lld "
                        "columns, not %lld", (long long)c->n_out, (long long)w);
    }
    /* Widths, row kinds and which values need gradients. */
    m->width[0] = c->in_dim;
    m->graph_rows[0] = 0;
    m->needs_grad[0] = 0;
    for (int k = 0; k < m->n_ops; k++) {
        m->width[k + 1] = m->ops[k].out_w;
        m->graph_rows[k + 1] = m->ops[k].graph_rows;
        m->needs_grad[k + 1] = m->needs_grad[k] || m->ops[k].has_params;
    }
    eval_liveness(m);
    for (int k = 0; k < m->n_ops; k++) {
        op_t *op = &m->ops[k];
        switch (op->kind) {
        case OP_LINEAR: AG_CHECK(ag_linear_params(&op->u.lin, &m->params, op->name)); break;
        case OP_LAYERNORM: AG_CHECK(ag_layernorm_params(&op->u.ln, &m->params, op->name)); break;
        case OP_FFN: AG_CHECK(ag_ffn_params(&op->u.ffn, &m->params, op->name)); break;
        case OP_ATTENTION: AG_CHECK(ag_attention_params(&op->u.attn, &m->params, op->name)); break;
        case OP_READOUT:
            for (int r = 0; r < op->u.ro.n; r++) AG_CHECK(ag_readout_params(&op->u.ro.r[r], &m->params, op->name));
            break;
        case OP_VNODE_ADD:
            AG_CHECK(ag_param_list_add(&m->params, op->name, "emb", 2, 1, op->out_w, op->u.vn.emb, op->u.vn.demb, 0));
            break;
        default: break;
        }
    }
    return AG_SUCCESS;
}

ag_error_t ag_model_create(ag_model_t **model, const ag_model_config_t *cfg) {
    if (!model || !cfg) return AG_ERROR(AG_EINVAL, "model: NULL output or configuration");
    *model = NULL;
    AG_CHECK(validate(cfg));
    ag_model_t *m = ag_i_calloc(1, sizeof *m);
    if (!m) return AG_ERROR(AG_ENOMEM, "out of memory creating a model");
    m->cfg = *cfg;
    m->last_batch = NULL;
    m->last_nodes = m->last_graphs = m->last_edges = -1;
    m->keep_attn = 1;
    ag_param_list_init(&m->params);
    ag_error_t rc = ag_i_alloc_array((void **)&m->target_mean, 2 * cfg->n_out, sizeof(float), "target scaling");
    if (rc == AG_SUCCESS) {
        m->target_std = m->target_mean + cfg->n_out;
        for (int64_t i = 0; i < cfg->n_out; i++) m->target_std[i] = 1.0f;
        rc = build(m);
    }
    if (rc != AG_SUCCESS) {
        ag_model_destroy(m);
        return rc;
    }
    *model = m;
    return AG_SUCCESS;
}

void ag_model_destroy(ag_model_t *m) {
    if (!m) return;
    for (int k = 0; k < m->n_ops; k++) {
        op_t *op = &m->ops[k];
        switch (op->kind) {
        case OP_DROPOUT: ag_dropout_destroy(&op->u.drop); break;
        case OP_LINEAR: ag_linear_destroy(&op->u.lin); break;
        case OP_ATTENTION: ag_attention_destroy(&op->u.attn); break;
        case OP_ACT: ag_act_destroy(&op->u.act); break;
        case OP_LAYERNORM: ag_layernorm_destroy(&op->u.ln); break;
        case OP_FFN: ag_ffn_destroy(&op->u.ffn); break;
        case OP_READOUT:
            for (int r = 0; r < op->u.ro.n; r++) ag_readout_destroy(&op->u.ro.r[r]);
            break;
        case OP_ADD: break;
        case OP_VNODE_ADD: ag_i_free(op->u.vn.emb); break;
        case OP_VNODE_DROP: break;
        }
    }
    for (int k = 0; k <= AG_MODEL_MAX_OPS; k++) {
        ag_i_free(m->val[k]);
        ag_i_free(m->grad[k]);
    }
    ag_param_list_destroy(&m->params);
    ag_i_free(m->target_mean);
    ag_i_free(m->vn_ptr);
    ag_i_free(m->ro_x);
    ag_i_free(m->ro_dx);
    ag_i_free(m->ro_y);
    ag_i_free(m->ro_dy);
    ag_i_free(m);
}

int64_t ag_i_model_activation_floats(const ag_model_t *m) {
    int64_t n = 0;
    for (int k = 1; k <= AG_MODEL_MAX_OPS; k++)
        if (m->val[k]) n += m->val_cap[k];
    for (int k = 0; k < m->n_ops; k++) {
        if (m->ops[k].kind == OP_ATTENTION) n += ag_i_attention_head_floats(&m->ops[k].u.attn);
        if (m->ops[k].kind != OP_FFN) continue;
        const ag_ffn_t *f = &m->ops[k].u.ffn;
        if (f->h) n += 2 * f->cap_rows * f->cfg.hidden;                       /* h, a */
        if (f->x_cache) n += f->cap_train_rows * (f->cfg.dim + f->cfg.hidden); /* x_cache, da */
    }
    return n;
}

const ag_model_config_t *ag_model_config(const ag_model_t *m) { return &m->cfg; }
const ag_param_list_t *ag_model_params(const ag_model_t *m) { return &m->params; }

ag_error_t ag_model_set_target_scaling(ag_model_t *m, const float *mean, const float *std) {
    for (int64_t i = 0; i < m->cfg.n_out; i++)
        if (!(std[i] > 0.0f) || !isfinite(std[i]) || !isfinite(mean[i]))
            return AG_ERROR(AG_EVALUE, "target scaling of output %lld: mean %g, std %g (std must be positive and finite)",
                            (long long)i, (double)mean[i], (double)std[i]);
    memcpy(m->target_mean, mean, (size_t)m->cfg.n_out * sizeof(float));
    memcpy(m->target_std, std, (size_t)m->cfg.n_out * sizeof(float));
    return AG_SUCCESS;
}

void ag_model_target_scaling(const ag_model_t *m, const float **mean, const float **std) {
    *mean = m->target_mean;
    *std = m->target_std;
}

int64_t ag_model_attention_heads(const ag_model_t *m, int layer) {
    if (layer < 0 || layer >= m->cfg.n_blocks) return 0;
    return m->ops[m->attn_op[layer]].u.attn.cfg.heads;
}

/* ---- batches and masks */

void ag_batch_init(ag_batch_t *batch, const ag_graph_t *graph, const float *X, const float *E) {
    memset(batch, 0, sizeof *batch);
    batch->graph = graph;
    batch->X = X;
    batch->E = E;
}

void ag_batch_destroy(ag_batch_t *batch) {
    for (int i = 0; i < batch->n_masks; i++) ag_mask_destroy(&batch->masks[i]);
    batch->n_masks = 0;
    if (batch->x_sparse) {
        ag_i_csr_destroy(batch->x_sparse);
        ag_i_free(batch->x_sparse);
        batch->x_sparse = NULL;
    }
}

void ag_batch_buffer_init(ag_batch_buffer_t *buf) { memset(buf, 0, sizeof *buf); }

void ag_batch_buffer_destroy(ag_batch_buffer_t *buf) {
    if (!buf) return;
    ag_graph_destroy(&buf->graph);
    ag_i_free(buf->X);
    ag_i_free(buf->E);
    ag_i_free(buf->graphs);
    memset(buf, 0, sizeof *buf);
}

/* Makes *buf hold at least need floats, and at least one (so that it is never NULL): at least
 * twice the old capacity when it grows, so that growing batches reallocate rarely. The contents
 * are not kept. */
static ag_error_t grow_floats(float **buf, int64_t *cap, int64_t need, const char *what) {
    if (need < 1) need = 1;
    if (need <= *cap) return AG_SUCCESS;
    int64_t n = need > 2 * *cap ? need : 2 * *cap;
    ag_i_free(*buf);
    *buf = NULL;
    *cap = 0;
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n, sizeof(float), what));
    *buf = p;
    *cap = n;
    return AG_SUCCESS;
}

/* Checks the features M of member g (what: "node" or "edge") against its rows (nodes or edges)
 * and the width cols. A member without rows may give no matrix, or one of no rows of any width. */
static ag_error_t check_member_features(const ag_fmat_t *M, int64_t g, const char *what, int64_t rows,
                                        int64_t cols) {
    if (!M) {
        if (rows == 0) return AG_SUCCESS;
        return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: graph %lld has %lld %ss but no %s features", (long long)g,
                        (long long)rows, what, what);
    }
    if (M->rows != rows || (rows > 0 && M->cols != cols))
        return AG_ERROR(AG_EMISMATCH, "ag_batch_buffer_fill: graph %lld has %lld x %lld %s features; expected %lld x %lld",
                        (long long)g, (long long)M->rows, (long long)M->cols, what, (long long)rows, (long long)cols);
    if (rows > 0 && cols > 0 && !M->data)
        return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: graph %lld's %s features have no data", (long long)g, what);
    return AG_SUCCESS;
}

ag_error_t ag_batch_buffer_fill(ag_batch_buffer_t *buf, const ag_batch_member_t *members, int64_t count, int64_t F,
                                int64_t Fe, ag_batch_t *batch) {
    /* the caller destroys the batch whatever happens, and the last fill is gone on every return */
    if (batch) ag_batch_init(batch, NULL, NULL, NULL);
    if (buf) ag_graph_destroy(&buf->graph);
    if (!buf || !batch) return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: NULL buffer or batch");
    if (count < 1)
        return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: count is %lld, must be positive", (long long)count);
    if (!members) return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: NULL members");
    if (F < 0 || Fe < 0)
        return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: feature widths %lld and %lld; neither may be negative",
                        (long long)F, (long long)Fe);
    int64_t N = 0, E = 0; /* nodes and edges of the batch */
    for (int64_t g = 0; g < count; g++) {
        const ag_graph_t *m = members[g].graph;
        if (!m) return AG_ERROR(AG_EINVAL, "ag_batch_buffer_fill: graph %lld is NULL", (long long)g);
        AG_CHECK(check_member_features(members[g].X, g, "node", m->n_nodes, F));
        if (Fe > 0) AG_CHECK(check_member_features(members[g].E, g, "edge", m->n_edges, Fe));
        N += m->n_nodes;
        E += m->n_edges;
    }
    int64_t x_floats, e_floats;
    if (ag_i_mul_overflow(N, F, &x_floats) || ag_i_mul_overflow(E, Fe, &e_floats))
        return AG_ERROR(AG_ELIMIT, "ag_batch_buffer_fill: features of %lld nodes x %lld and %lld edges x %lld overflow",
                        (long long)N, (long long)F, (long long)E, (long long)Fe);
    if (count > buf->graphs_cap) {
        /* kept in the buffer, so that a fill no larger than the one before allocates nothing but
         * the batch's CSR */
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, count, sizeof *buf->graphs, "batch graph list"));
        ag_i_free(buf->graphs);
        buf->graphs = p;
        buf->graphs_cap = count;
    }
    for (int64_t g = 0; g < count; g++) buf->graphs[g] = members[g].graph;
    AG_CHECK(ag_graph_batch(&buf->graph, buf->graphs, count));
    ag_error_t rc = grow_floats(&buf->X, &buf->X_cap, x_floats, "batch node features");
    if (rc == AG_SUCCESS && Fe > 0) rc = grow_floats(&buf->E, &buf->E_cap, e_floats, "batch edge features");
    if (rc != AG_SUCCESS) {
        ag_graph_destroy(&buf->graph);
        return rc;
    }
    for (int64_t g = 0, node = 0, edge = 0; g < count; g++) {
        const ag_graph_t *m = members[g].graph;
        /* a member without nodes or edges may have no feature buffer at all */
        if (m->n_nodes > 0 && F > 0)
            memcpy(buf->X + node * F, members[g].X->data, (size_t)(m->n_nodes * F) * sizeof(float));
        if (Fe > 0 && m->n_edges > 0)
            memcpy(buf->E + edge * Fe, members[g].E->data, (size_t)(m->n_edges * Fe) * sizeof(float));
        node += m->n_nodes;
        edge += m->n_edges;
    }
    ag_batch_init(batch, &buf->graph, buf->X, Fe > 0 ? buf->E : NULL);
    return AG_SUCCESS;
}

static ag_error_t batch_mask(ag_batch_t *batch, const ag_block_config_t *b, int vnode, const ag_mask_t **out) {
    int hops = b->mask == AG_MASK_KHOP ? b->hops : 0;
    for (int i = 0; i < batch->n_masks; i++) {
        const ag_mask_t *mk = &batch->masks[i];
        if (mk->kind == b->mask && mk->self_loops == b->self_loops && (b->mask != AG_MASK_KHOP || mk->hops == hops) &&
            batch->mask_vnode[i] == vnode) {
            *out = mk;
            return AG_SUCCESS;
        }
    }
    if (batch->n_masks == AG_BATCH_MAX_MASKS)
        return AG_ERROR(AG_EINVAL, "a model uses more than %d distinct attention masks", AG_BATCH_MAX_MASKS);
    if (vnode)
        AG_CHECK(ag_mask_build_vnode(&batch->masks[batch->n_masks], batch->graph, b->mask,
                                     b->mask == AG_MASK_KHOP ? hops : 1, b->self_loops));
    else
        AG_CHECK(ag_mask_build(&batch->masks[batch->n_masks], batch->graph, b->mask, b->mask == AG_MASK_KHOP ? hops : 1,
                               b->self_loops));
    batch->mask_vnode[batch->n_masks] = vnode;
    *out = &batch->masks[batch->n_masks++];
    return AG_SUCCESS;
}

int64_t ag_model_out_rows(const ag_model_t *m, const ag_batch_t *batch) {
    return ag_task_is_graph_level(m->cfg.task) ? batch->graph->n_graphs : batch->graph->n_nodes;
}

/* Grows every value buffer (and gradient buffer when training) to N node rows and G graph rows. */
static ag_error_t grow_buffer(float **buf, int64_t *cap, int64_t count, const char *what) {
    if (count <= *cap && *buf) return AG_SUCCESS;
    ag_i_free(*buf);
    *buf = NULL;
    *cap = 0;
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, count, sizeof(float), what));
    *buf = p;
    *cap = count;
    return AG_SUCCESS;
}

/* Rows of a value of row kind `kind` (op_t.graph_rows): N nodes, G graphs, or N + T with T tokens. */
static int64_t kind_rows(int kind, int64_t N, int64_t G, int64_t T) { return kind == 2 ? N + T : kind ? G : N; }

/* Graph tokens of a batch (one per graph; a graph without ranges is one graph) and, for a model
 * with a virtual node, the graph ranges of the widened batch in m->vn_ptr. */
static ag_error_t vnode_ranges(ag_model_t *m, const ag_graph_t *g, int64_t *T) {
    *T = 0;
    if (!m->cfg.virtual_node) return AG_SUCCESS;
    int64_t G = g->graph_ptr ? g->n_graphs : 1;
    if (G + 1 > m->vn_cap) {
        ag_i_free(m->vn_ptr);
        m->vn_ptr = NULL;
        m->vn_cap = 0;
        AG_CHECK(ag_i_alloc_array((void **)&m->vn_ptr, G + 1, sizeof(int64_t), "virtual node ranges"));
        m->vn_cap = G + 1;
    }
    for (int64_t i = 0; i <= G; i++) m->vn_ptr[i] = (g->graph_ptr ? g->graph_ptr[i] : (i ? g->n_nodes : 0)) + i;
    *T = G;
    return AG_SUCCESS;
}

/* OP_VNODE_ADD: node rows to their widened places, token rows from the embedding. */
static void vnode_add_forward(const ag_model_t *m, int64_t T, int64_t W, const float *emb, const float *X, float *Y) {
    for (int64_t g = 0; g < T; g++) {
        int64_t r0 = m->vn_ptr[g], r1 = m->vn_ptr[g + 1] - 1; /* nodes r0 - g .. r1 - g - 1 of X */
        if (r1 > r0) memcpy(Y + r0 * W, X + (r0 - g) * W, (size_t)((r1 - r0) * W) * sizeof(float));
        memcpy(Y + r1 * W, emb, (size_t)W * sizeof(float));
    }
}

/* OP_VNODE_ADD backward: node rows go back (+=), token rows sum into the embedding's gradient in
 * graph order (double, fixed order). OP_VNODE_DROP backward is the first half with dX widened. */
static void vnode_add_backward(const ag_model_t *m, int64_t T, int64_t W, const float *dY, float *dX, float *demb,
                               int drop) {
    for (int64_t g = 0; g < T; g++) {
        int64_t r0 = m->vn_ptr[g], r1 = m->vn_ptr[g + 1] - 1;
        const float *src = drop ? dY + (r0 - g) * W : dY + r0 * W;
        float *dst = drop ? dX + r0 * W : (dX ? dX + (r0 - g) * W : NULL);
        if (dst)
            for (int64_t q = 0; q < (r1 - r0) * W; q++) dst[q] += src[q];
    }
    if (drop || !demb) return;
    for (int64_t f = 0; f < W; f++) {
        double acc = 0.0;
        for (int64_t g = 0; g < T; g++) acc += dY[(m->vn_ptr[g + 1] - 1) * W + f];
        demb[f] += (float)acc;
    }
}

/* Training: every value and its gradient in its own buffer, for the backward. Evaluation takes
 * its buffers from the pool as the pass reaches each value (eval_take); here only their sizes are
 * checked. */
static ag_error_t reserve(ag_model_t *m, int64_t N, int64_t G, int64_t T, int training) {
    for (int k = 1; k <= m->n_ops; k++) {
        int64_t rows = kind_rows(m->graph_rows[k], N, G, T), count;
        if (ag_i_mul_overflow(rows, m->width[k], &count))
            return AG_ERROR(AG_ELIMIT, "activation of %lld x %lld overflows", (long long)rows, (long long)m->width[k]);
        if (!training) continue;
        AG_CHECK(grow_buffer(&m->val[k], &m->val_cap[k], count, "model activations"));
        AG_CHECK(grow_buffer(&m->grad[k], &m->grad_cap[k], count, "model activation gradients"));
    }
    return AG_SUCCESS;
}

static const float *value(const ag_model_t *m, const ag_batch_t *batch, int k) {
    return k == 0 ? batch->X : m->val[k];
}

/* Op k is an activation whose output nothing reads but op k + 1, a residual sum over the same rows
 * (the sum's other operand is an earlier value). */
static int fuses_with_add(const ag_model_t *m, int k) {
    if (m->ops[k].kind != OP_ACT || k + 1 >= m->n_ops) return 0;
    const op_t *add = &m->ops[k + 1];
    if (add->kind != OP_ADD || add->add_from == k + 1 || add->add_from > k) return 0;
    if (m->graph_rows[k] != m->graph_rows[k + 1] || m->width[k + 1] != add->out_w) return 0;
    for (int j = k + 2; j < m->n_ops; j++)
        if (m->ops[j].kind == OP_ADD && m->ops[j].add_from == k + 1) return 0;
    return 1;
}

/* Evaluation's lifetimes, in steps (step k runs op k; an activation fused with the sum after it
 * runs with it, as step k + 1). A dropout is the identity there, so its output is its input's
 * buffer, read as long as either is; the fused activation's output is never written. ev_last[s]
 * of a value s with a buffer: the last step that reads it, n_ops for the model's output, which
 * the caller's copy reads after the last step. */
static void eval_liveness(ag_model_t *m) {
    int owner[AG_MODEL_MAX_OPS + 1]; /* the value whose buffer holds value k (0: the batch's X) */
    for (int k = 0; k <= m->n_ops; k++) {
        owner[k] = k;
        m->ev_last[k] = -1;
    }
#define READ(v, step) \
    do { \
        if (owner[v] >= 0 && m->ev_last[owner[v]] < (step)) m->ev_last[owner[v]] = (step); \
    } while (0)
    for (int k = 0; k < m->n_ops; k++) {
        const op_t *op = &m->ops[k];
        if (op->kind == OP_DROPOUT) {
            owner[k + 1] = owner[k];
        } else if (fuses_with_add(m, k)) {
            owner[k + 1] = -1;
            READ(k, k + 1);
            READ(m->ops[k + 1].add_from, k + 1);
            k++;
        } else {
            READ(k, k);
            if (op->kind == OP_ADD) READ(op->add_from, k);
        }
    }
    READ(m->n_ops, m->n_ops);
#undef READ
}

/* The buffers of an evaluation pass: the val[] buffers serve as a pool; live[i] marks those whose
 * value a later step still reads (or an operation's workspace while it runs), slot[s] the buffer
 * of value s. */
typedef struct eval_pool_t {
    unsigned char live[AG_MODEL_MAX_OPS + 1];
    int slot[AG_MODEL_MAX_OPS + 1];
} eval_pool_t;

/* A buffer of rows x cols floats that holds no live value, so that an operation's output never
 * aliases its inputs: the smallest free one large enough; else the largest free one, grown (its
 * old block freed first); else one not yet allocated. Index 0 is never one: value 0 is the
 * batch's X. */
static ag_error_t eval_take(ag_model_t *m, eval_pool_t *p, int64_t rows, int64_t cols, int *out) {
    int64_t count;
    if (ag_i_mul_overflow(rows, cols, &count))
        return AG_ERROR(AG_ELIMIT, "activation of %lld x %lld overflows", (long long)rows, (long long)cols);
    int fit = 0, big = 0, fresh = 0;
    for (int i = 1; i <= AG_MODEL_MAX_OPS; i++) {
        if (p->live[i]) continue;
        if (!m->val[i]) {
            if (!fresh) fresh = i;
        } else if (m->val_cap[i] >= count) {
            if (!fit || m->val_cap[i] < m->val_cap[fit]) fit = i;
        } else if (!big || m->val_cap[i] > m->val_cap[big]) {
            big = i;
        }
    }
    int i = fit ? fit : big ? big : fresh;
    /* a pass holds a few values and workspaces at once, far fewer than the pool's buffers */
    if (!i) return AG_ERROR(AG_EINVAL, "model forward: no free activation buffer");
    AG_CHECK(grow_buffer(&m->val[i], &m->val_cap[i], count, "model activations"));
    p->live[i] = 1;
    *out = i;
    return AG_SUCCESS;
}

/* After `step`: the buffers of the values it read last are free again. */
static void eval_release(const ag_model_t *m, eval_pool_t *p, int step) {
    for (int s = 1; s <= m->n_ops; s++)
        if (p->slot[s] && m->ev_last[s] == step) p->live[p->slot[s]] = 0;
}

/* ---- forward and backward */

/* Copies the node rows of the widened (N + G) x W rows (tokens last in each graph) to N x W, or
 * adds them back (scatter = 1). */
static void node_rows(const ag_model_t *m, int64_t G, int64_t W, const float *wide, float *nodes, int scatter) {
    for (int64_t g = 0; g < G; g++) {
        int64_t r0 = m->vn_ptr[g], n = (m->vn_ptr[g + 1] - 1 - r0) * W;
        float *dst = scatter ? (float *)wide + r0 * W : nodes + (r0 - g) * W;
        const float *src = scatter ? nodes + (r0 - g) * W : wide + r0 * W;
        if (scatter)
            for (int64_t q = 0; q < n; q++) dst[q] += src[q];
        else if (n > 0)
            memcpy(dst, src, (size_t)n * sizeof(float));
    }
}

/* OP_READOUT: each readout pools X (N x W, or (N + G) x W with the tokens when `wide`) into a
 * (G x W) block of Y (G x R W); one readout writes Y directly. */
static ag_error_t readout_forward(ag_model_t *m, op_t *op, const ag_graph_t *g, int wide, const float *X, float *Y) {
    int64_t G = g->n_graphs, N = g->n_nodes, W = op->in_w;
    int R = op->u.ro.n;
    if (R == 1) return ag_readout_forward(&op->u.ro.r[0], wide ? m->vn_ptr : g->graph_ptr, G, X, Y);
    if (wide) {
        AG_CHECK(grow_buffer(&m->ro_x, &m->ro_x_cap, N * W, "readout operands"));
        node_rows(m, G, W, X, m->ro_x, 0);
    }
    AG_CHECK(grow_buffer(&m->ro_y, &m->ro_y_cap, G * W, "readout outputs"));
    for (int r = 0; r < R; r++) {
        ag_readout_t *ro = &op->u.ro.r[r];
        int token = ro->kind == AG_READOUT_VNODE;
        AG_CHECK(ag_readout_forward(ro, token ? m->vn_ptr : g->graph_ptr, G, wide && !token ? m->ro_x : X, m->ro_y));
        for (int64_t gi = 0; gi < G; gi++)
            memcpy(Y + (gi * R + r) * W, m->ro_y + gi * W, (size_t)W * sizeof(float));
    }
    return AG_SUCCESS;
}

/* dX += the gradient of every readout, in their order (a fixed summation order). */
static ag_error_t readout_backward(ag_model_t *m, op_t *op, const ag_graph_t *g, int wide, const float *X,
                                   const float *dY, float *dX) {
    int64_t G = g->n_graphs, N = g->n_nodes, W = op->in_w;
    int R = op->u.ro.n;
    if (R == 1) return ag_readout_backward(&op->u.ro.r[0], wide ? m->vn_ptr : g->graph_ptr, G, X, dY, dX);
    if (wide) {
        AG_CHECK(grow_buffer(&m->ro_dx, &m->ro_dx_cap, N * W, "readout operand gradients"));
        memset(m->ro_dx, 0, (size_t)(N * W) * sizeof(float));
    }
    AG_CHECK(grow_buffer(&m->ro_dy, &m->ro_dy_cap, G * W, "readout output gradients"));
    for (int r = 0; r < R; r++) {
        ag_readout_t *ro = &op->u.ro.r[r];
        int token = ro->kind == AG_READOUT_VNODE;
        for (int64_t gi = 0; gi < G; gi++)
            memcpy(m->ro_dy + gi * W, dY + (gi * R + r) * W, (size_t)W * sizeof(float));
        if (token)
            AG_CHECK(ag_readout_backward(ro, m->vn_ptr, G, X, m->ro_dy, dX));
        else
            AG_CHECK(ag_readout_backward(ro, g->graph_ptr, G, wide ? m->ro_x : X, m->ro_dy, wide ? m->ro_dx : dX));
    }
    if (wide) node_rows(m, G, W, dX, m->ro_dx, 1);
    return AG_SUCCESS;
}

/* The batch's edge features for an attention layer that reads them. A batch without edges (lone
 * atoms, isolated vertices: the batcher gives it no E) has none to read, and its attention entries
 * are self-loops, token or full-mask pairs whose edge term is zero; an empty array stands in for
 * E there, which attention would otherwise refuse as missing. */
static const float *batch_edges(const ag_batch_t *batch) {
    static const float none[1] = {0.0f};
    return batch->E || batch->graph->n_edges > 0 ? batch->E : none;
}

/* OP_FFN. An evaluation pass gives a block that has not trained at this size (whose own hidden
 * buffers are not there) two workspaces from the pool, free again once it has run: the blocks
 * then share two buffers of N x Hd where each kept its own (the 3 blocks of the transformer
 * preset kept 3 KB per node, the shared ones take 1 KB). */
static ag_error_t ffn_forward(ag_model_t *m, eval_pool_t *pool, ag_ffn_t *f, const float *X, float *Y, int64_t N,
                              int training, ag_rng_t *rng) {
    if (training || f->cap_rows >= N) return ag_ffn_forward(f, X, Y, N, training, rng);
    int h, a;
    AG_CHECK(eval_take(m, pool, N, f->cfg.hidden, &h));
    AG_CHECK(eval_take(m, pool, N, f->cfg.hidden, &a));
    ag_error_t rc = ag_i_ffn_forward_ws(f, X, Y, N, m->val[h], m->val[a]);
    pool->live[h] = pool->live[a] = 0;
    return rc;
}

/* OP_ATTENTION. An evaluation pass of a model that keeps no attention caches (keep_attn 0) lends
 * the layer a workspace for q, k, v and the softmax statistics too, free again once it has run:
 * the blocks then share one where each kept its own (the 3 blocks of the transformer preset: 3 x
 * 800 B per node, 52 % of the heap peak at 100,000 vertices). Otherwise an evaluation pass lends
 * the layer a workspace from the pool for its head outputs (N x H*D), free again once it has
 * run: nothing reads them after the pass (the attention weights need the scores' inputs and
 * statistics, which the layer keeps), and each block kept its own
 * (the 3 blocks of the transformer preset: 768 B per node). Concatenated heads without W^O need
 * none: attention.c writes them into Y. A layer that has trained at this size still has its own,
 * so that a validation pass between training steps takes nothing more from the pool. */
static ag_error_t attention_forward(ag_model_t *m, eval_pool_t *pool, ag_batch_t *batch, op_t *op, const float *X,
                                    float *Y, int training, ag_rng_t *rng) {
    const ag_attention_config_t *c = &op->u.attn.cfg;
    const ag_mask_t *mask;
    AG_CHECK(batch_mask(batch, &m->cfg.blocks[op->block], m->cfg.virtual_node, &mask));
    const float *E = c->edge_mode != AG_EDGE_NONE ? batch_edges(batch) : NULL;
    ag_i_csr_t **xs = X == batch->X ? &batch->x_sparse : NULL; /* the batch's X keeps its sparse form */
    int64_t HD = c->heads * c->head_dim;
    int o_in_y = c->combine == AG_HEADS_CONCAT && !c->out_proj;
    if (!training && !m->keep_attn) {
        /* o: (N x H*D) head outputs; w: q, k, v (N x H*D each, as the score needs), el, er (N x H,
         * GAT), mx, den (N x H), averaged heads (N x D, with W^O), each padded to 16 floats: taken
         * as 1 x n, the layout's own size */
        int o = 0, w;
        int64_t n = ag_i_attention_lean_floats(&op->u.attn, mask->n_nodes);
        if (n < 0) return AG_ERROR(AG_ELIMIT, "attention of %lld nodes overflows", (long long)mask->n_nodes);
        if (!o_in_y) AG_CHECK(eval_take(m, pool, mask->n_nodes, HD, &o));
        ag_error_t rc = eval_take(m, pool, 1, n, &w);
        if (rc == AG_SUCCESS) {
            rc = ag_i_attention_forward_lean(&op->u.attn, mask, X, xs, E, Y, o ? m->val[o] : NULL, m->val[w]);
            pool->live[w] = 0;
        }
        if (o) pool->live[o] = 0;
        return rc;
    }
    if (training || o_in_y ||
        ag_i_attention_head_floats(&op->u.attn) == mask->n_nodes * HD)
        return ag_i_attention_forward_xs(&op->u.attn, mask, X, xs, E, Y, training, rng, NULL);
    int o;
    AG_CHECK(eval_take(m, pool, mask->n_nodes, HD, &o));
    ag_error_t rc = ag_i_attention_forward_xs(&op->u.attn, mask, X, xs, E, Y, 0, rng, m->val[o]);
    pool->live[o] = 0;
    return rc;
}

static ag_error_t model_forward(ag_model_t *m, ag_batch_t *batch, int training, ag_rng_t *rng, float *out) {
    if (!m || !out) return AG_ERROR(AG_EINVAL, "model forward: NULL model or output");
    if (!batch || !batch->graph) return AG_ERROR(AG_EINVAL, "model forward: NULL batch or batch without a graph");
    const ag_graph_t *g = batch->graph;
    int64_t N = g->n_nodes, G = g->n_graphs;
    if (!batch->X && N > 0) return AG_ERROR(AG_EINVAL, "model forward: the batch has no features");
    if (m->cfg.edge_dim > 0 && !batch->E && g->n_edges > 0)
        return AG_ERROR(AG_EINVAL, "model forward: the model expects %lld edge features per edge and the batch has none",
                        (long long)m->cfg.edge_dim);
    if (training && !rng) return AG_ERROR(AG_EINVAL, "model forward: training needs an rng");
    m->last_batch = NULL; /* from here on the activations are overwritten: none valid until done */
    int64_t T;
    AG_CHECK(vnode_ranges(m, g, &T));
    AG_CHECK(reserve(m, N, G, T, training));
    /* vp[k]: where value k is. Out of training a dropout is the identity and its output is its
     * input, not a copy of it (Cora's input is 15.5 MB); training keeps every value in val[k]
     * for the backward, while evaluation frees a value's buffer for later values once its last
     * reader has run (eval_liveness): the values of all blocks of a 300,000-node graph were 48 %
     * of its inference peak. */
    const float *vp[AG_MODEL_MAX_OPS + 1];
    eval_pool_t pool;
    memset(&pool, 0, sizeof pool);
    vp[0] = batch->X;
    for (int k = 0; k < m->n_ops; k++) {
        op_t *op = &m->ops[k];
        const float *in = vp[k];
        int64_t rows = kind_rows(m->graph_rows[k], N, G, T);
        if (op->kind == OP_DROPOUT && !training) {
            vp[k + 1] = in;
            continue;
        }
        if (!training && fuses_with_add(m, k)) {
            /* the activation's output is only the next op's input: act and residual sum in one
             * pass, into the sum's buffer (ELU blocks of GAT models) */
            const op_t *add = &m->ops[k + 1];
            AG_CHECK(eval_take(m, &pool, kind_rows(m->graph_rows[k + 2], N, G, T), add->out_w, &pool.slot[k + 2]));
            ag_act_apply_add(op->u.act.cfg.kind, op->u.act.cfg.slope, op->u.act.cfg.alpha, in, vp[add->add_from],
                             m->val[pool.slot[k + 2]], rows * add->out_w);
            vp[k + 1] = NULL;
            vp[k + 2] = m->val[pool.slot[k + 2]];
            eval_release(m, &pool, k + 1);
            k++;
            continue;
        }
        /* the output's rows: a readout's are graphs, a virtual node's add nodes and tokens */
        if (!training)
            AG_CHECK(eval_take(m, &pool, kind_rows(m->graph_rows[k + 1], N, G, T), m->width[k + 1], &pool.slot[k + 1]));
        float *y = m->val[training ? k + 1 : pool.slot[k + 1]];
        vp[k + 1] = y;
        switch (op->kind) {
        case OP_DROPOUT: AG_CHECK(ag_dropout_forward(&op->u.drop, in, y, rows, training, rng)); break;
        case OP_LINEAR: AG_CHECK(ag_linear_forward(&op->u.lin, in, y, rows, training, rng)); break;
        case OP_ACT: AG_CHECK(ag_act_forward(&op->u.act, in, y, rows, training, rng)); break;
        case OP_LAYERNORM: AG_CHECK(ag_layernorm_forward(&op->u.ln, in, y, rows, training, rng)); break;
        case OP_FFN: AG_CHECK(ffn_forward(m, &pool, &op->u.ffn, in, y, rows, training, rng)); break;
        case OP_ADD: ag_residual_forward(in, vp[op->add_from], y, rows * op->out_w); break;
        case OP_ATTENTION: AG_CHECK(attention_forward(m, &pool, batch, op, in, y, training, rng)); break;
        case OP_READOUT: AG_CHECK(readout_forward(m, op, g, m->graph_rows[k] == 2, in, y)); break;
        case OP_VNODE_ADD: vnode_add_forward(m, T, op->out_w, op->u.vn.emb, in, y); break;
        case OP_VNODE_DROP:
            for (int64_t gi = 0; gi < T; gi++) {
                int64_t r0 = m->vn_ptr[gi], r1 = m->vn_ptr[gi + 1] - 1, W = op->out_w;
                if (r1 > r0) memcpy(y + (r0 - gi) * W, in + r0 * W, (size_t)((r1 - r0) * W) * sizeof(float));
            }
            break;
        }
        if (!training) eval_release(m, &pool, k);
    }
    int64_t rows = ag_model_out_rows(m, batch);
    memcpy(out, vp[m->n_ops], (size_t)(rows * m->cfg.n_out) * sizeof(float));
    m->last_batch = batch;
    m->last_graph = g;
    m->last_X = batch->X;
    m->last_E = batch->E;
    m->last_nodes = N;
    m->last_graphs = G;
    m->last_edges = g->n_edges;
    m->last_training = training;
    m->last_lean = !training && !m->keep_attn;
    return AG_SUCCESS;
}

/* Whether batch is the one the last completed forward pass ran on. */
static int is_last_batch(const ag_model_t *m, const ag_batch_t *batch) {
    const ag_graph_t *g = batch->graph;
    return m->last_batch == batch && m->last_graph == g && m->last_X == batch->X && m->last_E == batch->E &&
           m->last_nodes == g->n_nodes && m->last_graphs == g->n_graphs && m->last_edges == g->n_edges;
}

static ag_error_t model_backward(ag_model_t *m, ag_batch_t *batch, const float *dout) {
    if (!m || !dout) return AG_ERROR(AG_EINVAL, "model backward: NULL model or output gradient");
    if (!batch || !batch->graph) return AG_ERROR(AG_EINVAL, "model backward: NULL batch or batch without a graph");
    const ag_graph_t *g = batch->graph;
    int64_t N = g->n_nodes, G = g->n_graphs;
    if (!m->last_training || !is_last_batch(m, batch))
        return AG_ERROR(AG_EINVAL, "model backward: no training forward pass on this batch since the last backward");
    m->last_training = 0; /* the layers spend their caches: a second backward would add half a gradient */
    int64_t T = m->cfg.virtual_node ? (g->graph_ptr ? G : 1) : 0; /* the forward's vn_ptr still holds */
    for (int k = 1; k <= m->n_ops; k++)
        if (m->needs_grad[k])
            memset(m->grad[k], 0, (size_t)(kind_rows(m->graph_rows[k], N, G, T) * m->width[k]) * sizeof(float));
    int64_t rows_out = ag_model_out_rows(m, batch);
    memcpy(m->grad[m->n_ops], dout, (size_t)(rows_out * m->cfg.n_out) * sizeof(float));
    for (int k = m->n_ops - 1; k >= 0; k--) {
        op_t *op = &m->ops[k];
        if (!m->needs_grad[k] && !op->has_params) continue; /* nothing upstream learns */
        const float *in = value(m, batch, k);
        const float *dy = m->grad[k + 1];
        float *dx = m->needs_grad[k] ? m->grad[k] : NULL;
        int64_t rows = kind_rows(m->graph_rows[k], N, G, T);
        switch (op->kind) {
        case OP_DROPOUT: AG_CHECK(ag_dropout_backward(&op->u.drop, dy, dx, rows)); break;
        case OP_LINEAR: AG_CHECK(ag_linear_backward(&op->u.lin, dy, dx, rows)); break;
        case OP_ACT: AG_CHECK(ag_act_backward(&op->u.act, dy, dx, rows)); break;
        case OP_LAYERNORM: AG_CHECK(ag_layernorm_backward(&op->u.ln, dy, dx, rows)); break;
        case OP_FFN: AG_CHECK(ag_ffn_backward(&op->u.ffn, dy, dx, rows)); break;
        case OP_ADD:
            ag_residual_backward(dy, dx, m->needs_grad[op->add_from] ? m->grad[op->add_from] : NULL, rows * op->out_w);
            break;
        case OP_ATTENTION: {
            const ag_mask_t *mask;
            AG_CHECK(batch_mask(batch, &m->cfg.blocks[op->block], m->cfg.virtual_node, &mask));
            const float *E = op->u.attn.cfg.edge_mode != AG_EDGE_NONE ? batch_edges(batch) : NULL;
            AG_CHECK(ag_attention_backward(&op->u.attn, mask, in, E, dy, dx, NULL));
            break;
        }
        case OP_READOUT:
            if (dx || op->has_params) {
                if (!dx) return AG_ERROR(AG_EINVAL, "model backward: readout without an input gradient");
                AG_CHECK(readout_backward(m, op, g, m->graph_rows[k] == 2, in, dy, dx));
            }
            break;
        case OP_VNODE_ADD: vnode_add_backward(m, T, op->out_w, dy, dx, op->u.vn.demb, 0); break;
        case OP_VNODE_DROP:
            if (dx) vnode_add_backward(m, T, op->out_w, dy, dx, NULL, 1);
            break;
        }
    }
    return AG_SUCCESS;
}

ag_error_t ag_model_attention_weights(const ag_model_t *m, ag_batch_t *batch, int layer, const ag_mask_t **mask,
                                      float *alpha) {
    if (!m || !mask) return AG_ERROR(AG_EINVAL, "attention weights: NULL model or mask output");
    if (layer < 0 || layer >= m->cfg.n_blocks)
        return AG_ERROR(AG_EINVAL, "the model has %d attention blocks, not a block %d", m->cfg.n_blocks, layer);
    if (!batch || !batch->graph || !is_last_batch(m, batch))
        return AG_ERROR(AG_EINVAL, "attention weights: run a forward pass on this batch first");
    if (m->last_lean)
        return AG_ERROR(AG_EINVAL, "attention weights: the last forward pass kept no attention caches "
                        "(ag_model_keep_attention(model, 0)); run one that keeps them");
    const op_t *op = &m->ops[m->attn_op[layer]];
    AG_CHECK(batch_mask(batch, &m->cfg.blocks[layer], m->cfg.virtual_node, mask));
    if (!alpha) return AG_SUCCESS; /* the caller only asked for the mask, to size alpha */
    return ag_attention_weights(&op->u.attn, *mask, alpha);
}

int ag_model_keep_attention(ag_model_t *m, int keep) {
    if (!m) return 0;
    int was = m->keep_attn;
    m->keep_attn = keep != 0;
    return was;
}

/* A small batch (one molecule, a small graph) runs on the calling thread: see AG_SMALL_ROWS. */
ag_error_t ag_model_forward(ag_model_t *m, ag_batch_t *batch, int training, ag_rng_t *rng, float *out) {
    int small = ag_i_small_begin(batch && batch->graph ? batch->graph->n_nodes : 0);
    ag_error_t rc = model_forward(m, batch, training, rng, out);
    ag_i_small_end(small);
    return rc;
}

ag_error_t ag_model_backward(ag_model_t *m, ag_batch_t *batch, const float *dout) {
    int small = ag_i_small_begin(batch && batch->graph ? batch->graph->n_nodes : 0);
    ag_error_t rc = model_backward(m, batch, dout);
    ag_i_small_end(small);
    return rc;
}
