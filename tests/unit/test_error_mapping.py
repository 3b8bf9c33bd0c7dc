"""Each adapter maps its driver's errors into ryvem.errors by code and type, in one table.

The SQLite cases provoke the real error on a real file wherever SQLite can be made to raise
it here; the table test covers every entry, including codes (I/O errors) that a test cannot
provoke safely. The Neo4j cases that need a server live in tests/integration/test_neo4j_errors.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import exceptions as nx

from ryvem import errors
from ryvem.adapters.neo4j.errors import BY_CODE, BY_TYPE, from_driver
from ryvem.adapters.sqlite.errors import BY_PRIMARY_CODE, from_sqlite, is_busy


def raised(conn: sqlite3.Connection, sql: str, *params: object) -> sqlite3.Error:
    with pytest.raises(sqlite3.Error) as info:
        conn.execute(sql, params)
    return info.value


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None, timeout=0)
    conn.execute("CREATE TABLE t (k TEXT UNIQUE, v TEXT)")
    conn.execute(
        "CREATE TRIGGER t_immutable BEFORE UPDATE ON t BEGIN "
        "SELECT RAISE(ABORT, 'ryvem: node versions are immutable'); END"
    )
    conn.execute("INSERT INTO t VALUES ('a', 'x')")
    yield conn
    conn.close()


def test_a_unique_violation_is_an_integrity_error(db: sqlite3.Connection) -> None:
    """SQLITE_CONSTRAINT_UNIQUE (2067) → IntegrityError naming the refused write."""
    e = raised(db, "INSERT INTO t VALUES ('a', 'y')")
    assert e.sqlite_errorcode == 2067
    mapped = from_sqlite(e, "t.db")
    assert type(mapped) is errors.IntegrityError
    assert "UNIQUE constraint failed: t.k" in mapped.message


def test_a_trigger_abort_is_an_integrity_error(db: sqlite3.Connection) -> None:
    """The immutability triggers' RAISE(ABORT) (SQLITE_CONSTRAINT_TRIGGER) → IntegrityError."""
    e = raised(db, "UPDATE t SET v = 'z'")
    assert e.sqlite_errorcode == 1811
    mapped = from_sqlite(e, "t.db")
    assert type(mapped) is errors.IntegrityError and "immutable" in mapped.message


def test_a_write_to_a_read_only_connection_is_store_read_only(tmp_path: Path) -> None:
    """SQLITE_READONLY (8) → StoreReadOnly, saying nothing was written."""
    sqlite3.connect(tmp_path / "ro.db").execute("CREATE TABLE t (v)").connection.close()
    ro = sqlite3.connect(f"{(tmp_path / 'ro.db').as_uri()}?mode=ro", uri=True)
    e = raised(ro, "INSERT INTO t VALUES (1)")
    assert e.sqlite_errorcode & 0xFF == 8
    mapped = from_sqlite(e, "ro.db")
    assert type(mapped) is errors.StoreReadOnly and "nothing was written" in mapped.message


def test_a_full_database_is_store_full(db: sqlite3.Connection) -> None:
    """SQLITE_FULL (13), here from max_page_count → StoreFull."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    e = raised(db, "INSERT INTO t VALUES (?, ?)", "b", "x" * 100_000)
    assert e.sqlite_errorcode == 13
    assert type(from_sqlite(e, "t.db")) is errors.StoreFull


def test_a_failure_after_a_commit_does_not_say_nothing_was_written(
    db: sqlite3.Connection,
) -> None:
    """A step after a commit (cleaning the files after a redaction) passes ``outcome=None``:
    its error gave "nothing was written" about a redaction that was committed (issue 39)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    e = raised(db, "INSERT INTO t VALUES (?, ?)", "b", "x" * 100_000)
    assert from_sqlite(e, "t.db").message.endswith("; nothing was written")
    after = from_sqlite(e, "t.db", outcome=None)
    assert type(after) is errors.StoreFull and "written" not in after.message
    assert after.message == (
        "t.db is full: no room left for the write (disk full or size limit reached)")


