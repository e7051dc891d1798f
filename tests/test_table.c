/* Tests of node tables: CSV, TSV, Cora's whitespace form and the sparse form, aligned to a graph. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/table.h>
#include <attngraph/labels.h>
#include <attngraph/graph.h>
#include <attngraph/rng.h>
#include <attngraph/split.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

#define DATA AG_SOURCE_DIR "/tests/data/tables/"

/* 4 vertices; vertex v has numeric id 10 * (v + 1) and string name "a" + v. */
static void make_graph(igraph_t *g) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    assert_int_equal(igraph_small(g, 4, IGRAPH_UNDIRECTED, 0, 1, 1, 2, 2, 3, -1), IGRAPH_SUCCESS);
    const char *names[] = {"a", "b", "c", "d"};
    for (int v = 0; v < 4; v++) {
        SETVAN(g, "id", v, 10.0 * (v + 1));
        SETVAS(g, "name", v, names[v]);
    }
}

/* Writes text to a fresh temporary file ending in suffix; the caller unlinks it. */
static char *write_temp(const char *text, const char *suffix) {
    static char path[8][64];
    static int next = 0;
    char *p = path[next++ % 8];
    snprintf(p, 64, "/tmp/ag_table_XXXXXX%s", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return p;
}

static void expect_row(const ag_fmat_t *m, int64_t r, const float *want) {
    for (int64_t c = 0; c < m->cols; c++) assert_float_equal(m->data[r * m->cols + c], want[c], 0.0f);
}

static void test_csv(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, DATA "nodes.csv", &g, NULL), AG_SUCCESS);
    assert_int_equal(t.features.rows, 4);
    assert_int_equal(t.features.cols, 3);
    assert_string_equal(t.columns[0], "x");
    assert_string_equal(t.columns[2], "z");
    assert_null(t.labels);
    expect_row(&t.features, 0, (float[]){1, 2, 3});
    expect_row(&t.features, 1, (float[]){2, 2.25f, 0.5f});
    expect_row(&t.features, 2, (float[]){3.5f, -1, 0});
    expect_row(&t.features, 3, (float[]){4, 50, 6});
    /* columns taken by name: a new order, one dropped; a name the table lacks leaves it unchanged */
    int moved = -1;
    const char *zx[] = {"z", "x"}, *xyw[] = {"x", "y", "w"}, *xyz[] = {"x", "y", "z"};
    assert_int_equal(ag_node_table_select(&t, xyz, 3, &moved), AG_SUCCESS);
    assert_int_equal(moved, 0);
    assert_int_equal(ag_node_table_select(&t, xyw, 3, &moved), AG_EVALUE);
    assert_string_equal(ag_error_message(), "the node table has no column 'w'");
    /* a near miss (case, spaces around) is named */
    const char *upper[] = {"X", " y "};
    assert_int_equal(ag_node_table_select(&t, upper, 2, &moved), AG_EVALUE);
    assert_string_equal(ag_error_message(), "the node table has no column 'X' (it has 'x', which differs in case or spaces)");
    assert_int_equal(ag_node_table_select(&t, upper + 1, 1, &moved), AG_EVALUE);
    assert_string_equal(ag_error_message(), "the node table has no column ' y ' (it has 'y', which differs in case or spaces)");
    assert_int_equal(moved, 0);
    assert_int_equal(t.features.cols, 3);
    expect_row(&t.features, 3, (float[]){4, 50, 6});
    assert_int_equal(ag_node_table_select(&t, zx, 2, &moved), AG_SUCCESS);
    assert_int_equal(moved, 1);
    assert_int_equal(t.features.cols, 2);
    assert_string_equal(t.columns[0], "z");
    assert_string_equal(t.columns[1], "x");
    expect_row(&t.features, 1, (float[]){0.5f, 2});
    expect_row(&t.features, 3, (float[]){6, 4});
    assert_int_equal(ag_node_table_select(NULL, zx, 2, NULL), AG_EINVAL);
    ag_node_table_destroy(&t);
    ag_node_table_destroy(&t);
    assert_int_equal(ag_node_table_select(&t, zx, 2, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_node_table_select: the table has no column names");
    igraph_destroy(&g);
}

static void test_tsv_quoted_subset_label(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.id_column = "name";
    o.vertex_attr = "name";
    const char *cols[] = {"y\tq", "w"};
    o.columns = cols;
    o.n_columns = 2;
    o.label_column = "cls";
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, DATA "nodes.tsv", &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 2);
    assert_string_equal(t.columns[0], "y\tq");
    assert_string_equal(t.columns[1], "w");
    /* name a is line 5 (w 4, y 9), b line 2 (w 1, y 3), c (w 3, y 7), d (w 2, y 5) */
    expect_row(&t.features, 0, (float[]){9, 4});
    expect_row(&t.features, 1, (float[]){3, 1});
    expect_row(&t.features, 2, (float[]){7, 3});
    expect_row(&t.features, 3, (float[]){5, 2});
    assert_string_equal(t.labels[0], "");
    assert_string_equal(t.labels[1], "big \"B\"");
    assert_string_equal(t.labels[2], "multi\nline");
    assert_string_equal(t.labels[3], "small");
    ag_node_table_destroy(&t);
    igraph_destroy(&g);
}

