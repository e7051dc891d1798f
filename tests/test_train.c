/* Tests of training: small problems with known answers (so the test fails if learning breaks),
 * determinism across runs and thread counts, and error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/train.h>

/* Two planted communities of 40 nodes (stochastic block model); each node's 4 features are its
 * community's signature buried in noise twice its size, so a node alone is often misread and its
 * neighbourhood is needed. */
static void make_sbm(ag_trainset_t *set) {
    igraph_t ig;
    igraph_matrix_t pref;
    igraph_vector_int_t sizes;
    igraph_rng_seed(igraph_rng_default(), 7);
    igraph_matrix_init(&pref, 2, 2);
    MATRIX(pref, 0, 0) = MATRIX(pref, 1, 1) = 0.25;
    MATRIX(pref, 0, 1) = MATRIX(pref, 1, 0) = 0.01;
    igraph_vector_int_init(&sizes, 2);
    VECTOR(sizes)[0] = VECTOR(sizes)[1] = 40;
    assert_int_equal(igraph_sbm_game(&ig, 80, &pref, &sizes, IGRAPH_UNDIRECTED, 0), IGRAPH_SUCCESS);
    ag_trainset_init(set, AG_TASK_NODE_CLASSIFICATION);
    set->n_classes = 2;
    assert_int_equal(ag_trainset_resize(set, 1, 80, 1), AG_SUCCESS);
    ag_example_t *ex = &set->examples[0];
    assert_int_equal(ag_graph_from_igraph(&ex->graph, &ig), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&ex->X, 80, 4), AG_SUCCESS);
    for (int i = 0; i < 80; i++) {
        int cls = i >= 40;
        set->targets[i] = (float)cls;
        for (int f = 0; f < 4; f++) {
            float signal = (f % 2 == cls) ? 1.0f : -1.0f;
            ex->X.data[i * 4 + f] = signal + 2.0f * ag_rng_normal(11, 0, (uint64_t)(i * 4 + f));
        }
    }
    igraph_destroy(&ig);
    igraph_matrix_destroy(&pref);
    igraph_vector_int_destroy(&sizes);
}

static ag_model_t *node_model(ag_task_t task, int64_t n_out) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, task);
    cfg.in_dim = 4;
    cfg.n_out = n_out;
    cfg.hidden = 16;
    cfg.n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].attn.heads = 2;
        cfg.blocks[l].attn.head_dim = 8;
        cfg.blocks[l].attn.out_dim = 16;
        cfg.blocks[l].ffn_hidden = 16;
    }
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

static ag_model_t *small_node_model(void) { return node_model(AG_TASK_NODE_CLASSIFICATION, 2); }

static void test_sbm_communities_are_learned(void **state) {
    (void)state;
    ag_trainset_t set;
    make_sbm(&set);
    /* 5 labelled nodes per community, 10 for validation, the other 60 for testing */
    int64_t tr[10], va[10], te[60];
    int nt = 0, nv = 0, ns = 0;
    for (int i = 0; i < 80; i++) {
        int k = i % 40;
        if (k < 5) tr[nt++] = i;
        else if (k < 10) va[nv++] = i;
        else te[ns++] = i;
    }
    ag_model_t *m = small_node_model();
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    tc.optim.lr = 0.01f;
    tc.epochs = 100;
    tc.patience = 0;
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, &set, tr, nt, va, nv, &tc, &res), AG_SUCCESS);
    assert_int_equal(res.epochs_run, 100);
    assert_true(res.best_epoch >= 1);
    ag_scores_t sc;
    assert_int_equal(ag_model_evaluate(m, &set, te, ns, &sc), AG_SUCCESS);
    assert_int_equal(sc.n, 60);
    /* a node's own features alone give about 76% (signal 1, noise sd 2, 4 features); the graph
     * lifts it well above */
    if (sc.accuracy < 0.9) fail_msg("SBM test accuracy %.3f < 0.9", sc.accuracy);
    float prob[2 * 60];
    assert_int_equal(ag_model_predict(m, &set, te, ns, prob), AG_SUCCESS);
    for (int i = 0; i < 60; i++) assert_float_equal(prob[2 * i] + prob[2 * i + 1], 1.0f, 1e-5f);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

/* Rings and paths of 5..12 nodes with one feature, the degree: a ring has no degree-1 node. The
 * target is column 0 of T (the others NaN). */
