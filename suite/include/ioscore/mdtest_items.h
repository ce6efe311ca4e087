/*
 * The mdtest item engine (src/core/mdtest_items.c): mdtest's namespace, the order in which
 * mdtest walks it, and the operation on one item that the op loop (core/oploop.c) times. The
 * IO500 mdtest phases (src/phases/mdtest.c) and `ioscore-suite mdtest`
 * (src/acceptance/mdtest_run.c) both run their items through it, so a create, stat, read,
 * rename or removal is the same calls in the same order in either.
 *
 * The namespace is mdtest's:
 *   <dir>/test-dir.<iteration>-<loop>/<tree>.0[/<tree>.<k>...]   node k's parent is (k-1)/b
 *   <tree> = mdtest_tree.<rank> (a tree per rank, -u) or mdtest_tree (one shared tree)
 *   items <kind>.mdtest.<rank>.<n> in tree node n / items per directory
 * <loop> counts mdtest's directory loops (-I with more items than one directory holds).
 */
#ifndef IOSCORE_MDTEST_ITEMS_H
#define IOSCORE_MDTEST_ITEMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ioscore/phase.h"
#include "ioscore/util.h"

#define IOS_MD_MAX_DEPTH 64

/* The shape of the trees a launch works in. */
struct ios_md_tree {
    const char *const *dirs; /* rank r works below dirs[r % n_dirs] */
    int n_dirs;
    int unique;        /* a tree per rank (mdtest -u) */
    int depth, branch; /* -z, -b */
    int leaf;          /* items in the leaves only (-L) */
    uint64_t nodes;    /* directories per tree */
    uint64_t leaves;   /* branch^depth */
    uint64_t per_node; /* items per directory */
};

/* Path of tree node k of `owner`'s tree (the shared tree without -u) in test-dir.<it>-<loop>. */
void ios_md_node_path(const struct ios_md_tree *t, int owner, int it, uint64_t loop, uint64_t k,
                      char *buf, size_t len);
/* The test directory <dir of owner>/test-dir.<it>-<loop>. */
void ios_md_test_dir(const struct ios_md_tree *t, int owner, int it, uint64_t loop, char *buf,
                     size_t len);
/* The number in the name of a rank's i-th item by number (stat, read and rename walk items so):
 * with -L the first leaf's items start at its node number x items per directory. */
uint64_t ios_md_item_number(const struct ios_md_tree *t, uint64_t i);

/* Declared operations: which kind of entry an mdtest operation works on. */
int ios_md_op_is_tree(enum ios_md_op op);
int ios_md_op_is_dir(enum ios_md_op op);

/*
 * The nodes operation `op` visits, in mdtest's order, malloc'd (*n of them): trees are made
 * parents first and removed children first, depth-first in branch order; items are created
 * and removed node by node in the same parents-first order (only the leaves with -L). NULL
 * when the operation walks items by number (stat, read, rename) or the tree is one directory.
 */
uint64_t *ios_md_walk(const struct ios_md_tree *t, enum ios_md_op op, uint64_t *n);

/* One phase's items on one rank: the loop's state for ios_md_item_op. */
struct ios_md_items {
    struct ios_phase_ctx *ctx;
    enum ios_md_op op; /* the declared operation */
    const struct ios_md_tree *tree;
    int owner;            /* the rank whose items (or tree) these are: <kind>.mdtest.<owner>.<n> */
    int tree_rank;        /* the rank whose tree holds them (-u) */
    int iteration;        /* test-dir.<iteration>-... */
    uint64_t loop_size;   /* items per directory loop: item i is in loop i / loop_size; 0: one */
    const uint64_t *walk; /* from ios_md_walk; NULL: by number */
    uint64_t count;       /* items in the phase (the rename chain's length) */
    int exist_ok;         /* tree creation: an existing directory is fine */
    size_t write_bytes;   /* file creation: bytes written from buf, at offset 0 */
    size_t read_bytes;    /* file read: bytes read into buf */
    int exact_read;       /* a short read fails the item (mdtest); else verify judges it */
    void *buf;
    void *user; /* for fill and verify */
    /* file creation, optional: buf's content for item i before its write */
    void (*fill)(const struct ios_md_items *items, uint64_t i);
    /* file read, optional: 0 when the n bytes read of item i at `path` are right */
    int (*verify)(const struct ios_md_items *items, uint64_t i, ssize_t n, const char *path);
    /* the last item's path up to its number (built once per node) */
    uint64_t prefix_node, prefix_loop;
    size_t prefix_len;
    char prefix[IOS_PATH_MAX];
};

/* The path of item i of the phase (a tree node for the tree operations). */
void ios_md_item_path(struct ios_md_items *items, uint64_t i, char *buf, size_t len);
/* Does item i: 0, or -1 after recording the error in the phase. */
int ios_md_item_do(struct ios_md_items *items, uint64_t i);
/* ios_md_item_do as the op loop's ios_op_fn: also counts the item in the phase. */
int ios_md_item_op(void *items, uint64_t i);

#endif
