/*
 * The mdtest item engine: mdtest's names and walk orders and the work on one item (see
 * include/ioscore/mdtest_items.h). Each operation is the calls mdtest's POSIX backend makes:
 * a file is created with one open, written once at offset 0 and closed; read is open, one read
 * at offset 0, close; stat, unlink, mkdir and rmdir are one call each. The op loop around it
 * (core/oploop.c) times every item and applies the stonewall.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/mdtest_items.h"

int ios_md_op_is_tree(enum ios_md_op op)
{
    return op == IOS_MD_TREE_CREATE || op == IOS_MD_TREE_REMOVE;
}

int ios_md_op_is_dir(enum ios_md_op op)
{
    return op >= IOS_MD_DIR_CREATE && op <= IOS_MD_DIR_REMOVE;
}

static const char *dir_of(const struct ios_md_tree *t, int rank)
{
    return t->dirs[rank % t->n_dirs];
}

void ios_md_test_dir(const struct ios_md_tree *t, int owner, int it, uint64_t loop, char *buf,
                     size_t len)
{
    ios_path(buf, len, "%s/test-dir.%d-%" PRIu64, dir_of(t, owner), it, loop);
}

void ios_md_node_path(const struct ios_md_tree *t, int owner, int it, uint64_t loop, uint64_t k,
                      char *buf, size_t len)
{
    uint64_t chain[IOS_MD_MAX_DEPTH + 1];
    int n = 0;
    for (uint64_t x = k; x > 0; x = (x - 1) / (uint64_t)t->branch)
        chain[n++] = x;
    char tree[32];
    if (t->unique)
        snprintf(tree, sizeof tree, "mdtest_tree.%d", owner);
    else
        snprintf(tree, sizeof tree, "mdtest_tree");
    size_t used = (size_t)snprintf(buf, len, "%s/test-dir.%d-%" PRIu64 "/%s.0", dir_of(t, owner),
                                   it, loop, tree);
    while (n > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "/%s.%" PRIu64, tree, chain[--n]);
    if (used >= len)
        ios_fatal("mdtest path too long below %s", dir_of(t, owner));
}

uint64_t ios_md_item_number(const struct ios_md_tree *t, uint64_t i)
{
    return i + (t->leaf ? t->per_node * (t->nodes - t->leaves) : 0);
}

/* Appends the nodes below and including k, depth-first in branch order: k before its children
 * (pre-order) or after them (post-order); with `leaves_only` only the nodes at `depth`. */
static void walk_from(const struct ios_md_tree *t, uint64_t k, int level, int post, int leaves_only,
                      uint64_t *out, uint64_t *n)
{
    int take = !leaves_only || level == t->depth;
    if (take && !post)
        out[(*n)++] = k;
    for (uint64_t c = 1; level < t->depth && c <= (uint64_t)t->branch; c++)
        walk_from(t, k * (uint64_t)t->branch + c, level + 1, post, leaves_only, out, n);
    if (take && post)
        out[(*n)++] = k;
}

uint64_t *ios_md_walk(const struct ios_md_tree *t, enum ios_md_op op, uint64_t *n)
{
    *n = 0;
    int tree = ios_md_op_is_tree(op);
    int by_node = tree || op == IOS_MD_DIR_CREATE || op == IOS_MD_FILE_CREATE ||
                  op == IOS_MD_DIR_REMOVE || op == IOS_MD_FILE_REMOVE;
    if (!by_node || t->depth == 0)
        return NULL; /* by number; one node walks the same either way */
    uint64_t *out = malloc(sizeof *out * t->nodes);
    if (!out)
        ios_fatal("out of memory for a tree of %" PRIu64 " directories", t->nodes);
    walk_from(t, 0, 0, op == IOS_MD_TREE_REMOVE, !tree && t->leaf, out, n);
    return out;
}

/* Writes v in decimal at out (no terminator); returns the digits written (at most 20). */
static size_t put_decimal(char *out, uint64_t v)
{
    char rev[20];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    for (size_t k = 0; k < n; k++)
        out[k] = rev[n - 1 - k];
    return n;
}

