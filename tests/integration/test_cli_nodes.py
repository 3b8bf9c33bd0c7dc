"""The node verbs of the real ``ryvem`` console script, run in subprocesses.

Every test works in a fresh git repository with its own ``RYVEM_DATA_DIR``, so the default
scope is the repository's minted ``repo:<uuid>``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from support.cli import RYVEM, Cli, Result, assert_fails

NODE_KEYS = {
    "id", "entity", "kind", "key", "scope", "title", "body", "data", "valid_from", "valid_to",
    "superseded_by", "supersedes", "retired_reason", "erased", "recorded_at",
    "closure_recorded_at",
}
HIT_KEYS = {"id", "kind", "scope", "title", "snippet", "score", "ranks", "scores", "confidence"}
EDGE_KEYS = {
    "id", "rel", "from", "to", "data", "valid_from", "valid_to", "recorded_at",
    "closure_recorded_at",
}
ID = re.compile(r"^[0-9a-f]{24}$")
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The CLI in a fresh git repository with an empty data dir."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return Cli(project, tmp_path / "data")


def test_put_prints_the_new_id_and_get_json_is_the_node_record(cli: Cli) -> None:
    """`put` prints the id it wrote and `get --json` returns exactly the node record's fields."""
    out = cli.ok(
        "put", "decision", "--title", "Cache with Redis", "--key", "cache",
        "--body", "Because latency matters.", "--data", '{"status": "open"}',
    ).out
    new_id = out.strip()
    assert ID.match(new_id), out
    rec = cli.json("get", "decision/cache")
    assert set(rec) == NODE_KEYS
    assert rec["id"] == rec["entity"] == new_id
    assert (rec["kind"], rec["key"], rec["title"]) == ("decision", "cache", "Cache with Redis")
    assert rec["body"] == "Because latency matters."
    assert rec["data"] == {"status": "open"}
    assert rec["scope"].startswith("repo:")
    assert ISO_Z.match(rec["valid_from"])
    assert rec["valid_to"] is None and rec["supersedes"] is None
    human = cli.ok("get", "cache").out
    assert "decision/cache" in human and "Cache with Redis" in human and new_id in human


def test_putting_a_key_again_supersedes_and_history_lists_the_chain_oldest_first(
    cli: Cli,
) -> None:
    """A second put on a key supersedes it, an identical put adds nothing, history is the chain."""
    first = cli.json("put", "decision", "--title", "Cache with Redis", "--key", "cache")
    second = cli.json("put", "decision", "--title", "Cache in process", "--key", "cache")
    again = cli.json("put", "decision", "--title", "Cache in process", "--key", "cache")
    assert set(first) == set(second) == NODE_KEYS
    assert second["supersedes"] == first["id"]
    assert second["entity"] == first["id"]
    assert again["id"] == second["id"]
    chain = cli.json("history", "cache")
    assert [v["id"] for v in chain] == [first["id"], second["id"]]
    assert all(set(v) == NODE_KEYS for v in chain)
    assert chain[0]["superseded_by"] == second["id"]
    assert chain[0]["valid_to"] == chain[1]["valid_from"]
    table = cli.ok("history", "decision/cache").out
    assert table.index("Cache with Redis") < table.index("Cache in process")
    assert "superseded" in table and "current" in table


def test_get_as_of_a_date_time_or_a_date_reads_the_version_valid_then(cli: Cli) -> None:
    """`--as-of` takes a date-time or a date (UTC) and returns the version valid at that time."""
    first = cli.json("put", "decision", "--title", "Cache with Redis", "--key", "cache")
    cli.ok("put", "decision", "--title", "Cache in process", "--key", "cache")
    then = cli.json("get", "cache", "--as-of", first["valid_from"])
    assert (then["id"], then["title"]) == (first["id"], "Cache with Redis")
    no_zone = first["valid_from"].rstrip("Z")  # without a zone it is UTC
    assert cli.json("get", "cache", "--as-of", no_zone)["id"] == first["id"]
    assert cli.json("get", "cache", "--as-of", "2999-01-01")["title"] == "Cache in process"
    assert_fails(cli("get", "cache", "--as-of", "2000-01-01"), 1)


