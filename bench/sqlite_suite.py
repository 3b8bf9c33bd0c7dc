"""SQLite sections: ryvem (Service over SqliteRepository) against raw sqlite3 on the same schema.

Every raw peer opens the file ryvem created (same schema, triggers and FTS5 index) with plain
``sqlite3`` and the same durability settings (WAL, synchronous=NORMAL), and runs the
statements ryvem's adapter runs, without the service around them.
"""

from __future__ import annotations

import gc
import json
import random
import shutil
import sqlite3
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.measure import Figure, Row, latencies, pct, timed
from bench.workload import EntityRing, NodeSpec, Spec, Workload, search_queries
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.domain.ids import new_id
from ryvem.domain.links import extract_targets, normalize, tail
from ryvem.domain.model import Edge

NODE_COLS = (
    "id, entity, kind, scope, key, title, body, data, valid_from, valid_to, "
    "superseded_by, supersedes, retired_reason"
)
BATCH = 500


def raw_connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


# --- import ---------------------------------------------------------------------------------


def import_workload(svc: Service, w: Workload, batch: int = BATCH) -> dict[str, Any]:
    """Stream the workload into ``svc``: base nodes (with their body links) through
    ``Service.write_many``, their typed edges through ``repo.load`` (the port's bulk path; the
    service has no bulk ``link``), then every later version through ``write_many``.
    Only ryvem's calls are timed (validation, write_many, load), not the workload generator.
    Returns timings and the instant between the base pass and the version passes."""
    ring = EntityRing(w.spec)
    clock = time.perf_counter
    t_base = 0.0
    for nodes in w.base_batches(batch):
        t0 = clock()
        results = svc.write_many([_prepare(svc, n) for n in nodes])
        t_base += clock() - t0
        edges: list[Edge] = []
        for n, res in zip(nodes, results, strict=True):
            v = res.version
            for rel, j in w.edge_targets(n.i):
                edges.append(Edge.model_construct(
                    id=new_id(v.valid_from), rel=rel, src=v.entity, dst=ring.get(j), data={},
                    valid_from=v.valid_from, valid_to=None, recorded_at=v.recorded_at,
                    closure_recorded_at=None))
            ring.add(n.i, v.entity)
        t0 = clock()
        svc.repo.load((), edges)
        t_base += clock() - t0
    between = svc.clock.now()
    t_versions = 0.0
    for nodes in w.version_batches(batch):
        t0 = clock()
        svc.write_many([_prepare(svc, n) for n in nodes])
        t_versions += clock() - t0
    return {"seconds": t_base + t_versions, "base_seconds": t_base,
            "version_seconds": t_versions, "between": between}


def _prepare(svc: Service, n: NodeSpec) -> Any:
    return svc.prepare(n.kind, n.title, key=n.key, scope=n.scope, body=n.body, data=n.data)


def count_rows(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(str(path))
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("nodes", "edges", "link_targets")}
    finally:
        conn.close()


