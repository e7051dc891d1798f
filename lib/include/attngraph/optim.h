/*
 * attngraph/optim.h: optimisers (SGD with momentum, Adam, AdamW), global-norm gradient clipping
 * and learning-rate schedules.
 *
 *     ag_optim_config_t oc;
 *     ag_optim_config_default(&oc, AG_OPTIM_ADAMW);        // lr 1e-3, betas (0.9, 0.999), eps 1e-8
 *     oc.weight_decay = 5e-4f;
 *     ag_optim_t opt;
 *     ag_optim_init(&opt, &oc, &params);                   // state sized from the parameter list
 *     ag_lr_schedule_t sched = { .kind = AG_LR_COSINE, .base_lr = 1e-3f, .warmup_steps = 100,
 *                                .total_steps = 10000 };
 *     for (int64_t t = 0; t < 10000; t++) {
 *         ag_param_list_zero_grad(&params);
 *         ... forward, loss, backward ...
 *         ag_param_list_clip_grad_norm(&params, 1.0f);     // returns the norm before clipping
 *         ag_optim_step(&opt, &params, ag_lr_schedule_rate(&sched, t));
 *     }
 *     ag_optim_destroy(&opt);
 *
 * Semantics follow PyTorch's torch.optim (SGD, Adam, AdamW) so that a model trained here and there
 * takes the same steps. Weight decay applies only to tensors with decay = 1 in their ag_param_t
 * (weights, not biases or norm gains), for every optimiser. Every update is elementwise: results are
 * identical for any number of threads.
 */
#ifndef ATTNGRAPH_OPTIM_H
#define ATTNGRAPH_OPTIM_H

#include "attngraph/common.h"
#include "attngraph/param.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ag_optim_kind_t {
    /* buf = momentum buf + (g + wd p); p -= lr buf   (plain SGD when momentum is 0) */
    AG_OPTIM_SGD = 0,
    /* g += wd p (L2 penalty in the gradient, torch.optim.Adam);
     * m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
     * p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps) */
    AG_OPTIM_ADAM,
    /* p *= 1 - lr wd (decoupled decay, torch.optim.AdamW), then the Adam step without the L2 term */
    AG_OPTIM_ADAMW
} ag_optim_kind_t;

typedef struct ag_optim_config_t {
    ag_optim_kind_t kind;
    float lr;            /* used when ag_optim_step() gets lr < 0 */
    float beta1, beta2;  /* Adam moments' decay (0.9, 0.999) */
    float eps;           /* Adam denominator term (1e-8) */
    float weight_decay;  /* 0 disables */
    float momentum;      /* SGD momentum, 0 disables */
} ag_optim_config_t;

/** The optimiser state. m and v are laid out as the parameter list's tensors one after the
 * other, in list order: entry i's state starts at offset[i]. Expose them to save and restore. */
typedef struct ag_optim_t {
    ag_optim_config_t cfg;
    int64_t step;       /* completed steps (t - 1 during the t-th step) */
    int64_t size;       /* P: scalars over all tensors of the list */
    int64_t count;      /* tensors in the list the state was made for */
    int64_t *offset;    /* (count + 1) start of each tensor's state; offset[count] = P */
    int64_t *rows;      /* (count) each tensor's shape[0]: with offset, its shape, which a step checks */
    float *state;       /* one allocation: m then v */
    float *m;           /* (P) first moment (Adam, AdamW) or momentum buffer (SGD) */
    float *v;           /* (P) second moment (Adam, AdamW); NULL for SGD */
} ag_optim_t;

/** \function ag_optim_config_default
 * lr 1e-3, betas 0.9 and 0.999, eps 1e-8, no weight decay, no momentum.
 * Time complexity: O(1). */
void ag_optim_config_default(ag_optim_config_t *cfg, ag_optim_kind_t kind);

/**
 * \function ag_optim_init
 * Allocates zeroed state for the tensors of params (which may then be used in step after step,
 * as long as it keeps the same tensors in the same order).
 * \return AG_SUCCESS, AG_ENOMEM, AG_EINVAL (unknown kind, betas outside [0, 1), eps < 0,
 *         negative lr, weight decay or momentum, NaN anywhere).
 * Time complexity: O(P + K) for the P values in the K tensors of params.
 */
ag_error_t ag_optim_init(ag_optim_t *opt, const ag_optim_config_t *cfg, const ag_param_list_t *params);

/** \function ag_optim_destroy
 * Frees the state; safe on a zero-filled or destroyed optimiser.
 * Time complexity: O(1). */
void ag_optim_destroy(ag_optim_t *opt);

/**
 * \function ag_optim_step
 * One update of every tensor of params from its gradient (gradients are read, not cleared).
 * \param lr  Learning rate of this step (from ag_lr_schedule_rate()); lr < 0 uses cfg.lr.
 * \return AG_SUCCESS, AG_EMISMATCH (params is not the list the state was made for: other count
 *         or another shape at some entry, named in the message).
 * Time complexity: O(P + K) for the P values in the K tensors of params.
 */
ag_error_t ag_optim_step(ag_optim_t *opt, const ag_param_list_t *params, float lr);

/** \function ag_optim_reset
 * Zeroes the moments and the step count.
 * Time complexity: O(P) for the P values of the state. */
void ag_optim_reset(ag_optim_t *opt);

/**
 * \function ag_param_list_clip_grad_norm
 * Computes the global L2 norm of all gradients of params and, when max_norm > 0 and the norm
 * exceeds it, scales every gradient by max_norm / (norm + 1e-6) (torch.nn.utils.clip_grad_norm_).
 * A non-finite norm is returned and nothing is scaled. The sum of squares runs in double over a
 * fixed partition of each tensor, summed in order: the same norm for any number of threads.
 * \return The norm before clipping (0 for an empty list).
 * Time complexity: O(P + K) for the P values in the K tensors of params.
 */
float ag_param_list_clip_grad_norm(const ag_param_list_t *params, float max_norm);

/** Learning-rate schedules, as a function of the 0-based step index. */
typedef enum ag_lr_kind_t {
    AG_LR_CONSTANT = 0, /* base_lr */
    AG_LR_STEP,         /* base_lr * gamma^floor(t / step_size) (torch StepLR) */
    AG_LR_COSINE        /* min_lr + (base_lr - min_lr) (1 + cos(pi progress)) / 2 after warmup */
} ag_lr_kind_t;

typedef struct ag_lr_schedule_t {
    ag_lr_kind_t kind;
    float base_lr;
    int64_t warmup_steps; /* linear warmup for any kind: lr = base_lr (t + 1) / warmup_steps */
    int64_t step_size;    /* AG_LR_STEP: steps between decays (> 0) */
    float gamma;          /* AG_LR_STEP: factor per decay */
    int64_t total_steps;  /* AG_LR_COSINE: steps including warmup; progress =
                             (t - warmup) / (total - warmup), clamped to [0, 1] */
    float min_lr;         /* AG_LR_COSINE: floor reached at total_steps */
} ag_lr_schedule_t;

/** \function ag_lr_schedule_rate
 * The learning rate for step t (0-based; t < 0 counts as 0). Unusable fields never give NaN:
 * step_size <= 0 never decays, total_steps <= warmup_steps gives min_lr after warmup.
 * Time complexity: O(1). */
float ag_lr_schedule_rate(const ag_lr_schedule_t *sched, int64_t t);

#ifdef __cplusplus
}
#endif
#endif
