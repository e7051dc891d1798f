/*
 * metrics.c: accuracy, macro-F1, exact ROC-AUC (single and multi-task), RMSE and MAE.
 */
#include <math.h>
#include <stdlib.h>
#include "attngraph/metrics.h"
#include "internal.h"

ag_error_t ag_metric_accuracy(const int32_t *truth, const int32_t *pred, int64_t n_rows, double *result) {
    if (!result || (n_rows > 0 && (!truth || !pred))) return AG_ERROR(AG_EINVAL, "accuracy: NULL arrays or result");
    if (n_rows < 0) return AG_ERROR(AG_EINVAL, "accuracy: negative number of rows (%lld)", (long long)n_rows);
    int64_t total = 0, right = 0;
    for (int64_t i = 0; i < n_rows; i++) {
        if (truth[i] == -1) continue;
        total++;
        right += truth[i] == pred[i];
    }
    *result = total ? (double)right / (double)total : NAN;
    return AG_SUCCESS;
}

ag_error_t ag_metric_macro_f1(const int32_t *truth, const int32_t *pred, int64_t n_rows, int64_t n_classes,
                              double *result) {
    if (!result || (n_rows > 0 && (!truth || !pred))) return AG_ERROR(AG_EINVAL, "macro-F1: NULL arrays or result");
    if (n_rows < 0 || n_classes < 1)
        return AG_ERROR(AG_EINVAL, "macro-F1: invalid sizes (%lld rows, %lld classes)", (long long)n_rows,
                        (long long)n_classes);
    const int64_t C = n_classes;
    for (int64_t i = 0; i < n_rows; i++) {
        if (truth[i] == -1) continue;
        if (truth[i] < -1 || truth[i] >= C)
            return AG_ERROR(AG_EVALUE, "macro-F1: row %lld has true class %d, outside 0 .. %lld", (long long)i,
                            (int)truth[i], (long long)(C - 1));
        if (pred[i] < 0 || pred[i] >= C)
            return AG_ERROR(AG_EVALUE, "macro-F1: row %lld has predicted class %d, outside 0 .. %lld", (long long)i,
                            (int)pred[i], (long long)(C - 1));
    }
    int64_t *counts; /* (C x 3) TP, FP, FN */
    if (C > INT64_MAX / 3) return AG_ERROR(AG_ELIMIT, "macro-F1: %lld classes overflow the counts", (long long)C);
    AG_CHECK(ag_i_alloc_array((void **)&counts, C * 3, sizeof(int64_t), "macro-F1 counts"));
    int64_t labelled = 0;
    for (int64_t i = 0; i < n_rows; i++) {
        if (truth[i] == -1) continue;
        labelled++;
        if (truth[i] == pred[i]) {
            counts[truth[i] * 3 + 0]++;
        } else {
            counts[pred[i] * 3 + 1]++;
            counts[truth[i] * 3 + 2]++;
        }
    }
    double sum = 0.0;
    int64_t present = 0;
    for (int64_t c = 0; c < C; c++) {
        int64_t tp = counts[c * 3], fp = counts[c * 3 + 1], fn = counts[c * 3 + 2];
        if (tp + fp + fn == 0) continue;
        present++;
        sum += 2.0 * (double)tp / (double)(2 * tp + fp + fn);
    }
    ag_i_free(counts);
    *result = labelled ? sum / (double)present : NAN;
    return AG_SUCCESS;
}

typedef struct scored_t {
    float score;
    int positive;
} scored_t;

static int cmp_scored(const void *a, const void *b) {
    float x = ((const scored_t *)a)->score, y = ((const scored_t *)b)->score;
    return (x > y) - (x < y);
}

