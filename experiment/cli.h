/* cli.h -- the name the files moved from cli/ include: experiment.h. New
 * code includes experiment.h. */
#ifndef HETSIM_EXPERIMENT_CLI_H
#define HETSIM_EXPERIMENT_CLI_H

#include "experiment.h"

#endif
