"""Gradients of variational circuits in the harness: the backends (our methods and the
adapters' circuit gradients) behind one runner, and their validation before timing."""
