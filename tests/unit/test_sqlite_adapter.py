"""The SQLite adapter: schema versions, WAL, the database's own guards, FTS5 and index use."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.adapters.sqlite.queries import migrations
from ryvem.application.service import Service
from ryvem.domain.model import Edge, NodeVersion
from ryvem.domain.scopes import ScopeFilter
from ryvem.domain.search import parse_search
from ryvem.errors import BackendUnavailable, NotFound, RyvemError
from ryvem.ports import WriteTx

REPO_A = "repo:11111111-1111-4111-8111-111111111111"


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection to the same file, behind the adapter's back."""
    return sqlite3.connect(str(path), isolation_level=None)


def scalar(path: Path, sql: str) -> object:
    with closing(raw(path)) as conn:
        return conn.execute(sql).fetchone()[0]


# --- schema and file ---------------------------------------------------------------------


def test_a_new_file_is_created_with_its_folder_at_the_latest_schema_in_wal_mode(
    tmp_path: Path,
) -> None:
    """Opening a missing path creates the folder and file, migrated, in WAL mode."""
    path = tmp_path / "deep" / "er" / "dev.db"
    SqliteRepository.open(path).close()
    assert path.is_file()
    assert scalar(path, "PRAGMA user_version") == len(migrations())
    assert scalar(path, "PRAGMA journal_mode") == "wal"


def test_reopening_a_file_keeps_its_rows_and_schema_version(tmp_path: Path) -> None:
    """A second open of the same file sees what the first wrote and migrates nothing."""
    path = tmp_path / "dev.db"
    with SqliteRepository.open(path) as repo:
        v = Service(repo).write("decision", "Kept", key="k", body="across opens")
    with SqliteRepository.open(path) as again:
        svc = Service(again)
        assert svc.get("decision/k") == v
        assert [h.id for h in svc.search("opens")] == [v.id]
    assert scalar(path, "PRAGMA user_version") == len(migrations())


def test_an_empty_older_file_is_migrated_on_open(tmp_path: Path) -> None:
    """A file at user_version 0 (an older schema) is brought up to date when opened.

    It holds no table: one that does was made by another program, and is refused
    (tests/reliability/test_storage_faults.py)."""
    path = tmp_path / "old.db"
    with closing(raw(path)) as conn:
        conn.execute("CREATE TABLE unrelated (x)")
        conn.execute("DROP TABLE unrelated")
    assert path.stat().st_size > 0
    with SqliteRepository.open(path) as repo:
        Service(repo).write("task", "T", key="t")
    assert scalar(path, "PRAGMA user_version") == len(migrations())


SCHEMA1 = Path(__file__).parent.parent / "fixtures" / "stores" / "schema1.db"


def test_a_store_made_before_the_two_clocks_migrates_and_answers_as_before(
    tmp_path: Path,
) -> None:
    """A file written by ryvem at schema 1 (tests/fixtures/stores/make_schema1.py) opens at
    the latest schema with system time = valid time on every row, so every read answers as
    before, and known_at reads the store as it was."""
    path = tmp_path / "old.db"
    shutil.copyfile(SCHEMA1, path)
    assert scalar(path, "PRAGMA user_version") == 1
    with SqliteRepository.open(path) as repo:
        svc = Service(repo)
        versions = [v for batch in repo.iter_versions() for v, _ in batch]
        edges = [e for batch in repo.iter_edges() for e in batch]
        assert len(versions) == 4 and len(edges) == 3  # links, implements, supersedes
        for row in [*versions, *edges]:
            assert (row.recorded_at, row.closure_recorded_at) == (row.valid_from, row.valid_to)
        now = svc.get("decision/cache")
        assert (now.title, now.retired_reason) == ("Cache in process", "no cache after all")
        assert svc.get("decision/cache", as_of="2026-01-03").title == "Cache in Redis"
        assert [v.title for v in svc.history("decision/cache")] == [
            "Cache in Redis", "Cache in process"]
        then = svc.get("decision/cache", known_at="2026-01-03")
        assert (then.title, then.valid_to) == ("Cache in Redis", None)
        assert svc.get("decision/cache", known_at="2026-01-06").valid_to is None
        walk = svc.traverse("task/add-cache", rels=["implements"], as_of="2026-01-03")
        assert [s.dst.ref for s in walk] == ["cache"]
        assert [s.dst.ref for s in svc.traverse("decision/cache", as_of="2026-01-03")] == [
            "latency"]
        assert [h.title for h in svc.search("redis", known_at="2026-01-03")] == ["Cache in Redis"]
        assert svc.search("redis") == []
        later = svc.write("decision", "Cache again", key="cache", valid_from="2026-01-08")
        assert later.supersedes == now.id
    assert scalar(path, "PRAGMA user_version") == len(migrations())


