"""Reverse mode nested in other differentiations (kernels.ad.reverse).

Forward over reverse works: a forward Dual given to ``reverse.gradient`` becomes a leaf's
value, the tape computes on Duals (each operation and each vjp is numpy code, which forward
mode differentiates through the one rule table), and the gradient comes back as Duals, whose
partials are the Hessian's columns (``reverse.hessian``). The order matters: a Variable may
hold a Dual, never the other way round (forward mode hands a Variable operand back to it).

Reverse over reverse is refused: an inner gradient's backward sweep would reach the
Variables of the outer one and return plain arrays, and the outer sweep would then see the
inner gradient as a constant: a wrong number without a word. The Variables of every
gradient in progress are numbered from its start (``ACTIVE``), so an inner sweep that
reaches one of an outer gradient raises instead.
"""

#: the first Variable number of each reverse.gradient / jacobian in progress, outermost first
#: (one list for the process, like kernels.ad._arrays' swap of numpy's constructors: with
#: gradients in several threads at once, one may be refused as nested when it is not, and a
#: nesting in one thread may go unseen while another thread's gradient ends)
ACTIVE = []


def check_leaves(found, start):
    """Refuse a backward sweep (``found``: leaf number -> (leaf, cotangent)) of the gradient
    that started at ``start`` which reached a Variable of an enclosing gradient (called once
    this gradient's own entry has left ``ACTIVE``)."""
    if ACTIVE:
        check_leaves_of(found, start, ACTIVE[0])


def check_leaves_of(found, start, outer=None):
    """As check_leaves, while this gradient's own entry is still the last of ``ACTIVE``."""
    if outer is None:
        if len(ACTIVE) < 2:
            return
        outer = ACTIVE[0]
    for seq in found:
        if outer <= seq < start:
            raise TypeError(
                "reverse mode inside reverse mode: f uses a Variable of an enclosing "
                "reverse-mode gradient, whose derivative would be lost; nesting reverse mode "
                "inside reverse mode is not supported (use reverse.hessian, forward over "
                "reverse)")
