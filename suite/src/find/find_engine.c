/*
 * The parallel find engine: work stealing over MPI with a token-ring termination test.
 *
 * Each rank owns a LIFO stack of work items (directories by path, and batches of names read
 * from a directory by someone else) plus at most one open directory it is reading. A step is
 * one getdents64 call (1 MiB) on the open directory, or one popped item. Between steps the
 * rank answers messages, so nobody waits long for an answer.
 *
 * Stealing: a rank without work sends a steal request to a random rank and waits for the
 * reply (one request outstanding at a time). The victim answers every request: with the
 * oldest half of its stack, or, when its stack is empty but it is reading a directory, with
 * the next getdents64 batch of that directory as a NAMES item, or with nothing. That last
 * case is what splits a directory of millions of entries between ranks: the reader keeps
 * reading, idle ranks classify and stat what it reads.
 *
 * Termination (Dijkstra's token ring, EWD840): a rank that sends work turns black. A passive
 * rank (no work and no steal request outstanding, so no work can be in flight to it)
 * forwards the token, blackened if it is black, and turns white. Rank 0 ends the run when a
 * white token comes back to a white, passive rank 0; otherwise it starts a new round. Work
 * only moves as the reply to a request, so "no request outstanding" means "nothing in flight
 * to me", which is what the ring's argument needs. After DONE every rank still answers
 * requests (with nothing) until an MPI_Ibarrier shows that all ranks have stopped asking.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ioscore/find.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "find_match.h"
#include "find_queue.h"
#include "find_scan.h"

enum { TAG_REQUEST = 7101, TAG_WORK, TAG_TOKEN, TAG_DONE, TAG_OUTPUT };

struct pending_send {
    MPI_Request req;
    char *buf; /* freed when the send completes */
};

struct engine {
    MPI_Comm comm;
    int rank, size;
    struct find_scanner sc;
    struct find_stack stack;
    /* the directory this rank is reading */
    int cur_fd;
    char *cur_path;
    size_t cur_path_len;
    struct find_cursor cursor; /* the part of cur_fd this rank reads (find_scan.h) */
    int cur_ended;             /* the range ended inside the last batch */
    char *expect_first;        /* RANGE: the entry its first batch must start with */
    enum ioscore_find_range_policy range_policy;
    int fs_direction; /* find_cookie_direction() of the root's file system, -2 = not asked yet */
    char *batch;
    /* stealing */
    int outstanding; /* a steal request waits for its reply */
    unsigned rng;
    int steal_next;    /* opts->steal_next */
    double idle_since; /* < 0 while busy */
    /* termination */
    int has_token;
    int token_black;
    int black;
    int done;
    int fatal;      /* -ENOMEM / -EPROTO: stop and report */
    FILE *print_to; /* rank 0: where every rank's matched paths are written */
    struct pending_send *sends;
    size_t nsends, cap_sends;
};

static int has_work(const struct engine *e)
{
    return e->cur_fd >= 0 || e->stack.len > 0;
}

static void progress_sends(struct engine *e)
{
    size_t kept = 0;
    for (size_t i = 0; i < e->nsends; i++) {
        int flag = 0;
        MPI_Test(&e->sends[i].req, &flag, MPI_STATUS_IGNORE);
        if (flag)
            free(e->sends[i].buf);
        else
            e->sends[kept++] = e->sends[i];
    }
    e->nsends = kept;
}

static int post_request(struct engine *e, MPI_Request req, char *owned)
{
    if (e->nsends == e->cap_sends) {
        size_t cap = e->cap_sends ? 2 * e->cap_sends : 16;
        struct pending_send *grown = realloc(e->sends, cap * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        e->sends = grown;
        e->cap_sends = cap;
    }
    e->sends[e->nsends].req = req;
    e->sends[e->nsends].buf = owned;
    e->nsends++;
    return 0;
}

/* Non-blocking send that owns buf (malloc'd; NULL with len 0 for an empty message). */
static void post_send(struct engine *e, int dest, int tag, char *buf, size_t len)
{
    MPI_Request req;
    MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, e->comm, &req);
    if (post_request(e, req, buf) != 0) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(buf);
    }
}

/* Send from a buffer that outlives the engine (string literal, static). Empty messages and
 * tokens use this, so the protocol messages never fail on memory. */
static void post_send_const(struct engine *e, int dest, int tag, const void *buf, size_t len)
{
    MPI_Request req;
    MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, e->comm, &req);
    if (post_request(e, req, NULL) != 0) {
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* no room to track it: finish it now */
    }
}

