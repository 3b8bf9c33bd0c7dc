"""``ryvem graph copy``: move a whole graph between any two registered backends.

Both stores are chosen from the same settings every verb uses: the SQLite file from
``--db`` / ``RYVEM_DATA_DIR``, the Neo4j server from ``RYVEM_NEO4J_URI``, ``_USER``,
``_PASSWORD`` and ``_DATABASE``. On a terminal a progress bar runs on stderr.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ryvem.application.copy import CopyReport, copy_graph
from ryvem.backends import BACKEND_NAMES, copy_endpoints, copy_stores
from ryvem.cli.common import JsonOpt, echo_json, errors_to_exit, fail, graph, state
from ryvem.cli.progress import phases
from ryvem.cli.vault import embed_with_bar

__all__ = ["copy"]


def _summary(r: CopyReport) -> list[str]:
    t = r.target
    lines = [
        f"copied {r.source.backend} ({r.source.location}) -> {t.backend} ({t.location}): "
        f"{r.versions_read} versions ({r.versions_new} new), "
        f"{r.edges_read} edges ({r.edges_new} new), "
        f"{r.audit_read} audit entries ({r.audit_new} new)",
    ]
    if r.versions_forgotten or r.edges_forgotten:
        lines.append(
            f"forgotten in the source since an earlier copy: {_n(r.versions_forgotten, 'version')}"
            f" and {_n(r.edges_forgotten, 'edge')} rewritten in the target as the source holds "
            "them (and cleaned from its files as a redaction there would be)"
        )
    if r.kept_forgotten:
        lines.append(
            f"left as the target holds them: {_n(r.kept_forgotten, 'row')} it forgot on its own "
            "(a copy never brings forgotten text back)"
        )
    if r.counts_match:
        lines.append(
            f"counts match: {t.current_rows} current, {t.superseded_rows} superseded and "
            f"{t.retired_rows} retired rows; {t.edges_current} current and {t.edges_closed} "
            f"closed edges; {_n(len(t.kinds), 'kind')}, {_n(len(t.scopes), 'scope')}, "
            f"{_n(len(t.rels), 'rel')}"
        )
    return lines


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


_To = Annotated[str, typer.Option(
    "--to", metavar="BACKEND", help=f"Copy into this backend: {' or '.join(BACKEND_NAMES)}."
)]
_From = Annotated[str | None, typer.Option(
    "--from", metavar="BACKEND", show_default=False,
    help="Copy from this backend (default: the one in use, --backend or "
    "$RYVEM_BACKEND, when it is not --to; else the other one).",
)]
_Batch = Annotated[
    int, typer.Option("--batch", metavar="N", help="Rows per batch (one transaction each).")
]
_NoEmbed = Annotated[bool, typer.Option(
    "--no-embed",
    help="Leave the copied rows queued for embedding (ryvem graph reindex --pending, "
    "or the MCP server, embeds them later); lexical search sees them at once.",
)]


@graph.command("copy")
def copy(
    ctx: typer.Context,
    to: _To,
    from_: _From = None,
    batch: _Batch = 1000,
    no_embed: _NoEmbed = False,
    as_json: JsonOpt = False,
) -> None:
    """Copy every node version and edge (ids, windows, chains kept) into another backend.

    Re-running it is safe: rows already there are skipped, except that what the source
    redacted or purged since is rewritten there too. It ends by comparing the counts
    per kind, scope and rel on both sides, and exits 1 if they differ; then it embeds the
    copied rows for semantic search (vectors are not copied), unless --no-embed.
    """
    st = state(ctx)
    with errors_to_exit():
        source_name, target_name = copy_endpoints(to, from_, st.settings().backend)
        if batch < 1:
            raise fail(f"--batch must be a positive integer, got {batch}", 2)
        with copy_stores(source_name, target_name, db=st.db) as (source, target):
            bar = sys.stderr.isatty() and not as_json
            with phases(bar, label="{task.description:>8}", transient=False) as progress:
                report = copy_graph(source, target.repo, batch=batch, progress=progress)
            # Vectors are not copied: the target queued the rows it got; embed them as an
            # import does, so semantic search there answers like the source's at once.
            embedded = 0 if no_embed else embed_with_bar(target, bar, "embedding")
            pending = target.vector_pending()
        if as_json:
            echo_json({**report.record(), "embedded": embedded, "vectors_pending": pending})
        else:
            for line in _summary(report):
                typer.echo(line)
            if embedded or pending:
                typer.echo(f"vectors: {embedded} rows embedded, {pending} pending")
        if not report.counts_match:
            raise fail(
                "the copy finished but the counts differ (did the target hold other rows?): "
                + "; ".join(report.differences)
            )
