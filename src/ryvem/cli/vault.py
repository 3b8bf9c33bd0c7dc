"""Vault verbs: ``import`` reads a folder of markdown files into page nodes — once, with
its git history, or kept in step with ``--watch`` — and prints a summary; the folder is never
written to. The use case is :meth:`ryvem.application.session.Session.import_folder`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ryvem.application.service import Service
from ryvem.application.session import Session
from ryvem.application.vault import ImportSummary
from ryvem.cli.common import (
    JsonOpt,
    ScopeOpt,
    echo_json,
    errors_to_exit,
    graph,
    say_minted,
    state,
)
from ryvem.cli.progress import steps
from ryvem.cli.text import say
from ryvem.domain import jsontext

__all__ = ["embed_with_bar", "import_", "import_transcript"]


_Folder = Annotated[str, typer.Argument(
    metavar="DIR", show_default=False,
    help="The vault: every *.md file below it becomes a node (dot-folders skipped).",
)]
_Kind = Annotated[str, typer.Option("--kind", help="The kind of the imported nodes.")]
_RetireMissing = Annotated[bool, typer.Option(
    "--retire-missing", help="Retire current nodes of this kind in this scope whose file is gone.",
)]
_GitHistory = Annotated[bool, typer.Option(
    "--git-history",
    help="Import DIR's git history: each commit that touched a page is a version of it "
    "at the commit's time (renames keep one node); then the working tree as now. "
    "Running it again adds only new commits.",
)]
_Watch = Annotated[bool, typer.Option(
    "--watch",
    help="After importing, keep running and apply every saved, renamed or deleted "
    "file within a second (deletes retire with --retire-missing); Ctrl-C stops.",
)]
_TitleFrom = Annotated[str, typer.Option(
    "--title-from", metavar="name|heading",
    help="A page's title when its front matter has no title: its file name (name, the "
    "default) or its first '# ' heading, else the file name (heading).",
)]
_NoEmbed = Annotated[bool, typer.Option(
    "--no-embed",
    help="Leave the new rows queued for embedding (ryvem graph reindex --pending, or "
    "the MCP server, embeds them later); lexical search sees them at once.",
)]


_Transcript = Annotated[str, typer.Argument(
    metavar="FILE", show_default=False,
    help="A conversation: JSON Lines of {speaker|role, text|content, time} records, or a "
    "markdown dialogue of 'Speaker: text' (or '**Speaker** (time): text') lines.",
)]
_TurnKind = Annotated[str, typer.Option("--kind", help="The kind of the turn nodes.")]
_KeyPrefix = Annotated[str | None, typer.Option(
    "--key-prefix", show_default=False,
    help="Keys are PREFIX/0001, PREFIX/0002, …; default: the file's name without extension.",
)]


@graph.command("import-transcript")
def import_transcript(
    ctx: typer.Context,
    file: _Transcript,
    scope: ScopeOpt = None,
    kind: _TurnKind = "turn",
    key_prefix: _KeyPrefix = None,
    no_embed: _NoEmbed = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a conversation as one memory a turn, each linked to the one before it
    ('follows'); the file is only read, and a re-run writes only new or changed turns."""
    st = state(ctx)
    with errors_to_exit():
        session = st.session()
        summary = session.import_transcript(file, scope=scope, kind=kind, key_prefix=key_prefix)
        embedded = 0 if no_embed else embed_with_bar(
            session, sys.stderr.isatty() and not as_json, "embedding")
        record = {**summary.record(), "embedded": embedded}
        if as_json:
            echo_json(record)
        else:
            say(f"imported {summary.turns} turns from {summary.file} into {summary.scope} "
                f"({record['created']} new, {record['superseded']} changed, "
                f"{record['unchanged']} unchanged; {summary.links} follows links)")


