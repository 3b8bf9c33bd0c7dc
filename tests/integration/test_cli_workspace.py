"""Repository identity through the real ``ryvem`` console script: ryvem.json and default scopes."""

from __future__ import annotations

import json
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.cli import RYVEM, Cli, Result


@dataclass
class Env:
    data_dir: Path

    def run(self, cwd: Path, *args: str) -> Result:
        return Cli(cwd, self.data_dir)(*args)

    def json(self, cwd: Path, *args: str) -> Any:
        return Cli(cwd, self.data_dir).json(*args)


@pytest.fixture
def env(tmp_path: Path) -> Env:
    """An empty data dir shared by every command of one test."""
    return Env(tmp_path / "data")


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_the_first_put_mints_ryvem_json_once_and_records_the_repo_node(
    env: Env, tmp_path: Path
) -> None:
    """The first write in a git repo writes {"repo": uuid} once and a global `repo` node."""
    repo = git_repo(tmp_path / "my-service")
    r = env.run(repo, "put", "decision", "--title", "Cache in process", "--key", "cache")
    assert r.code == 0, r.err
    assert "ryvem.json" in r.err  # the user is told to commit it
    content = (repo / "ryvem.json").read_bytes()
    identity = json.loads(content)
    assert set(identity) == {"repo"}
    assert str(uuid.UUID(identity["repo"])) == identity["repo"]
    scope = f"repo:{identity['repo']}"
    assert env.json(repo, "get", "cache")["scope"] == scope
    node = env.json(repo, "get", f"repo/{identity['repo']}", "--scope", "global")
    assert (node["kind"], node["title"], node["scope"]) == ("repo", "my-service", "global")
    second = env.run(repo, "put", "task", "--title", "Measure it", "--key", "measure")
    assert second.code == 0 and "ryvem.json" not in second.err
    assert (repo / "ryvem.json").read_bytes() == content
    assert sorted(p.name for p in repo.iterdir()) == [".git", "ryvem.json"]  # no temp files left
    stats = env.json(repo, "stats")
    assert stats["kinds"]["repo"] == 1 and stats["scopes"] == {"global": 1, scope: 2}


def test_a_first_import_in_a_git_repository_says_it_wrote_ryvem_json_as_put_does(
    env: Env, tmp_path: Path
) -> None:
    """Importing `docs/` from inside a repository minted its ryvem.json without a word (put
    says so); now the import says it too, once."""
    repo = git_repo(tmp_path / "my-service")
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n")
    r = env.run(repo / "docs", "import", ".", "--no-embed")
    assert r.code == 0, r.err
    identity = json.loads((repo / "ryvem.json").read_text())
    assert (f"ryvem: this repository is now repo:{identity['repo']}; wrote "
            f"{repo / 'ryvem.json'}") in r.err
    again = env.run(repo / "docs", "import", ".", "--no-embed")
    assert again.code == 0 and "ryvem.json" not in again.err


def test_reads_never_mint_and_see_global_until_the_first_write(env: Env, tmp_path: Path) -> None:
    """Before any write in a git repo, reading verbs use `global` and create no ryvem.json."""
    outside = tmp_path / "plain"
    outside.mkdir()
    env.json(outside, "put", "decision", "--title", "Shared rule", "--key", "rule")
    repo = git_repo(tmp_path / "project")
    assert env.json(repo, "get", "rule")["scope"] == "global"
    assert [h["title"] for h in env.json(repo, "search", "rule")] == ["Shared rule"]
    assert len(env.json(repo, "history", "rule")) == 1
    assert not (repo / "ryvem.json").exists()
    env.json(repo, "put", "decision", "--title", "Local rule", "--key", "local")
    assert (repo / "ryvem.json").exists()
    r = env.run(repo, "get", "rule")  # the repo scope does not hold the global node
    assert r.code == 1 and "repo:" in r.err


def test_a_failing_write_mints_nothing(env: Env, tmp_path: Path) -> None:
    """A put with bad input, or a retire/link in a fresh repo, leaves no ryvem.json behind."""
    repo = git_repo(tmp_path / "project")
    assert env.run(repo, "put", "Bad Kind", "--title", "t").code == 2
    assert env.run(repo, "put", "decision", "--title", "t", "--data", "nope").code == 2
    assert env.run(repo, "retire", "nothing").code == 1
    assert not (repo / "ryvem.json").exists()
    assert env.json(repo, "stats")["current_rows"] == 0


@pytest.mark.parametrize(
    "content",
    [
        b"not json at all",
        b'["repo", "3f2b9c0e-8d7a-4c1e-9b5a-2e4f6a8c0d1b"]',
        b'{"uuid": "3f2b9c0e-8d7a-4c1e-9b5a-2e4f6a8c0d1b"}',
        b'{"repo": "not-a-uuid"}',
        b'{"repo": 42}',
        b"\xff\xfe{}",
    ],
    ids=["not-json", "array", "no-repo", "bad-uuid", "number", "not-utf8"],
)
def test_a_malformed_ryvem_json_exits_2_and_is_never_rewritten(
    env: Env, tmp_path: Path, content: bytes
) -> None:
    """A malformed ryvem.json is one error line (exit 2) for reads and writes, left byte-exact."""
    repo = git_repo(tmp_path / "project")
    (repo / "ryvem.json").write_bytes(content)
    for args in (("put", "decision", "--title", "t", "--key", "k"), ("search", "x")):
        r = env.run(repo, *args)
        assert r.code == 2, (args, r.err)
        assert r.err.startswith("error: ") and r.err.count("\n") == 1
        assert "ryvem.json" in r.err and "Traceback" not in r.err
    assert (repo / "ryvem.json").read_bytes() == content
    assert env.json(repo, "stats")["current_rows"] == 0
    # --scope overrides the workspace, so the file is not even read
    assert env.json(repo, "put", "decision", "--title", "t", "--scope", "global")["scope"] == (
        "global"
    )
    assert (repo / "ryvem.json").read_bytes() == content


