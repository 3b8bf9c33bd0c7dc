"""The generated references (CLI, MCP tools, errors) are what the generator writes from the code
today, and each names every verb, option, tool, argument and public error of the code."""

from __future__ import annotations

import inspect
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
import typer

from ryvem import errors
from ryvem.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
GEN = runpy.run_path(str(ROOT / "scripts" / "gen_reference.py"))


@pytest.mark.parametrize(("page", "render"), [
    ("cli.md", "render"), ("mcp.md", "render_mcp"), ("errors.md", "render_errors")])
def test_each_checked_in_reference_is_what_the_generator_writes_today(
    page: str, render: str
) -> None:
    assert (ROOT / "docs/reference" / page).read_text() == GEN[render](), (
        "run scripts/gen_reference.py")


def _commands(cmd: Any, path: str) -> list[tuple[str, Any]]:
    out = [(path, cmd)]
    for name, sub in getattr(cmd, "commands", {}).items():
        out += _commands(sub, f"{path} {name}")
    return out


def test_every_cli_verb_and_option_appears_in_the_cli_reference() -> None:
    text = (ROOT / "docs/reference/cli.md").read_text()
    commands = _commands(typer.main.get_command(app), "ryvem")
    assert len(commands) > 15
    for path, cmd in commands:
        assert f"`{path}`" in text
        for p in cmd.params:
            for opt in getattr(p, "opts", []):
                assert opt in text, (path, opt)


def test_every_mcp_tool_and_argument_appears_in_the_mcp_reference() -> None:
    text = (ROOT / "docs/reference/mcp.md").read_text()
    tools = GEN["mcp_tools"]()
    names = {t.name for t in tools}
    assert {"memory_write", "memory_search", "memory_purge", "graph_export"} <= names
    for tool in tools:
        assert f"## `{tool.name}`" in text
        for arg in tool.input_schema.get("properties", {}):
            assert f"| `{arg}` |" in text, (tool.name, arg)


def test_every_public_error_appears_in_the_errors_reference_with_its_exit_code() -> None:
    text = (ROOT / "docs/reference/errors.md").read_text()
    public = [getattr(errors, n) for n in errors.__all__]
    classes = [c for c in public if inspect.isclass(c) and issubclass(c, BaseException)]
    assert errors.InvalidInput in classes and errors.StoreDamaged in classes
    for cls in classes:
        assert f"| `{cls.__name__}` | `{cls.__bases__[0].__name__}` | {cls.exit_code} |" in text


def test_the_library_reference_renders_every_public_name_of_ryvem_from_its_docstrings() -> None:
    """mkdocstrings renders what the ``:::`` lines name: ryvem's public functions and the
    error module (whose ``__all__`` is every public error)."""
    import ryvem

    text = (ROOT / "docs/reference/library.md").read_text()
    directives = set(re.findall(r"^::: (\S+)$", text, re.MULTILINE))
    assert "ryvem.errors" in directives
    for name in ryvem.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(ryvem, name)
        assert f"{obj.__module__}.{name}" in directives, name
