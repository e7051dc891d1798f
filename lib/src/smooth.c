/*
 * smooth.c: Correct and Smooth, label propagation of a node classifier's probabilities.
 */
#include <math.h>
#include <string.h>
#include "attngraph/smooth.h"
#include "internal.h"

void ag_smooth_config_init(ag_smooth_config_t *cfg) {
    cfg->correct_alpha = 0.0;
    cfg->smooth_alpha = 0.8;
    cfg->iterations = 50;
}

ag_error_t ag_i_smooth_alphas_check(const ag_smooth_config_t *cfg, ag_error_t code, const char *prefix) {
    if (!(cfg->correct_alpha >= 0.0 && cfg->correct_alpha < 1.0))
        return AG_ERROR(code, "%scorrect alpha %g is not in [0, 1)", prefix, cfg->correct_alpha);
    if (!(cfg->smooth_alpha >= 0.0 && cfg->smooth_alpha < 1.0))
        return AG_ERROR(code, "%ssmooth alpha %g is not in [0, 1)", prefix, cfg->smooth_alpha);
    return AG_SUCCESS;
}

static ag_error_t check_inputs(int64_t N, const float *probs, int64_t C, const int32_t *known,
                               const ag_smooth_config_t *cfg) {
    AG_CHECK(ag_i_smooth_alphas_check(cfg, AG_EINVAL, "label smoothing: "));
    if (cfg->iterations < 0)
        return AG_ERROR(AG_EINVAL, "label smoothing: %lld iterations (at least 0)", (long long)cfg->iterations);
    if (C < 1) return AG_ERROR(AG_EINVAL, "label smoothing: %lld classes (at least 1)", (long long)C);
    for (int64_t i = 0; i < N; i++) {
        if (known[i] < -1 || known[i] >= C)
            return AG_ERROR(AG_EVALUE, "label smoothing: vertex %lld: known class %d is not in 0..%lld (or -1: unknown)",
                            (long long)i, (int)known[i], (long long)C - 1);
        for (int64_t c = 0; c < C; c++) {
            float p = probs[i * C + c];
            if (!isfinite(p) || p < 0.0f)
                return AG_ERROR(AG_EINVAL, "label smoothing: vertex %lld: probability %g of class %lld is not a "
                                "finite non-negative number", (long long)i, (double)p, (long long)c);
        }
    }
    return AG_SUCCESS;
}

/* x <- (1 - alpha) x0 + alpha S x, from x = x0, `iterations` times, each step clamped to [lo, hi].
 * w_src: (N) D_out^-1/2 per source. x0, x, tmp: (N x C); x may not alias x0 or tmp. */
static void propagate(const ag_graph_t *g, const float *w_src, const float *x0, int64_t C, double alpha,
                      int64_t iterations, float lo, float hi, float *x, float *tmp) {
    const int64_t N = g->n_nodes;
    const float a = (float)alpha, keep = 1.0f - a;
    memcpy(x, x0, (size_t)(N * C) * sizeof(float));
    for (int64_t t = 0; t < iterations; t++) {
        memcpy(tmp, x, (size_t)(N * C) * sizeof(float));
#pragma omp parallel for schedule(static) num_threads(ag_threads_get())
        for (int64_t i = 0; i < N; i++) {
            const int64_t first = g->indptr[i], last = g->indptr[i + 1];
            float *o = x + i * C;
            const float *s = x0 + i * C;
            /* no in-edge: S's row is zero, the vertex gets (1 - alpha) x0 */
            const float w_dst = last > first ? 1.0f / sqrtf((float)(last - first)) : 0.0f;
            for (int64_t c = 0; c < C; c++) o[c] = 0.0f;
            for (int64_t k = first; k < last; k++) {
                const int32_t j = g->src[k];
                const float w = w_src[j];
                const float *v = tmp + (int64_t)j * C;
                for (int64_t c = 0; c < C; c++) o[c] += w * v[c];
            }
            for (int64_t c = 0; c < C; c++) {
                float y = keep * s[c] + a * w_dst * o[c];
                o[c] = y < lo ? lo : y > hi ? hi : y;
            }
        }
    }
}