static void test_cora_form(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.last_is_label = 1;
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, DATA "small.content", &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 3);
    assert_null(t.columns);
    expect_row(&t.features, 0, (float[]){1, 0, 0});
    expect_row(&t.features, 1, (float[]){0, 0, 1});
    expect_row(&t.features, 2, (float[]){0, 1, 1});
    expect_row(&t.features, 3, (float[]){1, 1, 1});
    ag_labels_t lab;
    assert_int_equal(ag_labels_from_strings(&lab, (const char *const *)t.labels, 4, NULL, 0, "small.content"),
                     AG_SUCCESS);
    assert_int_equal(lab.n_classes, 3);
    assert_string_equal(lab.classes[0], "Alpha");
    assert_string_equal(lab.classes[2], "Gamma");
    int32_t want[] = {0, 0, 1, 2};
    assert_memory_equal(lab.y, want, sizeof want);
    ag_labels_destroy(&lab);
    ag_node_table_destroy(&t);
    /* Without last_is_label the class name is a non-numeric feature: line 1, field 5. */
    assert_int_equal(ag_table_read(&t, DATA "small.content", &g, NULL), AG_EPARSE);
    assert_non_null(strstr(ag_error_message(), "small.content:1: field 5: 'Beta' is not a number"));
    assert_null(t.features.data);
    igraph_destroy(&g);
}

static void test_sparse(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.match_index = 1;
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, DATA "small.features", &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 5);
    expect_row(&t.features, 0, (float[]){1, 0, 0, 0, 0});
    expect_row(&t.features, 1, (float[]){0, 0, 0, 0, 0});
    expect_row(&t.features, 2, (float[]){0, 1, 0, 2.5f, 0});
    expect_row(&t.features, 3, (float[]){0.5f, 0, 0, 0, -1});
    ag_node_table_destroy(&t);
    o.width = 7;
    assert_int_equal(ag_table_read(&t, DATA "small.features", &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 7);
    assert_float_equal(t.features.data[3 * 7 + 4], -1.0f, 0.0f);
    ag_node_table_destroy(&t);
    o.width = 4;
    assert_int_equal(ag_table_read(&t, DATA "small.features", &g, &o), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "small.features:4: feature index 4 is beyond the width 4 (indices 0 "
                                               "to 3)"));
    assert_int_equal(t.features.cols, 0);
    /* what the width is (a model's, at prediction) is named */
    o.width_of = "the model";
    assert_int_equal(ag_table_read(&t, DATA "small.features", &g, &o), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "small.features:4: feature index 4 is beyond the width 4 of the model "
                                               "(indices 0 to 3)"));
    /* rows that all lack the top index: the width given, its column 0, not one column fewer */
    o.width = 6;
    char *no_top = write_temp("0 0:1\n1 2:3\n2\n3 1:-2\n", ".txt");
    o.format = AG_TABLE_SPARSE;
    assert_int_equal(ag_table_read(&t, no_top, &g, &o), AG_SUCCESS);
    unlink(no_top);
    assert_int_equal(t.features.cols, 6);
    expect_row(&t.features, 1, (float[]){0, 0, 3, 0, 0, 0});
    expect_row(&t.features, 3, (float[]){0, -2, 0, 0, 0, 0});
    ag_node_table_destroy(&t);
    /* By the `id` attribute instead, no row's id matches a vertex (ids are 10..40): the table is
     * keyed otherwise, which the error says rather than that the first id matches none. */
    ag_table_options_init(&o);
    o.format = AG_TABLE_SPARSE;
    assert_int_equal(ag_table_read(&t, DATA "small.features", &g, &o), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "small.features: none of the table's 4 ids matches a vertex (vertex "
                                                "attribute 'id', which holds '10', '20', ...; the table's first id is "
                                                "'2', line 1): the table is keyed by something else; key its rows by "
                                                "vertex attribute 'id', or name the vertex attribute that holds its "
                                                "ids (--table-id-attr)"));
    igraph_destroy(&g);
}

