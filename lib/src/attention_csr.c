/*
 * attention_csr.c: the backward pass of neighbour and k-hop attention without edge features, DOT
 * and GAT scores, with the heads in vector lanes (internal).
 *
 * Two gathers from CSR, no scatter: the destination pass runs over i's entries (dq_i, or del_i for
 * GAT), the source pass over j's transposed entries (dv_j, and dk_j or der_j). The source pass
 * recomputes each entry's weight and dL/ds from the destination's softmax statistics instead of
 * reading values kept per entry: M x H arrays read in transposed (random) order cost more memory
 * traffic than the few per-node rows the recomputation reads.
 *
 * The per-node tensors the passes gather (v, dO, and q, k for DOT) are first copied head-interleaved,
 * (N x D x H): element (i, h, d) at i*HD + d*H + h. A pair's work is then a loop over d of H-lane
 * vector operations, and every per-head sum still runs over d = 0..D-1 and over the entries in CSR
 * order: per element the same operations as the scalar kernels of attention_kernels.c (the same
 * bits), and the same for any number of threads.
 */
/* No floating-point traps are ever enabled: let GCC vectorise the selects and the exponential's
 * clamp in every function of this file, including the always-inlined ones (a per-function
 * optimize attribute does not reach code inlined into the function). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#include <math.h>
#include <omp.h>
#include <string.h>
#include "attention_internal.h"
#include "internal.h"

/* Heads handled in lanes (on-stack vectors of HMAX floats); more heads take the generic kernels. */
#define HMAX 64
/* Entries ahead whose node rows are requested: the rows are random accesses into N-row tensors,
 * DRAM latency on large graphs. */
#define PF_AHEAD 8

typedef struct csr_t {
    const ag_attn_ctx_t *c;
    const ag_attn_bwd_t *b;
    const float *vT, *dOT, *qT, *kT; /* (N x D x H) head-interleaved v, dO, q, k (q, k: DOT) */
    const float *nst;                /* (N x 4H) per destination: maximum, denominator, cs, el (GAT) */
    const int32_t *t_dst;            /* (M) destination of each transposed entry */
} csr_t;

int ag_i_attn_csr_fast(const ag_attn_ctx_t *c) {
    return c->mask->kind != AG_MASK_FULL && c->emode == AG_EDGE_NONE &&
           (c->score == AG_SCORE_DOT || c->score == AG_SCORE_GAT) && c->H <= HMAX;
}

static inline void prefetch_row(const float *p, int64_t n) {
    for (int64_t o = 0; o < n * (int64_t)sizeof(float); o += 64) __builtin_prefetch((const char *)p + o);
}

/* Entry k = (destination i, source j): pre (GAT: el_i + er_j), the weights a, dL/ds and the
 * weights the values were summed with (a times the dropout factor), per head. The operations of
 * ag_i_attn_csr_backward_dst / pair_dscore, per element in the same order. */
