"""Link verbs: ``links`` (backlinks and multi-hop walks) and ``import`` (a markdown vault).

``links`` prints the refs of the nodes a breadth-first walk discovers, one per line, or
(``--json``) the walk's edge records (``Step.record()``). ``import`` reads a folder of
markdown files into page nodes and prints a summary; the folder is never written to.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ryvem.application import workspace
from ryvem.application.service import Service
from ryvem.application.session import Session
from ryvem.application.vault import TITLE_FROM, ImportSummary, import_vault
from ryvem.cli.common import (
    JsonOpt,
    KnownAtOpt,
    ScopeOpt,
    echo_json,
    errors_to_exit,
    fail,
    graph,
    state,
)
from ryvem.cli.text import say
from ryvem.domain import jsontext
from ryvem.domain.model import NodeHead
from ryvem.domain.traversal import discovered_heads
from ryvem.domain.validation import validate_kind

__all__ = ["embed_with_bar", "import_", "links"]


@graph.command("links")
def links(
    ctx: typer.Context,
    ref: Annotated[
        str,
        typer.Argument(
            metavar="REF",
            help="Where to start: a node id, KIND/KEY, or a bare KEY.",
            show_default=False,
        ),
    ],
    backlinks: Annotated[
        bool, typer.Option("--backlinks", help="Walk edges backwards: same as --direction in.")
    ] = False,
    depth: Annotated[
        str,
        typer.Option(
            "--depth",
            metavar="N",
            help="How many hops to walk; clamped to 1..10.",
        ),
    ] = "1",
    direction: Annotated[
        str | None,
        typer.Option(
            "--direction",
            metavar="out|in|both",
            help="Follow edges forwards (out, the default), backwards (in) or both ways.",
            show_default=False,
        ),
    ] = None,
    rel: Annotated[
        list[str] | None,
        typer.Option(
            "--rel",
            help="Only cross edges of this type (repeatable). Default: every type except "
            "supersedes.",
            show_default=False,
        ),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="T",
            help="Walk the graph as it was at T (ISO 8601, valid time): only nodes and edges "
            "valid then.",
            show_default=False,
        ),
    ] = None,
    known_at: KnownAtOpt = None,
    scope: ScopeOpt = None,
    all_scopes: Annotated[
        bool,
        typer.Option("--all-scopes", help="Let the walk cross into other scopes."),
    ] = False,
    unresolved: Annotated[
        bool,
        typer.Option(
            "--unresolved",
            help="List the node's link targets that resolve to no node yet, instead of walking "
            "(now only: no --as-of, --known-at or walk options).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Walk the graph from REF: what it links to (default), --backlinks, or N hops both ways."""
    st = state(ctx).reading()
    with errors_to_exit():
        if backlinks and direction is not None:
            raise fail(
                "--backlinks means --direction in; give one of them, not both", 2
            )
        if unresolved:
            walk = [name for name, given in (
                ("--as-of", as_of is not None), ("--known-at", known_at is not None),
                ("--depth", depth != "1"), ("--direction", direction is not None),
                ("--backlinks", backlinks), ("--rel", bool(rel)), ("--all-scopes", all_scopes),
            ) if given]
            if walk:  # they were accepted and ignored: the answer was today's, exit 0
                raise fail(
                    "--unresolved lists what the node's current version links to that names "
                    f"no node now; it takes no {', '.join(walk)}", 2
                )
        svc = st.service(scope=scope)
        if unresolved:
            targets = svc.unresolved(ref)
            if as_json:
                echo_json(targets)
            else:
                for target in targets:
                    say(target)
            return
        steps = svc.traverse(
            ref,
            depth=depth,
            direction="in" if backlinks else (direction or "out"),
            rels=rel or None,
            as_of=as_of,
            all_scopes=all_scopes,
            known_at=known_at,
        )
        if as_json:
            echo_json([s.record() for s in steps])
            return
        if not steps:
            return
        start = svc.resolve(ref, as_of=as_of, known_at=known_at)
        for head in discovered_heads(start.entity, steps):
            say(unique_ref(head, svc.default_scope))


