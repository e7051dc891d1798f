/*
 * test_api.c: the igraph-style facade (attngraph/api.h) on graphs built in code: results equal the
 * lower-level bundle path, attention sums to one per destination, save-load round trips are
 * bit-identical, and every error path returns its code and message.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli_testutil.h"
#include <attngraph/attngraph.h>

void ag_i_alloc_fail_at(int64_t n);

/* A chain molecule of the given elements ("CCNC"), closed into a ring when ring is set; vertex
 * attributes element (string) and charge (number), edge attribute bond (number). */
static void make_mol(igraph_t *g, const char *elements, int ring) {
    int n = (int)strlen(elements);
    igraph_vector_int_t edges;
    igraph_vector_int_init(&edges, 0);
    for (int i = 0; i + 1 < n; i++) {
        igraph_vector_int_push_back(&edges, i);
        igraph_vector_int_push_back(&edges, i + 1);
    }
    if (ring && n > 2) {
        igraph_vector_int_push_back(&edges, n - 1);
        igraph_vector_int_push_back(&edges, 0);
    }
    igraph_create(g, &edges, n, IGRAPH_UNDIRECTED);
    igraph_vector_int_destroy(&edges);
    for (int i = 0; i < n; i++) {
        char e[2] = {elements[i], 0};
        SETVAS(g, "element", i, e);
        SETVAN(g, "charge", i, elements[i] == 'N' ? 1.0 : 0.0);
    }
    for (int e = 0; e < igraph_ecount(g); e++) SETEAN(g, "bond", e, 1.0 + (e % 2));
}

#define G_MOLS 12
static const char *const MOLS[G_MOLS] = {"CCO", "CCN", "CCCO", "CNCC", "OCCO", "NCCN",
                                         "CCCCO", "CCNCC", "COCCC", "CCCNC", "CCOCO", "NCCCC"};

typedef struct fixture_t {
    igraph_t mols[G_MOLS];
    igraph_matrix_t y; /* (G x 1) 1 if the molecule has nitrogen */
    ag_net_t *gnet;    /* graph classifier */
    igraph_t karate;
    igraph_vector_int_t club; /* (34) */
} fixture_t;

static fixture_t FX;

static ag_net_train_options_t tiny_options(void) {
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.preset = "transformer"; /* the tests read its 2 heads, inputs and attention without a graph token */
    o.epochs = 8;
    o.hidden = 8;
    o.heads = 2;
    o.layers = 2;
    o.batch_size = 4;
    o.seed = 7;
    return o;
}

static int setup(void **state) {
    (void)state;
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_matrix_init(&FX.y, G_MOLS, 1);
    for (int g = 0; g < G_MOLS; g++) {
        make_mol(&FX.mols[g], MOLS[g], g % 3 == 0);
        MATRIX(FX.y, g, 0) = strchr(MOLS[g], 'N') ? 1.0 : 0.0;
    }
    ag_net_train_options_t o = tiny_options();
    if (ag_net_train_graphs(&FX.gnet, FX.mols, G_MOLS, &FX.y, NULL, NULL, &o, NULL) != AG_SUCCESS) {
        fprintf(stderr, "setup: %s\n", ag_error_message());
        return -1;
    }
    igraph_famous(&FX.karate, "Zachary");
    static const int hi[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 16, 17, 19, 21};
    igraph_vector_int_init(&FX.club, 34);
    igraph_vector_int_fill(&FX.club, 1);
    for (size_t i = 0; i < sizeof hi / sizeof hi[0]; i++) VECTOR(FX.club)[hi[i]] = 0;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (int g = 0; g < G_MOLS; g++) igraph_destroy(&FX.mols[g]);
    igraph_matrix_destroy(&FX.y);
    ag_net_destroy(FX.gnet);
    igraph_destroy(&FX.karate);
    igraph_vector_int_destroy(&FX.club);
    return 0;
}

static void temp_path(char *buf, size_t n) {
    snprintf(buf, n, "/tmp/ag_test_api_XXXXXX");
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

/* ---- queries */

static void test_queries(void **state) {
    (void)state;
    ag_net_t *net = FX.gnet;
    assert_int_equal(ag_net_task(net), AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(ag_net_n_outputs(net), 2);
    assert_string_equal(ag_net_output_name(net, 0), "0");
    assert_string_equal(ag_net_output_name(net, 1), "1");
    assert_null(ag_net_output_name(net, 2));
    assert_int_equal(ag_net_n_layers(net), 2);
    igraph_strvector_t v, e, names;
    igraph_strvector_init(&v, 0);
    igraph_strvector_init(&e, 0);
    igraph_strvector_init(&names, 0);
    /* a NULL handle is an error code or an empty answer, never a crash */
    assert_int_equal((int)ag_net_task(NULL), -1);
    assert_int_equal(ag_net_n_outputs(NULL), 0);
    assert_int_equal(ag_net_n_inputs(NULL), 0);
    assert_int_equal(ag_net_feature_width(NULL), 0);
    assert_int_equal(ag_net_n_layers(NULL), 0);
    assert_null(ag_net_output_name(NULL, 0));
    assert_null(ag_net_bundle(NULL));
    assert_int_equal(ag_net_output_names(NULL, &names), AG_EINVAL);
    assert_int_equal(ag_net_output_names(net, NULL), AG_EINVAL);
    assert_int_equal(ag_net_input_attrs(NULL, &v, &e), AG_EINVAL);
    ag_net_train_options_init(NULL);
    ag_net_t *loaded = (ag_net_t *)&v; /* any non-NULL value: a failed load sets NULL */
    assert_int_equal(ag_net_load(&loaded, NULL), AG_EINVAL);
    assert_null(loaded);
    assert_int_equal(ag_net_input_attrs(net, &v, &e), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&v), 2);
    assert_string_equal(igraph_strvector_get(&v, 0), "charge");
    assert_string_equal(igraph_strvector_get(&v, 1), "element");
    assert_int_equal(igraph_strvector_size(&e), 1);
    assert_string_equal(igraph_strvector_get(&e, 0), "bond");
    assert_int_equal(ag_net_output_names(net, &names), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&names), 2);
    assert_string_equal(igraph_strvector_get(&names, 1), "1");
    /* charge (1) + element one-hot over C, N, O (3 + <other>) */
    assert_int_equal(ag_net_n_inputs(net), 5);
    assert_int_equal(ag_net_feature_width(net), 5);
    igraph_strvector_destroy(&v);
    igraph_strvector_destroy(&e);
    igraph_strvector_destroy(&names);
}

/* ---- graph predictions equal the bundle path */

static void test_predict_graph_matches_bundle(void **state) {
    (void)state;
    igraph_vector_t p;
    igraph_vector_init(&p, 0);
    for (int g = 0; g < G_MOLS; g++) {
        assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[g], NULL, &p), AG_SUCCESS);
        ag_fmat_t ref = {0};
        assert_int_equal(ag_bundle_predict_graph(ag_net_bundle(FX.gnet), &FX.mols[g], NULL, &ref), AG_SUCCESS);
        assert_int_equal(igraph_vector_size(&p), 2);
        assert_int_equal(ref.rows, 1);
        for (int c = 0; c < 2; c++) assert_true(VECTOR(p)[c] == (double)ref.data[c]);
        assert_float_equal(VECTOR(p)[0] + VECTOR(p)[1], 1.0, 1e-6);
        igraph_integer_t label = -1;
        igraph_vector_t q;
        igraph_vector_init(&q, 0);
        assert_int_equal(ag_net_classify_graph(FX.gnet, &FX.mols[g], NULL, &label, &q), AG_SUCCESS);
        assert_int_equal(label, ref.data[1] > ref.data[0] ? 1 : 0);
        assert_true(igraph_vector_all_e(&p, &q));
        igraph_vector_destroy(&q);
        ag_fmat_destroy(&ref);
    }
    igraph_vector_destroy(&p);
}

/* Many graphs in block-diagonal batches: each row is that graph's ag_net_predict_graph() answer,
 * up to float rounding whatever the batch holds beside it (a BLAS kernel may take another path for
 * the rows at a tile's edge: seen with BLIS's generic kernels and under valgrind), across the
 * 256-graph batch boundary, and bit for bit for any thread count; errors name the graph and leave
 * the output alone. */
enum { MANY = 300 };

static void test_predict_graphs(void **state) {
    (void)state;
    igraph_t *many = calloc(MANY, sizeof *many); /* (MANY) the molecules over and over */
    assert_non_null(many);
    for (int g = 0; g < MANY; g++) igraph_copy(&many[g], &FX.mols[g % G_MOLS]);
    igraph_matrix_t all, part;
    igraph_matrix_init(&all, 0, 0);
    igraph_matrix_init(&part, 0, 0);
    igraph_vector_t one;
    igraph_vector_init(&one, 0);
    ag_threads_set(1);
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many, MANY, &all), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&all), MANY);
    assert_int_equal(igraph_matrix_ncol(&all), 2);
    for (int g = 0; g < MANY; g++) {
        assert_int_equal(ag_net_predict_graph(FX.gnet, &many[g], NULL, &one), AG_SUCCESS);
        for (int c = 0; c < 2; c++) assert_float_equal(MATRIX(all, g, c), VECTOR(one)[c], 1e-6);
        /* the same molecule in another batch, at another place in it */
        for (int c = 0; c < 2; c++) assert_float_equal(MATRIX(all, g, c), MATRIX(all, g % G_MOLS, c), 1e-6);
    }
    /* a batch of other company (graphs 5..9 alone) gives the same rows, two threads the same bits */
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many + 5, 5, &part), AG_SUCCESS);
    for (int g = 0; g < 5; g++)
        for (int c = 0; c < 2; c++) assert_float_equal(MATRIX(part, g, c), MATRIX(all, g + 5, c), 1e-6);
    ag_threads_set(2);
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many, MANY, &part), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&part, &all));
    ag_threads_set(0);
    /* no graphs: no rows */
    assert_int_equal(ag_net_predict_graphs(FX.gnet, NULL, 0, &part), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&part), 0);
    assert_int_equal(igraph_matrix_ncol(&part), 2);
    /* a graph past the first batch without its 'charge': named, and the output unchanged */
    DELVA(&many[270], "charge");
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many, MANY, &part), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "graph 270: "));
    assert_non_null(strstr(ag_error_message(), "'charge'"));
    assert_int_equal(igraph_matrix_nrow(&part), 0);
    assert_int_equal(ag_net_predict_graphs(NULL, many, 3, &part), AG_EINVAL);
    assert_int_equal(ag_net_predict_graphs(FX.gnet, NULL, 3, &part), AG_EINVAL);
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many, 3, NULL), AG_EINVAL);
    assert_int_equal(ag_net_predict_graphs(FX.gnet, many, -1, &part), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "n_graphs -1"));
    /* a node model */
    igraph_vector_int_t y;
    igraph_vector_int_init_int(&y, 3, 0, 1, 0);
    igraph_t path;
    igraph_small(&path, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    ag_net_train_options_t o = tiny_options();
    o.degree = 1;
    o.epochs = 1;
    ag_net_t *node = NULL;
    assert_int_equal(ag_net_train_nodes(&node, &path, NULL, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_predict_graphs(node, &path, 1, &part), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "use ag_net_predict_nodes"));
    ag_net_destroy(node);
    igraph_destroy(&path);
    igraph_vector_int_destroy(&y);
    for (int g = 0; g < MANY; g++) igraph_destroy(&many[g]);
    free(many);
    igraph_vector_destroy(&one);
    igraph_matrix_destroy(&all);
    igraph_matrix_destroy(&part);
}

/* A caller's matrix equal to the featurised X gives the same prediction (the "replace X" path). */
static void test_predict_graph_with_matrix(void **state) {
    (void)state;
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_bundle_featurize(ag_net_bundle(FX.gnet), &FX.mols[4], NULL, &X, &E), AG_SUCCESS);
    igraph_matrix_t M;
    igraph_matrix_init(&M, 0, 0);
    assert_int_equal(ag_fmat_to_igraph(&X, &M), AG_SUCCESS);
    igraph_vector_t a, b;
    igraph_vector_init(&a, 0);
    igraph_vector_init(&b, 0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[4], NULL, &a), AG_SUCCESS);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[4], &M, &b), AG_SUCCESS);
    assert_true(igraph_vector_all_e(&a, &b));
    /* the matrix replaces the vertex attributes: a copy without them predicts the same (the edge
     * features still come from the edge attributes) */
    igraph_t bare;
    igraph_copy(&bare, &FX.mols[4]);
    igraph_cattribute_remove_all(&bare, false, true, false);
    assert_true(ag_net_bundle(FX.gnet)->featurizer.n_edge_features > 0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &bare, &M, &b), AG_SUCCESS);
    assert_true(igraph_vector_all_e(&a, &b));
    igraph_destroy(&bare);
    /* wrong width */
    igraph_matrix_resize(&M, igraph_vcount(&FX.mols[4]), 3);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[4], &M, &b), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "has 3 columns; the model expects 5"));
    /* wrong rows */
    igraph_matrix_resize(&M, 2, 5);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[4], &M, &b), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "has 2 rows; the graph has 4 vertices"));
    /* NaN */
    igraph_matrix_resize(&M, 4, 5);
    igraph_matrix_null(&M);
    MATRIX(M, 1, 2) = NAN;
    assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[4], &M, &b), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "row 1, column 2 is NaN"));
    igraph_matrix_destroy(&M);
    igraph_vector_destroy(&a);
    igraph_vector_destroy(&b);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
}

