"""What every simulator adapter shares: the unavailable-tool error, the precision of a
state handed in, an instruction's controls in one form, the kernel signature (``apply``)
built from the adapter's own from_numpy / gate / run / to_numpy, and :class:`Program`,
what ``gate`` and ``circuit`` return.

The input contract (docs/architecture.md, "Adapters"): ``gate`` and ``circuit`` check
every instruction (:func:`checked`) before the tool sees it, and a program records the
states it fits, so that ``run`` refuses a state of another size with one comparison
(:func:`built`) before the tool runs anything. A tool's own exception
becomes a RuntimeError naming the tool (:func:`tool_failed`).
"""

import ctypes
import importlib
import importlib.metadata
import importlib.util
import sys

import numpy as np

from kernels.statevector import states
from kernels.statevector._validate import check_gate, check_instruction, matrix_for, state_qubits
from kernels.statevector.backend import NO_LIMIT, Backend, FusionFacts
from kernels.statevector.circuits import Instruction
from kernels.statevector.settings import PRECISIONS

from .._guard import tool_version

#: precision name -> amplitude dtype
DTYPES = {name: p.dtype for name, p in PRECISIONS.items()}


def require(name, available, reason):
    if not available:
        raise RuntimeError(f"the {name} adapter is unavailable: {reason}")


def basics(name, tool, available, reason):
    """``(_require, version, sync)`` of an adapter: the check every public function makes
    first, the tool's version, and ``sync`` for a tool that returns when its work is done
    (every CPU peer here; a lazy one finishes its work inside ``run``)."""

    def _require():
        require(name, available, reason)

    def version():
        _require()
        return tool_version(tool)

    def sync():
        """Nothing to wait for: the tool's calls return when the work is done."""

    return _require, version, sync


def mpi_build(name, module, package, what, missing):
    """``(AVAILABLE, REASON, load, version)`` of the adapter ``name`` of a tool's MPI build,
    the module ``module`` of the distribution ``package`` (``what`` it is, in a few
    words; ``missing``: how it is built, for the reason where it is not installed).

    It is found, not imported: importing an MPI build joins MPI for the rest of the
    process, so ``load(importer=importlib.import_module)`` imports it on first use, after
    mpi4py has started MPI (the build then runs inside the job's MPI), and a failure is a
    RuntimeError naming the adapter."""
    lacking = [m for m in (module, "mpi4py") if importlib.util.find_spec(m) is None]
    if not lacking:
        available, reason = True, f"{package} {importlib.metadata.version(package)} ({what})"
    elif "mpi4py" in lacking:
        available, reason = False, "mpi4py is not installed (make setup installs it with Open MPI)"
    else:
        available, reason = False, f"{module} is not installed: {missing}"
    loaded = {}

    def load(importer=importlib.import_module):
        require(name, available, reason)
        if module not in loaded:
            import mpi4py.MPI  # noqa: F401 - MPI first, started by mpi4py as the job expects
            try:
                loaded[module] = importer(module)
            except Exception as exc:  # a broken build: unavailable from here on, with why
                raise RuntimeError(f"the {name} adapter is unavailable: {module} failed to "
                                   f"import: {type(exc).__name__}: {exc}") from None
        return loaded[module]

    def version():
        require(name, available, reason)
        return importlib.metadata.version(package)

    return available, reason, load, version


def kernel_signature(module_name):
    """``apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None)`` for the adapter module
    ``module_name``, through its own from_numpy / gate / run / to_numpy."""

    def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
        return apply_through(sys.modules[module_name], state, matrix, locs, ctrl_locs,
                             ctrl_vals)
    return apply


class ThreadCount:
    """The thread count of a tool that takes it as an option of each object it creates:
    ``threads()`` and ``set_threads(n)`` for the adapter (one by default)."""

    def __init__(self, require):
        self.require, self.count = require, 1

    def threads(self):
        return self.count

    def set_threads(self, n):
        self.require()
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1 thread, got {n}")
        self.count = n


class OpenMPThreads:
    """The thread count of a tool whose kernels are plain ``#pragma omp parallel`` loops
    with no option of their own: ``threads()`` and ``set_threads(n)`` call the OpenMP
    runtime that the extension at ``library()`` (a path, looked up when first needed) links
    with, through its handle. omp_set_num_threads applies from the next parallel loop on,
    and OpenMP keeps it per calling thread: set it from the thread that runs the gates."""

    def __init__(self, require, library, reason):
        self.require, self.library, self.reason = require, library, reason

    def _omp(self, name):
        self.require()
        try:
            return getattr(ctypes.CDLL(self.library()), name)
        except (OSError, AttributeError):
            raise RuntimeError(f"{self.reason}: no OpenMP runtime to set threads with") \
                from None

    def threads(self):
        return int(self._omp("omp_get_max_threads")())

    def set_threads(self, n):
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1 thread, got {n}")
        self._omp("omp_set_num_threads")(n)


