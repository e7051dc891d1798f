/*
 * train.c: the training loop (training sets: trainset.c; their batches and the loss: batcher.c;
 * scores and predictions: evaluate.c; which metric scores a task and stops training:
 * metric_choice.c).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "attngraph/train.h"
#include "batcher.h"
#include "internal.h"

void ag_train_config_default(ag_train_config_t *cfg, ag_task_t task) {
    (void)task;
    memset(cfg, 0, sizeof *cfg);
    ag_optim_config_default(&cfg->optim, AG_OPTIM_ADAM);
    cfg->optim.lr = 1e-3f;
    cfg->lr_schedule = AG_LR_CONSTANT;
    cfg->epochs = 200;
    cfg->batch_size = 32;
    cfg->patience = 30;
    cfg->metric = AG_METRIC_AUTO;
    cfg->seed = 1;
    cfg->eval_train = 1;
}

/* Sign-flip streams: FLIP_STREAMS + epoch, far from those ag_rng_next_stream() hands out. */
#define FLIP_STREAMS (UINT64_C(0x5167) << 48)

/* Multiplies columns col0 .. col0 + ncols - 1 of the n rows of X (row width F) by a random sign
 * each: counter `at` onwards of the stream, one draw per column. */
static void flip_signs(float *X, int64_t n, int64_t F, int64_t col0, int64_t ncols, uint64_t seed, uint64_t stream,
                       uint64_t at) {
    for (int64_t c = 0; c < ncols; c++) {
        if (!(ag_rng_u64(seed, stream, at + (uint64_t)c) & 1)) continue;
        for (int64_t r = 0; r < n; r++) X[r * F + col0 + c] = -X[r * F + col0 + c];
    }
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Copies every parameter into (or out of) one flat snapshot buffer. */
static void snapshot(const ag_param_list_t *p, float *buf, int save) {
    int64_t off = 0;
    for (int64_t i = 0; i < p->count; i++) {
        size_t n = (size_t)(p->items[i].shape[0] * p->items[i].shape[1]);
        if (save) memcpy(buf + off, p->items[i].value, n * sizeof(float));
        else memcpy(p->items[i].value, buf + off, n * sizeof(float));
        off += (int64_t)n;
    }
}

static ag_error_t spread_error(const char *which, const char *values, double sd, double mean) {
    return AG_ERROR(AG_EVALUE, "%s: its %s differ by %.3g (standard deviation) around %.7g, below what float32 "
                    "(about 7 significant digits, which the model computes in) tells apart at that size; subtract "
                    "an offset first (such as %.7g)", which, values, sd, mean, mean);
}

ag_error_t ag_i_check_target_spread(const double *x, int64_t n, const char *which) {
    double sum = 0.0, sq = 0.0, amax = 0.0;
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(x[i])) {
            sum += x[i];
            amax = fmax(amax, fabs(x[i]));
            cnt++;
        }
    if (cnt < 2) return AG_SUCCESS;
    const double mean = sum / (double)cnt;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(x[i])) sq += (x[i] - mean) * (x[i] - mean);
    const double sd = sqrt(sq / (double)cnt);
    return sd > 0.0 && sd < 1e-6 * amax ? spread_error(which, "values", sd, mean) : AG_SUCCESS;
}

/* Standardises regression targets over the training rows and stores the scaling in the model;
 * counts in result the targets of one value on every training row that has one. */
