/*
 * path.c: file names compared as the file system would read them, without touching it, and
 * files opened for reading that are files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"

FILE *ag_i_fopen_read(const char *path) {
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

char *ag_i_path_lexical(const char *path) {
    const size_t n = strlen(path);
    char *out = ag_i_malloc(n + 2); /* "" becomes "." */
    if (!out) return NULL;
    const int absolute = path[0] == '/';
    size_t len = 0;     /* of out */
    size_t fixed = 0;   /* out[0..fixed) is leading "../" segments, which ".." cannot undo */
    if (absolute) out[len++] = '/';
    fixed = len;
    for (const char *p = path; *p;) {
        while (*p == '/') p++;
        const char *end = strchr(p, '/');
        size_t seg = end ? (size_t)(end - p) : strlen(p);
        if (seg == 0) break;
        if (seg == 1 && p[0] == '.') {
            /* "./" names the folder it is in */
        } else if (seg == 2 && p[0] == '.' && p[1] == '.' && (len > fixed || absolute)) {
            /* "x/.." is where x is: drop x (a symbolic link x would lead elsewhere, which a
             * table's graph paths do not rely on); "/.." is "/" */
            while (len > fixed && out[len - 1] != '/') len--;
            if (len > fixed && len > 1) len--; /* the '/' before x */
        } else {
            if (len > 0 && out[len - 1] != '/') out[len++] = '/';
            memcpy(out + len, p, seg);
            len += seg;
            if (seg == 2 && p[0] == '.' && p[1] == '.') fixed = len;
        }
        p += seg;
    }
    if (len == 0) out[len++] = '.';
    out[len] = '\0';
    return out;
}
