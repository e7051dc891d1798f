/*
 * cmd_train.c: `attn-graph train`, train a model on a dataset of graphs or on one graph's nodes.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <glob.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>
#include <unistd.h>
#include "attngraph/options.h"
#include "learn.h"
#include "predict.h"
#include "train_support.h"

static const char *const CMD = "train";

static void train_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph train --labels FILE.csv [--target COL[,COL...]] [split] [options] [-o MODEL.safetensors]\n"
        "       attn-graph train --tu DIR [split] [options] [-o MODEL.safetensors]\n"
        "       attn-graph train GRAPH --label-attr ATTR [--node-table FILE] [split] [options]\n"
        "                        [-o MODEL.safetensors]\n"
        "\n"
        "Trains a graph attention model and prints the test metrics of the split on stdout.\n"
        "\n"
        "Data (graph tasks):\n"
        "  --labels FILE.csv      labels table: a 'file' column of graph files (relative to the table) and targets\n"
        "  --target COL[,COL]     target columns (default: every numeric column; with none, the one other column)\n"
        "  --file-column NAME     the column naming the graph files (default 'file')\n"
        "  --tu DIR               instead of --labels: a dataset in the TU format (DIR/NAME_A.txt,\n"
        "                         NAME_graph_indicator.txt, NAME_graph_labels.txt, ...; DIR or DIR/NAME);\n"
        "                         graph g is named g (1-based) in split files; --target label by default\n"
        "  --task T               graph-classification, graph-multitask or graph-regression (default: inferred:\n"
        "                         several 0/1 columns -> multitask; one column of classes -> classification;\n"
        "                         else regression); with a GRAPH node-classification or node-regression\n"
        "                         (default: regression when --label-attr is numeric with a non-integer value\n"
        "                         or more than 100 distinct values, else classification)\n"
        "Data (node tasks):\n"
        "  GRAPH                  one graph file (any format igraph reads)\n"
        "  --label-attr ATTR      vertex attribute holding the class, or the numeric target of node-regression\n"
        "                         (missing/NaN/empty = unlabelled); or a --node-table column of that name when\n"
        "                         the graph has no such attribute (an edge list with a CSV of features and labels)\n"
        "  --node-table FILE      node features: CSV/TSV with a header, 'id f1 ... [class]' (.content), or sparse\n"
        "                         'id idx:value ...'; rows matched to the vertex attribute --table-id-attr\n"
        "  --table-id-attr ATTR   vertex attribute the table's ids match (default 'id'; else 'name', else the\n"
        "                         0-based vertex index, as an edge list numbers its vertices)\n"
        "  --directed             read edge lists and similar formats as directed\n"
        "  --vertices N           an edge list's vertex count (default: its largest id + 1): the vertices after\n"
        "                         the largest id, which no edge names, exist too (a node table's last rows)\n"
        "  --format F             the format of GRAPH or of every listed file: gml, graphml, edgelist, ncol,\n"
        "                         lgl, pajek, dimacs, dl or auto (default: by extension)\n"
        "Split (one of; default --split-random 0.8,0.1,0.1):\n"
        "  --split FILE           split.json (train/val/test index lists) or a CSV with a 'file' column\n"
        "  --split-column COL     the CSV column (default random_split; e.g. scaffold_split)\n"
        "  --folds FILE --fold K  k-fold file (CSV column 'fold', or JSON with 'folds'): test = fold K, train = rest\n"
        "  --kfold K --fold I     graph tasks: K folds made here (seeded by --seed, stratified by class for one\n"
        "                         class target): test = fold I, train = the other folds\n"
        "                         (either without --fold: cross-validation, every fold in turn, a test line per\n"
        "                         fold, then each metric's mean +- sample std over the folds; no -o)\n"
        "  --split-random A,B[,C] seeded random fractions train,val[,test] of the labelled vertices or graphs\n"
        "                         (the unlabelled ones are in no part; node tasks still attend to them)\n"
        "  --stratify             draw that random split class by class: each part holds every class in\n"
        "                         proportion, to within one item (classification; eval draws the same)\n"
        "  --train-nodes I,J,...  node tasks: train on these vertices, test on all others\n"
        "Features:\n"
        "  --vertex-attrs P[,P]   vertex attributes (names or fnmatch patterns), 'all' (default) or 'none'\n"
        "  --edge-attrs P[,P]     edge attributes, 'all' (default) or 'none'\n"
        "  --exclude-attrs P[,P]  never use these (added to 'id' and to what label and explain write: pred,\n"
        "                         prob*, attnL* ...; the label attribute and attributes that mirror it\n"
        "                         are always excluded)\n"
        "  --normalize N          auto (node tasks' default: standard for the columns with values beyond\n"
        "                         [-1, 1], such as an age; the others as they are), none, standard (per\n"
        "                         column; graph preset's default) or l1 (per row); also for the node table\n"
        "  --degree               add degree column(s) (graphs with no usable attribute get them anyway,\n"
        "                         standardised, unless --vertex-attrs or a node table of features is given)\n"
        "  --lap-pe K             add K Laplacian-eigenvector columns (node tasks whose graph gets the degree\n"
        "                         anyway: 16 unless --degree, --lap-pe or --rw-pe is given; 0: none)\n"
        "  --rw-pe K              add K random-walk return-probability columns (graph preset: 8 unless given)\n"
        "  --no-sign-flip         graph tasks: train on the Laplacian columns' signs as computed\n"
        "                         (default: a random sign per graph, column and step, as an\n"
        "                         eigenvector has none; node tasks never flip their one graph's)\n"
        "Model:\n"
        "  --preset P             transformer (3 pre-norm blocks, 4 heads, hidden 64, FFN), gat (the GAT\n"
        "                         paper's Cora model; also lr 0.005, weight decay 5e-4, patience 100) or\n"
        "                         graph (graph tasks: the transformer with 4 blocks of 8 GATv2 heads, a graph\n"
        "                         token as readout, edge features as score biases; also --normalize\n"
        "                         standard, --rw-pe 8, --clip 1, --schedule cosine). Each option given\n"
        "                         still applies.\n"
        "                         Default: graph for graph tasks; gat for node classification on features\n"
        "                         from the data (vertex attributes or a node table) within [-1, 1]\n"
        "                         (indicators, one-hot, bags of words), without the model options below;\n"
        "                         transformer otherwise\n"
        "  --layers L             attention blocks (default 3; gat 2; graph 4)\n"
        "  --heads H              heads per block (default 4; gat: first block 8; graph 8)\n"
        "  --head-dim D           size per head (default hidden/heads; gat 8)\n"
        "  --hidden W             width of the input projection and the blocks (default 64; gat: none)\n"
        "  --mask M               neighbours (default), khop or full; one per block joined by\n"
        "                         commas, repeated over the blocks (neighbours,full alternates)\n"
        "  --hops K               for --mask khop (default 2)\n"
        "  --score S              dot (default), gat or gatv2 (graph preset)\n"
        "  --attn-norm N          softmax (default) or relu\n"
        "  --readout R[,R]        graph tasks: mean, sum, max, attention or vnode (the graph preset's: the graph\n"
        "                         token's final state; implies --virtual-node); several, e.g. vnode,sum,\n"
        "                         are concatenated for the head\n"
        "  --head-hidden W        graph tasks: width of the head's hidden layer (default: --hidden; 0: a\n"
        "                         linear head on the readout)\n"
        "  --virtual-node         add one learned graph token per graph that attends to every node of its\n"
        "                         graph and that every node attends to, in every block (default off)\n"
        "  --dropout P            dropout on each block's input (default 0.1; gat 0.6)\n"
        "  --attn-dropout P       dropout on attention weights (default 0; gat 0.6)\n"
        "  --edge-mode E          none, key or bias (default: key when edge attributes are used, graph: bias;\n"
        "                         else none)\n"
        "  --no-ffn               no feed-forward sub-blocks\n"
        "  --norm N               pre (default), post or none (LayerNorm placement)\n"
        "  --no-residual          no residual connections\n"
        "Training:\n"
        "  --epochs N             maximum epochs (default 200)\n"
        "  --lr X                 learning rate (default 0.001; gat 0.005)\n"
        "  --weight-decay X       (default 0; gat 5e-4)\n"
        "  --optimizer O          adam (default), adamw or sgd\n"
        "  --batch-size N         graphs per mini-batch (default 32)\n"
        "  --patience N           stop after N epochs without validation improvement (default 30; gat 100;\n"
        "                         0 = never)\n"
        "  --min-epochs N         no early stop and no best-epoch choice before epoch N (default 0: none)\n"
        "  --clip X               clip the global gradient norm to X (default off; graph 1)\n"
        "  --huber DELTA          regression: train on the Huber loss, squared within DELTA standard\n"
        "                         deviations of the target and linear beyond (default: mean squared error)\n"
        "  --schedule S           constant (default), cosine (graph) or step\n"
        "  --warmup N             warm-up epochs (default 0)\n"
        "  --seed S               seed of the model, the shuffling, dropout and random splits (default 1)\n"
        "  --ensemble K           train K models with seeds S, S+1, ..., S+K-1 (each keeps its own best\n"
        "                         epoch) and predict the mean of their outputs (default 1; a K-model file)\n"
        "  --metric M             early-stopping metric: auto (default), loss, accuracy, macro_f1, roc_auc,\n"
        "                         rmse or mae\n"
        "  --threads N            OpenMP / BLAS threads (default: the cores other work leaves idle)\n"
        "  --no-train-metric      skip the per-epoch pass that scores the training part (faster)\n"
        "  --smooth ALPHA         node classification: score the test part after Correct and Smooth (the\n"
        "                         training labels propagated over the graph from the model's probabilities,\n"
        "                         weight ALPHA in [0, 1); choose it with eval --part val --smooth)\n"
        "                         --smooth auto: the best of 16 weight pairs on the validation part, if\n"
        "                         any beats the model alone (said on stderr)\n"
        "  --correct ALPHA        with --smooth: first propagate the training vertices' errors (weight ALPHA)\n"
        "                         (-o stores both weights: eval and label then apply them by default)\n"
        "Output:\n"
        "  -o, --output FILE      save the model (weights, architecture, featuriser, labels) as safetensors\n"
        "  --log FILE.csv         one line per epoch: epoch,loss,train_metric,val_metric,seconds,lr\n"
        "  -q, --quiet            no progress line on stderr\n"
        "  --json                 print the test metrics as one JSON object (the run's warnings in a\n"
        "                         \"warnings\" array when there were any)\n"
        "  --plot FILE.svg        draw the training loss and the validation metric per epoch (SVG)\n"
        "Interruption and limits:\n"
        "  --checkpoint FILE      write the whole training state to FILE (atomically) every N epochs\n"
        "  --checkpoint-every N   epochs between checkpoints (default 1)\n"
        "  --resume FILE          continue the run saved in FILE (its command line is stored there; only\n"
        "                         --threads, --quiet and --max-memory may be given with it); the final model\n"
        "                         is bit-identical to that of an uninterrupted run\n"
        "  --max-memory SIZE      refuse to start a run estimated to need more (e.g. 4G, 512M; default: the\n"
        "                         machine's available memory)\n"
        "  Ctrl-C                 during training: stop when the epoch under way ends, keep the best epoch so\n"
        "                         far, write and score it as usual, exit 130 (Ctrl-C again: quit at once)\n"
        "  --help                 this message\n"
        "\n"
        "Exit codes: 0 success, 1 unexpected failure or a run larger than --max-memory, 2 bad command line,\n"
        "3 bad input file, 4 bad or mismatched checkpoint, 130 stopped by Ctrl-C (the model is written).\n");
}

typedef struct train_opts_t {
    ag_net_train_options_t net; /* the options the library gives meaning to (options.h) */
    const char *output, *log, *plot, *checkpoint, *max_memory;
    int64_t checkpoint_every, threads, ensemble;
    int quiet, json;
    cli_smooth_t smooth; /* node classification scored after Correct and Smooth; stored with -o */
} train_opts_t;

static int name_in(const char *opt, const char *v, const char *const *names, int n, int *out) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], v)) {
            *out = i;
            return 0;
        }
    fprintf(stderr, "attn-graph: %s: %s: unknown value '%s' (expected", CMD, opt, v);
    for (int i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? (i == n - 1 ? " or " : ", ") : " ", names[i]);
    fprintf(stderr, ")\n");
    return -1;
}

