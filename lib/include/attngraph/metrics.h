/*
 * attngraph/metrics.h: evaluation metrics, accumulated in double precision.
 *
 * Conventions, the same as scikit-learn's where both define a value:
 * - Rows whose true label is -1 (classes) or whose target is NaN (scores, regression) are skipped,
 *   so a metric over the test nodes is computed by passing -1 for every other node.
 * - A metric with nothing to measure (no labelled row; ROC-AUC with only one class present) is
 *   NaN, and the call still succeeds: it is a property of the data, not an error. Mean ROC-AUC over
 *   tasks averages the tasks where it is defined (as OGB's evaluator and MoleculeNet do).
 */
#ifndef ATTNGRAPH_METRICS_H
#define ATTNGRAPH_METRICS_H

#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \function ag_metric_accuracy
 * Fraction of labelled rows whose predicted class equals the true one.
 * \param truth  (N) true classes, -1 = unlabelled (skipped).
 * \param pred   (N) predicted classes (see ag_argmax_rows()).
 * \param result Output: accuracy in [0, 1], NaN if no row is labelled.
 * \return AG_SUCCESS, AG_EINVAL (negative N).
 * Time complexity: O(N).
 */
ag_error_t ag_metric_accuracy(const int32_t *truth, const int32_t *pred, int64_t n_rows, double *result);

/**
 * \function ag_metric_macro_f1
 * Macro-averaged F1 over classes. For class c with TP, FP, FN counted over the labelled rows,
 * F1_c = 2 TP / (2 TP + FP + FN), which is 0 when TP = 0. Classes absent from both the truth and
 * the predictions of the labelled rows (TP + FP + FN = 0) are left out of the average, exactly as
 * scikit-learn's f1_score(y_true, y_pred, average="macro") does (it averages over the labels
 * present in either, and its zero_division default gives 0 for a class never predicted).
 * \param truth     (N) true classes in 0 .. C-1, or -1 (skipped).
 * \param pred      (N) predicted classes in 0 .. C-1.
 * \param n_classes C.
 * \param result    Output: macro-F1 in [0, 1], NaN if no row is labelled.
 * \return AG_SUCCESS, AG_EINVAL (bad sizes), AG_EVALUE (a class outside 0 .. C-1; names the row).
 * Time complexity: O(N + C).
 */
ag_error_t ag_metric_macro_f1(const int32_t *truth, const int32_t *pred, int64_t n_rows, int64_t n_classes,
                              double *result);

/**
 * \function ag_metric_roc_auc
 * Exact area under the ROC curve of one binary task: the probability that a random positive
 * scores above a random negative, ties counting one half. Computed from average ranks (the
 * Mann-Whitney U statistic), AUC = (R+ - P (P + 1) / 2) / (P Q) with R+ the sum of the positives'
 * ranks, P positives and Q negatives; equal to scikit-learn's roc_auc_score including ties.
 * \param scores  (N) scores or probabilities (any monotone transform gives the same AUC).
 * \param targets (N) 0 or 1, NaN = missing (skipped).
 * \param result  Output: AUC in [0, 1]; NaN when P = 0 or Q = 0 (undefined with one class).
 * \return AG_SUCCESS, AG_EINVAL (negative N), AG_EVALUE (a NaN score for a present target, a
 *         target other than 0, 1 or NaN), AG_ENOMEM.
 * Time complexity: O(N log N).
 */
ag_error_t ag_metric_roc_auc(const float *scores, const float *targets, int64_t n_rows, double *result);

/**
 * \function ag_metric_roc_auc_tasks
 * ROC-AUC of each of T tasks (columns) with missing labels, and their mean over the tasks where
 * it is defined.
 * \param scores   (N x T) row-major.
 * \param targets  (N x T) 0, 1 or NaN.
 * \param per_task (T) output, NaN for tasks with a single class present; may be NULL.
 * \param mean     Output: mean over the defined tasks, NaN if none is defined.
 * \param n_defined Output, may be NULL: how many tasks were defined.
 * \return As ag_metric_roc_auc() (the message names the task).
 * Time complexity: O(T N log N).
 */
ag_error_t ag_metric_roc_auc_tasks(const float *scores, const float *targets, int64_t n_rows, int64_t n_tasks,
                                   double *per_task, double *mean, int64_t *n_defined);

/**
 * \function ag_metric_rmse
 * Root mean squared error sqrt(mean (pred - y)^2) over the targets that are not NaN.
 * \param pred    (n) predictions (pass N x T entries as n = N T).
 * \param targets (n) targets, NaN = missing.
 * \param result  Output: RMSE, NaN if no target is present.
 * \return AG_SUCCESS, AG_EINVAL (negative n).
 * Time complexity: O(n).
 */
ag_error_t ag_metric_rmse(const float *pred, const float *targets, int64_t n, double *result);

/**
 * \function ag_metric_mae
 * Mean absolute error mean |pred - y| over the targets that are not NaN.
 * \return As ag_metric_rmse().
 * Time complexity: O(n).
 */
ag_error_t ag_metric_mae(const float *pred, const float *targets, int64_t n, double *result);

#ifdef __cplusplus
}
#endif
#endif
