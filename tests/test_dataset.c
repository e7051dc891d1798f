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
#include "cli_testutil.h"
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

#define DATA AG_SOURCE_DIR "/tests/data/tables/dataset/"

static float y_at(const ag_targets_t *t, int64_t g, int64_t j) { return t->y.data[g * t->n_tasks + j]; }

static void test_from_table(void **state) {
    (void)state;
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, DATA "labels.csv", NULL), AG_SUCCESS);
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
    for (int which = 0; which < 2; which++) {
        int reached = 0;
        for (int64_t k = 1; k < 200 && !reached; k++) {
            ag_i_alloc_fail_at(k);
            ag_error_t rc = which == 0 ? ag_dataset_load(&ds, DATA "labels.csv", NULL)
                                       : ag_dataset_load_dir(&ds, DATA "graphs", &o);
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) {
                ag_dataset_destroy(&ds);
                reached = 1;
                continue;
            }
            assert_int_equal(rc, AG_ENOMEM);
            assert_null(ds.graphs);
        }
        assert_true(reached);
    }
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
    snprintf(table, sizeof table, "%s/labels.csv", dir);
    struct {
        const char *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"file,y\ngood.gml,1\nmissing.gml,0\n", AG_EFILE,
         "/missing.gml: No such file or directory (listed in data row 2 of "},
        {"file,y\ngood.gml,1\nbad.gml,0\n", AG_EPARSE, "/bad.gml: "},
        {"file,y\ngood.gml,1\ngood.xyz,0\n", AG_EFORMAT, "good.xyz: unknown file extension"},
        {"file,y\ngood.gml,1\n,0\n", AG_EFILE, "labels.csv: row 2 has an empty file name"},
        {"name,y\ngood.gml,1\n", AG_EATTR, "labels.csv:1: no 'file' column"},
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
    unlink(table);
    snprintf(path, sizeof path, "%s/good.gml", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/bad.gml", dir);
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

static void test_shared_esol_mutag(void **state) {
    (void)state;
    ag_dataset_t ds;
    /* ESOL rather than Tox21 (7,831 files, about 2 s, but near 20 s under ASan): 1,128 molecules. */
    if (access(AG_SHARED_DATASETS "/esol/labels.csv", R_OK) != 0) skip();
    ag_dataset_options_t eo;
    ag_dataset_options_init(&eo);
    const char *logs[] = {"logS"};
    eo.targets.targets = logs;
    eo.targets.n_targets = 1;
    assert_int_equal(ag_dataset_load(&ds, AG_SHARED_DATASETS "/esol/labels.csv", &eo), AG_SUCCESS);
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
        cmocka_unit_test(test_shared_esol_mutag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
