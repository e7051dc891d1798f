/* Tests of `attn-graph info`, run as a program: output lines, JSON, errors and exit codes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "modelfile_testutil.h"
#include <attngraph/safetensors.h>
#include <attngraph/train.h>
#include "cli_testutil.h"

static void test_text_output(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info graphs/molecules/aspirin.gml graphs/social/karate.gml");
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    const char *aspirin = strstr(r.out, "file: graphs/molecules/aspirin.gml\n");
    const char *karate = strstr(r.out, "file: graphs/social/karate.gml\n");
    assert_non_null(aspirin);
    assert_non_null(karate);
    assert_true(aspirin < karate);
    /* the lines of each file, in order */
    const char *n13 = strstr(aspirin, "\nnodes: 13\nedges: 13\n");
    assert_non_null(n13);
    assert_true(n13 < karate);
    assert_non_null(strstr(karate, "\nnodes: 34\nedges: 78\n"));
    assert_non_null(strstr(aspirin, "format: gml\ndirected: no\n"));
    assert_non_null(strstr(aspirin, "self-loops: 0\nmulti-edges: 0\ncomponents: 1\ndegree: min 1, mean 2, max 3\n"));
    /* attribute rows: kind, name, type, missing, feature width, example */
    assert_non_null(strstr(aspirin, "  vertex  element        string         0              3  \"C\" (2 distinct)\n"));
    assert_non_null(strstr(aspirin, "  edge    bond_type      string         0              4  \"SINGLE\" (3 distinct)\n"));
    assert_non_null(strstr(aspirin, "  graph   smiles         string         0              -  \"CC(=O)Oc1ccccc1C(=O)O\"\n"));
    assert_non_null(strstr(karate, "degree: min 1, mean 4.588, max 17\n"));
}

static void test_json_output(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --json graphs/molecules/aspirin.gml graphs/social/karate.gml graphs/formats/sample.dimacs");
    assert_int_equal(r.code, 0);
    ag_test_assert_json_lines(r.out, 3);
    const char *karate = strstr(r.out, "{\"file\": \"graphs/social/karate.gml\"");
    assert_non_null(karate);
    assert_non_null(strstr(r.out, "\"nodes\": 13, \"edges\": 13,"));
    assert_non_null(strstr(karate, "\"nodes\": 34, \"edges\": 78,"));
    assert_true(strstr(r.out, "\"nodes\": 13") < karate);
    assert_non_null(strstr(r.out, "{\"kind\": \"vertex\", \"name\": \"element\", \"type\": \"string\", \"example\": \"C\", "
                                  "\"missing\": 0, \"distinct\": 2, \"feature_width\": 3}"));
    assert_non_null(strstr(r.out, "{\"kind\": \"edge\", \"name\": \"capacity\", \"type\": \"numeric\", \"example\": 1, "
                                  "\"missing\": 0, \"feature_width\": 1}"));
    /* a string with quotes and a backslash is escaped */
    char path[] = "/tmp/ag_cli_info_XXXXXX.gml";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    /* GML writes a quote as &quot;; the tab, form feed and 0x01 are raw control characters JSON
     * must escape (the first two have short escapes); DEL and U+0085 (a C1 control) are escaped
     * too, so that none reaches a terminal */
    fputs("graph [\n directed 1\n note \"say &quot;hi&quot; C:\\ tab\there\f\001\177\302\205\"\n node [ id 0 ]\n"
          " node [ id 1 ]\n"
          " edge [ source 0 target 1 ]\n edge [ source 1 target 1 ]\n]\n", f);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args, "info --json %s", path);
    ag_cli_run(&r, NULL, args);
    unlink(path);
    assert_int_equal(r.code, 0);
    assert_true(ag_test_json_line_ok(r.out, strlen(r.out) - 1));
    assert_non_null(strstr(r.out, "\"directed\": true, \"nodes\": 2, \"edges\": 2, \"self_loops\": 1"));
    assert_non_null(strstr(r.out, "\"in_degree\": {\"min\": 0, \"max\": 2}"));
    assert_non_null(strstr(r.out, "\"example\": \"say \\\"hi\\\" C:\\\\ tab\\there\\f\\u0001\\u007f\\u0085\""));
}

