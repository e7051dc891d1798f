/*
 * bench_models.c: the whole-model measurements of attn-graph-bench.
 *
 *   cora DATASETS_DIR   the GAT paper's Cora model (ag_model_config_gat): one training epoch
 *                       (forward, loss, backward, Adam step) and one full-graph inference.
 *                       --dense fills the zeros of the features with 1e-30 so that the first
 *                       layer takes the dense product instead of the sparse one (a comparison).
 *   molecules DIR       molecules per second, end to end: read every graph file of DIR, featurise
 *                       it, batch, predict. With --model M the bundle M (file reading and its
 *                       featuriser included); without, a default graph model with fresh weights
 *                       and a featuriser fitted on the first files (the same work per molecule
 *                       as a trained model of that shape).
 *   mutag DIR           MUTAG's 188 graphs in memory, 3 attention blocks 64 wide with 4 heads
 *                       (the default graph model), batched inference, graphs per second.
 *
 * Each prints one JSON object per measurement (see bench.c). The program may abort on its own
 * allocation failures (it is a measuring tool, not the library).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <igraph.h>
#include "attngraph/attention.h"
#include "attngraph/dataset.h"
#include "attngraph/features.h"
#include "attngraph/graph.h"
#include "attngraph/loss.h"
#include "attngraph/model.h"
#include "attngraph/modelfile.h"
#include "attngraph/optim.h"
#include "attngraph/prepare.h"
#include "attngraph/table.h"
#include "attngraph/train.h"
#include "bench.h"

typedef struct mopts_t {
    const char *dir, *model;
    int repeat, threads, dense;
    const char *arch; /* mutag: transformer (default), attention, gat */
    int64_t batch, limit;
} mopts_t;

static int mfail(const char *what) {
    fprintf(stderr, "attn-graph-bench: %s: %s\n", what, ag_error_message());
    return 1;
}

static int moom(void) {
    fprintf(stderr, "attn-graph-bench: out of memory\n");
    return 1;
}

static int musage(const char *cmd) {
    fprintf(stderr, "usage: attn-graph-bench %s DIR [--model M] [--batch B] [--limit L] [--dense] [--arch transformer|attention|gat] [--repeat R] [--threads T]\n",
            cmd);
    return 2;
}

static int parse(int argc, char **argv, mopts_t *o, int default_repeat) {
    memset(o, 0, sizeof *o);
    o->repeat = default_repeat;
    o->batch = 64;
    if (argc < 3) return 1;
    o->dir = argv[2];
    for (int a = 3; a < argc; a++) {
        if (!strcmp(argv[a], "--dense")) {
            o->dense = 1;
            continue;
        }
        if (a + 1 >= argc) return 1;
        const char *k = argv[a], *v = argv[++a];
        if (!strcmp(k, "--model")) o->model = v;
        else if (!strcmp(k, "--repeat")) o->repeat = atoi(v);
        else if (!strcmp(k, "--threads")) o->threads = atoi(v);
        else if (!strcmp(k, "--batch")) o->batch = atoll(v);
        else if (!strcmp(k, "--limit")) o->limit = atoll(v);
        else if (!strcmp(k, "--arch")) o->arch = v;
        else return 1;
    }
    return o->repeat <= 0 || o->batch <= 0 || o->limit < 0;
}

/* One JSON line: wall and CPU seconds of the repeats, and per-item throughput when items > 0. */
static void emit(const char *bench, const char *phase, const char *extra, double *wall, double *cpu, int n,
                 int64_t items, const char *unit) {
    bench_stats_t w = bench_stats(wall, n), c = bench_stats(cpu, n);
    printf("{\"bench\": \"%s\", \"phase\": \"%s\", %s\"repeat\": %d, \"median_s\": %.5f, \"min_s\": %.5f, "
           "\"max_s\": %.5f, \"cpu_seconds\": %.5f",
           bench, phase, extra, n, w.median, w.min, w.max, c.median);
    if (items > 0)
        printf(", \"%s\": %lld, \"%s_per_s\": %.1f, \"%s_per_cpu_s\": %.1f", unit, (long long)items, unit,
               (double)items / w.median, unit, (double)items / c.median);
    printf(", \"peak_rss_mb\": %.1f, \"threads\": %d, \"blas\": \"%s\"}\n", bench_peak_rss_mb(), ag_threads_get(),
           ag_blas_name());
    fflush(stdout);
}

