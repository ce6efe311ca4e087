/* Backend selection from an API string; see include/ioscore/backend.h. */
#include <stdio.h>
#include <string.h>

#include "ioscore/backend.h"
#include "ioscore/util.h"

static const struct ios_backend_ops *const all_backends[] = {
    &ios_backend_posix,
    &ios_backend_dummy,
};

/* Splits at spaces; "\ " keeps a space inside a word. Returns the word count. */
static int split_words(const char *text, char *storage, size_t storage_len, char **words,
                       int max_words)
{
    int n = 0;
    size_t out = 0;
    const char *p = text;
    while (*p && n < max_words) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        words[n++] = storage + out;
        while (*p && *p != ' ' && out + 1 < storage_len) {
            if (p[0] == '\\' && p[1] == ' ')
                p++;
            storage[out++] = *p++;
        }
        storage[out++] = '\0';
        if (out >= storage_len)
            break;
    }
    return n;
}

int ios_backend_create(const char *api, struct ios_backend *be, char *err, size_t err_len)
{
    memset(be, 0, sizeof *be);
    snprintf(be->api, sizeof be->api, "%s", api ? api : "POSIX");
    char storage[1024];
    char *words[32];
    int n = split_words(be->api, storage, sizeof storage, words, 32);
    const char *name = n > 0 ? words[0] : "POSIX";
    for (size_t i = 0; i < sizeof all_backends / sizeof all_backends[0]; i++) {
        if (ios_streq_nocase(all_backends[i]->name, name)) {
            be->ops = all_backends[i];
            be->alignment = 8;
            return be->ops->init(be, n > 0 ? n - 1 : 0, words + 1, err, err_len);
        }
    }
    snprintf(err, err_len, "unknown backend '%s' in API '%s' (supported: POSIX, DUMMY)", name,
             be->api);
    return -1;
}