static void make_rings_and_paths_of(ag_trainset_t *set, ag_task_t task, int64_t T) {
    int G = 48;
    ag_trainset_init(set, task);
    set->n_classes = task == AG_TASK_GRAPH_CLASSIFICATION ? 2 : 0;
    assert_int_equal(ag_trainset_resize(set, G, G, T), AG_SUCCESS);
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
        set->targets[g * T] = task == AG_TASK_GRAPH_CLASSIFICATION ? (float)ring : (float)n;
        igraph_destroy(&ig);
    }
}

static void make_rings_and_paths(ag_trainset_t *set, ag_task_t task) { make_rings_and_paths_of(set, task, 1); }

static ag_model_t *small_graph_model(ag_task_t task, int64_t n_out, ag_readout_kind_t ro) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, task);
    cfg.in_dim = 2;
    cfg.n_out = n_out;
    cfg.hidden = 16;
    cfg.n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].attn.heads = 2;
        cfg.blocks[l].attn.head_dim = 8;
        cfg.blocks[l].attn.out_dim = 16;
        cfg.blocks[l].ffn_hidden = 16;
        cfg.blocks[l].dropout = 0.0f;
        cfg.blocks[l].ffn_dropout = 0.0f;
    }
    cfg.readouts[0] = ro;
    cfg.head_hidden = 16;
    cfg.head_dropout = 0.0f;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

/* The weights of a model after training, flattened (malloc'ed). */
static float *weights_of(const ag_model_t *m, int64_t *count) {
    const ag_param_list_t *p = ag_model_params(m);
    *count = ag_param_list_size(p);
    float *w = malloc((size_t)*count * sizeof(float)), *o = w;
    for (int64_t i = 0; i < p->count; i++) {
        size_t n = (size_t)(p->items[i].shape[0] * p->items[i].shape[1]);
        memcpy(o, p->items[i].value, n * sizeof(float));
        o += n;
    }
    return w;
}

/* Rings versus paths trained on 32 graphs, column 1 sign-flipped in training or not: the test
 * scores on the other 16, and the weights. */
static float *rings_run(ag_trainset_t *set, int64_t flip_cols, int64_t epochs, ag_scores_t *sc, int64_t *count) {
    int64_t tr[32], te[16];
    for (int i = 0; i < 32; i++) tr[i] = i;
    for (int i = 0; i < 16; i++) te[i] = 32 + i;
    ag_model_t *m = small_graph_model(AG_TASK_GRAPH_CLASSIFICATION, 2, AG_READOUT_SUM);
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.optim.lr = 0.01f;
    tc.epochs = epochs;
    tc.batch_size = 8;
    tc.flip_col0 = 1;
    tc.flip_cols = flip_cols;
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, set, tr, 32, NULL, 0, &tc, &res), AG_SUCCESS);
    assert_int_equal(ag_model_evaluate(m, set, te, 16, sc), AG_SUCCESS);
    float *w = weights_of(m, count);
    ag_model_destroy(m);
    return w;
}

static void test_rings_versus_paths(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings_and_paths(&set, AG_TASK_GRAPH_CLASSIFICATION);
    ag_scores_t sc;
    int64_t n;
    free(rings_run(&set, 0, 60, &sc, &n));
    if (sc.accuracy < 0.99) fail_msg("rings vs paths accuracy %.3f", sc.accuracy);
    assert_true(sc.roc_auc > 0.99);
    ag_trainset_destroy(&set);
}

/* The node count is learned with the mean squared error and with the Huber loss (which then gives
 * other weights: the loss is the one trained on). */
