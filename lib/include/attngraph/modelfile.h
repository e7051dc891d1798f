/*
 * attngraph/modelfile.h: a trained model with everything needed to use it, in one file.
 *
 * A bundle is the model (architecture and weights, regression target scaling included), the
 * featuriser that turns a graph into its inputs (attributes, vocabularies, normalisation
 * statistics, structural encodings), the node-table normalisation if the model takes a node table,
 * and the label information (task, class or task names, the vertex attribute holding node labels).
 * It is stored as one safetensors file (safetensors.h): the tensors are the model's parameters, the
 * metadata keys are listed in docs/model-format.md ("config", "featurizer", "labels", "node_table",
 * "target_mean", "target_std", "members", "smooth", "graph", "graph_sizes", "bundle_version",
 * "attn_graph_version").
 *
 * Example:
 *   ag_bundle_t b;
 *   if (ag_bundle_load("mutag.safetensors", &b) != AG_SUCCESS) die(ag_error_message());
 *   ag_fmat_t probs = {0};                                  // (1 x C) for a graph task
 *   if (ag_bundle_predict_graph(&b, &molecule, NULL, &probs) != AG_SUCCESS) die(ag_error_message());
 *   printf("%s: %.3f\n", b.names[1], probs.data[1]);
 *   ag_fmat_destroy(&probs);
 *   ag_bundle_destroy(&b);
 */
#ifndef ATTNGRAPH_MODELFILE_H
#define ATTNGRAPH_MODELFILE_H

#include <igraph.h>
#include "attngraph/common.h"
#include "attngraph/features.h"
#include "attngraph/matrix.h"
#include "attngraph/model.h"
#include "attngraph/prepare.h"
#include "attngraph/safetensors.h"
#include "attngraph/smooth.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the bundle's metadata layout (the "bundle_version" key); a larger one is refused.
 * Version 2 adds ensembles (the "members" key), version 3 Correct and Smooth weights (the "smooth"
 * key). A file is written with the lowest version that holds it (one model without smoothing: 1),
 * so that it stays readable by older attn-graph versions, and an older version refuses a file it
 * would misread (an ensemble as its first member, a smoothed model without its smoothing). */
#define AG_BUNDLE_VERSION 3

/** A model with its featurisation and label information. The bundle owns every member.
 * An ensemble (ag_bundle_add_member) is k models of one configuration (seeds apart) trained on the
 * same rows with the same featuriser; it predicts the mean of their raw outputs
 * (ag_ensemble_predict_batch). */
/** How a model's training run chose its training, validation and test parts. */
typedef enum ag_split_source_t {
    AG_SPLIT_SOURCE_UNKNOWN = 0, /* not recorded (a library caller's own, or an older file) */
    AG_SPLIT_SOURCE_RANDOM,      /* a seeded random split (split_random, the model's seed) */
    AG_SPLIT_SOURCE_FILE,        /* a split file (the CLI's --split) */
    AG_SPLIT_SOURCE_FOLDS,       /* one fold of a folds file (--folds, --fold) */
    AG_SPLIT_SOURCE_KFOLD,       /* one fold of seeded k folds (--kfold, --fold) */
    AG_SPLIT_SOURCE_NODES        /* listed training vertices (--train-nodes) */
} ag_split_source_t;

typedef struct ag_bundle_t {
    ag_model_t *model;       /* the model; of an ensemble, its first member (members[0]) */
    ag_model_t **members;    /* (n_members) members[0] == model */
    int64_t n_members;       /* 1, or k for an ensemble of k models */
    ag_featurizer_t featurizer;
    ag_table_norm_t table;   /* width 0: the model takes no node table */
    char **names;            /* (n_out) class names (classification) or task / target names */
    int64_t n_names;
    char *label_attr;        /* node tasks: vertex attribute that held the labels, or NULL */
    char *target_column;     /* graph classification: labels-table column of the classes, or NULL */
    double split_random[2];  /* the training and validation fractions of the random split train drew
                                (with the model's seed), when has_split_random */
    int has_split_random;    /* 0: trained on a split file, folds or listed vertices */
    int split_stratified;    /* 1: that random split was drawn by class (ag_split_stratified_among,
                                `--stratify`); 0 when has_split_random is 0 */
    ag_split_source_t split_source; /* how train chose its parts, so that eval can say when its
                                       own parts would overlap them; UNKNOWN in files before
                                       2026-12-07 */
    /* node classification: the Correct and Smooth weights the model was validated with
     * (ag_bundle_set_smooth), which predictions should apply with the graph's known classes */
    int has_smooth;
    ag_smooth_config_t smooth;
    /* node tasks: the print of the graph the model was trained on (ag_bundle_set_graph), when
     * has_graph: a model whose inputs describe that graph alone (Laplacian columns: their signs
     * and order are the graph's own) can tell that it is given another */
    int has_graph;
    ag_graph_print_t graph;
    /* graph-level models: the smallest and largest vertex and edge counts of the graphs trained on
     * (ag_bundle_set_graph_sizes), when has_sizes, so that a prediction on a graph far outside
     * them can be told to be an extrapolation (ag_bundle_graph_size_outside); 0 in files before
     * 2026-12-07 */
    int has_sizes;
    int64_t size_vertices[2]; /* smallest, largest */
    int64_t size_edges[2];    /* smallest, largest */
} ag_bundle_t;

