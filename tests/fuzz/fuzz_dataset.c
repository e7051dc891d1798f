/*
 * fuzz_dataset.c: the dataset loaders as `attn-graph train --labels` drives them: a labels table
 * naming graph files (ag_dataset_load), a folder of graph files with graph-attribute targets
 * (ag_dataset_load_dir), the same folder as a TU dataset (ag_dataset_load_tu: parts named
 * X_A.txt, X_graph_indicator.txt, ...), and the preparation of a training set from the loaded dataset
 * (ag_prepared_from_graphs: task inference, featuriser fitted on every graph, targets laid out).
 *
 * One input is a small folder: parts separated by a line "----". The first part is labels.csv;
 * every further part (at most 8) is a file whose name is the part's first line (letters, digits,
 * '.', '_', '-'; at most 40 characters; not starting with '.'; anything else makes the part be
 * skipped) and whose content is the rest. The files go to a temporary folder of this process,
 * removed after each input. The labels table may name any path, including ones outside the
 * folder and missing files, which the loader must refuse with a message. Graph files are read
 * under the read limit FUZZ_READ_LIMIT (fuzz_common.h).
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <igraph.h>
#include "attngraph/dataset.h"
#include "attngraph/graph.h"
#include "attngraph/prepare.h"
#include "fuzz_common.h"

#define MAX_FILES 8
static char dir[256];
static char written[MAX_FILES + 1][320];
static int n_written;

static void remove_dir(void) {
    for (int i = 0; i < n_written; i++) unlink(written[i]);
    n_written = 0;
    if (dir[0]) rmdir(dir);
}

static void put_file(const char *name, const uint8_t *data, size_t size) {
    if (n_written > MAX_FILES) return;
    char *path = written[n_written];
    snprintf(path, sizeof written[0], "%s/%s", dir, name);
    for (int i = 0; i < n_written; i++)
        if (!strcmp(written[i], path)) return; /* a name given twice: the first part wins */
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();
    n_written++;
}

static int good_name(const uint8_t *s, size_t n) {
    if (n == 0 || n > 40 || s[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return 0;
    }
    return 1;
}

static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end) {
    static const char sep[] = "\n----\n";
    for (; p + 6 <= end; p++)
        if (!memcmp(p, sep, 6)) return p;
    return NULL;
}

/* Writes the parts of the input into the folder. */
static void unpack(const uint8_t *data, size_t size) {
    const uint8_t *p = data, *end = data + size;
    int part = 0;
    while (p <= end && part <= MAX_FILES) {
        const uint8_t *q = find_sep(p, end);
        const uint8_t *stop = q ? q + 1 : end; /* the part keeps its last newline */
        if (part == 0) {
            put_file("labels.csv", p, (size_t)(stop - p));
        } else {
            const uint8_t *nl = memchr(p, '\n', (size_t)(stop - p));
            if (nl && good_name(p, (size_t)(nl - p)) && !(nl - p == 10 && !memcmp(p, "labels.csv", 10))) {
                char name[48];
                memcpy(name, p, (size_t)(nl - p));
                name[nl - p] = '\0';
                put_file(name, nl + 1, (size_t)(stop - nl - 1));
            }
        }
        part++;
        if (!q) break;
        p = q + 6;
    }
}

static void prepare(const ag_dataset_t *ds, int use_pe) {
    ag_featurizer_config_t fc;
    ag_featurizer_config_init(&fc);
    fc.degree = 1;
    fc.norm = AG_NORM_STANDARDIZE;
    /* PE on a few small graphs only: a fuzzed edge list can give a graph of a million vertices */
    if (use_pe) {
        int64_t total = 0;
        for (int64_t g = 0; g < ds->n_graphs; g++) total += igraph_vcount(&ds->graphs[g]);
        if (total <= 200) {
            fc.rw_pe_k = 2;
            fc.lap_pe_k = 2;
        }
    }
    ag_task_t task = ag_task_infer(&ds->targets);
    ag_prepared_t p;
    ag_error_t rc = ag_prepared_from_graphs(&p, ds, task, &fc, NULL, 0);
    fuzz_check_result(rc, "ag_prepared_from_graphs");
    if (rc == AG_SUCCESS) {
        if (p.set.n_examples != ds->n_graphs) abort();
        for (int64_t g = 0; g < p.set.n_examples; g++)
            if (p.set.examples[g].X.cols != p.featurizer.n_features) abort();
        ag_prepared_destroy(&p);
    } else {
        fuzz_check_zeroed(&p, sizeof p, "ag_prepared_from_graphs");
    }
}

/* What every loader owes: a result with its message; on success one target row per graph (and at
 * least one graph when min_one), a dataset prepare() accepts, then freed; on failure all zero. */
static void check_loaded(ag_error_t rc, ag_dataset_t *ds, const char *what, int min_one, int use_pe) {
    fuzz_check_result(rc, what);
    if (rc != AG_SUCCESS) {
        fuzz_check_zeroed(ds, sizeof *ds, what);
        return;
    }
    if (ds->n_graphs != ds->targets.n_graphs || (min_one && ds->n_graphs < 1)) abort();
    prepare(ds, use_pe);
    ag_dataset_destroy(ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        igraph_set_attribute_table(&igraph_cattribute_table);
        ag_graph_read_set_max_memory(FUZZ_READ_LIMIT);
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/ag-fuzz-ds-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(dir)) abort();
        atexit(remove_dir);
    }
    unpack(data, size);

    char labels[300];
    snprintf(labels, sizeof labels, "%s/labels.csv", dir);
    ag_dataset_t ds;
    ag_error_clear();
    check_loaded(ag_dataset_load(&ds, labels, NULL), &ds, "ag_dataset_load", 1, 1);

    static const char *const attrs[] = {"label"};
    ag_dataset_options_t o;
    ag_dataset_options_init(&o);
    o.graph_attrs = attrs;
    o.n_graph_attrs = 1;
    o.directed = (int)(size & 1);
    ag_error_clear();
    check_loaded(ag_dataset_load_dir(&ds, dir, &o), &ds, "ag_dataset_load_dir", 0, 0);

    /* the same folder as a TU dataset: its one *_A.txt (if any) names the prefix */
    ag_dataset_options_init(&o);
    o.directed = (int)((size >> 1) & 1);
    ag_error_clear();
    check_loaded(ag_dataset_load_tu(&ds, dir, &o), &ds, "ag_dataset_load_tu", 1, 0);

    for (int i = 0; i < n_written; i++) unlink(written[i]);
    n_written = 0;
    return 0;
}
