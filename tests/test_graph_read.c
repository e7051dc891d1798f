/* Tests of reading graph files: every format of graphs/formats, format names and extensions, and
 * every error path with its code and a message naming the file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/graph.h>
#include "cli_testutil.h"

#define FORMATS AG_SOURCE_DIR "/graphs/formats/"
#define BROKEN AG_SOURCE_DIR "/tests/data/broken/"

/* The library's allocation-failure hooks (alloc.c), for tests only. */
void ag_i_alloc_fail_at(int64_t n);
int64_t ag_i_alloc_live(void);

/* graphs/formats/sample.*: one undirected graph, 5 nodes a..e, edges in this order. */
static const int sample_edges[6][2] = {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {3, 4}};

static void assert_sample(const char *file, ag_format_t format, const char *vertex_name_attr,
                          const char *edge_num_attr, const double *edge_values) {
    igraph_t ig;
    ag_error_t rc = ag_graph_read(&ig, file, format, 0);
    if (rc) fail_msg("%s: %s", file, ag_error_message());
    assert_int_equal(igraph_vcount(&ig), 5);
    assert_int_equal(igraph_ecount(&ig), 6);
    assert_false(igraph_is_directed(&ig));
    for (int e = 0; e < 6; e++) {
        igraph_integer_t u = IGRAPH_FROM(&ig, e), v = IGRAPH_TO(&ig, e);
        if (u > v) {
            igraph_integer_t t = u;
            u = v;
            v = t;
        }
        assert_int_equal(u, sample_edges[e][0]);
        assert_int_equal(v, sample_edges[e][1]);
    }
    if (vertex_name_attr) {
        const char names[] = "abcde";
        for (int i = 0; i < 5; i++) {
            const char expect[2] = {names[i], '\0'};
            assert_string_equal(VAS(&ig, vertex_name_attr, i), expect);
        }
    }
    if (edge_num_attr)
        for (int e = 0; e < 6; e++) assert_float_equal(EAN(&ig, edge_num_attr, e), edge_values[e], 0.0);
    assert_string_equal(ag_graph_read_warning(), "");
    igraph_destroy(&ig);
}

static void test_every_format(void **state) {
    (void)state;
    const double weights[] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
    const double capacities[] = {1, 2, 3, 4, 5, 6};
    assert_sample(FORMATS "sample.gml", AG_FORMAT_AUTO, "name", "weight", weights);
    assert_sample(FORMATS "sample.graphml", AG_FORMAT_AUTO, "id", "weight", weights);
    assert_sample(FORMATS "sample.edgelist", AG_FORMAT_AUTO, NULL, NULL, NULL);
    assert_sample(FORMATS "sample.ncol", AG_FORMAT_AUTO, "name", "weight", weights);
    assert_sample(FORMATS "sample.lgl", AG_FORMAT_AUTO, "name", "weight", weights);
    assert_sample(FORMATS "sample.net", AG_FORMAT_AUTO, "id", "weight", weights);
    assert_sample(FORMATS "sample.dimacs", AG_FORMAT_AUTO, NULL, "capacity", capacities);
    assert_sample(FORMATS "sample.dl", AG_FORMAT_AUTO, "name", NULL, NULL);
    /* an explicit format overrides the extension */
    assert_sample(FORMATS "sample.gml", AG_FORMAT_GML, "name", "weight", weights);
}

static void test_gml_and_graphml_attributes(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_string_equal(GAS(&ig, "name"), "sample");
    assert_float_equal(VAN(&ig, "size", 4), 5.0, 0.0);
    assert_float_equal(VAN(&ig, "id", 3), 3.0, 0.0);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.graphml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_string_equal(GAS(&ig, "name"), "sample");
    assert_float_equal(VAN(&ig, "size", 2), 3.0, 0.0);
    igraph_destroy(&ig);
}

static void test_directed_flag(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.edgelist", AG_FORMAT_AUTO, 1), AG_SUCCESS);
    assert_true(igraph_is_directed(&ig));
    assert_int_equal(IGRAPH_FROM(&ig, 5), 3);
    assert_int_equal(IGRAPH_TO(&ig, 5), 4);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.ncol", AG_FORMAT_AUTO, 1), AG_SUCCESS);
    assert_true(igraph_is_directed(&ig));
    igraph_destroy(&ig);
    /* GML says "directed 0" itself: the flag does not override the file */
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.gml", AG_FORMAT_AUTO, 1), AG_SUCCESS);
    assert_false(igraph_is_directed(&ig));
    igraph_destroy(&ig);
}

