/* Tests of model bundles: save then load predicts bit-identically (node, graph classification,
 * regression with target scaling, a node table with statistics), and every corrupted or mismatched
 * file fails with AG_EMODEL and a message naming the file and the defect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/modelfile.h>
#include <attngraph/prepare.h>
#include <attngraph/safetensors.h>
#include "modelfile_testutil.h"

void ag_i_alloc_fail_at(int64_t n);

static char path[64], path2[80];

static int setup(void **state) {
    (void)state;
    return ag_test_temp_pair(path, sizeof path, path2, sizeof path2, "mf");
}

static int teardown(void **state) {
    (void)state;
    unlink(path);
    unlink(path2);
    return 0;
}

/* Karate, labels from `club`, identity features from `name`, GAT-like model: a node bundle; its
 * classes named names (n of them; NULL: the club's two). */
static void karate_bundle_named(ag_bundle_t *b, igraph_t *ig, const char *const *names, int64_t n) {
    assert_int_equal(ag_graph_read(ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    ag_model_config_t mc;
    if (!names) {
        names = (const char *const *)p.names;
        n = p.n_out;
    }
    ag_model_config_gat(&mc, p.set.examples[0].X.cols, n);
    mc.edge_dim = p.featurizer.n_edge_features;
    mc.seed = 7;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &mc), AG_SUCCESS);
    assert_int_equal(ag_bundle_init(b, &m, &p.featurizer, &p.table, names, n, "club"), AG_SUCCESS);
    assert_null(m);
    ag_prepared_destroy(&p);
}

static void karate_bundle(ag_bundle_t *b, igraph_t *ig) { karate_bundle_named(b, ig, NULL, 0); }

static void mutag_dataset(ag_dataset_t *ds) {
    assert_int_equal(ag_dataset_load(ds, AG_SOURCE_DIR "/tests/data/mutag-mini/labels.csv", NULL), AG_SUCCESS);
}

/* A graph-level bundle on mutag-mini; regression gets a non-trivial target scaling. */
static void mutag_bundle(ag_bundle_t *b, const ag_dataset_t *ds, ag_task_t task) {
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.norm = AG_NORM_STANDARDIZE;
    fc.rw_pe_k = 3;
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_graphs(&p, ds, task, &fc, NULL, 0), AG_SUCCESS);
    ag_model_config_t mc;
    ag_model_config_default(&mc, task);
    mc.hidden = 16;
    mc.n_blocks = 2;
    for (int l = 0; l < 2; l++) {
        mc.blocks[l].attn.heads = 2;
        mc.blocks[l].attn.head_dim = 8;
        mc.blocks[l].attn.out_dim = 16;
        mc.blocks[l].attn.edge_mode = AG_EDGE_KEY;
        mc.blocks[l].ffn_hidden = 32;
    }
    mc.head_hidden = 16;
    mc.readouts[0] = AG_READOUT_ATTENTION;
    mc.in_dim = p.featurizer.n_features;
    mc.edge_dim = p.featurizer.n_edge_features;
    mc.n_out = p.n_out;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &mc), AG_SUCCESS);
    if (task == AG_TASK_GRAPH_REGRESSION) {
        float mean[1] = {-3.25f}, sd[1] = {2.125f};
        assert_int_equal(ag_model_set_target_scaling(m, mean, sd), AG_SUCCESS);
    }
    assert_int_equal(ag_bundle_init(b, &m, &p.featurizer, &p.table, (const char *const *)p.names, p.n_out, NULL),
                     AG_SUCCESS);
    if (task == AG_TASK_GRAPH_CLASSIFICATION) assert_int_equal(ag_bundle_set_target_column(b, "label"), AG_SUCCESS);
    ag_prepared_destroy(&p);
}

static void assert_same_predictions(ag_bundle_t *a, ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table) {
    ag_fmat_t ya = {0}, yb = {0};
    assert_int_equal(ag_bundle_predict_graph(a, ig, table, &ya), AG_SUCCESS);
    assert_int_equal(ag_bundle_predict_graph(b, ig, table, &yb), AG_SUCCESS);
    assert_int_equal(ya.rows, yb.rows);
    assert_int_equal(ya.cols, yb.cols);
    assert_true(ya.rows * ya.cols > 0);
    assert_memory_equal(ya.data, yb.data, (size_t)(ya.rows * ya.cols) * sizeof(float));
    ag_fmat_destroy(&ya);
    ag_fmat_destroy(&yb);
}

static void test_node_round_trip(void **state) {
    (void)state;
    igraph_t ig;
    ag_bundle_t b, c;
    karate_bundle(&b, &ig);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_string_equal(c.label_attr, "club");
    assert_null(c.target_column);
    assert_int_equal(c.n_names, 2);
    assert_string_equal(c.names[0], "0");
    assert_string_equal(c.names[1], "1");
    assert_int_equal(c.featurizer.n_features, b.featurizer.n_features);
    assert_int_equal(ag_model_config(c.model)->task, AG_TASK_NODE_CLASSIFICATION);
    assert_same_predictions(&b, &c, &ig, NULL);
    assert_int_equal(c.split_source, AG_SPLIT_SOURCE_UNKNOWN); /* not recorded: no key written */
    ag_bundle_destroy(&c);
    /* how train chose its parts, kept for eval */
    for (int k = AG_SPLIT_SOURCE_RANDOM; k <= AG_SPLIT_SOURCE_NODES; k++) {
        b.split_source = (ag_split_source_t)k;
        assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
        assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
        assert_int_equal(c.split_source, k);
        ag_bundle_destroy(&c);
    }
    b.split_source = AG_SPLIT_SOURCE_UNKNOWN;
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    /* each row is a probability distribution over the 2 classes */
    ag_fmat_t y = {0};
    assert_int_equal(ag_bundle_predict_graph(&c, &ig, NULL, &y), AG_SUCCESS);
    assert_int_equal(y.rows, 34);
    assert_float_equal(y.data[0] + y.data[1], 1.0f, 1e-5f);
    ag_fmat_destroy(&y);
    ag_bundle_destroy(&c);
    /* a NaN weight, saved with a checksum that matches it, is refused as damaged at load (it
     * predicted NaN with AG_SUCCESS) */
    ag_model_params(b.model)->items[1].value[2] = NAN;
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_load(path, &c), AG_EMODEL);
    char want[512];
    snprintf(want, sizeof want, "%s: tensor '%s' holds NaN at element 2: the model is damaged", path,
             ag_model_params(b.model)->items[1].name);
    assert_string_equal(ag_error_message(), want);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
}

