/* Tests of `attn-graph classify`, `label` and `explain`, run as programs on tiny models trained
 * first (MUTAG-mini classification, a 3-task molecule model, Karate GAT): output lines and their
 * order, probabilities, JSON keys, failing files, stdin, written graphs read back with igraph,
 * attention sums per destination on the written file, the SVG, bad options and bad models. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "cli_testutil.h"
#include "golden_testutil.h"
#include "json.h"
#include <igraph.h>

static char dir[64];
static char mutag[128], tox[128], karate[128];

static int count_of(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* DIR/name, its path into path (cap), opened for writing. */
static FILE *create_in_dir(char *path, size_t cap, const char *name) {
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    return f;
}

static void train(const char *args) {
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("training failed (exit %d): %s", r.code, r.err);
}

static int setup(void **state) {
    (void)state;
    if (ag_test_temp_dir(dir, sizeof dir, "cli_predict", 0) < 0) return -1;
    snprintf(mutag, sizeof mutag, "%s/mutag.safetensors", dir);
    snprintf(tox, sizeof tox, "%s/tox.safetensors", dir);
    snprintf(karate, sizeof karate, "%s/karate.safetensors", dir);
    /* a Tox21-like table of three tasks (missing labels included) over the shipped molecules */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/tox.csv", dir);
    FILE *f = fopen(csv, "w");
    if (!f) return -1;
    fprintf(f, "file,NR-AR,SR-MMP,SR-p53\n%s/graphs/molecules/aspirin.gml,0,1,\n"
               "%s/graphs/molecules/caffeine.gml,1,0,0\n%s/graphs/molecules/paracetamol.gml,0,,1\n",
            AG_SOURCE_DIR, AG_SOURCE_DIR, AG_SOURCE_DIR);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args,
             "train --labels tests/data/mutag-mini/labels.csv --preset transformer --epochs 3 --hidden 8 --layers 2 "
             "--heads 2 --batch-size 4 --threads 1 --quiet -o %s", mutag);
    train(args);
    snprintf(args, sizeof args,
             "train --labels %s --split-random 1,0,0 --preset transformer --epochs 3 --hidden 8 --layers 2 --heads 2 "
             "--threads 1 --quiet -o %s", csv, tox);
    train(args);
    snprintf(args, sizeof args,
             "train graphs/social/karate.gml --label-attr club --train-nodes 0,33 --preset gat --epochs 20 "
             "--threads 1 --quiet -o %s", karate);
    train(args);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return ag_test_remove_dir(dir);
}

/* The probabilities of one text line ("FILE\tPRED\tname=p\t..."): their count and sum, and the
 * smallest and largest. */
static int line_probs(const char *line, double *sum, double *lo, double *hi) {
    int n = 0;
    *sum = 0.0;
    *lo = 1e300;
    *hi = -1e300;
    const char *end = strchr(line, '\n');
    for (const char *p = strchr(line, '='); p && (!end || p < end); p = strchr(p + 1, '=')) {
        double x = strtod(p + 1, NULL);
        *sum += x;
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
        n++;
    }
    return n;
}

/* Several files: one line per file in argument order, two classes summing to 1. */
static void test_classify_lines(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024];
    const char *files[5] = {"0003", "0001", "0007", "0002", "0010"};
    snprintf(args, sizeof args, "classify --threads 1 --model %s", mutag);
    for (int i = 0; i < 5; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " tests/data/mutag-mini/molecules/%s.gml", files[i]);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    assert_int_equal(ag_cli_count_lines(r.out), 5);
    const char *line = r.out;
    for (int i = 0; i < 5; i++) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "tests/data/mutag-mini/molecules/%s.gml\t", files[i]);
        assert_memory_equal(line, prefix, strlen(prefix));
        const char *pred = line + strlen(prefix);
        assert_true(pred[0] == '0' || pred[0] == '1');
        assert_int_equal(pred[1], '\t');
        assert_memory_equal(pred + 2, "0=", 2);
        double sum, lo, hi;
        assert_int_equal(line_probs(line, &sum, &lo, &hi), 2);
        assert_float_equal(sum, 1.0, 2e-4);
        /* the predicted class is the more probable one */
        double p0 = strtod(pred + 4, NULL);
        assert_int_equal(pred[0] == '1', p0 < 0.5);
        line = strchr(line, '\n') + 1;
    }
    /* one file alone (its own batch) gives the very same line as within the batch */
    ag_cli_run_t one;
    snprintf(args, sizeof args, "classify --model %s tests/data/mutag-mini/molecules/0007.gml", mutag);
    ag_cli_run(&one, NULL, args);
    assert_int_equal(one.code, 0);
    const char *third = strstr(r.out, "tests/data/mutag-mini/molecules/0007.gml\t");
    assert_non_null(third);
    assert_memory_equal(third, one.out, strlen(one.out));
    /* a name with a tab, a quote and a backslash stays one field: quoted with C escapes; the rest of
     * the line is the unquoted file's */
    char odd[256];
    snprintf(odd, sizeof odd, "%s/a\tb\"c\\d.gml", dir);
    FILE *f = fopen(odd, "wb");
    assert_non_null(f);
    size_t n;
    char *gml = (char *)ag_test_read_file(AG_SOURCE_DIR "/tests/data/mutag-mini/molecules/0007.gml", &n);
    assert_int_equal(fwrite(gml, 1, n, f), n);
    free(gml);
    assert_int_equal(fclose(f), 0);
    ag_cli_run_t q;
    snprintf(args, sizeof args, "classify --model %s \"$(printf '%s/a\\tb\\042c\\134d.gml')\"", mutag, dir);
    ag_cli_run(&q, NULL, args);
    if (q.code != 0) fail_msg("exit %d: %s", q.code, q.err);
    char want[256];
    snprintf(want, sizeof want, "\"%s/a\\tb\\\"c\\\\d.gml\"\t", dir);
    assert_memory_equal(q.out, want, strlen(want));
    const char *rest = strchr(one.out, '\t');
    assert_string_equal(q.out + strlen(want) - 1, rest);
}

/* Multi-task: every probability in [0, 1], the predicted tasks are those >= 0.5; --json keys. */
static void test_classify_multitask_json(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024];
    snprintf(args, sizeof args, "classify --model %s graphs/molecules/aspirin.gml graphs/molecules/caffeine.gml", tox);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_int_equal(ag_cli_count_lines(r.out), 2);
    double sum, lo, hi;
    assert_int_equal(line_probs(r.out, &sum, &lo, &hi), 3);
    assert_true(lo >= 0.0 && hi <= 1.0);
    assert_non_null(strstr(r.out, "\tNR-AR="));
    assert_non_null(strstr(r.out, "\tSR-p53="));
    snprintf(args, sizeof args, "classify --json --model %s graphs/molecules/aspirin.gml graphs/molecules/caffeine.gml",
             tox);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    assert_int_equal(ag_cli_count_lines(r.out), 2);
    const char *second = strchr(r.out, '\n') + 1;
    assert_memory_equal(r.out, "{\"file\": \"graphs/molecules/aspirin.gml\", \"task\": \"graph-multitask\", \"prediction\": [",
                        strlen("{\"file\": \"graphs/molecules/aspirin.gml\", \"task\": \"graph-multitask\", \"prediction\": ["));
    assert_memory_equal(second, "{\"file\": \"graphs/molecules/caffeine.gml\"", 39);
    assert_non_null(strstr(r.out, "\"probabilities\": {\"NR-AR\": "));
    assert_non_null(strstr(r.out, "\"SR-MMP\": "));
    assert_int_equal(count_of(r.out, "}}\n"), 2);
    /* classification JSON: prediction is a class name */
    snprintf(args, sizeof args, "classify --json --model %s tests/data/mutag-mini/molecules/0001.gml", mutag);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\"task\": \"graph-classification\", \"prediction\": \""));
    assert_non_null(strstr(r.out, "\"probabilities\": {\"0\": "));
}

/* A file missing the attribute the model needs: one line naming it, exit 3, the others classified.
 * A missing file likewise. Standard input with --format. */
static void test_classify_failures_and_stdin(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024];
    snprintf(args, sizeof args,
             "classify --model %s tests/data/mutag-mini/molecules/0001.gml graphs/molecules/aspirin.gml "
             "tests/data/mutag-mini/molecules/0002.gml no/such/file.gml", mutag);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.out), 2);
    assert_memory_equal(r.out, "tests/data/mutag-mini/molecules/0001.gml\t", 41);
    assert_non_null(strstr(strchr(r.out, '\n'), "molecules/0002.gml\t"));
    assert_int_equal(ag_cli_count_lines(r.err), 2);
    assert_non_null(strstr(r.err, "attn-graph: graphs/molecules/aspirin.gml: attribute 'label' is missing (the model "
                                  "expects numeric vertex attribute 'label')\n"));
    assert_non_null(strstr(r.err, "no/such/file.gml"));
    /* stdin */
    snprintf(args, sizeof args, "classify --model %s --format gml - < tests/data/mutag-mini/molecules/0002.gml", mutag);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_memory_equal(r.out, "-\t", 2);
    ag_cli_run_t f;
    snprintf(args, sizeof args, "classify --model %s tests/data/mutag-mini/molecules/0002.gml", mutag);
    ag_cli_run(&f, NULL, args);
    assert_string_equal(strchr(r.out, '\t'), strchr(f.out, '\t'));
    /* '-' without --format: GML recognised from the text, the same prediction */
    snprintf(args, sizeof args, "classify --model %s - < tests/data/mutag-mini/molecules/0002.gml", mutag);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_memory_equal(r.out, "-\t", 2);
    assert_string_equal(strchr(r.out, '\t'), strchr(f.out, '\t'));
    /* an edge list cannot be recognised: bad input, one line saying what to do */
    snprintf(args, sizeof args, "classify --model %s - < graphs/formats/sample.edgelist", mutag);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "<stdin>: cannot tell the format from the first line"));
    assert_non_null(strstr(r.err, "pass --format"));
}

/* Reads a written graph back with igraph. */
static void read_back(igraph_t *g, const char *path, int graphml) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    igraph_error_t e = graphml ? igraph_read_graph_graphml(g, f, 0) : igraph_read_graph_gml(g, f);
    fclose(f);
    assert_int_equal(e, IGRAPH_SUCCESS);
}

/* Writes gml as dir/name (its path into path) and labels it with Karate's model into r. */
static void label_karate(ag_cli_run_t *r, const char *name, const char *gml, char *path, size_t cap) {
    ag_test_write_text(dir, name, gml);
    snprintf(path, cap, "%s/%s", dir, name);
    ag_cli_run_ok(r, "label --threads 1 --model %s %s", karate, path);
}

/* The warning of a graph none of whose names Karate's model knows, example as printed. */
static void no_name_known(char *want, size_t cap, const char *path, const char *example) {
    snprintf(want, cap,
             "attn-graph: warning: %s: no vertex has a value of 'name' the model saw in training (e.g. %s): "
             "all get its 'other' column (is this the kind of graph the model was trained on? 'attn-graph info "
             "MODEL' lists the values it knows)\n",
             path, example);
}

/* label: GML, GraphML and CSV, each with the prediction of every vertex; stdout CSV. */
/* String values a model never saw get its 'other' column, and a warning says so: none for the
 * shipped molecules and the default model; one line naming the attribute, the count and an example
 * for a molecule with an unknown element, and another wording when no vertex is known (Karate's
 * model, whose one feature is the member's name, given another graph). Predictions are made. */
static void test_unseen_warning(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[2048], path[256];
    snprintf(args, sizeof args, "classify --threads 1");
    const char *mols[] = {"3-nitrophenol", "amiloride", "aspirin", "benzidine", "caffeine", "epichlorohydrin",
                          "paracetamol", "piribedil"};
    for (int i = 0; i < 8; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " graphs/molecules/%s.gml", mols[i]);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_int_equal(ag_cli_count_lines(r.out), 8);
    assert_string_equal(r.err, "");
    /* caffeine with one carbon made oganesson */
    size_t n;
    char *text = (char *)ag_test_read_file(AG_SOURCE_DIR "/graphs/molecules/caffeine.gml", &n);
    const char *carbon = "element \"C\"";
    char *c = strstr(text, carbon);
    assert_non_null(c);
    *c = '\0';
    char *og = malloc(n + 2);
    assert_non_null(og);
    snprintf(og, n + 2, "%selement \"Og\"%s", text, c + strlen(carbon));
    free(text);
    ag_test_write_text(dir, "og.gml", og);
    free(og);
    snprintf(path, sizeof path, "%s/og.gml", dir);
    snprintf(args, sizeof args, "classify --threads 1 %s", path);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_int_equal(ag_cli_count_lines(r.out), 1);
    char want[512];
    snprintf(want, sizeof want,
             "attn-graph: warning: %s: 1 of 14 vertices has a value of 'element' the model never saw in training "
             "(e.g. 'Og'): it gets its 'other' column\n",
             path);
    assert_string_equal(r.err, want);
    /* another graph for Karate's model: no member name known */
    label_karate(&r, "named.gml",
                 "graph [\n directed 0\n node [ id 0 name \"Myriel\" ]\n node [ id 1 name \"Napoleon\" ]\n"
                 " node [ id 2 name \"Cravatte\" ]\n edge [ source 0 target 1 weight 1 ]\n"
                 " edge [ source 0 target 2 weight 2 ]\n]\n", path, sizeof path);
    assert_int_equal(ag_cli_count_lines(r.out), 4); /* header and 3 vertices */
    no_name_known(want, sizeof want, path, "'Myriel'");
    assert_string_equal(r.err, want);
    snprintf(args, sizeof args, "explain --threads 1 --model %s %s -o %s/named-attn.gml", karate, path, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, want);
    /* the example is the graph's bytes: control characters (C0, DEL, C1 U+0085) are escaped as in
     * JSON, never written raw to the terminal; a value with a space is quoted the same way */
    label_karate(&r, "control.gml",
                 "graph [\n directed 0\n node [ id 0 name \"c\001t\033l\177\302\205\" ]\n"
                 " node [ id 1 name \"Mr Hi\" ]\n edge [ source 0 target 1 weight 1 ]\n]\n", path, sizeof path);
    no_name_known(want, sizeof want, path, "\"c\\u0001t\\u001bl\\u007f\\u0085\"");
    assert_string_equal(r.err, want);
    label_karate(&r, "space.gml",
                 "graph [\n directed 0\n node [ id 0 name \"Mr Hi\" ]\n node [ id 1 name \"x\" ]\n"
                 " edge [ source 0 target 1 weight 1 ]\n]\n", path, sizeof path);
    no_name_known(want, sizeof want, path, "\"Mr Hi\"");
    assert_string_equal(r.err, want);
}

