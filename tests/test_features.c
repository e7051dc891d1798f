/* Tests of the featuriser: encoders, selection, errors, normalisation, PE columns, JSON. */
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
#include <attngraph/features.h>
#include <attngraph/posenc.h>
#include "internal.h"
#include "json.h"
#include "featurizer_json.h"

void ag_i_alloc_fail_at(int64_t n);

/* Graph A: path 0-1-2-3 with every kind of attribute. */
static void make_a(igraph_t *g) {
    igraph_small(g, 4, IGRAPH_UNDIRECTED, 0, 1, 1, 2, 2, 3, -1);
    const double charge[] = {0, 1, -1, 2}, x0[] = {1, 2, 3, 4}, x1[] = {0.5, 0, 0, 1.5};
    const char *element[] = {"C", "N", "C", "O"};
    for (int i = 0; i < 4; i++) {
        SETVAN(g, "id", i, i);
        SETVAN(g, "charge", i, charge[i]);
        SETVAS(g, "element", i, element[i]);
        SETVAB(g, "aromatic", i, i % 2 == 0);
        SETVAN(g, "x0", i, x0[i]);
        SETVAN(g, "x1", i, x1[i]);
        SETVAN(g, "y", i, 7);
    }
    const double bond[] = {1, 2, 1.5};
    const char *bt[] = {"SINGLE", "DOUBLE", "AROMATIC"};
    for (int e = 0; e < 3; e++) {
        SETEAN(g, "bond", e, bond[e]);
        SETEAS(g, "bond_type", e, bt[e]);
    }
}

/* Graph B: 3 vertices, edge 0-1, with element values A has not seen ("S", ""). */
static void make_b(igraph_t *g) {
    igraph_small(g, 3, IGRAPH_UNDIRECTED, 0, 1, -1);
    const char *element[] = {"S", "C", ""};
    for (int i = 0; i < 3; i++) {
        SETVAN(g, "id", i, i);
        SETVAN(g, "charge", i, 0);
        SETVAS(g, "element", i, element[i]);
        SETVAB(g, "aromatic", i, 0);
        SETVAN(g, "x0", i, 0);
        SETVAN(g, "x1", i, 0);
        SETVAN(g, "y", i, 1);
    }
    SETEAN(g, "bond", 0, 3);
    SETEAS(g, "bond_type", 0, "QUADRUPLE");
}

static void assert_fmat(const ag_fmat_t *m, int64_t rows, int64_t cols, const float *expect, float eps) {
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    for (int64_t i = 0; i < rows * cols; i++) assert_float_equal(m->data[i], expect[i], eps);
}

static void assert_names(const ag_featurizer_t *f, int edge, const char *const *want, int64_t n) {
    assert_int_equal(edge ? f->n_edge_features : f->n_features, n);
    for (int64_t j = 0; j < n; j++)
        assert_string_equal(edge ? ag_featurizer_edge_column_name(f, j) : ag_featurizer_column_name(f, j), want[j]);
    assert_null(edge ? ag_featurizer_edge_column_name(f, n) : ag_featurizer_column_name(f, n));
    assert_null(ag_featurizer_column_name(f, -1));
}

/* Graphs A and B, and a featuriser fitted on A with the default configuration. */
static void fit_a_default(ag_featurizer_t *f, igraph_t *a, igraph_t *b) {
    make_a(a);
    make_b(b);
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    const igraph_t *gs[] = {a};
    assert_int_equal(ag_featurizer_fit(f, &cfg, gs, 1), AG_SUCCESS);
}

/* ag_featurizer_unseen on g finds attr (edge or vertex) with count of total, example first. */
static void expect_unseen(const ag_featurizer_t *f, const igraph_t *g, const char *attr, int is_edge, int64_t count,
                          int64_t total, const char *example) {
    ag_unseen_t u;
    assert_int_equal(ag_featurizer_unseen(f, g, &u), AG_SUCCESS);
    assert_string_equal(u.attr, attr);
    assert_int_equal(u.is_edge, is_edge);
    assert_int_equal(u.count, count);
    assert_int_equal(u.total, total);
    assert_string_equal(u.example, example);
}

static void test_encoders(void **state) {
    (void)state;
    igraph_t a, b;
    ag_featurizer_t f;
    fit_a_default(&f, &a, &b);
    /* all attributes in name order, "id" excluded by default; string width = 3 values + other */
    const char *names[] = {"aromatic", "charge", "element=C", "element=N", "element=O", "element=<other>", "x0", "x1", "y"};
    assert_names(&f, 0, names, 9);
    const char *enames[] = {"bond", "bond_type=AROMATIC", "bond_type=DOUBLE", "bond_type=SINGLE", "bond_type=<other>"};
    assert_names(&f, 1, enames, 5);
    assert_int_equal(f.n_attr_features, 9);
    assert_int_equal(f.vattrs[2].type, AG_ATTR_STRING);
    assert_int_equal(f.vattrs[2].width, 4);
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, &E), AG_SUCCESS);
    const float wx[] = {1, 0, 1, 0, 0, 0, 1, 0.5f, 7,  /* */
                        0, 1, 0, 1, 0, 0, 2, 0, 7,     /* */
                        1, -1, 1, 0, 0, 0, 3, 0, 7,    /* */
                        0, 2, 0, 0, 1, 0, 4, 1.5f, 7};
    assert_fmat(&X, 4, 9, wx, 0.0f);
    const float we[] = {1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 1.5f, 1, 0, 0, 0};
    assert_fmat(&E, 3, 5, we, 0.0f);
    /* an unseen value ("S") and an unseen bond type go to the other slots; "" is missing: no
     * column of the block is set */
    assert_int_equal(ag_featurizer_transform(&f, &b, &X, &E), AG_SUCCESS);
    const float wxb[] = {0, 0, 0, 0, 0, 1, 0, 0, 1, /* S */
                         0, 0, 1, 0, 0, 0, 0, 0, 1, /* C */
                         0, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_fmat(&X, 3, 9, wxb, 0.0f);
    const float web[] = {3, 0, 0, 0, 1};
    assert_fmat(&E, 1, 5, web, 0.0f);
    /* Ee may be NULL */
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, NULL), AG_SUCCESS);
    assert_fmat(&X, 4, 9, wx, 0.0f);
    /* igraph's GML writer keys bond_type as "bondtype": the same columns from it; and the unseen
     * count finds it too (b's QUADRUPLE) */
    igraph_t g;
    assert_int_equal(igraph_copy(&g, &a), IGRAPH_SUCCESS);
    for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) SETEAS(&g, "bondtype", e, EAS(&a, "bond_type", e));
    DELEA(&g, "bond_type");
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_SUCCESS);
    assert_fmat(&X, 4, 9, wx, 0.0f);
    assert_fmat(&E, 3, 5, we, 0.0f);
    igraph_destroy(&g);
    assert_int_equal(igraph_copy(&g, &b), IGRAPH_SUCCESS);
    SETEAS(&g, "bondtype", 0, EAS(&b, "bond_type", 0));
    DELEA(&g, "bond_type");
    expect_unseen(&f, &g, "bond_type", 1, 1, 1, "QUADRUPLE");
    /* neither name: the model's name in the message */
    DELEA(&g, "bondtype");
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "attribute 'bond_type' is missing (the model expects string edge"));
    igraph_destroy(&g);
    ag_featurizer_destroy(&f);
    ag_featurizer_destroy(&f); /* idempotent */
    /* fitting on both graphs builds the vocabulary over both, sorted; "" (missing) is not a value */
    const igraph_t *gs2[] = {&a, &b};
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs2, 2), AG_SUCCESS);
    const char *names2[] = {"aromatic", "charge", "element=C", "element=N", "element=O", "element=S",
                            "element=<other>", "x0", "x1", "y"};
    assert_names(&f, 0, names2, 10);
    assert_int_equal(f.n_edge_features, 6);
    assert_int_equal(ag_featurizer_transform(&f, &b, &X, NULL), AG_SUCCESS);
    assert_float_equal(X.data[0 * 10 + 5], 1.0f, 0.0f); /* S */
    for (int c = 2; c <= 6; c++) assert_float_equal(X.data[2 * 10 + c], 0.0f, 0.0f); /* "": none, not <other> */
    assert_int_equal(ag_featurizer_attr_width(AG_ATTR_NUMERIC, 0), 1);
    assert_int_equal(ag_featurizer_attr_width(AG_ATTR_BOOLEAN, 0), 1);
    assert_int_equal(ag_featurizer_attr_width(AG_ATTR_STRING, 5), 6);
    ag_featurizer_destroy(&f);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_destroy(&a);
    igraph_destroy(&b);
}

/* The string attribute whose values the vocabulary knows least: B has element S (unseen), C and ""
 * (missing, not counted), so 1 of 3 vertices; its one bond is QUADRUPLE, 1 of 1 edges: the edge
 * attribute is the worse. */
static void test_unseen(void **state) {
    (void)state;
    igraph_t a, b;
    ag_featurizer_t f;
    fit_a_default(&f, &a, &b);
    ag_unseen_t u;
    assert_int_equal(ag_featurizer_unseen(&f, &a, &u), AG_SUCCESS); /* its own training graph */
    assert_null(u.attr);
    assert_int_equal(u.count, 0);
    assert_int_equal(u.total, 0);
    expect_unseen(&f, &b, "bond_type", 1, 1, 1, "QUADRUPLE");
    /* the bond known, the element remains: 1 of 3 (S; "" is missing, not unseen) */
    SETEAS(&b, "bond_type", 0, "DOUBLE");
    expect_unseen(&f, &b, "element", 0, 1, 3, "S");
    /* two unseen, the first kept as the example; a long value is cut to 63 bytes */
    char longv[100];
    memset(longv, 'x', 99);
    longv[99] = '\0';
    SETVAS(&b, "element", 1, "Og");
    SETVAS(&b, "element", 0, longv);
    assert_int_equal(ag_featurizer_unseen(&f, &b, &u), AG_SUCCESS);
    assert_int_equal(u.count, 2);
    assert_int_equal(strlen(u.example), 63);
    assert_int_equal(u.example[0], 'x');
    /* an attribute of another type, or missing, is left to ag_featurizer_transform */
    igraph_t g;
    igraph_small(&g, 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    SETVAN(&g, "element", 0, 6);
    SETVAN(&g, "element", 1, 8);
    assert_int_equal(ag_featurizer_unseen(&f, &g, &u), AG_SUCCESS);
    assert_null(u.attr);
    ag_fmat_t X = {0};
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, NULL), AG_EATTR);
    assert_null(X.data);
    igraph_destroy(&g);
    /* equal shares: the first in column order (vertex before edge) */
    igraph_small(&g, 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    SETVAS(&g, "element", 0, "Xe");
    SETVAS(&g, "element", 1, "Kr");
    SETEAS(&g, "bond_type", 0, "TRIPLE");
    expect_unseen(&f, &g, "element", 0, 2, 2, "Xe");
    igraph_destroy(&g);
    assert_int_equal(ag_featurizer_unseen(NULL, &b, &u), AG_EINVAL);
    assert_int_equal(ag_featurizer_unseen(&f, NULL, &u), AG_EINVAL);
    assert_int_equal(ag_featurizer_unseen(&f, &b, NULL), AG_EINVAL);
    ag_featurizer_destroy(&f);
    igraph_destroy(&a);
    igraph_destroy(&b);
}

