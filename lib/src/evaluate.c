/*
 * evaluate.c: a model's or an ensemble's scores on the rows of a training set, and its predictions
 * (the training loop, which scores its epochs here: train.c). Prediction is not a file of its own:
 * both average an ensemble's members through mean_of_members(), so that what an evaluation scores
 * is exactly what prediction returns.
 */
#include <math.h>
#include <string.h>
#include "attngraph/loss.h"
#include "attngraph/metrics.h"
#include "attngraph/train.h"
#include "batcher.h"
#include "internal.h"

#define AG_EVAL_BATCH 256

static ag_error_t forward_rows_kept(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                    float *raw);

/* Runs the model in evaluation mode on the listed examples; writes raw outputs (n x n_out) for
 * the listed rows (graphs or nodes). Its batches die with the call, so nothing can ask their
 * attention weights: the passes keep no attention caches (ag_model_keep_attention), and the
 * caller's setting is restored. */
static ag_error_t forward_rows(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n, float *raw) {
    int keep = ag_model_keep_attention(model, 0);
    ag_error_t rc = forward_rows_kept(model, set, idx, n, raw);
    ag_model_keep_attention(model, keep);
    return rc;
}

static ag_error_t forward_rows_kept(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                    float *raw) {
    const ag_model_config_t *c = ag_model_config(model);
    int64_t C = c->n_out;
    ag_i_batcher_t b = {0};
    ag_error_t rc = AG_SUCCESS;
    if (!ag_task_is_graph_level(c->task)) {
        const ag_example_t *ex = &set->examples[0];
        int64_t N = ex->graph.n_nodes, count;
        float *all = NULL; /* (N x C) every node's outputs */
        if (ag_i_mul_overflow(N, C, &count))
            return AG_ERROR(AG_ELIMIT, "node outputs of %lld nodes x %lld outputs overflow", (long long)N, (long long)C);
        rc = ag_i_alloc_array((void **)&all, count, sizeof(float), "node outputs");
        if (rc != AG_SUCCESS) return rc;
        ag_batch_t batch;
        ag_batch_init(&batch, &ex->graph, ex->X.data, c->edge_dim > 0 ? ex->E.data : NULL);
        rc = ag_model_forward(model, &batch, 0, NULL, all);
        ag_batch_destroy(&batch);
        if (rc == AG_SUCCESS)
            for (int64_t i = 0; i < n; i++) memcpy(raw + i * C, all + idx[i] * C, (size_t)C * sizeof(float));
        ag_i_free(all);
        return rc;
    }
    for (int64_t s = 0; s < n && rc == AG_SUCCESS; s += AG_EVAL_BATCH) {
        int64_t k = n - s < AG_EVAL_BATCH ? n - s : AG_EVAL_BATCH;
        ag_batch_t batch;
        rc = ag_i_batcher_make(&b, set, idx + s, k, c->in_dim, c->edge_dim, &batch);
        if (rc == AG_SUCCESS) rc = ag_model_forward(model, &batch, 0, NULL, raw + s * C);
        ag_batch_destroy(&batch);
    }
    ag_i_batcher_destroy(&b);
    return rc;
}

ag_error_t ag_i_check_member_scaling(const ag_model_t *first, const ag_model_t *model, int64_t index) {
    const float *mean0, *std0, *mean, *std;
    ag_model_target_scaling(first, &mean0, &std0);
    ag_model_target_scaling(model, &mean, &std);
    for (int64_t j = 0; j < ag_model_config(first)->n_out; j++)
        if (mean[j] != mean0[j] || std[j] != std0[j])
            return AG_ERROR(AG_EMISMATCH,
                            "ensemble member %lld scales output %lld by mean %g, std %g; member 0 by %g, %g "
                            "(members must be trained on the same rows)",
                            (long long)index, (long long)j, (double)mean[j], (double)std[j], (double)mean0[j],
                            (double)std0[j]);
    return AG_SUCCESS;
}

