/*
 * prepare.c: loaded data -> training sets (featuriser, node table, targets laid out per task).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/labels.h"
#include "attngraph/prepare.h"
#include "internal.h"
#include "attr_type.h"
#include "colstats.h"
#include "json.h"
#include "featurizer_json.h"

/* ---- node-table normalisation */

void ag_table_norm_destroy(ag_table_norm_t *t) {
    if (!t) return;
    ag_i_free(t->mean);
    ag_i_free(t->std);
    ag_i_strings_free(t->columns, t->width);
    memset(t, 0, sizeof *t);
}

ag_error_t ag_table_norm_set_columns(ag_table_norm_t *t, const char *const *names, int64_t n) {
    if (!t) return AG_ERROR(AG_EINVAL, "ag_table_norm_set_columns: NULL table normalisation");
    if (names && n != t->width)
        return AG_ERROR(AG_EINVAL, "ag_table_norm_set_columns: %lld names for a table of %lld columns", (long long)n,
                        (long long)t->width);
    for (int64_t j = 0; names && j < n; j++)
        if (!names[j] || !names[j][0])
            return AG_ERROR(AG_EINVAL, "ag_table_norm_set_columns: column %lld has no name", (long long)j);
    char **copy = NULL;
    if (names) AG_CHECK(ag_i_strings_dup(&copy, names, n));
    ag_i_strings_free(t->columns, t->width);
    t->columns = copy;
    return AG_SUCCESS;
}

ag_error_t ag_table_norm_fit(ag_table_norm_t *t, const ag_fmat_t *table, ag_feature_norm_t norm) {
    if (!t) return AG_ERROR(AG_EINVAL, "ag_table_norm_fit: NULL output");
    memset(t, 0, sizeof *t);
    if (!table) return AG_ERROR(AG_EINVAL, "ag_table_norm_fit: NULL table");
    if ((unsigned)norm > AG_NORM_STANDARDIZE_RAW)
        return AG_ERROR(AG_EINVAL, "unknown node-table normalisation %d", (int)norm);
    const int raw_only = norm == AG_NORM_STANDARDIZE_RAW;
    t->width = table->cols;
    t->norm = raw_only ? AG_NORM_STANDARDIZE : norm;
    if (t->norm != AG_NORM_STANDARDIZE) return AG_SUCCESS;
    const int64_t F = table->cols;
    ag_colstats_t st;
    AG_CHECK(ag_i_colstats_init(&st, F, "node-table statistics"));
    ag_i_colstats_add(&st, table->data, table->rows, F);
    void *a, *b;
    ag_error_t rc = ag_i_alloc_array(&a, F > 0 ? F : 1, sizeof(float), "node-table statistics");
    if (rc == AG_SUCCESS && (rc = ag_i_alloc_array(&b, F > 0 ? F : 1, sizeof(float), "node-table statistics")) != AG_SUCCESS)
        ag_i_free(a);
    if (rc != AG_SUCCESS) {
        ag_i_colstats_destroy(&st);
        memset(t, 0, sizeof *t);
        return rc;
    }
    t->mean = a;
    t->std = b;
    /* a relative tolerance: a spread below a millionth of the column's magnitude is float32
     * rounding, not a signal to scale up; under raw_only an indicator or a bag-of-words entry,
     * within [-1, 1] already, is left as it is */
    for (int64_t j = 0; j < F; j++) ag_i_colstats_get(&st, j, 1e-6, raw_only, &t->mean[j], &t->std[j]);
    ag_i_colstats_destroy(&st);
    return AG_SUCCESS;
}

/* What to do about inputs without any feature column, said by both checks (one graph's, a dataset's). */
#define NO_FEATURES_HINT                                                                                     \
    "choose vertex attributes, degree columns (option degree), a positional encoding or a node table"

ag_error_t ag_inputs_featurize(const ag_featurizer_t *f, const ag_table_norm_t *t, const igraph_t *ig,
                               const ag_fmat_t *table, ag_fmat_t *X, ag_fmat_t *E) {
    if (!f || !ig || !X) return AG_ERROR(AG_EINVAL, "ag_inputs_featurize: NULL featuriser, graph or output");
    int64_t Ft = t ? t->width : 0;
    if (Ft > 0 && !table)
        return AG_ERROR(AG_EMISMATCH, "the model takes a node table of %lld columns and none was given", (long long)Ft);
    if (f->n_features + Ft < 1)
        return AG_ERROR(AG_EINVAL, "no feature columns: " NO_FEATURES_HINT);
    ag_fmat_t A = {0};
    AG_CHECK(ag_featurizer_transform(f, ig, &A, E));
    if (Ft == 0) {
        ag_fmat_destroy(X);
        *X = A;
        return AG_SUCCESS;
    }
    int64_t N = A.rows, Fa = A.cols;
    if (table->rows != N || table->cols != Ft) {
        ag_fmat_destroy(&A);
        return AG_ERROR(AG_EMISMATCH,
                        "the node table is %lld x %lld; the model expects %lld rows (vertices) x %lld columns",
                        (long long)table->rows, (long long)table->cols, (long long)N, (long long)Ft);
    }
    ag_fmat_t out = {0};
    ag_error_t rc = ag_fmat_init(&out, N, Fa + Ft);
    if (rc != AG_SUCCESS) {
        ag_fmat_destroy(&A);
        return rc;
    }
    for (int64_t i = 0; i < N; i++) {
        float *row = out.data + i * (Fa + Ft);
        const float *tr = table->data + i * Ft;
        memcpy(row, A.data + i * Fa, (size_t)Fa * sizeof(float));
        float *dst = row + Fa;
        if (t->norm == AG_NORM_STANDARDIZE) {
            for (int64_t j = 0; j < Ft; j++) dst[j] = (tr[j] - t->mean[j]) / t->std[j];
        } else if (t->norm == AG_NORM_L1_ROWS) {
            double s = 0.0;
            for (int64_t j = 0; j < Ft; j++) s += fabs((double)tr[j]);
            for (int64_t j = 0; j < Ft; j++) dst[j] = s > 0.0 ? (float)(tr[j] / s) : tr[j];
        } else {
            memcpy(dst, tr, (size_t)Ft * sizeof(float));
        }
    }
    ag_fmat_destroy(&A);
    ag_fmat_destroy(X);
    *X = out;
    return AG_SUCCESS;
}

