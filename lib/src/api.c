/*
 * api.c: the igraph-style facade (attngraph/api.h) over bundles, models and training.
 *
 * Nothing here computes: it converts between igraph's types and the library's, checks shapes with
 * messages a caller can act on, and calls modelfile.c, prepare.c, model.c and train.c.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/api.h"
#include "attngraph/labels.h"
#include "attngraph/options.h"
#include "attngraph/prepare.h"
#include "attngraph/smooth.h"
#include "internal.h"

struct ag_net_t {
    ag_bundle_t b;
};

/* ---- small conversions at the igraph boundary */

static igraph_integer_t vcount(const igraph_t *g) {
    ag_i_igraph_enter();
    igraph_integer_t n = igraph_vcount(g);
    ag_i_igraph_leave();
    return n;
}

static ag_error_t resize_matrix(igraph_matrix_t *m, int64_t rows, int64_t cols, double fill) {
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_matrix_resize(m, rows, cols);
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS)
        return AG_ERROR(AG_ENOMEM, "out of memory resizing an igraph matrix to %lld x %lld", (long long)rows,
                        (long long)cols);
    igraph_matrix_fill(m, fill);
    return AG_SUCCESS;
}

/* An index list of igraph integers as int64, each in [0, n); `what` names it in messages. */
static ag_error_t index_list(const igraph_vector_int_t *v, int64_t n, const char *what, int64_t **out,
                             int64_t *count) {
    AG_CHECK(AG_I_READY(v->stor_begin, "index list", what));
    int64_t k = igraph_vector_int_size(v);
    AG_CHECK(ag_i_alloc_array((void **)out, k > 0 ? k : 1, sizeof(int64_t), what));
    for (int64_t i = 0; i < k; i++) {
        int64_t x = VECTOR(*v)[i];
        if (x < 0 || x >= n) {
            ag_i_free(*out);
            *out = NULL;
            return AG_ERROR(AG_EINVAL, "%s: index %lld (at position %lld) is out of range 0..%lld", what, (long long)x,
                            (long long)i, (long long)n - 1);
        }
        (*out)[i] = x;
    }
    *count = k;
    return AG_SUCCESS;
}

/* The training and validation lists of a training call, of items 0..n-1 (graphs or vertices):
 * an item twice in one list, or in both (train given: a NULL train, every item, holds val's by
 * definition), is refused, as the program's split files refuse it. Taken as given, an item twice
 * weighed double in the loss, and one in both chose the epoch on what the model trained on. */
static ag_error_t check_parts(const igraph_vector_int_t *train, const int64_t *tr, int64_t n_tr, const int64_t *va,
                              int64_t n_va, int64_t n, const char *item) {
    unsigned char *part = NULL; /* (n) 0 none, 1 train, 2 val; the position of the first in at[] */
    int64_t *at = NULL;
    AG_CHECK(ag_i_alloc_array((void **)&part, n > 0 ? n : 1, 1, "index lists"));
    ag_error_t rc = ag_i_alloc_array((void **)&at, n > 0 ? n : 1, sizeof(int64_t), "index lists");
    for (int k = 0; k < 2 && rc == AG_SUCCESS; k++) {
        const int64_t *list = k ? va : tr;
        const int64_t count = k ? n_va : (train ? n_tr : 0);
        for (int64_t i = 0; i < count && rc == AG_SUCCESS; i++) {
            const int64_t x = list[i];
            if (part[x] == k + 1)
                rc = AG_ERROR(AG_EINVAL, "%s: %s %lld is listed twice (at positions %lld and %lld)", k ? "val" : "train",
                              item, (long long)x, (long long)at[x], (long long)i);
            else if (part[x])
                rc = AG_ERROR(AG_EINVAL, "val: %s %lld (at position %lld) is also in train (at position %lld): "
                              "validation would choose the epoch on a training %s", item, (long long)x, (long long)i,
                              (long long)at[x], item);
            part[x] = (unsigned char)(k + 1);
            at[x] = i;
        }
    }
    ag_i_free(part);
    ag_i_free(at);
    return rc;
}

/* ---- the handle */

ag_error_t ag_net_load(ag_net_t **net, const char *path) {
    if (net) *net = NULL; /* NULL on every failure, a NULL path included */
    if (!net || !path) return AG_ERROR(AG_EINVAL, "ag_net_load: NULL argument");
    ag_net_t *n = ag_i_calloc(1, sizeof *n);
    if (!n) return AG_ERROR(AG_ENOMEM, "out of memory");
    ag_error_t rc = ag_bundle_load(path, &n->b);
    if (rc != AG_SUCCESS) {
        ag_i_free(n);
        return rc;
    }
    *net = n;
    return AG_SUCCESS;
}

ag_error_t ag_net_save(const ag_net_t *net, const char *path) {
    if (!net || !path) return AG_ERROR(AG_EINVAL, "ag_net_save: NULL argument");
    return ag_bundle_save(path, &net->b);
}

void ag_net_destroy(ag_net_t *net) {
    if (!net) return;
    ag_bundle_destroy(&net->b);
    ag_i_free(net);
}

ag_task_t ag_net_task(const ag_net_t *net) { return net ? ag_model_config(net->b.model)->task : (ag_task_t)-1; }

igraph_integer_t ag_net_n_outputs(const ag_net_t *net) { return net ? ag_model_config(net->b.model)->n_out : 0; }

igraph_integer_t ag_net_n_inputs(const ag_net_t *net) { return net ? ag_model_config(net->b.model)->in_dim : 0; }

igraph_integer_t ag_net_feature_width(const ag_net_t *net) {
    return !net ? 0 : net->b.table.width > 0 ? net->b.table.width : ag_net_n_inputs(net);
}

igraph_integer_t ag_net_n_layers(const ag_net_t *net) { return net ? ag_model_config(net->b.model)->n_blocks : 0; }

ag_bundle_t *ag_net_bundle(ag_net_t *net) { return net ? &net->b : NULL; }

ag_error_t ag_net_merge(ag_net_t *dst, ag_net_t **src) {
    if (!dst || !src || !*src) return AG_ERROR(AG_EINVAL, "ag_net_merge: NULL handle");
    if (dst == *src) return AG_ERROR(AG_EINVAL, "ag_net_merge: a handle cannot join itself");
    AG_CHECK(ag_bundle_merge(&dst->b, &(*src)->b));
    ag_i_free(*src); /* its bundle was destroyed by the merge, its members now dst's */
    *src = NULL;
    return AG_SUCCESS;
}

const char *ag_net_output_name(const ag_net_t *net, igraph_integer_t i) {
    return net && i >= 0 && i < net->b.n_names ? net->b.names[i] : NULL;
}

static ag_error_t fill_strvector(igraph_strvector_t *sv, const ag_feature_attr_t *a, int64_t n) {
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_resize(sv, n);
    for (int64_t i = 0; i < n && rc == IGRAPH_SUCCESS; i++) rc = igraph_strvector_set(sv, i, a[i].name);
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory filling a string vector");
    return AG_SUCCESS;
}

ag_error_t ag_net_input_attrs(const ag_net_t *net, igraph_strvector_t *vertex_attrs, igraph_strvector_t *edge_attrs) {
    if (!net) return AG_ERROR(AG_EINVAL, "ag_net_input_attrs: NULL handle");
    if (vertex_attrs) AG_CHECK(AG_I_READY(vertex_attrs->stor_begin, "ag_net_input_attrs", "vertex_attrs"));
    if (edge_attrs) AG_CHECK(AG_I_READY(edge_attrs->stor_begin, "ag_net_input_attrs", "edge_attrs"));
    if (vertex_attrs) AG_CHECK(fill_strvector(vertex_attrs, net->b.featurizer.vattrs, net->b.featurizer.n_vattrs));
    if (edge_attrs) AG_CHECK(fill_strvector(edge_attrs, net->b.featurizer.eattrs, net->b.featurizer.n_eattrs));
    return AG_SUCCESS;
}

ag_error_t ag_net_output_names(const ag_net_t *net, igraph_strvector_t *names) {
    if (!net || !names) return AG_ERROR(AG_EINVAL, "ag_net_output_names: NULL argument");
    AG_CHECK(AG_I_READY(names->stor_begin, "ag_net_output_names", "names"));
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_strvector_resize(names, net->b.n_names);
    for (int64_t i = 0; i < net->b.n_names && rc == IGRAPH_SUCCESS; i++)
        rc = igraph_strvector_set(names, i, net->b.names[i]);
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory filling a string vector");
    return AG_SUCCESS;
}

/* ---- model inputs and one forward pass */

/* A caller's feature matrix as float32 (ag_fmat_from_igraph()), its errors naming it: "matrix value
 * at row 4, column 1 is NaN" alone does not say which of the caller's matrices held the NaN. */
