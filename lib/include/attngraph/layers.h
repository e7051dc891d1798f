/*
 * attngraph/layers.h: the blocks around attention: linear, layer norm, activations, dropout,
 * the position-wise feed-forward block, and residual connections.
 *
 * Every layer follows one pattern (after karpathy/llm.c):
 *
 *     ag_linear_t lin;
 *     ag_linear_config_t cfg = { .in_dim = 64, .out_dim = 16, .bias = 1 };
 *     ag_linear_init(&lin, &cfg, 42);                 // Glorot uniform weights, zero bias
 *     ag_linear_params(&lin, &list, "head");          // "head.W", "head.b" for the optimiser
 *     ag_linear_forward(&lin, X, Y, N, 1, &rng);      // Y = X W + b, caches X (training)
 *     ag_linear_backward(&lin, dY, dX, N);            // dW += X^T dY, db += colsum dY, dX += dY W^T
 *     ag_linear_destroy(&lin);
 *
 * - All matrices are float32, row-major, one row per node: X is (N x F).
 * - forward overwrites its output and, when `training` is 1, caches what backward needs (a copy of
 *   its input, row statistics, the dropout stream). The cache grows when N grows and is reused
 *   otherwise: a training step with a fixed N allocates nothing. Output may alias input only where
 *   a function says so.
 * - backward ACCUMULATES: parameter gradients and dX are added to (+=), so the caller zeroes them
 *   once per step (ag_param_list_zero_grad) and branches that share an input simply add up.
 *   dX may be NULL when the input needs no gradient (the first layer), which skips that product.
 * - Each layer's parameters live in one allocation and its gradients in another.
 * - Results are bit-identical for any number of threads: products go through one gemm wrapper
 *   that never splits the summed dimension, and column sums (bias and norm gradients) run per
 *   column over rows in increasing order.
 *
 * Shape letters: N rows (nodes), F features (input width), O output width, Hd hidden width.
 */
#ifndef ATTNGRAPH_LAYERS_H
#define ATTNGRAPH_LAYERS_H

#include "attngraph/common.h"
#include "attngraph/param.h"
#include "attngraph/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Linear                                                                                      */

typedef struct ag_linear_config_t {
    int64_t in_dim;  /* F */
    int64_t out_dim; /* O */
    int bias;        /* 1: add a bias b (O) */
} ag_linear_config_t;

/** Y = X W + b. */
typedef struct ag_linear_t {
    ag_linear_config_t cfg;
    float *params, *grads; /* one allocation each, carved below */
    float *W, *dW;         /* (F x O) */
    float *b, *db;         /* (O) or NULL without bias */
    float *x_cache;        /* (cap_rows x F) copy of the last training input */
    int64_t cap_rows;      /* rows the cache can hold */
    int64_t cached_rows;   /* N of the last training forward, -1 if none */
} ag_linear_t;

/**
 * \function ag_linear_init
 * Allocates a linear layer. W is Glorot (Xavier) uniform, U(-a, a) with a = sqrt(6 / (F + O)),
 * element k drawn as ag_rng_uniform(seed, 0, k); b is zero.
 * \param layer  Uninitialised; free with ag_linear_destroy().
 * \param cfg    Sizes; in_dim and out_dim must be positive.
 * \param seed   Seed of the weight draw: same seed, same weights.
 * \return AG_SUCCESS, AG_EINVAL (a non-positive size), AG_ENOMEM, AG_ELIMIT.
 * Time complexity: O(F O).
 */
ag_error_t ag_linear_init(ag_linear_t *layer, const ag_linear_config_t *cfg, uint64_t seed);

/** \function ag_linear_destroy
 * Frees parameters, gradients and cache; safe on a zero-filled or destroyed layer.
 * Time complexity: O(1). */
void ag_linear_destroy(ag_linear_t *layer);

