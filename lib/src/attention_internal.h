/*
 * attention_internal.h: the attention layer's forward cache and the per-destination kernels
 * shared by attention.c (orchestration, projections) and attention_kernels.c (internal).
 */
#ifndef ATTNGRAPH_ATTENTION_INTERNAL_H
#define ATTNGRAPH_ATTENTION_INTERNAL_H

#include <string.h>
#include "attngraph/attention.h"
#include "blas.h"
#include "internal.h"
#include "rng_internal.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* Forward cache: O(N x H x D) per-node tensors and O(N x H) softmax statistics. No per-entry
 * tensor is kept: scores are recomputed from these in the backward pass and for the weights. */
typedef struct ag_attn_cache_t {
    int valid;
    int64_t n_nodes;    /* N of the last forward */
    int64_t n_entries;  /* M of the last forward */
    int mask_kind;
    int dropout;        /* 1 when the last forward applied attention dropout */
    int o_in_y;         /* 1 when an inference forward wrote the head outputs into Y, not into o */
    int o_lent;         /* 1 when an inference forward wrote them into the caller's workspace */
    uint64_t seed, stream;
    const float *E;     /* the forward's edge features: ag_attention_weights recomputes scores */
    float *q;    /* (N x H*D) DOT, GATV2: X W^q */
    float *k;    /* (N x H*D) DOT: X W^k */
    float *v;    /* (N x H*D) values z = X W^v */
    float *el;   /* (N x H) GAT: a_dst . z_i */
    float *er;   /* (N x H) GAT: a_src . z_j */
    float *mx;   /* (N x H) softmax: the maximum score of each (destination, head); relu: 0 */
    float *den;  /* (N x H) softmax: sum of exp(s - mx); relu: sum of relu(s) + eps; 0 if no source */
    float *o;    /* (N x H*D) per-head outputs (after dropout), before the heads are combined; NULL
                    until a forward that keeps them (training, or inference without a workspace) */
    float *comb; /* (N x D) mean of heads, kept for dW^O when heads are averaged and out_proj */
    /* A mostly-zero input (Cora's bag of words) as CSR: the projections of the last forward were
     * sparse products, and the backward's X^T dP uses it too. xs_of is the X it was made from. */
    ag_i_csr_t xs;      /* (N x F) */
    const float *xs_of;
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
    const float *bias_o; /* (H*D) the layer's bias, added to o by the GAT forward (o is Y), or NULL */
    const float *a;     /* (H*D) GATV2 */
    const float *a_src; /* (H*D) GAT */
    const float *We;    /* (Fe x H*D) KEY, (Fe x H) BIAS */
    float *mx, *den, *o;
    int dropout;
    uint64_t drop_base; /* ag_i_rng_base(seed, stream) of the layer's dropout draws: hashed once */
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
    float *ds_e;         /* (M x H) CSR masks, DOT and GAT: dL/ds per entry (GAT: through the LeakyReLU),
                            written by the destination pass so that the source pass need not recompute */
    float *wv_e;         /* (M x H) with ds_e: alpha * dropout factor per entry */
    const int32_t *dst;  /* (M) destination of each entry (CSR masks) */
} ag_attn_bwd_t;

void ag_i_attn_backward_dst(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *part,
                            float *scratch);
/* The destination pass for neighbour and k-hop masks without edge features, DOT and GAT scores
 * (b->ds_e and b->wv_e set): the same values as ag_i_attn_backward_dst, with the weights of all
 * entries in one vectorised exponential. scratch holds H*D + 2 * max_deg * H floats. */
void ag_i_attn_csr_backward_dst(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *scratch);
void ag_i_attn_backward_src(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t j, float *scratch);

/* exp(x) for x >= -87 (clamped below): Cody-Waite reduction and a degree-6 polynomial (relative
 * error below 3e-7). The scalar and the vectorised form run the same operations, so they agree
 * bit for bit (ISO C mode keeps -ffp-contract=off). */
static inline __attribute__((always_inline)) float ag_i_exp1(float xin) {
    float v = xin > -87.0f ? xin : -87.0f;
    float r0 = (v * 1.44269504f + 12582912.0f) - 12582912.0f; /* round to nearest */
    float r = (v - r0 * 0.693145751953125f) - r0 * 1.428606765330187e-06f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.16666667f + r * (0.041666668f + r * (0.008333334f +
              r * 0.0013888889f)))));
    int32_t bits = ((int32_t)r0 + 127) * 8388608; /* 2^r0 */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale; /* e^-87 (1.6e-38) for anything below: harmless in a sum of at least 1 */
}

/* x[l] = exp(x[l]) for x >= -87 (clamped below), vectorised; every exponential of the softmax
 * goes through it so that the forward and backward passes agree. */
void ag_i_exp_block(float *x, int64_t n);

/* Neighbour and k-hop masks without edge features: destination i in two passes over its entries
 * (scores into scratch, then the weighted sum); scratch holds max_deg * H floats. */
void ag_i_attn_csr_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch);

/* Neighbour and k-hop masks without edge features, DOT and GAT scores, at most 64 heads: the
 * backward with heads in vector lanes (attention_csr.c). Adds into b->dq or b->del, b->dv, b->dk
 * or b->der; needs b->dst. The same bits as ag_i_attn_csr_backward_dst and the source pass. */
int ag_i_attn_csr_fast(const ag_attn_ctx_t *c);
ag_error_t ag_i_attn_csr_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int nt);

/* The forward of ag_i_attn_csr_forward_dst for GAT scores, at most 64 heads, without edge
 * features, with heads in vector lanes (attention_csr.c); the same bits. */
int ag_i_attn_csr_gat_forward_fast(const ag_attn_ctx_t *c);
void ag_i_attn_csr_gat_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch);

/* Full mask, DOT scores, no edge features: the blocked fast path (attention_full.c). */
int ag_i_attn_full_fast(const ag_attn_ctx_t *c);
ag_error_t ag_i_attn_full_forward(const ag_attn_ctx_t *c, int nt);
ag_error_t ag_i_attn_full_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int nt);

/* The normalised weights (H) of destination i's CSR entries into alpha (rows of H). */
void ag_i_attn_weights_dst(const ag_attn_ctx_t *c, int64_t i, float *alpha, float *scratch);

#pragma GCC visibility pop
#endif