/**
 * \function ag_bundle_init
 * Makes a bundle from its parts, taking ownership of the model, the featuriser and the table
 * normalisation (they are moved: the caller's copies are zeroed), and copying names and label_attr.
 * Set target_column afterwards with ag_bundle_set_target_column().
 * \return AG_SUCCESS; AG_EINVAL (names count differs from the model's outputs; input widths differ
 *         from the model's in_dim / edge_dim); AG_ENOMEM. On failure nothing is taken.
 * Time complexity: O(n_names + total length of the names) (they are copied).
 */
ag_error_t ag_bundle_init(ag_bundle_t *b, ag_model_t **model, ag_featurizer_t *f, ag_table_norm_t *table,
                          const char *const *names, int64_t n_names, const char *label_attr);

/** \function ag_bundle_set_target_column
 * Records (a copy of) the labels-table column a graph-classification model was trained on, or
 * forgets it (NULL). \return AG_SUCCESS, AG_ENOMEM.
 * Time complexity: O(length of column). */
ag_error_t ag_bundle_set_target_column(ag_bundle_t *b, const char *column);

/** \function ag_bundle_set_label_attr
 * Records (a copy of) the vertex attribute a node model's labels are read from, or forgets it
 * (NULL): where prediction finds the known classes that stored Correct and Smooth weights
 * propagate (`attn-graph label`). ag_net_train_nodes() takes the labels as a
 * vector and names none; the program's train sets it.
 * \return AG_SUCCESS; AG_EINVAL (a bundle without model, a graph-level model); AG_ENOMEM.
 * Time complexity: O(length of attr). */
ag_error_t ag_bundle_set_label_attr(ag_bundle_t *b, const char *attr);

/** \function ag_bundle_set_smooth
 * Records the Correct and Smooth weights (smooth.h) a node-classification model is to be used with,
 * or forgets them (NULL). Stored in the file as "smooth" (bundle version 3); a bundle merged into
 * another keeps the other's. Prediction applies them with the known classes of the vertex
 * attribute the bundle names (label_attr; ag_bundle_set_label_attr for a model trained through
 * ag_net_train_nodes, which names none).
 * \return AG_SUCCESS; AG_EINVAL (a bundle without model, not a node-classification model, an alpha
 *         outside [0, 1), iterations outside 0..100000).
 * Time complexity: O(1). */
ag_error_t ag_bundle_set_smooth(ag_bundle_t *b, const ag_smooth_config_t *cfg);

/** \function ag_bundle_set_graph
 * Records the print (graph.h's ag_graph_print) of the graph a node model was trained on, or forgets
 * it (NULL). Stored in the file as "graph" (any bundle version: a reader that does not know the key
 * has no use for it); merged bundles must have the same one, if both have one.
 * \return AG_SUCCESS; AG_EINVAL (a bundle without model, a graph-level model).
 * Time complexity: that of ag_graph_print() on ig. */
ag_error_t ag_bundle_set_graph(ag_bundle_t *b, const igraph_t *ig);

/** \function ag_bundle_set_graph_sizes
 * Records the smallest and largest vertex and edge counts (igraph_vcount, igraph_ecount) of the
 * graphs a graph-level model was trained on: graphs[idx[0]], ..., graphs[idx[n - 1]] (idx NULL:
 * graphs[0..n)); the training part only, as the validation and test graphs taught the weights
 * nothing. graphs NULL forgets them. Stored in the file as "graph_sizes" (any bundle version: a
 * reader that does not know the key loses only the warning); a merge keeps the union of the two
 * ranges, or none when either bundle has none.
 * \return AG_SUCCESS; AG_EINVAL (a bundle without model, a node model, n below 1, an index
 *         below 0: the caller checked the indices against its graphs).
 * Time complexity: O(n). */
ag_error_t ag_bundle_set_graph_sizes(ag_bundle_t *b, const igraph_t *graphs, const int64_t *idx, int64_t n);

