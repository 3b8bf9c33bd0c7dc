"""The installed console scripts ``ryvem`` and ``ryvem-mcp``, run as real processes.

Most CLI tests call the app in-process (``support.cli.Cli``); these prove what only a real
process shows: the entry points are installed and wired, exit codes reach the shell, a closed
pipe is not a traceback, and the in-process runner answers exactly as the script does.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ryvem import __version__
from support.cli import RYVEM, RYVEM_MCP, Cli, ProcessCli, assert_fails, cli_env


def script(name: str | None) -> str:
    assert name is not None, "the console script is not installed next to python"
    return name


@pytest.mark.parametrize("name", [RYVEM, RYVEM_MCP], ids=["ryvem", "ryvem-mcp"])
def test_both_scripts_print_their_version_and_help_and_exit_0(
    name: str | None, tmp_path: Path
) -> None:
    env = cli_env(tmp_path / "data")
    for flag, wanted in (("--version", __version__), ("--help", "usage")):
        p = subprocess.run([script(name), flag], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=60, check=False)
        assert p.returncode == 0, p.stderr
        assert wanted in p.stdout.lower(), p.stdout
        assert p.stderr == ""


def test_a_node_written_by_the_script_reads_back_from_it_in_a_second_process(
    tmp_path: Path,
) -> None:
    cli = ProcessCli(tmp_path, tmp_path / "data")
    new_id = cli.ok("put", "decision", "--title", "Cache in process", "--key", "cache",
                    "--scope", "global").out.strip()
    record = cli.json("get", "decision/cache", "--scope", "global")
    assert (record["id"], record["title"]) == (new_id, "Cache in process")
    assert (tmp_path / "data" / "dev.db").is_file()


def test_the_scripts_exit_codes_reach_the_shell_with_one_error_line(tmp_path: Path) -> None:
    cli = ProcessCli(tmp_path, tmp_path / "data")
    assert_fails(cli("put", "decision", "--title", ""), 2, "title")  # invalid input
    assert_fails(cli("frobnicate"), 2, "No such command")  # usage
    assert_fails(cli("get", "decision/none", "--scope", "global"), 1)  # no such node
    shell = subprocess.run(["sh", "-c", f'"{script(RYVEM)}" graph put decision --title ""; '
                            'echo "exit=$?"'], capture_output=True, text=True, env=cli.env,
                           cwd=tmp_path, timeout=60, check=False)
    assert shell.stdout == "exit=2\n"


def test_output_into_a_pipe_closed_early_is_exit_0_without_a_traceback(tmp_path: Path) -> None:
    """`ryvem graph search … | head -1`: the reader goes away after one line; the writer
    stops quietly instead of printing BrokenPipeError."""
    cli = Cli(tmp_path, tmp_path / "data")  # the store is filled in-process, read by the script
    body = "pipe " * 2000
    for i in range(30):
        cli.ok("put", "page", "--title", f"Pipe {i}", "--body", body, "--scope", "global")
    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: the first write fails with EPIPE
    with os.fdopen(writer, "wb") as out:
        p = subprocess.run([script(RYVEM), "graph", "search", "pipe", "--scope", "global",
                            "--json"], stdout=out, stderr=subprocess.PIPE, env=cli.env,
                           cwd=tmp_path, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert b"Traceback" not in p.stderr and b"BrokenPipe" not in p.stderr, p.stderr


@pytest.mark.parametrize("args", [
    ["--version"],
    ["graph"],
    ["graph", "frobnicate"],
    ["graph", "put", "decision", "--title", ""],
    ["graph", "put", "decision", "--title", "Cache", "--data", "[1, 2"],
    ["graph", "stats", "--db", "x.db"],
    ["graph", "search", "how", "do", "we", "cache"],
    ["graph", "get", "decision/none", "--scope", "global"],
    ["graph", "search", "anything", "--limit", "0"],
    ["graph", "stats", "--json"],
    ["graph", "put", "--help"],
], ids=lambda a: " ".join(a) or "none")
def test_the_in_process_runner_answers_exactly_as_the_console_script(
    args: list[str], tmp_path: Path
) -> None:
    """Same exit code, same stdout, same stderr, from the same empty data dir."""
    from support.cli import run_main

    env = cli_env(tmp_path / "data")
    env["COLUMNS"] = "100"
    p = subprocess.run([script(RYVEM), *args], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=60, check=False)
    inside = run_main(args, cwd=tmp_path, env=env)
    assert (inside.code, inside.out, inside.err) == (p.returncode, p.stdout, p.stderr)
    assert not (tmp_path / "data").exists()  # none of these writes


def test_the_in_process_runner_sees_only_its_own_environment_and_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A RYVEM_* variable of the test process does not reach the call; the call's own env and
    cwd do, and both are back as they were afterwards."""
    monkeypatch.setenv("RYVEM_BACKEND", "neo4j")  # would fail: no such server credentials
    monkeypatch.delenv("RYVEM_DATA_DIR", raising=False)
    before = os.getcwd()
    cli = Cli(tmp_path, tmp_path / "data")
    assert cli.json("stats")["location"] == str(tmp_path / "data" / "dev.db")
    cli.ok("put", "page", "--title", "Here", "--key", "here")  # the default scope: global
    assert cli.json("get", "page/here")["scope"] == "global"
    assert os.getcwd() == before and os.environ["RYVEM_BACKEND"] == "neo4j"
    assert "RYVEM_DATA_DIR" not in os.environ