def raw_import(src: Path, dst: Path) -> tuple[float, int]:
    """The bound: the same rows, copied with executemany in the same batch shape (500 nodes
    plus their link targets per transaction, then edges 2,500 per transaction), into a fresh
    file with ryvem's schema (FTS5 triggers active). Only inserts and commits are timed."""
    SqliteRepository.open(dst).close()
    s = sqlite3.connect(str(src))
    d = raw_connect(dst)
    spent = 0.0
    rows = 0
    cols = ("id, entity, kind, scope, key, key_norm, key_tail, title, body, data, valid_from, "
            "valid_to, superseded_by, supersedes, retired_reason, recorded_at")
    ins_node = f"INSERT INTO nodes ({cols}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    ins_lt = "INSERT OR IGNORE INTO link_targets (version_id, target, tail) VALUES (?,?,?)"
    ecols = "id, rel, src, dst, data, valid_from, valid_to, recorded_at, closure_recorded_at"
    ins_edge = f"INSERT INTO edges ({ecols}) VALUES (?,?,?,?,?,?,?,?,?)"
    # One transaction per ryvem write_many (its rows share one valid_from), as ryvem did:
    # close each predecessor, then insert its successor as current, plus the link targets.
    cur = s.execute(f"SELECT {cols} FROM nodes ORDER BY seq")
    for batch in _groups(cur):
        ids = json.dumps([r[0] for r in batch])
        lts = s.execute("SELECT version_id, target, tail FROM link_targets WHERE version_id IN "
                        "(SELECT value FROM json_each(?))", (ids,)).fetchall()
        open_rows = [(*r[:11], None, None, *r[13:]) for r in batch]
        closes = [(r[10], r[15], r[0], r[13]) for r in batch if r[13] is not None]
        t0 = time.perf_counter()
        d.execute("BEGIN IMMEDIATE")
        if closes:
            d.executemany("UPDATE nodes SET valid_to = ?, closure_recorded_at = ?, "
                          "superseded_by = ? "
                          "WHERE id = ? AND valid_to IS NULL", closes)
        d.executemany(ins_node, open_rows)
        d.executemany(ins_lt, lts)
        d.execute("COMMIT")
        spent += time.perf_counter() - t0
        rows += len(batch) + len(lts)
    cur = s.execute(f"SELECT {ecols} FROM edges ORDER BY valid_from, id")
    while True:
        batch = cur.fetchmany(BATCH * 5)
        if not batch:
            break
        t0 = time.perf_counter()
        d.execute("BEGIN IMMEDIATE")
        d.executemany(ins_edge, batch)
        d.execute("COMMIT")
        spent += time.perf_counter() - t0
        rows += len(batch)
    s.close()
    d.close()
    return spent, rows


def _groups(cur: sqlite3.Cursor) -> Iterator[list[Any]]:
    """Consecutive rows sharing one valid_from (one ryvem write_many each)."""
    group: list[Any] = []
    for row in cur:
        if group and row[10] != group[-1][10]:
            yield group
            group = []
        group.append(row)
    if group:
        yield group


def memory_peak(tmp: Path, n: int, seed: int) -> dict[str, Any]:
    """Peak Python heap (tracemalloc) while importing an n-node workload into a fresh file."""
    path = tmp / f"mem-{n}.db"
    w = Workload(Spec(n=n, seed=seed))
    gc.collect()
    tracemalloc.start()
    repo = SqliteRepository.open(path)
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        import_workload(Service(repo), w)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
        repo.close()
    rows = count_rows(path)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return {"nodes": n, "rows": sum(rows.values()), "peak_mb": peak / 2**20}


# --- single supersedes --------------------------------------------------------------------


def supersede_pairs(w: Workload, count: int, seed: int) -> list[NodeSpec]:
    rng = random.Random(seed)
    keyed = [i for i in range(w.spec.long_chains, w.spec.n) if w.keyed(i)]
    picks = rng.sample(keyed, min(count, len(keyed)))
    return [w.node(i, 100 + k) for k, i in enumerate(picks)]


