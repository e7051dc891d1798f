#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gradcheck_testutil.h"
#include "igraph_testutil.h"

/* L = sum(out .* R) in double, from an evaluation forward. */
static double loss_of(ag_model_t *m, ag_batch_t *b, const float *R, float *out, int64_t n) {
    assert_int_equal(ag_model_forward(m, b, 0, NULL, out), AG_SUCCESS);
    double L = 0.0;
    for (int64_t i = 0; i < n; i++) L += (double)out[i] * R[i];
    return L;
}

/* The central difference of L in parameter entry w by the step s. */
static double central(ag_model_t *m, ag_batch_t *b, const float *R, float *out, int64_t n, float *w, float s) {
    const float saved = *w;
    *w = saved + s;
    const double lp = loss_of(m, b, R, out, n);
    *w = saved - s;
    const double lm = loss_of(m, b, R, out, n);
    *w = saved;
    return (lp - lm) / (2.0 * (double)s);
}

/* Two differences of the same entry agree: within 1e-2 relative and noise absolute. */
static int agree(double a, double b, double noise) {
    return fabs(a - b) <= 1e-2 * fmax(fabs(a), fabs(b)) + noise;
}

static int named_in(const char *name, const char *const *prefixes) {
    for (; prefixes && *prefixes; prefixes++)
        if (!strncmp(name, *prefixes, strlen(*prefixes))) return 1;
    return 0;
}

/* Per tensor, not per entry against max(1, |fd|): most attention vectors' entries are below 0.02,
 * where that passed a zero or a sign-flipped gradient. The tolerances: 2e-2 of the tensor's norm,
 * 5e-2 of its largest entry per entry, plus the differences' rounding noise, a few float roundings
 * of sum |out .* R| over the step (a gradient that is 0 by symmetry, the attention readout's gate
 * bias, measures a seventh of it). On the tests' own models the largest error is a sixth of the
 * tolerance, on 1 and 2 threads.
 *
 * Kinks (ReLU, LeakyReLU, ReLU attention weights): one within the step s of w makes the central
 * difference average two slopes: with the parameters moved at random, some tensor was 5 to 25%
 * off in 1 model of 8. So each entry also has the difference at s / 8: without a kink the two agree, else
 * the one at s / 8 is taken if it agrees with the one at s / 64, and with neither the entry is left
 * out (at most half of a tensor's may be). These tests use forward passes only, so a wrong gradient
 * cannot steer them. With 60 other seeds for the models of test_model and test_vnode, the check
 * per entry against max(1, |fd|) failed 64 of the 120, this one 3 (kinks it does not see below
 * the noise: GATv2 scores over a full mask, and inputs feeding every node). */
int64_t ag_test_check_model_gradients(ag_model_t *m, ag_batch_t *b, float h, int64_t samples,
                                      const char *const *full) {
    const int64_t n_out = ag_model_out_rows(m, b) * ag_model_config(m)->n_out;
    float *out = calloc((size_t)n_out, sizeof(float)), *R = calloc((size_t)n_out, sizeof(float));
    assert_true(out && R);
    ag_test_fill_signed(R, n_out, 99, 1.0f);
    const ag_param_list_t *params = ag_model_params(m);
    ag_param_list_zero_grad(params);
    ag_rng_t rng;
    ag_rng_init(&rng, 3);
    assert_int_equal(ag_model_forward(m, b, 1, &rng, out), AG_SUCCESS);
    assert_int_equal(ag_model_backward(m, b, R), AG_SUCCESS);
    double l_abs = 0.0;
    for (int64_t i = 0; i < n_out; i++) l_abs += fabs((double)out[i] * R[i]);
    const double noise = 4.0 * 0x1p-24 * l_abs / (double)h;
    int64_t checked = 0;
    for (int64_t t = 0; t < params->count; t++) {
        ag_param_t *p = &params->items[t];
        const int64_t n = p->shape[0] * p->shape[1];
        const int64_t stride = n <= 40 || named_in(p->name, full) ? 1 : n / samples;
        double *fd = malloc(sizeof *fd * (size_t)n), *tol = malloc(sizeof *tol * (size_t)n);
        int64_t *at = malloc(sizeof *at * (size_t)n);
        assert_true(fd && tol && at);
        int64_t k = 0, kinks = 0;
        double diff2 = 0.0, fd2 = 0.0, noise2 = 0.0, fd_max = 0.0;
        for (int64_t i = 0; i < n; i++) {
            if (i % stride) continue;
            const float s = h * fmaxf(1.0f, fabsf(p->value[i]));
            double f = central(m, b, R, out, n_out, &p->value[i], s), e = noise;
            const double f8 = central(m, b, R, out, n_out, &p->value[i], s / 8);
            if (!agree(f, f8, 8 * noise)) {
                const double f64 = central(m, b, R, out, n_out, &p->value[i], s / 64);
                if (!agree(f8, f64, 64 * noise)) {
                    kinks++;
                    continue;
                }
                f = f8;
                e = 8 * noise;
            }
            at[k] = i;
            fd[k] = f;
            tol[k] = e;
            const double d = p->grad[i] - f;
            diff2 += d * d;
            fd2 += f * f;
            noise2 += e * e;
            fd_max = fmax(fd_max, fabs(f));
            k++;
        }
        if (kinks > k) fail_msg("%s: %lld of %lld entries at kinks", p->name, (long long)kinks, (long long)(k + kinks));
        if (sqrt(diff2) > 2e-2 * sqrt(fd2) + sqrt(noise2))
            fail_msg("%s: |analytic - finite differences| = %.3g against |finite differences| = %.3g over %lld entries",
                     p->name, sqrt(diff2), sqrt(fd2), (long long)k);
        for (int64_t j = 0; j < k; j++)
            if (fabs(p->grad[at[j]] - fd[j]) > 5e-2 * fd_max + tol[j])
                fail_msg("%s[%lld]: analytic %.6g vs finite difference %.6g (largest %.3g)", p->name,
                         (long long)at[j], (double)p->grad[at[j]], fd[j], fd_max);
        checked += k;
        free(fd);
        free(tol);
        free(at);
    }
    free(out);
    free(R);
    return checked;
}
