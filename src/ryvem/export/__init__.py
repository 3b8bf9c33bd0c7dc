"""``ryvem graph export``: the whole graph as one self-contained, deterministic HTML page.

The page holds every node version (current and superseded) with its validity window and
every edge, read through the service, in a compact columnar encoding (format 2: ids as
indexes, strings interned, times as deltas), plus its own CSS and JavaScript (``assets/``:
WebGL drawing with a 2D-canvas fallback, a Barnes-Hut force layout in a Web Worker made from
an inline blob, a time slider; no third-party code). Bodies (current versions only, unless
``with_history_bodies``) and data summaries sit in blocks of :data:`BODY_CHUNK` that the page
parses on demand. It makes no network request: a Content-Security-Policy allows only the
page's own script (by hash), inline styles and ``blob:`` workers.

Determinism: rows are ordered by id, JSON keys are sorted, nothing depends on the clock or
the machine, and the layout is seeded in the page — the same graph always gives the same
bytes. Untrusted text never reaches the page as markup: bodies are rendered here with raw
HTML disabled (:mod:`ryvem.export.markdown`), and the embedded JSON escapes ``<``, ``>``,
``&``, U+2028 and U+2029 so it cannot close its ``<script>`` element.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from html import escape
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ryvem.domain.model import LINKS, SUPERSEDES, Edge, NodeVersion
from ryvem.domain.scopes import parse_scope_filter
from ryvem.domain.spellings import html_forms, reads_as
from ryvem.domain.timeutil import format_us, parse_time
from ryvem.errors import RyvemError
from ryvem.export.markdown import render_body, shown
from ryvem.safefile import check_target, write_atomic

if TYPE_CHECKING:
    from ryvem.application.service import Service

__all__ = [
    "FORMAT_VERSION",
    "build_payload",
    "export_html",
    "json_for_script",
    "page_holds_text",
    "still_holds",
    "write_export",
    "written_forms",
]

FORMAT_VERSION = 2
BODY_CHUNK = 1000  # bodies per <script> block: the page parses only the blocks it needs
DATA_SUMMARY_CHARS = 200
_PLACEHOLDER = re.compile(r"\{\{(CSP|TITLE|CSS|DATA|BODIES|JS)\}\}")
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


def json_for_script(value: Any) -> str:
    """Canonical JSON that is safe between ``<script type="application/json">`` tags."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def still_holds(text: str | None, version_ids: Iterable[str]) -> Callable[[bytes], bool]:
    """The test of a page exported before a forgetting: does it still hold the redacted
    ``text`` (in any form, :func:`page_holds_text`) or — a purge, ``text`` None — draw one
    of the purged versions (a page names each by id)?"""
    if text is not None:
        return lambda data: page_holds_text(data, text)
    ids = [i.encode() for i in version_ids]
    return lambda data: any(i in data for i in ids)


def written_forms(text: str) -> list[bytes]:
    """The byte forms ``text`` takes in a page: its HTML forms
    (:func:`ryvem.domain.spellings.html_forms`), each also inside the page's JSON
    (:func:`json_for_script`: ``&`` as ``\\u0026`` …). What a redaction looks for in pages
    exported before it."""
    shown = html_forms(text)
    inside = {json_for_script(x)[1:-1] for x in shown}
    return sorted(f.encode("utf-8") for f in shown | inside)


_BODY_BLOCK = re.compile(
    rb'<script type="application/json" id="ryvem-b[0-9]+">(.*?)</script>', re.DOTALL)


def _rendered_bodies(value: Any) -> Iterator[str]:
    """The rendered bodies of one body block (each item a body's HTML, or [HTML, data
    summary]): the only strings the page hands the browser as markup (``innerHTML``), so the
    only ones it decodes. Titles, keys and data summaries are set as text, shown as written."""
    for item in value if isinstance(value, list) else ():
        html = item[0] if isinstance(item, list) and item else item
        if isinstance(html, str):
            yield html