/* Parses one train-only option; returns 1 if consumed, 0 if unknown, -1 on a bad value. */
static int train_option(train_opts_t *t, int argc, char **argv, int *i) {
    const char *v = NULL;
    int r;
#define OPT_STR(name, field) \
    if ((r = cli_opt(CMD, name, argc, argv, i, &v)) != 0) { \
        if (r > 0) t->field = v; \
        return r; \
    }
#define OPT_INT(name, field, lo, hi) \
    if ((r = cli_opt(CMD, name, argc, argv, i, &v)) != 0) \
        return r < 0 || cli_int(CMD, name, v, lo, hi, &t->field) < 0 ? -1 : 1;
#define OPT_FLT(name, field, lo, hi) \
    if ((r = cli_opt(CMD, name, argc, argv, i, &v)) != 0) \
        return r < 0 || cli_float(CMD, name, v, lo, hi, &t->field) < 0 ? -1 : 1;
#define OPT_FLAG(name, field) \
    if (!strcmp(argv[*i], name)) { \
        t->field = 1; \
        return 1; \
    }
    OPT_STR("--preset", net.preset);
    OPT_STR("--mask", net.mask);
    OPT_STR("--score", net.score);
    OPT_STR("--attn-norm", net.attn_norm);
    OPT_STR("--readout", net.readout);
    OPT_STR("--edge-mode", net.edge_mode);
    OPT_STR("--norm", net.norm);
    OPT_STR("--optimizer", net.optimizer);
    OPT_STR("--schedule", net.schedule);
    OPT_STR("--metric", net.metric);
    OPT_STR("--output", output);
    OPT_STR("-o", output);
    OPT_STR("--log", log);
    OPT_STR("--plot", plot);
    OPT_STR("--checkpoint", checkpoint);
    if ((r = cli_opt(CMD, "--max-memory", argc, argv, i, &v)) != 0)
        return r > 0 && cli_set_read_limit(CMD, t->max_memory = v) < 0 ? -1 : r;
    OPT_INT("--checkpoint-every", checkpoint_every, 1, 100000000);
    OPT_INT("--layers", net.layers, 1, AG_MODEL_MAX_BLOCKS);
    OPT_INT("--heads", net.heads, 1, 4096);
    OPT_INT("--head-dim", net.head_dim, 1, 1 << 20);
    OPT_INT("--hidden", net.hidden, 1, 1 << 20);
    OPT_INT("--hops", net.hops, 1, 64);
    OPT_INT("--head-hidden", net.head_hidden, 0, 1 << 20);
    OPT_INT("--epochs", net.epochs, 1, 100000000);
    OPT_INT("--batch-size", net.batch_size, 1, 1 << 30);
    OPT_INT("--patience", net.patience, 0, 100000000);
    OPT_INT("--warmup", net.warmup, 0, 100000000);
    OPT_INT("--min-epochs", net.min_epochs, 0, 100000000);
    OPT_INT("--threads", threads, 1, AG_THREADS_MAX);
    OPT_INT("--ensemble", ensemble, 1, 256);
    if ((r = cli_smooth_option(CMD, argc, argv, i, &t->smooth, 0)) != 0) return r;
    OPT_FLT("--dropout", net.dropout, 0.0, 0.99);
    OPT_FLT("--attn-dropout", net.attn_dropout, 0.0, 0.99);
    OPT_FLT("--lr", net.lr, 1e-12, 100.0);
    OPT_FLT("--weight-decay", net.weight_decay, 0.0, 100.0);
    OPT_FLT("--clip", net.clip, 0.0, 1e9);
    OPT_FLT("--huber", net.huber, 1e-6, 1e6);
    OPT_FLAG("--no-ffn", net.no_ffn);
    OPT_FLAG("--no-sign-flip", net.no_sign_flip);
    OPT_FLAG("--no-residual", net.no_residual);
    OPT_FLAG("--virtual-node", net.virtual_node);
    OPT_FLAG("--quiet", quiet);
    OPT_FLAG("-q", quiet);
    OPT_FLAG("--json", json);
    OPT_FLAG("--no-train-metric", net.no_train_metric);
#undef OPT_STR
#undef OPT_INT
#undef OPT_FLT
#undef OPT_FLAG
    return 0;
}

/* One attribute name met in the dataset's graphs, for uncommon_attrs_find. */
typedef struct {
    char *name;             /* a copy: the list of names is refilled for each graph */
    int64_t last_seen;      /* the graph that last had it */
    int64_t n_lacking;      /* the graphs with vertices (edges) that lack it */
    int64_t first_lacking;  /* the first of them, -1 if none */
} attr_tally_t;

/* The attributes some graphs of a dataset have and others lack; [1] vertex, [0] edge. */
typedef struct uncommon_t {
    attr_tally_t *t[2]; /* (n[k]) distinct names, in order of first appearance; lacking when n_lacking > 0 */
    int64_t n[2];
} uncommon_t;

/* The featuriser configuration from the feature options; lists live in bufs. */
typedef struct feat_lists_t {
    char *buf[3];
    const char *v[CLI_MAX_LIST], *e[CLI_MAX_LIST], *x[CLI_MAX_LIST];
    const char **xs;  /* x and the attributes some graphs lack (exclude_uncommon), or NULL */
    char **escaped;   /* (n_escaped) those attributes as patterns */
    int64_t n_escaped;
} feat_lists_t;

static int list_option(const char *s, char **buf, const char **items, int *n, ag_attr_select_t *sel) {
    if (!s || !strcmp(s, "all")) {
        *sel = AG_SELECT_ALL;
        *n = 0;
        return 0;
    }
    if (!strcmp(s, "none")) {
        *sel = AG_SELECT_NONE;
        *n = 0;
        return 0;
    }
    *buf = strdup(s);
    if (!*buf) return -1;
    *n = cli_split_list(*buf, items);
    *sel = AG_SELECT_LIST;
    return 0;
}

static int feature_config(const cli_data_opts_t *o, ag_featurizer_config_t *fc, feat_lists_t *l) {
    ag_featurizer_config_init(fc);
    int nv = 0, ne = 0, nx = 0;
    ag_attr_select_t sel;
    if (list_option(o->vertex_attrs, &l->buf[0], l->v, &nv, &sel) < 0) return AG_EXIT_FAILURE;
    fc->vertex_select = sel;
    fc->vertex_attrs = l->v;
    fc->n_vertex_attrs = nv;
    if (list_option(o->edge_attrs, &l->buf[1], l->e, &ne, &sel) < 0) return AG_EXIT_FAILURE;
    fc->edge_select = sel;
    fc->edge_attrs = l->e;
    fc->n_edge_attrs = ne;
    if (o->exclude_attrs) {
        /* besides the defaults: "id" and the program's own outputs */
        l->buf[2] = strdup(o->exclude_attrs);
        if (!l->buf[2]) return AG_EXIT_FAILURE;
        nx = cli_split_list(l->buf[2], l->x);
    }
    fc->exclude_more = l->x;
    fc->n_exclude_more = nx;
    if (o->normalize) {
        static const char *const names[] = {"none", "standard", "l1", "auto"};
        static const ag_feature_norm_t norms[] = {AG_NORM_NONE, AG_NORM_STANDARDIZE, AG_NORM_L1_ROWS,
                                                  AG_NORM_STANDARDIZE_RAW};
        int k;
        if (name_in("--normalize", o->normalize, names, 4, &k) < 0) return AG_EXIT_USAGE;
        fc->norm = norms[k];
    }
    fc->degree = o->degree;
    fc->lap_pe_k = o->lap_pe > 0 ? o->lap_pe : 0;
    fc->rw_pe_k = o->rw_pe > 0 ? o->rw_pe : 0;
    /* graphs without node labels (IMDB-BINARY) train on their degrees, as PyG users add them by
     * hand; an explicit --vertex-attrs or a node table is a choice and is kept */
    fc->degree_if_featureless = !o->vertex_attrs && !o->node_table;
    return AG_EXIT_OK;
}

/* Reports the option value the library refused with rc (ag_net_train_options_refused(), such as
 * "attn_norm") as the program's option ("--attn-norm: ...") and returns the exit code. */
static int option_error(ag_error_t rc) {
    const char *name = ag_net_train_options_refused();
    if (!name) return ag_cli_fail(rc);
    char flag[64];
    size_t k = 0;
    for (; name[k] && k + 1 < sizeof flag; k++) flag[k] = name[k] == '_' ? '-' : name[k];
    flag[k] = '\0';
    ag_cli_error("%s: --%s: %s", CMD, flag, ag_net_train_options_refused_reason());
    return ag_cli_exit_code(rc);
}

typedef struct progress_t {
    FILE *log;
    int quiet;
    int64_t member;        /* of an ensemble: 1..K, the log's first column; 0 for one model */
    cli_history_t history; /* every epoch of the run, those before a resume included */
    int history_failed;
} progress_t;

static void log_line(FILE *log, const cli_epoch_t *e, int64_t member) {
    if (member > 0) fprintf(log, "%lld,", (long long)member);
    fprintf(log, "%lld,%.9g,%.9g,%.9g,%.6f,%.9g\n", (long long)e->epoch, e->loss, e->train_metric, e->val_metric,
            e->seconds, e->lr);
}

static void fmt_time(char *buf, size_t n, double s) {
    if (!isfinite(s) || s < 0) s = 0;
    if (s < 60) snprintf(buf, n, "%.1fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void on_epoch(const ag_epoch_log_t *e, void *user) {
    progress_t *p = user;
    cli_epoch_t h = {e->epoch, e->loss, e->train_metric, e->val_metric, e->seconds, e->lr, e->improved};
    if (cli_history_push(&p->history, &h) < 0) p->history_failed = 1;
    if (p->log) {
        log_line(p->log, &h, p->member);
        fflush(p->log);
    }
    if (p->quiet) return;
    char t[32], eta[32];
    fmt_time(t, sizeof t, e->seconds);
    fmt_time(eta, sizeof eta, e->eta_seconds);
    char val[64], train[64], fig[CLI_FIGURE_MAX];
    if (isnan(e->val_metric)) snprintf(val, sizeof val, "val -");
    else snprintf(val, sizeof val, "val %s %s", e->metric, cli_figure(fig, e->val_metric));
    if (isnan(e->train_metric)) snprintf(train, sizeof train, "train -");
    else snprintf(train, sizeof train, "train %s %s", e->metric, cli_figure(fig, e->train_metric));
    fprintf(stderr, "epoch %lld/%lld  loss %s  %s  %s%s  %s  ETA %s\n", (long long)e->epoch, (long long)e->epochs,
            cli_figure(fig, e->loss), train, val, e->improved ? " *" : "  ", t, eta);
}

/* What the checkpoint callback adds to the library's state: how to redo the run's setup. */
typedef struct ckpt_ctx_t {
    const char *path;
    const char *args;    /* the command line, one argument per line */
    const char *cwd;     /* the directory it ran in (relative paths) */
    char data_crc[16];   /* fingerprint of the prepared data and split */
    progress_t *progress;
} ckpt_ctx_t;

static ag_error_t on_checkpoint(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    ckpt_ctx_t *c = user;
    ag_metadata_t m;
    ag_metadata_init(&m);
    char *hist = c->progress->history_failed ? NULL : cli_history_to_text(&c->progress->history);
    ag_error_t rc = AG_SUCCESS;
    if (!hist) {
        fprintf(stderr, "attn-graph: train: out of memory writing the checkpoint\n");
        return AG_ENOMEM;
    }
    if ((rc = ag_metadata_set(&m, "cli_args", c->args)) == AG_SUCCESS &&
        (rc = ag_metadata_set(&m, "cli_cwd", c->cwd)) == AG_SUCCESS &&
        (rc = ag_metadata_set(&m, "data_crc", c->data_crc)) == AG_SUCCESS &&
        (rc = ag_metadata_set(&m, "history", hist)) == AG_SUCCESS)
        rc = ag_train_state_save(c->path, model, st, &m);
    free(hist);
    ag_metadata_destroy(&m);
    return rc;
}

/* CRC-32 of everything the run is trained and validated on: graphs, features, targets, split. */
static void data_fingerprint(const ag_trainset_t *set, const ag_fold_t *fold, char *out, size_t n) {
    uint32_t c = 0;
    for (int64_t i = 0; i < set->n_examples; i++) {
        const ag_example_t *ex = &set->examples[i];
        int64_t dims[5] = {ex->graph.n_nodes, ex->graph.n_entries, ex->X.rows * ex->X.cols, ex->E.rows * ex->E.cols,
                           ex->graph.n_graphs};
        c = ag_crc32_update(c, dims, sizeof dims);
        c = ag_crc32_update(c, ex->graph.indptr, (size_t)(ex->graph.n_nodes + 1) * sizeof(int64_t));
        if (ex->graph.n_entries > 0)
            c = ag_crc32_update(c, ex->graph.src, (size_t)ex->graph.n_entries * sizeof(int32_t));
        if (dims[2] > 0) c = ag_crc32_update(c, ex->X.data, (size_t)dims[2] * sizeof(float));
        if (dims[3] > 0) c = ag_crc32_update(c, ex->E.data, (size_t)dims[3] * sizeof(float));
    }
    c = ag_crc32_update(c, set->targets, (size_t)(set->n_rows * set->n_cols) * sizeof(float));
    int64_t counts[3] = {fold->n_train, fold->n_val, fold->n_test};
    c = ag_crc32_update(c, counts, sizeof counts);
    if (fold->n_train) c = ag_crc32_update(c, fold->train, (size_t)fold->n_train * sizeof(int64_t));
    if (fold->n_val) c = ag_crc32_update(c, fold->val, (size_t)fold->n_val * sizeof(int64_t));
    if (fold->n_test) c = ag_crc32_update(c, fold->test, (size_t)fold->n_test * sizeof(int64_t));
    snprintf(out, n, "%08x", (unsigned)c);
}

/* The parsed command line and what follows from it, shared by every fold of a cross-validation. */
typedef struct train_job_t {
    train_opts_t t;
    ag_task_t task;        /* as given by --task (task_given), else inferred from the data */
    int task_given;
    ag_train_config_t tc;  /* copied for each run: an ensemble's members change its seed */
    int64_t K;             /* models trained: member m with seed S+m */
    const char *resume;    /* the checkpoint to continue (absolute path) or NULL */
    const char *args;      /* the command line to store in checkpoints, one argument per line */
    const char *cwd;       /* the directory it runs in */
    ag_featurizer_config_t fc; /* points into train_run's option lists; fc.norm is the node table's too */
    uncommon_t uncommon;       /* graph tasks: the attributes some graphs lack, left out by fc */
} train_job_t;

/* The data columns --normalize auto standardised (raw values: an age, a count), named into buf as
 * "'age', 'score' and 2 more columns" (six names at most) for a note; returns how many. */
static int standardised_columns(const ag_prepared_t *p, const cli_data_t *d, char *buf, size_t cap) {
    const ag_featurizer_t *f = &p->featurizer;
    int n = 0, named = 0;
    buf[0] = '\0';
    for (cli_col_part_t part = CLI_COL_VERTEX; part <= CLI_COL_EDGE; part++) {
        /* the attributes' columns (not the degree's: auto leaves it), the node table's, the edges' */
        const int64_t count = part == CLI_COL_VERTEX ? f->n_attr_features
                              : part == CLI_COL_TABLE ? p->table.width
                                                      : f->n_edge_features;
        for (int64_t c = 0; c < count; c++) {
            float mean, sd;
            if (!cli_column_standardised(f, &p->table, part, c, &mean, &sd)) continue;
            const char *name = part == CLI_COL_VERTEX ? ag_featurizer_column_name(f, c)
                               : part == CLI_COL_EDGE ? f->edge_names[c]
                               : d->table.columns     ? d->table.columns[c]
                                                      : NULL;
            if (n < 6 && name) {
                size_t len = strlen(buf);
                snprintf(buf + len, cap - len, "%s'%s'%s", named ? ", " : "", name,
                         part == CLI_COL_EDGE ? " (edges)" : part == CLI_COL_TABLE ? " (node table)" : "");
                named++;
            }
            n++;
        }
    }
    if (n > named) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%d %scolumn%s", named ? " and " : "", n - named, named ? "more " : "",
                 n - named == 1 ? "" : "s");
    }
    return n;
}

