/*
 * attngraph/features.h: node and edge feature matrices from igraph attributes and structure.
 *
 * A featuriser is fitted once on the training graphs: it decides the columns (which attributes,
 * how each is encoded), builds the vocabulary of every string attribute and the normalisation
 * statistics. It then turns any graph into X (N x F) and edge features (E x Fe), always with the
 * same columns, and is stored in model files (as JSON: docs/model-format.md) so that a trained model
 * featurises new graphs exactly as it did its training graphs.
 *
 * Example:
 *     ag_featurizer_config_t cfg;
 *     ag_featurizer_config_init(&cfg);              // every usable attribute except "id"
 *     const char *drop[] = {"id", "name"};
 *     cfg.exclude = drop; cfg.n_exclude = 2;
 *     cfg.norm = AG_NORM_STANDARDIZE;
 *     cfg.degree = 1; cfg.lap_pe_k = 8; cfg.rw_pe_k = 16;
 *     ag_featurizer_t f;
 *     if (ag_featurizer_fit(&f, &cfg, train_graphs, n_train) != AG_SUCCESS) die(ag_error_message());
 *     ag_fmat_t X = {0}, Ee = {0};                  // (N x F), (E x Fe)
 *     if (ag_featurizer_transform(&f, &graph, &X, &Ee) != AG_SUCCESS) die(ag_error_message());
 *     for (int64_t j = 0; j < f.n_features; j++) puts(ag_featurizer_column_name(&f, j));
 *     ag_fmat_destroy(&X); ag_fmat_destroy(&Ee);
 *     ag_featurizer_destroy(&f);
 *
 * Encoders (the width rule, shared with `attn-graph info`):
 * - numeric attribute: 1 column, the value (NaN or infinite values are errors);
 * - string attribute: one-hot, one column per non-empty value seen at fit time (sorted by strcmp)
 *   plus one "<other>" column for values first seen at transform time and for "" (what igraph
 *   gives a vertex that lacks the attribute in GML): width = distinct non-empty values + 1, the
 *   rule ag_graph_summarize() reports;
 * - boolean attribute: 1 column, 0 or 1.
 * Columns of X: vertex attributes, then degree (1 column, or in/out for directed graphs), then
 * Laplacian PE (lap_pe_k), then random-walk PE (rw_pe_k); see posenc.h for their definitions.
 * Edge features: edge attributes only, one row per igraph edge id.
 *
 * Fitting and transforming call igraph (inside the library's igraph guard), so like every igraph
 * call they must not run on two threads at once; a fitted featuriser itself is read-only.
 * docs/features.md has the full definitions.
 */
#ifndef ATTNGRAPH_FEATURES_H
#define ATTNGRAPH_FEATURES_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/matrix.h"
#include "attngraph/summary.h" /* ag_attr_type_t: numeric, string, boolean */

