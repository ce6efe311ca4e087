/* The standard run's phase order (benchmark spec §1.1). */
#include "ioscore/phases.h"

static const struct ios_phase *const standard[] = {
    &ios_phase_ior_easy_write,     &ios_phase_mdtest_easy_write,   &ios_phase_timestamp,
    &ios_phase_ior_hard_write,     &ios_phase_mdtest_hard_write,   &ios_phase_find,
    &ios_phase_ior_easy_read,      &ios_phase_mdtest_easy_stat,    &ios_phase_ior_hard_read,
    &ios_phase_mdtest_hard_stat,   &ios_phase_mdtest_easy_delete,  &ios_phase_mdtest_hard_read,
    &ios_phase_mdtest_hard_delete, &ios_phase_ior_rnd4k_easy_read,
};

const struct ios_phase *const *ios_standard_phases(int *count)
{
    *count = (int)(sizeof standard / sizeof standard[0]);
    return standard;
}
