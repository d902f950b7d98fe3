"""The AD adapters: one module per external AD tool (``torch_ad.py``, ...), on the shared
base :mod:`._base` (input checks, the prepared-call object, the contract form of a
gradient, the declaration the registry reads); :mod:`._translate` runs a problem written
for numpy on a tool's numpy; an AD tool's circuit gradients live in
``_<tool>_gradients.py``, on the constant arrays of :mod:`._circuit_plan`.
"""
