"""Packed (SIMD) products for the fused kernels, on amplitudes split into real and
imaginary arrays, written as LLVM vector IR like :mod:`simd`.

The fused kernels copy a chunk of the state into two float arrays (the real parts, the
imaginary parts), so that a product by a matrix entry m = a + ib of a run of R amplitudes
is four packed multiply-adds on R-lane vectors (re' += a re - b im, im' += a im + b re)
with no shuffles. Runs are R = 2**w consecutive amplitudes of the chunk that every gate
of the stage treats alike (the low w bits of the chunk are qubits no gate of the stage
touches), so every amplitude of a run gets the same matrix entries. LLVM splits an R-lane
vector into what the host has: AVX-512 or AVX2 registers for numba's host CPU.

* ``LOAD_RUNS[R, K](re, im, offs, o0, r0, s_re, s_im)``: runs r0 + offs[o0 + c], c < K,
  copied one after another into the scratch arrays;
* ``ROWS[R, K](s_re, s_im, m_re, m_im, m0, d_re, d_im, offs, o0, r0)``: ROW_BLOCK rows
  of a dense gate of K columns at once: row b's run, at run r0 + offs[o0 + b] of the
  buffer, = sum over c < K of m[m0 + b * K + c] times run c of the scratch;
* ``DENSE[R, K]``: a dense gate of K columns (:data:`IN_REGISTERS`: one or two qubits,
  three on AVX-512) on every group of its runs, in registers
  (:func:`_dense_in_registers`); wider ones go through the scratch
  (:func:`dense_dispatch` writes the stage loops' lines for both); ``DIAGONAL[R]`` a
  diagonal one; ``MOVE[R]`` a permutation, as moves of whole runs (:func:`_move`);
* ``GATHER[R, T]``, ``SCATTER[R, T]``: T runs between the interleaved state and the
  buffers (:func:`_run_copy`).

Indices are amplitude indices into the float arrays; the callers (the generated stage
loops) compute them inside the chunk, so no bounds are checked here.
"""

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from .. import fusion
from .. import lanes as lane_bits
from ..codegen import simd
from ..codegen.simd import Loop, add, float_width, sub
from ..fusion import MAX_QUBITS
from ..machine import isa

#: Run lengths the fused kernels are generated for: 1 (no untouched qubit to spare)
#: up to 16 (64 bytes of float32).
RUN_LENGTHS = (1, 2, 4, 8, 16)


def _data(context, builder, arrtype, arr):
    return context.make_array(arrtype)(context, builder, arr).data


def _check(name, arrays):
    for a in arrays:
        if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Float)
                and a.layout == "C"):
            raise errors.TypingError(f"{name}: C-contiguous float arrays, got {a}")
    if len({a.dtype for a in arrays}) != 1:
        raise errors.TypingError(f"{name}: arrays of one float type, got {arrays}")


def _vector_ptr(builder, base, index, lanes):
    p = builder.gep(base, [index], inbounds=True)
    return builder.bitcast(p, ir.VectorType(base.type.pointee, lanes).as_pointer())


def _broadcast(builder, value, lanes):
    vec = builder.insert_element(ir.Constant(ir.VectorType(value.type, lanes), ir.Undefined),
                                 value, ir.IntType(32)(0))
    return builder.shuffle_vector(vec, vec, ir.Constant(ir.VectorType(ir.IntType(32), lanes),
                                                        [0] * lanes))


def _load_runs(lanes, count):
    @intrinsic
    def load_runs(typingctx, re, im, offs, o0, r0, s_re, s_im):
        _check("fused load_runs", (re, im, s_re, s_im))
        sig = types.void(re, im, offs, types.intp, types.intp, s_re, s_im)

        def codegen(context, builder, signature, args):
            a = signature.args
            p_re, p_im = (_data(context, builder, a[k], args[k]) for k in (0, 1))
            p_offs = _data(context, builder, a[2], args[2])
            q_re, q_im = (_data(context, builder, a[k], args[k]) for k in (5, 6))
            o0, r0 = args[3:5]
            intp = o0.type
            align = float_width(p_re.type.pointee)
            with Loop(builder, intp(0), intp(count), 1) as c:
                off = builder.load(builder.gep(p_offs, [builder.add(o0, c)], inbounds=True))
                src = builder.mul(builder.add(r0, off), intp(lanes))
                dst = builder.mul(c, intp(lanes))
                for p, q in ((p_re, q_re), (p_im, q_im)):
                    v = builder.load(_vector_ptr(builder, p, src, lanes), align=align)
                    builder.store(v, _vector_ptr(builder, q, dst, lanes), align=align)
            return context.get_dummy_value()

        return sig, codegen

    load_runs.__name__ = f"load_runs_{lanes}x{count}"
    return load_runs


#: Output rows a dense gate's product computes at once (:func:`_rows`): each input run,
#: once loaded, serves them all, and their 2 * ROW_BLOCK accumulators are independent
#: chains of FMAs, enough to keep both FMA units busy where one row's chain waits on each
#: FMA's latency. 8 rows fill 16 of AVX-512's 32 registers; AVX2's 16 hold 4.
ROW_BLOCK = 8 if isa() == "avx512" else 4


