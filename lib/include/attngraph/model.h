/*
 * attngraph/model.h: a graph attention model: input encoding, attention blocks, readout, head.
 *
 *     X (N x F) -> [dropout] -> [input projection F -> W] -> L blocks -> node rows (N x W')
 *        node tasks:  -> [linear head] -> (N x C)
 *        graph tasks: -> readout (mean | sum | max | attention | vnode, or several of them side
 *                        by side) -> MLP head -> (G x C)
 *
 * A block is an attention layer (its own mask, scoring, heads) with optional dropout on its input,
 * an activation, a residual connection and LayerNorm (pre or post), followed by an optional
 * position-wise feed-forward sub-block with its own residual and norm: a Transformer encoder layer
 * when everything is on, a GAT layer when only dropout and the activation are.
 * Positional encodings are feature columns (see features.h); the input projection adds their
 * projection to that of the attributes (W [x; pe] = W_x x + W_pe pe).
 *
 * Virtual node (graph token, `virtual_node` = 1; off by default): after the input projection each
 * graph of the batch gains one row, a learned embedding ("vnode.emb", 1 x W) placed after the
 * graph's last node (row graph_ptr[g+1] + g of the widened batch). In every block and under every
 * mask kind the token attends to every node of its graph and every node attends to it (never
 * across graphs; ag_mask_build_vnode); token pairs carry zero edge features, so with edge features
 * they get no edge term (AG_EDGE_BIAS adds 0 to their score, AG_EDGE_KEY adds nothing to key and
 * value). K-hop paths never pass through the token. The readout AG_READOUT_VNODE takes the
 * token's final row; every other readout and the node head see only the real nodes (the token
 * rows are dropped after the last block).
 *
 * Several readouts (n_readouts > 1, e.g. vnode and sum, as PyG's MultiAggregation) each pool the
 * same (N x W) rows and their (G x W) results are concatenated in the order given, so the head
 * sees (G x n_readouts W). Why one would: the graph token's state is a softmax-weighted mean and
 * cannot tell a molecule's size, which a sum readout carries.
 *
 * Internally the model is a tape of operations run forward in order and backward in reverse, each
 * with its own output buffer (grown when N grows, so steps of the same size allocate nothing).
 */
#ifndef ATTNGRAPH_MODEL_H
#define ATTNGRAPH_MODEL_H

#include "attngraph/attention.h"
#include "attngraph/graph.h"
#include "attngraph/layers.h"
#include "attngraph/matrix.h"
#include "attngraph/param.h"
#include "attngraph/readout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AG_MODEL_MAX_BLOCKS 16

/** What the model predicts. */
typedef enum ag_task_t {
    AG_TASK_NODE_CLASSIFICATION = 0,  /* C classes per node; softmax cross-entropy */
    AG_TASK_NODE_REGRESSION,          /* T targets per node; MSE on standardised targets */
    AG_TASK_GRAPH_CLASSIFICATION,     /* C classes per graph (binary is C = 2) */
    AG_TASK_GRAPH_MULTITASK,          /* T binary tasks per graph, missing labels masked */
    AG_TASK_GRAPH_REGRESSION          /* T targets per graph; MSE on standardised targets */
} ag_task_t;

/** Where LayerNorm sits in a block. */
typedef enum ag_norm_place_t {
    AG_NORMPLACE_NONE = 0,
    AG_NORMPLACE_PRE,   /* x + f(LN(x)) */
    AG_NORMPLACE_POST   /* LN(x + f(x)) */
} ag_norm_place_t;

/** One block. attn.in_dim is filled in by the model from the previous width. */
typedef struct ag_block_config_t {
    ag_attention_config_t attn;
    ag_mask_kind_t mask;
    int hops;               /* for AG_MASK_KHOP */
    int self_loops;         /* neighbour / k-hop masks: every node also attends to itself */
    float dropout;          /* on the block's input (GAT: 0.6) */
    ag_act_kind_t act;      /* after attention (GAT: ELU between layers, identity at the end) */
    int residual;           /* add the block input (when widths agree) */
    ag_norm_place_t norm;   /* LayerNorm around attention and around the FFN */
    int ffn;                /* 1: a position-wise feed-forward sub-block follows */
    int64_t ffn_hidden;     /* its inner width (0: 2 x width) */
    ag_act_kind_t ffn_act;  /* GELU by default */
    float ffn_dropout;
} ag_block_config_t;

