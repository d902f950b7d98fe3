"""One setup per parameter set and process, whatever asv's runner does.

asv_runner 0.3 re-runs a benchmark's ``setup`` before every timed call (asv#966: each
call sees freshly set-up state; the calls per sample fall to one). Our setups build and
validate: they run the reference and the backend, allocate the state, and set thread
pools. Repeated before each call, that work costs far more than the call, leaves the
timed call with cold caches, and leaves another OpenMP runtime's threads spinning beside
it. On 2 cores, that made a 20 us gate on 2 threads take 0.5-8 ms in one process and
20 us in the next. The objects a setup builds stay valid across calls (a gate or circuit
applied again to the same state, a gradient taken again), so a setup runs once and later
calls find them in place.
"""

import functools


def setup_once(setup):
    """Decorate a suite's ``setup(self, *params)``: run it once per parameter set in this
    process. A setup that raises (asv's skip, a failed validation) is run again next
    time, and raises again."""

    @functools.wraps(setup)
    def run_once(self, *params):
        if self.__dict__.get("_set_up_for") == params:  # params is a tuple, never None
            return
        # forgotten first: a setup that raises halfway leaves no stale claim behind
        self.__dict__.pop("_set_up_for", None)
        setup(self, *params)
        self._set_up_for = params

    return run_once