static void test_graph_round_trip(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_task_t tasks[2] = {AG_TASK_GRAPH_CLASSIFICATION, AG_TASK_GRAPH_REGRESSION};
    for (int k = 0; k < 2; k++) {
        ag_bundle_t b, c;
        mutag_bundle(&b, &ds, tasks[k]);
        assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
        assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
        assert_int_equal(ag_model_config(c.model)->task, tasks[k]);
        assert_int_equal(c.featurizer.norm, AG_NORM_STANDARDIZE);
        for (int64_t g = 0; g < ds.n_graphs; g += 5) assert_same_predictions(&b, &c, &ds.graphs[g], NULL);
        if (tasks[k] == AG_TASK_GRAPH_REGRESSION) {
            const float *mean, *sd;
            ag_model_target_scaling(c.model, &mean, &sd);
            assert_true(mean[0] == -3.25f && sd[0] == 2.125f);
            assert_string_equal(c.names[0], "label");
        } else {
            assert_string_equal(c.target_column, "label");
            ag_fmat_t y = {0};
            assert_int_equal(ag_bundle_predict_graph(&c, &ds.graphs[0], NULL, &y), AG_SUCCESS);
            assert_int_equal(y.rows, 1);
            assert_int_equal(y.cols, 2);
            ag_fmat_destroy(&y);
        }
        ag_bundle_destroy(&b);
        ag_bundle_destroy(&c);
    }
    ag_dataset_destroy(&ds);
}

/* A node table with standardisation: its statistics travel in the file. */
static void test_node_table_round_trip(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_fmat_t table = {0};
    assert_int_equal(ag_fmat_init(&table, 34, 3), AG_SUCCESS);
    for (int64_t v = 0; v < 34; v++)
        for (int j = 0; j < 3; j++) table.data[v * 3 + j] = (float)((v * (j + 3)) % 7) - 1.5f * (float)j;
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.vertex_select = AG_SELECT_NONE;
    fc.edge_select = AG_SELECT_NONE;
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, &table, AG_NORM_STANDARDIZE, &fc), AG_SUCCESS);
    assert_int_equal(p.set.examples[0].X.cols, 3);
    ag_model_config_t mc;
    ag_model_config_default(&mc, AG_TASK_NODE_CLASSIFICATION);
    mc.in_dim = 3;
    mc.n_out = 2;
    mc.n_blocks = 1;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &mc), AG_SUCCESS);
    ag_bundle_t b, c;
    assert_int_equal(ag_bundle_init(&b, &m, &p.featurizer, &p.table, (const char *const *)p.names, 2, "club"),
                     AG_SUCCESS);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.table.width, 3);
    assert_int_equal(c.table.norm, AG_NORM_STANDARDIZE);
    assert_memory_equal(c.table.mean, b.table.mean, 3 * sizeof(float));
    assert_memory_equal(c.table.std, b.table.std, 3 * sizeof(float));
    assert_null(c.table.columns); /* none were recorded: none are written */
    assert_same_predictions(&b, &c, &ig, &table);
    /* the names of the columns are kept, for prediction to match a table's by name */
    const char *cols[3] = {"age", "income", "flag"};
    assert_int_equal(ag_table_norm_set_columns(&b.table, cols, 2), AG_EINVAL);
    assert_int_equal(ag_table_norm_set_columns(&b.table, cols, 3), AG_SUCCESS);
    ag_bundle_destroy(&c);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    for (int j = 0; j < 3; j++) assert_string_equal(c.table.columns[j], cols[j]);
    /* without the table, or with a table of another width: a clear mismatch */
    ag_fmat_t y = {0};
    assert_int_equal(ag_bundle_predict_graph(&c, &ig, NULL, &y), AG_EMISMATCH);
    assert_msg_contains("node table of 3 columns");
    ag_fmat_t narrow = {0};
    assert_int_equal(ag_fmat_init(&narrow, 34, 2), AG_SUCCESS);
    assert_int_equal(ag_bundle_predict_graph(&c, &ig, &narrow, &y), AG_EMISMATCH);
    assert_msg_contains("34 x 2");
    ag_fmat_destroy(&narrow);
    ag_fmat_destroy(&table);
    ag_prepared_destroy(&p);
    ag_bundle_destroy(&b);
    ag_bundle_destroy(&c);
    igraph_destroy(&ig);
}

