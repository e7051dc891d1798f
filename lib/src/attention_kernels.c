/*
 * attention_kernels.c: the per-destination and per-source attention kernels (internal).
 *
 * One code path serves every mask: a pair iterator yields the candidate sources of a destination
 * (CSR entries for neighbour and k-hop masks; every node of the graph for the full mask, merged
 * with the destination's sorted CSR entries to find edge features), and the same per-pair scoring,
 * online softmax and gradient code runs on each pair. Each call writes only the rows of its own
 * destination (or source), so callers parallelise over nodes without atomics, and every sum runs
 * in pair order, independent of the number of threads.
 */
#include <math.h>
#include <string.h>
#include "attention_internal.h"

/* One (destination i, source j) pair. */
typedef struct pair_t {
    int64_t i, j;
    uint64_t drop;     /* dropout index of the pair; head h draws index drop*H + h */
    const float *e;    /* (Fe) edge features of the pair, or NULL (no input edge, or no edge mode) */
    int64_t e0, e1;    /* the pair's CSR entries of destination i (edge-feature gradients) */
} pair_t;

/* Iterates the pairs of one destination (dir 0) or one source (dir 1). */
typedef struct pair_it_t {
    const ag_attn_ctx_t *c;
    int dir, full;
    int64_t node;      /* the fixed destination (dir 0) or source (dir 1) */
    int64_t cur, end;  /* CSR entry / transposed entry / node cursor */
    int64_t k;         /* full, dir 0: merge cursor into the destination's CSR entries */
    const int32_t *dst;
    float *ebuf;       /* (Fe) sum of a multi-edge pair's features */
} pair_it_t;

static void it_init(pair_it_t *it, const ag_attn_ctx_t *c, int dir, int64_t node, const int32_t *dst,
                    float *ebuf) {
    const ag_mask_t *m = c->mask;
    it->c = c;
    it->dir = dir;
    it->full = m->kind == AG_MASK_FULL;
    it->node = node;
    it->dst = dst;
    it->ebuf = ebuf;
    if (it->full) {
        int32_t g = m->node_graph[node];
        it->cur = m->graph_ptr[g];
        it->end = m->graph_ptr[g + 1];
        it->k = m->indptr[node];
    } else if (dir == 0) {
        it->cur = m->indptr[node];
        it->end = m->indptr[node + 1];
    } else {
        it->cur = m->t_indptr[node];
        it->end = m->t_indptr[node + 1];
    }
}

/* Edge features of the entries [e0, e1) of one pair: a pointer into E for one edge, their sum in
 * ebuf for a multi-edge pair of the full mask, NULL for none. */
static const float *pair_features(const pair_it_t *it, int64_t e0, int64_t e1) {
    const ag_attn_ctx_t *c = it->c;
    if (c->emode == AG_EDGE_NONE) return NULL;
    const int64_t *edge = c->mask->edge;
    const float *first = NULL;
    int n = 0;
    for (int64_t k = e0; k < e1; k++) {
        if (edge[k] < 0) continue;
        const float *e = c->E + edge[k] * c->Fe;
        if (n == 0) {
            first = e;
        } else {
            if (n == 1) memcpy(it->ebuf, first, (size_t)c->Fe * sizeof(float));
            for (int64_t f = 0; f < c->Fe; f++) it->ebuf[f] += e[f];
        }
        n++;
    }
    return n == 0 ? NULL : n == 1 ? first : it->ebuf;
}

static int it_next(pair_it_t *it, pair_t *p) {
    const ag_attn_ctx_t *c = it->c;
    const ag_mask_t *m = c->mask;
    if (it->cur >= it->end) return 0;
    if (!it->full) {
        int64_t k = it->dir == 0 ? it->cur : m->t_entry[it->cur];
        p->i = it->dir == 0 ? it->node : it->dst[k];
        p->j = m->src[k];
        p->drop = (uint64_t)k;
        p->e0 = k;
        p->e1 = k + 1;
    } else if (it->dir == 0) {
        int64_t i = it->node, j = it->cur, kend = m->indptr[i + 1];
        while (it->k < kend && m->src[it->k] < j) it->k++;
        p->e0 = it->k;
        while (it->k < kend && m->src[it->k] == j) it->k++;
        p->e1 = it->k;
        p->i = i;
        p->j = j;
        p->drop = (uint64_t)i * (uint64_t)c->N + (uint64_t)j;
    } else {
        int64_t i = it->cur, j = it->node;
        p->i = i;
        p->j = j;
        p->drop = (uint64_t)i * (uint64_t)c->N + (uint64_t)j;
        p->e0 = p->e1 = 0;
        if (c->emode != AG_EDGE_NONE) { /* the entries of i with source j: binary search */
            int64_t lo = m->indptr[i], hi = m->indptr[i + 1];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (m->src[mid] < j) lo = mid + 1; else hi = mid;
            }
            int64_t e1 = lo;
            while (e1 < m->indptr[i + 1] && m->src[e1] == j) e1++;
            p->e0 = lo;
            p->e1 = e1;
        }
    }
    it->cur++;
    p->e = pair_features(it, p->e0, p->e1);
    return 1;
}

