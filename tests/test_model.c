/* Tests of the model: whole-model finite-difference gradients for node and graph tasks, the
 * configuration's JSON round trip, and configuration errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/model.h>
#include "gradcheck_testutil.h"
#include "igraph_testutil.h"
#include "internal.h"
#include "json.h"
#include "model_json.h"

/* Central differences on every parameter of the model (a sample of entries of big tensors). A step
 * of 1e-3: at 1e-2 the LeakyReLU kinks of GATv2 scores over a full mask put blocks.1.attn.Wq 2%
 * off. */
static void check_gradients(ag_model_t *m, ag_batch_t *b) {
    assert_true(ag_test_check_model_gradients(m, b, 1e-3f, 17, NULL) > 20);
}

static const int ring_edges[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 1, 3, 5, 6};

static void test_node_model_gradients(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 8, ring_edges, 7), AG_SUCCESS); /* node 7 is isolated */
    float X[8 * 5];
    ag_test_fill_signed(X, 8 * 5, 1, 1.0f);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 5;
    cfg.n_out = 3;
    cfg.hidden = 8;
    cfg.n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].attn.heads = 2;
        cfg.blocks[l].attn.head_dim = 4;
        cfg.blocks[l].attn.out_dim = 8;
        cfg.blocks[l].dropout = 0.0f;
        cfg.blocks[l].ffn_hidden = 6;
        cfg.blocks[l].ffn_dropout = 0.0f;
    }
    cfg.blocks[1].mask = AG_MASK_FULL;
    cfg.blocks[1].attn.score = AG_SCORE_GATV2;
    cfg.blocks[1].norm = AG_NORMPLACE_POST;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    ag_batch_t b;
    ag_batch_init(&b, &g, X, NULL);
    check_gradients(m, &b);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&g);
}

static void test_gat_model_gradients(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 8, ring_edges, 7), AG_SUCCESS);
    float X[8 * 6];
    ag_test_fill_signed(X, 8 * 6, 2, 1.0f);
    ag_model_config_t cfg;
    ag_model_config_gat(&cfg, 6, 3);
    cfg.blocks[0].attn.heads = 2;
    cfg.blocks[0].attn.head_dim = 3;
    for (int l = 0; l < 2; l++) {
        cfg.blocks[l].dropout = 0.0f;
        cfg.blocks[l].attn.attn_dropout = 0.0f;
    }
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    /* GAT: no input projection and the last block outputs the classes directly */
    const ag_param_list_t *p = ag_model_params(m);
    assert_non_null(ag_param_list_find(p, "blocks.0.attn.Wv"));
    assert_non_null(ag_param_list_find(p, "blocks.1.attn.a_src"));
    assert_null(ag_param_list_find(p, "blocks.0.attn.Wq"));
    ag_batch_t b;
    ag_batch_init(&b, &g, X, NULL);
    check_gradients(m, &b);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&g);
}

/* Inference takes shortcuts a training pass cannot (GAT heads of 4 x 16 written into the next
 * value with the bias added by the kernel, ELU and the residual sum in one pass): a stack of GAT
 * blocks with ELU and residuals (PyG's GATConv stack, the MUTAG benchmark's model) must give bit
 * for bit the output of a training pass without dropout, on 1 and 2 threads. */
