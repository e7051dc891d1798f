/*
 * attention_internal.h: the attention layer's forward cache and the per-destination kernels
 * shared by attention.c (orchestration, projections) and attention_kernels.c (internal).
 */
#ifndef ATTNGRAPH_ATTENTION_INTERNAL_H
#define ATTNGRAPH_ATTENTION_INTERNAL_H

#include "attngraph/attention.h"

/* Forward cache: O(N x H x D) per-node tensors and O(N x H) softmax statistics. No per-entry
 * tensor is kept: scores are recomputed from these in the backward pass and for the weights. */
typedef struct ag_attn_cache_t {
    int valid;
    int64_t n_nodes;    /* N of the last forward */
    int64_t n_entries;  /* M of the last forward */
    int mask_kind;
    int dropout;        /* 1 when the last forward applied attention dropout */
    uint64_t seed, stream;
    const float *E;     /* the forward's edge features: ag_attention_weights recomputes scores */
    float *q;    /* (N x H*D) DOT, GATV2: X W^q */
    float *k;    /* (N x H*D) DOT: X W^k */
    float *v;    /* (N x H*D) values z = X W^v */
    float *el;   /* (N x H) GAT: a_dst . z_i */
    float *er;   /* (N x H) GAT: a_src . z_j */
    float *mx;   /* (N x H) softmax: the maximum score of each (destination, head); relu: 0 */
    float *den;  /* (N x H) softmax: sum of exp(s - mx); relu: sum of relu(s) + eps; 0 if no source */
    float *o;    /* (N x H*D) per-head outputs (after dropout), before the heads are combined */
    float *comb; /* (N x D) mean of heads, kept for dW^O when heads are averaged and out_proj */
} ag_attn_cache_t;

/* Everything the per-pair kernels read. */
typedef struct ag_attn_ctx_t {
    int64_t N, H, D, HD, Fe;
    ag_score_t score;
    ag_norm_t norm;
    ag_edge_mode_t emode;
    float slope;        /* LeakyReLU negative slope */
    float scale;        /* 1/sqrt(D) for DOT */
    const ag_mask_t *mask;
    const float *E;     /* (E x Fe) or NULL */
    const float *q, *k, *v, *el, *er; /* cache tensors, see ag_attn_cache_t */
    const float *a;     /* (H*D) GATV2 */
    const float *a_src; /* (H*D) GAT */
    const float *We;    /* (Fe x H*D) KEY, (Fe x H) BIAS */
    float *mx, *den, *o;
    int dropout;
    uint64_t seed, stream;
    float p, keep;      /* dropout probability and 1/(1-p) */
} ag_attn_ctx_t;

/* The relu normalisation's epsilon (see ag_norm_t). */
#define AG_ATTN_RELU_EPS 1e-6f
/* Destinations per chunk for parameter-gradient partials: fixed, so that the reduction order
 * does not depend on the number of threads. */
#define AG_ATTN_CHUNK 256

/* Floats of per-thread scratch the kernels need. */
int64_t ag_i_attn_scratch_floats(const ag_attn_ctx_t *c);

/* Forward for destination i: writes its rows of o, mx and den. */
void ag_i_attn_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch);

/* Backward pass over the pairs of destination i (gather over i's sources): given dO (rows of C
 * floats, per head at column concat ? h*D : 0, scaled by dscale) and cs (N x H, dO . o per head),
 * adds into dq_i (H*D, DOT/GATV2), del_i (H, GAT), part (chunk partial: da (H*D) at part_da,
 * da_src (H*D) at part_dasrc, dWe at part_we; NULL offsets -1), and writes per-entry edge-feature
 * gradients into dent (M x Fe, may be NULL). */
typedef struct ag_attn_bwd_t {
    const float *dcomb;  /* (N x C) gradient of the combined heads */
    int64_t C;
    int concat;
    float dscale;        /* 1, or 1/H when heads are averaged */
    const float *cs;     /* (N x H) dO_ih . o_ih */
    float *dq;           /* (N x H*D) DOT, GATV2 */
    float *dk;           /* (N x H*D) DOT */
    float *dv;           /* (N x H*D) */
    float *del, *der;    /* (N x H) GAT */
    float *part;         /* (chunks x P) parameter-gradient partials */
    int64_t P, part_da, part_dasrc, part_we;
    float *dent;         /* (M x Fe) per-entry edge-feature gradient, or NULL */
    const int32_t *dst;  /* (M) destination of each entry (CSR masks) */
} ag_attn_bwd_t;

void ag_i_attn_backward_dst(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *part,
                            float *scratch);
void ag_i_attn_backward_src(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t j, float *scratch);

/* The normalised weights (H) of destination i's CSR entries into alpha (rows of H). */
void ag_i_attn_weights_dst(const ag_attn_ctx_t *c, int64_t i, float *alpha, float *scratch);

#endif
