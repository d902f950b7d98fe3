/* Callgrind's client requests as plain functions, so that the gate's probe (Python,
 * through ctypes) can collect instructions around the measured calls only. Outside
 * valgrind each request is a few no-op instructions. Built by harness/gate/counts.py
 * against the system's <valgrind/callgrind.h>. */
#include <valgrind/callgrind.h>

void qsim_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void qsim_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void qsim_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void qsim_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
int qsim_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
