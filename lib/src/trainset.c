/*
 * trainset.c: a training set: its examples (graphs with their features) and targets, and whether
 * a model can run on it (the checks that training, evaluation and prediction share).
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

ag_error_t ag_i_trainset_check_inputs(const ag_model_t *model, const ag_trainset_t *set) {
    if (!model || !set) return AG_ERROR(AG_EINVAL, "NULL model or set");
    const ag_model_config_t *c = ag_model_config(model);
    if (set->task != c->task)
        return AG_ERROR(AG_EMISMATCH, "the data are for %s and the model is for %s", ag_task_name(set->task),
                        ag_task_name(c->task));
    if (!ag_task_is_graph_level(c->task) && set->n_examples != 1)
        return AG_ERROR(AG_EMISMATCH, "a node task needs exactly one graph, not %lld", (long long)set->n_examples);
    for (int64_t i = 0; i < set->n_examples; i++) {
        const ag_example_t *ex = &set->examples[i];
        if (ex->X.cols != c->in_dim || ex->X.rows != ex->graph.n_nodes)
            return AG_ERROR(AG_EMISMATCH, "graph %lld has %lld x %lld node features; the model expects %lld x %lld",
                            (long long)i, (long long)ex->X.rows, (long long)ex->X.cols, (long long)ex->graph.n_nodes,
                            (long long)c->in_dim);
        if (c->edge_dim > 0 && ex->graph.n_edges > 0 && (ex->E.cols != c->edge_dim || ex->E.rows != ex->graph.n_edges))
            return AG_ERROR(AG_EMISMATCH, "graph %lld has %lld x %lld edge features; the model expects %lld x %lld",
                            (long long)i, (long long)ex->E.rows, (long long)ex->E.cols, (long long)ex->graph.n_edges,
                            (long long)c->edge_dim);
    }
    return AG_SUCCESS;
}

ag_error_t ag_i_trainset_check(const ag_model_t *model, const ag_trainset_t *set) {
    AG_CHECK(ag_i_trainset_check_inputs(model, set));
    const ag_model_config_t *c = ag_model_config(model);
    int graph_level = ag_task_is_graph_level(c->task);
    if (graph_level && set->n_rows != set->n_examples)
        return AG_ERROR(AG_EMISMATCH, "%lld target rows for %lld graphs", (long long)set->n_rows, (long long)set->n_examples);
    if (!graph_level && set->n_rows != set->examples[0].graph.n_nodes)
        return AG_ERROR(AG_EMISMATCH, "%lld target rows for %lld nodes", (long long)set->n_rows,
                        (long long)set->examples[0].graph.n_nodes);
    int64_t want_cols = ag_task_is_classification(c->task) ? 1 : c->n_out;
    if (set->n_cols != want_cols)
        return AG_ERROR(AG_EMISMATCH, "the targets have %lld columns and the model expects %lld", (long long)set->n_cols,
                        (long long)want_cols);
    return AG_SUCCESS;
}

ag_error_t ag_i_check_indices(const int64_t *idx, int64_t n, int64_t limit, const char *what) {
    if (n > 0 && !idx) return AG_ERROR(AG_EINVAL, "%s: NULL indices for %lld rows", what, (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= limit)
            return AG_ERROR(AG_EINVAL, "%s index %lld is out of range (0..%lld)", what, (long long)idx[i],
                            (long long)limit - 1);
    return AG_SUCCESS;
}
