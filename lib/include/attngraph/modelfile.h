/*
 * attngraph/modelfile.h: a trained model with everything needed to use it, in one file.
 *
 * A bundle is the model (architecture and weights, regression target scaling included), the
 * featuriser that turns a graph into its inputs (attributes, vocabularies, normalisation
 * statistics, structural encodings), the node-table normalisation if the model takes a node table,
 * and the label information (task, class or task names, the vertex attribute holding node labels).
 * It is stored as one safetensors file (safetensors.h): the tensors are the model's parameters, the
 * metadata keys are listed in docs/model-format.md ("config", "featurizer", "labels", "node_table",
 * "target_mean", "target_std", "bundle_version", "attn_graph_version").
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

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the bundle's metadata layout (the "bundle_version" key); a larger one is refused. */
#define AG_BUNDLE_VERSION 1

/** A model with its featurisation and label information. The bundle owns every member. */
typedef struct ag_bundle_t {
    ag_model_t *model;
    ag_featurizer_t featurizer;
    ag_table_norm_t table;   /* width 0: the model takes no node table */
    char **names;            /* (n_out) class names (classification) or task / target names */
    int64_t n_names;
    char *label_attr;        /* node tasks: vertex attribute that held the labels, or NULL */
    char *target_column;     /* graph classification: labels-table column of the classes, or NULL */
} ag_bundle_t;

/**
 * \function ag_bundle_init
 * Makes a bundle from its parts, taking ownership of the model, the featuriser and the table
 * normalisation (they are moved: the caller's copies are zeroed), and copying names and label_attr.
 * Set target_column afterwards with ag_bundle_set_target_column().
 * \return AG_SUCCESS; AG_EINVAL (names count differs from the model's outputs; input widths differ
 *         from the model's in_dim / edge_dim); AG_ENOMEM. On failure nothing is taken.
 */
ag_error_t ag_bundle_init(ag_bundle_t *b, ag_model_t **model, ag_featurizer_t *f, ag_table_norm_t *table,
                          const char *const *names, int64_t n_names, const char *label_attr);

/** \function ag_bundle_set_target_column
 * Records (a copy of) the labels-table column a graph-classification model was trained on, or
 * forgets it (NULL). \return AG_SUCCESS, AG_ENOMEM. */
ag_error_t ag_bundle_set_target_column(ag_bundle_t *b, const char *column);

/** \function ag_bundle_destroy
 * Frees everything; safe on a zeroed bundle and twice. */
void ag_bundle_destroy(ag_bundle_t *b);

/**
 * \function ag_bundle_save
 * Writes the bundle to one safetensors file, atomically (see safetensors.h).
 * \return AG_SUCCESS, AG_EFILE (cannot write, with the reason), AG_ENOMEM.
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
 *         'head.out.W' has shape ...", "m.safetensors: bundle version 2 is newer than this
 *         attn-graph reads (1)", checksum and truncation errors); AG_ENOMEM.
 */
ag_error_t ag_bundle_load(const char *path, ag_bundle_t *b);

/**
 * \function ag_bundle_featurize
 * The model inputs of one graph (see ag_inputs_featurize()).
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
 */
ag_error_t ag_bundle_predict_graph(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, ag_fmat_t *out);

#ifdef __cplusplus
}
#endif
#endif