/*
 * Matched paths: rank 0 writes them all, so lines of different ranks can never interleave
 * (mpirun forwards each rank's stdout in arbitrary chunks). Other ranks send their lines in
 * synchronous sends; drain() waits until rank 0 has taken every one before the final barrier.
 */
static void emit_lines(void *ctx, const char *lines, size_t len)
{
    struct engine *e = ctx;
    if (e->rank == 0) {
        fwrite(lines, 1, len, e->print_to);
        return;
    }
    char *copy = malloc(len);
    if (copy == NULL) {
        e->fatal = -ENOMEM;
        return;
    }
    memcpy(copy, lines, len);
    MPI_Request req;
    MPI_Issend(copy, (int)len, MPI_BYTE, 0, TAG_OUTPUT, e->comm, &req);
    if (post_request(e, req, copy) != 0) {
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* rank 0 keeps polling, so this returns */
        free(copy);
    }
}

static void close_current(struct engine *e)
{
    if (e->cur_fd >= 0)
        close(e->cur_fd);
    e->cur_fd = -1;
    free(e->cur_path);
    e->cur_path = NULL;
    free(e->expect_first);
    e->expect_first = NULL;
}

/*
 * A RANGE reader checks that its seek landed where the splitting rank's probe said: on a file
 * system whose cookies do not behave as find_scan.h assumes (only possible with
 * --range-split=any), entries could be read twice or missed, and the run must say so.
 */
static void check_range_start(struct engine *e, const char *buf, size_t nbytes)
{
    const char *first = find_first_entry_name(buf, nbytes);
    if (first == NULL)
        return;
    if (strcmp(first, e->expect_first) != 0)
        find_report_error(&e->sc,
                          "a split directory range did not resume at the expected entry; the "
                          "directory offsets of this file system do not support range "
                          "splitting (use --range-split=off)",
                          e->cur_path, NULL, EPROTO);
    free(e->expect_first);
    e->expect_first = NULL;
}

/*
 * Read the next batch of the open directory, cut to this rank's range. Returns the bytes to
 * use (0 = finished and closed); sets cur_ended when the range ended inside the batch, and the
 * caller closes the directory once it has used the batch.
 */
static long read_current(struct engine *e)
{
    long n = find_read_batch(e->cur_fd, e->batch, FIND_DIRENT_BUFFER);
    if (n < 0) {
        find_report_error(&e->sc, "cannot read directory", e->cur_path, NULL, (int)-n);
        close_current(e);
        return 0;
    }
    if (n > 0 && e->expect_first != NULL)
        check_range_start(e, e->batch, (size_t)n);
    if (n > 0)
        n = (long)find_cursor_take(&e->cursor, e->batch, (size_t)n, &e->cur_ended);
    if (n == 0)
        close_current(e);
    return n;
}

static void attach_reader(struct engine *e, int fd, char *path, size_t path_len)
{
    e->cur_fd = fd;
    e->cur_path = path;
    e->cur_path_len = path_len;
    e->cur_ended = 0;
}

/* Start reading a whole directory (fd already open); ownership of path moves to the engine. */
static void start_reading(struct engine *e, int fd, char *path, size_t path_len)
{
    attach_reader(e, fd, path, path_len);
    /* Without -C every directory read is on the root's file system: ask statfs once. */
    int direction = e->fs_direction;
    if (e->sc.cross_mounts || direction == -2)
        direction = find_cookie_direction(fd, e->range_policy);
    if (!e->sc.cross_mounts)
        e->fs_direction = direction;
    find_cursor_init(&e->cursor, direction, e->range_policy == IOSCORE_FIND_RANGE_ANY,
                     FIND_NO_STOP);
}

/* Start reading a RANGE item on fd: seek to its start; the item's path and expected first name
 * move to the engine. 0, or -1 (error counted, fd closed). */
static int start_reading_range(struct engine *e, int fd, struct find_item *item)
{
    if (lseek(fd, item->start_cookie, SEEK_SET) < 0) {
        find_report_error(&e->sc, "cannot seek in directory", item->path, NULL, errno);
        close(fd);
        return -1;
    }
    attach_reader(e, fd, item->path, item->path_len);
    find_cursor_init(&e->cursor, item->direction, 0, item->stop_cookie); /* the victim's order */
    item->path = NULL;
    if (item->names_len > 1) { /* [d_type][name][NUL], see split_current */
        e->expect_first = item->names;
        memmove(e->expect_first, e->expect_first + 1, item->names_len - 1);
        item->names = NULL;
    }
    return 0;
}

