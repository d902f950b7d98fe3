"""Every simulator the suites compare, kernels and adapters alike, behind one small
interface, so that a suite times exactly the same instructions on each of them.

A backend turns a numpy state into its own state object (``load``), turns instructions
into something it can run (``program``: a tool's gate or circuit object, built outside
the timed region as a user of that tool would), runs it in place (``run``), waits for
asynchronous devices (``sync``) and hands the amplitudes back (``result``).

Every backend runs one precision, chosen when it is made (``get(name, precision)``):
``load`` rounds the amplitudes to it, so that its result is compared with the reference
run on the same rounded amplitudes.
"""

import numpy as np

from harness.errors import Unavailable
from kernels.statevector import KERNELS, MODULES, states
from kernels.statevector.prepared import prepare

#: precision name -> amplitude dtype (kernels.statevector.states.PRECISIONS)
PRECISIONS = states.PRECISIONS
#: The peer every other backend is drawn relative to (tables, figures, the gate suite's
#: sizes): the seeds' comparison.
BASELINE = "qulacs"


class KernelBackend:
    def __init__(self, name, precision="complex128"):
        self.name = name
        self.precision = precision
        self.dtype = np.dtype(PRECISIONS[precision])

    def require(self):
        pass

    def load(self, vec):
        # a copy on a cache line: a kernel's state is allocated by us (states.py), as a
        # peer's is by the peer
        return states.aligned(vec, self.dtype)

    def program(self, instructions, n):
        # Each gate checked and planned once, as a qulacs gate object is built once: the
        # timed region applies gates, the same work on every backend.
        gates = [prepare(self.name, n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None,
                         dtype=self.dtype) for i in instructions]
        if len(gates) == 1:
            return gates[0]

        def circuit(state):
            for gate in gates:
                gate(state)
        return circuit

    def run(self, state, program):
        program(state)

    def sync(self):
        pass

    def result(self, state):
        return np.asarray(state)


class FusedBackend(KernelBackend):
    """The fused backend (kernels.statevector.fused): a circuit fused into gates of at
    most ``fusion`` qubits (its default where None), run in cache-blocked stages. What the
    last program did (fused gates, stages, passes, ISA) is in ``info``."""

    def __init__(self, precision="complex128", fusion=None):
        super().__init__("fused", precision)
        from kernels.statevector import fused
        self.fused = fused
        self.fusion = fused.DEFAULT_MAX_QUBITS if fusion is None else fusion
        self.info = {}

    def require(self):
        if self.fusion not in self.fused.FUSION:
            raise Unavailable(f"fused takes fusion {list(self.fused.FUSION)}, "
                              f"not {self.fusion!r}")

    def program(self, instructions, n):
        program = self.fused.compile(instructions, n, self.dtype, max_qubits=self.fusion)
        self.info = program.info
        return program


class CudaBackend(KernelBackend):
    def __init__(self, precision="complex128"):
        super().__init__("cuda", precision)
        from kernels.statevector import cuda
        self.cuda = cuda

    def require(self):
        ok, reason = self.cuda.available()
        if not ok:
            raise Unavailable(f"cuda: {reason}")

    def load(self, vec):
        import cupy
        return cupy.asarray(vec, dtype=self.dtype)

    def sync(self):
        self.cuda.sync()

    def result(self, state):
        return state.get()


def adapter_precisions(module):
    """The precisions a simulator adapter runs, its default first (``PRECISIONS``, else
    the one ``PRECISION``, else complex128)."""
    return tuple(getattr(module, "PRECISIONS", (getattr(module, "PRECISION", "complex128"),)))


class AdapterBackend:
    """A simulator adapter module (``adapters.qulacs_sim``) or plugin as a backend."""

    def __init__(self, module, precision="complex128", fusion=None):
        self.module = module
        self.name = module.NAME
        self.precision = precision
        self.dtype = np.dtype(PRECISIONS[precision])
        self.fusion = fusion  # None: the tool's own default
        self.last_program = None

    def require(self):
        if not self.module.AVAILABLE:
            raise Unavailable(f"{self.name}: {self.module.REASON}")
        offered = adapter_precisions(self.module)
        if self.precision not in offered:
            raise Unavailable(f"{self.name} runs {', '.join(offered)}, not {self.precision}")
        declared = fusion_settings(self.name)
        if self.fusion is not None and self.fusion not in declared:
            raise Unavailable(f"{self.name} takes fusion {list(declared) or 'none'}, "
                              f"not {self.fusion!r}")

    def load(self, vec):
        state = self.module.from_numpy(vec.astype(self.dtype))
        # a tool whose state carries settings of the program (Aer's fusion) is made ready
        # for the last program here, outside the timed runs
        if self.last_program is not None and hasattr(self.module, "bind"):
            self.module.bind(state, self.last_program)
        return state

    def program(self, instructions, n):
        if self.fusion is not None:  # a setting is a circuit's, even of one gate
            program = self.module.circuit(instructions, n, fusion=self.fusion)
        elif len(instructions) == 1:
            program = self.module.gate(instructions[0])
        else:
            program = self.module.circuit(instructions, n)
        self.last_program = program
        return program

    def run(self, state, program):
        self.module.run(state, program)

    def sync(self):
        self.module.sync()

    def result(self, state):
        return self.module.to_numpy(state)


