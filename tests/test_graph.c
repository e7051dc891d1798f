/* Tests of the in-neighbour CSR (ag_graph_from_igraph) and of batching (ag_graph_batch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/graph.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

/* The hand-made graph of the first tests: 5 nodes (node 4 isolated), edges by id
 * e0 2-1, e1 0-1, e2 0-1 (a multi-edge of e1), e3 1-1 (self-loop), e4 1-0, e5 3-2. */
static const igraph_integer_t hand_edges[] = {2, 1, 0, 1, 0, 1, 1, 1, 1, 0, 3, 2};

static void make_graph(igraph_t *ig, const igraph_integer_t *pairs, int64_t m, int64_t n, int directed) {
    igraph_vector_int_t v;
    assert_int_equal(igraph_vector_int_init_array(&v, pairs, 2 * m), IGRAPH_SUCCESS);
    assert_int_equal(igraph_create(ig, &v, n, directed), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&v);
}

static void assert_csr(const ag_graph_t *g, const int64_t *indptr, const int32_t *src, const int64_t *edge) {
    for (int64_t i = 0; i <= g->n_nodes; i++) assert_int_equal(g->indptr[i], indptr[i]);
    for (int64_t k = 0; k < g->n_entries; k++) {
        assert_int_equal(g->src[k], src[k]);
        assert_int_equal(g->edge[k], edge[k]);
    }
}

static void test_directed_csr(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, hand_edges, 6, 5, IGRAPH_DIRECTED);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    assert_int_equal(g.n_nodes, 5);
    assert_int_equal(g.n_edges, 6);
    assert_int_equal(g.n_entries, 6);
    assert_int_equal(g.n_graphs, 1);
    assert_int_equal(g.directed, 1);
    /* row 0: 1->0 (e4); row 1: 0 (e1), 0 (e2), 1 (e3), 2 (e0); row 2: 3 (e5); rows 3, 4 empty */
    const int64_t indptr[] = {0, 1, 5, 6, 6, 6};
    const int32_t src[] = {1, 0, 0, 1, 2, 3};
    const int64_t edge[] = {4, 1, 2, 3, 0, 5};
    assert_csr(&g, indptr, src, edge);
    assert_int_equal(g.graph_ptr[0], 0);
    assert_int_equal(g.graph_ptr[1], 5);
    assert_int_equal(g.edge_ptr[0], 0);
    assert_int_equal(g.edge_ptr[1], 6);
    for (int i = 0; i < 5; i++) assert_int_equal(g.node_graph[i], 0);
    ag_graph_destroy(&g);
    ag_graph_destroy(&g); /* idempotent */
    igraph_destroy(&ig);
}

static void test_undirected_csr(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, hand_edges, 6, 5, IGRAPH_UNDIRECTED);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    assert_int_equal(g.directed, 0);
    assert_int_equal(g.n_edges, 6);
    /* five non-loop edges give two entries each, the self-loop one */
    assert_int_equal(g.n_entries, 11);
    const int64_t indptr[] = {0, 3, 8, 10, 11, 11};
    const int32_t src[] = {1, 1, 1, /* row 1 */ 0, 0, 0, 1, 2, /* row 2 */ 1, 3, /* row 3 */ 2};
    const int64_t edge[] = {1, 2, 4, /* row 1 */ 1, 2, 4, 3, 0, /* row 2 */ 0, 5, /* row 3 */ 5};
    assert_csr(&g, indptr, src, edge);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
}

static void test_empty_graphs(void **state) {
    (void)state;
    igraph_t ig;
    igraph_empty(&ig, 0, IGRAPH_UNDIRECTED);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    assert_int_equal(g.n_nodes, 0);
    assert_int_equal(g.n_entries, 0);
    assert_int_equal(g.indptr[0], 0);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);

    igraph_empty(&ig, 3, IGRAPH_DIRECTED); /* isolated nodes only */
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    assert_int_equal(g.n_nodes, 3);
    assert_int_equal(g.n_entries, 0);
    for (int i = 0; i <= 3; i++) assert_int_equal(g.indptr[i], 0);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
    assert_int_equal(ag_graph_from_igraph(&g, NULL), AG_EINVAL);
}

