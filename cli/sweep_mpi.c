/* sweep_mpi.c -- `mpirun -np N hetsim sweep SPEC`: rank 0 hands out one
 * cell at a time to whichever rank asks, since cells differ in cost (a
 * fixed split would leave ranks idle behind the slowest share); the others
 * run what they are given and ask again. Built when CMake finds MPI
 * (HETSIM_HAVE_MPI); a plain `hetsim sweep` never initialises MPI, so the
 * same binary works without mpirun. */
#include <stdlib.h>

#include "cli.h"
#include "sweep_internal.h"

#if HETSIM_HAVE_MPI
#include <time.h>

#include <mpi.h>

enum { TAG_ASK = 1, TAG_CELL = 2 };

int sweep_mpi_launched(void)
{
    /* Set by OpenMPI's mpirun (and by PMI launchers) in every rank. */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_SIZE");
}

/* Waits for the next request without spinning a core: the workers need
 * the CPUs more than rank 0 needs a fast answer. */
static void receive_request(long long msg[2], int *source)
{
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    MPI_Irecv(msg, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD,
              &req);
    for (;;) {
        MPI_Test(&req, &flag, &st);
        if (flag)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    *source = st.MPI_SOURCE;
}

/* Rank 0: answers each request with the next cell to run, or -1 when none
 * is left, until every worker has been told to stop. */
static int serve(const char *out, const struct sweep_cell *cells, size_t n,
                 int workers, int progress)
{
    size_t next = 0;
    struct sweep_progress pr = {.total = n, .start = cli_clock(),
                                .show = progress};
    while (next < n && sweep_cell_done(out, &cells[next])) {
        next++;
        pr.done = pr.skipped = next;
    }
    while (workers > 0) {
        long long msg[2];
        int source;
        receive_request(msg, &source);
        if (msg[0] >= 0)
            sweep_progress_step(&pr, !msg[1]);
        while (next < n && sweep_cell_done(out, &cells[next])) {
            next++;
            pr.done++;
            pr.skipped++;
        }
        long long cell = next < n ? (long long)next++ : -1;
        workers -= cell < 0;
        MPI_Send(&cell, 1, MPI_LONG_LONG, source, TAG_CELL, MPI_COMM_WORLD);
    }
    sweep_progress_end(&pr);
    if (pr.failed)
        cli_error("%zu of %zu cells failed; run the same command again to "
                  "retry them", pr.failed, n);
    return pr.failed ? CLI_FAILURE : CLI_OK;
}

/* A worker: asks for a cell (saying how the last one went), runs it. */
static int work(const struct sweep_spec *s, const char *out,
                const struct sweep_cell *cells)
{
    long long msg[2] = {-1, 1}, cell;
    int rc = CLI_OK;
    for (;;) {
        MPI_Send(msg, 2, MPI_LONG_LONG, 0, TAG_ASK, MPI_COMM_WORLD);
        MPI_Recv(&cell, 1, MPI_LONG_LONG, 0, TAG_CELL, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (cell < 0)
            return rc;
        int ok = sweep_cell_run(s, out, &cells[cell]) == CLI_OK;
        if (!ok)
            rc = CLI_FAILURE;
        msg[0] = cell;
        msg[1] = ok;
    }
}

int sweep_mpi_run(const struct sweep_spec *s, const char *out,
                  const struct sweep_cell *cells, size_t n, int progress,
                  int *is_root)
{
    int rank = 0, size = 1, rc = CLI_OK;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        cli_error("MPI_Init failed");
        return CLI_FAILURE;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *is_root = rank == 0;
    if (size == 1) {
        /* No one to hand cells to: run them here, in order. */
        for (size_t k = 0; k < n; k++)
            if (!sweep_cell_done(out, &cells[k]) &&
                sweep_cell_run(s, out, &cells[k]) != CLI_OK)
                rc = CLI_FAILURE;
    } else if (rank == 0)
        rc = serve(out, cells, n, size - 1, progress);
    else
        rc = work(s, out, cells);
    /* Rank 0 aggregates only after every worker has finished its last
     * cell, which it knows because each asked once more. */
    MPI_Finalize();
    return rc;
}

#else

int sweep_mpi_launched(void) { return 0; }

int sweep_mpi_run(const struct sweep_spec *s, const char *out,
                  const struct sweep_cell *cells, size_t n, int progress,
                  int *is_root)
{
    (void)s, (void)out, (void)cells, (void)n, (void)progress;
    *is_root = 1;
    cli_error("this hetsim was built without MPI");
    return CLI_FAILURE;
}

#endif
