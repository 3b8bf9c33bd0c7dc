"""Copy a whole graph from one repository to another (``ryvem graph copy``).

Every node version and every edge is copied verbatim — ids, windows, chains, retire reasons
and link targets — by streaming the source's ``iter_versions``/``iter_edges`` batches into
the target's ``load``, one transaction per batch. Versions go first, so every edge lands
after the versions it joins. ``load`` skips ids the target already holds, so running a copy
again adds nothing and a copy interrupted half-way can simply be run again. The audit trail
of redactions and purges comes last (entries the target lacks, by id, oldest first, in one
transaction), so a store rebuilt by a round trip still says what was forgotten. At the end
the counts on both sides are compared: rows by state, current rows per kind and per scope,
edges by state and current edges per rel.

Before it writes anything, a copy into a store that already holds rows checks that no row
it brings contradicts them: a current version of an identity (kind, key, scope) the target
holds under another id, or a current edge (from, to, rel) it holds under another id — a
target with rows of its own, or one an earlier copy filled before the source changed. Such
a copy is refused whole (``Conflict``; it used to stop at the first batch holding one, with
the batches before it written). A writer racing the copy can still make one batch refuse.

**Forgetting crosses with the copy.** Content never changes except by a redaction or a purge,
so a row the target holds under the source's id with other content was forgotten on one side
since an earlier copy. A row the source forgot (its ``erased`` mark set; for an edge, its data
emptied or holding more ``[redacted]`` marks) is rewritten in the target to the source's
content, in the transaction that appends the source's audit entries, and the target's files
are then scrubbed — a copy used to skip such rows by id and still append the audit entry,
so the target kept the secret while its trail said it was gone. A row the target forgot is
left as it is: a copy never brings forgotten text back. A row both sides redacted is
rewritten when the source's is the target's with more of it redacted (a second redaction in
the source since the last copy: :func:`~ryvem.domain.redaction.redacted_further`), kept when
the target's is the source's with more redacted, and otherwise (each side redacted something
the other did not) refuses the copy whole.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ryvem.application.forget import text_changed
from ryvem.domain.model import Edge, Identity, NodeVersion, Stats
from ryvem.domain.redaction import REDACTED, Rewritten, redacted_further
from ryvem.errors import Conflict, InvalidInput
from ryvem.ports import Forgets, ForgetTx, GraphRepository

__all__ = ["CopyReport", "Progress", "compare_stats", "copy_graph"]

DEFAULT_BATCH = 1000

Phase = Literal["versions", "edges"]
Progress = Callable[[Phase, int, int], None]
"""Called after each batch: (phase, rows done in this phase, rows in this phase in total)."""


@dataclass(frozen=True)
class CopyReport:
    """What a copy did and whether both sides now hold the same counts."""

    source: Stats
    target: Stats
    versions_read: int
    versions_new: int
    edges_read: int
    edges_new: int
    differences: list[str] = field(default_factory=list)
    audit_read: int = 0
    audit_new: int = 0
    versions_forgotten: int = 0
    """Target versions rewritten because the source forgot their content since."""
    edges_forgotten: int = 0
    """Target edges whose data was rewritten because the source forgot it since."""
    kept_forgotten: int = 0
    """Rows the target forgot and the source did not: left as the target holds them."""

    @property
    def counts_match(self) -> bool:
        return not self.differences

    def record(self) -> dict[str, Any]:
        return {
            "from": {"backend": self.source.backend, "location": self.source.location},
            "to": {"backend": self.target.backend, "location": self.target.location},
            "versions": {"read": self.versions_read, "new": self.versions_new},
            "edges": {"read": self.edges_read, "new": self.edges_new},
            "audit": {"read": self.audit_read, "new": self.audit_new},
            "forgotten": {"versions": self.versions_forgotten, "edges": self.edges_forgotten,
                          "kept": self.kept_forgotten},
            "counts_match": self.counts_match,
            "differences": self.differences,
            "counts": _totals(self.target),
        }


def _totals(s: Stats) -> dict[str, Any]:
    return {
        "current_rows": s.current_rows,
        "superseded_rows": s.superseded_rows,
        "retired_rows": s.retired_rows,
        "edges_current": s.edges_current,
        "edges_closed": s.edges_closed,
        "kinds": dict(s.kinds),
        "scopes": dict(s.scopes),
        "rels": dict(s.rels),
    }


def compare_stats(a: Stats, b: Stats) -> list[str]:
    """One line per count that differs between two stores (empty when all agree)."""
    out: list[str] = []
    ta, tb = _totals(a), _totals(b)
    for name in ("current_rows", "superseded_rows", "retired_rows", "edges_current",
                 "edges_closed"):
        if ta[name] != tb[name]:
            out.append(f"{name.replace('_', ' ')}: {a.backend} {ta[name]}, {b.backend} {tb[name]}")
    for group, label in (("kinds", "kind"), ("scopes", "scope"), ("rels", "rel")):
        ga, gb = ta[group], tb[group]
        for name in sorted(set(ga) | set(gb)):
            if ga.get(name, 0) != gb.get(name, 0):
                out.append(
                    f"{label} {name}: {a.backend} {ga.get(name, 0)}, {b.backend} {gb.get(name, 0)}"
                )
    return out


def copy_graph(
    source: GraphRepository,
    target: GraphRepository,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy every version and edge of ``source`` into ``target`` and compare the counts."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise InvalidInput(f"batch must be a positive integer, got {batch!r}")
    if source.backend == target.backend and source.location == target.location:
        raise InvalidInput(f"source and target are the same store ({source.location})")
    plan = _preflight(source, target, batch)
    if plan.clashes:
        more = f" and {len(plan.clashes) - 1} more" if len(plan.clashes) > 1 else ""
        raise Conflict(
            f"nothing was copied: {target.backend} already holds {plan.clashes[0]}{more} (a "
            "copy adds rows to a store; it does not merge two histories, nor bring later "
            "changes to rows it copied before): copy into an empty store"
        )
    if plan.split:
        more = f" and {len(plan.split) - 1} more" if len(plan.split) > 1 else ""
        raise Conflict(
            f"nothing was copied: {plan.split[0]}{more} was redacted differently in the "
            f"source ({source.backend}) and in the target ({target.backend}), and a copy never "
            "brings redacted text back: redact the same texts on both sides, then copy again"
        )
    before = source.stats()
    total_versions = before.current_rows + before.superseded_rows + before.retired_rows
    total_edges = before.edges_current + before.edges_closed
    versions_read = versions_new = edges_read = edges_new = 0
    if progress is not None:
        progress("versions", 0, total_versions)
    for rows in source.iter_versions(batch):
        new, _ = target.load(rows, [])
        versions_read += len(rows)
        versions_new += new
        if progress is not None:
            progress("versions", versions_read, max(total_versions, versions_read))
    if progress is not None:
        progress("edges", 0, total_edges)
    for edges in source.iter_edges(batch):
        _, new = target.load([], edges)
        edges_read += len(edges)
        edges_new += new
        if progress is not None:
            progress("edges", edges_read, max(total_edges, edges_read))
    audit_read, audit_new = _copy_audit(source, target, plan)
    after_source = source.stats()
    after_target = target.stats()
    return CopyReport(
        source=after_source,
        target=after_target,
        versions_read=versions_read,
        versions_new=versions_new,
        edges_read=edges_read,
        edges_new=edges_new,
        differences=compare_stats(after_source, after_target),
        audit_read=audit_read,
        audit_new=audit_new,
        versions_forgotten=len(plan.versions),
        edges_forgotten=len(plan.edges),
        kept_forgotten=plan.kept,
    )


@dataclass
class _Plan:
    """What the checks before a copy found (module doc)."""

    clashes: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)  # rows redacted differently on each side
    versions: list[Rewritten] = field(default_factory=list)  # to rewrite as the source has it
    edges: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # versions whose title or body changes
    kept: int = 0


@dataclass(frozen=True, slots=True)
class _Held:
    """A target version as the checks keep it: its content's digest, its title and body's,
    its ``erased`` mark, and, redacted, the version itself (to tell a later redaction in the
    source from a different one)."""

    content: bytes
    text: bytes
    erased: str | None
    redacted: NodeVersion | None = None


def _digest(*content: Any) -> bytes:
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _version_digest(v: NodeVersion, targets: tuple[str, ...]) -> bytes:
    return _digest(v.title, v.body, v.data, v.retired_reason, list(targets), v.erased)


def _edge_marks(e: Edge) -> tuple[bool, int]:
    """How forgotten an edge's data looks: (emptied, ``[redacted]`` marks). An edge carries
    no ``erased`` mark; its data changes only when a purge empties it or a redaction marks
    it, so the side with more of either forgot."""
    return not e.data, json.dumps(e.data, ensure_ascii=False).count(REDACTED)


def _preflight(source: GraphRepository, target: GraphRepository, batch: int) -> _Plan:
    """What the copy would contradict in ``target``, one phrase each (module doc): current
    rows of ``source`` whose identity, or current edges whose (from, to, rel), ``target``
    holds current under another id; and the rows both hold under one id with other content
    (forgotten on one side). Nothing to read when ``target`` holds no row."""
    plan = _Plan()
    held = target.stats()
    if not (held.current_rows or held.superseded_rows or held.retired_rows
            or held.edges_current or held.edges_closed):
        return plan
    nodes: dict[Identity, str] = {}
    there: dict[str, _Held] = {}  # digests, not rows: a large target is read whole
    for rows in target.iter_versions(batch):
        for v, targets in rows:
            there[v.id] = _Held(_version_digest(v, targets), _digest(v.title, v.body), v.erased,
                                v if v.erased == "redacted" else None)
            if v.valid_to is None and v.key is not None:
                nodes[(v.kind, v.key, v.scope)] = v.id
    links: dict[tuple[str, str, str], str] = {}
    edges_there: dict[str, Edge] = {}
    for edges in target.iter_edges(batch):
        for e in edges:
            edges_there[e.id] = e
            if e.valid_to is None:
                links[(e.src, e.dst, e.rel)] = e.id
    clashing: dict[Identity, bool] = {}  # identity -> the target's row is the source's too
    for rows in source.iter_versions(batch):
        for v, targets in rows:
            held_v = there.get(v.id)
            if held_v is not None and held_v.content != _version_digest(v, targets):
                _forgotten_version(plan, v, targets, held_v)
            if v.key is not None:
                identity = (v.kind, v.key, v.scope)
                _clash(clashing, identity, v.id, v.valid_to is None, nodes.get(identity))
    plan.clashes += [
        _contradiction(f"version of {kind} {key!r} in {scope}", f"{kind} {key!r} in {scope}",
                       earlier)
        for (kind, key, scope), earlier in clashing.items()
    ]
    joined: dict[tuple[str, str, str], bool] = {}
    for edges in source.iter_edges(batch):
        for e in edges:
            held_e = edges_there.get(e.id)
            if held_e is not None and held_e.data != e.data:
                _forgotten_edge(plan, e, held_e)
            pair = (e.src, e.dst, e.rel)
            _clash(joined, pair, e.id, e.valid_to is None, links.get(pair))
    plan.clashes += [
        _contradiction(f"{rel} edge between two nodes", f"{rel} edge between the same two nodes",
                       earlier)
        for (_, _, rel), earlier in joined.items()
    ]
    return plan


def _contradiction(earlier_row: str, current_row: str, earlier: bool) -> str:
    """One refusal phrase (see :func:`_clash`)."""
    if earlier:
        return f"the source's earlier {earlier_row} as current (the source changed it since)"
    return f"a current {current_row} under another id than the source's"


_K = TypeVar("_K")


def _clash(seen: dict[_K, bool], key: _K, row: str, current: bool, held: str | None) -> None:
    """Note whether the target's current row for ``key`` (``held``) contradicts a source
    row: the source's current row under another id (False), or a row the source closed
    since, still current in the target (True: "the source changed it since")."""
    if held is None:
        return
    if current and held != row:
        seen.setdefault(key, False)
    elif not current and held == row:
        seen[key] = True


def _forgotten_version(
    plan: _Plan, v: NodeVersion, targets: tuple[str, ...], held: _Held
) -> None:
    """Sort one version both stores hold with other content (module doc)."""
    if v.erased is None or held.erased == "purged":
        plan.kept += 1  # the target forgot it (or holds what no side says it forgot)
        return
    if held.erased == "redacted" and v.erased == "redacted":
        assert held.redacted is not None
        if redacted_further(v, held.redacted):
            plan.kept += 1  # the target redacted more of it: its own forgetting stays
            return
        if not redacted_further(held.redacted, v):  # each side redacted something else
            plan.split.append(f"{v.kind} {v.entity}")  # by id: a key can hold the secret
            return
    plan.versions.append(Rewritten(
        id=v.id, title=v.title, body=v.body, data=v.data, retired_reason=v.retired_reason,
        erased=v.erased, targets=targets, occurrences=0,
    ))
    if _digest(v.title, v.body) != held.text:
        plan.changed.append(v.id)


def _forgotten_edge(plan: _Plan, e: Edge, held: Edge) -> None:
    mine, theirs = _edge_marks(e), _edge_marks(held)
    if mine > theirs:
        plan.edges.append((e.id, e.data))
    elif mine == theirs and mine[1] and not mine[0]:
        plan.split.append(f"the {e.rel} edge {e.id}")
    else:
        plan.kept += 1


def _copy_audit(source: GraphRepository, target: GraphRepository, plan: _Plan) -> tuple[int, int]:
    """Append to ``target`` the audit entries of ``source`` it lacks (by id, oldest first),
    and in the same transaction rewrite the rows the source forgot since an earlier copy
    (``plan``), then scrub the target's files of their old content; (entries read, entries
    new). Nothing when either store cannot forget."""
    if not (isinstance(source, Forgets) and isinstance(target, Forgets)):
        return 0, 0
    entries = source.audit()
    have = {e.id for e in target.audit()}
    new = [e for e in reversed(entries) if e.id not in have]

    def record(tx: ForgetTx) -> None:
        for entry in new:
            tx.record_audit(entry)
        if plan.versions:
            tx.rewrite_versions(plan.versions)
        if plan.edges:
            tx.rewrite_edges(plan.edges)
        text_changed(tx, plan.changed)

    if new or plan.versions or plan.edges:
        target.forget(record)
    if plan.versions or plan.edges:
        target.scrub()
    return len(entries), len(new)
