/*
 * Tests of ag_batch_buffer_fill: the block-diagonal batch of members (ag_batch_member_t, a graph
 * with its node and edge features), the features concatenated graph after graph, into a buffer
 * reused across fills (as training reuses it across mini-batches), and its argument checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include "igraph_testutil.h"

void ag_i_alloc_fail_at(int64_t n);
int64_t ag_i_alloc_live(void);

/* The members: P, a path 0-1-2 (edges e0 0-1, e1 1-2); O, a graph of no nodes; L, two lone nodes. */
typedef struct members_t {
    ag_graph_t P, O, L;
    ag_fmat_t PX, LX;     /* (N x F): P's and L's node features, F = 2; O has none */
    ag_fmat_t PE, LE;     /* (E x Fe): P's edge features, Fe = 3; L's is 0 x 3, O has none */
    const ag_fmat_t *xs[3], *es[3];    /* (G), (G): P's, O's and L's */
    ag_batch_member_t all[3];          /* (G) P, O, L with xs and es */
} members_t;

enum { F = 2, FE = 3 };

/* P, O and L with node features xs[g] and edge features es[g] in place of their own (xs or es
 * NULL: every member without), written into out (3): each fill that a test fails names the
 * member that lacks or misfits them. */
static const ag_batch_member_t *members_with(ag_batch_member_t *out, const members_t *m, const ag_fmat_t *const *xs,
                                             const ag_fmat_t *const *es) {
    const ag_graph_t *gs[] = {&m->P, &m->O, &m->L};
    for (int g = 0; g < 3; g++) out[g] = (ag_batch_member_t){gs[g], xs ? xs[g] : NULL, es ? es[g] : NULL};
    return out;
}

static const int path[] = {0, 1, 1, 2};

/* P's rows are 1..6, L's 7..10; P's edge rows 0.5, 1.5, ..., 5.5. */
static void members_make(members_t *m) {
    memset(m, 0, sizeof *m);
    assert_int_equal(ag_test_igraph_graph(&m->P, 3, path, 2), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&m->O, 0, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&m->L, 2, NULL, 0), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&m->PX, 3, F), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&m->LX, 2, F), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&m->PE, 2, FE), AG_SUCCESS);
    assert_int_equal(ag_fmat_init(&m->LE, 0, FE), AG_SUCCESS);
    for (int i = 0; i < 3 * F; i++) m->PX.data[i] = (float)(i + 1);
    for (int i = 0; i < 2 * F; i++) m->LX.data[i] = (float)(i + 7);
    for (int i = 0; i < 2 * FE; i++) m->PE.data[i] = (float)i + 0.5f;
    const ag_fmat_t *xs[] = {&m->PX, NULL, &m->LX}, *es[] = {&m->PE, NULL, &m->LE};
    memcpy(m->xs, xs, sizeof xs);
    memcpy(m->es, es, sizeof es);
    members_with(m->all, m, m->xs, m->es);
}

static void members_free(members_t *m) {
    ag_graph_destroy(&m->P);
    ag_graph_destroy(&m->O);
    ag_graph_destroy(&m->L);
    ag_fmat_destroy(&m->PX);
    ag_fmat_destroy(&m->LX);
    ag_fmat_destroy(&m->PE);
    ag_fmat_destroy(&m->LE);
}

static void assert_floats(const float *got, const float *want, int64_t n) {
    for (int64_t i = 0; i < n; i++) assert_float_equal(got[i], want[i], 0.0f);
}

