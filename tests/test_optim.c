/* Tests of the optimisers against steps computed by hand, of clipping and of the schedules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/common.h>
#include <attngraph/optim.h>
#include <attngraph/param.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

/* The 2-parameter problem: a (a weight, decay 1) starts at 1, b (a bias, decay 0) at -2; the
 * gradients of the three steps are fixed: (0.5, -1), (0.1, 0.2), (-0.3, 0.4).
 * lr 0.1, betas (0.9, 0.999), eps 1e-8, weight decay 0.1 (only a decays). */
static const float grads[3][2] = {{0.5f, -1.0f}, {0.1f, 0.2f}, {-0.3f, 0.4f}};

static void run3(ag_optim_kind_t kind, float momentum, float out[3][2]) {
    float a = 1.0f, b = -2.0f, ga = 0, gb = 0;
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_param_list_add(&list, "", "a", 1, 1, 1, &a, &ga, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&list, "", "b", 1, 1, 1, &b, &gb, 0), AG_SUCCESS);
    ag_optim_config_t cfg;
    ag_optim_config_default(&cfg, kind);
    cfg.lr = 0.1f;
    cfg.weight_decay = 0.1f;
    cfg.momentum = momentum;
    ag_optim_t opt;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_SUCCESS);
    assert_int_equal(opt.size, 2);
    for (int t = 0; t < 3; t++) {
        ga = grads[t][0];
        gb = grads[t][1];
        assert_int_equal(ag_optim_step(&opt, &list, -1.0f), AG_SUCCESS);
        out[t][0] = a;
        out[t][1] = b;
    }
    assert_int_equal(opt.step, 3);
    /* gradients are read, not cleared */
    assert_float_equal(ga, -0.3f, 0.0f);
    ag_optim_destroy(&opt);
    ag_param_list_destroy(&list);
}

static void check3(float got[3][2], const double want[3][2]) {
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 2; i++) assert_float_equal(got[t][i], (float)want[t][i], 2e-6f);
}

static void test_adam_by_hand(void **state) {
    (void)state;
    /* Adam: g' = g + 0.1 w for a only.
     * t=1  a: g' = 0.5 + 0.1*1 = 0.6; m = 0.06; v = 0.00036; mhat = 0.6; vhat = 0.36;
     *         a = 1 - 0.1 * 0.6 / 0.6 = 0.9
     *      b: g = -1; mhat = -1, vhat = 1: b = -2 + 0.1 = -1.9
     * t=2  a: g' = 0.1 + 0.09 = 0.19; m = 0.054 + 0.019 = 0.073; v = 0.00035964 + 0.0000361
     *         = 0.00039574; mhat = 0.073 / 0.19 = 0.3842105; vhat = 0.00039574 / 0.001999
     *         = 0.1979690; a = 0.9 - 0.1 * 0.3842105 / 0.4449371 = 0.8136483
     *      b: m = -0.09 + 0.02 = -0.07; v = 0.000999 + 0.00004 = 0.001039; mhat = -0.3684211;
     *         vhat = 0.5197599; b = -1.9 + 0.1 * 0.3684211 / 0.7209438 = -1.8488974
     * t=3  the same recurrences (bias corrections 1 - 0.9^3 = 0.271, 1 - 0.999^3 = 0.002997003):
     *         a = 0.7715818, b = -1.8354734 */
    const double want[3][2] = {{0.9, -1.9}, {0.813648345, -1.848897394}, {0.771581821, -1.835473434}};
    float got[3][2];
    run3(AG_OPTIM_ADAM, 0, got);
    check3(got, want);
}

