"""Reference AD engines sharing one derivative-rule table (:mod:`kernels.ad.rules`).

``ENGINES`` maps a name to an engine module; every engine has
``gradient(f, *args, **options) -> tuple`` for a scalar-valued plain-numpy ``f`` and
``jacobian(f, x, **options)`` for an array-valued one of one float array (see
docs/architecture.md, "AD engines").

The table is complete once :mod:`.rules` is imported (its package registers every family,
as autograd's ``numpy`` package does); the engines, which read it at import, come after
it.
"""

from . import rules  # noqa: F401, I001 - the complete table before the engines read it
from . import compiled, finite, forward, reverse, source

#: name -> engine module, each declaring itself (``BACKEND``, kernels.ad.backend).
ENGINES = {module.BACKEND.name: module
           for module in (forward, reverse, source, compiled, finite)}
