/* Node regression through the program: `train GRAPH --label-attr Y` on a numeric vertex attribute
 * learns a planted target (the mean of a feature over each vertex and its neighbours, which one
 * attention layer with uniform weights computes) to a test RMSE below 0.01 (a tenth of the best
 * constant's); eval prints the same test line
 * and the task's metrics (rmse, mae); label writes the predicted value per vertex (CSV, JSON lines,
 * GraphML); explain adds it as the vertex attribute pred; the task is inferred from the attribute
 * (non-integer or more than 100 distinct values: regression; integers with gaps taken as classes
 * with a note) unless --task says otherwise; --plot draws no axis below 0. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <igraph.h>
#include "cli_testutil.h"

enum { N = 120, N_TRAIN = 96, N_VAL = 12 };

static char dir[64];
static double x[N], y[N];
static int deg[N];

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A random graph (each vertex joined to two random others), feature x uniform in [0, 1), target
 * y = mean of x over the vertex and its neighbours, and a split file: the first 96 vertices train,
 * the next 12 validate, the last 12 test. */
static int setup(void **state) {
    (void)state;
    if (ag_test_temp_dir(dir, sizeof dir, "cli_noderegr", 0) < 0) return -1;
    uint64_t s = 7;
    static int adj[N][N];
    for (int v = 0; v < N; v++) x[v] = (double)(lcg(&s) % 1000000) / 1e6;
    for (int v = 0; v < N; v++)
        for (int k = 0; k < 2; k++) {
            int u = (int)(lcg(&s) % N);
            if (u != v) adj[u][v] = adj[v][u] = 1;
        }
    char path[256];
    snprintf(path, sizeof path, "%s/planted.gml", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "graph [\n  directed 0\n");
    for (int v = 0; v < N; v++) {
        double sum = x[v];
        deg[v] = 0;
        for (int u = 0; u < N; u++)
            if (adj[v][u]) sum += x[u], deg[v]++;
        y[v] = sum / (deg[v] + 1);
        fprintf(f, "  node [ id %d x %.6f y %.17g deg %d ]\n", v, x[v], y[v], deg[v]);
    }
    for (int v = 0; v < N; v++)
        for (int u = v + 1; u < N; u++)
            if (adj[v][u]) fprintf(f, "  edge [ source %d target %d ]\n", v, u);
    fprintf(f, "]\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/split.json", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    const char *parts[3] = {"train", "val", "test"};
    int bounds[4] = {0, N_TRAIN, N_TRAIN + N_VAL, N};
    fputc('{', f);
    for (int p = 0; p < 3; p++) {
        fprintf(f, "%s\"%s\": [", p ? ", " : "", parts[p]);
        for (int v = bounds[p]; v < bounds[p + 1]; v++) fprintf(f, "%s%d", v > bounds[p] ? ", " : "", v);
        fputc(']', f);
    }
    fputs("}\n", f);
    fclose(f);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ag_test_remove_dir(dir);
}

/* Runs attn-graph with args and expects bad input (exit 3) with exactly the stderr want. */
static void expect_input_error(const char *args, const char *want) {
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 3) fail_msg("attn-graph %s: exit %d: %s", args, r.code, r.err);
    assert_string_equal(r.err, want);
}

static double number_after(const char *s, const char *key) {
    const char *p = strstr(s, key);
    if (!p) fail_msg("no '%s' in: %s", key, s);
    return strtod(p + strlen(key), NULL);
}

