/* ipcperf paths -i A -i B ...: the captures of several hosts joined (joinrun.c). */
#ifndef IPCPERF_CLI_JOINRUN_H
#define IPCPERF_CLI_JOINRUN_H
#include "cmds.h"
#include "output.h"
#include "pathsout.h"

/* Run paths over o->inputs (two or more captures). @return the exit code. */
int paths_join_run(const struct paths_opts *o);

#endif
