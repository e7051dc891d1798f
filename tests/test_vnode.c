/*
 * test_vnode.c: the virtual node (graph token): the widened masks on a hand-made batch of two
 * graphs (neighbours, k-hop, full, with and without self-loops), the full-mask kernel over the
 * widened ranges, the vnode readout's values and gradient, whole-model finite-difference gradients
 * (token embedding included), evaluation's buffers for the widened and graph rows, configuration
 * checks, the options, bit-identical predictions after a save/load round trip, model files written
 * before the option existed, and a small learning run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include <attngraph/modelfile.h>
#include <attngraph/options.h>
#include <attngraph/prepare.h>
#include "gradcheck_testutil.h"
#include "igraph_testutil.h"
#include "json.h"
#include "model_json.h"

/* Graph A: the path 0-1-2-3 (edges 0, 1, 2); graph B: 0-1 (batch edge 3). Widened rows: A's nodes
 * 0..3, A's token 4, B's nodes 5, 6, B's token 7. */
static void two_graphs(ag_graph_t *batch) {
    ag_graph_t a, b;
    const int ea[] = {0, 1, 1, 2, 2, 3};
    const int eb[] = {0, 1};
    assert_int_equal(ag_test_igraph_graph(&a, 4, ea, 3), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&b, 2, eb, 1), AG_SUCCESS);
    const ag_graph_t *parts[2] = {&a, &b};
    assert_int_equal(ag_graph_batch(batch, parts, 2), AG_SUCCESS);
    ag_graph_destroy(&a);
    ag_graph_destroy(&b);
}

static void assert_row(const ag_mask_t *m, int64_t row, int n, const int32_t *src, const int64_t *edge) {
    if (m->indptr[row + 1] - m->indptr[row] != n)
        fail_msg("row %lld has %lld entries, expected %d", (long long)row,
                 (long long)(m->indptr[row + 1] - m->indptr[row]), n);
    for (int q = 0; q < n; q++) {
        assert_int_equal(m->src[m->indptr[row] + q], src[q]);
        assert_int_equal(m->edge[m->indptr[row] + q], edge[q]);
    }
}

static void test_mask_contents(void **state) {
    (void)state;
    ag_graph_t g;
    two_graphs(&g);
    ag_mask_t m;
    /* neighbours with self-loops */
    assert_int_equal(ag_mask_build_vnode(&m, &g, AG_MASK_NEIGHBOURS, 1, 1), AG_SUCCESS);
    assert_int_equal(m.n_nodes, 8);
    assert_int_equal(m.n_graphs, 2);
    assert_int_equal(m.n_entries, 28); /* 8 edge entries + 6 self-loops + 6 to tokens + 5 + 3 from tokens */
    {
        const int32_t s0[] = {0, 1, 4}, s1[] = {0, 1, 2, 4}, s2[] = {1, 2, 3, 4}, s3[] = {2, 3, 4};
        const int32_t s4[] = {0, 1, 2, 3, 4}, s5[] = {5, 6, 7}, s6[] = {5, 6, 7}, s7[] = {5, 6, 7};
        const int64_t e0[] = {-1, 0, -1}, e1[] = {0, -1, 1, -1}, e2[] = {1, -1, 2, -1}, e3[] = {2, -1, -1};
        const int64_t e4[] = {-1, -1, -1, -1, -1}, e5[] = {-1, 3, -1}, e6[] = {3, -1, -1}, e7[] = {-1, -1, -1};
        assert_row(&m, 0, 3, s0, e0);
        assert_row(&m, 1, 4, s1, e1);
        assert_row(&m, 2, 4, s2, e2);
        assert_row(&m, 3, 3, s3, e3);
        assert_row(&m, 4, 5, s4, e4);
        assert_row(&m, 5, 3, s5, e5);
        assert_row(&m, 6, 3, s6, e6);
        assert_row(&m, 7, 3, s7, e7);
    }
    const int64_t gp[] = {0, 5, 8};
    const int32_t ng[] = {0, 0, 0, 0, 0, 1, 1, 1};
    assert_memory_equal(m.graph_ptr, gp, sizeof gp);
    assert_memory_equal(m.node_graph, ng, sizeof ng);
    /* transposed CSR: A's token is the source of rows 0..4, in entry order */
    assert_int_equal(m.t_indptr[5] - m.t_indptr[4], 5);
    for (int q = 0; q < 5; q++) {
        int64_t k = m.t_entry[m.t_indptr[4] + q];
        assert_int_equal(m.src[k], 4);
        assert_true(k >= m.indptr[q] && k < m.indptr[q + 1]);
    }
    ag_mask_destroy(&m);

    /* neighbours without self-loops: the token does not attend to itself either */
    assert_int_equal(ag_mask_build_vnode(&m, &g, AG_MASK_NEIGHBOURS, 1, 0), AG_SUCCESS);
    assert_int_equal(m.n_entries, 8 + 6 + 4 + 2);
    {
        const int32_t s0[] = {1, 4}, s4[] = {0, 1, 2, 3}, s7[] = {5, 6};
        const int64_t e0[] = {0, -1}, e4[] = {-1, -1, -1, -1}, e7[] = {-1, -1};
        assert_row(&m, 0, 2, s0, e0);
        assert_row(&m, 4, 4, s4, e4);
        assert_row(&m, 7, 2, s7, e7);
    }
    ag_mask_destroy(&m);

    /* two hops: node 0 reaches 2 but not 3, although 0 -> token -> 3 is two steps */
    assert_int_equal(ag_mask_build_vnode(&m, &g, AG_MASK_KHOP, 2, 1), AG_SUCCESS);
    assert_int_equal(m.kind, AG_MASK_KHOP);
    {
        const int32_t s0[] = {0, 1, 2, 4}, s3[] = {1, 2, 3, 4}, s4[] = {0, 1, 2, 3, 4}, s5[] = {5, 6, 7};
        const int64_t e0[] = {-1, 0, -1, -1}, e3[] = {-1, 2, -1, -1}, e4[] = {-1, -1, -1, -1, -1}, e5[] = {-1, 3, -1};
        assert_row(&m, 0, 4, s0, e0);
        assert_row(&m, 3, 4, s3, e3);
        assert_row(&m, 4, 5, s4, e4);
        assert_row(&m, 5, 3, s5, e5);
    }
    ag_mask_destroy(&m);

    /* full: the CSR of the neighbour mask, and graph ranges that hold each graph's token */
    assert_int_equal(ag_mask_build_vnode(&m, &g, AG_MASK_FULL, 1, 1), AG_SUCCESS);
    assert_int_equal(m.kind, AG_MASK_FULL);
    assert_int_equal(m.n_entries, 28);
    assert_memory_equal(m.graph_ptr, gp, sizeof gp);
    assert_memory_equal(m.node_graph, ng, sizeof ng);
    ag_mask_destroy(&m);

    /* errors are those of ag_mask_build */
    assert_int_equal(ag_mask_build_vnode(&m, &g, AG_MASK_KHOP, 0, 1), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "hops >= 1"));
    assert_int_equal(ag_mask_build_vnode(&m, NULL, AG_MASK_FULL, 1, 1), AG_EINVAL);
    ag_graph_destroy(&g);
}