static void test_regression_counts_nodes(void **state) {
    (void)state;
    float *first = NULL;
    int64_t n_first = 0;
    for (int huber = 0; huber < 2; huber++) {
        ag_trainset_t set;
        make_rings_and_paths(&set, AG_TASK_GRAPH_REGRESSION);
        int64_t tr[40], te[8];
        for (int i = 0; i < 40; i++) tr[i] = i;
        for (int i = 0; i < 8; i++) te[i] = 40 + i;
        ag_model_t *m = small_graph_model(AG_TASK_GRAPH_REGRESSION, 1, AG_READOUT_SUM);
        ag_train_config_t tc;
        ag_train_config_default(&tc, AG_TASK_GRAPH_REGRESSION);
        tc.optim.lr = 0.01f;
        tc.epochs = 150;
        tc.batch_size = 8;
        tc.huber_delta = huber ? 0.5f : 0.0f;
        ag_train_result_t res;
        assert_int_equal(ag_model_train(m, &set, tr, 40, NULL, 0, &tc, &res), AG_SUCCESS);
        int64_t n_w;
        float *w = weights_of(m, &n_w);
        if (!first) {
            first = w;
            n_first = n_w;
        } else {
            assert_int_equal(n_w, n_first);
            assert_true(memcmp(w, first, (size_t)n_w * sizeof(float)) != 0);
            free(w);
            free(first);
        }
        /* the target scaling is fitted on the training rows: sizes 5..12 */
        const float *mean, *sd;
        ag_model_target_scaling(m, &mean, &sd);
        assert_true(mean[0] > 7.0f && mean[0] < 10.0f);
        assert_true(sd[0] > 1.5f && sd[0] < 3.0f);
        ag_scores_t sc;
        assert_int_equal(ag_model_evaluate(m, &set, te, 8, &sc), AG_SUCCESS);
        /* predicting the mean would give an RMSE of about 2.3 */
        if (sc.rmse > 0.8) fail_msg("node-count RMSE %.3f > 0.8", sc.rmse);
        float pred[8];
        assert_int_equal(ag_model_predict(m, &set, te, 8, pred), AG_SUCCESS);
        for (int i = 0; i < 8; i++) assert_float_equal(pred[i], set.targets[te[i]], 1.6f);
        ag_model_destroy(m);
        ag_trainset_destroy(&set);
    }
}

/* The SBM set with a training and a validation list of 20 nodes each (every fourth node). */
static void make_sbm_split(ag_trainset_t *set, int64_t tr[20], int64_t va[20]) {
    make_sbm(set);
    for (int i = 0; i < 20; i++) {
        tr[i] = 4 * i;
        va[i] = 4 * i + 1;
    }
}

/* Trains the SBM model briefly and returns all its weights. */
/* The weights (count of them) of small_node_model() trained by tc on the planted-partition split. */
static float *sbm_weights(const ag_train_config_t *tc, ag_train_result_t *res, int64_t *count) {
    ag_trainset_t set;
    int64_t tr[20], va[20];
    make_sbm_split(&set, tr, va);
    ag_model_t *m = small_node_model();
    assert_int_equal(ag_model_train(m, &set, tr, 20, va, 20, tc, res), AG_SUCCESS);
    float *w = weights_of(m, count);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
    return w;
}

static float *train_weights(int threads, int64_t *count) {
    ag_threads_set(threads);
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    tc.epochs = 8;
    tc.seed = 5;
    ag_train_result_t res;
    float *w = sbm_weights(&tc, &res, count);
    ag_threads_set(0);
    return w;
}

/* Trains m for 2 epochs on the first n rows and returns what the result says of constant targets:
 * the count, and the first in *first. */
static int64_t constant_targets(ag_model_t *m, const ag_trainset_t *set, int64_t n, int64_t *first) {
    int64_t tr[80];
    for (int64_t i = 0; i < n; i++) tr[i] = i;
    ag_train_config_t tc;
    ag_train_config_default(&tc, set->task);
    tc.epochs = 2;
    tc.batch_size = 8;
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, set, tr, n, NULL, 0, &tc, &res), AG_SUCCESS);
    *first = res.first_constant_target;
    return res.constant_targets;
}

/* Regression targets of one value on every training example that has one are trained all the
 * same (nothing to learn: the scaling keeps deviation 1) and said in the result, for graph and
 * node tasks alike; targets that vary on the training rows, and other tasks, say nothing. */
