/*
 * attention.c: the attention layer: configuration, parameters, and the forward and backward
 * passes around the per-node kernels of attention_kernels.c (projections and W^O through the BLAS,
 * outside any parallel region; per-node kernels in OpenMP loops over nodes).
 */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "attention_internal.h"
#include "blas.h"
#include "internal.h"
#include "layers_internal.h"

/* RNG streams of the initial weights, one per tensor, so that adding a tensor never shifts the
 * draws of another. */
enum { STREAM_WQ = 1, STREAM_WK, STREAM_WV, STREAM_ASRC, STREAM_ADST, STREAM_A, STREAM_WE, STREAM_WO };

void ag_attention_config_default(ag_attention_config_t *cfg, int64_t in_dim) {
    memset(cfg, 0, sizeof *cfg);
    cfg->in_dim = in_dim;
    cfg->heads = 4;
    cfg->head_dim = in_dim / 4 >= 1 ? in_dim / 4 : 1;
    cfg->out_dim = in_dim;
    cfg->score = AG_SCORE_DOT;
    cfg->norm = AG_NORM_SOFTMAX;
    cfg->combine = AG_HEADS_CONCAT;
    cfg->out_proj = 1;
    cfg->bias = 1;
    cfg->edge_mode = AG_EDGE_NONE;
    cfg->edge_dim = 0;
    cfg->negative_slope = 0.2f;
    cfg->attn_dropout = 0.0f;
}

/* Width of the combined heads: H*D concatenated, D averaged. */
static int64_t comb_dim(const ag_attention_config_t *cfg) {
    return cfg->combine == AG_HEADS_MEAN ? cfg->head_dim : cfg->heads * cfg->head_dim;
}

int64_t ag_attention_out_dim(const ag_attention_config_t *cfg) {
    return cfg->out_proj ? cfg->out_dim : comb_dim(cfg);
}

static ag_error_t check_config(const ag_attention_config_t *cfg) {
    if (cfg->in_dim <= 0 || cfg->heads <= 0 || cfg->head_dim <= 0)
        return AG_ERROR(AG_EINVAL, "attention: in_dim, heads and head_dim must be positive (%lld, %lld, %lld)",
                        (long long)cfg->in_dim, (long long)cfg->heads, (long long)cfg->head_dim);
    if (cfg->in_dim > INT32_MAX || cfg->heads > 4096 || cfg->head_dim > INT32_MAX ||
        cfg->heads * cfg->head_dim > INT32_MAX)
        return AG_ERROR(AG_ELIMIT, "attention: layer sizes too large");
    if (cfg->out_proj && (cfg->out_dim <= 0 || cfg->out_dim > INT32_MAX))
        return AG_ERROR(AG_EINVAL, "attention: out_proj needs a positive out_dim, not %lld", (long long)cfg->out_dim);
    if (cfg->score != AG_SCORE_DOT && cfg->score != AG_SCORE_GAT && cfg->score != AG_SCORE_GATV2)
        return AG_ERROR(AG_EINVAL, "attention: unknown score %d", (int)cfg->score);
    if (cfg->norm != AG_NORM_SOFTMAX && cfg->norm != AG_NORM_RELU)
        return AG_ERROR(AG_EINVAL, "attention: unknown normalisation %d", (int)cfg->norm);
    if (cfg->combine != AG_HEADS_CONCAT && cfg->combine != AG_HEADS_MEAN)
        return AG_ERROR(AG_EINVAL, "attention: unknown head combination %d", (int)cfg->combine);
    if (cfg->edge_mode != AG_EDGE_NONE && cfg->edge_mode != AG_EDGE_KEY && cfg->edge_mode != AG_EDGE_BIAS)
        return AG_ERROR(AG_EINVAL, "attention: unknown edge mode %d", (int)cfg->edge_mode);
    if (cfg->edge_mode != AG_EDGE_NONE && (cfg->edge_dim <= 0 || cfg->edge_dim > INT32_MAX))
        return AG_ERROR(AG_EINVAL, "attention: edge mode needs a positive edge_dim, not %lld", (long long)cfg->edge_dim);
    if (!(cfg->attn_dropout >= 0.0f && cfg->attn_dropout < 1.0f))
        return AG_ERROR(AG_EINVAL, "attention: attention dropout must be in [0, 1), not %g", (double)cfg->attn_dropout);
    if (!isfinite(cfg->negative_slope))
        return AG_ERROR(AG_EINVAL, "attention: negative_slope must be finite");
    return AG_SUCCESS;
}

/* Glorot/Xavier uniform: U(-b, b) with b = sqrt(6 / (fan_in + fan_out)). */
static void glorot(float *w, int64_t count, int64_t fan_in, int64_t fan_out, uint64_t seed, uint64_t stream) {
    float b = (float)sqrt(6.0 / (double)(fan_in + fan_out));
    for (int64_t x = 0; x < count; x++) w[x] = (2.0f * ag_rng_uniform(seed, stream, (uint64_t)x) - 1.0f) * b;
}