/* The token's row attends over its whole graph under both masks, so the full-mask kernel (which
 * reads the widened graph ranges) and the CSR kernel agree on the token rows and on graph B, whose
 * nodes are all neighbours. */
static void test_full_mask_over_widened_ranges(void **state) {
    (void)state;
    ag_graph_t g;
    two_graphs(&g);
    ag_mask_t mn, mf;
    assert_int_equal(ag_mask_build_vnode(&mn, &g, AG_MASK_NEIGHBOURS, 1, 1), AG_SUCCESS);
    assert_int_equal(ag_mask_build_vnode(&mf, &g, AG_MASK_FULL, 1, 1), AG_SUCCESS);
    ag_attention_config_t c;
    ag_attention_config_default(&c, 6);
    c.heads = 2;
    c.head_dim = 3;
    c.out_dim = 6;
    ag_attention_t an, af;
    assert_int_equal(ag_attention_init(&an, &c, 5), AG_SUCCESS);
    assert_int_equal(ag_attention_init(&af, &c, 5), AG_SUCCESS);
    float X[8 * 6], Yn[8 * 6], Yf[8 * 6];
    ag_test_fill_signed(X, 8 * 6, 11, 1.0f);
    assert_int_equal(ag_attention_forward(&an, &mn, X, NULL, Yn, 0, NULL), AG_SUCCESS);
    assert_int_equal(ag_attention_forward(&af, &mf, X, NULL, Yf, 0, NULL), AG_SUCCESS);
    const int same[] = {4, 5, 6, 7};
    for (int q = 0; q < 4; q++)
        for (int f = 0; f < 6; f++) assert_float_equal(Yn[same[q] * 6 + f], Yf[same[q] * 6 + f], 1e-5f);
    /* node 0 of A: 3 is no neighbour, so the two differ there */
    double diff = 0.0;
    for (int f = 0; f < 6; f++) diff += fabs(Yn[f] - Yf[f]);
    assert_true(diff > 1e-4);
    ag_attention_destroy(&an);
    ag_attention_destroy(&af);
    ag_mask_destroy(&mn);
    ag_mask_destroy(&mf);
    ag_graph_destroy(&g);
}

