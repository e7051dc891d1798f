/* Tests of the internal JSON reader and writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>
#include "json.h"

static ag_json_t *parse_ok(const char *text) {
    ag_json_t *v = NULL;
    assert_int_equal(ag_json_parse(text, strlen(text), "t.json", &v), AG_SUCCESS);
    assert_non_null(v);
    return v;
}

static void parse_fails(const char *text, const char *message) {
    ag_json_t *v = (ag_json_t *)0x1;
    assert_int_equal(ag_json_parse(text, strlen(text), "t.json", &v), AG_EPARSE);
    assert_null(v);
    if (!strstr(ag_error_message(), message)) fail_msg("message '%s' lacks '%s'", ag_error_message(), message);
}

static void test_values(void **state) {
    (void)state;
    ag_json_t *v = parse_ok(" {\"a\": [1, -2.5e2, 0.125], \"b\": {\"c\": \"x\\u00e9\\n\\\"\"},"
                            " \"t\": true, \"f\": false, \"n\": null, \"e\": [], \"o\": {}} ");
    assert_int_equal(v->type, AG_JSON_OBJECT);
    assert_int_equal(v->count, 7);
    const ag_json_t *a = ag_json_get(v, "a");
    assert_int_equal(a->type, AG_JSON_ARRAY);
    assert_int_equal(a->count, 3);
    assert_float_equal(a->items[0].number, 1.0, 0.0);
    assert_float_equal(a->items[1].number, -250.0, 0.0);
    assert_float_equal(a->items[2].number, 0.125, 0.0);
    assert_string_equal(ag_json_get(ag_json_get(v, "b"), "c")->string, "x\xc3\xa9\n\"");
    assert_int_equal(ag_json_get(v, "t")->boolean, 1);
    assert_int_equal(ag_json_get(v, "f")->type, AG_JSON_BOOL);
    assert_int_equal(ag_json_get(v, "f")->boolean, 0);
    assert_int_equal(ag_json_get(v, "n")->type, AG_JSON_NULL);
    assert_int_equal(ag_json_get(v, "e")->count, 0);
    assert_int_equal(ag_json_get(v, "o")->type, AG_JSON_OBJECT);
    assert_null(ag_json_get(v, "missing"));
    assert_null(ag_json_get(a, "a"));
    ag_json_free(v);
    v = parse_ok("\"\\ud83d\\ude00\"");
    assert_string_equal(v->string, "\xf0\x9f\x98\x80");
    ag_json_free(v);
}

static void test_errors(void **state) {
    (void)state;
    parse_fails("{\"a\": 1,\n \"b\" 2}", "t.json:2:6: expected ':'");
    parse_fails("[1, 2", "unterminated array");
    parse_fails("{\"a\": 1} x", "unexpected text after the JSON value");
    parse_fails("\"abc", "unterminated string");
    parse_fails("[01x]", "expected ',' or ']'");
    parse_fails("[1.]", "digit expected after '.'");
    parse_fails("[tru]", "invalid value");
    parse_fails("\"\\u0000\"", "\\u0000 in string");
    parse_fails("\"\\ud83d\"", "unpaired surrogate");
    parse_fails("\"a\\qb\"", "bad escape");
    parse_fails("", "unexpected end of input");
    char deep[600];
    memset(deep, '[', 300);
    memset(deep + 300, ']', 300);
    deep[600 - 1] = '\0';
    parse_fails(deep, "nesting too deep");
}

static void test_writer_roundtrip(void **state) {
    (void)state;
    ag_strbuf_t sb;
    ag_strbuf_init(&sb);
    ag_strbuf_append(&sb, "{\"s\": ", 6);
    ag_strbuf_json_string(&sb, "tab\there \"q\" back\\slash \x01");
    ag_strbuf_printf(&sb, ", \"n\": [%d, ", 42);
    ag_strbuf_json_float(&sb, 0.1f);
    ag_strbuf_append(&sb, ", ", 2);
    ag_strbuf_json_float(&sb, 1.0f / 0.0f);
    ag_strbuf_append(&sb, "]}", 2);
    assert_false(sb.failed);
    ag_json_t *v = parse_ok(sb.data);
    assert_string_equal(ag_json_get(v, "s")->string, "tab\there \"q\" back\\slash \x01");
    const ag_json_t *n = ag_json_get(v, "n");
    assert_float_equal(n->items[0].number, 42.0, 0.0);
    assert_true((float)n->items[1].number == 0.1f); /* %.9g round-trips float32 exactly */
    assert_int_equal(n->items[2].type, AG_JSON_NULL);
    ag_json_free(v);
    ag_strbuf_destroy(&sb);
}

/* An object's keys against a list: each listed key once passes; another key, or one twice, is
 * the given code with the prefix, the key and the object; what is not an object passes. */
static void test_check_keys(void **state) {
    (void)state;
    static const char *const known[] = {"a", "b", "c"};
    ag_json_t *v = parse_ok("{\"b\": 1, \"a\": {\"z\": 0}}");
    assert_int_equal(ag_json_check_keys(v, known, 3, AG_EMODEL, "m: ", "metadata 'x'"), AG_SUCCESS);
    assert_int_equal(ag_json_check_keys(ag_json_get(v, "b"), known, 3, AG_EMODEL, "m: ", "b"), AG_SUCCESS);
    assert_int_equal(ag_json_check_keys(v, known, 1, AG_EMODEL, "m: ", "metadata 'x'"), AG_EMODEL);
    if (!strstr(ag_error_message(), "m: unknown key 'b' in metadata 'x' (attn-graph "))
        fail_msg("%s", ag_error_message());
    ag_json_free(v);
    v = parse_ok("{\"a\": 1, \"c\": 2, \"a\": 3}");
    assert_int_equal(ag_json_check_keys(v, known, 3, AG_EVALUE, "", "the object"), AG_EVALUE);
    assert_string_equal(ag_error_message(), "the object has key 'a' twice");
    ag_json_free(v);
    /* a long key is cut in the message, which still names the object */
    char text[400] = "{\"";
    memset(text + 2, 'k', 300);
    strcpy(text + 302, "\": 1}");
    v = parse_ok(text);
    assert_int_equal(ag_json_check_keys(v, known, 3, AG_EMODEL, "", "metadata 'graph'"), AG_EMODEL);
    if (!strstr(ag_error_message(), "kkk...' in metadata 'graph'")) fail_msg("%s", ag_error_message());
    ag_json_free(v);
}

static void test_parse_file(void **state) {
    (void)state;
    ag_json_t *v = NULL;
    assert_int_equal(ag_json_parse_file("/nonexistent/x.json", &v), AG_EFILE);
    assert_non_null(strstr(ag_error_message(), "/nonexistent/x.json: cannot open"));
    char path[] = "/tmp/ag_json_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "{\"train\": [0, 1, 2]}";
    assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    assert_int_equal(ag_json_parse_file(path, &v), AG_SUCCESS);
    assert_int_equal(ag_json_get(v, "train")->count, 3);
    ag_json_free(v);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_writer_roundtrip),
        cmocka_unit_test(test_check_keys),
        cmocka_unit_test(test_parse_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
