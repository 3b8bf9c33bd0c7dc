"""The "Two clocks" page's examples (docs/concepts/clocks.md, once the README's section),
run verbatim and in order by the real ``ryvem`` script.

Each command line of the section's first two ``sh`` blocks (a backdated decision, a late
retire) runs in one bash shell (so a variable a line sets is seen by the next), in a fresh
git repository with a private data dir; each line's comment says what it must print. The
third block needs a vault with a git history (``~/notes``) and is covered by
``test_import_git_history.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from support.cli import RYVEM

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts" / "clocks.md"


def _section_commands() -> list[str]:
    """The command lines of the backdated-decision and late-retire blocks, in order (a line
    that is only a comment describes the output above it)."""
    text = PAGE.read_text()
    start = text.index("**A backdated decision.**")
    end = text.index("**A vault's history.**")
    blocks = re.findall(r"```sh\n(.*?)```", text[start:end], re.DOTALL)
    assert len(blocks) == 2, blocks
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_the_two_clocks_examples_run_verbatim_in_order_and_print_what_the_page_says(
    tmp_path: Path,
) -> None:
    """Every line exits as its comment says (0 unless "exit 1"), the backdated decision is
    read at the 25th, and the late retire hides the task now but not as known when planned."""
    assert RYVEM is not None
    lines = _section_commands()
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    script = []
    for i, line in enumerate(lines):
        script.append(f"{{ {line}\n}} >{tmp_path}/out.{i} 2>{tmp_path}/err.{i}; "
                      f"echo $? >{tmp_path}/rc.{i}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env["RYVEM_DATA_DIR"] = str(tmp_path / "data")
    env["PATH"] = f"{Path(RYVEM).parent}{os.pathsep}{env.get('PATH', '')}"
    subprocess.run(["bash", "-c", "\n".join(script)], cwd=project, env=env, check=True,
                   timeout=300)
    results = []
    for i, line in enumerate(lines):
        code = int((tmp_path / f"rc.{i}").read_text())
        out = (tmp_path / f"out.{i}").read_text()
        err = (tmp_path / f"err.{i}").read_text()
        expected = 1 if "# exit 1" in line else 0
        assert code == expected, f"{line!r} exited {code}, not {expected}: {err}"
        results.append((shlex.split(line, comments=True), out))
    gets = [out for words, out in results if words[:3] == ["ryvem", "graph", "get"]]
    assert "Cache in process" in gets[0]  # "the decision: it held on the 25th"
    links = [out for words, out in results if words[:3] == ["ryvem", "graph", "links"]]
    assert len(links) == 2
    assert "task/add-redis" not in links[0]  # "no task/add-redis"
    assert "task/add-redis" in links[1]  # "task/add-redis: what the agent still believed"