/* text with the first occurrence of what (every one when all) replaced by with; malloc'ed. */
static char *edited(const char *text, const char *what, const char *with, int all) {
    const size_t nw = strlen(what), nr = strlen(with);
    size_t cap = strlen(text) + 1;
    for (const char *p = text; (p = strstr(p, what)); p += nw) cap += nr;
    char *out = malloc(cap), *o = out;
    assert_non_null(out);
    const char *p = text, *at;
    for (int done = 0; !done && (at = strstr(p, what)); p = at + nw, done = !all) {
        memcpy(o, p, (size_t)(at - p));
        o += at - p;
        memcpy(o, with, nr);
        o += nr;
    }
    strcpy(o, p);
    return out;
}

/* The source tree's file `from` with `what` replaced by `with` (every one when all), as DIR/name. */
static void write_edited(const char *name, const char *from, const char *what, const char *with, int all) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", AG_SOURCE_DIR, from);
    size_t n;
    char *text = (char *)ag_test_read_file(path, &n);
    char *out = edited(text, what, with, all);
    ag_test_write_text(dir, name, out);
    free(out);
    free(text);
}

/* Line k (from 0) of s, and its length without the newline. */
static const char *line_at(const char *s, int k, size_t *len) {
    for (int i = 0; i < k; i++) {
        s = strchr(s, '\n');
        assert_non_null(s);
        s++;
    }
    const char *nl = strchr(s, '\n');
    assert_non_null(nl);
    *len = (size_t)(nl - s);
    return s;
}

/* Line k of out ends with `end` (its newline aside). */
static void assert_line_ends(const char *out, int k, const char *end) {
    size_t len;
    const char *l = line_at(out, k, &len);
    if (len < strlen(end) || memcmp(l + len - strlen(end), end, strlen(end)))
        fail_msg("line %d: %.*s\ndoes not end with: %s", k, (int)len, l, end);
}

/* The warnings of the JSON lines of out, read back with the library's JSON reader, one after
 * another, must be stderr's warning lines of err without "attn-graph: warning: ", in order: the
 * escaping loses nothing, and no warning is left out or given twice. */
static void assert_warnings_read_back(const char *out, const char *err) {
    static const char prefix[] = "attn-graph: warning: ";
    const char *e = err;
    for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
        ag_json_t *v = NULL;
        assert_int_equal(ag_json_parse(l, (size_t)(strchr(l, '\n') - l), "stdout", &v), AG_SUCCESS);
        const ag_json_t *w = ag_json_get(v, "warnings");
        for (int64_t i = 0; w && i < w->count; i++) {
            while (*e && strncmp(e, prefix, strlen(prefix))) e = strchr(e, '\n') + 1; /* an error line */
            if (!*e) fail_msg("no stderr line for warning: %s", w->items[i].string);
            const size_t n = (size_t)(strchr(e, '\n') - e) - strlen(prefix);
            assert_int_equal(w->items[i].type, AG_JSON_STRING);
            if (strlen(w->items[i].string) != n || memcmp(w->items[i].string, e + strlen(prefix), n))
                fail_msg("warning read back: %s\nstderr: %.*s", w->items[i].string, (int)n, e + strlen(prefix));
            e = strchr(e, '\n') + 1;
        }
        if (w) assert_true(w->count > 0); /* an empty array is left out */
        ag_json_free(v);
    }
    for (; *e; e = strchr(e, '\n') + 1)
        if (!strncmp(e, prefix, strlen(prefix))) fail_msg("a warning in no JSON line: %s", e);
}

/* classify --json gives each file's object the warnings said about that file, as stderr has them
 * without "attn-graph: warning: " (QA: a program reading the objects could not tell a prediction
 * made on an element the model never saw): a molecule with such an element, one whose GML holds a
 * list igraph drops, a file that then fails for the attribute so lost (the warning says why), a
 * file name that JSON escapes; a clean molecule and a missing file have none. stderr is that of
 * the text mode. Across the edge of a batch (256 graphs) each file keeps its own. */
static void test_classify_json_warnings(void **state) {
    (void)state;
    static const char *const model = "graphs/models/mutag.safetensors";
    static const char *const mol1 = "tests/data/mutag-mini/molecules/0001.gml";
    static const char *const mol2 = "tests/data/mutag-mini/molecules/0002.gml";
    write_edited("og.gml", mol1, "element \"C\"", "element \"Og\"", 0);
    write_edited("q\"og.gml", mol1, "element \"C\"", "element \"Og\"", 0);
    write_edited("t\tog.gml", mol1, "element \"C\"", "element \"Og\"", 0);
    write_edited("list.gml", mol2, "node [ id 0 ", "node [ id 0 extra [ a 1 ] ", 0);
    /* every element a list: igraph drops them all, and the attribute is missing */
    size_t n;
    char *text = (char *)ag_test_read_file(AG_SOURCE_DIR "/tests/data/mutag-mini/molecules/0002.gml", &n);
    char *listed = edited(text, "element \"", "element [ x \"", 1);
    char *lost = edited(listed, "\" label ", "\" ] label ", 1);
    ag_test_write_text(dir, "lost.gml", lost);
    free(lost);
    free(listed);
    free(text);
    char args[16384];
    ag_cli_run_t r, t;
    snprintf(args, sizeof args,
             "classify --json --threads 1 --model %s %s %s/og.gml %s/list.gml no/such/file.gml %s/lost.gml "
             "'%s/q\"og.gml' '%s/t\tog.gml'",
             model, mol1, dir, dir, dir, dir, dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    ag_test_assert_json_lines(r.out, 7);
    assert_warnings_read_back(r.out, r.err);
    static const char unseen[] = "1 of 17 vertices has a value of 'element' the model never saw in training "
                                 "(e.g. 'Og'): it gets its 'other' column";
    static const char dropped[] = "Composite vertex attribute '%s' ignored in GML file.";
    char want[4096], extra[256], element[256];
    snprintf(extra, sizeof extra, dropped, "extra");
    snprintf(element, sizeof element, dropped, "element");
    snprintf(want, sizeof want,
             "attn-graph: warning: %s/og.gml: %s\n"
             "attn-graph: warning: %s/list.gml: %s\n"
             "attn-graph: no/such/file.gml: No such file or directory\n"
             "attn-graph: warning: %s/lost.gml: %s\n"
             "attn-graph: %s/lost.gml: attribute 'element' is missing (the model expects string vertex attribute "
             "'element')\n"
             "attn-graph: warning: %s/q\"og.gml: %s\n"
             "attn-graph: warning: \"%s/t\\tog.gml\": %s\n", /* a control character: as a JSON string */
             dir, unseen, dir, extra, dir, element, dir, dir, unseen, dir, unseen);
    assert_string_equal(r.err, want);
    size_t len;
    const char *l = line_at(r.out, 0, &len);
    assert_memory_equal(l, "{\"file\": \"tests/data/mutag-mini/molecules/0001.gml\", ", 52);
    assert_null(memmem(l, len, "warnings", 8));
    snprintf(want, sizeof want, ", \"warnings\": [\"%s/og.gml: %s\"]}", dir, unseen);
    assert_line_ends(r.out, 1, want);
    snprintf(want, sizeof want, ", \"warnings\": [\"%s/list.gml: %s\"]}", dir, extra);
    assert_line_ends(r.out, 2, want);
    l = line_at(r.out, 3, &len);
    assert_memory_equal(l, "{\"file\": \"no/such/file.gml\", \"error\": \"no/such/file.gml: No such file or "
                           "directory\"}", len);
    snprintf(want, sizeof want,
             "{\"file\": \"%s/lost.gml\", \"error\": \"%s/lost.gml: attribute 'element' is missing (the model expects "
             "string vertex attribute 'element')\", \"warnings\": [\"%s/lost.gml: %s\"]}",
             dir, dir, dir, element);
    l = line_at(r.out, 4, &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(l, want, len);
    snprintf(want, sizeof want, "{\"file\": \"%s/q\\\"og.gml\", ", dir);
    assert_memory_equal(line_at(r.out, 5, &len), want, strlen(want));
    snprintf(want, sizeof want, ", \"warnings\": [\"%s/q\\\"og.gml: %s\"]}", dir, unseen);
    assert_line_ends(r.out, 5, want);
    snprintf(want, sizeof want, ", \"warnings\": [\"\\\"%s/t\\\\tog.gml\\\": %s\"]}", dir, unseen);
    assert_line_ends(r.out, 6, want);
    /* the text mode says the same on stderr */
    char text_args[sizeof args];
    snprintf(text_args, sizeof text_args, "classify%s", args + strlen("classify --json"));
    ag_cli_run(&t, NULL, text_args);
    assert_int_equal(t.code, 3);
    assert_string_equal(t.err, r.err);
    /* 258 files (in DIR, so that their names fit a command line): the list's first, the element's
     * the last of the first batch and the first of the second */
    text = (char *)ag_test_read_file(AG_SOURCE_DIR "/tests/data/mutag-mini/molecules/0001.gml", &n);
    ag_test_write_text(dir, "m.gml", text);
    free(text);
    snprintf(args, sizeof args, "classify --json --threads 1 --model %s/%s", AG_SOURCE_DIR, model);
    for (int i = 0; i < 258; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " %s",
                 i == 0 ? "list.gml" : i == 255 || i == 256 ? "og.gml" : "m.gml");
    ag_cli_run(&r, dir, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    ag_test_assert_json_lines(r.out, 258);
    assert_warnings_read_back(r.out, r.err);
    for (int i = 0; i < 258; i++) {
        l = line_at(r.out, i, &len);
        if (i == 0) snprintf(want, sizeof want, ", \"warnings\": [\"list.gml: %s\"]}", extra);
        else if (i == 255 || i == 256) snprintf(want, sizeof want, ", \"warnings\": [\"og.gml: %s\"]}", unseen);
        if (i == 0 || i == 255 || i == 256) assert_line_ends(r.out, i, want);
        else if (memmem(l, len, "warnings", 8)) fail_msg("line %d has warnings: %.*s", i, (int)len, l);
    }
}

/* eval --json: the warnings said about the data scored end its object; none without them. */
static void test_eval_json_warnings(void **state) {
    (void)state;
    static const char *const model = "graphs/models/mutag.safetensors";
    write_edited("og.gml", "tests/data/mutag-mini/molecules/0001.gml", "element \"C\"", "element \"Og\"", 0);
    char table[4096], args[1024], want[1024];
    snprintf(table, sizeof table, "file,label\n%s/tests/data/mutag-mini/molecules/0002.gml,0\nog.gml,1\n",
             AG_SOURCE_DIR);
    ag_test_write_text(dir, "og.csv", table);
    snprintf(table, sizeof table, "file,label\n%s/tests/data/mutag-mini/molecules/0002.gml,0\n"
             "%s/tests/data/mutag-mini/molecules/0001.gml,1\n", AG_SOURCE_DIR, AG_SOURCE_DIR);
    ag_test_write_text(dir, "clean.csv", table);
    ag_cli_run_t r;
    snprintf(args, sizeof args, "eval --json --threads 1 --model %s --labels %s/og.csv --part all", model, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    ag_test_assert_json_lines(r.out, 1);
    static const char said[] = "eval: 1 of the 2 graphs scored has values the model never saw (e.g. 'Og' of vertex "
                               "attribute 'element' in og.gml): they get its 'other' column ('attn-graph info "
                               "MODEL' lists the values it knows)";
    char text[768];
    snprintf(text, sizeof text, "%s", said);
    snprintf(want, sizeof want, "attn-graph: warning: %s\n", text);
    assert_string_equal(r.err, want);
    snprintf(want, sizeof want, ", \"warnings\": [\"%s\"]}", text);
    assert_line_ends(r.out, 0, want);
    assert_warnings_read_back(r.out, r.err);
    snprintf(args, sizeof args, "eval --json --threads 1 --model %s --labels %s/clean.csv --part all", model, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    ag_test_assert_json_lines(r.out, 1);
    assert_string_equal(r.err, "");
    assert_null(strstr(r.out, "warnings"));
}

static void test_label(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024], out[256];
    const char *exts[2] = {"gml", "graphml"};
    for (int k = 0; k < 2; k++) {
        snprintf(out, sizeof out, "%s/karate.%s", dir, exts[k]);
        snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml -o %s", karate, out);
        ag_cli_run(&r, NULL, args);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        assert_string_equal(r.out, "");
        igraph_t g;
        read_back(&g, out, k == 1);
        assert_int_equal(igraph_vcount(&g), 34);
        assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "pred"));
        /* names of letters and digits only: GML (whose writer drops other bytes) and GraphML agree */
        const char *p0 = "prob0", *p1 = "prob1";
        assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, p0));
        int right = 0;
        for (igraph_integer_t v = 0; v < 34; v++) {
            const char *pred = VAS(&g, "pred", v);
            double a = VAN(&g, p0, v), b = VAN(&g, p1, v);
            assert_float_equal(a + b, 1.0, 1e-5);
            assert_string_equal(pred, a >= b ? "0" : "1");
            right += (int)VAN(&g, "club", v) == (a >= b ? 0 : 1);
        }
        assert_true(right >= 28); /* the GAT trained on two labels gets most of the club right */
        igraph_destroy(&g);
    }
    /* CSV file and stdout agree */
    snprintf(out, sizeof out, "%s/karate.csv", dir);
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml -o %s", karate, out);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 0);
    ag_cli_run_t s;
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml", karate);
    ag_cli_run(&s, NULL, args);
    assert_int_equal(s.code, 0);
    assert_int_equal(ag_cli_count_lines(s.out), 35);
    const char *head = "vertex,id,name,pred,prob0,prob1\n0,0,1,";
    assert_memory_equal(s.out, head, strlen(head));
    size_t n;
    char *buf = (char *)ag_test_read_file(out, &n);
    assert_string_equal(buf, s.out);
    free(buf);
    /* the graph on standard input, its format recognised: the same table */
    snprintf(args, sizeof args, "label --model %s - < graphs/social/karate.gml", karate);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.out, s.out);
    /* a graph model cannot label; a bad extension; an output folder that does not exist: no file */
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml", mutag);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    assert_non_null(strstr(r.err, "label needs a node-level one"));
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml -o %s/x.txt", karate, dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 2);
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml -o %s/nodir/x.gml", karate, dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 1);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_non_null(strstr(r.err, "cannot write"));
}