static ag_error_t features_from_igraph(ag_fmat_t *T, const igraph_matrix_t *features) {
    ag_error_t rc = ag_fmat_from_igraph(T, features);
    if (rc != AG_SUCCESS) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ag_error_message());
        return AG_ERROR(rc, "feature matrix: %s", msg);
    }
    return AG_SUCCESS;
}

/* The model inputs of a graph: X (N x F), E (E x Fe), from attributes and / or a caller's matrix
 * (the rules are at the top of api.h). */
static ag_error_t net_inputs(const ag_net_t *net, const igraph_t *ig, const igraph_matrix_t *features, ag_fmat_t *X,
                             ag_fmat_t *E) {
    const ag_bundle_t *b = &net->b;
    const ag_model_config_t *c = ag_model_config(b->model);
    /* as the file readers have it: an empty graph is no molecule nor network to predict */
    if (vcount(ig) == 0) return AG_ERROR(AG_EVALUE, "the graph has no vertices: nothing to predict");
    if (!features) {
        if (b->table.width > 0)
            return AG_ERROR(AG_EMISMATCH,
                            "the model was trained with a feature matrix of %lld columns per vertex; pass one as "
                            "`features`",
                            (long long)b->table.width);
        return ag_bundle_featurize(b, ig, NULL, X, E);
    }
    int64_t N = vcount(ig), rows = igraph_matrix_nrow(features), cols = igraph_matrix_ncol(features);
    int64_t want = ag_net_feature_width(net);
    if (rows != N)
        return AG_ERROR(AG_EMISMATCH, "the feature matrix has %lld rows; the graph has %lld vertices", (long long)rows,
                        (long long)N);
    if (cols != want)
        return AG_ERROR(AG_EMISMATCH, "the feature matrix has %lld columns; the model expects %lld (%s)",
                        (long long)cols, (long long)want,
                        b->table.width > 0 ? "the width of the feature matrix it was trained with"
                                           : "its input width: the matrix replaces the attribute features");
    ag_fmat_t T = {0};
    ag_error_t rc = features_from_igraph(&T, features);
    if (rc != AG_SUCCESS) return rc;
    if (b->table.width > 0) {
        rc = ag_bundle_featurize(b, ig, &T, X, E);
        ag_fmat_destroy(&T);
        return rc;
    }
    /* the edge features still come from the edge attributes; the vertex attributes need not be there */
    rc = c->edge_dim > 0 ? ag_featurizer_transform_edges(&b->featurizer, ig, E) : AG_SUCCESS;
    if (rc != AG_SUCCESS) {
        ag_fmat_destroy(&T);
        return rc;
    }
    ag_fmat_destroy(X);
    *X = T;
    return AG_SUCCESS;
}

ag_error_t ag_net_featurize(const ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                            igraph_matrix_t *X, igraph_matrix_t *E) {
    if (!net || !graph || !X) return AG_ERROR(AG_EINVAL, "ag_net_featurize: NULL net, graph or X");
    if (features) AG_CHECK(AG_I_READY(features->data.stor_begin, "ag_net_featurize", "features"));
    AG_CHECK(AG_I_READY(X->data.stor_begin, "ag_net_featurize", "X"));
    if (E) AG_CHECK(AG_I_READY(E->data.stor_begin, "ag_net_featurize", "E"));
    const int64_t Fe = ag_model_config(net->b.model)->edge_dim;
    ag_fmat_t x = {0}, e = {0};
    ag_error_t rc = net_inputs(net, graph, features, &x, &e);
    if (rc == AG_SUCCESS) rc = ag_fmat_to_igraph(&x, X);
    if (rc == AG_SUCCESS && E) {
        if (Fe > 0) {
            rc = ag_fmat_to_igraph(&e, E);
        } else { /* the model reads no edge features (its featuriser may still list some) */
            ag_i_igraph_enter();
            int64_t n_edges = igraph_ecount(graph);
            ag_i_igraph_leave();
            rc = resize_matrix(E, n_edges, 0, 0.0);
        }
    }
    ag_fmat_destroy(&x);
    ag_fmat_destroy(&e);
    return rc;
}

ag_error_t ag_net_feature_names(const ag_net_t *net, igraph_strvector_t *x_names, igraph_strvector_t *e_names) {
    if (!net) return AG_ERROR(AG_EINVAL, "ag_net_feature_names: NULL handle");
    if (x_names) AG_CHECK(AG_I_READY(x_names->stor_begin, "ag_net_feature_names", "x_names"));
    if (e_names) AG_CHECK(AG_I_READY(e_names->stor_begin, "ag_net_feature_names", "e_names"));
    const ag_featurizer_t *f = &net->b.featurizer;
    const ag_table_norm_t *t = &net->b.table;
    const int64_t F = ag_net_n_inputs(net), Fe = ag_model_config(net->b.model)->edge_dim;
    igraph_error_t irc = IGRAPH_SUCCESS;
    ag_i_igraph_enter();
    if (x_names) irc = igraph_strvector_resize(x_names, F);
    for (int64_t j = 0; x_names && j < F && irc == IGRAPH_SUCCESS; j++) {
        char buf[32];
        const char *name = j < f->n_features ? ag_featurizer_column_name(f, j) : NULL;
        if (!name && t->columns && j - f->n_features < t->width) name = t->columns[j - f->n_features];
        if (!name) { /* a column of the feature matrix the model was trained with */
            snprintf(buf, sizeof buf, "features.%lld", (long long)(j - f->n_features + 1));
            name = buf;
        }
        irc = igraph_strvector_set(x_names, j, name);
    }
    if (e_names && irc == IGRAPH_SUCCESS) irc = igraph_strvector_resize(e_names, Fe);
    for (int64_t j = 0; e_names && j < Fe && irc == IGRAPH_SUCCESS; j++) {
        const char *name = ag_featurizer_edge_column_name(f, j);
        irc = igraph_strvector_set(e_names, j, name ? name : "");
    }
    ag_i_igraph_leave();
    if (irc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory filling a string vector");
    return AG_SUCCESS;
}

/* What one forward pass keeps alive (the batch points into X, E and g). */
typedef struct run_t {
    ag_fmat_t X, E, Y; /* (N x F), (E x Fe), (rows x C) */
    ag_graph_t g;
    ag_batch_t batch;
    int have_batch;
} run_t;

static void run_destroy(run_t *r) {
    if (r->have_batch) ag_batch_destroy(&r->batch);
    ag_graph_destroy(&r->g);
    ag_fmat_destroy(&r->X);
    ag_fmat_destroy(&r->E);
    ag_fmat_destroy(&r->Y);
}

/* The handle's prediction for one graph into r->Y; first_only: member 0's raw outputs instead,
 * the one forward pass whose activations ag_net_attention() reads (an ensemble's other members
 * would only be run to be ignored). */
static ag_error_t net_run(ag_net_t *net, const igraph_t *ig, const igraph_matrix_t *features, int first_only,
                          run_t *r) {
    memset(r, 0, sizeof *r);
    const ag_model_config_t *c = ag_model_config(net->b.model);
    ag_error_t rc = net_inputs(net, ig, features, &r->X, &r->E);
    if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&r->g, ig);
    if (rc == AG_SUCCESS) rc = ag_fmat_init(&r->Y, ag_task_is_graph_level(c->task) ? 1 : r->g.n_nodes, c->n_out);
    if (rc == AG_SUCCESS) {
        ag_batch_init(&r->batch, &r->g, r->X.data, c->edge_dim > 0 ? r->E.data : NULL);
        r->have_batch = 1;
        if (first_only) {
            rc = ag_model_forward(net->b.model, &r->batch, 0, NULL, r->Y.data);
        } else {
            /* without the attention caches: nothing reads them after a prediction (ag_net_attention
             * runs first_only); a net always has members, and the call refuses an empty list */
            rc = ag_i_ensemble_predict_lean(net->b.members, net->b.n_members, &r->batch, r->Y.data);
        }
    }
    if (rc != AG_SUCCESS) run_destroy(r);
    return rc;
}

/* net and graph given, and the caller's feature matrix (may be NULL) ready: igraph_matrix_destroy
 * frees the data but keeps the row and column counts, so a destroyed matrix of the right shape
 * would pass the shape checks and be read through a NULL pointer. */
static ag_error_t check_args(const ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                             const char *fn) {
    if (!net || !graph) return AG_ERROR(AG_EINVAL, "%s: NULL net or graph", fn);
    if (features) AG_CHECK(AG_I_READY(features->data.stor_begin, fn, "features"));
    return AG_SUCCESS;
}

/* ---- predicting */