ag_error_t ag_attention_init(ag_attention_t *layer, const ag_attention_config_t *cfg, uint64_t seed) {
    if (!layer || !cfg) return AG_ERROR(AG_EINVAL, "attention: NULL layer or config");
    memset(layer, 0, sizeof *layer);
    AG_CHECK(check_config(cfg));
    layer->cfg = *cfg;
    if (cfg->edge_mode == AG_EDGE_NONE) layer->cfg.edge_dim = 0;
    const ag_attention_config_t *c = &layer->cfg;
    int64_t F = c->in_dim, H = c->heads, HD = c->heads * c->head_dim, Fe = c->edge_dim;
    int64_t C = comb_dim(c), O = ag_attention_out_dim(c);
    int dot = c->score == AG_SCORE_DOT, gat = c->score == AG_SCORE_GAT, v2 = c->score == AG_SCORE_GATV2;
    /* sizes of Wq Wk Wv a_src a_dst a We Wo bo, in this order */
    int64_t sz[9] = {(dot || v2) ? F * HD : 0, dot ? F * HD : 0, F * HD, gat ? HD : 0, gat ? HD : 0, v2 ? HD : 0,
                     c->edge_mode == AG_EDGE_KEY ? Fe * HD : c->edge_mode == AG_EDGE_BIAS ? Fe * H : 0,
                     c->out_proj ? C * O : 0, c->bias ? O : 0};
    int64_t total = 0;
    for (int t = 0; t < 9; t++) total += sz[t];
    AG_CHECK(ag_i_alloc_array((void **)&layer->params, total, sizeof(float), "attention parameters"));
    ag_error_t rc = ag_i_alloc_array((void **)&layer->grads, total, sizeof(float), "attention gradients");
    if (rc) {
        ag_i_free(layer->params);
        layer->params = NULL;
        return rc;
    }
    float **vals[9] = {&layer->Wq, &layer->Wk, &layer->Wv, &layer->a_src, &layer->a_dst, &layer->a,
                       &layer->We, &layer->Wo, &layer->bo};
    float **grads[9] = {&layer->dWq, &layer->dWk, &layer->dWv, &layer->da_src, &layer->da_dst, &layer->da,
                        &layer->dWe, &layer->dWo, &layer->dbo};
    int64_t off = 0;
    for (int t = 0; t < 9; t++) {
        if (sz[t] == 0) continue;
        *vals[t] = layer->params + off;
        *grads[t] = layer->grads + off;
        off += sz[t];
    }
    if (layer->Wq) glorot(layer->Wq, F * HD, F, HD, seed, STREAM_WQ);
    if (layer->Wk) glorot(layer->Wk, F * HD, F, HD, seed, STREAM_WK);
    glorot(layer->Wv, F * HD, F, HD, seed, STREAM_WV);
    /* attention vectors as PyG's glorot on a (1, H, D) tensor: fans H and D */
    if (layer->a_src) glorot(layer->a_src, HD, H, c->head_dim, seed, STREAM_ASRC);
    if (layer->a_dst) glorot(layer->a_dst, HD, H, c->head_dim, seed, STREAM_ADST);
    if (layer->a) glorot(layer->a, HD, H, c->head_dim, seed, STREAM_A);
    if (layer->We) glorot(layer->We, sz[6], Fe, sz[6] / Fe, seed, STREAM_WE);
    if (layer->Wo) glorot(layer->Wo, C * O, C, O, seed, STREAM_WO);
    rc = ag_i_alloc_array(&layer->cache, 1, sizeof(ag_attn_cache_t), "attention cache");
    if (rc) {
        ag_i_free(layer->params);
        ag_i_free(layer->grads);
        memset(layer, 0, sizeof *layer);
        return rc;
    }
    return AG_SUCCESS;
}

static void cache_free(ag_attn_cache_t *k) {
    ag_i_free(k->q);
    ag_i_free(k->k);
    ag_i_free(k->v);
    ag_i_free(k->el);
    ag_i_free(k->er);
    ag_i_free(k->mx);
    ag_i_free(k->den);
    ag_i_free(k->o);
    ag_i_free(k->comb);
    ag_i_csr_destroy(&k->xs);
    memset(k, 0, sizeof *k);
}

void ag_attention_destroy(ag_attention_t *layer) {
    if (!layer) return;
    if (layer->cache) cache_free(layer->cache);
    ag_i_free(layer->cache);
    ag_i_free(layer->params);
    ag_i_free(layer->grads);
    memset(layer, 0, sizeof *layer);
}

ag_error_t ag_attention_params(ag_attention_t *layer, ag_param_list_t *list, const char *prefix) {
    if (!layer || !list || !layer->params) return AG_ERROR(AG_EINVAL, "attention: NULL or uninitialised layer");
    const ag_attention_config_t *c = &layer->cfg;
    int64_t F = c->in_dim, H = c->heads, HD = c->heads * c->head_dim, Fe = c->edge_dim;
    int64_t C = comb_dim(c), O = ag_attention_out_dim(c);
    if (layer->Wq) AG_CHECK(ag_param_list_add(list, prefix, "Wq", 2, F, HD, layer->Wq, layer->dWq, 1));
    if (layer->Wk) AG_CHECK(ag_param_list_add(list, prefix, "Wk", 2, F, HD, layer->Wk, layer->dWk, 1));
    AG_CHECK(ag_param_list_add(list, prefix, "Wv", 2, F, HD, layer->Wv, layer->dWv, 1));
    if (layer->a_src) AG_CHECK(ag_param_list_add(list, prefix, "a_src", 1, HD, 1, layer->a_src, layer->da_src, 1));
    if (layer->a_dst) AG_CHECK(ag_param_list_add(list, prefix, "a_dst", 1, HD, 1, layer->a_dst, layer->da_dst, 1));
    if (layer->a) AG_CHECK(ag_param_list_add(list, prefix, "a", 1, HD, 1, layer->a, layer->da, 1));
    if (layer->We)
        AG_CHECK(ag_param_list_add(list, prefix, "We", 2, Fe, c->edge_mode == AG_EDGE_KEY ? HD : H, layer->We,
                                   layer->dWe, 1));
    if (layer->Wo) AG_CHECK(ag_param_list_add(list, prefix, "Wo", 2, C, O, layer->Wo, layer->dWo, 1));
    if (layer->bo) AG_CHECK(ag_param_list_add(list, prefix, "bo", 1, O, 1, layer->bo, layer->dbo, 0));
    return AG_SUCCESS;
}

