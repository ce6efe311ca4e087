/*
 * The test manifest: a flat JSON object (members are strings, numbers or arrays of numbers)
 * that a write/create launch keeping its data leaves beside it, so a later launch on the same
 * data is recorded as the second part of the same test. Written with the JSON writer; read by
 * the small strict parser below, which only knows that flat shape and is bounded in size, so
 * a damaged or foreign file is refused with a reason rather than half-read.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/acceptance.h"

#define MANIFEST_SCHEMA "ioscore-acceptance-test/1"
#define MANIFEST_MAX_BYTES (256 * 1024)

void ios_acc_new_test_id(char *id, size_t len)
{
    unsigned char raw[16] = {0};
    if (len < 2 * sizeof raw + 1)
        ios_fatal("test id buffer too small");
    {
        int fd = open("/dev/urandom", O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
        if (fd >= 0)
            close(fd);
        if (n != (ssize_t)sizeof raw) { /* no urandom: time and pid, still unique enough */
            double t = ios_wtime();
            pid_t pid = getpid();
            memcpy(raw, &t, sizeof t);
            memcpy(raw + 8, &pid, sizeof pid);
        }
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(id + 2 * i, 3, "%02x", raw[i]);
}

void ios_acc_manifest_begin(struct ios_json *j, const char *tool, const char *id)
{
    ios_json_init(j);
    ios_json_begin_object(j, NULL);
    ios_json_string(j, "schema", MANIFEST_SCHEMA);
    ios_json_string(j, "id", id);
    ios_json_string(j, "tool", tool);
}

int ios_acc_manifest_finish(struct ios_json *j, const struct ios_acc_part *part, const char *path)
{
    ios_json_string(j, "part.role", part->role);
    ios_json_string(j, "part.command", part->command);
    ios_json_string(j, "part.run_started", part->run_started);
    ios_json_string(j, "part.result_dir", part->result_dir);
    for (int o = 0; o < part->n_ops; o++) {
        char key[48];
        snprintf(key, sizeof key, "op:%s", part->ops[o].operation);
        ios_json_begin_array(j, key);
        for (int i = 0; i < part->ops[o].n; i++)
            ios_json_double(j, NULL, part->ops[o].values[i]);
        ios_json_end_array(j);
        snprintf(key, sizeof key, "time:%s", part->ops[o].operation);
        ios_json_begin_array(j, key);
        for (int i = 0; i < part->ops[o].n; i++)
            ios_json_double(j, NULL, part->ops[o].time[i]);
        ios_json_end_array(j);
    }
    ios_json_end_object(j);
    int rc = ios_write_file_atomic(path, j->buf, j->len);
    ios_json_free(j);
    return rc;
}

/* ---------------------------------------------------------------- the reader */

struct cursor {
    const char *start, *s, *end;
    char *err;
    size_t err_len;
};

static int bad(struct cursor *c, const char *what)
{
    snprintf(c->err, c->err_len, "%s at byte %ld", what, (long)(c->s - c->start));
    return -EINVAL;
}

static void skip_ws(struct cursor *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\n' || *c->s == '\t' || *c->s == '\r'))
        c->s++;
}

