/* Tests of node labels (vertex attributes, strings) and graph targets (tables, graph attributes). */
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
#include <attngraph/labels.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

#define DATA AG_SOURCE_DIR "/tests/data/tables/"

static char *write_temp(const char *text) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/ag_labels_XXXXXX.csv");
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* 5 vertices: numeric `num` {10, 2, NaN, 2, 1.5}, string `str` {"b", "a", "", "c", "a"},
 * boolean `flag` {T, F, F, T, F}. */
static void make_graph(igraph_t *g) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    assert_int_equal(igraph_empty(g, 5, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    const double num[] = {10, 2, NAN, 2, 1.5};
    const char *str[] = {"b", "a", "", "c", "a"};
    for (int v = 0; v < 5; v++) {
        SETVAN(g, "num", v, num[v]);
        SETVAS(g, "str", v, str[v]);
        SETVAB(g, "flag", v, v == 0 || v == 3);
    }
}

static void test_numeric_labels(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_labels_t l;
    assert_int_equal(ag_labels_from_attr(&l, &g, "num", NULL, 0), AG_SUCCESS);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.n_classes, 3); /* sorted numerically, not as text: 1.5 < 2 < 10 */
    assert_string_equal(l.classes[0], "1.5");
    assert_string_equal(l.classes[1], "2");
    assert_string_equal(l.classes[2], "10");
    int32_t want[] = {2, 1, -1, 1, 0};
    assert_memory_equal(l.y, want, sizeof want);
    ag_labels_destroy(&l);
    /* given list, in its own order; "2.0" matches 2 numerically */
    const char *given[] = {"10", "2.0", "1.5", "7"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "num", given, 4), AG_SUCCESS);
    int32_t want2[] = {0, 1, -1, 1, 2};
    assert_memory_equal(l.y, want2, sizeof want2);
    assert_int_equal(l.n_classes, 4);
    assert_string_equal(l.classes[3], "7");
    ag_labels_destroy(&l);
    const char *outsider[] = {"2", "10"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "num", outsider, 2), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "vertex attribute 'num': vertex 4 has value 1.5, which is not a class (the 2 classes given: "
                        "'2', '10')");
    assert_null(l.y);
    const char *not_num[] = {"2", "ten"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "num", not_num, 2), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "vertex attribute 'num': the values are numbers but class 'ten' is not (the 2 classes given: "
                        "'2', 'ten'): is it the attribute or column the classes came from?");
    assert_int_equal(ag_labels_from_attr(&l, &g, "flag", NULL, 0), AG_SUCCESS);
    int32_t want3[] = {1, 0, 0, 1, 0};
    assert_memory_equal(l.y, want3, sizeof want3);
    assert_string_equal(l.classes[1], "1");
    ag_labels_destroy(&l);
    igraph_destroy(&g);
}

/* Which vertices are labelled, by ag_labels_from_attr's rule, for any attribute type. */
static void test_labels_present(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    unsigned char in[5];
    int64_t n = -1;
    assert_int_equal(ag_labels_present(&g, "num", in, &n), AG_SUCCESS);
    const unsigned char want_num[] = {1, 1, 0, 1, 1};
    assert_memory_equal(in, want_num, sizeof in);
    assert_int_equal(n, 4);
    assert_int_equal(ag_labels_present(&g, "str", in, NULL), AG_SUCCESS);
    const unsigned char want_str[] = {1, 1, 0, 1, 1};
    assert_memory_equal(in, want_str, sizeof in);
    assert_int_equal(ag_labels_present(&g, "flag", in, &n), AG_SUCCESS);
    assert_int_equal(n, 5); /* a boolean has no missing value */
    assert_int_equal(ag_labels_present(&g, "nope", in, &n), AG_EATTR);
    assert_string_equal(ag_error_message(), "the graph has no vertex attribute 'nope' (its vertex attributes: num, "
                                            "str, flag)");
    assert_int_equal(n, 0);
    assert_int_equal(ag_labels_present(&g, "num", NULL, &n), AG_EINVAL);
    igraph_destroy(&g);
}

