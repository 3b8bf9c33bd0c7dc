"""The invariants every reliability scenario ends with, checked on a real SQLite file.

:func:`problems` reads the file directly (its own read-only connection, so it sees exactly
what a fresh process sees) and returns every broken rule as one line; an empty list means:

* exactly one current row per (kind, key, scope), and an unkeyed node is one row;
* every chain (the versions of one entity, by ``valid_from``) is complete: one identity,
  the first row is the entity and supersedes nothing, each row supersedes the one before and
  is named by its ``superseded_by``, ``valid_from`` strictly increases, a closed row's
  ``valid_to`` is at most its successor's ``valid_from`` (equal after a supersede, earlier
  after a retirement: the identity did not exist in between), only the last row may be
  current, and each link in the chain has exactly one ``supersedes`` edge (new → old,
  opened at the new row's ``valid_from``): no gaps, overlaps or cycles;
* at most one current edge per (src, dst, rel), every window ordered, every endpoint known;
* every acknowledged write is present (nodes, edges, retirements, unlinks);
* nothing was deleted or rewritten since an earlier :func:`snapshot`;
* ``PRAGMA integrity_check`` and the FTS5 integrity check pass, and the FTS index holds
  exactly the current rows;
* links agree with the current bodies: each current version's stored link targets are its
  body's, and the current ``links`` edges between current nodes are exactly the ones the
  resolution rule gives; reading them backwards (backlinks) gives the same edges.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.domain.links import Candidate, normalize, resolve_links, tail
from ryvem.domain.redaction import stated_links
from ryvem.domain.scopes import ScopeFilter

NODE_COLS = (
    "id, entity, kind, scope, key, title, body, data, valid_from, valid_to, superseded_by, "
    "supersedes, retired_reason"
)


@dataclass
class Acks:
    """What workers acknowledged (a call returned) and so must be in the store."""

    nodes: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    retired: set[str] = field(default_factory=set)
    unlinked: set[str] = field(default_factory=set)

    def read(self, lines: Iterable[str]) -> None:
        """Collect the ``ack …`` lines of a worker's output (see worker.py)."""
        for line in lines:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "ack":
                {"node": self.nodes, "edge": self.edges, "retired": self.retired,
                 "unlinked": self.unlinked}[parts[1]].add(parts[2])

    def __len__(self) -> int:
        return len(self.nodes) + len(self.edges) + len(self.retired) + len(self.unlinked)


@dataclass(frozen=True)
class Snapshot:
    """Every row's immutable content, and which windows were closed, at one moment."""

    nodes: dict[str, tuple[Any, ...]]
    edges: dict[str, tuple[Any, ...]]
    closed_nodes: dict[str, int]
    closed_edges: dict[str, int]


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)


def schema_version(path: Path) -> int:
    """The file's ``user_version`` (0 when it does not exist or was never migrated)."""
    if not path.exists():
        return 0
    c = _connect(path)
    try:
        return int(c.execute("PRAGMA user_version").fetchone()[0])
    finally:
        c.close()


def snapshot(path: Path) -> Snapshot:
    with _connect(path) as c:
        nodes = {r[0]: r[1:] for r in c.execute(
            "SELECT id, entity, kind, scope, key, title, body, data, valid_from, supersedes "
            "FROM nodes")}
        edges = {r[0]: r[1:] for r in c.execute(
            "SELECT id, rel, src, dst, data, valid_from FROM edges")}
        closed_nodes = dict(c.execute("SELECT id, valid_to FROM nodes WHERE valid_to IS NOT NULL"))
        closed_edges = dict(c.execute("SELECT id, valid_to FROM edges WHERE valid_to IS NOT NULL"))
    c.close()
    return Snapshot(nodes, edges, closed_nodes, closed_edges)


