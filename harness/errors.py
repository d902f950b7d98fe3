"""The two ways a benchmark refuses to time something, shared by every family."""


class ValidationError(AssertionError):
    """A backend's result differs from the reference: the benchmark fails, untimed."""


class Unavailable(NotImplementedError):
    """This backend cannot run here (tool missing, no GPU, case not handled): asv skips
    the combination, with this as the reason."""