def test_a_schema_1_store_migrates_to_stemmed_ranked_search_on_open(tmp_path: Path) -> None:
    """A store of the first schema (unstemmed, current-only index), rows written as that
    ryvem wrote them, is migrated when opened: both search indexes are rebuilt once from its
    rows, reporting progress, and its current and past text is found by other word forms."""
    from ryvem.adapters.sqlite.repository import _split_sql

    path = tmp_path / "v1.db"
    with closing(raw(path)) as conn:
        for statement in _split_sql(migrations()[0]):
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        cols = "id, entity, kind, scope, key, title, body, data, valid_from, valid_to"
        rows = [("v1", "e1", "note", "global", "s", "Sessions in cookies", "we stored them",
                 "{}", 1000, 2000),
                ("v2", "e1", "note", "global", "s", "Sessions in redis", "moved", "{}", 2000,
                 None)]
        rows += [(f"f{i}", f"ef{i}", "note", "global", f"f{i}", f"Filler {i}", "", "{}", 10 + i,
                  None) for i in range(7)]
        conn.executemany(f"INSERT INTO nodes({cols}) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        conn.commit()
        assert conn.execute(
            "SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH 'session'").fetchone()[0] == 0
    seen: list[tuple[str, int, int]] = []
    with SqliteRepository.open(path, progress=lambda *a: seen.append(a)) as repo:
        svc = Service(repo)
        assert [h.id for h in svc.search("session")] == ["v2"]
        assert [h.id for h in svc.search("storing", as_of=1500)] == ["v1"]
        assert svc.search("storing") == []
        assert repo.integrity_problems() == []
    assert scalar(path, "PRAGMA user_version") == len(migrations())
    assert seen[0] == ("search index", 0, 9) and seen[-1] == ("search index", 9, 9)
    seen.clear()
    SqliteRepository.open(path, progress=lambda *a: seen.append(a)).close()
    assert seen == []  # rebuilt once


def test_a_file_from_a_newer_ryvem_is_refused_with_one_clear_line(tmp_path: Path) -> None:
    """A user_version above what this ryvem knows is refused, and the file is left alone."""
    path = tmp_path / "future.db"
    SqliteRepository.open(path).close()
    with closing(raw(path)) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(BackendUnavailable, match="schema version 99") as info:
        SqliteRepository.open(path)
    assert "upgrade ryvem" in str(info.value) and "\n" not in str(info.value)
    assert scalar(path, "PRAGMA user_version") == 99


def test_a_file_that_is_not_a_database_is_refused_with_a_ryvem_error(tmp_path: Path) -> None:
    """Garbage in place of the database file gives BackendUnavailable (StoreDamaged: a wrong
    path or a damaged header), not a driver error."""
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a sqlite database at all" * 100)
    with pytest.raises(BackendUnavailable, match="is not a SQLite database, or its header is"):
        SqliteRepository.open(path)


def test_opening_a_missing_file_read_only_is_not_found_and_creates_nothing(
    tmp_path: Path,
) -> None:
    """A read-only open never creates a file."""
    path = tmp_path / "missing.db"
    with pytest.raises(NotFound):
        SqliteRepository.open(path, read_only=True)
    assert not path.exists()


def test_two_connections_to_one_file_see_each_others_writes(tmp_path: Path) -> None:
    """Two repositories on the same file (as a CLI and an MCP server would be) share it."""
    path = tmp_path / "shared.db"
    with SqliteRepository.open(path) as one, SqliteRepository.open(path) as two:
        a, b = Service(one), Service(two)
        v1 = a.write("task", "From one", key="t")
        v2 = b.write("task", "From two", key="t")
        assert v2.supersedes == v1.id
        assert a.get("task/t").id == v2.id
        assert [v.id for v in a.history("task/t")] == [v1.id, v2.id]


def test_a_failing_write_function_rolls_back_everything(sqlite_repo: SqliteRepository) -> None:
    """If the function inside write raises, nothing it did is kept."""
    svc = Service(sqlite_repo)
    before = svc.write("task", "Before", key="t")
    intruder = before.model_copy(update={"id": "a" * 24, "entity": "a" * 24, "key": "u"})

    def half_then_fail(tx: WriteTx) -> None:
        tx.insert_versions([intruder], [()])
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        sqlite_repo.write(half_then_fail)
    assert sqlite_repo.get_version("a" * 24) is None
    assert svc.get("task/t") == before


# --- the database's own guards -----------------------------------------------------------


def _row(v: NodeVersion) -> tuple[object, ...]:
    return (v.id, v.entity, v.kind, v.scope, v.key, v.title, v.body, "{}", v.valid_from,
            v.recorded_at)


_INSERT = (
    "INSERT INTO nodes (id, entity, kind, scope, key, title, body, data, valid_from, "
    "recorded_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
)


def test_a_raw_insert_of_a_second_current_row_is_rejected_by_the_database(
    sqlite_repo: SqliteRepository,
) -> None:
    """The partial unique index refuses a second current row, whatever the code does."""
    v = Service(sqlite_repo).write("decision", "One", key="k")
    twin = v.model_copy(update={"id": "b" * 24, "entity": "b" * 24})
    with closing(raw(sqlite_repo.path)) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(_INSERT, _row(twin))
        conn.execute(_INSERT, _row(twin.model_copy(update={"scope": REPO_A})))  # another scope
    assert sqlite_repo.get_version("b" * 24) is not None


def test_a_raw_insert_of_a_second_current_edge_is_rejected_by_the_database(
    sqlite_repo: SqliteRepository,
) -> None:
    """At most one current edge per (src, dst, rel), enforced by the database."""
    svc = Service(sqlite_repo)
    svc.write("task", "A", key="a")
    svc.write("task", "B", key="b")
    e = svc.link("task/a", "task/b", "blocks").edge
    with closing(raw(sqlite_repo.path)) as conn, pytest.raises(
        sqlite3.IntegrityError, match="UNIQUE"
    ):
        conn.execute(
            "INSERT INTO edges (id, rel, src, dst, data, valid_from, recorded_at) "
            "VALUES (?,?,?,?,?,?,?)",
            ("c" * 24, e.rel, e.src, e.dst, "{}", e.valid_from + 1, e.recorded_at + 1),
        )


@pytest.mark.parametrize("table", ["nodes", "edges"])
def test_deleting_rows_is_refused_by_a_trigger(sqlite_repo: SqliteRepository, table: str) -> None:
    """Nothing is ever deleted: a raw DELETE aborts and the rows stay."""
    svc = Service(sqlite_repo)
    svc.write("task", "A", key="a")
    svc.write("task", "A2", key="a")  # also makes a supersedes edge
    with closing(raw(sqlite_repo.path)) as conn:
        count = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        assert count > 0
        with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
            conn.execute(f"DELETE FROM {table}")
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count


def test_editing_a_versions_content_or_reopening_its_window_is_refused(
    sqlite_repo: SqliteRepository,
) -> None:
    """Versions are immutable and a closed window stays closed, even behind the code's back."""
    svc = Service(sqlite_repo)
    v1 = svc.write("task", "A", key="a")
    svc.write("task", "A2", key="a")
    with closing(raw(sqlite_repo.path)) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            conn.execute("UPDATE nodes SET title = 'rewritten' WHERE id = ?", (v1.id,))
        with pytest.raises(sqlite3.IntegrityError, match="closed window"):
            conn.execute("UPDATE nodes SET valid_to = NULL WHERE id = ?", (v1.id,))
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            conn.execute("UPDATE nodes SET recorded_at = 1 WHERE id = ?", (v1.id,))
        with pytest.raises(sqlite3.IntegrityError, match="closed window"):
            conn.execute("UPDATE nodes SET closure_recorded_at = 1 WHERE id = ?", (v1.id,))
    assert sqlite_repo.get_version(v1.id) == svc.history("task/a")[0]


def test_a_row_recorded_before_it_became_valid_is_refused_by_the_database(
    sqlite_repo: SqliteRepository,
) -> None:
    """System time never runs behind valid time: no row is recorded before it is valid, and
    a window's end is recorded with it, never before it."""
    v = Service(sqlite_repo).write("task", "A", key="a")
    early = v.model_copy(update={"id": "b" * 24, "entity": "b" * 24, "key": "b",
                                 "recorded_at": v.valid_from - 1})
    with closing(raw(sqlite_repo.path)) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="recorded no earlier"):
            conn.execute(_INSERT, _row(early))
        with pytest.raises(sqlite3.IntegrityError, match="recorded no earlier"):
            conn.execute("UPDATE nodes SET valid_to = valid_from WHERE id = ?", (v.id,))