/** The whole architecture; every field is saved with the model. */
typedef struct ag_model_config_t {
    ag_task_t task;
    int64_t in_dim;          /* F: node feature width */
    int64_t edge_dim;        /* Fe: edge feature width (0: none) */
    int64_t n_out;           /* C classes or T tasks / targets */
    int64_t hidden;          /* W: input projection width (0: no projection, blocks see F) */
    float input_dropout;     /* on X */
    int n_blocks;            /* L */
    ag_block_config_t blocks[AG_MODEL_MAX_BLOCKS];
    int n_readouts;          /* graph tasks: 1 to AG_READOUT_COUNT, concatenated in order */
    ag_readout_kind_t readouts[AG_READOUT_COUNT]; /* graph tasks: distinct kinds */
    int64_t head_hidden;     /* MLP head's hidden width (0: a single linear layer) */
    ag_act_kind_t head_act;
    float head_dropout;
    int node_head;           /* node tasks: 1 adds a linear head, 0 uses the last block's output
                                (whose width must then be n_out, as in GAT) */
    uint64_t seed;           /* initialisation */
    int virtual_node;        /* 1: one learned graph token per graph (see above); 0 by default */
} ag_model_config_t;

/** \function ag_task_name / ag_task_from_name
 * "node-classification", "node-regression", "graph-classification", "graph-multitask",
 * "graph-regression".
 * \return ag_task_from_name: AG_SUCCESS; AG_EINVAL (not one of these names; case counts).
 * Time complexity: O(1). */
const char *ag_task_name(ag_task_t task);
ag_error_t ag_task_from_name(const char *name, ag_task_t *task);

/** \function ag_task_is_graph_level / ag_task_is_classification / ag_task_is_regression
 * Whether a task predicts per graph (classification, multi-task, regression), predicts one class
 * per row (node or graph classification; multi-task is several binary tasks, not this), or a
 * number per row (node or graph regression).
 * Time complexity: O(1). */
int ag_task_is_graph_level(ag_task_t task);
int ag_task_is_classification(ag_task_t task);
int ag_task_is_regression(ag_task_t task);

/** \function ag_score_name / ag_attn_norm_name / ag_mask_kind_name / ag_edge_mode_name /
 * ag_norm_place_name
 * The names a model file's configuration uses: "dot", "gat", "gatv2"; "softmax", "relu";
 * "neighbours", "khop", "full"; "none", "key", "bias"; "none", "pre", "post". "unknown" for a
 * value outside the enumeration.
 * Time complexity: O(1). */
const char *ag_score_name(ag_score_t score);
const char *ag_attn_norm_name(ag_norm_t norm);
const char *ag_mask_kind_name(ag_mask_kind_t kind);
const char *ag_edge_mode_name(ag_edge_mode_t mode);
const char *ag_norm_place_name(ag_norm_place_t place);

/**
 * \function ag_model_config_default
 * A Transformer-style default for a task: hidden 64, 3 blocks of 4-head dot-product attention over
 * neighbours with self-loops, residual + pre-LayerNorm, GELU FFN of 128, dropout 0.1, mean
 * readout, MLP head of 64. The caller sets in_dim, edge_dim, n_out.
 * Time complexity: O(1).
 */
void ag_model_config_default(ag_model_config_t *cfg, ag_task_t task);

/**
 * \function ag_model_config_gat
 * The GAT paper's transductive model (Velickovic et al. 2018, Cora): no input projection, block 1
 * 8 heads x 8 GAT attention concatenated + ELU, block 2 one head of n_out averaged, dropout 0.6 on
 * each block's input and on attention, no residual, no norm, no FFN, no node head.
 * Time complexity: O(1).
 */
void ag_model_config_gat(ag_model_config_t *cfg, int64_t in_dim, int64_t n_out);

#define AG_BATCH_MAX_MASKS 8

/** The input of one forward pass: a graph or block-diagonal batch with its features, and what is
 * derived from them on first use: the attention masks (once per distinct mask of the model's
 * blocks) and, when X is mostly zeros, X's sparse form for the first layer's inference. */
