/*
 * Allocation-failure injection along a whole load path: for n = 1, 2, ... the n-th allocation of
 * the library fails (ag_i_alloc_fail_at), and the path must stop with AG_ENOMEM and a message,
 * leaving nothing allocated (the ASan and valgrind runs of this test catch leaks) and no partial
 * output file; once n passes the path's last allocation, the path succeeds with the same results
 * as a run without injection.
 *
 * The path: read a GML molecule (ag_graph_read) -> in-neighbour CSR (ag_graph_from_igraph) ->
 * node table with a label column (ag_table_read) -> a batch of the molecule with the table's
 * features, then one of three copies in the same buffer (ag_batch_buffer_fill) -> node labels
 * (ag_labels_from_strings) -> graph
 * labels table (ag_targets_read_csv) -> split.json and split.csv (ag_split_read_json/_csv) -> model
 * file written and read back (ag_safetensors_write/_read). igraph allocates with its own allocator,
 * so its allocations are not injected. The library's count of live blocks (ag_i_alloc_live) must be
 * back where it was after every run. test_alloc_failure_train.c continues the path through
 * featurising, training, checkpointing, saving, loading and predicting.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/graph.h>
#include <attngraph/labels.h>
#include <attngraph/safetensors.h>
#include <attngraph/split.h>
#include <attngraph/table.h>

void ag_i_alloc_fail_at(int64_t n);
int64_t ag_i_alloc_live(void);

#define MOLECULE AG_SOURCE_DIR "/graphs/molecules/aspirin.gml" /* 13 atoms, 13 bonds */
#define TARGETS AG_SOURCE_DIR "/tests/data/tables/targets.csv"
#define SPLIT_CSV AG_SOURCE_DIR "/tests/data/tables/dataset/split.csv"
#define N_ATOMS 13

static char dir[64];
static char table_path[128], split_path[128], model_path[128];

/* What a successful run produced, compared with the run without injection. */
typedef struct result_t {
    int64_t n_entries;
    float features[N_ATOMS * 3]; /* (N x F) */
    int64_t batch_nodes, batch_graphs;
    float batch_features[3 * N_ATOMS * 3]; /* (N x F) of the batch of three copies */
    int32_t y[N_ATOMS];
    int64_t n_classes, n_graphs, n_tasks;
    int64_t n_train, n_val, n_test, n_train_csv;
    int64_t n_tensors;
    float read_back[N_ATOMS * 3];
    char note[64];
} result_t;

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ag_allocfail_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(table_path, sizeof table_path, "%s/atoms.csv", dir);
    snprintf(split_path, sizeof split_path, "%s/split.json", dir);
    snprintf(model_path, sizeof model_path, "%s/model.safetensors", dir);
    /* rows in reverse vertex order, so that matching ids to vertices matters */
    char text[2048];
    size_t len = (size_t)snprintf(text, sizeof text, "id,x,y,z,element\n");
    for (int v = N_ATOMS - 1; v >= 0; v--)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d,%d.5,%d,-%d,%s\n", v, v, v % 4, v * 2,
                                v % 3 == 0 ? "C" : (v % 3 == 1 ? "O" : "N"));
    write_file(table_path, text);
    write_file(split_path, "{\"train\": [0, 1, 2, 3, 4, 5, 6, 7], \"val\": [8, 9], \"test\": [12, 10, 11]}\n");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    unlink(table_path);
    unlink(split_path);
    unlink(model_path);
    rmdir(dir);
    return 0;
}

/* The files in the output folder other than the model file: a failed atomic write must leave none. */
static int stray_files(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "atoms.csv") ||
            !strcmp(e->d_name, "split.json") || !strcmp(e->d_name, "model.safetensors"))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

static int is_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

/* Runs the whole path and returns the first error. Only the outputs of the calls that succeeded
 * are destroyed: a failing call must itself free whatever it allocated (the loaders promise a
 * zeroed output on failure), so a leak on an error path shows in the ASan and valgrind runs. */
