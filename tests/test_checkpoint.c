/* Tests of checkpoints: a run interrupted and resumed ends with exactly the bits of an uninterrupted
 * one (library level, and through the program killed with SIGKILL at a random moment), and bad or
 * mismatched checkpoints are refused with their message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "cli_testutil.h"
#include <attngraph/attngraph.h>
#include <attngraph/modelfile.h>
#include <attngraph/safetensors.h>
#include <attngraph/train.h>

/* ---- library level */

/* Rings and paths of 5..12 nodes (features: degree, 1); class = ring. */
static void make_rings(ag_trainset_t *set) {
    int G = 24;
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

/* Dropout on, so that the random stream matters; `hidden` changes the architecture. */
static ag_model_t *model_of(int64_t hidden) {
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_CLASSIFICATION);
    cfg.in_dim = 2;
    cfg.n_out = 2;
    cfg.hidden = hidden;
    cfg.n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].attn.heads = 2;
        cfg.blocks[l].attn.head_dim = hidden / 2;
        cfg.blocks[l].attn.out_dim = hidden;
        cfg.blocks[l].ffn_hidden = hidden;
        cfg.blocks[l].dropout = 0.2f;
        cfg.blocks[l].attn.attn_dropout = 0.1f;
    }
    cfg.head_hidden = hidden;
    cfg.seed = 5;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    return m;
}

