"""Hostile input: one clear line (InvalidInput, CLI exit 2) or a documented clamp; nothing changes.

The matrix runs through the service (what the MCP server and library users call) and through
the CLI's ``main`` in-process; the cases only a real process can carry (bytes that are not
UTF-8 in argv or on stdin, a malformed ryvem.json in a git tree) run the console script.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reliability.harness import one_clean_line, ryvem
from reliability.invariants import assert_invariants, snapshot
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.cli.app import main
from ryvem.domain.search import parse_search
from ryvem.errors import InvalidInput

INJECTIONS = [
    "decision'", 'decision"', "dec`ision", "x; DROP TABLE nodes;--", "x' OR '1'='1",
    "a}) MATCH (n) DETACH DELETE n //", "n:Label", "Decision", "d\u0435cision",  # Cyrillic ie
    "decision\u200b", "\uff44ecision", "", " decision", "de cision", "a" * 65, "-lead", "trail-",
]
BAD_SCOPES = [
    "global'", "GLOBAL", "repo:not-a-uuid", "board:x'); DROP TABLE nodes;--", "board:t\u0435am",
    "board:", "repo:*", "board:a`b", "scope:x", "board:" + "a" * 65, "global\x00",
]
DEEP = {"a": None}
for _ in range(200):
    DEEP = {"a": DEEP}


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    s = Service(SqliteRepository.open(tmp_path / "ryvem.db"))
    a = s.write("decision", "Cache in process", key="cache", body="Links to [[latency]].")
    s.write("task", "Measure latency", key="latency")
    s.link(a.id, "task/latency", "about")
    return s


def refused_and_unchanged(svc: Service, db: Path, call: Callable[[], Any]) -> str:
    """The call raises InvalidInput with one line, and the store is exactly as it was."""
    before = snapshot(db)
    with pytest.raises(InvalidInput) as caught:
        call()
    message = caught.value.message
    assert message and "\n" not in message and "Traceback" not in message
    assert snapshot(db) == before
    return message


WRITE_CASES: dict[str, dict[str, Any]] = {
    "empty title": {"title": ""},
    "blank title": {"title": "   "},
    "NUL in title": {"title": "a\x00b"},
    "lone surrogate in title": {"title": "caf\udce9"},
    "1001-char title": {"title": "t" * 1001},
    "10,000-char key": {"key": "k" * 10_000},
    "NUL in key": {"key": "a\x00b"},
    "lone surrogate in key": {"key": "\ud800"},
    "newline in key": {"key": "a\nb"},
    "padded key": {"key": " cache"},
    "empty key": {"key": ""},
    "body over 8 MiB": {"body": "x" * (8 * 1024 * 1024 + 1)},
    "NUL in body": {"body": "a\x00b"},
    "lone surrogate in body": {"body": "\udfff"},
    "data nested 200 deep": {"data": DEEP},
    "data a list": {"data": [1, 2]},
    "data a JSON list": {"data": "[1, 2]"},
    "data not JSON": {"data": "{'a': 1"},
    "data a number": {"data": 3},
    "data with NaN": {"data": {"x": float("nan")}},
    "data with a non-string key": {"data": {1: "x"}},
    "data with NUL": {"data": {"x": "a\x00"}},
    "data over 1 MiB": {"data": {"x": "y" * (1024 * 1024 + 1)}},
    "data nested 10,000 deep as text": {"data": "[" * 10_000 + "]" * 10_000},
}


@pytest.mark.parametrize("case", list(WRITE_CASES), ids=list(WRITE_CASES))
def test_a_malformed_write_is_refused_in_one_line_and_writes_nothing(
    svc: Service, tmp_path: Path, case: str
) -> None:
    """Bad titles, keys, bodies and data are refused before any transaction opens."""
    args: dict[str, Any] = {"title": "ok", "key": "cache", **WRITE_CASES[case]}
    title = args.pop("title")
    refused_and_unchanged(svc, tmp_path / "ryvem.db", lambda: svc.write("decision", title, **args))


@pytest.mark.parametrize("kind", INJECTIONS)
def test_kinds_with_quotes_code_or_look_alike_letters_are_refused(
    svc: Service, tmp_path: Path, kind: str
) -> None:
    """A kind is a lowercase ASCII slug: quotes, SQL, Cypher and homoglyphs never reach a store."""
    msg = refused_and_unchanged(svc, tmp_path / "ryvem.db", lambda: svc.write(kind, "t", key="k"))
    assert "kind" in msg


@pytest.mark.parametrize("rel", INJECTIONS)
def test_rels_with_quotes_code_or_look_alike_letters_are_refused(
    svc: Service, tmp_path: Path, rel: str
) -> None:
    """A rel is a lowercase ASCII slug, checked on link and on unlink."""
    db = tmp_path / "ryvem.db"
    refused_and_unchanged(svc, db, lambda: svc.link("decision/cache", "task/latency", rel))
    refused_and_unchanged(svc, db, lambda: svc.unlink("decision/cache", "task/latency", rel))
    refused_and_unchanged(svc, db, lambda: svc.traverse("decision/cache", rels=[rel]))


@pytest.mark.parametrize("scope", BAD_SCOPES)
def test_scopes_with_quotes_code_or_look_alike_letters_are_refused(
    svc: Service, tmp_path: Path, scope: str
) -> None:
    """Only global, repo:<uuid> and board:<slug> are scopes, for writes and for reads."""
    db = tmp_path / "ryvem.db"
    refused_and_unchanged(svc, db, lambda: svc.write("decision", "t", key="k", scope=scope))
    refused_and_unchanged(svc, db, lambda: svc.get("decision/cache", scope=scope))


def test_look_alike_keys_are_distinct_identities_never_merged(svc: Service) -> None:
    """A key with a Cyrillic 'a' is another node: writing it does not supersede 'cache'."""
    twin = svc.write("decision", "Twin", key="c\u0430che")  # Cyrillic a
    assert svc.get("decision/cache").title == "Cache in process"
    assert svc.get("decision/c\u0430che").id == twin.id
    assert len(svc.history("decision/cache")) == 1


def test_sql_and_cypher_in_free_text_are_stored_verbatim_as_text(
    svc: Service, tmp_path: Path
) -> None:
    """Titles, keys, bodies and data holding injection text round-trip unchanged, harmless."""
    nasty = "'); DROP TABLE nodes;-- \" ` MATCH (n) DETACH DELETE n // ${x} {{7*7}}"
    v = svc.write("decision", nasty, key=nasty, body=nasty, data={nasty: nasty})
    got = svc.get(v.id)
    assert (got.title, got.key, got.body, got.data) == (nasty, nasty, nasty, {nasty: nasty})
    assert [h.id for h in svc.search("DROP TABLE nodes")] == [v.id]
    assert_invariants(tmp_path / "ryvem.db")


FTS_SYNTAX = [
    '"', '""', '"cache', "NEAR(", "NEAR(cache latency)", "cache NEAR/3 latency", "col:x",
    "title:cache", "{title body}:cache", "^cache", "*", "cache*", "**", "-cache", "+cache",
    "cache AND", "OR", "NOT cache", "AND OR NOT", "(" * 300 + "cache" + ")" * 300, "", "   ",
    "\x00", "'", "\\", "%", "_", "cache'; DROP TABLE nodes;--", "[[cache]]", ":", "a:b:c",
    "\u200b", "🙂 cache", "x" * 10_000, " ".join(["w"] * 500),
]


@pytest.mark.parametrize("text", FTS_SYNTAX, ids=[repr(t)[:40] for t in FTS_SYNTAX])
def test_any_search_text_is_a_valid_query_never_an_error(
    svc: Service, tmp_path: Path, text: str
) -> None:
    """FTS5 syntax of every kind is read as words or dropped: a list, now and as of a time."""
    before = snapshot(tmp_path / "ryvem.db")
    hits = svc.search(text)
    past = svc.search(text, as_of="2020-01-01")
    assert isinstance(hits, list) and past == []
    if not parse_search(text).words():
        assert hits == [] or all(h.score == 0.0 for h in hits), "no words: a plain listing"
    assert snapshot(tmp_path / "ryvem.db") == before


def test_search_syntax_characters_do_not_change_what_a_word_finds(svc: Service) -> None:
    """Quotes, brackets, carets, columns and 300 nested parentheses around a word find it."""
    cache = svc.get("decision/cache").id
    for text in ('"cache', "^cache", "(" * 300 + "cache" + ")" * 300, "cache)", "{cache}",
                 "cach*", "CACHE", '"cache in"'):
        assert [h.id for h in svc.search(text)] == [cache], text


@pytest.mark.parametrize(("depth", "hops"), [(-1, 1), (0, 1), (1, 1), (11, 10), (10**9, 10)])
def test_out_of_range_depths_are_clamped_to_one_to_ten(
    tmp_path: Path, depth: int, hops: int
) -> None:
    """Depth -1 and 0 walk one hop, 11 and 10^9 walk ten (documented clamp)."""
    s = Service(SqliteRepository.open(tmp_path / "chain.db"))
    for i in range(12):
        s.write("page", f"P{i}", key=f"p{i}", body=f"[[p{i + 1}]]")
    s.write("page", "P12", key="p12")
    steps = s.traverse("page/p0", depth=depth)
    assert max(step.hop for step in steps) == hops
    assert len(steps) == hops


@pytest.mark.parametrize("depth", [2.5, "2.5", "two", None, True, [3]])
def test_a_depth_that_is_not_an_integer_is_refused(
    svc: Service, tmp_path: Path, depth: Any
) -> None:
    """2.5, '2.5', 'two', None, True and [3] are not depths."""
    msg = refused_and_unchanged(
        svc, tmp_path / "ryvem.db", lambda: svc.traverse("decision/cache", depth=depth))
    assert "depth" in msg


@pytest.mark.parametrize("direction", ["up", "OUT", "", "both ", None, "in; DROP"])
def test_an_unknown_direction_is_refused(svc: Service, tmp_path: Path, direction: Any) -> None:
    """Directions are out, in and both; `up` is an error, not a guess."""
    msg = refused_and_unchanged(
        svc, tmp_path / "ryvem.db", lambda: svc.traverse("decision/cache", direction=direction))
    assert "direction" in msg


# --- the CLI ------------------------------------------------------------------------------

CLI_CASES: dict[str, list[str]] = {
    "bad kind": ["put", "dec'ision", "--title", "t"],
    "cypher kind": ["put", "a})-[:X]->(b", "--title", "t"],
    "look-alike kind": ["put", "d\u0435cision", "--title", "t"],
    "empty title": ["put", "decision", "--title", ""],
    "NUL-free but blank title": ["put", "decision", "--title", "  "],
    "surrogate title": ["put", "decision", "--title", "caf\udce9"],
    "10,000-char key": ["put", "decision", "--title", "t", "--key", "k" * 10_000],
    "data a list": ["put", "decision", "--title", "t", "--data", "[1, 2]"],
    "data a string": ["put", "decision", "--title", "t", "--data", '"x"'],
    "data not JSON": ["put", "decision", "--title", "t", "--data", "{oops"],
    "data nested 10,000 deep": ["put", "decision", "--title", "t", "--data",
                                '{"a":' * 10_000 + "1" + "}" * 10_000],
    "bad scope": ["put", "decision", "--title", "t", "--scope", "board:x'); DROP"],
    "scope wildcard on write": ["put", "decision", "--title", "t", "--scope", "repo:*"],
    "bad rel": ["link", "decision/cache", "task/latency", "--rel", "ABOUT"],
    "reserved rel": ["link", "decision/cache", "task/latency", "--rel", "supersedes"],
    "cypher rel": ["link", "decision/cache", "task/latency", "--rel", "x]->() DELETE"],
    "depth 2.5": ["links", "decision/cache", "--depth", "2.5"],
    "direction up": ["links", "decision/cache", "--direction", "up"],
    "backlinks and direction": ["links", "decision/cache", "--backlinks", "--direction", "out"],
    "bad date": ["get", "decision/cache", "--as-of", "yesterday"],
    "limit 0": ["search", "cache", "--limit", "0"],
    "bad search kind": ["search", "cache", "--kind", "Kind"],
}


@pytest.fixture
def cli_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store with two linked nodes; the working directory is outside any git tree."""
    db = tmp_path / "cli.db"
    s = Service(SqliteRepository.open(db))
    s.write("decision", "Cache in process", key="cache", body="[[latency]]")
    s.write("task", "Measure latency", key="latency")
    s.repo.close()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RYVEM_DATA_DIR", str(tmp_path / "data"))
    return db


