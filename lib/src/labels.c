/*
 * labels.c: node labels and graph targets (see labels.h).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/labels.h"
#include "attr_type.h"
#include "csv.h"
#include "internal.h"

/* Records the first failure and jumps to the cleanup at `done`. */
#define TRY(expr) do { rc = (expr); if (rc != AG_SUCCESS) goto done; } while (0)

/* ---- Class lists: values -> sorted (key, class index) pairs -> binary search. */

typedef struct ckey_t {
    double num;
    const char *str;
    int32_t cls;
} ckey_t;

static int cmp_ckey_num(const void *a, const void *b) {
    double x = ((const ckey_t *)a)->num, y = ((const ckey_t *)b)->num;
    return (x > y) - (x < y);
}

static int cmp_ckey_str(const void *a, const void *b) {
    return strcmp(((const ckey_t *)a)->str, ((const ckey_t *)b)->str);
}

/* A column of values: numbers (NaN = missing) or strings (NULL or "" = missing). */
typedef struct column_t {
    int numeric;
    const double *num;      /* (n) */
    const char *const *str; /* (n) */
    int64_t n;
} column_t;

static int is_missing(const column_t *c, int64_t i) {
    return c->numeric ? isnan(c->num[i]) : (!c->str[i] || c->str[i][0] == '\0');
}

/* The given classes as messages show them: "the 3 classes given: 'a', 'b', 'c'", five at most. */
static const char *given_list(const char *const *given, int64_t n, char *buf, size_t cap) {
    int len = snprintf(buf, cap, "the %lld class%s given: ", (long long)n, n == 1 ? "" : "es");
    for (int64_t k = 0; k < n && k < 5 && len > 0 && (size_t)len < cap; k++)
        len += snprintf(buf + len, cap - (size_t)len, "%s'%s'", k ? ", " : "", given[k]);
    if (len > 0 && (size_t)len < cap && n > 5) snprintf(buf + len, cap - (size_t)len, ", ...");
    return buf;
}

/* Maps every value of col to a class index (-1 if missing) and returns the class names.
 * `what` names the source and `item` the kind of row ("vertex", "graph") in messages; row_names
 * (or NULL) names each row (a graph's file) instead of its kind and index. */
static ag_error_t classify(const column_t *col, const char *const *given, int64_t n_given, int32_t *out,
                           char ***names_out, int64_t *n_out, const char *what, const char *item,
                           const char *const *row_names, const igraph_t *graph) {
    ag_error_t rc = AG_SUCCESS;
    ckey_t *keys = NULL;
    char **names = NULL;
    int64_t nk = 0;
    void *p;
    *names_out = NULL;
    *n_out = 0;
    if (given) {
        TRY(ag_i_alloc_array(&p, n_given, sizeof(ckey_t), "class list"));
        keys = p;
        TRY(ag_i_alloc_array(&p, n_given, sizeof(char *), "class names"));
        names = p;
        for (int64_t k = 0; k < n_given; k++) {
            if (!given[k] || given[k][0] == '\0') {
                rc = AG_ERROR(AG_EINVAL, "%s: class %lld of the given list is empty", what, (long long)k);
                goto done;
            }
            if (!ag_utf8_valid(given[k], NULL)) {
                char shown[200];
                rc = AG_ERROR(AG_EINVAL, "%s: class '%s' of the given list is not valid UTF-8 (a model file stores class "
                              "names as UTF-8 text)", what, ag_i_utf8_show(given[k], shown, sizeof shown));
                goto done;
            }
            if (col->numeric && ag_csv_parse_double(given[k], &keys[k].num) != 0) {
                /* no value can be in such a list: the data and the list disagree (as for an unknown class);
                 * most likely another attribute than the one the classes came from */
                char list[300];
                rc = AG_ERROR(AG_EVALUE, "%s: the values are numbers but class '%s' is not (%s): is it the "
                              "attribute or column the classes came from?", what, given[k],
                              given_list(given, n_given, list, sizeof list));
                goto done;
            }
            keys[k].str = given[k];
            keys[k].cls = (int32_t)k;
            if (!(names[k] = ag_i_strdup(given[k]))) {
                rc = AG_ERROR(AG_ENOMEM, "out of memory copying class names");
                goto done;
            }
        }
        nk = n_given;
        qsort(keys, (size_t)nk, sizeof(ckey_t), col->numeric ? cmp_ckey_num : cmp_ckey_str);
        for (int64_t k = 1; k < nk; k++) {
            if ((col->numeric ? cmp_ckey_num : cmp_ckey_str)(&keys[k - 1], &keys[k]) == 0) {
                rc = AG_ERROR(AG_EINVAL, "%s: class '%s' appears twice in the given list", what, keys[k].str);
                goto done;
            }
        }
    } else {
        TRY(ag_i_alloc_array(&p, col->n, sizeof(ckey_t), "class list"));
        keys = p;
        for (int64_t i = 0; i < col->n; i++) {
            if (is_missing(col, i)) continue;
            if (col->numeric) {
                keys[nk].num = col->num[i];
            } else if (!ag_utf8_valid(col->str[i], NULL)) {
                /* class names go into the model file's JSON header: caught here, before training */
                char shown[200], row[48], own[96] = "";
                if (graph) ag_i_vertex_own_key(graph, i, own, sizeof own);
                rc = AG_ERROR(AG_EVALUE, "%s: %s%s has value '%s', which is not valid UTF-8: a model file stores "
                              "class names as UTF-8 text; convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
                              what, ag_i_item_name(row_names, item, i, row, sizeof row), own,
                              ag_i_utf8_show(col->str[i], shown, sizeof shown));
                goto done;
            } else {
                keys[nk].str = col->str[i];
            }
            nk++;
        }
        qsort(keys, (size_t)nk, sizeof(ckey_t), col->numeric ? cmp_ckey_num : cmp_ckey_str);
        int64_t u = 0;
        for (int64_t k = 0; k < nk; k++)
            if (u == 0 || (col->numeric ? cmp_ckey_num : cmp_ckey_str)(&keys[u - 1], &keys[k]) != 0)
                keys[u++] = keys[k];
        nk = u;
        if (nk > INT32_MAX) {
            rc = AG_ERROR(AG_ELIMIT, "%s: %lld classes", what, (long long)nk);
            goto done;
        }
        TRY(ag_i_alloc_array(&p, nk, sizeof(char *), "class names"));
        names = p;
        for (int64_t k = 0; k < nk; k++) {
            keys[k].cls = (int32_t)k;
            char tmp[40];
            if (col->numeric) snprintf(tmp, sizeof tmp, "%.17g", keys[k].num);
            if (!(names[k] = ag_i_strdup(col->numeric ? tmp : keys[k].str))) {
                rc = AG_ERROR(AG_ENOMEM, "out of memory copying class names");
                goto done;
            }
        }
    }
    for (int64_t i = 0; i < col->n; i++) {
        if (is_missing(col, i)) {
            out[i] = -1;
            continue;
        }
        ckey_t key = {0};
        if (col->numeric)
            key.num = col->num[i];
        else
            key.str = col->str[i];
        const ckey_t *hit = bsearch(&key, keys, (size_t)nk, sizeof(ckey_t), col->numeric ? cmp_ckey_num : cmp_ckey_str);
        if (!hit) {
            /* only a given list can miss a value: one derived from the column holds them all */
            char list[300], num[40], own[96] = "";
            if (col->numeric) snprintf(num, sizeof num, "%.17g", col->num[i]);
            if (graph) ag_i_vertex_own_key(graph, i, own, sizeof own);
            rc = AG_ERROR(AG_EVALUE, "%s: %s %lld%s has value %s%s%s, which is not a class (%s)", what, item,
                          (long long)i, own, col->numeric ? "" : "'", col->numeric ? num : col->str[i],
                          col->numeric ? "" : "'", given_list(given, n_given, list, sizeof list));
            goto done;
        }
        out[i] = hit->cls;
    }
    *names_out = names;
    *n_out = nk;
    names = NULL;
done:
    ag_i_strings_free(names, given ? n_given : nk);
    ag_i_free(keys);
    return rc;
}

