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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_index_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
