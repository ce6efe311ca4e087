/*
 * A small streaming JSON writer into a growable buffer. Commas, quoting and escaping are
 * handled here so that no caller builds JSON with printf. Every value call takes the member
 * key (used inside objects) or NULL (inside arrays and at the top level).
 */
#ifndef IOSCORE_JSON_H
#define IOSCORE_JSON_H

#include <stddef.h>
#include <stdint.h>

#define IOS_JSON_MAX_DEPTH 32

struct ios_json {
    char *buf;
    size_t len, cap;
    int depth;
    int count[IOS_JSON_MAX_DEPTH]; /* members written so far at each open level */
};

void ios_json_init(struct ios_json *j);
void ios_json_free(struct ios_json *j);

void ios_json_begin_object(struct ios_json *j, const char *key);
void ios_json_end_object(struct ios_json *j);
void ios_json_begin_array(struct ios_json *j, const char *key);
void ios_json_end_array(struct ios_json *j);

void ios_json_string(struct ios_json *j, const char *key, const char *value); /* NULL -> null */
void ios_json_double(struct ios_json *j, const char *key, double value);      /* NaN/inf -> null */
/* A number with `decimals` fixed decimals (printf's %.*f), as a tool that prints its JSON by
 * hand does (IOR: 4); an infinity as the string "inf" or "-inf" (IOR's way), NaN -> null. */
void ios_json_fixed(struct ios_json *j, const char *key, double value, int decimals);
void ios_json_int(struct ios_json *j, const char *key, int64_t value);
void ios_json_bool(struct ios_json *j, const char *key, int value);
void ios_json_null(struct ios_json *j, const char *key);

#endif
