/*
 * test_mask.c: the attention mask builder on hand-made graphs: exact CSR, edge ids, transposed
 * CSR, self-loop policies, multi-edges, k-hop sets, full-mask batches, errors and allocation
 * failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "attngraph/attention.h"

void ag_i_alloc_fail_at(int64_t n);

/* A hand-made in-neighbour CSR (sorted by destination, source, edge). */
typedef struct {
    ag_graph_t g;
    int64_t indptr[8];
    int32_t src[16];
    int64_t edge[16];
    int64_t graph_ptr[4];
    int64_t edge_ptr[4];
    int32_t node_graph[8];
} hand_graph_t;

/* Directed, 4 nodes, edges: e0 0->1, e1 2->1, e2 1->1 (self-loop), e3 0->1 (multi-edge),
 * e4 3->2, e5 1->0. Node 3 has no in-edge. */
static void graph_a(hand_graph_t *h) {
    memset(h, 0, sizeof *h);
    const int64_t indptr[] = {0, 1, 5, 6, 6};
    const int32_t src[] = {1, 0, 0, 1, 2, 3};
    const int64_t edge[] = {5, 0, 3, 2, 1, 4};
    memcpy(h->indptr, indptr, sizeof indptr);
    memcpy(h->src, src, sizeof src);
    memcpy(h->edge, edge, sizeof edge);
    h->graph_ptr[1] = 4;
    h->edge_ptr[1] = 6;
    h->g = (ag_graph_t){4, 6, 6, 1, 1, h->indptr, h->src, h->edge, h->graph_ptr, h->edge_ptr, h->node_graph};
}

static void expect_csr(const ag_mask_t *m, int64_t n, const int64_t *indptr, const int32_t *src, const int64_t *edge) {
    assert_int_equal(m->n_nodes, n);
    assert_int_equal(m->n_entries, indptr[n]);
    for (int64_t i = 0; i <= n; i++) assert_int_equal(m->indptr[i], indptr[i]);
    for (int64_t k = 0; k < indptr[n]; k++) {
        assert_int_equal(m->src[k], src[k]);
        assert_int_equal(m->edge[k], edge[k]);
    }
}

/* The transposed CSR must list, for every source, exactly its entries in increasing order. */
static void expect_transpose_consistent(const ag_mask_t *m) {
    int64_t seen = 0;
    for (int64_t j = 0; j < m->n_nodes; j++) {
        for (int64_t t = m->t_indptr[j]; t < m->t_indptr[j + 1]; t++) {
            int64_t k = m->t_entry[t];
            assert_int_equal(m->src[k], j);
            if (t > m->t_indptr[j]) assert_true(m->t_entry[t - 1] < k);
            seen++;
        }
    }
    assert_int_equal(seen, m->n_entries);
}

static void test_neighbours_self_loops(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_NEIGHBOURS, 1, 1), AG_SUCCESS);
    /* node 1 keeps its input self-loop e2 and gets no added one; multi-edges e0, e3 stay apart */
    const int64_t indptr[] = {0, 2, 6, 8, 9};
    const int32_t src[] = {0, 1, 0, 0, 1, 2, 2, 3, 3};
    const int64_t edge[] = {-1, 5, 0, 3, 2, 1, -1, 4, -1};
    expect_csr(&m, 4, indptr, src, edge);
    const int64_t t_indptr[] = {0, 3, 5, 7, 9};
    const int64_t t_entry[] = {0, 2, 3, 1, 4, 5, 6, 7, 8};
    for (int j = 0; j <= 4; j++) assert_int_equal(m.t_indptr[j], t_indptr[j]);
    for (int t = 0; t < 9; t++) assert_int_equal(m.t_entry[t], t_entry[t]);
    assert_int_equal(m.kind, AG_MASK_NEIGHBOURS);
    assert_int_equal(m.self_loops, 1);
    assert_int_equal(m.n_graphs, 1);
    assert_int_equal(m.graph_ptr[1], 4);
    ag_mask_destroy(&m);
    assert_null(m.indptr);
}

static void test_neighbours_no_self_loops(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_NEIGHBOURS, 1, 0), AG_SUCCESS);
    /* exactly the graph's entries; node 3 has none (isolated) */
    const int64_t indptr[] = {0, 1, 5, 6, 6};
    const int32_t src[] = {1, 0, 0, 1, 2, 3};
    const int64_t edge[] = {5, 0, 3, 2, 1, 4};
    expect_csr(&m, 4, indptr, src, edge);
    expect_transpose_consistent(&m);
    ag_mask_destroy(&m);
}

static void test_khop_two_hops(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_KHOP, 2, 0), AG_SUCCESS);
    /* 0: 1 directly (e5), 2 through 1; 0 itself only through a cycle, so not a source.
     * 1: 0 (smallest of e0, e3), itself through its self-loop e2, 2 (e1), 3 through 2.
     * 2: 3 (e4); 3 has no in-neighbour. */
    const int64_t indptr[] = {0, 2, 6, 7, 7};
    const int32_t src[] = {1, 2, 0, 1, 2, 3, 3};
    const int64_t edge[] = {5, -1, 0, 2, 1, -1, 4};
    expect_csr(&m, 4, indptr, src, edge);
    expect_transpose_consistent(&m);
    assert_int_equal(m.hops, 2);
    ag_mask_destroy(&m);
}

