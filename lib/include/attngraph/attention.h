/*
 * attngraph/attention.h: multi-head graph self-attention, forward and backward.
 *
 * For every destination node i and every head h, attention runs over the candidate sources j that
 * the mask allows:
 *     s_ij   = score(i, j)                     (per head; see ag_score_t)
 *     alpha_ij = softmax_j(s_ij)  or  relu(s_ij) / (sum_j relu(s_ij) + eps)   (ag_norm_t)
 *     out_i  = sum_j alpha_ij v_j
 * then the heads are concatenated (N x H*D) or averaged (N x D), optionally projected by W^O to
 * O columns, and a bias is added. With edge features in AG_EDGE_KEY mode, e_ij W^e is added both
 * to what is scored against the destination (k_j for DOT, z_j for GAT and GATv2) and to the value.
 * A destination with no candidate source (isolated, self-loops off) gets a zero vector (+ bias).
 * Attention dropout zeroes alpha_ij with probability p and scales the rest by 1/(1-p); the draw for
 * (entry k, head h) is ag_rng_uniform(seed, stream, k*H + h) for CSR masks and
 * ag_rng_uniform(seed, stream, ((int64)i*N + j)*H + h) for the full mask, with one stream per call.
 *
 * Readings fixed by the implementation (where the lines above leave a choice):
 * - GAT with AG_EDGE_KEY scores a_src . (z_j + e_ij W^e); AG_EDGE_BIAS adds e_ij W^e after the
 *   LeakyReLU (to the score itself), for every scoring.
 * - Dropout drops (entry or pair, head) when its draw u < p; kept weights are scaled by 1/(1-p).
 * - The full mask attends over every node of the destination's graph, the node itself included,
 *   whatever self_loops says (self_loops only decides whether self-pairs are CSR entries, i.e.
 *   reported by ag_attention_weights). A pair j -> i joined by several input edges is scored once,
 *   with the SUM of its edges' features (W^e is linear: the sum of their contributions); each of
 *   its CSR entries reports that pair's weight and receives the same edge-feature gradient.
 * - Averaged heads are (sum over h in order) / H.
 *
 * Shapes use fixed letters: N nodes, E input edges, M mask entries, H heads, D head size,
 * F input features, Fe edge features, O output width.
 *
 * Lean by construction: neighbour and k-hop masks keep O(M x H) coefficients and aggregate per
 * destination from the mask's CSR; no M x H x D tensor exists. The full mask never builds an
 * N x N matrix: keys and values are streamed with an online softmax (memory O(N x H x D)) and the
 * backward pass recomputes scores. Every sum runs in a fixed order, so results are bit-identical
 * for any number of threads.
 */
#ifndef ATTNGRAPH_ATTENTION_H
#define ATTNGRAPH_ATTENTION_H

#include "attngraph/common.h"
#include "attngraph/graph.h"
#include "attngraph/param.h"
#include "attngraph/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a (destination i, source j) pair is scored, per head. */
typedef enum ag_score_t {
    /* Transformer: q_i . k_j / sqrt(D), q = X W^q, k = X W^k, v = X W^v. */
    AG_SCORE_DOT = 0,
    /* GAT: LeakyReLU(a_dst . z_i + a_src . z_j), z = X W^v is also the value (one shared W). */
    AG_SCORE_GAT,
    /* GATv2: a . LeakyReLU(X_i W^q + X_j W^v), value z_j = X_j W^v. */
    AG_SCORE_GATV2
} ag_score_t;

/** How scores become weights. */
typedef enum ag_norm_t {
    AG_NORM_SOFTMAX = 0, /* numerically stable softmax over each destination's sources */
    AG_NORM_RELU         /* relu(s) / (sum of relu(s) + 1e-6): no exponentials, exact zeros */
} ag_norm_t;

/** Who attends to whom. */
typedef enum ag_mask_kind_t {
    AG_MASK_NEIGHBOURS = 0, /* in-neighbours (plus self-loops unless switched off) */
    AG_MASK_KHOP,           /* every node within `hops` steps along in-edges: truncated attention */
    AG_MASK_FULL            /* every node of the same graph (never across the graphs of a batch) */
} ag_mask_kind_t;

/** How heads are combined. */
typedef enum ag_heads_t {
    AG_HEADS_CONCAT = 0, /* N x H*D, then W^O if out_proj */
    AG_HEADS_MEAN        /* N x D, averaged over heads (GAT's output layer) */
} ag_heads_t;

/** How edge features (Fe per input edge) enter the score. */
typedef enum ag_edge_mode_t {
    AG_EDGE_NONE = 0,
    AG_EDGE_KEY,  /* e_ij W^e (Fe x H*D) is added to the key (DOT) / to z_j in the score (GAT, GATv2)
                     and to the value, as PyG's TransformerConv and GATConv(edge_dim) do */
    AG_EDGE_BIAS  /* e_ij W^e (Fe x H) is added to the score of each head */
} ag_edge_mode_t;

/** The attention mask over a graph or batch: CSR of candidate sources per destination.
 * For the full mask the CSR holds the neighbour entries (input edges, plus self-loops when on):
 * attention runs over every node of the graph, and the CSR is where edge features are looked up
 * while streaming and which pairs ag_attention_weights() reports. */
