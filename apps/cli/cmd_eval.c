/*
 * cmd_eval.c: `attn-graph eval`, every metric of a saved model's task on a part of a split.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "learn.h"
#include "predict.h"
#include "train_support.h"

static const char *const CMD = "eval";

static void eval_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph eval --model MODEL.safetensors [--model M2 ...] --labels FILE.csv [split] [--part P] [--json]\n"
        "       attn-graph eval --model MODEL.safetensors [--model M2 ...] --tu DIR [split] [--part P] [--json]\n"
        "       attn-graph eval --model MODEL.safetensors GRAPH [--label-attr ATTR] [--node-table FILE] [split]\n"
        "\n"
        "Scores a model saved by 'attn-graph train' on a part of a split and prints every metric of its\n"
        "task (classification: accuracy, macro_f1, roc_auc for two classes, loss; multi-task: roc_auc,\n"
        "loss; regression: rmse, mae, loss) as one line on stdout. Graphs are featurised with the\n"
        "model's own featuriser (vocabularies and normalisation from training).\n"
        "\n"
        "  --model FILE           the model (required); given several times, the ensemble of the models\n"
        "                         (the mean of their outputs; they must come from the same command with\n"
        "                         other seeds: same data, features and architecture)\n"
        "  --part P               test (default), val, train or all\n"
        "  --smooth ALPHA         node classification: scores after Correct and Smooth, the training part's\n"
        "  [--correct ALPHA]      classes known (as train --smooth; choose the weights on --part val);\n"
        "                         a model trained with --smooth and -o applies its own weights unless\n"
        "  --no-smooth            is given (the model alone)\n"
        "  --json                 one JSON object instead of the text line (the run's warnings in\n"
        "                         a \"warnings\" array when there were any)\n"
        "  --threads N            OpenMP / BLAS threads\n"
        "  --max-memory SIZE      refuse a run estimated to need more (e.g. 4G; default: the available memory)\n"
        "Data and split options as for 'attn-graph train' (give the same ones to score the same part):\n"
        "  --labels FILE.csv or --tu DIR, --target COL[,COL] (default: the model's target columns), --file-column NAME,\n"
        "  GRAPH, --label-attr ATTR (default: the model's), --node-table FILE, --table-id-attr ATTR,\n"
        "  --directed, --vertices N, --format F, --split FILE, --split-column COL, --folds FILE --fold K, --kfold K --fold I, --split-random A,B[,C],\n"
        "  --stratify, --seed S, --train-nodes I,J,... (a model of a random split draws train's parts by default)\n"
        "  --task T               a check: exit 2 unless the model is for task T (the model sets the task)\n"
        "  --help                 this message\n"
        "\n"
        "Exit codes: 0 success, 1 unexpected failure, 2 bad command line, 3 bad input file,\n"
        "4 bad or mismatched model file.\n");
}

/* Warns, per string attribute the model reads, of the scored graphs where some vertices (edges)
 * lack it (an empty value: none of its columns is set), as classify warns of one graph, naming the
 * first such graph: a score over molecules with blank atoms was given without a word. */