static void assert_ints(const int64_t *got, const int64_t *want, int64_t n) {
    for (int64_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
}

/* P, O, L: 5 nodes, 2 edges (4 entries), 3 graphs. */
static void test_three_graphs(void **state) {
    (void)state;
    members_t m;
    members_make(&m);
    ag_batch_buffer_t buf;
    ag_batch_buffer_init(&buf);
    ag_batch_t batch;
    assert_int_equal(ag_batch_buffer_fill(&buf, m.all, 3, F, FE, &batch), AG_SUCCESS);
    assert_ptr_equal(batch.graph, &buf.graph);
    assert_ptr_equal(batch.X, buf.X);
    assert_ptr_equal(batch.E, buf.E);
    const ag_graph_t *g = &buf.graph;
    assert_int_equal(g->n_nodes, 5);
    assert_int_equal(g->n_edges, 2);
    assert_int_equal(g->n_entries, 4);
    assert_int_equal(g->n_graphs, 3);
    assert_int_equal(g->directed, 0);
    /* rows 0 {1 e0}, 1 {0 e0, 2 e1}, 2 {1 e1}; L's nodes 3 and 4 have no entries */
    const int64_t indptr[] = {0, 1, 3, 4, 4, 4}, edge[] = {0, 0, 1, 1};
    const int32_t src[] = {1, 0, 2, 1}, node_graph[] = {0, 0, 0, 2, 2};
    const int64_t graph_ptr[] = {0, 3, 3, 5}, edge_ptr[] = {0, 2, 2, 2};
    assert_ints(g->indptr, indptr, 6);
    assert_ints(g->edge, edge, 4);
    for (int k = 0; k < 4; k++) assert_int_equal(g->src[k], src[k]);
    for (int i = 0; i < 5; i++) assert_int_equal(g->node_graph[i], node_graph[i]);
    assert_ints(g->graph_ptr, graph_ptr, 4);
    assert_ints(g->edge_ptr, edge_ptr, 4);
    const float X[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};         /* (N x F) */
    const float E[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}; /* (E x Fe) */
    assert_floats(batch.X, X, 5 * F);
    assert_floats(batch.E, E, 2 * FE);
    ag_batch_destroy(&batch);

    /* Fe = 0: no edge features are read (every member's E NULL) and the batch has none */
    ag_batch_member_t no_e[3];
    assert_int_equal(ag_batch_buffer_fill(&buf, members_with(no_e, &m, m.xs, NULL), 3, F, 0, &batch), AG_SUCCESS);
    assert_null(batch.E);
    assert_int_equal(buf.graph.n_nodes, 5);
    assert_floats(batch.X, X, 5 * F);
    ag_batch_destroy(&batch);

    /* a batch of only a graph of no nodes: X is still a buffer (of one float), E too */
    const ag_batch_member_t empty[] = {{&m.O, NULL, NULL}};
    assert_int_equal(ag_batch_buffer_fill(&buf, empty, 1, F, FE, &batch), AG_SUCCESS);
    assert_int_equal(buf.graph.n_nodes, 0);
    assert_int_equal(buf.graph.n_graphs, 1);
    assert_non_null(batch.X);
    assert_non_null(batch.E);
    ag_batch_destroy(&batch);
    ag_batch_buffer_destroy(&buf);
    ag_batch_buffer_destroy(&buf); /* idempotent */
    members_free(&m);
}

/* The batch runs through a model as the members did one by one: the rows of a graph-level model's
 * output are those of each member alone, within rounding (the kernels take other paths for other
 * row counts). */
static void test_batch_runs_like_members(void **state) {
    (void)state;
    members_t m;
    members_make(&m);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_REGRESSION);
    cfg.in_dim = F;
    cfg.edge_dim = FE;
    cfg.n_out = 1;
    cfg.blocks[0].attn.edge_mode = AG_EDGE_KEY;
    ag_model_t *model;
    assert_int_equal(ag_model_create(&model, &cfg), AG_SUCCESS);
    const ag_batch_member_t pl[] = {{&m.P, &m.PX, &m.PE}, {&m.L, &m.LX, &m.LE}};
    ag_batch_buffer_t buf = {0};
    ag_batch_t batch;
    float both[2], alone[1];
    assert_int_equal(ag_batch_buffer_fill(&buf, pl, 2, F, FE, &batch), AG_SUCCESS);
    assert_int_equal(ag_model_forward(model, &batch, 0, NULL, both), AG_SUCCESS);
    ag_batch_destroy(&batch);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(ag_batch_buffer_fill(&buf, pl + k, 1, F, FE, &batch), AG_SUCCESS);
        assert_int_equal(ag_model_forward(model, &batch, 0, NULL, alone), AG_SUCCESS);
        assert_float_equal(both[k], alone[0], 1e-5f);
        ag_batch_destroy(&batch);
    }
    ag_batch_buffer_destroy(&buf);
    ag_model_destroy(model);
    members_free(&m);
}

