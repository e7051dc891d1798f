/* Determinism of the attention layer: forward and backward bit-identical for 1 and 2 threads and
 * from run to run with the same seeds (attention dropout included); dropout follows the draws of
 * attention.h exactly and drops a fraction near p; eval mode ignores dropout; inference into Y or
 * into a caller's workspace gives the bits of the layer's own buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "attention_testutil.h"
#include "layers_internal.h"

/* A batch of 9 graphs of 20 to 300 nodes (about 740 nodes, more than one chunk of destinations,
 * and more than one block of sources for the full mask), undirected, with self-loops, multi-edges
 * and isolated nodes. */
static void big_batch(ag_graph_t *g) {
    const int64_t nn[] = {60, 300, 20, 75, 33, 90, 41, 64, 57};
    const int64_t ne[] = {150, 700, 30, 200, 70, 240, 90, 160, 140};
    const int64_t iso[] = {2, 3, 1, 0, 2, 1, 0, 4, 1};
    assert_int_equal(ag_test_graph_random(g, 2026, 0, 9, nn, ne, iso, 0.05, 0.05), 0);
}

/* Everything one training step of the layer produces. */
typedef struct run_t {
    float *Y, *A, *dX, *dE, *grads;
    int64_t nY, nA, nX, nE, nG;
    uint64_t stream_after;
} run_t;

static void run_free(run_t *r) {
    free(r->Y); free(r->A); free(r->dX); free(r->dE); free(r->grads);
    memset(r, 0, sizeof *r);
}

/* training: 0 an inference pass, 1 a training pass and its backward, TRAIN_FORWARD a training pass
 * alone (what is compared with inference needs no gradients, and under valgrind the backward of
 * the full mask's 300-vertex graph costs minutes). lend: an inference pass writes the head outputs
 * into a workspace of the caller's, as a model's evaluation does; the layer then keeps none and
 * refuses a backward. */
enum { TRAIN_FORWARD = 2 };
static void run_layer_lend(run_t *r, const ag_graph_t *g, const ag_mask_t *m, const ag_attention_config_t *cfg,
                           int threads, uint64_t layer_seed, uint64_t drop_seed, int training, int lend) {
    memset(r, 0, sizeof *r); /* evaluation runs leave grads NULL, and run_free frees it */
    ag_threads_set(threads);
    ag_attention_t layer;
    assert_int_equal(ag_attention_init(&layer, cfg, layer_seed), AG_SUCCESS);
    at_layer_randomise(&layer, 0.7f, layer_seed); /* nonzero biases too */
    const int64_t N = g->n_nodes, F = cfg->in_dim, Fe = cfg->edge_dim, O = ag_attention_out_dim(cfg);
    r->nY = N * O; r->nA = m->n_entries * cfg->heads; r->nX = N * F; r->nE = g->n_edges * Fe;
    float *X = malloc(sizeof *X * (size_t)r->nX);        /* (N x F) */
    float *E = malloc(sizeof *E * (size_t)(r->nE + 1));  /* (E x Fe) */
    float *R = malloc(sizeof *R * (size_t)r->nY);        /* (N x O) */
    r->Y = malloc(sizeof *r->Y * (size_t)r->nY);
    r->A = malloc(sizeof *r->A * (size_t)(r->nA + 1));
    r->dX = calloc((size_t)r->nX, sizeof *r->dX);
    r->dE = calloc((size_t)(r->nE + 1), sizeof *r->dE);
    ag_test_fill_uniform(X, r->nX, -1, 1, 1);
    ag_test_fill_uniform(E, r->nE, -1, 1, 2);
    ag_test_fill_uniform(R, r->nY, -1, 1, 3);
    ag_rng_t rng;
    ag_rng_init(&rng, drop_seed);
    const float *Earg = cfg->edge_mode ? E : NULL;
    if (lend) {
        float *ws = malloc(sizeof *ws * (size_t)(N * cfg->heads * cfg->head_dim)); /* (N x H*D) */
        assert_int_equal(ag_i_attention_forward_xs(&layer, m, X, NULL, Earg, r->Y, 0, &rng, ws), AG_SUCCESS);
        free(ws);
        assert_int_equal(ag_i_attention_head_floats(&layer), 0);
        assert_int_equal(ag_attention_backward(&layer, m, X, Earg, R, r->dX, NULL), AG_EINVAL);
    } else {
        assert_int_equal(ag_attention_forward(&layer, m, X, Earg, r->Y, training != 0, &rng), AG_SUCCESS);
    }
    r->stream_after = rng.stream;
    assert_int_equal(ag_attention_weights(&layer, m, r->A), AG_SUCCESS);
    if (training == 1) {
        ag_param_list_t list;
        ag_param_list_init(&list);
        assert_int_equal(ag_attention_params(&layer, &list, ""), AG_SUCCESS);
        ag_param_list_zero_grad(&list);
        assert_int_equal(ag_attention_backward(&layer, m, X, Earg, R, r->dX, cfg->edge_mode ? r->dE : NULL),
                         AG_SUCCESS);
        r->nG = ag_param_list_size(&list);
        r->grads = malloc(sizeof *r->grads * (size_t)r->nG);
        int64_t off = 0;
        for (int64_t t = 0; t < list.count; t++) {
            int64_t n = list.items[t].shape[0] * list.items[t].shape[1];
            memcpy(r->grads + off, list.items[t].grad, sizeof *r->grads * (size_t)n);
            off += n;
        }
        ag_param_list_destroy(&list);
    }
    free(X); free(E); free(R);
    ag_attention_destroy(&layer);
    ag_threads_set(1);
}

