/* Tests of training-set preparation: task inference, the featuriser fitted on the training graphs
 * only, target layouts, node labels with the label attribute and its mirrors excluded, node tables
 * with their normalisation, and the error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/prepare.h>

#define assert_msg_contains(text) \
    do { \
        if (!strstr(ag_error_message(), (text))) \
            fail_msg("message \"%s\" lacks \"%s\"", ag_error_message(), (text)); \
    } while (0)

#define MINI AG_SOURCE_DIR "/tests/data/mutag-mini"

/* Writes text to a fresh temporary file whose name ends with suffix; returns its path (static). */
static const char *temp_file(const char *text, const char *suffix) {
    static char p[4][64];
    static int k = 0;
    char *path = p[k++ % 4];
    snprintf(path, 64, "/tmp/ag_prep_XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static ag_task_t infer_col(const char *csv, const char *col) {
    const char *path = temp_file(csv, ".csv");
    ag_targets_t t;
    ag_targets_options_t o;
    ag_targets_options_init(&o);
    if (col) {
        o.targets = &col;
        o.n_targets = 1;
    }
    assert_int_equal(ag_targets_read_csv(&t, path, &o), AG_SUCCESS);
    ag_task_t task = ag_task_infer(&t);
    ag_targets_destroy(&t);
    unlink(path);
    return task;
}

static ag_task_t infer(const char *csv) { return infer_col(csv, NULL); }

static void test_task_inference(void **state) {
    (void)state;
    assert_int_equal(infer("file,a,b\nx.gml,0,1\ny.gml,,0\nz.gml,1,\n"), AG_TASK_GRAPH_MULTITASK);
    assert_int_equal(infer("file,a\nx.gml,0\ny.gml,1\n"), AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(infer("file,a\nx.gml,1\ny.gml,2\nz.gml,3\n"), AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(infer_col("file,a\nx.gml,cat\ny.gml,dog\n", "a"), AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(infer("file,a\nx.gml,1.5\ny.gml,2\n"), AG_TASK_GRAPH_REGRESSION);
    assert_int_equal(infer("file,a,b\nx.gml,0,1.5\ny.gml,1,2\n"), AG_TASK_GRAPH_REGRESSION);
    /* eleven distinct integers are a quantity, not classes */
    assert_int_equal(infer("file,a\n0.gml,0\n1.gml,1\n2.gml,2\n3.gml,3\n4.gml,4\n5.gml,5\n6.gml,6\n7.gml,7\n8.gml,8\n"
                           "9.gml,9\n10.gml,10\n"),
                     AG_TASK_GRAPH_REGRESSION);
}

/* The featuriser sees only the training graphs: an element absent from them goes to <other>. */
static void test_fit_on_training_graphs(void **state) {
    (void)state;
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, MINI "/labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(ds.n_graphs, 28);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    const char *v[] = {"element"};
    fc.vertex_select = AG_SELECT_LIST;
    fc.vertex_attrs = v;
    fc.n_vertex_attrs = 1;
    fc.edge_select = AG_SELECT_NONE;
    int64_t fit[] = {0, 1, 2, 3}; /* 0001..0004: C, N, O only; 0005 has 2 F atoms */
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, fit, 4), AG_SUCCESS);
    assert_int_equal(p.featurizer.n_features, 4);
    assert_string_equal(ag_featurizer_column_name(&p.featurizer, 3), "element=<other>");
    assert_int_equal(p.set.n_examples, 28);
    const ag_example_t *ex = &p.set.examples[4];
    assert_int_equal(ex->X.rows, ex->graph.n_nodes);
    int64_t other = 0;
    for (int64_t i = 0; i < ex->X.rows; i++) other += ex->X.data[i * 4 + 3] == 1.0f;
    assert_int_equal(other, 2);
    /* targets: class ids of labels.csv (0001 is 1, 0002 is 0), names "0", "1" */
    assert_int_equal(p.n_out, 2);
    assert_int_equal(p.set.n_classes, 2);
    assert_int_equal(p.set.n_cols, 1);
    assert_string_equal(p.names[0], "0");
    assert_string_equal(p.names[1], "1");
    assert_true(p.set.targets[0] == 1.0f && p.set.targets[1] == 0.0f);
    ag_prepared_destroy(&p);
    /* the same data through a given featuriser and class list */
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, fit, 4), AG_SUCCESS);
    ex = &p.set.examples[4];
    ag_prepared_t q;
    const char *names[] = {"0", "1"};
    assert_int_equal(ag_prepared_from_graphs_with(&q, &ds, AG_TASK_GRAPH_CLASSIFICATION, &p.featurizer, names, 2),
                     AG_SUCCESS);
    assert_memory_equal(q.set.examples[4].X.data, ex->X.data, (size_t)(ex->X.rows * 4) * sizeof(float));
    assert_memory_equal(q.set.targets, p.set.targets, 28 * sizeof(float));
    ag_prepared_destroy(&q);
    const char *wrong[] = {"1", "2"};
    assert_int_equal(ag_prepared_from_graphs_with(&q, &ds, AG_TASK_GRAPH_CLASSIFICATION, &p.featurizer, wrong, 2),
                     AG_EVALUE);
    assert_msg_contains("class '0' of target 'label' is not one of the model's 2 classes ('1', '2')");
    /* a long class list is cut, and says so; a first name longer than the room is not printed */
    static char longs[40][24];
    const char *many[40];
    for (int c = 0; c < 40; c++) {
        snprintf(longs[c], sizeof longs[c], "class-number-%02d", c + 1);
        many[c] = longs[c];
    }
    assert_int_equal(ag_prepared_from_graphs_with(&q, &ds, AG_TASK_GRAPH_CLASSIFICATION, &p.featurizer, many, 40),
                     AG_EVALUE);
    assert_msg_contains("not one of the model's 40 classes ('class-number-01', 'class-number-02', ");
    assert_msg_contains(", ...)");
    assert_null(strstr(ag_error_message(), "class-number-40"));
    static char huge[400];
    memset(huge, 'x', sizeof huge - 1);
    const char *one_huge[] = {huge, "1"};
    assert_int_equal(ag_prepared_from_graphs_with(&q, &ds, AG_TASK_GRAPH_CLASSIFICATION, &p.featurizer, one_huge, 2),
                     AG_EVALUE);
    assert_msg_contains("not one of the model's 2 classes (...)");
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
}

