/*
 * attngraph/readout.h: graph readouts, from node rows to one row per graph.
 *
 * A batch of G graphs keeps the rows of graph g's nodes at graph_ptr[g] .. graph_ptr[g+1]-1 of an
 * (N x F) matrix, as ag_graph_t does (pass graph->graph_ptr and graph->n_graphs). A readout turns
 * them into a (G x F) matrix:
 *     mean       Y_g = (1/n_g) sum_n X_n
 *     sum        Y_g = sum_n X_n
 *     max        Y_g[f] = max_n X_n[f]; the gradient goes to the first row holding the maximum
 *     attention  s_n = X_n . w + b, a = softmax of s over the nodes of g, Y_g = sum_n a_n X_n
 *                (PyTorch Geometric's GlobalAttention / AttentionalAggregation with a linear gate)
 *     vnode      Y_g = X_last, the last row of graph g's range: a model with a virtual node
 *                (graph token, model.h) keeps each graph's token there, so this is the token's state
 * A graph with no node gives a row of zeros (and no gradient), never NaN.
 * The gate bias b cannot change a softmax over one graph's scores, so its gradient is zero up to
 * rounding; it is kept so that weights map one to one onto PyG's Linear(F, 1) gate.
 *
 * Example (graph classification head):
 *     ag_readout_t ro;
 *     ag_readout_init(&ro, AG_READOUT_ATTENTION, F, seed);
 *     ag_readout_params(&ro, &params, "readout");           // gate.w (F), gate.b (1)
 *     ag_readout_forward(&ro, batch.graph_ptr, batch.n_graphs, H, Hg);      // H (N x F) -> Hg (G x F)
 *     ...  loss on Hg ...
 *     ag_readout_backward(&ro, batch.graph_ptr, batch.n_graphs, H, dHg, dH); // dH += ...
 *
 * Every kernel runs in parallel over graphs with a fixed summation order per graph, so results are
 * bit-identical for any number of threads.
 */
#ifndef ATTNGRAPH_READOUT_H
#define ATTNGRAPH_READOUT_H

#include "attngraph/common.h"
#include "attngraph/param.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The kinds of readout. */
typedef enum ag_readout_kind_t {
    AG_READOUT_MEAN = 0,
    AG_READOUT_SUM,
    AG_READOUT_MAX,
    AG_READOUT_ATTENTION,
    AG_READOUT_VNODE,      /* the last row of each graph's range: the graph token (model.h) */
    AG_READOUT_COUNT
} ag_readout_kind_t;

/** A readout: its kind, the gate parameters of attention pooling, and its forward cache. */
typedef struct ag_readout_t {
    ag_readout_kind_t kind;
    int64_t dim;             /* F: width of the node rows (and of the output rows) */
    float *params, *grads;   /* one allocation each for the gate (attention only, else NULL) */
    float *w_gate, *dw_gate; /* (F) gate weights */
    float *b_gate, *db_gate; /* (1) gate bias */
    void *cache;             /* what backward needs from the last forward; opaque */
} ag_readout_t;

/**
 * \function ag_readout_init
 * Sets up a readout of F-wide rows. For attention pooling the gate weights are drawn uniformly
 * from [-sqrt(6/(F+1)), sqrt(6/(F+1))] (Glorot for an F x 1 matrix) with ag_rng_uniform(seed, 0, f);
 * the gate bias starts at zero.
 * \param ro    Output, uninitialised; free with ag_readout_destroy().
 * \param kind  One of ag_readout_kind_t.
 * \param dim   F, at least 1.
 * \param seed  Seed of the gate's initialisation (ignored by the other kinds).
 * \return AG_SUCCESS, AG_EINVAL (unknown kind, dim < 1), AG_ENOMEM.
 * Time complexity: O(F).
 */
ag_error_t ag_readout_init(ag_readout_t *ro, ag_readout_kind_t kind, int64_t dim, uint64_t seed);

