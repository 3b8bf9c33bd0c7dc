"""``ryvem-mcp``'s own arguments (argparse in ``ryvem.mcp.command``): any order, nothing
dropped, a bad one is ``error: …`` and exit 2. It parsed argv by hand, and ``--allow-purge``
was dropped when it followed ``--version`` or came before ``graph``."""

from __future__ import annotations

import pytest

from ryvem.mcp.command import parse


@pytest.mark.parametrize("args", [
    ["--allow-purge", "--export-dir", "out"],
    ["--export-dir", "out", "--allow-purge"],
    ["--export-dir=out", "--allow-purge"],
])
def test_the_server_options_are_read_in_any_order(args: list[str]) -> None:
    ns = parse(args)
    assert (ns.allow_purge, ns.export_dir, ns.graph) == (True, "out", None)


def test_everything_after_graph_is_the_clis_untouched() -> None:
    assert parse(["graph", "put", "--allow-purge", "x"]).graph == ["put", "--allow-purge", "x"]
    assert parse(["--export-dir", "graph"]).export_dir == "graph"  # a folder named graph


@pytest.mark.parametrize(("args", "said"), [
    (["--allow-purge", "graph", "purge", "x"], "the server's options"),
    (["--version", "graph"], "the server's options"),
    (["serve-http"], "unknown argument 'serve-http'"),
    (["--allow-purges"], "unknown argument '--allow-purges'"),
    (["--export-dir"], "expected one argument"),
    (["--export-dir", ""], "--export-dir needs a folder"),
])
def test_a_bad_or_dropped_option_is_one_error_line_and_exit_2(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(args)
    assert exited.value.code == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("error: ") and said in first
