/*
 * test_early_stop.c: early stopping with a minimum number of epochs (ag_train_config_t.min_epochs,
 * `attn-graph train --min-epochs`): before it no epoch is kept as the best and patience does not
 * run; the last epoch is always eligible; 0 keeps the behaviour without a minimum. And validation
 * parts that cannot be scored: a metric the task has not (refused), ROC-AUC over one class (the
 * loss is watched), no label at all (the last epoch is kept): never the untrained weights.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include <attngraph/train.h>

/* Rings and paths of 5..12 nodes with the degree as feature (label: ring). */
static void make_set(ag_trainset_t *set) {
    int G = 48;
    ag_trainset_init(set, AG_TASK_GRAPH_CLASSIFICATION);
    set->n_classes = 2;
    assert_int_equal(ag_trainset_resize(set, G, G, 1), AG_SUCCESS);
    for (int g = 0; g < G; g++) {
        int n = 5 + (g / 2) % 8, ring = g % 2;
        igraph_t ig;
        igraph_ring(&ig, n, IGRAPH_UNDIRECTED, 0, ring);
        ag_example_t *ex = &set->examples[g];
        assert_int_equal(ag_graph_from_igraph(&ex->graph, &ig), AG_SUCCESS);
        assert_int_equal(ag_fmat_init(&ex->X, n, 2), AG_SUCCESS);
        for (int v = 0; v < n; v++) {
            ex->X.data[2 * v] = (float)(ex->graph.indptr[v + 1] - ex->graph.indptr[v]);
            ex->X.data[2 * v + 1] = 1.0f;
        }
        set->targets[g] = (float)ring;
        igraph_destroy(&ig);
    }
}

static ag_model_t *small_model(void) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_CLASSIFICATION);
    cfg.in_dim = 2;
    cfg.n_out = 2;
    cfg.hidden = 8;
    cfg.n_blocks = 1;
    cfg.blocks[0].attn.heads = 2;
    cfg.blocks[0].attn.head_dim = 4;
    cfg.blocks[0].attn.out_dim = 8;
    cfg.blocks[0].ffn_hidden = 8;
    cfg.readouts[0] = AG_READOUT_SUM;
    cfg.head_hidden = 8;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

typedef struct {
    int64_t first_improved; /* first epoch the progress log marked as kept, 0 if none */
    int64_t n_logged;
} watch_t;

static void watch(const ag_epoch_log_t *log, void *user) {
    watch_t *w = user;
    w->n_logged++;
    if (log->improved && !w->first_improved) w->first_improved = log->epoch;
}

/* One run with patience 1 (stops at the first epoch that does not improve) and a minimum. */
static void run(const ag_trainset_t *set, int64_t epochs, int64_t min_epochs, ag_train_result_t *res, watch_t *w) {
    int64_t tr[32], va[16];
    for (int i = 0; i < 32; i++) tr[i] = i;
    for (int i = 0; i < 16; i++) va[i] = 32 + i;
    ag_model_t *m = small_model();
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(tc.min_epochs, 0); /* the default: no minimum */
    tc.optim.lr = 0.01f;
    tc.epochs = epochs;
    tc.batch_size = 8;
    tc.patience = 1;
    tc.metric = AG_METRIC_LOSS;
    tc.eval_train = 0;
    tc.min_epochs = min_epochs;
    memset(w, 0, sizeof *w);
    tc.progress = watch;
    tc.progress_user = w;
    assert_int_equal(ag_model_train(m, set, tr, 32, va, 16, &tc, res), AG_SUCCESS);
    ag_model_destroy(m);
}

static void test_min_epochs(void **state) {
    (void)state;
    ag_trainset_t set;
    make_set(&set);
    ag_train_result_t res;
    watch_t w;
    /* without a minimum, epoch 1 is kept (the first validated epoch always improves) and patience
     * 1 stops the run at the first epoch that does not improve, well before 12 here */
    run(&set, 40, 0, &res, &w);
    assert_int_equal(w.first_improved, 1);
    int64_t stopped_without = res.epochs_run;
    if (stopped_without >= 12) fail_msg("expected an early stop before epoch 12, ran %lld", (long long)stopped_without);
    /* with a minimum of 12: nothing is kept before epoch 12, the first eligible epoch is kept,
     * and the run goes on at least until epoch 13 */
    run(&set, 40, 12, &res, &w);
    assert_int_equal(w.first_improved, 12);
    assert_true(res.best_epoch >= 12);
    assert_true(res.epochs_run >= 13);
    assert_true(isfinite(res.best_val_metric));
    /* a minimum above the epoch count: the last epoch is kept, not the initial weights */
    run(&set, 5, 10, &res, &w);
    assert_int_equal(res.epochs_run, 5);
    assert_int_equal(res.best_epoch, 5);
    assert_int_equal(w.first_improved, 5);
    assert_int_equal(w.n_logged, 5);
    ag_trainset_destroy(&set);
}

