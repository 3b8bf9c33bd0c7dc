"""``ryvem graph reindex``: rebuild the lexical index and the vectors of an existing store.

The full-text index is rebuilt from the rows (one statement; the store's whole index), then
the vectors of every current row (of ``--scope``, when given) are dropped, queued again and
embedded in bounded batches, with a progress bar on a terminal. ``--pending`` only embeds
what is already queued (rows written while nothing was embedding them).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ryvem.cli.common import JsonOpt, echo_json, errors_to_exit, fail, graph, state
from ryvem.cli.progress import phases
from ryvem.cli.text import say

__all__ = ["reindex"]


@graph.command("reindex")
def reindex(
    ctx: typer.Context,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="Re-embed only this scope (global, repo:<uuid>, board:<slug>) or shape "
            "(repo:*, board:*). Default: every scope. The text index is always rebuilt whole.",
            show_default=False,
        ),
    ] = None,
    pending: Annotated[
        bool,
        typer.Option("--pending", help="Only embed the rows waiting for vectors."),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Rebuild the search indexes: full text, then vectors (with the local model)."""
    st = state(ctx)
    with errors_to_exit():
        if pending and scope is not None:  # it embedded every scope's queue, silently
            raise fail("--pending embeds every row waiting for vectors, whatever its scope; "
                       "--scope re-embeds one scope: give one of them", 2)
        session = st.session()
        with phases(sys.stderr.isatty() and not as_json, extra=("count", "eta"),
                    names={"text": "text index", "vectors": "embedding"}) as report:
            done = session.reindex(scope, pending_only=pending, progress=report)
        if as_json:
            echo_json(done.record())
            return
        if done.text_rows is not None:
            say(f"text index: {done.text_rows} current rows")
        if done.model is not None:
            say(f"vectors: {done.embedded} rows embedded with {done.model}, "
                f"{done.pending} pending")
        if done.note:
            say(f"note: {done.note}", err=True)
