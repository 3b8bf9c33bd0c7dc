"""``ryvem``: the console script. ``ryvem graph …`` holds the verbs."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ryvem import __version__
from ryvem.backends import REGISTRY
from ryvem.cli.common import State, graph, say_notes, state
from ryvem.cli.text import safe

app = typer.Typer(
    name="ryvem",
    help="ryvem — a memory graph for coding agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ryvem {__version__}")
        raise typer.Exit(0)


@app.callback()
def _app_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """ryvem — a memory graph for coding agents."""


@graph.callback()
def _graph_options(
    ctx: typer.Context,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            envvar="RYVEM_BACKEND",
            help="Storage backend: "
            + "; ".join(f"{b.name}, {b.summary}" for b in REGISTRY.values())
            + ".",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="SQLite file (default: $RYVEM_DATA_DIR/dev.db, i.e. ~/.ryvem/dev.db).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Read and write the memory graph: nodes, edges, history, search, links."""
    st = state(ctx)
    st.backend = backend
    st.db = db
    ctx.call_on_close(st.close)


app.add_typer(graph, name="graph")

# Verb modules register themselves on `graph` when imported.
from ryvem.cli import copy as _copy  # noqa: E402,F401  (registration by import)
from ryvem.cli import export as _export  # noqa: E402,F401  (registration by import)
from ryvem.cli import forget as _forget  # noqa: E402,F401  (registration by import)
from ryvem.cli import links as _links  # noqa: E402,F401  (registration by import)
from ryvem.cli import nodes as _nodes  # noqa: E402,F401  (registration by import)
from ryvem.cli import reindex as _reindex  # noqa: E402,F401  (registration by import)
from ryvem.cli import vault as _vault  # noqa: E402,F401  (registration by import)


def _misplaced(error: Exception) -> str:
    """For an unknown option that the verb's group takes (``ryvem graph stats --db x``):
    where it goes (click parses a group's options before the verb only); for words past a
    verb's one argument, that a text of several words is quoted."""
    name = getattr(error, "option_name", None)
    ctx = getattr(error, "ctx", None)
    group = getattr(ctx, "parent", None)
    if ctx is not None and "unexpected extra argument" in str(error):
        # `ryvem graph search how do we cache`: the words after the first are extra.
        if any(p.param_type_name == "argument" and p.name == "text"
               for p in ctx.command.params):
            return (f" (a text of several words goes in quotes: {ctx.command_path} "
                    "\"how do we cache\")")
        return ""
    if type(error).__name__ != "NoSuchOption" or not name or ctx is None or group is None:
        return ""
    if not any(name in param.opts for param in group.command.params):
        # `ryvem graph search "--dry-run flag"`: a text that starts with '-' reads as an
        # option; for a verb that takes one, say how to give it.
        texts = [p.name for p in ctx.command.params
                 if p.param_type_name == "argument" and p.name]
        if not texts:
            return ""
        return (f" (a {texts[0]} that starts with '-' goes after '--': "
                f"{ctx.command_path} [OPTIONS] -- {texts[0].upper()})")
    return (f" ({name} is an option of '{group.command_path}': give it before the verb: "
            f"{group.command_path} {name} … {ctx.info_name})")


def main(argv: list[str] | None = None, prog_name: str = "ryvem") -> None:
    """Run the CLI; usage errors become one line on stderr and exit 2, never a traceback."""
    try:
        # Outside standalone mode click *returns* a typer.Exit's code instead of raising it.
        code = app(args=argv, prog_name=prog_name, standalone_mode=False, obj=State())
        say_notes()
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            sys.exit(code)
    except typer.Exit as e:
        say_notes()
        sys.exit(e.exit_code)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    except typer.TyperException as e:  # typer's vendored click errors: usage, bad parameter
        ctx = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError" and ctx is not None:
            # Building the error rendered the help already (typer's rich help prints as it
            # formats); print it only when it came back as text.
            shown = e.format_message() if hasattr(e, "format_message") else ""
            if str(shown).strip():
                typer.echo(shown)
            sys.exit(0)
        format_message = getattr(e, "format_message", None)
        text = (format_message() if callable(format_message) else str(e)) + _misplaced(e)
        typer.echo(f"error: {safe(' '.join(str(text).split()))}", err=True)
        sys.exit(int(getattr(e, "exit_code", 2)))
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)