/* Naive reference: every entry as (dst, src, eid), sorted with qsort. */
typedef struct {
    int64_t dst, src, eid;
} triple_t;

static int cmp_triple(const void *a, const void *b) {
    const triple_t *x = a, *y = b;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->eid > y->eid) - (x->eid < y->eid);
}

static void check_against_naive(int directed) {
    const int64_t n = 200, m = 3000;
    igraph_integer_t *pairs = malloc(2 * m * sizeof *pairs);
    uint64_t x = 12345;
    for (int64_t i = 0; i < 2 * m; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        /* a small range makes multi-edges and self-loops frequent */
        pairs[i] = (igraph_integer_t)((x >> 33) % (uint64_t)n);
    }
    /* a hub: node 7 is the target of every fifth edge, so its row takes the long-row sort */
    for (int64_t e = 0; e < m; e += 5) pairs[2 * e + 1] = 7;
    igraph_t ig;
    make_graph(&ig, pairs, m, n, directed);
    triple_t *ref = malloc(2 * m * sizeof *ref);
    int64_t k = 0;
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = pairs[2 * e], v = pairs[2 * e + 1];
        ref[k++] = (triple_t){v, u, e};
        if (!directed && u != v) ref[k++] = (triple_t){u, v, e};
    }
    qsort(ref, (size_t)k, sizeof *ref, cmp_triple);
    ag_graph_t g;
    assert_int_equal(ag_graph_from_igraph(&g, &ig), AG_SUCCESS);
    assert_int_equal(g.n_entries, k);
    int64_t r = 0;
    for (int64_t d = 0; d < n; d++) {
        for (int64_t j = g.indptr[d]; j < g.indptr[d + 1]; j++, r++) {
            assert_int_equal(ref[r].dst, d);
            assert_int_equal(ref[r].src, g.src[j]);
            assert_int_equal(ref[r].eid, g.edge[j]);
        }
    }
    assert_int_equal(r, k);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
    free(ref);
    free(pairs);
}

static void test_csr_matches_naive(void **state) {
    (void)state;
    check_against_naive(1);
    check_against_naive(0);
}

static void test_batch_offsets(void **state) {
    (void)state;
    igraph_t a_ig, b_ig;
    make_graph(&a_ig, hand_edges, 6, 5, IGRAPH_DIRECTED);
    const igraph_integer_t path[] = {0, 1, 1, 2}; /* 0->1 (e0), 1->2 (e1) */
    make_graph(&b_ig, path, 2, 3, IGRAPH_DIRECTED);
    ag_graph_t a, b;
    assert_int_equal(ag_graph_from_igraph(&a, &a_ig), AG_SUCCESS);
    assert_int_equal(ag_graph_from_igraph(&b, &b_ig), AG_SUCCESS);

    const ag_graph_t *members[] = {&b, &a, &b};
    ag_graph_t batch;
    assert_int_equal(ag_graph_batch(&batch, members, 3), AG_SUCCESS);
    assert_int_equal(batch.n_nodes, 11);
    assert_int_equal(batch.n_edges, 10);
    assert_int_equal(batch.n_entries, 10);
    assert_int_equal(batch.n_graphs, 3);
    assert_int_equal(batch.directed, 1);
    const int64_t graph_ptr[] = {0, 3, 8, 11}, edge_ptr[] = {0, 2, 8, 10};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(batch.graph_ptr[i], graph_ptr[i]);
        assert_int_equal(batch.edge_ptr[i], edge_ptr[i]);
    }
    const int32_t node_graph[] = {0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 11; i++) assert_int_equal(batch.node_graph[i], node_graph[i]);
    /* b: rows 0 {}, 1 {0 e0}, 2 {1 e1}; a shifted by 3 nodes, 2 edges; b again by 8 nodes, 8 edges */
    const int64_t indptr[] = {0, 0, 1, 2, 3, 7, 8, 8, 8, 8, 9, 10};
    const int32_t src[] = {0, 1, 4, 3, 3, 4, 5, 6, 8, 9};
    const int64_t edge[] = {0, 1, 6, 3, 4, 5, 2, 7, 8, 9};
    assert_csr(&batch, indptr, src, edge);

    /* A batch of batches is the flat batch. */
    ag_graph_t head, flat;
    const ag_graph_t *first_two[] = {&b, &a};
    assert_int_equal(ag_graph_batch(&head, first_two, 2), AG_SUCCESS);
    const ag_graph_t *nested[] = {&head, &b};
    assert_int_equal(ag_graph_batch(&flat, nested, 2), AG_SUCCESS);
    assert_int_equal(flat.n_graphs, 3);
    assert_csr(&flat, indptr, src, edge);
    for (int i = 0; i < 4; i++) assert_int_equal(flat.graph_ptr[i], graph_ptr[i]);
    for (int i = 0; i < 4; i++) assert_int_equal(flat.edge_ptr[i], edge_ptr[i]);
    for (int i = 0; i < 11; i++) assert_int_equal(flat.node_graph[i], node_graph[i]);

    ag_graph_destroy(&flat);
    ag_graph_destroy(&head);
    ag_graph_destroy(&batch);
    ag_graph_destroy(&a);
    ag_graph_destroy(&b);
    igraph_destroy(&a_ig);
    igraph_destroy(&b_ig);
}

