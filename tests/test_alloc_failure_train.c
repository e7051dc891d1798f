/*
 * Allocation-failure injection along the whole life of a model (issue 8): for n = 1, 2, ... the
 * n-th allocation of the library fails (ag_i_alloc_fail_at), and the path must stop with AG_ENOMEM
 * and a message, leave the library's count of live blocks where it was (ag_i_alloc_live: nothing
 * leaked; the ASan and valgrind runs of this test check the same independently) and no temporary
 * file behind; once n passes the path's last allocation, the path succeeds with exactly the
 * results of a run without injection.
 *
 * The path, as `attn-graph train --labels ... -o` then `attn-graph predict` run it: a labels table
 * naming four tiny GML molecules, written by the test (ag_dataset_load) -> featuriser fitted and
 * every molecule featurised, with degree and random-walk PE columns (ag_prepared_from_graphs) -> a
 * one-block model with edge features and attention readout (ag_model_create) -> two epochs of
 * training with validation and a checkpoint after every epoch (ag_model_train, ag_train_state_save) ->
 * the bundle saved (ag_bundle_init, ag_bundle_save) -> loaded back (ag_bundle_load) -> one
 * molecule predicted with the loaded bundle (ag_bundle_predict_graph), which must equal the
 * prediction of the trained bundle.
 *
 * A second path runs node classification through the igraph-style facade (api.h), as a C program
 * using the library would: a six-vertex GML graph written by the test (ag_graph_read) -> labels from
 * a vertex attribute (ag_labels_from_attr) -> a GAT-preset model trained with a feature matrix,
 * standardised, and degree columns (ag_net_train_nodes) -> saved (ag_net_save) -> loaded
 * (ag_net_load) -> every vertex predicted (ag_net_predict_nodes) and the first block's attention
 * weights (ag_net_attention), which must equal those of the trained handle.
 *
 * igraph allocates with its own allocator (GML reader, attribute handler, igraph vectors), so its
 * allocations are not injected: this test covers the library's own. One thread (the allocation
 * counter is shared, and a failure in a parallel region must still be reported).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/api.h>
#include <attngraph/labels.h>
#include <attngraph/dataset.h>
#include <attngraph/model.h>
#include <attngraph/modelfile.h>
#include <attngraph/prepare.h>
#include <attngraph/train.h>

void ag_i_alloc_fail_at(int64_t n);
int64_t ag_i_alloc_live(void);

#define N_GRAPHS 4
#define N_CLASSES 2

static char dir[64];
static char labels_path[128], labels_mt_path[128], labels_reg_path[128], model_path[128], ckpt_path[128];
static char graph_path[128], net_path[128];
static const char *const kept[] = {"labels.csv", "labels_mt.csv", "labels_reg.csv", "m0.gml", "m1.gml", "m2.gml", "m3.gml", "model.safetensors",
                                   "train.ckpt", "six.gml", "net.safetensors"};

/* A hexagon with one chord; `club` is the class (vertex 5 unlabelled: NaN), `kind` a string feature. */
#define N_NODES 6
#define N_LINKS 7
static const char *const six =
    "graph [ directed 0\n"
    "  node [ id 0 club 0 kind \"a\" ] node [ id 1 club 0 kind \"b\" ] node [ id 2 club 1 kind \"a\" ]\n"
    "  node [ id 3 club 1 kind \"c\" ] node [ id 4 club 0 kind \"b\" ] node [ id 5 kind \"a\" ]\n"
    "  edge [ source 0 target 1 ] edge [ source 1 target 2 ] edge [ source 2 target 3 ] edge [ source 3 target 4 ]\n"
    "  edge [ source 4 target 5 ] edge [ source 5 target 0 ] edge [ source 1 target 4 ] ]\n";