static void run_layer(run_t *r, const ag_graph_t *g, const ag_mask_t *m, const ag_attention_config_t *cfg,
                      int threads, uint64_t layer_seed, uint64_t drop_seed, int training) {
    run_layer_lend(r, g, m, cfg, threads, layer_seed, drop_seed, training, 0);
}

static int same_bits(const float *a, const float *b, int64_t n) {
    return (n == 0) || (a && b && memcmp(a, b, sizeof *a * (size_t)n) == 0);
}

static void expect_identical(const run_t *a, const run_t *b, const char *what) {
    if (!same_bits(a->Y, b->Y, a->nY)) fail_msg("%s: outputs differ", what);
    if (!same_bits(a->A, b->A, a->nA)) fail_msg("%s: attention weights differ", what);
    if (!same_bits(a->dX, b->dX, a->nX)) fail_msg("%s: dX differs", what);
    if (!same_bits(a->dE, b->dE, a->nE)) fail_msg("%s: dE differs", what);
    if (a->nG != b->nG || !same_bits(a->grads, b->grads, a->nG)) fail_msg("%s: parameter gradients differ", what);
}

static const ag_mask_kind_t KINDS[] = {AG_MASK_NEIGHBOURS, AG_MASK_KHOP, AG_MASK_FULL};

/* The configurations compared across thread counts: every scoring with edge features, and
 * without them the kernels of their own: the full mask's fast path (DOT), the head-lane CSR
 * kernels of attention_csr.c on neighbour and k-hop masks (DOT and GAT, softmax and ReLU
 * weights), and GAT's vector forward for 8 heads of 8 (the gat preset's hidden layer) and 4 of 16
 * (the molecule models' 64-wide blocks). heads 0: at_config's 2 heads of 3. */