/* ---- Node labels. */

void ag_labels_destroy(ag_labels_t *labels) {
    if (!labels) return;
    ag_i_free(labels->y);
    ag_i_strings_free(labels->classes, labels->n_classes);
    memset(labels, 0, sizeof *labels);
}

/* graph: the vertices' own keys for messages, or NULL */
static ag_error_t labels_from_column(ag_labels_t *labels, const column_t *col, const char *const *classes,
                                     int64_t n_classes, const char *what, const igraph_t *graph) {
    ag_error_t rc = AG_SUCCESS;
    void *p;
    if (n_classes < 0 || (n_classes > 0 && !classes)) return AG_ERROR(AG_EINVAL, "%s: bad class list", what);
    TRY(ag_i_alloc_array(&p, col->n, sizeof(int32_t), "node labels"));
    labels->y = p;
    labels->n = col->n;
    TRY(classify(col, classes, n_classes, labels->y, &labels->classes, &labels->n_classes, what, "vertex", NULL,
                 graph));
done:
    if (rc != AG_SUCCESS) ag_labels_destroy(labels);
    return rc;
}

ag_error_t ag_labels_from_strings(ag_labels_t *labels, const char *const *values, int64_t n, const char *const *classes,
                                  int64_t n_classes, const char *what) {
    memset(labels, 0, sizeof *labels);
    if (!what) what = "labels";
    if (n < 0 || (n > 0 && !values)) return AG_ERROR(AG_EINVAL, "%s: no values", what);
    column_t col = {0, NULL, values, n};
    return labels_from_column(labels, &col, classes, n_classes, what, NULL);
}

/* A vertex attribute read as a column, with the buffers that hold its values. */
typedef struct attr_column_t {
    column_t col;
    igraph_vector_t num;
    igraph_vector_bool_t flags;
    igraph_strvector_t str;
    const char **strs;
    int have_num, have_str, have_bool;
} attr_column_t;

static void attr_column_free(attr_column_t *a) {
    ag_i_free(a->strs);
    if (a->have_num) igraph_vector_destroy(&a->num);
    if (a->have_bool) igraph_vector_bool_destroy(&a->flags);
    if (a->have_str) igraph_strvector_destroy(&a->str);
    memset(a, 0, sizeof *a);
}

/* Reads vertex attribute attr (numeric, boolean as 0/1, or string) into a->col; `what` names it in
 * messages. Free with attr_column_free, also on failure. */