static void test_graph_task_layouts(void **state) {
    (void)state;
    /* absolute graph paths: the loader takes them as they are */
    char text[1024];
    snprintf(text, sizeof text,
             "file,a,b,c\n%s/molecules/0001.gml,0,,2.5\n%s/molecules/0002.gml,1,1,-1\n%s/molecules/0003.gml,,0,4\n",
             MINI, MINI, MINI);
    const char *path = temp_file(text, ".csv");
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, path, NULL), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    /* regression: every column, values as they are */
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, NULL, 0), AG_SUCCESS);
    assert_int_equal(p.set.n_cols, 3);
    assert_int_equal(p.n_out, 3);
    assert_string_equal(p.names[2], "c");
    assert_true(p.set.targets[2] == 2.5f && isnan(p.set.targets[1]) && p.set.targets[5] == -1.0f);
    ag_prepared_destroy(&p);
    /* multi-task needs 0/1 columns: c is not */
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_MULTITASK, &fc, NULL, 0), AG_EVALUE);
    assert_msg_contains("column 'c' is regression (2.5 for ");
    assert_msg_contains("/molecules/0001.gml)");
    /* classification needs one column */
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_EINVAL);
    assert_msg_contains("one target column, not 3 (choose one: --target COLUMN, or a one-column target matrix)");
    /* node tasks are not graph tasks */
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_NODE_CLASSIFICATION, &fc, NULL, 0), AG_EINVAL);
    /* no column at all: the dataset's fault, said before any graph is featurised (so without a
     * graph's name), and nothing left allocated */
    fc.vertex_select = AG_SELECT_NONE;
    fc.edge_select = AG_SELECT_NONE;
    int64_t fit[] = {0, 2};
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, fit, 2), AG_EINVAL);
    assert_string_equal(ag_error_message(), "no feature columns: the 2 graphs the features are fitted on have no usable "
                        "vertex attribute; choose vertex attributes, degree columns (option degree), a "
                        "positional encoding or a node table");
    assert_null(p.set.examples);
    /* asked to, the fit falls back on the degree, standardised on the fitted graphs 0 and 2 */
    fc.degree_if_featureless = 1;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, fit, 2), AG_SUCCESS);
    assert_int_equal(p.featurizer.degree, 1);
    assert_int_equal(p.featurizer.norm, AG_NORM_STANDARDIZE);
    assert_int_equal(p.set.examples[0].X.cols, 1);
    double sum = 0, sq = 0;
    int64_t n = 0;
    igraph_vector_int_t deg[3];
    for (int g = 0; g < 3; g++) {
        igraph_vector_int_init(&deg[g], 0);
        igraph_degree(&ds.graphs[g], &deg[g], igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
    }
    for (int k = 0; k < 2; k++)
        for (igraph_integer_t v = 0; v < igraph_vector_int_size(&deg[fit[k]]); v++, n++) {
            sum += (double)VECTOR(deg[fit[k]])[v];
            sq += (double)VECTOR(deg[fit[k]])[v] * (double)VECTOR(deg[fit[k]])[v];
        }
    const double mean = sum / (double)n, sd = sqrt(sq / (double)n - mean * mean);
    const igraph_integer_t deg0 = VECTOR(deg[0])[0];
    assert_true(sd > 0.1);
    for (int g = 0; g < 3; g++) { /* graph 1, not fitted on, by the same statistics */
        const ag_fmat_t *X = &p.set.examples[g].X;
        assert_int_equal(X->rows, igraph_vector_int_size(&deg[g]));
        for (int64_t v = 0; v < X->rows; v++)
            assert_float_equal(X->data[v], ((double)VECTOR(deg[g])[v] - mean) / sd, 1e-5);
        igraph_vector_int_destroy(&deg[g]);
    }
    ag_prepared_destroy(&p);
    /* row normalisation acts on attribute columns only, and there are none: standardised too */
    fc.norm = AG_NORM_L1_ROWS;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, fit, 2), AG_SUCCESS);
    assert_int_equal(p.featurizer.norm, AG_NORM_STANDARDIZE);
    assert_float_equal(p.set.examples[0].X.data[0], ((double)deg0 - mean) / sd, 1e-5);
    ag_prepared_destroy(&p);
    fc.norm = AG_NORM_NONE;
    /* with a usable attribute there is no fallback */
    fc.vertex_select = AG_SELECT_ALL;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, fit, 2), AG_SUCCESS);
    assert_int_equal(p.featurizer.degree, 0);
    assert_int_equal(p.featurizer.norm, AG_NORM_NONE);
    ag_prepared_destroy(&p);
    fc.vertex_select = AG_SELECT_NONE;
    fc.degree_if_featureless = 0;
    fc.degree = 1;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_REGRESSION, &fc, fit, 2), AG_SUCCESS);
    assert_int_equal(p.set.examples[0].X.cols, 1);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
    unlink(path);
}

