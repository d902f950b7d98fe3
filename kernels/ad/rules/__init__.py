"""The one derivative-rule table every engine reads (a DiffRules/ChainRules analog).

``RULES`` maps a function object (``np.sin``, ``np.matmul``, ``operator.mul``, ...) to a
:class:`Rule` holding both directions of its derivative:

* ``vjps[i](g, ans, *args, **kwargs)``: the cotangent of positional argument ``i`` given the
  output's cotangent ``g`` (reverse mode). It may still have the output's broadcast shape:
  engines pass it through :func:`accumulate`, which reduces it to the argument's shape. An
  entry of None marks an argument that is not differentiable (an index, an axis).
* ``jvp(tangents, ans, *args, **kwargs)``: the output's tangent (forward mode). Tangents are
  *batched*: each is None (a constant argument) or an array of shape ``(chunk,) +
  np.shape(arg)``, one direction per row, so a chunk of partials costs one numpy call per
  operation. The result has shape ``(chunk,) + np.shape(ans)``.

Rules are registered one per line through two helpers:

* :func:`defpartials` for elementwise functions, from each argument's local partial
  derivative ``d(ans, *args)``; both directions are derived from it, so forward and reverse
  mode cannot disagree about the maths;
* :func:`defrule` for everything else (reductions, products, indexing), a vjp per argument
  and a batched jvp.

Users extend the table the same way (docs/ad.md, "Adding a rule"); :func:`primitive`
makes a user's own Python function a primitive with its own rule.

The package: :mod:`.table` holds the registry and its helpers, the one table of operators,
array methods and attributes, and the canonical forms; one module per family registers
its rules (as autograd's ``numpy_vjps`` does): :mod:`.elementwise`, :mod:`.reduce`,
:mod:`.nan`, :mod:`.shape`, :mod:`.join`, :mod:`.products`, :mod:`.series`,
:mod:`.linalg`, :mod:`.fft`, and :mod:`.scipy` (registered once the user imports
scipy.special); :mod:`.namespace` places the rest of numpy's public namespace (plain
values, constructors, refusals with their reasons). Each family imports only the table;
this module imports the table, then the families, so the table is complete once
``kernels.ad.rules`` is imported.
"""

from .table import *  # noqa: F403 - the table's API is the package's
from .table import _name  # noqa: F401 - what coverage and refusals print

# isort: split
# the families, in the order they build on each other
from . import elementwise, fft, join, linalg, products, reduce, series, shape  # noqa: F401

# isort: split
from . import nan  # noqa: F401 - after reduce and shape, whose rules it reuses

# isort: split
from . import namespace  # noqa: F401 - the rest of the namespace: plain or refused
