/*
 * Regression tests for bugs found by fuzzing the loaders (tests/fuzz, docs/robustness.md). Each
 * test names the fuzz target that found the bug and feeds the library the minimised input.
 */
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
#include <attngraph/modelfile.h>
#include <attngraph/safetensors.h>
#include <attngraph/table.h>

/* Writes len bytes to a fresh temporary file ending in suffix; the caller unlinks it. */
static char *write_temp(const void *data, size_t len, const char *suffix) {
    static char path[4][64];
    static int next = 0;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "/tmp/ag_regress_XXXXXX%s", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    return p;
}

/* n vertices without attributes (tables matched by vertex index). */
static void make_graph(igraph_t *g, int n) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    assert_int_equal(igraph_empty(g, n, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
}

static ag_error_t read_sparse(const char *text, const igraph_t *g, ag_node_table_t *t) {
    char *path = write_temp(text, strlen(text), ".txt");
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.format = AG_TABLE_SPARSE;
    o.match_index = 1;
    ag_error_t rc = ag_table_read(t, path, g, &o);
    unlink(path);
    return rc;
}

/* fuzz_table_sparse: an index that saturates strtoll (LLONG_MAX) made the width index + 1
 * overflow (UBSan: signed integer overflow in read_sparse). Such an index is a value of the file
 * out of the format's range, AG_EVALUE as an index beyond a given width is (it was AG_ELIMIT,
 * which the program had to single out to call it bad input). */
static void test_sparse_index_overflow(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g, 1);
    ag_node_table_t t;
    assert_int_equal(read_sparse("0 99999999999999999999999:1\n", &g, &t), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), ":1: field 2: feature index in '99999999999999999999999:1' is beyond"));
    assert_null(t.features.data);
    assert_int_equal(read_sparse("0 9223372036854775807:1\n", &g, &t), AG_EVALUE);
    assert_int_equal(read_sparse("0 2147483647:1\n", &g, &t), AG_EVALUE);
    /* small indices still read, in any order */
    assert_int_equal(read_sparse("0 3:1 1:2\n", &g, &t), AG_SUCCESS);
    assert_int_equal(t.features.cols, 4);
    assert_true(t.features.data[3] == 1.0f && t.features.data[1] == 2.0f && t.features.data[0] == 0.0f);
    ag_node_table_destroy(&t);
    igraph_destroy(&g);
}

#define SEED_MODEL AG_SOURCE_DIR "/tests/fuzz/corpus/bundle/mutag-class.safetensors" /* 94 weights */

/* Writes the seed model with `"in_dim": <old>` in its configuration replaced by in_dim. */
static char *model_with_in_dim(const char *in_dim) {
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, SEED_MODEL, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    const char *cfg = ag_metadata_get(&f.metadata, "config");
    assert_non_null(cfg);
    const char *at = strstr(cfg, "\"in_dim\": ");
    assert_non_null(at);
    const char *end = strchr(at, ',');
    assert_non_null(end);
    char text[8192];
    snprintf(text, sizeof text, "%.*s\"in_dim\": %s%s", (int)(at - cfg), cfg, in_dim, end);
    ag_metadata_t m;
    ag_metadata_init(&m);
    for (int64_t i = 0; i < f.metadata.count; i++)
        assert_int_equal(ag_metadata_set(&m, f.metadata.keys[i], strcmp(f.metadata.keys[i], "config") ? f.metadata.values[i]
                                                                                                      : text),
                         AG_SUCCESS);
    char *path = write_temp("", 0, ".safetensors");
    assert_int_equal(ag_safetensors_write(path, f.tensors, f.n_tensors, &m), AG_SUCCESS);
    ag_metadata_destroy(&m);
    ag_safetensors_destroy(&f);
    return path;
}

/* Found while checking what fuzz_bundle can reach (not by the fuzzer in its 5-minute run): a
 * model file whose configuration claims a huge input width ("in_dim": 200000000, a 3.5 KB file)
 * made ag_bundle_load build that model first, allocating and initialising about 1.5 GB over 9 s,
 * and only then refuse it because no tensor had the shape. The configuration is now checked
 * against the weights the file holds before the model is built. */
