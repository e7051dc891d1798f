/* Tests of datasets of many graphs: from a labels table and from a folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/dataset.h>
#include <attngraph/prepare.h>
#include "cli_testutil.h"
#include "internal.h"
#include "attr_type.h"

void ag_i_alloc_fail_at(int64_t n);

#define DATA AG_SOURCE_DIR "/tests/data/tables/dataset/"

static float y_at(const ag_targets_t *t, int64_t g, int64_t j) { return t->y.data[g * t->n_tasks + j]; }

/* Every allocation of load(path, opts) failing in turn gives AG_ENOMEM and a zeroed dataset, until
 * none is left to fail. */
static void expect_alloc_failures(ag_error_t (*load)(ag_dataset_t *, const char *, const ag_dataset_options_t *),
                                  const char *path, const ag_dataset_options_t *opts) {
    ag_dataset_t ds;
    int reached = 0;
    for (int64_t k = 1; k < 200 && !reached; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = load(&ds, path, opts);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            ag_dataset_destroy(&ds);
            reached = 1;
            continue;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(ds.graphs);
        assert_int_equal(ds.n_graphs, 0);
    }
    assert_true(reached);
}

/* A labels table's dataset with the one target column named. */
static void load_with_target(ag_dataset_t *ds, const char *table, const char *target) {
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    const char *targets[] = {target};
    o.targets.targets = targets;
    o.targets.n_targets = 1;
    assert_int_equal(ag_dataset_load(ds, table, &o), AG_SUCCESS);
}

static void test_from_table(void **state) {
    (void)state;
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, DATA "labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(ds.named_by_id, 0); /* files, named as listed */
    assert_int_equal(ds.n_graphs, 3);
    /* table order, not file-name order */
    assert_string_equal(ds.files[0], "graphs/g2.gml");
    assert_string_equal(ds.files[1], "graphs/g1.gml");
    assert_int_equal(igraph_vcount(&ds.graphs[0]), 3);
    assert_int_equal(igraph_ecount(&ds.graphs[0]), 2);
    assert_int_equal(igraph_vcount(&ds.graphs[2]), 1);
    assert_string_equal(GAS(&ds.graphs[1], "cls"), "acid");
    /* automatic targets: active (binary) and logS (regression); smiles and kind are strings */
    assert_int_equal(ds.targets.n_tasks, 2);
    assert_string_equal(ds.targets.tasks[0], "active");
    assert_int_equal(ds.targets.kinds[0], AG_TASK_BINARY);
    assert_int_equal(ds.targets.kinds[1], AG_TASK_REGRESSION);
    assert_float_equal(y_at(&ds.targets, 1, 0), 1.0f, 0.0f);
    assert_true(isnan(y_at(&ds.targets, 2, 0)));
    assert_true(isnan(y_at(&ds.targets, 1, 1)));
    assert_float_equal(y_at(&ds.targets, 2, 1), 2.25f, 0.0f);
    ag_dataset_destroy(&ds);
    ag_dataset_destroy(&ds);
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    const char *attrs[] = {"cls"};
    o.graph_attrs = attrs;
    o.n_graph_attrs = 1;
    expect_alloc_failures(ag_dataset_load, DATA "labels.csv", NULL);
    expect_alloc_failures(ag_dataset_load_dir, DATA "graphs", &o);
}

static void test_from_folder(void **state) {
    (void)state;
    ag_dataset_t ds;
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    const char *attrs[] = {"label", "cls"};
    o.graph_attrs = attrs;
    o.n_graph_attrs = 2;
    assert_int_equal(ag_dataset_load_dir(&ds, DATA "graphs", &o), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 3); /* notes.txt is not a graph file */
    assert_string_equal(ds.files[0], "g1.gml");
    assert_string_equal(ds.files[2], "g3.gml");
    assert_int_equal(ds.targets.n_tasks, 2);
    assert_float_equal(y_at(&ds.targets, 0, 0), 1.0f, 0.0f);
    assert_float_equal(y_at(&ds.targets, 1, 0), 0.0f, 0.0f);
    assert_true(isnan(y_at(&ds.targets, 2, 0))); /* g3 has no label */
    assert_int_equal(ds.targets.kinds[1], AG_TASK_MULTICLASS);
    assert_float_equal(y_at(&ds.targets, 1, 1), 1.0f, 0.0f); /* base */
    assert_float_equal(y_at(&ds.targets, 2, 1), 0.0f, 0.0f); /* acid */
    ag_dataset_destroy(&ds);
    assert_int_equal(ag_dataset_load_dir(&ds, DATA "graphs", NULL), AG_SUCCESS);
    assert_int_equal(ds.targets.n_tasks, 0);
    ag_dataset_destroy(&ds);
    assert_int_equal(ag_dataset_load_dir(&ds, AG_SOURCE_DIR "/tests/data/tables/nonexistent", NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "nonexistent: cannot list the folder"));
    assert_int_equal(ag_dataset_load_dir(&ds, DATA, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "no graph file"));
}

