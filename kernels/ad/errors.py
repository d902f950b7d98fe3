"""The errors every engine raises when it refuses something, in one place (so that a
rule family, an engine and the user can import them without importing each other)."""


class MissingRuleError(NotImplementedError):
    """An operation reached an engine without a derivative rule (or with an option its rule
    does not differentiate); the message names the function, and the keyword if one is
    the reason."""


class EscapeError(TypeError):
    """A traced value was about to become a plain number, losing its derivative."""


class NestingError(TypeError):
    """An engine met a traced value of an enclosing differentiation it cannot nest inside
    (reverse inside reverse, forward inside reverse): refused by name, never a wrong
    number. A TypeError, as the engines' other refusals of an argument."""
