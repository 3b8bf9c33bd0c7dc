"""``ryvem graph import DIR --git-history``, run as the real console script on repositories
the tests build in tmp_path with fixed commit dates (and on this checkout's own docs/)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest

from conftest import unavailable
from gitrepo import GIT, Repo
from support.cli import Cli, assert_fails

REPO_ROOT = Path(__file__).resolve().parents[2]
C1, C2, C3 = "2024-01-10T09:00:00Z", "2024-02-10T09:00:00Z", "2024-03-10T09:00:00Z"
SHOWN = {C1: "2024-01-10T09:00:00.000000Z", C2: "2024-02-10T09:00:00.000000Z",
         C3: "2024-03-10T09:00:00.000000Z"}
PLAN = ["# Plan\n\nFirst we ask [[alpha]].\n", "# Plan\n\nNow we ask [[beta]].\n",
        "# Plan\n\nWe ask [[beta]], and alpha is gone.\n"]
# Long enough that git's rename detection pairs the two paths.
JOURNAL = "# Journal\n\n" + "".join(f"Entry {i}: nothing much happened today.\n" for i in range(20))

if GIT is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("no git binary (required under CI=true)")
    pytest.skip("no git binary", allow_module_level=True)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Repo, list[str]]:
    """A vault with three commits at fixed past dates: the plan's link moves from alpha to
    beta, a journal is renamed, and alpha is deleted."""
    r = Repo(tmp_path / "vault")
    r.write("plan.md", PLAN[0])
    r.write("alpha.md", "# Alpha\n")
    r.write("beta.md", "# Beta\n")
    r.write("notes/old-name.md", JOURNAL)
    r.write("readme.txt", "not a page\n")
    ids = [r.commit("Start the plan\n\nWith alpha as the first stop.", C1)]
    r.write("plan.md", PLAN[1])
    r.git("mv", "notes/old-name.md", "notes/new-name.md")
    ids.append(r.commit("Ask beta instead", C2))
    r.write("plan.md", PLAN[2])
    (r.root / "alpha.md").unlink()
    ids.append(r.commit("Drop alpha", C3))
    return r, ids


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path, tmp_path / "data")


def test_the_history_reads_as_it_was_between_commits(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """Issue 16's Done-when: as of a time between commits 1 and 2 the page has commit 1's
    text and links; history lists one version per commit at the commit times; known at a
    time before the import none of it is there; a second import adds nothing."""
    r, ids = repo
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    first = cli.json("import", str(r.root), "--git-history")
    assert first["git"] == {"commits": 3, "already_imported": 0, "working_tree": 0}
    assert cli.ok("links", "page/plan", "--as-of", "2024-01-20").lines == ["page/alpha"]
    assert cli.ok("links", "page/plan", "--as-of", "2024-02-20").lines == ["page/beta"]
    assert cli.ok("links", "page/plan").lines == ["page/beta"]
    assert cli.json("get", "page/plan", "--as-of", "2024-01-20")["body"] == PLAN[0]
    assert cli.json("get", "page/plan", "--as-of", "2024-02-20")["body"] == PLAN[1]

    chain = cli.json("history", "page/plan")
    assert [v["body"] for v in chain] == PLAN
    assert [v["valid_from"] for v in chain] == [SHOWN[C1], SHOWN[C2], SHOWN[C3]]
    assert [v["valid_to"] for v in chain] == [SHOWN[C2], SHOWN[C3], None]
    assert [v["data"]["git"]["commit"] for v in chain] == ids
    # Valid time is the commits'; system time is when ryvem learned them: this import.
    assert all(v["recorded_at"] >= started for v in chain), chain
    assert chain[0]["data"]["git"] == {
        "commit": ids[0], "author": "Ada Lovelace", "email": "ada@example.org",
        "authored": "2024-01-10T09:00:00+00:00", "committed": "2024-01-10T09:00:00+00:00",
        "message": "Start the plan\n\nWith alpha as the first stop.",
    }

    # Known at a moment before the import ran, none of the history is there yet.
    assert_fails(cli("get", "page/plan", "--known-at", started), 1, "no node")
    assert_fails(cli("get", "page/plan", "--as-of", "2024-01-20", "--known-at", started), 1)
    assert_fails(cli("links", "page/plan", "--as-of", "2024-01-20", "--known-at", started), 1)
    assert cli.json("search", "ask", "--known-at", started) == []
    assert cli.json("search", "ask", "--as-of", "2024-01-20", "--known-at", started) == []
    later = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert cli.ok("links", "page/plan", "--as-of", "2024-01-20", "--known-at", later).lines == [
        "page/alpha"
    ]

    stats = cli.json("stats")
    again = cli.json("import", str(r.root), "--git-history")
    assert again["git"] == {"commits": 0, "already_imported": 3, "working_tree": 0}
    assert (again["created"], again["superseded"], again["retired"]) == (0, 0, 0)
    assert cli.json("stats") == stats


def test_a_rename_git_reports_keeps_one_node(repo: tuple[Repo, list[str]], cli: Cli) -> None:
    """The renamed journal is one node whose history spans both paths; the old path reads
    as it was before the rename."""
    r, ids = repo
    cli.ok("import", str(r.root), "--git-history")
    chain = cli.json("history", "page/notes/new-name")
    assert [(v["key"], v["valid_from"]) for v in chain] == [
        ("notes/old-name", SHOWN[C1]), ("notes/new-name", SHOWN[C2]),
    ]
    assert chain[0]["entity"] == chain[1]["entity"]
    assert chain[1]["data"]["git"]["commit"] == ids[1]
    old = cli.json("get", "page/notes/old-name", "--as-of", "2024-01-20")
    assert old["key"] == "notes/old-name" and old["body"] == JOURNAL


@pytest.mark.parametrize("dates", [(C1, C2, C3), (C1, C1, C1)], ids=["apart", "one-second"])
def test_a_new_page_at_a_renamed_pages_old_path_is_a_second_node(
    tmp_path: Path, cli: Cli, dates: tuple[str, str, str]
) -> None:
    """A page moved away and a new page later at its old path: two nodes, the moved one
    keeps its two-key history, the new one starts after the move (even when git dates all
    three commits in one second)."""
    r = Repo(tmp_path / "vault")
    r.write("notes/plan.md", JOURNAL)
    r.commit("Start", dates[0])
    (r.root / "archive").mkdir()
    r.git("mv", "notes/plan.md", "archive/plan.md")
    r.commit("Archive the plan", dates[1])
    r.write("notes/plan.md", "# New plan\n\nSomething else entirely.\n")
    r.commit("A new plan", dates[2])
    cli.ok("import", str(r.root), "--git-history")
    moved = cli.json("history", "page/archive/plan")
    assert [v["key"] for v in moved] == ["notes/plan", "archive/plan"]
    [new] = cli.json("history", "page/notes/plan")
    assert new["body"].startswith("# New plan") and new["entity"] != moved[0]["entity"]
    assert new["valid_from"] > moved[1]["valid_from"]
    assert cli.json("get", "page/notes/plan", "--as-of", moved[0]["valid_from"])["body"] == JOURNAL


def test_a_page_deleted_in_a_commit_is_retired_at_its_time(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """Deleting a file in a commit retires the page then; before that it read as usual."""
    r, ids = repo
    cli.ok("import", str(r.root), "--git-history")
    [alpha] = cli.json("history", "page/alpha")
    assert (alpha["valid_from"], alpha["valid_to"]) == (SHOWN[C1], SHOWN[C3])
    assert alpha["retired_reason"] == f"deleted in commit {ids[2]}"
    assert cli.ok("links", "page/plan", "--backlinks").lines == []
    assert cli.ok("links", "page/alpha", "--backlinks", "--as-of", "2024-01-20").lines == [
        "page/plan"
    ]
    assert "readme" not in cli.ok("search", "--limit", "50").out


def test_running_it_again_adds_only_the_new_commits(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """A commit made after an import is the only thing the next import adds."""
    r, _ = repo
    cli.ok("import", str(r.root), "--git-history")
    r.write("beta.md", "# Beta\n\nNow with a body.\n")
    c4 = r.commit("Beta gets a body", "2024-04-10T09:00:00Z")
    again = cli.json("import", str(r.root), "--git-history")
    assert again["git"] == {"commits": 1, "already_imported": 3, "working_tree": 0}
    assert (again["created"], again["superseded"]) == (0, 1)
    chain = cli.json("history", "page/beta")
    assert [v["data"]["git"]["commit"] for v in chain][-1] == c4
    assert chain[-1]["valid_from"] == "2024-04-10T09:00:00.000000Z"
    # Links are those of every page the vault holds, as the plain import counts them: a run
    # that wrote nothing said "0 resolved" though plan still links to beta.
    idle = cli.json("import", str(r.root), "--git-history")
    assert idle["git"]["commits"] == 0 and idle["created"] == idle["superseded"] == 0
    assert idle["links"] == again["links"] == cli.json("import", str(r.root))["links"]
    assert idle["links"]["resolved"] >= 1


def test_uncommitted_changes_import_as_now_and_only_once(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """A page edited but not committed, and one never committed, are written at the present
    time with the plain import's data; a re-run writes nothing more."""
    r, _ = repo
    r.write("plan.md", "# Plan\n\nA draft nobody committed.\n")
    r.write("ideas.md", "# Ideas\n\nUntracked, see [[plan]].\n")
    first = cli.json("import", str(r.root), "--git-history")
    assert first["git"]["working_tree"] == 2
    chain = cli.json("history", "page/plan")
    assert len(chain) == 4
    assert chain[-1]["body"] == "# Plan\n\nA draft nobody committed.\n"
    assert "git" not in chain[-1]["data"]
    assert chain[-1]["valid_from"] > "2026"  # now, not a commit's time
    assert cli.json("get", "page/ideas")["data"] == {}
    stats = cli.json("stats")
    again = cli.json("import", str(r.root), "--git-history")
    assert (again["created"], again["superseded"], again["unchanged"]) == (0, 0, 2)
    assert cli.json("stats") == stats