def problems(
    path: Path,
    *,
    acks: Acks | None = None,
    before: Snapshot | None = None,
) -> list[str]:
    """Every broken invariant of the store at ``path``, one line each (empty: all hold)."""
    out: list[str] = []
    c = _connect(path)
    try:
        if c.execute("PRAGMA user_version").fetchone()[0] == 0:
            # Never migrated (e.g. killed during its first open): then it must hold nothing.
            tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master")]
            return [f"a store without a schema version holds {tables}"] if tables else []
        rows = c.execute(
            f"SELECT {NODE_COLS} FROM nodes ORDER BY entity, valid_from, id").fetchall()
        edges = c.execute(
            "SELECT id, rel, src, dst, data, valid_from, valid_to FROM edges").fetchall()
        targets: dict[str, set[str]] = defaultdict(set)
        for vid, target, tl in c.execute("SELECT version_id, target, tail FROM link_targets"):
            targets[vid].add(target)
            if tl != tail(target):
                out.append(f"link target {target!r} of {vid} stored with tail {tl!r}")
        fts_rows = c.execute("SELECT count(*) FROM nodes_fts").fetchone()[0]
        try:
            erased = dict(c.execute("SELECT id, erased FROM nodes WHERE erased IS NOT NULL"))
        except sqlite3.OperationalError:  # a store from before forgetting (migration 004)
            erased = {}
    finally:
        c.close()
    by_id = {r[0]: r for r in rows}
    out += _current_rows(rows)
    out += _chains(rows, edges)
    out += _edges(edges, by_id)
    if acks is not None:
        out += _acks(acks, by_id, {e[0]: e for e in edges})
    if before is not None:
        out += _nothing_lost(before, snapshot(path))
    out += _links(rows, edges, targets, erased)
    repo = SqliteRepository.open(path)
    try:
        out += [f"integrity: {p}" for p in repo.integrity_problems()]
        current = sum(1 for r in rows if r[9] is None)
        if fts_rows != current:
            out.append(f"the FTS index holds {fts_rows} rows, the store {current} current rows")
        out += _backlinks(repo, edges, by_id)
    finally:
        repo.close()
    return out


def assert_invariants(
    path: Path, *, acks: Acks | None = None, before: Snapshot | None = None
) -> None:
    found = problems(path, acks=acks, before=before)
    assert not found, f"{len(found)} invariant(s) broken:\n" + "\n".join(found[:40])


def _current_rows(rows: list[Any]) -> list[str]:
    current: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for r in rows:
        if r[9] is None and r[4] is not None:
            current[(r[2], r[4], r[3])].append(r[0])
    return [f"{ident} has {len(ids)} current rows: {ids}"
            for ident, ids in current.items() if len(ids) > 1]


def _chains(rows: list[Any], edges: list[Any]) -> list[str]:
    out: list[str] = []
    sup_edges: dict[tuple[str, str], list[int]] = defaultdict(list)
    for e in edges:
        if e[1] == "supersedes":
            sup_edges[(e[2], e[3])].append(e[5])
    expected_sup: set[tuple[str, str]] = set()
    chains: dict[str, list[Any]] = defaultdict(list)
    for r in rows:
        chains[r[1]].append(r)
    entities_of_identity: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for entity, chain in chains.items():
        first = chain[0]
        if first[0] != entity or first[11] is not None:
            out.append(f"chain {entity}: its first row {first[0]} is not the entity's start")
        idents = {(r[2], r[4], r[3]) for r in chain}
        if len(idents) != 1:
            out.append(f"chain {entity} spans several identities: {sorted(idents, key=str)}")
        if first[4] is None and len(chain) != 1:
            out.append(f"unkeyed node {entity} has {len(chain)} rows")
        if first[4] is not None:
            entities_of_identity[(first[2], first[4], first[3])].add(entity)
        for prev, nxt in pairwise(chain):
            where = f"chain {entity} at {prev[0]} -> {nxt[0]}"
            if nxt[11] != prev[0] or prev[10] != nxt[0]:
                out.append(f"{where}: supersedes/superseded_by do not name each other")
            if not prev[8] < nxt[8]:
                out.append(f"{where}: valid_from does not strictly increase")
            if prev[9] is None:
                out.append(f"{where}: a row with a successor is still current (overlap)")
            elif prev[9] > nxt[8]:
                out.append(f"{where}: windows overlap")
            # A gap (valid_to < successor's valid_from) is a retirement, which may carry no
            # reason, so the file cannot tell it from a lost write: the model tests check it.
            expected_sup.add((nxt[0], prev[0]))
            if sup_edges.get((nxt[0], prev[0])) != [nxt[8]]:
                out.append(f"{where}: not exactly one supersedes edge opened at the successor")
        last = chain[-1]
        if last[10] is not None:
            out.append(f"chain {entity}: its last row {last[0]} names a successor {last[10]}")
        for r in chain:
            if r[9] is not None and r[9] < r[8]:
                out.append(f"row {r[0]}: valid_to before valid_from")
    for ident, ents in entities_of_identity.items():
        if len(ents) > 1:
            out.append(f"{ident} is split over {len(ents)} chains: {sorted(ents)}")
    for pair in set(sup_edges) - expected_sup:
        out.append(f"stray supersedes edge {pair[0]} -> {pair[1]}")
    return out


