"""``ryvem.gitlog.parse_log``: git's NUL-separated log output, parsed as data only."""

from __future__ import annotations

import pytest

from ryvem.errors import RyvemError
from ryvem.gitlog import Change, git_blob_id, parse_log

Z = "0" * 40
A, B = "a" * 40, "b" * 40


def header(cid: str, message: str, t: int = 1704877200) -> bytes:
    return b"\0".join([
        b"", b"ryvem-commit", cid.encode(), str(t).encode(), b"Ada", b"ada@example.org",
        b"2024-01-10T09:00:00+00:00", b"2024-01-10T09:00:00+00:00", message.encode(),
    ])


def raw(old_mode: str, new_mode: str, old: str, new: str, status: str, *paths: bytes) -> bytes:
    return b"\0".join([f":{old_mode} {new_mode} {old} {new} {status}".encode(), *paths]) + b"\0"


def test_commits_and_their_changes_are_read_in_order() -> None:
    """Adds, a modify, a rename with its score and a delete, with the header's fields."""
    out = (
        header("1" * 40, "first\n\nwith a body\n") + b"\0\n"
        + raw("000000", "100644", Z, A, "A", b"plan.md")
        + header("2" * 40, "second\n", t=1707555600) + b"\0\n"
        + raw("100644", "100644", A, B, "M", b"plan.md")
        + raw("100644", "100644", A, A, "R087", b"old.md", b"new.md")
        + raw("100644", "000000", A, Z, "D", b"gone.md")
    )
    first, second = parse_log(out)
    assert (first.id, first.time, first.author, first.email) == (
        "1" * 40, 1704877200, "Ada", "ada@example.org",
    )
    assert first.message == "first\n\nwith a body"
    assert first.changes == (Change("A", "plan.md", None, A, None, True),)
    assert [c.status for c in second.changes] == ["M", "R", "D"]
    assert second.changes[1] == Change("R", "new.md", "old.md", A, A, True)
    assert second.changes[2].blob is None and second.changes[2].old_blob == A


def test_a_path_is_never_taken_for_a_marker_or_a_change() -> None:
    """Paths holding the marker, a newline or a change line are read as paths."""
    odd = [b"ryvem-commit", b"two\nlines.md", b":100644 100644 x y M"]
    out = header("1" * 40, "msg") + b"\0\n" + b"".join(
        raw("000000", "100644", Z, A, "A", p) for p in odd
    )
    [commit] = parse_log(out)
    assert [c.path for c in commit.changes] == [p.decode() for p in odd]


def test_empty_messages_merges_without_changes_and_odd_files_parse() -> None:
    """An empty message, a commit with no changes, a symlink and a non-UTF-8 path."""
    out = (
        header("1" * 40, "") + b"\0"
        + header("2" * 40, "merge\n") + b"\0\n"
        + raw("000000", "120000", Z, A, "A", b"link.md")
        + raw("000000", "100644", Z, A, "A", b"caf\xe9.md")
    )
    empty, merge = parse_log(out)
    assert empty.message == "" and empty.changes == ()
    link, latin = merge.changes
    assert (link.regular, link.blob) == (False, None)
    assert latin.path == "caf\udce9.md"  # refused later by key validation, never renamed


def test_output_that_is_not_gits_is_an_error() -> None:
    """Truncated or foreign output raises instead of importing half a history."""
    with pytest.raises(RyvemError):
        parse_log(header("1" * 40, "x")[:-20])
    with pytest.raises(RyvemError):
        parse_log(b"hello\0world\0")
    with pytest.raises(RyvemError):
        parse_log(raw("000000", "100644", Z, A, "A", b"a.md"))


def test_blob_ids_are_gits() -> None:
    """The id of a file's bytes is what `git hash-object` prints."""
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
