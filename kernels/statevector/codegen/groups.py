"""Packed (SIMD) products of two- and three-qubit gates on the interleaved state, for the
stride kernel, written as LLVM vector IR like :mod:`simd`.

The state is read as vectors of V = 2**v amplitudes (one 64-byte vector: V = 4 in
complex128, 8 in complex64), each its (re, im) pairs. A gate's targets below v (its lane
targets, the bits L) mix amplitudes inside a vector; those at v and above (K = 2**h of
them) mix whole vectors. So a group is K vectors, and lane l of output vector o is

    sum over input vectors i and patterns p of L:  e[o, i, p][l] * x_i[l ^ p]

with e[o, i, p][l] the gate's entry between the row of (o, lane l) and the column of (i,
lane l ^ p): a constant shuffle per pattern (every subset of L) and per-lane entry
vectors (:mod:`kernels.statevector.lanes`, as the fused split layout's lane gates do). A
control among the lanes makes its unmet lanes the identity's rows; one above them is the
loop's (it visits only the groups it selects). A complex product is ``re(e) * y +
[-im(e), im(e)] * swap(y)`` (:mod:`simd`), so each term is two packed multiply-adds,
with the shuffled input and its swapped copy made once per input and pattern. Every
input is loaded before any output is stored: in place is safe, and with at most 16
inputs (K * |patterns| <= 8 for up to three qubits, two vectors each) they stay in
AVX-512's registers.

``MIX[v, L, K](st, b, offs, m)``: the group of vectors b + offs[c], c < K (vector
indices), times the entry table ``m`` (:func:`entries`), in place, for the variants of
:data:`VARIANTS`. No bounds are checked here: the stride kernel's gate check bounds the
indices its loops compute.
"""

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import errors
from numba.extending import intrinsic

from .. import lanes
from . import simd

#: log2 of the amplitudes one 64-byte vector holds, per dtype char.
VECTOR_BITS = {"D": 2, "F": 3}
#: The gates written here: two and three qubits (one is :mod:`simd`'s pair updates).
QUBITS = (2, 3)


def _variants():
    out = []
    for v in sorted(set(VECTOR_BITS.values())):
        for mask in range(1 << v):
            low = bin(mask).count("1")
            out += [(v, mask, 1 << (k - low)) for k in QUBITS if k >= low]
    return tuple(out)


#: (v, lane target bits, vectors a group): every split of a two- or three-qubit gate's
#: targets between the lanes and the vectors.
VARIANTS = _variants()


def split(locs, ctrl_locs, ctrl_vals, v):
    """(lane target bits L, the targets above the lanes, the controls above them, their
    values): how a gate divides between the lanes of a 2**v-amplitude vector and the
    vectors."""
    mask = sum(1 << q for q in locs if q < v)
    high = tuple(q for q in locs if q >= v)
    ctrl = [(q, c) for q, c in zip(ctrl_locs, ctrl_vals) if q >= v]
    return mask, high, tuple(q for q, _ in ctrl), tuple(c for _, c in ctrl)


def entries(matrix, locs, ctrl_locs, ctrl_vals, v, ftype):
    """The entry table of ``MIX[v, L, K]``: float vectors (2 * 2**v floats each, one
    vector's floats) of the per-lane entries (:func:`lanes.dense`), for output vector o,
    then term t = i * P + p, the real parts (each lane's on both its floats) then the
    imaginary parts (negated on the lane's real float)."""
    e = lanes.dense(matrix, locs, ctrl_locs, ctrl_vals, v)
    table = np.empty(e.shape[:2] + (2, 2 * e.shape[2]), dtype=ftype)
    table[:, :, 0] = np.repeat(e.real, 2, axis=-1)
    table[:, :, 1, 0::2] = -e.imag
    table[:, :, 1, 1::2] = e.imag
    return table.ravel()


def _mix(v, mask, count):
    pats = lanes.patterns(mask)
    amps = 1 << v
    floats = 2 * amps
    perms = [[2 * (lane ^ pat) + j for lane in range(amps) for j in (0, 1)] for pat in pats]
    swapped = [[2 * (lane ^ pat) + 1 - j for lane in range(amps) for j in (0, 1)]
               for pat in pats]
    terms = count * len(pats)

    @intrinsic
    def mix(typingctx, st, b, offs, m):
        if not (isinstance(st, types.Array) and isinstance(st.dtype, types.Complex)
                and st.layout == "C"):
            raise errors.TypingError(f"groups mix: a C-contiguous complex array, got {st}")
        bits = VECTOR_BITS["D" if st.dtype == types.complex128 else "F"]
        if bits != v:
            raise errors.TypingError(f"groups mix: MIX[{v}, ...] is for vectors of "
                                     f"{amps} amplitudes, not {st.dtype}'s {1 << bits}")
        sig = types.void(st, types.intp, offs, m)

        def codegen(context, builder, signature, args):
            a = signature.args
            base, ftype, _ = simd.state_pointer(context, builder, a[0], args[0])
            p_offs = context.make_array(a[2])(context, builder, args[2]).data
            p_m = context.make_array(a[3])(context, builder, args[3]).data
            b = args[1]
            intp = b.type
            align = simd.float_width(ftype)
            vtype = ir.VectorType(ftype, floats)

            def at(vec):  # pointer to vector index vec
                p = builder.gep(base, [builder.mul(vec, intp(floats))], inbounds=True)
                return builder.bitcast(p, vtype.as_pointer())

            def entry(k):
                p = builder.gep(p_m, [intp(k * floats)], inbounds=True)
                return builder.load(builder.bitcast(p, vtype.as_pointer()), align=align)

            ptrs = [at(builder.add(b, builder.load(builder.gep(p_offs, [intp(c)],
                                                               inbounds=True))))
                    for c in range(count)]
            inputs = []
            for ptr in ptrs:
                x = builder.load(ptr, align=align)
                for perm, swap in zip(perms, swapped):
                    inputs.append(tuple(builder.shuffle_vector(x, x, ir.Constant(
                        ir.VectorType(ir.IntType(32), floats), mask_))
                        for mask_ in (perm, swap)))
            f = ("contract",)
            for o, ptr in enumerate(ptrs):
                acc = None
                for t, (y, ys) in enumerate(inputs):
                    k = 2 * (o * terms + t)
                    # one chain of multiply-adds, which LLVM contracts into FMAs
                    re = builder.fmul(entry(k), y, flags=f)
                    acc = re if acc is None else simd.add(builder, acc, re)
                    acc = simd.add(builder, acc, builder.fmul(entry(k + 1), ys, flags=f))
                builder.store(acc, ptr, align=align)
            return context.get_dummy_value()

        return sig, codegen

    mix.__name__ = f"mix_{v}_{mask}_{count}"
    return mix


MIX = {key: _mix(*key) for key in VARIANTS}


def source_digest():
    """A digest of this file (see :func:`simd.source_digest`)."""
    return hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
