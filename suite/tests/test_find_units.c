/*
 * Unit tests of the find engine's MPI-free parts: pfind's name predicate (glob -> BRE,
 * unanchored, with the memmem fast path) and the wire format of work items.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/find/find_match.h"
#include "../src/find/find_queue.h"
#include "../src/find/find_scan.h"
#include "check.h"

/* Build getdents64 records by hand: the cursor logic must not need a real directory. */
struct fake_batch {
    char buf[4096];
    size_t len;
};

static void add_record(struct fake_batch *b, const char *name, int64_t d_off)
{
    size_t name_len = strlen(name) + 1;
    size_t reclen = (8 + 8 + 2 + 1 + name_len + 7) & ~(size_t)7;
    char *r = b->buf + b->len;
    memset(r, 0, reclen);
    uint64_t ino = 1000 + b->len;
    unsigned short rl = (unsigned short)reclen;
    unsigned char type = 8; /* DT_REG */
    memcpy(r, &ino, 8);
    memcpy(r + 8, &d_off, 8);
    memcpy(r + 16, &rl, 2);
    memcpy(r + 18, &type, 1);
    memcpy(r + 19, name, name_len);
    b->len += reclen;
}

static void test_cursor_ranges(void)
{
    /* tmpfs order: ".", "..", then entries with decreasing d_off (= next offset + 1) */
    struct fake_batch b = {.len = 0};
    add_record(&b, ".", 1);
    add_record(&b, "..", 20001);
    add_record(&b, "e20000", 15001); /* the next entry has offset 15000 */
    add_record(&b, "e15000", 10001);
    add_record(&b, "e10000", 5001);
    add_record(&b, "e5000", 2147483647); /* last record: end marker */

    struct find_cursor whole;
    find_cursor_init(&whole, -1, 0, FIND_NO_STOP);
    int ended = -1;
    CHECK(find_cursor_take(&whole, b.buf, b.len, &ended) == b.len && ended == 0);
    CHECK(whole.ordered && whole.confirmed == 2); /* the end marker is outside the order */

    /* a range stopping at cookie 10001 takes e20000 and e15000 and ends before e10000 */
    struct find_cursor part;
    find_cursor_init(&part, -1, 0, 10001);
    size_t taken = find_cursor_take(&part, b.buf, b.len, &ended);
    CHECK(ended == 1);
    struct fake_batch expect = {.len = 0};
    add_record(&expect, ".", 1);
    add_record(&expect, "..", 20001);
    add_record(&expect, "e20000", 15001);
    add_record(&expect, "e15000", 10001);
    CHECK(taken == expect.len);

    /* ext4/xfs/btrfs order: ascending; a record's position is the previous record's d_off */
    struct fake_batch up = {.len = 0};
    add_record(&up, "a", 300);
    add_record(&up, "b", 700);
    add_record(&up, "c", 900);
    add_record(&up, "d", INT64_MAX); /* ext4's "nothing follows" */
    struct find_cursor asc;
    find_cursor_init(&asc, 1, 0, 700); /* [.., 700): a and b, not c (position 700) */
    taken = find_cursor_take(&asc, up.buf, up.len, &ended);
    CHECK(ended == 1 && asc.ordered && asc.confirmed == 1);
    struct fake_batch first_two = {.len = 0};
    add_record(&first_two, "a", 300);
    add_record(&first_two, "b", 700);
    CHECK(taken == first_two.len);

    /* any: the direction is learnt from the first two entries, then enforced */
    struct find_cursor learnt;
    find_cursor_init(&learnt, 0, 1, FIND_NO_STOP);
    CHECK(find_cursor_take(&learnt, up.buf, up.len, &ended) == up.len && ended == 0);
    CHECK(learnt.direction == 1 && learnt.ordered && learnt.confirmed == 2);

    /* a record out of the expected order makes the directory unsplittable (fd is not used) */
    struct find_cursor wrong;
    find_cursor_init(&wrong, -1, 0, FIND_NO_STOP);
    find_cursor_take(&wrong, up.buf, up.len, &ended);
    CHECK(wrong.ordered == 0);
    struct find_split split;
    char probe[64];
    CHECK(find_cursor_split(&wrong, -1, probe, sizeof probe, &split) == 0);
    /* without a known order (auto on an unknown file system) nothing is ever cut */
    struct find_cursor unknown;
    find_cursor_init(&unknown, 0, 0, 700);
    CHECK(find_cursor_take(&unknown, up.buf, up.len, &ended) == up.len && ended == 0);
    CHECK(find_cursor_split(&unknown, -1, probe, sizeof probe, &split) == 0);

    CHECK(strcmp(find_first_entry_name(b.buf, b.len), "e20000") == 0);
    CHECK(find_first_entry_name(expect.buf, 2 * 24) == NULL); /* only the dots */
}

static int matches(const char *pattern, const char *name)
{
    struct find_matcher m;
    if (find_matcher_init(&m, pattern) != 0)
        return -1;
    int r = find_matcher_matches(&m, name, strlen(name));
    find_matcher_free(&m);
    return r;
}

static void test_pattern_conversion(void)
{
    char *re = find_pattern_to_regex("*01*");
    CHECK(re && strcmp(re, ".*01.*") == 0);
    free(re);
    re = find_pattern_to_regex("\"a.b*\"");
    CHECK(re && strcmp(re, "a[.]b.*") == 0); /* quotes dropped, '.' literal */
    free(re);
}

