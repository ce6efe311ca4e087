/*
 * Work items of the find engine and the per-rank LIFO stack that holds them.
 *
 * Two kinds of item travel between ranks:
 *   DIR   - a directory to read, by path;
 *   NAMES - a batch of entries (d_type + name) already read from one directory by another
 *           rank; whoever holds it classifies the names and stats the matches. This is how a
 *           directory with millions of entries is shared out: the rank reading it hands
 *           getdents64 batches to idle ranks;
 *   RANGE - a part of a directory by directory-offset cookies, so two ranks *read* one big
 *           directory at the same time (only where the cookie order is known, see
 *           find_scan.h); its `names` holds the one entry the reader must find first.
 * Items are packed into one flat byte buffer to be sent; a thief receives half a stack.
 */
#ifndef IOSCORE_FIND_QUEUE_H
#define IOSCORE_FIND_QUEUE_H

#include <stddef.h>
#include <stdint.h>

enum find_item_kind { FIND_ITEM_DIR = 'D', FIND_ITEM_NAMES = 'N', FIND_ITEM_RANGE = 'R' };

struct find_item {
    enum find_item_kind kind;
    char *path; /* directory path (both kinds), NUL-terminated */
    uint32_t path_len;
    char *names; /* NAMES: count records of [d_type byte][name][NUL] */
    uint32_t names_len;
    uint32_t count;
    int64_t start_cookie; /* RANGE: seek here, then read ... */
    int64_t stop_cookie;  /* ... until the next record's position is past this (find_scan.h) */
    int8_t direction;     /* RANGE: the directory's cookie order, +1 or -1 */
};

struct find_stack {
    struct find_item *items;
    size_t len;
    size_t cap;
};

/* All return 0 or -ENOMEM. The stack takes ownership of the item's buffers. */
int find_stack_push(struct find_stack *s, struct find_item item);
int find_stack_pop(struct find_stack *s, struct find_item *out); /* 1 if popped, 0 if empty */
void find_stack_free(struct find_stack *s);
void find_item_free(struct find_item *item);

int find_item_new_dir(struct find_item *item, const char *parent, size_t parent_len,
                      const char *name, size_t name_len);

/*
 * Move the oldest half (rounded up) of the stack into a packed buffer: the bottom of a LIFO
 * holds the shallowest directories, i.e. the biggest subtrees. Returns the number of items
 * packed (0 when empty) and sets *buf / *len (malloc'd), or -ENOMEM.
 */
long find_stack_pack_half(struct find_stack *s, char **buf, size_t *len);
/* Pack a single item (which stays owned by the caller). */
int find_item_pack(const struct find_item *item, char **buf, size_t *len);
/* Unpack a received buffer onto the stack. Returns items added, or -EPROTO / -ENOMEM. */
long find_stack_unpack(struct find_stack *s, const char *buf, size_t len);

#endif
