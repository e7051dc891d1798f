/*
 * train_support.c: epoch history, sizes and the machine's available memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "predict.h"
#include "train_support.h"

int cli_history_push(cli_history_t *h, const cli_epoch_t *e) {
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 64;
        cli_epoch_t *p = realloc(h->items, (size_t)cap * sizeof *p);
        if (!p) return -1;
        h->items = p;
        h->cap = cap;
    }
    h->items[h->n++] = *e;
    return 0;
}

void cli_history_destroy(cli_history_t *h) {
    free(h->items);
    memset(h, 0, sizeof *h);
}

char *cli_history_to_text(const cli_history_t *h) {
    size_t cap = 160 * (size_t)(h->n + 1), used = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (int64_t i = 0; i < h->n; i++) {
        const cli_epoch_t *e = &h->items[i];
        used += (size_t)snprintf(s + used, cap - used, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n", (long long)e->epoch,
                                 e->loss, e->train_metric, e->val_metric, e->seconds, e->lr, e->improved);
    }
    return s;
}

int cli_history_from_text(cli_history_t *h, const char *text) {
    h->n = 0;
    const char *c = text;
    while (*c) {
        cli_epoch_t e;
        char *end;
        e.epoch = strtoll(c, &end, 10);
        if (end == c || *end != ',') return -1;
        double *f[5] = {&e.loss, &e.train_metric, &e.val_metric, &e.seconds, &e.lr};
        c = end + 1;
        for (int k = 0; k < 5; k++) {
            *f[k] = strtod(c, &end);
            if (end == c || *end != ',') return -1;
            c = end + 1;
        }
        e.improved = (int)strtol(c, &end, 10);
        if (end == c || *end != '\n') return -1;
        c = end + 1;
        if (cli_history_push(h, &e) < 0) return -1;
    }
    return 0;
}

int cli_parse_size(const char *s, int64_t *bytes) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0) || !isfinite(v)) return -1;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024.0; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024.0 * 1024.0; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024.0 * 1024.0 * 1024.0; end++; break;
    default: break;
    }
    if (mult > 1 && *end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    double b = v * mult;
    if (b > 9.2e18) return -1;
    *bytes = (int64_t)b;
    return 0;
}

void cli_print_shell_word(FILE *out, const char *s, size_t n) {
    int plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                strchr("_./,:=+-@%", s[i]) != NULL;
    if (plain) {
        fwrite(s, 1, n, out);
        return;
    }
    if (!cli_text_safe_n(s, n)) {
        /* bash's $'...': what must not reach a terminal raw (cli_unsafe_seq: a control character
         * of an edited checkpoint's stored command) is written byte by byte as \xHH escapes, and
         * the word still pastes */
        fputs("$'", out);
        for (size_t i = 0; i < n;) {
            unsigned code;
            int raw;
            const unsigned char c = (unsigned char)s[i];
            size_t len = cli_unsafe_seq(s + i, n - i, &code, &raw);
            if (len) {
                for (size_t b = 0; b < len; b++) fprintf(out, "\\x%02x", (unsigned char)s[i + b]);
            } else {
                len = c < 0x80 ? 1 : ag_utf8_sequence(s + i, n - i);
                if (c == '\'' || c == '\\') fprintf(out, "\\%c", c);
                else fwrite(s + i, 1, len, out);
            }
            i += len;
        }
        fputc('\'', out);
        return;
    }
    fputc('\'', out);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\'') fputs("'\\''", out);
        else fputc(s[i], out);
    fputc('\'', out);
}

int cli_set_read_limit(const char *cmd, const char *max_memory) {
    int64_t limit;
    if (cli_parse_size(max_memory, &limit) < 0 || limit <= 0) { /* 0 is no size, not a limit of 0 bytes */
        fprintf(stderr, "attn-graph: %s: --max-memory takes a size like 4G, 512M or 100000000, not '%s'\n", cmd,
                max_memory);
        return -1;
    }
    ag_graph_read_set_max_memory(limit);
    return 0;
}

