/*
 * attngraph/train.h: training, evaluation and prediction over prepared graphs.
 *
 * A training set is a list of examples (one graph each, with its node features X and edge
 * features E) and a target table: one row per graph for graph tasks, one row per node of the
 * single graph for node tasks. Targets are floats: a class id (classification), 0/1 per task
 * (multi-task), or a value (regression); NaN marks a missing label.
 *
 *     ag_trainset_t set;            // filled by the caller (or the CLI's dataset loader)
 *     ag_train_config_t tc;
 *     ag_train_config_default(&tc, AG_TASK_GRAPH_MULTITASK);
 *     ag_train_result_t res;
 *     ag_model_train(model, &set, train_idx, n_train, val_idx, n_val, &tc, &res);   // best weights kept
 *     ag_scores_t test;
 *     ag_model_evaluate(model, &set, test_idx, n_test, &test);                      // test.roc_auc ...
 *
 * Graph tasks train on shuffled mini-batches of graphs (one block-diagonal batch each); node
 * tasks train on the whole graph with the loss on the listed nodes only (semi-supervised,
 * transductive). The random stream is seeded: the same seed gives the same model, whatever the
 * number of threads.
 *
 * Interrupted runs continue bit for bit: set cfg.checkpoint (called every cfg.checkpoint_every
 * epochs with the model and the ag_train_state_t) to save both with ag_train_state_save(); later,
 * ag_train_state_load() into a model of the same architecture and ag_model_train_resume() with the same
 * configuration end with exactly the weights of the uninterrupted run (docs/checkpoints.md).
 * ag_model_estimate_memory() tells before any allocation whether a run fits in memory.
 */
#ifndef ATTNGRAPH_TRAIN_H
#define ATTNGRAPH_TRAIN_H

#include <signal.h>
#include "attngraph/matrix.h"
#include "attngraph/model.h"
#include "attngraph/optim.h"
#include "attngraph/safetensors.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One graph ready for the model. */
typedef struct ag_example_t {
    ag_graph_t graph; /* N nodes, E edges */
    ag_fmat_t X;      /* (N x F) */
    ag_fmat_t E;      /* (E x Fe); 0 x Fe or empty when the model has no edge features */
} ag_example_t;

/** Examples and targets. The set owns the examples and targets it holds. */
typedef struct ag_trainset_t {
    ag_task_t task;
    int64_t n_examples;    /* G for graph tasks, 1 for node tasks */
    ag_example_t *examples;
    int64_t n_rows;        /* rows of targets: G (graph tasks) or N (node tasks) */
    int64_t n_cols;        /* 1 for classification (a class id), T for multi-task and regression */
    int64_t n_classes;     /* C for classification, else 0 */
    float *targets;        /* (n_rows x n_cols), NaN = missing */
} ag_trainset_t;

/** \function ag_trainset_init
 * An empty set for a task; allocate examples and targets with ag_trainset_resize.
 * Time complexity: O(1). */
void ag_trainset_init(ag_trainset_t *set, ag_task_t task);

/** \function ag_trainset_resize
 * Allocates n_examples zeroed examples and an (n_rows x n_cols) target table filled with NaN,
 * after freeing what the set held (task and n_classes are kept).
 * \return AG_SUCCESS; AG_EINVAL (a NULL set, a negative size); AG_ELIMIT (n_rows x n_cols
 *         overflows); AG_ENOMEM. The set is empty on failure (unchanged for a NULL set or a
 *         negative size).
 * Time complexity: O(n_examples + n_rows x n_cols), after ag_trainset_destroy()'s. */
ag_error_t ag_trainset_resize(ag_trainset_t *set, int64_t n_examples, int64_t n_rows, int64_t n_cols);

/** \function ag_trainset_destroy
 * Frees the examples and the targets; the task stays.
 * Time complexity: O(n_examples). */
void ag_trainset_destroy(ag_trainset_t *set);

/** \function ag_trainset_count_labelled
 * How many of the rows idx (n of them, in range) have at least one target (not NaN): the rows a
 * loss or a score can use.
 * Time complexity: O(n x T) for T targets per row. */
int64_t ag_trainset_count_labelled(const ag_trainset_t *set, const int64_t *idx, int64_t n);