/* Classes without a labelled example in the training part: the model cannot learn them, and a
 * test figure then measures the split more than the model (--train-nodes 0 trained one vertex of
 * one class out of three, silently). Said even under --quiet, for every fold. */
static void warn_missing_classes(const ag_prepared_t *p, const int64_t *train, int64_t n_train, int graph_level,
                                 int drawn_plain) {
    const int64_t C = p->set.n_classes;
    char *seen = calloc((size_t)(C > 0 ? C : 1), 1); /* (C) */
    if (!seen) return;
    for (int64_t i = 0; i < n_train; i++) {
        const float y = p->set.targets[train[i] * p->set.n_cols];
        if (!isnan(y) && y >= 0 && y < (float)C) seen[(int64_t)y] = 1;
    }
    int64_t missing = 0;
    char list[256] = "";
    for (int64_t c = 0; c < C; c++) {
        if (seen[c]) continue;
        size_t len = strlen(list);
        if (missing < 5 && p->names)
            snprintf(list + len, sizeof list - len, "%s'%s'", missing ? ", " : "", p->names[c]);
        missing++;
    }
    free(seen);
    if (missing == 0) return;
    /* a class per labelled item (a name or an id given as --label-attr) is no task at all; with a
     * few items per class a plain random draw is what left some out */
    int64_t labelled = 0;
    for (int64_t r = 0; r < p->set.n_rows; r++) labelled += !isnan(p->set.targets[r * p->set.n_cols]);
    char why[160] = "";
    if (C == labelled && C >= 20)
        snprintf(why, sizeof why, "; each of the %lld labelled %s has a class of its own: an identifier, not classes",
                 (long long)labelled, graph_level ? "graphs" : "vertices");
    else if (drawn_plain)
        snprintf(why, sizeof why, "; --stratify draws every class into each part");
    ag_cli_warning("%lld of the %lld classes ha%s no labelled %s in the training part (%s%s): the model cannot "
                   "learn to predict %s%s", (long long)missing, (long long)C, missing == 1 ? "s" : "ve",
                   graph_level ? "graph" : "vertex", list, missing > 5 ? ", ..." : "", missing == 1 ? "it" : "them",
                   why);
}

/* Regression targets with one value over the training part: nothing to learn (the model's
 * standardisation falls back to a spread of 1 and it predicts about that value), where the same
 * in classification is refused as fewer than 2 classes. Said even under --quiet, for every fold. */
static void warn_constant_targets(const ag_prepared_t *p, const int64_t *train, int64_t n_train, int graph_level) {
    const int64_t T = p->set.n_cols;
    for (int64_t c = 0; c < T; c++) {
        float first = NAN;
        int varies = 0, any = 0;
        for (int64_t i = 0; i < n_train && !varies; i++) {
            const float y = p->set.targets[train[i] * T + c];
            if (isnan(y)) continue;
            if (!any) first = y;
            varies = any && y != first;
            any = 1;
        }
        if (any && !varies)
            ag_cli_warning("target '%s' is %g on every labelled training %s: there is nothing to learn, and the "
                           "model predicts about that value", p->names && p->names[c] ? p->names[c] : "?",
                           (double)first, graph_level ? "graph" : "vertex");
    }
}

/* A node task whose every input column holds one value over the graph: the model can tell no
 * vertex from another (an attribute set alike on every vertex counts as usable, so no structural
 * column was added), and trains to the majority class without a word. */
static void warn_constant_features(const ag_prepared_t *p, int attrs_listed) {
    const ag_fmat_t *X = &p->set.examples[0].X;
    const ag_featurizer_t *f = &p->featurizer;
    if (X->cols == 0 || X->rows < 2 || f->degree || f->lap_pe_k || f->rw_pe_k) return;
    for (int64_t j = 0; j < X->cols; j++)
        for (int64_t i = 1; i < X->rows; i++)
            if (X->data[i * X->cols + j] != X->data[j]) return;
    ag_cli_warning_t w;
    FILE *out = ag_cli_warning_begin(&w);
    fprintf(out, "every input column has one value on all %lld vertices (", (long long)X->rows);
    int plain = !attrs_listed; /* the names can be given back to --exclude-attrs, which then acts */
    for (int64_t a = 0; a < f->n_vattrs; a++) {
        if (a < 5) {
            fputs(a ? ", " : f->n_vattrs == 1 ? "vertex attribute " : "vertex attributes ", out);
            cli_print_value(out, f->vattrs[a].name, '\'');
        }
        plain = plain && cli_value_plain(f->vattrs[a].name) && !strpbrk(f->vattrs[a].name, ",*?[");
    }
    fprintf(out, "%s%s): the model cannot tell one vertex from another; ", f->n_vattrs > 5 ? ", ..." : "",
            !p->table.width ? "" : f->n_vattrs ? " and the node table" : "the node table");
    if (f->n_vattrs && !p->table.width && plain) {
        /* left out, they leave the graph without attribute: the structure's default columns */
        fputs("--exclude-attrs ", out);
        for (int64_t a = 0; a < f->n_vattrs; a++) fprintf(out, "%s%s", a ? "," : "", f->vattrs[a].name);
        fputs(" trains on the structure instead (the degree and Laplacian columns)", out);
    } else {
        const int64_t k = X->rows - 1 < AG_FEATURELESS_LAP_PE ? X->rows - 1 : AG_FEATURELESS_LAP_PE;
        fprintf(out, "--vertex-attrs none --degree --normalize standard --lap-pe %lld%s trains on the structure "
                "instead", (long long)k, p->table.width ? ", without the node table," : "");
    }
    ag_cli_warning_end(&w);
}

/* The training set of the fold d->fold, featurised by fc (fitted on the training part). */
static ag_error_t prepare(ag_prepared_t *p, const cli_data_opts_t *o, const cli_data_t *d, ag_task_t task,
                          const ag_featurizer_config_t *fc) {
    const ag_fmat_t *table = d->have_table ? &d->table.features : NULL;
    if (d->graph_level) return ag_prepared_from_graphs(p, &d->ds, task, fc, d->fold.train, d->fold.n_train);
    ag_error_t rc = task == AG_TASK_NODE_REGRESSION
                            ? ag_prepared_from_node_values(p, &d->graph, o->label_attr, table, fc->norm, fc)
                            : ag_prepared_from_nodes(p, &d->graph, o->label_attr, NULL, 0, table, fc->norm, fc);
    /* the model keeps the header's names, so that prediction can match a table's columns by name */
    if (rc == AG_SUCCESS && table && d->table.columns)
        rc = ag_table_norm_set_columns(&p->table, (const char *const *)d->table.columns, table->cols);
    return rc;
}

/* Says why prepare() failed with rc and returns the exit code. A node-table column refused as a
 * copy of the labels or target is the table's: named by its header, or by its place among the
 * columns after the id in a table without one (the library gives the place, and its message
 * names neither file); graph tasks' messages name the graph file, and one graph's other messages
 * do not. */
static int prepare_error(const cli_data_opts_t *o, const cli_data_t *d, ag_error_t rc) {
    const int64_t col = d->graph_level ? -1 : ag_prepared_refused_column();
    if (d->have_table && col >= 0 && col < d->table.features.cols) {
        if (d->table.columns)
            ag_cli_error("%s: column '%s' %s", o->node_table, d->table.columns[col], ag_prepared_refused_reason());
        else if (d->table.sparse) /* its columns are its indices, not places on a line */
            ag_cli_error("%s: feature index %lld (of 0 to %lld) %s", o->node_table, (long long)col,
                         (long long)d->table.features.cols - 1, ag_prepared_refused_reason());
        else
            ag_cli_error("%s: column %lld (of %lld after the id) %s", o->node_table, (long long)col + 1,
                         (long long)d->table.features.cols, ag_prepared_refused_reason());
        return ag_cli_exit_code(rc);
    }
    return ag_cli_fail_in(d->graph_level ? NULL : o->graph, rc);
}

/* Whether --vertex-attrs (or --edge-attrs: names, n of them, under sel) names attribute a plainly. */
static int named_in(ag_attr_select_t sel, const char *const *names, int64_t n, const char *a) {
    for (int64_t i = 0; sel == AG_SELECT_LIST && i < n; i++)
        if (!strcmp(names[i], a)) return 1;
    return 0;
}

/* The --exclude-attrs that leaves names out too: a second --exclude-attrs replaces the first, so
 * the advice repeats what the user already gave. */
static const char *exclude_advice(char *buf, size_t n, const char *given, const char *names) {
    if (given && given[0]) snprintf(buf, n, "%s,%s", given, names);
    else snprintf(buf, n, "%s", names);
    return buf;
}

/* A string attribute with a different value on every vertex (a user name, an account id) taken
 * without being named: its one-hot block is an identity matrix, which lets the model memorise
 * vertices of this graph (as Karate's shipped model does on purpose) but says nothing about a
 * vertex of another graph, where every value falls in the "other" column. PyG users meet this
 * as "identity features"; a user who did not ask for them should hear how to leave them out. */
static void identifier_notes(const cli_data_opts_t *o, const cli_data_t *d, const ag_featurizer_t *f,
                             const ag_featurizer_config_t *fc) {
    const igraph_integer_t n = igraph_vcount(&d->graph);
    if (n < 2) return;
    for (int64_t a = 0; a < f->n_vattrs; a++) {
        const ag_feature_attr_t *at = &f->vattrs[a];
        if (at->type != AG_ATTR_STRING || at->vocab_size < n) continue;
        if (named_in(fc->vertex_select, fc->vertex_attrs, fc->n_vertex_attrs, at->name)) continue;
        char advice[512];
        fprintf(stderr,
                "attn-graph: note: vertex attribute '%s' has a different value on each of the %lld vertices: "
                "its %lld one-hot columns identify vertices (the model can learn this graph's vertices by "
                "name, not another graph's); --exclude-attrs %s to leave it out\n",
                at->name, (long long)n, (long long)at->width,
                exclude_advice(advice, sizeof advice, o->exclude_attrs, at->name));
    }
}

/* A Pajek file's vertex coordinates are where a drawing put the vertices (igraph reads them as x,
 * y and z): taken by the default selection they are numeric features like any other, so the model
 * may learn the layout (a force-directed one mirrors the communities) rather than the data. That
 * can be what a user wants, as a vertex's name can, so they are kept; one who did not ask for them
 * should hear it, with how to leave them out. */
static void layout_note(const cli_data_opts_t *o, const cli_data_t *d, const ag_featurizer_t *f,
                        const ag_featurizer_config_t *fc) {
    if (d->read_as != AG_FORMAT_PAJEK) return;
    char names[16] = "", advice[512];
    int count = 0;
    for (int64_t a = 0; a < f->n_vattrs; a++) {
        const char *nm = f->vattrs[a].name;
        if ((strcmp(nm, "x") && strcmp(nm, "y") && strcmp(nm, "z")) ||
            named_in(fc->vertex_select, fc->vertex_attrs, fc->n_vertex_attrs, nm))
            continue;
        if (names[0]) strcat(names, ",");
        strcat(names, nm);
        count++;
    }
    if (count)
        fprintf(stderr, "attn-graph: note: vertex attribute%s %s %s of the Pajek file and %s (the model "
                "may learn where the drawing put each vertex); --exclude-attrs %s to leave %s out\n",
                count > 1 ? "s" : "", names, count > 1 ? "are the drawing coordinates" : "is a drawing coordinate",
                count > 1 ? "are used as features" : "is used as a feature",
                exclude_advice(advice, sizeof advice, o->exclude_attrs, names), count > 1 ? "them" : "it");
}

/* Names the attributes of ig (of kind `kind`) left out as attn-graph's own outputs
 * (ag_featurizer_output_patterns), unless --vertex-attrs/--edge-attrs names one, which takes it. */
static void own_output_note(const igraph_t *ig, igraph_attribute_elemtype_t kind, const ag_featurizer_config_t *fc) {
    igraph_strvector_t names;
    if (igraph_strvector_init(&names, 0) != IGRAPH_SUCCESS) return;
    igraph_error_t e = kind == IGRAPH_ATTRIBUTE_VERTEX
                           ? igraph_cattribute_list(ig, NULL, NULL, &names, NULL, NULL, NULL)
                           : igraph_cattribute_list(ig, NULL, NULL, NULL, NULL, &names, NULL);
    const int is_v = kind == IGRAPH_ATTRIBUTE_VERTEX;
    const ag_attr_select_t sel = is_v ? fc->vertex_select : fc->edge_select;
    const char *const *listed = is_v ? fc->vertex_attrs : fc->edge_attrs;
    const int64_t n_listed = is_v ? fc->n_vertex_attrs : fc->n_edge_attrs;
    const char *const *own_outputs;
    const int64_t n_own = ag_featurizer_output_patterns(&own_outputs);
    int count = 0;
    for (igraph_integer_t i = 0; e == IGRAPH_SUCCESS && sel != AG_SELECT_NONE && i < igraph_strvector_size(&names);
         i++) {
        const char *a = igraph_strvector_get(&names, i);
        int own = 0;
        for (int64_t k = 0; k < n_own && !own; k++) own = fnmatch(own_outputs[k], a, 0) == 0;
        if (!own || named_in(sel, listed, n_listed, a)) continue;
        if (count == 0)
            fprintf(stderr, "attn-graph: note: %s attributes that attn-graph's label or explain writes are not used as "
                    "features (a previous model's answers; --%s-attrs NAME takes one):", is_v ? "vertex" : "edge",
                    is_v ? "vertex" : "edge");
        if (count < 6) fprintf(stderr, "%s %s", count ? "," : "", a);
        count++;
    }
    if (count > 6) fprintf(stderr, " and %d more", count - 6);
    if (count) fputc('\n', stderr);
    igraph_strvector_destroy(&names);
}