class RawSupersede:
    """The statements ryvem's write runs for one supersede, each write its own transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn

    def __call__(self, item: tuple[NodeSpec, list[str]]) -> None:
        n, targets = item
        c = self.c
        c.execute("BEGIN IMMEDIATE")
        prev = c.execute(
            f"SELECT {NODE_COLS} FROM nodes WHERE kind = ? AND key = ? AND scope = ? "
            "ORDER BY valid_from DESC LIMIT 1", (n.kind, n.key, n.scope)).fetchone()
        at = max(time.time_ns() // 1000, prev[8] + 1)
        vid = new_id(at)
        c.execute("UPDATE nodes SET valid_to = ?, closure_recorded_at = ?, superseded_by = ?, "
                  "retired_reason = ? WHERE id = ? AND valid_to IS NULL",
                  (at, at, vid, None, prev[0]))
        norm = normalize(n.key or "")
        c.execute(
            "INSERT INTO nodes (id, entity, kind, scope, key, key_norm, key_tail, title, body, "
            "data, valid_from, valid_to, superseded_by, supersedes, retired_reason, recorded_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (vid, prev[1], n.kind, n.scope, n.key, norm, tail(norm), n.title, n.body,
             json.dumps(n.data, separators=(",", ":"), sort_keys=True), at, None, None,
             prev[0], None, at))
        if targets:
            c.executemany("INSERT OR IGNORE INTO link_targets (version_id, target, tail) "
                          "VALUES (?,?,?)", [(vid, t, tail(t)) for t in targets])
        c.execute("INSERT INTO edges (id, rel, src, dst, data, valid_from, valid_to, recorded_at) "
                  "VALUES (?,?,?,?,?,?,?,?)", (new_id(at), "supersedes", vid, prev[0], "{}", at,
                                               None, at))
        if targets:
            c.execute("SELECT entity, kind, key, scope FROM nodes WHERE key_tail IN "
                      "(SELECT value FROM json_each(?)) AND valid_to IS NULL AND key_tail IS "
                      "NOT NULL", (json.dumps(sorted({tail(t) for t in targets})),)).fetchall()
        c.execute("SELECT id, rel, src, dst, data, valid_from, valid_to FROM edges WHERE src IN "
                  "(SELECT value FROM json_each(?)) AND rel = 'links' AND valid_to IS NULL",
                  (json.dumps([prev[1]]),)).fetchall()
        c.execute("COMMIT")


def bench_supersede(svc: Service, main_db: Path, raw_db: Path, w: Workload,
                    count: int) -> list[Row]:
    # The raw peer works on a byte copy of the same graph, so both see the same state.
    svc.repo.close()
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{main_db}{suffix}").exists():
            shutil.copyfile(f"{main_db}{suffix}", f"{raw_db}{suffix}")
    svc.repo = SqliteRepository.open(main_db)
    items = supersede_pairs(w, count, seed=11)
    raw_items = [(n, extract_targets(n.body, n.key)) for n in items]
    conn = raw_connect(raw_db)
    raw = RawSupersede(conn)

    def ryvem_one(n: NodeSpec) -> None:
        svc.write(n.kind, n.title, key=n.key, scope=n.scope, body=n.body, data=n.data)

    # Interleave in chunks so both see the same machine noise.
    chunks = 5
    r_secs: list[float] = []
    b_secs: list[float] = []
    step = max(1, len(items) // chunks)
    for k in range(0, len(items), step):
        b_secs += latencies(raw, raw_items[k:k + step])
        r_secs += latencies(ryvem_one, items[k:k + step])
    conn.close()
    ryv = Figure.of_rate("ryvem", len(r_secs), sum(r_secs), "tx/s")
    ryv.p50_ms, ryv.p95_ms = pct(r_secs, 50) * 1e3, pct(r_secs, 95) * 1e3
    bnd = Figure.of_rate("raw sqlite3", len(b_secs), sum(b_secs), "tx/s")
    bnd.p50_ms, bnd.p95_ms = pct(b_secs, 50) * 1e3, pct(b_secs, 95) * 1e3
    return [Row("write", f"single supersede, 1 tx each ({len(items):,})", ryv, bnd,
                kind="ratio_min", target=0.5,
                extra={"ryvem_p50_ms": ryv.p50_ms, "ryvem_p95_ms": ryv.p95_ms,
                       "raw_p50_ms": bnd.p50_ms, "raw_p95_ms": bnd.p95_ms}).judge()]


# --- reads -----------------------------------------------------------------------------------


def raw_fts_sql(table: str = "nodes_fts", where: str | None = None) -> str:
    """The bound: the same ranked FTS5 statement the adapter runs (bm25 over title x4, key x2,
    body; the top 20, then their rows), straight through sqlite3 — no parsing, no snippet, no
    hit objects. Current search needs no join before the cut (the index holds current rows
    only); as-of filters by window (``where``)."""
    if where is None:
        inner = (f"SELECT rowid AS seq, bm25({table}, 4.0, 2.0, 1.0) AS rank FROM {table} "
                 f"WHERE {table} MATCH :m ORDER BY rank, rowid DESC LIMIT 20")
    else:
        inner = (f"SELECT n.seq, bm25({table}, 4.0, 2.0, 1.0) AS rank "
                 f"FROM {table} JOIN nodes n ON n.seq = {table}.rowid "
                 f"WHERE {table} MATCH :m AND {where} ORDER BY rank, n.seq DESC LIMIT 20")
    return ("SELECT n.id, n.kind, n.scope, n.title, n.body, top.rank FROM (" + inner
            + ") top JOIN nodes n ON n.seq = top.seq ORDER BY top.rank, top.seq DESC")


def fts_expr(text: str, joiner: str = " OR ") -> str:
    return joiner.join('"' + word + '"' for word in text.split())


def bench_search(svc: Service, conn: sqlite3.Connection, w: Workload, count: int,
                 as_of: int) -> list[Row]:
    queries = search_queries(w, count)
    sql = raw_fts_sql()
    past_sql = raw_fts_sql(
        "nodes_fts_all", "n.valid_from <= :t AND (n.valid_to IS NULL OR n.valid_to > :t)")

    def raw(q: str) -> None:
        conn.execute(sql, {"m": fts_expr(q)}).fetchall()

    def raw_and(q: str) -> None:  # the statement shape before issue 13: every word required
        conn.execute(sql, {"m": fts_expr(q, " ")}).fetchall()

    def raw_past(q: str) -> None:
        conn.execute(past_sql, {"m": fts_expr(q), "t": as_of}).fetchall()

    def ryv(q: str) -> None:
        svc.search(q, all_scopes=True, limit=20)

    def ryv_past(q: str) -> None:
        svc.search(q, all_scopes=True, limit=20, as_of=as_of)

    for q in queries[:5]:
        raw(q)
        ryv(q)
        raw_past(q)
        ryv_past(q)
    b = latencies(raw, queries)
    r = latencies(ryv, queries)
    rows = [Row("search", f"FTS 1-2 words OR-ed, top 20 + snippets ({len(queries)} queries)",
                Figure.of_latencies("ryvem", r), Figure.of_latencies("raw FTS5", b),
                kind="ratio_max", target=2.0).judge()]
    # Context: what the same statement costs with every word required (ANDed, as before
    # issue 13) — OR-ed words match many more rows, and BM25 scores every one of them.
    rows.append(Row("search", f"raw FTS5 words OR-ed vs ANDed (before issue 13), "
                    f"({len(queries)} queries)",
                    Figure.of_latencies("raw FTS5 OR", b),
                    Figure.of_latencies("raw FTS5 AND", latencies(raw_and, queries))).judge())
    # As of a past instant: ranked from the index of every version, filtered by window.
    past = latencies(ryv_past, queries)
    raw_p = latencies(raw_past, queries)
    rows.append(Row("as-of", f"search as of a past instant vs current search "
                    f"({len(queries)} queries)",
                    Figure.of_latencies("ryvem as-of", past),
                    Figure.of_latencies("ryvem current", r),
                    kind="ratio_max", target=2.0).judge())
    rows.append(Row("as-of", f"search as of a past instant vs raw FTS5 as of "
                    f"({len(queries)} queries)",
                    Figure.of_latencies("ryvem as-of", past),
                    Figure.of_latencies("raw FTS5 as-of", raw_p),
                    kind="ratio_max", target=2.0).judge())
    return rows


def bench_gets(svc: Service, conn: sqlite3.Connection, w: Workload, count: int) -> list[Row]:
    rng = random.Random(3)
    cur = conn.execute("SELECT id, kind, key, scope, entity FROM nodes WHERE valid_to IS NULL "
                       "ORDER BY seq").fetchall()
    ids = [r[0] for r in rng.sample(cur, min(count, len(cur)))]
    keyed = [r for r in cur if r[2] is not None]
    idents = [r[1:4] for r in rng.sample(keyed, min(count, len(keyed)))]
    by_id = f"SELECT {NODE_COLS} FROM nodes WHERE id = ?"
    by_ident = (f"SELECT {NODE_COLS} FROM nodes WHERE kind = ? AND key = ? AND scope = ? "
                "AND valid_to IS NULL ORDER BY valid_from DESC LIMIT 1")
    rows = []
    for fig, ryv, raw, args in (
        ("get by id", lambda i: svc.get(i), lambda i: conn.execute(by_id, (i,)).fetchone(), ids),
        ("get by identity (kind/key)", lambda t: svc.get(f"{t[0]}/{t[1]}", scope=t[2]),
         lambda t: conn.execute(by_ident, t).fetchone(), idents),
    ):
        latencies(ryv, args[:50])
        latencies(raw, args[:50])
        b = latencies(raw, args)
        r = latencies(ryv, args)
        rows.append(Row("get", f"{fig} ({len(args):,} calls)", Figure.of_latencies("ryvem", r),
                        Figure.of_latencies("raw SQL", b), kind="ratio_max",
                        target=2.0).judge())
    chains = [(w.kind(i), w.key(i), w.scope(i)) for i in range(w.spec.long_chains)]
    reps = max(50, count // 5)
    hist_args = [chains[k % len(chains)] for k in range(reps)]
    chain_sql = f"SELECT {NODE_COLS} FROM nodes WHERE entity = ? ORDER BY valid_from, id"

    def raw_hist(t: tuple[str, str, str]) -> None:
        row = conn.execute(by_ident, t).fetchone()
        conn.execute(chain_sql, (row[1],)).fetchall()

    def ryv_hist(t: tuple[str, str, str]) -> None:
        svc.history(f"{t[0]}/{t[1]}", scope=t[2])

    assert len(svc.history(f"{chains[0][0]}/{chains[0][1]}", scope=chains[0][2])) >= 10
    latencies(raw_hist, hist_args[:20])
    latencies(ryv_hist, hist_args[:20])
    b = latencies(raw_hist, hist_args)
    r = latencies(ryv_hist, hist_args)
    rows.append(Row("get", f"history of a 10-version chain ({reps:,} calls)",
                    Figure.of_latencies("ryvem", r), Figure.of_latencies("raw SQL", b),
                    kind="ratio_max", target=2.0).judge())
    return rows


# --- traversal -------------------------------------------------------------------------------

_EXPAND = {
    side: (
        f"SELECT e.id, e.rel, e.src, e.dst FROM edges e "
        f"WHERE e.{near} IN (SELECT value FROM json_each(?)) AND e.rel != 'supersedes' "
        f"AND e.valid_to IS NULL AND EXISTS (SELECT 1 FROM nodes n INDEXED BY nodes_entity "
        f"WHERE n.entity = e.{far} AND n.valid_to IS NULL)"
    )
    for side, near, far in (("out", "src", "dst"), ("in", "dst", "src"))
}
_ROWS = (f"SELECT {NODE_COLS} FROM nodes WHERE entity IN (SELECT value FROM json_each(?)) "
         "AND valid_to IS NULL")


def raw_bfs(conn: sqlite3.Connection, start: str, depth: int, direction: str) -> int:
    """Level-by-level BFS: one indexed query per level and side, a visited set, every edge
    once; then the reached nodes' rows in one query (what ryvem returns too)."""
    sides = ("out", "in") if direction == "both" else (direction,)
    visited = {start}
    frontier = [start]
    seen: set[str] = set()
    edges = []
    for _ in range(depth):
        if not frontier:
            break
        nxt: list[str] = []
        arg = json.dumps(frontier)
        for side in sides:
            for eid, rel, src, dst in conn.execute(_EXPAND[side], (arg,)):
                if eid in seen:
                    continue
                seen.add(eid)
                edges.append((eid, rel, src, dst))
                far = dst if side == "out" else src
                if far not in visited:
                    visited.add(far)
                    nxt.append(far)
        frontier = nxt
    conn.execute(_ROWS, (json.dumps(list(visited)),)).fetchall()
    return len(visited)


