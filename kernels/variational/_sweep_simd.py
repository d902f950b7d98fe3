"""The adjoint sweep's pass for an uncontrolled run of rotations, in packed SIMD.

What :func:`_sweep._pass` does per amplitude pair, over the whole state in one call: R's
four sums psi[y] conj(lambda[x]) and W applied to psi and lambda (the two halves of
``both``), with the vector helpers of :mod:`kernels.statevector.codegen.simd`. A product
a conj(c) is accumulated lane-wise as two vectors, a * c (the real part's two terms) and
a * swap(c) (the imaginary part's), reduced across lanes once at the end. As in the
stride kernel's blocks, a stride of a vector's amplitudes or more has x and y in separate
vectors (four accumulators: x c_x, x c_y, y c_x, y c_y); a smaller one has whole blocks in
one vector, and two accumulators (v c and v partner(c)) whose x and y lanes are told apart
at the reduction.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from ..statevector.codegen import simd

#: The run's update: W dense, or diagonal (Rz and phase runs: two products, not four).
SWEEP_PATHS = ("dense", "diag")


class _Sums:
    """Vector accumulators of a * c and a * swap(c) for the products a conj(c) of one
    vector width; reduced to complex sums by lane masks at the end."""

    def __init__(self, builder, ftype, lanes, count):
        self.b, self.lanes = builder, lanes
        vt = ir.VectorType(ftype, lanes)
        self.slots = [(cgutils.alloca_once_value(builder, ir.Constant(vt, [0.0] * lanes)),
                       cgutils.alloca_once_value(builder, ir.Constant(vt, [0.0] * lanes)))
                      for _ in range(count)]

    def add(self, k, a, c):
        b = self.b
        swapped = b.shuffle_vector(c, c, simd.swap_mask(self.lanes))
        for slot, term in zip(self.slots[k], (c, swapped)):
            b.store(simd.add(b, b.load(slot), b.fmul(a, term, flags=("contract",))), slot)

    def reduce(self, k, amplitudes):
        """The complex sum (re, im) over the amplitudes (lane pairs) ``amplitudes`` of
        accumulator k: re = sum of a * c's two lanes, im = a * swap(c)'s second minus first."""
        b = self.b
        real, imag = (b.load(slot) for slot in self.slots[k])
        re = im = None
        for a in amplitudes:
            r = b.fadd(b.extract_element(real, ir.IntType(32)(2 * a)),
                       b.extract_element(real, ir.IntType(32)(2 * a + 1)))
            i = b.fsub(b.extract_element(imag, ir.IntType(32)(2 * a + 1)),
                       b.extract_element(imag, ir.IntType(32)(2 * a)))
            re = r if re is None else b.fadd(re, r)
            im = i if im is None else b.fadd(im, i)
        return re, im


def _make_pass(path):
    update = simd.RUN_UPDATES[path]
    coeff_a, coeff_b = simd.IN_VECTOR_COEFFS[path]

    @intrinsic
    def sweep(typingctx, both, s, w00, w01, w10, w11):
        entry_types = (w00, w01, w10, w11)
        if not (isinstance(both, types.Array) and both.dtype == types.complex128
                and both.layout == "C") or not all(
                    isinstance(t, types.Complex) for t in entry_types):
            raise errors.TypingError(f"sweep {path}: a C-contiguous complex128 array and "
                                     f"four complex entries, got {both}, {entry_types}")
        sig = types.UniTuple(types.float64, 8)(both, types.intp, *entry_types)

        def codegen(context, builder, signature, args):
            base, ftype, max_lanes = simd.state_pointer(context, builder, signature.args[0],
                                                        args[0])
            arr = context.make_array(signature.args[0])(context, builder, args[0])
            half = builder.ashr(builder.extract_value(arr.shape, 0), ir.IntType(64)(1))
            s = args[1]
            entries = simd.Entries(builder, signature.args[2:], args[2:], ftype)
            intp = s.type
            zero = ftype(0.0)
            # r00, r01, r10, r11 as (re, im) allocas, summed over the branches below
            r = [(cgutils.alloca_once_value(builder, zero),
                  cgutils.alloca_once_value(builder, zero)) for _ in range(4)]

            def accumulate(k, re, im):
                for slot, v in zip(r[k], (re, im)):
                    builder.store(builder.fadd(builder.load(slot), v), slot)

            full = max_lanes // 2
            with builder.if_else(builder.icmp_signed(">=", s, intp(full))) as (wide, narrow):
                with wide:
                    sums = _Sums(builder, ftype, max_lanes, 4)
                    with simd.Loop(builder, intp(0), half, builder.shl(s, intp(1))) as blk:
                        with simd.Loop(builder, intp(0), s, full) as i:
                            _wide_step(builder, base, ftype, entries, update, sums,
                                       builder.add(blk, i), s, half, max_lanes)
                    for k in range(4):
                        accumulate(k, *sums.reduce(k, range(full)))
                with narrow:
                    for small in simd.widths(full):
                        with builder.if_then(builder.icmp_signed("==", s, intp(small))):
                            start = intp(0)
                            for width in (w for w in simd.widths(max_lanes) if w >= 2 * small):
                                last = width == 2 * small
                                end = half if last else builder.and_(half, intp(-width))
                                sums = _Sums(builder, ftype, 2 * width, 2)
                                with simd.Loop(builder, start, end, width) as i:
                                    _narrow_step(builder, base, ftype, entries, coeff_a,
                                                 coeff_b, sums, i, small, half, width)
                                xs = [a for a in range(width) if not a & small]
                                ys = [a for a in range(width) if a & small]
                                # v conj(c): x lanes r00, y lanes r11; v conj(partner(c)):
                                # x lanes x conj(c_y) = r01, y lanes y conj(c_x) = r10
                                accumulate(0, *sums.reduce(0, xs))
                                accumulate(3, *sums.reduce(0, ys))
                                accumulate(1, *sums.reduce(1, xs))
                                accumulate(2, *sums.reduce(1, ys))
                                start = end
            values = [builder.load(slot) for pair in r for slot in pair]
            return context.make_tuple(builder, signature.return_type, values)

        return sig, codegen

    sweep.__name__ = f"sweep_{path}"
    return sweep


def _wide_step(builder, base, ftype, entries, update, sums, i0, s, half, lanes):
    align = simd.float_width(ftype)
    pointers = [simd.vector_at(builder, base, idx, ftype, lanes)
                for idx in (i0, builder.add(i0, s), builder.add(half, i0),
                            builder.add(builder.add(half, i0), s))]
    x, y, cx, cy = (builder.load(p, align=align) for p in pointers)
    for k, (a, c) in enumerate(((x, cx), (x, cy), (y, cx), (y, cy))):
        sums.add(k, a, c)
    mul = simd.entry_product(builder, ftype, entries, lanes)
    for (p0, p1), (a, c) in ((pointers[:2], (x, y)), (pointers[2:], (cx, cy))):
        o0, o1 = update(builder, mul, a, c)
        builder.store(o0, p0, align=align)
        builder.store(o1, p1, align=align)


def _narrow_step(builder, base, ftype, entries, coeff_a, coeff_b, sums, i, small, half,
                 width):
    lanes = 2 * width
    align = simd.float_width(ftype)
    pv = simd.vector_at(builder, base, i, ftype, lanes)
    pc = simd.vector_at(builder, base, builder.add(half, i), ftype, lanes)
    v = builder.load(pv, align=align)
    c = builder.load(pc, align=align)
    partner = ir.Constant(ir.VectorType(ir.IntType(32), lanes),
                          [k ^ (2 * small) for k in range(lanes)])
    sums.add(0, v, c)
    sums.add(1, v, builder.shuffle_vector(c, c, partner))

    def per_amplitude(coeffs):
        return [entries.parts[coeffs[1 if a & small else 0]] for a in range(width)]

    for p, a in ((pv, v), (pc, c)):
        out = simd.complex_product(builder, ftype, per_amplitude(coeff_a), a)
        if coeff_b is not None:
            out = simd.add(builder, out, simd.complex_product(
                builder, ftype, per_amplitude(coeff_b),
                builder.shuffle_vector(a, a, partner)))
        builder.store(out, p, align=align)


SWEEPS = {path: _make_pass(path) for path in SWEEP_PATHS}
