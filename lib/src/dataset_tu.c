/*
 * dataset_tu.c: datasets in the TU format (TUDataset, Morris et al. 2020), the text files in which
 * the graph-classification benchmarks (MUTAG, PROTEINS, NCI1, IMDB-BINARY, ...) are published and
 * which PyG's and DGL's TUDataset read: one file per kind of record for all graphs at once, node
 * ids global and 1-based (see dataset.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include "attngraph/dataset.h"
#include "internal.h"

/* Records the first failure and jumps to the cleanup at `done`. */
#define TRY(expr) do { rc = (expr); if (rc != AG_SUCCESS) goto done; } while (0)

/* One file of comma-separated numbers: rows x cols, row-major. */
typedef struct tu_table_t {
    double *v;     /* (rows x cols) */
    int64_t rows;
    int64_t cols;  /* 0 when the file is absent */
    char path[1024];
} tu_table_t;

static void tu_table_free(tu_table_t *t) {
    ag_i_free(t->v);
    t->v = NULL;
    t->rows = t->cols = 0;
}

/* Parses one line (NUL-terminated, no newline) into out[0..*n-1] (at most cap values). Returns 0, or
 * -1 with a reason in why. */
static int parse_line(char *s, double *out, int64_t cap, int64_t *n, char *why, size_t whyn) {
    *n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s) {
            snprintf(why, whyn, "'%.40s' is not a number", s);
            return -1;
        }
        if (!isfinite(x)) {
            snprintf(why, whyn, "value %lld ('%.*s') is not finite", (long long)*n + 1,
                     (int)(end - s < 40 ? end - s : 40), s);
            return -1;
        }
        if (*n == cap) {
            snprintf(why, whyn, "more than %lld values", (long long)cap);
            return -1;
        }
        out[(*n)++] = x;
        s = end;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0') return 0;
        if (*s != ',') {
            snprintf(why, whyn, "'%.40s' after a number (values are separated by commas)", s);
            return -1;
        }
        s++;
    }
}

/* Reads prefix + suffix. An absent file is an error if required, else an empty table. Every line
 * (blank lines skipped) must hold the same number of values; integers requires whole numbers. */
static ag_error_t tu_read(tu_table_t *t, const char *prefix, const char *suffix, int required, int integers) {
    memset(t, 0, sizeof *t);
    if (snprintf(t->path, sizeof t->path, "%s%s", prefix, suffix) >= (int)sizeof t->path)
        return AG_ERROR(AG_EINVAL, "%s%s: path too long", prefix, suffix);
    FILE *f = ag_i_fopen_read(t->path);
    if (!f) {
        if (errno == ENOENT && !required) return AG_SUCCESS;
        return AG_ERROR(AG_EFILE, "%s: %s", t->path, strerror(errno));
    }
    char *buf = NULL;
    size_t len = 0;
    ag_error_t rc = ag_i_read_stream(f, &buf, &len);
    int e = errno;
    fclose(f);
    if (rc != AG_SUCCESS) {
        ag_i_free(buf);
        return rc == AG_ENOMEM ? AG_ERROR(AG_ENOMEM, "%s: out of memory reading it", t->path)
                               : AG_ERROR(AG_EFILE, "%s: %s", t->path, strerror(e));
    }
    enum { MAX_COLS = 4096 };
    double row[MAX_COLS];
    int64_t cap = 0, line = 0;
    char why[160];
    char *p = buf, *end = buf + len;
    p += ag_i_bom_length(buf, len);
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        line++;
        if (stop > p && stop[-1] == '\r') stop[-1] = '\0';
        *stop = '\0'; /* buf has room for its NUL at end */
        char *s = p;
        p = nl ? nl + 1 : end;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0') continue;
        int64_t n;
        if (parse_line(s, row, MAX_COLS, &n, why, sizeof why) != 0) {
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: %s", t->path, (long long)line, why);
            break;
        }
        if (t->rows == 0) t->cols = n;
        if (n != t->cols) {
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: %lld values, the first line has %lld", t->path, (long long)line,
                          (long long)n, (long long)t->cols);
            break;
        }
        for (int64_t c = 0; c < n && integers; c++)
            if (row[c] != floor(row[c])) {
                rc = AG_ERROR(AG_EPARSE, "%s:%lld: %.15g is not an integer", t->path, (long long)line, row[c]);
                break;
            } else if (fabs(row[c]) > 9e15) { /* beyond the integers a double holds one by one */
                rc = AG_ERROR(AG_EPARSE, "%s:%lld: value %lld is too large for an id or a label (at most 9e15)", t->path,
                              (long long)line, (long long)c + 1);
                break;
            }
        if (rc != AG_SUCCESS) break;
        if ((t->rows + 1) * t->cols > cap) {
            int64_t ncap = cap ? 2 * cap : 1024 * t->cols;
            double *nv = ag_i_realloc(t->v, (size_t)ncap * sizeof *nv);
            if (!nv) {
                rc = AG_ERROR(AG_ENOMEM, "%s: out of memory reading it", t->path);
                break;
            }
            t->v = nv;
            cap = ncap;
        }
        memcpy(t->v + t->rows * t->cols, row, (size_t)n * sizeof *row);
        t->rows++;
    }
    ag_i_free(buf);
    if (rc != AG_SUCCESS) tu_table_free(t);
    else if (t->rows == 0 && required) rc = AG_ERROR(AG_EPARSE, "%s: no values", t->path);
    return rc;
}