/* A graph that lacks an attribute the model was fitted on: the featuriser's message. */
static void test_predict_foreign_graph(void **state) {
    (void)state;
    igraph_t ig, mol;
    ag_bundle_t b;
    karate_bundle(&b, &ig);
    assert_int_equal(ag_graph_read(&mol, AG_SOURCE_DIR "/graphs/molecules/aspirin.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_fmat_t y = {0};
    assert_int_equal(ag_bundle_predict_graph(&b, &mol, NULL, &y), AG_EATTR);
    assert_msg_contains("'name'");
    assert_null(y.data);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
    igraph_destroy(&mol);
}

/* A file read once serves both its metadata and the bundle: ag_bundle_from_safetensors() gives
 * the bundle ag_bundle_load() gives, keeps no pointer into the file, and refuses what is not a
 * model read by ag_safetensors_read(). */
static void test_from_safetensors(void **state) {
    (void)state;
    igraph_t ig;
    ag_bundle_t b, c, d;
    karate_bundle(&b, &ig);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(ag_bundle_from_safetensors(&f, &c), AG_SUCCESS);
    assert_non_null(ag_metadata_get(&f.metadata, "bundle_version"));
    f.foreign = 1;
    assert_int_equal(ag_bundle_from_safetensors(&f, &d), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), path));
    assert_non_null(strstr(ag_error_message(), "not an attn-graph model file"));
    assert_null(d.model);
    ag_safetensors_destroy(&f);
    assert_same_predictions(&b, &c, &ig, NULL);
    assert_int_equal(ag_bundle_load(path, &d), AG_SUCCESS);
    assert_same_predictions(&c, &d, &ig, NULL);
    ag_bundle_destroy(&d);
    /* a zeroed (never read) file */
    ag_safetensors_t none;
    memset(&none, 0, sizeof none);
    assert_int_equal(ag_bundle_from_safetensors(&none, &d), AG_EINVAL);
    assert_null(d.model);
    assert_int_equal(ag_bundle_from_safetensors(NULL, &d), AG_EINVAL);
    /* a defect is reported against the file's path, as by ag_bundle_load() */
    assert_int_equal(ag_test_metadata_rewrite(path, path2, "labels", NULL), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read(&f, path2, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_int_equal(ag_bundle_from_safetensors(&f, &d), AG_EMODEL);
    assert_non_null(strstr(ag_error_message(), path2));
    assert_non_null(strstr(ag_error_message(), "metadata 'labels' is missing"));
    assert_null(d.model);
    ag_safetensors_destroy(&f);
    ag_bundle_destroy(&b);
    ag_bundle_destroy(&c);
    igraph_destroy(&ig);
}

/* Rewrites the good file at `path` into path2 with metadata key set to value (NULL: removed). */
static void rewrite(const char *key, const char *value) {
    assert_int_equal(ag_test_metadata_rewrite(path, path2, key, value), AG_SUCCESS);
}

/* A macro so that a failure reports the caller's line. */
#define expect_bad(what) assert_load_fails(path2, what)

/* Replaces the first occurrence of `from` in the good file's metadata value of key. */
static void rewrite_replacing(const char *key, const char *from, const char *to) {
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    const char *v = ag_metadata_get(&f.metadata, key);
    assert_non_null(v);
    const char *at = strstr(v, from);
    assert_non_null(at);
    size_t n = strlen(v) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - v), v, to, at + strlen(from));
    ag_safetensors_destroy(&f);
    rewrite(key, s);
    free(s);
}

