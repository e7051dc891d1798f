/*
 * fuzz_checkpoint.c: training checkpoints as `attn-graph train --resume` loads them:
 * ag_train_state_load() into a model of a fixed architecture, then ag_model_train_resume() of a fixed
 * training configuration on a fixed tiny training set (8 rings and paths of 3 to 6 nodes, 6 for
 * training and 2 for validation, 4 epochs, batches of 3, patience 2, dropout on).
 *
 * A load that fails must leave the state zeroed, own nothing (no destroy is called, so anything
 * left allocated is a leak) and leave the model's weights untouched, as train.h promises. A state
 * that loads must resume: success, or a refusal of the state (AG_EMODEL: another configuration,
 * another training list, inconsistent counters) or AG_ENOMEM / AG_ELIMIT / AG_EVALUE; an
 * AG_EINVAL stops the fuzzer (the harness's own arguments are valid).
 *
 * The CRC-32 of the tensor data is recomputed and written into the header before loading, as
 * fuzz_bundle does, so that mutated weights, moments and metadata reach the checks behind the
 * checksum.
 *
 * Seeds: with AG_FUZZ_CHECKPOINT_SEEDS=DIR the program first trains the fixed run from scratch and
 * writes the checkpoint of every epoch to DIR/e<epoch>.ckpt (with the same extra metadata keys
 * the program stores), then fuzzes as usual. tests/fuzz/corpus/checkpoint holds those and a few
 * edited ones (docs/robustness.md).
 */
#include <math.h>
#include <string.h>
#include <igraph.h>
#include "attngraph/attngraph.h"
#include "attngraph/safetensors.h"
#include "attngraph/train.h"
#include "fuzz_common.h"

#define G 8
static ag_trainset_t set;
static int64_t train_idx[6] = {0, 1, 2, 3, 4, 5}, val_idx[2] = {6, 7};
static ag_model_config_t mcfg;
static ag_train_config_t tcfg;
static float *initial; /* (P) the weights of a freshly created model */
static int64_t n_initial;

static void make_set(void) {
    ag_trainset_init(&set, AG_TASK_GRAPH_CLASSIFICATION);
    set.n_classes = 2;
    if (ag_trainset_resize(&set, G, G, 1) != AG_SUCCESS) abort();
    for (int g = 0; g < G; g++) {
        int n = 3 + (g / 2) % 4, ring = g % 2;
        igraph_t ig;
        if (igraph_ring(&ig, n, IGRAPH_UNDIRECTED, 0, ring) != IGRAPH_SUCCESS) abort();
        ag_example_t *ex = &set.examples[g];
        if (ag_graph_from_igraph(&ex->graph, &ig) != AG_SUCCESS || ag_fmat_init(&ex->X, n, 2) != AG_SUCCESS) abort();
        for (int v = 0; v < n; v++) {
            ex->X.data[2 * v] = (float)(ex->graph.indptr[v + 1] - ex->graph.indptr[v]);
            ex->X.data[2 * v + 1] = 1.0f;
        }
        set.targets[g] = (float)ring;
        igraph_destroy(&ig);
    }
}

static void make_configs(void) {
    ag_model_config_default(&mcfg, AG_TASK_GRAPH_CLASSIFICATION);
    mcfg.in_dim = 2;
    mcfg.n_out = 2;
    mcfg.hidden = 4;
    mcfg.n_blocks = 1;
    mcfg.blocks[0].attn.heads = 2;
    mcfg.blocks[0].attn.head_dim = 2;
    mcfg.blocks[0].attn.out_dim = 4;
    mcfg.blocks[0].ffn_hidden = 4;
    mcfg.blocks[0].dropout = 0.2f;
    mcfg.blocks[0].attn.attn_dropout = 0.1f;
    mcfg.head_hidden = 4;
    mcfg.seed = 5;
    ag_train_config_default(&tcfg, AG_TASK_GRAPH_CLASSIFICATION);
    tcfg.optim.lr = 0.01f;
    tcfg.lr_schedule = AG_LR_COSINE;
    tcfg.warmup_epochs = 1;
    tcfg.epochs = 4;
    tcfg.batch_size = 3;
    tcfg.patience = 2;
    tcfg.seed = 3;
    tcfg.eval_train = 0;
}

/* The parameters in list order, copied into w (P floats). */
static void copy_weights(const ag_model_t *m, float *w) {
    const ag_param_list_t *pl = ag_model_params(m);
    int64_t k = 0;
    for (int64_t i = 0; i < pl->count; i++) {
        int64_t n = pl->items[i].shape[0] * pl->items[i].shape[1];
        memcpy(w + k, pl->items[i].value, (size_t)n * sizeof(float));
        k += n;
    }
}