static void test_vnode_readout(void **state) {
    (void)state;
    ag_readout_t ro;
    ag_readout_kind_t k;
    assert_int_equal(ag_readout_kind_from_name("vnode", &k), AG_SUCCESS);
    assert_int_equal(k, AG_READOUT_VNODE);
    assert_string_equal(ag_readout_kind_name(AG_READOUT_VNODE), "vnode");
    assert_int_equal(ag_readout_init(&ro, AG_READOUT_VNODE, 2, 1), AG_SUCCESS);
    ag_param_list_t pl;
    ag_param_list_init(&pl);
    assert_int_equal(ag_readout_params(&ro, &pl, "readout"), AG_SUCCESS);
    assert_int_equal(pl.count, 0);
    ag_param_list_destroy(&pl);
    const int64_t ptr[] = {0, 2, 2, 5}; /* graph 1 is empty */
    const float X[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    float Y[6];
    assert_int_equal(ag_readout_forward(&ro, ptr, 3, X, Y), AG_SUCCESS);
    const float want[] = {3, 4, 0, 0, 9, 10};
    assert_memory_equal(Y, want, sizeof want);
    const float dY[] = {0.5f, -1, 7, 7, 2, 3};
    float dX[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(ag_readout_backward(&ro, ptr, 3, X, dY, dX), AG_SUCCESS);
    const float dwant[] = {1, 1, 1.5f, 0, 1, 1, 1, 1, 3, 4};
    assert_memory_equal(dX, dwant, sizeof dwant);
    ag_readout_destroy(&ro);
}

/* Central differences on every entry of the token embedding and of the readout's gate (when
 * there is one), and on a sample of the other parameters. */
static void check_gradients(ag_model_t *m, ag_batch_t *b) {
    static const char *const full[] = {"vnode.emb", "readout.", NULL};
    const ag_param_t *emb = ag_param_list_find(ag_model_params(m), "vnode.emb");
    assert_true(emb && emb->shape[0] * emb->shape[1] == 6);
    assert_true(ag_test_check_model_gradients(m, b, 2e-3f, 13, full) > 6);
}

static void small_config(ag_model_config_t *cfg, ag_task_t task, ag_readout_kind_t ro) {
    ag_model_config_default(cfg, task);
    cfg->in_dim = 4;
    cfg->edge_dim = 2;
    cfg->n_out = 2;
    cfg->hidden = 6;
    cfg->n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg->blocks[l].attn.heads = 2;
        cfg->blocks[l].attn.head_dim = 3;
        cfg->blocks[l].attn.out_dim = 6;
        cfg->blocks[l].attn.edge_mode = AG_EDGE_BIAS;
        cfg->blocks[l].dropout = 0.0f;
        cfg->blocks[l].ffn_hidden = 5;
        cfg->blocks[l].ffn_dropout = 0.0f;
    }
    cfg->readouts[0] = ro;
    cfg->head_hidden = 5;
    cfg->head_dropout = 0.0f;
    cfg->virtual_node = 1;
}

static void test_model_gradients(void **state) {
    (void)state;
    /* three graphs, one of a single node, with edge features */
    ag_graph_t g1, g2, g3, batch;
    const int e1[] = {0, 1, 1, 2};
    const int e2[] = {0, 1, 1, 2, 2, 3, 3, 0};
    assert_int_equal(ag_test_igraph_graph(&g1, 3, e1, 2), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g2, 4, e2, 4), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g3, 1, NULL, 0), AG_SUCCESS);
    const ag_graph_t *parts[3] = {&g1, &g2, &g3};
    assert_int_equal(ag_graph_batch(&batch, parts, 3), AG_SUCCESS);
    float X[8 * 4], E[6 * 2];
    ag_test_fill_signed(X, 8 * 4, 3, 1.0f);
    ag_test_fill_signed(E, 6 * 2, 4, 1.0f);
    /* vnode readout over neighbours then k-hop; mean readout over the full mask; attention
     * readout with GATv2 scores and edge keys; sum, vnode and attention readouts side by side
     * (the token's row between two readouts of the node rows) */
    for (int r = 0; r < 4; r++) {
        ag_model_config_t cfg;
        small_config(&cfg, AG_TASK_GRAPH_MULTITASK,
                     r == 0 ? AG_READOUT_VNODE : r == 1 ? AG_READOUT_MEAN : r == 2 ? AG_READOUT_ATTENTION : AG_READOUT_SUM);
        if (r == 3) {
            cfg.n_readouts = 3;
            cfg.readouts[1] = AG_READOUT_VNODE;
            cfg.readouts[2] = AG_READOUT_ATTENTION;
        }
        if (r == 0) cfg.blocks[1].mask = AG_MASK_KHOP;
        if (r == 1) cfg.blocks[0].mask = cfg.blocks[1].mask = AG_MASK_FULL;
        if (r == 2) {
            cfg.blocks[0].attn.score = AG_SCORE_GATV2;
            cfg.blocks[1].attn.edge_mode = AG_EDGE_KEY;
        }
        ag_model_t *m;
        assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
        const ag_param_t *emb = ag_param_list_find(ag_model_params(m), "vnode.emb");
        assert_non_null(emb);
        assert_int_equal(emb->shape[1], 6);
        ag_batch_t b;
        ag_batch_init(&b, &batch, X, E);
        assert_int_equal(ag_model_out_rows(m, &b), 3);
        check_gradients(m, &b);
        /* the token reaches the output: changing its embedding changes every graph's output */
        float o1[6], o2[6];
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, o1), AG_SUCCESS);
        emb->value[0] += 0.5f;
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, o2), AG_SUCCESS);
        emb->value[0] -= 0.5f;
        for (int q = 0; q < 3; q++)
            assert_true(fabsf(o1[2 * q] - o2[2 * q]) + fabsf(o1[2 * q + 1] - o2[2 * q + 1]) > 1e-6f);
        /* attention weights come with the widened mask (one token row per graph, after its
         * nodes); softmax rows, the tokens' included, sum to 1 per head over a neighbour mask
         * (block 0 of r = 0 and 2; the full mask's CSR lists only edges and tokens) */
        const ag_mask_t *mk;
        assert_int_equal(ag_model_attention_weights(m, &b, 0, &mk, NULL), AG_SUCCESS);
        assert_int_equal(mk->n_nodes, b.graph->n_nodes + b.graph->n_graphs);
        int64_t H = ag_model_attention_heads(m, 0);
        float *alpha = malloc((size_t)(mk->n_entries * H) * sizeof *alpha); /* (M x H) */
        assert_non_null(alpha);
        assert_int_equal(ag_model_attention_weights(m, &b, 0, &mk, alpha), AG_SUCCESS);
        int64_t tokens = 0;
        for (int64_t i = 0; i < mk->n_nodes; i++) {
            int is_token = mk->indptr[i + 1] > mk->indptr[i] && mk->edge[mk->indptr[i]] < 0 && mk->src[mk->indptr[i]] != i;
            tokens += is_token;
            for (int64_t h = 0; h < H; h++) {
                double sum = 0.0;
                for (int64_t k = mk->indptr[i]; k < mk->indptr[i + 1]; k++) sum += alpha[k * H + h];
                if (r != 1) assert_float_equal(sum, 1.0, 1e-5);
            }
        }
        assert_int_equal(tokens, b.graph->n_graphs);
        free(alpha);
        ag_batch_destroy(&b);
        ag_model_destroy(m);
    }
    /* a node task: the tokens are dropped before the node head (8 output rows) */
    ag_model_config_t cfg;
    small_config(&cfg, AG_TASK_NODE_CLASSIFICATION, AG_READOUT_MEAN);
    cfg.edge_dim = 0;
    cfg.blocks[0].attn.edge_mode = cfg.blocks[1].attn.edge_mode = AG_EDGE_NONE;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    ag_batch_t b;
    ag_batch_init(&b, &batch, X, NULL);
    assert_int_equal(ag_model_out_rows(m, &b), 8);
    check_gradients(m, &b);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&batch);
    ag_graph_destroy(&g1);
    ag_graph_destroy(&g2);
    ag_graph_destroy(&g3);
}