# --- FTS5 --------------------------------------------------------------------------------


def test_the_fts_index_stays_consistent_after_many_supersedes_and_a_rebuild(
    sqlite_repo: SqliteRepository,
) -> None:
    """integrity-check passes after heavy churn, and a rebuild indexes current rows only."""
    svc = Service(sqlite_repo)
    for round_ in range(6):
        for i in range(25):
            svc.write("note", f"Note {i} round{round_}", key=f"n{i}", body=f"body word{round_}")
    for i in range(0, 25, 5):
        svc.retire(f"note/n{i}")
    assert sqlite_repo.integrity_problems() == []

    def snapshot() -> list[list[str]]:
        return [sorted(h.id for h in svc.search(q, limit=100)) for q in
                ("round0", "round5", "word5", "note", "word0")]

    before = snapshot()
    assert before[0] == [] and before[4] == []
    assert len(before[1]) == 20 and before[1] == before[2] == before[3]
    with closing(raw(sqlite_repo.path)) as conn:
        conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild')")
        fts_rows = conn.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        current = conn.execute("SELECT count(*) FROM nodes WHERE valid_to IS NULL").fetchone()[0]
    assert fts_rows == current == 20
    assert sqlite_repo.integrity_problems() == []
    assert snapshot() == before


# --- index use ---------------------------------------------------------------------------