def simulator_adapters():
    """The simulator adapter modules (see ``adapters.modules``): a backend whose tool is
    missing skips with the module's REASON."""
    import adapters
    return adapters.modules("simulator")


#: Backends of ours that are not a kernel of the one-gate signature: whole circuits.
CIRCUIT_BACKENDS = ("fused",)


def names(precision=None):
    """Every backend name, in a fixed order: the kernels' progression, the fused
    backend, then the peers (installed or not); with ``precision``, those that declare
    it."""
    out = list(KERNELS) + list(CIRCUIT_BACKENDS) + peer_names()
    return out if precision is None else [n for n in out if precision in precisions(n)]


def precisions(name):
    """The precisions backend ``name`` declares, its default first."""
    if name in MODULES:
        return tuple(getattr(MODULES[name], "PRECISIONS", ("complex128",)))
    if name == "fused":
        from kernels.statevector import fused
        return fused.PRECISIONS
    return adapter_precisions(adapter_module(name))


def fusion_settings(name):
    """The fusion settings backend ``name`` declares (0 = off, k = at most k qubits per
    fused gate); () for one that does not fuse."""
    if name in MODULES:
        return ()
    if name == "fused":
        from kernels.statevector import fused
        return fused.FUSION
    return tuple(getattr(adapter_module(name), "FUSION", ()))


def unfused(name):
    """The setting that makes backend ``name`` run one pass per gate: 0 where it declares
    it, else its default (None: a kernel, the fused backend, or a tool that always fuses,
    like qsim, whose settings say so)."""
    try:
        return 0 if 0 in fusion_settings(name) else None
    except ValueError:
        return None


def fusing():
    """The backends that declare fusion settings, ours first."""
    out = []
    for name in names():
        try:
            if fusion_settings(name):
                out.append(name)
        except ValueError:
            continue
    return out


def peer_names():
    """The simulator adapters' and plugins' backend names, installed or not."""
    return [m.NAME for m in simulator_adapters()]


def adapter_module(name):
    """The simulator adapter module of backend ``name``: its NAME (``qulacs``) or its
    module's name in the registry (``qulacs_sim``, a plugin's entry-point name), the
    names ``adapters.load`` takes. ValueError for an unknown name."""
    import adapters
    for module in simulator_adapters():  # the discovered ones by NAME: most lookups
        if module.NAME == name:
            return module
    try:
        module = adapters.load(name)
    except Exception as exc:  # unknown, or a plugin that fails to load: not a backend
        raise ValueError(f"unknown backend {name!r} ({exc}); known: {names()}") from None
    if not any(module is m for m in simulator_adapters()):
        raise ValueError(f"{name!r} is not a simulator backend here; known: {names()}")
    return module


def canonical(name):
    """The backend name (a kernel's, or an adapter's NAME) for any name :func:`get`
    takes, or None for an unknown one."""
    if name in KERNELS or name in CIRCUIT_BACKENDS:
        return name
    try:
        return adapter_module(name).NAME
    except ValueError:
        return None


def get(name, precision="complex128", fusion=None):
    """The backend ``name`` (a kernel, ``fused``, an adapter's NAME or module name, a
    plugin) in ``precision``, with ``fusion`` (one of its declared settings; None: its
    default); ValueError for an unknown name or precision. A setting the backend does not
    declare is refused by its ``check``."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {sorted(PRECISIONS)}")
    if name == "fused":
        return FusedBackend(precision, fusion)
    if name == "cuda":
        return CudaBackend(precision)
    if name in KERNELS:
        if fusion not in (None, 0):
            raise ValueError(f"kernel {name!r} applies one gate per pass: no fusion setting")
        return KernelBackend(name, precision)
    return AdapterBackend(adapter_module(name), precision, fusion)


def set_threads(backend, n_threads):
    """Give a peer with its own thread control (``set_threads``) the count, one thread
    included (some keep a count of their own past the environment's); kernels follow
    numba's (harness.threads.set_threads). NotImplementedError for a peer without one
    asked for more than one thread."""
    module = getattr(backend, "module", None)
    if module is None:
        return
    if hasattr(module, "set_threads"):
        module.set_threads(n_threads)
    elif n_threads != 1:
        raise NotImplementedError(f"{backend.name} has no thread control")
