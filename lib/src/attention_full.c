/*
 * attention_full.c: the fast path of full attention with dot-product scores and no edge features
 * (the Transformer case), in blocks of sources with an online softmax (internal).
 *
 * Memory is O(N x H x D): keys, values, queries and output gradients are also kept transposed per
 * head ((H*D) x N), so that a block of scores is a sum over d of contiguous rows, which the
 * compiler vectorises over sources; nothing of size N x N exists. Every score is the same sum in
 * the same order (d = 0 .. D-1) in the forward, the backward's destination pass and its source
 * pass, so the three passes agree bit for bit, and every accumulation runs in source (or
 * destination) order: results do not depend on the number of threads.
 */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "attention_internal.h"
#include "internal.h"

#define BLOCK 256


/* x[l] = exp(x[l]) for -87 <= x <= 88 (clamped below; softmax arguments are <= 0): Cody-Waite reduction and a degree-6 polynomial (relative error
 * below 3e-7), written so that the loop vectorises (glibc's expf does not without -ffast-math). */
/* no-trapping-math only lets the compiler turn the clamp into a vector select; results are the same. */
AG_CLONES AG_NO_TRAPPING_MATH void ag_i_exp_block(float *x, int64_t n) {
    for (int64_t l = 0; l < n; l++) x[l] = ag_i_exp1(x[l]);
}


/* sum_l w[l] * b[l] in 16 interleaved partial sums, then the partials in order: a fixed order the
 * compiler vectorises (a plain running sum cannot be reordered). */
AG_CLONES static float lane_dot(const float *w, const float *b, int64_t n) {
    float lane[16];
    for (int k = 0; k < 16; k++) lane[k] = 0.0f;
    int64_t l = 0;
    for (; l + 16 <= n; l += 16)
        for (int k = 0; k < 16; k++) lane[k] += w[l + k] * b[l + k];
    for (int k = 0; l + k < n; k++) lane[k] += w[l + k] * b[l + k];
    float t = 0.0f;
    for (int k = 0; k < 16; k++) t += lane[k];
    return t;
}

/* sum_l w[l], the same way. */
AG_CLONES static float lane_sum(const float *w, int64_t n) {
    float lane[16];
    for (int k = 0; k < 16; k++) lane[k] = 0.0f;
    int64_t l = 0;
    for (; l + 16 <= n; l += 16)
        for (int k = 0; k < 16; k++) lane[k] += w[l + k];
    for (int k = 0; l + k < n; k++) lane[k] += w[l + k];
    float t = 0.0f;
    for (int k = 0; k < 16; k++) t += lane[k];
    return t;
}

AG_CLONES AG_NO_TRAPPING_MATH static float block_max(const float *s, int64_t n, float m) {
    float lane[8] = {m, m, m, m, m, m, m, m};
    int64_t n8 = n & ~(int64_t)7;
    for (int64_t l = 0; l < n8; l += 8)
        for (int k = 0; k < 8; k++) lane[k] = s[l + k] > lane[k] ? s[l + k] : lane[k];
    for (int64_t l = n8; l < n; l++) lane[0] = s[l] > lane[0] ? s[l] : lane[0];
    for (int k = 1; k < 8; k++) m = lane[k] > m ? lane[k] : m;
    return lane[0] > m ? lane[0] : m;
}

int ag_i_attn_full_fast(const ag_attn_ctx_t *c) {
    return c->mask->kind == AG_MASK_FULL && c->score == AG_SCORE_DOT && c->emode == AG_EDGE_NONE;
}

/* Row stride (floats) of the transposed per-head tensors: at least N, a multiple of 16, and 128
 * more than a multiple of 256. With N a power of two the rows d = 0..D-1 of a block would sit at
 * multiples of 4 KB and all fall into the same L1 sets (8 ways), so that the 8 rows of K and the
 * 8 of V evict each other at every block; with this stride consecutive rows are 32 cache lines
 * (mod 64 sets) apart and a block's rows spread evenly over the sets. */
static int64_t stride_of(int64_t N) {
    int64_t ld = (N + 15) / 16 * 16;
    while (ld % 256 != 128) ld += 16;
    return ld;
}

/* dst ((H*D) x ld) = transpose of src (N x H*D). */
static void transpose(const float *src, float *dst, int64_t N, int64_t HD, int64_t ld) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t x = 0; x < HD; x++)
        for (int64_t i = 0; i < N; i++) dst[x * ld + i] = src[i * HD + x];
}

static inline float drop_at(const ag_attn_ctx_t *c, int64_t i, int64_t j, int64_t h) {
    uint64_t idx = ((uint64_t)i * (uint64_t)c->N + (uint64_t)j) * (uint64_t)c->H + (uint64_t)h;
    return ag_i_rng_uniform_at(c->drop_base, idx) < c->p ? 0.0f : c->keep;
}

/* s[0..n) = scale * sum_d a[d] * Bt[d*N + j0 + jj]: scores of one row against a block. */
AG_CLONES static void block_scores(const float *a, const float *Bt, int64_t N, int64_t D, int64_t j0, int64_t n, float scale,
                         float *s) {
    for (int64_t jj = 0; jj < n; jj++) s[jj] = 0.0f;
    for (int64_t d = 0; d < D; d++) {
        float ad = a[d];
        const float *b = Bt + d * N + j0;
        for (int64_t jj = 0; jj < n; jj++) s[jj] += ad * b[jj];
    }
    for (int64_t jj = 0; jj < n; jj++) s[jj] *= scale;
}

/* Destination rows per tile of the fused forward: the tile's rows meet each block of keys and
 * values (2 x D x BLOCK floats, 16 KB at D = 8) while it is in L1, instead of streaming the
 * head's whole K and V (2 x D x N floats) from L2 or memory once per row. */
#define TILE 32
/* Head sizes the fused forward keeps in its per-lane accumulators (D x 16 floats). */
#define FUSED_DMAX 64

