/* Tests of the memory estimate and the limits built on it: the estimate against the memory a
 * training step really takes on a mid-size graph (peak resident size, measured in a fresh child
 * process), overflowing sizes refused with their name, and `attn-graph train --max-memory`; and
 * the memory `attn-graph explain --svg` adds to explain's own for its drawing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "cli_testutil.h"
#include <attngraph/attngraph.h>
#include <attngraph/train.h>

static void model_config(ag_model_config_t *cfg, ag_task_t task, int64_t F, ag_mask_kind_t mask) {
    ag_model_config_default(cfg, task);
    cfg->in_dim = F;
    cfg->n_out = 4;
    cfg->hidden = 64;
    cfg->n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg->blocks[l].attn.heads = 4;
        cfg->blocks[l].attn.head_dim = 16;
        cfg->blocks[l].attn.out_dim = 64;
        cfg->blocks[l].ffn_hidden = 128;
        cfg->blocks[l].mask = mask;
    }
}

/* Full attention costs N^2 work: a smaller graph under AddressSanitizer, whose checks slow it 20x. */
#if defined(__SANITIZE_ADDRESS__)
#define FULL_N 600
#else
#define FULL_N 2500
#endif

static long maxrss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* In a child (whose peak size starts clean): one training step of a node model on a random graph of
 * N nodes and E edges, or with training 0 one evaluation forward pass; writes the peak growth in
 * bytes to fd. */
static void child_step(int fd, int64_t N, int64_t E, int64_t F, ag_mask_kind_t mask, int training) {
    igraph_t ig;
    igraph_rng_seed(igraph_rng_default(), 3);
    if (igraph_erdos_renyi_game_gnm(&ig, (igraph_integer_t)N, (igraph_integer_t)E, IGRAPH_UNDIRECTED, 0) != 0) _exit(2);
    long before = maxrss_kb();
    ag_graph_t g;
    ag_fmat_t X = {0};
    ag_model_config_t cfg;
    model_config(&cfg, AG_TASK_NODE_CLASSIFICATION, F, mask);
    ag_model_t *m;
    if (ag_graph_from_igraph(&g, &ig) || ag_fmat_init(&X, N, F) || ag_model_create(&m, &cfg)) _exit(3);
    for (int64_t i = 0; i < N * F; i++) X.data[i] = ag_rng_normal(1, 0, (uint64_t)i);
    float *out = malloc((size_t)(N * 4) * sizeof(float));
    if (!out) _exit(4);
    ag_batch_t batch;
    ag_batch_init(&batch, &g, X.data, NULL);
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    ag_optim_t opt;
    if (ag_optim_init(&opt, &(ag_optim_config_t){AG_OPTIM_ADAM, 1e-3f, 0.9f, 0.999f, 1e-8f, 0, 0},
                      ag_model_params(m)))
        _exit(5);
    /* the evaluation the estimate describes: label's, which keeps no attention caches */
    if (!training) ag_model_keep_attention(m, 0);
    if (ag_model_forward(m, &batch, training, &rng, out)) _exit(6);
    for (int64_t i = 0; i < N * 4; i++) out[i] = 0.01f;
    if (training && ag_model_backward(m, &batch, out)) _exit(7);
    if (training && ag_optim_step(&opt, ag_model_params(m), -1.0f)) _exit(8);
    long after = maxrss_kb();
    int64_t grew = (int64_t)(after - before) * 1024;
    if (write(fd, &grew, sizeof grew) != (ssize_t)sizeof grew) _exit(9);
    _exit(0);
}

/* The peak growth of child_step, run in a fresh child. */
static int64_t measured_growth(int64_t N, int64_t E, int64_t F, ag_mask_kind_t mask, int training) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child_step(fds[1], N, E, F, mask, training);
    }
    close(fds[1]);
    int64_t grew = 0;
    assert_int_equal(read(fds[0], &grew, sizeof grew), (ssize_t)sizeof grew);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return grew;
}

/* The estimate of a training step and of an evaluation pass against the peak each really takes:
 * the evaluation estimate that still counted every value, feed-forward buffer and head output of
 * every block was 2.5 times the peak of an evaluation that reuses them (neighbours: 121 MiB for
 * 48). */