static void test_adamw_by_hand(void **state) {
    (void)state;
    /* AdamW: a *= 1 - lr wd = 0.99 first, then the Adam step on the raw gradient.
     * t=1  a: 0.99; g = 0.5: mhat = 0.5, vhat = 0.25: a = 0.99 - 0.1 = 0.89. b as in Adam: -1.9
     * t=2  a: 0.89 * 0.99 = 0.8811; m = 0.045 + 0.01 = 0.055; v = 0.00024975 + 0.00001
     *         = 0.00025975; mhat = 0.055 / 0.19 = 0.2894737; vhat = 0.00025975 / 0.001999
     *         = 0.1299400; a = 0.8811 - 0.1 * 0.2894737 / 0.3604719 = 0.8007959
     * t=3  a = 0.7717167; b never decays, so it follows Adam: -1.8488974, -1.8354734 */
    const double want[3][2] = {{0.89, -1.9}, {0.800795906, -1.848897394}, {0.771716653, -1.835473434}};
    float got[3][2];
    run3(AG_OPTIM_ADAMW, 0, got);
    check3(got, want);
}

static void test_sgd_momentum_by_hand(void **state) {
    (void)state;
    /* SGD, momentum 0.9: g' = g + 0.1 w (a only); buf = 0.9 buf + g'; w -= 0.1 buf.
     * t=1  a: g' = 0.6, buf 0.6, a = 0.94;          b: buf -1, b = -1.9
     * t=2  a: g' = 0.1 + 0.094 = 0.194, buf = 0.54 + 0.194 = 0.734, a = 0.8666
     *      b: buf = -0.9 + 0.2 = -0.7, b = -1.83
     * t=3  a: g' = -0.3 + 0.08666 = -0.21334, buf = 0.6606 - 0.21334 = 0.44726, a = 0.821874
     *      b: buf = -0.63 + 0.4 = -0.23, b = -1.807 */
    const double want[3][2] = {{0.94, -1.9}, {0.8666, -1.83}, {0.821874, -1.807}};
    float got[3][2];
    run3(AG_OPTIM_SGD, 0.9f, got);
    check3(got, want);
    /* plain SGD without momentum or decay: w -= lr g */
    float w = 1.0f, g = 0.5f;
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_param_list_add(&list, "", "w", 1, 1, 1, &w, &g, 1), AG_SUCCESS);
    ag_optim_config_t cfg;
    ag_optim_config_default(&cfg, AG_OPTIM_SGD);
    ag_optim_t opt;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_SUCCESS);
    assert_null(opt.v);
    assert_int_equal(ag_optim_step(&opt, &list, 0.2f), AG_SUCCESS); /* explicit lr wins over cfg.lr */
    assert_float_equal(w, 0.9f, 1e-7f);
    ag_optim_destroy(&opt);
    ag_param_list_destroy(&list);
}