typedef struct ag_batch_t {
    const ag_graph_t *graph;  /* N nodes, G graphs */
    const float *X;           /* (N x F) */
    const float *E;           /* (E x Fe) or NULL when edge_dim is 0 */
    int n_masks;
    ag_mask_t masks[AG_BATCH_MAX_MASKS];
    int mask_vnode[AG_BATCH_MAX_MASKS]; /* 1: masks[i] was built with graph tokens */
    struct ag_i_csr_t *x_sparse; /* internal: X's nonzeros, built by the first inference that needs them */
} ag_batch_t;

/** \function ag_batch_init
 * Wraps a graph and its features (not copied: they must outlive the batch). The batch caches
 * what it derives from them (see ag_batch_t): change neither the graph nor X while the batch is
 * in use; to run on changed data, destroy the batch and init a new one (cheap).
 * Time complexity: O(1). */
void ag_batch_init(ag_batch_t *batch, const ag_graph_t *graph, const float *X, const float *E);

/** \function ag_batch_destroy
 * Frees the masks the batch built.
 * Time complexity: O(1) (at most AG_BATCH_MAX_MASKS masks and X's sparse form). */
void ag_batch_destroy(ag_batch_t *batch);

/** Reusable storage for block-diagonal batches of graphs with their features (ag_batch_buffer_fill):
 * the batched graph, and the members' node and edge features concatenated graph after graph.
 * The feature buffers only grow, so a fill no larger than an earlier one allocates only the
 * graph. Zero-initialise it or call ag_batch_buffer_init(); free it with ag_batch_buffer_destroy(). */
typedef struct ag_batch_buffer_t {
    ag_graph_t graph; /* the last fill's batch: N nodes, E edges, G graphs; empty after a failed fill */
    float *X;         /* (N x F) the last fill's node features; the caller may change them (augmentation) */
    float *E;         /* (E x Fe) the last fill's edge features when Fe > 0 (else not part of the batch) */
    int64_t X_cap, E_cap; /* floats allocated at X and at E */
    const ag_graph_t **graphs; /* (graphs_cap) the last fill's member graphs, for ag_graph_batch() */
    int64_t graphs_cap;
} ag_batch_buffer_t;

/** One member of a batch for ag_batch_buffer_fill(): a graph of N_g nodes and E_g edges with its
 * features. The fill copies what it points to, so the pointees need last only through the call. */
typedef struct ag_batch_member_t {
    const ag_graph_t *graph; /* the member's CSR (never NULL); it may itself be a batch */
    const ag_fmat_t *X;      /* (N_g x F) its node features; with N_g = 0, NULL or a matrix of no rows,
                                of any width and without data */
    const ag_fmat_t *E;      /* (E_g x Fe) its edge features, read only when Fe > 0; with E_g = 0, NULL
                                or a matrix of no rows */
} ag_batch_member_t;

/** \function ag_batch_buffer_init
 * An empty buffer: the same as zero-initialising it.
 * Time complexity: O(1). */
void ag_batch_buffer_init(ag_batch_buffer_t *buf);

/** \function ag_batch_buffer_destroy
 * Frees the graph and the feature buffers; safe on a zero-initialised or already destroyed one.
 * Time complexity: O(1). */
void ag_batch_buffer_destroy(ag_batch_buffer_t *buf);

/**
 * \function ag_batch_buffer_fill
 * Builds one block-diagonal batch of count graphs into buf (the graph by ag_graph_batch(), X and E
 * the members' rows in member order) and wraps it in batch, replacing the previous fill: destroy
 * the batch of that fill before. batch points into buf, so buf must stay where it is and unfilled
 * while batch is in use; the members are copied and may go once the call returns.
 * \param buf     The buffer, zero-initialised or filled before.
 * \param members (count) the graphs in batch order, each with its node features (N_g x F) and,
 *                when Fe > 0, its edge features (E_g x Fe); see ag_batch_member_t. Messages
 *                name a member by its index: "graph 2".
 * \param count   G, the number of members, at least 1.
 * \param F, Fe   Feature widths; Fe = 0: no edge features (no member's E is read), the batch's E
 *                is NULL.
 * \param batch   Output: ag_batch_init() of buf->graph, buf->X (N x F, never NULL) and, when
 *                Fe > 0, buf->E (E x Fe, never NULL), N and E the members' nodes and edges.
 *                Initialised whatever the outcome (empty on failure), so the caller may always
 *                ag_batch_destroy() it.
 * \return AG_SUCCESS; AG_EINVAL (a NULL buf, batch, members or member graph, count < 1, a
 *         negative width; no features, or a matrix without data, for a member with nodes or,
 *         when Fe > 0, edges); AG_EMISMATCH (a member's features are not N_g x F or E_g x Fe: the
 *         message names the member; directed mixed with undirected); AG_ELIMIT (more than 2^31-1
 *         nodes; a size overflows); AG_ENOMEM. On failure buf->graph is empty and buf stays
 *         usable for the next fill (destroy it as usual).
 * Time complexity: O(G + N F + E Fe + the members' CSR entries).
 */