static ag_error_t attr_column_read(attr_column_t *a, const igraph_t *graph, const char *attr, const char *what) {
    igraph_attribute_type_t type;
    memset(a, 0, sizeof *a);
    AG_CHECK(ag_i_attr_type(graph, IGRAPH_ATTRIBUTE_VERTEX, attr, &type));
    if (type == IGRAPH_ATTRIBUTE_UNSPECIFIED) {
        char names[256];
        return AG_ERROR(AG_EATTR, "the graph has no vertex attribute '%s' (its vertex attributes: %s)", attr,
                        ag_i_attr_names(graph, IGRAPH_ATTRIBUTE_VERTEX, names, sizeof names));
    }
    int64_t n = (int64_t)igraph_vcount(graph);
    a->col = (column_t){0, NULL, NULL, n};
    if (type == IGRAPH_ATTRIBUTE_NUMERIC || type == IGRAPH_ATTRIBUTE_BOOLEAN) {
        AG_IGRAPH_CHECK(igraph_vector_init(&a->num, n), AG_ENOMEM, "%s", what);
        a->have_num = 1;
        if (type == IGRAPH_ATTRIBUTE_NUMERIC) {
            ag_i_igraph_enter();
            igraph_error_t irc = igraph_cattribute_VANV(graph, attr, igraph_vss_all(), &a->num);
            ag_i_igraph_leave();
            if (irc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading %s", what);
        } else {
            ag_i_igraph_enter();
            const igraph_error_t init = igraph_vector_bool_init(&a->flags, n);
            ag_i_igraph_leave();
            if (init != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory in igraph");
            a->have_bool = 1;
            ag_i_igraph_enter();
            igraph_error_t irc = igraph_cattribute_VABV(graph, attr, igraph_vss_all(), &a->flags);
            ag_i_igraph_leave();
            if (irc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading %s", what);
            for (int64_t v = 0; v < n; v++) VECTOR(a->num)[v] = VECTOR(a->flags)[v] ? 1.0 : 0.0;
        }
        a->col.numeric = 1;
        a->col.num = VECTOR(a->num);
    } else if (type == IGRAPH_ATTRIBUTE_STRING) {
        AG_IGRAPH_CHECK(igraph_strvector_init(&a->str, 0), AG_ENOMEM, "%s", what);
        a->have_str = 1;
        ag_i_igraph_enter();
        igraph_error_t irc = igraph_cattribute_VASV(graph, attr, igraph_vss_all(), &a->str);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS) return ag_i_igraph_error(AG_EATTR, __FILE__, __LINE__, "reading %s", what);
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, n, sizeof(char *), "label strings"));
        a->strs = p;
        for (int64_t v = 0; v < n; v++) a->strs[v] = igraph_strvector_get(&a->str, v);
        a->col.str = a->strs;
    } else {
        return AG_ERROR(AG_EATTR, "%s is neither numeric, boolean nor string", what);
    }
    return AG_SUCCESS;
}

ag_error_t ag_labels_from_attr(ag_labels_t *labels, const igraph_t *graph, const char *attr, const char *const *classes,
                               int64_t n_classes) {
    attr_column_t a;
    char what[300];
    memset(labels, 0, sizeof *labels);
    if (!graph || !attr) return AG_ERROR(AG_EINVAL, "ag_labels_from_attr: graph and attribute are required");
    snprintf(what, sizeof what, "vertex attribute '%s'", attr);
    ag_error_t rc = attr_column_read(&a, graph, attr, what);
    /* GML types a column of 0/1 with one "NA" as text: "NA" became a class of its own, trained on.
     * Only when fitting: given classes come from a model, which says what a value is. */
    if (rc == AG_SUCCESS && !classes && !a.col.numeric) {
        const int64_t word = ag_missing_word_find((const char *const *)a.col.str, a.col.n, 1);
        if (word >= 0) {
            char key[96];
            ag_i_vertex_own_key(graph, word, key, sizeof key);
            rc = AG_ERROR(AG_EVALUE, "%s: vertex %lld%s has value '%s', which is not a number, where the "
                          "attribute's other values are: an unlabelled vertex has no value, an empty string or NaN; "
                          "remove the value (GML: leave the key out of the node)", what, (long long)word, key,
                          a.col.str[word]);
        }
    }
    if (rc == AG_SUCCESS) rc = labels_from_column(labels, &a.col, classes, n_classes, what, graph);
    attr_column_free(&a);
    return rc;
}

ag_error_t ag_labels_present(const igraph_t *graph, const char *attr, unsigned char *labelled, int64_t *n_labelled) {
    attr_column_t a;
    char what[300];
    if (n_labelled) *n_labelled = 0;
    if (!graph || !attr || !labelled)
        return AG_ERROR(AG_EINVAL, "ag_labels_present: graph, attribute and output are required");
    snprintf(what, sizeof what, "vertex attribute '%s'", attr);
    ag_error_t rc = attr_column_read(&a, graph, attr, what);
    int64_t count = 0;
    for (int64_t v = 0; rc == AG_SUCCESS && v < a.col.n; v++) {
        labelled[v] = !is_missing(&a.col, v);
        count += labelled[v];
    }
    if (rc == AG_SUCCESS && n_labelled) *n_labelled = count;
    attr_column_free(&a);
    return rc;
}

/* ---- Graph targets. */

const char *ag_task_kind_name(ag_task_kind_t kind) {
    switch (kind) {
    case AG_TASK_AUTO: return "auto";
    case AG_TASK_REGRESSION: return "regression";
    case AG_TASK_BINARY: return "binary";
    case AG_TASK_MULTICLASS: return "multiclass";
    }
    return "unknown";
}

void ag_targets_options_init(ag_targets_options_t *opts) { memset(opts, 0, sizeof *opts); }