/* A JSON string into out (bytes; \u escapes below 0x80 only, as the writer produces). */
static int read_string(struct cursor *c, char *out, size_t len)
{
    if (c->s >= c->end || *c->s != '"')
        return bad(c, "expected a string");
    c->s++;
    size_t n = 0;
    while (c->s < c->end && *c->s != '"') {
        char ch = *c->s++;
        if ((unsigned char)ch < 0x20)
            return bad(c, "control character in a string");
        if (ch == '\\') {
            if (c->s >= c->end)
                return bad(c, "unterminated escape");
            char e = *c->s++;
            switch (e) {
            case '"':
            case '\\':
            case '/':
                ch = e;
                break;
            case 'n':
                ch = '\n';
                break;
            case 'r':
                ch = '\r';
                break;
            case 't':
                ch = '\t';
                break;
            case 'b':
                ch = '\b';
                break;
            case 'f':
                ch = '\f';
                break;
            case 'u': {
                if (c->end - c->s < 4)
                    return bad(c, "short \\u escape");
                char hex[5] = {c->s[0], c->s[1], c->s[2], c->s[3], 0};
                char *stop = NULL;
                long v = strtol(hex, &stop, 16);
                if (*stop || v <= 0 || v >= 0x80)
                    return bad(c, "unsupported \\u escape");
                ch = (char)v;
                c->s += 4;
                break;
            }
            default:
                return bad(c, "bad escape");
            }
        }
        if (n + 1 >= len)
            return bad(c, "string too long");
        out[n++] = ch;
    }
    if (c->s >= c->end)
        return bad(c, "unterminated string");
    c->s++;
    out[n] = '\0';
    return 0;
}

static int read_number(struct cursor *c, double *out)
{
    char buf[64];
    size_t n = 0;
    if (c->end - c->s >= 4 && memcmp(c->s, "null", 4) == 0) { /* the writer's NaN */
        c->s += 4;
        *out = NAN;
        return 0;
    }
    while (c->s < c->end && n + 1 < sizeof buf && strchr("+-0123456789.eE", *c->s) && *c->s)
        buf[n++] = *c->s++;
    buf[n] = '\0';
    char *stop = NULL;
    *out = strtod(buf, &stop);
    if (n == 0 || *stop)
        return bad(c, "expected a number");
    return 0;
}

static int read_value(struct cursor *c, struct ios_acc_member *m)
{
    skip_ws(c);
    if (c->s >= c->end)
        return bad(c, "expected a value");
    if (*c->s == '"') {
        m->is_str = 1;
        return read_string(c, m->str, sizeof m->str);
    }
    if (*c->s == '[') {
        c->s++;
        skip_ws(c);
        if (c->s < c->end && *c->s == ']') {
            c->s++;
            return 0;
        }
        for (;;) {
            skip_ws(c);
            if (m->n == IOS_ACC_MAX_ITERS)
                return bad(c, "array too long");
            int rc = read_number(c, &m->num[m->n++]);
            if (rc != 0)
                return rc;
            skip_ws(c);
            if (c->s < c->end && *c->s == ',') {
                c->s++;
                continue;
            }
            if (c->s < c->end && *c->s == ']') {
                c->s++;
                return 0;
            }
            return bad(c, "expected ',' or ']'");
        }
    }
    m->n = 1;
    return read_number(c, &m->num[0]);
}

int ios_acc_manifest_load(const char *path, struct ios_acc_manifest *m, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return errno == ENOENT ? -ENOENT : -errno;
    char *text = malloc(MANIFEST_MAX_BYTES + 1);
    if (!text)
        ios_fatal("out of memory");
    ssize_t len = read(fd, text, MANIFEST_MAX_BYTES + 1);
    close(fd);
    struct cursor c = {text, text, text + (len > 0 ? len : 0), err, err_len};
    int rc = 0;
    if (len < 0 || len > MANIFEST_MAX_BYTES) {
        snprintf(err, err_len, "%s", len < 0 ? "cannot read it" : "larger than 256 KiB");
        rc = -EINVAL;
    }
    skip_ws(&c);
    if (rc == 0 && (c.s >= c.end || *c.s++ != '{'))
        rc = bad(&c, "expected '{'");
    while (rc == 0) {
        skip_ws(&c);
        if (m->n == IOS_ACC_MANIFEST_MAX) {
            rc = bad(&c, "too many members");
            break;
        }
        struct ios_acc_member *mem = &m->m[m->n++];
        rc = read_string(&c, mem->key, sizeof mem->key);
        skip_ws(&c);
        if (rc == 0 && (c.s >= c.end || *c.s++ != ':'))
            rc = bad(&c, "expected ':'");
        if (rc == 0)
            rc = read_value(&c, mem);
        skip_ws(&c);
        if (rc != 0)
            break;
        if (c.s < c.end && *c.s == ',') {
            c.s++;
            continue;
        }
        if (c.s < c.end && *c.s == '}')
            break;
        rc = bad(&c, "expected ',' or '}'");
    }
    free(text);
    if (rc == 0 && strcmp(ios_acc_manifest_str(m, "schema"), MANIFEST_SCHEMA) != 0) {
        snprintf(err, err_len, "not an ioscore test manifest (schema is not %s)", MANIFEST_SCHEMA);
        rc = -EINVAL;
    }
    return rc;
}

