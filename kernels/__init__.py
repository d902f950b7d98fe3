"""Reference implementations: state-vector simulator kernels and AD engines."""