static void test_estimate_against_peak(void **state) {
    (void)state;
    const int64_t F = 32;
    struct {
        ag_mask_kind_t mask;
        const char *name;
        int64_t N, E;
    } cases[] = {{AG_MASK_NEIGHBOURS, "neighbours", 12000, 60000},
                 {AG_MASK_KHOP, "2-hop", 12000, 60000},
                 {AG_MASK_FULL, "full", FULL_N, 5 * FULL_N}};
    for (int k = 0; k < 3; k++) {
        int64_t N = cases[k].N, E = cases[k].E;
        ag_model_config_t cfg;
        model_config(&cfg, AG_TASK_NODE_CLASSIFICATION, F, cases[k].mask);
        if (cases[k].mask == AG_MASK_KHOP)
            for (int l = 0; l < 2; l++) cfg.blocks[l].hops = 2;
        int64_t est[2];
        for (int training = 0; training <= 1; training++)
            assert_int_equal(ag_model_estimate_memory(&cfg, N, E, 1, training, &est[training]), AG_SUCCESS);
        assert_true(est[0] < est[1]); /* no gradients, no optimiser state */
        if (cases[k].mask == AG_MASK_KHOP) continue; /* k-hop is estimated from the mean degree: no peak check */
        for (int training = 1; training >= 0; training--) {
            int64_t grew = measured_growth(N, E, F, cases[k].mask, training);
            double ratio = (double)est[training] / (double)grew;
            print_message("%s, %s: estimate %.1f MiB, measured peak growth %.1f MiB (ratio %.2f)\n", cases[k].name,
                          training ? "training step" : "evaluation", (double)est[training] / 1048576.0,
                          (double)grew / 1048576.0, ratio);
#if defined(__SANITIZE_ADDRESS__)
            /* AddressSanitizer's redzones, quarantine and shadow memory inflate the peak: only sanity */
            assert_true(grew > 0 && est[training] > 0);
#else
            if (ratio < 0.6 || ratio > 1.8)
                fail_msg("%s: estimate %lld bytes, measured %lld: ratio %.2f outside [0.6, 1.8]",
                         training ? "training step" : "evaluation", (long long)est[training], (long long)grew, ratio);
#endif
        }
    }
}

static void test_estimate_grows_and_overflows(void **state) {
    (void)state;
    ag_model_config_t cfg;
    model_config(&cfg, AG_TASK_GRAPH_CLASSIFICATION, 16, AG_MASK_NEIGHBOURS);
    int64_t a, b, c;
    assert_int_equal(ag_model_estimate_memory(&cfg, 1000, 2000, 10, 1, &a), AG_SUCCESS);
    assert_int_equal(ag_model_estimate_memory(&cfg, 2000, 4000, 20, 1, &b), AG_SUCCESS);
    assert_true(b > a && b < 2 * a + 4 * 1024 * 1024); /* about linear, plus parameters */
    cfg.blocks[0].attn.heads = 8;
    assert_int_equal(ag_model_estimate_memory(&cfg, 1000, 2000, 10, 1, &c), AG_SUCCESS);
    assert_true(c > a); /* more heads, more memory */
    /* nodes x features overflows 64 bits */
    assert_int_equal(ag_model_estimate_memory(&cfg, INT64_MAX / 8, 10, 1, 1, &a), AG_ELIMIT);
    if (!strstr(ag_error_message(), "nodes x features")) fail_msg("%s", ag_error_message());
    /* edges x 2 (CSR entries) */
    assert_int_equal(ag_model_estimate_memory(&cfg, 10, INT64_MAX / 2 + 1, 1, 1, &a), AG_ELIMIT);
    if (!strstr(ag_error_message(), "overflows")) fail_msg("%s", ag_error_message());
    /* edges x heads with a large but representable graph */
    cfg.blocks[0].attn.heads = (int64_t)1 << 40;
    assert_int_equal(ag_model_estimate_memory(&cfg, 1 << 20, 1 << 24, 1, 0, &a), AG_ELIMIT);
    if (!strstr(ag_error_message(), "overflows")) fail_msg("%s", ag_error_message());
    assert_int_equal(ag_model_estimate_memory(&cfg, -1, 0, 1, 0, &a), AG_EINVAL);
    /* the trainset's own target table */
    ag_trainset_t set;
    ag_trainset_init(&set, AG_TASK_GRAPH_MULTITASK);
    assert_int_equal(ag_trainset_resize(&set, 1, INT64_MAX / 2, 4), AG_ELIMIT);
    ag_trainset_destroy(&set);
}