typedef struct ag_mask_t {
    ag_mask_kind_t kind;
    int hops;           /* k for AG_MASK_KHOP */
    int self_loops;     /* 1: every node also attends to itself */
    int64_t n_nodes;    /* N */
    int64_t n_entries;  /* M: CSR entries */
    int64_t *indptr;    /* (N+1) CSR: entries of destination i are indptr[i] .. indptr[i+1]-1 */
    int32_t *src;       /* (M) source node of each entry */
    int64_t *edge;      /* (M) batch-global input edge id, or -1 (added self-loop, k-hop pair) */
    int64_t *t_indptr;  /* (N+1) transposed CSR: entries whose source is j, for the backward pass */
    int64_t *t_entry;   /* (M) entry ids grouped by source, in increasing order */
    int64_t n_graphs;   /* G */
    int64_t *graph_ptr; /* (G+1) copy of the graph's node ranges (full mask) */
    int32_t *node_graph;/* (N) */
} ag_mask_t;

/**
 * \function ag_mask_build
 * Builds the mask of a graph or batch. Entries of each destination are sorted by source (then edge
 * id). An input self-loop is kept as it is; with self_loops on, a node without one gets an added
 * entry with edge -1. Multi-edges stay separate entries. For k hops, a source within k steps appears
 * once, carrying its edge id if it is a direct in-neighbour (the smallest such id), else -1. The
 * destination itself is a k-hop source only through an input self-loop (its smallest id) or an
 * added one (self_loops on, edge -1), never through a longer cycle. The full mask's CSR is the
 * neighbour mask's.
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (hops < 1 for k-hop), AG_ELIMIT (entries overflow).
 * Time complexity: O(N + E) for neighbours and full (the graph's CSR is sorted already; the
 * full mask stores no pairs, attention streams them); k hops: O(N + M log M) over the M entries
 * kept, plus the k-step search from every node (run twice: once to count, once to fill), with
 * 20 bytes of scratch per node for each thread.
 */
ag_error_t ag_mask_build(ag_mask_t *mask, const ag_graph_t *graph, ag_mask_kind_t kind, int hops,
                         int self_loops);

/** \function ag_mask_destroy
 * Time complexity: O(1). */
void ag_mask_destroy(ag_mask_t *mask);

/** Per-layer configuration. ag_attention_config_default() fills sensible defaults. */
typedef struct ag_attention_config_t {
    int64_t in_dim;        /* F */
    int64_t heads;         /* H */
    int64_t head_dim;      /* D */
    int64_t out_dim;       /* O: width after W^O; ignored when out_proj is 0 */
    ag_score_t score;
    ag_norm_t norm;
    ag_heads_t combine;
    int out_proj;          /* 1: concatenated heads go through W^O and b^O (Transformer) */
    int bias;              /* 1: a bias is added to the output (b^O, or an output bias without W^O) */
    ag_edge_mode_t edge_mode;
    int64_t edge_dim;      /* Fe, when edge_mode != AG_EDGE_NONE */
    float negative_slope;  /* LeakyReLU slope of GAT and GATv2 scores (0.2) */
    float attn_dropout;    /* probability of dropping an attention weight in training */
} ag_attention_config_t;

/** \function ag_attention_config_default
 * Transformer-style defaults for F inputs: 4 heads of F/4 (at least 1), dot scores, softmax,
 * concat with W^O to F, bias on, no edge features, slope 0.2, no attention dropout.
 * Time complexity: O(1). */
void ag_attention_config_default(ag_attention_config_t *cfg, int64_t in_dim);

/** One attention layer: its configuration, parameters and the cache of its last forward pass. */
typedef struct ag_attention_t {
    ag_attention_config_t cfg;
    /* Parameters and gradients live in two allocations owned by the layer; unused ones are NULL. */
    float *params, *grads;
    float *Wq, *dWq;       /* (F x H*D) DOT, GATV2 */
    float *Wk, *dWk;       /* (F x H*D) DOT */
    float *Wv, *dWv;       /* (F x H*D) all scorings: values (GAT and GATV2 score with it too) */
    float *a_src, *da_src; /* (H*D) GAT */
    float *a_dst, *da_dst; /* (H*D) GAT */
    float *a, *da;         /* (H*D) GATV2 */
    float *We, *dWe;       /* (Fe x H*D) AG_EDGE_KEY, or (Fe x H) AG_EDGE_BIAS */
    float *Wo, *dWo;       /* (C x O) when out_proj; C = H*D (concat) or D (mean): W^O follows
                              the combination of heads */
    float *bo, *dbo;       /* (O) with W^O, else (C), when bias */
    /* Forward cache (what backward needs), grown as N or M grows; opaque to callers. */
    void *cache;
} ag_attention_t;

