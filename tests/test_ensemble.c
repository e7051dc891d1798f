/* Tests of ensembles (k models of one architecture, seeds apart, on the same featurised data):
 * the prediction is the mean of the members' raw outputs (checked against each member's own
 * predictions), evaluation scores exactly those predictions, one member is exactly the single
 * model, the file round trip is bit-identical, a one-model file is still version 1, and every
 * mismatched member or damaged members record is refused with a message saying which. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/modelfile.h>
#include <attngraph/prepare.h>
#include <attngraph/safetensors.h>
#include "modelfile_testutil.h"

void ag_i_alloc_fail_at(int64_t n);

#define K 3

static char path[64], path2[80];

static int setup(void **state) {
    (void)state;
    return ag_test_temp_pair(path, sizeof path, path2, sizeof path2, "ens");
}

static int teardown(void **state) {
    (void)state;
    unlink(path);
    unlink(path2);
    return 0;
}

static void mutag_dataset(ag_dataset_t *ds) {
    assert_int_equal(ag_dataset_load(ds, AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv", NULL), AG_SUCCESS);
}

static void prepare(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task, int rw_pe) {
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.norm = AG_NORM_STANDARDIZE;
    fc.rw_pe_k = rw_pe;
    assert_int_equal(ag_prepared_from_graphs(p, ds, task, &fc, NULL, 0), AG_SUCCESS);
}

/* A small model for p; regression gets a non-trivial target scaling, shared by every seed. */
static ag_model_t *small_model(const ag_prepared_t *p, ag_task_t task, uint64_t seed, int64_t hidden) {
    ag_model_config_t mc;
    ag_model_config_default(&mc, task);
    mc.hidden = hidden;
    mc.n_blocks = 1;
    mc.blocks[0].attn.heads = 2;
    mc.blocks[0].attn.head_dim = hidden / 2;
    mc.blocks[0].attn.out_dim = hidden;
    mc.blocks[0].attn.edge_mode = AG_EDGE_KEY;
    mc.blocks[0].ffn_hidden = 2 * hidden;
    mc.head_hidden = hidden;
    mc.readouts[0] = AG_READOUT_ATTENTION;
    /* from the data: the featuriser may have moved into a bundle */
    mc.in_dim = p->set.examples[0].X.cols;
    mc.edge_dim = p->set.examples[0].E.cols;
    mc.n_out = p->n_out;
    mc.seed = seed;
    ag_model_t *m;
    if (ag_model_create(&m, &mc) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    if (task == AG_TASK_GRAPH_REGRESSION) {
        float mean[2] = {-3.25f, 1.5f}, sd[2] = {2.125f, 0.75f}; /* (n_out <= 2) */
        assert_true(mc.n_out <= 2);
        assert_int_equal(ag_model_set_target_scaling(m, mean, sd), AG_SUCCESS);
    }
    return m;
}

/* An ensemble of K members (seeds 11, 12, 13) in a bundle; p keeps the training set. */
static void ensemble_bundle(ag_bundle_t *b, ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task) {
    prepare(p, ds, task, 3);
    ag_model_t *m = small_model(p, task, 11, 16);
    /* the bundle takes the featuriser; p keeps the data it made */
    assert_int_equal(ag_bundle_init(b, &m, &p->featurizer, &p->table, (const char *const *)p->names, p->n_out, NULL),
                     AG_SUCCESS);
    for (int k = 1; k < K; k++) {
        ag_model_t *x = small_model(p, task, 11 + (uint64_t)k, 16);
        assert_int_equal(ag_bundle_add_member(b, &x), AG_SUCCESS);
        assert_null(x);
    }
    assert_int_equal(b->n_members, K);
    assert_ptr_equal(b->members[0], b->model);
}

static void batch_of(ag_batch_t *batch, const ag_prepared_t *p, int64_t g) {
    const ag_example_t *ex = &p->set.examples[g];
    ag_batch_init(batch, &ex->graph, ex->X.data, ex->E.data);
}

/* Regression: the ensemble's value is the mean of the members' values (the scaling is linear).
 * Classification: the ensemble's log-odds log(p1/p0) is the mean of the members' log-odds
 * (softmax of the mean logits). */
static void test_prediction_is_the_members_mean(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_task_t tasks[2] = {AG_TASK_GRAPH_REGRESSION, AG_TASK_GRAPH_CLASSIFICATION};
    for (int k = 0; k < 2; k++) {
        ag_bundle_t b;
        ag_prepared_t p;
        ensemble_bundle(&b, &p, &ds, tasks[k]);
        int64_t C = p.n_out;
        double spread = 0;
        for (int64_t g = 0; g < ds.n_graphs; g++) {
            float ye[2], ym[K][2]; /* (C <= 2) */
            ag_batch_t batch;
            batch_of(&batch, &p, g);
            for (int m = 0; m < K; m++)
                assert_int_equal(ag_model_predict_batch(b.members[m], &batch, ym[m]), AG_SUCCESS);
            assert_int_equal(ag_bundle_predict_batch(&b, &batch, ye), AG_SUCCESS);
            ag_batch_destroy(&batch);
            if (tasks[k] == AG_TASK_GRAPH_REGRESSION) {
                double mean = (ym[0][0] + ym[1][0] + ym[2][0]) / 3.0;
                assert_float_equal(ye[0], mean, 1e-5 * (1 + fabs(mean)));
                spread += fabs(ym[0][0] - ym[1][0]);
            } else {
                assert_int_equal(C, 2);
                double lo = 0;
                for (int m = 0; m < K; m++) lo += log((double)ym[m][1] / ym[m][0]) / K;
                assert_float_equal(log((double)ye[1] / ye[0]), lo, 1e-4);
                assert_float_equal(ye[0] + ye[1], 1.0, 1e-6);
                spread += fabs(ym[0][1] - ym[1][1]);
            }
        }
        /* the members differ, or the test could not tell a mean from one member */
        assert_true(spread > 1e-3);
        ag_bundle_destroy(&b);
        ag_prepared_destroy(&p);
    }
    ag_dataset_destroy(&ds);
}

/* Evaluation scores exactly what prediction gives; an ensemble of one model, or of one model twice,
 * is that model bit for bit. */
static void test_evaluation(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &ds, AG_TASK_GRAPH_REGRESSION);
    int64_t n = ds.n_graphs, idx[64];
    assert_true(n <= 64);
    double se = 0;
    for (int64_t g = 0; g < n; g++) {
        idx[g] = g;
        float y;
        ag_batch_t batch;
        batch_of(&batch, &p, g);
        assert_int_equal(ag_bundle_predict_batch(&b, &batch, &y), AG_SUCCESS);
        ag_batch_destroy(&batch);
        double d = (double)y - p.set.targets[g];
        se += d * d;
    }
    ag_scores_t s, s1, s2;
    assert_int_equal(ag_bundle_evaluate(&b, &p.set, idx, n, &s), AG_SUCCESS);
    assert_int_equal(s.n, n);
    assert_float_equal(s.rmse, sqrt(se / (double)n), 1e-5);

    ag_model_t *twice[2] = {b.members[1], b.members[1]};
    assert_int_equal(ag_model_evaluate(b.members[1], &p.set, idx, n, &s1), AG_SUCCESS);
    assert_int_equal(ag_ensemble_evaluate(twice, 2, &p.set, idx, n, &s2), AG_SUCCESS);
    assert_memory_equal(&s1.rmse, &s2.rmse, sizeof(double));
    assert_memory_equal(&s1.loss, &s2.loss, sizeof(double));
    assert_int_equal(ag_ensemble_evaluate(twice, 1, &p.set, idx, n, &s2), AG_SUCCESS);
    assert_memory_equal(&s1.mae, &s2.mae, sizeof(double));
    /* three members are not one of them */
    assert_true(fabs(s.rmse - s1.rmse) > 1e-6);

    assert_int_equal(ag_ensemble_evaluate(twice, 0, &p.set, idx, n, &s2), AG_EINVAL);
    assert_msg_contains("at least one model");
    ag_model_t *holes[2] = {b.members[0], NULL};
    assert_int_equal(ag_ensemble_evaluate(holes, 2, &p.set, idx, n, &s2), AG_EINVAL);
    assert_msg_contains("member 1 is NULL");
    ag_batch_t batch;
    batch_of(&batch, &p, 0);
    float y;
    assert_int_equal(ag_ensemble_predict_batch(holes, 2, &batch, &y), AG_EINVAL);
    ag_batch_destroy(&batch);
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

/* mutag-mini's molecules with the targets a task's figures are checked on, written to path2:
 * multi-task: the label; its opposite on two rows in three; 1 on three rows in four (one class:
 * no ROC-AUC). Regression: a value from the label and the row, and the vertex count on four rows
 * in five. Missing is an empty cell. */
static void tasks_table(const ag_dataset_t *ds, ag_task_t task) {
    FILE *f = fopen(path2, "w");
    assert_non_null(f);
    fputs(task == AG_TASK_GRAPH_MULTITASK ? "file,label,opposite,ones\n" : "file,value,size\n", f);
    for (int64_t g = 0; g < ds->n_graphs; g++) {
        int y = (int)ds->targets.y.data[g];
        fprintf(f, "%s/tests/data/mutag-mini/%s,", AG_SOURCE_DIR, ds->files[g]);
        if (task == AG_TASK_GRAPH_MULTITASK) {
            fprintf(f, "%d,", y);
            if (g % 3) fprintf(f, "%d", 1 - y);
            fputs(g % 4 ? ",1\n" : ",\n", f);
        } else {
            fprintf(f, "%.2f,", 2.5 * y - 0.1 * (double)g);
            if (g % 5) fprintf(f, "%d", (int)igraph_vcount(&ds->graphs[g]));
            fputc('\n', f);
        }
    }
    assert_int_equal(fclose(f), 0);
}

/* Each task's figures of an ensemble are those of its own column of the ensemble's predictions,
 * over the rows where it is present; the figures over all tasks are their combination (the mean
 * ROC-AUC over the tasks that have one; the loss and squared error weighted by each task's rows).
 * A classification model has one task, its scores. */
static void test_per_task_figures(void **state) {
    (void)state;
    ag_dataset_t mini;
    mutag_dataset(&mini);
    ag_task_t tasks[2] = {AG_TASK_GRAPH_MULTITASK, AG_TASK_GRAPH_REGRESSION};
    for (int k = 0; k < 2; k++) {
        tasks_table(&mini, tasks[k]);
        ag_dataset_t ds;
        assert_int_equal(ag_dataset_load(&ds, path2, NULL), AG_SUCCESS);
        ag_bundle_t b;
        ag_prepared_t p;
        ensemble_bundle(&b, &p, &ds, tasks[k]);
        const int64_t G = ds.n_graphs, T = tasks[k] == AG_TASK_GRAPH_MULTITASK ? 3 : 2;
        assert_int_equal(ag_model_n_tasks(b.model), T);
        int64_t idx[64];
        float y[64][3]; /* (G x T) the ensemble's predictions */
        assert_true(G <= 64);
        for (int64_t g = 0; g < G; g++) {
            idx[g] = g;
            ag_batch_t batch;
            batch_of(&batch, &p, g);
            assert_int_equal(ag_bundle_predict_batch(&b, &batch, y[g]), AG_SUCCESS);
            ag_batch_destroy(&batch);
        }
        ag_scores_t all, per[3];
        assert_int_equal(ag_bundle_evaluate_tasks(&b, &p.set, idx, G, &all, per), AG_SUCCESS);
        int64_t n_sum = 0, defined = 0;
        double auc_sum = 0, loss_sum = 0, se_sum = 0;
        for (int64_t j = 0; j < T; j++) {
            float col[64], truth[64]; /* (G) task j's predictions and targets */
            int64_t present = 0;
            double se = 0, ae = 0;
            for (int64_t g = 0; g < G; g++) {
                col[g] = y[g][j];
                truth[g] = p.set.targets[g * T + j];
                if (isnan(truth[g])) continue;
                present++;
                se += ((double)col[g] - truth[g]) * ((double)col[g] - truth[g]);
                ae += fabs((double)col[g] - truth[g]);
            }
            assert_int_equal(per[j].n, present);
            assert_true(isfinite(per[j].loss) && per[j].loss > 0);
            n_sum += present;
            loss_sum += per[j].loss * (double)present;
            if (tasks[k] == AG_TASK_GRAPH_MULTITASK) {
                double auc;
                assert_int_equal(ag_metric_roc_auc(col, truth, G, &auc), AG_SUCCESS);
                if (j == 2) {
                    assert_true(isnan(per[j].roc_auc)); /* the task of ones */
                } else {
                    assert_float_equal(per[j].roc_auc, auc, 1e-12);
                    auc_sum += auc;
                    defined++;
                }
                assert_true(isnan(per[j].rmse));
            } else {
                assert_float_equal(per[j].rmse, sqrt(se / (double)present), 1e-5 * (1 + per[j].rmse));
                assert_float_equal(per[j].mae, ae / (double)present, 1e-5 * (1 + per[j].mae));
                se_sum += se;
                assert_true(isnan(per[j].roc_auc));
            }
        }
        assert_int_equal(all.n, n_sum);
        assert_float_equal(all.loss, loss_sum / (double)n_sum, 1e-6 * (1 + all.loss));
        if (tasks[k] == AG_TASK_GRAPH_MULTITASK) {
            assert_int_equal(defined, 2);
            assert_float_equal(all.roc_auc, auc_sum / 2.0, 1e-12);
        } else {
            assert_float_equal(all.rmse, sqrt(se_sum / (double)n_sum), 1e-5 * (1 + all.rmse));
        }
        /* the figures over all tasks are ag_bundle_evaluate()'s, bit for bit */
        ag_scores_t plain;
        assert_int_equal(ag_bundle_evaluate(&b, &p.set, idx, G, &plain), AG_SUCCESS);
        assert_memory_equal(&plain, &all, sizeof plain);
        ag_bundle_destroy(&b);
        ag_prepared_destroy(&p);
        ag_dataset_destroy(&ds);
    }

    ag_bundle_t b;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &mini, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(ag_model_n_tasks(b.model), 1);
    int64_t idx[3] = {0, 1, 2};
    ag_scores_t all, one;
    assert_int_equal(ag_bundle_evaluate_tasks(&b, &p.set, idx, 3, &all, &one), AG_SUCCESS);
    assert_memory_equal(&all, &one, sizeof all);
    assert_int_equal(ag_bundle_evaluate_tasks(NULL, &p.set, idx, 3, &all, &one), AG_EINVAL);
    assert_msg_contains("no model");
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&mini);
}