static void test_constant_targets(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings_and_paths_of(&set, AG_TASK_GRAPH_REGRESSION, 2);
    /* column 1: 2 on every training graph that has a value (graph 3 has none), 9 on the others */
    for (int g = 0; g < 48; g++) set.targets[g * 2 + 1] = g >= 40 ? 9.0f : g == 3 ? NAN : 2.0f;
    ag_model_t *m = small_graph_model(AG_TASK_GRAPH_REGRESSION, 2, AG_READOUT_SUM);
    int64_t first;
    assert_int_equal(constant_targets(m, &set, 40, &first), 1);
    assert_int_equal(first, 1);
    const float *mean, *sd;
    ag_model_target_scaling(m, &mean, &sd);
    assert_true(mean[1] == 2.0f && sd[1] == 1.0f);
    assert_true(sd[0] > 1.5f); /* the node count varies */
    /* one training graph is one value of each */
    assert_int_equal(constant_targets(m, &set, 1, &first), 2);
    assert_int_equal(first, 0);
    for (int g = 0; g < 48; g++) set.targets[g * 2] = -0.5f;
    assert_int_equal(constant_targets(m, &set, 40, &first), 2);
    assert_int_equal(first, 0);
    for (int g = 0; g < 48; g++) set.targets[g * 2] = set.targets[g * 2 + 1] = (float)(g % 3);
    assert_int_equal(constant_targets(m, &set, 40, &first), 0);
    assert_int_equal(first, -1);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
    /* node regression: 3.5 on every labelled training vertex */
    make_sbm(&set);
    set.task = AG_TASK_NODE_REGRESSION;
    set.n_classes = 0;
    for (int i = 0; i < 80; i++) set.targets[i] = i % 2 ? 3.5f : NAN;
    m = node_model(AG_TASK_NODE_REGRESSION, 1);
    assert_int_equal(constant_targets(m, &set, 40, &first), 1);
    assert_int_equal(first, 0);
    ag_model_target_scaling(m, &mean, &sd);
    assert_true(mean[0] == 3.5f && sd[0] == 1.0f);
    set.targets[79] = 4.0f; /* not a training vertex */
    assert_int_equal(constant_targets(m, &set, 40, &first), 1);
    set.targets[7] = 4.0f;
    assert_int_equal(constant_targets(m, &set, 40, &first), 0);
    assert_int_equal(first, -1);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
    /* classification has no scaling: nothing said, whatever the classes */
    make_sbm(&set);
    m = small_node_model();
    assert_int_equal(constant_targets(m, &set, 40, &first), 0);
    assert_int_equal(first, -1);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

static void test_training_is_deterministic(void **state) {
    (void)state;
    int64_t n1, n2, n3;
    float *a = train_weights(1, &n1), *b = train_weights(2, &n2), *c = train_weights(2, &n3);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, (size_t)n1 * sizeof(float));
    assert_memory_equal(b, c, (size_t)n1 * sizeof(float));
    free(a);
    free(b);
    free(c);
}

/* Sign flipping (Laplacian columns): it changes training and only training, the same way every
 * run; a column of zeros flipped is no change at all (the models here have no dropout, the only
 * other user of the random stream); columns outside the inputs are refused. */
static void test_sign_flip(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings_and_paths(&set, AG_TASK_GRAPH_CLASSIFICATION);
    int64_t total = 0;
    for (int64_t g = 0; g < set.n_examples; g++) total += set.examples[g].X.rows * 2;
    float *before = malloc((size_t)total * sizeof(float));
    for (int64_t g = 0, o = 0; g < set.n_examples; o += set.examples[g].X.rows * 2, g++)
        memcpy(before + o, set.examples[g].X.data, (size_t)(set.examples[g].X.rows * 2) * sizeof(float));
    ag_scores_t s1, s2, s3;
    int64_t n1, n2, n3;
    /* the degree column still decides: learning goes on with a column of random sign */
    free(rings_run(&set, 1, 60, &s2, &n2));
    if (s2.accuracy < 0.99) fail_msg("rings vs paths with a flipped column: accuracy %.3f", s2.accuracy);
    /* the flips change the weights from the first epoch on, the same way every run: a few epochs
     * show it (the full 60 cost minutes under valgrind) */
    float *plain = rings_run(&set, 0, 5, &s1, &n1), *flip = rings_run(&set, 1, 5, &s2, &n2),
          *again = rings_run(&set, 1, 5, &s3, &n3);
    assert_int_equal(n1, n2);
    assert_int_equal(n2, n3);
    assert_memory_equal(flip, again, (size_t)n2 * sizeof(float));
    assert_true(memcmp(plain, flip, (size_t)n1 * sizeof(float)) != 0);
    for (int64_t g = 0, o = 0; g < set.n_examples; o += set.examples[g].X.rows * 2, g++)
        assert_memory_equal(set.examples[g].X.data, before + o, (size_t)(set.examples[g].X.rows * 2) * sizeof(float));
    free(plain);
    free(flip);
    free(again);
    /* zeros in column 1: flipped or not, the same weights bit for bit */
    for (int64_t g = 0; g < set.n_examples; g++)
        for (int64_t v = 0; v < set.examples[g].X.rows; v++) set.examples[g].X.data[2 * v + 1] = 0.0f;
    plain = rings_run(&set, 0, 5, &s1, &n1);
    flip = rings_run(&set, 1, 5, &s2, &n2);
    assert_memory_equal(plain, flip, (size_t)n1 * sizeof(float));
    free(plain);
    free(flip);
    free(before);
    /* out of range */
    ag_model_t *m = small_graph_model(AG_TASK_GRAPH_CLASSIFICATION, 2, AG_READOUT_SUM);
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.flip_col0 = 1;
    tc.flip_cols = 2;
    int64_t tr[1] = {0};
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, &set, tr, 1, NULL, 0, &tc, &res), AG_EINVAL);
    assert_string_equal(ag_error_message(), "sign-flip columns 1 + 2 are not within the 2 input columns");
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

