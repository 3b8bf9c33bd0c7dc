"""The graph's values: node versions, edges, and what reads return.

A *node version* is one row on the time axis. Versions of one keyed node share an
``entity`` (the id of its first version) and form one chain linked by ``supersedes``.
Edges join entities, not versions, so an edge keeps reaching the current version of
its endpoints after they are superseded; the ``supersedes`` edges are the exception and
join the two versions they order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ryvem.domain import visibility
from ryvem.domain.timeutil import format_us

__all__ = [
    "EDGE_FIELDS",
    "HEAD_FIELDS",
    "JSON_FIELDS",
    "LINKS",
    "NODE_FIELDS",
    "RESERVED_RELS",
    "SUPERSEDES",
    "AuditEntry",
    "Direction",
    "Edge",
    "Identity",
    "NodeHead",
    "NodeVersion",
    "SearchHit",
    "Stats",
    "Step",
    "trusted",
]

SUPERSEDES = "supersedes"
LINKS = "links"
RESERVED_RELS = frozenset({SUPERSEDES, LINKS})
Direction = Literal["out", "in", "both"]

Identity = tuple[str, str, str]
"""(kind, key, scope): the triple a keyed write supersedes on."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Bitemporal(_Frozen):
    """A row on both clocks: valid time (``valid_from``/``valid_to``, when it was true in the
    world, supplied by the caller or now) and system time (``recorded_at``, when ryvem
    recorded the row, and ``closure_recorded_at``, when it recorded the window's end; always
    ryvem's own clock). A row built without system time (tests, older callers) is taken to
    have been recorded as it became valid: ``recorded_at = valid_from`` and
    ``closure_recorded_at = valid_to``, which is also how older stores migrate.
    """

    if TYPE_CHECKING:  # declared by each subclass, in its own field order
        valid_from: int
        valid_to: int | None
        recorded_at: int
        closure_recorded_at: int | None

    @model_validator(mode="before")
    @classmethod
    def _system_time_defaults_to_valid_time(cls, values: Any) -> Any:
        if isinstance(values, dict):
            if values.get("recorded_at") is None and "valid_from" in values:
                values = {**values, "recorded_at": values["valid_from"]}
            if "closure_recorded_at" not in values and values.get("valid_to") is not None:
                values = {**values, "closure_recorded_at": values["valid_to"]}
        return values

    @property
    def latest_valid(self) -> int:
        """The latest valid time this row holds: its end when closed, else its start. Valid
        time is signed (before 1970 is negative), so nothing here is floored at 0."""
        return self.valid_from if self.valid_to is None else max(self.valid_from, self.valid_to)

    @property
    def latest_instant(self) -> int:
        """The latest instant on either clock this row holds: a write after it must be later."""
        known = self.recorded_at if self.closure_recorded_at is None else max(
            self.recorded_at, self.closure_recorded_at)
        return max(self.latest_valid, known)

    def valid_at(self, at: int) -> bool:
        """Valid at ``at`` as known now."""
        return self.valid_from <= at and (self.valid_to is None or at < self.valid_to)

    def visible(self, as_of: int | None, known_at: int | None) -> bool:
        """Whether a read at valid time ``as_of`` (None: now) as known at ``known_at`` (None:
        now) sees this row: the one rule of :mod:`ryvem.domain.visibility`, on this row."""
        def value(name: str) -> int | None:
            return getattr(self, name)  # type: ignore[no-any-return]  # an int field, or None

        ops = visibility.Operators[bool](
            le=lambda f, x: (v := value(f)) is not None and v <= x,  # type: ignore[operator]
            gt=lambda f, x: (v := value(f)) is not None and v > x,  # type: ignore[operator]
            null=lambda f: value(f) is None,
            both=lambda a, b: a and b,
            either=lambda a, b: a or b,
        )
        rule = visibility.window(as_of is not None, known_at is not None)
        return visibility.evaluate(rule, ops, {"as_of": as_of, "known_at": known_at})


M = TypeVar("M", bound=_Frozen)
_setattr = object.__setattr__


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """``cls.model_construct(**values)`` for trusted values naming *every* field, about 4x
    faster (no per-field default/alias loop): reads build one object per row and per edge,
    and a deep traversal builds hundreds of thousands (see docs/benchmarks.md)."""
    m = cls.__new__(cls)
    _setattr(m, "__dict__", values)
    _setattr(m, "__pydantic_fields_set__", set(values))
    _setattr(m, "__pydantic_extra__", None)
    _setattr(m, "__pydantic_private__", None)
    return m


