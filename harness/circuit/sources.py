"""Where a circuit comes from: ``SOURCE`` of ``python -m harness circuit`` as a list of
:class:`Instruction`s (docs/architecture.md, "Circuits").

- ``path/to/file.qasm``: OpenQASM 2 (qiskit's ``qasm2`` loader with qiskit's
  ``qelib1.inc`` gates) or OpenQASM 3 (qiskit's ``qasm3`` loader, qiskit-qasm3-import),
  told apart by the ``OPENQASM`` version statement;
- ``mqt:NAME`` (or ``mqt:NAME:LEVEL``, LEVEL ``alg`` by default or ``indep``): MQT
  Bench's generator for NAME at ``qubits``, built in code (no network);
- ``lib:NAME``: :data:`kernels.statevector.circuits.LIBRARY` at ``qubits``, seeded;
- ``qiskit:NAME``: a family qiskit writes (:mod:`harness.circuit.families`: Trotter steps
  of spin chains, brickwork random circuits) at ``qubits``;
- a qiskit ``QuantumCircuit`` object, through :func:`from_circuit`.

Every failure is a :class:`SourceError` (a ValueError) whose message names the problem
and, for a file, its line: exit 2 of the command.
"""

import fnmatch
import hashlib
import inspect
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from harness.circuit import convert, families, locate
from kernels.statevector.circuits import LIBRARY

#: The seed of ``lib:`` circuits and of MQT Bench generators that take one.
SEED = 20191231
#: MQT Bench's levels this command accepts (its BenchmarkLevel names, lower case).
MQT_LEVELS = ("alg", "indep")


class SourceError(ValueError):
    """A circuit that cannot be read, built or run as a unitary; the message says why."""


class Circuit(NamedTuple):
    label: str  #: how the user named it (the file's name, mqt:NAME, lib:NAME)
    n: int
    instructions: list
    notes: list  #: what was dropped or kept, as sentences


def load(source, qubits=None):
    """The :class:`Circuit` named by ``source`` (a path or an ``mqt:``, ``lib:`` or
    ``qiskit:`` name)."""
    source = str(source)
    if source.startswith("lib:"):
        return _library(source[4:], qubits)
    if source.startswith("mqt:"):
        return _mqt(source[4:], qubits)
    if source.startswith("qiskit:"):
        return _family(source[7:], qubits)
    return _qasm_file(Path(source), qubits)


def from_circuit(qc, label=None, locate_line=None):
    """A qiskit ``QuantumCircuit`` as a :class:`Circuit`."""
    label = label or qc.name
    try:
        done = convert.from_qiskit(qc, locate_line)
    except convert.NotUnitary as exc:
        raise SourceError(f"{label}: {exc} (refused)") from None
    except (ValueError, NotImplementedError) as exc:
        raise SourceError(f"{label}: {exc}") from None
    if not done.instructions:
        raise SourceError(f"{label}: the circuit has no gates to run")
    return Circuit(label, done.n, done.instructions, done.notes)


def digest(instructions):
    """12 hex digits naming the circuit: its gates, qubits, controls and matrices."""
    h = hashlib.sha256()
    for inst in instructions:
        h.update(repr((inst.name, tuple(inst.locs), tuple(inst.ctrl_locs),
                       tuple(inst.ctrl_vals or ()), tuple(inst.params))).encode())
        h.update(np.ascontiguousarray(inst.matrix, dtype=np.complex128).tobytes())
    return h.hexdigest()[:12]


def _need_qubits(source, qubits):
    if qubits is None:
        raise SourceError(f"{source} needs --qubits N")
    if int(qubits) != qubits or qubits < 1:
        raise SourceError(f"--qubits must be a positive integer, got {qubits!r}")
    return int(qubits)


def _library(name, qubits):
    if name not in LIBRARY:
        raise SourceError(f"lib:{name} is not in the circuit library; known: "
                          + ", ".join(f"lib:{k}" for k in LIBRARY))
    n = _need_qubits(f"lib:{name}", qubits)
    try:
        instructions = LIBRARY[name](n, np.random.default_rng(SEED))
    except ValueError as exc:
        raise SourceError(f"lib:{name} at {n} qubits: {exc}") from None
    return Circuit(f"lib:{name}", n, list(instructions), [])


def _family(name, qubits):
    if name not in families.FAMILIES:
        raise SourceError(f"qiskit:{name} is not a family qiskit writes here; known: "
                          + ", ".join(f"qiskit:{k}" for k in families.FAMILIES))
    n = _need_qubits(f"qiskit:{name}", qubits)
    try:
        qc = families.build(name, n)
    except ImportError as exc:
        raise SourceError(f"qiskit:{name} needs qiskit (make setup installs it, the "
                          f"'circuits' extra): {exc}") from None
    except ValueError as exc:
        raise SourceError(f"qiskit:{name} at {n} qubits: {exc}") from None
    return from_circuit(qc, f"qiskit:{name}")


