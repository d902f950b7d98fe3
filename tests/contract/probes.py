"""The input contract's probes (docs/architecture.md, "Conventions" and "Adapters and
plugins"), as one table run on every backend.

A probe is one kernel-signature call ``(state, matrix, locs, ctrl_locs, ctrl_vals)``, bad
or awkward in one respect, and what every backend must do with it, per path:

- ``apply``: the kernel signature (a kernel of ``KERNELS``, an adapter's ``apply``);
- ``prepare``: ``kernels.statevector.prepared.prepare`` for the probe's n, then the state;
- ``gate``: ``from_numpy(state)``, ``gate(instruction)``, ``run``, ``to_numpy``;
- ``circuit``: the same through ``circuit([instruction], n)``.

:data:`SIZE_PROBES` add what only programs have: a program built for more qubits than the
state has, and the other way round.

An expectation is ``refuse(word, ...)``: exactly ValueError (or the exception types
given), its message matching ``word``, and nothing changed; ``OK``: the right answer
(integer and real matrices are converted); ``OK_OR_REFUSED``: the right answer or a
NotImplementedError (a case the backend does not handle). Nothing else passes: another
exception type (a numba TypingError, a tool's own), a wrong or changed state, a crash.
"""

from typing import NamedTuple

import numpy as np

from kernels.statevector import gates
from kernels.statevector.settings import PRECISIONS
from kernels.statevector.states import random_state

#: qubits of the probes' good state
N = 3
DTYPES = {name: p.dtype for name, p in PRECISIONS.items()}


class Expect(NamedTuple):
    ok: bool                 # the right answer passes
    refusals: tuple = ()     # exception types that pass (exactly these types)
    word: str = ""           # a regex the refusal's message must match ("" any)


def refuse(word, *types):
    return Expect(False, types or (ValueError,), word)


OK = Expect(True)
OK_OR_REFUSED = Expect(True, (NotImplementedError,))
#: what from_numpy may do with a dtype its tool does not run
DTYPE_REFUSED = Expect(False, (NotImplementedError, ValueError), r"state|vec|complex|dtype")


# --- states: f(dtype, rng) -> the state argument ------------------------------------------

def good(dtype, rng, n=N):
    return random_state(n, rng).astype(dtype)


def two_d(dtype, rng):
    return good(dtype, rng, 4).reshape(4, 4)


def length_six(dtype, rng):
    vec = good(dtype, rng)[:6]
    return vec / np.linalg.norm(vec)


def length_one(dtype, rng):
    return np.ones(1, dtype=dtype)


def strided(dtype, rng):
    """Every other element of a longer array: a unit-norm state that is not contiguous."""
    base = np.zeros(2 << N, dtype=dtype)
    base[::2] = good(dtype, rng)
    return base[::2]


def read_only(dtype, rng):
    vec = good(dtype, rng)
    vec.flags.writeable = False
    return vec


def real(dtype, rng):
    vec = rng.standard_normal(1 << N)
    return vec / np.linalg.norm(vec)


def integer(dtype, rng):
    vec = np.zeros(1 << N, dtype=np.int64)
    vec[0] = 1
    return vec


def other_precision(dtype, rng):
    return good(DTYPES["complex64" if dtype == DTYPES["complex128"] else "complex128"], rng)


class Probe(NamedTuple):
    name: str
    matrix: object
    locs: tuple
    ctrl_locs: tuple = ()
    ctrl_vals: tuple | None = None
    state: object = good
    expect: Expect = OK
    paths: dict = {}    # path -> Expect, where it differs from ``expect``


def _unitary(k, seed):
    return gates.random_unitary(k, np.random.default_rng(seed))


