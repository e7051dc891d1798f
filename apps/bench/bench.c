/*
 * bench.c: attn-graph-bench, timings and peak memory of one attention layer.
 *
 *   attn-graph-bench scale --nodes N --edges E --features F --heads H --dim D [--backward]
 *                          [--score gat|dot|gatv2] [--repeat R] [--threads T] [--seed S]
 *   attn-graph-bench full  --nodes N --features F --heads H --dim D [--backward]
 *                          [--score dot|gat|gatv2] [--repeat R] [--threads T]
 *
 * `scale` runs a neighbour-mask layer (concatenated heads, bias, no W^O: GAT-style) on a uniform
 * random directed graph; `full` runs full attention over one graph of N nodes. Each measurement
 * is printed as one JSON object: median/min/max seconds over the repeats, the median CPU seconds
 * (user + system, getrusage) beside them, peak RSS so far, threads, BLAS provider, and a checksum
 * of the output (equal for any thread count). cora, molecules and mutag are in bench_models.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "attngraph/attention.h"
#include "bench.h"

typedef struct {
    const char *cmd;
    int64_t nodes, edges, features, heads, dim;
    int backward, repeat, threads;
    uint64_t seed;
    ag_score_t score;
    const char *score_name;
} opts_t;

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

double bench_peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_stats_t bench_stats(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    bench_stats_t st = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[n - 1]};
    return st;
}

static void report(const opts_t *o, const char *phase, double *t, double *cpu, int n, double mask_s,
                   double checksum) {
    bench_stats_t w = bench_stats(t, n), c = bench_stats(cpu, n);
    printf("{\"bench\": \"%s\", \"phase\": \"%s\", \"score\": \"%s\", \"nodes\": %lld, \"edges\": %lld, "
           "\"features\": %lld, \"heads\": %lld, \"dim\": %lld, \"repeat\": %d, \"median_s\": %.4f, "
           "\"min_s\": %.4f, \"max_s\": %.4f, \"cpu_seconds\": %.4f, \"mask_build_s\": %.4f, \"peak_rss_mb\": %.1f, "
           "\"threads\": %d, \"blas\": \"%s\", \"checksum\": %.9g}\n",
           o->cmd, phase, o->score_name, (long long)o->nodes, (long long)o->edges, (long long)o->features,
           (long long)o->heads, (long long)o->dim, n, w.median, w.min, w.max, c.median, mask_s,
           bench_peak_rss_mb(), ag_threads_get(), ag_blas_name(), checksum);
    fflush(stdout);
}

/* The machine's memory bandwidth as the sparse passes see it: STREAM-style copy (a = b) and triad
 * (a = b + s c) over three arrays far larger than the caches, the best of the repeats. */
static int triad(int argc, char **argv) {
    int64_t mb = 512;
    int repeat = 5, threads = 0;
    for (int a = 2; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--mb")) mb = atoll(argv[a + 1]);
        else if (!strcmp(argv[a], "--repeat")) repeat = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--threads")) threads = atoi(argv[a + 1]);
        else return 2;
    }
    ag_threads_set(threads);
    int nt = ag_threads_get();
    int64_t n = mb * 1024 * 1024 / 4 / 3; /* floats per array */
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z);
    if (!x || !y || !z || repeat <= 0) return 1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t i = 0; i < n; i++) {
        x[i] = 0.0f;
        y[i] = 1.0f;
        z[i] = 2.0f;
    }
    double best_copy = 1e30, best_triad = 1e30, cpu_copy = 0.0, cpu_triad = 0.0;
    for (int r = 0; r < repeat; r++) {
        double t0 = bench_now(), c0 = bench_cpu();
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) x[i] = y[i];
        double t = bench_now() - t0;
        if (t < best_copy) {
            best_copy = t;
            cpu_copy = bench_cpu() - c0;
        }
        t0 = bench_now();
        c0 = bench_cpu();
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) x[i] = y[i] + 3.0f * z[i];
        t = bench_now() - t0;
        if (t < best_triad) {
            best_triad = t;
            cpu_triad = bench_cpu() - c0;
        }
    }
    printf("{\"bench\": \"triad\", \"array_mb\": %.1f, \"repeat\": %d, \"copy_gb_s\": %.2f, \"copy_cpu_s\": %.4f, "
           "\"triad_gb_s\": %.2f, \"triad_cpu_s\": %.4f, \"min_copy_s\": %.4f, \"min_triad_s\": %.4f, \"threads\": %d, "
           "\"checksum\": %.1f}\n",
           (double)n * 4.0 / 1048576.0, repeat, 8.0 * (double)n / best_copy / 1e9, cpu_copy,
           12.0 * (double)n / best_triad / 1e9, cpu_triad, best_copy, best_triad, nt, (double)x[n / 2]);
    free(x);
    free(y);
    free(z);
    return 0;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform random directed graph as an in-neighbour CSR sorted by (destination, source, edge):
 * two stable counting sorts, by source then by destination. */