def _rows(lanes, columns):
    @intrinsic
    def rows(typingctx, s_re, s_im, m_re, m_im, m0, d_re, d_im, offs, o0, r0):
        _check("fused rows", (s_re, s_im, m_re, m_im, d_re, d_im))
        sig = types.void(s_re, s_im, m_re, m_im, types.intp, d_re, d_im, offs, types.intp,
                         types.intp)

        def codegen(context, builder, signature, args):
            a = signature.args
            ps_re, ps_im, pm_re, pm_im, pd_re, pd_im, p_offs = (
                _data(context, builder, a[k], args[k]) for k in (0, 1, 2, 3, 5, 6, 7))
            m0, o0, r0 = (args[k] for k in (4, 8, 9))
            intp = m0.type
            # the columns a constant: each row's entry c is at a fixed offset from the
            # block's first, so no index is computed in the loop
            count = intp(columns)
            ftype = ps_re.type.pointee
            align = float_width(ftype)
            vtype = ir.VectorType(ftype, lanes)
            zero = ir.Constant(vtype, [ftype(0.0)] * lanes)
            f = ("contract",)

            def step(c, accs):  # the run c of the scratch into every row's accumulators
                src = builder.mul(c, intp(lanes))
                x = builder.load(_vector_ptr(builder, ps_re, src, lanes), align=align)
                y = builder.load(_vector_ptr(builder, ps_im, src, lanes), align=align)
                out = []
                for b in range(ROW_BLOCK):
                    acc_re, acc_im = accs[2 * b], accs[2 * b + 1]
                    k = builder.add(m0, builder.add(builder.mul(intp(b), count), c))
                    mr, mi = (_broadcast(builder, builder.load(builder.gep(p, [k],
                                                                           inbounds=True)),
                                         lanes) for p in (pm_re, pm_im))
                    out.append(sub(builder, add(builder, acc_re, builder.fmul(mr, x, flags=f)),
                                   builder.fmul(mi, y, flags=f)))
                    out.append(add(builder, add(builder, acc_im, builder.fmul(mr, y, flags=f)),
                                   builder.fmul(mi, x, flags=f)))
                return out

            flat = simd.carried_loop(builder, count, [zero] * (2 * ROW_BLOCK), step)
            accs = list(zip(flat[::2], flat[1::2]))
            for b, (acc_re, acc_im) in enumerate(accs):
                off = builder.load(builder.gep(p_offs, [builder.add(o0, intp(b))],
                                               inbounds=True))
                d0 = builder.mul(builder.add(r0, off), intp(lanes))
                builder.store(acc_re, _vector_ptr(builder, pd_re, d0, lanes), align=align)
                builder.store(acc_im, _vector_ptr(builder, pd_im, d0, lanes), align=align)
            return context.get_dummy_value()

        return sig, codegen

    rows.__name__ = f"rows_{lanes}x{columns}"
    return rows


def _concat(builder, parts):
    """One vector of the vectors ``parts`` (of equal length) one after another."""
    while len(parts) > 1:
        nxt = []
        for a, b in zip(parts[::2], parts[1::2]):
            width = a.type.count
            mask = ir.Constant(ir.VectorType(ir.IntType(32), 2 * width), list(range(2 * width)))
            nxt.append(builder.shuffle_vector(a, b, mask))
        parts = nxt
    return parts[0]


def _lanes(builder, vec, picks):
    mask = ir.Constant(ir.VectorType(ir.IntType(32), len(picks)), list(picks))
    return builder.shuffle_vector(vec, vec, mask)


def vector_at_amp(builder, base, amp, ftype, floats):
    """Pointer to ``floats`` floats from amplitude ``amp`` of an interleaved state."""
    f = builder.gep(base, [builder.shl(amp, amp.type(1))], inbounds=True)
    return builder.bitcast(f, ir.VectorType(ftype, floats).as_pointer())


def _copy(builder, ptrs, re_ptr, im_ptr, lanes, tile, align, to_buffer):
    """Interleaved amplitudes to split real and imaginary vectors, or back. ``ptrs`` are
    segments (one after another, of equal length) holding amplitudes a = l * tile + t
    for lane l < lanes, t < tile; the buffer holds runs t, each of its lanes l in a row."""
    count = lanes * tile
    order = [lane * tile + t for t in range(tile) for lane in range(lanes)]
    if to_buffer:
        whole = _concat(builder, [builder.load(q, align=align) for q in ptrs])
        builder.store(_lanes(builder, whole, [2 * a for a in order]), re_ptr, align=align)
        builder.store(_lanes(builder, whole, [2 * a + 1 for a in order]), im_ptr,
                      align=align)
        return
    both = _concat(builder, [builder.load(re_ptr, align=align),
                             builder.load(im_ptr, align=align)])
    at = {a: i for i, a in enumerate(order)}
    whole = _lanes(builder, both, [c * count + at[a] for a in range(count) for c in (0, 1)])
    width = 2 * count // len(ptrs)
    for i, q in enumerate(ptrs):
        builder.store(_lanes(builder, whole, range(width * i, width * (i + 1))), q,
                      align=align)