X = gates.X
#: what a program path may say about a qubit the program's state lacks: its locs (checked
#: against circuit's n) or the state (a gate meets its state only in run)
_TOO_HIGH = {"gate": refuse(r"state|locs"), "circuit": refuse("locs")}
_CTRL_TOO_HIGH = {"gate": refuse(r"state|ctrl_locs"), "circuit": refuse("ctrl_locs")}
#: the program paths copy the state in with from_numpy: a strided or read-only array is
#: a fine source; the kernel signature writes into it, so it is refused there
_COPIED = {"gate": OK, "circuit": OK}
_FROM_NUMPY = {"gate": DTYPE_REFUSED, "circuit": DTYPE_REFUSED}

PROBES = [
    # the gate's qubits
    Probe("qubit out of range", X, (N,), expect=refuse("locs"), paths=_TOO_HIGH),
    Probe("qubit far out of range", X, (7,), expect=refuse("locs"), paths=_TOO_HIGH),
    Probe("dense gate out of range", _unitary(2, 0), (0, N), expect=refuse("locs"),
          paths=_TOO_HIGH),
    Probe("negative qubit", X, (-1,), expect=refuse("locs")),
    Probe("fractional qubit", X, (0.5,), expect=refuse("locs")),
    Probe("no target qubit", np.ones((1, 1)), (), expect=refuse("locs")),
    Probe("repeated locs", gates.CNOT, (1, 1), expect=refuse("locs")),
    Probe("control out of range", X, (0,), (5,), expect=refuse("ctrl_locs"),
          paths=_CTRL_TOO_HIGH),
    Probe("negative control", X, (0,), (-2,), expect=refuse("ctrl_locs")),
    Probe("control repeated", X, (0,), (1, 1), expect=refuse("ctrl_locs")),
    Probe("control overlapping a target", X, (0,), (0,), expect=refuse("ctrl_locs")),
    Probe("ctrl_vals wrong length", X, (0,), (1, 2), (1,), expect=refuse("ctrl_vals")),
    Probe("ctrl_vals not 0/1", X, (0,), (1,), (2,), expect=refuse("ctrl_vals")),
    # the matrix
    Probe("matrix of the wrong shape", X, (0, 1), expect=refuse("matrix")),
    Probe("non-square matrix", np.ones((2, 4)), (0,), expect=refuse("matrix")),
    Probe("1-D matrix", np.ones(4), (0,), expect=refuse("matrix")),
    Probe("non-numeric matrix", np.array([["a", "b"], ["c", "d"]]), (0,),
          expect=refuse("matrix")),
    Probe("object matrix of non-numbers", np.array([[None, 1], [1, None]], dtype=object),
          (0,), expect=refuse("matrix")),
    # the state
    Probe("state 2-D", X, (0,), state=two_d, expect=refuse("state"),
          paths={"gate": refuse(r"state|vec"), "circuit": refuse(r"state|vec")}),
    Probe("state length not a power of two", X, (0,), state=length_six,
          expect=refuse("state"),
          paths={"gate": refuse(r"state|vec"), "circuit": refuse(r"state|vec")}),
    Probe("state of one amplitude", X, (0,), state=length_one, expect=refuse("state"),
          paths={"gate": refuse(r"state|vec"), "circuit": refuse(r"state|vec")}),
    Probe("state non-contiguous", X, (1,), state=strided, expect=refuse("state"),
          paths=_COPIED),
    Probe("state read-only", X, (1,), state=read_only, expect=refuse("state"),
          paths=_COPIED),
    Probe("real state with a complex gate", gates.Y, (0,), state=real,
          expect=refuse("state"), paths=_FROM_NUMPY),
    Probe("real state with a real gate", gates.H, (0,), state=real, expect=OK_OR_REFUSED,
          paths=_FROM_NUMPY),
    Probe("integer state", X, (0,), state=integer, expect=refuse("state"),
          paths=_FROM_NUMPY),
    Probe("the other precision", gates.H, (2,), state=other_precision,
          expect=OK_OR_REFUSED),
    # conversions that must give the right answer
    Probe("integer matrix", np.array([[0, 1], [1, 0]]), (1,)),
    Probe("real matrix", gates.H.real.copy(), (2,)),
    Probe("real matrix with a control on 0", gates.H.real.copy(), (0,), (2,), (0,)),
    Probe("matrix as nested lists", gates.Y.tolist(), (1,)),
    Probe("object matrix of numbers", gates.T.astype(object), (0,)),
    Probe("locs as a list of numpy integers", X, [np.int64(2)], [np.int32(0)]),
    # scalar qubits: the kernel signature only (an Instruction's qubits are tuples)
    Probe("scalar qubits", X, 1, 0, paths={"gate": None, "circuit": None, "program": None}),
    Probe("dense 2-qubit gate, unsorted, control on 0", _unitary(2, 1), (2, 0), (1,), (0,)),
    Probe("dense 3-qubit gate", _unitary(3, 2), (1, 2, 0)),
    # a matrix is applied as given; a tool that only takes unitaries says so
    Probe("non-unitary matrix", np.array([[1.0, 2.0], [3.0, 4.0]]), (1,),
          expect=OK_OR_REFUSED),
]