/* The file a table with a row per node (edge, graph) must match in length. */
static ag_error_t expect_rows(const tu_table_t *t, int64_t rows, const char *what, const char *per) {
    if (t->cols == 0 || t->rows == rows) return AG_SUCCESS;
    return AG_ERROR(AG_EPARSE, "%s: %lld lines, but %s has %lld %s", t->path, (long long)t->rows, what, (long long)rows,
                    per);
}

/* An edge line k of one graph: its unordered pair of local ends as one number (smaller x n +
 * larger), then k, so that sorting puts a pair's first line first. */
typedef struct pair_key_t {
    int64_t key, k;
} pair_key_t;

static int cmp_pair_key(const void *pa, const void *pb) {
    const pair_key_t *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* A label as igraph's string attribute: integers without a decimal point ("-1", "3"). */
static void label_text(char *buf, size_t n, double x) {
    if (x == floor(x) && fabs(x) < 9e15) snprintf(buf, n, "%lld", (long long)x);
    else snprintf(buf, n, "%.17g", x);
}

/* Attribute name of column c of a table of `width` columns: base alone when width is 1, else
 * base + (c + 1) ("node_attr1", "node_attr2"). */
static void column_name(char *buf, size_t n, const char *base, int64_t width, int64_t c) {
    if (width == 1) snprintf(buf, n, "%s", base);
    else snprintf(buf, n, "%s%lld", base, (long long)c + 1);
}

/* Sets the attribute columns of t (rows first..first+count-1) on the count vertices or edges of ig:
 * labels as strings, attributes as numbers. Inside the igraph guard. A column goes in with one
 * call: igraph finds an attribute by a linear search of its names on every call, so a value at a
 * time made a graph of K columns cost N x K^2. None is set when count is 0: the element-wise calls
 * this replaces set nothing then, and a graph without edges keeps no edge attribute. */
static igraph_error_t set_columns(igraph_t *ig, int is_edge, const tu_table_t *t, const int64_t *rows, int64_t count,
                                  const char *base, int as_string) {
    if (count == 0 || t->cols == 0) return IGRAPH_SUCCESS;
    char name[64], text[64];
    igraph_vector_t num;     /* (count) one numeric column */
    igraph_strvector_t str;  /* (count) one label column */
    igraph_error_t rc = as_string ? igraph_strvector_init(&str, count) : igraph_vector_init(&num, count);
    if (rc != IGRAPH_SUCCESS) return rc;
    for (int64_t c = 0; c < t->cols && rc == IGRAPH_SUCCESS; c++) {
        column_name(name, sizeof name, base, t->cols, c);
        for (int64_t i = 0; i < count && rc == IGRAPH_SUCCESS; i++) {
            double x = t->v[rows[i] * t->cols + c];
            if (as_string) {
                label_text(text, sizeof text, x);
                rc = igraph_strvector_set(&str, i, text);
            } else {
                VECTOR(num)[i] = x;
            }
        }
        if (rc != IGRAPH_SUCCESS) break;
        if (as_string)
            rc = is_edge ? igraph_cattribute_EAS_setv(ig, name, &str) : igraph_cattribute_VAS_setv(ig, name, &str);
        else
            rc = is_edge ? igraph_cattribute_EAN_setv(ig, name, &num) : igraph_cattribute_VAN_setv(ig, name, &num);
    }
    if (as_string) igraph_strvector_destroy(&str);
    else igraph_vector_destroy(&num);
    return rc;
}

/* PREFIX from a prefix ("data/MUTAG/MUTAG" -> "data/MUTAG/MUTAG_") or a folder: "data/MUTAG" ->
 * "data/MUTAG/MUTAG_" when data/MUTAG/MUTAG_A.txt exists, else the one NAME_A.txt the folder holds
 * (PyG keeps the files in MUTAG/raw/). */
static ag_error_t file_prefix(const char *path, char *buf, size_t n) {
    struct stat st;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    int w;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        w = snprintf(buf, n, "%.*s_", (int)len, path);
        if (w < 0 || (size_t)w >= n) return AG_ERROR(AG_EINVAL, "%s: path too long", path);
        char probe[1100];
        snprintf(probe, sizeof probe, "%sA.txt", buf);
        /* neither a folder nor a prefix: say that, not that PATH_A.txt is missing */
        if (access(probe, F_OK) != 0)
            return AG_ERROR(AG_EFILE, "%s: no such folder, and no %s (give the folder of a TU dataset, or its prefix "
                            "DIR/NAME)", path, probe);
        return AG_SUCCESS;
    }
    size_t b = len;
    while (b > 0 && path[b - 1] != '/') b--;
    w = snprintf(buf, n, "%.*s/%.*s_", (int)len, path, (int)(len - b), path + b);
    if (w < 0 || (size_t)w + 5 >= n) return AG_ERROR(AG_EINVAL, "%s: path too long", path);
    char probe[1100];
    snprintf(probe, sizeof probe, "%sA.txt", buf);
    if (access(probe, F_OK) == 0) return AG_SUCCESS;
    DIR *d = opendir(path);
    if (!d) return AG_ERROR(AG_EFILE, "%s: cannot list the folder: %s", path, strerror(errno));
    struct dirent *e;
    int found = 0;
    char name[256] = "";
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 6 || strcmp(e->d_name + l - 6, "_A.txt") != 0) continue;
        if (found++ == 0) snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->d_name);
    }
    closedir(d);
    if (found != 1)
        return AG_ERROR(AG_EFILE, "%s: %s (a TU dataset's NAME_A.txt; give the folder holding one, or its prefix)", path,
                        found ? "more than one *_A.txt file" : "no *_A.txt file");
    w = snprintf(buf, n, "%.*s/%s", (int)len, path, name);
    if (w < 0 || (size_t)w >= n) return AG_ERROR(AG_EINVAL, "%s: path too long", path);
    return AG_SUCCESS;
}