ag_error_t ag_batch_buffer_fill(ag_batch_buffer_t *buf, const ag_batch_member_t *members, int64_t count, int64_t F,
                                int64_t Fe, ag_batch_t *batch);

/**
 * \function ag_mask_build_vnode
 * The mask of ag_mask_build() over a batch widened by one graph token per graph: node i of graph
 * g becomes row i + g and the token of graph g is row graph_ptr[g+1] + g (the last of its
 * graph's range; a graph without graph_ptr is one graph). Each node's entries are its entries of
 * ag_mask_build() (sources renumbered) followed by its token (edge -1); the token's entries are
 * every node of its graph in order, then itself when self_loops is on (edge -1). The mask's
 * graph_ptr and node_graph describe the widened batch, so the full mask attends over each
 * graph's nodes and its token. The k-hop sources are those of the graph alone.
 * \return as ag_mask_build(); AG_ELIMIT when nodes plus tokens exceed 2^31-1.
 * Time complexity: that of ag_mask_build() plus O(N + G + M), M the entries of the mask.
 */
ag_error_t ag_mask_build_vnode(ag_mask_t *mask, const ag_graph_t *graph, ag_mask_kind_t kind, int hops,
                               int self_loops);

typedef struct ag_model_t ag_model_t;

/**
 * \function ag_model_create
 * Builds a model with freshly initialised weights (seeded by cfg->seed).
 * \return AG_SUCCESS, AG_EINVAL (an inconsistent configuration; the message names the field),
 *         AG_ENOMEM.
 * Time complexity: O(P + L) for P the parameters (each weight is drawn) and L blocks; the values and
 * their gradients take 2P floats (activation buffers come with the first forward pass).
 */
ag_error_t ag_model_create(ag_model_t **model, const ag_model_config_t *cfg);

/** \function ag_model_destroy
 * Time complexity: O(L) for L blocks (a fixed number of buffers per operation). */
void ag_model_destroy(ag_model_t *model);

/** \function ag_model_config
 * The model's configuration (read-only).
 * Time complexity: O(1). */
const ag_model_config_t *ag_model_config(const ag_model_t *model);

/** \function ag_model_params
 * The list of every parameter tensor (names like "blocks.0.attn.Wq"), owned by the model.
 * Time complexity: O(1). */
const ag_param_list_t *ag_model_params(const ag_model_t *model);

/**
 * \function ag_model_forward
 * Runs the model. out is (N x n_out) for node tasks, (G x n_out) for graph tasks: class logits,
 * task logits, or standardised regression values. With training = 1 dropout is active and the
 * activations are kept for ag_model_backward().
 * \param out  Caller-allocated, rows x n_out.
 * \return AG_SUCCESS; AG_EINVAL (a NULL batch; a batch without X, or without E when it has edges
 *         and a block uses edge features; training without rng; a malformed graph; more than
 *         AG_BATCH_MAX_MASKS distinct masks); AG_ELIMIT (more than 2^31-1 nodes, graph tokens
 *         included; a size overflows); AG_ENOMEM.
 * Time complexity: the masks (ag_mask_build(), once per batch and kind), O(N F W) for the input
 * projection (W the width), and per block one ag_attention_forward() plus O(N W W_ff) for the
 * feed-forward sub-block (W_ff its ffn_hidden) and O(N W) for normalisation and residual; then
 * O(R N W) for R readouts and for the head O(N W n_out) (node tasks) or O(G x the head's weights)
 * (graph tasks). Memory: training keeps one output buffer per operation (O(L N W) floats for L
 * blocks, as many again for gradients) and the layers' caches; evaluation frees an output once
 * its last reader has run and lends the feed-forward blocks their hidden buffers and the
 * attention layers their head outputs from the same buffers, so it holds O(N (W + W_ff)) floats
 * of them whatever L, beside the attention layers' caches (which ag_model_attention_weights()
 * reads: O(L N H D) floats; O(N H D) for the block that runs when ag_model_keep_attention() is
 * 0); the batch keeps its masks.
 */