static inline float expx(float x) { return ag_i_exp1(x); }

static inline float lrelu(float x, float slope) { return x > 0.0f ? x : slope * x; }
static inline float lrelu_d(float x, float slope) { return x > 0.0f ? 1.0f : slope; }

/* Dropout multiplier of (pair, head): 0 with probability p, else 1/(1-p). */
static inline float drop_factor(const ag_attn_ctx_t *c, const pair_t *p, int64_t h) {
    if (!c->dropout) return 1.0f;
    float u = ag_i_rng_uniform_at(c->drop_base, p->drop * (uint64_t)c->H + (uint64_t)h);
    return u < c->p ? 0.0f : c->keep;
}

/* ek (H*D) = e W^e, the key/value contribution of the pair's edge features (KEY mode). */
static void edge_key(const ag_attn_ctx_t *c, const float *e, float *ek) {
    int64_t HD = c->HD;
    for (int64_t x = 0; x < HD; x++) ek[x] = 0.0f;
    for (int64_t f = 0; f < c->Fe; f++) {
        const float *w = c->We + f * HD;
        float ef = e[f];
        for (int64_t x = 0; x < HD; x++) ek[x] += ef * w[x];
    }
}

/* t (n) = a * leaky_relu(q + v [+ e]), element by element: a loop the compiler vectorises, where
 * the per-head sum of pair_scores would not (its order is fixed). */
AG_CLONES AG_NO_TRAPPING_MATH static void gatv2_terms(const float *restrict q, const float *restrict v,
                                                      const float *restrict e, const float *restrict a,
                                                      float slope, int64_t n, float *restrict t) {
    if (e) {
        for (int64_t x = 0; x < n; x++) {
            float pre = q[x] + v[x] + e[x];
            t[x] = a[x] * (pre > 0.0f ? pre : slope * pre);
        }
    } else {
        for (int64_t x = 0; x < n; x++) {
            float pre = q[x] + v[x];
            t[x] = a[x] * (pre > 0.0f ? pre : slope * pre);
        }
    }
}

/* Floats of the stack buffer of gatv2_scores. */
#define GATV2_CHUNK 512

/* GATv2 scores s (H) = sum over d, in order, of the terms of gatv2_terms, made GATV2_CHUNK lanes
 * at a time (a head may straddle two chunks: its sum carries over): the scalar form's sums, bit
 * for bit (no fused multiply-adds in ISO C mode). */
static void gatv2_scores(const ag_attn_ctx_t *c, const float *qi, const float *vj, const float *ek, float *s) {
    int64_t HD = c->HD, D = c->D, h = 0, d = 0;
    float t[GATV2_CHUNK]; /* (lanes of the chunk) terms */
    float acc = 0.0f;
    for (int64_t x0 = 0; x0 < HD; x0 += GATV2_CHUNK) {
        int64_t n = HD - x0 < GATV2_CHUNK ? HD - x0 : GATV2_CHUNK;
        gatv2_terms(qi + x0, vj + x0, ek ? ek + x0 : NULL, c->a + x0, c->slope, n, t);
        for (int64_t u = 0; u < n; u++) {
            acc += t[u];
            if (++d == D) {
                s[h++] = acc;
                acc = 0.0f;
                d = 0;
            }
        }
    }
}

/* The GATv2 terms of a pair's gradients, lane by lane (n = H*D lanes; ds, wv: the pair's dL/ds
 * and value weight of each lane's head): with g = ds a lrelu'(pre), dq += g, da += ds lrelu(pre)
 * and, with edge features e (KEY), dek = g + wv dO. The scalar form's operations, per lane. */
