"""A write on Neo4j plans on the context the last write of the same identities and link
tails left behind (one round trip instead of two), and never writes or answers differently
for it: another process's write, a retirement or a redaction in between makes it re-read.

Each test drives two repositories on one real server — two processes as far as the kept
contexts go (each repository keeps its own) — and checks what the store holds after.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest

from backends import Neo4jServer, connect_neo4j
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.neo4j import repository as adapter
from ryvem.application.service import Service
from ryvem.domain.model import LINKS, SUPERSEDES
from ryvem.ports import WriteContext

SECRET = "xoxb-Kept-11aa22bb33cc"


@pytest.fixture
def other(neo: Neo4jRepository, neo4j_server: Neo4jServer) -> Iterator[Neo4jRepository]:
    """A second repository on the same (emptied) server: another process's writes."""
    r = connect_neo4j(neo4j_server)
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the planned-write queries sent, in order (write_context, apply_plan)."""
    names: list[str] = []
    real = adapter._Tx._once

    def once(self: Any, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        names.append(name)
        return real(self, name, params)

    monkeypatch.setattr(adapter._Tx, "_once", once)
    return names


def chain_titles(repo: Neo4jRepository, kind: str, key: str) -> list[str]:
    first = repo.latest_of_identity((kind, key, "global"))
    assert first is not None
    return [v.title for v in repo.chain(first.entity)]


def test_a_second_write_of_one_key_sends_only_the_guarded_apply(
    neo: Neo4jRepository, sent: list[str]
) -> None:
    svc = Service(neo)
    svc.write("decision", "One", key="k", body="see [[other]]")
    assert sent == ["write_context", "apply_plan"]
    sent.clear()
    svc.write("decision", "Two", key="k", body="see [[other]] again")
    third = svc.write("decision", "Three", key="k", body="see [[other]] once more")
    assert sent == ["apply_plan", "apply_plan"]
    assert chain_titles(neo, "decision", "k") == ["One", "Two", "Three"]
    assert third.supersedes is not None and third.is_current


def test_a_batch_that_wrote_a_key_drops_what_this_process_kept_for_it(
    neo: Neo4jRepository, sent: list[str]
) -> None:
    """A batch keeps no context of its own (too many identities) but still drops the ones it
    made stale, so the next write of one of its keys reads once instead of failing first."""
    svc = Service(neo)
    svc.write("decision", "One", key="k")
    svc.write("decision", "Two", key="k")
    svc.write_many([svc.prepare("decision", "Batch", key="k")]
                   + [svc.prepare("page", f"P{i}", key=f"p{i}") for i in range(12)])
    sent.clear()
    svc.write("decision", "Three", key="k")
    assert sent == ["write_context", "apply_plan"]
    assert chain_titles(neo, "decision", "k") == ["One", "Two", "Batch", "Three"]


def test_a_write_after_another_process_superseded_the_key_re_plans_on_its_version(
    neo: Neo4jRepository, other: Neo4jRepository, sent: list[str]
) -> None:
    mine, theirs = Service(neo), Service(other)
    mine.write("decision", "One", key="k")
    mine.write("decision", "Two", key="k")
    between = theirs.write("decision", "Theirs", key="k")
    sent.clear()
    last = mine.write("decision", "Three", key="k")
    assert sent == ["apply_plan", "write_context", "apply_plan"]  # refused, re-read, applied
    assert last.supersedes == between.id
    assert chain_titles(neo, "decision", "k") == ["One", "Two", "Theirs", "Three"]
    first = neo.latest_of_identity(("decision", "k", "global"))
    assert first is not None
    chain = neo.chain(first.entity)
    assert [v.id for v in chain if v.is_current] == [last.id]
    for old, new in pairwise(chain):
        assert old.superseded_by == new.id and new.supersedes == old.id
    supersedes = [e for batch in neo.iter_edges() for e in batch if e.rel == SUPERSEDES]
    assert len(supersedes) == 3


def test_writing_the_same_text_again_after_another_process_wrote_is_a_new_version(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    """"Unchanged" compares with the newest version: the one another process wrote, not the
    one this process wrote last."""
    mine, theirs = Service(neo), Service(other)
    mine.write("decision", "One", key="k")
    mine.write("decision", "Two", key="k")
    theirs.write("decision", "Theirs", key="k")
    again = mine.write("decision", "Two", key="k")
    assert chain_titles(neo, "decision", "k") == ["One", "Two", "Theirs", "Two"]
    assert again.is_current


def test_a_key_retired_elsewhere_between_two_writes_is_revived_not_superseded(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    mine, theirs = Service(neo), Service(other)
    mine.write("decision", "One", key="k")
    mine.write("decision", "Two", key="k")
    retired = theirs.retire("decision/k", reason="done")
    [result] = mine.write_many([mine.prepare("decision", "Three", key="k")])
    assert result.outcome == "revived"
    assert result.version.supersedes == retired.id
    assert chain_titles(neo, "decision", "k") == ["One", "Two", "Three"]
    reread = neo.get_version(retired.id)
    assert reread is not None and reread.retired_reason == "done"
    assert reread.superseded_by == result.version.id


def test_a_link_target_retired_elsewhere_is_not_linked_from_a_kept_context(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    """The kept context lists both pages ending in ``t`` as link candidates; another process
    retires one; a write that now links to it must see it is gone (the retirement moves the
    count of its key's last segment, which the write's guard checks) and link nothing."""
    mine, theirs = Service(neo), Service(other)
    theirs.write("page", "A", key="a/t")
    gone = theirs.write("page", "B", key="b/t")
    mine.write("page", "Src", key="src", body="see [[a/t]]")
    mine.write("page", "Src", key="src", body="see [[a/t]] again")
    theirs.retire("page/b/t", reason="moved")
    mine.write("page", "Src", key="src", body="see [[b/t]] now")
    src = neo.latest_of_identity(("page", "src", "global"))
    assert src is not None
    links = [e for batch in neo.iter_edges() for e in batch
             if e.rel == LINKS and e.src == src.entity and e.valid_to is None]
    assert links == []
    assert all(e.dst != gone.entity for batch in neo.iter_edges() for e in batch
               if e.rel == LINKS and e.valid_to is None)


def test_text_redacted_elsewhere_between_two_writes_never_comes_back_from_a_kept_context(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    """The redaction rewrites the newest version in place (same id): writing its old text
    again is a change against the redacted text, so it makes a new version — it is not
    "unchanged" against the text this process wrote and kept."""
    mine, theirs = Service(neo), Service(other)
    mine.write("task", "Token", key="t", body=f"token {SECRET}")
    kept = mine.write("task", "Token again", key="t", body=f"token {SECRET}")
    theirs.redact(SECRET, reason="rotate it")
    [result] = mine.write_many([mine.prepare("task", "Token again", key="t",
                                             body=f"token {SECRET}")])
    assert result.outcome == "superseded"  # against the redacted text
    assert result.version.supersedes == kept.id
    redacted = neo.get_version(kept.id)
    assert redacted is not None and SECRET not in redacted.body
    # And a different text after a redaction keeps the redacted version as it is.
    mine.write("task", "Token", key="t", body="rotated")
    again = neo.get_version(kept.id)
    assert again is not None and SECRET not in (again.body + again.title)


def test_a_redaction_anywhere_makes_the_next_write_on_a_kept_context_re_read(
    neo: Neo4jRepository, other: Neo4jRepository, sent: list[str]
) -> None:
    mine, theirs = Service(neo), Service(other)
    mine.write("task", "One", key="t")
    mine.write("task", "Two", key="t")
    theirs.write("page", "Elsewhere", key="elsewhere", body=f"holds {SECRET}")
    theirs.redact(SECRET, reason="rotate it")
    sent.clear()
    mine.write("task", "Three", key="t")
    assert sent == ["apply_plan", "write_context", "apply_plan"]


def test_a_link_target_written_elsewhere_between_two_writes_is_linked_once(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    mine, theirs = Service(neo), Service(other)
    mine.write("page", "A", key="a", body="see [[target]]")
    mine.write("page", "A", key="a", body="see [[target]] too")
    target = theirs.write("page", "Target", key="target")
    mine.write("page", "A", key="a", body="see [[target#part]] now")
    a = neo.latest_of_identity(("page", "a", "global"))
    assert a is not None
    links = [e for batch in neo.iter_edges() for e in batch
             if e.rel == LINKS and e.src == a.entity and e.valid_to is None]
    assert [(e.dst, e.data) for e in links] == [
        (target.entity, {"target": "target", "anchor": "#part"})]


def test_a_rename_moves_the_node_and_later_writes_of_the_new_key_continue_its_chain(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    mine, theirs = Service(neo), Service(other)
    mine.write("page", "Old", key="old")
    mine.write("page", "Old 2", key="old")
    [moved] = mine.write_many([mine.prepare("page", "New", key="new", renamed_from="old")])
    assert moved.outcome == "renamed"
    mine.write("page", "New 2", key="new")
    theirs.write("page", "Theirs", key="new")
    last = mine.write("page", "New 3", key="new")
    assert last.entity == moved.version.entity
    assert chain_titles(neo, "page", "new") == ["Old", "Old 2", "New", "New 2", "Theirs",
                                                "New 3"]


def _same(kept: WriteContext, read: WriteContext) -> None:
    assert dict(kept.latest) == dict(read.latest)
    assert kept.identities == read.identities
    assert kept.sources == read.sources and kept.source_tails == read.source_tails
    assert sorted(map(repr, kept.candidates)) == sorted(map(repr, read.candidates))
    assert kept.candidate_tails == read.candidate_tails
    assert sorted(kept.link_edges, key=lambda e: e.id) == sorted(read.link_edges,
                                                                 key=lambda e: e.id)
    assert kept.edge_sources == read.edge_sources


def test_the_context_kept_after_each_write_is_what_the_server_reads_for_the_next(
    neo: Neo4jRepository, other: Neo4jRepository
) -> None:
    """Writes that create, supersede, link to present and missing targets, change anchors,
    drop links and make another page's link resolve: after each, the kept context equals a
    fresh ``write_context`` (read on another repository) for the same question."""
    svc = Service(neo)
    svc.write("page", "Hub", key="notes/hub")
    steps = [
        ("page", "A", "a", "see [[notes/hub]] and [[missing]]"),
        ("page", "A", "a", "see [[hub#top]] and [[missing]]"),
        ("page", "B", "b", "back to [[a]] and [[hub]]"),
        ("page", "Missing", "missing", "[[a]] [[b]]"),
        ("page", "A", "a", "see [[hub#top]] and [[missing]]; more"),
        ("page", "A", "a", "see [[hub#top]] and [[missing]]; more"),  # unchanged
        ("page", "B", "b", "no links any more"),
        ("page", "B", "b", "no links any more, still"),
    ]
    for kind, title, key, body in steps:
        svc.write(kind, title, key=key, body=body)
        for k, kept in list(neo._contexts._kept.items()):
            idents, key_tails, tails = k

            def read(tx: Any, k: Any = k) -> tuple[WriteContext, dict[str, int], int | None]:
                ctx = tx.write_context(list(k[0]), list(k[1]), list(k[2]))
                return ctx, dict(tx._tail_writes), tx._epoch

            ctx, counts, epoch = other.write(read)
            _same(kept.context, ctx)
            assert kept.tail_writes == counts and kept.epoch == epoch, (idents, key_tails, tails)