def cte_sql(direction: str, tuned: bool) -> str:
    cond = "e.valid_to IS NULL AND e.rel != 'supersedes'"
    if tuned:
        # Typed seed, pinned join order (CROSS JOIN), UNION (de-duplicates (node, depth)).
        step_out = (f"SELECT e.dst, r.d + 1 FROM r CROSS JOIN edges e ON e.src = r.id "
                    f"WHERE r.d < ?2 AND {cond}")
        step_in = (f"SELECT e.src, r.d + 1 FROM r CROSS JOIN edges e ON e.dst = r.id "
                   f"WHERE r.d < ?2 AND {cond}")
        steps = step_out if direction == "out" else f"{step_out} UNION {step_in}"
        return (f"WITH RECURSIVE r(id, d) AS (SELECT CAST(?1 AS TEXT), 0 UNION {steps}) "
                f"SELECT {NODE_COLS} FROM nodes WHERE entity IN (SELECT id FROM r) "
                "AND valid_to IS NULL")
    step_out = (f"SELECT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.id "
                f"WHERE r.d < ?2 AND {cond}")
    step_in = (f"SELECT e.src, r.d + 1 FROM r JOIN edges e ON e.dst = r.id "
               f"WHERE r.d < ?2 AND {cond}")
    steps = step_out if direction == "out" else f"{step_out} UNION ALL {step_in}"
    return (f"WITH RECURSIVE r(id, d) AS (SELECT ?1, 0 UNION ALL {steps}) "
            f"SELECT {NODE_COLS} FROM nodes WHERE entity IN (SELECT id FROM r) "
            "AND valid_to IS NULL")