/* Sum of the attention each vertex pays (Fwd of its edges to higher ids, Rev of those to lower
 * ids, its self-loop, and with a virtual node its weight on the token) for layer l, head h of a
 * written undirected graph; checks each is 1. */
static void check_sums(const igraph_t *g, int l, int h) {
    char fwd[64], rev[64], self[64], to_token[64];
    snprintf(fwd, sizeof fwd, "attnL%dH%dFwd", l, h);
    snprintf(rev, sizeof rev, "attnL%dH%dRev", l, h);
    snprintf(self, sizeof self, "selfAttnL%dH%d", l, h);
    snprintf(to_token, sizeof to_token, "attnToTokenL%dH%d", l, h);
    const int token = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_VERTEX, to_token);
    igraph_integer_t N = igraph_vcount(g), E = igraph_ecount(g);
    double *sum = calloc((size_t)N, sizeof(double));
    assert_non_null(sum);
    for (igraph_integer_t v = 0; v < N; v++) sum[v] = VAN(g, self, v) + (token ? VAN(g, to_token, v) : 0.0);
    for (igraph_integer_t e = 0; e < E; e++) {
        double a = EAN(g, fwd, e), b = EAN(g, rev, e);
        assert_true(a > 0.0 && a <= 1.0 && b > 0.0 && b <= 1.0);
        igraph_integer_t lo = IGRAPH_TO(g, e), hi = IGRAPH_FROM(g, e);
        if (lo > hi) { /* named by ids, whatever order a reader stores the ends in */
            igraph_integer_t t = lo;
            lo = hi;
            hi = t;
        }
        sum[lo] += a;
        sum[hi] += b;
    }
    for (igraph_integer_t v = 0; v < N; v++) assert_float_equal(sum[v], 1.0, 1e-5);
    free(sum);
}

/* One <path> of an explain drawing: its tooltip's "u->v" or "u-v", its d, stroke width, arrowhead
 * size (its marker's markerWidth, 0 without one) and the box around the points of d (ends and
 * control points). */
typedef struct svg_edge_t {
    char ends[32], d[200];
    double width, head, x0, y0, x1, y1;
} svg_edge_t;

/* The <path>s of doc into out (at most max); returns how many. */
static int svg_edges(const char *doc, svg_edge_t *out, int max) {
    int n = 0;
    for (const char *q = doc; (q = strstr(q, "<path d=\"")) != NULL; q++) {
        assert_true(n < max);
        svg_edge_t *e = &out[n++];
        const char *end = strstr(q, "</path>");
        assert_int_equal(sscanf(q, "<path d=\"%199[^\"]\"", e->d), 1);
        const char *w = strstr(q, "stroke-width=\""), *m = strstr(q, "marker-end=\"url(#"), *t = strstr(q, "<title>");
        assert_true(w && w < end && t && t < end);
        e->width = atof(w + strlen("stroke-width=\""));
        assert_int_equal(sscanf(t, "<title>%31[^:]", e->ends), 1);
        e->head = 0;
        if (m && m < end) {
            char id[64], want[96];
            assert_int_equal(sscanf(m, "marker-end=\"url(#%63[^)])", id), 1);
            snprintf(want, sizeof want, "<marker id=\"%s\"", id);
            const char *def = strstr(doc, want);
            assert_non_null(def);
            const char *mw = strstr(def, "markerWidth=\"");
            assert_non_null(mw);
            e->head = atof(mw + strlen("markerWidth=\""));
        }
        /* the numbers of d, in x y pairs after M, L, Q and C */
        e->x0 = e->y0 = INFINITY;
        e->x1 = e->y1 = -INFINITY;
        const char *c = e->d;
        for (int k = 0; *c; k++) {
            while (*c && strchr("MLQC ", *c)) c++;
            if (!*c) break;
            char *after;
            double x = strtod(c, &after);
            assert_true(after != c);
            c = after;
            if (k % 2 == 0) {
                e->x0 = fmin(e->x0, x);
                e->x1 = fmax(e->x1, x);
            } else {
                e->y0 = fmin(e->y0, x);
                e->y1 = fmax(e->y1, x);
            }
        }
    }
    return n;
}

/* explain --svg of a small graph with self-loops (two on one vertex) and four copies of one edge
 * (three one way, one back), drawn with model: each loop is a loop around
 * more than a circle's width (it was a path from the centre to itself, not drawn), the copies
 * and the loops on one vertex each have their own path (they lay on each other), and on a
 * directed graph every arrowhead is at least 2.4 times as wide as its stroke (a 9 px arrowhead
 * vanished under 7.5 px strokes). */
static void check_loops_and_copies(const char *model, int directed) {
    char gml[256], out[256], svg[256];
    snprintf(out, sizeof out, "%s/loops.graphml", dir);
    snprintf(svg, sizeof svg, "%s/loops.svg", dir);
    FILE *f = create_in_dir(gml, sizeof gml, "loops.gml");
    fprintf(f, "graph [ directed %d\n", directed);
    for (int v = 0; v < 6; v++) fprintf(f, " node [ id %d name \"%d\" ]\n", v, v + 1);
    static const int edges[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 4}, {4, 4}, {3, 4}, {3, 4}, {4, 5}, {5, 0},
                                   {4, 3}, {2, 2}};
    for (int k = 0; k < 12; k++)
        fprintf(f, " edge [ source %d target %d weight 1 ]\n", edges[k][0], edges[k][1]);
    fputs("]\n", f);
    fclose(f);
    ag_cli_run_t r;
    char args[1024];
    snprintf(args, sizeof args, "explain --model %s %s -o %s --svg %s", model, gml, out, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    static svg_edge_t e[16];
    int n = svg_edges(doc, e, 16);
    assert_int_equal(n, 12);
    int loops = 0, copies = 0, widest = 0, lo[16], hi[16];
    for (int i = 0; i < n; i++) {
        int a, b;
        assert_int_equal(sscanf(e[i].ends, directed ? "%d->%d" : "%d-%d", &a, &b), 2);
        lo[i] = a < b ? a : b;
        hi[i] = a < b ? b : a;
        if (a == b) {
            loops++;
            if (fmax(e[i].x1 - e[i].x0, e[i].y1 - e[i].y0) < 24.0)
                fail_msg("loop %s drawn %.1f x %.1f px: %s", e[i].ends, e[i].x1 - e[i].x0, e[i].y1 - e[i].y0, e[i].d);
        }
        copies += lo[i] == 3 && hi[i] == 4;
        for (int j = 0; j < i; j++)
            if (lo[i] == lo[j] && hi[i] == hi[j] && !strcmp(e[i].d, e[j].d))
                fail_msg("the copies %s and %s are drawn on each other: %s", e[j].ends, e[i].ends, e[i].d);
        if (directed && e[i].head < 2.4 * e[i].width)
            fail_msg("%s: an arrowhead of %.0f px on a stroke of %.2f px", e[i].ends, e[i].head, e[i].width);
        widest += e[i].width > 7.4;
    }
    assert_int_equal(loops, 3);
    assert_int_equal(copies, 4);
    assert_true(widest >= 1); /* the strongest edge has the widest stroke, 7.5 px */
    free(doc);
}

/* explain: attention attributes of every layer and head summing to 1 per destination on the
 * written file; the SVG has one line per edge. */
/* A name holding a line break (GraphML's &#10;) is drawn with a space there: XML has no place for
 * the control character, and dropping it ran the two words together ("ZoëLine"). */
static void test_explain_name_line_break(void **state) {
    (void)state;
    char graphml[256], args[1024];
    FILE *f = create_in_dir(graphml, sizeof graphml, "line-break.graphml");
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
          "<key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
          "<graph edgedefault=\"undirected\">\n<node id=\"a\"><data key=\"name\">Zo\xc3\xab&#10;Line</data></node>\n"
          "<node id=\"b\"><data key=\"name\">Bo</data></node><node id=\"c\"><data key=\"name\">Cy</data></node>\n"
          "<edge source=\"a\" target=\"b\"/><edge source=\"b\" target=\"c\"/><edge source=\"c\" target=\"a\"/>\n"
          "</graph></graphml>\n", f);
    fclose(f);
    snprintf(args, sizeof args, "explain --model %s %s -o %s/line-break.gml --svg %s/line-break.svg", karate, graphml,
             dir, dir);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(args, sizeof args, "%s/line-break.svg", dir);
    size_t n;
    char *doc = (char *)ag_test_read_file(args, &n);
    assert_non_null(strstr(doc, ">Zo\xc3\xab Line<"));                  /* the label */
    assert_non_null(strstr(doc, "<title>Zo\xc3\xab Line (vertex 0)")); /* the tooltip */
    assert_null(strstr(doc, "Zo\xc3\xabLine"));
    free(doc);
}

static void test_explain(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024], out[256], svg[256];
    snprintf(out, sizeof out, "%s/karate-attn.graphml", dir);
    snprintf(svg, sizeof svg, "%s/karate.svg", dir);
    snprintf(args, sizeof args, "explain --model %s graphs/social/karate.gml -o %s --svg %s", karate, out, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    igraph_t g;
    read_back(&g, out, 1);
    assert_int_equal(igraph_ecount(&g), 78);
    /* the GAT preset: 8 heads, then 1 */
    for (int h = 0; h < 8; h++) check_sums(&g, 0, h);
    check_sums(&g, 1, 0);
    assert_false(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_EDGE, "attnL0H8Fwd"));
    assert_false(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_EDGE, "attnL2H0Fwd"));
    assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "pred"));
    igraph_destroy(&g);
    size_t n;
    char *buf = (char *)ag_test_read_file(svg, &n);
    assert_memory_equal(buf, "<svg ", 5);
    assert_int_equal(count_of(buf, "<path "), 78);
    assert_int_equal(count_of(buf, "<circle "), 34 + 2); /* vertices and the two legend dots */
    assert_non_null(strstr(buf, "</svg>\n"));
    /* the last of the GAT preset's two layers, by --layer's number and by info's block number */
    assert_non_null(strstr(buf, "node-classification model; layer 1 (block 2 of 2), mean of 1 head; "));
    /* each vertex's tooltip has its class and that class's probability, as label gives them */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/karate-labels.csv", dir);
    ag_cli_run_ok(&r, "label --threads 1 --model %s graphs/social/karate.gml -o %s", karate, csv);
    char *labels = (char *)ag_test_read_file(csv, &n);
    const char *line = strchr(labels, '\n');
    assert_non_null(line);
    assert_memory_equal(labels, "vertex,id,name,pred,prob0,prob1\n", line + 1 - labels);
    for (int v = 0; v < 34; v++) {
        int vv;
        char cls[16], want[64], got[16];
        double p[2], shown;
        assert_int_equal(sscanf(line + 1, "%d,%*[^,],%*[^,],%15[^,],%lf,%lf", &vv, cls, &p[0], &p[1]), 4);
        assert_int_equal(vv, v);
        snprintf(want, sizeof want, " (vertex %d): attention received ", v);
        const char *t = strstr(buf, want);
        assert_non_null(t);
        t = strstr(t, "; predicted ");
        assert_true(t && t < strstr(strstr(buf, want), "</title>"));
        assert_int_equal(sscanf(t, "; predicted %15s (p %lf)</title>", got, &shown), 2);
        assert_string_equal(got, cls);
        assert_float_equal(shown, p[atoi(cls)], 5e-4);
        line = strchr(line + 1, '\n');
        assert_non_null(line);
    }
    free(labels);
    check_loops_and_copies(karate, 0);
    /* a molecule with a graph model, GML out: the same keys as GraphML; labelled atoms */
    snprintf(out, sizeof out, "%s/caffeine.gml", dir);
    snprintf(svg, sizeof svg, "%s/caffeine.svg", dir);
    snprintf(args, sizeof args, "explain --model %s graphs/molecules/caffeine.gml -o %s --svg %s --layer 0", tox, out,
             svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    read_back(&g, out, 0);
    assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_EDGE, "attnL1H1Fwd"));
    assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "selfAttnL0H0"));
    assert_false(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "attnToTokenL0H0")); /* no token */
    assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_GRAPH, "pred"));
    igraph_integer_t E = igraph_ecount(&g);
    igraph_destroy(&g);
    free(buf);
    buf = (char *)ag_test_read_file(svg, &n);
    assert_int_equal(count_of(buf, "<path "), (int)E);
    assert_non_null(strstr(buf, "layer 0 (block 1 of "));
    assert_non_null(strstr(buf, "), mean of 2 heads"));
    assert_non_null(strstr(buf, ">N</text>"));
    assert_non_null(strstr(buf, ">O</text>"));
    free(buf);
    /* the shipped Tox21 model has a graph token: each atom's weight on it (attnToToken) completes
     * the atom's sum to 1, in every layer and head */
    snprintf(out, sizeof out, "%s/caffeine-token.gml", dir);
    snprintf(args, sizeof args, "explain --model graphs/models/tox21.safetensors graphs/molecules/caffeine.gml -o %s",
             out);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    read_back(&g, out, 0);
    assert_true(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, "tokenAttnL0H0"));
    for (int l = 0; l < 4; l++)
        for (int h = 0; h < 8; h++) check_sums(&g, l, h);
    double to_token = 0.0;
    for (igraph_integer_t v = 0; v < igraph_vcount(&g); v++) to_token += VAN(&g, "attnToTokenL0H0", v);
    assert_true(to_token > 0.0); /* not an attribute of zeros */
    igraph_destroy(&g);
    /* igraph's GML writer keyed atomic_num as atomicnum, bond_type as bondtype: the written molecule
     * still fits the model, and is classified as the original is */
    buf = (char *)ag_test_read_file(out, &n);
    assert_non_null(strstr(buf, "atomicnum 6"));
    assert_null(strstr(buf, "atomic_num"));
    free(buf);
    ag_cli_run_t again;
    ag_cli_run_ok(&r, "classify graphs/molecules/caffeine.gml");
    ag_cli_run_ok(&again, "classify %s", out);
    assert_string_equal(strchr(again.out, '\t'), strchr(r.out, '\t'));
    /* and drawn again, its bond orders come from bondtype: caffeine's 2 double and 10 aromatic */
    snprintf(args, sizeof args, "explain %s -o %s/caffeine-again.gml --svg %s", out, dir, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    buf = (char *)ag_test_read_file(svg, &n);
    assert_int_equal(count_of(buf, "<line "), 12);
    free(buf);
    /* a molecule without bonds: no edge, and the drawing says so rather than "attention 0.000 to 0.000" */
    ag_test_write_text(dir, "methane.gml",
                       "graph [ directed 0 node [ id 0 element \"C\" atomic_num 6 charge 0 aromatic 0 hydrogens 4 "
                       "hybridization \"SP3\" degree 0 in_ring 0 ] ]\n");
    snprintf(args, sizeof args, "explain --model graphs/models/tox21.safetensors %s/methane.gml -o %s --svg %s", dir,
             out, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    buf = (char *)ag_test_read_file(svg, &n);
    assert_non_null(strstr(buf, "; no edge to draw</text>"));
    assert_int_equal(count_of(buf, "<path "), 0);
    free(buf);
    /* acetonitrile's triple bond: a thin line on each side of its stroke; the single bond none */
    ag_test_write_text(dir, "acetonitrile.gml",
                       "graph [ directed 0\n"
                       "node [ id 0 element \"C\" atomic_num 6 charge 0 aromatic 0 hydrogens 3 hybridization \"SP3\" "
                       "degree 1 in_ring 0 ]\n"
                       "node [ id 1 element \"C\" atomic_num 6 charge 0 aromatic 0 hydrogens 0 hybridization \"SP\" "
                       "degree 2 in_ring 0 ]\n"
                       "node [ id 2 element \"N\" atomic_num 7 charge 0 aromatic 0 hydrogens 0 hybridization \"SP\" "
                       "degree 1 in_ring 0 ]\n"
                       "edge [ source 0 target 1 bond 1.0 bond_type \"SINGLE\" conjugated 0 in_ring 0 ]\n"
                       "edge [ source 1 target 2 bond 3.0 bond_type \"TRIPLE\" conjugated 0 in_ring 0 ] ]\n");
    snprintf(args, sizeof args, "explain --model graphs/models/tox21.safetensors %s/acetonitrile.gml -o %s --svg %s",
             dir, out, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    buf = (char *)ag_test_read_file(svg, &n);
    assert_int_equal(count_of(buf, "<path "), 2);
    assert_int_equal(count_of(buf, "<line "), 2);
    assert_int_equal(count_of(buf, "stroke-dasharray"), 0);
    assert_non_null(strstr(buf, "; thin lines: bond order (dashed: aromatic)"));
    /* the two lines lie on either side of the C-N stroke, parallel to it */
    double l[2][4];
    const char *q = strstr(buf, "<line ");
    for (int i = 0; i < 2; i++, q = strstr(q + 1, "<line ")) {
        assert_int_equal(sscanf(q, "<line x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\"", &l[i][0], &l[i][1],
                                &l[i][2], &l[i][3]), 4);
    }
    double mx = (l[0][0] + l[0][2] + l[1][0] + l[1][2]) / 4, my = (l[0][1] + l[0][3] + l[1][1] + l[1][3]) / 4;
    double gap = hypot((l[0][0] + l[0][2]) / 2 - (l[1][0] + l[1][2]) / 2, (l[0][1] + l[0][3]) / 2 - (l[1][1] + l[1][3]) / 2);
    assert_float_equal(gap, 12.0, 0.2); /* 6 px each side */
    const char *p2 = strstr(buf, "<path d=\"M");
    p2 = strstr(p2 + 1, "<path d=\"M"); /* the second edge: 1-2 */
    double s[4];
    assert_int_equal(sscanf(p2, "<path d=\"M%lf %lfL%lf %lf", &s[0], &s[1], &s[2], &s[3]), 4);
    assert_float_equal(mx, (s[0] + s[2]) / 2, 0.2);
    assert_float_equal(my, (s[1] + s[3]) / 2, 0.2);
    free(buf);
    /* a layer the model does not have; no -o */
    snprintf(args, sizeof args, "explain --model %s graphs/molecules/caffeine.gml -o %s --layer 2", tox, out);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 2);
    snprintf(args, sizeof args, "explain --model %s graphs/molecules/caffeine.gml", tox);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 2);
    /* both outputs or neither: a drawing that cannot be written leaves no -o file, and the reverse */
    snprintf(out, sizeof out, "%s/both-or-neither.graphml", dir);
    snprintf(args, sizeof args, "explain --model %s graphs/molecules/caffeine.gml -o %s --svg %s/no-dir/c.svg", tox,
             out, dir);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no-dir/c.svg"));
    assert_int_equal(access(out, F_OK), -1);
    snprintf(svg, sizeof svg, "%s/both-or-neither.svg", dir);
    snprintf(args, sizeof args, "explain --model %s graphs/molecules/caffeine.gml -o %s/no-dir/c.graphml --svg %s",
             tox, dir, svg);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 1);
    assert_int_equal(access(svg, F_OK), -1);
}