/* A mirror may hold a value of its own on the unlabelled vertices ("zz", 7): only the labelled
 * ones decide. A value per vertex (age) never mirrors, even where only two vertices are labelled. */
static void test_mirror_with_unlabelled_values(void **state) {
    (void)state;
    const char *cls[] = {"a", "a", "a", "b", "b", "b", "", ""};
    const char *team[] = {"T0", "T0", "T0", "T1", "T1", "T1", "zz", "zz"};
    const int code[] = {0, 0, 0, 1, 1, 1, 7, 7};
    for (int few = 0; few < 2; few++) {
        char gml[4096];
        int len = snprintf(gml, sizeof gml, "graph [ directed 0\n");
        for (int v = 0; v < 8; v++)
            len += snprintf(gml + len, sizeof gml - (size_t)len,
                            "node [ id %d cls \"%s\" team \"%s\" code %d age %d x %d ]\n", v,
                            few && v != 0 && v != 3 ? "" : cls[v], team[v], code[v], 20 + v, v % 2);
        for (int v = 0; v < 7; v++) len += snprintf(gml + len, sizeof gml - (size_t)len, "edge [ source %d target %d ]\n", v, v + 1);
        snprintf(gml + len, sizeof gml - (size_t)len, "]\n");
        const char *path = temp_file(gml, ".gml");
        igraph_t ig;
        assert_int_equal(ag_graph_read(&ig, path, AG_FORMAT_AUTO, 0), AG_SUCCESS);
        ag_featurizer_config_t fc;
        ag_featurizer_config_init(&fc);
        ag_prepared_t p;
        assert_int_equal(ag_prepared_from_nodes(&p, &ig, "cls", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
        if (!few) {
            assert_int_equal(p.n_excluded, 3);
            assert_string_equal(p.excluded[0], "cls");
            int t = 0, c = 0;
            for (int64_t i = 1; i < p.n_excluded; i++) {
                t += !strcmp(p.excluded[i], "team");
                c += !strcmp(p.excluded[i], "code");
            }
            assert_true(t == 1 && c == 1);
            /* age and x are the features */
            assert_int_equal(p.featurizer.n_vattrs, 2);
        } else {
            /* two labelled vertices show no repeat: nothing but the label is left out */
            assert_int_equal(p.n_excluded, 1);
            assert_int_equal(p.featurizer.n_vattrs, 4);
        }
        ag_prepared_destroy(&p);
        /* labelled by the numeric mirror, the string one mirrors it back */
        if (!few) {
            assert_int_equal(ag_prepared_from_nodes(&p, &ig, "code", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
            int t = 0;
            for (int64_t i = 1; i < p.n_excluded; i++) t += !strcmp(p.excluded[i], "team");
            assert_int_equal(t, 1);
            ag_prepared_destroy(&p);
        }
        igraph_destroy(&ig);
        unlink(path);
    }
}

/* A node-table column that mirrors the classes, or copies the regression target in another unit,
 * is refused by its place (the table is the caller's own: every column was asked for); a column
 * that only correlates is kept. */
static void test_table_column_copies(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_vector_t club;
    igraph_vector_init(&club, 0);
    assert_int_equal(igraph_cattribute_VANV(&ig, "club", igraph_vss_all(), &club), IGRAPH_SUCCESS);
    ag_fmat_t T;
    assert_int_equal(ag_fmat_init(&T, 34, 2), AG_SUCCESS);
    for (int v = 0; v < 34; v++) {
        T.data[v * 2] = (float)(v % 3);                         /* unrelated */
        T.data[v * 2 + 1] = 5.0f - 2.0f * (float)VECTOR(club)[v]; /* the club, recoded */
    }
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.vertex_select = AG_SELECT_NONE;
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, &T, AG_NORM_NONE, &fc), AG_EATTR);
    assert_string_equal(ag_error_message(), "node-table column 2 (of 2) mirrors the labels (one value per class on the "
                                            "labelled vertices) and cannot be a feature: the model would read its "
                                            "answer from it; remove it from the table");
    /* the column and the reason without the message, for a caller who names the column */
    assert_int_equal(ag_prepared_refused_column(), 1);
    assert_string_equal(ag_prepared_refused_reason(), "mirrors the labels (one value per class on the labelled "
                                                      "vertices) and cannot be a feature: the model would read its "
                                                      "answer from it; remove it from the table");
    assert_int_equal(ag_prepared_from_node_values(&p, &ig, "club", &T, AG_NORM_NONE, &fc), AG_EATTR);
    assert_string_equal(ag_error_message(), "node-table column 2 (of 2) copies the target (the same values, or the "
                                            "same in another unit, on the vertices with one) and cannot be a "
                                            "feature: the model would read its answer from it; remove it from the "
                                            "table");
    assert_int_equal(ag_prepared_refused_column(), 1);
    assert_string_equal(ag_prepared_refused_reason(), "copies the target (the same values, or the same in another "
                                                      "unit, on the vertices with one) and cannot be a feature: the "
                                                      "model would read its answer from it; remove it from the table");
    /* another failure refuses no column: the answer is the last call's */
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "no_such_attr", NULL, 0, &T, AG_NORM_NONE, &fc), AG_EATTR);
    assert_int_equal(ag_prepared_refused_column(), -1);
    assert_string_equal(ag_prepared_refused_reason(), "");
    /* the club on all but one vertex: no longer one value per class, so a feature like any other */
    T.data[5 * 2 + 1] = 4.0f;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, &T, AG_NORM_NONE, &fc), AG_SUCCESS);
    assert_int_equal(ag_prepared_refused_column(), -1);
    ag_prepared_destroy(&p);
    ag_fmat_destroy(&T);
    igraph_vector_destroy(&club);
    igraph_destroy(&ig);
}

