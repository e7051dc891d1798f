/*
 * memory_estimate.c: how many bytes a forward pass or a training step of a model needs on a graph
 * of a given size, computed before anything is allocated, so that a run too large for the machine
 * stops with a message instead of being killed half-way.
 *
 * The estimate follows the model's tape (model.c): in training each operation's output value, its
 * gradient and the layer's copy of its input; in evaluation the few values alive at once (below);
 * the attention layers' caches (in evaluation, the one workspace the layers share: the pass that
 * label, classify and eval run keeps none, ag_model_keep_attention 0), the attention masks, the
 * largest backward temporaries (freed after each layer, so only the largest counts), parameters
 * with gradients, and in training the
 * optimiser moments and the best-weights copy. Every product is checked for overflow; the total
 * is an int64 byte count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/train.h"
#include "internal.h"

typedef struct acc_t {
    int64_t bytes;
    const char *overflow; /* the first product that overflowed, or NULL */
} acc_t;

/* a * b, or 0 with acc->overflow set to `what`. */
static int64_t mul(acc_t *acc, int64_t a, int64_t b, const char *what) {
    int64_t r;
    if (ag_i_mul_overflow(a, b, &r)) {
        if (!acc->overflow) acc->overflow = what;
        return 0;
    }
    return r;
}

static void add(acc_t *acc, int64_t bytes, const char *what) {
    if (bytes < 0 || acc->bytes > INT64_MAX - bytes) {
        if (!acc->overflow) acc->overflow = what;
        return;
    }
    acc->bytes += bytes;
}

/* a + b floats, or 0 with acc->overflow set. */
static int64_t add_floats(acc_t *acc, int64_t a, int64_t b) {
    if (a > INT64_MAX - b) {
        if (!acc->overflow) acc->overflow = "attention workspace";
        return 0;
    }
    return a + b;
}

/* rows x cols floats. */
static void floats(acc_t *acc, int64_t rows, int64_t cols, const char *what) {
    add(acc, mul(acc, mul(acc, rows, cols, what), 4, what), what);
}

/* The values of the tape. Training keeps each one, its gradient and, for some layers, a copy of
 * their input until the backward. An evaluation pass frees a value once its last reader has run
 * and lends the feed-forward blocks their hidden buffers and the attention layers their head
 * outputs and their q, k, v and softmax statistics from the same buffers (model.c): at most three
 * values are alive at once (the residual stream, an operation's input and its output), beside the
 * two hidden buffers of the feed-forward block or the workspaces of the attention layer that
 * runs, so the widest of each count. */
typedef struct values_t {
    int training;
    int64_t widest; /* evaluation: floats of the largest value */
    int64_t hidden; /* evaluation: floats of the largest feed-forward hidden buffer */
    int64_t attn;   /* evaluation: floats lent to the largest attention layer (head outputs, cache) */
} values_t;

/* A value of rows x cols; `cached`: copies of it (its layer's input, of the same size) that
 * training keeps for the backward. */
static void value(acc_t *acc, values_t *v, int64_t rows, int64_t cols, int cached, const char *what) {
    if (v->training) {
        floats(acc, rows, mul(acc, cols, 2 + cached, what), what);
        return;
    }
    int64_t n = mul(acc, rows, cols, what);
    if (n > v->widest) v->widest = n;
}

/* Attention mask entries M for a block on N nodes with `entries` CSR entries. */
static int64_t mask_entries(acc_t *acc, const ag_block_config_t *b, int64_t N, int64_t entries) {
    int64_t M = entries;
    if (b->self_loops) M = M > INT64_MAX - N ? INT64_MAX : M + N;
    if (b->mask == AG_MASK_KHOP && N > 0) {
        /* within `hops` steps of the mean degree d: (1 + d)^hops sources each, at most N */
        double d = (double)entries / (double)N, reach = 1.0;
        for (int h = 0; h < b->hops && reach < (double)N; h++) reach *= 1.0 + d;
        if (reach > (double)N) reach = (double)N;
        M = mul(acc, N, (int64_t)reach, "nodes x k-hop reach");
    }
    return M;
}