/* (Re)allocates the cache for N nodes. */
static ag_error_t cache_reserve(ag_attn_cache_t *k, const ag_attention_config_t *c, int64_t N) {
    if (k->n_nodes == N && k->v) return AG_SUCCESS;
    cache_free(k);
    int64_t HD = c->heads * c->head_dim, H = c->heads, NHD;
    if (ag_i_mul_overflow(N, HD, &NHD)) return AG_ERROR(AG_ELIMIT, "attention: %lld nodes x %lld overflows", (long long)N, (long long)HD);
    ag_error_t rc = AG_SUCCESS;
    if (c->score != AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&k->q, NHD, sizeof(float), "attention queries");
    if (!rc && c->score == AG_SCORE_DOT) rc = ag_i_alloc_array((void **)&k->k, NHD, sizeof(float), "attention keys");
    if (!rc) rc = ag_i_alloc_array((void **)&k->v, NHD, sizeof(float), "attention values");
    if (!rc && c->score == AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&k->el, N * H, sizeof(float), "attention scores");
    if (!rc && c->score == AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&k->er, N * H, sizeof(float), "attention scores");
    if (!rc) rc = ag_i_alloc_array((void **)&k->mx, N * H, sizeof(float), "attention softmax maxima");
    if (!rc) rc = ag_i_alloc_array((void **)&k->den, N * H, sizeof(float), "attention softmax sums");
    if (!rc && c->out_proj && c->combine == AG_HEADS_MEAN)
        rc = ag_i_alloc_array((void **)&k->comb, N * c->head_dim, sizeof(float), "attention combined heads");
    if (rc) {
        cache_free(k);
        return rc;
    }
    k->n_nodes = N;
    return AG_SUCCESS;
}

/* The head outputs o (N x H*D) for the cache's N, on the first forward that keeps them: an
 * inference pass that writes them into Y or into the caller's workspace never allocates them
 * (a change of N frees them with the rest of the cache). */
static ag_error_t cache_reserve_o(ag_attn_cache_t *k, const ag_attention_config_t *c) {
    if (k->o) return AG_SUCCESS;
    return ag_i_alloc_array((void **)&k->o, k->n_nodes * c->heads * c->head_dim, sizeof(float),
                            "attention head outputs");
}

static void make_ctx(ag_attn_ctx_t *x, const ag_attention_t *layer, const ag_mask_t *mask, const float *E) {
    const ag_attention_config_t *c = &layer->cfg;
    const ag_attn_cache_t *k = layer->cache;
    memset(x, 0, sizeof *x);
    x->N = mask->n_nodes;
    x->H = c->heads;
    x->D = c->head_dim;
    x->HD = c->heads * c->head_dim;
    x->Fe = c->edge_mode == AG_EDGE_NONE ? 0 : c->edge_dim;
    x->score = c->score;
    x->norm = c->norm;
    x->emode = E ? c->edge_mode : AG_EDGE_NONE;
    x->slope = c->negative_slope;
    x->scale = 1.0f / sqrtf((float)c->head_dim);
    x->mask = mask;
    x->E = E;
    x->q = k->q;
    x->k = k->k;
    x->v = k->v;
    x->el = k->el;
    x->er = k->er;
    x->a = layer->a;
    x->a_src = layer->a_src;
    x->We = layer->We;
    x->mx = k->mx;
    x->den = k->den;
    x->o = k->o;
    x->dropout = k->dropout;
    x->drop_base = ag_i_rng_base(k->seed, k->stream);
    x->p = c->attn_dropout;
    x->keep = c->attn_dropout > 0.0f ? 1.0f / (1.0f - c->attn_dropout) : 1.0f;
}

static ag_error_t check_mask(const ag_mask_t *mask) {
    if (!mask || !mask->indptr || !mask->t_indptr || !mask->graph_ptr || !mask->node_graph)
        return AG_ERROR(AG_EINVAL, "attention: mask is NULL or not built");
    return AG_SUCCESS;
}

/* Per-thread scratch: nt blocks of the kernels' size. */
static ag_error_t alloc_scratch(float **out, const ag_attn_ctx_t *x, int nt, int64_t *stride) {
    *stride = (ag_i_attn_scratch_floats(x) + 15) / 16 * 16;
    return ag_i_alloc_array((void **)out, *stride * nt, sizeof(float), "attention scratch");
}

/* Inputs sparser than this (nonzero fraction) take the CSR product; Cora's is 1.3% (0.5% after
 * its input dropout). The product is worth a CSR build only when it is large. */
#define SPARSE_DENSITY 0.05
#define SPARSE_MIN_WORK ((int64_t)1 << 22)

/* Whether X (N x F) looks sparse: the nonzeros of 64 evenly spaced rows, so that a dense input
 * pays a few rows' scan and not a pass over X. */
static int looks_sparse(const float *X, int64_t N, int64_t F, int64_t HD) {
    if (N * F * HD < SPARSE_MIN_WORK || F < 64) return 0;
    int64_t rows = N < 64 ? N : 64, nnz = 0;
    for (int64_t r = 0; r < rows; r++) {
        const float *x = X + (r * N / rows) * F;
        for (int64_t f = 0; f < F; f++) nnz += x[f] != 0.0f;
    }
    return (double)nnz < SPARSE_DENSITY * (double)(rows * F);
}

/* GAT's node terms of node i: el = a_dst . z_i and er = a_src . z_i per head, each a sum over d in
 * increasing order. */
static void gat_node_terms(const ag_attention_t *layer, ag_attn_cache_t *k, int64_t i) {
    const int64_t H = layer->cfg.heads, D = layer->cfg.head_dim, HD = H * D;
    for (int64_t h = 0; h < H; h++) {
        const float *z = k->v + i * HD + h * D;
        float l = 0.0f, r = 0.0f;
        for (int64_t d = 0; d < D; d++) {
            l += layer->a_dst[h * D + d] * z[d];
            r += layer->a_src[h * D + d] * z[d];
        }
        k->el[i * H + h] = l;
        k->er[i * H + h] = r;
    }
}