/* Give the far half of the directory being read to a thief, as a RANGE item: 1, 0 (cannot),
 * -ENOMEM. The batch buffer is free between steps and serves as the probe. */
static int split_current(struct engine *e, char **buf, size_t *len)
{
    struct find_split split;
    int rc = find_cursor_split(&e->cursor, e->cur_fd, e->batch, FIND_DIRENT_BUFFER, &split);
    if (rc < 0) { /* the reader lost its place: stop reading this directory, say so */
        find_report_error(&e->sc, "cannot return to the read position in", e->cur_path, NULL, -rc);
        close_current(e);
        return 0;
    }
    if (rc == 0)
        return 0;
    size_t name_len = strlen(split.first_name);
    char names[sizeof split.first_name + 1];
    names[0] = 0; /* d_type is not needed: only the name is compared */
    memcpy(names + 1, split.first_name, name_len + 1);
    struct find_item range = {.kind = FIND_ITEM_RANGE,
                              .path = e->cur_path, /* borrowed for packing */
                              .path_len = (uint32_t)e->cur_path_len,
                              .names = names,
                              .names_len = (uint32_t)(name_len + 2),
                              .count = 1,
                              .start_cookie = split.start,
                              .stop_cookie = split.stop,
                              .direction = (int8_t)e->cursor.direction};
    rc = find_item_pack(&range, buf, len);
    if (rc == 0)
        e->sc.counts->ranges_given++;
    return rc == 0 ? 1 : rc;
}

/* Append a packed buffer to another (both malloc'd); frees `more`. 0 or -ENOMEM. */
static int append_packed(char **buf, size_t *len, char *more, size_t more_len)
{
    char *grown = realloc(*buf, *len + more_len);
    if (grown == NULL) {
        free(more);
        return -ENOMEM;
    }
    memcpy(grown + *len, more, more_len);
    free(more);
    *buf = grown;
    *len += more_len;
    return 0;
}

/*
 * A thief gets the oldest half of our stack and, when we are reading a directory whose cookie
 * order is known, the far half of that directory too: a directory of millions of entries is
 * then read by two ranks, and keeps being halved as more ranks ask. When neither exists but we
 * are reading a directory, the thief gets our next getdents64 batch to classify.
 */
static void answer_steal_request(struct engine *e, int thief)
{
    e->sc.counts->steal_requests_received++;
    char *buf = NULL;
    size_t len = 0;
    long given = 0;
    if (!e->done && e->stack.len > 0)
        given = find_stack_pack_half(&e->stack, &buf, &len);
    if (!e->done && given >= 0 && e->cur_fd >= 0) {
        char *range = NULL;
        size_t range_len = 0;
        int split = split_current(e, &range, &range_len);
        if (split > 0)
            split = append_packed(&buf, &len, range, range_len) == 0 ? 1 : -ENOMEM;
        given = split < 0 ? split : given + split;
    }
    if (!e->done && given == 0 && e->cur_fd >= 0) {
        long n = read_current(e);
        if (n > 0) {
            struct find_item names;
            int rc =
                find_dirents_to_names(e->cur_path, e->cur_path_len, e->batch, (size_t)n, &names);
            if (rc == 0) {
                e->sc.counts->entries_read += names.count;
                rc = find_item_pack(&names, &buf, &len);
                find_item_free(&names);
            }
            given = rc == 0 ? 1 : rc;
            if (rc == 0)
                e->sc.counts->name_batches_given++;
        }
        if (e->cur_fd >= 0 && e->cur_ended)
            close_current(e);
    }
    if (given < 0) {
        e->fatal = (int)given;
        given = 0;
        free(buf);
        buf = NULL;
        len = 0;
    }
    if (given > 0) {
        e->black = 1;
        e->sc.counts->items_sent += (uint64_t)given;
    }
    post_send(e, thief, TAG_WORK, buf, len);
}

static void receive_work(struct engine *e, int source, int count)
{
    char *buf = count > 0 ? malloc((size_t)count) : NULL;
    MPI_Recv(buf, count, MPI_BYTE, source, TAG_WORK, e->comm, MPI_STATUS_IGNORE);
    e->outstanding = 0;
    if (count > 0 && buf == NULL) {
        e->fatal = -ENOMEM;
        return;
    }
    if (count > 0 && e->fatal) {
        e->sc.counts->errors++; /* work we can no longer do */
    } else if (count > 0) {
        long added = find_stack_unpack(&e->stack, buf, (size_t)count);
        if (added < 0)
            e->fatal = (int)added;
        else
            e->sc.counts->items_stolen += (uint64_t)added;
    }
    free(buf);
}

