"""SQLite and Neo4j rank the same store alike: one contract, two engines (FTS5 bm25, Lucene).

The vendored SilverBullet docs (277 pages) are imported into both backends and every question
of ``eval/questions.jsonl`` (only its text: answers play no part) is asked of both. The
engines differ in details — Lucene's English analyzer drops stop words from the documents too,
the IDF formulas differ for common words — so the tolerance is stated, not exact:

* every query shares at least 2 of its top 5 pages between the backends;
* at least 75% of queries share at least 4 of 5 (measured: 88 of 104);
* at least 80% of queries have the same top hit (measured: 94 of 104).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends import Neo4jServer, open_empty_neo4j
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.application.vault import import_vault

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpora" / "silverbullet"
QUESTIONS = [
    json.loads(line)["question"]
    for line in (ROOT / "eval" / "questions.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]


def top_keys(svc: Service, text: str, k: int = 5) -> list[str]:
    keys = []
    for hit in svc.search(text, limit=k):
        v = svc.repo.get_version(hit.id)
        assert v is not None and v.key is not None
        keys.append(v.key)
    return keys


@pytest.fixture
def both(tmp_path: Path, neo4j_server: Neo4jServer) -> tuple[Service, Service]:
    sqlite = Service(SqliteRepository.open(tmp_path / "g.db"))
    neo = Service(open_empty_neo4j(neo4j_server))
    for svc in (sqlite, neo):
        summary = import_vault(svc, CORPUS)
        assert summary.problems == []
    return sqlite, neo


def test_sqlite_and_neo4j_give_the_same_top_hits_within_the_stated_tolerance(
    both: tuple[Service, Service],
) -> None:
    """Top-5 overlap >= 2 on every query, >= 4 on 75% of them, the same first hit on 80%."""
    sqlite, neo = both
    try:
        overlaps, same_first = [], 0
        for q in QUESTIONS:
            a, b = top_keys(sqlite, q), top_keys(neo, q)
            assert a and b, q
            overlaps.append(len(set(a) & set(b)))
            assert overlaps[-1] >= 2, (q, a, b)
            same_first += a[0] == b[0]
        n = len(QUESTIONS)
        assert n >= 100
        assert sum(1 for o in overlaps if o >= 4) >= 0.75 * n
        assert same_first >= 0.8 * n
    finally:
        sqlite.repo.close()
        neo.repo.close()
