/*
 * attention_testutil.h: small helpers shared by the attention tests (header-only on purpose: the
 * .c files of tests/support are linked into every test program, these call the layer's API).
 */
#ifndef AG_ATTENTION_TESTUTIL_H
#define AG_ATTENTION_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <attngraph/attention.h>
#include "attention_ref.h"
#include "graphs_testutil.h"

/* The three head combinations the tests sweep. */
enum { AT_CONCAT_WO = 0, AT_CONCAT, AT_MEAN, AT_N_COMBINE };

static inline const char *at_score_name(int s) { return s == 0 ? "DOT" : s == 1 ? "GAT" : "GATV2"; }
static inline const char *at_norm_name(int n) { return n == 0 ? "SOFTMAX" : "RELU"; }
static inline const char *at_edge_name(int e) { return e == 0 ? "NONE" : e == 1 ? "KEY" : "BIAS"; }
static inline const char *at_combine_name(int c) { return c == 0 ? "CONCAT+WO" : c == 1 ? "CONCAT" : "MEAN"; }

/* A configuration of the sweep: F = 5 inputs, 2 heads of 3, O = 4, Fe = 3, bias on. */
static inline ag_attention_config_t at_config(int score, int norm, int edge, int combine, int64_t F) {
    ag_attention_config_t c;
    memset(&c, 0, sizeof c);
    c.in_dim = F;
    c.heads = 2;
    c.head_dim = 3;
    c.out_dim = 4;
    c.score = (ag_score_t)score;
    c.norm = (ag_norm_t)norm;
    c.combine = combine == AT_MEAN ? AG_HEADS_MEAN : AG_HEADS_CONCAT;
    c.out_proj = combine == AT_CONCAT_WO;
    c.bias = 1;
    c.edge_mode = (ag_edge_mode_t)edge;
    c.edge_dim = edge ? 3 : 0;
    c.negative_slope = 0.2f;
    c.attn_dropout = 0.0f;
    return c;
}

/* Overwrites every parameter of the layer (biases included) with uniform draws in
 * [-scale, scale), so that zero-initialised biases are exercised too. */
static inline void at_layer_randomise(ag_attention_t *layer, float scale, uint64_t seed) {
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        int64_t r, c;
        ag_ref_tensor_shape(&layer->cfg, w, &r, &c);
        float *t = ag_ref_layer_tensor(layer, w, 0);
        if (t) ag_test_fill_uniform(t, r * c, -scale, scale, seed * 31 + (uint64_t)w);
    }
}

static inline double *at_to_double(const float *x, int64_t n) {
    double *d = malloc(sizeof *d * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) d[i] = x ? x[i] : 0.0;
    return d;
}

/* First index where |got - want| > rtol |want| + atol, or -1. */
static inline int64_t at_mismatch(const float *got, const double *want, int64_t n, double rtol, double atol) {
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= rtol * fabs(want[i]) + atol)) return i;
    return -1;
}

static inline double at_max_abs(const double *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

/* Random batches the sweeps run on. */
/* AT_LARGE has a graph of 300 nodes: more than one block of 256 sources in the full mask's
 * fast path (dot scores, no edge features), with a partial last block. */
enum { AT_UNDIRECTED = 0, AT_DIRECTED, AT_BATCH, AT_LARGE, AT_N_SHAPES };
static inline const char *at_shape_name(int s) {
    return s == 0 ? "undirected(self-loops,multi,isolated)" : s == 1 ? "directed(self-loops,multi,isolated)"
         : s == 2 ? "batch(1,7,12,4 nodes)" : "batch(300,17,1 nodes)";
}
static inline int at_make_graph(ag_graph_t *g, int shape, uint64_t seed) {
    if (shape == AT_UNDIRECTED) {
        const int64_t nn[] = {18}, ne[] = {30}, iso[] = {2};
        return ag_test_graph_random(g, seed, 0, 1, nn, ne, iso, 0.15, 0.15);
    }
    if (shape == AT_DIRECTED) {
        const int64_t nn[] = {20}, ne[] = {45}, iso[] = {2};
        return ag_test_graph_random(g, seed, 1, 1, nn, ne, iso, 0.15, 0.15);
    }
    if (shape == AT_BATCH) {
        const int64_t nn[] = {1, 7, 12, 4}, ne[] = {0, 10, 20, 3}, iso[] = {1, 1, 0, 0};
        return ag_test_graph_random(g, seed, 0, 4, nn, ne, iso, 0.1, 0.1);
    }
    const int64_t nn[] = {300, 17, 1}, ne[] = {700, 30, 0}, iso[] = {3, 1, 1};
    return ag_test_graph_random(g, seed, 1, 3, nn, ne, iso, 0.05, 0.05);
}

#endif