/** \function ag_bundle_graph_size_outside
 * Whether a graph of `vertices` vertices lies far outside the sizes a graph-level model was trained
 * on (has_sizes): 1 above twice the largest count, -1 below half the smallest, else 0 (also for a
 * bundle that does not know them). A prediction there is an extrapolation: a readout's sums, the
 * graph's diameter and the share of each vertex's neighbourhood that attention averages over all
 * change with the size, in ways the weights never met.
 * Time complexity: O(1). */
int ag_bundle_graph_size_outside(const ag_bundle_t *b, int64_t vertices);

/** \function ag_bundle_other_graph
 * When the bundle knows the graph its node model was trained on: 1 when ig is another graph (by
 * print), 2 when it is that graph with its vertices numbered otherwise; else 0 (the same graph
 * numbered alike, or a model that does not know). print, when not NULL, receives ig's print
 * (ag_graph_print), for a caller that reports it, whenever the bundle knows its graph.
 * Time complexity: that of ag_graph_print() on ig when the bundle knows its graph, else O(1). */
int ag_bundle_other_graph(const ag_bundle_t *b, const igraph_t *ig, ag_graph_print_t *print);

/**
 * \function ag_bundle_add_member
 * Makes the bundle an ensemble, or a larger one: takes ownership of *model (zeroed) as the next
 * member. It must have the configuration of the bundle's model except the seed, and the same target
 * scaling (it was trained on the same rows); the featuriser is the bundle's, so it must also have
 * been trained on inputs made by it. *model must be the caller's own (ag_model_create, or read
 * alone), not another bundle's model: that bundle would free it again. To join bundles use
 * ag_bundle_merge(), and ag_net_merge() for ag_net_t handles.
 * \return AG_SUCCESS; AG_EINVAL (NULL model, a model the bundle holds already); AG_EMISMATCH (another configuration or scaling: the
 *         message says which); AG_ENOMEM. On failure nothing is taken.
 * Time complexity: O(k + L + n_out) for k members and L blocks (the configurations are compared as
 * text).
 */
ag_error_t ag_bundle_add_member(ag_bundle_t *b, ag_model_t **model);

/**
 * \function ag_bundle_merge
 * Makes one ensemble of two model files' bundles (e.g. the same command run with several seeds):
 * src's members join dst's, then src is destroyed. The two must have been trained on the same data
 * with the same options but the seed: same configuration, featuriser, names, node-table
 * normalisation and target scaling.
 * \return AG_SUCCESS (src destroyed); AG_EINVAL (a bundle without model, src == dst); AG_EMISMATCH (naming the
 *         part that differs); AG_ENOMEM. On failure both bundles are unchanged.
 * Time complexity: O(S + k (L + n_out)) for S the size of the two bundles' metadata (featurisers with
 * their vocabularies and statistics, names; compared as the file would hold them), k the members
 * of both and L blocks. No weight is copied.
 */
ag_error_t ag_bundle_merge(ag_bundle_t *dst, ag_bundle_t *src);

/**
 * \function ag_bundle_predict_batch
 * The bundle's predictions for a batch already featurised with its featuriser: one model's, or the
 * ensemble's mean (ag_ensemble_predict_batch). \param out  Caller-allocated rows x n_out floats.
 * \return AG_EINVAL (a bundle without model); otherwise as ag_ensemble_predict_batch().
 * Time complexity: as ag_ensemble_predict_batch(): one forward pass per member.
 */
ag_error_t ag_bundle_predict_batch(ag_bundle_t *b, ag_batch_t *batch, float *out);

/**
 * \function ag_bundle_evaluate
 * ag_model_evaluate() with the bundle's model, or ag_ensemble_evaluate() with its members.
 * \return AG_EINVAL (a bundle without model); otherwise as ag_ensemble_evaluate().
 * Time complexity: as ag_ensemble_evaluate() with the bundle's members.
 */
ag_error_t ag_bundle_evaluate(ag_bundle_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                              ag_scores_t *scores);

/**
 * \function ag_bundle_evaluate_tasks
 * ag_ensemble_evaluate_tasks() with the bundle's members: the figures of each task (for multi-task
 * and regression models, those of b->names, in order) as well as over all of them.
 * \param per_task ag_model_n_tasks(b->model) entries, caller-allocated, or NULL.
 * \return AG_EINVAL (a bundle without model); otherwise as ag_ensemble_evaluate_tasks().
 * Time complexity: as ag_ensemble_evaluate_tasks() with the bundle's members.
 */