def capped(conn: sqlite3.Connection, cap_s: float, sql: str,
           params: tuple[Any, ...]) -> float | None:
    """Seconds the query took, or None when it hit the cap (interrupted)."""
    deadline = time.perf_counter() + cap_s
    conn.set_progress_handler(lambda: 1 if time.perf_counter() > deadline else 0, 20_000)
    t0 = time.perf_counter()
    try:
        conn.execute(sql, params).fetchall()
        return time.perf_counter() - t0
    except sqlite3.OperationalError as e:
        if "interrupt" in str(e).lower():
            return None
        raise
    finally:
        conn.set_progress_handler(None, 0)


def build_networkx(conn: sqlite3.Connection) -> tuple[Any, Any, float]:
    import networkx as nx

    t0 = time.perf_counter()
    g = nx.DiGraph()
    g.add_edges_from(conn.execute("SELECT src, dst FROM edges WHERE valid_to IS NULL "
                                  "AND rel != 'supersedes'"))
    u = g.to_undirected()
    return g, u, time.perf_counter() - t0


def traversal_starts(conn: sqlite3.Connection, count: int, seed: int = 5) -> list[tuple[str, str]]:
    cur = conn.execute("SELECT id, entity FROM nodes WHERE valid_to IS NULL "
                       "ORDER BY seq").fetchall()
    return random.Random(seed).sample(cur, min(count, len(cur)))


