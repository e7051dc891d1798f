/*
 * optim.c: SGD with momentum, Adam and AdamW with PyTorch's semantics; gradient clipping;
 * learning-rate schedules.
 */
#include <math.h>
#include <string.h>
#include "attngraph/optim.h"
#include "internal.h"

void ag_optim_config_default(ag_optim_config_t *cfg, ag_optim_kind_t kind) {
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = kind;
    cfg->lr = 1e-3f;
    cfg->beta1 = 0.9f;
    cfg->beta2 = 0.999f;
    cfg->eps = 1e-8f;
}

static ag_error_t check_config(const ag_optim_config_t *c) {
    if (c->kind != AG_OPTIM_SGD && c->kind != AG_OPTIM_ADAM && c->kind != AG_OPTIM_ADAMW)
        return AG_ERROR(AG_EINVAL, "optimiser: unknown kind %d", (int)c->kind);
    if (!(c->lr >= 0.0f)) return AG_ERROR(AG_EINVAL, "optimiser: learning rate %g is negative or NaN", (double)c->lr);
    if (!(c->weight_decay >= 0.0f))
        return AG_ERROR(AG_EINVAL, "optimiser: weight decay %g is negative or NaN", (double)c->weight_decay);
    if (!(c->momentum >= 0.0f)) return AG_ERROR(AG_EINVAL, "optimiser: momentum %g is negative or NaN", (double)c->momentum);
    if (c->kind != AG_OPTIM_SGD) {
        if (!(c->beta1 >= 0.0f && c->beta1 < 1.0f)) return AG_ERROR(AG_EINVAL, "optimiser: beta1 %g is not in [0, 1)", (double)c->beta1);
        if (!(c->beta2 >= 0.0f && c->beta2 < 1.0f)) return AG_ERROR(AG_EINVAL, "optimiser: beta2 %g is not in [0, 1)", (double)c->beta2);
        if (!(c->eps >= 0.0f)) return AG_ERROR(AG_EINVAL, "optimiser: eps %g is negative or NaN", (double)c->eps);
    }
    return AG_SUCCESS;
}

ag_error_t ag_optim_init(ag_optim_t *opt, const ag_optim_config_t *cfg, const ag_param_list_t *params) {
    memset(opt, 0, sizeof *opt);
    if (!cfg || !params) return AG_ERROR(AG_EINVAL, "optimiser: NULL configuration or parameter list");
    AG_CHECK(check_config(cfg));
    opt->cfg = *cfg;
    void *off;
    /* (count + 1) offsets then (count) row counts, one allocation */
    AG_CHECK(ag_i_alloc_array(&off, 2 * params->count + 1, sizeof(int64_t), "optimiser offsets"));
    opt->offset = off;
    opt->rows = opt->offset + params->count + 1;
    int64_t P = 0;
    for (int64_t i = 0; i < params->count; i++) {
        opt->offset[i] = P;
        opt->rows[i] = params->items[i].shape[0];
        P += params->items[i].shape[0] * params->items[i].shape[1];
    }
    opt->offset[params->count] = P;
    int nbuf = cfg->kind == AG_OPTIM_SGD ? 1 : 2;
    void *st;
    ag_error_t rc = ag_i_alloc_array(&st, nbuf * P, sizeof(float), "optimiser state");
    if (rc != AG_SUCCESS) {
        ag_i_free(opt->offset);
        memset(opt, 0, sizeof *opt);
        return rc;
    }
    opt->state = st;
    opt->m = opt->state;                           /* (P) */
    opt->v = nbuf == 2 ? opt->state + P : NULL;    /* (P) */
    opt->size = P;
    opt->count = params->count;
    return AG_SUCCESS;
}

void ag_optim_destroy(ag_optim_t *opt) {
    if (!opt) return;
    ag_i_free(opt->state);
    ag_i_free(opt->offset);
    memset(opt, 0, sizeof *opt);
}

void ag_optim_reset(ag_optim_t *opt) {
    int nbuf = opt->v ? 2 : 1;
    if (opt->state) memset(opt->state, 0, (size_t)(nbuf * opt->size) * sizeof(float));
    opt->step = 0;
}