static const struct {
    int score, norm, edge, combine;
    int64_t heads, head_dim;
} THREAD_CONFIGS[] = {
    {AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 0, 0},
    {AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_BIAS, AT_CONCAT, 0, 0},
    {AG_SCORE_GATV2, AG_NORM_RELU, AG_EDGE_KEY, AT_MEAN, 0, 0},
    {AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT_WO, 0, 0},
    {AG_SCORE_DOT, AG_NORM_RELU, AG_EDGE_NONE, AT_CONCAT_WO, 0, 0},
    {AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT, 0, 0},
    {AG_SCORE_GAT, AG_NORM_RELU, AG_EDGE_NONE, AT_MEAN, 0, 0},
    {AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT, 8, 8},
    {AG_SCORE_GAT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT_WO, 4, 16},
};

/* 1 thread against 2 threads, and two runs with the same seeds, every configuration above on every
 * mask kind, with dropout on and off. */
static void test_threads_and_runs_bit_identical(void **state) {
    (void)state;
    ag_graph_t g;
    big_batch(&g);
    for (int kind = 0; kind < 3; kind++) {
        ag_mask_t m;
        assert_int_equal(ag_mask_build(&m, &g, KINDS[kind], 2, 1), AG_SUCCESS);
        for (size_t t = 0; t < sizeof THREAD_CONFIGS / sizeof THREAD_CONFIGS[0]; t++)
            for (int dropout = 0; dropout < 2; dropout++) {
                ag_attention_config_t cfg = at_config(THREAD_CONFIGS[t].score, THREAD_CONFIGS[t].norm,
                                                      THREAD_CONFIGS[t].edge, THREAD_CONFIGS[t].combine, 8);
                if (THREAD_CONFIGS[t].heads) {
                    cfg.heads = THREAD_CONFIGS[t].heads;
                    cfg.head_dim = THREAD_CONFIGS[t].head_dim;
                }
                cfg.attn_dropout = dropout ? 0.25f : 0.0f;
                char what[128];
                snprintf(what, sizeof what, "%s %s edges %s %lldx%lld mask %d dropout %d", at_score_name((int)cfg.score),
                         at_norm_name((int)cfg.norm), at_edge_name((int)cfg.edge_mode), (long long)cfg.heads,
                         (long long)cfg.head_dim, kind, dropout);
                run_t one, two;
                run_layer(&one, &g, &m, &cfg, 1, 42, 7, 1);
                run_layer(&two, &g, &m, &cfg, 2, 42, 7, 1);
                expect_identical(&one, &two, what);
                if (t < 3) {
                    /* run to run on one thread, for the three scorings: the configurations after
                     * them are here for their kernels' thread splits, which a rerun does not vary */
                    run_t again;
                    run_layer(&again, &g, &m, &cfg, 1, 42, 7, 1);
                    expect_identical(&one, &again, what);
                    run_free(&again);
                }
                if (dropout) {
                    /* one stream per call that drops */
                    assert_int_equal(one.stream_after, 1);
                    /* another dropout seed gives another result: the draws are really used */
                    run_t other;
                    run_layer(&other, &g, &m, &cfg, 1, 42, 8, 1);
                    assert_false(same_bits(one.Y, other.Y, one.nY));
                    run_free(&other);
                }
                run_free(&one); run_free(&two);
            }
        ag_mask_destroy(&m);
    }
    ag_test_graph_free(&g);
}

/* The same seed initialises the same weights; another seed others. */
static void test_init_seeded(void **state) {
    (void)state;
    ag_attention_config_t cfg = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_KEY, AT_CONCAT_WO, 8);
    ag_attention_t a, b, c;
    assert_int_equal(ag_attention_init(&a, &cfg, 5), AG_SUCCESS);
    assert_int_equal(ag_attention_init(&b, &cfg, 5), AG_SUCCESS);
    assert_int_equal(ag_attention_init(&c, &cfg, 6), AG_SUCCESS);
    ag_param_list_t la, lb, lc;
    ag_param_list_init(&la); ag_param_list_init(&lb); ag_param_list_init(&lc);
    assert_int_equal(ag_attention_params(&a, &la, "x"), AG_SUCCESS);
    assert_int_equal(ag_attention_params(&b, &lb, "x"), AG_SUCCESS);
    assert_int_equal(ag_attention_params(&c, &lc, "x"), AG_SUCCESS);
    assert_int_equal(la.count, lb.count);
    for (int64_t t = 0; t < la.count; t++) {
        int64_t n = la.items[t].shape[0] * la.items[t].shape[1];
        assert_memory_equal(la.items[t].value, lb.items[t].value, sizeof(float) * (size_t)n);
        if (!strcmp(la.items[t].name, "x.Wq")) assert_false(same_bits(la.items[t].value, lc.items[t].value, n));
    }
    ag_param_list_destroy(&la); ag_param_list_destroy(&lb); ag_param_list_destroy(&lc);
    ag_attention_destroy(&a); ag_attention_destroy(&b); ag_attention_destroy(&c);
}