/* Reads text as a table with the default options and checks the code and a message fragment. */
static int ends_with(const char *s, const char *end) {
    const size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

static void expect_error(const igraph_t *g, const char *text, const char *suffix, const ag_table_options_t *o,
                         ag_error_t code, const char *fragment) {
    char *path = write_temp(text, suffix);
    ag_node_table_t t;
    ag_error_t rc = ag_table_read(&t, path, g, o);
    if (rc != code || !strstr(ag_error_message(), fragment) || !strstr(ag_error_message(), path))
        fail_msg("for %s: got %s \"%s\", want %s with \"%s\"", text, ag_error_name(rc), ag_error_message(),
                 ag_error_name(code), fragment);
    assert_null(t.features.data);
    assert_null(t.labels);
    unlink(path);
}

static void test_errors(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    const char *ok_rows = "20,2\n30,3\n40,4\n";
    char buf[256];
    expect_error(&g, "id,x\n10,1,5\n20,2\n30,3\n40,4\n", ".csv", NULL, AG_EPARSE, ":2: 3 fields, the header has 2");
    snprintf(buf, sizeof buf, "id,x\n10,abc\n%s", ok_rows);
    expect_error(&g, buf, ".csv", NULL, AG_EPARSE, ":2: column 'x': 'abc' is not a number");
    snprintf(buf, sizeof buf, "id,x\n10,\n%s", ok_rows);
    expect_error(&g, buf, ".csv", NULL, AG_EPARSE, ":2: column 'x': '' is not a number");
    expect_error(&g, "id,x\n10,1\n20,2\n10,5\n30,3\n40,4\n", ".csv", NULL, AG_EMISMATCH,
                 ":4: duplicate id '10' (first on line 2)");
    expect_error(&g, "id,x\n10,1\n20,2\n99,5\n30,3\n40,4\n", ".csv", NULL, AG_EMISMATCH,
                 ":4: id '99' matches no vertex");
    expect_error(&g, "id,x\n10,1\n30,3\n40,4\n", ".csv", NULL, AG_EMISMATCH, ": vertex 1 (id '20') has no row");
    snprintf(buf, sizeof buf, "id,x\n10,nan\n%s", ok_rows);
    expect_error(&g, buf, ".csv", NULL, AG_EVALUE, ":2: column 'x': value 'nan' is not finite");
    snprintf(buf, sizeof buf, "id,x\n10,-inf\n%s", ok_rows);
    expect_error(&g, buf, ".csv", NULL, AG_EVALUE, ":2: column 'x': value '-inf' is not finite");
    expect_error(&g, "id,x\n10,\"1\n20,2\n", ".csv", NULL, AG_EPARSE, ":2: unterminated quoted field");
    expect_error(&g, "id,x\n10,\"1\"x\n", ".csv", NULL, AG_EPARSE, ":2: text after the closing quote of field 2");
    expect_error(&g, "", ".csv", NULL, AG_EPARSE, ": empty file");
    /* a table exported without its header: the first row is not taken for one */
    expect_error(&g, "10,1\n20,2\n30,3\n40,4\n", ".csv", NULL, AG_EPARSE,
                 ":1: the first line is a row, not a header (its id '10' is a vertex's and every other field a number)");
    /* numbers as names are fine when the first field is no vertex's id */
    ag_node_table_t t2;
    char *numeric = write_temp("id,2020,2021\n10,1,2\n20,3,4\n30,5,6\n40,7,8\n", ".csv");
    assert_int_equal(ag_table_read(&t2, numeric, &g, NULL), AG_SUCCESS);
    unlink(numeric);
    assert_string_equal(t2.columns[1], "2021");
    ag_node_table_destroy(&t2);
    /* columns are matched by name: each needs its own */
    snprintf(buf, sizeof buf, "id,x,y,x\n10,1,2,3\n%s", "20,2,2,2\n30,3,3,3\n40,4,4,4\n");
    expect_error(&g, buf, ".csv", NULL, AG_EPARSE, ":1: column 'x' appears twice in the header");
    /* the label column's name on a feature as well: the feature would copy the labels */
    {
        ag_table_options_t lo;
        ag_table_options_init(&lo);
        lo.label_column = "y";
        expect_error(&g, "id,y,y\n10,a,1\n20,b,2\n30,a,3\n40,b,4\n", ".csv", &lo, AG_EPARSE,
                     ":1: column 'y' appears twice in the header (the labels and column 3)");
    }
    /* ... and a name: a trailing separator as spreadsheets export, with values or without */
    expect_error(&g, "id,x,\n10,1,5\n20,2,5\n30,3,5\n40,4,5\n", ".csv", NULL, AG_EPARSE,
                 ":1: column 3 of the header has no name (a trailing separator?): columns are matched by name; "
                 "name it, or remove the column");
    expect_error(&g, "id, ,x\n10,,1\n20,,2\n30,,3\n40,,4\n", ".csv", NULL, AG_EPARSE,
                 ":1: column 2 of the header has no name");
    /* the ids are the first column's: one named 'id' elsewhere is pointed at */
    expect_error(&g, "x,id\n1,10\n2,20\n3,30\n4,40\n", ".csv", NULL, AG_EMISMATCH,
                 ":2: id '1' matches no vertex (vertex attribute 'id'); the first column ('x') is taken as the ids, "
                 "and column 2 is named 'id': put it first");
    /* the same when the first column's values repeat, naming vertices (it said only "duplicate id") */
    expect_error(&g, "x,id\n10,10\n10,20\n30,30\n40,40\n", ".csv", NULL, AG_EMISMATCH,
                 ":3: duplicate id '10' (first on line 2); the first column ('x') is taken as the ids, and column 2 "
                 "is named 'id': put it first");
    /* the id column may be unnamed (pandas writes its index so) */
    char *unnamed_id = write_temp(",x\n10,1\n20,2\n30,3\n40,4\n", ".csv");
    assert_int_equal(ag_table_read(&t2, unnamed_id, &g, NULL), AG_SUCCESS);
    unlink(unnamed_id);
    assert_int_equal(t2.features.cols, 1);
    assert_string_equal(t2.columns[0], "x");
    ag_node_table_destroy(&t2);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.id_column = "key";
    expect_error(&g, "id,x\n", ".csv", &o, AG_EATTR, ":1: no id column 'key' in the header");
    ag_table_options_init(&o);
    const char *cols[] = {"nope"};
    o.columns = cols;
    o.n_columns = 1;
    expect_error(&g, "id,x\n", ".csv", &o, AG_EATTR, ":1: no feature column 'nope'");
    ag_table_options_init(&o);
    o.label_column = "cls";
    expect_error(&g, "id,x\n", ".csv", &o, AG_EATTR, ":1: no label column 'cls'");
    /* whitespace and sparse forms */
    expect_error(&g, "10 1 2\n20 1\n", ".content", NULL, AG_EPARSE, ":2: 2 fields, the first line has 3");
    expect_error(&g, "10 1 x\n", ".content", NULL, AG_EPARSE, ":1: field 3: 'x' is not a number");
    expect_error(&g, "10 1 inf\n", ".content", NULL, AG_EVALUE, ":1: field 3: value 'inf' is not finite");
    ag_table_options_init(&o);
    o.format = AG_TABLE_SPARSE;
    expect_error(&g, "10 1:1 2\n", ".txt", &o, AG_EPARSE, ":1: field 3: '2' is not index:value");
    expect_error(&g, "10 1:1 2:y\n", ".txt", &o, AG_EPARSE, ":1: field 3: value of '2:y' is not a number");
    expect_error(&g, "10 1:nan\n", ".txt", &o, AG_EVALUE, ":1: field 2: value of '1:nan' is not finite");
    expect_error(&g, "10 1:1\n20\n30\n20 0:1\n", ".txt", &o, AG_EMISMATCH, ":4: duplicate id '20' (first on line 2)");
    o.match_index = 1;
    expect_error(&g, "0\n1\n7\n", ".txt", &o, AG_EMISMATCH,
                 ":3: id '7' is not a vertex index (the graph has 4 vertices)");
    expect_error(&g, "0\n1\n3\n", ".txt", &o, AG_EMISMATCH, ": vertex 2 (id '2') has no row");
    /* a table numbered from 1 is asked about, only while id 0 has had no row */
    expect_error(&g, "1\n2\n3\n4\n", ".txt", &o, AG_EMISMATCH,
                 ":4: id '4' is not a vertex index (the graph has 4 vertices); no row so far has id 0: is the table "
                 "numbered from 1?");
    expect_error(&g, "0\n2\n3\n4\n", ".txt", &o, AG_EMISMATCH,
                 ":4: id '4' is not a vertex index (the graph has 4 vertices)");
    assert_true(ends_with(ag_error_message(), "(the graph has 4 vertices)"));
    assert_int_equal(ag_table_read_refused_graph(), 0); /* the table's errors, each naming it */
    /* the vertex attribute side: the graph's errors, which name no file, and the reader says so */
    ag_table_options_init(&o);
    o.vertex_attr = "color";
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, DATA "nodes.csv", &g, &o), AG_EATTR);
    assert_string_equal(ag_error_message(), "the graph has no vertex attribute 'color' to match the table's ids to (another "
                                            "attribute: --table-id-attr, ag_table_options_t.vertex_attr)");
    assert_int_equal(ag_table_read_refused_graph(), 1);
    /* a graph made without an attribute handler has no `id`; vertex indices still work */
    igraph_attribute_table_t *old = igraph_set_attribute_table(NULL);
    igraph_t bare;
    assert_int_equal(igraph_empty(&bare, 4, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    igraph_set_attribute_table(old);
    assert_int_equal(ag_table_read(&t, DATA "small.features", &bare, NULL), AG_EATTR);
    assert_string_equal(ag_error_message(), "the graph has no vertex attribute 'id' to match the table's ids to (another "
                                            "attribute: --table-id-attr, ag_table_options_t.vertex_attr)");
    o.vertex_attr = NULL;
    o.match_index = 1;
    assert_int_equal(ag_table_read(&t, DATA "small.features", &bare, &o), AG_SUCCESS);
    assert_int_equal(ag_table_read_refused_graph(), 0); /* reset by a success */
    assert_float_equal(t.features.data[2 * 5 + 3], 2.5f, 0.0f);
    ag_node_table_destroy(&t);
    igraph_destroy(&bare);
    assert_int_equal(ag_table_read(&t, "/nonexistent/x.csv", &g, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "/nonexistent/x.csv: cannot open"));
    assert_int_equal(ag_table_read_refused_graph(), 0);
    SETVAN(&g, "id", 3, 20.0);
    assert_int_equal(ag_table_read(&t, DATA "nodes.csv", &g, NULL), AG_EATTR);
    assert_string_equal(ag_error_message(),
                        "vertices 1 and 3 share the id '20' (vertex attribute 'id'): table rows cannot be matched");
    assert_int_equal(ag_table_read_refused_graph(), 1);
    /* the graph is checked first: a table that cannot be opened is not reached */
    assert_int_equal(ag_table_read(&t, "/nonexistent/x.csv", &g, NULL), AG_EATTR);
    assert_int_equal(ag_table_read_refused_graph(), 1);
    igraph_destroy(&g);
}

/* A sparse table is as wide as its largest index + 1: one token can ask for any amount of memory,
 * so the matrix is held to the read limit (ag_graph_read_set_max_memory()) as a graph file's
 * vertex count is, before it is allocated; a width given by a model is the model's. */
static void test_sparse_read_limit(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.format = AG_TABLE_SPARSE;
    const int64_t old = ag_graph_read_set_max_memory(1000);
    /* 4 rows x 32 float32, counted twice: 1,024 bytes, over */
    char *path = write_temp("10 0:1\n20 31:1 3:1\n30 31:2 3:1\n40\n", ".txt");
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_EREADLIMIT);
    char want[512];
    snprintf(want, sizeof want,
             "%s:2: feature index 31 makes the sparse table 32 columns wide: 4 rows x 32 float32, held twice (the "
             "table and the features made from it), take about 1.0 KiB, over the limit of 1000 B (set by --max-memory "
             "or ag_graph_read_set_max_memory()); a sparse table is read as a dense matrix as wide as its largest "
             "index + 1, and it uses 3 distinct indices: renumber them 0 to 2, or raise the limit (--max-memory)",
             path);
    assert_string_equal(ag_error_message(), want);
    assert_null(t.features.data);
    assert_int_equal(ag_table_read_refused_graph(), 0);
    unlink(path);
    /* 4 x 31 x 4 x 2 = 992 bytes: within */
    path = write_temp("10 0:1\n20 30:1\n30\n40\n", ".txt");
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 31);
    assert_float_equal(t.features.data[1 * 31 + 30], 1.0f, 0.0f);
    ag_node_table_destroy(&t);
    /* a model's width of 100 (3,200 bytes counted twice) is not the file's doing */
    o.width = 100;
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 100);
    ag_node_table_destroy(&t);
    /* no limit */
    o.width = 0;
    ag_graph_read_set_max_memory(-1);
    unlink(path);
    path = write_temp("10 0:1\n20 1000:1\n30\n40\n", ".txt");
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.cols, 1001);
    ag_node_table_destroy(&t);
    unlink(path);
    assert_int_equal(ag_graph_read_set_max_memory(old), -1);
    igraph_destroy(&g);
}