static ag_error_t fit_target_scaling(ag_model_t *model, const ag_trainset_t *set, const int64_t *rows, int64_t n,
                                     ag_train_result_t *result) {
    int64_t C = ag_model_config(model)->n_out;
    float *ms = NULL;
    AG_CHECK(ag_i_alloc_array((void **)&ms, 2 * C, sizeof(float), "target scaling"));
    ag_error_t rc = AG_SUCCESS;
    for (int64_t j = 0; j < C && rc == AG_SUCCESS; j++) {
        double sum = 0.0, sq = 0.0, amax = 0.0;
        float first = NAN;
        int64_t cnt = 0, varies = 0;
        for (int64_t i = 0; i < n; i++) {
            float t = set->targets[rows[i] * C + j];
            if (isnan(t)) continue;
            sum += t;
            if (fabs((double)t) > amax) amax = fabs((double)t);
            if (!cnt) first = t;
            varies |= t != first;
            cnt++;
        }
        /* one value (a spread of exactly 0): trained all the same, with nothing to learn */
        if (cnt > 0 && !varies && result->constant_targets++ == 0) result->first_constant_target = j;
        double mean = cnt ? sum / (double)cnt : 0.0;
        for (int64_t i = 0; i < n; i++) {
            float t = set->targets[rows[i] * C + j];
            if (!isnan(t)) sq += ((double)t - mean) * ((double)t - mean);
        }
        double sd = cnt > 1 ? sqrt(sq / (double)cnt) : 1.0;
        /* float32 keeps about 7 significant digits: values a millionth of their magnitude apart
         * (1e9 + a few, timestamps) reach here rounded to steps of 64, and every prediction and
         * score would be of those steps, so they are refused with the remedy */
        if (sd > 0.0 && sd < 1e-6 * amax) {
            char which[48] = "the regression target";
            if (C > 1) snprintf(which, sizeof which, "regression target %lld", (long long)j + 1);
            rc = spread_error(which, "training values", sd, mean);
        }
        ms[j] = (float)mean;
        /* a constant target has no spread to divide by; a tiny one (1e-14) is still a scale */
        ms[C + j] = sd >= (double)FLT_MIN ? (float)sd : 1.0f;
    }
    if (rc == AG_SUCCESS) rc = ag_model_set_target_scaling(model, ms, ms + C);
    ag_i_free(ms);
    return rc;
}

/* The training configuration as text: what a checkpoint must agree with to be continued. Floats
 * are written as their bits, so that any change is seen. */
static void config_text(const ag_train_config_t *cfg, int64_t n_train, char *buf, size_t n) {
    uint32_t b[6];
    memcpy(&b[0], &cfg->optim.lr, 4);
    memcpy(&b[1], &cfg->optim.beta1, 4);
    memcpy(&b[2], &cfg->optim.beta2, 4);
    memcpy(&b[3], &cfg->optim.eps, 4);
    memcpy(&b[4], &cfg->optim.weight_decay, 4);
    memcpy(&b[5], &cfg->optim.momentum, 4);
    uint32_t clip;
    memcpy(&clip, &cfg->clip_norm, 4);
    snprintf(buf, n,
             "optimizer %d lr %08x beta1 %08x beta2 %08x eps %08x decay %08x momentum %08x schedule %d warmup %lld "
             "epochs %lld batch %lld patience %lld clip %08x metric %d seed %llu eval_train %d n_train %lld",
             (int)cfg->optim.kind, b[0], b[1], b[2], b[3], b[4], b[5], (int)cfg->lr_schedule,
             (long long)cfg->warmup_epochs, (long long)cfg->epochs, (long long)cfg->batch_size,
             (long long)cfg->patience, clip, (int)cfg->metric, (unsigned long long)cfg->seed, cfg->eval_train != 0,
             (long long)n_train);
    /* only when set, so that checkpoints written before min_epochs existed still resume */
    if (cfg->min_epochs > 0) {
        size_t len = strlen(buf);
        snprintf(buf + len, n > len ? n - len : 0, " min_epochs %lld", (long long)cfg->min_epochs);
    }
    if (cfg->flip_cols > 0) {
        size_t len = strlen(buf);
        snprintf(buf + len, n > len ? n - len : 0, " sign_flip %lld+%lld", (long long)cfg->flip_col0,
                 (long long)cfg->flip_cols);
    }
    if (cfg->huber_delta > 0.0f) {
        uint32_t h;
        memcpy(&h, &cfg->huber_delta, sizeof h);
        size_t len = strlen(buf);
        snprintf(buf + len, n > len ? n - len : 0, " huber %08x", (unsigned)h);
    }
}