ag_error_t ag_optim_step(ag_optim_t *opt, const ag_param_list_t *params, float lr) {
    if (params->count != opt->count)
        return AG_ERROR(AG_EMISMATCH, "optimiser step: the list has %lld tensor%s, the state was made for %lld",
                        (long long)params->count, params->count == 1 ? "" : "s", (long long)opt->count);
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        /* the same count in another shape (a transposed tensor) would mix up elements' moments */
        int64_t n = opt->offset[i + 1] - opt->offset[i], r = opt->rows[i];
        if (p->shape[0] != r || p->shape[0] * p->shape[1] != n)
            return AG_ERROR(AG_EMISMATCH, "optimiser step: tensor %lld '%s' is %lld x %lld, its state was made for %lld x %lld",
                            (long long)i, p->name, (long long)p->shape[0], (long long)p->shape[1], (long long)r,
                            (long long)(r ? n / r : 0));
    }
    const ag_optim_config_t *c = &opt->cfg;
    if (lr < 0.0f) lr = c->lr;
    opt->step++;
    double t = (double)opt->step;
    /* torch's form: step size lr / bc1 and denominator sqrt(v) / sqrt(bc2) + eps. */
    float bc1 = (float)(1.0 - pow((double)c->beta1, t));
    float bc2_sqrt = (float)sqrt(1.0 - pow((double)c->beta2, t));
    float step_size = lr / bc1;
    float b1 = c->beta1, b2 = c->beta2, eps = c->eps, mom = c->momentum;
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        int64_t n = p->shape[0] * p->shape[1];
        float *w = p->value, *m = opt->m + opt->offset[i];
        const float *g = p->grad;
        float *v = opt->v ? opt->v + opt->offset[i] : NULL;
        float wd = p->decay ? c->weight_decay : 0.0f;
        if (!w || !g) continue;
        switch (c->kind) {
        case AG_OPTIM_SGD:
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
            for (int64_t k = 0; k < n; k++) {
                float gk = g[k] + wd * w[k];
                if (mom > 0.0f) {
                    m[k] = mom * m[k] + gk;
                    gk = m[k];
                }
                w[k] -= lr * gk;
            }
            break;
        case AG_OPTIM_ADAM:
        case AG_OPTIM_ADAMW: {
            int decoupled = c->kind == AG_OPTIM_ADAMW;
            float shrink = 1.0f - lr * wd;
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
            for (int64_t k = 0; k < n; k++) {
                float gk = g[k];
                if (decoupled) w[k] *= shrink;
                else gk += wd * w[k];
                m[k] = b1 * m[k] + (1.0f - b1) * gk;
                v[k] = b2 * v[k] + (1.0f - b2) * gk * gk;
                w[k] -= step_size * m[k] / (sqrtf(v[k]) / bc2_sqrt + eps);
            }
            break;
        }
        }
    }
    return AG_SUCCESS;
}

float ag_param_list_clip_grad_norm(const ag_param_list_t *params, float max_norm) {
    /* A fixed number of chunks per tensor, whatever the thread count, summed in chunk order. */
    enum { CHUNKS = 64 };
    double total = 0.0;
    for (int64_t i = 0; i < params->count; i++) {
        const ag_param_t *p = &params->items[i];
        if (!p->grad) continue;
        int64_t n = p->shape[0] * p->shape[1];
        int64_t len = (n + CHUNKS - 1) / CHUNKS;
        double part[CHUNKS];
        const float *g = p->grad;
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
        for (int ch = 0; ch < CHUNKS; ch++) {
            int64_t k0 = ch * len, k1 = k0 + len < n ? k0 + len : n;
            double s = 0.0;
            for (int64_t k = k0; k < k1; k++) s += (double)g[k] * g[k];
            part[ch] = s;
        }
        for (int ch = 0; ch < CHUNKS; ch++) total += part[ch];
    }
    float norm = (float)sqrt(total);
    if (max_norm > 0.0f && isfinite(norm) && norm > max_norm) {
        float scale = max_norm / (norm + 1e-6f);
        for (int64_t i = 0; i < params->count; i++) {
            const ag_param_t *p = &params->items[i];
            if (!p->grad) continue;
            int64_t n = p->shape[0] * p->shape[1];
            float *g = p->grad;
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
            for (int64_t k = 0; k < n; k++) g[k] *= scale;
        }
    }
    return norm;
}

float ag_lr_schedule_rate(const ag_lr_schedule_t *s, int64_t t) {
    if (t < 0) t = 0;
    if (s->warmup_steps > 0 && t < s->warmup_steps)
        return s->base_lr * (float)(t + 1) / (float)s->warmup_steps;
    switch (s->kind) {
    case AG_LR_CONSTANT: return s->base_lr;
    case AG_LR_STEP:
        if (s->step_size <= 0) return s->base_lr;
        return s->base_lr * (float)pow((double)s->gamma, (double)(t / s->step_size));
    case AG_LR_COSINE: {
        int64_t w = s->warmup_steps > 0 ? s->warmup_steps : 0;
        double progress = s->total_steps > w ? (double)(t - w) / (double)(s->total_steps - w) : 1.0;
        if (progress > 1.0) progress = 1.0;
        return (float)(s->min_lr + 0.5 * ((double)s->base_lr - s->min_lr) * (1.0 + cos(3.14159265358979323846 * progress)));
    }
    }
    return s->base_lr;
}
