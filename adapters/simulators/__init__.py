"""The simulator adapters: one module per external simulator (``qulacs_sim.py``, ...),
each holding only what is that tool's (its state, its gates, its program, its run), on
the shared base :mod:`._base` (the input contract, the program object, the kernel
signature, gate/circuit made from the tool's build, the declaration the registry reads).
A tool's circuit gradients live in a private module of its own, ``_<tool>_gradients.py``.
"""