/* The default node-classification training configuration, for `epochs` epochs. */
static ag_train_config_t node_config(int64_t epochs) {
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    tc.epochs = epochs;
    return tc;
}

/* Node tasks flip the whole graph's column, on a copy: the set keeps its features, and the
 * result is the same every run. */
static void test_sign_flip_nodes(void **state) {
    (void)state;
    ag_trainset_t set;
    make_sbm(&set);
    float before[80 * 4];
    memcpy(before, set.examples[0].X.data, sizeof before);
    int64_t tr[20];
    for (int i = 0; i < 20; i++) tr[i] = 4 * i;
    float *w[3];
    int64_t n[3];
    for (int r = 0; r < 3; r++) {
        ag_model_t *m = small_node_model();
        ag_train_config_t tc = node_config(5);
        tc.flip_col0 = 2;
        tc.flip_cols = r == 0 ? 0 : 2;
        ag_train_result_t res;
        assert_int_equal(ag_model_train(m, &set, tr, 20, NULL, 0, &tc, &res), AG_SUCCESS);
        w[r] = weights_of(m, &n[r]);
        ag_model_destroy(m);
    }
    assert_memory_equal(set.examples[0].X.data, before, sizeof before);
    assert_true(memcmp(w[0], w[1], (size_t)n[0] * sizeof(float)) != 0);
    assert_memory_equal(w[1], w[2], (size_t)n[1] * sizeof(float));
    for (int r = 0; r < 3; r++) free(w[r]);
    ag_trainset_destroy(&set);
}

/* What check_epoch_metrics() compares a node task's epoch log with. */
typedef struct epoch_check_t {
    ag_model_t *model;
    const ag_trainset_t *set;
    const int64_t *tr, *va; /* (20) each */
    ag_metric_t metric;
    int eval_train;
    int64_t calls;
} epoch_check_t;

/* The logged metrics of an epoch are ag_model_evaluate()'s on the weights the epoch ended with,
 * bit for bit: the one evaluation pass that scores both parts is the pass each evaluation runs. */
static void check_epoch_metrics(const ag_epoch_log_t *log, void *user) {
    epoch_check_t *e = user;
    ag_scores_t sc;
    assert_int_equal(ag_model_evaluate(e->model, e->set, e->va, 20, &sc), AG_SUCCESS);
    double want = ag_scores_get(&sc, e->metric, AG_TASK_NODE_CLASSIFICATION);
    assert_false(isnan(want));
    assert_memory_equal(&log->val_metric, &want, sizeof want);
    if (e->eval_train) {
        assert_int_equal(ag_model_evaluate(e->model, e->set, e->tr, 20, &sc), AG_SUCCESS);
        want = ag_scores_get(&sc, e->metric, AG_TASK_NODE_CLASSIFICATION);
        assert_false(isnan(want));
        assert_memory_equal(&log->train_metric, &want, sizeof want);
    } else {
        assert_true(isnan(log->train_metric));
    }
    e->calls++;
}

/* Node tasks, with and without the training metric and with sign flipping (which trains on
 * flipped features but scores the set's own): every epoch's logged training and validation
 * metrics, the loss (which any change in the outputs moves) and the accuracy. */
