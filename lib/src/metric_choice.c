/*
 * metric_choice.c: the metrics by name, which one scores a task and stops its training, and
 * whether a part's targets let it score (the metrics themselves: metrics.c).
 */
#include <math.h>
#include <string.h>
#include "attngraph/train.h"
#include "internal.h"

static const char *const metric_names[] = {"auto", "loss", "accuracy", "macro_f1", "roc_auc", "rmse", "mae"};

const char *ag_metric_name(ag_metric_t metric) {
    return (int)metric >= 0 && metric <= AG_METRIC_MAE ? metric_names[metric] : "unknown";
}

ag_error_t ag_metric_from_name(const char *name, ag_metric_t *metric) {
    if (!name || !metric) return AG_ERROR(AG_EINVAL, "metric name: NULL name or output");
    for (int i = 0; i <= AG_METRIC_MAE; i++)
        if (!strcmp(metric_names[i], name)) {
            *metric = (ag_metric_t)i;
            return AG_SUCCESS;
        }
    return AG_ERROR(AG_EINVAL, "unknown metric '%s' (expected auto, loss, accuracy, macro_f1, roc_auc, rmse or mae)", name);
}

int ag_metric_higher_is_better(ag_metric_t metric) {
    return metric == AG_METRIC_ACCURACY || metric == AG_METRIC_MACRO_F1 || metric == AG_METRIC_ROC_AUC;
}

ag_metric_t ag_metric_for_task(ag_metric_t m, ag_task_t task) {
    if (m != AG_METRIC_AUTO) return m;
    if (ag_task_is_classification(task)) return AG_METRIC_ACCURACY;
    if (task == AG_TASK_GRAPH_MULTITASK) return AG_METRIC_ROC_AUC;
    return AG_METRIC_RMSE;
}

ag_metric_t ag_metric_for_validation(ag_metric_t m, ag_task_t task, int64_t n_val_labelled) {
    if (m == AG_METRIC_AUTO && (ag_task_is_classification(task) || task == AG_TASK_GRAPH_MULTITASK) && n_val_labelled > 0 &&
        n_val_labelled < AG_SMALL_VALIDATION)
        return AG_METRIC_LOSS;
    return m;
}

ag_error_t ag_metric_check(ag_metric_t metric, ag_task_t task, int64_t n_classes) {
    const char *allowed;
    int ok;
    switch (task) {
    case AG_TASK_NODE_CLASSIFICATION:
    case AG_TASK_GRAPH_CLASSIFICATION:
        ok = metric == AG_METRIC_ACCURACY || metric == AG_METRIC_MACRO_F1 ||
             (metric == AG_METRIC_ROC_AUC && n_classes == 2);
        allowed = n_classes == 2 ? "loss, accuracy, macro_f1 or roc_auc"
                                 : "loss, accuracy or macro_f1 (roc_auc is for 2 classes)";
        break;
    case AG_TASK_GRAPH_MULTITASK:
        ok = metric == AG_METRIC_ROC_AUC;
        allowed = "loss or roc_auc (the mean over the tasks)";
        break;
    default:
        ok = metric == AG_METRIC_RMSE || metric == AG_METRIC_MAE;
        allowed = "loss, rmse or mae";
        break;
    }
    if (ok || metric == AG_METRIC_AUTO || metric == AG_METRIC_LOSS) return AG_SUCCESS;
    if (n_classes > 2 && metric == AG_METRIC_ROC_AUC && ag_task_is_classification(task))
        return AG_ERROR(AG_EINVAL, "metric roc_auc scores 2 classes, not the %lld of this %s task; %s", (long long)n_classes,
                        ag_task_name(task), allowed);
    return AG_ERROR(AG_EINVAL, "metric %s does not score a %s task: it takes %s", ag_metric_name(metric),
                    ag_task_name(task), allowed);
}

int ag_metric_scorable(ag_metric_t metric, const ag_trainset_t *set, const int64_t *idx, int64_t n) {
    if (!set || (n > 0 && !idx)) return 0;
    if (ag_metric_for_task(metric, set->task) != AG_METRIC_ROC_AUC) return ag_trainset_count_labelled(set, idx, n) > 0;
    /* per column: bit 0 a negative seen, bit 1 a positive (binary classification: class 0 or 1) */
    for (int64_t j = 0; j < set->n_cols; j++) {
        int seen = 0;
        for (int64_t i = 0; i < n && seen != 3; i++) {
            float y = set->targets[idx[i] * set->n_cols + j];
            if (!isnan(y)) seen |= y > 0.5f ? 2 : 1;
        }
        if (seen == 3) return 1;
    }
    return 0;
}

double ag_scores_get(const ag_scores_t *s, ag_metric_t metric, ag_task_t task) {
    switch (ag_metric_for_task(metric, task)) {
    case AG_METRIC_LOSS: return s->loss;
    case AG_METRIC_ACCURACY: return s->accuracy;
    case AG_METRIC_MACRO_F1: return s->macro_f1;
    case AG_METRIC_ROC_AUC: return s->roc_auc;
    case AG_METRIC_RMSE: return s->rmse;
    case AG_METRIC_MAE: return s->mae;
    default: return NAN;
    }
}
