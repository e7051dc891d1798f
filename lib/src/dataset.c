/*
 * dataset.c: many graphs read with igraph, plus their targets (see dataset.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "attngraph/dataset.h"
#include "attngraph/graph.h"
#include "internal.h"

/* Records the first failure and jumps to the cleanup at `done`. */
#define TRY(expr) do { rc = (expr); if (rc != AG_SUCCESS) goto done; } while (0)

void ag_dataset_options_init(ag_dataset_options_t *opts) { memset(opts, 0, sizeof *opts); }

void ag_dataset_destroy(ag_dataset_t *ds) {
    if (!ds) return;
    for (int64_t g = 0; g < ds->n_graphs; g++) {
        if (ds->graphs) igraph_destroy(&ds->graphs[g]);
        if (ds->files) ag_i_free(ds->files[g]);
    }
    ag_i_free(ds->graphs);
    ag_i_free(ds->files);
    ag_targets_destroy(&ds->targets);
    for (int64_t k = 0; k < ds->n_warnings; k++) ag_i_free(ds->warnings[k].reason);
    ag_i_free(ds->warnings);
    memset(ds, 0, sizeof *ds);
}

/* Is name a graph file by its extension? Probing through ag_format_from_path records an error for
 * other files, which is not one for a folder listing: forget it. */
static int is_graph_file(const char *name) {
    ag_format_t format;
    if (ag_format_from_path(name, &format) == AG_SUCCESS) return 1;
    ag_error_clear();
    return 0;
}

/* Is dir/name a regular file (following links)? */
static int is_regular(const char *dir, const char *name) {
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads one listed graph; on failure adds where the file was listed to ag_graph_read's message. */
static ag_error_t read_listed(igraph_t *graph, const char *path, const ag_dataset_options_t *opts, const char *table,
                              int64_t row) {
    ag_error_t rc = ag_graph_read(graph, path, opts->format, opts->directed);
    if (rc == AG_SUCCESS || !table) return rc;
    char msg[768];
    snprintf(msg, sizeof msg, "%s", ag_error_message());
    return AG_ERROR(rc, "%s (listed in data row %lld of %s)", msg, (long long)row + 1, table);
}

/* Adds the warnings igraph gave reading graph g (just read) to ds's: a warning already kept counts
 * one more graph; a new one is kept while there is room. The dataset is read on one thread in file
 * order (igraph is not thread-safe), so the first graph of each is the first in the table or
 * folder, and a second load of the same files keeps the same warnings. */
static ag_error_t keep_warnings(ag_dataset_t *ds, int64_t g) {
    const int n = ag_graph_read_warning_count();
    if (n == 0) return AG_SUCCESS;
    if (!ds->warnings) {
        void *p;
        AG_CHECK(ag_i_alloc_array(&p, AG_DATASET_WARNINGS_KEPT, sizeof(ag_dataset_warning_t), "reading warnings"));
        ds->warnings = p;
    }
    int other = ag_graph_read_warnings_other() > 0; /* past the file's own kept ones */
    for (int i = 0; i < n; i++) {
        const char *reason = ag_graph_read_warning_reason(i);
        int64_t k = 0;
        while (k < ds->n_warnings && strcmp(ds->warnings[k].reason, reason) != 0) k++;
        if (k < ds->n_warnings) {
            ds->warnings[k].n_graphs++; /* one read's warnings are distinct: g is not counted twice */
        } else if (k == AG_DATASET_WARNINGS_KEPT) {
            other = 1;
        } else {
            ag_dataset_warning_t *w = &ds->warnings[k];
            if (!(w->reason = ag_i_strdup(reason)))
                return AG_ERROR(AG_ENOMEM, "%s: out of memory keeping igraph's warning", ds->files[g]);
            w->n_graphs = 1;
            w->first = g;
            ds->n_warnings++;
        }
    }
    ds->n_warned++;
    if (other && ds->n_warned_other++ == 0) ds->first_other = g;
    return AG_SUCCESS;
}

/* Graph k against graph 0: a batch of training graphs is one block-diagonal graph, which is directed
 * or not as a whole, so a mix is refused here, where the files can still be named (a mini-batch
 * only knows its positions). */
static ag_error_t same_direction(const ag_dataset_t *ds, int64_t k, const char *table, const char *folder) {
    const int d0 = igraph_is_directed(&ds->graphs[0]), dk = igraph_is_directed(&ds->graphs[k]);
    if (k == 0 || d0 == dk) return AG_SUCCESS;
    char where[600];
    if (table) snprintf(where, sizeof where, "data row %lld of %s", (long long)k + 1, table);
    else snprintf(where, sizeof where, "in folder %s", folder);
    return AG_ERROR(AG_EMISMATCH,
                    "%s (%s) is %s but the dataset's first graph, %s, is %s: a dataset's graphs must all be directed "
                    "or all undirected",
                    ds->files[k], where, dk ? "directed" : "undirected", ds->files[0], d0 ? "directed" : "undirected");
}

/* dir + "/" + name, or name alone when it is absolute or dir is empty. */
static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    if (name[0] == '/' || a == 0) return ag_i_strdup(name);
    char *s = ag_i_malloc(a + b + 2);
    if (!s) return NULL;
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}

