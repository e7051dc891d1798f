/*
 * Argument checks of the lower-level API, found by an audit that called each public function with
 * NULLs, out-of-range values and mismatched sizes under AddressSanitizer: every call below crashed
 * (a NULL dereference, a read past a buffer, a double free) before it returned its error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/api.h>
#include <attngraph/dataset.h>
#include <attngraph/loss.h>
#include <attngraph/metrics.h>
#include <attngraph/modelfile.h>
#include <attngraph/prepare.h>
#include <attngraph/safetensors.h>
#include <attngraph/smooth.h>
#include <attngraph/train.h>
#include "igraph_testutil.h"

static const int ring[] = {0, 1, 1, 2, 2, 3, 3, 0};

/* A default model of 3 input columns and 2 outputs for the task. */
static ag_model_t *task_model(ag_task_t task, int64_t edge_dim) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, task);
    cfg.in_dim = 3;
    cfg.edge_dim = edge_dim;
    cfg.n_out = 2;
    if (edge_dim) cfg.blocks[0].attn.edge_mode = AG_EDGE_KEY;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

/* A malformed CSR is refused by the forward pass's mask, as its doc says, before anything reads
 * through it: offsets that do not end at the entry count or decrease, an edge id past E. */
static void test_malformed_graph(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 4, ring, 4), AG_SUCCESS);
    float X[4 * 3], E[4 * 2], out[4 * 2];
    ag_test_fill_signed(X, 12, 1, 1.0f);
    ag_test_fill_signed(E, 8, 2, 1.0f);
    ag_model_t *m = task_model(AG_TASK_NODE_CLASSIFICATION, 2);
    ag_batch_t b;
    ag_batch_init(&b, &g, X, E);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_SUCCESS);
    ag_batch_destroy(&b);
    const int64_t edge0 = g.edge[0], end = g.indptr[4], first = g.indptr[1];
    g.edge[0] = 100000;
    ag_batch_init(&b, &g, X, E);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "has edge id 100000, not -1 or in 0..3"));
    ag_batch_destroy(&b);
    g.edge[0] = edge0;
    g.indptr[4] = end + 1000;
    ag_batch_init(&b, &g, X, E);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "offsets run from 0 to"));
    ag_batch_destroy(&b);
    g.indptr[4] = end;
    g.indptr[1] = g.indptr[2] + 1; /* decreasing at vertex 1 */
    ag_batch_init(&b, &g, X, E);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "decrease at vertex 1"));
    ag_batch_destroy(&b);
    g.indptr[1] = first;
    ag_batch_init(&b, &g, X, E);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_SUCCESS);
    /* NULL model, output or gradient */
    assert_int_equal(ag_model_forward(NULL, &b, 0, NULL, out), AG_EINVAL);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, NULL), AG_EINVAL);
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    assert_int_equal(ag_model_forward(m, &b, 1, &rng, out), AG_SUCCESS);
    assert_int_equal(ag_model_backward(NULL, &b, out), AG_EINVAL);
    assert_int_equal(ag_model_backward(m, &b, NULL), AG_EINVAL);
    assert_int_equal(ag_model_attention_weights(m, &b, 0, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_model_predict_batch(m, &b, NULL), AG_EINVAL);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&g);
}

/* Names, creation and estimates with NULL arguments. */
static void test_null_arguments(void **state) {
    (void)state;
    ag_metric_t mt;
    ag_task_t t;
    assert_int_equal(ag_metric_from_name(NULL, &mt), AG_EINVAL);
    assert_int_equal(ag_metric_from_name("auto", NULL), AG_EINVAL);
    assert_int_equal(ag_task_from_name(NULL, &t), AG_EINVAL);
    assert_int_equal(ag_task_from_name("graph-regression", NULL), AG_EINVAL);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 3;
    cfg.n_out = 2;
    ag_model_t *m = NULL;
    assert_int_equal(ag_model_create(NULL, &cfg), AG_EINVAL);
    assert_int_equal(ag_model_create(&m, NULL), AG_EINVAL);
    assert_null(m);
    assert_int_equal(ag_model_estimate_memory(&cfg, 1, 1, 1, 0, NULL), AG_EINVAL);
}