def page_holds_text(data: bytes, text: str) -> bool:
    """Whether a page ryvem exported holds ``text`` in a form anyone reading it gets back:
    as the page writes it (:func:`written_forms`), or encoded in a rendered body the browser
    decodes (an entity, a percent-encoded link target it follows:
    :func:`ryvem.domain.spellings.reads_as`). What a redaction looks for in pages exported
    before it. A title spelled ``tok&#45;secret`` is shown as written, so it does not hold
    ``tok-secret`` (and a redaction, which matches titles literally, leaves it)."""
    if any(form in data for form in written_forms(text)):
        return True
    for block in _BODY_BLOCK.finditer(data):
        try:
            value = json.loads(block.group(1))
        except ValueError:
            continue
        if any(reads_as(html, text) for html in _rendered_bodies(value)):
            return True
    return False


def _summary(data: dict[str, Any]) -> list[list[str]]:
    """Top-level data fields as (name, compact JSON) pairs, long values shortened."""
    out: list[list[str]] = []
    for name in sorted(data):
        value = data[name]
        text = value if isinstance(value, str) else json.dumps(
            value, ensure_ascii=False, sort_keys=True, separators=(", ", ": ")
        )
        if len(text) > DATA_SUMMARY_CHARS:
            text = text[: DATA_SUMMARY_CHARS - 1] + "…"
        out.append([shown(name), shown(text)])
    return out


def _wikilink_map(entity: str, edges: Iterable[Edge], valid_from: int) -> dict[str, str]:
    """Normalised target → entity for the ``links`` edges leaving ``entity``.

    Prefers the edge valid when the version was written, else the newest one.
    """
    chosen: dict[str, tuple[bool, int, str]] = {}
    for e in edges:
        target = e.data.get("target")
        if not isinstance(target, str):
            continue
        rank = (e.valid_at(valid_from) or e.valid_to is None, e.valid_from, e.dst)
        if target not in chosen or rank > chosen[target]:
            chosen[target] = rank
    return {t: r[2] for t, r in chosen.items()}


def _interned(values: Iterable[str]) -> tuple[list[str], dict[str, int]]:
    table = sorted(set(values))
    return table, {v: i for i, v in enumerate(table)}


def _deltas(values: list[int], base: int) -> list[int]:
    """``values`` as differences from the previous one (the first from ``base``)."""
    out: list[int] = []
    prev = base
    for v in values:
        out.append(v - prev)
        prev = v
    return out


def _ends(starts: list[int], ends: list[int | None]) -> list[int]:
    """0 for an open window, else its length plus one (a window may be empty)."""
    return [0 if u is None else u - f + 1 for f, u in zip(starts, ends, strict=True)]


def build_payload(
    service: Service,
    *,
    scope: str | None = None,
    with_history_bodies: bool = False,
    as_of: object = None,
    known_at: object = None,
) -> dict[str, Any]:
    """The page's data: every version and edge (in ``scope`` when given), ordered by id.

    ``as_of`` keeps the history up to that valid time (rows begun by then, a window ending
    later left open: the page's "now" is ``as_of``); ``known_at`` the
    rows ryvem had recorded by then, with their windows as known then (a later-recorded end
    is left open): the page as it would have been exported then.

    ``scope`` is one scope, a shape such as ``repo:*``, or ``*``/None for all. An edge is kept
    when both of its ends are in the export. The encoding is columnar (format 2): a version
    is its index in ``nodes.id``, kinds, scopes and relations are indexes into ``strings``,
    times are microseconds as differences from the previous row (the first from ``t0``), and
    a window's end is 0 when open, else its length + 1. ``bodies`` has one entry per version:
    its rendered HTML ("" when empty; current versions only unless ``with_history_bodies``),
    or ``[html, data summary]`` when it has data. They go in the page's lazily read blocks.
    """
    filt = parse_scope_filter(scope)
    at, k = _time(as_of), _time(known_at)
    versions = sorted(
        (_until(seen, at) for batch in service.iter_graph() for v, _targets in batch
         if filt.matches(v.scope) and (seen := v.seen_at(at, k)) is not None),
        key=lambda v: v.id,
    )
    index = {v.id: i for i, v in enumerate(versions)}
    entity_of: dict[str, int] = {}  # entity -> index of its first version (by id)
    for i, v in enumerate(versions):
        entity_of.setdefault(v.entity, i)
    edges, links_from = _edges_between(service, at, k, index, entity_of)
    strings, sid = _interned(
        [v.kind for v in versions] + [v.scope for v in versions] + [e.rel for e in edges]
    )
    times = [v.valid_from for v in versions] + [e.valid_from for e in edges]
    t0 = min(times) if times else 0
    ef = [e.valid_from for e in edges]
    end_of = [index if e.rel == SUPERSEDES else entity_of for e in edges]
    return {
        "version": FORMAT_VERSION,
        "scope": "*" if filt.is_all else (scope or "*"),
        "strings": strings,
        "t0": t0,
        "historyBodies": with_history_bodies,
        # The instants a snapshot export shows (the page says so); None: the live graph.
        "asOf": at,
        "knownAt": k,
        "nodes": _node_columns(versions, index, entity_of, sid, t0),
        "edges": {
            "rel": [sid[e.rel] for e in edges],
            "a": [ends[e.src] for e, ends in zip(edges, end_of, strict=True)],
            "b": [ends[e.dst] for e, ends in zip(edges, end_of, strict=True)],
            "f": _deltas(ef, t0),
            "u": _ends(ef, [e.valid_to for e in edges]),
            "d": [[j, _summary(e.data)] for j, e in enumerate(edges)
                  if e.data and e.rel not in (SUPERSEDES, LINKS)],
        },
        "bodies": _bodies(versions, links_from, with_history_bodies),
    }