/* Copies every parameter of `from` into the same-named one of `to`; a head.hidden.W of `to` with
 * more input rows gets `from`'s rows at row offset `at` and zeros elsewhere. */
static void copy_params(const ag_model_t *from, ag_model_t *to, int64_t at) {
    const ag_param_list_t *pf = ag_model_params(from), *pt = ag_model_params(to);
    assert_int_equal(pf->count, pt->count);
    for (int64_t t = 0; t < pt->count; t++) {
        ag_param_t *d = &pt->items[t];
        const ag_param_t *s = ag_param_list_find(pf, d->name);
        assert_non_null(s);
        if (s->shape[0] == d->shape[0]) {
            assert_int_equal(s->shape[1], d->shape[1]);
            memcpy(d->value, s->value, (size_t)(d->shape[0] * d->shape[1]) * sizeof(float));
            continue;
        }
        assert_string_equal(d->name, "head.hidden.W");
        memset(d->value, 0, (size_t)(d->shape[0] * d->shape[1]) * sizeof(float));
        memcpy(d->value + at * d->shape[1], s->value, (size_t)(s->shape[0] * s->shape[1]) * sizeof(float));
    }
}

/* Readouts side by side are each the readout alone: a {vnode, sum} model whose head reads only
 * one half (the other half's head weights zero) predicts what the {vnode} or the {sum} model
 * with the same weights predicts, and what the half it reads is matters (the halves differ). */