/* Training, evaluation and scoring with NULL arguments, and a label that is not a class id. */
static void test_training_arguments(void **state) {
    (void)state;
    ag_graph_t g;
    ag_trainset_t set;
    ag_trainset_init(&set, AG_TASK_NODE_CLASSIFICATION);
    set.n_classes = 2;
    assert_int_equal(ag_trainset_resize(&set, 1, 4, 1), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g, 4, ring, 4), AG_SUCCESS);
    set.examples[0].graph = g;
    assert_int_equal(ag_fmat_init(&set.examples[0].X, 4, 3), AG_SUCCESS);
    ag_test_fill_signed(set.examples[0].X.data, 12, 3, 1.0f);
    for (int i = 0; i < 4; i++) set.targets[i] = (float)(i % 2);
    ag_model_t *m = task_model(AG_TASK_NODE_CLASSIFICATION, 0);
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_NODE_CLASSIFICATION);
    tc.epochs = 2;
    ag_train_result_t res;
    int64_t idx[2] = {0, 1};
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 0, &tc, NULL), AG_EINVAL);
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 0, NULL, &res), AG_EINVAL);
    assert_int_equal(ag_model_train(NULL, &set, idx, 2, NULL, 0, &tc, &res), AG_EINVAL);
    assert_int_equal(ag_model_train(m, &set, NULL, 2, NULL, 0, &tc, &res), AG_EINVAL);
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 1, &tc, &res), AG_EINVAL);
    assert_int_equal(ag_model_train(m, &set, idx, 2, idx, 2, &tc, &res), AG_SUCCESS);
    ag_scores_t sc;
    assert_int_equal(ag_model_evaluate(m, &set, idx, 2, NULL), AG_EINVAL);
    assert_int_equal(ag_model_evaluate(m, &set, NULL, 2, &sc), AG_EINVAL);
    assert_int_equal(ag_model_evaluate(m, NULL, idx, 2, &sc), AG_EINVAL);
    assert_int_equal(ag_model_evaluate(m, &set, idx, 2, &sc), AG_SUCCESS);
    /* probabilities scored against a label outside 0..C-1 (or not an integer) */
    float probs[4 * 2] = {0.9f, 0.1f, 0.2f, 0.8f, 0.5f, 0.5f, 0.3f, 0.7f};
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 2, &sc), AG_SUCCESS);
    assert_float_equal(sc.accuracy, 1.0, 0.0);
    set.targets[1] = 1000.0f;
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 2, &sc), AG_EVALUE);
    assert_string_equal(ag_error_message(), "row 1: label 1000 is not a class id in 0..1");
    set.targets[1] = -5.0f;
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 2, &sc), AG_EVALUE);
    set.targets[1] = 0.5f;
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 2, &sc), AG_EVALUE);
    set.targets[1] = 1.0f;
    assert_int_equal(ag_scores_from_probs(NULL, &set, idx, 2, &sc), AG_EINVAL);
    assert_int_equal(ag_scores_from_probs(probs, NULL, idx, 2, &sc), AG_EINVAL);
    assert_int_equal(ag_scores_from_probs(probs, &set, NULL, 2, &sc), AG_EINVAL);
    assert_int_equal(ag_scores_from_probs(probs, &set, idx, 2, NULL), AG_EINVAL);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

/* A bundle takes ownership of its models: merging a bundle into itself, or adding a model it
 * holds already, would destroy a model twice; a bundle without a model predicts nothing. */