static void test_corrupted_files(void **state) {
    (void)state;
    igraph_t ig;
    ag_bundle_t b;
    karate_bundle(&b, &ig);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *raw = malloc((size_t)size);
    assert_int_equal(fread(raw, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);

    /* truncated */
    fp = fopen(path2, "wb");
    fwrite(raw, 1, (size_t)size - 10, fp);
    fclose(fp);
    expect_bad("truncated");
    /* one flipped byte in the weights */
    raw[size - 5] ^= 0x40;
    fp = fopen(path2, "wb");
    fwrite(raw, 1, (size_t)size, fp);
    fclose(fp);
    expect_bad("checksum mismatch");
    raw[size - 5] ^= 0x40;
    free(raw);

    /* metadata */
    rewrite("featurizer", NULL);
    expect_bad("metadata 'featurizer' is missing");
    rewrite("config", NULL);
    expect_bad("metadata 'config' is missing");
    rewrite("labels", NULL);
    expect_bad("metadata 'labels' is missing");
    rewrite("target_std", NULL);
    expect_bad("metadata 'target_std' is missing");
    rewrite("bundle_version", NULL);
    expect_bad("metadata 'bundle_version' is missing");
    rewrite("bundle_version", "4");
    expect_bad("bundle version 4 is newer than this attn-graph");
    expect_bad("reads (3)");
    /* smoothing weights need version 3: an older reader would predict without them */
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":0.5,\"iterations\":10}");
    expect_bad("bundle version 1 cannot hold smoothing weights (metadata 'smooth'); the file is damaged");
    rewrite("bundle_version", "one");
    expect_bad("not a positive integer");
    rewrite("config", "{\"task\": ");
    expect_bad("config:1:");
    rewrite_replacing("config", "\"heads\": 8", "\"heads\": 0");
    expect_bad("blocks[0].heads must be an integer");
    rewrite_replacing("config", "\"task\": \"node-classification\"", "\"task\": \"graph-classification\"");
    expect_bad("2 tensors the model expects are missing from the file: 'head.out.W', 'head.out.b'");
    rewrite_replacing("labels", "\"task\":\"node-classification\"", "\"task\":\"graph-classification\"");
    expect_bad("labels' names task 'graph-classification' but the model is for node-classification");
    /* wrong shapes: the file says 4 heads of 8 but holds the tensors of 8 heads */
    rewrite_replacing("config", "\"heads\": 8", "\"heads\": 4");
    expect_bad("has shape");
    rewrite_replacing("labels", "\"classes\":[\"0\",\"1\"]", "\"classes\":[\"0\"]");
    expect_bad("must list 2 classes");
    rewrite_replacing("labels", "\"classes\":[\"0\",\"1\"]", "\"classes\":[\"0\",\"0\"]");
    expect_bad("has '0' twice");
    /* the random split's fractions (eval draws train's parts with them) */
    rewrite_replacing("labels", "\"target_column\":null", "\"target_column\":null,\"split_random\":[0.7,0.5]");
    expect_bad("labels.split_random must be [train, val]: two fractions, train above 0, adding up to at most 1");
    rewrite_replacing("labels", "\"target_column\":null", "\"target_column\":null,\"split_random\":\"0.8,0.1\"");
    expect_bad("labels.split_random must be [train, val]");
    /* drawn class by class: true or false, and true only beside the fractions it qualifies */
    rewrite("split_stratified", "yes");
    expect_bad("metadata 'split_stratified' must be true or false, not 'yes'");
    rewrite("split_stratified", "true");
    expect_bad("metadata 'split_stratified' is true, but 'labels' has no split_random for it to qualify");
    /* how train chose its parts: one of five words */
    rewrite("split", "fold");
    expect_bad("metadata 'split' must be random, file, folds, kfold or nodes, not 'fold'");
    rewrite("split", "");
    expect_bad("metadata 'split' must be random, file, folds, kfold or nodes, not ''");
    rewrite_replacing("featurizer", "\"degree\":true", "\"degree\":false");
    expect_bad("featuriser");
    rewrite("target_mean", "[0]");
    expect_bad("target_mean' must be an array of 2 numbers");
    rewrite("target_std", "[1, -1]");
    expect_bad("std");
    rewrite("node_table", "{\"width\": 0}");
    expect_bad("node_table");
    rewrite("node_table", "{\"width\": 3, \"normalization\": \"none\"}");
    expect_bad("node-table columns");
    rewrite("node_table", "{\"width\": 2, \"normalization\": \"none\", \"columns\": [\"a\"]}");
    expect_bad("node_table.columns is not an array of 2 names");
    rewrite("node_table", "{\"width\": 2, \"normalization\": \"none\", \"columns\": [\"a\", \"\"]}");
    expect_bad("node_table.columns[1] is not a non-empty string");
    /* the objects are closed: a key this version does not know, or a key given twice, is refused
     * with its name and the object's (from NULL: the whole value is `to`) */
    static const struct { const char *key, *from, *to, *why; } closed[] = {
        {"config", "\"hidden\":", "\"gate\": 1, \"hidden\":",
         ": model configuration: unknown key 'gate' in metadata 'config' (attn-graph "},
        {"config", "\"heads\": 8", "\"heads\": 8, \"gate\": 1",
         "model configuration: unknown key 'gate' in blocks[0] of metadata 'config'"},
        {"config", "\"heads\": 8", "\"heads\": 8, \"heads\": 4",
         "model configuration: blocks[0] of metadata 'config' has key 'heads' twice"},
        {"featurizer", "\"degree\":true", "\"degree\":true,\"sparse\":true",
         "featuriser: unknown key 'sparse' in metadata 'featurizer'"},
        {"featurizer", "\"type\":", "\"unit\":\"kg\",\"type\":",
         "featuriser: unknown key 'unit' in vertex_attributes[0] of metadata 'featurizer'"},
        /* a newer featuriser says so, rather than name a key of its */
        {"featurizer", "\"version\":1", "\"version\":4,\"sparse\":true", "featuriser: version 4 is not supported"},
        {"labels", "\"target_column\":null", "\"target_column\":null,\"weights\":[1,2]",
         ": unknown key 'weights' in metadata 'labels' (attn-graph "},
        {"labels", "\"target_column\":null", "\"target_column\":null,\"tasks\":[\"a\",\"b\"]",
         ": metadata 'labels' has 'tasks', which a node-classification model does not have (it lists 'classes')"},
        {"labels", "\"target_column\":null", "\"target_column\":null,\"label_attr\":\"faction\"",
         ": metadata 'labels' has key 'label_attr' twice"},
        {"node_table", NULL, "{\"width\": 2, \"normalization\": \"none\", \"scale\": 2}",
         ": unknown key 'scale' in metadata 'node_table'"},
        /* statistics that the normalisation does not use were ignored too */
        {"node_table", NULL, "{\"width\": 2, \"normalization\": \"l1_rows\", \"mean\": [0, 0], \"std\": [1, 1]}",
         ": metadata 'node_table' has 'mean'/'std' but its normalization is 'l1_rows'"}};
    for (size_t i = 0; i < sizeof closed / sizeof *closed; i++) {
        if (closed[i].from) rewrite_replacing(closed[i].key, closed[i].from, closed[i].to);
        else rewrite(closed[i].key, closed[i].to);
        expect_bad(closed[i].why);
    }
    rewrite_replacing("config", "\"hidden\":", "\"gate\": 1, \"hidden\":");
    expect_bad(" does not know it: the file was written by a newer version, or edited)");
    /* a key of the metadata itself that this version does not know is a caller's: ignored, and
     * the untouched file still loads */
    rewrite("unknown_key", "ignored");
    ag_bundle_t c;
    assert_int_equal(ag_bundle_load(path2, &c), AG_SUCCESS);
    ag_bundle_destroy(&c);
    /* a missing file is a file error, not a model error */
    assert_int_equal(ag_bundle_load("/nonexistent/m.safetensors", &c), AG_EFILE);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
}

/* Correct and Smooth weights: recorded on a node-classification bundle, written as "smooth" with
 * bundle version 3 (1 without them), read back to the same doubles, and every bad value refused
 * when set and when loaded. */
