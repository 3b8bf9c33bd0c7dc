"""Node verbs: put, get, history, retire, link, unlink, search, stats.

Each verb validates its input, calls the service once and prints either a short human
answer or (``--json``) the core's records: ``NodeVersion.record()``, ``SearchHit.record()``,
``EdgeView.record()``. Only ``put`` may mint the repository's identity (ryvem.json), and only
after its input has been validated, so a failing command writes nothing.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ryvem.application.search import MODES, PastSemanticSearch
from ryvem.application.service import EdgeView
from ryvem.cli.common import (
    AsOfOpt,
    JsonOpt,
    KnownAtOpt,
    ScopeOpt,
    ScopeShapeOpt,
    echo_json,
    errors_to_exit,
    fail,
    graph,
    say_minted,
    state,
)
from ryvem.cli.text import safe, say
from ryvem.domain.model import NodeVersion
from ryvem.domain.scopes import GLOBAL
from ryvem.domain.timeutil import format_us
from ryvem.domain.validation import MAX_BODY_BYTES

__all__ = ["get", "history", "link", "put", "retire", "search", "stats", "unlink"]

# A line break or tab and the blanks around it: one space in a one-line table cell.
_BREAKS = re.compile(r"[ \t]*[\r\n\t][ \t\r\n]*")

RefArg = Annotated[
    str,
    typer.Argument(
        metavar="REF",
        help="A node id, KIND/KEY (split at the first '/'), or a bare KEY that names exactly "
        "one current node in the scope.",
        show_default=False,
    ),
]
ValidFromOpt = Annotated[
    str | None,
    typer.Option(
        "--valid-from",
        metavar="T",
        help="When this became true (valid time), if not now: an ISO 8601 date or date-time, "
        "not in the future nor before the node's latest valid time. ryvem records it now.",
        show_default=False,
    ),
]
ValidToOpt = Annotated[
    str | None,
    typer.Option(
        "--valid-to",
        metavar="T",
        help="When this stopped being true (valid time), if not now: an ISO 8601 date or "
        "date-time, not in the future nor before the version's valid-from.",
        show_default=False,
    ),
]
EdgeValidFromOpt = Annotated[
    str | None,
    typer.Option(
        "--valid-from",
        metavar="T",
        help="When this edge became true (valid time), if not now: an ISO 8601 date or "
        "date-time, not in the future nor before the window of the same (from, rel, to) it "
        "follows. ryvem records it now.",
        show_default=False,
    ),
]
EdgeValidToOpt = Annotated[
    str | None,
    typer.Option(
        "--valid-to",
        metavar="T",
        help="When this edge stopped being true (valid time), if not now: an ISO 8601 date "
        "or date-time, not in the future nor before the edge's valid-from.",
        show_default=False,
    ),
]
DataOpt = Annotated[
    str | None,
    typer.Option(
        "--data",
        metavar="JSON_OBJECT",
        help='Structured data as a JSON object, e.g. \'{"status": "open"}\'.',
        show_default=False,
    ),
]
FromRefArg = Annotated[
    str, typer.Argument(metavar="FROM_REF", help="The edge's source node (a REF).")
]
ToRefArg = Annotated[str, typer.Argument(metavar="TO_REF", help="The edge's target node (a REF).")]
RelOpt = Annotated[
    str,
    typer.Option(
        "--rel",
        help="The edge type: a lowercase slug such as about, depends-on or implements.",
        show_default=False,
    ),
]


def _console() -> Console:
    # A terminal gets its own width; piped output keeps whole ids and times on one line.
    width = None if sys.stdout.isatty() else 200
    return Console(width=width, soft_wrap=False, highlight=False)


def _when(us: int | None) -> str:
    return "now" if us is None else format_us(us)


def _name(v: NodeVersion) -> str:
    return f"{v.kind}/{v.key}" if v.key is not None else f"{v.kind} {v.id}"


def _state_of(v: NodeVersion) -> str:
    erased = "" if v.erased is None else f" · {v.erased}"  # by `ryvem graph redact`/`purge`
    if v.valid_to is None:
        return "current" + erased
    if v.superseded_by is not None and v.retired_reason is None:
        return "superseded" + erased
    reason = f": {v.retired_reason}" if v.retired_reason else ""
    revived = " (revived later)" if v.superseded_by is not None else ""
    return f"retired{reason}{revived}{erased}"


def _read_body_file(path: str) -> str:
    """The text of ``--body-file`` (``-`` is stdin) without a leading byte-order mark; empty,
    not UTF-8 or unreadable → exit 2."""
    shown = "stdin" if path == "-" else path
    if not path.strip():  # Path("") is the working directory: "Is a directory"
        raise fail("--body-file is empty: give a file's path, or - for stdin", 2)
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(MAX_BODY_BYTES + 1)
        else:
            with Path(path).expanduser().open("rb") as f:
                raw = f.read(MAX_BODY_BYTES + 1)
    except OSError as e:
        raise fail(f"cannot read --body-file {shown}: {e.strerror or e}", 2) from None
    if len(raw) > MAX_BODY_BYTES:  # /dev/zero, `yes |`: never read past the limit
        raise fail(
            f"--body-file {shown} holds more than {MAX_BODY_BYTES} bytes, the body limit "
            "(8 MiB); nothing was written", 2,
        )
    try:
        # A byte-order mark is how some editors start UTF-8, not text (the import drops it too)
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise fail(
            f"--body-file {shown} is not UTF-8 text (byte {e.start}); nothing was written", 2
        ) from None


@graph.command("put")
def put(
    ctx: typer.Context,
    kind: Annotated[
        str,
        typer.Argument(
            help="The node's kind, a lowercase slug: decision, task, page, business-rule, …",
            show_default=False,
        ),
    ],
    title: Annotated[
        str, typer.Option("--title", help="A one-line title (required).", show_default=False)
    ],
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="A stable key: writing the same (kind, key, scope) again supersedes the "
            "current version. Without a key every put adds a new node.",
            show_default=False,
        ),
    ] = None,
    scope: ScopeOpt = None,
    body: Annotated[
        str | None,
        typer.Option(
            "--body", help="The body text (markdown; \\[\\[wikilinks]] become links).",
            show_default=False,
        ),
    ] = None,
    body_file: Annotated[
        str | None,
        typer.Option(
            "--body-file",
            metavar="PATH|-",
            help="Read the body from a UTF-8 file, or from stdin with '-'.",
            show_default=False,
        ),
    ] = None,
    data: DataOpt = None,
    valid_from: ValidFromOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a node: insert, or supersede the current version of the same key. Prints the id."""
    st = state(ctx)
    with errors_to_exit():
        if body is not None and body_file is not None:
            raise fail("give --body or --body-file, not both", 2)
        if body_file is not None:
            body = _read_body_file(body_file)
        written = st.session().write(
            kind, title, key=key, scope=scope, body=body, data=data, valid_from=valid_from
        )
        say_minted(written.minted)
        v = written.result.version
        if as_json:
            echo_json(v.record())
        else:
            typer.echo(v.id)


