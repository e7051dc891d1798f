/*
 * attngraph/prepare.h: from loaded data (a dataset of graphs, or one graph with node labels and a
 * node table) to a training set (train.h) with the featuriser that made it.
 *
 * Inputs of a model are: the featuriser's columns (vertex attributes, degree, PEs; features.h),
 * then optionally the columns of a node table (Cora's cora.content, Twitch's features.txt),
 * normalised with statistics fixed at preparation time (ag_table_norm_t). Both are kept in the
 * model file (modelfile.h), so that a model featurises a graph exactly as it did in training.
 *
 * Example: MUTAG, featuriser fitted on the training graphs only
 *   ag_dataset_t ds;                        // ag_dataset_load(&ds, "mutag/labels.csv", &opts)
 *   ag_featurizer_config_t fc;
 *   ag_featurizer_config_init(&fc);
 *   ag_prepared_t p;
 *   ag_prepared_from_graphs(&p, &ds, AG_TASK_GRAPH_CLASSIFICATION, &fc, fold.train, fold.n_train);
 *   // p.set.examples[g].X, p.set.targets, p.featurizer, p.names (class names "0", "1")
 *   ag_prepared_destroy(&p);
 */
#ifndef ATTNGRAPH_PREPARE_H
#define ATTNGRAPH_PREPARE_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/dataset.h"
#include "attngraph/features.h"
#include "attngraph/matrix.h"
#include "attngraph/model.h"
#include "attngraph/table.h"
#include "attngraph/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Normalisation of node-table columns, appended after the featuriser's columns. */
typedef struct ag_table_norm_t {
    int64_t width;          /* Ft table columns (0: no table) */
    ag_feature_norm_t norm; /* NONE, STANDARDIZE (per column, stats below) or L1_ROWS (per row) */
    float *mean;            /* (Ft) STANDARDIZE only */
    float *std;             /* (Ft) STANDARDIZE only; never 0 */
    /* (Ft) the table's column names at training (ag_table_norm_set_columns), or NULL (a headerless
     * table, a feature matrix, a model file written before): prediction matches a new table's
     * columns to these by name, since a table exported in another column order would otherwise be
     * read silently wrong */
    char **columns;
} ag_table_norm_t;

/** \function ag_table_norm_fit
 * Fixes the normalisation of a node table's columns (statistics over all its rows, as the
 * featuriser does for attribute columns; a constant column gets std 1). AG_NORM_STANDARDIZE_RAW
 * standardises the columns with a value beyond [-1, 1] and stores AG_NORM_STANDARDIZE, with mean 0
 * and std 1 for the others.
 * \return AG_SUCCESS, AG_EINVAL (unknown norm), AG_ENOMEM.
 * Time complexity: O(N Ft) for a table of N rows and Ft columns when standardising, else O(1). */
ag_error_t ag_table_norm_fit(ag_table_norm_t *t, const ag_fmat_t *table, ag_feature_norm_t norm);

/** \function ag_table_norm_set_columns
 * Records (copies of) the table's n column names, n being its width, or forgets them (names NULL).
 * \return AG_SUCCESS; AG_EINVAL (n is not the width, a NULL or empty name); AG_ENOMEM.
 * Time complexity: O(Ft + total length of the names), Ft the table's width. */
ag_error_t ag_table_norm_set_columns(ag_table_norm_t *t, const char *const *names, int64_t n);

/** \function ag_table_norm_destroy
 * Frees the statistics; safe on a zeroed value.
 * Time complexity: O(Ft) for Ft column names kept (ag_table_norm_set_columns()), else O(1). */
void ag_table_norm_destroy(ag_table_norm_t *t);