static void test_inference_shortcuts_bit_identical(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 8, ring_edges, 7), AG_SUCCESS);
    float X[8 * 5];
    ag_test_fill_signed(X, 8 * 5, 3, 1.0f);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 5;
    cfg.n_out = 3;
    cfg.hidden = 64;
    for (int l = 0; l < cfg.n_blocks; l++) {
        ag_block_config_t *bc = &cfg.blocks[l];
        bc->attn.score = AG_SCORE_GAT;
        bc->attn.heads = 4;
        bc->attn.head_dim = 16;
        bc->attn.out_proj = 0;
        bc->norm = AG_NORMPLACE_NONE;
        bc->act = AG_ACT_ELU;
        bc->ffn = 0;
        bc->dropout = 0.0f;
        bc->attn.attn_dropout = 0.0f;
    }
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    /* nonzero biases, so that the kernel's bias is exercised */
    const ag_param_list_t *p = ag_model_params(m);
    for (int64_t t = 0; t < p->count; t++)
        ag_test_fill_signed(p->items[t].value, p->items[t].shape[0] * p->items[t].shape[1], 10 + (uint64_t)t, 0.5f);
    ag_batch_t b;
    ag_batch_init(&b, &g, X, NULL);
    for (int threads = 1; threads <= 2; threads++) {
        ag_threads_set(threads);
        float yi[8 * 3], yt[8 * 3];
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, yi), AG_SUCCESS);
        assert_int_equal(ag_model_forward(m, &b, 1, &rng, yt), AG_SUCCESS);
        if (memcmp(yi, yt, sizeof yi) != 0) fail_msg("%d threads: inference differs from training", threads);
    }
    ag_threads_set(1);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&g);
}

/* Evaluation frees a value's buffer for later values once its last reader has run, and lends the
 * feed-forward blocks two hidden buffers and the attention layers their head outputs from the
 * same buffers: a model that only predicts holds three values of N x W and two of N x Hd, where
 * it held every value of every block (20 of N x W here), each block's own two hidden buffers and
 * each attention layer's head outputs. Its predictions are the training forward's bit for bit, on 1
 * and 2 threads; a training step after it still gets every value for its backward, and an
 * evaluation after training runs in the training buffers without allocating more. */
static void test_inference_value_memory(void **state) {
    (void)state;
    enum { N = 8, F = 5, W = 16, HD = 32, C = 3 };
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, N, ring_edges, 7), AG_SUCCESS);
    float X[N * F];
    ag_test_fill_signed(X, N * F, 4, 1.0f);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = F;
    cfg.n_out = C;
    cfg.hidden = W;
    for (int l = 0; l < cfg.n_blocks; l++) {
        ag_block_config_t *bc = &cfg.blocks[l];
        bc->attn.heads = 2;
        bc->attn.head_dim = 8;
        bc->attn.out_dim = W;
        bc->ffn_hidden = HD;
        bc->dropout = bc->ffn_dropout = bc->attn.attn_dropout = 0.0f; /* training computes what evaluation does */
    }
    /* the input projection; per block pre-norm, attention, sum, norm, feed-forward, sum; the final
     * norm; the head */
    const int64_t all_values = (int64_t)N * W * (1 + 6 * cfg.n_blocks + 1) + N * C;
    const int64_t eval_bound = 3 * N * W + 2 * N * HD;
    ag_batch_t b;
    ag_batch_init(&b, &g, X, NULL);
    for (int threads = 1; threads <= 2; threads++) {
        ag_threads_set(threads);
        ag_model_t *m;
        assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
        float ye[N * C], yt[N * C], dy[N * C];
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, ye), AG_SUCCESS);
        int64_t held = ag_i_model_activation_floats(m);
        if (held > eval_bound)
            fail_msg("evaluation holds %lld floats of activations, more than 3 values and 2 hidden buffers (%lld); "
                     "all values are %lld", (long long)held, (long long)eval_bound, (long long)all_values);
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        assert_int_equal(ag_model_forward(m, &b, 1, &rng, yt), AG_SUCCESS);
        if (memcmp(ye, yt, sizeof ye) != 0) fail_msg("%d threads: evaluation differs from training", threads);
        assert_true(ag_i_model_activation_floats(m) >= all_values);
        for (int i = 0; i < N * C; i++) dy[i] = 0.1f * (float)(i % 5) - 0.2f;
        assert_int_equal(ag_model_backward(m, &b, dy), AG_SUCCESS);
        held = ag_i_model_activation_floats(m);
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, yt), AG_SUCCESS);
        assert_int_equal(ag_i_model_activation_floats(m), held);
        if (memcmp(ye, yt, sizeof ye) != 0) fail_msg("%d threads: evaluation after training differs", threads);
        ag_model_destroy(m);
    }
    ag_threads_set(1);
    ag_batch_destroy(&b);
    ag_graph_destroy(&g);
}