static void test_khop_one_hop_dedups_multi_edges(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_KHOP, 1, 1), AG_SUCCESS);
    const int64_t indptr[] = {0, 2, 5, 7, 8};
    const int32_t src[] = {0, 1, 0, 1, 2, 2, 3, 3};
    const int64_t edge[] = {-1, 5, 0, 2, 1, -1, 4, -1};
    expect_csr(&m, 4, indptr, src, edge);
    expect_transpose_consistent(&m);
    ag_mask_destroy(&m);
}

static void test_khop_far_hops_on_path(void **state) {
    (void)state;
    /* path 0 -> 1 -> 2 -> 3 -> 4 (e_k: k -> k+1): node 4 sees 3, 2, 1 within 3 hops */
    hand_graph_t h;
    memset(&h, 0, sizeof h);
    const int64_t indptr[] = {0, 0, 1, 2, 3, 4};
    const int32_t src[] = {0, 1, 2, 3};
    const int64_t edge[] = {0, 1, 2, 3};
    memcpy(h.indptr, indptr, sizeof indptr);
    memcpy(h.src, src, sizeof src);
    memcpy(h.edge, edge, sizeof edge);
    h.graph_ptr[1] = 5;
    h.edge_ptr[1] = 4;
    h.g = (ag_graph_t){5, 4, 4, 1, 1, h.indptr, h.src, h.edge, h.graph_ptr, h.edge_ptr, h.node_graph};
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_KHOP, 3, 0), AG_SUCCESS);
    const int64_t mi[] = {0, 0, 1, 3, 6, 9};
    const int32_t ms[] = {0, 0, 1, 0, 1, 2, 1, 2, 3};
    const int64_t me[] = {0, -1, 1, -1, -1, 2, -1, -1, 3};
    expect_csr(&m, 5, mi, ms, me);
    expect_transpose_consistent(&m);
    ag_mask_destroy(&m);
}

static void test_full_batch(void **state) {
    (void)state;
    /* a batch of two undirected graphs: {0, 1} with edge 0 (two entries sharing the id) and the
     * single node 2 with a self-loop (edge 1) */
    hand_graph_t h;
    memset(&h, 0, sizeof h);
    const int64_t indptr[] = {0, 1, 2, 3};
    const int32_t src[] = {1, 0, 2};
    const int64_t edge[] = {0, 0, 1};
    memcpy(h.indptr, indptr, sizeof indptr);
    memcpy(h.src, src, sizeof src);
    memcpy(h.edge, edge, sizeof edge);
    h.graph_ptr[1] = 2;
    h.graph_ptr[2] = 3;
    h.edge_ptr[1] = 1;
    h.edge_ptr[2] = 2;
    h.node_graph[2] = 1;
    h.g = (ag_graph_t){3, 3, 2, 2, 0, h.indptr, h.src, h.edge, h.graph_ptr, h.edge_ptr, h.node_graph};
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_FULL, 1, 1), AG_SUCCESS);
    const int64_t mi[] = {0, 2, 4, 5};
    const int32_t ms[] = {0, 1, 0, 1, 2};
    const int64_t me[] = {-1, 0, 0, -1, 1};
    expect_csr(&m, 3, mi, ms, me);
    expect_transpose_consistent(&m);
    assert_int_equal(m.kind, AG_MASK_FULL);
    assert_int_equal(m.n_graphs, 2);
    assert_int_equal(m.graph_ptr[0], 0);
    assert_int_equal(m.graph_ptr[1], 2);
    assert_int_equal(m.graph_ptr[2], 3);
    assert_int_equal(m.node_graph[0], 0);
    assert_int_equal(m.node_graph[1], 0);
    assert_int_equal(m.node_graph[2], 1);
    ag_mask_destroy(&m);
}

static void test_errors(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_KHOP, 0, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "hops >= 1"));
    assert_null(m.indptr);
    assert_int_equal(ag_mask_build(&m, NULL, AG_MASK_NEIGHBOURS, 1, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "NULL graph"));
    assert_int_equal(ag_mask_build(&m, &h.g, (ag_mask_kind_t)7, 1, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "unknown mask kind 7"));
    h.src[3] = 9; /* destination 1's third entry points outside the graph */
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_NEIGHBOURS, 1, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "entry 3 of vertex 1 has source 9 out of range"));
    graph_a(&h);
    h.graph_ptr[1] = 3; /* ranges that do not cover the nodes */
    assert_int_equal(ag_mask_build(&m, &h.g, AG_MASK_FULL, 1, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "do not cover"));
    ag_mask_destroy(&m); /* safe on a failed build */
}

static void test_allocation_failures(void **state) {
    (void)state;
    hand_graph_t h;
    graph_a(&h);
    for (int kind = 0; kind < 3; kind++) {
        int succeeded = 0;
        for (int64_t n = 1; n < 64 && !succeeded; n++) {
            ag_mask_t m;
            ag_i_alloc_fail_at(n);
            ag_error_t rc = ag_mask_build(&m, &h.g, (ag_mask_kind_t)kind, 2, 1);
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) {
                succeeded = 1;
                assert_true(n > 3); /* at least indptr, src, edge and the transposed CSR */
            } else {
                assert_int_equal(rc, AG_ENOMEM);
                assert_null(m.indptr);
                assert_null(m.src);
            }
            ag_mask_destroy(&m);
        }
        assert_true(succeeded);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_neighbours_self_loops),
        cmocka_unit_test(test_neighbours_no_self_loops),
        cmocka_unit_test(test_khop_two_hops),
        cmocka_unit_test(test_khop_one_hop_dedups_multi_edges),
        cmocka_unit_test(test_khop_far_hops_on_path),
        cmocka_unit_test(test_full_batch),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