static void test_batch_errors(void **state) {
    (void)state;
    igraph_t d_ig, u_ig;
    make_graph(&d_ig, hand_edges, 6, 5, IGRAPH_DIRECTED);
    make_graph(&u_ig, hand_edges, 6, 5, IGRAPH_UNDIRECTED);
    ag_graph_t d, u, batch;
    assert_int_equal(ag_graph_from_igraph(&d, &d_ig), AG_SUCCESS);
    assert_int_equal(ag_graph_from_igraph(&u, &u_ig), AG_SUCCESS);
    const ag_graph_t *mixed[] = {&d, &d, &u};
    assert_int_equal(ag_graph_batch(&batch, mixed, 3), AG_EMISMATCH);
    assert_string_equal(ag_error_message(), "ag_graph_batch: graph 2 is undirected but graph 0 is directed");
    assert_null(batch.indptr);
    assert_int_equal(ag_graph_batch(&batch, mixed, 0), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "count is 0"));
    const ag_graph_t *with_null[] = {&d, NULL};
    assert_int_equal(ag_graph_batch(&batch, with_null, 2), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "graph 1 is NULL"));
    ag_graph_destroy(&d);
    ag_graph_destroy(&u);
    igraph_destroy(&d_ig);
    igraph_destroy(&u_ig);
}

/* Every allocation of both functions fails in turn: each must return AG_ENOMEM and leak nothing
 * (ASan checks the latter). */
/* The print of the graph of m edges (pairs) on n vertices. */
static ag_graph_print_t print_of(const igraph_integer_t *pairs, int64_t m, int64_t n, int directed) {
    igraph_t g;
    ag_graph_print_t p;
    make_graph(&g, pairs, m, n, directed);
    assert_int_equal(ag_graph_print(&g, &p), AG_SUCCESS);
    igraph_destroy(&g);
    return p;
}

/* A graph's print: the same for any edge order and either end first (undirected); the same shape
 * and another numbering for the vertices numbered otherwise; another shape for a graph of another
 * shape with the same counts (also one that three rounds of refinement cannot tell apart), a
 * reversed directed edge, another count or directedness. Golden values, computed apart, pin the
 * hashes, which model files store. */