/* ---- Cora */

/* The "train" list of split.json: vertex indices. A plain scan is enough for that file. */
static int64_t read_train_split(const char *path, int64_t **idx) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char *buf = malloc(1 << 24);
    size_t len = buf ? fread(buf, 1, (1 << 24) - 1, f) : 0;
    fclose(f);
    if (!buf) return -1;
    buf[len] = '\0';
    char *p = strstr(buf, "\"train\"");
    p = p ? strchr(p, '[') : NULL;
    int64_t n = 0;
    *idx = malloc(4096 * sizeof **idx);
    while (p && *p && *p != ']' && n < 4096) {
        p++;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        (*idx)[n++] = v;
        p = end;
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    }
    free(buf);
    return n;
}

int bench_cora(int argc, char **argv) {
    mopts_t o;
    if (parse(argc, argv, &o, 20)) return musage("cora");
    ag_threads_set(o.threads);
    char path[4096];
    igraph_t ig;
    snprintf(path, sizeof path, "%s/cora/cora.gml", o.dir);
    if (ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0)) return mfail("graph");
    ag_node_table_t tab;
    ag_table_options_t topts;
    ag_table_options_init(&topts);
    topts.last_is_label = 1;
    snprintf(path, sizeof path, "%s/cora/cora.content", o.dir);
    if (ag_table_read(&tab, path, &ig, &topts)) return mfail("features");
    int64_t N = tab.features.rows, F = tab.features.cols, C = 7;
    float *X = tab.features.data; /* (N x F) */
    for (int64_t i = 0; i < N; i++) { /* GAT practice: row-normalised bag of words */
        double s = 0.0;
        for (int64_t f = 0; f < F; f++) s += X[i * F + f];
        if (s > 0.0)
            for (int64_t f = 0; f < F; f++) X[i * F + f] = (float)(X[i * F + f] / s);
    }
    /* --dense: zeros become 1e-30 (a normal float, no effect on the results beyond rounding), so
     * that the first layer takes the dense product: the comparison for the sparse one */
    if (o.dense)
        for (int64_t t = 0; t < N * F; t++)
            if (X[t] == 0.0f) X[t] = 1e-30f;
    int32_t *labels = malloc((size_t)N * sizeof *labels); /* (N) -1 outside the training split */
    for (int64_t i = 0; i < N; i++) labels[i] = -1;
    int64_t *train = NULL;
    snprintf(path, sizeof path, "%s/cora/split.json", o.dir);
    int64_t n_train = read_train_split(path, &train);
    if (n_train <= 0) {
        fprintf(stderr, "attn-graph-bench: %s: no train split\n", path);
        return 1;
    }
    for (int64_t t = 0; t < n_train; t++)
        labels[train[t]] = (int32_t)igraph_cattribute_VAN(&ig, "label", (igraph_integer_t)train[t]);
    ag_graph_t g;
    if (ag_graph_from_igraph(&g, &ig)) return mfail("graph");
    igraph_destroy(&ig);

    ag_model_config_t cfg;
    ag_model_config_gat(&cfg, F, C);
    ag_model_t *model;
    if (ag_model_create(&model, &cfg)) return mfail("model");
    const ag_param_list_t *params = ag_model_params(model);
    ag_optim_config_t oc;
    ag_optim_config_default(&oc, AG_OPTIM_ADAM);
    oc.lr = 0.005f;
    oc.weight_decay = 5e-4f;
    ag_optim_t opt;
    if (ag_optim_init(&opt, &oc, params)) return mfail("optimizer");
    ag_batch_t batch;
    ag_batch_init(&batch, &g, X, NULL);
    ag_rng_t rng;
    ag_rng_init(&rng, 7);
    float *out = malloc((size_t)(N * C) * sizeof *out), *dout = malloc((size_t)(N * C) * sizeof *dout);
    double *wall = malloc((size_t)(o.repeat + 1) * sizeof *wall), *cpu = malloc((size_t)(o.repeat + 1) * sizeof *cpu);
    double loss = 0.0;
    /* epoch 0 builds the mask (once per batch) and warms the caches; it is not counted */
    for (int r = -1; r < o.repeat; r++) {
        double t0 = bench_now(), c0 = bench_cpu();
        ag_param_list_zero_grad(params);
        if (ag_model_forward(model, &batch, 1, &rng, out)) return mfail("forward");
        if (ag_loss_cross_entropy(out, labels, N, C, NULL, 1.0f, dout, &loss, NULL)) return mfail("loss");
        if (ag_model_backward(model, &batch, dout)) return mfail("backward");
        if (ag_optim_step(&opt, params, -1.0f)) return mfail("step");
        if (r >= 0) {
            wall[r] = bench_now() - t0;
            cpu[r] = bench_cpu() - c0;
        }
    }
    char extra[256];
    snprintf(extra, sizeof extra, "\"nodes\": %lld, \"features\": %lld, \"input\": \"%s\", \"last_loss\": %.5f, ",
             (long long)N, (long long)F, o.dense ? "dense" : "sparse", loss);
    emit("cora", "train_epoch", extra, wall, cpu, o.repeat, 0, "");
    for (int r = -1; r < o.repeat; r++) {
        double t0 = bench_now(), c0 = bench_cpu();
        if (ag_model_forward(model, &batch, 0, NULL, out)) return mfail("inference");
        if (r >= 0) {
            wall[r] = bench_now() - t0;
            cpu[r] = bench_cpu() - c0;
        }
    }
    double checksum = 0.0;
    for (int64_t t = 0; t < N * C; t++) checksum += (double)out[t] * (double)((t % 7) + 1);
    snprintf(extra, sizeof extra, "\"nodes\": %lld, \"features\": %lld, \"input\": \"%s\", \"checksum\": %.9g, ",
             (long long)N, (long long)F, o.dense ? "dense" : "sparse", checksum);
    emit("cora", "inference", extra, wall, cpu, o.repeat, 0, "");
    free(wall);
    free(cpu);
    free(out);
    free(dout);
    free(train);
    free(labels);
    ag_batch_destroy(&batch);
    ag_optim_destroy(&opt);
    ag_model_destroy(model);
    ag_graph_destroy(&g);
    ag_node_table_destroy(&tab);
    return 0;
}

