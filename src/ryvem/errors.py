"""Every error ryvem raises on purpose.

The hierarchy, named after PEP 249 where the idea is the same::

    RyvemError
     ├── InvalidInput            bad kind, rel, scope, key, title, data, date, …    (exit 2)
     │    └── AmbiguousRef       a bare key naming several current nodes            (exit 2)
     ├── NotFound                no node or edge answers to the reference           (exit 1)
     ├── Conflict                the request contradicts the stored state (retiring a
     │                           closed row, a concurrent writer won the race)      (exit 1)
     └── BackendError            the store could not do what was asked              (exit 1)
          ├── OperationalError   the store is there but refuses for now
          │    ├── BackendUnavailable   server unreachable, file cannot be opened
          │    │    └── StoreDamaged    the file is damaged (or not a database at all)
          │    ├── StoreReadOnly        the file, folder or database is read-only
          │    ├── StoreFull            no room left (disk full, max_page_count)
          │    └── CleanupIncomplete    a redaction or purge is committed and audited,
          │                             but cleaning the store's files failed
          └── IntegrityError     the store itself rejected a write that would break an
                                 invariant (e.g. a second current row for one identity)

Adapters translate their driver's exceptions into these in one place each
(``raise … from e``); nothing above the adapters ever sees ``sqlite3`` or ``neo4j`` errors.
Every message is one line a person can act on.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousRef",
    "BackendError",
    "BackendUnavailable",
    "CleanupIncomplete",
    "Conflict",
    "IntegrityError",
    "InvalidInput",
    "NotFound",
    "OperationalError",
    "RyvemError",
    "StoreDamaged",
    "StoreFull",
    "StoreReadOnly",
]


class RyvemError(Exception):
    """Base of every error ryvem raises on purpose."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        # One line, always: a multi-line driver message would break "one clear line".
        super().__init__(" ".join(str(message).split()))

    @property
    def message(self) -> str:
        return str(self)


class InvalidInput(RyvemError):
    """The caller asked for something malformed; nothing was written."""

    exit_code = 2


class AmbiguousRef(InvalidInput):
    """A reference matched more than one current node."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class NotFound(RyvemError):
    """No node or edge answers to the reference."""


class Conflict(RyvemError):
    """The request contradicts the stored state."""


class BackendError(RyvemError):
    """The store could not do what was asked."""


class OperationalError(BackendError):
    """The store is there but refuses for now."""


class BackendUnavailable(OperationalError):
    """The server cannot be reached or the file cannot be opened."""


class StoreDamaged(BackendUnavailable):
    """The store's file is damaged (a malformed page, an unreadable schema) or is not a
    database at all: the message names the file and says to restore it from a backup."""


class StoreReadOnly(OperationalError):
    """The store can be read but not written."""


class StoreFull(OperationalError):
    """The store has no room left for the write."""


class CleanupIncomplete(OperationalError):
    """A redaction or purge was committed and audited, but removing the old text from the
    store's files afterwards failed: the message says both (never "nothing was written")."""


class IntegrityError(BackendError):
    """The store rejected a write that would break one of its invariants."""