ag_error_t ag_net_predict_nodes(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                igraph_vector_int_t *labels, igraph_matrix_t *probs) {
    AG_CHECK(check_args(net, graph, features, "ag_net_predict_nodes"));
    if (labels) AG_CHECK(AG_I_READY(labels->stor_begin, "ag_net_predict_nodes", "labels"));
    if (probs) AG_CHECK(AG_I_READY(probs->data.stor_begin, "ag_net_predict_nodes", "probs"));
    ag_task_t task = ag_net_task(net);
    if (ag_task_is_graph_level(task))
        return AG_ERROR(AG_EINVAL, "ag_net_predict_nodes: the model predicts whole graphs (%s); use "
                        "ag_net_predict_graph", ag_task_name(task));
    if (labels && task != AG_TASK_NODE_CLASSIFICATION)
        return AG_ERROR(AG_EINVAL, "ag_net_predict_nodes: labels need a classification model, not %s",
                        ag_task_name(task));
    run_t r;
    AG_CHECK(net_run(net, graph, features, 0, &r));
    int64_t N = r.Y.rows, C = r.Y.cols;
    ag_error_t rc = AG_SUCCESS;
    if (probs) rc = ag_fmat_to_igraph(&r.Y, probs);
    if (rc == AG_SUCCESS && labels) {
        ag_i_igraph_enter();
        igraph_error_t irc = igraph_vector_int_resize(labels, N);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS) rc = AG_ERROR(AG_ENOMEM, "out of memory resizing the labels vector");
        for (int64_t i = 0; i < N && rc == AG_SUCCESS; i++) {
            const float *row = r.Y.data + i * C;
            int64_t best = 0;
            for (int64_t k = 1; k < C; k++)
                if (row[k] > row[best]) best = k;
            VECTOR(*labels)[i] = best;
        }
    }
    run_destroy(&r);
    return rc;
}

static ag_error_t predict_graph(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features, run_t *r,
                                const char *fn) {
    AG_CHECK(check_args(net, graph, features, fn));
    ag_task_t task = ag_net_task(net);
    if (!ag_task_is_graph_level(task))
        return AG_ERROR(AG_EINVAL, "%s: the model predicts nodes (%s); use ag_net_predict_nodes", fn,
                        ag_task_name(task));
    return net_run(net, graph, features, 0, r);
}

static ag_error_t row_to_vector(const float *row, int64_t n, igraph_vector_t *out) {
    ag_i_igraph_enter();
    igraph_error_t rc = igraph_vector_resize(out, n);
    ag_i_igraph_leave();
    if (rc != IGRAPH_SUCCESS) return AG_ERROR(AG_ENOMEM, "out of memory resizing an igraph vector");
    for (int64_t i = 0; i < n; i++) VECTOR(*out)[i] = row[i];
    return AG_SUCCESS;
}

ag_error_t ag_net_predict_graph(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                igraph_vector_t *out) {
    if (!out) return AG_ERROR(AG_EINVAL, "ag_net_predict_graph: NULL output vector");
    AG_CHECK(AG_I_READY(out->stor_begin, "ag_net_predict_graph", "out"));
    run_t r;
    AG_CHECK(predict_graph(net, graph, features, &r, "ag_net_predict_graph"));
    ag_error_t rc = row_to_vector(r.Y.data, r.Y.cols, out);
    run_destroy(&r);
    return rc;
}

/* Graphs per block-diagonal pass of ag_net_predict_graphs(): as attn-graph classify, enough rows
 * for the kernels' threads while one batch's inputs stay small. */
enum { NET_BATCH = 256 };

/* One graph of a batch: its inputs and CSR form. */
typedef struct pending_t {
    ag_fmat_t X, E; /* (N x F), (E x Fe) */
    ag_graph_t g;
} pending_t;

static void pending_destroy(pending_t *p) {
    ag_fmat_destroy(&p->X);
    ag_fmat_destroy(&p->E);
    ag_graph_destroy(&p->g);
}

/* Predicts graphs[first..first+k-1] as one block-diagonal batch, built in buf, into Y (k x C,
 * row-major). */
static ag_error_t predict_chunk(ag_net_t *net, const igraph_t *graphs, int64_t first, int64_t k, pending_t *pend,
                                ag_batch_buffer_t *buf, float *Y) {
    const ag_model_config_t *c = ag_model_config(net->b.model);
    ag_batch_member_t members[NET_BATCH];
    ag_error_t rc = AG_SUCCESS;
    for (int64_t i = 0; i < k && rc == AG_SUCCESS; i++) {
        rc = net_inputs(net, &graphs[first + i], NULL, &pend[i].X, &pend[i].E);
        if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&pend[i].g, &graphs[first + i]);
        if (rc != AG_SUCCESS) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", ag_error_message());
            rc = AG_ERROR(rc, "graph %lld: %s", (long long)(first + i), msg);
            break;
        }
        members[i] = (ag_batch_member_t){&pend[i].g, &pend[i].X, &pend[i].E};
    }
    if (rc == AG_SUCCESS) {
        ag_batch_t batch;
        rc = ag_batch_buffer_fill(buf, members, k, c->in_dim, c->edge_dim, &batch);
        /* the batch dies here: nothing can ask its attention weights */
        if (rc == AG_SUCCESS) rc = ag_i_ensemble_predict_lean(net->b.members, net->b.n_members, &batch, Y);
        ag_batch_destroy(&batch);
    }
    for (int64_t i = 0; i < k; i++) pending_destroy(&pend[i]);
    return rc;
}

ag_error_t ag_net_predict_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                 igraph_matrix_t *out) {
    if (!net || !out || (n_graphs > 0 && !graphs))
        return AG_ERROR(AG_EINVAL, "ag_net_predict_graphs: NULL net, graphs or output matrix");
    if (n_graphs < 0) return AG_ERROR(AG_EINVAL, "ag_net_predict_graphs: n_graphs %lld", (long long)n_graphs);
    AG_CHECK(AG_I_READY(out->data.stor_begin, "ag_net_predict_graphs", "out"));
    ag_task_t task = ag_net_task(net);
    if (!ag_task_is_graph_level(task))
        return AG_ERROR(AG_EINVAL, "ag_net_predict_graphs: the model predicts nodes (%s); use ag_net_predict_nodes",
                        ag_task_name(task));
    if (net->b.table.width > 0)
        return AG_ERROR(AG_EINVAL, "ag_net_predict_graphs: the model was trained with a feature matrix of %lld "
                        "columns per vertex; pass each graph's to ag_net_predict_graph",
                        (long long)net->b.table.width);
    const int64_t G = n_graphs, C = ag_model_config(net->b.model)->n_out;
    ag_fmat_t Y = {0};  /* (G x C) */
    pending_t *pend = NULL; /* (NET_BATCH) */
    ag_batch_buffer_t buf; /* one batch after another: (N x F), (E x Fe) */
    ag_batch_buffer_init(&buf);
    AG_CHECK(ag_fmat_init(&Y, G, C));
    ag_error_t rc = ag_i_alloc_array((void **)&pend, NET_BATCH, sizeof *pend, "graph batch");
    for (int64_t s = 0; s < G && rc == AG_SUCCESS; s += NET_BATCH) {
        const int64_t k = G - s < NET_BATCH ? G - s : NET_BATCH;
        memset(pend, 0, (size_t)k * sizeof *pend);
        rc = predict_chunk(net, graphs, s, k, pend, &buf, Y.data + s * C);
    }
    /* out changes only once every graph is predicted */
    if (rc == AG_SUCCESS) rc = ag_fmat_to_igraph(&Y, out);
    ag_batch_buffer_destroy(&buf);
    ag_i_free(pend);
    ag_fmat_destroy(&Y);
    return rc;
}

ag_error_t ag_net_classify_graph(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                 igraph_integer_t *label, igraph_vector_t *probs) {
    if (!label) return AG_ERROR(AG_EINVAL, "ag_net_classify_graph: NULL label");
    if (probs) AG_CHECK(AG_I_READY(probs->stor_begin, "ag_net_classify_graph", "probs"));
    if (net && ag_net_task(net) != AG_TASK_GRAPH_CLASSIFICATION)
        return AG_ERROR(AG_EINVAL, "ag_net_classify_graph: the model is %s, not graph-classification",
                        ag_task_name(ag_net_task(net)));
    run_t r;
    AG_CHECK(predict_graph(net, graph, features, &r, "ag_net_classify_graph"));
    int64_t best = 0;
    for (int64_t k = 1; k < r.Y.cols; k++)
        if (r.Y.data[k] > r.Y.data[best]) best = k;
    *label = best;
    ag_error_t rc = probs ? row_to_vector(r.Y.data, r.Y.cols, probs) : AG_SUCCESS;
    run_destroy(&r);
    return rc;
}

/* ---- Correct and Smooth with the weights the model stores */