#: the program paths name an instruction as the suites do, so that an adapter's named
#: gates (qulacs.gate.X, ...) meet the probes too; any other matrix is "dense"
_NAMES = {id(gates.X): "X", id(gates.Y): "Y", id(gates.H): "H"}


def instruction_name(matrix):
    return _NAMES.get(id(matrix), "dense")


class SizeProbe(NamedTuple):
    """A program built with ``build`` ("gate", "circuit" or "prepare") for ``built_for``
    qubits (None: a gate, which records the fewest qubits it needs) run on a state of
    ``state_qubits``."""
    name: str
    build: str
    instruction: tuple     # (matrix, locs, ctrl_locs, ctrl_vals)
    built_for: int | None
    state_qubits: int
    expect: Expect


_X_ON = lambda q: (X, (q,), (), None)  # noqa: E731
SIZE_PROBES = [
    SizeProbe("gate on qubit 3 run on 3 qubits", "gate", _X_ON(3), None, 3, refuse("state")),
    SizeProbe("gate on qubit 7 run on 3 qubits", "gate", _X_ON(7), None, 3, refuse("state")),
    SizeProbe("controlled gate beyond the state", "gate", (X, (0,), (4,), None), None, 3,
              refuse("state")),
    SizeProbe("gate run on a larger state", "gate", (gates.CNOT, (1, 0), (), None), None, 5,
              OK),
    SizeProbe("circuit for 5 qubits run on 3", "circuit", _X_ON(1), 5, 3, refuse("state")),
    SizeProbe("circuit for 3 qubits run on 5", "circuit", _X_ON(1), 3, 5, refuse("state")),
    SizeProbe("circuit with n = 0", "circuit", _X_ON(0), 0, 3, refuse(r"\bn\b")),
    SizeProbe("circuit with a fractional n", "circuit", _X_ON(0), 2.5, 3, refuse(r"\bn\b")),
    SizeProbe("prepared for 5 qubits run on 3", "prepare", _X_ON(1), 5, 3, refuse("state")),
    SizeProbe("prepared for 3 qubits run on 5", "prepare", _X_ON(1), 3, 5, refuse("state")),
]


class MisuseProbe(NamedTuple):
    """Arguments of the wrong kind to a program path's functions."""
    name: str
    call: str      # "gate", "circuit", "run-state", "run-program"
    expect: Expect


MISUSE_PROBES = [
    MisuseProbe("gate of something not an Instruction", "gate", refuse("instruction")),
    # (right where the tool's own state is a numpy array, as the example plugin's is)
    MisuseProbe("run on a numpy array, not the tool's state", "run-state",
                Expect(True, (ValueError,), "state")),
    MisuseProbe("run of something not a program", "run-program", refuse("program")),
    MisuseProbe("circuit of something not a sequence", "circuit", refuse("instructions")),
]