/* One buffer, as training uses it: a batch, a larger one (the buffers grow), a smaller one (they
 * are reused: nothing is allocated but the graph), each with its own rows. */
static void test_reuse(void **state) {
    (void)state;
    members_t m;
    members_make(&m);
    ag_batch_buffer_t buf;
    ag_batch_buffer_init(&buf);
    ag_batch_t batch;

    const ag_batch_member_t small[] = {{&m.L, &m.LX, &m.LE}, {&m.P, &m.PX, &m.PE}};
    assert_int_equal(ag_batch_buffer_fill(&buf, small, 2, F, FE, &batch), AG_SUCCESS);
    const float X1[] = {7, 8, 9, 10, 1, 2, 3, 4, 5, 6};
    assert_int_equal(buf.graph.n_nodes, 5);
    assert_floats(batch.X, X1, 5 * F);
    assert_floats(batch.E, m.PE.data, 2 * FE);
    assert_int_equal(buf.X_cap, 5 * F);
    assert_int_equal(buf.E_cap, 2 * FE);
    ag_batch_destroy(&batch);

    /* larger: P, L, O, P: 8 nodes, 4 edges; the buffers at least double */
    const ag_batch_member_t large[] = {small[1], small[0], {&m.O, NULL, NULL}, small[1]};
    assert_int_equal(ag_batch_buffer_fill(&buf, large, 4, F, FE, &batch), AG_SUCCESS);
    const float X2[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6};
    const float E2[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
    assert_int_equal(buf.graph.n_nodes, 8);
    assert_int_equal(buf.graph.n_edges, 4);
    assert_int_equal(buf.graph.n_graphs, 4);
    const int64_t graph_ptr[] = {0, 3, 5, 5, 8}, edge_ptr[] = {0, 2, 2, 2, 4};
    assert_ints(buf.graph.graph_ptr, graph_ptr, 5);
    assert_ints(buf.graph.edge_ptr, edge_ptr, 5);
    /* the second P: rows 5 {6 e2}, 6 {5 e2, 7 e3}, 7 {6 e3} */
    assert_int_equal(buf.graph.indptr[5], 4);
    assert_int_equal(buf.graph.src[4], 6);
    assert_int_equal(buf.graph.edge[4], 2);
    assert_int_equal(buf.graph.src[7], 6);
    assert_int_equal(buf.graph.edge[7], 3);
    assert_floats(batch.X, X2, 8 * F);
    assert_floats(batch.E, E2, 4 * FE);
    assert_int_equal(buf.X_cap, 2 * 5 * F);
    assert_int_equal(buf.E_cap, 4 * FE);
    ag_batch_destroy(&batch);

    /* smaller: L alone, in the same buffers; only the graph is allocated */
    const float *X_before = buf.X, *E_before = buf.E;
    const int64_t live = ag_i_alloc_live();
    assert_int_equal(ag_batch_buffer_fill(&buf, small, 1, F, FE, &batch), AG_SUCCESS);
    assert_ptr_equal(buf.X, X_before);
    assert_ptr_equal(buf.E, E_before);
    assert_int_equal(buf.X_cap, 2 * 5 * F);
    assert_true(ag_i_alloc_live() - live <= 0); /* the old graph freed, the new one allocated */
    assert_int_equal(buf.graph.n_nodes, 2);
    assert_int_equal(buf.graph.n_edges, 0);
    assert_int_equal(buf.graph.n_entries, 0);
    assert_int_equal(buf.graph.graph_ptr[1], 2);
    assert_floats(batch.X, m.LX.data, 2 * F);
    assert_non_null(batch.E);
    ag_batch_destroy(&batch);
    ag_batch_buffer_destroy(&buf);
    assert_null(buf.X);
    assert_int_equal(buf.X_cap, 0);
    members_free(&m);
}

/* A failed fill: the code and message, an empty batch and an empty graph in the buffer. */
static void assert_failed(ag_error_t rc, ag_error_t want, const char *message, const ag_batch_t *batch,
                          const ag_batch_buffer_t *buf) {
    assert_int_equal(rc, want);
    if (!strstr(ag_error_message(), message)) fail_msg("message '%s' lacks '%s'", ag_error_message(), message);
    assert_null(batch->graph);
    assert_null(batch->X);
    assert_null(batch->E);
    if (buf) {
        assert_null(buf->graph.indptr);
        assert_int_equal(buf->graph.n_nodes, 0);
    }
}

static void test_errors(void **state) {
    (void)state;
    members_t m;
    members_make(&m);
    const ag_fmat_t *const *xs = m.xs, *const *es = m.es;
    ag_batch_member_t with[3]; /* P, O, L with other features */
    ag_batch_buffer_t buf = {0};
    ag_batch_t batch;
    /* a filled buffer, so that each failure is seen to empty its graph */
    assert_int_equal(ag_batch_buffer_fill(&buf, m.all, 3, F, FE, &batch), AG_SUCCESS);
    ag_batch_destroy(&batch);
#define FILL_FAILS(want, message, ...)                                                                 \
    do {                                                                                               \
        memset(&batch, 0xA5, sizeof batch);                                                            \
        assert_failed(ag_batch_buffer_fill(__VA_ARGS__, &batch), want, message, &batch, &buf);         \
        ag_batch_destroy(&batch);                                                                      \
    } while (0)

    assert_int_equal(ag_batch_buffer_fill(&buf, m.all, 3, F, FE, NULL), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "NULL buffer or batch"));
    assert_null(buf.graph.indptr);
    memset(&batch, 0xA5, sizeof batch);
    assert_failed(ag_batch_buffer_fill(NULL, m.all, 3, F, FE, &batch), AG_EINVAL, "NULL buffer or batch", &batch, NULL);
    FILL_FAILS(AG_EINVAL, "count is 0, must be positive", &buf, m.all, 0, F, FE);
    FILL_FAILS(AG_EINVAL, "count is -1, must be positive", &buf, m.all, -1, F, FE);
    FILL_FAILS(AG_EINVAL, "ag_batch_buffer_fill: NULL members", &buf, NULL, 3, F, FE);
    /* every member without node features, or (Fe > 0) without edge features: the first with rows is named */
    FILL_FAILS(AG_EINVAL, "graph 0 has 3 nodes but no node features", &buf, members_with(with, &m, NULL, es), 3, F, FE);
    FILL_FAILS(AG_EINVAL, "graph 0 has 2 edges but no edge features", &buf, members_with(with, &m, xs, NULL), 3, F, FE);
    FILL_FAILS(AG_EINVAL, "feature widths -1 and 3", &buf, m.all, 3, -1, FE);
    FILL_FAILS(AG_EINVAL, "feature widths 2 and -2", &buf, m.all, 3, F, -2);
    const ag_batch_member_t with_null[] = {m.all[0], {NULL, NULL, NULL}};
    FILL_FAILS(AG_EINVAL, "graph 1 is NULL", &buf, with_null, 2, F, FE);

    /* features of the wrong shape, or none where the member has rows */
    const ag_fmat_t *no_x[] = {&m.PX, NULL, NULL};
    FILL_FAILS(AG_EINVAL, "ag_batch_buffer_fill: graph 2 has 2 nodes but no node features", &buf,
               members_with(with, &m, no_x, es), 3, F, FE);
    const ag_fmat_t *short_x[] = {&m.PX, NULL, &m.PX}; /* 3 rows for L's 2 nodes */
    FILL_FAILS(AG_EMISMATCH, "ag_batch_buffer_fill: graph 2 has 3 x 2 node features; expected 2 x 2", &buf,
               members_with(with, &m, short_x, es), 3, F, FE);
    FILL_FAILS(AG_EMISMATCH, "graph 0 has 3 x 2 node features; expected 3 x 4", &buf, m.all, 3, 4, FE);
    const ag_fmat_t *rows_for_nothing[] = {&m.PX, &m.LX, &m.LX}; /* O has no nodes */
    FILL_FAILS(AG_EMISMATCH, "graph 1 has 2 x 2 node features; expected 0 x 2", &buf,
               members_with(with, &m, rows_for_nothing, es), 3, F, FE);
    const ag_fmat_t *no_e[] = {NULL, NULL, &m.LE};
    FILL_FAILS(AG_EINVAL, "graph 0 has 2 edges but no edge features", &buf, members_with(with, &m, xs, no_e), 3, F, FE);
    FILL_FAILS(AG_EMISMATCH, "graph 0 has 2 x 3 edge features; expected 2 x 4", &buf, m.all, 3, F, 4);
    ag_fmat_t hollow = {NULL, 3, F}; /* a shape without data */
    const ag_fmat_t *hollow_x[] = {&hollow, NULL, &m.LX};
    FILL_FAILS(AG_EINVAL, "graph 0's node features have no data", &buf, members_with(with, &m, hollow_x, es), 3, F, FE);

    /* directed members mixed with undirected: ag_graph_batch's check */
    igraph_t dig;
    igraph_vector_int_t v;
    const igraph_integer_t arc[] = {0, 1};
    assert_int_equal(igraph_vector_int_init_array(&v, arc, 2), IGRAPH_SUCCESS);
    assert_int_equal(igraph_create(&dig, &v, 3, IGRAPH_DIRECTED), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&v);
    ag_graph_t D;
    assert_int_equal(ag_graph_from_igraph(&D, &dig), AG_SUCCESS);
    igraph_destroy(&dig);
    ag_fmat_t DE = {m.PE.data, 1, FE};
    const ag_batch_member_t mixed[] = {m.all[0], {&D, &m.PX, &DE}};
    FILL_FAILS(AG_EMISMATCH, "graph 1 is directed but graph 0 is undirected", &buf, mixed, 2, F, FE);
    ag_graph_destroy(&D);
#undef FILL_FAILS

    /* the buffer still works after the failures */
    assert_int_equal(ag_batch_buffer_fill(&buf, m.all, 3, F, FE, &batch), AG_SUCCESS);
    assert_int_equal(buf.graph.n_nodes, 5);
    assert_float_equal(batch.X[9], 10.0f, 0.0f);
    ag_batch_destroy(&batch);
    ag_batch_buffer_destroy(&buf);
    ag_batch_buffer_destroy(NULL);
    members_free(&m);
}