@graph.command("get")
def get(
    ctx: typer.Context,
    ref: RefArg,
    as_of: AsOfOpt = None,
    known_at: KnownAtOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one node: the current version, the one valid at --as-of, as known at --known-at."""
    st = state(ctx).reading()
    with errors_to_exit():
        v = st.service(scope=scope).get(ref, as_of=as_of, known_at=known_at)
        if as_json:
            echo_json(v.record())
            return
        lines = [
            f"{safe(_name(v))} · {safe(v.title)}",
            f"  id     {v.id}",
            f"  scope  {v.scope}",
            f"  valid  {_when(v.valid_from)} → {_when(v.valid_to)}  ({safe(_state_of(v))})",
            f"  recorded {format_us(v.recorded_at)}"
            + ("" if v.closure_recorded_at is None
               else f", its end recorded {format_us(v.closure_recorded_at)}"),
        ]
        if v.supersedes is not None:
            lines.append(f"  supersedes {v.supersedes}")
        if v.superseded_by is not None:
            lines.append(f"  superseded by {v.superseded_by}")
        if v.data:
            lines.append(f"  data   {safe(json.dumps(v.data, ensure_ascii=False))}")
        if v.body:
            lines += ["", safe(v.body.rstrip("\n"), keep_lines=True)]
        typer.echo("\n".join(lines))


@graph.command("history")
def history(
    ctx: typer.Context,
    ref: RefArg,
    as_of: AsOfOpt = None,
    known_at: KnownAtOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show every version of a node, oldest first (begun by --as-of, recorded by --known-at)."""
    st = state(ctx).reading()
    with errors_to_exit():
        chain = st.service(scope=scope).history(ref, as_of=as_of, known_at=known_at)
        if as_json:
            echo_json([v.record() for v in chain])
            return
        table = Table(title=Text(f"history of {safe(_name(chain[-1]))}"), title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("id", overflow="fold")
        table.add_column("valid from", overflow="fold")
        table.add_column("valid to", overflow="fold")
        table.add_column("recorded", overflow="fold")
        table.add_column("title", min_width=16)
        table.add_column("state", min_width=10)
        for i, v in enumerate(chain, 1):
            table.add_row(
                str(i), v.id, format_us(v.valid_from), _when(v.valid_to),
                format_us(v.recorded_at), Text(safe(v.title)), Text(safe(_state_of(v))),
            )
        _console().print(table)


@graph.command("retire")
def retire(
    ctx: typer.Context,
    ref: RefArg,
    reason: Annotated[
        str | None,
        typer.Option("--reason", help="Why the node no longer holds.", show_default=False),
    ] = None,
    scope: ScopeOpt = None,
    valid_to: ValidToOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Close a node's current version; writing its key again later revives it."""
    st = state(ctx)
    with errors_to_exit():
        v = st.session().retire(ref, reason=reason, scope=scope, valid_to=valid_to)
        if as_json:
            echo_json(v.record())
        else:
            say(f"retired {_name(v)} ({v.id}) at {_when(v.valid_to)}")


def _edge_line(verb: str, e: EdgeView, a: str, b: str) -> str:
    return f"{verb} {a} -[{e.edge.rel}]-> {b} (edge {e.edge.id})"


@graph.command("link")
def link(
    ctx: typer.Context,
    from_ref: FromRefArg,
    to_ref: ToRefArg,
    rel: RelOpt,
    data: DataOpt = None,
    scope: ScopeOpt = None,
    valid_from: EdgeValidFromOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Open a typed edge between two current nodes (again with new --data supersedes it)."""
    st = state(ctx)
    with errors_to_exit():
        e = st.session().link(from_ref, to_ref, rel, data=data, scope=scope, valid_from=valid_from)
        if as_json:
            echo_json(e.record())
        else:
            say(_edge_line("linked", e, from_ref, to_ref))


@graph.command("unlink")
def unlink(
    ctx: typer.Context,
    from_ref: FromRefArg,
    to_ref: ToRefArg,
    rel: RelOpt,
    scope: ScopeOpt = None,
    valid_to: EdgeValidToOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Close the current edge's window (its history is kept)."""
    st = state(ctx)
    with errors_to_exit():
        e = st.session().unlink(from_ref, to_ref, rel, scope=scope, valid_to=valid_to)
        if as_json:
            echo_json(e.record())
        else:
            say(_edge_line("unlinked", e, from_ref, to_ref))


@graph.command("search")
def search(
    ctx: typer.Context,
    text: Annotated[
        str | None,
        typer.Argument(
            help="Words or a question (OR-ed and ranked, stemmed; \"quoted phrases\"; word* for "
            "a prefix). Without text: the most recent nodes.",
            show_default=False,
        ),
    ] = None,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", help="Only nodes of this kind (repeatable).", show_default=False),
    ] = None,
    scope: ScopeShapeOpt = None,
    all_scopes: Annotated[
        bool, typer.Option("--all-scopes", help="Search every scope.")
    ] = False,
    limit: Annotated[
        int,
        typer.Option("--limit", metavar="N", min=1, max=1000, help="At most N hits (1-1000)."),
    ] = 20,
    as_of: AsOfOpt = None,
    known_at: KnownAtOpt = None,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            metavar="MODE",
            help="lexical (words, stemmed), semantic (meaning, with the local model) or hybrid "
            "(both, fused by rank). Default: hybrid when the model is installed "
            "(pip install 'ryvem\\[semantic]'), else lexical. --as-of/--known-at/--history "
            "search lexically.",
            show_default=False,
        ),
    ] = None,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Every version, whenever it held: one hit a node, its best-matching version, "
            "with its status (current, superseded, retired) and window. Not with "
            "--as-of/--known-at.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Find nodes by text, best first (current rows, or those valid at --as-of, as known at
    --known-at, or every version with --history)."""
    st = state(ctx).reading()
    with errors_to_exit():
        if mode is not None and mode.strip().lower() not in MODES:
            raise fail(f"unknown search mode {mode!r}: use {', '.join(MODES)}", 2)
        try:
            result = st.session().search(
                text, mode=mode.strip().lower() if mode else None, kinds=kind or (),
                scope=scope, all_scopes=all_scopes, limit=limit, as_of=as_of,
                known_at=known_at, history=history,
            )
        except PastSemanticSearch as e:
            raise fail(f"{e.message}: drop --as-of/--known-at/--history, or use --mode "
                       "lexical or hybrid", e.exit_code) from None
        for note in result.notes:
            say(f"note: {note}", err=True)
        hits = result.hits
        if as_json:
            echo_json([h.record() for h in hits])
            return
        if not hits:
            typer.echo("no matches", err=True)
            return
        table = Table(caption=f"mode {result.mode}", caption_justify="left")
        table.add_column("score", justify="right")
        table.add_column("kind")
        table.add_column("title", min_width=16)
        table.add_column("id", overflow="fold")
        table.add_column("snippet", min_width=20, max_width=80)
        for r in hits:
            h = r.hit
            score = f"{r.score:.4f}" if result.mode == "hybrid" else f"{r.score:.2f}"
            # A snippet is a passage in one cell: its line breaks and tabs read as spaces.
            snippet = _BREAKS.sub(" ", h.snippet)
            title = safe(h.title)
            if r.held is not None and r.held["status"] not in (None, "current"):
                title += f" ({r.held['status']} {str(r.held['valid_to'])[:10]})"
            table.add_row(score, h.kind, Text(title), h.id, Text(safe(snippet)))
        _console().print(table)


@graph.command("stats")
def stats(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Count rows and edges, per kind, scope and rel; show the backend and where it lives."""
    st = state(ctx).reading()
    with errors_to_exit():
        s = st.service(scope=GLOBAL).stats()
        if as_json:
            echo_json(s.model_dump())
            return
        say(f"backend  {s.backend} ({s.location})")
        typer.echo(
            f"rows     {s.current_rows} current · {s.superseded_rows} superseded · "
            f"{s.retired_rows} retired"
        )
        typer.echo(f"edges    {s.edges_current} current · {s.edges_closed} closed")
        table = Table(title="current rows and edges", title_justify="left")
        table.add_column("per")
        table.add_column("name")
        table.add_column("count", justify="right")
        for label, counts in (("kind", s.kinds), ("scope", s.scopes), ("rel", s.rels)):
            for name, n in counts.items():
                table.add_row(label, Text(safe(name)), str(n))
        if table.row_count:
            _console().print(table)
