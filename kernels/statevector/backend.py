"""What a simulator backend declares about itself: one :class:`Backend` object per backend
(each kernel, the fused backend, cuda, every adapter and plugin), made where the backend is
written, so that every fact about it is stated once, by it. The harness only reads these
objects (``harness.registry``): no table, suite or report tests a backend's name.

A backend also knows how to run: :meth:`Backend.runner` returns an object with

    load(vec) -> state            # the backend's own state from a complex numpy vector
    program(instructions, n)      # built once, outside the timed region
    run(state, program)           # in place: the only call that is timed
    sync()                        # waits for an asynchronous device
    result(state) -> ndarray      # the amplitudes back, in our qubit order
    info                          # what the last program did (fused gates, passes), or {}

for one precision and one fusion setting (:mod:`kernels.statevector.settings`).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from . import subnormals
from .settings import DEFAULT_FUSION, Fusion, Precision, fusion, precision, precisions

#: What a backend is to the comparison, in the order tables list them:
#: - reference: an oracle results are validated against (it may run as a backend too);
#: - kernel: one of our one-gate kernels;
#: - fusing: our whole-circuit backend, which fuses gates;
#: - distributed: our backend over MPI ranks;
#: - peer: a built-in adapter of an external simulator;
#: - plugin: an adapter an installed distribution declares (entry point).
ROLES = ("reference", "kernel", "fusing", "distributed", "peer", "plugin")
#: The roles of our own code (as opposed to a tool measured through an adapter).
OWN_ROLES = ("reference", "kernel", "fusing", "distributed")

#: How a backend's thread count is set:
#: - serial: it runs on one thread whatever is asked;
#: - numba: it follows numba's thread count (``harness.threads.set_threads``);
#: - own: the adapter's ``set_threads(n)`` (the tool's own control);
#: - device: it runs on an accelerator; host threads do not apply.
THREADS = ("serial", "numba", "own", "device")

#: What a backend stands for in a table, where it is the one others are drawn against:
#: - peer: the peer every other backend is drawn relative to (the seeds' comparison);
#: - unfused: our kernel that makes one pass per gate, the fusion tables' unfused row and
#:   the thread tables' one-thread row.
BASELINES = ("peer", "unfused")

#: The most qubits any backend takes, where it declares no limit of its own.
NO_LIMIT = 64


@dataclass(frozen=True)
class FusionFacts:
    """What a backend declares about fusion: the ``settings`` it accepts (0 = off, k = at
    most k qubits per fused gate), its ``default`` (0, k, or None where the tool applies
    a rule of its own that fuses, such as qiskit-aer's size threshold), and ``rule``:
    how it fuses, in words, for the settings' description."""

    settings: tuple = ()
    default: int | None = 0
    rule: str = "off (one pass over the state per gate)"
    #: False for a plugin written before backends declared their fusion default: its
    #: default is then "not declared" in every table
    declared: bool = True

    def __post_init__(self):
        settings = tuple(fusion(k).k for k in self.settings)
        if any(k is None for k in settings) or len(set(settings)) != len(settings):
            raise ValueError(f"fusion settings must be distinct numbers, got {self.settings!r}")
        object.__setattr__(self, "settings", settings)
        if self.default is not None:
            object.__setattr__(self, "default", fusion(self.default).k)

    @property
    def fuses(self):
        """Whether the backend fuses at its default."""
        return self.default != 0


#: The facts of a backend that applies one gate per pass and has no fusion setting.
NO_FUSION = FusionFacts()


def _always():
    return True, ""


@dataclass(frozen=True)
class Backend:
    """The facts of one simulator backend, and how to run it.

    ``runner(precision, fusion)`` makes the object that runs it (see the module's
    docstring); ``available()`` says whether it can run here, ``(ok, reason)``.
    ``describe`` is how its settings are described in a result ("driven"): the API it is
    driven through, its gates, anything a reader needs to reproduce the number;
    ``package`` the distribution whose version a result and the report name.
    ``max_qubits`` is the largest state it takes at all (``max_qubits_reason`` why), and
    ``circuit_max_qubits`` the largest it runs whole circuits on in reasonable time.
    ``one_gate``: it has the kernels' one-gate signature (a gate suite times it).
    ``mpi``: it runs as the ranks of an MPI job, a state split over them (``harness
    circuit --ranks``, the distributed suite); the single-process comparisons leave it out.
    ``mpi_environment``: variables its ranks need in their environment, which the
    launcher sets wherever the user has not.
    ``tuned``: it reads this machine's tuning (kernels.statevector.tuning), so its
    results' settings say which.
    ``flushes_subnormals``: whether it sets subnormal floats to zero rather than compute
    with them (kernels.statevector.subnormals: yes, no, unknown), as it is driven here.
    ``module``: the module that declared it (an adapter's: ``set_threads``, ``bind``).
    """

    name: str
    role: str
    precisions: tuple
    runner: Callable
    fusion: FusionFacts = NO_FUSION
    device: str = "cpu"
    threads: str = "serial"
    max_qubits: int = NO_LIMIT
    max_qubits_reason: str = ""
    circuit_max_qubits: int | None = None
    package: str = "qsim-ad-bench"
    describe: Mapping = field(default_factory=dict)
    one_gate: bool = True
    mpi: bool = False
    mpi_environment: Mapping = field(default_factory=dict)
    baseline: str | None = None
    available: Callable = _always
    tuned: bool = False
    flushes_subnormals: str = "unknown"
    module: object = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a backend's name must be a non-empty string, got {self.name!r}")
        for what, value, allowed in (("role", self.role, ROLES),
                                     ("threads", self.threads, THREADS),
                                     ("baseline", self.baseline, (None, *BASELINES)),
                                     ("flushes_subnormals", self.flushes_subnormals,
                                      subnormals.FLUSHES)):
            if value not in allowed:
                raise ValueError(f"backend {self.name}: {what} must be one of {allowed}, "
                                 f"got {value!r}")
        object.__setattr__(self, "precisions", precisions(self.precisions))
        object.__setattr__(self, "describe", MappingProxyType(dict(self.describe)))
        env = dict(self.mpi_environment)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise ValueError(f"backend {self.name}: mpi_environment must map names to "
                             f"strings, got {self.mpi_environment!r}")
        object.__setattr__(self, "mpi_environment", MappingProxyType(env))
        if self.circuit_max_qubits is None:
            object.__setattr__(self, "circuit_max_qubits", self.max_qubits)

    @property
    def own(self):
        """Whether this is our code rather than a tool behind an adapter."""
        return self.role in OWN_ROLES

    @property
    def default_precision(self):
        return self.precisions[0]

    def runs(self, value):
        """Whether it runs precision ``value`` (a name or a Precision)."""
        return precision(value) in self.precisions

    def resolve(self, setting=DEFAULT_FUSION):
        """The fusion setting it runs with when asked for ``setting``: its declared
        default for the default (None where that is a rule of the tool's own), else the
        setting itself."""
        setting = fusion(setting)
        return self.fusion.default if setting.is_default else setting.k

    def accepts(self, setting):
        """Whether ``setting`` (a Fusion or anything :func:`fusion` parses) is one it can
        run: its default, or one of its declared settings, or off for a backend that never
        fuses (that is how it runs)."""
        setting = fusion(setting)
        return (setting.is_default or setting.k in self.fusion.settings
                or (setting.k == 0 and not self.fusion.fuses))

    def unfused(self):
        """The setting that makes it run one pass per gate: off where it declares it, else
        its default (a backend that always fuses, such as qsim or our fused backend,
        declares no off: its rows say how it fused)."""
        return Fusion(0) if 0 in self.fusion.settings else DEFAULT_FUSION

    def fusion_label(self, setting=DEFAULT_FUSION):
        """The fusion a result made with ``setting`` ran with, in a table's words: off, up
        to k qubits, or "on (the tool's rule)"."""
        k = self.resolve(setting)
        if k is None:
            return "on (the tool's rule)" if self.fusion.declared else "not declared"
        return Fusion(k).label

    def make(self, precision_value, setting=DEFAULT_FUSION):
        """Its runner for ``precision_value`` and fusion ``setting``, both checked (a
        ValueError naming what it does not run)."""
        p = precision(precision_value)
        setting = fusion(setting)
        if p not in self.precisions:
            raise ValueError(f"{self.name} runs {', '.join(map(str, self.precisions))}, "
                             f"not {p}")
        if not self.accepts(setting):
            raise ValueError(f"{self.name} takes fusion {list(self.fusion.settings) or 'none'}"
                             f", not {setting}")
        return self.runner(p, setting)


__all__ = ["Backend", "FusionFacts", "NO_FUSION", "ROLES", "OWN_ROLES", "THREADS",
           "BASELINES", "NO_LIMIT", "Precision", "Fusion"]