static void test_bad_file(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info tests/data/broken/truncated.gml");
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_string_equal(r.err, "attn-graph: tests/data/broken/truncated.gml: Parse error in GML file, line 10 "
                               "(syntax error, unexpected end of file, expecting string or number or [) (Parse error)\n");
    assert_string_equal(r.out, "");

    /* all files are processed; the failure decides the exit code */
    ag_cli_run(&r, NULL, "info graphs/social/karate.gml no-such-file.gml graphs/molecules/aspirin.gml");
    assert_int_equal(r.code, 3);
    assert_string_equal(r.err, "attn-graph: no-such-file.gml: No such file or directory\n");
    assert_non_null(strstr(r.out, "nodes: 34\n"));
    assert_non_null(strstr(r.out, "nodes: 13\n"));

    ag_cli_run(&r, NULL, "info graphs/social/karate-labels.csv");
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "attn-graph: graphs/social/karate-labels.csv: unknown file extension"));
    assert_int_equal(ag_cli_count_lines(r.err), 1);
}

/* --json gives a failed file an object too, its stderr line as the error, in argument order, so a
 * script reading the objects sees which files failed; the exit code is still the first failure's
 * (3 here, before the damaged model's 4). */
static void test_bad_file_json(void **state) {
    (void)state;
    char dir[256], args[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "cli_info_bad_json", 0), 0);
    ag_test_write_text(dir, "cut.safetensors", "{}");
    ag_cli_run_t r;
    snprintf(args, sizeof args, "info --json graphs/social/karate.gml no-such-file.gml tests/data/broken/truncated.gml "
             "%s/cut.safetensors graphs/molecules/aspirin.gml", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    ag_test_assert_json_lines(r.out, 5);
    const char *karate = strstr(r.out, "{\"file\": \"graphs/social/karate.gml\", \"format\": \"gml\"");
    const char *missing = strstr(r.out, "\n{\"file\": \"no-such-file.gml\", \"kind\": \"error\", \"error\": "
                                        "\"no-such-file.gml: No such file or directory\"}\n");
    const char *truncated = strstr(r.out, "\n{\"file\": \"tests/data/broken/truncated.gml\", \"kind\": \"error\", "
                                          "\"error\": \"tests/data/broken/truncated.gml: Parse error in GML file, line 10 "
                                          "(syntax error, unexpected end of file, expecting string or number or [) "
                                          "(Parse error)\"}\n");
    char cut[1024];
    snprintf(cut, sizeof cut, "\n{\"file\": \"%s/cut.safetensors\", \"kind\": \"error\", \"error\": \"%s/cut.safetensors: "
             "file too short (2 bytes; a safetensors file starts with an 8-byte header length)\"}\n", dir, dir);
    const char *model = strstr(r.out, cut);
    const char *aspirin = strstr(r.out, "\n{\"file\": \"graphs/molecules/aspirin.gml\", \"format\": \"gml\"");
    assert_true(karate == r.out);
    assert_non_null(missing);
    assert_true(missing < truncated && truncated < model && model < aspirin);
    /* stderr is as without --json: one line per failed file */
    assert_int_equal(ag_cli_count_lines(r.err), 3);
    assert_non_null(strstr(r.err, "attn-graph: no-such-file.gml: No such file or directory\n"));
    /* a damaged model first: its exit code, 4 */
    snprintf(args, sizeof args, "info --json %s/cut.safetensors no-such-file.gml", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    ag_test_assert_json_lines(r.out, 2);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* igraph's warning on reading a file is printed; with --json it is also in that file's object, as
 * its stderr line without "attn-graph: warning: " (the attribute list lacks the attribute igraph
 * dropped, which the object alone would not tell), and a file without one has no "warnings". */
static void test_warning_is_printed(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info tests/data/composite.gml");
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attn-graph: warning: tests/data/composite.gml: Composite vertex attribute 'xs' "
                               "ignored in GML file.\n");
    assert_non_null(strstr(r.out, "nodes: 2\nedges: 1\n"));
    ag_cli_run(&r, NULL, "info --json graphs/molecules/aspirin.gml tests/data/composite.gml no-such-file.gml "
                         "graphs/social/karate.gml");
    assert_int_equal(r.code, 3);
    ag_test_assert_json_lines(r.out, 4);
    assert_string_equal(r.err, "attn-graph: warning: tests/data/composite.gml: Composite vertex attribute 'xs' "
                               "ignored in GML file.\nattn-graph: no-such-file.gml: No such file or directory\n");
    const char *composite = strstr(r.out, "\n{\"file\": \"tests/data/composite.gml\"");
    const char *missing = strstr(r.out, "\n{\"file\": \"no-such-file.gml\", \"kind\": \"error\", \"error\": "
                                        "\"no-such-file.gml: No such file or directory\"}\n");
    assert_non_null(composite);
    assert_non_null(missing);
    /* the one warning ends the composite file's line, and no other line has any */
    const char *want = ", \"warnings\": [\"tests/data/composite.gml: Composite vertex attribute 'xs' ignored in GML "
                       "file.\"]}";
    assert_memory_equal(missing - strlen(want), want, strlen(want));
    const char *first = strstr(r.out, "\"warnings\"");
    assert_ptr_equal(first, missing - strlen(want) + 2);
    assert_null(strstr(first + 1, "\"warnings\""));
}

static void test_usage(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --bogus graphs/social/karate.gml");
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attn-graph: info: unknown option '--bogus' (see 'attn-graph info --help')\n");
    ag_cli_run(&r, NULL, "info");
    assert_int_equal(r.code, 2);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    ag_cli_run(&r, NULL, "info --format csv graphs/social/karate.gml");
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "unknown graph format 'csv'"));
    ag_cli_run(&r, NULL, "info --format");
    assert_int_equal(r.code, 2);
    ag_cli_run(&r, NULL, "info --help");
    assert_int_equal(r.code, 0);
    assert_true(!strncmp(r.out, "usage: attn-graph info ", 23));
    assert_string_equal(r.err, "");
    /* options may follow the files; after "--" everything is a file */
    ag_cli_run_t before;
    ag_cli_run(&before, NULL, "info --json graphs/social/karate.gml graphs/models/karate.safetensors");
    ag_cli_run(&r, NULL, "info graphs/social/karate.gml --json graphs/models/karate.safetensors");
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, before.out);
    ag_cli_run(&r, NULL, "info graphs/social/karate.gml -- --json");
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "attn-graph: --json: "));
    assert_non_null(strstr(r.out, "graphs/social/karate.gml")); /* the good file is still described */
}