@pytest.fixture
def graph(sqlite_repo: SqliteRepository) -> Iterator[tuple[SqliteRepository, dict[str, str]]]:
    """A small graph: a chain of three versions, two scopes, edges both ways, link targets."""
    svc = Service(sqlite_repo)
    for scope in ("global", REPO_A):
        for i in range(30):
            svc.write("task", f"Task {i} alpha", key=f"t{i}", scope=scope, body="see [[t1]]")
    b1 = svc.write("decision", "B one", key="b")
    svc.write("decision", "B two", key="b")
    b3 = svc.write("decision", "B three", key="b")
    a = svc.write("task", "Task 0 beta", key="t0")
    svc.link("task/t0", "decision/b", "depends-on")
    svc.link("decision/b", "task/t2", "about")
    yield sqlite_repo, {"a": a.entity, "b": b1.entity, "b3": b3.id}


def plans(repo: SqliteRepository, call: Callable[[], object]) -> list[tuple[str, list[str]]]:
    """Run a repository call and EXPLAIN QUERY PLAN every query it sent to SQLite."""
    sent: list[str] = []
    # The adapter's own connections are the only place to trace: its main one and the one
    # full-text search reads through.
    conns = list(dict.fromkeys([repo._conn, repo._searcher()]))
    for c in conns:
        c.set_trace_callback(sent.append)
    try:
        call()
    finally:
        for c in conns:
            c.set_trace_callback(None)
    conn = repo._conn
    queries = [s for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH", "UPDATE"))]
    assert queries, "the call sent no query"
    return [(q, [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + q)]) for q in queries]


_TABLE_SCAN = re.compile(r"^SCAN (nodes|edges|n|e|link_targets|t)\b")


_ORDERED_INDEX_WALK = re.compile(r"^SCAN \w+ USING (COVERING )?INDEX nodes_\w*recent\b")


def assert_no_scans(found: list[tuple[str, list[str]]], *, listing: bool = False) -> None:
    """No full table scan; a listing may walk a current-rows index newest first (LIMIT)."""
    for query, plan in found:
        scans = [
            p for p in plan
            if _TABLE_SCAN.match(p) and not (listing and _ORDERED_INDEX_WALK.match(p))
        ]
        assert not scans, f"{query[:120]}… scans: {scans}"


NOW = None


