/*
 * batcher.h: a mini-batch of a training set's rows, as training (train.c) and evaluation
 * (evaluate.c) both run it: its examples as one block-diagonal batch, and its targets with the
 * task's loss on the model's outputs (internal).
 */
#ifndef ATTNGRAPH_BATCHER_H
#define ATTNGRAPH_BATCHER_H

#include "attngraph/train.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* A block-diagonal batch of examples with its concatenated features; buffers are reused from
 * batch to batch. Zero-initialise it; free it with ag_i_batcher_destroy(). */
typedef struct ag_i_batcher_t {
    ag_batch_buffer_t buf;
    ag_batch_member_t *members; /* (cap) the examples of the batch */
    int64_t cap;
} ag_i_batcher_t;

/* Builds the batch of examples idx[0..n) of set (F node, Fe edge features) into b; *batch wraps it
 * (and is empty on failure). */
ag_error_t ag_i_batcher_make(ag_i_batcher_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n, int64_t F,
                             int64_t Fe, ag_batch_t *batch);
void ag_i_batcher_destroy(ag_i_batcher_t *b);

/* A batch's targets as the loss reads them, reused from batch to batch (zero-initialised). The
 * evaluation reads them back after ag_i_batch_loss(). */
typedef struct ag_i_loss_buf_t {
    int32_t *labels; /* (cap) classification: the class of each row, -1 where no loss */
    float *targets;  /* (cap x C) multi-task / regression (standardised), NaN where no loss */
    int64_t cap;
} ag_i_loss_buf_t;

/* The model's loss on one batch of outputs out (rows x C, C the model's outputs): the mean loss
 * into *loss, its gradient into dout (rows x C), and into *counted the labels it counted (rows for
 * classification, present targets otherwise). row_target (rows) lists, for each output row, its
 * target row of set, or -1 when the row carries no loss (node tasks: unlisted nodes).
 * huber_delta > 0: regression trains on the Huber loss (ag_train_config_t); scores use 0 (MSE).
 * AG_EVALUE for a class outside the model's, and the loss functions' errors. */
ag_error_t ag_i_batch_loss(const ag_model_t *model, const ag_trainset_t *set, const int64_t *row_target, int64_t rows,
                           const float *out, float *dout, ag_i_loss_buf_t *lb, float huber_delta, double *loss,
                           int64_t *counted);
void ag_i_loss_buf_destroy(ag_i_loss_buf_t *lb);

/* Node tasks: the scores ag_model_evaluate() gives the n listed nodes idx, from all (N x C), the
 * model's evaluation-mode outputs for every node of the set's graph. Evaluating a node task runs
 * the whole graph however few nodes are listed, so the training loop runs that pass once per
 * epoch and scores both its training and its validation nodes from it (evaluate.c). */
ag_error_t ag_i_score_node_outputs(const ag_model_t *model, const ag_trainset_t *set, const float *all,
                                   const int64_t *idx, int64_t n, ag_scores_t *s);

#pragma GCC visibility pop
#endif
