/*
 * attngraph/param.h: named parameter tensors, the common currency of layers, optimisers and
 * model files.
 *
 * A layer owns its parameter values and their gradients (each in one allocation); it describes
 * them by appending ag_param_t entries to a list. The optimiser updates every entry of the list,
 * and the model file writes and reads them by name.
 */
#ifndef ATTNGRAPH_PARAM_H
#define ATTNGRAPH_PARAM_H

#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AG_PARAM_NAME_MAX 96

typedef struct ag_param_t {
    char name[AG_PARAM_NAME_MAX]; /* e.g. "blocks.0.attn.Wq" */
    int ndim;                     /* 1 or 2 */
    int64_t shape[2];             /* row-major; shape[1] is 1 for a vector */
    float *value;                 /* (shape[0] x shape[1]) owned by the layer */
    float *grad;                  /* (shape[0] x shape[1]) owned by the layer; backward adds into it */
    int decay;                    /* 1 if weight decay applies (weights), 0 for biases and norms */
} ag_param_t;

typedef struct ag_param_list_t {
    ag_param_t *items;
    int64_t count;
    int64_t capacity;
} ag_param_list_t;

/** \function ag_param_list_init
 * An empty list (no allocation).
 * Time complexity: O(1). */
void ag_param_list_init(ag_param_list_t *list);

/** \function ag_param_list_destroy
 * Frees the list itself (not the tensors, which the layers own).
 * Time complexity: O(1). */
void ag_param_list_destroy(ag_param_list_t *list);

/** \function ag_param_list_add
 * Appends one tensor named prefix + "." + name (or name alone if prefix is empty or NULL). grad
 * may be NULL for a tensor that is only saved or loaded, never trained.
 * \return AG_SUCCESS; AG_EINVAL (NULL list or name, NULL value for a non-empty tensor, ndim not 1
 *         or 2, a negative size, a full name longer than AG_PARAM_NAME_MAX - 1); AG_ENOMEM.
 * Time complexity: amortised O(1) (the list doubles when full); names are not checked for
 * duplicates. */
ag_error_t ag_param_list_add(ag_param_list_t *list, const char *prefix, const char *name, int ndim,
                             int64_t rows, int64_t cols, float *value, float *grad, int decay);

/** \function ag_param_list_find
 * The entry with this full name, or NULL.
 * Time complexity: O(count): the names are compared one by one. */
ag_param_t *ag_param_list_find(const ag_param_list_t *list, const char *name);

/** \function ag_param_list_zero_grad
 * Sets every gradient of the list to zero.
 * Time complexity: O(P) for P the scalars of the list. */
void ag_param_list_zero_grad(const ag_param_list_t *list);

/** \function ag_param_list_size
 * Total number of scalars over all tensors.
 * Time complexity: O(count). */
int64_t ag_param_list_size(const ag_param_list_t *list);

#ifdef __cplusplus
}
#endif
#endif
