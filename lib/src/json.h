/*
 * json.h: a small JSON reader and writer (internal), for split files, model-file headers
 * (safetensors) and the featurisation kept in models.
 */
#ifndef ATTNGRAPH_JSON_H
#define ATTNGRAPH_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

typedef enum ag_json_type_t {
    AG_JSON_NULL = 0,
    AG_JSON_BOOL,
    AG_JSON_NUMBER,
    AG_JSON_STRING,
    AG_JSON_ARRAY,
    AG_JSON_OBJECT
} ag_json_type_t;

typedef struct ag_json_t ag_json_t;
struct ag_json_t {
    ag_json_type_t type;
    int boolean;       /* AG_JSON_BOOL */
    double number;     /* AG_JSON_NUMBER */
    char *string;      /* AG_JSON_STRING: NUL-terminated UTF-8 (a \u0000 escape is refused) */
    int64_t count;     /* AG_JSON_ARRAY, AG_JSON_OBJECT: number of items */
    ag_json_t *items;  /* (count) array elements or object values, in document order */
    char **keys;       /* (count) object keys, in document order; NULL for arrays */
};

/* Parses text[0..len). `what` names the input in error messages ("split.json"); errors give
 * AG_EPARSE with "what:line:column: reason". Nesting deeper than 256 levels is refused. */
ag_error_t ag_json_parse(const char *text, size_t len, const char *what, ag_json_t **out);

/* Reads and parses a whole file (AG_EFILE if it cannot be read). */
ag_error_t ag_json_parse_file(const char *path, ag_json_t **out);

void ag_json_free(ag_json_t *value);

/* The value of key in an object, or NULL (also NULL if obj is not an object). */
const ag_json_t *ag_json_get(const ag_json_t *obj, const char *key);

/* Refuses an object that has a key `known` (n_known names) does not list, or a key twice (the
 * reader would take the first and drop the other): `code` with "<prefix>unknown key 'k' in
 * <object> (...)" or "<prefix><object> has key 'k' twice". The model file's objects are closed: a
 * key this version does not know is a setting it cannot honour (docs/model-format.md). AG_SUCCESS
 * when obj is not an object (its reader says what it should be). */
ag_error_t ag_json_check_keys(const ag_json_t *obj, const char *const *known, size_t n_known, ag_error_t code,
                              const char *prefix, const char *object);

/* A growing string for writing JSON (and any text). After an allocation failure `failed` is set
 * and further appends do nothing; check it once at the end. */
typedef struct ag_strbuf_t {
    char *data; /* NUL-terminated */
    size_t len;
    size_t cap;
    int failed;
} ag_strbuf_t;

void ag_strbuf_init(ag_strbuf_t *sb);
void ag_strbuf_destroy(ag_strbuf_t *sb);
void ag_strbuf_append(ag_strbuf_t *sb, const char *s, size_t n);
void ag_strbuf_printf(ag_strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted JSON string with escapes. */
void ag_strbuf_json_string(ag_strbuf_t *sb, const char *s);
/* Appends a float so that it reads back to the same float32 ("%.9g"); NaN and infinities, which
 * JSON cannot hold, are written as null. */
void ag_strbuf_json_float(ag_strbuf_t *sb, float v);

#pragma GCC visibility pop
#endif