/* Answer everything that has arrived. */
static void poll_messages(struct engine *e)
{
    while (1) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, e->comm, &flag, &st);
        if (!flag)
            return;
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (st.MPI_TAG == TAG_REQUEST) {
            char dummy;
            MPI_Recv(&dummy, 1, MPI_BYTE, st.MPI_SOURCE, TAG_REQUEST, e->comm, MPI_STATUS_IGNORE);
            answer_steal_request(e, st.MPI_SOURCE);
        } else if (st.MPI_TAG == TAG_WORK) {
            receive_work(e, st.MPI_SOURCE, count);
        } else if (st.MPI_TAG == TAG_TOKEN) {
            int black = 0;
            MPI_Recv(&black, (int)sizeof(int), MPI_BYTE, st.MPI_SOURCE, TAG_TOKEN, e->comm,
                     MPI_STATUS_IGNORE);
            e->has_token = 1;
            e->token_black = black;
        } else if (st.MPI_TAG == TAG_DONE) {
            char dummy;
            MPI_Recv(&dummy, 1, MPI_BYTE, st.MPI_SOURCE, TAG_DONE, e->comm, MPI_STATUS_IGNORE);
            e->done = 1;
        } else if (st.MPI_TAG == TAG_OUTPUT) {
            char *lines = malloc(count > 0 ? (size_t)count : 1);
            MPI_Recv(lines, lines ? count : 0, MPI_BYTE, st.MPI_SOURCE, TAG_OUTPUT, e->comm,
                     MPI_STATUS_IGNORE);
            if (lines != NULL && e->print_to != NULL)
                fwrite(lines, 1, (size_t)count, e->print_to);
            free(lines);
        } else { /* not ours: cannot happen on the private communicator */
            MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, e->comm, MPI_STATUS_IGNORE);
        }
    }
}

/* One unit of local work. */
static void work_step(struct engine *e)
{
    int rc = 0;
    if (e->cur_fd >= 0) {
        long n = read_current(e);
        if (n > 0)
            rc = find_process_dirents(&e->sc, e->cur_fd, e->cur_path, e->cur_path_len, e->batch,
                                      (size_t)n, &e->stack);
        if (e->cur_fd >= 0 && e->cur_ended)
            close_current(e);
    } else {
        struct find_item item;
        if (!find_stack_pop(&e->stack, &item))
            return;
        if (item.kind == FIND_ITEM_DIR || item.kind == FIND_ITEM_RANGE) {
            int fd = find_open_for_reading(&e->sc, item.path);
            if (fd >= 0 && item.kind == FIND_ITEM_RANGE) {
                start_reading_range(e, fd, &item);
            } else if (fd >= 0) {
                e->sc.counts->dirs++; /* a range is part of a directory counted once */
                start_reading(e, fd, item.path, item.path_len);
                item.path = NULL; /* ownership moved to the reader */
            }
        } else {
            rc = find_process_names(&e->sc, &item, &e->stack);
        }
        find_item_free(&item);
    }
    if (rc != 0)
        e->fatal = rc;
}

static void pass_token(struct engine *e, int black)
{
    /* Read-only payloads: no allocation, so the token can never be lost to malloc. */
    static const int token_colour[2] = {0, 1};
    e->has_token = 0;
    e->sc.counts->tokens_sent++;
    post_send_const(e, (e->rank + 1) % e->size, TAG_TOKEN, &token_colour[black ? 1 : 0],
                    sizeof(int));
}

static void announce_done(struct engine *e)
{
    e->done = 1;
    for (int r = 1; r < e->size; r++) {
        post_send_const(e, r, TAG_DONE, "", 0);
    }
}

