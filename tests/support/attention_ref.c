/*
 * attention_ref.c: the naive double-precision reference of the attention layer (see
 * attention_ref.h). Obviously correct before fast: dense matrices and plain loops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <attngraph/rng.h>
#include "attention_ref.h"

void ag_ref_mask_free(ag_ref_mask_t *m) {
    free(m->indptr);
    free(m->src);
    free(m->edge);
    free(m->c_indptr);
    free(m->c_src);
    free(m->c_e0);
    free(m->c_e1);
    free(m->c_draw);
    free(m->graph_ptr);
    free(m->node_graph);
    memset(m, 0, sizeof *m);
}

/* One candidate while building: (destination, source, edge). */
typedef struct ref_pair_t {
    int64_t dst, src, edge;
} ref_pair_t;

static int cmp_pair(const void *a, const void *b) {
    const ref_pair_t *x = a, *y = b;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->edge != y->edge) {
        /* -1 (no edge) cannot meet a real edge of the same pair here */
        return x->edge < y->edge ? -1 : 1;
    }
    return 0;
}

/* Sorted pairs into a CSR (indptr N+1, src, edge). */
static int pairs_to_csr(ref_pair_t *pairs, int64_t n, int64_t N, int64_t **indptr, int32_t **src,
                        int64_t **edge) {
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_pair);
    *indptr = calloc((size_t)N + 1, sizeof **indptr);
    *src = calloc((size_t)n + 1, sizeof **src);
    *edge = calloc((size_t)n + 1, sizeof **edge);
    if (!*indptr || !*src || !*edge) return -1;
    for (int64_t k = 0; k < n; k++) {
        (*src)[k] = (int32_t)pairs[k].src;
        (*edge)[k] = pairs[k].edge;
        (*indptr)[pairs[k].dst + 1]++;
    }
    for (int64_t i = 0; i < N; i++) (*indptr)[i + 1] += (*indptr)[i];
    return 0;
}