/* A number after "key " in a text config_text() wrote; -1 (never a valid value of the keys read)
 * when absent. */
static long long config_number(const char *config, const char *key) {
    size_t n = strlen(key);
    for (const char *p = config; (p = strstr(p, key)) != NULL; p += n)
        if ((p == config || p[-1] == ' ') && p[n] == ' ') return strtoll(p + n + 1, NULL, 10);
    return -1;
}

ag_error_t ag_train_state_plan(const ag_train_state_t *st, int64_t *epochs, int64_t *patience, ag_metric_t *metric) {
    if (!st || !epochs || !patience || !metric) return AG_ERROR(AG_EINVAL, "ag_train_state_plan: a NULL argument");
    long long e = config_number(st->config, "epochs"), p = config_number(st->config, "patience"),
              m = config_number(st->config, "metric");
    if (e < 1 || p < 0 || m < AG_METRIC_AUTO || m > AG_METRIC_MAE)
        return AG_ERROR(AG_EMODEL, "checkpoint: the training configuration is malformed (epochs %lld, patience %lld, "
                                   "metric %lld)", e, p, m);
    *epochs = e;
    *patience = p;
    *metric = (ag_metric_t)m;
    return AG_SUCCESS;
}

/* The first differing "key value" pair of two configuration texts, for the message. */
static void config_diff(const char *a, const char *b, char *out, size_t n) {
    const char *pa = a, *pb = b;
    while (*pa && *pb) {
        const char *ea = strchr(pa, ' '), *eb = strchr(pb, ' ');
        const char *va_end = ea ? strchr(ea + 1, ' ') : NULL, *vb_end = eb ? strchr(eb + 1, ' ') : NULL;
        size_t la = va_end ? (size_t)(va_end - pa) : strlen(pa), lb = vb_end ? (size_t)(vb_end - pb) : strlen(pb);
        if (la != lb || strncmp(pa, pb, la) != 0) {
            snprintf(out, n, "'%.*s' in the checkpoint, '%.*s' now", (int)la, pa, (int)lb, pb);
            return;
        }
        pa += la + (pa[la] ? 1 : 0);
        pb += lb + (pb[lb] ? 1 : 0);
    }
    snprintf(out, n, "'%.100s' in the checkpoint, '%.100s' now", a, b);
}

void ag_train_state_destroy(ag_train_state_t *st) {
    if (!st) return;
    ag_optim_destroy(&st->optim);
    ag_i_free(st->best);
    ag_i_free(st->order);
    memset(st, 0, sizeof *st);
}