/* The model's inputs as igraph matrices, with their column names: what the predicting functions
 * compute, so that X given back as features predicts the same. */
static void test_featurize(void **state) {
    (void)state;
    const igraph_t *mol = &FX.mols[7]; /* "CCNCC", a chain */
    igraph_matrix_t X, E;
    igraph_matrix_init(&X, 1, 1);
    igraph_matrix_init(&E, 7, 7);
    igraph_strvector_t xn, en;
    igraph_strvector_init(&xn, 3);
    igraph_strvector_init(&en, 0);
    assert_int_equal(ag_net_featurize(FX.gnet, mol, NULL, &X, &E), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&X), 5);
    assert_int_equal(igraph_matrix_ncol(&X), ag_net_n_inputs(FX.gnet));
    assert_int_equal(igraph_matrix_nrow(&E), 4);
    assert_int_equal(igraph_matrix_ncol(&E), 1);
    assert_int_equal(ag_net_feature_names(FX.gnet, &xn, &en), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&xn), 5);
    const char *want[] = {"charge", "element=C", "element=N", "element=O", "element=<other>"};
    for (int j = 0; j < 5; j++) assert_string_equal(igraph_strvector_get(&xn, j), want[j]);
    assert_int_equal(igraph_strvector_size(&en), 1);
    assert_string_equal(igraph_strvector_get(&en, 0), "bond");
    /* charge and one-hot element per vertex (N: charge 1), the bond order per edge (as is) */
    for (int v = 0; v < 5; v++) {
        assert_true(MATRIX(X, v, 0) == (v == 2 ? 1.0 : 0.0));
        assert_true(MATRIX(X, v, v == 2 ? 2 : 1) == 1.0);
    }
    for (int e = 0; e < 4; e++) assert_true(MATRIX(E, e, 0) == EAN(mol, "bond", e));
    /* the same figures as the bundle path, and X given back predicts the same */
    ag_fmat_t Xf = {0}, Ef = {0};
    assert_int_equal(ag_bundle_featurize(ag_net_bundle(FX.gnet), mol, NULL, &Xf, &Ef), AG_SUCCESS);
    for (int v = 0; v < 5; v++)
        for (int j = 0; j < 5; j++) assert_true(MATRIX(X, v, j) == (double)Xf.data[v * 5 + j]);
    igraph_vector_t a, b;
    igraph_vector_init(&a, 0);
    igraph_vector_init(&b, 0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, mol, NULL, &a), AG_SUCCESS);
    assert_int_equal(ag_net_predict_graph(FX.gnet, mol, &X, &b), AG_SUCCESS);
    assert_true(igraph_vector_all_e(&a, &b));
    /* E may be left out; errors as prediction's */
    assert_int_equal(ag_net_featurize(FX.gnet, mol, NULL, &X, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_featurize(NULL, mol, NULL, &X, &E), AG_EINVAL);
    assert_int_equal(ag_net_featurize(FX.gnet, mol, NULL, NULL, &E), AG_EINVAL);
    assert_int_equal(ag_net_feature_names(NULL, &xn, &en), AG_EINVAL);
    assert_int_equal(ag_net_feature_names(FX.gnet, NULL, NULL), AG_SUCCESS);
    igraph_t g;
    igraph_copy(&g, mol);
    DELVA(&g, "charge");
    assert_int_equal(ag_net_featurize(FX.gnet, &g, NULL, &X, &E), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "attribute 'charge' is missing"));
    igraph_destroy(&g);
    ag_fmat_destroy(&Xf);
    ag_fmat_destroy(&Ef);
    igraph_vector_destroy(&a);
    igraph_vector_destroy(&b);
    igraph_strvector_destroy(&xn);
    igraph_strvector_destroy(&en);
    igraph_matrix_destroy(&X);
    igraph_matrix_destroy(&E);
}

static void test_predict_graph_errors(void **state) {
    (void)state;
    igraph_t g;
    igraph_small(&g, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    SETVAS(&g, "element", 0, "C");
    SETVAS(&g, "element", 1, "C");
    SETVAS(&g, "element", 2, "O");
    SETEAN(&g, "bond", 0, 1.0);
    SETEAN(&g, "bond", 1, 1.0);
    igraph_vector_t p;
    igraph_vector_init(&p, 0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &g, NULL, &p), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "'charge'"));
    igraph_vector_int_t labels;
    igraph_vector_int_init(&labels, 0);
    assert_int_equal(ag_net_predict_nodes(FX.gnet, &FX.mols[0], NULL, &labels, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "use ag_net_predict_graph"));
    igraph_matrix_t A;
    igraph_matrix_init(&A, 0, 0);
    assert_int_equal(ag_net_attention(FX.gnet, &FX.mols[0], NULL, 2, &A, NULL, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "has 2 attention blocks"));
    /* an empty graph is refused, as the file readers refuse it, not given a confident class */
    igraph_t empty;
    igraph_empty(&empty, 0, IGRAPH_UNDIRECTED);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &empty, NULL, &p), AG_EVALUE);
    assert_string_equal(ag_error_message(), "the graph has no vertices: nothing to predict");
    igraph_destroy(&empty);
    /* classify needs somewhere to put the class */
    assert_int_equal(ag_net_classify_graph(FX.gnet, &FX.mols[0], NULL, NULL, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_net_classify_graph: NULL label");
    ag_net_t *bad = NULL;
    assert_int_equal(ag_net_load(&bad, "/nonexistent/model.safetensors"), AG_EFILE);
    assert_null(bad);
    igraph_matrix_destroy(&A);
    igraph_vector_int_destroy(&labels);
    igraph_vector_destroy(&p);
    igraph_destroy(&g);
}

/* A container the caller never initialised (zeroed, as a static or memset one) or already
 * destroyed made igraph's assertion abort the process; each is refused by name instead. */
static void expect_uninitialised(ag_error_t rc, const char *fn, const char *what) {
    char want[256];
    snprintf(want, sizeof want, "%s: %s was never initialised, or was destroyed (igraph_*_init it first)", fn, what);
    assert_int_equal(rc, AG_EINVAL);
    assert_string_equal(ag_error_message(), want);
}

static void test_uninitialised_containers(void **state) {
    (void)state;
    igraph_vector_t v;
    igraph_vector_int_t vi;
    igraph_matrix_t m;
    igraph_strvector_t sv;
    memset(&v, 0, sizeof v);
    memset(&vi, 0, sizeof vi);
    memset(&m, 0, sizeof m);
    memset(&sv, 0, sizeof sv);
    igraph_integer_t label = -1;
    ag_net_t *g = FX.gnet;
    const igraph_t *mol = &FX.mols[0];
    expect_uninitialised(ag_net_predict_graph(g, mol, NULL, &v), "ag_net_predict_graph", "out");
    expect_uninitialised(ag_net_predict_graphs(g, FX.mols, 2, &m), "ag_net_predict_graphs", "out");
    expect_uninitialised(ag_net_classify_graph(g, mol, NULL, &label, &v), "ag_net_classify_graph", "probs");
    assert_int_equal(label, -1);
    expect_uninitialised(ag_net_featurize(g, mol, NULL, &m, NULL), "ag_net_featurize", "X");
    expect_uninitialised(ag_net_attention(g, mol, NULL, 0, &m, NULL, NULL), "ag_net_attention", "edge_alpha");
    expect_uninitialised(ag_net_output_names(g, &sv), "ag_net_output_names", "names");
    expect_uninitialised(ag_net_input_attrs(g, &sv, NULL), "ag_net_input_attrs", "vertex_attrs");
    expect_uninitialised(ag_net_feature_names(g, NULL, &sv), "ag_net_feature_names", "e_names");
    ag_scores_t sc;
    expect_uninitialised(ag_net_evaluate_graph_tasks(g, FX.mols, G_MOLS, &FX.y, NULL, &sc, &v),
                         "ag_net_evaluate_graph_tasks", "per_task");
    expect_uninitialised(ag_net_evaluate_graphs(g, FX.mols, G_MOLS, &FX.y, &vi, &sc), "index list", "idx");
    /* an initialised output next to a zeroed one: the zeroed one is named, whichever argument it is */
    igraph_matrix_t A;
    igraph_matrix_init(&A, 0, 0);
    expect_uninitialised(ag_net_attention(g, mol, NULL, 0, &A, NULL, &m), "ag_net_attention", "self_alpha");
    /* destroyed, then used again: the same refusal, not a use after free */
    igraph_vector_t gone;
    igraph_vector_init(&gone, 3);
    igraph_vector_destroy(&gone);
    expect_uninitialised(ag_net_predict_graph(g, mol, NULL, &gone), "ag_net_predict_graph", "out");

    /* node tasks: the labels, values and index lists given, and the outputs */
    ag_net_train_options_t o = tiny_options();
    o.degree = 1;
    ag_net_t *net = NULL;
    expect_uninitialised(ag_net_train_nodes(&net, &FX.karate, NULL, &vi, NULL, NULL, &o, NULL), "ag_net_train_nodes",
                         "labels");
    assert_null(net);
    expect_uninitialised(ag_net_train_node_values(&net, &FX.karate, NULL, &v, NULL, NULL, &o, NULL),
                         "ag_net_train_node_values", "values");
    expect_uninitialised(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, &vi, NULL, &o, NULL), "index list",
                         "train");
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    expect_uninitialised(ag_net_predict_nodes(net, &FX.karate, NULL, &vi, NULL), "ag_net_predict_nodes", "labels");
    expect_uninitialised(ag_net_predict_nodes(net, &FX.karate, NULL, NULL, &m), "ag_net_predict_nodes", "probs");
    expect_uninitialised(ag_net_evaluate_nodes(net, &FX.karate, NULL, &vi, NULL, &sc), "ag_net_evaluate_nodes",
                         "labels");
    igraph_matrix_t P;
    igraph_matrix_init(&P, 34, 2);
    igraph_matrix_fill(&P, 0.5);
    ag_smooth_config_t cfg;
    ag_smooth_config_init(&cfg);
    expect_uninitialised(ag_label_smooth(&FX.karate, &P, &vi, &cfg, &A), "label smoothing", "known");
    expect_uninitialised(ag_label_smooth(&FX.karate, &P, &FX.club, &cfg, &m), "label smoothing", "result");
    ag_fmat_t f = {0};
    expect_uninitialised(ag_fmat_to_igraph(&f, &m), "ag_fmat_to_igraph", "out");
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&A);
    ag_net_destroy(net);
}

/* A destroyed igraph matrix keeps its row and column counts (igraph_matrix_destroy frees only the
 * data), so one given as features, targets or probabilities passed the shape checks and was read
 * through a NULL pointer: a crash. Each is refused by name, as a destroyed output is; a zeroed
 * (never initialised) one too, which was taken for a matrix of 0 rows. */
