"""The Neo4j adapter on a real server: what the shared contract suite cannot say on its own.

Query hygiene (hostile strings never reach Cypher; every parameter is named in its file's
header), the schema the store enforces, concurrent writers of one identity, driver errors as
one-line ryvem errors, and the variable-length peer of the level-by-level walk.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from itertools import pairwise
from pathlib import Path

import pytest

from backends import Neo4jServer
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.neo4j import queries as cypher
from ryvem.application.service import Service
from ryvem.domain.model import SUPERSEDES
from ryvem.errors import BackendUnavailable, IntegrityError, InvalidInput

RYVEM = shutil.which("ryvem", path=str(Path(sys.executable).parent))
HOSTILE = [
    "decision` DETACH DELETE n //",
    "x}) MATCH (n) DETACH DELETE n //",
    "Current",
    "a:b",
    "a' OR 1=1 --",
    "kind\nMATCH (n) DETACH DELETE n",
    "",
]


@pytest.fixture
def svc(neo: Neo4jRepository) -> Service:
    """A service over an empty Neo4j repository."""
    return Service(neo)


def version_count(repo: Neo4jRepository) -> int:
    return sum(len(batch) for batch in repo.iter_versions())


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- query hygiene --------------------------------------------------------------------------


def test_hostile_kind_rel_and_scope_strings_are_refused_before_any_query(svc: Service) -> None:
    """Kinds, rels and scopes that are not slugs raise InvalidInput and change nothing."""
    a = svc.write("decision", "A", key="a")
    b = svc.write("decision", "B", key="b")
    before = version_count(svc.repo)  # type: ignore[arg-type]
    for bad in HOSTILE:
        with pytest.raises(InvalidInput):
            svc.write(bad, "T", key="k")
        with pytest.raises(InvalidInput):
            svc.write("decision", "T", key="k", scope=bad)
        with pytest.raises(InvalidInput):
            svc.link("a", "b", bad)
        with pytest.raises(InvalidInput):
            svc.search("a", kinds=[bad])
        with pytest.raises(InvalidInput):
            svc.search("a", scope=bad)
        with pytest.raises(InvalidInput):
            svc.traverse("a", rels=[bad])
    assert version_count(svc.repo) == before  # type: ignore[arg-type]
    assert svc.get("a").id == a.id and svc.get("b").id == b.id


def test_hostile_keys_titles_bodies_and_search_text_are_stored_and_matched_as_values(
    svc: Service,
) -> None:
    """Free text reaches Neo4j only as parameters: it is stored verbatim and deletes nothing."""
    keeper = svc.write("page", "Keeper", key="keeper")
    evil = "x'}) MATCH (n) DETACH DELETE n //`"
    v = svc.write("page", evil, key=evil, body=f"{evil} $param {{brace}} \\ \"quote\"")
    assert svc.get(f"page/{evil}").body == v.body
    for text in [evil, "title:x OR *:*", '") OR ("', "\\", "*"]:
        svc.search(text)
    assert [h.id for h in svc.search("detach delete")] == [v.id]
    assert svc.get("keeper").id == keeper.id


def test_every_query_file_names_its_parameters_in_its_header() -> None:
    """Each .cypher file starts with a comment naming the query and every $parameter it uses."""
    names = cypher.names()
    assert "expand_out" in names and "insert_versions" in names
    for name in names:
        for past in (False, True):
            for known in (False, True):  # each window predicate __VALID__ may become
                text = cypher.load(name, past=past, known=known)
                header = "\n".join(line for line in text.splitlines() if line.startswith("//"))
                assert header.startswith(f"// {name}:"), name
                body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
                assert "__VALID__" not in body, name
                for param in set(re.findall(r"\$([A-Za-z_]\w*)", body)):
                    assert f"${param}" in header, f"{name}: ${param} not named in the header"


def test_only_a_clamped_integer_is_ever_spliced_into_a_query() -> None:
    """The one placeholder takes an int in [1, 10] and nothing else; no other file has one."""
    assert "*1..7]" in cypher.with_bound("reach_varlength", 7)
    for bad in [0, 11, -1, True, "3", "1]->(m) DETACH DELETE m //", 2.0]:
        with pytest.raises(ValueError):
            cypher.with_bound("reach_varlength", bad)  # type: ignore[arg-type]
    with_placeholder = [n for n in cypher.names() if "__MAX_HOPS__" in cypher.load(n)]
    assert with_placeholder == ["reach_varlength", "walk_both", "walk_in", "walk_out"]
    with pytest.raises(ValueError):
        cypher.load("../repositories/neo4j")


# --- the schema the store enforces -----------------------------------------------------------


def test_connecting_creates_the_schema_once_and_again_changes_nothing(
    neo: Neo4jRepository, neo4j_server: Neo4jServer
) -> None:
    """Bootstrap is idempotent: a second connect finds every constraint and index in place."""

    def schema(repo: Neo4jRepository) -> set[str]:
        return {r["name"] for r in repo._query("schema_names")}  # the adapter's own listing

    first = schema(neo)
    again = Neo4jRepository.connect(neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    try:
        assert schema(again) == first
    finally:
        again.close()
    assert {"ryvem_version_id", "ryvem_one_current", "ryvem_edge_id",
            "ryvem_edge_one_current", "ryvem_text_all"} <= first
    assert "ryvem_text" not in first  # one full-text index: current search filters it


def test_the_store_refuses_a_second_current_edge_for_one_from_to_rel(svc: Service) -> None:
    """Two current edges (src, dst, rel) slipped in behind the service violate a constraint."""
    svc.write("task", "A", key="a")
    svc.write("task", "B", key="b")
    view = svc.link("a", "b", "blocks")
    twin = view.edge.model_copy(update={"id": "e" * 24})
    with pytest.raises(IntegrityError, match="second current edge"):
        svc.repo.write(lambda tx: tx.insert_edges([twin]))
    assert [e.id for e in svc.repo.edges_of(view.edge.src, None)] == [view.edge.id]


def test_a_closed_window_leaves_the_full_text_index(svc: Service) -> None:
    """Superseded and retired rows are not found by text; the current row is."""
    svc.write("decision", "Use memcached", key="cache")
    v2 = svc.write("decision", "Use redis", key="cache")
    gone = svc.write("decision", "Use memcached too", key="other")
    svc.retire("other")
    assert [h.id for h in svc.search("memcached")] == []
    assert [h.id for h in svc.search("redis")] == [v2.id]
    assert svc.repo.get_version(gone.id) is not None


def test_an_older_store_migrates_to_stemmed_ranked_search_on_connect(
    svc: Service, neo4j_server: Neo4jServer
) -> None:
    """A store as an older ryvem left it — one full-text index with the no-stop-words
    analyzer over current rows' title and body, no text fields on closed versions, no key
    field — is migrated on connect: that index is dropped (current search reads the
    every-version index), every version's text fields are filled (with progress), the
    every-version index is created with the English analyzer and online, and stemmed current
    and as-of search work."""
    from neo4j import GraphDatabase

    v1 = svc.write("note", "Sessions in cookies", key="s", body="we stored them")
    v2 = svc.write("note", "Sessions in redis", key="s", body="moved")
    svc.write("note", "Filler", key="f")
    auth = (neo4j_server.user, neo4j_server.password)
    with GraphDatabase.driver(neo4j_server.uri, auth=auth) as driver:
        for statement in [
            "DROP INDEX ryvem_text IF EXISTS",
            "DROP INDEX ryvem_text_all IF EXISTS",
            "CREATE FULLTEXT INDEX ryvem_text FOR (n:Current) ON EACH [n.ft_title, n.ft_body] "
            "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}",
            "MATCH (n:Version) REMOVE n.ft_key",
            "MATCH (n:Version) WHERE NOT n:Current REMOVE n.ft_title, n.ft_body",
            "CALL db.awaitIndexes(300)",
        ]:
            driver.execute_query(statement)
    seen: list[tuple[str, int, int]] = []
    again = Neo4jRepository.connect(
        neo4j_server.uri, neo4j_server.user, neo4j_server.password,
        progress=lambda *a: seen.append(a),
    )
    try:
        indexes = {r["name"]: r for r in again._query("schema_names")}
        assert "ryvem_text" not in indexes
        assert indexes["ryvem_text_all"]["analyzer"] == "english"
        assert indexes["ryvem_text_all"]["labels"] == ["Version"]
        assert indexes["ryvem_text_all"]["properties"] == ["ft_text"]
        assert seen[0] == ("search index", 0, 3) and seen[-1] == ("search index", 3, 3)
        fresh = Service(again)
        assert [h.id for h in fresh.search("session")] == [v2.id]
        assert [h.id for h in fresh.search("storing", as_of=v1.valid_from)] == [v1.id]
        assert fresh.search("storing") == []
        seen.clear()
        Neo4jRepository.connect(
            neo4j_server.uri, neo4j_server.user, neo4j_server.password,
            progress=lambda *a: seen.append(a),
        ).close()
        assert seen == []  # filled once
    finally:
        again.close()


# --- concurrency ----------------------------------------------------------------------------


def test_concurrent_supersedes_of_one_identity_leave_one_current_row_and_a_whole_chain(
    neo: Neo4jRepository, neo4j_server: Neo4jServer
) -> None:
    """Eight threads rewriting one key all succeed, serialised: one current row, one chain."""
    writers = 8
    repos = [
        Neo4jRepository.connect(neo4j_server.uri, neo4j_server.user, neo4j_server.password)
        for _ in range(writers)
    ]
    errors: list[BaseException] = []
    start = threading.Barrier(writers)

    def work(i: int) -> None:
        try:
            start.wait()
            for j in range(3):
                Service(repos[i]).write("decision", f"Title {i}.{j}", key="contended")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in repos:
        r.close()
    assert errors == []
    first = neo.latest_of_identity(("decision", "contended", "global"))
    assert first is not None
    chain = neo.chain(first.entity)
    assert len(chain) == writers * 3
    assert [v.id for v in chain if v.is_current] == [chain[-1].id]
    for old, new in pairwise(chain):
        assert old.superseded_by == new.id and new.supersedes == old.id
        assert old.valid_to == new.valid_from
    edges = [e for batch in neo.iter_edges() for e in batch if e.rel == SUPERSEDES]
    assert len(edges) == writers * 3 - 1


# --- errors ---------------------------------------------------------------------------------


def test_an_unreachable_server_is_one_backend_unavailable_error_naming_the_uri() -> None:
    """Connecting to a closed port raises BackendUnavailable with the URI, on one line."""
    uri = f"bolt://127.0.0.1:{closed_port()}"
    with pytest.raises(BackendUnavailable) as info:
        Neo4jRepository.connect(uri, "neo4j", "whatever-password")
    assert uri in str(info.value) and "\n" not in str(info.value)


def test_wrong_credentials_are_one_backend_unavailable_error(neo4j_server: Neo4jServer) -> None:
    """A wrong password names the URI and the settings to check, without a traceback."""
    with pytest.raises(BackendUnavailable, match="RYVEM_NEO4J_PASSWORD") as info:
        Neo4jRepository.connect(neo4j_server.uri, neo4j_server.user, "not-the-password")
    assert neo4j_server.uri in str(info.value)


def _stats_on_neo4j(tmp_path: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    """`ryvem graph --backend neo4j stats` with only these RYVEM_ settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env |= {"RYVEM_DATA_DIR": str(tmp_path), **settings}
    return subprocess.run(
        [str(RYVEM), "graph", "--backend", "neo4j", "stats"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False,
    )


@pytest.mark.parametrize("scheme", ["bolt", "neo4j", "neo4j+s"])
def test_the_cli_on_an_unreachable_server_prints_one_line_and_exits_1(
    tmp_path: Path, scheme: str
) -> None:
    """A closed port: one line on stderr, exit 1. Over a team's routing `neo4j://` or
    `neo4j+s://` URI the driver also logged "Unable to retrieve routing information" through
    logging's last-resort handler, a second line before ryvem's own error; not any more."""
    p = _stats_on_neo4j(
        tmp_path,
        RYVEM_NEO4J_URI=f"{scheme}://127.0.0.1:{closed_port()}",
        RYVEM_NEO4J_PASSWORD="whatever-password",
    )
    assert p.returncode == 1, p.stderr
    assert p.stdout == ""
    assert p.stderr.startswith(f"error: cannot reach Neo4j at {scheme}://127.0.0.1:"), p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


@pytest.mark.parametrize(
    "uri",
    ["http://127.0.0.1:7474", "https://graph.example.org", "", "garbage", "localhost:7687",
     "127.0.0.1:7687", "bolt:/127.0.0.1:7687", "ftp://127.0.0.1",
     "bolt+routing://127.0.0.1:7687", "mongodb://h:1"],
)
def test_a_neo4j_uri_whose_scheme_is_not_bolt_or_neo4j_is_one_line_naming_the_schemes(
    tmp_path: Path, uri: str
) -> None:
    """The browser's URL pasted as RYVEM_NEO4J_URI (the driver tried its preview HTTP client: a
    warning, then `internal error (ModuleNotFoundError)`), an empty URI, a bare host:port or
    any scheme but bolt/neo4j (+s, +ssc) (the driver's `50N42: Unexpected error has occurred.
    See debug log for details.`): ryvem names the schemes, exit 2."""
    p = _stats_on_neo4j(tmp_path, RYVEM_NEO4J_URI=uri)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    assert p.stderr.startswith(f"error: cannot use Neo4j URI {uri!r}: "), p.stderr
    assert "bolt://" in p.stderr and "neo4j://" in p.stderr and "50N42" not in p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


@pytest.mark.parametrize("size", ["abc", "0", "-5", "20m", "1.5"])
def test_a_pool_size_that_is_not_a_positive_integer_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, neo4j_server: Neo4jServer, size: str
) -> None:
    """A team's RYVEM_NEO4J_POOL_SIZE=20m (or 0, abc) was dropped in silence: every process
    ran with the driver's 100 connections. It is refused, like an unknown RYVEM_BACKEND."""
    p = _stats_on_neo4j(
        tmp_path,
        RYVEM_NEO4J_URI=neo4j_server.uri,
        RYVEM_NEO4J_USER=neo4j_server.user,
        RYVEM_NEO4J_PASSWORD=neo4j_server.password,
        RYVEM_NEO4J_POOL_SIZE=size,
    )
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.startswith("error: RYVEM_NEO4J_POOL_SIZE"), p.stderr
    assert repr(size) in p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