/* Checks that every member of an ensemble can stand in for the first one: the same task, inputs
 * and outputs, and the same target scaling (so that their raw outputs live in one space and can be
 * averaged). */
static ag_error_t check_members(ag_model_t *const *models, int64_t k) {
    if (!models || k < 1) return AG_ERROR(AG_EINVAL, "an ensemble needs at least one model (got %lld)", (long long)k);
    for (int64_t m = 0; m < k; m++)
        if (!models[m]) return AG_ERROR(AG_EINVAL, "ensemble member %lld is NULL", (long long)m);
    const ag_model_config_t *c0 = ag_model_config(models[0]);
    for (int64_t m = 1; m < k; m++) {
        const ag_model_config_t *c = ag_model_config(models[m]);
        if (c->task != c0->task || c->n_out != c0->n_out || c->in_dim != c0->in_dim || c->edge_dim != c0->edge_dim)
            return AG_ERROR(AG_EMISMATCH,
                            "ensemble member %lld is a %s model of %lld inputs (+%lld edge) and %lld outputs; member 0 "
                            "is a %s model of %lld inputs (+%lld edge) and %lld outputs",
                            (long long)m, ag_task_name(c->task), (long long)c->in_dim, (long long)c->edge_dim,
                            (long long)c->n_out, ag_task_name(c0->task), (long long)c0->in_dim,
                            (long long)c0->edge_dim, (long long)c0->n_out);
        AG_CHECK(ag_i_check_member_scaling(models[0], models[m], m));
    }
    return AG_SUCCESS;
}

/* One member's raw outputs into out: the pass that mean_of_members() averages. */
typedef ag_error_t member_forward_fn(ag_model_t *model, void *ctx, float *out);

/* The mean of k members' raw outputs (count floats): member 0 writes out, the others add into it
 * in member order (a fixed order, so the result does not depend on threads), then one scaling by
 * 1/k; one member gives exactly its own outputs. Evaluation and prediction both average here, so
 * what evaluation scores is exactly what prediction gives. */
static ag_error_t mean_of_members(ag_model_t *const *models, int64_t k, int64_t count, member_forward_fn *forward,
                                  void *ctx, float *out) {
    AG_CHECK(forward(models[0], ctx, out));
    if (k == 1) return AG_SUCCESS;
    float *tmp = NULL; /* (count) one member's outputs */
    AG_CHECK(ag_i_alloc_array((void **)&tmp, count, sizeof(float), "ensemble member outputs"));
    ag_error_t rc = AG_SUCCESS;
    for (int64_t m = 1; m < k && rc == AG_SUCCESS; m++) {
        rc = forward(models[m], ctx, tmp);
        if (rc == AG_SUCCESS)
            for (int64_t i = 0; i < count; i++) out[i] += tmp[i];
    }
    const float inv = 1.0f / (float)k;
    if (rc == AG_SUCCESS)
        for (int64_t i = 0; i < count; i++) out[i] *= inv;
    ag_i_free(tmp);
    return rc;
}

/* The listed examples of a training set (forward_rows), for mean_of_members(). */
typedef struct rows_ctx_t {
    const ag_trainset_t *set;
    const int64_t *idx;
    int64_t n;
} rows_ctx_t;

static ag_error_t rows_forward(ag_model_t *model, void *ctx, float *out) {
    const rows_ctx_t *c = ctx;
    return forward_rows(model, c->set, c->idx, c->n, out);
}

/* One batch (ag_batch_t *ctx) in evaluation mode, for mean_of_members(). */
static ag_error_t batch_forward(ag_model_t *model, void *ctx, float *out) {
    return ag_model_forward(model, ctx, 0, NULL, out);
}

/* The same pass keeping no attention caches (ag_model_keep_attention 0, then the member's own
 * setting again). */
static ag_error_t batch_forward_lean(ag_model_t *model, void *ctx, float *out) {
    int keep = ag_model_keep_attention(model, 0);
    ag_error_t rc = ag_model_forward(model, ctx, 0, NULL, out);
    ag_model_keep_attention(model, keep);
    return rc;
}