static void test_smooth_weights(void **state) {
    (void)state;
    igraph_t ig;
    ag_bundle_t b, c;
    karate_bundle(&b, &ig);
    assert_int_equal(b.has_smooth, 0);
    ag_smooth_config_t sc = {0.95, 0.7, 50};
    assert_int_equal(ag_bundle_set_smooth(&b, &sc), AG_SUCCESS);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_string_equal(ag_metadata_get(&f.metadata, "bundle_version"), "3");
    assert_string_equal(ag_metadata_get(&f.metadata, "smooth"),
                        "{\"correct_alpha\":0.94999999999999996,\"smooth_alpha\":0.69999999999999996,\"iterations\":50}");
    ag_safetensors_destroy(&f);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.has_smooth, 1);
    assert_true(c.smooth.correct_alpha == 0.95 && c.smooth.smooth_alpha == 0.7 && c.smooth.iterations == 50);
    ag_bundle_destroy(&c);
    /* bad values are refused and leave the recorded ones */
    const ag_smooth_config_t bad[] = {{1.0, 0.5, 5}, {0.5, -0.1, 5}, {NAN, 0.5, 5}, {0.5, 0.5, -1}, {0.5, 0.5, 100001}};
    const char *why[] = {"correct alpha 1 is not in [0, 1)", "smooth alpha -0.1 is not in [0, 1)", "correct alpha nan",
                         "-1 iterations is not in 0..100000", "100001 iterations"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ag_bundle_set_smooth(&b, &bad[i]), AG_EINVAL);
        assert_msg_contains(why[i]);
        assert_true(b.has_smooth && b.smooth.smooth_alpha == 0.7);
    }
    /* damaged files: rewritten from the good smoothed one */
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":1.5,\"iterations\":10}");
    expect_bad("metadata 'smooth': smoothing: smooth alpha 1.5 is not in [0, 1)");
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":0.5}");
    expect_bad("metadata 'smooth' needs a number 'iterations'");
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":0.5,\"iterations\":2.5}");
    expect_bad("smooth.iterations 2.5 is not an integer in 0..100000");
    rewrite("smooth", "[0.5]");
    expect_bad("metadata 'smooth' needs a number 'correct_alpha'");
    rewrite("smooth", "{\"correct_alpha\":");
    expect_bad("smooth:1:");
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":0.5,\"iterations\":10,\"normalise\":true}");
    expect_bad(": unknown key 'normalise' in metadata 'smooth'");
    rewrite("smooth", "{\"correct_alpha\":0,\"smooth_alpha\":0.5,\"iterations\":10,\"iterations\":20}");
    expect_bad(": metadata 'smooth' has key 'iterations' twice");
    /* forgotten: written as before, version 1, no key */
    assert_int_equal(ag_bundle_set_smooth(&b, NULL), AG_SUCCESS);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_string_equal(ag_metadata_get(&f.metadata, "bundle_version"), "1");
    assert_null(ag_metadata_get(&f.metadata, "smooth"));
    ag_safetensors_destroy(&f);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.has_smooth, 0);
    ag_bundle_destroy(&c);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
    /* a graph model has no vertices to smooth over: refused when set, and when read */
    ag_dataset_t ds;
    mutag_dataset(&ds);
    mutag_bundle(&b, &ds, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(ag_bundle_set_smooth(&b, &sc), AG_EINVAL);
    assert_msg_contains("Correct and Smooth is for node classification, not graph-classification");
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    rewrite("bundle_version", "3");
    assert_int_equal(ag_test_metadata_rewrite(path2, path, "smooth",
                                              "{\"correct_alpha\":0,\"smooth_alpha\":0.5,\"iterations\":10}"),
                     AG_SUCCESS);
    assert_load_fails(path, "Correct and Smooth is for node classification, not graph-classification");
    ag_bundle_destroy(&b);
    ag_dataset_destroy(&ds);
}

/* The print of the graph a node model was trained on: written as "graph" (no version needed),
 * read back, compared by ag_bundle_other_graph, kept or refused by a merge, and every damaged
 * value refused at load. */