/* An empty string is a missing value, at fitting and at transform alike: no vocabulary entry, no
 * column of its block set (it was the <other> column, so that a blank atom read as a rare one and
 * drew no warning), so the standardised <other> column is fitted on real values only; and
 * ag_featurizer_missing counts it, under the GML writer's name too. */
static void test_empty_is_missing(void **state) {
    (void)state;
    igraph_t g;
    igraph_small(&g, 4, IGRAPH_UNDIRECTED, 0, 1, 1, 2, 2, 3, -1);
    const char *element[] = {"C", "", "O", "Se"};
    for (int i = 0; i < 4; i++) SETVAS(&g, "element", i, element[i]);
    const char *bt[] = {"SINGLE", "", ""};
    for (int e = 0; e < 3; e++) SETEAS(&g, "bond_type", e, bt[e]);
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    const igraph_t *gs[] = {&g};
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    const char *names[] = {"element=C", "element=O", "element=Se", "element=<other>"};
    assert_names(&f, 0, names, 4);
    const char *enames[] = {"bond_type=SINGLE", "bond_type=<other>"};
    assert_names(&f, 1, enames, 2);
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_SUCCESS);
    const float wx[] = {1, 0, 0, 0, /* C */
                        0, 0, 0, 0, /* "" */
                        0, 1, 0, 0, /* O */
                        0, 0, 1, 0};
    assert_fmat(&X, 4, 4, wx, 0.0f);
    const float we[] = {1, 0, 0, 0, 0, 0};
    assert_fmat(&E, 3, 2, we, 0.0f);
    int64_t count = -1;
    assert_int_equal(ag_featurizer_missing(&f, &g, 0, 0, &count), AG_SUCCESS);
    assert_int_equal(count, 1);
    assert_int_equal(ag_featurizer_missing(&f, &g, 1, 0, &count), AG_SUCCESS);
    assert_int_equal(count, 2);
    /* missing is not unseen: every non-empty value is known */
    ag_unseen_t u;
    assert_int_equal(ag_featurizer_unseen(&f, &g, &u), AG_SUCCESS);
    assert_null(u.attr);
    ag_featurizer_destroy(&f);
    /* standardised: "" adds nothing to the <other> column, which no fitted value sets */
    cfg.norm = AG_NORM_STANDARDIZE;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_float_equal(f.mean[3], 0.0f, 0.0f);
    assert_float_equal(f.mean[0], 0.25f, 1e-6f);
    ag_featurizer_destroy(&f);
    /* the GML writer's "bondtype" is counted as transform reads it; out of range is refused */
    cfg.norm = AG_NORM_NONE;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    for (igraph_integer_t e = 0; e < 3; e++) SETEAS(&g, "bondtype", e, EAS(&g, "bond_type", e));
    DELEA(&g, "bond_type");
    assert_int_equal(ag_featurizer_missing(&f, &g, 1, 0, &count), AG_SUCCESS);
    assert_int_equal(count, 2);
    assert_int_equal(ag_featurizer_missing(&f, &g, 1, 1, &count), AG_EINVAL);
    assert_int_equal(count, 0);
    assert_int_equal(ag_featurizer_missing(&f, &g, 0, -1, &count), AG_EINVAL);
    assert_int_equal(ag_featurizer_missing(&f, NULL, 0, 0, &count), AG_EINVAL);
    /* absent from the graph, or of another type: transform's error, no count */
    DELEA(&g, "bondtype");
    assert_int_equal(ag_featurizer_missing(&f, &g, 1, 0, &count), AG_SUCCESS);
    assert_int_equal(count, 0);
    DELVA(&g, "element");
    for (int i = 0; i < 4; i++) SETVAN(&g, "element", i, i);
    assert_int_equal(ag_featurizer_missing(&f, &g, 0, 0, &count), AG_SUCCESS);
    assert_int_equal(count, 0);
    ag_featurizer_destroy(&f);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_destroy(&g);
}

static void test_selection(void **state) {
    (void)state;
    igraph_t a;
    make_a(&a);
    const igraph_t *gs[] = {&a};
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    ag_featurizer_config_init(&cfg);
    cfg.vertex_select = AG_SELECT_LIST;
    cfg.edge_select = AG_SELECT_NONE;
    const char *l1[] = {"x*", "charge", "x0"}; /* the repeated x0 is dropped */
    cfg.vertex_attrs = l1;
    cfg.n_vertex_attrs = 3;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    const char *n1[] = {"x0", "x1", "charge"};
    assert_names(&f, 0, n1, 3);
    assert_int_equal(f.n_edge_features, 0);
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, &E), AG_SUCCESS);
    const float w1[] = {1, 0.5f, 0, 2, 0, 1, 3, 0, -1, 4, 1.5f, 2};
    assert_fmat(&X, 4, 3, w1, 0.0f);
    assert_int_equal(E.rows, 3);
    assert_int_equal(E.cols, 0);
    ag_featurizer_destroy(&f);
    /* exclusions apply to patterns; a plain listed name is always taken, even "id" */
    const char *ex[] = {"x1", "y"};
    cfg.exclude = ex;
    cfg.n_exclude = 2;
    const char *l2[] = {"x?", "id", "y"};
    cfg.vertex_attrs = l2;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    const char *n2[] = {"x0", "id", "y"};
    assert_names(&f, 0, n2, 3);
    ag_featurizer_destroy(&f);
    /* all-mode with a glob exclusion: edge attributes "bond*" all excluded */
    ag_featurizer_config_init(&cfg);
    const char *ex2[] = {"id", "bond*", "x*"};
    cfg.exclude = ex2;
    cfg.n_exclude = 3;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.n_edge_features, 0);
    const char *n3[] = {"aromatic", "charge", "element=C", "element=N", "element=O", "element=<other>", "y"};
    assert_names(&f, 0, n3, 7);
    ag_featurizer_destroy(&f);
    /* the defaults leave out attn-graph's own outputs (a labelled or explained graph's answers) as
     * well as "id"; exclude_more adds to them and a plain listed name still takes one */
    for (int v = 0; v < 4; v++) {
        SETVAN(&a, "pred", v, v % 2);
        SETVAN(&a, "prob1", v, 0.25 * v);
    }
    for (int e = 0; e < 3; e++) SETEAN(&a, "attnL0H0", e, 0.5);
    ag_featurizer_config_init(&cfg);
    const char *more[] = {"x*", "bond*"};
    cfg.exclude_more = more;
    cfg.n_exclude_more = 2;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_names(&f, 0, n3, 7);
    assert_int_equal(f.n_edge_features, 0);
    ag_featurizer_destroy(&f);
    cfg.n_exclude_more = 0;
    const char *l3[] = {"prob1", "y"};
    cfg.vertex_select = AG_SELECT_LIST;
    cfg.vertex_attrs = l3;
    cfg.n_vertex_attrs = 2;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_names(&f, 0, l3, 2);
    ag_featurizer_destroy(&f);
    cfg.exclude_more = NULL;
    cfg.n_exclude_more = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "1 more exclusions but no array"));
    const char *const *own;
    assert_int_equal(ag_featurizer_output_patterns(&own), 6);
    assert_string_equal(own[0], "pred");
    /* the exclusion query: the defaults ("id" and the outputs' patterns), then a user's own list */
    ag_featurizer_config_t q;
    ag_featurizer_config_init(&q);
    assert_int_equal(ag_featurizer_config_excludes(&q, "id"), 1);
    assert_int_equal(ag_featurizer_config_excludes(&q, "prob2"), 1);
    assert_int_equal(ag_featurizer_config_excludes(&q, "attnL1H2"), 1);
    assert_int_equal(ag_featurizer_config_excludes(&q, "charge"), 0);
    const char *mine[] = {"char*"};
    q.exclude_more = mine;
    q.n_exclude_more = 1;
    assert_int_equal(ag_featurizer_config_excludes(&q, "charge"), 1);
    assert_int_equal(ag_featurizer_config_excludes(&q, "id"), 1);
    assert_int_equal(ag_featurizer_config_excludes(&q, "y"), 0);
    assert_int_equal(ag_featurizer_config_excludes(NULL, "id"), 0);
    assert_int_equal(ag_featurizer_config_excludes(&q, NULL), 0);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_destroy(&a);
}