ag_error_t ag_model_forward(ag_model_t *model, ag_batch_t *batch, int training, ag_rng_t *rng,
                            float *out);

/**
 * \function ag_model_backward
 * Adds the gradients of every parameter for dout (same shape as out) into the parameter list's
 * grads; the caller zeroes them between steps (ag_param_list_zero_grad).
 * One backward per training forward: the layers spend what the forward cached.
 * \return AG_SUCCESS; AG_EINVAL (a NULL batch; the last forward that completed was not a
 *         training one on this batch, the batch wrapping the same graph, X and E; a backward
 *         already ran since that forward); AG_ELIMIT, AG_ENOMEM (backward temporaries).
 * Time complexity: that of the ag_model_forward() it follows, a small multiple of it.
 */
ag_error_t ag_model_backward(ag_model_t *model, ag_batch_t *batch, const float *dout);

/** \function ag_model_out_rows
 * Rows of the output for a batch: N for node tasks, G for graph tasks.
 * Time complexity: O(1). */
int64_t ag_model_out_rows(const ag_model_t *model, const ag_batch_t *batch);

/** \function ag_model_attention_weights
 * After a forward pass: the attention weights of block `layer`, (M x H) for that block's mask
 * (see ag_attention_weights), and the mask itself. With alpha NULL only the mask is returned
 * (its n_entries sizes alpha). With a virtual node the mask is that of ag_mask_build_vnode():
 * node i of graph g is row i + g and the graph's token the row after its last node; for a batch
 * of one graph, rows 0..N-1 are its vertices and row N is the token (entries with edge -1).
 * \return AG_SUCCESS; AG_EINVAL (layer out of range, no forward pass on this batch, a last pass
 *         that kept no attention caches: ag_model_keep_attention()); AG_ELIMIT,
 *         AG_ENOMEM (building the mask); with alpha, as ag_attention_weights().
 * Time complexity: O(1) without alpha (the forward pass built the mask); with alpha, O(M H D) for
 * the block's M mask entries, O(M Fe H D) more with edge keys, O(M Fe H) with edge biases. */
ag_error_t ag_model_attention_weights(const ag_model_t *model, ag_batch_t *batch, int layer,
                                      const ag_mask_t **mask, float *alpha);

/** \function ag_model_keep_attention
 * Whether evaluation passes (ag_model_forward() with training 0, and the prediction and
 * evaluation functions of train.h that run them on the caller's batch) keep each attention
 * layer's caches, so that ag_model_attention_weights() can read them afterwards: keep 1, the
 * default. With keep 0 the layers take their q, k, v and softmax statistics from one workspace
 * reused block after block (O(N H D) floats for the largest block instead of one such cache per
 * block) and ag_model_attention_weights() after such a pass returns AG_EINVAL; the outputs are
 * bit for bit the same. Training passes keep the caches for the backward either way.
 * \return The previous setting (0 for a NULL model, which is ignored).
 * Time complexity: O(1). */
int ag_model_keep_attention(ag_model_t *model, int keep);

/** \function ag_model_set_target_scaling
 * Regression: stores the targets' mean and standard deviation (n_out each); predictions are
 * out * std + mean. Kept in the model file. std values must be positive.
 * \return AG_SUCCESS; AG_EVALUE (a std not positive and finite, a mean not finite: names the
 *         output; nothing is stored).
 * Time complexity: O(n_out). */
ag_error_t ag_model_set_target_scaling(ag_model_t *model, const float *mean, const float *std);

/** \function ag_model_target_scaling
 * The stored mean and standard deviation (n_out each; 0 and 1 unless set).
 * Time complexity: O(1). */
void ag_model_target_scaling(const ag_model_t *model, const float **mean, const float **std);

/** \function ag_model_attention_heads
 * Heads of block `layer`.
 * Time complexity: O(1). */
int64_t ag_model_attention_heads(const ag_model_t *model, int layer);

#ifdef __cplusplus
}
#endif
#endif