static void test_format_names_and_extensions(void **state) {
    (void)state;
    ag_format_t f = AG_FORMAT_AUTO;
    for (int i = 0; i < AG_FORMAT_COUNT; i++) {
        assert_int_equal(ag_format_from_name(ag_format_name((ag_format_t)i), &f), AG_SUCCESS);
        assert_int_equal(f, i);
    }
    assert_string_equal(ag_format_name(AG_FORMAT_PAJEK), "pajek");
    assert_string_equal(ag_format_name((ag_format_t)99), "unknown");
    assert_int_equal(ag_format_from_name("GraphML", &f), AG_SUCCESS);
    assert_int_equal(f, AG_FORMAT_GRAPHML);
    assert_int_equal(ag_format_from_name("csv", &f), AG_EFORMAT);
    assert_string_equal(ag_error_message(),
                        "unknown graph format 'csv' (known: auto, gml, graphml, edgelist, ncol, lgl, pajek, dimacs, dl)");

    const struct {
        const char *path;
        ag_format_t format;
    } cases[] = {
        {"a.gml", AG_FORMAT_GML},        {"dir.x/A.GML", AG_FORMAT_GML},     {"a.graphml", AG_FORMAT_GRAPHML},
        {"a.xml", AG_FORMAT_GRAPHML},    {"a.edges", AG_FORMAT_EDGELIST},    {"a.edgelist", AG_FORMAT_EDGELIST},
        {"a.el", AG_FORMAT_EDGELIST},    {"a.ncol", AG_FORMAT_NCOL},         {"a.lgl", AG_FORMAT_LGL},
        {"a.net", AG_FORMAT_PAJEK},      {"a.paj", AG_FORMAT_PAJEK},         {"a.pajek", AG_FORMAT_PAJEK},
        {"a.dimacs", AG_FORMAT_DIMACS},  {"a.max", AG_FORMAT_DIMACS},        {"a.dl", AG_FORMAT_DL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f = AG_FORMAT_AUTO;
        assert_int_equal(ag_format_from_path(cases[i].path, &f), AG_SUCCESS);
        assert_int_equal(f, cases[i].format);
    }
    /* no known extension: a file that is there needs --format; one that is not was mistyped */
    char dir[] = "/tmp/ag_formats_XXXXXX", sub[64];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/dir.gml", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    const char *unknown[] = {"graph.txt", "graph", "dir.gml/graph", ".gml", "graph.gml.gz"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        char there[512];
        snprintf(there, sizeof there, "%s/%s", dir, unknown[i]);
        FILE *out = fopen(there, "w");
        assert_non_null(out);
        fputs("0 1\n", out);
        fclose(out);
        assert_int_equal(ag_format_from_path(there, &f), AG_EFORMAT);
        assert_true(!strncmp(ag_error_message(), there, strlen(there)));
        assert_non_null(strstr(ag_error_message(), "unknown file extension (known: .gml, .graphml,"));
        assert_non_null(strstr(ag_error_message(), "pass --format"));
        assert_int_equal(ag_format_from_path(unknown[i], &f), AG_EFILE);
        assert_int_equal(strcmp(ag_error_message() + strlen(unknown[i]), ": No such file or directory"), 0);
        unlink(there);
    }
    /* a directory is named as one, not as a file to give a format */
    assert_int_equal(ag_format_from_path(dir, &f), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), ": Is a directory"));
    rmdir(sub);
    rmdir(dir);
}

/* Standard input reads path from now on. The paths are the repository's fixtures and files the
 * test has just written: one that cannot be opened is a failure, not a reason to skip. */
static void stdin_from(const char *path) {
    if (!freopen(path, "r", stdin)) fail_msg("cannot open %s as standard input: %s", path, strerror(errno));
}

static void assert_read_fails(const char *path, ag_format_t format, ag_error_t code, const char *message) {
    igraph_t ig;
    ag_error_t rc = ag_graph_read(&ig, path, format, 0);
    if (rc == AG_SUCCESS) {
        igraph_destroy(&ig);
        fail_msg("%s: read succeeded", path);
    }
    assert_int_equal(rc, code);
    assert_string_equal(ag_error_message(), message);
}

