/* Determinism through the program: the same seed gives byte-identical model files with 1 and 2
 * threads and from run to run, for a node task (Cora's citation graph, or Karate without the
 * shared datasets) and a graph task (a tiny MUTAG); the saved models predict bit-identical
 * probabilities with 1 and 2 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/modelfile.h>

static char dir[64];

static int setup(void **state) {
    (void)state;
    struct stat sb;
    snprintf(dir, sizeof dir, "%s/ag_det_XXXXXX", stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs `attn-graph ARGS -o dir/NAME` (passive OpenMP waiting: spinning threads starve a loaded
 * machine); its stdout goes to dir/NAME.out. */
static void train(const char *args, const char *name) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "OMP_WAIT_POLICY=passive '%s' %s -o '%s/%s' > '%s/%s.out' 2> '%s/err.txt'", AG_CLI_PATH,
             args, dir, name, dir, name, dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0) {
        snprintf(cmd, sizeof cmd, "cat '%s/err.txt'", dir);
        if (system(cmd) != 0) fail_msg("cannot show the error");
        fail_msg("attn-graph %s: exit %d", args, WEXITSTATUS(status));
    }
}

static unsigned char *slurp(const char *name, size_t *n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void assert_same_file(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    if (na != nb || memcmp(x, y, na) != 0) fail_msg("%s and %s differ", a, b);
    free(x);
    free(y);
}

/* The bundle's predictions on one graph file with n threads. */
static float *predict(const char *model, const char *graph_path, int threads, int64_t *count) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, model);
    ag_bundle_t b;
    if (ag_bundle_load(path, &b) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    igraph_t ig;
    if (ag_graph_read(&ig, graph_path, AG_FORMAT_AUTO, 0) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    ag_set_num_threads(threads);
    ag_fmat_t out = {0};
    if (ag_bundle_predict_graph(&b, &ig, NULL, &out) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    ag_set_num_threads(0);
    *count = out.rows * out.cols;
    float *p = malloc((size_t)*count * sizeof(float));
    assert_non_null(p);
    memcpy(p, out.data, (size_t)*count * sizeof(float));
    ag_fmat_destroy(&out);
    igraph_destroy(&ig);
    ag_bundle_destroy(&b);
    return p;
}

static void check_task(const char *args, const char *graph_for_prediction, int64_t min_rows) {
    char a[2048];
    snprintf(a, sizeof a, "%s --threads 1", args);
    train(a, "t1.st");
    train(a, "t1b.st");
    snprintf(a, sizeof a, "%s --threads 2", args);
    train(a, "t2.st");
    assert_same_file("t1.st", "t1b.st");   /* across runs */
    assert_same_file("t1.st", "t2.st");    /* across thread counts */
    assert_same_file("t1.st.out", "t2.st.out"); /* the printed test metrics */
    int64_t n1, n2;
    float *p1 = predict("t1.st", graph_for_prediction, 1, &n1);
    float *p2 = predict("t2.st", graph_for_prediction, 2, &n2);
    assert_int_equal(n1, n2);
    assert_true(n1 >= min_rows);
    assert_memory_equal(p1, p2, (size_t)n1 * sizeof(float));
    free(p1);
    free(p2);
}

static void test_node_task(void **state) {
    (void)state;
    char args[2048], graph[512];
    struct stat sb;
    snprintf(graph, sizeof graph, "%s/cora/cora.gml", AG_SHARED_DATASETS);
    if (stat(graph, &sb) == 0) {
        /* big enough (2708 nodes) for the parallel kernels to split the work */
        snprintf(args, sizeof args,
                 "train '%s' --label-attr subject --vertex-attrs none --degree --split '%s/cora/split.json' "
                 "--epochs 3 --hidden 32 --heads 4 --layers 2 --dropout 0.3 --seed 7 --quiet --json",
                 graph, AG_SHARED_DATASETS);
        check_task(args, graph, 2708);
    } else {
        snprintf(graph, sizeof graph, "%s/graphs/social/karate.gml", AG_SOURCE_DIR);
        snprintf(args, sizeof args, "train '%s' --label-attr club --train-nodes 0,33 --preset gat --epochs 20 --seed 7 "
                 "--quiet --json", graph);
        check_task(args, graph, 34);
    }
}

static void test_graph_task(void **state) {
    (void)state;
    char args[2048], graph[512];
    snprintf(args, sizeof args,
             "train --labels '%s/tests/data/mutag-mini/labels.csv' --split '%s/tests/data/mutag-mini/split.csv' "
             "--epochs 8 --hidden 16 --layers 2 --heads 2 --batch-size 4 --dropout 0.2 --seed 7 --quiet --json",
             AG_SOURCE_DIR, AG_SOURCE_DIR);
    snprintf(graph, sizeof graph, "%s/tests/data/mutag-mini/molecules/0001.gml", AG_SOURCE_DIR);
    check_task(args, graph, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_task),
        cmocka_unit_test(test_graph_task),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