static void test_several_readouts_values(void **state) {
    (void)state;
    ag_graph_t g1, g2, batch;
    const int e1[] = {0, 1, 1, 2};
    const int e2[] = {0, 1, 1, 2, 2, 3, 3, 0, 3, 4};
    assert_int_equal(ag_test_igraph_graph(&g1, 3, e1, 2), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g2, 5, e2, 5), AG_SUCCESS);
    const ag_graph_t *parts[2] = {&g1, &g2};
    assert_int_equal(ag_graph_batch(&batch, parts, 2), AG_SUCCESS);
    float X[8 * 4], E[7 * 2];
    ag_test_fill_signed(X, 8 * 4, 5, 1.0f);
    ag_test_fill_signed(E, 7 * 2, 6, 1.0f);
    ag_batch_t b;
    ag_batch_init(&b, &batch, X, E);
    ag_model_config_t both, one;
    small_config(&both, AG_TASK_GRAPH_REGRESSION, AG_READOUT_VNODE);
    both.n_readouts = 2;
    both.readouts[1] = AG_READOUT_SUM;
    ag_model_t *mb, *m1;
    assert_int_equal(ag_model_create(&mb, &both), AG_SUCCESS);
    float yb[4], y1[4], y2[4];
    for (int half = 0; half < 2; half++) {
        small_config(&one, AG_TASK_GRAPH_REGRESSION, half ? AG_READOUT_SUM : AG_READOUT_VNODE);
        assert_int_equal(ag_model_create(&m1, &one), AG_SUCCESS);
        copy_params(m1, mb, half * 6);
        assert_int_equal(ag_model_forward(m1, &b, 0, NULL, y1), AG_SUCCESS);
        assert_int_equal(ag_model_forward(mb, &b, 0, NULL, yb), AG_SUCCESS);
        for (int i = 0; i < 4; i++) assert_float_equal(yb[i], y1[i], 1e-5f * fmaxf(1.0f, fabsf(y1[i])));
        if (half) {
            double diff = 0.0;
            for (int i = 0; i < 4; i++) diff += fabs((double)y1[i] - y2[i]);
            assert_true(diff > 1e-3);
        }
        memcpy(y2, y1, sizeof y1);
        ag_model_destroy(m1);
    }
    ag_model_destroy(mb);
    ag_batch_destroy(&b);
    ag_graph_destroy(&batch);
    ag_graph_destroy(&g1);
    ag_graph_destroy(&g2);
}

/* Evaluation sizes each value's buffer, taken from a pool (model.c), by that value's own rows: the
 * nodes and graph tokens of the widened rows, the graphs of the readouts and the head. Its outputs
 * are those of a training forward without dropout, bit for bit. */
static void test_inference_rows(void **state) {
    (void)state;
    ag_graph_t g;
    two_graphs(&g);
    float X[6 * 4], E[4 * 2];
    ag_test_fill_signed(X, 6 * 4, 7, 1.0f);
    ag_test_fill_signed(E, 4 * 2, 8, 1.0f);
    ag_batch_t b;
    ag_batch_init(&b, &g, X, E);
    ag_model_config_t cfg;
    small_config(&cfg, AG_TASK_GRAPH_CLASSIFICATION, AG_READOUT_VNODE);
    cfg.n_readouts = 2;
    cfg.readouts[1] = AG_READOUT_SUM;
    for (int l = 0; l < cfg.n_blocks; l++) cfg.blocks[l].attn.attn_dropout = 0.0f;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    float ye[2 * 2], yt[2 * 2];
    ag_rng_t rng;
    ag_rng_init(&rng, 1);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, ye), AG_SUCCESS);
    assert_int_equal(ag_model_forward(m, &b, 1, &rng, yt), AG_SUCCESS);
    if (memcmp(ye, yt, sizeof ye) != 0) fail_msg("evaluation differs from training");
    ag_model_destroy(m);
    ag_batch_destroy(&b);
    ag_graph_destroy(&g);
}

