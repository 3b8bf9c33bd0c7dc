"""Copying a whole graph between SQLite and a real Neo4j server, both ways, and the CLI verb."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from backends import Neo4jServer
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.copy import copy_graph
from ryvem.application.service import Service
from ryvem.domain.model import Edge, NodeVersion
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository

RYVEM = shutil.which("ryvem", path=str(Path(sys.executable).parent))
BOARD = "board:infra"


@pytest.fixture
def lite(sqlite_repo: SqliteRepository) -> SqliteRepository:
    """An empty SQLite repository."""
    return sqlite_repo


def fill(repo: GraphRepository) -> None:
    """Chains, a retire and a revival, unkeyed rows, links (one resolved late), closed and
    open edges, two scopes, unicode data."""
    svc = Service(repo)
    svc.write("decision", "Cache with Redis", key="cache", body="Needs [[latency]] and [[budget]].")
    svc.write("decision", "Cache in process", key="cache", body="Only [[latency]] now.",
              data={"why": "Redis was overkill", "ünïcode": ["é", 1, None, True]})
    svc.write("page", "Latency", key="latency", body="p99 under 20 ms")
    svc.write("note", "An unkeyed thought", body="no key, own entity")
    svc.write("task", "Old task", key="old")
    svc.retire("old", reason="done elsewhere")
    svc.write("task", "Old task, back", key="old")
    svc.write("task", "Infra work", key="infra", scope=BOARD, body="see [[cache]]")
    svc.link("cache", "old", "depends-on", data={"weight": 2})
    svc.link("cache", "old", "depends-on", data={"weight": 3})
    svc.link("latency", "old", "about")
    svc.unlink("latency", "old", "about")
    svc.write("page", "Budget", key="budget")


def versions(repo: GraphRepository) -> list[tuple[NodeVersion, tuple[str, ...]]]:
    return [p for batch in repo.iter_versions() for p in batch]


def edges(repo: GraphRepository) -> list[Edge]:
    return [e for batch in repo.iter_edges() for e in batch]


def assert_same_graph(a: GraphRepository, b: GraphRepository) -> None:
    assert versions(a) == versions(b)
    assert edges(a) == edges(b)
    sa, sb = a.stats(), b.stats()
    assert sa.model_dump(exclude={"backend", "location"}) == sb.model_dump(
        exclude={"backend", "location"}
    )


def test_copying_sqlite_to_neo4j_keeps_every_version_edge_window_and_link_target(
    lite: SqliteRepository, neo: Neo4jRepository
) -> None:
    """Every row arrives verbatim (ids, windows, chains, reasons, targets) and counts match."""
    fill(lite)
    report = copy_graph(lite, neo)
    assert report.counts_match, report.differences
    assert (report.versions_read, report.edges_read) == (len(versions(lite)), len(edges(lite)))
    assert (report.versions_new, report.edges_new) == (report.versions_read, report.edges_read)
    assert_same_graph(lite, neo)
    assert (report.target.superseded_rows, report.target.retired_rows) == (2, 0)  # revived
    retired = [v for v, _ in versions(neo) if v.retired_reason]
    assert [v.retired_reason for v in retired] == ["done elsewhere"]


def test_copying_neo4j_to_sqlite_keeps_everything_too(
    neo: Neo4jRepository, tmp_path: Path
) -> None:
    """A graph written on Neo4j copies into an empty SQLite file row for row."""
    fill(neo)
    with SqliteRepository.open(tmp_path / "target.db") as target:
        report = copy_graph(neo, target, batch=3)
        assert report.counts_match, report.differences
        assert report.versions_new == len(versions(neo))
        assert_same_graph(neo, target)


def test_running_a_copy_again_adds_nothing_and_still_matches(
    lite: SqliteRepository, neo: Neo4jRepository
) -> None:
    """Rows already in the target are skipped, so a second (or resumed) copy is harmless."""
    fill(lite)
    copy_graph(lite, neo, batch=4)
    again = copy_graph(lite, neo, batch=4)
    assert (again.versions_new, again.edges_new) == (0, 0)
    assert again.counts_match
    assert_same_graph(lite, neo)


def test_a_copied_graph_answers_every_read_the_same_way(
    lite: SqliteRepository, neo: Neo4jRepository
) -> None:
    """History, as-of reads, walks, search and dangling links agree after a copy."""
    fill(lite)
    copy_graph(lite, neo)
    a, b = Service(lite), Service(neo)
    first = a.history("decision/cache")[0]
    assert [v.id for v in a.history("decision/cache")] == [v.id for v in b.history("cache")]
    assert a.get("cache", as_of=first.valid_from) == b.get("cache", as_of=first.valid_from)
    walk_a = [(s.src.id, s.dst.id, s.rel, s.hop) for s in a.traverse("cache", depth=3,
                                                                      direction="both")]
    walk_b = [(s.src.id, s.dst.id, s.rel, s.hop) for s in b.traverse("cache", depth=3,
                                                                      direction="both")]
    assert walk_a == walk_b and walk_a
    assert [h.id for h in a.search("cache")] == [h.id for h in b.search("cache")]
    assert a.unresolved("cache") == b.unresolved("cache")
    new = b.write("page", "Budget v2", key="budget")
    assert b.history("budget")[-1].id == new.id  # the copy is a live graph, writable


def test_copy_reports_progress_per_batch_and_refuses_a_store_onto_itself(
    lite: SqliteRepository,
) -> None:
    """The callback sees each batch's running total; copying a store onto itself is refused."""
    fill(lite)
    seen: list[tuple[str, int, int]] = []
    with SqliteRepository.open(lite.path.parent / "other.db") as target:
        copy_graph(lite, target, batch=2, progress=lambda p, d, t: seen.append((p, d, t)))
    total_v, total_e = len(versions(lite)), len(edges(lite))
    assert seen[0] == ("versions", 0, total_v) and ("versions", total_v, total_v) in seen
    assert seen[-1] == ("edges", total_e, total_e)
    assert [d for p, d, _ in seen if p == "versions"] == sorted(
        d for p, d, _ in seen if p == "versions"
    )
    with pytest.raises(InvalidInput):
        copy_graph(lite, lite)