/* The folder part of a path ("." if none). */
static char *dirname_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ag_i_strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *s = ag_i_malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, path, n);
    s[n] = '\0';
    return s;
}

static ag_error_t alloc_graphs(ag_dataset_t *ds, int64_t n) {
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n, sizeof(igraph_t), "graphs"));
    ds->graphs = p;
    AG_CHECK(ag_i_alloc_array(&p, n, sizeof(char *), "file names"));
    ds->files = p;
    return AG_SUCCESS;
}

ag_error_t ag_dataset_load(ag_dataset_t *ds, const char *labels_csv, const ag_dataset_options_t *opts) {
    if (!ds) return AG_ERROR(AG_EINVAL, "dataset: NULL output");
    ag_dataset_options_t defaults;
    ag_error_t rc = AG_SUCCESS;
    char *dir = NULL, *path = NULL;
    int64_t loaded = 0;
    memset(ds, 0, sizeof *ds);
    if (!opts) {
        ag_dataset_options_init(&defaults);
        opts = &defaults;
    }
    if (!labels_csv) return AG_ERROR(AG_EINVAL, "ag_dataset_load: no labels table");
    if ((int)opts->format < 0 || opts->format >= AG_FORMAT_COUNT)
        return AG_ERROR(AG_EINVAL, "ag_dataset_load: format %d is not an ag_format_t", (int)opts->format);
    AG_CHECK(ag_targets_read_csv(&ds->targets, labels_csv, &opts->targets));
    int64_t g = ds->targets.n_graphs;
    TRY(alloc_graphs(ds, g));
    if (!(dir = dirname_of(labels_csv))) {
        rc = AG_ERROR(AG_ENOMEM, "out of memory");
        goto done;
    }
    for (; loaded < g; loaded++) {
        const char *name = ds->targets.files[loaded];
        if (name[0] == '\0') {
            rc = AG_ERROR(AG_EFILE, "%s: row %lld has an empty file name", labels_csv, (long long)loaded + 1);
            goto done;
        }
        if (!(path = join(dir, name)) || !(ds->files[loaded] = ag_i_strdup(name))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory");
            goto done;
        }
        rc = read_listed(&ds->graphs[loaded], path, opts, labels_csv, loaded);
        ag_i_free(path);
        path = NULL;
        if (rc != AG_SUCCESS) {
            ag_i_free(ds->files[loaded]);
            ds->files[loaded] = NULL;
            goto done;
        }
        rc = keep_warnings(ds, loaded);
        if (rc == AG_SUCCESS) rc = same_direction(ds, loaded, labels_csv, NULL);
        if (rc != AG_SUCCESS) {
            loaded++; /* graph `loaded` was read: destroyed with the others */
            goto done;
        }
    }
    ds->n_graphs = g;
done:
    if (rc != AG_SUCCESS) ds->n_graphs = loaded;
    ag_i_free(dir);
    ag_i_free(path);
    if (rc != AG_SUCCESS) ag_dataset_destroy(ds);
    return rc;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

ag_error_t ag_dataset_load_dir(ag_dataset_t *ds, const char *dir, const ag_dataset_options_t *opts) {
    if (!ds) return AG_ERROR(AG_EINVAL, "dataset: NULL output");
    ag_dataset_options_t defaults;
    ag_error_t rc = AG_SUCCESS;
    char **names = NULL;
    int64_t n = 0, cap = 0, loaded = 0;
    char *path = NULL;
    memset(ds, 0, sizeof *ds);
    if (!opts) {
        ag_dataset_options_init(&defaults);
        opts = &defaults;
    }
    if (!dir) return AG_ERROR(AG_EINVAL, "ag_dataset_load_dir: no folder");
    if ((int)opts->format < 0 || opts->format >= AG_FORMAT_COUNT)
        return AG_ERROR(AG_EINVAL, "ag_dataset_load_dir: format %d is not an ag_format_t", (int)opts->format);
    DIR *d = opendir(dir);
    if (!d) return AG_ERROR(AG_EFILE, "%s: cannot list the folder: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        /* A format given for every file makes every regular file one (edge lists named .txt). */
        if (e->d_name[0] == '.') continue;
        if (opts->format == AG_FORMAT_AUTO ? !is_graph_file(e->d_name) : !is_regular(dir, e->d_name)) continue;
        if (n == cap) {
            int64_t ncap = cap ? 2 * cap : 64;
            char **nn = ag_i_realloc(names, (size_t)ncap * sizeof *nn);
            if (!nn) {
                rc = AG_ERROR(AG_ENOMEM, "%s: out of memory listing the folder", dir);
                break;
            }
            names = nn;
            cap = ncap;
        }
        if (!(names[n] = ag_i_strdup(e->d_name))) {
            rc = AG_ERROR(AG_ENOMEM, "%s: out of memory listing the folder", dir);
            break;
        }
        n++;
    }
    closedir(d);
    if (rc != AG_SUCCESS) goto done;
    if (n == 0) {
        rc = opts->format == AG_FORMAT_AUTO
                 ? AG_ERROR(AG_EFILE,
                            "%s: no graph file (a known extension such as .gml, .graphml, .net, .edges) in the folder",
                            dir)
                 : AG_ERROR(AG_EFILE, "%s: no file in the folder", dir);
        goto done;
    }
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    TRY(alloc_graphs(ds, n));
    for (; loaded < n; loaded++) {
        if (!(path = join(dir, names[loaded]))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory");
            goto done;
        }
        rc = read_listed(&ds->graphs[loaded], path, opts, NULL, loaded);
        ag_i_free(path);
        path = NULL;
        if (rc != AG_SUCCESS) goto done;
        ds->files[loaded] = names[loaded];
        names[loaded] = NULL;
        rc = keep_warnings(ds, loaded);
        if (rc == AG_SUCCESS) rc = same_direction(ds, loaded, NULL, dir);
        if (rc != AG_SUCCESS) {
            loaded++; /* graph `loaded` was read: destroyed with the others */
            goto done;
        }
    }
    ds->n_graphs = n;
    if (opts->n_graph_attrs > 0)
        TRY(ag_targets_from_graphs(&ds->targets, ds->graphs, n, opts->graph_attrs, opts->n_graph_attrs, NULL,
                                   (const char *const *)ds->files));
done:
    if (rc != AG_SUCCESS && ds->n_graphs == 0) ds->n_graphs = loaded;
    if (names)
        for (int64_t i = 0; i < n; i++) ag_i_free(names[i]);
    ag_i_free(names);
    if (rc != AG_SUCCESS) ag_dataset_destroy(ds);
    return rc;
}