def _edges_between(
    service: Service, at: int | None, k: int | None, index: dict[str, int],
    entity_of: dict[str, int],
) -> tuple[list[Edge], dict[str, list[Edge]]]:
    """The edges seen at (``at``, ``k``) whose both ends are exported (a ``supersedes`` edge
    joins versions, any other joins nodes), by id; and the ``links`` edges by source."""
    edges: list[Edge] = []
    links_from: dict[str, list[Edge]] = {}
    for batch in service.iter_edges():
        for stored in batch:
            if (seen_edge := stored.seen_at(at, k)) is None:
                continue
            e = _until(seen_edge, at)
            ends = index if e.rel == SUPERSEDES else entity_of
            if e.src in ends and e.dst in ends:
                edges.append(e)
                if e.rel == LINKS:
                    links_from.setdefault(e.src, []).append(e)
    edges.sort(key=lambda e: e.id)
    return edges, links_from


def _bodies(
    versions: list[NodeVersion], links_from: dict[str, list[Edge]], with_history: bool
) -> list[str | list[Any]]:
    """Each version's rendered body ("" for a past one unless ``with_history``), with a data
    summary beside it when it has data."""
    bodies: list[str | list[Any]] = []
    for v in versions:
        html = (
            render_body(v.body, _wikilink_map(v.entity, links_from.get(v.entity, ()), v.valid_from))
            if with_history or v.valid_to is None
            else ""
        )
        bodies.append([html, _summary(v.data)] if v.data else html)
    return bodies


def _node_columns(
    versions: list[NodeVersion], index: dict[str, int], entity_of: dict[str, int],
    sid: dict[str, int], t0: int,
) -> dict[str, Any]:
    nf = [v.valid_from for v in versions]

    def ref(vid: str | None) -> int:
        return -1 if vid is None else index.get(vid, -1)

    return {
        "id": [v.id for v in versions],
        "ent": [entity_of[v.entity] for v in versions],
        "k": [sid[v.kind] for v in versions],
        "s": [sid[v.scope] for v in versions],
        "t": [v.title for v in versions],
        "key": [v.key for v in versions],
        "f": _deltas(nf, t0),
        "u": _ends(nf, [v.valid_to for v in versions]),
        "sb": [ref(v.superseded_by) for v in versions],
        "sp": [ref(v.supersedes) for v in versions],
        # Sparse columns: [index, value] pairs.
        "names": [[i, v.entity] for i, v in enumerate(versions)
                  if entity_of[v.entity] == i and v.entity != v.id],
        "r": [[i, shown(v.retired_reason)] for i, v in enumerate(versions)
              if v.retired_reason is not None],
        # What redact or purge rewrote, and when ryvem recorded a version if not at the start
        # of its window (a backdated write, an import of git history).
        "x": [[i, v.erased] for i, v in enumerate(versions) if v.erased is not None],
        "rec": [[i, v.recorded_at - v.valid_from] for i, v in enumerate(versions)
                if v.recorded_at != v.valid_from],
    }