static void test_train_eval_label(void **state) {
    (void)state;
    char args[2048];
    ag_cli_run_t r, e;
    snprintf(args, sizeof args,
             "train %s/planted.gml --label-attr y --vertex-attrs x --split %s/split.json --layers 1 --heads 1 "
             "--hidden 16 --norm none --dropout 0 --lr 0.01 --epochs 200 --patience 0 --threads 1 --no-train-metric "
             "-o %s/m.safetensors",
             dir, dir, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    /* inferred from the values: a regression, scored by RMSE while training */
    assert_non_null(strstr(r.err, "attn-graph: node-regression, 120 nodes, 1 feature, 1 output, "));
    assert_non_null(strstr(r.err, "(val rmse "));
    assert_memory_equal(r.out, "test: rmse ", 11);
    double rmse = number_after(r.out, "rmse "), mae = number_after(r.out, "mae ");
    /* the best constant (the training mean) and the feature itself, on the test vertices */
    double mean = 0.0, base = 0.0, ident = 0.0;
    for (int v = 0; v < N_TRAIN; v++) mean += y[v] / N_TRAIN;
    for (int v = N_TRAIN + N_VAL; v < N; v++) {
        base += (y[v] - mean) * (y[v] - mean) / (N - N_TRAIN - N_VAL);
        ident += (y[v] - x[v]) * (y[v] - x[v]) / (N - N_TRAIN - N_VAL);
    }
    base = sqrt(base);
    ident = sqrt(ident);
    print_message("planted neighbour mean: test rmse %.4f, mae %.4f (constant %.4f, x itself %.4f)\n", rmse, mae,
                  base, ident);
    /* measured: 0.0010 (the constant 0.0825, x itself 0.2256) */
    assert_true(rmse < 0.01);
    assert_true(rmse < 0.1 * base);
    assert_true(mae > 0.0 && mae <= rmse);
    assert_non_null(strstr(r.out, "(n 12)\n"));
    /* eval on the same split prints the line train printed */
    snprintf(args, sizeof args, "eval --model %s/m.safetensors %s/planted.gml --split %s/split.json", dir, dir, dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    assert_string_equal(e.out, r.out);
    snprintf(args, sizeof args, "eval --model %s/m.safetensors %s/planted.gml --split %s/split.json --part all --json",
             dir, dir, dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    assert_non_null(strstr(e.out, "{\"part\": \"all\", \"task\": \"node-regression\", \"n\": 120, \"rmse\": "));
    double rmse_all = number_after(e.out, "\"rmse\": ");
    /* label: one predicted value per vertex, close to the planted one */
    snprintf(args, sizeof args, "label --model %s/m.safetensors %s/planted.gml", dir, dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    assert_memory_equal(e.out, "vertex,id,pred\n", 15);
    assert_int_equal(ag_cli_count_lines(e.out), N + 1);
    double pred[N], se = 0.0;
    const char *line = strchr(e.out, '\n') + 1;
    for (int v = 0; v < N; v++) {
        int vv, id;
        assert_int_equal(sscanf(line, "%d,%d,%lf", &vv, &id, &pred[v]), 3);
        assert_int_equal(vv, v);
        assert_int_equal(id, v);
        se += (pred[v] - y[v]) * (pred[v] - y[v]);
        line = strchr(line, '\n') + 1;
    }
    /* the CSV's 6 digits give eval's RMSE over all vertices */
    assert_float_equal(sqrt(se / N), rmse_all, 1e-4);
    snprintf(args, sizeof args, "label --json --model %s/m.safetensors %s/planted.gml", dir, dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    assert_int_equal(ag_cli_count_lines(e.out), N);
    assert_memory_equal(e.out, "{\"vertex\": 0, \"id\": 0, \"prediction\": ", 37);
    assert_float_equal(number_after(e.out, "\"prediction\": "), pred[0], 1e-5);
    assert_float_equal(number_after(e.out, "\"values\": {\"y\": "), pred[0], 1e-5);
    /* GraphML and explain carry it as the numeric vertex attribute pred */
    const char *cmds[2] = {"label", "explain"};
    for (int k = 0; k < 2; k++) {
        char out[256];
        snprintf(out, sizeof out, "%s/%s.graphml", dir, cmds[k]);
        snprintf(args, sizeof args, "%s --model %s/m.safetensors %s/planted.gml -o %s", cmds[k], dir, dir, out);
        ag_cli_run(&e, NULL, args);
        if (e.code != 0) fail_msg("%s: exit %d: %s", cmds[k], e.code, e.err);
        igraph_set_attribute_table(&igraph_cattribute_table);
        FILE *f = fopen(out, "r");
        assert_non_null(f);
        igraph_t g;
        assert_int_equal(igraph_read_graph_graphml(&g, f, 0), IGRAPH_SUCCESS);
        fclose(f);
        assert_int_equal(igraph_vcount(&g), N);
        for (int v = 0; v < N; v++) assert_float_equal(VAN(&g, "pred", v), pred[v], 1e-5 + 1e-5 * fabs(pred[v]));
        igraph_destroy(&g);
    }
    /* the drawing says what its node colours are, and each vertex's tooltip gives its prediction */
    char svg[256];
    snprintf(svg, sizeof svg, "%s/reg.svg", dir);
    snprintf(args, sizeof args, "explain --model %s/m.safetensors %s/planted.gml -o %s/e.gml --svg %s", dir, dir, dir, svg);
    ag_cli_run(&e, NULL, args);
    if (e.code != 0) fail_msg("explain --svg: exit %d: %s", e.code, e.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    /* colour by the predicted value (viridis, darkest for the least), with a bar of the range */
    assert_non_null(strstr(doc, ">node colour: predicted y</text>"));
    assert_null(strstr(doc, ">node colour: attention received"));
    assert_non_null(strstr(doc, "fill=\"url(#valuemap)\""));
    int lo = 0, hi = 0;
    for (int v = 1; v < N; v++) {
        if (pred[v] < pred[lo]) lo = v;
        if (pred[v] > pred[hi]) hi = v;
    }
    char range[96];
    snprintf(range, sizeof range, "font-size=\"11\">%.4g</text><rect ", pred[lo]);
    if (!strstr(doc, range)) fail_msg("no colour bar starting at %s", range);
    snprintf(range, sizeof range, "font-size=\"11\">%.4g</text>\n<g ", pred[hi]);
    if (!strstr(doc, range)) fail_msg("no colour bar ending at %s", range);
    const char *c = doc;
    for (int v = 0; v < N; v++) {
        c = strstr(c + 1, "<circle ");
        assert_non_null(c);
        const char *fill = strstr(c, " fill=\"");
        if (v == lo) assert_memory_equal(fill + 7, "#440154", 7);
        if (v == hi) assert_memory_equal(fill + 7, "#fde725", 7);
    }
    const char *t = strstr(doc, "(vertex 0): attention received ");
    assert_non_null(t);
    t = strstr(t, "; predicted y=");
    assert_non_null(t);
    assert_float_equal(strtod(t + 14, NULL), pred[0], 1e-3 * (1 + fabs(pred[0])));
    free(doc);
}

/* deg holds few integer values: classes unless --task node-regression says otherwise. */
static void test_task_choice(void **state) {
    (void)state;
    char args[1024];
    ag_cli_run_t r;
    snprintf(args, sizeof args, "train %s/planted.gml --label-attr deg --vertex-attrs x --epochs 2 --threads 1", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "attn-graph: node-classification, 120 nodes"));
    assert_memory_equal(r.out, "test: accuracy ", 15);
    snprintf(args, sizeof args,
             "train %s/planted.gml --label-attr deg --vertex-attrs x --task node-regression --epochs 2 --threads 1",
             dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "attn-graph: node-regression, 120 nodes"));
    assert_memory_equal(r.out, "test: rmse ", 11);
    /* integers with gaps between them (a count: 0, 3, 6) are classes by the rule, and a note says
     * how to predict a number; consecutive ones (class codes 0, 1, 2) get no note */
    char gml[2048] = "graph [\n";
    for (int v = 0; v < 12; v++)
        snprintf(gml + strlen(gml), sizeof gml - strlen(gml), " node [ id %d cnt %d code %d ]\n edge [ source %d "
                 "target %d ]\n", v, v % 3 * 3, v % 3, v, (v + 1) % 12);
    strcat(gml, "]\n");
    ag_test_write_text(dir, "counts.gml", gml);
    ag_cli_run_ok(&r, "train %s/counts.gml --label-attr cnt --epochs 1 --threads 1", dir);
    assert_non_null(strstr(r.err, "attn-graph: note: --label-attr cnt holds 3 distinct integers (0 to 6, not "
                                  "consecutive as class codes are), taken as classes; --task node-regression to "
                                  "predict it as a number\n"));
    ag_cli_run_ok(&r, "train %s/counts.gml --label-attr code --epochs 1 --threads 1", dir);
    assert_null(strstr(r.err, "distinct integers"));
    ag_cli_run_ok(&r, "train %s/counts.gml --label-attr cnt --task node-classification --epochs 1 --threads 1", dir);
    assert_null(strstr(r.err, "distinct integers"));
    /* the target is never a feature of itself */
    snprintf(args, sizeof args, "train %s/planted.gml --label-attr y --vertex-attrs x,y --epochs 2 --threads 1", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    char expected[512];
    snprintf(expected, sizeof expected,
             "attn-graph: %s/planted.gml: vertex attribute 'y' is the target and cannot be a feature\n", dir);
    assert_string_equal(r.err, expected);
}

/* train --plot of a regression: the loss and the rmse near 0 by the end, and neither axis goes
 * below 0 (the padding that keeps a curve off the frame once drew both from -0.2 and -0.02). */
static void test_plot_axes_not_negative(void **state) {
    (void)state;
    char args[2048], svg[256];
    snprintf(svg, sizeof svg, "%s/curves.svg", dir);
    snprintf(args, sizeof args,
             "train %s/planted.gml --label-attr y --vertex-attrs x --split %s/split.json --layers 1 --heads 1 "
             "--hidden 16 --norm none --dropout 0 --lr 0.01 --epochs 60 --patience 0 --threads 1 --quiet --plot %s",
             dir, dir, svg);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    assert_non_null(doc);
    /* the y ticks are the right-aligned labels beside each panel */
    const char *tick = "text-anchor=\"end\" font-size=\"12\">";
    int ticks = 0;
    for (const char *p = strstr(doc, tick); p; p = strstr(p + 1, tick)) {
        ticks++;
        if (p[strlen(tick)] == '-') fail_msg("a negative y tick: %.20s", p + strlen(tick));
    }
    assert_true(ticks >= 6);
    free(doc);
}

/* A copy of the target under another name (y2 = y, its own value where y has none) is left out
 * with a note, as a mirror of a class label is; a column that only resembles it (x) stays. */
static void test_target_copy_left_out(void **state) {
    (void)state;
    char cmd[1024], args[1024];
    snprintf(cmd, sizeof cmd,
             "sed 's/ y \\([^ ]*\\) / y \\1 y2 \\1 /; s/ id 7 \\(.*\\) y [^ ]* y2 [^ ]* / id 7 \\1 y NaN y2 5 /' "
             "'%s/planted.gml' > '%s/copy.gml'", dir, dir);
    assert_int_equal(system(cmd), 0);
    ag_cli_run_t r;
    snprintf(args, sizeof args, "train %s/copy.gml --label-attr y --epochs 2 --threads 1 -o %s/copy.safetensors", dir,
             dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.err, "attn-graph: note: vertex attribute 'y2' mirrors the label 'y' and is not used as a "
                                  "feature\n"));
    snprintf(args, sizeof args, "info %s/copy.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    /* read past the first line: the file's path, in a random temporary directory, may hold "y2" */
    const char *attrs = strstr(r.out, "\nattributes");
    if (!attrs || strstr(attrs, "y2") || !strstr(attrs, "x ")) fail_msg("%s", r.out);
    /* named on purpose, the copy is refused rather than dropped; with no attribute taken, no note */
    snprintf(args, sizeof args, "train %s/copy.gml --label-attr y --vertex-attrs x,y2 --epochs 2 --threads 1", dir);
    snprintf(cmd, sizeof cmd, "attn-graph: %s/copy.gml: vertex attribute 'y2' copies the target (the same values, or "
             "the same in another unit, on the vertices with one) and cannot be a feature: the model would read its "
             "answer from it\n", dir);
    expect_input_error(args, cmd);
    snprintf(args, sizeof args, "train %s/copy.gml --label-attr y --vertex-attrs none --rw-pe 2 --epochs 2 --threads 1",
             dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_null(strstr(r.err, "mirrors"));
    /* a node-table column that copies the target in another unit (cents) is refused by its name in
     * the table, which the library gives by place */
    char path[256];
    snprintf(path, sizeof path, "%s/cents.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("id,f,cents\n", f);
    for (int v = 0; v < N; v++) fprintf(f, "%d,%d,%.17g\n", v, v % 3, 100.0 * y[v]);
    assert_int_equal(fclose(f), 0);
    snprintf(args, sizeof args, "train %s/planted.gml --label-attr y --vertex-attrs none --node-table %s --epochs 2 "
             "--threads 1", dir, path);
    snprintf(cmd, sizeof cmd, "attn-graph: %s: column 'cents' copies the target (the same values, or the same in "
             "another unit, on the vertices with one) and cannot be a feature: the model would read its answer from "
             "it; remove it from the table\n", path);
    expect_input_error(args, cmd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_eval_label),
        cmocka_unit_test(test_task_choice),
        cmocka_unit_test(test_plot_axes_not_negative),
        cmocka_unit_test(test_target_copy_left_out),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