/* A temporary folder with a labels table and graph files. */
static void test_errors(void **state) {
    (void)state;
    char dir[] = "/tmp/ag_dataset_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], table[256];
    snprintf(path, sizeof path, "%s/good.gml", dir);
    FILE *f = fopen(path, "w");
    fputs("graph [ directed 0 node [ id 0 ] ]\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/bad.gml", dir);
    f = fopen(path, "w");
    fputs("graph [ directed 0 node [ id 0 ]\n", f); /* unclosed */
    fclose(f);
    snprintf(path, sizeof path, "%s/directed.gml", dir);
    f = fopen(path, "w");
    fputs("graph [ directed 1 node [ id 0 ] node [ id 1 ] edge [ source 0 target 1 ] ]\n", f);
    fclose(f);
    snprintf(table, sizeof table, "%s/labels.csv", dir);
    struct {
        const char *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"file,y\ngood.gml,1\nmissing.gml,0\n", AG_EFILE,
         "/missing.gml: No such file or directory (listed in data row 2 of "},
        {"file,y\ngood.gml,1\nbad.gml,0\n", AG_EPARSE, "/bad.gml: "},
        {"file,y\ngood.gml,1\ngood.xyz,0\n", AG_EFILE, "good.xyz: No such file or directory (listed in data row 2 of "},
        {"file,y\ngood.gml,1\n,0\n", AG_EFILE, "labels.csv: row 2 has an empty file name"},
        {"name,y\ngood.gml,1\n", AG_EATTR, "labels.csv:1: no 'file' column"},
        /* one block-diagonal batch cannot be both: said with both files, not batch positions */
        {"file,y\ngood.gml,1\ndirected.gml,0\n", AG_EMISMATCH, "directed.gml (data row 2 of "},
        {"file,y\ndirected.gml,1\ngood.gml,0\n", AG_EMISMATCH,
         "labels.csv) is undirected but the dataset's first graph, directed.gml, is directed: a dataset's graphs "
         "must all be directed or all undirected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fopen(table, "w");
        fputs(bad[i].text, f);
        fclose(f);
        ag_dataset_t ds;
        ag_error_t rc = ag_dataset_load(&ds, table, NULL);
        if (rc != bad[i].code || !strstr(ag_error_message(), bad[i].fragment))
            fail_msg("case %zu: got %s \"%s\"", i, ag_error_name(rc), ag_error_message());
        assert_null(ds.graphs);
        assert_int_equal(ds.n_graphs, 0);
    }
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load_dir(&ds, dir, NULL), AG_EPARSE);
    assert_non_null(strstr(ag_error_message(), "/bad.gml"));
    snprintf(path, sizeof path, "%s/bad.gml", dir);
    unlink(path);
    unlink(table);
    /* the folder's first file by name is directed.gml */
    assert_int_equal(ag_dataset_load_dir(&ds, dir, NULL), AG_EMISMATCH);
    char want[400];
    snprintf(want, sizeof want, "good.gml (in folder %s) is undirected but the dataset's first graph, directed.gml, "
             "is directed", dir);
    if (!strstr(ag_error_message(), want)) fail_msg("got \"%s\"", ag_error_message());
    assert_null(ds.graphs);
    snprintf(path, sizeof path, "%s/good.gml", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/directed.gml", dir);
    unlink(path);
    rmdir(dir);
}

/* Edge lists named .txt: a format given for every file reads them, from a table and from a folder
 * (where it also lists files of any name, but not sub-folders or hidden files). */