def test_a_damaged_schema_whose_message_is_not_utf8_is_store_damaged(tmp_path: Path) -> None:
    """SQLite names a damaged schema row in its message; bytes there that are not UTF-8 made
    the driver raise UnicodeDecodeError in place of its DatabaseError → StoreDamaged."""
    path = tmp_path / "d.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE damaged_here (v TEXT)")
    conn.close()
    data = path.read_bytes()
    at = data.find(b"damaged_heredamaged_here")
    path.write_bytes(data[:at] + b"\xff" * 24 + data[at + 24:])
    with pytest.raises(UnicodeDecodeError) as info:
        sqlite3.connect(path).execute("SELECT * FROM sqlite_master")
    mapped = from_sqlite(info.value, str(path))
    assert type(mapped) is errors.StoreDamaged and isinstance(mapped, errors.BackendUnavailable)
    assert mapped.message.startswith(f"{path} is damaged (malformed database schema (\ufffd")
    assert "restore it from a backup" in mapped.message and "\n" not in mapped.message


def test_a_malformed_database_is_store_damaged(tmp_path: Path) -> None:
    """SQLITE_CORRUPT (11) → StoreDamaged, naming the file and saying what to do."""
    path = tmp_path / "d.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE damaged_here (v TEXT)")
    conn.close()
    data = path.read_bytes()
    at = data.find(b"damaged_heredamaged_here")
    path.write_bytes(data[:at] + b"\x00" * 24 + data[at + 24:])
    e = raised(sqlite3.connect(path), "SELECT * FROM sqlite_master")
    assert e.sqlite_errorcode & 0xFF == 11
    mapped = from_sqlite(e, str(path))
    assert type(mapped) is errors.StoreDamaged
    assert mapped.message.startswith(f"{path} is damaged (malformed database schema")
    assert "restore it from a backup" in mapped.message


def test_a_held_write_lock_is_busy_and_retryable(tmp_path: Path, db: sqlite3.Connection) -> None:
    """SQLITE_BUSY (5) from a second writer → OperationalError, and is_busy says retry."""
    other = sqlite3.connect(tmp_path / "t.db", isolation_level=None, timeout=0)
    db.execute("BEGIN IMMEDIATE")
    try:
        e = raised(other, "BEGIN IMMEDIATE")
    finally:
        db.execute("ROLLBACK")
        other.close()
    assert e.sqlite_errorcode == 5
    assert is_busy(e)
    mapped = from_sqlite(e, "t.db")
    assert type(mapped) is errors.OperationalError and "busy" in mapped.message


def test_a_file_that_is_not_a_database_is_store_damaged(tmp_path: Path) -> None:
    """SQLITE_NOTADB (26) → StoreDamaged (a BackendUnavailable), naming the file: a wrong
    path or a damaged header, and the message says both."""
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not a database" * 100)
    e = raised(sqlite3.connect(path), "SELECT * FROM sqlite_master")
    assert e.sqlite_errorcode == 26
    mapped = from_sqlite(e, str(path))
    assert type(mapped) is errors.StoreDamaged and str(path) in mapped.message
    assert "not a SQLite database, or its header is damaged: check the path" in mapped.message
    assert not is_busy(e)


def test_an_error_without_a_result_code_maps_by_type(tmp_path: Path) -> None:
    """The sqlite3 module's own errors (a closed connection) carry no code → OperationalError."""
    conn = sqlite3.connect(tmp_path / "c.db")
    conn.close()
    e = raised(conn, "SELECT 1")
    assert getattr(e, "sqlite_errorcode", None) is None
    assert type(from_sqlite(e, "c.db")) is errors.OperationalError