def _run_copy(lanes, tile, to_buffer):
    """GATHER[R, T](st, p, spec, re, im, d0): T runs, the amplitudes st[p + spec[l] + t]
    (lane l < R of run t < T) into re and im from d0; SCATTER[R, T](...) the other way.
    Each lane's T amplitudes are one load (store) and shuffles split (join) real and
    imaginary parts and transpose lanes and runs: a tile of T consecutive amplitudes
    reads whole cache lines where the lanes are far apart. For T = 1 where spec[l] == l
    the run is one load."""
    @intrinsic
    def copy(typingctx, st, p, spec, re, im, d0):
        if not (isinstance(st, types.Array) and isinstance(st.dtype, types.Complex)
                and st.layout == "C"):
            raise errors.TypingError(f"fused run copy: a C-contiguous complex array, got {st}")
        _check("fused run copy", (re, im))
        sig = types.void(st, types.intp, spec, re, im, types.intp)

        def codegen(context, builder, signature, args):
            a = signature.args
            base, ftype, _ = simd.state_pointer(context, builder, a[0], args[0])
            p_spec = _data(context, builder, a[2], args[2])
            p_re, p_im = (_data(context, builder, a[k], args[k]) for k in (3, 4))
            p, d0 = args[1], args[5]
            align = float_width(ftype)
            re_ptr = _vector_ptr(builder, p_re, d0, lanes * tile)
            im_ptr = _vector_ptr(builder, p_im, d0, lanes * tile)

            def segments():
                ptrs = []
                for i in range(lanes):
                    off = builder.load(builder.gep(p_spec, [ir.IntType(64)(i)],
                                                   inbounds=True))
                    ptrs.append(vector_at_amp(builder, base, builder.add(p, off), ftype,
                                              2 * tile))
                _copy(builder, ptrs, re_ptr, im_ptr, lanes, tile, align, to_buffer)

            if tile > 1:
                segments()
                return context.get_dummy_value()
            first = builder.load(builder.gep(p_spec, [ir.IntType(64)(0)], inbounds=True))
            last = builder.load(builder.gep(p_spec, [ir.IntType(64)(lanes - 1)],
                                            inbounds=True))
            # spec[i] == i (the run is R consecutive amplitudes: its qubits are the lowest)
            # exactly when spec[R-1] == R-1, as spec's entries are distinct and ascending
            contiguous = builder.icmp_signed("==", last, last.type(lanes - 1))
            with builder.if_else(contiguous) as (wide, scattered):
                with wide:  # one 2R-float vector
                    start = builder.add(p, first)
                    whole_ptr = vector_at_amp(builder, base, start, ftype, 2 * lanes)
                    _copy(builder, [whole_ptr], re_ptr, im_ptr, lanes, 1, align,
                          to_buffer)
                with scattered:  # R pairs
                    segments()
            return context.get_dummy_value()

        return sig, codegen

    copy.__name__ = f"{'gather' if to_buffer else 'scatter'}_{lanes}x{tile}"
    return copy


def _prefetch(lanes):
    """PREFETCH[R](st, p, spec): ask for the line of each lane's amplitude st[p + spec[l]]
    ahead of its copy, for reading and writing: a chunk's tiles lie far apart in the
    state (their starts are 2**q amplitudes apart for the stage's lowest outer qubit q),
    a stride the hardware prefetchers do not follow far enough."""
    @intrinsic
    def prefetch(typingctx, st, p, spec):
        sig = types.void(st, types.intp, spec)

        def codegen(context, builder, signature, args):
            a = signature.args
            base, ftype, _ = simd.state_pointer(context, builder, a[0], args[0])
            p_spec = _data(context, builder, a[2], args[2])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                "llvm.prefetch.p0")
            for i in range(lanes):
                off = builder.load(builder.gep(p_spec, [ir.IntType(64)(i)], inbounds=True))
                amp = builder.add(args[1], off)
                f = builder.gep(base, [builder.shl(amp, amp.type(1))], inbounds=True)
                builder.call(fn, [builder.bitcast(f, i8p), i32(1), i32(3), i32(1)])
            return context.get_dummy_value()

        return sig, codegen

    prefetch.__name__ = f"prefetch_{lanes}"
    return prefetch


class _Groups:
    """``for`` every group of a gate's runs, emitted into ``builder``: ``with _Groups(b,
    mask, ctrl, groups) as r0`` runs the body with r0 = r | ctrl for each of ``groups``
    run indices r with the bits of ``mask`` (the gate's targets and controls) clear,
    visited in order by carrying through those bits."""

    def __init__(self, builder, mask, ctrl, groups):
        self.b, self.mask, self.ctrl, self.groups = builder, mask, ctrl, groups

    def __enter__(self):
        b, intp = self.b, self.mask.type
        self.run = cgutils.alloca_once_value(b, intp(0))
        self.loop = Loop(b, intp(0), self.groups, 1)
        self.loop.__enter__()
        self.r = b.load(self.run)
        return b.or_(self.r, self.ctrl)

    def __exit__(self, *exc):
        if exc[0] is None:
            b, mask = self.b, self.mask
            b.store(b.and_(b.add(b.or_(self.r, mask), mask.type(1)), b.not_(mask)), self.run)
        return self.loop.__exit__(*exc)


