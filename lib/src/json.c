/*
 * json.c: a small recursive-descent JSON reader (RFC 8259) and a string builder for writing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "json.h"

#define AG_JSON_MAX_DEPTH 256

typedef struct {
    const char *s;   /* (len) the text */
    size_t len;
    size_t pos;
    const char *what;
    int depth;
} parser_t;

static ag_error_t perr(const parser_t *p, const char *reason) {
    int line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++) {
        if (p->s[i] == '\n') { line++; col = 1; } else col++;
    }
    return AG_ERROR(AG_EPARSE, "%s:%d:%d: %s", p->what, line, col, reason);
}

static void skip_ws(parser_t *p) {
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') p->pos++;
        else break;
    }
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int read_hex4(parser_t *p, unsigned *out) {
    if (p->pos + 4 > p->len) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->s[p->pos + i]);
        if (h < 0) return -1;
        v = v * 16 + (unsigned)h;
    }
    p->pos += 4;
    *out = v;
    return 0;
}

static size_t utf8_put(char *dst, unsigned cp) {
    if (cp < 0x80) { dst[0] = (char)cp; return 1; }
    if (cp < 0x800) { dst[0] = (char)(0xC0 | (cp >> 6)); dst[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12)); dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18)); dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); dst[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* p->pos is at the opening quote. The decoded string is never longer than its source. */
static ag_error_t parse_string(parser_t *p, char **out) {
    size_t start = ++p->pos, end = start;
    while (end < p->len && p->s[end] != '"') end += (p->s[end] == '\\') ? 2 : 1;
    if (end >= p->len) return perr(p, "unterminated string");
    char *buf = ag_i_malloc(end - start + 1);
    if (!buf) return AG_ERROR(AG_ENOMEM, "%s: out of memory reading a string", p->what);
    size_t n = 0;
    while (p->pos < end) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) { ag_i_free(buf); return perr(p, "control character in string"); }
        if (c != '\\') { buf[n++] = (char)c; p->pos++; continue; }
        p->pos++;
        char e = p->s[p->pos++];
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (read_hex4(p, &cp)) { ag_i_free(buf); return perr(p, "bad \\u escape"); }
            if (cp >= 0xD800 && cp < 0xDC00) {
                unsigned lo;
                if (p->pos + 2 > end || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                    ag_i_free(buf); return perr(p, "unpaired surrogate in \\u escape");
                }
                p->pos += 2;
                if (read_hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    ag_i_free(buf); return perr(p, "bad low surrogate in \\u escape");
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                ag_i_free(buf); return perr(p, "unpaired surrogate in \\u escape");
            }
            if (cp == 0) { ag_i_free(buf); return perr(p, "\\u0000 in string"); }
            n += utf8_put(buf + n, cp);
            break;
        }
        default: ag_i_free(buf); p->pos--; return perr(p, "bad escape in string");
        }
    }
    buf[n] = '\0';
    p->pos = end + 1;
    *out = buf;
    return AG_SUCCESS;
}

static ag_error_t parse_value(parser_t *p, ag_json_t *v);

static ag_error_t grow(parser_t *p, ag_json_t *v, int64_t *cap, int with_keys) {
    if (v->count < *cap) return AG_SUCCESS;
    int64_t ncap = *cap ? 2 * *cap : 4;
    ag_json_t *items = ag_i_realloc(v->items, (size_t)ncap * sizeof *items);
    if (!items) return AG_ERROR(AG_ENOMEM, "%s: out of memory", p->what);
    v->items = items;
    if (with_keys) {
        char **keys = ag_i_realloc(v->keys, (size_t)ncap * sizeof *keys);
        if (!keys) return AG_ERROR(AG_ENOMEM, "%s: out of memory", p->what);
        v->keys = keys;
    }
    *cap = ncap;
    return AG_SUCCESS;
}