/* Graph g of a dataset as messages name it: its file, or "graph 12" (prepare.c's rule). */
static const char *graph_label(const cli_data_t *d, int64_t g, char *buf, size_t n) {
    if (d->ds.files && !d->ds.named_by_id) return d->ds.files[g];
    if (d->ds.files) snprintf(buf, n, "graph %s", d->ds.files[g]);
    else snprintf(buf, n, "graph %lld", (long long)g + 1);
    return buf;
}

static void uncommon_destroy(uncommon_t *u) {
    for (int k = 0; k < 2; k++) {
        for (int64_t j = 0; j < u->n[k]; j++) free(u->t[k][j].name);
        free(u->t[k]);
    }
    memset(u, 0, sizeof *u);
}

/* Every attribute (the default selection) means those every graph with vertices (edges) has, the
 * featuriser's rule: decided over the whole dataset, not the training part alone, since a graph of
 * the validation or test part lacking one ended the run (its featurisation failed) while the same
 * graph among the training ones dropped the attribute: the outcome hung on the split. One pass:
 * each graph's names are tallied, then every name it did not show counts it as lacking. Returns 0,
 * or -1 when out of memory. */
static int uncommon_attrs_find(const cli_data_t *d, const ag_featurizer_config_t *fc, uncommon_t *u) {
    memset(u, 0, sizeof *u);
    const int64_t G = d->ds.n_graphs;
    int ok = 1;
    for (int is_v = 1; ok && is_v >= 0; is_v--) {
        if ((is_v ? fc->vertex_select : fc->edge_select) != AG_SELECT_ALL || G < 2) continue;
        igraph_strvector_t names; /* each graph's in turn */
        if (igraph_strvector_init(&names, 0) != IGRAPH_SUCCESS) return -1;
        attr_tally_t *t = NULL;
        int64_t n = 0, cap = 0, eligible = 0, first_eligible = -1;
        for (int64_t i = 0; ok && i < G; i++) {
            const igraph_t *gi = &d->ds.graphs[i];
            /* igraph keeps no edge attribute on a graph without edges: no lack there */
            if ((is_v ? igraph_vcount(gi) : igraph_ecount(gi)) == 0) continue;
            ok = (is_v ? igraph_cattribute_list(gi, NULL, NULL, &names, NULL, NULL, NULL)
                       : igraph_cattribute_list(gi, NULL, NULL, NULL, NULL, &names, NULL)) == IGRAPH_SUCCESS;
            for (igraph_integer_t k = 0; ok && k < igraph_strvector_size(&names); k++) {
                const char *a = igraph_strvector_get(&names, k);
                if (ag_featurizer_config_excludes(fc, a)) continue;
                int64_t j = 0;
                while (j < n && strcmp(t[j].name, a) != 0) j++;
                if (j == n) {
                    if (n == cap) {
                        attr_tally_t *grown = realloc(t, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *t);
                        if (!(ok = grown != NULL)) break;
                        t = grown;
                    }
                    /* every earlier graph with vertices (edges) lacked it */
                    t[n] = (attr_tally_t){strdup(a), i, eligible, eligible ? first_eligible : -1};
                    if (!(ok = t[n].name != NULL)) break;
                    n++;
                }
                t[j].last_seen = i;
            }
            for (int64_t j = 0; ok && j < n; j++)
                if (t[j].last_seen != i && t[j].n_lacking++ == 0) t[j].first_lacking = i;
            if (eligible++ == 0) first_eligible = i;
        }
        u->t[is_v] = t;
        u->n[is_v] = n;
        igraph_strvector_destroy(&names);
    }
    if (!ok) uncommon_destroy(u);
    return ok ? 0 : -1;
}

/* Which part of the fold graph g is in, for a note: "a training graph". */
static const char *part_of(const cli_data_t *d, int64_t g) {
    const int64_t *idx[3] = {d->fold.train, d->fold.val, d->fold.test};
    const int64_t n[3] = {d->fold.n_train, d->fold.n_val, d->fold.n_test};
    static const char *const names[3] = {"a training graph", "a validation graph", "a test graph"};
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < n[k]; i++)
            if (idx[k][i] == g) return names[k];
    return "in no part of the split";
}

/* Names each attribute uncommon_attrs_find found lacking, with the first graph lacking it and its
 * part, so that one molecule without 'element' does not silently drop the atoms' elements from the
 * whole model. */
static void uncommon_attr_notes(const cli_data_t *d, const uncommon_t *u) {
    for (int is_v = 1; is_v >= 0; is_v--)
        for (int64_t j = 0; j < u->n[is_v]; j++) {
            const attr_tally_t *a = &u->t[is_v][j];
            if (a->n_lacking == 0) continue;
            char label[64];
            fprintf(stderr, "attn-graph: note: %s attribute '%s' is not used: %lld of the %lld graphs lack%s it "
                    "(%s, %s%s); give it to every graph to use it\n", is_v ? "vertex" : "edge", a->name,
                    (long long)a->n_lacking, (long long)d->ds.n_graphs, a->n_lacking == 1 ? "s" : "",
                    graph_label(d, a->first_lacking, label, sizeof label), part_of(d, a->first_lacking),
                    a->n_lacking > 1 ? ", ..." : "");
        }
}

/* fc's exclusions with the attributes u found lacking added (as fnmatch patterns matching the
 * name alone), into l: the training graphs may all have one that a validation graph lacks. */
static int exclude_uncommon(ag_featurizer_config_t *fc, const uncommon_t *u, feat_lists_t *l) {
    int64_t m = fc->n_exclude_more;
    for (int k = 0; k < 2; k++)
        for (int64_t j = 0; j < u->n[k]; j++) m += u->t[k][j].n_lacking > 0;
    if (m == fc->n_exclude_more) return 0;
    l->xs = malloc((size_t)m * sizeof *l->xs);
    l->escaped = calloc((size_t)m, sizeof *l->escaped);
    if (!l->xs || !l->escaped) return -1;
    int64_t n = 0;
    for (int64_t i = 0; i < fc->n_exclude_more; i++) l->xs[n++] = fc->exclude_more[i];
    for (int k = 0; k < 2; k++)
        for (int64_t j = 0; j < u->n[k]; j++) {
            if (u->t[k][j].n_lacking == 0) continue;
            const char *a = u->t[k][j].name;
            char *e = malloc(2 * strlen(a) + 1);
            if (!e) return -1;
            char *w = e;
            for (; *a; a++) {
                if (strchr("*?[\\", *a)) *w++ = '\\';
                *w++ = *a;
            }
            *w = '\0';
            l->escaped[l->n_escaped++] = e;
            l->xs[n++] = e;
        }
    fc->exclude_more = l->xs;
    fc->n_exclude_more = n;
    return 0;
}

/* Whether --vertex-attrs would have taken vertex attribute name (all of them, or a pattern
 * matching it): a note that it was left out means nothing otherwise. */
static int selectable(const ag_featurizer_config_t *fc, const char *name) {
    if (fc->vertex_select == AG_SELECT_ALL) return 1;
    if (fc->vertex_select == AG_SELECT_NONE) return 0;
    for (int64_t k = 0; k < fc->n_vertex_attrs; k++)
        if (fc->vertex_attrs[k] && fnmatch(fc->vertex_attrs[k], name, 0) == 0) return 1;
    return 0;
}

/* What featurising decided that the options did not say; printed once the options are known to
 * be valid, so that a usage error is not preceded by notes about the data. */
/* Says each --exclude-attrs name or pattern that no vertex or edge attribute of the data matches
 * (the first graph with vertices stands for a dataset): a misspelt exclusion was taken silently
 * and the attribute it meant stayed a feature. */
static void unmatched_exclusion_notes(const cli_data_opts_t *o, const cli_data_t *d) {
    if (!o->exclude_attrs) return;
    const igraph_t *ig = d->graph_level ? NULL : &d->graph;
    for (int64_t g = 0; d->graph_level && !ig && g < d->ds.n_graphs; g++)
        if (igraph_vcount(&d->ds.graphs[g]) > 0) ig = &d->ds.graphs[g];
    if (!ig || !igraph_has_attribute_table() || !ig->attr) return;
    igraph_strvector_t vn, en;
    if (igraph_strvector_init(&vn, 0) != IGRAPH_SUCCESS) return;
    if (igraph_strvector_init(&en, 0) != IGRAPH_SUCCESS) {
        igraph_strvector_destroy(&vn);
        return;
    }
    char *list = strdup(o->exclude_attrs);
    const char *items[CLI_MAX_LIST];
    const int n = list && igraph_cattribute_list(ig, NULL, NULL, &vn, NULL, &en, NULL) == IGRAPH_SUCCESS
                      ? cli_split_list(list, items)
                      : 0;
    for (int i = 0; i < n; i++) {
        int hit = 0;
        for (igraph_integer_t a = 0; a < igraph_strvector_size(&vn) && !hit; a++)
            hit = fnmatch(items[i], igraph_strvector_get(&vn, a), 0) == 0;
        for (igraph_integer_t a = 0; a < igraph_strvector_size(&en) && !hit; a++)
            hit = fnmatch(items[i], igraph_strvector_get(&en, a), 0) == 0;
        if (hit) continue;
        char shown[96];
        fprintf(stderr, "attn-graph: note: --exclude-attrs '%s' matches no vertex or edge attribute of the %s (its "
                "vertex attributes:", cli_display(items[i], shown, sizeof shown), d->graph_level ? "graphs" : "graph");
        for (igraph_integer_t a = 0; a < igraph_strvector_size(&vn) && a < 12; a++) {
            char v[96];
            fprintf(stderr, "%s %s", a ? "," : "", cli_display(igraph_strvector_get(&vn, a), v, sizeof v));
        }
        fprintf(stderr, "%s)\n", igraph_strvector_size(&vn) > 12 ? ", ..." : igraph_strvector_size(&vn) ? "" : " none");
    }
    free(list);
    igraph_strvector_destroy(&vn);
    igraph_strvector_destroy(&en);
}

/* A string attribute whose values are numbers but for a few ("NA", "?", "unknown"): igraph types
 * a GML or GraphML attribute as a string when one value is, and the featuriser then one-hot
 * encodes every distinct number, silently turning an age into 60 columns that know nothing of
 * order. Said, with the values that made it text. */
static void number_like_notes(const ag_featurizer_t *f) {
    for (int64_t a = 0; a < f->n_vattrs; a++) {
        const ag_feature_attr_t *at = &f->vattrs[a];
        if (at->type != AG_ATTR_STRING || at->vocab_size < 5) continue;
        int64_t numbers = 0;
        for (int64_t i = 0; i < at->vocab_size; i++) numbers += cli_number_text(at->vocab[i]);
        if (numbers == at->vocab_size || numbers * 5 < at->vocab_size * 4) continue;
        char others[160] = "";
        int shown = 0;
        for (int64_t i = 0; i < at->vocab_size && shown < 3; i++)
            if (!cli_number_text(at->vocab[i])) {
                char v[48];
                snprintf(others + strlen(others), sizeof others - strlen(others), "%s'%s'", shown++ ? ", " : "",
                         cli_display(at->vocab[i], v, sizeof v));
            }
        const int64_t rest = at->vocab_size - numbers - shown;
        char buf[96];
        const char *name = cli_display(at->name, buf, sizeof buf);
        fprintf(stderr,
                "attn-graph: note: vertex attribute '%s' is text, though %lld of its %lld distinct values are numbers "
                "(the others: %s%s): it is one-hot encoded, one column per value, which knows no order; for a "
                "numeric feature give every vertex a number, for none --exclude-attrs %s\n",
                name, (long long)numbers, (long long)at->vocab_size, others, rest > 0 ? " and more" : "", name);
    }
}