static void test_destroyed_input_matrices(void **state) {
    (void)state;
    const igraph_t *mol = &FX.mols[0];
    const igraph_integer_t n_mol = igraph_vcount(mol), n_karate = igraph_vcount(&FX.karate);
    igraph_matrix_t out, gone;
    igraph_vector_t v;
    igraph_vector_int_t vi;
    igraph_matrix_init(&out, 0, 0);
    igraph_vector_init(&v, 0);
    igraph_vector_int_init(&vi, 0);
    /* features of the shape the model expects (N x F), destroyed */
    igraph_matrix_init(&gone, n_mol, ag_net_feature_width(FX.gnet));
    igraph_matrix_destroy(&gone);
    expect_uninitialised(ag_net_predict_graph(FX.gnet, mol, &gone, &v), "ag_net_predict_graph", "features");
    expect_uninitialised(ag_net_featurize(FX.gnet, mol, &gone, &out, NULL), "ag_net_featurize", "features");
    expect_uninitialised(ag_net_attention(FX.gnet, mol, &gone, 0, &out, NULL, NULL), "ag_net_attention", "features");
    igraph_integer_t label = -1;
    expect_uninitialised(ag_net_classify_graph(FX.gnet, mol, &gone, &label, NULL), "ag_net_classify_graph",
                         "features");
    ag_fmat_t f;
    expect_uninitialised(ag_fmat_from_igraph(&f, &gone), "ag_fmat_from_igraph", "in");
    assert_null(f.data);
    /* targets (G x 1), destroyed, and zeroed */
    igraph_matrix_init(&gone, G_MOLS, 1);
    igraph_matrix_destroy(&gone);
    ag_net_t *net = NULL;
    ag_net_train_options_t o = tiny_options();
    expect_uninitialised(ag_net_train_graphs(&net, FX.mols, G_MOLS, &gone, NULL, NULL, &o, NULL),
                         "ag_net_train_graphs", "targets");
    assert_null(net);
    ag_scores_t sc;
    expect_uninitialised(ag_net_evaluate_graphs(FX.gnet, FX.mols, G_MOLS, &gone, NULL, &sc), "ag_net_evaluate_graphs",
                         "targets");
    igraph_matrix_t zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    expect_uninitialised(ag_net_train_graphs(&net, FX.mols, G_MOLS, &zeroed, NULL, NULL, &o, NULL),
                         "ag_net_train_graphs", "targets");
    /* node features (N x 2) in training, and probabilities (N x 2) to smooth */
    igraph_matrix_init(&gone, n_karate, 2);
    igraph_matrix_destroy(&gone);
    o.degree = 1;
    expect_uninitialised(ag_net_train_nodes(&net, &FX.karate, &gone, &FX.club, NULL, NULL, &o, NULL),
                         "ag_net_train_nodes", "features");
    assert_null(net);
    ag_smooth_config_t cfg;
    ag_smooth_config_init(&cfg);
    expect_uninitialised(ag_label_smooth(&FX.karate, &gone, &FX.club, &cfg, &out), "label smoothing", "probs");
    expect_uninitialised(ag_net_smooth_nodes(FX.gnet, &FX.karate, &gone, &FX.club, &out), "ag_net_smooth_nodes",
                         "probs");
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    expect_uninitialised(ag_net_predict_nodes(net, &FX.karate, &gone, NULL, &out), "ag_net_predict_nodes",
                         "features");
    expect_uninitialised(ag_net_evaluate_nodes(net, &FX.karate, &gone, &FX.club, NULL, &sc), "ag_net_evaluate_nodes",
                         "features");
    ag_net_destroy(net);
    igraph_matrix_destroy(&out);
    igraph_vector_destroy(&v);
    igraph_vector_int_destroy(&vi);
}

/* A graph built (or read from GML) before igraph's attribute handler was installed carries no
 * attributes at all, though the caller set or saw them: the message says so, and how to fix it. */
static void test_graph_without_attribute_handler(void **state) {
    (void)state;
    igraph_attribute_table_t *was = igraph_set_attribute_table(NULL);
    igraph_t bare;
    igraph_small(&bare, 3, IGRAPH_UNDIRECTED, 0, 1, 1, 2, -1);
    igraph_set_attribute_table(was);
    igraph_vector_t p;
    igraph_vector_init(&p, 0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &bare, NULL, &p), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "attribute 'charge' is missing"));
    assert_non_null(strstr(ag_error_message(), "igraph_set_attribute_table(&igraph_cattribute_table)"));
    /* training that names an attribute: the same hint */
    igraph_vector_int_t labels;
    igraph_vector_int_init(&labels, 3);
    VECTOR(labels)[0] = 0;
    VECTOR(labels)[1] = 1;
    VECTOR(labels)[2] = -1;
    ag_net_train_options_t o = tiny_options();
    o.vertex_attrs = "charge";
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &bare, NULL, &labels, NULL, NULL, &o, NULL), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "igraph_set_attribute_table(&igraph_cattribute_table)"));
    assert_null(net);
    /* a graph with attributes but not the model's has no such hint */
    igraph_t g;
    igraph_small(&g, 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    SETVAN(&g, "weight", 0, 1.0);
    SETVAN(&g, "weight", 1, 1.0);
    assert_int_equal(ag_net_predict_graph(FX.gnet, &g, NULL, &p), AG_EATTR);
    assert_null(strstr(ag_error_message(), "igraph_set_attribute_table"));
    igraph_destroy(&g);
    igraph_vector_int_destroy(&labels);
    igraph_vector_destroy(&p);
    igraph_destroy(&bare);
}

/* ---- attention per igraph edge */

static void test_attention_sums_to_one(void **state) {
    (void)state;
    for (int layer = 0; layer < 2; layer++) {
        const igraph_t *g = &FX.mols[3]; /* a ring: CNCC */
        igraph_matrix_t A, R, S;
        igraph_matrix_init(&A, 0, 0);
        igraph_matrix_init(&R, 0, 0);
        igraph_matrix_init(&S, 0, 0);
        assert_int_equal(ag_net_attention(FX.gnet, g, NULL, layer, &A, &R, &S), AG_SUCCESS);
        igraph_integer_t N = igraph_vcount(g), E = igraph_ecount(g);
        assert_int_equal(igraph_matrix_nrow(&A), E);
        assert_int_equal(igraph_matrix_ncol(&A), 2);
        assert_int_equal(igraph_matrix_nrow(&R), E);
        assert_int_equal(igraph_matrix_nrow(&S), N);
        for (igraph_integer_t i = 0; i < N; i++)
            for (int h = 0; h < 2; h++) {
                double s = MATRIX(S, i, h);
                for (igraph_integer_t e = 0; e < E; e++) {
                    assert_false(isnan(MATRIX(A, e, h)));
                    assert_false(isnan(MATRIX(R, e, h)));
                    igraph_integer_t from = IGRAPH_FROM(g, e), to = IGRAPH_TO(g, e);
                    if (to == i) s += MATRIX(A, e, h);
                    if (from == i) s += MATRIX(R, e, h);
                }
                assert_float_equal(s, 1.0, 1e-5);
            }
        igraph_matrix_destroy(&A);
        igraph_matrix_destroy(&R);
        igraph_matrix_destroy(&S);
    }
}

/* The same weights as the model's own mask entries (the lower-level path). */
static void test_attention_matches_model(void **state) {
    (void)state;
    const igraph_t *ig = &FX.mols[0];
    ag_bundle_t *b = ag_net_bundle(FX.gnet);
    ag_fmat_t X = {0}, E = {0}, Y = {0};
    ag_graph_t g;
    assert_int_equal(ag_bundle_featurize(b, ig, NULL, &X, &E), AG_SUCCESS);
    assert_int_equal(ag_graph_from_igraph(&g, ig), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&Y, 1, 2), AG_SUCCESS);
    ag_batch_t batch;
    ag_batch_init(&batch, &g, X.data, E.data);
    assert_int_equal(ag_model_predict_batch(b->model, &batch, Y.data), AG_SUCCESS);
    const ag_mask_t *mask = NULL;
    assert_int_equal(ag_model_attention_weights(b->model, &batch, 1, &mask, NULL), AG_SUCCESS);
    float *alpha = calloc((size_t)mask->n_entries * 2, sizeof(float));
    assert_int_equal(ag_model_attention_weights(b->model, &batch, 1, &mask, alpha), AG_SUCCESS);
    igraph_matrix_t A, R, S;
    igraph_matrix_init(&A, 0, 0);
    igraph_matrix_init(&R, 0, 0);
    igraph_matrix_init(&S, 0, 0);
    assert_int_equal(ag_net_attention(FX.gnet, ig, NULL, 1, &A, &R, &S), AG_SUCCESS);
    int checked = 0;
    for (int64_t i = 0; i < g.n_nodes; i++)
        for (int64_t k = mask->indptr[i]; k < mask->indptr[i + 1]; k++)
            for (int h = 0; h < 2; h++) {
                int64_t e = mask->edge[k];
                double want = alpha[k * 2 + h];
                igraph_integer_t to = e >= 0 ? IGRAPH_TO(ig, e) : -1;
                if (e < 0) assert_true(MATRIX(S, i, h) == want);
                else if (to == i) assert_true(MATRIX(A, e, h) == want);
                else assert_true(MATRIX(R, e, h) == want);
                checked++;
            }
    assert_int_equal(checked, mask->n_entries * 2);
    assert_int_equal(mask->n_entries, 3 + 2 * 3); /* CCO ring: 3 self-loops, 3 edges both ways */
    free(alpha);
    ag_batch_destroy(&batch);
    ag_graph_destroy(&g);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    ag_fmat_destroy(&Y);
    igraph_matrix_destroy(&A);
    igraph_matrix_destroy(&R);
    igraph_matrix_destroy(&S);
}

/* Directed graphs: one direction only; the reverse matrix is NaN. */
static void test_attention_directed(void **state) {
    (void)state;
    igraph_t g;
    igraph_small(&g, 3, IGRAPH_DIRECTED, 0, 1, 2, 1, -1);
    igraph_vector_int_t y;
    igraph_vector_int_init_int(&y, 3, 0, 1, 0);
    ag_net_train_options_t o = tiny_options();
    o.degree = 1;
    o.epochs = 2;
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &g, NULL, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    igraph_matrix_t A, R, S;
    igraph_matrix_init(&A, 0, 0);
    igraph_matrix_init(&R, 0, 0);
    igraph_matrix_init(&S, 0, 0);
    assert_int_equal(ag_net_attention(net, &g, NULL, 0, &A, &R, &S), AG_SUCCESS);
    for (int h = 0; h < 2; h++) {
        /* node 1 attends to 0, 2 and itself; nodes 0 and 2 only to themselves */
        assert_float_equal(MATRIX(A, 0, h) + MATRIX(A, 1, h) + MATRIX(S, 1, h), 1.0, 1e-5);
        assert_float_equal(MATRIX(S, 0, h), 1.0, 1e-6);
        assert_float_equal(MATRIX(S, 2, h), 1.0, 1e-6);
        assert_true(isnan(MATRIX(R, 0, h)) && isnan(MATRIX(R, 1, h)));
    }
    igraph_matrix_destroy(&A);
    igraph_matrix_destroy(&R);
    igraph_matrix_destroy(&S);
    ag_net_destroy(net);
    igraph_vector_int_destroy(&y);
    igraph_destroy(&g);
}

/* ---- graph training round trip */

static void test_graph_save_load_identical(void **state) {
    (void)state;
    char path[64];
    temp_path(path, sizeof path);
    assert_int_equal(ag_net_save(FX.gnet, path), AG_SUCCESS);
    ag_net_t *back = NULL;
    assert_int_equal(ag_net_load(&back, path), AG_SUCCESS);
    igraph_vector_t a, b;
    igraph_vector_init(&a, 0);
    igraph_vector_init(&b, 0);
    for (int g = 0; g < G_MOLS; g++) {
        assert_int_equal(ag_net_predict_graph(FX.gnet, &FX.mols[g], NULL, &a), AG_SUCCESS);
        assert_int_equal(ag_net_predict_graph(back, &FX.mols[g], NULL, &b), AG_SUCCESS);
        assert_memory_equal(VECTOR(a), VECTOR(b), 2 * sizeof(double));
    }
    ag_scores_t s1, s2;
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, FX.mols, G_MOLS, &FX.y, NULL, &s1), AG_SUCCESS);
    assert_int_equal(ag_net_evaluate_graphs(back, FX.mols, G_MOLS, &FX.y, NULL, &s2), AG_SUCCESS);
    assert_int_equal(s1.n, G_MOLS);
    assert_true(s1.accuracy == s2.accuracy && s1.loss == s2.loss);
    assert_true(s1.accuracy >= 0.0 && s1.accuracy <= 1.0);
    igraph_vector_destroy(&a);
    igraph_vector_destroy(&b);
    ag_net_destroy(back);
    unlink(path);
    /* an empty path is said as saving says it; open("") made ": cannot open: No such file ..." */
    back = (ag_net_t *)&s1;
    assert_int_equal(ag_net_load(&back, ""), AG_EINVAL);
    assert_string_equal(ag_error_message(), "model file: no path given");
    assert_null(back);
    assert_int_equal(ag_net_save(FX.gnet, ""), AG_EINVAL);
    assert_string_equal(ag_error_message(), "model file: no path given");
}

/* Each task's figure is that task's own: a multi-task net's ROC-AUC per task equals the metric of
 * its column of the predictions over the graphs where it has a label, and their mean is the
 * scores' mean; a task of one class has none. A classification net has one task, its accuracy. */