ag_error_t ag_targets_rename(ag_targets_t *t, const char *const *names, int64_t n) {
    if (!t || n != t->n_tasks)
        return AG_ERROR(AG_EMISMATCH, "ag_targets_rename: %lld names for %lld tasks", (long long)n,
                        (long long)(t ? t->n_tasks : 0));
    for (int64_t j = 0; j < n; j++)
        if (!names || !names[j] || !names[j][0])
            return AG_ERROR(AG_EINVAL, "ag_targets_rename: name %lld is missing or empty", (long long)j);
        else if (!ag_utf8_valid(names[j], NULL))
            return AG_ERROR(AG_EINVAL, "ag_targets_rename: name %lld is not valid UTF-8 (a model file stores task "
                            "names as UTF-8 text)", (long long)j);
    char **copy = NULL;
    AG_CHECK(ag_i_strings_dup(&copy, names, n));
    for (int64_t j = 0; j < n; j++) {
        ag_i_free(t->tasks[j]);
        t->tasks[j] = copy[j];
    }
    ag_i_free(copy);
    return AG_SUCCESS;
}

void ag_targets_destroy(ag_targets_t *t) {
    if (!t) return;
    for (int64_t j = 0; j < t->n_tasks; j++) {
        if (t->tasks) ag_i_free(t->tasks[j]);
        if (t->classes && t->n_classes) ag_i_strings_free(t->classes[j], t->n_classes[j]);
    }
    if (t->files)
        for (int64_t g = 0; g < t->n_graphs; g++) ag_i_free(t->files[g]);
    ag_i_free(t->tasks);
    ag_i_free(t->kinds);
    ag_i_free(t->classes);
    ag_i_free(t->n_classes);
    ag_i_free(t->files);
    ag_fmat_destroy(&t->y);
    memset(t, 0, sizeof *t);
}

static ag_error_t targets_alloc(ag_targets_t *t, int64_t g, int64_t n_tasks) {
    void *p;
    memset(t, 0, sizeof *t);
    AG_CHECK(ag_fmat_init(&t->y, g, n_tasks));
    t->n_graphs = g;
    t->n_tasks = n_tasks;
    AG_CHECK(ag_i_alloc_array(&p, n_tasks, sizeof(char *), "task names"));
    t->tasks = p;
    AG_CHECK(ag_i_alloc_array(&p, n_tasks, sizeof(ag_task_kind_t), "task kinds"));
    t->kinds = p;
    AG_CHECK(ag_i_alloc_array(&p, n_tasks, sizeof(char **), "task classes"));
    t->classes = p;
    AG_CHECK(ag_i_alloc_array(&p, n_tasks, sizeof(int64_t), "task class counts"));
    t->n_classes = p;
    return AG_SUCCESS;
}

/* Fills task column j of t->y from col, deciding (or checking) its kind. */
static ag_error_t fill_task(ag_targets_t *t, int64_t j, const column_t *col, ag_task_kind_t kind, const char *what) {
    int64_t g = col->n, T = t->n_tasks;
    const char *const *files = (const char *const *)t->files; /* (G) messages name a row by its file */
    float *y = t->y.data; /* (G x T) */
    if (kind == AG_TASK_AUTO) {
        if (!col->numeric)
            kind = AG_TASK_MULTICLASS;
        else {
            kind = AG_TASK_BINARY;
            for (int64_t i = 0; i < g; i++)
                if (!isnan(col->num[i]) && col->num[i] != 0.0 && col->num[i] != 1.0) kind = AG_TASK_REGRESSION;
        }
    }
    t->kinds[j] = kind;
    if (kind == AG_TASK_MULTICLASS) {
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, g, sizeof(int32_t), "class indices"));
        int32_t *cls = p;
        ag_error_t rc = classify(col, NULL, 0, cls, &t->classes[j], &t->n_classes[j], what, "graph", files, NULL);
        if (rc == AG_SUCCESS)
            for (int64_t i = 0; i < g; i++) y[i * T + j] = cls[i] < 0 ? NAN : (float)cls[i];
        ag_i_free(cls);
        return rc;
    }
    char name[48];
    if (!col->numeric) {
        for (int64_t i = 0; i < g; i++)
            if (!is_missing(col, i))
                return AG_ERROR(AG_EVALUE, "%s: %s has the non-number '%s' in a %s task", what,
                                ag_i_item_name(files, "graph", i, name, sizeof name), col->str[i],
                                ag_task_kind_name(kind));
    }
    for (int64_t i = 0; i < g; i++) {
        double x = col->num[i];
        if (kind == AG_TASK_BINARY && !isnan(x) && x != 0.0 && x != 1.0)
            return AG_ERROR(AG_EVALUE, "%s: %s has the value %.15g in a binary task", what,
                            ag_i_item_name(files, "graph", i, name, sizeof name), x);
        /* targets are float32: beyond its range the value would be inf, and the target scaling
         * inf too, with no word of where it came from */
        if (fabs(x) > FLT_MAX)
            return AG_ERROR(AG_EVALUE, "%s: %s has the value %g, beyond the float32 range (%g) targets are held in; "
                            "rescale the column", what, ag_i_item_name(files, "graph", i, name, sizeof name), x,
                            (double)FLT_MAX);
        y[i * T + j] = (float)x;
    }
    if (kind == AG_TASK_REGRESSION) AG_CHECK(ag_i_check_target_spread(col->num, g, what));
    if (kind == AG_TASK_BINARY) t->n_classes[j] = 2;
    return AG_SUCCESS;
}