/* A pass that keeps no attention caches (ag_model_keep_attention 0: label, classify, eval) takes
 * each layer's q, k, v and softmax statistics from one workspace that the next layer reuses: its
 * outputs must be the caching pass's bit for bit, on 1 and 2 threads, for every kind of layer
 * (DOT with W^O, GAT writing its heads into Y, GATv2 averaging heads through W^O, the full mask's
 * blocked path); the attention weights are refused after it, and a pass that keeps them again
 * gives exactly the weights of before. A training step after a lean pass computes the same
 * gradients as one after a caching pass. */
static void test_lean_attention_pass(void **state) {
    (void)state;
    enum { N = 40, F = 6, C = 3, NE = 100 };
    int edges[2 * NE];
    for (int e = 0; e < NE; e++) { /* a ring with chords: degrees differ, every vertex has sources */
        edges[2 * e] = e % N;
        edges[2 * e + 1] = e < N ? (e + 1) % N : (e * 7 + 3) % N;
        if (edges[2 * e + 1] == edges[2 * e]) edges[2 * e + 1] = (edges[2 * e] + 2) % N;
    }
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, N, edges, NE), AG_SUCCESS);
    float X[N * F];
    ag_test_fill_signed(X, N * F, 21, 1.0f);
    for (int variant = 0; variant < 4; variant++) {
        ag_model_config_t cfg;
        ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
        cfg.in_dim = F;
        cfg.n_out = C;
        cfg.hidden = 16;
        for (int l = 0; l < cfg.n_blocks; l++) {
            ag_block_config_t *bc = &cfg.blocks[l];
            bc->dropout = bc->ffn_dropout = bc->attn.attn_dropout = 0.0f;
            bc->attn.heads = 2;
            bc->attn.head_dim = 8;
            if (variant == 1) { /* GAT, concatenated heads without W^O: they go into Y */
                bc->attn.score = AG_SCORE_GAT;
                bc->attn.out_proj = 0;
                bc->act = AG_ACT_ELU;
            } else if (variant == 2) { /* GATv2, heads averaged then W^O: the comb buffer */
                bc->attn.score = AG_SCORE_GATV2;
                bc->attn.combine = AG_HEADS_MEAN;
                bc->attn.norm = AG_NORM_RELU;
            } else if (variant == 3) {
                bc->mask = AG_MASK_FULL;
            }
        }
        ag_model_t *m;
        assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
        const ag_param_list_t *p = ag_model_params(m);
        for (int64_t t = 0; t < p->count; t++)
            ag_test_fill_signed(p->items[t].value, p->items[t].shape[0] * p->items[t].shape[1], 30 + (uint64_t)t,
                                0.5f);
        ag_batch_t b;
        ag_batch_init(&b, &g, X, NULL);
        for (int threads = 1; threads <= 2; threads++) {
            ag_threads_set(threads);
            float yk[N * C], yl[N * C];
            float *alpha[AG_MODEL_MAX_BLOCKS] = {0}; /* (M x H) each block's weights of the caching pass */
            int64_t bytes[AG_MODEL_MAX_BLOCKS] = {0};
            const ag_mask_t *mask;
            assert_int_equal(ag_model_keep_attention(m, 1), 1);
            assert_int_equal(ag_model_forward(m, &b, 0, NULL, yk), AG_SUCCESS);
            for (int l = 0; l < cfg.n_blocks; l++) {
                assert_int_equal(ag_model_attention_weights(m, &b, l, &mask, NULL), AG_SUCCESS);
                bytes[l] = mask->n_entries * ag_model_attention_heads(m, l) * (int64_t)sizeof(float);
                alpha[l] = malloc((size_t)bytes[l]);
                assert_non_null(alpha[l]);
                assert_int_equal(ag_model_attention_weights(m, &b, l, &mask, alpha[l]), AG_SUCCESS);
            }
            assert_int_equal(ag_model_keep_attention(m, 0), 1);
            assert_int_equal(ag_model_forward(m, &b, 0, NULL, yl), AG_SUCCESS);
            if (memcmp(yk, yl, sizeof yk) != 0)
                fail_msg("variant %d, %d threads: the lean pass changes the outputs", variant, threads);
            assert_int_equal(ag_model_attention_weights(m, &b, 0, &mask, NULL), AG_EINVAL);
            /* twice: the second lean pass runs in the buffers the first left in the pool */
            assert_int_equal(ag_model_forward(m, &b, 0, NULL, yl), AG_SUCCESS);
            if (memcmp(yk, yl, sizeof yk) != 0)
                fail_msg("variant %d, %d threads: a second lean pass changes the outputs", variant, threads);
            assert_int_equal(ag_model_keep_attention(m, 1), 0);
            assert_int_equal(ag_model_forward(m, &b, 0, NULL, yl), AG_SUCCESS);
            if (memcmp(yk, yl, sizeof yk) != 0)
                fail_msg("variant %d, %d threads: a caching pass after a lean one differs", variant, threads);
            for (int l = 0; l < cfg.n_blocks; l++) {
                float *a = malloc((size_t)bytes[l]);
                assert_non_null(a);
                assert_int_equal(ag_model_attention_weights(m, &b, l, &mask, a), AG_SUCCESS);
                if (memcmp(a, alpha[l], (size_t)bytes[l]) != 0)
                    fail_msg("variant %d, %d threads: block %d's attention weights differ after a lean pass", variant,
                             threads, l);
                free(a);
                free(alpha[l]);
            }
        }
        /* training: a step after a lean pass has the gradients of a step after a caching one */
        float *grads[2];
        int64_t P = 0;
        for (int64_t t = 0; t < p->count; t++) P += p->items[t].shape[0] * p->items[t].shape[1];
        for (int lean = 0; lean < 2; lean++) {
            float y[N * C], dy[N * C];
            ag_model_keep_attention(m, !lean);
            assert_int_equal(ag_model_forward(m, &b, 0, NULL, y), AG_SUCCESS);
            ag_rng_t rng;
            ag_rng_init(&rng, 5);
            ag_param_list_zero_grad(p);
            assert_int_equal(ag_model_forward(m, &b, 1, &rng, y), AG_SUCCESS);
            for (int i = 0; i < N * C; i++) dy[i] = 0.1f * (float)(i % 7) - 0.3f;
            assert_int_equal(ag_model_backward(m, &b, dy), AG_SUCCESS);
            grads[lean] = malloc((size_t)P * sizeof(float));
            assert_non_null(grads[lean]);
            int64_t o = 0;
            for (int64_t t = 0; t < p->count; t++) {
                int64_t n = p->items[t].shape[0] * p->items[t].shape[1];
                memcpy(grads[lean] + o, p->items[t].grad, (size_t)n * sizeof(float));
                o += n;
            }
        }
        if (memcmp(grads[0], grads[1], (size_t)P * sizeof(float)) != 0)
            fail_msg("variant %d: a training step after a lean pass has other gradients", variant);
        free(grads[0]);
        free(grads[1]);
        ag_threads_set(1);
        ag_batch_destroy(&b);
        ag_model_destroy(m);
    }
    ag_graph_destroy(&g);
}

