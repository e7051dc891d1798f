/*
 * Threads: ag_threads_set() holds for every thread that calls the library, and ag_threads_idle()
 * leaves other work its cores (runtime.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/layers.h>
#include "internal.h"

/* The OS threads of this process. */
static int os_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

typedef struct {
    int threads_seen, before, after;
} worker_t;

/* A kernel large enough to run in parallel, on a thread the caller started. */
static void *worker(void *arg) {
    worker_t *w = arg;
    enum { N = 1 << 21 };
    float *x = calloc(N, sizeof *x), *y = calloc(N, sizeof *y);
    w->threads_seen = ag_threads_get();
    w->before = os_threads();
    if (x && y) ag_act_apply(AG_ACT_GELU, 0.0f, 1.0f, x, y, N);
    w->after = os_threads();
    free(x);
    free(y);
    return NULL;
}

/* Set to 1 in one thread, the library's kernels run on 1 in another: before, the setting was the
 * calling thread's OpenMP default only, and the other thread's kernel started a team of all cores. */
static void test_setting_is_process_wide(void **state) {
    (void)state;
    if (os_threads() < 0 || ag_threads_get() < 2) skip(); /* the bug needs a default team of 2+ */
    ag_threads_set(1);
    worker_t w = {0, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, worker, &w), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    ag_threads_set(0);
    assert_int_equal(w.threads_seen, 1);
    assert_true(w.before > 0);
    assert_int_equal(w.after, w.before); /* no OpenMP team was started */
}

/* Other work is left its cores only when both measures say it is there. */
static void test_threads_from_load(void **state) {
    (void)state;
    static const struct {
        int cores;
        const char *text;
        int want;
    } cases[] = {
        {2, "0.05 0.10 0.20 1/120 4000\n", 2},  /* a quiet machine: the caller alone runs */
        {2, "3.65 5.49 4.61 4/111 28516\n", 1}, /* three others busy on 2 cores */
        {2, "0.80 0.40 0.10 1/120 4000\n", 2},  /* our own run that just ended, still in the average */
        {2, "0.02 0.01 0.00 5/120 4000\n", 2},  /* a burst of short tasks, not in the average */
        {8, "2.40 2.00 1.90 3/300 4000\n", 6},  /* two busy: the smaller measure, 2 */
        {8, "1.40 2.00 1.90 9/300 4000\n", 7},  /* 1.4 rounds to 1 */
        {8, "1.60 2.00 1.90 9/300 4000\n", 6},  /* 1.6 rounds to 2 */
        {8, "40.0 40.0 40.0 50/300 4000\n", 1}, /* never below one */
        {1, "9.00 9.00 9.00 9/300 4000\n", 1},
        {4, "", 4},                             /* nothing to read: every core, as OpenMP would */
        {4, "nan nan nan 3/10 1\n", 4},
        {4, "1.0 1.0", 4},
        {4, NULL, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = ag_i_threads_from_load(cases[i].cores, cases[i].text);
        if (got != cases[i].want) fail_msg("case %zu: %d threads, expected %d", i, got, cases[i].want);
    }
}

/* OMP_NUM_THREADS is the user's choice: kept whatever the load. */
static void test_omp_num_threads_kept(void **state) {
    (void)state;
    ag_threads_set(0);
    const int cores = ag_threads_get();
    const int n = ag_threads_idle();
    assert_true(n >= 1 && n <= cores);
    assert_int_equal(setenv("OMP_NUM_THREADS", "3", 1), 0);
    assert_int_equal(ag_threads_idle(), cores);
    assert_int_equal(unsetenv("OMP_NUM_THREADS"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* first: no OpenMP team may exist before it */
        cmocka_unit_test(test_setting_is_process_wide),
        cmocka_unit_test(test_threads_from_load),
        cmocka_unit_test(test_omp_num_threads_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