static void test_graph_task_figures(void **state) {
    (void)state;
    igraph_matrix_t y;
    igraph_matrix_init(&y, G_MOLS, 3);
    for (int g = 0; g < G_MOLS; g++) {
        MATRIX(y, g, 0) = MATRIX(FX.y, g, 0);
        MATRIX(y, g, 1) = g % 4 == 1 ? NAN : (double)(strlen(MOLS[g]) > 3);
        MATRIX(y, g, 2) = g % 5 == 0 ? NAN : 1.0;
    }
    ag_net_train_options_t o = tiny_options();
    o.task = "graph-multitask";
    ag_net_t *net = NULL;
    /* a regression target of one value on every graph: trained, and said in the result */
    igraph_matrix_t same;
    igraph_matrix_init(&same, G_MOLS, 1);
    igraph_matrix_fill(&same, 1.25);
    o.task = "graph-regression";
    ag_train_result_t res;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &same, NULL, NULL, &o, &res), AG_SUCCESS);
    assert_int_equal(res.constant_targets, 1);
    assert_int_equal(res.first_constant_target, 0);
    /* the model keeps the sizes of the graphs it trained on (all of them here), as train's do */
    const ag_bundle_t *tb = ag_net_bundle(net);
    int64_t lo = INT64_MAX, hi = 0;
    for (int g = 0; g < G_MOLS; g++) {
        const int64_t nv = igraph_vcount(&FX.mols[g]);
        lo = nv < lo ? nv : lo;
        hi = nv > hi ? nv : hi;
    }
    assert_int_equal(tb->has_sizes, 1);
    assert_int_equal(tb->size_vertices[0], lo);
    assert_int_equal(tb->size_vertices[1], hi);
    ag_net_destroy(net);
    net = NULL;
    igraph_matrix_destroy(&same);
    o.task = "graph-multitask";
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &y, NULL, NULL, &o, &res), AG_SUCCESS);
    assert_int_equal(res.constant_targets, 0); /* not regression: nothing to scale */
    ag_scores_t s;
    igraph_vector_t per, p;
    igraph_vector_init(&per, 0);
    igraph_vector_init(&p, 0);
    assert_int_equal(ag_net_evaluate_graph_tasks(net, FX.mols, G_MOLS, &y, NULL, &s, &per), AG_SUCCESS);
    assert_int_equal(igraph_vector_size(&per), 3);
    float prob[3][G_MOLS], truth[3][G_MOLS]; /* (T x G) each task's predictions and labels */
    for (int g = 0; g < G_MOLS; g++) {
        assert_int_equal(ag_net_predict_graph(net, &FX.mols[g], NULL, &p), AG_SUCCESS);
        for (int j = 0; j < 3; j++) {
            prob[j][g] = (float)VECTOR(p)[j];
            truth[j][g] = (float)MATRIX(y, g, j);
        }
    }
    for (int j = 0; j < 2; j++) {
        double auc;
        assert_int_equal(ag_metric_roc_auc(prob[j], truth[j], G_MOLS, &auc), AG_SUCCESS);
        assert_float_equal(VECTOR(per)[j], auc, 1e-12);
    }
    assert_true(isnan(VECTOR(per)[2]));
    assert_float_equal(s.roc_auc, (VECTOR(per)[0] + VECTOR(per)[1]) / 2.0, 1e-12);
    assert_int_equal(s.n, G_MOLS + 9 + 9);
    assert_int_equal(ag_net_evaluate_graph_tasks(net, FX.mols, G_MOLS, &y, NULL, &s, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "NULL per_task"));
    /* the codes api.h gives for target columns other than the model's (its doc once said
     * AG_EINVAL for both): a shape that disagrees, and several columns for one classifier */
    assert_int_equal(ag_net_evaluate_graphs(net, FX.mols, G_MOLS, &FX.y, NULL, &s), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the data have 1 target columns and the model 3");
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, FX.mols, G_MOLS, &y, NULL, &s), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "graph classification takes one target column, not 3"));
    ag_net_destroy(net);

    ag_scores_t c;
    assert_int_equal(ag_net_evaluate_graph_tasks(FX.gnet, FX.mols, G_MOLS, &FX.y, NULL, &c, &per), AG_SUCCESS);
    assert_int_equal(igraph_vector_size(&per), 1);
    assert_true(VECTOR(per)[0] == c.accuracy);
    igraph_vector_destroy(&per);
    igraph_vector_destroy(&p);
    igraph_matrix_destroy(&y);
}

/* Evaluating listed graphs reads those graphs only: their figures equal those of the same graphs
 * passed alone; a graph not listed may lack an attribute the model needs; a listed one that lacks
 * it is named by the caller's index. */
static void test_evaluate_listed_graphs_only(void **state) {
    (void)state;
    enum { K = 5 };
    static const int listed[K] = {1, 2, 5, 7, 10};
    igraph_t all[G_MOLS], alone[K];
    igraph_matrix_t y_alone;
    igraph_matrix_init(&y_alone, K, 1);
    for (int g = 0; g < G_MOLS; g++) make_mol(&all[g], MOLS[g], g % 3 == 0);
    for (int i = 0; i < K; i++) {
        make_mol(&alone[i], MOLS[listed[i]], listed[i] % 3 == 0);
        MATRIX(y_alone, i, 0) = MATRIX(FX.y, listed[i], 0);
    }
    /* graph 4, not listed, lacks the 'charge' the model reads */
    igraph_cattribute_remove_v(&all[4], "charge");
    igraph_vector_int_t idx;
    igraph_vector_int_init(&idx, K);
    for (int i = 0; i < K; i++) VECTOR(idx)[i] = listed[i];
    ag_scores_t got, want;
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, all, G_MOLS, &FX.y, &idx, &got), AG_SUCCESS);
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, alone, K, &y_alone, NULL, &want), AG_SUCCESS);
    assert_int_equal(got.n, K);
    assert_int_equal(got.n, want.n);
    assert_true(got.accuracy == want.accuracy);
    assert_true(got.loss == want.loss);
    assert_true(got.macro_f1 == want.macro_f1);
    /* listed, it is refused, and named as the caller numbers it */
    VECTOR(idx)[2] = 4;
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, all, G_MOLS, &FX.y, &idx, &got), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "graph 4"));
    assert_non_null(strstr(ag_error_message(), "'charge'"));
    /* an empty list scores nothing, as before */
    igraph_vector_int_clear(&idx);
    assert_int_equal(ag_net_evaluate_graphs(FX.gnet, FX.mols, G_MOLS, &FX.y, &idx, &got), AG_SUCCESS);
    assert_int_equal(got.n, 0);
    igraph_vector_int_destroy(&idx);
    igraph_matrix_destroy(&y_alone);
    for (int g = 0; g < G_MOLS; g++) igraph_destroy(&all[g]);
    for (int i = 0; i < K; i++) igraph_destroy(&alone[i]);
}

static void raise_after_3(const ag_epoch_log_t *log, void *user) {
    if (log->epoch == 3) *(volatile sig_atomic_t *)user = 1;
}

/* Training twice with the same seed gives the same weights; train/val index vectors are used. */
static void test_graph_train_deterministic_and_indices(void **state) {
    (void)state;
    ag_net_train_options_t o = tiny_options();
    o.epochs = 3;
    igraph_vector_int_t tr, va;
    igraph_vector_int_init_int(&tr, 8, 0, 1, 2, 3, 4, 5, 6, 7);
    igraph_vector_int_init_int(&va, 4, 8, 9, 10, 11);
    ag_net_t *a = NULL, *b = NULL;
    ag_train_result_t res;
    assert_int_equal(ag_net_train_graphs(&a, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, &res), AG_SUCCESS);
    assert_int_equal(res.epochs_run, 3);
    assert_false(isnan(res.best_val_metric));
    assert_int_equal(ag_net_train_graphs(&b, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_SUCCESS);
    const ag_param_list_t *pa = ag_model_params(ag_net_bundle(a)->model), *pb = ag_model_params(ag_net_bundle(b)->model);
    assert_int_equal(pa->count, pb->count);
    for (int64_t i = 0; i < pa->count; i++)
        assert_memory_equal(pa->items[i].value, pb->items[i].value,
                            (size_t)(pa->items[i].shape[0] * pa->items[i].shape[1]) * sizeof(float));
    ag_net_destroy(b);
    /* the stop flag, raised by the progress callback after epoch 3 of 30: the same weights */
    volatile sig_atomic_t flag = 0;
    o.epochs = 30;
    o.stop = &flag;
    o.progress = raise_after_3;
    o.progress_user = (void *)&flag;
    ag_train_result_t cut;
    assert_int_equal(ag_net_train_graphs(&b, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, &cut), AG_SUCCESS);
    assert_int_equal(cut.stopped, 1);
    assert_int_equal(cut.epochs_run, 3);
    assert_int_equal(res.stopped, 0);
    assert_int_equal(cut.best_epoch, res.best_epoch);
    pb = ag_model_params(ag_net_bundle(b)->model);
    for (int64_t i = 0; i < pa->count; i++)
        assert_memory_equal(pa->items[i].value, pb->items[i].value,
                            (size_t)(pa->items[i].shape[0] * pa->items[i].shape[1]) * sizeof(float));
    o.stop = NULL;
    o.progress = NULL;
    o.epochs = 3;
    ag_net_destroy(a);
    ag_net_destroy(b);
    /* an index out of range */
    VECTOR(va)[0] = 12;
    assert_int_equal(ag_net_train_graphs(&a, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "val: index 12"));
    assert_null(a);
    igraph_vector_int_destroy(&tr);
    igraph_vector_int_destroy(&va);
}

/* Training and validation lists are parts of a split, as the program's split files are: an item
 * twice in a list, or in both lists, is refused (it trained twice as much on the one, and chose
 * the epoch on a graph or vertex it trained on for the other: ranges 0..12 and 12..15, one off).
 * A NULL train, every item, takes val beside it as documented. */
static void test_train_val_lists_are_a_split(void **state) {
    (void)state;
    ag_net_train_options_t o = tiny_options();
    o.epochs = 1;
    igraph_vector_int_t tr, va;
    igraph_vector_int_init_range(&tr, 0, 9);
    igraph_vector_int_init_range(&va, 8, 12);
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "val: graph 8 (at position 0) is also in train (at position 8): "
                                            "validation would choose the epoch on a training graph");
    assert_null(net);
    VECTOR(tr)[8] = 3;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "train: graph 3 is listed twice (at positions 3 and 8)");
    igraph_vector_int_resize(&tr, 8);
    VECTOR(va)[3] = 9;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "val: graph 9 is listed twice (at positions 1 and 3)");
    VECTOR(va)[3] = 11;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, &tr, &va, &o, NULL), AG_SUCCESS);
    ag_net_destroy(net);
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, NULL, &va, &o, NULL), AG_SUCCESS);
    ag_net_destroy(net);
    /* vertices: the same rules */
    o.degree = 1;
    igraph_vector_int_t vtr, vva;
    igraph_vector_int_init_int(&vtr, 3, 0, 33, 1);
    igraph_vector_int_init_int(&vva, 2, 2, 33);
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, &vtr, &vva, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "val: vertex 33 (at position 1) is also in train (at position 1): "
                                            "validation would choose the epoch on a training vertex");
    assert_null(net);
    igraph_vector_t values;
    igraph_vector_init_range(&values, 0, 34);
    assert_int_equal(ag_net_train_node_values(&net, &FX.karate, NULL, &values, &vtr, &vva, &o, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "val: vertex 33 (at position 1) is also in train"));
    VECTOR(vva)[1] = 3;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, &vtr, &vva, &o, NULL), AG_SUCCESS);
    ag_net_destroy(net);
    igraph_vector_destroy(&values);
    igraph_vector_int_destroy(&vtr);
    igraph_vector_int_destroy(&vva);
    igraph_vector_int_destroy(&tr);
    igraph_vector_int_destroy(&va);
}

/* Without a preset, graph tasks train the graph preset, as `attn-graph train` does: its 8
 * random-walk columns beside the 5 attribute columns, standardised, and the graph token. */