/* ---- MUTAG */

int bench_mutag(int argc, char **argv) {
    mopts_t o;
    if (parse(argc, argv, &o, 20)) return musage("mutag");
    ag_threads_set(o.threads);
    char path[4096];
    snprintf(path, sizeof path, "%s/labels.csv", o.dir);
    ag_dataset_options_t dopts;
    ag_dataset_options_init(&dopts);
    static const char *const target[] = {"label"};
    dopts.targets.targets = target;
    dopts.targets.n_targets = 1;
    ag_dataset_t ds;
    if (ag_dataset_load(&ds, path, &dopts)) return mfail("dataset");
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    if (ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0)) return mfail("prepare");
    int64_t G = p.set.n_examples, F = p.set.examples[0].X.cols, Fe = p.set.examples[0].E.cols;
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_CLASSIFICATION);
    cfg.in_dim = F;
    cfg.edge_dim = Fe;
    cfg.n_out = p.n_out;
    /* The peer figure is "3 attention layers, 64 wide, 4 heads" in PyTorch Geometric:
     * --arch attention drops our feed-forward sub-blocks; --arch gat is PyG's GATConv stack (GAT
     * scores, one projection per layer, no W^O, no LayerNorm, ELU). Default: our graph model. */
    const char *arch = o.arch ? o.arch : "transformer";
    if (strcmp(arch, "transformer") && strcmp(arch, "attention") && strcmp(arch, "gat")) return musage("mutag");
    for (int b = 0; b < cfg.n_blocks && strcmp(arch, "transformer"); b++) {
        cfg.blocks[b].ffn = 0;
        if (!strcmp(arch, "gat")) {
            cfg.blocks[b].attn.score = AG_SCORE_GAT;
            cfg.blocks[b].attn.out_proj = 0;
            cfg.blocks[b].norm = AG_NORMPLACE_NONE;
            cfg.blocks[b].act = AG_ACT_ELU;
        }
    }
    ag_model_t *model;
    if (ag_model_create(&model, &cfg)) return mfail("model");
    ag_batch_member_t *members = malloc((size_t)G * sizeof *members);
    if (!members) return moom();
    for (int64_t k = 0; k < G; k++) {
        const ag_example_t *ex = &p.set.examples[k];
        members[k] = (ag_batch_member_t){&ex->graph, &ex->X, &ex->E};
    }
    ag_batch_buffer_t gb; /* (N x F), (E x Fe) */
    ag_batch_buffer_init(&gb);
    ag_batch_t filled; /* what each repeat wraps afresh */
    if (ag_batch_buffer_fill(&gb, members, G, F, Fe, &filled)) return mfail("batch");
    float *out = malloc((size_t)(G * cfg.n_out) * sizeof *out);
    double *wall = malloc((size_t)o.repeat * sizeof *wall), *cpu = malloc((size_t)o.repeat * sizeof *cpu);
    if (!out || !wall || !cpu) return moom();
    /* each repeat is a fresh batch: its masks are built inside the timed region */
    for (int r = -1; r < o.repeat; r++) {
        double t0 = bench_now(), c0 = bench_cpu();
        ag_batch_t batch;
        ag_batch_init(&batch, filled.graph, filled.X, filled.E);
        if (ag_model_predict_batch(model, &batch, out)) return mfail("predict");
        ag_batch_destroy(&batch);
        if (r >= 0) {
            wall[r] = bench_now() - t0;
            cpu[r] = bench_cpu() - c0;
        }
    }
    /* a weighted sum of the outputs: equal for any thread count, and across code changes that
     * keep the same operations (or within rounding when they do not) */
    double checksum = 0.0;
    for (int64_t t = 0; t < G * cfg.n_out; t++) checksum += (double)out[t] * (double)((t % 7) + 1);
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"nodes\": %lld, \"features\": %lld, \"edge_features\": %lld, \"blocks\": %d, \"arch\": \"%s\", \"checksum\": %.9g, ",
             (long long)gb.graph.n_nodes, (long long)F, (long long)Fe, cfg.n_blocks, arch, checksum);
    emit("mutag", "batched_inference", extra, wall, cpu, o.repeat, G, "graphs");
    free(wall);
    free(cpu);
    free(out);
    ag_batch_destroy(&filled);
    ag_batch_buffer_destroy(&gb);
    free(members);
    ag_model_destroy(model);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
    return 0;
}