static void test_error_paths(void **state) {
    (void)state;
    /* an empty path names what is missing (it read ": No such file or directory") */
    assert_read_fails("", AG_FORMAT_GML, AG_EFILE, "graph file: no path given");
    assert_read_fails("", AG_FORMAT_AUTO, AG_EFILE, "graph file: no path given");
    assert_read_fails(BROKEN "truncated.gml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "truncated.gml: Parse error in GML file, line 10 (syntax error, unexpected end of "
                             "file, expecting string or number or [) (Parse error)");
    assert_read_fails(BROKEN "bad-target.gml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "bad-target.gml: Unknown target node id found in an edge in GML file, line 5. "
                             "(Parse error)");
    assert_read_fails(BROKEN "no-vertices.gml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "no-vertices.gml: the graph has no vertices");
    /* a program describing files reads it as what it is: a graph of 0 vertices */
    igraph_t none;
    for (int k = 0; k < 2; k++) {
        const char *file = k ? BROKEN "empty.edgelist" : BROKEN "no-vertices.gml";
        if (ag_graph_read_allow_empty(&none, file, AG_FORMAT_AUTO, 0) != AG_SUCCESS) fail_msg("%s", ag_error_message());
        assert_int_equal(igraph_vcount(&none), 0);
        assert_int_equal(ag_graph_read_format(), k ? AG_FORMAT_EDGELIST : AG_FORMAT_GML);
        igraph_destroy(&none);
    }
    assert_read_fails(BROKEN "no-vertices.gml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "no-vertices.gml: the graph has no vertices");
    assert_read_fails(BROKEN "bad-xml.graphml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "bad-xml.graphml: Line 6: Opening and ending tag mismatch: node line 5 and graph "
                             "(Parse error)");
    assert_read_fails(BROKEN "non-number.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "non-number.edgelist:3: Unexpected character 'x' while parsing integer. (Parse error)");
    /* names where an edge list has numbers: the line, and the format that reads names */
    assert_read_fails(BROKEN "names.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "names.edgelist:2: Unexpected character 'a' while parsing integer. (Parse error); vertex "
                             "names instead of numbers? an edge list numbers its vertices from 0; for names use "
                             "--format ncol (or a .ncol extension)");
    /* a CSV of edges (pandas' to_csv, PyG users' edges.csv): the commas are the fault, with or
     * without a header, and in NCOL too, to which the names hint would have sent it */
    assert_read_fails(BROKEN "pandas.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "pandas.edgelist:1: Unexpected character 's' while parsing integer. (Parse error); its "
                             "lines hold commas, where an edgelist file separates a line's fields by spaces or tabs "
                             "(a CSV of edges: replace the commas, e.g. tr ',' ' ', and drop a header line)");
    assert_read_fails(BROKEN "commas.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "commas.edgelist:1: Unexpected character ',' while parsing integer. (Parse error); its "
                             "lines hold commas, where an edgelist file separates a line's fields by spaces or tabs "
                             "(a CSV of edges: replace the commas, e.g. tr ',' ' ', and drop a header line)");
    assert_read_fails(BROKEN "pandas.ncol", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "pandas.ncol: Parse error in NCOL file, line 2 (syntax error, unexpected end of line, "
                             "expecting alphanumeric) (Parse error); its lines hold commas, where an ncol file "
                             "separates a line's fields by spaces or tabs (a CSV of edges: replace the commas, e.g. "
                             "tr ',' ' ', and drop a header line)");
    /* a header over ids: read as NCOL, as the names hint said, it became an edge 'source'-'target' */
    assert_read_fails(BROKEN "header.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "header.edgelist:2: Unexpected character 's' while parsing integer. (Parse error); a "
                             "header line? an edge list has none, and every line after this one holds vertex ids "
                             "only: remove it (e.g. tail -n +3 " BROKEN "header.edgelist)");
    /* a negative id is refused after the whole file is read: igraph's error, without a line */
    assert_read_fails(BROKEN "negative.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "negative.edgelist: Invalid (negative or too large) vertex ID. (Invalid vertex ID)");
    /* a line of one id, or of three fields (a weight column), would pair every later id with the
     * wrong one: refused before igraph reads it, at the line */
    assert_read_fails(BROKEN "odd-count.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "odd-count.edgelist:2: 1 field, where an edge list has 'from to' on each line");
    /* integer weights would have been read as ids; "0.5" fails in igraph, but as a third field */
    for (int k = 0; k < 2; k++) {
        const char *file = k ? BROKEN "float-weight.edgelist" : BROKEN "weighted.edgelist";
        char want[512];
        snprintf(want, sizeof want,
                 "%s:1: 3 fields, where an edge list has 'from to' on each line; for a third column such as a "
                 "weight use --format ncol (or a .ncol extension), which keeps it as edge attribute 'weight' and "
                 "the ids as vertex names",
                 file);
        assert_read_fails(file, AG_FORMAT_AUTO, AG_EPARSE, want);
    }
    assert_read_fails(BROKEN "empty.edgelist", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "empty.edgelist: the graph has no vertices");
    assert_read_fails(BROKEN "too-many-fields.ncol", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "too-many-fields.ncol: Unexpected character 'e' while parsing real number. (Parse error)");
    assert_read_fails(BROKEN "no-header.lgl", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "no-header.lgl: Parse error in LGL file, line 1 (syntax error, unexpected "
                             "alphanumeric, expecting end of file or end of line or #) (Parse error)");
    assert_read_fails(BROKEN "bad-vertex.net", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "bad-vertex.net: Out-of-range vertex IDs when adding edges. (Invalid vertex ID)");
    assert_read_fails(BROKEN "no-problem.dimacs", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "no-problem.dimacs: 'a' lines are allowed only in MAX problem files. (Parse error)");
    /* a GML file read as another format: the parser's message, then what the text looks like */
    assert_read_fails(FORMATS "sample.gml", AG_FORMAT_EDGELIST, AG_EPARSE,
                      FORMATS "sample.gml:1: Unexpected character 'C' while parsing integer. (Parse error); read as "
                              "edgelist, but its first lines look like gml (--format gml)");
    /* igraph's messages that name no line nor value: what they mean, by format */
    assert_read_fails(BROKEN "bad-number.graphml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "bad-number.graphml: Unexpected character 'a' while parsing real number. (Parse error); "
                             "a <data> value of a numeric key (attr.type double, float, int or long) is not a number");
    assert_read_fails(BROKEN "overflow.gml", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "overflow.gml: Failed to parse real number. (Integer or double overflow); a number is too "
                             "large for a double (such as 1e999)");
    assert_read_fails(BROKEN "n-too-large.dl", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "n-too-large.dl: Invalid string attribute length. (Invalid value); is n= more than the "
                             "vertices the labels name? igraph's DL reader fails so");
    assert_read_fails(BROKEN "bad-format.dl", AG_FORMAT_AUTO, AG_EPARSE,
                      BROKEN "bad-format.dl: Parse error in DL file, line 2 (syntax error, unexpected end of file) "
                             "(Parse error)");
    /* a GML file read as GraphML: libxml's message, then what the text looks like */
    assert_read_fails(FORMATS "sample.gml", AG_FORMAT_GRAPHML, AG_EPARSE,
                      FORMATS "sample.gml: Line 1: Document is empty (Parse error); read as graphml, but its first "
                              "lines look like gml (--format gml)");

    assert_read_fails(BROKEN "missing.gml", AG_FORMAT_AUTO, AG_EFILE,
                      BROKEN "missing.gml: No such file or directory");
    assert_read_fails(BROKEN, AG_FORMAT_GML, AG_EFILE, BROKEN ": Is a directory");
    /* no known extension and no such file: the mistyped name, not a format to give */
    assert_read_fails(FORMATS "sample.txt", AG_FORMAT_AUTO, AG_EFILE, FORMATS "sample.txt: No such file or directory");
    assert_read_fails(AG_SOURCE_DIR "/CMakeLists.txt", AG_FORMAT_AUTO, AG_EFORMAT,
                      AG_SOURCE_DIR "/CMakeLists.txt: unknown file extension (known: .gml, .graphml, .xml, .edges, "
                                    ".edgelist, .el, .ncol, .lgl, .net, .paj, .pajek, .dimacs, .max, .dl); pass --format");
    assert_int_equal(ag_format_from_path("-", &(ag_format_t){AG_FORMAT_AUTO}), AG_EFORMAT);
    assert_string_equal(ag_error_message(), "standard input has no file extension: pass --format (auto, gml, graphml, "
                                            "edgelist, ncol, lgl, pajek, dimacs, dl)");
    assert_read_fails(FORMATS "sample.gml", (ag_format_t)42, AG_EINVAL, "ag_graph_read: invalid format 42");
}

static void test_warning_of_composite_attribute(void **state) {
    (void)state;
    igraph_t ig;
    const char *path = AG_SOURCE_DIR "/tests/data/composite.gml";
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_int_equal(igraph_vcount(&ig), 2);
    assert_string_equal(ag_graph_read_warning(),
                        AG_SOURCE_DIR "/tests/data/composite.gml: Composite vertex attribute 'xs' ignored in GML file.");
    igraph_destroy(&ig);
    /* the next read starts clean */
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_string_equal(ag_graph_read_warning(), "");
    /* a GraphML file with an 'id' attribute (igraph's writer makes one from a GML graph) keeps it,
     * without igraph's warning that the <node id> strings were not stored over it */
    char path2[] = "/tmp/ag_graph_read_XXXXXX.graphml";
    int fd = mkstemps(path2, 8);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    assert_non_null(out);
    assert_int_equal(igraph_write_graph_graphml(&ig, out, 0), IGRAPH_SUCCESS);
    fclose(out);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read(&ig, path2, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_string_equal(ag_graph_read_warning(), "");
    assert_true(igraph_cattribute_has_attr(&ig, IGRAPH_ATTRIBUTE_VERTEX, "id"));
    assert_float_equal(VAN(&ig, "id", 4), 4.0, 0.0);
    unlink(path2);
    igraph_destroy(&ig);
}

/* Every distinct warning of a read, not only the first (a GML file holding several lists drops
 * each of them): the first AG_GRAPH_READ_WARNINGS_KEPT in igraph's order, without the file's name,
 * each once though igraph repeats it per vertex, and a count of the distinct ones after them. The
 * next read starts clean. */
static void test_every_read_warning(void **state) {
    (void)state;
    char dir[256], gml[4096], lists[1024] = "", path[300]; /* gml: room for two lists and the frame */
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "read_warnings", 0), 0);
    for (int k = 0; k < 10; k++) snprintf(lists + strlen(lists), sizeof lists - strlen(lists), " l%d [ a 1 ]", k);
    snprintf(gml, sizeof gml, "graph [\n node [ id 0%s ]\n node [ id 1%s ]\n edge [ source 0 target 1 g [ a 1 ] ]\n]\n",
             lists, lists);
    ag_test_write_text(dir, "lists.gml", gml);
    snprintf(path, sizeof path, "%s/lists.gml", dir);
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read_warning_count(), AG_GRAPH_READ_WARNINGS_KEPT);
    for (int k = 0; k < AG_GRAPH_READ_WARNINGS_KEPT; k++) {
        char want[128];
        snprintf(want, sizeof want, "Composite vertex attribute 'l%d' ignored in GML file.", k);
        assert_string_equal(ag_graph_read_warning_reason(k), want);
    }
    assert_string_equal(ag_graph_read_warning_reason(AG_GRAPH_READ_WARNINGS_KEPT), "");
    assert_string_equal(ag_graph_read_warning_reason(-1), "");
    assert_int_equal(ag_graph_read_warnings_other(), 3); /* l8, l9 and the edges' g */
    snprintf(gml, sizeof gml, "%s: Composite vertex attribute 'l0' ignored in GML file.", path);
    assert_string_equal(ag_graph_read_warning(), gml);
    /* one list: it alone, and nothing after it */
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/tests/data/composite.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read_warning_count(), 1);
    assert_string_equal(ag_graph_read_warning_reason(0), "Composite vertex attribute 'xs' ignored in GML file.");
    assert_int_equal(ag_graph_read_warnings_other(), 0);
    assert_int_equal(ag_graph_read(&ig, FORMATS "sample.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read_warning_count(), 0);
    assert_string_equal(ag_graph_read_warning_reason(0), "");
    assert_int_equal(ag_graph_read_warnings_other(), 0);
    /* a failed read starts clean too */
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_destroy(&ig);
    assert_int_not_equal(ag_graph_read(&ig, BROKEN "truncated.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_int_equal(ag_graph_read_warning_count(), 0);
    assert_int_equal(ag_graph_read_warnings_other(), 0);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* A GraphML file with its own 'id' key: igraph's warning that it kept that attribute in place of
 * the <node id> strings is dropped before it is kept or counted, so that with 8 other warnings
 * before it the count after them is not one too many (u8 and u9 only). */
static void test_graphml_own_ids_not_counted(void **state) {
    (void)state;
    char dir[256], keys[1024] = "", xml[4096], path[300];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "own_ids", 0), 0);
    for (int k = 0; k < 10; k++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "<data key=\"u%d\">1</data>", k);
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
             "<key id=\"id\" for=\"node\" attr.name=\"id\" attr.type=\"string\"/>\n"
             "<graph edgedefault=\"undirected\">\n<node id=\"n0\"><data key=\"id\">a</data>%s</node>\n"
             "<node id=\"n1\"><data key=\"id\">b</data></node>\n<edge source=\"n0\" target=\"n1\"/>\n"
             "</graph></graphml>\n",
             keys);
    ag_test_write_text(dir, "own.graphml", xml);
    snprintf(path, sizeof path, "%s/own.graphml", dir);
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_string_equal(VAS(&ig, "id", 1), "b");
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read_warning_count(), AG_GRAPH_READ_WARNINGS_KEPT);
    for (int k = 0; k < AG_GRAPH_READ_WARNINGS_KEPT; k++) {
        char want[128];
        snprintf(want, sizeof want, "Unknown attribute key 'u%d' in a <data> tag, ignoring attribute.", k);
        assert_string_equal(ag_graph_read_warning_reason(k), want);
    }
    assert_int_equal(ag_graph_read_warnings_other(), 2);
    /* and with no other warning, none at all */
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
             "<key id=\"id\" for=\"node\" attr.name=\"id\" attr.type=\"string\"/>\n"
             "<graph edgedefault=\"undirected\">\n<node id=\"n0\"><data key=\"id\">a</data></node>\n"
             "</graph></graphml>\n");
    ag_test_write_text(dir, "own.graphml", xml);
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_read_warning_count(), 0);
    assert_int_equal(ag_graph_read_warnings_other(), 0);
    assert_string_equal(ag_graph_read_warning(), "");
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

static void test_stdin(void **state) {
    (void)state;
    stdin_from(FORMATS "sample.edgelist");
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, "-", AG_FORMAT_EDGELIST, 0), AG_SUCCESS);
    assert_int_equal(igraph_vcount(&ig), 5);
    assert_int_equal(igraph_ecount(&ig), 6);
    igraph_destroy(&ig);
    /* errors on stdin name it */
    /* a UTF-8 byte-order mark (Windows editors write one) is passed over, in a file and on
     * standard input with --format as without */
    char tmp[] = "/tmp/ag_bom_XXXXXX.gml";
    int fd = mkstemps(tmp, 4);
    assert_true(fd >= 0);
    const char *bom = "\xEF\xBB\xBFgraph [\n directed 0\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 target 1 ]\n]\n";
    assert_int_equal(write(fd, bom, strlen(bom)), (ssize_t)strlen(bom));
    close(fd);
    for (int k = 0; k < 3; k++) {
        if (k > 0) stdin_from(tmp);
        assert_int_equal(ag_graph_read(&ig, k ? "-" : tmp, k == 1 ? AG_FORMAT_GML : AG_FORMAT_AUTO, 0), AG_SUCCESS);
        assert_int_equal(igraph_vcount(&ig), 2);
        assert_int_equal(igraph_ecount(&ig), 1);
        igraph_destroy(&ig);
    }
    unlink(tmp);
    stdin_from(BROKEN "non-number.edgelist");
    assert_read_fails("-", AG_FORMAT_EDGELIST, AG_EPARSE,
                      "<stdin>:3: Unexpected character 'x' while parsing integer. (Parse error)");
}

/* Standard input without --format: the format is recognised from the text, and every sample reads
 * as from its file; the formats that cannot be told apart say so. */
static void test_stdin_recognised(void **state) {
    (void)state;
    const double weights[] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
    static const struct {
        const char *file;
        ag_format_t format;
        const char *vertex_name_attr, *edge_num_attr;
    } cases[] = {
        {"sample.gml", AG_FORMAT_GML, "name", "weight"},     {"sample.graphml", AG_FORMAT_GRAPHML, "id", "weight"},
        {"sample.net", AG_FORMAT_PAJEK, "id", "weight"},     {"sample.dl", AG_FORMAT_DL, "name", NULL},
        {"sample.lgl", AG_FORMAT_LGL, "name", "weight"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[512];
        snprintf(file, sizeof file, FORMATS "%s", cases[i].file);
        stdin_from(file);
        assert_sample("-", AG_FORMAT_AUTO, cases[i].vertex_name_attr, cases[i].edge_num_attr,
                      cases[i].edge_num_attr ? weights : NULL);
        assert_int_equal(ag_graph_read_format(), cases[i].format);
    }
    stdin_from(FORMATS "sample.ncol");
    assert_read_fails("-", AG_FORMAT_AUTO, AG_EFORMAT,
                      "<stdin>: cannot tell the format from the first line (GML, GraphML, Pajek, DL and LGL are "
                      "recognised; edge lists, NCOL and DIMACS are not): pass --format");
    assert_int_equal(ag_graph_read_format(), AG_FORMAT_AUTO);
    stdin_from(BROKEN "empty.edgelist");
    assert_read_fails("-", AG_FORMAT_AUTO, AG_EFORMAT, "<stdin>: empty input: no format to recognise");
    /* a recognised format's errors are its parser's, named after standard input */
    stdin_from(BROKEN "truncated.gml");
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, "-", AG_FORMAT_AUTO, 0), AG_EPARSE);
    assert_int_equal(strncmp(ag_error_message(), "<stdin>: ", 9), 0);
    /* copied whole, standard input gets the vertex count check that files get */
    char tmp[] = "/tmp/ag_graph_read_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    const char *huge = "*Vertices 100000000\n*Edges\n1 2\n";
    assert_int_equal(write(fd, huge, strlen(huge)), (ssize_t)strlen(huge));
    close(fd);
    stdin_from(tmp);
    int64_t old = ag_graph_read_set_max_memory(1 << 20);
    assert_int_equal(ag_graph_read(&ig, "-", AG_FORMAT_AUTO, 0), AG_EREADLIMIT);
    assert_int_equal(strncmp(ag_error_message(), "<stdin>:1: ", 11), 0);
    stdin_from(tmp); /* and with its format given */
    assert_int_equal(ag_graph_read(&ig, "-", AG_FORMAT_PAJEK, 0), AG_EREADLIMIT);
    ag_graph_read_set_max_memory(old);
    assert_int_equal(strncmp(ag_error_message(), "<stdin>:1: ", 11), 0);
    unlink(tmp);
    /* the copy's first allocation fails: AG_ENOMEM naming standard input, nothing left allocated */
    stdin_from(FORMATS "sample.gml");
    int64_t live = ag_i_alloc_live();
    ag_i_alloc_fail_at(1);
    assert_read_fails("-", AG_FORMAT_AUTO, AG_ENOMEM, "<stdin>: out of memory reading it");
    ag_i_alloc_fail_at(0);
    assert_int_equal(ag_i_alloc_live(), live);
}