static inline __attribute__((always_inline)) void pair_grad(const csr_t *x, int64_t i, int64_t j, int64_t k,
                                                            int64_t H, int64_t D, float *pre, float *a, float *ds,
                                                            float *wv) {
    const ag_attn_ctx_t *c = x->c;
    int64_t HD = H * D;
    const float *st = x->nst + i * 4 * H, *mx = st, *den = st + H, *cs = st + 2 * H, *el = st + 3 * H;
    float s[HMAX], dot[HMAX], f[HMAX];
    if (c->score == AG_SCORE_DOT) {
        const float *qi = x->qT + i * HD, *kj = x->kT + j * HD;
        for (int64_t h = 0; h < H; h++) s[h] = 0.0f;
        for (int64_t d = 0; d < D; d++)
            for (int64_t h = 0; h < H; h++) s[h] += qi[d * H + h] * kj[d * H + h];
        for (int64_t h = 0; h < H; h++) {
            s[h] = s[h] * c->scale;
            pre[h] = 0.0f; /* GAT only */
        }
    } else {
        const float *er = c->er + j * H;
        float slope = c->slope;
        for (int64_t h = 0; h < H; h++) {
            pre[h] = el[h] + er[h];
            s[h] = pre[h] > 0.0f ? pre[h] : slope * pre[h];
        }
    }
    const float *g = x->dOT + i * HD, *v = x->vT + j * HD;
    for (int64_t h = 0; h < H; h++) dot[h] = 0.0f;
    for (int64_t d = 0; d < D; d++)
        for (int64_t h = 0; h < H; h++) dot[h] += g[d * H + h] * v[d * H + h];
    if (c->dropout)
        for (int64_t h = 0; h < H; h++)
            f[h] = ag_i_rng_uniform_at(c->drop_base, (uint64_t)k * (uint64_t)H + (uint64_t)h) < c->p ? 0.0f : c->keep;
    else
        for (int64_t h = 0; h < H; h++) f[h] = 1.0f;
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t h = 0; h < H; h++) {
            float e = ag_i_exp1(s[h] - mx[h]);
            a[h] = den[h] > 0.0f ? e / den[h] : 0.0f;
            ds[h] = a[h] * (f[h] * dot[h] - cs[h]);
            wv[h] = a[h] * f[h];
        }
    } else {
        for (int64_t h = 0; h < H; h++) {
            float r = s[h] > 0.0f ? s[h] : 0.0f, dn = den[h] > 0.0f ? den[h] : 1.0f;
            a[h] = den[h] > 0.0f ? r / dn : 0.0f;
            ds[h] = (s[h] > 0.0f && den[h] > 0.0f) ? (f[h] * dot[h] - cs[h]) / dn : 0.0f;
            wv[h] = a[h] * f[h];
        }
    }
}

/* Destination i: dq_i (DOT) or del_i (GAT), gathering over its entries. */
static inline __attribute__((always_inline)) void dst_node(const csr_t *x, int64_t i, int64_t H, int64_t D,
                                                           int64_t kend, float *acc) {
    const ag_attn_ctx_t *c = x->c;
    const ag_attn_bwd_t *b = x->b;
    const ag_mask_t *m = c->mask;
    int64_t HD = H * D, k0 = m->indptr[i], k1 = m->indptr[i + 1];
    if (k0 == k1) return;
    int dot = c->score == AG_SCORE_DOT;
    float pre[HMAX], a[HMAX], ds[HMAX], wv[HMAX], del[HMAX];
    for (int64_t h = 0; h < H; h++) del[h] = 0.0f;
    if (dot)
        for (int64_t t = 0; t < HD; t++) acc[t] = 0.0f;
    for (int64_t k = k0; k < k1; k++) {
        if (k + PF_AHEAD < kend) {
            int64_t jn = m->src[k + PF_AHEAD];
            prefetch_row(x->vT + jn * HD, HD);
            prefetch_row(dot ? x->kT + jn * HD : c->er + jn * H, dot ? HD : H);
        }
        int64_t j = m->src[k];
        pair_grad(x, i, j, k, H, D, pre, a, ds, wv);
        if (dot) {
            const float *kj = x->kT + j * HD;
            float gs[HMAX];
            for (int64_t h = 0; h < H; h++) gs[h] = ds[h] * c->scale;
            for (int64_t d = 0; d < D; d++)
                for (int64_t h = 0; h < H; h++) acc[d * H + h] += gs[h] * kj[d * H + h];
        } else {
            for (int64_t h = 0; h < H; h++) del[h] += ds[h] * (pre[h] > 0.0f ? 1.0f : c->slope);
        }
    }
    /* dq and del start at 0: adding the whole sum once gives the bits of adding term by term */
    if (dot) {
        float *dq = b->dq + i * HD;
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++) dq[h * D + d] += acc[d * H + h];
    } else {
        for (int64_t h = 0; h < H; h++) b->del[i * H + h] += del[h];
    }
}