static void test_format_given(void **state) {
    (void)state;
    char dir[] = "/tmp/ag_dataset_fmt_XXXXXX", sub[600], table[600];
    assert_non_null(mkdtemp(dir));
    ag_test_write_text(dir, "a.txt", "0 1\n1 2\n2 0\n");   /* a triangle */
    ag_test_write_text(dir, "b.txt", "0 1\n1 2\n2 3\n");   /* a path of 4 */
    ag_test_write_text(dir, ".hidden", "not an edge list\n");
    snprintf(sub, sizeof sub, "%s/sub.d", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    ag_test_write_text(dir, "labels.csv", "file,shape\nb.txt,path\na.txt,cycle\n");
    snprintf(table, sizeof table, "%s/labels.csv", dir);
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, table, NULL), AG_EFORMAT); /* by extension: .txt is none */
    assert_non_null(strstr(ag_error_message(), "b.txt: unknown file extension"));
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    o.format = AG_FORMAT_EDGELIST;
    assert_int_equal(ag_dataset_load(&ds, table, &o), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 2);
    assert_int_equal(igraph_vcount(&ds.graphs[0]), 4);
    assert_int_equal(igraph_ecount(&ds.graphs[0]), 3);
    assert_false(igraph_is_directed(&ds.graphs[0]));
    assert_int_equal(igraph_vcount(&ds.graphs[1]), 3);
    assert_string_equal(ds.targets.tasks[0], "shape"); /* the one column besides file */
    assert_float_equal(y_at(&ds.targets, 0, 0), 1.0f, 0.0f); /* path (classes sorted: cycle, path) */
    ag_dataset_destroy(&ds);
    o.directed = 1;
    assert_int_equal(ag_dataset_load(&ds, table, &o), AG_SUCCESS);
    assert_true(igraph_is_directed(&ds.graphs[1]));
    ag_dataset_destroy(&ds);
    o.directed = 0;
    /* The folder: a.txt, b.txt and labels.csv are regular files; labels.csv is no edge list. */
    assert_int_equal(ag_dataset_load_dir(&ds, dir, &o), AG_EPARSE);
    assert_non_null(strstr(ag_error_message(), "labels.csv"));
    unlink(table);
    assert_int_equal(ag_dataset_load_dir(&ds, dir, &o), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 2);
    assert_string_equal(ds.files[0], "a.txt");
    assert_string_equal(ds.files[1], "b.txt");
    assert_int_equal(igraph_ecount(&ds.graphs[0]), 3);
    ag_dataset_destroy(&ds);
    assert_int_equal(ag_dataset_load_dir(&ds, dir, NULL), AG_EFILE); /* by extension: nothing */
    assert_non_null(strstr(ag_error_message(), "no graph file"));
    o.format = AG_FORMAT_COUNT;
    assert_int_equal(ag_dataset_load_dir(&ds, dir, &o), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "format 9 is not an ag_format_t"));
    assert_int_equal(ag_dataset_load(&ds, table, &o), AG_EINVAL);
    assert_null(ds.graphs);
    rmdir(sub);
    char path[600];
    const char *names[] = {"a.txt", "b.txt", ".hidden"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* dir/name: a 3-vertex path in GML whose vertex 0 has the list attribute `vlist` and whose first
 * edge has `elist` (NULL: none), lists igraph ignores with a warning naming them. */
static void write_listed_gml(const char *dir, const char *name, const char *vlist, const char *elist) {
    char text[512], v0[96] = "", e0[96] = "";
    if (vlist) snprintf(v0, sizeof v0, " %s [ x 1.5 y 2.5 ]", vlist);
    if (elist) snprintf(e0, sizeof e0, " %s [ a 1 ]", elist);
    snprintf(text, sizeof text,
             "graph [\n  directed 0\n  node [ id 0 el \"C\"%s ]\n  node [ id 1 el \"O\" ]\n  node [ id 2 el \"C\" ]\n"
             "  edge [ source 0 target 1%s ]\n  edge [ source 1 target 2 ]\n]\n",
             v0, e0);
    ag_test_write_text(dir, name, text);
}

/* igraph's reading warnings reach the caller: each distinct one once, with the number of graphs
 * that gave it and the first in table order (or folder order), every warning of a file counted;
 * beyond AG_DATASET_WARNINGS_KEPT distinct ones (or those of one file), a count and the first
 * graph. A clean dataset and a TU dataset have none. */
static void test_reading_warnings(void **state) {
    (void)state;
    char dir[256], table[300];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "dataset_warn", 0), 0);
    write_listed_gml(dir, "a.gml", NULL, NULL);
    write_listed_gml(dir, "b.gml", "coords", NULL);
    write_listed_gml(dir, "c.gml", "coords", "geom");
    write_listed_gml(dir, "d.gml", NULL, NULL);
    /* d, c, a, b: the first graph of 'coords' is c (row 2), not b, which comes first by name */
    ag_test_write_text(dir, "labels.csv", "file,y\nd.gml,0\nc.gml,1\na.gml,0\nb.gml,1\n");
    snprintf(table, sizeof table, "%s/labels.csv", dir);
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, table, NULL), AG_SUCCESS);
    assert_int_equal(ds.n_warned, 2);
    assert_int_equal(ds.n_warnings, 2);
    assert_string_equal(ds.warnings[0].reason, "Composite vertex attribute 'coords' ignored in GML file.");
    assert_int_equal(ds.warnings[0].n_graphs, 2);
    assert_int_equal(ds.warnings[0].first, 1);
    assert_string_equal(ds.files[ds.warnings[0].first], "c.gml");
    assert_string_equal(ds.warnings[1].reason, "Composite edge attribute 'geom' ignored in GML file.");
    assert_int_equal(ds.warnings[1].n_graphs, 1);
    assert_int_equal(ds.warnings[1].first, 1);
    assert_int_equal(ds.n_warned_other, 0);
    ag_dataset_destroy(&ds);
    assert_null(ds.warnings);
    expect_alloc_failures(ag_dataset_load, table, NULL);
    /* the folder, in name order: b gives 'coords' first */
    assert_int_equal(ag_dataset_load_dir(&ds, dir, NULL), AG_SUCCESS);
    assert_int_equal(ds.n_warned, 2);
    assert_int_equal(ds.n_warnings, 2);
    assert_string_equal(ds.files[ds.warnings[0].first], "b.gml");
    assert_int_equal(ds.warnings[0].n_graphs, 2);
    assert_string_equal(ds.files[ds.warnings[1].first], "c.gml");
    ag_dataset_destroy(&ds);
    expect_alloc_failures(ag_dataset_load_dir, dir, NULL);
    /* ten distinct warnings in ten files, and one file with two of them: eight are kept */
    char text[1024] = "file,y\n", name[32], attr[32];
    for (int g = 0; g < 10; g++) {
        snprintf(name, sizeof name, "m%d.gml", g);
        snprintf(attr, sizeof attr, "list%d", g);
        write_listed_gml(dir, name, attr, g == 9 ? "list0" : NULL);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s,%d\n", name, g % 2);
    }
    ag_test_write_text(dir, "many.csv", text);
    snprintf(table, sizeof table, "%s/many.csv", dir);
    assert_int_equal(ag_dataset_load(&ds, table, NULL), AG_SUCCESS);
    assert_int_equal(ds.n_warned, 10);
    assert_int_equal(ds.n_warnings, AG_DATASET_WARNINGS_KEPT);
    assert_string_equal(ds.warnings[7].reason, "Composite vertex attribute 'list7' ignored in GML file.");
    assert_int_equal(ds.warnings[7].first, 7);
    /* m9's edge list 'list0' is another kind of attribute than m0's vertex list: its own warning */
    assert_int_equal(ds.warnings[0].n_graphs, 1);
    assert_int_equal(ds.n_warned_other, 2);
    assert_int_equal(ds.first_other, 8);
    ag_dataset_destroy(&ds);
    /* one file with nine lists: its ninth, past what one read keeps, counts as another */
    char lists[512] = "";
    for (int k = 0; k < 9; k++) snprintf(lists + strlen(lists), sizeof lists - strlen(lists), " l%d [ a 1 ]", k);
    snprintf(text, sizeof text, "graph [\n node [ id 0%s ]\n node [ id 1 ]\n edge [ source 0 target 1 ]\n]\n", lists);
    ag_test_write_text(dir, "nine.gml", text);
    ag_test_write_text(dir, "nine.csv", "file,y\na.gml,0\nnine.gml,1\n");
    snprintf(table, sizeof table, "%s/nine.csv", dir);
    assert_int_equal(ag_dataset_load(&ds, table, NULL), AG_SUCCESS);
    assert_int_equal(ds.n_warned, 1);
    assert_int_equal(ds.n_warnings, AG_DATASET_WARNINGS_KEPT);
    assert_int_equal(ds.n_warned_other, 1);
    assert_int_equal(ds.first_other, 1);
    ag_dataset_destroy(&ds);
    /* files without lists */
    assert_int_equal(ag_dataset_load(&ds, DATA "labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(ds.n_warned, 0);
    assert_int_equal(ds.n_warnings, 0);
    assert_null(ds.warnings);
    ag_dataset_destroy(&ds);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* A TU dataset by hand: graph 1 a triangle (nodes 1-3) listed in both directions plus a self-loop,
 * graph 2 one edge (nodes 4-5); node labels, two node attribute columns, edge labels, graph labels. */
static void write_tu(const char *dir) {
    ag_test_write_text(dir, "T_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n3, 3\n5, 4\n4, 5\n");
    ag_test_write_text(dir, "T_graph_indicator.txt", "1\n1\n1\n2\n2\n");
    ag_test_write_text(dir, "T_graph_labels.txt", "-1\n1\n");
    ag_test_write_text(dir, "T_node_labels.txt", "0\n2\n0\n1\n1\n");
    ag_test_write_text(dir, "T_node_attributes.txt", "0.5, 1\n1.5, 2\n2.5, 3\n3.5, 4\n\n4.5, 5\n");
    ag_test_write_text(dir, "T_edge_labels.txt", "7\n8\n9\n9\n1\n1\n4\n6\n6\n");
}

static void test_tu(void **state) {
    (void)state;
    char dir[] = "/tmp/ag_dataset_tu_XXXXXX", prefix[256];
    assert_non_null(mkdtemp(dir));
    write_tu(dir);
    snprintf(prefix, sizeof prefix, "%s/T", dir);
    ag_dataset_t ds;
    for (int run = 0; run < 4; run++) {
        /* run 1: the folder holds one *_A.txt, its prefix is found; run 2: the graphs' edge lines
         * interleaved (graph 2's first), each graph keeping the order of its own; run 3: the same
         * files starting with a UTF-8 byte-order mark (an editor's), passed over as CSVs pass it */
        if (run >= 2) {
            const char *bom = run == 3 ? "\xEF\xBB\xBF" : "";
            char text[256];
            snprintf(text, sizeof text, "%s5, 4\n1, 2\n4, 5\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n3, 3\n", bom);
            ag_test_write_text(dir, "T_A.txt", text);
            snprintf(text, sizeof text, "%s6\n7\n6\n8\n9\n9\n1\n1\n4\n", bom);
            ag_test_write_text(dir, "T_edge_labels.txt", text);
            snprintf(text, sizeof text, "%s-1\n1\n", bom);
            ag_test_write_text(dir, "T_graph_labels.txt", text);
        }
        assert_int_equal(ag_dataset_load_tu(&ds, run == 1 ? dir : prefix, NULL), AG_SUCCESS);
        assert_int_equal(ds.n_graphs, 2);
        assert_string_equal(ds.files[0], "1");
        assert_string_equal(ds.files[1], "2");
        assert_int_equal(ds.named_by_id, 1);
        if (run == 0) {
            /* messages call a graph by its id "graph 1", not "1: ..." as if a line number */
            ag_featurizer_t f;
            const igraph_t *fit[] = {&ds.graphs[0]};
            ag_featurizer_config_t fc;
            ag_featurizer_config_init(&fc);
            assert_int_equal(ag_featurizer_fit(&f, &fc, fit, 1), AG_SUCCESS);
            ag_prepared_t p;
            const char *names[] = {"0", "1"};
            assert_int_equal(ag_prepared_from_graphs_with(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &f, names, 2),
                             AG_EVALUE);
            assert_string_equal(ag_error_message(),
                                "graph 1: class '-1' of target 'label' is not one of the model's 2 classes ('0', '1')");
            ag_featurizer_destroy(&f);
        }
        assert_int_equal(ds.n_warned, 0); /* built from numbers: no igraph reader to warn */
        assert_null(ds.warnings);
        igraph_t *g = &ds.graphs[0];
        assert_false(igraph_is_directed(g));
        assert_int_equal(igraph_vcount(g), 3);
        assert_int_equal(igraph_ecount(g), 4); /* 1-2, 2-3, 3-1 once each, and the loop */
        igraph_integer_t from, to;
        const int want[4][2] = {{0, 1}, {1, 2}, {0, 2}, {2, 2}};
        const char *elab[4] = {"7", "9", "1", "4"}; /* the first line of each pair: 1-2, 2-3, 3-1 */
        for (int e = 0; e < 4; e++) {
            igraph_edge(g, e, &from, &to);
            if (from > to) { igraph_integer_t t = from; from = to; to = t; }
            assert_int_equal(from, want[e][0]);
            assert_int_equal(to, want[e][1]);
            assert_string_equal(EAS(g, "edge_label", e), elab[e]);
        }
        assert_string_equal(VAS(g, "node_label", 1), "2");
        assert_float_equal(VAN(g, "node_attr1", 2), 2.5, 0.0);
        assert_float_equal(VAN(g, "node_attr2", 2), 3.0, 0.0);
        assert_string_equal(GAS(g, "label"), "-1");
        g = &ds.graphs[1];
        assert_int_equal(igraph_vcount(g), 2);
        assert_int_equal(igraph_ecount(g), 1);
        assert_float_equal(VAN(g, "node_attr1", 1), 4.5, 0.0); /* the blank line skipped */
        assert_string_equal(EAS(g, "edge_label", 0), "6");
        /* the graph labels as classes, sorted as strings: "-1" then "1" */
        assert_int_equal(ds.targets.n_tasks, 1);
        assert_string_equal(ds.targets.tasks[0], "label");
        assert_int_equal(ds.targets.kinds[0], AG_TASK_MULTICLASS);
        assert_float_equal(y_at(&ds.targets, 0, 0), 0.0f, 0.0f);
        assert_float_equal(y_at(&ds.targets, 1, 0), 1.0f, 0.0f);
        ag_dataset_destroy(&ds);
    }
    /* directed: every line an edge */
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    o.directed = 1;
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, &o), AG_SUCCESS);
    assert_true(igraph_is_directed(&ds.graphs[0]));
    assert_int_equal(igraph_ecount(&ds.graphs[0]), 7);
    assert_int_equal(igraph_ecount(&ds.graphs[1]), 2);
    ag_dataset_destroy(&ds);
    /* named targets: graph attributes as numbers */
    ag_test_write_text(dir, "T_graph_attributes.txt", "0.25\n-3\n");
    ag_dataset_options_init(&o);
    const char *attrs[] = {"graph_attr"};
    o.graph_attrs = attrs;
    o.n_graph_attrs = 1;
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, &o), AG_SUCCESS);
    assert_int_equal(ds.targets.kinds[0], AG_TASK_REGRESSION);
    assert_float_equal(y_at(&ds.targets, 1, 0), -3.0f, 0.0f);
    ag_dataset_destroy(&ds);
    /* an attribute of few integers is still a number, not a class code; the labels stay classes */
    ag_test_write_text(dir, "T_graph_attributes.txt", "4\n7\n");
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, &o), AG_SUCCESS);
    assert_true(ds.targets.kinds_given);
    assert_int_equal(ag_task_infer(&ds.targets), AG_TASK_GRAPH_REGRESSION);
    ag_dataset_destroy(&ds);
    const char *label[] = {"label"};
    o.graph_attrs = label;
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, &o), AG_SUCCESS);
    assert_int_equal(ag_task_infer(&ds.targets), AG_TASK_GRAPH_CLASSIFICATION);
    ag_dataset_destroy(&ds);
    o.graph_attrs = attrs;
    /* allocation failures: each one reported, nothing left */
    expect_alloc_failures(ag_dataset_load_tu, prefix, NULL);
    /* damaged files, each named with its line */
    struct {
        const char *file, *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"T_A.txt", "1, 2\n2, 1, 3\n", AG_EPARSE, "T_A.txt:2: 3 values, the first line has 2"},
        {"T_A.txt", "1, 2\n2; 1\n", AG_EPARSE, "T_A.txt:2: '; 1' after a number"},
        {"T_A.txt", "1, 2\nx, 1\n", AG_EPARSE, "T_A.txt:2: 'x, 1' is not a number"},
        {"T_A.txt", "1, 2.5\n", AG_EPARSE, "T_A.txt:1: 2.5 is not an integer"},
        {"T_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n3, 3\n5, 4\n4, 6\n", AG_EPARSE,
         "T_A.txt: edge 9 (4, 6) names a node outside 1..5"},
        {"T_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n3, 3\n5, 4\n3, 4\n", AG_EPARSE,
         "T_A.txt: edge 9 joins node 3 of graph 1 and node 4 of graph 2"},
        {"T_A.txt", "1, 2\n2, 3, \n", AG_EPARSE, "T_A.txt:2: '' is not a number"},
        {"T_A.txt", "\n", AG_EPARSE, "T_A.txt: no values"},
        {"T_A.txt", "1\n", AG_EPARSE, "T_A.txt: 1 values per line (an edge is 'from, to')"},
        {"T_graph_indicator.txt", "1\n1\n1\n3\n3\n", AG_EPARSE, "graph 2 has no node (ids must run from 1 to 3)"},
        {"T_graph_indicator.txt", "1\n1\n0\n2\n2\n", AG_EPARSE, "node 3 has graph id 0 (ids start at 1)"},
        {"T_graph_indicator.txt", "1\n1\n1\n2\n1000000000000\n", AG_EPARSE,
         "node 5 has graph id 1000000000000, more than the 5 nodes"},
        {"T_node_labels.txt", "0\n2\n0\n1\n", AG_EPARSE, "T_node_labels.txt: 4 lines, but "},
        {"T_edge_labels.txt", "1\n", AG_EPARSE, "T_edge_labels.txt: 1 lines, but "},
        {"T_graph_labels.txt", "1\n", AG_EPARSE, "T_graph_labels.txt: 1 lines, but "},
        {"T_graph_labels.txt", "1, 2\n0, 1\n", AG_EPARSE, "T_graph_labels.txt: 2 values per line (one label per graph)"},
        /* a class label is an integer, as node and edge labels are (0.5 was taken as a class name) */
        {"T_graph_labels.txt", "0.5\n1\n", AG_EPARSE, "T_graph_labels.txt:1: 0.5 is not an integer"},
        {"T_graph_labels.txt", "12345678901234567\n1\n", AG_EPARSE,
         "T_graph_labels.txt:1: value 1 is too large for an id or a label (at most 9e15)"},
        {"T_node_attributes.txt", "1\n2\n3\n4\ninf\n", AG_EPARSE, "T_node_attributes.txt:5: value 1 ('inf') is not finite"},
        /* the value and its place, not the rest of the line */
        {"T_node_attributes.txt", "1, 2\n2, 1\n3, 0\n0.5, nan\n1, 1\n", AG_EPARSE,
         "T_node_attributes.txt:4: value 2 ('nan') is not finite"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_tu(dir);
        ag_test_write_text(dir, bad[i].file, bad[i].text);
        ag_error_t rc = ag_dataset_load_tu(&ds, prefix, NULL);
        if (rc != bad[i].code || !strstr(ag_error_message(), bad[i].fragment))
            fail_msg("case %zu: got %s \"%s\"", i, ag_error_name(rc), ag_error_message());
        assert_null(ds.graphs);
        assert_int_equal(ds.n_graphs, 0);
    }
    write_tu(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/T_graph_labels.txt", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/T_graph_attributes.txt", dir);
    unlink(path);
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "T_graph_labels.txt: no such file, and no "));
    snprintf(path, sizeof path, "%s/T_A.txt", dir);
    unlink(path);
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "/T: no such folder, and no "));
    assert_non_null(strstr(ag_error_message(), "/T_A.txt (give the folder of a TU dataset, or its prefix DIR/NAME)"));
    assert_int_equal(ag_dataset_load_tu(&ds, dir, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), ": no *_A.txt file"));
    ag_test_write_text(dir, "U_A.txt", "1, 1\n");
    ag_test_write_text(dir, "V_A.txt", "1, 1\n");
    assert_int_equal(ag_dataset_load_tu(&ds, dir, NULL), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), ": more than one *_A.txt file"));
    assert_int_equal(ag_dataset_load_tu(&ds, NULL, NULL), AG_EINVAL);
    const char *names[] = {"T_graph_indicator.txt", "T_node_labels.txt", "T_node_attributes.txt", "T_edge_labels.txt",
                           "U_A.txt", "V_A.txt"};
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* Writes text lines: line i (0-based) of `lines`, its `cols` values value(i, c) joined by commas. */
static void write_tu_columns(const char *dir, const char *file, int lines, int cols, double (*value)(int, int)) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < lines; i++)
        for (int c = 0; c < cols; c++) fprintf(f, "%.17g%s", value(i, c), c + 1 < cols ? ", " : "\n");
    assert_int_equal(fclose(f), 0);
}

