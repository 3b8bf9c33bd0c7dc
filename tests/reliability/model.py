"""A small in-memory model of ryvem's rules, written independently of the service.

It covers what random operation sequences exercise (test_model.py): keyed writes
(create / supersede / unchanged / revive), unkeyed appends, retire, user edges (link,
relink, unlink) and the ``links`` edges derived from ``[[wikilinks]]`` in bodies. Keys are
plain words without ``/``, so link resolution reduces to: among current nodes whose key
equals the target (case-folded), those in the source's scope, else in ``global``; prefer the
source's kind, then key order, then kind (never the order nodes were made). Links are kept
the way docs/design.md states: a written node's links are recomputed from its body, and when
a key appears (created or revived) or is retired every current node linking to it is
recomputed; nothing else changes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Identity = tuple[str, str, str]
_WIKI = re.compile(r"\[\[([^\[\]|#]+)(?:[|#][^\[\]]*)?\]\]")


class ModelError(Exception):
    """What the real service must raise too: ``kind`` is NotFound or Conflict."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass
class Version:
    title: str
    body: str
    data: dict[str, Any]
    retired: bool = False  # this version's window was closed by a retirement


@dataclass
class Node:
    """One entity: a keyed identity's chain, or an unkeyed node (one version)."""

    order: int  # creation order
    kind: str
    scope: str
    key: str | None
    versions: list[Version] = field(default_factory=list)

    @property
    def current(self) -> bool:
        return not self.versions[-1].retired

    @property
    def head(self) -> Version:
        return self.versions[-1]

    def targets(self) -> list[str]:
        own = self.key.casefold() if self.key is not None else None
        found = []
        for m in _WIKI.finditer(self.head.body):
            t = m.group(1).strip().casefold()
            if t and t != own and t not in found:
                found.append(t)
        return found


@dataclass
class Model:
    nodes: list[Node] = field(default_factory=list)
    by_identity: dict[Identity, Node] = field(default_factory=dict)
    # Current user edges: (src order, dst order, rel) -> data.
    edges: dict[tuple[int, int, str], dict[str, Any]] = field(default_factory=dict)
    # Current links edges: (src order, dst order).
    links: set[tuple[int, int]] = field(default_factory=set)

    # --- writes --------------------------------------------------------------------------
    def write(self, kind: str, key: str | None, scope: str, title: str, body: str,
              data: dict[str, Any]) -> tuple[str, Node]:
        """Returns the outcome: created, superseded, revived or unchanged."""
        node = self.by_identity.get((kind, key, scope)) if key is not None else None
        if node is None:
            node = Node(len(self.nodes), kind, scope, key, [Version(title, body, data)])
            self.nodes.append(node)
            if key is not None:
                self.by_identity[(kind, key, scope)] = node
            outcome = "created"
        elif node.current and (node.head.title, node.head.body, node.head.data) == (
            title, body, data):
            return "unchanged", node
        else:
            outcome = "superseded" if node.current else "revived"
            node.versions.append(Version(title, body, data))
        self._relink(node)
        if outcome != "superseded" and key is not None:
            self._relink_linkers(node)
        return outcome, node

    def retire(self, ident: Identity) -> Node:
        node = self.by_identity.get(ident)
        if node is None:
            raise ModelError("NotFound")
        if not node.current:
            raise ModelError("Conflict")
        node.head.retired = True
        self._relink_linkers(node)
        return node

    def link(self, a: Identity, b: Identity, rel: str, data: dict[str, Any]) -> None:
        src, dst = self._live(a), self._live(b)
        self.edges[(src.order, dst.order, rel)] = data

    def unlink(self, a: Identity, b: Identity, rel: str) -> None:
        src, dst = self._live(a), self._live(b)
        if self.edges.pop((src.order, dst.order, rel), None) is None:
            raise ModelError("NotFound")

    # --- the rules -----------------------------------------------------------------------
    def _live(self, ident: Identity) -> Node:
        node = self.by_identity.get(ident)
        if node is None or not node.current:
            raise ModelError("NotFound")
        return node

    def resolve(self, source: Node, target: str) -> Node | None:
        for tier in (source.scope, "global"):
            pool = [n for n in self.nodes if n.current and n.key is not None
                    and n.key.casefold() == target and n.scope == tier]
            if pool:
                return min(pool, key=lambda n: (n.kind != source.kind, n.key, n.kind))
        return None

    def _relink_linkers(self, node: Node) -> None:
        """Re-resolve every current node linking to ``node``'s key (it appeared or retired)."""
        assert node.key is not None
        for other in self.nodes:
            if other.current and other is not node and node.key.casefold() in other.targets():
                self._relink(other)

    def _relink(self, source: Node) -> None:
        want = set()
        for t in source.targets():
            hit = self.resolve(source, t)
            if hit is not None and hit is not source:
                want.add((source.order, hit.order))
        self.links = {e for e in self.links if e[0] != source.order} | want
