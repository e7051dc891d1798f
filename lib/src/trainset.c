/*
 * trainset.c: a training set: its examples (graphs with their features) and targets.
 */
#include <math.h>
#include <string.h>
#include "attngraph/train.h"
#include "internal.h"

void ag_trainset_init(ag_trainset_t *set, ag_task_t task) {
    memset(set, 0, sizeof *set);
    set->task = task;
}

ag_error_t ag_trainset_resize(ag_trainset_t *set, int64_t n_examples, int64_t n_rows, int64_t n_cols) {
    if (!set) return AG_ERROR(AG_EINVAL, "NULL training set");
    if (n_examples < 0 || n_rows < 0 || n_cols < 0)
        return AG_ERROR(AG_EINVAL, "a training set of %lld examples and %lld x %lld targets: sizes must not be negative",
                        (long long)n_examples, (long long)n_rows, (long long)n_cols);
    ag_task_t task = set->task;
    int64_t n_classes = set->n_classes;
    ag_trainset_destroy(set);
    set->task = task;
    set->n_classes = n_classes;
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n_examples, sizeof(ag_example_t), "training examples"));
    set->examples = p;
    int64_t count;
    if (ag_i_mul_overflow(n_rows, n_cols, &count)) {
        ag_trainset_destroy(set);
        return AG_ERROR(AG_ELIMIT, "target table of %lld x %lld overflows", (long long)n_rows, (long long)n_cols);
    }
    ag_error_t rc = ag_i_alloc_array(&p, count, sizeof(float), "training targets");
    if (rc != AG_SUCCESS) {
        ag_trainset_destroy(set);
        return rc;
    }
    set->targets = p;
    for (int64_t i = 0; i < count; i++) set->targets[i] = NAN;
    set->n_examples = n_examples;
    set->n_rows = n_rows;
    set->n_cols = n_cols;
    return AG_SUCCESS;
}

int64_t ag_trainset_count_labelled(const ag_trainset_t *set, const int64_t *idx, int64_t n) {
    int64_t labelled = 0;
    for (int64_t i = 0; i < n; i++) {
        const float *y = set->targets + idx[i] * set->n_cols; /* (T) */
        int64_t j = 0;
        while (j < set->n_cols && isnan(y[j])) j++;
        labelled += j < set->n_cols;
    }
    return labelled;
}

void ag_trainset_destroy(ag_trainset_t *set) {
    for (int64_t i = 0; i < set->n_examples; i++) {
        ag_graph_destroy(&set->examples[i].graph);
        ag_fmat_destroy(&set->examples[i].X);
        ag_fmat_destroy(&set->examples[i].E);
    }
    ag_i_free(set->examples);
    ag_i_free(set->targets);
    ag_task_t task = set->task;
    memset(set, 0, sizeof *set);
    set->task = task;
}