/* SNAP's '#' and KONECT's '%' header lines, which igraph's edge-list reader fails on, are passed
 * over wherever they stand, from a file, standard input or after a byte-order mark; the lines
 * after them keep their numbers in errors. */
static void test_edgelist_comments(void **state) {
    (void)state;
    char tmp[] = "/tmp/ag_comments_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    static const char text[] = "\xEF\xBB\xBF# Directed graph (each unordered pair of nodes is saved once)\n"
                               "# Nodes: 4 Edges: 3\n0 1\n  %% KONECT-style\n1 2\n# FromNodeId\tToNodeId\n2 3\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    igraph_t ig;
    for (int k = 0; k < 2; k++) {
        if (k > 0) stdin_from(tmp);
        if (ag_graph_read(&ig, k ? "-" : tmp, AG_FORMAT_EDGELIST, 0)) fail_msg("%s", ag_error_message());
        assert_int_equal(igraph_vcount(&ig), 4);
        assert_int_equal(igraph_ecount(&ig), 3);
        for (igraph_integer_t e = 0; e < 3; e++) {
            const igraph_integer_t a = IGRAPH_FROM(&ig, e), b = IGRAPH_TO(&ig, e);
            assert_int_equal(a < b ? a : b, e);
            assert_int_equal(a < b ? b : a, e + 1);
        }
        igraph_destroy(&ig);
    }
    /* a bad token after the comments: its own line */
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("# header\n%% more\n0 1\n1 x\n", f);
    fclose(f);
    char want[256];
    snprintf(want, sizeof want, "%s:4: Unexpected character 'x' while parsing integer. (Parse error)", tmp);
    assert_read_fails(tmp, AG_FORMAT_EDGELIST, AG_EPARSE, want);
    unlink(tmp);
}

