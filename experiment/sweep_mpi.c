/* sweep_mpi.c -- `mpirun -np N hetsim sweep SPEC`: rank 0 hands out one
 * cell at a time to whichever rank asks, since cells differ in cost (a
 * fixed split would leave ranks idle behind the slowest share); the others
 * run what they are given and ask again. Built when CMake finds MPI
 * (HETSIM_HAVE_MPI); a plain `hetsim sweep` never initialises MPI, so the
 * same binary works without mpirun. The MPI calls themselves live in
 * hetsim_mpi.so (mpi_link.h), opened only under mpirun, so that no other
 * command loads OpenMPI. */
#include <stdlib.h>

#include "cli.h"
#include "sweep_internal.h"

#if HETSIM_HAVE_MPI
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpi_link.h"
#include "policy.h"

/* A worker sends ASK for a cell and waits for the CELL answer (an index, or
 * -1: stop asking); it sends REPORT {cell, ok} as each of its cells ends. */
enum { TAG_ASK = 1, TAG_CELL = 2, TAG_REPORT = 3 };

/* The MPI calls, from hetsim_mpi.so (mpi_link.h), opened under mpirun. */
static const struct sweep_mpi_link *mpi;

int sweep_mpi_launched(void)
{
    /* Set by OpenMPI's mpirun (and by PMI launchers) in every rank. */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_SIZE");
}

/* Opens hetsim_mpi.so; 0, or -1 with WHY. */
static int open_link(char *why, size_t cap)
{
    char path[PATH_MAX];
    void *sym = pol_open_module(SWEEP_MPI_FILE, SWEEP_MPI_ENTRY,
                                "a sweep under mpirun needs", "the MPI module",
                                path, sizeof path, why, cap);
    if (!sym)
        return -1;
    const struct sweep_mpi_link *(*entry)(void);
    memcpy(&entry, &sym, sizeof sym);
    mpi = entry();
    if (!mpi || mpi->abi != SWEEP_MPI_ABI || mpi->size != sizeof *mpi) {
        mpi = NULL;
        snprintf(why, cap,
                 "%s is not the MPI module of this hetsim program (rebuild "
                 "both)",
                 path);
        return -1;
    }
    return 0;
}

/* Rank 0: answers each ASK with the next cell not yet done, or -1 when
 * none is left, and counts the REPORTs, until every worker has been told
 * to stop and every cell handed out has been reported. */
static int serve(const char *out, const struct sweep_cell *cells, size_t n,
                 int workers, int progress)
{
    size_t next = 0, handed = 0, reported = 0;
    int stopped = 0;
    struct sweep_progress pr = {
        .total = n, .start = cli_clock(), .show = progress};
    while (stopped < workers || reported < handed) {
        long long msg[2];
        int tag, source;
        mpi->receive_any(msg, &tag, &source);
        if (tag == TAG_REPORT) {
            reported++;
            sweep_progress_step(&pr, !msg[1]);
            continue;
        }
        while (next < n && sweep_cell_done(out, &cells[next])) {
            next++;
            pr.done++;
            pr.skipped++;
        }
        long long cell = next < n ? (long long)next++ : -1;
        handed += cell >= 0;
        stopped += cell < 0;
        mpi->send(&cell, 1, source, TAG_CELL);
    }
    sweep_progress_end(&pr);
    if (pr.failed)
        cli_error("%zu of %zu cells failed; run the same command again to "
                  "retry them",
                  pr.failed, n);
    return pr.failed ? CLI_FAILURE : CLI_OK;
}

/* A worker's cells come from rank 0. */
static long long ask(void *ctx)
{
    long long msg[2] = {-1, 0}, cell;
    (void)ctx;
    mpi->send(msg, 2, 0, TAG_ASK);
    mpi->receive(&cell, 1, 0, TAG_CELL);
    return cell;
}

static void report(void *ctx, size_t cell, int ok)
{
    long long msg[2] = {(long long)cell, ok};
    (void)ctx;
    mpi->send(msg, 2, 0, TAG_REPORT);
}

/* Cells in order, for a world of one rank. */
struct alone {
    const char *out;
    const struct sweep_cell *cells;
    size_t n, next;
};

static long long alone_next(void *ctx)
{
    struct alone *a = ctx;
    while (a->next < a->n && sweep_cell_done(a->out, &a->cells[a->next]))
        a->next++;
    return a->next < a->n ? (long long)a->next++ : -1;
}

static void alone_done(void *ctx, size_t cell, int ok)
{
    (void)ctx, (void)cell, (void)ok;
}

int sweep_mpi_run(const struct sweep_spec *s, const char *out,
                  const struct sweep_cell *cells, size_t n, long jobs,
                  int progress, int *is_root)
{
    int rank = 0, size = 1, rc;
    char why[PATH_MAX + 256];
    *is_root = 1;
    if (!mpi && open_link(why, sizeof why)) {
        cli_error("%s", why);
        return CLI_FAILURE;
    }
    if (mpi->init(&rank, &size)) {
        cli_error("MPI_Init failed");
        return CLI_FAILURE;
    }
    *is_root = rank == 0;
    struct alone a = {out, cells, n, 0};
    struct sweep_source worker = {ask, report, NULL},
                        alone = {alone_next, alone_done, &a};
    if (size == 1) /* no one to hand cells to: run them here */
        rc = sweep_run_cells(s, out, cells, jobs, &alone);
    else if (rank == 0)
        rc = serve(out, cells, n, size - 1, progress);
    else
        rc = sweep_run_cells(s, out, cells, jobs, &worker);
    /* Rank 0 aggregates only after every cell handed out was reported. */
    mpi->finalize();
    return rc;
}

#else

int sweep_mpi_launched(void)
{
    return 0;
}

int sweep_mpi_run(const struct sweep_spec *s, const char *out,
                  const struct sweep_cell *cells, size_t n, long jobs,
                  int progress, int *is_root)
{
    (void)s, (void)out, (void)cells, (void)n, (void)jobs, (void)progress;
    *is_root = 1;
    cli_error("this hetsim was built without MPI");
    return CLI_FAILURE;
}

#endif