/** \function ag_linear_params
 * Appends "W" (F x O, decay 1) and "b" (O, decay 0, when bias) under prefix.
 * \return AG_SUCCESS; AG_EINVAL (a full name longer than AG_PARAM_NAME_MAX - 1); AG_ENOMEM.
 * Time complexity: O(1). */
ag_error_t ag_linear_params(ag_linear_t *layer, ag_param_list_t *list, const char *prefix);

/**
 * \function ag_linear_forward
 * Y = X W + b.
 * \param X         (N x F) input.
 * \param Y         (N x O) output, overwritten; must not alias X.
 * \param N         Rows, N >= 0.
 * \param training  1 caches a copy of X for ag_linear_backward().
 * \param rng       Unused (a linear layer draws nothing); may be NULL.
 * \return AG_SUCCESS, AG_EINVAL (N < 0, NULL buffers), AG_ENOMEM (growing the cache).
 * Time complexity: O(N F O), through the BLAS; training keeps an N x F copy of X.
 */
ag_error_t ag_linear_forward(ag_linear_t *layer, const float *X, float *Y, int64_t N, int training,
                             ag_rng_t *rng);

/**
 * \function ag_linear_backward
 * Accumulates dW += X^T dY, db += colsum(dY) and, if dX is not NULL, dX += dY W^T, with X the
 * input of the last training forward.
 * \param dY  (N x O) gradient of the loss with respect to Y.
 * \param dX  (N x F) or NULL.
 * \return AG_SUCCESS, AG_EINVAL (no training forward with this N cached).
 * Time complexity: O(N F O), through the BLAS.
 */
ag_error_t ag_linear_backward(ag_linear_t *layer, const float *dY, float *dX, int64_t N);

/* ------------------------------------------------------------------------------------------ */
/* LayerNorm                                                                                   */

typedef struct ag_layernorm_config_t {
    int64_t dim; /* F: normalised over the features of each row */
    float eps;   /* added to the variance; PyTorch's default is 1e-5 */
} ag_layernorm_config_t;

/** y = (x - mean) / sqrt(var + eps) * gamma + beta per row, var the biased variance (as PyTorch). */
typedef struct ag_layernorm_t {
    ag_layernorm_config_t cfg;
    float *params, *grads;
    float *gamma, *dgamma; /* (F) */
    float *beta, *dbeta;   /* (F) */
    float *x_cache;        /* (cap_rows x F) */
    float *mean;           /* (cap_rows) */
    float *rstd;           /* (cap_rows) 1 / sqrt(var + eps) */
    int64_t cap_rows;
    int64_t cached_rows;
} ag_layernorm_t;

/**
 * \function ag_layernorm_init
 * gamma = 1, beta = 0. eps <= 0 in cfg selects 1e-5. The seed is unused (kept for a uniform API).
 * \return AG_SUCCESS, AG_EINVAL (dim <= 0), AG_ENOMEM.
 * Time complexity: O(F).
 */
ag_error_t ag_layernorm_init(ag_layernorm_t *layer, const ag_layernorm_config_t *cfg, uint64_t seed);

/** \function ag_layernorm_destroy
 * Time complexity: O(1). */
void ag_layernorm_destroy(ag_layernorm_t *layer);

/** \function ag_layernorm_params
 * Appends "gamma" and "beta" (F each, decay 0) under prefix.
 * \return As ag_linear_params().
 * Time complexity: O(1). */
ag_error_t ag_layernorm_params(ag_layernorm_t *layer, ag_param_list_t *list, const char *prefix);

/**
 * \function ag_layernorm_forward
 * \param X  (N x F) input.  \param Y (N x F) output; may alias X.
 * \param training  1 caches X, the row means and reciprocal standard deviations.
 * \return AG_SUCCESS, AG_EINVAL, AG_ENOMEM.
 * Time complexity: O(N F); training keeps an N x F copy of X and two floats per row.
 */
ag_error_t ag_layernorm_forward(ag_layernorm_t *layer, const float *X, float *Y, int64_t N,
                                int training, ag_rng_t *rng);