AG_CLONES AG_NO_TRAPPING_MATH static void gatv2_grad(const float *restrict q, const float *restrict v,
                                                     const float *restrict e, const float *restrict a,
                                                     const float *restrict ds, const float *restrict wv,
                                                     const float *restrict dO, float slope, int64_t n,
                                                     float *restrict dq, float *restrict da,
                                                     float *restrict dek) {
    if (e) {
        for (int64_t x = 0; x < n; x++) {
            float pre = q[x] + v[x] + e[x];
            float g = ds[x] * a[x] * (pre > 0.0f ? 1.0f : slope);
            dq[x] += g;
            da[x] += ds[x] * (pre > 0.0f ? pre : slope * pre);
            dek[x] = g + wv[x] * dO[x];
        }
    } else {
        for (int64_t x = 0; x < n; x++) {
            float pre = q[x] + v[x];
            float g = ds[x] * a[x] * (pre > 0.0f ? 1.0f : slope);
            dq[x] += g;
            da[x] += ds[x] * (pre > 0.0f ? pre : slope * pre);
        }
    }
}

/* A source's share of a pair's gradients, lane by lane (as gatv2_grad): the value path
 * dv += wv dO (skipped where wv = 0, as the scalar form does), then the score path
 * dv += ds a lrelu'(pre). */
AG_CLONES AG_NO_TRAPPING_MATH static void gatv2_grad_src(const float *restrict q, const float *restrict v,
                                                         const float *restrict e, const float *restrict a,
                                                         const float *restrict ds, const float *restrict wv,
                                                         const float *restrict dO, float slope, int64_t n,
                                                         float *restrict dv) {
    for (int64_t x = 0; x < n; x++) {
        float pre = q[x] + v[x] + (e ? e[x] : 0.0f);
        float t = wv[x] != 0.0f ? dv[x] + wv[x] * dO[x] : dv[x];
        dv[x] = t + ds[x] * a[x] * (pre > 0.0f ? 1.0f : slope);
    }
}

/* Scores s (H) of a pair; ek (H*D) receives e W^e when the pair carries KEY edge features.
 * Returns 1 when ek is in use. */
static int pair_scores(const ag_attn_ctx_t *c, const pair_t *p, float *s, float *ek) {
    int64_t H = c->H, D = c->D, HD = c->HD;
    int has_ek = c->emode == AG_EDGE_KEY && p->e;
    if (has_ek) edge_key(c, p->e, ek);
    switch (c->score) {
    case AG_SCORE_DOT: {
        const float *qi = c->q + p->i * HD, *kj = c->k + p->j * HD;
        for (int64_t h = 0; h < H; h++) {
            float acc = 0.0f;
            if (has_ek)
                for (int64_t d = 0; d < D; d++) acc += qi[h * D + d] * (kj[h * D + d] + ek[h * D + d]);
            else
                for (int64_t d = 0; d < D; d++) acc += qi[h * D + d] * kj[h * D + d];
            s[h] = acc * c->scale;
        }
        break;
    }
    case AG_SCORE_GAT:
        for (int64_t h = 0; h < H; h++) {
            float pre = c->el[p->i * H + h] + c->er[p->j * H + h];
            if (has_ek) {
                float t = 0.0f;
                for (int64_t d = 0; d < D; d++) t += c->a_src[h * D + d] * ek[h * D + d];
                pre += t;
            }
            s[h] = lrelu(pre, c->slope);
        }
        break;
    case AG_SCORE_GATV2:
        gatv2_scores(c, c->q + p->i * HD, c->v + p->j * HD, has_ek ? ek : NULL, s);
        break;
    }
    if (c->emode == AG_EDGE_BIAS && p->e)
        for (int64_t h = 0; h < H; h++) {
            float t = 0.0f;
            for (int64_t f = 0; f < c->Fe; f++) t += p->e[f] * c->We[f * H + h];
            s[h] += t;
        }
    return has_ek;
}

int64_t ag_i_attn_scratch_floats(const ag_attn_ctx_t *c) {
    /* ek, dek, dO, dsx, wvx (H*D each); ebuf, dEf (Fe each); s, m, S, ds (H each) */
    return 5 * c->HD + 2 * c->Fe + 4 * c->H + 16;
}

