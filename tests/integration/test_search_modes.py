"""Search modes through the real faces: the CLI console script and the MCP server over stdio,
with the real local model; and without it (RYVEM_EMBEDDING=off), lexical with a note."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from pages import DECISIONS
from support.cli import Cli, assert_fails

PAGES = DECISIONS


pytestmark = pytest.mark.usefixtures("local_model")


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    c = Cli(tmp_path, tmp_path / "data", semantic=True)
    for title, key, body in PAGES:
        c.ok("put", "decision", "--title", title, "--key", key, "--body", body,
             "--scope", "global")
    return c


def test_default_search_is_hybrid_and_json_hits_say_each_rank(cli: Cli) -> None:
    """A question sharing no word with its answer comes first, found by meaning; every hit
    carries its lexical and semantic rank (null when absent) and the fused score."""
    r = cli.ok("search", "where do we keep who is logged in", "--scope", "global", "--json")
    hits = r.json()
    assert hits[0]["title"] == "Keep sessions in signed cookies"
    assert hits[0]["ranks"]["semantic"] == 1
    assert all(set(h["ranks"]) == {"lexical", "semantic"} for h in hits)
    assert all(h["ranks"]["lexical"] is None or h["ranks"]["lexical"] >= 1 for h in hits)
    assert hits == sorted(hits, key=lambda h: -h["score"])
    assert r.err == ""


def test_lexical_mode_ranks_by_words_only(cli: Cli) -> None:
    """--mode lexical never has a semantic rank, and words no row holds find nothing."""
    hits = cli.json("search", "checkout", "--mode", "lexical", "--scope", "global")
    assert [h["title"] for h in hits] == ["Checkout is idempotent"]
    assert hits[0]["ranks"] == {"lexical": 1, "semantic": None}
    out = cli.ok("search", "zyxwvut qwertyuiop", "--mode", "lexical", "--scope", "global")
    assert "no matches" in out.err


def test_a_text_without_a_word_lists_the_recent_rows_in_every_mode(cli: Cli) -> None:
    """Only punctuation or symbols ('"', '((', '🙂') is no question: every mode lists the most
    recent rows, as an empty text does (semantic mode used to embed the symbol and return
    nothing while lexical and hybrid listed). No search ranked a listing, so its ranks are
    null (they said lexical 1, 2, 3 …)."""
    listed = cli.json("search", "--scope", "global")
    recent = [h["id"] for h in listed]
    assert len(recent) == len(PAGES)
    assert all(h["ranks"] == {"lexical": None, "semantic": None} for h in listed)
    for text in ['"', "((", "\U0001f642"]:
        for mode in ("lexical", "semantic", "hybrid"):
            hits = cli.json("search", text, "--mode", mode, "--scope", "global")
            assert [h["id"] for h in hits] == recent, (text, mode)


def test_semantic_mode_ignores_unrelated_rows(cli: Cli) -> None:
    """--mode semantic returns nearest rows above the similarity floor only."""
    hits = cli.json("search", "can a payment request be sent twice safely", "--mode",
                    "semantic", "--scope", "global")
    assert hits[0]["title"] == "Checkout is idempotent"
    assert hits[0]["ranks"]["lexical"] is None
    assert "Use SQLite" not in [h["title"] for h in hits]


def test_an_unknown_mode_and_semantic_as_of_are_usage_errors(cli: Cli) -> None:
    """A bad --mode, or --mode semantic with --as-of, is one line and exit 2."""
    assert_fails(cli("search", "x", "--mode", "fuzzy"), 2, "unknown search mode")
    assert_fails(cli("search", "x", "--mode", "semantic", "--as-of", "2999-01-01"), 2,
                 "current rows only")


def test_as_of_search_is_lexical_with_a_note(cli: Cli) -> None:
    """--as-of searches the past lexically and says so on stderr."""
    r = cli.ok("search", "checkout", "--as-of", "2999-01-01", "--scope", "global", "--json")
    assert [h["title"] for h in r.json()] == ["Checkout is idempotent"]
    assert "as-of search is lexical" in r.err


def test_reindex_rebuilds_text_and_vectors(cli: Cli) -> None:
    """reindex rebuilds the full-text index and re-embeds every current row."""
    done = cli.json("reindex")
    assert done["text_rows"] == 3 and done["queued"] == 3 and done["embedded"] == 3
    assert done["pending"] == 0 and done["model"]
    again = cli.json("reindex", "--pending")
    assert (again["queued"], again["embedded"], again["pending"]) == (0, 0, 0)
    assert cli.json("search", "who is logged in", "--scope", "global", "--mode", "semantic",
                    )[0]["title"] == "Keep sessions in signed cookies"
    # --pending drains the whole queue: with --scope it embedded every scope's rows anyway
    assert_fails(cli("reindex", "--pending", "--scope", "board:a"), 2,
                 "--pending embeds every row waiting for vectors, whatever its scope")


def test_a_store_embedded_by_the_older_model_says_to_reindex_in_one_line(
    cli: Cli, tmp_path: Path
) -> None:
    """A store whose vectors ryvem's previous model made (named all-MiniLM-L6-v2-int8): a
    search says in one stderr line to run `ryvem graph reindex`, and reindex converts it."""
    import sqlite3

    assert cli.json("reindex")["embedded"] == 3
    [db] = [p for p in (tmp_path / "data").rglob("*.db")]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE node_vectors SET model = 'all-MiniLM-L6-v2-int8'")
    conn.close()
    question = "can a payment request be sent twice safely"
    r = cli.ok("search", question, "--mode", "semantic", "--scope", "global", "--json")
    assert r.json() == []
    [note] = [line for line in r.err.splitlines() if "another model" in line]
    assert note.startswith("note: 3 rows hold vectors of another model (all-MiniLM-L6-v2-int8)")
    assert note.endswith("run `ryvem graph reindex` to embed them again")
    done = cli.json("reindex")
    assert (done["queued"], done["embedded"], done["pending"]) == (3, 3, 0)
    r = cli.ok("search", question, "--mode", "semantic", "--scope", "global", "--json")
    assert r.json()[0]["title"] == "Checkout is idempotent" and r.err == ""


def test_without_the_model_search_is_lexical_with_a_note_and_semantic_is_an_error(
    cli: Cli,
) -> None:
    """With the model off (RYVEM_EMBEDDING=off), the default search is lexical with a one-line
    note, never an error; asking for semantic or hybrid is a clear exit-2 error."""
    cli.env["RYVEM_EMBEDDING"] = "off"
    r = cli.ok("search", "checkout", "--scope", "global", "--json")
    assert [h["title"] for h in r.json()] == ["Checkout is idempotent"]
    [note] = r.err.splitlines()
    assert note.startswith("note: semantic search is off") and "lexically" in note
    assert_fails(cli("search", "checkout", "--mode", "semantic"), 2, "unavailable")
    assert_fails(cli("search", "checkout", "--mode", "hybrid"), 2, "unavailable")
    done = cli.json("reindex")
    assert done["embedded"] == 0 and done["pending"] == 3


def test_reindex_without_the_model_keeps_the_stored_vectors(cli: Cli) -> None:
    """With the model off, reindex rebuilds the text index and says why it embeds nothing;
    it drops no vector (it used to queue every row again, deleting their vectors), so once
    the model is back semantic search finds the rows with no reindex and no pending note."""
    assert cli.json("reindex")["embedded"] == 3
    cli.env["RYVEM_EMBEDDING"] = "off"
    r = cli.ok("reindex", "--json")
    done = r.json()
    assert done["text_rows"] == 3
    assert (done["queued"], done["embedded"], done["pending"]) == (0, 0, 0)
    assert "stored vectors are kept" in done["note"]
    del cli.env["RYVEM_EMBEDDING"]
    r = cli.ok("search", "can a payment request be sent twice safely", "--mode", "semantic",
               "--scope", "global", "--json")
    assert r.json()[0]["title"] == "Checkout is idempotent" and r.err == ""


def test_import_embeds_the_new_pages(tmp_path: Path) -> None:
    """import writes the pages, then embeds them; --no-embed leaves them queued."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Sessions.md").write_text("# Sessions\nLogin state lives in a signed cookie.\n")
    (vault / "Retries.md").write_text("# Retries\nA checkout may be sent twice safely.\n")
    cli = Cli(tmp_path, tmp_path / "data", semantic=True)
    summary = cli.json("import", str(vault), "--scope", "global")
    assert (summary["embedded"], summary["vectors_pending"]) == (2, 0)
    (vault / "Third.md").write_text("# Third\nSomething else.\n")
    later = cli.json("import", str(vault), "--scope", "global", "--no-embed")
    assert (later["embedded"], later["vectors_pending"]) == (0, 1)