static void warn_missing_graphs(const ag_bundle_t *b, const igraph_t *graphs, const int64_t *scored, int64_t n_scored,
                                const char *const *files) {
    const ag_featurizer_t *f = &b->featurizer;
    for (int is_edge = 0; is_edge < 2; is_edge++) {
        const int64_t n_attrs = is_edge ? f->n_eattrs : f->n_vattrs;
        for (int64_t i = 0; i < n_attrs; i++) {
            int64_t n_graphs = 0, first = -1, first_count = 0;
            for (int64_t k = 0; k < n_scored; k++) {
                int64_t count = 0;
                if (ag_featurizer_missing(f, &graphs[scored[k]], is_edge, i, &count) != AG_SUCCESS || count == 0)
                    continue;
                if (n_graphs++ == 0) {
                    first = scored[k];
                    first_count = count;
                }
            }
            if (n_graphs == 0) continue;
            const int64_t total = is_edge ? igraph_ecount(&graphs[first]) : igraph_vcount(&graphs[first]);
            const char *el = is_edge ? "edge" : "vertex", *els = is_edge ? "edges" : "vertices";
            ag_cli_warning_t w;
            FILE *out = ag_cli_warning_begin(&w);
            if (n_scored == 1)
                fprintf(out, "eval: the one graph scored has %s with no value of %s attribute ", els, el);
            else
                fprintf(out, "eval: %lld of the %lld graphs scored %s %s with no value of %s attribute ",
                        (long long)n_graphs, (long long)n_scored, n_graphs == 1 ? "has" : "have", els, el);
            cli_print_value(out, is_edge ? f->eattrs[i].name : f->vattrs[i].name, '\'');
            fprintf(out, " (empty; e.g. %lld of the %lld %s of ", (long long)first_count, (long long)total,
                    total == 1 ? el : els);
            cli_print_value(out, files ? files[first] : "?", 0);
            fputs("): none of its columns is set for them", out);
            ag_cli_warning_end(&w);
        }
    }
}