static void test_model_config_larger_than_file(void **state) {
    (void)state;
    ag_bundle_t b;
    char *path = model_with_in_dim("7"); /* the seed's own width: loads */
    assert_int_equal(ag_bundle_load(path, &b), AG_SUCCESS);
    ag_bundle_destroy(&b);
    unlink(path);

    path = model_with_in_dim("200000000");
    assert_int_equal(ag_bundle_load(path, &b), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), path));
    assert_non_null(strstr(ag_error_message(), "the model configuration describes a model of about 3814 MB (in_dim "
                                               "200000000, hidden 2, 1 blocks), but the file holds only 94 weights"));
    assert_null(b.model);
    unlink(path);

    /* a width beyond the range the configuration reader accepts */
    path = model_with_in_dim("4000000000000000000");
    ag_error_t rc = ag_bundle_load(path, &b);
    assert_int_equal(rc, AG_EMODEL);
    assert_null(b.model);
    unlink(path);

    /* the shipped models, whose weights are about half their estimate, still load */
    static const char *const shipped[] = {"esol", "karate", "mutag", "tox21"};
    for (int i = 0; i < 4; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/graphs/models/%s.safetensors", AG_SOURCE_DIR, shipped[i]);
        if (ag_bundle_load(p, &b) != AG_SUCCESS) fail_msg("%s: %s", p, ag_error_message());
        ag_bundle_destroy(&b);
    }
}

/* fuzz_checkpoint: a checkpoint whose optimiser step counter was edited to 2^63-1 loaded (every
 * field in range on its own) and ag_model_train_resume() then overflowed it (UBSan: signed integer
 * overflow in train.c, `st.step++`); the same for epochs since the best. Now refused as
 * inconsistent counters: at most steps-per-epoch steps per epoch. */
static void ring_set(ag_trainset_t *set) {
    ag_trainset_init(set, AG_TASK_GRAPH_CLASSIFICATION);
    set->n_classes = 2;
    assert_int_equal(ag_trainset_resize(set, 4, 4, 1), AG_SUCCESS);
    for (int g = 0; g < 4; g++) {
        igraph_t ig;
        igraph_ring(&ig, 3 + g, IGRAPH_UNDIRECTED, 0, g % 2);
        ag_example_t *ex = &set->examples[g];
        assert_int_equal(ag_graph_from_igraph(&ex->graph, &ig), AG_SUCCESS);
        assert_int_equal(ag_fmat_init(&ex->X, 3 + g, 1), AG_SUCCESS);
        for (int v = 0; v < 3 + g; v++) ex->X.data[v] = 1.0f;
        set->targets[g] = (float)(g % 2);
        igraph_destroy(&ig);
    }
}

static ag_model_t *ring_model(void) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_CLASSIFICATION);
    cfg.in_dim = 1;
    cfg.n_out = 2;
    cfg.hidden = 2;
    cfg.n_blocks = 1;
    cfg.blocks[0].attn.heads = 1;
    cfg.blocks[0].attn.head_dim = 2;
    cfg.blocks[0].attn.out_dim = 2;
    cfg.blocks[0].ffn_hidden = 2;
    cfg.head_hidden = 2;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

/* Saves the state after epoch 1 to the path in user and stops training there. */
static ag_error_t save_epoch_1(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    if (st->epoch != 1) return AG_SUCCESS;
    ag_error_t rc = ag_train_state_save(user, model, st, NULL);
    return rc != AG_SUCCESS ? rc : AG_EFILE;
}