/** What training optimises for early stopping and reports. */
typedef enum ag_metric_t {
    AG_METRIC_AUTO = 0, /* accuracy (classification), mean ROC-AUC (multi-task), RMSE (regression) */
    AG_METRIC_LOSS,
    AG_METRIC_ACCURACY,
    AG_METRIC_MACRO_F1,
    AG_METRIC_ROC_AUC,
    AG_METRIC_RMSE,
    AG_METRIC_MAE
} ag_metric_t;

/** \function ag_metric_name / ag_metric_from_name
 * "auto", "loss", "accuracy", "macro_f1", "roc_auc", "rmse", "mae".
 * \return ag_metric_from_name: AG_SUCCESS; AG_EINVAL (not one of these names; case counts).
 * Time complexity: O(1). */
const char *ag_metric_name(ag_metric_t metric);
ag_error_t ag_metric_from_name(const char *name, ag_metric_t *metric);

/** \function ag_metric_for_task
 * The metric AG_METRIC_AUTO stands for on a task: accuracy (classification), mean ROC-AUC
 * (multi-task), RMSE (regression); any other metric is returned as it is.
 * Time complexity: O(1). */
ag_metric_t ag_metric_for_task(ag_metric_t metric, ag_task_t task);

/** Fewer labelled validation examples than this make accuracy a poor early-stopping metric. */
#define AG_SMALL_VALIDATION 100

/** \function ag_metric_for_validation
 * The early-stopping metric for a validation part of n_val_labelled labelled rows (vertices or
 * graphs): AG_METRIC_LOSS when metric is AG_METRIC_AUTO, the task is node or graph classification
 * or multi-task and 0 < n_val_labelled < AG_SMALL_VALIDATION; otherwise metric as it is. Accuracy over n rows
 * moves in steps of 1/n: on a few dozen it reaches its maximum within a few epochs and every
 * later epoch only ties it, so the barely trained model of that first epoch would be kept (a
 * 150-vertex graph with 9 labelled validation vertices: accuracy 1.0 at epoch 8, test accuracy
 * 0.77 on every vertex, against 0.99 stopping on the loss; 500 graphs "has a triangle", 50 in
 * validation: 1.0 at epoch 2, test 0.96 and 0.94 for seeds 1 and 3, against 1.00 and 0.98). The
 * loss keeps improving while the model does. Multi-task's mean ROC-AUC saturates the same way on
 * a few dozen graphs (3 tasks, about 35 validation graphs each: 1.0 at epoch 10, which was kept,
 * accuracy over all labelled graphs 0.977, 0.977 and 1.0, against 1.0, 0.997 and 1.0 on the loss).
 * Regression and larger validation parts keep the task's metric (every published node figure has
 * 500 or more validation vertices; Tox21's validation part has 783 graphs).
 * Time complexity: O(1). */
ag_metric_t ag_metric_for_validation(ag_metric_t metric, ag_task_t task, int64_t n_val_labelled);

/** \function ag_metric_check
 * Whether a metric can score a task: loss always; accuracy and macro_f1 for node and graph
 * classification; roc_auc for binary classification (n_classes 2) and multi-task; rmse and mae for
 * regression. AG_METRIC_AUTO always can.
 * \return AG_SUCCESS; AG_EINVAL naming the metric, the task and the metrics it allows (a metric the
 *         task cannot score would be NaN on every epoch and keep the untrained weights).
 * Time complexity: O(1). */
ag_error_t ag_metric_check(ag_metric_t metric, ag_task_t task, int64_t n_classes);

/** \function ag_metric_scorable
 * Whether the targets of the listed rows let a metric score them, whatever the model predicts:
 * ROC-AUC needs both classes among the labelled rows (of one task at least, for multi-task), every
 * other metric one labelled row. AG_METRIC_AUTO is taken as ag_metric_for_task(metric, set->task).
 * Time complexity: O(n x targets per row). */
int ag_metric_scorable(ag_metric_t metric, const ag_trainset_t *set, const int64_t *idx, int64_t n);

/** \function ag_metric_higher_is_better
 * 1 for accuracy, macro-F1 and ROC-AUC, else 0 (AG_METRIC_AUTO too: see ag_metric_for_task()).
 * Time complexity: O(1). */
int ag_metric_higher_is_better(ag_metric_t metric);

