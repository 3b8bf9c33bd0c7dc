"""The use cases. The CLI, the MCP server and library users call this; never an adapter.

A ``Service`` wraps one ``GraphRepository`` and a default scope. Input is validated here,
before any transaction opens, so a bad request writes nothing. Every write runs as one
function inside ``repo.write`` and so commits whole or not at all.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ryvem.application import forget
from ryvem.application.planning import PlanningTx
from ryvem.application.search import SearchRequest
from ryvem.domain.ids import IdSequence, is_id, new_id
from ryvem.domain.links import (
    Link,
    extract_links,
    normalize,
    resolve_links,
    tail,
)
from ryvem.domain.model import (
    LINKS,
    RESERVED_RELS,
    SUPERSEDES,
    AuditEntry,
    Edge,
    NodeHead,
    NodeVersion,
    SearchHit,
    Stats,
    Step,
)
from ryvem.domain.redaction import check_redaction_text, links_of
from ryvem.domain.scopes import GLOBAL, ScopeFilter, parse_scope, parse_scope_filter
from ryvem.domain.search import parse_search
from ryvem.domain.timeutil import Clock, format_us, parse_time
from ryvem.domain.traversal import EdgeRow, bfs, clamp_depth, expand_within, parse_direction
from ryvem.domain.validation import (
    SLUG,
    check_text,
    validate_body,
    validate_data,
    validate_key,
    validate_kind,
    validate_reason,
    validate_rel,
    validate_search_text,
    validate_title,
)
from ryvem.domain.writes import (
    Close,
    Linker,
    NewNode,
    WriteResult,
    append_only,
    by_last_segment,
    node_name,
    plan_link_refresh,
    plan_writes,
)
from ryvem.errors import AmbiguousRef, Conflict, InvalidInput, NotFound
from ryvem.ports import (
    AppliesPlans,
    GraphRepository,
    Progress,
    WalksInOneQuery,
    WriteTx,
)

__all__ = ["EdgeView", "NewNode", "Service", "WriteResult"]

MAX_LIMIT = 1000
_CLOCK = Clock()


@dataclass(frozen=True, slots=True)
class EdgeView:
    """An edge as the faces show it: endpoints named by the versions it joined."""

    edge: Edge
    from_id: str
    to_id: str

    def record(self) -> dict[str, Any]:
        return {
            "id": self.edge.id,
            "rel": self.edge.rel,
            "from": self.from_id,
            "to": self.to_id,
            "data": self.edge.data,
            "valid_from": format_us(self.edge.valid_from),
            "valid_to": None if self.edge.valid_to is None else format_us(self.edge.valid_to),
            "recorded_at": format_us(self.edge.recorded_at),
            "closure_recorded_at": None if self.edge.closure_recorded_at is None
            else format_us(self.edge.closure_recorded_at),
        }


def _as_of(value: object) -> int | None:
    if value is None:  # an empty string is not "now": it is an error like any bad date
        return None
    return parse_time(value)  # type: ignore[arg-type]


def _known(known_at: int | None) -> str:
    return "" if known_at is None else f" as known at {format_us(known_at)}"


class Service:
    """ryvem's use cases over one repository.

    Built on an open ``repo``, or on an ``opener`` that opens the store on first use (what a
    :class:`~ryvem.application.session.Session` hands out): every use case validates its
    input before it touches :attr:`repo`, so a refused request never opens — and so never
    creates — a store.
    """

    def __init__(
        self,
        repo: GraphRepository | None = None,
        *,
        default_scope: str = GLOBAL,
        clock: Clock | None = None,
        opener: Callable[[], GraphRepository] | None = None,
    ) -> None:
        if (repo is None) == (opener is None):
            raise TypeError("Service needs a repository or an opener (one of them)")
        self._repo = repo
        self._opener = opener
        self.default_scope = parse_scope(default_scope)
        self.clock = clock or _CLOCK

    @property
    def repo(self) -> GraphRepository:
        """The store (opened now by the opener, if this service has one and it is not yet)."""
        if self._repo is None:
            assert self._opener is not None
            self._repo = self._opener()
        return self._repo

    @repo.setter
    def repo(self, repo: GraphRepository) -> None:
        """Serve another store from now on (``repo`` was a plain attribute: still settable)."""
        self._repo = repo

    # --- helpers ------------------------------------------------------------------------
    def scope(self, scope: str | None) -> str:
        return self.default_scope if scope is None else parse_scope(scope)

    def prepare(
        self,
        kind: str,
        title: str,
        *,
        key: str | None = None,
        scope: str | None = None,
        body: str | None = None,
        data: object = None,
        valid_from: object = None,
        renamed_from: str | None = None,
    ) -> NewNode:
        """Validate one write request (nothing is written).

        ``valid_from`` is when it became true: ISO 8601 text, a datetime or microseconds
        (what ``as_of`` takes); None is the moment it is written. It may not be in the
        future, nor before the identity's latest valid time (checked when it is written).

        ``renamed_from`` names the old key of a rename: the old identity's current version is
        closed and the new one continues its node (one entity, one history) under ``key``.
        """
        node = NewNode(
            kind=validate_kind(kind),
            title=validate_title(title),
            scope=self.scope(scope),
            key=None if key is None else validate_key(key),
            body=validate_body(body),
            data=validate_data(data),
            valid_from=self.valid_time(valid_from, "valid_from"),
            renamed_from=None if renamed_from is None else validate_key(renamed_from),
        )
        if node.renamed_from is not None and node.renamed_from in (node.key, None):
            raise InvalidInput("a rename needs a key that differs from the old one")
        if node.renamed_from is not None and node.key is None:
            raise InvalidInput("a rename needs the new key")
        return node

    def valid_time(self, value: object, name: str = "valid time") -> int | None:
        """A caller's valid time in microseconds (None stays None: now); never in the future."""
        if value is None:
            return None
        at = parse_time(value)  # type: ignore[arg-type]
        now = self.clock.now()
        if at > now:
            raise InvalidInput(
                f"{name} {format_us(at)} is in the future (now is {format_us(now)}): ryvem "
                "records what was true up to now"
            )
        return at

    # --- writes -------------------------------------------------------------------------
    def write(
        self,
        kind: str,
        title: str,
        *,
        key: str | None = None,
        scope: str | None = None,
        body: str | None = None,
        data: object = None,
        valid_from: object = None,
    ) -> NodeVersion:
        """Insert-or-supersede on (kind, key, scope); an unkeyed write always appends.

        Writing exactly the current title, body and data again creates no version (whatever
        ``valid_from`` says). ``valid_from`` dates the new version in valid time (default
        now; see :meth:`prepare`); ryvem records it at its own clock's now (system time).
        """
        node = self.prepare(
            kind, title, key=key, scope=scope, body=body, data=data, valid_from=valid_from
        )
        return self.write_many([node])[0].version

    def write_many(self, nodes: Sequence[NewNode]) -> list[WriteResult]:
        """Apply validated writes in one transaction (identities must be distinct)."""
        if not nodes:
            return []
        idents = [i for n in nodes for i in (n.identity, n.old_identity) if i is not None]
        if len(idents) != len(set(idents)):
            raise InvalidInput(
                "one batch may write (or rename from) each (kind, key, scope) only once"
            )
        return self.repo.write(lambda tx: self._write_planned(tx, nodes))

    def _write_planned(self, tx: WriteTx, nodes: Sequence[NewNode]) -> list[WriteResult]:
        """``_apply_writes``, in two round trips where the store applies plans: its reads
        prefetched in one query, its writes recorded and applied at once."""
        if not isinstance(tx, AppliesPlans):
            return self._apply_writes(tx, nodes)
        keyed = [n for n in nodes if n.identity is not None]
        context = tx.write_context(
            [i for n in keyed for i in (n.identity, n.old_identity) if i is not None],
            [(n.identity, tail(normalize(n.key))) for n in keyed
             if n.identity is not None and n.key is not None],
            sorted({
                tail(link.target) for n in nodes for link in extract_links(n.body, n.key, n.data)
            }),
        )
        planner = PlanningTx(tx, tx, context)
        results = self._apply_writes(planner, nodes)
        planner.apply()
        return results

    def _apply_writes(self, tx: WriteTx, nodes: Sequence[NewNode]) -> list[WriteResult]:
        """Read what the rules need, plan the writes (``ryvem.domain.writes``), apply them."""
        latest = tx.latest_by_identity(
            [i for n in nodes for i in (n.identity, n.old_identity) if i is not None]
        )
        # One system-time instant per batch (after anything the store holds on either clock).
        mint = IdSequence(
            self.clock.after(max((p.latest_instant for p in latest.values()), default=None))
        )
        plan = plan_writes(nodes, latest, mint)
        if not plan.versions:
            return plan.results
        tx.close_versions(plan.closes)
        tx.mark_superseded(plan.revives)
        tx.insert_versions(plan.versions, plan.targets)
        tx.insert_edges(plan.edges)
        self._refresh_links(
            tx, plan.sources, plan.changed_tails, mint, plan.since, plan.appeared_at
        )
        return plan.results

    def _refresh_links(
        self,
        tx: WriteTx,
        sources: list[Linker],
        changed_tails: set[str],
        mint: IdSequence,
        since: int,
        appeared_at: dict[str, int] | None = None,
    ) -> None:
        """Make the current ``links`` edges of these sources match their links
        (:func:`ryvem.domain.writes.plan_link_refresh` decides; this reads and applies).

        Also re-resolves every current node linking to a target whose last segment is in
        ``changed_tails`` (a key appeared or retired there), from its current version's body
        and data, so a dangling link resolves as soon as its target exists and a nearer or
        better match takes a link over; a re-resolved source's edges change at ``since`` or
        its current version's valid_from if later. All are recorded at ``mint.at``.
        """
        if changed_tails:
            known = {s.entity for s in sources}
            extra = sorted(
                {s.entity for s in tx.link_sources(sorted(changed_tails))} - known
            )
            live = tx.current_of_entities(extra) if extra else {}
            sources += [Linker.of(live[e], since) for e in extra if e in live]
        if not sources:
            return
        by_tail = by_last_segment(
            tx.link_candidates, (link.target for s in sources for link in s.links)
        )
        have: dict[str, dict[str, Edge]] = defaultdict(dict)
        for e in tx.current_link_edges([s.entity for s in sources]):
            have[e.src][e.dst] = e
        refresh = plan_link_refresh(sources, by_tail, have, appeared_at or {})
        for at, ids in sorted(refresh.closes.items()):
            tx.close_edges(ids, at, mint.at)
        if refresh.opens:
            tx.insert_edges(refresh.new_edges(mint))

    def retire(
        self,
        ref: str,
        *,
        reason: str | None = None,
        scope: str | None = None,
        valid_to: object = None,
    ) -> NodeVersion:
        """Close the current version's window; the identity can be written again later.

        ``valid_to`` is when it stopped being true (valid time, what ``as_of`` takes; default
        now): not in the future, and not before the version's valid_from.
        """
        reason = validate_reason(reason)
        until = self.valid_time(valid_to, "valid_to")
        version = self.resolve(ref, scope=scope, allow_closed=True)
        if not version.is_current:
            raise Conflict(
                f"{node_name(version)} version {version.id} is not current (closed at "
                f"{format_us(version.valid_to or 0)}); only a current version can be retired"
            )
        if until is not None:
            until = append_only(node_name(version), until, version.valid_from, strict=True)

        def run(tx: WriteTx) -> NodeVersion:
            recorded = self.clock.after(version.latest_instant)
            at = recorded if until is None else until
            tx.close_versions([Close(version.id, at, recorded, retired_reason=reason)])
            if version.key is not None:
                # Links that resolved to this key re-resolve now: to another candidate
                # (e.g. the same key in global), or to nothing until the key is written again.
                self._refresh_links(
                    tx, [], {tail(normalize(version.key))}, IdSequence(recorded), at
                )
            return version.model_copy(update={
                "valid_to": at, "retired_reason": reason, "closure_recorded_at": recorded,
            })

        return self.repo.write(run)

    def link(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        data: object = None,
        scope: str | None = None,
        valid_from: object = None,
    ) -> EdgeView:
        """Open a typed edge between two current nodes (re-linking with new data supersedes it).

        ``valid_from`` dates the edge in valid time (default now): not in the future, not
        before the valid_from of the edge it supersedes, nor before the end of the last
        window of the same (from, rel, to).
        """
        rel = _user_rel(rel)
        payload = validate_data(data)
        since = self.valid_time(valid_from, "valid_from")
        self._check_ends(from_ref, to_ref, scope)
        a = self._resolve_current(from_ref, scope)
        b = self._resolve_current(to_ref, scope)
        what = f"the {rel!r} edge from {node_name(a)} to {node_name(b)}"

        def run(tx: WriteTx) -> EdgeView:
            live = tx.current_of_entities([a.entity, b.entity])
            for v in (a, b):
                if v.entity not in live:
                    raise Conflict(f"{node_name(v)} was retired meanwhile; nothing was linked")
            existing = tx.current_edges(a.entity, b.entity, rel)
            if existing and existing[0].data == payload:
                edge = existing[0]
            else:
                last = existing[0] if existing else (
                    tx.latest_edge(a.entity, b.entity, rel) if since is not None else None
                )
                recorded = self.clock.after(None if last is None else last.latest_instant)
                at = recorded
                if since is not None:
                    at = since
                    if last is not None and last.valid_to is None:
                        at = append_only(what, since, last.valid_from, strict=True)
                    elif last is not None and last.valid_to is not None:
                        at = append_only(what, since, last.valid_to, strict=False)
                if existing:
                    at = max(at, existing[0].valid_from)
                    tx.close_edges([existing[0].id], at, recorded)
                edge = Edge.model_construct(
                    id=new_id(recorded), rel=rel, src=a.entity, dst=b.entity, data=payload,
                    valid_from=at, valid_to=None, recorded_at=recorded, closure_recorded_at=None,
                )
                tx.insert_edges([edge])
            return EdgeView(edge, live[a.entity].id, live[b.entity].id)

        return self.repo.write(run)

    def unlink(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        scope: str | None = None,
        valid_to: object = None,
    ) -> EdgeView:
        """Close the current edge's window (``valid_to``: when it stopped being true, default
        now; not in the future nor before the edge's valid_from)."""
        rel = _user_rel(rel)
        until = self.valid_time(valid_to, "valid_to")
        self._check_ends(from_ref, to_ref, scope)
        a = self._resolve_current(from_ref, scope)
        b = self._resolve_current(to_ref, scope)

        def run(tx: WriteTx) -> EdgeView:
            existing = tx.current_edges(a.entity, b.entity, rel)
            if not existing:
                raise NotFound(f"no current {rel!r} edge from {node_name(a)} to {node_name(b)}")
            edge = existing[0]
            recorded = self.clock.after(edge.latest_instant)
            at = max(recorded, edge.valid_from)
            if until is not None:
                at = append_only(
                    f"the {rel!r} edge from {node_name(a)} to {node_name(b)}", until,
                    edge.valid_from, strict=False,
                )
            tx.close_edges([edge.id], at, recorded)
            return EdgeView(
                edge.model_copy(update={"valid_to": at, "closure_recorded_at": recorded}),
                a.id, b.id,
            )

        return self.repo.write(run)

    def _check_ends(self, from_ref: str, to_ref: str, scope: str | None) -> None:
        """An edge's two refs and its scope, checked before either end is looked up."""
        _check_ref(from_ref)
        _check_ref(to_ref)
        self.scope(scope)

    def _resolve_current(self, ref: str, scope: str | None) -> NodeVersion:
        """``resolve`` for an edge's end: an old version's id is refused, never moved on.

        An edge joins nodes, not versions, so linking "from version 1" would silently link
        the current version instead; naming a closed version is a Conflict that says so.
        """
        version = self.resolve(ref, scope=scope, allow_closed=is_id(ref))
        if not version.is_current:
            now = self.repo.get_entity(version.entity, None)
            hint = f"; the current version is {now.id}" if now is not None else " (retired)"
            raise Conflict(
                f"{ref} is an old version of {node_name(version)}{hint}; an edge joins current "
                "nodes: name it by KIND/KEY or its current id"
            )
        return version

    # --- forgetting (application/forget.py) ----------------------------------------------
    def redact(
        self,
        text: str,
        *,
        scope: str | None = None,
        all_scopes: bool = False,
        reason: str | None = None,
        actor: forget.Actor | None = None,
        dry_run: bool = False,
        force: bool = False,
        progress: Progress | None = None,
    ) -> forget.ForgetReport:
        """Redact ``text`` from every version and edge in the scope (the default scope, a
        scope or shape, or every scope); see :func:`ryvem.application.forget.redact`."""
        # The input is checked before the store is touched (forget.redact checks it again
        # for its own callers): a refused redaction opens, and so creates, nothing.
        text = check_redaction_text(text, force=force)
        reason = validate_reason(reason)
        if all_scopes and scope is not None:
            raise InvalidInput("give either a scope or all scopes, not both")
        if all_scopes:
            filt, label = parse_scope_filter(None), "*"
        elif scope is not None:
            filt, label = parse_scope_filter(scope), scope
        else:
            filt, label = ScopeFilter(exact=self.default_scope), self.default_scope
        return forget.redact(
            self.repo, text, scope=filt, scope_label=label, reason=reason, actor=actor,
            dry_run=dry_run, force=force, clock=self.clock, progress=progress,
        )

    def purge(
        self,
        ref: str,
        *,
        scope: str | None = None,
        reason: str | None = None,
        actor: forget.Actor | None = None,
        progress: Progress | None = None,
        dry_run: bool = False,
    ) -> forget.ForgetReport:
        """Erase the content of every version of a node and its edges' data, keeping the
        skeleton (``dry_run``: count, change nothing); an unknown REF is invalid input. See
        :func:`ryvem.application.forget.purge`."""
        reason = validate_reason(reason)
        try:
            version = self.resolve(ref, scope=scope, allow_closed=True, strict=True)
        except NotFound as e:
            raise InvalidInput(f"{e.message}; nothing was purged") from None
        return forget.purge(
            self.repo, version, reason=reason, actor=actor, clock=self.clock, progress=progress,
            dry_run=dry_run,
        )

    def audit(self) -> list[AuditEntry]:
        """Every redaction and purge, newest first."""
        return forget.audit(self.repo)

    # --- reads --------------------------------------------------------------------------
    def resolve(
        self,
        ref: str,
        *,
        scope: str | None = None,
        as_of: object = None,
        known_at: object = None,
        allow_closed: bool = False,
        strict: bool = False,
    ) -> NodeVersion:
        """A node version named by id, ``KIND/KEY`` or a bare key (docs/reference/conventions.md).

        With ``as_of`` the version valid then (valid time); otherwise the current one. With
        ``known_at`` only what ryvem had recorded by then (system time), shown as it was
        known then (:meth:`known`). ``allow_closed`` lets an id name a closed version and
        ``KIND/KEY`` its newest, retired version. ``strict`` (purge, which cannot be undone):
        a REF that reads as ``KIND/KEY`` and names no such node is not taken as the bare key
        of a node of another kind (``purge task/z`` erased ``page/task/z``); the error names
        that node instead.
        """
        _check_ref(ref)
        at = _as_of(as_of)
        k = _as_of(known_at)
        sc = self.scope(scope)
        if is_id(ref):
            version = self.repo.get_version(ref)
            if version is not None and k is not None and version.recorded_at > k:
                raise NotFound(f"{ref} was not recorded yet at {format_us(k)} (known-at)")
            if version is not None:
                if at is not None:
                    found = self.repo.get_entity(version.entity, at, known_at=k)
                    if found is None:
                        raise NotFound(f"{ref} did not exist at {format_us(at)}{_known(k)}")
                    return self.known(found, k)
                version = self.known(version, k)
                if version.is_current or allow_closed:
                    return version
                current = self.repo.get_entity(version.entity, None, known_at=k)
                if current is not None:
                    return self.known(current, k)
                return version
        kind, sep, rest = ref.partition("/")
        if sep and rest and SLUG.match(kind):
            ident = (kind, rest, sc)
            version = self.repo.get_identity(ident, at, known_at=k)
            if version is None and allow_closed and at is None:
                version = self.repo.latest_of_identity(ident, known_at=k)
            if version is not None:
                if at is None and k is None:
                    return self._settled(version)
                return self.known(version, k)
        matches = self.repo.find_by_key(ref, ScopeFilter(exact=sc), at, known_at=k)
        if strict and sep and rest and SLUG.match(kind) and matches:
            owners = ", ".join(f"{m.kind}/{m.key}" for m in matches)
            raise NotFound(
                f"no {kind} {rest!r} in scope {sc}; the key {ref!r} belongs to {owners}: name "
                "it so (KIND/KEY or its id) to act on it"
            )
        if len(matches) == 1:
            return self.known(matches[0], k)
        if len(matches) > 1:
            names = [f"{m.kind}/{m.key}" for m in matches]
            raise AmbiguousRef(
                f"{ref!r} names {len(matches)} nodes in {sc}: {', '.join(names)}; "
                "use KIND/KEY or an id",
                names,
            )
        when = "" if at is None else f" at {format_us(at)}"
        # A bare key names a current node only; say how to reach a retired one (its history,
        # why it was dropped) rather than leave the caller guessing. Not for a past read: a
        # node that did not exist then (or was not known yet) is not a retired one.
        bare = not (sep and rest and SLUG.match(kind))
        hint = "" if not bare or at is not None or k is not None else (
            "; a bare KEY names only a current node: name a retired one by KIND/KEY or its id")
        raise NotFound(f"no node {ref!r} in scope {sc}{when}{_known(k)}{hint}")

    def known(self, version: NodeVersion, known_at: int | None) -> NodeVersion:
        """``version`` as ryvem knew it at ``known_at`` (itself when None): a window's end,
        successor and retire reason recorded later are not known yet."""
        if known_at is None:
            return version
        seen = version.as_known_at(known_at)
        if seen.superseded_by is not None:  # a revived row: its successor came later
            successor = self.repo.get_version(seen.superseded_by)
            if successor is None or successor.recorded_at > known_at:
                seen = seen.model_copy(update={"superseded_by": None})
        return seen

    def _settled(self, version: NodeVersion) -> NodeVersion:
        """The current version when a current read met a row closed under it.

        A store with read-committed reads (Neo4j) can answer a "current" read racing a
        supersede with the row being closed. A few re-reads settle it on the version that is
        current; a row that stays closed without a successor is a retirement and is returned.
        """
        for _ in range(5):
            if version.valid_to is None:
                return version
            current = self.repo.get_entity(version.entity, None)
            if current is not None:
                return current
            fresh = self.repo.get_version(version.superseded_by or version.id)
            if fresh is None:
                return version
            if fresh.id == version.id and fresh.superseded_by is None:
                return fresh  # retired, and no successor is on its way
            version = fresh
        return version

    def get(
        self,
        ref: str,
        *,
        scope: str | None = None,
        as_of: object = None,
        known_at: object = None,
    ) -> NodeVersion:
        """One version: current, valid at ``as_of`` (valid time), as known at ``known_at``
        (system time), or both: what ryvem believed at ``known_at`` about ``as_of``."""
        return self.resolve(ref, scope=scope, as_of=as_of, known_at=known_at, allow_closed=True)

    def history(
        self,
        ref: str,
        *,
        scope: str | None = None,
        as_of: object = None,
        known_at: object = None,
    ) -> list[NodeVersion]:
        """The whole chain, oldest first, from any of its versions: with ``as_of`` the
        versions begun by then (each whole, as :meth:`get` shows it), with ``known_at``
        those recorded by then, as known then."""
        at = _as_of(as_of)
        k = _as_of(known_at)
        version = self.resolve(ref, scope=scope, known_at=k, allow_closed=True)
        chain = self.repo.chain(version.entity)
        if at is None and k is None:
            return chain
        # Each version whole, as ``get`` at the same clocks shows it: a window that ends
        # after ``as_of`` keeps its end and its successor (it used to lose the successor
        # only, and read as retired).
        seen = [s for v in chain if (s := v.seen_at(at, k)) is not None]
        if not seen:
            raise NotFound(
                f"{node_name(version)} did not exist yet at {format_us(at or 0)}{_known(k)}"
            )
        return seen

    def search(
        self,
        text: str | None = None,
        *,
        kinds: Sequence[str] = (),
        scope: str | None = None,
        all_scopes: bool = False,
        limit: int = 20,
        as_of: object = None,
        known_at: object = None,
    ) -> list[SearchHit]:
        """Best-first lexical hits over current rows (or rows valid at ``as_of``, as known at
        ``known_at``); the search modes (semantic, hybrid) are :meth:`Session.search`."""
        r = self.search_request(
            text, kinds=kinds, scope=scope, all_scopes=all_scopes, limit=limit, as_of=as_of,
            known_at=known_at,
        )
        return self.repo.search(
            parse_search(r.text), r.kinds, r.scope, r.limit, r.as_of, r.known_at
        )

    def search_request(
        self,
        text: str | None = None,
        *,
        kinds: Sequence[str] = (),
        scope: str | None = None,
        all_scopes: bool = False,
        limit: int = 20,
        as_of: object = None,
        known_at: object = None,
        history: bool = False,
    ) -> SearchRequest:
        """A search's arguments validated: the text, kinds, the scope filter, the limit, the
        times (``history``: every version, whenever it held — not with a time). Any text is
        a query, but not one that is not Unicode: a lone surrogate is an ``InvalidInput`` in
        every mode, as it is in a write."""
        if not isinstance(history, bool):
            raise InvalidInput(f"history must be true or false, got {history!r}")
        if history and (as_of is not None or known_at is not None):
            raise InvalidInput("a history search looks at every version, whenever it held; "
                               "as-of and known-at pick one moment: give one or the other")
        if text is not None:
            text = validate_search_text(text)
        kinds = [validate_kind(k) for k in ([kinds] if isinstance(kinds, str) else kinds)]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        if all_scopes and scope is not None:
            raise InvalidInput("give either a scope or all scopes, not both")
        if all_scopes:
            filt = parse_scope_filter(None)
        elif scope is not None:
            filt = parse_scope_filter(scope)
        else:
            filt = ScopeFilter(exact=self.default_scope)
        return SearchRequest(
            text, list(kinds), filt, min(limit, MAX_LIMIT), _as_of(as_of), _as_of(known_at),
            every_version=history,
        )

    def traverse(
        self,
        ref: str,
        *,
        depth: object = 1,
        direction: object = "out",
        rels: Sequence[str] | None = None,
        as_of: object = None,
        scope: str | None = None,
        all_scopes: bool = False,
        known_at: object = None,
    ) -> list[Step]:
        """Breadth-first edges from a node; see ``ryvem.domain.traversal``."""
        d = clamp_depth(depth)
        dirn = parse_direction(direction)
        rel_list = None if not rels else sorted({validate_rel(r) for r in rels})
        if rel_list is not None and SUPERSEDES in rel_list:
            raise InvalidInput(
                "'supersedes' edges join two versions of one node, never two nodes valid at "
                "the same time, so no walk can cross them; use `ryvem graph history REF`"
            )
        at = _as_of(as_of)
        k = _as_of(known_at)
        start = self.resolve(ref, scope=scope, as_of=at, known_at=k)
        if at is None and not start.is_current:
            raise NotFound(
                f"{node_name(start)} is not current; pass an as-of time to walk the past"
            )
        filt = ScopeFilter() if all_scopes else ScopeFilter(exact=start.scope)

        hood = None
        if isinstance(self.repo, WalksInOneQuery):
            hood = (
                self.repo.neighbourhood(start.entity, d, dirn, rel_list, at, filt)
                if k is None
                else self.repo.neighbourhood(start.entity, d, dirn, rel_list, at, filt, k)
            )
        if hood is not None:
            levels = bfs(start.entity, d, dirn, expand_within(hood.edges))
            nodes = dict(hood.heads)
        else:

            def expand(frontier: Sequence[str], side: Literal["out", "in"]) -> Sequence[EdgeRow]:
                if k is None:
                    return self.repo.expand(frontier, side, rel_list, at, filt)
                return self.repo.expand(frontier, side, rel_list, at, filt, known_at=k)

            levels = bfs(start.entity, d, dirn, expand)
            entities = {start.entity}
            for _, _, rows in levels:
                entities.update(r[2] for r in rows)
                entities.update(r[3] for r in rows)
            nodes = (
                self.repo.get_heads(sorted(entities), at)
                if k is None else self.repo.get_heads(sorted(entities), at, known_at=k)
            )
        nodes[start.entity] = NodeHead.of(start)
        return [
            Step(nodes[src], nodes[dst], rel, side, hop, eid)
            for hop, side, rows in levels
            for eid, rel, src, dst in rows
            if src in nodes and dst in nodes
        ]

    def unresolved(self, ref: str, *, scope: str | None = None) -> list[str]:
        """Link targets of a node's current version that resolve to no node yet."""
        version = self.resolve(ref, scope=scope)
        targets = self.repo.link_targets(version.id)
        by_tail = by_last_segment(self.repo.link_candidates, targets)
        _, dangling = resolve_links(
            [Link(t) for t in targets], version.entity, version.scope, version.kind,
            version.key, by_tail,
        )
        return dangling

    def link_status(self, versions: Sequence[NodeVersion]) -> dict[str, tuple[int, list[str]]]:
        """For each version (by id): the current ``links`` edges leaving its node in the
        store, and its link targets that resolve to no node (as :meth:`unresolved` lists).

        Two reads for the whole batch (used by the vault import's summary).
        """
        entities = sorted({v.entity for v in versions})
        edges = Counter(
            row[2] for row in self.repo.expand(entities, "out", [LINKS], None, ScopeFilter())
        ) if entities else Counter[str]()
        links = {v.id: links_of(v) for v in versions}
        by_tail = by_last_segment(
            self.repo.link_candidates, (link.target for ls in links.values() for link in ls)
        )
        return {
            v.id: (
                edges[v.entity],
                resolve_links(links[v.id], v.entity, v.scope, v.kind, v.key, by_tail)[1],
            )
            for v in versions
        }

    def edges_of(
        self,
        ref: str,
        *,
        scope: str | None = None,
        as_of: object = None,
        known_at: object = None,
    ) -> list[Edge]:
        """Edges touching a node (either end) visible at (``as_of``, ``known_at``), as known
        then; supersedes excluded."""
        at, k = _as_of(as_of), _as_of(known_at)
        version = self.resolve(ref, scope=scope, as_of=at, known_at=k)
        if k is None:
            return self.repo.edges_of(version.entity, at)
        return [e.as_known_at(k) for e in self.repo.edges_of(version.entity, at, known_at=k)]

    def stats(self) -> Stats:
        return self.repo.stats()

    def iter_graph(self) -> Iterator[list[tuple[NodeVersion, tuple[str, ...]]]]:
        return self.repo.iter_versions()

    def iter_edges(self) -> Iterator[list[Edge]]:
        return self.repo.iter_edges()

    def ensure_repo_node(self, repo_uuid: str, name: str) -> NodeVersion:
        """The ``repo`` node (key = uuid, global scope) for a repository, created once."""
        existing = self.repo.get_identity(("repo", repo_uuid, GLOBAL), None)
        if existing is not None:
            return existing
        return self.write("repo", name or repo_uuid, key=repo_uuid, scope=GLOBAL)


def _check_ref(ref: object) -> None:
    """A node reference that can name something: a non-blank string of valid Unicode."""
    if not isinstance(ref, str) or not ref.strip():
        raise InvalidInput("a node reference must not be empty")
    check_text("a node reference", ref)  # undecodable argv bytes arrive as lone surrogates


def _user_rel(rel: str) -> str:
    rel = validate_rel(rel)
    if rel in RESERVED_RELS:
        raise InvalidInput(
            f"rel {rel!r} is reserved: 'supersedes' edges come from writes and 'links' edges "
            "from [[wikilinks]] in bodies"
        )
    return rel