/* The bytes of "needs about 1.5 MiB" in a refusal message (to the message's rounding). */
static double needed_bytes(const char *err) {
    const char *at = strstr(err, "needs about ");
    if (!at) fail_msg("no estimate in: %s", err);
    double v = 0;
    char unit[8] = "";
    if (sscanf(at + 12, "%lf %7s", &v, unit) != 2) fail_msg("unreadable estimate in: %s", err);
    double scale = !strcmp(unit, "GiB") ? 1073741824.0 : !strcmp(unit, "MiB") ? 1048576.0 : !strcmp(unit, "KiB") ? 1024.0 : 1.0;
    return v * scale;
}

static void test_cli_max_memory(void **state) {
    (void)state;
    char err[4096];
    const char *data = "train --labels tests/data/mutag-mini/labels.csv --split tests/data/mutag-mini/split.csv "
                       "--epochs 1 --threads 1 --quiet --mask full";
    char args[1024];
    snprintf(args, sizeof args, "%s --max-memory 64K", data);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 1);
    if (!strstr(err, "this run needs about") || !strstr(err, "the limit is 64.0 KiB, --max-memory") ||
        !strstr(err, "--mask neighbours") || !strstr(err, "--batch-size") || !strstr(err, "fewer heads"))
        fail_msg("%s", err);
    char model[] = "/tmp/ag_mem_model_XXXXXX";
    int fd = mkstemp(model);
    assert_true(fd >= 0);
    close(fd);
    snprintf(args, sizeof args, "%s --max-memory 1G -o %s", data, model);
    if (ag_cli_status(NULL, args, err, sizeof err) != 0) fail_msg("%s", err);
    /* eval estimates its evaluation pass */
    snprintf(args, sizeof args, "eval --model %s --labels tests/data/mutag-mini/labels.csv --split "
             "tests/data/mutag-mini/split.csv --max-memory 10K", model);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 1);
    if (!strstr(err, "an evaluation pass on") || !strstr(err, "the limit is 10.0 KiB")) fail_msg("%s", err);
    snprintf(args, sizeof args, "eval --model %s --labels tests/data/mutag-mini/labels.csv --split "
             "tests/data/mutag-mini/split.csv --max-memory 100M", model);
    if (ag_cli_status(NULL, args, err, sizeof err) != 0) fail_msg("%s", err);
    unlink(model);
    snprintf(args, sizeof args, "%s --max-memory 12Q", data);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 2);
    if (!strstr(err, "--max-memory takes a size")) fail_msg("%s", err);
    /* 0 is no size, as info and classify read it (it was a limit of 0 bytes) */
    snprintf(args, sizeof args, "%s --max-memory 0", data);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 2);
    if (!strstr(err, "--max-memory takes a size like 4G, 512M or 100000000, not '0'")) fail_msg("%s", err);

    /* an ensemble keeps every member's evaluation pass: at twice what one model needs, one model
     * trains and twelve are refused, with the ensemble named among the remedies (eight fitted
     * once an evaluation pass kept no attention caches: 16.5 MiB for one, 30.7 for eight) */
    snprintf(args, sizeof args, "%s --max-memory 64K", data);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 1);
    double need = needed_bytes(err);
    snprintf(args, sizeof args, "%s --max-memory %.0f", data, 2 * need);
    if (ag_cli_status(NULL, args, err, sizeof err) != 0) fail_msg("%s", err);
    snprintf(args, sizeof args, "%s --ensemble 12 --max-memory %.0f", data, 2 * need);
    assert_int_equal(ag_cli_status(NULL, args, err, sizeof err), 1);
    if (!strstr(err, "fewer ensemble members (--ensemble)")) fail_msg("%s", err);
    assert_true(needed_bytes(err) > 2 * need);
}