static void data_notes(const cli_data_opts_t *o, const cli_data_t *d, const ag_prepared_t *p,
                       const ag_featurizer_config_t *fc, const uncommon_t *u) {
    if (!d->graph_level)
        for (int64_t i = 1; i < p->n_excluded; i++)
            if (selectable(fc, p->excluded[i]))
                fprintf(stderr,
                        "attn-graph: note: vertex attribute '%s' mirrors the label '%s' and is not used as a feature\n",
                        p->excluded[i], o->label_attr);
    if (!d->graph_level) {
        identifier_notes(o, d, &p->featurizer, fc);
        layout_note(o, d, &p->featurizer, fc);
        own_output_note(&d->graph, IGRAPH_ATTRIBUTE_VERTEX, fc);
        own_output_note(&d->graph, IGRAPH_ATTRIBUTE_EDGE, fc);
    }
    for (int64_t i = 0; d->graph_level && i < p->featurizer.n_left_out; i++)
        fprintf(stderr,
                "attn-graph: note: vertex attribute '%s' names the vertices of each graph (a different value on every "
                "vertex of a graph: their order in the file, or names seldom shared across graphs) and is not used as "
                "a feature: the model would learn the files' vertex order, not the graphs; --vertex-attrs takes it\n",
                p->featurizer.left_out[i]);
    if (d->graph_level) uncommon_attr_notes(d, u);
    if (d->graph_level && !o->targets && d->ds.targets.n_tasks > 1) {
        /* several columns were taken by default: name them, as a table may hold more than targets */
        fprintf(stderr, "attn-graph: note: %lld target columns (every %s; --target to choose):",
                (long long)d->ds.targets.n_tasks, o->tu ? "graph attribute" : "numeric column");
        for (int64_t j = 0; j < d->ds.targets.n_tasks; j++)
            fprintf(stderr, "%s %s", j ? "," : "", d->ds.targets.tasks[j]);
        fputc('\n', stderr);
    }
    number_like_notes(&p->featurizer);
    unmatched_exclusion_notes(o, d);
    if (!fc->degree && p->featurizer.degree) {
        const int pe = p->featurizer.lap_pe_k || p->featurizer.rw_pe_k;
        if (!fc->lap_pe_k && p->featurizer.lap_pe_k)
            /* the degree alone cannot tell apart communities of like-degree vertices (LastFM Asia:
             * validation accuracy 0.695, docs/cli.md) */
            fprintf(stderr, "attn-graph: note: the graph has no usable vertex attribute: the features are the degree%s, "
                    "standardised, and %lld Laplacian eigenvector column%s, which say where a vertex sits (as --degree "
                    "--normalize standard --lap-pe %lld; --lap-pe 0 for none)\n",
                    p->featurizer.directed ? " (in and out: the graph is directed)" : "",
                    (long long)p->featurizer.lap_pe_k, p->featurizer.lap_pe_k == 1 ? "" : "s",
                    (long long)p->featurizer.lap_pe_k);
        else
            fprintf(stderr, "attn-graph: note: the %s no usable vertex attribute: the degree is %s, standardised (as "
                    "--degree --normalize standard)\n", d->graph_level ? "graphs have" : "graph has",
                    pe ? "a feature beside the positional columns" : "the feature");
    }
}

/* Ctrl-C during training: the library ends the run when the epoch under way ends, with the best
 * weights so far, and train writes and scores them as usual. SA_RESETHAND makes a second Ctrl-C
 * the default one, which ends the process at once. */
static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t progress_line; /* a progress line may be open: the message starts a new one */

static void on_sigint(int sig) {
    (void)sig;
    static const char msg[] = "\nattn-graph: interrupted: training stops when this epoch ends, and what it has "
                              "learnt is kept (Ctrl-C again to quit at once)\n";
    interrupted = 1;
    const size_t skip = progress_line ? 0 : 1;
    ssize_t w = write(STDERR_FILENO, msg + skip, sizeof msg - 1 - skip);
    (void)w;
}

/* Puts on_sigint in place (once per Ctrl-C: SA_RESETHAND), the handler before it into *old;
 * returns 1 when installed (to be put back with sigaction(SIGINT, old, NULL)), 0 when already
 * interrupted or refused. */
static int sigint_install(struct sigaction *old, int quiet) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    progress_line = !quiet;
    return !interrupted && sigaction(SIGINT, &sa, old) == 0;
}

/* One training on the fold d->fold of the loaded data, its test scores in *sc; *task_out is the
 * task trained. Prints the progress and errors, not the scores (nor, unless first_run, the notes
 * about the data that every fold of a cross-validation would repeat); returns the exit code. */
/* ts, when not NULL, gets each task's test figures (a multi-task or regression model's, more than
 * one task); it is left empty otherwise. */