ag_error_t ag_bundle_evaluate_tasks(ag_bundle_t *b, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                                   ag_scores_t *scores, ag_scores_t *per_task);

/** \function ag_bundle_destroy
 * Frees everything; safe on a zeroed bundle and twice.
 * Time complexity: O(k L + n_out + V) for k members of L blocks and V featuriser strings
 * (vocabularies, column names). */
void ag_bundle_destroy(ag_bundle_t *b);

/**
 * \function ag_bundle_save
 * Writes the bundle to one safetensors file, atomically (see safetensors.h).
 * \return AG_SUCCESS, AG_EFILE (cannot write, with the reason), AG_ENOMEM.
 * Time complexity: O(B + T log T) for B the bytes written and T the tensors (k members' parameter
 * tensors): ag_safetensors_write() sorts the names to find a repeat.
 */
ag_error_t ag_bundle_save(const char *path, const ag_bundle_t *b);

/**
 * \function ag_bundle_load
 * Reads and validates a model file and rebuilds the bundle: configuration -> model, weights
 * copied by name with exact shapes, featuriser, table normalisation, labels, target scaling.
 * \param b  Output, uninitialised; free with ag_bundle_destroy(). Zeroed on failure.
 * \return AG_SUCCESS; AG_EFILE (cannot open); AG_EMODEL for every defect, the message naming the
 *         file and what is wrong ("m.safetensors: metadata 'featurizer' is missing",
 *         "m.safetensors: model configuration: blocks[0].heads must be ...", "m.safetensors: tensor
 *         'head.out.W' has shape ...", "m.safetensors: bundle version 3 is newer than this
 *         attn-graph reads (2)", "m.safetensors: unknown key 'foo' in metadata 'graph' (...)" for a
 *         key the stored JSON objects do not have in this version, checksum and truncation
 *         errors); AG_ENOMEM. Keys of the metadata itself that it does not know are ignored
 *         (docs/model-format.md, "Versioning").
 * Time complexity: that of ag_safetensors_read(), then as ag_bundle_from_safetensors().
 */
ag_error_t ag_bundle_load(const char *path, ag_bundle_t *b);

/**
 * \function ag_bundle_from_safetensors
 * ag_bundle_load() from a file already read, for a caller that also wants the file's metadata
 * (versions, the stored JSON objects) without reading the file twice.
 * \param file  Read by ag_safetensors_read() with AG_SAFETENSORS_STRICT (checksum checked); a
 *              foreign file is refused. Not modified; the bundle keeps no pointer into it.
 * \param b     Output, uninitialised; free with ag_bundle_destroy(). Zeroed on failure.
 * \return AG_SUCCESS; AG_EMODEL for every defect, as ag_bundle_load(), the message naming
 *         file->path; AG_EINVAL if file was not read; AG_ENOMEM.
 * Time complexity: O(S + T log T + C log C + P) for S the metadata's length, T the tensors (each
 * parameter is found by name among them, sorted), C the class or task names (sorted to find a repeat)
 * and P the weights of all members (drawn, then overwritten from the file). Memory: the models'
 * values and gradients, 2P floats, beside the file's decoded tensors.
 */
ag_error_t ag_bundle_from_safetensors(const ag_safetensors_t *file, ag_bundle_t *b);

/**
 * \function ag_bundle_featurize
 * The model inputs of one graph (see ag_inputs_featurize()).
 * \return As ag_inputs_featurize().
 * Time complexity: that of ag_inputs_featurize(): O((N + E) x columns) plus the positional encodings'
 * (posenc.h).
 */
ag_error_t ag_bundle_featurize(const ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, ag_fmat_t *X,
                               ag_fmat_t *E);

/**
 * \function ag_bundle_predict_graph
 * Featurises a graph with the bundle's featuriser and predicts it: out is (1 x n_out) for graph
 * tasks, (N x n_out) for node tasks; class probabilities, task probabilities or regression values
 * in target units.
 * \param table  (N x Ft) node table aligned to the vertices when the model takes one, else NULL.
 * \param out    Output, zeroed or valid; resized.
 * \return AG_SUCCESS; the featurisation errors (AG_EATTR naming the attribute and the model's
 *         expectation, AG_EVALUE, AG_EMISMATCH); AG_ENOMEM.
 * Not thread-safe on one bundle (the model keeps activations); use one bundle per thread.
 * Time complexity: ag_bundle_featurize(), the CSR (ag_graph_from_igraph()), then one forward pass
 * per member and O(rows x n_out).
 */
ag_error_t ag_bundle_predict_graph(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, ag_fmat_t *out);

#ifdef __cplusplus
}
#endif
#endif