class NodeVersion(_Bitemporal):
    """One row: a version of a node with its validity window [valid_from, valid_to) (valid
    time) and when ryvem recorded it and its window's end (system time)."""

    id: str
    entity: str
    kind: str
    scope: str
    key: str | None = None
    title: str
    body: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    valid_from: int
    valid_to: int | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    retired_reason: str | None = None
    recorded_at: int
    closure_recorded_at: int | None = None
    erased: Literal["redacted", "purged"] | None = None
    """Set when ``ryvem graph redact`` or ``purge`` rewrote this version's content."""

    @property
    def is_current(self) -> bool:
        return self.valid_to is None

    @property
    def identity(self) -> Identity | None:
        return None if self.key is None else (self.kind, self.key, self.scope)

    @property
    def ref(self) -> str:
        """How a person names it: the key when it has one, else the id."""
        return self.key if self.key is not None else self.id

    def as_known_at(self, known_at: int | None) -> NodeVersion:
        """This version as ryvem knew it at ``known_at``: a window closure (and with it the
        successor and the retire reason) recorded later is not known yet. The successor of a
        revived row is checked by the caller (its own ``recorded_at``)."""
        if (
            known_at is None
            or self.closure_recorded_at is None
            or self.closure_recorded_at <= known_at
        ):
            return self
        return self.model_copy(update={
            "valid_to": None, "superseded_by": None, "retired_reason": None,
            "closure_recorded_at": None,
        })

    def seen_at(self, as_of: int | None, known_at: int | None) -> NodeVersion | None:
        """This version in a history read at (``as_of``, ``known_at``): None when it was not
        recorded by ``known_at`` or had not begun by ``as_of``, else as known then."""
        if known_at is not None and self.recorded_at > known_at:
            return None
        if as_of is not None and self.valid_from > as_of:
            return None
        return self.as_known_at(known_at)

    def record(self) -> dict[str, Any]:
        """The JSON node record every face prints."""
        return {
            "id": self.id,
            "entity": self.entity,
            "kind": self.kind,
            "key": self.key,
            "scope": self.scope,
            "title": self.title,
            "body": self.body,
            "data": self.data,
            "valid_from": format_us(self.valid_from),
            "valid_to": None if self.valid_to is None else format_us(self.valid_to),
            "superseded_by": self.superseded_by,
            "supersedes": self.supersedes,
            "retired_reason": self.retired_reason,
            "recorded_at": format_us(self.recorded_at),
            "closure_recorded_at": _time(self.closure_recorded_at),
            "erased": self.erased,
        }


def _time(us: int | None) -> str | None:
    return None if us is None else format_us(us)


class Edge(_Bitemporal):
    """A typed, directed edge with its own validity window.

    ``src``/``dst`` are entity ids (version ids for ``supersedes``).
    """

    id: str
    rel: str
    src: str
    dst: str
    data: dict[str, Any] = Field(default_factory=dict)
    valid_from: int
    valid_to: int | None = None
    recorded_at: int
    closure_recorded_at: int | None = None

    def as_known_at(self, known_at: int | None) -> Edge:
        """This edge as ryvem knew it at ``known_at`` (a later-recorded closure unknown)."""
        if (
            known_at is None
            or self.closure_recorded_at is None
            or self.closure_recorded_at <= known_at
        ):
            return self
        return self.model_copy(update={"valid_to": None, "closure_recorded_at": None})

    def seen_at(self, as_of: int | None, known_at: int | None) -> Edge | None:
        """This edge in a history read at (``as_of``, ``known_at``) (as NodeVersion's)."""
        if known_at is not None and self.recorded_at > known_at:
            return None
        if as_of is not None and self.valid_from > as_of:
            return None
        return self.as_known_at(known_at)


class SearchHit(_Frozen):
    id: str
    kind: str
    scope: str
    title: str
    snippet: str
    score: float

    def record(self) -> dict[str, Any]:
        return self.model_dump()


class NodeHead(NamedTuple):
    """A node version without its body and data: what a traversal reports for each end.

    A walk can reach most of a large graph; carrying bodies and decoding every ``data``
    object would cost more than the walk itself (docs/benchmarks.md). Read a whole version
    with ``Service.get(head.id)``.
    """

    id: str
    entity: str
    kind: str
    scope: str
    key: str | None
    title: str
    valid_from: int
    valid_to: int | None

    @property
    def ref(self) -> str:
        """How a person names it: the key when it has one, else the id."""
        return self.key if self.key is not None else self.id

    @classmethod
    def of(cls, v: NodeVersion) -> NodeHead:
        return cls(v.id, v.entity, v.kind, v.scope, v.key, v.title, v.valid_from, v.valid_to)


class Step(NamedTuple):
    """One edge found by a traversal, seen from the node it was reached through."""

    src: NodeHead
    dst: NodeHead
    rel: str
    direction: Literal["out", "in"]
    hop: int
    edge_id: str

    def record(self) -> dict[str, Any]:
        return {
            "type": "edge",
            "hemisphere": "knowledge",
            "from": self.src.ref,
            "to": self.dst.ref,
            "rel": self.rel,
            "direction": self.direction,
            "hop": self.hop,
            # a key may be shared by two kinds (and a walk may cross scopes): the ids name
            # exactly the versions the step joins, and read back from any scope
            "from_id": self.src.id,
            "to_id": self.dst.id,
        }


NODE_FIELDS: tuple[str, ...] = tuple(NodeVersion.model_fields)
"""A node version's fields, in order: the one definition every adapter derives its columns,
properties and row mappers from."""
EDGE_FIELDS: tuple[str, ...] = tuple(Edge.model_fields)
"""An edge's fields, in order (as NODE_FIELDS)."""
HEAD_FIELDS: tuple[str, ...] = NodeHead._fields
"""The fields a walk reports for each end (a subset of NODE_FIELDS)."""
JSON_FIELDS = frozenset({"data"})
"""Fields holding a JSON object, which stores keep as JSON text."""


class AuditEntry(_Frozen):
    """One forgetting: who removed what kind of content, when, why and how much — never the
    removed text, nor anything derived from it (a hash would confirm a guess)."""

    id: str
    at: int
    who: str
    via: str  # "cli", "mcp" or "library"
    action: Literal["redact", "purge"]
    reason: str | None
    scope: str  # the scope searched ("*" for every scope), or the purged node's
    node: str | None  # the purged node (KIND/KEY or id); None for a redaction
    versions: int
    edges: int

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": format_us(self.at),
            "who": self.who,
            "via": self.via,
            "action": self.action,
            "reason": self.reason,
            "scope": self.scope,
            "node": self.node,
            "versions": self.versions,
            "edges": self.edges,
        }


class Stats(_Frozen):
    backend: str
    location: str
    current_rows: int
    superseded_rows: int
    retired_rows: int
    edges_current: int
    edges_closed: int
    kinds: dict[str, int]
    scopes: dict[str, int]
    rels: dict[str, int]