/* index_fallback: a table whose ids match no vertex attribute but are all vertex indices (PyG's
 * x.csv beside a GraphML graph) is matched by index and says so; any id of the attribute keeps
 * the attribute and its error. absent_note: appended to an id that could name a missing vertex. */
static void test_index_fallback(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g); /* ids 10..40, names a..d */
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.index_fallback = 1;
    ag_node_table_t t;
    char *path = write_temp(",x\n2,2.5\n0,0.5\n3,3.5\n1,1.5\n", ".csv");
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.by_index, 1);
    for (int v = 0; v < 4; v++) assert_float_equal(t.features.data[v], v + 0.5f, 0.0f);
    ag_node_table_destroy(&t);
    /* the same by the string attribute */
    o.vertex_attr = "name";
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.by_index, 1);
    assert_float_equal(t.features.data[3], 3.5f, 0.0f);
    ag_node_table_destroy(&t);
    /* without the option, no id matches: the table is keyed otherwise */
    ag_table_options_init(&o);
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ": none of the table's 4 ids matches a vertex (vertex attribute 'id', "
                                               "which holds '10', '20', ...; the table's first id is '2', line 2)"));
    unlink(path);
    /* ids of the attribute are matched by it, with no fallback */
    o.index_fallback = 1;
    path = write_temp(",x\n20,2\n10,1\n40,4\n30,3\n", ".csv");
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_SUCCESS);
    assert_int_equal(t.by_index, 0);
    assert_float_equal(t.features.data[3], 4.0f, 0.0f);
    ag_node_table_destroy(&t);
    unlink(path);
    static const struct {
        const char *text, *suffix;
        ag_error_t code;
        const char *fragment;
    } cases[] = {
        /* a partial match, before or after the indices: the first id matching no vertex, as without it */
        {",x\n0,1\n1,1\n30,1\n3,1\n", ".csv", AG_EMISMATCH, ":2: id '0' matches no vertex (vertex attribute 'id')"},
        {",x\n10,1\n1,1\n2,1\n3,1\n", ".csv", AG_EMISMATCH, ":3: id '1' matches no vertex (vertex attribute 'id')"},
        /* an id that is no index either */
        {",x\n0,1\n1,1\n2,1\n4,1\n", ".csv", AG_EMISMATCH, ":2: id '0' matches no vertex (vertex attribute 'id')"},
        /* indices until the last id, one past them, while id 0 had no row: a table numbered from 1 */
        {",x\n1,1\n2,1\n3,1\n4,1\n", ".csv", AG_EMISMATCH,
         ":5: id '4' is not a vertex index (the graph has 4 vertices, and the table's ids were taken as vertex indices, "
         "since none matched vertex attribute 'id'); no row so far has id 0: is the table numbered from 1?"},
        /* every id an index, but the table is not whole: said with the rule applied */
        {",x\n0,1\n1,1\n2,1\n", ".csv", AG_EMISMATCH,
         ": vertex 3 (id '3') has no row (the table's ids were taken as vertex indices, since none matched vertex "
         "attribute 'id')"},
        {"0 1:1\n1\n1\n2\n3\n", ".txt", AG_EMISMATCH,
         ":3: duplicate id '1' (first on line 2) (the table's ids were taken as vertex indices, since none matched "
         "vertex attribute 'id')"},
        /* a headerless CSV of indices is still told to be one */
        {"0,1\n1,2\n2,3\n3,4\n", ".csv", AG_EPARSE, ":1: the first line is a row, not a header (its id '0' is a "
         "vertex's"},
        /* an id column elsewhere in the header is the key, not the first column's indices */
        {"k,id\n0,10\n1,20\n2,30\n3,40\n", ".csv", AG_EMISMATCH,
         ":2: id '0' matches no vertex (vertex attribute 'id'); the first column ('k') is taken as the ids, and column "
         "2 is named 'id': put it first"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        expect_error(&g, cases[k].text, cases[k].suffix, &o, cases[k].code, cases[k].fragment);
    expect_error(&g, cases[0].text, cases[0].suffix, &o, cases[0].code, cases[0].fragment);
    assert_true(ends_with(ag_error_message(), "(vertex attribute 'id')"));
    /* match_index already: the option changes nothing */
    o.format = AG_TABLE_SPARSE;
    o.match_index = 1;
    expect_error(&g, "0\n1\n2\n3\n9\n", ".txt", &o, AG_EMISMATCH,
                 ":5: id '9' is not a vertex index (the graph has 4 vertices)");
    /* absent_note: for an index at or beyond the vertex count, not for a malformed id */
    o.absent_note = "no vertex without an edge";
    expect_error(&g, "0\n1\n2\n3\n9\n", ".txt", &o, AG_EMISMATCH,
                 ":5: id '9' is not a vertex index (the graph has 4 vertices): no vertex without an edge");
    expect_error(&g, "0\n1\n2\n3\n99999999999999999999\n", ".txt", &o, AG_EMISMATCH,
                 "(the graph has 4 vertices): no vertex without an edge");
    expect_error(&g, "0\n1\nx\n", ".txt", &o, AG_EMISMATCH, ":3: id 'x' is not a vertex index");
    assert_true(ends_with(ag_error_message(), "(the graph has 4 vertices)"));
    expect_error(&g, "0\n1\n-1\n", ".txt", &o, AG_EMISMATCH, ":3: id '-1' is not a vertex index");
    assert_true(ends_with(ag_error_message(), "(the graph has 4 vertices)"));
    /* by an attribute, for any id */
    o.match_index = 0;
    o.vertex_attr = "name";
    expect_error(&g, "a\nb\nz\n", ".txt", &o, AG_EMISMATCH,
                 ":3: id 'z' matches no vertex (vertex attribute 'name'): no vertex without an edge");
    igraph_destroy(&g);
}

/* A first row matching no vertex: when a later row matches, the table is keyed by the attribute
 * and the first row is its defect (that row's error); when none does, the table is keyed by
 * something else, said with the attribute's values beside the table's first id. Each reader. */
static void test_keyed_otherwise(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g); /* ids 10..40, names a..d */
    ag_table_options_t o;
    ag_table_options_init(&o);
    ag_node_table_t t;
    const char *defect[] = {"id,x\n99,1\n20,2\n", "99 1\n20 2\n", "99 0:1\n20 0:2\n"};
    const char *keyed[] = {"id,x\nb,1\nc,2\n", "b 1\nc 2\n", "b 0:1\nc 0:2\n"};
    const char *first_line[] = {"2", "1", "1"};
    for (int k = 0; k < 3; k++) {
        char *path = write_temp(defect[k], k == 0 ? ".csv" : ".txt");
        assert_int_equal(ag_table_read(&t, path, &g, &o), AG_EMISMATCH);
        char want[256];
        snprintf(want, sizeof want, "%s:%s: id '99' matches no vertex (vertex attribute 'id')", path, first_line[k]);
        assert_string_equal(ag_error_message(), want);
        unlink(path);
        path = write_temp(keyed[k], k == 0 ? ".csv" : ".txt");
        assert_int_equal(ag_table_read(&t, path, &g, &o), AG_EMISMATCH);
        snprintf(want, sizeof want, "%s: none of the table's 2 ids matches a vertex (vertex attribute 'id', which holds "
                 "'10', '20', ...; the table's first id is 'b', line %s)", path, first_line[k]);
        if (strncmp(ag_error_message(), want, strlen(want))) fail_msg("%s\nwant %s", ag_error_message(), want);
        unlink(path);
    }
    /* one row */
    char *path = write_temp("id,x\nb,1\n", ".csv");
    assert_int_equal(ag_table_read(&t, path, &g, &o), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ": the table's one id matches no vertex (vertex attribute 'id', "));
    unlink(path);
    igraph_destroy(&g);
}