def precision_of(vec, name, precisions):
    """The precision name of ``vec``'s dtype; NotImplementedError naming the dtype when the
    tool does not run it, ValueError when ``vec`` is not a state."""
    vec = np.asarray(vec)
    state_qubits(vec)
    for precision in precisions:
        if vec.dtype == DTYPES[precision]:
            return precision
    raise NotImplementedError(f"{name} runs {', '.join(precisions)} states, got {vec.dtype}")


def parts(instruction):
    """(name, locs, ctrl_locs, ctrl_vals, params) with plain ints and every control valued."""
    locs = tuple(int(q) for q in instruction.locs)
    ctrls = tuple(int(q) for q in instruction.ctrl_locs)
    vals = tuple(int(v) for v in instruction.ctrl_vals or ()) or (1,) * len(ctrls)
    return instruction.name, locs, ctrls, vals, tuple(instruction.params)


def checked(instruction, n=None):
    """``instruction`` checked (for states of n qubits, or, with n=None, on its own: see
    check_instruction) and normalised for a tool: qubits as int tuples, every control
    valued, the matrix complex128 (integer, real and object matrices of numbers
    converted), the angles floats. ValueError naming the bad argument."""
    g = check_instruction(instruction, n)
    params = getattr(instruction, "params", None)
    try:
        params = () if params is None else tuple(float(p) for p in params)
    except (TypeError, ValueError):
        raise ValueError(f"params must be real numbers, got {params!r}") from None
    name = getattr(instruction, "name", "dense")
    return Instruction(name=name if isinstance(name, str) else "dense",
                       matrix=np.asarray(matrix_for(g.matrix, np.complex128),
                                         dtype=np.complex128),
                       locs=g.locs, ctrl_locs=g.ctrl_locs, ctrl_vals=g.ctrl_vals,
                       params=params)


def circuit_qubits(n):
    """``n``, a circuit's number of qubits, as an int; ValueError naming it otherwise."""
    try:
        ok = not isinstance(n, bool) and int(n) == n and n >= 1
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    return int(n)


def fusion_of(name, declared, fusion):
    """``fusion`` checked against the settings a tool declares (``FUSION``): None (the
    tool's default) or one of them; ValueError naming the argument otherwise."""
    if fusion is None or (not isinstance(fusion, bool) and fusion in declared):
        return fusion
    raise ValueError(f"fusion must be None (the tool's default) or one of {list(declared)} "
                     f"for {name}, got {fusion!r}")


def tool_failed(name, exc):
    """The RuntimeError a user sees instead of the tool ``name``'s own exception."""
    return RuntimeError(f"{name} failed: {type(exc).__name__}: {exc}")


def not_a_state(name, state):
    return ValueError(f"state must be a {name} state made by from_numpy, got "
                      f"{type(state).__name__}")


