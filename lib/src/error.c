/*
 * error.c: the thread-local last error, and the guard that keeps igraph from aborting.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define AG_MSG_MAX 1024

static _Thread_local ag_error_t last_code = AG_SUCCESS;
static _Thread_local char last_msg[AG_MSG_MAX];
static _Thread_local const char *last_src_file = "";
static _Thread_local int last_src_line = 0;

ag_error_t ag_i_set_error(ag_error_t code, const char *src_file, int src_line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    va_end(ap);
    last_code = code;
    last_src_file = src_file;
    last_src_line = src_line;
    return code;
}

ag_error_t ag_i_model_file_error(ag_error_t code, const char *path, const char *what) {
    if (code == AG_ENOMEM) return code;
    char msg[AG_MSG_MAX]; /* the message being rewritten is the buffer it is written to */
    snprintf(msg, sizeof msg, "%s", last_msg);
    return ag_i_set_error(AG_EMODEL, last_src_file, last_src_line, "%s: %s%s", path, what, msg);
}

const char *ag_error_message(void) { return last_msg; }
ag_error_t ag_error_code(void) { return last_code; }

const char *ag_error_location(int *line) {
    if (line) *line = last_src_line;
    return last_src_file;
}

void ag_error_clear(void) {
    last_code = AG_SUCCESS;
    last_msg[0] = '\0';
    last_src_file = "";
    last_src_line = 0;
}

const char *ag_error_name(ag_error_t code) {
    static const char *const names[AG_ERROR_COUNT] = {
        "AG_SUCCESS", "AG_ENOMEM", "AG_EINVAL", "AG_EFILE", "AG_EPARSE", "AG_EFORMAT",
        "AG_EATTR", "AG_EVALUE", "AG_EMISMATCH", "AG_EMODEL", "AG_ELIMIT", "AG_EIGRAPH", "AG_EREADLIMIT"};
    if ((int)code < 0 || code >= AG_ERROR_COUNT) return "AG_EUNKNOWN";
    return names[code];
}

/* ---- igraph guard. igraph's handlers are process globals (IGRAPH_THREAD_SAFE is 0), so the
 * guard state is global too; callers must not enter igraph from two threads at once. */

static int guard_depth = 0;
static igraph_error_handler_t *saved_error_handler = NULL;
static igraph_warning_handler_t *saved_warning_handler = NULL;
static char igraph_msg[AG_MSG_MAX];
/* (n_igraph_warn x AG_MSG_MAX) igraph's distinct warnings in the order given: one GML file with
 * three list attributes gives three, and each of them drops data. */
static char igraph_warn[AG_I_IGRAPH_WARNINGS][AG_MSG_MAX];
static int n_igraph_warn = 0;
/* (n_igraph_warn_other) the distinct warnings after those, told apart by a hash of their text: a
 * file with a tenth list attribute drops data too, and the caller can say that it did */
static uint64_t igraph_warn_other[AG_I_IGRAPH_WARNINGS_COUNTED];
static int n_igraph_warn_other = 0;
static const char *ignored_warning = NULL; /* prefix; see ag_i_igraph_ignore_warning() */

/* FNV-1a: enough to tell igraph's few messages apart */
static uint64_t text_hash(const char *s) {
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void record_igraph_error(const char *reason, const char *file, int line, igraph_error_t err) {
    (void)file;
    (void)line;
    /* igraph calls the handler once where the error is raised and again at each IGRAPH_CHECK on
     * the way out, with an empty reason: keep the first, most specific message. */
    if (igraph_msg[0] == '\0') {
        if (reason && reason[0])
            snprintf(igraph_msg, sizeof igraph_msg, "%s (%s)", reason, igraph_strerror(err));
        else
            snprintf(igraph_msg, sizeof igraph_msg, "%s", igraph_strerror(err));
    }
    /* What igraph_error_handler_ignore does: free the temporaries igraph registered, those of the
     * level ag_i_igraph_enter() opened only (IGRAPH_FINALLY_FREE stops at its mark): the error
     * ends in an ag_error_t here, so the caller's own entries, pushed with IGRAPH_FINALLY before
     * calling the library, are still the caller's to destroy and IGRAPH_FINALLY_CLEAN. */
    IGRAPH_FINALLY_FREE();
}

static void record_igraph_warning(const char *reason, const char *file, int line) {
    (void)file;
    (void)line;
    const char *text = reason ? reason : "";
    if (ignored_warning && !strncmp(text, ignored_warning, strlen(ignored_warning))) return;
    /* igraph may repeat a warning per vertex or edge: it says the same thing once */
    for (int i = 0; i < n_igraph_warn; i++)
        if (!strncmp(igraph_warn[i], text, sizeof igraph_warn[i] - 1)) return;
    if (n_igraph_warn < AG_I_IGRAPH_WARNINGS) {
        snprintf(igraph_warn[n_igraph_warn++], sizeof igraph_warn[0], "%s", text);
        return;
    }
    const uint64_t h = text_hash(text);
    for (int i = 0; i < n_igraph_warn_other; i++)
        if (igraph_warn_other[i] == h) return;
    if (n_igraph_warn_other < AG_I_IGRAPH_WARNINGS_COUNTED) igraph_warn_other[n_igraph_warn_other++] = h;
}

void ag_i_igraph_enter(void) {
    if (guard_depth++ == 0) {
        igraph_msg[0] = '\0';
        n_igraph_warn = 0;
        n_igraph_warn_other = 0;
        ignored_warning = NULL;
        saved_error_handler = igraph_set_error_handler(record_igraph_error);
        saved_warning_handler = igraph_set_warning_handler(record_igraph_warning);
        /* a level of igraph's finally stack of the library's own: without it an igraph error
         * inside the library freed every entry of the stack, also a calling igraph-style
         * function's temporaries, which it then destroyed again (a double free) and whose
         * IGRAPH_FINALLY_CLEAN aborted on a corrupt stack */
        IGRAPH_FINALLY_ENTER();
    }
}

void ag_i_igraph_leave(void) {
    if (guard_depth > 0 && --guard_depth == 0) {
        IGRAPH_FINALLY_EXIT();
        igraph_set_error_handler(saved_error_handler);
        igraph_set_warning_handler(saved_warning_handler);
        ignored_warning = NULL;
    }
}

void ag_i_igraph_ignore_warning(const char *prefix) {
    if (guard_depth > 0) ignored_warning = prefix;
}

const char *ag_i_igraph_last_error(void) { return igraph_msg; }
int ag_i_igraph_warning_count(void) { return n_igraph_warn; }
const char *ag_i_igraph_warning(int i) { return i >= 0 && i < n_igraph_warn ? igraph_warn[i] : ""; }
int ag_i_igraph_warning_other_count(void) { return n_igraph_warn_other; }

ag_error_t ag_i_igraph_error(ag_error_t code, const char *src_file, int src_line, const char *fmt, ...) {
    char context[AG_MSG_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    if (igraph_msg[0] != '\0')
        return ag_i_set_error(code, src_file, src_line, "%s: %s", context, igraph_msg);
    return ag_i_set_error(code, src_file, src_line, "%s", context);
}

const char *ag_i_item_name(const char *const *names, const char *item, int64_t i, char *buf, size_t cap) {
    if (names && names[i]) return names[i];
    snprintf(buf, cap, "%s %lld", item, (long long)i);
    return buf;
}