static void test_print(void **state) {
    (void)state;
    static const igraph_integer_t path[] = {0, 1, 1, 2, 2, 3};
    static const igraph_integer_t shuffled[] = {3, 2, 1, 0, 2, 1};
    static const igraph_integer_t renumbered[] = {2, 0, 0, 3, 3, 1}; /* the path 2-0-3-1 */
    static const igraph_integer_t star[] = {0, 1, 0, 2, 0, 3};
    static const igraph_integer_t reversed[] = {1, 0, 1, 2, 2, 3};
    /* a path of 16 with pendant vertices on 1 and 6, or on 1 and 7: trees that refinement tells
     * apart only after more than 3 rounds (found by search, in Python) */
    igraph_integer_t near[34], far[34];
    for (int i = 0; i < 15; i++) near[2 * i] = far[2 * i] = i, near[2 * i + 1] = far[2 * i + 1] = i + 1;
    near[30] = far[30] = 1;
    near[31] = far[31] = 16;
    near[32] = 6;
    far[32] = 7;
    near[33] = far[33] = 17;
    ag_graph_print_t pg = print_of(path, 3, 4, 0), ph;
    assert_int_equal(pg.vertices, 4);
    assert_int_equal(pg.edges, 3);
    assert_int_equal(pg.directed, 0);
    /* golden: computed apart, in Python */
    assert_true(pg.hash == 0x92a83727c1185aeeULL);
    assert_true(pg.numbered == 0x6c3190de43a8be97ULL);
    ph = print_of(shuffled, 3, 4, 0);
    assert_true(ag_graph_print_equal(&pg, &ph));
    ph = print_of(renumbered, 3, 4, 0);
    assert_true(ag_graph_print_same_shape(&pg, &ph));
    assert_false(ag_graph_print_equal(&pg, &ph));
    ph = print_of(star, 3, 4, 0);
    assert_false(ag_graph_print_same_shape(&pg, &ph));
    ph = print_of(path, 3, 5, 0); /* an isolated vertex more */
    assert_false(ag_graph_print_same_shape(&pg, &ph));
    pg = print_of(near, 17, 18, 0);
    ph = print_of(far, 17, 18, 0);
    assert_false(ag_graph_print_same_shape(&pg, &ph));
    pg = print_of(path, 3, 4, 1);
    assert_int_equal(pg.directed, 1);
    ph = print_of(reversed, 3, 4, 1);
    assert_false(ag_graph_print_same_shape(&pg, &ph));
    ph = print_of(path, 3, 4, 0);
    assert_false(ag_graph_print_same_shape(&pg, &ph)); /* directedness differs */
    pg = print_of(path, 0, 0, 0); /* the empty graph */
    assert_true(pg.vertices == 0 && pg.edges == 0 && pg.hash == 0 && pg.numbered == 0);
    assert_int_equal(ag_graph_print(NULL, &pg), AG_EINVAL);
    assert_string_equal(ag_error_message(), "ag_graph_print: NULL argument");
}

static void test_allocation_failures(void **state) {
    (void)state;
    igraph_t ig;
    make_graph(&ig, hand_edges, 6, 5, IGRAPH_UNDIRECTED);
    ag_graph_t g, batch;
    int failures = 0;
    for (int64_t k = 1;; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_graph_from_igraph(&g, &ig);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
        assert_null(g.indptr);
        failures++;
    }
    assert_int_equal(failures, 7); /* six arrays of the graph, one cursor (no row is long enough for the sort scratch) */
    const ag_graph_t *members[] = {&g, &g};
    for (int64_t k = 1; k <= 6; k++) {
        ag_i_alloc_fail_at(k);
        assert_int_equal(ag_graph_batch(&batch, members, 2), AG_ENOMEM);
        ag_i_alloc_fail_at(0);
    }
    assert_int_equal(ag_graph_batch(&batch, members, 2), AG_SUCCESS);
    ag_graph_destroy(&batch);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);

    /* a star with 40 leaves: the hub's row needs the sort scratch, one more allocation */
    igraph_star(&ig, 41, IGRAPH_STAR_UNDIRECTED, 0);
    failures = 0;
    for (int64_t k = 1;; k++) {
        ag_i_alloc_fail_at(k);
        ag_error_t rc = ag_graph_from_igraph(&g, &ig);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) break;
        assert_int_equal(rc, AG_ENOMEM);
        failures++;
    }
    assert_int_equal(failures, 8);
    assert_int_equal(g.indptr[1], 40);
    for (int k = 0; k < 40; k++) assert_int_equal(g.src[k], k + 1);
    ag_graph_destroy(&g);
    igraph_destroy(&ig);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directed_csr),
        cmocka_unit_test(test_undirected_csr),
        cmocka_unit_test(test_empty_graphs),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_csr_matches_naive),
        cmocka_unit_test(test_batch_offsets),
        cmocka_unit_test(test_batch_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