/* The dropped forward equals the reference with attention.h's draws (index k*H + h for CSR masks,
 * (i*N + j)*H + h for the full mask, dropped when below p, kept ones scaled by 1/(1-p)). */
static void test_dropout_matches_reference(void **state) {
    (void)state;
    const int64_t nn[] = {30, 12}, ne[] = {70, 20}, iso[] = {1, 1};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 4, 0, 2, nn, ne, iso, 0.1, 0.1), 0);
    for (int kind = 0; kind < 3; kind++)
        for (int variant = 0; variant < 4; variant++) {
            /* variant 3: dot scores without edge features (the full mask's fast path) */
            int score = variant == 3 ? AG_SCORE_DOT : variant;
            ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, variant == 3 ? AG_EDGE_NONE : AG_EDGE_KEY,
                                                  AT_CONCAT_WO, 5);
            cfg.attn_dropout = 0.4f;
            ag_mask_t m;
            ag_ref_mask_t rm;
            assert_int_equal(ag_mask_build(&m, &g, KINDS[kind], 2, 1), AG_SUCCESS);
            assert_int_equal(ag_ref_mask_build(&rm, &g, KINDS[kind], 2, 1), 0);
            ag_attention_t layer;
            assert_int_equal(ag_attention_init(&layer, &cfg, 9), AG_SUCCESS);
            at_layer_randomise(&layer, 0.7f, 9);
            const int64_t N = g.n_nodes, O = ag_attention_out_dim(&cfg);
            float X[42 * 5], E[90 * 3], Y[42 * 4];
            ag_test_fill_uniform(X, N * 5, -1, 1, 1);
            ag_test_fill_uniform(E, g.n_edges * 3, -1, 1, 2);
            ag_rng_t rng;
            ag_rng_init(&rng, 77);
            rng.stream = 3;
            assert_int_equal(ag_attention_forward(&layer, &m, X, cfg.edge_mode ? E : NULL, Y, 1, &rng), AG_SUCCESS);
            assert_int_equal(rng.stream, 4);
            ag_ref_params_t p;
            assert_int_equal(ag_ref_params_alloc(&p, &cfg), 0);
            ag_ref_params_from_layer(&p, &layer);
            double *Xd = at_to_double(X, N * 5), *Ed = at_to_double(E, g.n_edges * 3), Yr[42 * 4], Y0[42 * 4];
            ag_ref_dropout_t drop = {cfg.attn_dropout, 77, 3};
            const double *Eref = cfg.edge_mode ? Ed : NULL;
            assert_int_equal(ag_ref_attention_forward(&cfg, &p, &rm, Xd, Eref, Yr, NULL, &drop), 0);
            assert_int_equal(ag_ref_attention_forward(&cfg, &p, &rm, Xd, Eref, Y0, NULL, NULL), 0);
            int64_t bad = at_mismatch(Y, Yr, N * O, 1e-5, 1e-5 * (at_max_abs(Yr, N * O) + 1));
            if (bad >= 0)
                fail_msg("%s mask %d dropout 0.4: Y[%lld] = %.8g, reference with the same draws %.8g (without "
                         "dropout %.8g)", at_score_name(score), kind, (long long)bad, (double)Y[bad], Yr[bad], Y0[bad]);
            free(Xd); free(Ed);
            ag_ref_params_free(&p);
            ag_attention_destroy(&layer);
            ag_ref_mask_free(&rm);
            ag_mask_destroy(&m);
        }
    ag_test_graph_free(&g);
}

