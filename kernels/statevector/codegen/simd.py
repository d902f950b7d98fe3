"""Packed (SIMD) pair updates for the stride kernel, written as LLVM vector IR.

numba emits scalar code for a complex 2x2 update: its loop vectoriser cannot prove that
st[i] and st[i + s] do not overlap, and its SLP vectoriser is off by default (turning it on
is a process-wide switch, ``NUMBA_SLP_VECTORIZE``, that would change numba for every other
user in the process). So the inner update is written here as numba intrinsics that emit
LLVM vector instructions directly: amplitudes are loaded as vectors of interleaved
(re, im) lanes, 64 bytes at a time (four complex128 or eight complex64), and a product by
a matrix entry u = a + ib is ``a * v + [-b, b, ...] * swap(v)``, with swap exchanging
each amplitude's real and imaginary lanes: two packed multiply-adds and one shuffle for
W amplitudes where the scalar code spends 4W multiplications. An entry passed as a float
(a real matrix entry, the stride kernel passes those as floats) costs one packed
multiply. LLVM splits the 64-byte vectors into what the machine has (two AVX2 registers,
or one AVX-512 register), for the host CPU numba compiles for.

Two shapes of loop, one intrinsic per path and shape:

* ``RUNS[path](st, j0, count, s, u00, u01, u10, u11)``: the ``count`` pairs (i, i + s)
  for i in [j0, j0 + count), contiguous on both sides: vectors of 4 (or 8), then 2, then
  1 amplitudes;
* ``BLOCKS[path](st, j0, namps, s, u00, u01, u10, u11)``: the ``namps`` amplitudes from
  j0, whole blocks of 2s (the uncontrolled gate on a stretch of the state). With s at
  least a vector's amplitudes, x and y are whole vectors as in a run; below that, each
  vector holds whole blocks and is updated as ``A * v + B * partner(v)``, A = (u00, u11)
  and B = (u01, u10) on the x and y lanes, partner a shuffle that swaps the halves of
  every block (stride 1, target qubit 0, included).

The paths are :mod:`stride`'s: which entries each uses and how, below. Every intrinsic
writes through the array's data pointer without bounds checks: the callers (the generated
stride loops) compute indices that the kernel's gate check has bounded.
"""

import hashlib
from pathlib import Path

from llvmlite import ir
from numba import types
from numba.core import errors
from numba.extending import intrinsic

#: Bytes per vector: what one AVX-512 register, or two AVX2 registers, hold.
VECTOR_BYTES = 64

_I32 = ir.IntType(32)


def add(b, u, v):
    return b.fadd(u, v, flags=("contract",))


def sub(b, u, v):
    return b.fsub(u, v, flags=("contract",))


#: o0, o1 (the new st[i], st[i + s]) from x = st[i], y = st[i + s] and mul(k, v), the
#: product of matrix entry k (0: u00, 1: u01, 2: u10, 3: u11) and a vector; None: unchanged.
RUN_UPDATES = {
    "dense": lambda b, mul, x, y: (add(b, mul(0, x), mul(1, y)), add(b, mul(2, x), mul(3, y))),
    # c [[1, 1], [1, -1]]: one sum, one difference, two products
    "hadamard": lambda b, mul, x, y: (mul(0, add(b, x, y)), mul(0, sub(b, x, y))),
    "diag": lambda b, mul, x, y: (mul(0, x), mul(3, y)),
    "phase": lambda b, mul, x, y: (None, mul(3, y)),  # diag(1, u11): x is left alone
    "antidiag": lambda b, mul, x, y: (mul(1, y), mul(2, x)),
    "swap": lambda b, mul, x, y: (y, x),
}

#: The in-vector form's (A, B) per path: each a pair of coefficients for the x and y lanes,
#: an entry index, "-k" for its negation, ONE for no product; None for no term.
ONE = "1"
IN_VECTOR_COEFFS = {
    "dense": ((0, 3), (1, 2)),
    "hadamard": ((0, "-0"), (0, 0)),
    "diag": ((0, 3), None),
    "phase": ((ONE, 3), None),
    "antidiag": (None, (1, 2)),
    "swap": (None, (ONE, ONE)),
}

