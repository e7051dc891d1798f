/*
 * fuzz_bundle.c: model files as users load them: ag_net_load() (which is ag_bundle_load():
 * safetensors header, the model configuration JSON, the featuriser JSON, labels, node-table
 * statistics, target scaling, and the weights checked by name and shape against the model the
 * configuration builds).
 *
 * A file that loads must be usable: the target builds a fixed tiny graph (5 vertices, a cycle of
 * four, a chord and an isolated vertex) carrying every attribute the loaded featuriser reads, with
 * the type it expects, plus a feature matrix when the model takes a node table, and runs a
 * prediction, the attention weights of the first and last block, and a save / load round trip
 * that must predict bit-identically. A bundle that loads but whose parts disagree (shapes, widths,
 * vocabularies) shows as a failed prediction (anything but AG_ENOMEM aborts) or as an ASan report.
 *
 * The CRC-32 of the tensor data is recomputed and written into the header before loading (when
 * the header has a `"crc32":"xxxxxxxx"` field), so that mutations of the weights reach the shape
 * checks and the prediction instead of stopping at the checksum; the checksum check itself is
 * fuzzed by fuzz_safetensors.
 */
#include <math.h>
#include <string.h>
#include <igraph.h>
#include "attngraph/api.h"
#include "attngraph/safetensors.h"
#include "fuzz_common.h"

#define N_VERTICES 5
static const int edges[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 3}};
#define N_EDGES ((int)(sizeof edges / sizeof edges[0]))

/* Sets attribute a on vertex or edge i with a value of the type the featuriser expects. */
static void set_attr(igraph_t *g, const ag_feature_attr_t *a, int vertex, int64_t i) {
    igraph_error_t rc = IGRAPH_SUCCESS;
    switch (a->type) {
    case AG_ATTR_NUMERIC: {
        double x = 0.5 * (double)i - 1.0;
        rc = vertex ? igraph_cattribute_VAN_set(g, a->name, i, x) : igraph_cattribute_EAN_set(g, a->name, i, x);
        break;
    }
    case AG_ATTR_BOOLEAN:
        rc = vertex ? igraph_cattribute_VAB_set(g, a->name, i, i % 2) : igraph_cattribute_EAB_set(g, a->name, i, i % 2);
        break;
    default: { /* string: the known values in turn, then an unseen one */
        int64_t k = a->vocab_size > 0 ? i % (a->vocab_size + 1) : 0;
        const char *s = k < a->vocab_size ? a->vocab[k] : "never-seen";
        rc = vertex ? igraph_cattribute_VAS_set(g, a->name, i, s) : igraph_cattribute_EAS_set(g, a->name, i, s);
        break;
    }
    }
    if (rc != IGRAPH_SUCCESS) abort();
}