static double wide_node_attr(int i, int c) { return i * 1000 + c + 0.25; }
static double wide_node_label(int i, int c) { return i * 7 + c - 5; }
static double wide_edge_attr(int k, int c) { return k * 100 - c * 0.5; }
static double wide_edge_label(int k, int c) { return k - 10 * c; }

/* The count vertices (edges) of ig, from the given lines of the files: their label and attribute
 * columns hold label(line, c) and attr(line, c), and igraph lists them in the files' order, the
 * labels first as they are set first (none at all for count 0). */
static void expect_tu_columns(const igraph_t *ig, int is_edge, const int *lines, int count, int n_label, int n_attr,
                              double (*label)(int, int), double (*attr)(int, int)) {
    const char *el = is_edge ? "edge" : "node";
    char want[4096] = "", got[4096], name[32], text[32];
    for (int c = 0; c < n_label + n_attr && count > 0; c++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s_%s%d", c ? ", " : "", el,
                 c < n_label ? "label" : "attr", (c < n_label ? c : c - n_label) + 1);
    assert_string_equal(ag_i_attr_names(ig, is_edge ? IGRAPH_ATTRIBUTE_EDGE : IGRAPH_ATTRIBUTE_VERTEX, got, sizeof got),
                        count > 0 ? want : "none");
    for (int i = 0; i < count; i++) {
        for (int c = 0; c < n_label; c++) {
            snprintf(name, sizeof name, "%s_label%d", el, c + 1);
            snprintf(text, sizeof text, "%d", (int)label(lines[i], c));
            assert_string_equal(is_edge ? EAS(ig, name, i) : VAS(ig, name, i), text);
        }
        for (int c = 0; c < n_attr; c++) {
            snprintf(name, sizeof name, "%s_attr%d", el, c + 1);
            assert_float_equal(is_edge ? EAN(ig, name, i) : VAN(ig, name, i), attr(lines[i], c), 0.0);
        }
    }
}