PATHS = tuple(RUN_UPDATES)


def source_digest():
    """A digest of this file: the generated stride module embeds it, so that numba's cache
    of the loops that inline these intrinsics is dropped when they change."""
    return hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]


class Entries:
    """The four matrix entries as (real, imaginary) LLVM scalars of the state's float type;
    imaginary None for an entry passed as a real number."""

    def __init__(self, builder, argtypes, args, ftype):
        self.parts = []
        for ty, val in zip(argtypes, args):
            if isinstance(ty, types.Complex):
                re, im = builder.extract_value(val, 0), builder.extract_value(val, 1)
                self.parts.append((convert(builder, re, ftype), convert(builder, im, ftype)))
            else:
                self.parts.append((convert(builder, val, ftype), None))


def convert(builder, value, ftype):
    if value.type == ftype:
        return value
    if isinstance(ftype, ir.FloatType):
        return builder.fptrunc(value, ftype)
    return builder.fpext(value, ftype)


def vector_of(builder, ftype, values):
    """A vector of the scalar LLVM values ``values``."""
    vec = ir.Constant(ir.VectorType(ftype, len(values)), ir.Undefined)
    for k, v in enumerate(values):
        vec = builder.insert_element(vec, v, _I32(k))
    return vec


def swap_mask(lanes):
    """Shuffle mask exchanging the real and imaginary lane of every amplitude."""
    return ir.Constant(ir.VectorType(_I32, lanes), [k ^ 1 for k in range(lanes)])


def complex_product(builder, ftype, coeffs, v):
    """coeffs * v lane-wise for complex coefficients ``coeffs`` (one (re, im) per
    amplitude of v, im None for a real one): re * v + [-im, im] * swap(v)."""
    lanes = v.type.count
    re = vector_of(builder, ftype, [c[0] for c in coeffs for _ in (0, 1)])
    out = builder.fmul(re, v, flags=("contract",))
    if all(c[1] is None for c in coeffs):
        return out
    zero = ftype(0.0)
    ims = []
    for c in coeffs:
        im = zero if c[1] is None else c[1]
        ims += [builder.fneg(im), im]
    swapped = builder.shuffle_vector(v, v, swap_mask(lanes))
    return add(builder, out, builder.fmul(vector_of(builder, ftype, ims), swapped,
                                            flags=("contract",)))


class Loop:
    """``for i in range(start, stop, step)`` emitted into ``builder`` (step > 0, a Python
    int or an LLVM value); the body is written between ``__enter__`` (which returns i) and
    ``__exit__``."""

    def __init__(self, builder, start, stop, step):
        self.b, self.start, self.stop, self.step = builder, start, stop, step

    def __enter__(self):
        b = self.b
        self.cond = b.append_basic_block("simd.cond")
        body = b.append_basic_block("simd.body")
        self.end = b.append_basic_block("simd.end")
        pre = b.basic_block
        b.branch(self.cond)
        b.position_at_end(self.cond)
        self.index = b.phi(self.start.type)
        self.index.add_incoming(self.start, pre)
        b.cbranch(b.icmp_signed("<", self.index, self.stop), body, self.end)
        b.position_at_end(body)
        return self.index

    def __exit__(self, *exc):
        if exc[0] is None:
            b = self.b
            step = self.step if isinstance(self.step, ir.Value) else self.index.type(self.step)
            # no signed wrap (indices are below 2**62): lets LLVM count the iterations,
            # and drop the loop of a stretch that is one vector long
            self.index.add_incoming(b.add(self.index, step, flags=("nsw",)), b.basic_block)
            b.branch(self.cond)
            b.position_at_end(self.end)
        return False