int ag_ref_mask_build(ag_ref_mask_t *m, const ag_graph_t *g, ag_mask_kind_t kind, int hops,
                      int self_loops) {
    memset(m, 0, sizeof *m);
    if (kind == AG_MASK_KHOP && hops < 1) return -1;
    const int64_t N = g->n_nodes;
    m->kind = kind;
    m->hops = hops;
    m->self_loops = self_loops;
    m->n_nodes = N;
    m->n_graphs = g->n_graphs;
    m->graph_ptr = calloc((size_t)g->n_graphs + 1, sizeof *m->graph_ptr);
    m->node_graph = calloc((size_t)N + 1, sizeof *m->node_graph);
    /* direct[i*N + j]: smallest edge id j -> i, or -1; reach[i*N + j]: j reaches i in <= t steps */
    int64_t *direct = malloc(sizeof *direct * (size_t)(N * N + 1));
    unsigned char *reach = calloc((size_t)(N * N + 1), 1);
    ref_pair_t *pairs = NULL, *cand = NULL;
    int rc = -1;
    if (!m->graph_ptr || !m->node_graph || !direct || !reach) goto done;
    memcpy(m->graph_ptr, g->graph_ptr, sizeof *m->graph_ptr * (size_t)(g->n_graphs + 1));
    memcpy(m->node_graph, g->node_graph, sizeof *m->node_graph * (size_t)N);
    for (int64_t x = 0; x < N * N; x++) direct[x] = -1;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++) {
            int64_t j = g->src[k], *d = &direct[i * N + j];
            if (*d < 0 || g->edge[k] < *d) *d = g->edge[k];
        }

    /* The neighbour CSR: every input entry, plus an added self entry. */
    int64_t n_pairs = 0, cap = g->n_entries + N + 1;
    pairs = malloc(sizeof *pairs * (size_t)cap);
    if (!pairs) goto done;
    for (int64_t i = 0; i < N; i++) {
        for (int64_t k = g->indptr[i]; k < g->indptr[i + 1]; k++)
            pairs[n_pairs++] = (ref_pair_t){i, g->src[k], g->edge[k]};
        if (self_loops && direct[i * N + i] < 0) pairs[n_pairs++] = (ref_pair_t){i, i, -1};
    }

    if (kind == AG_MASK_KHOP) {
        /* reach[i*N + j]: j is at shortest in-path distance 1..hops from i, by a breadth-first
         * walk backwards along in-edges (dist 0 is i itself, never re-reached) */
        int64_t *dist = malloc(sizeof *dist * (size_t)(N + 1)), *queue = malloc(sizeof *queue * (size_t)(N + 1));
        if (!dist || !queue) {
            free(dist);
            free(queue);
            goto done;
        }
        for (int64_t i = 0; i < N; i++) {
            for (int64_t x = 0; x < N; x++) dist[x] = -1;
            int64_t head = 0, tail = 0;
            dist[i] = 0;
            queue[tail++] = i;
            while (head < tail) {
                int64_t l = queue[head++];
                if (dist[l] == hops) continue;
                for (int64_t k = g->indptr[l]; k < g->indptr[l + 1]; k++)
                    if (dist[g->src[k]] < 0) {
                        dist[g->src[k]] = dist[l] + 1;
                        reach[i * N + g->src[k]] = 1;
                        queue[tail++] = g->src[k];
                    }
            }
        }
        free(dist);
        free(queue);
        n_pairs = 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < N; j++) {
                int in = (j == i) ? (self_loops || direct[i * N + i] >= 0) : reach[i * N + j];
                if (in) {
                    if (n_pairs == cap) {
                        cap *= 2;
                        ref_pair_t *bigger = realloc(pairs, sizeof *pairs * (size_t)cap);
                        if (!bigger) goto done;
                        pairs = bigger;
                    }
                    pairs[n_pairs++] = (ref_pair_t){i, j, direct[i * N + j]};
                }
            }
    }
    m->n_entries = n_pairs;
    if (pairs_to_csr(pairs, n_pairs, N, &m->indptr, &m->src, &m->edge)) goto done;

    if (kind != AG_MASK_FULL) {
        m->n_cand = m->n_entries;
        m->c_indptr = calloc((size_t)N + 1, sizeof *m->c_indptr);
        m->c_src = calloc((size_t)m->n_cand + 1, sizeof *m->c_src);
        m->c_e0 = calloc((size_t)m->n_cand + 1, sizeof *m->c_e0);
        m->c_e1 = calloc((size_t)m->n_cand + 1, sizeof *m->c_e1);
        m->c_draw = calloc((size_t)m->n_cand + 1, sizeof *m->c_draw);
        if (!m->c_indptr || !m->c_src || !m->c_e0 || !m->c_e1 || !m->c_draw) goto done;
        memcpy(m->c_indptr, m->indptr, sizeof *m->indptr * (size_t)(N + 1));
        memcpy(m->c_src, m->src, sizeof *m->src * (size_t)m->n_cand);
        for (int64_t k = 0; k < m->n_cand; k++) {
            m->c_e0[k] = k;
            m->c_e1[k] = k + 1;
            m->c_draw[k] = k;
        }
    } else {
        int64_t n = 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = 0; j < N; j++) n += g->node_graph[i] == g->node_graph[j];
        m->n_cand = n;
        m->c_indptr = calloc((size_t)N + 1, sizeof *m->c_indptr);
        m->c_src = calloc((size_t)n + 1, sizeof *m->c_src);
        m->c_e0 = calloc((size_t)n + 1, sizeof *m->c_e0);
        m->c_e1 = calloc((size_t)n + 1, sizeof *m->c_e1);
        m->c_draw = calloc((size_t)n + 1, sizeof *m->c_draw);
        if (!m->c_indptr || !m->c_src || !m->c_e0 || !m->c_e1 || !m->c_draw) goto done;
        n = 0;
        for (int64_t i = 0; i < N; i++) {
            for (int64_t j = 0; j < N; j++) {
                if (g->node_graph[i] != g->node_graph[j]) continue;
                m->c_src[n] = (int32_t)j;
                /* the entries of i with source j (a multi-edge pair has several) */
                int64_t k = m->indptr[i];
                while (k < m->indptr[i + 1] && m->src[k] < j) k++;
                m->c_e0[n] = k;
                while (k < m->indptr[i + 1] && m->src[k] == j) k++;
                m->c_e1[n] = k;
                m->c_draw[n] = i * N + j;
                n++;
            }
            m->c_indptr[i + 1] = n;
        }
    }
    (void)cand;
    rc = 0;
done:
    free(direct);
    free(reach);
    free(pairs);
    if (rc) ag_ref_mask_free(m);
    return rc;
}

int64_t ag_ref_out_dim(const ag_attention_config_t *cfg) {
    if (cfg->out_proj) return cfg->out_dim;
    return cfg->combine == AG_HEADS_CONCAT ? cfg->heads * cfg->head_dim : cfg->head_dim;
}

