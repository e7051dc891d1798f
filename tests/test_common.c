/* Tests of the error machinery, the float matrix and the igraph guard. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <float.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

static void test_error_message_and_code(void **state) {
    (void)state;
    ag_error_clear();
    assert_int_equal(ag_error_code(), AG_SUCCESS);
    assert_string_equal(ag_error_message(), "");
    ag_error_t rc = AG_ERROR(AG_EPARSE, "%s:%d: unexpected '%c'", "a.gml", 7, ']');
    assert_int_equal(rc, AG_EPARSE);
    assert_int_equal(ag_error_code(), AG_EPARSE);
    assert_string_equal(ag_error_message(), "a.gml:7: unexpected ']'");
    int line = 0;
    assert_non_null(strstr(ag_error_location(&line), "test_common.c"));
    assert_true(line > 0);
    /* the library's own files are named from the project's root, whoever built it where */
    ag_fmat_t m = {0};
    igraph_matrix_t zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    assert_int_equal(ag_fmat_to_igraph(&m, &zeroed), AG_EINVAL);
    assert_string_equal(ag_error_location(&line), "lib/src/matrix.c");
    assert_string_equal(ag_error_name(AG_EPARSE), "AG_EPARSE");
    assert_string_equal(ag_error_name((ag_error_t)999), "AG_EUNKNOWN");
}

static void test_fmat_roundtrip_igraph(void **state) {
    (void)state;
    ag_fmat_t m;
    assert_int_equal(ag_fmat_init(&m, 2, 3), AG_SUCCESS);
    for (int i = 0; i < 6; i++) assert_float_equal(m.data[i], 0.0f, 0.0f);
    for (int i = 0; i < 6; i++) m.data[i] = (float)i + 0.5f;
    igraph_matrix_t im;
    igraph_matrix_init(&im, 0, 0);
    assert_int_equal(ag_fmat_to_igraph(&m, &im), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&im), 2);
    assert_int_equal(igraph_matrix_ncol(&im), 3);
    /* row-major (1, 2) is element 5 */
    assert_float_equal(MATRIX(im, 1, 2), 5.5, 0.0);
    assert_float_equal(MATRIX(im, 0, 1), 1.5, 0.0);
    ag_fmat_t back;
    assert_int_equal(ag_fmat_from_igraph(&back, &im), AG_SUCCESS);
    assert_memory_equal(back.data, m.data, 6 * sizeof(float));
    MATRIX(im, 1, 0) = NAN;
    ag_fmat_t bad;
    assert_int_equal(ag_fmat_from_igraph(&bad, &im), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "row 1, column 0 is NaN"));
    assert_null(bad.data);
    /* finite as a double, infinite as a float32: refused too; the largest float32 is not */
    MATRIX(im, 1, 0) = -1e300;
    assert_int_equal(ag_fmat_from_igraph(&bad, &im), AG_EVALUE);
    assert_string_equal(ag_error_message(), "matrix value at row 1, column 0 (-1e+300) is out of float32 range");
    assert_null(bad.data);
    MATRIX(im, 1, 0) = FLT_MAX;
    assert_int_equal(ag_fmat_from_igraph(&bad, &im), AG_SUCCESS);
    assert_float_equal(bad.data[3], FLT_MAX, 0.0);
    ag_fmat_destroy(&bad);
    igraph_matrix_destroy(&im);
    ag_fmat_destroy(&back);
    ag_fmat_destroy(&m);
    ag_fmat_destroy(&m); /* idempotent */
}

static void test_fmat_overflow_and_alloc_failure(void **state) {
    (void)state;
    ag_fmat_t m;
    assert_int_equal(ag_fmat_init(&m, INT64_MAX / 2, 4), AG_ELIMIT);
    assert_int_equal(ag_fmat_init(&m, -1, 4), AG_EINVAL);
    ag_i_alloc_fail_at(1);
    assert_int_equal(ag_fmat_init(&m, 3, 4), AG_ENOMEM);
    ag_i_alloc_fail_at(0);
    assert_null(m.data);
}

static ag_error_t bad_igraph_call(void) {
    igraph_t g;
    igraph_empty(&g, 2, IGRAPH_DIRECTED);
    /* An edge to a vertex that does not exist: igraph raises IGRAPH_EINVVID. */
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_add_edge(&g, 0, 5);
    ag_i_igraph_leave();
    igraph_destroy(&g);
    if (rc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "building the test graph");
    return AG_SUCCESS;
}

static void test_igraph_guard_does_not_abort(void **state) {
    (void)state;
    /* Without the guard igraph's default handler would abort the test process here. */
    assert_int_equal(bad_igraph_call(), AG_EIGRAPH);
    assert_non_null(strstr(ag_error_message(), "building the test graph: "));
    assert_true(strlen(ag_error_message()) > strlen("building the test graph: "));
    /* The caller's handler is back in place after the guard. */
    igraph_error_handler_t *h = igraph_set_error_handler(igraph_error_handler_ignore);
    assert_ptr_equal(h, igraph_error_handler_ignore);
    igraph_set_error_handler(h);
}

static void test_threads(void **state) {
    (void)state;
    ag_threads_set(1);
    assert_int_equal(ag_threads_get(), 1);
    ag_threads_set(2);
    assert_int_equal(ag_threads_get(), 2);
    /* more than the OpenMP runtime can start crashed inside it at the next parallel region */
    ag_threads_set(99999);
    assert_int_equal(ag_threads_get(), AG_THREADS_MAX);
    ag_threads_set(0);
    assert_true(ag_threads_get() >= 1);
    assert_string_equal(ag_version(), "0.1.0");
    assert_true(strlen(ag_blas_name()) > 0);
}