static void test_node_labels_and_mirrors(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    /* club is the label, club_name mirrors it; id is excluded by default; name is 34 values + other */
    assert_int_equal(p.n_excluded, 2);
    assert_string_equal(p.excluded[0], "club");
    assert_string_equal(p.excluded[1], "club_name");
    assert_int_equal(p.featurizer.n_vattrs, 1);
    assert_string_equal(p.featurizer.vattrs[0].name, "name");
    assert_int_equal(p.set.examples[0].X.cols, 35);
    assert_int_equal(p.set.n_rows, 34);
    assert_true(p.set.targets[0] == 0.0f && p.set.targets[33] == 1.0f);
    assert_string_equal(p.label_attr, "club");
    ag_prepared_destroy(&p);
    /* labelled by the string: club (numeric) mirrors it the other way */
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club_name", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    assert_int_equal(p.n_excluded, 2);
    assert_string_equal(p.excluded[1], "club");
    ag_prepared_destroy(&p);
    /* listing the label attribute as a feature is an error */
    const char *v[] = {"club"};
    fc.vertex_select = AG_SELECT_LIST;
    fc.vertex_attrs = v;
    fc.n_vertex_attrs = 1;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EATTR);
    assert_msg_contains("'club' holds the labels");
    /* and so is listing one that mirrors it: named on purpose, it is neither dropped nor used */
    const char *vm[] = {"name", "club_name"};
    fc.vertex_attrs = vm;
    fc.n_vertex_attrs = 2;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'club_name' mirrors the labels (one value per class on "
                                            "the labelled vertices) and cannot be a feature: the model would read "
                                            "its answer from it");
    /* a pattern that matches it leaves it out, as selecting all attributes does */
    const char *vp[] = {"*name"};
    fc.vertex_attrs = vp;
    fc.n_vertex_attrs = 1;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    assert_int_equal(p.featurizer.n_vattrs, 1);
    assert_string_equal(p.featurizer.vattrs[0].name, "name");
    ag_prepared_destroy(&p);
    /* a pattern matching only what is left out says so, rather than that nothing matched */
    const char *vc[] = {"c*"};
    fc.vertex_attrs = vc;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EATTR);
    assert_string_equal(ag_error_message(), "pattern 'c*' matches only vertex attributes left out (the label or "
                                            "target, an attribute that mirrors or copies it, or an exclusion): "
                                            "'club', 'club_name'");
    fc.vertex_attrs = v;
    /* no feature at all */
    fc.vertex_select = AG_SELECT_NONE;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EINVAL);
    assert_msg_contains("no feature columns");
    /* the fallback: Mr. Hi's 16 neighbours against the club's 156 / 34 on average */
    fc.degree_if_featureless = 1;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    assert_int_equal(p.set.examples[0].X.cols, 1);
    {
        igraph_vector_int_t deg;
        igraph_vector_int_init(&deg, 0);
        igraph_degree(&ig, &deg, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
        double sq = 0, mean = 156.0 / 34.0;
        for (int u = 0; u < 34; u++) sq += (VECTOR(deg)[u] - mean) * (VECTOR(deg)[u] - mean);
        igraph_vector_int_destroy(&deg);
        assert_float_equal(p.set.examples[0].X.data[0], (16.0 - mean) / sqrt(sq / 34.0), 1e-5);
    }
    ag_prepared_destroy(&p);
    fc.degree_if_featureless = 0;
    /* degree only: one column, the CSR degree */
    fc.degree = 1;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    assert_int_equal(p.set.examples[0].X.cols, 1);
    assert_float_equal(p.set.examples[0].X.data[0], 16.0f, 0.0f); /* Mr. Hi has 16 neighbours */
    ag_prepared_destroy(&p);
    /* an unknown label attribute, a label outside a given class list */
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "faction", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_EATTR);
    const char *cls[] = {"0"};
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", cls, 1, NULL, AG_NORM_NONE, &fc), AG_EVALUE);
    igraph_destroy(&ig);
}