static void test_alloc_failures(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.label_column = "cls";
    o.id_column = "name";
    o.vertex_attr = "name";
    const char *files[] = {DATA "nodes.csv", DATA "nodes.tsv", DATA "small.content", DATA "small.features"};
    for (int f = 0; f < 4; f++) {
        ag_table_options_t use;
        ag_table_options_init(&use);
        if (f == 1) use = o;
        if (f == 2) use.last_is_label = 1;
        if (f == 3) use.match_index = 1;
        int n_ok = 0;
        for (int64_t k = 1; k < 200; k++) {
            ag_node_table_t t;
            ag_i_alloc_fail_at(k);
            ag_error_t rc = ag_table_read(&t, files[f], &g, &use);
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) {
                ag_node_table_destroy(&t);
                n_ok = 1;
                break;
            }
            assert_int_equal(rc, AG_ENOMEM);
            assert_null(t.features.data);
            /* the table's own errors start with its path, as the others do (a program names no
             * file for them: a wide sparse table's matrix said 'out of memory' alone); the
             * graph's name no file, and the reader says whose they are */
            const size_t n = strlen(files[f]);
            const int named = !strncmp(ag_error_message(), files[f], n) && ag_error_message()[n] == ':';
            if (named == ag_table_read_refused_graph()) fail_msg("allocation %lld of %s: '%s' (the graph's: %d)",
                                                                 (long long)k, files[f], ag_error_message(),
                                                                 ag_table_read_refused_graph());
        }
        assert_true(n_ok);
    }
    igraph_destroy(&g);
}