static void test_string_labels(void **state) {
    (void)state;
    igraph_t g;
    make_graph(&g);
    ag_labels_t l;
    assert_int_equal(ag_labels_from_attr(&l, &g, "str", NULL, 0), AG_SUCCESS);
    assert_int_equal(l.n_classes, 3);
    assert_string_equal(l.classes[0], "a");
    assert_string_equal(l.classes[2], "c");
    int32_t want[] = {1, 0, -1, 2, 0};
    assert_memory_equal(l.y, want, sizeof want);
    ag_labels_destroy(&l);
    const char *given[] = {"c", "b", "a"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "str", given, 3), AG_SUCCESS);
    int32_t want2[] = {1, 2, -1, 0, 2};
    assert_memory_equal(l.y, want2, sizeof want2);
    ag_labels_destroy(&l);
    /* GML's 0/1 column with one "NA" is text: fitting refuses the word rather than learn a class
     * 'NA'; a model's classes say what a value is */
    {
        igraph_t h;
        make_graph(&h);
        const char *codes[] = {"1", "0", "NA", "", "1"};
        for (int v = 0; v < 5; v++) SETVAS(&h, "code", v, codes[v]);
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", NULL, 0), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex attribute 'code': vertex 2 has value 'NA', which is not a "
                                                   "number, where the attribute's other values are"));
        assert_null(l.y);
        const char *bin[] = {"0", "1"};
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", bin, 2), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 2 has value 'NA', which is not a class"));
        /* a graph with keys of its own (GraphML's node ids: "204" is at index 2) names the vertex by
         * both, as the features' messages do; the index alone sent a reader to node "2" */
        for (int v = 0; v < 5; v++) SETVAS(&h, "id", v, v == 2 ? "204" : "9");
        /* an id that is the index itself adds nothing: "vertex 3 (id '3')" */
        SETVAS(&h, "id", 3, "3");
        SETVAS(&h, "code", 3, "x");
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", bin, 2), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 2 (id '204') has value 'NA', which is not a class"));
        SETVAS(&h, "code", 2, "1");
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", bin, 2), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 3 has value 'x', which is not a class"));
        SETVAS(&h, "code", 2, "NA");
        SETVAS(&h, "code", 3, "");
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", NULL, 0), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 2 (id '204') has value 'NA', which is not a number"));
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", bin, 2), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 2 (id '204') has value 'NA', which is not a class"));
        /* a name that is not UTF-8 cannot be shown: the index alone */
        DELVA(&h, "id");
        SETVAS(&h, "name", 2, "caf\xe9");
        assert_int_equal(ag_labels_from_attr(&l, &h, "code", bin, 2), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), "vertex 2 has value 'NA', which is not a class"));
        igraph_destroy(&h);
    }
    const char *outsider[] = {"a", "b"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "str", outsider, 2), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "vertex attribute 'str': vertex 3 has value 'c', which is not a class (the 2 classes given: 'a', "
                        "'b')");
    /* a long list is cut at five */
    const char *many[] = {"a", "b", "d", "e", "f", "g", "h"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "str", many, 7), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "vertex attribute 'str': vertex 3 has value 'c', which is not a class (the 7 classes given: 'a', "
                        "'b', 'd', 'e', 'f', ...)");
    const char *dup[] = {"a", "b", "a"};
    assert_int_equal(ag_labels_from_attr(&l, &g, "str", dup, 3), AG_EINVAL);
    assert_string_equal(ag_error_message(), "vertex attribute 'str': class 'a' appears twice in the given list");
    assert_int_equal(ag_labels_from_attr(&l, &g, "nope", NULL, 0), AG_EATTR);
    assert_string_equal(ag_error_message(), "the graph has no vertex attribute 'nope' (its vertex attributes: num, "
                                            "str, flag)");
    /* the names that are there, cut to fit; a graph without any says none */
    igraph_t many_attrs;
    igraph_empty(&many_attrs, 1, IGRAPH_UNDIRECTED);
    assert_int_equal(ag_labels_from_attr(&l, &many_attrs, "nope", NULL, 0), AG_EATTR);
    assert_string_equal(ag_error_message(), "the graph has no vertex attribute 'nope' (its vertex attributes: none)");
    for (int k = 0; k < 20; k++) {
        char name[64];
        snprintf(name, sizeof name, "a_rather_long_attribute_name_%02d", k);
        SETVAN(&many_attrs, name, 0, k);
    }
    assert_int_equal(ag_labels_from_attr(&l, &many_attrs, "nope", NULL, 0), AG_EATTR);
    const char *msg = ag_error_message(), *dots = strstr(msg, ", ...)");
    assert_non_null(strstr(msg, "(its vertex attributes: a_rather_long_attribute_name_00, a_rather_long_attribute_name_01, "));
    assert_non_null(dots);
    assert_string_equal(dots, ", ...)");
    assert_true(strlen(msg) < 320);
    igraph_destroy(&many_attrs);
    /* strings from a table: NULL and "" are unlabelled */
    const char *vals[] = {"x", NULL, "", "w", "x"};
    assert_int_equal(ag_labels_from_strings(&l, vals, 5, NULL, 0, "t.csv"), AG_SUCCESS);
    int32_t want3[] = {1, -1, -1, 0, 1};
    assert_memory_equal(l.y, want3, sizeof want3);
    ag_labels_destroy(&l);
    assert_int_equal(ag_labels_from_strings(&l, vals, 5, outsider, 2, "t.csv"), AG_EVALUE);
    assert_string_equal(ag_error_message(), "t.csv: vertex 0 has value 'x', which is not a class (the 2 classes given: 'a', 'b')");
    /* class names are stored in the model file's JSON header: Latin-1 is refused before training */
    const char *latin1[] = {"x", "\xE9t\xE9", "w"};
    assert_int_equal(ag_labels_from_strings(&l, latin1, 3, NULL, 0, "t.csv"), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "t.csv: vertex 1 has value '\\xE9t\\xE9', which is not valid UTF-8: a model file stores class "
                        "names as UTF-8 text; convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)");
    assert_null(l.y);
    const char *given_latin1[] = {"x", "w\xFC"};
    assert_int_equal(ag_labels_from_strings(&l, vals, 5, given_latin1, 2, "t.csv"), AG_EINVAL);
    assert_string_equal(ag_error_message(), "t.csv: class 'w\\xFC' of the given list is not valid UTF-8 (a model file "
                                            "stores class names as UTF-8 text)");
    const char *utf8[] = {"x", "\xC3\xA9t\xC3\xA9", "w"};
    assert_int_equal(ag_labels_from_strings(&l, utf8, 3, NULL, 0, "t.csv"), AG_SUCCESS);
    assert_string_equal(l.classes[2], "\xC3\xA9t\xC3\xA9");
    ag_labels_destroy(&l);
    int reached = 0;
    for (int64_t k = 1; k < 20 && !reached; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_labels_from_attr(&l, &g, "str", given, 3);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            ag_labels_destroy(&l);
            reached = 1;
            continue;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(l.y);
    }
    assert_true(reached);
    igraph_destroy(&g);
}