static void metadata_of(const char *file, const char *key, char *out, size_t cap) {
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, file, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    const char *v = ag_metadata_get(&f.metadata, key);
    snprintf(out, cap, "%s", v ? v : "(none)");
    ag_safetensors_destroy(&f);
}

static void test_round_trip(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b, c;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &ds, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.n_members, K);
    assert_ptr_equal(c.members[0], c.model);
    for (int m = 0; m < K; m++) assert_int_equal(ag_model_config(c.members[m])->seed, 11 + m);
    for (int64_t g = 0; g < ds.n_graphs; g++) {
        ag_fmat_t ya = {0}, yb = {0};
        assert_int_equal(ag_bundle_predict_graph(&b, &ds.graphs[g], NULL, &ya), AG_SUCCESS);
        assert_int_equal(ag_bundle_predict_graph(&c, &ds.graphs[g], NULL, &yb), AG_SUCCESS);
        assert_memory_equal(ya.data, yb.data, 2 * sizeof(float));
        ag_fmat_destroy(&ya);
        ag_fmat_destroy(&yb);
    }
    char v[256];
    metadata_of(path, "bundle_version", v, sizeof v);
    assert_string_equal(v, "2");
    metadata_of(path, "members", v, sizeof v);
    assert_string_equal(v, "{\"count\":3,\"seeds\":[\"11\",\"12\",\"13\"]}");
    ag_bundle_destroy(&c);

    /* a single model is written as before: version 1, no members record, plain tensor names */
    ag_model_t *one = small_model(&p, AG_TASK_GRAPH_CLASSIFICATION, 5, 16);
    ag_prepared_t q;
    prepare(&q, &ds, AG_TASK_GRAPH_CLASSIFICATION, 3);
    assert_int_equal(ag_bundle_init(&c, &one, &q.featurizer, &q.table, (const char *const *)q.names, q.n_out, NULL),
                     AG_SUCCESS);
    assert_int_equal(c.n_members, 1);
    assert_int_equal(ag_bundle_save(path2, &c), AG_SUCCESS);
    metadata_of(path2, "bundle_version", v, sizeof v);
    assert_string_equal(v, "1");
    metadata_of(path2, "members", v, sizeof v);
    assert_string_equal(v, "(none)");
    /* the single model joins the ensemble file's models: a fourth member */
    ag_bundle_t d;
    assert_int_equal(ag_bundle_load(path, &d), AG_SUCCESS);
    assert_int_equal(ag_bundle_merge(&d, &c), AG_SUCCESS);
    assert_int_equal(d.n_members, K + 1);
    assert_null(c.model);
    assert_int_equal(ag_model_config(d.members[K])->seed, 5);
    ag_bundle_destroy(&d);
    ag_bundle_destroy(&c);
    ag_prepared_destroy(&q);
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