/* 1 when dir holds a file whose name starts with prefix (an output or its temporary file). */
static int left_behind(const char *prefix) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) found = !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return found;
}

/* Runs args, which must be refused with exit 3 and `want` as the line after the first (a warning
 * that no name is known comes first), leaving no file named out behind. */
static void expect_graphml_refused(const char *args, const char *want, const char *out) {
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 3);
    const char *last = strchr(r.err, '\n');
    assert_non_null(last);
    assert_string_equal(last + 1, want);
    assert_false(left_behind(out));
}

/* GraphML is XML 1.0, which cannot hold a control character other than tab, line feed and
 * carriage return, not even as &#1;: a graph with one in a string is refused before OUT is opened
 * (exit 3), naming the attribute, the vertex, edge or graph and the value, and how many more there
 * are, and pointing to GML, which carries it (igraph said only "Forbidden control character 0x01
 * found in igraph_i_xml_escape", exit 1). Tabs and line breaks are written. */
static void test_graphml_control_chars(void **state) {
    (void)state;
    ag_cli_run_t r;
    char args[1024], want[1024];
    ag_test_write_text(dir, "control.gml",
                       "graph [\n directed 0\n node [ id 0 name \"Mr Hi\" ]\n node [ id 1 name \"c\001t\" ]\n"
                       " node [ id 2 name \"x\033\" ]\n edge [ source 0 target 1 note \"ok\" ]\n"
                       " edge [ source 1 target 2 note \"a\002\" ]\n]\n");
    snprintf(args, sizeof args, "label --threads 1 --model %s %s/control.gml -o %s/ctl.graphml", karate, dir, dir);
    snprintf(want, sizeof want,
             "attn-graph: label: cannot write %s/ctl.graphml: vertex 1's attribute 'name' holds control character "
             "0x01 (\"c\\u0001t\"), which GraphML cannot hold (XML 1.0 forbids it, even escaped; 2 more strings "
             "GraphML cannot hold); write GML (-o %s/ctl.gml), which keeps every byte, or remove the characters from "
             "the graph\n", dir, dir);
    expect_graphml_refused(args, want, "ctl.graphml");
    /* OUT's name with .gml is the input here, which -o would refuse: no name is suggested */
    snprintf(args, sizeof args, "label --threads 1 --model %s %s/control.gml -o %s/control.graphml", karate, dir, dir);
    snprintf(want, sizeof want,
             "attn-graph: label: cannot write %s/control.graphml: vertex 1's attribute 'name' holds control character "
             "0x01 (\"c\\u0001t\"), which GraphML cannot hold (XML 1.0 forbids it, even escaped; 2 more strings "
             "GraphML cannot hold); write GML (-o FILE.gml), which keeps every byte, or remove the characters from "
             "the graph\n", dir);
    expect_graphml_refused(args, want, "control.graphml");
    /* GML carries the bytes: written, and read back as they were */
    snprintf(args, sizeof args, "label --threads 1 --model %s %s/control.gml -o %s/control-out.gml", karate, dir, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    igraph_t g;
    snprintf(args, sizeof args, "%s/control-out.gml", dir);
    read_back(&g, args, 0);
    assert_string_equal(VAS(&g, "name", 1), "c\001t");
    assert_string_equal(EAS(&g, "note", 1), "a\002");
    igraph_destroy(&g);
    /* a graph attribute; explain's drawing is not left either */
    ag_test_write_text(dir, "titled.gml",
                       "graph [\n directed 0\n title \"t\037\"\n node [ id 0 name \"a\" ]\n node [ id 1 name \"b\" ]\n"
                       " edge [ source 0 target 1 ]\n]\n");
    snprintf(args, sizeof args, "explain --threads 1 --model %s %s/titled.gml -o %s/titled.xml --svg %s/titled.svg",
             karate, dir, dir, dir);
    snprintf(want, sizeof want,
             "attn-graph: explain: cannot write %s/titled.xml: graph attribute 'title' holds control character 0x1F "
             "(\"t\\u001f\"), which GraphML cannot hold (XML 1.0 forbids it, even escaped); write GML (-o "
             "FILE.gml), which keeps every byte, or remove the characters from the graph\n", dir);
    expect_graphml_refused(args, want, "titled.xml");
    assert_false(left_behind("titled.svg"));
    /* a Latin-1 byte: igraph writes the file as UTF-8 XML, which igraph itself then could not read
     * ("Input is not proper UTF-8") */
    ag_test_write_text(dir, "latin1.gml",
                       "graph [\n directed 0\n node [ id 0 name \"caf\xE9\" ]\n node [ id 1 name \"caf\xC3\xA9\" ]\n"
                       " edge [ source 0 target 1 ]\n]\n");
    snprintf(args, sizeof args, "label --threads 1 --model %s %s/latin1.gml -o %s/latin1.graphml", karate, dir, dir);
    snprintf(want, sizeof want,
             "attn-graph: label: cannot write %s/latin1.graphml: vertex 0's attribute 'name' holds byte 0xE9 "
             "(\"caf\xEF\xBF\xBD\"), which GraphML cannot hold (a GraphML file is UTF-8 XML and the byte is not UTF-8: "
             "readers refuse it); write GML (-o FILE.gml), which keeps every byte, or convert the input to UTF-8 "
             "(e.g. iconv -f latin1 -t utf-8)\n", dir);
    expect_graphml_refused(args, want, "latin1.graphml");
    /* tab and line feed are XML characters, UTF-8 text is what the file holds: written and read back */
    ag_test_write_text(dir, "tabbed.gml",
                       "graph [\n directed 0\n node [ id 0 name \"a\tb\" ]\n node [ id 1 name \"c\nd\" ]\n"
                       " node [ id 2 name \"caf\xC3\xA9\" ]\n edge [ source 0 target 1 ]\n edge [ source 1 target 2 ]\n]\n");
    snprintf(args, sizeof args, "label --threads 1 --model %s %s/tabbed.gml -o %s/tabbed.graphml", karate, dir, dir);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(args, sizeof args, "%s/tabbed.graphml", dir);
    read_back(&g, args, 1);
    assert_string_equal(VAS(&g, "name", 0), "a\tb");
    assert_string_equal(VAS(&g, "name", 1), "c\nd");
    assert_string_equal(VAS(&g, "name", 2), "caf\xC3\xA9");
    igraph_destroy(&g);
}

/* igraph's own warnings (a boolean attribute written to GML, which has no booleans) come in the
 * program's voice, one line each, not as igraph's "Warning at src/io/gml.c:..." without a newline;
 * the GML written is then read by the same model. */
static void test_igraph_warning_line(void **state) {
    (void)state;
    ag_test_write_text(dir, "b.graphml",
                       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                       "<key id=\"b\" for=\"node\" attr.name=\"b\" attr.type=\"boolean\"/>\n"
                       "<key id=\"c\" for=\"node\" attr.name=\"c\" attr.type=\"string\"/>\n"
                       "<graph edgedefault=\"undirected\">\n"
                       "<node id=\"n0\"><data key=\"b\">true</data><data key=\"c\">x</data></node>\n"
                       "<node id=\"n1\"><data key=\"b\">false</data><data key=\"c\">y</data></node>\n"
                       "<node id=\"n2\"><data key=\"b\">true</data><data key=\"c\">x</data></node>\n"
                       "<edge source=\"n0\" target=\"n1\"/><edge source=\"n1\" target=\"n2\"/>\n"
                       "</graph>\n</graphml>\n");
    char args[1024];
    ag_cli_run_t r;
    /* 'b' mirrors the labels and is left out: --lap-pe 0 keeps the Laplacian columns, which a
     * structure-only graph gets by default, and their warning for another graph, out of the lines below */
    snprintf(args, sizeof args, "train %s/b.graphml --label-attr c --train-nodes 0,1 --epochs 1 --threads 1 --quiet "
             "--lap-pe 0 -o %s/b.safetensors", dir, dir);
    ag_cli_run_ok(&r, "%s", args);
    snprintf(args, sizeof args, "label --model %s/b.safetensors %s/b.graphml -o %s/b.gml", dir, dir, dir);
    ag_cli_run_ok(&r, "%s", args);
    char want[600];
    snprintf(want, sizeof want,
             "attn-graph: note: %s/b.gml: GML numbers its vertices: the text vertex ids (attribute 'id': GraphML's "
             "node ids, a Pajek file's labels) are written as 'name'\n"
             "attn-graph: warning: %s/b.gml: The boolean vertex attribute 'b' was converted to numeric.\n",
             dir, dir);
    assert_string_equal(r.err, want);
    /* ... and the model reads its 0/1 back as the boolean it was: the same labels and probabilities,
     * and GraphML's ids ("n0", ...) are the GML's names: the GML's lines are the GraphML's with
     * GML's numeric id inserted (vertex,id,name,... against vertex,id,...) */
    ag_cli_run_t from[2];
    ag_cli_run_ok(&from[0], "label --model %s/b.safetensors %s/b.graphml", dir, dir);
    ag_cli_run_ok(&from[1], "label --model %s/b.safetensors %s/b.gml", dir, dir);
    assert_true(!strncmp(from[0].out, "vertex,id,pred,", 15));
    assert_true(!strncmp(from[1].out, "vertex,id,name,pred,", 20));
    char rest[512];
    size_t n = 0;
    for (const char *l = from[1].out; *l; l = strchr(l, '\n') + 1) {
        const char *id = strchr(l, ',') + 1, *after = strchr(id, ','); /* drop the second field */
        size_t head = (size_t)(id - l), len = (size_t)(strchr(after, '\n') - after); /* its newline included */
        assert_true(n + head + len < sizeof rest);
        memcpy(rest + n, l, head);
        memcpy(rest + n + head, after + 1, len);
        n += head + len;
    }
    rest[n] = '\0';
    assert_int_equal(ag_cli_count_lines(from[1].out), 4);
    /* the header's 'name' replaces its 'id' */
    assert_true(!strncmp(rest, "vertex,name,pred,", 17));
    assert_string_equal(strchr(rest, '\n'), strchr(from[0].out, '\n'));
    /* with 'name' and 'label' taken, the ids are dropped, and the warning says so */
    ag_test_write_text(dir, "c.graphml",
                       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                       "<key id=\"b\" for=\"node\" attr.name=\"b\" attr.type=\"double\"/>\n"
                       "<key id=\"c\" for=\"node\" attr.name=\"c\" attr.type=\"string\"/>\n"
                       "<key id=\"m\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
                       "<key id=\"l\" for=\"node\" attr.name=\"label\" attr.type=\"string\"/>\n"
                       "<graph edgedefault=\"undirected\">\n"
                       "<node id=\"n0\"><data key=\"b\">1</data><data key=\"c\">x</data><data key=\"m\">A</data>"
                       "<data key=\"l\">p</data></node>\n"
                       "<node id=\"n1\"><data key=\"b\">0</data><data key=\"c\">y</data><data key=\"m\">B</data>"
                       "<data key=\"l\">q</data></node>\n"
                       "<edge source=\"n0\" target=\"n1\"/>\n"
                       "</graph>\n</graphml>\n");
    snprintf(args, sizeof args, "label --model %s/b.safetensors %s/c.graphml -o %s/c.gml", dir, dir, dir);
    ag_cli_run_ok(&r, "%s", args);
    snprintf(want, sizeof want,
             "attn-graph: warning: %s/c.gml: GML numbers its vertices and the graph has 'name' and 'label' already: "
             "its string vertex ids ('id') are not written; write GraphML (.graphml) to keep them\n",
             dir);
    assert_string_equal(r.err, want);
    char path[512];
    snprintf(path, sizeof path, "%s/c.gml", dir);
    size_t len;
    char *gml = (char *)ag_test_read_file(path, &len);
    assert_non_null(strstr(gml, "name \"A\""));
    assert_non_null(strstr(gml, "label \"q\""));
    assert_null(strstr(gml, "n0"));
    free(gml);
}

/* A directed graph: one attention attribute per edge (the target attending to the source); each
 * vertex's incoming weights and self-loop weight sum to 1 on the written file; its drawing's
 * arrowheads, loops and copies of an edge (check_loops_and_copies). */
static void test_explain_directed(void **state) {
    (void)state;
    char gml[256], model[256], out[256], args[1400];
    snprintf(gml, sizeof gml, "%s/karate-directed.gml", dir);
    snprintf(model, sizeof model, "%s/directed.safetensors", dir);
    snprintf(out, sizeof out, "%s/directed.graphml", dir);
    snprintf(args, sizeof args, "sed 's/directed 0/directed 1/' '%s/graphs/social/karate.gml' > '%s'", AG_SOURCE_DIR, gml);
    assert_int_equal(system(args), 0);
    snprintf(args, sizeof args,
             "train %s --label-attr club --train-nodes 0,33 --epochs 3 --hidden 8 --layers 2 --heads 2 --threads 1 "
             "--quiet -o %s", gml, model);
    train(args);
    ag_cli_run_t r;
    char svg[256];
    snprintf(svg, sizeof svg, "%s/directed.svg", dir);
    snprintf(args, sizeof args, "explain --model %s %s -o %s --svg %s", model, gml, out, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    /* the drawing: one arrowhead marker, used by every edge, whose line stops at the circle's rim */
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len), why[256];
    int64_t lines, markers, ends = 0;
    if (!ag_xml_check(doc, "path", &lines, why, sizeof why)) fail_msg("%s: %s", svg, why);
    assert_true(ag_xml_check(doc, "marker", &markers, why, sizeof why));
    assert_true(markers >= 1); /* one per arrowhead size */
    for (const char *q = doc; (q = strstr(q, "marker-end=\"url(#arrow")) != NULL; q++) ends++;
    assert_int_equal(lines, 78);
    assert_int_equal(ends, 78);
    assert_non_null(strstr(doc, "<title>0->1: "));
    free(doc);
    check_loops_and_copies(model, 1);
    igraph_t g;
    read_back(&g, out, 1);
    assert_true(igraph_is_directed(&g));
    assert_false(igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_EDGE, "attnL0H0Fwd"));
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++) {
            char a[64], self[64];
            snprintf(a, sizeof a, "attnL%dH%d", l, h);
            snprintf(self, sizeof self, "selfAttnL%dH%d", l, h);
            double sum[34];
            for (int v = 0; v < 34; v++) sum[v] = VAN(&g, self, v);
            for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) sum[IGRAPH_TO(&g, e)] += EAN(&g, a, e);
            for (int v = 0; v < 34; v++) assert_float_equal(sum[v], 1.0, 1e-5);
        }
    igraph_destroy(&g);
}

