"""Timing helpers and the report: one table, printed with rich, written as JSON and markdown."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of values."""
    if not values:
        return math.nan
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def latencies(fn: Callable[[Any], Any], args: Iterable[Any]) -> list[float]:
    """Seconds per call of fn(arg), one call per arg."""
    out = []
    clock = time.perf_counter
    for a in args:
        t0 = clock()
        fn(a)
        out.append(clock() - t0)
    return out


def paired(fns: dict[str, Callable[[Any], Any]], args: Iterable[Any]) -> dict[str, list[float]]:
    """Seconds per call of each fn(arg), the fns taking turns on every arg (the first
    named first): a spell of load on the machine then falls on every fn alike, so a
    ratio between them measures them, not the moment each ran."""
    out: dict[str, list[float]] = {name: [] for name in fns}
    clock = time.perf_counter
    for a in args:
        for name, fn in fns.items():
            t0 = clock()
            fn(a)
            out[name].append(clock() - t0)
    return out


@dataclass
class Figure:
    """A measured figure: latencies (p50/p95 in ms) or a rate (per second)."""

    label: str
    p50_ms: float | None = None
    p95_ms: float | None = None
    rate: float | None = None
    unit: str = ""
    n: int = 0
    note: str = ""

    @classmethod
    def of_latencies(cls, label: str, secs: list[float], note: str = "") -> Figure:
        return cls(label, p50_ms=pct(secs, 50) * 1e3, p95_ms=pct(secs, 95) * 1e3, n=len(secs),
                   note=note)

    @classmethod
    def of_rate(cls, label: str, count: float, secs: float, unit: str, note: str = "") -> Figure:
        return cls(label, rate=count / secs if secs > 0 else math.nan, unit=unit, n=int(count),
                   note=note)

    def show(self) -> str:
        if self.rate is not None:
            return f"{_num(self.rate)} {self.unit}"
        if self.p50_ms is None:
            return self.note or "—"
        return f"{_ms(self.p50_ms)} / {_ms(self.p95_ms)}"


@dataclass
class Row:
    """One line of the table: ryvem's figure, the bound's, and their ratio against a target.

    ``kind`` is "ratio_max" (ryvem p95 / bound p95 must be <= target), "ratio_min"
    (ryvem rate / bound rate, or bound / ryvem time, must be >= target), "abs_max_ms" /
    "abs_max_s" (an absolute figure, set by the section, must be <= target) or "info".
    """

    section: str
    name: str
    ryvem: Figure
    bound: Figure | None = None
    kind: str = "info"
    target: float | None = None
    ratio: float | None = None
    met: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def judge(self) -> Row:
        b, r = self.bound, self.ryvem
        if b is None:
            return self
        if r.rate is not None and b.rate is not None:
            self.ratio = r.rate / b.rate if b.rate else math.nan
        elif r.p95_ms is not None and b.p95_ms is not None:
            if self.kind == "ratio_min":  # speed-up: bound time / ryvem time
                self.ratio = b.p95_ms / r.p95_ms if r.p95_ms else math.inf
            else:
                self.ratio = r.p95_ms / b.p95_ms if b.p95_ms else math.nan
        if self.ratio is not None and self.target is not None and not math.isnan(self.ratio):
            self.met = (self.ratio <= self.target) if self.kind == "ratio_max" else (
                self.ratio >= self.target)
        return self

    def target_text(self) -> str:
        if self.target is None:
            return ""
        if self.kind in ("abs_max_ms", "abs_max_s"):
            return f"<= {self.target:g} {self.kind[-2:].lstrip('_')}"
        if self.kind == "ratio_max":
            return f"<= {self.target:g}x"
        return f">= {self.target:g}x" if self.target >= 1 else f">= {self.target:.0%}"

    def ratio_text(self) -> str:
        if self.ratio is None or math.isnan(self.ratio):
            return ""
        if self.kind in ("abs_max_ms", "abs_max_s"):  # an absolute figure, not a ratio
            return f"{self.ratio:,.1f} {self.kind[-2:].lstrip('_')}"
        if self.kind == "ratio_min" and self.target is not None and self.target < 1:
            return f"{self.ratio:.0%}"
        return f"{self.ratio:,.2f}x" if self.ratio < 100 else f"{self.ratio:,.0f}x"

    def verdict(self) -> str:
        return {True: "met", False: "MISSED", None: ""}[self.met]


def _num(x: float) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _ms(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "—"
    if x < 1:
        return f"{x:.3f}"
    if x < 100:
        return f"{x:.1f}"
    return f"{x:,.0f}"


COLUMNS = ("section", "figure", "ryvem (p50 / p95 ms, or rate)", "bound", "bound figure",
           "ratio", "target", "verdict")


def cells(row: Row) -> list[str]:
    return [
        row.section,
        row.name + (f" — {row.ryvem.note}" if row.ryvem.note and row.ryvem.rate is None
                    and row.ryvem.p50_ms is not None else ""),
        row.ryvem.show(),
        row.bound.label if row.bound else "",
        row.bound.show() if row.bound else "",
        row.ratio_text(),
        row.target_text(),
        row.verdict(),
    ]


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |")
    return "\n".join(lines)


def print_table(rows: list[Row], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for c in COLUMNS:
        table.add_column(c, overflow="fold")
    for r in rows:
        style = "red" if r.met is False else None
        table.add_row(*cells(r), style=style)
    Console(width=200).print(table)


def write_report(out_dir: Path, stem: str, report: dict[str, Any], rows: list[Row],
                 title: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    report = dict(report)
    report["rows"] = [
        {**asdict(r), "ratio": r.ratio, "target_text": r.target_text(), "verdict": r.verdict()}
        for r in rows
    ]
    jpath = out_dir / f"{stem}.json"
    jpath.write_text(json.dumps(clean(report), indent=2, default=_json_default,
                                allow_nan=False) + "\n")
    mpath = out_dir / f"{stem}.md"
    mpath.write_text(f"# {title}\n\n" + markdown_table(rows) + "\n")
    return jpath, mpath


def _json_default(o: Any) -> Any:
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)


def clean(x: Any) -> Any:
    """NaN and infinities become null, so the JSON is strict."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if isinstance(x, Path):
        return str(x)
    return x


class Skip(Exception):
    """A section that cannot run here (no Neo4j, no Chromium): reported, not failed."""