_Row = TypeVar("_Row", NodeVersion, Edge)


def _until(row: _Row, as_of: int | None) -> _Row:
    """``row`` as the history up to ``as_of`` holds it: a window that ends after ``as_of``
    is still open then (with no successor or retire reason yet), so the page's "now" is
    ``as_of`` and nothing that happened later is in it."""
    if as_of is None or row.valid_to is None or row.valid_to <= as_of:
        return row
    if isinstance(row, NodeVersion):
        return row.model_copy(update={
            "valid_to": None, "superseded_by": None, "retired_reason": None,
            "closure_recorded_at": None,
        })
    return row.model_copy(update={"valid_to": None, "closure_recorded_at": None})


def _time(value: object) -> int | None:
    return None if value is None else parse_time(value)  # type: ignore[arg-type]


def _asset(name: str) -> str:
    return resources.files("ryvem.export").joinpath("assets", name).read_text(encoding="utf-8")


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; worker-src blob:; base-uri 'none'; form-action 'none'"
    )


def _body_blocks(bodies: list[Any]) -> str:
    return "".join(
        f'<script type="application/json" id="ryvem-b{i // BODY_CHUNK}">'
        f"{json_for_script(bodies[i : i + BODY_CHUNK])}</script>\n"
        for i in range(0, len(bodies), BODY_CHUNK)
    )


def export_html(
    service: Service,
    *,
    scope: str | None = None,
    with_history_bodies: bool = False,
    as_of: object = None,
    known_at: object = None,
) -> str:
    """The whole page as one string (same graph → same string); ``as_of``/``known_at`` as
    :func:`build_payload`."""
    payload = build_payload(
        service, scope=scope, with_history_bodies=with_history_bodies, as_of=as_of,
        known_at=known_at,
    )
    bodies: list[Any] = payload.pop("bodies")
    css, js, page = _asset("graph.css"), _asset("graph.js"), _asset("page.html")
    js = js.replace("  // @include physics.js\n", _asset("physics.js"), 1)
    script = "\n" + js + "\n"
    if any(bad in script.lower() for bad in ("</script", "<!--")) or "</style" in css.lower():
        raise RuntimeError("an export asset would close its own element")  # a packaging bug
    title = "ryvem graph" if payload["scope"] == "*" else f"ryvem graph · {payload['scope']}"
    if payload["asOf"] is not None:
        title += f" · as of {format_us(payload['asOf'])}"
    if payload["knownAt"] is not None:
        title += f" · as known at {format_us(payload['knownAt'])}"
    parts = {
        "CSP": escape(_csp(script), quote=False),
        "TITLE": escape(title),
        "CSS": css,
        "DATA": json_for_script(payload),
        "BODIES": _body_blocks(bodies),
        "JS": script,
    }
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], page)


def write_export(
    service: Service,
    out: Path,
    *,
    scope: str | None = None,
    with_history_bodies: bool = False,
    as_of: object = None,
    known_at: object = None,
) -> Path:
    """Write the page to ``out`` atomically (:func:`ryvem.safefile.write_atomic`); its path.

    ``out`` must be a missing file or a regular file: a symlink, folder, device or special
    file is refused before the graph is read. A missing parent folder is created 0700 (the
    default ``out`` is in the data dir, whose store is 0600); a new page is 0600.
    """
    out = Path(out).expanduser().absolute()
    check_target(out)
    html = export_html(
        service, scope=scope, with_history_bodies=with_history_bodies, as_of=as_of,
        known_at=known_at,
    )
    try:
        out.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # like the data dir
    except OSError as e:
        raise RyvemError(f"cannot write {out}: {e.strerror or e}") from None
    return write_atomic(out, html)
