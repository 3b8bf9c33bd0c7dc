"""Every shell example in the README, the getting-started page and the guides runs as written.

Each ```bash, ```sh or ```console block is run by the real ``ryvem`` script in one bash shell
per page (so a variable one line sets is seen by the next), with ``set -e`` and a throw-away
data dir, working folder and TMPDIR. A block that cannot run here says why in an HTML comment
right before it: ``<!-- not-run: reason -->``. In a console block only the ``$ `` lines run.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from support.cli import RYVEM

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/getting-started.md",
         *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs/guides").glob("*.md"))]
FENCE = re.compile(r"^```(bash|sh|console)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(\S.*?)\s*-->\s*$")


def blocks(page: str) -> list[tuple[str, str | None]]:
    """Each shell block of the page with its not-run reason (None when it runs)."""
    text = (ROOT / page).read_text()
    out = []
    for m in FENCE.finditer(text):
        before = [line for line in text[: m.start()].splitlines() if line.strip()]
        reason = NOT_RUN.search(before[-1]) if before else None
        body = m.group(2)
        if m.group(1) == "console":
            body = "\n".join(line[2:] for line in body.splitlines() if line.startswith("$ "))
        out.append((body, reason.group(1) if reason else None))
    return out


def test_the_pages_hold_shell_examples_and_most_of_them_run() -> None:
    every = [b for page in PAGES for b in blocks(page)]
    assert len(every) >= 10
    assert sum(reason is None for _, reason in every) >= 3


@pytest.mark.parametrize("page", [p for p in PAGES if any(r is None for _, r in blocks(p))])
def test_every_shell_example_of_the_page_runs_in_a_fresh_data_dir(
    page: str, tmp_path: Path
) -> None:
    assert RYVEM is not None
    script = "\n".join(body for body, reason in blocks(page) if reason is None)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env.update(RYVEM_DATA_DIR=str(tmp_path / "data"), RYVEM_EMBEDDING="off",
               TMPDIR=str(tmp_path), BROWSER="true", HOME=str(tmp_path / "home"))
    env["PATH"] = f"{Path(RYVEM).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{page}: exit {done.returncode}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
