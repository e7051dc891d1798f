/*
 * golden_testutil.c: golden-output comparison with a printed-digit tolerance, and a small strict
 * XML well-formedness checker (golden_testutil.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "golden_testutil.h"

/* ---- golden comparison */

static int is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of the number starting at s[i] (0 if none starts there). */
static size_t number_at(const char *s, size_t i) {
    if (i > 0 && is_word(s[i - 1])) return 0;
    size_t k = i;
    if (s[k] == '-' || s[k] == '+') k++;
    if (!is_digit(s[k])) return 0;
    while (is_digit(s[k])) k++;
    if (s[k] == '.' && is_digit(s[k + 1])) {
        k++;
        while (is_digit(s[k])) k++;
    }
    int sign = (s[k] == 'e' || s[k] == 'E') && (s[k + 1] == '-' || s[k + 1] == '+');
    if ((s[k] == 'e' || s[k] == 'E') && is_digit(s[k + 1 + sign])) {
        k += 1 + (size_t)sign;
        while (is_digit(s[k])) k++;
    }
    if (is_word(s[k])) return 0; /* 3rd, 0x1f, 12abc: part of a word */
    return k - i;
}

/* The value of one unit in the last printed digit of a number's text; 0 for an integer. */
static double last_unit(const char *s, size_t n, int *integer) {
    const char *dot = memchr(s, '.', n);
    const char *e = NULL;
    for (size_t k = 0; k < n; k++)
        if (s[k] == 'e' || s[k] == 'E') e = s + k;
    int decimals = 0;
    if (dot) decimals = (int)((e ? e : s + n) - dot - 1);
    int exponent = e ? atoi(e + 1) : 0;
    *integer = !dot && !e;
    if (*integer) return 0.0;
    return pow(10.0, exponent - decimals);
}

static int line_of(const char *s, size_t i) {
    int line = 1;
    for (size_t k = 0; k < i; k++) line += s[k] == '\n';
    return line;
}

/* The line holding s[i], as far as it fits, for messages. */
static void line_text(char *buf, size_t cap, const char *s, size_t i) {
    size_t a = i, b = i;
    while (a > 0 && s[a - 1] != '\n') a--;
    while (s[b] && s[b] != '\n') b++;
    size_t n = b - a < cap - 1 ? b - a : cap - 1;
    memcpy(buf, s + a, n);
    buf[n] = '\0';
}

static int differ(const char *exp, size_t i, const char *act, size_t j, char *why, size_t whyn, const char *what) {
    char le[160], la[160];
    line_text(le, sizeof le, exp, i);
    line_text(la, sizeof la, act, j);
    snprintf(why, whyn, "line %d: %s\n  expected: %s\n  actual:   %s", line_of(exp, i), what, le, la);
    return 0;
}

int ag_golden_compare(const char *expected, const char *actual, int *n_tolerated, char *why, size_t whyn) {
    const char *exact = getenv("AG_GOLDEN_EXACT");
    *n_tolerated = 0;
    why[0] = '\0';
    if (exact && !strcmp(exact, "1")) {
        size_t i = 0;
        while (expected[i] && expected[i] == actual[i]) i++;
        if (expected[i] == actual[i]) return 1;
        return differ(expected, i, actual, i, why, whyn, "bytes differ (AG_GOLDEN_EXACT=1)");
    }
    size_t i = 0, j = 0;
    for (;;) {
        size_t ni = number_at(expected, i), nj = number_at(actual, j);
        if (ni > 0 && nj > 0) {
            if (ni == nj && !memcmp(expected + i, actual + j, ni)) {
                i += ni;
                j += nj;
                continue;
            }
            int ia, ib;
            double a = strtod(expected + i, NULL), b = strtod(actual + j, NULL);
            double ua = last_unit(expected + i, ni, &ia), ub = last_unit(actual + j, nj, &ib);
            double tol = fmax(2.0 * fmax(ua, ub), fmax(1e-5 * fmax(fabs(a), fabs(b)), 1e-6));
            if ((ia && ib) || !(fabs(a - b) <= tol)) return differ(expected, i, actual, j, why, whyn, "numbers differ");
            ++*n_tolerated;
            i += ni;
            j += nj;
            continue;
        }
        if (expected[i] != actual[j]) return differ(expected, i, actual, j, why, whyn, "text differs");
        if (!expected[i]) return 1;
        i++;
        j++;
    }
}

/* ---- XML well-formedness */