static void test_fit_errors(void **state) {
    (void)state;
    igraph_t a, c;
    make_a(&a);
    make_a(&c);
    DELVA(&c, "charge");
    for (int i = 0; i < 4; i++) SETVAS(&c, "charge", i, "x"); /* charge is a string in c */
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    ag_featurizer_config_init(&cfg);
    const igraph_t *gs[] = {&a, &c};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'charge' is string in graph 1 but numeric in graph 0");
    /* named graphs are named by their names (a dataset's files), not by their place in the list */
    const char *files[] = {"mols/a.gml", "mols/c.gml"};
    assert_int_equal(ag_featurizer_fit_named(&f, &cfg, gs, files, 2), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'charge' is string in mols/c.gml but numeric in mols/a.gml");
    assert_null(f.vattrs);
    /* a type conflict on an excluded attribute does not matter */
    const char *ex[] = {"charge"};
    cfg.exclude = ex;
    cfg.n_exclude = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_SUCCESS);
    assert_string_equal(ag_featurizer_column_name(&f, 1), "element=C");
    ag_featurizer_destroy(&f);
    ag_featurizer_config_init(&cfg);
    cfg.vertex_select = AG_SELECT_LIST;
    const char *l1[] = {"mass"};
    cfg.vertex_attrs = l1;
    cfg.n_vertex_attrs = 1;
    /* one graph is named by its caller (its file); several by index */
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'mass' is missing");
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'mass' is missing from graph 0");
    assert_int_equal(ag_featurizer_fit_named(&f, &cfg, gs, files, 2), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'mass' is missing from mols/a.gml");
    const char *l2[] = {"z*"};
    cfg.vertex_attrs = l2;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EATTR);
    assert_string_equal(ag_error_message(), "pattern 'z*' matches no vertex attribute of usable type present in every graph");
    cfg.vertex_select = AG_SELECT_ALL;
    cfg.edge_select = AG_SELECT_LIST;
    const char *l3[] = {"weight"};
    cfg.edge_attrs = l3;
    cfg.n_edge_attrs = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EATTR);
    assert_string_equal(ag_error_message(), "edge attribute 'weight' is missing");
    ag_featurizer_config_init(&cfg);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 0), AG_EINVAL);
    cfg.lap_pe_k = -1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EINVAL);
    /* a NaN at fit time names the graph, the attribute and the vertex */
    ag_featurizer_config_init(&cfg);
    DELVA(&c, "charge"); /* back to numeric */
    for (int i = 0; i < 4; i++) SETVAN(&c, "charge", i, i == 2 ? NAN : 1);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_EVALUE);
    /* at fit time, with the way to train without the attribute (at prediction the model needs it) */
    assert_string_equal(ag_error_message(), "graph 1: numeric vertex attribute 'charge' is missing on vertex 2 (NaN; every "
                                            "vertex needs a number); to train without it, leave it out (option "
                                            "exclude_attrs or exclude_more: 'charge')");
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs + 1, 1), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "numeric vertex attribute 'charge' is missing on vertex 2 (NaN; every vertex needs a number); to "
                        "train without it, leave it out (option exclude_attrs or exclude_more: 'charge')");
    SETVAN(&c, "charge", 2, 0);
    SETEAN(&c, "bond", 1, INFINITY);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_EVALUE);
    assert_string_equal(ag_error_message(), "graph 1: numeric edge attribute 'bond' is infinite on edge 1; to train "
                                            "without it, leave it out (option exclude_attrs or exclude_more: "
                                            "'bond')");
    SETEAN(&c, "bond", 1, 1);
    /* Latin-1 text would reach the model file's JSON header: refused at fit, naming the vertex */
    SETVAS(&c, "element", 3, "caf\xE9");
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_EATTR);
    assert_string_equal(ag_error_message(),
                        "graph 1: vertex attribute 'element' of vertex 3 is 'caf\\xE9', which is not valid UTF-8: a model "
                        "file stores the values of a text attribute as UTF-8; convert the graph file to UTF-8 (e.g. iconv "
                        "-f latin1 -t utf-8) or leave the attribute out");
    assert_null(f.vattrs);
    SETVAS(&c, "element", 3, "\xC3\xA9"); /* the same letter in UTF-8 */
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_SUCCESS);
    ag_featurizer_destroy(&f);
    SETEAS(&a, "bond_type", 0, "SINGLE\xC3"); /* cut short */
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EATTR);
    assert_string_equal(ag_error_message(),
                        "edge attribute 'bond_type' of edge 0 is 'SINGLE\\xC3', which is not valid UTF-8: a model file "
                        "stores the values of a text attribute as UTF-8; convert the graph file to UTF-8 (e.g. iconv -f "
                        "latin1 -t utf-8) or leave the attribute out");
    SETEAS(&a, "bond_type", 0, "SINGLE");
    SETVAN(&a, "w\xFC", 0, 1); /* an attribute's name (GraphML allows any) */
    for (int i = 1; i < 4; i++) SETVAN(&a, "w\xFC", i, 1);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "the name of vertex attribute 'w\\xFC' is not valid UTF-8"));
    igraph_destroy(&a);
    igraph_destroy(&c);
}

static void write_file(char *path, const char *text) {
    strcpy(path, "/tmp/ag_features_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void read_gml(igraph_t *g, const char *path) {
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    assert_int_equal(igraph_read_graph_gml(g, fp), IGRAPH_SUCCESS);
    fclose(fp);
}

/* The default configuration with the listed vertex attributes only. */
static void config_list(ag_featurizer_config_t *cfg, const char **names, int64_t n) {
    ag_featurizer_config_init(cfg);
    cfg->vertex_select = AG_SELECT_LIST;
    cfg->vertex_attrs = names;
    cfg->n_vertex_attrs = n;
}

/* "" on every vertex is the attribute missing: refused when the model knows its values, taken
 * when the model was fitted on nothing else (a GraphML key declared without values). */
static void test_all_empty_string(void **state) {
    (void)state;
    igraph_t a, g;
    make_a(&a);
    const igraph_t *gs[] = {&a};
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    const char *l[] = {"element"};
    config_list(&cfg, l, 1);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    igraph_small(&g, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    for (int i = 0; i < 3; i++) SETVAS(&g, "element", i, i == 1 ? "N" : "");
    ag_fmat_t X = {0};
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, NULL), AG_SUCCESS); /* some "" are fine */
    ag_fmat_destroy(&X);
    SETVAS(&g, "element", 1, "");
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, NULL), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'element' is empty on every vertex: it is missing (the "
                                            "model expects string vertex attribute 'element')");
    assert_null(X.data);
    ag_featurizer_destroy(&f);
    /* fitted on graphs where it is empty everywhere (a GraphML key without values): named, it is
     * refused; taken with all the attributes, it is left out, so that graphs without it fit */
    const igraph_t *empty[] = {&g};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, empty, 1), AG_EATTR);
    assert_string_equal(ag_error_message(), "string vertex attribute 'element' is empty on every vertex of the graphs "
                                            "fitted on: it gives no feature; leave it out");
    SETVAN(&g, "x", 0, 1.0);
    SETVAN(&g, "x", 1, 2.0);
    SETVAN(&g, "x", 2, 4.0);
    ag_featurizer_config_init(&cfg);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, empty, 1), AG_SUCCESS);
    assert_int_equal(f.n_vattrs, 1);
    assert_string_equal(f.vattrs[0].name, "x");
    DELVA(&g, "element");
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, NULL), AG_SUCCESS);
    assert_int_equal(X.cols, 1);
    ag_fmat_destroy(&X);
    ag_featurizer_destroy(&f);
    igraph_destroy(&g);
    igraph_destroy(&a);
}

static void test_transform_errors(void **state) {
    (void)state;
    igraph_t a, g;
    make_a(&a);
    const igraph_t *gs[] = {&a};
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    const char *l[] = {"charge"};
    config_list(&cfg, l, 1);
    cfg.degree = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    ag_fmat_t X = {0}, E = {0};
    /* a graph without the attribute */
    igraph_small(&g, 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    SETVAN(&g, "mass", 0, 1);
    SETVAN(&g, "mass", 1, 1);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EATTR);
    assert_string_equal(ag_error_message(), "attribute 'charge' is missing (the model expects numeric vertex attribute 'charge')");
    assert_null(X.data); /* outputs untouched on error */
    /* of another type */
    SETVAS(&g, "charge", 0, "+");
    SETVAS(&g, "charge", 1, "-");
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EATTR);
    assert_string_equal(ag_error_message(), "vertex attribute 'charge' is string (the model expects numeric vertex attribute 'charge')");
    igraph_destroy(&g);
    /* a number missing from a GML node is NaN in igraph: reported as missing on that vertex */
    char path[64];
    write_file(path, "graph [\n directed 0\n node [ id 0 charge 1 ]\n node [ id 1 ]\n node [ id 2 charge 3 ]\n"
                     " edge [ source 0 target 1 bond 1 ]\n]\n");
    read_gml(&g, path);
    unlink(path);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EVALUE);
    assert_string_equal(ag_error_message(),
                        "numeric vertex attribute 'charge' is missing on vertex 1 (NaN; every vertex needs a number)");
    SETVAN(&g, "charge", 1, -INFINITY);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EVALUE);
    assert_string_equal(ag_error_message(), "numeric vertex attribute 'charge' is infinite on vertex 1");
    /* the edge attribute is missing (a GML edge without "bond" is fine: NaN only if others have it) */
    SETVAN(&g, "charge", 1, 2);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EATTR);
    assert_string_equal(ag_error_message(), "attribute 'bond_type' is missing (the model expects string edge attribute 'bond_type')");
    igraph_destroy(&g);
    /* a graph made while no attribute handler was installed has no attributes (and no crash); the
     * message says why the attributes the caller set or saw in the file are not there */
    igraph_set_attribute_table(NULL);
    igraph_small(&g, 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    igraph_set_attribute_table(&igraph_cattribute_table);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_EATTR);
    assert_string_equal(ag_error_message(), "attribute 'charge' is missing (the model expects numeric vertex attribute "
                        "'charge'); the graph carries no attributes at all: it was built or read before igraph's "
                        "attribute handler was installed (call igraph_set_attribute_table(&igraph_cattribute_table) "
                        "first)");
    igraph_destroy(&g);
    /* directed graph for a featuriser fitted on undirected ones, with degree columns */
    igraph_small(&g, 2, IGRAPH_DIRECTED, 0, 1, -1);
    SETVAN(&g, "charge", 0, 1);
    SETVAN(&g, "charge", 1, 1);
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, NULL), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the graph is directed but the model was trained on undirected graphs (edges "
                        "would be read one way); give it as undirected (GML 'directed 0', GraphML "
                        "edgedefault=\"undirected\"; an edge list, NCOL, LGL, DIMACS or DL file: read it as "
                        "undirected)");
    /* and the reverse: fitted on that directed graph, an undirected one is refused */
    ag_featurizer_t fd;
    ag_featurizer_config_t cd;
    ag_featurizer_config_init(&cd);
    assert_int_equal(ag_featurizer_fit(&fd, &cd, (const igraph_t *const[]){&g}, 1), AG_SUCCESS);
    assert_int_equal(ag_featurizer_transform(&fd, &a, &X, NULL), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the graph is undirected but the model was trained on directed graphs "
                        "(edges would be read both ways); give it as directed (GML 'directed 1', GraphML "
                        "edgedefault=\"directed\"; an edge list, NCOL, LGL, DIMACS or DL file: read it as "
                        "directed)");
    ag_featurizer_destroy(&fd);
    igraph_destroy(&g);
    ag_featurizer_destroy(&f);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_destroy(&a);
}

/* g's 'aromatic' made a string on its 4 vertices: f refuses it, naming the type it expects. */
static void assert_string_aromatic_refused(const ag_featurizer_t *f, igraph_t *g, const char *expects) {
    igraph_cattribute_remove_v(g, "aromatic");
    for (int i = 0; i < 4; i++) SETVAS(g, "aromatic", i, "yes");
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(f, g, &X, &E), AG_EATTR);
    char want[128];
    snprintf(want, sizeof want, "(the model expects %s vertex attribute 'aromatic')", expects);
    assert_non_null(strstr(ag_error_message(), want));
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
}

/* make_a()'s graph into a, and into n the same graph with its boolean `aromatic` as numbers 0/1
 * (what GML, which has no booleans, holds). */
static void make_a_and_numeric_twin(igraph_t *a, igraph_t *n) {
    make_a(a);
    igraph_copy(n, a);
    igraph_cattribute_remove_v(n, "aromatic");
    for (int i = 0; i < 4; i++) SETVAN(n, "aromatic", i, VAB(a, "aromatic", i) ? 1.0 : 0.0);
}