const char *ag_ref_tensor_name(int which) {
    static const char *names[AG_REF_N_TENSORS] = {"Wq", "Wk", "Wv", "a_src", "a_dst", "a", "We", "Wo", "bo"};
    return (which >= 0 && which < AG_REF_N_TENSORS) ? names[which] : "?";
}

void ag_ref_tensor_shape(const ag_attention_config_t *cfg, int which, int64_t *rows, int64_t *cols) {
    const int64_t F = cfg->in_dim, HD = cfg->heads * cfg->head_dim;
    const int64_t C = cfg->combine == AG_HEADS_CONCAT ? HD : cfg->head_dim;
    *rows = *cols = 0;
    switch (which) {
    case 0: if (cfg->score != AG_SCORE_GAT) { *rows = F; *cols = HD; } break;
    case 1: if (cfg->score == AG_SCORE_DOT) { *rows = F; *cols = HD; } break;
    case 2: *rows = F; *cols = HD; break;
    case 3: case 4: if (cfg->score == AG_SCORE_GAT) { *rows = HD; *cols = 1; } break;
    case 5: if (cfg->score == AG_SCORE_GATV2) { *rows = HD; *cols = 1; } break;
    case 6:
        if (cfg->edge_mode == AG_EDGE_KEY) { *rows = cfg->edge_dim; *cols = HD; }
        else if (cfg->edge_mode == AG_EDGE_BIAS) { *rows = cfg->edge_dim; *cols = cfg->heads; }
        break;
    case 7: if (cfg->out_proj) { *rows = C; *cols = cfg->out_dim; } break;
    case 8: if (cfg->bias) { *rows = cfg->out_proj ? cfg->out_dim : C; *cols = 1; } break;
    default: break;
    }
}

double *ag_ref_params_tensor(ag_ref_params_t *p, int which) {
    double *t[AG_REF_N_TENSORS] = {p->Wq, p->Wk, p->Wv, p->a_src, p->a_dst, p->a, p->We, p->Wo, p->bo};
    return (which >= 0 && which < AG_REF_N_TENSORS) ? t[which] : NULL;
}

float *ag_ref_layer_tensor(ag_attention_t *l, int which, int grad) {
    float *v[AG_REF_N_TENSORS] = {l->Wq, l->Wk, l->Wv, l->a_src, l->a_dst, l->a, l->We, l->Wo, l->bo};
    float *d[AG_REF_N_TENSORS] = {l->dWq, l->dWk, l->dWv, l->da_src, l->da_dst, l->da, l->dWe, l->dWo, l->dbo};
    if (which < 0 || which >= AG_REF_N_TENSORS) return NULL;
    return grad ? d[which] : v[which];
}

int ag_ref_params_alloc(ag_ref_params_t *p, const ag_attention_config_t *cfg) {
    memset(p, 0, sizeof *p);
    int64_t total = 0, r, c;
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        ag_ref_tensor_shape(cfg, w, &r, &c);
        total += r * c;
    }
    p->storage = calloc((size_t)total + 1, sizeof *p->storage);
    if (!p->storage) return -1;
    p->size = total;
    double **slots[AG_REF_N_TENSORS] = {&p->Wq, &p->Wk, &p->Wv, &p->a_src, &p->a_dst, &p->a, &p->We, &p->Wo, &p->bo};
    int64_t off = 0;
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        ag_ref_tensor_shape(cfg, w, &r, &c);
        *slots[w] = (r * c > 0) ? p->storage + off : NULL;
        off += r * c;
    }
    return 0;
}

void ag_ref_params_free(ag_ref_params_t *p) {
    free(p->storage);
    memset(p, 0, sizeof *p);
}

void ag_ref_params_from_layer(ag_ref_params_t *p, ag_attention_t *layer) {
    int64_t r, c;
    for (int w = 0; w < AG_REF_N_TENSORS; w++) {
        ag_ref_tensor_shape(&layer->cfg, w, &r, &c);
        double *dst = ag_ref_params_tensor(p, w);
        const float *src = ag_ref_layer_tensor(layer, w, 0);
        if (dst && src)
            for (int64_t x = 0; x < r * c; x++) dst[x] = src[x];
    }
}

void ag_ref_params_random(ag_ref_params_t *p, double scale, uint64_t seed) {
    for (int64_t x = 0; x < p->size; x++)
        p->storage[x] = scale * (2.0 * (double)ag_rng_uniform(seed, 91, (uint64_t)x) - 1.0);
}

