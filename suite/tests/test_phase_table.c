/*
 * The phase table's facts: consistent with each other, derived by the table (not by names
 * elsewhere), and the only source of a phase name's score group.
 */
#include <string.h>

#include "check.h"
#include "ioscore/phases.h"

static void test_standard_phases(void)
{
    int n = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    CHECK(n == 14);
    int scored = 0, top_dirs = 0;
    for (int i = 0; i < n; i++) {
        const struct ios_phase *p = phases[i];
        CHECK(p->unit != IOS_UNIT_BY_METRIC); /* every standard phase declares its unit */
        CHECK(strcmp(ios_phase_unit(p), p->metric == IOS_METRIC_BW ? "GiB/s" : "kIOPS") == 0);
        /* mdtest phases name their CSV column, nothing else does */
        CHECK((p->metric == IOS_METRIC_MD) == (p->md_op != IOS_MD_NONE));
        CHECK((p->metric == IOS_METRIC_MD) == (ios_phase_md_op(p) != IOS_MD_NONE));
        /* a phase that creates a top directory removes it again, in both ways */
        if (p->top_dir) {
            top_dirs++;
            CHECK(p->cleanup != NULL && p->sweep != NULL && p->type == IOS_PHASE_WRITE);
        }
        CHECK(p->pattern != NULL);
        CHECK(ios_phase_group(p->name) == p->score_group);
        scored += p->score_group != IOS_GROUP_NONE;
    }
    CHECK(scored == 12);
    CHECK(top_dirs == 4);
}

static void test_derived_facts(void)
{
    CHECK(ios_phase_group("ior_easy_write") == IOS_GROUP_BW); /* bash-era names */
    CHECK(ios_phase_group("mdtest_hard_delete") == IOS_GROUP_MD);
    CHECK(ios_phase_group("ior-rnd4K-easy-read") == IOS_GROUP_NONE);
    CHECK(ios_phase_group("no-such-phase") == IOS_GROUP_NONE);
    CHECK(strcmp(ios_md_op_name(IOS_MD_FILE_CREATE), "File creation") == 0);
    CHECK(strcmp(ios_md_op_name(IOS_MD_TREE_REMOVE), "Tree removal") == 0);
    CHECK(strcmp(ios_phase_access(&ios_phase_ior_hard_write), "write") == 0);
    CHECK(strcmp(ios_phase_access(&ios_phase_mdtest_easy_delete), "remove") == 0);
    CHECK(strcmp(ios_metric_name(ios_phase_find.metric), "custom") == 0);
}

/* A phase built at run time that declares only its metric: the unit follows the metric. */
static void test_undeclared_facts(void)
{
    struct ios_phase p = {.name = "ior-write-0", .metric = IOS_METRIC_BW};
    CHECK(strcmp(ios_phase_unit(&p), "GiB/s") == 0);
    CHECK(ios_phase_md_op(&p) == IOS_MD_NONE);
    struct ios_phase md = {.name = "mdtest-dir-stat-3", .metric = IOS_METRIC_MD};
    CHECK(strcmp(ios_phase_unit(&md), "kIOPS") == 0);
    CHECK(ios_phase_md_op(&md) == IOS_MD_NONE); /* the name decides nothing */
    md.md_op = IOS_MD_FILE_READ;
    CHECK(ios_phase_md_op(&md) == IOS_MD_FILE_READ);
}

int main(void)
{
    test_standard_phases();
    test_derived_facts();
    test_undeclared_facts();
    return check_finish();
}