/* A TU dataset with many attribute columns: each column's value on each vertex and edge, the
 * columns in file order, and no edge attribute on a graph without edges. */
static void test_tu_many_columns(void **state) {
    (void)state;
    enum { NA = 150, NL = 2, EA = 70, EL = 2 }; /* columns of node attributes and labels, edge ones */
    char dir[] = "/tmp/ag_dataset_tu_wide_XXXXXX", prefix[256];
    assert_non_null(mkdtemp(dir));
    /* graph 1: the path 1-2-4-5, graph 2: node 3 alone, graph 3: the triangle 6-7-8; each edge
     * both ways, its first line kept */
    ag_test_write_text(dir, "W_graph_indicator.txt", "1\n1\n2\n1\n1\n3\n3\n3\n");
    ag_test_write_text(dir, "W_A.txt", "1, 2\n2, 1\n2, 4\n4, 2\n4, 5\n5, 4\n6, 7\n7, 6\n7, 8\n8, 7\n8, 6\n6, 8\n");
    ag_test_write_text(dir, "W_graph_labels.txt", "0\n1\n0\n");
    write_tu_columns(dir, "W_node_attributes.txt", 8, NA, wide_node_attr);
    write_tu_columns(dir, "W_node_labels.txt", 8, NL, wide_node_label);
    write_tu_columns(dir, "W_edge_attributes.txt", 12, EA, wide_edge_attr);
    write_tu_columns(dir, "W_edge_labels.txt", 12, EL, wide_edge_label);
    snprintf(prefix, sizeof prefix, "%s/W", dir);
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load_tu(&ds, prefix, NULL), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 3);
    const int node_line[3][4] = {{0, 1, 3, 4}, {2}, {5, 6, 7}}, edge_line[3][3] = {{0, 2, 4}, {0}, {6, 8, 10}};
    const int nodes[3] = {4, 1, 3}, edges[3] = {3, 0, 3};
    for (int g = 0; g < 3; g++) {
        const igraph_t *ig = &ds.graphs[g];
        assert_int_equal(igraph_vcount(ig), nodes[g]);
        assert_int_equal(igraph_ecount(ig), edges[g]);
        expect_tu_columns(ig, 0, node_line[g], nodes[g], NL, NA, wide_node_label, wide_node_attr);
        expect_tu_columns(ig, 1, edge_line[g], edges[g], EL, EA, wide_edge_label, wide_edge_attr);
    }
    ag_dataset_destroy(&ds);
    expect_alloc_failures(ag_dataset_load_tu, prefix, NULL);
    const char *files[] = {"W_graph_indicator.txt", "W_A.txt", "W_graph_labels.txt", "W_node_attributes.txt",
                           "W_node_labels.txt", "W_edge_attributes.txt", "W_edge_labels.txt"};
    char path[512];
    for (int i = 0; i < 7; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* MUTAG's TU files give the graphs of its GML conversion (shared datasets README: vertex ids in TU
 * node order, `label` the TU node label, `bond` the TU edge label, graph label 1 / -1 as 1 / 0). */