static int blank(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

/* The words R, pandas, spreadsheets and SQL exports write for a missing value. In a column of
 * numbers, one of them was skipped by the default target choice (the task silently gone) or, in a
 * named target, became a class of its own ("NA" beside 0 and 1). */
int ag_missing_word(const char *s) {
    if (!s) return 0;
    static const char *const words[] = {"NA", "N/A", "#N/A", "<NA>", "NULL", "None", "?"};
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t k = strlen(words[i]);
        if (n != k) continue;
        size_t j = 0;
        while (j < k && (s[j] | 0x20) == (words[i][j] | 0x20)) j++;
        if (j == k) return 1;
    }
    return 0;
}

int64_t ag_missing_word_find(const char *const *cells, int64_t n, int64_t stride) {
    int64_t first = -1, numbers = 0;
    if (!cells) return -1;
    for (int64_t i = 0; i < n; i++) {
        const char *s = cells[i * stride];
        double x;
        if (!s || blank(s)) continue;
        if (ag_csv_parse_double(s, &x) == 0) numbers++;
        else if (ag_missing_word(s)) first = first < 0 ? i : first;
        else return -1;
    }
    return numbers > 0 ? first : -1;
}

/* Whether column c holds numbers and missing-value words only (at least one of each); sets *rc to
 * the error naming the first word's line. */
static int marks_missing(const char *path, char *const *header, char *const *cells, const int64_t *lines, int64_t g,
                         int64_t n_cols, int64_t c, ag_error_t *rc) {
    const int64_t first = ag_missing_word_find((const char *const *)cells + n_cols + c, g, n_cols);
    if (first < 0) return 0;
    *rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': '%s' is not a number, where the column's other values are: a "
                   "missing label is an empty cell here; empty such cells (pandas: to_csv(na_rep=''); R: "
                   "write.csv(na = ''))", path, (long long)lines[first], header[c],
                   cells[(first + 1) * n_cols + c]);
    return 1;
}

/* Whether the header names column c's name again: a model names each output once, and the
 * repeated file column would leave which one holds the files to chance. Sets *rc to the error. */
static int header_repeats(const char *path, char *const *header, int64_t n_cols, int64_t c, ag_error_t *rc) {
    for (int64_t k = 0; k < n_cols; k++)
        if (k != c && strcmp(header[k], header[c]) == 0) {
            *rc = AG_ERROR(AG_EPARSE, "%s:1: the header names column '%s' twice (columns %lld and %lld): rename one",
                           path, header[c], (long long)(k < c ? k : c) + 1, (long long)(k < c ? c : k) + 1);
            return 1;
        }
    return 0;
}

