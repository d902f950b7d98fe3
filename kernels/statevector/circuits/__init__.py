"""Circuits as plain lists of :class:`Instruction`, runnable by any kernel or adapter
(docs/architecture.md, "Circuits").

An instruction carries the kernel arguments (matrix, locs, controls) plus the gate's name
and parameters, so that an adapter can use a tool's own named gate where it has one.
"""

from ._instruction import Instruction, cnot, cz, dense, gate, run, swap, toffoli
from ._library import qcbm, qft

__all__ = ["Instruction", "cnot", "cz", "dense", "gate", "qcbm", "qft", "run", "swap",
           "toffoli"]