/* One destination row against one block of n <= BLOCK keys, softmax, no dropout: the scores into
 * s, the block's maximum, then one pass that takes the exponentials and adds them and their
 * products with the values into 16 interleaved lanes. Per element these are exactly the
 * operations of block_scores, ag_i_exp_block, lane_sum and lane_dot in the same order (so the
 * result is the same bits as the unfused passes), without writing the scores D times. */
static inline __attribute__((always_inline)) void fused_row_block(const float *q, const float *K, const float *V,
                                                                  int64_t N, int64_t D, int64_t n, float scale,
                                                                  float *s, float *mh, float *S, float *acc) {
    int64_t l = 0;
    for (; l + 16 <= n; l += 16) {
        float t[16];
        for (int k = 0; k < 16; k++) t[k] = 0.0f;
        for (int64_t d = 0; d < D; d++) {
            float qd = q[d];
            const float *b = K + d * N + l;
            for (int k = 0; k < 16; k++) t[k] += qd * b[k];
        }
        for (int k = 0; k < 16; k++) s[l + k] = t[k] * scale;
    }
    for (; l < n; l++) {
        float t = 0.0f;
        for (int64_t d = 0; d < D; d++) t += q[d] * K[d * N + l];
        s[l] = t * scale;
    }
    float bm = block_max(s, n, *mh);
    if (bm > *mh) { /* rescale what was summed under the old maximum */
        float sc = *mh == -INFINITY ? 0.0f : ag_i_exp1(*mh - bm);
        *S *= sc;
        for (int64_t d = 0; d < D; d++) acc[d] *= sc;
        *mh = bm;
    }
    float m = *mh;
    float ls[16], la[FUSED_DMAX][16];
    for (int k = 0; k < 16; k++) ls[k] = 0.0f;
    for (int64_t d = 0; d < D; d++)
        for (int k = 0; k < 16; k++) la[d][k] = 0.0f;
    for (l = 0; l + 16 <= n; l += 16) {
        float p[16];
        for (int k = 0; k < 16; k++) p[k] = ag_i_exp1(s[l + k] - m);
        for (int k = 0; k < 16; k++) ls[k] += p[k];
        for (int64_t d = 0; d < D; d++) {
            const float *b = V + d * N + l;
            for (int k = 0; k < 16; k++) la[d][k] += p[k] * b[k];
        }
    }
    for (int k = 0; l + k < n; k++) {
        float p = ag_i_exp1(s[l + k] - m);
        ls[k] += p;
        for (int64_t d = 0; d < D; d++) la[d][k] += p * V[d * N + l + k];
    }
    float t = 0.0f;
    for (int k = 0; k < 16; k++) t += ls[k];
    *S += t;
    for (int64_t d = 0; d < D; d++) {
        float u = 0.0f;
        for (int k = 0; k < 16; k++) u += la[d][k];
        acc[d] += u;
    }
}

/* Sixteen floats as one value (GCC vector extension; one zmm register in the AVX-512 clone, two
 * ymm or four xmm in the others). Operations are lane-wise IEEE, the same as the scalar code. */
typedef float v16f __attribute__((vector_size(64)));
/* The helpers below are static and always inlined: no call ever passes a vector across an ABI
 * boundary, so GCC's note that the AVX-512 ABI differs does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef int32_t v16i __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) v16f ld16(const float *p) {
    v16f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) v16f splat16(float x) {
    v16f v = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
    return v;
}

/* ag_i_exp1 on 16 lanes: the same operations in the same order, so the same bits. */
static inline __attribute__((always_inline)) v16f exp16(v16f xin) {
    v16i big = xin > splat16(-87.0f); /* -1 where xin > -87 (false for NaN, as the scalar test) */
    v16i xb = (v16i)xin, lo = (v16i)splat16(-87.0f);
    v16f v = (v16f)((xb & big) | (lo & ~big));
    v16f r0 = (v * 1.44269504f + 12582912.0f) - 12582912.0f;
    v16f r = (v - r0 * 0.693145751953125f) - r0 * 1.428606765330187e-06f;
    v16f p = 1.0f + r * (1.0f + r * (0.5f + r * (0.16666667f + r * (0.041666668f + r * (0.008333334f +
             r * 0.0013888889f)))));
    v16i bits = (__builtin_convertvector(r0, v16i) + 127) * 8388608;
    return p * (v16f)bits;
}

/* (mask lanes of -1) ? a : b */
static inline __attribute__((always_inline)) v16f sel16(v16i mask, v16f a, v16f b) {
    return (v16f)(((v16i)a & mask) | ((v16i)b & ~mask));
}

/* fused_row_block for D = 8 with its sixteen-lane accumulators as named vector values, so that
 * they stay in registers (an array of them is kept on the stack); the same operations per lane. */
