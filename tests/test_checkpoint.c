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
#include <attngraph/attngraph.h>
#include <attngraph/modelfile.h>
#include <attngraph/safetensors.h>
#include <attngraph/train.h>

/* ---- library level */

/* Rings and paths of 5..12 nodes (features: degree, 1); class = ring. */
static void make_rings(ag_trainset_t *set) {
    int G = 40;
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
    tc->batch_size = 7;
    tc->patience = 0;
    tc->seed = 3;
    tc->eval_train = 0;
}

static int64_t tr[24], va[8];

static void split(void) {
    for (int i = 0; i < 24; i++) tr[i] = i;
    for (int i = 0; i < 8; i++) va[i] = 24 + i;
}

static char dir[64];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ag_ckpt_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    split();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
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
    assert_int_equal(ag_train(a, &set, tr, 24, va, 8, &tc, &ra), AG_SUCCESS);
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
    assert_int_equal(st.step, 5 * 4); /* 24 graphs in batches of 7: 4 steps per epoch */
    assert_int_equal(st.optim.step, 5 * 4);
    assert_int_equal(st.n_order, 24);
    ag_metadata_destroy(&extra);
    epochs_seen_t seen = {0, 0, 0};
    tc.checkpoint = NULL;
    tc.progress = progress_cb;
    tc.progress_user = &seen;
    assert_int_equal(ag_train_resume(b, &set, tr, 24, va, 8, &tc, &st, &rb), AG_SUCCESS);
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
    assert_int_equal(ag_train(c, &set, tr, 24, va, 8, &tc, &rc_), AG_EFILE);
    assert_int_equal(sc.saved, 5);
    ag_model_destroy(c);
    c = model_of(8);
    assert_int_equal(ag_train_state_load(path, c, &st, NULL), AG_SUCCESS);
    sc.stop_at = 0; /* checkpoints go on after the resume: epochs 6 .. 12 */
    assert_int_equal(ag_train_resume(c, &set, tr, 24, va, 8, &tc, &st, &rc_), AG_SUCCESS);
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
    assert_int_equal(ag_train_resume(d, &set, tr, 24, va, 8, &tc, &st, &rc_), AG_SUCCESS);
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
    assert_int_equal(ag_train(a, &set, tr, 24, va, 8, &tc, &ra), AG_SUCCESS);
    if (ra.epochs_run >= 60) fail_msg("patience 3 never stopped the run (best epoch %lld)", (long long)ra.best_epoch);
    tc.checkpoint = NULL;
    int64_t from[2] = {ra.epochs_run, ra.epochs_run > 2 ? ra.epochs_run - 2 : 1};
    for (int k = 0; k < 2; k++) {
        ag_model_t *b = model_of(8);
        ag_train_state_t st;
        char path[128];
        snprintf(path, sizeof path, "%s/e%lld.st", dir, (long long)from[k]);
        assert_int_equal(ag_train_state_load(path, b, &st, NULL), AG_SUCCESS);
        assert_int_equal(ag_train_resume(b, &set, tr, 24, va, 8, &tc, &st, &rb), AG_SUCCESS);
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

static unsigned char *read_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
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
    assert_int_equal(ag_train(a, &set, tr, 24, va, 8, &tc, &r), AG_SUCCESS);
    tc.checkpoint = NULL;
    char good[128], bad[128];
    snprintf(good, sizeof good, "%s/e1.st", dir);
    snprintf(bad, sizeof bad, "%s/bad.st", dir);
    /* weights of the model before any failed load, to check that a refused load changes nothing */
    ag_model_t *b = model_of(8);
    ag_model_t *fresh = model_of(8);

    size_t n;
    unsigned char *buf = read_bytes(good, &n);
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
    expect_load_error(bad, b, AG_EMODEL, "not a training checkpoint");
    /* another architecture */
    ag_model_t *wide = model_of(12);
    expect_load_error(good, wide, AG_EMODEL, "another model architecture");
    ag_model_destroy(wide);
    assert_same_weights(b, fresh);

    /* another training configuration or list: refused by ag_train_resume, naming the field */
    ag_train_state_t st;
    assert_int_equal(ag_train_state_load(good, b, &st, NULL), AG_SUCCESS);
    tc.epochs = 3;
    assert_int_equal(ag_train_resume(b, &set, tr, 24, va, 8, &tc, &st, &r), AG_EMODEL);
    if (!strstr(ag_error_message(), "another training configuration")) fail_msg("%s", ag_error_message());
    if (!strstr(ag_error_message(), "'epochs 2' in the checkpoint, 'epochs 3' now")) fail_msg("%s", ag_error_message());
    assert_non_null(strstr(ag_error_message(), "'epochs 2' in the checkpoint, 'epochs 3' now"));
    tc.epochs = 2;
    tc.seed = 4;
    assert_int_equal(ag_train_resume(b, &set, tr, 24, va, 8, &tc, &st, &r), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "'seed 3' in the checkpoint, 'seed 4' now"));
    tc.seed = 3;
    int64_t other[24];
    for (int i = 0; i < 24; i++) other[i] = i + 1; /* same size, another list */
    assert_int_equal(ag_train_resume(b, &set, other, 24, va, 8, &tc, &st, &r), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "another training list"));
    ag_train_state_destroy(&st);

    ag_model_destroy(a);
    ag_model_destroy(b);
    ag_model_destroy(fresh);
    ag_trainset_destroy(&set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_is_bit_identical),
        cmocka_unit_test(test_resume_with_early_stopping),
        cmocka_unit_test(test_bad_checkpoints_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
