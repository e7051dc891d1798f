/*
 * outfile.h: the files the CLI writes. Each is written atomically (a temporary file beside the
 * destination, synced and renamed over it), through a symbolic link to the file it names, never
 * over a directory, a device or a FIFO, and never over an input of the same run.
 */
#ifndef AG_CLI_OUTFILE_H
#define AG_CLI_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The file an output named `path` replaces: path itself or, when path is a symbolic link, the
 * file it resolves to. Refuses a directory, an existing file that is not a regular one and a link
 * that does not resolve. Returns 0 with the file in buf (cap bytes), or -1 with a reason in err. */
int cli_output_target(const char *path, char *buf, size_t cap, char *err, size_t errn);

/* An output file being written: f is open on a temporary file beside the target. */
typedef struct cli_atomic_t {
    FILE *f;
    char tmp[4096];
    char target[4096];
    const char *path; /* as the user gave it, for messages */
} cli_atomic_t;

/* Returns 0, or prints "attn-graph: CMD: cannot write PATH: reason" and returns -1. */
int cli_atomic_open(cli_atomic_t *a, const char *cmd, const char *path);
/* Flushes, syncs, closes and renames; returns 0 or prints the error and returns -1 (the
 * temporary file is removed). */
int cli_atomic_commit(cli_atomic_t *a, const char *cmd);
void cli_atomic_abort(cli_atomic_t *a);

/* Writes `len` bytes to path atomically; on failure nothing is left behind. Returns 0, or -1 with
 * a reason in err. */
int cli_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errn);

/* Whether an atomic write to path can succeed: cli_output_target accepts it and a file can be
 * created beside its target (one is, then removed). Checked before the work, so that a mistyped
 * -o costs no run. Returns 0, or -1 with a reason in err. */
int cli_check_writable(const char *path, char *err, size_t errn);

/* 1 when a and b name the same file: the same inode when both exist, else the same directory
 * (resolved through links and "..") and the same last component. */
int cli_same_file(const char *a, const char *b);

/* Checks a command's outputs before it loads anything: out[k] (given with option out_names[k];
 * NULL when not given) is none of the inputs in[i] (described as in_names[i]; NULL or "-" are
 * skipped) nor an earlier output, and can be written. Prints the reason and returns
 * AG_EXIT_USAGE for a clash or AG_EXIT_FAILURE for a path that cannot be written; else
 * AG_EXIT_OK. */
int cli_check_outputs(const char *cmd, const char *const *out, const char *const *out_names, int n_out,
                      const char *const *in, const char *const *in_names, int n_in);

/* The same for the G graph files a labels table lists (files[g], relative to the table's folder
 * unless absolute): an output that is one of them is refused (AG_EXIT_USAGE, reason printed). */
int cli_check_outputs_graphs(const char *cmd, const char *const *out, const char *const *out_names, int n_out,
                             const char *labels_path, char *const *files, int64_t G);

#endif