/* ef (Fe) = the features of candidate c: the sum over its CSR entries that are input edges. */
static void pair_features(const ag_ref_mask_t *m, int64_t c, const double *E, int64_t Fe, double *ef) {
    for (int64_t f = 0; f < Fe; f++) ef[f] = 0;
    if (!E) return;
    for (int64_t k = m->c_e0[c]; k < m->c_e1[c]; k++)
        if (m->edge[k] >= 0)
            for (int64_t f = 0; f < Fe; f++) ef[f] += E[m->edge[k] * Fe + f];
}

static double leaky(double x, double slope) { return x > 0 ? x : slope * x; }

/* out (rows x cols) = A (rows x inner) B (inner x cols) */
static void matmul(const double *A, const double *B, double *out, int64_t rows, int64_t inner, int64_t cols) {
    for (int64_t i = 0; i < rows; i++)
        for (int64_t c = 0; c < cols; c++) {
            double s = 0;
            for (int64_t k = 0; k < inner; k++) s += A[i * inner + k] * B[k * cols + c];
            out[i * cols + c] = s;
        }
}

int ag_ref_attention_forward(const ag_attention_config_t *cfg, const ag_ref_params_t *p,
                             const ag_ref_mask_t *m, const double *X, const double *E, double *Y,
                             double *alpha, const ag_ref_dropout_t *drop) {
    const int64_t N = m->n_nodes, F = cfg->in_dim, H = cfg->heads, D = cfg->head_dim, HD = H * D;
    const int64_t Fe = cfg->edge_dim, O = ag_ref_out_dim(cfg);
    const int64_t C = cfg->combine == AG_HEADS_CONCAT ? HD : D;
    const double slope = cfg->negative_slope;
    double *Q = calloc((size_t)(N * HD + 1), sizeof *Q);   /* (N x H*D) */
    double *K = calloc((size_t)(N * HD + 1), sizeof *K);   /* (N x H*D) */
    double *V = calloc((size_t)(N * HD + 1), sizeof *V);   /* (N x H*D) */
    double *cat = calloc((size_t)(N * C + 1), sizeof *cat); /* (N x C) */
    const int key = cfg->edge_mode == AG_EDGE_KEY, bias = cfg->edge_mode == AG_EDGE_BIAS;
    const int64_t ew = key ? HD : H; /* width of e W^e */
    double *EW = calloc((size_t)(m->n_cand * ew + 1), sizeof *EW); /* (n_cand x ew): e W^e per pair */
    double *ef = calloc((size_t)(Fe + 1), sizeof *ef);      /* (Fe) one pair's edge features */
    int64_t maxdeg = 1;
    for (int64_t i = 0; i < N; i++)
        if (m->c_indptr[i + 1] - m->c_indptr[i] > maxdeg) maxdeg = m->c_indptr[i + 1] - m->c_indptr[i];
    double *s = calloc((size_t)maxdeg, sizeof *s);          /* scores of one destination, one head */
    double *w = calloc((size_t)maxdeg, sizeof *w);
    int rc = -1;
    if (!Q || !K || !V || !cat || !EW || !ef || !s || !w) goto done;
    if (cfg->score != AG_SCORE_GAT) matmul(X, p->Wq, Q, N, F, HD);
    if (cfg->score == AG_SCORE_DOT) matmul(X, p->Wk, K, N, F, HD);
    matmul(X, p->Wv, V, N, F, HD);
    if (cfg->edge_mode != AG_EDGE_NONE)
        for (int64_t c = 0; c < m->n_cand; c++) {
            pair_features(m, c, E, Fe, ef);
            for (int64_t col = 0; col < ew; col++)
                for (int64_t f = 0; f < Fe; f++) EW[c * ew + col] += ef[f] * p->We[f * ew + col];
        }

    for (int64_t i = 0; i < N; i++) {
        const int64_t b = m->c_indptr[i], n = m->c_indptr[i + 1] - b;
        for (int64_t h = 0; h < H; h++) {
            double *acc = cat + i * C + (cfg->combine == AG_HEADS_CONCAT ? h * D : 0);
            for (int64_t t = 0; t < n; t++) {
                const int64_t j = m->c_src[b + t];
                const double *ee = EW + (b + t) * ew;
                double sc = 0;
                if (cfg->score == AG_SCORE_DOT) {
                    for (int64_t d = 0; d < D; d++)
                        sc += Q[i * HD + h * D + d] * (K[j * HD + h * D + d] + (key ? ee[h * D + d] : 0));
                    sc /= sqrt((double)D);
                } else if (cfg->score == AG_SCORE_GAT) {
                    for (int64_t d = 0; d < D; d++)
                        sc += p->a_dst[h * D + d] * V[i * HD + h * D + d] +
                              p->a_src[h * D + d] * (V[j * HD + h * D + d] + (key ? ee[h * D + d] : 0));
                    sc = leaky(sc, slope);
                } else {
                    for (int64_t d = 0; d < D; d++)
                        sc += p->a[h * D + d] * leaky(Q[i * HD + h * D + d] + V[j * HD + h * D + d] +
                                                      (key ? ee[h * D + d] : 0), slope);
                }
                if (bias) sc += ee[h];
                s[t] = sc;
            }
            if (cfg->norm == AG_NORM_SOFTMAX) {
                double mx = -INFINITY, sum = 0;
                for (int64_t t = 0; t < n; t++) mx = s[t] > mx ? s[t] : mx;
                for (int64_t t = 0; t < n; t++) sum += (w[t] = exp(s[t] - mx));
                for (int64_t t = 0; t < n; t++) w[t] /= sum;
            } else {
                double sum = 0;
                for (int64_t t = 0; t < n; t++) sum += (w[t] = s[t] > 0 ? s[t] : 0);
                for (int64_t t = 0; t < n; t++) w[t] /= sum + 1e-6;
            }
            if (alpha)
                for (int64_t t = 0; t < n; t++) alpha[(b + t) * H + h] = w[t];
            if (drop && drop->p > 0)
                for (int64_t t = 0; t < n; t++) {
                    float u = ag_rng_uniform(drop->seed, drop->stream, (uint64_t)(m->c_draw[b + t] * H + h));
                    w[t] = (double)u < drop->p ? 0.0 : w[t] / (1.0 - drop->p);
                }
            for (int64_t t = 0; t < n; t++) {
                const int64_t j = m->c_src[b + t];
                for (int64_t d = 0; d < D; d++) {
                    double v = V[j * HD + h * D + d];
                    if (key) v += EW[(b + t) * HD + h * D + d];
                    acc[d] += (cfg->combine == AG_HEADS_CONCAT ? 1.0 : 1.0 / (double)H) * w[t] * v;
                }
            }
        }
    }
    if (cfg->out_proj) matmul(cat, p->Wo, Y, N, C, O);
    else memcpy(Y, cat, sizeof *Y * (size_t)(N * C));
    if (cfg->bias)
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < O; o++) Y[i * O + o] += p->bo[o];
    rc = 0;
