"""The packed multiply-add peak of one core, measured: the compute roof of the roofline
(kernels.statevector.roofline).

``CHAINS[dtype]`` is a numba intrinsic that runs independent chains of fused
multiply-adds (``llvm.fma``) on vectors as wide as the host's registers, with nothing
else in the loop: no loads, no stores, so memory never limits it. There are more chains
than an FMA's latency times the units that issue them (4 cycles x 2 units on the x86
cores of this decade), so that each unit starts one every cycle. The rate it measures is
the peak the kernels can approach, from the clock the core actually runs at under this
load, not from a nominal frequency.
"""

import time

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..machine import isa
from .simd import carried_loop, float_width

#: Independent accumulators: more than the FMAs in flight on one core, few enough to stay
#: in 16 registers (AVX2) with the two operands.
CHAINS = 12
#: Register bytes per ISA (:func:`machine.isa`).
REGISTER_BYTES = {"avx512": 64, "avx2": 32, "avx": 32, "sse2": 16}


def lanes(dtype):
    """Floats of ``dtype``'s real type in one register of this host."""
    return REGISTER_BYTES[isa()] // np.dtype(dtype).itemsize


@intrinsic
def _chains(typingctx, acc, count):
    sig = types.void(acc, types.intp)

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        count = args[1]
        ftype = context.get_value_type(signature.args[0].dtype)
        width = REGISTER_BYTES[isa()] // float_width(ftype)
        vtype = ir.VectorType(ftype, width)
        base = builder.bitcast(arr.data, vtype.as_pointer())
        suffix = f"v{width}f{8 * float_width(ftype)}"  # llvm.fma.v8f64, ...
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vtype, [vtype] * 3), f"llvm.fma.{suffix}")
        # a slope below one and a small offset: every chain converges to a finite
        # value, so no overflow or denormal slows a late iteration down
        slope = ir.Constant(vtype, [ftype(0.999)] * width)
        offset = ir.Constant(vtype, [ftype(1e-3)] * width)
        ptrs = [builder.gep(base, [ir.IntType(64)(c)], inbounds=True)
                for c in range(CHAINS)]
        start = [builder.load(p, align=float_width(ftype)) for p in ptrs]
        accs = carried_loop(builder, count, start,
                            lambda i, accs: [builder.call(fma, [acc, slope, offset])
                                             for acc in accs])
        for p, acc in zip(ptrs, accs):  # kept: the loop is not dead code
            builder.store(acc, p, align=float_width(ftype))
        return context.get_dummy_value()

    return sig, codegen


@numba.njit
def _run(acc, count):
    _chains(acc, count)


@numba.njit(parallel=True)
def _run_each(accs, count):
    # one row of chains per thread: numba's static schedule gives each thread one row
    for t in numba.prange(accs.shape[0]):
        _chains(accs[t], count)


def fma_rate(dtype, seconds=0.05, repeat=5, threads=1):
    """Fused multiply-adds per second (one per float lane) ``threads`` of numba's threads
    (one core each; numba must have that many now) issue at most together, on the real
    type of ``dtype`` (complex128: float64): the best of ``repeat`` samples of about
    ``seconds`` each, after one that compiles and warms the cores up."""
    ftype = np.empty(0, dtype).real.dtype
    if ftype not in (np.float32, np.float64):
        raise ValueError(f"fma_rate: float32 or float64 (or their complex types), got {dtype}")
    if not 1 <= threads <= numba.get_num_threads():
        raise ValueError(f"fma_rate: threads must be between 1 and numba's "
                         f"{numba.get_num_threads()}, got {threads}")
    run = _run_each if threads > 1 else lambda acc, count: _run(acc[0], count)
    width = lanes(ftype)
    acc = np.ones((threads, CHAINS * width), ftype)  # rows of 12 registers: no line shared
    count = 1 << 12
    run(acc, count)
    while True:  # iterations that last the sample's length
        t0 = time.perf_counter()
        run(acc, count)
        took = time.perf_counter() - t0
        if took >= seconds / 4:
            break
        count *= 4
    count = max(1, int(count * seconds / took))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(acc, count)
        best = min(best, time.perf_counter() - t0)
    if not np.all(np.isfinite(acc)):
        raise ArithmeticError("fma_rate: the chains diverged")
    return threads * count * CHAINS * width / best