/* Four molecules: two atoms, a chain of three, a triangle, two atoms with a charge. */
static const char *const molecules[N_GRAPHS] = {
    "graph [ directed 0\n"
    "  node [ id 0 element \"C\" charge 0 ] node [ id 1 element \"O\" charge 0 ]\n"
    "  edge [ source 0 target 1 bond_type \"DOUBLE\" ] ]\n",
    "graph [ directed 0\n"
    "  node [ id 0 element \"C\" charge 0 ] node [ id 1 element \"C\" charge 0 ] node [ id 2 element \"N\" charge 0 ]\n"
    "  edge [ source 0 target 1 bond_type \"SINGLE\" ] edge [ source 1 target 2 bond_type \"SINGLE\" ] ]\n",
    "graph [ directed 0\n"
    "  node [ id 0 element \"C\" charge 0 ] node [ id 1 element \"C\" charge 0 ] node [ id 2 element \"O\" charge 0 ]\n"
    "  edge [ source 0 target 1 bond_type \"SINGLE\" ] edge [ source 1 target 2 bond_type \"SINGLE\" ]\n"
    "  edge [ source 2 target 0 bond_type \"DOUBLE\" ] ]\n",
    "graph [ directed 0\n"
    "  node [ id 0 element \"N\" charge 1 ] node [ id 1 element \"O\" charge -1 ]\n"
    "  edge [ source 0 target 1 bond_type \"SINGLE\" ] ]\n",
};

/* What a successful run produced, compared with the run without injection. */
typedef struct result_t {
    int64_t n_graphs, n_features, n_edge_features, n_out;
    int64_t epochs_run, best_epoch;
    int64_t checkpoints;
    float trained[N_CLASSES];  /* (1 x C) prediction of molecule 3 by the trained bundle */
    float loaded[N_CLASSES];   /* the same by the bundle loaded back */
    char target_column[16];
} result_t;

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ag_allocfail_train_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(labels_path, sizeof labels_path, "%s/labels.csv", dir);
    snprintf(model_path, sizeof model_path, "%s/model.safetensors", dir);
    snprintf(ckpt_path, sizeof ckpt_path, "%s/train.ckpt", dir);
    for (int g = 0; g < N_GRAPHS; g++) {
        char p[160];
        snprintf(p, sizeof p, "%s/m%d.gml", dir, g);
        write_file(p, molecules[g]);
    }
    write_file(labels_path, "file,label\nm0.gml,1\nm1.gml,0\nm2.gml,1\nm3.gml,0\n");
    /* two binary tasks with missing labels (masked in the loss), and one numeric target */
    snprintf(labels_mt_path, sizeof labels_mt_path, "%s/labels_mt.csv", dir);
    snprintf(labels_reg_path, sizeof labels_reg_path, "%s/labels_reg.csv", dir);
    write_file(labels_mt_path, "file,tox_a,tox_b\nm0.gml,1,\nm1.gml,0,1\nm2.gml,,0\nm3.gml,1,1\n");
    write_file(labels_reg_path, "file,logp\nm0.gml,0.5\nm1.gml,-1.25\nm2.gml,2.0\nm3.gml,0.75\n");
    snprintf(graph_path, sizeof graph_path, "%s/six.gml", dir);
    snprintf(net_path, sizeof net_path, "%s/net.safetensors", dir);
    write_file(graph_path, six);
    ag_threads_set(1);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/%s", dir, kept[i]);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}

