/* The phase objects, one per file in src/phases/, collected in execution order by table.c. */
#ifndef IOSCORE_PHASES_H
#define IOSCORE_PHASES_H

#include "ioscore/phase.h"
#include "ioscore/run.h"

extern const struct ios_phase ios_phase_ior_easy_write;
extern const struct ios_phase ios_phase_ior_easy_read;
extern const struct ios_phase ios_phase_ior_hard_write;
extern const struct ios_phase ios_phase_ior_hard_read;
extern const struct ios_phase ios_phase_ior_rnd4k_easy_read;
extern const struct ios_phase ios_phase_mdtest_easy_write;
extern const struct ios_phase ios_phase_mdtest_easy_stat;
extern const struct ios_phase ios_phase_mdtest_easy_delete;
extern const struct ios_phase ios_phase_mdtest_hard_write;
extern const struct ios_phase ios_phase_mdtest_hard_stat;
extern const struct ios_phase ios_phase_mdtest_hard_read;
extern const struct ios_phase ios_phase_mdtest_hard_delete;
extern const struct ios_phase ios_phase_timestamp;
extern const struct ios_phase ios_phase_find;

#endif