@pytest.mark.parametrize("case", list(CLI_CASES), ids=list(CLI_CASES))
def test_hostile_cli_input_exits_2_with_one_line_and_changes_nothing(
    cli_db: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """Each hostile argument: exit 2, one `error:` line on stderr, no traceback, store unchanged."""
    before = snapshot(cli_db)
    args = CLI_CASES[case]
    if "--scope" not in args:
        args = [*args, "--scope", "global"]
    with pytest.raises(SystemExit) as ended:
        main(["graph", "--db", str(cli_db), *args])
    err = capsys.readouterr().err
    assert ended.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert snapshot(cli_db) == before


def test_bytes_that_are_not_utf8_in_arguments_or_on_stdin_exit_2(tmp_path: Path) -> None:
    """Invalid UTF-8 in --title or in a --body-file on stdin, or a NUL: exit 2, nothing written."""
    db = tmp_path / "ryvem.db"
    Service(SqliteRepository.open(db)).repo.close()
    before = snapshot(db)
    base = ("graph", "--db", db, "put", "decision", "--scope", "global")
    bad = ryvem_bytes(tmp_path, [*map(str, base)], [b"--title", b"caf\xe9"])
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert b"Traceback" not in bad.stderr
    for payload in (b"caf\xe9 au lait", b"\xff\xfe\x00", b"nul \x00 byte"):
        run = ryvem(*base, "--title", "t", "--body-file", "-", cwd=tmp_path, input=payload)
        one_clean_line(run, 2)
    assert snapshot(db) == before


def ryvem_path() -> str:
    from reliability.harness import RYVEM

    return str(RYVEM)


def ryvem_bytes(cwd: Path, args: list[str], raw: list[bytes]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [ryvem_path().encode(), *(a.encode() for a in args), *raw], cwd=cwd,
        capture_output=True, timeout=120, check=False,
    )


@pytest.mark.parametrize("content", [
    b"{", b"[]", b'{"repo": "not-a-uuid"}', b'{"repo": 42}', b"\xff\xfe", b"",
    b'{"repo": "' + b"a" * 10_000 + b'"}', b"[" * 10_000,
])
def test_a_malformed_ryvem_json_is_a_clear_error_and_is_never_rewritten(
    tmp_path: Path, content: bytes
) -> None:
    """In a git tree with a broken ryvem.json, put exits 2 in one line; file and store stay."""
    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / "ryvem.json").write_bytes(content)
    run = ryvem("graph", "put", "decision", "--title", "t", cwd=tree, data_dir=tmp_path / "d")
    line = one_clean_line(run, 2)
    assert "ryvem.json" in line
    assert (tree / "ryvem.json").read_bytes() == content
    db = tmp_path / "d" / "dev.db"
    if db.exists():
        assert json.loads(ryvem("graph", "stats", "--json", cwd=tmp_path,
                                data_dir=tmp_path / "d").out)["current_rows"] == 0


