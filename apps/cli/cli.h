/*
 * cli.h: shared by the attn-graph program's subcommands. Only the program exits; the library
 * returns errors. Exit codes (documented in docs/cli.md):
 */
#ifndef AG_CLI_H
#define AG_CLI_H

#include <stdio.h>
#include <attngraph/attngraph.h>

enum {
    AG_EXIT_OK = 0,
    AG_EXIT_FAILURE = 1,   /* an unexpected failure (out of memory, I/O) */
    AG_EXIT_USAGE = 2,     /* bad command line */
    AG_EXIT_INPUT = 3,     /* bad input file (graph, table, labels, split) */
    AG_EXIT_MODEL = 4,     /* bad or mismatched model file */
    AG_EXIT_INTERRUPTED = 130 /* train stopped by Ctrl-C (128 + SIGINT, as a shell reports it):
                                 what the epochs so far gave is still written and scored */
};

/* Prints "attn-graph: <library message>" to stderr and returns the exit code for err
 * (ag_cli_exit_code). */
int ag_cli_fail(ag_error_t err);
/* The same as "attn-graph: PATH: <library message>", for messages that do not name their file. */
int ag_cli_fail_in(const char *path, ag_error_t err);
/* The exit code for the library's error err, by docs/cli.md's table: AG_EREADLIMIT (a file that
 * asks for more memory than the read limit) is bad input, AG_ELIMIT (a size that overflows) an
 * unexpected failure. For an error said in the program's own words. */
int ag_cli_exit_code(ag_error_t err);

/* Prints "attn-graph: MESSAGE" (MESSAGE from fmt) to stderr and keeps MESSAGE, which
 * ag_cli_last_error() returns until the next error: ag_cli_fail and ag_cli_fail_in report through
 * it. */
void ag_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ag_cli_last_error(void);

/* The file igraph's warnings are about from now on (NULL: none), so that they name it. */
void ag_cli_warning_path(const char *path);

/* Warnings said while a list collects them on this thread: --json gives each file (or eval's run)
 * the warnings said about it, which stderr alone left for a person to read. text[i] is a warning's
 * line without "attn-graph: warning: " and its newline, as --json's "error" is the error line's. */
typedef struct ag_cli_warnings_t {
    char **text;   /* (n) */
    size_t n, cap;
    size_t lost;   /* warnings printed but not kept: memory ran out */
} ag_cli_warnings_t;

/* Collects the warnings said on this thread from now on into w (NULL: none); returns the list
 * that collected until now, for the caller to restore. */
ag_cli_warnings_t *ag_cli_warnings_collect(ag_cli_warnings_t *w);
/* Empties w (not yet initialised) and collects into it, as ag_cli_warnings_collect(): the list
 * of one file, or of one run, from here until the returned list is restored. */
ag_cli_warnings_t *ag_cli_warnings_start(ag_cli_warnings_t *w);
/* Frees the texts; w is then empty and may collect again. */
void ag_cli_warnings_clear(ag_cli_warnings_t *w);

/* A warning written in pieces (fprintf, cli_print_value) to the stream ag_cli_warning_begin
 * returns, then said by ag_cli_warning_end: one line "attn-graph: warning: TEXT" on stderr, and
 * TEXT added to the collecting list. Without memory for the text the stream is stderr itself. */
typedef struct ag_cli_warning_t {
    FILE *f;
    char *buf;
    size_t len;
} ag_cli_warning_t;
FILE *ag_cli_warning_begin(ag_cli_warning_t *w);
void ag_cli_warning_end(ag_cli_warning_t *w);
/* A warning of one piece. */
void ag_cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Each subcommand: argv[0] is the subcommand name. Returns an exit code. */
int ag_cmd_info(int argc, char **argv);
int ag_cmd_train(int argc, char **argv);
int ag_cmd_eval(int argc, char **argv);
/* `attn-graph info` of a model file (info_model.c) or, when the file is a training checkpoint,
 * of the run it holds (info_checkpoint.c): prints its description, text or one JSON line (first:
 * no blank line before the text). Returns an exit code. */
int ag_cli_info_model(const char *path, int json, int first);
struct ag_safetensors_t;
int ag_cli_info_checkpoint(const struct ag_safetensors_t *file, int json, int first);

#endif