def carried_loop(builder, count, start, step):
    """``for i in range(count): values = step(i, values)`` emitted into ``builder``, the
    values (LLVM values, ``start`` their first) carried in the loop header's phis, so that
    they stay in registers; returns their values after the last iteration."""
    pre = builder.basic_block
    cond = builder.append_basic_block("carried.cond")
    body = builder.append_basic_block("carried.body")
    end = builder.append_basic_block("carried.end")
    builder.branch(cond)
    builder.position_at_end(cond)
    i = builder.phi(count.type)
    i.add_incoming(count.type(0), pre)
    phis = [builder.phi(v.type) for v in start]
    for phi, value in zip(phis, start):
        phi.add_incoming(value, pre)
    builder.cbranch(builder.icmp_signed("<", i, count), body, end)
    builder.position_at_end(body)
    new = step(i, phis)
    latch = builder.basic_block
    for phi, value in zip(phis, new):
        phi.add_incoming(value, latch)
    i.add_incoming(builder.add(i, count.type(1), flags=("nsw",)), latch)
    builder.branch(cond)
    builder.position_at_end(end)
    return phis


def state_pointer(context, builder, arrtype, arr):
    """(pointer to the first float of the state, LLVM float type, floats per vector)."""
    ftype = context.get_value_type(arrtype.dtype.underlying_float)
    data = context.make_array(arrtype)(context, builder, arr).data
    return builder.bitcast(data, ftype.as_pointer()), ftype, VECTOR_BYTES // float_width(ftype)


def float_width(ftype):
    return 8 if isinstance(ftype, ir.DoubleType) else 4


def vector_at(builder, base, index, ftype, lanes):
    """Pointer to the ``lanes`` floats from amplitude ``index``."""
    p = builder.gep(base, [builder.shl(index, index.type(1))], inbounds=True)
    return builder.bitcast(p, ir.VectorType(ftype, lanes).as_pointer())


def _check_types(name, st, entries):
    if not (isinstance(st, types.Array) and isinstance(st.dtype, types.Complex)
            and st.layout == "C"):
        raise errors.TypingError(f"{name}: a C-contiguous complex array, got {st}")
    for ty in entries:
        if not isinstance(ty, (types.Float, types.Complex)):
            raise errors.TypingError(f"{name}: matrix entries are floats or complex, got {ty}")