/**
 * \function ag_layernorm_backward
 * Accumulates dgamma += colsum(dY * xhat), dbeta += colsum(dY) and, if dX is not NULL,
 * dX += rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dY * gamma, per row.
 * \return AG_SUCCESS, AG_EINVAL (no training forward with this N cached).
 * Time complexity: O(N F).
 */
ag_error_t ag_layernorm_backward(ag_layernorm_t *layer, const float *dY, float *dX, int64_t N);

/* ------------------------------------------------------------------------------------------ */
/* Activations                                                                                 */

typedef enum ag_act_kind_t {
    AG_ACT_IDENTITY = 0,
    AG_ACT_RELU,       /* max(0, x) */
    AG_ACT_LEAKY_RELU, /* x if x > 0 else slope * x */
    AG_ACT_ELU,        /* x if x > 0 else alpha * (exp(x) - 1) */
    AG_ACT_GELU        /* x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), the exact form (torch default) */
} ag_act_kind_t;

typedef struct ag_act_config_t {
    ag_act_kind_t kind;
    int64_t dim;  /* F: row width (only the product N F matters) */
    float slope;  /* LeakyReLU negative slope (PyTorch default 0.01; GAT uses 0.2) */
    float alpha;  /* ELU alpha (1) */
} ag_act_config_t;

/** An elementwise activation; caches its input when training (GELU and ELU need x). */
typedef struct ag_act_t {
    ag_act_config_t cfg;
    float *x_cache;      /* (cap_rows x F) */
    int64_t cap_rows;
    int64_t cached_rows;
} ag_act_t;

/** \function ag_act_config_default
 * kind and dim as given, LeakyReLU slope 0.01 and ELU alpha 1 (PyTorch's defaults).
 * Time complexity: O(1). */
void ag_act_config_default(ag_act_config_t *cfg, ag_act_kind_t kind, int64_t dim);

/** \function ag_act_name
 * "identity", "relu", "leaky_relu", "elu", "gelu", or NULL for an unknown kind.
 * Time complexity: O(1). */
const char *ag_act_name(ag_act_kind_t kind);

/** \function ag_act_apply
 * Y[k] = f(X[k]) for k < n, in parallel. Y may alias X. No allocation, no failure.
 * Time complexity: O(n). */
void ag_act_apply(ag_act_kind_t kind, float slope, float alpha, const float *X, float *Y, int64_t n);

/** \function ag_act_apply_add
 * Y[k] = f(X[k]) + R[k] for k < n, in parallel: an activation and the residual sum after it, as one
 * pass (inference). The same bits as ag_act_apply then the sum. Y must not alias X or R.
 * Time complexity: O(n). */
void ag_act_apply_add(ag_act_kind_t kind, float slope, float alpha, const float *X, const float *R, float *Y,
                      int64_t n);

/** \function ag_act_grad
 * dX[k] += f'(X[k]) * dY[k] for k < n, with X the activation's input. At x = 0 the derivative
 * of ReLU and LeakyReLU is taken from the left (0 and slope), as PyTorch does.
 * Time complexity: O(n). */
void ag_act_grad(ag_act_kind_t kind, float slope, float alpha, const float *X, const float *dY,
                 float *dX, int64_t n);

/**
 * \function ag_act_init
 * \return AG_SUCCESS, AG_EINVAL (unknown kind, dim <= 0). Allocates nothing until forward.
 * Time complexity: O(1).
 */
ag_error_t ag_act_init(ag_act_t *layer, const ag_act_config_t *cfg, uint64_t seed);

/** \function ag_act_destroy
 * Time complexity: O(1). */
void ag_act_destroy(ag_act_t *layer);

/** \function ag_act_params
 * Activations have no parameters: appends nothing.
 * \return AG_SUCCESS, always.
 * Time complexity: O(1). */
ag_error_t ag_act_params(ag_act_t *layer, ag_param_list_t *list, const char *prefix);

