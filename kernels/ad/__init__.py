"""Reference AD engines sharing one derivative-rule table (:mod:`kernels.ad.rules`).

``ENGINES`` maps a name to an engine module; every engine has
``gradient(f, *args, **options) -> tuple`` for a scalar-valued plain-numpy ``f`` and
``jacobian(f, x, **options)`` for an array-valued one of one float array (see
docs/architecture.md, "AD engines").

The table is filled here, as autograd's ``numpy`` package does: the machinery
(:mod:`.rules`) first, then each rule family registers its rules, then the engines, which
read the table at import (``from kernels.ad import rules`` runs this file first, so the
table is always complete).
"""

from . import rules  # noqa: F401, I001 - the machinery before the families using it
from . import _rules_elementwise, _rules_fft, _rules_join, _rules_linalg  # noqa: F401
from . import _rules_products, _rules_reduce, _rules_series, _rules_shape  # noqa: F401
from . import _rules_nan  # noqa: F401 - after reduce and shape, whose rules it reuses
from . import _namespace  # noqa: F401 - the rest of the namespace: plain or refused
from . import finite, forward, reverse, source  # noqa: E402

#: name -> engine module, each declaring itself (``BACKEND``, kernels.ad.backend).
ENGINES = {module.BACKEND.name: module for module in (forward, reverse, source, finite)}