/* ---- a folder of molecules */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int64_t list_graph_files(const char *dir, char ***names) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int64_t n = 0, cap = 1024;
    *names = malloc((size_t)cap * sizeof **names);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".gml")) continue;
        if (n == cap) *names = realloc(*names, (size_t)(cap *= 2) * sizeof **names);
        (*names)[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(*names, (size_t)n, sizeof **names, cmp_str);
    return n;
}

/* A bundle without a model file: a default multi-task graph model (12 outputs, Tox21's shape)
 * over a featuriser fitted on the first files. */
static int fresh_bundle(ag_bundle_t *b, const char *dir, char **names, int64_t n) {
    int64_t k = n < 64 ? n : 64;
    igraph_t *gs = malloc((size_t)k * sizeof *gs);
    const igraph_t **gp = malloc((size_t)k * sizeof *gp);
    char path[4096];
    for (int64_t t = 0; t < k; t++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[t]);
        if (ag_graph_read(&gs[t], path, AG_FORMAT_AUTO, 0)) return 1;
        gp[t] = &gs[t];
    }
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_featurizer_t f;
    if (ag_featurizer_fit(&f, &fc, gp, k)) return 1;
    ag_fmat_t X = {0}, E = {0};
    if (ag_featurizer_transform(&f, &gs[0], &X, &E)) return 1;
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_MULTITASK);
    cfg.in_dim = X.cols;
    cfg.edge_dim = E.cols;
    cfg.n_out = 12;
    ag_model_t *model;
    if (ag_model_create(&model, &cfg)) return 1;
    char tn[12][8];
    const char *tp[12];
    for (int t = 0; t < 12; t++) {
        snprintf(tn[t], sizeof tn[t], "t%d", t);
        tp[t] = tn[t];
    }
    ag_table_norm_t table;
    memset(&table, 0, sizeof table);
    if (ag_bundle_init(b, &model, &f, &table, tp, 12, NULL)) return 1;
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    for (int64_t t = 0; t < k; t++) igraph_destroy(&gs[t]);
    free(gs);
    free(gp);
    return 0;
}