static void test_config(void **state) {
    (void)state;
    ag_model_config_t cfg, back;
    ag_model_t *m;
    /* the vnode readout needs the token */
    small_config(&cfg, AG_TASK_GRAPH_CLASSIFICATION, AG_READOUT_VNODE);
    cfg.virtual_node = 0;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "vnode readout needs the virtual node"));
    cfg.virtual_node = 2;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    /* JSON round trip */
    cfg.virtual_node = 1;
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_SUCCESS);
    assert_non_null(strstr(sb.data, "\"readout\": \"vnode\""));
    ag_json_t *j;
    assert_int_equal(ag_json_parse(sb.data, sb.len, "config", &j), AG_SUCCESS);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_SUCCESS);
    assert_int_equal(back.virtual_node, 1);
    assert_int_equal(back.n_readouts, 1);
    assert_int_equal(back.readouts[0], AG_READOUT_VNODE);
    ag_json_free(j);
    /* several readouts: a comma list in the file, in order; each kind once, the token's needs the token */
    cfg.n_readouts = 2;
    cfg.readouts[1] = AG_READOUT_SUM;
    ag_strbuf_t sb2;
    ag_strbuf_init(&sb2);
    assert_int_equal(ag_model_config_to_json(&cfg, &sb2), AG_SUCCESS);
    assert_non_null(strstr(sb2.data, "\"readout\": \"vnode,sum\""));
    assert_int_equal(ag_json_parse(sb2.data, sb2.len, "config", &j), AG_SUCCESS);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_SUCCESS);
    assert_int_equal(back.n_readouts, 2);
    assert_int_equal(back.readouts[0], AG_READOUT_VNODE);
    assert_int_equal(back.readouts[1], AG_READOUT_SUM);
    ag_json_free(j);
    const char *bad_lists[] = {"vnode,vnode", "vnode,", "sum,token", ""};
    for (int i = 0; i < 4; i++) {
        char *at = strstr(sb2.data, "vnode,sum");
        ag_strbuf_t sb3;
        ag_strbuf_init(&sb3);
        ag_strbuf_append(&sb3, sb2.data, (size_t)(at - sb2.data));
        ag_strbuf_append(&sb3, bad_lists[i], strlen(bad_lists[i]));
        ag_strbuf_append(&sb3, at + 9, strlen(at + 9));
        assert_int_equal(ag_json_parse(sb3.data, sb3.len, "config", &j), AG_SUCCESS);
        assert_int_equal(ag_model_config_from_json(&back, j), AG_EMODEL);
        assert_non_null(strstr(ag_error_message(), "config.readout is missing or not a known name or list"));
        ag_json_free(j);
        ag_strbuf_destroy(&sb3);
    }
    ag_strbuf_destroy(&sb2);
    cfg.readouts[1] = AG_READOUT_VNODE;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "readout vnode given twice"));
    cfg.n_readouts = 0;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "1 to 5 readouts, not 0"));
    cfg.n_readouts = 2;
    cfg.readouts[0] = AG_READOUT_SUM;
    cfg.virtual_node = 0;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "vnode readout needs the virtual node"));
    cfg.readouts[1] = (ag_readout_kind_t)7;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "unknown readout 7 (readouts[1])"));
    cfg.n_readouts = 1;
    cfg.readouts[0] = AG_READOUT_VNODE;
    cfg.virtual_node = 1;
    /* a configuration written before the option existed has no key: off */
    char *p = strstr(sb.data, "\"virtual_node\": 1, ");
    assert_non_null(p);
    memmove(p, p + 19, strlen(p + 19) + 1);
    assert_null(strstr(sb.data, "virtual_node"));
    assert_int_equal(ag_json_parse(sb.data, strlen(sb.data), "config", &j), AG_SUCCESS);
    memset(&back, 0x55, sizeof back);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_SUCCESS);
    assert_int_equal(back.virtual_node, 0);
    ag_json_free(j);
    ag_strbuf_destroy(&sb);
    /* a bad value is named */
    const char *bad = "{\"task\": \"graph-classification\", \"in_dim\": 4, \"edge_dim\": 0, \"n_out\": 2, "
                      "\"hidden\": 8, \"input_dropout\": 0, \"readout\": \"mean\", \"head_hidden\": 0, "
                      "\"head_act\": \"relu\", \"head_dropout\": 0, \"node_head\": 1, \"virtual_node\": 3, "
                      "\"seed\": \"1\", \"blocks\": []}";
    assert_int_equal(ag_json_parse(bad, strlen(bad), "config", &j), AG_SUCCESS);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "config.virtual_node must be an integer in [0, 1]"));
    ag_json_free(j);
}