static void test_bundle_ownership(void **state) {
    (void)state;
    ag_bundle_t b;
    assert_int_equal(ag_bundle_load(AG_SOURCE_DIR "/graphs/models/karate.safetensors", &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_merge(&b, &b), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_bundle_merge: a bundle merged into itself");
    assert_int_equal(ag_bundle_add_member(&b, &b.model), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_bundle_add_member: the model is member 0 of the bundle already");
    assert_int_equal(b.n_members, 1);
    igraph_t ig;
    igraph_ring(&ig, 4, IGRAPH_UNDIRECTED, 0, 1);
    ag_fmat_t out = {0};
    assert_int_equal(ag_bundle_predict_graph(&b, &ig, NULL, NULL), AG_EINVAL);
    ag_bundle_destroy(&b);
    ag_bundle_t empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(ag_bundle_predict_graph(&empty, &ig, NULL, &out), AG_EINVAL);
    assert_int_equal(ag_bundle_predict_graph(NULL, &ig, NULL, &out), AG_EINVAL);
    igraph_destroy(&ig);
}

/* ag_label_smooth's igraph arguments: NULL ones are errors, not igraph assertions. */
static void test_smooth_nulls(void **state) {
    (void)state;
    igraph_t ig;
    igraph_ring(&ig, 4, IGRAPH_UNDIRECTED, 0, 1);
    igraph_matrix_t P, R;
    igraph_matrix_init(&P, 4, 2);
    igraph_matrix_fill(&P, 0.5);
    igraph_matrix_init(&R, 0, 0);
    igraph_vector_int_t known;
    igraph_vector_int_init(&known, 4);
    igraph_vector_int_fill(&known, -1);
    VECTOR(known)[0] = 1;
    ag_smooth_config_t cfg;
    ag_smooth_config_init(&cfg);
    assert_int_equal(ag_label_smooth(&ig, &P, &known, &cfg, &R), AG_SUCCESS);
    assert_int_equal(ag_label_smooth(&ig, &P, NULL, &cfg, &R), AG_EINVAL);
    assert_int_equal(ag_label_smooth(&ig, &P, &known, &cfg, NULL), AG_EINVAL);
    assert_int_equal(ag_label_smooth(&ig, NULL, &known, &cfg, &R), AG_EINVAL);
    assert_int_equal(ag_label_smooth(&ig, &P, &known, NULL, &R), AG_EINVAL);
    assert_int_equal(ag_label_smooth(NULL, &P, &known, &cfg, &R), AG_EINVAL);
    float probs[8] = {0};
    assert_int_equal(ag_label_smooth_csr(NULL, probs, 2, NULL, &cfg, probs), AG_EINVAL);
    igraph_vector_int_destroy(&known);
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&R);
    igraph_destroy(&ig);
}

/* A dataset whose target table has fewer rows than it has graphs: an error, not a read past the
 * table. */
static void test_targets_of_other_size(void **state) {
    (void)state;
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv", NULL), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    const int64_t G = ds.n_graphs;
    ds.targets.n_graphs = ds.targets.y.rows = 3;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "the dataset has 28 graphs"));
    ds.targets.n_graphs = ds.targets.y.rows = G;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_SUCCESS);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

/* Loaders with NULL arguments: an error, not a write through NULL or a "(null)" file name. */
static void test_loader_nulls(void **state) {
    (void)state;
    ag_bundle_t b;
    assert_int_equal(ag_bundle_load(NULL, &b), AG_EINVAL);
    assert_int_equal(ag_bundle_load(AG_SOURCE_DIR "/graphs/models/karate.safetensors", NULL), AG_EINVAL);
    assert_int_equal(ag_bundle_from_safetensors(NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_bundle_set_target_column(NULL, "y"), AG_EINVAL);
    assert_int_equal(ag_bundle_featurize(NULL, NULL, NULL, NULL, NULL), AG_EINVAL);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_safetensors_read(NULL, AG_SOURCE_DIR "/graphs/models/karate.safetensors", 0), AG_EINVAL);
    assert_int_equal(ag_dataset_load(NULL, AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv", NULL), AG_EINVAL);
    assert_int_equal(ag_dataset_load_dir(NULL, AG_SOURCE_DIR "/tests/data/mutag-mini/molecules", NULL), AG_EINVAL);
    assert_int_equal(ag_dataset_load_tu(NULL, AG_SOURCE_DIR "/tests/data", NULL), AG_EINVAL);
    /* a NULL name among the graph attributes taken as targets */
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    const char *attrs[1] = {NULL};
    o.graph_attrs = attrs;
    o.n_graph_attrs = 1;
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load_dir(&ds, AG_SOURCE_DIR "/tests/data/mutag-mini/molecules", &o), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "attribute name 0 is NULL"));
}