static void test_node_epoch_metrics(void **state) {
    (void)state;
    ag_trainset_t set;
    int64_t tr[20], va[20];
    make_sbm_split(&set, tr, va);
    static const ag_metric_t metrics[] = {AG_METRIC_LOSS, AG_METRIC_ACCURACY, AG_METRIC_LOSS, AG_METRIC_LOSS};
    for (int r = 0; r < 4; r++) {
        ag_model_t *m = small_node_model();
        ag_train_config_t tc = node_config(6);
        tc.patience = 0;
        tc.optim.lr = 0.01f;
        tc.metric = metrics[r];
        tc.eval_train = r != 2;
        if (r == 3) {
            tc.flip_col0 = 1;
            tc.flip_cols = 2;
        }
        epoch_check_t e = {m, &set, tr, va, metrics[r], tc.eval_train, 0};
        tc.progress = check_epoch_metrics;
        tc.progress_user = &e;
        ag_train_result_t res;
        assert_int_equal(ag_model_train(m, &set, tr, 20, va, 20, &tc, &res), AG_SUCCESS);
        assert_int_equal(e.calls, 6);
        ag_model_destroy(m);
    }
    ag_trainset_destroy(&set);
}

static void test_training_errors(void **state) {
    (void)state;
    ag_trainset_t set;
    make_sbm(&set);
    ag_model_t *m = small_node_model();
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    ag_train_result_t res;
    int64_t bad[1] = {80}, ok[1] = {0};
    assert_int_equal(ag_model_train(m, &set, bad, 1, NULL, 0, &tc, &res), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "training index 80 is out of range"));
    assert_int_equal(ag_model_train(m, &set, ok, 0, NULL, 0, &tc, &res), AG_EINVAL);
    set.targets[0] = 5.0f; /* class 5 of 2 */
    tc.epochs = 1;
    assert_int_equal(ag_model_train(m, &set, ok, 1, NULL, 0, &tc, &res), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "class 5"));
    set.task = AG_TASK_GRAPH_CLASSIFICATION;
    assert_int_equal(ag_model_train(m, &set, ok, 1, NULL, 0, &tc, &res), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "the data are for graph-classification"));
    set.task = AG_TASK_NODE_CLASSIFICATION;
    tc.huber_delta = 1.0f;
    assert_int_equal(ag_model_train(m, &set, ok, 1, NULL, 0, &tc, &res), AG_EINVAL);
    assert_string_equal(ag_error_message(), "the Huber loss is for regression, not node-classification");
    tc.huber_delta = -1.0f;
    assert_int_equal(ag_model_train(m, &set, ok, 1, NULL, 0, &tc, &res), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "Huber delta -1 must be a finite number >= 0"));
    tc.huber_delta = NAN;
    assert_int_equal(ag_model_train(m, &set, ok, 1, NULL, 0, &tc, &res), AG_EINVAL);
    tc.huber_delta = 0.0f;
    /* training rows without a label: refused, not trained to NaN weights */
    int64_t two[2] = {0, 1};
    float kept[2] = {set.targets[0], set.targets[1]};
    set.targets[0] = set.targets[1] = NAN;
    assert_int_equal(ag_trainset_count_labelled(&set, two, 2), 0);
    int64_t three[3] = {0, 1, 2};
    assert_int_equal(ag_trainset_count_labelled(&set, three, 3), 1);
    assert_int_equal(ag_model_train(m, &set, two, 2, NULL, 0, &tc, &res), AG_EVALUE);
    assert_string_equal(ag_error_message(), "none of the 2 training vertices has a label or target");
    assert_int_equal(ag_model_train(m, &set, two, 1, NULL, 0, &tc, &res), AG_EVALUE);
    assert_string_equal(ag_error_message(), "none of the 1 training vertex has a label or target");
    set.targets[1] = 1.0f; /* one of them labelled: trains */
    assert_int_equal(ag_model_train(m, &set, two, 2, NULL, 0, &tc, &res), AG_SUCCESS);
    set.targets[0] = kept[0];
    set.targets[1] = kept[1];
    ag_metric_t mt;
    assert_int_equal(ag_metric_from_name("roc_auc", &mt), AG_SUCCESS);
    assert_int_equal(mt, AG_METRIC_ROC_AUC);
    assert_int_equal(ag_metric_from_name("bogus", &mt), AG_EINVAL);
    /* a small labelled validation part makes AUTO the loss for classification only; a metric
     * given, an empty part, a part of AG_SMALL_VALIDATION, multi-task and regression keep theirs */
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_NODE_CLASSIFICATION, 1), AG_METRIC_LOSS);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_NODE_CLASSIFICATION, AG_SMALL_VALIDATION - 1),
                     AG_METRIC_LOSS);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_NODE_CLASSIFICATION, AG_SMALL_VALIDATION),
                     AG_METRIC_AUTO);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_NODE_CLASSIFICATION, 0), AG_METRIC_AUTO);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_ACCURACY, AG_TASK_NODE_CLASSIFICATION, 9), AG_METRIC_ACCURACY);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_NODE_REGRESSION, 9), AG_METRIC_AUTO);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_GRAPH_CLASSIFICATION, 9), AG_METRIC_LOSS);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_GRAPH_CLASSIFICATION, 100), AG_METRIC_AUTO);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_GRAPH_MULTITASK, 9), AG_METRIC_LOSS);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_GRAPH_MULTITASK, 100), AG_METRIC_AUTO);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_ROC_AUC, AG_TASK_GRAPH_MULTITASK, 9), AG_METRIC_ROC_AUC);
    assert_int_equal(ag_metric_for_validation(AG_METRIC_AUTO, AG_TASK_GRAPH_REGRESSION, 9), AG_METRIC_AUTO);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

