"""Searching every version, whenever it held (``Session.search(history=True)``, ``search
--history``, MCP ``history``), on both backends through the application."""

from __future__ import annotations

import pytest

from ryvem.application.search import PastSemanticSearch
from ryvem.application.session import Session
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository


def session(repo: GraphRepository) -> Session:
    # Without the model: a history search is lexical either way, and says so.
    return Session(lambda: repo, embedder=lambda: "semantic search is off: test")


def plant(s: Session) -> None:
    svc = s.service("global")
    svc.write("decision", "Sessions in Redis", key="sess", valid_from="2026-01-01",
              body="We keep user sessions in Redis, behind the load balancer.")
    svc.write("decision", "Sessions in signed cookies", key="sess", valid_from="2026-03-01",
              body="Sessions moved to signed cookies; nothing on the server.")
    svc.write("decision", "Feature flags with Unleash", key="flags", valid_from="2026-01-01",
              body="Use Unleash for feature flags.")
    svc.retire("decision/flags", reason="flags are plain environment variables",
               valid_to="2026-04-01")
    svc.write("task", "Write the onboarding guide", key="guide", body="For new people.")


def test_a_history_search_finds_what_only_a_past_version_says_and_says_which_it_is(
    repo: GraphRepository,
) -> None:
    """An agent's questions whose answer lives only in a version no longer current ("did we
    ever use Unleash?", "what did we keep sessions in before cookies?") found nothing, or
    junk, in a search of current rows. A history search answers them, one hit a node, each
    saying which version it is and when it held."""
    s = session(repo)
    plant(s)
    assert [h.hit.title for h in s.search("unleash", scope="global").hits] == []
    flags = s.search("unleash", scope="global", history=True)
    assert flags.mode == "lexical" and flags.notes == (
        "history search is lexical: vectors are kept for current rows only",)
    [hit] = flags.hits
    assert hit.record()["title"] == "Feature flags with Unleash"
    assert {k: hit.record()[k] for k in ("status", "valid_from", "valid_to")} == {
        "status": "retired", "valid_from": "2026-01-01T00:00:00.000000Z",
        "valid_to": "2026-04-01T00:00:00.000000Z"}
    redis = s.search("redis load balancer", scope="global", history=True).hits
    assert [(h.hit.title, h.record()["status"]) for h in redis] == [
        ("Sessions in Redis", "superseded")]
    # One hit a node: both versions of "sess" match "sessions"; the node comes back once.
    both = s.search("sessions", scope="global", history=True).hits
    assert len(both) == 1 and both[0].record()["status"] in ("current", "superseded")
    current = s.search("onboarding guide", scope="global", history=True).hits
    assert [h.record()["status"] for h in current] == ["current"]


def test_a_history_search_takes_no_moment_and_no_semantic_mode(repo: GraphRepository) -> None:
    s = session(repo)
    plant(s)
    with pytest.raises(InvalidInput, match="give one or the other"):
        s.search("redis", scope="global", history=True, as_of="2026-02-01")
    with pytest.raises(InvalidInput, match="history must be true or false"):
        s.search("redis", scope="global", history="yes")  # type: ignore[arg-type]
    with pytest.raises(PastSemanticSearch):
        s.search("redis", scope="global", history=True, mode="semantic")