/* Source j: dv_j, and dk_j (DOT) or der_j (GAT), gathering over its transposed entries. */
static inline __attribute__((always_inline)) void src_node(const csr_t *x, int64_t j, int64_t H, int64_t D,
                                                           int64_t tend, float *accv, float *acck) {
    const ag_attn_ctx_t *c = x->c;
    const ag_attn_bwd_t *b = x->b;
    const ag_mask_t *m = c->mask;
    int64_t HD = H * D, t0 = m->t_indptr[j], t1 = m->t_indptr[j + 1];
    if (t0 == t1) return;
    int dot = c->score == AG_SCORE_DOT;
    float pre[HMAX], a[HMAX], ds[HMAX], wv[HMAX], der[HMAX];
    for (int64_t h = 0; h < H; h++) der[h] = 0.0f;
    for (int64_t t = 0; t < HD; t++) accv[t] = acck[t] = 0.0f;
    for (int64_t t = t0; t < t1; t++) {
        if (t + PF_AHEAD < tend) {
            int64_t in = x->t_dst[t + PF_AHEAD];
            prefetch_row(x->dOT + in * HD, HD);
            prefetch_row(x->nst + in * 4 * H, 4 * H);
            if (dot) prefetch_row(x->qT + in * HD, HD);
        }
        int64_t i = x->t_dst[t], k = m->t_entry[t];
        pair_grad(x, i, j, k, H, D, pre, a, ds, wv);
        const float *g = x->dOT + i * HD;
        for (int64_t d = 0; d < D; d++)
            for (int64_t h = 0; h < H; h++) accv[d * H + h] += wv[h] * g[d * H + h];
        if (dot) {
            const float *qi = x->qT + i * HD;
            float gs[HMAX];
            for (int64_t h = 0; h < H; h++) gs[h] = ds[h] * c->scale;
            for (int64_t d = 0; d < D; d++)
                for (int64_t h = 0; h < H; h++) acck[d * H + h] += gs[h] * qi[d * H + h];
        } else {
            for (int64_t h = 0; h < H; h++) der[h] += ds[h] * (pre[h] > 0.0f ? 1.0f : c->slope);
        }
    }
    float *dv = b->dv + j * HD;
    for (int64_t h = 0; h < H; h++)
        for (int64_t d = 0; d < D; d++) dv[h * D + d] += accv[d * H + h];
    if (dot) {
        float *dk = b->dk + j * HD;
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++) dk[h * D + d] += acck[d * H + h];
    } else {
        for (int64_t h = 0; h < H; h++) b->der[j * H + h] += der[h];
    }
}

/* Nodes [n0, n1) of one pass; eight heads of eight (the common shape) with constant loop bounds.
 * The rows of the first PF_AHEAD entries are requested here, each later one PF_AHEAD entries
 * ahead across node boundaries (a node has about as many entries as the distance). */
AG_CLONES AG_NO_TRAPPING_MATH static void dst_nodes(const csr_t *x, int64_t n0, int64_t n1, float *acc) {
    const ag_attn_ctx_t *c = x->c;
    const ag_mask_t *m = c->mask;
    int64_t H = c->H, D = c->D, HD = c->HD, kend = m->indptr[n1];
    int dot = c->score == AG_SCORE_DOT;
    for (int64_t k = m->indptr[n0]; k < kend && k < m->indptr[n0] + PF_AHEAD; k++) {
        prefetch_row(x->vT + (int64_t)m->src[k] * HD, HD);
        prefetch_row(dot ? x->kT + (int64_t)m->src[k] * HD : c->er + (int64_t)m->src[k] * H, dot ? HD : H);
    }
    if (H == 8 && D == 8)
        for (int64_t i = n0; i < n1; i++) dst_node(x, i, 8, 8, kend, acc);
    else
        for (int64_t i = n0; i < n1; i++) dst_node(x, i, H, D, kend, acc);
}

AG_CLONES AG_NO_TRAPPING_MATH static void src_nodes(const csr_t *x, int64_t n0, int64_t n1, float *accv,
                                                    float *acck) {
    const ag_attn_ctx_t *c = x->c;
    const ag_mask_t *m = c->mask;
    int64_t H = c->H, D = c->D, HD = c->HD, tend = m->t_indptr[n1];
    for (int64_t t = m->t_indptr[n0]; t < tend && t < m->t_indptr[n0] + PF_AHEAD; t++) {
        int64_t in = x->t_dst[t];
        prefetch_row(x->dOT + in * HD, HD);
        prefetch_row(x->nst + in * 4 * H, 4 * H);
        if (x->qT) prefetch_row(x->qT + in * HD, HD);
    }
    if (H == 8 && D == 8)
        for (int64_t j = n0; j < n1; j++) src_node(x, j, 8, 8, tend, accv, acck);
    else
        for (int64_t j = n0; j < n1; j++) src_node(x, j, H, D, tend, accv, acck);
}