/* Each allocation of a fill, into a fresh buffer and into one that must grow, fails in turn:
 * AG_ENOMEM, an empty batch and graph, nothing leaked, and the buffer is usable afterwards. */
static void test_allocation_failures(void **state) {
    (void)state;
    members_t m;
    members_make(&m);
    const ag_batch_member_t lpop[] = {
        {&m.L, &m.LX, &m.LE}, {&m.P, &m.PX, &m.PE}, {&m.O, NULL, NULL}, {&m.P, &m.PX, &m.PE}};
    const int64_t live0 = ag_i_alloc_live();
    int64_t n;
    for (n = 1; n < 1000; n++) {
        ag_batch_buffer_t buf = {0};
        ag_batch_t batch;
        ag_error_t rc = ag_batch_buffer_fill(&buf, lpop, 1, F, FE, &batch);
        assert_int_equal(rc, AG_SUCCESS);
        ag_batch_destroy(&batch);
        ag_i_alloc_fail_at(n);
        rc = ag_batch_buffer_fill(&buf, lpop, 4, F, FE, &batch);
        ag_i_alloc_fail_at(0);
        if (rc == AG_SUCCESS) {
            assert_int_equal(buf.graph.n_nodes, 8);
            assert_float_equal(batch.X[15], 6.0f, 0.0f);
            assert_float_equal(batch.E[11], 5.5f, 0.0f);
        } else {
            assert_int_equal(rc, AG_ENOMEM);
            assert_null(batch.graph);
            assert_null(buf.graph.indptr);
        }
        ag_batch_destroy(&batch);
        assert_int_equal(ag_batch_buffer_fill(&buf, lpop, 4, F, FE, &batch), AG_SUCCESS);
        assert_float_equal(batch.X[0], 7.0f, 0.0f);
        ag_batch_destroy(&batch);
        ag_batch_buffer_destroy(&buf);
        if (ag_i_alloc_live() != live0) fail_msg("allocation %lld: %lld blocks leaked", (long long)n,
                                                 (long long)(ag_i_alloc_live() - live0));
        if (rc == AG_SUCCESS) break;
    }
    /* the graph's arrays and the two feature buffers */
    assert_true(n > 3);
    members_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_graphs),
        cmocka_unit_test(test_batch_runs_like_members),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