def test_outside_a_git_tree_the_default_scope_is_global(env: Env, tmp_path: Path) -> None:
    """With no .git above the working directory, writes go to `global` and no file is written."""
    plain = tmp_path / "plain"
    plain.mkdir()
    rec = env.json(plain, "put", "decision", "--title", "Anywhere", "--key", "anywhere")
    assert rec["scope"] == "global"
    assert list(plain.iterdir()) == []
    assert env.json(plain, "stats")["kinds"] == {"decision": 1}


def test_a_committed_ryvem_json_is_reused_from_any_subfolder_and_its_repo_node_recreated(
    env: Env, tmp_path: Path
) -> None:
    """A clone with ryvem.json keeps its scope from any subfolder; the repo node is recorded."""
    repo = tmp_path / "clone"
    (repo / "src" / "deep").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/clone\n")  # a worktree
    repo_id = "3f2b9c0e-8d7a-4c1e-9b5a-2e4f6a8c0d1b"
    content = json.dumps({"repo": repo_id}).encode()
    (repo / "ryvem.json").write_bytes(content)
    rec = env.json(repo / "src" / "deep", "put", "task", "--title", "Deep work", "--key", "deep")
    assert rec["scope"] == f"repo:{repo_id}"
    assert env.json(repo, "get", "deep")["id"] == rec["id"]
    node = env.json(repo, "get", f"repo/{repo_id}", "--scope", "global")
    assert node["title"] == "clone"
    assert (repo / "ryvem.json").read_bytes() == content


def test_an_explicit_scope_overrides_the_repository_and_mints_nothing(
    env: Env, tmp_path: Path
) -> None:
    """`--scope board:<slug>` writes there; the repository gets no identity from it."""
    repo = git_repo(tmp_path / "project")
    rec = env.json(repo, "put", "task", "--title", "On the board", "--key", "b", "--scope",
                   "board:sprint-12")
    assert rec["scope"] == "board:sprint-12"
    assert not (repo / "ryvem.json").exists()
    assert env.json(repo, "get", "b", "--scope", "board:sprint-12")["id"] == rec["id"]


def test_minting_never_replaces_a_file_another_process_wrote_first(tmp_path: Path) -> None:
    """If ryvem.json appears while minting, the existing identity wins and the file is kept."""
    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service
    from ryvem.application.workspace import mint

    root = git_repo(tmp_path / "raced")
    winner = "11111111-2222-4333-8444-555555555555"
    content = json.dumps({"repo": winner}).encode()
    (root / "ryvem.json").write_bytes(content)  # the other process got there first
    with SqliteRepository.open(tmp_path / "ryvem.db") as repo:
        assert mint(root, Service(repo)) == winner
        node = repo.get_identity(("repo", winner, "global"), None)
        assert node is not None and node.title == "raced"
        assert repo.stats().kinds == {"repo": 1}  # the identity that lost left no node
    assert (root / "ryvem.json").read_bytes() == content
    assert sorted(p.name for p in root.iterdir()) == [".git", "ryvem.json"]


def test_racing_minters_agree_on_one_identity_and_record_one_repo_node(tmp_path: Path) -> None:
    """Four minters at once (each slow to record its node) adopt the first's ryvem.json."""
    import threading
    import time

    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service
    from ryvem.application.workspace import mint

    class SlowToRecord(Service):
        def ensure_repo_node(self, repo_uuid: str, name: str) -> Any:
            time.sleep(0.2)  # widen the window between "no file yet" and "file in place"
            return super().ensure_repo_node(repo_uuid, name)

    root = git_repo(tmp_path / "busy")
    db = tmp_path / "ryvem.db"
    SqliteRepository.open(db).close()
    start = threading.Barrier(4)
    got: list[str] = []

    def one() -> None:
        with SqliteRepository.open(db) as repo:
            start.wait()
            got.append(mint(root, SlowToRecord(repo)))

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    minted = json.loads((root / "ryvem.json").read_text())["repo"]
    assert got == [minted] * 4
    with SqliteRepository.open(db) as repo:
        assert repo.stats().kinds == {"repo": 1}
    assert sorted(p.name for p in root.iterdir()) == [".git", "ryvem.json"]


@pytest.mark.parametrize("plant", ["symlink to /dev/zero", "fifo"])
def test_a_ryvem_json_that_is_not_a_regular_file_is_one_error_line_not_a_hang_or_an_oom(
    env: Env, tmp_path: Path, plant: str
) -> None:
    """A cloned repository can commit `ryvem.json -> /dev/zero`; a FIFO can be left there.
    Every command in that repository (and an MCP server started in it) must answer at once,
    exit 2, rather than read forever or wait for a writer. The child runs under a 2 GiB
    address-space limit and a timeout so a regression fails here instead of hurting the
    machine."""
    import os
    import resource

    repo = git_repo(tmp_path / "project")
    target = repo / "ryvem.json"
    if plant == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    cli = Cli(repo, env.data_dir)
    for args in (("get", "x"), ("put", "decision", "--title", "t")):
        try:
            p = subprocess.run(
                [str(RYVEM), "graph", *args], cwd=repo, env=cli.env, capture_output=True,
                timeout=30, check=False, preexec_fn=cap, stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"ryvem graph {' '.join(args)} hung on a {plant} ryvem.json")
        err = p.stderr.decode()
        assert p.returncode == 2, (args, err)
        assert err.startswith("error: ") and err.count("\n") == 1, err
        assert "ryvem.json" in err and "not a regular file" in err
    assert env.json(tmp_path, "stats")["current_rows"] == 0