static void test_graph_train_default_preset(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.epochs = 2;
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_n_inputs(net), 13);
    const ag_featurizer_t *f = &ag_net_bundle(net)->featurizer;
    assert_int_equal(f->rw_pe_k, 8);
    assert_int_equal(f->norm, AG_NORM_STANDARDIZE);
    const ag_model_config_t *mc = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(mc->n_blocks, 4);
    assert_int_equal(mc->blocks[0].attn.score, AG_SCORE_GATV2);
    assert_int_equal(mc->blocks[0].attn.edge_mode, AG_EDGE_BIAS);
    assert_int_equal(mc->readouts[0], AG_READOUT_VNODE);
    ag_net_destroy(net);
    /* graphs without attributes: their degree beside the random-walk columns, as the program's */
    igraph_t bare[4];
    igraph_matrix_t y;
    igraph_matrix_init(&y, 4, 1);
    for (int g = 0; g < 4; g++) {
        igraph_ring(&bare[g], 5 + g, IGRAPH_UNDIRECTED, 0, g % 2 == 0);
        MATRIX(y, g, 0) = g % 2;
    }
    assert_int_equal(ag_net_train_graphs(&net, bare, 4, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_n_inputs(net), 9);
    assert_int_equal(ag_net_bundle(net)->featurizer.degree, 1);
    ag_net_destroy(net);
    o.vertex_attrs = "none"; /* a choice: no degree then, the random-walk columns alone */
    assert_int_equal(ag_net_train_graphs(&net, bare, 4, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_n_inputs(net), 8);
    ag_net_destroy(net);
    for (int g = 0; g < 4; g++) igraph_destroy(&bare[g]);
    igraph_matrix_destroy(&y);
}

static void test_graph_train_errors(void **state) {
    (void)state;
    ag_net_t *net = NULL;
    ag_net_train_options_t o = tiny_options();
    o.mask = "everything";
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "option mask: unknown value 'everything' (expected neighbours, khop or full)");
    o = tiny_options();
    o.task = "node-classification";
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &FX.y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "is not a graph task"));
    /* no array and no count are two mistakes, each said as it is */
    assert_int_equal(ag_net_train_graphs(&net, NULL, 3, &FX.y, NULL, NULL, NULL, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_net_train_graphs: NULL graphs array (n_graphs 3)");
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, 0, &FX.y, NULL, NULL, NULL, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_net_train_graphs: no graphs (n_graphs 0)");
    igraph_matrix_t y;
    igraph_matrix_init(&y, 5, 1);
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &y, NULL, NULL, NULL, NULL), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "the targets matrix has 5 rows for 12 graphs");
    igraph_matrix_destroy(&y);
    /* the doc's "fewer than 2 classes": 0 in every graph, then no value at all */
    igraph_matrix_init(&y, G_MOLS, 1);
    o = tiny_options();
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "target 'target' has fewer than 2 classes: every graph with a value has 0");
    igraph_matrix_fill(&y, NAN);
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "target 'target' has no value in any graph");
    assert_null(net);
    /* finite as a double, infinite as the float32 targets are held: refused by place, not scaled
     * to "mean inf" or dropped */
    for (int g = 0; g < G_MOLS; g++) MATRIX(y, g, 0) = g + 0.5;
    MATRIX(y, 3, 0) = 1e39;
    assert_int_equal(ag_net_train_graphs(&net, FX.mols, G_MOLS, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "targets: row 3, column 0 is 1e+39, beyond the float32 range "
                                            "(3.40282e+38) targets are held in; rescale the column (NaN marks a "
                                            "missing target)");
    assert_null(net);
    igraph_matrix_destroy(&y);
    /* a graph without vertices among the training graphs */
    {
        igraph_t two[2];
        make_mol(&two[0], "CCO", 0);
        igraph_empty(&two[1], 0, IGRAPH_UNDIRECTED);
        igraph_matrix_t y2;
        igraph_matrix_init(&y2, 2, 1);
        MATRIX(y2, 1, 0) = 1;
        assert_int_equal(ag_net_train_graphs(&net, two, 2, &y2, NULL, NULL, &o, NULL), AG_EVALUE);
        assert_string_equal(ag_error_message(), "graph 1 has no vertices");
        assert_null(net);
        igraph_matrix_destroy(&y2);
        igraph_destroy(&two[0]);
        igraph_destroy(&two[1]);
    }
    /* a graph without the attribute the others have is reported by index */
    igraph_t mols[2];
    make_mol(&mols[0], "CCO", 0);
    igraph_small(&mols[1], 2, IGRAPH_UNDIRECTED, 0, 1, -1);
    igraph_matrix_init(&y, 2, 1);
    MATRIX(y, 1, 0) = 1;
    o = tiny_options();
    o.vertex_attrs = "element";
    assert_int_equal(ag_net_train_graphs(&net, mols, 2, &y, NULL, NULL, &o, NULL), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "element"));
    assert_null(net);
    igraph_matrix_destroy(&y);
    igraph_destroy(&mols[0]);
    igraph_destroy(&mols[1]);
}

/* ---- node tasks on Zachary's karate club */

/* (34 x 2) features: degree and a constant column. */
static void karate_features(igraph_matrix_t *m) {
    igraph_vector_int_t deg;
    igraph_vector_int_init(&deg, 0);
    igraph_degree(&FX.karate, &deg, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS);
    igraph_matrix_init(m, 34, 2);
    for (int i = 0; i < 34; i++) {
        MATRIX(*m, i, 0) = (double)VECTOR(deg)[i];
        MATRIX(*m, i, 1) = 1.0;
    }
    igraph_vector_int_destroy(&deg);
}

/* A NaN or out-of-range value of the feature matrix given to training is refused naming the
 * matrix, as prediction names it: "matrix value at row 4, column 1 is NaN" alone did not say which
 * of the caller's inputs (features, labels, values) held it. */
static void test_nodes_features_nan_named(void **state) {
    (void)state;
    igraph_matrix_t F;
    karate_features(&F);
    MATRIX(F, 4, 1) = NAN;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.epochs = 1;
    o.threads = 1;
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_null(net);
    assert_string_equal(ag_error_message(), "feature matrix: matrix value at row 4, column 1 is NaN");
    igraph_vector_t y;
    igraph_vector_init(&y, 34);
    for (int v = 0; v < 34; v++) VECTOR(y)[v] = v;
    MATRIX(F, 4, 1) = -1e300;
    assert_int_equal(ag_net_train_node_values(&net, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_null(net);
    assert_string_equal(ag_error_message(),
                        "feature matrix: matrix value at row 4, column 1 (-1e+300) is out of float32 range");
    igraph_vector_destroy(&y);
    igraph_matrix_destroy(&F);
}

/* A NULL preset is chosen as the CLI chooses it: the gat preset for node classification on a
 * feature matrix within [-1, 1], the transformer on raw numbers and on structure only. */
static void test_nodes_default_preset(void **state) {
    (void)state;
    igraph_matrix_t F;
    karate_features(&F);
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.vertex_attrs = o.edge_attrs = "none";
    o.epochs = 2;
    o.threads = 1;
    ag_net_t *net = NULL;
    /* raw degrees (up to 17): standardised (the constant column of 1s left as it is), and the
     * transformer, whose blocks normalise */
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    const ag_model_config_t *c = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(c->n_blocks, 3);
    assert_int_equal(c->blocks[0].attn.score, AG_SCORE_DOT);
    const ag_table_norm_t *tn = &ag_net_bundle(net)->table;
    assert_int_equal(tn->norm, AG_NORM_STANDARDIZE);
    assert_float_equal(tn->mean[0], 156.0 / 34.0, 1e-5); /* 78 edges */
    assert_float_equal(tn->mean[1], 0.0, 0.0);
    assert_float_equal(tn->std[1], 1.0, 0.0);
    ag_net_destroy(net);
    /* kept raw when asked: the transformer still */
    o.normalize = "none";
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_bundle(net)->table.norm, AG_NORM_NONE);
    assert_int_equal(ag_model_config(ag_net_bundle(net)->model)->blocks[0].attn.score, AG_SCORE_DOT);
    ag_net_destroy(net);
    o.normalize = "nope";
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "option normalize: unknown value 'nope' (expected none, standard, "
                                               "l1 or auto)"));
    /* rows normalised to sum 1: the gat preset */
    o.normalize = "l1";
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    c = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(c->n_blocks, 2);
    assert_int_equal(c->blocks[0].attn.score, AG_SCORE_GAT);
    assert_int_equal(c->blocks[0].attn.heads, 8);
    ag_net_destroy(net);
    o.degree = 1;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    c = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(c->n_blocks, 3);
    assert_int_equal(c->blocks[0].attn.score, AG_SCORE_DOT);
    ag_net_destroy(net);
    /* an edge attribute: the gat preset has no edge term, so it is left out; the transformer reads it */
    igraph_t g;
    igraph_copy(&g, &FX.karate);
    for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) SETEAN(&g, "w", e, 1.0 + (double)(e % 3));
    o.degree = 0;
    o.edge_attrs = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &g, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    c = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(c->blocks[0].attn.score, AG_SCORE_GAT);
    assert_int_equal(c->edge_dim, 0);
    assert_int_equal(ag_net_bundle(net)->featurizer.n_edge_features, 0);
    ag_net_destroy(net);
    o.preset = "transformer";
    assert_int_equal(ag_net_train_nodes(&net, &g, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    c = ag_model_config(ag_net_bundle(net)->model);
    assert_int_equal(c->edge_dim, 1);
    assert_int_equal(c->blocks[0].attn.edge_mode, AG_EDGE_KEY);
    ag_net_destroy(net);
    /* what attn-graph's explain writes is no feature, as in attn-graph train: the edges still
     * give one column (w) */
    for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) SETEAN(&g, "attnL0H0Fwd", e, 0.5);
    assert_int_equal(ag_net_train_nodes(&net, &g, &F, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_bundle(net)->featurizer.n_edge_features, 1);
    assert_string_equal(ag_net_bundle(net)->featurizer.eattrs[0].name, "w");
    ag_net_destroy(net);
    const char *const *own;
    assert_int_equal(ag_featurizer_output_patterns(&own), 6);
    assert_string_equal(own[0], "pred");
    igraph_destroy(&g);
    igraph_matrix_destroy(&F);
}

/* net saved to a temporary file and loaded back: a new handle. */
static ag_net_t *reload(const ag_net_t *net) {
    char path[64];
    temp_path(path, sizeof path);
    assert_int_equal(ag_net_save(net, path), AG_SUCCESS);
    ag_net_t *back = NULL;
    assert_int_equal(ag_net_load(&back, path), AG_SUCCESS);
    unlink(path);
    return back;
}

/* A node model trained from C names no label attribute (its labels came as a vector), so stored
 * Correct and Smooth weights had no known classes to propagate in `attn-graph label`:
 * ag_bundle_set_label_attr names one, kept by the file; graph models have none to name. */
static void test_bundle_label_attr(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.vertex_attrs = o.edge_attrs = "none";
    o.degree = 1;
    o.epochs = 1;
    o.threads = 1;
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    ag_bundle_t *b = ag_net_bundle(net);
    assert_null(b->label_attr);
    assert_int_equal(ag_bundle_set_label_attr(b, "club"), AG_SUCCESS);
    assert_string_equal(b->label_attr, "club");
    ag_net_t *back = reload(net);
    assert_string_equal(ag_net_bundle(back)->label_attr, "club");
    ag_net_destroy(back);
    assert_int_equal(ag_bundle_set_label_attr(b, NULL), AG_SUCCESS);
    assert_null(b->label_attr);
    ag_net_destroy(net);
    assert_int_equal(ag_bundle_set_label_attr(NULL, "club"), AG_EINVAL);
    assert_int_equal(ag_bundle_set_label_attr(ag_net_bundle(FX.gnet), "club"), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "a graph-level model reads its targets from a table"));
}

/* Saves net, loads it back and checks that it predicts P on Karate with features F, bit for bit;
 * returns the loaded handle. */
static ag_net_t *reload_same_nodes(ag_net_t *net, const igraph_matrix_t *F, const igraph_matrix_t *P) {
    ag_net_t *back = reload(net);
    igraph_matrix_t P2;
    igraph_matrix_init(&P2, 0, 0);
    assert_int_equal(ag_net_predict_nodes(back, &FX.karate, F, NULL, &P2), AG_SUCCESS);
    assert_int_equal(igraph_matrix_size(&P2), igraph_matrix_size(P));
    assert_memory_equal(&MATRIX(*P, 0, 0), &MATRIX(P2, 0, 0), (size_t)igraph_matrix_size(P) * sizeof(double));
    igraph_matrix_destroy(&P2);
    return back;
}

static void test_nodes_with_features_round_trip(void **state) {
    (void)state;
    igraph_matrix_t F;
    karate_features(&F);
    ag_net_train_options_t o = tiny_options();
    o.normalize = "standard";
    o.vertex_attrs = "none";
    ag_net_t *net = NULL;
    igraph_vector_int_t val;
    igraph_vector_int_init_int(&val, 4, 2, 9, 20, 31);
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, &F, &FX.club, NULL, &val, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_task(net), AG_TASK_NODE_CLASSIFICATION);
    assert_int_equal(ag_net_feature_width(net), 2);
    igraph_vector_int_t lab;
    igraph_matrix_t P;
    igraph_vector_int_init(&lab, 0);
    igraph_matrix_init(&P, 0, 0);
    assert_int_equal(ag_net_predict_nodes(net, &FX.karate, &F, &lab, &P), AG_SUCCESS);
    assert_int_equal(igraph_vector_int_size(&lab), 34);
    assert_int_equal(igraph_matrix_nrow(&P), 34);
    assert_int_equal(igraph_matrix_ncol(&P), 2);
    /* the bundle path with the same matrix as node table */
    ag_fmat_t T = {0}, ref = {0};
    assert_int_equal(ag_fmat_from_igraph(&T, &F), AG_SUCCESS);
    assert_int_equal(ag_bundle_predict_graph(ag_net_bundle(net), &FX.karate, &T, &ref), AG_SUCCESS);
    for (int i = 0; i < 34; i++) {
        assert_true(MATRIX(P, i, 0) == (double)ref.data[2 * i] && MATRIX(P, i, 1) == (double)ref.data[2 * i + 1]);
        assert_int_equal(VECTOR(lab)[i], ref.data[2 * i + 1] > ref.data[2 * i] ? 1 : 0);
    }
    /* X: the matrix standardised as in training (degree, a constant column), named by position;
     * no edge features */
    igraph_matrix_t X, E;
    igraph_strvector_t xn;
    igraph_matrix_init(&X, 0, 0);
    igraph_matrix_init(&E, 0, 0);
    igraph_strvector_init(&xn, 0);
    assert_int_equal(ag_net_featurize(net, &FX.karate, &F, &X, &E), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&X), 34);
    assert_int_equal(igraph_matrix_ncol(&X), 2);
    assert_int_equal(igraph_matrix_nrow(&E), 78);
    assert_int_equal(igraph_matrix_ncol(&E), 0);
    double mean = 0.0;
    for (int i = 0; i < 34; i++) {
        mean += MATRIX(X, i, 0) / 34;
        assert_true(MATRIX(X, i, 1) == 0.0); /* (1 - 1) / 1: a constant column gets std 1 */
    }
    assert_float_equal(mean, 0.0, 1e-6);
    assert_true(MATRIX(X, 33, 0) > MATRIX(X, 11, 0)); /* degree 17 against 1 */
    assert_int_equal(ag_net_feature_names(net, &xn, NULL), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&xn), 2);
    assert_string_equal(igraph_strvector_get(&xn, 0), "features.1");
    assert_string_equal(igraph_strvector_get(&xn, 1), "features.2");
    assert_int_equal(ag_net_featurize(net, &FX.karate, NULL, &X, &E), AG_EMISMATCH);
    igraph_strvector_destroy(&xn);
    igraph_matrix_destroy(&X);
    igraph_matrix_destroy(&E);
    ag_net_t *back = reload_same_nodes(net, &F, &P);
    ag_scores_t s;
    assert_int_equal(ag_net_evaluate_nodes(back, &FX.karate, &F, &FX.club, NULL, &s), AG_SUCCESS);
    assert_int_equal(s.n, 34);
    int correct = 0;
    for (int i = 0; i < 34; i++) correct += VECTOR(lab)[i] == VECTOR(FX.club)[i];
    assert_float_equal(s.accuracy, correct / 34.0, 1e-9);
    /* the model needs its feature matrix */
    assert_int_equal(ag_net_predict_nodes(back, &FX.karate, NULL, &lab, NULL), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "trained with a feature matrix of 2 columns"));
    igraph_matrix_resize(&F, 34, 3);
    assert_int_equal(ag_net_predict_nodes(back, &FX.karate, &F, &lab, NULL), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "has 3 columns; the model expects 2"));
    ag_fmat_destroy(&T);
    ag_fmat_destroy(&ref);
    ag_net_destroy(back);
    ag_net_destroy(net);
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&F);
    igraph_vector_int_destroy(&lab);
    igraph_vector_int_destroy(&val);
}