def entry_product(builder, ftype, entries, lanes):
    """mul(k, v): matrix entry k times every amplitude of the vector v."""
    def mul(k, v):
        return complex_product(builder, ftype, [entries.parts[k]] * (lanes // 2), v)
    return mul


def _pair_vectors(builder, base, ftype, path, entries, i0, s, width):
    """The update of the ``width`` pairs (i, i + s), i from ``i0``: x and y one vector each."""
    lanes = 2 * width
    p0 = vector_at(builder, base, i0, ftype, lanes)
    p1 = vector_at(builder, base, builder.add(i0, s), ftype, lanes)
    align = float_width(ftype)
    x = builder.load(p0, align=align)
    y = builder.load(p1, align=align)
    o0, o1 = RUN_UPDATES[path](builder, entry_product(builder, ftype, entries, lanes), x, y)
    if o0 is not None:  # LLVM drops the load of x when nothing uses it
        builder.store(o0, p0, align=align)
    builder.store(o1, p1, align=align)


def _in_vector(builder, base, ftype, path, entries, i0, s, width):
    """The update of ``width`` amplitudes from ``i0`` that hold whole blocks of 2s (s a
    Python int < width): each amplitude's partner is in the same vector, so the new
    vector is A * v + B * partner(v), A and B the x and y lanes' coefficients."""
    lanes = 2 * width
    coeff_a, coeff_b = IN_VECTOR_COEFFS[path]
    p = vector_at(builder, base, i0, ftype, lanes)
    align = float_width(ftype)
    v = builder.load(p, align=align)

    def coefficient(ref):
        if ref == ONE:
            return ftype(1.0), None
        if isinstance(ref, str):  # "-k": the negated entry k
            re, im = entries.parts[int(ref[1:])]
            return builder.fneg(re), None if im is None else builder.fneg(im)
        return entries.parts[ref]

    def per_amplitude(coeffs):  # amplitude a is in the y half of its block when a & s
        return [coefficient(coeffs[1 if a & s else 0]) for a in range(width)]

    terms = []
    if coeff_a is not None:
        terms.append(complex_product(builder, ftype, per_amplitude(coeff_a), v))
    if coeff_b is not None:
        partner = ir.Constant(ir.VectorType(_I32, lanes), [k ^ (2 * s) for k in range(lanes)])
        w = builder.shuffle_vector(v, v, partner)
        terms.append(w if coeff_b == (ONE, ONE) else
                     complex_product(builder, ftype, per_amplitude(coeff_b), w))
    builder.store(terms[0] if len(terms) == 1 else add(builder, *terms), p, align=align)


def widths(max_lanes):
    """Amplitudes per vector, widest first: 4, 2, 1 for complex128."""
    width = max_lanes // 2
    while width >= 1:
        yield width
        width //= 2


def _intrinsic(kind, path, emit):
    """The intrinsic ``kind(st, j0, length, s, u00, u01, u10, u11)`` of one path, whose
    loops ``emit(builder, base, ftype, max_lanes, entries, j0, length, s, path)`` writes."""
    @intrinsic
    def update(typingctx, st, j0, length, s, u00, u01, u10, u11):
        entry_types = (u00, u01, u10, u11)
        _check_types(f"simd {kind} {path}", st, entry_types)
        sig = types.void(st, types.intp, types.intp, types.intp, *entry_types)

        def codegen(context, builder, signature, args):
            base, ftype, max_lanes = state_pointer(context, builder, signature.args[0],
                                                   args[0])
            entries = Entries(builder, signature.args[4:], args[4:], ftype)
            emit(builder, base, ftype, max_lanes, entries, *args[1:4], path)
            return context.get_dummy_value()

        return sig, codegen

    update.__name__ = f"{kind}_{path}"
    return update


def _emit_run(builder, base, ftype, max_lanes, entries, j0, length, s, path):
    """``length`` pairs (i, i + s) from j0: full vectors, then what is left."""
    intp = j0.type
    start = intp(0)
    for width in widths(max_lanes):
        stop = length if width == 1 else builder.and_(length, intp(-width))
        with Loop(builder, start, stop, width) as i:
            _pair_vectors(builder, base, ftype, path, entries, builder.add(j0, i), s, width)
        start = stop


def _emit_blocks(builder, base, ftype, max_lanes, entries, j0, length, s, path):
    """``length`` amplitudes from j0, whole blocks of 2s."""
    intp = j0.type
    full = max_lanes // 2  # amplitudes per vector
    stop = builder.add(j0, length)
    with builder.if_else(builder.icmp_signed(">=", s, intp(full))) as (wide, narrow):
        with wide:  # each block's x and y halves are whole vectors
            with Loop(builder, j0, stop, builder.shl(s, intp(1))) as blk:
                with Loop(builder, intp(0), s, full) as i:
                    _pair_vectors(builder, base, ftype, path, entries,
                                  builder.add(blk, i), s, full)
        with narrow:  # whole blocks in a vector: one branch per stride
            for small in widths(full):
                with builder.if_then(builder.icmp_signed("==", s, intp(small))):
                    start = j0
                    # vectors of `full` amplitudes, then narrower ones down to
                    # one block for a stretch shorter than a vector
                    for width in (w for w in widths(max_lanes) if w >= 2 * small):
                        last = width == 2 * small
                        end = stop if last else builder.add(
                            j0, builder.and_(length, intp(-width)))
                        with Loop(builder, start, end, width) as i:
                            _in_vector(builder, base, ftype, path, entries, i, small,
                                       width)
                        start = end


RUNS = {path: _intrinsic("run", path, _emit_run) for path in PATHS}
BLOCKS = {path: _intrinsic("blocks", path, _emit_blocks) for path in PATHS}