/* *xs = X's CSR (N x F), kept if it already has that shape (the caller vouches that X has not
 * changed since it was built). */
static ag_error_t kept_csr(ag_i_csr_t **xs, const float *X, int64_t N, int64_t F) {
    if (*xs && (*xs)->rows == N && (*xs)->cols == F) return AG_SUCCESS;
    if (*xs) {
        ag_i_csr_destroy(*xs);
        ag_i_free(*xs);
        *xs = NULL;
    }
    ag_i_csr_t *S = ag_i_malloc(sizeof *S);
    if (!S) return AG_ERROR(AG_ENOMEM, "attention: out of memory for the input's sparse form");
    ag_error_t rc = ag_i_csr_from_dense(S, X, N, F);
    if (rc != AG_SUCCESS) {
        ag_i_free(S);
        return rc;
    }
    *xs = S;
    return AG_SUCCESS;
}

ag_error_t ag_attention_forward(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                const float *E, float *Y, int training, ag_rng_t *rng) {
    return ag_i_attention_forward_xs(layer, mask, X, NULL, E, Y, training, rng, NULL);
}

/* Where a lean pass (ag_i_attention_forward_lean) puts the cache's per-node tensors in its
 * workspace: offsets in floats of q, k, v, el, er, mx, den, comb (-1: the configuration has none),
 * each rounded up to 16 floats so that every tensor starts on a 64-byte line; returns the total,
 * or -1 when it overflows. */
static int64_t lean_layout(const ag_attention_config_t *c, int64_t N, int64_t off[8]) {
    int64_t H = c->heads, HD = c->heads * c->head_dim, total = 0;
    int gat = c->score == AG_SCORE_GAT;
    int64_t cols[8] = {c->score != AG_SCORE_GAT ? HD : 0, c->score == AG_SCORE_DOT ? HD : 0, HD, gat ? H : 0,
                       gat ? H : 0, H, H, c->out_proj && c->combine == AG_HEADS_MEAN ? c->head_dim : 0};
    for (int t = 0; t < 8; t++) {
        int64_t n;
        off[t] = -1;
        if (!cols[t]) continue;
        if (ag_i_mul_overflow(N, cols[t], &n) || n > INT64_MAX - 16 - total) return -1;
        off[t] = total;
        total += (n + 15) / 16 * 16;
    }
    return total;
}

int64_t ag_i_attention_lean_floats(const ag_attention_t *layer, int64_t N) {
    int64_t off[8];
    return lean_layout(&layer->cfg, N, off);
}

static ag_error_t forward_run(ag_attention_t *layer, const ag_mask_t *mask, const float *X, ag_i_csr_t **xs,
                              const float *E, float *Y, int training, ag_rng_t *rng, float *o_ws, int lean);

ag_error_t ag_i_attention_forward_xs(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                     ag_i_csr_t **xs, const float *E, float *Y, int training, ag_rng_t *rng,
                                     float *o_ws) {
    return forward_run(layer, mask, X, xs, E, Y, training, rng, o_ws, 0);
}

ag_error_t ag_i_attention_forward_lean(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                       ag_i_csr_t **xs, const float *E, float *Y, float *o_ws, float *ws) {
    if (!layer || !layer->cache || !mask || !ws) return AG_ERROR(AG_EINVAL, "attention forward: NULL argument");
    const ag_attention_config_t *c = &layer->cfg;
    if (!o_ws && !(c->combine == AG_HEADS_CONCAT && !c->out_proj))
        return AG_ERROR(AG_EINVAL, "attention forward: a lean pass needs a workspace for the head outputs");
    int64_t off[8];
    if (lean_layout(c, mask->n_nodes, off) < 0)
        return AG_ERROR(AG_ELIMIT, "attention: %lld nodes overflow the workspace", (long long)mask->n_nodes);
    /* The pass reads and writes its tensors through the cache's pointers: they point into ws for
     * its duration, and the layer's own buffers (a training pass's, kept for the next training
     * step) are put back after it, untouched, whatever the pass returns. */
    ag_attn_cache_t *k = layer->cache;
    float *own[8] = {k->q, k->k, k->v, k->el, k->er, k->mx, k->den, k->comb};
    float **ptr[8] = {&k->q, &k->k, &k->v, &k->el, &k->er, &k->mx, &k->den, &k->comb};
    for (int t = 0; t < 8; t++) *ptr[t] = off[t] >= 0 ? ws + off[t] : NULL;
    ag_error_t rc = forward_run(layer, mask, X, xs, E, Y, 0, NULL, o_ws, 1);
    for (int t = 0; t < 8; t++) *ptr[t] = own[t];
    /* nothing of the pass is left to read: the weights and a backward are refused */
    k->valid = 0;
    ag_i_csr_destroy(&k->xs);
    k->xs_of = NULL;
    return rc;
}

/* The forward; lean: the cache's pointers are the caller's workspace (ag_i_attention_forward_lean),
 * not buffers to reserve. */
