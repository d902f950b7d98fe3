"""``python -m harness tune``: this machine's constants for the kernels and the fused
planner, measured and cached (kernels.statevector.tuning), and the roofline's limits."""