/* Seeded random text made of the characters that matter to the tokenizer: every reader (node
 * tables, and the labels-table and split readers on the same tokenizer) must return
 * a code (success or a recorded error), never crash or leak (checked under ASan). */
static void test_random_text(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    const char alphabet[] = ",,\"\"\n\n\r\t  0123:.-1020304nanifab";
    const char *suffixes[] = {".csv", ".tsv", ".content", ".txt"};
    char text[200];
    int successes = 0;
    for (int round = 0; round < 400; round++) {
        uint64_t seed = (uint64_t)round * 0x9E3779B97F4A7C15ULL + 1;
        int len = (int)(ag_rng_u64(seed, 0, 0) % (sizeof text - 1));
        for (int i = 0; i < len; i++) text[i] = alphabet[ag_rng_u64(seed, 1, (uint64_t)i) % (sizeof alphabet - 1)];
        text[len] = '\0';
        char *path = write_temp(text, suffixes[round % 4]);
        ag_table_options_t o;
        ag_table_options_init(&o);
        o.match_index = round % 3 == 0;
        o.last_is_label = round % 5 == 0;
        ag_node_table_t t;
        ag_error_t rc = ag_table_read(&t, path, &g, &o);
        if (rc == AG_SUCCESS) {
            successes++;
            ag_node_table_destroy(&t);
        } else {
            assert_true(ag_error_message()[0] != '\0');
            assert_null(t.features.data);
        }
        /* the same text as a labels table and as a split column */
        ag_targets_t tg;
        if (ag_targets_read_csv(&tg, path, NULL) == AG_SUCCESS) ag_targets_destroy(&tg);
        else assert_null(tg.y.data);
        ag_split_t sp;
        if (ag_split_read_csv(&sp, path, "0", NULL, 3) == AG_SUCCESS) ag_split_destroy(&sp);
        else assert_null(sp.folds);
        unlink(path);
    }
    /* random text almost never covers the 4 vertices exactly once */
    assert_true(successes < 400);
    igraph_destroy(&g);
}