static ag_error_t forward_run(ag_attention_t *layer, const ag_mask_t *mask, const float *X, ag_i_csr_t **xs,
                              const float *E, float *Y, int training, ag_rng_t *rng, float *o_ws, int lean) {
    if (!layer || !layer->cache || !X || !Y) return AG_ERROR(AG_EINVAL, "attention forward: NULL argument");
    AG_CHECK(check_mask(mask));
    const ag_attention_config_t *c = &layer->cfg;
    if (c->edge_mode != AG_EDGE_NONE && !E)
        return AG_ERROR(AG_EINVAL, "attention forward: edge mode needs edge features E");
    int dropout = training && c->attn_dropout > 0.0f;
    if (dropout && !rng) return AG_ERROR(AG_EINVAL, "attention forward: dropout in training needs an rng");
    ag_attn_cache_t *k = layer->cache;
    k->valid = 0;
    int64_t N = mask->n_nodes, F = c->in_dim, H = c->heads, D = c->head_dim, HD = H * D;
    int64_t C = comb_dim(c), O = ag_attention_out_dim(c);
    if (!lean) AG_CHECK(cache_reserve(k, c, N));
    k->n_entries = mask->n_entries;
    k->E = E;
    k->mask_kind = mask->kind;
    k->dropout = dropout;
    k->seed = dropout ? rng->seed : 0;
    k->stream = dropout ? ag_rng_next_stream(rng) : 0;

    ag_i_csr_destroy(&k->xs);
    k->xs_of = NULL;
    if (training) xs = NULL; /* the backward needs the layer's own CSR (and its input is dropout's) */
    int kept = xs && *xs && (*xs)->rows == N && (*xs)->cols == F;
    if (kept || looks_sparse(X, N, F, HD)) {
        /* Inference on a batch's X: its CSR is built once and reused by every later call. */
        const ag_i_csr_t *S = &k->xs;
        if (xs) {
            AG_CHECK(kept_csr(xs, X, N, F));
            S = *xs;
        } else {
            AG_CHECK(ag_i_csr_from_dense(&k->xs, X, N, F));
            k->xs_of = X;
        }
        if (k->q) ag_i_spmm(S, layer->Wq, HD, HD, 1.0f, 0.0f, k->q, HD);
        if (k->k) ag_i_spmm(S, layer->Wk, HD, HD, 1.0f, 0.0f, k->k, HD);
        ag_i_spmm(S, layer->Wv, HD, HD, 1.0f, 0.0f, k->v, HD);
    } else {
        if (k->q) ag_i_gemm(0, 0, N, HD, F, 1.0f, X, F, layer->Wq, HD, 0.0f, k->q, HD);
        if (k->k) ag_i_gemm(0, 0, N, HD, F, 1.0f, X, F, layer->Wk, HD, 0.0f, k->k, HD);
        ag_i_gemm(0, 0, N, HD, F, 1.0f, X, F, layer->Wv, HD, 0.0f, k->v, HD);
    }
    ag_attn_ctx_t x;
    make_ctx(&x, layer, mask, E);
    /* Concatenated heads without W^O are Y itself: inference writes them there (a copy of N x H*D
     * was 6 % of a MUTAG inference); training keeps them in o for the backward. Other inference
     * passes write them into the caller's workspace when it lends one (a model's blocks share
     * it), since nothing reads them after the pass. */
    k->o_in_y = !training && c->combine == AG_HEADS_CONCAT && !c->out_proj;
    k->o_lent = !training && !k->o_in_y && o_ws;
    if (k->o_in_y) x.o = Y;
    else if (k->o_lent) x.o = o_ws;
    else {
        AG_CHECK(cache_reserve_o(k, c));
        x.o = k->o;
    }
    int nt = ag_threads_get(), gat = c->score == AG_SCORE_GAT;
    int csr = mask->kind != AG_MASK_FULL && x.emode == AG_EDGE_NONE;
    /* ... and the GAT kernel adds the bias to each row it writes, saving a pass over Y */
    if (k->o_in_y && c->bias && csr && ag_i_attn_csr_gat_forward_fast(&x)) x.bias_o = layer->bo;
    if (gat && !csr) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t i = 0; i < N; i++) gat_node_terms(layer, k, i);
    }
    if (ag_i_attn_full_fast(&x)) {
        AG_CHECK(ag_i_attn_full_forward(&x, nt));
    } else if (csr) {
        int64_t maxdeg = 1;
        for (int64_t i = 0; i < N; i++)
            if (mask->indptr[i + 1] - mask->indptr[i] > maxdeg) maxdeg = mask->indptr[i + 1] - mask->indptr[i];
        float *scratch;
        int64_t stride = (maxdeg * H + 15) / 16 * 16;
        AG_CHECK(ag_i_alloc_array((void **)&scratch, stride * nt, sizeof(float), "attention scratch"));
        /* one parallel region for GAT's node terms and the destinations (each region's start
         * wakes the sleeping threads under OMP_WAIT_POLICY=passive); the barrier between the
         * loops is the implicit one of the first */
#pragma omp parallel num_threads(nt)
        {
            if (gat) {
#pragma omp for schedule(static)
                for (int64_t i = 0; i < N; i++) gat_node_terms(layer, k, i);
            }
#pragma omp for schedule(dynamic, 64)
            for (int64_t i = 0; i < N; i++) ag_i_attn_csr_forward_dst(&x, i, scratch + stride * omp_get_thread_num());
        }
        ag_i_free(scratch);
    } else {
        float *scratch;
        int64_t stride;
        AG_CHECK(alloc_scratch(&scratch, &x, nt, &stride));
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
        for (int64_t i = 0; i < N; i++) ag_i_attn_forward_dst(&x, i, scratch + stride * omp_get_thread_num());
        ag_i_free(scratch);
    }

    /* combine heads: concatenation is o itself; the mean sums heads in order */
    const float *comb = x.o;
    float *meanbuf = c->out_proj ? k->comb : Y;
    if (c->combine == AG_HEADS_MEAN) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t i = 0; i < N; i++)
            for (int64_t d = 0; d < D; d++) {
                float t = 0.0f;
                for (int64_t h = 0; h < H; h++) t += x.o[i * HD + h * D + d];
                meanbuf[i * D + d] = t / (float)H;
            }
        comb = meanbuf;
    }
    if (c->out_proj) {
        ag_i_gemm(0, 0, N, O, C, 1.0f, comb, C, layer->Wo, O, 0.0f, Y, O);
    } else if (comb != Y && !k->o_in_y) {
        memcpy(Y, comb, (size_t)(N * C) * sizeof(float));
    }
    if (c->bias && !x.bias_o) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < O; o++) Y[i * O + o] += layer->bo[o];
    }
    k->valid = 1;
    return AG_SUCCESS;
}

