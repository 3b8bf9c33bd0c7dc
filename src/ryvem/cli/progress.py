"""The CLI's one progress bar: rich's, on stderr, drawn only when asked (a terminal, no --json).

:func:`phases` yields ``update(phase, done, total)`` — one bar per phase, in the order they
start — or None when disabled, so a verb passes it straight to the library's ``progress=``.
:func:`steps` is the one-phase form, ``report(done, total)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

__all__ = ["phases", "steps"]

Extra = Literal["count", "eta", "elapsed"]
PhaseUpdate = Callable[[str, int, "int | None"], None]
StepUpdate = Callable[[int, "int | None"], None]


def _columns(label: str, extra: tuple[Extra, ...]) -> list[Any]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    made = {"count": MofNCompleteColumn, "eta": TimeRemainingColumn, "elapsed": TimeElapsedColumn}
    return [TextColumn(label), BarColumn(), *(made[e]() for e in extra)]


@contextmanager
def phases(
    enabled: bool,
    *,
    label: str = "{task.description}",
    extra: tuple[Extra, ...] = ("count",),
    names: Mapping[str, str] | None = None,
    transient: bool = True,
) -> Iterator[PhaseUpdate | None]:
    """A bar per phase while the block runs (``names`` maps a phase to its shown label;
    ``label`` is rich's column format); None when not ``enabled``."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, TaskID

    with Progress(*_columns(label, extra), console=Console(stderr=True),
                  transient=transient) as bar:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int | None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task((names or {}).get(phase, phase), total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


@contextmanager
def steps(
    enabled: bool, label: str, *, extra: tuple[Extra, ...] = ("count",)
) -> Iterator[StepUpdate | None]:
    """One bar named ``label``; None when not ``enabled``."""
    with phases(enabled, extra=extra) as update:
        if update is None:
            yield None
            return

        def report(done: int, total: int | None) -> None:
            update(label, done, total)

        yield report
