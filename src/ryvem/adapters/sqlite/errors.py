"""The one place ``sqlite3`` exceptions become :mod:`ryvem.errors`, by SQLite result code.

SQLite reports a primary result code (the low byte) and an extended one on every error
(``sqlite3.Error.sqlite_errorcode``, Python 3.11+). :data:`BY_PRIMARY_CODE` maps the primary
codes to ryvem's hierarchy; exceptions raised by the ``sqlite3`` module itself (a closed
connection, a bad parameter) carry no code and map by type. Messages are one line a person
can act on, and name the store.

One driver fault is not a ``sqlite3.Error``: when SQLite's message is not UTF-8 — it names a
schema object read from a damaged file, "malformed database schema (\\xff…)" — the module
raises :class:`UnicodeDecodeError` in place of the ``DatabaseError`` (:data:`DRIVER_ERRORS`
lists both; :func:`from_sqlite` maps it as the damage it reports).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ryvem import errors

__all__ = [
    "BY_PRIMARY_CODE",
    "DRIVER_ERRORS",
    "from_os_error",
    "from_sqlite",
    "is_busy",
    "unwritable",
]

SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_CONSTRAINT = 19
SQLITE_NOTADB = 26

DRIVER_ERRORS = (sqlite3.Error, UnicodeDecodeError)
"""What a call into the ``sqlite3`` driver raises for a fault of the store (see above)."""

NOTHING_WRITTEN = "nothing was written"
"""What a failed transaction left: it was rolled back whole (:func:`from_sqlite`'s default)."""

_RESTORE = (
    "restore it from a backup, after moving the damaged file and its -wal and -shm files "
    "aside"  # a backup restored beside the damaged file's -wal would be damaged by it
)


def _then(outcome: str | None) -> str:
    return f"; {outcome}" if outcome else ""


def _constraint(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    # Which invariant: the index named in SQLite's message ("UNIQUE constraint failed: …").
    if "nodes.kind, nodes.key, nodes.scope" in msg or "nodes_one_current" in msg:
        return errors.IntegrityError(
            "the store refused a second current version of one (kind, key, scope)"
        )
    if "edges.src, edges.dst, edges.rel" in msg or "edges_one_current" in msg:
        return errors.IntegrityError("the store refused a second current edge (from, to, rel)")
    return errors.IntegrityError(f"the store refused the write: {msg}")


def _read_only(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.StoreReadOnly(
        f"cannot write {where}: the database is read-only (check the permissions of the "
        f"file, its folder and the mount){_then(outcome)}"
    )


def _full(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.StoreFull(
        f"{where} is full: no room left for the write (disk full or size limit "
        f"reached){_then(outcome)}"
    )


def _io(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.OperationalError(
        f"{where}: disk I/O error (is the disk full, the file too large, or the disk "
        f"failing?){_then(outcome)}"
    )


def _busy(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.OperationalError(f"{where} is busy (locked by another writer): {msg}")


def _unopenable(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.BackendUnavailable(f"cannot open {where}: {msg}")


def _damaged(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.StoreDamaged(f"{where} is damaged ({msg}); ryvem cannot use it: {_RESTORE}")


def _not_a_database(msg: str, where: str, outcome: str | None) -> errors.RyvemError:
    return errors.StoreDamaged(
        f"{where} is not a SQLite database, or its header is damaged: check the path; if it "
        f"is your ryvem store, {_RESTORE}"
    )


BY_PRIMARY_CODE: dict[int, Callable[[str, str, str | None], errors.RyvemError]] = {
    SQLITE_CONSTRAINT: _constraint,
    SQLITE_READONLY: _read_only,
    SQLITE_FULL: _full,
    SQLITE_IOERR: _io,
    SQLITE_BUSY: _busy,
    SQLITE_LOCKED: _busy,
    SQLITE_CANTOPEN: _unopenable,
    SQLITE_NOTADB: _not_a_database,
    SQLITE_CORRUPT: _damaged,
}
"""SQLite primary result code → the ryvem error it means (message from SQLite's text, where
the store is, and what the failure left of the write, ``outcome``)."""


def _primary(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def from_sqlite(
    exc: sqlite3.Error | UnicodeDecodeError, where: str, *,
    outcome: str | None = NOTHING_WRITTEN,
) -> errors.RyvemError:
    """The ryvem error for a driver exception (use as ``raise from_sqlite(e, w) from e``).

    ``outcome`` is what the failure left, said after the cause: a failed transaction wrote
    nothing (the default); a step after a commit (cleaning the files) passes None, since
    what it follows was written."""
    if isinstance(exc, UnicodeDecodeError):  # SQLite's message, naming damaged schema bytes
        raw = exc.object if isinstance(exc.object, bytes) else b""
        return _damaged(" ".join(raw.decode("utf-8", "replace").split()), where, outcome)
    msg = " ".join(str(exc).split())
    code = _primary(exc)
    make = BY_PRIMARY_CODE.get(code) if code is not None else None
    if make is not None:
        return make(msg, where, outcome)
    if isinstance(exc, sqlite3.IntegrityError):
        return _constraint(msg, where, outcome)
    return errors.OperationalError(f"{where}: {msg}")


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds the lock: worth retrying."""
    return _primary(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def from_os_error(exc: OSError, where: str) -> errors.RyvemError:
    """Creating the store's folder or file failed (before SQLite was involved)."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return errors.StoreReadOnly(
            f"cannot create {where}: its folder is read-only ({reason}); nothing was written"
        )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return errors.StoreFull(f"cannot create {where}: {reason}")
    return errors.BackendUnavailable(f"cannot open {where}: {reason}")


def unwritable(path: Path) -> str | None:
    """Why this process cannot write the existing database at ``path``; None if it can."""
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return "its folder is read-only (SQLite needs to create -wal and -shm files there)"
    return None