ag_error_t ag_model_evaluate(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                             ag_scores_t *s) {
    return ag_ensemble_evaluate(&model, 1, set, idx, n, s);
}

static void scores_clear(ag_scores_t *s) {
    s->loss = s->accuracy = s->macro_f1 = s->roc_auc = s->rmse = s->mae = NAN;
    s->n = 0;
}

int64_t ag_model_n_tasks(const ag_model_t *model) {
    const ag_model_config_t *c = ag_model_config(model);
    return ag_task_is_classification(c->task) ? 1 : c->n_out;
}

/* One task's (column j's) figures of a multi-task or regression evaluation: the model's own loss
 * on that column alone, and its ROC-AUC or its errors in target units. raw, scaled, pred and truth
 * are (n x C) as ag_ensemble_evaluate() filled them; col_* are (n) scratch. */
static ag_error_t task_scores(const ag_model_config_t *c, const float *raw, const float *scaled, const float *pred,
                              const float *truth, int64_t n, int64_t j, float *col_a, float *col_b, float *col_d,
                              ag_scores_t *t) {
    const int64_t C = c->n_out;
    scores_clear(t);
    for (int64_t i = 0; i < n; i++) {
        col_a[i] = raw[i * C + j];
        col_b[i] = scaled[i * C + j];
    }
    ag_error_t rc = c->task == AG_TASK_GRAPH_MULTITASK
                            ? ag_loss_bce_logits(col_a, col_b, n, 1, NULL, 1.0f, col_d, &t->loss, &t->n)
                            : ag_loss_mse(col_a, col_b, n, 1, 1.0f, col_d, &t->loss, &t->n);
    if (rc != AG_SUCCESS || t->n == 0) {
        if (t->n == 0) t->loss = NAN;
        return rc;
    }
    for (int64_t i = 0; i < n; i++) {
        col_a[i] = pred[i * C + j];
        col_b[i] = truth[i * C + j];
    }
    if (c->task == AG_TASK_GRAPH_MULTITASK) return ag_metric_roc_auc(col_a, col_b, n, &t->roc_auc);
    AG_CHECK(ag_metric_rmse(col_a, col_b, n, &t->rmse));
    return ag_metric_mae(col_a, col_b, n, &t->mae);
}

/* n rows of the model's outputs as a float count, refused when it overflows. */
static ag_error_t outputs_size(const ag_model_t *model, int64_t n, int64_t *nC) {
    const int64_t C = ag_model_config(model)->n_out;
    if (ag_i_mul_overflow(n, C, nC))
        return AG_ERROR(AG_ELIMIT, "evaluation outputs of %lld rows x %lld outputs overflow", (long long)n, (long long)C);
    return AG_SUCCESS;
}

/* The scores (and, when per_task is not NULL, each task's) of raw, the model's evaluation-mode
 * outputs for the n listed rows idx of set (n >= 1). */