/* The correct step: probs + the autoscaled propagated error, into p (N x C). */
static void correct(const ag_graph_t *g, const float *w_src, const float *probs, int64_t C, const int32_t *known,
                    const ag_smooth_config_t *cfg, float *p, float *e0, float *e, float *tmp) {
    const int64_t N = g->n_nodes;
    double sigma = 0.0; /* the known vertices' mean L1 error */
    int64_t n_known = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t c = 0; c < C; c++) {
            float err = known[i] < 0 ? 0.0f : (c == known[i] ? 1.0f : 0.0f) - probs[i * C + c];
            e0[i * C + c] = err;
            sigma += fabsf(err);
        }
    for (int64_t i = 0; i < N; i++) n_known += known[i] >= 0;
    sigma = n_known > 0 ? sigma / (double)n_known : 0.0;
    propagate(g, w_src, e0, C, cfg->correct_alpha, cfg->iterations, -1.0f, 1.0f, e, tmp);
    for (int64_t i = 0; i < N; i++) {
        double norm = 0.0;
        for (int64_t c = 0; c < C; c++) norm += fabsf(e[i * C + c]);
        /* a row without propagated error keeps its probabilities; an implausibly large factor is
         * not applied (PyG: scale 1 above 1000) */
        double scale = norm > 0.0 ? sigma / norm : 1.0;
        if (!isfinite(scale) || scale > 1000.0) scale = 1.0;
        for (int64_t c = 0; c < C; c++) p[i * C + c] = probs[i * C + c] + (float)scale * e[i * C + c];
    }
}

ag_error_t ag_label_smooth_csr(const ag_graph_t *graph, const float *probs, int64_t C, const int32_t *known,
                               const ag_smooth_config_t *cfg, float *out) {
    if (!graph || !probs || !known || !cfg || !out)
        return AG_ERROR(AG_EINVAL, "label smoothing: NULL graph, probabilities, known vertices, configuration or output");
    const int64_t N = graph->n_nodes;
    AG_CHECK(check_inputs(N, probs, C, known, cfg));
    int64_t NC;
    if (ag_i_mul_overflow(N, C, &NC))
        return AG_ERROR(AG_ELIMIT, "label smoothing: %lld vertices x %lld classes overflow", (long long)N,
                        (long long)C);
    const int64_t cells = NC > 0 ? NC : 1;
    float *p = NULL, *x0 = NULL, *e = NULL, *tmp = NULL; /* (N x C) each */
    float *w_src = NULL;                                 /* (N) D_out^-1/2, 0 without out-edges */
    ag_error_t rc = ag_i_alloc_array((void **)&p, cells, sizeof(float), "corrected probabilities");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&x0, cells, sizeof(float), "smoothing start");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&e, cells, sizeof(float), "propagated error");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&tmp, cells, sizeof(float), "smoothing step");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&w_src, N > 0 ? N : 1, sizeof(float), "out-degrees");
    if (rc == AG_SUCCESS) {
        /* out-degrees counted from the entries, so a multi-edge counts once per copy, as in A */
        for (int64_t i = 0; i < N; i++) w_src[i] = 0.0f;
        for (int64_t k = 0; k < graph->n_entries; k++) w_src[graph->src[k]] += 1.0f;
        for (int64_t i = 0; i < N; i++) w_src[i] = w_src[i] > 0.0f ? 1.0f / sqrtf(w_src[i]) : 0.0f;
        if (cfg->correct_alpha > 0.0) correct(graph, w_src, probs, C, known, cfg, p, x0, e, tmp);
        else memcpy(p, probs, (size_t)NC * sizeof(float));
        for (int64_t i = 0; i < N; i++) {
            if (known[i] >= 0) {
                for (int64_t c = 0; c < C; c++) x0[i * C + c] = 0.0f;
                x0[i * C + known[i]] = 1.0f;
            } else {
                memcpy(x0 + i * C, p + i * C, (size_t)C * sizeof(float));
            }
        }
        propagate(graph, w_src, x0, C, cfg->smooth_alpha, cfg->iterations, 0.0f, 1.0f, out, tmp);
        for (int64_t i = 0; i < N; i++) {
            float *o = out + i * C, sum = 0.0f;
            /* already in [0, 1] after a step; with no step, a corrected start may not be */
            for (int64_t c = 0; c < C; c++) o[c] = o[c] < 0.0f ? 0.0f : o[c] > 1.0f ? 1.0f : o[c];
            for (int64_t c = 0; c < C; c++) sum += o[c];
            if (sum > 0.0f)
                for (int64_t c = 0; c < C; c++) o[c] /= sum;
        }
    }
    ag_i_free(p);
    ag_i_free(x0);
    ag_i_free(e);
    ag_i_free(tmp);
    ag_i_free(w_src);
    return rc;
}