AG_CLONES AG_NO_TRAPPING_MATH static void fused_row_block_d8(
    const float *q, const float *K, const float *V, int64_t N, int64_t n, float scale, float *s, float *mh, float *S,
    float *acc) {
    /* the block maximum is taken on the way (max is exact in any order; only the sign of a zero
     * maximum could differ, which no later subtraction or exponential can see) */
    int64_t l = 0;
    v16f vm = splat16(*mh);
    for (; l + 16 <= n; l += 16) {
        v16f t = splat16(0.0f);
        for (int d = 0; d < 8; d++) t += q[d] * ld16(K + d * N + l);
        t = t * scale;
        vm = sel16(t > vm, t, vm);
        memcpy(s + l, &t, sizeof t);
    }
    float lm[16], bm = *mh;
    memcpy(lm, &vm, sizeof vm);
    for (int k = 0; k < 16; k++) bm = lm[k] > bm ? lm[k] : bm;
    for (; l < n; l++) {
        float t = 0.0f;
        for (int d = 0; d < 8; d++) t += q[d] * K[d * N + l];
        s[l] = t * scale;
        bm = s[l] > bm ? s[l] : bm;
    }
    if (bm > *mh) { /* rescale what was summed under the old maximum */
        float sc = *mh == -INFINITY ? 0.0f : ag_i_exp1(*mh - bm);
        *S *= sc;
        for (int d = 0; d < 8; d++) acc[d] *= sc;
        *mh = bm;
    }
    v16f m = splat16(*mh), z = splat16(0.0f);
    v16f ls = z, a0 = z, a1 = z, a2 = z, a3 = z, a4 = z, a5 = z, a6 = z, a7 = z;
    for (l = 0; l + 16 <= n; l += 16) {
        v16f p = exp16(ld16(s + l) - m);
        ls += p;
        a0 += p * ld16(V + l);
        a1 += p * ld16(V + N + l);
        a2 += p * ld16(V + 2 * N + l);
        a3 += p * ld16(V + 3 * N + l);
        a4 += p * ld16(V + 4 * N + l);
        a5 += p * ld16(V + 5 * N + l);
        a6 += p * ld16(V + 6 * N + l);
        a7 += p * ld16(V + 7 * N + l);
    }
    float lsa[16], la[8][16];
    memcpy(lsa, &ls, sizeof ls);
    memcpy(la[0], &a0, sizeof a0);
    memcpy(la[1], &a1, sizeof a1);
    memcpy(la[2], &a2, sizeof a2);
    memcpy(la[3], &a3, sizeof a3);
    memcpy(la[4], &a4, sizeof a4);
    memcpy(la[5], &a5, sizeof a5);
    memcpy(la[6], &a6, sizeof a6);
    memcpy(la[7], &a7, sizeof a7);
    float mm = *mh;
    for (int k = 0; l + k < n; k++) {
        float p = ag_i_exp1(s[l + k] - mm);
        lsa[k] += p;
        for (int d = 0; d < 8; d++) la[d][k] += p * V[d * N + l + k];
    }
    float t = 0.0f;
    for (int k = 0; k < 16; k++) t += lsa[k];
    *S += t;
    for (int d = 0; d < 8; d++) {
        float u = 0.0f;
        for (int k = 0; k < 16; k++) u += la[d][k];
        acc[d] += u;
    }
}

AG_CLONES AG_NO_TRAPPING_MATH static void fused_row_block_any(
    const float *q, const float *K, const float *V, int64_t N, int64_t D, int64_t n, float scale, float *s, float *mh,
    float *S, float *acc) {
    fused_row_block(q, K, V, N, D, n, scale, s, mh, S, acc);
}

/* Rows [a, b) of one graph (sources [g0, g1)), every head, fused (softmax, no dropout). */
static void fused_rows(const ag_attn_ctx_t *c, const float *Kt, const float *Vt, int64_t a, int64_t b, int64_t g0,
                       int64_t g1, float *s) {
    int64_t ld = stride_of(c->N), H = c->H, D = c->D, HD = c->HD;
    float mh[TILE], S[TILE];
    for (int64_t h = 0; h < H; h++) {
        for (int64_t i = a; i < b; i++) {
            mh[i - a] = -INFINITY;
            S[i - a] = 0.0f;
            for (int64_t d = 0; d < D; d++) c->o[i * HD + h * D + d] = 0.0f;
        }
        const float *Kh = Kt + h * D * ld, *Vh = Vt + h * D * ld;
        for (int64_t j0 = g0; j0 < g1; j0 += BLOCK) {
            int64_t n = g1 - j0 < BLOCK ? g1 - j0 : BLOCK;
            for (int64_t i = a; i < b; i++) {
                const float *q = c->q + i * HD + h * D;
                float *acc = c->o + i * HD + h * D;
                if (D == 8)
                    fused_row_block_d8(q, Kh + j0, Vh + j0, ld, n, c->scale, s, &mh[i - a], &S[i - a], acc);
                else
                    fused_row_block_any(q, Kh + j0, Vh + j0, ld, D, n, c->scale, s, &mh[i - a], &S[i - a], acc);
            }
        }
        for (int64_t i = a; i < b; i++) {
            float den = g1 > g0 ? S[i - a] : 0.0f;
            float *acc = c->o + i * HD + h * D;
            c->mx[i * H + h] = g1 > g0 ? mh[i - a] : 0.0f;
            c->den[i * H + h] = den;
            for (int64_t d = 0; d < D; d++) acc[d] = den > 0.0f ? acc[d] / den : 0.0f;
        }
    }
}

/* Destination i, every head, one row at a time (relu normalisation or dropout). */
static void plain_row(const ag_attn_ctx_t *c, const float *Kt, const float *Vt, int64_t i, float *s) {
    int64_t N = c->N, ld = stride_of(N), H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    int64_t g0 = m->graph_ptr[m->node_graph[i]], g1 = m->graph_ptr[m->node_graph[i] + 1];
    for (int64_t h = 0; h < H; h++) {
        const float *q = c->q + i * HD + h * D;
        float *acc = c->o + i * HD + h * D;
        float mh = -INFINITY, S = 0.0f;
        for (int64_t d = 0; d < D; d++) acc[d] = 0.0f;
        for (int64_t j0 = g0; j0 < g1; j0 += BLOCK) {
            int64_t n = g1 - j0 < BLOCK ? g1 - j0 : BLOCK;
            block_scores(q, Kt + h * D * ld, ld, D, j0, n, c->scale, s);
            if (c->norm == AG_NORM_SOFTMAX) {
                float bm = block_max(s, n, mh);
                if (bm > mh) { /* rescale what was summed under the old maximum */
                    float sc = mh == -INFINITY ? 0.0f : ag_i_exp1(mh - bm);
                    S *= sc;
                    for (int64_t d = 0; d < D; d++) acc[d] *= sc;
                    mh = bm;
                }
                for (int64_t jj = 0; jj < n; jj++) s[jj] -= mh;
                ag_i_exp_block(s, n);
            } else {
                for (int64_t jj = 0; jj < n; jj++) s[jj] = s[jj] > 0.0f ? s[jj] : 0.0f;
            }
            S += lane_sum(s, n);
            if (c->dropout)
                for (int64_t jj = 0; jj < n; jj++) s[jj] *= drop_at(c, i, j0 + jj, h);
            for (int64_t d = 0; d < D; d++) acc[d] += lane_dot(s, Vt + (h * D + d) * ld + j0, n);
        }
        float den = g1 > g0 ? (c->norm == AG_NORM_SOFTMAX ? S : S + AG_ATTN_RELU_EPS) : 0.0f;
        c->mx[i * H + h] = (c->norm == AG_NORM_SOFTMAX && g1 > g0) ? mh : 0.0f;
        c->den[i * H + h] = den;
        for (int64_t d = 0; d < D; d++) acc[d] = den > 0.0f ? acc[d] / den : 0.0f;
    }
}

