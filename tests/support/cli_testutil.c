/*
 * cli_testutil.c: running the program from tests (cli_testutil.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "cli_testutil.h"

/* Reads f to its end into buf (cap bytes with the NUL), or into nothing when buf is NULL; fails
 * the test when there is more than fits. */
static void read_all(FILE *f, char *buf, size_t cap, const char *what, const char *args) {
    char scratch[4096];
    size_t used = 0, n;
    if (buf) buf[0] = '\0';
    while ((n = fread(buf ? buf + used : scratch, 1, buf ? cap - 1 - used : sizeof scratch, f)) > 0) {
        if (!buf) continue;
        used += n;
        buf[used] = '\0';
        if (used == cap - 1 && fgetc(f) != EOF) fail_msg("attn-graph %s: %s longer than %zu bytes", args, what, cap - 1);
    }
}

/* The run: stdout into out (or discarded), stderr into err (or discarded); returns the exit code. */
static int run_capture(const char *dir, const char *args, char *out, size_t outn, char *err, size_t errn) {
    char err_path[] = "/tmp/ag_cli_err_XXXXXX";
    int fd = mkstemp(err_path);
    assert_true(fd >= 0);
    close(fd);
    char cmd[8192];
    int len = snprintf(cmd, sizeof cmd, "cd '%s' && OMP_WAIT_POLICY=passive '%s' %s 2>'%s'", dir ? dir : AG_SOURCE_DIR,
                       AG_CLI_PATH, args, err_path);
    assert_true(len > 0 && (size_t)len < sizeof cmd);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    read_all(p, out, outn, "stdout", args);
    int status = pclose(p);
    FILE *e = fopen(err_path, "r");
    assert_non_null(e);
    read_all(e, err, errn, "stderr", args);
    fclose(e);
    unlink(err_path);
    if (!WIFEXITED(status)) fail_msg("attn-graph %s: did not exit normally (status %d)", args, status);
    return WEXITSTATUS(status);
}

void ag_cli_run(ag_cli_run_t *r, const char *dir, const char *args) {
    r->code = run_capture(dir, args, r->out, sizeof r->out, r->err, sizeof r->err);
}

void ag_cli_run_ok(ag_cli_run_t *r, const char *fmt, ...) {
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    ag_cli_run(r, NULL, args);
    if (r->code != 0) fail_msg("attn-graph %s: exit %d: %s", args, r->code, r->err);
}

int ag_cli_status(const char *dir, const char *args, char *err, size_t errn) {
    return run_capture(dir, args, NULL, 0, err, errn);
}

int ag_cli_count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

int ag_test_temp_dir(char *buf, size_t cap, const char *name, int in_memory) {
    struct stat sb;
    int shm = in_memory && stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode);
    int len = snprintf(buf, cap, "%s/ag_%s_XXXXXX", shm ? "/dev/shm" : "/tmp", name);
    if (len < 0 || (size_t)len >= cap) return -1;
    return mkdtemp(buf) ? 0 : -1;
}

int ag_test_remove_dir(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int ag_test_count_files(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

unsigned char *ag_test_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_true(len >= 0);
    unsigned char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return buf;
}

void ag_test_write_text(const char *dir, const char *name, const char *text) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s", path);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

void ag_test_write_path_gml(const char *dir, const char *name, int n, int cycle) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s", path);
    fputs("graph [\n directed 0\n", f);
    for (int i = 0; i < n; i++) fprintf(f, " node [ id %d ]\n", i);
    for (int i = 0; i + 1 < n; i++) fprintf(f, " edge [ source %d target %d ]\n", i, i + 1);
    if (cycle) fprintf(f, " edge [ source %d target 0 ]\n", n - 1);
    fputs("]\n", f);
    assert_int_equal(fclose(f), 0);
}

void ag_test_train_sized_model(const char *dir) {
    ag_test_write_path_gml(dir, "p3.gml", 3, 0);
    ag_test_write_path_gml(dir, "c5.gml", 5, 1);
    ag_test_write_path_gml(dir, "p8.gml", 8, 0);
    ag_test_write_text(dir, "sizes.csv", "file,label\np3.gml,0\nc5.gml,1\np8.gml,0\n");
    ag_cli_run_t *r = malloc(sizeof *r);
    assert_non_null(r);
    ag_cli_run_ok(r, "train --labels %s/sizes.csv --split-random 1,0,0 --epochs 1 --hidden 8 --layers 1 --heads 2 "
                  "--threads 1 --quiet -o %s/sizes.safetensors", dir, dir);
    free(r);
}

