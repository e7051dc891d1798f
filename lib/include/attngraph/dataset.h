/*
 * attngraph/dataset.h: datasets of many graphs (molecules) with their targets.
 *
 * A dataset is G igraph graphs, the file each came from, and a (G x T) target matrix (see
 * labels.h). It is loaded either from a labels table whose file column lists the graph files
 * relative to the table's folder (tox21/labels.csv: `molecules/0001.gml,...`), or from a folder of
 * graph files whose targets are graph attributes (mutag's molecules carry `label`).
 *
 * Example: Tox21, 7,831 molecules, 12 binary tasks with missing values
 *   ag_dataset_t ds;
 *   ag_dataset_load(&ds, "tox21/labels.csv", NULL);
 *   // ds.graphs[g], ds.files[g] ("molecules/0001.gml"), ds.targets.y (7831 x 12, NaN = missing)
 *   ag_dataset_destroy(&ds);
 */
#ifndef ATTNGRAPH_DATASET_H
#define ATTNGRAPH_DATASET_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/graph.h"
#include "attngraph/labels.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most distinct reading warnings a dataset keeps (ag_dataset_t.warnings). */
#define AG_DATASET_WARNINGS_KEPT 8

/** One warning igraph gave while reading a dataset's graph files, and the graphs that gave it. */
typedef struct ag_dataset_warning_t {
    char *reason;      /* igraph's words, without a file name:
                        * "Composite vertex attribute 'coords' ignored in GML file." */
    int64_t n_graphs;  /* graphs whose reading gave it (>= 1) */
    int64_t first;     /* the first of them in file order: an index into graphs[] and files[] */
} ag_dataset_warning_t;

/** G graphs and their targets. */
typedef struct ag_dataset_t {
    int64_t n_graphs;      /* G */
    igraph_t *graphs;      /* (G) with their attributes */
    char **files;          /* (G) file names as listed (relative to the table's folder or the folder) */
    ag_targets_t targets;  /* G x T; targets.files is the table's file column (NULL from a folder) */
    int named_by_id;       /* 1 when files[] are graph ids, not file names (the TU loader's "1".."G"):
                            * messages then say "graph 12" */
    /* What igraph warned of while reading the files (the library prints nothing): data it read
     * past, such as a GML list attribute it drops, so that the graphs lack it. Every distinct
     * warning of a file counts (the first 8 of one file, and a file with more among
     * n_warned_other), each graph once per warning. */
    int64_t n_warned;                /* graphs whose reading gave at least one warning */
    ag_dataset_warning_t *warnings;  /* (n_warnings) the distinct warnings, in file order of their
                                      * first graph; NULL when there were none */
    int64_t n_warnings;              /* at most AG_DATASET_WARNINGS_KEPT */
    int64_t n_warned_other;          /* graphs with a warning beyond those kept (one of the distinct
                                      * warnings after the first AG_DATASET_WARNINGS_KEPT, or after
                                      * the first AG_GRAPH_READ_WARNINGS_KEPT of the graph's own) */
    int64_t first_other;             /* the first of those graphs (an index), when n_warned_other > 0 */
} ag_dataset_t;

/** Options of the dataset loaders; zero-initialise or use ag_dataset_options_init(). */
typedef struct ag_dataset_options_t {
    ag_targets_options_t targets; /* table: file column, target columns, kinds (see labels.h) */
    const char *const *graph_attrs; /* folder: graph attributes used as targets (NULL = none) */
    int64_t n_graph_attrs;
    int directed;                 /* for formats that do not say (edge lists): 1 directed */
    ag_format_t format;           /* AG_FORMAT_AUTO (0): each file's by its extension; else every file's */
} ag_dataset_options_t;

/** \function ag_dataset_options_init
 * Defaults: file column "file", automatic targets, no graph-attribute targets, undirected.
 * Time complexity: O(1). */
void ag_dataset_options_init(ag_dataset_options_t *opts);

/**
 * \function ag_dataset_load
 * Loads every graph listed in a labels table, and the targets.
 *
 * Graph files are read with ag_graph_read() (graph.h), the format chosen by extension (.gml,
 * .graphml, .net, .edges, ...) unless opts->format names one for every file, with igraph's C
 * attribute handler (installed if none is set). igraph's warnings while reading them (a GML list
 * attribute it ignores, a GraphML key it does not know) are not printed but kept in ds->n_warned,
 * ds->warnings and ds->n_warned_other, grouped by their text in file order, so that a program can
 * say that data were dropped from some files (see ag_dataset_t). The files are read one after the
 * other on the calling thread (igraph's handlers are process-global), so the same files give the
 * same warnings in the same order.
 * \param ds         Output, uninitialised; free with ag_dataset_destroy(). Zeroed on failure.
 * \param labels_csv The labels table (see ag_targets_read_csv()).
 * \param opts       Options, or NULL for the defaults.
 * \return AG_SUCCESS; the errors of ag_targets_read_csv(); the errors of ag_graph_read() for a
 *   listed file (AG_EFILE: missing or unreadable, AG_EPARSE: igraph cannot parse it or it has no
 *   vertices, AG_EFORMAT: unknown extension), with the file's path and its data row in the table
 *   ("d/bad.gml: Parse error in GML file, line 2 (...) (listed in data row 1 of d/l.csv)");
 *   AG_EMISMATCH (a directed graph among undirected ones, or the reverse, naming both files);
 *   AG_EINVAL (opts->format is not an ag_format_t); AG_ENOMEM.
 * Time complexity: that of ag_targets_read_csv() on the table and ag_graph_read() on each listed file:
 * O(B + G T log G) for B the bytes of them all, plus O((|V| + |E|) A) per graph of A attributes.
 */