/* An edge list's vertex count (igraph_read_graph_edgelist's n): the vertices after the largest
 * id exist, without edges; a count below the largest id + 1, a negative one, or one for a format
 * that lists its own vertices is refused, naming the file (and the line of the largest id). */
static void test_edgelist_vertex_count(void **state) {
    (void)state;
    char tmp[] = "/tmp/ag_vcount_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    static const char text[] = "0 1\n3 2\n1 2\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    ag_graph_read_options_t o;
    ag_graph_read_options_init(&o);
    o.format = AG_FORMAT_EDGELIST;
    o.directed = 1;
    o.vertices = 6;
    igraph_t ig;
    if (ag_graph_read_with(&ig, tmp, &o)) fail_msg("%s", ag_error_message());
    assert_int_equal(igraph_vcount(&ig), 6);
    assert_int_equal(igraph_ecount(&ig), 3);
    assert_true(igraph_is_directed(&ig));
    igraph_destroy(&ig);
    o.vertices = 4; /* exactly the largest id + 1 */
    if (ag_graph_read_with(&ig, tmp, &o)) fail_msg("%s", ag_error_message());
    assert_int_equal(igraph_vcount(&ig), 4);
    igraph_destroy(&ig);
    char want[256];
    o.vertices = 3;
    assert_int_equal(ag_graph_read_with(&ig, tmp, &o), AG_EINVAL);
    snprintf(want, sizeof want, "%s:2: vertex id 3 needs at least 4 vertices, more than the 3 given (--vertices): the "
             "count is the largest id + 1 or more", tmp);
    assert_string_equal(ag_error_message(), want);
    o.vertices = -1;
    assert_int_equal(ag_graph_read_with(&ig, tmp, &o), AG_EINVAL);
    o.vertices = 9;
    o.format = AG_FORMAT_GML;
    assert_int_equal(ag_graph_read_with(&ig, FORMATS "sample.gml", &o), AG_EINVAL);
    assert_string_equal(ag_error_message(), FORMATS "sample.gml: a vertex count (--vertices) is for an edge list, not "
                        "a gml file, which gives its own vertices");
    assert_int_equal(ag_graph_read_with(&ig, tmp, NULL), AG_EINVAL);
    /* the count is held to the read limit as a file's own count is */
    const int64_t was = ag_graph_read_set_max_memory(1000);
    o.format = AG_FORMAT_EDGELIST;
    o.vertices = 1000;
    assert_int_equal(ag_graph_read_with(&ig, tmp, &o), AG_EREADLIMIT);
    ag_graph_read_set_max_memory(was);
    unlink(tmp);
}

