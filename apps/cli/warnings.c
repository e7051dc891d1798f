/*
 * warnings.c: the program's warnings, said on stderr and kept for --json (cli.h).
 *
 * The list is per thread: igraph's warning handler is one for the process, but igraph runs on the
 * thread that reads the file, so a warning it gives lands in that file's list and no other.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static _Thread_local ag_cli_warnings_t *collecting = NULL;

ag_cli_warnings_t *ag_cli_warnings_collect(ag_cli_warnings_t *w) {
    ag_cli_warnings_t *was = collecting;
    collecting = w;
    return was;
}

ag_cli_warnings_t *ag_cli_warnings_start(ag_cli_warnings_t *w) {
    memset(w, 0, sizeof *w);
    return ag_cli_warnings_collect(w);
}

void ag_cli_warnings_clear(ag_cli_warnings_t *w) {
    for (size_t i = 0; i < w->n; i++) free(w->text[i]);
    free(w->text);
    memset(w, 0, sizeof *w);
}

/* Takes text (malloc'ed) into the collecting list, or frees it. */
static void keep(char *text) {
    ag_cli_warnings_t *w = collecting;
    if (!w) {
        free(text);
        return;
    }
    if (text && w->n == w->cap) {
        const size_t cap = w->cap ? 2 * w->cap : 4;
        char **grown = realloc(w->text, cap * sizeof *grown);
        if (grown) {
            w->text = grown;
            w->cap = cap;
        }
    }
    if (text && w->n < w->cap) {
        w->text[w->n++] = text;
    } else {
        /* counted, so that --json still says a warning was given (stderr has it) */
        w->lost++;
        free(text);
    }
}

FILE *ag_cli_warning_begin(ag_cli_warning_t *w) {
    w->buf = NULL;
    w->len = 0;
    w->f = open_memstream(&w->buf, &w->len);
    if (!w->f) {
        /* no memory for the text: the warning still reaches stderr, written as it comes */
        fputs("attn-graph: warning: ", stderr);
        w->f = stderr;
    }
    return w->f;
}

void ag_cli_warning_end(ag_cli_warning_t *w) {
    if (w->f == stderr) {
        fputc('\n', stderr);
        keep(NULL);
    } else if (fclose(w->f) != 0) {
        free(w->buf);
        fputs("attn-graph: warning: (out of memory writing a warning)\n", stderr);
        keep(NULL);
    } else {
        fprintf(stderr, "attn-graph: warning: %s\n", w->buf);
        keep(w->buf);
    }
    memset(w, 0, sizeof *w);
}

void ag_cli_warning(const char *fmt, ...) {
    ag_cli_warning_t w;
    FILE *f = ag_cli_warning_begin(&w);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    ag_cli_warning_end(&w);
}