/* Work on fewer than AG_SMALL_ROWS rows runs on the calling thread: inside the bracket the library
 * and OpenMP both say one thread, the caller's count comes back after it, brackets nest, and
 * AG_SMALL_ROWS in the environment moves the threshold (0: always share; junk: the default). */
static void test_small_work_runs_on_the_caller(void **state) {
    (void)state;
    unsetenv("AG_SMALL_ROWS"); /* the test suite sets 0 for the other tests */
    ag_threads_set(2);
    /* OpenMP's own count, which small work must restore: the machine's cores or OMP_NUM_THREADS,
     * not the 2 set above (the library's count) */
    const int omp_before = omp_get_max_threads();
    int a = ag_i_small_begin(AG_SMALL_ROWS - 1);
    assert_int_equal(a, 1);
    assert_int_equal(ag_threads_get(), 1);
    assert_int_equal(omp_get_max_threads(), 1);
    int b = ag_i_small_begin(3); /* nested */
    assert_int_equal(b, 1);
    ag_i_small_end(b);
    assert_int_equal(ag_threads_get(), 1);
    ag_i_small_end(a);
    assert_int_equal(ag_threads_get(), 2);
    assert_int_equal(omp_get_max_threads(), omp_before);
    int c = ag_i_small_begin(AG_SMALL_ROWS);
    assert_int_equal(c, 0);
    assert_int_equal(ag_threads_get(), 2);
    ag_i_small_end(c);
    assert_int_equal(ag_threads_get(), 2);
    int inside = -1;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        inside = ag_i_small_begin(1); /* already in a parallel region: nothing to change */
    }
    assert_int_equal(inside, 0);
    setenv("AG_SMALL_ROWS", "0", 1);
    assert_int_equal(ag_i_small_begin(1), 0);
    setenv("AG_SMALL_ROWS", "1000", 1);
    int d = ag_i_small_begin(999);
    assert_int_equal(d, 1);
    ag_i_small_end(d);
    assert_int_equal(ag_i_small_begin(1000), 0);
    setenv("AG_SMALL_ROWS", "lots", 1);
    int e = ag_i_small_begin(AG_SMALL_ROWS - 1);
    assert_int_equal(e, 1);
    ag_i_small_end(e);
    assert_int_equal(ag_i_small_begin(AG_SMALL_ROWS), 0);
    setenv("AG_SMALL_ROWS", "0", 1);
    ag_threads_set(0);
}

/* Well-formed UTF-8 and what is not (the Unicode standard's table 3-7), and the printable form
 * error messages use. */
static void test_utf8(void **state) {
    (void)state;
    assert_int_equal(ag_utf8_sequence("a", 1), 1);
    assert_int_equal(ag_utf8_sequence("\xC3\xA9", 2), 2);         /* e acute */
    assert_int_equal(ag_utf8_sequence("\xE2\x82\xAC", 3), 3);     /* euro sign */
    assert_int_equal(ag_utf8_sequence("\xF0\x9F\x98\x80", 4), 4); /* U+1F600 */
    assert_int_equal(ag_utf8_sequence("\xF4\x8F\xBF\xBF", 4), 4); /* U+10FFFF, the last */
    assert_int_equal(ag_utf8_sequence("\xC3\xA9", 1), 0);         /* cut short */
    assert_int_equal(ag_utf8_sequence("\xE9", 1), 0);              /* Latin-1 e acute */
    assert_int_equal(ag_utf8_sequence("\x80", 1), 0);              /* stray continuation */
    assert_int_equal(ag_utf8_sequence("\xC0\xAF", 2), 0);         /* overlong '/' */
    assert_int_equal(ag_utf8_sequence("\xE0\x80\xAF", 3), 0);     /* overlong '/' */
    assert_int_equal(ag_utf8_sequence("\xED\xA0\x80", 3), 0);     /* surrogate U+D800 */
    assert_int_equal(ag_utf8_sequence("\xF4\x90\x80\x80", 4), 0); /* U+110000 */
    assert_int_equal(ag_utf8_sequence("\xC3" "A", 2), 0);             /* no continuation */
    assert_int_equal(ag_utf8_sequence("", 0), 0);
    size_t bad = 99;
    assert_true(ag_utf8_valid("", &bad));
    assert_true(ag_utf8_valid("caf\xC3\xA9 \xE2\x82\xAC", &bad));
    assert_int_equal(bad, 99);
    assert_false(ag_utf8_valid("caf\xE9!", &bad));
    assert_int_equal(bad, 3);
    char buf[16];
    assert_string_equal(ag_i_utf8_show("caf\xE9!", buf, sizeof buf), "caf\\xE9!");
    assert_string_equal(ag_i_utf8_show("\xC3\xA9t\xE9", buf, sizeof buf), "\xC3\xA9t\\xE9");
    assert_string_equal(ag_i_utf8_show("abcdefghijklmnopqrstuvwxyz", buf, sizeof buf), "abcdefghijk...");
    assert_string_equal(ag_i_utf8_show("x", buf, 1), "");
}

int main(void) {
    igraph_set_error_handler(igraph_error_handler_ignore);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_message_and_code),
        cmocka_unit_test(test_fmat_roundtrip_igraph),
        cmocka_unit_test(test_fmat_overflow_and_alloc_failure),
        cmocka_unit_test(test_igraph_guard_does_not_abort),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_small_work_runs_on_the_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