ag_error_t ag_i_attn_full_forward(const ag_attn_ctx_t *c, int nt) {
    int64_t N = c->N, ld = stride_of(N), HD = c->HD;
    /* Kt, Vt (H*D x ld): K and V transposed, rows padded to ld >= N so that a block of sources
     * is contiguous for every lane; scr (nt x BLOCK): one block of scores per thread */
    float *Kt = NULL, *Vt = NULL, *scr = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&Kt, ld * HD, sizeof(float), "full attention transposed keys");
    if (!rc) rc = ag_i_alloc_array((void **)&Vt, ld * HD, sizeof(float), "full attention transposed values");
    if (!rc) rc = ag_i_alloc_array((void **)&scr, (int64_t)nt * BLOCK, sizeof(float), "full attention scratch");
    if (rc) {
        ag_i_free(Kt);
        ag_i_free(Vt);
        return rc;
    }
    transpose(c->k, Kt, N, HD, ld);
    transpose(c->v, Vt, N, HD, ld);
    const ag_mask_t *m = c->mask;
    int fused = c->norm == AG_NORM_SOFTMAX && !c->dropout && c->D <= FUSED_DMAX;
    int64_t tiles = (N + TILE - 1) / TILE;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t t = 0; t < tiles; t++) {
        float *s = scr + (int64_t)omp_get_thread_num() * BLOCK;
        int64_t end = (t + 1) * TILE < N ? (t + 1) * TILE : N;
        if (!fused) {
            for (int64_t i = t * TILE; i < end; i++) plain_row(c, Kt, Vt, i, s);
            continue;
        }
        for (int64_t a = t * TILE; a < end;) { /* runs of rows of one graph */
            int32_t g = m->node_graph[a];
            int64_t b = m->graph_ptr[g + 1] < end ? m->graph_ptr[g + 1] : end;
            fused_rows(c, Kt, Vt, a, b, m->graph_ptr[g], m->graph_ptr[g + 1], s);
            a = b;
        }
    }
    ag_i_free(Kt);
    ag_i_free(Vt);
    ag_i_free(scr);
    return AG_SUCCESS;
}

/* alpha (n) and ds (n) of one destination row (pass A: its maximum, denominator and dO.O are
 * scalars) from the scores s, the value dot products dot = dO . v_j and the dropout factors f. */
AG_NO_TRAPPING_MATH static void row_grads(const ag_attn_ctx_t *c, const float *s, float mx,
                                                                     float den, float cs, const float *dot,
                                                                     const float *f, int64_t n, float *alpha,
                                                                     float *ds) {
    if (den <= 0.0f) {
        for (int64_t l = 0; l < n; l++) alpha[l] = ds[l] = 0.0f;
        return;
    }
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t l = 0; l < n; l++) alpha[l] = s[l] - mx;
        ag_i_exp_block(alpha, n);
        for (int64_t l = 0; l < n; l++) {
            alpha[l] = alpha[l] / den;
            ds[l] = alpha[l] * (f[l] * dot[l] - cs);
        }
    } else {
        for (int64_t l = 0; l < n; l++) {
            alpha[l] = (s[l] > 0.0f ? s[l] : 0.0f) / den;
            ds[l] = s[l] > 0.0f ? (f[l] * dot[l] - cs) / den : 0.0f;
        }
    }
}

/* The same for a source column (pass B): per-destination maxima, denominators and dO.O. */
AG_NO_TRAPPING_MATH static void col_grads(const ag_attn_ctx_t *c, const float *s,
                                                                     const float *mx, const float *den,
                                                                     const float *cs, const float *dot,
                                                                     const float *f, int64_t n, float *alpha,
                                                                     float *ds) {
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t l = 0; l < n; l++) alpha[l] = s[l] - mx[l];
        ag_i_exp_block(alpha, n);
        for (int64_t l = 0; l < n; l++) {
            float dn = den[l] > 0.0f ? den[l] : 1.0f, keep = den[l] > 0.0f ? 1.0f : 0.0f;
            alpha[l] = keep * (alpha[l] / dn);
            ds[l] = alpha[l] * (f[l] * dot[l] - cs[l]);
        }
    } else {
        for (int64_t l = 0; l < n; l++) {
            float dn = den[l] > 0.0f ? den[l] : 1.0f, keep = (den[l] > 0.0f && s[l] > 0.0f) ? 1.0f : 0.0f;
            alpha[l] = keep * (s[l] / dn);
            ds[l] = keep * ((f[l] * dot[l] - cs[l]) / dn);
        }
    }
}

/* ts[k] = sum_d a[d] X[d][l+k] and tb[k] = sum_d b[d] Y[d][l+k] over the w <= 16 columns l.. of
 * the (D x N) X and Y, in increasing d: the scores and value products both fused passes start
 * with (lanes from w on are 0). A full block keeps its constant trip count of 16 for the compiler. */
