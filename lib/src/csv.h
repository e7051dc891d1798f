/*
 * csv.h: the delimited-text reader behind node tables, label tables and split files (internal).
 *
 * A whole file is read into one buffer and split into records in place (fields are NUL-terminated
 * inside the buffer, quoted fields unescaped in place), so reading allocates nothing per cell.
 */
#ifndef ATTNGRAPH_CSV_H
#define ATTNGRAPH_CSV_H

#include <stddef.h>
#include <stdint.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* Delimiter value meaning "runs of spaces and tabs" (Cora's .content, sparse feature lines). */
#define AG_CSV_WHITESPACE ' '

typedef struct ag_csv_t {
    char *buf;          /* (len + 1) the file, NUL-terminated; fields point into it */
    size_t len;
    size_t pos;         /* next unread byte */
    const char *path;   /* for messages; not owned */
    char delim;         /* ',', '\t', ';' (RFC 4180 quoting) or AG_CSV_WHITESPACE (no quoting) */
    int64_t line;       /* 1-based line where the current record starts */
    int64_t next_line;  /* line of the next unread byte */
    char **fields;      /* (n_fields) the current record's fields */
    int64_t n_fields;
    int64_t cap;
} ag_csv_t;

/* Reads path into memory (AG_EFILE if it cannot be read). The delimiter is chosen later. */
ag_error_t ag_csv_open(ag_csv_t *csv, const char *path);
void ag_csv_close(ag_csv_t *csv);

/* The delimiter of a table with a header: '\t' for .tsv/.tab; ',' for a .csv whose first line has
 * a comma or no separator at all; otherwise the most frequent of tab, comma and semicolon on the
 * first line (comma if none occurs), so that a spreadsheet's "file;label" .csv reads. */
char ag_csv_sniff(const ag_csv_t *csv);

/* Reads the next record into csv->fields. *got is 0 at end of file. Blank lines are skipped.
 * AG_EPARSE "path:line: ..." for an unterminated quote or text after a closing quote. */
ag_error_t ag_csv_next(ag_csv_t *csv, int *got);

/* AG_EPARSE "path:line: F fields, the header has n" unless the current record has n fields. */
ag_error_t ag_csv_expect_fields(const ag_csv_t *csv, int64_t n);

/* Index of the field equal to name in the current record, or -1. */
int64_t ag_csv_find(const ag_csv_t *csv, const char *name);

/* Parses a whole field as a number; 0 on success, -1 if it is empty or not entirely a number.
 * NaN and infinities parse successfully (callers decide whether they are allowed). */
int ag_csv_parse_float(const char *s, float *out);
int ag_csv_parse_double(const char *s, double *out);

#pragma GCC visibility pop
#endif