/** One epoch's line of progress, passed to the progress callback. */
typedef struct ag_epoch_log_t {
    int64_t epoch;          /* 1-based */
    int64_t epochs;         /* the configured maximum */
    double loss;            /* mean training loss over the epoch's batches */
    double train_metric;    /* on the training examples (evaluation mode) */
    double val_metric;      /* on the validation examples, NaN without any */
    const char *metric;     /* its name */
    double seconds;         /* this epoch's wall time */
    double eta_seconds;     /* estimate for the remaining epochs */
    double lr;              /* learning rate at the epoch's last step */
    int improved;           /* the validation metric improved: these weights are kept */
} ag_epoch_log_t;

typedef void ag_progress_fn(const ag_epoch_log_t *log, void *user);

struct ag_train_state_t;

/** Called after every checkpoint_every-th epoch with the model (holding the epoch's weights) and
 * the complete training state; typically writes both with ag_train_state_save(). A non-zero
 * return stops training at once and is returned by ag_model_train() (the callback records the message);
 * the model then keeps that epoch's weights, not the best ones. To end the run and keep the best
 * weights, set the flag cfg->stop points to and return AG_SUCCESS. */
typedef ag_error_t ag_checkpoint_fn(const ag_model_t *model, const struct ag_train_state_t *state, void *user);

typedef struct ag_train_config_t {
    ag_optim_config_t optim;     /* Adam / AdamW / SGD, lr, weight decay */
    ag_lr_kind_t lr_schedule;    /* constant, step, cosine (over all steps) */
    int64_t warmup_epochs;
    int64_t epochs;              /* maximum */
    int64_t batch_size;          /* graphs per mini-batch (graph tasks) */
    int64_t patience;            /* stop after this many epochs without improvement (0: never) */
    float clip_norm;             /* global gradient-norm clipping (0: off) */
    ag_metric_t metric;          /* for early stopping */
    uint64_t seed;               /* shuffling and dropout */
    int eval_train;              /* 1: compute the training metric each epoch (costs a pass over
                                    the training examples; node tasks: the validation pass's
                                    outputs serve, so only one without a validation part) */
    ag_progress_fn *progress;    /* called after every epoch, may be NULL */
    void *progress_user;
    ag_checkpoint_fn *checkpoint; /* called after every checkpoint_every-th epoch, may be NULL */
    void *checkpoint_user;
    int64_t checkpoint_every;    /* epochs between checkpoints (<= 0: every epoch) */
    int64_t min_epochs;          /* epochs before this one are never kept as the best and never stop
                                    the run (the last epoch is always eligible); 0: no minimum */
    /* Columns flip_col0 .. flip_col0 + flip_cols - 1 of X have an arbitrary sign per graph
     * (Laplacian eigenvectors): each training step multiplies each of them by a random +-1 per
     * graph, so that the model cannot learn the solver's sign (Dwivedi et al. 2020). Evaluation
     * sees them as they are. The signs have a random stream of their own: shuffling and dropout
     * are those of the same run without flipping. 0 columns: off. */
    int64_t flip_col0, flip_cols;
    /* Regression: > 0 trains on the Huber loss with this threshold (in standard deviations of the
     * target, which is standardised) instead of the mean squared error; 0: MSE. Scores and the
     * reported evaluation loss stay the mean squared error. */
    float huber_delta;
    /* If not NULL, a flag the caller may set at any time, from a signal handler (SIGINT) or a
     * progress or checkpoint callback: training then ends when the epoch under way ends (after
     * its progress and checkpoint calls), the best weights so far are restored as early stopping
     * restores them (that epoch's when none was kept yet, min_epochs not reached), and
     * result->stopped is 1. A flag set before the call trains no epoch (best_epoch 0, the
     * initial weights). */
    const volatile sig_atomic_t *stop;
} ag_train_config_t;

/** \function ag_train_config_default
 * Adam, lr 1e-3, no decay, constant schedule, 200 epochs, batch 32, patience 30, no clipping,
 * auto metric, seed 1, training metric on.
 * Time complexity: O(1). */
void ag_train_config_default(ag_train_config_t *cfg, ag_task_t task);