static inline __attribute__((always_inline)) void lane_dot_pair(const float *a, const float *X, const float *b,
                                                                const float *Y, int64_t N, int64_t D, int64_t l,
                                                                int w, float *ts, float *tb) {
    for (int k = 0; k < 16; k++) ts[k] = tb[k] = 0.0f;
    if (w == 16) {
        for (int64_t d = 0; d < D; d++) {
            float ad = a[d], bd = b[d];
            const float *xb = X + d * N + l, *yb = Y + d * N + l;
            for (int k = 0; k < 16; k++) ts[k] += ad * xb[k];
            for (int k = 0; k < 16; k++) tb[k] += bd * yb[k];
        }
    } else {
        for (int64_t d = 0; d < D; d++)
            for (int k = 0; k < w; k++) {
                ts[k] += a[d] * X[d * N + l + k];
                tb[k] += b[d] * Y[d * N + l + k];
            }
    }
}

/* The backward's two passes for softmax without dropout, fused per block of n sources (pass A)
 * or destinations (pass B) in 16 interleaved lanes: per element exactly the operations of
 * block_scores, row_grads / col_grads and lane_dot in the same order (the same bits as the
 * unfused passes), without writing the scores, value products and weights to scratch first.
 *
 * Pass A, destination row: dq[d] += sum_l ds_l K[d][l], ds_l = scale * alpha_l (dO.v_l - cs),
 * alpha_l = exp(s_l - mx) / den. */
static inline __attribute__((always_inline)) void fused_dst_block(const float *q, const float *dO, const float *K,
                                                                  const float *V, int64_t N, int64_t D, int64_t n,
                                                                  float scale, float mx, float den, float cs,
                                                                  float *dq) {
    if (den <= 0.0f) return; /* no source: every weight and gradient is 0 */
    float la[FUSED_DMAX][16];
    for (int64_t d = 0; d < D; d++)
        for (int k = 0; k < 16; k++) la[d][k] = 0.0f;
    for (int64_t l = 0; l < n; l += 16) {
        int w = n - l < 16 ? (int)(n - l) : 16;
        float ts[16], td[16], ds[16];
        lane_dot_pair(q, K, dO, V, N, D, l, w, ts, td);
        for (int k = 0; k < 16; k++) {
            float a = ag_i_exp1(ts[k] * scale - mx) / den;
            ds[k] = k < w ? (a * (1.0f * td[k] - cs)) * scale : 0.0f;
        }
        if (w == 16) {
            for (int64_t d = 0; d < D; d++) {
                const float *kb = K + d * N + l;
                for (int k = 0; k < 16; k++) la[d][k] += ds[k] * kb[k];
            }
        } else {
            for (int64_t d = 0; d < D; d++)
                for (int k = 0; k < w; k++) la[d][k] += ds[k] * K[d * N + l + k];
        }
    }
    for (int64_t d = 0; d < D; d++) {
        float u = 0.0f;
        for (int k = 0; k < 16; k++) u += la[d][k];
        dq[d] += u;
    }
}

/* Pass B, source column j: dv[d] += sum_l alpha_l dO_l[d], dk[d] += sum_l ds_l Q_l[d] over the
 * block's destinations l, with their own maxima, denominators and dO.O. */
static inline __attribute__((always_inline)) void fused_src_block(const float *kj, const float *vj, const float *Q,
                                                                  const float *dOt, int64_t N, int64_t D, int64_t n,
                                                                  float scale, const float *mx, const float *den,
                                                                  const float *cs, float *dk, float *dv) {
    float lv[FUSED_DMAX][16], lk[FUSED_DMAX][16];
    for (int64_t d = 0; d < D; d++)
        for (int k = 0; k < 16; k++) lv[d][k] = lk[d][k] = 0.0f;
    for (int64_t l = 0; l < n; l += 16) {
        int w = n - l < 16 ? (int)(n - l) : 16;
        float ts[16], td[16], al[16], ds[16];
        lane_dot_pair(kj, Q, vj, dOt, N, D, l, w, ts, td);
        for (int k = 0; k < 16; k++) {
            int in = k < w;
            float m = in ? mx[l + k] : 0.0f, dn0 = in ? den[l + k] : 0.0f, c = in ? cs[l + k] : 0.0f;
            float dn = dn0 > 0.0f ? dn0 : 1.0f, keep = dn0 > 0.0f ? 1.0f : 0.0f;
            float a = keep * (ag_i_exp1(ts[k] * scale - m) / dn);
            ds[k] = (a * (1.0f * td[k] - c)) * scale;
            al[k] = a * 1.0f;
        }
        if (w == 16) {
            for (int64_t d = 0; d < D; d++) {
                const float *ob = dOt + d * N + l, *qb = Q + d * N + l;
                for (int k = 0; k < 16; k++) lv[d][k] += al[k] * ob[k];
                for (int k = 0; k < 16; k++) lk[d][k] += ds[k] * qb[k];
            }
        } else {
            for (int64_t d = 0; d < D; d++)
                for (int k = 0; k < w; k++) {
                    lv[d][k] += al[k] * dOt[d * N + l + k];
                    lk[d][k] += ds[k] * Q[d * N + l + k];
                }
        }
    }
    for (int64_t d = 0; d < D; d++) {
        float u = 0.0f, t = 0.0f;
        for (int k = 0; k < 16; k++) u += lv[d][k];
        for (int k = 0; k < 16; k++) t += lk[d][k];
        dv[d] += u;
        dk[d] += t;
    }
}