static int train_one(const train_job_t *job, const cli_data_opts_t *o, const cli_data_t *d, ag_scores_t *sc,
                     cli_task_scores_t *ts, ag_task_t *task_out, int first_run) {
    train_opts_t t = job->t;
    ag_task_t task = job->task;
    const int task_given = job->task_given;
    ag_train_config_t tc = job->tc;
    int64_t K = job->K; /* then the members trained, fewer when Ctrl-C ended the run */
    const int64_t n_members = job->K;
    const char *resume = job->resume, *args = job->args, *cwd = job->cwd;
    ag_featurizer_config_t fc = job->fc; /* the preset's featurisation added for graph tasks */
    const char *exclude[CLI_MAX_LIST + 1];  /* fc's exclusions and a node table's join key */
    int code = AG_EXIT_OK;
    ag_prepared_t p;
    int edges_unread = 0; /* featurised without edge attributes, which could not be featurised */
    memset(&p, 0, sizeof p);
    ag_model_t **members = NULL; /* (K) the models, one for a single model; all freed at the end */
    ag_model_t *model = NULL;    /* the member being set up or trained, then members[0] */
    FILE *log = NULL;
    ag_error_t rc = AG_SUCCESS;
    progress_t pr;
    memset(&pr, 0, sizeof pr);
    ckpt_ctx_t ck;
    memset(&ck, 0, sizeof ck);
    ag_train_state_t state;
    memset(&state, 0, sizeof state);
    int have_state = 0;
    int graph_note = 0; /* the graph preset was chosen here: said once the options are known to be valid */
    if (d->graph_level) {
        if (!task_given) task = ag_task_infer(&d->ds.targets);
        if (!ag_task_is_graph_level(task)) {
            fprintf(stderr, "attn-graph: train: --task %s needs a GRAPH argument, not --labels\n", ag_task_name(task));
            code = AG_EXIT_USAGE;
            goto done;
        }
        /* the graph preset featurises too, so it is resolved before featurising */
        if (!t.net.preset) t.net.preset = ag_net_train_options_preset(&t.net, task, NULL, NULL, 0, NULL);
        ag_net_train_options_t given = t.net;
        given.normalize = o->normalize;
        given.rw_pe = o->rw_pe;
        ag_net_train_options_feature_defaults(&given, task, t.net.preset, &fc);
        if (!strcmp(t.net.preset, "graph")) {
            /* the preset's training defaults too, under the options given */
            if ((rc = ag_net_train_options_train_config(&t.net, task, &tc)) != AG_SUCCESS) {
                code = option_error(rc);
                goto done;
            }
            graph_note = !job->t.net.preset && !t.quiet && first_run;
        }
        if (d->fold.n_train == 0) {
            /* before featurising: the featuriser is fitted on the training graphs */
            fprintf(stderr, "attn-graph: train: the split's training part is empty\n");
            code = AG_EXIT_INPUT;
            goto done;
        }
        rc = prepare(&p, o, d, task, &fc);
    } else {
        if (task_given && ag_task_is_graph_level(task)) {
            fprintf(stderr, "attn-graph: train: a GRAPH argument trains node-classification or node-regression, "
                    "not %s\n", ag_task_name(task));
            code = AG_EXIT_USAGE;
            goto done;
        }
        if (!task_given) task = cli_node_task_infer(&d->graph, o->label_attr);
        ag_net_train_options_t given = t.net;
        given.normalize = o->normalize;
        given.lap_pe = o->lap_pe;
        given.rw_pe = o->rw_pe;
        ag_net_train_options_feature_defaults(&given, task, NULL, &fc);
        /* a node table that held the labels alone (an edge list beside a table of classes, as
         * LastFM Asia's raw files) gives no feature: the graph is as featureless as without it */
        if (d->have_table && d->table.features.cols == 0 && !o->vertex_attrs) fc.degree_if_featureless = 1;
        /* the attribute the table's ids matched is a key, as 'id' is, not a feature: an NCOL or
         * LGL graph's vertex names were one-hot columns, one per vertex, beside the table's */
        const char *key = d->have_table ? cli_table_key(&d->graph, o->table_id_attr) : NULL;
        if (key && strcmp(key, "id") != 0 && !strpbrk(key, "*?[\\") && fc.n_exclude_more < CLI_MAX_LIST) {
            for (int64_t i = 0; i < fc.n_exclude_more; i++) exclude[i] = fc.exclude_more[i];
            exclude[fc.n_exclude_more++] = key;
            fc.exclude_more = exclude;
        }
        rc = prepare(&p, o, d, task, &fc);
        if (rc != AG_SUCCESS && rc != AG_ENOMEM && fc.edge_select != AG_SELECT_NONE) {
            /* an edge attribute the model never reads (the gat preset has no edge term) must not
             * stop the run (a NaN on one edge did): featurised without edge attributes, the run
             * goes on when the model these options build reads none; else the error stands */
            ag_featurizer_config_t no_edges = fc;
            no_edges.edge_select = AG_SELECT_NONE;
            no_edges.n_edge_attrs = 0;
            if (prepare(&p, o, d, task, &no_edges) == AG_SUCCESS) {
                ag_net_train_options_t n = t.net;
                if (!n.preset)
                    n.preset = ag_net_train_options_preset(&n, task, &p, d->fold.train, d->fold.n_train, NULL);
                if (!ag_net_train_options_uses_edges(&n, task)) {
                    rc = AG_SUCCESS;
                    edges_unread = 1;
                } else {
                    ag_prepared_destroy(&p);
                }
            }
            if (rc != AG_SUCCESS) rc = prepare(&p, o, d, task, &fc); /* its own message again */
        }
    }
    if (rc) {
        code = prepare_error(o, d, rc);
        goto done;
    }
    if (d->fold.n_train == 0) {
        fprintf(stderr, "attn-graph: train: the split's training part is empty\n");
        code = AG_EXIT_INPUT;
        goto done;
    }
    if ((code = cli_smooth_check(CMD, &t.smooth, task)) != AG_EXIT_OK) goto done;
    if (task == AG_TASK_NODE_CLASSIFICATION || task == AG_TASK_GRAPH_CLASSIFICATION)
        warn_missing_classes(&p, d->fold.train, d->fold.n_train, d->graph_level,
                             d->split_drawn && !d->split_stratified);
    if (task == AG_TASK_NODE_REGRESSION || task == AG_TASK_GRAPH_REGRESSION)
        warn_constant_targets(&p, d->fold.train, d->fold.n_train, d->graph_level);
    if (!d->graph_level) warn_constant_features(&p, o->vertex_attrs != NULL);
    if (t.smooth.automatic && d->fold.n_val == 0) {
        fprintf(stderr, "attn-graph: train: --smooth auto chooses the weights on the validation part, and the split "
                "has none; give the weights\n");
        code = AG_EXIT_USAGE;
        goto done;
    }
    ag_model_config_t mc;
    int64_t F = p.set.examples[0].X.cols, Fe = p.featurizer.n_edge_features;
    if (!t.net.preset) {
        ag_preset_reason_t why;
        t.net.preset = ag_net_train_options_preset(&t.net, task, &p, d->fold.train, d->fold.n_train, &why);
        /* each fold of a cross-validation chooses on its own training labels (the run --fold K
         * makes): a fold whose choice differs from the first fold's says so, as the first did */
        static const char *first_preset;
        if (first_run) first_preset = t.net.preset;
        const int say = !t.quiet && (first_run || strcmp(first_preset, t.net.preset) != 0);
        if (why == AG_PRESET_HETEROPHILY && say) {
            double h;
            int64_t m;
            ag_prepared_homophily(&p, d->fold.train, d->fold.n_train, &h, &m);
            fprintf(stderr, "attn-graph: note: node classification on features from the data, but the edges between "
                    "training vertices join their classes no more often than chance (adjusted homophily %.3f over %lld "
                    "edges): the transformer, which keeps each vertex's own features apart from its neighbours' (the "
                    "gat preset averages them; --preset gat to take it)\n", h, (long long)m);
        }
        if (why == AG_PRESET_RAW_VALUES && say)
            fprintf(stderr, "attn-graph: note: node classification on features from the data with raw values "
                    "(beyond [-1, 1]): the transformer, whose blocks normalise (the gat preset has no normalisation "
                    "layer; --preset gat to take it)\n");
        if (!strcmp(t.net.preset, "gat")) {
            /* the preset's training defaults too, under the options given */
            if ((rc = ag_net_train_options_train_config(&t.net, task, &tc)) != AG_SUCCESS) {
                code = option_error(rc);
                goto done;
            }
            if (say)
                fprintf(stderr, "attn-graph: note: node classification on features from the data, within [-1, 1]: the "
                        "gat preset (the GAT paper's model; --preset transformer for the graph transformer)\n");
        }
    }
    if (t.net.preset && !strcmp(t.net.preset, "gat") && ag_task_is_graph_level(task)) {
        fprintf(stderr, "attn-graph: %s: --preset gat is the node-classification model of the GAT paper; use "
                "--score gat for graph tasks\n", CMD);
        code = AG_EXIT_USAGE;
        goto done;
    }
    if ((Fe > 0 || edges_unread) && !ag_net_train_options_uses_edges(&t.net, task)) {
        /* a model without an edge term: featurised again without edge attributes (unless that is
         * how it was featurised already), so that its file does not ask prediction for attributes
         * it never reads */
        if (Fe > 0) {
            ag_featurizer_config_t no_edges = fc;
            no_edges.edge_select = AG_SELECT_NONE;
            no_edges.n_edge_attrs = 0;
            ag_prepared_destroy(&p);
            if ((rc = prepare(&p, o, d, task, &no_edges)) != AG_SUCCESS) {
                code = prepare_error(o, d, rc);
                goto done;
            }
        }
        if (!t.quiet && first_run)
            fprintf(stderr, "attn-graph: note: the model has no edge term (%s): the edge attributes are not used\n",
                    !strcmp(t.net.preset, "gat") && !t.net.edge_mode ? "the gat preset" : "--edge-mode none");
        F = p.set.examples[0].X.cols; /* the same vertex columns */
        Fe = 0;
    }
    /* before the notes below: a usage error is not preceded by notes about the data */
    if ((rc = ag_net_train_options_model_config(&t.net, task, F, Fe, p.n_out, &mc)) != AG_SUCCESS) {
        code = option_error(rc);
        goto done;
    }
    const int auto_norm = !o->normalize || !strcmp(o->normalize, "auto");
    char cols[512];
    if (!d->graph_level && auto_norm && !t.quiet && first_run && standardised_columns(&p, d, cols, sizeof cols))
        /* whatever the preset (after the edge columns a model without an edge term drops): the user
         * should know the model reads z-scores of these columns */
        fprintf(stderr, "attn-graph: note: columns with raw values (beyond [-1, 1]) standardised: %s (--normalize "
                "auto, the default for node tasks; --normalize none keeps them as they are)\n", cols);
    if (Fe == 0 && t.net.edge_mode && strcmp(t.net.edge_mode, "none") != 0 && !t.quiet && first_run)
        fprintf(stderr, "attn-graph: note: --edge-mode %s has nothing to read: the %s no usable edge attribute%s\n",
                t.net.edge_mode, d->graph_level ? "graphs have" : "graph has",
                fc.edge_select == AG_SELECT_NONE ? " (--edge-attrs none)" : "");
    if (!t.quiet && first_run) data_notes(o, d, &p, &fc, &job->uncommon);
    if (!t.quiet && first_run && task == AG_TASK_NODE_CLASSIFICATION)
        for (int64_t c = 0; c < p.n_out; c++)
            if (!strcmp(p.names[c], "-1")) /* PyG's mark of an unlabelled vertex, a class here */
                fprintf(stderr, "attn-graph: note: the label attribute's value -1 is a class here; a vertex without "
                        "a label has none (NaN, an empty string, or no value)\n");
    if (!t.quiet && first_run && !task_given && !o->tu && p.n_out > 2 &&
        (task == AG_TASK_GRAPH_CLASSIFICATION || task == AG_TASK_NODE_CLASSIFICATION)) {
        /* A small count (a diameter of 2..10; a vertex's triangles, up to 100 values) is taken as
         * classes by the documented rule: say so, since a user may have meant a number to predict.
         * Node labels are classes far more often (Cora's 0..6, LastFM Asia's 0..17: codes 0..K-1, as
         * PyG numbers them), so there the note is for values with gaps between them, which class
         * codes do not leave and counts do (a 36-class "classifier" of triangle counts 0..113,
         * 7 of them absent from training, scored 0.29 with no word of why). */
        int numeric = 1, gaps = 0;
        double prev = 0;
        for (int64_t c = 0; c < p.n_out && numeric; c++) {
            char *end;
            const double v = strtod(p.names[c], &end);
            numeric = end != p.names[c] && *end == '\0';
            if (c > 0 && v != prev + 1) gaps = 1; /* names are sorted numerically */
            prev = v;
        }
        if (numeric && task == AG_TASK_GRAPH_CLASSIFICATION)
            fprintf(stderr, "attn-graph: note: the target's %lld integer values (%s to %s) are taken as classes; "
                    "--task graph-regression to predict it as a number\n", (long long)p.n_out, p.names[0],
                    p.names[p.n_out - 1]);
        else if (numeric && gaps)
            fprintf(stderr, "attn-graph: note: --label-attr %s holds %lld distinct integers (%s to %s, not "
                    "consecutive as class codes are), taken as classes; --task node-regression to predict it as a "
                    "number\n", o->label_attr, (long long)p.n_out, p.names[0], p.names[p.n_out - 1]);
    }
    int64_t val_n = d->fold.n_val; /* the validation rows early stopping reads: none when none is labelled */
    {
        if (ag_metric_check(tc.metric, task, p.set.n_classes) != AG_SUCCESS) {
            fprintf(stderr, "attn-graph: %s: --metric: %s\n", CMD, ag_error_message());
            code = AG_EXIT_USAGE;
            goto done;
        }
        const int64_t n_val = ag_trainset_count_labelled(&p.set, d->fold.val, d->fold.n_val);
        const char *rows = d->graph_level ? "graph" : "vertex";
        ag_metric_t m = ag_metric_for_validation(tc.metric, task, n_val);
        if (m != tc.metric && !t.quiet && first_run)
            fprintf(stderr, "attn-graph: note: the validation part has %lld labelled %s (under %d): early "
                    "stopping watches its loss, which keeps improving after its %s stops moving (--metric "
                    "%s to watch that)\n", (long long)n_val, n_val == 1 ? rows : d->graph_level ? "graphs" : "vertices",
                    AG_SMALL_VALIDATION, task == AG_TASK_GRAPH_MULTITASK ? "ROC-AUC" : "accuracy",
                    task == AG_TASK_GRAPH_MULTITASK ? "roc_auc" : "accuracy");
        if (val_n > 0 && n_val == 0) {
            /* said even under --quiet: the run is not what the split promised */
            if (first_run)
                ag_cli_warning("no %s of the validation part has a label: it cannot choose an "
                               "epoch; the last epoch is kept", rows);
            val_n = 0;
        } else if (val_n > 0 && !ag_metric_scorable(m, &p.set, d->fold.val, d->fold.n_val)) {
            /* a metric that is NaN on every epoch would keep the untrained weights of epoch 0 */
            if (first_run)
                ag_cli_warning("the validation part's %lld labelled %s%s one class only%s: "
                               "its %s is undefined, so early stopping watches its loss", (long long)n_val,
                               d->graph_level ? (n_val == 1 ? "graph" : "graphs")
                                              : (n_val == 1 ? "vertex" : "vertices"),
                               n_val == 1 ? " has" : " have", task == AG_TASK_GRAPH_MULTITASK ? " in every task" : "",
                               ag_metric_name(ag_metric_for_task(m, task)));
            m = AG_METRIC_LOSS;
        }
        tc.metric = m;
    }
    if (graph_note)
        fprintf(stderr, "attn-graph: note: a graph task: the graph preset under the options given (its defaults: 4 "
                "blocks of 8 GATv2 heads, a graph token as readout, edge features as score biases, clipping at 1, a "
                "cosine schedule, standardised columns, 8 random-walk columns; --preset transformer for the plain "
                "transformer)\n");
    code = cli_check_memory(CMD, t.max_memory, &mc, &p.set, tc.batch_size, 1, K);
    if (code != AG_EXIT_OK) goto done;
    if (!(members = calloc((size_t)K, sizeof *members))) {
        fprintf(stderr, "attn-graph: train: out of memory\n");
        code = AG_EXIT_FAILURE;
        goto done;
    }
    if ((rc = ag_model_create(&members[0], &mc)) != AG_SUCCESS) {
        code = ag_cli_fail(rc);
        goto done;
    }
    model = members[0];
    data_fingerprint(&p.set, &d->fold, ck.data_crc, sizeof ck.data_crc);
    if (resume) {
        ag_metadata_t meta;
        ag_metadata_init(&meta);
        rc = ag_train_state_load(resume, model, &state, &meta);
        have_state = rc == AG_SUCCESS;
        const char *crc = ag_metadata_get(&meta, "data_crc"), *hist = ag_metadata_get(&meta, "history");
        if (rc) {
            code = rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_MODEL;
            fprintf(stderr, "attn-graph: %s\n", ag_error_message());
            if (rc == AG_EMISMATCH && d->graph_level && !job->t.net.preset)
                fprintf(stderr, "attn-graph: note: graph tasks have trained the graph preset by default since "
                        "2026-12-03; a run checkpointed before then without --preset trained the transformer: "
                        "start it again with --preset transformer\n");
            else if (rc == AG_EMISMATCH && !d->graph_level && !fc.lap_pe_k && p.featurizer.lap_pe_k)
                fprintf(stderr, "attn-graph: note: node tasks on a graph with no usable vertex attribute have had "
                        "Laplacian columns beside the degree by default since 2026-12-06; a run checkpointed before "
                        "then had the degree alone: start it again from its command (info %s shows it) with --lap-pe "
                        "0 added\n", resume);
            else if (rc == AG_EMISMATCH && task == AG_TASK_NODE_CLASSIFICATION && !job->t.net.preset && t.net.preset &&
                     (!strcmp(t.net.preset, "gat") || !strcmp(t.net.preset, "transformer"))) {
                const char *other = !strcmp(t.net.preset, "gat") ? "transformer" : "gat";
                fprintf(stderr, "attn-graph: note: node classification's default preset has read the training labels' "
                        "homophily since 2026-12-06 (docs/cli.md), and chose %s here; a run checkpointed before then "
                        "may have trained %s: start it again with --preset %s\n", t.net.preset, other, other);
            }
        } else if (!crc || strcmp(crc, ck.data_crc) != 0) {
            fprintf(stderr, "attn-graph: %s: the data (graphs, features, targets or split) differ from those the "
                    "checkpoint was made with; it cannot be continued on them\n", resume);
            code = AG_EXIT_MODEL;
        } else if (!hist || cli_history_from_text(&pr.history, hist) < 0 || pr.history.n != state.epoch) {
            fprintf(stderr, "attn-graph: %s: the checkpoint's epoch history is missing or malformed\n", resume);
            code = AG_EXIT_MODEL;
        }
        ag_metadata_destroy(&meta);
        if (code != AG_EXIT_OK) goto done;
    }
    if (t.log && !(log = fopen(t.log, "w"))) {
        fprintf(stderr, "attn-graph: train: cannot write %s\n", t.log);
        code = AG_EXIT_FAILURE;
        goto done;
    }

    if (log) {
        /* a resumed run's log starts over with the epochs before the checkpoint: no line is lost or
         * repeated, whatever happened after the checkpoint */
        fprintf(log, "%sepoch,loss,train_metric,val_metric,seconds,lr\n", t.ensemble > 1 ? "member," : "");
        for (int64_t i = 0; i < pr.history.n; i++) log_line(log, &pr.history.items[i], 0);
        fflush(log);
    }
    pr.log = log;
    pr.quiet = t.quiet;
    ag_net_train_options_sign_flip(&t.net, task, &p.featurizer, &tc);
    tc.progress = on_epoch;
    tc.progress_user = &pr;
    if (t.checkpoint) {
        ck.path = t.checkpoint;
        ck.args = args;
        ck.cwd = cwd;
        ck.progress = &pr;
        tc.checkpoint = on_checkpoint;
        tc.checkpoint_user = &ck;
        tc.checkpoint_every = t.checkpoint_every > 0 ? t.checkpoint_every : 1;
    }
    if (!t.quiet) {
        /* a part may hold unlabelled vertices or graphs, which no score counts: say how many are not */
        char parts[3][48];
        const int64_t *idx[3] = {d->fold.train, d->fold.val, d->fold.test};
        const int64_t n_idx[3] = {d->fold.n_train, d->fold.n_val, d->fold.n_test};
        for (int k = 0; k < 3; k++) {
            int64_t labelled = ag_trainset_count_labelled(&p.set, idx[k], n_idx[k]);
            if (labelled == n_idx[k]) snprintf(parts[k], sizeof parts[k], "%lld", (long long)n_idx[k]);
            else snprintf(parts[k], sizeof parts[k], "%lld (%lld labelled)", (long long)n_idx[k], (long long)labelled);
        }
        /* the random split divides the labelled items only: the count of the others says why the
         * parts do not add up to the graph or the dataset */
        char unsplit[96] = "";
        if (d->n_unsplit > 0)
            snprintf(unsplit, sizeof unsplit, "; %lld unlabelled %s in no part", (long long)d->n_unsplit,
                     d->graph_level ? (d->n_unsplit == 1 ? "graph" : "graphs")
                                    : (d->n_unsplit == 1 ? "vertex" : "vertices"));
        fprintf(stderr,
                "attn-graph: %s, %lld %s, %lld feature%s%s, %lld output%s, %lld parameters; train %s, val %s, test %s%s\n",
                ag_task_name(task), (long long)(d->graph_level ? d->ds.n_graphs : p.set.n_rows),
                d->graph_level ? "graphs" : "nodes", (long long)F, F == 1 ? "" : "s", Fe > 0 ? " (+ edge features)" : "",
                (long long)p.n_out, p.n_out == 1 ? "" : "s", (long long)ag_param_list_size(ag_model_params(model)),
                parts[0], parts[1], parts[2], unsplit);
    }
    if (resume && t.checkpoint) {
        /* temporary files of checkpoints a killed run was writing: never complete, never read */
        size_t n = strlen(t.checkpoint) + 8;
        char *pattern = malloc(n);
        glob_t g;
        if (pattern) {
            snprintf(pattern, n, "%s.tmp.*", t.checkpoint);
            if (glob(pattern, 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++) unlink(g.gl_pathv[i]);
                globfree(&g);
            }
            free(pattern);
        }
    }
    if (resume && !t.quiet)
        fprintf(stderr, "attn-graph: resuming %s after epoch %lld/%lld\n", resume, (long long)state.epoch,
                (long long)tc.epochs);
    /* member m of an ensemble is the model `--seed S+m` alone would train on the same split */
    const uint64_t seed0 = mc.seed;
    struct sigaction old_sa;
    const int handler = sigint_install(&old_sa, t.quiet);
    tc.stop = &interrupted;
    int64_t trained = 0;
    for (int64_t m = 0; m < K && !interrupted; m++) {
        if (m > 0) {
            mc.seed = tc.seed = seed0 + (uint64_t)m;
            if ((rc = ag_model_create(&members[m], &mc)) != AG_SUCCESS) {
                code = ag_cli_fail(rc);
                goto done;
            }
        }
        model = members[m];
        if (K > 1) {
            pr.member = m + 1;
            if (!t.quiet)
                fprintf(stderr, "attn-graph: ensemble member %lld/%lld (seed %llu)\n", (long long)(m + 1), (long long)K,
                        (unsigned long long)mc.seed);
        }
        ag_train_result_t res;
        rc = ag_model_train_resume(model, &p.set, d->fold.train, d->fold.n_train, d->fold.val, val_n, &tc,
                             resume ? &state : NULL, &res);
        if (rc) {
            if (handler) sigaction(SIGINT, &old_sa, NULL);
            code = ag_cli_fail(rc);
            if (rc == AG_EFILE) code = AG_EXIT_FAILURE; /* writing a checkpoint is I/O, not bad input */
            goto done;
        }
        if (res.stopped && res.epochs_run == (resume ? state.epoch : 0)) break; /* no epoch of its own */
        trained = m + 1;
        if (res.stopped) {
            /* a warning, so that --json's object says it too: its figures are a stopped run's */
            char *text = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&text, &len);
            if (f) {
                fprintf(f, "interrupted after epoch %lld of %lld: epoch %lld's weights are kept",
                        (long long)res.epochs_run, (long long)tc.epochs, (long long)res.best_epoch);
                if (K > 1) fprintf(f, "; an ensemble of %lld of the %lld members", (long long)trained, (long long)K);
                if (t.checkpoint) {
                    fputs("; --resume ", f);
                    cli_print_shell_word(f, t.checkpoint, strlen(t.checkpoint));
                    fputs(" continues the run", f);
                }
            }
            if (f && fclose(f) == 0 && text) ag_cli_warning("%s", text);
            else ag_cli_warning("interrupted after epoch %lld", (long long)res.epochs_run);
            free(text);
        }
        if (!t.quiet) {
            const ag_metric_t shown = ag_metric_for_task(tc.metric, task);
            char fig[CLI_FIGURE_MAX];
            if (val_n > 0)
                fprintf(stderr, "attn-graph: %lld epoch%s in %.1fs; best epoch %lld (val %s %s)\n",
                        (long long)res.epochs_run, res.epochs_run == 1 ? "" : "s", res.seconds, (long long)res.best_epoch, ag_metric_name(shown),
                        cli_figure(fig, res.best_val_metric));
            else
                fprintf(stderr, "attn-graph: %lld epoch%s in %.1fs; no %svalidation part: the last epoch is kept\n",
                        (long long)res.epochs_run, res.epochs_run == 1 ? "" : "s", res.seconds,
                        d->fold.n_val > 0 ? "labelled " : "");
        }
        if (val_n > 0 && !res.stopped && res.best_epoch == 1 && res.epochs_run > 1) {
            /* a model of one epoch is rarely what was meant: said even under --quiet */
            const char *metric = ag_metric_name(ag_metric_for_task(tc.metric, task));
            const ag_metric_t watched = res.metric;
            /* a small validation part can be scored perfectly at once (ROC-AUC 1 on a few graphs):
             * then no epoch can do better, and the learning rate is not what to change */
            const int perfect = (watched == AG_METRIC_ACCURACY || watched == AG_METRIC_MACRO_F1 ||
                                 watched == AG_METRIC_ROC_AUC) ? res.best_val_metric >= 1.0
                                : (watched == AG_METRIC_RMSE || watched == AG_METRIC_MAE) && res.best_val_metric <= 0.0;
            const char *learn_hint = perfect ? " (its score was already perfect, which no later epoch can beat: "
                                               "choose the epoch by the loss, --metric loss, or give a larger "
                                               "validation part)"
                                             : " (a lower --lr, or features on another scale, may let it learn)";
            if (res.epochs_run < tc.epochs)
                ag_cli_warning("early stopping kept epoch 1's model: no later epoch improved "
                               "the validation %s in the next %lld epoch%s (--patience; 0 trains every epoch)", metric,
                               (long long)tc.patience, tc.patience == 1 ? "" : "s");
            else if (res.epochs_run == 2)
                ag_cli_warning("epoch 1's model is kept: epoch 2 did not improve the validation "
                               "%s%s", metric, learn_hint);
            else
                ag_cli_warning("epoch 1's model is kept: none of the %lld epochs after it "
                               "improved the validation %s%s", (long long)res.epochs_run - 1, metric, learn_hint);
        }
    }
    if (handler) sigaction(SIGINT, &old_sa, NULL);
    if (trained == 0) {
        fprintf(stderr, "attn-graph: interrupted before an epoch ended: nothing to write or score\n");
        code = AG_EXIT_INTERRUPTED;
        goto done;
    }
    K = trained;
    model = members[0];
    double h = NAN;
    int64_t h_edges = 0;
    if (t.smooth.automatic || t.smooth.given)
        ag_prepared_homophily(&p, d->fold.train, d->fold.n_train, &h, &h_edges);
    /* Correct and Smooth spreads classes along edges: where the training labels' edges join
     * classes no more often than chance, it spreads the wrong ones (a QA graph: chosen on 30
     * validation vertices over a model at chance, test accuracy 0.52 fell to 0.37) */
    const int heterophilous = h_edges >= AG_PRESET_HOMOPHILY_EDGES && h < AG_PRESET_HOMOPHILY_MIN;
    if (t.smooth.automatic && heterophilous) {
        t.smooth.given = 0;
        if (!t.quiet)
            fprintf(stderr, "attn-graph: %s: --smooth auto: not smoothed: the edges between training vertices join "
                    "their classes no more often than chance (adjusted homophily %.3f over %lld edges), and Correct "
                    "and Smooth spreads classes along edges\n", CMD, h, (long long)h_edges);
    } else if (t.smooth.automatic) {
        /* chosen before saving: the model file keeps the weights taken (or none) */
        const char *metric = tc.metric == AG_METRIC_MACRO_F1 || tc.metric == AG_METRIC_ROC_AUC
                                     ? ag_metric_name(tc.metric)
                                     : "accuracy";
        code = cli_smooth_choose(CMD, members, K, &p.set, d->fold.train, d->fold.n_train, d->fold.val,
                                 d->fold.n_val, metric, t.quiet, &t.smooth);
        if (code != AG_EXIT_OK) goto done;
    } else if (t.smooth.given && heterophilous) {
        ag_cli_warning("--smooth: the edges between training vertices join their classes no "
                       "more often than chance (adjusted homophily %.3f over %lld edges): Correct and Smooth spreads "
                       "classes along edges and may lower the figures (--smooth auto would leave it out)", h,
                       (long long)h_edges);
    }
    if (t.output) {
        ag_bundle_t b;
        ag_model_t *first = model;
        rc = ag_bundle_init(&b, &first, &p.featurizer, &p.table, (const char *const *)p.names, p.n_out, p.label_attr);
        for (int64_t m = 1; m < K && rc == AG_SUCCESS; m++) {
            ag_model_t *mm = members[m];
            rc = ag_bundle_add_member(&b, &mm);
        }
        if (rc == AG_SUCCESS && d->graph_level && task == AG_TASK_GRAPH_CLASSIFICATION)
            rc = ag_bundle_set_target_column(&b, d->ds.targets.tasks[0]);
        /* label and eval apply them by default: the model's figure was made with them */
        if (rc == AG_SUCCESS && t.smooth.given) rc = ag_bundle_set_smooth(&b, &t.smooth.cfg);
        /* label, explain and eval warn of another graph where the inputs describe this one */
        if (rc == AG_SUCCESS && !d->graph_level) rc = ag_bundle_set_graph(&b, &d->graph);
        /* classify, explain and eval warn of a graph far outside the sizes the model learnt from */
        if (rc == AG_SUCCESS && d->graph_level)
            rc = ag_bundle_set_graph_sizes(&b, d->ds.graphs, d->fold.train, d->fold.n_train);
        if (rc == AG_SUCCESS && d->split_drawn) { /* eval then draws the same parts */
            b.split_random[0] = d->split_fractions[0];
            b.split_random[1] = d->split_fractions[1];
            b.has_split_random = 1;
            b.split_stratified = d->split_stratified;
        }
        /* eval warns when its own parts would overlap the ones this model trained on */
        b.split_source = d->split_drawn ? AG_SPLIT_SOURCE_RANDOM
                         : o->kfold > 0  ? AG_SPLIT_SOURCE_KFOLD
                         : o->folds      ? AG_SPLIT_SOURCE_FOLDS
                         : o->train_nodes ? AG_SPLIT_SOURCE_NODES
                                          : AG_SPLIT_SOURCE_FILE;
        if (rc == AG_SUCCESS) rc = ag_bundle_save(t.output, &b);
        /* the models stay ours for the test scores: the bundle only borrowed what it took */
        for (int64_t m = 0; m < b.n_members; m++) b.members[m] = NULL;
        b.model = NULL;
        ag_bundle_destroy(&b);
        if (rc) {
            code = ag_cli_fail(rc);
            if (rc == AG_EFILE) code = AG_EXIT_FAILURE; /* writing the model is I/O, not bad input */
            goto done;
        }
    }
    if (t.plot) {
        const ag_metric_t shown = ag_metric_for_task(tc.metric, task);
        char why[512];
        if (pr.history_failed || cli_plot_curves(t.plot, &pr.history, ag_metric_name(shown), why, sizeof why) < 0) {
            fprintf(stderr, "attn-graph: train: cannot write the plot %s: %s\n", t.plot,
                    pr.history_failed ? "out of memory" : why);
            code = AG_EXIT_FAILURE;
            goto done;
        }
    }
    const int64_t n_tasks = ag_model_n_tasks(members[0]);
    if (ts && n_tasks > 1 && p.names && cli_task_scores_init(ts, (const char *const *)p.names, n_tasks) < 0) {
        fprintf(stderr, "attn-graph: train: out of memory\n");
        code = AG_EXIT_FAILURE;
        goto done;
    }
    rc = ag_ensemble_evaluate_tasks(members, K, &p.set, d->fold.test, d->fold.n_test, sc, ts ? ts->s : NULL);
    if (rc) {
        code = ag_cli_fail(rc);
        goto done;
    }
    /* the tasks with a ROC-AUC: multi-task, and 2 classes (n_classes is 0 for all but classification);
     * a test part without a label (sc->n 0) holds no class at all, and a note after training says
     * it has nothing to score */
    if (!t.quiet && first_run && sc->n > 0 && isnan(sc->roc_auc) &&
        (task == AG_TASK_GRAPH_MULTITASK || p.set.n_classes == 2) &&
        !ag_metric_scorable(AG_METRIC_ROC_AUC, &p.set, d->fold.test, d->fold.n_test))
        /* a nan beside the other figures reads as a fault of the model */
        fprintf(stderr, "attn-graph: note: the test part's labelled %s one class only%s: its roc_auc is undefined "
                "(nan)\n", d->graph_level ? "graphs hold" : "vertices hold",
                task == AG_TASK_GRAPH_MULTITASK ? " in every task" : "");
    if (t.smooth.given) {
        /* the model's own figure stays in view: smoothing is a choice to check, not a given */
        if (!t.quiet)
            fprintf(stderr, "attn-graph: before smoothing: test accuracy %.4f, macro_f1 %.4f\n", sc->accuracy,
                    sc->macro_f1);
        code = cli_smoothed_scores(members, K, &p.set, d->fold.train, d->fold.n_train, d->fold.test, d->fold.n_test,
                                   &t.smooth.cfg, sc);
        if (code != AG_EXIT_OK) goto done;
    }
    *task_out = task;