static void test_nodes_errors(void **state) {
    (void)state;
    ag_net_t *net = NULL;
    ag_net_train_options_t o = tiny_options();
    o.degree = 1;
    igraph_vector_int_t y;
    igraph_vector_int_init(&y, 34);
    igraph_vector_int_fill(&y, -1);
    /* a NULL graph, as every failure, leaves *net NULL (a stale handle would be freed twice) */
    net = (ag_net_t *)&o;
    assert_int_equal(ag_net_train_nodes(&net, NULL, NULL, &y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_net_train_nodes: NULL graph");
    assert_null(net);
    net = (ag_net_t *)&o;
    assert_int_equal(ag_net_train_node_values(&net, NULL, NULL, NULL, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_null(net);
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "no vertex is labelled (every label is -1)");
    VECTOR(y)[0] = 0;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "at least 2"));
    /* one class present, though not class 0: C = 3 by the largest id, yet a constant classifier
     * (it trained and predicted class 2 everywhere) */
    VECTOR(y)[0] = 2;
    VECTOR(y)[7] = 2;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "ag_net_train_nodes: every labelled vertex has class 2; a classifier "
                                            "needs at least 2 classes among the labels");
    assert_null(net);
    VECTOR(y)[0] = 0;
    VECTOR(y)[7] = -1;
    VECTOR(y)[5] = -2;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "label of vertex 5 is -2"));
    igraph_vector_int_resize(&y, 10);
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "10 entries; the graph has 34"));
    /* training vertices that are all unlabelled */
    igraph_vector_int_t tr;
    igraph_vector_int_init_int(&tr, 2, 1, 2);
    igraph_vector_int_resize(&y, 34);
    igraph_vector_int_fill(&y, -1);
    VECTOR(y)[0] = 0;
    VECTOR(y)[33] = 1;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, &tr, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "none of the 2 training vertices is labelled"));
    /* no input column at all (no attributes on Zachary, none asked for, no degree, no features) */
    o.degree = 0;
    o.vertex_attrs = "none";
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "no feature columns"));
    assert_null(net);
    /* as the program: the degree and 16 Laplacian columns, or the degree alone with lap_pe 0 */
    o.vertex_attrs = NULL;
    o.epochs = 1;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_feature_width(net), 1 + AG_FEATURELESS_LAP_PE);
    ag_net_destroy(net);
    o.lap_pe = 0;
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_feature_width(net), 1);
    ag_net_destroy(net);
    o.lap_pe = -1;
    o.epochs = 8;
    /* a model from degree only takes a replacing (N x 1) matrix */
    o.degree = 1;
    o.vertex_attrs = "none";
    assert_int_equal(ag_net_train_nodes(&net, &FX.karate, NULL, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    igraph_matrix_t M, P1, P2;
    igraph_matrix_init(&M, 34, 1);
    ag_fmat_t X = {0}, E = {0};
    assert_int_equal(ag_bundle_featurize(ag_net_bundle(net), &FX.karate, NULL, &X, &E), AG_SUCCESS);
    for (int i = 0; i < 34; i++) MATRIX(M, i, 0) = X.data[i];
    igraph_matrix_init(&P1, 0, 0);
    igraph_matrix_init(&P2, 0, 0);
    assert_int_equal(ag_net_predict_nodes(net, &FX.karate, NULL, NULL, &P1), AG_SUCCESS);
    assert_int_equal(ag_net_predict_nodes(net, &FX.karate, &M, NULL, &P2), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&P1, &P2));
    igraph_vector_t gv;
    igraph_vector_init(&gv, 0);
    assert_int_equal(ag_net_predict_graph(net, &FX.karate, NULL, &gv), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "use ag_net_predict_nodes"));
    igraph_vector_destroy(&gv);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    igraph_matrix_destroy(&M);
    igraph_matrix_destroy(&P1);
    igraph_matrix_destroy(&P2);
    ag_net_destroy(net);
    igraph_vector_int_destroy(&tr);
    igraph_vector_int_destroy(&y);
}

/* Node regression from C: values 10 + 3 x degree on Zachary's club, half of them trained on, the
 * degree as the feature matrix. The model predicts in the values' units; evaluate's RMSE and MAE
 * are those of the predictions; a saved model predicts the same bits; every refusal names its
 * cause. */
static void test_node_values(void **state) {
    (void)state;
    igraph_matrix_t F;
    karate_features(&F);
    igraph_vector_t y;
    igraph_vector_init(&y, 34);
    double mean = 0.0, sd = 0.0;
    /* the degree, and a little the vertex's parity: an exact linear copy of a feature column would
     * be refused as the target in another unit */
    for (int i = 0; i < 34; i++) mean += (VECTOR(y)[i] = 10.0 + 3.0 * MATRIX(F, i, 0) + (i % 2 ? 0.5 : -0.5)) / 34.0;
    for (int i = 0; i < 34; i++) sd += (VECTOR(y)[i] - mean) * (VECTOR(y)[i] - mean) / 34.0;
    sd = sqrt(sd);
    igraph_vector_int_t tr, va;
    igraph_vector_int_init(&tr, 0);
    igraph_vector_int_init(&va, 0);
    for (int i = 0; i < 34; i++) igraph_vector_int_push_back(i % 2 ? &va : &tr, i);
    ag_net_train_options_t o = tiny_options();
    o.vertex_attrs = "none";
    o.layers = 1;
    o.epochs = 150;
    o.lr = 0.01;
    o.dropout = 0.0;
    ag_net_t *net = NULL;
    ag_train_result_t res;
    if (ag_net_train_node_values(&net, &FX.karate, &F, &y, &tr, &va, &o, &res) != AG_SUCCESS)
        fail_msg("%s", ag_error_message());
    assert_int_equal(ag_net_task(net), AG_TASK_NODE_REGRESSION);
    assert_int_equal(ag_net_n_outputs(net), 1);
    assert_string_equal(ag_net_output_name(net, 0), "target");
    igraph_matrix_t P;
    igraph_matrix_init(&P, 0, 0);
    igraph_vector_int_t lab;
    igraph_vector_int_init(&lab, 0);
    assert_int_equal(ag_net_predict_nodes(net, &FX.karate, &F, &lab, &P), AG_EINVAL);
    assert_int_equal(ag_net_predict_nodes(net, &FX.karate, &F, NULL, &P), AG_SUCCESS);
    assert_int_equal(igraph_matrix_nrow(&P), 34);
    assert_int_equal(igraph_matrix_ncol(&P), 1);
    /* the validation vertices, never trained on: well below the spread of the values */
    double se = 0.0, ae = 0.0;
    for (int k = 0; k < 17; k++) {
        int v = (int)VECTOR(va)[k];
        se += (MATRIX(P, v, 0) - VECTOR(y)[v]) * (MATRIX(P, v, 0) - VECTOR(y)[v]);
        ae += fabs(MATRIX(P, v, 0) - VECTOR(y)[v]);
    }
    double rmse = sqrt(se / 17.0);
    if (!(rmse < 0.3 * sd)) fail_msg("validation rmse %g against the values' std %g", rmse, sd);
    ag_scores_t sc;
    assert_int_equal(ag_net_evaluate_node_values(net, &FX.karate, &F, &y, &va, &sc), AG_SUCCESS);
    assert_int_equal(sc.n, 17);
    assert_float_equal(sc.rmse, rmse, 1e-4 * sd);
    assert_float_equal(sc.mae, ae / 17.0, 1e-4 * sd);
    assert_true(isnan(sc.accuracy));
    /* NaN: unlabelled, not counted; idx NULL: every vertex with a value */
    VECTOR(y)[0] = NAN;
    assert_int_equal(ag_net_evaluate_node_values(net, &FX.karate, &F, &y, NULL, &sc), AG_SUCCESS);
    assert_int_equal(sc.n, 33);
    ag_net_t *back = reload_same_nodes(net, &F, &P);
    /* refusals */
    ag_net_t *bad = NULL;
    VECTOR(y)[5] = INFINITY;
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "vertex 5: the value is inf, outside the float32 range (3.40282e+38) "
                                                "targets are held in; rescale the values"));
    VECTOR(y)[5] = 1e300;
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_int_equal(ag_net_evaluate_node_values(net, &FX.karate, &F, &y, NULL, &sc), AG_EVALUE);
    igraph_vector_fill(&y, NAN);
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "no vertex has a value (every value is NaN)");
    VECTOR(y)[3] = 1.0;
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, &tr, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "none of the 17 training vertices has a value"));
    igraph_vector_resize(&y, 30);
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "30 entries; the graph has 34"));
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, NULL, NULL, NULL, &o, NULL), AG_EINVAL);
    igraph_vector_resize(&y, 34);
    igraph_vector_fill(&y, 2.5);
    o.task = "node-classification";
    assert_int_equal(ag_net_train_node_values(&bad, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "option task: one graph with node values trains node-regression, not node-classification");
    assert_null(bad);
    /* the evaluation of each kind refuses the other kind of model */
    assert_int_equal(ag_net_evaluate_nodes(net, &FX.karate, &F, &FX.club, NULL, &sc), AG_EINVAL);
    o = tiny_options();
    o.degree = 1;
    assert_int_equal(ag_net_train_nodes(&bad, &FX.karate, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_evaluate_node_values(bad, &FX.karate, NULL, &y, NULL, &sc), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "is node-classification, not node-regression"));
    ag_net_destroy(bad);
    ag_net_destroy(back);
    ag_net_destroy(net);
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&F);
    igraph_vector_int_destroy(&lab);
    igraph_vector_int_destroy(&tr);
    igraph_vector_int_destroy(&va);
    igraph_vector_destroy(&y);
}

/* Targets handed in as an attribute too (the natural igraph pattern: SETVAN, then the same numbers
 * as values or labels) are not features: an exact copy of the values, or an attribute mirroring
 * the labels one-to-one, is left out. Values float32 cannot tell apart are refused; a tiny spread
 * is still a scale; a bad huber and an empty graph are refused by name. */
/* Two handles of one setting, seeds apart, merged: an ensemble predicting the mean of their values
 * (node regression, whose outputs are the members' means), saved and read back bit for bit, its
 * attention its first member's, exactly; a handle of another setting is refused and left usable;
 * a handle cannot join itself. */