int64_t ag_i_attention_head_floats(const ag_attention_t *layer) {
    const ag_attn_cache_t *k = layer->cache;
    return k && k->o ? k->n_nodes * layer->cfg.heads * layer->cfg.head_dim : 0;
}

/* out (C) += column sums of A (N x C), in a fixed order: per chunk of rows, then over chunks. */
static ag_error_t colsum_add(const float *A, int64_t N, int64_t C, float *out) {
    int64_t nch = (N + AG_ATTN_CHUNK - 1) / AG_ATTN_CHUNK;
    float *part;
    AG_CHECK(ag_i_alloc_array((void **)&part, nch * C, sizeof(float), "attention bias gradient partials"));
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t ch = 0; ch < nch; ch++) {
        int64_t i1 = (ch + 1) * AG_ATTN_CHUNK < N ? (ch + 1) * AG_ATTN_CHUNK : N;
        for (int64_t i = ch * AG_ATTN_CHUNK; i < i1; i++)
            for (int64_t x = 0; x < C; x++) part[ch * C + x] += A[i * C + x];
    }
    for (int64_t ch = 0; ch < nch; ch++)
        for (int64_t x = 0; x < C; x++) out[x] += part[ch * C + x];
    ag_i_free(part);
    return AG_SUCCESS;
}

/* dE rows += per-entry gradients gathered per edge id; an edge's entries (the two directions of an
 * undirected edge, a k-hop pair) are summed in increasing entry order. */
static ag_error_t gather_edge_grads(const ag_mask_t *mask, const float *dent, int64_t Fe, float *dE) {
    int64_t M = mask->n_entries, nE = 0;
    for (int64_t k = 0; k < M; k++)
        if (mask->edge[k] + 1 > nE) nE = mask->edge[k] + 1;
    /* ptr (nE + 2) and list (M): the entries of each edge id, grouped as a CSR (a counting sort,
     * shifted by two so that one pass counts and a second places) */
    int64_t *ptr = NULL, *list = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&ptr, nE + 2, sizeof(int64_t), "edge gradient index");
    if (!rc) rc = ag_i_alloc_array((void **)&list, M, sizeof(int64_t), "edge gradient index");
    if (rc) {
        ag_i_free(ptr);
        return rc;
    }
    for (int64_t k = 0; k < M; k++)
        if (mask->edge[k] >= 0) ptr[mask->edge[k] + 2]++;
    for (int64_t e = 0; e < nE; e++) ptr[e + 2] += ptr[e + 1];
    for (int64_t k = 0; k < M; k++)
        if (mask->edge[k] >= 0) list[ptr[mask->edge[k] + 1]++] = k;
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t e = 0; e < nE; e++)
        for (int64_t t = ptr[e]; t < ptr[e + 1]; t++)
            for (int64_t f = 0; f < Fe; f++) dE[e * Fe + f] += dent[list[t] * Fe + f];
    ag_i_free(ptr);
    ag_i_free(list);
    return AG_SUCCESS;
}