def test_an_import_skips_hostile_files_with_a_warning_and_imports_the_rest(
    tmp_path: Path,
) -> None:
    """Invalid UTF-8, NUL bytes, a 9 MiB page and 300-deep front matter: warned, skipped or kept."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "good.md").write_text("# Good\n\nLinks to [[other]].\n")
    (vault / "other.md").write_text("# Other\n")
    (vault / "latin1.md").write_bytes(b"# Caf\xe9\n")
    (vault / "nul.md").write_bytes(b"# Nul\n\x00\n")
    (vault / "huge.md").write_text("# Huge\n" + "x" * (9 * 1024 * 1024))
    (vault / "deep.md").write_text("---\nx: " + "[" * 300 + "]" * 300 + "\n---\n# Deep\n")
    db = tmp_path / "ryvem.db"
    run = ryvem("graph", "--db", db, "import", vault, "--scope", "global", "--json",
                cwd=tmp_path)
    assert run.code == 0, run.err
    assert "Traceback" not in run.err
    warnings = run.err.strip().splitlines()
    assert all(w.startswith("warning: ") for w in warnings), warnings
    for name in ("latin1.md", "nul.md", "huge.md"):
        assert any(name in w for w in warnings), (name, warnings)
    s = Service(SqliteRepository.open(db))
    assert s.get("page/good").title == "good"
    assert [st.dst.key for st in s.traverse("page/good")] == ["other"]
    s.repo.close()
    assert_invariants(db)