static void test_net_merge(void **state) {
    (void)state;
    igraph_matrix_t F;
    karate_features(&F);
    igraph_vector_t y;
    igraph_vector_init(&y, 34);
    for (int i = 0; i < 34; i++) VECTOR(y)[i] = 1.0 + 2.0 * MATRIX(F, i, 0) + (i % 2 ? 0.5 : -0.5);
    ag_net_train_options_t o = tiny_options();
    o.vertex_attrs = "none";
    o.epochs = 3;
    ag_net_t *a = NULL, *b = NULL, *c = NULL;
    /* a feature column that is the values in another unit: refused, as the program refuses such a
     * node-table column */
    igraph_matrix_t cents;
    igraph_matrix_init_copy(&cents, &F);
    for (int i = 0; i < 34; i++) MATRIX(cents, i, 1) = 100.0 * VECTOR(y)[i] + 3.0;
    assert_int_equal(ag_net_train_node_values(&a, &FX.karate, &cents, &y, NULL, NULL, &o, NULL), AG_EATTR);
    assert_string_equal(ag_error_message(), "node-table column 2 (of 2) copies the target (the same values, or the "
                                            "same in another unit, on the vertices with one) and cannot be a "
                                            "feature: the model would read its answer from it; remove it from the "
                                            "table");
    assert_null(a);
    igraph_matrix_destroy(&cents);
    assert_int_equal(ag_net_train_node_values(&a, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    o.seed = 8;
    assert_int_equal(ag_net_train_node_values(&b, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    o.hidden = 16;
    assert_int_equal(ag_net_train_node_values(&c, &FX.karate, &F, &y, NULL, NULL, &o, NULL), AG_SUCCESS);
    igraph_matrix_t Pa, Pb, P;
    igraph_matrix_init(&Pa, 0, 0);
    igraph_matrix_init(&Pb, 0, 0);
    igraph_matrix_init(&P, 0, 0);
    assert_int_equal(ag_net_predict_nodes(a, &FX.karate, &F, NULL, &Pa), AG_SUCCESS);
    assert_int_equal(ag_net_predict_nodes(b, &FX.karate, &F, NULL, &Pb), AG_SUCCESS);
    igraph_matrix_t A[2], R[2], S[2], B; /* [0] of a alone, [1] of the ensemble; B: b's own */
    for (int k = 0; k < 2; k++) {
        igraph_matrix_init(&A[k], 0, 0);
        igraph_matrix_init(&R[k], 0, 0);
        igraph_matrix_init(&S[k], 0, 0);
    }
    igraph_matrix_init(&B, 0, 0);
    assert_int_equal(ag_net_attention(a, &FX.karate, &F, 1, &A[0], &R[0], &S[0]), AG_SUCCESS);
    assert_int_equal(ag_net_attention(b, &FX.karate, &F, 1, &B, NULL, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_merge(a, &a), AG_EINVAL);
    assert_int_equal(ag_net_merge(a, NULL), AG_EINVAL);
    assert_int_equal(ag_net_merge(a, &c), AG_EMISMATCH);
    assert_non_null(c);
    assert_int_equal(ag_net_predict_nodes(c, &FX.karate, &F, NULL, &P), AG_SUCCESS);
    assert_int_equal(ag_net_merge(a, &b), AG_SUCCESS);
    assert_null(b);
    assert_int_equal(ag_net_bundle(a)->n_members, 2);
    assert_int_equal(ag_net_predict_nodes(a, &FX.karate, &F, NULL, &P), AG_SUCCESS);
    int differ = 0;
    for (int i = 0; i < 34; i++) {
        const double want = 0.5 * (MATRIX(Pa, i, 0) + MATRIX(Pb, i, 0));
        assert_true(fabs(MATRIX(P, i, 0) - want) <= 1e-5 * (1.0 + fabs(want)));
        differ += MATRIX(Pa, i, 0) != MATRIX(Pb, i, 0);
    }
    assert_true(differ > 0); /* the seeds gave two models, so the mean is not either one */
    assert_int_equal(ag_net_attention(a, &FX.karate, &F, 1, &A[1], &R[1], &S[1]), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&A[1], &A[0]));
    assert_true(igraph_matrix_all_e(&R[1], &R[0]));
    assert_true(igraph_matrix_all_e(&S[1], &S[0]));
    assert_false(igraph_matrix_all_e(&A[1], &B)); /* the members' weights differ: the first one's are told apart */
    /* after the attention pass the ensemble still predicts the mean */
    assert_int_equal(ag_net_predict_nodes(a, &FX.karate, &F, NULL, &Pb), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&Pb, &P));
    for (int k = 0; k < 2; k++) {
        igraph_matrix_destroy(&A[k]);
        igraph_matrix_destroy(&R[k]);
        igraph_matrix_destroy(&S[k]);
    }
    igraph_matrix_destroy(&B);
    /* scored on a vertex without a value: nothing to score, every figure NaN (the loss was 0) */
    igraph_vector_int_t one;
    igraph_vector_int_init(&one, 1);
    VECTOR(one)[0] = 5;
    VECTOR(y)[5] = NAN;
    ag_scores_t sc;
    assert_int_equal(ag_net_evaluate_node_values(a, &FX.karate, &F, &y, &one, &sc), AG_SUCCESS);
    assert_int_equal(sc.n, 0);
    assert_true(isnan(sc.loss) && isnan(sc.rmse) && isnan(sc.mae));
    igraph_vector_int_destroy(&one);
    ag_net_destroy(reload_same_nodes(a, &F, &P));
    ag_net_destroy(a);
    ag_net_destroy(c);
    igraph_matrix_destroy(&Pa);
    igraph_matrix_destroy(&Pb);
    igraph_matrix_destroy(&P);
    igraph_vector_destroy(&y);
    igraph_matrix_destroy(&F);
}

static void test_node_targets_edges(void **state) {
    (void)state;
    igraph_t g;
    igraph_famous(&g, "Zachary");
    igraph_vector_t y;
    igraph_vector_init(&y, 34);
    for (int v = 0; v < 34; v++) {
        igraph_integer_t d;
        igraph_degree_1(&g, &d, v, IGRAPH_ALL, IGRAPH_LOOPS);
        VECTOR(y)[v] = (double)(d * d);
        SETVAN(&g, "deg", v, (double)d);
        SETVAN(&g, "copy", v, VECTOR(y)[v]);
        SETVAN(&g, "cents", v, 100.0 * VECTOR(y)[v] + 3.0); /* another unit and origin */
        SETVAN(&g, "cls", v, (double)VECTOR(FX.club)[v]);
        SETVAS(&g, "cname", v, VECTOR(FX.club)[v] ? "Officer" : "Mr Hi");
    }
    VECTOR(y)[5] = NAN; /* a copy may hold its own value where the target has none */
    SETVAN(&g, "copy", 5, 99.0);
    ag_net_train_options_t o = tiny_options();
    o.epochs = 2;
    ag_net_t *net = NULL;
    igraph_strvector_t va;
    igraph_strvector_init(&va, 0);
    if (ag_net_train_node_values(&net, &g, NULL, &y, NULL, NULL, &o, NULL) != AG_SUCCESS)
        fail_msg("%s", ag_error_message());
    assert_int_equal(ag_net_input_attrs(net, &va, NULL), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&va), 3); /* cls, cname, deg: not copy or cents */
    assert_string_equal(igraph_strvector_get(&va, 0), "cls");
    assert_string_equal(igraph_strvector_get(&va, 1), "cname");
    assert_string_equal(igraph_strvector_get(&va, 2), "deg");
    ag_net_destroy(net);
    /* classification: cls (the same numbers) and cname (one name per class) mirror the labels */
    assert_int_equal(ag_net_train_nodes(&net, &g, NULL, &FX.club, NULL, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_input_attrs(net, &va, NULL), AG_SUCCESS);
    assert_int_equal(igraph_strvector_size(&va), 3);
    assert_string_equal(igraph_strvector_get(&va, 0), "cents");
    assert_string_equal(igraph_strvector_get(&va, 1), "copy");
    assert_string_equal(igraph_strvector_get(&va, 2), "deg");
    ag_net_destroy(net);
    /* named explicitly, a copy is refused (as the program's --vertex-attrs): neither dropped from
     * what was asked for nor handed to the model as its answer */
    o.vertex_attrs = "copy";
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &y, NULL, NULL, &o, NULL), AG_EATTR);
    assert_null(net);
    assert_non_null(strstr(ag_error_message(), "vertex attribute 'copy' copies the target"));
    o.vertex_attrs = "deg,cname";
    assert_int_equal(ag_net_train_nodes(&net, &g, NULL, &FX.club, NULL, NULL, &o, NULL), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "vertex attribute 'cname' mirrors the labels"));
    o.vertex_attrs = "deg";
    /* 1e9 + a few: float32 steps of 64 there, so refused with the remedy; 1e9 + 0, 1 or 2 round
     * to one float32, which training took for a constant target (a QA pass) */
    igraph_vector_t big;
    igraph_vector_init(&big, 34);
    for (int v = 0; v < 34; v++) VECTOR(big)[v] = 1e9 + v % 3;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &big, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "the values vector: its values differ by 0.822 (standard deviation) "));
    assert_non_null(strstr(ag_error_message(), "around 1e+09, below what float32 (about 7 significant digits, which the model "
                                             "computes in) tells apart at that size; subtract an offset first (such as "
                                             "1e+09)"));
    assert_null(net);
    /* a spread of 1e-14 is a scale like any other: predictions in the values' units */
    for (int v = 0; v < 34; v++) VECTOR(big)[v] = 1e-14 * VECTOR(y)[v == 5 ? 4 : v];
    o.epochs = 100;
    o.lr = 0.01;
    o.layers = 1;
    o.dropout = 0.0;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &big, NULL, NULL, &o, NULL), AG_SUCCESS);
    ag_scores_t sc;
    assert_int_equal(ag_net_evaluate_node_values(net, &g, NULL, &big, NULL, &sc), AG_SUCCESS);
    double mean = 0.0, sd = 0.0;
    for (int v = 0; v < 34; v++) mean += VECTOR(big)[v] / 34.0;
    for (int v = 0; v < 34; v++) sd += (VECTOR(big)[v] - mean) * (VECTOR(big)[v] - mean) / 34.0;
    sd = sqrt(sd);
    if (!(sc.rmse < 0.3 * sd)) fail_msg("rmse %g against the values' std %g", sc.rmse, sd);
    /* the evaluation of graphs points to the node functions */
    igraph_matrix_t t1;
    igraph_matrix_init(&t1, 1, 1);
    assert_int_equal(ag_net_evaluate_graphs(net, &g, 1, &t1, NULL, &sc), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "use ag_net_evaluate_node_values"));
    igraph_matrix_destroy(&t1);
    ag_net_destroy(net);
    net = NULL;
    o.huber = -1;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &y, NULL, NULL, &o, NULL), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "option huber: 0 (the default: mean squared error) or a number in [1e-06, 1e+06], not -1");
    o.huber = NAN;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &y, NULL, NULL, &o, NULL), AG_EINVAL);
    o.huber = 0;
    /* one value on every vertex that has one: trained all the same, and said in the result, as a
     * graph task's constant target is */
    for (int v = 0; v < 34; v++) VECTOR(big)[v] = v % 3 ? 2.5 : NAN;
    o.epochs = 2;
    ag_train_result_t res;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &big, NULL, NULL, &o, &res), AG_SUCCESS);
    assert_int_equal(res.constant_targets, 1);
    assert_int_equal(res.first_constant_target, 0);
    ag_net_destroy(net);
    net = NULL;
    VECTOR(big)[1] = 3.0;
    assert_int_equal(ag_net_train_node_values(&net, &g, NULL, &big, NULL, NULL, &o, &res), AG_SUCCESS);
    assert_int_equal(res.constant_targets, 0);
    assert_int_equal(res.first_constant_target, -1);
    ag_net_destroy(net);
    net = NULL;
    igraph_t empty;
    igraph_empty(&empty, 0, IGRAPH_UNDIRECTED);
    igraph_vector_t none;
    igraph_vector_init(&none, 0);
    assert_int_equal(ag_net_train_node_values(&net, &empty, NULL, &none, NULL, NULL, &o, NULL), AG_EVALUE);
    assert_string_equal(ag_error_message(), "ag_net_train_node_values: the graph has no vertices: nothing to train on");
    assert_null(net);
    igraph_vector_destroy(&none);
    igraph_destroy(&empty);
    igraph_vector_destroy(&big);
    igraph_strvector_destroy(&va);
    igraph_vector_destroy(&y);
    igraph_destroy(&g);
}

/* One run of test_same_model_as_cli: the model of vertex attribute attr of gml (club: classes;
 * y: values) through the program and through the library. */
