/*
 * IOR's file-system layout hints given with -O (lustreStripeCount, lustreStripeSize,
 * lustreStartOST, beegfsNumTargets, beegfsChunkSize), in src/acceptance/ior_layout.c. IOR
 * applies them through the file system's client library when it was built with one and refuses
 * them otherwise; ioscore applies them through the file system's own tool (lfs setstripe,
 * beegfs-ctl --createfile) when the test file's directory is on that file system and the tool
 * is on PATH, and refuses them before any I/O, with one line, everywhere else.
 */
#ifndef IOSCORE_IOR_LAYOUT_H
#define IOSCORE_IOR_LAYOUT_H

#include <stddef.h>

#include "ioscore/acceptance.h"
#include "ioscore/cli_options.h"

/* The option-table setter of the layout -O keys (the row's name says which): the bounds of
 * each key's value are this module's. 0, or -1 with "expected ..." in err. */
int ios_ior_layout_set(void *params, const struct ios_cli_opt *o, const char *value, char *err,
                       size_t err_len);

/* Rank 0, before any I/O: can the hints be applied to the files of `test_file`? 0, or -1 after
 * printing why not. */
int ios_ior_layout_check(const struct ios_ior_params *p);

/* Creates `path` (absent) with the hints' layout by running the tool; 0 or -1 with the reason
 * in `why`. */
int ios_ior_layout_apply(const struct ios_ior_params *p, const char *path, char *why,
                         size_t why_len);

#endif
