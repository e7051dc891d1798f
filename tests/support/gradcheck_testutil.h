/*
 * gradcheck_testutil.h: a whole model's parameter gradients against central differences, for the
 * model-level tests.
 */
#ifndef AG_GRADCHECK_TESTUTIL_H
#define AG_GRADCHECK_TESTUTIL_H

#include <stdint.h>
#include <attngraph/model.h>

/* One training forward (the model must have no dropout, so that it equals the evaluation forwards
 * of the differences) and backward of L = sum(out .* R), R = ag_test_fill_signed(seed 99), then
 * central differences of L by the step h max(1, |w|) for the entries visited: every entry of a
 * tensor of up to 40 entries or whose name starts with a prefix in full (a NULL-terminated list,
 * or NULL), else every (n / samples)-th, leaving out those at a kink. Fails the test, naming the
 * tensor, unless over its entries checked ||g - fd|| <= 2e-2 ||fd|| + noise and each
 * |g_i - fd_i| <= 5e-2 max|fd| + noise (gradcheck_testutil.c). Returns the number of entries
 * checked. */
int64_t ag_test_check_model_gradients(ag_model_t *m, ag_batch_t *b, float h, int64_t samples,
                                      const char *const *full);

#endif