static void same_model_as_cli(const char *gml, const char *attr) {
    char path[64], args[1024], err[8192];
    temp_path(path, sizeof path);
    snprintf(args, sizeof args,
             "train '%s' --label-attr %s --train-nodes 0,1,32,33 --vertex-attrs none --degree --lap-pe 2 "
             "--hidden 8 --heads 2 --layers 2 --epochs 4 --seed 5 --score gatv2 --quiet -o '%s'",
             gml, attr, path);
    if (ag_cli_status(NULL, args, err, sizeof err) != 0) fail_msg("attn-graph %s: %s", args, err);
    ag_net_t *cli = NULL, *api = NULL;
    assert_int_equal(ag_net_load(&cli, path), AG_SUCCESS);
    igraph_t g;
    assert_int_equal(ag_graph_read(&g, gml, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_vector_int_t y, tr;
    igraph_vector_t values;
    igraph_vector_int_init(&y, igraph_vcount(&g));
    igraph_vector_init(&values, igraph_vcount(&g));
    for (igraph_integer_t v = 0; v < igraph_vcount(&g); v++) {
        VECTOR(values)[v] = VAN(&g, attr, v);
        VECTOR(y)[v] = (igraph_integer_t)VECTOR(values)[v];
    }
    igraph_vector_int_init_int(&tr, 4, 0, 1, 32, 33);
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    o.vertex_attrs = "none";
    o.degree = 1;
    o.lap_pe = 2;
    o.hidden = 8;
    o.heads = 2;
    o.layers = 2;
    o.epochs = 4;
    o.seed = 5;
    o.score = "gatv2";
    if (ag_net_task(cli) == AG_TASK_NODE_REGRESSION)
        assert_int_equal(ag_net_train_node_values(&api, &g, NULL, &values, &tr, NULL, &o, NULL), AG_SUCCESS);
    else assert_int_equal(ag_net_train_nodes(&api, &g, NULL, &y, &tr, NULL, &o, NULL), AG_SUCCESS);
    assert_int_equal(ag_net_task(api), ag_net_task(cli));
    const ag_param_list_t *pa = ag_model_params(ag_net_bundle(api)->model);
    const ag_param_list_t *pc = ag_model_params(ag_net_bundle(cli)->model);
    assert_int_equal(pa->count, pc->count);
    for (int64_t i = 0; i < pa->count; i++)
        assert_memory_equal(pa->items[i].value, pc->items[i].value,
                            (size_t)(pa->items[i].shape[0] * pa->items[i].shape[1]) * sizeof(float));
    igraph_matrix_t P1, P2;
    igraph_matrix_init(&P1, 0, 0);
    igraph_matrix_init(&P2, 0, 0);
    assert_int_equal(ag_net_predict_nodes(api, &g, NULL, NULL, &P1), AG_SUCCESS);
    assert_int_equal(ag_net_predict_nodes(cli, &g, NULL, NULL, &P2), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&P1, &P2));
    igraph_matrix_destroy(&P1);
    igraph_matrix_destroy(&P2);
    igraph_vector_int_destroy(&y);
    igraph_vector_destroy(&values);
    igraph_vector_int_destroy(&tr);
    igraph_destroy(&g);
    ag_net_destroy(api);
    ag_net_destroy(cli);
    unlink(path);
}

/* A model trained with --smooth stores Correct and Smooth weights that `attn-graph label` applies:
 * ag_net_predict_nodes gives the model alone, ag_net_smooth_nodes the figures label writes. */
static void test_smooth_nodes_as_label(void **state) {
    (void)state;
    const char *gml = AG_SOURCE_DIR "/graphs/social/karate.gml";
    char path[64];
    temp_path(path, sizeof path);
    static ag_cli_run_t run;
    ag_cli_run_ok(&run, "train '%s' --label-attr club --train-nodes 0,1,32,33 --smooth 0.8 "
                  "--hidden 8 --heads 2 --layers 2 --epochs 6 --seed 3 --quiet -o '%s'", gml, path);
    ag_net_t *net = NULL;
    assert_int_equal(ag_net_load(&net, path), AG_SUCCESS);
    assert_true(ag_net_bundle(net)->has_smooth);
    igraph_t g;
    assert_int_equal(ag_graph_read(&g, gml, AG_FORMAT_AUTO, 0), AG_SUCCESS);
    igraph_matrix_t P, S, S2;
    igraph_matrix_init(&P, 0, 0);
    igraph_matrix_init(&S, 0, 0);
    igraph_matrix_init(&S2, 0, 0);
    assert_int_equal(ag_net_predict_nodes(net, &g, NULL, NULL, &P), AG_SUCCESS);
    assert_int_equal(ag_net_smooth_nodes(net, &g, &P, NULL, &S), AG_SUCCESS);
    ag_cli_run_ok(&run, "label --model '%s' '%s'", path, gml);
    static ag_cli_run_t alone;
    ag_cli_run_ok(&alone, "label --model '%s' --no-smooth '%s'", path, gml);
    /* CSV: vertex,id,name,pred,prob0,prob1 */
    const char *line = strchr(run.out, '\n') + 1, *line2 = strchr(alone.out, '\n') + 1;
    double worst_smoothed = 0.0, worst_alone = 0.0, moved = 0.0;
    for (int v = 0; v < 34; v++) {
        int vv, id, name, pred;
        double p0, p1, q0, q1;
        assert_int_equal(sscanf(line, "%d,%d,%d,%d,%lf,%lf", &vv, &id, &name, &pred, &p0, &p1), 6);
        assert_int_equal(sscanf(line2, "%d,%d,%d,%d,%lf,%lf", &vv, &id, &name, &pred, &q0, &q1), 6);
        assert_int_equal(vv, v);
        worst_smoothed = fmax(worst_smoothed, fmax(fabs(MATRIX(S, v, 0) - p0), fabs(MATRIX(S, v, 1) - p1)));
        worst_alone = fmax(worst_alone, fmax(fabs(MATRIX(P, v, 0) - q0), fabs(MATRIX(P, v, 1) - q1)));
        moved = fmax(moved, fabs(MATRIX(S, v, 0) - MATRIX(P, v, 0)));
        line = strchr(line, '\n') + 1;
        line2 = strchr(line2, '\n') + 1;
    }
    assert_true(worst_smoothed < 1e-6); /* label prints 6 significant digits */
    assert_true(worst_alone < 1e-6);
    assert_true(moved > 1e-3); /* smoothing changed something: the two are not the same figures */
    /* known classes given, and the result in place of the probabilities: the same */
    igraph_vector_int_t known;
    igraph_vector_int_init(&known, 34);
    for (int v = 0; v < 34; v++) VECTOR(known)[v] = (igraph_integer_t)VAN(&g, "club", v);
    igraph_matrix_update(&S2, &P);
    assert_int_equal(ag_net_smooth_nodes(net, &g, &S2, &known, &S2), AG_SUCCESS);
    assert_true(igraph_matrix_all_e(&S, &S2));
    /* errors */
    assert_int_equal(ag_net_smooth_nodes(NULL, &g, &P, NULL, &S), AG_EINVAL);
    assert_int_equal(ag_net_smooth_nodes(FX.gnet, &g, &P, NULL, &S), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "not graph-classification"));
    igraph_matrix_resize(&S2, 34, 3);
    assert_int_equal(ag_net_smooth_nodes(net, &g, &S2, NULL, &S), AG_EMISMATCH);
    igraph_t bare;
    igraph_copy(&bare, &g);
    DELVA(&bare, "club");
    assert_int_equal(ag_net_smooth_nodes(net, &bare, &P, NULL, &S), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "club"));
    igraph_destroy(&bare);
    ag_bundle_set_smooth(ag_net_bundle(net), NULL);
    assert_int_equal(ag_net_smooth_nodes(net, &g, &P, NULL, &S), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "stores no Correct and Smooth weights"));
    igraph_vector_int_destroy(&known);
    igraph_matrix_destroy(&P);
    igraph_matrix_destroy(&S);
    igraph_matrix_destroy(&S2);
    igraph_destroy(&g);
    ag_net_destroy(net);
    unlink(path);
}

/* The options struct means what the CLI's options mean: the same options and split give the same
 * weights through `attn-graph train` and through ag_net_train_nodes, or, for a numeric attribute,
 * ag_net_train_node_values. */
static void test_same_model_as_cli(void **state) {
    (void)state;
    const char *gml = AG_SOURCE_DIR "/graphs/social/karate.gml";
    same_model_as_cli(gml, "club");
    /* node regression: a numeric attribute with a fraction, y = club + 0.5 */
    char path[64], cmd[512];
    temp_path(path, sizeof path);
    unlink(path); /* its name with .gml, which the program reads as GML */
    strcat(path, ".gml");
    snprintf(cmd, sizeof cmd, "sed 's/ club \\([01]\\)/ club \\1 y \\1.5/' '%s' > '%s'", gml, path);
    assert_int_equal(system(cmd), 0);
    same_model_as_cli(path, "y");
    unlink(path);
}

/* Every allocation of the facade's paths can fail: each failure is AG_ENOMEM, outputs stay NULL,
 * and nothing leaks (ASan). The k-th allocation fails, for k = 1, 2, ... until the call succeeds. */
static void test_allocation_failures(void **state) {
    (void)state;
    char path[64];
    temp_path(path, sizeof path);
    assert_int_equal(ag_net_save(FX.gnet, path), AG_SUCCESS);
    ag_net_train_options_t o = tiny_options();
    o.epochs = 1;
    o.layers = 1;
    igraph_matrix_t y4; /* the first four molecules' classes: 0 1 0 1 */
    igraph_matrix_init(&y4, 4, 1);
    for (int g = 0; g < 4; g++) MATRIX(y4, g, 0) = MATRIX(FX.y, g, 0);
    igraph_vector_t p;
    igraph_matrix_t A, R, S;
    igraph_vector_init(&p, 0);
    igraph_matrix_init(&A, 0, 0);
    igraph_matrix_init(&R, 0, 0);
    igraph_matrix_init(&S, 0, 0);
    igraph_vector_t vals; /* node values: the degree, on Zachary's club */
    igraph_vector_init(&vals, 34);
    for (int v = 0; v < 34; v++) {
        igraph_integer_t d;
        igraph_degree_1(&FX.karate, &d, v, IGRAPH_ALL, IGRAPH_LOOPS);
        VECTOR(vals)[v] = (double)d;
    }
    ag_net_train_options_t on = o;
    on.degree = 1;
    igraph_matrix_t P; /* (4 x 2) the batched predictions */
    igraph_matrix_init(&P, 0, 0);
    for (int which = 0; which < 6; which++) {
        ag_error_t rc = AG_ENOMEM;
        int k;
        for (k = 1; k < 100000 && rc != AG_SUCCESS; k++) {
            ag_net_t *net = NULL;
            ag_i_alloc_fail_at(k);
            if (which == 0) rc = ag_net_load(&net, path);
            else if (which == 1) rc = ag_net_predict_graph(FX.gnet, &FX.mols[3], NULL, &p);
            else if (which == 2) rc = ag_net_attention(FX.gnet, &FX.mols[3], NULL, 1, &A, &R, &S);
            else if (which == 3) rc = ag_net_train_graphs(&net, FX.mols, 4, &y4, NULL, NULL, &o, NULL);
            else if (which == 4) rc = ag_net_train_node_values(&net, &FX.karate, NULL, &vals, NULL, NULL, &on, NULL);
            else rc = ag_net_predict_graphs(FX.gnet, FX.mols, 4, &P);
            ag_i_alloc_fail_at(0);
            if (rc != AG_SUCCESS) {
                if (rc != AG_ENOMEM) fail_msg("case %d, allocation %d: %s", which, k, ag_error_message());
                assert_null(net);
            }
            ag_net_destroy(net);
        }
        assert_int_equal(rc, AG_SUCCESS);
        assert_true(k > 3);
    }
    igraph_vector_destroy(&p);
    igraph_matrix_destroy(&A);
    igraph_matrix_destroy(&R);
    igraph_matrix_destroy(&S);
    igraph_matrix_destroy(&y4);
    igraph_vector_destroy(&vals);
    igraph_matrix_destroy(&P);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_predict_graph_matches_bundle),
        cmocka_unit_test(test_predict_graph_with_matrix),
        cmocka_unit_test(test_predict_graphs),
        cmocka_unit_test(test_featurize),
        cmocka_unit_test(test_predict_graph_errors),
        cmocka_unit_test(test_uninitialised_containers),
        cmocka_unit_test(test_destroyed_input_matrices),
        cmocka_unit_test(test_graph_without_attribute_handler),
        cmocka_unit_test(test_attention_sums_to_one),
        cmocka_unit_test(test_attention_matches_model),
        cmocka_unit_test(test_attention_directed),
        cmocka_unit_test(test_graph_save_load_identical),
        cmocka_unit_test(test_graph_task_figures),
        cmocka_unit_test(test_evaluate_listed_graphs_only),
        cmocka_unit_test(test_graph_train_deterministic_and_indices),
        cmocka_unit_test(test_graph_train_default_preset),
        cmocka_unit_test(test_graph_train_errors),
        cmocka_unit_test(test_nodes_default_preset),
        cmocka_unit_test(test_train_val_lists_are_a_split),
        cmocka_unit_test(test_nodes_features_nan_named),
        cmocka_unit_test(test_nodes_with_features_round_trip),
        cmocka_unit_test(test_nodes_errors),
        cmocka_unit_test(test_node_values),
        cmocka_unit_test(test_net_merge),
        cmocka_unit_test(test_node_targets_edges),
        cmocka_unit_test(test_same_model_as_cli),
        cmocka_unit_test(test_smooth_nodes_as_label),
        cmocka_unit_test(test_bundle_label_attr),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