/* What a rank without local work does. */
static void idle_step(struct engine *e)
{
    if (e->idle_since < 0)
        e->idle_since = MPI_Wtime();
    if (e->size == 1) {
        e->done = 1;
        return;
    }
    if (e->outstanding)
        return; /* wait for the reply: work may be on its way */
    if (e->has_token) {
        if (e->rank == 0) {
            if (!e->token_black && !e->black) {
                announce_done(e);
                return;
            }
            e->black = 0;
            pass_token(e, 0);
        } else {
            pass_token(e, e->token_black || e->black);
            e->black = 0;
        }
    }
    int victim = (int)(rand_r(&e->rng) % (unsigned)(e->size - 1));
    if (victim >= e->rank)
        victim++; /* never ourselves */
    if (e->steal_next && (rand_r(&e->rng) & 1))
        victim = (e->rank + e->size - 1) % e->size; /* pfind -N: half of the time, rank-1 */
    e->outstanding = 1;
    e->sc.counts->steal_requests_sent++;
    post_send_const(e, victim, TAG_REQUEST, "", 0);
}

static void account_idle(struct engine *e)
{
    if (e->idle_since >= 0) {
        e->sc.counts->steal_time_s += MPI_Wtime() - e->idle_since;
        e->idle_since = -1;
    }
}

/* Out of memory or a corrupt message: this rank drops its work (the run reports the error)
 * but keeps taking part in the protocol, so the other ranks still terminate cleanly. */
static void drop_work_after_fatal(struct engine *e)
{
    close_current(e);
    find_stack_free(&e->stack);
}

/*
 * An idle rank polls, but must not take the CPU from ranks that work: ranks may outnumber
 * cores, and other jobs share them. Spin briefly (answers stay fast), then yield, then nap
 * 50 us between polls; a steal request or a reply waits at most that long.
 */
static void idle_pause(unsigned rounds)
{
    if (rounds < 64)
        return;
    if (rounds < 1024) {
        sched_yield();
        return;
    }
    struct timespec nap = {.tv_sec = 0, .tv_nsec = 50 * 1000};
    nanosleep(&nap, NULL);
}

static void run_loop(struct engine *e)
{
    unsigned idle_rounds = 0;
    while (!e->done) {
        progress_sends(e);
        poll_messages(e);
        if (e->fatal)
            drop_work_after_fatal(e);
        if (e->done)
            break;
        if (has_work(e)) {
            account_idle(e);
            idle_rounds = 0;
            work_step(e);
        } else {
            idle_step(e);
            idle_pause(++idle_rounds);
        }
    }
    account_idle(e);
}

/* After DONE: keep answering (with nothing) until every rank has stopped asking. */
static void drain(struct engine *e)
{
    MPI_Request barrier = MPI_REQUEST_NULL;
    int in_barrier = 0;
    unsigned rounds = 0;
    find_scanner_flush(&e->sc);
    while (1) {
        progress_sends(e);
        poll_messages(e);
        /* every send completed: our matched paths are with rank 0, our replies delivered */
        if (!in_barrier && !e->outstanding && e->nsends == 0) {
            MPI_Ibarrier(e->comm, &barrier);
            in_barrier = 1;
        }
        if (in_barrier) {
            int flag = 0;
            MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
            if (flag)
                break;
        }
        idle_pause(++rounds);
    }
    for (size_t i = 0; i < e->nsends; i++) {
        MPI_Wait(&e->sends[i].req, MPI_STATUS_IGNORE);
        free(e->sends[i].buf);
    }
    e->nsends = 0;
}

int ioscore_find_check_pattern(const char *name_pattern)
{
    struct find_matcher m;
    int rc = find_matcher_init(&m, name_pattern);
    if (rc == 0)
        find_matcher_free(&m);
    return rc;
}

static void reduce_counts(MPI_Comm comm, const struct ioscore_find_counts *mine,
                          struct ioscore_find_counts *total)
{
    /* every uint64_t counter is summed; the two times take the maximum over ranks */
    uint64_t *const fields[] = {&total->found,
                                &total->scanned,
                                &total->checked,
                                &total->errors,
                                &total->unknown,
                                &total->dirs,
                                &total->steal_requests_received,
                                &total->items_sent,
                                &total->steal_requests_sent,
                                &total->items_stolen,
                                &total->tokens_sent,
                                &total->entries_read,
                                &total->ranges_given,
                                &total->name_batches_given};
    enum { NFIELDS = sizeof fields / sizeof fields[0] };
    uint64_t in[NFIELDS], sum[NFIELDS];
    *total = *mine;
    for (size_t i = 0; i < NFIELDS; i++)
        in[i] = *fields[i];
    MPI_Allreduce(in, sum, NFIELDS, MPI_UINT64_T, MPI_SUM, comm);
    for (size_t i = 0; i < NFIELDS; i++)
        *fields[i] = sum[i];
    double tin[2] = {mine->runtime_s, mine->steal_time_s}, tmax[2];
    MPI_Allreduce(tin, tmax, 2, MPI_DOUBLE, MPI_MAX, comm);
    total->runtime_s = tmax[0];
    total->steal_time_s = tmax[1];
}

