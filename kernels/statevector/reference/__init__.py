"""The kernels every other one is held to: ``naive`` (the dense operator, the oracle) and
``subspace`` (bit-subspace gathers with numpy, any element type)."""
