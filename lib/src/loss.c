/*
 * loss.c: cross-entropy, binary cross-entropy with logits, mean squared error, and predictions.
 */
#include <math.h>
#include "attngraph/loss.h"
#include "internal.h"

/* Rows are summed in this many fixed chunks, each in order, then the chunks in order: the result
 * is the same for any number of threads (a `reduction` clause would not be). */
#define LOSS_CHUNKS 64

/* floor(n k / LOSS_CHUNKS) without overflowing n k */
static int64_t chunk_begin(int64_t n, int k) {
    return (n / LOSS_CHUNKS) * k + (n % LOSS_CHUNKS) * k / LOSS_CHUNKS;
}

static double sum_chunks(const double *part) {
    double s = 0.0;
    for (int k = 0; k < LOSS_CHUNKS; k++) s += part[k];
    return s;
}

static double softplus(double x) { return (x > 0.0 ? x : 0.0) + log1p(exp(-fabs(x))); }

static double sigmoid_d(double x) {
    if (x >= 0.0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

/* Per-class or per-task weights (NULL: none) are finite and >= 0; `what` names one of them. */
static ag_error_t check_weights(const char *what, const float *w, int64_t n) {
    if (w)
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(w[i]) || w[i] < 0.0f)
                return AG_ERROR(AG_EINVAL, "%s %lld is %g (must be finite and >= 0)", what, (long long)i, (double)w[i]);
    return AG_SUCCESS;
}

static ag_error_t check_sizes(const char *what, int64_t n_rows, int64_t n_cols, const char *cols_name) {
    if (n_rows < 0) return AG_ERROR(AG_EINVAL, "%s: negative number of rows (%lld)", what, (long long)n_rows);
    if (n_cols < 1)
        return AG_ERROR(AG_EINVAL, "%s: number of %s must be at least 1, not %lld", what, cols_name, (long long)n_cols);
    int64_t total;
    if (ag_i_mul_overflow(n_rows, n_cols, &total))
        return AG_ERROR(AG_ELIMIT, "%s: %lld x %lld entries overflow", what, (long long)n_rows, (long long)n_cols);
    return AG_SUCCESS;
}

ag_error_t ag_loss_cross_entropy(const float *logits, const int32_t *labels, int64_t n_rows,
                                 int64_t n_classes, const float *class_weight, float scale,
                                 float *dlogits, double *loss, int64_t *n_counted) {
    if (!loss || (n_rows > 0 && (!logits || !labels)))
        return AG_ERROR(AG_EINVAL, "cross-entropy: NULL logits, labels or loss");
    AG_CHECK(check_sizes("cross-entropy", n_rows, n_classes, "classes"));
    const int64_t N = n_rows, C = n_classes;
    AG_CHECK(check_weights("cross-entropy: weight of class", class_weight, C));
    double wsum = 0.0;
    int64_t counted = 0;
    for (int64_t i = 0; i < N; i++) {
        int32_t y = labels[i];
        if (y == -1) continue;
        if (y < -1 || y >= C)
            return AG_ERROR(AG_EVALUE, "cross-entropy: row %lld has label %d, outside 0 .. %lld (or -1 for none)",
                            (long long)i, (int)y, (long long)(C - 1));
        wsum += class_weight ? class_weight[y] : 1.0;
        counted++;
    }
    double part[LOSS_CHUNKS] = {0};
    /* with no weight to divide by, the loss is 0 and so is every gradient */
    const double gk = wsum > 0.0 ? (double)scale / wsum : 0.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ag_threads_get())
    for (int k = 0; k < LOSS_CHUNKS; k++) {
        double acc = 0.0;
        for (int64_t i = chunk_begin(N, k); i < chunk_begin(N, k + 1); i++) {
            const float *z = logits + i * C;             /* (C) */
            float *dz = dlogits ? dlogits + i * C : NULL; /* (C) */
            int32_t y = labels[i];
            if (y < 0) {
                if (dz)
                    for (int64_t c = 0; c < C; c++) dz[c] = 0.0f;
                continue;
            }
            float m = z[0];
            for (int64_t c = 1; c < C; c++)
                if (z[c] > m) m = z[c];
            double se = 0.0;
            for (int64_t c = 0; c < C; c++) se += exp((double)z[c] - m);
            double lse = m + log(se);
            double w = class_weight ? class_weight[y] : 1.0;
            acc += w * (lse - z[y]);
            if (dz)
                for (int64_t c = 0; c < C; c++)
                    dz[c] = (float)(gk * w * (exp((double)z[c] - lse) - (c == y ? 1.0 : 0.0)));
        }
        part[k] = acc;
    }
    *loss = wsum > 0.0 ? sum_chunks(part) / wsum : 0.0;
    if (n_counted) *n_counted = counted;
    return AG_SUCCESS;
}