/* The drawing of a node model with 22 classes of long names: the legend wraps inside the canvas,
 * lists 20 classes (cut to 24 characters) and says the rest reuse colours; long vertex names sit
 * beside their circles, cut to 16 characters, inside the canvas too. */
/* Whether segments p-q and r-s cross inside both. */
static int cross(const double *p, const double *q, const double *r, const double *s) {
    double d1 = (s[0] - r[0]) * (p[1] - r[1]) - (s[1] - r[1]) * (p[0] - r[0]);
    double d2 = (s[0] - r[0]) * (q[1] - r[1]) - (s[1] - r[1]) * (q[0] - r[0]);
    double d3 = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    double d4 = (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0]);
    return d1 * d2 < 0 && d3 * d4 < 0;
}

/* explain --svg of a molecule (path: from the source tree, or absolute) with the default model,
 * or with model when not NULL: the edges' ends into seg (n x 4, at most 128), the vertices'
 * centres into at (at most 64 x 2, legend dots left out); returns the number of edges, and the
 * number of vertices in *n_at. */
static int draw_graph(const char *path, const char *model, double seg[][4], double at[][2], int *n_at) {
    char args[1024], out[256], svg[256];
    snprintf(out, sizeof out, "%s/molecule.graphml", dir);
    snprintf(svg, sizeof svg, "%s/molecule.svg", dir);
    snprintf(args, sizeof args, "explain %s%s %s -o %s --svg %s", model ? "--model " : "", model ? model : "", path,
             out, svg);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    int n = 0;
    for (const char *q = doc; (q = strstr(q, "<path d=\"M")) != NULL; q++) {
        assert_true(n < 128);
        assert_int_equal(sscanf(q, "<path d=\"M%lf %lfL%lf %lf", &seg[n][0], &seg[n][1], &seg[n][2], &seg[n][3]), 4);
        n++;
    }
    *n_at = 0;
    for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++) {
        double rad;
        assert_true(*n_at < 64);
        assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &at[*n_at][0], &at[*n_at][1], &rad), 3);
        *n_at += rad != 5.0; /* not a legend dot */
    }
    free(doc);
    return n;
}

/* The box around the vertices of at (n_at x 2) that an edge of seg (n x 4) touches, into box
 * (x0, y0, x1, y1); which vertices those are into touched (n_at). */
static void edge_box(double seg[][4], int n, double at[][2], int n_at, double box[4], int *touched) {
    box[0] = box[1] = INFINITY;
    box[2] = box[3] = -INFINITY;
    for (int v = 0; v < n_at; v++) {
        touched[v] = 0;
        for (int i = 0; i < n && !touched[v]; i++)
            touched[v] = (fabs(seg[i][0] - at[v][0]) < 0.2 && fabs(seg[i][1] - at[v][1]) < 0.2) ||
                         (fabs(seg[i][2] - at[v][0]) < 0.2 && fabs(seg[i][3] - at[v][1]) < 0.2);
        if (!touched[v]) continue;
        box[0] = fmin(box[0], at[v][0]);
        box[1] = fmin(box[1], at[v][1]);
        box[2] = fmax(box[2], at[v][0]);
        box[3] = fmax(box[3], at[v][1]);
    }
}

/* How far the point (x, y) is from the box (x0, y0, x1, y1); 0 inside. */
static double box_distance(const double box[4], double x, double y) {
    return hypot(fmax(fmax(box[0] - x, x - box[2]), 0.0), fmax(fmax(box[1] - y, y - box[3]), 0.0));
}

/* The mean length of the edges of seg (n x 4). */
static double mean_length(double seg[][4], int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += hypot(seg[i][2] - seg[i][0], seg[i][3] - seg[i][1]);
    return sum / n;
}

/* A salt's ion is drawn beside the molecule, not in a far corner: within 1.25 mean bond lengths
 * of the molecule's box (it was 1.5, on the box's top edge) and level with its middle. */
static void test_explain_components_close(void **state) {
    (void)state;
    static double seg[128][4], at[64][2];
    int n_at, touched[64];
    int n = draw_graph("tests/data/sodium-benzoate.gml", NULL, seg, at, &n_at);
    assert_int_equal(n, 9);
    assert_int_equal(n_at, 10);
    double bond = mean_length(seg, n), box[4];
    edge_box(seg, n, at, n_at, box, touched);
    /* the atom no bond touches is the sodium */
    int na = -1;
    for (int v = 0; v < n_at; v++)
        if (!touched[v]) na = v;
    assert_true(na >= 0);
    double d = box_distance(box, at[na][0], at[na][1]);
    if (d > 1.25 * bond) fail_msg("the ion is %.1f px from the molecule, %.2f bonds", d, d / bond);
    double middle = 0.5 * (box[1] + box[3]);
    if (fabs(at[na][1] - middle) > 0.25 * (box[3] - box[1]))
        fail_msg("the ion at y %.1f, the molecule from %.1f to %.1f", at[na][1], box[1], box[3]);
}

/* Components without edges: a salt of two lone ions is drawn at the scale of a molecule (the two
 * were stretched to the canvas's ends, 476 px apart), and a social graph's isolated vertices lie
 * within 1.25 mean edge lengths of the rest's box (they were 1.5 away) while the rest keeps its
 * size. */
