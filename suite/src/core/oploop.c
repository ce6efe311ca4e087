/*
 * The operation loop every IOR- and mdtest-style phase shares: time each operation into the
 * latency histogram, bucket it into the time series, and stop at the stonewall deadline.
 * Wear-out is the same loop without a deadline, run up to the busiest rank's count.
 */
#include "ioscore/run.h"

uint64_t ios_run_ops(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t from,
                     uint64_t to, double deadline, int *ok)
{
    uint64_t i = from;
    while (*ok && i < to) {
        uint64_t t0 = ios_op_begin(&ctx->instr);
        int rc = op(state, i);
        ios_op_end(&ctx->instr, t0);
        if (rc != 0) {
            *ok = 0;
            break;
        }
        i++;
        double now = ios_wtime();
        ios_timeseries_add(&ctx->ts, now);
        if (deadline > 0 && now - ctx->mine.loop_start > deadline) {
            ctx->mine.hit_deadline = 1;
            break;
        }
    }
    return i;
}
