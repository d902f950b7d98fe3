"""Reverse mode nested in other differentiations (kernels.ad.reverse).

Forward over reverse works: a forward Dual given to ``reverse.gradient`` becomes a leaf's
value, the tape computes on Duals (each operation and each vjp is numpy code, which forward
mode differentiates through the one rule table), and the gradient comes back as Duals, whose
partials are the Hessian's columns (``reverse.hessian``). The order matters: a Variable may
hold a Dual, never the other way round (forward mode hands a Variable operand back to it).

Reverse over reverse is refused: an inner gradient's backward sweep would reach the
Variables of the outer one and return plain arrays, and the outer sweep would then see the
inner gradient as a constant: a wrong number without a word. The Variables of every
gradient in progress are numbered from its start (:func:`active`), so an inner sweep that
reaches one of an outer gradient raises instead.
"""

import threading

from ..errors import NestingError

_local = threading.local()


def active():
    """This thread's record: the first Variable number of each reverse.gradient / jacobian in
    progress, outermost first (per thread, so that gradients in other threads neither
    look nested nor hide a nesting)."""
    try:
        return _local.active
    except AttributeError:
        _local.active = []
        return _local.active


def check_leaves(found, start):
    """Refuse a backward sweep (``found``: leaf number -> (leaf, cotangent)) of the gradient
    that started at ``start`` which reached a Variable of an enclosing gradient (called once
    this gradient's own entry has left :func:`active`)."""
    stack = active()
    if stack:
        check_leaves_of(found, start, stack[0])


def check_leaves_of(found, start, outer=None):
    """As check_leaves, while this gradient's own entry is still the last of :func:`active`."""
    if outer is None:
        stack = active()
        if len(stack) < 2:
            return
        outer = stack[0]
    for seq in found:
        if outer <= seq < start:
            raise NestingError(
                "reverse mode inside reverse mode: f uses a Variable of an enclosing "
                "reverse-mode gradient, whose derivative would be lost; nesting reverse mode "
                "inside reverse mode is not supported (use reverse.hessian, forward over "
                "reverse)")
