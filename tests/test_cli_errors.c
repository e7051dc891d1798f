/* Error cases of the attn-graph program (issue 5): a graph whose attributes do not fit the model
 * (a missing vertex or edge attribute, another type, a node table of another width) gets one line
 * on stderr naming the file, the attribute and the model's expectation, and the documented exit
 * code (3); a model of the wrong kind or a bad model file exits 4. stderr is compared exactly, and
 * the files that do fit are still predicted. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include "cli_testutil.h"
#include "golden_testutil.h"

static char dir[64];

/* Copies src (under the source tree) to dir/name, deleting every match of the word pattern
 * ' KEY VALUE' for key (a GML attribute) or replacing it by ' KEY with'. */
static void edit_copy(const char *src, const char *name, const char *key, const char *with) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sed 's/ %s \\(\"[^\"]*\"\\|[-0-9.]*\\)/%s%s%s/' '%s/%s' > '%s/%s'", key, with ? " " : "",
             with ? key : "", with ? with : "", AG_SOURCE_DIR, src, dir, name);
    assert_int_equal(system(cmd), 0);
}

static void write_text(const char *name, const char *text) { ag_test_write_text(dir, name, text); }

static void write_table(const char *name, int cols) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("id", f);
    for (int c = 0; c < cols; c++) fprintf(f, ",f%d", c);
    fputc('\n', f);
    for (int v = 0; v < 34; v++) {
        fprintf(f, "%d", v);
        for (int c = 0; c < cols; c++) fprintf(f, ",%d", (v * (c + 3)) % 7);
        fputc('\n', f);
    }
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    if (ag_test_temp_dir(dir, sizeof dir, "cli_errors", 0) < 0) return -1;
    edit_copy("graphs/molecules/aspirin.gml", "nocharge.gml", "charge", NULL);
    edit_copy("graphs/molecules/aspirin.gml", "numelem.gml", "element", " 6");
    edit_copy("graphs/molecules/aspirin.gml", "nobond.gml", "bond_type", NULL);
    edit_copy("graphs/molecules/aspirin.gml", "emptyelem.gml", "element", " \"\"");
    edit_copy("graphs/social/karate.gml", "noname.gml", "name", NULL);
    edit_copy("graphs/molecules/aspirin.gml", "directed.gml", "directed", " 1");
    edit_copy("graphs/social/karate.gml", "kdirected.gml", "directed", " 1");
    write_table("t2.csv", 2);
    write_table("t3.csv", 3);
    /* headerless (the whitespace form): read by position, so only its width can be checked */
    char t3[2048] = "";
    for (int v = 0; v < 34; v++) snprintf(t3 + strlen(t3), sizeof t3 - strlen(t3), "%d 1 %d 0\n", v, v % 3);
    write_text("t3.txt", t3);
    write_text("bad.safetensors", "hello\n");
    write_text("nan.gml", "graph [\n directed 0\n node [ id 0 x 0.5 y NaN ]\n node [ id 1 x 0.2 y nan ]\n"
                          " node [ id 2 x 0.1 ]\n edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n");
    char args[512];
    snprintf(args, sizeof args,
             "train graphs/social/karate.gml --label-attr club --vertex-attrs none --node-table %s/t2.csv "
             "--epochs 1 --hidden 8 --layers 1 --heads 2 --threads 1 --quiet -o %s/table.safetensors", dir, dir);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("training the node-table model failed (exit %d): %s", r.code, r.err);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ag_test_remove_dir(dir);
}

/* Runs ARGS (printf-style, %1$s = the temporary folder), checks the exit code and the exact stderr
 * (where every "@" stands for the temporary folder). Returns the run for more checks. */
static ag_cli_run_t run_expect(int code, const char *expected_err, const char *args) {
    ag_cli_run_t r;
    char full[2048], err[2048];
    size_t k = 0;
    for (const char *p = args; *p && k + 64 < sizeof full; p++) {
        if (*p == '@') k += (size_t)snprintf(full + k, sizeof full - k, "%s", dir);
        else full[k++] = *p;
    }
    full[k] = '\0';
    k = 0;
    for (const char *p = expected_err; *p && k + 64 < sizeof err; p++) {
        if (*p == '@') k += (size_t)snprintf(err + k, sizeof err - k, "%s", dir);
        else err[k++] = *p;
    }
    err[k] = '\0';
    ag_cli_run(&r, NULL, full);
    if (r.code != code) fail_msg("attn-graph %s: exit %d, expected %d; stderr: %s", full, r.code, code, r.err);
    if (strcmp(r.err, err) != 0) fail_msg("attn-graph %s:\nstderr:   %sexpected: %s", full, r.err, err);
    return r;
}

/* classify: the misfit file gets one line, the others are still classified, exit 3. */
static void test_classify_misfits(void **state) {
    (void)state;
    ag_cli_run_t r = run_expect(3,
        "attn-graph: @/nocharge.gml: attribute 'charge' is missing (the model expects numeric vertex attribute "
        "'charge')\n",
        "classify @/nocharge.gml graphs/molecules/caffeine.gml");
    assert_int_equal(ag_cli_count_lines(r.out), 1);
    assert_memory_equal(r.out, "graphs/molecules/caffeine.gml\t", 30);
    run_expect(3,
        "attn-graph: @/numelem.gml: vertex attribute 'element' is numeric (the model expects string vertex "
        "attribute 'element')\n",
        "classify @/numelem.gml");
    /* "" on every vertex is GML's missing value everywhere: not a molecule of "other" atoms */
    run_expect(3,
        "attn-graph: @/emptyelem.gml: vertex attribute 'element' is empty on every vertex: it is missing (the model "
        "expects string vertex attribute 'element')\n",
        "classify @/emptyelem.gml");
    r = run_expect(3,
        "attn-graph: @/nobond.gml: attribute 'bond_type' is missing (the model expects string edge attribute "
        "'bond_type')\n",
        "classify --json --model graphs/models/mutag.safetensors @/nobond.gml");
    char want[1024];
    snprintf(want, sizeof want,
             "{\"file\": \"%s/nobond.gml\", \"error\": \"%s/nobond.gml: attribute 'bond_type' is missing (the model "
             "expects string edge attribute 'bond_type')\"}\n", dir, dir);
    assert_string_equal(r.out, want);
    /* --json: an object per file, the failed ones in their place (a missing file too) */
    r = run_expect(3,
        "attn-graph: @/nocharge.gml: attribute 'charge' is missing (the model expects numeric vertex attribute "
        "'charge')\n"
        "attn-graph: @/none.gml: No such file or directory\n",
        "classify --json graphs/molecules/aspirin.gml @/nocharge.gml graphs/molecules/caffeine.gml @/none.gml");
    assert_int_equal(ag_cli_count_lines(r.out), 4);
    const char *second = strchr(r.out, '\n') + 1, *third = strchr(second, '\n') + 1, *fourth = strchr(third, '\n') + 1;
    assert_memory_equal(r.out, "{\"file\": \"graphs/molecules/aspirin.gml\", \"task\": ", 48);
    snprintf(want, sizeof want, "{\"file\": \"%s/nocharge.gml\", \"error\": \"%s/nocharge.gml: attribute 'charge' is "
             "missing (the model expects numeric vertex attribute 'charge')\"}\n", dir, dir);
    assert_memory_equal(second, want, strlen(want));
    assert_memory_equal(third, "{\"file\": \"graphs/molecules/caffeine.gml\", \"task\": ", 49);
    snprintf(want, sizeof want, "{\"file\": \"%s/none.gml\", \"error\": \"%s/none.gml: No such file or directory\"}\n",
             dir, dir);
    assert_string_equal(fourth, want);
    /* a directed graph for a model of undirected ones: its edges would be read one way, and the
     * predictions confidently wrong (SR-MMP 0.67 against 0.01 for ibuprofen) */
    const char *directed = "the graph is directed but the model was trained on undirected graphs (edges would be "
                           "read one way); give it as undirected (GML 'directed 0', GraphML "
                           "edgedefault=\"undirected\"; an edge list, NCOL, LGL, DIMACS or DL file: leave out "
                           "--directed)\n";
    snprintf(want, sizeof want, "attn-graph: @/directed.gml: %s", directed);
    run_expect(3, want, "classify @/directed.gml");
    snprintf(want, sizeof want, "attn-graph: @/kdirected.gml: %s", directed);
    run_expect(3, want, "label @/kdirected.gml");
    /* every misfit is named, in argument order */
    run_expect(3,
        "attn-graph: @/nobond.gml: attribute 'bond_type' is missing (the model expects string edge attribute "
        "'bond_type')\n"
        "attn-graph: @/nocharge.gml: attribute 'charge' is missing (the model expects numeric vertex attribute "
        "'charge')\n",
        "classify @/nobond.gml @/nocharge.gml");
}

/* explain, label and eval: one line, exit 3, no output file left behind. */
static void test_label_explain_eval_misfits(void **state) {
    (void)state;
    run_expect(3,
        "attn-graph: @/nocharge.gml: attribute 'charge' is missing (the model expects numeric vertex attribute "
        "'charge')\n",
        "explain @/nocharge.gml -o @/x.gml --svg @/x.svg");
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/x.gml", dir);
    assert_int_not_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/x.svg", dir);
    assert_int_not_equal(stat(path, &st), 0);
    ag_cli_run_t r = run_expect(3,
        "attn-graph: @/noname.gml: attribute 'name' is missing (the model expects string vertex attribute 'name')\n",
        "label --model graphs/models/karate.safetensors @/noname.gml");
    assert_string_equal(r.out, "");
    /* with the default model, a graph that has none of its attributes also gets a note naming
     * that model (a social graph given to the molecule model, say) */
    snprintf(path, sizeof path, "label %s/noname.gml -o %s/x.graphml", dir, dir);
    ag_cli_run(&r, NULL, path);
    assert_int_equal(r.code, 3);
    const char *note = strchr(r.err, '\n');
    assert_non_null(note);
    assert_true(strncmp(note + 1, "attn-graph: note: no --model given: label used its default model, the shipped "
                                  "model of the Karate club's factions (", 102) == 0);
    assert_non_null(strstr(note, "karate.safetensors); give --model for another (docs/cli.md, 'Default models')\n"));
    assert_int_equal(ag_cli_count_lines(r.err), 2);
    snprintf(path, sizeof path, "explain graphs/social/karate.gml -o %s/y.gml", dir);
    ag_cli_run(&r, NULL, path);
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "attn-graph: note: no --model given: explain used its default model, the shipped "
                                  "Tox21 toxicity model, for molecules with the attributes of the shared Tox21 files ("));
    ag_cli_run(&r, NULL, "classify graphs/social/karate.gml graphs/molecules/aspirin.gml");
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.out), 1);
    assert_int_equal(ag_cli_count_lines(r.err), 2);
    assert_non_null(strstr(r.err, "attn-graph: note: no --model given: classify used its default model, the shipped "
                                  "Tox21 toxicity model"));
    snprintf(path, sizeof path, "%s/x.graphml", dir);
    assert_int_not_equal(stat(path, &st), 0);
    run_expect(3,
        "attn-graph: @/noname.gml: attribute 'name' is missing (the model expects string vertex attribute 'name')\n",
        "eval --model graphs/models/karate.safetensors @/noname.gml --train-nodes 0,33");
}

/* A node table of another width than the model's: named with both widths, exit 3; none at all:
 * exit 2 (a missing option). */