static void test_explain_isolated_close(void **state) {
    (void)state;
    static double seg[128][4], at[64][2];
    char path[256];
    FILE *f = create_in_dir(path, sizeof path, "nacl.gml");
    fputs("graph [\n directed 0\n"
          " node [ id 0 element \"Na\" atomic_num 11 charge 1 aromatic 0 hydrogens 0 hybridization \"S\" degree 0 "
          "in_ring 0 ]\n"
          " node [ id 1 element \"Cl\" atomic_num 17 charge -1 aromatic 0 hydrogens 0 hybridization \"S\" degree 0 "
          "in_ring 0 ]\n]\n", f);
    fclose(f);
    int n_at, touched[64];
    assert_int_equal(draw_graph(path, NULL, seg, at, &n_at), 0);
    assert_int_equal(n_at, 2);
    double apart = hypot(at[1][0] - at[0][0], at[1][1] - at[0][1]);
    if (apart > 150.0) fail_msg("the two ions are %.1f px apart", apart);

    /* Karate with three vertices of no edge */
    snprintf(path, sizeof path, "%s/karate-isolated.gml", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed '$d' '%s/graphs/social/karate.gml' > '%s'", AG_SOURCE_DIR, path);
    assert_int_equal(system(cmd), 0);
    f = fopen(path, "a");
    assert_non_null(f);
    for (int v = 34; v < 37; v++) fprintf(f, "  node [ id %d name \"%d\" club 0 ]\n", v, v + 1);
    fputs("]\n", f);
    fclose(f);
    static double seg0[128][4], at0[64][2];
    int n0, n = draw_graph(path, karate, seg, at, &n_at);
    assert_int_equal(n, 78);
    assert_int_equal(n_at, 37);
    double unit = mean_length(seg, n), box[4], box0[4];
    edge_box(seg, n, at, n_at, box, touched);
    for (int v = 0; v < n_at; v++) {
        if (touched[v]) continue;
        assert_true(v >= 34);
        double d = box_distance(box, at[v][0], at[v][1]);
        if (d > 1.25 * unit) fail_msg("vertex %d is %.1f px from the rest, %.2f edge lengths", v, d, d / unit);
    }
    /* the rest as large as Karate drawn alone */
    assert_int_equal(draw_graph("graphs/social/karate.gml", karate, seg0, at0, &n0), 78);
    edge_box(seg0, 78, at0, n0, box0, touched);
    double w = fmax(box[2] - box[0], box[3] - box[1]), w0 = fmax(box0[2] - box0[0], box0[3] - box0[1]);
    if (w < 0.8 * w0) fail_msg("Karate drawn %.1f px wide beside isolated vertices, %.1f alone", w, w0);
}

/* A steroid's fused rings (Kamada-Kawai from a circle drew three bonds crossing): drawn with no
 * two bonds crossing, as a chemist draws them. */
static void test_explain_fused_rings(void **state) {
    (void)state;
    static double seg[128][4], at[64][2];
    int n_at;
    int n = draw_graph("tests/data/cholesterol.gml", NULL, seg, at, &n_at);
    assert_int_equal(n, 31); /* 28 atoms, 4 rings */
    assert_int_equal(n_at, 28);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (cross(seg[a], seg[a] + 2, seg[b], seg[b] + 2))
                fail_msg("bonds %d and %d cross: %.1f,%.1f-%.1f,%.1f and %.1f,%.1f-%.1f,%.1f", a, b, seg[a][0],
                         seg[a][1], seg[a][2], seg[a][3], seg[b][0], seg[b][1], seg[b][2], seg[b][3]);
}

/* A graph regression's prediction in explain's graph attribute pred and in the drawing's header is
 * classify's, 6 significant digits: to 4 a solubility of -2.99992 read "logS=-3", like an
 * integer. Molecules of the shipped ESOL model, whose predictions need all 6. */
static void test_explain_regression_digits(void **state) {
    (void)state;
    static const char *const mols[2] = {"aspirin", "amiloride"};
    for (int k = 0; k < 2; k++) {
        ag_cli_run_t r;
        ag_cli_run_ok(&r, "classify --threads 1 --model graphs/models/esol.safetensors graphs/molecules/%s.gml",
                      mols[k]);
        const char *value = strstr(r.out, "\tlogS=");
        assert_non_null(value);
        char want[64];
        assert_int_equal(sscanf(value + 1, "%63s", want), 1);
        assert_true(strlen(want) > strlen("logS=-1.234")); /* more than 4 digits to lose */
        ag_cli_run_ok(&r, "explain --threads 1 --model graphs/models/esol.safetensors graphs/molecules/%s.gml -o "
                      "%s/esol.gml --svg %s/esol.svg", mols[k], dir, dir);
        char path[256], header[96];
        snprintf(path, sizeof path, "%s/esol.gml", dir);
        igraph_t g;
        read_back(&g, path, 0);
        assert_string_equal(GAS(&g, "pred"), want);
        igraph_destroy(&g);
        snprintf(path, sizeof path, "%s/esol.svg", dir);
        size_t len;
        char *doc = (char *)ag_test_read_file(path, &len);
        snprintf(header, sizeof header, ">prediction: %s; node colour", want);
        if (!strstr(doc, header)) fail_msg("no '%s' in the drawing's header", header);
        free(doc);
    }
}

/* Trains a node model on DIR/FILE, a graph STEM.gml or STEM.graphml (label attribute label; opts:
 * the other options, NULL for a one-epoch small model without the names), runs explain on it with
 * -o DIR/STEM-attn.gml and --svg, and returns the SVG's text (to free), checked well-formed, its
 * <circle> count in *circles (when not NULL). */
static char *train_and_draw(const char *file, const char *label, const char *opts, int64_t *circles) {
    char args[1400], why[256], svg[256], stem[128];
    snprintf(stem, sizeof stem, "%.*s", (int)(strrchr(file, '.') - file), file);
    snprintf(args, sizeof args, "train %s/%s --label-attr %s %s --threads 1 --quiet -o %s/%s.safetensors", dir, file,
             label, opts ? opts : "--exclude-attrs name --epochs 1 --hidden 8 --layers 1 --heads 2", dir, stem);
    train(args);
    ag_cli_run_t r;
    snprintf(svg, sizeof svg, "%s/%s.svg", dir, stem);
    snprintf(args, sizeof args, "explain --model %s/%s.safetensors %s/%s -o %s/%s-attn.gml --svg %s", dir, stem, dir,
             file, dir, stem, svg);
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    if (!ag_xml_check(doc, "circle", circles, why, sizeof why)) fail_msg("%s: %s", svg, why);
    return doc;
}

/* The lengths of the straight strokes of doc ("<path d=\"Mx yLx y\"...<title>u-v: ..."; the
 * curves of parallel copies left out): the one joining vertices a and b into *ab (-1 when none),
 * the others into rest (at most max); returns how many went into rest. */
static int stroke_lengths(const char *doc, int a, int b, double *ab, double *rest, int max) {
    int n = 0;
    *ab = -1.0;
    for (const char *q = doc; (q = strstr(q, "<path d=\"M")) != NULL; q++) {
        double x1, y1, x2, y2;
        int u, v;
        if (sscanf(q, "<path d=\"M%lf %lfL%lf %lf", &x1, &y1, &x2, &y2) != 4) continue;
        const char *t = strstr(q, "<title>");
        assert_non_null(t);
        assert_int_equal(sscanf(t, "<title>%d-%d", &u, &v), 2);
        if ((u == a && v == b) || (u == b && v == a)) {
            *ab = hypot(x2 - x1, y2 - y1);
        } else {
            assert_true(n < max);
            rest[n++] = hypot(x2 - x1, y2 - y1);
        }
    }
    return n;
}

static int by_value(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The next number below n of a fixed linear congruential sequence: the same graphs on every run
 * and platform. */
static int lcg_next(uint64_t *seed, int n) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((*seed >> 33) % (uint64_t)n);
}

/* ne edges into ends over vertices 0 to nv - 1: a random tree, so that they are connected, then
 * random edges (no self-loops). */
static void random_connected(uint64_t *seed, int nv, int ne, int (*ends)[2]) {
    int k = 0;
    for (int v = 1; v < nv; v++) {
        ends[k][0] = lcg_next(seed, v);
        ends[k++][1] = v;
    }
    while (k < ne) {
        int a = lcg_next(seed, nv), b = lcg_next(seed, nv);
        if (a != b) {
            ends[k][0] = a;
            ends[k++][1] = b;
        }
    }
}

/* Writes dir/name: random_connected's graph of nv vertices and ne edges from seed (its edges into
 * ends, ne x 2), the vertices with attributes x (v % 5) and group (v % 2); then trains a small
 * model on group and returns explain's SVG of it (train_and_draw). */
static char *draw_random_connected(const char *name, uint64_t seed, int nv, int ne, int (*ends)[2]) {
    random_connected(&seed, nv, ne, ends);
    char gml[256];
    FILE *f = create_in_dir(gml, sizeof gml, name);
    fputs("graph [\n directed 0\n", f);
    for (int v = 0; v < nv; v++) fprintf(f, " node [ id %d x %d group %d ]\n", v, v % 5, v % 2);
    for (int e = 0; e < ne; e++) fprintf(f, " edge [ source %d target %d ]\n", ends[e][0], ends[e][1]);
    fputs("]\n", f);
    fclose(f);
    return train_and_draw(name, "group", "--epochs 1 --hidden 8 --layers 1 --heads 2", NULL);
}

/* A 400-vertex component beside one lone edge and five isolated vertices, the ids shuffled: the
 * lone edge is drawn at the large component's scale, within a factor of 2 of its median edge.
 * Kamada-Kawai run on the whole graph drew it 634 px long beside a median of 81 px on the first
 * of these two graphs, and 8 px beside 115 px on the second. */
static void test_explain_component_scale(void **state) {
    (void)state;
    enum { NV = 400, NE = 1000, NT = NV + 7 };
    static int perm[NT], ends[NE + 1][2];
    static const uint64_t seeds[2] = {1, 6};
    for (int g = 0; g < 2; g++) {
        uint64_t seed = seeds[g];
        for (int v = 0; v < NT; v++) perm[v] = v;
        for (int v = NT - 1; v > 0; v--) {
            int k = lcg_next(&seed, v + 1), t = perm[v];
            perm[v] = perm[k];
            perm[k] = t;
        }
        random_connected(&seed, NV, NE, ends);
        int ne = NE;
        ends[ne][0] = NV; /* the lone edge; ids NV + 2 to NV + 6 have none */
        ends[ne++][1] = NV + 1;
        char gml[256];
        FILE *f = create_in_dir(gml, sizeof gml, "scale.gml");
        fputs("graph [\n directed 0\n", f);
        for (int v = 0; v < NT; v++) fprintf(f, " node [ id %d x %d group %d ]\n", v, v % 5, v % 2);
        for (int e = 0; e < ne; e++) fprintf(f, " edge [ source %d target %d ]\n", perm[ends[e][0]], perm[ends[e][1]]);
        fputs("]\n", f);
        fclose(f);
        char *doc = train_and_draw("scale.gml", "group", "--epochs 1 --hidden 8 --layers 1 --heads 2", NULL);
        static double rest[NE];
        double lone;
        int n = stroke_lengths(doc, perm[NV], perm[NV + 1], &lone, rest, NE);
        free(doc);
        assert_true(n > NE / 2); /* parallel copies are curves, not counted */
        assert_true(lone > 0.0);
        qsort(rest, (size_t)n, sizeof *rest, by_value);
        double median = rest[n / 2];
        if (lone < 0.5 * median || lone > 2.0 * median)
            fail_msg("graph %d: the lone edge is %.1f px long, the large component's median edge %.1f px", g, lone,
                     median);
    }
}

/* A 200-vertex component on which Kamada-Kawai from a circle stops with one vertex flung out
 * (its longest edge 4.6 mean lengths, the rest squeezed beside it): drawn with no edge longer than
 * 3 mean lengths. The graph is the first of this generator's 200 seeds to come out so. */
static void test_explain_no_flung_vertex(void **state) {
    (void)state;
    enum { NV = 200, NE = 249 };
    static int ends[NE][2];
    char *doc = draw_random_connected("flung.gml", 30, NV, NE, ends);
    static double len[NE];
    double none;
    int n = stroke_lengths(doc, -1, -1, &none, len, NE);
    free(doc);
    assert_true(n > NE / 2);
    double sum = 0.0, longest = 0.0;
    for (int i = 0; i < n; i++) {
        sum += len[i];
        longest = fmax(longest, len[i]);
    }
    if (longest > 3.0 * sum / n) fail_msg("the longest edge is %.1f px, the mean %.1f px", longest, sum / n);
}

/* A connected graph of 1,500 vertices, drawn by Fruchterman-Reingold: its vertices are at a
 * median of at least 3 radii from their nearest neighbour (4.2 here; a 400-vertex part of LastFM
 * Asia has 5.9), on a canvas under 4,100 px. Held to the 1200 px square of any graph over 300
 * vertices, this graph had 1.9 radii on 969 x 1006 px, overlapping circles. */
static void test_explain_large_component_room(void **state) {
    (void)state;
    enum { NV = 1500, NE = 3000 };
    static int ends[NE][2];
    char *doc = draw_random_connected("large.gml", 7, NV, NE, ends);
    double width = 0.0, height = 0.0;
    const char *svg = strstr(doc, "<svg ");
    assert_non_null(svg);
    assert_int_equal(sscanf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf\" height=\"%lf\"", &width,
                            &height), 2);
    static double cx[NV + 1], cy[NV + 1], nearest[NV];
    double rad = 0.0;
    int n = 0;
    for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++) {
        double rr;
        assert_true(n <= NV); /* a legend dot read into the slot after the last vertex's is not kept */
        assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &cx[n], &cy[n], &rr), 3);
        if (rr != 5.0) rad = rr; /* not a legend dot */
        n += rr != 5.0;
    }
    free(doc);
    assert_int_equal(n, NV);
    for (int i = 0; i < n; i++) {
        nearest[i] = INFINITY;
        for (int j = 0; j < n; j++)
            if (j != i) nearest[i] = fmin(nearest[i], hypot(cx[j] - cx[i], cy[j] - cy[i]));
    }
    qsort(nearest, (size_t)n, sizeof *nearest, by_value);
    if (nearest[n / 2] < 3.0 * rad)
        fail_msg("median nearest-neighbour distance %.1f px under %.1f px circles, canvas %.0f x %.0f", nearest[n / 2],
                 rad, width, height);
    assert_true(width < 4100.0 && height < 4100.0);
}

/* Writes dir/name: a ring of nv vertices with attributes x (v % 3) and club (v % 2), and with chords
 * a second edge per vertex, to v * 7 + 3. */
static void ring_gml(const char *name, int nv, int chords) {
    char gml[256];
    FILE *f = create_in_dir(gml, sizeof gml, name);
    fputs("graph [\n directed 0\n", f);
    for (int v = 0; v < nv; v++) fprintf(f, " node [ id %d x %d club %d ]\n", v, v % 3, v % 2);
    for (int v = 0; v < nv; v++) {
        fprintf(f, " edge [ source %d target %d ]\n", v, (v + 1) % nv);
        if (chords)
            fprintf(f, " edge [ source %d target %d ]\n", v, (v * 7 + 3) % nv == v ? (v + 2) % nv : (v * 7 + 3) % nv);
    }
    fputs("]\n", f);
    fclose(f);
}

/* Above 2000 vertices the circles have a radius of 2 px: their outline is a quarter of it, so that
 * the class colour fills most of each circle (a 1-px outline left a 1.5-px dot of colour). */
static void test_explain_small_circles_outline(void **state) {
    (void)state;
    enum { NV = 2100 };
    ring_gml("many.gml", NV, 0);
    char *doc = train_and_draw("many.gml", "club", "--epochs 1 --hidden 8 --layers 1 --heads 2", NULL);
    const char *circle = strstr(doc, "\" r=\"2.0\"");
    assert_non_null(circle);
    const char *group = strstr(doc, "<g stroke=\"#333333\" stroke-width=\"");
    assert_non_null(group);
    assert_true(group < circle);
    double width = 0.0;
    assert_int_equal(sscanf(group, "<g stroke=\"#333333\" stroke-width=\"%lf", &width), 1);
    assert_true(width <= 0.5 + 1e-9);
    free(doc);
}

/* How many names the line under a drawing says were left to the tooltips (0 without the line). */
static long hidden_names(const char *doc) {
    const char *note = strstr(doc, " names not written where they would cross");
    if (!note) return 0;
    while (note > doc && note[-1] != '>') note--;
    return strtol(note, NULL, 10);
}

/* Names beside their circles on a crowded drawing: none crosses another name or another vertex's
 * circle (by the drawing's own width estimate), every name is either written or counted in the
 * line under the drawing, and the names come after the last circle. */
static void test_explain_names_do_not_cross(void **state) {
    (void)state;
    enum { NV = 160 };
    char gml[256];
    snprintf(gml, sizeof gml, "%s/crowd.gml", dir);
    FILE *f = fopen(gml, "w");
    assert_non_null(f);
    fputs("graph [\n directed 0\n", f);
    for (int v = 0; v < NV; v++)
        fprintf(f, " node [ id %d name \"account %04d\" x %d club %d ]\n", v, v, v % 3, v % 2);
    for (int v = 0; v < NV; v++) {
        fprintf(f, " edge [ source %d target %d ]\n", v, (v + 1) % NV);
        fprintf(f, " edge [ source %d target %d ]\n", v, (v * 7 + 3) % NV == v ? (v + 2) % NV : (v * 7 + 3) % NV);
    }
    fputs("]\n", f);
    fclose(f);
    char *doc = train_and_draw("crowd.gml", "club", NULL, NULL);
    static double cx[NV + 8], cy[NV + 8], bx0[NV], by0[NV], bx1[NV], by1[NV];
    double rad = 0;
    int nc = 0, nb = 0;
    const char *last_circle = NULL;
    for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++) {
        double rr;
        assert_true(nc < NV + 8);
        assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &cx[nc], &cy[nc], &rr), 3);
        if (rr != 5) rad = rr; /* not a legend dot */
        if (rr != 5) last_circle = q;
        nc += rr != 5;
    }
    assert_int_equal(nc, NV);
    for (const char *q = doc; (q = strstr(q, "paint-order=\"stroke\"")) != NULL; q++) {
        const char *t = q;
        while (t > doc && strncmp(t, "<text ", 6) != 0) t--;
        assert_true(t > last_circle);
        double x, y, px;
        assert_int_equal(sscanf(t, "<text x=\"%lf\" y=\"%lf\" font-size=\"%lf\"", &x, &y, &px), 3);
        const char *gt = strchr(q, '>'), *end = strstr(q, "</text>");
        double w = 0.62 * px * (double)(end - gt - 1);
        int left = strstr(t, "text-anchor=\"end\"") && strstr(t, "text-anchor=\"end\"") < gt;
        assert_true(nb < NV);
        bx0[nb] = left ? x - w : x;
        bx1[nb] = left ? x : x + w;
        by0[nb] = y - px;
        by1[nb] = y;
        for (int k = 0; k < nb; k++)
            if (bx0[nb] < bx1[k] - 0.5 && bx0[k] < bx1[nb] - 0.5 && by0[nb] < by1[k] - 0.5 && by0[k] < by1[nb] - 0.5)
                fail_msg("name at %.1f,%.1f crosses the one at %.1f,%.1f", x, y, bx0[k], by1[k]);
        for (int c = 0; c < nc; c++) { /* its own circle included: a name starts 2 px beyond the rim */
            double dx = fmax(fmax(bx0[nb] - cx[c], cx[c] - bx1[nb]), 0);
            double dy = fmax(fmax(by0[nb] - cy[c], cy[c] - by1[nb]), 0);
            if (dx * dx + dy * dy < (rad - 0.5) * (rad - 0.5)) fail_msg("name at %.1f,%.1f crosses a circle", x, y);
        }
        nb++;
    }
    long hidden = hidden_names(doc);
    if (nb + hidden != NV) fail_msg("%d names written and %ld counted as hidden, of %d", nb, hidden, NV);
    assert_true(nb > NV / 4); /* most of a readable drawing's names are still there */
    free(doc);
}

