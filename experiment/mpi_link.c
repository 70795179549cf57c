/* mpi_link.c -- the module hetsim_mpi.so (mpi_link.h): the MPI calls of
 * the sweep, built only when CMake finds MPI. */
#include <time.h>

#include <mpi.h>

#include "mpi_link.h"

static int link_init(int *rank, int *size)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

/* Polls with a 1 ms sleep: the workers need the CPUs more than rank 0
 * needs a fast answer. */
static void link_receive_any(long long msg[2], int *tag, int *source)
{
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    MPI_Irecv(msg, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG,
              MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &flag, &st);
        if (flag)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    *tag = st.MPI_TAG;
    *source = st.MPI_SOURCE;
}

static void link_send(const long long *msg, int n, int dest, int tag)
{
    MPI_Send(msg, n, MPI_LONG_LONG, dest, tag, MPI_COMM_WORLD);
}

static void link_receive(long long *msg, int n, int source, int tag)
{
    MPI_Recv(msg, n, MPI_LONG_LONG, source, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

static void link_finalize(void)
{
    MPI_Finalize();
}

static const struct sweep_mpi_link table = {
    .abi = SWEEP_MPI_ABI,
    .size = sizeof table,
    .init = link_init,
    .receive_any = link_receive_any,
    .send = link_send,
    .receive = link_receive,
    .finalize = link_finalize,
};

__attribute__((visibility("default"))) const struct sweep_mpi_link *
sweep_mpi_link(void)
{
    return &table;
}