static void test_tu_mutag(void **state) {
    (void)state;
    if (access(AG_SHARED_DATASETS "/mutag/raw/MUTAG_A.txt", R_OK) != 0) skip();
    ag_dataset_t tu, gml;
    assert_int_equal(ag_dataset_load_tu(&tu, AG_SHARED_DATASETS "/mutag/raw", NULL), AG_SUCCESS);
    load_with_target(&gml, AG_SHARED_DATASETS "/mutag/labels.csv", "label");
    assert_int_equal(tu.n_graphs, 188);
    assert_int_equal(gml.n_graphs, 188);
    int64_t atoms = 0, bonds = 0;
    for (int64_t g = 0; g < 188; g++) {
        const igraph_t *a = &tu.graphs[g], *b = &gml.graphs[g];
        char file[64];
        snprintf(file, sizeof file, "molecules/%04lld.gml", (long long)g + 1);
        assert_string_equal(gml.files[g], file);
        assert_int_equal(igraph_vcount(a), igraph_vcount(b));
        assert_int_equal(igraph_ecount(a), igraph_ecount(b));
        atoms += igraph_vcount(a);
        bonds += igraph_ecount(a);
        for (igraph_integer_t v = 0; v < igraph_vcount(a); v++)
            assert_int_equal(atoi(VAS(a, "node_label", v)), (int)VAN(b, "label", v));
        /* the same bonds with the same labels: every TU edge is a GML edge between the same ends */
        for (igraph_integer_t e = 0; e < igraph_ecount(a); e++) {
            igraph_integer_t from, to, eid;
            igraph_edge(a, e, &from, &to);
            assert_int_equal(igraph_get_eid(b, &eid, from, to, IGRAPH_UNDIRECTED, 1), IGRAPH_SUCCESS);
            assert_int_equal(atoi(EAS(a, "edge_label", e)), (int)EAN(b, "bond", eid));
        }
        assert_float_equal(y_at(&tu.targets, g, 0), y_at(&gml.targets, g, 0), 0.0f);
    }
    assert_int_equal(atoms, 3371);
    assert_int_equal(bonds, 3721);
    assert_string_equal(tu.targets.classes[0][0], "-1");
    ag_dataset_destroy(&tu);
    ag_dataset_destroy(&gml);
}