def test_body_file_reads_a_utf8_file_or_stdin(cli: Cli, tmp_path: Path) -> None:
    """`--body-file PATH` and `--body-file -` store the text exactly."""
    text = "Zürich — naïve café ✓\nsecond line\n"
    path = tmp_path / "body.md"
    path.write_text(text, encoding="utf-8")
    from_file = cli.json("put", "page", "--title", "From a file", "--body-file", str(path))
    from_stdin = cli.json("put", "page", "--title", "From stdin", "--body-file", "-", input=text)
    assert from_file["body"] == from_stdin["body"] == text


@pytest.mark.parametrize("value", ["weird", "of", "disabled"])
def test_an_unknown_embedding_setting_is_one_line_naming_the_values_and_exit_2(
    cli: Cli, value: str
) -> None:
    """`RYVEM_EMBEDDING=weird` is not silently taken as on: the accepted values are named."""
    cli.env["RYVEM_EMBEDDING"] = value
    r = cli("search", "anything")
    assert_fails(r, 2, f"unknown RYVEM_EMBEDDING {value!r}: ")
    assert "off" in r.err and "on" in r.err


@pytest.mark.parametrize(
    ("value", "off"),
    [("off", True), ("OFF", True), ("0", True), ("false", True), ("no", True),
     ("on", False), ("1", False), ("true", False), ("yes", False), ("", False)],
)
def test_the_documented_embedding_settings_are_accepted(cli: Cli, value: str, off: bool) -> None:
    """off (0, false, no) turns semantic search off; on (1, true, yes) or empty leaves it on."""
    cli.env["RYVEM_EMBEDDING"] = value
    r = cli.ok("search", "anything")
    assert ("semantic search is off: RYVEM_EMBEDDING=off" in r.err) is off, r.err


