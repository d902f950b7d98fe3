"""The one registry of backends, each the one object that declares its facts: simulator
backends (our kernels, the fused backend, every simulator adapter and plugin:
:class:`kernels.statevector.backend.Backend`) and AD backends (the hand-written
derivative, our engines, every AD adapter and plugin: :class:`kernels.ad.backend.ADBackend`).
Everything the harness knows about a backend it reads here: which backends exist and in
what order, what each runs, which is a table's baseline, which one validates the others,
what a gradient costs. No code of the harness names a backend.
"""

import adapters
from kernels.ad import ENGINES
from kernels.ad.problems import MANUAL
from kernels.statevector import MODULES, distributed, fused
from kernels.statevector.backend import ROLES
from kernels.statevector.settings import precision as as_precision


def own():
    """``{name: Backend}`` of our own simulator backends: the kernels in the seeds'
    progression, then the fused backend, then the distributed one (no adapter is imported
    to list them)."""
    return {b.name: b for b in [*(m.BACKEND for m in MODULES.values()), fused.BACKEND,
                                distributed.BACKEND]}


def simulators():
    """``{name: Backend}`` of every simulator backend, installed or not, in the order
    tables list them: ours (:func:`own`), then the adapters and plugins in registry
    order."""
    return {**own(), **{b.name: b for b in adapters.simulator_declarations()}}


def simulator(name):
    """The backend ``name``: a backend's name (``qulacs``), or an adapter's module name in
    the adapters' registry (``qulacs_sim``, a plugin's entry-point name). ValueError
    naming the known backends otherwise."""
    mine = own()  # ours are known without importing a single tool's adapter
    if name in mine:
        return mine[name]
    found = simulators()
    if name in found:
        return found[name]
    try:
        module = adapters.load(name)
    except Exception:  # unknown, or a plugin that fails to load: not a backend
        module = None
    for backend in found.values():
        if module is not None and backend.module is module:
            return backend
    raise ValueError(f"unknown backend {name!r}; known: {', '.join(found)}")


def names(precision=None, *, roles=ROLES, one_gate=None, mpi=None):
    """Backend names in registry order; only those running ``precision`` (a name or a
    Precision), of ``roles``, with (True) or without (False) the one-gate kernel
    signature, and running as MPI ranks (True) or in one process (False), where given."""
    p = None if precision is None else as_precision(precision)
    return [b.name for b in simulators().values()
            if b.role in roles and (p is None or p in b.precisions)
            and (one_gate is None or b.one_gate == one_gate)
            and (mpi is None or b.mpi == mpi)]


def baseline(kind):
    """The backend that declares itself the ``kind`` baseline ("peer": the one others are
    drawn relative to; "unfused": our one-pass-per-gate kernel), or None."""
    return next((b for b in simulators().values() if b.baseline == kind), None)


def by_role(*roles):
    """The names of the backends of ``roles``, in registry order."""
    return [b.name for b in simulators().values() if b.role in roles]


def references():
    """The backends whose results others are validated against, widest limit last."""
    refs = [b for b in own().values() if b.role == "reference"]
    return sorted(refs, key=lambda b: b.circuit_max_qubits)


def fusing():
    """The backends that declare fusion settings, ours first; one process each (a
    distributed backend's fusion is compared under MPI)."""
    return [b.name for b in simulators().values() if b.fusion.settings and not b.mpi]


def single_process(declared=None):
    """The backends of ``declared`` (default: every one) that run in one process: the
    comparisons on one machine leave out those that run as MPI ranks."""
    found = simulators().values() if declared is None else declared
    return [b for b in found if not b.mpi]


def distributed_backends():
    """The backends that run as the ranks of an MPI job (``harness circuit --ranks``)."""
    return [b for b in simulators().values() if b.mpi]


def ad():
    """``{name: ADBackend}`` of every AD backend, installed or not: the hand-written
    derivative, our engines, then the AD adapters and plugins in registry order."""
    own = [MANUAL, *(module.BACKEND for module in ENGINES.values())]
    return {b.name: b for b in [*own, *adapters.ad_declarations()]}


def ad_backend(name):
    """The AD backend ``name``; ValueError naming the known ones otherwise."""
    found = ad()
    if name not in found:
        raise ValueError(f"unknown AD backend {name!r}; known: {', '.join(found)}")
    return found[name]


def ad_baseline():
    """The AD backend every ratio is taken against (role "baseline")."""
    return next(b for b in ad().values() if b.role == "baseline")