def _mqt(spec, qubits):
    name, _, level = spec.partition(":")
    level = level or "alg"
    if level not in MQT_LEVELS:
        raise SourceError(f"mqt:{spec}: level {level!r} is not one of {', '.join(MQT_LEVELS)}")
    n = _need_qubits(f"mqt:{name}", qubits)
    try:
        from mqt.bench import BenchmarkLevel, get_benchmark
        from mqt.bench.benchmarks import get_available_benchmark_names
    except ImportError as exc:
        raise SourceError(f"mqt:{name} needs the mqt.bench package (make setup installs "
                          f"it, the 'circuits' extra): {exc}") from None
    if name not in get_available_benchmark_names():
        raise SourceError(f"mqt:{name} is not an MQT Bench benchmark; known: "
                          + ", ".join(get_available_benchmark_names()))
    try:
        qc = get_benchmark(name, BenchmarkLevel[level.upper()], n, **_seeded(name))
    except Exception as exc:  # MQT Bench refuses sizes its construction cannot make
        raise SourceError(f"mqt:{name} at {n} qubits: {type(exc).__name__}: {exc}") from None
    label = f"mqt:{name}" + (f":{level}" if level != "alg" else "")
    circuit = from_circuit(qc, label)
    if circuit.n != n:
        circuit.notes.append(f"MQT Bench built {circuit.n} qubits for circuit size {n}")
    return circuit


def _seeded(name):
    """``{"seed": SEED}`` for a generator whose seed defaults to fresh randomness (so
    that the same name and size always give the same circuit), else {}."""
    import importlib

    from mqt.bench.benchmarks import get_benchmark_by_name
    try:
        importlib.import_module(f"mqt.bench.benchmarks.{name}")  # registers it
        make = get_benchmark_by_name(name)
        param = inspect.signature(make).parameters.get("seed")
    except Exception:
        return {}
    return {"seed": SEED} if param is not None and param.default is None else {}


_VERSION = re.compile(r"^\s*OPENQASM\s+(\d+)(?:\.(\d+))?\s*;", re.MULTILINE)


def qasm_version(text):
    """The major version of an OpenQASM program's version statement (3 if it has none:
    OpenQASM 3 makes it optional, OpenQASM 2 requires it)."""
    # comments first, so that a commented-out header does not count
    stripped = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    found = _VERSION.search(stripped)
    return int(found.group(1)) if found else 3


def _qasm_file(path, qubits):
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read {path}: {exc}") from None
    version = qasm_version(text)
    if version == 2:
        qc = _qasm2(path, text)
    elif version == 3:
        qc = _qasm3(path, text)
    else:
        raise SourceError(f"{path}: OpenQASM {version} is not supported (2 and 3 are)")
    circuit = from_circuit(qc, path.name, locate.Locator(text))
    if qubits is not None and int(qubits) != circuit.n:
        raise SourceError(f"{path.name} declares {circuit.n} qubits, not --qubits {qubits}")
    return circuit


def _qasm2(path, text):
    import qiskit.qasm2
    try:
        return qiskit.qasm2.loads(text, include_path=(str(path.parent),),
                                  custom_instructions=qiskit.qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    except qiskit.qasm2.QASM2ParseError as exc:
        # its message reads '<input>:LINE,COLUMN: what', or names no place
        raise SourceError(f"{path.name}: {_place(str(exc))}") from None
    except Exception as exc:
        raise SourceError(f"{path.name}: OpenQASM 2 loader failed: "
                          f"{type(exc).__name__}: {exc}") from None


def _qasm3(path, text):
    try:
        import qiskit.qasm3
    except ImportError as exc:
        raise SourceError(f"{path.name}: OpenQASM 3 needs qiskit-qasm3-import: {exc}") \
            from None
    try:
        return qiskit.qasm3.loads(text)
    except Exception as exc:
        found = locate.syntax_error(text) if not str(exc) else None
        if found:
            line, column, what = found
            raise SourceError(f"{path.name}: line {line}, column {column}: syntax error: "
                              f"{what}") from None
        message = _place(str(exc)) or type(exc).__name__
        raise SourceError(f"{path.name}: OpenQASM 3 importer: {message}") from None


_PLACE = re.compile(r"^(?:.*?:)?(\d+),(\d+): ", re.DOTALL)


def _place(message):
    """'LINE,COLUMN: what' (qiskit's loaders) as 'line LINE, column COLUMN: what'."""
    message = message.strip().strip("'\"")
    found = _PLACE.match(message)
    if not found:
        return message
    return f"line {found.group(1)}, column {found.group(2)}: {message[found.end():]}"


def expand(specs):
    """The circuit names of ``specs`` (a profile's ``circuits``) with ``lib:*``,
    ``qiskit:*`` and ``mqt:*`` patterns expanded into the library's names, the families'
    and MQT Bench's (which needs mqt.bench: without it, none), each once, in order."""
    out = []
    for spec in specs:
        if "*" not in spec:
            out.append(spec)
            continue
        prefix, _, pattern = spec.partition(":")
        out += [f"{prefix}:{name}" for name in _names(prefix)
                if fnmatch.fnmatch(name, pattern)]
    return list(dict.fromkeys(out))


def _names(prefix):
    if prefix == "lib":
        return list(LIBRARY)
    if prefix == "qiskit":
        return list(families.FAMILIES)
    try:
        from mqt.bench.benchmarks import get_available_benchmark_names
    except ImportError:
        return []
    return get_available_benchmark_names()