/* AUC of column `task` of an (N x stride) pair of matrices; `buf` has room for N entries. */
static ag_error_t roc_auc_column(const float *scores, const float *targets, int64_t n_rows, int64_t stride,
                                 int64_t task, int multi, scored_t *buf, double *result) {
    int64_t n = 0, pos = 0;
    for (int64_t i = 0; i < n_rows; i++) {
        float y = targets[i * stride + task], s = scores[i * stride + task];
        if (isnan(y)) continue;
        if (y != 0.0f && y != 1.0f) {
            if (multi)
                return AG_ERROR(AG_EVALUE, "ROC-AUC: row %lld, task %lld has target %g (must be 0, 1 or NaN)",
                                (long long)i, (long long)task, (double)y);
            return AG_ERROR(AG_EVALUE, "ROC-AUC: row %lld has target %g (must be 0, 1 or NaN)", (long long)i, (double)y);
        }
        if (isnan(s)) {
            if (multi)
                return AG_ERROR(AG_EVALUE, "ROC-AUC: row %lld, task %lld has a NaN score", (long long)i, (long long)task);
            return AG_ERROR(AG_EVALUE, "ROC-AUC: row %lld has a NaN score", (long long)i);
        }
        buf[n].score = s;
        buf[n].positive = y == 1.0f;
        pos += buf[n].positive;
        n++;
    }
    int64_t neg = n - pos;
    if (pos == 0 || neg == 0) {
        *result = NAN;
        return AG_SUCCESS;
    }
    qsort(buf, (size_t)n, sizeof *buf, cmp_scored);
    /* rank sum of the positives, each run of equal scores sharing its average rank */
    double rank_pos = 0.0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        int64_t run_pos = 0;
        while (j < n && buf[j].score == buf[i].score) run_pos += buf[j++].positive;
        double avg_rank = 0.5 * (double)(i + 1 + j); /* ranks i+1 .. j */
        rank_pos += avg_rank * (double)run_pos;
        i = j;
    }
    *result = (rank_pos - 0.5 * (double)pos * (double)(pos + 1)) / ((double)pos * (double)neg);
    return AG_SUCCESS;
}

ag_error_t ag_metric_roc_auc(const float *scores, const float *targets, int64_t n_rows, double *result) {
    if (!result || (n_rows > 0 && (!scores || !targets))) return AG_ERROR(AG_EINVAL, "ROC-AUC: NULL arrays or result");
    if (n_rows < 0) return AG_ERROR(AG_EINVAL, "ROC-AUC: negative number of rows (%lld)", (long long)n_rows);
    scored_t *buf; /* (N) */
    AG_CHECK(ag_i_alloc_array((void **)&buf, n_rows, sizeof *buf, "ROC-AUC buffer"));
    ag_error_t rc = roc_auc_column(scores, targets, n_rows, 1, 0, 0, buf, result);
    ag_i_free(buf);
    return rc;
}

ag_error_t ag_metric_roc_auc_tasks(const float *scores, const float *targets, int64_t n_rows, int64_t n_tasks,
                                   double *per_task, double *mean, int64_t *n_defined) {
    if (!mean || (n_rows > 0 && (!scores || !targets))) return AG_ERROR(AG_EINVAL, "ROC-AUC: NULL arrays or mean");
    if (n_rows < 0 || n_tasks < 1)
        return AG_ERROR(AG_EINVAL, "ROC-AUC: invalid sizes (%lld rows, %lld tasks)", (long long)n_rows,
                        (long long)n_tasks);
    scored_t *buf; /* (N) */
    AG_CHECK(ag_i_alloc_array((void **)&buf, n_rows, sizeof *buf, "ROC-AUC buffer"));
    double sum = 0.0;
    int64_t defined = 0;
    for (int64_t t = 0; t < n_tasks; t++) {
        double auc = NAN;
        ag_error_t rc = roc_auc_column(scores, targets, n_rows, n_tasks, t, 1, buf, &auc);
        if (rc != AG_SUCCESS) {
            ag_i_free(buf);
            return rc;
        }
        if (per_task) per_task[t] = auc;
        if (!isnan(auc)) {
            sum += auc;
            defined++;
        }
    }
    ag_i_free(buf);
    *mean = defined ? sum / (double)defined : NAN;
    if (n_defined) *n_defined = defined;
    return AG_SUCCESS;
}

static ag_error_t regression_error(const float *pred, const float *targets, int64_t n, int squared,
                                   double *result) {
    if (!result || (n > 0 && (!pred || !targets)))
        return AG_ERROR(AG_EINVAL, "%s: NULL arrays or result", squared ? "RMSE" : "MAE");
    if (n < 0) return AG_ERROR(AG_EINVAL, "%s: negative number of values (%lld)", squared ? "RMSE" : "MAE", (long long)n);
    double acc = 0.0;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(targets[i])) continue;
        double d = (double)pred[i] - targets[i];
        acc += squared ? d * d : fabs(d);
        count++;
    }
    if (!count) *result = NAN;
    else *result = squared ? sqrt(acc / (double)count) : acc / (double)count;
    return AG_SUCCESS;
}

ag_error_t ag_metric_rmse(const float *pred, const float *targets, int64_t n, double *result) {
    return regression_error(pred, targets, n, 1, result);
}

ag_error_t ag_metric_mae(const float *pred, const float *targets, int64_t n, double *result) {
    return regression_error(pred, targets, n, 0, result);
}
