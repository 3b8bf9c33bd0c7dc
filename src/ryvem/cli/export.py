"""``ryvem graph export``: write the whole graph as one self-contained HTML page."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from ryvem.cli.common import errors_to_exit, graph, state
from ryvem.domain.scopes import parse_scope_filter
from ryvem.export import write_export
from ryvem.service import Service


@graph.command("export")
def export(
    ctx: typer.Context,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where to write the page (default: graph.html in the data directory, "
            "$RYVEM_DATA_DIR or ~/.ryvem).",
            show_default=False,
        ),
    ] = None,
    open_it: Annotated[
        bool, typer.Option("--open", help="Open the page in the default web browser.")
    ] = False,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="Export only this scope (global, repo:<uuid>, board:<slug>) or shape "
            "(repo:*, board:*). Default: every scope.",
            show_default=False,
        ),
    ] = None,
    with_history_bodies: Annotated[
        bool,
        typer.Option(
            "--with-history-bodies",
            help="Also embed the bodies of superseded and retired versions (the page always "
            "holds every version's title and validity window; by default only current "
            "versions carry their body).",
        ),
    ] = False,
) -> None:
    """Write every node version and edge to one self-contained HTML page; print its path."""
    with errors_to_exit():
        if scope is not None:
            parse_scope_filter(scope)  # a bad scope fails before the store is opened
        st = state(ctx)
        target = out if out is not None else st.settings().data_dir / "graph.html"
        # Every scope is read, so the working directory's default scope does not matter.
        path = write_export(
            Service(st.repo()), target, scope=scope, with_history_bodies=with_history_bodies
        )
        typer.echo(str(path))
        if open_it:
            opened = False
            try:
                opened = webbrowser.open(path.as_uri())
            except webbrowser.Error:
                opened = False
            if not opened:
                typer.echo(f"no web browser available; open {path} yourself", err=True)