def test_body_file_expands_a_tilde_like_db_out_and_import_do(cli: Cli, tmp_path: Path) -> None:
    """`--body-file '~/notes/body.md'` (quoted, so the shell does not expand it) reads the file
    under $HOME, as `--db '~/…'`, `--out '~/…'` and `import '~/…'` do."""
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "body.md").write_text("from home\n", encoding="utf-8")
    cli.env["HOME"] = str(home)
    rec = cli.json("put", "page", "--title", "Tilde", "--body-file", "~/notes/body.md")
    assert rec["body"] == "from home\n"


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["put", "page", "--title", "Endless", "--body-file", "/dev/zero"], None),
        (["put", "page", "--title", "Endless", "--body-file", "-"], "/dev/zero"),
        (["redact", "-"], "/dev/zero"),
    ],
)
def test_an_endless_body_file_or_stdin_is_refused_at_the_size_limit_not_read_to_the_end(
    cli: Cli, args: list[str], stdin: str | None
) -> None:
    """`--body-file /dev/zero`, `yes | ryvem graph put … --body-file -`: ryvem reads one byte
    past the 8 MiB limit and stops, exit 2 — not every byte until the memory runs out. The
    child runs under a 2 GiB address-space limit so a regression fails here instead of
    exhausting the machine."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    with open(stdin or os.devnull, "rb") as source:
        p = subprocess.run(
            [str(RYVEM), "graph", *args], cwd=cli.cwd, env=cli.env, stdin=source,
            capture_output=True, timeout=120, check=False, preexec_fn=cap,
        )
    r = Result(p.returncode, p.stdout.decode(), p.stderr.decode())
    assert_fails(r, 2, "8 MiB")
    assert cli.json("search", "--all-scopes") == []


def test_invalid_input_exits_2_with_one_line_and_writes_nothing(
    cli: Cli, tmp_path: Path
) -> None:
    """Each kind of bad input is one `error:` line, exit 2, and leaves the store and repo empty."""
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café".encode("latin-1"))
    cases = [
        ("put", "Decision", "--title", "bad kind"),
        ("put", "decision", "--title", "   "),
        ("put", "decision"),  # --title is required
        ("put", "decision", "--title", "t", "--data", "{not json"),
        ("put", "decision", "--title", "t", "--data", "[1, 2]"),
        ("put", "decision", "--title", "t", "--scope", "repo:not-a-uuid"),
        ("put", "decision", "--title", "t", "--body", "b", "--body-file", str(latin1)),
        ("put", "decision", "--title", "t", "--body-file", str(latin1)),
        ("put", "decision", "--title", "t", "--body-file", str(tmp_path / "missing.md")),
        ("put", "decision", "--title", "t", "--no-such-option"),
        ("get", "cache", "--as-of", "last tuesday"),
        ("search", "--limit", "0"),
        ("search", "--scope", "global", "--all-scopes"),
        ("link", "a", "b", "--rel", "Not A Slug"),
        ("frobnicate",),
    ]
    for args in cases:
        r = cli(*args)
        assert r.code == 2, (args, r.code, r.err)
        assert_fails(r, 2)
    assert not (cli.cwd / "ryvem.json").exists()
    stats = cli.json("stats")
    assert (stats["current_rows"], stats["superseded_rows"], stats["edges_current"]) == (0, 0, 0)


@pytest.mark.parametrize(
    "args",
    [
        ("put", "decision", "--title", "t", "--valid-from", "not a date"),
        ("put", "decision", "--title", "t", "--valid-from", "2999-01-01"),
        ("put", "decision", "--title", "t", "--scope", "global", "--valid-from", "not a date"),
        ("put", "decision", "--title", "t", "--data", "[1, 2]"),
        ("put", "Decision", "--title", "t"),
        ("retire", "decision/x", "--valid-to", "not a date"),
        ("link", "a", "b", "--rel", "about", "--valid-from", "not a date"),
        ("link", "a", "b", "--rel", "about", "--data", "{not json"),
        ("link", "a", " ", "--rel", "about"),
        ("unlink", "a", "b", "--rel", "about", "--valid-to", "not a date"),
        ("redact", "short"),
        ("redact", "long enough text", "--scope", "global", "--all-scopes"),
        ("purge", " "),
        ("import", "VAULT", "--kind", "Not A Kind"),
        ("get", "x", "--as-of", "not a date"),
        ("history", "x", "--known-at", "not a date"),
        ("links", "x", "--as-of", "not a date"),
        ("search", "--kind", "Not A Kind"),
        ("export", "--as-of", "not a date"),
        ("export", "--out", ""),  # read as the working directory: "… is a folder"
        ("put", "decision", "--title", "t", "--body-file", ""),  # "… Is a directory"
    ],
    ids=[
        "put-bad-valid-from", "put-future-valid-from", "put-scoped-bad-valid-from",
        "put-bad-data", "put-bad-kind", "retire-bad-valid-to", "link-bad-valid-from",
        "link-bad-data", "link-blank-ref", "unlink-bad-valid-to", "redact-short-text",
        "redact-scope-and-all-scopes", "purge-blank-ref", "import-bad-kind", "get-bad-as-of",
        "history-bad-known-at", "links-bad-as-of", "search-bad-kind", "export-bad-as-of",
        "export-empty-out", "put-empty-body-file",
    ],
)
def test_a_refused_command_in_a_fresh_data_dir_creates_no_store_file_and_no_ryvem_json(
    cli: Cli, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Every argument is validated before the store is opened: a refused verb prints one
    line, exits 2 and leaves the data dir as it was (no empty dev.db) and the repo unminted."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    args = tuple(str(vault) if a == "VAULT" else a for a in args)
    assert_fails(cli(*args), 2)
    data = Path(cli.env["RYVEM_DATA_DIR"])
    assert not data.exists() or sorted(p.name for p in data.iterdir()) == []
    assert not (cli.cwd / "ryvem.json").exists()


def test_an_empty_path_is_named_as_empty_and_a_body_files_byte_order_mark_is_dropped(
    cli: Cli, tmp_path: Path
) -> None:
    """`--out ""` said "… is a folder" and `--body-file ""` "Is a directory" (an empty path
    reads as the working directory); a UTF-8 byte-order mark became the body's first
    character, where the vault import drops it."""
    assert_fails(cli("export", "--out", ""), 2, "--out is empty")
    assert_fails(cli("put", "note", "--title", "t", "--body-file", ""), 2, "--body-file is empty")
    marked = tmp_path / "bom.md"
    marked.write_bytes(b"\xef\xbb\xbfSessions live in cookies.")
    got = cli.json("put", "note", "--title", "t", "--body-file", str(marked))
    assert got["body"] == "Sessions live in cookies."


def test_a_read_of_a_store_not_created_yet_creates_nothing_and_reads_as_an_empty_one(
    cli: Cli, tmp_path: Path
) -> None:
    """A reading verb on a fresh data dir, or on a mistyped --db, used to create an empty
    store there and answer "no matches" as if the memory were empty. It creates nothing now,
    answers as an empty store would, and says once that there is no store at that path (in
    the error line when it fails, which stays one line); the first write creates it."""
    data = Path(cli.env["RYVEM_DATA_DIR"])
    note = f"note: there is no store at {data / 'dev.db'} yet (reading creates none; a write does)"
    r = cli.ok("search", "how do we store sessions", "--scope", "global", "--mode", "lexical")
    assert r.out == "" and r.err.splitlines() == ["no matches", note]
    assert cli.json("search", "--all-scopes") == []
    s = cli.json("stats")
    assert (s["location"], s["current_rows"], s["edges_current"]) == (str(data / "dev.db"), 0, 0)
    assert cli.json("audit") == []
    for verb in ("get", "history", "links"):
        r = cli(verb, "decision/sessions")
        assert_fails(r, 1, "there is no store at")
    typo = tmp_path / "typo" / "memroy.db"
    r = cli.ok("--db", str(typo), "search", "sessions", "--mode", "lexical", "--json")
    assert r.json() == [] and f"there is no store at {typo} yet" in r.err
    page = tmp_path / "page.html"
    cli.ok("export", "--out", str(page))
    assert page.exists()
    for dry in ((), ("--dry-run",)):  # the sweep's finding: a redaction created the store
        r = cli.ok("redact", "sk-live-4f9a2c81d0", *dry)
        assert "nothing in global holds that text" in r.out + r.err
        assert note in r.err.splitlines()
    assert_fails(cli("purge", "note/x"), 2, "there is no store at")
    assert not data.exists() and not typo.parent.exists()
    assert not (cli.cwd / "ryvem.json").exists()
    cli.ok("put", "decision", "--title", "Keep sessions in signed cookies", "--key", "sessions",
           "--scope", "global")
    r = cli.ok("search", "sessions", "--scope", "global", "--mode", "lexical", "--json")
    assert [h["title"] for h in r.json()] == ["Keep sessions in signed cookies"]
    assert "note:" not in r.err


def test_a_reading_session_of_the_library_leaves_a_missing_store_uncreated(tmp_path: Path
                                                                          ) -> None:
    """`open_session(..., reading=True)`: a missing SQLite store reads as an empty one and
    refuses a write with one line, creating no file; without `reading` it is created."""
    import ryvem
    from ryvem.errors import StoreReadOnly

    db = tmp_path / "data" / "x.db"
    heard: list[str] = []
    with ryvem.open_session(db=db, reading=True, on_absent=heard.append) as session:
        assert session.search("sessions", mode="lexical", all_scopes=True).hits == []
        with pytest.raises(StoreReadOnly, match=r"there is no store at .* yet"):
            session.service("global").write("decision", "Nope", key="nope")
    assert heard == [f"there is no store at {db} yet (reading creates none; a write does)"]
    assert not db.parent.exists()
    with ryvem.open_session(db=db) as session:
        session.service("global").write("decision", "Yes", key="yes")
    assert db.exists()


def test_refs_resolve_by_id_kind_slash_key_and_bare_key(cli: Cli) -> None:
    """A REF is an id, KIND/KEY split at the first '/', or a bare key naming one node."""
    page = cli.json("put", "page", "--title", "Beta notes", "--key", "notes/beta")
    for ref in (page["id"], "page/notes/beta", "notes/beta"):
        assert cli.json("get", ref)["id"] == page["id"], ref
    assert_fails(cli("get", "page/notes"), 1)
    assert_fails(cli("get", "nothing-here"), 1)


def test_purge_never_takes_a_kind_slash_key_that_names_nothing_as_another_nodes_key(
    cli: Cli,
) -> None:
    """`task/z` names a task z; with none, it was read as the bare key of `page/task/z`, so
    `purge task/z` erased the page for good. Purge, which cannot be undone, now refuses and
    names the node that key belongs to; the other verbs still take the bare key."""
    page = cli.json("put", "page", "--title", "A page", "--key", "task/z")
    r = cli("purge", "task/z")
    assert_fails(r, 2, "; the key 'task/z' belongs to page/task/z: name it so")
    assert cli.json("get", "page/task/z")["erased"] is None
    assert cli.json("get", "task/z")["id"] == page["id"]  # reading: as before
    assert cli.json("purge", "page/task/z")["versions"] == 1


def test_an_ambiguous_bare_key_exits_2_and_names_every_candidate(cli: Cli) -> None:
    """A bare key held by two kinds is refused with both candidates named; KIND/KEY still works."""
    cli.ok("put", "decision", "--title", "Alpha decision", "--key", "alpha")
    cli.ok("put", "task", "--title", "Alpha task", "--key", "alpha")
    r = cli("get", "alpha")
    assert_fails(r, 2)
    assert "decision/alpha" in r.err and "task/alpha" in r.err
    assert cli.json("get", "task/alpha")["title"] == "Alpha task"


def test_retire_closes_the_node_and_a_later_put_revives_it(cli: Cli) -> None:
    """`retire` closes the window with a reason; retiring again fails; a put revives the key."""
    first = cli.json("put", "task", "--title", "Measure latency", "--key", "latency")
    retired = cli.json("retire", "latency", "--reason", "done")
    assert set(retired) == NODE_KEYS
    assert retired["id"] == first["id"]
    assert retired["retired_reason"] == "done" and ISO_Z.match(retired["valid_to"])
    assert "retired" in cli.ok("get", "task/latency").out
    assert cli.json("search", "latency") == []
    assert_fails(cli("retire", "task/latency"), 1)
    revived = cli.json("put", "task", "--title", "Measure latency again", "--key", "latency")
    assert revived["supersedes"] == first["id"]
    chain = cli.json("history", "latency")
    assert [v["id"] for v in chain] == [first["id"], revived["id"]]
    assert chain[0]["retired_reason"] == "done"
    assert "retired task/latency" in cli.ok("retire", revived["id"]).out


def test_link_and_unlink_print_edge_records_and_refuse_reserved_rels(cli: Cli) -> None:
    """`link` opens an edge between node ids, `unlink` closes it; reserved rels are refused."""
    task = cli.json("put", "task", "--title", "Move the cache", "--key", "move-cache")
    dec = cli.json("put", "decision", "--title", "Cache in process", "--key", "cache")
    edge = cli.json("link", "move-cache", "decision/cache", "--rel", "implements",
                    "--data", '{"why": "the decision asks for it"}')
    assert set(edge) == EDGE_KEYS
    assert (edge["rel"], edge["from"], edge["to"]) == ("implements", task["id"], dec["id"])
    assert edge["data"] == {"why": "the decision asks for it"}
    assert ISO_Z.match(edge["valid_from"]) and edge["valid_to"] is None
    closed = cli.json("unlink", "task/move-cache", "cache", "--rel", "implements")
    assert set(closed) == EDGE_KEYS
    assert closed["id"] == edge["id"] and ISO_Z.match(closed["valid_to"])
    assert_fails(cli("unlink", "move-cache", "cache", "--rel", "implements"), 1)
    assert_fails(cli("link", "move-cache", "cache", "--rel", "supersedes"), 2)
    assert_fails(cli("link", "move-cache", "no-such-node", "--rel", "about"), 1)
    line = cli.ok("link", "move-cache", "cache", "--rel", "about").out
    assert line.startswith("linked move-cache -[about]-> cache")
    assert cli.json("stats")["rels"] == {"about": 1}


def test_search_finds_words_best_first_with_kind_scope_and_as_of_filters(cli: Cli) -> None:
    """`search` ranks by text, filters by kind and scope, and reads the past with --as-of."""
    # Word search (the lexical fallback): hybrid adds rows near in meaning, which
    # tests/integration/test_search_modes.py pins.
    cli.env["RYVEM_EMBEDDING"] = "off"
    cli.ok("put", "decision", "--title", "Cache invalidation strategy", "--key", "inval")
    cli.ok("put", "task", "--title", "Write the benchmark", "--key", "bench",
           "--body", "It measures how often the cache is hit.")
    old = cli.json("put", "decision", "--title", "Use Redis", "--key", "store")
    cli.ok("put", "decision", "--title", "Use SQLite", "--key", "store")
    cli.ok("put", "page", "--title", "Global cache notes", "--scope", "global")
    hits = cli.json("search", "cache")
    assert all(set(h) == HIT_KEYS for h in hits)
    assert {h["title"] for h in hits} == {
        "Cache invalidation strategy", "Write the benchmark"
    }
    assert hits[0]["title"] == "Cache invalidation strategy"  # a title match outranks a body one
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert [h["kind"] for h in cli.json("search", "cache", "--kind", "task")] == ["task"]
    everywhere = cli.json("search", "cache", "--all-scopes")
    assert "Global cache notes" in {h["title"] for h in everywhere}
    assert [h["title"] for h in cli.json("search", "cache", "--scope", "global")] == [
        "Global cache notes"
    ]
    shape = cli.json("search", "cache", "--scope", "repo:*")
    assert {h["title"] for h in shape} == {h["title"] for h in hits}
    assert cli.json("search", "redis") == []
    past = cli.json("search", "redis", "--as-of", old["valid_from"])
    assert [h["id"] for h in past] == [old["id"]]
    assert len(cli.json("search", "--limit", "2")) == 2
    table = cli.ok("search", "invalidation").out
    assert "Cache invalidation strategy" in table
    assert cli.ok("search", "nothing-matches-this").out == ""


def test_a_search_snippet_that_spans_lines_reads_as_one_line_of_words(cli: Cli) -> None:
    """The table shows a snippet's line breaks and tabs as spaces, never as ``\\x0a``; a
    control character in it is still shown escaped; --json keeps the snippet exact."""
    cli.env["RYVEM_EMBEDDING"] = "off"
    cli.env["COLUMNS"] = "200"
    body = "Sessions live in signed\ncookies;\tnothing on the server \x1b[2J now."
    cli.ok("put", "decision", "--title", "Session store", "--key", "s", "--body", body)
    table = cli.ok("search", "signed cookies").out
    assert "\\x0a" not in table and "\\x09" not in table
    assert "**signed** **cookies**; nothing on the server" in table, table
    assert "\\x1b[2J" in table and "\x1b" not in table
    snippet = cli.json("search", "signed cookies")[0]["snippet"]
    assert "**signed**\n**cookies**;\tnothing" in snippet


def test_stats_counts_rows_edges_kinds_scopes_and_rels(cli: Cli) -> None:
    """`stats` reports current, superseded and retired rows, edges and per-group counts."""
    cli.ok("put", "decision", "--title", "v1", "--key", "d")
    cli.ok("put", "decision", "--title", "v2", "--key", "d")
    cli.ok("put", "task", "--title", "t", "--key", "t")
    cli.ok("put", "task", "--title", "gone", "--key", "gone")
    cli.ok("retire", "gone")
    cli.ok("link", "t", "d", "--rel", "about")
    s = cli.json("stats")
    assert set(s) == {
        "backend", "location", "current_rows", "superseded_rows", "retired_rows",
        "edges_current", "edges_closed", "kinds", "scopes", "rels",
    }
    scope = cli.json("get", "d")["scope"]
    assert s["backend"] == "sqlite"
    assert s["location"] == str(Path(cli.env["RYVEM_DATA_DIR"]) / "dev.db")
    assert (s["current_rows"], s["superseded_rows"], s["retired_rows"]) == (3, 1, 1)
    assert (s["edges_current"], s["edges_closed"]) == (2, 0)
    assert s["kinds"] == {"decision": 1, "repo": 1, "task": 1}
    assert s["scopes"] == {"global": 1, scope: 2}
    assert s["rels"] == {"about": 1, "supersedes": 1}
    human = cli.ok("stats").out
    assert "sqlite" in human and "3 current" in human and "1 superseded" in human


def test_the_db_option_puts_the_store_where_it_says(cli: Cli, tmp_path: Path) -> None:
    """`ryvem graph --db PATH` reads and writes that SQLite file instead of the data dir."""
    db = tmp_path / "elsewhere" / "other.db"
    cli.ok("--db", str(db), "put", "decision", "--title", "Elsewhere", "--key", "x")
    assert db.exists()
    assert cli.json("--db", str(db), "get", "x")["title"] == "Elsewhere"
    assert_fails(cli("get", "x"), 1)


@pytest.mark.parametrize(
    ("db", "fragment"),
    [("/dev/null", "/dev/null is a device or special file"), ("", "is empty"),
     ("FOLDER", "is a folder")],
)
def test_a_db_that_is_empty_a_device_or_a_folder_is_one_clear_line_and_exit_2(
    cli: Cli, tmp_path: Path, db: str, fragment: str
) -> None:
    """`--db /dev/null` is not "disk I/O error (is the disk full…)", `--db ""` not "cannot
    open .": the error says what the path is, and that a SQLite file is wanted."""
    db = str(tmp_path) if db == "FOLDER" else db
    fragment = f"{tmp_path} {fragment}" if fragment == "is a folder" else fragment
    for verb in (["stats"], ["put", "decision", "--title", "t"]):
        r = cli("--db", db, *verb)
        assert_fails(r, 2, fragment)
        assert "SQLite file" in r.err and "disk" not in r.err and "cannot open" not in r.err