/**
 * \function ag_inputs_featurize
 * The model inputs of one graph: X = [featuriser columns | normalised table columns] (N x F) and
 * the edge features (E x Fe).
 * \param f      A fitted or loaded featuriser.
 * \param t      Table normalisation, or NULL when the model takes no node table.
 * \param ig     The graph.
 * \param table  (N x Ft) the node table aligned to ig's vertices (ag_table_read), or NULL when
 *               t is NULL or t->width is 0.
 * \param X      Output, zeroed or valid; resized.
 * \param E      Output, zeroed or valid; resized.
 * \return AG_SUCCESS; the errors of ag_featurizer_transform(); AG_EMISMATCH (the table has another
 *         width or row count than the model expects, or is missing); AG_EINVAL (no feature column
 *         at all); AG_ENOMEM.
 * Time complexity: that of ag_featurizer_transform(), plus, with a node table, O(N F) to append
 * its columns, F the width of X.
 */
ag_error_t ag_inputs_featurize(const ag_featurizer_t *f, const ag_table_norm_t *t, const igraph_t *ig,
                               const ag_fmat_t *table, ag_fmat_t *X, ag_fmat_t *E);

/** A prepared training set and what produced it. */
typedef struct ag_prepared_t {
    ag_trainset_t set;
    ag_featurizer_t featurizer;
    ag_table_norm_t table;  /* width 0 without a node table */
    int64_t n_out;          /* model outputs: C classes or T tasks */
    char **names;           /* (n_out) class names (classification) or task names */
    char *label_attr;       /* node tasks: the vertex attribute holding the labels */
    char **excluded;        /* (n_excluded) attributes left out because they hold or mirror the label */
    int64_t n_excluded;
} ag_prepared_t;

/** \function ag_prepared_destroy
 * Frees everything; safe on a zeroed value.
 * Time complexity: O(G + F + C + A) for G examples (1 for a node task), F feature columns (their
 * names and string values), C class or task names and A excluded attributes. */
void ag_prepared_destroy(ag_prepared_t *p);

/**
 * \function ag_task_infer
 * The task a dataset's targets suggest: several columns all binary -> graph-multitask; one
 * binary or multi-class column, or one numeric column of at most 10 distinct integer values ->
 * graph-classification, unless its kind was given as regression (targets->kinds_given: forced
 * kinds, or a TU folder's graph_attributes, which are numbers whatever values they hold);
 * anything else -> graph-regression.
 * Time complexity: O(G + T) for G graphs and T target columns.
 */
ag_task_t ag_task_infer(const ag_targets_t *targets);

/**
 * \function ag_prepared_from_graphs
 * A graph-level training set from a dataset: the featuriser is fitted on the graphs fit_idx only
 * (the training part; NULL = all graphs), then every graph is featurised.
 * Targets: classification takes the single target column (binary: classes "0", "1"; multi-class:
 * its class names; numeric integers: their sorted distinct values); multi-task needs every column
 * binary; regression takes every column's values.
 * \param p       Output, uninitialised; free with ag_prepared_destroy(). Zeroed on failure.
 * \return AG_SUCCESS; AG_EINVAL (classification with several columns); AG_EVALUE (multi-task with a
 *         column that is not 0/1, regression with a column of strings: naming the first such value and
 *         its graph); the featuriser's errors, with the graph's file name ("molecules/0007.gml: ...");
 *         AG_EMISMATCH (feature widths differ across graphs, naming the graph; a target table of
 *         another number of rows than ds has graphs); AG_ENOMEM.
 * Time complexity: ag_featurizer_fit() on the n_fit graphs, then ag_inputs_featurize() and
 * ag_graph_from_igraph() on each of the G graphs; the targets add O(G log G + G C) for
 * classification (C classes), O(G T) for T target columns otherwise.
 */
ag_error_t ag_prepared_from_graphs(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task,
                                   const ag_featurizer_config_t *cfg, const int64_t *fit_idx, int64_t n_fit);