@graph.command("import")
def import_(
    ctx: typer.Context,
    folder: _Folder,
    scope: ScopeOpt = None,
    kind: _Kind = "page",
    retire_missing: _RetireMissing = False,
    git_history: _GitHistory = False,
    watch: _Watch = False,
    title_from: _TitleFrom = "name",
    no_embed: _NoEmbed = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a markdown vault (read-only); a re-run writes only what changed.

    Then embed the new rows for semantic search (when the local model is installed)."""
    st = state(ctx)
    with errors_to_exit():
        session = st.session()
        with steps(sys.stdout.isatty() and not as_json,
                   "importing commits" if git_history else "importing") as progress:
            done = session.import_folder(
                folder, scope=scope, kind=kind, retire_missing=retire_missing,
                title_from=title_from, git_history=git_history, progress=progress,
            )
        say_minted(done.minted)
        summary = done.summary
        for problem in summary.problems:
            say(f"warning: {problem.line()}", err=True)
        embedded = 0 if no_embed else embed_with_bar(
            session, sys.stderr.isatty() and not as_json, "embedding"
        )
        pending = session.vector_pending()
        record = {**summary.record(), "embedded": embedded, "vectors_pending": pending}
        if as_json and watch:  # the watch prints JSON Lines: the summary is its first line
            sys.stdout.write(jsontext.dumps(record) + "\n")
            sys.stdout.flush()
        elif as_json:
            echo_json(record)
        else:
            _print_summary(summary)
            if embedded or pending:
                say(f"vectors: {embedded} rows embedded, {pending} pending")
        if watch:
            _watch(session.service(done.scope), Path(folder).expanduser(), kind,
                   retire_missing, as_json, title_from)


def _watch(
    svc: Service, base: Path, kind: str, retire_missing: bool, as_json: bool, title_from: str
) -> None:
    """Apply saved files until SIGINT or SIGTERM, then print a one-line summary (exit 0)."""
    import signal
    import threading

    from ryvem.application.vault_watch import Applied, VaultSync, WatchSummary, watch_vault

    sync = VaultSync(
        svc, base, scope=svc.default_scope, kind=kind, retire_missing=retire_missing,
        title_from=title_from,
    )
    sync.start(initial_import=False)
    total = WatchSummary(root=str(base), scope=sync.scope, kind=kind)
    stop = threading.Event()

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    def ready() -> None:
        say(f"watching {base} (Ctrl-C to stop)", err=True)

    def batch(applied: Applied) -> None:
        total.add(applied)
        for problem in applied.problems:
            say(f"warning: {problem.line()}", err=True)
        if as_json:
            sys.stdout.write(jsontext.dumps(applied.record()) + "\n")
            sys.stdout.flush()
            return
        for ref in applied.written:
            say(f"wrote {ref}")
        for old, new in applied.renamed:
            say(f"renamed {old} -> {new}")
        for ref in applied.retired:
            say(f"retired {ref}")
        sys.stdout.flush()

    def error(message: str) -> None:
        total.warnings += 1
        say(f"warning: {message}", err=True)

    try:
        watch_vault(sync, stop, batch, on_ready=ready, on_error=error)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if as_json:
        sys.stdout.write(jsontext.dumps(total.record()) + "\n")
    else:
        say(total.line())


def embed_with_bar(session: Session, bar: bool, label: str) -> int:
    """Embed every queued row (a progress bar on stderr when ``bar``); 0 when semantic
    search is off."""
    if session.embedder() is None:
        return 0
    with steps(bar, label, extra=("count", "eta")) as report:
        return session.embed_pending(progress=report)


def _print_summary(s: ImportSummary) -> None:
    if s.commits is not None:
        say(
            f"imported {s.commits} commits from {s.root} into {s.scope} "
            f"({s.commits_known} imported before; {s.working_tree} pages written from "
            "the working tree as now)"
        )
        say(
            f"versions: {s.created} created, {s.superseded} superseded, {s.renamed} renamed, "
            f"{s.unchanged} unchanged, {s.retired} retired"
            + (f", {s.revived} revived" if s.revived else "")
            + (f", {s.skipped} skipped" if s.skipped else "")
        )
        say(f"links: {s.links_resolved} resolved, {s.links_unresolved} unresolved")
        return
    say(
        f"imported {s.pages} pages from {s.root} into {s.scope}: {s.created} created, "
        f"{s.superseded} superseded, {s.unchanged} unchanged, {s.retired} retired"
        + (f", {s.revived} revived" if s.revived else "")
        + (f", {s.skipped} skipped" if s.skipped else "")
    )
    say(f"links: {s.links_resolved} resolved, {s.links_unresolved} unresolved")
    if s.unresolved:
        more = s.links_unresolved - len(s.unresolved)
        say("first unresolved:" if more else "unresolved:")
        for page, target in s.unresolved:
            say(f"  {page} -> {target}")
        if more:
            say(f"  … and {more} more (ryvem graph links --unresolved PAGE)")