ag_error_t ag_dataset_load_tu(ag_dataset_t *ds, const char *path, const ag_dataset_options_t *opts) {
    if (!ds) return AG_ERROR(AG_EINVAL, "dataset: NULL output");
    ag_dataset_options_t defaults;
    ag_error_t rc = AG_SUCCESS;
    tu_table_t A = {0}, ind = {0}, glab = {0}, gattr = {0}, nlab = {0}, nattr = {0}, elab = {0}, eattr = {0};
    int64_t *node_graph = NULL;  /* (N) 0-based graph of each node */
    int64_t *local = NULL;       /* (N) index of each node within its graph */
    int64_t *n_nodes = NULL;     /* (G + 1) nodes of each graph */
    int64_t *first_node = NULL;  /* (G + 1) each graph's first in order */
    pair_key_t *keys = NULL;     /* (most edge lines of a graph) */
    int64_t *kept = NULL;        /* (E) kept edge lines by graph, in file order within a graph */
    int64_t *first_edge = NULL;  /* (G + 1) each graph's first in kept */
    int64_t *fill = NULL;        /* (G + 1) */
    unsigned char *drop = NULL;  /* (E) 1: a line repeating an earlier line's pair */
    int64_t G = 0, built = 0;
    char prefix[1024];
    void *p;
    memset(ds, 0, sizeof *ds);
    if (!opts) {
        ag_dataset_options_init(&defaults);
        opts = &defaults;
    }
    if (!path) return AG_ERROR(AG_EINVAL, "ag_dataset_load_tu: no path");
    if (opts->n_graph_attrs < 0 || (opts->n_graph_attrs > 0 && !opts->graph_attrs))
        return AG_ERROR(AG_EINVAL, "ag_dataset_load_tu: bad graph attribute list");
    AG_CHECK(file_prefix(path, prefix, sizeof prefix));
    TRY(tu_read(&A, prefix, "A.txt", 1, 1));
    TRY(tu_read(&ind, prefix, "graph_indicator.txt", 1, 1));
    TRY(tu_read(&glab, prefix, "graph_labels.txt", 0, 1));
    TRY(tu_read(&gattr, prefix, "graph_attributes.txt", 0, 0));
    TRY(tu_read(&nlab, prefix, "node_labels.txt", 0, 1));
    TRY(tu_read(&nattr, prefix, "node_attributes.txt", 0, 0));
    TRY(tu_read(&elab, prefix, "edge_labels.txt", 0, 1));
    TRY(tu_read(&eattr, prefix, "edge_attributes.txt", 0, 0));
    if (A.cols != 2) {
        rc = AG_ERROR(AG_EPARSE, "%s: %lld values per line (an edge is 'from, to')", A.path, (long long)A.cols);
        goto done;
    }
    if (ind.cols != 1) {
        rc = AG_ERROR(AG_EPARSE, "%s: %lld values per line (one graph id per node)", ind.path, (long long)ind.cols);
        goto done;
    }
    const int64_t N = ind.rows, E = A.rows;
    for (int64_t i = 0; i < N; i++) {
        if (ind.v[i] < 1) {
            rc = AG_ERROR(AG_EPARSE, "%s: node %lld has graph id %.15g (ids start at 1)", ind.path, (long long)i + 1,
                          ind.v[i]);
            goto done;
        }
        /* every graph has a node, so an id above N leaves one empty: refused before G sizes an array */
        if (ind.v[i] > (double)N) {
            rc = AG_ERROR(AG_EPARSE, "%s: node %lld has graph id %.15g, more than the %lld nodes (ids must run from 1 to G)",
                          ind.path, (long long)i + 1, ind.v[i], (long long)N);
            goto done;
        }
        if (ind.v[i] > (double)G) G = (int64_t)ind.v[i];
    }
    TRY(ag_i_alloc_array(&p, N, sizeof(int64_t), "node graphs"));
    node_graph = p;
    TRY(ag_i_alloc_array(&p, N, sizeof(int64_t), "node indices"));
    local = p;
    TRY(ag_i_alloc_array(&p, G + 1, sizeof(int64_t), "graph sizes"));
    n_nodes = p;
    TRY(ag_i_alloc_array(&p, G + 1, sizeof(int64_t), "graph offsets"));
    first_node = p;
    TRY(ag_i_alloc_array(&p, G + 1, sizeof(int64_t), "graph offsets"));
    first_edge = p;
    memset(n_nodes, 0, (size_t)(G + 1) * sizeof *n_nodes);
    for (int64_t i = 0; i < N; i++) {
        node_graph[i] = (int64_t)ind.v[i] - 1;
        local[i] = n_nodes[node_graph[i]]++;
    }
    for (int64_t g = 0; g < G; g++)
        if (n_nodes[g] == 0) {
            rc = AG_ERROR(AG_EPARSE, "%s: graph %lld has no node (ids must run from 1 to %lld)", ind.path, (long long)g + 1,
                          (long long)G);
            goto done;
        }
    TRY(expect_rows(&glab, G, ind.path, "graphs"));
    TRY(expect_rows(&gattr, G, ind.path, "graphs"));
    TRY(expect_rows(&nlab, N, ind.path, "nodes"));
    TRY(expect_rows(&nattr, N, ind.path, "nodes"));
    TRY(expect_rows(&elab, E, A.path, "edges"));
    TRY(expect_rows(&eattr, E, A.path, "edges"));
    if (glab.cols > 1) {
        rc = AG_ERROR(AG_EPARSE, "%s: %lld values per line (one label per graph)", glab.path, (long long)glab.cols);
        goto done;
    }
    /* Edges: the ends must be nodes of one graph. kept lists the lines by graph, in file order
     * within a graph (a counting sort); an undirected graph lists each edge in both directions, so
     * a pair is kept once, its first line (a self-loop once too). */
    TRY(ag_i_alloc_array(&p, E > 0 ? E : 1, sizeof(int64_t), "kept edges"));
    kept = p;
    TRY(ag_i_alloc_array(&p, G + 1, sizeof(int64_t), "graph offsets"));
    fill = p;
    memset(first_edge, 0, (size_t)(G + 1) * sizeof *first_edge);
    for (int64_t k = 0; k < E; k++) {
        double a = A.v[2 * k], b = A.v[2 * k + 1];
        if (a < 1 || a > (double)N || b < 1 || b > (double)N) {
            rc = AG_ERROR(AG_EPARSE, "%s: edge %lld (%.15g, %.15g) names a node outside 1..%lld", A.path, (long long)k + 1,
                          a, b, (long long)N);
            goto done;
        }
        int64_t u = (int64_t)a - 1, v = (int64_t)b - 1;
        if (node_graph[u] != node_graph[v]) {
            rc = AG_ERROR(AG_EPARSE, "%s: edge %lld joins node %lld of graph %lld and node %lld of graph %lld", A.path,
                          (long long)k + 1, (long long)u + 1, (long long)node_graph[u] + 1, (long long)v + 1,
                          (long long)node_graph[v] + 1);
            goto done;
        }
        first_edge[node_graph[u] + 1]++;
    }
    for (int64_t g = 0; g < G; g++) first_edge[g + 1] += first_edge[g];
    memcpy(fill, first_edge, (size_t)(G + 1) * sizeof *fill);
    for (int64_t k = 0; k < E; k++) kept[fill[node_graph[(int64_t)A.v[2 * k] - 1]]++] = k;
    if (!opts->directed) {
        int64_t most = 1, w = 0;
        for (int64_t g = 0; g < G; g++)
            if (first_edge[g + 1] - first_edge[g] > most) most = first_edge[g + 1] - first_edge[g];
        TRY(ag_i_alloc_array(&p, most, sizeof(pair_key_t), "edge keys"));
        keys = p;
        TRY(ag_i_alloc_array(&p, E > 0 ? E : 1, 1, "edge flags"));
        drop = p;
        for (int64_t g = 0; g < G; g++) {
            const int64_t a = first_edge[g], m = first_edge[g + 1] - a;
            for (int64_t i = 0; i < m; i++) {
                int64_t k = kept[a + i], u = local[(int64_t)A.v[2 * k] - 1], v = local[(int64_t)A.v[2 * k + 1] - 1];
                keys[i] = (pair_key_t){u < v ? u * n_nodes[g] + v : v * n_nodes[g] + u, k};
            }
            qsort(keys, (size_t)m, sizeof *keys, cmp_pair_key);
            for (int64_t i = 1; i < m; i++)
                if (keys[i].key == keys[i - 1].key) drop[keys[i].k] = 1;
            first_edge[g] = w; /* compacted in place: w never passes a + i */
            for (int64_t i = 0; i < m; i++)
                if (!drop[kept[a + i]]) kept[w++] = kept[a + i];
        }
        first_edge[G] = w;
    }
    first_node[0] = 0;
    for (int64_t g = 0; g < G; g++) first_node[g + 1] = first_node[g] + n_nodes[g];
    TRY(ag_i_alloc_array(&p, G, sizeof(igraph_t), "graphs"));
    ds->graphs = p;
    TRY(ag_i_alloc_array(&p, G, sizeof(char *), "file names"));
    ds->files = p;
    ds->named_by_id = 1;
    for (int64_t g = 0; g < G; g++) {
        char name[32];
        snprintf(name, sizeof name, "%lld", (long long)g + 1);
        if (!(ds->files[g] = ag_i_strdup(name))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory");
            goto done;
        }
    }
    /* Each graph's nodes, in file order: order[first_node[g] + v] is the line of vertex v of g. */
    int64_t *order = NULL; /* (N) nodes grouped by graph, in file order */
    TRY(ag_i_alloc_array(&p, N, sizeof(int64_t), "node order"));
    order = p;
    for (int64_t i = 0; i < N; i++) order[first_node[node_graph[i]] + local[i]] = i;
    ag_i_igraph_enter();
    if (!igraph_has_attribute_table()) igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_error_t irc = IGRAPH_SUCCESS;
    /* built counts the graphs made whole; a failure leaves it at the one that failed (destroyed). */
    for (; built < G; built++) {
        const int64_t g = built, m = first_edge[g + 1] - first_edge[g];
        igraph_vector_int_t ev;
        irc = igraph_vector_int_init(&ev, 2 * m);
        if (irc != IGRAPH_SUCCESS) break;
        for (int64_t i = 0; i < m; i++) {
            int64_t k = kept[first_edge[g] + i];
            VECTOR(ev)[2 * i] = local[(int64_t)A.v[2 * k] - 1];
            VECTOR(ev)[2 * i + 1] = local[(int64_t)A.v[2 * k + 1] - 1];
        }
        irc = igraph_create(&ds->graphs[g], &ev, n_nodes[g], opts->directed ? IGRAPH_DIRECTED : IGRAPH_UNDIRECTED);
        igraph_vector_int_destroy(&ev);
        if (irc != IGRAPH_SUCCESS) break;
        const int64_t *nodes = order + first_node[g];
        if (irc == IGRAPH_SUCCESS) irc = set_columns(&ds->graphs[g], 0, &nlab, nodes, n_nodes[g], "node_label", 1);
        if (irc == IGRAPH_SUCCESS) irc = set_columns(&ds->graphs[g], 0, &nattr, nodes, n_nodes[g], "node_attr", 0);
        if (irc == IGRAPH_SUCCESS) irc = set_columns(&ds->graphs[g], 1, &elab, kept + first_edge[g], m, "edge_label", 1);
        if (irc == IGRAPH_SUCCESS) irc = set_columns(&ds->graphs[g], 1, &eattr, kept + first_edge[g], m, "edge_attr", 0);
        char text[64], name[64];
        if (irc == IGRAPH_SUCCESS && glab.cols) {
            label_text(text, sizeof text, glab.v[g]);
            irc = igraph_cattribute_GAS_set(&ds->graphs[g], "label", text);
        }
        for (int64_t c = 0; c < gattr.cols && irc == IGRAPH_SUCCESS; c++) {
            column_name(name, sizeof name, "graph_attr", gattr.cols, c);
            irc = igraph_cattribute_GAN_set(&ds->graphs[g], name, gattr.v[g * gattr.cols + c]);
        }
        if (irc != IGRAPH_SUCCESS) {
            igraph_destroy(&ds->graphs[g]);
            break;
        }
    }
    ag_i_igraph_leave();
    ag_i_free(order);
    if (irc != IGRAPH_SUCCESS) {
        rc = irc == IGRAPH_ENOMEM ? AG_ERROR(AG_ENOMEM, "out of memory in igraph")
                                  : ag_i_igraph_error(AG_EIGRAPH, __FILE__, __LINE__, "%sA.txt: building graph %lld",
                                                      prefix, (long long)built + 1);
        goto done;
    }
    ds->n_graphs = G;
    /* Targets: the graph labels (classes), else the graph attributes (numbers), unless named. */
    {
        const char *auto_attrs[64];
        ag_task_kind_t kinds[64];
        const char *const *attrs = opts->graph_attrs;
        int64_t T = opts->n_graph_attrs;
        char names[64][64];
        if (!attrs) {
            T = 0;
            if (glab.cols) {
                auto_attrs[T] = "label";
                kinds[T++] = AG_TASK_MULTICLASS;
            } else {
                for (int64_t c = 0; c < gattr.cols && T < 64; c++) {
                    column_name(names[T], sizeof names[T], "graph_attr", gattr.cols, c);
                    auto_attrs[T] = names[T];
                    kinds[T++] = AG_TASK_REGRESSION;
                }
            }
            attrs = auto_attrs;
        }
        if (T == 0) {
            rc = AG_ERROR(AG_EFILE, "%sgraph_labels.txt: no such file, and no %sgraph_attributes.txt: nothing to predict",
                          prefix, prefix);
            goto done;
        }
        ag_task_kind_t *named = NULL; /* (T) */
        if (opts->graph_attrs) {
            /* named columns keep their file's meaning: graph_labels are classes and graph_attributes
             * numbers, whatever values they hold (an integer attribute is not a class code) */
            TRY(ag_i_alloc_array(&p, T, sizeof(ag_task_kind_t), "target kinds"));
            named = p;
            for (int64_t c = 0; c < T; c++)
                named[c] = !strcmp(attrs[c], "label") ? AG_TASK_MULTICLASS : AG_TASK_REGRESSION;
        }
        rc = ag_targets_from_graphs(&ds->targets, ds->graphs, G, attrs, T, named ? named : kinds,
                                    (const char *const *)ds->files);
        ag_i_free(named);
        if (rc != AG_SUCCESS) goto done;
    }
done:
    if (rc != AG_SUCCESS) {
        ag_i_igraph_enter();
        if (ds->graphs)
            for (int64_t g = 0; g < built; g++) igraph_destroy(&ds->graphs[g]);
        ag_i_igraph_leave();
        ag_i_free(ds->graphs);
        if (ds->files)
            for (int64_t g = 0; g < G; g++) ag_i_free(ds->files[g]);
        ag_i_free(ds->files);
        ag_targets_destroy(&ds->targets);
        memset(ds, 0, sizeof *ds);
    }
    tu_table_free(&A);
    tu_table_free(&ind);
    tu_table_free(&glab);
    tu_table_free(&gattr);
    tu_table_free(&nlab);
    tu_table_free(&nattr);
    tu_table_free(&elab);
    tu_table_free(&eattr);
    ag_i_free(node_graph);
    ag_i_free(local);
    ag_i_free(n_nodes);
    ag_i_free(first_node);
    ag_i_free(keys);
    ag_i_free(kept);
    ag_i_free(first_edge);
    ag_i_free(fill);
    ag_i_free(drop);
    return rc;
}
