"""``ryvem graph export``: write the whole graph as one self-contained HTML page."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from ryvem.backends import export_target
from ryvem.cli.common import (
    JsonOpt,
    KnownAtOpt,
    echo_json,
    errors_to_exit,
    graph,
    state,
)
from ryvem.cli.text import say
from ryvem.domain.scopes import parse_scope_filter
from ryvem.export import write_export

_Out = Annotated[str | None, typer.Option(
    "--out", show_default=False,
    help="Where to write the page: a new or regular file, replaced atomically; a "
    "symlink, folder or device is refused (default: graph.html in the data "
    "directory, $RYVEM_DATA_DIR or ~/.ryvem).",
)]
_Open = Annotated[bool, typer.Option("--open", help="Open the page in the default web browser.")]
_Scope = Annotated[str | None, typer.Option(
    "--scope", show_default=False,
    help="Export only this scope (global, repo:<uuid>, board:<slug>) or shape "
    "(repo:*, board:*). Default: every scope.",
)]
_HistoryBodies = Annotated[bool, typer.Option(
    "--with-history-bodies",
    help="Also embed the bodies of superseded and retired versions (the page always "
    "holds every version's title and validity window; by default only current "
    "versions carry their body).",
)]
_AsOf = Annotated[str | None, typer.Option(
    "--as-of", metavar="T", show_default=False,
    help="Only the history up to T (valid time): the versions and edges begun by then.",
)]


@graph.command("export")
def export(
    ctx: typer.Context,
    out: _Out = None,
    open_it: _Open = False,
    scope: _Scope = None,
    with_history_bodies: _HistoryBodies = False,
    as_of: _AsOf = None,
    known_at: KnownAtOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write every node version and edge to one self-contained HTML page; print its path."""
    with errors_to_exit():
        if scope is not None:
            parse_scope_filter(scope)  # a bad scope fails before the store is opened
        st = state(ctx).reading()
        target = export_target(st.settings(), out)
        # Every scope is read, so the working directory's default scope does not matter.
        path = write_export(
            st.session().everywhere(), target, scope=scope,
            with_history_bodies=with_history_bodies, as_of=as_of, known_at=known_at,
        )
        if as_json:
            echo_json({"type": "export", "path": str(path), "scope": scope or "*"})
        else:
            say(path)
        if open_it:
            _open_in_browser(path)


def _open_in_browser(path: Path) -> None:
    opened = False
    try:
        opened = webbrowser.open(path.as_uri())
    except webbrowser.Error:
        opened = False
    if not opened:
        say(f"no web browser available; open {path} yourself", err=True)