static int random_graph(ag_graph_t *g, int64_t N, int64_t E, uint64_t seed) {
    memset(g, 0, sizeof *g);
    int32_t *es = malloc((size_t)E * sizeof *es), *ed = malloc((size_t)E * sizeof *ed);
    int64_t *cnt = calloc((size_t)N + 1, sizeof *cnt), *tmp = malloc((size_t)E * sizeof *tmp);
    g->indptr = calloc((size_t)N + 1, sizeof *g->indptr);
    g->src = malloc((size_t)E * sizeof *g->src);
    g->edge = malloc((size_t)E * sizeof *g->edge);
    g->graph_ptr = calloc(2, sizeof *g->graph_ptr);
    g->edge_ptr = calloc(2, sizeof *g->edge_ptr);
    g->node_graph = calloc((size_t)N, sizeof *g->node_graph);
    if (!es || !ed || !cnt || !tmp || !g->indptr || !g->src || !g->edge || !g->graph_ptr || !g->edge_ptr ||
        !g->node_graph)
        return 1;
    uint64_t s = seed;
    for (int64_t e = 0; e < E; e++) {
        es[e] = (int32_t)(splitmix(&s) % (uint64_t)N);
        ed[e] = (int32_t)(splitmix(&s) % (uint64_t)N);
    }
    for (int64_t e = 0; e < E; e++) cnt[es[e] + 1]++;
    for (int64_t i = 0; i < N; i++) cnt[i + 1] += cnt[i];
    for (int64_t e = 0; e < E; e++) tmp[cnt[es[e]]++] = e; /* edges by source */
    for (int64_t e = 0; e < E; e++) g->indptr[ed[e] + 1]++;
    for (int64_t i = 0; i < N; i++) g->indptr[i + 1] += g->indptr[i];
    memcpy(cnt, g->indptr, (size_t)N * sizeof *cnt);
    for (int64_t t = 0; t < E; t++) {
        int64_t e = tmp[t], k = cnt[ed[e]]++;
        g->src[k] = es[e];
        g->edge[k] = e;
    }
    g->n_nodes = N;
    g->n_edges = g->n_entries = E;
    g->n_graphs = 1;
    g->directed = 1;
    g->graph_ptr[1] = N;
    g->edge_ptr[1] = E;
    free(es);
    free(ed);
    free(cnt);
    free(tmp);
    return 0;
}

static void free_graph(ag_graph_t *g) {
    free(g->indptr);
    free(g->src);
    free(g->edge);
    free(g->graph_ptr);
    free(g->edge_ptr);
    free(g->node_graph);
    memset(g, 0, sizeof *g);
}

static int usage(void) {
    fprintf(stderr, "usage: attn-graph-bench scale --nodes N --edges E --features F --heads H --dim D [--backward]\n"
                    "                              [--score gat|dot|gatv2] [--repeat R] [--threads T] [--seed S]\n"
                    "       attn-graph-bench full --nodes N --features F --heads H --dim D [--backward]\n"
                    "                             [--score dot|gat|gatv2] [--repeat R] [--threads T]\n"
                    "       attn-graph-bench cora DATASETS_DIR [--repeat R] [--threads T]\n"
                    "       attn-graph-bench molecules DIR [--model M] [--batch B] [--limit L] [--repeat R] [--threads T]\n"
                    "       attn-graph-bench mutag DIR [--repeat R] [--threads T]\n"
                    "       attn-graph-bench triad [--mb MB] [--repeat R] [--threads T]\n");
    return 2;
}