static void test_stdin_and_format(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --format edgelist --directed - < graphs/formats/sample.edgelist");
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "format: edgelist\ndirected: yes\nnodes: 5\nedges: 6\n"));
    assert_non_null(strstr(r.out, "in-degree: min 0, max 2\nout-degree: min 0, max 2\n"));
    ag_cli_run(&r, NULL, "info - < graphs/formats/sample.edgelist");
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "pass --format"));
    /* formats recognised from the text: info names the one read */
    ag_cli_run(&r, NULL, "info - < graphs/formats/sample.net");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "file: -\nformat: pajek\ndirected: no\nnodes: 5\nedges: 6\n"));
    ag_cli_run(&r, NULL, "info --json - < graphs/formats/sample.graphml");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\"format\": \"graphml\""));
    ag_cli_run(&r, NULL, "info --format=pajek graphs/formats/sample.net");
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "format: pajek\n"));
}

/* A model file: what it predicts, every attribute it needs with the values it knows, its parts. */
static void test_model_text(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info graphs/models/mutag.safetensors graphs/molecules/aspirin.gml graphs/models/esol.safetensors");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    const char *mutag = strstr(r.out, "file: graphs/models/mutag.safetensors\n");
    const char *aspirin = strstr(r.out, "\nfile: graphs/molecules/aspirin.gml\n");
    const char *esol = strstr(r.out, "\nfile: graphs/models/esol.safetensors\n");
    assert_true(mutag == r.out && aspirin > mutag && esol > aspirin);
    assert_non_null(strstr(mutag, "file: graphs/models/mutag.safetensors\nmodel: graph-classification, written by "
                                  "attn-graph 0.1.0 (bundle version 1)\noutputs: 2 classes: 0 1 (target 'label')\n"
                                  "members: 1\nparameters: 105534\n"));
    assert_non_null(strstr(mutag, "\n  vertex  element    string         8  one-hot: Br C Cl F I N O, and one column "
                                  "for any other value\n  edge    bond_type  string         5  one-hot: AROMATIC "
                                  "DOUBLE SINGLE TRIPLE, and one column for any other value\nstructure: degree, 8 "
                                  "random-walk columns\nnode features: 17 columns; edge features: 5\n"));
    assert_non_null(strstr(mutag, "\n  block 3: attention over neighbours and itself, dot scores, softmax, 4 heads of "
                                  "16 concatenated, W^O to 64, edge features as score biases; feed-forward 128 "
                                  "(gelu); pre-norm, residual, dropout 0.1\n  readout: vnode (the graph token's last "
                                  "state)\n  head: 64 -> 64 (relu, dropout 0.1) -> 2\n"));
    assert_true(strstr(mutag, "block 4") > esol); /* mutag's model has 3 blocks */
    /* the ensemble, its target scaling, and the standardised attributes' statistics */
    assert_non_null(strstr(esol, "\noutputs: 1 target: logS\ntarget scaling: logS mean -3.03511, std 2.09073 "
                                 "(predictions are in the targets' units)\nmembers: 5 (an ensemble: it predicts the "
                                 "mean of their outputs)\nparameters: 127617 per member\n"));
    assert_non_null(strstr(esol, "\n  vertex  aromatic       numeric        1  standardised (mean 0.3936, std 0.4885)\n"));
    assert_non_null(strstr(esol, "\n  block 4: attention over neighbours and itself, gatv2 scores,"));

    /* a node model without input projection or head (the GAT preset) */
    ag_cli_run(&r, NULL, "info graphs/models/karate.safetensors");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\noutputs: 2 classes: 0 1 (vertex attribute 'club')\n"));
    assert_non_null(strstr(r.out, "  vertex  name  string        35  one-hot: 1 10 11 12 13 14 15 16 17 18 19 2 ... "
                                  "(34 values), and one column for any other value\n"));
    /* the GAT preset has no edge term: karate's weights are not features */
    assert_non_null(strstr(r.out, "\nnode features: 35 columns; edge features: 0\n"));
    assert_non_null(strstr(r.out, "\nstructure: none\n"));
    assert_non_null(strstr(r.out, "\n  input: the 35 feature columns, dropout 0\n"));
    assert_non_null(strstr(r.out, "\n  block 2: attention over neighbours and itself, gat scores, softmax, 1 head of 2 "
                                  "averaged; no norm, no residual, dropout 0.6\n  head: none (the last block's 2 "
                                  "columns are the outputs)\n"));
    assert_null(strstr(r.out, "readout"));
    /* node regression with the GAT preset: one output column, said in the singular */
    char dir[256], args[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "info_gat_regression", 0), 0);
    ag_test_write_text(dir, "r.gml", "graph [\n directed 0\n node [ id 0 y 1.5 ]\n node [ id 1 y 2.5 ]\n"
                                     " node [ id 2 y 0.5 ]\n edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n");
    snprintf(args, sizeof args, "train %s/r.gml --label-attr y --preset gat --epochs 1 --threads 1 --quiet "
             "--train-nodes 0,1 -o %s/r.safetensors", dir, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(args, sizeof args, "info %s/r.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\n  head: none (the last block's 1 column is the output)\n"));
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* A graph-level model keeps the sizes of its training graphs: info says them, in words and in
 * --json; a model without them (every shipped one) has no such line. */
