/* Tests of ag_graph_summarize: counts, degrees and attribute statistics, hand-computed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/graph.h>
#include <attngraph/summary.h>

void ag_i_alloc_fail_at(int64_t n);

/* 5 nodes (node 4 isolated); e0 2-1, e1 0-1, e2 0-1, e3 1-1 (loop), e4 1-0, e5 3-2. */
static void make_graph(igraph_t *ig, int directed) {
    static const igraph_integer_t pairs[] = {2, 1, 0, 1, 0, 1, 1, 1, 1, 0, 3, 2};
    igraph_vector_int_t v;
    assert_int_equal(igraph_vector_int_init_array(&v, pairs, 12), IGRAPH_SUCCESS);
    assert_int_equal(igraph_create(ig, &v, 5, directed), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&v);
}

static const ag_attr_summary_t *find(const ag_graph_summary_t *s, ag_attr_kind_t kind, const char *name) {
    for (int64_t i = 0; i < s->n_attrs; i++)
        if (s->attrs[i].kind == kind && !strcmp(s->attrs[i].name, name)) return &s->attrs[i];
    fail_msg("no %s attribute '%s'", ag_attr_kind_name(kind), name);
    return NULL;
}

static void test_undirected_counts(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, IGRAPH_UNDIRECTED);
    ag_graph_summary_t s;
    assert_int_equal(ag_graph_summarize(&ig, &s), AG_SUCCESS);
    assert_int_equal(s.directed, 0);
    assert_int_equal(s.nodes, 5);
    assert_int_equal(s.edges, 6);
    assert_int_equal(s.self_loops, 1);
    assert_int_equal(s.multi_edges, 2); /* e2 and e4 repeat e1 = {0, 1} */
    assert_int_equal(s.components, 2);  /* {0, 1, 2, 3} and {4} */
    /* degrees 3, 6 (the loop counts twice), 2, 1, 0 */
    assert_int_equal(s.degree_min, 0);
    assert_int_equal(s.degree_max, 6);
    assert_float_equal(s.degree_mean, 2.4, 1e-12);
    assert_int_equal(s.in_degree_max, 0);
    assert_int_equal(s.n_attrs, 0);
    ag_graph_summary_destroy(&s);
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);
}

static void test_directed_counts(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, IGRAPH_DIRECTED);
    ag_graph_summary_t s;
    assert_int_equal(ag_graph_summarize(&ig, &s), AG_SUCCESS);
    assert_int_equal(s.directed, 1);
    assert_int_equal(s.self_loops, 1);
    assert_int_equal(s.multi_edges, 1); /* e2 repeats 0->1; 1->0 is another edge */
    assert_int_equal(s.components, 2);
    /* in 1, 4, 1, 0, 0; out 2, 2, 1, 1, 0 */
    assert_int_equal(s.in_degree_min, 0);
    assert_int_equal(s.in_degree_max, 4);
    assert_int_equal(s.out_degree_min, 0);
    assert_int_equal(s.out_degree_max, 2);
    assert_int_equal(s.degree_min, 0);
    assert_int_equal(s.degree_max, 6);
    assert_float_equal(s.degree_mean, 2.4, 1e-12);
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);
}

static void add_attributes(igraph_t *ig) {
    const double x[] = {NAN, 2, NAN, 4, 5};
    const char *elem[] = {"", "O", "C", "O", "N"};
    for (int i = 0; i < 5; i++) {
        SETVAN(ig, "x", i, x[i]);
        SETVAS(ig, "elem", i, elem[i]);
        SETVAB(ig, "flag", i, i == 0);
    }
    for (int e = 0; e < 6; e++) {
        SETEAN(ig, "w", e, e + 1);
        SETEAS(ig, "t", e, "");
    }
    SETGAN(ig, "label", 7.5);
    SETGAS(ig, "smiles", "CCO");
}