/* fused_dst_block for D = 8, accumulators in registers: the same operations per lane. */
AG_CLONES AG_NO_TRAPPING_MATH static void fused_dst_block_d8(
    const float *q, const float *dO, const float *K, const float *V, int64_t N, int64_t n, float scale, float mx,
    float den, float cs, float *dq) {
    if (den <= 0.0f) return;
    int64_t nv = n & ~(int64_t)15;
    v16f z = splat16(0.0f), a0 = z, a1 = z, a2 = z, a3 = z, a4 = z, a5 = z, a6 = z, a7 = z;
    /* three short passes over the block rather than one long one: each iteration's dependency
     * chain (8 adds, then the exponential's polynomial) is long, and short loops let the core
     * overlap many iterations */
    float xs[BLOCK], ys[BLOCK];
    for (int64_t l = 0; l < nv; l += 16) {
        v16f ts = z, td = z;
        for (int d = 0; d < 8; d++) ts += q[d] * ld16(K + d * N + l);
        for (int d = 0; d < 8; d++) td += dO[d] * ld16(V + d * N + l);
        v16f x = ts * scale - mx, y = td - cs;
        memcpy(xs + l, &x, sizeof x);
        memcpy(ys + l, &y, sizeof y);
    }
    for (int64_t l = 0; l < nv; l += 16) {
        v16f a = exp16(ld16(xs + l)) / den;
        v16f ds = (a * ld16(ys + l)) * scale;
        memcpy(xs + l, &ds, sizeof ds);
    }
    for (int64_t l = 0; l < nv; l += 16) {
        v16f ds = ld16(xs + l);
        a0 += ds * ld16(K + l);
        a1 += ds * ld16(K + N + l);
        a2 += ds * ld16(K + 2 * N + l);
        a3 += ds * ld16(K + 3 * N + l);
        a4 += ds * ld16(K + 4 * N + l);
        a5 += ds * ld16(K + 5 * N + l);
        a6 += ds * ld16(K + 6 * N + l);
        a7 += ds * ld16(K + 7 * N + l);
    }
    float la[8][16];
    memcpy(la[0], &a0, sizeof a0);
    memcpy(la[1], &a1, sizeof a1);
    memcpy(la[2], &a2, sizeof a2);
    memcpy(la[3], &a3, sizeof a3);
    memcpy(la[4], &a4, sizeof a4);
    memcpy(la[5], &a5, sizeof a5);
    memcpy(la[6], &a6, sizeof a6);
    memcpy(la[7], &a7, sizeof a7);
    for (int k = 0; nv + k < n; k++) {
        int64_t l = nv + k;
        float ts = 0.0f, td = 0.0f;
        for (int d = 0; d < 8; d++) {
            ts += q[d] * K[d * N + l];
            td += dO[d] * V[d * N + l];
        }
        float a = ag_i_exp1(ts * scale - mx) / den;
        float ds = (a * (1.0f * td - cs)) * scale;
        for (int d = 0; d < 8; d++) la[d][k] += ds * K[d * N + l];
    }
    for (int d = 0; d < 8; d++) {
        float u = 0.0f;
        for (int k = 0; k < 16; k++) u += la[d][k];
        dq[d] += u;
    }
}

/* fused_src_block for D = 8, accumulators in registers: the same operations per lane. */
AG_CLONES AG_NO_TRAPPING_MATH static void fused_src_block_d8(
    const float *kj, const float *vj, const float *Q, const float *dOt, int64_t N, int64_t n, float scale,
    const float *mx, const float *den, const float *cs, float *dk, float *dv) {
    int64_t nv = n & ~(int64_t)15;
    v16f z = splat16(0.0f), one = splat16(1.0f);
    v16f v0 = z, v1 = z, v2 = z, v3 = z, v4 = z, v5 = z, v6 = z, v7 = z;
    v16f c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z, c6 = z, c7 = z;
    /* three short passes, as in fused_dst_block_d8 */
    float xs[BLOCK], ys[BLOCK];
    for (int64_t l = 0; l < nv; l += 16) {
        v16f ts = z, td = z;
        for (int d = 0; d < 8; d++) ts += kj[d] * ld16(Q + d * N + l);
        for (int d = 0; d < 8; d++) td += vj[d] * ld16(dOt + d * N + l);
        v16f x = ts * scale - ld16(mx + l), y = td - ld16(cs + l);
        memcpy(xs + l, &x, sizeof x);
        memcpy(ys + l, &y, sizeof y);
    }
    for (int64_t l = 0; l < nv; l += 16) {
        v16f dn0 = ld16(den + l);
        v16i pos = dn0 > z;
        v16f dn = sel16(pos, dn0, one), keep = sel16(pos, one, z);
        v16f a = keep * (exp16(ld16(xs + l)) / dn);
        v16f ds = (a * ld16(ys + l)) * scale;
        memcpy(xs + l, &a, sizeof a);
        memcpy(ys + l, &ds, sizeof ds);
    }
    for (int64_t l = 0; l < nv; l += 16) {
        v16f a = ld16(xs + l), ds = ld16(ys + l);
        v0 += a * ld16(dOt + l);
        v1 += a * ld16(dOt + N + l);
        v2 += a * ld16(dOt + 2 * N + l);
        v3 += a * ld16(dOt + 3 * N + l);
        v4 += a * ld16(dOt + 4 * N + l);
        v5 += a * ld16(dOt + 5 * N + l);
        v6 += a * ld16(dOt + 6 * N + l);
        v7 += a * ld16(dOt + 7 * N + l);
        c0 += ds * ld16(Q + l);
        c1 += ds * ld16(Q + N + l);
        c2 += ds * ld16(Q + 2 * N + l);
        c3 += ds * ld16(Q + 3 * N + l);
        c4 += ds * ld16(Q + 4 * N + l);
        c5 += ds * ld16(Q + 5 * N + l);
        c6 += ds * ld16(Q + 6 * N + l);
        c7 += ds * ld16(Q + 7 * N + l);
    }
    float lv[8][16], lk[8][16];
    memcpy(lv[0], &v0, sizeof v0);
    memcpy(lv[1], &v1, sizeof v1);
    memcpy(lv[2], &v2, sizeof v2);
    memcpy(lv[3], &v3, sizeof v3);
    memcpy(lv[4], &v4, sizeof v4);
    memcpy(lv[5], &v5, sizeof v5);
    memcpy(lv[6], &v6, sizeof v6);
    memcpy(lv[7], &v7, sizeof v7);
    memcpy(lk[0], &c0, sizeof c0);
    memcpy(lk[1], &c1, sizeof c1);
    memcpy(lk[2], &c2, sizeof c2);
    memcpy(lk[3], &c3, sizeof c3);
    memcpy(lk[4], &c4, sizeof c4);
    memcpy(lk[5], &c5, sizeof c5);
    memcpy(lk[6], &c6, sizeof c6);
    memcpy(lk[7], &c7, sizeof c7);
    for (int k = 0; nv + k < n; k++) {
        int64_t l = nv + k;
        float ts = 0.0f, td = 0.0f;
        for (int d = 0; d < 8; d++) {
            ts += kj[d] * Q[d * N + l];
            td += vj[d] * dOt[d * N + l];
        }
        float dn = den[l] > 0.0f ? den[l] : 1.0f, keep = den[l] > 0.0f ? 1.0f : 0.0f;
        float a = keep * (ag_i_exp1(ts * scale - mx[l]) / dn);
        float ds = (a * (1.0f * td - cs[l])) * scale;
        for (int d = 0; d < 8; d++) {
            lv[d][k] += a * dOt[d * N + l];
            lk[d][k] += ds * Q[d * N + l];
        }
    }
    for (int d = 0; d < 8; d++) {
        float u = 0.0f, t = 0.0f;
        for (int k = 0; k < 16; k++) u += lv[d][k];
        for (int k = 0; k < 16; k++) t += lk[d][k];
        dv[d] += u;
        dk[d] += t;
    }
}

