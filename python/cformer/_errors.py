"""cformer's exceptions: one class per library status (cformer_status)."""

import enum


class Status(enum.IntEnum):
    """The library's status codes (cformer_status)."""

    OK = 0
    ARG = 1
    IO = 2
    FORMAT = 3
    UNSUPPORTED = 4
    NOMEM = 5
    BACKEND = 6
    INTERNAL = 7


class Error(Exception):
    """An error reported by libcformer. ``str(e)`` and ``e.message`` are the
    library's one-line message; ``e.status`` is its :class:`Status`."""

    status = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self):
        return self.message


class ArgumentError(Error, ValueError):
    """A bad argument: FEN, move, option, agent, backend name."""

    status = Status.ARG


class FileError(Error, OSError):
    """A file could not be opened or read."""

    status = Status.IO


class FormatError(Error):
    """A weights file (or buffer) is malformed."""

    status = Status.FORMAT


class UnsupportedError(Error):
    """A well-formed network that cformer does not run."""

    status = Status.UNSUPPORTED


class OutOfMemoryError(Error, MemoryError):
    """Out of memory, or a size limit exceeded."""

    status = Status.NOMEM


class BackendError(Error):
    """A compute backend failed or is not available here."""

    status = Status.BACKEND


class InternalError(Error):
    """A bug in cformer."""

    status = Status.INTERNAL


_BY_STATUS = {cls.status: cls for cls in (ArgumentError, FileError, FormatError,
                                          UnsupportedError, OutOfMemoryError, BackendError,
                                          InternalError)}


def from_status(status, message):
    """The exception for a failed call's status and message."""
    try:
        status = Status(status)
    except ValueError:
        pass
    cls = _BY_STATUS.get(status, Error)
    exc = cls(message)
    exc.status = status
    return exc