static void test_trained_graph(void **state) {
    (void)state;
    igraph_t ig, other;
    ag_bundle_t b, c;
    karate_bundle(&b, &ig);
    assert_int_equal(b.has_graph, 0);
    assert_int_equal(ag_bundle_other_graph(&b, &ig, NULL), 0); /* a model that does not know says nothing */
    assert_int_equal(ag_bundle_set_graph(&b, &ig), AG_SUCCESS);
    assert_int_equal(b.graph.vertices, 34);
    assert_int_equal(b.graph.edges, 78);
    assert_int_equal(ag_bundle_other_graph(&b, &ig, NULL), 0);
    igraph_copy(&other, &ig);
    igraph_delete_edges(&other, igraph_ess_1(0));
    ag_graph_print_t po;
    assert_int_equal(ag_bundle_other_graph(&b, &other, &po), 1);
    assert_true(po.vertices == 34 && po.edges == 77 && !po.directed);
    /* the same graph, its vertices numbered in reverse: 2 */
    igraph_t renumbered;
    igraph_vector_int_t perm;
    igraph_vector_int_init(&perm, 34);
    for (int v = 0; v < 34; v++) VECTOR(perm)[v] = 33 - v;
    assert_int_equal(igraph_permute_vertices(&ig, &renumbered, &perm), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&perm);
    assert_int_equal(ag_bundle_other_graph(&b, &renumbered, NULL), 2);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_string_equal(ag_metadata_get(&f.metadata, "bundle_version"), "1");
    char want[160];
    snprintf(want, sizeof want, "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"%016llx\","
             "\"numbering\":\"%016llx\"}", (unsigned long long)b.graph.hash, (unsigned long long)b.graph.numbered);
    assert_string_equal(ag_metadata_get(&f.metadata, "graph"), want);
    ag_safetensors_destroy(&f);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.has_graph, 1);
    assert_true(ag_graph_print_equal(&c.graph, &b.graph));
    assert_int_equal(ag_bundle_other_graph(&c, &other, NULL), 1);
    /* merged: bundles of two graphs are refused; one that knows none takes the other's */
    assert_int_equal(ag_bundle_set_graph(&c, &other), AG_SUCCESS);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_EMISMATCH);
    assert_msg_contains("the models were trained on different graphs (34 vertices and 78 edges, 34 and 77)");
    assert_int_equal(c.has_graph, 1);
    assert_int_equal(ag_bundle_set_graph(&c, &renumbered), AG_SUCCESS);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_EMISMATCH);
    assert_msg_contains("the models were trained on one graph numbered two ways");
    assert_int_equal(ag_bundle_set_graph(&c, &ig), AG_SUCCESS);
    ag_model_config_t mc = *ag_model_config(c.model);
    mc.seed = 8;
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &mc), AG_SUCCESS);
    ag_model_destroy(c.members[0]);
    c.members[0] = c.model = m;
    assert_int_equal(ag_bundle_set_graph(&b, NULL), AG_SUCCESS);
    assert_int_equal(b.has_graph, 0);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_SUCCESS);
    assert_int_equal(b.n_members, 2);
    assert_int_equal(b.has_graph, 1);
    assert_int_equal(ag_bundle_other_graph(&b, &ig, NULL), 0);
    /* damaged files, rewritten from the good one */
    static const char *const damaged[] = {
        "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\"}",
        "{\"vertices\":34,\"edges\":-1,\"directed\":false,\"hash\":\"0123456789abcdef\",\"numbering\":\"0123456789abcdef\"}",
        "{\"vertices\":34.5,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\",\"numbering\":\"0123456789abcdef\"}",
        "{\"vertices\":34,\"edges\":78,\"directed\":0,\"hash\":\"0123456789abcdef\",\"numbering\":\"0123456789abcdef\"}",
        "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789ABCDEF\",\"numbering\":\"0123456789abcdef\"}",
        "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\",\"numbering\":\"0123456789abcde\"}",
        "[34]"};
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        rewrite("graph", damaged[i]);
        expect_bad("metadata 'graph' needs integers 'vertices' and 'edges' (0 or more), a boolean 'directed', and a "
                   "'hash' and a 'numbering' of 16 lowercase hexadecimal digits each");
    }
    /* a key this version does not know is refused by name, as one given twice (which the reader
     * would take the first of) */
    rewrite("graph", "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\","
            "\"numbering\":\"0123456789abcdef\",\"foo\":1}");
    expect_bad(": unknown key 'foo' in metadata 'graph' (attn-graph ");
    rewrite("graph", "{\"vertex\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\","
            "\"numbering\":\"0123456789abcdef\"}");
    expect_bad(": unknown key 'vertex' in metadata 'graph'");
    rewrite("graph", "{\"vertices\":34,\"edges\":78,\"directed\":false,\"hash\":\"0123456789abcdef\","
            "\"numbering\":\"0123456789abcdef\",\"vertices\":35}");
    expect_bad(": metadata 'graph' has key 'vertices' twice");
    rewrite("graph", "{\"vertices\":34,\"edges\":78,\"directed\":true,\"hash\":\"0123456789abcdef\","
            "\"numbering\":\"0123456789abcdef\"}");
    ag_bundle_t d;
    assert_int_equal(ag_bundle_load(path2, &d), AG_SUCCESS);
    assert_int_equal(ag_bundle_other_graph(&d, &ig, NULL), 1);
    ag_bundle_destroy(&d);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
    igraph_destroy(&other);
    igraph_destroy(&renumbered);
    /* a graph model is trained on many graphs: refused when set, and when read */
    ag_dataset_t ds;
    mutag_dataset(&ds);
    mutag_bundle(&b, &ds, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(ag_bundle_set_graph(&b, &ds.graphs[0]), AG_EINVAL);
    assert_msg_contains("a graph-level model is trained on many graphs");
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    rewrite("graph", "{\"vertices\":3,\"edges\":2,\"directed\":false,\"hash\":\"0123456789abcdef\","
            "\"numbering\":\"0123456789abcdef\"}");
    expect_bad("metadata 'graph' is for node models; this one is a graph-level model");
    ag_bundle_destroy(&b);
    ag_dataset_destroy(&ds);
}

/* The sizes of the graphs a graph-level model was trained on: recorded over the listed graphs,
 * written as "graph_sizes" (no version needed), read back, absent in older files, united by a
 * merge (or dropped when one side lacks them), every damaged value refused at load, and the
 * rule that says a graph lies far outside them. */
