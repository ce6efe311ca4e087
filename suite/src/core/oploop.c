/*
 * The operation loop every IOR- and mdtest-style phase shares: time each operation into the
 * latency histogram, bucket it (count and latency) into the time series, and stop at the stonewall
 * deadline. Wear-out is the same loop without a deadline, run up to the busiest rank's count.
 */
#include "ioscore/run.h"

#define STOP_DEADLINE 1
#define STOP_FAILED 2

uint64_t ios_run_ops(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t from,
                     uint64_t to, double deadline, int *ok)
{
    uint64_t i = from;
    if (ctx->lockstep) /* a rank that cannot start must not leave the others in a collective */
        MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_INT, MPI_MIN, ios_test_comm);
    struct ios_loop_clock clock = ios_loop_clock_start();
    while (*ok && i < to) {
        uint64_t t0 = ios_op_begin(&ctx->instr), end_ns;
        int rc = op(state, i);
        uint64_t ns = ios_op_end(&ctx->instr, t0, &end_ns);
        int stop = rc != 0 ? STOP_FAILED : 0;
        if (rc != 0 && ctx->instr.trace)
            ios_instrument_trace(&ctx->instr, -1, ns);
        if (rc == 0) {
            i++;
            double now = ios_loop_wtime(&clock, end_ns);
            ios_timeseries_add(&ctx->ts, now);
            if (ctx->instr.cfg && ctx->instr.cfg->enabled) {
                int sec = (int)(now - ctx->ts.t0);
                ios_lat_series_add(&ctx->instr.series, sec, ns);
                if (ctx->instr.trace)
                    ios_instrument_trace(&ctx->instr, sec, ns);
            }
            if (deadline > 0 && now - ctx->mine.loop_start > deadline &&
                (!ctx->lockstep || ctx->run->rank == 0))
                stop |= STOP_DEADLINE;
        }
        if (ctx->lockstep)
            MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_BOR, ios_test_comm);
        if (stop & STOP_FAILED) {
            *ok = 0;
            break;
        }
        if (stop & STOP_DEADLINE) {
            ctx->mine.hit_deadline = 1;
            break;
        }
    }
    return i;
}

uint64_t ios_run_ops_wear_out(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t to,
                              double deadline, int *ok)
{
    uint64_t done = ios_run_ops(ctx, op, state, 0, to, deadline, ok);
    ctx->mine.first_done = ios_wtime();
    ctx->mine.items_at_deadline = (double)done;
    unsigned long long mine = done, busiest = 0;
    MPI_Allreduce(&mine, &busiest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ios_test_comm);
    ios_run_ops(ctx, op, state, done, busiest, 0, ok);
    if (deadline > 0) {
        ctx->res->has_stonewall = 1;
        ctx->res->deadline_s = deadline;
        ctx->res->stonewall_time = ctx->mine.first_done - ctx->mine.loop_start;
    }
    return busiest;
}
