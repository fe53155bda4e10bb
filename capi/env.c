/*
 * The C scheduler's settings, set by capi/env.go (configureRun) from
 * EBSP_STACK_KB, EBSP_TIMEOUT, EBSP_SCHED and EBSP_WORKERS before each run
 * starts its cores: the environment is read in one place, package env.
 */
#include "shim.h"

size_t ebsp_stack_bytes;
double ebsp_watchdog_seconds;
int ebsp_sched_coro = 1;
int ebsp_workers;
int ebsp_cpu_sharers = 1;
int ebsp_rest = REST_AUTO;