static float y_at(const ag_targets_t *t, int64_t g, int64_t j) { return t->y.data[g * t->n_tasks + j]; }

static void test_targets_table(void **state) {
    (void)state;
    ag_targets_t t;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", NULL), AG_SUCCESS);
    /* automatic: t1, t2, score (smiles and kind are strings) */
    assert_int_equal(t.n_graphs, 3);
    assert_int_equal(t.n_tasks, 3);
    assert_string_equal(t.tasks[0], "t1");
    assert_string_equal(t.tasks[2], "score");
    assert_int_equal(t.kinds[0], AG_TASK_BINARY);
    assert_int_equal(t.kinds[1], AG_TASK_BINARY);
    assert_int_equal(t.kinds[2], AG_TASK_REGRESSION);
    assert_int_equal(t.n_classes[0], 2);
    assert_string_equal(t.files[1], "g/b.gml");
    assert_float_equal(y_at(&t, 0, 0), 1.0f, 0.0f);
    assert_true(isnan(y_at(&t, 0, 1)));
    assert_float_equal(y_at(&t, 1, 1), 1.0f, 0.0f);
    assert_true(isnan(y_at(&t, 2, 0)));
    assert_float_equal(y_at(&t, 1, 2), -2.0f, 0.0f);
    assert_float_equal(y_at(&t, 2, 2), 3.25f, 0.0f);
    ag_targets_destroy(&t);
    ag_targets_destroy(&t);

    /* a column empty in every row beside numeric ones is refused by the default choice (it was
     * dropped without a word: a model of one task from a table of two), and taken when others are
     * named */
    const char *pe = write_temp("file,t1,t2\na.gml,1,\nb.gml,0,\n");
    assert_int_equal(ag_targets_read_csv(&t, pe, NULL), AG_EATTR);
    assert_memory_equal(ag_error_message(), pe, strlen(pe));
    assert_string_equal(ag_error_message() + strlen(pe),
                        ": column 't2' has no value in any row, beside the target columns taken by default: a task "
                        "without labels cannot be learnt; fill it, drop it, or name the targets");
    ag_targets_options_t oe;
    ag_targets_options_init(&oe);
    const char *only_t1[] = {"t1"};
    oe.targets = only_t1;
    oe.n_targets = 1;
    assert_int_equal(ag_targets_read_csv(&t, pe, &oe), AG_SUCCESS);
    assert_int_equal(t.n_tasks, 1);
    ag_targets_destroy(&t);
    unlink(pe);

    /* a column's name becomes a task name in the model file: Latin-1 is refused */
    const char *p1 = write_temp("file,t\xE4sk\na.gml,1\nb.gml,0\n");
    assert_int_equal(ag_targets_read_csv(&t, p1, NULL), AG_EVALUE);
    char want_msg[400];
    snprintf(want_msg, sizeof want_msg,
             "%s:1: the name of column 2, 't\\xE4sk', is not valid UTF-8: a model file stores task names as UTF-8 "
             "text; convert the table to UTF-8 (e.g. iconv -f latin1 -t utf-8)", p1);
    assert_string_equal(ag_error_message(), want_msg);
    unlink(p1);
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", NULL), AG_SUCCESS);
    const char *three[] = {"a", "b\xE4", "c"};
    assert_int_equal(ag_targets_rename(&t, three, 3), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "ag_targets_rename: name 1 is not valid UTF-8 (a model file stores task names as UTF-8 text)");
    assert_string_equal(t.tasks[1], "t2");
    ag_targets_destroy(&t);

    ag_targets_options_t o;
    ag_targets_options_init(&o);
    const char *names[] = {"kind", "t1"};
    ag_task_kind_t kinds[] = {AG_TASK_AUTO, AG_TASK_MULTICLASS};
    o.targets = names;
    o.n_targets = 2;
    o.kinds = kinds;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_SUCCESS);
    assert_int_equal(t.kinds[0], AG_TASK_MULTICLASS);
    assert_int_equal(t.n_classes[0], 2);
    assert_string_equal(t.classes[0][0], "x");
    assert_string_equal(t.classes[0][1], "y");
    assert_float_equal(y_at(&t, 0, 0), 0.0f, 0.0f);
    assert_float_equal(y_at(&t, 1, 0), 1.0f, 0.0f);
    assert_true(isnan(y_at(&t, 2, 0)));
    assert_int_equal(t.kinds[1], AG_TASK_MULTICLASS);
    assert_string_equal(t.classes[1][0], "0");
    assert_float_equal(y_at(&t, 0, 1), 1.0f, 0.0f);
    ag_targets_destroy(&t);

    kinds[0] = AG_TASK_REGRESSION;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "targets.csv:2: column 'kind': 'x' is not a number"));
    assert_null(t.y.data);
    kinds[0] = AG_TASK_AUTO;
    kinds[1] = AG_TASK_BINARY;
    const char *score[] = {"kind", "score"};
    o.targets = score;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EVALUE);
    assert_non_null(
        strstr(ag_error_message(), "targets.csv: column 'score': g/a.gml has the value 0.5 in a binary task"));
    const char *absent[] = {"nope"};
    o.targets = absent;
    o.n_targets = 1;
    o.kinds = NULL;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "targets.csv:1: no target column 'nope' in the header (its columns "
                                               "besides 'file': 'smiles', 't1', 't2', 'score', 'kind')"));
    const char *files[] = {"file"};
    o.targets = files;
    o.n_targets = 1;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "targets.csv:1: 'file' is the column of the graphs' files, not a target"));
    const char *twice[] = {"kind", "kind"};
    o.targets = twice;
    o.n_targets = 2;
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EINVAL);
    assert_string_equal(ag_error_message(), "target 'kind' is named twice: a model has one output per target");
    assert_null(t.y.data);
    ag_targets_options_init(&o);
    o.file_column = "path";
    assert_int_equal(ag_targets_read_csv(&t, DATA "targets.csv", &o), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "targets.csv:1: no 'path' column in the header (its columns: "));
    /* the header's names, and the option that names the column: a table of 'path' was refused
     * without either */
    assert_non_null(strstr(ag_error_message(), "); option file_column names the column of the graph files"));

    struct {
        const char *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"file,y\na,1\nb,2\na,3\n", AG_EMISMATCH, ":4: duplicate file 'a' (first on line 2)"},
        /* one file under two spellings: it could sit in train and test at once */
        {"file,y\ng/a,1\nb,2\n./g//x/../a,3\n", AG_EMISMATCH,
         ":4: duplicate file './g//x/../a': the same as 'g/a' on line 2"},
        {"file,y\na,1\nb,inf\n", AG_EVALUE, ":3: column 'y': value 'inf' is not finite (a missing label is an empty cell)"},
        /* R's NA in a column of 0/1: the default choice dropped the task without a word */
        {"file,p,q\na,1,0\nb,0,NA\nc,1,1\n", AG_EVALUE,
         ":3: column 'q': 'NA' is not a number, where the column's other values are: a missing label is an empty "
         "cell here"},
        {"file,p,q\na,1,0\nb,0,1\nc,1, n/a \n", AG_EVALUE, ":4: column 'q': ' n/a ' is not a number"},
        {"file,y\na,1\nb,-1e39\n", AG_EVALUE,
         ": column 'y': b has the value -1e+39, beyond the float32 range (3.40282e+38) targets are held in"},
        /* three values float32 rounds to one: training would see a constant */
        {"file,y\na,1000000000\nb,1000000001\nc,1000000002\n", AG_EVALUE,
         ": column 'y': its values differ by 0.816 (standard deviation) around 1e+09, below what float32"},
        {"file,y\na,1,2\n", AG_EPARSE, ":2: 3 fields, the header has 2"},
        {"file,smiles,name\na,CC,x\n", AG_EATTR,
         ": no numeric target column besides 'file' to take by default: name the target (the other columns: "
         "'smiles', 'name')"},
        {"file\na\n", AG_EATTR, ": no target column besides 'file'"},
        {"file,kind\n", AG_EPARSE, ": a header and no row: one row per graph is expected"},
        /* lines ended by a carriage return alone read as one line: said so */
        {"file,y\ra,1\rb,0\r", AG_EPARSE, "expected ('file' and its targets); its lines end with a carriage return "
         "alone (as classic Mac OS wrote them): make them newlines"},
        {"file,y,y\na,1,2\n", AG_EPARSE, ":1: the header names column 'y' twice (columns 2 and 3): rename one"},
        {"file,y,file\na,1,b\n", AG_EPARSE, ":1: the header names column 'file' twice (columns 1 and 3)"},
        {"file,kind\na,\nb, \n", AG_EATTR, ": no numeric target column besides 'file' to take by default"},
        {"", AG_EPARSE, ": empty file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = write_temp(bad[i].text);
        ag_error_t rc = ag_targets_read_csv(&t, path, NULL);
        if (rc != bad[i].code || !strstr(ag_error_message(), bad[i].fragment) || !strstr(ag_error_message(), path))
            fail_msg("case %zu: got %s \"%s\"", i, ag_error_name(rc), ag_error_message());
        unlink(path);
    }
    /* Named, the same column became a class "NA" beside "0" and "1" */
    {
        char *path = write_temp("file,q\na,0\nb,NA\nc,1\n");
        ag_targets_options_t named;
        ag_targets_options_init(&named);
        const char *q[] = {"q"};
        named.targets = q;
        named.n_targets = 1;
        assert_int_equal(ag_targets_read_csv(&t, path, &named), AG_EVALUE);
        assert_non_null(strstr(ag_error_message(), ":3: column 'q': 'NA' is not a number"));
        assert_null(t.y.data);
        /* a column of classes keeps every word as a class: "None" is one among strings */
        unlink(path);
        path = write_temp("file,q\na,ring\nb,None\nc,chain\n");
        assert_int_equal(ag_targets_read_csv(&t, path, &named), AG_SUCCESS);
        assert_int_equal(t.n_classes[0], 3);
        ag_targets_destroy(&t);
        unlink(path);
    }
    /* A .csv whose header has no comma but semicolons (a spreadsheet with a decimal comma wrote
     * it) is semicolon-separated; a comma anywhere in the header keeps commas. */
    {
        char *path = write_temp("file;y\na;1\nb;2.5\n");
        assert_int_equal(ag_targets_read_csv(&t, path, NULL), AG_SUCCESS);
        unlink(path);
        assert_int_equal(t.n_tasks, 1);
        assert_string_equal(t.tasks[0], "y");
        assert_true(y_at(&t, 1, 0) == 2.5f);
        ag_targets_destroy(&t);
        path = write_temp("file,y;z\na,1\n");
        assert_int_equal(ag_targets_read_csv(&t, path, NULL), AG_SUCCESS);
        unlink(path);
        assert_string_equal(t.tasks[0], "y;z");
        ag_targets_destroy(&t);
    }
    /* No numeric column and one besides the file column: that one, as classes (either order). */
    const char *only[] = {"file,kind\na,er\nb,ba\nc,er\n", "kind,file\ner,a\nba,b\ner,c\n"};
    for (size_t i = 0; i < 2; i++) {
        char *path = write_temp(only[i]);
        assert_int_equal(ag_targets_read_csv(&t, path, NULL), AG_SUCCESS);
        unlink(path);
        assert_int_equal(t.n_graphs, 3);
        assert_int_equal(t.n_tasks, 1);
        assert_string_equal(t.tasks[0], "kind");
        assert_int_equal(t.kinds[0], AG_TASK_MULTICLASS);
        assert_int_equal(t.n_classes[0], 2);
        assert_string_equal(t.classes[0][0], "ba"); /* sorted */
        assert_string_equal(t.classes[0][1], "er");
        assert_string_equal(t.files[1], "b");
        float want[3] = {1, 0, 1};
        for (int g = 0; g < 3; g++) assert_true(y_at(&t, g, 0) == want[g]);
        ag_targets_destroy(&t);
    }
    int reached = 0;
    for (int64_t k = 1; k < 100 && !reached; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_targets_read_csv(&t, DATA "targets.csv", NULL);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            ag_targets_destroy(&t);
            reached = 1;
            continue;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(t.y.data);
    }
    assert_true(reached);
}