/* ---- prepared sets */

void ag_prepared_destroy(ag_prepared_t *p) {
    if (!p) return;
    ag_trainset_destroy(&p->set);
    ag_featurizer_destroy(&p->featurizer);
    ag_table_norm_destroy(&p->table);
    ag_i_strings_free(p->names, p->n_out);
    ag_i_strings_free(p->excluded, p->n_excluded);
    ag_i_free(p->label_attr);
    memset(p, 0, sizeof *p);
}

/* A copy of a featuriser through its JSON form (the same path a model file takes). */
static ag_error_t featurizer_copy(ag_featurizer_t *dst, const ag_featurizer_t *src) {
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    ag_featurizer_to_json(src, &sb);
    if (sb.failed) {
        ag_strbuf_destroy(&sb);
        return AG_ERROR(AG_ENOMEM, "out of memory copying the featuriser");
    }
    ag_json_t *j = NULL;
    ag_error_t rc = ag_json_parse(sb.data, sb.len, "featuriser", &j);
    ag_strbuf_destroy(&sb);
    if (rc == AG_SUCCESS) rc = ag_featurizer_from_json(dst, j);
    ag_json_free(j);
    return rc;
}

static ag_error_t table_norm_copy(ag_table_norm_t *dst, const ag_table_norm_t *src) {
    memset(dst, 0, sizeof *dst);
    if (!src) return AG_SUCCESS;
    dst->width = src->width;
    dst->norm = src->norm;
    if (src->columns) AG_CHECK(ag_i_strings_dup(&dst->columns, (const char *const *)src->columns, src->width));
    if (src->norm != AG_NORM_STANDARDIZE || src->width == 0) return AG_SUCCESS;
    void *a, *b;
    AG_CHECK(ag_i_alloc_array(&a, src->width, sizeof(float), "node-table statistics"));
    if (ag_i_alloc_array(&b, src->width, sizeof(float), "node-table statistics") != AG_SUCCESS) {
        ag_i_free(a);
        return AG_ENOMEM;
    }
    memcpy(a, src->mean, (size_t)src->width * sizeof(float));
    memcpy(b, src->std, (size_t)src->width * sizeof(float));
    dst->mean = a;
    dst->std = b;
    return AG_SUCCESS;
}

/* Graph g as messages name it: its file, or "graph 12" when the names are ids (a bare "12: ..."
 * reads like a line number). */
static const char *graph_name(const ag_dataset_t *ds, int64_t g, char *buf, size_t n) {
    if (!ds->files) snprintf(buf, n, "graph %lld", (long long)g + 1);
    else if (ds->named_by_id) snprintf(buf, n, "graph %s", ds->files[g]);
    else return ds->files[g];
    return buf;
}

/* Re-raises the current error with a prefix naming the graph. */
static ag_error_t in_graph(ag_error_t rc, const ag_dataset_t *ds, int64_t g) {
    char msg[1024], name[64];
    snprintf(msg, sizeof msg, "%s", ag_error_message());
    return AG_ERROR(rc, "%s: %s", graph_name(ds, g, name, sizeof name), msg);
}

/* Featurises every graph of a dataset into the set's examples. */
static ag_error_t featurize_all(ag_prepared_t *p, const ag_dataset_t *ds) {
    for (int64_t g = 0; g < ds->n_graphs; g++) {
        ag_example_t *ex = &p->set.examples[g];
        ag_error_t rc = ag_inputs_featurize(&p->featurizer, NULL, &ds->graphs[g], NULL, &ex->X, &ex->E);
        if (rc == AG_SUCCESS && ex->X.cols != p->featurizer.n_features)
            rc = AG_ERROR(AG_EMISMATCH, "%lld feature columns instead of %lld", (long long)ex->X.cols,
                          (long long)p->featurizer.n_features);
        if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&ex->graph, &ds->graphs[g]);
        if (rc != AG_SUCCESS) return in_graph(rc, ds, g);
    }
    return AG_SUCCESS;
}

