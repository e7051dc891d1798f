/*
 * attngraph/labels.h: node labels (one class per vertex) and graph targets (one row per graph).
 *
 * Node labels come from a vertex attribute or from label strings (a table's label column). The
 * class list is either built from the values (numbers sorted numerically, strings lexically) or
 * given by the caller; each vertex gets its class index, or -1 when it is unlabelled (NaN, empty
 * string).
 *
 * Graph targets are a (G x T) float matrix with NaN for missing values, one column per task. A task
 * is regression (any numbers), binary (every value 0 or 1) or multi-class (strings, or numbers
 * when asked for; the value stored is the class index). They come from a labels table such as
 * tox21/labels.csv (`file,smiles,NR-AR,...`, empty cell = missing) or from graph attributes.
 *
 * Example: Cora's labels from the `subject` vertex attribute
 *   ag_labels_t lab;
 *   ag_labels_from_attr(&lab, &cora, "subject", NULL, 0);  // 7 classes, "Case_Based" ... "Theory"
 *   ... lab.y[v] ...
 *   ag_labels_destroy(&lab);
 */
#ifndef ATTNGRAPH_LABELS_H
#define ATTNGRAPH_LABELS_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Node labels: a class index per vertex. */
typedef struct ag_labels_t {
    int32_t *y;       /* (N) class index in 0..C-1, or -1 if unlabelled */
    int64_t n;        /* N */
    char **classes;   /* (C) class names; numbers are written with "%.17g" (so 3.0 is "3") */
    int64_t n_classes;
} ag_labels_t;

/**
 * \function ag_labels_from_attr
 * Node labels from a vertex attribute (numeric, string or boolean).
 * \param labels    Output, uninitialised; free with ag_labels_destroy(). Zeroed on failure.
 * \param graph     The graph.
 * \param attr      Vertex attribute name.
 * \param classes   The class list in class-index order, or NULL to build it from the values
 *                  (sorted: numbers numerically, strings lexically). For a numeric attribute the
 *                  given names must be numbers ("0", "1", "2.5").
 * \param n_classes Length of classes.
 * \return AG_SUCCESS; AG_EATTR (no such vertex attribute), AG_EVALUE (a value outside the given
 *   class list: names the vertex and the value; or a given class that is not a number for a
 *   numeric attribute, which no value can match), AG_EINVAL (a given class empty or repeated),
 *   AG_ENOMEM.
 * Time complexity: O(N log N); O((N + C) log C) with a given class list.
 */
ag_error_t ag_labels_from_attr(ag_labels_t *labels, const igraph_t *graph, const char *attr,
                               const char *const *classes, int64_t n_classes);

/**
 * \function ag_missing_word
 * Whether a table cell is a word tables write for a missing value (NA, N/A, #N/A, <NA>, NULL,
 * None, ?; any case, spaces around). Among numbers such a cell is refused rather than read: a
 * missing label is an empty cell (ag_targets_read_csv(); attn-graph's node-table labels).
 * \return 1 or 0.
 * Time complexity: O(length of s).
 */
int ag_missing_word(const char *s);

/**
 * \function ag_missing_word_find
 * Where a column of numbers marks a missing value with a word: the column's non-blank cells are
 * numbers (as ag_csv_parse_double() reads them) and words of ag_missing_word(), at least one of
 * each. Such a column is refused by every reader of labels, each with its own message; a column
 * holding any other text is one of classes, where "NA" is a class like any other.
 * \param cells The column: cell i at cells[i * stride]; a NULL or blank cell is empty.
 * \param n The number of cells.
 * \param stride The distance between two cells of the column (1 for an array; the number of
 *   columns for a row-major table).
 * \return The index of the first missing-value word, or -1 when the column is not such a column.
 * Time complexity: O(total length of the cells).
 */
int64_t ag_missing_word_find(const char *const *cells, int64_t n, int64_t stride);

/**
 * \function ag_labels_present
 * Which vertices have a value in a vertex attribute, by the rule of ag_labels_from_attr(): NaN
 * and empty strings are unlabelled, booleans always labelled. Reads no class list, so that it
 * answers for a regression target as for classes (a random split divides the labelled vertices).
 * \param labelled   (N) output: 1 for a labelled vertex, 0 for the others.
 * \param n_labelled Output, or NULL: the count of labelled vertices.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument); AG_EATTR (no such vertex attribute, or one of
 *   another type); AG_ENOMEM.
 * Time complexity: O(N).
 */
ag_error_t ag_labels_present(const igraph_t *graph, const char *attr, unsigned char *labelled,
                             int64_t *n_labelled);

/**
 * \function ag_labels_from_strings
 * Node labels from one string per vertex (e.g. ag_node_table_t.labels); NULL or "" = unlabelled.
 * \param what  Names the source in messages ("cora.content"); NULL for "labels".
 * Other parameters as ag_labels_from_attr().
 * \return AG_SUCCESS; AG_EINVAL (negative n, values NULL with n > 0, negative n_classes, classes
 *         NULL with n_classes > 0, a given class empty, repeated or not UTF-8); AG_EVALUE (a value
 *         outside the given class list, or not UTF-8 when the list is built: names the vertex);
 *         AG_ELIMIT (more than 2^31-1 classes); AG_ENOMEM. labels is zeroed on failure.
 * Time complexity: O(N log N); O((N + C) log C) with a given class list.
 */
ag_error_t ag_labels_from_strings(ag_labels_t *labels, const char *const *values, int64_t n,
                                  const char *const *classes, int64_t n_classes, const char *what);

/** \function ag_labels_destroy
 * Frees labels; safe on a zeroed or already destroyed value.
 * Time complexity: O(C). */
void ag_labels_destroy(ag_labels_t *labels);