static void test_attributes(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, IGRAPH_UNDIRECTED);
    add_attributes(&ig);
    ag_graph_summary_t s;
    assert_int_equal(ag_graph_summarize(&ig, &s), AG_SUCCESS);
    assert_int_equal(s.n_attrs, 7);
    /* vertex attributes first, then edge, then graph */
    for (int64_t i = 0; i < 3; i++) assert_int_equal(s.attrs[i].kind, AG_ATTR_VERTEX);
    for (int64_t i = 3; i < 5; i++) assert_int_equal(s.attrs[i].kind, AG_ATTR_EDGE);
    for (int64_t i = 5; i < 7; i++) assert_int_equal(s.attrs[i].kind, AG_ATTR_GRAPH);

    const ag_attr_summary_t *a = find(&s, AG_ATTR_VERTEX, "x");
    assert_int_equal(a->type, AG_ATTR_NUMERIC);
    assert_true(a->has_example);
    assert_float_equal(a->number, 2.0, 0.0); /* the first non-missing value */
    assert_int_equal(a->missing, 2);
    assert_int_equal(a->feature_width, 1);

    a = find(&s, AG_ATTR_VERTEX, "elem");
    assert_int_equal(a->type, AG_ATTR_STRING);
    assert_string_equal(a->string, "O");
    assert_int_equal(a->missing, 1);
    assert_int_equal(a->distinct, 3);      /* O, C, N */
    assert_int_equal(a->feature_width, 4); /* one per value and "other" */

    a = find(&s, AG_ATTR_VERTEX, "flag");
    assert_int_equal(a->type, AG_ATTR_BOOLEAN);
    assert_float_equal(a->number, 1.0, 0.0);
    assert_int_equal(a->missing, 0);
    assert_int_equal(a->feature_width, 1);

    a = find(&s, AG_ATTR_EDGE, "w");
    assert_int_equal(a->type, AG_ATTR_NUMERIC);
    assert_float_equal(a->number, 1.0, 0.0);
    assert_int_equal(a->feature_width, 1);

    a = find(&s, AG_ATTR_EDGE, "t");
    assert_int_equal(a->type, AG_ATTR_STRING);
    assert_false(a->has_example);
    assert_null(a->string);
    assert_int_equal(a->missing, 6);
    assert_int_equal(a->distinct, 0);
    assert_int_equal(a->feature_width, 1); /* only "other" */

    a = find(&s, AG_ATTR_GRAPH, "label");
    assert_float_equal(a->number, 7.5, 0.0);
    assert_int_equal(a->feature_width, 0);
    a = find(&s, AG_ATTR_GRAPH, "smiles");
    assert_string_equal(a->string, "CCO");
    assert_int_equal(a->feature_width, 0);
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);
}

static void test_allocation_failures(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, IGRAPH_UNDIRECTED);
    add_attributes(&ig);
    ag_graph_summary_t s;
    int failures = 0;
    for (int64_t k = 1;; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_graph_summarize(&ig, &s);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(s.attrs);
        failures++;
    }
    assert_true(failures > 15);
    assert_int_equal(s.n_attrs, 7);
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);
}

static void test_shipped_graphs(void **state) {
    (void)state;
    igraph_t ig;
    ag_graph_summary_t s;
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/molecules/aspirin.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_int_equal(ag_graph_summarize(&ig, &s), AG_SUCCESS);
    assert_int_equal(s.nodes, 13);
    assert_int_equal(s.edges, 13);
    assert_int_equal(s.components, 1);
    assert_int_equal(s.degree_min, 1);
    assert_int_equal(s.degree_max, 3);
    assert_float_equal(s.degree_mean, 2.0, 1e-12);
    const ag_attr_summary_t *a = find(&s, AG_ATTR_VERTEX, "element");
    assert_string_equal(a->string, "C");
    assert_int_equal(a->distinct, 2); /* C and O */
    assert_int_equal(a->feature_width, 3);
    a = find(&s, AG_ATTR_EDGE, "bond_type");
    assert_int_equal(a->distinct, 3); /* SINGLE, DOUBLE, AROMATIC */
    a = find(&s, AG_ATTR_GRAPH, "smiles");
    assert_string_equal(a->string, "CC(=O)Oc1ccccc1C(=O)O");
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);

    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    assert_int_equal(ag_graph_summarize(&ig, &s), AG_SUCCESS);
    assert_int_equal(s.nodes, 34);
    assert_int_equal(s.edges, 78);
    assert_int_equal(s.components, 1);
    assert_int_equal(s.degree_min, 1);
    assert_int_equal(s.degree_max, 17);
    assert_float_equal(s.degree_mean, 156.0 / 34.0, 1e-12);
    a = find(&s, AG_ATTR_VERTEX, "club_name");
    assert_int_equal(a->distinct, 2);
    assert_int_equal(a->feature_width, 3);
    ag_graph_summary_destroy(&s);
    igraph_destroy(&ig);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undirected_counts),
        cmocka_unit_test(test_directed_counts),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_shipped_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