static ag_error_t score_outputs(const ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                const float *raw, ag_scores_t *s, ag_scores_t *per_task) {
    const ag_model_config_t *c = ag_model_config(model);
    const int64_t C = c->n_out, nC = n * C; /* outputs_size() vouched for it */
    float *dtmp = NULL;                /* (n x C) the loss's gradient (not used) */
    float *pred = NULL, *truth = NULL; /* (n x C) predictions (probabilities or target units); their targets */
    int32_t *ptrue = NULL, *pcls = NULL; /* (n) classification: the true and the predicted classes */
    ag_i_loss_buf_t lb = {0};
    ag_error_t rc = ag_i_alloc_array((void **)&dtmp, nC, sizeof(float), "evaluation gradients");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&pred, nC, sizeof(float), "predictions");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&truth, nC, sizeof(float), "truth");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&ptrue, n, sizeof(int32_t), "labels");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&pcls, n, sizeof(int32_t), "labels");
    if (rc == AG_SUCCESS) rc = ag_i_batch_loss(model, set, idx, n, raw, dtmp, &lb, 0.0f, &s->loss, &s->n);
    if (rc == AG_SUCCESS && s->n == 0) s->loss = NAN; /* no target among the rows: undefined, as the metrics */
    if (rc == AG_SUCCESS) {
        if (ag_task_is_classification(c->task)) {
            ag_argmax_rows(raw, n, C, pcls);
            for (int64_t i = 0; i < n; i++) ptrue[i] = lb.labels[i];
            rc = ag_metric_accuracy(ptrue, pcls, n, &s->accuracy);
            if (rc == AG_SUCCESS) rc = ag_metric_macro_f1(ptrue, pcls, n, C, &s->macro_f1);
            if (rc == AG_SUCCESS && C == 2) {
                /* binary ROC-AUC on the probability of class 1 */
                ag_softmax_rows(raw, n, C, pred);
                for (int64_t i = 0; i < n; i++) {
                    truth[i] = ptrue[i] < 0 ? NAN : (float)ptrue[i];
                    pred[i] = pred[i * 2 + 1];
                }
                rc = ag_metric_roc_auc(pred, truth, n, &s->roc_auc);
                if (rc != AG_SUCCESS) { ag_error_clear(); rc = AG_SUCCESS; s->roc_auc = NAN; }
            }
            if (rc == AG_SUCCESS && per_task) per_task[0] = *s;
        } else {
            if (c->task == AG_TASK_GRAPH_MULTITASK) {
                int64_t defined;
                ag_sigmoid_apply(raw, n * C, pred);
                memcpy(truth, lb.targets, sizeof(float) * (size_t)nC);
                rc = ag_metric_roc_auc_tasks(pred, truth, n, C, NULL, &s->roc_auc, &defined);
            } else {
                const float *mean, *std;
                ag_model_target_scaling(model, &mean, &std);
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < C; j++) {
                        pred[i * C + j] = raw[i * C + j] * std[j] + mean[j];
                        truth[i * C + j] = set->targets[idx[i] * C + j];
                    }
                rc = ag_metric_rmse(pred, truth, n * C, &s->rmse);
                if (rc == AG_SUCCESS) rc = ag_metric_mae(pred, truth, n * C, &s->mae);
            }
            /* lb.targets still holds the loss's targets (standardised for regression) */
            float *cols = NULL; /* (3 x n) one column's outputs, targets and gradients */
            if (rc == AG_SUCCESS && per_task)
                rc = ag_i_alloc_array((void **)&cols, 3 * n, sizeof(float), "per-task columns");
            for (int64_t j = 0; rc == AG_SUCCESS && per_task && j < C; j++)
                rc = task_scores(c, raw, lb.targets, pred, truth, n, j, cols, cols + n, cols + 2 * n, &per_task[j]);
            ag_i_free(cols);
        }
    }
    ag_i_free(dtmp);
    ag_i_free(pred);
    ag_i_free(truth);
    ag_i_free(ptrue);
    ag_i_free(pcls);
    ag_i_loss_buf_destroy(&lb);
    return rc;
}

ag_error_t ag_ensemble_evaluate(ag_model_t *const *models, int64_t k, const ag_trainset_t *set, const int64_t *idx,
                                int64_t n, ag_scores_t *s) {
    return ag_ensemble_evaluate_tasks(models, k, set, idx, n, s, NULL);
}