AG_CLONES AG_NO_TRAPPING_MATH static void fused_dst_block_any(
    const float *q, const float *dO, const float *K, const float *V, int64_t N, int64_t D, int64_t n, float scale,
    float mx, float den, float cs, float *dq) {
    fused_dst_block(q, dO, K, V, N, D, n, scale, mx, den, cs, dq);
}

AG_CLONES AG_NO_TRAPPING_MATH static void fused_src_block_any(
    const float *kj, const float *vj, const float *Q, const float *dOt, int64_t N, int64_t D, int64_t n, float scale,
    const float *mx, const float *den, const float *cs, float *dk, float *dv) {
    fused_src_block(kj, vj, Q, dOt, N, D, n, scale, mx, den, cs, dk, dv);
}

/* The fused backward (softmax, no dropout), tiled as the forward: a tile of 32 destinations
 * (pass A) or sources (pass B) of one graph meets each block of 256 sources (destinations) while
 * that block's rows are in L1. Each (node, head) still sees its blocks in increasing order with
 * the same operations, so the tiling changes no bit. */
static void fused_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, const float *Kt, const float *Vt,
                           const float *Qt, const float *dOr, const float *dOt, const float *mxT, const float *denT,
                           const float *csT, int nt) {
    int64_t N = c->N, ld = stride_of(N), H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    int64_t tiles = (N + TILE - 1) / TILE;
    /* pass A: dq of each destination */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t t = 0; t < tiles; t++) {
        int64_t end = (t + 1) * TILE < N ? (t + 1) * TILE : N;
        for (int64_t a = t * TILE; a < end;) { /* runs of rows of one graph */
            int32_t g = m->node_graph[a];
            int64_t g0 = m->graph_ptr[g], g1 = m->graph_ptr[g + 1], e = g1 < end ? g1 : end;
            for (int64_t h = 0; h < H; h++) {
                const float *Kh = Kt + h * D * ld, *Vh = Vt + h * D * ld;
                for (int64_t j0 = g0; j0 < g1; j0 += BLOCK) {
                    int64_t n = g1 - j0 < BLOCK ? g1 - j0 : BLOCK;
                    for (int64_t i = a; i < e; i++) {
                        const float *q = c->q + i * HD + h * D, *dO = dOr + i * HD + h * D;
                        float *dq = b->dq + i * HD + h * D;
                        float mxi = c->mx[i * H + h], deni = c->den[i * H + h], csi = b->cs[i * H + h];
                        if (D == 8) fused_dst_block_d8(q, dO, Kh + j0, Vh + j0, ld, n, c->scale, mxi, deni, csi, dq);
                        else fused_dst_block_any(q, dO, Kh + j0, Vh + j0, ld, D, n, c->scale, mxi, deni, csi, dq);
                    }
                }
            }
            a = e;
        }
    }
    /* pass B: dk and dv of each source, gathering over the destinations of its graph */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t t = 0; t < tiles; t++) {
        int64_t end = (t + 1) * TILE < N ? (t + 1) * TILE : N;
        for (int64_t a = t * TILE; a < end;) {
            int32_t g = m->node_graph[a];
            int64_t g0 = m->graph_ptr[g], g1 = m->graph_ptr[g + 1], e = g1 < end ? g1 : end;
            for (int64_t h = 0; h < H; h++) {
                const float *Qh = Qt + h * D * ld, *Oh = dOt + h * D * ld;
                for (int64_t i0 = g0; i0 < g1; i0 += BLOCK) {
                    int64_t n = g1 - i0 < BLOCK ? g1 - i0 : BLOCK;
                    const float *mx = mxT + h * ld + i0, *dn = denT + h * ld + i0, *cs = csT + h * ld + i0;
                    for (int64_t j = a; j < e; j++) {
                        const float *kj = c->k + j * HD + h * D, *vj = c->v + j * HD + h * D;
                        float *dk = b->dk + j * HD + h * D, *dv = b->dv + j * HD + h * D;
                        if (D == 8) fused_src_block_d8(kj, vj, Qh + i0, Oh + i0, ld, n, c->scale, mx, dn, cs, dk, dv);
                        else fused_src_block_any(kj, vj, Qh + i0, Oh + i0, ld, D, n, c->scale, mx, dn, cs, dk, dv);
                    }
                }
            }
            a = e;
        }
    }
}