/* The reverse: a numeric 0/1 attribute (GML molecules' `aromatic`) read from a graph that has it
 * as booleans (GraphML written by networkx from Python's True/False) gives the same columns; a
 * string is still refused. */
static void test_numbers_read_from_booleans(void **state) {
    (void)state;
    igraph_t a, n;
    make_a_and_numeric_twin(&a, &n);
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    cfg.norm = AG_NORM_STANDARDIZE; /* the column's statistics apply to the boolean's 0/1 too */
    ag_featurizer_t f;
    const igraph_t *gs[] = {&n};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.vattrs[0].type, AG_ATTR_NUMERIC);
    assert_string_equal(f.vattrs[0].name, "aromatic");
    ag_fmat_t X = {0}, Xa = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &n, &X, &E), AG_SUCCESS);
    assert_int_equal(ag_featurizer_transform(&f, &a, &Xa, &E), AG_SUCCESS);
    assert_int_equal(Xa.cols, X.cols);
    assert_memory_equal(Xa.data, X.data, (size_t)(X.rows * X.cols) * sizeof(float));
    /* not all equal: the test would pass on two zero matrices otherwise */
    assert_true(X.data[0 * X.cols] != X.data[1 * X.cols]);
    assert_string_aromatic_refused(&f, &a, "numeric");
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&Xa);
    ag_fmat_destroy(&E);
    ag_featurizer_destroy(&f);
    igraph_destroy(&n);
    igraph_destroy(&a);
}

/* A boolean attribute read back from GML, which stores booleans as 0/1 numbers: the same
 * columns; any other number, or a string, is still refused with its vertex and value. */
static void test_boolean_read_as_numbers(void **state) {
    (void)state;
    igraph_t a, b;
    make_a(&a);
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t f;
    const igraph_t *gs[] = {&a};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    ag_fmat_t X = {0}, Xb = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, &E), AG_SUCCESS);
    igraph_copy(&b, &a);
    igraph_cattribute_remove_v(&b, "aromatic");
    for (int i = 0; i < 4; i++) SETVAN(&b, "aromatic", i, i % 2 == 0 ? 1.0 : 0.0);
    assert_int_equal(ag_featurizer_transform(&f, &b, &Xb, &E), AG_SUCCESS);
    assert_int_equal(Xb.cols, X.cols);
    assert_memory_equal(Xb.data, X.data, (size_t)(X.rows * X.cols) * sizeof(float));
    SETVAN(&b, "aromatic", 2, 0.5);
    assert_int_equal(ag_featurizer_transform(&f, &b, &Xb, &E), AG_EATTR);
    assert_string_equal(ag_error_message(), "numeric vertex attribute 'aromatic' is 0.5 on vertex 2 (the model expects "
                                            "boolean vertex attribute 'aromatic': true/false, or 0/1 as GML stores "
                                            "booleans)");
    assert_string_aromatic_refused(&f, &b, "boolean");
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&Xb);
    ag_fmat_destroy(&E);
    ag_featurizer_destroy(&f);
    igraph_destroy(&b);
    igraph_destroy(&a);
}

/* Fitting over graphs of which some hold an attribute as booleans (GraphML's true/false) and others
 * as numbers (GML, which has no booleans, writes 0/1): one numeric column, as a numeric model reads
 * booleans as 0/1, in either order of the graphs; it was refused as "boolean in one but numeric in
 * the other" while prediction took both. */
static void test_fit_booleans_with_numbers(void **state) {
    (void)state;
    igraph_t a, n;
    make_a_and_numeric_twin(&a, &n);
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t ref, f;
    assert_int_equal(ag_featurizer_fit(&ref, &cfg, (const igraph_t *const[]){&n, &n}, 2), AG_SUCCESS);
    ag_fmat_t Xr = {0}, X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&ref, &n, &Xr, &E), AG_SUCCESS);
    const igraph_t *orders[2][2] = {{&a, &n}, {&n, &a}};
    for (int k = 0; k < 2; k++) {
        if (ag_featurizer_fit(&f, &cfg, orders[k], 2) != AG_SUCCESS) fail_msg("order %d: %s", k, ag_error_message());
        assert_string_equal(f.vattrs[0].name, "aromatic");
        assert_int_equal(f.vattrs[0].type, AG_ATTR_NUMERIC);
        for (int g = 0; g < 2; g++) {
            assert_int_equal(ag_featurizer_transform(&f, orders[k][g], &X, &E), AG_SUCCESS);
            assert_int_equal(X.cols, Xr.cols);
            assert_memory_equal(X.data, Xr.data, (size_t)(X.rows * X.cols) * sizeof(float));
        }
        ag_featurizer_destroy(&f);
    }
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&Xr);
    ag_fmat_destroy(&E);
    ag_featurizer_destroy(&ref);
    igraph_destroy(&n);
    igraph_destroy(&a);
}

static void test_no_edges(void **state) {
    (void)state;
    igraph_t a, g;
    make_a(&a);
    /* two vertices, no edges, so no edge attributes at all */
    igraph_empty(&g, 2, IGRAPH_UNDIRECTED);
    for (int i = 0; i < 2; i++) {
        SETVAN(&g, "id", i, i);
        SETVAN(&g, "charge", i, 5);
        SETVAS(&g, "element", i, "N");
        SETVAB(&g, "aromatic", i, 1);
        SETVAN(&g, "x0", i, 0);
        SETVAN(&g, "x1", i, 0);
        SETVAN(&g, "y", i, 0);
    }
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t f;
    /* fitting with the edgeless graph first: edge attributes come from the graphs that have edges */
    const igraph_t *gs[] = {&g, &a};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_SUCCESS);
    assert_int_equal(f.n_edge_features, 5);
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &g, &X, &E), AG_SUCCESS);
    assert_int_equal(E.rows, 0);
    assert_int_equal(E.cols, 5);
    const float wx[] = {1, 5, 0, 1, 0, 0, 0, 0, 0, 1, 5, 0, 1, 0, 0, 0, 0, 0};
    assert_fmat(&X, 2, 9, wx, 0.0f);
    ag_featurizer_destroy(&f);
    /* only edgeless graphs: no edge attributes in all-mode, an error for a listed one */
    const igraph_t *gs1[] = {&g};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs1, 1), AG_SUCCESS);
    assert_int_equal(f.n_edge_features, 0);
    ag_featurizer_destroy(&f);
    cfg.edge_select = AG_SELECT_LIST;
    const char *l[] = {"bond"};
    cfg.edge_attrs = l;
    cfg.n_edge_attrs = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs1, 1), AG_EATTR);
    assert_string_equal(ag_error_message(), "edge attribute 'bond' is missing: no graph has edges");
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_destroy(&a);
    igraph_destroy(&g);
}

static void to_text(const ag_featurizer_t *f, ag_strbuf_t *sb);
static ag_error_t load_text(const char *text, ag_featurizer_t *f);
static void assert_same_transform(const ag_featurizer_t *f, const ag_featurizer_t *g, const igraph_t *ig);
static char *mutate(const char *text, const char *from, const char *to);

