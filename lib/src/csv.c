/*
 * csv.c: delimited text split in place (see csv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "internal.h"

ag_error_t ag_csv_open(ag_csv_t *csv, const char *path) {
    memset(csv, 0, sizeof *csv);
    csv->path = path;
    csv->line = csv->next_line = 1;
    FILE *f = ag_i_fopen_read(path);
    if (!f) return AG_ERROR(AG_EFILE, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return AG_ERROR(AG_EFILE, "%s: cannot seek", path);
    }
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return AG_ERROR(AG_EFILE, "%s: cannot determine the size", path);
    }
    csv->buf = ag_i_malloc((size_t)size + 1);
    if (!csv->buf) {
        fclose(f);
        return AG_ERROR(AG_ENOMEM, "%s: out of memory reading %ld bytes", path, size);
    }
    size_t got = fread(csv->buf, 1, (size_t)size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != (size_t)size) {
        ag_csv_close(csv);
        return AG_ERROR(AG_EFILE, "%s: read error", path);
    }
    csv->buf[got] = '\0';
    csv->len = got;
    /* A UTF-8 byte order mark would otherwise become part of the first column's name. */
    csv->pos = ag_i_bom_length(csv->buf, got);
    csv->delim = ',';
    return AG_SUCCESS;
}

void ag_csv_close(ag_csv_t *csv) {
    ag_i_free(csv->buf);
    ag_i_free(csv->fields);
    csv->buf = NULL;
    csv->fields = NULL;
    csv->n_fields = csv->cap = 0;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

char ag_csv_sniff(const ag_csv_t *csv) {
    if (ends_with(csv->path, ".tsv") || ends_with(csv->path, ".tab")) return '\t';
    int64_t tabs = 0, commas = 0, semis = 0;
    for (size_t i = csv->pos; i < csv->len && csv->buf[i] != '\n'; i++) {
        if (csv->buf[i] == '\t')
            tabs++;
        else if (csv->buf[i] == ',')
            commas++;
        else if (csv->buf[i] == ';')
            semis++;
    }
    /* a .csv is comma-separated unless its header has no comma at all: spreadsheets set to a
     * decimal comma export "file;label" under that name */
    if (ends_with(csv->path, ".csv") && (commas > 0 || (semis == 0 && tabs == 0))) return ',';
    if (tabs > commas && tabs >= semis) return '\t';
    if (semis > commas) return ';';
    return ',';
}

static ag_error_t push_field(ag_csv_t *csv, char *field) {
    if (csv->n_fields == csv->cap) {
        int64_t cap = csv->cap ? 2 * csv->cap : 64;
        char **p = ag_i_realloc(csv->fields, (size_t)cap * sizeof *p);
        if (!p) return AG_ERROR(AG_ENOMEM, "%s: out of memory splitting line %lld", csv->path, (long long)csv->line);
        csv->fields = p;
        csv->cap = cap;
    }
    csv->fields[csv->n_fields++] = field;
    return AG_SUCCESS;
}

/* Whitespace-separated: fields are runs of non-blank bytes on one line. */
static ag_error_t next_whitespace(ag_csv_t *csv) {
    char *b = csv->buf;
    size_t i = csv->pos;
    while (i < csv->len && b[i] != '\n') {
        while (i < csv->len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r')) i++;
        if (i >= csv->len || b[i] == '\n') break;
        char *start = b + i;
        while (i < csv->len && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n') i++;
        int at_newline = i < csv->len && b[i] == '\n';
        if (i < csv->len) b[i] = '\0';
        AG_CHECK(push_field(csv, start));
        if (at_newline) {
            csv->pos = i + 1;
            csv->next_line++;
            return AG_SUCCESS;
        }
        if (i < csv->len) i++;
    }
    if (i < csv->len) {
        csv->next_line++;
        i++;
    }
    csv->pos = i;
    return AG_SUCCESS;
}

/* RFC 4180: a field starting with a quote runs to the matching quote ("" is an escaped quote) and
 * may contain delimiters and newlines; it is unescaped in place. */
static ag_error_t next_delimited(ag_csv_t *csv) {
    char *b = csv->buf;
    size_t i = csv->pos;
    const char d = csv->delim;
    for (;;) {
        char *start = b + i;
        if (i < csv->len && b[i] == '"') {
            size_t w = i;
            i++;
            for (;;) {
                if (i >= csv->len)
                    return AG_ERROR(AG_EPARSE, "%s:%lld: unterminated quoted field", csv->path, (long long)csv->line);
                if (b[i] == '"') {
                    if (i + 1 < csv->len && b[i + 1] == '"') {
                        b[w++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (b[i] == '\n') csv->next_line++;
                b[w++] = b[i++];
            }
            if (i < csv->len && b[i] == '\r' && (i + 1 >= csv->len || b[i + 1] == '\n')) i++;
            if (i < csv->len && b[i] != d && b[i] != '\n')
                return AG_ERROR(AG_EPARSE, "%s:%lld: text after the closing quote of field %lld", csv->path,
                                (long long)csv->next_line, (long long)csv->n_fields + 1);
            b[w] = '\0'; /* w < i: the opening quote at least was dropped */
        } else {
            while (i < csv->len && b[i] != d && b[i] != '\n') i++;
            size_t end = i;
            if (end > (size_t)(start - b) && b[end - 1] == '\r') end--;
            if (end < i) b[end] = '\0'; /* a CR before the newline; b[i] itself is cut below */
        }
        AG_CHECK(push_field(csv, start));
        if (i >= csv->len) {
            csv->pos = i;
            return AG_SUCCESS;
        }
        if (b[i] == '\n') {
            b[i] = '\0';
            csv->pos = i + 1;
            csv->next_line++;
            return AG_SUCCESS;
        }
        b[i] = '\0';
        i++; /* past the delimiter: another field follows, possibly empty */
    }
}

ag_error_t ag_csv_next(ag_csv_t *csv, int *got) {
    *got = 0;
    for (;;) {
        csv->n_fields = 0;
        /* Skip blank lines (only a CR or nothing). */
        while (csv->pos < csv->len) {
            size_t i = csv->pos;
            while (i < csv->len && (csv->buf[i] == '\r' ||
                                    (csv->delim == AG_CSV_WHITESPACE && (csv->buf[i] == ' ' || csv->buf[i] == '\t'))))
                i++;
            if (i < csv->len && csv->buf[i] == '\n') {
                csv->pos = i + 1;
                csv->next_line++;
            } else {
                if (i >= csv->len) csv->pos = i;
                break;
            }
        }
        if (csv->pos >= csv->len) return AG_SUCCESS;
        csv->line = csv->next_line;
        if (csv->delim == AG_CSV_WHITESPACE)
            AG_CHECK(next_whitespace(csv));
        else
            AG_CHECK(next_delimited(csv));
        if (csv->n_fields > 0) {
            *got = 1;
            return AG_SUCCESS;
        }
    }
}

ag_error_t ag_csv_expect_fields(const ag_csv_t *csv, int64_t n) {
    if (csv->n_fields == n) return AG_SUCCESS;
    return AG_ERROR(AG_EPARSE, "%s:%lld: %lld fields, the header has %lld", csv->path, (long long)csv->line,
                    (long long)csv->n_fields, (long long)n);
}

int64_t ag_csv_find(const ag_csv_t *csv, const char *name) {
    for (int64_t i = 0; i < csv->n_fields; i++)
        if (strcmp(csv->fields[i], name) == 0) return i;
    return -1;
}

static const char *skip_blanks(const char *s) {
    while (*s == ' ') s++;
    return s;
}

int ag_csv_parse_float(const char *s, float *out) {
    char *end;
    s = skip_blanks(s);
    if (*s == '\0') return -1;
    *out = strtof(s, &end);
    end = (char *)skip_blanks(end);
    return *end == '\0' ? 0 : -1;
}

int ag_csv_parse_double(const char *s, double *out) {
    char *end;
    s = skip_blanks(s);
    if (*s == '\0') return -1;
    *out = strtod(s, &end);
    end = (char *)skip_blanks(end);
    return *end == '\0' ? 0 : -1;
}