static void test_mismatched_members(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &ds, AG_TASK_GRAPH_REGRESSION);
    ag_model_t *wide = small_model(&p, AG_TASK_GRAPH_REGRESSION, 1, 32);
    assert_int_equal(ag_bundle_add_member(&b, &wide), AG_EMISMATCH);
    assert_msg_contains("member 3 has \"hidden\": 32 where member 0 has \"hidden\": 16");
    assert_non_null(wide);
    ag_model_destroy(wide);

    ag_model_t *other = small_model(&p, AG_TASK_GRAPH_REGRESSION, 1, 16);
    float mean[1] = {0.5f}, sd[1] = {2.125f};
    assert_int_equal(ag_model_set_target_scaling(other, mean, sd), AG_SUCCESS);
    assert_int_equal(ag_bundle_add_member(&b, &other), AG_EMISMATCH);
    assert_msg_contains("scales output 0 by mean 0.5");
    ag_model_t *pair[2] = {b.members[0], other};
    int64_t idx[1] = {0};
    ag_scores_t s;
    assert_int_equal(ag_ensemble_evaluate(pair, 2, &p.set, idx, 1, &s), AG_EMISMATCH);
    assert_msg_contains("same rows");
    ag_model_destroy(other);
    assert_int_equal(ag_bundle_add_member(&b, NULL), AG_EINVAL);
    assert_int_equal(b.n_members, K);

    /* another featuriser (random-walk columns 2, not 3) cannot join */
    ag_prepared_t q;
    prepare(&q, &ds, AG_TASK_GRAPH_REGRESSION, 2);
    ag_model_t *m = small_model(&q, AG_TASK_GRAPH_REGRESSION, 1, 16);
    ag_bundle_t c;
    assert_int_equal(ag_bundle_init(&c, &m, &q.featurizer, &q.table, (const char *const *)q.names, q.n_out, NULL),
                     AG_SUCCESS);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_EMISMATCH);
    assert_msg_contains("featuriser");
    assert_int_equal(b.n_members, K);
    assert_non_null(c.model);
    ag_bundle_destroy(&c);
    ag_prepared_destroy(&q);
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