# --- traversal ------------------------------------------------------------------------------


def test_the_variable_length_peer_reaches_the_same_nodes_as_the_level_by_level_walk(
    svc: Service, neo: Neo4jRepository
) -> None:
    """On a cyclic graph, one pruning var-length query and the BFS walk reach the same set."""
    for i in range(12):
        svc.write("task", f"T{i}", key=f"t{i}")
    for i in range(12):
        svc.link(f"t{i}", f"t{(i + 1) % 12}", "next")
        if (i * 5) % 12 != i:
            svc.link(f"t{i}", f"t{(i * 5) % 12}", "jump")
    start = svc.get("t0")
    for depth in (1, 2, 3, 10):
        walked = {s.dst.entity for s in svc.traverse("t0", depth=depth)}
        text = cypher.with_bound("reach_varlength", depth)
        with neo._driver.session() as session:  # the benchmark's peer query, run as-is
            reached = {r["id"] for r in session.run(text, start=start.entity)}
        assert reached == walked, depth


def test_the_variable_length_query_is_planned_as_a_pruning_breadth_first_expand(
    neo: Neo4jRepository,
) -> None:
    """The planner answers reach_varlength with VarLengthExpand(Pruning,BFS), not all paths."""
    text = cypher.with_bound("reach_varlength", 10)
    with neo._driver.session() as session:
        plan = session.run("EXPLAIN " + text, start="x").consume().plan
    assert plan is not None
    operators: list[str] = []
    todo = [plan]
    while todo:
        p = todo.pop()
        operators.append(p["operatorType"])
        todo += p.get("children", [])
    assert any(op.startswith("VarLengthExpand(Pruning") for op in operators), operators