def _edges(edges: list[Any], by_id: dict[str, Any]) -> list[str]:
    out: list[str] = []
    entities = {r[1] for r in by_id.values()}
    current: dict[tuple[str, str, str], int] = defaultdict(int)
    for eid, rel, src, dst, _data, vf, vt in edges:
        if vt is None:
            current[(src, dst, rel)] += 1
        if vt is not None and vt < vf:
            out.append(f"edge {eid}: valid_to before valid_from")
        known = by_id if rel == "supersedes" else entities
        if src not in known or dst not in known:
            out.append(f"edge {eid} ({rel}) has an unknown endpoint")
    out += [f"{k} has {n} current edges" for k, n in current.items() if n > 1]
    return out


def _acks(acks: Acks, by_id: dict[str, Any], edges: dict[str, Any]) -> list[str]:
    out = [f"acknowledged version {i} is missing" for i in sorted(acks.nodes - by_id.keys())]
    out += [f"acknowledged edge {i} is missing" for i in sorted(acks.edges - edges.keys())]
    for vid in sorted(acks.retired):
        if vid not in by_id or by_id[vid][9] is None:
            out.append(f"acknowledged retirement of {vid} is not in the store")
    for eid in sorted(acks.unlinked):
        if eid not in edges or edges[eid][6] is None:
            out.append(f"acknowledged unlink of {eid} is not in the store")
    return out


def _nothing_lost(before: Snapshot, after: Snapshot) -> list[str]:
    out: list[str] = []
    for what, old, new in (("version", before.nodes, after.nodes),
                           ("edge", before.edges, after.edges)):
        for i, content in old.items():
            if i not in new:
                out.append(f"{what} {i} was deleted")
            elif new[i] != content:
                out.append(f"{what} {i} was rewritten")
    for what, old_closed, new_closed in (("version", before.closed_nodes, after.closed_nodes),
                                         ("edge", before.closed_edges, after.closed_edges)):
        for i, vt in old_closed.items():
            if new_closed.get(i) != vt:
                out.append(f"the closed window of {what} {i} changed")
    return out


def _links(
    rows: list[Any], edges: list[Any], targets: dict[str, set[str]], erased: dict[str, Any]
) -> list[str]:
    """Each current version's stored targets and ``links`` edges agree with the links its
    text states, read as the product reads it (a redacted one past its markers)."""
    out: list[str] = []
    current = [r for r in rows if r[9] is None]
    live = {r[1] for r in current}
    by_tail: dict[str, list[Candidate]] = defaultdict(list)
    for r in current:
        if r[4] is not None:
            cand = Candidate(entity=r[1], kind=r[2], key=r[4], scope=r[3])
            by_tail[tail(normalize(r[4]))].append(cand)
    have: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for _eid, rel, src, dst, data, _vf, vt in edges:
        if rel == "links" and vt is None and src in live:
            have[src].add((dst, data))  # an edge to a retired node is a broken link too
    for r in current:
        links = stated_links(r[6], r[4], json.loads(r[7]), erased.get(r[0]))
        found = [link.target for link in links]
        if set(found) != targets.get(r[0], set()):
            out.append(f"{r[0]}: stored link targets {sorted(targets.get(r[0], ()))} "
                       f"differ from its body's {sorted(found)}")
        resolved, _ = resolve_links(links, r[1], r[3], r[2], r[4], by_tail)
        want = {
            (dst, json.dumps(link.edge_data(), ensure_ascii=False, separators=(",", ":"),
                             sort_keys=True))
            for dst, link in resolved.items()
        }
        if want != have.get(r[1], set()):
            out.append(f"{r[2]}/{r[4] or r[0]} in {r[3]}: links edges to {sorted(have[r[1]])}, "
                       f"its body resolves to {sorted(want)}")
    return out


def _backlinks(repo: SqliteRepository, edges: list[Any], by_id: dict[str, Any]) -> list[str]:
    """Backlinks (the edges read from their far end) equal the same edges read forwards."""
    live = {r[1] for r in by_id.values() if r[9] is None}
    forward: dict[str, set[str]] = defaultdict(set)
    for eid, rel, src, dst, _data, _vf, vt in edges:
        if rel == "links" and vt is None and src in live and dst in live:
            forward[dst].add(eid)
    back: dict[str, set[str]] = defaultdict(set)
    for eid, _rel, src, dst in repo.expand(sorted(live), "in", ["links"], None, ScopeFilter()):
        if src in live:
            back[dst].add(eid)
    return [f"backlinks of {dst}: {sorted(back[dst])} but forward edges {sorted(forward[dst])}"
            for dst in sorted(live) if back.get(dst, set()) != forward.get(dst, set())]