static void test_graph_model_gradients(void **state) {
    (void)state;
    /* three graphs of different sizes in one batch, edge features in the key */
    ag_graph_t g1, g2, g3, batch;
    const int e1[] = {0, 1, 1, 2};
    const int e2[] = {0, 1, 1, 2, 2, 3, 3, 0};
    assert_int_equal(ag_test_igraph_graph(&g1, 3, e1, 2), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g2, 4, e2, 4), AG_SUCCESS);
    assert_int_equal(ag_test_igraph_graph(&g3, 1, NULL, 0), AG_SUCCESS);
    const ag_graph_t *parts[3] = {&g1, &g2, &g3};
    assert_int_equal(ag_graph_batch(&batch, parts, 3), AG_SUCCESS);
    assert_int_equal(batch.n_graphs, 3);
    float X[8 * 4], E[6 * 2];
    ag_test_fill_signed(X, 8 * 4, 3, 1.0f);
    ag_test_fill_signed(E, 6 * 2, 4, 1.0f);
    ag_readout_kind_t kinds[] = {AG_READOUT_MEAN, AG_READOUT_ATTENTION, AG_READOUT_SUM};
    /* r = 3: three readouts side by side (max, mean, attention), each with its own gradient;
     * r = 4: a sum readout straight into a linear head (head_hidden 0, --head-hidden 0) */
    for (int r = 0; r < 5; r++) {
        ag_model_config_t cfg;
        ag_model_config_default(&cfg, r == 0 ? AG_TASK_GRAPH_REGRESSION : AG_TASK_GRAPH_MULTITASK);
        cfg.in_dim = 4;
        cfg.edge_dim = 2;
        cfg.n_out = 2;
        cfg.hidden = 6;
        cfg.n_blocks = 1;
        cfg.blocks[0].attn.heads = 2;
        cfg.blocks[0].attn.head_dim = 3;
        cfg.blocks[0].attn.out_dim = 6;
        cfg.blocks[0].attn.edge_mode = r == 2 ? AG_EDGE_BIAS : AG_EDGE_KEY;
        cfg.blocks[0].mask = r == 1 ? AG_MASK_KHOP : AG_MASK_NEIGHBOURS;
        cfg.blocks[0].hops = 2;
        cfg.blocks[0].dropout = 0.0f;
        cfg.blocks[0].ffn_hidden = 5;
        cfg.blocks[0].ffn_dropout = 0.0f;
        if (r < 3) {
            cfg.readouts[0] = kinds[r];
        } else if (r == 4) {
            cfg.readouts[0] = AG_READOUT_SUM;
        } else {
            cfg.n_readouts = 3;
            cfg.readouts[0] = AG_READOUT_MAX;
            cfg.readouts[1] = AG_READOUT_MEAN;
            cfg.readouts[2] = AG_READOUT_ATTENTION;
        }
        cfg.head_hidden = r == 4 ? 0 : 5;
        cfg.head_dropout = 0.0f;
        ag_model_t *m;
        assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
        ag_batch_t b;
        ag_batch_init(&b, &batch, X, E);
        assert_int_equal(ag_model_out_rows(m, &b), 3);
        if (r == 4) {
            /* no hidden layer: the output layer reads the 6-wide readout itself */
            assert_null(ag_param_list_find(ag_model_params(m), "head.hidden.W"));
            const ag_param_t *ow = ag_param_list_find(ag_model_params(m), "head.out.W");
            assert_non_null(ow);
            assert_int_equal(ow->shape[0], 6);
            assert_int_equal(ow->shape[1], 2);
        }
        if (r == 3) {
            /* the head's first layer reads the three 6-wide readouts side by side */
            const ag_param_t *hw = ag_param_list_find(ag_model_params(m), "head.hidden.W");
            assert_non_null(hw);
            assert_int_equal(hw->shape[0], 18);
            assert_non_null(ag_param_list_find(ag_model_params(m), "readout.gate.w"));
        }
        check_gradients(m, &b);
        ag_batch_destroy(&b);
        ag_model_destroy(m);
    }
    ag_graph_destroy(&batch);
    ag_graph_destroy(&g1);
    ag_graph_destroy(&g2);
    ag_graph_destroy(&g3);
}