ag_error_t ag_loss_bce_logits(const float *logits, const float *targets, int64_t n_rows, int64_t n_tasks,
                              const float *pos_weight, float scale, float *dlogits, double *loss,
                              int64_t *n_counted) {
    if (!loss || (n_rows > 0 && (!logits || !targets)))
        return AG_ERROR(AG_EINVAL, "binary cross-entropy: NULL logits, targets or loss");
    AG_CHECK(check_sizes("binary cross-entropy", n_rows, n_tasks, "tasks"));
    const int64_t N = n_rows, T = n_tasks;
    AG_CHECK(check_weights("binary cross-entropy: pos_weight of task", pos_weight, T));
    int64_t counted = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t t = 0; t < T; t++) {
            float y = targets[i * T + t];
            if (isnan(y)) continue;
            if (!(y >= 0.0f && y <= 1.0f))
                return AG_ERROR(AG_EVALUE, "binary cross-entropy: row %lld, task %lld has target %g (must be in [0, 1], or NaN if missing)",
                                (long long)i, (long long)t, (double)y);
            counted++;
        }
    double part[LOSS_CHUNKS] = {0};
    const double gk = counted > 0 ? (double)scale / (double)counted : 0.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ag_threads_get())
    for (int k = 0; k < LOSS_CHUNKS; k++) {
        double acc = 0.0;
        for (int64_t i = chunk_begin(N, k); i < chunk_begin(N, k + 1); i++)
            for (int64_t t = 0; t < T; t++) {
                int64_t j = i * T + t;
                double y = targets[j];
                if (isnan(y)) {
                    if (dlogits) dlogits[j] = 0.0f;
                    continue;
                }
                double x = logits[j];
                double p = pos_weight ? pos_weight[t] : 1.0;
                acc += p * y * softplus(-x) + (1.0 - y) * softplus(x);
                if (dlogits) {
                    double s = sigmoid_d(x);
                    dlogits[j] = (float)(gk * (p * y * (s - 1.0) + (1.0 - y) * s));
                }
            }
        part[k] = acc;
    }
    *loss = counted > 0 ? sum_chunks(part) / (double)counted : 0.0;
    if (n_counted) *n_counted = counted;
    return AG_SUCCESS;
}

/* Mean squared error (delta <= 0) or Huber loss with threshold delta, over the targets not NaN. */
static ag_error_t regression_loss(const char *what, const float *pred, const float *targets, int64_t n_rows,
                                  int64_t n_tasks, double delta, float scale, float *dpred, double *loss,
                                  int64_t *n_counted) {
    if (!loss || (n_rows > 0 && (!pred || !targets)))
        return AG_ERROR(AG_EINVAL, "%s: NULL predictions, targets or loss", what);
    AG_CHECK(check_sizes(what, n_rows, n_tasks, "targets per row"));
    const int64_t N = n_rows, T = n_tasks;
    int64_t counted = 0;
    for (int64_t j = 0; j < N * T; j++) {
        if (isnan(targets[j])) continue;
        if (isinf(targets[j]))
            return AG_ERROR(AG_EVALUE, "%s: row %lld, target %lld is infinite", what, (long long)(j / T),
                            (long long)(j % T));
        counted++;
    }
    double part[LOSS_CHUNKS] = {0};
    /* d/dd of d^2 is 2 d; of Huber's d^2 / 2 inside delta, d, and outside, delta sign(d) */
    const double gk = counted > 0 ? (delta > 0.0 ? 1.0 : 2.0) * (double)scale / (double)counted : 0.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(ag_threads_get())
    for (int k = 0; k < LOSS_CHUNKS; k++) {
        double acc = 0.0;
        for (int64_t j = chunk_begin(N, k) * T; j < chunk_begin(N, k + 1) * T; j++) {
            if (isnan(targets[j])) {
                if (dpred) dpred[j] = 0.0f;
                continue;
            }
            double d = (double)pred[j] - targets[j], g = d;
            if (delta <= 0.0) {
                acc += d * d;
            } else if (fabs(d) <= delta) {
                acc += 0.5 * d * d;
            } else {
                acc += delta * (fabs(d) - 0.5 * delta);
                g = d > 0.0 ? delta : -delta;
            }
            if (dpred) dpred[j] = (float)(gk * g);
        }
        part[k] = acc;
    }
    *loss = counted > 0 ? sum_chunks(part) / (double)counted : 0.0;
    if (n_counted) *n_counted = counted;
    return AG_SUCCESS;
}

ag_error_t ag_loss_mse(const float *pred, const float *targets, int64_t n_rows, int64_t n_tasks, float scale,
                       float *dpred, double *loss, int64_t *n_counted) {
    return regression_loss("mean squared error", pred, targets, n_rows, n_tasks, 0.0, scale, dpred, loss, n_counted);
}

ag_error_t ag_loss_huber(const float *pred, const float *targets, int64_t n_rows, int64_t n_tasks, double delta,
                         float scale, float *dpred, double *loss, int64_t *n_counted) {
    if (!(delta > 0.0) || !isfinite(delta))
        return AG_ERROR(AG_EINVAL, "Huber loss: delta %g must be a finite number > 0", delta);
    return regression_loss("Huber loss", pred, targets, n_rows, n_tasks, delta, scale, dpred, loss, n_counted);
}

void ag_softmax_rows(const float *logits, int64_t n_rows, int64_t n_classes, float *probs) {
    const int64_t C = n_classes;
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < n_rows; i++) {
        const float *z = logits + i * C; /* (C) */
        float *p = probs + i * C;        /* (C), may alias z */
        float m = z[0];
        for (int64_t c = 1; c < C; c++)
            if (z[c] > m) m = z[c];
        double se = 0.0;
        for (int64_t c = 0; c < C; c++) se += exp((double)z[c] - m);
        /* z - m before log(se): m + log(se) rounds back to m for logits near float32's limit,
         * and equal logits then came out as probabilities 1 and 1 */
        const double lse = log(se);
        for (int64_t c = 0; c < C; c++) p[c] = (float)exp(((double)z[c] - m) - lse);
    }
}

void ag_sigmoid_apply(const float *x, int64_t n, float *out) {
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < n; i++) out[i] = (float)sigmoid_d(x[i]);
}

void ag_argmax_rows(const float *scores, int64_t n_rows, int64_t n_classes, int32_t *pred) {
    const int64_t C = n_classes;
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
    for (int64_t i = 0; i < n_rows; i++) {
        const float *s = scores + i * C; /* (C) */
        int64_t best = 0;
        for (int64_t c = 1; c < C; c++)
            if (s[c] > s[best]) best = c;
        pred[i] = (int32_t)best;
    }
}
