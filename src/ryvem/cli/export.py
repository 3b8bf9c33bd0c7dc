"""``ryvem graph export``: write the whole graph as one self-contained HTML page."""

from __future__ import annotations

import os
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from ryvem.cli.common import (
    JsonOpt,
    KnownAtOpt,
    echo_json,
    errors_to_exit,
    fail,
    graph,
    state,
)
from ryvem.cli.text import say
from ryvem.domain.scopes import parse_scope_filter
from ryvem.export import write_export


@graph.command("export")
def export(
    ctx: typer.Context,
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            help="Where to write the page: a new or regular file, replaced atomically; a "
            "symlink, folder or device is refused (default: graph.html in the data "
            "directory, $RYVEM_DATA_DIR or ~/.ryvem).",
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
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="T",
            help="Only the history up to T (valid time): the versions and edges begun by then.",
            show_default=False,
        ),
    ] = None,
    known_at: KnownAtOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write every node version and edge to one self-contained HTML page; print its path."""
    with errors_to_exit():
        if scope is not None:
            parse_scope_filter(scope)  # a bad scope fails before the store is opened
        if out is not None and not out.strip():  # Path("") is the working directory
            raise fail("--out is empty: give the path of the page to write", 2)
        st = state(ctx).reading()
        settings = st.settings()
        target = Path(out) if out is not None else settings.data_dir / "graph.html"
        if settings.backend == "sqlite":  # whether or not the store exists yet
            store = os.path.realpath(settings.db_path.expanduser())
            if os.path.realpath(target.expanduser()) in {
                store + suffix for suffix in ("", "-wal", "-shm", "-journal")
            }:
                raise fail(f"--out {target} is the store's own file ({store}); give the "
                           "path of a page to write", 2)
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
            opened = False
            try:
                opened = webbrowser.open(path.as_uri())
            except webbrowser.Error:
                opened = False
            if not opened:
                say(f"no web browser available; open {path} yourself", err=True)