/* The default limit: /proc/meminfo's MemAvailable, read by hand here, within what the machine
 * has; two reads a moment apart agree within 256 MiB (other processes move it a little). */
static void test_memory_available(void **state) {
    (void)state;
    int64_t a = ag_memory_available();
    FILE *f = fopen("/proc/meminfo", "r");
    assert_non_null(f);
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
    fclose(f);
    assert_true(kb > 0);
    int64_t total = (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)sysconf(_SC_PAGESIZE);
    assert_true(a > 0 && a <= total);
    int64_t d = a - (int64_t)kb * 1024;
    assert_true(d < ((int64_t)256 << 20) && d > -((int64_t)256 << 20));
}

/* The peak resident size in KiB of `attn-graph ARGV...` run from the source tree in a child of its
 * own (wait4 reports that child's peak alone); fails the test unless it exits 0. */
static long cli_peak_kb(char *const argv[]) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0 || chdir(AG_SOURCE_DIR) < 0)
            _exit(126);
        setenv("OMP_WAIT_POLICY", "passive", 1);
        execv(AG_CLI_PATH, argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("%s %s: status %d", argv[0], argv[1], status);
    return ru.ru_maxrss;
}

/* explain --svg on a connected sparse graph of 6,000 atoms: the drawing may add memory in
 * proportion to N + E, a few MiB here, to what explain takes without it. Above 5,000 vertices it
 * was drawn by igraph's DrL, whose fixed 1000 x 1000 density grid of C++ deques took about
 * 625 MiB whatever the graph (a 7,624-vertex social graph peaked at 760 MiB, 112 MiB without
 * --svg). The same run without --svg is the baseline, so that the model's own memory and the
 * build (sanitizers) cancel out. */
static void test_explain_svg_memory(void **state) {
    (void)state;
    enum { N = 6000 };
    char dir[256], gml[300], out[300], svg[300];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "explain_mem", 1), 0);
    snprintf(gml, sizeof gml, "%s/ring.gml", dir);
    snprintf(out, sizeof out, "%s/ring-attn.gml", dir);
    snprintf(svg, sizeof svg, "%s/ring.svg", dir);
    FILE *f = fopen(gml, "w");
    assert_non_null(f);
    /* a ring with a chord from every third atom to a far one: one component, E = 4N/3 */
    fprintf(f, "graph [\n directed 0\n");
    for (int i = 0; i < N; i++) fprintf(f, " node [ id %d element \"C\" ]\n", i);
    for (int i = 0; i < N; i++) {
        fprintf(f, " edge [ source %d target %d bond_type \"SINGLE\" ]\n", i, (i + 1) % N);
        if (i % 3 == 0) fprintf(f, " edge [ source %d target %d bond_type \"SINGLE\" ]\n", i, (i * 37 + 11) % N);
    }
    fprintf(f, "]\n");
    assert_int_equal(fclose(f), 0);
    char *plain[] = {"attn-graph", "explain", "--threads", "1", "--model", "graphs/models/mutag.safetensors",
                     gml, "-o", out, NULL};
    char *drawn[] = {"attn-graph", "explain", "--threads", "1", "--model", "graphs/models/mutag.safetensors",
                     gml, "-o", out, "--svg", svg, NULL};
    long base = cli_peak_kb(plain), with_svg = cli_peak_kb(drawn);
    assert_int_equal(ag_test_remove_dir(dir), 0);
    print_message("explain on %d vertices: peak %.1f MiB, with --svg %.1f MiB\n", N, base / 1024.0,
                  with_svg / 1024.0);
    if (with_svg - base > 64 * 1024)
        fail_msg("--svg added %.1f MiB to explain's %.1f MiB on %d vertices", (with_svg - base) / 1024.0,
                 base / 1024.0, N);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_against_peak),
        cmocka_unit_test(test_estimate_grows_and_overflows),
        cmocka_unit_test(test_cli_max_memory),
        cmocka_unit_test(test_memory_available),
        cmocka_unit_test(test_explain_svg_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