/**
 * \function ag_prepared_from_nodes
 * A node-classification training set from one graph: labels from a vertex attribute (classes
 * built from the values, or the given list), features from the featuriser (the label attribute is
 * always excluded, and so is any other vertex attribute that mirrors it, i.e. whose values map
 * one-to-one onto the classes, such as karate's `club_name` beside `club`) and an optional node
 * table normalised with table_norm.
 * \param classes  The class list to use (a loaded model's), or NULL to build it.
 * \param table    (N x Ft) node table aligned to the vertices, or NULL.
 * \return AG_SUCCESS; AG_EATTR (no such label attribute; the label attribute explicitly listed as
 *         a feature; a table column that mirrors the labels, by its place:
 *         ag_prepared_refused_column() gives it); AG_EVALUE (a label outside the given classes);
 *         AG_EINVAL (no feature column at all: add --degree, a PE or a node table); the featuriser's
 *         errors; AG_ENOMEM.
 * Time complexity: O(A N log N + Ft (N + C^2)) for the mirror checks of the A other vertex
 * attributes and the Ft table columns, plus ag_graph_summarize(), ag_featurizer_fit() on the
 * graph, ag_inputs_featurize() and ag_graph_from_igraph().
 */
ag_error_t ag_prepared_from_nodes(ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                                  const char *const *classes, int64_t n_classes, const ag_fmat_t *table,
                                  ag_feature_norm_t table_norm, const ag_featurizer_config_t *cfg);

/**
 * \function ag_prepared_from_graphs_with
 * Evaluation data for a loaded model: the dataset featurised with a given featuriser (not fitted)
 * and targets laid out for the task with the given names (class names must match the model's).
 * \return AG_SUCCESS; AG_EINVAL (not a graph task, classification with several target columns,
 *         multi-task with a non-binary column, regression with a string column); AG_EVALUE (a class
 *         not among names); AG_EMISMATCH (target columns other than names, feature widths differ
 *         across graphs); the errors of ag_inputs_featurize() and ag_graph_from_igraph(), with the
 *         graph's name; AG_ENOMEM. p holds nothing on failure.
 * Time complexity: ag_inputs_featurize() and ag_graph_from_igraph() on each of the G graphs; the
 * targets add O(G C) for classification (C classes), O(G T) for T target columns otherwise.
 */
ag_error_t ag_prepared_from_graphs_with(ag_prepared_t *p, const ag_dataset_t *ds, ag_task_t task,
                                        const ag_featurizer_t *f, const char *const *names, int64_t n_names);

/** \function ag_prepared_from_nodes_with
 * The same for a node task: labels mapped to the model's classes, inputs from the model's
 * featuriser and table normalisation.
 * \return AG_SUCCESS; the errors of ag_labels_from_attr() (AG_EATTR: no such attribute; AG_EVALUE:
 *         a label outside the classes), of ag_inputs_featurize() (AG_EMISMATCH: the table is missing
 *         or of another shape) and of ag_graph_from_igraph(); AG_ENOMEM. p holds nothing on failure.
 * Time complexity: O(N log N) for the labels, plus ag_inputs_featurize() and ag_graph_from_igraph(). */
ag_error_t ag_prepared_from_nodes_with(ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                                       const ag_featurizer_t *f, const ag_table_norm_t *t, const ag_fmat_t *table,
                                       const char *const *classes, int64_t n_classes);

/**
 * \function ag_prepared_homophily
 * How much more often than chance an edge joins two vertices of the same class, over the edges
 * whose two ends are labelled training vertices: the adjusted homophily of Platonov et al.
 * (2023), (h_edge - sum_k p_k^2) / (1 - sum_k p_k^2), with h_edge the share of those edges
 * within a class and p_k the share of class k among their ends. About 0 for edges drawn at random
 * (whatever the class sizes), 1 when every edge stays within its class, negative when edges
 * prefer other classes. Only the training labels are read, so that a choice made on it (the
 * default preset, ag_net_train_options_preset) sees no validation or test label.
 * \param p        Prepared node-classification data (ag_prepared_from_nodes()).
 * \param train    (n_train) vertex indices whose labels may be read.
 * \param h_adj    Output: the adjusted homophily; NaN when no such edge exists or all their ends
 *                 are of one class.
 * \param n_edges  Output (may be NULL): the number of such edges (an undirected edge once,
 *                 the copies of a multi-edge once; self-loops left out, in the figure too).
 * \return AG_SUCCESS; AG_EINVAL (NULL p or h_adj, not node classification, an index outside the
 *         graph); AG_ENOMEM.
 * Time complexity: O(N + E + C + n_train).
 */
