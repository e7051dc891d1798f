/*
 * fuzz_json.c: the JSON reader behind split files and model-file headers (ag_json_parse, internal),
 * directly on the bytes. Parsed strings are written back with the JSON string writer and must
 * parse again to the same text.
 */
#include <string.h>
#include "fuzz_common.h"
#include "json.h"

static void roundtrip_strings(const ag_json_t *v) {
    if (v->type == AG_JSON_STRING) {
        ag_strbuf_t sb;
        ag_strbuf_init(&sb);
        ag_strbuf_json_string(&sb, v->string);
        if (sb.failed) abort();
        ag_json_t *back = NULL;
        if (ag_json_parse(sb.data, sb.len, "roundtrip", &back) != AG_SUCCESS) {
            fprintf(stderr, "fuzz: a string written by ag_strbuf_json_string does not parse: %s\n",
                    ag_error_message());
            abort();
        }
        if (back->type != AG_JSON_STRING || strcmp(back->string, v->string) != 0) abort();
        ag_json_free(back);
        ag_strbuf_destroy(&sb);
    }
    if (v->type == AG_JSON_ARRAY || v->type == AG_JSON_OBJECT)
        for (int64_t i = 0; i < v->count; i++) roundtrip_strings(&v->items[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ag_json_t *doc = NULL;
    ag_error_clear();
    ag_error_t rc = ag_json_parse((const char *)data, size, "fuzz.json", &doc);
    fuzz_check_result(rc, "ag_json_parse");
    if (rc == AG_SUCCESS) {
        roundtrip_strings(doc);
        ag_json_free(doc);
    } else if (doc != NULL) {
        abort();
    }
    return 0;
}