static void test_name_predicate(void)
{
    /* the IO500 pattern: "contains 01", anywhere, leading dots included */
    CHECK(matches("*01*", "file.mdtest.3.1017") == 1);
    CHECK(matches("*01*", "file.mdtest.10.7") == 0);
    CHECK(matches("*01*", ".01hidden") == 1);
    CHECK(matches("*01*", "\xff\xfe-01-\x80") == 1); /* bytes, not characters */
    /* pfind matches unanchored: "a*" means "contains a", unlike a shell glob */
    CHECK(matches("a*", "banana") == 1);
    CHECK(matches("x*", "banana") == 0);
    /* '.' is literal; '?' keeps its BRE meaning (a literal '?') */
    CHECK(matches("*.dat*", "run.dat.1") == 1);
    CHECK(matches("*.dat*", "runxdat") == 0);
    CHECK(matches("a?", "a?") == 1);
    CHECK(matches("a?", "ab") == 0);
    /* through the regex path: a bracket expression */
    CHECK(matches("*[0-9]x*", "ab7x") == 1);
    CHECK(matches("*[0-9]x*", "abx") == 0);
    /* NULL and "*" match everything */
    CHECK(matches(NULL, "anything") == 1);
    CHECK(matches("*", "") == 1);
    /* an invalid regex is refused, not silently matched */
    struct find_matcher m;
    CHECK(find_matcher_init(&m, "[01") == -EINVAL);
}

static void test_item_wire_format(void)
{
    struct find_stack s = {0};
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "sub%d", i);
        struct find_item item;
        CHECK(find_item_new_dir(&item, "/root/", 6, name, strlen(name)) == 0);
        CHECK(find_stack_push(&s, item) == 0);
    }
    CHECK(strcmp(s.items[0].path, "/root/sub0") == 0); /* no doubled slash */

    /* a NAMES item with a non-UTF-8 name and a 255-byte name */
    char long_name[256];
    memset(long_name, 'n', 255);
    long_name[255] = '\0';
    struct find_item names = {.kind = FIND_ITEM_NAMES};
    names.path = strdup("/root/big");
    names.path_len = 9;
    names.names = malloc(4 + 1 + 256);
    names.names[0] = 8; /* DT_REG */
    memcpy(names.names + 1, "\xff\x01", 3);
    names.names[4] = 4; /* DT_DIR */
    memcpy(names.names + 5, long_name, 256);
    names.names_len = 4 + 1 + 256;
    names.count = 2;
    CHECK(find_stack_push(&s, names) == 0);

    /* the thief gets the oldest half (rounded up): 3 of 6 */
    char *buf = NULL;
    size_t len = 0;
    CHECK(find_stack_pack_half(&s, &buf, &len) == 3);
    CHECK(s.len == 3);
    CHECK(strcmp(s.items[0].path, "/root/sub3") == 0);
    struct find_stack thief = {0};
    CHECK(find_stack_unpack(&thief, buf, len) == 3);
    CHECK(thief.len == 3 && strcmp(thief.items[0].path, "/root/sub0") == 0);
    CHECK(thief.len == 3 && strcmp(thief.items[2].path, "/root/sub2") == 0);
    free(buf);

    /* the NAMES item survives packing byte for byte */
    struct find_item top;
    CHECK(find_stack_pop(&s, &top) == 1 && top.kind == FIND_ITEM_NAMES);
    CHECK(find_item_pack(&top, &buf, &len) == 0);
    CHECK(find_stack_unpack(&thief, buf, len) == 1);
    CHECK(thief.len == 4);
    if (thief.len == 4) {
        const struct find_item *copy = &thief.items[3];
        CHECK(copy->count == 2 && copy->names_len == top.names_len);
        CHECK(memcmp(copy->names, top.names, top.names_len) == 0);
        CHECK(strcmp(copy->path, "/root/big") == 0);
    }
    /* a RANGE item keeps its cookies, direction and expected first entry */
    struct find_item range = {.kind = FIND_ITEM_RANGE,
                              .path = "/root/big",
                              .path_len = 9,
                              .names = "\0first",
                              .names_len = 7,
                              .count = 1,
                              .start_cookie = INT64_MAX - 5,
                              .stop_cookie = FIND_NO_STOP,
                              .direction = -1};
    char *rbuf = NULL;
    size_t rlen = 0;
    CHECK(find_item_pack(&range, &rbuf, &rlen) == 0);
    struct find_stack got = {0};
    CHECK(find_stack_unpack(&got, rbuf, rlen) == 1);
    if (got.len == 1) {
        const struct find_item *r = &got.items[0];
        CHECK(r->kind == FIND_ITEM_RANGE && r->direction == -1);
        CHECK(r->start_cookie == INT64_MAX - 5 && r->stop_cookie == FIND_NO_STOP);
        CHECK(r->names_len == 7 && strcmp(r->names + 1, "first") == 0);
    }
    free(rbuf);
    find_stack_free(&got);

    /* a truncated message is rejected, not read past its end */
    CHECK(find_stack_unpack(&thief, buf, len - 1) == -EPROTO);
    free(buf);
    find_item_free(&top);
    find_stack_free(&s);
    find_stack_free(&thief);
}

int main(void)
{
    test_pattern_conversion();
    test_name_predicate();
    test_item_wire_format();
    test_cursor_ranges();
    return check_finish();
}
