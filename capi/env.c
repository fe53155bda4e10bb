/*
 * The C scheduler's settings, set by capi/env.go (configureRun) from
 * EBSP_STACK_KB and EBSP_TIMEOUT before each run starts its cores: the
 * environment is read in one place, package env.
 */
#include "shim.h"

size_t ebsp_stack_bytes;
double ebsp_watchdog_seconds;
