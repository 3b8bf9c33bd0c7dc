"""Silence when nothing matches, and hits that say why (issue 40), through the real faces
with the real local model: a question whose words no memory holds returns only what is
close in meaning (often nothing), in the CLI and over MCP; every hit carries each leg's own
score and a confidence."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from pages import DECISIONS
from support.cli import Cli

NOTHING = ["zq81fa0c93e4", "qwxv zzkq plorbt", "blorfen the quaddle", "yak"]


pytestmark = pytest.mark.usefixtures("local_model")


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    c = Cli(tmp_path, tmp_path / "data", semantic=True)
    for title, key, body in DECISIONS:
        c.ok("put", "decision", "--title", title, "--key", key, "--body", body)
    c.ok("put", "note", "--title", "The cat sat on the mat",
         "--body", "A small cat was sitting on the mat all afternoon.")
    c.ok("put", "review", "--title", "Same title", "--body", "the reviewer liked the change")
    return c


@pytest.mark.parametrize("text", NOTHING)
def test_a_question_whose_words_no_memory_holds_returns_nothing_by_default(
    cli: Cli, text: str,
) -> None:
    assert cli.json("search", text) == []
    assert cli.json("search", text, "--mode", "hybrid") == []
    assert cli.json("search", text, "--mode", "lexical") == []


def test_a_paraphrase_close_in_meaning_still_finds_its_memory_without_a_shared_word(
    cli: Cli,
) -> None:
    hits = cli.json("search", "kitten resting on a rug")
    assert [h["title"] for h in hits] == ["The cat sat on the mat"]
    assert hits[0]["ranks"] == {"lexical": None, "semantic": 1}
    assert hits[0]["scores"]["lexical"] is None and hits[0]["scores"]["semantic"] >= 0.5


def test_a_short_paraphrase_below_the_floor_is_the_floors_cost_and_semantic_mode_finds_it(
    cli: Cli,
) -> None:
    """What silence costs: "who is logged in" shares no word with "User login state lives in
    a signed cookie" and its cosine (about 0.41) is what random words reach, so the default
    says nothing; asking for meaning (``--mode semantic``) still finds it, and a question
    sharing one word ("where do we keep who is logged in") finds it by default."""
    assert cli.json("search", "who is logged in") == []
    assert cli.json("search", "who is logged in", "--mode", "semantic")[0]["title"] == (
        "Keep sessions in signed cookies")
    assert cli.json("search", "where do we keep who is logged in")[0]["title"] == (
        "Keep sessions in signed cookies")


def test_every_hit_says_each_legs_score_and_a_confidence(cli: Cli) -> None:
    hits = cli.json("search", "where do we keep who is logged in")
    assert hits, "a natural question about sessions finds the sessions decision"
    for h in hits:
        assert set(h["scores"]) == {"lexical", "semantic"}
        assert 0.0 <= h["confidence"] <= 1.0
        assert h["confidence"] == pytest.approx(h["score"])
        for leg in ("lexical", "semantic"):
            assert (h["ranks"][leg] is None) == (h["scores"][leg] is None)
    assert [h["confidence"] for h in hits] == sorted((h["confidence"] for h in hits),
                                                     reverse=True)
    lexical = cli.json("search", "sessions", "--mode", "lexical")
    assert lexical and all(h["confidence"] is None for h in lexical)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as p:
        yield p


def test_mcp_search_is_silent_too_and_carries_the_scores(
    portal: BlockingPortal, tmp_path: Path,
) -> None:
    from integration.test_mcp_server import serve

    with serve(portal, tmp_path, tmp_path / "data") as server:
        for title, key, body in DECISIONS:
            server.ok("memory_write", kind="decision", title=title, key=key, body=body)
        found = server.ok("memory_search", text="where do we keep who is logged in")
        for _ in range(240):  # the background embedder catches up with the writes
            if not found["notes"]:
                break
            time.sleep(0.5)
            found = server.ok("memory_search", text="where do we keep who is logged in")
        assert found["mode"] == "hybrid" and found["items"]
        assert {"scores", "confidence"} <= set(found["items"][0])
        for text in NOTHING:
            assert server.ok("memory_search", text=text)["items"] == []