/*
 * The path of the entry numbered `num` in directory loop `loop`: "<node>/<kind>.mdtest.<owner>."
 * is built once per node, and each entry appends only its number; a format call per item
 * would cost a tenth of a stat from the dentry cache.
 */
static void entry_path(struct ios_md_items *it, uint64_t loop, uint64_t node, uint64_t num,
                       char *buf, size_t len)
{
    if (!it->prefix[0] || it->prefix_node != node || it->prefix_loop != loop) {
        char dir[IOS_PATH_MAX];
        ios_md_node_path(it->tree, it->tree_rank, it->iteration, loop, node, dir, sizeof dir);
        ios_path(it->prefix, sizeof it->prefix, "%s/%s.mdtest.%d.", dir,
                 ios_md_op_is_dir(it->op) ? "dir" : "file", it->owner);
        it->prefix_len = strlen(it->prefix);
        it->prefix_node = node;
        it->prefix_loop = loop;
    }
    if (it->prefix_len + 21 > len)
        ios_fatal("path too long (limit %zu bytes): %.80s...", len, it->prefix);
    memcpy(buf, it->prefix, it->prefix_len);
    buf[it->prefix_len + put_decimal(buf + it->prefix_len, num)] = '\0';
}

void ios_md_item_path(struct ios_md_items *it, uint64_t i, char *buf, size_t len)
{
    const struct ios_md_tree *t = it->tree;
    uint64_t loop = it->loop_size ? i / it->loop_size : 0;
    uint64_t j = it->loop_size ? i % it->loop_size : i;
    if (ios_md_op_is_tree(it->op)) {
        uint64_t k = it->walk ? it->walk[j] : j; /* without a walk: a tree of one node */
        ios_md_node_path(t, it->tree_rank, it->iteration, loop, k, buf, len);
        return;
    }
    uint64_t node, num;
    if (it->walk) {
        node = it->walk[j / t->per_node];
        num = node * t->per_node + j % t->per_node;
    } else {
        num = ios_md_item_number(t, j);
        node = num / t->per_node;
    }
    entry_path(it, loop, node, num, buf, len);
}

/*
 * mdtest -U: rename i of a chain over the owner's directories, as mdtest's rename phase: the
 * first goes to "<name>-XX", each next one takes its predecessor's name, and the last rename
 * brings "<first>-XX" to the second-to-last name. Every name exists again afterwards, so the
 * removal finds the tree complete. `path` gets the source.
 */
static int rename_item(struct ios_md_items *it, uint64_t i, char *path, size_t len)
{
    const struct ios_md_tree *t = it->tree;
    char to[IOS_PATH_MAX], first[IOS_PATH_MAX];
    uint64_t num0 = ios_md_item_number(t, 0);
    entry_path(it, 0, num0 / t->per_node, num0, first, sizeof first);
    ios_path(first + strlen(first), sizeof first - strlen(first), "-XX");
    if (i == 0) {
        entry_path(it, 0, num0 / t->per_node, num0, path, len);
        snprintf(to, sizeof to, "%s", first);
    } else {
        uint64_t num = ios_md_item_number(t, i), prev = ios_md_item_number(t, i - 1);
        if (i == it->count - 1)
            snprintf(path, len, "%s", first);
        else
            entry_path(it, 0, num / t->per_node, num, path, len);
        entry_path(it, 0, prev / t->per_node, prev, to, sizeof to);
    }
    /* the POSIX backend has no rename operation; mdtest's subcommand runs on POSIX only */
    return rename(path, to) == 0 ? 0 : -errno;
}

/* Records the first error of this item in the phase; -1. */
static int failed(struct ios_phase_ctx *ctx, int rc, const char *verb, const char *path)
{
    ios_phase_error(ctx, rc, "%s %s", verb, path);
    return -1;
}