done:
    if (log) fclose(log);
    if (have_state) ag_train_state_destroy(&state);
    cli_history_destroy(&pr.history);
    for (int64_t m = 0; members && m < n_members; m++) ag_model_destroy(members[m]);
    free(members);
    ag_prepared_destroy(&p);
    return code;
}

/* --kfold K or --folds FILE without --fold: every fold in turn, each the very run `--fold I` would
 * make (same seed, same models, same test scores), then each test metric's mean and spread. A
 * fold's JSON carries the warnings said while it ran (its training part lacks a class, say);
 * warned, the run's list, then holds those said before the folds (the data's), for the summary. */
static int train_cv(const train_job_t *job, const cli_data_opts_t *o, cli_data_t *d,
                    const ag_cli_warnings_t *warned) {
    const train_opts_t *t = &job->t;
    const int64_t n = d->split.n_folds;
    /* a fold with nothing to score would print NaN figures and leave the mean without them */
    for (int64_t f = 0; f < n; f++)
        if (d->split.folds[f].n_test == 0) {
            fprintf(stderr, "attn-graph: train: %s: fold %lld has an empty test part: cross-validation scores each "
                    "fold on its test part (--fold %lld trains that fold alone)\n", o->folds ? o->folds : "--kfold",
                    (long long)f, (long long)f);
            return AG_EXIT_INPUT;
        }
    ag_scores_t *all = malloc(sizeof *all * (size_t)n); /* (folds) test scores */
    if (!all) {
        fprintf(stderr, "attn-graph: train: out of memory\n");
        return AG_EXIT_FAILURE;
    }
    ag_task_t task = job->task;
    int code = AG_EXIT_OK;
    /* Ctrl-C between two folds (while the next prepares) stops as one within a fold does: each
     * fold's training installs the handler again over this one and puts this one back */
    struct sigaction old_sa;
    const int handler = sigint_install(&old_sa, t->quiet);
    /* the data are loaded once: each fold only prepares (its own normalisation statistics) and trains */
    int64_t f = 0;
    for (; f < n && code == AG_EXIT_OK && !interrupted; f++) {
        d->fold = d->split.folds[f];
        /* numbered from 0 as the stdout lines and --fold are, with the count beside it */
        if (!t->quiet) fprintf(stderr, "attn-graph: fold %lld (%lld of %lld)\n", (long long)f, (long long)f + 1, (long long)n);
        cli_task_scores_t ts; /* each task's figures on this fold's test part (several tasks) */
        memset(&ts, 0, sizeof ts);
        ag_cli_warnings_t fold_warned;
        ag_cli_warnings_t *was = ag_cli_warnings_start(&fold_warned);
        code = train_one(job, o, d, &all[f], &ts, &task, f == 0);
        ag_cli_warnings_collect(was);
        if (code == AG_EXIT_OK && all[f].n == 0 && !interrupted) {
            /* items, none labelled (an empty part was refused before training): the fold has no
             * figure for the mean, which would be taken over the others without a word */
            fprintf(stderr, "attn-graph: train: %s: fold %lld's test part has %lld %s, none labelled: "
                    "cross-validation scores each fold on its test part\n", o->folds ? o->folds : "--kfold",
                    (long long)f, (long long)d->fold.n_test, d->graph_level ? "graphs" : "vertices");
            code = AG_EXIT_INPUT;
        }
        if (code == AG_EXIT_OK) cli_print_fold_scores(stdout, f, task, &all[f], &ts, t->json, &fold_warned);
        cli_task_scores_destroy(&ts);
        ag_cli_warnings_clear(&fold_warned);
    }
    if (handler) sigaction(SIGINT, &old_sa, NULL);
    if (code == AG_EXIT_OK && interrupted)
        /* a mean over the folds that ran would read as the cross-validation's figure */
        fprintf(stderr, "attn-graph: interrupted: %lld of %lld folds ran (the last one cut short); no summary\n",
                (long long)f, (long long)n);
    else if (code == AG_EXIT_OK)
        cli_print_cv_summary(stdout, task, all, n, t->json, warned);
    free(all);
    return code;
}