def test_a_target_holding_other_rows_is_reported_as_differing_counts(
    lite: SqliteRepository, neo: Neo4jRepository
) -> None:
    """The comparison names each count per kind, scope and rel that disagrees."""
    fill(lite)
    Service(neo).write("idea", "Only in Neo4j", key="extra")
    report = copy_graph(lite, neo)
    assert not report.counts_match
    assert "kind idea: sqlite 0, neo4j 1" in report.differences
    assert any(d.startswith("scope global:") for d in report.differences)


# --- the CLI --------------------------------------------------------------------------------


def run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert RYVEM is not None, "the ryvem console script is not installed next to python"
    return subprocess.run(
        [RYVEM, "graph", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
        check=False,
    )


def cli_env(tmp_path: Path, uri: str, user: str, password: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env |= {
        "RYVEM_DATA_DIR": str(tmp_path / "data"),
        "RYVEM_NEO4J_URI": uri,
        "RYVEM_NEO4J_USER": user,
        "RYVEM_NEO4J_PASSWORD": password,
    }
    return env


def test_the_copy_verb_moves_a_graph_to_neo4j_and_back_with_counts_verified(
    neo: Neo4jRepository, neo4j_server: Neo4jServer, tmp_path: Path
) -> None:
    """`copy --to neo4j` then `copy --from neo4j --to sqlite` both end with "counts match"."""
    source = tmp_path / "data" / "dev.db"
    source.parent.mkdir()
    with SqliteRepository.open(source) as lite:
        fill(lite)
        expected = versions(lite)
    env = cli_env(tmp_path, neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    out = run(env, tmp_path, "copy", "--to", "neo4j")
    assert out.returncode == 0, out.stderr
    assert f"{len(expected)} versions ({len(expected)} new)" in out.stdout
    assert "counts match" in out.stdout
    assert versions(neo) == expected

    back = tmp_path / "back.db"
    out = run(env, tmp_path, "--db", str(back), "copy", "--from", "neo4j", "--to", "sqlite")
    assert out.returncode == 0, out.stderr
    assert "counts match" in out.stdout
    with SqliteRepository.open(back) as copied:
        assert versions(copied) == expected


def test_a_redaction_after_a_copy_reaches_the_server_with_the_next_copy(
    neo: Neo4jRepository, neo4j_server: Neo4jServer, tmp_path: Path
) -> None:
    """The sweep's report: redact in the file after `copy --to neo4j`, copy again, and the
    server kept the secret while its audit listed the redaction. Now the second copy says
    what it rewrote and the server holds the redacted text."""
    env = cli_env(tmp_path, neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    put = run(env, tmp_path, "put", "note", "--scope", "global", "--key", "k",
              "--title", "tok ghp_SECRET123456 here")
    assert put.returncode == 0, put.stderr
    assert run(env, tmp_path, "copy", "--to", "neo4j", "--no-embed").returncode == 0
    assert run(env, tmp_path, "redact", "ghp_SECRET123456", "--reason", "leak").returncode == 0
    out = run(env, tmp_path, "copy", "--to", "neo4j", "--no-embed", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["forgotten"] == {"versions": 1, "edges": 0, "kept": 0}
    assert report["audit"] == {"read": 1, "new": 1}
    on_server = {**env, "RYVEM_BACKEND": "neo4j"}
    got = run(on_server, tmp_path, "get", "note/k", "--scope", "global", "--json")
    assert got.returncode == 0, got.stderr
    node = json.loads(got.stdout)
    assert (node["title"], node["erased"]) == ("tok [redacted] here", "redacted")
    again = run(env, tmp_path, "copy", "--to", "neo4j", "--no-embed")
    assert again.returncode == 0 and "rewritten" not in again.stdout, again.stdout


def semantic_ids(env: dict[str, str], cwd: Path, *where: str) -> tuple[list[str], str]:
    out = run(env, cwd, *where, "search", "how do we cache", "--mode", "semantic",
              "--all-scopes", "--json")
    assert out.returncode == 0, out.stderr
    return [hit["id"] for hit in json.loads(out.stdout)], out.stderr


def test_a_copied_graph_answers_semantic_search_like_its_source_both_ways(
    neo: Neo4jRepository, neo4j_server: Neo4jServer, tmp_path: Path
) -> None:
    """Vectors are not copied: the target's rows were left queued, so right after `copy` a
    semantic search there found nothing ("N rows are not embedded yet"). The copy embeds
    them, as an import does, and says so."""
    source = tmp_path / "data" / "dev.db"
    source.parent.mkdir()
    with SqliteRepository.open(source) as lite:
        fill(lite)
    env = cli_env(tmp_path, neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    assert run(env, tmp_path, "reindex", "--pending").returncode == 0
    expected, _ = semantic_ids(env, tmp_path, "--backend", "sqlite")
    assert expected, "the source finds nothing: is the embedding model installed?"

    out = run(env, tmp_path, "copy", "--to", "neo4j")
    assert out.returncode == 0, out.stderr
    assert "vectors: " in out.stdout and " 0 pending" in out.stdout, out.stdout
    ids, note = semantic_ids(env, tmp_path, "--backend", "neo4j")
    assert (ids, note) == (expected, "")

    back = tmp_path / "back.db"
    out = run(env, tmp_path, "--db", str(back), "copy", "--from", "neo4j", "--to", "sqlite",
              "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["vectors_pending"] == 0
    ids, note = semantic_ids(env, tmp_path, "--db", str(back), "--backend", "sqlite")
    assert (ids, note) == (expected, "")

    out = run(env, tmp_path, "copy", "--to", "neo4j", "--no-embed")  # nothing new to embed
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    "args",
    [["copy", "--to", "sqlite", "--from", "sqlite"], ["copy", "--to", "mysql"], ["copy"]],
)
def test_bad_copy_arguments_exit_2_with_one_line(tmp_path: Path, args: list[str]) -> None:
    """Same backend on both sides, an unknown backend, or no --to: one line, exit 2."""
    env = cli_env(tmp_path, "bolt://127.0.0.1:9", "neo4j", "x")
    out = run(env, tmp_path, *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: ") and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr


def test_copying_to_an_unreachable_neo4j_exits_1_with_one_line(tmp_path: Path) -> None:
    """A closed port for the target: one error line naming the URI, exit 1."""
    source = tmp_path / "data" / "dev.db"
    source.parent.mkdir()
    with SqliteRepository.open(source) as lite:
        fill(lite)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = cli_env(tmp_path, f"bolt://127.0.0.1:{port}", "neo4j", "whatever-password")
    out = run(env, tmp_path, "copy", "--to", "neo4j")
    assert out.returncode == 1, out.stderr
    assert out.stderr == (
        f"error: cannot reach Neo4j at bolt://127.0.0.1:{port} (connection refused): is the "
        "server running? (scripts/neo4j-local start, or docker compose -f "
        "docker/docker-compose.yml up -d)\n"
    )