# --- the two clocks --------------------------------------------------------------------------


def test_a_store_written_before_the_two_clocks_migrates_on_connect(
    neo: Neo4jRepository, neo4j_server: Neo4jServer
) -> None:
    """Rows without system time (a store written before issue 16) get recorded_at =
    valid_from and closure_recorded_at = valid_to when the store is next opened, once, so
    every read answers as before."""
    svc = Service(neo)
    v1 = svc.write("decision", "Cache in Redis", key="cache", body="See [[latency]].")
    svc.write("page", "Latency", key="latency")
    v2 = svc.write("decision", "Cache in process", key="cache")
    neo._driver.execute_query(
        "MATCH (n:Version) REMOVE n.recorded_at, n.closure_recorded_at "
        "WITH count(*) AS c MATCH ()-[e:EDGE]->() REMOVE e.recorded_at, e.closure_recorded_at "
        "WITH count(*) AS c MATCH (m:RyvemSchema) DETACH DELETE m"
    )
    again = Neo4jRepository.connect(neo4j_server.uri, neo4j_server.user, neo4j_server.password)
    try:
        rows = [v for batch in again.iter_versions() for v, _ in batch]
        edges = [e for batch in again.iter_edges() for e in batch]
        assert rows and edges
        for row in [*rows, *edges]:
            assert (row.recorded_at, row.closure_recorded_at) == (row.valid_from, row.valid_to)
        fresh = Service(again)
        assert fresh.get("decision/cache") == v2
        assert fresh.get("decision/cache", known_at=v2.recorded_at - 1).title == v1.title
        done = again._query("migrations_done")[0]["done"]
        assert sorted(done) == cypher.names("migrate_")
    finally:
        again.close()
    once_more = Neo4jRepository.connect(
        neo4j_server.uri, neo4j_server.user, neo4j_server.password
    )
    try:  # the migrations ran once: the marker lists each one time
        assert sorted(once_more._query("migrations_done")[0]["done"]) == cypher.names("migrate_")
    finally:
        once_more.close()