/* A progress callback that raises the stop flag after a given epoch. */
typedef struct stop_at_t {
    int64_t epoch;
    volatile sig_atomic_t flag;
    int64_t calls;
} stop_at_t;

static void stop_after(const ag_epoch_log_t *log, void *user) {
    stop_at_t *s = user;
    s->calls++;
    if (log->epoch == s->epoch) s->flag = 1;
}

/* Trains the SBM model (validation on) for `epochs` epochs, stopped after epoch `stop_epoch` (0:
 * never; -1: before the call); returns its weights and the result. */
static float *stop_run(int64_t epochs, int64_t stop_epoch, int64_t min_epochs, ag_train_result_t *res,
                       int64_t *count, int64_t *calls) {
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    tc.epochs = epochs;
    tc.patience = 0;
    tc.min_epochs = min_epochs;
    tc.optim.lr = 0.01f;
    tc.metric = AG_METRIC_LOSS;
    stop_at_t s = {stop_epoch, stop_epoch < 0, 0};
    tc.progress = stop_after;
    tc.progress_user = &s;
    if (stop_epoch) tc.stop = &s.flag;
    float *w = sbm_weights(&tc, res, count);
    *calls = s.calls;
    return w;
}

/* The stop flag ends a run between epochs with the best weights so far: exactly the weights of a
 * run configured for that many epochs. */
static void test_stop_flag(void **state) {
    (void)state;
    ag_train_result_t full, cut, none, early;
    int64_t n1, n2, n3, n4, n5, calls;
    float *w_full = stop_run(6, 0, 0, &full, &n1, &calls);
    assert_int_equal(full.stopped, 0);
    assert_int_equal(full.epochs_run, 6);
    float *w_cut = stop_run(40, 6, 0, &cut, &n2, &calls);
    assert_int_equal(cut.stopped, 1);
    assert_int_equal(cut.epochs_run, 6);
    assert_int_equal(calls, 6); /* the progress line of the last epoch, then no more */
    assert_int_equal(cut.best_epoch, full.best_epoch);
    assert_true(cut.best_epoch >= 1);
    assert_int_equal(n1, n2);
    assert_memory_equal(w_full, w_cut, (size_t)n1 * sizeof(float));
    assert_true(cut.best_val_metric == full.best_val_metric);
    /* before min_epochs nothing is kept yet: the epoch the flag ends is, as a run's last epoch */
    ag_train_result_t short_run;
    int64_t n6;
    float *w_short = stop_run(3, 0, 10, &short_run, &n6, &calls);
    assert_int_equal(short_run.best_epoch, 3);
    float *w_early = stop_run(40, 3, 10, &early, &n4, &calls);
    assert_int_equal(early.stopped, 1);
    assert_int_equal(early.epochs_run, 3);
    assert_int_equal(early.best_epoch, 3);
    assert_memory_equal(w_short, w_early, (size_t)n1 * sizeof(float));
    assert_true(early.best_val_metric == short_run.best_val_metric);
    /* a flag raised before the call: no epoch, the initial weights */
    float *w_none = stop_run(40, -1, 0, &none, &n3, &calls);
    assert_int_equal(none.stopped, 1);
    assert_int_equal(none.epochs_run, 0);
    assert_int_equal(none.best_epoch, 0);
    assert_int_equal(calls, 0);
    ag_model_t *m = small_node_model();
    float *w_init = weights_of(m, &n5);
    ag_model_destroy(m);
    assert_memory_equal(w_none, w_init, (size_t)n1 * sizeof(float));
    assert_true(memcmp(w_none, w_full, (size_t)n1 * sizeof(float)) != 0);
    free(w_full);
    free(w_cut);
    free(w_short);
    free(w_early);
    free(w_none);
    free(w_init);
}