static void test_optim_state_and_errors(void **state) {
    (void)state;
    float w[6] = {0}, g[6] = {1, 1, 1, 1, 1, 1}, b[2] = {0}, gb[2] = {1, 1};
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_param_list_add(&list, "l", "W", 2, 2, 3, w, g, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&list, "l", "b", 1, 2, 1, b, gb, 0), AG_SUCCESS);
    ag_optim_config_t cfg;
    ag_optim_config_default(&cfg, AG_OPTIM_ADAM);
    ag_optim_t opt;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_SUCCESS);
    assert_int_equal(opt.size, 8);
    assert_int_equal(opt.offset[1], 6);
    assert_int_equal(opt.offset[2], 8);
    assert_int_equal(ag_optim_step(&opt, &list, -1), AG_SUCCESS);
    /* m = 0.1 g, v = 0.001 g^2 after one step; b's state starts at offset 6 */
    assert_float_equal(opt.m[0], 0.1f, 1e-7f);
    assert_float_equal(opt.v[7], 0.001f, 1e-7f); /* (1 - 0.999f) is 0.00100005 in float */
    ag_optim_reset(&opt);
    assert_int_equal(opt.step, 0);
    assert_float_equal(opt.m[0], 0.0f, 0.0f);
    /* another list: a tensor with another shape, or another count */
    ag_param_list_t other;
    ag_param_list_init(&other);
    assert_int_equal(ag_param_list_add(&other, "l", "W", 2, 3, 3, w, g, 1), AG_SUCCESS);
    assert_int_equal(ag_optim_step(&opt, &other, -1), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "the list has 1 tensor, the state was made for 2"));
    assert_int_equal(ag_param_list_add(&other, "l", "b", 1, 2, 1, b, gb, 0), AG_SUCCESS);
    assert_int_equal(ag_optim_step(&opt, &other, -1), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "tensor 0 'l.W' is 3 x 3, its state was made for 2 x 3"));
    ag_param_list_destroy(&other);
    /* the same number of values, transposed: each element's moments would be another's */
    ag_param_list_init(&other);
    assert_int_equal(ag_param_list_add(&other, "l", "W", 2, 3, 2, w, g, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&other, "l", "b", 1, 2, 1, b, gb, 0), AG_SUCCESS);
    assert_int_equal(ag_optim_step(&opt, &other, -1), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "tensor 0 'l.W' is 3 x 2, its state was made for 2 x 3"));
    assert_int_equal(opt.step, 0); /* refused before any change */
    ag_param_list_destroy(&other);
    ag_optim_destroy(&opt);
    ag_optim_destroy(&opt);
    /* invalid configurations */
    ag_optim_config_default(&cfg, AG_OPTIM_ADAMW);
    cfg.beta1 = 1.0f;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "beta1 1 is not in [0, 1)"));
    ag_optim_config_default(&cfg, AG_OPTIM_ADAM);
    cfg.lr = NAN;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_EINVAL);
    ag_optim_config_default(&cfg, AG_OPTIM_SGD);
    cfg.momentum = -1;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_EINVAL);
    cfg.momentum = 0;
    cfg.kind = (ag_optim_kind_t)7;
    assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_EINVAL);
    assert_non_null(strstr(ag_error_message(), "unknown kind 7"));
    /* allocation failures */
    ag_optim_config_default(&cfg, AG_OPTIM_ADAM);
    for (int n = 1; n <= 2; n++) {
        ag_i_alloc_fail_at(n);
        assert_int_equal(ag_optim_init(&opt, &cfg, &list), AG_ENOMEM);
        assert_null(opt.state);
    }
    ag_i_alloc_fail_at(0);
    ag_param_list_destroy(&list);
}

static void test_clip_grad_norm(void **state) {
    (void)state;
    float w[2] = {0}, g[2] = {3, 0}, w2 = 0, g2 = 4;
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_param_list_add(&list, "", "a", 1, 2, 1, w, g, 1), AG_SUCCESS);
    assert_int_equal(ag_param_list_add(&list, "", "b", 1, 1, 1, &w2, &g2, 0), AG_SUCCESS);
    /* norm sqrt(9 + 16) = 5 below the limit: nothing changes */
    assert_float_equal(ag_param_list_clip_grad_norm(&list, 10.0f), 5.0f, 0.0f);
    assert_float_equal(g[0], 3.0f, 0.0f);
    /* max_norm 0: only measure */
    assert_float_equal(ag_param_list_clip_grad_norm(&list, 0.0f), 5.0f, 0.0f);
    /* above: scaled by 1 / (5 + 1e-6) */
    assert_float_equal(ag_param_list_clip_grad_norm(&list, 1.0f), 5.0f, 0.0f);
    assert_float_equal(g[0], 3.0f / (5.0f + 1e-6f), 1e-7f);
    assert_float_equal(g2, 4.0f / (5.0f + 1e-6f), 1e-7f);
    assert_float_equal(ag_param_list_clip_grad_norm(&list, 0.0f), 1.0f, 1e-6f);
    /* a NaN gradient gives a NaN norm and no scaling */
    g[1] = NAN;
    assert_true(isnan(ag_param_list_clip_grad_norm(&list, 1.0f)));
    assert_float_equal(g2, 4.0f / (5.0f + 1e-6f), 1e-7f);
    ag_param_list_destroy(&list);
    /* an empty list */
    ag_param_list_init(&list);
    assert_float_equal(ag_param_list_clip_grad_norm(&list, 1.0f), 0.0f, 0.0f);
    ag_param_list_destroy(&list);
}

