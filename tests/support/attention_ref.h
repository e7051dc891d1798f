/*
 * attention_ref.h: a naive reference of the attention layer of attngraph/attention.h, for tests.
 *
 * Written from the header's comments only, in double precision with plain loops, and independent
 * of the fast kernels: the candidate sources of every destination are derived from the ag_graph_t
 * (never from an ag_mask_t), k-hop reachability from a breadth-first walk per destination, and the
 * full mask from a dense N x N same-graph test, so the mask builder is tested as well.
 *
 * Semantics implemented (see attention.h):
 * - neighbours: every in-entry of i (multi-edges separate) sorted by (source, edge id), plus an
 *   added self entry (edge -1) when self_loops is on and i has no input self-loop;
 * - k-hop: sources j != i at shortest in-path distance 1..k, plus i itself when self_loops is on or
 *   i has an input self-loop; edge = smallest direct edge id j -> i, else -1;
 * - full: every node of i's graph (i included); the reported CSR is the neighbour CSR, and the
 *   edge features of pair (i, j) are the sum over its direct edges j -> i (zero if none; the fast
 *   kernel's documented choice for multi-edges, which attention.h leaves open);
 * - dropout draw of (CSR entry k, head h) is ag_rng_uniform(seed, stream, k*H + h), full mask
 *   ((i*N + j)*H + h); an entry is dropped when the draw is < p, kept ones are scaled by 1/(1-p).
 */
#ifndef AG_ATTENTION_REF_H
#define AG_ATTENTION_REF_H

#include <stdint.h>
#include <attngraph/attention.h>

/* Candidate lists per destination, built from a graph. */
typedef struct ag_ref_mask_t {
    ag_mask_kind_t kind;
    int hops, self_loops;
    int64_t n_nodes;    /* N */
    /* What ag_mask_build must produce (neighbour CSR for the full mask). */
    int64_t n_entries;  /* M */
    int64_t *indptr;    /* (N+1) */
    int32_t *src;       /* (M) */
    int64_t *edge;      /* (M) */
    /* What attention runs over: the CSR itself, or every node of the graph for the full mask. */
    int64_t n_cand;
    int64_t *c_indptr;  /* (N+1) */
    int32_t *c_src;     /* (n_cand) */
    int64_t *c_e0, *c_e1; /* (n_cand) the pair's features: sum over CSR entries [c_e0, c_e1) with edge >= 0 */
    int64_t *c_draw;    /* (n_cand) base index of the dropout draw (times H, plus h) */
    int64_t n_graphs;
    int64_t *graph_ptr; /* (G+1) */
    int32_t *node_graph;/* (N) */
} ag_ref_mask_t;

/* Returns 0 on success, -1 on bad arguments (hops < 1 for k-hop) or no memory. */
int ag_ref_mask_build(ag_ref_mask_t *m, const ag_graph_t *g, ag_mask_kind_t kind, int hops,
                      int self_loops);
void ag_ref_mask_free(ag_ref_mask_t *m);

/* Parameters in double, laid out as in ag_attention_t (unused ones NULL). */
typedef struct ag_ref_params_t {
    double *Wq, *Wk, *Wv;  /* (F x H*D) */
    double *a_src, *a_dst; /* (H*D) */
    double *a;             /* (H*D) */
    double *We;            /* (Fe x H*D) KEY, (Fe x H) BIAS */
    double *Wo;            /* (C x O) */
    double *bo;            /* (O) or (C) */
    double *storage;
    int64_t size;
} ag_ref_params_t;

/* Shapes of each tensor: rows and cols, 0 x 0 when the configuration does not use it. The order of
 * `which` is 0 Wq, 1 Wk, 2 Wv, 3 a_src, 4 a_dst, 5 a, 6 We, 7 Wo, 8 bo. */
#define AG_REF_N_TENSORS 9
void ag_ref_tensor_shape(const ag_attention_config_t *cfg, int which, int64_t *rows, int64_t *cols);
const char *ag_ref_tensor_name(int which);

/* Allocates the parameters of cfg (zeroed). Returns 0 on success. */
int ag_ref_params_alloc(ag_ref_params_t *p, const ag_attention_config_t *cfg);
void ag_ref_params_free(ag_ref_params_t *p);
/* The tensor `which` of p, or NULL. */
double *ag_ref_params_tensor(ag_ref_params_t *p, int which);
/* Float tensor `which` of a layer (value or gradient), or NULL. */
float *ag_ref_layer_tensor(ag_attention_t *layer, int which, int grad);
/* Copies a layer's float parameters into p. */
void ag_ref_params_from_layer(ag_ref_params_t *p, ag_attention_t *layer);
/* Fills p with uniform draws in [-scale, scale) (biases included). */
void ag_ref_params_random(ag_ref_params_t *p, double scale, uint64_t seed);

/* Dropout of one forward pass (p == 0: none). */
typedef struct ag_ref_dropout_t {
    double p;
    uint64_t seed, stream;
} ag_ref_dropout_t;

/* Width of the output (as ag_attention_out_dim()). */
int64_t ag_ref_out_dim(const ag_attention_config_t *cfg);

/*
 * The forward pass. X (N x F), E (n_edges x Fe) or NULL, Y (N x out_dim) out.
 * alpha (n_cand x H) out, may be NULL: normalised weights before dropout.
 * Returns 0, or -1 on no memory.
 */
int ag_ref_attention_forward(const ag_attention_config_t *cfg, const ag_ref_params_t *p,
                             const ag_ref_mask_t *m, const double *X, const double *E, double *Y,
                             double *alpha, const ag_ref_dropout_t *drop);

/* Maps candidate weights (n_cand x H) to the weights of the mask's CSR entries (M x H): identity
 * for CSR masks, the weight of pair (i, src) for the full mask. */
void ag_ref_entry_weights(const ag_ref_mask_t *m, int64_t H, const double *alpha, double *out);

/* sum(Y .* R) of one forward pass, for finite differences. */
double ag_ref_loss(const ag_attention_config_t *cfg, const ag_ref_params_t *p, const ag_ref_mask_t *m,
                   const double *X, const double *E, const double *R, const ag_ref_dropout_t *drop);

/* Central differences of ag_ref_loss() with respect to the n doubles at target (which points into
 * p's storage, X or E and is restored), step h: grad (n) out. */
void ag_ref_fd_grad(const ag_attention_config_t *cfg, const ag_ref_params_t *p, const ag_ref_mask_t *m,
                    const double *X, const double *E, const double *R, const ag_ref_dropout_t *drop,
                    double *target, int64_t n, double h, double *grad);
#endif