def bench_traversal(svc: Service, conn: sqlite3.Connection, cfg: dict[str, Any],
                    as_of: int) -> tuple[list[Row], dict[str, Any]]:
    import networkx as nx

    starts = traversal_starts(conn, cfg["starts"])
    g, u, nx_build = build_networkx(conn)
    # The networkx peer holds millions of objects; without freezing them, every full
    # collection during ryvem's (allocation-heavy) walks would scan them too.
    gc.collect()
    gc.freeze()
    info: dict[str, Any] = {"networkx_build_s": nx_build, "reach": {}}
    rows: list[Row] = []
    cte_cap = cfg["cte_cap_s"]
    naive_dead = {"out": False, "both": False}
    for direction in ("out", "both"):
        for depth in (1, 3, 6, 10):
            # A "both" walk of 3+ hops reaches most of the graph through the hubs: fewer
            # starts there, or the section alone would take most of an hour at full scale.
            deep = direction == "both" and depth >= 3
            sts = starts[: cfg["deep_starts"]] if deep else starts
            label = f"traverse {direction} d{depth} ({len(sts)} starts)"

            def ryv(s: tuple[str, str], d: int = depth, dr: str = direction) -> None:
                svc.traverse(s[0], depth=d, direction=dr, all_scopes=True)

            def raw(s: tuple[str, str], d: int = depth, dr: str = direction) -> None:
                raw_bfs(conn, s[1], d, dr)

            latencies(ryv, sts[:3])
            latencies(raw, sts[:3])
            b = latencies(raw, sts)
            r = latencies(ryv, sts)
            reach = [raw_bfs(conn, s[1], depth, direction) for s in sts[:10]]
            info["reach"][f"{direction}-d{depth}"] = sorted(reach)[len(reach) // 2]
            rows.append(Row("traversal", label, Figure.of_latencies("ryvem", r),
                            Figure.of_latencies("raw BFS", b), kind="ratio_max",
                            target=2.0,
                            extra={"median_reach": info["reach"][f"{direction}-d{depth}"]}
                            ).judge())
            # Peers: tuned CTE, naive CTE (capped), networkx (ids only, in RAM).
            tuned = cte_sql(direction, True)
            t_secs = [capped(conn, cte_cap, tuned, (s[1], depth)) for s in sts[: cfg["cte_starts"]]]
            rows.append(_peer_row(f"{label} — tuned recursive CTE", t_secs, r, cte_cap))
            if naive_dead[direction]:
                rows.append(Row("traversal", f"{label} — naive recursive CTE",
                                Figure("naive CTE", note="skipped: exploded at a lower depth")))
            else:
                naive = cte_sql(direction, False)
                n_secs = [capped(conn, cte_cap, naive, (s[1], depth))
                          for s in sts[: cfg["naive_starts"]]]
                if sum(x is None for x in n_secs) * 2 >= len(n_secs):
                    naive_dead[direction] = True
                rows.append(_peer_row(f"{label} — naive recursive CTE", n_secs, r, cte_cap))
            graph = g if direction == "out" else u
            x = latencies(lambda s, d=depth, gr=graph: nx.single_source_shortest_path_length(
                gr, s[1], cutoff=d), sts)
            rows.append(Row("traversal", f"{label} — networkx in RAM (ids only)",
                            Figure.of_latencies("networkx", x), Figure.of_latencies("ryvem", r)
                            ).judge())
    # As of a past instant, next to current.
    for direction in ("out", "both"):
        sts = starts if direction == "out" else starts[: cfg["deep_starts"]]
        past = latencies(lambda s, dr=direction: svc.traverse(
            s[0], depth=3, direction=dr, all_scopes=True, as_of=as_of), sts)
        cur = latencies(lambda s, dr=direction: svc.traverse(
            s[0], depth=3, direction=dr, all_scopes=True), sts)
        rows.append(Row("as-of", f"traverse {direction} d3 as of a past instant "
                        f"({len(sts)} starts)",
                        Figure.of_latencies("ryvem as-of", past),
                        Figure.of_latencies("ryvem current", cur)).judge())
    gc.unfreeze()
    del g, u
    return rows, info


def _peer_row(label: str, secs: list[float | None], ryvem: list[float], cap: float) -> Row:
    ok = [s for s in secs if s is not None]
    capped_n = len(secs) - len(ok)
    name = label.split(" — ")[1]
    if not ok:
        fig = Figure(name, note=f"all {len(secs)} hit the {cap:g}s cap")
    else:
        # Capped queries count as the cap: the p95 is then a lower bound.
        fig = Figure.of_latencies(name, ok + [cap] * capped_n,
                                  note=f"{capped_n}/{len(secs)} capped at {cap:g}s"
                                  if capped_n else "")
    row = Row("traversal", label, fig, Figure.of_latencies("ryvem", ryvem))
    row.judge()
    row.extra = {"capped": capped_n, "runs": len(secs)}
    return row


# --- backlinks ----------------------------------------------------------------------------


def write_vault(root: Path, n: int, seed: int) -> Workload:
    w = Workload(Spec(n=n, seed=seed, keyed_share=1.0, chain_share=0.0, long_chains=0,
                      links_per_body=3.0, window=min(2000, n)))
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        node = w.node(i)
        (root / f"{node.key}.md").write_text(node.body, encoding="utf-8")
    return w


def scan_backlinks(root: Path, key: str) -> list[str]:
    """What a file-native design pays per call: read every page and parse its links."""
    want = normalize(key)
    out = []
    for path in root.iterdir():
        k = path.name[:-3]
        if want in extract_targets(path.read_text(encoding="utf-8"), k):
            out.append(k)
    return out


def bench_backlinks(tmp: Path, sizes: tuple[int, ...], reps: int, scan_reps: int) -> list[Row]:
    from ryvem.application.vault import import_vault

    rows = []
    for n in sizes:
        root = tmp / f"vault-{n}"
        write_vault(root, n, seed=99 + n)
        repo = SqliteRepository.open(tmp / f"vault-{n}.db")
        svc = Service(repo)
        secs, summary = timed(lambda s=svc, r=root: import_vault(s, r))
        rng = random.Random(n)
        keys = [f"n{rng.randrange(n):07d}" for _ in range(reps)]
        expected = sorted(scan_backlinks(root, keys[0]))
        got = sorted(s.src.key for s in svc.traverse(keys[0], direction="in") if s.src.key)
        assert got == expected, (got, expected)
        refs = [f"page/{k}" for k in keys]
        latencies(lambda k, s=svc: s.traverse(k, direction="in"), refs[:5])
        r = latencies(lambda k, s=svc: s.traverse(k, direction="in"), refs)
        b = latencies(lambda k, rt=root: scan_backlinks(rt, k), keys[:scan_reps])
        conn = raw_connect(tmp / f"vault-{n}.db")
        ents = [conn.execute("SELECT entity FROM nodes WHERE key = ? AND valid_to IS NULL",
                             (k,)).fetchone()[0] for k in keys]
        lookup = ("SELECT e.src FROM edges e WHERE e.dst = ? AND e.rel = 'links' "
                  "AND e.valid_to IS NULL")
        x = latencies(lambda e, c=conn, q=lookup: c.execute(q, (e,)).fetchall(), ents)
        conn.close()
        rows.append(Row("backlinks", f"backlinks of one page, {n:,} pages",
                        Figure.of_latencies("ryvem", r),
                        Figure.of_latencies("read+parse every file", b), kind="ratio_min",
                        target=1000.0,
                        extra={"vault_import_s": secs, "pages": summary.pages}).judge())
        rows.append(Row("backlinks", f"backlinks, {n:,} pages — raw indexed lookup (ids only)",
                        Figure.of_latencies("raw edges_in index", x),
                        Figure.of_latencies("read+parse every file", b), kind="ratio_min",
                        target=1000.0).judge())
        repo.close()
    return rows


def bench_corpus(tmp: Path, corpus: Path | None) -> list[Row]:
    from ryvem.application.vault import import_vault

    if corpus is None or not corpus.is_dir():
        return [Row("import", "SilverBullet corpus import",
                    Figure("ryvem", note=f"skipped: no corpus at {corpus}"))]
    repo = SqliteRepository.open(tmp / "corpus.db")
    secs, summary = timed(lambda: import_vault(Service(repo), corpus))
    st = repo.stats()
    repo.close()
    rows_n = st.current_rows + st.superseded_rows + st.retired_rows + st.edges_current
    return [Row("import", f"SilverBullet corpus ({summary.pages} pages, {rows_n:,} rows)",
                Figure.of_rate("ryvem", summary.pages, secs, "pages/s",
                               note=f"{secs * 1e3:.0f} ms"),
                extra={"seconds": secs, "pages": summary.pages, "rows": rows_n,
                       "links_resolved": summary.record().get("links_resolved")})]
