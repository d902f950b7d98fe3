"""Reference AD engines sharing one derivative-rule table (:mod:`kernels.ad.rules`).

``ENGINES`` maps a name to an engine module; every engine has
``gradient(f, *args, **options) -> tuple`` for a scalar-valued plain-numpy ``f`` and
``jacobian(f, x, **options)`` for an array-valued one of one float array (see README.md,
"AD engines").
"""

from . import finite, forward, reverse, rules, source  # noqa: F401 - rules: kernels.ad.rules

ENGINES = {
    "forward": forward,
    "reverse": reverse,
    "source": source,
    "finite": finite,
}