typedef struct ag_train_result_t {
    int64_t epochs_run;
    int64_t best_epoch;     /* 1-based; the model holds this epoch's weights */
    double best_val_metric; /* NaN without validation examples (then the last epoch is kept) */
    double seconds;
    int stopped;            /* 1: cfg->stop ended the run (see ag_train_config_t) */
    ag_metric_t metric;     /* the metric early stopping watched: cfg->metric for the task, or
                               AG_METRIC_LOSS when the validation targets cannot score that one
                               (ag_metric_scorable: one class only for ROC-AUC) */
    /* A warning, not an error (as `attn-graph train` warns and trains, where one class is refused):
     * regression targets with one value on every training example that has one, graph or vertex.
     * There is nothing to learn: their scaling keeps deviation 1 and the model predicts about that
     * value. 0 and -1 for other tasks and targets that vary. */
    int64_t constant_targets;      /* how many target columns */
    int64_t first_constant_target; /* the first of them (0-based column), or -1 */
} ag_train_result_t;

/**
 * \function ag_model_train
 * Trains the model on the listed examples (graph tasks: indices of graphs; node tasks: indices of
 * nodes of the single graph), with early stopping on the validation list, and leaves the best
 * weights in the model. For regression the targets are standardised with the training rows' mean
 * and standard deviation, which are stored in the model (ag_model_set_target_scaling); a
 * constant target keeps deviation 1, and result->constant_targets says so (trained all the same).
 * \return AG_SUCCESS, AG_EINVAL (empty training list, an index out of range), AG_EMISMATCH (a set
 *         that does not fit the model: task, graph count of a node task, target rows or columns,
 *         feature shapes), AG_EVALUE (a class id outside 0..C-1; an infinite regression target;
 *         regression targets whose spread is below a millionth of their size, which float32
 *         cannot tell apart), AG_ENOMEM.
 * Time complexity: per epoch, a forward and a backward pass over the training examples (in
 * mini-batches) and a forward pass over the validation ones (and over the training ones again
 * when cfg->eval_train is set; node tasks: one forward pass over the graph scores both); at most
 * cfg->epochs epochs.
 */
ag_error_t ag_model_train(ag_model_t *model, const ag_trainset_t *set, const int64_t *train_idx, int64_t n_train,
                          const int64_t *val_idx, int64_t n_val, const ag_train_config_t *cfg,
                          ag_train_result_t *result);

/**
 * Everything a training run holds between two epochs besides the model's weights: with the
 * weights, enough to continue the run so that it ends with exactly the bits of an uninterrupted
 * one (the shuffle order evolves epoch by epoch and the random stream counts every use, so both
 * are kept, not re-derived).
 */
typedef struct ag_train_state_t {
    int64_t epoch;          /* epochs completed */
    int64_t step;           /* optimiser steps taken: the learning-rate schedule's position */
    ag_rng_t rng;           /* shuffling and dropout stream */
    ag_optim_t optim;       /* moments and step count */
    int64_t n_params;       /* P */
    float *best;            /* (P) the weights of the best epoch so far, in parameter-list order */
    double best_metric;     /* NaN before the first validated epoch */
    int64_t best_epoch;     /* 0 before the first kept epoch */
    int64_t since_best;     /* epochs without improvement (early stopping) */
    int64_t n_order;        /* n_train */
    int64_t *order;         /* (n_train) graph tasks: the training indices in their current shuffled order */
    double seconds;         /* wall time spent training so far */
    char config[512];       /* the training configuration the state belongs to (checked on resume) */
} ag_train_state_t;

/** \function ag_train_state_destroy
 * Frees a state; safe on a zero-filled one and twice.
 * Time complexity: O(1). */
void ag_train_state_destroy(ag_train_state_t *state);

/**
 * \function ag_train_state_save
 * Writes a checkpoint: the model's weights (tensors "model.<name>"), the optimiser moments
 * ("optim.m", "optim.v"), the best weights ("best"), and in the metadata the model configuration,
 * the training configuration, the epoch and step counters, the random stream, the best metric,
 * epoch and the epochs since, the shuffle order, and `extra` (keys of the caller's own, e.g. the
 * command line). Atomic, as every safetensors write (safetensors.h): a reader sees the previous
 * checkpoint or the new one, never a torn file.
 * \return AG_SUCCESS, AG_EFILE, AG_ENOMEM, AG_EINVAL (extra metadata not UTF-8).
 * Time complexity: O(P + n_train + T log T + K log K) for T parameter tensors and K extra metadata
 * keys (ag_safetensors_write() sorts the tensor names to find a repeat; the keys are sorted too).
 */