static void test_shared_cora_and_twitch(void **state) {
    (void)state;
    igraph_set_attribute_table(&igraph_cattribute_table);
    FILE *f = fopen(AG_SHARED_DATASETS "/cora/cora.gml", "r");
    if (!f) skip();
    igraph_t g;
    assert_int_equal(igraph_read_graph_gml(&g, f), IGRAPH_SUCCESS);
    fclose(f);
    ag_table_options_t o;
    ag_table_options_init(&o);
    o.last_is_label = 1;
    ag_node_table_t t;
    assert_int_equal(ag_table_read(&t, AG_SHARED_DATASETS "/cora/cora.content", &g, &o), AG_SUCCESS);
    assert_int_equal(t.features.rows, 2708);
    assert_int_equal(t.features.cols, 1433);
    double sum = 0;
    for (int64_t i = 0; i < 2708 * 1433; i++) sum += t.features.data[i];
    assert_float_equal(sum, 49216.0, 0.0);
    /* vertex 0 is paper 31336: words 118 125 176 ... 1426 (20 ones), Neural_Networks */
    float s0 = 0;
    for (int c = 0; c < 1433; c++) s0 += t.features.data[c];
    assert_float_equal(s0, 20.0f, 0.0f);
    assert_float_equal(t.features.data[118], 1.0f, 0.0f);
    assert_float_equal(t.features.data[1426], 1.0f, 0.0f);
    assert_float_equal(t.features.data[119], 0.0f, 0.0f);
    assert_string_equal(t.labels[0], "Neural_Networks");
    /* the label column agrees with the graph's `subject` attribute */
    ag_labels_t a, b;
    assert_int_equal(ag_labels_from_strings(&a, (const char *const *)t.labels, 2708, NULL, 0, "cora.content"),
                     AG_SUCCESS);
    assert_int_equal(ag_labels_from_attr(&b, &g, "label", NULL, 0), AG_SUCCESS);
    assert_int_equal(a.n_classes, 7);
    assert_int_equal(b.n_classes, 7);
    assert_memory_equal(a.y, b.y, 2708 * sizeof(int32_t));
    ag_labels_destroy(&a);
    ag_labels_destroy(&b);
    ag_node_table_destroy(&t);
    igraph_destroy(&g);

    f = fopen(AG_SHARED_DATASETS "/twitch-en/twitch_en.gml", "r");
    assert_non_null(f);
    assert_int_equal(igraph_read_graph_gml(&g, f), IGRAPH_SUCCESS);
    fclose(f);
    assert_int_equal(ag_table_read(&t, AG_SHARED_DATASETS "/twitch-en/features.txt", &g, NULL), AG_SUCCESS);
    assert_int_equal(t.features.rows, 7126);
    assert_int_equal(t.features.cols, 3170);
    sum = 0;
    for (int64_t i = 0; i < 7126 * 3170; i++) sum += t.features.data[i];
    assert_float_equal(sum, 147683.0, 0.0);
    /* line 6: vertex 5 has 139:1 ... 3061:1 */
    assert_float_equal(t.features.data[5 * 3170 + 139], 1.0f, 0.0f);
    assert_float_equal(t.features.data[5 * 3170 + 3061], 1.0f, 0.0f);
    ag_node_table_destroy(&t);
    igraph_destroy(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_tsv_quoted_subset_label),
        cmocka_unit_test(test_cora_form),
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_sparse_read_limit),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_index_fallback),
        cmocka_unit_test(test_keyed_otherwise),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_random_text),
        cmocka_unit_test(test_shared_cora_and_twitch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
