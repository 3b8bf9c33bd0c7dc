"""The hexagon holds: import-linter's contracts pass and the domain imports no I/O."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "src" / "ryvem" / "domain"
FORBIDDEN_IN_DOMAIN = {
    "sqlite3", "neo4j", "typer", "mcp", "rich", "numpy", "onnxruntime", "tokenizers",
}
FORBIDDEN_RYVEM_IN_DOMAIN = {
    "ports", "application", "adapters", "backends", "cli", "mcp", "export", "embedding"
}


def test_the_import_linter_contracts_are_all_kept() -> None:
    """lint-imports reports every contract in pyproject.toml kept and none broken."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    assert len(names) >= 2
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    for name in names:
        assert f"{name} KEPT" in report, report
    assert f"Contracts: {len(names)} kept, 0 broken." in report


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, with its line, including imports inside functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against ryvem.domain
                found.append((node.lineno, "ryvem.domain." + (node.module or "")))
            elif node.module:
                found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, str(node.args[0].value)))
    return found


def test_the_domain_source_imports_no_driver_face_or_adapter() -> None:
    """No file under ryvem/domain imports sqlite3, neo4j, typer, mcp, rich or an outer layer."""
    files = sorted(DOMAIN.rglob("*.py"))
    assert len(files) >= 5
    offences = []
    for path in files:
        for line, module in _imports(path):
            top = module.split(".")[0]
            inner = module.split(".")[1] if module.startswith("ryvem.") else ""
            if top in FORBIDDEN_IN_DOMAIN or inner in FORBIDDEN_RYVEM_IN_DOMAIN:
                offences.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert offences == []


def test_the_import_scan_itself_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The AST scan sees plain, from, nested and dynamic imports (so the check above can fail)."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import sqlite3 as db\n"
        "from rich.console import Console\n"
        "def f():\n"
        "    from ryvem.backends import sqlite\n"
        "    importlib.import_module('neo4j')\n"
    )
    assert [m for _, m in _imports(sample)] == [
        "sqlite3", "rich.console", "ryvem.backends", "neo4j"
    ]
