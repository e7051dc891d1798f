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
 * overflow (UBSan: signed integer overflow in read_sparse). */
static void test_sparse_index_overflow(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g, 1);
    ag_node_table_t t;
    assert_int_equal(read_sparse("0 99999999999999999999999:1\n", &g, &t), AG_ELIMIT);
    assert_non_null(strstr(ag_error_message(), ":1: field 2: feature index in '99999999999999999999999:1' is beyond"));
    assert_null(t.features.data);
    assert_int_equal(read_sparse("0 9223372036854775807:1\n", &g, &t), AG_ELIMIT);
    assert_int_equal(read_sparse("0 2147483647:1\n", &g, &t), AG_ELIMIT);
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
    assert_non_null(strstr(ag_error_message(), "the model configuration describes a model of about 4577 MB (in_dim "
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_index_overflow),
        cmocka_unit_test(test_model_config_larger_than_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
