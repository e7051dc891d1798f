/*
 * residual.c: the skip connection around a sublayer, X + Sublayer(...).
 */
#include "attngraph/layers.h"

void ag_residual_forward(const float *X, const float *Fx, float *Y, int64_t n) {
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
    for (int64_t k = 0; k < n; k++) Y[k] = X[k] + Fx[k];
}

void ag_residual_backward(const float *dY, float *dX, float *dFx, int64_t n) {
#pragma omp parallel for schedule(static) if (n > 65536) num_threads(ag_threads_get())
    for (int64_t k = 0; k < n; k++) {
        if (dX) dX[k] += dY[k];
        if (dFx) dFx[k] += dY[k];
    }
}