static void test_config_json_roundtrip(void **state) {
    (void)state;
    ag_model_config_t cfg, back;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_MULTITASK);
    cfg.in_dim = 40;
    cfg.edge_dim = 7;
    cfg.n_out = 12;
    cfg.blocks[1].mask = AG_MASK_KHOP;
    cfg.blocks[1].hops = 3;
    cfg.blocks[2].attn.score = AG_SCORE_GATV2;
    cfg.blocks[2].attn.edge_mode = AG_EDGE_BIAS;
    cfg.readouts[0] = AG_READOUT_ATTENTION;
    cfg.seed = 18446744073709551615ULL;
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_SUCCESS);
    ag_json_t *j;
    assert_int_equal(ag_json_parse(sb.data, sb.len, "config", &j), AG_SUCCESS);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_SUCCESS);
    assert_int_equal(back.task, AG_TASK_GRAPH_MULTITASK);
    assert_int_equal(back.edge_dim, 7);
    assert_int_equal(back.blocks[1].hops, 3);
    assert_int_equal(back.blocks[1].mask, AG_MASK_KHOP);
    assert_int_equal(back.blocks[2].attn.score, AG_SCORE_GATV2);
    assert_int_equal(back.blocks[2].attn.edge_mode, AG_EDGE_BIAS);
    assert_int_equal(back.n_readouts, 1);
    assert_int_equal(back.readouts[0], AG_READOUT_ATTENTION);
    assert_true(back.seed == cfg.seed);
    assert_float_equal(back.blocks[0].dropout, cfg.blocks[0].dropout, 0.0f);
    ag_json_free(j);
    /* a bad field is named */
    const char *bad = strstr(sb.data, "\"score\": \"dot\"");
    assert_non_null(bad);
    memcpy((char *)bad + 10, "xyz", 3);
    assert_int_equal(ag_json_parse(sb.data, sb.len, "config", &j), AG_SUCCESS);
    assert_int_equal(ag_model_config_from_json(&back, j), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), "blocks[0].score"));
    ag_json_free(j);
    ag_strbuf_destroy(&sb);
}