/* Files in the folder that the path does not keep: a failed atomic write must leave none. */
static int stray_files(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) known |= !strcmp(e->d_name, kept[i]);
        if (!known) {
            print_message("stray file %s\n", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* The checkpoint callback of a training run: writes the state after every epoch. */
static ag_error_t checkpoint(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    int64_t *count = user;
    ag_error_t rc = ag_train_state_save(ckpt_path, model, st, NULL);
    if (rc == AG_SUCCESS) (*count)++;
    return rc;
}

static void tiny_model_config(ag_model_config_t *mc, const ag_prepared_t *p, ag_task_t task) {
    ag_model_config_default(mc, task);
    mc->hidden = 4;
    mc->n_blocks = 1;
    mc->blocks[0].attn.heads = 2;
    mc->blocks[0].attn.head_dim = 2;
    mc->blocks[0].attn.out_dim = 4;
    mc->blocks[0].attn.edge_mode = AG_EDGE_KEY;
    mc->blocks[0].ffn_hidden = 8;
    mc->head_hidden = 4;
    mc->readouts[0] = AG_READOUT_ATTENTION;
    mc->in_dim = p->featurizer.n_features;
    mc->edge_dim = p->featurizer.n_edge_features;
    mc->n_out = p->n_out;
    mc->seed = 5;
}

/* Runs the whole path; returns the first error. Every object is destroyed at the end whatever
 * happened, so a run that returns must leave the live-block count unchanged. */
static ag_error_t run_path(result_t *out, ag_task_t task, const char *labels) {
    ag_error_t rc;
    ag_dataset_t ds;
    ag_prepared_t p;
    ag_model_t *model = NULL;
    ag_bundle_t b, back;
    ag_fmat_t y1 = {0}, y2 = {0};
    memset(out, 0, sizeof *out);
    memset(&ds, 0, sizeof ds);
    memset(&p, 0, sizeof p);
    memset(&b, 0, sizeof b);
    memset(&back, 0, sizeof back);

    if ((rc = ag_dataset_load(&ds, labels, NULL)) != AG_SUCCESS) goto done;
    out->n_graphs = ds.n_graphs;

    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    fc.rw_pe_k = 2;
    fc.norm = AG_NORM_STANDARDIZE;
    const int64_t train[] = {0, 1, 2}, val[] = {3};
    if ((rc = ag_prepared_from_graphs(&p, &ds, task, &fc, train, 3)) != AG_SUCCESS) goto done;
    out->n_features = p.featurizer.n_features;
    out->n_edge_features = p.featurizer.n_edge_features;
    out->n_out = p.n_out;

    ag_model_config_t mc;
    tiny_model_config(&mc, &p, task);
    if ((rc = ag_model_create(&model, &mc)) != AG_SUCCESS) goto done;

    ag_train_config_t tc;
    ag_train_config_default(&tc, task);
    tc.epochs = 2;
    tc.batch_size = 2;
    tc.patience = 0;
    tc.seed = 11;
    tc.checkpoint = checkpoint;
    tc.checkpoint_user = &out->checkpoints;
    tc.checkpoint_every = 1;
    ag_train_result_t res;
    if ((rc = ag_model_train(model, &p.set, train, 3, val, 1, &tc, &res)) != AG_SUCCESS) goto done;
    out->epochs_run = res.epochs_run;
    out->best_epoch = res.best_epoch;

    if ((rc = ag_bundle_init(&b, &model, &p.featurizer, &p.table, (const char *const *)p.names, p.n_out, NULL)) !=
        AG_SUCCESS)
        goto done;
    if (task == AG_TASK_GRAPH_CLASSIFICATION && (rc = ag_bundle_set_target_column(&b, "label")) != AG_SUCCESS)
        goto done;
    if ((rc = ag_bundle_save(model_path, &b)) != AG_SUCCESS) goto done;
    if ((rc = ag_bundle_predict_graph(&b, &ds.graphs[3], NULL, &y1)) != AG_SUCCESS) goto done;
    assert_true(y1.rows * y1.cols == out->n_out && out->n_out <= N_CLASSES);
    memcpy(out->trained, y1.data, (size_t)out->n_out * sizeof(float));

    if ((rc = ag_bundle_load(model_path, &back)) != AG_SUCCESS) goto done;
    snprintf(out->target_column, sizeof out->target_column, "%s", back.target_column ? back.target_column : "");
    if ((rc = ag_bundle_predict_graph(&back, &ds.graphs[3], NULL, &y2)) != AG_SUCCESS) goto done;
    assert_true(y2.rows * y2.cols == out->n_out);
    memcpy(out->loaded, y2.data, (size_t)out->n_out * sizeof(float));

done:
    ag_fmat_destroy(&y2);
    ag_fmat_destroy(&y1);
    ag_bundle_destroy(&back);
    ag_bundle_destroy(&b);
    ag_model_destroy(model); /* NULL once the bundle took it */
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
    return rc;
}

/* Fails every allocation of run_path(task, labels) once; returns the path's allocation count. */
static int64_t fail_each(ag_task_t task, const char *labels, const result_t *want) {
    result_t got;
    const int64_t live0 = ag_i_alloc_live();
    int64_t n;
    for (n = 1; n < 200000; n++) {
        unlink(model_path);
        unlink(ckpt_path);
        ag_error_clear();
        ag_i_alloc_fail_at(n);
        ag_error_t rc = run_path(&got, task, labels);
        ag_i_alloc_fail_at(0);
        if (ag_i_alloc_live() != live0)
            fail_msg("allocation %lld: %lld blocks leaked (%s)", (long long)n, (long long)(ag_i_alloc_live() - live0),
                     rc == AG_SUCCESS ? "the run succeeded" : ag_error_message());
        assert_int_equal(stray_files(), 0);
        if (rc == AG_SUCCESS) break;
        if (rc != AG_ENOMEM) fail_msg("allocation %lld: %s: %s", (long long)n, ag_error_name(rc), ag_error_message());
        assert_int_equal(ag_error_code(), AG_ENOMEM);
        assert_true(ag_error_message()[0] != '\0');
    }
    assert_memory_equal(&got, want, sizeof *want);
    return n - 1;
}

static void test_every_allocation_fails_once(void **state) {
    (void)state;
    result_t want;
    const int64_t live0 = ag_i_alloc_live();
    assert_int_equal(run_path(&want, AG_TASK_GRAPH_CLASSIFICATION, labels_path), AG_SUCCESS);
    if (ag_i_alloc_live() != live0) fail_msg("%lld blocks leaked by a whole run", (long long)(ag_i_alloc_live() - live0));
    /* the reference run went through every stage */
    assert_int_equal(want.n_graphs, N_GRAPHS);
    /* element C,N,O + <other> (4), charge (1), degree (1), rw_pe (2) */
    assert_int_equal(want.n_features, 8);
    assert_int_equal(want.n_edge_features, 3); /* bond_type DOUBLE, SINGLE, <other> */
    assert_int_equal(want.n_out, N_CLASSES);
    assert_int_equal(want.epochs_run, 2);
    assert_true(want.best_epoch >= 1 && want.best_epoch <= 2);
    assert_int_equal(want.checkpoints, 2);
    assert_float_equal(want.trained[0] + want.trained[1], 1.0f, 1e-6f);
    assert_true(want.trained[0] > 0.0f && want.trained[1] > 0.0f);
    assert_memory_equal(want.loaded, want.trained, sizeof want.trained);
    assert_string_equal(want.target_column, "label");
    assert_int_equal(stray_files(), 0);

    int64_t n = fail_each(AG_TASK_GRAPH_CLASSIFICATION, labels_path, &want);
    /* the whole path allocates hundreds of times, and the run after its last allocation is whole */
    assert_true(n > 200);
    print_message("load-train-save-predict path: %lld allocations, each failed once\n", (long long)n);
}

/* The same path with the multi-task head (two binary tasks, missing labels masked) and the
 * regression head (standardised target, scaling stored in the bundle). */
static void test_multitask_and_regression_heads(void **state) {
    (void)state;
    static const struct {
        ag_task_t task;
        const char *labels;
        int64_t n_out;
    } heads[] = {{AG_TASK_GRAPH_MULTITASK, labels_mt_path, 2}, {AG_TASK_GRAPH_REGRESSION, labels_reg_path, 1}};
    for (int h = 0; h < 2; h++) {
        result_t want;
        const int64_t live0 = ag_i_alloc_live();
        if (run_path(&want, heads[h].task, heads[h].labels) != AG_SUCCESS) fail_msg("%s", ag_error_message());
        if (ag_i_alloc_live() != live0) fail_msg("%lld blocks leaked", (long long)(ag_i_alloc_live() - live0));
        assert_int_equal(want.n_graphs, N_GRAPHS);
        assert_int_equal(want.n_features, 8);
        assert_int_equal(want.n_out, heads[h].n_out);
        assert_int_equal(want.epochs_run, 2);
        assert_int_equal(want.checkpoints, 2);
        assert_string_equal(want.target_column, "");
        for (int64_t k = 0; k < want.n_out; k++) {
            if (heads[h].task == AG_TASK_GRAPH_MULTITASK) /* one probability per task */
                assert_true(want.trained[k] > 0.0f && want.trained[k] < 1.0f);
            else /* back in the target's units: near the training targets' mean (0.417) after 2 epochs */
                assert_true(want.trained[k] > -1.25f && want.trained[k] < 2.0f);
        }
        assert_memory_equal(want.loaded, want.trained, sizeof want.trained);
        int64_t n = fail_each(heads[h].task, heads[h].labels, &want);
        assert_true(n > 200);
        print_message("%s head: %lld allocations, each failed once\n",
                      heads[h].task == AG_TASK_GRAPH_MULTITASK ? "multi-task" : "regression", (long long)n);
    }
}

/* What the facade path produced. */
typedef struct node_result_t {
    int64_t n_classes, n_inputs, epochs_run;
    igraph_integer_t labels[N_NODES];
    double probs[N_NODES * 2];                 /* (N x C) trained handle */
    double probs_loaded[N_NODES * 2];          /* (N x C) loaded handle */
    double alpha[N_LINKS * 8], alpha_loaded[N_LINKS * 8]; /* (E x H), GAT preset: 8 heads in block 0 */
    int64_t alpha_size;
} node_result_t;

static void copy_matrix(double *dst, size_t cap, const igraph_matrix_t *m) {
    size_t n = (size_t)igraph_matrix_size(m);
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) dst[i] = VECTOR(m->data)[i];
}

/* The facade path. The igraph containers are the caller's (igraph's allocations are not
 * injected); every library object is freed at the end whatever happened. */
static ag_error_t run_nodes(node_result_t *out, igraph_matrix_t *features, igraph_vector_int_t *y,
                            igraph_vector_int_t *pred, igraph_matrix_t *probs, igraph_matrix_t *alpha) {
    ag_error_t rc;
    igraph_t ig;
    int have_ig = 0;
    ag_labels_t lab;
    ag_net_t *net = NULL, *back = NULL;
    memset(out, 0, sizeof *out);
    memset(&lab, 0, sizeof lab);
    if ((rc = ag_graph_read(&ig, graph_path, AG_FORMAT_AUTO, 0)) != AG_SUCCESS) goto done;
    have_ig = 1;
    if ((rc = ag_labels_from_attr(&lab, &ig, "club", NULL, 0)) != AG_SUCCESS) goto done;
    out->n_classes = lab.n_classes;
    assert_int_equal(igraph_vector_int_resize(y, N_NODES), IGRAPH_SUCCESS);
    for (int v = 0; v < N_NODES; v++) VECTOR(*y)[v] = lab.y[v];

    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.preset = "gat";
    o.exclude_attrs = "club"; /* the labels, passed as a vector */
    o.epochs = 2;
    o.degree = 1;
    o.normalize = "standard";
    o.threads = 1;
    o.seed = 3;
    ag_train_result_t res;
    if ((rc = ag_net_train_nodes(&net, &ig, features, y, NULL, NULL, &o, &res)) != AG_SUCCESS) goto done;
    out->epochs_run = res.epochs_run;
    out->n_inputs = ag_net_n_inputs(net);
    if ((rc = ag_net_predict_nodes(net, &ig, features, pred, probs)) != AG_SUCCESS) goto done;
    copy_matrix(out->probs, N_NODES * 2, probs);
    if ((rc = ag_net_attention(net, &ig, features, 0, alpha, NULL, NULL)) != AG_SUCCESS) goto done;
    copy_matrix(out->alpha, N_LINKS * 8, alpha);
    out->alpha_size = igraph_matrix_size(alpha);
    if ((rc = ag_net_save(net, net_path)) != AG_SUCCESS) goto done;
    if ((rc = ag_net_load(&back, net_path)) != AG_SUCCESS) goto done;
    if ((rc = ag_net_predict_nodes(back, &ig, features, pred, probs)) != AG_SUCCESS) goto done;
    copy_matrix(out->probs_loaded, N_NODES * 2, probs);
    for (int v = 0; v < N_NODES; v++) out->labels[v] = VECTOR(*pred)[v];
    if ((rc = ag_net_attention(back, &ig, features, 0, alpha, NULL, NULL)) != AG_SUCCESS) goto done;
    copy_matrix(out->alpha_loaded, N_LINKS * 8, alpha);
done:
    ag_net_destroy(back);
    ag_net_destroy(net);
    ag_labels_destroy(&lab);
    if (have_ig) igraph_destroy(&ig);
    return rc;
}

static void test_node_facade_every_allocation_fails_once(void **state) {
    (void)state;
    igraph_matrix_t features, probs, alpha;
    igraph_vector_int_t y, pred;
    assert_int_equal(igraph_matrix_init(&features, N_NODES, 2), IGRAPH_SUCCESS);
    for (int v = 0; v < N_NODES; v++) {
        MATRIX(features, v, 0) = v * 0.5;
        MATRIX(features, v, 1) = (v % 3) - 1.0;
    }
    assert_int_equal(igraph_matrix_init(&probs, 0, 0), IGRAPH_SUCCESS);
    assert_int_equal(igraph_matrix_init(&alpha, 0, 0), IGRAPH_SUCCESS);
    assert_int_equal(igraph_vector_int_init(&y, 0), IGRAPH_SUCCESS);
    assert_int_equal(igraph_vector_int_init(&pred, 0), IGRAPH_SUCCESS);

    node_result_t want, got;
    const int64_t live0 = ag_i_alloc_live();
    if (run_nodes(&want, &features, &y, &pred, &probs, &alpha) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    if (ag_i_alloc_live() != live0) fail_msg("%lld blocks leaked by a whole run", (long long)(ag_i_alloc_live() - live0));
    assert_int_equal(want.n_classes, 2);
    assert_int_equal(want.epochs_run, 2);
    /* kind a, b, c + <other> (4), degree (1), the feature matrix (2) */
    assert_int_equal(want.n_inputs, 7);
    assert_int_equal(want.alpha_size, N_LINKS * 8);
    for (int v = 0; v < N_NODES; v++) {
        assert_float_equal(want.probs[v] + want.probs[N_NODES + v], 1.0, 1e-6); /* column-major N x C */
        assert_int_equal(want.labels[v], want.probs[N_NODES + v] > want.probs[v] ? 1 : 0);
    }
    assert_memory_equal(want.probs_loaded, want.probs, sizeof want.probs);
    assert_memory_equal(want.alpha_loaded, want.alpha, sizeof want.alpha);

    int64_t n;
    for (n = 1; n < 200000; n++) {
        unlink(net_path);
        ag_error_clear();
        ag_i_alloc_fail_at(n);
        ag_error_t rc = run_nodes(&got, &features, &y, &pred, &probs, &alpha);
        ag_i_alloc_fail_at(0);
        if (ag_i_alloc_live() != live0)
            fail_msg("allocation %lld: %lld blocks leaked (%s)", (long long)n, (long long)(ag_i_alloc_live() - live0),
                     rc == AG_SUCCESS ? "the run succeeded" : ag_error_message());
        assert_int_equal(stray_files(), 0);
        if (rc == AG_SUCCESS) break;
        if (rc != AG_ENOMEM) fail_msg("allocation %lld: %s: %s", (long long)n, ag_error_name(rc), ag_error_message());
        assert_int_equal(ag_error_code(), AG_ENOMEM);
        assert_true(ag_error_message()[0] != '\0');
    }
    assert_true(n > 100);
    assert_memory_equal(&got, &want, sizeof want);
    print_message("node facade path: %lld allocations, each failed once\n", (long long)(n - 1));
    igraph_vector_int_destroy(&pred);
    igraph_vector_int_destroy(&y);
    igraph_matrix_destroy(&alpha);
    igraph_matrix_destroy(&probs);
    igraph_matrix_destroy(&features);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_once),
        cmocka_unit_test(test_multitask_and_regression_heads),
        cmocka_unit_test(test_node_facade_every_allocation_fails_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