ag_error_t ag_label_smooth(const igraph_t *graph, const igraph_matrix_t *probs, const igraph_vector_int_t *known,
                           const ag_smooth_config_t *cfg, igraph_matrix_t *result) {
    if (!graph || !probs || !known || !cfg || !result)
        return AG_ERROR(AG_EINVAL, "label smoothing: NULL graph, probabilities, known vertices, configuration or result");
    AG_CHECK(AG_I_READY(probs->data.stor_begin, "label smoothing", "probs"));
    AG_CHECK(AG_I_READY(known->stor_begin, "label smoothing", "known"));
    AG_CHECK(AG_I_READY(result->data.stor_begin, "label smoothing", "result"));
    ag_graph_t g;
    AG_CHECK(ag_graph_from_igraph(&g, graph));
    const int64_t N = g.n_nodes, C = igraph_matrix_ncol(probs);
    ag_error_t rc = AG_SUCCESS;
    if (igraph_matrix_nrow(probs) != N)
        rc = AG_ERROR(AG_EMISMATCH, "label smoothing: the probabilities have %lld rows for a graph of %lld vertices",
                      (long long)igraph_matrix_nrow(probs), (long long)N);
    else if (igraph_vector_int_size(known) != N)
        rc = AG_ERROR(AG_EMISMATCH, "label smoothing: the known classes have %lld entries for a graph of %lld vertices",
                      (long long)igraph_vector_int_size(known), (long long)N);
    int64_t NC = 0;
    if (rc == AG_SUCCESS && ag_i_mul_overflow(N, C, &NC))
        rc = AG_ERROR(AG_ELIMIT, "label smoothing: %lld vertices x %lld classes overflow", (long long)N, (long long)C);
    float *p = NULL, *o = NULL; /* (N x C) row-major copies of probs and of the result */
    int32_t *k = NULL;          /* (N) */
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&p, NC > 0 ? NC : 1, sizeof(float), "probabilities");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&o, NC > 0 ? NC : 1, sizeof(float), "smoothed");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&k, N > 0 ? N : 1, sizeof(int32_t), "known classes");
    if (rc == AG_SUCCESS) {
        for (int64_t i = 0; i < N && rc == AG_SUCCESS; i++) {
            igraph_integer_t v = VECTOR(*known)[i];
            if (v < -1 || v >= C)
                rc = AG_ERROR(AG_EVALUE, "label smoothing: vertex %lld: known class %lld is not in 0..%lld (or -1: "
                              "unknown)", (long long)i, (long long)v, (long long)C - 1);
            k[i] = (int32_t)v;
            for (int64_t c = 0; c < C; c++) p[i * C + c] = (float)MATRIX(*probs, i, c);
        }
        if (rc == AG_SUCCESS) rc = ag_label_smooth_csr(&g, p, C, k, cfg, o);
    }
    if (rc == AG_SUCCESS) {
        ag_i_igraph_enter();
        igraph_error_t irc = igraph_matrix_resize(result, N, C);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS)
            rc = AG_ERROR(AG_ENOMEM, "out of memory resizing the result to %lld x %lld", (long long)N, (long long)C);
    }
    if (rc == AG_SUCCESS)
        for (int64_t i = 0; i < N; i++)
            for (int64_t c = 0; c < C; c++) MATRIX(*result, i, c) = o[i * C + c];
    ag_i_free(p);
    ag_i_free(o);
    ag_i_free(k);
    ag_graph_destroy(&g);
    return rc;
}
