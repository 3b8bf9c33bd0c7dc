"""The walk verb: ``links`` (backlinks, neighbours and multi-hop walks).

It prints the refs of the nodes a breadth-first walk discovers, one per line, or
(``--json``) the walk's edge records (``Step.record()``). The vault verb ``import`` is in
:mod:`ryvem.cli.vault`.
"""

from __future__ import annotations

from typing import Annotated

import typer

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
from ryvem.domain.model import NodeHead
from ryvem.domain.traversal import discovered_heads

__all__ = ["links", "unique_ref"]


_Ref = Annotated[str, typer.Argument(
    metavar="REF", help="Where to start: a node id, KIND/KEY, or a bare KEY.", show_default=False,
)]
_Backlinks = Annotated[
    bool, typer.Option("--backlinks", help="Walk edges backwards: same as --direction in.")
]
_Depth = Annotated[
    str, typer.Option("--depth", metavar="N", help="How many hops to walk; clamped to 1..10.")
]
_Direction = Annotated[str | None, typer.Option(
    "--direction", metavar="out|in|both", show_default=False,
    help="Follow edges forwards (out, the default), backwards (in) or both ways.",
)]
_Rel = Annotated[list[str] | None, typer.Option(
    "--rel", show_default=False,
    help="Only cross edges of this type (repeatable). Default: every type except supersedes.",
)]
_AsOf = Annotated[str | None, typer.Option(
    "--as-of", metavar="T", show_default=False,
    help="Walk the graph as it was at T (ISO 8601, valid time): only nodes and edges valid then.",
)]
_AllScopes = Annotated[
    bool, typer.Option("--all-scopes", help="Let the walk cross into other scopes.")
]
_Unresolved = Annotated[bool, typer.Option(
    "--unresolved",
    help="List the node's link targets that resolve to no node yet, instead of walking "
    "(now only: no --as-of, --known-at or walk options).",
)]


@graph.command("links")
def links(
    ctx: typer.Context,
    ref: _Ref,
    backlinks: _Backlinks = False,
    depth: _Depth = "1",
    direction: _Direction = None,
    rel: _Rel = None,
    as_of: _AsOf = None,
    known_at: KnownAtOpt = None,
    scope: ScopeOpt = None,
    all_scopes: _AllScopes = False,
    unresolved: _Unresolved = False,
    as_json: JsonOpt = False,
) -> None:
    """Walk the graph from REF: what it links to (default), --backlinks, or N hops both ways."""
    st = state(ctx).reading()
    with errors_to_exit():
        if backlinks and direction is not None:
            raise fail("--backlinks means --direction in; give one of them, not both", 2)
        if unresolved:
            _refuse_walk_options(
                ("--as-of", as_of is not None), ("--known-at", known_at is not None),
                ("--depth", depth != "1"), ("--direction", direction is not None),
                ("--backlinks", backlinks), ("--rel", bool(rel)), ("--all-scopes", all_scopes),
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
            ref, depth=depth, direction="in" if backlinks else (direction or "out"),
            rels=rel or None, as_of=as_of, all_scopes=all_scopes, known_at=known_at,
        )
        if as_json:
            echo_json([s.record() for s in steps])
        elif steps:
            start = svc.resolve(ref, as_of=as_of, known_at=known_at)
            for head in discovered_heads(start.entity, steps):
                say(unique_ref(head, svc.default_scope))


def _refuse_walk_options(*given: tuple[str, bool]) -> None:
    """--unresolved answers for now only: a walk option given with it is an error (it was
    once accepted and ignored, and the answer was today's, exit 0)."""
    walk = [name for name, was_given in given if was_given]
    if walk:
        raise fail(
            "--unresolved lists what the node's current version links to that names "
            f"no node now; it takes no {', '.join(walk)}", 2
        )


def unique_ref(head: NodeHead, default_scope: str) -> str:
    """A ref that names exactly this node when typed back: KIND/KEY (and its scope), or the id.

    A bare key is not unique (a decision and a task may share one), so it is never printed.
    """
    if head.key is None:
        return head.id
    ref = f"{head.kind}/{head.key}"
    return ref if head.scope == default_scope else f"{ref} --scope {head.scope}"