@graph.command("import")
def import_(
    ctx: typer.Context,
    folder: Annotated[
        str,
        typer.Argument(
            metavar="DIR",
            help="The vault: every *.md file below it becomes a node (dot-folders skipped).",
            show_default=False,
        ),
    ],
    scope: ScopeOpt = None,
    kind: Annotated[str, typer.Option("--kind", help="The kind of the imported nodes.")] = "page",
    retire_missing: Annotated[
        bool,
        typer.Option(
            "--retire-missing",
            help="Retire current nodes of this kind in this scope whose file is gone.",
        ),
    ] = False,
    git_history: Annotated[
        bool,
        typer.Option(
            "--git-history",
            help="Import DIR's git history: each commit that touched a page is a version of it "
            "at the commit's time (renames keep one node); then the working tree as now. "
            "Running it again adds only new commits.",
        ),
    ] = False,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="After importing, keep running and apply every saved, renamed or deleted "
            "file within a second (deletes retire with --retire-missing); Ctrl-C stops.",
        ),
    ] = False,
    title_from: Annotated[
        str,
        typer.Option(
            "--title-from",
            metavar="name|heading",
            help="A page's title when its front matter has no title: its file name (name, the "
            "default) or its first '# ' heading, else the file name (heading).",
        ),
    ] = "name",
    no_embed: Annotated[
        bool,
        typer.Option(
            "--no-embed",
            help="Leave the new rows queued for embedding (ryvem graph reindex --pending, or "
            "the MCP server, embeds them later); lexical search sees them at once.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a markdown vault (read-only); a re-run writes only what changed.

    Then embed the new rows for semantic search (when the local model is installed)."""
    st = state(ctx)
    with errors_to_exit():
        if folder == "":  # Path("") is ".": an unset variable must not import the cwd
            raise fail("DIR must not be empty (give . for the working directory)", 2)
        if title_from not in TITLE_FROM:
            raise fail(
                f"--title-from must be one of {', '.join(TITLE_FROM)}, got {title_from!r}", 2
            )
        base = Path(folder).expanduser()
        if not base.is_dir():
            raise fail(
                f"not a directory: {folder}" if base.exists() else f"no such directory: {folder}",
                2,
            )
        # Checked before the service: minting it (a first import in a git repository) opens
        # the store and writes ryvem.json, and a refused import must leave neither behind.
        validate_kind(kind)
        minting = scope is None and _may_mint(base)
        before = workspace.locate() if minting else None
        svc = st.service(scope=scope) if scope is not None else st.service(mint=minting)
        if (before is not None and before.root is not None and before.repo_uuid is None
                and workspace.wrote_identity(before.root)):  # put says so too
            after = workspace.locate()
            say(f"ryvem: this repository is now {after.scope}; wrote {after.identity_file} "
                "(commit it so the identity survives a fresh clone)", err=True)
        if git_history:
            summary = _import_history(svc, base, kind, retire_missing, as_json, title_from)
        elif sys.stdout.isatty() and not as_json:
            summary = _import_with_bar(svc, base, kind, retire_missing, title_from)
        else:
            summary = import_vault(
                svc, base, kind=kind, retire_missing=retire_missing, title_from=title_from
            )
        for problem in summary.problems:
            say(f"warning: {problem.line()}", err=True)
        session = st.session()
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
            _watch(svc, base, kind, retire_missing, as_json, title_from)


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


def unique_ref(head: NodeHead, default_scope: str) -> str:
    """A ref that names exactly this node when typed back: KIND/KEY (and its scope), or the id.

    A bare key is not unique (a decision and a task may share one), so it is never printed.
    """
    if head.key is None:
        return head.id
    ref = f"{head.kind}/{head.key}"
    return ref if head.scope == default_scope else f"{ref} --scope {head.scope}"


def _may_mint(vault: Path) -> bool:
    """Mint the repository identity only when ryvem.json would land outside the vault."""
    root = workspace.locate().root
    if root is None:
        return False
    try:
        root.resolve().relative_to(vault.resolve())
    except ValueError:
        return True
    return False  # the git root is the vault or inside it: never write into it


def _import_with_bar(
    svc: Service, base: Path, kind: str, retire_missing: bool, title_from: str
) -> ImportSummary:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("importing"), BarColumn(), MofNCompleteColumn(), transient=True
    ) as bar:
        task = bar.add_task("import", total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return import_vault(
            svc, base, kind=kind, retire_missing=retire_missing, progress=report,
            title_from=title_from,
        )


def _import_history(
    svc: Service, base: Path, kind: str, retire_missing: bool, as_json: bool, title_from: str
) -> ImportSummary:
    """The git history import, with a progress bar over commits on a terminal."""
    from ryvem.application.vault_history import import_history

    if not sys.stdout.isatty() or as_json:
        return import_history(
            svc, base, kind=kind, retire_missing=retire_missing, title_from=title_from
        )
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("importing commits"), BarColumn(), MofNCompleteColumn(), transient=True
    ) as bar:
        task = bar.add_task("commits", total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return import_history(
            svc, base, kind=kind, retire_missing=retire_missing, progress=report,
            title_from=title_from,
        )


def embed_with_bar(session: Session, bar: bool, label: str) -> int:
    """Embed every queued row (a progress bar on stderr when ``bar``); 0 when semantic
    search is off."""
    if session.embedder() is None:
        return 0
    if not bar:
        return session.embed_pending()
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    ) as progress:
        task = progress.add_task(label, total=None)

        def report(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

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