/* dst (N x D x H) = src (N x H*D) head-interleaved, times scale (1 leaves every bit). */
static void interleave(const float *src, int64_t lds, float *dst, int64_t N, int64_t H, int64_t D, int concat,
                       float scale) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++)
                dst[i * H * D + d * H + h] = src[i * lds + (concat ? h * D : 0) + d] * scale;
}

#define NODES_PER_TASK 64

ag_error_t ag_i_attn_csr_backward(const ag_attn_ctx_t *c, const ag_attn_bwd_t *b, int nt) {
    const ag_mask_t *m = c->mask;
    int64_t N = c->N, H = c->H, D = c->D, HD = c->HD, M = m->n_entries;
    int dot = c->score == AG_SCORE_DOT;
    float *vT = NULL, *dOT = NULL, *qT = NULL, *kT = NULL, *nst = NULL;
    float *scr = NULL; /* (nt x 2 HD) per-thread accumulators */
    int32_t *t_dst = NULL;
    int64_t sstride = (2 * HD + 15) / 16 * 16;
    ag_error_t rc = ag_i_alloc_array((void **)&vT, N * HD, sizeof(float), "attention interleaved values");
    if (!rc) rc = ag_i_alloc_array((void **)&dOT, N * HD, sizeof(float), "attention interleaved dO");
    if (!rc && dot) rc = ag_i_alloc_array((void **)&qT, N * HD, sizeof(float), "attention interleaved queries");
    if (!rc && dot) rc = ag_i_alloc_array((void **)&kT, N * HD, sizeof(float), "attention interleaved keys");
    if (!rc) rc = ag_i_alloc_array((void **)&nst, N * 4 * H, sizeof(float), "attention statistics");
    if (!rc) rc = ag_i_alloc_array((void **)&t_dst, M > 0 ? M : 1, sizeof(int32_t), "attention entry destinations");
    if (!rc) rc = ag_i_alloc_array((void **)&scr, sstride * nt, sizeof(float), "attention scratch");
    if (rc) goto done;
    interleave(c->v, HD, vT, N, H, D, 1, 1.0f);
    interleave(b->dcomb, b->C, dOT, N, H, D, b->concat, b->dscale); /* dO, as load_dO */
    if (dot) {
        interleave(c->q, HD, qT, N, H, D, 1, 1.0f);
        interleave(c->k, HD, kT, N, H, D, 1, 1.0f);
    }
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < N; i++)
        for (int64_t h = 0; h < H; h++) {
            float *st = nst + i * 4 * H;
            st[h] = c->mx[i * H + h];
            st[H + h] = c->den[i * H + h];
            st[2 * H + h] = b->cs[i * H + h];
            st[3 * H + h] = c->el ? c->el[i * H + h] : 0.0f;
        }
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t t = 0; t < M; t++) t_dst[t] = b->dst[m->t_entry[t]];
    csr_t x = {c, b, vT, dOT, qT, kT, nst, t_dst};
    int64_t tasks = (N + NODES_PER_TASK - 1) / NODES_PER_TASK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t t = 0; t < tasks; t++) {
        int64_t n1 = (t + 1) * NODES_PER_TASK < N ? (t + 1) * NODES_PER_TASK : N;
        dst_nodes(&x, t * NODES_PER_TASK, n1, scr + sstride * omp_get_thread_num());
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t t = 0; t < tasks; t++) {
        int64_t n1 = (t + 1) * NODES_PER_TASK < N ? (t + 1) * NODES_PER_TASK : N;
        float *acc = scr + sstride * omp_get_thread_num();
        src_nodes(&x, t * NODES_PER_TASK, n1, acc, acc + HD);
    }
