/* policies_internal.h -- shared between the files of the policies module
 * only: every built-in policy's ops table, for the registry. */
#ifndef HETSIM_POLICIES_INTERNAL_H
#define HETSIM_POLICIES_INTERNAL_H

#include "policy.h"

extern const struct pol_ops pol_fifo;
extern const struct pol_ops pol_sjf;
extern const struct pol_ops pol_edf;
extern const struct pol_ops pol_srtf;
extern const struct pol_ops pol_las;
extern const struct pol_ops pol_tiresias;
extern const struct pol_ops pol_gittins;
extern const struct pol_ops pol_fair;
extern const struct pol_ops pol_min_exec_time;
extern const struct pol_ops pol_max_efficiency;
extern const struct pol_ops pol_gavel_maxmin;
extern const struct pol_ops pol_gavel_makespan;
extern const struct pol_ops pol_gavel_fifo;
extern const struct pol_ops pol_gs_fifo;
extern const struct pol_ops pol_gs_fifo_perf;
extern const struct pol_ops pol_gs_mmf;
extern const struct pol_ops pol_gs_mmf_perf;
extern const struct pol_ops pol_gs_mtd_perf;
extern const struct pol_ops pol_gs_ftf_perf;

/* 1 when PL, asked to place a one-GPU job whose class runs on one node of
 * type T while the only free GPU of the job's types is one of T, always
 * puts it on that GPU and changes nothing else: every rule but `random`,
 * without mem-aware placement or sharing (preemptive.c's swaps). */
int pol_placer_takes_lone_gpu(const struct pol_placer *pl);

#endif