ag_error_t ag_attention_backward(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                 const float *E, const float *dY, float *dX, float *dE) {
    if (!layer || !layer->cache || !X || !dY) return AG_ERROR(AG_EINVAL, "attention backward: NULL argument");
    AG_CHECK(check_mask(mask));
    const ag_attention_config_t *c = &layer->cfg;
    ag_attn_cache_t *k = layer->cache;
    if (!k->valid) return AG_ERROR(AG_EINVAL, "attention backward: no forward pass to differentiate");
    if (k->o_in_y || k->o_lent)
        return AG_ERROR(AG_EINVAL, "attention backward: the last forward was an inference pass (training 0), "
                        "which keeps no head outputs");
    if (k->n_nodes != mask->n_nodes || k->n_entries != mask->n_entries || k->mask_kind != (int)mask->kind)
        return AG_ERROR(AG_EINVAL, "attention backward: mask (%lld nodes, %lld entries) is not the forward's "
                        "(%lld nodes, %lld entries)", (long long)mask->n_nodes, (long long)mask->n_entries,
                        (long long)k->n_nodes, (long long)k->n_entries);
    if (c->edge_mode != AG_EDGE_NONE && !E)
        return AG_ERROR(AG_EINVAL, "attention backward: edge mode needs edge features E");
    int64_t N = mask->n_nodes, M = mask->n_entries, F = c->in_dim, H = c->heads, D = c->head_dim, HD = H * D;
    int64_t C = comb_dim(c), O = ag_attention_out_dim(c), Fe = c->edge_dim;
    int full = mask->kind == AG_MASK_FULL, edges = c->edge_mode != AG_EDGE_NONE;
    int64_t nch = (N + AG_ATTN_CHUNK - 1) / AG_ATTN_CHUNK;
    int64_t weSize = c->edge_mode == AG_EDGE_KEY ? Fe * HD : c->edge_mode == AG_EDGE_BIAS ? Fe * H : 0;
    int64_t size_check;
    if (ag_i_mul_overflow(M, H, &size_check) || ag_i_mul_overflow(M, Fe > 0 ? Fe : 1, &size_check) ||
        ag_i_mul_overflow(N, C > HD ? C : HD, &size_check))
        return AG_ERROR(AG_ELIMIT, "attention backward: %lld mask entries x %lld heads (or x %lld edge features) "
                        "overflows", (long long)M, (long long)H, (long long)Fe);

    ag_attn_bwd_t b;
    memset(&b, 0, sizeof b);
    b.C = C;
    b.concat = c->combine == AG_HEADS_CONCAT;
    b.dscale = b.concat ? 1.0f : 1.0f / (float)H;
    b.part_da = b.part_dasrc = b.part_we = 0;
    b.P = 0;
    if (c->score == AG_SCORE_GATV2) { b.part_da = b.P; b.P += HD; }
    if (c->score == AG_SCORE_GAT) { b.part_dasrc = b.P; b.P += 2 * HD; } /* da_src, then da_dst */
    if (edges) { b.part_we = b.P; b.P += weSize; }

    float *dcomb = NULL, *cs = NULL, *dq = NULL, *dk = NULL, *dv = NULL, *del = NULL, *der = NULL;
    float *part = NULL, *dent = NULL, *scratch = NULL, *ds_e = NULL, *wv_e = NULL;
    int32_t *dst = NULL;
    ag_error_t rc = AG_SUCCESS;
    int64_t NHD = N * HD;
    if (c->out_proj) rc = ag_i_alloc_array((void **)&dcomb, N * C, sizeof(float), "attention dO");
    if (!rc) rc = ag_i_alloc_array((void **)&cs, N * H, sizeof(float), "attention dO.O");
    if (!rc && c->score != AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&dq, NHD, sizeof(float), "attention dQ");
    if (!rc && c->score == AG_SCORE_DOT) rc = ag_i_alloc_array((void **)&dk, NHD, sizeof(float), "attention dK");
    if (!rc) rc = ag_i_alloc_array((void **)&dv, NHD, sizeof(float), "attention dV");
    if (!rc && c->score == AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&del, N * H, sizeof(float), "attention dscore");
    if (!rc && c->score == AG_SCORE_GAT) rc = ag_i_alloc_array((void **)&der, N * H, sizeof(float), "attention dscore");
    if (!rc && b.P > 0) rc = ag_i_alloc_array((void **)&part, nch * b.P, sizeof(float), "attention gradient partials");
    if (!rc && edges && dE) rc = ag_i_alloc_array((void **)&dent, M * Fe, sizeof(float), "attention edge gradients");
    if (!rc && !full) rc = ag_i_alloc_array((void **)&dst, M, sizeof(int32_t), "attention entry destinations");
    ag_attn_ctx_t x;
    make_ctx(&x, layer, mask, E);
    /* the lane kernels recompute per-entry values in the source pass; the others keep them */
    int keep_ds = !full && !ag_i_attn_csr_fast(&x);
    if (!rc && keep_ds) rc = ag_i_alloc_array((void **)&ds_e, M * H, sizeof(float), "attention entry gradients");
    if (!rc && keep_ds) rc = ag_i_alloc_array((void **)&wv_e, M * H, sizeof(float), "attention entry weights");
    int nt = ag_threads_get();
    int64_t stride = 0;
    if (!rc) rc = alloc_scratch(&scratch, &x, nt, &stride);
    if (!rc && c->bias) rc = colsum_add(dY, N, O, layer->dbo);
    if (rc) goto done;

    /* through W^O: dW^O += comb^T dY, dcomb = dY W^O^T */
    if (c->out_proj) {
        const float *comb = c->combine == AG_HEADS_MEAN ? k->comb : k->o;
        ag_i_gemm(1, 0, C, O, N, 1.0f, comb, C, dY, O, 1.0f, layer->dWo, O);
        ag_i_gemm(0, 1, N, C, O, 1.0f, dY, O, layer->Wo, O, 0.0f, dcomb, C);
    }
    b.dcomb = c->out_proj ? dcomb : dY;
    if (!full) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t i = 0; i < N; i++)
            for (int64_t e = mask->indptr[i]; e < mask->indptr[i + 1]; e++) dst[e] = (int32_t)i;
    }
    /* cs_ih = dO_ih . O_ih: the softmax (and relu) Jacobian's sum over sources, from the output */
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++) {
            float t = 0.0f;
            const float *g = b.dcomb + i * C + (b.concat ? h * D : 0), *o = k->o + i * HD + h * D;
            for (int64_t d = 0; d < D; d++) t += g[d] * b.dscale * o[d];
            cs[i * H + h] = t;
        }
    b.cs = cs;
    b.dq = dq;
    b.dk = dk;
    b.dv = dv;
    b.del = del;
    b.der = der;
    b.part = part;
    b.dent = dent;
    b.dst = dst;
    b.ds_e = ds_e;
    b.wv_e = wv_e;
    if (ag_i_attn_full_fast(&x)) {
        rc = ag_i_attn_full_backward(&x, &b, nt);
        if (rc) goto done;
    } else if (ag_i_attn_csr_fast(&x)) {
        rc = ag_i_attn_csr_backward(&x, &b, nt);
        if (rc) goto done;
    } else {
        if (ds_e && x.emode == AG_EDGE_NONE && c->score != AG_SCORE_GATV2) {
            /* pass A, specialised: neighbour/k-hop masks without edge features, DOT or GAT */
            int64_t maxdeg = 1;
            for (int64_t i = 0; i < N; i++)
                if (mask->indptr[i + 1] - mask->indptr[i] > maxdeg) maxdeg = mask->indptr[i + 1] - mask->indptr[i];
            int64_t cstride = (HD + 2 * maxdeg * H + 15) / 16 * 16;
            float *cscr;
            rc = ag_i_alloc_array((void **)&cscr, cstride * nt, sizeof(float), "attention scratch");
            if (rc) goto done;
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
            for (int64_t i = 0; i < N; i++)
                ag_i_attn_csr_backward_dst(&x, &b, i, cscr + cstride * omp_get_thread_num());
            ag_i_free(cscr);
        } else {
            /* pass A: per destination, gather over its sources */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
            for (int64_t ch = 0; ch < nch; ch++) {
                float *scr = scratch + stride * omp_get_thread_num();
                int64_t i1 = (ch + 1) * AG_ATTN_CHUNK < N ? (ch + 1) * AG_ATTN_CHUNK : N;
                for (int64_t i = ch * AG_ATTN_CHUNK; i < i1; i++)
                    ag_i_attn_backward_dst(&x, &b, i, part ? part + ch * b.P : NULL, scr);
            }
        }
        /* pass B: per source, gather over its destinations (transposed CSR, or the graph for full) */
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
        for (int64_t j = 0; j < N; j++) ag_i_attn_backward_src(&x, &b, j, scratch + stride * omp_get_thread_num());
    }
    if (c->score == AG_SCORE_GAT) {
        /* el_i = a_dst . z_i and er_j = a_src . z_j feed back into z and the attention vectors */
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t ch = 0; ch < nch; ch++) {
            float *pas = part + ch * b.P + b.part_dasrc, *pad = pas + HD;
            int64_t i1 = (ch + 1) * AG_ATTN_CHUNK < N ? (ch + 1) * AG_ATTN_CHUNK : N;
            for (int64_t i = ch * AG_ATTN_CHUNK; i < i1; i++)
                for (int64_t h = 0; h < H; h++) {
                    float gl = del[i * H + h], gr = der[i * H + h];
                    const float *z = k->v + i * HD + h * D;
                    float *dz = dv + i * HD + h * D;
                    for (int64_t d = 0; d < D; d++) {
                        dz[d] += gl * layer->a_dst[h * D + d] + gr * layer->a_src[h * D + d];
                        pad[h * D + d] += gl * z[d];
                        pas[h * D + d] += gr * z[d];
                    }
                }
        }
    }
    /* parameter-gradient partials, reduced over chunks in order */
    for (int64_t ch = 0; ch < nch && part; ch++) {
        const float *pp = part + ch * b.P;
        if (c->score == AG_SCORE_GATV2)
            for (int64_t t = 0; t < HD; t++) layer->da[t] += pp[b.part_da + t];
        if (c->score == AG_SCORE_GAT)
            for (int64_t t = 0; t < HD; t++) {
                layer->da_src[t] += pp[b.part_dasrc + t];
                layer->da_dst[t] += pp[b.part_dasrc + HD + t];
            }
        if (edges)
            for (int64_t t = 0; t < weSize; t++) layer->dWe[t] += pp[b.part_we + t];
    }
    /* projections: dW += X^T dP (through X's transposed CSR when the forward found X sparse),
     * dX += dP W^T */
    ag_i_csr_t xt;
    memset(&xt, 0, sizeof xt);
    int sparse = k->xs_of == X && k->xs.indptr;
    if (sparse) rc = ag_i_csr_transpose(&xt, &k->xs);
    if (rc) goto done;
    if (sparse) ag_i_spmm(&xt, dv, HD, HD, 1.0f, 1.0f, layer->dWv, HD);
    else ag_i_gemm(1, 0, F, HD, N, 1.0f, X, F, dv, HD, 1.0f, layer->dWv, HD);
    if (dX) ag_i_gemm(0, 1, N, F, HD, 1.0f, dv, HD, layer->Wv, HD, 1.0f, dX, F);
    if (dq) {
        if (sparse) ag_i_spmm(&xt, dq, HD, HD, 1.0f, 1.0f, layer->dWq, HD);
        else ag_i_gemm(1, 0, F, HD, N, 1.0f, X, F, dq, HD, 1.0f, layer->dWq, HD);
        if (dX) ag_i_gemm(0, 1, N, F, HD, 1.0f, dq, HD, layer->Wq, HD, 1.0f, dX, F);
    }
    if (dk) {
        if (sparse) ag_i_spmm(&xt, dk, HD, HD, 1.0f, 1.0f, layer->dWk, HD);
        else ag_i_gemm(1, 0, F, HD, N, 1.0f, X, F, dk, HD, 1.0f, layer->dWk, HD);
        if (dX) ag_i_gemm(0, 1, N, F, HD, 1.0f, dk, HD, layer->Wk, HD, 1.0f, dX, F);
    }
    ag_i_csr_destroy(&xt);
    if (dent) rc = gather_edge_grads(mask, dent, Fe, dE);