static void config(ag_train_config_t *tc) {
    ag_train_config_default(tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc->optim.lr = 0.01f;
    tc->lr_schedule = AG_LR_COSINE;
    tc->warmup_epochs = 2;
    tc->epochs = 12;
    tc->batch_size = 5;
    tc->patience = 0;
    tc->seed = 3;
    tc->eval_train = 0;
}

static int64_t tr[16], va[8];

static void split(void) {
    for (int i = 0; i < 16; i++) tr[i] = i;
    for (int i = 0; i < 8; i++) va[i] = 16 + i;
}

static char dir[64];

static int setup(void **state) {
    (void)state;
    /* tmpfs when there is one: every checkpoint is fsync'ed, and the test is about what a reader
     * sees, not about the disk */
    if (ag_test_temp_dir(dir, sizeof dir, "ckpt", 1) < 0) return -1;
    split();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ag_test_remove_dir(dir);
}

/* What a checkpoint callback of the tests does: save at every epoch to dir/e<epoch>.st, and
 * fail with AG_EFILE (a simulated crash) after saving epoch stop_at. */
typedef struct saver_t {
    int64_t stop_at;
    int64_t saved;
} saver_t;

static ag_error_t save_cb(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    saver_t *s = user;
    char path[128];
    snprintf(path, sizeof path, "%s/e%lld.st", dir, (long long)st->epoch);
    ag_metadata_t extra;
    ag_metadata_init(&extra);
    ag_metadata_set(&extra, "note", "from the test");
    ag_error_t rc = ag_train_state_save(path, model, st, &extra);
    ag_metadata_destroy(&extra);
    if (rc != AG_SUCCESS) return rc;
    s->saved++;
    if (s->stop_at > 0 && st->epoch == s->stop_at) return AG_EFILE;
    return AG_SUCCESS;
}

typedef struct epochs_seen_t {
    int64_t first, last, count;
} epochs_seen_t;

static void progress_cb(const ag_epoch_log_t *log, void *user) {
    epochs_seen_t *e = user;
    if (e->count++ == 0) e->first = log->epoch;
    e->last = log->epoch;
}

static void assert_same_weights(const ag_model_t *a, const ag_model_t *b) {
    const ag_param_list_t *pa = ag_model_params(a), *pb = ag_model_params(b);
    assert_int_equal(pa->count, pb->count);
    for (int64_t i = 0; i < pa->count; i++) {
        size_t n = (size_t)(pa->items[i].shape[0] * pa->items[i].shape[1]);
        if (memcmp(pa->items[i].value, pb->items[i].value, n * sizeof(float)) != 0)
            fail_msg("tensor %s differs", pa->items[i].name);
    }
}

static void test_resume_is_bit_identical(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings(&set);
    ag_train_config_t tc;
    config(&tc);
    /* A: 12 epochs straight, checkpoints written along the way */
    ag_model_t *a = model_of(8);
    saver_t sa = {0, 0};
    tc.checkpoint = save_cb;
    tc.checkpoint_user = &sa;
    tc.checkpoint_every = 5; /* epochs 5 and 10 */
    ag_train_result_t ra, rb, rc_;
    assert_int_equal(ag_model_train(a, &set, tr, 16, va, 8, &tc, &ra), AG_SUCCESS);
    assert_int_equal(sa.saved, 2);
    assert_int_equal(ra.epochs_run, 12);
    /* B: a fresh model resumed from epoch 5's checkpoint */
    ag_model_t *b = model_of(8);
    ag_train_state_t st;
    ag_metadata_t extra;
    ag_metadata_init(&extra);
    char path[128];
    snprintf(path, sizeof path, "%s/e5.st", dir);
    assert_int_equal(ag_train_state_load(path, b, &st, &extra), AG_SUCCESS);
    assert_string_equal(ag_metadata_get(&extra, "note"), "from the test");
    assert_string_equal(ag_metadata_get(&extra, "kind"), "checkpoint");
    assert_int_equal(st.epoch, 5);
    assert_int_equal(st.step, 5 * 4); /* 16 graphs in batches of 5: 4 steps per epoch */
    assert_int_equal(st.optim.step, 5 * 4);
    assert_int_equal(st.n_order, 16);
    ag_metadata_destroy(&extra);
    epochs_seen_t seen = {0, 0, 0};
    tc.checkpoint = NULL;
    tc.progress = progress_cb;
    tc.progress_user = &seen;
    assert_int_equal(ag_model_train_resume(b, &set, tr, 16, va, 8, &tc, &st, &rb), AG_SUCCESS);
    assert_int_equal(seen.first, 6);
    assert_int_equal(seen.last, 12);
    assert_int_equal(seen.count, 7);
    assert_int_equal(rb.epochs_run, 12);
    assert_int_equal(rb.best_epoch, ra.best_epoch);
    assert_memory_equal(&rb.best_val_metric, &ra.best_val_metric, sizeof(double));
    assert_same_weights(a, b);
    ag_train_state_destroy(&st);
    ag_train_state_destroy(&st); /* twice is safe */

    /* C: a run that "crashes" right after saving epoch 5, resumed from that file */
    ag_model_t *c = model_of(8);
    saver_t sc = {5, 0};
    tc.checkpoint = save_cb;
    tc.checkpoint_user = &sc;
    tc.checkpoint_every = 1;
    tc.progress = NULL;
    assert_int_equal(ag_model_train(c, &set, tr, 16, va, 8, &tc, &rc_), AG_EFILE);
    assert_int_equal(sc.saved, 5);
    ag_model_destroy(c);
    c = model_of(8);
    assert_int_equal(ag_train_state_load(path, c, &st, NULL), AG_SUCCESS);
    sc.stop_at = 0; /* checkpoints go on after the resume: epochs 6 .. 12 */
    assert_int_equal(ag_model_train_resume(c, &set, tr, 16, va, 8, &tc, &st, &rc_), AG_SUCCESS);
    assert_int_equal(sc.saved, 12);
    tc.checkpoint = NULL;
    assert_same_weights(a, c);
    ag_train_state_destroy(&st);

    /* a checkpoint of the last epoch resumes to no epoch at all and the best weights */
    ag_model_t *d = model_of(8);
    snprintf(path, sizeof path, "%s/e12.st", dir);
    assert_int_equal(ag_train_state_load(path, d, &st, NULL), AG_SUCCESS);
    seen.count = 0;
    tc.progress = progress_cb;
    assert_int_equal(ag_model_train_resume(d, &set, tr, 16, va, 8, &tc, &st, &rc_), AG_SUCCESS);
    assert_int_equal(seen.count, 0);
    assert_int_equal(rc_.epochs_run, 12);
    assert_same_weights(a, d);
    ag_train_state_destroy(&st);
    ag_model_destroy(a);
    ag_model_destroy(b);
    ag_model_destroy(c);
    ag_model_destroy(d);
    ag_trainset_destroy(&set);
}

enum { MANY_EXTRA = 20000 };

/* Saves dir/many.st with MANY_EXTRA keys of the caller's, "x%05d" = "v%d", built by hand with a
 * second "x00005" (= "again") at the end and a "kind" the library's replaces; then stops training. */
static ag_error_t save_many_cb(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    (void)user;
    enum { N = MANY_EXTRA + 2 };
    char **keys = malloc(N * sizeof *keys), **values = malloc(N * sizeof *values);
    for (int i = 0; i < MANY_EXTRA; i++) {
        keys[i] = malloc(16);
        values[i] = malloc(16);
        snprintf(keys[i], 16, "x%05d", i);
        snprintf(values[i], 16, "v%d", i);
    }
    keys[MANY_EXTRA] = strdup("x00005");
    values[MANY_EXTRA] = strdup("again");
    keys[MANY_EXTRA + 1] = strdup("kind");
    values[MANY_EXTRA + 1] = strdup("mine");
    ag_metadata_t extra = {N, N, keys, values};
    char path[128];
    snprintf(path, sizeof path, "%s/many.st", dir);
    ag_error_t rc = ag_train_state_save(path, model, st, &extra);
    for (int i = 0; i < N; i++) {
        free(keys[i]);
        free(values[i]);
    }
    free(keys);
    free(values);
    return rc == AG_SUCCESS ? AG_EFILE : rc;
}

/* The caller's metadata, many keys of it, set as ag_metadata_set would key by key: into the
 * checkpoint (a key given twice keeps its first place and its last value) and back into a list. */
static void test_many_extra_keys(void **state) {
    (void)state;
    ag_trainset_t set;
    ag_train_config_t tc;
    ag_train_result_t r;
    make_rings(&set);
    config(&tc);
    tc.checkpoint = save_many_cb;
    tc.checkpoint_every = 1;
    ag_model_t *a = model_of(8), *b = model_of(8);
    assert_int_equal(ag_model_train(a, &set, tr, 16, va, 8, &tc, &r), AG_EFILE);
    ag_train_state_t st;
    ag_metadata_t extra;
    ag_metadata_init(&extra);
    assert_int_equal(ag_metadata_set(&extra, "x00003", "old"), AG_SUCCESS);
    assert_int_equal(ag_metadata_set(&extra, "note", "kept"), AG_SUCCESS);
    char path[128];
    snprintf(path, sizeof path, "%s/many.st", dir);
    assert_int_equal(ag_train_state_load(path, b, &st, &extra), AG_SUCCESS);
    assert_int_equal(st.epoch, 1);
    assert_same_weights(a, b);
    assert_string_equal(extra.keys[0], "x00003");
    assert_string_equal(extra.values[0], "v3");
    assert_string_equal(extra.keys[1], "note");
    assert_string_equal(extra.values[1], "kept");
    assert_string_equal(ag_metadata_get(&extra, "x00005"), "again");
    assert_string_equal(ag_metadata_get(&extra, "kind"), "checkpoint");
    int64_t xs = 0, first_x = -1, last_x = -1;
    for (int64_t i = 0; i < extra.count; i++)
        if (extra.keys[i][0] == 'x') {
            xs++;
            if (first_x < 0 && i > 0) first_x = i;
            last_x = i;
        }
    assert_int_equal(xs, MANY_EXTRA);
    /* the file's order: its x keys after the list's own two, "x00003" not again */
    assert_string_equal(extra.keys[first_x], "x00000");
    assert_string_equal(extra.keys[first_x + 3], "x00004");
    assert_string_equal(extra.keys[first_x + 4], "x00005");
    assert_string_equal(extra.keys[last_x], "x19999");
    ag_metadata_destroy(&extra);
    ag_train_state_destroy(&st);
    ag_model_destroy(a);
    ag_model_destroy(b);
    ag_trainset_destroy(&set);
}

/* ag_train_state_plan reads back the epochs, patience and metric the run was given; a stored
 * configuration without one of them, or with one out of range, is a defect of the file. */
static void expect_plan(const ag_train_state_t *st, const ag_train_config_t *tc) {
    int64_t epochs = -1, patience = -1;
    ag_metric_t metric = AG_METRIC_LOSS;
    assert_int_equal(ag_train_state_plan(st, &epochs, &patience, &metric), AG_SUCCESS);
    assert_int_equal(epochs, tc->epochs);
    assert_int_equal(patience, tc->patience);
    assert_int_equal(metric, tc->metric);
    ag_train_state_t bad = *st; /* a shallow copy: only its text is changed, never freed */
    const char *edits[][2] = {{"patience 3 ", "patience -3 "}, {"epochs 60 ", "epoch 60 "}, {"metric ", "metric 9"}};
    for (int i = 0; i < 3; i++) {
        char *at = strstr(bad.config, edits[i][0]);
        assert_non_null(at);
        char rest[sizeof bad.config];
        snprintf(rest, sizeof rest, "%s", at + strlen(edits[i][0]));
        snprintf(at, sizeof bad.config - (size_t)(at - bad.config), "%s%s", edits[i][1], rest);
        epochs = 7;
        assert_int_equal(ag_train_state_plan(&bad, &epochs, &patience, &metric), AG_EMODEL);
        assert_non_null(strstr(ag_error_message(), "training configuration is malformed"));
        assert_int_equal(epochs, 7); /* untouched on failure */
        memcpy(bad.config, st->config, sizeof bad.config);
    }
    assert_int_equal(ag_train_state_plan(st, NULL, &patience, &metric), AG_EINVAL);
}

/* Early stopping: the run stopped by patience, resumed from its last checkpoint, stays stopped;
 * resumed from an earlier one, it stops at the same epoch with the same weights. */
static void test_resume_with_early_stopping(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings(&set);
    ag_train_config_t tc;
    config(&tc);
    tc.epochs = 60;
    tc.patience = 3;
    tc.optim.lr = 0.05f;
    ag_model_t *a = model_of(8);
    saver_t sa = {0, 0};
    tc.checkpoint = save_cb;
    tc.checkpoint_user = &sa;
    ag_train_result_t ra, rb;
    assert_int_equal(ag_model_train(a, &set, tr, 16, va, 8, &tc, &ra), AG_SUCCESS);
    if (ra.epochs_run >= 60) fail_msg("patience 3 never stopped the run (best epoch %lld)", (long long)ra.best_epoch);
    tc.checkpoint = NULL;
    int64_t from[2] = {ra.epochs_run, ra.epochs_run > 2 ? ra.epochs_run - 2 : 1};
    for (int k = 0; k < 2; k++) {
        ag_model_t *b = model_of(8);
        ag_train_state_t st;
        char path[128];
        snprintf(path, sizeof path, "%s/e%lld.st", dir, (long long)from[k]);
        assert_int_equal(ag_train_state_load(path, b, &st, NULL), AG_SUCCESS);
        if (k == 0) expect_plan(&st, &tc);
        assert_int_equal(ag_model_train_resume(b, &set, tr, 16, va, 8, &tc, &st, &rb), AG_SUCCESS);
        assert_int_equal(rb.epochs_run, ra.epochs_run);
        assert_int_equal(rb.best_epoch, ra.best_epoch);
        assert_same_weights(a, b);
        ag_train_state_destroy(&st);
        ag_model_destroy(b);
    }
    ag_model_destroy(a);
    ag_trainset_destroy(&set);
}

static void write_bytes(const char *path, const unsigned char *buf, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

static void expect_load_error(const char *path, ag_model_t *m, ag_error_t code, const char *needle) {
    ag_train_state_t st;
    ag_error_t rc = ag_train_state_load(path, m, &st, NULL);
    if (rc != code || !strstr(ag_error_message(), needle))
        fail_msg("loading %s: %s '%s', expected %s with '%s'", path, ag_error_name(rc), ag_error_message(),
                 ag_error_name(code), needle);
    /* zeroed on failure: destroy is safe */
    ag_train_state_destroy(&st);
}

static void test_bad_checkpoints_are_refused(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings(&set);
    ag_train_config_t tc;
    config(&tc);
    tc.epochs = 2;
    ag_model_t *a = model_of(8);
    saver_t sa = {0, 0};
    tc.checkpoint = save_cb;
    tc.checkpoint_user = &sa;
    ag_train_result_t r;
    assert_int_equal(ag_model_train(a, &set, tr, 16, va, 8, &tc, &r), AG_SUCCESS);
    tc.checkpoint = NULL;
    char good[128], bad[128];
    snprintf(good, sizeof good, "%s/e1.st", dir);
    snprintf(bad, sizeof bad, "%s/bad.st", dir);
    /* weights of the model before any failed load, to check that a refused load changes nothing */
    ag_model_t *b = model_of(8);
    ag_model_t *fresh = model_of(8);

    size_t n;
    unsigned char *buf = ag_test_read_file(good, &n);
    /* a flipped bit in the tensor data: the checksum */
    buf[n - 3] ^= 0x10;
    write_bytes(bad, buf, n);
    expect_load_error(bad, b, AG_EMODEL, "checksum mismatch");
    buf[n - 3] ^= 0x10;
    /* truncated (what a torn write would leave) */
    write_bytes(bad, buf, n / 2);
    expect_load_error(bad, b, AG_EMODEL, "truncated");
    write_bytes(bad, buf, 5);
    expect_load_error(bad, b, AG_EMODEL, "too short");
    free(buf);
    assert_same_weights(b, fresh);
    /* a missing file */
    snprintf(bad, sizeof bad, "%s/none.st", dir);
    expect_load_error(bad, b, AG_EFILE, "cannot open");
    /* a model file is not a checkpoint */
    snprintf(bad, sizeof bad, "%s/model.st", dir);
    assert_int_equal(ag_safetensors_write_params(bad, ag_model_params(a), NULL), AG_SUCCESS);
    expect_load_error(bad, b, AG_EMODEL, "model.st: not a training checkpoint (metadata 'kind' is not \"checkpoint\"; a "
                                         "model file? resume from the file given to --checkpoint)");
    /* another architecture */
    ag_model_t *wide = model_of(12);
    expect_load_error(good, wide, AG_EMISMATCH, "another model architecture");
    ag_model_destroy(wide);
    assert_same_weights(b, fresh);
    /* a configuration with a key this version does not know is damaged, not another architecture:
     * refused by name, by a resume as by info's ag_train_state_open */
    ag_test_header_replace(good, bad, "\\\"heads\\\": ", "\\\"gate\\\": 1, \\\"heads\\\": ");
    expect_load_error(bad, b, AG_EMODEL, "checkpoint configuration: model configuration: unknown key 'gate' in "
                      "blocks[0] of metadata 'config'");
    assert_non_null(strstr(ag_error_message(), bad));
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    ag_model_t *opened = NULL;
    ag_train_state_t os;
    assert_int_equal(ag_train_state_open(&f, &opened, &os), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "checkpoint configuration: model configuration: unknown key 'gate'"));
    /* the location is where the key was refused, not where the message was given the file's name */
    int line = 0;
    const char *where = ag_error_location(&line);
    if (strstr(where, "error.c") || strstr(where, "checkpoint.c") || line <= 0)
        fail_msg("location %s:%d, not the JSON reader's", where, line);
    assert_null(opened);
    ag_safetensors_destroy(&f);
    assert_same_weights(b, fresh);
    /* a configuration far larger than the weights the file holds is refused before the model is
     * built, as a model file's is (it made info allocate tens of gigabytes) */
    ag_test_header_replace(good, bad, "\\\"hidden\\\": 8,", "\\\"hidden\\\": 400000000,");
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(ag_train_state_open(&f, &opened, &os), AG_EMODEL);
    if (!strstr(ag_error_message(), "the model configuration describes a model of about"))
        fail_msg("%s", ag_error_message());
    assert_non_null(strstr(ag_error_message(), "hidden 400000000"));
    assert_null(opened);
    ag_safetensors_destroy(&f);
    /* a checkpoint written before virtual_node existed (its configuration without the key) is the
     * same architecture, for a resume and for info: the two are compared as this version writes them */
    ag_test_header_replace(good, bad, "\\\"virtual_node\\\": 0, ", "");
    ag_train_state_t old;
    ag_model_t *same = model_of(8); /* loaded into: b's weights must stay the fresh ones below */
    assert_int_equal(ag_train_state_load(bad, same, &old, NULL), AG_SUCCESS);
    ag_train_state_destroy(&old);
    ag_model_destroy(same);
    assert_int_equal(ag_safetensors_read(&f, bad, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(ag_train_state_open(&f, &opened, &os), AG_SUCCESS);
    assert_non_null(opened);
    ag_model_destroy(opened);
    opened = NULL;
    ag_train_state_destroy(&os);
    ag_safetensors_destroy(&f);
    /* counters that contradict one another, whatever the data, are the load's to refuse (info
     * has no data to resume with): an integer beyond int64 is refused, not clamped */
    ag_test_header_set(good, bad, "since_best", "1000");
    expect_load_error(bad, b, AG_EMODEL, "checkpoint: inconsistent counters (epoch 1, best epoch 1, 1000 epochs since "
                      "the best");
    ag_test_header_set(good, bad, "since_best", "1"); /* the best is epoch 1, the last one */
    expect_load_error(bad, b, AG_EMODEL, "checkpoint: inconsistent counters (epoch 1, best epoch 1, 1 epochs since "
                      "the best");
    ag_test_header_set(good, bad, "best_epoch", "2");
    expect_load_error(bad, b, AG_EMODEL, "inconsistent counters (epoch 1, best epoch 2,");
    ag_test_header_set(good, bad, "optim_step", "5"); /* 4 steps in epoch 1 */
    expect_load_error(bad, b, AG_EMODEL, "4 optimiser steps of which 5 in the optimiser)");
    ag_test_header_set(good, bad, "best_epoch", "18446744073709551616");
    expect_load_error(bad, b, AG_EMODEL, "checkpoint metadata 'best_epoch' is '18446744073709551616', not an integer");
    ag_test_header_set(good, bad, "rng_seed", "18446744073709551616");
    expect_load_error(bad, b, AG_EMODEL, "checkpoint metadata 'rng_seed' is '18446744073709551616', not an unsigned");
    assert_same_weights(b, fresh);

    /* another training configuration or list: refused by ag_model_train_resume, naming the field */
    ag_train_state_t st;
    assert_int_equal(ag_train_state_load(good, b, &st, NULL), AG_SUCCESS);
    tc.epochs = 3;
    assert_int_equal(ag_model_train_resume(b, &set, tr, 16, va, 8, &tc, &st, &r), AG_EMODEL);
    if (!strstr(ag_error_message(), "another training configuration")) fail_msg("%s", ag_error_message());
    if (!strstr(ag_error_message(), "'epochs 2' in the checkpoint, 'epochs 3' now")) fail_msg("%s", ag_error_message());
    assert_non_null(strstr(ag_error_message(), "'epochs 2' in the checkpoint, 'epochs 3' now"));
    tc.epochs = 2;
    tc.seed = 4;
    assert_int_equal(ag_model_train_resume(b, &set, tr, 16, va, 8, &tc, &st, &r), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "'seed 3' in the checkpoint, 'seed 4' now"));
    tc.seed = 3;
    int64_t other[16];
    for (int i = 0; i < 16; i++) other[i] = i + 1; /* same size, another list */
    assert_int_equal(ag_model_train_resume(b, &set, other, 16, va, 8, &tc, &st, &r), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "another training list"));
    ag_train_state_destroy(&st);

    ag_model_destroy(a);
    ag_model_destroy(b);
    ag_model_destroy(fresh);
    ag_trainset_destroy(&set);
}


void ag_i_alloc_fail_at(int64_t n);

/* Allocation-failure injection: the n-th allocation of a save, a load and a resume fails, for every
 * n until one succeeds (the first 16 of a resume); each failure is AG_ENOMEM with nothing leaked (ASan checks) and a failed
 * load leaves the model's weights as they were. */
static void test_checkpoint_allocation_failures(void **state) {
    (void)state;
    ag_trainset_t set;
    make_rings(&set);
    ag_train_config_t tc;
    config(&tc);
    tc.epochs = 2;
    ag_model_t *a = model_of(8);
    saver_t sa = {0, 0};
    tc.checkpoint = save_cb;
    tc.checkpoint_user = &sa;
    ag_train_result_t r;
    assert_int_equal(ag_model_train(a, &set, tr, 16, va, 8, &tc, &r), AG_SUCCESS);
    tc.checkpoint = NULL;
    char good[128], out[128];
    snprintf(good, sizeof good, "%s/e1.st", dir);
    snprintf(out, sizeof out, "%s/oom.st", dir);
    ag_model_t *b = model_of(8), *fresh = model_of(8);
    ag_train_state_t st;
    int ok = 0;
    for (int64_t n = 1; n < 20000 && !ok; n++) {
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_train_state_load(good, b, &st, NULL);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            print_message("a load succeeds from its %lld-th allocation on\n", (long long)n);
            ok = 1;
            break;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_same_weights(b, fresh);
    }
    assert_true(ok);
    ok = 0;
    for (int64_t n = 1; n < 20000 && !ok; n++) {
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_train_state_save(out, b, &st, NULL);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) print_message("a save succeeds from its %lld-th allocation on\n", (long long)n), ok = 1;
        else assert_int_equal(rc, AG_ENOMEM);
    }
    assert_true(ok);
    ag_train_state_t st2;
    assert_int_equal(ag_train_state_load(out, fresh, &st2, NULL), AG_SUCCESS);
    assert_int_equal(st2.epoch, 1);
    assert_memory_equal(st2.best, st.best, (size_t)st.n_params * sizeof(float));
    ag_train_state_destroy(&st2);
    /* a resume allocates thousands of times over its epochs (batches, masks): the first 16, the
     * state's copies and the training buffers, fail one by one */
    for (int64_t n = 1; n <= 16; n++) {
        ag_model_t *c = model_of(8);
        ag_train_state_t s3;
        assert_int_equal(ag_train_state_load(good, c, &s3, NULL), AG_SUCCESS);
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_model_train_resume(c, &set, tr, 16, va, 8, &tc, &s3, &r);
        ag_i_alloc_fail_at(0);
        if (rc != AG_SUCCESS && rc != AG_ENOMEM) fail_msg("allocation %lld: %s", (long long)n, ag_error_message());
        ag_train_state_destroy(&s3);
        ag_model_destroy(c);
    }
    ag_train_state_destroy(&st);
    ag_model_destroy(a);
    ag_model_destroy(b);
    ag_model_destroy(fresh);
    ag_trainset_destroy(&set);
}