void cli_format_size(char *buf, size_t n, int64_t bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) snprintf(buf, n, "%lld B", (long long)bytes);
    else snprintf(buf, n, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static int cmp_size_desc(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

typedef struct run_sizes_t {
    int64_t N, E, G;    /* the largest training batch: nodes, edges, graphs */
    int64_t Ne, Ee, Ge; /* the largest evaluation batch */
} run_sizes_t;

/* The memory of the largest training step (when training) and evaluation pass of a run of the
 * model mc on a batch of sizes N, E, G (training) and Ne, Ee, Ge (evaluation), with the other
 * members of an ensemble held for evaluation beside either; saturating, so that an estimate past
 * 2^63 is refused like any other too large one. */
static ag_error_t run_memory(const ag_model_config_t *mc, const run_sizes_t *z, int training, int64_t members,
                             int64_t *train_bytes, int64_t *eval_bytes) {
    *train_bytes = 0;
    ag_error_t rc = training ? ag_model_estimate_memory(mc, z->N, z->E, z->G, 1, train_bytes) : AG_SUCCESS;
    if (rc == AG_SUCCESS) rc = ag_model_estimate_memory(mc, z->Ne, z->Ee, z->Ge, 0, eval_bytes);
    if (rc != AG_SUCCESS) return rc;
    if (members < 1) members = 1;
    const int64_t others = *eval_bytes > INT64_MAX / members ? INT64_MAX : *eval_bytes * (members - 1);
    *train_bytes = *train_bytes > INT64_MAX - others ? INT64_MAX : *train_bytes + others;
    *eval_bytes = *eval_bytes > INT64_MAX - others ? INT64_MAX : *eval_bytes + others;
    return AG_SUCCESS;
}

/* Estimates the largest training step and evaluation pass and refuses a run above the limit.
 * Returns an exit code. */
int cli_check_memory(const char *cmd, const char *max_memory, const ag_model_config_t *mc, const ag_trainset_t *set,
                     int64_t batch_size, int training, int64_t members) {
    int64_t limit = -1;
    const char *limit_from = "--max-memory";
    if (max_memory) {
        if (cli_parse_size(max_memory, &limit) < 0) {
            fprintf(stderr, "attn-graph: %s: --max-memory takes a size like 4G, 512M or 100000000, not '%s'\n",
                    cmd, max_memory);
            return AG_EXIT_USAGE;
        }
    } else {
        limit = ag_memory_available();
        limit_from = "the available memory (MemAvailable)";
    }
    if (limit < 0) return AG_EXIT_OK; /* unknown: no limit */
    run_sizes_t z = {0, 0, 1, 0, 0, 1};
    if (ag_task_is_graph_level(mc->task)) {
        /* the largest graphs together: an upper bound of any batch */
        int64_t (*sz)[2] = malloc(sizeof *sz * (size_t)(set->n_examples > 0 ? set->n_examples : 1));
        if (!sz) return AG_EXIT_FAILURE;
        for (int64_t i = 0; i < set->n_examples; i++) {
            sz[i][0] = set->examples[i].graph.n_nodes;
            sz[i][1] = set->examples[i].graph.n_edges;
        }
        qsort(sz, (size_t)set->n_examples, sizeof *sz, cmp_size_desc);
        z.G = batch_size < set->n_examples ? batch_size : set->n_examples;
        z.Ge = set->n_examples < 256 ? set->n_examples : 256; /* ag_model_evaluate's batches */
        for (int64_t i = 0; i < z.Ge; i++) {
            if (i < z.G) z.N += sz[i][0], z.E += sz[i][1];
            z.Ne += sz[i][0], z.Ee += sz[i][1];
        }
        free(sz);
    } else {
        z.N = z.Ne = set->examples[0].graph.n_nodes;
        z.E = z.Ee = set->examples[0].graph.n_edges;
    }
    int64_t train_bytes, eval_bytes;
    if (run_memory(mc, &z, training, members, &train_bytes, &eval_bytes) != AG_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: %s\n", cmd, ag_error_message());
        return AG_EXIT_FAILURE;
    }
    int64_t need = train_bytes > eval_bytes ? train_bytes : eval_bytes;
    if (need <= limit) return AG_EXIT_OK;
    char a[32], b[32];
    cli_format_size(a, sizeof a, need);
    cli_format_size(b, sizeof b, limit);
    int full = 0;
    for (int l = 0; l < mc->n_blocks; l++) full |= mc->blocks[l].mask == AG_MASK_FULL;
    if (!training) {
        fprintf(stderr, "attn-graph: %s: this run needs about %s of memory (an evaluation pass on %lld nodes and %lld "
                "edges%s) but the limit is %s, %s; the model's size is fixed by its training: use a machine with more "
                "memory, or raise --max-memory\n", cmd, a, (long long)z.Ne, (long long)z.Ee,
                members > 1 ? ", for each model of the ensemble" : "", b, limit_from);
        return AG_EXIT_FAILURE;
    }
    /* what the input's width costs (the weights that read it, their gradients and optimiser state):
     * when it is most of the need, no change of heads or width helps much, and the fix is in the
     * data (a sparse node table numbered by global ids or hashes, a wide one-hot attribute) */
    ag_model_config_t narrow = *mc;
    narrow.in_dim = 1;
    int64_t narrow_train, narrow_eval;
    char input[160] = "";
    if (mc->in_dim > 1 && run_memory(&narrow, &z, training, members, &narrow_train, &narrow_eval) == AG_SUCCESS &&
        need - (narrow_train > narrow_eval ? narrow_train : narrow_eval) > need / 2) {
        const int64_t cost = need - (narrow_train > narrow_eval ? narrow_train : narrow_eval);
        char c[32];
        cli_format_size(c, sizeof c, cost);
        snprintf(input, sizeof input, "fewer input features (there are %lld, and the weights that read them take "
                 "about %s), ", (long long)mc->in_dim, c);
    }
    fprintf(stderr,
            "attn-graph: %s: this run needs about %s of memory (%s on %lld nodes and %lld edges) but the limit is "
            "%s, %s; to fit, use %sfewer heads (--heads)%s, a smaller --hidden or --head-dim%s%s, or raise "
            "--max-memory\n",
            cmd, a, train_bytes >= eval_bytes ? "a training step" : "an evaluation pass",
            (long long)(train_bytes >= eval_bytes ? z.N : z.Ne),
            (long long)(train_bytes >= eval_bytes ? z.E : z.Ee), b,
            limit_from, input, full ? ", neighbour instead of full attention (--mask neighbours)" : "",
            ag_task_is_graph_level(mc->task) && training ? ", smaller batches (--batch-size)" : "",
            members > 1 ? ", fewer ensemble members (--ensemble)" : "");
    return AG_EXIT_FAILURE;
}