static ag_error_t run_path(result_t *out) {
    static const char *const files[] = {"graphs/g1.gml", "graphs/g2.gml", "graphs/g3.gml"};
    ag_error_t rc;
    igraph_t ig;
    ag_graph_t g;
    ag_node_table_t t;
    ag_labels_t lab;
    ag_targets_t targets;
    ag_split_t split, split_csv;
    ag_safetensors_t file;
    ag_metadata_t meta;
    ag_batch_buffer_t buf;
    ag_batch_t batch;
    int have_ig = 0, have_g = 0, have_t = 0, have_lab = 0, have_targets = 0, have_split = 0, have_csv = 0,
        have_file = 0;
    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    memset(&t, 0, sizeof t);
    memset(&lab, 0, sizeof lab);
    memset(&targets, 0, sizeof targets);
    memset(&split, 0, sizeof split);
    memset(&split_csv, 0, sizeof split_csv);
    memset(&file, 0, sizeof file);
    ag_metadata_init(&meta);
    ag_batch_buffer_init(&buf);

    if ((rc = ag_graph_read(&ig, MOLECULE, AG_FORMAT_AUTO, 0)) != AG_SUCCESS) goto done;
    have_ig = 1;
    if ((rc = ag_graph_from_igraph(&g, &ig)) != AG_SUCCESS) goto done;
    have_g = 1;
    out->n_entries = g.n_entries;

    ag_table_options_t o;
    ag_table_options_init(&o);
    o.label_column = "element";
    if ((rc = ag_table_read(&t, table_path, &ig, &o)) != AG_SUCCESS) goto done;
    have_t = 1;
    memcpy(out->features, t.features.data, sizeof out->features);
    const ag_batch_member_t members[] = {{&g, &t.features, NULL}, {&g, &t.features, NULL}, {&g, &t.features, NULL}};
    for (int64_t count = 1; count <= 3; count += 2) {
        rc = ag_batch_buffer_fill(&buf, members, count, t.features.cols, 0, &batch);
        if (rc == AG_SUCCESS) {
            out->batch_nodes = buf.graph.n_nodes;
            out->batch_graphs = buf.graph.n_graphs;
            memcpy(out->batch_features, batch.X, (size_t)(buf.graph.n_nodes * t.features.cols) * sizeof(float));
        }
        ag_batch_destroy(&batch); /* empty after a failure */
        if (rc != AG_SUCCESS) goto done;
    }
    if ((rc = ag_labels_from_strings(&lab, (const char *const *)t.labels, t.features.rows, NULL, 0, "atoms.csv")) !=
        AG_SUCCESS)
        goto done;
    have_lab = 1;
    memcpy(out->y, lab.y, sizeof out->y);
    out->n_classes = lab.n_classes;

    if ((rc = ag_targets_read_csv(&targets, TARGETS, NULL)) != AG_SUCCESS) goto done;
    have_targets = 1;
    out->n_graphs = targets.n_graphs;
    out->n_tasks = targets.n_tasks;

    if ((rc = ag_split_read_json(&split, split_path, N_ATOMS)) != AG_SUCCESS) goto done;
    have_split = 1;
    out->n_train = split.folds[0].n_train;
    out->n_val = split.folds[0].n_val;
    out->n_test = split.folds[0].n_test;
    if ((rc = ag_split_read_csv(&split_csv, SPLIT_CSV, "random_split", files, 3)) != AG_SUCCESS) goto done;
    have_csv = 1;
    out->n_train_csv = split_csv.folds[0].n_train;

    ag_tensor_t tensor = {"features", 2, {t.features.rows, t.features.cols}, t.features.data};
    if ((rc = ag_metadata_set(&meta, "note", "allocation failures")) != AG_SUCCESS) goto done;
    if ((rc = ag_safetensors_write(model_path, &tensor, 1, &meta)) != AG_SUCCESS) goto done;
    if ((rc = ag_safetensors_read(&file, model_path, AG_SAFETENSORS_STRICT)) != AG_SUCCESS) goto done;
    have_file = 1;
    out->n_tensors = file.n_tensors;
    const ag_tensor_t *back = ag_safetensors_find(&file, "features");
    if (back) memcpy(out->read_back, back->data, sizeof out->read_back);
    const char *note = ag_metadata_get(&file.metadata, "note");
    snprintf(out->note, sizeof out->note, "%s", note ? note : "");

done:
    /* a call that failed left its output zeroed (the loaders' contract); the others were never made */
    assert_true(have_file || is_zero(&file, sizeof file));
    assert_true(have_csv || is_zero(&split_csv, sizeof split_csv));
    assert_true(have_split || is_zero(&split, sizeof split));
    assert_true(have_targets || is_zero(&targets, sizeof targets));
    assert_true(have_lab || is_zero(&lab, sizeof lab));
    assert_true(have_t || is_zero(&t, sizeof t));
    assert_true(have_g || is_zero(&g, sizeof g));
    if (have_file) ag_safetensors_destroy(&file);
    ag_metadata_destroy(&meta); /* the caller's own list, whatever the writer did */
    if (have_csv) ag_split_destroy(&split_csv);
    if (have_split) ag_split_destroy(&split);
    if (have_targets) ag_targets_destroy(&targets);
    if (have_lab) ag_labels_destroy(&lab);
    if (have_t) ag_node_table_destroy(&t);
    ag_batch_buffer_destroy(&buf); /* a failed fill leaves it empty of a graph, as a fresh one */
    if (have_g) ag_graph_destroy(&g);
    if (have_ig) igraph_destroy(&ig);
    return rc;
}