static void test_table_width(void **state) {
    (void)state;
    run_expect(3,
        "attn-graph: label: @/t3.txt: the node table has 3 feature columns; the model @/table.safetensors expects 2 "
        "(the width of the table it was trained with)\n",
        "label --model @/table.safetensors graphs/social/karate.gml --node-table @/t3.txt");
    run_expect(3,
        "attn-graph: explain: @/t3.txt: the node table has 3 feature columns; the model @/table.safetensors expects "
        "2 (the width of the table it was trained with)\n",
        "explain --model @/table.safetensors graphs/social/karate.gml --node-table @/t3.txt -o @/y.gml");
    run_expect(3,
        "attn-graph: eval: @/t3.txt: the node table has 3 feature columns; the model @/table.safetensors expects 2 "
        "(the width of the table it was trained with)\n",
        "eval --model @/table.safetensors graphs/social/karate.gml --node-table @/t3.txt --train-nodes 0,33");
    /* with a header, the columns are matched by name: a third column is left out, a missing one refused */
    run_expect(0,
        "attn-graph: note: @/t3.csv: the node table's columns are taken by name in the model's order; those the "
        "model was not trained with are left out\n",
        "eval --model @/table.safetensors graphs/social/karate.gml --node-table @/t3.csv --train-nodes 0,33");
    /* a column outside the model's holding text (a name) is left out too, and said so */
    char texty[2048] = "id,note,f1,f0\n";
    for (int v = 0; v < 34; v++) snprintf(texty + strlen(texty), sizeof texty - strlen(texty), "%d,v%d,1,2\n", v, v);
    write_text("texty.csv", texty);
    run_expect(0,
        "attn-graph: note: @/texty.csv: the node table's columns are taken by name in the model's order; those the "
        "model was not trained with are left out\n",
        "eval --model @/table.safetensors graphs/social/karate.gml --node-table @/texty.csv --train-nodes 0,33");
    char other[2048] = "id,f1,g\n";
    for (int v = 0; v < 34; v++) snprintf(other + strlen(other), sizeof other - strlen(other), "%d,1,%d\n", v, v % 2);
    write_text("other.csv", other);
    run_expect(3,
        "attn-graph: explain: @/other.csv: the node table has no column 'f0', which the model @/table.safetensors "
        "was trained with (its 2 columns are matched by name)\n",
        "explain --model @/table.safetensors graphs/social/karate.gml --node-table @/other.csv -o @/y.gml");
    run_expect(2,
        "attn-graph: label: @/table.safetensors takes a node table of 2 columns: give --node-table FILE\n",
        "label --model @/table.safetensors graphs/social/karate.gml");
    run_expect(3,
        "attn-graph: eval: @/t2.csv: the model graphs/models/karate.safetensors takes no node table (it was trained "
        "without one, or with one that held the labels alone)\n",
        "eval --model graphs/models/karate.safetensors graphs/social/karate.gml --node-table @/t2.csv "
        "--train-nodes 0,33");
    /* classification asked for measurements: refused, not one class per value */
    char sol[1024];
    snprintf(sol, sizeof sol, "file,sol\n%s/graphs/molecules/aspirin.gml,-1.5\n%s/graphs/molecules/caffeine.gml,-0.75\n"
             "%s/graphs/molecules/paracetamol.gml,2\n", AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("sol.csv", sol);
    snprintf(sol, sizeof sol,
             "attn-graph: graph classification needs class labels: target 'sol' holds the non-integer -1.5 "
             "(%s/graphs/molecules/aspirin.gml); train it as graph-regression\n", AG_SOURCE_DIR);
    run_expect(3, sol, "train --labels @/sol.csv --task graph-classification --epochs 1 --threads 1 --quiet");
    /* eval --target: the data's column for the model's target, whatever its name */
    snprintf(sol, sizeof sol, "file,logS\n%s/graphs/molecules/aspirin.gml,-1.5\n%s/graphs/molecules/caffeine.gml,"
             "-0.75\n%s/graphs/molecules/paracetamol.gml,2\n", AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("logs.csv", sol);
    run_expect(0, "", "train --labels @/sol.csv --split-random 1,0,0 --epochs 2 --threads 1 --hidden 8 --heads 2 "
                      "--quiet -o @/sol.safetensors");
    ag_cli_run_t named = run_expect(0, "", "eval --model @/sol.safetensors --labels @/sol.csv --part all");
    ag_cli_run_t renamed =
        run_expect(0, "", "eval --model @/sol.safetensors --labels @/logs.csv --target logS --part all");
    assert_string_equal(renamed.out, named.out);
    assert_non_null(strstr(named.out, "all: rmse "));
    /* several columns taken by default are named in a note */
    snprintf(sol, sizeof sol, "file,a,b\n%s/graphs/molecules/aspirin.gml,-1.5,3\n%s/graphs/molecules/caffeine.gml,"
             "-0.75,4\n", AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("two.csv", sol);
    char args[512];
    snprintf(args, sizeof args, "train --labels %s/two.csv --split-random 1,0,0 --epochs 1 --threads 1", dir);
    ag_cli_run(&named, NULL, args);
    assert_int_equal(named.code, 0);
    assert_non_null(strstr(named.err, "attn-graph: note: 2 target columns (every numeric column; --target to choose): "
                                      "a, b\n"));
    /* a part with nothing to score: an error, not a line of NaNs */
    run_expect(3, "attn-graph: eval: the split's val part has nothing to score (it is empty)\n",
               "eval --model graphs/models/karate.safetensors graphs/social/karate.gml --train-nodes 0,33 --part val");
    /* label and explain refuse it too, writing nothing */
    run_expect(3,
        "attn-graph: label: @/t2.csv: the model graphs/models/karate.safetensors takes no node table (it was trained "
        "without one, or with one that held the labels alone)\n",
        "label --model graphs/models/karate.safetensors graphs/social/karate.gml --node-table @/t2.csv -o @/no.csv");
    run_expect(3,
        "attn-graph: explain: @/t2.csv: the model graphs/models/karate.safetensors takes no node table (it was "
        "trained without one, or with one that held the labels alone)\n",
        "explain --model graphs/models/karate.safetensors graphs/social/karate.gml --node-table @/t2.csv -o @/no.gml");
    char no[512];
    snprintf(no, sizeof no, "%s/no.csv", dir);
    assert_int_equal(access(no, F_OK), -1);
    snprintf(no, sizeof no, "%s/no.gml", dir);
    assert_int_equal(access(no, F_OK), -1);
    /* a model of string classes scored against a numeric label attribute: bad input (3), not usage */
    run_expect(0, "", "train graphs/social/karate.gml --label-attr club_name --train-nodes 0,33 --epochs 1 "
                      "--threads 1 --quiet -o @/names.safetensors");
    run_expect(3,
        "attn-graph: graphs/social/karate.gml: vertex attribute 'club': the values are numbers but class 'Mr. Hi' is "
        "not (the 2 classes given: 'Mr. Hi', 'Officer'): is it the attribute or column the classes came from?\n",
        "eval --model @/names.safetensors graphs/social/karate.gml --label-attr club --train-nodes 0,33");
    /* a graph without the attribute the table's ids are matched to: the message names the graph */
    run_expect(3,
        "attn-graph: graphs/formats/sample.edgelist: the graph has no vertex attribute 'id' to match the table's ids "
        "to (another attribute: --table-id-attr, ag_table_options_t.vertex_attr)\n",
        "train graphs/formats/sample.edgelist --label-attr cls --node-table @/t2.csv --table-id-attr id");
    /* whatever the table's name: one that begins the message ("the") was taken for the message's
     * own path and the graph went unnamed */
    run_expect(3,
        "attn-graph: graphs/formats/sample.edgelist: the graph has no vertex attribute 'id' to match the table's ids "
        "to (another attribute: --table-id-attr, ag_table_options_t.vertex_attr)\n",
        "train graphs/formats/sample.edgelist --label-attr cls --node-table the --table-id-attr id");
    /* without --table-id-attr an edge list's vertices are their indices: the table's are beyond them */
    run_expect(3, "attn-graph: @/t2.csv:7: id '5' is not a vertex index (the graph has 5 vertices): a vertex with no "
                  "edge in an edge list does not exist in the graph (its vertices are 0 to the largest id an edge "
                  "names, unless --vertices N gives their count: 0 to N-1)\n",
               "train graphs/formats/sample.edgelist --label-attr cls --node-table @/t2.csv");
    /* the right width works */
    ag_cli_run_t r =
        run_expect(0, "", "label --model @/table.safetensors graphs/social/karate.gml --node-table @/t2.csv");
    assert_int_equal(ag_cli_count_lines(r.out), 35);
    /* info says what the model needs: no attribute, the table's columns */
    r = run_expect(0, "", "info @/table.safetensors");
    /* (karate's weights, 1 to 7, are standardised by the default --normalize auto) */
    assert_non_null(strstr(r.out, "\n  edge    weight  numeric        1  standardised (mean 2.962, std 1.203)\n"));
    assert_null(strstr(r.out, "  vertex  "));
    assert_non_null(strstr(r.out, "\nnode features: 0 columns from the graph and 2 from the node table; edge features: "));
    assert_non_null(strstr(r.out, "\nnode table: 2 columns (f0 f1), "));
    /* a sparse index beyond the supported width is bad input (3), in train as in label and eval (it
     * was 1; the library's AG_EVALUE, a value of the file out of range, gives it without a special
     * case) */
    char sparse[2048] = "";
    for (int v = 0; v < 34; v++)
        snprintf(sparse + strlen(sparse), sizeof sparse - strlen(sparse), "%d 0:1 %s:1\n", v, v ? "1" : "99999999999");
    write_text("huge.features", sparse);
    const char *beyond = "attn-graph: @/huge.features:1: field 3: feature index in '99999999999:1' is beyond the "
                         "largest supported index 2147483646\n";
    run_expect(3, beyond, "train graphs/social/karate.gml --label-attr club --vertex-attrs none --node-table "
               "@/huge.features --epochs 1");
    run_expect(3, beyond, "label --model @/table.safetensors graphs/social/karate.gml --node-table @/huge.features");
    run_expect(3, beyond, "eval --model @/table.safetensors graphs/social/karate.gml --node-table @/huge.features "
               "--train-nodes 0,33");
}

/* A sparse table's absent entries are 0, so at prediction it is read at the model's width: a file
 * in which no row has the top index is the model's table (it was refused as one column short), and
 * only an index beyond the model's width is refused, naming the line, the index and that width. A
 * headerless dense table is still held to the model's width. */
static void test_sparse_table_width(void **state) {
    (void)state;
    char a[2048] = "", b[2048] = "", c[2048] = "", d[2048] = "";
    for (int v = 0; v < 34; v++) {
        /* a: indices 0..4 (index 4 on the odd vertices); b: 0..2 alone; c: index 5 on vertex 7 */
        snprintf(a + strlen(a), sizeof a - strlen(a), "%d %d:1%s\n", v, v % 3, v % 2 ? " 4:1" : "");
        snprintf(b + strlen(b), sizeof b - strlen(b), "%d %d:1\n", v, v % 3);
        snprintf(c + strlen(c), sizeof c - strlen(c), "%d %d:1%s\n", v, v % 3, v == 7 ? " 5:2" : "");
        snprintf(d + strlen(d), sizeof d - strlen(d), "%d %d 1 0 0\n", v, v % 2);
    }
    write_text("a.sparse", a);
    write_text("b.sparse", b);
    write_text("c.sparse", c);
    write_text("d.txt", d);
    ag_cli_run_t r;
    char args[512];
    snprintf(args, sizeof args,
             "train graphs/social/karate.gml --label-attr club --vertex-attrs none --node-table %s/a.sparse "
             "--epochs 1 --hidden 8 --layers 1 --heads 2 --threads 1 --quiet -o %s/sparse.safetensors", dir, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("training the sparse-table model failed (exit %d): %s", r.code, r.err);
    r = run_expect(0, "", "info @/sparse.safetensors");
    assert_non_null(strstr(r.out, "\nnode table: 5 columns"));
    r = run_expect(0, "", "label --model @/sparse.safetensors graphs/social/karate.gml --node-table @/b.sparse");
    assert_int_equal(ag_cli_count_lines(r.out), 35);
    run_expect(0, "", "explain --model @/sparse.safetensors graphs/social/karate.gml --node-table @/b.sparse "
                      "-o @/b.gml");
    r = run_expect(0, "", "eval --model @/sparse.safetensors graphs/social/karate.gml --node-table @/b.sparse "
                          "--train-nodes 0,33");
    assert_non_null(strstr(r.out, "accuracy "));
    const char *beyond = "attn-graph: @/c.sparse:8: feature index 5 is beyond the width 5 of the model (indices 0 "
                         "to 4)\n";
    run_expect(3, beyond, "label --model @/sparse.safetensors graphs/social/karate.gml --node-table @/c.sparse");
    run_expect(3, beyond, "explain --model @/sparse.safetensors graphs/social/karate.gml --node-table @/c.sparse "
                          "-o @/c.gml");
    run_expect(3, beyond, "eval --model @/sparse.safetensors graphs/social/karate.gml --node-table @/c.sparse "
                          "--train-nodes 0,33");
    /* training has no width to keep to: the table's own is taken */
    run_expect(0, "", "train graphs/social/karate.gml --label-attr club --vertex-attrs none --node-table @/c.sparse "
                      "--epochs 1 --hidden 8 --layers 1 --heads 2 --threads 1 --quiet -o @/c.safetensors");
    r = run_expect(0, "", "info @/c.safetensors");
    assert_non_null(strstr(r.out, "\nnode table: 6 columns"));
    run_expect(3,
        "attn-graph: label: @/d.txt: the node table has 4 feature columns; the model @/sparse.safetensors expects 5 "
        "(the width of the table it was trained with)\n",
        "label --model @/sparse.safetensors graphs/social/karate.gml --node-table @/d.txt");
}

/* Writes the same 12-vertex ring with two chords, classes v % 2, as GML (ids 0..11) and GraphML
 * (ids n0..n11), and the features of its vertices as x.csv, indexed 0..11 as pandas writes it
 * (an unnamed first column) in a shuffled order, so that matching by position would be wrong. */
static void write_indexed_graphs(void) {
    char gml[2048] = "graph [\n directed 0\n", gx[4096] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
        " <key id=\"y\" for=\"node\" attr.name=\"y\" attr.type=\"int\"/>\n <graph id=\"G\" edgedefault=\"undirected\">\n";
    char x[1024] = ",f0,f1\n";
    const int order[12] = {5, 0, 11, 3, 8, 1, 10, 2, 7, 4, 9, 6};
    for (int v = 0; v < 12; v++) {
        snprintf(gml + strlen(gml), sizeof gml - strlen(gml), " node [ id %d y %d ]\n", v, v % 2);
        snprintf(gx + strlen(gx), sizeof gx - strlen(gx), "  <node id=\"n%d\"><data key=\"y\">%d</data></node>\n", v,
                 v % 2);
        snprintf(x + strlen(x), sizeof x - strlen(x), "%d,%d,%g\n", order[v], order[v] * 7 % 5, order[v] / 10.0);
    }
    for (int v = 0; v < 14; v++) {
        const int a = v < 12 ? v : v == 12 ? 0 : 3, b = v < 12 ? (v + 1) % 12 : v == 12 ? 6 : 9;
        snprintf(gml + strlen(gml), sizeof gml - strlen(gml), " edge [ source %d target %d ]\n", a, b);
        snprintf(gx + strlen(gx), sizeof gx - strlen(gx), "  <edge source=\"n%d\" target=\"n%d\"/>\n", a, b);
    }
    strcat(gml, "]\n");
    strcat(gx, " </graph>\n</graphml>\n");
    write_text("ring.gml", gml);
    write_text("ring.graphml", gx);
    write_text("x.csv", x);
}

/* Each line of csv without its second field (the vertex's id, which the two formats write apart). */
static void without_ids(char *out, size_t cap, const char *csv) {
    size_t k = 0;
    for (const char *p = csv; *p && k + 1 < cap;) {
        const char *comma = strchr(p, ','), *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        const char *second = comma && comma < eol ? strchr(comma + 1, ',') : NULL;
        for (const char *q = p; q < eol && k + 1 < cap; q++)
            if (!(second && second < eol && q > comma && q <= second)) out[k++] = *q;
        if (*eol && k + 1 < cap) out[k++] = '\n';
        p = *eol ? eol + 1 : eol;
    }
    out[k] = '\0';
}

/* A table indexed 0..N-1 (PyG's x.csv) beside a GraphML graph, whose vertices are named "n0",
 * ...: no id matches a vertex's 'id' and every one is a vertex index, so the rows are matched by
 * index, with a note; one id matching a vertex, or --table-id-attr, keeps the match by the
 * attribute and its error. An edge list's or NCOL file's vertex without an edge is not in the
 * graph: a table naming it is told so. */
static void test_table_ids_by_index(void **state) {
    (void)state;
    write_indexed_graphs();
    const char *note = "attn-graph: note: @/x.csv: the table's ids match no vertex 'id' and are all vertex indices "
                       "0..11: rows matched by index; --table-id-attr NAME to match an attribute\n";
    const char *fit = "--label-attr y --vertex-attrs none --node-table @/x.csv --train-nodes 0,1,2,3,4,5 --epochs 3 "
                      "--hidden 8 --layers 1 --heads 2 --seed 3 --threads 1 --quiet";
    char args[512];
    /* trained on the GML, whose ids are the indices, and on the GraphML by index: the same model */
    snprintf(args, sizeof args, "train @/ring.gml %s -o @/ring.safetensors", fit);
    ag_cli_run_t gml_train = run_expect(0, "", args);
    snprintf(args, sizeof args, "train @/ring.graphml %s -o @/ringx.safetensors", fit);
    ag_cli_run_t gx_train = run_expect(0, note, args);
    assert_string_equal(gx_train.out, gml_train.out);
    /* and the model's predictions on the two graphs agree vertex for vertex */
    ag_cli_run_t by_id = run_expect(0, "", "label --model @/ring.safetensors @/ring.gml --node-table @/x.csv");
    ag_cli_run_t by_index = run_expect(0, note, "label --model @/ring.safetensors @/ring.graphml --node-table @/x.csv");
    assert_int_equal(ag_cli_count_lines(by_index.out), 13);
    assert_true(strncmp(by_index.out, "vertex,id,", 10) == 0);
    assert_non_null(strstr(by_index.out, "\n11,n11,"));
    static char a[AG_CLI_CAPTURE], b[AG_CLI_CAPTURE];
    without_ids(a, sizeof a, by_id.out);
    without_ids(b, sizeof b, by_index.out);
    assert_string_equal(b, a);
    ag_cli_run_t scored = run_expect(0, note, "eval --model @/ring.safetensors @/ring.graphml --node-table @/x.csv "
                                              "--part all");
    ag_cli_run_t scored_gml =
        run_expect(0, "", "eval --model @/ring.safetensors @/ring.gml --node-table @/x.csv --part all");
    assert_string_equal(scored.out, scored_gml.out);
    run_expect(0, note, "explain --model @/ring.safetensors @/ring.graphml --node-table @/x.csv -o @/ring-att.graphml");
    /* nodes n0, n1, ... listed out of order: a row's index is no longer its vertex's, so the rows
     * are not matched by index (row 0 would have gone to the first node listed, n1) */
    write_text("swap.graphml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml."
               "graphdrawing.org/xmlns\">\n<graph id=\"G\" edgedefault=\"undirected\">\n<node id=\"n1\"/><node "
               "id=\"n0\"/>\n<edge source=\"n0\" target=\"n1\"/>\n</graph>\n</graphml>\n");
    write_text("swap.csv", "id,f,cls\n0,1,a\n1,2,b\n");
    run_expect(3, "attn-graph: @/swap.csv: none of the table's 2 ids matches a vertex (vertex attribute 'id', which "
                  "holds 'n1', 'n0'; the table's first id is '0', line 2): the table is keyed by something else; key "
                  "its rows by vertex attribute 'id', or name the vertex attribute that holds its ids "
                  "(--table-id-attr)\n",
               "train @/swap.graphml --label-attr cls --node-table @/swap.csv --epochs 1");
    /* a key the user chose is kept */
    run_expect(3, "attn-graph: @/x.csv: none of the table's 12 ids matches a vertex (vertex attribute 'id', which "
                  "holds 'n0', 'n1', ...; the table's first id is '5', line 2): the table is keyed by something else; "
                  "key its rows by vertex attribute 'id', or name the vertex attribute that holds its ids "
                  "(--table-id-attr)\n",
               "label --model @/ring.safetensors @/ring.graphml --node-table @/x.csv --table-id-attr id");
    /* one id that matches a vertex: the table is by the attribute, with a defect (the first id matching none) */
    char part[1024] = "id,f0,f1\n";
    for (int v = 0; v < 12; v++)
        snprintf(part + strlen(part), sizeof part - strlen(part), v == 7 ? "n%d,1,2\n" : "%d,1,2\n", v);
    write_text("part.csv", part);
    run_expect(3, "attn-graph: @/part.csv:2: id '0' matches no vertex (vertex attribute 'id')\n",
               "label --model @/ring.safetensors @/ring.graphml --node-table @/part.csv");
    /* every id an index but one vertex without a row: said with the rule that was applied */
    char shorter[1024] = "id,f0,f1\n";
    for (int v = 0; v < 11; v++) snprintf(shorter + strlen(shorter), sizeof shorter - strlen(shorter), "%d,1,2\n", v);
    write_text("short.csv", shorter);
    run_expect(3, "attn-graph: @/short.csv: vertex 11 (id '11') has no row (the table's ids were taken as vertex "
                  "indices, since none matched vertex attribute 'id')\n",
               "label --model @/ring.safetensors @/ring.graphml --node-table @/short.csv");
    /* a table numbered from 1 (R, Julia) is taken for indices until its last id, which is asked about */
    char from1[1024] = "id,f0,f1\n";
    for (int v = 1; v <= 12; v++) snprintf(from1 + strlen(from1), sizeof from1 - strlen(from1), "%d,1,2\n", v);
    write_text("from1.csv", from1);
    run_expect(3, "attn-graph: @/from1.csv:13: id '12' is not a vertex index (the graph has 12 vertices, and the "
                  "table's ids were taken as vertex indices, since none matched vertex attribute 'id'); no row so "
                  "far has id 0: is the table numbered from 1?\n",
               "label --model @/ring.safetensors @/ring.graphml --node-table @/from1.csv");
    /* an edge list's top vertex without an edge does not exist: the table's row for it is explained */
    write_text("iso.edges", "0 1\n1 2\n");
    write_text("iso.csv", "id,f,cls\n0,1,a\n1,2,b\n2,3,a\n3,4,b\n");
    run_expect(3, "attn-graph: @/iso.csv:5: id '3' is not a vertex index (the graph has 3 vertices): a vertex with no "
                  "edge in an edge list does not exist in the graph (its vertices are 0 to the largest id an edge "
                  "names, unless --vertices N gives their count: 0 to N-1)\n",
               "train @/iso.edges --label-attr cls --node-table @/iso.csv --epochs 1");
    /* an id that is no index at all gets no such explanation */
    write_text("word.csv", "id,f,cls\n0,1,a\n1,2,b\nx,3,a\n");
    run_expect(3, "attn-graph: @/word.csv:4: id 'x' is not a vertex index (the graph has 3 vertices)\n",
               "train @/iso.edges --label-attr cls --node-table @/word.csv --epochs 1");
    write_text("iso.ncol", "a b\nb c\n");
    write_text("ncol.csv", "id,f,cls\na,1,x\nb,2,y\nc,3,x\nd,4,y\n");
    run_expect(3, "attn-graph: @/ncol.csv:5: id 'd' matches no vertex (vertex attribute 'name'): a vertex with no "
                  "edge in an NCOL file does not exist in the graph (its vertices are the names its edges give)\n",
               "train @/iso.ncol --label-attr cls --node-table @/ncol.csv --epochs 1");
    /* an NCOL file's vertices are numbered as its edges first name them: a table of indices is not
     * matched to that order. No id matching, the table is keyed otherwise: said so, not that the
     * first id is a vertex without an edge */
    write_text("idx.csv", "id,f,cls\n0,1,x\n1,2,y\n2,3,x\n");
    run_expect(3, "attn-graph: @/idx.csv: none of the table's 3 ids matches a vertex (vertex attribute 'name', which "
                  "holds 'a', 'b', ...; the table's first id is '0', line 2): the table is keyed by something else; "
                  "key its rows by vertex attribute 'name', or name the vertex attribute that holds its ids "
                  "(--table-id-attr)\n",
               "train @/iso.ncol --label-attr cls --node-table @/idx.csv --epochs 1");
}

/* Models of the wrong kind and bad model files: exit 4. */
static void test_models(void **state) {
    (void)state;
    run_expect(4,
        "attn-graph: classify: graphs/models/karate.safetensors is a node-classification model: classify needs a "
        "graph-level one (use 'attn-graph label')\n",
        "classify --model graphs/models/karate.safetensors graphs/molecules/aspirin.gml");
    run_expect(4,
        "attn-graph: label: graphs/models/tox21.safetensors is a graph-multitask model: label needs a node-level one "
        "(use 'attn-graph classify')\n",
        "label --model graphs/models/tox21.safetensors graphs/social/karate.gml");
    /* standard input once only */
    run_expect(2, "attn-graph: classify: '-' (standard input) given twice\n", "classify - graphs/molecules/aspirin.gml -");
    /* a model file that cannot be opened is a model error for eval too, as for the others */
    run_expect(4, "attn-graph: @/none.safetensors: cannot open: No such file or directory\n",
               "eval --model @/none.safetensors graphs/social/karate.gml --train-nodes 0,33");
    run_expect(4, "attn-graph: @/none.safetensors: cannot open: No such file or directory\n",
               "eval --model graphs/models/karate.safetensors --model @/none.safetensors graphs/social/karate.gml "
               "--train-nodes 0,33");
    const char *cmds[3] = {"classify", "label", "explain"};
    for (int k = 0; k < 3; k++) {
        char args[512];
        snprintf(args, sizeof args, "%s --model %s/bad.safetensors graphs/social/karate.gml%s", cmds[k], dir,
                 k == 2 ? " -o x.gml" : "");
        ag_cli_run_t r;
        ag_cli_run(&r, NULL, args);
        assert_int_equal(r.code, 4);
        /* one line naming the model file (the defect is the model loader's to word) */
        char head[256];
        snprintf(head, sizeof head, "attn-graph: %s/bad.safetensors: ", dir);
        assert_memory_equal(r.err, head, strlen(head));
        assert_int_equal(ag_cli_count_lines(r.err), 1);
        assert_string_equal(r.out, "");
    }
    /* a key this attn-graph does not know in one of the model's objects (one added by hand, or by
     * a newer version): refused by name, not read without it */
    char gate[512], want[1024];
    snprintf(gate, sizeof gate, "%s/gate.safetensors", dir);
    ag_test_header_replace(AG_SOURCE_DIR "/graphs/models/karate.safetensors", gate, "\\\"hidden\\\": ",
                           "\\\"gate\\\": 1, \\\"hidden\\\": ");
    snprintf(want, sizeof want, "attn-graph: %s: model configuration: unknown key 'gate' in metadata 'config' "
             "(attn-graph %s does not know it: the file was written by a newer version, or edited)\n", gate,
             ag_version());
    run_expect(4, want, "label --model @/gate.safetensors graphs/social/karate.gml");
    run_expect(4, want, "info @/gate.safetensors");
}

/* Node regression needs a numeric target attribute. */
static void test_regression_target(void **state) {
    (void)state;
    /* a classification without two classes: none labelled, or one class */
    write_text("nolab.gml", "graph [ node [ id 0 c \"\" ] node [ id 1 c \"\" ] edge [ source 0 target 1 ] ]");
    write_text("onelab.gml", "graph [ node [ id 0 c \"x\" ] node [ id 1 c \"x\" ] edge [ source 0 target 1 ] ]");
    run_expect(3, "attn-graph: @/nolab.gml: label attribute 'c' labels no vertex (every value is empty or missing): a "
               "classifier needs 2 or more classes\n", "train @/nolab.gml --label-attr c --quiet");
    run_expect(3, "attn-graph: @/onelab.gml: label attribute 'c' has one class, 'x', on every labelled vertex: a "
               "classifier needs 2 or more\n", "train @/onelab.gml --label-attr c --quiet");
    run_expect(3,
        "attn-graph: graphs/social/karate.gml: vertex attribute 'club_name' is the regression target but is not "
        "numeric\n",
        "train graphs/social/karate.gml --label-attr club_name --task node-regression --quiet");
    run_expect(3,
        "attn-graph: graphs/social/karate.gml: the graph has no vertex attribute 'weight' (the regression target; its "
        "vertex attributes: id, name, club, club_name)\n",
        "train graphs/social/karate.gml --label-attr weight --task node-regression --quiet");
    run_expect(3, "attn-graph: @/nan.gml: target 'y' is missing (NaN) on every vertex\n",
               "train @/nan.gml --label-attr y --task node-regression --quiet");
    /* float32 holds the targets: 1e39 would be inf and its scaling "mean inf" */
    write_text("big.gml", "graph [\n directed 0\n node [ id 0 x 0.5 y 1.5 ]\n node [ id 1 x 0.2 y 1e39 ]\n"
                          " edge [ source 0 target 1 ]\n]\n");
    run_expect(3,
        "attn-graph: @/big.gml: vertex 1: target 'y' is 1e+39, beyond the float32 range (3.40282e+38) targets are "
        "held in; rescale the attribute (NaN marks an unlabelled vertex)\n",
        "train @/big.gml --label-attr y --task node-regression --quiet");
    /* a graph task's column of strings forced to regression: the data's fault as the node task's (exit 3) */
    char kinds[1024];
    snprintf(kinds, sizeof kinds, "file,kind\n%s/tests/data/mutag-mini/molecules/0001.gml,\n"
             "%s/tests/data/mutag-mini/molecules/0002.gml,ring\n%s/tests/data/mutag-mini/molecules/0003.gml,chain\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("kinds.csv", kinds);
    char want[1024];
    snprintf(want, sizeof want, "attn-graph: regression needs numeric targets; column 'kind' holds strings ('ring' "
             "for %s/tests/data/mutag-mini/molecules/0002.gml): graph-classification takes them as classes\n",
             AG_SOURCE_DIR);
    run_expect(3, want, "train --labels @/kinds.csv --task graph-regression --quiet");
    /* a target of one value on every training graph: warned (classification refuses one class) */
    char same[1024];
    snprintf(same, sizeof same, "file,c\n%s/tests/data/mutag-mini/molecules/0001.gml,5\n"
             "%s/tests/data/mutag-mini/molecules/0002.gml,5\n%s/tests/data/mutag-mini/molecules/0003.gml,5\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("same.csv", same);
    run_expect(0, "attn-graph: warning: target 'c' is 5 on every labelled training graph: there is nothing to learn, "
               "and the model predicts about that value\n",
               "train --labels @/same.csv --task graph-regression --split-random 0.67,0 --epochs 1 --quiet");
    run_expect(2,
        "attn-graph: train: a GRAPH argument trains node-classification or node-regression, not graph-regression\n",
        "train graphs/social/karate.gml --label-attr club --task graph-regression --quiet");
    /* a task empty in every graph is refused beside others as it is alone (it trained, scoring nan) */
    char tasks[1024];
    snprintf(tasks, sizeof tasks, "file,a,b\n%s/tests/data/mutag-mini/molecules/0001.gml,1,\n"
             "%s/tests/data/mutag-mini/molecules/0002.gml,0,\n%s/tests/data/mutag-mini/molecules/0003.gml,1,\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("tasks.csv", tasks);
    run_expect(3, "attn-graph: target 'b' has no value in any graph: leave it out of the targets\n",
               "train --labels @/tasks.csv --target a,b --task graph-multitask --quiet");
}

/* A Latin-1 file's text would reach the model file's JSON header, which must be UTF-8: refused
 * before training (exit 3, naming attribute, vertex and value), not after it when saving. */
static void test_not_utf8(void **state) {
    (void)state;
    write_text("latin1.gml", "graph [\n directed 0\n node [ id 0 name \"caf\xE9\" club \"A\" ]\n"
                             " node [ id 1 name \"bob\" club \"B\" ]\n node [ id 2 name \"eve\" club \"A\" ]\n"
                             " edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n");
    run_expect(3,
        "attn-graph: @/latin1.gml: vertex attribute 'name' of vertex 0 is 'caf\\xE9', which is not valid UTF-8: a "
        "model file stores the values of a text attribute as UTF-8; convert the graph file to UTF-8 (e.g. iconv -f "
        "latin1 -t utf-8) or leave the attribute out\n",
        "train @/latin1.gml --label-attr club --epochs 1 --quiet -o @/latin1.safetensors");
    struct stat st;
    char path[256];
    snprintf(path, sizeof path, "%s/latin1.safetensors", dir);
    assert_int_not_equal(stat(path, &st), 0);
    run_expect(3,
        "attn-graph: @/latin1.gml: vertex attribute 'name': vertex 0 has value 'caf\\xE9', which is not valid "
        "UTF-8: a model file stores class names as UTF-8 text; convert the file to UTF-8 (e.g. iconv -f latin1 -t "
        "utf-8)\n",
        "train @/latin1.gml --label-attr name --epochs 1 --quiet -o @/latin1.safetensors");
    assert_int_not_equal(stat(path, &st), 0);
    /* left out, it trains */
    run_expect(0, "", "train @/latin1.gml --label-attr club --exclude-attrs name --train-nodes 0,1 --epochs 1 "
                      "--quiet -o @/latin1.safetensors");
    assert_int_equal(stat(path, &st), 0);
    /* what the program writes stays UTF-8: the Latin-1 byte becomes U+FFFD in JSON and in the SVG */
    ag_cli_run_t r = run_expect(0, "", "info --json @/latin1.gml");
    assert_non_null(strstr(r.out, "\"example\": \"caf\xEF\xBF\xBD\""));
    /* (GraphML refuses the byte: test_cli_predict) */
    run_expect(0, "", "explain --model @/latin1.safetensors @/latin1.gml -o @/latin1-out.gml --svg @/latin1.svg");
    snprintf(path, sizeof path, "%s/latin1.svg", dir);
    size_t n;
    char *svg = (char *)ag_test_read_file(path, &n);
    char why[300];
    int64_t paths = 0;
    if (!ag_xml_check(svg, "path", &paths, why, sizeof why)) fail_msg("latin1.svg: %s", why);
    assert_non_null(strstr(svg, ">caf\xEF\xBF\xBD<"));
    free(svg);
}

/* train: an option value the library refuses is named by the program's flag, from the option the
 * library says it refused (not from its message), control characters escaped as in every error. */
static void test_option_refused(void **state) {
    (void)state;
    run_expect(2, "attn-graph: train: --attn-norm: unknown value 'a\\x1b[31mb' (expected softmax or relu)\n",
               "train --labels tests/data/mutag-mini/labels.csv --attn-norm \"$(printf 'a\\033[31mb')\" --epochs 1 -q "
               "-o @/m.safetensors");
    run_expect(2, "attn-graph: train: --mask: entry 2 of 'neighbours,zzz' is 'zzz', not neighbours, khop or full\n",
               "train --labels tests/data/mutag-mini/labels.csv --mask neighbours,zzz --epochs 1 -q -o @/m.safetensors");
    run_expect(2, "attn-graph: train: --head-hidden: node tasks have a linear head on each node; the option is for "
                  "graph tasks\n",
               "train graphs/social/karate.gml --label-attr club --train-nodes 0,33 --head-hidden 8 --epochs 1 -q -o "
               "@/m.safetensors");
    run_expect(2, "attn-graph: train: --metric: unknown metric 'bogus' (expected auto, loss, accuracy, macro_f1, "
                  "roc_auc, rmse or mae)\n",
               "train --labels tests/data/mutag-mini/labels.csv --metric bogus --epochs 1 -q -o @/m.safetensors");
}

/* train: a metric the task cannot score is a usage error, not an untrained model; a validation part
 * with one class only is watched on its loss, with a warning even under --quiet. */
static void test_metric_misfits(void **state) {
    (void)state;
    run_expect(2,
        "attn-graph: train: --metric: metric rmse does not score a graph-classification task: it takes loss, "
        "accuracy, macro_f1 or roc_auc\n",
        "train --labels tests/data/mutag-mini/labels.csv --metric rmse --epochs 1 -q -o @/m.safetensors");
    run_expect(2,
        "attn-graph: train: --metric: metric accuracy does not score a graph-regression task: it takes loss, rmse "
        "or mae\n",
        "train --labels tests/data/mutag-mini/labels.csv --task graph-regression --metric accuracy --epochs 1 -q -o "
        "@/m.safetensors");
    /* a third fraction is the rest, or it would be ignored */
    run_expect(2,
        "attn-graph: train: --split-random 0.5,0.5,0.5: TRAIN,VAL,TEST add up to 1.5, not 1 (the test part is the "
        "rest: TRAIN,VAL says the same) (see 'attn-graph train --help')\n",
        "train --labels tests/data/mutag-mini/labels.csv --split-random 0.5,0.5,0.5 --epochs 1 -q -o @/m.safetensors");
    char model[128];
    snprintf(model, sizeof model, "%s/m.safetensors", dir);
    assert_int_not_equal(access(model, F_OK), 0);
    /* two tasks, positives in graphs 1-3 and 5 only: the validation graphs 25-32 are all negative */
    char labels[4096] = "file,NR-AR,NR-AhR\n", split[4096] = "file,random_split\n";
    for (int i = 1; i <= 40; i++) {
        snprintf(labels + strlen(labels), sizeof labels - strlen(labels), "%s/tests/data/tox21-mini/%04d.gml,%d,%d\n",
                 AG_SOURCE_DIR, i, i <= 3, i == 5);
        snprintf(split + strlen(split), sizeof split - strlen(split), "%s/tests/data/tox21-mini/%04d.gml,%s\n",
                 AG_SOURCE_DIR, i, i <= 24 ? "train" : i <= 32 ? "valid" : "test");
    }
    write_text("tox.csv", labels);
    write_text("toxsplit.csv", split);
    ag_cli_run_t r = run_expect(0,
        "attn-graph: warning: the validation part's 8 labelled graphs have one class only in every task: its roc_auc "
        "is undefined, so early stopping watches its loss\n",
        "train --labels @/tox.csv --split @/toxsplit.csv --epochs 3 --threads 1 -q --log @/tox.log -o @/tox.safetensors "
        "--metric roc_auc"); /* asked for: 8 graphs alone would make it the loss already (ag_metric_for_validation) */
    char path[256], line[256];
    snprintf(path, sizeof path, "%s/tox.log", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    /* the validation column holds the loss of each epoch (ROC-AUC would be nan on every one) */
    int scored = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'e') continue; /* the header */
        const char *p = line;
        for (int comma = 0; comma < 3 && p; comma++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        assert_non_null(p);
        double val = strtod(p, NULL);
        scored += isfinite(val) && val > 0.0;
    }
    fclose(f);
    assert_int_equal(scored, 3);
    assert_non_null(strstr(r.out, "test: roc_auc nan, loss "));
    /* unquieted, the nan on the test line is explained: its part has one class too */
    char args[1024];
    snprintf(args, sizeof args, "train --labels %s/tox.csv --split %s/toxsplit.csv --epochs 1 --threads 1 -o "
             "%s/tox.safetensors", dir, dir, dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "\nattn-graph: note: the test part's labelled graphs hold one class only in every "
                                  "task: its roc_auc is undefined (nan)\n"));
    /* with the metric left to choose, 8 validation graphs make it the loss, a note says why */
    assert_non_null(strstr(r.err, "attn-graph: note: the validation part has 8 labelled graphs (under 100): early "
                                  "stopping watches its loss, which keeps improving after its ROC-AUC stops moving "
                                  "(--metric roc_auc to watch that)\n"));
    /* no label in the validation part: it cannot choose, the last epoch is kept (not epoch 0's) */
    char unlabelled[4096] = "file,NR-AR,NR-AhR\n";
    for (int i = 1; i <= 40; i++)
        snprintf(unlabelled + strlen(unlabelled), sizeof unlabelled - strlen(unlabelled),
                 i > 24 && i <= 32 ? "%s/tests/data/tox21-mini/%04d.gml,,\n" : "%s/tests/data/tox21-mini/%04d.gml,%d,%d\n",
                 AG_SOURCE_DIR, i, i % 2, i % 3 == 0);
    write_text("toxnoval.csv", unlabelled);
    r = run_expect(0,
        "attn-graph: warning: no graph of the validation part has a label: it cannot choose an epoch; the last epoch "
        "is kept\n",
        "train --labels @/toxnoval.csv --split @/toxsplit.csv --epochs 2 --threads 1 -q -o @/tox.safetensors");
    assert_non_null(strstr(r.out, "test: roc_auc "));
}

/* The library's messages name its options (option exclude_attrs); the program's name its flags. */
static void test_flag_names(void **state) {
    (void)state;
    write_text("fa.gml", "graph [\n directed 0\n node [ id 0 x 1 ]\n node [ id 1 x 2 ]\n edge [ source 0 target 1 ]\n]\n");
    write_text("fb.gml", "graph [\n directed 0\n node [ id 0 x 1 ]\n node [ id 1 x NaN ]\n edge [ source 0 target 1 ]\n]\n");
    write_text("flags.csv", "file,y\nfa.gml,0\nfb.gml,1\n");
    run_expect(3,
        "attn-graph: fb.gml: numeric vertex attribute 'x' is missing on vertex 1 (NaN; every vertex needs a number); "
        "to train without it, leave it out (--exclude-attrs x)\n",
        "train --labels @/flags.csv --split-random 1,0 --epochs 1 -q -o @/f.safetensors");
    /* a table whose graph column is not 'file': its columns, and the flag that names it */
    write_text("paths.csv", "path,y\nfa.gml,0\nfb.gml,1\n");
    run_expect(3,
        "attn-graph: @/paths.csv:1: no 'file' column in the header (its columns: 'path', 'y'); --file-column names "
        "the column of the graph files\n",
        "train --labels @/paths.csv --epochs 1 -q");
}

/* GraphML of three vertices, nodes "0", key and "1", the second without its 'days'. */
static void write_days_graphml(const char *name, const char *key) {
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
             "<key id=\"d\" for=\"node\" attr.name=\"days\" attr.type=\"double\"/>\n"
             "<key id=\"y\" for=\"node\" attr.name=\"y\" attr.type=\"string\"/>\n"
             "<graph edgedefault=\"undirected\">\n"
             "<node id=\"0\"><data key=\"d\">3</data><data key=\"y\">a</data></node>\n"
             "<node id=\"%s\"><data key=\"y\">b</data></node>\n"
             "<node id=\"1\"><data key=\"d\">5</data><data key=\"y\">a</data></node>\n"
             "<edge source=\"0\" target=\"%s\"/><edge source=\"%s\" target=\"1\"/>\n"
             "</graph>\n</graphml>\n", key, key, key);
    write_text(name, xml);
}

/* A missing number names the vertex by its index and by the key the file gave it: GraphML node
 * "204" is vertex 1 here, and "vertex 1" alone sent the reader to node "1", another vertex. */
static void test_missing_number_names_vertex(void **state) {
    (void)state;
    write_days_graphml("ids.graphml", "204");
    run_expect(3,
        "attn-graph: @/ids.graphml: numeric vertex attribute 'days' is missing on vertex 1 (id '204') (NaN; every "
        "vertex needs a number); to train without it, leave it out (--exclude-attrs days)\n",
        "train @/ids.graphml --label-attr y --epochs 1 -q");
    /* a GML file numbering its vertices its own way: its id, which is not the index */
    write_text("ids.gml", "graph [\n directed 0\n node [ id 10 x 1 y \"a\" ]\n node [ id 7 x NaN y \"b\" ]\n"
                          " edge [ source 10 target 7 ]\n]\n");
    run_expect(3,
        "attn-graph: @/ids.gml: numeric vertex attribute 'x' is missing on vertex 1 (id 7) (NaN; every vertex needs "
        "a number); to train without it, leave it out (--exclude-attrs x)\n",
        "train @/ids.gml --label-attr y --epochs 1 -q");
    /* a long key is cut at 60 bytes, never inside a UTF-8 character: 'a' and 29 of 40 two-byte é */
    char e40[128] = "a", e29[128] = "a", expected[512];
    for (int i = 0; i < 40; i++) strcat(e40, "\xC3\xA9");
    for (int i = 0; i < 29; i++) strcat(e29, "\xC3\xA9");
    write_days_graphml("long.graphml", e40);
    snprintf(expected, sizeof expected,
             "attn-graph: @/long.graphml: numeric vertex attribute 'days' is missing on vertex 1 (id '%s') (NaN; "
             "every vertex needs a number); to train without it, leave it out (--exclude-attrs days)\n", e29);
    run_expect(3, expected, "train @/long.graphml --label-attr y --epochs 1 -q");
}

/* A directory given where a file is read is named as one (exit 3), wherever it is given: fopen()
 * opens a directory, whose size then read as 2^63 bytes ("out of memory", exit 1). */
static void test_directory_as_file(void **state) {
    (void)state;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/adir", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    run_expect(3, "attn-graph: @/adir: cannot open: Is a directory\n", "train --labels @/adir -q");
    run_expect(3, "attn-graph: @/adir: cannot open: Is a directory\n",
               "train --labels tests/data/mutag-mini/labels.csv --split @/adir -q");
    run_expect(3, "attn-graph: @/adir: cannot open: Is a directory\n",
               "train --labels tests/data/mutag-mini/labels.csv --folds @/adir --fold 0 -q");
    run_expect(3, "attn-graph: @/adir: cannot open: Is a directory\n",
               "train graphs/social/karate.gml --label-attr club --node-table @/adir -q");
    run_expect(3, "attn-graph: @/adir: Is a directory\n", "classify @/adir");
    rmdir(sub);
}

/* GML keys hold letters and digits only: two attributes that would share one (club_name and
 * clubname) are refused before OUT is written (GraphML keeps both); the graph's own attributes
 * that label writes (a labelled graph labelled again) are replaced with a warning. */
static void test_gml_keys_and_replaced(void **state) {
    (void)state;
    edit_copy("graphs/social/karate.gml", "kc.gml", "club", " 0 clubname \"x\"");
    run_expect(3,
        "attn-graph: label: cannot write @/kc-out.gml: vertex attributes 'clubname' and 'club_name' would both be "
        "written as 'clubname' (GML keys hold letters and digits only), and a reader would keep one; rename one of "
        "them, or write GraphML (-o FILE.graphml), which keeps both names\n",
        "label --model graphs/models/karate.safetensors @/kc.gml -o @/kc-out.gml");
    struct stat st;
    char out[128];
    snprintf(out, sizeof out, "%s/kc-out.gml", dir);
    assert_int_equal(stat(out, &st), -1);
    run_expect(0, "", "label --model graphs/models/karate.safetensors @/kc.gml -o @/kc-out.graphml");
    /* a name GML cannot spell (CJK letters alone, a leading digit) is written under igraph's key,
     * which no model finds: said, and written (GraphML keeps it) */
    write_text("cjk.graphml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/"
               "xmlns\">\n<key id=\"k0\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n<key id=\"k1\" "
               "for=\"node\" attr.name=\"\xe5\x90\x8d\xe5\x89\x8d\" attr.type=\"string\"/>\n<key id=\"k2\" for=\"node\" "
               "attr.name=\"1st\" attr.type=\"double\"/>\n<graph id=\"G\" edgedefault=\"undirected\">\n"
               "<node id=\"a\"><data key=\"k0\">1</data><data key=\"k1\">x</data><data key=\"k2\">1</data></node>\n"
               "<node id=\"b\"><data key=\"k0\">2</data><data key=\"k1\">y</data><data key=\"k2\">2</data></node>\n"
               "<edge source=\"a\" target=\"b\"/>\n</graph>\n</graphml>\n");
    run_expect(0,
        "attn-graph: warning: @/cjk.gml: vertex attribute '\xe5\x90\x8d\xe5\x89\x8d' is written as 'igraph' (GML "
        "keys start with a letter and hold ASCII letters and digits only), a name no model reads back; write GraphML "
        "(-o FILE.graphml) to keep it\nattn-graph: warning: @/cjk.gml: vertex attribute '1st' is written as 'igraph1st' "
        "(GML keys start with a letter and hold ASCII letters and digits only), a name no model reads back; write "
        "GraphML (-o FILE.graphml) to keep it\nattn-graph: note: @/cjk.gml: GML numbers its vertices: the text vertex ids "
        "(attribute 'id': GraphML's node ids, a Pajek file's labels) are written as 'label'\n",
        "label --model graphs/models/karate.safetensors @/cjk.graphml -o @/cjk.gml");
    run_expect(0, "", "label --model graphs/models/karate.safetensors graphs/social/karate.gml -o @/once.gml");
    run_expect(0,
        "attn-graph: warning: @/once.gml: the graph's own vertex attribute 'pred' and 2 more are replaced by what "
        "label writes under the same names\n",
        "label --model graphs/models/karate.safetensors @/once.gml -o @/twice.gml");
}

/* Node labels come from the graph or from the table: a name in neither names both. */
static void test_labels_nowhere(void **state) {
    (void)state;
    write_text("e.edges", "0 1\n1 2\n2 0\n");
    write_text("n.csv", "id,a,y\n0,1,0\n1,2,1\n2,3,0\n");
    run_expect(3, "attn-graph: @/e.edges: no labels 'z': the graph has no vertex attribute 'z' and the node table "
                  "@/n.csv has no column 'z'\n",
               "train @/e.edges --node-table @/n.csv --label-attr z --epochs 1");
}

/* R's NA among a table's class codes became a class "NA" of its own, its vertices trained on it:
 * refused where the table is read for labels (train; label's known classes for --smooth). */
static void test_labels_missing_word(void **state) {
    (void)state;
    write_text("e.edges", "0 1\n1 2\n2 0\n2 3\n");
    write_text("y.csv", "id,a,y\n0,1,0\n1,2,1\n2,3,NA\n3,1,1\n");
    run_expect(3, "attn-graph: @/y.csv: column 'y': vertex 2's label 'NA' is not a number, where the column's other "
                  "labels are: an unlabelled vertex has an empty cell here; empty such cells (pandas: "
                  "to_csv(na_rep=''); R: write.csv(na = ''))\n",
               "train @/e.edges --node-table @/y.csv --label-attr y --epochs 1 --quiet");
    write_text("yo.csv", "id,y\n0,0\n1,1\n2,\n3,1\n");
    write_text("yn.csv", "id,y\n0,0\n1,1\n2,n/a\n3,1\n");
    char args[1024];
    snprintf(args, sizeof args, "train %1$s/e.edges --node-table %1$s/yo.csv --label-attr y --epochs 1 --hidden 8 "
             "--layers 1 --heads 2 --threads 1 --quiet --split-random 0.5,0.5 -o %1$s/m.safetensors", dir);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("training on the labels-only table failed (exit %d): %s", r.code, r.err);
    run_expect(3, "attn-graph: @/yn.csv: column 'y': vertex 2's label 'n/a' is not a number, where the column's "
                  "other labels are: an unlabelled vertex has an empty cell here; empty such cells (pandas: "
                  "to_csv(na_rep=''); R: write.csv(na = ''))\n",
               "label --model @/m.safetensors @/e.edges --node-table @/yn.csv --smooth 0.5");
}

/* classify, label and explain predict with one model file: a second --model is refused, not
 * silently taken in place of the first (eval takes several: an ensemble). */
static void test_model_twice(void **state) {
    (void)state;
    run_expect(2,
        "attn-graph: classify: --model given twice ('graphs/models/mutag.safetensors', "
        "'graphs/models/tox21.safetensors'): classify takes one model file (train --ensemble K makes one file of K "
        "models)\n",
        "classify --model graphs/models/mutag.safetensors --model graphs/models/tox21.safetensors "
        "graphs/molecules/aspirin.gml");
    /* the output's kind is its extension: every accepted one is named (.xml is GraphML) */
    run_expect(2, "attn-graph: label: -o @/out.txt: give a .gml, .graphml (or .xml), .csv, .json or .jsonl file\n",
               "label graphs/social/karate.gml -o @/out.txt");
    run_expect(2, "attn-graph: explain: -o @/out.json: give a .gml or .graphml (or .xml) file\n",
               "explain graphs/molecules/aspirin.gml -o @/out.json");
    run_expect(2,
        "attn-graph: label: --model given twice ('graphs/models/karate.safetensors', "
        "'graphs/models/karate.safetensors'): label takes one model file (train --ensemble K makes one file of K "
        "models)\n",
        "label --model graphs/models/karate.safetensors --model graphs/models/karate.safetensors "
        "graphs/social/karate.gml");
    /* eval joins models, but one file twice (here under two names) is no ensemble */
    run_expect(2,
        "attn-graph: eval: --model 'graphs/../graphs/models/karate.safetensors' is the file "
        "'graphs/models/karate.safetensors' given before: an ensemble joins other models (train --ensemble K makes "
        "one file of K)\n",
        "eval --model graphs/models/karate.safetensors --model graphs/../graphs/models/karate.safetensors "
        "graphs/social/karate.gml");
    /* a hard link is the same file too (both names in the test's directory: one file system) */
    char from[512], to[512];
    size_t n;
    unsigned char *bytes = ag_test_read_file(AG_SOURCE_DIR "/graphs/models/karate.safetensors", &n);
    snprintf(from, sizeof from, "%s/k.safetensors", dir);
    snprintf(to, sizeof to, "%s/hard.safetensors", dir);
    FILE *f = fopen(from, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    free(bytes);
    assert_int_equal(link(from, to), 0);
    run_expect(2,
        "attn-graph: eval: --model '@/hard.safetensors' is the file '@/k.safetensors' given before: an ensemble "
        "joins other models (train --ensemble K makes one file of K)\n",
        "eval --model @/k.safetensors --model @/hard.safetensors graphs/social/karate.gml");
    /* eval reads --max-memory 0 as every command does: no size */
    run_expect(2, "attn-graph: eval: --max-memory takes a size like 4G, 512M or 100000000, not '0'\n",
               "eval --model graphs/models/karate.safetensors graphs/social/karate.gml --max-memory 0");
}

/* eval without --seed draws the random split with the model's seed, as train drew it, so it prints
 * train's line; models of other seeds joined on a random split get a warning (their training
 * parts differ). */
static void test_eval_seed(void **state) {
    (void)state;
    char args[512];
    ag_cli_run_t t, e;
    snprintf(args, sizeof args, "train graphs/social/karate.gml --label-attr club --seed %d --epochs 5 --threads 1 -q "
             "-o %s/s%d.safetensors", 5, dir, 5);
    ag_cli_run(&t, NULL, args);
    assert_int_equal(t.code, 0);
    snprintf(args, sizeof args, "train graphs/social/karate.gml --label-attr club --seed 6 --epochs 5 --threads 1 -q "
             "-o %s/s6.safetensors", dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    e = run_expect(0,
        "attn-graph: note: eval: the random split is drawn with the model's seed 5 and fractions 0.8,0.1, as train "
        "drew it (--seed S and --split-random A,B for others)\n",
        "eval --model @/s5.safetensors graphs/social/karate.gml");
    assert_string_equal(e.out, t.out);
    run_expect(0,
        "attn-graph: note: eval: the random split is drawn with the model's seed 5 and fractions 0.8,0.1, as train "
        "drew it (--seed S and --split-random A,B for others)\nattn-graph: warning: eval: @/s5.safetensors was trained with seed 5 and @/s6.safetensors with 6: "
        "under a random split (--split-random, --kfold) each seed drew other parts, so the part scored here overlaps "
        "a model's training part; assemble an ensemble of separate runs on a split file (--split), or train it with "
        "--ensemble K\n",
        "eval --model @/s5.safetensors --model @/s6.safetensors graphs/social/karate.gml");
    /* other fractions: the model keeps them, so eval draws train's parts (the same test line) with
     * seed 1 too, where no note was printed and the default fractions scored another part */
    snprintf(args, sizeof args, "train graphs/social/karate.gml --label-attr club --epochs 5 --threads 1 -q "
             "--split-random 0.5,0.2 -o %s/f1.safetensors", dir);
    ag_cli_run(&t, NULL, args);
    assert_int_equal(t.code, 0);
    e = run_expect(0,
        "attn-graph: note: eval: the random split is drawn with the model's seed 1 and fractions 0.5,0.2, as train "
        "drew it (--seed S and --split-random A,B for others)\n",
        "eval --model @/f1.safetensors graphs/social/karate.gml");
    assert_string_equal(e.out, t.out);
    /* given again, they are the user's: no note */
    e = run_expect(0, "", "eval --model @/f1.safetensors graphs/social/karate.gml --split-random 0.5,0.2");
    assert_string_equal(e.out, t.out);
    /* --seed given: taken as it is, without a note */
    run_expect(0, "", "eval --model @/s5.safetensors graphs/social/karate.gml --seed 5");
    /* graph models of two seeds on a random split have features fitted on two training parts
     * (the graph preset standardises): they cannot join, and a note says why (it only said they
     * were not trained on the same data with the same feature options) */
    for (int seed = 1; seed <= 2; seed++) {
        snprintf(args, sizeof args, "train --labels tests/data/mutag-mini/labels.csv --split-random 0.8,0.1 --seed %d "
                 "--epochs 1 --threads 1 -q -o %s/g%d.safetensors", seed, dir, seed);
        ag_cli_run(&t, NULL, args);
        assert_int_equal(t.code, 0);
    }
    snprintf(args, sizeof args, "eval --model %s/g1.safetensors --model %s/g2.safetensors --labels "
             "tests/data/mutag-mini/labels.csv", dir, dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 4);
    assert_non_null(strstr(e.err, " cannot join "));
    assert_non_null(strstr(e.err, "attn-graph: note: the two were trained with --seed 1 and 2 on a --split-random "
                                  "split: on a random split (--split-random, or the default without --split) each "
                                  "seed draws its own training part, on which the features are fitted; train both on "
                                  "one --split file, or the ensemble at once with train --ensemble K\n"));
}

/* --stratify draws the random split class by class; the model keeps that, so eval draws train's
 * parts again, and says when its own draw is the other kind (its test part then overlaps the
 * model's training part). Classes only. */
static void test_stratify(void **state) {
    (void)state;
    char args[512];
    ag_cli_run_t e, t = run_expect(0, "", "train --labels tests/data/mutag-mini/labels.csv --split-random 0.5,0.25 "
                                          "--stratify --seed 3 --epochs 1 --threads 1 -q -o @/st.safetensors");
    e = run_expect(0,
        "attn-graph: note: eval: the random split is drawn with the model's seed 3 and fractions 0.5,0.25, class by "
        "class (--stratify), as train drew it (--seed S and --split-random A,B for others)\n",
        "eval --model @/st.safetensors --labels tests/data/mutag-mini/labels.csv");
    assert_string_equal(e.out, t.out);
    e = run_expect(0, "", "eval --model @/st.safetensors --labels tests/data/mutag-mini/labels.csv --seed 3 "
                          "--split-random 0.5,0.25 --stratify");
    assert_string_equal(e.out, t.out);
    e = run_expect(0, "", "info @/st.safetensors");
    assert_non_null(strstr(e.out, "\nsplit: a seeded random split, class by class (--split-random TRAIN,VAL with the "
                                  "model's seed --stratify), whose parts eval draws again by default\n"));
    e = run_expect(0, "", "info --json @/st.safetensors");
    assert_non_null(strstr(e.out, "\"split\": \"random\", \"split_stratified\": true}"));
    snprintf(args, sizeof args, "eval --model %s/st.safetensors --labels tests/data/mutag-mini/labels.csv --seed 3 "
             "--split-random 0.5,0.25", dir);
    ag_cli_run(&e, NULL, args);
    assert_int_equal(e.code, 0);
    assert_non_null(strstr(e.err, "/st.safetensors was trained on a random split drawn class by class (--stratify): "
                                  "drawn without it here, the test part overlaps the model's training part, so its "
                                  "figure overstates the model: give --stratify\n"));
    run_expect(2,
        "attn-graph: train: --stratify draws a random split by class (--split-random, or the default): a split file, "
        "folds or listed vertices give their parts as they are (see 'attn-graph train --help')\n",
        "train graphs/social/karate.gml --label-attr club --train-nodes 0,33 --stratify");
    run_expect(2,
        "attn-graph: train: --stratify draws the split class by class, and 'club' is a regression target: leave "
        "it out\n", "train graphs/social/karate.gml --label-attr club --task node-regression --stratify");
}

/* Standard input is "<stdin>" in every message, the reader's and the featuriser's alike. */
static void test_stdin_named(void **state) {
    (void)state;
    ag_cli_run_t r = run_expect(3,
        "attn-graph: <stdin>: attribute 'charge' is missing (the model expects numeric vertex attribute 'charge')\n",
        "classify --json - < @/nocharge.gml");
    assert_string_equal(r.out, "{\"file\": \"-\", \"error\": \"<stdin>: attribute 'charge' is missing (the model "
                               "expects numeric vertex attribute 'charge')\"}\n");
    run_expect(3,
        "attn-graph: <stdin>: attribute 'name' is missing (the model expects string vertex attribute 'name')\n",
        "label --model graphs/models/karate.safetensors - -o @/stdin.csv < @/noname.gml");
}

/* An error is one line even when a file name holds a newline or a tab: they are written escaped. */
static void test_control_characters_escaped(void **state) {
    (void)state;
    run_expect(3, "attn-graph: @/nl\\nnosuch.gml: No such file or directory\n", "classify '@/nl\nnosuch.gml'");
    run_expect(3, "attn-graph: @/a\\tb.gml: No such file or directory\n", "info '@/a\tb.gml'");
    /* a C1 control in UTF-8 (CSI, U+009B) is escaped too, as \u009b */
    run_expect(3, "attn-graph: @/c\\u009b2J.gml: No such file or directory\n", "info '@/c\xc2\x9b" "2J.gml'");
    /* an attribute's name is shown escaped in info's table, as its values are */
    write_text("ctl.graphml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml "
               "xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n<key id=\"k0\" for=\"node\" "
               "attr.name=\"na&#9;me&#x9b;31m\" attr.type=\"string\"/>\n<graph id=\"G\" edgedefault=\"undirected\">\n"
               "<node id=\"a\"><data key=\"k0\">v</data></node><node id=\"b\"><data key=\"k0\">w</data></node>\n"
               "<edge source=\"a\" target=\"b\"/>\n</graph>\n</graphml>\n");
    ag_cli_run_t r = run_expect(0, "", "info @/ctl.graphml");
    assert_non_null(strstr(r.out, "\n  vertex  \"na\\tme\\u009b31m\"  string "));
    /* a wide character takes two columns of the table: Chinese names line up with the others */
    write_text("wide.graphml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml "
               "xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n<key id=\"k0\" for=\"node\" "
               "attr.name=\"\xe5\x90\x8d\xe5\x89\x8d\" attr.type=\"string\"/>\n<key id=\"k1\" for=\"node\" "
               "attr.name=\"age\" attr.type=\"double\"/>\n<graph id=\"G\" edgedefault=\"undirected\">\n"
               "<node id=\"a\"><data key=\"k0\">x</data><data key=\"k1\">3</data></node>\n</graph>\n</graphml>\n");
    r = run_expect(0, "", "info @/wide.graphml");
    assert_non_null(strstr(r.out, "\n  kind    name  type "));
    assert_non_null(strstr(r.out, "\n  vertex  \xe5\x90\x8d\xe5\x89\x8d  string "));
    assert_non_null(strstr(r.out, "\n  vertex  age   numeric "));
    /* a byte that is not UTF-8 (a lone CSI), a right-to-left override: escaped too */
    run_expect(3, "attn-graph: @/d\\x9b" "2J\\u202e.gml: No such file or directory\n", "info '@/d\x9b" "2J\xe2\x80\xae.gml'");
    /* other characters of 2, 3 and 4 bytes show as themselves (their continuation bytes were
     * escaped once), in a path and in a library's message alike */
    run_expect(3, "attn-graph: @/n\xc3\xb6\xe6\x9d\xb1\xf0\x9f\x98\x80.gml: No such file or directory\n",
               "info '@/n\xc3\xb6\xe6\x9d\xb1\xf0\x9f\x98\x80.gml'");
    run_expect(3, "attn-graph: graphs/social/karate.gml: the graph has no vertex attribute '\xe5\x90\x8d' (its vertex "
               "attributes: id, name, club, club_name)\n",
               "train graphs/social/karate.gml --label-attr '\xe5\x90\x8d'");
}

/* explain's legend cuts long class names in the middle, so that names differing at their ends
 * (a long stem and a number) stay apart. */
static void test_legend_names_apart(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed 's/ club \\([01]\\)/ club \"the_class_with_a_long_name_\\1\"/' '%s/graphs/social/karate.gml' "
             "> '%s/longcls.gml'", AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    ag_cli_run_t r = run_expect(0, "", "train @/longcls.gml --label-attr club --preset gat --epochs 2 --threads 1 -q "
                                       "-o @/longcls.safetensors");
    run_expect(0, "", "explain --model @/longcls.safetensors @/longcls.gml -o @/longcls-e.gml --svg @/longcls.svg");
    char path[256];
    snprintf(path, sizeof path, "%s/longcls.svg", dir);
    size_t len;
    char *doc = (char *)ag_test_read_file(path, &len);
    assert_non_null(strstr(doc, ">the_class_w\xE2\x80\xA6_long_name_0<"));
    assert_non_null(strstr(doc, ">the_class_w\xE2\x80\xA6_long_name_1<"));
    free(doc);
    (void)r;
}

/* A graph-level model warns when one value of a graph lies beyond anything plausible (100 training
 * deviations: another unit or scale), in classify and label alike; a molecule's own extremes (a
 * charge of +3 is 25 deviations) and the shipped molecules stay unwarned. */
static void test_graph_value_far_off(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed 's/atomic_num \\([0-9]*\\)/atomic_num \\100/' '%s/graphs/molecules/aspirin.gml' "
             "> '%s/asp100.gml'", AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    const char *want = "attn-graph: warning: @/asp100.gml: vertex attribute 'atomic_num' lies far from its training "
                       "values: its value on vertex 2 is 800, 244 standard deviations above the training mean "
                       "(6.903, std 3.25); another unit or scale? The model has not seen such values\n";
    run_expect(0, want, "classify --model graphs/models/tox21.safetensors @/asp100.gml");
    run_expect(0, want, "explain --model graphs/models/tox21.safetensors @/asp100.gml -o @/asp100-e.gml");
    snprintf(cmd, sizeof cmd, "sed '0,/charge 0/s//charge 3/' '%s/graphs/molecules/aspirin.gml' > '%s/asp3.gml'",
             AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    run_expect(0, "", "classify --model graphs/models/tox21.safetensors @/asp3.gml graphs/molecules/caffeine.gml");
}

/* eval says, as classify does, when the graphs scored hold values the model never saw. */
static void test_eval_unseen(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed '0,/element \"C\"/s//element \"Se\"/' '%s/graphs/molecules/aspirin.gml' > '%s/se.gml'",
             AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "file,label\nse.gml,1\n%s/graphs/molecules/caffeine.gml,0\n", AG_SOURCE_DIR);
    write_text("unseen.csv", cmd);
    run_expect(0,
        "attn-graph: warning: eval: 1 of the 2 graphs scored has values the model never saw (e.g. 'Se' of vertex "
        "attribute 'element' in se.gml): they get its 'other' column ('attn-graph info MODEL' lists the values it "
        "knows)\n",
        "eval --model graphs/models/mutag.safetensors --labels @/unseen.csv --part all");
}

/* eval says, as classify does, when a graph scored holds a value beyond anything plausible: once,
 * with the count and the first such graph; the shipped molecules alone stay unwarned. */
static void test_eval_value_far_off(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed 's/atomic_num \\([0-9]*\\)/atomic_num \\100/' '%s/graphs/molecules/aspirin.gml' "
             "> '%s/asp100.gml' && cp '%s/asp100.gml' '%s/asp100b.gml' && cp '%s/asp100.gml' '%s/asp100c.gml'",
             AG_SOURCE_DIR, dir, dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    /* asp100c has no target: not scored, so neither counted nor named */
    snprintf(cmd, sizeof cmd,
             "file,logS\n%s/graphs/molecules/caffeine.gml,-1\nasp100.gml,-2\nasp100b.gml,-3\nasp100c.gml,\n",
             AG_SOURCE_DIR);
    write_text("far.csv", cmd);
    run_expect(0,
        "attn-graph: warning: eval: 2 of the 3 graphs scored have a value far from anything in training (e.g. vertex "
        "attribute 'atomic_num' in asp100.gml: its value on vertex 2 is 800, 222 standard deviations above the "
        "training mean (7.147, std 3.579)); another unit or scale? The model has not seen such values\n",
        "eval --model graphs/models/esol.safetensors --labels @/far.csv --part all");
    snprintf(cmd, sizeof cmd, "file,logS\n%s/graphs/molecules/caffeine.gml,-1\n%s/graphs/molecules/aspirin.gml,-2\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR);
    write_text("near.csv", cmd);
    run_expect(0, "", "eval --model graphs/models/esol.safetensors --labels @/near.csv --part all");
    write_text("onefar.csv", "file,logS\nasp100.gml,-2\n");
    run_expect(0,
        "attn-graph: warning: eval: the one graph scored has a value far from anything in training (e.g. vertex "
        "attribute 'atomic_num' in asp100.gml: its value on vertex 2 is 800, 222 standard deviations above the "
        "training mean (7.147, std 3.579)); another unit or scale? The model has not seen such values\n",
        "eval --model graphs/models/esol.safetensors --labels @/onefar.csv --part all");
}

/* A classifier scored on a column of measurements (a regression column named by mistake) says so,
 * with the value to float32's digits rather than 17 of them. */
static void test_eval_class_of_measurement(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "file,w\n%s/graphs/molecules/caffeine.gml,7.069295651951667\n", AG_SOURCE_DIR);
    write_text("measured.csv", cmd);
    ag_cli_run_t r;
    snprintf(cmd, sizeof cmd, "eval --model graphs/models/mutag.safetensors --labels %s/measured.csv --target w "
             "--part all", dir);
    ag_cli_run(&r, NULL, cmd);
    assert_int_equal(r.code, 3);
    if (!strstr(r.err, "caffeine.gml: class '7.06929588' of target 'w' is not one of the model's 2 classes ('0', "
                       "'1'); a fractional number is a measurement: is it a regression column, while the model "
                       "classifies?\n"))
        fail_msg("%s", r.err);
}

/* Writes @/name from Karate's GML by the awk program (one line per `node [`, whose $4 is the id
 * and $8 the club). */
static void karate_table(const char *program, const char *name) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "awk '%s' '%s/graphs/social/karate.gml' > '%s/%s'", program, AG_SOURCE_DIR, dir, name);
    assert_int_equal(system(cmd), 0);
}

/* A sparse table is as wide as its largest index + 1: an index of 50,000,000 beside Karate asks
 * for a 6.3 GiB matrix, held twice (12.7 GiB), refused by the memory limit before anything is allocated (bad input, as a
 * graph file whose counts ask for too many vertices), with what to change. It had been read,
 * copied and featurised for 111 s and 13 GB, then refused by the training estimate, whose advice
 * (fewer heads, a smaller width) could not help. */
static void test_table_sparse_width_limit(void **state) {
    (void)state;
    karate_table("/node \\[/ {print $4, ($4 == 5 ? \"50000000:1\" : \"0:1\")}", "wide.sparse");
    run_expect(3,
        "attn-graph: @/wide.sparse:6: feature index 50000000 makes the sparse table 50000001 columns wide: 34 rows x "
        "50000001 float32, held twice (the table and the features made from it), take about 12.7 GiB, over the limit "
        "of 100.0 MiB (set by --max-memory or ag_graph_read_set_max_memory()); a sparse table is read as a dense "
        "matrix as wide as its largest index + 1, and it uses 2 distinct indices: renumber them 0 to 1, or raise the "
        "limit (--max-memory)\n",
        "train graphs/social/karate.gml --label-attr club --node-table @/wide.sparse --epochs 1 --max-memory 100M");
    /* within the read limit, the training estimate refuses the weights that read 500,001 columns,
     * and says that they are the cost, not the heads or the width it had alone suggested */
    karate_table("/node \\[/ {print $4, ($4 == 5 ? \"500000:1\" : \"0:1\")}", "mid.sparse");
    run_expect(1,
        "attn-graph: note: node classification on features from the data, within [-1, 1]: the gat preset (the GAT "
        "paper's model; --preset transformer for the graph transformer)\n"
        "attn-graph: note: the validation part has 3 labelled vertices (under 100): early stopping watches its loss, "
        "which keeps improving after its accuracy stops moving (--metric accuracy to watch that)\n"
        "attn-graph: train: this run needs about 805 MiB of memory (a training step on 34 nodes and 78 edges) but the "
        "limit is 200 MiB, --max-memory; to fit, use fewer input features (there are 500001, and the weights that "
        "read them take about 805 MiB), fewer heads (--heads), a smaller --hidden or --head-dim, or raise "
        "--max-memory\n",
        "train graphs/social/karate.gml --label-attr club --node-table @/mid.sparse --vertex-attrs none --edge-attrs "
        "none --epochs 1 --max-memory 200M");
    /* eight inputs are not the cost of a large ensemble (the other members' memory was counted as
     * the input's) */
    karate_table("/node \\[/ {print $4, \"0:1\", \"7:\" $4 % 2}", "small.sparse");
    run_expect(1,
        "attn-graph: note: node classification on features from the data, within [-1, 1]: the gat preset (the GAT "
        "paper's model; --preset transformer for the graph transformer)\n"
        "attn-graph: note: the validation part has 3 labelled vertices (under 100): early stopping watches its loss, "
        "which keeps improving after its accuracy stops moving (--metric accuracy to watch that)\n"
        "attn-graph: train: this run needs about 1.69 MiB of memory (a training step on 34 nodes and 78 edges) but the "
        "limit is 10.0 KiB, --max-memory; to fit, use fewer heads (--heads), a smaller --hidden or --head-dim, fewer "
        "ensemble members (--ensemble), or raise --max-memory\n",
        "train graphs/social/karate.gml --label-attr club --node-table @/small.sparse --vertex-attrs none --edge-attrs "
        "none --epochs 1 --max-memory 10k --ensemble 30");
    /* a model that takes no table is said so before the table is read, as label says it */
    run_expect(3,
        "attn-graph: eval: @/wide.sparse: the model graphs/models/karate.safetensors takes no node table (it was "
        "trained without one, or with one that held the labels alone)\n",
        "eval --model graphs/models/karate.safetensors graphs/social/karate.gml --node-table @/wide.sparse "
        "--max-memory 50M");
}

/* A node-table column that mirrors the labels is refused by its name in the table (the library
 * knows it by place); with the graph's own label attribute, a column of that name is no
 * exception. A table without a header names the column by its place, and the table, not the
 * graph, is named. */
static void test_table_column_mirror(void **state) {
    (void)state;
    karate_table("BEGIN {print \"id,f,club\"} /node \\[/ {print $4 \",\" $4 % 3 \",\" 1 - $8}", "inv.csv");
    run_expect(3,
        "attn-graph: @/inv.csv: column 'club' mirrors the labels (one value per class on the labelled vertices) and "
        "cannot be a feature: the model would read its answer from it; remove it from the table\n",
        "train graphs/social/karate.gml --label-attr club --vertex-attrs none --edge-attrs none --node-table "
        "@/inv.csv --epochs 1");
    karate_table("/node \\[/ {print $4, $4 % 3, 1 - $8}", "inv.txt");
    run_expect(3,
        "attn-graph: @/inv.txt: column 2 (of 2 after the id) mirrors the labels (one value per class on the labelled "
        "vertices) and cannot be a feature: the model would read its answer from it; remove it from the table\n",
        "train graphs/social/karate.gml --label-attr club --vertex-attrs none --edge-attrs none --node-table "
        "@/inv.txt --epochs 1");
    /* a sparse table's column is its index: 'column 4 (of 6 after the id)' named a place that no
     * line of the file has for index 3 */
    karate_table("/node \\[/ {print $4, \"3:\" (1 - $8) + 1, \"5:\" $4 % 3 + 1}", "inv.sparse");
    run_expect(3,
        "attn-graph: @/inv.sparse: feature index 3 (of 0 to 5) mirrors the labels (one value per class on the "
        "labelled vertices) and cannot be a feature: the model would read its answer from it; remove it from the "
        "table\n",
        "train graphs/social/karate.gml --label-attr club --vertex-attrs none --edge-attrs none --node-table "
        "@/inv.sparse --epochs 1");
}

/* The "probabilities" member of classify --json's line for FILE (in dir) under the mutag model, in
 * out (cap bytes); the run in *r. */
static void mutag_probabilities(const char *file, char *out, size_t cap, ag_cli_run_t *r) {
    char args[512];
    snprintf(args, sizeof args, "classify --json --model graphs/models/mutag.safetensors %s/%s", dir, file);
    ag_cli_run(r, NULL, args);
    assert_int_equal(r->code, 0);
    const char *p = strstr(r->out, "\"probabilities\"");
    assert_non_null(p);
    snprintf(out, cap, "%.*s", (int)strcspn(p, "}"), p);
}

/* A string attribute some atoms lack (an empty value) is missing: none of its columns is set, and
 * classify warns, most atoms blank or one alone. The blank atom was read as an unseen one (its
 * 'other' column), with no warning for a single blank atom, and with a warning saying no column
 * was set for many. GraphML's vertex without the key's <data> reads the same as an empty one. */
static void test_missing_values_warned(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "awk '{ if (/element \"/ && seen++) sub(/element \"[A-Za-z]*\"/, \"element \\\"\\\"\"); "
             "print }' '%s/graphs/molecules/aspirin.gml' > '%s/blank.gml'", AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    run_expect(0,
        "attn-graph: warning: @/blank.gml: 12 of 13 vertices have no value of vertex attribute 'element' (empty): "
        "none of its columns is set for them, so the prediction rests on the other attributes\n",
        "classify --model graphs/models/mutag.safetensors @/blank.gml");
    /* one blank atom, and the same atom as an element the model never saw */
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "sed '0,/element \"O\"/s//element \"%s\"/' '%s/graphs/molecules/aspirin.gml' > '%s/%s'",
                 k ? "Zz" : "", AG_SOURCE_DIR, dir, k ? "zz1.gml" : "blank1.gml");
        assert_int_equal(system(cmd), 0);
    }
    run_expect(0,
        "attn-graph: warning: @/blank1.gml: 1 of 13 vertices has no value of vertex attribute 'element' (empty): "
        "none of its columns is set for it, so the prediction rests on the other attributes\n",
        "classify --model graphs/models/mutag.safetensors @/blank1.gml");
    char blank[256], zz[256];
    ag_cli_run_t r;
    mutag_probabilities("blank1.gml", blank, sizeof blank, &r);
    mutag_probabilities("zz1.gml", zz, sizeof zz, &r);
    assert_non_null(strstr(r.err, "has a value of 'element' the model never saw in training (e.g. 'Zz')"));
    assert_string_not_equal(blank, zz);
    /* GraphML: a vertex without <data> for the key, and one with it empty */
    static const char head[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
        "<key id=\"el\" for=\"node\" attr.name=\"element\" attr.type=\"string\"/>\n"
        "<key id=\"bt\" for=\"edge\" attr.name=\"bond_type\" attr.type=\"string\"/>\n"
        "<graph edgedefault=\"undirected\">\n<node id=\"a\"><data key=\"el\">C</data></node>\n"
        "<node id=\"b\"><data key=\"el\">N</data></node>\n";
    static const char tail[] =
        "<edge source=\"a\" target=\"b\"><data key=\"bt\">SINGLE</data></edge>\n"
        "<edge source=\"b\" target=\"c\"><data key=\"bt\">DOUBLE</data></edge>\n</graph>\n</graphml>\n";
    static const char *const third[3] = {"<node id=\"c\"/>\n", "<node id=\"c\"><data key=\"el\"></data></node>\n",
                                          "<node id=\"c\"><data key=\"el\">Zz</data></node>\n"};
    static const char *const files[3] = {"nodata.graphml", "emptydata.graphml", "zz.graphml"};
    char text[1024], probs[3][256];
    for (int k = 0; k < 3; k++) {
        snprintf(text, sizeof text, "%s%s%s", head, third[k], tail);
        write_text(files[k], text);
        mutag_probabilities(files[k], probs[k], sizeof probs[k], &r);
        if (k < 2)
            assert_non_null(strstr(r.err, "1 of 3 vertices has no value of vertex attribute 'element' (empty): none of "
                                        "its columns is set for it"));
    }
    assert_string_equal(probs[0], probs[1]);
    assert_string_not_equal(probs[0], probs[2]);
}

/* eval of a graph model says how many of the graphs scored have blank atoms, naming one. */
static void test_eval_missing_warned(void **state) {
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/mutag-mini' '%s/mm' && sed -i '0,/element \"[A-Za-z]*\"/s//element \"\"/' "
             "'%s/mm/molecules/0002.gml'", AG_SOURCE_DIR, dir, dir);
    assert_int_equal(system(cmd), 0);
    run_expect(0,
        "attn-graph: warning: eval: 1 of the 28 graphs scored has vertices with no value of vertex attribute "
        "'element' (empty; e.g. 1 of the 13 vertices of molecules/0002.gml): none of its columns is set for them\n",
        "eval --model graphs/models/mutag.safetensors --labels @/mm/labels.csv --part all");
}

/* Slips a new user makes: a model file where a graph goes is named as a model; --layer outside the
 * model's layers says which it has, negative values too; a drawing of standard input is headed
 * <stdin>. */
static void test_user_slips(void **state) {
    (void)state;
    /* a test part of a few vertices: its figures come with a note saying how little they weigh */
    ag_cli_run_t few;
    ag_cli_run(&few, NULL, "train graphs/social/karate.gml --label-attr club --split-random 0.8,0.15 --epochs 1 "
               "--threads 1");
    assert_int_equal(few.code, 0);
    assert_non_null(strstr(few.out, "test: accuracy "));
    assert_non_null(strstr(few.err, "attn-graph: note: the test figures are over 2 labelled values only: too few to "
                                    "tell one model from another; a larger test part (--split-random A,B leaves 1-A-B "
                                    "to it, or a --split file) gives steadier ones\n"));
    /* cross-validation over folds of which one has no test part: refused (it printed NaN figures
     * and a mean without them); the fold alone still trains */
    write_text("folds.json", "{\"folds\": [{\"train\": [0, 1, 2, 3, 33], \"test\": [4, 5]}, "
               "{\"train\": [0, 33], \"val\": [1], \"test\": []}]}");
    run_expect(3,
               "attn-graph: train: @/folds.json: fold 1 has an empty test part: cross-validation scores each fold on "
               "its test part (--fold 1 trains that fold alone)\n",
               "train graphs/social/karate.gml --label-attr club --folds @/folds.json --epochs 1 --quiet");
    run_expect(0, "", "train graphs/social/karate.gml --label-attr club --folds @/folds.json --fold 1 --epochs 1 --quiet");
    run_expect(3,
        "attn-graph: graphs/models/esol.safetensors: a model file, not a graph (a model is given with --model)\n",
        "classify graphs/models/esol.safetensors");
    run_expect(2, "attn-graph: explain: --layer -2: graphs/models/tox21.safetensors has layers 0 to 3\n",
               "explain --model graphs/models/tox21.safetensors graphs/molecules/aspirin.gml -o @/l.gml --layer -2");
    run_expect(2, "attn-graph: explain: --layer 4: graphs/models/tox21.safetensors has layers 0 to 3\n",
               "explain --model graphs/models/tox21.safetensors graphs/molecules/aspirin.gml -o @/l.gml --layer 4");
    run_expect(0, "", "explain --model graphs/models/tox21.safetensors - -o @/s.gml --svg @/s.svg "
                      "< graphs/molecules/aspirin.gml");
    char path[512];
    snprintf(path, sizeof path, "%s/s.svg", dir);
    size_t len;
    char *svg = (char *)ag_test_read_file(path, &len);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "font-weight=\"bold\">&lt;stdin&gt;<"));
    free(svg);
}

/* An edge list of names (an NCOL file named .edgelist): igraph's parse error named no line and no
 * way out; the line and the format that reads names are said, and an NCOL read of it works. */
static void test_edge_list_of_names(void **state) {
    (void)state;
    write_text("strs.edgelist", "a b\nb c\n");
    run_expect(3,
               "attn-graph: @/strs.edgelist:1: Unexpected character 'a' while parsing integer. (Parse error); vertex "
               "names instead of numbers? an edge list numbers its vertices from 0; for names use --format ncol (or a "
               ".ncol extension)\n",
               "info @/strs.edgelist");
    ag_cli_run_t r = run_expect(0, "", "info @/strs.edgelist --format ncol");
    assert_non_null(strstr(r.out, "nodes: 3\n"));
}

/* A vertex attribute that is boolean in a GraphML file (attr.type="boolean") and 0/1 in a GML file
 * (GML has no booleans): train takes it as one numeric column, as classify reads booleans as 0/1;
 * it refused the pair ("is numeric in b.gml but boolean in a.graphml"). */
static void test_boolean_and_numeric_files(void **state) {
    (void)state;
    const char *graphml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                          "<key id=\"a\" for=\"node\" attr.name=\"aromatic\" attr.type=\"boolean\"/>\n"
                          "<graph id=\"G\" edgedefault=\"undirected\">\n"
                          "<node id=\"n0\"><data key=\"a\">true</data></node>\n"
                          "<node id=\"n1\"><data key=\"a\">false</data></node>\n"
                          "<edge source=\"n0\" target=\"n1\"/>\n</graph>\n</graphml>\n";
    const char *gml = "graph [\n directed 0\n node [ id 0 aromatic 1 ]\n node [ id 1 aromatic 0 ]\n"
                      " node [ id 2 aromatic 1 ]\n edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n";
    write_text("a.graphml", graphml);
    write_text("c.graphml", graphml);
    write_text("b.gml", gml);
    write_text("d.gml", gml);
    write_text("bool.csv", "file,y\na.graphml,x\nb.gml,y\nc.graphml,y\nd.gml,x\n");
    run_expect(0, "", "train --labels @/bool.csv --split-random 0.5,0.25 --epochs 1 --hidden 8 --layers 1 --heads 1 "
                      "--threads 1 --quiet -o @/bool.safetensors");
    ag_cli_run_t r = run_expect(0, "", "info @/bool.safetensors");
    assert_non_null(strstr(r.out, "  vertex  aromatic  numeric "));
    r = run_expect(0, "", "classify --model @/bool.safetensors @/a.graphml @/b.gml");
    assert_int_equal(ag_cli_count_lines(r.out), 2);
}

/* info describes a valid GML of no vertices (it exited 3 with "the graph has no vertices"); the
 * commands that need vertices still refuse it. */
static void test_info_empty_graph(void **state) {
    (void)state;
    write_text("none.gml", "graph [ directed 0 ]\n");
    ag_cli_run_t r = run_expect(0, "", "info @/none.gml");
    assert_non_null(strstr(r.out, "\nnodes: 0\nedges: 0\n"));
    r = run_expect(0, "", "info --json @/none.gml");
    assert_non_null(strstr(r.out, "\"nodes\": 0, \"edges\": 0,"));
    run_expect(3, "attn-graph: @/none.gml: the graph has no vertices\n",
               "classify --model graphs/models/tox21.safetensors @/none.gml");
}

/* An edge list whose last vertices have no edge, with a node table of every vertex: the table's
 * error names --vertices, which reads the graph with them, for every command that reads it. */
static void test_edge_list_vertex_count(void **state) {
    (void)state;
    write_text("vtx.edges", "0 1\n1 2\n2 0\n2 3\n3 0\n");
    write_text("vtx.csv", "id,x,y\n0,1,a\n1,2,b\n2,3,a\n3,4,b\n4,5,a\n5,6,b\n");
    run_expect(3, "attn-graph: @/vtx.csv:6: id '4' is not a vertex index (the graph has 4 vertices): a vertex with no "
                  "edge in an edge list does not exist in the graph (its vertices are 0 to the largest id an edge "
                  "names, unless --vertices N gives their count: 0 to N-1)\n",
               "train @/vtx.edges --node-table @/vtx.csv --label-attr y --epochs 1 --threads 1 -q -o @/vtx.safetensors");
    run_expect(0, "", "train @/vtx.edges --vertices 6 --node-table @/vtx.csv --label-attr y --epochs 1 --threads 1 "
                      "--split-random 0.5,0.5 -q -o @/vtx.safetensors");
    ag_cli_run_t r = run_expect(0, "", "eval --model @/vtx.safetensors @/vtx.edges --vertices 6 --node-table @/vtx.csv "
                                       "--label-attr y --part all");
    assert_non_null(strstr(r.out, "(n 6)"));
    r = run_expect(0, "", "label --model @/vtx.safetensors @/vtx.edges --vertices 6 --node-table @/vtx.csv --json");
    assert_non_null(strstr(r.out, "\"vertex\": 5"));
    run_expect(0, "", "explain --model @/vtx.safetensors @/vtx.edges --vertices 6 --node-table @/vtx.csv "
                      "-o @/vtx.graphml");
    r = run_expect(0, "", "info --vertices 6 @/vtx.edges");
    assert_non_null(strstr(r.out, "\nnodes: 6\n"));
    run_expect(2, "attn-graph: @/vtx.edges:4: vertex id 3 needs at least 4 vertices, more than the 3 given "
                  "(--vertices): the count is the largest id + 1 or more\n", "info --vertices 3 @/vtx.edges");
    run_expect(2, "attn-graph: train: --vertices is for a node task's one GRAPH (an edge list) (see 'attn-graph train --help')\n",
               "train --labels graphs/molecules/labels.csv --vertices 6 --epochs 1 -q");
}

/* classify reads every FILE with --vertices: a graph model on the structure alone (degrees) sees
 * the isolated vertices the count adds, so its prediction for the same edge list changes, and a
 * count below an edge list's largest id + 1 is refused naming the file and line. */
static void test_classify_vertex_count(void **state) {
    (void)state;
    char table[256] = "file,y\n", name[32];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "cv%d.edges", i);
        /* triangles with a tail (class 1) and paths (class 0) */
        write_text(name, i % 2 ? "0 1\n1 2\n2 0\n2 3\n" : "0 1\n1 2\n2 3\n");
        snprintf(table + strlen(table), sizeof table - strlen(table), "%s,%d\n", name, i % 2);
    }
    write_text("cv.csv", table);
    run_expect(0, "", "train --labels @/cv.csv --format edgelist --epochs 2 --threads 1 --split-random 0.5,0.25,0.25 "
                      "-q -o @/cv.safetensors");
    ag_cli_run_t r = run_expect(0, "", "classify --model @/cv.safetensors --format edgelist @/cv1.edges");
    char *alone = strdup(r.out);
    assert_non_null(alone);
    r = run_expect(0, "", "classify --model @/cv.safetensors --format edgelist --vertices 7 @/cv1.edges");
    if (strcmp(alone, r.out) == 0) fail_msg("the same prediction with three isolated vertices: %s", alone);
    free(alone);
    r = run_expect(0, "", "classify --model @/cv.safetensors --format edgelist --vertices 7 --json @/cv1.edges");
    assert_non_null(strstr(r.out, "\"file\": "));
    run_expect(2, "attn-graph: @/cv1.edges:4: vertex id 3 needs at least 4 vertices, more than the 3 given "
                  "(--vertices): the count is the largest id + 1 or more\n",
               "classify --model @/cv.safetensors --format edgelist --vertices 3 @/cv1.edges");
}