ag_error_t ag_ensemble_evaluate_tasks(ag_model_t *const *models, int64_t k, const ag_trainset_t *set,
                                      const int64_t *idx, int64_t n, ag_scores_t *s, ag_scores_t *per_task) {
    if (!s) return AG_ERROR(AG_EINVAL, "evaluation: NULL scores");
    scores_clear(s);
    AG_CHECK(check_members(models, k));
    if (!set || (n > 0 && !idx)) return AG_ERROR(AG_EINVAL, "evaluation: NULL set or indices for %lld rows", (long long)n);
    const int64_t T = ag_model_n_tasks(models[0]);
    if (per_task)
        for (int64_t j = 0; j < T; j++) scores_clear(&per_task[j]);
    ag_model_t *model = models[0];
    AG_CHECK(ag_i_trainset_check(model, set));
    AG_CHECK(ag_i_check_indices(idx, n, set->n_rows, "evaluation"));
    if (n == 0) return AG_SUCCESS;
    int64_t nC;
    AG_CHECK(outputs_size(model, n, &nC));
    float *raw = NULL; /* (n x C) the members' mean outputs */
    ag_error_t rc = ag_i_alloc_array((void **)&raw, nC, sizeof(float), "evaluation outputs");
    rows_ctx_t rows = {set, idx, n};
    if (rc == AG_SUCCESS) rc = mean_of_members(models, k, nC, rows_forward, &rows, raw);
    if (rc == AG_SUCCESS) rc = score_outputs(model, set, idx, n, raw, s, per_task);
    ag_i_free(raw);
    return rc;
}

ag_error_t ag_i_score_node_outputs(const ag_model_t *model, const ag_trainset_t *set, const float *all,
                                   const int64_t *idx, int64_t n, ag_scores_t *s) {
    scores_clear(s);
    if (n == 0) return AG_SUCCESS;
    const int64_t C = ag_model_config(model)->n_out;
    int64_t nC;
    AG_CHECK(outputs_size(model, n, &nC));
    float *raw = NULL; /* (n x C) the listed nodes' rows of all */
    AG_CHECK(ag_i_alloc_array((void **)&raw, nC, sizeof(float), "evaluation outputs"));
    for (int64_t i = 0; i < n; i++) memcpy(raw + i * C, all + idx[i] * C, (size_t)C * sizeof(float));
    ag_error_t rc = score_outputs(model, set, idx, n, raw, s, NULL);
    ag_i_free(raw);
    return rc;
}

ag_error_t ag_scores_from_probs(const float *probs, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                ag_scores_t *s) {
    if (!s) return AG_ERROR(AG_EINVAL, "scores of probabilities: NULL scores");
    scores_clear(s);
    if (!probs || !set || (n > 0 && !idx))
        return AG_ERROR(AG_EINVAL, "scores of probabilities: NULL probabilities, set or indices");
    if (!ag_task_is_classification(set->task) || set->n_classes < 1 || set->n_cols != 1)
        return AG_ERROR(AG_EINVAL, "scores of probabilities: the set is not a classification set");
    AG_CHECK(ag_i_check_indices(idx, n, set->n_rows, "evaluation"));
    const int64_t C = set->n_classes;
    int32_t *truth = NULL, *pred = NULL; /* (n) labelled rows only */
    float *p1 = NULL, *y1 = NULL;        /* (n) class 1's probability and the truth, for two classes */
    ag_error_t rc = ag_i_alloc_array((void **)&truth, n > 0 ? n : 1, sizeof(int32_t), "labels");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&pred, n > 0 ? n : 1, sizeof(int32_t), "predictions");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&p1, n > 0 ? n : 1, sizeof(float), "probabilities");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&y1, n > 0 ? n : 1, sizeof(float), "truth");
    int64_t m = 0;
    double nll = 0.0;
    for (int64_t i = 0; rc == AG_SUCCESS && i < n; i++) {
        float y = set->targets[idx[i]];
        if (isnan(y)) continue;
        if (!(y >= 0.0f && y < (float)C && y == floorf(y))) {
            rc = AG_ERROR(AG_EVALUE, "row %lld: label %g is not a class id in 0..%lld", (long long)idx[i], (double)y,
                          (long long)C - 1);
            break;
        }
        const float *row = probs + idx[i] * C;
        int64_t best = 0;
        for (int64_t c = 1; c < C; c++)
            if (row[c] > row[best]) best = c;
        truth[m] = (int32_t)y;
        pred[m] = (int32_t)best;
        float pt = row[truth[m]];
        nll -= log(pt > 1e-7f ? (double)pt : 1e-7);
        if (C == 2) {
            p1[m] = row[1];
            y1[m] = y;
        }
        m++;
    }
    if (rc == AG_SUCCESS && m > 0) {
        s->n = m;
        s->loss = nll / (double)m;
        rc = ag_metric_accuracy(truth, pred, m, &s->accuracy);
        if (rc == AG_SUCCESS) rc = ag_metric_macro_f1(truth, pred, m, C, &s->macro_f1);
        if (rc == AG_SUCCESS && C == 2 && ag_metric_roc_auc(p1, y1, m, &s->roc_auc) != AG_SUCCESS) {
            /* one class among the rows: no ROC-AUC, as ag_model_evaluate() */
            ag_error_clear();
            s->roc_auc = NAN;
        }
    }
    ag_i_free(truth);
    ag_i_free(pred);
    ag_i_free(p1);
    ag_i_free(y1);
    return rc;
}