static void test_every_allocation_fails_once(void **state) {
    (void)state;
    result_t want, got;
    const int64_t live0 = ag_i_alloc_live();
    assert_int_equal(run_path(&want), AG_SUCCESS);
    assert_int_equal(ag_i_alloc_live(), live0);
    /* the reference run really went through every stage */
    assert_int_equal(want.n_entries, 2 * 13);
    assert_float_equal(want.features[0 * 3 + 0], 0.5f, 0.0f);
    assert_float_equal(want.features[12 * 3 + 2], -24.0f, 0.0f);
    assert_int_equal(want.batch_nodes, 3 * N_ATOMS);
    assert_int_equal(want.batch_graphs, 3);
    for (int k = 0; k < 3; k++)
        assert_memory_equal(want.batch_features + k * N_ATOMS * 3, want.features, sizeof want.features);
    assert_int_equal(want.n_classes, 3);
    assert_int_equal(want.y[0], 0); /* "C" < "N" < "O" */
    assert_int_equal(want.y[1], 2);
    assert_int_equal(want.y[2], 1);
    assert_int_equal(want.n_graphs, 3);
    assert_int_equal(want.n_train, 8);
    assert_int_equal(want.n_val, 2);
    assert_int_equal(want.n_test, 3);
    assert_int_equal(want.n_train_csv, 1);
    assert_int_equal(want.n_tensors, 1);
    assert_memory_equal(want.read_back, want.features, sizeof want.features);
    assert_string_equal(want.note, "allocation failures");

    int64_t n;
    for (n = 1; n < 100000; n++) {
        unlink(model_path);
        ag_error_clear();
        ag_i_alloc_fail_at(n);
        ag_error_t rc = run_path(&got);
        ag_i_alloc_fail_at(0);
        if (ag_i_alloc_live() != live0)
            fail_msg("allocation %lld: %lld blocks leaked", (long long)n, (long long)(ag_i_alloc_live() - live0));
        assert_int_equal(stray_files(), 0);
        if (rc == AG_SUCCESS) break;
        if (rc != AG_ENOMEM) fail_msg("allocation %lld: %s: %s", (long long)n, ag_error_name(rc), ag_error_message());
        assert_int_equal(ag_error_code(), AG_ENOMEM);
        assert_true(ag_error_message()[0] != '\0');
    }
    /* the path allocates more than a handful of times, and the run after the last one is whole */
    assert_true(n > 20);
    assert_memory_equal(&got, &want, sizeof want);
    print_message("load path: %lld allocations, each failed once\n", (long long)(n - 1));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
