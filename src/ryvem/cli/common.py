"""What every CLI verb shares: options on ``ryvem graph``, the service, errors and output.

Verbs live in one module per noun (``nodes``, ``links``, ``export``, ``copy``) and register
themselves on :data:`graph`. Each verb body runs inside :func:`errors_to_exit`, so a
``RyvemError`` becomes one line on stderr and an exit code (2 for invalid input, 1 otherwise)
and nothing ever prints a traceback.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from ryvem.application.service import Service
from ryvem.application.session import Session
from ryvem.application.workspace import Minted
from ryvem.backends import GraphRepository, open_session
from ryvem.cli.text import safe
from ryvem.config import Settings, debug_wanted
from ryvem.domain import jsontext
from ryvem.errors import RyvemError

__all__ = [
    "AsOfOpt",
    "JsonOpt",
    "KnownAtOpt",
    "ScopeOpt",
    "State",
    "echo_json",
    "errors_to_exit",
    "fail",
    "graph",
    "state",
]

graph = typer.Typer(
    name="graph",
    help="Read and write the memory graph: nodes, edges, history, search, links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        metavar="T",
        help="What was true at T (valid time), as known now (or at --known-at): an ISO 8601 "
        "date or date-time (UTC without a zone).",
        show_default=False,
    ),
]
KnownAtOpt = Annotated[
    str | None,
    typer.Option(
        "--known-at",
        metavar="K",
        help="What ryvem had recorded by K (system time), as it was known then: an ISO 8601 "
        "date or date-time. With --as-of: what was believed at K about T.",
        show_default=False,
    ),
]
ScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        help="Scope: global, repo:<uuid> or board:<slug>. Default: this git repository's "
        "scope (from ryvem.json), else global.",
    ),
]
ScopeShapeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        help="Only this scope (global, repo:<uuid>, board:<slug>) or shape (repo:*, "
        "board:*). Default: this repository's scope, else global.",
        show_default=False,
    ),
]


class IndexBar:
    """A progress bar on stderr for a one-off index rebuild while a store migrates on open
    (the adapter calls it per batch). Drawn only on a terminal and for a rebuild of at least
    :attr:`LARGE` rows; a small store migrates without a word."""

    LARGE = 10_000

    def __init__(self) -> None:
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._bar is None:
            if total < self.LARGE or not sys.stderr.isatty():
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn(f"rebuilding the {safe(phase)}"), BarColumn(), MofNCompleteColumn(),
                console=Console(stderr=True),
            )
            self._bar.start()
            self._task = self._bar.add_task(phase, total=total)
        self._bar.update(self._task, completed=done, total=total)
        if done >= total:
            self._bar.stop()
            self._bar = None


@dataclass
class State:
    """Per-invocation options (``--backend``, ``--db``) and the session they open lazily."""

    backend: str | None = None
    db: str | None = None
    _session: Session | None = field(default=None, repr=False)
    _reading: bool = field(default=False, repr=False)

    def settings(self) -> Settings:
        return Settings.from_env(backend=self.backend, db=self.db)

    def reading(self) -> State:
        """This verb only reads: a store not created yet is not created by it (it reads as
        an empty one, with a note on stderr). Call before the session is first used."""
        self._reading = True
        return self

    def session(self) -> Session:
        """The application session (no store is opened until a verb needs one)."""
        if self._session is None:
            self._session = open_session(
                self.settings(), progress=IndexBar(), reading=self._reading,
                on_absent=NOTES.append,
            )
        return self._session

    def repo(self) -> GraphRepository:
        return self.session().repo

    def service(self, *, mint: bool = False, scope: str | None = None) -> Service:
        """The service with ``--scope``, else this working directory's default scope.

        ``mint`` lets a writing verb mint the repository's uuid (writing ryvem.json and the
        ``repo`` node) on first touch; reading verbs never write anything. An explicit
        ``scope`` is validated before the store is opened, and the workspace is not read.
        """
        return self.session().service(scope, mint=mint)

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    if not isinstance(obj, State):
        obj = State()
        ctx.find_root().obj = obj
    return obj


NOTES: list[str] = []
"""Lines the verb's session had to say (a store not created yet): said on stderr once the
verb has run (``say_notes``), or added to its error line, which stays one line."""


def say_notes() -> None:
    while NOTES:
        typer.echo(f"note: {safe(NOTES.pop(0))}", err=True)


def say_minted(minted: Minted | None) -> None:
    """The one line a write that minted the repository's identity says (put and import)."""
    if minted is not None:
        typer.echo(safe(f"ryvem: this repository is now {minted.scope}; wrote "
                        f"{minted.identity_file} (commit it so the identity survives a fresh "
                        "clone)"), err=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line on stderr (with any pending note at its end) and return the Exit to
    raise."""
    notes = "".join(f"; {NOTES.pop(0)}" for _ in list(NOTES))
    typer.echo(f"error: {safe(' '.join(str(message + notes).split()))}", err=True)
    return typer.Exit(code)


@contextmanager
def errors_to_exit() -> Iterator[None]:
    """RyvemError → one line + exit code; anything unexpected → one line + exit 1."""
    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except RyvemError as e:
        raise fail(e.message, e.exit_code) from None
    except KeyboardInterrupt:
        raise fail("interrupted", 130) from None
    except BrokenPipeError:
        raise typer.Exit(0) from None
    except Exception as e:  # the last line of defence: never a traceback
        if debug_wanted():
            traceback.print_exc()
        raise fail(f"internal error ({type(e).__name__}): {e}", 1) from None


def echo_json(value: Any) -> None:
    sys.stdout.write(jsontext.dumps(value, indent=2) + "\n")