void ag_i_attn_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch) {
    int64_t H = c->H, D = c->D, HD = c->HD;
    float *ek = scratch, *ebuf = ek + HD, *s = ebuf + c->Fe, *m = s + H, *S = m + H;
    float *acc = c->o + i * HD; /* (H*D) the running weighted sum, rescaled with the maximum */
    for (int64_t h = 0; h < H; h++) {
        m[h] = -INFINITY;
        S[h] = 0.0f;
    }
    for (int64_t x = 0; x < HD; x++) acc[x] = 0.0f;
    pair_it_t it;
    pair_t p;
    int64_t count = 0;
    it_init(&it, c, 0, i, NULL, ebuf);
    while (it_next(&it, &p)) {
        int has_ek = pair_scores(c, &p, s, ek);
        const float *vj = c->v + p.j * HD;
        count++;
        for (int64_t h = 0; h < H; h++) {
            float w, sh = s[h];
            float *ah = acc + h * D;
            if (c->norm == AG_NORM_SOFTMAX) {
                if (sh > m[h]) { /* online softmax: rescale what was summed under the old maximum */
                    float sc = m[h] == -INFINITY ? 0.0f : expx(m[h] - sh);
                    S[h] *= sc;
                    for (int64_t d = 0; d < D; d++) ah[d] *= sc;
                    m[h] = sh;
                }
                w = expx(sh - m[h]);
            } else {
                w = sh > 0.0f ? sh : 0.0f;
            }
            S[h] += w;
            w *= drop_factor(c, &p, h);
            if (w == 0.0f) continue;
            const float *vh = vj + h * D;
            if (has_ek) {
                const float *eh = ek + h * D;
                for (int64_t d = 0; d < D; d++) ah[d] += w * (vh[d] + eh[d]);
            } else {
                for (int64_t d = 0; d < D; d++) ah[d] += w * vh[d];
            }
        }
    }
    for (int64_t h = 0; h < H; h++) {
        float den = count == 0 ? 0.0f : c->norm == AG_NORM_SOFTMAX ? S[h] : S[h] + AG_ATTN_RELU_EPS;
        c->mx[i * H + h] = (c->norm == AG_NORM_SOFTMAX && count > 0) ? m[h] : 0.0f;
        c->den[i * H + h] = den;
        float *ah = acc + h * D;
        if (den > 0.0f)
            for (int64_t d = 0; d < D; d++) ah[d] /= den;
        else
            for (int64_t d = 0; d < D; d++) ah[d] = 0.0f;
    }
}

/* The normalised weight of head h of a pair with score s. */
static inline float pair_alpha(const ag_attn_ctx_t *c, int64_t i, int64_t h, float s) {
    float den = c->den[i * c->H + h];
    if (den <= 0.0f) return 0.0f;
    if (c->norm == AG_NORM_SOFTMAX) return expx(s - c->mx[i * c->H + h]) / den;
    return (s > 0.0f ? s : 0.0f) / den;
}

/* dO (H*D) of destination i from the gradient of the combined heads. */
static void load_dO(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *dO) {
    const float *row = b->dcomb + i * b->C;
    for (int64_t h = 0; h < c->H; h++)
        for (int64_t d = 0; d < c->D; d++) dO[h * c->D + d] = row[(b->concat ? h * c->D : 0) + d] * b->dscale;
}

/* dL/ds of head h of a pair (softmax or relu Jacobian), given alpha, the dropout factor and the
 * pair's value; *wv receives the weight alpha*f the value was summed with. */
static inline float pair_dscore(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, const pair_t *p, int64_t h,
                                float s, const float *dO, const float *ek, int has_ek, float *wv) {
    int64_t D = c->D;
    float alpha = pair_alpha(c, p->i, h, s);
    float f = drop_factor(c, p, h);
    const float *vh = c->v + p->j * c->HD + h * D, *gh = dO + h * D;
    float dot = 0.0f;
    if (has_ek) {
        const float *eh = ek + h * D;
        for (int64_t d = 0; d < D; d++) dot += gh[d] * (vh[d] + eh[d]);
    } else {
        for (int64_t d = 0; d < D; d++) dot += gh[d] * vh[d];
    }
    float dalpha = f * dot, cs = b->cs[p->i * c->H + h];
    *wv = alpha * f;
    if (c->norm == AG_NORM_SOFTMAX) return alpha * (dalpha - cs);
    float den = c->den[p->i * c->H + h];
    return (s > 0.0f && den > 0.0f) ? (dalpha - cs) / den : 0.0f;
}