static void test_graph_sizes(void **state) {
    (void)state;
    ag_dataset_t ds;
    mutag_dataset(&ds);
    ag_bundle_t b, c;
    mutag_bundle(&b, &ds, AG_TASK_GRAPH_CLASSIFICATION);
    assert_int_equal(b.has_sizes, 0);
    assert_int_equal(ag_bundle_graph_size_outside(&b, 100000), 0); /* a model that does not know says nothing */
    /* the training part only: graphs 0..3 */
    const int64_t train[] = {0, 1, 2, 3};
    int64_t v[2] = {INT64_MAX, 0}, e[2] = {INT64_MAX, 0};
    for (int i = 0; i < 4; i++) {
        const int64_t nv = igraph_vcount(&ds.graphs[train[i]]), ne = igraph_ecount(&ds.graphs[train[i]]);
        v[0] = nv < v[0] ? nv : v[0];
        v[1] = nv > v[1] ? nv : v[1];
        e[0] = ne < e[0] ? ne : e[0];
        e[1] = ne > e[1] ? ne : e[1];
    }
    assert_true(v[0] < v[1] && e[0] < e[1]); /* a range, so that min and max cannot be swapped unseen */
    assert_int_equal(ag_bundle_set_graph_sizes(&b, ds.graphs, train, 4), AG_SUCCESS);
    assert_int_equal(b.has_sizes, 1);
    assert_memory_equal(b.size_vertices, v, sizeof v);
    assert_memory_equal(b.size_edges, e, sizeof e);
    /* the rule: above twice the largest, below half the smallest */
    assert_int_equal(ag_bundle_graph_size_outside(&b, 2 * v[1] + 1), 1);
    assert_int_equal(ag_bundle_graph_size_outside(&b, 2 * v[1]), 0);
    assert_int_equal(ag_bundle_graph_size_outside(&b, v[1] + 1), 0);
    assert_int_equal(ag_bundle_graph_size_outside(&b, (v[0] + 1) / 2), 0);
    assert_int_equal(ag_bundle_graph_size_outside(&b, (v[0] - 1) / 2), -1);
    /* saved and read back */
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    ag_safetensors_t f;
    assert_int_equal(ag_safetensors_read(&f, path, AG_SAFETENSORS_STRICT), AG_SUCCESS);
    assert_string_equal(ag_metadata_get(&f.metadata, "bundle_version"), "1");
    char want[160];
    snprintf(want, sizeof want, "{\"vertices\":[%lld,%lld],\"edges\":[%lld,%lld]}", (long long)v[0], (long long)v[1],
             (long long)e[0], (long long)e[1]);
    assert_string_equal(ag_metadata_get(&f.metadata, "graph_sizes"), want);
    ag_safetensors_destroy(&f);
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.has_sizes, 1);
    assert_memory_equal(c.size_vertices, v, sizeof v);
    assert_memory_equal(c.size_edges, e, sizeof e);
    /* merged: the union of the ranges (c's set to graphs 4..7, whose range differs) */
    const int64_t other[] = {4, 5, 6, 7};
    assert_int_equal(ag_bundle_set_graph_sizes(&c, ds.graphs, other, 4), AG_SUCCESS);
    int64_t uv[2] = {c.size_vertices[0] < v[0] ? c.size_vertices[0] : v[0],
                     c.size_vertices[1] > v[1] ? c.size_vertices[1] : v[1]};
    int64_t ue[2] = {c.size_edges[0] < e[0] ? c.size_edges[0] : e[0], c.size_edges[1] > e[1] ? c.size_edges[1] : e[1]};
    assert_true(memcmp(uv, v, sizeof v) != 0 || memcmp(ue, e, sizeof e) != 0);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_SUCCESS);
    assert_int_equal(b.n_members, 2);
    assert_int_equal(b.has_sizes, 1);
    assert_memory_equal(b.size_vertices, uv, sizeof uv);
    assert_memory_equal(b.size_edges, ue, sizeof ue);
    /* a member that does not know its sizes leaves the ensemble's unknown */
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(ag_bundle_set_graph_sizes(&c, NULL, NULL, 0), AG_SUCCESS);
    assert_int_equal(c.has_sizes, 0);
    assert_int_equal(ag_bundle_merge(&b, &c), AG_SUCCESS);
    assert_int_equal(b.n_members, 3);
    assert_int_equal(b.has_sizes, 0);
    ag_bundle_destroy(&b);
    /* a file without the key (every one written before it) loads, without sizes */
    rewrite("graph_sizes", NULL);
    assert_int_equal(ag_bundle_load(path2, &c), AG_SUCCESS);
    assert_int_equal(c.has_sizes, 0);
    assert_int_equal(ag_bundle_graph_size_outside(&c, 100000), 0);
    /* bad calls */
    assert_int_equal(ag_bundle_set_graph_sizes(&c, ds.graphs, train, 0), AG_EINVAL);
    assert_msg_contains("no graphs");
    assert_int_equal(c.has_sizes, 0);
    ag_bundle_destroy(&c);
    /* damaged files, rewritten from the good one: each form refused, naming the key */
    static const struct {
        const char *value, *what;
    } damaged[] = {
        {"[11,27]", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]: two integers, 0 or more"},
        {"{\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[11,27]}", "metadata 'graph_sizes' needs 'edges' as [smallest, largest]"},
        {"{\"vertices\":27,\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[11],\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[11,27,30],\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[-1,27],\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[11,27],\"edges\":[11.5,33]}", "metadata 'graph_sizes' needs 'edges' as [smallest, largest]"},
        {"{\"vertices\":[\"11\",27],\"edges\":[11,33]}", "metadata 'graph_sizes' needs 'vertices' as [smallest, largest]"},
        {"{\"vertices\":[30,27],\"edges\":[11,33]}",
         "metadata 'graph_sizes': 'vertices' has its smallest count 30 above its largest 27"},
        {"{\"vertices\":[11,27],\"edges\":[34,33]}",
         "metadata 'graph_sizes': 'edges' has its smallest count 34 above its largest 33"},
        {"{\"vertices\":[11,27],\"edges\":[11,33],\"nodes\":[1,2]}", ": unknown key 'nodes' in metadata 'graph_sizes'"},
        {"{\"vertices\":[11,27],\"edges\":[11,33],\"vertices\":[1,2]}", ": metadata 'graph_sizes' has key 'vertices' twice"},
        {"{\"vertices\":[11,27],", "graph_sizes"},
    };
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        rewrite("graph_sizes", damaged[i].value);
        expect_bad(damaged[i].what);
    }
    ag_dataset_destroy(&ds);
    /* a node model is trained on one graph: refused when set, and when read */
    igraph_t ig;
    karate_bundle(&b, &ig);
    assert_int_equal(ag_bundle_set_graph_sizes(&b, &ig, NULL, 1), AG_EINVAL);
    assert_msg_contains("a node model is trained on one graph");
    assert_int_equal(b.has_sizes, 0);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    rewrite("graph_sizes", "{\"vertices\":[34,34],\"edges\":[78,78]}");
    expect_bad("metadata 'graph_sizes' is for graph-level models; this one is a node model");
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
}