static void test_metric_fits_task(void **state) {
    (void)state;
    const struct {
        ag_metric_t metric;
        ag_task_t task;
        int64_t classes;
        ag_error_t rc;
    } cases[] = {
        {AG_METRIC_AUTO, AG_TASK_GRAPH_REGRESSION, 0, AG_SUCCESS},
        {AG_METRIC_LOSS, AG_TASK_GRAPH_MULTITASK, 0, AG_SUCCESS},
        {AG_METRIC_ROC_AUC, AG_TASK_GRAPH_CLASSIFICATION, 2, AG_SUCCESS},
        {AG_METRIC_ROC_AUC, AG_TASK_NODE_CLASSIFICATION, 3, AG_EINVAL},
        {AG_METRIC_MACRO_F1, AG_TASK_NODE_CLASSIFICATION, 3, AG_SUCCESS},
        {AG_METRIC_ROC_AUC, AG_TASK_GRAPH_MULTITASK, 0, AG_SUCCESS},
        {AG_METRIC_ACCURACY, AG_TASK_GRAPH_MULTITASK, 0, AG_EINVAL},
        {AG_METRIC_RMSE, AG_TASK_GRAPH_CLASSIFICATION, 2, AG_EINVAL},
        {AG_METRIC_MAE, AG_TASK_NODE_REGRESSION, 0, AG_SUCCESS},
        {AG_METRIC_ACCURACY, AG_TASK_GRAPH_REGRESSION, 0, AG_EINVAL},
        {AG_METRIC_ROC_AUC, AG_TASK_NODE_REGRESSION, 0, AG_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (ag_metric_check(cases[i].metric, cases[i].task, cases[i].classes) != cases[i].rc)
            fail_msg("case %zu: %s on %s", i, ag_metric_name(cases[i].metric), ag_task_name(cases[i].task));
    assert_int_equal(ag_metric_check(AG_METRIC_RMSE, AG_TASK_GRAPH_CLASSIFICATION, 2), AG_EINVAL);
    assert_string_equal(ag_error_message(), "metric rmse does not score a graph-classification task: it takes loss, "
                                            "accuracy, macro_f1 or roc_auc");
    assert_int_equal(ag_metric_check(AG_METRIC_ROC_AUC, AG_TASK_NODE_CLASSIFICATION, 3), AG_EINVAL);
    assert_string_equal(ag_error_message(), "metric roc_auc scores 2 classes, not the 3 of this node-classification "
                                            "task; loss, accuracy or macro_f1 (roc_auc is for 2 classes)");

    /* training refuses it before the first epoch rather than keep epoch 0 */
    ag_trainset_t set;
    make_set(&set);
    const int64_t first[2] = {0, 1};
    ag_model_t *m = small_model();
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.metric = AG_METRIC_MAE;
    tc.epochs = 2;
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, &set, first, 2, NULL, 0, &tc, &res), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "metric mae does not score"));
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

static void test_unscorable_validation(void **state) {
    (void)state;
    ag_trainset_t set;
    make_set(&set);
    /* the odd graphs are the rings: a validation part of rings only has one class */
    int64_t tr[32], rings[8], mixed[8];
    for (int i = 0; i < 32; i++) tr[i] = i;
    for (int i = 0; i < 8; i++) rings[i] = 33 + 2 * i, mixed[i] = 32 + i;
    assert_false(ag_metric_scorable(AG_METRIC_ROC_AUC, &set, rings, 8));
    assert_true(ag_metric_scorable(AG_METRIC_ROC_AUC, &set, mixed, 8));
    assert_true(ag_metric_scorable(AG_METRIC_ACCURACY, &set, rings, 8));
    assert_true(ag_metric_scorable(AG_METRIC_AUTO, &set, rings, 8)); /* accuracy */

    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.optim.lr = 0.01f;
    tc.epochs = 6;
    tc.batch_size = 8;
    tc.eval_train = 0;
    tc.metric = AG_METRIC_ROC_AUC;
    ag_train_result_t res;
    ag_model_t *m = small_model();
    assert_int_equal(ag_model_train(m, &set, tr, 32, rings, 8, &tc, &res), AG_SUCCESS);
    assert_int_equal(res.metric, AG_METRIC_LOSS);
    assert_true(res.best_epoch >= 1);
    assert_true(isfinite(res.best_val_metric) && res.best_val_metric > 0.0);
    ag_model_destroy(m);
    m = small_model();
    assert_int_equal(ag_model_train(m, &set, tr, 32, mixed, 8, &tc, &res), AG_SUCCESS);
    assert_int_equal(res.metric, AG_METRIC_ROC_AUC);
    assert_true(res.best_epoch >= 1);
    ag_model_destroy(m);

    /* a validation part without a label: no validation, the last epoch */
    for (int i = 0; i < 8; i++) set.targets[rings[i]] = NAN;
    assert_false(ag_metric_scorable(AG_METRIC_LOSS, &set, rings, 8));
    m = small_model();
    assert_int_equal(ag_model_train(m, &set, tr, 32, rings, 8, &tc, &res), AG_SUCCESS);
    assert_int_equal(res.best_epoch, 6);
    assert_true(isnan(res.best_val_metric));
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_epochs),
        cmocka_unit_test(test_metric_fits_task),
        cmocka_unit_test(test_unscorable_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