static void test_normalisation(void **state) {
    (void)state;
    igraph_t a;
    make_a(&a);
    const igraph_t *gs[] = {&a};
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    ag_featurizer_config_init(&cfg);
    cfg.vertex_select = AG_SELECT_LIST;
    const char *l[] = {"charge", "y"};
    cfg.vertex_attrs = l;
    cfg.n_vertex_attrs = 2;
    cfg.degree = 1;
    cfg.norm = AG_NORM_STANDARDIZE;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    /* charge (0, 1, -1, 2): mean 0.5, population std sqrt(1.25); y constant 7: std 1;
     * degree (1, 2, 2, 1): mean 1.5, std 0.5 */
    const float wm[] = {0.5f, 7, 1.5f}, ws[] = {1.1180340f, 1, 0.5f};
    for (int c = 0; c < 3; c++) {
        assert_float_equal(f.mean[c], wm[c], 1e-6);
        assert_float_equal(f.std[c], ws[c], 1e-6);
    }
    ag_fmat_t X = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, NULL), AG_SUCCESS);
    const float wx[] = {-0.4472136f, 0, -1, 0.4472136f, 0, 1, -1.3416408f, 0, 1, 1.3416408f, 0, -1};
    assert_fmat(&X, 4, 3, wx, 1e-6f);
    ag_featurizer_destroy(&f);
    /* a large mean with a small spread is still scaled (no relative tolerance) */
    igraph_t big;
    igraph_empty(&big, 2, IGRAPH_UNDIRECTED);
    SETVAN(&big, "big", 0, 1e6);
    SETVAN(&big, "big", 1, 1e6 + 1);
    const igraph_t *gb[] = {&big};
    ag_featurizer_config_t cb;
    ag_featurizer_config_init(&cb);
    cb.norm = AG_NORM_STANDARDIZE;
    ag_featurizer_t fb;
    assert_int_equal(ag_featurizer_fit(&fb, &cb, gb, 1), AG_SUCCESS);
    assert_float_equal(fb.std[0], 0.5f, 0.0f);
    assert_int_equal(ag_featurizer_transform(&fb, &big, &X, NULL), AG_SUCCESS);
    const float wb[] = {-1, 1};
    assert_fmat(&X, 2, 1, wb, 0.0f);
    /* a float32 value that overflows in those standard deviations (3e38 - 1e6, over 0.5) is
     * refused, naming the column and the vertex, and X is left as it was (an infinity reached a
     * prediction unnoticed) */
    SETVAN(&big, "big", 1, 3e38);
    assert_int_equal(ag_featurizer_transform(&fb, &big, &X, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "feature column 'big' is 3e+38 on vertex 1: beyond float32 in training "
                        "standard deviations (mean 1e+06, std 0.5), more than the model can read");
    assert_fmat(&X, 2, 1, wb, 0.0f);
    ag_featurizer_destroy(&fb);
    igraph_destroy(&big);
    /* L1 rows over the attribute columns only; degree untouched */
    const char *l2[] = {"x0", "x1", "charge"};
    cfg.vertex_attrs = l2;
    cfg.n_vertex_attrs = 3;
    cfg.norm = AG_NORM_L1_ROWS;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_null(f.mean);
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, NULL), AG_SUCCESS);
    const float w2[] = {1 / 1.5f, 0.5f / 1.5f, 0, 1, 2 / 3.0f, 0, 1 / 3.0f, 2, 0.75f, 0, -0.25f, 2, 4 / 7.5f, 1.5f / 7.5f, 2 / 7.5f, 1};
    assert_fmat(&X, 4, 4, w2, 1e-6f);
    const char *names[] = {"x0", "x1", "charge", "degree"};
    assert_names(&f, 0, names, 4);
    ag_featurizer_destroy(&f);
    /* raw columns only (--normalize auto): x0 (1..4) and the constant y (7) are beyond [-1, 1] and
     * standardised; the boolean, the one-hot block, a column within [-1, 1] and the degree are left
     * as they are. The fitted featuriser holds AG_NORM_STANDARDIZE, as a model file stores it. */
    const double half[] = {0.5, -1, 0.25, 1};
    for (int i = 0; i < 4; i++) SETVAN(&a, "half", i, half[i]);
    const char *l3[] = {"x0", "aromatic", "element", "half", "y"};
    cfg.vertex_attrs = l3;
    cfg.n_vertex_attrs = 5;
    cfg.norm = AG_NORM_STANDARDIZE_RAW;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.norm, AG_NORM_STANDARDIZE);
    assert_int_equal(f.n_features, 9);
    const float rm[] = {2.5f, 0, 0, 0, 0, 0, 0, 7, 0}, rs[] = {1.1180340f, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int c = 0; c < 9; c++) {
        assert_float_equal(f.mean[c], rm[c], 1e-6);
        assert_float_equal(f.std[c], rs[c], 1e-6);
    }
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, NULL), AG_SUCCESS);
    /* columns: x0, aromatic, element C N O <other>, half, y, degree */
    const float w3[] = {-1.3416408f, 1, 1, 0, 0, 0, 0.5f,  0, 1, -0.4472136f, 0, 0, 1, 0, 0, -1, 0, 2,
                        0.4472136f,  1, 1, 0, 0, 0, 0.25f, 0, 2, 1.3416408f, 0, 0, 0, 1, 0, 1, 0, 1};
    assert_fmat(&X, 4, 9, w3, 1e-6f);
    /* the edges too: bond (1, 2, 1.5) standardised, the bond_type one-hot block left */
    ag_fmat_t E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, &E), AG_SUCCESS);
    const float we[] = {-1.2247449f, 0, 0, 1, 0, 1.2247449f, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    assert_fmat(&E, 3, 5, we, 1e-6f);
    assert_float_equal(f.edge_mean[0], 1.5f, 1e-6);
    assert_float_equal(f.edge_std[0], 0.4082483f, 1e-6);
    for (int c = 1; c < 5; c++) {
        assert_float_equal(f.edge_mean[c], 0.0f, 0.0);
        assert_float_equal(f.edge_std[c], 1.0f, 0.0);
    }
    /* an edge value beyond float32 once standardised: refused as a vertex's is, E left alone */
    SETEAN(&a, "bond", 2, 3e38);
    assert_int_equal(ag_featurizer_transform_edges(&f, &a, &E), AG_EVALUE);
    assert_string_equal(ag_error_message(), "edge feature column 'bond' is 3e+38 on edge 2: beyond float32 in "
                        "training standard deviations (mean 1.5, std 0.408248), more than the model can read");
    assert_fmat(&E, 3, 5, we, 1e-6f);
    SETEAN(&a, "bond", 2, 1.5);
    ag_fmat_destroy(&E);
    /* stored (as version 3, which earlier readers refuse) and read back */
    ag_strbuf_t sb;
    to_text(&f, &sb);
    assert_non_null(strstr(sb.data, "\"version\":3,"));
    assert_non_null(strstr(sb.data, "\"edge_std\":[0.408248"));
    ag_featurizer_t back;
    assert_int_equal(load_text(sb.data, &back), AG_SUCCESS);
    assert_same_transform(&f, &back, &a);
    ag_featurizer_destroy(&back);
    char *v2 = mutate(sb.data, "\"version\":3", "\"version\":2");
    assert_int_equal(load_text(v2, &back), AG_EMODEL);
    assert_string_equal(ag_error_message(), "featuriser: version 2 has no 'edge_mean' and 'edge_std'");
    free(v2);
    char *bad_len = mutate(sb.data, "\"edge_mean\":[", "\"edge_mean\":[0,");
    assert_int_equal(load_text(bad_len, &back), AG_EMODEL);
    assert_string_equal(ag_error_message(), "featuriser: 'edge_mean' has 6 values, expected 5");
    free(bad_len);
    ag_strbuf_destroy(&sb);
    /* edges within [-1, 1] keep no statistics, and the file its earlier version */
    cfg.edge_select = AG_SELECT_LIST;
    const char *bt[] = {"bond_type"};
    cfg.edge_attrs = bt;
    cfg.n_edge_attrs = 1;
    ag_featurizer_t fe;
    assert_int_equal(ag_featurizer_fit(&fe, &cfg, gs, 1), AG_SUCCESS);
    assert_null(fe.edge_mean);
    to_text(&fe, &sb);
    assert_non_null(strstr(sb.data, "\"version\":1,"));
    assert_null(strstr(sb.data, "edge_mean"));
    ag_strbuf_destroy(&sb);
    ag_featurizer_destroy(&fe);
    cfg.edge_select = AG_SELECT_ALL;
    ag_featurizer_destroy(&f);
    /* a graph with no attribute gets its degree standardised (degree_if_featureless), raw mode or not */
    cfg.vertex_select = AG_SELECT_NONE;
    cfg.degree = 0;
    cfg.degree_if_featureless = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.n_features, 1);
    assert_float_equal(f.mean[0], 1.5f, 1e-6);
    assert_float_equal(f.std[0], 0.5f, 1e-6);
    assert_int_equal(f.lap_pe_k, 0);
    ag_featurizer_destroy(&f);
    /* lap_pe_if_featureless: the Laplacian columns too, after the degree; not where lap_pe_k is
     * set, nor where an attribute is usable, nor without degree_if_featureless */
    cfg.lap_pe_if_featureless = 2;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    const char *pe_names[] = {"degree", "lap_pe.1", "lap_pe.2"};
    assert_names(&f, 0, pe_names, 3);
    assert_int_equal(f.lap_pe_k, 2);
    assert_int_equal(f.lap_pe_scaled, 1);
    ag_featurizer_destroy(&f);
    cfg.lap_pe_k = 3;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.lap_pe_k, 3);
    ag_featurizer_destroy(&f);
    cfg.lap_pe_k = 0;
    cfg.rw_pe_k = 2; /* a PE asked for: no Laplacian columns beside it */
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.lap_pe_k, 0);
    assert_int_equal(f.rw_pe_k, 2);
    ag_featurizer_destroy(&f);
    cfg.rw_pe_k = 0;
    cfg.lap_pe_if_featureless = 16; /* 4 vertices: 3 non-trivial eigenvectors */
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.lap_pe_k, 3);
    ag_featurizer_destroy(&f);
    cfg.lap_pe_if_featureless = 2;
    cfg.degree_if_featureless = 0;
    cfg.degree = 1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.lap_pe_k, 0);
    assert_int_equal(f.n_features, 1);
    ag_featurizer_destroy(&f);
    cfg.degree = 0;
    cfg.degree_if_featureless = 1;
    cfg.vertex_select = AG_SELECT_ALL;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    assert_int_equal(f.lap_pe_k, 0);
    assert_int_equal(f.degree, 0);
    ag_featurizer_destroy(&f);
    cfg.lap_pe_if_featureless = -1;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "lap_pe_if_featureless -1"));
    cfg.lap_pe_if_featureless = 0;
    /* past the last mode: refused */
    cfg.norm = (ag_feature_norm_t)(AG_NORM_STANDARDIZE_RAW + 1);
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "unknown normalisation 4"));
    ag_fmat_destroy(&X);
    igraph_destroy(&a);
}

static void test_structural_columns(void **state) {
    (void)state;
    igraph_t a;
    make_a(&a);
    const igraph_t *gs[] = {&a};
    ag_featurizer_config_t cfg;
    ag_featurizer_t f;
    ag_featurizer_config_init(&cfg);
    cfg.vertex_select = AG_SELECT_LIST;
    const char *l[] = {"charge"};
    cfg.vertex_attrs = l;
    cfg.n_vertex_attrs = 1;
    cfg.degree = 1;
    cfg.lap_pe_k = 2;
    cfg.rw_pe_k = 3;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 1), AG_SUCCESS);
    const char *names[] = {"charge", "degree", "lap_pe.1", "lap_pe.2", "rw_pe.1", "rw_pe.2", "rw_pe.3"};
    assert_names(&f, 0, names, 7);
    ag_fmat_t X = {0}, lap = {0}, rw = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X, NULL), AG_SUCCESS);
    assert_int_equal(ag_posenc_laplacian(&a, 2, AG_EIGEN_AUTO, &lap), AG_SUCCESS);
    assert_int_equal(ag_posenc_random_walk(&a, 3, &rw), AG_SUCCESS);
    const float deg[] = {1, 2, 2, 1};
    for (int i = 0; i < 4; i++) {
        assert_float_equal(X.data[i * 7 + 1], deg[i], 0.0f);
        /* the unit-norm eigenvectors times sqrt(N) = 2: a root mean square of 1 per column */
        for (int c = 0; c < 2; c++) assert_float_equal(X.data[i * 7 + 2 + c], 2.0f * lap.data[i * 2 + c], 0.0f);
        for (int c = 0; c < 3; c++) assert_float_equal(X.data[i * 7 + 4 + c], rw.data[i * 3 + c], 0.0f);
    }
    for (int c = 0; c < 2; c++) {
        double ss = 0.0;
        for (int i = 0; i < 4; i++) ss += (double)X.data[i * 7 + 2 + c] * X.data[i * 7 + 2 + c];
        assert_float_equal(ss / 4.0, 1.0, 1e-6);
    }
    /* path of 4: return after 2 steps is 1/2 at the ends, 3/4 inside */
    assert_float_equal(X.data[0 * 7 + 5], 0.5f, 1e-7);
    assert_float_equal(X.data[1 * 7 + 5], 0.75f, 1e-7);
    ag_featurizer_destroy(&f);
    /* directed graphs get in- and out-degree */
    igraph_t d;
    igraph_small(&d, 3, IGRAPH_DIRECTED, 0, 1, 0, 2, 1, 2, -1);
    for (int i = 0; i < 3; i++) SETVAN(&d, "charge", i, 0);
    const igraph_t *gd[] = {&d};
    cfg.lap_pe_k = cfg.rw_pe_k = 0;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gd, 1), AG_SUCCESS);
    const char *dn[] = {"charge", "in_degree", "out_degree"};
    assert_names(&f, 0, dn, 3);
    assert_int_equal(ag_featurizer_transform(&f, &d, &X, NULL), AG_SUCCESS);
    const float wd[] = {0, 0, 2, 0, 1, 1, 0, 2, 0};
    assert_fmat(&X, 3, 3, wd, 0.0f);
    ag_featurizer_destroy(&f);
    const igraph_t *mixed[] = {&a, &d};
    assert_int_equal(ag_featurizer_fit(&f, &cfg, mixed, 2), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "graph 1 is directed but graph 0 is undirected: degree columns need one kind");
    igraph_destroy(&d);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&lap);
    ag_fmat_destroy(&rw);
    igraph_destroy(&a);
}

