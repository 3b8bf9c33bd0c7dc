"""Every command of the ``ryvem`` CLI explains itself: help text on commands, options, arguments."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from ryvem.cli.app import app
from support.cli import Cli, cli_env, run_main

Command = Any  # typer's vendored click Command or Group


def walk(command: Command, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Command]]:
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from walk(sub, (*path, name))


def all_commands() -> list[tuple[tuple[str, ...], Command]]:
    """Every command reachable from the `ryvem` app, the app itself first."""
    return list(walk(typer.main.get_command(app), ()))


def test_every_command_option_and_argument_has_help_text() -> None:
    """Each command, each of its options and each argument carries a non-empty help text."""
    commands = all_commands()
    names = {path for path, _ in commands}
    for verb in ("put", "get", "history", "retire", "link", "unlink", "search", "stats",
                 "redact", "purge", "audit"):
        assert ("graph", verb) in names
    missing: list[str] = []
    for path, command in commands:
        where = " ".join(("ryvem", *path))
        if not (command.help or "").strip():
            missing.append(f"{where}: the command")
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"{where}: {param.name}")
    assert missing == []


def test_help_prints_for_every_command_and_exits_0(tmp_path: Path) -> None:
    """`--help` on every command prints its usage and first help line and exits 0."""
    env = cli_env(tmp_path / "data")
    env["COLUMNS"] = "200"
    for path, command in all_commands():
        p = run_main([*path, "--help"], cwd=tmp_path, env=env)
        assert p.code == 0, (path, p.err)
        assert "Usage: ryvem" in p.out
        first_line = (command.help or "").strip().splitlines()[0]
        assert " ".join(first_line.split()[:4]) in " ".join(p.out.split()), path


def test_bracketed_words_in_help_texts_are_printed_not_taken_as_markup(tmp_path: Path) -> None:
    """Help is rendered with rich, which reads ``[word]`` as a style tag and drops it: the
    search help said "pip install 'ryvem'" where its text says 'ryvem[semantic]'. Every
    bracketed word of a command's or option's help must reach the printed help."""
    env = cli_env(tmp_path / "data")
    env["COLUMNS"] = "400"
    checked = 0
    for path, command in all_commands():
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        wanted = [m.replace("\\[", "[") for t in texts
                  for m in re.findall(r"\S*\\?\[[^\]\s]+\]\S*", t)]
        if not wanted:
            continue
        p = run_main([*path, "--help"], cwd=tmp_path, env=env)
        shown = " ".join(p.out.replace("│", " ").split())
        for word in wanted:
            assert word.strip(".,;") in shown, (path, word)
            checked += 1
    assert checked >= 2  # 'ryvem[semantic]' and '[[wikilinks]]' at least


def test_an_option_of_ryvem_graph_given_after_the_verb_says_to_put_it_before_the_verb(
    tmp_path: Path,
) -> None:
    """`ryvem graph stats --db x` (or `--backend`, `--db=x`): click says only "No such option:
    --db"; the line goes on to say the option belongs before the verb. An option no command
    has keeps click's plain message."""
    run = Cli(tmp_path, tmp_path / "data")

    for args, option in ((["stats", "--db", "x.db"], "--db"),
                         (["get", "a", "--db=x.db"], "--db"),
                         (["search", "q", "--backend", "sqlite"], "--backend")):
        p = run(*args)
        assert p.code == 2 and p.out == "", p.err
        [line] = p.err.splitlines()
        assert line.startswith(f"error: No such option: {option}"), line
        assert f"give it before the verb: ryvem graph {option}" in line, line
    assert not (tmp_path / "x.db").exists()
    p = run("stats", "--bogus")
    assert p.code == 2 and p.err == "error: No such option: --bogus\n"
    # a verb taking a text: a text that starts with '-' goes after '--', and is found there
    p = run("search", "--dry-run flag", "--scope", "global")
    assert p.code == 2 and p.err == (
        "error: No such option: --dry-run flag (a text that starts with '-' goes after '--': "
        "ryvem graph search [OPTIONS] -- TEXT)\n")
    p = run("search", "--scope", "global", "--", "--dry-run flag")
    assert p.code == 0 and "no matches" in p.err, p.err
    # a question typed without quotes: its words after the first are extra arguments
    p = run("search", "how", "do", "we", "cache")
    assert p.code == 2 and p.err == (
        "error: Got unexpected extra argument(s) (do we cache) (a text of several words goes "
        'in quotes: ryvem graph search "how do we cache")\n')
    p = run("get", "a", "b")
    assert p.code == 2 and p.err == "error: Got unexpected extra argument(s) (b)\n"