int bench_molecules(int argc, char **argv) {
    mopts_t o;
    if (parse(argc, argv, &o, 3)) return musage("molecules");
    ag_threads_set(o.threads);
    char **names;
    int64_t n = list_graph_files(o.dir, &names);
    if (n <= 0) {
        fprintf(stderr, "attn-graph-bench: %s: no .gml files\n", o.dir);
        return 1;
    }
    int64_t n_files = n;
    if (o.limit > 0 && o.limit < n) n = o.limit;
    ag_bundle_t b;
    if (o.model ? ag_bundle_load(o.model, &b) != AG_SUCCESS : fresh_bundle(&b, o.dir, names, n) != 0) return mfail("model");
    const ag_model_config_t *cfg = ag_model_config(b.model);
    int64_t B = o.batch, F = cfg->in_dim, Fe = cfg->edge_dim, T = cfg->n_out;
    ag_graph_t *gs = malloc((size_t)B * sizeof *gs);
    ag_fmat_t *xs = calloc((size_t)B, sizeof *xs), *es = calloc((size_t)B, sizeof *es);
    ag_batch_member_t *members = malloc((size_t)B * sizeof *members);
    float *out = malloc((size_t)(B * T) * sizeof *out);
    double *wall = malloc((size_t)o.repeat * sizeof *wall), *cpu = malloc((size_t)o.repeat * sizeof *cpu);
    if (!gs || !xs || !es || !members || !out || !wall || !cpu) return moom();
    ag_batch_buffer_t gb; /* one batch after another: (N x F), (E x Fe) */
    ag_batch_buffer_init(&gb);
    double checksum = 0.0;
    char path[4096];
    for (int r = 0; r < o.repeat; r++) {
        double t0 = bench_now(), c0 = bench_cpu();
        checksum = 0.0;
        for (int64_t s0 = 0; s0 < n; s0 += B) {
            int64_t k = n - s0 < B ? n - s0 : B;
            for (int64_t t = 0; t < k; t++) {
                igraph_t ig;
                snprintf(path, sizeof path, "%s/%s", o.dir, names[s0 + t]);
                if (ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0)) return mfail("read");
                if (ag_bundle_featurize(&b, &ig, NULL, &xs[t], &es[t])) return mfail("featurize");
                if (ag_graph_from_igraph(&gs[t], &ig)) return mfail("graph");
                igraph_destroy(&ig);
                members[t] = (ag_batch_member_t){&gs[t], &xs[t], &es[t]};
            }
            ag_batch_t batch;
            if (ag_batch_buffer_fill(&gb, members, k, F, Fe, &batch)) return mfail("batch");
            if (ag_model_predict_batch(b.model, &batch, out)) return mfail("predict");
            ag_batch_destroy(&batch);
            for (int64_t t = 0; t < k; t++) ag_graph_destroy(&gs[t]);
            for (int64_t t = 0; t < k * T; t++) checksum += (double)out[t];
        }
        wall[r] = bench_now() - t0;
        cpu[r] = bench_cpu() - c0;
    }
    char extra[512];
    snprintf(extra, sizeof extra, "\"model\": \"%s\", \"batch\": %lld, \"checksum\": %.9g, ",
             o.model ? o.model : "default graph model, fresh weights", (long long)B, checksum);
    emit("molecules", "read_featurize_predict", extra, wall, cpu, o.repeat, n, "molecules");
    for (int64_t t = 0; t < B; t++) {
        ag_fmat_destroy(&xs[t]);
        ag_fmat_destroy(&es[t]);
    }
    ag_batch_buffer_destroy(&gb);
    free(gs);
    free(xs);
    free(es);
    free(members);
    free(out);
    free(wall);
    free(cpu);
    for (int64_t t = 0; t < n_files; t++) free(names[t]);
    free(names);
    ag_bundle_destroy(&b);
    return 0;
}