# --- MCP ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def portal() -> BlockingPortal:
    with start_blocking_portal() as p:
        yield p


def test_mcp_search_takes_a_mode_and_returns_ranks(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """memory_search defaults to hybrid, carries each hit's ranks and the mode; its
    background embedder embeds writes without the write waiting for it."""
    from integration.test_mcp_server import serve

    with serve(portal, tmp_path, tmp_path / "data") as server:
        for title, key, body in PAGES:
            server.ok("memory_write", kind="decision", title=title, key=key, body=body)
        deadline = time.monotonic() + 120
        while True:
            found = server.ok("memory_search", text="where do we keep who is logged in")
            if not found["notes"] or time.monotonic() > deadline:
                break
            assert "background" in found["notes"][0]
            time.sleep(0.5)
        assert found["mode"] == "hybrid" and found["notes"] == []
        top = found["items"][0]
        assert top["title"] == "Keep sessions in signed cookies"
        assert top["ranks"]["semantic"] == 1
        lexical = server.ok("memory_search", text="checkout", mode="lexical")
        assert lexical["mode"] == "lexical"
        assert [i["ranks"] for i in lexical["items"]] == [{"lexical": 1, "semantic": None}]
        listed = server.ok("memory_search")["items"]
        assert [i["ranks"] for i in listed] == [{"lexical": None, "semantic": None}] * len(PAGES)
        message = server.error("memory_search", text="checkout", mode="semantic",
                               as_of="2999-01-01")
        assert "current rows only" in message
        assert json.loads(json.dumps(found)) == found


def test_the_library_refuses_a_scope_with_pending_only(tmp_path: Path) -> None:
    """`Session.reindex(scope, pending_only=True)` embedded every scope's queued rows."""
    import ryvem
    from ryvem.errors import InvalidInput

    with (ryvem.open_session(db=tmp_path / "x.db") as session,
          pytest.raises(InvalidInput, match="pending_only embeds every queued row")):
        session.reindex("board:zzz", pending_only=True)


def test_history_search_on_the_command_line_marks_each_past_hit(cli: Cli) -> None:
    """`search --history` finds what only a past version says; the table names the hit as
    superseded with the day it ended, --json says status and window; with --as-of it is
    one line, exit 2."""
    cli.ok("put", "decision", "--title", "Queue in RabbitMQ", "--key", "queue", "--scope",
           "global", "--valid-from", "2026-01-01")
    cli.ok("put", "decision", "--title", "Queue in Postgres", "--key", "queue", "--scope",
           "global", "--valid-from", "2026-02-01")
    assert cli.json("search", "rabbitmq", "--scope", "global", "--mode", "lexical") == []
    [hit] = cli.json("search", "rabbitmq", "--scope", "global", "--history")
    assert (hit["title"], hit["status"], hit["valid_to"]) == (
        "Queue in RabbitMQ", "superseded", "2026-02-01T00:00:00.000000Z")
    table = cli.ok("search", "rabbitmq", "--scope", "global", "--history")
    assert "Queue in RabbitMQ (superseded 2026-02-01)" in table.out
    assert "history search is lexical" in table.err
    assert_fails(cli("search", "x", "--history", "--as-of", "2026-01-15"), 2,
                 "give one or the other")