static void test_format_sniff(void **state) {
    (void)state;
    static const struct {
        const char *text;
        ag_format_t format;
    } cases[] = {
        {"graph [\n  node [ id 0 ]\n]\n", AG_FORMAT_GML},
        {"\xEF\xBB\xBF  Creator \"x\"\ngraph [ ]", AG_FORMAT_GML},
        {"graph[node[id 0]]", AG_FORMAT_GML},
        {"# a comment\n# another\nversion 1\ngraph [ ]", AG_FORMAT_GML},
        {"# a\nb 1.5\n", AG_FORMAT_LGL},
        {"#a\nb\n# b\n", AG_FORMAT_LGL},
        {"\n\t<?xml version=\"1.0\"?>\n<graphml>", AG_FORMAT_GRAPHML},
        {"*Vertices 5\n1 \"a\"\n", AG_FORMAT_PAJEK},
        {"*network x\n*vertices 2\n", AG_FORMAT_PAJEK},
        {"% written by hand\n%\n*Vertices 3\n", AG_FORMAT_PAJEK}, /* Pajek's comments */
        {"dl n=5\n", AG_FORMAT_DL},
        {"DL\nN=5\n", AG_FORMAT_DL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ag_format_t f = AG_FORMAT_AUTO;
        if (ag_format_sniff(cases[i].text, strlen(cases[i].text), &f)) fail_msg("case %zu: %s", i, ag_error_message());
        if (f != cases[i].format) fail_msg("case %zu: %s, not %s", i, ag_format_name(f), ag_format_name(cases[i].format));
    }
    /* words that only start like a keyword, the text cut before the keyword ends, and the
     * formats that look alike */
    static const char *const unknown[] = {"graphs [ ]", "grap", "DLX n=5", "*Vertice 5", "0 1\n1 2\n",
                                          "a b 1.5\n", "p max 5 6\n", "c comment\n",
                                          "% c\n0 1\n", "% c\n# x\n*Vertices 2\n",
                                          /* a comment's text, as SNAP's headers: an edge list, not LGL */
                                          "# Nodes: 4 Edges: 3\n0 1\n", "# a\n# two words\n0 1\n", "#\n0 1\n"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        ag_format_t f = AG_FORMAT_AUTO;
        assert_int_equal(ag_format_sniff(unknown[i], strlen(unknown[i]), &f), AG_EFORMAT);
        assert_int_equal(f, AG_FORMAT_AUTO);
    }
    ag_format_t f = AG_FORMAT_AUTO;
    /* only len bytes are read: "graph" cut to "gra" is not GML */
    assert_int_equal(ag_format_sniff("graph [ ]", 3, &f), AG_EFORMAT);
    assert_int_equal(ag_format_sniff(" \n\t", 3, &f), AG_EFORMAT);
    assert_string_equal(ag_error_message(), "empty input: no format to recognise");
    assert_int_equal(ag_format_sniff(NULL, 0, &f), AG_EINVAL);
    assert_int_equal(ag_format_sniff("graph", 5, NULL), AG_EINVAL);
}

/* A file without read permission (skipped when running as root, who reads it anyway). */
static void test_unreadable_file(void **state) {
    (void)state;
    char tmp[] = "/tmp/ag_graph_read_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0 1\n", 4), 4);
    close(fd);
    assert_int_equal(chmod(tmp, 0), 0);
    if (access(tmp, R_OK) == 0) {
        unlink(tmp);
        skip();
    }
    char expect[128];
    snprintf(expect, sizeof expect, "%s: Permission denied", tmp);
    assert_read_fails(tmp, AG_FORMAT_EDGELIST, AG_EFILE, expect);
    unlink(tmp);
}

