/*
 * learn.c: data options, data loading, splits and score printing shared by train and eval.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "learn.h"
#include "predict.h"

void cli_data_opts_init(cli_data_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->fold = -1;
    o->seed = 1;
    o->rw_pe = -1;  /* not given: the preset's (graph: 8) */
    o->lap_pe = -1; /* not given: node tasks on a graph without usable attribute get some */
}

const char *cli_split_source_text(ag_split_source_t source, int option) {
    static const char *const how[][2] = {
        {"a seeded random split", "--split-random TRAIN,VAL with the model's seed"},
        {"a split file", "--split FILE"},
        {"one fold of a folds file", "--folds FILE --fold K"},
        {"one of k seeded folds", "--kfold K --fold I"},
        {"listed training vertices", "--train-nodes I,J,..."},
    };
    const int k = (int)source - (int)AG_SPLIT_SOURCE_RANDOM;
    return k >= 0 && k < (int)(sizeof how / sizeof how[0]) ? how[k][option ? 1 : 0] : NULL;
}

int cli_split_seeded(const cli_data_opts_t *o) {
    return o->kfold > 0 || (!o->split && !o->folds && !o->train_nodes);
}

int cli_opt(const char *cmd, const char *name, int argc, char **argv, int *i, const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "attn-graph: %s: %s needs a value\n", cmd, name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_int(const char *cmd, const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "attn-graph: %s: %s takes an integer in [%lld, %lld], not '%s'\n", cmd, opt, (long long)lo,
                (long long)hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_float(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "attn-graph: %s: %s takes a number in [%g, %g], not '%s'\n", cmd, opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_split_list(char *s, const char **items) {
    int n = 0;
    for (char *tok = s; tok && n < CLI_MAX_LIST;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        if (*tok) items[n++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    return n;
}

int cli_data_option(cli_data_opts_t *o, const char *cmd, int argc, char **argv, int *i, int with_features) {
    const char *v = NULL;
    int r;
    int64_t k;
#define OPT_STR(name, field) \
    if ((r = cli_opt(cmd, name, argc, argv, i, &v)) != 0) { \
        if (r > 0) o->field = v; \
        return r; \
    }
    OPT_STR("--labels", labels);
    OPT_STR("--tu", tu);
    OPT_STR("--target", targets);
    OPT_STR("--file-column", file_column);
    OPT_STR("--label-attr", label_attr);
    OPT_STR("--node-table", node_table);
    OPT_STR("--table-id-attr", table_id_attr);
    OPT_STR("--train-nodes", train_nodes);
    OPT_STR("--split", split);
    OPT_STR("--split-column", split_column);
    OPT_STR("--folds", folds);
    OPT_STR("--split-random", split_random);
    OPT_STR("--task", task);
    if ((r = cli_opt(cmd, "--kfold", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_int(cmd, "--kfold", v, 2, 1000000, &o->kfold) < 0) return -1;
        return 1;
    }
    if ((r = cli_opt(cmd, "--fold", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_int(cmd, "--fold", v, 0, 1000000, &k) < 0) return -1;
        o->fold = k;
        return 1;
    }
    if ((r = cli_opt(cmd, "--seed", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_int(cmd, "--seed", v, 0, INT64_MAX, &k) < 0) return -1;
        o->seed = (uint64_t)k;
        o->seed_given = 1;
        return 1;
    }
    if ((r = cli_vertices_option(cmd, argc, argv, i, &o->vertices)) != 0) return r;
    if (!strcmp(argv[*i], "--stratify")) {
        o->stratify = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--directed")) {
        o->directed = 1;
        return 1;
    }
    if ((r = cli_opt(cmd, "--format", argc, argv, i, &v)) != 0) {
        if (r < 0) return -1;
        if (ag_format_from_name(v, &o->format) != AG_SUCCESS) {
            fprintf(stderr, "attn-graph: %s: --format: %s\n", cmd, ag_error_message());
            return -1;
        }
        return 1;
    }
    if (!with_features) return 0;
    OPT_STR("--vertex-attrs", vertex_attrs);
    OPT_STR("--edge-attrs", edge_attrs);
    OPT_STR("--exclude-attrs", exclude_attrs);
    OPT_STR("--normalize", normalize);
    if (!strcmp(argv[*i], "--degree")) {
        o->degree = 1;
        return 1;
    }
    if ((r = cli_opt(cmd, "--lap-pe", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_int(cmd, "--lap-pe", v, 0, 1000, &o->lap_pe) < 0) return -1;
        return 1;
    }
    if ((r = cli_opt(cmd, "--rw-pe", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_int(cmd, "--rw-pe", v, 0, 1000, &o->rw_pe) < 0) return -1;
        return 1;
    }
#undef OPT_STR
    return 0;
}

void cli_data_destroy(cli_data_t *d) {
    ag_dataset_destroy(&d->ds);
    if (d->have_graph) igraph_destroy(&d->graph);
    if (d->have_table) ag_node_table_destroy(&d->table);
    if (d->have_split) ag_split_destroy(&d->split);
    for (int i = 0; i < 3; i++) free(d->owned[i]);
    free(d->target_buf);
    memset(d, 0, sizeof *d);
}

static int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int usage_error(const char *cmd, const char *msg) {
    fprintf(stderr, "attn-graph: %s: %s (see 'attn-graph %s --help')\n", cmd, msg, cmd);
    return AG_EXIT_USAGE;
}

/* --train-nodes: train = the listed nodes, test = every other node, no validation. */
static int train_nodes_fold(cli_data_t *d, const char *list, int64_t N, const char *cmd) {
    char *buf = strdup(list);
    const char *items[CLI_MAX_LIST];
    if (!buf) return AG_EXIT_FAILURE;
    int n = cli_split_list(buf, items);
    unsigned char *in = calloc((size_t)N + 1, 1);
    d->owned[0] = malloc(sizeof(int64_t) * (size_t)(n + 1));
    d->owned[2] = malloc(sizeof(int64_t) * (size_t)(N + 1));
    if (!in || !d->owned[0] || !d->owned[2]) {
        free(buf);
        free(in);
        return AG_EXIT_FAILURE;
    }
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (cli_int(cmd, "--train-nodes", items[i], 0, N - 1, &v) < 0) {
            free(buf);
            free(in);
            return AG_EXIT_USAGE;
        }
        if (in[v]) { /* a typo in a hand-written list, as a split file's repeated index is */
            fprintf(stderr, "attn-graph: %s: --train-nodes lists vertex %lld twice\n", cmd, (long long)v);
            free(buf);
            free(in);
            return AG_EXIT_USAGE;
        }
        in[v] = 1;
    }
    free(buf);
    d->fold.n_train = d->fold.n_test = 0;
    for (int64_t v = 0; v < N; v++) {
        if (in[v]) d->owned[0][d->fold.n_train++] = v;
        else d->owned[2][d->fold.n_test++] = v;
    }
    free(in);
    d->fold.train = d->owned[0];
    d->fold.test = d->owned[2];
    d->fold.val = NULL;
    d->fold.n_val = 0;
    if (d->fold.n_train == 0) return usage_error(cmd, "--train-nodes lists no node");
    return AG_EXIT_OK;
}

/* Whether a dataset's targets are one target of classes: what --kfold stratifies by, and all
 * --stratify takes. */
static int one_class_target(const ag_targets_t *t) {
    return t->n_tasks == 1 && (t->kinds[0] == AG_TASK_MULTICLASS || t->kinds[0] == AG_TASK_BINARY);
}

/* --kfold K's strata: each graph's class when the one target is classes (so each fold keeps the
 * class balance, as scikit-learn's StratifiedKFold), else one stratum (folds at random). (G),
 * malloc'ed; NULL when out of memory. */
static int32_t *kfold_strata(const cli_data_t *d) {
    const ag_targets_t *t = &d->ds.targets;
    int64_t n = d->ds.n_graphs;
    int32_t *y = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!y) return NULL;
    const int classes = one_class_target(t);
    for (int64_t g = 0; g < n; g++) {
        float v = classes ? t->y.data[g] : 0.0f;
        y[g] = isnan(v) ? -1 : (int32_t)v;
    }
    return y;
}

/* The node task a label attribute suggests: a numeric attribute with a non-integer value, or with
 * more than 100 distinct values, is a regression target; anything else (strings, booleans, integer
 * class codes such as karate's 0/1 or LastFM Asia's 18 classes) holds classes. Integer targets with
 * few values (counts, degrees) need --task node-regression. A missing attribute is left to the
 * preparation, which names it. */
ag_task_t cli_node_task_infer(const igraph_t *ig, const char *attr) {
    enum { MAX_CLASSES = 100 };
    igraph_attribute_type_t type;
    if (!igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, attr) ||
        igraph_cattribute_table.gettype(ig, &type, IGRAPH_ATTRIBUTE_VERTEX, attr) != IGRAPH_SUCCESS ||
        type != IGRAPH_ATTRIBUTE_NUMERIC)
        return AG_TASK_NODE_CLASSIFICATION;
    double seen[MAX_CLASSES];
    int n_seen = 0;
    for (igraph_integer_t v = 0; v < igraph_vcount(ig); v++) {
        double y = VAN(ig, attr, v);
        if (isnan(y)) continue;
        if (y != floor(y)) return AG_TASK_NODE_REGRESSION;
        int k = 0;
        while (k < n_seen && seen[k] != y) k++;
        if (k == n_seen) {
            if (n_seen == MAX_CLASSES) return AG_TASK_NODE_REGRESSION;
            seen[n_seen++] = y;
        }
    }
    return AG_TASK_NODE_CLASSIFICATION;
}

/* Each item's class for --stratify (n, malloc'ed in *y): a graph task's one target of classes, a
 * node task's label attribute of classes; an item without one is not read (labelled_items leaves
 * it out). A regression target or several tasks have no classes to draw by: a usage error.
 * Returns an exit code. */
static int stratify_classes(const cli_data_t *d, const cli_data_opts_t *o, const char *cmd, int64_t n, int32_t **y) {
    *y = NULL;
    if (d->graph_level) {
        const ag_targets_t *t = &d->ds.targets;
        if (!one_class_target(t)) {
            fprintf(stderr, "attn-graph: %s: --stratify draws the split class by class, and %s: leave it out, or "
                    "name one target of classes (--target)\n", cmd,
                    t->n_tasks != 1 ? "the targets are several tasks" : "the target is a regression one");
            return AG_EXIT_USAGE;
        }
        *y = kfold_strata(d);
    } else {
        ag_task_t task = AG_TASK_NODE_CLASSIFICATION;
        if (!o->task || ag_task_from_name(o->task, &task) != AG_SUCCESS) /* a bad name: said by the caller */
            task = cli_node_task_infer(&d->graph, o->label_attr);
        if (task == AG_TASK_NODE_REGRESSION) {
            fprintf(stderr, "attn-graph: %s: --stratify draws the split class by class, and '%s' is a regression "
                    "target: leave it out\n", cmd, o->label_attr);
            return AG_EXIT_USAGE;
        }
        ag_labels_t lab;
        ag_error_t rc = ag_labels_from_attr(&lab, &d->graph, o->label_attr, NULL, 0);
        if (rc) return ag_cli_fail(rc);
        if ((*y = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1))) != NULL && n > 0)
            memcpy(*y, lab.y, sizeof(int32_t) * (size_t)n);
        ag_labels_destroy(&lab);
    }
    if (!*y && n > 0) {
        fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
        return AG_EXIT_FAILURE;
    }
    return AG_EXIT_OK;
}

/* The items a random split divides: the labelled ones (a vertex with a value in --label-attr, a
 * graph with one in any target). An unlabelled item counts in no score, so drawn into validation
 * or test it only took a labelled one's place: a graph with a few labels among many vertices had
 * them nearly all in training and none to validate or test. Sets *member (n, malloc'ed) and
 * *n_member; *member is NULL when every item is labelled, or when a graph lacks the attribute,
 * whose error the preparation gives. Returns an exit code. */
static int labelled_items(const cli_data_t *d, const cli_data_opts_t *o, const char *cmd, int64_t n,
                          unsigned char **member, int64_t *n_member) {
    *member = NULL;
    *n_member = n;
    if (!d->graph_level && !igraph_cattribute_has_attr(&d->graph, IGRAPH_ATTRIBUTE_VERTEX, o->label_attr))
        return AG_EXIT_OK;
    unsigned char *in = malloc((size_t)(n > 0 ? n : 1));
    if (!in) {
        fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
        return AG_EXIT_FAILURE;
    }
    int64_t count = 0;
    if (d->graph_level) {
        const ag_targets_t *t = &d->ds.targets;
        for (int64_t g = 0; g < n; g++) {
            int64_t j = 0;
            while (j < t->n_tasks && isnan(t->y.data[g * t->n_tasks + j])) j++;
            in[g] = j < t->n_tasks;
            count += in[g];
        }
    } else {
        ag_error_t rc = ag_labels_present(&d->graph, o->label_attr, in, &count);
        if (rc) {
            free(in);
            return ag_cli_fail(rc);
        }
    }
    if (count < n) *member = in;
    else free(in);
    *n_member = count;
    return AG_EXIT_OK;
}

static int load_split(cli_data_t *d, const cli_data_opts_t *o, const char *cmd, int64_t n_items) {
    ag_error_t rc = AG_SUCCESS;
    int given = (o->split != NULL) + (o->folds != NULL) + (o->split_random != NULL) + (o->train_nodes != NULL) +
                (o->kfold > 0);
    if (given > 1) return usage_error(cmd, "give only one of --split, --folds, --kfold, --split-random, --train-nodes");
    if (o->folds && o->fold < 0) return usage_error(cmd, "--folds needs --fold K");
    if (o->kfold > 0 && o->fold < 0) return usage_error(cmd, "--kfold needs --fold I (0 to K - 1)");
    if (!o->folds && o->kfold == 0 && o->fold >= 0) return usage_error(cmd, "--fold needs --folds FILE or --kfold K");
    if (o->kfold > 0 && !d->graph_level) return usage_error(cmd, "--kfold is for graph tasks (--labels, --tu)");
    if (o->kfold > 0 && o->fold >= o->kfold) {
        fprintf(stderr, "attn-graph: %s: --fold %lld: --kfold %lld has folds 0..%lld\n", cmd, (long long)o->fold,
                (long long)o->kfold, (long long)o->kfold - 1);
        return AG_EXIT_USAGE;
    }
    if (o->stratify && (o->split || o->folds || o->train_nodes))
        return usage_error(cmd, "--stratify draws a random split by class (--split-random, or the default): "
                                "a split file, folds or listed vertices give their parts as they are");
    if (o->train_nodes) {
        if (d->graph_level) return usage_error(cmd, "--train-nodes is for node tasks (a GRAPH argument)");
        return train_nodes_fold(d, o->train_nodes, n_items, cmd);
    }
    const char *const *files = d->graph_level ? (const char *const *)d->ds.files : NULL;
    if (o->kfold > d->ds.n_graphs) {
        /* each fold tests at least one graph */
        if (d->ds.n_graphs < 2)
            fprintf(stderr, "attn-graph: %s: --kfold %lld: the dataset has %lld graph; folds need 2 or more\n", cmd,
                    (long long)o->kfold, (long long)d->ds.n_graphs);
        else
            fprintf(stderr, "attn-graph: %s: --kfold %lld: the dataset has %lld graphs; K may be 2 to %lld\n", cmd,
                    (long long)o->kfold, (long long)d->ds.n_graphs, (long long)d->ds.n_graphs);
        return AG_EXIT_USAGE;
    }
    if (o->kfold > 0) {
        int32_t *y = kfold_strata(d);
        if (!y) {
            fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
            return AG_EXIT_FAILURE;
        }
        rc = ag_split_stratified_kfold(&d->split, y, d->ds.n_graphs, o->kfold, o->seed);
        free(y);
    } else if ((o->split && ends_with(o->split, ".json")) || (o->folds && ends_with(o->folds, ".json"))) {
        rc = ag_split_read_json(&d->split, o->split ? o->split : o->folds, n_items);
    } else if (o->split || o->folds) {
        const char *path = o->split ? o->split : o->folds;
        const char *column = o->split_column ? o->split_column : o->split ? "random_split" : "fold";
        if (d->graph_level) {
            rc = ag_split_read_csv_named(&d->split, path, column, o->file_column, files, n_items);
        } else {
            /* rows name their vertices in the id column, as a node table's do: by position, a
             * file listing them in another order would silently put other vertices in each part */
            int missing;
            char **ids = cli_vertex_ids(&d->graph, o->table_id_attr, &missing);
            if (!ids) {
                if (missing)
                    fprintf(stderr, "attn-graph: %s: --table-id-attr %s: the graph has no such vertex attribute\n",
                            cmd, o->table_id_attr);
                else
                    fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
                return missing ? AG_EXIT_INPUT : AG_EXIT_FAILURE;
            }
            rc = ag_split_read_csv_vertices(&d->split, path, column, o->table_id_attr ? o->table_id_attr : "id",
                                            (const char *const *)ids, n_items);
            cli_vertex_ids_free(ids, igraph_vcount(&d->graph));
        }
    } else {
        double f[3] = {0.8, 0.1, 0.1};
        if (o->split_random) {
            char *buf = strdup(o->split_random);
            const char *items[CLI_MAX_LIST];
            int n = buf ? cli_split_list(buf, items) : 0;
            if (n < 2 || n > 3) {
                free(buf);
                return usage_error(cmd, "--split-random takes TRAIN,VAL[,TEST] fractions");
            }
            for (int i = 0; i < n; i++)
                if (cli_float(cmd, "--split-random", items[i], 0.0, 1.0, &f[i]) < 0) {
                    free(buf);
                    return AG_EXIT_USAGE;
                }
            free(buf);
            if (f[0] + f[1] > 1.0 + 1e-9) return usage_error(cmd, "--split-random fractions add up to more than 1");
            /* the test part is what train and validation leave: a third fraction only says so, and one
             * that does not (0.5,0.5,0.5) would be quietly ignored */
            if (n == 3 && fabs(f[0] + f[1] + f[2] - 1.0) > 1e-6) {
                char msg[256];
                snprintf(msg, sizeof msg, "--split-random %s: TRAIN,VAL,TEST add up to %g, not 1 (the test part is "
                         "the rest: TRAIN,VAL says the same)", o->split_random, f[0] + f[1] + f[2]);
                return usage_error(cmd, msg);
            }
        }
        unsigned char *member;
        int64_t n_member;
        const int code = labelled_items(d, o, cmd, n_items, &member, &n_member);
        if (code != AG_EXIT_OK) return code;
        int32_t *y = NULL; /* (n_items) the classes, with --stratify */
        const int strata = o->stratify ? stratify_classes(d, o, cmd, n_items, &y) : AG_EXIT_OK;
        if (strata != AG_EXIT_OK) {
            free(member);
            return strata;
        }
        rc = y ? ag_split_stratified_among(&d->split, y, n_items, member, f[0], f[1], o->seed)
               : ag_split_random_among(&d->split, n_items, member, f[0], f[1], o->seed);
        d->split_stratified = y != NULL;
        free(y);
        free(member);
        d->n_unsplit = n_items - n_member;
        d->split_fractions[0] = f[0];
        d->split_fractions[1] = f[1];
        d->split_drawn = !o->kfold;
    }
    if (rc) return ag_cli_fail(rc);
    d->have_split = 1;
    int64_t k = o->folds || o->kfold ? o->fold : 0;
    if (o->folds && k >= d->split.n_folds) {
        fprintf(stderr, "attn-graph: %s: --fold %lld: %s has %lld folds (0..%lld)\n", cmd, (long long)k, o->folds,
                (long long)d->split.n_folds, (long long)d->split.n_folds - 1);
        return AG_EXIT_USAGE;
    }
    if (!o->folds && !o->kfold && d->split.n_folds > 1) {
        fprintf(stderr, "attn-graph: %s: %s holds %lld folds: use --folds FILE --fold K\n", cmd, o->split,
                (long long)d->split.n_folds);
        return AG_EXIT_USAGE;
    }
    d->fold = d->split.folds[k];
    return AG_EXIT_OK;
}


/* What igraph warned of while the dataset's files were read, which the library keeps rather than
 * prints: one line per distinct warning with how many graphs gave it and the first, so that 10,000
 * files that each drop the same list attribute give one line, not 10,000, and a warning of a few
 * files is not hidden behind the common one. Files are named as the table lists them, as train's
 * and eval's other messages about a dataset's graphs name them. Said under --quiet too: data were
 * left out. */
static void warn_reading(const ag_dataset_t *ds) {
    char fb[512], rb[1024];
    for (int64_t k = 0; k < ds->n_warnings; k++) {
        const ag_dataset_warning_t *w = &ds->warnings[k];
        ag_cli_warning("igraph warned while reading %lld of the %lld graphs, %s%s: %s", (long long)w->n_graphs,
                       (long long)ds->n_graphs, w->n_graphs > 1 ? "the first " : "",
                       cli_display(ds->files[w->first], fb, sizeof fb), cli_display(w->reason, rb, sizeof rb));
    }
    if (ds->n_warned_other > 0)
        ag_cli_warning("igraph warned of other things than the %lld above while reading %lld of the %lld graphs, the "
                       "first %s (attn-graph info FILE says a file's warnings)",
                       (long long)ds->n_warnings, (long long)ds->n_warned_other, (long long)ds->n_graphs,
                       cli_display(ds->files[ds->first_other], fb, sizeof fb));
}

int cli_data_load(cli_data_t *d, const cli_data_opts_t *o, const char *cmd, const char *const *model_targets,
                  int64_t n_model_targets, ag_task_kind_t forced_kind) {
    memset(d, 0, sizeof *d);
    if ((o->labels != NULL) + (o->tu != NULL) + (o->graph != NULL) > 1)
        return usage_error(cmd, "give one of --labels FILE.csv, --tu DIR (graph tasks) or a GRAPH (node tasks)");
    if (!o->labels && !o->tu && !o->graph)
        return usage_error(cmd, "no data: give --labels FILE.csv, --tu DIR or a GRAPH file");
    ag_error_t rc;
    if (o->labels || o->tu) {
        d->graph_level = 1;
        if (o->label_attr || o->node_table) return usage_error(cmd, "--label-attr and --node-table are for node tasks");
        /* one count for graphs of every size would give most of them vertices they do not have */
        if (o->vertices) return usage_error(cmd, "--vertices is for a node task's one GRAPH (an edge list)");
        if (o->tu && (o->file_column || o->format != AG_FORMAT_AUTO))
            return usage_error(cmd, "--file-column and --format are for --labels (--tu reads the TU text files)");
        ag_dataset_options_t dopt;
        ag_dataset_options_init(&dopt);
        dopt.directed = o->directed;
        dopt.format = o->format;
        if (o->file_column) dopt.targets.file_column = o->file_column;
        ag_task_kind_t kinds[CLI_MAX_LIST];
        if (o->targets) {
            d->target_buf = strdup(o->targets);
            if (!d->target_buf) return AG_EXIT_FAILURE;
            int n = cli_split_list(d->target_buf, d->target_names);
            if (n == 0) return usage_error(cmd, "--target lists no column");
            dopt.targets.targets = d->target_names;
            dopt.targets.n_targets = n;
        } else if (model_targets) {
            dopt.targets.targets = model_targets;
            dopt.targets.n_targets = n_model_targets;
        }
        if (forced_kind != AG_TASK_AUTO && dopt.targets.targets) {
            for (int64_t j = 0; j < dopt.targets.n_targets && j < CLI_MAX_LIST; j++) kinds[j] = forced_kind;
            dopt.targets.kinds = kinds;
        }
        if (o->tu) {
            /* the TU files' targets are graph attributes (label, graph_attr...) */
            dopt.graph_attrs = dopt.targets.targets;
            dopt.n_graph_attrs = dopt.targets.n_targets;
            rc = ag_dataset_load_tu(&d->ds, o->tu, &dopt);
        } else {
            rc = ag_dataset_load(&d->ds, o->labels, &dopt);
        }
        if (rc) return ag_cli_fail(rc);
        warn_reading(&d->ds);
        return load_split(d, o, cmd, d->ds.n_graphs);
    }
    if (o->targets) return usage_error(cmd, "--target is for graph tasks (--labels, --tu)");
    if (!o->label_attr) return usage_error(cmd, "a node task needs --label-attr ATTR");
    const ag_graph_read_options_t ro = {.format = o->format, .directed = o->directed, .vertices = o->vertices};
    int code = cli_read_graph(&d->graph, o->graph, &ro);
    if (code) return code;
    const ag_format_t read_as = d->read_as = ag_graph_read_format();
    d->have_graph = 1;
    if (o->node_table) {
        const int in_graph = igraph_cattribute_has_attr(&d->graph, IGRAPH_ATTRIBUTE_VERTEX, o->label_attr);
        /* a model that takes no table can use one only for labels the graph lacks: said before the
         * table is read, as label and explain say it, rather than after (a sparse table as wide as
         * a large index was refused by the read limit with advice on its numbering) */
        if (o->model_table && o->model_table->width == 0 && in_graph)
            return cli_check_table_width(cmd, o->node_table, 1, o->model_path, 0);
        rc = cli_table_read(&d->table, &d->graph, read_as, o->node_table, o->table_id_attr, o->label_attr,
                            o->model_table);
        /* the table's own errors start with its path; the graph's ids' name no file */
        if (rc) return ag_cli_fail_in(ag_table_read_refused_graph() ? o->graph : NULL, rc);
        d->have_table = 1;
        if (!in_graph && !d->table.labels) {
            /* the labels come from one of the two: the graph's message alone sent a user who keeps
             * them in the table to look in the graph */
            fprintf(stderr, "attn-graph: %s: no labels '%s': the graph has no vertex attribute '%s' and the node table "
                    "%s has no column '%s'\n", o->graph, o->label_attr, o->label_attr, o->node_table, o->label_attr);
            return AG_EXIT_INPUT;
        }
        int lr = !in_graph && d->table.labels ? cli_labels_to_attr(&d->graph, o->label_attr, d->table.labels,
                                                                  o->node_table) : 0;
        if (lr == -2) return AG_EXIT_INPUT;
        if (lr < 0) {
            fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
            return AG_EXIT_FAILURE;
        }
    }
    return load_split(d, o, cmd, (int64_t)igraph_vcount(&d->graph));
}

int cli_part(const cli_data_t *d, const char *part, int64_t n_all, const int64_t **idx, int64_t *n, int64_t **owned) {
    *owned = NULL;
    if (!strcmp(part, "train")) {
        *idx = d->fold.train;
        *n = d->fold.n_train;
    } else if (!strcmp(part, "val")) {
        *idx = d->fold.val;
        *n = d->fold.n_val;
    } else if (!strcmp(part, "test")) {
        *idx = d->fold.test;
        *n = d->fold.n_test;
    } else if (!strcmp(part, "all")) {
        *owned = malloc(sizeof(int64_t) * (size_t)(n_all > 0 ? n_all : 1));
        if (!*owned) return -1;
        for (int64_t i = 0; i < n_all; i++) (*owned)[i] = i;
        *idx = *owned;
        *n = n_all;
    } else {
        return -1;
    }
    return 0;
}

static void json_num(FILE *out, double x) {
    if (!isfinite(x)) fputs("null", out);
    else fprintf(out, "%.6g", x);
}

/* The metrics a task's score line can show, in order. */
static int task_metrics(ag_task_t task, const char *const **names) {
    static const char *const classes[] = {"accuracy", "macro_f1", "roc_auc", "loss"};
    static const char *const multitask[] = {"roc_auc", "loss"};
    static const char *const values[] = {"rmse", "mae", "loss"};
    if (task == AG_TASK_NODE_CLASSIFICATION || task == AG_TASK_GRAPH_CLASSIFICATION) return *names = classes, 4;
    if (task == AG_TASK_GRAPH_MULTITASK) return *names = multitask, 2;
    return *names = values, 3;
}

static double metric_of(const ag_scores_t *s, const char *name) {
    if (!strcmp(name, "accuracy")) return s->accuracy;
    if (!strcmp(name, "macro_f1")) return s->macro_f1;
    if (!strcmp(name, "roc_auc")) return s->roc_auc;
    if (!strcmp(name, "rmse")) return s->rmse;
    if (!strcmp(name, "mae")) return s->mae;
    return s->loss;
}

/* The text line shows a classification's ROC-AUC only when it has one (binary, both classes
 * present); every other metric always, a multi-task's mean ROC-AUC included (nan when no task
 * could be scored). */
static int shown_in_line(ag_task_t task, const char *name, const ag_scores_t *s) {
    return !(task == AG_TASK_NODE_CLASSIFICATION || task == AG_TASK_GRAPH_CLASSIFICATION) ||
           strcmp(name, "roc_auc") != 0 || isfinite(s->roc_auc);
}

/* The metrics of one task of a multi-task or regression model's line: the task's own figures
 * (its accuracy-like metrics do not exist). */
static int task_line_metrics(ag_task_t task, const char *const **names) {
    static const char *const multitask[] = {"roc_auc", "loss"};
    static const char *const values[] = {"rmse", "mae", "loss"};
    if (task == AG_TASK_GRAPH_MULTITASK) return *names = multitask, 2;
    return *names = values, 3;
}

/* fold < 0: a plain part's line; else the line of that fold of a cross-validation. tasks, when it
 * holds more than one task, adds each task's figures: a line each, or a "tasks" array; warnings
 * (may be NULL) a "warnings" array to the JSON. */
static void print_scores(FILE *out, const char *part, int64_t fold, ag_task_t task, const ag_scores_t *s,
                         const cli_task_scores_t *tasks, int json, const ag_cli_warnings_t *warnings) {
    const char *const *names, *const *tnames;
    int k = task_metrics(task, &names);
    int kt = task_line_metrics(task, &tnames);
    const int64_t T = tasks && tasks->n > 1 ? tasks->n : 0;
    char fig[CLI_FIGURE_MAX];
    if (json) {
        fprintf(out, "{\"part\": \"%s\", ", part);
        if (fold >= 0) fprintf(out, "\"fold\": %lld, ", (long long)fold);
        fprintf(out, "\"task\": \"%s\", \"n\": %lld", ag_task_name(task), (long long)s->n);
        /* every key of the task, null where undefined, so that a script finds the same keys
         * whatever the part held */
        for (int i = 0; i < k; i++) {
            fprintf(out, ", \"%s\": ", names[i]);
            json_num(out, metric_of(s, names[i]));
        }
        if (T > 0) fputs(", \"tasks\": [", out);
        for (int64_t j = 0; j < T; j++) {
            fputs(j ? ", {\"name\": " : "{\"name\": ", out);
            cli_json_string(out, tasks->names[j]);
            fprintf(out, ", \"n\": %lld", (long long)tasks->s[j].n);
            for (int i = 0; i < kt; i++) {
                fprintf(out, ", \"%s\": ", tnames[i]);
                json_num(out, metric_of(&tasks->s[j], tnames[i]));
            }
            fputs("}", out);
        }
        if (T > 0) fputc(']', out);
        cli_json_warnings(out, warnings);
        fputs("}\n", out);
    } else {
        if (fold >= 0) fprintf(out, "fold %lld %s:", (long long)fold, part);
        else fprintf(out, "%s:", part);
        for (int i = 0, shown = 0; i < k; i++)
            if (shown_in_line(task, names[i], s))
                fprintf(out, "%s %s %s", shown++ ? "," : "", names[i], cli_figure(fig, metric_of(s, names[i])));
        fprintf(out, " (n %lld)\n", (long long)s->n);
        /* a task with one class among its rows has no ROC-AUC: nan, as the mean leaves it out */
        for (int64_t j = 0; j < T; j++) {
            fprintf(out, "  %s:", tasks->names[j]);
            for (int i = 0; i < kt; i++)
                fprintf(out, "%s %s %s", i ? "," : "", tnames[i], cli_figure(fig, metric_of(&tasks->s[j], tnames[i])));
            fprintf(out, " (n %lld)\n", (long long)tasks->s[j].n);
        }
    }
    fflush(out);
}

const char *cli_figure(char *buf, double x) {
    const double a = fabs(x);
    snprintf(buf, CLI_FIGURE_MAX, a > 0.0 && a < 1e-3 ? "%.3g" : "%.4f", x);
    return buf;
}

void cli_print_scores(FILE *out, const char *part, ag_task_t task, const ag_scores_t *s, int json) {
    print_scores(out, part, -1, task, s, NULL, json, NULL);
}

void cli_print_task_scores(FILE *out, const char *part, ag_task_t task, const ag_scores_t *s,
                           const cli_task_scores_t *tasks, int json, const ag_cli_warnings_t *warnings) {
    print_scores(out, part, -1, task, s, tasks, json, warnings);
}

void cli_print_fold_scores(FILE *out, int64_t fold, ag_task_t task, const ag_scores_t *s,
                           const cli_task_scores_t *tasks, int json, const ag_cli_warnings_t *warnings) {
    print_scores(out, "test", fold, task, s, tasks, json, warnings);
}

int cli_task_scores_init(cli_task_scores_t *t, const char *const *names, int64_t n) {
    memset(t, 0, sizeof *t);
    if (n < 1) return 0;
    t->s = calloc((size_t)n, sizeof *t->s);
    t->names = calloc((size_t)n, sizeof *t->names);
    if (!t->s || !t->names) {
        cli_task_scores_destroy(t);
        return -1;
    }
    t->n = n;
    for (int64_t j = 0; j < n; j++)
        if (!(t->names[j] = strdup(names[j]))) {
            cli_task_scores_destroy(t);
            return -1;
        }
    return 0;
}

void cli_task_scores_destroy(cli_task_scores_t *t) {
    for (int64_t j = 0; t->names && j < t->n; j++) free(t->names[j]);
    free(t->names);
    free(t->s);
    memset(t, 0, sizeof *t);
}

void cli_print_cv_summary(FILE *out, ag_task_t task, const ag_scores_t *folds, int64_t n_folds, int json,
                          const ag_cli_warnings_t *warnings) {
    /* a metric some fold could not score (ROC-AUC of a fold with one class) has no mean: left out
     * of the text line, null in JSON (which keeps every key of the task) */
    const char *const *names;
    int k = task_metrics(task, &names);
    int64_t n = 0;
    for (int64_t f = 0; f < n_folds; f++) n += folds[f].n;
    if (json) fprintf(out, "{\"part\": \"cv\", \"task\": \"%s\", \"folds\": %lld, \"n\": %lld", ag_task_name(task),
                      (long long)n_folds, (long long)n);
    else fprintf(out, "cv:");
    int shown = 0;
    char fig[CLI_FIGURE_MAX], fig2[CLI_FIGURE_MAX];
    for (int i = 0; i < k; i++) {
        double sum = 0.0, sq = 0.0;
        int finite = 1;
        for (int64_t f = 0; f < n_folds; f++) {
            finite = finite && isfinite(metric_of(&folds[f], names[i]));
            sum += metric_of(&folds[f], names[i]);
        }
        if (!finite && json) fprintf(out, ", \"%s_mean\": null, \"%s_std\": null", names[i], names[i]);
        if (!finite) continue;
        double mean = sum / (double)n_folds;
        for (int64_t f = 0; f < n_folds; f++) {
            double dv = metric_of(&folds[f], names[i]) - mean;
            sq += dv * dv;
        }
        /* the sample standard deviation over the folds, as the experiment scripts report */
        double sd = n_folds > 1 ? sqrt(sq / (double)(n_folds - 1)) : 0.0;
        if (json) {
            fprintf(out, ", \"%s_mean\": ", names[i]);
            json_num(out, mean);
            fprintf(out, ", \"%s_std\": ", names[i]);
            json_num(out, sd);
        } else {
            fprintf(out, "%s %s %s +- %s", shown ? "," : "", names[i], cli_figure(fig, mean), cli_figure(fig2, sd));
        }
        shown++;
    }
    if (json) {
        cli_json_warnings(out, warnings);
        fputs("}\n", out);
    } else {
        fprintf(out, " (%lld folds, n %lld)\n", (long long)n_folds, (long long)n);
    }
    fflush(out);
}

void cli_smooth_init(cli_smooth_t *s) {
    memset(s, 0, sizeof *s);
    ag_smooth_config_init(&s->cfg);
}

int cli_smooth_option(const char *cmd, int argc, char **argv, int *i, cli_smooth_t *s, int allow_off) {
    const char *v;
    int r;
    if ((r = cli_opt(cmd, "--smooth", argc, argv, i, &v)) != 0) {
        if (r > 0 && !strcmp(v, "auto")) {
            if (allow_off) {
                fprintf(stderr, "attn-graph: %s: --smooth auto is train's (it chooses on the validation part while "
                        "training); give the weights here\n", cmd);
                return -1;
            }
            s->automatic = 1;
            return 1;
        }
        if (r < 0 || cli_float(cmd, "--smooth", v, 0.0, 0.9999, &s->cfg.smooth_alpha) < 0) return -1;
        s->given = 1;
        return 1;
    }
    if ((r = cli_opt(cmd, "--correct", argc, argv, i, &v)) != 0) {
        if (r < 0 || cli_float(cmd, "--correct", v, 0.0, 0.9999, &s->cfg.correct_alpha) < 0) return -1;
        s->correct_given = 1;
        return 1;
    }
    if (allow_off && !strcmp(argv[*i], "--no-smooth")) {
        s->off = 1;
        return 1;
    }
    return 0;
}

int cli_smooth_check(const char *cmd, const cli_smooth_t *s, ag_task_t task) {
    if (s->off && (s->given || s->correct_given)) {
        fprintf(stderr, "attn-graph: %s: --no-smooth leaves the model's probabilities as they are: give it or "
                "--smooth, not both\n", cmd);
        return AG_EXIT_USAGE;
    }
    if (s->automatic && s->correct_given) {
        fprintf(stderr, "attn-graph: %s: --smooth auto chooses --correct too: give one or the other\n", cmd);
        return AG_EXIT_USAGE;
    }
    if (s->correct_given && !s->given) {
        fprintf(stderr, "attn-graph: %s: --correct is the first step of --smooth: give --smooth ALPHA too\n", cmd);
        return AG_EXIT_USAGE;
    }
    if ((s->given || s->automatic) && task != AG_TASK_NODE_CLASSIFICATION) {
        fprintf(stderr, "attn-graph: %s: --smooth is for node classification (the classes of one graph's vertices), "
                "not %s\n", cmd, ag_task_name(task));
        return AG_EXIT_USAGE;
    }
    return AG_EXIT_OK;
}

int cli_smooth_wanted(cli_smooth_t *s, const ag_bundle_t *b) {
    if (s->given) return 1;
    if (s->off || !b->has_smooth) return 0;
    s->cfg = b->smooth;
    s->from_model = 1;
    return 1;
}

void cli_smooth_note(const cli_smooth_t *s, const char *model_path) {
    if (s->from_model)
        fprintf(stderr, "attn-graph: note: %s's own Correct and Smooth applied (correct %g, smooth %g); --no-smooth "
                "for the model alone\n", model_path, s->cfg.correct_alpha, s->cfg.smooth_alpha);
}

/* What smoothing starts from: the models' probabilities of every row and the known classes (those
 * of the rows known_idx, -1 elsewhere), with a buffer for the result. */
typedef struct smooth_inputs_t {
    float *probs;    /* (N x C) */
    float *smoothed; /* (N x C) */
    int32_t *known;  /* (N) class or -1 */
} smooth_inputs_t;

static void smooth_inputs_free(smooth_inputs_t *in) {
    free(in->probs);
    free(in->smoothed);
    free(in->known);
}

static ag_error_t smooth_inputs(smooth_inputs_t *in, ag_model_t *const *members, int64_t K, const ag_trainset_t *set,
                                const int64_t *known_idx, int64_t n_known) {
    const ag_example_t *ex = &set->examples[0];
    const int64_t N = set->n_rows, C = set->n_classes;
    in->probs = malloc(sizeof(float) * (size_t)(N > 0 ? N : 1) * (size_t)C);
    in->smoothed = malloc(sizeof(float) * (size_t)(N > 0 ? N : 1) * (size_t)C);
    in->known = malloc(sizeof(int32_t) * (size_t)(N > 0 ? N : 1));
    if (!in->probs || !in->smoothed || !in->known) return AG_ENOMEM; /* no library message: said by the caller */
    for (int64_t i = 0; i < N; i++) in->known[i] = -1;
    for (int64_t i = 0; i < n_known; i++) {
        float y = set->targets[known_idx[i]];
        if (!isnan(y)) in->known[known_idx[i]] = (int32_t)y;
    }
    ag_batch_t batch;
    ag_batch_init(&batch, &ex->graph, ex->X.data, ag_model_config(members[0])->edge_dim > 0 ? ex->E.data : NULL);
    /* the batch dies here: its passes need keep no attention caches; each member's own setting
     * is put back after (label may already have turned them off, train keeps them) */
    int *keep = malloc(sizeof(int) * (size_t)(K > 0 ? K : 1)); /* K */
    if (!keep) {
        ag_batch_destroy(&batch);
        return AG_ENOMEM;
    }
    for (int64_t m = 0; m < K; m++) keep[m] = ag_model_keep_attention(members[m], 0);
    ag_error_t rc = ag_ensemble_predict_batch(members, K, &batch, in->probs);
    for (int64_t m = 0; m < K; m++) ag_model_keep_attention(members[m], keep[m]);
    free(keep);
    ag_batch_destroy(&batch);
    return rc;
}

static ag_error_t smooth_score(const smooth_inputs_t *in, const ag_trainset_t *set, const int64_t *idx, int64_t n,
                               const ag_smooth_config_t *cfg, ag_scores_t *sc) {
    ag_error_t rc = ag_label_smooth_csr(&set->examples[0].graph, in->probs, set->n_classes, in->known, cfg,
                                        in->smoothed);
    return rc == AG_SUCCESS ? ag_scores_from_probs(in->smoothed, set, idx, n, sc) : rc;
}

static int smooth_fail(ag_error_t rc) {
    if (rc == AG_SUCCESS) return AG_EXIT_OK;
    if (rc != AG_ENOMEM) return ag_cli_fail(rc);
    fprintf(stderr, "attn-graph: out of memory\n");
    return AG_EXIT_FAILURE;
}

int cli_smoothed_scores(ag_model_t *const *members, int64_t K, const ag_trainset_t *set, const int64_t *known_idx,
                        int64_t n_known, const int64_t *idx, int64_t n, const ag_smooth_config_t *cfg,
                        ag_scores_t *sc) {
    smooth_inputs_t in = {0};
    ag_error_t rc = smooth_inputs(&in, members, K, set, known_idx, n_known);
    if (rc == AG_SUCCESS) rc = smooth_score(&in, set, idx, n, cfg, sc);
    smooth_inputs_free(&in);
    return smooth_fail(rc);
}

int cli_smooth_choose(const char *cmd, ag_model_t *const *members, int64_t K, const ag_trainset_t *set,
                      const int64_t *known_idx, int64_t n_known, const int64_t *val, int64_t n_val,
                      const char *metric, int quiet, cli_smooth_t *s) {
    /* the grid of docs/results.md's LastFM Asia screening; PyG's examples sit inside it */
    static const double corrects[] = {0.0, 0.5, 0.8, 0.95}, smooths[] = {0.5, 0.7, 0.8, 0.9};
    smooth_inputs_t in = {0};
    ag_scores_t sc;
    ag_error_t rc = smooth_inputs(&in, members, K, set, known_idx, n_known);
    if (rc == AG_SUCCESS) rc = ag_scores_from_probs(in.probs, set, val, n_val, &sc);
    const double alone = metric_of(&sc, metric);
    double best = alone;
    ag_smooth_config_t cfg = s->cfg;
    s->given = 0;
    /* a fixed order and a strict gain: the model alone unless a pair beats it, the first of equals */
    for (size_t c = 0; c < sizeof corrects / sizeof *corrects && rc == AG_SUCCESS; c++)
        for (size_t a = 0; a < sizeof smooths / sizeof *smooths && rc == AG_SUCCESS; a++) {
            cfg.correct_alpha = corrects[c];
            cfg.smooth_alpha = smooths[a];
            rc = smooth_score(&in, set, val, n_val, &cfg, &sc);
            if (rc == AG_SUCCESS && metric_of(&sc, metric) > best) {
                best = metric_of(&sc, metric);
                s->cfg = cfg;
                s->given = 1;
            }
        }
    smooth_inputs_free(&in);
    if (rc) return smooth_fail(rc);
    if (!quiet && s->given)
        fprintf(stderr, "attn-graph: %s: --smooth auto: val %s %.4f with correct %g, smooth %g (the model alone "
                "%.4f): taken\n", cmd, metric, best, s->cfg.correct_alpha, s->cfg.smooth_alpha, alone);
    else if (!quiet)
        fprintf(stderr, "attn-graph: %s: --smooth auto: no weights beat the model alone on validation (val %s "
                "%.4f): not smoothed\n", cmd, metric, alone);
    return AG_EXIT_OK;
}