/* Names inside circles are readable: on a 250-vertex drawing (8-px circles) labelled by GML ids,
 * every name inside a circle is at least 8 px (ids 100 and up were 6 px), and the three-digit ids,
 * too wide for a circle at 8 px, are beside their circles or counted as left to the tooltips. */
static void test_explain_label_size(void **state) {
    (void)state;
    enum { NV = 250 };
    ring_gml("ids250.gml", NV, 1);
    char *doc = train_and_draw("ids250.gml", "club", "--epochs 1 --hidden 8 --layers 1 --heads 2", NULL);
    int inside = 0, beside = 0;
    for (const char *q = doc; (q = strstr(q, "<text x=\"")) != NULL; q++) {
        const char *gt = strchr(q, '>'), *mid = strstr(q, "text-anchor=\"middle\""), *halo = strstr(q, "paint-order");
        double x, y, px;
        char name[32];
        if (sscanf(q, "<text x=\"%lf\" y=\"%lf\" font-size=\"%lf\"", &x, &y, &px) != 3) continue;
        if (sscanf(gt + 1, "%31[^<]", name) != 1) continue;
        if (mid && mid < gt) {
            if (px < 8.0) fail_msg("name '%s' inside its circle at %.0f px", name, px);
            if (strlen(name) > 2) fail_msg("name '%s' inside an 8-px circle", name);
            inside++;
        } else if (halo && halo < gt) {
            if (px < 8.0) fail_msg("name '%s' beside its circle at %.0f px", name, px);
            assert_int_equal(strlen(name), 3);
            beside++;
        }
    }
    long hidden = hidden_names(doc);
    assert_int_equal(inside, 100);
    if (beside + hidden != NV - 100) fail_msg("%d three-digit names beside, %ld hidden, of %d", beside, hidden, NV - 100);
    assert_true(beside > hidden);
    free(doc);
}

/* Hue in degrees and saturation (HSV) of "#rrggbb" at s. */
static void hue_of(const char *s, double *hue, double *sat) {
    unsigned ri = 0, gi = 0, bi = 0;
    assert_int_equal(sscanf(s, "#%2x%2x%2x", &ri, &gi, &bi), 3);
    const double r = ri, g = gi, b = bi;
    const double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn;
    *sat = mx > 0 ? d / mx : 0;
    double h = 0;
    if (d > 0) h = mx == r ? fmod((g - b) / d, 6.0) : mx == g ? (b - r) / d + 2 : (r - g) / d + 4;
    *hue = fmod(60 * h + 360, 360);
}

static void test_explain_legend(void **state) {
    (void)state;
    char gml[256];
    snprintf(gml, sizeof gml, "%s/classes.gml", dir);
    FILE *f = fopen(gml, "w");
    assert_non_null(f);
    fputs("graph [\n directed 0\n", f);
    for (int v = 0; v < 44; v++)
        fprintf(f, " node [ id %d name \"member number %d of the club\" x %d topic \"topic number %02d, a long "
                   "class name\" ]\n", v, v, v % 5, v % 22);
    for (int v = 0; v < 44; v++) fprintf(f, " edge [ source %d target %d ]\n", v, (v + 1) % 44);
    fputs("]\n", f);
    fclose(f);
    /* trained on every vertex, names as identity features: every class is predicted */
    char opts[400] = "--epochs 200 --train-nodes 0";
    for (int v = 1; v < 44; v++) snprintf(opts + strlen(opts), sizeof opts - strlen(opts), ",%d", v);
    int64_t circles;
    char *doc = train_and_draw("classes.gml", "topic", opts, &circles);
    assert_int_equal(circles, 44 + 20);
    double width = 0, height = 0;
    assert_int_equal(sscanf(doc, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf\" height=\"%lf\"", &width,
                            &height), 2);
    assert_non_null(strstr(doc, ">(22 classes; those past 20 not listed, their colours repeat)</text>"));
    assert_non_null(strstr(doc, ">topic number 00, a long\xE2\x80\xA6</text>")); /* 24 characters */
    assert_non_null(strstr(doc, "<title>topic number 00, a long class name</title>"));
    assert_non_null(strstr(doc, ">member number 1\xE2\x80\xA6</text>")); /* 16 characters */
    assert_null(strstr(doc, "of the club</text>"));
    /* every legend circle and every text's start inside the canvas; the legend takes 3 rows */
    double max_cy = 0;
    int legend = 0;
    for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++) {
        double cx, cy, rr;
        assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &cx, &cy, &rr), 3);
        assert_true(cx - rr >= 0 && cx + rr <= width && cy + rr <= height);
        if (rr == 5) {
            legend++;
            if (cy > max_cy) max_cy = cy;
        }
    }
    assert_int_equal(legend, 20);
    assert_true(max_cy > 48 + 2 * 16 - 1);
    /* no class wears the hue of the attention edges (grey to red): a red class vanished among them */
    double edge_hue = -1, h, sat;
    for (const char *q = doc; (q = strstr(q, "<path d=\"")) != NULL; q++) {
        const char *st = strstr(q, "stroke=\"#");
        hue_of(st + 8, &h, &sat);
        if (sat > 0.3) edge_hue = h;
    }
    assert_true(edge_hue >= 0);
    for (const char *q = doc; (q = strstr(q, "r=\"5\" fill=\"#")) != NULL; q++) {
        hue_of(q + 12, &h, &sat);
        const double apart = fmin(fabs(h - edge_hue), 360 - fabs(h - edge_hue));
        if (sat > 0.3 && apart < 10) fail_msg("legend colour %.7s: hue %.0f, the edges' %.0f", q + 12, h, edge_hue);
    }
    for (const char *q = doc; (q = strstr(q, "<text x=\"")) != NULL; q++) {
        double x;
        assert_int_equal(sscanf(q, "<text x=\"%lf\"", &x), 1);
        const char *gt = strchr(q, '>'), *end = strstr(q, "</text>");
        /* 0.62 em per character (the drawing's estimate) must still end inside */
        double px = 11;
        const char *fs = strstr(q, "font-size=\"");
        if (fs && fs < gt) px = atof(fs + 11);
        int chars = 0;
        for (const char *c = gt + 1; c < end; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
        /* the legend's names and the labels beside circles (the header lines at x 10 are the
         * caption's, as long as the file's name) */
        int centred = strstr(q, "text-anchor=\"middle\"") && strstr(q, "text-anchor=\"middle\"") < gt;
        int ends = strstr(q, "text-anchor=\"end\"") && strstr(q, "text-anchor=\"end\"") < gt;
        if (ends && x - 0.62 * px * chars < -1)
            fail_msg("text ending at x %.1f, %d characters of %.0f px, starts left of the canvas", x, chars, px);
        if (!centred && !ends && x > 10.5 && x + 0.62 * px * chars > width + 1)
            fail_msg("text at x %.1f, %d characters of %.0f px, ends past the width %.0f", x, chars, px, width);
    }
    free(doc);

    /* one epoch without the names: a few classes predicted, and those are what the legend lists,
     * each vertex in its class's legend colour */
    doc = train_and_draw("classes.gml", "topic", NULL, &circles);
    char out[256];
    snprintf(out, sizeof out, "%s/classes-attn.gml", dir);
    igraph_t g;
    read_back(&g, out, 0);
    char colour_of[22][8];
    memset(colour_of, 0, sizeof colour_of);
    int predicted = 0;
    for (int v = 0; v < 44; v++) {
        int k = atoi(VAS(&g, "pred", v) + strlen("topic number "));
        predicted += colour_of[k][0] == 0;
        colour_of[k][0] = '?';
    }
    assert_true(predicted < 20);
    assert_int_equal(circles, 44 + predicted);
    char want[128];
    snprintf(want, sizeof want, ">(the %d class%s predicted here, of the model's 22)</text>", predicted,
             predicted == 1 ? "" : "es");
    assert_non_null(strstr(doc, want));
    int legend_seen = 0;
    for (const char *q = doc; (q = strstr(q, "r=\"5\" fill=\"")) != NULL; q++) {
        const char *t = strstr(q, "<title>topic number ");
        assert_non_null(t);
        int k = atoi(t + strlen("<title>topic number "));
        assert_int_equal(colour_of[k][0], '?'); /* a predicted class */
        memcpy(colour_of[k], q + strlen("r=\"5\" fill=\""), 7);
        legend_seen++;
    }
    assert_int_equal(legend_seen, predicted);
    for (int v = 0; v < 44; v++) {
        char title[64];
        snprintf(title, sizeof title, " (vertex %d): attention", v);
        const char *t = strstr(doc, title), *c = t;
        assert_non_null(t);
        while (strncmp(c, "fill=\"", 6) != 0) c--;
        int k = atoi(VAS(&g, "pred", v) + strlen("topic number "));
        if (strncmp(c + 6, colour_of[k], 7) != 0) fail_msg("vertex %d (class %d) not in its legend colour", v, k);
    }
    igraph_destroy(&g);
    free(doc);
}

/* A GraphML file whose vertices have only their node ids (igraph's string attribute 'id'): the
 * drawing names them by those ids, in the names beside the circles and in the tooltips, as label
 * prints them, rather than by index. */
static void test_explain_graphml_ids(void **state) {
    (void)state;
    static const char *const ids[6] = {"alice", "bob", "carol", "dave", "erin", "frank"};
    char path[256];
    FILE *f = create_in_dir(path, sizeof path, "ids.graphml");
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
          "<key id=\"x\" for=\"node\" attr.name=\"x\" attr.type=\"double\"/>\n"
          "<key id=\"g\" for=\"node\" attr.name=\"group\" attr.type=\"string\"/>\n"
          "<graph edgedefault=\"undirected\">\n", f);
    for (int v = 0; v < 6; v++)
        fprintf(f, "<node id=\"%s\"><data key=\"x\">%d</data><data key=\"g\">%s</data></node>\n", ids[v], v % 2,
                v < 3 ? "a" : "b");
    for (int v = 0; v < 6; v++) fprintf(f, "<edge source=\"%s\" target=\"%s\"/>\n", ids[v], ids[(v + 1) % 6]);
    fputs("</graph>\n</graphml>\n", f);
    fclose(f);
    char *doc = train_and_draw("ids.graphml", "group", "--epochs 1 --hidden 8 --layers 1 --heads 2", NULL);
    for (int v = 0; v < 6; v++) {
        char want[64];
        snprintf(want, sizeof want, "<title>%s (vertex %d): ", ids[v], v);
        if (!strstr(doc, want)) fail_msg("no tooltip '%s'", want);
        snprintf(want, sizeof want, ">%s</text>", ids[v]);
        if (!strstr(doc, want)) fail_msg("no name '%s'", want);
    }
    free(doc);
}

/* Usage errors exit 2, a bad or missing model exits 4, --help exits 0; one line on stderr. */
static void test_bad_options_and_models(void **state) {
    (void)state;
    const char *usage[] = {"classify", "classify --bogus x.gml", "classify --threads 0 x.gml",
                           "classify --format nope x.gml", "classify --model", "label", "label a.gml b.gml",
                           "label --layer 1 a.gml", "explain", "explain a.gml", "explain a.gml -o x.csv",
                           "explain a.gml -o x.gml --svg x.png"};
    for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
        ag_cli_run_t r;
        ag_cli_run(&r, NULL, usage[i]);
        if (r.code != 2) fail_msg("'%s': exit %d, not 2: %s", usage[i], r.code, r.err);
        assert_int_equal(ag_cli_count_lines(r.err), 1);
    }
    const char *help[] = {"classify --help", "label --help", "explain --help"};
    for (size_t i = 0; i < 3; i++) {
        ag_cli_run_t r;
        ag_cli_run(&r, NULL, help[i]);
        assert_int_equal(r.code, 0);
        assert_non_null(strstr(r.out, "usage: attn-graph "));
        assert_non_null(strstr(r.out, "Exit codes"));
    }
    char bad[256];
    snprintf(bad, sizeof bad, "%s/bad.safetensors", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("this is not a model\n", f);
    fclose(f);
    char args[1024];
    const char *cmds[3] = {"classify --model %s graphs/molecules/aspirin.gml", "label --model %s graphs/social/karate.gml",
                           "explain --model %s graphs/molecules/aspirin.gml -o %s/x.gml"};
    for (int i = 0; i < 3; i++) {
        ag_cli_run_t r;
        snprintf(args, sizeof args, cmds[i], bad, dir);
        ag_cli_run(&r, NULL, args);
        assert_int_equal(r.code, 4);
        assert_int_equal(ag_cli_count_lines(r.err), 1);
        snprintf(args, sizeof args, cmds[i], "no/such/model.safetensors", dir);
        ag_cli_run(&r, NULL, args);
        assert_int_equal(r.code, 4);
    }
    /* a node model for classify */
    ag_cli_run_t r;
    snprintf(args, sizeof args, "classify --model %s graphs/molecules/aspirin.gml", karate);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 4);
    assert_non_null(strstr(r.err, "use 'attn-graph label'"));
    /* the default model: looked up in $ATTN_GRAPH_MODELS first (the karate model is there) */
    setenv("ATTN_GRAPH_MODELS", dir, 1);
    ag_cli_run_t d;
    ag_cli_run(&d, NULL, "label graphs/social/karate.gml");
    snprintf(args, sizeof args, "label --model %s graphs/social/karate.gml", karate);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(d.code, 0);
    assert_string_equal(d.out, r.out);
    /* and the missing default molecule model is one clear line, exit 4 */
    ag_cli_run(&d, NULL, "classify graphs/molecules/aspirin.gml");
    unsetenv("ATTN_GRAPH_MODELS");
    if (d.code == 4) {
        assert_int_equal(ag_cli_count_lines(d.err), 1);
        assert_non_null(strstr(d.err, "tox21.safetensors"));
    } else {
        assert_int_equal(d.code, 0); /* a shipped model exists in the source tree */
    }
}

