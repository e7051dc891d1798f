/*
 * batcher.c: a mini-batch of a training set's rows: its examples as one block-diagonal batch, and
 * its targets with the task's loss on the model's outputs. Its own file because training
 * (train.c) and evaluation (evaluate.c) both run batches through it: the loss an evaluation
 * reports is the training loss (less Huber's), computed by the same code.
 */
#include <math.h>
#include <string.h>
#include "attngraph/loss.h"
#include "batcher.h"
#include "internal.h"

void ag_i_batcher_destroy(ag_i_batcher_t *b) {
    ag_batch_buffer_destroy(&b->buf);
    ag_i_free(b->members);
    memset(b, 0, sizeof *b);
}

ag_error_t ag_i_batcher_make(ag_i_batcher_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n, int64_t F,
                             int64_t Fe, ag_batch_t *batch) {
    if (n > b->cap) {
        ag_batch_init(batch, NULL, NULL, NULL);
        ag_i_free(b->members);
        b->members = NULL;
        b->cap = 0;
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, n, sizeof(*b->members), "batch"));
        b->members = p;
        b->cap = n;
    }
    for (int64_t i = 0; i < n; i++) {
        const ag_example_t *ex = &set->examples[idx[i]];
        b->members[i] = (ag_batch_member_t){&ex->graph, &ex->X, &ex->E};
    }
    return ag_batch_buffer_fill(&b->buf, b->members, n, F, Fe, batch);
}

ag_error_t ag_i_batch_loss(const ag_model_t *model, const ag_trainset_t *set, const int64_t *row_target, int64_t rows,
                           const float *out, float *dout, ag_i_loss_buf_t *lb, float huber_delta, double *loss,
                           int64_t *counted) {
    const ag_model_config_t *c = ag_model_config(model);
    int64_t C = c->n_out, count;
    if (ag_i_mul_overflow(rows, C, &count))
        return AG_ERROR(AG_ELIMIT, "loss targets of %lld rows x %lld outputs overflow", (long long)rows, (long long)C);
    if (rows > lb->cap) {
        ag_i_free(lb->labels);
        ag_i_free(lb->targets);
        lb->labels = NULL;
        lb->targets = NULL;
        lb->cap = 0;
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, rows, sizeof(int32_t), "labels"));
        lb->labels = p;
        AG_CHECK(ag_i_alloc_array(&p, count, sizeof(float), "targets"));
        lb->targets = p;
        lb->cap = rows;
    }
    if (ag_task_is_classification(c->task)) {
        for (int64_t r = 0; r < rows; r++) {
            float t = row_target[r] >= 0 ? set->targets[row_target[r]] : NAN;
            if (isnan(t)) lb->labels[r] = -1;
            else if (t < 0 || t >= (float)C || t != floorf(t))
                return AG_ERROR(AG_EVALUE, "target row %lld holds class %g, outside 0..%lld", (long long)row_target[r],
                                (double)t, (long long)C - 1);
            else lb->labels[r] = (int32_t)t;
        }
        return ag_loss_cross_entropy(out, lb->labels, rows, C, NULL, 1.0f, dout, loss, counted);
    }
    const float *mean, *std;
    ag_model_target_scaling(model, &mean, &std);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < C; j++) {
            float t = row_target[r] >= 0 ? set->targets[row_target[r] * C + j] : NAN;
            lb->targets[r * C + j] = ag_task_is_regression(c->task) ? (t - mean[j]) / std[j] : t;
        }
    if (c->task == AG_TASK_GRAPH_MULTITASK)
        return ag_loss_bce_logits(out, lb->targets, rows, C, NULL, 1.0f, dout, loss, counted);
    if (huber_delta > 0.0f) return ag_loss_huber(out, lb->targets, rows, C, huber_delta, 1.0f, dout, loss, counted);
    return ag_loss_mse(out, lb->targets, rows, C, 1.0f, dout, loss, counted);
}

void ag_i_loss_buf_destroy(ag_i_loss_buf_t *lb) {
    ag_i_free(lb->labels);
    ag_i_free(lb->targets);
}
