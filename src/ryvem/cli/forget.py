"""Forgetting verbs: redact, purge, audit.

``redact TEXT`` replaces TEXT (literal, case-sensitive) with ``[redacted]`` everywhere in the
scope; ``redact -`` reads TEXT from stdin (a secret typed as an argument lands in the shell's
history and is visible to other users in the process list, and an argument is limited to
128 KiB). ``purge REF`` erases a node's content and keeps its skeleton. Both record who did
it (the OS user) and why in the audit trail that ``audit`` lists. Output never repeats TEXT.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ryvem.application.forget import Actor, ForgetReport, export_folders, stale_exports
from ryvem.cli.common import (
    JsonOpt,
    ScopeOpt,
    ScopeShapeOpt,
    State,
    echo_json,
    errors_to_exit,
    fail,
    graph,
    state,
)
from ryvem.cli.progress import phases
from ryvem.cli.text import safe, say
from ryvem.domain.redaction import TextTooShort
from ryvem.domain.scopes import GLOBAL
from ryvem.domain.timeutil import format_us
from ryvem.domain.validation import MAX_BODY_BYTES
from ryvem.export import still_holds

__all__ = ["audit", "purge", "redact"]

ReasonOpt = Annotated[
    str | None,
    typer.Option("--reason", help="Why (kept in the audit trail).", show_default=False),
]


def _read_text(text: str) -> str:
    if text != "-":
        return text
    raw = sys.stdin.buffer.read(MAX_BODY_BYTES + 3)  # + a trailing "\r\n", + 1 past it
    if len(raw) > MAX_BODY_BYTES + 2:
        raise fail(
            f"the text on stdin holds more than {MAX_BODY_BYTES} bytes (8 MiB), longer than "
            "any stored text; nothing was redacted", 2,
        )
    try:
        value = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fail(f"the text on stdin is not UTF-8 (byte {e.start}); nothing was redacted",
                   2) from None
    if value.endswith("\r\n"):
        return value[:-2]
    return value[:-1] if value.endswith("\n") else value


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _summary(r: ForgetReport) -> list[str]:
    if r.action == "redact" and r.found_nothing:
        where = "any scope" if r.scope == "*" else r.scope
        return ["; ".join([f"nothing in {where} holds that text", "nothing was changed",
                           *_finished(r), *_elsewhere(r)])]
    verb = "would redact" if r.dry_run else "redacted"
    if r.action == "purge":
        verb = "purged"
    head = (
        f"{verb} {_plural(r.versions, 'version')} of {_plural(len(r.nodes), 'node')} and the "
        f"data of {_plural(r.edges, 'edge')} in {r.scope}"
    )
    if r.dry_run:
        head += "; nothing was changed (--dry-run)"
    elif r.entry is not None:
        head += f" (audit {r.entry.id})"
    width = max((len(n.ref) for n in r.nodes), default=0)
    lines = [head]
    lines += [f"  {n.ref:<{width}}  {_plural(n.versions, 'version')}"
              + ("" if n.scope == r.scope else f"  ({n.scope})") for n in r.nodes]
    return lines + _elsewhere(r)


def _finished(r: ForgetReport) -> list[str]:
    return ["an earlier cleanup of the store's files was finished"] if r.finished_cleanup else []


def _elsewhere(r: ForgetReport) -> list[str]:
    """What other scopes hold of the text, when the redaction looked at one scope or shape."""
    if r.elsewhere is None:
        return []
    if not r.elsewhere:
        return ["no other scope holds it"]
    if r.elsewhere == 1:
        held = "1 version or edge in another scope still holds it"
    else:
        held = f"{r.elsewhere} versions or edges in other scopes still hold it"
    return [f"{held}: --all-scopes redacts it everywhere"]


def _warn_stale_exports(st: State, report: ForgetReport, text: str | None) -> None:
    """A warning on stderr for each page ryvem exported into its own folders that this
    forgetting cannot reach (a redaction: pages holding the text; a purge: pages drawing the
    node). Pages a user wrote elsewhere with --out are theirs to know about."""
    if report.dry_run:
        return
    done = "redaction" if report.action == "redact" else "purge"
    held = "still holds the text" if text is not None else "may still hold the node's content"
    folders = export_folders(st.settings().data_dir)
    for page in stale_exports(folders, still_holds(text, report.changed)):
        say(f"warning: {page} was exported before this {done} and {held}: export again "
            "or delete it", err=True)


@graph.command("redact")
def redact(
    ctx: typer.Context,
    text: Annotated[
        str,
        typer.Argument(
            metavar="TEXT",
            help="The exact text to remove (literal, case-sensitive), at least 8 characters; "
            "'-' reads it from stdin (keeps it out of the shell history and the process list).",
            show_default=False,
        ),
    ],
    reason: ReasonOpt = None,
    scope: ScopeShapeOpt = None,
    all_scopes: Annotated[bool, typer.Option("--all-scopes", help="Every scope.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would change; change nothing.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Allow a TEXT shorter than 8 characters.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Replace TEXT with a redaction marker everywhere: every version, edge and index."""
    st = state(ctx).reading()  # a store not created yet holds no text: nothing to create
    with errors_to_exit():
        value = _read_text(text)
        explicit = scope is not None or all_scopes
        svc = st.service(scope=GLOBAL) if explicit else st.service()
        with phases(sys.stderr.isatty() and not as_json and not dry_run,
                    label="{task.description:>10}", extra=("elapsed",)) as progress:
            try:
                report = svc.redact(
                    value, scope=scope, all_scopes=all_scopes, reason=reason,
                    actor=Actor.os_user("cli"), dry_run=dry_run, force=force,
                    progress=progress,
                )
            except TextTooShort as e:
                raise fail(f"{e.message}: give --force if you mean it", e.exit_code) from None
        if as_json:
            echo_json(report.record())
        else:
            for line in _summary(report):
                say(line)
        _warn_stale_exports(st, report, value)