static ag_error_t parse_container(parser_t *p, ag_json_t *v, int object) {
    char close = object ? '}' : ']';
    int64_t cap = 0;
    v->type = object ? AG_JSON_OBJECT : AG_JSON_ARRAY;
    if (++p->depth > AG_JSON_MAX_DEPTH) return perr(p, "nesting too deep");
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) { p->pos++; p->depth--; return AG_SUCCESS; }
    for (;;) {
        AG_CHECK(grow(p, v, &cap, object));
        ag_json_t *item = &v->items[v->count];
        memset(item, 0, sizeof *item);
        if (object) {
            v->keys[v->count] = NULL;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != '"') return perr(p, "expected a string key");
            /* count the slot first so that the key is freed with the container on error */
            v->count++;
            AG_CHECK(parse_string(p, &v->keys[v->count - 1]));
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') return perr(p, "expected ':'");
            p->pos++;
        } else {
            v->count++;
        }
        AG_CHECK(parse_value(p, item));
        skip_ws(p);
        if (p->pos >= p->len) return perr(p, object ? "unterminated object" : "unterminated array");
        char c = p->s[p->pos++];
        if (c == close) break;
        if (c != ',') { p->pos--; return perr(p, object ? "expected ',' or '}'" : "expected ',' or ']'"); }
    }
    p->depth--;
    return AG_SUCCESS;
}

static ag_error_t parse_number(parser_t *p, ag_json_t *v) {
    size_t i = p->pos;
    if (i < p->len && p->s[i] == '-') i++;
    if (i >= p->len || !(p->s[i] >= '0' && p->s[i] <= '9')) return perr(p, "invalid value");
    if (p->s[i] == '0') i++;
    else while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    if (i < p->len && p->s[i] == '.') {
        i++;
        if (i >= p->len || !(p->s[i] >= '0' && p->s[i] <= '9')) return perr(p, "digit expected after '.'");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || !(p->s[i] >= '0' && p->s[i] <= '9')) return perr(p, "digit expected in exponent");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    char tmp[64];
    size_t n = i - p->pos;
    if (n >= sizeof tmp) {
        /* a long literal (many digits): strtod needs a terminated copy */
        char *big = ag_i_malloc(n + 1);
        if (!big) return AG_ERROR(AG_ENOMEM, "%s: out of memory", p->what);
        memcpy(big, p->s + p->pos, n);
        big[n] = '\0';
        v->number = strtod(big, NULL);
        ag_i_free(big);
    } else {
        memcpy(tmp, p->s + p->pos, n);
        tmp[n] = '\0';
        v->number = strtod(tmp, NULL);
    }
    v->type = AG_JSON_NUMBER;
    p->pos = i;
    return AG_SUCCESS;
}

static int match_word(parser_t *p, const char *w) {
    size_t n = strlen(w);
    if (p->pos + n <= p->len && !memcmp(p->s + p->pos, w, n)) { p->pos += n; return 1; }
    return 0;
}

static ag_error_t parse_value(parser_t *p, ag_json_t *v) {
    skip_ws(p);
    if (p->pos >= p->len) return perr(p, "unexpected end of input");
    char c = p->s[p->pos];
    if (c == '{') return parse_container(p, v, 1);
    if (c == '[') return parse_container(p, v, 0);
    if (c == '"') { v->type = AG_JSON_STRING; return parse_string(p, &v->string); }
    if (match_word(p, "true")) { v->type = AG_JSON_BOOL; v->boolean = 1; return AG_SUCCESS; }
    if (match_word(p, "false")) { v->type = AG_JSON_BOOL; v->boolean = 0; return AG_SUCCESS; }
    if (match_word(p, "null")) { v->type = AG_JSON_NULL; return AG_SUCCESS; }
    return parse_number(p, v);
}

static void free_contents(ag_json_t *v) {
    if (v->type == AG_JSON_STRING) ag_i_free(v->string);
    if (v->type == AG_JSON_ARRAY || v->type == AG_JSON_OBJECT) {
        for (int64_t i = 0; i < v->count; i++) {
            free_contents(&v->items[i]);
            if (v->keys) ag_i_free(v->keys[i]);
        }
        ag_i_free(v->items);
        ag_i_free(v->keys);
    }
}

void ag_json_free(ag_json_t *value) {
    if (!value) return;
    free_contents(value);
    ag_i_free(value);
}

ag_error_t ag_json_parse(const char *text, size_t len, const char *what, ag_json_t **out) {
    parser_t p = {text, len, 0, what ? what : "JSON", 0};
    *out = NULL;
    ag_json_t *root = ag_i_calloc(1, sizeof *root);
    if (!root) return AG_ERROR(AG_ENOMEM, "%s: out of memory", p.what);
    ag_error_t rc = parse_value(&p, root);
    if (rc == AG_SUCCESS) {
        skip_ws(&p);
        if (p.pos != p.len) rc = perr(&p, "unexpected text after the JSON value");
    }
    if (rc != AG_SUCCESS) {
        ag_json_free(root);
        return rc;
    }
    *out = root;
    return AG_SUCCESS;
}