ag_task_t ag_task_infer(const ag_targets_t *t) {
    int all_binary = 1;
    for (int64_t j = 0; j < t->n_tasks; j++) all_binary &= t->kinds[j] == AG_TASK_BINARY;
    if (t->n_tasks > 1) return all_binary ? AG_TASK_GRAPH_MULTITASK : AG_TASK_GRAPH_REGRESSION;
    if (t->n_tasks == 1 && (t->kinds[0] == AG_TASK_BINARY || t->kinds[0] == AG_TASK_MULTICLASS))
        return AG_TASK_GRAPH_CLASSIFICATION;
    if (t->kinds_given) return AG_TASK_GRAPH_REGRESSION; /* numbers by their source's meaning */
    /* A numeric column of few integer values is a class label (0..9, or 1, 2, 3). */
    double seen[11];
    int n_seen = 0;
    for (int64_t g = 0; g < t->n_graphs; g++) {
        float v = t->y.data[g * t->n_tasks];
        if (isnan(v)) continue;
        if (v != floorf(v)) return AG_TASK_GRAPH_REGRESSION;
        int k = 0;
        while (k < n_seen && seen[k] != v) k++;
        if (k == n_seen) {
            if (n_seen == 10) return AG_TASK_GRAPH_REGRESSION;
            seen[n_seen++] = v;
        }
    }
    return n_seen >= 2 ? AG_TASK_GRAPH_CLASSIFICATION : AG_TASK_GRAPH_REGRESSION;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* " (NAME, NAME, ...)": the classes a model knows, when they fit in n (a ", ..." ends a cut list). */
static void class_list(const char *const *names, int64_t n_names, char *buf, size_t n) {
    size_t len = (size_t)snprintf(buf, n, " (");
    for (int64_t c = 0; c < n_names; c++) {
        int w = snprintf(buf + len, n - len, "%s'%s'", c ? ", " : "", names[c]);
        if (w < 0 || (size_t)w + len + 6 >= n) {
            snprintf(buf + len, n - len, c ? ", ..." : "...");
            len = strlen(buf);
            break;
        }
        len += (size_t)w;
    }
    snprintf(buf + len, n - len, ")");
}

/* The class name of graph g's value in column 0 ("" when missing). */
static void class_string(const ag_targets_t *t, int64_t g, char *buf, size_t n) {
    float v = t->y.data[g * t->n_tasks];
    if (isnan(v)) buf[0] = 0;
    else if (t->kinds[0] == AG_TASK_MULTICLASS) snprintf(buf, n, "%s", t->classes[0][(int64_t)v]);
    else snprintf(buf, n, "%.17g", (double)v);
}

/* Lays out the targets of a graph task; names given (a model's) or built from the data. */
static ag_error_t graph_targets(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task, const char *const *names,
                                int64_t n_names) {
    const ag_targets_t *t = &ds->targets;
    int64_t G = ds->n_graphs, T = t->n_tasks;
    /* the table is read row by graph: one of another size would be read past its end */
    if (T > 0 && (t->n_graphs != G || t->y.rows != G || t->y.cols != T || (G > 0 && !t->y.data)))
        return AG_ERROR(AG_EMISMATCH, "the targets are a %lld x %lld table for %lld graphs and %lld tasks; the "
                        "dataset has %lld graphs", (long long)t->y.rows, (long long)t->y.cols, (long long)t->n_graphs,
                        (long long)T, (long long)G);
    if (task == AG_TASK_GRAPH_CLASSIFICATION) {
        if (T != 1)
            return AG_ERROR(AG_EINVAL,
                            "graph classification takes one target column, not %lld (choose one: --target COLUMN, "
                            "or a one-column target matrix)", (long long)T);
        char **built = NULL;
        int64_t n_built = 0;
        if (!names) {
            if (t->kinds[0] == AG_TASK_MULTICLASS) {
                AG_CHECK(ag_i_strings_dup(&built, (const char *const *)t->classes[0], t->n_classes[0]));
                n_built = t->n_classes[0];
            } else {
                double *vals = NULL;
                AG_CHECK(ag_i_alloc_array((void **)&vals, G, sizeof(double), "class values"));
                int64_t n = 0;
                for (int64_t g = 0; g < G; g++) {
                    float v = t->y.data[g * T];
                    if (!isnan(v) && v != floorf(v)) {
                        /* measurements, not class codes: one class per distinct value would be nonsense */
                        ag_i_free(vals);
                        char where[64];
                        return AG_ERROR(AG_EVALUE, "graph classification needs class labels: target '%s' holds "
                                        "the non-integer %g (%s); train it as graph-regression", t->tasks[0],
                                        (double)v,
                                        ag_i_item_name((const char *const *)t->files, "graph", g, where, sizeof where));
                    }
                    if (!isnan(v)) vals[n++] = v;
                }
                qsort(vals, (size_t)n, sizeof(double), cmp_double);
                int64_t u = 0;
                for (int64_t i = 0; i < n; i++)
                    if (i == 0 || vals[i] != vals[u - 1]) vals[u++] = vals[i];
                if (u < 2) {
                    /* one value in every graph: a model of it would learn a constant */
                    double only = u ? vals[0] : 0.0;
                    ag_i_free(vals);
                    return u == 0 ? AG_ERROR(AG_EVALUE, "target '%s' has no value in any graph", t->tasks[0])
                                  : AG_ERROR(AG_EVALUE, "target '%s' has fewer than 2 classes: every graph "
                                             "with a value has %g", t->tasks[0], only);
                }
                ag_error_t rc = ag_i_alloc_array((void **)&built, u, sizeof(char *), "class names");
                for (int64_t i = 0; i < u && rc == AG_SUCCESS; i++) {
                    char buf[64];
                    snprintf(buf, sizeof buf, "%.17g", vals[i]);
                    if (!(built[i] = ag_i_strdup(buf))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
                    n_built = i + 1;
                }
                ag_i_free(vals);
                if (rc != AG_SUCCESS) {
                    ag_i_strings_free(built, n_built);
                    return rc;
                }
                n_built = u;
            }
            if (n_built < 2) {
                ag_i_strings_free(built, n_built);
                return AG_ERROR(AG_EVALUE, "target '%s' has fewer than 2 classes", t->tasks[0]);
            }
            names = (const char *const *)built;
            n_names = n_built;
        }
        p->set.n_classes = n_names;
        ag_error_t rc = ag_trainset_resize(&p->set, G, G, 1);
        for (int64_t g = 0; g < G && rc == AG_SUCCESS; g++) {
            char buf[512];
            class_string(t, g, buf, sizeof buf);
            if (!buf[0]) continue;
            int64_t c = 0;
            while (c < n_names && strcmp(names[c], buf) != 0) c++;
            if (c == n_names) {
                char name[64], known[256] = "";
                class_list(names, n_names, known, sizeof known);
                /* a number that is no whole one (held as float32: shown to float32's digits) is a
                 * measurement, not a class: most likely a regression column named by mistake */
                char *end;
                const double x = strtod(buf, &end);
                const int fraction = end != buf && *end == '\0' && isfinite(x) && x != floor(x);
                if (fraction) snprintf(buf, sizeof buf, "%.9g", x);
                rc = AG_ERROR(AG_EVALUE, "%s: class '%s' of target '%s' is not one of the model's %lld classes%s%s",
                              graph_name(ds, g, name, sizeof name), buf, t->tasks[0], (long long)n_names, known,
                              fraction ? "; a fractional number is a measurement: is it a regression column, while "
                                         "the model classifies?" : "");
            } else {
                p->set.targets[g] = (float)c;
            }
        }
        if (rc == AG_SUCCESS) rc = ag_i_strings_dup(&p->names, names, n_names);
        if (rc == AG_SUCCESS) p->n_out = n_names;
        ag_i_strings_free(built, n_built);
        return rc;
    }
    if (names) {
        if (n_names != T)
            return AG_ERROR(AG_EMISMATCH, "the data have %lld target columns and the model %lld", (long long)T,
                            (long long)n_names);
        for (int64_t j = 0; j < T; j++)
            if (strcmp(names[j], t->tasks[j]) != 0)
                return AG_ERROR(AG_EMISMATCH, "target column %lld is '%s'; the model expects '%s'", (long long)j + 1,
                                t->tasks[j], names[j]);
    }
    /* A column empty in every graph teaches nothing and scores nan: refused for training, as a
     * lone target is above (a model's evaluation data may lack a task's labels) */
    for (int64_t j = 0; j < T && !names; j++) {
        int64_t g = 0;
        while (g < G && isnan(t->y.data[g * T + j])) g++;
        if (g == G)
            return AG_ERROR(AG_EVALUE, "target '%s' has no value in any graph: leave it out of the targets",
                            t->tasks[j]);
    }
    for (int64_t j = 0; j < T; j++) {
        const int multi = task == AG_TASK_GRAPH_MULTITASK && t->kinds[j] != AG_TASK_BINARY;
        if (!multi && !(task == AG_TASK_GRAPH_REGRESSION && t->kinds[j] == AG_TASK_MULTICLASS)) continue;
        /* the first value that does not fit, and where, so that the table can be checked; the data
         * are at fault as much as --task, and a node task's non-numeric target is input too (exit 3) */
        int64_t g = 0;
        float v = NAN;
        for (; g < G; g++) {
            v = t->y.data[g * T + j];
            if (!isnan(v) && (t->kinds[j] == AG_TASK_MULTICLASS || (v != 0.0f && v != 1.0f))) break;
        }
        char value[160] = "", name[64];
        if (g < G && t->kinds[j] == AG_TASK_MULTICLASS)
            snprintf(value, sizeof value, " ('%s' for %s)", t->classes[j][(int64_t)v], graph_name(ds, g, name, sizeof name));
        else if (g < G)
            snprintf(value, sizeof value, " (%g for %s)", (double)v, graph_name(ds, g, name, sizeof name));
        if (multi)
            return AG_ERROR(AG_EVALUE, "multi-task classification needs 0/1 targets; column '%s' is %s%s", t->tasks[j],
                            ag_task_kind_name(t->kinds[j]), value);
        return AG_ERROR(AG_EVALUE, "regression needs numeric targets; column '%s' holds strings%s: "
                        "graph-classification takes them as classes", t->tasks[j], value);
    }
    AG_CHECK(ag_trainset_resize(&p->set, G, G, T));
    memcpy(p->set.targets, t->y.data, (size_t)(G * T) * sizeof(float));
    AG_CHECK(ag_i_strings_dup(&p->names, (const char *const *)t->tasks, T));
    p->n_out = T;
    return AG_SUCCESS;
}

static ag_error_t check_graph_task(ag_task_t task) {
    if (!ag_task_is_graph_level(task))
        return AG_ERROR(AG_EINVAL, "a dataset of graphs needs a graph task, not %s", ag_task_name(task));
    return AG_SUCCESS;
}

/* The node-table column the last ag_prepared_from_* call on this thread refused
 * (check_table_copies), and why, for ag_prepared_refused_column() and ag_prepared_refused_reason(). */
static _Thread_local int64_t refused_column = -1;
static _Thread_local const char *refused_reason = "";
static const char mirrors_labels[] = "mirrors the labels (one value per class on the labelled vertices) and cannot "
                                     "be a feature: the model would read its answer from it; remove it from the table";
static const char copies_target[] = "copies the target (the same values, or the same in another unit, on the vertices "
                                    "with one) and cannot be a feature: the model would read its answer from it; "
                                    "remove it from the table";

int64_t ag_prepared_refused_column(void) { return refused_column; }
const char *ag_prepared_refused_reason(void) { return refused_reason; }

/* The opening every ag_prepared_from_* shares: p emptied and set for task (so that destroying it is
 * always safe), then args_ok checked; fn and what name the call and its arguments. */
static ag_error_t prepared_begin(ag_prepared_t *p, ag_task_t task, int args_ok, const char *fn, const char *what) {
    refused_column = -1;
    refused_reason = "";
    if (!p) return AG_ERROR(AG_EINVAL, "%s: NULL output", fn);
    memset(p, 0, sizeof *p);
    ag_trainset_init(&p->set, task);
    if (!args_ok) return AG_ERROR(AG_EINVAL, "%s: NULL %s", fn, what);
    return AG_SUCCESS;
}

ag_error_t ag_prepared_from_graphs(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task,
                                   const ag_featurizer_config_t *cfg, const int64_t *fit_idx, int64_t n_fit) {
    AG_CHECK(prepared_begin(p, task, ds && cfg, "ag_prepared_from_graphs", "dataset or configuration"));
    AG_CHECK(check_graph_task(task));
    if (ds->n_graphs < 1) return AG_ERROR(AG_EINVAL, "the dataset has no graphs");
    if (!fit_idx) n_fit = ds->n_graphs;
    if (n_fit < 1) return AG_ERROR(AG_EINVAL, "no graphs to fit the featuriser on");
    const igraph_t **fit = NULL;
    char **names = NULL; /* (n_fit) the graphs as messages name them, not by their place in the fit list */
    ag_error_t rc = ag_i_alloc_array((void **)&fit, n_fit, sizeof(*fit), "graph list");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&names, n_fit, sizeof(*names), "graph names");
    for (int64_t i = 0; i < n_fit && rc == AG_SUCCESS; i++) {
        int64_t g = fit_idx ? fit_idx[i] : i;
        char buf[64];
        if (g < 0 || g >= ds->n_graphs) rc = AG_ERROR(AG_EINVAL, "graph index %lld out of range", (long long)g);
        else if (!(names[i] = ag_i_strdup(graph_name(ds, g, buf, sizeof buf))))
            rc = AG_ERROR(AG_ENOMEM, "out of memory copying graph names");
        else fit[i] = &ds->graphs[g];
    }
    if (rc == AG_SUCCESS) rc = ag_featurizer_fit_named(&p->featurizer, cfg, fit, (const char *const *)names, n_fit);
    for (int64_t i = 0; names && i < n_fit; i++) ag_i_free(names[i]);
    ag_i_free(names);
    ag_i_free(fit);
    /* Said here, of the dataset, rather than by the first graph featurised, whose name would make it
     * look like that graph's fault. */
    if (rc == AG_SUCCESS && p->featurizer.n_features < 1)
        rc = AG_ERROR(AG_EINVAL,
                      "no feature columns: the %lld graphs the features are fitted on have no usable vertex "
                      "attribute; " NO_FEATURES_HINT,
                      (long long)n_fit);
    if (rc == AG_SUCCESS) rc = graph_targets(p, ds, task, NULL, 0);
    if (rc == AG_SUCCESS) rc = featurize_all(p, ds);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}

ag_error_t ag_prepared_from_graphs_with(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task,
                                        const ag_featurizer_t *f, const char *const *names, int64_t n_names) {
    AG_CHECK(prepared_begin(p, task, ds && f, "ag_prepared_from_graphs_with", "dataset or featuriser"));
    AG_CHECK(check_graph_task(task));
    ag_error_t rc = featurizer_copy(&p->featurizer, f);
    if (rc == AG_SUCCESS) rc = graph_targets(p, ds, task, names, n_names);
    if (rc == AG_SUCCESS) rc = featurize_all(p, ds);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}

/* ---- node tasks */

/* Another attribute mirrors the labels if its values map one-to-one onto the classes over the
 * labelled vertices (karate's club_name beside club, Cora's label beside subject): a feature that
 * would hand the model the answer. Only the labelled vertices count: a mirror may hold a value
 * of its own on the unlabelled ones ("unknown", 7), which the labels cannot show. The bijection
 * must also be seen on more vertices than it has classes, so that some value repeats: over a
 * handful of labelled vertices any attribute with a value per vertex (an id, an age) would pass. */
static int mirrors(const ag_labels_t *lab, const ag_labels_t *other) {
    if (lab->n_classes < 2 || other->n_classes < 2) return 0;
    int32_t *fwd = ag_i_malloc((size_t)lab->n_classes * sizeof *fwd);    /* (C) the other's value per class */
    int32_t *back = ag_i_malloc((size_t)other->n_classes * sizeof *back); /* (the other's classes) class per value */
    if (!fwd || !back) {
        ag_i_free(fwd);
        ag_i_free(back);
        return -1;
    }
    for (int64_t c = 0; c < lab->n_classes; c++) fwd[c] = -1;
    for (int64_t c = 0; c < other->n_classes; c++) back[c] = -1;
    int64_t both = 0, seen = 0;
    int m = 1;
    for (int64_t v = 0; v < lab->n && m; v++) {
        int32_t a = lab->y[v], b = other->y[v];
        if (a < 0) continue;
        if (b < 0 || (fwd[a] >= 0 && fwd[a] != b) || (back[b] >= 0 && back[b] != a)) m = 0;
        else {
            if (fwd[a] < 0) seen++;
            fwd[a] = b;
            back[b] = a;
            both++;
        }
    }
    ag_i_free(fwd);
    ag_i_free(back);
    return m && seen >= 2 && both > seen;
}

ag_error_t ag_i_fit_excluding(ag_prepared_t *p, const ag_featurizer_config_t *cfg, const igraph_t *ig) {
    /* a name listed on purpose is not quietly dropped, nor used: the model would read its answer
     * from it (the label itself is refused before, in its own words) */
    if (cfg->vertex_select == AG_SELECT_LIST)
        for (int64_t k = 0; k < cfg->n_vertex_attrs; k++)
            for (int64_t i = 0; i < p->n_excluded; i++)
                if (cfg->vertex_attrs[k] && !strcmp(cfg->vertex_attrs[k], p->excluded[i]))
                    return AG_ERROR(AG_EATTR, p->set.task == AG_TASK_NODE_REGRESSION
                                    ? "vertex attribute '%s' copies the target (the same values, or the same in "
                                      "another unit, on the vertices with one) and cannot be a feature: the model "
                                      "would read its answer from it"
                                    : "vertex attribute '%s' mirrors the labels (one value per class on the "
                                      "labelled vertices) and cannot be a feature: the model would read its answer "
                                      "from it", p->excluded[i]);
    const char **excl = NULL; /* (the configuration's exclusions, then p->excluded) */
    AG_CHECK(ag_i_alloc_array((void **)&excl, cfg->n_exclude + p->n_excluded + 1, sizeof(char *), "exclusions"));
    ag_featurizer_config_t c = *cfg;
    for (int64_t i = 0; i < cfg->n_exclude; i++) excl[i] = cfg->exclude[i];
    for (int64_t i = 0; i < p->n_excluded; i++) excl[cfg->n_exclude + i] = p->excluded[i];
    c.exclude = excl;
    c.n_exclude = cfg->n_exclude + p->n_excluded;
    ag_error_t rc = ag_featurizer_fit(&p->featurizer, &c, &ig, 1);
    ag_i_free(excl);
    return rc;
}

/* p->excluded sized for every attribute of s, holding first (the target attribute) unless NULL. */
static ag_error_t exclusions_begin(ag_prepared_t *p, const ag_graph_summary_t *s, const char *first) {
    AG_CHECK(ag_i_alloc_array((void **)&p->excluded, s->n_attrs + 1, sizeof(char *), "exclusions"));
    if (first && !(p->excluded[p->n_excluded++] = ag_i_strdup(first))) return AG_ERROR(AG_ENOMEM, "out of memory");
    return AG_SUCCESS;
}

ag_error_t ag_i_find_excluded(ag_prepared_t *p, const igraph_t *ig, const char *label_attr, const ag_labels_t *lab) {
    ag_graph_summary_t s;
    AG_CHECK(ag_graph_summarize(ig, &s));
    ag_error_t rc = exclusions_begin(p, &s, label_attr);
    for (int64_t i = 0; i < s.n_attrs && rc == AG_SUCCESS; i++) {
        const ag_attr_summary_t *a = &s.attrs[i];
        if (a->kind != AG_ATTR_VERTEX || (label_attr && !strcmp(a->name, label_attr))) continue;
        ag_labels_t other;
        ag_error_t lrc = ag_labels_from_attr(&other, ig, a->name, NULL, 0);
        if (lrc == AG_ENOMEM) {
            rc = lrc;
            break;
        }
        if (lrc != AG_SUCCESS) { /* not usable as labels (e.g. all missing): cannot mirror them */
            ag_error_clear();
            continue;
        }
        int m = mirrors(lab, &other);
        ag_labels_destroy(&other);
        if (m < 0) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        else if (m && !(p->excluded[p->n_excluded++] = ag_i_strdup(a->name))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
    }
    ag_graph_summary_destroy(&s);
    return rc;
}

static ag_error_t node_targets(ag_prepared_t *p, const ag_labels_t *lab, int64_t N) {
    p->set.n_classes = lab->n_classes;
    AG_CHECK(ag_trainset_resize(&p->set, 1, N, 1));
    for (int64_t v = 0; v < N; v++) p->set.targets[v] = lab->y[v] >= 0 ? (float)lab->y[v] : NAN;
    AG_CHECK(ag_i_strings_dup(&p->names, (const char *const *)lab->classes, lab->n_classes));
    p->n_out = lab->n_classes;
    return AG_SUCCESS;
}

static ag_error_t node_example(ag_prepared_t *p, const igraph_t *ig, const ag_fmat_t *table) {
    ag_example_t *ex = &p->set.examples[0];
    AG_CHECK(ag_inputs_featurize(&p->featurizer, &p->table, ig, table, &ex->X, &ex->E));
    return ag_graph_from_igraph(&ex->graph, ig);
}

/* Whether x (N) copies the targets y (N, NaN where a vertex has none) on the
 * vertices with one: equal as the model holds the targets (written through float32, still a
 * copy), or the target in another unit or origin (cents, degrees Fahrenheit): correlation 1 to
 * six digits over ten or more vertices, which no honest feature reaches by chance. */
static int value_copy(const double *x, const float *y, int64_t N) {
    int64_t same = 0, n = 0;
    double sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (int64_t v = 0; v < N; v++) {
        const double xv = x[v], yv = y[v];
        if (isnan(yv)) continue;
        if (isnan(xv)) return 0;
        same += (float)xv == y[v];
        n++;
        sx += xv, sy += yv, sxx += xv * xv, syy += yv * yv, sxy += xv * yv;
    }
    if (n >= 2 && same == n) return 1;
    if (n < 10) return 0;
    const double cxx = sxx - sx * sx / (double)n, cyy = syy - sy * sy / (double)n;
    const double cxy = sxy - sx * sy / (double)n;
    return cxx > 0.0 && cyy > 0.0 && fabs(cxy) / sqrt(cxx * cyy) >= 1.0 - 1e-6;
}

/* Whether column j of the node table T (N x F) mirrors the classes y (N, -1 unlabelled; C
 * classes): one value per class over the labelled vertices, a different one for each, with more
 * labelled vertices than classes seen (some value repeats): the rule for vertex attributes. */
static int column_mirrors(const ag_fmat_t *T, int64_t j, const int32_t *y, int64_t C, float *per_class) {
    for (int64_t c = 0; c < C; c++) per_class[c] = NAN;
    int64_t labelled = 0, seen = 0;
    for (int64_t v = 0; v < T->rows; v++) {
        if (y[v] < 0) continue;
        const float x = T->data[v * T->cols + j];
        if (isnan(x)) return 0;
        if (isnan(per_class[y[v]])) {
            per_class[y[v]] = x;
            seen++;
        } else if (per_class[y[v]] != x) {
            return 0;
        }
        labelled++;
    }
    for (int64_t a = 0; a < C; a++)
        for (int64_t b = a + 1; b < C; b++)
            if (!isnan(per_class[a]) && per_class[a] == per_class[b]) return 0;
    return seen >= 2 && labelled > seen;
}

/* ag_i_check_table_copies, and *refused the column it refuses (-1: none). */
static ag_error_t table_copies(const ag_fmat_t *T, const int32_t *classes, int64_t C, const float *y,
                               int64_t *refused) {
    *refused = -1;
    if (!T || T->cols == 0) return AG_SUCCESS;
    float *per_class = NULL; /* (C) */
    double *col = NULL;      /* (N) */
    const int lab = classes != NULL;
    if (lab) AG_CHECK(ag_i_alloc_array((void **)&per_class, C > 0 ? C : 1, sizeof(float), "classes"));
    else AG_CHECK(ag_i_alloc_array((void **)&col, T->rows > 0 ? T->rows : 1, sizeof(double), "table column"));
    ag_error_t rc = AG_SUCCESS;
    for (int64_t j = 0; j < T->cols && rc == AG_SUCCESS; j++) {
        int hit;
        if (lab) {
            hit = column_mirrors(T, j, classes, C, per_class);
        } else {
            for (int64_t v = 0; v < T->rows; v++) col[v] = T->data[v * T->cols + j];
            hit = value_copy(col, y, T->rows);
        }
        if (hit) {
            *refused = j;
            rc = AG_ERROR(AG_EATTR, "node-table column %lld (of %lld) %s", (long long)j + 1, (long long)T->cols,
                          lab ? mirrors_labels : copies_target);
        }
    }
    ag_i_free(per_class);
    ag_i_free(col);
    return rc;
}

ag_error_t ag_i_check_table_copies(const ag_fmat_t *T, const int32_t *classes, int64_t C, const float *y) {
    int64_t refused;
    return table_copies(T, classes, C, y, &refused);
}

/* The same for an ag_prepared_from_* call, recording the column refused and why for its caller. */
static ag_error_t check_table_copies(const ag_fmat_t *T, const int32_t *classes, int64_t C, const float *y) {
    ag_error_t rc = table_copies(T, classes, C, y, &refused_column);
    refused_reason = refused_column < 0 ? "" : classes ? mirrors_labels : copies_target;
    return rc;
}

static ag_error_t prepare_nodes(ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                                const char *const *classes, int64_t n_classes, const ag_fmat_t *table,
                                ag_feature_norm_t table_norm, const ag_featurizer_config_t *cfg) {
    ag_labels_t lab;
    AG_CHECK(ag_labels_from_attr(&lab, ig, label_attr, classes, n_classes));
    ag_error_t rc = AG_SUCCESS;
    if (lab.n_classes == 0)
        rc = AG_ERROR(AG_EVALUE, "label attribute '%s' labels no vertex (every value is empty or missing): a "
                      "classifier needs 2 or more classes", label_attr);
    else if (lab.n_classes == 1) {
        char shown[128];
        rc = AG_ERROR(AG_EVALUE, "label attribute '%s' has one class, '%s', on every labelled vertex: a classifier "
                      "needs 2 or more", label_attr, ag_i_utf8_show(lab.classes[0], shown, sizeof shown));
    }
    if (rc == AG_SUCCESS && !(p->label_attr = ag_i_strdup(label_attr))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
    if (rc == AG_SUCCESS) rc = ag_i_find_excluded(p, ig, label_attr, &lab);
    if (rc == AG_SUCCESS && cfg->vertex_select == AG_SELECT_LIST)
        for (int64_t i = 0; i < cfg->n_vertex_attrs && rc == AG_SUCCESS; i++)
            if (!strcmp(cfg->vertex_attrs[i], label_attr))
                rc = AG_ERROR(AG_EATTR, "vertex attribute '%s' holds the labels and cannot be a feature", label_attr);
    if (rc == AG_SUCCESS) rc = check_table_copies(table, lab.y, lab.n_classes, NULL);
    if (rc == AG_SUCCESS) rc = ag_i_fit_excluding(p, cfg, ig);
    if (rc == AG_SUCCESS && table) rc = ag_table_norm_fit(&p->table, table, table_norm);
    if (rc == AG_SUCCESS) rc = node_targets(p, &lab, lab.n);
    if (rc == AG_SUCCESS) rc = node_example(p, ig, table);
    ag_labels_destroy(&lab);
    return rc;
}

ag_error_t ag_prepared_from_nodes(ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                                  const char *const *classes, int64_t n_classes, const ag_fmat_t *table,
                                  ag_feature_norm_t table_norm, const ag_featurizer_config_t *cfg) {
    AG_CHECK(prepared_begin(p, AG_TASK_NODE_CLASSIFICATION, ig && label_attr && cfg,
                            "ag_prepared_from_nodes", "graph, label attribute or configuration"));
    ag_error_t rc = prepare_nodes(p, ig, label_attr, classes, n_classes, table, table_norm, cfg);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}

ag_error_t ag_prepared_from_nodes_with(ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                                       const ag_featurizer_t *f, const ag_table_norm_t *t, const ag_fmat_t *table,
                                       const char *const *classes, int64_t n_classes) {
    AG_CHECK(prepared_begin(p, AG_TASK_NODE_CLASSIFICATION, ig && label_attr && f,
                            "ag_prepared_from_nodes_with", "graph, label attribute or featuriser"));
    ag_labels_t lab;
    AG_CHECK(ag_labels_from_attr(&lab, ig, label_attr, classes, n_classes));
    ag_error_t rc = featurizer_copy(&p->featurizer, f);
    if (rc == AG_SUCCESS) rc = table_norm_copy(&p->table, t);
    if (rc == AG_SUCCESS && !(p->label_attr = ag_i_strdup(label_attr))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
    if (rc == AG_SUCCESS) rc = node_targets(p, &lab, lab.n);
    if (rc == AG_SUCCESS) rc = node_example(p, ig, table);
    ag_labels_destroy(&lab);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}

/* ---- node regression */

ag_error_t ag_i_target_range_error(double x, const char *where, const char *rescale, const char *missing) {
    /* float32 would make it inf, and the target scaling with it */
    return AG_ERROR(AG_EVALUE, "%s is %g, %s the float32 range (%g) targets are held in; rescale the %s (NaN marks %s)",
                    where, x, isinf(x) ? "outside" : "beyond", (double)FLT_MAX, rescale, missing);
}

ag_error_t ag_i_check_node_value(double x, int64_t v, const char *attr) {
    if (isnan(x) || fabs(x) <= FLT_MAX) return AG_SUCCESS;
    char where[1100];
    if (attr) snprintf(where, sizeof where, "vertex %lld: target '%s'", (long long)v, attr);
    else snprintf(where, sizeof where, "vertex %lld: the value", (long long)v);
    return ag_i_target_range_error(x, where, attr ? "attribute" : "values", "an unlabelled vertex");
}

/* The numeric values of a vertex attribute as targets (NaN = unlabelled). */
static ag_error_t node_values(ag_prepared_t *p, const igraph_t *ig, const char *attr) {
    int64_t N = igraph_vcount(ig);
    igraph_attribute_type_t type;
    AG_CHECK(ag_i_attr_type(ig, IGRAPH_ATTRIBUTE_VERTEX, attr, &type));
    if (type == IGRAPH_ATTRIBUTE_UNSPECIFIED) {
        char names[256];
        return AG_ERROR(AG_EATTR, "the graph has no vertex attribute '%s' (the regression target; its vertex "
                        "attributes: %s)", attr, ag_i_attr_names(ig, IGRAPH_ATTRIBUTE_VERTEX, names, sizeof names));
    }
    if (type != IGRAPH_ATTRIBUTE_NUMERIC)
        return AG_ERROR(AG_EATTR, "vertex attribute '%s' is the regression target but is not numeric", attr);
    AG_CHECK(ag_trainset_resize(&p->set, 1, N, 1));
    igraph_vector_t y;
    AG_IGRAPH_CHECK(igraph_vector_init(&y, N), AG_ENOMEM, "vertex attribute '%s'", attr);
    ag_i_igraph_enter();
    igraph_error_t irc = igraph_cattribute_VANV(ig, attr, igraph_vss_all(), &y);
    ag_i_igraph_leave();
    ag_error_t rc = AG_SUCCESS;
    if (irc != IGRAPH_SUCCESS)
        rc = ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading vertex attribute '%s'", attr);
    int64_t labelled = 0;
    for (int64_t v = 0; v < N && rc == AG_SUCCESS; v++) {
        double x = VECTOR(y)[v];
        rc = ag_i_check_node_value(x, v, attr);
        p->set.targets[v] = (float)x;
        labelled += !isnan(x);
    }
    if (rc == AG_SUCCESS && N > 0) {
        char which[300];
        snprintf(which, sizeof which, "target '%.256s'", attr);
        rc = ag_i_check_target_spread(&VECTOR(y)[0], N, which);
    }
    igraph_vector_destroy(&y);
    if (rc == AG_SUCCESS && labelled == 0)
        rc = AG_ERROR(AG_EVALUE, "target '%s' is missing (NaN) on every vertex", attr);
    if (rc == AG_SUCCESS) rc = ag_i_strings_dup(&p->names, &attr, 1);
    if (rc == AG_SUCCESS) p->n_out = 1;
    if (rc == AG_SUCCESS && !(p->label_attr = ag_i_strdup(attr))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
    return rc;
}

ag_error_t ag_i_find_value_copies(ag_prepared_t *p, const igraph_t *ig, const char *skip, const float *y, int64_t N) {
    ag_graph_summary_t s;
    AG_CHECK(ag_graph_summarize(ig, &s));
    ag_error_t rc = exclusions_begin(p, &s, skip);
    igraph_vector_t x; /* (N) one attribute's values */
    int have_x = 0;
    if (rc == AG_SUCCESS) {
        ag_i_igraph_enter();
        const igraph_error_t irc = igraph_vector_init(&x, 0);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS) rc = AG_ERROR(AG_ENOMEM, "out of memory in igraph");
        else have_x = 1;
    }
    for (int64_t i = 0; i < s.n_attrs && rc == AG_SUCCESS; i++) {
        const ag_attr_summary_t *a = &s.attrs[i];
        if (a->kind != AG_ATTR_VERTEX || a->type != AG_ATTR_NUMERIC || (skip && !strcmp(a->name, skip))) continue;
        ag_i_igraph_enter();
        const igraph_error_t irc = igraph_cattribute_VANV(ig, a->name, igraph_vss_all(), &x);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS) {
            rc = ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading vertex attribute '%s'", a->name);
            break;
        }
        if (value_copy(&VECTOR(x)[0], y, N) && !(p->excluded[p->n_excluded++] = ag_i_strdup(a->name)))
            rc = AG_ERROR(AG_ENOMEM, "out of memory");
    }
    if (have_x) igraph_vector_destroy(&x);
    ag_graph_summary_destroy(&s);
    return rc;
}

static ag_error_t prepare_node_values(ag_prepared_t *p, const igraph_t *ig, const char *target_attr,
                                      const ag_fmat_t *table, ag_feature_norm_t table_norm,
                                      const ag_featurizer_config_t *cfg) {
    AG_CHECK(node_values(p, ig, target_attr));
    if (cfg->vertex_select == AG_SELECT_LIST)
        for (int64_t i = 0; i < cfg->n_vertex_attrs; i++)
            if (!strcmp(cfg->vertex_attrs[i], target_attr))
                return AG_ERROR(AG_EATTR, "vertex attribute '%s' is the target and cannot be a feature", target_attr);
    AG_CHECK(ag_i_find_value_copies(p, ig, target_attr, p->set.targets, igraph_vcount(ig)));
    AG_CHECK(check_table_copies(table, NULL, 0, p->set.targets));
    ag_error_t rc = ag_i_fit_excluding(p, cfg, ig);
    if (rc == AG_SUCCESS && table) rc = ag_table_norm_fit(&p->table, table, table_norm);
    if (rc == AG_SUCCESS) rc = node_example(p, ig, table);
    return rc;
}

ag_error_t ag_prepared_from_node_values(ag_prepared_t *p, const igraph_t *ig, const char *target_attr,
                                        const ag_fmat_t *table, ag_feature_norm_t table_norm,
                                        const ag_featurizer_config_t *cfg) {
    AG_CHECK(prepared_begin(p, AG_TASK_NODE_REGRESSION, ig && target_attr && cfg,
                            "ag_prepared_from_node_values", "graph, target attribute or configuration"));
    ag_error_t rc = prepare_node_values(p, ig, target_attr, table, table_norm, cfg);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}

ag_error_t ag_prepared_from_node_values_with(ag_prepared_t *p, const igraph_t *ig, const char *target_attr,
                                             const ag_featurizer_t *f, const ag_table_norm_t *t,
                                             const ag_fmat_t *table) {
    AG_CHECK(prepared_begin(p, AG_TASK_NODE_REGRESSION, ig && target_attr && f,
                            "ag_prepared_from_node_values_with", "graph, target attribute or featuriser"));
    ag_error_t rc = node_values(p, ig, target_attr);
    if (rc == AG_SUCCESS) rc = featurizer_copy(&p->featurizer, f);
    if (rc == AG_SUCCESS) rc = table_norm_copy(&p->table, t);
    if (rc == AG_SUCCESS) rc = node_example(p, ig, table);
    if (rc != AG_SUCCESS) ag_prepared_destroy(p);
    return rc;
}
