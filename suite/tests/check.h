/*
 * Minimal unit-test support for the C tests: CHECK counts passes and failures and prints
 * the failing expression; check_finish prints "N passed, N failed" and returns the exit code.
 */
#ifndef IOSCORE_TEST_CHECK_H
#define IOSCORE_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                                       \
    do {                                                                                           \
        if (strstr((haystack), (needle))) {                                                        \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, (haystack), \
                    (needle));                                                                     \
        }                                                                                          \
    } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
