/*
 * attngraph/loss.h: training losses with their gradients, and the functions that turn logits into
 * predictions.
 *
 * Each loss computes the mean loss (in double precision) over the rows or labels that count and,
 * when asked, writes the gradient of scale * (mean loss) with respect to the logits: training code
 * passes scale = 1 for one batch, or 1/k to average k accumulated batches, and feeds the result
 * straight into the backward pass of the layer below. Entries that do not count (unlabelled rows,
 * missing labels) get a zero gradient. With nothing to count the loss is 0 and the gradient zero.
 *
 * Sums run over fixed chunks of rows and then over the chunks in order, so the loss is
 * bit-identical for any number of threads.
 *
 * Example (node classification on the training nodes only):
 *     for (i = 0; i < N; i++) y[i] = is_train[i] ? label[i] : -1;
 *     ag_loss_cross_entropy(logits, y, N, C, NULL, 1.0f, dlogits, &loss, &counted);
 */
#ifndef ATTNGRAPH_LOSS_H
#define ATTNGRAPH_LOSS_H

#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \function ag_loss_cross_entropy
 * Softmax cross-entropy over C classes, per row:
 *     l_i = w[y_i] (log sum_c exp(z_ic) - z_{i,y_i}),   loss = sum_i l_i / sum_i w[y_i]
 * over the rows whose label y_i is not -1 (PyTorch's CrossEntropyLoss with weight= and
 * ignore_index=-1, mean reduction). Without class weights w is 1 and the loss is the plain mean.
 * \param logits       (N x C) row-major.
 * \param labels       (N) class of each row in 0 .. C-1, or -1 to skip the row.
 * \param n_rows       N, at least 0.
 * \param n_classes    C, at least 1.
 * \param class_weight (C) non-negative finite weights, or NULL for all ones.
 * \param scale        Multiplies the gradient (not the returned loss).
 * \param dlogits      (N x C) output, overwritten with scale * d loss / d logits; may be NULL.
 * \param loss         Output: the mean loss.
 * \param n_counted    Output, may be NULL: the number of labelled rows.
 * \return AG_SUCCESS, AG_EINVAL (bad sizes, negative or non-finite weight),
 *         AG_EVALUE (a label outside -1 .. C-1; the message names the row).
 * Time complexity: O(N C).
 */
ag_error_t ag_loss_cross_entropy(const float *logits, const int32_t *labels, int64_t n_rows,
                                 int64_t n_classes, const float *class_weight, float scale,
                                 float *dlogits, double *loss, int64_t *n_counted);

/**
 * \function ag_loss_bce_logits
 * Binary cross-entropy with logits for T tasks with missing labels (multi-task molecule
 * classification). For each present label y_it (0 or 1; NaN means missing and is skipped):
 *     l_it = p_t y_it softplus(-x_it) + (1 - y_it) softplus(x_it),   softplus(x) = log(1 + e^x)
 * computed as max(x, 0) + log1p(exp(-|x|)), so no logit overflows; the loss is the mean of l_it
 * over the present labels (PyTorch's BCEWithLogitsLoss(pos_weight=p) restricted to them).
 * The gradient is p_t y (sigmoid(x) - 1) + (1 - y) sigmoid(x), divided by the count.
 * \param logits     (N x T).
 * \param targets    (N x T) 0, 1 or NaN (missing); values in between act as soft labels.
 * \param pos_weight (T) weight of the positive term per task, or NULL for all ones.
 * \param dlogits    (N x T) output, overwritten; may be NULL.
 * \param n_counted  Output, may be NULL: the number of present labels.
 * \return AG_SUCCESS, AG_EINVAL (bad sizes, negative or non-finite pos_weight),
 *         AG_EVALUE (a target outside [0, 1] that is not NaN; the message names row and task).
 * Time complexity: O(N T).
 */
ag_error_t ag_loss_bce_logits(const float *logits, const float *targets, int64_t n_rows, int64_t n_tasks,
                              const float *pos_weight, float scale, float *dlogits, double *loss,
                              int64_t *n_counted);

/**
 * \function ag_loss_mse
 * Mean squared error for regression: the mean of (pred_it - y_it)^2 over the targets that are not
 * NaN; the gradient is 2 (pred - y) / count.
 * \param pred     (N x T) predictions.
 * \param targets  (N x T) targets, NaN = missing.
 * \param dpred    (N x T) output, overwritten with scale * d loss / d pred; may be NULL.
 * \return AG_SUCCESS, AG_EINVAL (bad sizes), AG_EVALUE (an infinite target).
 * Time complexity: O(N T).
 */
ag_error_t ag_loss_mse(const float *pred, const float *targets, int64_t n_rows, int64_t n_tasks, float scale,
                       float *dpred, double *loss, int64_t *n_counted);

/**
 * \function ag_loss_huber
 * Huber loss for regression (PyTorch's HuberLoss): per target d = pred - y, d^2 / 2 where
 * |d| <= delta and delta (|d| - delta / 2) beyond, averaged over the targets that are not NaN;
 * the gradient is d, or delta sign(d) beyond delta, over the count. Squared near the target, linear
 * far from it: a few badly predicted training targets pull the weights less than under the mean
 * squared error. Arguments as ag_loss_mse().
 * \return AG_SUCCESS, AG_EINVAL (bad sizes, delta not finite and > 0), AG_EVALUE (an infinite target).
 * Time complexity: O(N T).
 */
ag_error_t ag_loss_huber(const float *pred, const float *targets, int64_t n_rows, int64_t n_tasks, double delta,
                         float scale, float *dpred, double *loss, int64_t *n_counted);

/**
 * \function ag_softmax_rows
 * Class probabilities from logits: a numerically stable softmax of each row.
 * \param logits (N x C).
 * \param probs  (N x C) output; may be the same buffer as logits.
 * Time complexity: O(N C).
 */
void ag_softmax_rows(const float *logits, int64_t n_rows, int64_t n_classes, float *probs);

/**
 * \function ag_sigmoid_apply
 * Probabilities from binary logits, 1 / (1 + e^-x), without overflow for large |x|.
 * \param x   (n) logits.
 * \param out (n) output; may be the same buffer as x.
 * Time complexity: O(n).
 */
void ag_sigmoid_apply(const float *x, int64_t n, float *out);

/**
 * \function ag_argmax_rows
 * The predicted class of each row: the index of its largest score, the first one on ties.
 * \param scores (N x C) logits or probabilities.
 * \param pred   (N) output.
 * Time complexity: O(N C).
 */
void ag_argmax_rows(const float *scores, int64_t n_rows, int64_t n_classes, int32_t *pred);

#ifdef __cplusplus
}
#endif
#endif