static void test_options(void **state) {
    (void)state;
    ag_net_train_options_t o;
    ag_net_train_options_init(&o);
    ag_model_config_t mc;
    ag_train_config_t tc;
    /* defaults: no token, no minimum */
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.virtual_node, 0);
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_int_equal(tc.min_epochs, 0);
    o.virtual_node = 1;
    o.readout = "sum";
    o.min_epochs = 12;
    assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_SUCCESS);
    assert_int_equal(mc.virtual_node, 1);
    assert_int_equal(mc.n_readouts, 1);
    assert_int_equal(mc.readouts[0], AG_READOUT_SUM);
    assert_int_equal(ag_net_train_options_train_config(&o, AG_TASK_GRAPH_CLASSIFICATION, &tc), AG_SUCCESS);
    assert_int_equal(tc.min_epochs, 12);
    /* the vnode readout turns the token on, alone or in a list (kept in order); a list without
     * it leaves the token off */
    static const struct {
        const char *readout;
        int virtual_node, n;
        ag_readout_kind_t kinds[3];
    } lists[] = {
        {"vnode", 1, 1, {AG_READOUT_VNODE}},
        {"sum,vnode", 1, 2, {AG_READOUT_SUM, AG_READOUT_VNODE}},
        {"mean,max,attention", 0, 3, {AG_READOUT_MEAN, AG_READOUT_MAX, AG_READOUT_ATTENTION}},
    };
    o.virtual_node = 0;
    for (int i = 0; i < 3; i++) {
        o.readout = lists[i].readout;
        assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_SUCCESS);
        assert_int_equal(mc.virtual_node, lists[i].virtual_node);
        assert_int_equal(mc.n_readouts, lists[i].n);
        assert_memory_equal(mc.readouts, lists[i].kinds, (size_t)lists[i].n * sizeof mc.readouts[0]);
    }
    const char *bad[] = {"token", "sum,sum", "sum,", ",sum", "sum,,max"};
    for (int i = 0; i < 5; i++) {
        o.readout = bad[i];
        assert_int_equal(ag_net_train_options_model_config(&o, AG_TASK_GRAPH_CLASSIFICATION, 4, 0, 2, &mc), AG_EINVAL);
        assert_non_null(strstr(ag_error_message(), "max, attention or vnode, or several of them joined by commas"));
        assert_non_null(strstr(ag_error_message(), bad[i]));
    }
}

