"""A store whose file is damaged: every verb says so in one line, names the file and says what
to do, and leaves the file as it was (issue 39: a corrupted schema page made every verb print
``internal error (UnicodeDecodeError)``).

The damage is real bytes overwritten in a real store. The schema rows live in
``sqlite_schema``'s pages; ryvem's rows are short enough that none needs an overflow page, so
the bytes overwritten are a schema row's own (its name and the start of its SQL), the same
fault as 64 bytes inside an overflow page of a longer schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reliability.harness import one_clean_line, ryvem, service
from reliability.test_mcp_raw_jsonrpc import RawServer, tool_error

SECRET = "sk-live-0123456789"
VERBS = [
    ["stats"],
    ["get", "task/t1", "--scope", "global"],
    ["search", "filler", "--scope", "global"],
    ["history", "task/t1", "--scope", "global"],
    ["put", "task", "--title", "x", "--scope", "global"],
    ["redact", SECRET, "--all-scopes"],
    ["audit"],
]


def seeded(db: Path) -> None:
    svc = service(db)
    for i in range(20):
        svc.write("task", f"Task {i}", key=f"t{i}", body=f"filler {i}"
                  + (f" {SECRET}" if i == 5 else ""))
    svc.repo.close()


def overwrite(db: Path, at: int, fill: bytes) -> None:
    data = bytearray(db.read_bytes())
    data[at:at + len(fill)] = fill
    db.write_bytes(bytes(data))


def schema_row(db: Path) -> int:
    """Where the schema row of ryvem's ``vector_state`` table starts (its name, then its
    table's name, then its root page and SQL: ``vector_statevector_state…CREATE TABLE``)."""
    at = db.read_bytes().find(b"vector_statevector_state")
    assert at > 0, "the schema row to damage was not found"
    return at


DAMAGE = {
    # Bytes that are not UTF-8 in a schema name: SQLite's message names the row, and the
    # driver raised UnicodeDecodeError decoding that message.
    "schema row not utf-8": lambda db: overwrite(db, schema_row(db), b"\xff" * 64),
    # The same row zeroed: SQLITE_CORRUPT, "malformed database schema".
    "schema row zeroed": lambda db: overwrite(db, schema_row(db), b"\x00" * 64),
    # The header's magic string gone: SQLITE_NOTADB, "file is not a database".
    "header overwritten": lambda db: overwrite(db, 0, b"\x00" * 64),
}
SAYS = {
    "schema row not utf-8": "is damaged (malformed database schema (",
    "schema row zeroed": "is damaged (malformed database schema",
    "header overwritten": "is not a SQLite database, or its header is damaged",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_every_verb_on_a_damaged_store_says_it_is_damaged_and_what_to_do_in_one_line(
    tmp_path: Path, damage: str
) -> None:
    db = tmp_path / "ryvem.db"
    seeded(db)
    DAMAGE[damage](db)
    before = db.read_bytes()
    for verb in VERBS:
        line = one_clean_line(ryvem("graph", "--db", db, *verb, cwd=tmp_path), 1)
        assert SAYS[damage] in line and str(db) in line, (verb, line)
        assert "restore it from a backup" in line and "-wal" in line, line
        assert "internal error" not in line and "Unicode" not in line, line
    assert db.read_bytes() == before, "a damaged store is only read"


def test_an_mcp_call_on_a_damaged_store_is_a_tool_error_saying_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "dev.db"
    seeded(db)
    DAMAGE["schema row not utf-8"](db)
    server = RawServer(data)
    try:
        server.handshake()
        for n, (tool, arguments) in enumerate([
            ("memory_get", {"ref": "task/t1", "scope": "global"}),
            ("memory_write", {"kind": "task", "title": "x", "scope": "global"}),
        ]):
            message = tool_error(server.call(n, tool, arguments))
            assert "is damaged (malformed database schema (" in message, message
            assert str(db) in message and "restore it from a backup" in message
            assert "\n" not in message and "UnicodeDecodeError" not in message
        assert server.proc.poll() is None, "the server keeps serving"
    finally:
        server.close()
