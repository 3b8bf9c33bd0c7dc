"""The one place ``sqlite3`` exceptions become :mod:`ryvem.errors`, by SQLite result code.

SQLite reports a primary result code (the low byte) and an extended one on every error
(``sqlite3.Error.sqlite_errorcode``, Python 3.11+). :data:`BY_PRIMARY_CODE` maps the primary
codes to ryvem's hierarchy; exceptions raised by the ``sqlite3`` module itself (a closed
connection, a bad parameter) carry no code and map by type. Messages are one line a person
can act on, and name the store.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ryvem import errors

__all__ = ["BY_PRIMARY_CODE", "from_os_error", "from_sqlite", "is_busy", "unwritable"]

SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_CONSTRAINT = 19
SQLITE_NOTADB = 26


def _constraint(msg: str, where: str) -> errors.RyvemError:
    # Which invariant: the index named in SQLite's message ("UNIQUE constraint failed: …").
    if "nodes.kind, nodes.key, nodes.scope" in msg or "nodes_one_current" in msg:
        return errors.IntegrityError(
            "the store refused a second current version of one (kind, key, scope)"
        )
    if "edges.src, edges.dst, edges.rel" in msg or "edges_one_current" in msg:
        return errors.IntegrityError("the store refused a second current edge (from, to, rel)")
    return errors.IntegrityError(f"the store refused the write: {msg}")


def _read_only(msg: str, where: str) -> errors.RyvemError:
    return errors.StoreReadOnly(
        f"cannot write {where}: the database is read-only (check the permissions of the "
        "file, its folder and the mount); nothing was written"
    )


def _full(msg: str, where: str) -> errors.RyvemError:
    return errors.StoreFull(
        f"{where} is full: no room left for the write (disk full or size limit reached); "
        "nothing was written"
    )


def _io(msg: str, where: str) -> errors.RyvemError:
    return errors.OperationalError(
        f"{where}: disk I/O error (is the disk full, the file too large, or the disk "
        "failing?); the transaction was rolled back"
    )


def _busy(msg: str, where: str) -> errors.RyvemError:
    return errors.OperationalError(f"{where} is busy (locked by another writer): {msg}")


def _unopenable(msg: str, where: str) -> errors.RyvemError:
    return errors.BackendUnavailable(f"cannot open {where}: {msg}")


BY_PRIMARY_CODE: dict[int, Callable[[str, str], errors.RyvemError]] = {
    SQLITE_CONSTRAINT: _constraint,
    SQLITE_READONLY: _read_only,
    SQLITE_FULL: _full,
    SQLITE_IOERR: _io,
    SQLITE_BUSY: _busy,
    SQLITE_LOCKED: _busy,
    SQLITE_CANTOPEN: _unopenable,
    SQLITE_NOTADB: _unopenable,
    SQLITE_CORRUPT: _unopenable,
}
"""SQLite primary result code → the ryvem error it means (message from SQLite's text)."""


def _primary(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def from_sqlite(exc: sqlite3.Error, where: str) -> errors.RyvemError:
    """The ryvem error for a ``sqlite3`` exception (use as ``raise from_sqlite(e, w) from e``)."""
    msg = " ".join(str(exc).split())
    code = _primary(exc)
    make = BY_PRIMARY_CODE.get(code) if code is not None else None
    if make is not None:
        return make(msg, where)
    if isinstance(exc, sqlite3.IntegrityError):
        return _constraint(msg, where)
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