static void test_bundle_round_trip(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/ag_vn_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ag_dataset_t ds;
    assert_int_equal(ag_dataset_load(&ds, AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv", NULL), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.rw_pe_k = 3;
    for (int r = 0; r < 3; r++) {
        ag_prepared_t p; /* the bundle takes the featuriser */
        assert_int_equal(ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, NULL, 0), AG_SUCCESS);
        ag_model_config_t mc;
        small_config(&mc, AG_TASK_GRAPH_CLASSIFICATION, r == 1 ? AG_READOUT_SUM : AG_READOUT_VNODE);
        if (r == 2) { /* the token's readout beside a sum */
            mc.n_readouts = 2;
            mc.readouts[1] = AG_READOUT_SUM;
        }
        mc.in_dim = p.featurizer.n_features;
        mc.edge_dim = p.featurizer.n_edge_features;
        mc.n_out = p.n_out;
        if (r == 1) mc.blocks[0].mask = AG_MASK_FULL;
        ag_model_t *m;
        if (ag_model_create(&m, &mc) != AG_SUCCESS) fail_msg("%s", ag_error_message());
        ag_bundle_t b, c;
        assert_int_equal(ag_bundle_init(&b, &m, &p.featurizer, &p.table, (const char *const *)p.names, p.n_out, NULL),
                         AG_SUCCESS);
        assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
        assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
        assert_int_equal(ag_model_config(c.model)->virtual_node, 1);
        assert_int_equal(ag_model_config(c.model)->n_readouts, mc.n_readouts);
        assert_memory_equal(ag_model_config(c.model)->readouts, mc.readouts, (size_t)mc.n_readouts * sizeof mc.readouts[0]);
        assert_non_null(ag_param_list_find(ag_model_params(c.model), "vnode.emb"));
        for (int64_t gi = 0; gi < ds.n_graphs; gi += 3) {
            ag_fmat_t ya = {0}, yb = {0};
            assert_int_equal(ag_bundle_predict_graph(&b, &ds.graphs[gi], NULL, &ya), AG_SUCCESS);
            assert_int_equal(ag_bundle_predict_graph(&c, &ds.graphs[gi], NULL, &yb), AG_SUCCESS);
            assert_int_equal(ya.rows * ya.cols, 2);
            assert_memory_equal(ya.data, yb.data, 2 * sizeof(float));
            ag_fmat_destroy(&ya);
            ag_fmat_destroy(&yb);
        }
        ag_bundle_destroy(&b);
        ag_bundle_destroy(&c);
        ag_prepared_destroy(&p);
    }
    ag_dataset_destroy(&ds);
    unlink(path);
}

/* A model file written before the virtual node existed (its config has no "virtual_node") loads
 * with the token off and predicts as before. Such a file is the shipped Karate model with the key
 * blanked out of its config (spaces inside the JSON string: the header keeps its length). */
static void test_old_model_files_load(void **state) {
    (void)state;
    const char *file = AG_SOURCE_DIR "/graphs/models/karate.safetensors", *old = "old-karate.safetensors";
    FILE *f = fopen(file, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 0 && n < sizeof buf);
    const char key[] = "\\\"virtual_node\\\": 0, "; /* as escaped inside the config string */
    size_t at = 0, found = 0;
    for (size_t i = 0; i + sizeof key - 1 <= n; i++)
        if (memcmp(buf + i, key, sizeof key - 1) == 0) at = i, found++;
    assert_int_equal(found, 1);
    memset(buf + at, ' ', sizeof key - 1);
    f = fopen(old, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    ag_bundle_t c, cur;
    if (ag_bundle_load(old, &c) != AG_SUCCESS) fail_msg("%s: %s", old, ag_error_message());
    if (ag_bundle_load(file, &cur) != AG_SUCCESS) fail_msg("%s: %s", file, ag_error_message());
    assert_int_equal(ag_model_config(c.model)->virtual_node, 0);
    assert_null(ag_param_list_find(ag_model_params(c.model), "vnode.emb"));
    /* the same tensors and weights as the file with the key */
    const ag_param_list_t *pc = ag_model_params(c.model), *pk = ag_model_params(cur.model);
    assert_int_equal(pc->count, pk->count);
    for (int64_t i = 0; i < pc->count; i++) {
        assert_string_equal(pc->items[i].name, pk->items[i].name);
        assert_memory_equal(pc->items[i].value, pk->items[i].value,
                            (size_t)(pk->items[i].shape[0] * pk->items[i].shape[1]) * sizeof(float));
    }
    ag_bundle_destroy(&c);
    ag_bundle_destroy(&cur);
    unlink(old);
}

/* Rings and paths of 5..12 nodes, the degree as feature: the vnode readout learns them apart. */
static void test_learns_rings_versus_paths(void **state) {
    (void)state;
    int G = 48;
    ag_trainset_t set;
    ag_trainset_init(&set, AG_TASK_GRAPH_CLASSIFICATION);
    set.n_classes = 2;
    assert_int_equal(ag_trainset_resize(&set, G, G, 1), AG_SUCCESS);
    for (int gi = 0; gi < G; gi++) {
        int n = 5 + (gi / 2) % 8, ring = gi % 2;
        igraph_t ig;
        igraph_ring(&ig, n, IGRAPH_UNDIRECTED, 0, ring);
        ag_example_t *ex = &set.examples[gi];
        assert_int_equal(ag_graph_from_igraph(&ex->graph, &ig), AG_SUCCESS);
        assert_int_equal(ag_fmat_init(&ex->X, n, 2), AG_SUCCESS);
        for (int v = 0; v < n; v++) {
            ex->X.data[2 * v] = (float)(ex->graph.indptr[v + 1] - ex->graph.indptr[v]);
            ex->X.data[2 * v + 1] = 1.0f;
        }
        set.targets[gi] = (float)ring;
        igraph_destroy(&ig);
    }
    ag_model_config_t cfg;
    small_config(&cfg, AG_TASK_GRAPH_CLASSIFICATION, AG_READOUT_VNODE);
    cfg.in_dim = 2;
    cfg.edge_dim = 0;
    cfg.hidden = 16;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].attn.edge_mode = AG_EDGE_NONE;
        cfg.blocks[l].attn.head_dim = 8;
        cfg.blocks[l].attn.out_dim = 16;
        cfg.blocks[l].ffn_hidden = 16;
    }
    cfg.head_hidden = 16;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    int64_t tr[32], te[16];
    for (int i = 0; i < 32; i++) tr[i] = i;
    for (int i = 0; i < 16; i++) te[i] = 32 + i;
    ag_train_config_t tc;
    ag_train_config_default(&tc, AG_TASK_GRAPH_CLASSIFICATION);
    tc.optim.lr = 0.01f;
    tc.epochs = 60;
    tc.batch_size = 8;
    ag_train_result_t res;
    assert_int_equal(ag_model_train(m, &set, tr, 32, NULL, 0, &tc, &res), AG_SUCCESS);
    ag_scores_t sc;
    assert_int_equal(ag_model_evaluate(m, &set, te, 16, &sc), AG_SUCCESS);
    if (sc.accuracy < 0.99) fail_msg("rings vs paths accuracy with the vnode readout %.3f", sc.accuracy);
    ag_model_destroy(m);
    ag_trainset_destroy(&set);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_contents),
        cmocka_unit_test(test_full_mask_over_widened_ranges),
        cmocka_unit_test(test_vnode_readout),
        cmocka_unit_test(test_several_readouts_values),
        cmocka_unit_test(test_inference_rows),
        cmocka_unit_test(test_model_gradients),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_bundle_round_trip),
        cmocka_unit_test(test_old_model_files_load),
        cmocka_unit_test(test_learns_rings_versus_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