/* Parts that do not fit together are refused when the bundle is made. */
static void test_init_mismatch(void **state) {
    (void)state;
    igraph_t ig;
    assert_int_equal(ag_graph_read(&ig, AG_SOURCE_DIR "/graphs/social/karate.gml", AG_FORMAT_AUTO, 0), AG_SUCCESS);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    ag_prepared_t p;
    assert_int_equal(ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc), AG_SUCCESS);
    ag_model_config_t mc;
    ag_model_config_gat(&mc, p.set.examples[0].X.cols + 1, 2);
    ag_model_t *m;
    assert_int_equal(ag_model_create(&m, &mc), AG_SUCCESS);
    ag_bundle_t b;
    assert_int_equal(ag_bundle_init(&b, &m, &p.featurizer, &p.table, (const char *const *)p.names, 2, "club"),
                     AG_EINVAL);
    assert_msg_contains("but the model takes");
    assert_non_null(m); /* nothing taken */
    assert_int_equal(ag_bundle_init(&b, &m, &p.featurizer, &p.table, (const char *const *)p.names, 1, "club"),
                     AG_EINVAL);
    assert_msg_contains("1 class names for a model of 2 outputs");
    ag_model_destroy(m);
    ag_prepared_destroy(&p);
    igraph_destroy(&ig);
}

/* Every allocation of saving, loading and preparing may fail: AG_ENOMEM, nothing leaked (ASan),
 * and the output left zeroed. */
static void test_allocation_failures(void **state) {
    (void)state;
    igraph_t ig;
    ag_bundle_t b;
    karate_bundle(&b, &ig);
    assert_true(ag_test_save_under_failures(path, &b, 38) >= 1);
    ag_bundle_t c;
    assert_true(ag_test_load_under_failures(path, &c, 19998) > 8);
    ag_bundle_destroy(&c);
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    ag_error_t rc = AG_ENOMEM;
    for (int k = 1; k < 20000 && rc != AG_SUCCESS; k++) {
        ag_prepared_t p;
        ag_i_alloc_fail_at(k);
        rc = ag_prepared_from_nodes(&p, &ig, "club", NULL, 0, NULL, AG_NORM_NONE, &fc);
        ag_i_alloc_fail_at(0);
        if (rc != AG_SUCCESS && rc != AG_ENOMEM) fail_msg("allocation %d: %s", k, ag_error_message());
        if (rc == AG_SUCCESS) assert_int_equal(p.n_excluded, 2);
        ag_prepared_destroy(&p);
    }
    assert_int_equal(rc, AG_SUCCESS);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
}

enum { MANY_CLASSES = 3000 };

/* Saves to path a karate bundle of MANY_CLASSES classes "c%04d", except that class at[j] takes
 * the name of class as[j] (m of them). */
static void save_many_classes(const int *at, const int *as, int m) {
    static char names[MANY_CLASSES][8];
    const char *ptrs[MANY_CLASSES];
    for (int i = 0; i < MANY_CLASSES; i++) {
        int name = i;
        for (int j = 0; j < m; j++)
            if (at[j] == i) name = as[j];
        snprintf(names[i], sizeof names[i], "c%04d", name);
        ptrs[i] = names[i];
    }
    igraph_t ig;
    ag_bundle_t b;
    karate_bundle_named(&b, &ig, ptrs, MANY_CLASSES);
    assert_int_equal(ag_bundle_save(path, &b), AG_SUCCESS);
    ag_bundle_destroy(&b);
    igraph_destroy(&ig);
}

/* Many classes: their names come back in order; a repeat is refused by the first one in the
 * file's order (not in sorted order), or a defect before it. */
static void test_many_classes(void **state) {
    (void)state;
    save_many_classes(NULL, NULL, 0);
    ag_bundle_t c;
    assert_int_equal(ag_bundle_load(path, &c), AG_SUCCESS);
    assert_int_equal(c.n_names, MANY_CLASSES);
    assert_string_equal(c.names[0], "c0000");
    assert_string_equal(c.names[1234], "c1234");
    assert_string_equal(c.names[MANY_CLASSES - 1], "c2999");
    ag_bundle_destroy(&c);

    const int at[2] = {2000, 2500}, as[2] = {7, 1};
    save_many_classes(at, as, 2);
    assert_load_fails(path, "labels.classes has 'c0007' twice");
    const int last[1] = {MANY_CLASSES - 1}, first[1] = {0};
    save_many_classes(last, first, 1);
    assert_load_fails(path, "labels.classes has 'c0000' twice");
    /* a name that is no string before the first repeat is the error; after it, the repeat is */
    save_many_classes(at, as, 1);
    rewrite_replacing("labels", "\"c1000\"", "5");
    expect_bad("labels.classes[1000] is not a string");
    rewrite_replacing("labels", "\"c2500\"", "5");
    expect_bad("labels.classes has 'c0007' twice");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_node_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_graph_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_table_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_predict_foreign_graph, setup, teardown),
        cmocka_unit_test_setup_teardown(test_from_safetensors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupted_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_classes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_smooth_weights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trained_graph, setup, teardown),
        cmocka_unit_test_setup_teardown(test_graph_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