done:
    ag_i_free(vT);
    ag_i_free(dOT);
    ag_i_free(qT);
    ag_i_free(kT);
    ag_i_free(nst);
    ag_i_free(t_dst);
    ag_i_free(scr);
    return rc;
}

/* o_i += the layer's bias, when the kernel writes Y (inference, see ag_attn_ctx_t.bias_o): the
 * operation of the layer's own bias pass, element by element. */
static inline __attribute__((always_inline)) void gat_add_bias(const ag_attn_ctx_t *c, int64_t i, int64_t HD) {
    if (!c->bias_o) return;
    float *o = c->o + i * HD;
    for (int64_t t = 0; t < HD; t++) o[t] += c->bias_o[t];
}

/* The weights of destination i's entries for GAT scores (neighbour and k-hop masks, no edge
 * features), heads in lanes: w (n x H) the unnormalised weights, dn the denominators, and mx, den
 * stored for the backward. The operations of ag_i_attn_csr_forward_dst per element in the same
 * order. Returns n, i's entry count; with none, o, mx and den are zeroed here. */
static inline __attribute__((always_inline)) int64_t gat_weights(const ag_attn_ctx_t *c, int64_t i, int64_t H,
                                                                 int64_t D, float *w, float *dn) {
    const ag_mask_t *m = c->mask;
    int64_t HD = H * D, k0 = m->indptr[i], n = m->indptr[i + 1] - k0;
    float *mx = c->mx + i * H, *den = c->den + i * H;
    if (n == 0) {
        float *o = c->o + i * HD;
        for (int64_t t = 0; t < HD; t++) o[t] = 0.0f;
        for (int64_t h = 0; h < H; h++) mx[h] = den[h] = 0.0f;
        gat_add_bias(c, i, HD);
        return 0;
    }
    /* the sources' rows are random accesses: request this node's (usually requested already)
     * and the next node's, which the same thread most likely takes next */
    int64_t kn = m->indptr[i + 2 <= c->N ? i + 2 : c->N];
    for (int64_t k = k0; k < kn; k++) {
        prefetch_row(c->v + (int64_t)m->src[k] * HD, HD);
        __builtin_prefetch(c->er + (int64_t)m->src[k] * H);
    }
    const float *el = c->el + i * H;
    float slope = c->slope;
    for (int64_t t = 0; t < n; t++) {
        const float *er = c->er + (int64_t)m->src[k0 + t] * H;
        for (int64_t h = 0; h < H; h++) {
            float pre = el[h] + er[h];
            w[t * H + h] = pre > 0.0f ? pre : slope * pre;
        }
    }
    float mh[HMAX];
    if (c->norm == AG_NORM_SOFTMAX) {
        for (int64_t h = 0; h < H; h++) mh[h] = w[h];
        for (int64_t t = 1; t < n; t++)
            for (int64_t h = 0; h < H; h++) mh[h] = w[t * H + h] > mh[h] ? w[t * H + h] : mh[h];
        for (int64_t t = 0; t < n; t++)
            for (int64_t h = 0; h < H; h++) w[t * H + h] = ag_i_exp1(w[t * H + h] - mh[h]);
    } else {
        for (int64_t h = 0; h < H; h++) mh[h] = 0.0f;
        for (int64_t t = 0; t < n * H; t++) w[t] = w[t] > 0.0f ? w[t] : 0.0f;
    }
    for (int64_t h = 0; h < H; h++) dn[h] = 0.0f;
    for (int64_t t = 0; t < n; t++)
        for (int64_t h = 0; h < H; h++) dn[h] += w[t * H + h];
    if (c->norm == AG_NORM_RELU)
        for (int64_t h = 0; h < H; h++) dn[h] += AG_ATTN_RELU_EPS;
    for (int64_t h = 0; h < H; h++) {
        mx[h] = mh[h];
        den[h] = dn[h];
    }
    return n;
}

/* Entry t's normalised weights wt, times the dropout factors. */
static inline __attribute__((always_inline)) void gat_entry_weights(const ag_attn_ctx_t *c, int64_t k, int64_t H,
                                                                    const float *w, const float *dn, float *wt) {
    for (int64_t h = 0; h < H; h++) wt[h] = w[h] / dn[h];
    if (c->dropout)
        for (int64_t h = 0; h < H; h++)
            wt[h] *= ag_i_rng_uniform_at(c->drop_base, (uint64_t)k * (uint64_t)H + (uint64_t)h) < c->p ? 0.0f : c->keep;
}