/* The state is for this configuration, these parameters and this training list. */
static ag_error_t check_resume(const ag_train_state_t *st, const ag_train_config_t *cfg, const ag_param_list_t *params,
                               const int64_t *train_idx, int64_t n_train, int64_t steps_per_epoch) {
    char now[sizeof st->config], diff[320];
    config_text(cfg, n_train, now, sizeof now);
    if (strcmp(now, st->config) != 0) {
        config_diff(st->config, now, diff, sizeof diff);
        return AG_ERROR(AG_EMODEL, "checkpoint: made with another training configuration (%s)", diff);
    }
    int64_t P = ag_param_list_size(params);
    if (st->n_params != P || st->optim.size != P || st->optim.count != params->count || !st->best)
        return AG_ERROR(AG_EMODEL, "checkpoint: made for a model of %lld parameters, this one has %lld",
                        (long long)st->n_params, (long long)P);
    if (st->optim.cfg.kind != cfg->optim.kind)
        return AG_ERROR(AG_EMODEL, "checkpoint: its optimiser state is for another optimiser");
    if (st->epoch < 0 || st->epoch > cfg->epochs || st->step < 0 || st->since_best < 0 || st->best_epoch < 0 ||
        st->best_epoch > st->epoch)
        return AG_ERROR(AG_EMODEL, "checkpoint: inconsistent counters (epoch %lld of %lld, best epoch %lld)",
                        (long long)st->epoch, (long long)cfg->epochs, (long long)st->best_epoch);
    /* at most steps_per_epoch optimiser steps per epoch (fewer when a batch has no labels): a
     * larger count would overflow the counters (fuzz_checkpoint: step 2^63-1) */
    int64_t max_steps;
    if (ag_i_mul_overflow(st->epoch, steps_per_epoch, &max_steps) || st->step > max_steps || st->optim.step < 0 ||
        st->optim.step > st->step || st->since_best > st->epoch - st->best_epoch)
        return AG_ERROR(AG_EMODEL, "checkpoint: inconsistent counters (%lld optimiser steps after %lld epochs of %lld "
                        "steps, %lld in the optimiser, %lld epochs since the best)", (long long)st->step,
                        (long long)st->epoch, (long long)steps_per_epoch, (long long)st->optim.step,
                        (long long)st->since_best);
    if (st->n_order != n_train || !st->order)
        return AG_ERROR(AG_EMODEL, "checkpoint: made for %lld training examples, not %lld", (long long)st->n_order,
                        (long long)n_train);
    /* the kept order must be a permutation of this training list */
    int64_t *a = NULL, *b = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&a, n_train, sizeof(int64_t), "order check");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&b, n_train, sizeof(int64_t), "order check");
    if (rc == AG_SUCCESS) {
        memcpy(a, st->order, (size_t)n_train * sizeof(int64_t));
        memcpy(b, train_idx, (size_t)n_train * sizeof(int64_t));
        qsort(a, (size_t)n_train, sizeof(int64_t), ag_i_cmp_i64);
        qsort(b, (size_t)n_train, sizeof(int64_t), ag_i_cmp_i64);
        if (memcmp(a, b, (size_t)n_train * sizeof(int64_t)) != 0)
            rc = AG_ERROR(AG_EMODEL, "checkpoint: made with another training list (another split or data)");
    }
    ag_i_free(a);
    ag_i_free(b);
    return rc;
}

/* The scores of the n rows idx: from node_out (N x C), a node task's evaluation pass over the
 * whole graph, or for graph tasks (node_out NULL) by an evaluation of those graphs alone. */
static ag_error_t score_part(ag_model_t *model, const ag_trainset_t *set, const float *node_out, const int64_t *idx,
                             int64_t n, ag_scores_t *sc) {
    if (node_out) return ag_i_score_node_outputs(model, set, node_out, idx, n, sc);
    return ag_model_evaluate(model, set, idx, n, sc);
}

/* Copies the optimiser state (same shapes). */
static void optim_copy(ag_optim_t *dst, const ag_optim_t *src) {
    dst->step = src->step;
    memcpy(dst->m, src->m, (size_t)src->size * sizeof(float));
    if (dst->v && src->v) memcpy(dst->v, src->v, (size_t)src->size * sizeof(float));
}

ag_error_t ag_model_train(ag_model_t *model, const ag_trainset_t *set, const int64_t *train_idx, int64_t n_train,
                          const int64_t *val_idx, int64_t n_val, const ag_train_config_t *cfg,
                          ag_train_result_t *result) {
    return ag_model_train_resume(model, set, train_idx, n_train, val_idx, n_val, cfg, NULL, result);
}