ag_error_t ag_net_smooth_nodes(const ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *probs,
                               const igraph_vector_int_t *known, igraph_matrix_t *result) {
    if (!net || !graph || !probs || !result)
        return AG_ERROR(AG_EINVAL, "ag_net_smooth_nodes: NULL net, graph, probabilities or result");
    AG_CHECK(AG_I_READY(probs->data.stor_begin, "ag_net_smooth_nodes", "probs"));
    AG_CHECK(AG_I_READY(result->data.stor_begin, "ag_net_smooth_nodes", "result"));
    if (known) AG_CHECK(AG_I_READY(known->stor_begin, "ag_net_smooth_nodes", "known"));
    const ag_bundle_t *b = &net->b;
    ag_task_t task = ag_net_task(net);
    if (task != AG_TASK_NODE_CLASSIFICATION)
        return AG_ERROR(AG_EINVAL, "ag_net_smooth_nodes: Correct and Smooth is for node classification, not %s",
                        ag_task_name(task));
    if (!b->has_smooth)
        return AG_ERROR(AG_EINVAL, "ag_net_smooth_nodes: the model stores no Correct and Smooth weights (attn-graph "
                        "train --smooth, ag_bundle_set_smooth); ag_label_smooth takes weights of your own");
    if (igraph_matrix_ncol(probs) != b->n_names)
        return AG_ERROR(AG_EMISMATCH, "ag_net_smooth_nodes: the probabilities have %lld columns; the model has %lld "
                        "classes", (long long)igraph_matrix_ncol(probs), (long long)b->n_names);
    if (known) return ag_label_smooth(graph, probs, known, &b->smooth, result);
    if (!b->label_attr)
        return AG_ERROR(AG_EINVAL, "ag_net_smooth_nodes: the model names no vertex attribute of known classes (one "
                        "trained by ag_net_train_nodes: ag_bundle_set_label_attr names one); pass them as `known`");
    ag_labels_t lab;
    AG_CHECK(ag_labels_from_attr(&lab, graph, b->label_attr, (const char *const *)b->names, b->n_names));
    igraph_vector_int_t k;
    ag_i_igraph_enter();
    igraph_error_t irc = igraph_vector_int_init(&k, lab.n);
    ag_i_igraph_leave();
    if (irc != IGRAPH_SUCCESS) {
        ag_labels_destroy(&lab);
        return AG_ERROR(AG_ENOMEM, "out of memory for the known classes");
    }
    for (int64_t i = 0; i < lab.n; i++) VECTOR(k)[i] = lab.y[i];
    ag_labels_destroy(&lab);
    ag_error_t rc = ag_label_smooth(graph, probs, &k, &b->smooth, result);
    ag_i_igraph_enter();
    igraph_vector_int_destroy(&k);
    ag_i_igraph_leave();
    return rc;
}

/* ---- attention */

ag_error_t ag_net_attention(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                            igraph_integer_t layer,
                            igraph_matrix_t *edge_alpha, igraph_matrix_t *edge_alpha_rev,
                            igraph_matrix_t *self_alpha) {
    AG_CHECK(check_args(net, graph, features, "ag_net_attention"));
    if (!edge_alpha) return AG_ERROR(AG_EINVAL, "ag_net_attention: NULL edge_alpha");
    AG_CHECK(AG_I_READY(edge_alpha->data.stor_begin, "ag_net_attention", "edge_alpha"));
    if (edge_alpha_rev) AG_CHECK(AG_I_READY(edge_alpha_rev->data.stor_begin, "ag_net_attention", "edge_alpha_rev"));
    if (self_alpha) AG_CHECK(AG_I_READY(self_alpha->data.stor_begin, "ag_net_attention", "self_alpha"));
    if (layer < 0 || layer >= ag_net_n_layers(net))
        return AG_ERROR(AG_EINVAL, "ag_net_attention: the model has %lld attention blocks (layers 0..%lld), not %lld",
                        (long long)ag_net_n_layers(net), (long long)ag_net_n_layers(net) - 1, (long long)layer);
    run_t r;
    AG_CHECK(net_run(net, graph, features, 1, &r));
    const ag_mask_t *mask = NULL;
    float *alpha = NULL; /* (M x H) */
    int64_t H = ag_model_attention_heads(net->b.model, (int)layer), N = r.g.n_nodes, E = r.g.n_edges;
    ag_error_t rc = ag_model_attention_weights(net->b.model, &r.batch, (int)layer, &mask, NULL);
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&alpha, mask->n_entries * H + 1, sizeof(float), "attention");
    if (rc == AG_SUCCESS) rc = ag_model_attention_weights(net->b.model, &r.batch, (int)layer, &mask, alpha);
    if (rc == AG_SUCCESS) rc = resize_matrix(edge_alpha, E, H, NAN);
    if (rc == AG_SUCCESS && edge_alpha_rev) rc = resize_matrix(edge_alpha_rev, E, H, NAN);
    if (rc == AG_SUCCESS && self_alpha) rc = resize_matrix(self_alpha, N, H, NAN);
    if (rc == AG_SUCCESS) {
        ag_i_igraph_enter();
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = mask->indptr[i]; k < mask->indptr[i + 1]; k++) {
                int64_t e = mask->edge[k], src = mask->src[k];
                const float *a = alpha + k * H;
                if (e < 0) { /* an added self-loop, or a k-hop pair that is not an edge */
                    if (src == i && self_alpha)
                        for (int64_t h = 0; h < H; h++) MATRIX(*self_alpha, i, h) = a[h];
                    continue;
                }
                /* the stored ends, as attn-graph explain and igraph_write_graph_gml use them */
                igraph_integer_t from = IGRAPH_FROM(graph, e), to = IGRAPH_TO(graph, e);
                igraph_matrix_t *dst = NULL, *dst2 = NULL;
                if (i == to && src == from) {
                    dst = edge_alpha;
                    if (from == to && !r.g.directed) dst2 = edge_alpha_rev;
                } else if (!r.g.directed && i == from && src == to) {
                    dst = edge_alpha_rev;
                }
                for (int64_t h = 0; h < H; h++) {
                    if (dst) MATRIX(*dst, e, h) = a[h];
                    if (dst2) MATRIX(*dst2, e, h) = a[h];
                }
            }
        ag_i_igraph_leave();
    }
    ag_i_free(alpha);
    run_destroy(&r);
    return rc;
}

/* ---- training options -> configurations (the same mapping as `attn-graph train`) */

/* Featuriser lists are comma-separated strings; the parts live in `buf`. */
typedef struct feat_lists_t {
    char *buf[3];
    const char **items[3];
} feat_lists_t;

static void feat_lists_destroy(feat_lists_t *l) {
    for (int i = 0; i < 3; i++) {
        ag_i_free(l->buf[i]);
        ag_i_free((void *)l->items[i]);
    }
}

