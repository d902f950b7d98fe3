"""Every simulator the suites compare, kernels and adapters alike, behind one small
interface, so that a suite times exactly the same instructions on each of them.

A backend turns a numpy state into its own state object (``load``), turns instructions
into something it can run (``program``: a tool's gate or circuit object, built outside
the timed region as a user of that tool would), runs it in place (``run``), waits for
asynchronous devices (``sync``) and hands the amplitudes back (``result``).
"""

import numpy as np

from harness.errors import Unavailable
from kernels.statevector import KERNELS
from kernels.statevector.prepared import prepare


class KernelBackend:
    def __init__(self, name):
        self.name = name

    def check(self):
        pass

    def load(self, vec):
        return vec.copy()

    def program(self, instructions, n):
        # Each gate checked and planned once, as a qulacs gate object is built once: the
        # timed region applies gates, the same work on every backend.
        gates = [prepare(self.name, n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None)
                 for i in instructions]
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


class CudaBackend(KernelBackend):
    def __init__(self):
        super().__init__("cuda")
        from kernels.statevector import cuda
        self.cuda = cuda

    def check(self):
        ok, reason = self.cuda.available()
        if not ok:
            raise Unavailable(f"cuda: {reason}")

    def load(self, vec):
        import cupy
        return cupy.asarray(vec)

    def sync(self):
        self.cuda.sync()

    def result(self, state):
        return state.get()


class AdapterBackend:
    """A simulator adapter module (``adapters.qulacs_sim``) as a backend."""

    def __init__(self, module):
        self.module = module
        self.name = module.NAME

    def check(self):
        if not self.module.AVAILABLE:
            raise Unavailable(f"{self.name}: {self.module.REASON}")

    def load(self, vec):
        return self.module.from_numpy(vec)

    def program(self, instructions, n):
        if len(instructions) == 1:
            return self.module.gate(instructions[0])
        return self.module.circuit(instructions, n)

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


def names():
    """Every backend name, in a fixed order: the kernels' progression, then the peers."""
    return list(KERNELS) + [m.NAME for m in simulator_adapters()]


def get(name):
    if name == "cuda":
        return CudaBackend()
    if name in KERNELS:
        return KernelBackend(name)
    for module in simulator_adapters():
        if module.NAME == name:
            return AdapterBackend(module)
    raise ValueError(f"unknown backend {name!r}; known: {names()}")
