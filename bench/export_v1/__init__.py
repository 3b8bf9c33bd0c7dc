"""Frozen copy of the format-1 export (before issue 17), kept so ``make bench`` can compare.

``ryvem graph export``: the whole graph as one self-contained, deterministic HTML page.

The page holds every node version (current and superseded) and every edge, read through the
service, plus its own CSS and JavaScript (``assets/``: a hand-written Barnes-Hut force
layout on a canvas, no third-party code). It makes no network request: a
Content-Security-Policy allows only the page's own script (by hash) and inline styles.

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
import os
import re
import tempfile
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ryvem.domain.model import LINKS, SUPERSEDES, Edge, NodeVersion
from ryvem.domain.scopes import parse_scope_filter
from ryvem.domain.timeutil import format_us
from ryvem.export.markdown import render_body

if TYPE_CHECKING:
    from ryvem.application.service import Service

__all__ = ["FORMAT_VERSION", "build_payload", "export_html", "json_for_script", "write_export"]

FORMAT_VERSION = 1
DATA_SUMMARY_CHARS = 200
_PLACEHOLDER = re.compile(r"\{\{(CSP|TITLE|CSS|DATA|JS)\}\}")
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
        out.append([name, text])
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


def _node_record(v: NodeVersion, links: dict[str, str]) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": v.id,
        "e": v.entity,
        "k": v.kind,
        "s": v.scope,
        "t": v.title,
        "f": format_us(v.valid_from),
    }
    if v.key is not None:
        rec["key"] = v.key
    html = render_body(v.body, links)
    if html:
        rec["h"] = html
    if v.data:
        rec["d"] = _summary(v.data)
    if v.valid_to is not None:
        rec["u"] = format_us(v.valid_to)
    if v.superseded_by is not None:
        rec["sb"] = v.superseded_by
    if v.supersedes is not None:
        rec["sp"] = v.supersedes
    if v.retired_reason is not None:
        rec["r"] = v.retired_reason
    return rec


def _edge_record(e: Edge) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": e.id,
        "rel": e.rel,
        "a": e.src,
        "b": e.dst,
        "f": format_us(e.valid_from),
    }
    if e.valid_to is not None:
        rec["u"] = format_us(e.valid_to)
    return rec


def build_payload(service: Service, *, scope: str | None = None) -> dict[str, Any]:
    """The page's data: every version and edge (in ``scope`` when given), ordered by id.

    ``scope`` is one scope, a shape such as ``repo:*``, or ``*``/None for all. An edge is kept
    when both of its ends are in the export.
    """
    filt = parse_scope_filter(scope)
    versions = sorted(
        (v for batch in service.iter_graph() for v, _targets in batch if filt.matches(v.scope)),
        key=lambda v: v.id,
    )
    version_ids = {v.id for v in versions}
    entities = {v.entity for v in versions}
    edges: list[Edge] = []
    links_from: dict[str, list[Edge]] = {}
    for batch in service.iter_edges():
        for e in batch:
            ends = version_ids if e.rel == SUPERSEDES else entities
            if e.src in ends and e.dst in ends:
                edges.append(e)
                if e.rel == LINKS:
                    links_from.setdefault(e.src, []).append(e)
    edges.sort(key=lambda e: e.id)
    nodes = [
        _node_record(v, _wikilink_map(v.entity, links_from.get(v.entity, ()), v.valid_from))
        for v in versions
    ]
    return {
        "version": FORMAT_VERSION,
        "scope": "*" if filt.is_all else (scope or "*"),
        "nodes": nodes,
        "edges": [_edge_record(e) for e in edges],
    }


def _asset(name: str) -> str:
    return (Path(__file__).parent / "assets" / name).read_text(encoding="utf-8")


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def export_html(service: Service, *, scope: str | None = None) -> str:
    """The whole page as one string (same graph → same string)."""
    payload = build_payload(service, scope=scope)
    css, js, page = _asset("graph.css"), _asset("graph.js"), _asset("page.html")
    script = "\n" + js + "\n"
    if any(bad in script.lower() for bad in ("</script", "<!--")) or "</style" in css.lower():
        raise RuntimeError("an export asset would close its own element")  # a packaging bug
    title = "ryvem graph" if payload["scope"] == "*" else f"ryvem graph · {payload['scope']}"
    parts = {
        "CSP": escape(_csp(script), quote=False),
        "TITLE": escape(title),
        "CSS": css,
        "DATA": json_for_script(payload),
        "JS": script,
    }
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], page)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_export(service: Service, out: Path, *, scope: str | None = None) -> Path:
    """Write the page to ``out`` atomically (a temporary file, then a rename); return the path."""
    out = Path(out).expanduser()
    html = export_html(service, scope=scope)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(html)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a page is for reading
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out.resolve()