ag_error_t ag_model_estimate_memory(const ag_model_config_t *c, int64_t N, int64_t E, int64_t G, int training,
                                    int64_t *bytes) {
    if (!bytes) return AG_ERROR(AG_EINVAL, "memory estimate: NULL output");
    *bytes = 0;
    if (!c || N < 0 || E < 0 || G < 0)
        return AG_ERROR(AG_EINVAL, "memory estimate: sizes must not be negative (N %lld, E %lld, G %lld)", (long long)N,
                        (long long)E, (long long)G);
    acc_t acc = {0, NULL};
    int graph_level = ag_task_is_graph_level(c->task);
    values_t vals = {training, 0, 0, 0};
    int64_t entries = mul(&acc, E, 2, "edges x 2"); /* undirected edges are entries both ways */

    /* inputs and the graph's CSR */
    floats(&acc, N, c->in_dim, "nodes x features");
    floats(&acc, E, c->edge_dim, "edges x edge features");
    add(&acc, mul(&acc, N, 8 + 4 + 8, "nodes"), "graph CSR");
    add(&acc, mul(&acc, entries, 4 + 8, "edges"), "graph CSR");
    add(&acc, mul(&acc, G, 16, "graphs"), "graph CSR");

    int64_t P = 0, w = c->in_dim, peak_tmp = 0;
    acc_t pacc = {0, NULL};
#define PARAMS(n) add(&pacc, (n), "parameters")
    /* out of training a dropout's output is its input */
    if (c->input_dropout > 0 && training) value(&acc, &vals, N, w, 0, "nodes x features");
    if (c->hidden > 0) {
        value(&acc, &vals, N, c->hidden, 0, "nodes x hidden");
        if (training) floats(&acc, N, w, "nodes x features"); /* the input cache of the projection */
        PARAMS(mul(&pacc, w, c->hidden, "features x hidden") + c->hidden);
        w = c->hidden;
    }
    int distinct_masks = 0;
    ag_mask_kind_t seen[AG_MODEL_MAX_BLOCKS];
    for (int l = 0; l < c->n_blocks && l < AG_MODEL_MAX_BLOCKS; l++) {
        const ag_block_config_t *b = &c->blocks[l];
        const ag_attention_config_t *a = &b->attn;
        int64_t H = a->heads, D = a->head_dim, HD = mul(&acc, H, D, "heads x head size");
        int64_t NHD = mul(&acc, N, HD, "nodes x heads x head size"), NH = mul(&acc, N, H, "nodes x heads");
        int64_t M = mask_entries(&acc, b, N, entries);
        int64_t MH = mul(&acc, M, H, "mask entries x heads");
        int64_t wa = a->out_proj ? a->out_dim : a->combine == AG_HEADS_MEAN ? D : HD;
        int new_mask = 1;
        for (int k = 0; k < distinct_masks; k++) new_mask &= seen[k] != b->mask;
        if (new_mask) {
            seen[distinct_masks++] = b->mask;
            /* indptr and transposed indptr, node graph; src, edge and transposed entry per entry */
            add(&acc, mul(&acc, N, 8 + 8 + 4, "nodes"), "attention mask");
            add(&acc, mul(&acc, M, 4 + 8 + 8, "mask entries"), "attention mask");
        }
        if (b->norm == AG_NORMPLACE_PRE) {
            value(&acc, &vals, N, w, 1, "nodes x width");
            PARAMS(2 * w);
        }
        if (b->dropout > 0 && training) value(&acc, &vals, N, w, 0, "nodes x width");
        /* attention: output value, cached per-node tensors (q, k, v, head outputs) and softmax
         * statistics, which training keeps per layer; evaluation writes the head outputs into Y
         * (concatenated without W^O) or a lent buffer and the rest into a workspace lent to the
         * layer while it runs (its padding to 64 bytes per tensor left out) */
        value(&acc, &vals, N, wa, 0, "nodes x width");
        int64_t per_node = (a->score == AG_SCORE_DOT ? 4 : a->score == AG_SCORE_GATV2 ? 3 : 2);
        int64_t stats = mul(&acc, NH, a->score == AG_SCORE_GAT ? 4 : 2, "attention cache");
        if (training) {
            floats(&acc, NHD, per_node, "attention cache");
            floats(&acc, stats, 1, "attention cache");
        } else {
            int64_t lent = mul(&acc, NHD, per_node - 1, "attention cache");
            if (a->out_proj || a->combine == AG_HEADS_MEAN) lent = add_floats(&acc, lent, NHD);
            lent = add_floats(&acc, lent, stats);
            if (a->out_proj && a->combine == AG_HEADS_MEAN)
                lent = add_floats(&acc, lent, mul(&acc, N, D, "nodes x head size"));
            /* the full mask's forward streams transposed keys and values (attention_full.c) */
            if (b->mask == AG_MASK_FULL) lent = add_floats(&acc, lent, mul(&acc, NHD, 2, "full attention"));
            if (lent > vals.attn) vals.attn = lent;
        }
        PARAMS(mul(&pacc, mul(&pacc, w, HD, "width x heads"), per_node - 1, "attention weights"));
        if (a->out_proj) PARAMS(mul(&pacc, a->combine == AG_HEADS_MEAN ? D : HD, a->out_dim, "attention output"));
        PARAMS(wa + 3 * HD);
        if (a->edge_mode != AG_EDGE_NONE && c->edge_dim > 0) PARAMS(mul(&pacc, c->edge_dim, HD, "edge weights"));
        if (training) {
            /* backward temporaries of this layer: dQ, dK, dV, the combined-head gradient, per-entry
             * gradients and weights (CSR masks), the streamed transposes (full mask) */
            acc_t t = {0, NULL};
            floats(&t, NHD, per_node - 1, "attention backward");
            floats(&t, N, wa + H, "attention backward");
            if (b->mask == AG_MASK_FULL) {
                floats(&t, NHD, 5, "full attention backward");
                floats(&t, NH, 3, "full attention backward");
            } else {
                floats(&t, MH, 2, "attention entry gradients");
                add(&t, mul(&t, M, 4, "mask entries"), "attention backward");
            }
            if (a->edge_mode != AG_EDGE_NONE && c->edge_dim > 0) floats(&t, M, c->edge_dim, "entries x edge features");
            if (t.overflow && !acc.overflow) acc.overflow = t.overflow;
            if (t.bytes > peak_tmp) peak_tmp = t.bytes;
        }
        if (b->act != AG_ACT_IDENTITY) value(&acc, &vals, N, wa, 1, "nodes x width");
        if (b->residual && wa == w) value(&acc, &vals, N, wa, 0, "nodes x width");
        if (b->norm == AG_NORMPLACE_POST) {
            value(&acc, &vals, N, wa, 1, "nodes x width");
            PARAMS(2 * wa);
        }
        if (b->ffn) {
            int64_t Hd = b->ffn_hidden > 0 ? b->ffn_hidden : 2 * wa;
            if (b->norm != AG_NORMPLACE_NONE) {
                value(&acc, &vals, N, wa, 1, "nodes x width");
                PARAMS(2 * wa);
            }
            value(&acc, &vals, N, wa, 1, "nodes x width");
            /* training: each block's hidden, activation and backward scratch; evaluation: two
             * hidden buffers shared by the blocks */
            int64_t NHd = mul(&acc, N, Hd, "nodes x FFN width");
            if (training) floats(&acc, NHd, 3, "nodes x FFN width");
            else if (NHd > vals.hidden) vals.hidden = NHd;
            PARAMS(mul(&pacc, mul(&pacc, wa, Hd, "FFN weights"), 2, "FFN weights") + Hd + wa);
            if (b->residual) value(&acc, &vals, N, wa, 0, "nodes x width");
        }
        w = wa;
    }
    value(&acc, &vals, N, w, 1, "nodes x width"); /* final norm */
    PARAMS(2 * w);
    int64_t head_rows = graph_level ? G : N;
    if (graph_level) {
        int64_t R = c->n_readouts > 1 ? c->n_readouts : 1;
        if (R > 1) { /* one readout's operand, output and (training) their gradients at a time */
            floats(&acc, N, mul(&acc, w, training ? 2 : 1, "width"), "nodes x width");
            floats(&acc, G, mul(&acc, w, training ? 2 : 1, "width"), "graphs x width");
        }
        w = mul(&acc, w, R, "readout width");
        value(&acc, &vals, G, w, 0, "graphs x width");
        floats(&acc, N, 2, "readout cache");
        if (c->head_hidden > 0) {
            value(&acc, &vals, G, c->head_hidden, 0, "graphs x head width"); /* linear */
            value(&acc, &vals, G, c->head_hidden, 1, "graphs x head width"); /* activation */
            PARAMS(mul(&pacc, w, c->head_hidden, "head weights") + c->head_hidden);
            w = c->head_hidden;
        }
    }
    if (graph_level || c->node_head) {
        if (training) floats(&acc, head_rows, mul(&acc, c->n_out + w, 2, "outputs"), "rows x outputs");
        else value(&acc, &vals, head_rows, c->n_out, 0, "rows x outputs");
        PARAMS(mul(&pacc, w, c->n_out, "head weights") + c->n_out);
    }
    if (!training) { /* the values alive at once, and the buffers lent to the layer that runs */
        floats(&acc, vals.widest, 3, "values");
        int64_t hidden = mul(&acc, vals.hidden, 2, "FFN hidden buffers");
        floats(&acc, hidden > vals.attn ? hidden : vals.attn, 1, "lent buffers");
    }
    /* the caller's output rows, the loss gradient and the evaluation buffers */
    floats(&acc, head_rows, mul(&acc, c->n_out, 6, "outputs"), "rows x outputs");
#undef PARAMS
    if (pacc.overflow && !acc.overflow) acc.overflow = pacc.overflow;
    P = pacc.bytes;
    /* parameters with gradients; training adds the optimiser's m and v and the best weights */
    floats(&acc, P, training ? 5 : 2, "parameters");
    add(&acc, peak_tmp, "attention backward");
    if (acc.overflow)
        return AG_ERROR(AG_ELIMIT, "memory estimate: the size of %s overflows (N %lld nodes, E %lld edges)",
                        acc.overflow, (long long)N, (long long)E);
    *bytes = acc.bytes;
    return AG_SUCCESS;
}

int64_t ag_memory_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "MemAvailable:", 13)) {
            kb = strtoll(line + 13, NULL, 10);
            break;
        }
    fclose(f);
    return kb < 0 || kb > INT64_MAX / 1024 ? -1 : (int64_t)kb * 1024;
}