const struct ios_acc_member *ios_acc_manifest_get(const struct ios_acc_manifest *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->m[i].key, key) == 0)
            return &m->m[i];
    return NULL;
}

double ios_acc_manifest_num(const struct ios_acc_manifest *m, const char *key, double fallback)
{
    const struct ios_acc_member *mem = ios_acc_manifest_get(m, key);
    return mem && !mem->is_str && mem->n == 1 ? mem->num[0] : fallback;
}

const char *ios_acc_manifest_str(const struct ios_acc_manifest *m, const char *key)
{
    const struct ios_acc_member *mem = ios_acc_manifest_get(m, key);
    return mem && mem->is_str ? mem->str : "";
}

void ios_acc_part_from_manifest(const struct ios_acc_manifest *m,
                                const struct ios_acc_measure *measure, struct ios_acc_part *part)
{
    memset(part, 0, sizeof *part);
    snprintf(part->role, sizeof part->role, "%.15s", ios_acc_manifest_str(m, "part.role"));
    snprintf(part->command, sizeof part->command, "%.2047s",
             ios_acc_manifest_str(m, "part.command"));
    snprintf(part->run_started, sizeof part->run_started, "%.39s",
             ios_acc_manifest_str(m, "part.run_started"));
    snprintf(part->result_dir, sizeof part->result_dir, "%s",
             ios_acc_manifest_str(m, "part.result_dir"));
    for (int i = 0; i < m->n && part->n_ops < IOS_ACC_MAX_OPS; i++) {
        const struct ios_acc_member *mem = &m->m[i];
        if (mem->is_str || strncmp(mem->key, "op:", 3) != 0)
            continue;
        struct ios_acc_series *s = &part->ops[part->n_ops++];
        snprintf(s->operation, sizeof s->operation, "%s", mem->key + 3);
        s->measure = measure;
        s->n = mem->n;
        memcpy(s->values, mem->num, sizeof(double) * (size_t)mem->n);
        char key[48];
        snprintf(key, sizeof key, "time:%s", s->operation);
        const struct ios_acc_member *t = ios_acc_manifest_get(m, key);
        if (t && !t->is_str && t->n == s->n)
            memcpy(s->time, t->num, sizeof(double) * (size_t)t->n);
    }
}

int ios_acc_manifest_check(const char *tool, const char *path, struct ios_acc_manifest *m,
                           const struct ios_acc_expect *same, size_t n, const char *part, char *why,
                           size_t why_len)
{
    char err[256] = "";
    why[0] = '\0';
    int rc = ios_acc_manifest_load(path, m, err, sizeof err);
    if (rc == -ENOENT)
        return 0;
    if (rc != 0) {
        fprintf(stderr, "ioscore-suite %s: ERROR: %s: %s\n", tool, path,
                err[0] ? err : strerror(-rc));
        return -1;
    }
    for (size_t k = 0; k < n && !why[0]; k++) {
        double had = ios_acc_manifest_num(m, same[k].key, NAN);
        if (had != same[k].want)
            snprintf(why, why_len, "the %s part of test %s ran with %s %.0f, this launch with %.0f",
                     part, ios_acc_manifest_str(m, "id"), same[k].opt, had, same[k].want);
    }
    return 1;
}
