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

/* The hot loops are compiled for AVX-512, AVX2 and the baseline, chosen at load time: the library
 * is installed, so it cannot assume -march=native. Each clone runs the same operations per lane
 * (ISO C mode keeps -ffp-contract=off: no fused multiply-adds), so results do not depend on
 * which one runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define AG_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AG_CLONES
#endif

/* x[l] = exp(x[l]) for -87 <= x <= 88 (clamped below; softmax arguments are <= 0): Cody-Waite reduction and a degree-6 polynomial (relative error
 * below 3e-7), written so that the loop vectorises (glibc's expf does not without -ffast-math). */
/* no-trapping-math only lets the compiler turn the clamp into a vector select; results are the same. */
AG_CLONES __attribute__((optimize("no-trapping-math"))) void ag_i_exp_block(float *x, int64_t n) {
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

AG_CLONES __attribute__((optimize("no-trapping-math"))) static float block_max(const float *s, int64_t n, float m) {
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

/* dst ((H*D) x N) = transpose of src (N x H*D). */
static void transpose(const float *src, float *dst, int64_t N, int64_t HD) {
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < HD; x++)
        for (int64_t i = 0; i < N; i++) dst[x * N + i] = src[i * HD + x];
}

static inline float drop_at(const ag_attn_ctx_t *c, int64_t i, int64_t j, int64_t h) {
    uint64_t idx = ((uint64_t)i * (uint64_t)c->N + (uint64_t)j) * (uint64_t)c->H + (uint64_t)h;
    return ag_rng_uniform(c->seed, c->stream, idx) < c->p ? 0.0f : c->keep;
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

ag_error_t ag_i_attn_full_forward(const ag_attn_ctx_t *c, int nt) {
    int64_t N = c->N, H = c->H, D = c->D, HD = c->HD;
    float *Kt = NULL, *Vt = NULL, *scr = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&Kt, N * HD, sizeof(float), "full attention transposed keys");
    if (!rc) rc = ag_i_alloc_array((void **)&Vt, N * HD, sizeof(float), "full attention transposed values");
    if (!rc) rc = ag_i_alloc_array((void **)&scr, (int64_t)nt * BLOCK, sizeof(float), "full attention scratch");
    if (rc) {
        ag_i_free(Kt);
        ag_i_free(Vt);
        return rc;
    }
    transpose(c->k, Kt, N, HD);
    transpose(c->v, Vt, N, HD);
    const ag_mask_t *m = c->mask;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
    for (int64_t i = 0; i < N; i++) {
        float *s = scr + (int64_t)omp_get_thread_num() * BLOCK;
        int64_t g0 = m->graph_ptr[m->node_graph[i]], g1 = m->graph_ptr[m->node_graph[i] + 1];
        for (int64_t h = 0; h < H; h++) {
            const float *q = c->q + i * HD + h * D;
            float *acc = c->o + i * HD + h * D;
            float mh = -INFINITY, S = 0.0f;
            for (int64_t d = 0; d < D; d++) acc[d] = 0.0f;
            for (int64_t j0 = g0; j0 < g1; j0 += BLOCK) {
                int64_t n = g1 - j0 < BLOCK ? g1 - j0 : BLOCK;
                block_scores(q, Kt + h * D * N, N, D, j0, n, c->scale, s);
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
                for (int64_t d = 0; d < D; d++) acc[d] += lane_dot(s, Vt + (h * D + d) * N + j0, n);
            }
            float den = g1 > g0 ? (c->norm == AG_NORM_SOFTMAX ? S : S + AG_ATTN_RELU_EPS) : 0.0f;
            c->mx[i * H + h] = (c->norm == AG_NORM_SOFTMAX && g1 > g0) ? mh : 0.0f;
            c->den[i * H + h] = den;
            for (int64_t d = 0; d < D; d++) acc[d] = den > 0.0f ? acc[d] / den : 0.0f;
        }
    }
    ag_i_free(Kt);
    ag_i_free(Vt);
    ag_i_free(scr);
    return AG_SUCCESS;
}

/* alpha (n) and ds (n) of one destination row (pass A: its maximum, denominator and dO.O are
 * scalars) from the scores s, the value dot products dot = dO . v_j and the dropout factors f. */
__attribute__((optimize("no-trapping-math"))) static void row_grads(const ag_attn_ctx_t *c, const float *s, float mx,
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
__attribute__((optimize("no-trapping-math"))) static void col_grads(const ag_attn_ctx_t *c, const float *s,
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

ag_error_t ag_i_attn_full_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int nt) {
    int64_t N = c->N, H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    float *Kt = NULL, *Vt = NULL, *Qt = NULL, *dOr = NULL, *dOt = NULL, *stT = NULL, *scr = NULL;
    ag_error_t rc = ag_i_alloc_array((void **)&Kt, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&Vt, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&Qt, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&dOr, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&dOt, N * HD, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&stT, 3 * N * H, sizeof(float), "full attention backward buffers");
    if (!rc) rc = ag_i_alloc_array((void **)&scr, (int64_t)nt * 6 * BLOCK, sizeof(float), "full attention scratch");
    if (rc) goto done;
    transpose(c->k, Kt, N, HD);
    transpose(c->v, Vt, N, HD);
    transpose(c->q, Qt, N, HD);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++)
                dOr[i * HD + h * D + d] = b->dcomb[i * b->C + (b->concat ? h * D : 0) + d] * b->dscale;
    transpose(dOr, dOt, N, HD);
    float *mxT = stT, *denT = stT + N * H, *csT = stT + 2 * N * H; /* (H x N) each */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++) {
            mxT[h * N + i] = c->mx[i * H + h];
            denT[h * N + i] = c->den[i * H + h];
            csT[h * N + i] = b->cs[i * H + h];
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
                block_scores(q, Kt + h * D * N, N, D, j0, n, c->scale, s);
                block_scores(dO, Vt + h * D * N, N, D, j0, n, 1.0f, dot);
                for (int64_t jj = 0; jj < n; jj++) f[jj] = c->dropout ? drop_at(c, i, j0 + jj, h) : 1.0f;
                row_grads(c, s, c->mx[i * H + h], c->den[i * H + h], b->cs[i * H + h], dot, f, n, alpha, ds);
                for (int64_t jj = 0; jj < n; jj++) ds[jj] *= c->scale;
                for (int64_t d = 0; d < D; d++) dq[d] += lane_dot(ds, Kt + (h * D + d) * N + j0, n);
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
                block_scores(kj, Qt + h * D * N, N, D, i0, n, c->scale, s);
                block_scores(vj, dOt + h * D * N, N, D, i0, n, 1.0f, dot);
                for (int64_t ii = 0; ii < n; ii++) f[ii] = c->dropout ? drop_at(c, i0 + ii, j, h) : 1.0f;
                col_grads(c, s, mxT + h * N + i0, denT + h * N + i0, csT + h * N + i0, dot, f, n, alpha, ds);
                for (int64_t ii = 0; ii < n; ii++) {
                    alpha[ii] *= f[ii];
                    ds[ii] *= c->scale;
                }
                for (int64_t d = 0; d < D; d++) dv[d] += lane_dot(alpha, dOt + (h * D + d) * N + i0, n);
                for (int64_t d = 0; d < D; d++) dk[d] += lane_dot(ds, Qt + (h * D + d) * N + i0, n);
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