/* A node table: L1 rows and standardised columns, by hand. */
static void test_node_table(void **state) {
    (void)state;
    const char *gml = temp_file("graph [ directed 0\n"
                                "node [ id 10 cls \"a\" ] node [ id 20 cls \"b\" ] node [ id 30 cls \"a\" ]\n"
                                "edge [ source 10 target 20 ] edge [ source 20 target 30 ] ]\n",
                                ".gml");
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, gml, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_fmat_t t = {0};
    assert_int_equal(ag_fmat_init(&t, 3, 2), AG_SUCCESS);
    float vals[6] = {1, 3, 2, 2, 0, 0}; /* rows (1,3) (2,2) (0,0) */
    memcpy(t.data, vals, sizeof vals);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "cls", NULL, 0, &t, AG_NORM_L1_ROWS, &fc), AG_SUCCESS);
    const ag_fmat_t *X = &p.set.examples[0].X;
    assert_int_equal(X->cols, 2); /* no usable attribute: id excluded, cls is the label */
    assert_float_equal(X->data[0], 0.25f, 1e-7f);
    assert_float_equal(X->data[1], 0.75f, 1e-7f);
    assert_float_equal(X->data[2], 0.5f, 1e-7f);
    assert_float_equal(X->data[4], 0.0f, 0.0f);
    assert_int_equal(p.table.width, 2);
    ag_prepared_destroy(&p);
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "cls", NULL, 0, &t, AG_NORM_STANDARDIZE, &fc), AG_SUCCESS);
    /* column 0: mean 1, population std sqrt(2/3); column 1: mean 5/3 */
    assert_float_equal(p.table.mean[0], 1.0f, 1e-6f);
    assert_float_equal(p.table.std[0], sqrtf(2.0f / 3.0f), 1e-6f);
    assert_float_equal(p.table.mean[1], 5.0f / 3.0f, 1e-6f);
    X = &p.set.examples[0].X;
    assert_float_equal(X->data[0], 0.0f, 1e-6f);
    assert_float_equal(X->data[2], 1.0f / sqrtf(2.0f / 3.0f), 1e-5f);
    /* the same inputs through ag_prepared_from_nodes_with and the stored statistics */
    ag_prepared_t q;
    assert_int_equal(
            ag_prepared_from_nodes_with(&q, &ig, "cls", &p.featurizer, &p.table, &t, (const char *const *)p.names, 2),
            AG_SUCCESS);
    assert_memory_equal(q.set.examples[0].X.data, X->data, 6 * sizeof(float));
    ag_prepared_destroy(&q);
    /* a table of the wrong size */
    ag_fmat_t bad = {0};
    assert_int_equal(ag_fmat_init(&bad, 3, 3), AG_SUCCESS);
    assert_int_equal(ag_prepared_from_nodes_with(&q, &ig, "cls", &p.featurizer, &p.table, &bad, NULL, 0), AG_EMISMATCH);
    assert_msg_contains("3 x 3");
    ag_fmat_destroy(&bad);
    ag_prepared_destroy(&p);
    /* raw columns only: column 1 (3, 2, 0) is standardised; column 0 after -0.5 (0.5, 1.5, -0.5)
     * too; a column within [-1, 1] (0.5, -1, 0) is left as it is, with the statistics of identity */
    vals[0] = 0.5f;
    vals[2] = 1.5f;
    vals[4] = -0.5f;
    memcpy(t.data, vals, sizeof vals);
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "cls", NULL, 0, &t, AG_NORM_STANDARDIZE_RAW, &fc), AG_SUCCESS);
    assert_int_equal(p.table.norm, AG_NORM_STANDARDIZE);
    assert_float_equal(p.table.mean[0], 0.5f, 1e-6f);
    assert_float_equal(p.table.mean[1], 5.0f / 3.0f, 1e-6f);
    ag_prepared_destroy(&p);
    float within[6] = {0.5f, 3, -1, 2, 0, 0};
    memcpy(t.data, within, sizeof within);
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "cls", NULL, 0, &t, AG_NORM_STANDARDIZE_RAW, &fc), AG_SUCCESS);
    assert_float_equal(p.table.mean[0], 0.0f, 0.0f);
    assert_float_equal(p.table.std[0], 1.0f, 0.0f);
    assert_float_equal(p.table.mean[1], 5.0f / 3.0f, 1e-6f);
    X = &p.set.examples[0].X;
    assert_float_equal(X->data[0], 0.5f, 0.0f);
    assert_float_equal(X->data[2], -1.0f, 0.0f);
    assert_float_equal(X->data[3], (2.0f - 5.0f / 3.0f) / p.table.std[1], 1e-6f);
    ag_prepared_destroy(&p);
    /* past the last mode: refused */
    ag_table_norm_t tn;
    assert_int_equal(ag_table_norm_fit(&tn, &t, (ag_feature_norm_t)(AG_NORM_STANDARDIZE_RAW + 1)), AG_EINVAL);
    assert_msg_contains("unknown node-table normalisation 4");
    ag_fmat_destroy(&t);
    igraph_destroy(&ig);
    unlink(gml);
}

