/* Group scores, zero handling and TOTAL (BENCHMARK-RULES §3.2). */
#include <math.h>

#include "check.h"
#include "ioscore/score.h"

static int close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fabs(b);
}

int main(void)
{
    const double three[] = {2.0, 8.0, 4.0};
    CHECK(close_rel(ios_geometric_mean(three, 3), 4.0, 1e-12));
    const double with_zero[] = {2.0, 0.0, 8.0};
    CHECK(close_rel(ios_geometric_mean(with_zero, 3), 4.0, 1e-12)); /* zeros left out */
    const double zeros[] = {0.0, 0.0};
    CHECK(ios_geometric_mean(zeros, 2) == 0.0);
    CHECK(ios_geometric_mean(zeros, 0) == 0.0);

    CHECK(ios_phase_group("ior-easy-write") == IOS_GROUP_BW);
    CHECK(ios_phase_group("ior_hard_read") == IOS_GROUP_BW); /* bash-era names */
    CHECK(ios_phase_group("find") == IOS_GROUP_MD);
    CHECK(ios_phase_group("mdtest-hard-read") == IOS_GROUP_MD);
    CHECK(ios_phase_group("timestamp") == IOS_GROUP_NONE);
    CHECK(ios_phase_group("ior-rnd4K-easy-read") == IOS_GROUP_NONE);

    /* sc25 submission 762: MD 12.935565, BW 7.853161, SCORE 10.078942 */
    const char *names[] = {"ior-easy-write",
                           "mdtest-easy-write",
                           "ior-hard-write",
                           "mdtest-hard-write",
                           "find",
                           "ior-easy-read",
                           "mdtest-easy-stat",
                           "ior-hard-read",
                           "mdtest-hard-stat",
                           "mdtest-easy-delete",
                           "mdtest-hard-read",
                           "mdtest-hard-delete",
                           "ior-rnd4K-easy-read"};
    const double scores[] = {34.950286, 7.141687,  0.597965, 6.740920,  71.617650,
                             36.825198, 31.666534, 4.942040, 31.492299, 5.948741,
                             7.003063,  5.472996,  0.106188};
    struct ios_scores s = ios_compute_scores(names, scores, 13);
    CHECK(close_rel(s.md, 12.935565, 1e-6));
    CHECK(close_rel(s.bw, 7.853161, 1e-6));
    CHECK(close_rel(s.total, 10.078942, 1e-6));
    CHECK(close_rel(s.total, sqrt(s.bw * s.md), 1e-15));

    /* a BW phase at 0 is left out of the BW mean, not multiplied in */
    double zeroed[13];
    for (int i = 0; i < 13; i++)
        zeroed[i] = scores[i];
    zeroed[0] = 0.0;
    struct ios_scores z = ios_compute_scores(names, zeroed, 13);
    CHECK(close_rel(z.bw, cbrt(0.597965 * 36.825198 * 4.942040), 1e-12));
    CHECK(close_rel(z.md, s.md, 1e-15));
    return check_finish();
}