/* ---- the program, killed with SIGKILL and resumed */

/* The log without its wall-time column: epoch,loss,train_metric,val_metric,lr per line. */
static char *log_without_seconds(const char *path) {
    size_t n;
    unsigned char *buf = ag_test_read_file(path, &n);
    char *outp = malloc(n + 1);
    assert_non_null(outp);
    size_t o = 0;
    int field = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') field = 0;
        else if (buf[i] == ',') field++;
        if (field != 4) outp[o++] = (char)buf[i];
    }
    outp[o] = '\0';
    free(buf);
    return outp;
}

#define TRAIN_ARGS \
    "train --labels '" AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv' --split '" AG_SOURCE_DIR \
    "/tests/data/mutag-mini/split.csv' --epochs 30 --hidden 16 --layers 2 --heads 2 --batch-size 4 --patience 0 " \
    "--dropout 0.2 --threads 1 --quiet"

static void test_cli_killed_and_resumed(void **state) {
    (void)state;
    char err[8192], args[2048], path[256], ckpt[256];
    /* the uninterrupted run */
    snprintf(args, sizeof args, TRAIN_ARGS " -o full.st --log full.csv --plot full.svg");
    if (ag_cli_status(dir, args, err, sizeof err) != 0) fail_msg("uninterrupted run: %s", err);

    /* the same run with checkpoints, in a child killed at a random moment after the first one */
    snprintf(ckpt, sizeof ckpt, "%s/c.st", dir);
    unlink(ckpt);
    snprintf(args, sizeof args, TRAIN_ARGS " -o part.st --log part.csv --plot part.svg --checkpoint c.st --checkpoint-every 1");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && OMP_WAIT_POLICY=passive exec '%s' %s 2>/dev/null >/dev/null", dir,
             AG_CLI_PATH, args);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* The kill comes a random moment after the first checkpoint: after a random epoch's checkpoint
     * (1 .. 20 of 30) and up to 20 ms more, so that it lands anywhere in an epoch or a checkpoint
     * write. The seed is printed first: AG_TEST_SEED=<seed> draws the same epoch and delay again. */
    const char *seed_env = getenv("AG_TEST_SEED");
    const uint64_t seed = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)getpid();
    const long long target = 1 + (long long)(ag_rng_u64(seed, 0, 0) % 20);
    const useconds_t delay = (useconds_t)(ag_rng_u64(seed, 0, 1) % 20000);
    print_message("# AG_TEST_SEED=%llu: kill %u us after the checkpoint of epoch %lld\n", (unsigned long long)seed,
                  (unsigned)delay, target);
    /* The first checkpoint is waited for as long as the run goes on, however loaded the machine
     * (a hung run is ctest's timeout to stop, not a clock of ours). */
    struct stat sb;
    int st_;
    while (stat(ckpt, &sb) != 0) {
        if (waitpid(pid, &st_, WNOHANG) == pid) fail_msg("the run ended (status %d) before its first checkpoint", st_);
        usleep(1000);
    }
    /* The checkpoint is read all the while: a reader must always see a complete file. */
    int reads = 0;
    for (;;) {
        ag_safetensors_t f;
        ag_error_t rc = ag_safetensors_read(&f, ckpt, AG_SAFETENSORS_STRICT);
        if (rc != AG_SUCCESS) fail_msg("a torn checkpoint was seen: %s", ag_error_message());
        assert_string_equal(ag_metadata_get(&f.metadata, "kind"), "checkpoint");
        long long at = atoll(ag_metadata_get(&f.metadata, "epoch"));
        ag_safetensors_destroy(&f);
        reads++;
        if (at >= target) break;
        if (waitpid(pid, &st_, WNOHANG) == pid) fail_msg("the run ended before epoch %lld", target);
        usleep(2000);
    }
    usleep(delay);
    int status;
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    /* (on a fast idle machine the last epochs could beat the kill: then the resume has nothing to do) */
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    assert_true(killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0));
    /* what the kill left: a complete checkpoint */
    ag_safetensors_t f;
    if (ag_safetensors_read(&f, ckpt, AG_SAFETENSORS_STRICT) != AG_SUCCESS)
        fail_msg("checkpoint after SIGKILL: %s", ag_error_message());
    long long epoch = atoll(ag_metadata_get(&f.metadata, "epoch"));
    ag_safetensors_destroy(&f);
    print_message("%s after the checkpoint of epoch %lld (target %lld; %d reads of the checkpoint while it "
                  "ran)\n", killed ? "killed" : "not killed, it had finished", epoch, target, reads);
    assert_true(epoch >= target && (epoch < 30 || !killed));

    /* resume: the model file is the uninterrupted one, byte for byte, and so is the log */
    if (ag_cli_status(dir, "train --resume c.st --threads 1 --quiet", err, sizeof err) != 0) fail_msg("resume: %s", err);
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/full.st", dir);
    snprintf(b, sizeof b, "%s/part.st", dir);
    if (!ag_test_files_equal(a, b)) fail_msg("the resumed run's model differs from the uninterrupted run's");
    snprintf(a, sizeof a, "%s/full.csv", dir);
    snprintf(b, sizeof b, "%s/part.csv", dir);
    char *la = log_without_seconds(a), *lb = log_without_seconds(b);
    assert_string_equal(la, lb);
    free(la);
    free(lb);
    /* the plot covers every epoch, those before the kill included: the same file */
    snprintf(a, sizeof a, "%s/full.svg", dir);
    snprintf(b, sizeof b, "%s/part.svg", dir);
    if (!ag_test_files_equal(a, b)) fail_msg("the resumed run's plot differs from the uninterrupted run's");
    size_t ns;
    char *svg = (char *)ag_test_read_file(a, &ns);
    svg = realloc(svg, ns + 1);
    svg[ns] = '\0';
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_non_null(strstr(svg, ">training loss</text>"));
    assert_non_null(strstr(svg, ">validation loss</text>")); /* mutag-mini: a small validation part */
    assert_non_null(strstr(svg, ">epoch</text>"));
    int polylines = 0;
    for (const char *q = svg; (q = strstr(q, "<polyline")); q++) polylines++;
    assert_true(polylines >= 3); /* loss, training metric, validation metric */
    int circles = 0;
    for (const char *q = svg; (q = strstr(q, "<circle")); q++) circles++;
    assert_int_equal(circles, 3 * 30); /* a dot per epoch and series */
    free(svg);
    /* no temporary file left beside the checkpoint */
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c tmp > /dev/null", dir);
    assert_int_not_equal(system(cmd), 0);

    /* a corrupted checkpoint: exit 4 with the defect */
    size_t n;
    unsigned char *buf = ag_test_read_file(ckpt, &n);
    snprintf(path, sizeof path, "%s/bad.st", dir);
    buf[n - 1] ^= 1;
    write_bytes(path, buf, n);
    assert_int_equal(ag_cli_status(dir, "train --resume bad.st", err, sizeof err), 4);
    if (!strstr(err, "checksum mismatch")) fail_msg("%s", err);
    write_bytes(path, buf, n / 3);
    assert_int_equal(ag_cli_status(dir, "train --resume bad.st", err, sizeof err), 4);
    if (!strstr(err, "truncated")) fail_msg("%s", err);
    free(buf);
    /* a model file is not a checkpoint */
    assert_int_equal(ag_cli_status(dir, "train --resume full.st", err, sizeof err), 4);
    if (!strstr(err, "not a checkpoint")) fail_msg("%s", err);
    /* other options with --resume */
    assert_int_equal(ag_cli_status(dir, "train --resume c.st --epochs 5", err, sizeof err), 2);
    if (!strstr(err, "with --resume give only")) fail_msg("%s", err);
    assert_int_equal(ag_cli_status(dir, TRAIN_ARGS " --checkpoint-every 2", err, sizeof err), 2);
    if (!strstr(err, "--checkpoint-every needs --checkpoint FILE")) fail_msg("%s", err);
    assert_int_equal(ag_cli_status(dir, "train --resume missing.st", err, sizeof err), 3);
    if (!strstr(err, "missing.st: cannot open")) fail_msg("%s", err);
}