/* Splits a comma-separated list into items (empty items dropped). */
static ag_error_t split_list(const char *s, char **buf, const char ***items, int64_t *n) {
    int64_t cap = 1;
    for (const char *p = s; p && *p; p++) cap += *p == ',';
    AG_CHECK(ag_i_alloc_array((void **)items, cap, sizeof(char *), "option list"));
    *n = 0;
    if (!s) return AG_SUCCESS;
    if (!(*buf = ag_i_strdup(s))) return AG_ERROR(AG_ENOMEM, "out of memory");
    for (char *tok = *buf; tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        if (*tok) (*items)[(*n)++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    return AG_SUCCESS;
}

static ag_error_t select_option(const char *s, ag_attr_select_t *sel, char **buf, const char ***items, int64_t *n) {
    *n = 0;
    if (!s || !strcmp(s, "all")) {
        *sel = AG_SELECT_ALL;
        return AG_SUCCESS;
    }
    if (!strcmp(s, "none")) {
        *sel = AG_SELECT_NONE;
        return AG_SUCCESS;
    }
    *sel = AG_SELECT_LIST;
    return split_list(s, buf, items, n);
}

static ag_error_t feature_config(const ag_net_train_options_t *o, ag_featurizer_config_t *fc, feat_lists_t *l,
                                 ag_feature_norm_t *norm) {
    ag_featurizer_config_init(fc);
    int64_t n;
    AG_CHECK(select_option(o->vertex_attrs, &fc->vertex_select, &l->buf[0], &l->items[0], &n));
    fc->vertex_attrs = l->items[0];
    fc->n_vertex_attrs = n;
    AG_CHECK(select_option(o->edge_attrs, &fc->edge_select, &l->buf[1], &l->items[1], &n));
    fc->edge_attrs = l->items[1];
    fc->n_edge_attrs = n;
    /* besides the defaults: "id" and attn-graph's own outputs */
    AG_CHECK(split_list(o->exclude_attrs, &l->buf[2], &l->items[2], &n));
    fc->exclude_more = l->items[2];
    fc->n_exclude_more = n;
    *norm = AG_NORM_NONE;
    if (o->normalize) {
        static const char *const names[] = {"none", "standard", "l1", "auto"};
        static const ag_feature_norm_t norms[] = {AG_NORM_NONE, AG_NORM_STANDARDIZE, AG_NORM_L1_ROWS,
                                                  AG_NORM_STANDARDIZE_RAW};
        int k;
        AG_CHECK(ag_i_option_index("normalize", o->normalize, names, 4, &k));
        *norm = norms[k];
    }
    fc->norm = *norm;
    fc->degree = o->degree;
    fc->lap_pe_k = o->lap_pe > 0 ? o->lap_pe : 0;
    fc->rw_pe_k = o->rw_pe > 0 ? o->rw_pe : 0;
    return AG_SUCCESS;
}

/* *chosen: the options with the preset resolved for the prepared data (as `attn-graph train`
 * resolves it); returns 1 when the data has edge features that model would not read, so that
 * the caller featurises again without them. */
static int choose_preset(const ag_net_train_options_t *o, ag_task_t task, const ag_prepared_t *p,
                         const int64_t *train, int64_t n_train, ag_net_train_options_t *chosen) {
    *chosen = *o;
    chosen->preset = ag_net_train_options_preset(o, task, p, train, n_train, NULL);
    return p->featurizer.n_edge_features > 0 && !ag_net_train_options_uses_edges(chosen, task);
}

/* Builds the model (o's preset resolved), trains it on the prepared set and wraps everything into
 * a new handle. */
static ag_error_t build_and_train(ag_net_t **net, ag_prepared_t *p, ag_task_t task, const ag_net_train_options_t *o,
                                  const int64_t *train, int64_t n_train, const int64_t *val, int64_t n_val,
                                  const char *target_column, ag_train_result_t *result) {
    ag_train_config_t tc;
    ag_model_config_t mc;
    AG_CHECK(ag_net_train_options_train_config(o, task, &tc));
    AG_CHECK(ag_net_train_options_model_config(o, task, p->set.examples[0].X.cols, p->featurizer.n_edge_features,
                                               p->n_out, &mc));
    ag_net_train_options_sign_flip(o, task, &p->featurizer, &tc);
    tc.metric = ag_metric_for_validation(tc.metric, task, ag_trainset_count_labelled(&p->set, val, n_val));
    if (o->threads > 0) ag_threads_set(o->threads);
    ag_model_t *model = NULL;
    AG_CHECK(ag_model_create(&model, &mc));
    ag_train_result_t res;
    ag_error_t rc = ag_model_train(model, &p->set, train, n_train, val, n_val, &tc, &res);
    ag_net_t *n = NULL;
    if (rc == AG_SUCCESS && !(n = ag_i_calloc(1, sizeof *n))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
    if (rc == AG_SUCCESS)
        rc = ag_bundle_init(&n->b, &model, &p->featurizer, &p->table, (const char *const *)p->names, p->n_out,
                            p->label_attr);
    if (rc == AG_SUCCESS && target_column) rc = ag_bundle_set_target_column(&n->b, target_column);
    ag_model_destroy(model);
    if (rc != AG_SUCCESS) {
        ag_net_destroy(n);
        return rc;
    }
    if (result) *result = res;
    *net = n;
    return AG_SUCCESS;
}

/* ---- graph tasks */

/* A dataset view of the caller's graphs (not copied) with targets from the matrix. Task names are
 * `names` when given (a model's), else "target" for one column and "task1".."taskT" for several. */
typedef struct graph_data_t {
    ag_dataset_t ds;
    char **files;    /* (G) "graph g", for messages, g the caller's index */
    igraph_t *picked; /* (G) shallow copies of the listed graphs, read only; NULL: ds.graphs is the caller's */
} graph_data_t;

static void graph_data_destroy(graph_data_t *d) {
    ag_targets_destroy(&d->ds.targets);
    ag_i_strings_free(d->files, d->ds.n_graphs);
    ag_i_free(d->picked); /* the copies share the caller's graphs' storage: never igraph_destroy'ed */
    memset(d, 0, sizeof *d);
}

/* The view of the caller's n_all graphs, or only of the n listed in `rows` (NULL: all, n unused):
 * evaluation featurises the graphs it scores, not the others, whose cost (and defects, such as a
 * missing attribute) are not the question asked. */
static ag_error_t graph_data(graph_data_t *d, const igraph_t *graphs, int64_t n_all, const igraph_matrix_t *targets,
                             char *const *names, int64_t n_names, const int64_t *rows, int64_t n, const char *fn) {
    memset(d, 0, sizeof *d);
    if (n_all < 1) return AG_ERROR(AG_EINVAL, "%s: no graphs (n_graphs %lld)", fn, (long long)n_all);
    if (!graphs) return AG_ERROR(AG_EINVAL, "%s: NULL graphs array (n_graphs %lld)", fn, (long long)n_all);
    if (!targets) return AG_ERROR(AG_EINVAL, "%s: NULL targets matrix", fn);
    /* a destroyed matrix keeps its shape: its rows would be read through a NULL pointer */
    AG_CHECK(AG_I_READY(targets->data.stor_begin, fn, "targets"));
    int64_t n_rows = igraph_matrix_nrow(targets), T = igraph_matrix_ncol(targets);
    if (n_rows != n_all)
        return AG_ERROR(AG_EMISMATCH, "the targets matrix has %lld rows for %lld graphs", (long long)n_rows,
                        (long long)n_all);
    if (T < 1) return AG_ERROR(AG_EMISMATCH, "the targets matrix has no column");
    const int64_t G = rows ? n : n_all;
    ag_targets_t *t = &d->ds.targets;
    d->ds.n_graphs = G;
    d->ds.graphs = (igraph_t *)graphs; /* read-only: ag_prepared_from_* take the dataset as const */
    ag_error_t rc = AG_SUCCESS;
    if (rows) {
        rc = ag_i_alloc_array((void **)&d->picked, G, sizeof *d->picked, "listed graphs");
        for (int64_t g = 0; g < G && rc == AG_SUCCESS; g++) d->picked[g] = graphs[rows[g]];
        d->ds.graphs = d->picked;
    }
    double *column = NULL; /* (G) one target column of the listed rows, for the spread check */
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&column, G, sizeof *column, "targets");
    if (rc == AG_SUCCESS) rc = ag_fmat_init(&t->y, G, T);
    t->n_graphs = G;
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&t->tasks, T, sizeof(char *), "targets");
    if (rc == AG_SUCCESS) t->n_tasks = T;
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&t->kinds, T, sizeof(ag_task_kind_t), "targets");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&t->n_classes, T, sizeof(int64_t), "targets");
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&d->files, G, sizeof(char *), "graph names");
    for (int64_t g = 0; g < G && rc == AG_SUCCESS; g++) {
        char buf[48];
        const long long at = rows ? (long long)rows[g] : (long long)g;
        snprintf(buf, sizeof buf, "graph %lld", at);
        if (!(d->files[g] = ag_i_strdup(buf))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        /* a graph without vertices would join a batch as nothing, its target trained on no input */
        else if (vcount(&d->ds.graphs[g]) == 0) rc = AG_ERROR(AG_EVALUE, "graph %lld has no vertices", at);
    }
    for (int64_t j = 0; j < T && rc == AG_SUCCESS; j++) {
        char buf[48];
        if (names && n_names == T) snprintf(buf, sizeof buf, "%s", names[j]);
        else if (T == 1) snprintf(buf, sizeof buf, "target");
        else snprintf(buf, sizeof buf, "task%lld", (long long)j + 1);
        if (!(t->tasks[j] = ag_i_strdup(buf))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        int binary = 1;
        for (int64_t g = 0; g < G && rc == AG_SUCCESS; g++) {
            const int64_t row = rows ? rows[g] : g;
            double v = MATRIX(*targets, row, j);
            column[g] = v;
            if (!isnan(v) && !(fabs(v) <= FLT_MAX)) {
                char where[64];
                snprintf(where, sizeof where, "targets: row %lld, column %lld", (long long)row, (long long)j);
                rc = ag_i_target_range_error(v, where, "column", "a missing target");
            }
            t->y.data[g * T + j] = (float)v;
            if (!isnan(v) && v != 0.0 && v != 1.0) binary = 0;
        }
        if (rc == AG_SUCCESS && !binary && G > 0) {
            char which[64];
            snprintf(which, sizeof which, "targets column %lld", (long long)j);
            rc = ag_i_check_target_spread(column, G, which);
        }
        t->kinds[j] = binary ? AG_TASK_BINARY : AG_TASK_REGRESSION;
        t->n_classes[j] = binary ? 2 : 0;
    }
    ag_i_free(column);
    if (rc == AG_SUCCESS) d->ds.files = d->files;
    if (rc != AG_SUCCESS) graph_data_destroy(d);
    return rc;
}

ag_error_t ag_net_train_graphs(ag_net_t **net, const igraph_t *graphs, igraph_integer_t n_graphs,
                               const igraph_matrix_t *targets, const igraph_vector_int_t *train,
                               const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                               ag_train_result_t *result) {
    if (!net) return AG_ERROR(AG_EINVAL, "ag_net_train_graphs: NULL net");
    *net = NULL;
    ag_net_train_options_t defaults;
    ag_net_train_options_init(&defaults);
    const ag_net_train_options_t *o = opts ? opts : &defaults;
    graph_data_t d;
    AG_CHECK(graph_data(&d, graphs, n_graphs, targets, NULL, 0, NULL, 0, "ag_net_train_graphs"));
    ag_task_t task = ag_task_infer(&d.ds.targets);
    ag_error_t rc = o->task ? ag_task_from_name(o->task, &task) : AG_SUCCESS;
    if (rc == AG_SUCCESS && !ag_task_is_graph_level(task))
        rc = AG_ERROR(AG_EINVAL, "option task: %s is not a graph task (use ag_net_train_nodes or "
                      "ag_net_train_node_values)", ag_task_name(task));
    int64_t *tr = NULL, *va = NULL, n_tr = n_graphs, n_va = 0;
    if (rc == AG_SUCCESS && train) rc = index_list(train, n_graphs, "train", &tr, &n_tr);
    if (rc == AG_SUCCESS && !train) {
        rc = ag_i_alloc_array((void **)&tr, n_graphs, sizeof(int64_t), "train");
        for (int64_t g = 0; g < n_graphs && rc == AG_SUCCESS; g++) tr[g] = g;
    }
    if (rc == AG_SUCCESS && val) rc = index_list(val, n_graphs, "val", &va, &n_va);
    if (rc == AG_SUCCESS) rc = check_parts(train, tr, n_tr, va, n_va, n_graphs, "graph");
    if (rc == AG_SUCCESS && n_tr == 0) rc = AG_ERROR(AG_EINVAL, "train: no graph to train on");
    ag_featurizer_config_t fc;
    ag_feature_norm_t norm;
    feat_lists_t fl;
    memset(&fl, 0, sizeof fl);
    ag_prepared_t p;
    memset(&p, 0, sizeof p);
    if (rc == AG_SUCCESS) rc = feature_config(o, &fc, &fl, &norm);
    /* graphs without attributes train on their degrees, as the program's; vertex_attrs is a choice */
    fc.degree_if_featureless = !o->vertex_attrs;
    /* the graph preset featurises too (a graph task's preset does not depend on the data) */
    if (rc == AG_SUCCESS)
        ag_net_train_options_feature_defaults(o, task, ag_net_train_options_preset(o, task, NULL, NULL, 0, NULL), &fc);
    if (rc == AG_SUCCESS) rc = ag_prepared_from_graphs(&p, &d.ds, task, &fc, tr, n_tr);
    ag_net_train_options_t chosen;
    if (rc == AG_SUCCESS && choose_preset(o, task, &p, tr, n_tr, &chosen)) {
        ag_prepared_destroy(&p);
        fc.edge_select = AG_SELECT_NONE;
        fc.n_edge_attrs = 0;
        rc = ag_prepared_from_graphs(&p, &d.ds, task, &fc, tr, n_tr);
    }
    if (rc == AG_SUCCESS)
        rc = build_and_train(net, &p, task, &chosen, tr, n_tr, va, n_va,
                             task == AG_TASK_GRAPH_CLASSIFICATION ? d.ds.targets.tasks[0] : NULL, result);
    /* as the program's train: predictions can tell a graph far outside these sizes */
    if (rc == AG_SUCCESS && (rc = ag_bundle_set_graph_sizes(&(*net)->b, graphs, tr, n_tr)) != AG_SUCCESS) {
        ag_net_destroy(*net);
        *net = NULL;
    }
    ag_prepared_destroy(&p);
    feat_lists_destroy(&fl);
    ag_i_free(tr);
    ag_i_free(va);
    graph_data_destroy(&d);
    return rc;
}

static ag_error_t evaluate_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                  const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                  ag_scores_t *scores, igraph_vector_t *per_task, const char *fn);