/* The fraction dropped, read off the kernel's output: with zero scores every weight of destination
 * i is 1/n_i, and with values all 1 (H = D = 1) its output is kept_i / (n_i (1 - p)). */
static void test_dropout_fraction(void **state) {
    (void)state;
    const int64_t nn[] = {2000}, ne[] = {12000}, iso[] = {0};
    ag_graph_t g;
    assert_int_equal(ag_test_graph_random(&g, 8, 0, 1, nn, ne, iso, 0.0, 0.0), 0);
    ag_mask_t m;
    assert_int_equal(ag_mask_build(&m, &g, AG_MASK_NEIGHBOURS, 0, 1), AG_SUCCESS);
    ag_attention_config_t cfg = at_config(AG_SCORE_DOT, AG_NORM_SOFTMAX, AG_EDGE_NONE, AT_CONCAT, 1);
    cfg.heads = 1;
    cfg.head_dim = 1;
    cfg.bias = 0;
    const float ps[] = {0.1f, 0.5f};
    for (int t = 0; t < 2; t++) {
        cfg.attn_dropout = ps[t];
        ag_attention_t layer;
        assert_int_equal(ag_attention_init(&layer, &cfg, 1), AG_SUCCESS);
        layer.Wq[0] = 0.0f;
        layer.Wk[0] = 0.0f;
        layer.Wv[0] = 1.0f;
        const int64_t N = g.n_nodes;
        float *X = malloc(sizeof *X * (size_t)N), *Y = malloc(sizeof *Y * (size_t)N), *Yeval = malloc(sizeof *Y * (size_t)N);
        for (int64_t i = 0; i < N; i++) X[i] = 1.0f;
        ag_rng_t rng;
        ag_rng_init(&rng, 123);
        assert_int_equal(ag_attention_forward(&layer, &m, X, NULL, Y, 1, &rng), AG_SUCCESS);
        double kept = 0;
        for (int64_t i = 0; i < N; i++) {
            double n_i = (double)(m.indptr[i + 1] - m.indptr[i]);
            double k_i = (double)Y[i] * n_i * (1.0 - ps[t]);
            /* all or nothing per entry: a whole number of kept entries */
            assert_float_equal(k_i, floor(k_i + 0.5), 1e-3);
            kept += floor(k_i + 0.5);
        }
        double dropped = 1.0 - kept / (double)m.n_entries;
        print_message("# dropout p = %.2f: dropped %.4f of %lld weights\n", ps[t], dropped, (long long)m.n_entries);
        assert_true(fabs(dropped - ps[t]) < 0.01);
        /* eval mode: no dropout at all, every output exactly 1 */
        assert_int_equal(ag_attention_forward(&layer, &m, X, NULL, Yeval, 0, &rng), AG_SUCCESS);
        for (int64_t i = 0; i < N; i++) assert_float_equal(Yeval[i], 1.0f, 1e-6);
        free(X); free(Y); free(Yeval);
        ag_attention_destroy(&layer);
    }
    ag_mask_destroy(&m);
    ag_test_graph_free(&g);
}