ag_error_t ag_json_parse_file(const char *path, ag_json_t **out) {
    *out = NULL;
    FILE *f = ag_i_fopen_read(path);
    if (!f) return AG_ERROR(AG_EFILE, "%s: cannot open: %s", path, strerror(errno));
    char *buf;
    size_t len;
    ag_error_t rc = ag_i_read_stream(f, &buf, &len);
    fclose(f);
    if (rc != AG_SUCCESS) {
        ag_i_free(buf);
        return rc == AG_ENOMEM ? AG_ERROR(AG_ENOMEM, "%s: out of memory reading the file", path)
                               : AG_ERROR(AG_EFILE, "%s: read error", path);
    }
    /* a UTF-8 byte-order mark (an editor's) is passed over, as graph files' and CSVs' are; line and
     * column numbers still count from the file's start */
    memset(buf, ' ', ag_i_bom_length(buf, len));
    rc = ag_json_parse(buf, len, path, out);
    ag_i_free(buf);
    return rc;
}

const ag_json_t *ag_json_get(const ag_json_t *obj, const char *key) {
    if (!obj || obj->type != AG_JSON_OBJECT) return NULL;
    for (int64_t i = 0; i < obj->count; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}

ag_error_t ag_json_check_keys(const ag_json_t *obj, const char *const *known, size_t n_known, ag_error_t code,
                              const char *prefix, const char *object) {
    if (!obj || obj->type != AG_JSON_OBJECT) return AG_SUCCESS;
    for (int64_t i = 0; i < obj->count; i++) {
        const char *k = obj->keys[i];
        char shown[80];
        size_t j = 0;
        while (j < n_known && strcmp(known[j], k) != 0) j++;
        if (j == n_known)
            return AG_ERROR(code, "%sunknown key '%s' in %s (attn-graph %s does not know it: the file was written by "
                            "a newer version, or edited)", prefix, ag_i_utf8_show(k, shown, sizeof shown), object,
                            ag_version());
        for (int64_t e = 0; e < i; e++)
            if (!strcmp(obj->keys[e], k)) return AG_ERROR(code, "%s%s has key '%s' twice", prefix, object, k);
    }
    return AG_SUCCESS;
}

/* ---- writing */

void ag_strbuf_init(ag_strbuf_t *sb) {
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->failed = 0;
}

void ag_strbuf_destroy(ag_strbuf_t *sb) {
    ag_i_free(sb->data);
    ag_strbuf_init(sb);
}

static int reserve(ag_strbuf_t *sb, size_t extra) {
    if (sb->failed) return 0;
    if (sb->len + extra + 1 <= sb->cap) return 1;
    size_t ncap = sb->cap ? sb->cap : 256;
    while (ncap < sb->len + extra + 1) ncap *= 2;
    char *nd = ag_i_realloc(sb->data, ncap);
    if (!nd) { sb->failed = 1; return 0; }
    sb->data = nd;
    sb->cap = ncap;
    return 1;
}

void ag_strbuf_append(ag_strbuf_t *sb, const char *s, size_t n) {
    if (!reserve(sb, n)) return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void ag_strbuf_printf(ag_strbuf_t *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) { sb->failed = 1; return; }
    if (!reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void ag_strbuf_json_string(ag_strbuf_t *sb, const char *s) {
    ag_strbuf_append(sb, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"': ag_strbuf_append(sb, "\\\"", 2); break;
        case '\\': ag_strbuf_append(sb, "\\\\", 2); break;
        case '\n': ag_strbuf_append(sb, "\\n", 2); break;
        case '\r': ag_strbuf_append(sb, "\\r", 2); break;
        case '\t': ag_strbuf_append(sb, "\\t", 2); break;
        default:
            if (*c < 0x20) ag_strbuf_printf(sb, "\\u%04x", *c);
            else ag_strbuf_append(sb, (const char *)c, 1);
        }
    }
    ag_strbuf_append(sb, "\"", 1);
}

void ag_strbuf_json_float(ag_strbuf_t *sb, float v) {
    if (!isfinite(v)) ag_strbuf_append(sb, "null", 4);
    else ag_strbuf_printf(sb, "%.9g", (double)v);
}