/* Rank 0 opens the root and the -newer reference; everyone learns the outcome. */
static int open_root(struct engine *e, const struct ioscore_find_opts *opts)
{
    int64_t shared[3] = {0, 0, 0}; /* status, reference ctime, root st_dev */
    if (e->rank == 0) {
        int fd = find_open_dir(opts->root, 1); /* the root itself may be a symlink, as in pfind */
        struct stat st;
        if (fd < 0) {
            shared[0] = fd;
        } else if (fstat(fd, &st) != 0) {
            shared[0] = -errno;
            close(fd);
            fd = -1;
        } else {
            shared[2] = (int64_t)st.st_dev;
        }
        if (shared[0] == 0 && opts->newer_file != NULL) {
            struct stat ref;
            if (stat(opts->newer_file, &ref) != 0) {
                shared[0] = -errno;
                close(fd);
                fd = -1;
            } else {
                shared[1] = (int64_t)ref.st_ctime; /* 64 bits: pfind's MPI_INT truncated */
            }
        }
        if (fd >= 0) {
            char *path = strdup(opts->root);
            if (path == NULL) {
                shared[0] = -ENOMEM;
                close(fd);
            } else {
                start_reading(e, fd, path, strlen(path));
                e->sc.counts->dirs++;
            }
        }
    }
    MPI_Bcast(shared, 3, MPI_INT64_T, 0, e->comm);
    e->sc.ref_ctime = shared[1];
    e->sc.root_dev = (uint64_t)shared[2];
    return (int)shared[0];
}

int ioscore_find_run(MPI_Comm comm, const struct ioscore_find_opts *opts,
                     struct ioscore_find_result *out)
{
    memset(out, 0, sizeof(*out));
    struct engine e;
    memset(&e, 0, sizeof(e));
    e.cur_fd = -1;
    e.idle_since = -1;
    MPI_Comm_dup(comm, &e.comm); /* our tags can never meet the caller's messages */
    MPI_Comm_rank(e.comm, &e.rank);
    MPI_Comm_size(e.comm, &e.size);
    e.rng = 0x9e3779b9u ^ (unsigned)e.rank * 2654435761u;
    e.has_token = e.rank == 0;
    e.token_black = 1; /* rank 0's first passive moment starts a round, never ends one */
    e.sc.counts = &out->mine;
    e.sc.size_bytes = opts->size_bytes;
    e.sc.has_newer = opts->newer_file != NULL;
    e.sc.need_stat = opts->size_bytes >= 0 || opts->newer_file != NULL;
    e.sc.cross_mounts = opts->cross_mounts;
    e.sc.verbose = opts->verbose;
    e.range_policy = opts->range_split;
    e.steal_next = opts->steal_next;
    e.fs_direction = -2;
    e.sc.print_matches = opts->print_matches != NULL;
    e.sc.emit = emit_lines;
    e.sc.emit_ctx = &e;
    e.print_to = opts->print_matches;

    int local_rc = find_matcher_init(&e.sc.matcher, opts->name_pattern);
    e.batch = malloc(FIND_DIRENT_BUFFER);
    if (local_rc == 0 && e.batch == NULL)
        local_rc = -ENOMEM;
    int rc = 0;
    MPI_Allreduce(&local_rc, &rc, 1, MPI_INT, MPI_MIN, e.comm);

    double start = MPI_Wtime();
    if (rc == 0)
        rc = open_root(&e, opts);
    if (rc == 0) {
        run_loop(&e);
        drain(&e);
        int any_fatal = 0;
        MPI_Allreduce(&e.fatal, &any_fatal, 1, MPI_INT, MPI_MIN, e.comm);
        rc = any_fatal;
    }
    out->mine.runtime_s = MPI_Wtime() - start;
    if (e.print_to != NULL && e.rank == 0)
        fflush(e.print_to);

    reduce_counts(e.comm, &out->mine, &out->total);
    out->rate = out->total.runtime_s > 0 ? (double)out->total.scanned / out->total.runtime_s : 0;

    close_current(&e);
    find_stack_free(&e.stack);
    free(e.batch);
    free(e.sc.out);
    if (local_rc == 0)
        find_matcher_free(&e.sc.matcher);
    free(e.sends); /* drain() completed every send */
    MPI_Comm_free(&e.comm);
    return rc;
}