static void to_text(const ag_featurizer_t *f, ag_strbuf_t *sb) {
    ag_strbuf_init(sb);
    ag_featurizer_to_json(f, sb);
    assert_false(sb->failed);
}

static ag_error_t load_text(const char *text, ag_featurizer_t *f) {
    ag_json_t *j = NULL;
    ag_error_t rc = ag_json_parse(text, strlen(text), "featuriser.json", &j);
    assert_int_equal(rc, AG_SUCCESS);
    rc = ag_featurizer_from_json(f, j);
    ag_json_free(j);
    return rc;
}

static void assert_same_transform(const ag_featurizer_t *f, const ag_featurizer_t *g, const igraph_t *ig) {
    ag_fmat_t X1 = {0}, E1 = {0}, X2 = {0}, E2 = {0};
    assert_int_equal(ag_featurizer_transform(f, ig, &X1, &E1), AG_SUCCESS);
    assert_int_equal(ag_featurizer_transform(g, ig, &X2, &E2), AG_SUCCESS);
    assert_int_equal(X1.rows, X2.rows);
    assert_int_equal(X1.cols, X2.cols);
    assert_int_equal(E1.rows, E2.rows);
    assert_int_equal(E1.cols, E2.cols);
    assert_memory_equal(X1.data, X2.data, (size_t)(X1.rows * X1.cols) * sizeof(float));
    if (E1.rows > 0 && E1.cols > 0) assert_memory_equal(E1.data, E2.data, (size_t)(E1.rows * E1.cols) * sizeof(float));
    ag_fmat_destroy(&X1);
    ag_fmat_destroy(&E1);
    ag_fmat_destroy(&X2);
    ag_fmat_destroy(&E2);
}

/* Replaces the first occurrence of from by to in text (which must contain it). */
static char *mutate(const char *text, const char *from, const char *to) {
    const char *p = strstr(text, from);
    assert_non_null(p);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    size_t pre = (size_t)(p - text);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, p + strlen(from));
    return out;
}

static void test_json_round_trip(void **state) {
    (void)state;
    igraph_t a, b;
    make_a(&a);
    make_b(&b);
    /* values that float32 cannot write in few digits, to test exact round trip of statistics */
    SETVAN(&a, "x1", 1, 0.1);
    SETVAN(&b, "x0", 2, 1.0 / 3.0);
    const igraph_t *gs[] = {&a, &b};
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    cfg.norm = AG_NORM_STANDARDIZE;
    cfg.degree = 1;
    cfg.lap_pe_k = 2;
    cfg.rw_pe_k = 3;
    ag_featurizer_t f, g;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, gs, 2), AG_SUCCESS);
    ag_strbuf_t sb;
    to_text(&f, &sb);
    assert_int_equal(load_text(sb.data, &g), AG_SUCCESS);
    assert_int_equal(g.n_features, f.n_features);
    assert_int_equal(g.n_edge_features, f.n_edge_features);
    assert_int_equal(g.n_features, 10 + 1 + 2 + 3);
    for (int64_t j = 0; j < f.n_features; j++) assert_string_equal(ag_featurizer_column_name(&g, j), ag_featurizer_column_name(&f, j));
    for (int64_t j = 0; j < f.n_edge_features; j++)
        assert_string_equal(ag_featurizer_edge_column_name(&g, j), ag_featurizer_edge_column_name(&f, j));
    assert_memory_equal(g.mean, f.mean, 11 * sizeof(float));
    assert_memory_equal(g.std, f.std, 11 * sizeof(float));
    assert_same_transform(&f, &g, &a);
    assert_same_transform(&f, &g, &b);
    /* writing the loaded one gives the same text */
    ag_strbuf_t sb2;
    to_text(&g, &sb2);
    assert_string_equal(sb2.data, sb.data);
    ag_strbuf_destroy(&sb2);
    ag_featurizer_destroy(&g);

    /* Version 1 (written before Laplacian columns were scaled) reads back unscaled: the columns
     * are half those of version 2 on these 4-vertex graphs, everything else the same; it is
     * written as version 1 again. Without Laplacian columns, version 1 is what is written. */
    assert_non_null(strstr(sb.data, "\"version\":2,"));
    char *v1 = mutate(sb.data, "\"version\":2", "\"version\":1");
    assert_int_equal(load_text(v1, &g), AG_SUCCESS);
    free(v1);
    assert_int_equal(g.lap_pe_scaled, 0);
    assert_string_equal(ag_featurizer_column_name(&f, 11), "lap_pe.1");
    assert_string_equal(ag_featurizer_column_name(&f, 13), "rw_pe.1");
    ag_fmat_t X1 = {0}, X2 = {0};
    assert_int_equal(ag_featurizer_transform(&f, &a, &X1, NULL), AG_SUCCESS);
    assert_int_equal(ag_featurizer_transform(&g, &a, &X2, NULL), AG_SUCCESS);
    for (int64_t i = 0; i < X1.rows; i++)
        for (int64_t j = 0; j < X1.cols; j++) {
            int lap = j == 11 || j == 12; /* 10 attribute columns, degree, then lap_pe.1-2 */
            assert_float_equal(X2.data[i * X1.cols + j], lap ? 0.5f * X1.data[i * X1.cols + j] : X1.data[i * X1.cols + j], 0.0f);
        }
    assert_true(fabsf(X1.data[11]) > 0.1f);
    ag_fmat_destroy(&X1);
    ag_fmat_destroy(&X2);
    ag_strbuf_t sb1;
    to_text(&g, &sb1);
    assert_non_null(strstr(sb1.data, "\"version\":1,"));
    ag_strbuf_destroy(&sb1);
    ag_featurizer_destroy(&g);
    cfg.lap_pe_k = 0;
    assert_int_equal(ag_featurizer_fit(&g, &cfg, gs, 2), AG_SUCCESS);
    to_text(&g, &sb1);
    assert_non_null(strstr(sb1.data, "\"version\":1,"));
    ag_strbuf_destroy(&sb1);
    ag_featurizer_destroy(&g);

    /* malformed inputs: AG_EMODEL naming the problem, nothing leaked */
    struct {
        const char *from, *to, *msg;
    } bad[] = {
        {"\"version\":2", "\"version\":4", "featuriser: version 4 is not supported (this library reads versions 1 to 3)"},
        {"\"version\":2", "\"version\":3", "featuriser: version 3 needs 'edge_mean' and 'edge_std'"},
        {"\"version\":2", "\"version\":0", "featuriser: 'version' = 0 is not an integer in 1..2147483647"},
        {"\"format\":\"attngraph.featurizer\"", "\"format\":\"other\"", "featuriser: format is 'other', expected 'attngraph.featurizer'"},
        {"\"normalization\":\"standardize\"", "\"normalization\":\"zscore\"", "featuriser: unknown normalization 'zscore'"},
        {"\"degree\":true,", "", "featuriser: the object has no member 'degree'"},
        {"\"degree\":true", "\"degree\":1", "featuriser: the object member 'degree' is a number, expected a boolean"},
        {"\"lap_pe_k\":2", "\"lap_pe_k\":-1", "featuriser: 'lap_pe_k' = -1 is not an integer in 0..1000000"},
        {"\"rw_pe_k\":3", "\"rw_pe_k\":2.5", "featuriser: 'rw_pe_k' = 2.5 is not an integer in 0..1000000"},
        {"\"n_features\":16", "\"n_features\":17",
         "featuriser: the columns give 16 vertex and 6 edge features but the file says 17 and 6"},
        {"\"type\":\"boolean\"", "\"type\":\"complex\"", "featuriser: vertex_attributes[0] has unknown type 'complex'"},
        {"\"type\":\"boolean\"", "\"type\":\"boolean\",\"vocabulary\":[]",
         "featuriser: vertex_attributes[0] ('aromatic') is boolean but has a vocabulary"},
        {"\"C\",\"N\"", "\"N\",\"C\"", "featuriser: vertex_attributes[2] vocabulary is not sorted and distinct at entry 1 ('C')"},
        {"\"C\",\"N\"", "\"C\",\"C\"", "featuriser: vertex_attributes[2] vocabulary is not sorted and distinct at entry 1 ('C')"},
        {"\"C\",\"N\"", "\"C\",7", "featuriser: vertex_attributes[2] vocabulary entry 1 is not a non-empty string"},
        {"[\"C\",\"N\"", "[\"\",\"C\",\"N\"", "featuriser: vertex_attributes[2] vocabulary entry 0 is not a non-empty string"},
        {"{\"name\":\"charge\"", "{\"name\":\"aromatic\"", "featuriser: vertex_attributes[1] repeats attribute 'aromatic'"},
        {"{\"name\":\"charge\"", "{\"name\":\"\"", "featuriser: vertex_attributes[1] has an empty name"},
        {"\"std\":[", "\"std\":[0,", "featuriser: 'std' has 12 values, expected 11"},
        {"\"std\":[", "\"std\":[0,1,", "featuriser: 'std' has 13 values, expected 11"},
        {"\"mean\":[", "\"mean\":[null,", "featuriser: 'mean' has 12 values, expected 11"},
        {"\"edge_attributes\":[", "\"edge_attributes\":[3,", "featuriser: edge_attributes[0] is not an object"},
        /* the list goes on as edge_mean (a key the featuriser has), so that the JSON still parses */
        {"\"vertex_attributes\":[", "\"vertex_attributes\":{}, \"edge_mean\":[", "featuriser: the object member 'vertex_attributes' is an object, expected an array"},
        {"{\"name\":\"charge\"", "{\"name\":\"charge\",\"name\":\"q\"",
         "featuriser: vertex_attributes[1] of metadata 'featurizer' has key 'name' twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *t = mutate(sb.data, bad[i].from, bad[i].to);
        assert_int_equal(load_text(t, &g), AG_EMODEL);
        assert_string_equal(ag_error_message(), bad[i].msg);
        assert_null(g.vattrs);
        free(t);
    }
    /* a std of 0 (replace the first std value) and statistics with another normalisation */
    char *t = mutate(sb.data, "\"std\":[", "\"std\":[0,");
    char *u = strstr(t, "\"std\":[0,");
    char *comma = strchr(u + 9, ',');
    memmove(u + 9, comma + 1, strlen(comma + 1) + 1); /* drop the original first value */
    assert_int_equal(load_text(t, &g), AG_EMODEL);
    assert_string_equal(ag_error_message(), "featuriser: 'std'[0] is not a finite positive number");
    free(t);
    /* a key this version does not know, in the object or an attribute's (the message names the version) */
    t = mutate(sb.data, "\"degree\":true", "\"degree\":true,\"x\":1");
    assert_int_equal(load_text(t, &g), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "featuriser: unknown key 'x' in metadata 'featurizer' (attn-graph "));
    free(t);
    t = mutate(sb.data, "{\"name\":\"charge\"", "{\"name\":\"charge\",\"x\":1");
    assert_int_equal(load_text(t, &g), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "featuriser: unknown key 'x' in vertex_attributes[1] of metadata "));
    free(t);
    t = mutate(sb.data, "\"normalization\":\"standardize\"", "\"normalization\":\"none\"");
    assert_int_equal(load_text(t, &g), AG_EMODEL);
    assert_string_equal(ag_error_message(), "featuriser: 'mean'/'std' given but normalization is 'none'");
    free(t);
    ag_json_t arr = {.type = AG_JSON_ARRAY};
    assert_int_equal(ag_featurizer_from_json(&g, &arr), AG_EMODEL);
    assert_string_equal(ag_error_message(), "featuriser: not a JSON object");
    ag_strbuf_destroy(&sb);
    ag_featurizer_destroy(&f);
    igraph_destroy(&a);
    igraph_destroy(&b);
}