static void test_shared_esol_mutag(void **state) {
    (void)state;
    ag_dataset_t ds;
    /* ESOL rather than Tox21 (7,831 files, about 2 s, but near 20 s under ASan): 1,128 molecules. */
    if (access(AG_SHARED_DATASETS "/esol/labels.csv", R_OK) != 0) skip();
    load_with_target(&ds, AG_SHARED_DATASETS "/esol/labels.csv", "logS");
    assert_int_equal(ds.n_graphs, 1128);
    assert_int_equal(ds.targets.n_tasks, 1);
    int64_t atoms = 0, bonds = 0, no_edges = -1;
    for (int64_t g = 0; g < ds.n_graphs; g++) {
        atoms += igraph_vcount(&ds.graphs[g]);
        bonds += igraph_ecount(&ds.graphs[g]);
        if (igraph_ecount(&ds.graphs[g]) == 0) no_edges = g;
    }
    assert_int_equal(atoms, 14991);
    assert_int_equal(bonds, 15428);
    assert_string_equal(ds.files[no_edges], "molecules/0935.gml"); /* methane */
    assert_string_equal(ds.files[0], "molecules/0001.gml");
    assert_float_equal(ds.targets.y.data[0], -0.77f, 1e-6f);
    assert_string_equal(GAS(&ds.graphs[1], "smiles"), "Cc1occc1C(=O)Nc2ccccc2");
    ag_dataset_destroy(&ds);

    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    const char *attrs[] = {"label"};
    o.graph_attrs = attrs;
    o.n_graph_attrs = 1;
    assert_int_equal(ag_dataset_load_dir(&ds, AG_SHARED_DATASETS "/mutag/molecules", &o), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 188);
    int pos = 0;
    for (int64_t g = 0; g < 188; g++) pos += y_at(&ds.targets, g, 0) == 1.0f;
    assert_int_equal(pos, 125);
    assert_string_equal(ds.files[187], "0188.gml");
    ag_dataset_destroy(&ds);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_table),
        cmocka_unit_test(test_from_folder),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_format_given),
        cmocka_unit_test(test_reading_warnings),
        cmocka_unit_test(test_tu),
        cmocka_unit_test(test_tu_many_columns),
        cmocka_unit_test(test_tu_mutag),
        cmocka_unit_test(test_shared_esol_mutag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