/* Many graph attributes as tasks, set in no order, each beside a vertex attribute of the same name:
 * every task takes the graph attribute of its own name and type (number, boolean or string), and
 * is missing where a graph lacks it, whatever its vertices carry. A NULL name is still refused by
 * its place. */
static void test_targets_from_many_graph_attributes(void **state) {
    (void)state;
    enum { T = 120, G = 5 }; /* T tasks */
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g[G];
    char name[T][8];
    const char *attrs[T];
    for (int k = 0; k < T; k++) {
        snprintf(name[k], sizeof name[k], "t%03d", k);
        attrs[k] = name[k];
    }
    for (int i = 0; i < G; i++) {
        assert_int_equal(igraph_empty(&g[i], 2, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
        for (int m = 0; m < T; m++) {
            const int k = (m * 7 + i) % T; /* 7 is prime to T: each task once, set in no order */
            SETVAN(&g[i], name[k], 0, -1.0);
            SETVAN(&g[i], name[k], 1, -1.0);
            if ((k + i) % 4 == 0) continue;
            if (k % 3 == 0) SETGAN(&g[i], name[k], k + i / 8.0);
            else if (k % 3 == 1) SETGAB(&g[i], name[k], (k + i) % 2);
            else SETGAS(&g[i], name[k], i % 2 ? "b" : "a");
        }
    }
    ag_targets_t t;
    assert_int_equal(ag_targets_from_graphs(&t, g, G, attrs, T, NULL, NULL), AG_SUCCESS);
    assert_int_equal(t.n_tasks, T);
    for (int k = 0; k < T; k++) {
        assert_string_equal(t.tasks[k], name[k]);
        assert_int_equal(t.kinds[k], k % 3 == 0 ? AG_TASK_REGRESSION : k % 3 == 1 ? AG_TASK_BINARY : AG_TASK_MULTICLASS);
        for (int i = 0; i < G; i++) {
            const float want = (k + i) % 4 == 0 ? NAN : k % 3 == 0 ? (float)(k + i / 8.0) : k % 3 == 1 ? (float)((k + i) % 2)
                                                                                                     : (float)(i % 2);
            if (isnan(want)) assert_true(isnan(y_at(&t, i, k)));
            else assert_float_equal(y_at(&t, i, k), want, 0.0f);
        }
    }
    ag_targets_destroy(&t);
    const char *with_null[] = {"t000", NULL};
    assert_int_equal(ag_targets_from_graphs(&t, g, G, with_null, 2, NULL, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_targets_from_graphs: attribute name 1 is NULL");
    for (int i = 0; i < G; i++) igraph_destroy(&g[i]);
}

static void test_targets_from_graphs(void **state) {
    (void)state;
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g[3];
    for (int i = 0; i < 3; i++) assert_int_equal(igraph_empty(&g[i], 1, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    SETGAN(&g[0], "y", 1.0);
    SETGAN(&g[2], "y", 0.0);
    SETGAS(&g[0], "cls", "b");
    SETGAS(&g[1], "cls", "a");
    SETGAN(&g[1], "logS", -2.5);
    const char *attrs[] = {"y", "cls", "logS"};
    ag_targets_t t;
    assert_int_equal(ag_targets_from_graphs(&t, g, 3, attrs, 3, NULL, NULL), AG_SUCCESS);
    assert_int_equal(t.kinds[0], AG_TASK_BINARY);
    assert_int_equal(t.kinds[1], AG_TASK_MULTICLASS);
    assert_int_equal(t.kinds[2], AG_TASK_REGRESSION);
    assert_null(t.files);
    assert_float_equal(y_at(&t, 0, 0), 1.0f, 0.0f);
    assert_true(isnan(y_at(&t, 1, 0)));
    assert_float_equal(y_at(&t, 2, 0), 0.0f, 0.0f);
    assert_float_equal(y_at(&t, 0, 1), 1.0f, 0.0f);
    assert_float_equal(y_at(&t, 1, 1), 0.0f, 0.0f);
    assert_true(isnan(y_at(&t, 2, 1)));
    assert_float_equal(y_at(&t, 1, 2), -2.5f, 0.0f);
    ag_targets_destroy(&t);
    const char *none[] = {"nothing"};
    assert_int_equal(ag_targets_from_graphs(&t, g, 3, none, 1, NULL, NULL), AG_EATTR);
    assert_string_equal(ag_error_message(), "no graph has the graph attribute 'nothing'");
    igraph_cattribute_remove_g(&g[2], "y");
    SETGAS(&g[2], "y", "odd");
    const char *names[] = {"a.gml", "b.gml", "c.gml"};
    assert_int_equal(ag_targets_from_graphs(&t, g, 3, attrs, 1, NULL, names), AG_EATTR);
    assert_string_equal(ag_error_message(),
                        "graph attribute 'y' is numeric on graph a.gml but a string on graph c.gml");
    assert_null(t.y.data);
    int reached = 0;
    for (int64_t k = 1; k < 100 && !reached; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_targets_from_graphs(&t, g, 2, attrs, 3, NULL, names);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            ag_targets_destroy(&t);
            reached = 1;
            continue;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(t.y.data);
    }
    assert_true(reached);
    for (int i = 0; i < 3; i++) igraph_destroy(&g[i]);
}

static void test_shared_tox21_esol(void **state) {
    (void)state;
    ag_targets_t t;
    if (access(AG_SHARED_DATASETS "/tox21/labels.csv", R_OK) != 0) skip();
    assert_int_equal(ag_targets_read_csv(&t, AG_SHARED_DATASETS "/tox21/labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(t.n_graphs, 7831);
    assert_int_equal(t.n_tasks, 12);
    assert_string_equal(t.tasks[0], "NR-AR");
    assert_string_equal(t.tasks[11], "SR-p53");
    int pos = 0, labelled = 0;
    for (int64_t g = 0; g < 7831; g++) {
        float v = y_at(&t, g, 0);
        if (!isnan(v)) labelled++;
        if (v == 1.0f) pos++;
    }
    assert_int_equal(pos, 309);
    assert_int_equal(labelled, 7265);
    for (int j = 0; j < 12; j++) assert_int_equal(t.kinds[j], AG_TASK_BINARY);
    ag_targets_destroy(&t);
    ag_targets_options_t o;
    ag_targets_options_init(&o);
    const char *logs[] = {"logS"};
    o.targets = logs;
    o.n_targets = 1;
    assert_int_equal(ag_targets_read_csv(&t, AG_SHARED_DATASETS "/esol/labels.csv", &o), AG_SUCCESS);
    assert_int_equal(t.n_graphs, 1128);
    assert_int_equal(t.kinds[0], AG_TASK_REGRESSION);
    assert_float_equal(y_at(&t, 0, 0), -0.77f, 1e-6f);
    assert_float_equal(y_at(&t, 1, 0), -3.3f, 1e-6f);
    ag_targets_destroy(&t);
}

/* Renaming the tasks: all at once, in order; a wrong count or an empty name leaves them as they were. */
/* The one scan behind the three readers that refuse "NA" among numbers: which columns qualify,
 * and which cell is named. */
static void test_missing_word_find(void **state) {
    (void)state;
    assert_true(ag_missing_word(" n/a ") && ag_missing_word("none"));
    assert_false(ag_missing_word("NAN") || ag_missing_word(NULL));
    const char *numbers_and_na[] = {"1", "", "NA", "0", "null", "2.5"};
    assert_int_equal(ag_missing_word_find(numbers_and_na, 6, 1), 2);
    /* the table's layout: column 1 of 2, the file names in column 0 ("NA" there is not looked at) */
    const char *table[] = {"NA", "1", "b", " ", "c", "?", "d", "0"};
    assert_int_equal(ag_missing_word_find(table + 1, 4, 2), 2);
    assert_int_equal(ag_missing_word_find(table, 4, 2), -1);      /* file names: text, not numbers */
    const char *classes[] = {"1", "NA", "EU"};                     /* North America beside Europe */
    assert_int_equal(ag_missing_word_find(classes, 3, 1), -1);
    const char *words_only[] = {"NA", NULL, "None"};                /* no number: nothing to refuse for */
    assert_int_equal(ag_missing_word_find(words_only, 3, 1), -1);
    const char *numbers_only[] = {"1", NULL, " 2 ", "-3e1"};
    assert_int_equal(ag_missing_word_find(numbers_only, 4, 1), -1);
    assert_int_equal(ag_missing_word_find(NULL, 3, 1), -1);
    assert_int_equal(ag_missing_word_find(numbers_and_na, 0, 1), -1);
}

static void test_targets_rename(void **state) {
    (void)state;
    ag_targets_t t;
    memset(&t, 0, sizeof t);
    t.n_tasks = 2;
    t.tasks = calloc(2, sizeof(char *));
    assert_non_null(t.tasks);
    t.tasks[0] = ag_i_strdup("a");
    t.tasks[1] = ag_i_strdup("b");
    const char *names[] = {"x", "y"}, *bad[] = {"x", ""};
    assert_int_equal(ag_targets_rename(&t, names, 1), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "ag_targets_rename: 1 names for 2 tasks");
    assert_int_equal(ag_targets_rename(&t, bad, 2), AG_EINVAL);
    assert_string_equal(t.tasks[0], "a");
    assert_int_equal(ag_targets_rename(&t, names, 2), AG_SUCCESS);
    assert_string_equal(t.tasks[0], "x");
    assert_string_equal(t.tasks[1], "y");
    ag_i_free(t.tasks[0]);
    ag_i_free(t.tasks[1]);
    free(t.tasks);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets_rename),    cmocka_unit_test(test_missing_word_find),
        cmocka_unit_test(test_numeric_labels),    cmocka_unit_test(test_string_labels),
        cmocka_unit_test(test_labels_present),
        cmocka_unit_test(test_targets_table),     cmocka_unit_test(test_targets_from_graphs),
        cmocka_unit_test(test_targets_from_many_graph_attributes),
        cmocka_unit_test(test_shared_tox21_esol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