done:
    ag_i_free(dcomb);
    ag_i_free(cs);
    ag_i_free(dq);
    ag_i_free(dk);
    ag_i_free(dv);
    ag_i_free(del);
    ag_i_free(der);
    ag_i_free(part);
    ag_i_free(dent);
    ag_i_free(dst);
    ag_i_free(ds_e);
    ag_i_free(wv_e);
    ag_i_free(scratch);
    return rc;
}

ag_error_t ag_attention_weights(const ag_attention_t *layer, const ag_mask_t *mask, float *alpha) {
    if (!layer || !layer->cache || !alpha) return AG_ERROR(AG_EINVAL, "attention weights: NULL argument");
    AG_CHECK(check_mask(mask));
    const ag_attn_cache_t *k = layer->cache;
    if (!k->valid || k->n_nodes != mask->n_nodes || k->n_entries != mask->n_entries || k->mask_kind != (int)mask->kind)
        return AG_ERROR(AG_EINVAL, "attention weights: no forward pass on this mask");
    ag_attn_ctx_t x;
    make_ctx(&x, layer, mask, k->E);
    int nt = ag_threads_get();
    float *scratch;
    int64_t stride;
    AG_CHECK(alloc_scratch(&scratch, &x, nt, &stride));
    int64_t H = layer->cfg.heads;
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
    for (int64_t i = 0; i < mask->n_nodes; i++)
        ag_i_attn_weights_dst(&x, i, alpha + mask->indptr[i] * H, scratch + stride * omp_get_thread_num());
    ag_i_free(scratch);
    return AG_SUCCESS;
}
