"""The benchmark harness: validation, asv suites (``benchmarks/``), and ``python -m harness``."""
