/* mpi_link.h -- the MPI calls of `mpirun -np N hetsim sweep`, in a module
 * of their own (build/hetsim_mpi.so, beside the program, linking libmpi)
 * that sweep_mpi.c opens (dlopen) only under mpirun: OpenMPI's libraries
 * cost every other command about 4 ms of start-up (docs/performance.md,
 * "Start-up"). The module holds no hetsim code. */
#ifndef HETSIM_MPI_LINK_H
#define HETSIM_MPI_LINK_H

#include <stddef.h>

#define SWEEP_MPI_FILE "hetsim_mpi.so"
#define SWEEP_MPI_ENTRY "sweep_mpi_link"
#define SWEEP_MPI_ABI 1 /* bump on any change to the struct below */

/* Messages are arrays of long long in MPI_COMM_WORLD. */
struct sweep_mpi_link {
    int abi;     /* SWEEP_MPI_ABI */
    size_t size; /* sizeof(struct sweep_mpi_link) */
    /* MPI_Init, then this rank and the world's size; 0 or -1. */
    int (*init)(int *rank, int *size);
    /* The next message of 2 from anyone into MSG, its tag and source;
     * waits without spinning a core. */
    void (*receive_any)(long long msg[2], int *tag, int *source);
    void (*send)(const long long *msg, int n, int dest, int tag);
    void (*receive)(long long *msg, int n, int source, int tag);
    void (*finalize)(void);
};

/* The module's entry: its table. */
const struct sweep_mpi_link *sweep_mpi_link(void);

#endif