/* Parses text as a configuration; returns from_json's code and leaves the seed in *seed. */
static ag_error_t config_from_text(const char *text, uint64_t *seed) {
    ag_json_t *j;
    assert_int_equal(ag_json_parse(text, strlen(text), "config", &j), AG_SUCCESS);
    ag_model_config_t back;
    ag_error_t rc = ag_model_config_from_json(&back, j);
    if (rc == AG_SUCCESS) *seed = back.seed;
    ag_json_free(j);
    return rc;
}

/* to_json writes names indexed by the enum fields, so it refuses values out of range instead of
 * reading past its tables; from_json reads the seed as exactly 1-20 digits up to 2^64-1. */
static void test_config_json_checks(void **state) {
    (void)state;
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_GRAPH_REGRESSION);
    cfg.in_dim = 3;
    cfg.n_out = 1;
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    cfg.blocks[1].attn.score = (ag_score_t)3;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    assert_string_equal(ag_error_message(), "model configuration: blocks[1].score is 3, not one of the 3 known values");
    cfg.blocks[1].attn.score = AG_SCORE_DOT;
    cfg.blocks[0].ffn_act = (ag_act_kind_t)-1;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "blocks[0].ffn_act is -1"));
    cfg.blocks[0].ffn_act = AG_ACT_GELU;
    cfg.task = (ag_task_t)9;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "config.task is 9"));
    cfg.task = AG_TASK_GRAPH_REGRESSION;
    cfg.readouts[0] = AG_READOUT_COUNT;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    cfg.readouts[0] = AG_READOUT_MEAN;
    cfg.n_readouts = AG_READOUT_COUNT + 1;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    cfg.n_readouts = 1;
    cfg.n_blocks = AG_MODEL_MAX_BLOCKS + 1;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "blocks, not 1 to"));
    cfg.n_blocks = 2;
    assert_int_equal(sb.len, 0); /* nothing written by a refused call */
    assert_int_equal(ag_model_config_to_json(NULL, &sb), AG_EINVAL);
    assert_int_equal(ag_model_config_to_json(&cfg, NULL), AG_EINVAL);
    cfg.seed = 12345;
    assert_int_equal(ag_model_config_to_json(&cfg, &sb), AG_SUCCESS);
    /* the seed, edited in the text */
    char *at = strstr(sb.data, "\"seed\": \"12345\"");
    assert_non_null(at);
    size_t head = (size_t)(at - sb.data) + 9, tail = head + 5; /* the digits are [head, tail) */
    static const struct {
        const char *digits;
        int ok;
        uint64_t value;
    } cases[] = {{"0", 1, 0},
                 {"18446744073709551615", 1, UINT64_MAX},
                 {"18446744073709551616", 0, 0}, /* 2^64 */
                 {"99999999999999999999", 0, 0},
                 {"000000000000000000007", 0, 0}, /* 21 digits */
                 {"", 0, 0},
                 {"12a", 0, 0},
                 {"-1", 0, 0},
                 {" 7", 0, 0},
                 {"+7", 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        assert_true(sb.len + 32 < sizeof text);
        snprintf(text, sizeof text, "%.*s%s%s", (int)head, sb.data, cases[i].digits, sb.data + tail);
        uint64_t seed = 1;
        ag_error_t rc = config_from_text(text, &seed);
        if (cases[i].ok) {
            if (rc != AG_SUCCESS) fail_msg("seed '%s': %s", cases[i].digits, ag_error_message());
            assert_true(seed == cases[i].value);
        } else {
            if (rc != AG_EMODEL) fail_msg("seed '%s' was taken", cases[i].digits);
            assert_non_null(strstr(ag_error_message(), "config.seed must be a decimal string"));
        }
    }
    ag_strbuf_destroy(&sb);
}