ag_error_t ag_dataset_load(ag_dataset_t *ds, const char *labels_csv, const ag_dataset_options_t *opts);

/**
 * \function ag_dataset_load_dir
 * Loads every graph file of a folder (known extensions, sorted by name; other files and
 * sub-folders are ignored; with opts->format set, every regular file but hidden ones, read in
 * that format), with targets from graph attributes (opts->graph_attrs). igraph's reading
 * warnings are kept as ag_dataset_load() keeps them.
 * \return AG_SUCCESS; AG_EFILE (cannot list the folder, or it holds no graph file), AG_EINVAL
 *   (opts->format is not an ag_format_t), AG_EPARSE
 *   (names the file), AG_EMISMATCH (directed and undirected graphs mixed, naming both files), the
 *   errors of ag_targets_from_graphs(), AG_ENOMEM.
 * Time complexity: O(D + G log G) to list and sort the folder's D entries, plus ag_graph_read() of each
 * file and, with graph_attrs, ag_targets_from_graphs().
 */
ag_error_t ag_dataset_load_dir(ag_dataset_t *ds, const char *dir, const ag_dataset_options_t *opts);

/**
 * \function ag_dataset_load_tu
 * Loads a dataset in the TU format (TUDataset, Morris et al. 2020: MUTAG, PROTEINS, NCI1,
 * IMDB-BINARY, ... as published, and as PyG's and DGL's TUDataset read them): text files
 * PREFIX_A.txt (one edge "i, j" per line, node ids 1..N over all graphs) and
 * PREFIX_graph_indicator.txt (line i: the graph, 1..G, of node i), with the optional
 * PREFIX_graph_labels.txt (one class per graph), PREFIX_graph_attributes.txt (numbers per graph),
 * PREFIX_node_labels.txt, PREFIX_node_attributes.txt, PREFIX_edge_labels.txt and
 * PREFIX_edge_attributes.txt (one line per node, or per line of PREFIX_A.txt; comma-separated).
 *
 * Graph g (0-based) holds the nodes of id g + 1 in file order and is named "g + 1" in ds->files
 * (the name a split CSV's file column gives). Undirected unless opts->directed: the TU files list
 * an undirected edge in both directions, so each pair is kept once, with the labels and
 * attributes of its first line. Node labels become the string vertex attribute `node_label`
 * (one-hot features; `node_label1`, `node_label2`, ... for several columns), node attributes the
 * numeric `node_attr` (`node_attr1`, ...), and likewise `edge_label`, `edge_attr`; the graph
 * label the string graph attribute `label`, graph attributes the numeric `graph_attr` (...).
 * Targets: opts->graph_attrs when given, else `label` (classes) when the labels file exists,
 * else every `graph_attr` column (regression). Installs igraph's C attribute handler if none is
 * set (a process-wide igraph setting), as ag_graph_read() does. The graphs are built from the
 * numbers, not by igraph's readers: ds->n_warned is 0 and ds->warnings NULL.
 * \param ds    Output, uninitialised; free with ag_dataset_destroy(). Zeroed on failure.
 * \param path  The folder holding the files, named as they are (`data/MUTAG` for
 *              `data/MUTAG/MUTAG_A.txt`), or the prefix itself (`data/MUTAG/MUTAG`).
 * \param opts  Options (directed, graph_attrs), or NULL for the defaults.
 * \return AG_SUCCESS; AG_EFILE (a required file missing or unreadable, or nothing to predict);
 *   AG_EPARSE (FILE:LINE: not a number, another count of values, a non-integer id or label; a
 *   file whose line count is not the number of nodes, edges or graphs; a node outside 1..N, an
 *   edge joining two graphs, a graph id without nodes); the errors of ag_targets_from_graphs();
 *   AG_EINVAL, AG_EIGRAPH, AG_ENOMEM.
 * Time complexity: O(B + E log E) for B the bytes of the files, plus O(N Kn^2 + E Ke^2) to set the
 * Kn node and Ke edge columns as attributes (igraph looks each one up by name in a list, once per
 * value: quadratic in the columns), and ag_targets_from_graphs().
 */
ag_error_t ag_dataset_load_tu(ag_dataset_t *ds, const char *path, const ag_dataset_options_t *opts);

/** \function ag_dataset_destroy
 * Frees the graphs, names, targets and warnings; safe on a zeroed or already destroyed dataset.
 * Time complexity: O(G + T) plus igraph_destroy() of each graph (which frees each string attribute value). */
void ag_dataset_destroy(ag_dataset_t *ds);

#ifdef __cplusplus
}
#endif
#endif