/* In eval mode a layer with dropout gives bit for bit the output of the same layer without. */
static void test_eval_ignores_dropout(void **state) {
    (void)state;
    ag_graph_t g;
    big_batch(&g);
    for (int kind = 0; kind < 3; kind++) {
        ag_mask_t m;
        assert_int_equal(ag_mask_build(&m, &g, KINDS[kind], 2, 1), AG_SUCCESS);
        for (int score = 0; score < 3; score++) {
            ag_attention_config_t cfg = at_config(score, AG_NORM_SOFTMAX, AG_EDGE_BIAS, AT_CONCAT_WO, 8);
            run_t with, without, trained;
            cfg.attn_dropout = 0.5f;
            run_layer(&with, &g, &m, &cfg, 1, 3, 4, 0);
            run_layer(&trained, &g, &m, &cfg, 1, 3, 4, TRAIN_FORWARD);
            cfg.attn_dropout = 0.0f;
            run_layer(&without, &g, &m, &cfg, 1, 3, 4, 0);
            if (!same_bits(with.Y, without.Y, with.nY)) fail_msg("%s mask %d: eval output depends on dropout", at_score_name(score), kind);
            assert_false(same_bits(with.Y, trained.Y, with.nY));
            run_free(&with); run_free(&without); run_free(&trained);
        }
        ag_mask_destroy(&m);
    }
    ag_test_graph_free(&g);
}

/* Inference writes concatenated heads without W^O straight into Y, and the GAT kernel then adds the
 * bias itself; other inference passes may write the heads into a workspace the caller lends (a
 * model's blocks share one). The output must be bit for bit that of a training pass without
 * dropout (which keeps the heads in the cache and adds the bias in a pass of its own), and with a
 * lent workspace the output and the attention weights those of the layer's own buffers: for each
 * mask kind, score and head combination, with and without edge features (the lane, scalar and
 * full-attention kernels), on 1 and 2 threads. */
static void test_inference_bit_identical(void **state) {
    (void)state;
    ag_graph_t g;
    big_batch(&g);
    for (int kind = 0; kind < 3; kind++) {
        ag_mask_t m;
        assert_int_equal(ag_mask_build(&m, &g, KINDS[kind], 2, 1), AG_SUCCESS);
        for (int score = 0; score < 3; score++)
            for (int combine = 0; combine < AT_N_COMBINE; combine++)
                for (int edges = 0; edges < 2; edges++)
                    for (int threads = 1; threads <= 2; threads++) {
                        ag_attention_config_t cfg =
                            at_config(score, AG_NORM_SOFTMAX, edges ? AG_EDGE_BIAS : AG_EDGE_NONE, combine, 8);
                        cfg.heads = 4;
                        cfg.head_dim = 16;
                        assert_true(cfg.bias);
                        run_t inf, trained, lent;
                        run_layer(&inf, &g, &m, &cfg, threads, 3, 4, 0);
                        run_layer(&trained, &g, &m, &cfg, threads, 3, 4, TRAIN_FORWARD);
                        run_layer_lend(&lent, &g, &m, &cfg, threads, 3, 4, 0, 1);
                        if (!same_bits(inf.Y, trained.Y, inf.nY))
                            fail_msg("%s mask %d %s edges %d threads %d: inference output differs from training's",
                                     at_score_name(score), kind, at_combine_name(combine), edges, threads);
                        if (!same_bits(inf.Y, lent.Y, inf.nY) || !same_bits(inf.A, lent.A, inf.nA))
                            fail_msg("%s mask %d %s edges %d threads %d: inference into a lent workspace differs",
                                     at_score_name(score), kind, at_combine_name(combine), edges, threads);
                        run_free(&inf);
                        run_free(&trained);
                        run_free(&lent);
                    }
        ag_mask_destroy(&m);
    }
    ag_test_graph_free(&g);
}

int main(void) {
    /* One thread except where two are compared with one: on a loaded machine OpenMP's spinning
     * barriers make two-thread runs of small layers several times slower than the work. */
    ag_threads_set(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_seeded),
        cmocka_unit_test(test_threads_and_runs_bit_identical),
        cmocka_unit_test(test_dropout_matches_reference),
        cmocka_unit_test(test_dropout_fraction),
        cmocka_unit_test(test_eval_ignores_dropout),
        cmocka_unit_test(test_inference_bit_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