static void test_alloc_failures(void **state) {
    (void)state;
    igraph_t a, b;
    make_a(&a);
    make_b(&b);
    const igraph_t *gs[] = {&a, &b};
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    cfg.norm = AG_NORM_STANDARDIZE;
    cfg.degree = 1;
    cfg.lap_pe_k = 2;
    cfg.rw_pe_k = 2;
    ag_featurizer_t f, g;
    int64_t n;
    for (n = 1;; n++) { /* the n-th allocation of fit fails: AG_ENOMEM and nothing leaks */
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_featurizer_fit(&f, &cfg, gs, 2);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(f.names);
    }
    assert_true(n > 10);
    ag_strbuf_t sb;
    to_text(&f, &sb);
    for (n = 1;; n++) {
        ag_fmat_t X = {0}, E = {0};
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_featurizer_transform(&f, &a, &X, &E);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            ag_fmat_destroy(&X);
            ag_fmat_destroy(&E);
            break;
        }
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(X.data);
        assert_null(E.data);
    }
    ag_json_t *j;
    assert_int_equal(ag_json_parse(sb.data, sb.len, "f.json", &j), AG_SUCCESS);
    for (n = 1;; n++) {
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_featurizer_from_json(&g, j);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
    }
    assert_same_transform(&f, &g, &b);
    ag_featurizer_destroy(&g);
    ag_json_free(j);
    ag_strbuf_destroy(&sb);
    ag_featurizer_destroy(&f);
    igraph_destroy(&a);
    igraph_destroy(&b);
}

/* A path of n vertices: "label" the vertex's place as networkx's GML writer spells it (prefix
 * and number, counted from shift), "pos" the place as a number, "kind" two values that describe
 * the vertices (repeated in every graph of 3 or more: never a key). */
static void make_keyed(igraph_t *g, int n, const char *prefix, int shift) {
    igraph_vector_int_t e;
    igraph_vector_int_init(&e, 2 * (n - 1));
    for (int v = 0; v + 1 < n; v++) {
        VECTOR(e)[2 * v] = v;
        VECTOR(e)[2 * v + 1] = v + 1;
    }
    igraph_create(g, &e, n, IGRAPH_UNDIRECTED);
    igraph_vector_int_destroy(&e);
    /* an atlas's regions, with a coordinate each: the same vertices in every graph, not a count */
    static const char *const region[] = {"Precentral_L", "Frontal_Sup_R", "Insula_L", "Cingulum_Ant_R", "Cuneus_L"};
    static const double mni_x[] = {-38.6, 21.9, 35.0, -4.0, -5.9};
    for (int v = 0; v < n; v++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix ? prefix : "", (v + shift) % n);
        SETVAS(g, "label", v, prefix ? name : region[v % 5]);
        SETVAN(g, "pos", v, prefix ? v : mni_x[v % 5]);
        SETVAS(g, "kind", v, v % 2 ? "b" : "a");
    }
}

/* The fit of graphs of the given sizes (prefix per graph, or one for all) with the default
 * selection or a list; checks the attributes kept and left out (names joined by spaces). */
static void expect_keys(const int *sizes, int count, const char *const *prefixes, int shift, const char *list,
                        const char *kept, const char *left_out) {
    igraph_t gs[4];
    const igraph_t *ps[4];
    for (int g = 0; g < count; g++) {
        make_keyed(&gs[g], sizes[g], prefixes[0] && prefixes[1] ? prefixes[g] : prefixes[0], shift * g);
        ps[g] = &gs[g];
    }
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    const char *names[] = {list};
    if (list) config_list(&cfg, names, 1);
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ps, count), AG_SUCCESS);
    char got[128] = "", out[128] = "";
    for (int64_t i = 0; i < f.n_vattrs; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", f.vattrs[i].name);
    for (int64_t i = 0; i < f.n_left_out; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", f.left_out[i]);
    assert_string_equal(got, kept);
    assert_string_equal(out, left_out);
    ag_featurizer_destroy(&f);
    for (int g = 0; g < count; g++) igraph_destroy(&gs[g]);
}

/* A vertex attribute that names each graph's vertices (networkx's GML label, Pajek's name) is
 * no feature of a graph task's default selection; one that describes them, or that one graph
 * alone carries (a node task), or that a list names, stays. */
static void test_vertex_keys(void **state) {
    (void)state;
    const char *one[] = {"", NULL}, *own[] = {"g0_", "g1_", "g2_"};
    /* numbering in file order, graphs of different sizes: both numberings left out */
    expect_keys((const int[]){3, 4, 5}, 3, one, 0, NULL, "kind", "label pos");
    /* numbering on graphs of one size (networkx's graphs of 20 vertices), counted from 0 or 1 */
    expect_keys((const int[]){4, 4, 4}, 3, one, 0, NULL, "kind", "label pos");
    const char *vee[] = {"v", NULL};
    expect_keys((const int[]){4, 4, 4}, 3, vee, 0, NULL, "kind", "label pos");
    /* the same sequence on graphs of one size, not a count (an atlas's regions and their
     * coordinates): each vertex's identity, kept */
    const char *atlas[] = {NULL, NULL};
    expect_keys((const int[]){4, 4, 4}, 3, atlas, 0, NULL, "kind label pos", "");
    /* names no two graphs share (people): left out, as the count beside them */
    expect_keys((const int[]){4, 4, 4}, 3, own, 0, NULL, "kind", "label pos");
    /* one vocabulary in other orders (a colour per vertex): the values describe the vertices */
    expect_keys((const int[]){3, 3, 3, 3}, 4, one, 1, NULL, "kind label", "pos");
    /* named in a list: taken whatever it is */
    expect_keys((const int[]){3, 4, 5}, 3, one, 0, "label", "label", "");
    /* one graph, or one graph of 3 or more vertices: nothing to compare */
    expect_keys((const int[]){5}, 1, one, 0, NULL, "kind label pos", "");
    expect_keys((const int[]){2, 5}, 2, one, 0, NULL, "kind label pos", "");
    /* out of memory at each allocation of the fit: AG_ENOMEM and nothing leaks */
    igraph_t a, b;
    make_keyed(&a, 3, "", 0);
    make_keyed(&b, 5, "", 0);
    const igraph_t *ps[] = {&a, &b};
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t f;
    int64_t n;
    for (n = 1;; n++) {
        ag_i_alloc_fail_at(n);
        ag_error_t rc = ag_featurizer_fit(&f, &cfg, ps, 2);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(f.left_out);
    }
    assert_int_equal(f.n_left_out, 2);
    ag_featurizer_destroy(&f);
    igraph_destroy(&a);
    igraph_destroy(&b);
}

/* A vocabulary fitted over many graphs, most values new in each (a name per vertex), missing ones
 * ("") among them and values that only the first or the last graph brings: every distinct value
 * once, in byte order ("é" after ASCII), whatever graph brought it. */
static void test_vocabulary_of_many_graphs(void **state) {
    (void)state;
    enum { G = 300, U = 5, V = G * U }; /* U unique values per graph, V in all */
    igraph_t *gs = calloc(G, sizeof *gs);
    const igraph_t **ps = calloc(G, sizeof *ps);
    assert_non_null(gs);
    assert_non_null(ps);
    for (int g = 0; g < G; g++) {
        igraph_ring(&gs[g], U + 1, IGRAPH_UNDIRECTED, 0, 1);
        for (int v = 0; v < U; v++) {
            char name[16];
            /* 7 is prime to V: v0000..v1499 each once, scattered over the graphs */
            snprintf(name, sizeof name, "v%04d", ((g * U + v) * 7) % V);
            SETVAS(&gs[g], "name", v, name);
        }
        const char *shared = g == 0 ? "\xc3\xa9" : g == G - 1 ? "w" : g % 3 == 0 ? "a" : g % 3 == 1 ? "b" : "";
        SETVAS(&gs[g], "name", U, shared);
        ps[g] = &gs[g];
    }
    const char *list[] = {"name"};
    ag_featurizer_config_t cfg;
    config_list(&cfg, list, 1);
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ps, G), AG_SUCCESS);
    assert_int_equal(f.n_vattrs, 1);
    const ag_feature_attr_t *a = &f.vattrs[0];
    assert_int_equal(a->vocab_size, V + 4);
    assert_string_equal(a->vocab[0], "a");
    assert_string_equal(a->vocab[1], "b");
    for (int k = 0; k < V; k++) {
        char want[16];
        snprintf(want, sizeof want, "v%04d", k);
        assert_string_equal(a->vocab[2 + k], want);
    }
    assert_string_equal(a->vocab[V + 2], "w");
    assert_string_equal(a->vocab[V + 3], "\xc3\xa9");
    assert_int_equal(f.n_features, V + 5);
    assert_string_equal(ag_featurizer_column_name(&f, 2), "name=v0000");
    assert_string_equal(ag_featurizer_column_name(&f, V + 4), "name=<other>");
    /* graph 1 holds v0035..v0063 by 7s, then "b" */
    ag_fmat_t X = {0};
    assert_int_equal(ag_featurizer_transform(&f, &gs[1], &X, NULL), AG_SUCCESS);
    assert_int_equal(X.rows, U + 1);
    for (int v = 0; v <= U; v++) {
        const int64_t hot = v < U ? 2 + 35 + 7 * v : 1;
        for (int64_t j = 0; j < X.cols; j++) assert_float_equal(X.data[v * X.cols + j], j == hot ? 1.0f : 0.0f, 0.0f);
    }
    ag_fmat_destroy(&X);
    ag_featurizer_destroy(&f);
    for (int g = 0; g < G; g++) igraph_destroy(&gs[g]);
    free(gs);
    free(ps);
}