/* path2 = the ensemble file at path with metadata key set to value. */
static void rewrite(const char *key, const char *value) {
    assert_int_equal(ag_test_metadata_rewrite(path, path2, key, value), AG_SUCCESS);
}

#define expect_bad(what) assert_load_fails(path2, what)

static void test_damaged_members_record(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &ds, AG_TASK_GRAPH_REGRESSION);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    rewrite("members", "{\"count\":1,\"seeds\":[\"1\"]}");
    expect_bad("'count' from 2 to 256");
    rewrite("members", "{\"count\":300,\"seeds\":[]}");
    expect_bad("'count' from 2 to 256");
    rewrite("members", "{\"count\":3,\"seeds\":[\"1\",\"2\"]}");
    expect_bad("an array of 3 decimal strings");
    rewrite("members", "{\"count\":3,\"seeds\":[\"1\",2,\"3\"]}");
    expect_bad("members.seeds[1]");
    rewrite("members", "{\"count\":3,\"seeds\":[\"1\",\"-2\",\"3\"]}");
    expect_bad("members.seeds[1]");
    rewrite("members", "[3]");
    expect_bad("'count' from 2 to 256");
    rewrite("members", "{\"count\":3,\"seeds\":[\"1\",\"2\",\"3\"],\"weights\":[1,1,2]}");
    expect_bad(": unknown key 'weights' in metadata 'members' (attn-graph ");
    rewrite("members", "{\"count\":3,\"seeds\":[\"1\",\"2\",\"3\"],\"count\":3}");
    expect_bad(": metadata 'members' has key 'count' twice");
    /* a fourth member whose tensors the file does not hold */
    rewrite("members", "{\"count\":4,\"seeds\":[\"1\",\"2\",\"3\",\"4\"]}");
    expect_bad("'member3.");
    /* version 1 files never hold members: a file that says so is damaged */
    rewrite("bundle_version", "1");
    expect_bad("cannot hold ensemble members");
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

/* Every allocation of building, saving and loading an ensemble may fail: AG_ENOMEM, nothing
 * leaked (ASan, valgrind), the bundle unchanged or zeroed. */
static void test_allocation_failures(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b;
    ag_prepared_t p;
    ensemble_bundle(&b, &p, &ds, AG_TASK_GRAPH_REGRESSION);
    assert_true(ag_test_save_under_failures(path, &b, 198) >= 1);
    ag_bundle_t c;
    ag_test_load_under_failures(path, &c, 39998);
    assert_int_equal(c.n_members, K);
    ag_bundle_destroy(&c);
    ag_model_t *m = small_model(&p, AG_TASK_GRAPH_REGRESSION, 99, 16);
    ag_i_alloc_fail_at(1);
    ag_error_t rc = ag_bundle_add_member(&b, &m);
    ag_i_alloc_fail_at(0);
    if (rc == AG_ENOMEM) {
        assert_non_null(m);
        assert_int_equal(b.n_members, K);
        assert_int_equal(ag_bundle_add_member(&b, &m), AG_SUCCESS);
    }
    assert_int_equal(b.n_members, K + 1);
    ag_bundle_destroy(&b);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prediction_is_the_members_mean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evaluation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_per_task_figures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mismatched_members, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_members_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
