"""A hybrid search on SQLite runs its lexical leg on a connection of its own, in a worker
thread beside the vector leg: the hits and ranks are those of the legs run one after the
other, and the search sees every write committed before it. Real store file, real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import unavailable
from pages import DECISIONS
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.application.session import Session

PAGES = [
    *DECISIONS,
    ("Sessions expire after a day", "expiry", "A session cookie older than a day is refused."),
]
QUESTIONS = ["where do we keep who is logged in", "what makes checkout retry safe",
             "sessions", "which database do we use"]


@pytest.fixture(scope="module")
def embedder() -> object:
    from ryvem.embedding import load_default, probe

    reason = probe()
    if reason is not None:
        unavailable(reason)
    return load_default()


def _session(path: Path, embedder: object) -> tuple[SqliteRepository, Session]:
    repo = SqliteRepository.open(path)
    return repo, Session(lambda: repo, embedder=lambda: embedder)  # type: ignore[arg-type,return-value]


def _embedded(path: Path, embedder: object) -> tuple[SqliteRepository, Session]:
    """A store of PAGES, every row embedded."""
    repo, session = _session(path, embedder)
    for title, key, body in PAGES:
        Service(repo).write("decision", title, key=key, scope="global", body=body)
    session.embed_pending()
    return repo, session


def _hits(session: Session, text: str) -> list[tuple[str, dict[str, int | None]]]:
    found = session.search(text, mode="hybrid", all_scopes=True, limit=10)
    assert found.mode == "hybrid"
    return [(h.hit.title, h.ranks) for h in found.hits]


def test_side_by_side_legs_give_the_hits_and_ranks_of_legs_run_one_after_the_other(
    tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, session = _embedded(tmp_path / "m.db", embedder)
    assert repo.reads_concurrently
    together = {q: _hits(session, q) for q in QUESTIONS}
    monkeypatch.setattr(SqliteRepository, "reads_concurrently", property(lambda self: False))
    apart = {q: _hits(Session(lambda: repo, embedder=lambda: embedder), q)  # type: ignore[arg-type,return-value]
             for q in QUESTIONS}
    assert together == apart
    assert together["sessions"][0][1]["lexical"] is not None
    repo.close()


def test_a_hybrid_search_sees_a_write_committed_just_before_it(
    tmp_path: Path, embedder: object
) -> None:
    repo, session = _session(tmp_path / "m.db", embedder)
    svc = Service(repo)
    svc.write("decision", "Use SQLite", key="store", scope="global", body="One file.")
    assert all(t != "Redis was dropped" for t, _ in _hits(session, "redis"))  # opens it
    svc.write("decision", "Redis was dropped", key="redis", scope="global",
              body="Redis cost more than it saved.")
    hits = _hits(session, "redis")
    assert hits and hits[0][0] == "Redis was dropped" and hits[0][1]["lexical"] == 1
    repo.close()
    assert not repo.reads_concurrently  # closed: its search connection with it


def test_the_vector_leg_runs_on_one_core_beside_the_lexical_leg_and_on_all_alone(
    tmp_path: Path, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ryvem.embedding import index

    repo, session = _embedded(tmp_path / "m.db", embedder)
    seen: list[bool] = []
    product = index.similarities

    def spied(matrix: object, q: object) -> object:
        seen.append(index.one_core())
        return product(matrix, q)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "similarities", spied)
    hybrid = session.search("sessions", mode="hybrid", all_scopes=True)
    semantic = session.search("sessions", mode="semantic", all_scopes=True)
    assert seen == [True, False]  # beside the lexical leg, then alone
    assert not index.one_core()
    # the vector leg ranks alike on one core and on all
    by_rank = {r + 1: h.hit.id for r, h in enumerate(semantic.hits)}
    legs = {h.ranks["semantic"]: h.hit.id for h in hybrid.hits if h.ranks.get("semantic")}
    assert legs and all(by_rank[r] == hit for r, hit in legs.items())
    repo.close()