static void build_graph(igraph_t *g, const ag_featurizer_t *f) {
    igraph_vector_int_t ev;
    if (igraph_vector_int_init(&ev, 2 * N_EDGES) != IGRAPH_SUCCESS) abort();
    for (int e = 0; e < N_EDGES; e++) {
        VECTOR(ev)[2 * e] = edges[e][0];
        VECTOR(ev)[2 * e + 1] = edges[e][1];
    }
    if (igraph_create(g, &ev, N_VERTICES, f->directed ? IGRAPH_DIRECTED : IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS)
        abort();
    igraph_vector_int_destroy(&ev);
    for (int64_t a = 0; a < f->n_vattrs; a++)
        for (int64_t v = 0; v < N_VERTICES; v++) set_attr(g, &f->vattrs[a], 1, v);
    for (int64_t a = 0; a < f->n_eattrs; a++)
        for (int64_t e = 0; e < N_EDGES; e++) set_attr(g, &f->eattrs[a], 0, e);
}

/* Predicts the graph; the result (node or graph outputs) goes into out, row-major. */
static ag_error_t predict(ag_net_t *net, const igraph_t *g, const igraph_matrix_t *features, igraph_matrix_t *out) {
    ag_task_t task = ag_net_task(net);
    if (ag_task_is_graph_level(task)) {
        igraph_vector_t y;
        if (igraph_vector_init(&y, 0) != IGRAPH_SUCCESS) abort();
        ag_error_t rc = ag_net_predict_graph(net, g, features, &y);
        if (rc == AG_SUCCESS) {
            if (igraph_vector_size(&y) != ag_net_n_outputs(net)) abort();
            if (igraph_matrix_resize(out, 1, igraph_vector_size(&y)) != IGRAPH_SUCCESS) abort();
            for (igraph_integer_t i = 0; i < igraph_vector_size(&y); i++) MATRIX(*out, 0, i) = VECTOR(y)[i];
        }
        if (rc == AG_SUCCESS && task == AG_TASK_GRAPH_CLASSIFICATION) {
            igraph_integer_t label = -1;
            rc = ag_net_classify_graph(net, g, features, &label, NULL);
            if (rc == AG_SUCCESS && (label < 0 || label >= ag_net_n_outputs(net))) abort();
        }
        igraph_vector_destroy(&y);
        return rc;
    }
    igraph_vector_int_t labels;
    if (igraph_vector_int_init(&labels, 0) != IGRAPH_SUCCESS) abort();
    int classify = task == AG_TASK_NODE_CLASSIFICATION;
    ag_error_t rc = ag_net_predict_nodes(net, g, features, classify ? &labels : NULL, out);
    if (rc == AG_SUCCESS) {
        if (igraph_matrix_nrow(out) != N_VERTICES || igraph_matrix_ncol(out) != ag_net_n_outputs(net)) abort();
        for (int v = 0; classify && v < N_VERTICES; v++)
            if (VECTOR(labels)[v] < 0 || VECTOR(labels)[v] >= ag_net_n_outputs(net)) abort();
    }
    igraph_vector_int_destroy(&labels);
    return rc;
}

/* Prediction must work on a graph made for the model; only running out of memory may stop it. */
static void must_work(ag_error_t rc, const char *what) {
    fuzz_check_result(rc, what);
    if (rc != AG_SUCCESS && rc != AG_ENOMEM && rc != AG_ELIMIT) {
        fprintf(stderr, "fuzz: a model that loaded fails %s: %s: %s\n", what, ag_error_name(rc), ag_error_message());
        abort();
    }
}

static char out_path[300];

static void use_model(ag_net_t *net) {
    ag_bundle_t *b = ag_net_bundle(net);
    const int64_t width = ag_net_feature_width(net);
    /* a node table of a billion columns is a valid file but not an input this harness can build */
    if (b->table.width > 4096) return;
    igraph_t g;
    build_graph(&g, &b->featurizer);
    igraph_matrix_t features, y, y2;
    if (igraph_matrix_init(&features, N_VERTICES, b->table.width > 0 ? width : 0) != IGRAPH_SUCCESS) abort();
    for (int v = 0; v < N_VERTICES; v++)
        for (int64_t j = 0; j < igraph_matrix_ncol(&features); j++) MATRIX(features, v, j) = 0.25 * v - 0.1 * (double)j;
    const igraph_matrix_t *fm = b->table.width > 0 ? &features : NULL;
    if (igraph_matrix_init(&y, 0, 0) != IGRAPH_SUCCESS || igraph_matrix_init(&y2, 0, 0) != IGRAPH_SUCCESS) abort();

    ag_error_t rc = predict(net, &g, fm, &y);
    must_work(rc, "prediction");
    if (getenv("AG_FUZZ_VERBOSE"))
        fprintf(stderr, "prediction: %s, %lld values, first %g\n", rc ? ag_error_message() : "done",
                (long long)igraph_matrix_size(&y), igraph_matrix_size(&y) ? MATRIX(y, 0, 0) : 0.0);
    for (igraph_integer_t layer = 0; rc == AG_SUCCESS && layer < ag_net_n_layers(net); layer += ag_net_n_layers(net) - 1) {
        igraph_matrix_t alpha;
        if (igraph_matrix_init(&alpha, 0, 0) != IGRAPH_SUCCESS) abort();
        ag_error_t arc = ag_net_attention(net, &g, fm, layer, &alpha, NULL, NULL);
        must_work(arc, "ag_net_attention");
        if (arc == AG_SUCCESS && igraph_matrix_nrow(&alpha) != N_EDGES) abort();
        igraph_matrix_destroy(&alpha);
        if (ag_net_n_layers(net) == 1) break;
    }
    if (rc == AG_SUCCESS) {
        if (!out_path[0]) snprintf(out_path, sizeof out_path, "%s.out.safetensors", fuzz_path);
        rc = ag_net_save(net, out_path);
        fuzz_check_result(rc, "ag_net_save");
        ag_net_t *again = NULL;
        if (rc == AG_SUCCESS) {
            rc = ag_net_load(&again, out_path);
            if (rc != AG_SUCCESS) {
                fprintf(stderr, "fuzz: a model written back does not load: %s\n", ag_error_message());
                abort();
            }
            must_work(predict(again, &g, fm, &y2), "prediction after a save / load round trip");
            if (igraph_matrix_size(&y) != igraph_matrix_size(&y2) ||
                memcmp(&MATRIX(y, 0, 0), &MATRIX(y2, 0, 0), sizeof(double) * (size_t)igraph_matrix_size(&y)) != 0) {
                fprintf(stderr, "fuzz: predictions differ after a save / load round trip\n");
                abort();
            }
            ag_net_destroy(again);
        }
        unlink(out_path);
    }
    igraph_matrix_destroy(&y2);
    igraph_matrix_destroy(&y);
    igraph_matrix_destroy(&features);
    igraph_destroy(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        igraph_set_attribute_table(&igraph_cattribute_table);
        ag_threads_set(1);
        init = 1;
    }
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    fuzz_fix_crc(copy, size);
    const char *path = fuzz_write_file(copy, size, ".safetensors");
    free(copy);
    ag_net_t *net = (ag_net_t *)&net; /* must come back NULL on failure */
    ag_error_clear();
    ag_error_t rc = ag_net_load(&net, path);
    fuzz_check_result(rc, "ag_net_load");
    if (getenv("AG_FUZZ_VERBOSE")) fprintf(stderr, "ag_net_load: %s\n", rc ? ag_error_message() : "loaded");
    if (rc != AG_SUCCESS) {
        if (net) abort();
        return 0;
    }
    use_model(net);
    ag_net_destroy(net);
    return 0;
}