/* ---- prediction */

/* Turns raw outputs into probabilities or target units, in place. */
static void finish_predictions(const ag_model_t *model, float *out, int64_t rows) {
    const ag_model_config_t *c = ag_model_config(model);
    int64_t C = c->n_out;
    if (ag_task_is_classification(c->task)) {
        ag_softmax_rows(out, rows, C, out);
    } else if (c->task == AG_TASK_GRAPH_MULTITASK) {
        ag_sigmoid_apply(out, rows * C, out);
    } else {
        const float *mean, *std;
        ag_model_target_scaling(model, &mean, &std);
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < C; j++) out[i * C + j] = out[i * C + j] * std[j] + mean[j];
    }
}

ag_error_t ag_model_predict(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n, float *out) {
    AG_CHECK(ag_i_trainset_check_inputs(model, set));
    if (n > 0 && (!idx || !out)) return AG_ERROR(AG_EINVAL, "prediction: NULL indices or output for %lld rows", (long long)n);
    AG_CHECK(ag_i_check_indices(idx, n,
                                ag_task_is_graph_level(ag_model_config(model)->task) ? set->n_examples
                                                                                     : set->examples[0].graph.n_nodes,
                                "prediction"));
    AG_CHECK(forward_rows(model, set, idx, n, out));
    finish_predictions(model, out, n);
    return AG_SUCCESS;
}

ag_error_t ag_model_predict_batch(ag_model_t *model, ag_batch_t *batch, float *out) {
    return ag_ensemble_predict_batch(&model, 1, batch, out);
}

static ag_error_t predict_batch(ag_model_t *const *models, int64_t k, ag_batch_t *batch, float *out,
                                member_forward_fn *forward);

ag_error_t ag_ensemble_predict_batch(ag_model_t *const *models, int64_t k, ag_batch_t *batch, float *out) {
    return predict_batch(models, k, batch, out, batch_forward);
}

ag_error_t ag_i_ensemble_predict_lean(ag_model_t *const *models, int64_t k, ag_batch_t *batch, float *out) {
    return predict_batch(models, k, batch, out, batch_forward_lean);
}

static ag_error_t predict_batch(ag_model_t *const *models, int64_t k, ag_batch_t *batch, float *out,
                                member_forward_fn *forward) {
    AG_CHECK(check_members(models, k));
    if (!out) return AG_ERROR(AG_EINVAL, "prediction: NULL output");
    int small = ag_i_small_begin(batch && batch->graph ? batch->graph->n_nodes : 0);
    /* no batch: the forward pass reports it */
    const int64_t rows = batch && batch->graph ? ag_model_out_rows(models[0], batch) : 0;
    ag_error_t rc = mean_of_members(models, k, rows * ag_model_config(models[0])->n_out, forward, batch, out);
    if (rc == AG_SUCCESS) finish_predictions(models[0], out, rows);
    ag_i_small_end(small);
    return rc;
}