@pytest.mark.parametrize(
    "name, call",
    [
        ("get by id", lambda r, g: r.get_version(g["b3"])),
        ("get by identity", lambda r, g: r.get_identity(("decision", "b", "global"), NOW)),
        ("get by identity as of", lambda r, g: r.get_identity(("task", "t1", "global"), 10**16)),
        ("latest of identity", lambda r, g: r.latest_of_identity(("decision", "b", "global"))),
        ("get entity", lambda r, g: r.get_entity(g["b"], NOW)),
        ("get heads as of", lambda r, g: r.get_heads([g["a"], g["b"]], 10**16)),
        ("find by key", lambda r, g: r.find_by_key("t1", ScopeFilter(), NOW)),
        ("history", lambda r, g: r.chain(g["b"])),
        ("edges of", lambda r, g: r.edges_of(g["b"], NOW)),
        ("edges of as of", lambda r, g: r.edges_of(g["b"], 10**16)),
        ("link targets", lambda r, g: r.link_targets(g["b3"])),
        ("link candidates", lambda r, g: r.link_candidates(["t1", "b"])),
    ],
)
def test_point_lookups_use_an_index_and_never_scan_a_table(
    graph: tuple[SqliteRepository, dict[str, str]],
    name: str,
    call: Callable[[SqliteRepository, dict[str, str]], object],
) -> None:
    """Get by id, by identity, history, edges and link lookups are index searches."""
    repo, g = graph
    assert_no_scans(plans(repo, lambda: call(repo, g)))


@pytest.mark.parametrize("side", ["out", "in"])
@pytest.mark.parametrize("as_of", [None, 10**16])
@pytest.mark.parametrize(
    "scope", [ScopeFilter(), ScopeFilter(exact="global"), ScopeFilter(shape="repo")],
    ids=["all", "exact", "shape"],
)
@pytest.mark.parametrize("rels", [None, ["about", "depends-on"]], ids=["any-rel", "rels"])
def test_expanding_a_node_looks_edges_and_far_ends_up_by_index(
    graph: tuple[SqliteRepository, dict[str, str]],
    side: str,
    as_of: int | None,
    scope: ScopeFilter,
    rels: list[str] | None,
) -> None:
    """Edge lookups in either direction search the edge index and fetch far ends by entity."""
    repo, g = graph
    found = plans(repo, lambda: repo.expand([g["a"], g["b"]], side, rels, as_of, scope))  # type: ignore[arg-type]  # side is "out" or "in"
    assert_no_scans(found)
    for query, plan in found:
        node_lookups = [p for p in plan if re.match(r"^SEARCH (nodes|n) ", p)]
        assert node_lookups and all("entity=" in p for p in node_lookups), (query[:120], plan)
        edge_lookups = [p for p in plan if re.match(r"^SEARCH (edges|e) ", p)]
        near = "src=" if side == "out" else "dst="
        assert edge_lookups and all(near in p for p in edge_lookups), (query[:120], plan)


@pytest.mark.parametrize("kinds", [[], ["task"]], ids=["any-kind", "kind"])
@pytest.mark.parametrize(
    "scope", [ScopeFilter(), ScopeFilter(exact="global"), ScopeFilter(shape="repo")],
    ids=["all", "exact", "shape"],
)
@pytest.mark.parametrize("text", ["alpha", "", '"task 1" alp*'], ids=["word", "list", "phrase"])
def test_current_search_and_listing_use_the_fts_index_or_an_index_never_a_table_scan(
    graph: tuple[SqliteRepository, dict[str, str]],
    kinds: list[str],
    scope: ScopeFilter,
    text: str,
) -> None:
    """Search goes through FTS5 and listing through a current-rows index."""
    repo, _ = graph
    found = plans(repo, lambda: repo.search(parse_search(text), kinds, scope, 10, None))
    assert_no_scans(found, listing=not text)
    if text:
        assert any("nodes_fts VIRTUAL TABLE" in p for _, plan in found for p in plan)


@pytest.mark.parametrize("kinds", [[], ["task"]], ids=["any-kind", "kind"])
@pytest.mark.parametrize(
    "scope", [ScopeFilter(), ScopeFilter(exact="global"), ScopeFilter(shape="repo")],
    ids=["all", "exact", "shape"],
)
@pytest.mark.parametrize(
    "as_of, known_at", [(None, None), (10**16, None), (10**16, 10**16), (None, 10**16)],
    ids=["current", "as-of", "as-of-known-at", "known-at"],
)
def test_a_ranked_search_tests_window_kind_and_scope_on_the_covering_index_not_the_rows(
    graph: tuple[SqliteRepository, dict[str, str]],
    kinds: list[str],
    scope: ScopeFilter,
    as_of: int | None,
    known_at: int | None,
) -> None:
    """Every match of a filtered or past-time search is tested through nodes_search_window
    (the row, body and all, is read only for the top hits), so as-of search costs about what
    current search does."""
    repo, _ = graph
    found = plans(repo, lambda: repo.search(parse_search("alpha beta"), kinds, scope, 10,
                                            as_of, known_at))
    assert_no_scans(found)
    plan = [p for _, lines in found for p in lines]
    if kinds or not scope.is_all or as_of is not None or known_at is not None:
        assert any("COVERING INDEX nodes_search_window" in p for p in plan), plan