ag_error_t ag_targets_read_csv(ag_targets_t *t, const char *path, const ag_targets_options_t *opts) {
    ag_targets_options_t defaults;
    ag_error_t rc = AG_SUCCESS;
    ag_csv_t csv;
    char **cells = NULL;   /* (G x C) pointers into the file buffer */
    int64_t *lines = NULL; /* (G) line of each row */
    int64_t *cols = NULL;  /* (T) column of each task */
    double *num = NULL;    /* (G) one numeric column */
    int64_t g = 0, cap = 0, n_cols = 0, file_col, n_tasks = 0;
    char what[600];
    int got;
    memset(t, 0, sizeof *t);
    if (!opts) {
        ag_targets_options_init(&defaults);
        opts = &defaults;
    }
    if (!path) return AG_ERROR(AG_EINVAL, "ag_targets_read_csv: no path");
    if (opts->n_targets < 0 || (opts->n_targets > 0 && !opts->targets))
        return AG_ERROR(AG_EINVAL, "ag_targets_read_csv: bad target list");
    const char *file_name = opts->file_column ? opts->file_column : "file";
    AG_CHECK(ag_csv_open(&csv, path));
    csv.delim = ag_csv_sniff(&csv);
    TRY(ag_csv_next(&csv, &got));
    if (!got) {
        rc = AG_ERROR(AG_EPARSE, "%s: empty file (a header row is expected)", path);
        goto done;
    }
    n_cols = csv.n_fields;
    /* Row 0 of cells is the header, row r + 1 the r-th record: the fields point into the file
     * buffer, so keeping the pointers keeps the text. */
    cells = csv.fields;
    csv.fields = NULL;
    csv.cap = csv.n_fields = 0;
    char **header = cells;
    file_col = -1;
    for (int64_t c = 0; c < n_cols; c++)
        if (strcmp(header[c], file_name) == 0) file_col = c;
    if (file_col < 0) {
        /* the header's own names, so that a table of 'path' or 'smiles_file' (PyG's and
         * DeepChem's CSVs) says which column to name, and how */
        char names[256];
        size_t k = 0;
        names[0] = '\0';
        enum { SHOWN = 8 }; /* a wide table (Tox21's 14 columns) names its first ones and its count */
        for (int64_t c = 0; c < n_cols && c < SHOWN && k < sizeof names; c++)
            k += (size_t)snprintf(names + k, sizeof names - k, "%s'%.40s'", c ? ", " : "", header[c]);
        if (n_cols > SHOWN && k < sizeof names)
            snprintf(names + k, sizeof names - k, ", ... (%lld in all)", (long long)n_cols);
        rc = AG_ERROR(AG_EATTR, "%s:1: no '%s' column in the header (its columns: %s); option file_column names the "
                      "column of the graph files", path, file_name, names);
        goto done;
    }
    if (header_repeats(path, header, n_cols, file_col, &rc)) goto done;
    /* Rows: row r's cells are cells[(r + 1) * n_cols ...] (row 0 of the array is the header). */
    cap = n_cols;
    for (;;) {
        TRY(ag_csv_next(&csv, &got));
        if (!got) break;
        TRY(ag_csv_expect_fields(&csv, n_cols));
        if ((g + 2) * n_cols > cap) {
            int64_t ncap = 2 * cap + 16 * n_cols;
            char **nc = ag_i_realloc(cells, (size_t)ncap * sizeof *nc);
            int64_t *nl = ag_i_realloc(lines, (size_t)(ncap / n_cols) * sizeof *nl);
            if (nc) cells = nc;
            if (nl) lines = nl;
            if (!nc || !nl) {
                rc = AG_ERROR(AG_ENOMEM, "%s:%lld: out of memory", path, (long long)csv.line);
                goto done;
            }
            cap = ncap;
        }
        memcpy(cells + (g + 1) * n_cols, csv.fields, (size_t)n_cols * sizeof *cells);
        lines[g] = csv.line;
        g++;
    }
    header = cells;
    if (g == 0) {
        /* a file whose lines end with a carriage return alone (classic Mac OS) reads as one line */
        int cr = 0;
        for (int64_t c = 0; c < n_cols && !cr; c++) cr = header[c] && strchr(header[c], '\r') != NULL;
        rc = AG_ERROR(AG_EPARSE, "%s: a header and no row: one row per graph is expected ('%s' and its targets)%s",
                      path, file_name,
                      cr ? "; its lines end with a carriage return alone (as classic Mac OS wrote them): make them "
                           "newlines" : "");
        goto done;
    }
    /* Choose the task columns. */
    void *p;
    TRY(ag_i_alloc_array(&p, n_cols, sizeof(int64_t), "task columns"));
    cols = p;
    TRY(ag_i_alloc_array(&p, g, sizeof(double), "target column"));
    num = p;
    if (opts->targets) {
        for (int64_t j = 0; j < opts->n_targets; j++) {
            for (int64_t i = 0; i < j; i++)
                if (opts->targets[i] && opts->targets[j] && strcmp(opts->targets[i], opts->targets[j]) == 0) {
                    rc = AG_ERROR(AG_EINVAL, "target '%s' is named twice: a model has one output per target",
                                  opts->targets[j]);
                    goto done;
                }
            int64_t c = -1;
            for (int64_t k = 0; k < n_cols; k++)
                if (k != file_col && strcmp(header[k], opts->targets[j]) == 0) c = k;
            if (c < 0 && strcmp(header[file_col], opts->targets[j]) == 0) {
                rc = AG_ERROR(AG_EATTR, "%s:1: '%s' is the column of the graphs' files, not a target", path,
                              opts->targets[j]);
                goto done;
            }
            if (c < 0) {
                /* the header's other columns, as a misspelt name's neighbours (at most ~600 bytes) */
                char cols_text[640];
                size_t used = 0;
                int64_t shown = 0;
                cols_text[0] = '\0';
                for (int64_t k = 0; k < n_cols && used < sizeof cols_text - 80; k++) {
                    if (k == file_col) continue;
                    used += (size_t)snprintf(cols_text + used, sizeof cols_text - used, "%s'%.60s'", shown ? ", " : "",
                                             header[k]);
                    shown++;
                }
                if (shown < n_cols - 1) snprintf(cols_text + used, sizeof cols_text - used, ", ...");
                rc = AG_ERROR(AG_EATTR, "%s:1: no target column '%s' in the header (its columns besides '%s': %s)", path,
                              opts->targets[j], header[file_col], shown ? cols_text : "none");
                goto done;
            }
            if (n_tasks >= n_cols) {
                rc = AG_ERROR(AG_EINVAL, "%s: more targets than columns", path);
                goto done;
            }
            cols[n_tasks++] = c;
        }
    } else {
        int64_t empty_col = -1; /* the first column with no value in any row */
        for (int64_t c = 0; c < n_cols; c++) {
            if (c == file_col) continue;
            int numeric = 1, any = 0;
            for (int64_t r = 0; r < g && numeric; r++) {
                const char *s = cells[(r + 1) * n_cols + c];
                double x;
                if (blank(s)) continue;
                any = 1;
                if (ag_csv_parse_double(s, &x) != 0) numeric = 0; /* inf/nan: numeric, refused below */
            }
            if (numeric && any) cols[n_tasks++] = c;
            else if (marks_missing(path, header, cells, lines, g, n_cols, c, &rc)) goto done;
            else if (!any && empty_col < 0) empty_col = c;
        }
        /* Beside the columns taken, an empty one is a task whose labels did not make it into
         * the table (a failed join, an export that dropped them): taking the others alone gave a
         * model of fewer tasks without a word. */
        if (n_tasks > 0 && empty_col >= 0) {
            rc = AG_ERROR(AG_EATTR,
                          "%s: column '%s' has no value in any row, beside the target columns taken by "
                          "default: a task without labels cannot be learnt; fill it, drop it, or name the targets",
                          path, header[empty_col]);
            goto done;
        }
        /* A table of names and string classes ("file,kind" with er/ba) has one obvious target;
         * with several string columns (a SMILES beside the class) guessing would be wrong. */
        if (n_tasks == 0 && n_cols == 2) {
            int64_t c = file_col == 0 ? 1 : 0, any = 0;
            for (int64_t r = 0; r < g && !any; r++) any = !blank(cells[(r + 1) * n_cols + c]);
            if (any) cols[n_tasks++] = c; /* a column with no value is no target */
        }
        if (n_tasks == 0) {
            char names[400];
            size_t len = 0;
            names[0] = '\0';
            for (int64_t c = 0; c < n_cols && len < sizeof names; c++) {
                if (c == file_col) continue;
                int w = snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "", header[c]);
                if (w < 0) break;
                len += (size_t)w;
            }
            rc = n_cols < 2 ? AG_ERROR(AG_EATTR, "%s: no target column besides '%s'", path, file_name)
                            : AG_ERROR(AG_EATTR,
                                       "%s: no numeric target column besides '%s' to take by default: name "
                                       "the target (the other columns: %s)",
                                       path, file_name, names);
            goto done;
        }
    }
    for (int64_t j = 0; j < n_tasks; j++)
        if (header_repeats(path, header, n_cols, cols[j], &rc)) goto done;
    TRY(targets_alloc(t, g, n_tasks));
    TRY(ag_i_alloc_array(&p, g, sizeof(char *), "file names"));
    t->files = p;
    for (int64_t r = 0; r < g; r++) {
        if (!(t->files[r] = ag_i_strdup(cells[(r + 1) * n_cols + file_col]))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory copying file names");
            goto done;
        }
    }
    /* Duplicate files: sort the names as the file system reads them (./g/a.gml is g/a.gml), so
     * that one graph cannot sit in two parts of a split under two spellings. */
    {
        char **norm = NULL; /* (G) */
        TRY(ag_i_alloc_array(&p, g, sizeof(char *), "file names"));
        norm = p;
        ckey_t *keys = NULL;
        rc = ag_i_alloc_array(&p, g, sizeof(ckey_t), "file index");
        keys = p;
        for (int64_t r = 0; r < g && rc == AG_SUCCESS; r++) {
            if (!(norm[r] = ag_i_path_lexical(t->files[r]))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
            else keys[r] = (ckey_t){0.0, norm[r], (int32_t)r};
        }
        if (rc == AG_SUCCESS) qsort(keys, (size_t)g, sizeof(ckey_t), cmp_ckey_str);
        for (int64_t r = 1; r < g && rc == AG_SUCCESS; r++) {
            if (strcmp(keys[r].str, keys[r - 1].str) == 0) {
                int64_t a = keys[r - 1].cls, b = keys[r].cls;
                if (a > b) {
                    int64_t tmp = a;
                    a = b;
                    b = tmp;
                }
                if (strcmp(t->files[a], t->files[b]) == 0)
                    rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: duplicate file '%s' (first on line %lld)", path,
                                  (long long)lines[b], t->files[b], (long long)lines[a]);
                else
                    rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: duplicate file '%s': the same as '%s' on line %lld", path,
                                  (long long)lines[b], t->files[b], t->files[a], (long long)lines[a]);
            }
        }
        ag_i_strings_free(norm, g);
        ag_i_free(keys);
        if (rc != AG_SUCCESS) goto done;
    }
    for (int64_t j = 0; j < n_tasks; j++) {
        int64_t c = cols[j];
        ag_task_kind_t kind = opts->kinds ? opts->kinds[j] : AG_TASK_AUTO;
        t->kinds_given |= kind != AG_TASK_AUTO;
        if (!ag_utf8_valid(header[c], NULL)) {
            char shown[200];
            rc = AG_ERROR(AG_EVALUE, "%s:1: the name of column %lld, '%s', is not valid UTF-8: a model file stores task "
                          "names as UTF-8 text; convert the table to UTF-8 (e.g. iconv -f latin1 -t utf-8)", path,
                          (long long)c + 1, ag_i_utf8_show(header[c], shown, sizeof shown));
            goto done;
        }
        if (!(t->tasks[j] = ag_i_strdup(header[c]))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory copying task names");
            goto done;
        }
        snprintf(what, sizeof what, "%s: column '%s'", path, header[c]);
        if (kind != AG_TASK_MULTICLASS && marks_missing(path, header, cells, lines, g, n_cols, c, &rc)) goto done;
        int numeric = 1;
        for (int64_t r = 0; r < g; r++) {
            const char *s = cells[(r + 1) * n_cols + c];
            if (blank(s)) {
                num[r] = NAN;
                continue;
            }
            if (ag_csv_parse_double(s, &num[r]) != 0) {
                numeric = 0;
                if (kind == AG_TASK_REGRESSION || kind == AG_TASK_BINARY) {
                    rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': '%s' is not a number", path, (long long)lines[r],
                                  header[c], s);
                    goto done;
                }
                break;
            }
            if (!isfinite(num[r])) {
                rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': value '%s' is not finite (a missing label is an empty "
                              "cell)", path, (long long)lines[r], header[c], s);
                goto done;
            }
        }
        column_t col = {numeric, num, (const char *const *)NULL, g};
        const char **strs = NULL;
        if (!numeric) {
            TRY(ag_i_alloc_array(&p, g, sizeof(char *), "target strings"));
            strs = p;
            for (int64_t r = 0; r < g; r++) {
                const char *s = cells[(r + 1) * n_cols + c];
                strs[r] = blank(s) ? "" : s;
            }
            col.str = strs;
        }
        rc = fill_task(t, j, &col, kind, what);
        ag_i_free(strs);
        if (rc != AG_SUCCESS) goto done;
    }
