/*
 * param.c: named parameter tensor lists.
 */
#include <stdio.h>
#include <string.h>
#include "attngraph/param.h"
#include "internal.h"

void ag_param_list_init(ag_param_list_t *list) {
    list->items = NULL;
    list->count = list->capacity = 0;
}

void ag_param_list_destroy(ag_param_list_t *list) {
    ag_i_free(list->items);
    ag_param_list_init(list);
}

ag_error_t ag_param_list_add(ag_param_list_t *list, const char *prefix, const char *name, int ndim,
                             int64_t rows, int64_t cols, float *value, float *grad, int decay) {
    if (!list || !name) return AG_ERROR(AG_EINVAL, "ag_param_list_add: NULL list or name");
    if (ndim < 1 || ndim > 2 || rows < 0 || cols < 0)
        return AG_ERROR(AG_EINVAL, "parameter '%s' has an invalid shape", name);
    if (!value && rows > 0 && cols > 0) return AG_ERROR(AG_EINVAL, "parameter '%s' has no values", name);
    if (list->count == list->capacity) {
        int64_t cap = list->capacity ? 2 * list->capacity : 16;
        ag_param_t *items = ag_i_realloc(list->items, (size_t)cap * sizeof *items);
        if (!items) return AG_ERROR(AG_ENOMEM, "out of memory growing the parameter list");
        list->items = items;
        list->capacity = cap;
    }
    ag_param_t *p = &list->items[list->count];
    int n = (prefix && prefix[0]) ? snprintf(p->name, sizeof p->name, "%s.%s", prefix, name)
                                  : snprintf(p->name, sizeof p->name, "%s", name);
    if (n < 0 || (size_t)n >= sizeof p->name)
        return AG_ERROR(AG_EINVAL, "parameter name '%s.%s' is longer than %d characters", prefix, name,
                        AG_PARAM_NAME_MAX - 1);
    p->ndim = ndim;
    p->shape[0] = rows;
    p->shape[1] = ndim == 1 ? 1 : cols;
    p->value = value;
    p->grad = grad;
    p->decay = decay;
    list->count++;
    return AG_SUCCESS;
}

ag_param_t *ag_param_list_find(const ag_param_list_t *list, const char *name) {
    for (int64_t i = 0; i < list->count; i++)
        if (!strcmp(list->items[i].name, name)) return &list->items[i];
    return NULL;
}

void ag_param_list_zero_grad(const ag_param_list_t *list) {
    for (int64_t i = 0; i < list->count; i++) {
        const ag_param_t *p = &list->items[i];
        if (p->grad) memset(p->grad, 0, (size_t)(p->shape[0] * p->shape[1]) * sizeof(float));
    }
}

int64_t ag_param_list_size(const ag_param_list_t *list) {
    int64_t n = 0;
    for (int64_t i = 0; i < list->count; i++) n += list->items[i].shape[0] * list->items[i].shape[1];
    return n;
}