/* A Tox21 molecule of two ions: no edges, so igraph keeps no edge attributes at all. */
static void test_molecule_without_edges(void **state) {
    (void)state;
    const char *path = AG_SHARED_DATASETS "/tox21/molecules/0096.gml";
    FILE *probe = fopen(path, "r");
    if (!probe) skip();
    fclose(probe);
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_int_equal(igraph_vcount(&ig), 2);
    assert_int_equal(igraph_ecount(&ig), 0);
    igraph_strvector_t gn, vn, en;
    igraph_vector_int_t gt, vt, et;
    igraph_strvector_init(&gn, 0);
    igraph_strvector_init(&vn, 0);
    igraph_strvector_init(&en, 0);
    igraph_vector_int_init(&gt, 0);
    igraph_vector_int_init(&vt, 0);
    igraph_vector_int_init(&et, 0);
    assert_int_equal(igraph_cattribute_list(&ig, &gn, &gt, &vn, &vt, &en, &et), IGRAPH_SUCCESS);
    assert_int_equal(igraph_strvector_size(&en), 0);
    assert_true(igraph_strvector_size(&vn) > 0);
    assert_string_equal(VAS(&ig, "element", 0), "I");
    assert_string_equal(GAS(&ig, "smiles"), "[I-].[K+]");
    igraph_strvector_destroy(&gn);
    igraph_strvector_destroy(&vn);
    igraph_strvector_destroy(&en);
    igraph_vector_int_destroy(&gt);
    igraph_vector_int_destroy(&vt);
    igraph_vector_int_destroy(&et);
    igraph_destroy(&ig);
}

/* The edges of g as "u>v" (1-based, as in the Pajek file) with each edge's weight or '-' when it
 * has none, in edge order (igraph gives an unweighted edge before a weighted one 0, after it NaN). */
static void edges_text(const igraph_t *g, char *buf, size_t cap) {
    buf[0] = '\0';
    const int weighted = igraph_cattribute_has_attr(g, IGRAPH_ATTRIBUTE_EDGE, "weight");
    for (igraph_integer_t e = 0; e < igraph_ecount(g); e++) {
        char w[32] = "-";
        if (weighted && !isnan(EAN(g, "weight", e)) && EAN(g, "weight", e) != 0) snprintf(w, sizeof w, "%g", EAN(g, "weight", e));
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%d>%d:%s", e ? " " : "", (int)IGRAPH_FROM(g, e) + 1,
                 (int)IGRAPH_TO(g, e) + 1, w);
    }
}

/* A Pajek file mixing *Arcs and *Edges is one directed graph whatever the sections' order (igraph
 * alone took the last header for the whole file): each undirected edge is two arcs with its weight,
 * a loop stays one. A file of one kind of lines keeps its kind beside an empty header of the other,
 * and the lines of a file that joined its sections keep their numbers in igraph's errors. */
static void test_pajek_arcs_and_edges(void **state) {
    (void)state;
    char dir[256], path[300], got[512];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "pajek_mixed", 0), 0);
    const struct {
        const char *text;
        int directed;
        const char *edges;
    } cases[] = {
        {"*Vertices 4\n*Arcs\n1 2\n2 3\n*Edges\n3 4 2.5\n4 4\n", 1, "1>2:- 2>3:- 3>4:2.5 4>4:- 4>3:2.5"},
        {"*Vertices 4\n*Edges\n3 4 2.5\n4 4\n*Arcs\n1 2\n2 3", 1, "3>4:2.5 4>4:- 1>2:- 2>3:- 4>3:2.5"},
        {"*vertices 4\n*ARCS\n1 2\n%% a comment\n  *edges\n\n 3   4\n", 1, "1>2:- 3>4:- 4>3:-"},
        {"*Vertices 4\n*Arcslist\n1 2 3\n*Edgeslist\n3 4 1 3\n", 1, "1>2:- 1>3:- 3>4:- 3>1:- 3>3:- 4>3:- 1>3:-"},
        {"*Vertices 3\n*Edges\n1 2\n*Arcs\n", 0, "2>1:-"},
        {"*Vertices 3\n*Arcs\n1 2\n*Edges\n", 1, "1>2:-"},
        {"*Vertices 3\n*Edges\n1 2\n2 3\n", 0, "2>1:- 3>2:-"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ag_test_write_text(dir, "g.net", cases[i].text);
        snprintf(path, sizeof path, "%s/g.net", dir);
        igraph_t ig;
        if (ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0) != AG_SUCCESS) fail_msg("case %zu: %s", i, ag_error_message());
        edges_text(&ig, got, sizeof got);
        if (strcmp(got, cases[i].edges) || igraph_is_directed(&ig) != cases[i].directed)
            fail_msg("case %zu: %s %s, expected %s %s", i, igraph_is_directed(&ig) ? "directed" : "undirected", got,
                     cases[i].directed ? "directed" : "undirected", cases[i].edges);
        assert_string_equal(ag_graph_read_warning(), "");
        igraph_destroy(&ig);
    }
    ag_test_write_text(dir, "g.net", "*Vertices 3\n*Arcs\n1 2\n*Edges\n2 3\n3 x\n");
    char expect[512];
    snprintf(expect, sizeof expect, "%s: Parse error in Pajek file, line 6 (syntax error, unexpected ALNUM, expecting "
             "number) (Parse error)", path);
    assert_read_fails(path, AG_FORMAT_AUTO, AG_EPARSE, expect);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* Every prefix of every sample file: each read either succeeds or fails with a message that names
 * the file, and nothing leaks (igraph's readers leave partial graphs behind on errors; ASan checks
 * that the guard frees them). */
