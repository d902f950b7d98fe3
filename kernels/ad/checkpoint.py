"""``checkpoint(fn)``: a function whose intermediates the source engine does not keep for
the backward pass; it runs ``fn`` again there, from the arguments (``jax.checkpoint``,
``torch.utils.checkpoint``, Zygote's ``checkpointed``). Memory for time: one more run of
``fn`` per gradient, and of ``fn``'s intermediates only one call's at a time.

A loop whose body is a checkpointed step keeps one state per iteration instead of every
value the step's adjoint reads (gradbench's ode: one state per step instead of four
stage inputs). The source engine checks that the second run gives the value the first
gave, bit for bit, and raises :class:`CheckpointError` if not: ``fn`` must be a
deterministic function of its arguments.

Every other engine and peer calls ``fn`` as it is: forward mode, finite differences and a
peer's own tracing see through the wrapper, and reverse mode records ``fn``'s operations
on its tape as usual (which keeps only what their vjps read). Recomputing there would
need a tape inside the backward sweep, and a ``fn`` that closes over a Variable would
then lose that Variable's cotangent; the source engine cannot meet that case, since a
function it transforms cannot close over a differentiated value.
"""

import functools


class CheckpointError(ValueError):
    """A checkpointed function gave another value when run again in the backward pass."""


def checkpoint(fn):
    """``fn`` marked to be run again in the source engine's backward pass rather than have
    its intermediates kept; elsewhere, ``fn`` itself."""

    @functools.wraps(fn)
    def checkpointed(*args, **kwargs):
        return fn(*args, **kwargs)

    checkpointed.__ad_checkpoint__ = fn
    return checkpointed
