/*
 * utf8.c: well-formed UTF-8 (see common.h). Text that reaches a model file's JSON header, or the
 * program's JSON and SVG outputs, must be UTF-8; graph files in another encoding (Latin-1 names)
 * are caught here, where the offending attribute and vertex can still be named.
 */
#include <stdio.h>
#include <string.h>
#include "attngraph/common.h"
#include "internal.h"

size_t ag_utf8_sequence(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0) return 0;
    unsigned c = u[0];
    size_t len;
    unsigned cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (u[k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int ag_utf8_valid(const char *s, size_t *bad) {
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t len = ag_utf8_sequence(s + i, n - i);
        if (len == 0) {
            if (bad) *bad = i;
            return 0;
        }
        i += len;
    }
    return 1;
}

const char *ag_i_utf8_show(const char *s, char *buf, size_t cap) {
    size_t n = strlen(s), i = 0, k = 0;
    if (cap == 0) return buf;
    while (i < n && k + 5 < cap) {
        size_t len = ag_utf8_sequence(s + i, n - i);
        if (len == 0) {
            snprintf(buf + k, cap - k, "\\x%02X", (unsigned)(unsigned char)s[i]);
            k += 4;
            i++;
        } else {
            if (k + len + 1 > cap) break;
            memcpy(buf + k, s + i, len);
            k += len;
            i += len;
        }
    }
    if (i < n && k + 4 <= cap) { memcpy(buf + k, "...", 3); k += 3; }
    buf[k] = '\0';
    return buf;
}