/* Sizes whose products overflow, and class ids a float32 target cannot hold. */
static void test_size_limits(void **state) {
    (void)state;
    double f1;
    int32_t t[1] = {0}, pr[1] = {0};
    assert_int_equal(ag_metric_macro_f1(t, pr, 1, INT64_MAX / 2, &f1), AG_ELIMIT);
    assert_non_null(strstr(ag_error_message(), "overflow"));
    assert_int_equal(ag_metric_macro_f1(t, pr, 1, 2, &f1), AG_SUCCESS);
    igraph_t ig;
    igraph_ring(&ig, 6, IGRAPH_UNDIRECTED, 0, 1);
    igraph_matrix_t X;
    igraph_matrix_init(&X, 6, 2);
    for (int v = 0; v < 6; v++) MATRIX(X, v, v % 3 == 0) = 1.0; /* not the labels' pattern: a copy is refused */
    igraph_vector_int_t y;
    igraph_vector_int_init_int(&y, 6, 0, 1, 0, 1, -1, (int)(1 << 24));
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.epochs = 1;
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &ig, &X, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "label of vertex 5 is 16777216; class ids are at most 16777215");
    VECTOR(y)[5] = 1;
    assert_int_equal(ag_net_train_nodes(&net, &ig, &X, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    ag_net_destroy(net);
    igraph_vector_int_destroy(&y);
    igraph_matrix_destroy(&X);
    igraph_destroy(&ig);
}

/* Metrics and losses with NULL arrays or outputs; a model configuration with an unknown enum
 * value it does not use. */
static void test_metric_loss_nulls(void **state) {
    (void)state;
    double r, l;
    int32_t t[2] = {0, 1};
    float s[2] = {0.2f, 0.8f}, y[2] = {0.0f, 1.0f};
    assert_int_equal(ag_metric_accuracy(t, t, 2, &r), AG_SUCCESS);
    assert_float_equal(r, 1.0, 0.0);
    assert_int_equal(ag_metric_accuracy(NULL, t, 2, &r), AG_EINVAL);
    assert_int_equal(ag_metric_accuracy(t, t, 2, NULL), AG_EINVAL);
    assert_int_equal(ag_metric_macro_f1(t, NULL, 2, 2, &r), AG_EINVAL);
    assert_int_equal(ag_metric_roc_auc(s, y, 2, &r), AG_SUCCESS);
    assert_float_equal(r, 1.0, 0.0);
    assert_int_equal(ag_metric_roc_auc(NULL, y, 2, &r), AG_EINVAL);
    assert_int_equal(ag_metric_roc_auc_tasks(s, NULL, 2, 1, NULL, &r, NULL), AG_EINVAL);
    assert_int_equal(ag_metric_roc_auc_tasks(s, y, 2, 1, NULL, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_metric_rmse(s, y, 2, NULL), AG_EINVAL);
    assert_int_equal(ag_metric_mae(NULL, y, 2, &r), AG_EINVAL);
    assert_int_equal(ag_loss_cross_entropy(NULL, t, 1, 2, NULL, 1.0f, NULL, &l, NULL), AG_EINVAL);
    assert_int_equal(ag_loss_cross_entropy(s, t, 1, 2, NULL, 1.0f, NULL, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_loss_cross_entropy(s, t, 1, 2, NULL, 1.0f, NULL, &l, NULL), AG_SUCCESS);
    assert_int_equal(ag_loss_bce_logits(s, NULL, 2, 1, NULL, 1.0f, NULL, &l, NULL), AG_EINVAL);
    assert_int_equal(ag_loss_mse(s, y, 2, 1, 1.0f, NULL, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_loss_huber(NULL, y, 2, 1, 1.0, 1.0f, NULL, &l, NULL), AG_EINVAL);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 3;
    cfg.n_out = 2;
    cfg.blocks[0].attn.edge_mode = (ag_edge_mode_t)99; /* no edge features: unused, still refused */
    ag_model_t *m = NULL;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "blocks[0].edge_mode is 99"));
    assert_null(m);
}

/* Preparation, featurisation, graphs, parameters, safetensors and checkpoints with NULL
 * arguments: AG_EINVAL, never a crash (the outputs are still left empty where they exist). */
static void test_preparation_nulls(void **state) {
    (void)state;
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    ag_dataset_t ds;
    memset(&ds, 0, sizeof ds);
    igraph_t ig;
    igraph_ring(&ig, 4, IGRAPH_UNDIRECTED, 0, 1);
    assert_int_equal(ag_prepared_from_graphs(NULL, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_prepared_from_graphs(&p, NULL, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_EINVAL);
    assert_null(p.set.examples);
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, NULL, NULL, 0), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_prepared_from_graphs: NULL dataset or configuration");
    assert_int_equal(ag_prepared_from_graphs_with(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, NULL, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, NULL, NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EINVAL);
    assert_int_equal(ag_prepared_from_nodes(&p, NULL, "y", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EINVAL);
    assert_int_equal(ag_prepared_from_nodes_with(&p, &ig, "y", NULL, NULL, NULL, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_prepared_from_node_values(&p, &ig, "y", NULL, AG_NORM_NONE, NULL), AG_EINVAL);
    assert_int_equal(ag_prepared_from_node_values_with(NULL, &ig, "y", NULL, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_prepared_from_node_values_with(&p, &ig, NULL, NULL, NULL, NULL), AG_EINVAL);
    ag_table_norm_t tn;
    ag_fmat_t A = {0};
    assert_int_equal(ag_table_norm_fit(NULL, &A, AG_NORM_NONE), AG_EINVAL);
    assert_int_equal(ag_table_norm_fit(&tn, NULL, AG_NORM_NONE), AG_EINVAL);
    assert_int_equal(ag_inputs_featurize(NULL, NULL, &ig, NULL, &A, NULL), AG_EINVAL);
    const igraph_t *one[1] = {&ig};
    assert_int_equal(ag_featurizer_fit(NULL, &fc, one, 1), AG_EINVAL);
    ag_featurizer_t f;
    fc.degree_if_featureless = 1;
    assert_int_equal(ag_featurizer_fit(&f, &fc, one, 1), AG_SUCCESS);
    assert_int_equal(ag_inputs_featurize(&f, NULL, &ig, NULL, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_inputs_featurize(&f, NULL, &ig, NULL, &A, NULL), AG_SUCCESS);
    assert_int_equal(A.rows, 4);
    ag_fmat_destroy(&A);
    ag_featurizer_destroy(&f);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(NULL, &ig), AG_EINVAL);
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    const ag_graph_t *gs[1] = {&g};
    assert_int_equal(ag_graph_batch(NULL, gs, 1), AG_EINVAL);
    ag_graph_destroy(&g);
    /* parameters: no list or name, no values for a non-empty tensor; a NULL gradient is allowed */
    ag_param_list_t pl;
    ag_param_list_init(&pl);
    float w[2] = {1.0f, 2.0f};
    assert_int_equal(ag_param_list_add(NULL, "a", "w", 1, 2, 1, w, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_param_list_add(&pl, "a", NULL, 1, 2, 1, w, NULL, 0), AG_EINVAL);
    assert_int_equal(ag_param_list_add(&pl, "a", "w", 1, 2, 1, NULL, NULL, 0), AG_EINVAL);
    assert_string_equal(ag_error_message(), "parameter 'w' has no values");
    assert_int_equal(ag_param_list_add(&pl, "a", "w", 1, 2, 1, w, NULL, 0), AG_SUCCESS);
    ag_safetensors_t file;
    memset(&file, 0, sizeof file);
    assert_int_equal(ag_safetensors_write_params("x.safetensors", NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_safetensors_to_params(NULL, &pl), AG_EINVAL);
    assert_int_equal(ag_safetensors_to_params(&file, NULL), AG_EINVAL);
    assert_int_equal(ag_safetensors_read_params(AG_SOURCE_DIR "/graphs/models/karate.safetensors", NULL, NULL),
                     AG_EINVAL);
    ag_param_list_destroy(&pl);
    /* checkpoints */
    ag_model_t *m = task_model(AG_TASK_NODE_CLASSIFICATION, 0), *got = NULL;
    ag_train_state_t st;
    memset(&st, 0, sizeof st);
    assert_int_equal(ag_train_state_save(NULL, m, &st, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_save("x.safetensors", NULL, &st, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_save("x.safetensors", m, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_load("x.safetensors", m, NULL, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_load(NULL, m, &st, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_load("x.safetensors", NULL, &st, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_open(&file, NULL, &st), AG_EINVAL);
    assert_int_equal(ag_train_state_open(&file, &got, NULL), AG_EINVAL);
    assert_int_equal(ag_train_state_open(&file, &got, &st), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_train_state_open: the file was not read");
    assert_null(got);
    ag_model_destroy(m);
    igraph_destroy(&ig);
}

/* Epochs times steps per epoch, and the warm-up's steps, that overflow int64: AG_ELIMIT before
 * the first step (2 graphs in batches of 1: 2 steps per epoch). The facade caps epochs at 10^8,
 * so only ag_model_train's own callers can get there. */
static void test_step_overflow(void **state) {
    (void)state;
    ag_trainset_t set;
    ag_trainset_init(&set, AG_TASK_GRAPH_CLASSIFICATION);
    set.n_classes = 2;
    assert_int_equal(ag_trainset_resize(&set, 2, 2, 1), AG_SUCCESS);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ag_test_igraph_graph(&set.examples[i].graph, 4, ring, 4 - i), AG_SUCCESS);
        assert_int_equal(ag_fmat_init(&set.examples[i].X, 4, 3), AG_SUCCESS);
        ag_test_fill_signed(set.examples[i].X.data, 12, (uint64_t)i + 5, 1.0f);
        set.targets[i] = (float)i;
    }
    ag_model_t *m = task_model(AG_TASK_GRAPH_CLASSIFICATION, 0);
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.batch_size = 1;
    tc.epochs = INT64_MAX / 2 + 1;
    ag_train_result_t res;
    int64_t idx[2] = {0, 1};
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 0, &tc, &res), AG_ELIMIT);
    assert_non_null(strstr(ag_error_message(), "4611686018427387904 epochs (0 of warm-up) of 2 steps overflow"));
    tc.epochs = 2;
    tc.warmup_epochs = INT64_MAX / 2 + 1;
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 0, &tc, &res), AG_ELIMIT);
    tc.warmup_epochs = 4; /* outlasting the 2 epochs is allowed: the rate never reaches its maximum */
    assert_int_equal(ag_model_train(m, &set, idx, 2, NULL, 0, &tc, &res), AG_SUCCESS);
    assert_int_equal(res.epochs_run, 2);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

int main(void) {
    igraph_set_error_handler(igraph_error_handler_ignore);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_graph),       cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_training_arguments),    cmocka_unit_test(test_bundle_ownership),
        cmocka_unit_test(test_smooth_nulls),          cmocka_unit_test(test_targets_of_other_size),
        cmocka_unit_test(test_loader_nulls),          cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_metric_loss_nulls),     cmocka_unit_test(test_preparation_nulls),
        cmocka_unit_test(test_step_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