static void test_config_errors(void **state) {
    (void)state;
    ag_model_config_t cfg;
    ag_model_t *m;
    ag_model_config_gat(&cfg, 10, 3);
    cfg.blocks[1].attn.head_dim = 4; /* no node head: the last block must give n_out columns */
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "n_out = 3"));
    assert_null(m);
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 4;
    cfg.n_out = 0;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    cfg.n_out = 2;
    cfg.n_blocks = 0;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    cfg.n_blocks = 1;
    cfg.blocks[0].dropout = 1.5f;
    assert_int_equal(ag_model_create(&m, &cfg), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "block 0: dropout"));
    ag_task_t t;
    assert_int_equal(ag_task_from_name("graph-regression", &t), AG_SUCCESS);
    assert_int_equal(t, AG_TASK_GRAPH_REGRESSION);
    assert_int_equal(ag_task_from_name("nonsense", &t), AG_EINVAL);
}

static void test_backward_needs_training_forward(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 8, ring_edges, 7), AG_SUCCESS);
    float X[8 * 5], out[8 * 2];
    ag_test_fill_signed(X, 8 * 5, 5, 1.0f);
    ag_model_config_t cfg;
    ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
    cfg.in_dim = 5;
    cfg.n_out = 2;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
    ag_batch_t b;
    ag_batch_init(&b, &g, X, NULL);
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_SUCCESS);
    assert_int_equal(ag_model_backward(m, &b, out), AG_EINVAL);
    assert_int_equal(ag_model_forward(m, &b, 1, NULL, out), AG_EINVAL); /* training needs an rng */
    /* evaluation is deterministic and dropout-free: two passes agree exactly */
    float out2[8 * 2];
    assert_int_equal(ag_model_forward(m, &b, 0, NULL, out2), AG_SUCCESS);
    assert_memory_equal(out, out2, sizeof out);
    /* backward needs the very batch of the last training forward: another batch of the same sizes
     * (other features) is refused, as is the same batch made to wrap other data, and a second
     * backward of one forward (the layers' caches are spent: it would add half a gradient) */
    float Y[8 * 5];
    ag_test_fill_signed(Y, 8 * 5, 9, 1.0f);
    ag_batch_t c;
    ag_batch_init(&c, &g, Y, NULL);
    ag_rng_t rng;
    ag_rng_init(&rng, 3);
    assert_int_equal(ag_model_forward(m, &b, 1, &rng, out), AG_SUCCESS);
    assert_int_equal(ag_model_backward(m, &c, out), AG_EINVAL);
    assert_string_equal(ag_error_message(),
                        "model backward: no training forward pass on this batch since the last backward");
    const ag_mask_t *mask;
    assert_int_equal(ag_model_attention_weights(m, &c, 0, &mask, NULL), AG_EINVAL);
    assert_int_equal(ag_model_attention_weights(m, &b, 0, &mask, NULL), AG_SUCCESS);
    b.X = Y;
    assert_int_equal(ag_model_backward(m, &b, out), AG_EINVAL);
    b.X = X;
    ag_graph_t g2; /* a graph of other edges */
    assert_int_equal(ag_test_igraph_graph(&g2, 8, ring_edges, 6), AG_SUCCESS);
    b.graph = &g2;
    assert_int_equal(ag_model_backward(m, &b, out), AG_EINVAL);
    b.graph = &g;
    if (ag_model_backward(m, &b, out) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    assert_int_equal(ag_model_backward(m, &b, out), AG_EINVAL);
    /* a forward refused before it computes anything leaves the last one usable */
    assert_int_equal(ag_model_forward(m, &b, 1, &rng, out), AG_SUCCESS);
    c.X = NULL;
    assert_int_equal(ag_model_forward(m, &c, 1, &rng, out), AG_EINVAL);
    if (ag_model_backward(m, &b, out) != AG_SUCCESS) fail_msg("%s", ag_error_message());
    ag_batch_destroy(&c);
    ag_batch_destroy(&b);
    ag_model_destroy(m);
    ag_graph_destroy(&g);
    ag_graph_destroy(&g2);
}