/* A validation part scored perfectly at epoch 1 (accuracy 1 on ten graphs that x decides) keeps
 * epoch 1: the warning says why, instead of suggesting another learning rate. */
static void test_perfect_validation_hint(void **state) {
    (void)state;
    char table[1024] = "file,y\n", name[32], text[256];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "sat%d.gml", i);
        snprintf(text, sizeof text, "graph [\n directed 0\n node [ id 0 x %d ]\n node [ id 1 x %d ]\n"
                 " edge [ source 0 target 1 ]\n]\n", i % 2 * 10 - 5, i % 2 * 10 - 5);
        write_text(name, text);
        snprintf(table + strlen(table), sizeof table - strlen(table), "%s,%d\n", name, i % 2);
    }
    write_text("sat.csv", table);
    run_expect(0,
        "attn-graph: warning: epoch 1's model is kept: none of the 3 epochs after it improved the validation accuracy "
        "(its score was already perfect, which no later epoch can beat: choose the epoch by the loss, --metric loss, "
        "or give a larger validation part)\n",
        "train --labels @/sat.csv --task graph-classification --epochs 4 --threads 1 --split-random 0.5,0.5 "
        "--metric accuracy -q");
}

/* Every distinct warning igraph gave reading a file is said, a line each, as train and eval say a
 * dataset's: classify, info, label, explain and a node task's train said the first alone, so a GML
 * file holding a vertex list and an edge list lost two attributes and named one. Past the 8 a read
 * keeps, one line counts the rest. --json carries each line. */