static const char *seed_dir;

static ag_error_t save_seed(const ag_model_t *model, const ag_train_state_t *st, void *user) {
    (void)user;
    char path[512];
    snprintf(path, sizeof path, "%s/e%lld.ckpt", seed_dir, (long long)st->epoch);
    ag_metadata_t extra;
    ag_metadata_init(&extra);
    /* the keys `attn-graph train` adds (apps/cli/cmd_train.c) */
    ag_error_t rc = ag_metadata_set(&extra, "cli_args", "--labels\nlabels.csv\n--epochs\n4\n");
    if (rc == AG_SUCCESS) rc = ag_metadata_set(&extra, "cli_cwd", "/tmp");
    if (rc == AG_SUCCESS) rc = ag_metadata_set(&extra, "data_crc", "1234abcd");
    if (rc == AG_SUCCESS) rc = ag_train_state_save(path, model, st, &extra);
    ag_metadata_destroy(&extra);
    return rc;
}

static void write_seeds(void) {
    ag_model_t *m;
    if (ag_model_create(&m, &mcfg) != AG_SUCCESS) abort();
    ag_train_config_t c = tcfg;
    c.checkpoint = save_seed;
    c.checkpoint_every = 1;
    ag_train_result_t res;
    if (ag_model_train(m, &set, train_idx, 6, val_idx, 2, &c, &res) != AG_SUCCESS) {
        fprintf(stderr, "fuzz_checkpoint: writing seeds: %s\n", ag_error_message());
        abort();
    }
    ag_model_destroy(m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    igraph_set_attribute_table(&igraph_cattribute_table);
    ag_threads_set(1);
    make_set();
    make_configs();
    ag_model_t *m;
    if (ag_model_create(&m, &mcfg) != AG_SUCCESS) abort();
    n_initial = ag_param_list_size(ag_model_params(m));
    initial = malloc((size_t)n_initial * sizeof(float));
    if (!initial) abort();
    copy_weights(m, initial);
    ag_model_destroy(m);
    seed_dir = getenv("AG_FUZZ_CHECKPOINT_SEEDS");
    if (seed_dir && seed_dir[0]) write_seeds();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    fuzz_fix_crc(copy, size);
    const char *path = fuzz_write_file(copy, size, ".ckpt");
    free(copy);

    ag_model_t *m;
    if (ag_model_create(&m, &mcfg) != AG_SUCCESS) abort();
    ag_train_state_t st;
    ag_metadata_t extra;
    ag_metadata_init(&extra);
    ag_error_clear();
    ag_error_t rc = ag_train_state_load(path, m, &st, &extra);
    fuzz_check_result(rc, "ag_train_state_load");
    const int verbose = getenv("AG_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "load: %s %s\n", ag_error_name(rc), ag_error_message());
    if (rc != AG_SUCCESS) {
        fuzz_check_zeroed(&st, sizeof st, "ag_train_state_load");
        float *w = malloc((size_t)n_initial * sizeof(float));
        if (!w) abort();
        copy_weights(m, w);
        if (memcmp(w, initial, (size_t)n_initial * sizeof(float)) != 0) {
            fprintf(stderr, "fuzz: ag_train_state_load failed (%s) but changed the model's weights\n",
                    ag_error_message());
            abort();
        }
        free(w);
    } else {
        ag_train_result_t res;
        ag_error_clear();
        rc = ag_model_train_resume(m, &set, train_idx, 6, val_idx, 2, &tcfg, &st, &res);
        fuzz_check_result(rc, "ag_model_train_resume");
        if (verbose)
            fprintf(stderr, "resume: %s %s (epochs %lld, best %lld)\n", ag_error_name(rc), ag_error_message(),
                    (long long)res.epochs_run, (long long)res.best_epoch);
        if (rc == AG_EINVAL) abort();
        if (rc == AG_SUCCESS && (res.epochs_run < st.epoch || res.epochs_run > tcfg.epochs || res.best_epoch < 0 ||
                                 res.best_epoch > res.epochs_run)) {
            fprintf(stderr, "fuzz: resume from epoch %lld ran to %lld epochs, best %lld\n", (long long)st.epoch,
                    (long long)res.epochs_run, (long long)res.best_epoch);
            abort();
        }
        ag_train_state_destroy(&st);
    }
    ag_metadata_destroy(&extra);
    ag_model_destroy(m);
    return 0;
}
