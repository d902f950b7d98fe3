"""Subnormal floats, and the floating-point mode our kernels run in.

An x86 core takes many times longer over an operand or result that is subnormal (below
2**-126 in float32, 2**-1022 in float64) than over a normal one. Long circuits with a
conserved quantity (a Trotterised spin chain from a basis state) keep most amplitudes at
zero in exact arithmetic; rounding seeds tiny values there, which decay into subnormals,
and a pass over such a state ran 20x slower than over a normal one. Setting the MXCSR's
flush-to-zero (a subnormal result becomes 0) and denormals-are-zero (a subnormal operand
reads as 0) removes the stall; it changes an amplitude by less than 2**-126 (float32),
far below either precision's tolerance.

The mode is per thread: a thread takes its creator's when it is made, and nothing makes
numba's workers take it later. So every generated kernel sets it where it runs: on entry
in the calling thread, and at the start of each parallel iteration in the thread running
that iteration, and restores the mode it found at the end of each
(:func:`kernels.statevector.codegen.sources.flushing`). ``flush()`` and ``restore(mode)``
are the numba intrinsics that do it; :func:`flushing` is the same for Python callers
(the numpy kernels), in the calling thread.

Whether a backend flushes is a fact it declares (``Backend.flushes_subnormals``: yes, no
or unknown), and its results' settings show it.
"""

import contextlib
import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6)
FTZ_DAZ = (1 << 15) | (1 << 6)
#: What a backend may declare about subnormals: it flushes them (yes), it computes with
#: them (no), or it is not known (a peer that does not say)
FLUSHES = ("yes", "no", "unknown")
#: Whether our kernels flush here: the mode is set through x86's MXCSR, and elsewhere
#: (an ARM core's FPCR) they leave it as it is
X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")
OURS = "yes" if X86 else "no"


def _mxcsr(builder, name, slot):
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()])
    fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.x86.sse.{name}")
    builder.call(fn, [builder.bitcast(slot, ir.IntType(8).as_pointer())])


@intrinsic
def _set_bits(typingctx, bits):
    """The mode it found (MXCSR); flush-to-zero and denormals-are-zero set where ``bits``
    holds them. Where the kernels do not flush (not x86): 0, and nothing done."""
    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        if not X86:
            return i32(0)
        slot = cgutils.alloca_once(builder, i32)
        _mxcsr(builder, "stmxcsr", slot)
        found = builder.load(slot)
        builder.store(builder.or_(found, args[0]), slot)
        _mxcsr(builder, "ldmxcsr", slot)
        return found
    return types.uint32(types.uint32), codegen


@intrinsic
def _put_bits(typingctx, mode):
    """MXCSR set to ``mode`` (a value :func:`_set_bits` returned)."""
    def codegen(context, builder, signature, args):
        if X86:
            slot = cgutils.alloca_once(builder, ir.IntType(32))
            builder.store(args[0], slot)
            _mxcsr(builder, "ldmxcsr", slot)
        return context.get_dummy_value()
    return types.void(types.uint32), codegen


@intrinsic
def _flush_saving(typingctx):
    """Flush-to-zero and denormals-are-zero set; the mode found is kept in a slot of the
    calling function's frame, whose address is returned: LLVM rematerialises an address
    where it is needed, so no register holds the mode across a kernel's loops (an i32
    held there cost the unrolled kernels an instruction per group)."""
    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        if X86:
            _mxcsr(builder, "stmxcsr", slot)
            cell = cgutils.alloca_once(builder, ir.IntType(32))
            builder.store(builder.or_(builder.load(slot), ir.IntType(32)(FTZ_DAZ)), cell)
            _mxcsr(builder, "ldmxcsr", cell)
        return slot
    return types.CPointer(types.uint32)(), codegen


@intrinsic
def restore(typingctx, saved):
    """Set the mode :func:`flush` kept (numba intrinsic)."""
    def codegen(context, builder, signature, args):
        if X86:
            _mxcsr(builder, "ldmxcsr", args[0])
        return context.get_dummy_value()
    return types.void(saved), codegen


@njit(inline="always", nogil=True)
def flush():
    """Set flush-to-zero and denormals-are-zero in this thread; where the mode it found
    is kept, for :func:`restore` (numba)."""
    return _flush_saving()


@njit(nogil=True)
def _swap(bits):
    return _set_bits(np.uint32(bits))


@njit(nogil=True)
def _put(mode):
    _put_bits(np.uint32(mode))


def mode():
    """This thread's floating-point control bits (MXCSR; 0 where not x86)."""
    return int(_swap(0))


def flushes_here():
    """Whether this thread flushes subnormals now (both bits set)."""
    return mode() & FTZ_DAZ == FTZ_DAZ


@contextlib.contextmanager
def flushing():
    """This thread flushes subnormals inside the block, and has its mode back after it,
    whatever the block raised."""
    found = int(_swap(FTZ_DAZ))
    try:
        yield
    finally:
        _put(found)


def count(state):
    """How many of the real and imaginary parts of ``state`` are subnormal: the numbers
    a flushing backend sets to zero, and a stalling one is slowed by."""
    parts = np.asarray(state)
    parts = parts.view(parts.real.dtype) if np.iscomplexobj(parts) else parts
    tiny = np.finfo(parts.dtype).smallest_normal
    return int(np.count_nonzero((parts != 0) & (np.abs(parts) < tiny)))