ag_error_t ag_train_state_save(const char *path, const ag_model_t *model, const ag_train_state_t *state,
                               const struct ag_metadata_t *extra);

/**
 * \function ag_train_state_load
 * Reads a checkpoint written by ag_train_state_save() into a model of the same architecture
 * (its weights are overwritten) and a state (uninitialised; free with ag_train_state_destroy()).
 * Everything is validated before the model is touched.
 * \param extra  If not NULL, an initialised list that receives the checkpoint's metadata.
 * \return AG_SUCCESS; AG_EFILE (cannot open); AG_EMODEL for a corrupted or truncated file (checksum),
 *         a file that is not a checkpoint, or a field out of range, the message naming the file and
 *         the defect; AG_EMISMATCH for a sound checkpoint of another architecture than the model's;
 *         AG_ENOMEM.
 * Time complexity: that of ag_safetensors_read(), then O(T log T + P + n_train + L) for T parameter
 * tensors (each found by name among the file's, sorted), P parameters and L blocks; O((K + count)
 * log (K + count)) more to copy K metadata keys into extra, of count keys.
 */
ag_error_t ag_train_state_load(const char *path, ag_model_t *model, ag_train_state_t *state,
                               struct ag_metadata_t *extra);

/**
 * \function ag_train_state_open
 * A checkpoint read without knowing its architecture (`attn-graph info RUN.ckpt`): the model is
 * built from the configuration the checkpoint stores, then filled as ag_train_state_load() fills
 * it, with the same validation.
 * \param file   Read by ag_safetensors_read() with AG_SAFETENSORS_STRICT; the caller keeps it (and
 *               its metadata); model and state keep no pointer into it.
 * \param model  Output: a new model (free with ag_model_destroy()); NULL on failure.
 * \param state  Output, uninitialised; free with ag_train_state_destroy(). Zeroed on failure.
 * \return AG_SUCCESS; AG_EMODEL (not a checkpoint, a configuration that is missing or invalid, any
 *         defect ag_train_state_load() reports), the message naming file->path; AG_EINVAL (no
 *         file); AG_ENOMEM.
 * Time complexity: O(T log T + P + n_train + L), as ag_train_state_load() after its read, the model's
 * creation included.
 */
ag_error_t ag_train_state_open(const ag_safetensors_t *file, ag_model_t **model, ag_train_state_t *state);

/**
 * \function ag_train_state_plan
 * What the run a state belongs to was set to do, read from the training configuration it stores
 * (the text `--resume` compares): its number of epochs, its early-stopping patience (0: none) and
 * its validation metric as configured (AG_METRIC_AUTO stays AUTO: see ag_metric_for_task()).
 * \return AG_SUCCESS; AG_EMODEL when the stored configuration lacks one of them or holds a value out
 *         of range; AG_EINVAL (a NULL argument). The outputs are set only on success.
 * Time complexity: O(length of the configuration text).
 */
ag_error_t ag_train_state_plan(const ag_train_state_t *state, int64_t *epochs, int64_t *patience, ag_metric_t *metric);

/**
 * \function ag_model_train_resume
 * ag_model_train() continued from a state (after ag_train_state_load() put the weights in the model):
 * epochs state->epoch + 1 .. cfg->epochs run exactly as they would have in the uninterrupted run,
 * and the progress callback sees epoch numbers that continue the interrupted run's. The state is
 * not modified. With state NULL, the same as ag_model_train().
 * \return As ag_model_train(); AG_EMODEL if the state belongs to another training configuration (other
 *         epochs, seed, optimiser, ...) or another training list (the message says which).
 * Time complexity: as ag_model_train() for the remaining epochs, plus O(P + n_train log n_train) to
 * check and copy the state (its shuffle order is compared with the training list, both sorted).
 */
ag_error_t ag_model_train_resume(ag_model_t *model, const ag_trainset_t *set, const int64_t *train_idx,
                                 int64_t n_train, const int64_t *val_idx, int64_t n_val,
                                 const ag_train_config_t *cfg, const ag_train_state_t *state,
                                 ag_train_result_t *result);