void ag_i_attn_backward_dst(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *part,
                            float *scratch) {
    int64_t H = c->H, D = c->D, HD = c->HD, Fe = c->Fe;
    float *ek = scratch, *dek = ek + HD, *dO = dek + HD, *ebuf = dO + HD, *dEf = ebuf + Fe;
    float *s = dEf + Fe, *dsh = s + H;
    float *dsx = dsh + H, *wvx = dsx + HD; /* (H*D) a pair's dL/ds and value weights, per lane */
    float *dqi = b->dq ? b->dq + i * HD : NULL, *deli = b->del ? b->del + i * H : NULL;
    load_dO(c, b, i, dO);
    if (c->mask->kind != AG_MASK_FULL) /* random rows of the sources: request them all up front */
        for (int64_t k = c->mask->indptr[i]; k < c->mask->indptr[i + 1]; k++) {
            int64_t j = c->mask->src[k];
            const char *row = (const char *)(c->v + j * HD);
            for (int64_t o = 0; o < HD * (int64_t)sizeof(float); o += 64) __builtin_prefetch(row + o);
            if (c->er) __builtin_prefetch(c->er + j * H);
            if (c->k) __builtin_prefetch(c->k + j * HD);
        }
    pair_it_t it;
    pair_t p;
    it_init(&it, c, 0, i, NULL, ebuf);
    while (it_next(&it, &p)) {
        int has_ek = pair_scores(c, &p, s, ek);
        for (int64_t h = 0; h < H; h++) {
            float wv, ds = pair_dscore(c, b, &p, h, s[h], dO, ek, has_ek, &wv);
            dsh[h] = ds;
            if (b->ds_e) {
                b->ds_e[p.e0 * H + h] = ds;
                b->wv_e[p.e0 * H + h] = wv;
            }
            const float *gh = dO + h * D;
            switch (c->score) {
            case AG_SCORE_DOT: {
                const float *kh = c->k + p.j * HD + h * D, *qh = c->q + i * HD + h * D;
                float g = ds * c->scale;
                if (has_ek)
                    for (int64_t d = 0; d < D; d++) {
                        dqi[h * D + d] += g * (kh[d] + ek[h * D + d]);
                        dek[h * D + d] = g * qh[d] + wv * gh[d];
                    }
                else
                    for (int64_t d = 0; d < D; d++) dqi[h * D + d] += g * kh[d];
                break;
            }
            case AG_SCORE_GAT: {
                float pre = c->el[i * H + h] + c->er[p.j * H + h];
                const float *ah = c->a_src + h * D;
                if (has_ek) {
                    float t = 0.0f;
                    for (int64_t d = 0; d < D; d++) t += ah[d] * ek[h * D + d];
                    pre += t;
                }
                float g = ds * lrelu_d(pre, c->slope);
                deli[h] += g;
                if (b->ds_e) b->ds_e[p.e0 * H + h] = g;
                if (has_ek) {
                    float *pa = part + b->part_dasrc + h * D;
                    for (int64_t d = 0; d < D; d++) {
                        dek[h * D + d] = g * ah[d] + wv * gh[d];
                        pa[d] += g * ek[h * D + d];
                    }
                }
                break;
            }
            case AG_SCORE_GATV2: /* after the heads, on every lane at once */
                for (int64_t d = 0; d < D; d++) {
                    dsx[h * D + d] = ds;
                    wvx[h * D + d] = wv;
                }
                break;
            }
        }
        if (c->score == AG_SCORE_GATV2)
            gatv2_grad(c->q + i * HD, c->v + p.j * HD, has_ek ? ek : NULL, c->a, dsx, wvx, dO, c->slope, HD, dqi,
                       part + b->part_da, dek);
        if (!p.e) continue;
        float *pw = part + b->part_we;
        if (c->emode == AG_EDGE_KEY) {
            for (int64_t f = 0; f < Fe; f++) {
                const float *w = c->We + f * HD;
                float t = 0.0f, ef = p.e[f];
                for (int64_t x = 0; x < HD; x++) t += w[x] * dek[x];
                dEf[f] = t;
                for (int64_t x = 0; x < HD; x++) pw[f * HD + x] += ef * dek[x];
            }
        } else {
            for (int64_t f = 0; f < Fe; f++) {
                const float *w = c->We + f * H;
                float t = 0.0f, ef = p.e[f];
                for (int64_t h = 0; h < H; h++) t += w[h] * dsh[h];
                dEf[f] = t;
                for (int64_t h = 0; h < H; h++) pw[f * H + h] += ef * dsh[h];
            }
        }
        if (b->dent)
            for (int64_t k = p.e0; k < p.e1; k++)
                if (c->mask->edge[k] >= 0) memcpy(b->dent + k * Fe, dEf, (size_t)Fe * sizeof(float));
    }
}