typedef struct xml_t {
    const char *s;
    size_t i;
    char *why;
    size_t whyn;
    const char *count_name;
    int64_t count;
} xml_t;

static int fail(xml_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(xml_t *x, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(x->why, x->whyn, "line %d: %s", line_of(x->s, x->i), msg);
    return 0;
}

static int name_start(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int name_char(unsigned char c) { return name_start(c) || is_digit((char)c) || c == '-' || c == '.'; }

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(xml_t *x) {
    while (is_space(x->s[x->i])) x->i++;
}

/* A Name at x->i: its length (0 if none). */
static size_t name_len(const xml_t *x) {
    const unsigned char *p = (const unsigned char *)x->s + x->i;
    if (!name_start(p[0])) return 0;
    size_t n = 1;
    while (name_char(p[n])) n++;
    return n;
}

static int starts(const xml_t *x, const char *lit) { return !strncmp(x->s + x->i, lit, strlen(lit)); }

/* A reference after '&': &name; of the five predefined entities, or &#N; / &#xH;. */
static int reference(xml_t *x) {
    static const char *const ents[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
    x->i++;
    for (int k = 0; k < 5; k++)
        if (starts(x, ents[k])) {
            x->i += strlen(ents[k]);
            return 1;
        }
    if (x->s[x->i] == '#') {
        x->i++;
        int hex = x->s[x->i] == 'x';
        if (hex) x->i++;
        size_t n = 0;
        while (hex ? strchr("0123456789abcdefABCDEF", x->s[x->i]) && x->s[x->i] : is_digit(x->s[x->i])) x->i++, n++;
        if (n > 0 && x->s[x->i] == ';') {
            x->i++;
            return 1;
        }
    }
    return fail(x, "'&' that starts no character or predefined entity reference");
}

/* Text up to the next '<' (or the end): no ']]>', references checked. */
static int char_data(xml_t *x) {
    while (x->s[x->i] && x->s[x->i] != '<') {
        if (x->s[x->i] == '&') {
            if (!reference(x)) return 0;
        } else if (starts(x, "]]>")) {
            return fail(x, "']]>' in text");
        } else {
            x->i++;
        }
    }
    return 1;
}

static int comment(xml_t *x) {
    x->i += 4;
    while (x->s[x->i] && !starts(x, "--")) x->i++;
    if (!starts(x, "-->")) return fail(x, x->s[x->i] ? "'--' inside a comment" : "comment not closed");
    x->i += 3;
    return 1;
}

static int processing_instruction(xml_t *x) {
    x->i += 2;
    size_t n = name_len(x);
    if (n == 0) return fail(x, "processing instruction without a target name");
    x->i += n;
    while (x->s[x->i] && !starts(x, "?>")) x->i++;
    if (!x->s[x->i]) return fail(x, "processing instruction not closed");
    x->i += 2;
    return 1;
}

/* Comments, processing instructions and white space (before or after the root element). */
static int misc(xml_t *x, int allow_doctype) {
    for (;;) {
        skip_space(x);
        if (starts(x, "<!--")) {
            if (!comment(x)) return 0;
        } else if (starts(x, "<?")) {
            if (!processing_instruction(x)) return 0;
        } else if (allow_doctype && starts(x, "<!DOCTYPE")) {
            while (x->s[x->i] && x->s[x->i] != '>' && x->s[x->i] != '[') x->i++;
            if (x->s[x->i] != '>') return fail(x, "DOCTYPE not closed (an internal subset is not supported)");
            x->i++;
            allow_doctype = 0;
        } else {
            return 1;
        }
    }
}

/* One element at '<' with everything inside it; depth-first with an explicit stack of names. */
static int element(xml_t *x) {
    enum { MAX_DEPTH = 512 };
    size_t open_at[MAX_DEPTH], open_len[MAX_DEPTH];
    int depth = 0;
    for (;;) {
        /* x->i is at '<' of a start tag */
        x->i++;
        size_t n = name_len(x);
        if (n == 0) return fail(x, "'<' not followed by an element name");
        size_t name_at = x->i;
        x->i += n;
        if (x->count_name && strlen(x->count_name) == n && !strncmp(x->s + name_at, x->count_name, n)) x->count++;
        /* attributes */
        size_t attr_at[256], attr_len[256];
        int n_attr = 0;
        for (;;) {
            int space = is_space(x->s[x->i]);
            skip_space(x);
            if (x->s[x->i] == '>' || starts(x, "/>")) break;
            size_t an = name_len(x);
            if (an == 0) return fail(x, "bad attribute name in element '%.*s'", (int)n, x->s + name_at);
            if (!space) return fail(x, "no white space before attribute '%.*s'", (int)an, x->s + x->i);
            for (int k = 0; k < n_attr; k++)
                if (attr_len[k] == an && !strncmp(x->s + attr_at[k], x->s + x->i, an))
                    return fail(x, "attribute '%.*s' repeated", (int)an, x->s + x->i);
            if (n_attr == 256) return fail(x, "more than 256 attributes");
            attr_at[n_attr] = x->i;
            attr_len[n_attr++] = an;
            x->i += an;
            skip_space(x);
            if (x->s[x->i] != '=') return fail(x, "attribute '%.*s' without '='", (int)an, x->s + attr_at[n_attr - 1]);
            x->i++;
            skip_space(x);
            char q = x->s[x->i];
            if (q != '"' && q != '\'') return fail(x, "attribute value not quoted");
            x->i++;
            while (x->s[x->i] && x->s[x->i] != q) {
                if (x->s[x->i] == '<') return fail(x, "'<' in an attribute value");
                if (x->s[x->i] == '&') {
                    if (!reference(x)) return 0;
                } else {
                    x->i++;
                }
            }
            if (!x->s[x->i]) return fail(x, "attribute value not closed");
            x->i++;
        }
        if (starts(x, "/>")) {
            x->i += 2;
        } else {
            x->i++;
            if (depth == MAX_DEPTH) return fail(x, "elements nested deeper than %d", MAX_DEPTH);
            open_at[depth] = name_at;
            open_len[depth++] = n;
        }
        /* content until the next start tag, or end tags closing elements */
        for (;;) {
            if (depth == 0) return 1;
            if (!char_data(x)) return 0;
            if (!x->s[x->i]) return fail(x, "end of document inside element '%.*s'", (int)open_len[depth - 1],
                                         x->s + open_at[depth - 1]);
            if (starts(x, "<!--")) {
                if (!comment(x)) return 0;
            } else if (starts(x, "<![CDATA[")) {
                const char *end = strstr(x->s + x->i, "]]>");
                if (!end) return fail(x, "CDATA section not closed");
                x->i = (size_t)(end - x->s) + 3;
            } else if (starts(x, "<?")) {
                if (!processing_instruction(x)) return 0;
            } else if (starts(x, "</")) {
                x->i += 2;
                size_t en = name_len(x);
                if (en != open_len[depth - 1] || strncmp(x->s + x->i, x->s + open_at[depth - 1], en))
                    return fail(x, "'</%.*s>' closes '%.*s'", (int)en, x->s + x->i, (int)open_len[depth - 1],
                                x->s + open_at[depth - 1]);
                x->i += en;
                skip_space(x);
                if (x->s[x->i] != '>') return fail(x, "end tag not closed by '>'");
                x->i++;
                depth--;
            } else if (starts(x, "<!")) {
                return fail(x, "'<!' that starts no comment or CDATA section");
            } else {
                break; /* a child element's start tag */
            }
        }
    }
}

/* Valid UTF-8 and no control characters other than tab, line feed and carriage return. */
static int check_chars(xml_t *x) {
    const unsigned char *p = (const unsigned char *)x->s;
    for (size_t i = 0; p[i];) {
        unsigned char c = p[i];
        int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        x->i = i;
        if (len == 0 || (len == 2 && c < 0xc2)) return fail(x, "invalid UTF-8 byte 0x%02x", c);
        for (int k = 1; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80) return fail(x, "truncated UTF-8 sequence");
        if (len == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return fail(x, "control character 0x%02x", c);
        i += (size_t)len;
    }
    return 1;
}

int ag_xml_check(const char *doc, const char *count_name, int64_t *count, char *why, size_t whyn) {
    xml_t x = {doc, 0, why, whyn, count_name, 0};
    why[0] = '\0';
    if (count) *count = 0;
    if (!check_chars(&x)) return 0;
    x.i = 0;
    if (starts(&x, "<?xml")) {
        if (!processing_instruction(&x)) return 0;
    }
    if (!misc(&x, 1)) return 0;
    if (x.s[x.i] != '<') return fail(&x, x.s[x.i] ? "text before the root element" : "no root element");
    if (!element(&x)) return 0;
    if (!misc(&x, 0)) return 0;
    if (x.s[x.i]) return fail(&x, "content after the root element");
    if (count) *count = x.count;
    return 1;
}