/* ag_model_predict reads only the set's inputs, so it checks those: a set built for another model is an
 * error, not a read past its features. */
static void test_predict_errors(void **state) {
    (void)state;
    ag_trainset_t set;
    make_sbm(&set);
    ag_model_t *m = small_node_model();
    int64_t idx[2] = {0, 79};
    float out[4];
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_SUCCESS);
    for (int i = 0; i < 2; i++) assert_float_equal(out[2 * i] + out[2 * i + 1], 1.0f, 1e-5f);
    /* features 3 wide for a model of 4 inputs */
    set.examples[0].X.cols = 3;
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "graph 0 has 80 x 3 node features; the model expects 80 x 4");
    set.examples[0].X.cols = 4;
    /* the targets are not read: a prediction set may have none */
    set.n_cols = 0;
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_SUCCESS);
    set.n_cols = 1;
    set.task = AG_TASK_NODE_REGRESSION;
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the data are for node-regression and the model is for node-classification");
    set.task = AG_TASK_NODE_CLASSIFICATION;
    set.n_examples = 0; /* a node task reads examples[0] */
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "a node task needs exactly one graph, not 0");
    set.n_examples = 1;
    /* scoring a set that does not fit the model is bad data (the program's eval: exit 3), not a bad
     * argument: task, target rows and columns, as the features' shapes */
    ag_scores_t sc;
    set.task = AG_TASK_NODE_REGRESSION;
    assert_int_equal(ag_model_evaluate(m, &set, idx, 2, &sc), AG_EMISMATCH);
    set.task = AG_TASK_NODE_CLASSIFICATION;
    set.n_rows = 79;
    assert_int_equal(ag_model_evaluate(m, &set, idx, 1, &sc), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "79 target rows for 80 nodes");
    set.n_rows = 80;
    set.n_cols = 2;
    assert_int_equal(ag_model_evaluate(m, &set, idx, 2, &sc), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the targets have 2 columns and the model expects 1");
    set.n_cols = 1;
    assert_int_equal(ag_model_evaluate(m, &set, idx, 2, &sc), AG_SUCCESS);
    assert_int_equal(ag_model_predict(m, NULL, idx, 2, out), AG_EINVAL);
    assert_int_equal(ag_model_predict(NULL, &set, idx, 2, out), AG_EINVAL);
    assert_int_equal(ag_model_predict(m, &set, NULL, 2, out), AG_EINVAL);
    assert_int_equal(ag_model_predict(m, &set, idx, 2, NULL), AG_EINVAL);
    int64_t bad[1] = {80};
    assert_int_equal(ag_model_predict(m, &set, bad, 1, out), AG_EINVAL);
    assert_string_equal(ag_error_message(), "prediction index 80 is out of range (0..79)");
    /* negative sizes are invalid arguments and leave the set as it was */
    assert_int_equal(ag_trainset_resize(&set, -1, 80, 1), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "a training set of -1 examples and 80 x 1 targets: sizes must not be negative");
    assert_int_equal(ag_trainset_resize(&set, 1, 80, -1), AG_EINVAL);
    assert_int_equal(set.n_rows, 80);
    assert_int_equal(ag_model_predict(m, &set, idx, 2, out), AG_SUCCESS);
    assert_int_equal(ag_trainset_resize(NULL, 1, 1, 1), AG_EINVAL);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

int main(void) {
    igraph_set_error_handler(igraph_error_handler_ignore);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbm_communities_are_learned),
        cmocka_unit_test(test_rings_versus_paths),
        cmocka_unit_test(test_regression_counts_nodes),
        cmocka_unit_test(test_constant_targets),
        cmocka_unit_test(test_training_is_deterministic),
        cmocka_unit_test(test_sign_flip),
        cmocka_unit_test(test_sign_flip_nodes),
        cmocka_unit_test(test_node_epoch_metrics),
        cmocka_unit_test(test_training_errors),
        cmocka_unit_test(test_predict_errors),
        cmocka_unit_test(test_stop_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
