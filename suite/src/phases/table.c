/*
 * The phase table: the standard run's phase order (BENCHMARK-RULES §1.1) and the facts derived
 * from the phase objects for the scheduler, the reports and --list. This is the only place
 * that knows phases by name.
 */
#include <string.h>

#include "ioscore/config.h"
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

enum ios_group ios_phase_group(const char *phase)
{
    char name[64];
    size_t i = 0;
    for (; phase[i] && i < sizeof name - 1; i++)
        name[i] = phase[i] == '_' ? '-' : phase[i]; /* the bash era's ior_easy_write */
    name[i] = '\0';
    for (size_t k = 0; k < sizeof standard / sizeof standard[0]; k++)
        if (strcmp(standard[k]->name, name) == 0)
            return standard[k]->score_group;
    return IOS_GROUP_NONE;
}

const char *ios_phase_unit(const struct ios_phase *p)
{
    switch (p->unit) {
    case IOS_UNIT_GIB_S:
        return "GiB/s";
    case IOS_UNIT_KIOPS:
        return "kIOPS";
    case IOS_UNIT_BY_METRIC:
        break;
    }
    return p->metric == IOS_METRIC_BW ? "GiB/s" : "kIOPS";
}

const char *ios_metric_name(enum ios_metric metric)
{
    static const char *const names[] = {"none", "bw", "md", "custom"};
    return metric <= IOS_METRIC_CUSTOM ? names[metric] : "none";
}

const char *ios_phase_access(const struct ios_phase *p)
{
    static const char *const names[] = {"none", "write", "read", "remove"};
    return p->type <= IOS_PHASE_REMOVE ? names[p->type] : "none";
}

static const char *const md_op_names[IOS_MD_OPS + 1] = {
    "",
    "Directory creation",
    "Directory stat",
    "Directory read",
    "Directory rename",
    "Directory removal",
    "File creation",
    "File stat",
    "File read",
    "File removal",
    "Tree creation",
    "Tree removal",
};

const char *ios_md_op_name(enum ios_md_op op)
{
    return op <= IOS_MD_OPS ? md_op_names[op] : "";
}

enum ios_md_op ios_phase_md_op(const struct ios_phase *p)
{
    return p->md_op;
}

/* The current-table keys of one INI section, space separated. */
static void list_section_keys(FILE *out, const char *section)
{
    int n = 0;
    const struct ios_section *sections = ios_config_sections(&n);
    for (int s = 0; s < n; s++) {
        if (strcmp(sections[s].name, section) != 0)
            continue;
        fprintf(out, ";     [%s]", section);
        for (int o = 0; o < sections[s].n_options; o++)
            if (!sections[s].options[o].releases)
                fprintf(out, " %s", sections[s].options[o].name);
        fprintf(out, "\n");
    }
}

const char *ios_group_name(enum ios_group g)
{
    return g == IOS_GROUP_BW ? "bw" : g == IOS_GROUP_MD ? "md" : "none";
}

void ios_phases_list(FILE *out)
{
    /* comment lines: the listing stays a valid INI text */
    fprintf(out, "; phases of the standard run, in order (options: the INI sections it reads):\n");
    for (size_t i = 0; i < sizeof standard / sizeof standard[0]; i++) {
        const struct ios_phase *p = standard[i];
        fprintf(out, ";   %-20s group=%-4s unit=%-5s metric=%-6s access=%s\n", p->name,
                ios_group_name(p->score_group), ios_phase_unit(p), ios_metric_name(p->metric),
                ios_phase_access(p));
        if (p->pattern)
            fprintf(out, ";     pattern: %s\n", p->pattern);
        if (p->creates)
            fprintf(out, ";     creates: %s\n", p->creates);
        list_section_keys(out, p->name);
        if (p->group)
            list_section_keys(out, p->group);
    }
}
