/*
 * The program's default thread count: the cores that other work leaves idle (apps/cli/threads.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "cli.h"

/* Other work is left its cores only when both measures say it is there. */
static void test_threads_from_load(void **state) {
    (void)state;
    static const struct {
        int cores;
        const char *text;
        int want;
    } cases[] = {
        {2, "0.05 0.10 0.20 1/120 4000\n", 2},  /* a quiet machine: this process alone runs */
        {2, "3.65 5.49 4.61 4/111 28516\n", 1}, /* three others busy on 2 cores */
        {2, "0.80 0.40 0.10 1/120 4000\n", 2},  /* our own run that just ended, still in the average */
        {2, "0.02 0.01 0.00 5/120 4000\n", 2},  /* a burst of short tasks, not in the average */
        {8, "2.40 2.00 1.90 3/300 4000\n", 6},  /* two busy: the smaller measure, 2 */
        {8, "1.40 2.00 1.90 9/300 4000\n", 7},  /* 1.4 rounds to 1 */
        {8, "1.60 2.00 1.90 9/300 4000\n", 6},  /* 1.6 rounds to 2 */
        {8, "40.0 40.0 40.0 50/300 4000\n", 1}, /* never below one */
        {1, "9.00 9.00 9.00 9/300 4000\n", 1},
        {4, "", 4},                             /* unreadable: every core, as OpenMP would */
        {4, "nan nan nan 3/10 1\n", 4},
        {4, "1.0 1.0", 4},
        {4, NULL, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = cli_threads_from_load(cases[i].cores, cases[i].text);
        if (got != cases[i].want) fail_msg("case %zu: %d threads, expected %d", i, got, cases[i].want);
    }
}

/* OMP_NUM_THREADS is the user's choice: kept whatever the load. */
static void test_omp_num_threads_kept(void **state) {
    (void)state;
    assert_int_equal(setenv("OMP_NUM_THREADS", "3", 1), 0);
    assert_int_equal(cli_threads_default(3), 3);
    assert_int_equal(unsetenv("OMP_NUM_THREADS"), 0);
    const int n = cli_threads_default(64);
    assert_true(n >= 1 && n <= 64);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_from_load),
        cmocka_unit_test(test_omp_num_threads_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
