/* experiment.h -- the experiment layer: what turns a trace and a cluster
 * into runs and their results (docs/architecture.md). The command line
 * (cli/) parses arguments, prints, and calls these.
 *
 * The declarations moved from cli/ with their code (exp_run.h: workload,
 * estimators, GPU sharing, results, charts, report, sweep and compare
 * runners) keep their cli_ names for now; new functions take exp_. */
#ifndef HETSIM_EXPERIMENT_H
#define HETSIM_EXPERIMENT_H

#include "exp_run.h"

#endif