/** \function ag_act_forward
 * Y = f(X) over (N x F); Y may alias X. training 1 caches X.
 * \return AG_SUCCESS, AG_EINVAL, AG_ENOMEM.
 * Time complexity: O(N F); training keeps an N x F copy of X. */
ag_error_t ag_act_forward(ag_act_t *layer, const float *X, float *Y, int64_t N, int training,
                          ag_rng_t *rng);

/** \function ag_act_backward
 * dX += f'(X) * dY with X from the last training forward.
 * \return AG_SUCCESS, AG_EINVAL (no training forward with this N cached, dX NULL).
 * Time complexity: O(N F). */
ag_error_t ag_act_backward(ag_act_t *layer, const float *dY, float *dX, int64_t N);

/* ------------------------------------------------------------------------------------------ */
/* Dropout                                                                                     */

typedef struct ag_dropout_config_t {
    int64_t dim; /* F */
    float p;     /* probability of zeroing an element, in [0, 1] */
} ag_dropout_config_t;

/**
 * Inverted dropout. In training, element k = r*F + c is kept iff ag_rng_uniform(seed, stream, k)
 * >= p and kept elements are scaled by 1/(1-p); the mask depends only on (seed, stream, k), never
 * on threads. One stream is taken from the rng per training forward; backward recomputes the mask
 * from it (nothing is stored). In evaluation (training 0) the layer is the identity.
 */
typedef struct ag_dropout_t {
    ag_dropout_config_t cfg;
    uint64_t seed, stream; /* of the last training forward */
    int64_t cached_rows;   /* N of the last forward, -1 if none */
    int cached_training;   /* whether that forward dropped anything */
} ag_dropout_t;

/** \function ag_dropout_init
 * \return AG_SUCCESS, AG_EINVAL (dim <= 0, p outside [0, 1] or NaN).
 * Time complexity: O(1). */
ag_error_t ag_dropout_init(ag_dropout_t *layer, const ag_dropout_config_t *cfg, uint64_t seed);

/** \function ag_dropout_destroy
 * Time complexity: O(1). */
void ag_dropout_destroy(ag_dropout_t *layer);

/** \function ag_dropout_params
 * Dropout has no parameters: appends nothing.
 * \return AG_SUCCESS, always.
 * Time complexity: O(1). */
ag_error_t ag_dropout_params(ag_dropout_t *layer, ag_param_list_t *list, const char *prefix);

/** \function ag_dropout_keep
 * Whether element k is kept under (seed, stream) with probability p of dropping.
 * Time complexity: O(1). */
int ag_dropout_keep(uint64_t seed, uint64_t stream, uint64_t k, float p);

/**
 * \function ag_dropout_forward
 * Y = mask(X) / (1 - p) in training, Y = X otherwise; Y may alias X. With p = 1 everything is
 * zeroed. Takes one stream from rng when training and p > 0.
 * \return AG_SUCCESS, AG_EINVAL (rng NULL while training with p > 0, N < 0).
 * Time complexity: O(N F); nothing is allocated (backward redraws the mask).
 */
ag_error_t ag_dropout_forward(ag_dropout_t *layer, const float *X, float *Y, int64_t N, int training,
                              ag_rng_t *rng);

/** \function ag_dropout_backward
 * dX += mask(dY) / (1 - p) for the mask of the last forward (dX += dY after an evaluation forward).
 * \return AG_SUCCESS, AG_EINVAL (no forward with this N).
 * Time complexity: O(N F). */
ag_error_t ag_dropout_backward(ag_dropout_t *layer, const float *dY, float *dX, int64_t N);

/* ------------------------------------------------------------------------------------------ */
/* Position-wise feed-forward block (Transformer FFN)                                          */

typedef struct ag_ffn_config_t {
    int64_t dim;        /* F: input and output width */
    int64_t hidden;     /* Hd: inner width (4 F in the Transformer) */
    ag_act_kind_t act;  /* GELU or ReLU usually */
    float slope;        /* LeakyReLU slope */
    float alpha;        /* ELU alpha */
    float dropout;      /* dropout probability after the activation */
    int bias;           /* 1: both linears have biases */
} ag_ffn_config_t;