@graph.command("purge")
def purge(
    ctx: typer.Context,
    ref: Annotated[
        str,
        typer.Argument(
            metavar="REF",
            help="The node: an id, KIND/KEY, or a bare KEY unique in the scope.",
            show_default=False,
        ),
    ],
    reason: ReasonOpt = None,
    scope: ScopeOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would be erased; change nothing.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Erase the content of every version of a node and its edges' data; keep the skeleton."""
    st = state(ctx).reading()  # a store not created yet holds no node: nothing to create
    with errors_to_exit():
        svc = st.service(scope=scope)
        with phases(sys.stderr.isatty() and not as_json and not dry_run,
                    label="{task.description:>10}", extra=("elapsed",)) as progress:
            report = svc.purge(ref, reason=reason, actor=Actor.os_user("cli"),
                               progress=progress, dry_run=dry_run)
        if as_json:
            echo_json(report.record())
        elif report.found_nothing:
            say(f"{ref} is purged already: nothing was changed and nothing audited"
                + "".join(f"; {x}" for x in _finished(report)))
        elif dry_run:
            say(f"would purge {ref}: "
                f"{_plural(report.versions, 'version')} and the data of "
                f"{_plural(report.edges, 'edge')}; nothing was changed (--dry-run)")
        else:
            node = report.entry.node if report.entry is not None else ref
            say(f"purged {node}: {_plural(report.versions, 'version')} and the data of "
                f"{_plural(report.edges, 'edge')}"
                + (f" (audit {report.entry.id})" if report.entry is not None else ""))
        _warn_stale_exports(st, report, None)


@graph.command("audit")
def audit(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """List every redaction and purge, newest first (never the removed text)."""
    st = state(ctx).reading()
    with errors_to_exit():
        entries = st.service(scope=GLOBAL).audit()
        if as_json:
            echo_json([e.record() for e in entries])
            return
        if not entries:
            typer.echo("nothing was ever redacted or purged", err=True)
            return
        width = None if sys.stdout.isatty() else 200
        table = Table()
        for column in ("at", "who", "action", "scope", "node", "versions", "edges", "reason"):
            table.add_column(column, overflow="fold")
        for e in entries:
            table.add_row(
                format_us(e.at), Text(safe(f"{e.who} ({e.via})")), e.action, Text(safe(e.scope)),
                Text(safe(e.node or "")), str(e.versions), str(e.edges),
                Text(safe(e.reason or "")),
            )
        Console(width=width, soft_wrap=False, highlight=False).print(table)