ag_error_t ag_prepared_homophily(const ag_prepared_t *p, const int64_t *train, int64_t n_train, double *h_adj,
                                 int64_t *n_edges);

/**
 * \function ag_prepared_from_node_values
 * A node-regression training set from one graph: the target is a numeric vertex attribute (NaN =
 * unlabelled), never a feature itself, and neither is a numeric attribute that copies it over the
 * labelled vertices (equal as float32, or correlated to 1 - 1e-6 over ten or more vertices: the
 * target in another unit); p->excluded lists them, the target first. Features as
 * ag_prepared_from_nodes(). names is {target_attr}.
 * The targets are kept in attribute units: ag_model_train() standardises them with the training rows'
 * statistics and stores those in the model.
 * \return AG_SUCCESS; AG_EATTR (no such attribute, not numeric, or listed as a feature; a table
 *         column that copies the target, by its place: ag_prepared_refused_column() gives it);
 *         AG_EVALUE (an infinite value, or no labelled vertex); the featuriser's errors; AG_ENOMEM.
 * Time complexity: O((A + Ft) N) for the copy checks of the A other numeric vertex attributes and
 * the Ft table columns, plus ag_graph_summarize(), ag_featurizer_fit() on the graph,
 * ag_inputs_featurize() and ag_graph_from_igraph().
 */
ag_error_t ag_prepared_from_node_values(ag_prepared_t *p, const igraph_t *ig, const char *target_attr,
                                        const ag_fmat_t *table, ag_feature_norm_t table_norm,
                                        const ag_featurizer_config_t *cfg);

/** \function ag_prepared_refused_column
 * The node-table column that the last ag_prepared_from_* call on this thread refused as a feature
 * because it mirrors the labels (ag_prepared_from_nodes()) or copies the target
 * (ag_prepared_from_node_values()): its 0-based index in the table, which the AG_EATTR message
 * gives 1-based ("node-table column 2 (of 2) ..."), so that a caller who has the table's column
 * names can name it by them without reading the message. -1 when that call refused no column (it
 * succeeded or failed otherwise) and before the first call.
 * Time complexity: O(1). */
int64_t ag_prepared_refused_column(void);

/** \function ag_prepared_refused_reason
 * Why the last ag_prepared_from_* call on this thread refused ag_prepared_refused_column(): the
 * words of its message after "node-table column J (of F) " ("mirrors the labels (one value per
 * class on the labelled vertices) and cannot be a feature: ..."), or "" when it refused none.
 * Static text.
 * Time complexity: O(1). */
const char *ag_prepared_refused_reason(void);

/** \function ag_prepared_from_node_values_with
 * The same for a loaded node-regression model: inputs from its featuriser and table
 * normalisation, targets from target_attr.
 * \return AG_SUCCESS; AG_EATTR (no such attribute, or not numeric); AG_EVALUE (an infinite value,
 *         or no labelled vertex); the errors of ag_inputs_featurize() and ag_graph_from_igraph();
 *         AG_ENOMEM. p holds nothing on failure.
 * Time complexity: O(N) for the targets, plus ag_inputs_featurize() and ag_graph_from_igraph(). */
ag_error_t ag_prepared_from_node_values_with(ag_prepared_t *p, const igraph_t *ig, const char *target_attr,
                                             const ag_featurizer_t *f, const ag_table_norm_t *t,
                                             const ag_fmat_t *table);

#ifdef __cplusplus
}
#endif
#endif
