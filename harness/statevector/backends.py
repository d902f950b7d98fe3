"""Every simulator the suites compare, kernels and adapters alike, ready to run behind one
small interface, so that a suite times exactly the same instructions on each of them.

``get(name, precision, fusion)`` is a :class:`Runner`: ``require`` (asv's skip where the
backend cannot run here), ``load`` (a numpy state into the backend's own state object),
``program`` (instructions into something it can run: a tool's gate or circuit object,
built outside the timed region as a user of that tool would), ``run`` (in place),
``sync`` (waits for asynchronous devices) and ``result`` (the amplitudes back). What a
backend is and runs comes from its declaration in :mod:`harness.registry`.

Every backend runs one precision, chosen when it is made: ``load`` rounds the amplitudes
to it, so that its result is compared with the reference run on the same rounded
amplitudes.
"""

from harness import registry
from harness.errors import Unavailable
from kernels.statevector.settings import fusion as as_fusion
from kernels.statevector.settings import precision as as_precision


class Runner:
    """Backend ``backend`` (its declaration) in one precision at one fusion setting. The
    declaration's runner is made by :meth:`require`, which says first whether the backend
    can run here (:class:`Unavailable` otherwise)."""

    def __init__(self, backend, precision, fusion):
        self.backend, self.name = backend, backend.name
        self.precision, self.fusion = precision, fusion
        self.dtype = precision.dtype
        self._runner = None

    def require(self):
        if self._runner is not None:
            return
        ok, reason = self.backend.available()
        if not ok:
            raise Unavailable(f"{self.name}: {reason}")
        try:
            self._runner = self.backend.make(self.precision, self.fusion)
        except ValueError as exc:  # a precision or fusion setting it does not run
            raise Unavailable(str(exc)) from None

    @property
    def runner(self):
        self.require()
        return self._runner

    @property
    def info(self):
        """What the last program did (the fused backend: fused gates, passes), or {}."""
        return self._runner.info if self._runner is not None else {}

    def load(self, vec):
        return self.runner.load(vec)

    def program(self, instructions, n):
        return self.runner.program(instructions, n)

    def run(self, state, program):
        self._runner.run(state, program)

    def sync(self):
        self._runner.sync()

    def result(self, state):
        return self.runner.result(state)

    def set_threads(self, n_threads):
        """Give a backend with its own thread control the count, one thread included (some
        keep a count of their own past the environment's); numba's kernels follow
        harness.threads.set_threads. NotImplementedError for one without a thread
        control asked for more than one thread."""
        if self.backend.threads == "own":
            self.runner.set_threads(n_threads)
        elif self.backend.threads == "serial" and n_threads != 1:
            raise NotImplementedError(f"{self.name} runs on one thread (no thread control)")


def get(name, precision="complex128", fusion=None):
    """The backend ``name`` (see :func:`harness.registry.simulator`) in ``precision``
    (a name or a Precision) at ``fusion`` (a Fusion, or what ``settings.fusion`` parses;
    None: its default); ValueError for an unknown name, precision or setting. A
    precision or setting the backend does not run is refused by ``require``."""
    return Runner(registry.simulator(name), as_precision(precision), as_fusion(fusion))


def names(precision=None):
    """Every backend name in registry order (installed or not); with ``precision``, those
    that run it."""
    return registry.names(precision)


def canonical(name):
    """The backend name for any name :func:`get` takes, or None for an unknown one."""
    try:
        return registry.simulator(name).name
    except ValueError:
        return None
