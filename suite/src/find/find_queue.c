#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "find_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int find_stack_push(struct find_stack *s, struct find_item item)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct find_item *grown = realloc(s->items, cap * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        s->items = grown;
        s->cap = cap;
    }
    s->items[s->len++] = item;
    return 0;
}

int find_stack_pop(struct find_stack *s, struct find_item *out)
{
    if (s->len == 0)
        return 0;
    *out = s->items[--s->len];
    return 1;
}

void find_item_free(struct find_item *item)
{
    free(item->path);
    free(item->names);
    memset(item, 0, sizeof(*item));
}

void find_stack_free(struct find_stack *s)
{
    for (size_t i = 0; i < s->len; i++)
        find_item_free(&s->items[i]);
    free(s->items);
    memset(s, 0, sizeof(*s));
}

int find_item_new_dir(struct find_item *item, const char *parent, size_t parent_len,
                      const char *name, size_t name_len)
{
    memset(item, 0, sizeof(*item));
    int need_slash = parent_len > 0 && parent[parent_len - 1] != '/';
    size_t len = parent_len + (size_t)need_slash + name_len;
    char *path = malloc(len + 1);
    if (path == NULL)
        return -ENOMEM;
    memcpy(path, parent, parent_len);
    if (need_slash)
        path[parent_len] = '/';
    memcpy(path + parent_len + need_slash, name, name_len);
    path[len] = '\0';
    item->kind = FIND_ITEM_DIR;
    item->path = path;
    item->path_len = (uint32_t)len;
    return 0;
}

/* Wire format per item: kind, direction (1 byte each), path_len, names_len, count (uint32
 * each), start and stop cookies (int64 each), path bytes, names bytes. Ranks of one job share
 * the byte order, so the integers go as they are. */
enum { ITEM_HEADER = 2 + 3 * sizeof(uint32_t) + 2 * sizeof(int64_t) };

static size_t packed_size(const struct find_item *item)
{
    return ITEM_HEADER + item->path_len + item->names_len;
}

static char *pack_into(char *p, const struct find_item *item)
{
    *p++ = (char)item->kind;
    *p++ = (char)item->direction;
    memcpy(p, &item->path_len, sizeof(uint32_t));
    p += sizeof(uint32_t);
    memcpy(p, &item->names_len, sizeof(uint32_t));
    p += sizeof(uint32_t);
    memcpy(p, &item->count, sizeof(uint32_t));
    p += sizeof(uint32_t);
    memcpy(p, &item->start_cookie, sizeof(int64_t));
    p += sizeof(int64_t);
    memcpy(p, &item->stop_cookie, sizeof(int64_t));
    p += sizeof(int64_t);
    memcpy(p, item->path, item->path_len);
    p += item->path_len;
    if (item->names_len)
        memcpy(p, item->names, item->names_len);
    return p + item->names_len;
}

int find_item_pack(const struct find_item *item, char **buf, size_t *len)
{
    *len = packed_size(item);
    *buf = malloc(*len);
    if (*buf == NULL)
        return -ENOMEM;
    pack_into(*buf, item);
    return 0;
}

long find_stack_pack_half(struct find_stack *s, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    size_t give = (s->len + 1) / 2;
    if (give == 0)
        return 0;
    size_t total = 0;
    for (size_t i = 0; i < give; i++)
        total += packed_size(&s->items[i]);
    char *out = malloc(total);
    if (out == NULL)
        return -ENOMEM;
    char *p = out;
    for (size_t i = 0; i < give; i++) {
        p = pack_into(p, &s->items[i]);
        find_item_free(&s->items[i]);
    }
    memmove(s->items, s->items + give, (s->len - give) * sizeof(*s->items));
    s->len -= give;
    *buf = out;
    *len = total;
    return (long)give;
}

long find_stack_unpack(struct find_stack *s, const char *buf, size_t len)
{
    long added = 0;
    size_t pos = 0;
    while (pos < len) {
        if (len - pos < ITEM_HEADER)
            return -EPROTO;
        struct find_item item;
        memset(&item, 0, sizeof(item));
        const char *h = buf + pos;
        item.kind = (enum find_item_kind)(unsigned char)h[0];
        item.direction = (int8_t)h[1];
        h += 2;
        memcpy(&item.path_len, h, sizeof(uint32_t));
        memcpy(&item.names_len, h + sizeof(uint32_t), sizeof(uint32_t));
        memcpy(&item.count, h + 2 * sizeof(uint32_t), sizeof(uint32_t));
        memcpy(&item.start_cookie, h + 3 * sizeof(uint32_t), sizeof(int64_t));
        memcpy(&item.stop_cookie, h + 3 * sizeof(uint32_t) + sizeof(int64_t), sizeof(int64_t));
        pos += ITEM_HEADER;
        if ((item.kind != FIND_ITEM_DIR && item.kind != FIND_ITEM_NAMES &&
             item.kind != FIND_ITEM_RANGE) ||
            len - pos < (size_t)item.path_len + item.names_len)
            return -EPROTO;
        item.path = malloc((size_t)item.path_len + 1);
        item.names = item.names_len ? malloc(item.names_len) : NULL;
        if (item.path == NULL || (item.names_len && item.names == NULL)) {
            find_item_free(&item);
            return -ENOMEM;
        }
        memcpy(item.path, buf + pos, item.path_len);
        item.path[item.path_len] = '\0';
        pos += item.path_len;
        if (item.names_len)
            memcpy(item.names, buf + pos, item.names_len);
        pos += item.names_len;
        if (find_stack_push(s, item) != 0) {
            find_item_free(&item);
            return -ENOMEM;
        }
        added++;
    }
    return added;
}
