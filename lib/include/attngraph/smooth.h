/*
 * attngraph/smooth.h: Correct and Smooth, the post-processing of a node classifier's
 * probabilities over the graph, anchored at the vertices whose class is known (Huang et al.,
 * "Combining Label Propagation and Simple Models Out-performs Graph Neural Networks", ICLR 2021).
 *
 * A node classifier sees the training labels only through its loss; on a homophilous graph
 * (friends share a country, papers cite their own field) the classes of a vertex's neighbours are
 * themselves strong evidence. Both steps are label propagation (Zhou et al., NIPS 2004),
 *
 *   X <- (1 - alpha) X0 + alpha S X,  from X = X0, `iterations` times,  S = D_in^-1/2 A D_out^-1/2
 *
 * (an undirected graph: S = D^-1/2 A D^-1/2), each step's result clamped:
 *   correct (skipped when correct_alpha is 0): X0 = the error Y - P on the known vertices (Y their
 *     one-hot class, P the model's probabilities), 0 elsewhere; clamped to [-1, 1]. The propagated
 *     error is scaled per vertex to the known vertices' mean error (L1 per row: "autoscale", rows
 *     of a larger norm are not trusted more) and added to P.
 *   smooth: X0 = the one-hot class on the known vertices, the (corrected) probabilities elsewhere;
 *     clamped to [0, 1]; each row divided by its sum at the end (a row of zeros stays zeros).
 * This is what PyTorch Geometric's CorrectAndSmooth computes with autoscale. An undirected edge
 * carries evidence both ways, a directed edge from its source to its target, a multi-edge once
 * per copy; a vertex without in-edges gets (1 - alpha) X0. The sums run over each vertex's
 * in-neighbours in the CSR's fixed order, one vertex per OpenMP iteration: the same result for
 * any thread count.
 */
#ifndef ATTNGRAPH_SMOOTH_H
#define ATTNGRAPH_SMOOTH_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The two steps' settings. */
typedef struct ag_smooth_config_t {
    double correct_alpha; /* [0, 1): the correct step's propagation weight; 0 skips the step */
    double smooth_alpha;  /* [0, 1): the smooth step's; 0 leaves the probabilities (known rows one-hot) */
    int64_t iterations;   /* of each step, >= 0 */
} ag_smooth_config_t;

/** \function ag_smooth_config_init
 * No correct step, smoothing weight 0.8, 50 iterations per step (the start's weight decays as
 * alpha^t: under 1e-4 after 50 steps of 0.8).
 * Time complexity: O(1). */
void ag_smooth_config_init(ag_smooth_config_t *cfg);

/**
 * \function ag_label_smooth
 * Correct and Smooth on class probabilities (see the file comment).
 * \param graph   The graph.
 * \param probs   (N x C) the model's class probabilities, one row per vertex; entries finite and
 *                non-negative.
 * \param known   (N) the class (0 .. C-1) of each vertex whose class is known, -1 elsewhere.
 * \param cfg     The steps' settings.
 * \param result  An initialised matrix; resized to N x C, each row a distribution (a row of zeros
 *                stays zeros).
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument, an alpha out of range, negative iterations, a
 *         negative or non-finite probability: names the vertex); AG_EMISMATCH (probs not N rows or
 *         known not N long, as the other functions taking an igraph matrix per vertex); AG_EVALUE (a
 *         known class outside 0 .. C-1: names the vertex); AG_ELIMIT; AG_ENOMEM.
 * Time complexity: O(iterations (|V| + |E|) C) per step (two with a correct step), plus O(|V| C) and
 * ag_graph_from_igraph()'s; six |V| x C float buffers (the copies in and out of igraph's matrices
 * and ag_label_smooth_csr()'s four).
 */
ag_error_t ag_label_smooth(const igraph_t *graph, const igraph_matrix_t *probs, const igraph_vector_int_t *known,
                           const ag_smooth_config_t *cfg, igraph_matrix_t *result);

/**
 * \function ag_label_smooth_csr
 * The same on a graph already in CSR form (ag_graph_from_igraph), with float32 row-major buffers:
 * what the program uses on the graph its model ran on.
 * \param probs  (N x C) probabilities.
 * \param known  (N) classes or -1.
 * \param out    (N x C) the result; must not overlap probs.
 * \return AG_SUCCESS; AG_EINVAL (an alpha out of range, negative iterations, C < 1, a negative or
 *         non-finite probability: names the vertex); AG_EVALUE (a known class outside 0 .. C-1:
 *         names the vertex); AG_ELIMIT (N x C overflows); AG_ENOMEM.
 * Time complexity: O(iterations (N + M) C) per step (two with a correct step) for the graph's M CSR
 * entries, plus O(N C + M); four N x C float buffers besides out.
 */
ag_error_t ag_label_smooth_csr(const ag_graph_t *graph, const float *probs, int64_t C, const int32_t *known,
                               const ag_smooth_config_t *cfg, float *out);

#ifdef __cplusplus
}
#endif

#endif