def test_a_data_dir_that_is_a_file_is_named_as_such_and_left_alone(tmp_path: Path) -> None:
    """`RYVEM_DATA_DIR` naming a file read "cannot open …/dev.db: File exists"."""
    notes = tmp_path / "Beta.md"
    notes.write_text("mine")
    cli = Cli(tmp_path, notes)
    r = cli("put", "decision", "--title", "t")
    assert_fails(r, 2, f"cannot create the store {notes / 'dev.db'}: {notes} is a file, not a "
                       "folder")
    assert notes.read_text() == "mine"


def test_a_too_short_redaction_names_force_and_a_semantic_search_of_the_past_names_as_of(
    cli: Cli,
) -> None:
    """The CLI phrases the remedies with its own flags: `--force`, `--as-of`/`--known-at`."""
    r = cli("redact", "short")
    assert_fails(r, 2, "under 8")
    assert "--force" in r.err
    r = cli("search", "x", "--mode", "semantic", "--as-of", "2999-01-01")
    assert_fails(r, 2, "current rows only")
    assert "--as-of" in r.err and "--mode lexical" in r.err and "as_of" not in r.err


def test_the_library_takes_a_str_cwd_as_it_takes_a_str_db_and_kinds_none_as_no_filter(
    tmp_path: Path,
) -> None:
    """`open_session(cwd="/tmp")` failed deep inside (`'str' object has no attribute
    'absolute'`) on the first write, and `search(..., kinds=None)` with a TypeError."""
    import ryvem

    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    with ryvem.open_session(db=str(tmp_path / "x.db"), cwd=str(repo)) as session:
        written = session.write("decision", "Cache in process", key="cache")
        assert written.minted is not None and written.result.version.scope.startswith("repo:")
        hits = session.search("cache", kinds=None, mode="lexical").hits
        assert [h.hit.title for h in hits] == ["Cache in process"]
