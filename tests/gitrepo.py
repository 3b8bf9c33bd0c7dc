"""Building small git repositories in tmp_path with fixed commit dates (test helper).

Git runs with an environment of its own: no global or system config (``GIT_CONFIG_GLOBAL``
points at an empty file in the repository's parent, ``GIT_CONFIG_NOSYSTEM``), a fixed name
and email, and ``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE`` set per commit, so ``~/.gitconfig``
is never read or written and every run builds the same commits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GIT = shutil.which("git")


class Repo:
    """A git repository at ``root`` whose commits carry the dates they are given."""

    def __init__(self, root: Path, author: str = "Ada Lovelace", email: str = "ada@example.org"):
        assert GIT is not None
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        config = root.parent / f".gitconfig-{root.name}"
        config.write_text("", encoding="utf-8")
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_CONFIG_GLOBAL": str(config),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": author,
            "GIT_COMMITTER_EMAIL": email,
            "HOME": str(root.parent),
        }
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, date: str | None = None) -> str:
        env = dict(self.env)
        if date is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
        done = subprocess.run(
            [GIT or "git", *args], cwd=self.root, env=env, capture_output=True, check=True,
            timeout=60,
        )
        return done.stdout.decode()

    def write(self, path: str, text: str | bytes) -> Path:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            full.write_bytes(text)
        else:
            full.write_text(text, encoding="utf-8")
        return full

    def commit(self, message: str, date: str) -> str:
        """Stage everything and commit it at ``date`` (ISO 8601); the new commit's id."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, date=date)
        return self.git("rev-parse", "HEAD").strip()