static void test_every_truncation(void **state) {
    (void)state;
    const struct {
        const char *file;
        ag_format_t format;
    } files[] = {
        {"sample.gml", AG_FORMAT_GML},       {"sample.graphml", AG_FORMAT_GRAPHML}, {"sample.edgelist", AG_FORMAT_EDGELIST},
        {"sample.ncol", AG_FORMAT_NCOL},     {"sample.lgl", AG_FORMAT_LGL},         {"sample.net", AG_FORMAT_PAJEK},
        {"sample.dimacs", AG_FORMAT_DIMACS}, {"sample.dl", AG_FORMAT_DL},
    };
    char tmp[] = "/tmp/ag_graph_read_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512], text[4096];
        snprintf(path, sizeof path, FORMATS "%s", files[i].file);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        const size_t len = fread(text, 1, sizeof text, f);
        fclose(f);
        int failures = 0;
        for (size_t cut = 0; cut < len; cut++) {
            f = fopen(tmp, "wb");
            assert_non_null(f);
            fwrite(text, 1, cut, f);
            fclose(f);
            igraph_t ig;
            ag_error_t rc = ag_graph_read(&ig, tmp, files[i].format, 0);
            if (rc == AG_SUCCESS) {
                assert_true(igraph_vcount(&ig) > 0);
                igraph_destroy(&ig);
                continue;
            }
            failures++;
            assert_true(rc == AG_EPARSE);
            if (strncmp(ag_error_message(), tmp, strlen(tmp)))
                fail_msg("%s cut at %zu: message '%s' does not name the file", files[i].file, cut, ag_error_message());
        }
        assert_true(failures > 0); /* at least the empty prefix fails */
    }
    unlink(tmp);
}

/* An igraph-style caller keeps its temporaries on igraph's finally stack while it calls the
 * library: an igraph error inside the library (a parse error here) frees the library's entries
 * only. It freed the whole stack: the caller's vector was destroyed under it, its own
 * igraph_vector_int_destroy was a double free and its IGRAPH_FINALLY_CLEAN(1) aborted ("Corrupt
 * finally stack"). The DIMACS reader pushes entries of its own, freed on its parse error. */
static void test_caller_finally_stack_kept(void **state) {
    (void)state;
    static const char *const files[] = {BROKEN "truncated.gml", BROKEN "bad-xml.graphml",
                                        BROKEN "non-number.edgelist"};
    char dimacs[] = "/tmp/ag_test_finally_XXXXXX";
    int fd = mkstemp(dimacs);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("p max 3 2\nn 1 s\nn 3 t\na 1 2 x\n", f);
    fclose(f);
    /* the caller's handler, which the library puts back */
    igraph_error_handler_t *prev = igraph_set_error_handler(igraph_error_handler_ignore);
    for (int k = 0; k < 4; k++) {
        const char *file = k < 3 ? files[k] : dimacs;
        igraph_vector_int_t mine;
        assert_int_equal(igraph_vector_int_init(&mine, 3), IGRAPH_SUCCESS);
        IGRAPH_FINALLY(igraph_vector_int_destroy, &mine);
        const int before = IGRAPH_FINALLY_STACK_SIZE();
        igraph_t ig;
        if (ag_graph_read(&ig, file, k < 3 ? AG_FORMAT_AUTO : AG_FORMAT_DIMACS, 0) != AG_EPARSE)
            fail_msg("%s: expected AG_EPARSE, got '%s'", file, ag_error_message());
        if (IGRAPH_FINALLY_STACK_SIZE() != before)
            fail_msg("%s: igraph's finally stack holds %d entries after the failed read, %d before", file,
                     IGRAPH_FINALLY_STACK_SIZE(), before);
        assert_ptr_equal(igraph_set_error_handler(igraph_error_handler_ignore), igraph_error_handler_ignore);
        assert_int_equal(igraph_vector_int_size(&mine), 3); /* still the caller's, not freed */
        igraph_vector_int_destroy(&mine);
        IGRAPH_FINALLY_CLEAN(1);
    }
    igraph_set_error_handler(prev);
    unlink(dimacs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_format),
        cmocka_unit_test(test_gml_and_graphml_attributes),
        cmocka_unit_test(test_directed_flag),
        cmocka_unit_test(test_format_names_and_extensions),
        cmocka_unit_test(test_error_paths),
        cmocka_unit_test(test_warning_of_composite_attribute),
        cmocka_unit_test(test_every_read_warning),
        cmocka_unit_test(test_graphml_own_ids_not_counted),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_stdin_recognised),
        cmocka_unit_test(test_edgelist_comments),
        cmocka_unit_test(test_edgelist_vertex_count),
        cmocka_unit_test(test_format_sniff),
        cmocka_unit_test(test_molecule_without_edges),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_pajek_arcs_and_edges),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_caller_finally_stack_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