/* The run itself; `resume` is the checkpoint to continue (absolute path) or NULL; `args` is the
 * command line to store in checkpoints and `cwd` the directory it runs in; warned collects every
 * warning said, for --json's object (as eval's). */
static int train_collected(int argc, char **argv, const char *resume, const char *args, const char *cwd,
                           const ag_cli_warnings_t *warned) {
    cli_data_opts_t o;
    cli_data_opts_init(&o);
    train_opts_t t;
    memset(&t, 0, sizeof t);
    ag_net_train_options_init(&t.net);
    cli_smooth_init(&t.smooth);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            train_usage(stdout);
            return AG_EXIT_OK;
        }
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (o.graph) {
                fprintf(stderr, "attn-graph: train: more than one GRAPH argument ('%s', '%s')\n", o.graph, a);
                return AG_EXIT_USAGE;
            }
            o.graph = a;
            continue;
        }
        int r = cli_data_option(&o, CMD, argc, argv, &i, 1);
        if (r == 0) r = train_option(&t, argc, argv, &i);
        if (r < 0) return AG_EXIT_USAGE;
        if (r == 0) {
            fprintf(stderr, "attn-graph: train: unknown option '%s' (see 'attn-graph train --help')\n", a);
            return AG_EXIT_USAGE;
        }
    }
    if (t.ensemble > 1 && (t.checkpoint || t.plot)) {
        /* a checkpoint holds one run's state and a plot one run's curves */
        fprintf(stderr, "attn-graph: train: --ensemble cannot be combined with %s; train a member alone with its "
                "--seed for that (on a split file: --split-random draws its parts with --seed too)\n",
                t.checkpoint ? "--checkpoint" : "--plot");
        return AG_EXIT_USAGE;
    }
    if (t.plot && !cli_ends_with_ci(t.plot, ".svg")) {
        /* as explain --svg: a viewer would not open p.png holding SVG */
        fprintf(stderr, "attn-graph: train: --plot %s: give a .svg file (the plot is SVG)\n", t.plot);
        return AG_EXIT_USAGE;
    }
    if (t.smooth.correct_given && !t.smooth.given) return cli_smooth_check(CMD, &t.smooth, AG_TASK_NODE_CLASSIFICATION);
    const int64_t K = t.ensemble > 1 ? t.ensemble : 1; /* models trained: member m with seed S+m */
    if (t.checkpoint_every > 0 && !t.checkpoint) {
        fprintf(stderr, "attn-graph: train: --checkpoint-every needs --checkpoint FILE\n");
        return AG_EXIT_USAGE;
    }
    /* Validate enumerations before any loading. */
    ag_task_t task = AG_TASK_GRAPH_CLASSIFICATION;
    int task_given = 0;
    if (o.task) {
        if (ag_task_from_name(o.task, &task)) {
            fprintf(stderr, "attn-graph: train: --task: %s\n", ag_error_message());
            return AG_EXIT_USAGE;
        }
        task_given = 1;
    }
    t.net.seed = o.seed;
    ag_train_config_t tc;
    const ag_error_t rc = ag_net_train_options_train_config(&t.net, task, &tc);
    if (rc != AG_SUCCESS) return option_error(rc);
    if (t.threads > 0) ag_threads_set((int)t.threads);

    train_job_t job = {t, task, task_given, tc, K, resume, args, cwd, {0}, {{0}, {0}}};
    feat_lists_t fl;
    memset(&fl, 0, sizeof fl);
    cli_data_t d;
    memset(&d, 0, sizeof d);
    int code = feature_config(&o, &job.fc, &fl);
    const int cv = (o.kfold > 0 || o.folds) && o.fold < 0;
    if (cv) o.fold = 0; /* the split is read as for fold 0; train_cv then takes each fold of it */
    const char *const files[4] = {t.output, t.checkpoint, t.plot, t.log};
    static const char *const file_options[4] = {"--output", "--checkpoint", "--plot", "--log"};
    for (int k = 0; k < 4 && code == AG_EXIT_OK; k++)
        if (files[k] && cv) {
            fprintf(stderr, "attn-graph: train: %s is for one run, and without --fold every fold is trained; add "
                    "--fold I to train fold I alone with it\n", file_options[k]);
            code = AG_EXIT_USAGE;
        }
    const char *const inputs[5] = {o.graph, o.labels, o.node_table, o.split, o.folds};
    static const char *const input_names[5] = {"the graph read", "--labels", "--node-table", "--split", "--folds"};
    /* before loading and training: a run is not lost to a mistyped path */
    if (code == AG_EXIT_OK) code = cli_check_outputs(CMD, files, file_options, 4, inputs, input_names, 5);
    if (code == AG_EXIT_OK) code = cli_data_load(&d, &o, CMD, NULL, 0, AG_TASK_AUTO);
    if (code == AG_EXIT_OK && o.labels && !d.ds.named_by_id)
        /* `--checkpoint molecules/0001.gml` overwrote a molecule of the dataset */
        code = cli_check_outputs_graphs(CMD, files, file_options, 4, o.labels, d.ds.files, d.ds.n_graphs);
    if (code == AG_EXIT_OK && d.graph_level &&
        (uncommon_attrs_find(&d, &job.fc, &job.uncommon) < 0 || exclude_uncommon(&job.fc, &job.uncommon, &fl) < 0)) {
        fprintf(stderr, "attn-graph: train: out of memory\n");
        code = AG_EXIT_FAILURE;
    }
    if (code == AG_EXIT_OK && cv) {
        o.fold = -1;
        code = train_cv(&job, &o, &d, warned);
    } else if (code == AG_EXIT_OK) {
        ag_scores_t sc;
        cli_task_scores_t ts;
        memset(&ts, 0, sizeof ts);
        code = train_one(&job, &o, &d, &sc, &ts, &task, 1);
        /* --json always prints its object (n 0, every metric null, when nothing was scored): a
         * script reading stdout gets a line to parse in every run (esol.sh's cross-validation has
         * no test part) */
        if (code == AG_EXIT_OK && (sc.n > 0 || t.json))
            cli_print_task_scores(stdout, "test", task, &sc, &ts, t.json, warned);
        if (code == AG_EXIT_OK && sc.n > 0 && sc.n < 10 && !t.quiet && !t.json)
            /* "accuracy 1.0000 (n 1)" reads as a result; say how little it weighs */
            fprintf(stderr, "attn-graph: note: the test figures are over %lld labelled value%s only: too few to tell "
                    "one model from another; a larger test part (--split-random A,B leaves 1-A-B to it, or a --split "
                    "file) gives steadier ones\n", (long long)sc.n, sc.n == 1 ? "" : "s");
        if (code == AG_EXIT_OK && sc.n == 0 && !t.quiet && !t.json) {
            /* a model trained on everything (to ship it, say) is no error; a line of NaN scores would
             * read as one, so say why there is no test line instead */
            if (d.fold.n_test == 0)
                fprintf(stderr, "attn-graph: note: the split's test part is empty: nothing to score, no test line\n");
            else
                fprintf(stderr, "attn-graph: note: the split's test part has %lld %s, none labelled: nothing to "
                        "score, no test line\n", (long long)d.fold.n_test,
                        d.graph_level ? (d.fold.n_test == 1 ? "graph" : "graphs")
                                      : (d.fold.n_test == 1 ? "vertex" : "vertices"));
        }
        cli_task_scores_destroy(&ts);
    }
    cli_data_destroy(&d);
    for (int i = 0; i < 3; i++) free(fl.buf[i]);
    for (int64_t i = 0; i < fl.n_escaped; i++) free(fl.escaped[i]);
    free(fl.escaped);
    free(fl.xs);
    uncommon_destroy(&job.uncommon);
    return code == AG_EXIT_OK && interrupted ? AG_EXIT_INTERRUPTED : code;
}

static int train_run(int argc, char **argv, const char *resume, const char *args, const char *cwd) {
    ag_cli_warnings_t warned;
    ag_cli_warnings_t *was = ag_cli_warnings_start(&warned);
    const int code = train_collected(argc, argv, resume, args, cwd, &warned);
    ag_cli_warnings_collect(was);
    ag_cli_warnings_clear(&warned);
    return code;
}

/* Options that do not change the result: given afresh with --resume, never stored. */
static int local_option(char **argv, int argc, int i, int *width) {
    static const char *const with_value[] = {"--threads", "--max-memory", "--resume"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(with_value[k]);
        if (!strncmp(argv[i], with_value[k], n) && argv[i][n] == '=') return *width = 1, 1;
        if (!strcmp(argv[i], with_value[k])) return *width = i + 1 < argc ? 2 : 1, 1;
    }
    if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) return *width = 1, 1;
    return 0;
}

int ag_cmd_train(int argc, char **argv) {
    const char *resume = NULL;
    int others = 0;
    size_t args_len = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return train_run(argc, argv, NULL, "", ".");
        const char *v;
        int r = cli_opt(CMD, "--resume", argc, argv, &i, &v);
        if (r < 0) return AG_EXIT_USAGE;
        if (r > 0) {
            resume = v;
            continue;
        }
        int w;
        if (local_option(argv, argc, i, &w)) {
            i += w - 1;
            continue;
        }
        others = 1;
        if (strchr(argv[i], '\n')) {
            fprintf(stderr, "attn-graph: train: an argument holds a newline; it cannot be stored in a checkpoint\n");
            return AG_EXIT_USAGE;
        }
        args_len += strlen(argv[i]) + 1;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
    if (!resume) {
        /* the command line as checkpoints store it: one argument per line, local options left out */
        char *args = malloc(args_len);
        if (!args) return AG_EXIT_FAILURE;
        size_t used = 0;
        args[0] = '\0';
        for (int i = 1; i < argc; i++) {
            int w;
            if (local_option(argv, argc, i, &w)) {
                i += w - 1;
                continue;
            }
            used += (size_t)snprintf(args + used, args_len - used, "%s\n", argv[i]);
        }
        int code = train_run(argc, argv, NULL, args, cwd);
        free(args);
        return code;
    }
    if (others) {
        fprintf(stderr, "attn-graph: train: with --resume give only --threads, --quiet or --max-memory: the rest of "
                "the command line is the one stored in the checkpoint\n");
        return AG_EXIT_USAGE;
    }
    /* the stored command line and directory */
    ag_safetensors_t f;
    ag_error_t rc = ag_safetensors_read(&f, resume, AG_SAFETENSORS_STRICT);
    if (rc) return ag_cli_fail(rc);
    const char *kind = ag_metadata_get(&f.metadata, "kind"), *args = ag_metadata_get(&f.metadata, "cli_args"),
               *dir = ag_metadata_get(&f.metadata, "cli_cwd");
    if (!kind || strcmp(kind, "checkpoint") != 0 || !args || !dir) {
        fprintf(stderr, "attn-graph: %s: not a checkpoint of attn-graph train (resume from the file given to "
                "--checkpoint)\n", resume);
        ag_safetensors_destroy(&f);
        return AG_EXIT_MODEL;
    }
    char abs[PATH_MAX];
    int code = AG_EXIT_OK;
    char *stored = strdup(args), *tokens = strdup(args), *where = strdup(dir);
    int n_local = 0;
    for (int i = 1; i < argc; i++) n_local++;
    int cap = n_local + 2;
    for (const char *c = args; *c; c++) cap += *c == '\n';
    char **nargv = calloc((size_t)cap + 1, sizeof *nargv);
    ag_safetensors_destroy(&f);
    if (!stored || !tokens || !where || !nargv) code = AG_EXIT_FAILURE;
    if (code == AG_EXIT_OK && !realpath(resume, abs)) {
        fprintf(stderr, "attn-graph: %s: cannot resolve the path\n", resume);
        code = AG_EXIT_FAILURE;
    }
    if (code == AG_EXIT_OK && chdir(where) != 0) {
        fprintf(stderr, "attn-graph: %s: the run's directory %s is gone\n", resume, where);
        code = AG_EXIT_INPUT;
    }
    if (code == AG_EXIT_OK) {
        int k = 0;
        nargv[k++] = argv[0];
        for (char *tok = tokens; *tok;) {
            char *nl = strchr(tok, '\n');
            if (!nl) break;
            *nl = '\0';
            nargv[k++] = tok;
            tok = nl + 1;
        }
        for (int i = 1; i < argc; i++) {
            int w = 1;
            if (!local_option(argv, argc, i, &w)) continue;
            if (strncmp(argv[i], "--resume", 8) != 0)
                for (int j = 0; j < w; j++) nargv[k++] = argv[i + j];
            i += w - 1;
        }
        code = train_run(k, nargv, abs, stored, where);
    }
    free(nargv);
    free(tokens);
    free(stored);
    free(where);
    return code;
}