void ag_i_attn_backward_src(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t j, float *scratch) {
    int64_t H = c->H, D = c->D, HD = c->HD, Fe = c->Fe;
    float *ek = scratch, *dO = ek + 2 * HD, *ebuf = dO + HD, *s = ebuf + 2 * Fe;
    float *dsx = s + H, *wvx = dsx + HD; /* (H*D) an entry's dL/ds and value weights, per lane */
    float *dvj = b->dv + j * HD, *dkj = b->dk ? b->dk + j * HD : NULL, *derj = b->der ? b->der + j * H : NULL;
    if (b->ds_e) { /* the destination pass kept dL/ds and the weights: a plain gather */
        const ag_mask_t *m = c->mask;
        for (int64_t t = m->t_indptr[j]; t < m->t_indptr[j + 1]; t++) {
            int64_t k = m->t_entry[t], i = b->dst[k];
            /* GATv2's score reads v_j through the leaky ReLU of q_i + v_j (+ e W^e): only that
             * derivative is recomputed, not the scores and their softmax */
            int has_ek = c->score == AG_SCORE_GATV2 && c->emode == AG_EDGE_KEY && m->edge[k] >= 0;
            if (has_ek) edge_key(c, c->E + m->edge[k] * Fe, ek);
            if (t + 4 < m->t_indptr[j + 1]) {
                int64_t kn = m->t_entry[t + 4], in = b->dst[kn];
                const char *row = (const char *)(b->dcomb + in * b->C);
                for (int64_t o = 0; o < b->C * (int64_t)sizeof(float); o += 64) __builtin_prefetch(row + o);
                if (c->q) __builtin_prefetch(c->q + in * HD);
                __builtin_prefetch(b->ds_e + kn * H);
                __builtin_prefetch(b->wv_e + kn * H);
            }
            load_dO(c, b, i, dO);
            if (c->score == AG_SCORE_GATV2) {
                for (int64_t h = 0; h < H; h++)
                    for (int64_t d = 0; d < D; d++) {
                        dsx[h * D + d] = b->ds_e[k * H + h];
                        wvx[h * D + d] = b->wv_e[k * H + h];
                    }
                gatv2_grad_src(c->q + i * HD, c->v + j * HD, has_ek ? ek : NULL, c->a, dsx, wvx, dO, c->slope, HD,
                               dvj);
                continue;
            }
            for (int64_t h = 0; h < H; h++) {
                float wv = b->wv_e[k * H + h], ds = b->ds_e[k * H + h];
                const float *gh = dO + h * D;
                float *dvh = dvj + h * D;
                if (wv != 0.0f)
                    for (int64_t d = 0; d < D; d++) dvh[d] += wv * gh[d];
                if (c->score == AG_SCORE_DOT) {
                    const float *qh = c->q + i * HD + h * D;
                    float g = ds * c->scale;
                    for (int64_t d = 0; d < D; d++) dkj[h * D + d] += g * qh[d];
                } else {
                    derj[h] += ds;
                }
            }
        }
        return;
    }
    pair_it_t it;
    pair_t p;
    it_init(&it, c, 1, j, b->dst, ebuf);
    while (it_next(&it, &p)) {
        int64_t i = p.i;
        int has_ek = pair_scores(c, &p, s, ek);
        load_dO(c, b, i, dO);
        for (int64_t h = 0; h < H; h++) {
            float wv, ds = pair_dscore(c, b, &p, h, s[h], dO, ek, has_ek, &wv);
            const float *gh = dO + h * D;
            float *dvh = dvj + h * D;
            if (wv != 0.0f)
                for (int64_t d = 0; d < D; d++) dvh[d] += wv * gh[d];
            switch (c->score) {
            case AG_SCORE_DOT: {
                const float *qh = c->q + i * HD + h * D;
                float g = ds * c->scale;
                for (int64_t d = 0; d < D; d++) dkj[h * D + d] += g * qh[d];
                break;
            }
            case AG_SCORE_GAT: {
                float pre = c->el[i * H + h] + c->er[j * H + h];
                if (has_ek) {
                    float t = 0.0f;
                    for (int64_t d = 0; d < D; d++) t += c->a_src[h * D + d] * ek[h * D + d];
                    pre += t;
                }
                derj[h] += ds * lrelu_d(pre, c->slope);
                break;
            }
            case AG_SCORE_GATV2: {
                const float *qh = c->q + i * HD + h * D, *vh = c->v + j * HD + h * D, *ah = c->a + h * D;
                for (int64_t d = 0; d < D; d++) {
                    float pre = qh[d] + vh[d] + (has_ek ? ek[h * D + d] : 0.0f);
                    dvh[d] += ds * ah[d] * lrelu_d(pre, c->slope);
                }
                break;
            }
            }
        }
    }
    (void)Fe;
}