/* A checkpoint resumed on other data (a label changed since) is refused. */
static void test_cli_resume_on_other_data(void **state) {
    (void)state;
    char err[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/mm' && cp -r '%s/tests/data/mutag-mini' '%s/mm'", dir, AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    const char *args = "train --labels mm/labels.csv --split mm/split.csv --epochs 3 --hidden 8 --layers 1 "
                       "--heads 2 --threads 1 --quiet --checkpoint d.st -o d-model.st";
    if (ag_cli_status(dir, args, err, sizeof err) != 0) fail_msg("%s", err);
    /* flip the label of the first molecule */
    snprintf(cmd, sizeof cmd, "cd '%s/mm' && sed -i '2s/,1$/,0/' labels.csv", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(ag_cli_status(dir, "train --resume d.st", err, sizeof err), 4);
    if (!strstr(err, "differ from those the checkpoint was made with")) fail_msg("%s", err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_is_bit_identical),
        cmocka_unit_test(test_resume_with_early_stopping),
        cmocka_unit_test(test_many_extra_keys),
        cmocka_unit_test(test_bad_checkpoints_are_refused),
        cmocka_unit_test(test_checkpoint_allocation_failures),
        cmocka_unit_test(test_cli_killed_and_resumed),
        cmocka_unit_test(test_cli_resume_on_other_data),
    };
    if (getenv("AG_TEST_FILTER")) cmocka_set_test_filter(getenv("AG_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
