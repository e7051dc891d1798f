/*
 * cli_testutil.h: running the `attn-graph` program from a test (AG_CLI_PATH) and capturing what it
 * prints, plus the temporary directories and whole-file reads such tests need.
 */
#ifndef AG_CLI_TESTUTIL_H
#define AG_CLI_TESTUTIL_H

#include <stddef.h>

#define AG_CLI_CAPTURE 65536

/* What one run of the program printed and how it ended. */
typedef struct ag_cli_run_t {
    char out[AG_CLI_CAPTURE]; /* stdout */
    char err[AG_CLI_CAPTURE]; /* stderr */
    int code;                 /* exit code */
} ag_cli_run_t;

/* Runs `attn-graph ARGS` (ARGS are shell words) in dir (NULL: the source tree) with
 * OMP_WAIT_POLICY=passive (spinning threads starve a loaded machine), stdout and stderr apart.
 * Fails the test when the program ends by a signal or prints more than the buffers hold. */
void ag_cli_run(ag_cli_run_t *r, const char *dir, const char *args);

/* ag_cli_run with ARGS made from fmt and its arguments (in the source tree); fails the test unless
 * the program exits 0. */
void ag_cli_run_ok(ag_cli_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same with stdout discarded: returns the exit code; stderr goes to err (errn bytes) when err
 * is not NULL. */
int ag_cli_status(const char *dir, const char *args, char *err, size_t errn);

/* Lines (newlines) in s. */
int ag_cli_count_lines(const char *s);

/* A fresh directory named ag_<name>_XXXXXX, on tmpfs (/dev/shm) when in_memory and there is one
 * (checkpoints are fsync'ed: a disk would only slow the test), else in /tmp. Returns 0 or -1. */
int ag_test_temp_dir(char *buf, size_t cap, const char *name, int in_memory);

/* Removes dir and everything in it; returns 0 or -1 (for a cmocka teardown). */
int ag_test_remove_dir(const char *dir);

/* Entries of dir other than . and .. (fails the test when it cannot be read). */
int ag_test_count_files(const char *dir);

/* The whole file, NUL-terminated (malloc'ed; *n is its length without the NUL). Fails the test
 * when it cannot be read. */
unsigned char *ag_test_read_file(const char *path, size_t *n);

/* Writes text to dir/name (replacing it); fails the test when it cannot. */
void ag_test_write_text(const char *dir, const char *name, const char *text);

/* Writes dir/name: an undirected GML path of n vertices (n - 1 edges), or a cycle of n (n edges),
 * without attributes. Fails the test when it cannot. */
void ag_test_write_path_gml(const char *dir, const char *name, int n, int cycle);

/* Trains dir/sizes.safetensors, a graph classifier, on all of dir/p3.gml, dir/c5.gml and dir/p8.gml
 * (written here: graphs of 3 to 8 vertices and 2 to 7 edges, labelled in dir/sizes.csv), for the
 * tests of the training sizes a model keeps. Fails the test when training fails. */
void ag_test_train_sized_model(const char *dir);

/* 1 when the two files hold the same bytes. */
int ag_test_files_equal(const char *a, const char *b);

/* Writes the safetensors file `from` to `to` with its JSON header edited: the first `what`
 * replaced by `with` (ag_test_header_replace), or the string value of metadata key `key` set to
 * `value` (ag_test_header_set), as an edited file arrives. The header's length is rewritten; the
 * checksum covers the tensors, not the header. Fails the test when what or key is not there. */
void ag_test_header_replace(const char *from, const char *to, const char *what, const char *with);
void ag_test_header_set(const char *from, const char *to, const char *key, const char *value);

/* A strict JSON syntax check (RFC 8259), enough to know the output parses: 1 when the len bytes at
 * line are one JSON object. */
int ag_test_json_line_ok(const char *line, size_t len);
/* Every line of out is one JSON object; there are n of them (fails the test otherwise). */
void ag_test_assert_json_lines(const char *out, int n);

#endif