ag_error_t ag_i_attn_full_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int nt) {
    int64_t N = c->N, ld = stride_of(N), H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    /* Kt, Vt, Qt, dOt (H*D x ld): K, V, Q and dO transposed, padded as in the forward; dOr (N x H*D):
     * dO per head, scaled, before the transpose; stT (3 x H x ld): the forward's row maxima and
     * denominators and the rows' dO . O (cs), transposed; scr (nt x 6 x BLOCK): per-thread blocks */
    float *Kt = NULL, *Vt = NULL, *Qt = NULL, *dOr = NULL, *dOt = NULL, *stT = NULL, *scr = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&Kt, ld * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&Vt, ld * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&Qt, ld * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&dOr, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&dOt, ld * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&stT, 3 * ld * H, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&scr, (int64_t)nt * 6 * BLOCK, sizeof(float), "full attention scratch");
    if (rc) goto done;
    transpose(c->k, Kt, N, HD, ld);
    transpose(c->v, Vt, N, HD, ld);
    transpose(c->q, Qt, N, HD, ld);
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++)
                dOr[i * HD + h * D + d] = b->dcomb[i * b->C + (b->concat ? h * D : 0) + d] * b->dscale;
    transpose(dOr, dOt, N, HD, ld);
    float *mxT = stT, *denT = stT + ld * H, *csT = stT + 2 * ld * H; /* (H x ld) each */
    int fused = c->norm == AG_NORM_SOFTMAX && !c->dropout && D <= FUSED_DMAX;
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++) {
            mxT[h * ld + i] = c->mx[i * H + h];
            denT[h * ld + i] = c->den[i * H + h];
            csT[h * ld + i] = b->cs[i * H + h];
        }

    if (fused) {
        fused_backward(c, b, Kt, Vt, Qt, dOr, dOt, mxT, denT, csT, nt);
        goto done;
    }
    /* pass A: per destination, dq_i */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
    for (int64_t i = 0; i < N; i++) {
        float *s = scr + (int64_t)omp_get_thread_num() * 6 * BLOCK, *dot = s + BLOCK, *f = dot + BLOCK;
        float *alpha = f + BLOCK, *ds = alpha + BLOCK;
        int64_t g0 = m->graph_ptr[m->node_graph[i]], g1 = m->graph_ptr[m->node_graph[i] + 1];
        for (int64_t h = 0; h < H; h++) {
            const float *q = c->q + i * HD + h * D, *dO = dOr + i * HD + h * D;
            float *dq = b->dq + i * HD + h * D;
            for (int64_t j0 = g0; j0 < g1; j0 += BLOCK) {
                int64_t n = g1 - j0 < BLOCK ? g1 - j0 : BLOCK;
                block_scores(q, Kt + h * D * ld, ld, D, j0, n, c->scale, s);
                block_scores(dO, Vt + h * D * ld, ld, D, j0, n, 1.0f, dot);
                for (int64_t jj = 0; jj < n; jj++) f[jj] = c->dropout ? drop_at(c, i, j0 + jj, h) : 1.0f;
                row_grads(c, s, c->mx[i * H + h], c->den[i * H + h], b->cs[i * H + h], dot, f, n, alpha, ds);
                for (int64_t jj = 0; jj < n; jj++) ds[jj] *= c->scale;
                for (int64_t d = 0; d < D; d++) dq[d] += lane_dot(ds, Kt + (h * D + d) * ld + j0, n);
            }
        }
    }
    /* pass B: per source, dk_j and dv_j, gathering over the destinations of its graph */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
    for (int64_t j = 0; j < N; j++) {
        float *s = scr + (int64_t)omp_get_thread_num() * 6 * BLOCK, *dot = s + BLOCK, *f = dot + BLOCK;
        float *alpha = f + BLOCK, *ds = alpha + BLOCK;
        int64_t g0 = m->graph_ptr[m->node_graph[j]], g1 = m->graph_ptr[m->node_graph[j] + 1];
        for (int64_t h = 0; h < H; h++) {
            const float *kj = c->k + j * HD + h * D, *vj = c->v + j * HD + h * D;
            float *dk = b->dk + j * HD + h * D, *dv = b->dv + j * HD + h * D;
            for (int64_t i0 = g0; i0 < g1; i0 += BLOCK) {
                int64_t n = g1 - i0 < BLOCK ? g1 - i0 : BLOCK;
                block_scores(kj, Qt + h * D * ld, ld, D, i0, n, c->scale, s);
                block_scores(vj, dOt + h * D * ld, ld, D, i0, n, 1.0f, dot);
                for (int64_t ii = 0; ii < n; ii++) f[ii] = c->dropout ? drop_at(c, i0 + ii, j, h) : 1.0f;
                col_grads(c, s, mxT + h * ld + i0, denT + h * ld + i0, csT + h * ld + i0, dot, f, n, alpha, ds);
                for (int64_t ii = 0; ii < n; ii++) {
                    alpha[ii] *= f[ii];
                    ds[ii] *= c->scale;
                }
                for (int64_t d = 0; d < D; d++) dv[d] += lane_dot(alpha, dOt + (h * D + d) * ld + i0, n);
                for (int64_t d = 0; d < D; d++) dk[d] += lane_dot(ds, Qt + (h * D + d) * ld + i0, n);
            }
        }
    }
done:
    ag_i_free(Kt);
    ag_i_free(Vt);
    ag_i_free(Qt);
    ag_i_free(dOr);
    ag_i_free(dOt);
    ag_i_free(stT);
    ag_i_free(scr);
    return rc;
}