def apply_through(module, state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    """The kernel signature on ``module``: check, copy into the tool, run, copy back."""
    require(module.NAME, module.AVAILABLE, module.REASON)
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    if not isinstance(state, np.ndarray):
        raise NotImplementedError(f"{module.NAME} runs numpy states, got {type(state).__name__}")
    native = module.from_numpy(state)  # NotImplementedError for a dtype it does not run
    inst = Instruction("dense", np.asarray(g.matrix, dtype=np.complex128), g.locs, g.ctrl_locs,
                       g.ctrl_vals)
    module.run(native, module.gate(inst))
    module.sync()
    state[:] = module.to_numpy(native)
    return state


def programs(module_name, require, build, *, per_size=False, fusion=(), fused=None,
             gate_build=None):
    """``(gate, circuit, apply)`` of the simulator adapter ``module_name``: what every
    adapter's module interface has, made from the tool's own
    ``build(instructions, n, *key)`` (n None for one gate; ``key`` what a per-size program
    also depends on, :class:`Program`). A tool that fuses declares its settings
    ``fusion`` (its ``FUSION``) and ``fused(k) -> build`` for a setting k (0 included);
    its circuits take ``fusion=None`` (the tool's default: ``build``). A gate is built by
    ``gate_build`` where the tool builds one gate otherwise (default ``build``). Each
    checks that the tool is there (``require()``) and every instruction before the tool
    sees it."""
    def name():  # the module's NAME, once it is imported (a program is made after that)
        return sys.modules[module_name].NAME

    def gate(instruction):
        """The tool's program of one instruction, checked first (any large enough
        state)."""
        require()
        return Program.gate(name(), gate_build or build, instruction, per_size=per_size)

    def circuit(instructions, n, fusion=None):
        """The tool's program of a circuit on ``n`` qubits, every instruction checked
        against n first; ``fusion`` one of its declared settings (None: its default)."""
        require()
        k = fusion_of(name(), settings, fusion)
        return Program.circuit(name(), build if k is None else fused(k), instructions, n,
                               per_size=per_size)

    def unfused_circuit(instructions, n):
        """The tool's program of a circuit on ``n`` qubits, every instruction checked
        against n first."""
        require()
        return Program.circuit(name(), build, instructions, n, per_size=per_size)

    settings = tuple(fusion)
    for f in (gate, circuit, unfused_circuit):  # help() and pickle find them in the adapter
        f.__module__ = module_name
    unfused_circuit.__name__ = unfused_circuit.__qualname__ = "circuit"
    return gate, (circuit if settings else unfused_circuit), kernel_signature(module_name)


#: the most qubits a gate's program accepts (any state: an int, compared fast)
_ANY = 1 << 62
#: Program.native of a program built per state size
_PER_SIZE = object()


class Program:
    """What an adapter's ``gate`` and ``circuit`` return: the checked instructions, the
    sizes of state they fit (a gate: any state with at least ``min_qubits``, the fewest
    its qubits need; a circuit: exactly the n it was built for), and the tool's own
    program made from them by ``build``.

    ``per_size=False``: ``build(instructions, n)`` once, now (n None for a gate), as the
    tool's users build their gate and circuit objects. ``per_size=True``: for a tool whose
    operations depend on the state they meet (big-endian tools renumber qubits by the
    state's size; some need the matrices in the state's dtype), ``build(instructions, n,
    *key)`` once per key, on first use, which is the validation run that precedes any
    timing. A tool's failure while building is a RuntimeError naming it.

    ``get(n, *key)`` is the tool's program for a state of n qubits (what tests inspect);
    ``run`` calls :func:`built`, which also checks that the program is the adapter's."""

    __slots__ = ("owner", "instructions", "n", "min_qubits", "max_qubits", "build",
                 "built", "native", "last")

    def __init__(self, owner, build, instructions, n=None, per_size=False):
        self.owner, self.build, self.instructions = owner, build, list(instructions)
        self.n = n
        if n is None:
            self.min_qubits = max((max((*i.locs, *i.ctrl_locs)) + 1
                                   for i in self.instructions), default=1)
            self.max_qubits = _ANY
        else:
            self.min_qubits = self.max_qubits = n
        self.built, self.last = {}, (None, None, None)  # last: (n, key, what get returned)
        self.native = _PER_SIZE if per_size else self._build(n)

    @classmethod
    def gate(cls, owner, build, instruction, per_size=False):
        """The program of one instruction, checked on its own (any large enough state)."""
        return cls(owner, build, [checked(instruction)], None, per_size)

    @classmethod
    def circuit(cls, owner, build, instructions, n, per_size=False):
        """The program of a circuit on n qubits, every instruction checked against n."""
        n = circuit_qubits(n)
        try:
            instructions = list(instructions)
        except TypeError:
            raise ValueError(f"instructions must be a sequence of Instructions, got "
                             f"{type(instructions).__name__}") from None
        return cls(owner, build, [checked(i, n) for i in instructions], n, per_size)

    def _build(self, n, *key):
        try:
            return self.build(self.instructions, n, *key)
        except NotImplementedError:
            raise
        except Exception as exc:
            raise tool_failed(self.owner, exc) from exc

    def mismatch(self, n):
        """The ValueError for a state of n qubits that the program does not fit."""
        if self.n is not None:
            return ValueError(f"state has {n} qubits; the circuit was built for {self.n} "
                              "(circuit(instructions, n))")
        return ValueError(f"state has {n} qubits; the gate acts on qubit "
                          f"{self.min_qubits - 1}, so it needs at least {self.min_qubits}")

    def get(self, n, *key):
        """The tool's program for a state of n qubits (and ``key``); ValueError naming
        the state when it does not fit."""
        if not self.min_qubits <= n <= self.max_qubits:
            raise self.mismatch(n)
        if self.native is not _PER_SIZE:
            return self.native
        built = self.built.get((n, *key))
        if built is None:
            built = self.built[(n, *key)] = self._build(n, *key)
        self.last = (n, key, built)
        return built


def built(program, owner, n, *key):
    """The tool ``owner``'s program in ``program`` for a state of n qubits: what ``run``
    calls first, a type check and a size comparison (the common case inline: ``run`` is
    the timed call). ValueError naming ``program`` when it is not the adapter's, or
    ``state`` when it does not fit."""
    if type(program) is Program and program.owner == owner:
        native = program.native
        if native is _PER_SIZE:
            last_n, last_key, native = program.last
            if last_n == n and last_key == key:  # the state size of the previous run
                return native
        elif program.min_qubits <= n <= program.max_qubits:
            return native
        return program.get(n, *key)
    raise ValueError(f"program must be made by the {owner} adapter's gate() or circuit(), "
                     f"got {type(program).__name__}")


# --- the adapter as a backend (kernels.statevector.backend) ---------------------------

class AdapterRunner:
    """A simulator adapter module run as a backend in one precision, with one fusion
    setting (its default, or one it declares in ``FUSION``)."""

    def __init__(self, module, precision, fusion):
        self.module, self.precision, self.dtype = module, precision, precision.dtype
        self.fusion = fusion.k if fusion.k in getattr(module, "FUSION", ()) else None
        self.last_program, self.info = None, {}
        if hasattr(module, "set_threads"):
            self.set_threads = module.set_threads

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

    def zero(self, n):
        """|0...0> on n qubits, the start of a run no full vector was handed to."""
        return self.load(states.zero_state(n))

    def distance(self, state, expected, comm):
        """How far ``state`` is from ``expected`` (this rank's slice of the state it should
        hold), the same on every rank of ``comm``: an adapter that runs as MPI ranks
        measures it itself (its ``distance``, at least the largest amplitude error); any
        other compares its whole state."""
        if getattr(self.module, "MPI", False):
            return self.module.distance(state, expected, comm)
        return float(np.max(np.abs(self.result(state) - expected)))

    def norm(self, state, comm):
        """The squared norm of ``state``, the same on every rank of ``comm``."""
        if getattr(self.module, "MPI", False):
            return self.module.norm(state)
        got = self.result(state)
        return float(np.vdot(got, got).real)


#: The facts an adapter module may declare besides the interface (NAME, PRECISIONS, FUSION,
#: SETTINGS, set_threads), each with its value where it says nothing.
FACTS = {"FUSION_DEFAULT": "not declared", "PACKAGE": None, "DEVICE": "cpu",
         "MAX_QUBITS": NO_LIMIT, "MAX_QUBITS_REASON": "", "BASELINE": None, "MPI": False,
         "FLUSHES_SUBNORMALS": "unknown"}


def declaration(module, role="peer"):
    """The :class:`Backend` of the adapter or plugin ``module``, from its module interface:
    ``NAME``, ``PRECISIONS`` (default first), ``FUSION`` (its settings), ``SETTINGS``
    (how it is driven; ``SETTINGS["fusion"]`` how it fuses, in words), ``set_threads``
    (a thread control of its own), and the facts of :data:`FACTS`: ``FUSION_DEFAULT``
    (the fusion it runs at its default: 0 off, k, or None for a rule of the tool's own),
    ``PACKAGE`` (the distribution whose version a result names; default NAME), ``DEVICE``,
    ``MAX_QUBITS`` and ``MAX_QUBITS_REASON``, ``BASELINE`` ("peer": the one others are
    drawn relative to), ``MPI`` (True: it runs as the ranks of an MPI job, with
    ``distance(state, expected_slice, comm)`` and ``norm(state)``),
    ``FLUSHES_SUBNORMALS`` (yes, no or unknown: whether, as driven, it sets subnormal
    floats to zero; kernels.statevector.subnormals). A plugin without
    ``FUSION_DEFAULT`` loads as before; its fusion default reads "not declared" until it
    adds one."""
    facts = {name: getattr(module, name, default) for name, default in FACTS.items()}
    settings = dict(getattr(module, "SETTINGS", {}) or {})
    rule = str(settings.pop("fusion", "not declared"))
    settings.pop("threads", None)  # the thread count is a setting of its own
    default = facts["FUSION_DEFAULT"]
    declared = default != "not declared"
    return Backend(
        name=module.NAME, role=role,
        precisions=tuple(getattr(module, "PRECISIONS", (getattr(module, "PRECISION",
                                                                 "complex128"),))),
        runner=lambda precision, fusion: AdapterRunner(module, precision, fusion),
        fusion=FusionFacts(tuple(getattr(module, "FUSION", ())),
                           default if declared else None, rule, declared),
        device=facts["DEVICE"], threads="own" if hasattr(module, "set_threads") else "serial",
        max_qubits=facts["MAX_QUBITS"], max_qubits_reason=facts["MAX_QUBITS_REASON"],
        package=facts["PACKAGE"] or module.NAME, baseline=facts["BASELINE"],
        mpi=bool(facts["MPI"]), flushes_subnormals=str(facts["FLUSHES_SUBNORMALS"]),
        describe={k: str(v) for k, v in settings.items()}, module=module,
        available=lambda: (bool(module.AVAILABLE), str(module.REASON)))