done:
    free(Q);
    free(K);
    free(V);
    free(cat);
    free(EW);
    free(ef);
    free(s);
    free(w);
    return rc;
}

void ag_ref_entry_weights(const ag_ref_mask_t *m, int64_t H, const double *alpha, double *out) {
    for (int64_t i = 0; i < m->n_nodes; i++)
        for (int64_t k = m->indptr[i]; k < m->indptr[i + 1]; k++) {
            int64_t c = k;
            if (m->kind == AG_MASK_FULL)
                for (c = m->c_indptr[i]; c < m->c_indptr[i + 1] && m->c_src[c] != m->src[k]; c++) {}
            for (int64_t h = 0; h < H; h++) out[k * H + h] = alpha[c * H + h];
        }
}

double ag_ref_loss(const ag_attention_config_t *cfg, const ag_ref_params_t *p, const ag_ref_mask_t *m,
                   const double *X, const double *E, const double *R, const ag_ref_dropout_t *drop) {
    const int64_t n = m->n_nodes * ag_ref_out_dim(cfg);
    double *Y = calloc((size_t)n + 1, sizeof *Y);
    if (!Y || ag_ref_attention_forward(cfg, p, m, X, E, Y, NULL, drop)) {
        free(Y);
        return NAN;
    }
    double L = 0;
    for (int64_t x = 0; x < n; x++) L += Y[x] * R[x];
    free(Y);
    return L;
}

void ag_ref_fd_grad(const ag_attention_config_t *cfg, const ag_ref_params_t *p, const ag_ref_mask_t *m,
                    const double *X, const double *E, const double *R, const ag_ref_dropout_t *drop,
                    double *target, int64_t n, double h, double *grad) {
    for (int64_t x = 0; x < n; x++) {
        const double keep = target[x];
        target[x] = keep + h;
        const double up = ag_ref_loss(cfg, p, m, X, E, R, drop);
        target[x] = keep - h;
        const double down = ag_ref_loss(cfg, p, m, X, E, R, drop);
        target[x] = keep;
        grad[x] = (up - down) / (2 * h);
    }
}
