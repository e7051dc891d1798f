/*
 * main.c: the attn-graph program's entry point and subcommand dispatch.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <igraph.h>
#include "cli.h"
#include "predict.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command_t;

static const command_t commands[] = {
    {"info", ag_cmd_info, "what a graph file holds: counts, degrees, attributes, feature widths"},
    {"train", ag_cmd_train, "train a model on graphs (--labels) or on one graph's nodes, save it"},
    {"eval", ag_cmd_eval, "score a saved model on a part of a split, every metric of its task"},
    {"classify", ag_cmd_classify, "predict graph files with a graph-level model (default: shipped Tox21)"},
    {"label", ag_cmd_label, "predict every vertex of a graph with a node model, write it back or as CSV"},
    {"explain", ag_cmd_explain, "write a model's attention weights as edge attributes, draw them as SVG"},
    {NULL, NULL, NULL},
};

static void usage(FILE *out) {
    fprintf(out, "usage: attn-graph <command> [options] [args]\n\ncommands:\n");
    for (const command_t *c = commands; c->name; c++) fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n'attn-graph <command> --help' describes a command; see docs/cli.md.\n"
                 "'attn-graph --version' prints the version and the BLAS in use.\n");
}

/* Kept so that `info --json` can repeat a failed file's stderr line in its JSON object. */
static char last_error[2048];

const char *ag_cli_last_error(void) { return last_error; }

/* The library names its configuration ("option degree"); the program's user knows its flags. Each
 * pair is the library's words and the flag's, an optional quoted value following both. */
static void flag_names(char *msg, size_t cap) {
    static const char *const names[][2] = {
        {"option exclude_attrs or exclude_more: '", "--exclude-attrs "},
        {"option degree", "--degree"},
        {"option file_column", "--file-column"},
        {"DIMACS or DL file: read it as undirected)", "DIMACS or DL file: leave out --directed)"},
        {"DIMACS or DL file: read it as directed)", "DIMACS or DL file: give --directed)"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char *at = strstr(msg, names[k][0]);
        if (!at) continue;
        const size_t from = strlen(names[k][0]), to = strlen(names[k][1]);
        char *rest = at + from;
        /* a quoted value loses its closing quote with its opening one */
        const int quoted = names[k][0][from - 1] == '\'';
        char *close = quoted ? strchr(rest, '\'') : NULL;
        if (quoted && !close) continue;
        if (close) memmove(close, close + 1, strlen(close + 1) + 1);
        if (to > from && strlen(msg) + (to - from) >= cap) continue;
        memmove(at + to, rest, strlen(rest) + 1);
        memcpy(at, names[k][1], to);
    }
}

/* An error is one line: a control character in it (a file named "a\nb.gml") is written as an
 * escape, "\n", "\t", "\x1b", "\x9b" (a byte that is not UTF-8) or "\u009b" (a C1 control, a line
 * separator or a bidirectional override in UTF-8), so that it can neither break the line, nor
 * reorder it, nor reach the terminal raw. */
static void escape_controls(char *msg, size_t cap) {
    char out[sizeof last_error];
    size_t k = 0;
    const unsigned char *start = (const unsigned char *)msg, *end = start + strlen(msg);
    for (const unsigned char *p = start; *p && k + 8 < sizeof out; p++) { /* room for "\u202e" */
        unsigned code;
        int raw;
        const size_t len = *p >= 0x80 ? cli_unsafe_seq((const char *)p, (size_t)(end - p), &code, &raw) : 0;
        if (len && raw) { /* a byte that is not UTF-8 */
            k += (size_t)snprintf(out + k, sizeof out - k, "\\x%02x", *p);
        } else if (len) { /* a C1 control (CSI, NEL), a separator or a bidirectional mark */
            k += (size_t)snprintf(out + k, sizeof out - k, "\\u%04x", code);
            p += len - 1;
        } else if (*p >= 0x80) { /* a UTF-8 character that shows as itself: all its bytes */
            const size_t n = ag_utf8_sequence((const char *)p, (size_t)(end - p));
            for (size_t b = 0; b < n; b++) out[k++] = (char)p[b];
            p += n - 1;
        } else if (*p >= 0x20 && *p != 0x7f) out[k++] = (char)*p;
        else if (*p == '\n') k += (size_t)snprintf(out + k, sizeof out - k, "\\n");
        else if (*p == '\t') k += (size_t)snprintf(out + k, sizeof out - k, "\\t");
        else k += (size_t)snprintf(out + k, sizeof out - k, "\\x%02x", *p);
    }
    out[k] = '\0';
    snprintf(msg, cap, "%s", out);
}

void ag_cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    flag_names(last_error, sizeof last_error);
    escape_controls(last_error, sizeof last_error);
    fprintf(stderr, "attn-graph: %s\n", last_error);
}

int ag_cli_fail(ag_error_t err) { return ag_cli_fail_in(NULL, err); }

int ag_cli_fail_in(const char *path, ag_error_t err) {
    if (path) ag_cli_error("%s: %s", path, ag_error_message());
    else ag_cli_error("%s", ag_error_message());
    return ag_cli_exit_code(err);
}

int ag_cli_exit_code(ag_error_t err) {
    switch (err) {
    case AG_SUCCESS: return AG_EXIT_OK;
    case AG_EINVAL: return AG_EXIT_USAGE;
    case AG_EMODEL: return AG_EXIT_MODEL;
    case AG_EFILE: case AG_EPARSE: case AG_EFORMAT: case AG_EATTR: case AG_EVALUE:
    case AG_EMISMATCH: case AG_EIGRAPH: return AG_EXIT_INPUT;
    /* a graph file whose counts ask for more vertices than the read limit allows, or a sparse
     * table whose largest index asks for a matrix as large, is bad input (docs/cli.md); a size
     * that overflows (AG_ELIMIT) is not */
    case AG_EREADLIMIT: return AG_EXIT_INPUT;
    default: return AG_EXIT_FAILURE;
    }
}

/* igraph's warnings outside the library's guarded calls (writing a GML file, which has no boolean
 * type, converts boolean attributes to numbers) in the program's voice, one line each, and kept
 * with the file's other warnings for --json; igraph's default prints its source file and line and
 * no newline. */
static const char *warning_path = NULL; /* the file igraph is working on, named in its warnings */

void ag_cli_warning_path(const char *path) { warning_path = path; }

static void print_igraph_warning(const char *reason, const char *file, int line) {
    (void)file;
    (void)line;
    ag_cli_warning("%s%s%s", warning_path ? warning_path : "", warning_path ? ": " : "",
                   reason && reason[0] ? reason : "(igraph gave no reason)");
}

int main(int argc, char **argv) {
    igraph_set_warning_handler(print_igraph_warning);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? AG_EXIT_USAGE : AG_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("attn-graph %s (BLAS: %s)\n", ag_version(), ag_blas_name());
        return AG_EXIT_OK;
    }
    /* the cores other work leaves idle (README, Threads); a command's --threads replaces this */
    const int idle = ag_threads_idle();
    if (idle < ag_threads_get()) ag_threads_set(idle);
    for (const command_t *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name)) return c->run(argc - 1, argv + 1);
    fprintf(stderr, "attn-graph: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return AG_EXIT_USAGE;
}
