/*
 * attngraph/posenc.h: structural and positional encodings of the nodes of a graph.
 *
 * Attention over a node's neighbours cannot tell nodes apart by position; these encodings add
 * that information as extra feature columns. Each function reads a `const igraph_t *` and writes
 * an (N x k) float32 row-major matrix, one row per igraph vertex.
 *
 * Example:
 *     ag_fmat_t pe = {0};                        // zero-initialised: the callee sizes it
 *     if (ag_posenc_laplacian(&graph, 8, AG_EIGEN_AUTO, &pe) != AG_SUCCESS)
 *         fprintf(stderr, "%s\n", ag_error_message());
 *     // pe.data[i * 8 + c]: the (c+1)-th smallest non-trivial eigenvector at vertex i
 *     ag_fmat_destroy(&pe);
 *
 * Output matrices: `out` must be zero-initialised ({0}) or a valid ag_fmat_t; it is resized
 * (its old contents are freed) only on success, and left untouched on error.
 *
 * Definitions (docs/features.md has the full discussion):
 * - degree: number of in-neighbour entries of a node as ag_graph_t counts them (each multi-edge
 *   once, a self-loop once); directed graphs get a second column, the out-degree.
 * - Laplacian PE: eigenvectors of L = I - D^-1/2 A D^-1/2 over the simple undirected version of the
 *   graph (direction ignored, multi-edges collapsed, self-loops dropped; an isolated vertex has
 *   D^-1/2 = 0, so L_ii = 1). Eigenvalues ascending; the first one (always 0) is skipped; the next k
 *   are returned, zero columns pad when k > N - 1. Eigenvalue 0 has one eigenvector per connected
 *   component with an edge; these are taken canonically as D^1/2 1_C / norm, components ordered
 *   by their smallest vertex (so the skipped one is vertex 0's component, or the first component
 *   with an edge). Sign: the entry of largest magnitude (the first one on ties) is positive.
 * - Random-walk PE (RWSE, GraphGPS): column t-1 holds diag((D^-1 A)^t), t = 1..k, the probability
 *   that a walk from the node is back at it after t steps. Walks follow edge direction on directed
 *   graphs, use every multi-edge, and take a self-loop as one way out; a node with no way out
 *   has return probability 0 (the walk stops).
 */
#ifndef ATTNGRAPH_POSENC_H
#define ATTNGRAPH_POSENC_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Graphs with at most this many vertices get the dense eigensolver (LAPACK dsyevr), larger ones
 * the sparse Lanczos solver (ARPACK), under AG_EIGEN_AUTO. */
#define AG_POSENC_DENSE_MAX 1000

/** Eigensolver choice for ag_posenc_laplacian. */
typedef enum ag_eigen_solver_t {
    AG_EIGEN_AUTO = 0, /* dense up to AG_POSENC_DENSE_MAX vertices, ARPACK above */
    AG_EIGEN_DENSE,    /* igraph_lapack_dsyevr on the dense N x N Laplacian: O(N^2) memory */
    AG_EIGEN_ARPACK    /* igraph_arpack_rssolve with a sparse matrix-vector product: O(N k + E) memory */
} ag_eigen_solver_t;

/**
 * \function ag_posenc_degree_width
 * Number of degree columns for a graph: 1 if undirected, 2 (in, out) if directed.
 * Time complexity: O(1).
 */
int64_t ag_posenc_degree_width(int directed);

/**
 * \function ag_posenc_degree
 * Node degrees as features.
 * \param ig   The graph.
 * \param out  Output, (N x 1) for undirected graphs: the degree, where a self-loop counts once and
 *             every multi-edge counts; (N x 2) for directed graphs: in-degree, out-degree (a
 *             self-loop counts once in each). Column 0 is always the number of CSR entries of
 *             the node in ag_graph_from_igraph(), i.e. how many sources attention aggregates.
 * \return AG_SUCCESS, AG_ENOMEM.
 * Time complexity: O(N + E).
 */
ag_error_t ag_posenc_degree(const igraph_t *ig, ag_fmat_t *out);

/**
 * \function ag_posenc_laplacian
 * Laplacian eigenvector positional encoding (see the definition above).
 * Eigenvectors of a repeated non-zero eigenvalue (symmetric graphs have degenerate spectra) are
 * any orthonormal basis of their eigenspace: the solver's choice, deterministic for a given graph
 * and solver, not canonical. The zero eigenvalue's are canonical (see above); ARPACK works on the
 * operator with them projected out, so it finds the smallest non-zero eigenvalues of disconnected
 * graphs too.
 * \param ig      The graph (direction is ignored).
 * \param k       Number of eigenvectors, k >= 0.
 * \param solver  AG_EIGEN_AUTO, or force one solver (the tests compare both).
 * \param out     Output, (N x k); columns of unit Euclidean norm, zero columns beyond N - 1.
 * \return AG_SUCCESS, AG_EINVAL (k < 0), AG_ENOMEM, AG_EIGRAPH (the eigensolver failed or did
 *         not converge).
 * Time complexity: O(N + E log d) for the simple graph (d the largest degree), then dense (AUTO: up
 * to AG_POSENC_DENSE_MAX vertices, or when k nears N) O(N^3) time and O(N^2) memory; ARPACK about
 * O((N k + E) * iterations) time and O(N k + E) memory.
 */
ag_error_t ag_posenc_laplacian(const igraph_t *ig, int64_t k, ag_eigen_solver_t solver, ag_fmat_t *out);

/**
 * \function ag_posenc_random_walk
 * Random-walk return probabilities, diag(P^t) for t = 1..k, P = D^-1 A (see above).
 * Computed exactly without any N x N matrix: from each start node, the walk's distribution is
 * propagated sparsely over the nodes reached so far, so the cost is the size of the t-step
 * neighbourhoods (O(N k E) in the worst case, a few microseconds per molecule). Start nodes run in
 * parallel (OpenMP); each writes its own row, so results do not depend on the thread count.
 * \param ig   The graph.
 * \param k    Number of steps, k >= 0.
 * \param out  Output, (N x k).
 * \return AG_SUCCESS, AG_EINVAL (k < 0), AG_ENOMEM.
 * Time complexity: O(N k + E) plus the sum over nodes s and steps t of the edges within t steps of s;
 * O(N) scratch per thread.
 */
ag_error_t ag_posenc_random_walk(const igraph_t *ig, int64_t k, ag_fmat_t *out);

#ifdef __cplusplus
}
#endif
#endif