/**
 * \function ag_model_estimate_memory
 * An estimate of the bytes a forward pass (training = 0) or a training step (training = 1:
 * gradients, optimiser state and the best-weights copy included) of a model needs on a graph or
 * batch of N nodes, E edges and G graphs: inputs (N x F, E x Fe), graph CSR and attention masks,
 * the activations (in training every layer's, with their gradients and caches; in a forward pass
 * the few alive at once), the attention caches (full attention O(N x H x D), neighbour masks
 * O(M x H)), the largest backward temporaries, parameters. k-hop masks are estimated from the
 * mean degree. The forward pass is the one prediction and evaluation run, which keeps no
 * attention caches (ag_model_keep_attention() 0): one that keeps them adds O(L x N x H x D) for
 * L blocks.
 * \param bytes  Output.
 * \return AG_SUCCESS, AG_EINVAL (negative sizes), AG_ELIMIT (a size overflows 64 bits: the message
 *         names it, e.g. "nodes x features").
 * Time complexity: O(L) for L blocks.
 */
ag_error_t ag_model_estimate_memory(const ag_model_config_t *cfg, int64_t N, int64_t E, int64_t G, int training,
                                    int64_t *bytes);

/**
 * \function ag_memory_available
 * The memory a run can take now: MemAvailable of /proc/meminfo, in bytes; the default limit that
 * --max-memory and the graph readers compare estimates with.
 * \return Bytes, or -1 when it cannot be read (not Linux, no /proc).
 * Time complexity: one read of /proc/meminfo.
 */
int64_t ag_memory_available(void);

/** Every metric the task allows, on one list of examples (NaN where undefined). */
typedef struct ag_scores_t {
    double loss;
    double accuracy;
    double macro_f1;
    double roc_auc;   /* binary classification, or the mean over multi-task tasks */
    double rmse;      /* regression, in target units */
    double mae;
    int64_t n;        /* labelled targets counted: the labelled rows for one target per row; with
                         several (multi-task, T > 1 regression targets) the (row, target) pairs that
                         hold a value, so 4 graphs of 2 tasks each count 8 */
} ag_scores_t;

/** \function ag_model_evaluate
 * Scores the model on the listed examples (evaluation mode: no dropout).
 * \return AG_SUCCESS; AG_EINVAL (a NULL model; an index out of range); AG_EMISMATCH (a set that
 *         does not fit the model: task, graph count of a node task, target rows or columns, an
 *         example's feature shapes; directed and undirected graphs together); AG_EVALUE (a class
 *         target that is not an integer in 0..C-1, an infinite regression target, a multi-task
 *         target outside [0, 1], a NaN output of a multi-task model); the errors of
 *         ag_model_forward(); AG_ELIMIT, AG_ENOMEM.
 * Time complexity: as ag_ensemble_evaluate() with one model. */
ag_error_t ag_model_evaluate(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                             ag_scores_t *scores);

/** \function ag_scores_get
 * The value of one metric from a score set.
 * Time complexity: O(1). */
double ag_scores_get(const ag_scores_t *scores, ag_metric_t metric, ag_task_t task);

/**
 * \function ag_ensemble_evaluate
 * Scores an ensemble of k models (a deep ensemble: the same architecture trained from k seeds on the
 * same rows) as one model whose raw outputs are the mean of the members' raw outputs: for
 * regression the mean of the members' values, for classification and multi-task the normalised
 * geometric mean of their probabilities (the softmax or sigmoid of the mean logit). The mean is
 * summed in member order, so results do not depend on the number of threads, and one member gives
 * exactly ag_model_evaluate()'s figures.
 * \param models  (k) the members; every one must have member 0's task, inputs and outputs and
 *                the same target scaling.
 * \return As ag_model_evaluate(); AG_EINVAL (k < 1, a NULL member); AG_EMISMATCH (a member that differs
 *         from member 0, named with both shapes or scalings).
 * Time complexity: k forward passes (node tasks: each over the whole graph, however few rows are
 * listed, with an N x n_out output buffer; graph tasks: over the n graphs, 256 to a batch), then
 * O(n x n_out) for the loss and metrics and O(n log n) per ROC-AUC (one, or one per task of a
 * multi-task model).
 */
ag_error_t ag_ensemble_evaluate(ag_model_t *const *models, int64_t k, const ag_trainset_t *set, const int64_t *idx,
                                int64_t n, ag_scores_t *scores);