/** Y = Linear2(Dropout(act(Linear1(X)))), Linear1: F -> Hd, Linear2: Hd -> F. */
typedef struct ag_ffn_t {
    ag_ffn_config_t cfg;
    ag_linear_t lin1, lin2; /* their own x caches stay empty: the block keeps its activations */
    ag_dropout_t drop;
    float *x_cache;  /* (cap_train_rows x F) input of the last training forward; NULL until one */
    float *h;        /* (cap_rows x Hd) pre-activation Linear1 output */
    float *a;        /* (cap_rows x Hd) activation after dropout, Linear2's input */
    float *da;       /* (cap_train_rows x Hd) scratch of backward; NULL until a training forward */
    int64_t cap_rows;       /* rows h and a can hold */
    int64_t cap_train_rows; /* rows x_cache and da can hold */
    int64_t cached_rows;
} ag_ffn_t;

/** \function ag_ffn_config_default
 * Hidden 4 F, GELU, slope 0.01, alpha 1, no dropout, biases on.
 * Time complexity: O(1). */
void ag_ffn_config_default(ag_ffn_config_t *cfg, int64_t dim);

/** \function ag_ffn_init
 * Linear1 is seeded with ag_rng_u64(seed, 1, 0), Linear2 with ag_rng_u64(seed, 2, 0).
 * \return AG_SUCCESS, AG_EINVAL, AG_ENOMEM.
 * Time complexity: O(F Hd), the weights of both linears. */
ag_error_t ag_ffn_init(ag_ffn_t *layer, const ag_ffn_config_t *cfg, uint64_t seed);

/** \function ag_ffn_destroy
 * Time complexity: O(1). */
void ag_ffn_destroy(ag_ffn_t *layer);

/** \function ag_ffn_params
 * Appends "lin1.W", "lin1.b", "lin2.W", "lin2.b" under prefix.
 * \return As ag_linear_params().
 * Time complexity: O(1). */
ag_error_t ag_ffn_params(ag_ffn_t *layer, ag_param_list_t *list, const char *prefix);

/** \function ag_ffn_forward
 * \param X (N x F)  \param Y (N x F), must not alias X.
 * \return AG_SUCCESS, AG_EINVAL, AG_ENOMEM.
 * Time complexity: O(N F Hd), through the BLAS. Memory: the layer keeps N x 2 Hd floats (hidden,
 * activation), and after a training forward N x (F + Hd) more (input copy, backward scratch). */
ag_error_t ag_ffn_forward(ag_ffn_t *layer, const float *X, float *Y, int64_t N, int training,
                          ag_rng_t *rng);

/** \function ag_ffn_backward
 * Accumulates the gradients of both linears and dX (N x F, may be NULL).
 * \return AG_SUCCESS, AG_EINVAL (no training forward with this N).
 * Time complexity: O(N F Hd), through the BLAS. */
ag_error_t ag_ffn_backward(ag_ffn_t *layer, const float *dY, float *dX, int64_t N);

/* ------------------------------------------------------------------------------------------ */
/* Residual connections                                                                        */

/** \function ag_residual_forward
 * Y = X + Fx over n elements (the skip connection around a sublayer). Y may alias X or Fx.
 * Post-norm is LayerNorm(X + Sublayer(X)); pre-norm is X + Sublayer(LayerNorm(X)): the model
 * composes this with ag_layernorm_*.
 * Time complexity: O(n). */
void ag_residual_forward(const float *X, const float *Fx, float *Y, int64_t n);

/** \function ag_residual_backward
 * dX += dY and dFx += dY (either may be NULL): the gradient flows unchanged down both paths.
 * Time complexity: O(n). */
void ag_residual_backward(const float *dY, float *dX, float *dFx, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
