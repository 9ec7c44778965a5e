"""Errors raised by the design model when an edit would break an invariant."""


class DesignError(Exception):
    """Base class of every error the designer reports to a user.

    The message is one line that says what is wrong and, where possible, what to do.
    """


class ModelError(DesignError):
    """An edit of the design model would break one of its invariants."""


class DuplicateIdError(ModelError):
    """An id is already used by another object of the same kind."""


class UnknownIdError(ModelError):
    """A device, link, port or group id does not exist."""


class PortInUseError(ModelError):
    """A port already holds a link (a port holds exactly one link)."""


class SelfLinkError(ModelError):
    """A link would join a device to itself."""


class InvalidValueError(ModelError):
    """A value is out of its domain (negative length, NaN speed, unknown medium...)."""
