/* Streaming JSON writer; see include/ioscore/json.h. */
#include "ioscore/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/util.h"

static void reserve(struct ios_json *j, size_t extra)
{
    if (j->len + extra + 1 <= j->cap)
        return;
    size_t cap = j->cap ? j->cap : 1024;
    while (cap < j->len + extra + 1)
        cap *= 2;
    char *bigger = realloc(j->buf, cap);
    if (!bigger)
        ios_fatal("out of memory in the JSON writer");
    j->buf = bigger;
    j->cap = cap;
}

static void raw(struct ios_json *j, const char *text, size_t n)
{
    reserve(j, n);
    memcpy(j->buf + j->len, text, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void raw_str(struct ios_json *j, const char *text)
{
    raw(j, text, strlen(text));
}

static void quoted(struct ios_json *j, const char *s)
{
    raw(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"':
            raw(j, "\\\"", 2);
            break;
        case '\\':
            raw(j, "\\\\", 2);
            break;
        case '\n':
            raw(j, "\\n", 2);
            break;
        case '\r':
            raw(j, "\\r", 2);
            break;
        case '\t':
            raw(j, "\\t", 2);
            break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                raw_str(j, esc);
            } else {
                raw(j, (const char *)p, 1);
            }
        }
    }
    raw(j, "\"", 1);
}

/* Comma, newline + indent and the key, before any value. */
static void prefix(struct ios_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->count[j->depth - 1]++ > 0)
            raw(j, ",", 1);
        raw(j, "\n", 1);
        for (int i = 0; i < j->depth; i++)
            raw(j, "  ", 2);
    }
    if (key) {
        quoted(j, key);
        raw(j, ": ", 2);
    }
}

void ios_json_init(struct ios_json *j)
{
    memset(j, 0, sizeof *j);
}

void ios_json_free(struct ios_json *j)
{
    free(j->buf);
    memset(j, 0, sizeof *j);
}

static void open_level(struct ios_json *j, const char *key, const char *bracket)
{
    prefix(j, key);
    raw_str(j, bracket);
    if (j->depth >= IOS_JSON_MAX_DEPTH)
        ios_fatal("internal: JSON nesting too deep");
    j->count[j->depth++] = 0;
}

static void close_level(struct ios_json *j, const char *bracket)
{
    int had_members = j->count[--j->depth] > 0;
    if (had_members) {
        raw(j, "\n", 1);
        for (int i = 0; i < j->depth; i++)
            raw(j, "  ", 2);
    }
    raw_str(j, bracket);
}

void ios_json_begin_object(struct ios_json *j, const char *key)
{
    open_level(j, key, "{");
}
void ios_json_end_object(struct ios_json *j)
{
    close_level(j, "}");
}
void ios_json_begin_array(struct ios_json *j, const char *key)
{
    open_level(j, key, "[");
}
void ios_json_end_array(struct ios_json *j)
{
    close_level(j, "]");
}

void ios_json_string(struct ios_json *j, const char *key, const char *value)
{
    prefix(j, key);
    if (value)
        quoted(j, value);
    else
        raw_str(j, "null");
}

void ios_json_double(struct ios_json *j, const char *key, double value)
{
    prefix(j, key);
    if (!isfinite(value)) {
        raw_str(j, "null");
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    raw_str(j, text);
}

void ios_json_fixed(struct ios_json *j, const char *key, double value, int decimals)
{
    if (isinf(value)) {
        ios_json_string(j, key, value > 0 ? "inf" : "-inf");
        return;
    }
    prefix(j, key);
    if (isnan(value)) {
        raw_str(j, "null");
        return;
    }
    char text[400]; /* %.*f of the largest double: 309 digits before the point */
    snprintf(text, sizeof text, "%.*f", decimals, value);
    raw_str(j, text);
}

void ios_json_int(struct ios_json *j, const char *key, int64_t value)
{
    prefix(j, key);
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, value);
    raw_str(j, text);
}

void ios_json_bool(struct ios_json *j, const char *key, int value)
{
    prefix(j, key);
    raw_str(j, value ? "true" : "false");
}

void ios_json_null(struct ios_json *j, const char *key)
{
    prefix(j, key);
    raw_str(j, "null");
}