/* Forward of destination i for GAT scores: the weights, then their sum of the sources' value rows
 * into o_i, with the head size in lanes. */
static inline __attribute__((always_inline)) void gat_fwd_node(const ag_attn_ctx_t *c, int64_t i, int64_t H,
                                                               int64_t D, float *w) {
    float dn[HMAX], wt[HMAX];
    int64_t n = gat_weights(c, i, H, D, w, dn), HD = H * D, k0 = c->mask->indptr[i];
    if (n == 0) return;
    float *acc = c->o + i * HD;
    for (int64_t t = 0; t < HD; t++) acc[t] = 0.0f;
    for (int64_t t = 0; t < n; t++) {
        const float *vj = c->v + (int64_t)c->mask->src[k0 + t] * HD;
        gat_entry_weights(c, k0 + t, H, w + t * H, dn, wt);
        for (int64_t h = 0; h < H; h++)
            for (int64_t d = 0; d < D; d++) acc[h * D + d] += wt[h] * vj[h * D + d];
    }
    gat_add_bias(c, i, HD);
}

/* gat_fwd_node for heads whose size is one vector (4 heads of 16: the molecule models' 64-wide
 * blocks; 8 heads of 8: Cora's first layer), per element the same operations in the same order.
 * In the generic form, with a run-time entry count near 3 for molecules, GCC vectorised the
 * weighted sum across entries into strided shuffles (MUTAG profile: 150 ns per node); here the
 * entries stay a scalar loop and each head's row is one vector operation (GCC and clang vector
 * extensions). */
#define GAT_FWD_ROWS(NAME, VT, NH, ND)                                                                      \
    typedef float VT __attribute__((vector_size(ND * 4), aligned(4)));                                    \
    static inline __attribute__((always_inline)) void NAME(const ag_attn_ctx_t *c, int64_t i, float *w) { \
        float dn[NH], wt[NH];                                                                              \
        int64_t n = gat_weights(c, i, NH, ND, w, dn), k0 = c->mask->indptr[i];                             \
        if (n == 0) return;                                                                                \
        VT acc[NH], v;                                                                                     \
        for (int h = 0; h < NH; h++)                                                                       \
            for (int d = 0; d < ND; d++) acc[h][d] = 0.0f;                                                 \
        for (int64_t t = 0; t < n; t++) {                                                                  \
            const float *vj = c->v + (int64_t)c->mask->src[k0 + t] * (NH * ND);                            \
            gat_entry_weights(c, k0 + t, NH, w + t * NH, dn, wt);                                          \
            for (int h = 0; h < NH; h++) {                                                                 \
                memcpy(&v, vj + h * ND, sizeof v);                                                         \
                acc[h] += wt[h] * v;                                                                       \
            }                                                                                              \
        }                                                                                                  \
        memcpy(c->o + i * (NH * ND), acc, sizeof acc);                                                     \
        gat_add_bias(c, i, NH * ND);                                                                       \
    }
GAT_FWD_ROWS(gat_fwd_node_h4d16, v16f_t, 4, 16)
GAT_FWD_ROWS(gat_fwd_node_h8d8, v8f_t, 8, 8)

int ag_i_attn_csr_gat_forward_fast(const ag_attn_ctx_t *c) {
    return c->mask->kind != AG_MASK_FULL && c->emode == AG_EDGE_NONE && c->score == AG_SCORE_GAT && c->H <= HMAX;
}

AG_CLONES void ag_i_attn_csr_gat_forward_dst(const ag_attn_ctx_t *c, int64_t i, float *scratch) {
    if (c->H == 8 && c->D == 8) {
        gat_fwd_node_h8d8(c, i, scratch);
    } else if (c->H == 4 && c->D == 16) {
        gat_fwd_node_h4d16(c, i, scratch);
    } else {
        gat_fwd_node(c, i, c->H, c->D, scratch);
    }
}