def test_a_draft_thrown_away_and_a_file_brought_back_are_the_graphs_now_on_the_next_run(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """A sweep found the working tree compared with HEAD, not with the graph: a draft an
    earlier run wrote stayed current after `git checkout -- plan.md`, and a page retired
    while its file was gone stayed retired when the file came back ("0 pages differ from
    HEAD"). After a run the graph's now is the folder's."""
    r, _ = repo
    r.write("plan.md", "# Plan\n\nA draft nobody committed.\n")
    (r.root / "beta.md").unlink()
    cli.ok("import", str(r.root), "--git-history", "--retire-missing")
    assert cli.json("get", "page/plan")["body"] == "# Plan\n\nA draft nobody committed.\n"
    assert cli.json("get", "page/beta")["retired_reason"] == "its file is no longer in the vault"
    r.git("checkout", "-q", "--", "plan.md", "beta.md")
    again = cli.json("import", str(r.root), "--git-history", "--retire-missing")
    assert again["git"]["working_tree"] == 2 and again["retired"] == 0
    assert cli.json("get", "page/plan")["body"] == PLAN[2]
    beta = cli.json("get", "page/beta")
    assert (beta["body"], beta["retired_reason"]) == ("# Beta\n", None)
    idle = cli.json("import", str(r.root), "--git-history", "--retire-missing")
    assert (idle["created"], idle["superseded"], idle["retired"]) == (0, 0, 0)


def test_a_commit_touching_no_page_is_never_counted_again_on_a_later_run(
    repo: tuple[Repo, list[str]], cli: Cli
) -> None:
    """A commit that changes only an image writes no version; it was counted as a new
    commit on every re-import, since no version named it."""
    r, _ = repo
    first = cli.json("import", str(r.root), "--git-history")
    (r.root / "diagram.png").write_bytes(b"\x89PNG not really")
    r.commit("Add a picture", "2024-04-11T09:00:00Z")
    again = cli.json("import", str(r.root), "--git-history")
    assert again["git"]["commits"] == 0
    assert again["git"]["already_imported"] == first["git"]["commits"]
    assert (again["created"], again["superseded"]) == (0, 0)
    assert cli.json("import", str(r.root), "--git-history")["git"]["commits"] == 0


def test_a_vault_in_a_sub_folder_sees_only_its_own_files(tmp_path: Path, cli: Cli) -> None:
    """Keys are relative to DIR; commits that touched nothing below it are not counted."""
    r = Repo(tmp_path / "project")
    r.write("src/main.py", "print('hi')\n")
    r.write("docs/guide.md", "# Guide\n")
    r.write("top.md", "# Top\n")
    r.commit("start", C1)
    r.write("src/main.py", "print('bye')\n")
    r.commit("code only", C2)
    r.write("docs/guide.md", "# Guide\n\nMore.\n")
    r.commit("docs", C3)
    summary = cli.json("import", str(r.root / "docs"), "--git-history")
    assert summary["git"]["commits"] == 2
    assert [v["valid_from"] for v in cli.json("history", "page/guide")] == [
        SHOWN[C1], SHOWN[C3],
    ]
    assert_fails(cli("get", "page/top"), 1, "no node")


def test_the_repository_is_only_read(repo: tuple[Repo, list[str]], cli: Cli) -> None:
    """Nothing in the vault or its .git changes: not a file, not a timestamp."""
    r, _ = repo
    r.write("plan.md", "# Plan\n\nuncommitted\n")

    def snapshot() -> dict[str, tuple[int, int]]:
        return {
            str(p.relative_to(r.root)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(r.root.rglob("*"))
        }

    before = snapshot()
    cli.ok("import", str(r.root), "--git-history")
    assert snapshot() == before


def test_a_folder_outside_git_is_one_line_and_exit_2(tmp_path: Path, cli: Cli) -> None:
    """No repository around DIR: a usage error naming it, nothing written."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("# A\n", encoding="utf-8")
    assert_fails(cli("import", str(plain), "--git-history"), 2, "not inside a git working tree")
    assert cli.json("stats")["current_rows"] == 0


def test_a_missing_git_binary_is_one_line_and_exit_2(
    repo: tuple[Repo, list[str]], cli: Cli, tmp_path: Path
) -> None:
    """Without git on PATH the import says so and writes nothing."""
    r, _ = repo
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli.env["PATH"] = str(empty)
    assert_fails(cli("import", str(r.root), "--git-history"), 2, "needs the git binary")


def test_this_repositorys_own_docs_import_with_their_history(cli: Cli) -> None:
    """docs/ of this checkout: each page has one version per first-parent commit that
    touched its file, in order (a shallow clone has no history to check: skipped locally,
    a failure under CI=true, whose checkout is a full clone)."""
    docs = REPO_ROOT / "docs"

    def git(*args: str) -> str:
        return subprocess.run(
            [GIT or "git", "-C", str(REPO_ROOT), *args], capture_output=True, check=False,
            timeout=60, env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        ).stdout.decode().strip()

    if git("rev-parse", "--is-inside-work-tree") != "true":
        unavailable("this checkout is not a git working tree")
    if git("rev-parse", "--is-shallow-repository") == "true":
        unavailable("this checkout is a shallow clone: docs/ has no history to import")
    summary = cli.json("import", str(docs), "--git-history", "--scope", "board:docs")
    log = git("log", "--first-parent", "--format=%H", "HEAD", "--", ":(glob)docs/**/*.md",
              ":(exclude,glob)docs/**/.*/**").split()
    assert summary["git"]["commits"] == len(log) > 0
    touched = git("log", "--first-parent", "--reverse", "--format=%H", "HEAD", "--",
                  "docs/design.md").split()
    chain = cli.json("history", "page/design", "--scope", "board:docs")
    commits = [v["data"]["git"]["commit"] for v in chain if "git" in v["data"]]
    assert commits == touched
    dirty = git("status", "--porcelain", "--", "docs/design.md") != ""
    assert len(chain) == len(touched) + (1 if dirty else 0)
    again = cli.json("import", str(docs), "--git-history", "--scope", "board:docs")
    assert (again["git"]["commits"], again["created"], again["superseded"]) == (0, 0, 0)