static int create_file(struct ios_md_items *it, uint64_t i, const char *path)
{
    struct ios_phase_ctx *ctx = it->ctx;
    struct ios_backend *be = &ctx->be;
    int64_t h = 0;
    /* read-write, as mdtest's POSIX backend creates every file */
    int rc = be->ops->open(be, path, IOS_OPEN_READ | IOS_OPEN_WRITE | IOS_OPEN_CREATE, &h);
    if (rc != 0)
        return failed(ctx, rc, "create", path);
    if (it->write_bytes > 0) {
        if (it->fill)
            it->fill(it, i);
        ssize_t n = be->ops->pwrite(be, h, it->buf, it->write_bytes, 0);
        if (n > 0)
            ctx->mine.bytes += (double)n;
        if (n != (ssize_t)it->write_bytes) {
            be->ops->close(be, h);
            return failed(ctx, n < 0 ? (int)n : -EIO, "write", path);
        }
    }
    rc = be->ops->close(be, h);
    return rc != 0 ? failed(ctx, rc, "close", path) : 0;
}

static int read_file(struct ios_md_items *it, uint64_t i, const char *path)
{
    struct ios_phase_ctx *ctx = it->ctx;
    struct ios_backend *be = &ctx->be;
    int64_t h = 0;
    /* read-write as well: mdtest asks its POSIX backend for O_RDONLY, which is 0, and the
     * backend opens a file with no read or write flag read-write */
    int rc = be->ops->open(be, path, IOS_OPEN_READ | IOS_OPEN_WRITE, &h);
    if (rc != 0)
        return failed(ctx, rc, "open", path);
    ssize_t n = 0;
    if (it->read_bytes > 0)
        n = be->ops->pread(be, h, it->buf, it->read_bytes, 0);
    rc = be->ops->close(be, h);
    if (n < 0)
        return failed(ctx, (int)n, "read", path);
    ctx->mine.bytes += (double)n;
    if (it->exact_read && n != (ssize_t)it->read_bytes)
        return failed(ctx, -EIO, "read", path);
    if (it->read_bytes > 0 && it->verify && it->verify(it, i, n, path) != 0)
        ctx->mine.verify_errors += 1;
    return rc != 0 ? failed(ctx, rc, "close", path) : 0;
}

int ios_md_item_do(struct ios_md_items *it, uint64_t i)
{
    struct ios_phase_ctx *ctx = it->ctx;
    struct ios_backend *be = &ctx->be;
    char path[IOS_PATH_MAX];
    int64_t size = 0;
    int rc = 0;
    if (it->op == IOS_MD_DIR_RENAME) {
        rc = rename_item(it, i, path, sizeof path);
        return rc != 0 ? failed(ctx, rc, "rename", path) : 0;
    }
    ios_md_item_path(it, i, path, sizeof path);
    switch (it->op) {
    case IOS_MD_TREE_CREATE:
    case IOS_MD_DIR_CREATE:
        rc = be->ops->mkdir(be, path, 0700);
        if (rc == -EEXIST && it->exist_ok)
            rc = 0;
        if (rc != 0)
            return failed(ctx, rc, "mkdir", path);
        break;
    case IOS_MD_TREE_REMOVE:
    case IOS_MD_DIR_REMOVE:
        rc = be->ops->rmdir(be, path);
        if (rc != 0)
            return failed(ctx, rc, "rmdir", path);
        break;
    case IOS_MD_DIR_STAT:
    case IOS_MD_FILE_STAT:
        rc = be->ops->stat_size(be, path, &size);
        if (rc != 0)
            return failed(ctx, rc, "stat", path);
        break;
    case IOS_MD_FILE_CREATE:
        if (create_file(it, i, path) != 0)
            return -1;
        break;
    case IOS_MD_FILE_READ:
        if (read_file(it, i, path) != 0)
            return -1;
        break;
    case IOS_MD_FILE_REMOVE:
        rc = be->ops->unlink(be, path);
        if (rc != 0)
            return failed(ctx, rc, "unlink", path);
        break;
    default: /* mdtest reads no directories */
        return failed(ctx, -EINVAL, "no such mdtest operation on", path);
    }
    return 0;
}

int ios_md_item_op(void *state, uint64_t i)
{
    struct ios_md_items *it = state;
    if (ios_md_item_do(it, i) != 0)
        return -1;
    it->ctx->mine.items += 1;
    return 0;
}