def test_every_query_of_a_write_uses_an_index(sqlite_repo: SqliteRepository) -> None:
    """Supersede, link resolution, relink, unlink and retire touch rows by index only."""
    svc = Service(sqlite_repo)
    for i in range(20):
        svc.write("page", f"P{i}", key=f"notes/p{i}", body="see [[q]] and [[p3]]")
    svc.write("task", "T", key="t")

    def writes() -> None:
        svc.write("page", "Q", key="q", body="see [[notes/p1]]")
        svc.write("page", "P2 again", key="notes/p2", body="see [[q]] and [[r]]")
        svc.link("page/q", "task/t", "about")
        svc.link("page/q", "task/t", "about", data={"a": 1})
        svc.unlink("page/q", "task/t", "about")
        svc.retire("task/t")
        svc.write("task", "T back", key="t")

    assert_no_scans(plans(sqlite_repo, writes))


def test_the_edge_row_mapping_round_trips_every_field(sqlite_repo: SqliteRepository) -> None:
    """load then iter_edges gives back exactly the edges stored, windows and data included."""
    svc = Service(sqlite_repo)
    a = svc.write("task", "A", key="a")
    b = svc.write("task", "B", key="b")
    edge = Edge(id="d" * 24, rel="about", src=a.entity, dst=b.entity, data={"é": [1, None]},
                valid_from=a.valid_from, valid_to=b.valid_from + 5)
    assert sqlite_repo.load([], [edge]) == (0, 1)
    assert sqlite_repo.load([], [edge]) == (0, 0)
    stored = [e for batch in sqlite_repo.iter_edges() for e in batch]
    assert stored == [edge]


def test_driver_errors_reach_callers_only_as_ryvem_errors(tmp_path: Path) -> None:
    """A write to a read-only open surfaces as a RyvemError with one line."""
    path = tmp_path / "ro.db"
    SqliteRepository.open(path).close()
    with SqliteRepository.open(path, read_only=True) as ro:
        with pytest.raises(RyvemError) as info:
            Service(ro).write("task", "T", key="t")
        assert "\n" not in str(info.value)
        assert ro.get_identity(("task", "t", "global"), None) is None


def test_the_default_file_lives_in_ryvem_data_dir_and_is_created_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """open_repository puts dev.db in $RYVEM_DATA_DIR, creating the folder on first use."""
    from ryvem.backends import open_repository
    from ryvem.config import Settings

    data_dir = tmp_path / "not" / "yet"
    monkeypatch.setenv("RYVEM_DATA_DIR", str(data_dir))
    monkeypatch.delenv("RYVEM_BACKEND", raising=False)
    repo = open_repository(Settings.from_env())
    try:
        assert repo.backend == "sqlite"
        Service(repo).write("task", "T", key="t")
    finally:
        repo.close()
    assert (data_dir / "dev.db").is_file()
    assert scalar(data_dir / "dev.db", "SELECT count(*) FROM nodes") == 1


def test_a_redacted_past_version_leaves_the_as_of_search_index(tmp_path: Path) -> None:
    """Past-time search reads the index of every version: a redaction reaches it too (the
    trigger on `nodes` and the rebuild after a forget pass), and both indexes stay sound."""
    with SqliteRepository.open(tmp_path / "g.db") as repo:
        svc = Service(repo)
        v1 = svc.write("note", "Token", key="t", body="the zebrasecret is here")
        svc.write("note", "Token", key="t", body="rotated")
        assert [h.id for h in svc.search("zebrasecret", as_of=v1.valid_from)] == [v1.id]
        svc.redact("zebrasecret", reason="leak", all_scopes=True)
        assert svc.search("zebrasecret", as_of=v1.valid_from) == []
        assert [h.id for h in svc.search("token", as_of=v1.valid_from)] == [v1.id]
        assert repo.integrity_problems() == []