ag_error_t ag_net_evaluate_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                  const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                  ag_scores_t *scores) {
    return evaluate_graphs(net, graphs, n_graphs, targets, idx, scores, NULL, "ag_net_evaluate_graphs");
}

ag_error_t ag_net_evaluate_graph_tasks(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                       const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                       ag_scores_t *scores, igraph_vector_t *per_task) {
    if (!per_task) return AG_ERROR(AG_EINVAL, "ag_net_evaluate_graph_tasks: NULL per_task vector");
    AG_CHECK(AG_I_READY(per_task->stor_begin, "ag_net_evaluate_graph_tasks", "per_task"));
    return evaluate_graphs(net, graphs, n_graphs, targets, idx, scores, per_task, "ag_net_evaluate_graph_tasks");
}

/* ag_net_evaluate_graphs(), and each task's figure into per_task when it is not NULL; fn names the
 * caller in messages. */
static ag_error_t evaluate_graphs(ag_net_t *net, const igraph_t *graphs, igraph_integer_t n_graphs,
                                  const igraph_matrix_t *targets, const igraph_vector_int_t *idx,
                                  ag_scores_t *scores, igraph_vector_t *per_task, const char *fn) {
    if (!net || !scores) return AG_ERROR(AG_EINVAL, "%s: NULL net or scores", fn);
    ag_task_t task = ag_net_task(net);
    if (!ag_task_is_graph_level(task))
        return AG_ERROR(AG_EINVAL, "%s: the model is %s; use %s", fn, ag_task_name(task),
                        task == AG_TASK_NODE_REGRESSION ? "ag_net_evaluate_node_values" : "ag_net_evaluate_nodes");
    int64_t *listed = NULL, n = n_graphs; /* (n) the caller's indices of the listed graphs */
    if (idx) AG_CHECK(index_list(idx, n_graphs, "idx", &listed, &n));
    graph_data_t d;
    /* an empty list scores nothing (NaN figures), over the view of every graph as before */
    ag_error_t rc =
        graph_data(&d, graphs, n_graphs, targets, net->b.names, net->b.n_names, n > 0 ? listed : NULL, n, fn);
    ag_i_free(listed);
    if (rc != AG_SUCCESS) return rc;
    ag_prepared_t p;
    memset(&p, 0, sizeof p);
    rc = ag_prepared_from_graphs_with(&p, &d.ds, task, &net->b.featurizer, (const char *const *)net->b.names,
                                      net->b.n_names);
    int64_t *ix = NULL; /* (n) rows of the view: all of it, or none */
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&ix, n > 0 ? n : 1, sizeof(int64_t), "idx");
    for (int64_t g = 0; g < n && rc == AG_SUCCESS; g++) ix[g] = g;
    const int64_t T = ag_model_n_tasks(net->b.model);
    ag_scores_t *each = NULL; /* (T) */
    if (rc == AG_SUCCESS && per_task) rc = ag_i_alloc_array((void **)&each, T, sizeof *each, "per-task scores");
    if (rc == AG_SUCCESS) rc = ag_bundle_evaluate_tasks(&net->b, &p.set, ix, n, scores, each);
    if (rc == AG_SUCCESS && per_task) {
        ag_i_igraph_enter();
        const igraph_error_t irc = igraph_vector_resize(per_task, T);
        ag_i_igraph_leave();
        if (irc != IGRAPH_SUCCESS)
            rc = AG_ERROR(AG_ENOMEM, "%s: cannot resize per_task to %lld tasks", fn, (long long)T);
    }
    for (int64_t j = 0; rc == AG_SUCCESS && per_task && j < T; j++)
        VECTOR(*per_task)[j] = ag_scores_get(&each[j], AG_METRIC_AUTO, task);
    ag_i_free(each);
    ag_prepared_destroy(&p);
    ag_i_free(ix);
    graph_data_destroy(&d);
    return rc;
}

/* ---- node tasks */

/* The class count of a label vector (max + 1), checking its length and values. */
static ag_error_t label_classes(const igraph_vector_int_t *labels, int64_t N, int64_t *C, int64_t *n_labelled,
                                const char *fn) {
    if (!labels) return AG_ERROR(AG_EINVAL, "%s: NULL labels vector", fn);
    AG_CHECK(AG_I_READY(labels->stor_begin, fn, "labels"));
    int64_t n = igraph_vector_int_size(labels), c = 0, k = 0;
    if (n != N)
        return AG_ERROR(AG_EMISMATCH, "the labels vector has %lld entries; the graph has %lld vertices", (long long)n,
                        (long long)N);
    for (int64_t v = 0; v < N; v++) {
        int64_t y = VECTOR(*labels)[v];
        if (y < -1)
            return AG_ERROR(AG_EVALUE, "label of vertex %lld is %lld; labels are 0..C-1, or -1 for unlabelled",
                            (long long)v, (long long)y);
        if (y >= (int64_t)1 << 24) /* a class id is stored as a float32 target: exact below 2^24 */
            return AG_ERROR(AG_EVALUE, "label of vertex %lld is %lld; class ids are at most 16777215",
                            (long long)v, (long long)y);
        if (y >= 0) k++;
        if (y + 1 > c) c = y + 1;
    }
    *C = c;
    *n_labelled = k;
    return AG_SUCCESS;
}

/* The single example of a node set (its targets already written), taking over the model inputs. */
static ag_error_t node_example_take(ag_trainset_t *set, const igraph_t *ig, ag_fmat_t *X, ag_fmat_t *E) {
    ag_example_t *ex = &set->examples[0];
    ex->X = *X;
    ex->E = *E;
    memset(X, 0, sizeof *X);
    memset(E, 0, sizeof *E);
    return ag_graph_from_igraph(&ex->graph, ig);
}

