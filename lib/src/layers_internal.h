/*
 * layers_internal.h: helpers shared by the layer sources (linear, layernorm, activation, dropout,
 * feedforward); not installed.
 */
#ifndef ATTNGRAPH_LAYERS_INTERNAL_H
#define ATTNGRAPH_LAYERS_INTERNAL_H

#include "attngraph/attention.h"
#include "attngraph/layers.h"
#include "blas.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* Makes *buf hold at least rows x cols floats, given that it holds old_rows x cols now. Contents
 * are not preserved (caches are rewritten by the forward pass that grows them). On failure *buf
 * is unchanged and AG_ENOMEM / AG_ELIMIT is recorded with `what`. */
ag_error_t ag_i_cache_grow(float **buf, int64_t old_rows, int64_t rows, int64_t cols, const char *what);

/* out[c] += sum over r of A[r * cols + c] (A is rows x cols), summed per column over rows in
 * increasing order in double precision, parallel over columns: the same bits for any number of
 * threads. */
void ag_i_colsum_add(const float *A, int64_t rows, int64_t cols, float *out);

/* Y (N x O) = X (N x F) W + b without touching the layer's cache. */
void ag_i_linear_apply(const ag_linear_t *layer, const float *X, float *Y, int64_t N);

/* dW += X^T dY, db += colsum(dY), dX += dY W^T (dX may be NULL) with an explicit input X. */
void ag_i_linear_grad(ag_linear_t *layer, const float *X, const float *dY, float *dX, int64_t N);

/* Sparse input (Cora's bag of words, 98.7% zeros): Y (N x O) = S W + b with S (N x F) in CSR.
 * Returns AG_EMISMATCH if S does not have F columns. */
ag_error_t ag_i_linear_apply_csr(const ag_linear_t *layer, const ag_i_csr_t *S, float *Y);

/* dW += S^T dY and db += colsum(dY), with ST = S^T (ag_i_csr_transpose, built once per dataset).
 * No dX: raw input features need no gradient. Returns AG_EMISMATCH if ST is not F x N. */
ag_error_t ag_i_linear_grad_csr(ag_linear_t *layer, const ag_i_csr_t *ST, const float *dY, int64_t N);

/* Checks the common arguments of a forward call. */
/* ag_attention_forward with a place for X's sparse form that outlives the call (a batch's). Out
 * of training, when X is mostly zeros, the projections use *xs, built there on first use (or when
 * its shape is not X's), instead of a CSR built per call: X must not change while *xs lives.
 * o_ws, out of training: the (N x H*D) head outputs go there, not into a buffer the layer keeps
 * (unless they go into Y: concatenated heads without W^O); a backward is then refused. xs and
 * o_ws NULL, or training: exactly ag_attention_forward. */
ag_error_t ag_i_attention_forward_xs(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                     ag_i_csr_t **xs, const float *E, float *Y, int training, ag_rng_t *rng,
                                     float *o_ws);

/* An inference pass after which nothing reads the layer's cache (no attention weights, no
 * backward): q, k, v and the softmax statistics go into ws, a workspace of
 * ag_i_attention_lean_floats(layer, N) floats the caller may hand to the next layer once this
 * one has run, so that a model's blocks share one where each kept its own (N x 3H*D + 2N x H
 * floats per DOT block). o_ws as in ag_i_attention_forward_xs, and needed unless the heads are
 * concatenated without W^O. The outputs are bit for bit those of ag_i_attention_forward_xs; the
 * layer's own cache buffers (a training pass's) stay as they are, and afterwards
 * ag_attention_weights and a backward are refused as after no pass. */
ag_error_t ag_i_attention_forward_lean(ag_attention_t *layer, const ag_mask_t *mask, const float *X,
                                       ag_i_csr_t **xs, const float *E, float *Y, float *o_ws, float *ws);

/* Floats of the workspace of ag_i_attention_forward_lean on N nodes; -1 if that overflows. */
int64_t ag_i_attention_lean_floats(const ag_attention_t *layer, int64_t N);

/* Floats of head outputs the layer keeps between passes (N x H*D for the N of its last forward, 0
 * when it keeps none): whether an inference pass there needs a workspace, and for tests of
 * evaluation's buffer reuse. */
int64_t ag_i_attention_head_floats(const ag_attention_t *layer);

ag_error_t ag_i_check_forward(const char *layer, const void *X, const void *Y, int64_t N);

/* ag_ffn_forward out of training with the hidden buffers h and a (N x Hd each) the caller's, for
 * a model whose blocks share them in evaluation; the layer's own stay as they are. */
ag_error_t ag_i_ffn_forward_ws(ag_ffn_t *layer, const float *X, float *Y, int64_t N, float *h, float *a);

#pragma GCC visibility pop
#endif