static void test_model_graph_sizes(void **state) {
    (void)state;
    char dir[256], args[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "cli_info_sizes", 0), 0);
    ag_test_train_sized_model(dir);
    ag_cli_run_t r;
    snprintf(args, sizeof args, "info %s/sizes.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\ntrained on: graphs of 3 to 8 vertices and 2 to 7 edges\n"));
    snprintf(args, sizeof args, "info --json %s/sizes.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    ag_test_assert_json_lines(r.out, 1);
    assert_non_null(strstr(r.out, ", \"graph_sizes\": {\"vertices\":[3,8],\"edges\":[2,7]}"));
    ag_cli_run(&r, NULL, "info graphs/models/mutag.safetensors");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_null(strstr(r.out, "trained on"));
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

static void test_model_json(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --json graphs/models/tox21.safetensors graphs/models/esol.safetensors");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    ag_test_assert_json_lines(r.out, 2);
    assert_true(!strncmp(r.out, "{\"file\": \"graphs/models/tox21.safetensors\", \"kind\": \"model\", \"task\": "
                                "\"graph-multitask\", \"attn_graph_version\": \"0.1.0\", \"bundle_version\": 1, "
                                "\"members\": 1, \"parameters\": 127116, \"labels\": {\"task\":\"graph-multitask\",", 187));
    const char *esol = strstr(r.out, "\n{\"file\": \"graphs/models/esol.safetensors\", \"kind\": \"model\", \"task\": "
                                     "\"graph-regression\", \"attn_graph_version\": \"0.1.0\", \"bundle_version\": 2, "
                                     "\"members\": 5, \"parameters\": 127617, ");
    assert_non_null(esol);
    assert_non_null(strstr(esol, "\"featurizer\": {\"format\":\"attngraph.featurizer\""));
    assert_non_null(strstr(esol, "\"config\": {\"task\": \"graph-regression\""));
    assert_non_null(strstr(esol, "\"target_mean\": ["));
}

/* A damaged model file is a bad model (4), a missing one bad input (3); the other files still print. */
static void test_model_errors(void **state) {
    (void)state;
    char dir[256], args[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "cli_info_model", 0), 0);
    size_t n;
    unsigned char *bytes = ag_test_read_file(AG_SOURCE_DIR "/graphs/models/mutag.safetensors", &n);
    char path[300];
    snprintf(path, sizeof path, "%s/cut.safetensors", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n - 100, f), n - 100);
    fclose(f);
    free(bytes);
    ag_cli_run_t r;
    snprintf(args, sizeof args, "info %s graphs/models/mutag.safetensors", path);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_true(!strncmp(r.err, "attn-graph: ", 12));
    assert_non_null(strstr(r.err, "cut.safetensors"));
    assert_true(!strncmp(r.out, "file: graphs/models/mutag.safetensors\n", 38));
    ag_cli_run(&r, NULL, "info no-such-model.safetensors");
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "no-such-model.safetensors"));
    assert_string_equal(r.out, "");
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* Values with spaces or quotes stay readable in the space-separated lists: quoted as JSON. */
static void test_model_values_quoted(void **state) {
    (void)state;
    char dir[256], path[300], args[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "cli_info_quoted", 0), 0);
    snprintf(path, sizeof path, "%s/g.gml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("graph [\n directed 0\n node [ id 0 city \"New York\" grp \"a b\" ]\n node [ id 1 city \"Paris\" grp \"c\" ]\n"
          " node [ id 2 city \"Say &quot;x&quot;\" grp \"a b\" ]\n node [ id 3 city \"Paris\" grp \"c\" ]\n"
          " edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n edge [ source 2 target 3 ]\n]\n", f);
    fclose(f);
    snprintf(args, sizeof args, "train %s --label-attr grp --train-nodes 0,1 --epochs 1 --hidden 8 --heads 2 "
             "--layers 1 --lap-pe 2 --quiet --threads 1 -o %s/m.safetensors", path, dir);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("training failed (exit %d): %s", r.code, r.err);
    snprintf(args, sizeof args, "info %s/m.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\noutputs: 2 classes: \"a b\" c (vertex attribute 'grp')\n"));
    assert_non_null(strstr(r.out, "\n  vertex  city  string         4  one-hot: \"New York\" Paris \"Say \\\"x\\\"\", and one "
                                  "column for any other value\n"));
    assert_non_null(strstr(r.out, "\nstructure: 2 Laplacian eigenvector columns (times sqrt(N))\n"));
    /* the same model with its featuriser marked version 1 (Laplacian columns of unit norm) */
    ag_safetensors_t st;
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    assert_int_equal(ag_safetensors_read(&st, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    const char *fz = ag_metadata_get(&st.metadata, "featurizer");
    assert_non_null(fz);
    char v1[4096];
    const char *at = strstr(fz, "\"version\":2,");
    assert_non_null(at);
    assert_true(strlen(fz) < sizeof v1);
    snprintf(v1, sizeof v1, "%.*s\"version\":1,%s", (int)(at - fz), fz, at + strlen("\"version\":2,"));
    ag_safetensors_destroy(&st);
    snprintf(args, sizeof args, "%s/v1.safetensors", dir);
    assert_int_equal(ag_test_metadata_rewrite(path, args, "featurizer", v1), AG_SUCCESS);
    snprintf(args, sizeof args, "info %s/v1.safetensors", dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\nstructure: 2 Laplacian eigenvector columns (unit norm: a featuriser of version 1)\n"));
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* Trains Karate (half the vertices for validation) with `options` [and `file` in dir, the last
 * option's value] and a checkpoint dir/ckpt, then runs info on the checkpoint into r. */
static void train_and_describe(ag_cli_run_t *r, const char *options, const char *file, const char *dir,
                               const char *ckpt) {
    char extra[320] = "";
    if (file) snprintf(extra, sizeof extra, " %s/%s", dir, file);
    ag_cli_run_ok(r, "train graphs/social/karate.gml --label-attr club --split-random 0.5,0.5 %s%s --checkpoint %s/%s "
           "--threads 1 --quiet", options, extra, dir, ckpt);
    ag_cli_run_ok(r, "info %s/%s", dir, ckpt);
}

/* A training checkpoint, under a name no extension rule knows: where the run stands, what
 * --resume would do with it, checked as --resume checks it. */
static void test_checkpoint(void **state) {
    (void)state;
    char dir[256], args[1024], want[1024];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "cli_info_ckpt", 0), 0);
    ag_cli_run_t r;
    /* 5 epochs, a checkpoint every 2: the last one is after epoch 4 */
    train_and_describe(&r, "--epochs 5 --checkpoint-every 2 -o", "m.safetensors", dir, "c.st");
    assert_non_null(strstr(r.out, "\ncheckpoint: a training run after epoch 4 of 5, written by attn-graph "));
    /* the stored command line, without the options that do not change the result */
    snprintf(want, sizeof want, "\ncommand: attn-graph train graphs/social/karate.gml --label-attr club --split-random "
             "0.5,0.5 --epochs 5 --checkpoint-every 2 -o %s/m.safetensors --checkpoint %s/c.st\n", dir, dir);
    assert_non_null(strstr(r.out, want));
    assert_non_null(strstr(r.out, "\nmodel: node-classification, "));
    assert_non_null(strstr(r.out, "\ntraining: 4 optimiser steps in "));
    assert_non_null(strstr(r.out, "; best epoch "));
    /* 17 validation vertices: early stopping watches the loss (ag_metric_for_validation) */
    assert_non_null(strstr(r.out, "(validation loss 0."));
    snprintf(want, sizeof want, "\ncontinue with: attn-graph train --resume %s/c.st\n", dir);
    assert_non_null(strstr(r.out, want));
    ag_cli_run_ok(&r, "info --json %s/c.st", dir);
    ag_test_assert_json_lines(r.out, 1);
    assert_non_null(strstr(r.out, "\"kind\": \"checkpoint\""));
    assert_non_null(strstr(r.out, "\"epoch\": 4, \"epochs\": 5, \"steps\": 4, "));
    assert_non_null(strstr(r.out, "\"metric\": \"loss\""));
    assert_non_null(strstr(r.out, "\"status\": \"resumable\""));
    assert_non_null(strstr(r.out, "\"arguments\": [\"graphs/social/karate.gml\", \"--label-attr\", \"club\", "));
    /* a checkpoint is not a model: said so, with where the model is (exit 4, a bad model file) */
    snprintf(args, sizeof args, "label --model %s/c.st graphs/social/karate.gml", dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    snprintf(want, sizeof want, "attn-graph: %s/c.st is a training checkpoint, not a model: the run's model is the file "
             "its -o names ('attn-graph info %s/c.st' shows the command); 'attn-graph train --resume %s/c.st' finishes "
             "a run that was stopped\n", dir, dir, dir);
    assert_string_equal(r.err, want);
    /* a run whose last epoch wrote a checkpoint has nothing left to resume */
    train_and_describe(&r, "--epochs 4 --checkpoint-every 2", NULL, dir, "done.ckpt");
    assert_non_null(strstr(r.out, "\ncheckpoint: a training run after epoch 4 of 4, "));
    assert_non_null(strstr(r.out, "\nstatus: the run finished (its model is the file given to -o)\n"));
    assert_null(strstr(r.out, "continue with"));
    /* nor one that early stopping ended (patience 2: its last checkpoint is 2 epochs after the best) */
    train_and_describe(&r, "--epochs 50 --patience 2 --metric accuracy", NULL, dir, "es.ckpt");
    assert_non_null(strstr(r.out, "), 2 epochs since\n"));
    assert_non_null(strstr(r.out, "\nstatus: early stopping ended the run (2 epochs without improvement)\n"));
    assert_null(strstr(r.out, "continue with"));

    /* a damaged configuration is named; a truncated file is refused in one line; the next file
     * still prints */
    char path[300], bad[320];
    snprintf(path, sizeof path, "%s/c.st", dir);
    snprintf(bad, sizeof bad, "%s/bad.st", dir);
    assert_int_equal(ag_test_metadata_rewrite(path, bad, "config", "{\"task\": 3}"), AG_SUCCESS);
    snprintf(args, sizeof args, "info %s", bad);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    snprintf(want, sizeof want, "attn-graph: %s: checkpoint configuration: ", bad);
    if (strncmp(r.err, want, strlen(want)) != 0) fail_msg("%s", r.err);
    size_t n;
    unsigned char *bytes = ag_test_read_file(path, &n);
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n - 7, f), n - 7);
    fclose(f);
    free(bytes);
    snprintf(args, sizeof args, "info %s %s", bad, path);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "bad.st"));
    assert_true(!strncmp(r.out, "file: ", 6));
    assert_non_null(strstr(r.out, "c.st\ncheckpoint: "));

    /* the library call refuses a model file, and leaves nothing allocated */
    ag_safetensors_t st;
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    assert_int_equal(ag_safetensors_read(&st, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    ag_model_t *model = (ag_model_t *)&st; /* overwritten: NULL on failure */
    ag_train_state_t ts;
    assert_int_equal(ag_train_state_open(&st, &model, &ts), AG_EMODEL);
    assert_null(model);
    assert_null(ts.best);
    assert_non_null(strstr(ag_error_message(), "m.safetensors: not a training checkpoint (metadata 'kind' is not \"checkpoint\"; a model "
                                                 "file? resume from the file given to --checkpoint)"));
    ag_safetensors_destroy(&st);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_output),
        cmocka_unit_test(test_json_output),
        cmocka_unit_test(test_bad_file_json),
        cmocka_unit_test(test_bad_file),
        cmocka_unit_test(test_warning_is_printed),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_stdin_and_format),
        cmocka_unit_test(test_model_text),
        cmocka_unit_test(test_model_json),
        cmocka_unit_test(test_model_graph_sizes),
        cmocka_unit_test(test_model_errors),
        cmocka_unit_test(test_model_values_quoted),
        cmocka_unit_test(test_checkpoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