ag_error_t ag_model_train_resume(ag_model_t *model, const ag_trainset_t *set, const int64_t *train_idx,
                                 int64_t n_train, const int64_t *val_idx, int64_t n_val,
                                 const ag_train_config_t *cfg, const ag_train_state_t *resume,
                                 ag_train_result_t *result) {
    if (!result || !cfg || !model || !set) return AG_ERROR(AG_EINVAL, "training: NULL model, set, configuration or result");
    const ag_model_config_t *c = ag_model_config(model);
    memset(result, 0, sizeof *result);
    result->best_val_metric = NAN;
    result->first_constant_target = -1;
    AG_CHECK(ag_i_trainset_check(model, set));
    if (n_train <= 0) return AG_ERROR(AG_EINVAL, "training needs at least one training example");
    AG_CHECK(ag_i_check_indices(train_idx, n_train, set->n_rows, "training"));
    AG_CHECK(ag_i_check_indices(val_idx, n_val, set->n_rows, "validation"));
    /* without one target the loss is 0/0: NaN weights that "train" to the end and exit cleanly */
    if (ag_trainset_count_labelled(set, train_idx, n_train) == 0)
        return AG_ERROR(AG_EVALUE, "none of the %lld training %s has a label or target", (long long)n_train,
                        ag_task_is_graph_level(c->task) ? (n_train == 1 ? "graph" : "graphs")
                                                        : (n_train == 1 ? "vertex" : "vertices"));
    if (cfg->epochs <= 0) return AG_ERROR(AG_EINVAL, "epochs must be positive, not %lld", (long long)cfg->epochs);
    int graph_level = ag_task_is_graph_level(c->task);
    if (graph_level && cfg->batch_size <= 0)
        return AG_ERROR(AG_EINVAL, "batch size must be positive, not %lld", (long long)cfg->batch_size);
    const ag_param_list_t *params = ag_model_params(model);
    int64_t bs = graph_level ? (cfg->batch_size < n_train ? cfg->batch_size : n_train) : 1;
    int64_t steps_per_epoch = graph_level ? (n_train + bs - 1) / bs : 1;
    if (cfg->flip_cols < 0 || cfg->flip_col0 < 0 || (cfg->flip_cols > 0 && cfg->flip_col0 + cfg->flip_cols > c->in_dim))
        return AG_ERROR(AG_EINVAL, "sign-flip columns %lld + %lld are not within the %lld input columns",
                        (long long)cfg->flip_col0, (long long)cfg->flip_cols, (long long)c->in_dim);
    if (!(cfg->huber_delta >= 0.0f) || !isfinite(cfg->huber_delta))
        return AG_ERROR(AG_EINVAL, "Huber delta %g must be a finite number >= 0 (0: mean squared error)",
                        (double)cfg->huber_delta);
    if (cfg->huber_delta > 0.0f && !ag_task_is_regression(c->task))
        return AG_ERROR(AG_EINVAL, "the Huber loss is for regression, not %s", ag_task_name(c->task));
    if (resume) AG_CHECK(check_resume(resume, cfg, params, train_idx, n_train, steps_per_epoch));
    if (ag_task_is_regression(c->task)) AG_CHECK(fit_target_scaling(model, set, train_idx, n_train, result));

    AG_CHECK(ag_metric_check(cfg->metric, c->task, set->n_classes));
    ag_metric_t metric = ag_metric_for_task(cfg->metric, c->task);
    /* A validation part that cannot be scored would never beat the first NaN and keep the
     * untrained weights: with no label at all it is no validation part (the last epoch is kept),
     * with one class only for ROC-AUC its loss still tells the epochs apart. */
    if (n_val > 0 && ag_trainset_count_labelled(set, val_idx, n_val) == 0) n_val = 0;
    if (n_val > 0 && !ag_metric_scorable(metric, set, val_idx, n_val)) metric = AG_METRIC_LOSS;
    result->metric = metric;
    int higher = ag_metric_higher_is_better(metric);
    int64_t C = c->n_out;
    int64_t every = cfg->checkpoint_every > 0 ? cfg->checkpoint_every : 1;

    /* Everything that evolves from epoch to epoch lives in st, so that a checkpoint is st + weights. */
    ag_train_state_t st;
    memset(&st, 0, sizeof st);
    config_text(cfg, n_train, st.config, sizeof st.config);
    st.best_metric = NAN;
    st.n_params = ag_param_list_size(params);
    st.n_order = n_train;
    ag_rng_init(&st.rng, cfg->seed);
    ag_error_t rc = ag_optim_init(&st.optim, &cfg->optim, params);
    if (rc != AG_SUCCESS) return rc;
    ag_lr_schedule_t sched;
    memset(&sched, 0, sizeof sched);
    sched.kind = cfg->lr_schedule;
    sched.base_lr = cfg->optim.lr;
    int64_t warmup = cfg->warmup_epochs > 0 ? cfg->warmup_epochs : 0; /* may outlast the epochs */
    if (ag_i_mul_overflow(cfg->epochs, steps_per_epoch, &sched.total_steps) ||
        ag_i_mul_overflow(warmup, steps_per_epoch, &sched.warmup_steps)) {
        ag_optim_destroy(&st.optim);
        return AG_ERROR(AG_ELIMIT, "%lld epochs (%lld of warm-up) of %lld steps overflow the step count",
                        (long long)cfg->epochs, (long long)warmup, (long long)steps_per_epoch);
    }
    sched.step_size = steps_per_epoch * (cfg->epochs / 3 > 0 ? cfg->epochs / 3 : 1);
    sched.gamma = 0.5f;
    sched.min_lr = cfg->optim.lr * 0.01f;

    float *out = NULL, *dout = NULL; /* (bs x C) graph tasks, (N x C) node tasks: a step's outputs, their gradients */
    float *xflip = NULL; /* (N x F) node tasks with sign flipping: the features with this step's signs */
    int64_t *row_target = NULL; /* (bs) or (N): each output row's target row, -1 for none */
    ag_i_batcher_t b = {0};
    /* Node tasks: the graph never changes, so one batch serves the whole run and its masks (a
     * k-hop search each) are built once, not at every step; the evaluation batch also keeps X's
     * sparse form, which the first inference builds (on Cora, built for each of two evaluations
     * per epoch, about a fifth of the epoch). Sign flipping trains on xflip and scores the set's
     * own X: two batches; otherwise one. */
    ag_batch_t node_batch, node_eval_batch;
    ag_batch_init(&node_batch, NULL, NULL, NULL);
    ag_batch_init(&node_eval_batch, NULL, NULL, NULL);
    ag_batch_t *eval_batch = &node_batch;
    ag_i_loss_buf_t lb = {0};
    int64_t out_cap = graph_level ? bs : set->examples[0].graph.n_nodes, out_count = 0;
    if (ag_i_mul_overflow(out_cap, C, &out_count))
        rc = AG_ERROR(AG_ELIMIT, "training outputs of %lld rows x %lld outputs overflow", (long long)out_cap,
                      (long long)C);
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&st.best, st.n_params, sizeof(float), "best weights");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&out, out_count, sizeof(float), "outputs");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&dout, out_count, sizeof(float), "output gradients");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&st.order, n_train, sizeof(int64_t), "training order");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&row_target, out_cap, sizeof(int64_t), "target rows");
    if (rc == AG_SUCCESS && !graph_level && cfg->flip_cols > 0)
        rc = ag_i_alloc_array((void **)&xflip, set->examples[0].X.rows * c->in_dim, sizeof(float), "sign-flipped features");
    if (rc != AG_SUCCESS) goto done;
    if (!graph_level) {
        /* node tasks: the loss sees only the training nodes */
        for (int64_t i = 0; i < out_cap; i++) row_target[i] = -1;
        for (int64_t i = 0; i < n_train; i++) row_target[train_idx[i]] = train_idx[i];
        const ag_example_t *ex = &set->examples[0];
        const float *E = c->edge_dim > 0 ? ex->E.data : NULL;
        /* xflip's contents change every step under the batch: a training pass reads X itself,
         * never the sparse form an inference caches (attention.c), and the masks are the graph's */
        ag_batch_init(&node_batch, &ex->graph, xflip ? xflip : ex->X.data, E);
        if (xflip) {
            ag_batch_init(&node_eval_batch, &ex->graph, ex->X.data, E);
            eval_batch = &node_eval_batch;
        }
    }
    if (resume) {
        st.epoch = resume->epoch;
        st.step = resume->step;
        st.rng = resume->rng;
        optim_copy(&st.optim, &resume->optim);
        memcpy(st.best, resume->best, (size_t)st.n_params * sizeof(float));
        st.best_metric = resume->best_metric;
        st.best_epoch = resume->best_epoch;
        st.since_best = resume->since_best;
        memcpy(st.order, resume->order, (size_t)n_train * sizeof(int64_t));
        st.seconds = resume->seconds;
    } else {
        memcpy(st.order, train_idx, (size_t)n_train * sizeof(int64_t));
        snapshot(params, st.best, 1);
    }
    result->best_epoch = st.best_epoch;
    result->epochs_run = st.epoch;

    double t_start = now_seconds() - st.seconds, prior_seconds = st.seconds;
    int64_t done_before = st.epoch;
    int stopped = cfg->stop && *cfg->stop;
    for (int64_t epoch = st.epoch + 1; epoch <= cfg->epochs && !stopped; epoch++) {
        /* a run that stopped early stays stopped when resumed from its last checkpoint */
        if (cfg->patience > 0 && st.since_best >= cfg->patience) break;
        double t0 = now_seconds(), loss_sum = 0.0, lr = cfg->optim.lr;
        int64_t loss_batches = 0;
        /* The signs come from a stream of their own per epoch, outside the run's stream (st.rng):
         * shuffles and dropout are those of the same run without flipping, and a resumed run
         * draws the same signs. */
        uint64_t flip_stream = FLIP_STREAMS + (uint64_t)epoch;
        if (graph_level) {
            uint64_t stream = ag_rng_next_stream(&st.rng);
            for (int64_t i = n_train - 1; i > 0; i--) {
                int64_t j = (int64_t)(ag_rng_u64(cfg->seed, stream, (uint64_t)i) % (uint64_t)(i + 1));
                int64_t t = st.order[i];
                st.order[i] = st.order[j];
                st.order[j] = t;
            }
        }
        for (int64_t s = 0; s < steps_per_epoch; s++) {
            ag_batch_t graph_batch, *batch = &node_batch;
            int64_t rows;
            if (graph_level) {
                int64_t k = n_train - s * bs < bs ? n_train - s * bs : bs;
                batch = &graph_batch;
                rc = ag_i_batcher_make(&b, set, st.order + s * bs, k, c->in_dim, c->edge_dim, batch);
                if (rc != AG_SUCCESS) goto done;
                for (int64_t i = 0, node = 0; i < k; i++) {
                    row_target[i] = st.order[s * bs + i];
                    int64_t n = set->examples[row_target[i]].graph.n_nodes;
                    /* the batcher's copy is flipped: the training set keeps its signs */
                    if (cfg->flip_cols > 0)
                        flip_signs(b.buf.X + node * c->in_dim, n, c->in_dim, cfg->flip_col0, cfg->flip_cols, cfg->seed,
                                   flip_stream, (uint64_t)(s * bs + i) * (uint64_t)cfg->flip_cols);
                    node += n;
                }
                rows = k;
            } else {
                const ag_example_t *ex = &set->examples[0];
                if (xflip) {
                    memcpy(xflip, ex->X.data, (size_t)(ex->X.rows * c->in_dim) * sizeof(float));
                    flip_signs(xflip, ex->X.rows, c->in_dim, cfg->flip_col0, cfg->flip_cols, cfg->seed, flip_stream, 0);
                }
                rows = ex->graph.n_nodes;
            }
            ag_param_list_zero_grad(params);
            double loss = 0.0;
            int64_t counted = 0;
            rc = ag_model_forward(model, batch, 1, &st.rng, out);
            if (rc == AG_SUCCESS)
                rc = ag_i_batch_loss(model, set, row_target, rows, out, dout, &lb, cfg->huber_delta, &loss, &counted);
            if (rc == AG_SUCCESS && counted > 0) rc = ag_model_backward(model, batch, dout);
            if (graph_level) ag_batch_destroy(batch);
            if (rc != AG_SUCCESS) goto done;
            if (counted == 0) continue; /* a batch whose labels are all missing teaches nothing */
            if (!isfinite(loss)) {
                rc = AG_ERROR(AG_EVALUE, "training diverged: the loss is %g at epoch %lld (try a smaller learning rate)",
                              loss, (long long)epoch);
                goto done;
            }
            if (cfg->clip_norm > 0.0f) ag_param_list_clip_grad_norm(params, cfg->clip_norm);
            lr = ag_lr_schedule_rate(&sched, st.step++);
            rc = ag_optim_step(&st.optim, params, (float)lr);
            if (rc != AG_SUCCESS) goto done;
            loss_sum += loss;
            loss_batches++;
        }
        ag_epoch_log_t log;
        memset(&log, 0, sizeof log);
        log.epoch = epoch;
        log.epochs = cfg->epochs;
        log.loss = loss_batches ? loss_sum / (double)loss_batches : NAN;
        log.metric = ag_metric_name(metric);
        log.lr = lr;
        log.train_metric = log.val_metric = NAN;
        ag_scores_t sc;
        /* node tasks: one evaluation pass over the graph (into out, free until the next step)
         * scores both parts, as ag_model_evaluate() would score each */
        const float *node_out = NULL;
        if (!graph_level && (cfg->eval_train || n_val > 0)) {
            rc = ag_model_forward(model, eval_batch, 0, NULL, out);
            if (rc != AG_SUCCESS) goto done;
            node_out = out;
        }
        if (cfg->eval_train) {
            rc = score_part(model, set, node_out, train_idx, n_train, &sc);
            if (rc != AG_SUCCESS) goto done;
            log.train_metric = ag_scores_get(&sc, metric, c->task);
        }
        /* before min_epochs no epoch is kept and the patience count does not run (the last epoch
         * is always eligible, so a run shorter than min_epochs still keeps trained weights) */
        int eligible = epoch >= cfg->min_epochs || epoch == cfg->epochs;
        if (n_val > 0) {
            rc = score_part(model, set, node_out, val_idx, n_val, &sc);
            if (rc != AG_SUCCESS) goto done;
            log.val_metric = ag_scores_get(&sc, metric, c->task);
            int better = isnan(st.best_metric) || (!isnan(log.val_metric) && (higher ? log.val_metric > st.best_metric
                                                                                       : log.val_metric < st.best_metric));
            if (eligible && better && !isnan(log.val_metric)) {
                st.best_metric = log.val_metric;
                st.best_epoch = epoch;
                st.since_best = 0;
                snapshot(params, st.best, 1);
                log.improved = 1;
            } else if (eligible) {
                st.since_best++;
            }
        } else {
            st.best_epoch = epoch;
            snapshot(params, st.best, 1);
            log.improved = 1;
        }
        double t1 = now_seconds();
        log.seconds = t1 - t0;
        /* the rate of this process's epochs: a resumed run's earlier epochs ran elsewhere */
        log.eta_seconds = (t1 - t_start - prior_seconds) / (double)(epoch - done_before) * (double)(cfg->epochs - epoch);
        st.epoch = epoch;
        result->epochs_run = epoch;
        result->best_epoch = st.best_epoch;
        if (cfg->progress) cfg->progress(&log, cfg->progress_user);
        if (cfg->checkpoint && epoch % every == 0) {
            st.seconds = t1 - t_start;
            rc = cfg->checkpoint(model, &st, cfg->checkpoint_user);
            if (rc != AG_SUCCESS) goto done;
        }
        /* Between epochs only, so that the weights are a whole epoch's: one that nothing kept yet
         * (all before min_epochs) is kept, as the last epoch of a run always is. */
        if (cfg->stop && *cfg->stop) {
            stopped = 1;
            if (st.best_epoch == 0) {
                st.best_epoch = result->best_epoch = epoch;
                st.best_metric = log.val_metric;
                snapshot(params, st.best, 1);
            }
        }
    }
    snapshot(params, st.best, 0);
    result->best_val_metric = st.best_metric;
    result->seconds = now_seconds() - t_start;
    result->stopped = stopped;
done:
    ag_train_state_destroy(&st);
    ag_i_batcher_destroy(&b);
    ag_batch_destroy(&node_batch);
    ag_batch_destroy(&node_eval_batch);
    ag_i_loss_buf_destroy(&lb);
    ag_i_free(out);
    ag_i_free(dout);
    ag_i_free(row_target);
    ag_i_free(xflip);
    return rc;
}