static void test_clip_threads_identical(void **state) {
    (void)state;
    enum { P = 300001 };
    float *w = calloc(P, sizeof(float)), *g = malloc(P * sizeof(float));
    double exact = 0;
    for (int k = 0; k < P; k++) {
        g[k] = sinf((float)k * 0.001f) * 1e-2f;
        exact += (double)g[k] * g[k];
    }
    ag_param_list_t list;
    ag_param_list_init(&list);
    assert_int_equal(ag_param_list_add(&list, "", "w", 1, P, 1, w, g, 1), AG_SUCCESS);
    ag_threads_set(1);
    float n1 = ag_param_list_clip_grad_norm(&list, 0);
    ag_threads_set(2);
    float n2 = ag_param_list_clip_grad_norm(&list, 0);
    ag_threads_set(0);
    assert_memory_equal(&n1, &n2, sizeof n1);
    assert_float_equal(n1, (float)sqrt(exact), 1e-6f * (float)sqrt(exact));
    ag_param_list_destroy(&list);
    free(w);
    free(g);
}

static void test_lr_schedules(void **state) {
    (void)state;
    ag_lr_schedule_t s = {AG_LR_CONSTANT, 0.5f, 0, 0, 0, 0, 0};
    assert_float_equal(ag_lr_schedule_rate(&s, 0), 0.5f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 1000), 0.5f, 0.0f);
    /* StepLR(step_size 10, gamma 0.5): 1.0 for t < 10, 0.5 for t in [10, 20), 0.25 at 20 */
    s = (ag_lr_schedule_t){AG_LR_STEP, 1.0f, 0, 10, 0.5f, 0, 0};
    assert_float_equal(ag_lr_schedule_rate(&s, 9), 1.0f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 10), 0.5f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 25), 0.25f, 0.0f);
    s.step_size = 0; /* unusable: no decay */
    assert_float_equal(ag_lr_schedule_rate(&s, 25), 1.0f, 0.0f);
    /* cosine, warmup 4 of 14 steps, base 1, floor 0.1:
     * warmup t = 0..3 gives 0.25, 0.5, 0.75, 1; then progress (t - 4) / 10:
     * t = 4: 1; t = 9: 0.1 + 0.9 * (1 + cos(pi / 2)) / 2 = 0.55; t = 14 and after: 0.1
     * t = 6: 0.1 + 0.45 (1 + cos(0.2 pi)) = 0.1 + 0.45 * 1.8090170 = 0.9140576 */
    s = (ag_lr_schedule_t){AG_LR_COSINE, 1.0f, 4, 0, 0, 14, 0.1f};
    assert_float_equal(ag_lr_schedule_rate(&s, 0), 0.25f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 3), 1.0f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 4), 1.0f, 1e-7f);
    assert_float_equal(ag_lr_schedule_rate(&s, 6), 0.9140576f, 1e-6f);
    assert_float_equal(ag_lr_schedule_rate(&s, 9), 0.55f, 1e-6f);
    assert_float_equal(ag_lr_schedule_rate(&s, 14), 0.1f, 1e-7f);
    assert_float_equal(ag_lr_schedule_rate(&s, 100), 0.1f, 1e-7f);
    assert_float_equal(ag_lr_schedule_rate(&s, -5), 0.25f, 0.0f);
    s.total_steps = 2; /* shorter than warmup: floor after warmup */
    assert_float_equal(ag_lr_schedule_rate(&s, 4), 0.1f, 0.0f);
    /* warmup applies to the step schedule too */
    s = (ag_lr_schedule_t){AG_LR_STEP, 1.0f, 2, 10, 0.5f, 0, 0};
    assert_float_equal(ag_lr_schedule_rate(&s, 0), 0.5f, 0.0f);
    assert_float_equal(ag_lr_schedule_rate(&s, 2), 1.0f, 0.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adam_by_hand),
        cmocka_unit_test(test_adamw_by_hand),
        cmocka_unit_test(test_sgd_momentum_by_hand),
        cmocka_unit_test(test_optim_state_and_errors),
        cmocka_unit_test(test_clip_grad_norm),
        cmocka_unit_test(test_clip_threads_identical),
        cmocka_unit_test(test_lr_schedules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