int ag_test_files_equal(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *x = ag_test_read_file(a, &na), *y = ag_test_read_file(b, &nb);
    int same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* from's header with the span [at, at + len) of it replaced by with, written to to. */
static void header_splice(const char *to, const unsigned char *b, size_t n, uint64_t hlen, size_t at, size_t len,
                          const char *with) {
    const size_t w = strlen(with), nlen = (size_t)hlen - len + w, rest = n - 8 - (size_t)hlen;
    unsigned char *out = malloc(8 + nlen + rest);
    assert_non_null(out);
    for (int k = 0; k < 8; k++) out[k] = (unsigned char)((uint64_t)nlen >> (8 * k));
    memcpy(out + 8, b + 8, at);
    memcpy(out + 8 + at, with, w);
    memcpy(out + 8 + at + w, b + 8 + at + len, (size_t)hlen - at - len);
    memcpy(out + 8 + nlen, b + 8 + hlen, rest);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out, 1, 8 + nlen + rest, f), 8 + nlen + rest);
    assert_int_equal(fclose(f), 0);
    free(out);
}

/* The file and its header as a NUL-terminated string (malloc'ed, as the file). */
static unsigned char *header_read(const char *from, size_t *n, uint64_t *hlen, char **header) {
    unsigned char *b = ag_test_read_file(from, n);
    *hlen = 0;
    for (int k = 7; k >= 0; k--) *hlen = *hlen << 8 | b[k];
    assert_true(*n >= 8 && 8 + *hlen <= *n);
    *header = malloc((size_t)*hlen + 1);
    assert_non_null(*header);
    memcpy(*header, b + 8, (size_t)*hlen);
    (*header)[*hlen] = '\0';
    return b;
}

void ag_test_header_replace(const char *from, const char *to, const char *what, const char *with) {
    size_t n;
    uint64_t hlen;
    char *h;
    unsigned char *b = header_read(from, &n, &hlen, &h);
    const char *at = strstr(h, what);
    assert_non_null(at);
    header_splice(to, b, n, hlen, (size_t)(at - h), strlen(what), with);
    free(h);
    free(b);
}

void ag_test_header_set(const char *from, const char *to, const char *key, const char *value) {
    size_t n;
    uint64_t hlen;
    char *h;
    unsigned char *b = header_read(from, &n, &hlen, &h);
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *at = strstr(h, pat);
    assert_non_null(at);
    at += strlen(pat);
    const char *close = strchr(at, '"');
    assert_non_null(close);
    header_splice(to, b, n, hlen, (size_t)(at - h), (size_t)(close - at), value);
    free(h);
    free(b);
}

/* ---- a strict JSON syntax check (RFC 8259), enough to know the output parses */
static const char *json_value(const char *p);

static const char *json_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static const char *json_string(const char *p) {
    if (*p++ != '"') return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *json_number(const char *p) {
    char *end;
    if (*p != '-' && (*p < '0' || *p > '9')) return NULL;
    strtod(p, &end);
    return end == p ? NULL : end;
}

static const char *json_value(const char *p) {
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (!(p = json_string(json_ws(p)))) return NULL;
                p = json_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = json_value(p))) return NULL;
            p = json_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
        }
    }
    if (*p == '"') return json_string(p);
    if (!strncmp(p, "true", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    if (!strncmp(p, "null", 4)) return p + 4;
    return json_number(p);
}

int ag_test_json_line_ok(const char *line, size_t len) {
    char *copy = strndup(line, len);
    const char *end = json_value(copy);
    int ok = end && *json_ws(end) == '\0' && copy[0] == '{';
    free(copy);
    return ok;
}

void ag_test_assert_json_lines(const char *out, int n) {
    assert_int_equal(ag_cli_count_lines(out), n);
    for (const char *line = out; *line;) {
        const char *nl = strchr(line, '\n');
        if (!ag_test_json_line_ok(line, (size_t)(nl - line))) fail_msg("not JSON: %.*s", (int)(nl - line), line);
        line = nl + 1;
    }
}