/* The command; warned collects every warning it says, for --json's object. */
static int eval_run(int argc, char **argv, const ag_cli_warnings_t *warned) {
    cli_data_opts_t o;
    cli_data_opts_init(&o);
    const char *model_path = NULL, *part = "test", *max_memory = NULL;
    const char *more[64]; /* further --model files: joined to the first as an ensemble */
    int n_more = 0;
    int json = 0;
    cli_smooth_t smooth; /* node classification after Correct and Smooth */
    cli_smooth_init(&smooth);
    int64_t threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            eval_usage(stdout);
            return AG_EXIT_OK;
        }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (o.graph) {
                fprintf(stderr, "attn-graph: eval: more than one GRAPH argument ('%s', '%s')\n", o.graph, a);
                return AG_EXIT_USAGE;
            }
            o.graph = a;
            continue;
        }
        int r = cli_data_option(&o, CMD, argc, argv, &i, 0);
        if (r == 0) r = cli_smooth_option(CMD, argc, argv, &i, &smooth, 1);
        if (r == 0 && (r = cli_opt(CMD, "--model", argc, argv, &i, &v)) > 0) {
            if (!model_path) {
                model_path = v;
            } else if (n_more < (int)(sizeof more / sizeof *more)) {
                more[n_more++] = v;
            } else {
                fprintf(stderr, "attn-graph: eval: more than %d --model files\n", (int)(sizeof more / sizeof *more) + 1);
                return AG_EXIT_USAGE;
            }
        }
        else if (r == 0 && (r = cli_opt(CMD, "--part", argc, argv, &i, &v)) > 0) part = v;
        else if (r == 0 && (r = cli_opt(CMD, "--max-memory", argc, argv, &i, &v)) > 0 &&
                 cli_set_read_limit(CMD, max_memory = v) < 0)
            r = -1;
        else if (r == 0 && (r = cli_opt(CMD, "--threads", argc, argv, &i, &v)) > 0) {
            if (cli_int(CMD, "--threads", v, 1, AG_THREADS_MAX, &threads) < 0) return AG_EXIT_USAGE;
        } else if (r == 0 && !strcmp(a, "--json")) {
            json = r = 1;
        }
        if (r < 0) return AG_EXIT_USAGE;
        if (r == 0) {
            fprintf(stderr, "attn-graph: eval: unknown option '%s' (see 'attn-graph eval --help')\n", a);
            return AG_EXIT_USAGE;
        }
    }
    if (!model_path) {
        fprintf(stderr, "attn-graph: eval: no model: give --model FILE (see 'attn-graph eval --help')\n");
        return AG_EXIT_USAGE;
    }
    if (strcmp(part, "test") && strcmp(part, "val") && strcmp(part, "train") && strcmp(part, "all")) {
        fprintf(stderr, "attn-graph: eval: --part takes test, val, train or all, not '%s'\n", part);
        return AG_EXIT_USAGE;
    }
    /* one file twice is one model counted twice, not an ensemble of two */
    for (int k = 0; model_path && k < n_more; k++)
        for (int j = -1; j < k; j++) {
            const char *earlier = j < 0 ? model_path : more[j];
            struct stat a, c; /* the file itself: any path, link or hard link to it */
            if (stat(earlier, &a) == 0 && stat(more[k], &c) == 0 && a.st_dev == c.st_dev && a.st_ino == c.st_ino) {
                fprintf(stderr, "attn-graph: eval: --model '%s' is the file '%s' given before: an ensemble joins "
                        "other models (train --ensemble K makes one file of K)\n", more[k], earlier);
                return AG_EXIT_USAGE;
            }
        }
    if (threads > 0) ag_threads_set((int)threads);
    ag_bundle_t b;
    ag_error_t rc;
    int code = cli_load_model(model_path, &b); /* the exit codes classify, label and explain give */
    if (code != AG_EXIT_OK) return code;
    const uint64_t first_seed = ag_model_config(b.model)->seed;
    const char *other_seed_model = NULL; /* a model trained with another seed than the first */
    uint64_t other_seed = first_seed;
    for (int k = 0; k < n_more; k++) {
        ag_bundle_t other;
        if ((code = cli_load_model(more[k], &other)) != AG_EXIT_OK) {
            ag_bundle_destroy(&b);
            return code;
        }
        if (!other_seed_model && ag_model_config(other.model)->seed != first_seed) {
            other_seed_model = more[k];
            other_seed = ag_model_config(other.model)->seed;
        }
        const uint64_t seed_k = ag_model_config(other.model)->seed;
        const int split_k = other.has_split_random;
        if ((rc = ag_bundle_merge(&b, &other)) != AG_SUCCESS) {
            fprintf(stderr, "attn-graph: eval: %s cannot join %s in an ensemble: %s\n", more[k], model_path,
                    ag_error_message());
            /* the usual cause: models of a random split with their own seeds, each fitted on its
             * own training part (standardised columns, vocabularies) */
            const int other_graphs = b.has_graph && other.has_graph && !ag_graph_print_equal(&b.graph, &other.graph);
            /* node tasks fit their features on the whole graph, whatever the seed */
            if (rc == AG_EMISMATCH && seed_k != first_seed && !other_graphs &&
                ag_task_is_graph_level(ag_model_config(b.model)->task))
                fprintf(stderr, "attn-graph: note: the two were trained with --seed %llu and %llu%s: on a random split "
                        "(--split-random, or the default without --split) each seed draws its own training part, on "
                        "which the features are fitted; train both on one --split file, or the ensemble at once with "
                        "train --ensemble K\n", (unsigned long long)first_seed, (unsigned long long)seed_k,
                        split_k || b.has_split_random ? " on a --split-random split" : "");
            ag_bundle_destroy(&other);
            ag_bundle_destroy(&b);
            return AG_EXIT_MODEL;
        }
    }
    const ag_model_config_t *mc = ag_model_config(b.model);
    if (strcmp(part, "all") != 0 && !o.split && !o.folds && !o.kfold && !o.train_nodes && !o.split_random &&
        b.split_source >= AG_SPLIT_SOURCE_FILE) {
        /* the default random split's test part would hold what the model trained on, and its
         * figure would look better than the model is */
        ag_cli_warning("eval: %s was trained on the parts of %s (%s); without that option eval draws a random "
                       "split, whose %s part overlaps the model's training part, so its figure overstates the "
                       "model: give train's option for its test figure", model_path,
                       cli_split_source_text(b.split_source, 0), cli_split_source_text(b.split_source, 1), part);
    }
    char fractions[64]; /* the model's --split-random, as the option's text */
    if (cli_split_seeded(&o)) {
        /* The parts train drew with its --seed and --split-random, which the model keeps (files
         * written before 2026-12-06 keep only the seed): without --seed and --split-random, the same
         * ones. */
        const int seed_from_model = !o.seed_given && first_seed != o.seed;
        const int user_fractions = o.split_random != NULL;
        const int frac_from_model = !o.kfold && !user_fractions && b.has_split_random &&
                                    !(b.split_random[0] == 0.8 && b.split_random[1] == 0.1);
        if (frac_from_model) {
            snprintf(fractions, sizeof fractions, "%.17g,%.17g", b.split_random[0], b.split_random[1]);
            o.split_random = fractions;
        }
        /* drawn class by class (--stratify), the parts differ from a plain draw's for any seed */
        const int strat_from_model = !o.kfold && !user_fractions && b.has_split_random && b.split_stratified &&
                                     !o.stratify;
        if (strat_from_model) o.stratify = 1;
        if (!o.kfold && b.has_split_random && !o.stratify != !b.split_stratified && strcmp(part, "all") != 0)
            ag_cli_warning("eval: %s was trained on a random split drawn %s: drawn %s here, the %s part overlaps the "
                           "model's training part, so its figure overstates the model: %s --stratify",
                           model_path, b.split_stratified ? "class by class (--stratify)" : "without --stratify",
                           o.stratify ? "class by class" : "without it", part, o.stratify ? "leave out" : "give");
        if (seed_from_model) o.seed = first_seed;
        if (!strcmp(part, "all")) {
            /* every item is scored: which parts the split makes does not matter */
        } else if (o.kfold) {
            if (seed_from_model)
                fprintf(stderr, "attn-graph: note: eval: the folds are drawn with the model's seed %llu, as train "
                                "drew them (--seed S for another)\n", (unsigned long long)first_seed);
        } else if (user_fractions) {
            if (seed_from_model)
                fprintf(stderr, "attn-graph: note: eval: the random split is drawn with the model's seed %llu, as "
                                "train drew it, and the fractions given (--seed S for another)\n",
                        (unsigned long long)first_seed);
        } else if (b.has_split_random) {
            if (seed_from_model || frac_from_model || strat_from_model)
                fprintf(stderr, "attn-graph: note: eval: the random split is drawn with the model's seed %llu and "
                                "fractions %g,%g%s, as train drew it (--seed S and --split-random A,B for others)\n",
                        (unsigned long long)o.seed, b.split_random[0], b.split_random[1],
                        b.split_stratified ? ", class by class (--stratify)" : "");
        } else if (seed_from_model) { /* a model file written before it kept the fractions */
            fprintf(stderr, "attn-graph: note: eval: the random split is drawn with the model's seed %llu and the "
                            "fractions 0.8,0.1 (the default): train's parts if it had these fractions, which this "
                            "model file does not keep (--split-random A,B as train had them; --seed S for another "
                            "seed)\n", (unsigned long long)first_seed);
        }
        if (other_seed_model)
            ag_cli_warning("eval: %s was trained with seed %llu and %s with %llu: under a random split "
                           "(--split-random, --kfold) each seed drew other parts, so the part scored here overlaps a "
                           "model's training part; assemble an ensemble of separate runs on a split file (--split), "
                           "or train it with --ensemble K", model_path, (unsigned long long)first_seed,
                           other_seed_model, (unsigned long long)other_seed);
    }
    ag_task_t task = mc->task;
    int graph_level = ag_task_is_graph_level(task);
    code = AG_EXIT_OK;
    cli_data_t d;
    memset(&d, 0, sizeof d);
    ag_prepared_t p;
    memset(&p, 0, sizeof p);
    int64_t *owned = NULL, *owned_train = NULL, *scored = NULL; /* scored: (n) the part's graphs with a target */
    cli_task_scores_t ts; /* each task's figures, for a model of several tasks */
    memset(&ts, 0, sizeof ts);
    if (o.task) {
        ag_task_t t2;
        if (ag_task_from_name(o.task, &t2) || t2 != task) {
            fprintf(stderr, "attn-graph: eval: the model is for %s, not '%s'\n", ag_task_name(task), o.task);
            code = AG_EXIT_USAGE;
            goto done;
        }
    }
    if (graph_level && o.graph) {
        fprintf(stderr, "attn-graph: eval: %s is a %s model: give --labels FILE.csv, not a GRAPH\n", model_path,
                ag_task_name(task));
        code = AG_EXIT_USAGE;
        goto done;
    }
    if (!graph_level && (o.labels || o.tu)) {
        fprintf(stderr, "attn-graph: eval: %s is a %s model: give a GRAPH, not --labels or --tu\n", model_path,
                ag_task_name(task));
        code = AG_EXIT_USAGE;
        goto done;
    }
    if ((code = cli_smooth_check(CMD, &smooth, task)) != AG_EXIT_OK) goto done;
    if (!graph_level && !o.label_attr) o.label_attr = b.label_attr;
    if (b.table.width > 0 && !o.node_table) {
        fprintf(stderr, "attn-graph: eval: %s takes a node table of %lld columns: give --node-table FILE\n", model_path,
                (long long)b.table.width);
        code = AG_EXIT_USAGE;
        goto done;
    }
    const char *tcol = b.target_column;
    const char *const *targets =
            task == AG_TASK_GRAPH_CLASSIFICATION ? (tcol ? &tcol : NULL) : (const char *const *)b.names;
    int64_t n_targets = task == AG_TASK_GRAPH_CLASSIFICATION ? (tcol ? 1 : 0) : b.n_names;
    o.model_table = &b.table;
    o.model_path = model_path;
    code = cli_data_load(&d, &o, CMD, targets, n_targets, AG_TASK_AUTO);
    if (code == AG_EXIT_OK && d.have_table)
        code = cli_align_table(CMD, o.node_table, model_path, &b.table, &d.table);
    if (code != AG_EXIT_OK) goto done;
    if (graph_level && o.targets && task != AG_TASK_GRAPH_CLASSIFICATION && d.ds.targets.n_tasks == b.n_names) {
        /* --target names the data's columns for the model's targets, in order: they take the
         * model's names, which the featurised set is checked against */
        if ((rc = ag_targets_rename(&d.ds.targets, (const char *const *)b.names, b.n_names)) != AG_SUCCESS) {
            code = ag_cli_fail(rc);
            goto done;
        }
    }
    if (graph_level)
        rc = ag_prepared_from_graphs_with(&p, &d.ds, task, &b.featurizer, (const char *const *)b.names, b.n_names);
    else if (task == AG_TASK_NODE_REGRESSION)
        rc = ag_prepared_from_node_values_with(&p, &d.graph, o.label_attr, &b.featurizer, &b.table,
                                               d.have_table ? &d.table.features : NULL);
    else
        rc = ag_prepared_from_nodes_with(&p, &d.graph, o.label_attr, &b.featurizer, &b.table,
                                         d.have_table ? &d.table.features : NULL,
                                         task == AG_TASK_NODE_CLASSIFICATION ? (const char *const *)b.names : NULL,
                                         task == AG_TASK_NODE_CLASSIFICATION ? b.n_names : 0);
    if (rc) {
        code = ag_cli_fail_in(graph_level ? NULL : o.graph, rc);
        goto done;
    }
    if (!graph_level) cli_warn_shifted(&b, &p.set.examples[0].X, &p.set.examples[0].E, o.graph, o.node_table);
    const int64_t *idx;
    int64_t n;
    if (cli_part(&d, part, p.set.n_rows, &idx, &n, &owned) < 0) {
        code = AG_EXIT_FAILURE;
        goto done;
    }
    /* values the model never saw, as classify and label say them, once for the part scored */
    if (!graph_level) {
        cli_warn_unseen(&b, &d.graph, o.graph);
        cli_warn_other_graph(&b, &d.graph, cli_shown_path(o.graph));
    } else if ((scored = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1))) != NULL) {
        /* the graphs with a target: those the score line counts */
        int64_t n_scored = 0;
        const int64_t T = p.set.n_cols;
        for (int64_t i = 0; i < n; i++) {
            int any = 0;
            for (int64_t j = 0; j < T && !any; j++) any = !isnan(p.set.targets[idx[i] * T + j]);
            if (any) scored[n_scored++] = idx[i];
        }
        int64_t n_unseen = 0, first = -1;
        ag_unseen_t u, u0;
        for (int64_t i = 0; i < n_scored; i++)
            if (ag_featurizer_unseen(&b.featurizer, &d.ds.graphs[scored[i]], &u) == AG_SUCCESS && u.attr) {
                if (n_unseen++ == 0) {
                    first = scored[i];
                    u0 = u;
                }
            }
        if (n_unseen > 0) {
            ag_cli_warning_t w;
            FILE *out = ag_cli_warning_begin(&w);
            if (n_scored == 1)
                fputs("eval: the one graph scored has values the model never saw (e.g. ", out);
            else
                fprintf(out, "eval: %lld of the %lld graphs scored %s values the model never saw (e.g. ",
                        (long long)n_unseen, (long long)n_scored, n_unseen == 1 ? "has" : "have");
            cli_print_value(out, u0.example, '\'');
            fprintf(out, " of %s attribute '%s' in ", u0.is_edge ? "edge" : "vertex", u0.attr);
            cli_print_value(out, d.ds.files ? d.ds.files[first] : "?", 0);
            fputs("): they get its 'other' column ('attn-graph info MODEL' lists the values it knows)", out);
            ag_cli_warning_end(&w);
        }
        warn_missing_graphs(&b, d.ds.graphs, scored, n_scored, (const char *const *)d.ds.files);
        cli_warn_shifted_graphs(&b, p.set.examples, scored, n_scored, (const char *const *)d.ds.files, CMD);
        cli_warn_graph_sizes(&b, d.ds.graphs, scored, n_scored, (const char *const *)d.ds.files, CMD);
    }
    code = cli_check_memory(CMD, max_memory, ag_model_config(b.model), &p.set, 256, 0, b.n_members);
    if (code != AG_EXIT_OK) goto done;
    ag_scores_t sc;
    const int64_t n_tasks = ag_model_n_tasks(b.model);
    if (n_tasks > 1 && cli_task_scores_init(&ts, (const char *const *)b.names, n_tasks) < 0) {
        fprintf(stderr, "attn-graph: eval: out of memory\n");
        code = AG_EXIT_FAILURE;
        goto done;
    }
    rc = ag_bundle_evaluate_tasks(&b, &p.set, idx, n, &sc, n_tasks > 1 ? ts.s : NULL);
    if (rc) {
        code = ag_cli_fail(rc);
        goto done;
    }
    if (sc.n == 0) {
        /* every metric would be NaN: the part is empty, or none of it is labelled */
        if (n == 0)
            fprintf(stderr, "attn-graph: eval: the split's %s part has nothing to score (it is empty)\n", part);
        else
            fprintf(stderr, "attn-graph: eval: the split's %s part has nothing to score (%lld %s, none labelled)\n",
                    part, (long long)n, graph_level ? (n == 1 ? "graph" : "graphs") : (n == 1 ? "vertex" : "vertices"));
        code = AG_EXIT_INPUT;
        goto done;
    }
    if (cli_smooth_wanted(&smooth, &b)) {
        /* the training part's classes are the known ones, as train --smooth has them */
        cli_smooth_note(&smooth, model_path);
        const int64_t *known;
        int64_t n_known;
        if (cli_part(&d, "train", p.set.n_rows, &known, &n_known, &owned_train) < 0) {
            code = AG_EXIT_FAILURE;
            goto done;
        }
        code = cli_smoothed_scores(b.members, b.n_members, &p.set, known, n_known, idx, n, &smooth.cfg, &sc);
        if (code != AG_EXIT_OK) goto done;
    }
    cli_print_task_scores(stdout, part, task, &sc, &ts, json, warned);
done:
    cli_task_scores_destroy(&ts);
    free(owned);
    free(scored);
    free(owned_train);
    ag_prepared_destroy(&p);
    cli_data_destroy(&d);
    ag_bundle_destroy(&b);
    return code;
}

int ag_cmd_eval(int argc, char **argv) {
    ag_cli_warnings_t warned;
    ag_cli_warnings_t *was = ag_cli_warnings_start(&warned);
    const int code = eval_run(argc, argv, &warned);
    ag_cli_warnings_collect(was);
    ag_cli_warnings_clear(&warned);
    return code;
}