done:
    if (rc != AG_SUCCESS) ag_targets_destroy(t);
    ag_i_free(cells);
    ag_i_free(lines);
    ag_i_free(cols);
    ag_i_free(num);
    ag_csv_close(&csv);
    return rc;
}

ag_error_t ag_targets_from_graphs(ag_targets_t *t, const igraph_t *graphs, int64_t n_graphs, const char *const *attrs,
                                  int64_t n_attrs, const ag_task_kind_t *kinds, const char *const *names) {
    ag_error_t rc = AG_SUCCESS;
    double *num = NULL;       /* (G) */
    const char **strs = NULL; /* (G) */
    /* (G x T) attribute j's type in graph g: each graph's attributes listed once, where a lookup per
     * attribute listed them all each time (G T^2 when every graph attribute is a task) */
    igraph_attribute_type_t *types = NULL;
    char what[300];
    void *p;
    memset(t, 0, sizeof *t);
    if (n_graphs < 0 || (n_graphs > 0 && !graphs) || n_attrs <= 0 || !attrs)
        return AG_ERROR(AG_EINVAL, "ag_targets_from_graphs: graphs and at least one attribute are required");
    TRY(targets_alloc(t, n_graphs, n_attrs));
    TRY(ag_i_alloc_array(&p, n_graphs, sizeof(double), "target column"));
    num = p;
    TRY(ag_i_alloc_array(&p, n_graphs, sizeof(char *), "target strings"));
    strs = p;
    TRY(ag_i_alloc_array(&p, n_graphs * n_attrs, sizeof *types, "target attribute types"));
    types = p;
    for (int64_t g = 0; g < n_graphs; g++)
        TRY(ag_i_attr_types(&graphs[g], IGRAPH_ATTRIBUTE_GRAPH, attrs, n_attrs, &types[g * n_attrs]));
    for (int64_t j = 0; j < n_attrs; j++) {
        const char *a = attrs[j];
        if (!a) {
            rc = AG_ERROR(AG_EINVAL, "ag_targets_from_graphs: attribute name %lld is NULL", (long long)j);
            goto done;
        }
        if (!ag_utf8_valid(a, NULL)) {
            rc = AG_ERROR(AG_EINVAL, "ag_targets_from_graphs: attribute name %lld is not valid UTF-8 (a model file "
                          "stores task names as UTF-8 text)", (long long)j);
            goto done;
        }
        if (!(t->tasks[j] = ag_i_strdup(a))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory copying task names");
            goto done;
        }
        snprintf(what, sizeof what, "graph attribute '%s'", a);
        int seen = 0; /* IGRAPH_ATTRIBUTE_* of the first graph that has it */
        int64_t first = -1;
        for (int64_t g = 0; g < n_graphs; g++) {
            const igraph_attribute_type_t type = types[g * n_attrs + j];
            num[g] = NAN;
            strs[g] = "";
            if (type == IGRAPH_ATTRIBUTE_UNSPECIFIED) continue;
            int numeric_type = type == IGRAPH_ATTRIBUTE_NUMERIC || type == IGRAPH_ATTRIBUTE_BOOLEAN;
            if (type != IGRAPH_ATTRIBUTE_NUMERIC && type != IGRAPH_ATTRIBUTE_BOOLEAN &&
                type != IGRAPH_ATTRIBUTE_STRING) {
                rc = AG_ERROR(AG_EATTR, "%s of graph %s is neither numeric, boolean nor string", what,
                              names ? names[g] : "");
                goto done;
            }
            if (!seen) {
                seen = numeric_type ? 1 : 2;
                first = g;
            } else if (seen != (numeric_type ? 1 : 2)) {
                char a1[32], a2[32];
                snprintf(a1, sizeof a1, "%lld", (long long)first);
                snprintf(a2, sizeof a2, "%lld", (long long)g);
                rc = AG_ERROR(AG_EATTR, "%s is %s on graph %s but %s on graph %s", what,
                              seen == 1 ? "numeric" : "a string", names ? names[first] : a1,
                              numeric_type ? "numeric" : "a string", names ? names[g] : a2);
                goto done;
            }
            ag_i_igraph_enter();
            if (type == IGRAPH_ATTRIBUTE_NUMERIC)
                num[g] = igraph_cattribute_GAN(&graphs[g], a);
            else if (type == IGRAPH_ATTRIBUTE_BOOLEAN)
                num[g] = igraph_cattribute_GAB(&graphs[g], a) ? 1.0 : 0.0;
            else
                strs[g] = igraph_cattribute_GAS(&graphs[g], a);
            ag_i_igraph_leave();
            if (isinf(num[g])) {
                char a1[32];
                snprintf(a1, sizeof a1, "%lld", (long long)g);
                rc = AG_ERROR(AG_EVALUE, "%s of graph %s is infinite", what, names ? names[g] : a1);
                goto done;
            }
        }
        if (!seen) {
            rc = AG_ERROR(AG_EATTR, "no graph has the graph attribute '%s'", a);
            goto done;
        }
        column_t col = {seen == 1, num, strs, n_graphs};
        TRY(fill_task(t, j, &col, kinds ? kinds[j] : AG_TASK_AUTO, what));
        t->kinds_given |= kinds && kinds[j] != AG_TASK_AUTO;
    }
done:
    if (rc != AG_SUCCESS) ag_targets_destroy(t);
    ag_i_free(num);
    ag_i_free(strs);
    ag_i_free(types);
    return rc;
}
