/*
 * Is a config file an INI text at all? (see ios_config_check_text in include/ioscore/config.h)
 * Checked before parsing, so that a binary file gets one clear message instead of a parse
 * error about its first line, or worse, parses as an empty config.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ioscore/config.h"

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80                    ? 1
                 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2
                 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4
                                                : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    /* no overlong 3/4-byte forms, no surrogates, nothing above U+10FFFF */
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
        (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    return len;
}

int ios_config_check_text(const char *filename, const char *text, size_t len, char *err,
                          size_t err_len)
{
    static const unsigned char apple_double[4] = {0x00, 0x05, 0x16, 0x07};
    const unsigned char *bytes = (const unsigned char *)text;
    if (len >= 4 && memcmp(bytes, apple_double, 4) == 0) {
        snprintf(err, err_len,
                 "%s: not an INI file but a macOS AppleDouble resource fork (a '._' file); "
                 "use the configuration file without the '._' prefix",
                 filename);
        return -1;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        snprintf(err, err_len, "%s: not an INI file: a NUL byte at offset %zu (a binary file)",
                 filename, (size_t)(nul - text));
        return -1;
    }
    int line = 1, content = 0, in_comment = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = bytes[i];
        if (c == '\n') {
            line++;
            in_comment = 0;
            i++;
            continue;
        }
        /* values end at the first # or ; (BENCHMARK-RULES §4.1): the rest of the line is a comment
         */
        if (c == '#' || c == ';')
            in_comment = 1;
        if (!in_comment && !isspace(c))
            content = 1;
        size_t step = in_comment ? 1 : utf8_sequence(bytes + i, len - i);
        if (step == 0) {
            snprintf(err, err_len,
                     "%s:%d: not a text file: invalid UTF-8 (byte 0x%02X) outside a comment",
                     filename, line, c);
            return -1;
        }
        i += step;
    }
    if (!content) {
        snprintf(err, err_len,
                 "%s: the configuration is empty (no [section] and no key); it needs at least "
                 "[global] datadir = <directory for the test data>",
                 filename);
        return -1;
    }
    return 0;
}