void ag_i_attn_weights_dst(const ag_attn_ctx_t *c, int64_t i, float *alpha, float *scratch) {
    int64_t H = c->H, HD = c->HD;
    const ag_mask_t *m = c->mask;
    float *ek = scratch, *ebuf = ek + HD, *s = ebuf + c->Fe;
    pair_it_t it; /* used for its feature summing only */
    it_init(&it, c, 0, i, NULL, ebuf);
    int full = m->kind == AG_MASK_FULL;
    for (int64_t k0 = m->indptr[i], k1; k0 < m->indptr[i + 1]; k0 = k1) {
        pair_t p;
        k1 = k0 + 1;
        /* the full mask scores a pair once, whatever the number of its edges */
        if (full)
            while (k1 < m->indptr[i + 1] && m->src[k1] == m->src[k0]) k1++;
        p.i = i;
        p.j = m->src[k0];
        p.e0 = k0;
        p.e1 = k1;
        p.drop = 0;
        p.e = pair_features(&it, k0, k1);
        pair_scores(c, &p, s, ek);
        for (int64_t k = k0; k < k1; k++)
            for (int64_t h = 0; h < H; h++) alpha[(k - m->indptr[i]) * H + h] = pair_alpha(c, i, h, s[h]);
    }
}

void ag_i_attn_csr_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch) {
    if (ag_i_attn_csr_gat_forward_fast(c)) {
        ag_i_attn_csr_gat_forward_dst(c, i, scratch);
        return;
    }
    int64_t H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    int64_t k0 = m->indptr[i], n = m->indptr[i + 1] - k0;
    float *w = scratch; /* (deg x H) scores, then weights */
    float *acc = c->o + i * HD;
    for (int64_t x = 0; x < HD; x++) acc[x] = 0.0f;
    if (n == 0) {
        for (int64_t h = 0; h < H; h++) c->mx[i * H + h] = c->den[i * H + h] = 0.0f;
        return;
    }
    pair_t p;
    p.i = i;
    p.e = NULL;
    /* The sources' rows are random accesses into N x H*D tensors (DRAM latency on large graphs):
     * request every value row now, and the score inputs a few entries ahead. */
    for (int64_t t = 0; t < n; t++) {
        const char *row = (const char *)(c->v + (int64_t)m->src[k0 + t] * HD);
        for (int64_t b = 0; b < HD * (int64_t)sizeof(float); b += 64) __builtin_prefetch(row + b);
    }
    for (int64_t t = 0; t < n; t++) {
        if (t + 4 < n) {
            int64_t jn = m->src[k0 + t + 4];
            if (c->er) __builtin_prefetch(c->er + jn * H);
            if (c->k) __builtin_prefetch(c->k + jn * HD);
        }
        p.j = m->src[k0 + t];
        pair_scores(c, &p, w + t * H, NULL);
    }
    float *mh = c->mx + i * H, *den = c->den + i * H;
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t h = 0; h < H; h++) mh[h] = w[h];
        for (int64_t t = 1; t < n; t++)
            for (int64_t h = 0; h < H; h++) mh[h] = w[t * H + h] > mh[h] ? w[t * H + h] : mh[h];
        for (int64_t t = 0; t < n; t++)
            for (int64_t h = 0; h < H; h++) w[t * H + h] -= mh[h];
        ag_i_exp_block(w, n * H);
    } else {
        for (int64_t h = 0; h < H; h++) mh[h] = 0.0f;
        for (int64_t x = 0; x < n * H; x++) w[x] = w[x] > 0.0f ? w[x] : 0.0f;
    }
    for (int64_t h = 0; h < H; h++) den[h] = 0.0f;
    for (int64_t t = 0; t < n; t++)
        for (int64_t h = 0; h < H; h++) den[h] += w[t * H + h];
    if (c->norm == AG_NORM_RELU)
        for (int64_t h = 0; h < H; h++) den[h] += AG_ATTN_RELU_EPS;
    for (int64_t t = 0; t < n; t++) {
        const float *vj = c->v + (int64_t)m->src[k0 + t] * HD;
        for (int64_t h = 0; h < H; h++) {
            float wt = w[t * H + h] / den[h];
            if (c->dropout) {
                p.drop = (uint64_t)(k0 + t);
                wt *= drop_factor(c, &p, h);
            }
            float *ah = acc + h * D;
            const float *vh = vj + h * D;
            for (int64_t d = 0; d < D; d++) ah[d] += wt * vh[d];
        }
    }
}