@pytest.mark.parametrize(
    "code, expected",
    [
        (19 | (8 << 8), errors.IntegrityError),  # SQLITE_CONSTRAINT_UNIQUE
        (8 | (3 << 8), errors.StoreReadOnly),  # SQLITE_READONLY_ROLLBACK
        (13, errors.StoreFull),
        (10 | (3 << 8), errors.OperationalError),  # SQLITE_IOERR_WRITE
        (5, errors.OperationalError),
        (6, errors.OperationalError),
        (14, errors.BackendUnavailable),
        (26, errors.StoreDamaged),
        (11, errors.StoreDamaged),
        (1, errors.OperationalError),  # SQLITE_ERROR: not in the table
    ],
)
def test_every_primary_result_code_maps_to_its_documented_error(
    code: int, expected: type[errors.RyvemError]
) -> None:
    """The table, entry by entry (extended codes map by their primary low byte)."""
    exc = sqlite3.OperationalError("driver text")
    exc.sqlite_errorcode = code
    mapped = from_sqlite(exc, "x.db")
    assert type(mapped) is expected
    assert "\n" not in mapped.message


def test_the_sqlite_table_covers_the_codes_it_claims() -> None:
    """Every code in the table is a primary code (one byte), so extended codes reach it."""
    assert sorted(BY_PRIMARY_CODE) == [5, 6, 8, 10, 11, 13, 14, 19, 26]


def server_error(code: str, message: str = "server text") -> nx.Neo4jError:
    # The driver's own factory for an error the server sent (what a Bolt FAILURE becomes);
    # used for codes a test server cannot be made to send (transient, read-only database).
    return nx.Neo4jError._hydrate_neo4j(code=code, message=message)


@pytest.mark.parametrize(
    "code, message, expected, says",
    [
        ("Neo.ClientError.Schema.ConstraintValidationFailed",
         "Node(1) already exists with label `Current` and property `ident` = '[]'",
         errors.IntegrityError, "second current version"),
        ("Neo.ClientError.Schema.ConstraintValidationFailed",
         "already exists with label `Edge` and property `cur`",
         errors.IntegrityError, "second current edge"),
        ("Neo.ClientError.Security.Unauthorized", "bad", errors.BackendUnavailable,
         "RYVEM_NEO4J_PASSWORD"),
        ("Neo.ClientError.Database.DatabaseNotFound", "no db", errors.BackendUnavailable,
         "RYVEM_NEO4J_DATABASE"),
        ("Neo.TransientError.Transaction.DeadlockDetected", "deadlock",
         errors.OperationalError, "busy"),
        ("Neo.TransientError.General.DatabaseUnavailable", "down", errors.BackendUnavailable,
         "unavailable"),
        ("Neo.ClientError.General.ForbiddenOnReadOnlyDatabase", "ro", errors.StoreReadOnly,
         "refused the write"),
        ("Neo.ClientError.Statement.SyntaxError", "bad cypher", errors.BackendError,
         "bad cypher"),
    ],
)
def test_every_neo4j_status_code_maps_to_its_documented_error(
    code: str, message: str, expected: type[errors.RyvemError], says: str
) -> None:
    """Server errors map by status code (or its classification), whatever class carries it."""
    mapped = from_driver(server_error(code, message), "bolt://h:7687")
    assert type(mapped) is expected
    assert says in mapped.message and "\n" not in mapped.message


@pytest.mark.parametrize(
    "exc, expected",
    [
        (nx.ServiceUnavailable("Connection refused"), errors.BackendUnavailable),
        (nx.SessionExpired("gone"), errors.BackendUnavailable),
        (nx.ConfigurationError("bad scheme"), errors.InvalidInput),
        (ValueError("Unknown URI scheme"), errors.InvalidInput),
        (nx.DriverError("something else"), errors.BackendError),
    ],
)
def test_driver_side_errors_map_by_type(
    exc: Exception, expected: type[errors.RyvemError]
) -> None:
    """Errors the driver raises itself (no server status code) map by exception type."""
    assert type(from_driver(exc, "bolt://h:7687")) is expected


def test_the_neo4j_tables_are_searched_in_order() -> None:
    """Exact codes come before the catch-all transient prefix; auth before unreachable."""
    keys = [k for k, _ in BY_CODE]
    assert keys[-1] == "Neo.TransientError."
    types = [t for t, _ in BY_TYPE]
    assert types.index(nx.AuthError) < types.index(nx.ServiceUnavailable)