/* A graph whose attributes do not give the fitted columns: the error names its file. */
static void test_graph_lacking_features(void **state) {
    (void)state;
    char text[1024];
    snprintf(text, sizeof text, "file,y\n%s/graphs/molecules/aspirin.gml,1\n%s/graphs/social/karate.gml,0\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR);
    const char *path = temp_file(text, ".csv");
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, path, NULL), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.edge_select = AG_SELECT_NONE;
    int64_t fit[] = {0};
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, fit, 1), AG_EATTR);
    assert_msg_contains("karate.gml: ");
    assert_msg_contains("attribute 'aromatic' is missing (the model expects numeric vertex attribute 'aromatic')");
    assert_null(p.set.examples);
    ag_dataset_destroy(&ds);
    unlink(path);
    /* one class in every graph (0/1 targets too) is nothing to classify; the message gives the
     * one value there is (no value at all: test_api.c) */
    const char *one_class[] = {"1\n", "0\n", "2\n"};
    const char *says[] = {"every graph with a value has 1", "every graph with a value has 0",
                          "every graph with a value has 2"};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "file,y\n%s/graphs/molecules/aspirin.gml,%s%s/graphs/molecules/caffeine.gml,%s",
                 AG_SOURCE_DIR, one_class[i], AG_SOURCE_DIR, one_class[i]);
        path = temp_file(text, ".csv");
        assert_int_equal(ag_dataset_load(&ds, path, NULL), AG_SUCCESS);
        assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_EVALUE);
        assert_msg_contains("target 'y' ");
        assert_msg_contains(says[i]);
        assert_null(p.set.examples);
        ag_dataset_destroy(&ds);
        unlink(path);
    }
    /* both classes, 0 first, whichever comes first in the file */
    snprintf(text, sizeof text, "file,y\n%s/graphs/molecules/aspirin.gml,1\n%s/graphs/molecules/caffeine.gml,0\n",
             AG_SOURCE_DIR, AG_SOURCE_DIR);
    path = temp_file(text, ".csv");
    assert_int_equal(ag_dataset_load(&ds, path, NULL), AG_SUCCESS);
    assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_SUCCESS);
    assert_int_equal(p.n_out, 2);
    assert_string_equal(p.names[0], "0");
    assert_string_equal(p.names[1], "1");
    assert_true(p.set.targets[0] == 1.0f);
    assert_true(p.set.targets[1] == 0.0f);
    ag_prepared_destroy(&p);
    ag_dataset_destroy(&ds);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_inference),
        cmocka_unit_test(test_fit_on_training_graphs),
        cmocka_unit_test(test_graph_task_layouts),
        cmocka_unit_test(test_table_column_copies),
        cmocka_unit_test(test_node_labels_and_mirrors),
        cmocka_unit_test(test_mirror_with_unlabelled_values),
        cmocka_unit_test(test_node_table),
        cmocka_unit_test(test_graph_lacking_features),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