/** What a task's column holds. */
typedef enum ag_task_kind_t {
    AG_TASK_AUTO = 0,     /* options only: decide from the values */
    AG_TASK_REGRESSION,   /* numbers */
    AG_TASK_BINARY,       /* 0/1 */
    AG_TASK_MULTICLASS    /* class index into classes[t] */
} ag_task_kind_t;

/** Graph targets: G graphs by T tasks. */
typedef struct ag_targets_t {
    ag_fmat_t y;            /* (G x T) NaN = missing */
    int64_t n_graphs;       /* G */
    int64_t n_tasks;        /* T */
    char **tasks;           /* (T) task (column or attribute) names */
    ag_task_kind_t *kinds;  /* (T) */
    char ***classes;        /* (T) class names of a multi-class task (sorted), NULL for the others */
    int64_t *n_classes;     /* (T) 0 unless multi-class; 2 for binary */
    char **files;           /* (G) the table's file column as written; NULL when not from a table */
    int kinds_given;        /* 1: the kinds were given (forced kinds, a TU file's meaning), not
                               read from the values: ag_task_infer keeps a regression column one */
} ag_targets_t;

/**
 * \function ag_targets_rename
 * Gives the tasks new names, in order (a model's, when the data name its target columns
 * otherwise: `attn-graph eval --target`). All or nothing.
 * \return AG_SUCCESS; AG_EMISMATCH (n is not the number of tasks); AG_EINVAL (a NULL or empty
 *         name); AG_ENOMEM (the names unchanged).
 * Time complexity: O(total length of the names).
 */
ag_error_t ag_targets_rename(ag_targets_t *t, const char *const *names, int64_t n);

/** Options of ag_targets_read_csv(); zero-initialise or use ag_targets_options_init(). */
typedef struct ag_targets_options_t {
    const char *file_column;      /* NULL = "file" */
    const char *const *targets;   /* target columns by name; NULL = every numeric column (below) */
    int64_t n_targets;
    const ag_task_kind_t *kinds;  /* (n_targets) forced kinds, or NULL = AG_TASK_AUTO for all */
} ag_targets_options_t;

/** \function ag_targets_options_init
 * Defaults: file column "file", targets chosen automatically, kinds from the values.
 * Time complexity: O(1). */
void ag_targets_options_init(ag_targets_options_t *opts);

/**
 * \function ag_targets_read_csv
 * Reads graph targets from a labels table with a header (CSV or TSV; RFC 4180 quoting).
 *
 * One row per graph. The file column names each graph's file; the targets are the named columns,
 * or when none are named every column other than the file column that has at least one value and
 * whose non-empty cells all parse as numbers (a NaN or infinity among them is then an error).
 * String columns (smiles, compound names) are therefore left out, but every numeric column is
 * taken: ESOL's table has `logS` and the baseline `esol_predicted_logS`, so name `logS`. A table
 * with no numeric column but one besides the file column (`file,kind` with classes er and ba)
 * takes that one; with several (a SMILES beside the class), name it. An empty cell is missing
 * (NaN). With AG_TASK_AUTO a
 * numeric column whose values are all 0 or 1 is binary, other numeric columns are regression, and
 * a column with any non-numeric cell is multi-class.
 * \param targets Output, uninitialised; free with ag_targets_destroy(). Zeroed on failure.
 * \param path    The labels table.
 * \param opts    Options, or NULL for the defaults.
 * \return AG_SUCCESS; AG_EFILE, AG_EPARSE (path:line: malformed, wrong field count),
 *   AG_EATTR (no file column; a named target column absent, the message listing the others, or the file
 *   column itself; nothing to take by default: no numeric
 *   column and more or fewer than one other column; the message lists them),
 *   AG_EVALUE (path:line: a NaN/infinite number; a non-number in a column forced numeric),
 *   AG_EMISMATCH (path:line: duplicate file), AG_ENOMEM.
 * Time complexity: O(B + G T log G + T K) for B the bytes of the file and K its columns (each target's
 * name is compared with the header's).
 */
ag_error_t ag_targets_read_csv(ag_targets_t *targets, const char *path, const ag_targets_options_t *opts);

/**
 * \function ag_targets_from_graphs
 * Graph targets from graph attributes (numeric, boolean or string) of each graph. A graph
 * without the attribute, a NaN or an empty string is missing. Kinds as in ag_targets_read_csv().
 * \param graphs  (G) graphs.
 * \param attrs   (T) graph attribute names; they become the task names.
 * \param kinds   (T) forced kinds, or NULL.
 * \param names   (G) names of the graphs for messages (file names), or NULL (then indices).
 * \return AG_SUCCESS; AG_EATTR (no graph has the attribute; numeric on one graph and string on
 *   another), AG_EVALUE (infinite value), AG_EINVAL, AG_ENOMEM.
 * Time complexity: O(G T (A + log G)) for A the graph attributes of a graph (igraph reads a value by
 *   searching them; their types are listed once per graph).
 */
ag_error_t ag_targets_from_graphs(ag_targets_t *targets, const igraph_t *graphs, int64_t n_graphs,
                                  const char *const *attrs, int64_t n_attrs, const ag_task_kind_t *kinds,
                                  const char *const *names);

/** \function ag_targets_destroy
 * Frees targets; safe on a zeroed or already destroyed value.
 * Time complexity: O(G + T) plus the class names of the multi-class tasks. */
void ag_targets_destroy(ag_targets_t *targets);

/** \function ag_task_kind_name
 * "auto", "regression", "binary" or "multiclass".
 * Time complexity: O(1). */
const char *ag_task_kind_name(ag_task_kind_t kind);

#ifdef __cplusplus
}
#endif
#endif