#ifdef __cplusplus
extern "C" {
#endif

/** How vertex features are normalised with statistics fixed at fit time. */
typedef enum ag_feature_norm_t {
    AG_NORM_NONE = 0,
    /* (x - mean) / std per column over all vertices of the fitted graphs (population std; a
     * constant column gets std 1). Applies to attribute and degree columns, not to PE columns. */
    AG_NORM_STANDARDIZE,
    /* Each row's attribute columns divided by their L1 norm (rows summing to 0 stay as they are).
     * Degree and PE columns are left alone. For count / bag-of-words attributes. */
    AG_NORM_L1_ROWS,
    /* AG_NORM_STANDARDIZE for the attribute columns whose values at fit time go beyond [-1, 1]
     * (raw numbers: an age, a count, a year); the others (0/1 indicators, one-hot categories,
     * values already within [-1, 1]) and the degree columns are left as they are. Edge columns
     * beyond [-1, 1] are standardised too (edge_mean, edge_std), which no other mode does. A fit never
     * keeps this value: the fitted featuriser (or node-table normalisation) holds
     * AG_NORM_STANDARDIZE with mean 0 and std 1 for the columns left alone, so that model files
     * store it as they store AG_NORM_STANDARDIZE. Node tasks' default in ag_net_train_* and
     * `attn-graph train` (`--normalize auto`): one raw column among indicators otherwise
     * dominates the first projection, and a model without a normalisation layer (the gat preset)
     * or one stopped early learns nothing but it. */
    AG_NORM_STANDARDIZE_RAW
} ag_feature_norm_t;

/** Which attributes become features. */
typedef enum ag_attr_select_t {
    AG_SELECT_ALL = 0, /* every attribute of usable type, minus exclusions */
    AG_SELECT_LIST,    /* the given names and fnmatch patterns */
    AG_SELECT_NONE     /* no attribute */
} ag_attr_select_t;

/** Fit configuration; start from ag_featurizer_config_init(). The featuriser copies what it needs. */
typedef struct ag_featurizer_config_t {
    ag_attr_select_t vertex_select;   /* default AG_SELECT_ALL */
    const char *const *vertex_attrs;  /* (n_vertex_attrs) names or patterns like "x*", for AG_SELECT_LIST */
    int64_t n_vertex_attrs;
    ag_attr_select_t edge_select;     /* default AG_SELECT_ALL */
    const char *const *edge_attrs;    /* (n_edge_attrs) names or patterns, for AG_SELECT_LIST */
    int64_t n_edge_attrs;
    /* (n_exclude) names or patterns never taken by AG_SELECT_ALL or by a pattern (a plain name
     * listed explicitly is always taken). Applies to vertex and edge attributes. Default: "id"
     * and the patterns of ag_featurizer_output_patterns(). */
    const char *const *exclude;
    int64_t n_exclude;
    /* (n_exclude_more) more of them, excluded as well as exclude's: a user's own list
     * (`--exclude-attrs`) set here keeps the defaults. Default none. */
    const char *const *exclude_more;
    int64_t n_exclude_more;
    ag_feature_norm_t norm;           /* default AG_NORM_NONE */
    int degree;                       /* 1: append degree column(s); default 0 */
    int64_t lap_pe_k;                 /* Laplacian PE columns; default 0 */
    int64_t rw_pe_k;                  /* random-walk PE columns; default 0 */
    /* 1: when the fit finds no usable vertex attribute and degree is not set, the degree
     * column(s) are added (beside any PE columns), standardised whatever norm says: a dataset
     * without node labels (IMDB-BINARY, COLLAB) still trains on its structure. The fitted
     * featuriser then has degree set though cfg had not. Default 0 (no attribute and no other
     * column is an error). */
    int degree_if_featureless;
    /* K > 0: where degree_if_featureless adds the degree (no usable vertex attribute, degree not
     * set) and no PE column is asked for (lap_pe_k and rw_pe_k 0), K Laplacian eigenvector columns
     * too, as with lap_pe_k = K, or one fewer than the largest graph's vertices if that is fewer.
     * Node tasks set it: the vertices of one structure-only graph differ more by where they sit
     * than by their degree (LastFM Asia, validation accuracy 0.695 with the degree alone). Default 0. */
    int64_t lap_pe_if_featureless;
} ag_featurizer_config_t;

/** One attribute's encoding. */
typedef struct ag_feature_attr_t {
    char *name;
    ag_attr_type_t type;
    int64_t offset;     /* first column in X (or in the edge features) */
    int64_t width;      /* 1, or vocab_size + 1 for strings */
    char **vocab;       /* (vocab_size) sorted by strcmp; strings only */
    int64_t vocab_size;
} ag_feature_attr_t;

/** A fitted featuriser. Fields are read-only for callers. */
typedef struct ag_featurizer_t {
    ag_feature_attr_t *vattrs; /* (n_vattrs) vertex attributes, in column order */
    int64_t n_vattrs;
    ag_feature_attr_t *eattrs; /* (n_eattrs) edge attributes, in column order */
    int64_t n_eattrs;
    ag_feature_norm_t norm;
    int degree;                /* degree columns present */
    int directed;              /* the fitted graphs were directed: 2 degree columns */
    int64_t lap_pe_k;
    /* 1: the Laplacian columns are multiplied by sqrt(N), so that each has a root mean square of
     * 1 over the graph's vertices whatever its size (every featuriser fitted now); 0: unit
     * Euclidean norm, entries ~1/sqrt(N) (featurisers read from version-1 files, as they were
     * trained). On a 7,624-vertex graph unit-norm entries are ~0.01 and the model learned from
     * them only after a long plateau (docs/features.md). */
    int lap_pe_scaled;
    int64_t rw_pe_k;
    int64_t n_attr_features;   /* columns from vertex attributes (they come first) */
    int64_t n_features;        /* F: width of X */
    int64_t n_edge_features;   /* Fe: width of the edge features */
    float *mean;               /* (n_attr_features + degree columns) AG_NORM_STANDARDIZE only */
    float *std;                /* (same) never 0 */
    /* (Fe) each, or NULL: edge columns as they are. Set by AG_NORM_STANDARDIZE_RAW when an edge
     * column has values beyond [-1, 1] (a message count, a distance), with mean 0 and std 1 for the
     * others: raw edge values feed the attention scores unscaled, and a count of up to 20,000 kept
     * a planted three-community graph at chance (0.30 test accuracy; 0.83 without the column). */
    float *edge_mean;
    float *edge_std;
    char **names;              /* (F) column names of X */
    char **edge_names;         /* (Fe) column names of the edge features */
    /* (n_left_out) vertex attributes that a fit on several graphs with AG_SELECT_ALL left out as
     * the graphs' vertex keys: a different value on every vertex of each graph, in the same order
     * in graphs of different sizes (networkx's GML `label`, Pajek's `name`) or seldom the same
     * across graphs (see docs/features.md). For the caller's messages; not saved in a model file. */
    char **left_out;
    int64_t n_left_out;
} ag_featurizer_t;

/**
 * \function ag_featurizer_config_init
 * Default configuration: all usable vertex and edge attributes except "id" and attn-graph's own
 * outputs (ag_featurizer_output_patterns()), no normalisation, no structural columns.
 * Time complexity: O(1).
 */
void ag_featurizer_config_init(ag_featurizer_config_t *cfg);

/**
 * \function ag_featurizer_config_excludes
 * Whether cfg's exclusions (exclude, then exclude_more: names or fnmatch patterns) leave attribute
 * `name` out, as ag_featurizer_fit() decides it. Returns 1 or 0; 0 for a NULL argument.
 * Time complexity: O(X) fnmatch() calls for the X exclusions (7 by default).
 */
int ag_featurizer_config_excludes(const ag_featurizer_config_t *cfg, const char *name);

/**
 * \function ag_featurizer_output_patterns
 * The attribute names (fnmatch patterns) that attn-graph's own outputs add to a graph: `label`
 * writes "pred" and "prob<class>", `explain` "attnL<L>H<H>...", "selfAttnL...", "attnToTokenL...",
 * "tokenAttnL...". ag_featurizer_config_init() excludes them besides "id" (and so do attn-graph
 * train and ag_net_train_nodes/_graphs), so that a graph labelled or explained and trained on
 * again does not learn from the previous model's answers. Sets *patterns to the static list and
 * returns its length.
 * Time complexity: O(1).
 */
int64_t ag_featurizer_output_patterns(const char *const **patterns);

/**
 * \function ag_featurizer_fit
 * Fits a featuriser on graphs: decides the columns, builds string vocabularies over all graphs,
 * computes normalisation statistics over all their vertices.
 * With AG_SELECT_ALL or a pattern, an attribute is taken if every graph that has vertices (for
 * edge attributes: edges) has it with a usable type (numeric, string or boolean); attributes
 * are then in name order. Listed names keep the list's order; a pattern adds its matches in
 * name order; duplicates are dropped. Graph attributes are never features.
 * \param f       Output, uninitialised; free with ag_featurizer_destroy().
 * \param cfg     Configuration.
 * \param graphs  (count) graphs (with igraph's C attribute handler installed when they were made).
 * \param count   count >= 1.
 * \return AG_SUCCESS; AG_EINVAL (count < 1, negative k, bad enum); AG_EATTR (a listed name is
 *         missing from a graph, a pattern matches nothing, a listed attribute has an unusable type,
 *         an attribute's type differs between graphs); AG_EVALUE (a NaN or infinite value, naming
 *         graph, attribute and vertex or edge); AG_EMISMATCH (directed and undirected graphs mixed
 *         with degree columns); AG_ENOMEM.
 * Time complexity: O((N + E) x columns) over the graphs' N vertices and E edges (the positional
 * columns are not computed at fit), O(a x A) per graph to find the a attributes among its A by
 * name, O(N log N) per attribute to sort its values (vocabularies; vertex keys, with several
 * graphs), and per string attribute O(V) per graph to merge its values into the vocabulary of V
 * values so far: O(G x V) over G graphs, quadratic in the vertices when most of them bring a new
 * value (an identifier: a vertex key, left out only after its vocabulary is built).
 */
ag_error_t ag_featurizer_fit(ag_featurizer_t *f, const ag_featurizer_config_t *cfg,
                             const igraph_t *const *graphs, int64_t count);

/**
 * \function ag_featurizer_fit_named
 * ag_featurizer_fit(), with the graphs' names (their files, say) in the messages that point at one
 * graph ("data/0042.gml: vertex attribute 'x' is missing") instead of its index in `graphs`.
 * \param names  (count) names, or NULL (then "graph <index>"); a NULL entry is named by its index.
 * Time complexity: as ag_featurizer_fit().
 */
ag_error_t ag_featurizer_fit_named(ag_featurizer_t *f, const ag_featurizer_config_t *cfg, const igraph_t *const *graphs,
                                   const char *const *names, int64_t count);

/**
 * \function ag_featurizer_lap_columns
 * Where the Laplacian eigenvector columns are in X: *col0 (the first) and *n (0 without them).
 * Training flips their signs at random (train.h's flip_col0 and flip_cols).
 * Time complexity: O(1).
 */
void ag_featurizer_lap_columns(const ag_featurizer_t *f, int64_t *col0, int64_t *n);

/**
 * \function ag_featurizer_transform
 * Featurises one graph with the fitted columns. Each attribute is read under its own name or,
 * when the graph has no attribute of that name, under the key igraph's GML writer gives it (its
 * ASCII letters and digits: "atomic_num" as "atomicnum"), so a graph written to GML by igraph,
 * attn-graph's label and explain included, still fits the model it was written with.
 * \param f   A fitted (or loaded) featuriser.
 * \param ig  The graph.
 * \param X   Output, (N x F); zero-initialised ({0}) or a valid matrix, resized on success.
 * \param Ee  Output, (E x Fe), or NULL if not wanted. A graph without edges (which has no edge
 *            attributes in igraph) gives 0 rows of width Fe.
 * \return AG_SUCCESS; AG_EATTR (an attribute is missing or of another type, e.g. "attribute
 *         'charge' is missing (the model expects numeric vertex attribute 'charge')");
 *         AG_EVALUE (a NaN or infinite number: "numeric vertex attribute 'charge' is missing on
 *         vertex 7 (NaN)", as igraph reads a number missing from a GML node as NaN);
 *         AG_EMISMATCH (a directed graph for a featuriser fitted on undirected ones, or the
 *         reverse, when degree columns are used); AG_EIGRAPH (the eigensolver failed); AG_ENOMEM.
 * Unseen string values go to the attribute's "<other>" column.
 * Time complexity: O((N + E) x columns) plus the PE costs (posenc.h), and O(a x A) to find the
 * featuriser's a attributes among the graph's A by name.
 */
ag_error_t ag_featurizer_transform(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *X, ag_fmat_t *Ee);

/**
 * \function ag_featurizer_transform_edges
 * The edge features alone, as ag_featurizer_transform() computes them: for a caller whose own
 * matrix replaces the vertex features, so that the vertex attributes need not be there.
 * \param Ee  Output, (E x Fe); zero-initialised ({0}) or a valid matrix, resized on success.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument); AG_EATTR, AG_EVALUE (an edge attribute missing,
 *         of another type, NaN); AG_EMISMATCH (a directed graph for a featuriser fitted on
 *         undirected ones, or the reverse); AG_ENOMEM.
 * Time complexity: O(E x edge columns).
 */
ag_error_t ag_featurizer_transform_edges(const ag_featurizer_t *f, const igraph_t *ig, ag_fmat_t *Ee);

/** What ag_featurizer_unseen() found: the string attribute with the largest share of values
 * outside its vocabulary. */
typedef struct ag_unseen_t {
    const char *attr;  /* the attribute (valid while the featuriser lives), NULL when every value was seen */
    int is_edge;       /* 1 for an edge attribute */
    int64_t count;     /* vertices (edges) whose non-empty value is not in the vocabulary */
    int64_t total;     /* vertices (edges) of the graph */
    char example[64];  /* the first such value (cut to 63 bytes) */
} ag_unseen_t;

/**
 * \function ag_featurizer_unseen
 * Finds the string attribute of ig whose values the featuriser's vocabulary knows least: those
 * values all land in the attribute's "<other>" column, so a graph where most do (a model whose
 * feature is each vertex's own name, given another graph) is predicted from nothing but its
 * structure. Empty values (missing) are not counted. Attributes missing from ig or of another
 * type are skipped (ag_featurizer_transform() refuses them).
 * \param f      A fitted (or loaded) featuriser.
 * \param ig     The graph.
 * \param worst  Output: the attribute with the largest count / total (the first in column order,
 *               vertex attributes before edge ones, among equals); attr NULL and counts 0 when no
 *               value is unseen.
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument); AG_EIGRAPH, AG_ENOMEM (reading attributes).
 * Time complexity: O((N + E) x string attributes x log vocabulary).
 */
ag_error_t ag_featurizer_unseen(const ag_featurizer_t *f, const igraph_t *ig, ag_unseen_t *worst);

/**
 * \function ag_featurizer_missing
 * Counts the vertices (edges) of ig whose value of the featuriser's string attribute i is empty:
 * missing, so none of the attribute's columns is set for them (GML and GraphML give "" to an
 * element that lacks the attribute). Read under the same name ag_featurizer_transform() reads
 * (the GML writer's "bondtype" for "bond_type").
 * \param f       A fitted (or loaded) featuriser.
 * \param ig      The graph.
 * \param is_edge 1 for f->eattrs[i], 0 for f->vattrs[i].
 * \param i       The attribute's index in that list.
 * \param count   Output: the count; 0 for a numeric or boolean attribute, or one missing from ig or
 *                of another type there (ag_featurizer_transform() refuses those).
 * \return AG_SUCCESS; AG_EINVAL (a NULL argument, i out of range); AG_EIGRAPH, AG_ENOMEM (reading
 *         attributes).
 * Time complexity: O(N) (or O(E)).
 */
ag_error_t ag_featurizer_missing(const ag_featurizer_t *f, const igraph_t *ig, int is_edge, int64_t i,
                                 int64_t *count);

/**
 * \function ag_featurizer_column_name
 * Name of column j of X: "element=C", "element=<other>", "charge", "aromatic", "degree" (or
 * "in_degree", "out_degree"), "lap_pe.1".."lap_pe.k", "rw_pe.1".."rw_pe.k". NULL if j is out of
 * range. Valid while f lives.
 * Time complexity: O(1).
 */
const char *ag_featurizer_column_name(const ag_featurizer_t *f, int64_t j);

/** \function ag_featurizer_edge_column_name
 * Name of column j of the edge features ("bond_type=DOUBLE", "bond", ...), or NULL.
 * Time complexity: O(1). */
const char *ag_featurizer_edge_column_name(const ag_featurizer_t *f, int64_t j);

/** \function ag_featurizer_attr_width
 * The width rule: 1 for numeric and boolean attributes, distinct_values + 1 for strings
 * (distinct non-empty values), as in summary.h.
 * Time complexity: O(1). */
int64_t ag_featurizer_attr_width(ag_attr_type_t type, int64_t distinct_values);

/** \function ag_featurizer_destroy
 * Frees everything; safe on a zeroed or already destroyed featuriser.
 * Time complexity: O(F + Fe) plus the vocabularies. */
void ag_featurizer_destroy(ag_featurizer_t *f);

#ifdef __cplusplus
}
#endif
#endif