/* A batch of lone vertices (a salt's ions, methane) has no edges, and the batcher gives it no edge
 * features: models that read edge features (key or bias) still run forward and backward on it,
 * and give what the same batch with an empty edge array gives; a NULL batch is refused. */
static void test_batch_without_edges(void **state) {
    (void)state;
    ag_graph_t g;
    assert_int_equal(ag_test_igraph_graph(&g, 3, NULL, 0), AG_SUCCESS);
    float X[3 * 4], out[3 * 2], out2[3 * 2], dout[3 * 2] = {1, -1, 0.5f, 0, 0, 2}, none[1] = {0};
    ag_test_fill_signed(X, 3 * 4, 7, 1.0f);
    for (int k = 0; k < 2; k++) {
        ag_model_config_t cfg;
        ag_model_config_default(&cfg, AG_TASK_NODE_CLASSIFICATION);
        cfg.in_dim = 4;
        cfg.edge_dim = 2;
        cfg.n_out = 2;
        cfg.blocks[0].attn.edge_mode = k ? AG_EDGE_BIAS : AG_EDGE_KEY;
        ag_model_t *m;
        assert_int_equal(ag_model_create(&m, &cfg), AG_SUCCESS);
        ag_batch_t b, c;
        ag_batch_init(&b, &g, X, NULL);
        ag_batch_init(&c, &g, X, none);
        assert_int_equal(ag_model_forward(m, &b, 0, NULL, out), AG_SUCCESS);
        assert_int_equal(ag_model_forward(m, &c, 0, NULL, out2), AG_SUCCESS);
        assert_memory_equal(out, out2, sizeof out);
        ag_rng_t rng;
        ag_rng_init(&rng, 1);
        assert_int_equal(ag_model_forward(m, &b, 1, &rng, out), AG_SUCCESS);
        assert_int_equal(ag_model_backward(m, &b, dout), AG_SUCCESS);
        assert_int_equal(ag_model_forward(m, NULL, 0, NULL, out), AG_EINVAL);
        assert_non_null(strstr(ag_error_message(), "NULL batch"));
        assert_int_equal(ag_model_backward(m, NULL, dout), AG_EINVAL);
        assert_int_equal(ag_model_predict_batch(m, NULL, out), AG_EINVAL);
        ag_batch_destroy(&b);
        ag_batch_destroy(&c);
        ag_model_destroy(m);
    }
    ag_graph_destroy(&g);
}

int main(void) {
    igraph_set_error_handler(igraph_error_handler_ignore);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_model_gradients),
        cmocka_unit_test(test_gat_model_gradients),
        cmocka_unit_test(test_inference_shortcuts_bit_identical),
        cmocka_unit_test(test_inference_value_memory),
        cmocka_unit_test(test_lean_attention_pass),
        cmocka_unit_test(test_graph_model_gradients),
        cmocka_unit_test(test_config_json_roundtrip),
        cmocka_unit_test(test_config_json_checks),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_backward_needs_training_forward),
        cmocka_unit_test(test_batch_without_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