/**
 * \function ag_attention_init
 * Allocates a layer and initialises its weights (Glorot uniform, seeded; biases zero).
 * Each tensor draws from its own stream of attngraph/rng.h (Wq 1, Wk 2, Wv 3, a_src 4, a_dst 5,
 * a 6, We 7, Wo 8): U(-b, b), b = sqrt(6 / (fan_in + fan_out)) with the matrix's rows and columns
 * as fans, and H and D for the attention vectors (as PyG's glorot on a (1, H, D) tensor).
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (a non-positive in_dim, heads or head_dim; out_proj
 *         without a positive out_dim; an unknown score, normalisation, head combination or edge
 *         mode; an edge mode without a positive edge_dim; attn_dropout outside [0, 1); a
 *         non-finite negative_slope), AG_ELIMIT (heads above 4096, or a size or H*D above
 *         INT32_MAX).
 * Time complexity: O(F*H*D + H*D*O + Fe*H*D), the weights.
 */
ag_error_t ag_attention_init(ag_attention_t *layer, const ag_attention_config_t *cfg, uint64_t seed);

/** \function ag_attention_destroy
 * Time complexity: O(1). */
void ag_attention_destroy(ag_attention_t *layer);

/** \function ag_attention_out_dim
 * Width of the layer's output: O with W^O, H*D when concatenated, D when averaged.
 * Time complexity: O(1). */
int64_t ag_attention_out_dim(const ag_attention_config_t *cfg);

/** \function ag_attention_params
 * Appends the layer's parameter tensors to list under prefix (names Wq, Wk, Wv, a_src, a_dst, a,
 * We, Wo, bo).
 * \return AG_SUCCESS; AG_EINVAL (a NULL or uninitialised layer, a NULL list, a full name longer than
 *         AG_PARAM_NAME_MAX - 1); AG_ENOMEM.
 * Time complexity: O(1) (amortised: at most nine tensors are appended). */
ag_error_t ag_attention_params(ag_attention_t *layer, ag_param_list_t *list, const char *prefix);

/**
 * \function ag_attention_forward
 * \param X      (N x F) input features, row-major.
 * \param E      (E x Fe) edge features indexed by batch-global edge id, or NULL when edge_mode is NONE.
 *               Mask entries with edge -1 (added self-loops, k-hop pairs, full-mask pairs that are
 *               not edges) get zero edge features.
 * \param Y      (N x out_dim) output, overwritten.
 * \param training 1 applies attention dropout (using rng) and keeps what backward needs.
 * \param rng    The dropout draws; may be NULL when no dropout applies (training 0, or
 *               cfg.attn_dropout 0).
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (a NULL layer, X or Y; mask of another size; missing
 *         E; training with attention dropout and a NULL rng).
 * Time complexity: O(N F H D) for the projections, plus O(M H D) for the scores and the weighted
 * sums over the mask's M entries (neighbour or k-hop), or O(sum over graphs of N_g^2 H D) for the
 * full mask; O(M Fe H D) more with edge keys (O(M Fe H) with edge biases), O(N H D O) with W^O.
 * Memory: O(N H D) kept in the layer's cache (projections and head outputs) for the backward pass.
 */
ag_error_t ag_attention_forward(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                const float *E, float *Y, int training, ag_rng_t *rng);

/**
 * \function ag_attention_backward
 * Needs the cache of the last forward on the same mask and inputs. Adds the parameter gradients
 * into the layer's grads, dL/dX into dX (N x F) and dL/dE into dE (E x Fe, may be NULL).
 * \return AG_SUCCESS; AG_EINVAL (a NULL or uninitialised layer, a NULL X or dY, a mask not built,
 *         no training forward on this mask (none, an inference one, or one on another mask), missing
 *         E); AG_ELIMIT (sizes overflow); AG_ENOMEM. After a failure the grads may be partly
 *         accumulated.
 * Time complexity: that of ag_attention_forward() on the same mask, a small multiple of it; the
 * full mask with edge features adds a binary search of the destination's CSR per pair. Memory:
 * O(N H D + M H) of temporaries, O(M Fe) more with dE.
 */
ag_error_t ag_attention_backward(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                 const float *E, const float *dY, float *dX, float *dE);

/**
 * \function ag_attention_weights
 * The normalised attention weights of the last forward pass, one row per mask entry and one column
 * per head: alpha (M x H), with entry k's source mask->src[k], destination the node whose CSR range
 * holds k, and input edge mask->edge[k] (-1 for added self-loops). For the full mask these are the
 * weights (normalised over the whole graph) of the pairs in its CSR: input edges and self-pairs.
 * These are the weights before attention dropout (each destination's row sums to 1 under softmax).
 * They are recomputed from the last forward's cached projections, the current attention vectors
 * and W^e, and the E given to that forward: call it before changing parameters or freeing E.
 * \param alpha  Output, (M x H), caller allocates M*H floats.
 * \return AG_SUCCESS; AG_EINVAL (a NULL or uninitialised layer, a NULL alpha, a mask not built, no
 *         forward pass on this mask); AG_ENOMEM.
 * Time complexity: O(M H D) to rescore the M entries (O(M H) for GAT, O(M Fe H D) more with edge
 * keys), the full mask's included: its maxima and sums are cached by the forward pass.
 */
ag_error_t ag_attention_weights(const ag_attention_t *layer, const ag_mask_t *mask, float *alpha);

#ifdef __cplusplus
}
#endif
#endif