/* Many attributes, set in no order: a column each in the order of their names; a graph holding
 * them under the names igraph's GML writer gives them ("f_012" as "f012"), in another order, is
 * encoded into the same columns. */
static void test_many_attributes(void **state) {
    (void)state;
    enum { A = 300, N = 3 }; /* A attributes */
    igraph_t fit, gml;
    igraph_ring(&fit, N, IGRAPH_UNDIRECTED, 0, 1);
    igraph_ring(&gml, N, IGRAPH_UNDIRECTED, 0, 1);
    for (int i = 0; i < A; i++) {
        const int k = (i * 7) % A, r = A - 1 - i; /* 7 is prime to A: each attribute once */
        char name[16];
        for (int v = 0; v < N; v++) {
            snprintf(name, sizeof name, "f_%03d", k);
            SETVAN(&fit, name, v, k + 1000 * v);
            snprintf(name, sizeof name, "f%03d", r);
            SETVAN(&gml, name, v, -(r + 1000 * v));
        }
    }
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    const igraph_t *ps[] = {&fit};
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ps, 1), AG_SUCCESS);
    assert_int_equal(f.n_features, A);
    for (int k = 0; k < A; k++) {
        char want[16];
        snprintf(want, sizeof want, "f_%03d", k);
        assert_string_equal(ag_featurizer_column_name(&f, k), want);
    }
    ag_fmat_t X = {0};
    assert_int_equal(ag_featurizer_transform(&f, &fit, &X, NULL), AG_SUCCESS);
    for (int v = 0; v < N; v++)
        for (int k = 0; k < A; k++) assert_float_equal(X.data[v * A + k], (float)(k + 1000 * v), 0.0f);
    ag_fmat_destroy(&X);
    assert_int_equal(ag_featurizer_transform(&f, &gml, &X, NULL), AG_SUCCESS);
    for (int v = 0; v < N; v++)
        for (int k = 0; k < A; k++) assert_float_equal(X.data[v * A + k], -(float)(k + 1000 * v), 0.0f);
    ag_fmat_destroy(&X);
    /* one missing: named, not another column's value taken */
    igraph_cattribute_remove_v(&gml, "f150");
    assert_int_equal(ag_featurizer_transform(&f, &gml, &X, NULL), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "attribute 'f_150' is missing"));
    ag_featurizer_destroy(&f);
    igraph_destroy(&fit);
    igraph_destroy(&gml);
}

static void destroy_fit(ag_featurizer_t *f, igraph_t *gs, int count) {
    ag_featurizer_destroy(f);
    for (int g = 0; g < count; g++) igraph_destroy(&gs[g]);
}

/* Attribute k of vertex v of graph g (n vertices) in test_many_distinct_attributes: every tenth
 * counts the vertices in file order; the others differ on every vertex, in another order in each
 * graph (v -> 3v + g mod n is one to one where 3 is prime to n). Exact in float32. */
static double distinct_value(int k, int g, int v, int n) { return k % 10 == 0 ? v : k + ((3 * v + g) % n) / 16.0; }

/* Many numeric attributes with a different value on each vertex of each graph (continuous node
 * attributes), over graphs of several sizes, so that the vertex-key check reads every graph for
 * each of them: those in another order in each graph are columns, in the order of their names,
 * with their values; those that count the vertices are left out, in that order too. */
static void test_many_distinct_attributes(void **state) {
    (void)state;
    enum { A = 150, G = 4, KEYS = A / 10 }; /* A attributes, G graphs */
    static const int sizes[G] = {5, 7, 8, 11};
    igraph_t gs[G];
    const igraph_t *ps[G];
    for (int g = 0; g < G; g++) {
        igraph_ring(&gs[g], sizes[g], IGRAPH_UNDIRECTED, 0, 1);
        ps[g] = &gs[g];
        for (int i = 0; i < A; i++) {
            const int k = (i * 7 + g) % A; /* 7 is prime to A: each attribute once, set in no order */
            char name[16];
            snprintf(name, sizeof name, "c%03d", k);
            for (int v = 0; v < sizes[g]; v++) SETVAN(&gs[g], name, v, distinct_value(k, g, v, sizes[g]));
        }
    }
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ps, G), AG_SUCCESS);
    assert_int_equal(f.n_features, A - KEYS);
    assert_int_equal(f.n_left_out, KEYS);
    int col[A]; /* attribute k's column, -1 for a key */
    char want[16];
    for (int k = 0, j = 0; k < A; k++) {
        snprintf(want, sizeof want, "c%03d", k);
        col[k] = k % 10 == 0 ? -1 : j++;
        if (col[k] < 0) assert_string_equal(f.left_out[k / 10], want);
        else assert_string_equal(ag_featurizer_column_name(&f, col[k]), want);
    }
    for (int g = 0; g < G; g++) {
        ag_fmat_t X = {0};
        assert_int_equal(ag_featurizer_transform(&f, &gs[g], &X, NULL), AG_SUCCESS);
        assert_int_equal(X.rows, sizes[g]);
        for (int v = 0; v < sizes[g]; v++)
            for (int k = 0; k < A; k++)
                if (col[k] >= 0)
                    assert_float_equal(X.data[v * f.n_features + col[k]], (float)distinct_value(k, g, v, sizes[g]), 0.0f);
        ag_fmat_destroy(&X);
    }
    destroy_fit(&f, gs, G);
}

/* The vertex-key check reads a numeric attribute that one graph holds as booleans (GraphML's
 * true/false beside GML's numbers) as 0/1, and decides both ways: "seq" counts every graph's
 * vertices (false, true there), a key left out; "flag" (true, false there) does not, and stays. */
static void test_vertex_key_held_as_boolean(void **state) {
    (void)state;
    enum { G = 3 };
    static const int sizes[G] = {2, 3, 4};
    static const double flag[G][4] = {{1, 0}, {5, 7, 9}, {2, 4, 6, 8}};
    igraph_t gs[G];
    const igraph_t *ps[G];
    for (int g = 0; g < G; g++) {
        igraph_ring(&gs[g], sizes[g], IGRAPH_UNDIRECTED, 0, 0);
        ps[g] = &gs[g];
        for (int v = 0; v < sizes[g]; v++) {
            if (g == 0) {
                SETVAB(&gs[g], "seq", v, v == 1);
                SETVAB(&gs[g], "flag", v, flag[g][v] != 0);
            } else {
                SETVAN(&gs[g], "seq", v, v);
                SETVAN(&gs[g], "flag", v, flag[g][v]);
            }
        }
    }
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ps, G), AG_SUCCESS);
    assert_int_equal(f.n_vattrs, 1);
    assert_string_equal(f.vattrs[0].name, "flag");
    assert_int_equal(f.vattrs[0].type, AG_ATTR_NUMERIC);
    assert_int_equal(f.n_left_out, 1);
    assert_string_equal(f.left_out[0], "seq");
    for (int g = 0; g < G; g++) {
        ag_fmat_t X = {0};
        assert_int_equal(ag_featurizer_transform(&f, &gs[g], &X, NULL), AG_SUCCESS);
        assert_int_equal(X.cols, 1);
        for (int v = 0; v < sizes[g]; v++) assert_float_equal(X.data[v], (float)flag[g][v], 0.0f);
        ag_fmat_destroy(&X);
    }
    destroy_fit(&f, gs, G);
}

static void test_tox21(void **state) {
    (void)state;
    enum { G = 40 };
    igraph_t gs[G + 1];
    const igraph_t *ptr[G + 1];
    char path[512];
    for (int i = 0; i < G; i++) {
        snprintf(path, sizeof path, "%s/tests/data/tox21-mini/%04d.gml", AG_SOURCE_DIR, i + 1);
        read_gml(&gs[i], path);
        ptr[i] = &gs[i];
    }
    read_gml(&gs[G], AG_SOURCE_DIR "/tests/data/tox21-mini/0096.gml"); /* [I-].[K+]: no edges */
    ptr[G] = &gs[G];
    ag_featurizer_config_t cfg;
    ag_featurizer_config_init(&cfg);
    cfg.rw_pe_k = 4;
    ag_featurizer_t f;
    assert_int_equal(ag_featurizer_fit(&f, &cfg, ptr, G + 1), AG_SUCCESS);
    /* first columns, in name order: aromatic (numeric 0/1 in GML), atomic_num, charge, degree,
     * element=..., with no "id" */
    assert_string_equal(ag_featurizer_column_name(&f, 0), "aromatic");
    assert_string_equal(ag_featurizer_column_name(&f, 1), "atomic_num");
    assert_string_equal(ag_featurizer_column_name(&f, 3), "degree");
    assert_int_equal(strncmp(ag_featurizer_column_name(&f, 4), "element=", 8), 0);
    for (int64_t j = 0; j < f.n_features; j++) assert_string_not_equal(ag_featurizer_column_name(&f, j), "id");
    assert_string_equal(ag_featurizer_edge_column_name(&f, 0), "bond");
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_featurizer_transform(&f, &gs[G], &X, &E), AG_SUCCESS);
    assert_int_equal(X.rows, 2);
    assert_int_equal(E.rows, 0);
    assert_int_equal(E.cols, f.n_edge_features);
    /* molecule 1, atom 0: C, charge 0, 3 hydrogens */
    assert_int_equal(ag_featurizer_transform(&f, &gs[0], &X, &E), AG_SUCCESS);
    int64_t cC = -1, cH = -1;
    for (int64_t j = 0; j < f.n_features; j++) {
        if (strcmp(f.names[j], "element=C") == 0) cC = j;
        if (strcmp(f.names[j], "hydrogens") == 0) cH = j;
    }
    assert_true(cC >= 0 && cH >= 0);
    assert_float_equal(X.data[cC], 1.0f, 0.0f);
    assert_float_equal(X.data[cH], 3.0f, 0.0f);
    assert_int_equal(E.rows, 17);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    ag_featurizer_destroy(&f);
    for (int i = 0; i <= G; i++) igraph_destroy(&gs[i]);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoders),
        cmocka_unit_test(test_unseen),
        cmocka_unit_test(test_empty_is_missing),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_fit_errors),
        cmocka_unit_test(test_all_empty_string),
        cmocka_unit_test(test_transform_errors),
        cmocka_unit_test(test_boolean_read_as_numbers),
        cmocka_unit_test(test_fit_booleans_with_numbers),
        cmocka_unit_test(test_numbers_read_from_booleans),
        cmocka_unit_test(test_no_edges),
        cmocka_unit_test(test_normalisation),
        cmocka_unit_test(test_structural_columns),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_vertex_keys),
        cmocka_unit_test(test_vocabulary_of_many_graphs),
        cmocka_unit_test(test_many_attributes),
        cmocka_unit_test(test_many_distinct_attributes),
        cmocka_unit_test(test_vertex_key_held_as_boolean),
        cmocka_unit_test(test_tox21),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