void ag_i_attn_csr_backward_dst(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int64_t i, float *scratch) {
    int64_t H = c->H, D = c->D, HD = c->HD;
    const ag_mask_t *m = c->mask;
    int64_t k0 = m->indptr[i], n = m->indptr[i + 1] - k0;
    if (n == 0) return;
    float *dO = scratch, *s = dO + HD, *al = s + n * H; /* dO (H*D), scores and weights (deg x H) */
    load_dO(c, b, i, dO);
    for (int64_t t = 0; t < n; t++) {
        int64_t j = m->src[k0 + t];
        const char *row = (const char *)(c->v + j * HD);
        for (int64_t o = 0; o < HD * (int64_t)sizeof(float); o += 64) __builtin_prefetch(row + o);
        if (c->er) __builtin_prefetch(c->er + j * H);
        if (c->k) __builtin_prefetch(c->k + j * HD);
    }
    pair_t p;
    p.i = i;
    p.e = NULL;
    for (int64_t t = 0; t < n; t++) {
        p.j = m->src[k0 + t];
        pair_scores(c, &p, s + t * H, NULL);
    }
    const float *mx = c->mx + i * H, *den = c->den + i * H, *cs = b->cs + i * H;
    /* the same weights as pair_alpha, with the exponentials in one vector call */
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t t = 0; t < n; t++)
            for (int64_t h = 0; h < H; h++) al[t * H + h] = s[t * H + h] - mx[h];
        ag_i_exp_block(al, n * H);
        for (int64_t t = 0; t < n; t++)
            for (int64_t h = 0; h < H; h++) al[t * H + h] = den[h] > 0.0f ? al[t * H + h] / den[h] : 0.0f;
    } else {
        for (int64_t t = 0; t < n; t++)
            for (int64_t h = 0; h < H; h++) {
                float x = s[t * H + h];
                al[t * H + h] = den[h] > 0.0f ? (x > 0.0f ? x : 0.0f) / den[h] : 0.0f;
            }
    }
    float *dqi = b->dq ? b->dq + i * HD : NULL, *deli = b->del ? b->del + i * H : NULL;
    for (int64_t t = 0; t < n; t++) {
        int64_t k = k0 + t, j = m->src[k];
        const float *vj = c->v + j * HD;
        p.j = j;
        p.drop = (uint64_t)k;
        for (int64_t h = 0; h < H; h++) {
            const float *gh = dO + h * D, *vh = vj + h * D;
            float dot = 0.0f;
            for (int64_t d = 0; d < D; d++) dot += gh[d] * vh[d];
            float f = drop_factor(c, &p, h), a = al[t * H + h], dalpha = f * dot, ds;
            if (c->norm == AG_NORM_SOFTMAX)
                ds = a * (dalpha - cs[h]);
            else
                ds = (s[t * H + h] > 0.0f && den[h] > 0.0f) ? (dalpha - cs[h]) / den[h] : 0.0f;
            b->wv_e[k * H + h] = a * f;
            if (c->score == AG_SCORE_DOT) {
                const float *kh = c->k + j * HD + h * D;
                float g = ds * c->scale;
                for (int64_t d = 0; d < D; d++) dqi[h * D + d] += g * kh[d];
                b->ds_e[k * H + h] = ds;
            } else {
                float pre = c->el[i * H + h] + c->er[j * H + h];
                float g = ds * lrelu_d(pre, c->slope);
                deli[h] += g;
                b->ds_e[k * H + h] = g;
            }
        }
    }
}