/** \function ag_readout_destroy
 * Frees the gate and the cache; safe on a zero-initialised or already destroyed readout.
 * Time complexity: O(1). */
void ag_readout_destroy(ag_readout_t *ro);

/** \function ag_readout_kind_name
 * "mean", "sum", "max", "attention" or "vnode" ("unknown" for other values).
 * Time complexity: O(1). */
const char *ag_readout_kind_name(ag_readout_kind_t kind);

/** \function ag_readout_kind_from_name
 * Parses a readout name as written by ag_readout_kind_name().
 * \return AG_SUCCESS, AG_EINVAL for an unknown name (the message lists the valid ones).
 * Time complexity: O(1). */
ag_error_t ag_readout_kind_from_name(const char *name, ag_readout_kind_t *kind);

/**
 * \function ag_readout_kinds_from_list
 * Parses one readout name or several distinct ones joined by commas ("vnode,sum"), in order.
 * \param list   The text.
 * \param kinds  (AG_READOUT_COUNT) output: the kinds in the order written.
 * \param n      Output: how many, 1 to AG_READOUT_COUNT.
 * \return AG_SUCCESS, AG_EINVAL (NULL or empty list, an empty item, an unknown or repeated name; the
 *         message names it and lists the valid ones).
 * Time complexity: O(length of list).
 */
ag_error_t ag_readout_kinds_from_list(const char *list, ag_readout_kind_t *kinds, int *n);

/**
 * \function ag_readout_params
 * Appends the readout's parameters to a list: for attention pooling "prefix.gate.w" (F, decayed)
 * and "prefix.gate.b" (1, not decayed); nothing for the other kinds.
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (name too long).
 * Time complexity: O(1).
 */
ag_error_t ag_readout_params(ag_readout_t *ro, ag_param_list_t *list, const char *prefix);

/**
 * \function ag_readout_forward
 * Computes Y from X and keeps what ag_readout_backward() needs (argmax rows for max, the gate's
 * softmax weights for attention).
 * \param ro        The readout.
 * \param graph_ptr (G+1) node ranges: graph_ptr[0] = 0, non-decreasing, graph_ptr[G] = N.
 * \param n_graphs  G, at least 0.
 * \param X         (N x F) node rows.
 * \param Y         (G x F) output, overwritten.
 * \return AG_SUCCESS, AG_EINVAL (graph_ptr not starting at 0 or decreasing, negative G), AG_ENOMEM.
 * Time complexity: O((N + G) F). The cache, kept for backward, is (G x F) row indices for max and
 * 2N floats for attention.
 */
ag_error_t ag_readout_forward(ag_readout_t *ro, const int64_t *graph_ptr, int64_t n_graphs,
                              const float *X, float *Y);

/**
 * \function ag_readout_backward
 * Adds dL/dX into dX and, for attention pooling, dL/dw and dL/db into the gate's gradients.
 * Must follow a forward pass of the same readout on the same graph_ptr and X.
 * \param dY  (G x F) gradient of the loss with respect to Y.
 * \param dX  (N x F) accumulated into (+=).
 * \return AG_SUCCESS, AG_EINVAL (no matching forward pass: different N or G).
 * Time complexity: O((N + G) F).
 */
ag_error_t ag_readout_backward(ag_readout_t *ro, const int64_t *graph_ptr, int64_t n_graphs,
                               const float *X, const float *dY, float *dX);

/**
 * \function ag_readout_gate_weights
 * The attention-pooling weights of the last forward pass, one per node (they sum to 1 over the
 * nodes of each non-empty graph): which nodes the graph's representation is made of.
 * \param alpha  (N) output, caller allocates.
 * \return AG_SUCCESS, AG_EINVAL (not attention pooling, or no forward pass with N nodes).
 * Time complexity: O(N).
 */
ag_error_t ag_readout_gate_weights(const ag_readout_t *ro, int64_t n_nodes, float *alpha);

#ifdef __cplusplus
}
#endif
#endif