static void test_checkpoint_step_overflow(void **state) {
    (void)state;
    igraph_set_attribute_table(&igraph_cattribute_table);
    ag_trainset_t set;
    ring_set(&set);
    int64_t tr[3] = {0, 1, 2};
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.epochs = 3;
    tc.batch_size = 2; /* 2 steps per epoch */
    tc.eval_train = 0;
    ag_train_config_t saving = tc;
    saving.checkpoint = save_epoch_1;
    char genuine[64], edited[64];
    snprintf(genuine, sizeof genuine, "%s", write_temp("", 0, ".ckpt"));
    snprintf(edited, sizeof edited, "%s", write_temp("", 0, ".ckpt"));
    saving.checkpoint_user = genuine;
    ag_model_t *m = ring_model();
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, &set, tr, 3, NULL, 0, &saving, &res), AG_EFILE);
    ag_model_destroy(m);

    /* at_load: counters that contradict one another whatever the data are refused by the load
     * itself (so that `info` finds them too); the others by the resume, against the data */
    static const struct {
        int64_t step, optim_step, since_best;
        int at_load;
        const char *msg;
    } cases[] = {
        {2, 2, 0, 0, NULL},
        {INT64_MAX, INT64_MAX, 0, 0, "checkpoint: inconsistent counters (9223372036854775807 optimiser steps after 1 "
                                     "epochs of 2 steps, 9223372036854775807 in the optimiser, 0 epochs since the best)"},
        {3, 3, 0, 0, "checkpoint: inconsistent counters (3 optimiser steps after 1 epochs of 2 steps, 3 in the "
                     "optimiser, 0 epochs since the best)"},
        {2, 3, 0, 1, "checkpoint: inconsistent counters (epoch 1, best epoch 1, 0 epochs since the best, 2 optimiser "
                     "steps of which 3 in the optimiser)"},
        {2, 2, INT64_MAX, 1, "checkpoint: inconsistent counters (epoch 1, best epoch 1, 9223372036854775807 epochs "
                             "since the best, 2 optimiser steps of which 2 in the optimiser)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        /* the counters edited in the file, as an edited checkpoint arrives */
        ag_train_state_t st;
        m = ring_model();
        assert_int_equal(ag_train_state_load(genuine, m, &st, NULL), AG_SUCCESS);
        assert_int_equal(st.epoch, 1);
        assert_int_equal(st.step, 2);
        st.step = cases[k].step;
        st.optim.step = cases[k].optim_step;
        st.since_best = cases[k].since_best;
        assert_int_equal(ag_train_state_save(edited, m, &st, NULL), AG_SUCCESS);
        ag_train_state_destroy(&st);
        ag_model_destroy(m);

        m = ring_model();
        if (cases[k].at_load) {
            assert_int_equal(ag_train_state_load(edited, m, &st, NULL), AG_EMODEL);
            assert_non_null(strstr(ag_error_message(), cases[k].msg));
            ag_model_destroy(m);
            continue;
        }
        assert_int_equal(ag_train_state_load(edited, m, &st, NULL), AG_SUCCESS);
        ag_error_t rc = ag_model_train_resume(m, &set, tr, 3, NULL, 0, &tc, &st, &res);
        if (cases[k].msg) {
            assert_int_equal(rc, AG_EMODEL);
            assert_string_equal(ag_error_message(), cases[k].msg);
        } else {
            assert_int_equal(rc, AG_SUCCESS);
            assert_int_equal(res.epochs_run, 3);
        }
        ag_train_state_destroy(&st);
        ag_model_destroy(m);
    }
    /* a state the caller edits in memory, past the load's checks: the resume checks it again
     * (epoch 1 is the best, so no epoch can have passed since) */
    {
        ag_train_state_t st;
        m = ring_model();
        assert_int_equal(ag_train_state_load(genuine, m, &st, NULL), AG_SUCCESS);
        assert_int_equal(st.best_epoch, 1);
        st.since_best = 1;
        assert_int_equal(ag_model_train_resume(m, &set, tr, 3, NULL, 0, &tc, &st, &res), AG_EMODEL);
        assert_string_equal(ag_error_message(), "checkpoint: inconsistent counters (2 optimiser steps after 1 epochs "
                                                "of 2 steps, 2 in the optimiser, 1 epochs since the best)");
        ag_train_state_destroy(&st);
        ag_model_destroy(m);
    }
    unlink(genuine);
    unlink(edited);
    ag_trainset_destroy(&set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_index_overflow),
        cmocka_unit_test(test_model_config_larger_than_file),
        cmocka_unit_test(test_checkpoint_step_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