def _dense_in_registers(lanes, k, width, structure=None):
    """DENSE_K[R](re, im, offs, o0, mask, ctrl, groups, m_re, m_im, m0): the dense gate
    of K = 2**k columns, in place with no scratch copy, on every group of its runs: the
    runs r0 + offs[o0 + c] for each of the ``groups`` values r0 = r | ctrl, r running
    over the run indices with the bits of ``mask`` (the gate's targets and controls)
    clear. For each piece of ``width`` lanes the K inputs are loaded into registers, then
    every output row is written (rows read only registers, so writing in place is safe).

    A one- or two-qubit gate's entries (up to 32 broadcast vectors) are read once for
    all groups; a wider gate's 128 or more would not stay in registers, and spilled they
    cost a load each use, as a broadcast from the matrix does: those are read per group,
    each row's sum split into two chains so that rows do not wait on FMA latency.
    ``structure`` (a name in :data:`fusion.STRUCTURES`): the terms that are zero in that
    zero pattern are left out, the matrix still read as K x K."""
    count = 1 << k
    kept = (np.ones((count, count), bool) if structure is None
            else fusion.allowed(structure, count))
    held = k <= 2
    together = 1 if held else 4

    @intrinsic
    def dense(typingctx, re, im, offs, o0, mask, ctrl, groups, m_re, m_im, m0):
        _check("fused dense", (re, im, m_re, m_im))
        sig = types.void(re, im, offs, types.intp, types.intp, types.intp, types.intp,
                         m_re, m_im, types.intp)

        def codegen(context, builder, signature, args):
            a = signature.args
            p_re, p_im, p_offs, pm_re, pm_im = (_data(context, builder, a[j], args[j])
                                                for j in (0, 1, 2, 7, 8))
            o0, mask, ctrl, groups, m0 = (args[j] for j in (3, 4, 5, 6, 9))
            intp = o0.type
            ftype = p_re.type.pointee
            align = float_width(ftype)
            offsets = [builder.mul(builder.load(builder.gep(
                p_offs, [builder.add(o0, intp(c))], inbounds=True)), intp(lanes))
                for c in range(count)]
            rows = [builder.gep(pm, [builder.add(m0, intp(r * count))], inbounds=True)
                    for r in range(count) for pm in (pm_re, pm_im)]

            def row_entries(r):
                return [tuple(_broadcast(builder, builder.load(builder.gep(
                    rows[2 * r + j], [intp(c)], inbounds=True)), width) for j in (0, 1))
                    for c in range(count)]

            entries = [row_entries(r) for r in range(count)] if held else None
            with _Groups(builder, mask, ctrl, groups) as r0:
                first = builder.mul(r0, intp(lanes))
                starts = [builder.add(first, off) for off in offsets]
                for piece in range(lanes // width):
                    at = [builder.add(st, intp(piece * width)) for st in starts]
                    xs = [tuple(builder.load(_vector_ptr(builder, p, i, width), align=align)
                                for p in (p_re, p_im)) for i in at]
                    for first_row in range(0, count, together):
                        block = range(first_row, first_row + together)
                        es = {r: entries[r] if held else row_entries(r) for r in block}
                        accs = dict.fromkeys(block)
                        for c in range(count):  # the rows' chains interleaved
                            for r in block:
                                if kept[r, c]:
                                    accs[r] = _complex_dot(builder, [es[r][c]], [xs[c]],
                                                           accs[r])
                        for r in block:
                            for p, v in zip((p_re, p_im), accs[r]):
                                builder.store(v, _vector_ptr(builder, p, at[r], width),
                                              align=align)
            return context.get_dummy_value()

        return sig, codegen

    dense.__name__ = f"dense{count}_{lanes}" + (f"_{structure}" if structure else "")
    return dense


def _diagonal(lanes, per_lane=False):
    """DIAGONAL[R](re, im, offs, o0, count, mask, ctrl, groups, m_re, m_im, m0): the
    diagonal gate of ``count`` entries on every group of its runs (as in
    :func:`_dense_in_registers`): run r0 + offs[o0 + c] times entry m0 + c, in place.
    ``per_lane``: each entry is a vector of R, m0 + c * R on, one per lane
    (DIAGONAL_LANES, a diagonal gate on qubits inside the run)."""
    @intrinsic
    def diagonal(typingctx, re, im, offs, o0, count, mask, ctrl, groups, m_re, m_im, m0):
        _check("fused diagonal", (re, im, m_re, m_im))
        sig = types.void(re, im, offs, types.intp, types.intp, types.intp, types.intp,
                         types.intp, m_re, m_im, types.intp)

        def codegen(context, builder, signature, args):
            a = signature.args
            p_re, p_im, p_offs, pm_re, pm_im = (_data(context, builder, a[j], args[j])
                                                for j in (0, 1, 2, 8, 9))
            o0, count, mask, ctrl, groups, m0 = (args[j] for j in (3, 4, 5, 6, 7, 10))
            intp = o0.type
            ftype = p_re.type.pointee
            align = float_width(ftype)
            with _Groups(builder, mask, ctrl, groups) as r0:
                with Loop(builder, intp(0), count, 1) as c:
                    off = builder.load(builder.gep(p_offs, [builder.add(o0, c)],
                                                   inbounds=True))
                    at = builder.mul(builder.add(r0, off), intp(lanes))
                    if per_lane:
                        k = builder.add(m0, builder.mul(c, intp(lanes)))
                        entry = tuple(builder.load(_vector_ptr(builder, pm, k, lanes),
                                                   align=align) for pm in (pm_re, pm_im))
                    else:
                        k = builder.add(m0, c)
                        entry = tuple(_broadcast(builder, builder.load(builder.gep(
                            pm, [k], inbounds=True)), lanes) for pm in (pm_re, pm_im))
                    x = tuple(builder.load(_vector_ptr(builder, p, at, lanes), align=align)
                              for p in (p_re, p_im))
                    for p, v in zip((p_re, p_im), _complex_dot(builder, [entry], [x])):
                        builder.store(v, _vector_ptr(builder, p, at, lanes), align=align)
            return context.get_dummy_value()

        return sig, codegen

    diagonal.__name__ = f"diagonal{'_lanes' if per_lane else ''}_{lanes}"
    return diagonal


def _move(lanes):
    """MOVE[R](re, im, offs, o0, cycles, mask, ctrl, groups): a permutation gate (every
    entry 0 or 1: X, CNOT, SWAP, Toffoli and their products) on every group of its runs
    (as in :func:`_dense_in_registers`), as moves with no arithmetic. Its runs that move
    make ``cycles`` cycles: offs[o0 + c] to offs[o0 + c + 1] are the places of cycle c in
    the run offsets from offs[o0 + cycles + 1] on, d_0 ... d_{L-1}, and run d_i takes
    what run d_(i+1) held (d_(L-1) what d_0 held). Runs the gate leaves in place are not
    touched. Each cycle is a sweep over the groups, its offsets read once: a cycle of
    two (every cycle of X, CNOT, SWAP and Toffoli) is an exchange of two runs; a longer
    one carries one run in hand along the cycle."""
    @intrinsic
    def move(typingctx, re, im, offs, o0, cycles, mask, ctrl, groups):
        _check("fused move", (re, im))
        sig = types.void(re, im, offs, types.intp, types.intp, types.intp, types.intp,
                         types.intp)

        def codegen(context, builder, signature, args):
            a = signature.args
            p_re, p_im, p_offs = (_data(context, builder, a[j], args[j]) for j in (0, 1, 2))
            o0, cycles, mask, ctrl, groups = args[3:8]
            intp = o0.type
            align = float_width(p_re.type.pointee)
            places = builder.add(o0, builder.add(cycles, intp(1)))

            def table(i):
                return builder.load(builder.gep(p_offs, [i], inbounds=True))

            def place(i):  # the run offset at place i, in floats
                return builder.mul(table(builder.add(places, i)), intp(lanes))

            def load(at):
                return [builder.load(_vector_ptr(builder, p, at, lanes), align=align)
                        for p in (p_re, p_im)]

            def store(values, at):
                for p, v in zip((p_re, p_im), values):
                    builder.store(v, _vector_ptr(builder, p, at, lanes), align=align)

            with Loop(builder, intp(0), cycles, 1) as c:
                lo = table(builder.add(o0, c))
                hi = table(builder.add(o0, builder.add(c, intp(1))))
                first, second = place(lo), place(builder.add(lo, intp(1)))
                with builder.if_else(builder.icmp_signed("==", builder.sub(hi, lo),
                                                         intp(2))) as (pair, longer):
                    with pair:
                        with _Groups(builder, mask, ctrl, groups) as r0:
                            base = builder.mul(r0, intp(lanes))
                            u, v = builder.add(base, first), builder.add(base, second)
                            x, y = load(u), load(v)
                            store(y, u)
                            store(x, v)
                    with longer:
                        last = builder.sub(hi, intp(1))
                        with _Groups(builder, mask, ctrl, groups) as r0:
                            base = builder.mul(r0, intp(lanes))
                            held = load(builder.add(base, first))
                            with Loop(builder, lo, last, 1) as i:
                                store(load(builder.add(base, place(builder.add(i, intp(1))))),
                                      builder.add(base, place(i)))
                            store(held, builder.add(base, place(last)))
            return context.get_dummy_value()

        return sig, codegen

    move.__name__ = f"move_{lanes}"
    return move


def lane_in_registers(runs, patterns):
    """Whether a lane gate of ``runs`` runs a group and ``patterns`` patterns holds its
    permuted inputs in registers: one, two or four runs, up to 16 inputs."""
    return runs in (1, 2, 4) and runs * patterns <= 16


def _lane_gate(lanes, code):
    """LANE[R, L](re, im, offs, o0, nin, gmask, ctrl, groups, m_re, m_im, m0, s_re,
    s_im): a gate whose targets inside the run are the lane bits L (and that may have
    targets and controls outside it), in place on every group of its ``nin`` runs (as in
    :func:`_dense_in_registers`, with ``gmask`` the carry mask). LANE[R, L | R]: the
    same for a gate that keeps its targets' parity (:func:`..lanes.by_parity`), which
    needs half the terms: output o takes of input i only the patterns of o ^ i's parity;
    it is run only where its inputs stay in registers (up to 16 permuted inputs).

    Lane l of output run o is the sum over input runs i and the P patterns p_j of L
    (:func:`..lanes.patterns`) of M[o, i * P + j][l] * x_i[l ^ p_j]: a constant shuffle
    per pattern, and per-lane matrix vectors (R floats each from m0 on, output o then
    term t) that hold the gate's entries for each lane's own values of its lane qubits,
    and the identity's where a control inside the run is not met (qsim lays its
    in-register gates out the same way). With one run (every target inside the run) the
    matrix is held in registers across the groups; with up to 16 permuted inputs those
    stay in registers; with more they go to the scratch, and the outputs are dot products
    with them, several rows at a time."""
    @intrinsic
    def lane(typingctx, re, im, offs, o0, nin, gmask, ctrl, groups, m_re, m_im, m0, s_re,
             s_im):
        _check("fused lane gate", (re, im, m_re, m_im, s_re, s_im))
        sig = types.void(re, im, offs, types.intp, types.intp, types.intp, types.intp,
                         types.intp, m_re, m_im, types.intp, s_re, s_im)

        def codegen(context, builder, signature, args):
            _LaneGate(context, builder, signature, args, lanes, code).emit()
            return context.get_dummy_value()

        return sig, codegen

    lane.__name__ = f"lane_{lanes}_{code}"
    return lane


class _LaneGate:
    """The code of one LANE[R, L] call (:func:`_lane_gate`)."""

    def __init__(self, context, builder, signature, args, lanes, code):
        a = signature.args
        self.mask, self.parity = code & (lanes - 1), bool(code & lanes)
        self.b, self.lanes, self.pats = builder, lanes, lane_bits.patterns(self.mask)
        (self.re, self.im, self.offs, self.m_re, self.m_im, self.s_re, self.s_im) = (
            _data(context, builder, a[j], args[j]) for j in (0, 1, 2, 8, 9, 11, 12))
        self.o0, self.nin, self.gmask, self.ctrl, self.groups, self.m0 = (
            args[j] for j in (3, 4, 5, 6, 7, 10))
        self.intp = self.o0.type
        ftype = self.re.type.pointee
        self.align = float_width(ftype)
        self.zero = ir.Constant(ir.VectorType(ftype, lanes), [ftype(0.0)] * lanes)
        self.terms = builder.mul(self.nin, self.intp(len(self.pats)))

    def emit(self):
        b, intp, count = self.b, self.intp, len(self.pats)
        # up to 16 permuted inputs stay in registers: a switch over the runs of a group
        small = [r for r in (1, 2, 4) if lane_in_registers(r, count)]
        cases = {r: b.append_basic_block(f"lane.{r}") for r in small}
        many = b.append_basic_block("lane.many")
        done = b.append_basic_block("lane.done")
        switch = b.switch(self.nin, many)
        for r, block in cases.items():
            switch.add_case(intp(r), block)
            b.position_at_end(block)
            self.in_registers(r)
            b.branch(done)
        b.position_at_end(many)
        if self.parity:  # never asked for (split.step): only the cases above
            b.branch(done)
            b.position_at_end(done)
            return
        # two runs: two rows of two chains; four or more: four rows of one
        with b.if_else(b.icmp_signed("==", self.nin, intp(2))) as (two, more):
            with two:
                self.through_scratch(2, min(2, count))
            with more:
                self.through_scratch(4, 1)
        b.branch(done)
        b.position_at_end(done)

    def load(self, ptrs, index):
        return [self.b.load(_vector_ptr(self.b, p, index, self.lanes), align=self.align)
                for p in ptrs]

    def store(self, values, ptrs, index):
        for p, v in zip(ptrs, values):
            self.b.store(v, _vector_ptr(self.b, p, index, self.lanes), align=self.align)

    def run_at(self, r0, k):
        b = self.b
        off = b.load(b.gep(self.offs, [b.add(self.o0, k)], inbounds=True))
        return b.mul(b.add(r0, off), self.intp(self.lanes))

    def entry(self, k):
        """The per-lane matrix vector k (re, im)."""
        b = self.b
        return tuple(self.load((self.m_re, self.m_im),
                               b.add(self.m0, b.mul(k, self.intp(self.lanes)))))

    def permuted(self, x):
        return [x if p == 0 else _lanes(self.b, x, [lane ^ p for lane in range(self.lanes)])
                for p in self.pats]

    def in_registers(self, runs):
        """``runs`` runs a group, their permuted inputs in registers; the matrix held in
        registers too where it is small (one run, up to 4 patterns), else read per
        group."""
        b, intp = self.b, self.intp
        # each output's terms: indices into the permuted inputs xs (input i, pattern j at
        # i * P + j), all of them, or those of the parity of o ^ i
        count = len(self.pats)
        pairs = (lane_bits.parity_terms(self.mask, runs) if self.parity else
                 [[(i, j) for i in range(runs) for j in range(count)]] * runs)
        terms = [[i * count + j for i, j in out] for out in pairs]
        total = len(terms[0])
        # eight chains in flight (two FMA ports, four cycles each) over the outputs' real
        # and imaginary parts, written term by term across the outputs so that they are
        # in flight together; a chain more than that costs an add, and a multiply where
        # a multiply-add would do, so none is shorter than four terms (the core runs the
        # next groups beside a short loop). By llvm-mca (complex64, one target among the
        # lanes, four runs), 72 cycles a group for 64 of FMAs, where four chains an
        # output, output by output, took 89; in a stage in L2 the lane gates on two and
        # four qubits took 1.11-1.21x the gate off the lanes, were 1.32-1.54x
        chains = max(1, min(total // 4, 4 // runs))
        held = None
        if runs == 1 and total <= 4:
            held = [[self.entry(intp(t)) for t in range(total)]]
        with _Groups(b, self.gmask, self.ctrl, self.groups) as r0:
            xs = []
            for i in range(runs):
                x, y = self.load((self.re, self.im), self.run_at(r0, intp(i)))
                xs += list(zip(self.permuted(x), self.permuted(y)))
            accs = [[None] * chains for _ in range(runs)]
            for t in range(total):
                for o in range(runs):
                    m = held[o][t] if held else self.entry(intp(o * total + t))
                    accs[o][t % chains] = _complex_dot(b, [m], [xs[terms[o][t]]],
                                                       accs[o][t % chains])
            for o in range(runs):
                acc = accs[o][0]
                for part in accs[o][1:]:
                    acc = tuple(add(b, u, v) for u, v in zip(acc, part))
                self.store(acc, (self.re, self.im), self.run_at(r0, intp(o)))

    def through_scratch(self, rows, chains):
        """More runs: the permuted inputs to the scratch, then ``rows`` outputs at a
        time, each scratch run loaded once for all of them, each output over ``chains``
        partial sums (rows * chains independent chains)."""
        b, intp, count = self.b, self.intp, len(self.pats)
        scratch = (self.s_re, self.s_im)
        with _Groups(b, self.gmask, self.ctrl, self.groups) as r0:
            with Loop(b, intp(0), self.nin, 1) as i:
                xs = self.load((self.re, self.im), self.run_at(r0, i))
                first = b.mul(i, intp(count))
                for j, v in enumerate(zip(*(self.permuted(x) for x in xs))):
                    self.store(v, scratch, b.mul(b.add(first, intp(j)), intp(self.lanes)))
            with Loop(b, intp(0), self.nin, rows) as o:
                def step(c, accs):
                    out = list(accs)
                    for s in range(chains):
                        t = b.add(b.mul(c, intp(chains)), intp(s))
                        x = self.load(scratch, b.mul(t, intp(self.lanes)))
                        for row in range(rows):
                            m = self.entry(b.add(b.mul(b.add(o, intp(row)), self.terms), t))
                            at = 2 * (row * chains + s)
                            out[at:at + 2] = _complex_dot(b, [m], [x], out[at:at + 2])
                    return out

                accs = simd.carried_loop(b, b.sdiv(self.terms, intp(chains)),
                                         [self.zero] * (2 * rows * chains), step)
                for row in range(rows):
                    part = accs[2 * row * chains:2 * (row + 1) * chains]
                    acc = (part[0], part[1])
                    for s in range(1, chains):
                        acc = (add(b, acc[0], part[2 * s]), add(b, acc[1], part[2 * s + 1]))
                    self.store(acc, (self.re, self.im), self.run_at(r0, b.add(o, intp(row))))


def _block_convert(lanes, split):
    """SPLIT[R](flat, j): block j of the state's floats (amplitudes j * R to j * R + R - 1,
    interleaved) rewritten in place as its R real parts then its R imaginary parts, the
    layout :mod:`.split` holds a state in; JOIN[R] the other way."""
    @intrinsic
    def convert(typingctx, flat, j):
        _check("fused block convert", (flat,))
        sig = types.void(flat, types.intp)

        def codegen(context, builder, signature, args):
            base = _data(context, builder, signature.args[0], args[0])
            intp = args[1].type
            start = builder.mul(args[1], intp(2 * lanes))
            align = float_width(base.type.pointee)
            whole = _vector_ptr(builder, base, start, 2 * lanes)
            re_ptr = _vector_ptr(builder, base, start, lanes)
            im_ptr = _vector_ptr(builder, base, builder.add(start, intp(lanes)), lanes)
            _copy(builder, [whole], re_ptr, im_ptr, lanes, 1, align, split)
            return context.get_dummy_value()

        return sig, codegen

    convert.__name__ = f"{'split' if split else 'join'}_{lanes}"
    return convert


def _complex_dot(builder, entries, xs, start=None):
    """sum over c of entries[c] * xs[c] for split complex vectors (added to ``start``, a
    (re, im) pair, where given), as two multiply-adds per term on each accumulator (re +=
    a x - b y, im += a y + b x), so that LLVM emits FMAs."""
    f = ("contract",)
    acc_re, acc_im = start if start is not None else (None, None)
    for (mr, mi), (x, y) in zip(entries, xs):
        if acc_re is None:
            acc_re, acc_im = builder.fmul(mr, x, flags=f), builder.fmul(mr, y, flags=f)
        else:
            acc_re = add(builder, acc_re, builder.fmul(mr, x, flags=f))
            acc_im = add(builder, acc_im, builder.fmul(mr, y, flags=f))
        acc_re = sub(builder, acc_re, builder.fmul(mi, y, flags=f))
        acc_im = add(builder, acc_im, builder.fmul(mi, x, flags=f))
    return acc_re, acc_im


#: Register pieces: a whole run where the host has 32 vector registers (AVX-512); with 16
#: (AVX2), half a run where that is one register (32 bytes), else a run, so that a
#: two-qubit gate's inputs and outputs stay in registers. Whole runs on AVX-512 took a
#: two-qubit gate in a stage from 0.84 to 0.64 ns per amplitude in complex128 (0.42 to
#: 0.31 in complex64; 2-core Xeon, one thread, state in L2).
def _piece(lanes):
    return lanes if isa() == "avx512" or lanes < 8 else lanes // 2


#: Columns of the dense gates the stages run: 2 to 2**MAX_QUBITS (a program refuses
#: wider gates).
COLUMNS = tuple(1 << k for k in range(1, MAX_QUBITS + 1))
#: Those whose inputs stay in registers (:func:`_dense_in_registers`): a three-qubit
#: gate's 16 input vectors where the host has 32 registers (AVX-512), with at most two
#: qubits where it has 16. The rest go through the scratch (LOAD_RUNS, then ROWS). In
#: registers, a three-qubit gate in a stage went from 1.45 to 0.96 ns per amplitude in
#: complex128 (2-core Xeon, AVX-512, one thread, the chunk in L2, both with
#: :func:`program.staggered` buffers).
IN_REGISTERS = (2, 4, 8) if isa() == "avx512" else (2, 4)
DENSE = {(r, c): _dense_in_registers(r, c.bit_length() - 1, _piece(r))
         for r in RUN_LENGTHS for c in IN_REGISTERS}
#: The op kind of each dense kernel a stage loop runs (:func:`dense_dispatch`): 0 with
#: every entry, and one per zero pattern it skips (fusion.STRUCTURES), in registers, for
#: gates of two and three qubits (STRUCTURED_COLUMNS); numbered past the other kinds of
#: both layouts' ops (stages: 0-1, split: 0-4).
DENSE_KINDS = {None: 0, "conserving": 5, "parity": 6}
STRUCTURED_COLUMNS = tuple(c for c in IN_REGISTERS if c > 2)
STRUCTURED = {(r, c, s): _dense_in_registers(r, c.bit_length() - 1, _piece(r), s)
              for r in RUN_LENGTHS for c in STRUCTURED_COLUMNS for s in fusion.STRUCTURES}
LOAD_RUNS = {(r, c): _load_runs(r, c) for r in RUN_LENGTHS for c in COLUMNS
             if c not in IN_REGISTERS}
ROWS = {(r, c): _rows(r, c) for r, c in LOAD_RUNS}


def dense_dispatch(re, im):
    """The lines of a stage loop that apply a dense gate (``kind`` 0, ``K`` columns) to
    the split arrays ``re`` and ``im``, per width: DENSE_K in registers, or through the
    scratch a group of runs at a time (the names, ``DENSE_8`` ..., are the caller's to
    bind: :func:`dense_names`). The first line is an ``if``; the caller continues the
    chain with ``elif`` for its other kinds."""
    lines = []
    for i, c in enumerate(COLUMNS):
        lines.append(f"{'if' if i == 0 else 'elif'} kind == 0 and K == {c}:")
        if c in IN_REGISTERS:
            lines.append(f"    DENSE_{c}({re}, {im}, offs, oo, mask, ctrl, groups, m_re, m_im, "
                         "m0)")
            continue
        lines += ["    r = 0",
                  "    for g in range(groups):",
                  "        r0 = r | ctrl",
                  f"        LOAD_RUNS_{c}({re}, {im}, offs, oo, r0, sre, sim)",
                  f"        for row in range(0, {c}, {ROW_BLOCK}):",
                  f"            ROWS_{c}(sre, sim, m_re, m_im, m0 + row * {c}, {re}, {im}, "
                  "offs, oo + row, r0)",
                  "        r = ((r | mask) + 1) & ~mask"]
    for s in fusion.STRUCTURES:
        for c in STRUCTURED_COLUMNS:
            lines += [f"elif kind == {DENSE_KINDS[s]} and K == {c}:",
                      f"    DENSE_{s.upper()}_{c}({re}, {im}, offs, oo, mask, ctrl, groups, "
                      "m_re, m_im, m0)"]
    return lines


def dense_names(lanes):
    """{name in :func:`dense_dispatch`'s lines: the expression of its intrinsic} for runs
    of ``lanes``."""
    names = {f"DENSE_{c}": f"simd.DENSE[{lanes}, {c}]" for c in IN_REGISTERS}
    names.update({f"DENSE_{s.upper()}_{c}": f"simd.STRUCTURED[{lanes}, {c}, {s!r}]"
                  for c in STRUCTURED_COLUMNS for s in fusion.STRUCTURES})
    for kind in ("LOAD_RUNS", "ROWS"):
        names.update({f"{kind}_{c}": f"simd.{kind}[{lanes}, {c}]"
                      for r, c in LOAD_RUNS if r == lanes})
    return names


#: log2 of the most runs a chunk copy moves at once: 8, a cache line of complex64.
TILE_BITS = 3
#: Tiles of consecutive runs a lane copies at once (:func:`stages.tables`).
TILES = tuple(1 << j for j in range(TILE_BITS + 1))
GATHER = {(r, t): _run_copy(r, t, True) for r in RUN_LENGTHS for t in TILES}
SCATTER = {(r, t): _run_copy(r, t, False) for r in RUN_LENGTHS for t in TILES}
PREFETCH = {r: _prefetch(r) for r in RUN_LENGTHS}
DIAGONAL = {r: _diagonal(r) for r in RUN_LENGTHS}
#: The split layout's runs (:mod:`.split`): one vector register's floats, 8 or 16.
BLOCK_RUNS = (8, 16)
DIAGONAL_LANES = {r: _diagonal(r, per_lane=True) for r in BLOCK_RUNS}
MOVE = {r: _move(r) for r in BLOCK_RUNS}
#: LANE[R, L]: one per set L of targets inside the run (0: controls only).
#: LANE[R, L] for every lane mask L, and LANE[R, L | R] keeping parity for each L > 0
LANE = {(r, c): _lane_gate(r, c) for r in BLOCK_RUNS for c in range(2 * r) if c != r}
SPLIT = {r: _block_convert(r, True) for r in BLOCK_RUNS}
JOIN = {r: _block_convert(r, False) for r in BLOCK_RUNS}


def source_digest():
    """A digest of this file, embedded in the generated stage loops (see
    :func:`simd.source_digest`)."""
    return hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