static int fail(const char *what) {
    fprintf(stderr, "attn-graph-bench: %s: %s\n", what, ag_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "cora")) return bench_cora(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "molecules")) return bench_molecules(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "mutag")) return bench_mutag(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "triad")) return triad(argc, argv) == 2 ? usage() : 0;
    if (argc < 2 || (strcmp(argv[1], "scale") && strcmp(argv[1], "full"))) return usage();
    opts_t o = {argv[1], 100000, 1000000, 64, 8, 8, 0, 3, 0, 1, AG_SCORE_GAT, "gat"};
    int full = !strcmp(o.cmd, "full");
    if (full) {
        o.score = AG_SCORE_DOT;
        o.score_name = "dot";
        o.nodes = 4096;
        o.edges = 0;
    }
    for (int a = 2; a < argc; a++) {
        const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(k, "--backward")) { o.backward = 1; continue; }
        if (!v) return usage();
        a++;
        if (!strcmp(k, "--nodes")) o.nodes = atoll(v);
        else if (!strcmp(k, "--edges")) o.edges = atoll(v);
        else if (!strcmp(k, "--features")) o.features = atoll(v);
        else if (!strcmp(k, "--heads")) o.heads = atoll(v);
        else if (!strcmp(k, "--dim")) o.dim = atoll(v);
        else if (!strcmp(k, "--repeat")) o.repeat = atoi(v);
        else if (!strcmp(k, "--threads")) o.threads = atoi(v);
        else if (!strcmp(k, "--seed")) o.seed = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--score")) {
            o.score_name = v;
            if (!strcmp(v, "gat")) o.score = AG_SCORE_GAT;
            else if (!strcmp(v, "dot")) o.score = AG_SCORE_DOT;
            else if (!strcmp(v, "gatv2")) o.score = AG_SCORE_GATV2;
            else return usage();
        } else return usage();
    }
    if (o.nodes <= 0 || o.edges < 0 || o.repeat <= 0 || o.features <= 0 || o.heads <= 0 || o.dim <= 0) return usage();
    ag_threads_set(o.threads);

    ag_graph_t g;
    if (random_graph(&g, o.nodes, o.edges, o.seed)) {
        fprintf(stderr, "attn-graph-bench: out of memory building the graph\n");
        return 1;
    }
    ag_mask_t mask;
    double t0 = bench_now();
    if (ag_mask_build(&mask, &g, full ? AG_MASK_FULL : AG_MASK_NEIGHBOURS, 1, 1)) return fail("mask");
    double mask_s = bench_now() - t0;
    free_graph(&g);

    ag_attention_config_t cfg;
    ag_attention_config_default(&cfg, o.features);
    cfg.heads = o.heads;
    cfg.head_dim = o.dim;
    cfg.score = o.score;
    cfg.out_proj = 0;
    ag_attention_t layer;
    if (ag_attention_init(&layer, &cfg, 1)) return fail("init");
    int64_t N = o.nodes, F = o.features, O = ag_attention_out_dim(&cfg);
    float *X = malloc((size_t)(N * F) * sizeof *X), *Y = malloc((size_t)(N * O) * sizeof *Y);
    if (!X || !Y) return fail("inputs");
    uint64_t s = o.seed + 1;
    for (int64_t t = 0; t < N * F; t++) X[t] = (float)((double)(splitmix(&s) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    double *times = malloc((size_t)o.repeat * sizeof *times), *cpu = malloc((size_t)o.repeat * sizeof *cpu);
    for (int r = 0; r < o.repeat; r++) {
        double c0 = bench_cpu();
        t0 = bench_now();
        if (ag_attention_forward(&layer, &mask, X, NULL, Y, 1, NULL)) return fail("forward");
        times[r] = bench_now() - t0;
        cpu[r] = bench_cpu() - c0;
    }
    double checksum = 0.0;
    for (int64_t t = 0; t < N * O; t++) checksum += (double)Y[t] * (double)((t % 7) + 1);
    report(&o, "forward", times, cpu, o.repeat, mask_s, checksum);
    if (o.backward) {
        float *dY = malloc((size_t)(N * O) * sizeof *dY), *dX = calloc((size_t)(N * F), sizeof *dX);
        if (!dY || !dX) return fail("gradients");
        for (int64_t t = 0; t < N * O; t++) dY[t] = (float)((double)(splitmix(&s) >> 11) / 9007199254740992.0 - 0.5);
        for (int r = 0; r < o.repeat; r++) {
            memset(dX, 0, (size_t)(N * F) * sizeof *dX);
            double c0 = bench_cpu();
            t0 = bench_now();
            if (ag_attention_forward(&layer, &mask, X, NULL, Y, 1, NULL)) return fail("forward");
            if (ag_attention_backward(&layer, &mask, X, NULL, dY, dX, NULL)) return fail("backward");
            times[r] = bench_now() - t0;
            cpu[r] = bench_cpu() - c0;
        }
        checksum = 0.0;
        for (int64_t t = 0; t < N * F; t++) checksum += (double)dX[t] * (double)((t % 7) + 1);
        report(&o, "forward+backward", times, cpu, o.repeat, mask_s, checksum);
        free(dY);
        free(dX);
    }
    free(times);
    free(cpu);
    free(X);
    free(Y);
    ag_attention_destroy(&layer);
    ag_mask_destroy(&mask);
    return 0;
}