/**
 * \function ag_model_n_tasks
 * How many tasks a model's figures can be broken into (ag_ensemble_evaluate_tasks()): its outputs
 * for multi-task and regression models (one per task or target), 1 for classification.
 * Time complexity: O(1).
 */
int64_t ag_model_n_tasks(const ag_model_t *model);

/**
 * \function ag_ensemble_evaluate_tasks
 * ag_ensemble_evaluate(), and the figures of each task on its own: a multi-task model's loss and
 * ROC-AUC of each task (NaN where a task has one class among the rows: the rows MoleculeNet's mean
 * leaves out), a regression model's loss, RMSE and MAE of each target in its own units, each over
 * the rows where that task's label or target is present (per_task[j].n). The loss of a task is the
 * training loss on its column alone: binary cross-entropy, or the squared error of the
 * standardised target. A classification model has one task, its scores.
 * \param scores   Output: the figures over all tasks, as ag_ensemble_evaluate().
 * \param per_task Output, may be NULL: ag_model_n_tasks() entries, caller-allocated.
 * \return As ag_ensemble_evaluate().
 * Time complexity: as ag_ensemble_evaluate(), then with per_task O(n) per task and, for a multi-task
 * model, O(n log n) per task's ROC-AUC.
 */
ag_error_t ag_ensemble_evaluate_tasks(ag_model_t *const *models, int64_t k, const ag_trainset_t *set,
                                      const int64_t *idx, int64_t n, ag_scores_t *scores, ag_scores_t *per_task);

/**
 * \function ag_scores_from_probs
 * Scores class probabilities given from outside the model (such as ag_label_smooth_csr()'s) on
 * the listed rows of a classification set, as ag_model_evaluate() scores a model's: accuracy, macro-F1,
 * the ROC-AUC of class 1 for two classes, and as the loss the mean negative log-probability of the
 * true class (a probability under 1e-7 counts as 1e-7). Rows without a label are skipped.
 * \param probs  (set->n_rows x set->n_classes) probabilities, one row per set row.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument, not a classification set, an index out of
 *         range); AG_EVALUE (a label that is not a class id in 0..C-1).
 * Time complexity: O(n C + C), plus O(n log n) for the ROC-AUC of two classes.
 */
ag_error_t ag_scores_from_probs(const float *probs, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                ag_scores_t *scores);

/**
 * \function ag_model_predict
 * Predictions for the listed examples: (n x n_out) rows of class probabilities (softmax), task
 * probabilities (sigmoid), or regression values in target units.
 * \param out  Caller-allocated n x n_out floats.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument, an index out of range); AG_EMISMATCH (a set for
 *         another task, a node task's set of other than one graph, a graph's node or edge
 *         features of another width than the model's, directed and undirected graphs together);
 *         otherwise as ag_model_forward(). The set's targets are not read.
 * Time complexity: one forward pass over the listed examples (node tasks: over the whole graph,
 * with an N x n_out buffer), then O(n x n_out).
 */
ag_error_t ag_model_predict(ag_model_t *model, const ag_trainset_t *set, const int64_t *idx, int64_t n, float *out);

/**
 * \function ag_model_predict_batch
 * The same for one graph or batch outside a training set: rows are nodes (node tasks) or graphs.
 * \param out  Caller-allocated rows x n_out floats.
 * \return AG_EINVAL (a NULL model); otherwise as ag_model_forward() (training 0).
 * Time complexity: one forward pass, then O(rows x n_out).
 */
ag_error_t ag_model_predict_batch(ag_model_t *model, ag_batch_t *batch, float *out);

/**
 * \function ag_ensemble_predict_batch
 * ag_model_predict_batch() for an ensemble of k models, averaged as ag_ensemble_evaluate() does (so its
 * predictions are exactly those the evaluation scores). Each member keeps its own activations:
 * ag_model_attention_weights() on members[m] afterwards gives that member's attention.
 * \return As ag_model_predict_batch(); AG_EINVAL, AG_EMISMATCH as ag_ensemble_evaluate().
 * Time complexity: k forward passes, then O(k x rows x n_out); k > 1 takes one rows x n_out buffer
 * more.
 */
ag_error_t ag_ensemble_predict_batch(ag_model_t *const *models, int64_t k, ag_batch_t *batch, float *out);

#ifdef __cplusplus
}
#endif
#endif
