/* Error messages with hints for unknown INI names (src/core/config_hints.c); used by config.c. */
#ifndef IOSCORE_CONFIG_HINTS_H
#define IOSCORE_CONFIG_HINTS_H

#include <stddef.h>

#include "ioscore/config.h"

/* "FILE:LINE: unknown section [name]" plus "; did you mean [x]?" when one is close. */
void ios_config_unknown_section(const char *filename, int line, const char *name, char *err,
                                size_t err_len);

/*
 * "FILE:LINE: unknown key 'k' in section [s]" plus a near key of that section, or else the
 * section that has the key ("'k' is a key of [mdworkbench] (an extended-mode section, ...)").
 * `section` indexes ios_config_sections().
 */
void ios_config_unknown_key(const char *filename, int line, int section, const char *key, char *err,
                            size_t err_len);

#endif