/* The single example and the target column of a node set, from the model inputs. */
static ag_error_t node_set(ag_trainset_t *set, const igraph_t *ig, ag_fmat_t *X, ag_fmat_t *E,
                           const igraph_vector_int_t *labels, int64_t C) {
    int64_t N = X->rows;
    set->n_classes = C;
    AG_CHECK(ag_trainset_resize(set, 1, N, 1));
    for (int64_t v = 0; v < N; v++) {
        int64_t y = VECTOR(*labels)[v];
        if (y >= C)
            return AG_ERROR(AG_EVALUE, "label of vertex %lld is %lld; the model has %lld classes", (long long)v,
                            (long long)y, (long long)C);
        set->targets[v] = y >= 0 ? (float)y : NAN;
    }
    return node_example_take(set, ig, X, E);
}

/* The value column of a node-regression set (NaN: unlabelled), as float32 as the model holds it;
 * written before the featuriser is fitted, which compares the attributes with it. */
static ag_error_t node_value_targets(ag_trainset_t *set, const igraph_vector_t *values) {
    const int64_t N = igraph_vector_size(values);
    AG_CHECK(ag_trainset_resize(set, 1, N, 1));
    for (int64_t v = 0; v < N; v++) set->targets[v] = (float)VECTOR(*values)[v];
    return AG_SUCCESS;
}

/* values (N): each finite or NaN (unlabelled), within float32, where targets are held. */
static ag_error_t check_node_values(const igraph_vector_t *values, int64_t N, int64_t *n_labelled, const char *fn) {
    if (!values) return AG_ERROR(AG_EINVAL, "%s: NULL values vector", fn);
    AG_CHECK(AG_I_READY(values->stor_begin, fn, "values"));
    if (igraph_vector_size(values) != N)
        return AG_ERROR(AG_EMISMATCH, "the values vector has %lld entries; the graph has %lld vertices",
                        (long long)igraph_vector_size(values), (long long)N);
    int64_t k = 0;
    for (int64_t v = 0; v < N; v++) {
        const double x = VECTOR(*values)[v];
        AG_CHECK(ag_i_check_node_value(x, v, NULL));
        k += !isnan(x);
    }
    AG_CHECK(ag_i_check_target_spread(&VECTOR(*values)[0], N, "the values vector"));
    *n_labelled = k;
    return AG_SUCCESS;
}

/* Whether vertex v has a target: a label >= 0, or a value that is not NaN. */
static int node_labelled(const igraph_vector_int_t *labels, const igraph_vector_t *values, int64_t v) {
    return labels ? VECTOR(*labels)[v] >= 0 : !isnan(VECTOR(*values)[v]);
}

/* Index list from a vector, or every vertex with a target (labels, or values when labels is NULL). */
static ag_error_t node_index(const igraph_vector_int_t *v, const igraph_vector_int_t *labels,
                             const igraph_vector_t *values, int64_t N, const char *what, int64_t **out, int64_t *n) {
    if (v) return index_list(v, N, what, out, n);
    AG_CHECK(ag_i_alloc_array((void **)out, N > 0 ? N : 1, sizeof(int64_t), what));
    *n = 0;
    for (int64_t i = 0; i < N; i++)
        if (node_labelled(labels, values, i)) (*out)[(*n)++] = i;
    return AG_SUCCESS;
}

/* The featuriser of a node set, fitted without the attributes that hold the targets: those equal
 * to the values (regression) or mirroring the labels one-to-one over the labelled vertices
 * (classification), as the program leaves out --label-attr and its mirrors. */
static ag_error_t fit_node_featurizer(ag_prepared_t *p, const igraph_t *ig, const igraph_vector_int_t *labels,
                                      int64_t C, const igraph_vector_t *values, const ag_featurizer_config_t *fc) {
    ag_error_t rc;
    if (values) { /* p->set.targets holds them already (node_value_targets) */
        rc = ag_i_find_value_copies(p, ig, NULL, p->set.targets, igraph_vector_size(values));
    } else {
        const int64_t N = igraph_vector_int_size(labels);
        ag_labels_t lab = {NULL, N, NULL, C};
        rc = ag_i_alloc_array((void **)&lab.y, N > 0 ? N : 1, sizeof(int32_t), "labels");
        for (int64_t v = 0; v < N && rc == AG_SUCCESS; v++) lab.y[v] = (int32_t)VECTOR(*labels)[v];
        if (rc == AG_SUCCESS) rc = ag_i_find_excluded(p, ig, NULL, &lab);
        ag_i_free(lab.y);
    }
    return rc == AG_SUCCESS ? ag_i_fit_excluding(p, fc, ig) : rc;
}

/* A node set: C classes from labels, or with values (labels NULL) one regression target. */
static ag_error_t prepare_nodes(ag_prepared_t *p, const igraph_t *ig, const igraph_matrix_t *features,
                                const igraph_vector_int_t *labels, int64_t C, const igraph_vector_t *values,
                                const ag_featurizer_config_t *fc, ag_feature_norm_t norm) {
    ag_trainset_init(&p->set, values ? AG_TASK_NODE_REGRESSION : AG_TASK_NODE_CLASSIFICATION);
    ag_fmat_t table = {0}, X = {0}, E = {0};
    if (values) AG_CHECK(node_value_targets(&p->set, values));
    AG_CHECK(fit_node_featurizer(p, ig, labels, C, values, fc));
    ag_error_t rc = AG_SUCCESS;
    if (features) {
        int64_t N = vcount(ig);
        if (igraph_matrix_nrow(features) != N)
            return AG_ERROR(AG_EMISMATCH, "the feature matrix has %lld rows; the graph has %lld vertices",
                            (long long)igraph_matrix_nrow(features), (long long)N);
        rc = features_from_igraph(&table, features);
        int32_t *cls = NULL; /* (N) the labels as the copy check reads them */
        if (rc == AG_SUCCESS && labels) rc = ag_i_alloc_array((void **)&cls, N > 0 ? N : 1, sizeof(int32_t), "labels");
        for (int64_t v = 0; v < N && rc == AG_SUCCESS && labels; v++) cls[v] = (int32_t)VECTOR(*labels)[v];
        if (rc == AG_SUCCESS) rc = ag_i_check_table_copies(&table, cls, C, labels ? NULL : p->set.targets);
        ag_i_free(cls);
        if (rc == AG_SUCCESS) rc = ag_table_norm_fit(&p->table, &table, norm);
    }
    if (rc == AG_SUCCESS) rc = ag_inputs_featurize(&p->featurizer, &p->table, ig, features ? &table : NULL, &X, &E);
    if (rc == AG_SUCCESS)
        rc = values ? node_example_take(&p->set, ig, &X, &E) : node_set(&p->set, ig, &X, &E, labels, C);
    if (values) C = 1;
    if (rc == AG_SUCCESS) rc = ag_i_alloc_array((void **)&p->names, C, sizeof(char *), "output names");
    if (rc == AG_SUCCESS && values) { /* the name graph regression gives one unnamed column */
        if (!(p->names[0] = ag_i_strdup("target"))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        p->n_out = 1;
        C = 0;
    }
    for (int64_t c = 0; c < C && rc == AG_SUCCESS; c++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)c);
        if (!(p->names[c] = ag_i_strdup(buf))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        p->n_out = c + 1;
    }
    ag_fmat_destroy(&table);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    return rc;
}

/* The part of node training after the targets are checked: features, preset, model, training.
 * labels and C for classification, or values for regression (labels NULL). */
static ag_error_t train_node_task(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                                  const igraph_vector_int_t *labels, int64_t C, const igraph_vector_t *values,
                                  const int64_t *tr, int64_t n_tr, const int64_t *va, int64_t n_va,
                                  const ag_net_train_options_t *o, ag_train_result_t *result) {
    const ag_task_t task = values ? AG_TASK_NODE_REGRESSION : AG_TASK_NODE_CLASSIFICATION;
    ag_featurizer_config_t fc;
    ag_feature_norm_t norm;
    feat_lists_t fl;
    memset(&fl, 0, sizeof fl);
    ag_prepared_t p;
    memset(&p, 0, sizeof p);
    ag_error_t rc = feature_config(o, &fc, &fl, &norm);
    /* a graph without attributes trains on its structure, as the program's; vertex_attrs and a
     * feature matrix are choices */
    fc.degree_if_featureless = !o->vertex_attrs && !features;
    if (rc == AG_SUCCESS) {
        /* raw columns standardised unless the options say otherwise, the node table's too */
        ag_net_train_options_feature_defaults(o, task, NULL, &fc);
        norm = fc.norm;
    }
    if (rc == AG_SUCCESS) rc = prepare_nodes(&p, graph, features, labels, C, values, &fc, norm);
    ag_net_train_options_t chosen;
    if (rc == AG_SUCCESS && choose_preset(o, task, &p, tr, n_tr, &chosen)) {
        ag_prepared_destroy(&p);
        fc.edge_select = AG_SELECT_NONE;
        fc.n_edge_attrs = 0;
        rc = prepare_nodes(&p, graph, features, labels, C, values, &fc, norm);
    }
    if (rc == AG_SUCCESS) rc = build_and_train(net, &p, task, &chosen, tr, n_tr, va, n_va, NULL, result);
    /* so that prediction can tell when it is given another graph */
    if (rc == AG_SUCCESS && (rc = ag_bundle_set_graph(&(*net)->b, graph)) != AG_SUCCESS) {
        ag_net_destroy(*net);
        *net = NULL;
    }
    ag_prepared_destroy(&p);
    feat_lists_destroy(&fl);
    return rc;
}