static void test_every_read_warning(void **state) {
    (void)state;
    static const char lists[] = "s/node \\[/node [ xs [ a 1 ]/; s/edge \\[/edge [ g [ a 1 ]/";
    char cmd[2048], want[4096], text[1024], more[512] = "";
    snprintf(cmd, sizeof cmd, "sed '%s' '%s/graphs/molecules/aspirin.gml' > '%s/lists.gml' && "
             "sed '%s' '%s/graphs/social/karate.gml' > '%s/klists.gml'", lists, AG_SOURCE_DIR, dir, lists,
             AG_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    static const char two[] = "attn-graph: warning: @/%s: Composite vertex attribute 'xs' ignored in GML file.\n"
                              "attn-graph: warning: @/%s: Composite edge attribute 'g' ignored in GML file.\n";
    snprintf(want, sizeof want, two, "lists.gml", "lists.gml");
    run_expect(0, want, "classify @/lists.gml");
    run_expect(0, want, "info @/lists.gml");
    run_expect(0, want, "explain --model graphs/models/tox21.safetensors @/lists.gml -o @/lists-attention.graphml");
    ag_cli_run_t r = run_expect(0, want, "info --json @/lists.gml");
    snprintf(text, sizeof text, "\"warnings\": [\"%s/lists.gml: Composite vertex attribute 'xs' ignored in GML "
             "file.\", \"%s/lists.gml: Composite edge attribute 'g' ignored in GML file.\"]}\n", dir, dir);
    assert_non_null(strstr(r.out, text));
    r = run_expect(0, want, "classify --json @/lists.gml");
    assert_non_null(strstr(r.out, text));
    snprintf(want, sizeof want, two, "klists.gml", "klists.gml");
    run_expect(0, want, "label @/klists.gml -o @/klists.csv");
    run_expect(0, want, "train @/klists.gml --label-attr club --epochs 1 --threads 1 --quiet");
    /* ten vertex lists and an edge list: eight lines, and one for the other three */
    for (int k = 0; k < 10; k++) snprintf(more + strlen(more), sizeof more - strlen(more), " l%d [ a 1 ]", k);
    snprintf(text, sizeof text, "graph [\n node [ id 0%s ]\n node [ id 1 ]\n edge [ source 0 target 1 g [ a 1 ] ]\n]\n",
             more);
    write_text("many.gml", text);
    want[0] = '\0';
    for (int k = 0; k < 8; k++)
        snprintf(want + strlen(want), sizeof want - strlen(want),
                 "attn-graph: warning: @/many.gml: Composite vertex attribute 'l%d' ignored in GML file.\n", k);
    snprintf(want + strlen(want), sizeof want - strlen(want),
             "attn-graph: warning: @/many.gml: igraph warned of 3 other things than the 8 above\n");
    r = run_expect(0, want, "info --json @/many.gml");
    snprintf(text, sizeof text, "file.\", \"%s/many.gml: igraph warned of 3 other things than the 8 above\"]}\n", dir);
    assert_non_null(strstr(r.out, text));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_misfits),
        cmocka_unit_test(test_label_explain_eval_misfits),
        cmocka_unit_test(test_table_width),
        cmocka_unit_test(test_sparse_table_width),
        cmocka_unit_test(test_table_ids_by_index),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_regression_target),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_option_refused),
        cmocka_unit_test(test_metric_misfits),
        cmocka_unit_test(test_flag_names),
        cmocka_unit_test(test_missing_number_names_vertex),
        cmocka_unit_test(test_directory_as_file),
        cmocka_unit_test(test_gml_keys_and_replaced),
        cmocka_unit_test(test_model_twice),
        cmocka_unit_test(test_labels_nowhere),
        cmocka_unit_test(test_labels_missing_word),
        cmocka_unit_test(test_eval_seed), cmocka_unit_test(test_stratify),
        cmocka_unit_test(test_stdin_named),
        cmocka_unit_test(test_control_characters_escaped),
        cmocka_unit_test(test_legend_names_apart),
        cmocka_unit_test(test_graph_value_far_off),
        cmocka_unit_test(test_eval_unseen),
        cmocka_unit_test(test_eval_value_far_off),
        cmocka_unit_test(test_eval_class_of_measurement),
        cmocka_unit_test(test_table_sparse_width_limit), cmocka_unit_test(test_table_column_mirror),
        cmocka_unit_test(test_missing_values_warned),
        cmocka_unit_test(test_eval_missing_warned),
        cmocka_unit_test(test_user_slips),
        cmocka_unit_test(test_perfect_validation_hint),
        cmocka_unit_test(test_every_read_warning),
        cmocka_unit_test(test_edge_list_of_names),
        cmocka_unit_test(test_boolean_and_numeric_files),
        cmocka_unit_test(test_info_empty_graph),
        cmocka_unit_test(test_edge_list_vertex_count),
        cmocka_unit_test(test_classify_vertex_count),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