/* Output names of letters and digits: "Case_Based" gives probCaseBased in CSV, GML and GraphML
 * alike; class names that would collide once reduced ("a-b", "ab") or vanish ("--") are named by
 * their index; label --json keeps the class names as they are. */
static void test_label_names(void **state) {
    (void)state;
    const char *sets[2][3] = {{"Case_Based", "Neural Networks", "Theory"}, {"a-b", "ab", "--"}};
    const char *heads[2] = {"vertex,id,pred,probCaseBased,probNeuralNetworks,probTheory\n",
                            "vertex,id,pred,prob0,prob1,prob2\n"};
    for (int k = 0; k < 2; k++) {
        char gml[256], model[256], args[1024];
        snprintf(gml, sizeof gml, "%s/names%d.gml", dir, k);
        snprintf(model, sizeof model, "%s/names%d.safetensors", dir, k);
        FILE *f = fopen(gml, "w");
        assert_non_null(f);
        fprintf(f, "graph [\n  directed 0\n");
        for (int v = 0; v < 9; v++) fprintf(f, "  node [ id %d topic \"%s\" ]\n", v, sets[k][v % 3]);
        for (int v = 0; v < 9; v++) fprintf(f, "  edge [ source %d target %d ]\n", v, (v + 1) % 9);
        fprintf(f, "]\n");
        fclose(f);
        snprintf(args, sizeof args,
                 "train %s --label-attr topic --degree --split-random 1,0 --epochs 1 --hidden 4 --layers 1 --heads 1 "
                 "--threads 1 --quiet -o %s", gml, model);
        train(args);
        ag_cli_run_t r;
        snprintf(args, sizeof args, "label --model %s %s", model, gml);
        ag_cli_run(&r, NULL, args);
        assert_int_equal(r.code, 0);
        assert_memory_equal(r.out, heads[k], strlen(heads[k]));
        snprintf(args, sizeof args, "label --json --model %s %s", model, gml);
        ag_cli_run(&r, NULL, args);
        assert_int_equal(r.code, 0);
        char key[64];
        snprintf(key, sizeof key, "\"%s\": ", sets[k][1]);
        assert_non_null(strstr(r.out, key));
        /* -o OUT.jsonl: those lines; -o OUT.json: the same objects as one array's elements */
        char jpath[256];
        snprintf(jpath, sizeof jpath, "%s/names%d.jsonl", dir, k);
        snprintf(args, sizeof args, "label --model %s %s -o %s", model, gml, jpath);
        ag_cli_run_t w;
        ag_cli_run(&w, NULL, args);
        assert_int_equal(w.code, 0);
        size_t n;
        char *text = (char *)ag_test_read_file(jpath, &n);
        assert_int_equal(n, strlen(r.out));
        assert_memory_equal(text, r.out, n);
        free(text);
        snprintf(jpath, sizeof jpath, "%s/names%d.json", dir, k);
        snprintf(args, sizeof args, "label --json --model %s %s -o %s", model, gml, jpath);
        ag_cli_run(&w, NULL, args);
        assert_int_equal(w.code, 0);
        text = (char *)ag_test_read_file(jpath, &n);
        char want[8192];
        size_t used = 0;
        used += (size_t)snprintf(want, sizeof want, "[\n");
        for (const char *line = r.out; *line; line = strchr(line, '\n') + 1) {
            const char *nl = strchr(line, '\n');
            used += (size_t)snprintf(want + used, sizeof want - used, "%.*s%s\n", (int)(nl - line), line,
                                     nl[1] ? "," : "");
        }
        used += (size_t)snprintf(want + used, sizeof want - used, "]\n");
        assert_true(used < sizeof want);
        assert_int_equal(n, used);
        assert_memory_equal(text, want, n);
        free(text);
        const char *exts[2] = {"gml", "graphml"};
        for (int x = 0; x < 2; x++) {
            char out[256];
            snprintf(out, sizeof out, "%s/labelled%d.%s", dir, k, exts[x]);
            snprintf(args, sizeof args, "label --model %s %s -o %s", model, gml, out);
            ag_cli_run(&r, NULL, args);
            assert_int_equal(r.code, 0);
            igraph_t g;
            read_back(&g, out, x == 1);
            for (int c = 0; c < 3; c++) {
                char name[64];
                static const char *const reduced[3] = {"CaseBased", "NeuralNetworks", "Theory"};
                if (k == 0) snprintf(name, sizeof name, "prob%s", reduced[c]);
                else snprintf(name, sizeof name, "prob%d", c);
                if (!igraph_cattribute_has_attr(&g, IGRAPH_ATTRIBUTE_VERTEX, name)) fail_msg("%s: no %s", out, name);
            }
            igraph_destroy(&g);
        }
    }
}

/* label's and explain's outputs: never an input (the node table and the graph were overwritten),
 * never over a FIFO or a device (the rename replaced it), through a symbolic link to its file. */
static void test_outputs_guarded(void **state) {
    (void)state;
    char d[256], args[1024], want[1024], path[320];
    assert_int_equal(ag_test_temp_dir(d, sizeof d, "cli_outputs", 0), 0);
    size_t n;
    char *graph = (char *)ag_test_read_file(AG_SOURCE_DIR "/graphs/social/karate.gml", &n);
    ag_test_write_text(d, "k.gml", graph);
    free(graph);
    ag_cli_run_t r;
    snprintf(args, sizeof args, "label --model %s %s/k.gml -o %s/./k.gml", karate, d, d);
    ag_cli_run(&r, NULL, args);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attn-graph: label: -o %s/./k.gml is also the graph read: it would be overwritten; "
             "give another file\n", d);
    assert_string_equal(r.err, want);
    /* the model, through a link named as a table */
    snprintf(path, sizeof path, "%s/m.csv", d);
    assert_int_equal(symlink(karate, path), 0);
    ag_cli_run(&r, d, "label --model m.csv k.gml -o m.csv");
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attn-graph: label: -o m.csv is also --model: it would be overwritten; give another "
                               "file\n");
    unlink(path);
    ag_cli_run(&r, d, "explain --model " AG_SOURCE_DIR "/graphs/models/tox21.safetensors "
               AG_SOURCE_DIR "/graphs/molecules/aspirin.gml -o a.gml --svg a.gml.svg --node-table a.gml.svg");
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attn-graph: explain: --svg a.gml.svg is also --node-table: it would be overwritten; "
                               "give another file\n");
    ag_cli_run(&r, d, "explain " AG_SOURCE_DIR "/graphs/molecules/aspirin.gml -o a.gml --svg a.svg");
    assert_int_equal(r.code, 0);
    ag_cli_run(&r, d, "explain a.gml -o a.gml");
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attn-graph: explain: -o a.gml is also the graph read: it would be overwritten; give "
                               "another file\n");
    /* a FIFO is refused before the model runs, and stays a FIFO */
    snprintf(path, sizeof path, "%s/pipe.svg", d);
    assert_int_equal(mkfifo(path, 0600), 0);
    ag_cli_run(&r, d, "explain " AG_SOURCE_DIR "/graphs/molecules/aspirin.gml -o b.gml --svg pipe.svg");
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "attn-graph: explain: cannot write pipe.svg: it is not a regular file (a device or a "
                               "FIFO), which the output, written beside it and renamed, would replace\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(path);
    /* a link is written through: it stays a link, its file gets the table and keeps its mode */
    assert_int_equal(mkdir(strcat(strcpy(path, d), "/res"), 0755), 0);
    ag_test_write_text(path, "real.csv", "old\n");
    assert_int_equal(chmod(strcat(path, "/real.csv"), 0640), 0);
    assert_int_equal(symlink("res/real.csv", strcat(strcpy(path, d), "/out.csv")), 0);
    snprintf(args, sizeof args, "label --model %s k.gml -o out.csv", karate);
    ag_cli_run(&r, d, args);
    assert_int_equal(r.code, 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    ag_cli_run_t s;
    snprintf(args, sizeof args, "label --model %s k.gml", karate);
    ag_cli_run(&s, d, args);
    char *text = (char *)ag_test_read_file(strcat(strcpy(path, d), "/res/real.csv"), &n);
    assert_string_equal(text, s.out);
    free(text);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* a link to nothing: refused, nothing created */
    assert_int_equal(symlink("res/none.csv", strcat(strcpy(path, d), "/none.csv")), 0);
    snprintf(args, sizeof args, "label --model %s k.gml -o none.csv", karate);
    ag_cli_run(&r, d, args);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "attn-graph: label: cannot write none.csv: it is a symbolic link to res/none.csv, "
                               "which cannot be followed (No such file or directory)\n");
    assert_int_equal(ag_test_count_files(strcat(strcpy(path, d), "/res")), 1);
    assert_int_equal(ag_test_remove_dir(d), 0);
}

/* A graph-level model trained on graphs of 3 to 8 vertices: classify warns of a graph over twice
 * the largest (20 vertices) and one under half the smallest (1 vertex), once each, in the text
 * and in that file's --json "warnings", and not of one within (5); explain warns as classify does;
 * eval says once how many of the graphs scored lie outside. */
static void test_graph_size_warnings(void **state) {
    (void)state;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sizes", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    ag_test_train_sized_model(sub);
    ag_test_write_path_gml(sub, "p20.gml", 20, 0);
    ag_test_write_path_gml(sub, "p1.gml", 1, 0);
    ag_cli_run_t r;
    ag_cli_run_ok(&r, "classify --threads 1 --model %s/sizes.safetensors %s/p20.gml %s/c5.gml %s/p1.gml", sub, sub,
                  sub, sub);
    assert_int_equal(ag_cli_count_lines(r.out), 3);
    char want[512];
    snprintf(want, sizeof want, "attn-graph: warning: %s/p20.gml has 20 vertices, more than twice the largest "
             "training graph's 8 (the model was trained on graphs of 3 to 8 vertices and 2 to 7 edges): its prediction "
             "is an extrapolation, which may be confident and wrong\n", sub);
    assert_non_null(strstr(r.err, want));
    snprintf(want, sizeof want, "attn-graph: warning: %s/p1.gml has 1 vertex, fewer than half the smallest training "
             "graph's 3 (the model was trained on graphs of 3 to 8 vertices and 2 to 7 edges): its prediction is an "
             "extrapolation", sub);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(count_of(r.err, "extrapolation"), 2);
    assert_null(strstr(r.err, "c5.gml"));
    /* --json: the warning travels with its file's object, and only with it */
    ag_cli_run_ok(&r, "classify --json --threads 1 --model %s/sizes.safetensors %s/p20.gml %s/c5.gml", sub, sub, sub);
    ag_test_assert_json_lines(r.out, 2);
    const char *second = strchr(r.out, '\n') + 1;
    const char *w = strstr(r.out, "\"warnings\": [\"");
    assert_non_null(w);
    assert_true(w < second);
    assert_non_null(strstr(w, "p20.gml has 20 vertices, more than twice the largest training graph's 8"));
    assert_true(strstr(w, "extrapolation") < second);
    assert_null(strstr(second, "extrapolation"));
    /* explain */
    ag_cli_run_ok(&r, "explain --threads 1 --model %s/sizes.safetensors %s/p20.gml -o %s/p20-out.gml", sub, sub, sub);
    assert_int_equal(count_of(r.err, "p20.gml has 20 vertices, more than twice the largest training graph's 8"), 1);
    ag_cli_run_ok(&r, "explain --threads 1 --model %s/sizes.safetensors %s/c5.gml -o %s/c5-out.gml", sub, sub, sub);
    assert_null(strstr(r.err, "extrapolation"));
    /* eval: one line for the graphs scored */
    ag_test_write_text(sub, "far.csv", "file,label\np20.gml,0\nc5.gml,1\np1.gml,0\n");
    ag_cli_run_ok(&r, "eval --threads 1 --model %s/sizes.safetensors --labels %s/far.csv --part all", sub, sub);
    assert_int_equal(count_of(r.err, "extrapolation"), 1);
    assert_non_null(strstr(r.err, "attn-graph: warning: eval: 2 of the 3 graphs scored lie far outside the sizes the "
                                  "model was trained on (e.g. p20.gml: 20 vertices, more than twice the largest training "
                                  "graph's 8; it was trained on graphs of 3 to 8 vertices and 2 to 7 edges): their "
                                  "predictions are extrapolations"));
    ag_cli_run_ok(&r, "eval --json --threads 1 --model %s/sizes.safetensors --labels %s/far.csv --part all", sub, sub);
    assert_non_null(strstr(r.out, "\"warnings\": [\"eval: 2 of the 3 graphs scored lie far outside"));
    ag_cli_run_ok(&r, "eval --threads 1 --model %s/sizes.safetensors --labels %s/sizes.csv --part all", sub, sub);
    assert_null(strstr(r.err, "extrapolation"));
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_warning_handler(igraph_warning_handler_ignore); /* GraphML: "already an 'id' attribute" */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_lines),
        cmocka_unit_test(test_classify_multitask_json),
        cmocka_unit_test(test_classify_failures_and_stdin),
        cmocka_unit_test(test_unseen_warning),
        cmocka_unit_test(test_classify_json_warnings),
        cmocka_unit_test(test_eval_json_warnings),
        cmocka_unit_test(test_label),
        cmocka_unit_test(test_label_names),
        cmocka_unit_test(test_outputs_guarded),
        cmocka_unit_test(test_explain), cmocka_unit_test(test_explain_name_line_break),
        cmocka_unit_test(test_explain_directed),
        cmocka_unit_test(test_explain_legend),
        cmocka_unit_test(test_explain_graphml_ids),
        cmocka_unit_test(test_explain_fused_rings),
        cmocka_unit_test(test_explain_components_close),
        cmocka_unit_test(test_explain_isolated_close),
        cmocka_unit_test(test_explain_component_scale),
        cmocka_unit_test(test_explain_no_flung_vertex),
        cmocka_unit_test(test_explain_large_component_room),
        cmocka_unit_test(test_explain_small_circles_outline),
        cmocka_unit_test(test_explain_names_do_not_cross),
        cmocka_unit_test(test_explain_label_size),
        cmocka_unit_test(test_explain_regression_digits),
        cmocka_unit_test(test_graphml_control_chars),
        cmocka_unit_test(test_igraph_warning_line),
        cmocka_unit_test(test_bad_options_and_models),
        cmocka_unit_test(test_graph_size_warnings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