/* opts->task, when given, must be the one the node data make. */
static ag_error_t check_node_task(const ag_net_train_options_t *o, ag_task_t task, const char *data) {
    if (!o->task) return AG_SUCCESS;
    ag_task_t t;
    AG_CHECK(ag_task_from_name(o->task, &t));
    if (t != task)
        return AG_ERROR(AG_EINVAL, "option task: one graph with %s trains %s, not %s", data, ag_task_name(task),
                        ag_task_name(t));
    return AG_SUCCESS;
}

/* ag_net_train_nodes (labels) and ag_net_train_node_values (values, labels NULL). */
static ag_error_t train_nodes_entry(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                                    ag_task_t task, const igraph_vector_int_t *labels, const igraph_vector_t *values,
                                    const igraph_vector_int_t *train, const igraph_vector_int_t *val,
                                    const ag_net_train_options_t *opts, ag_train_result_t *result, const char *fn) {
    if (!net) return AG_ERROR(AG_EINVAL, "%s: NULL net", fn);
    *net = NULL; /* on every failure, as ag_net_load and ag_net_train_graphs */
    if (!graph) return AG_ERROR(AG_EINVAL, "%s: NULL graph", fn);
    if (features) AG_CHECK(AG_I_READY(features->data.stor_begin, fn, "features"));
    ag_net_train_options_t defaults;
    ag_net_train_options_init(&defaults);
    const ag_net_train_options_t *o = opts ? opts : &defaults;
    int64_t N = vcount(graph), C = 0, n_lab;
    if (N == 0) return AG_ERROR(AG_EVALUE, "%s: the graph has no vertices: nothing to train on", fn);
    if (task == AG_TASK_NODE_CLASSIFICATION) {
        AG_CHECK(label_classes(labels, N, &C, &n_lab, fn));
        if (n_lab == 0) return AG_ERROR(AG_EVALUE, "no vertex is labelled (every label is -1)");
        if (C < 2)
            return AG_ERROR(AG_EVALUE, "the labels hold %lld class; a classifier needs at least 2", (long long)C);
        /* C counts the ids up to the largest, not the classes present: labels of one class only
         * (every labelled vertex 2: C = 3) would train a constant classifier, which a graph
         * target of one value and a label attribute of one value are refused as */
        int64_t first = -1;
        for (int64_t v = 0; v < N && first < 0; v++) first = VECTOR(*labels)[v];
        int64_t other = 0;
        for (int64_t v = 0; v < N && !other; v++) other = VECTOR(*labels)[v] >= 0 && VECTOR(*labels)[v] != first;
        if (!other)
            return AG_ERROR(AG_EVALUE, "%s: every labelled vertex has class %lld; a classifier needs at least 2 classes "
                            "among the labels", fn, (long long)first);
        AG_CHECK(check_node_task(o, AG_TASK_NODE_CLASSIFICATION, "node labels"));
    } else {
        AG_CHECK(check_node_values(values, N, &n_lab, fn));
        if (n_lab == 0) return AG_ERROR(AG_EVALUE, "no vertex has a value (every value is NaN)");
        AG_CHECK(check_node_task(o, AG_TASK_NODE_REGRESSION, "node values"));
    }
    int64_t *tr = NULL, *va = NULL, n_tr = 0, n_va = 0;
    ag_error_t rc = node_index(train, labels, values, N, "train", &tr, &n_tr);
    if (rc == AG_SUCCESS && val) rc = index_list(val, N, "val", &va, &n_va);
    if (rc == AG_SUCCESS) rc = check_parts(train, tr, n_tr, va, n_va, N, "vertex");
    if (rc == AG_SUCCESS) {
        int64_t k = 0;
        for (int64_t i = 0; i < n_tr; i++) k += node_labelled(labels, values, tr[i]);
        if (k == 0)
            rc = AG_ERROR(AG_EVALUE, "train: none of the %lld training vertices %s", (long long)n_tr,
                          task == AG_TASK_NODE_CLASSIFICATION ? "is labelled" : "has a value");
    }
    if (rc == AG_SUCCESS) rc = train_node_task(net, graph, features, labels, C, values, tr, n_tr, va, n_va, o, result);
    ag_i_free(tr);
    ag_i_free(va);
    return rc;
}

ag_error_t ag_net_train_nodes(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                              const igraph_vector_int_t *labels, const igraph_vector_int_t *train,
                              const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                              ag_train_result_t *result) {
    return train_nodes_entry(net, graph, features, AG_TASK_NODE_CLASSIFICATION, labels, NULL, train, val, opts, result,
                             "ag_net_train_nodes");
}

ag_error_t ag_net_train_node_values(ag_net_t **net, const igraph_t *graph, const igraph_matrix_t *features,
                                    const igraph_vector_t *values, const igraph_vector_int_t *train,
                                    const igraph_vector_int_t *val, const ag_net_train_options_t *opts,
                                    ag_train_result_t *result) {
    return train_nodes_entry(net, graph, features, AG_TASK_NODE_REGRESSION, NULL, values, train, val, opts, result,
                             "ag_net_train_node_values");
}

/* ag_net_evaluate_nodes (labels) and ag_net_evaluate_node_values (values, labels NULL). */
static ag_error_t evaluate_nodes_entry(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                       ag_task_t task, const igraph_vector_int_t *labels,
                                       const igraph_vector_t *values, const igraph_vector_int_t *idx,
                                       ag_scores_t *scores, const char *fn) {
    AG_CHECK(check_args(net, graph, features, fn));
    if (!scores) return AG_ERROR(AG_EINVAL, "%s: NULL scores", fn);
    if (ag_net_task(net) != task)
        return AG_ERROR(AG_EINVAL, "%s: the model is %s, not %s", fn, ag_task_name(ag_net_task(net)),
                        ag_task_name(task));
    if (task == AG_TASK_NODE_REGRESSION && ag_net_n_outputs(net) != 1)
        return AG_ERROR(AG_EINVAL, "%s: the model has %lld targets; the values vector holds one", fn,
                        (long long)ag_net_n_outputs(net));
    int64_t N = vcount(graph), C, n_lab;
    if (task == AG_TASK_NODE_CLASSIFICATION) AG_CHECK(label_classes(labels, N, &C, &n_lab, fn));
    else AG_CHECK(check_node_values(values, N, &n_lab, fn));
    ag_trainset_t set;
    ag_trainset_init(&set, task);
    ag_fmat_t X = {0}, E = {0};
    int64_t *ix = NULL, n = 0;
    ag_error_t rc = node_index(idx, labels, values, N, "idx", &ix, &n);
    if (rc == AG_SUCCESS && task == AG_TASK_NODE_REGRESSION) rc = node_value_targets(&set, values);
    if (rc == AG_SUCCESS) rc = net_inputs(net, graph, features, &X, &E);
    if (rc == AG_SUCCESS)
        rc = task == AG_TASK_NODE_CLASSIFICATION ? node_set(&set, graph, &X, &E, labels, ag_net_n_outputs(net))
                                                 : node_example_take(&set, graph, &X, &E);
    if (rc == AG_SUCCESS) rc = ag_bundle_evaluate(&net->b, &set, ix, n, scores);
    ag_fmat_destroy(&X);
    ag_fmat_destroy(&E);
    ag_trainset_destroy(&set);
    ag_i_free(ix);
    return rc;
}

ag_error_t ag_net_evaluate_nodes(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                 const igraph_vector_int_t *labels, const igraph_vector_int_t *idx,
                                 ag_scores_t *scores) {
    return evaluate_nodes_entry(net, graph, features, AG_TASK_NODE_CLASSIFICATION, labels, NULL, idx, scores,
                                "ag_net_evaluate_nodes");
}

ag_error_t ag_net_evaluate_node_values(ag_net_t *net, const igraph_t *graph, const igraph_matrix_t *features,
                                       const igraph_vector_t *values, const igraph_vector_int_t *idx,
                                       ag_scores_t *scores) {
    return evaluate_nodes_entry(net, graph, features, AG_TASK_NODE_REGRESSION, NULL, values, idx, scores,
                                "ag_net_evaluate_node_values");
}
