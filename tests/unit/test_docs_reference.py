"""The checked-in CLI reference is regenerated from the typer app and must match it."""

from __future__ import annotations

import runpy
from pathlib import Path

import typer

from ryvem.cli.app import app

ROOT = Path(__file__).resolve().parents[2]


def test_the_checked_in_cli_reference_is_what_the_generator_writes_today() -> None:
    render = runpy.run_path(str(ROOT / "scripts" / "gen_reference.py"))["render"]
    assert (ROOT / "docs/reference/cli.md").read_text() == render(), "run scripts/gen_reference.py"


def test_every_cli_verb_and_option_appears_in_the_cli_reference() -> None:
    text = (ROOT / "docs/reference/cli.md").read_text()
    graph = typer.main.get_command(app).commands["graph"]  # type: ignore[attr-defined]
    for name, cmd in graph.commands.items():
        assert f"`ryvem graph {name}`" in text
        for p in cmd.params:
            for opt in getattr(p, "opts", []):
                assert opt in text
