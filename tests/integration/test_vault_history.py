"""The git history import and the watch's batches through the application layer, on both
backends (the CLI tests run the console script on SQLite)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from gitrepo import GIT, Repo
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.application.vault import MAX_PAGE_FILE_BYTES
from ryvem.application.vault_history import import_history
from ryvem.application.vault_watch import VaultSync
from ryvem.domain.timeutil import parse_time
from ryvem.domain.traversal import discovered_refs
from ryvem.gitlog import Commit, GitFolder
from ryvem.safefile import TooLarge

DAYS = ["2024-01-10T09:00:00Z", "2024-02-10T09:00:00Z", "2024-03-10T09:00:00Z"]
BODY = "# Notes\n\n" + "".join(f"Line {i} of a page long enough to be recognised.\n"
                              for i in range(15))


def walk(service: Service, ref: str, at: str | None = None) -> list[str]:
    start = service.get(ref, as_of=at).entity
    return sorted(discovered_refs(start, service.traverse(ref, as_of=at)))


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_history_reads_back_the_same_on_both_backends(service: Service, tmp_path: Path) -> None:
    """Versions at commit times, links as of each time, a rename and a delete; a second
    import writes nothing."""
    r = Repo(tmp_path / "vault")
    r.write("hub.md", "# Hub\n\n[[a]]\n")
    r.write("a.md", "# A\n")
    r.write("b.md", "# B\n")
    r.write("notes.md", BODY)
    ids = [r.commit("one", DAYS[0])]
    r.write("hub.md", "# Hub\n\n[[b]]\n")
    r.git("mv", "notes.md", "journal.md")
    ids.append(r.commit("two", DAYS[1]))
    (r.root / "b.md").unlink()
    ids.append(r.commit("three", DAYS[2]))

    summary = import_history(service, r.root)
    assert (summary.commits, summary.renamed, summary.retired) == (3, 1, 1)
    assert walk(service, "page/hub", "2024-01-20") == ["a"]
    assert walk(service, "page/hub", "2024-02-20") == ["b"]
    assert service.traverse("page/hub") == []  # b was deleted in commit three
    assert [v.valid_from for v in service.history("page/hub")] == [
        parse_time(DAYS[0]), parse_time(DAYS[1]),
    ]
    journal = service.history("page/journal")
    assert [(v.key, v.data["git"]["commit"]) for v in journal] == [
        ("notes", ids[0]), ("journal", ids[1]),
    ]
    assert service.get("page/b").valid_to == parse_time(DAYS[2])

    again = import_history(service, r.root)
    assert (again.commits, again.commits_known, again.created, again.superseded) == (0, 3, 0, 0)


def test_a_watch_batch_applies_saves_renames_and_deletes(service: Service, tmp_path: Path) -> None:
    """VaultSync.apply judges paths by the disk: a temporary file renamed over a page, a page
    renamed, a folder moved, a file deleted (retired with retire_missing)."""
    vault = tmp_path / "vault"
    (vault / "dir").mkdir(parents=True)
    (vault / "page.md").write_text("# Page\n\none\n", encoding="utf-8")
    (vault / "dir" / "inner.md").write_text("# Inner\n\nsee [[page]]\n", encoding="utf-8")
    sync = VaultSync(service, vault, retire_missing=True)
    sync.start()

    tmp = vault / ".page.md.tmp"
    tmp.write_text("# Page\n\ntwo\n", encoding="utf-8")
    os.replace(tmp, vault / "page.md")
    done = sync.apply([str(tmp), str(vault / "page.md")])
    assert (done.written, done.renamed, done.retired) == (["page/page"], [], [])

    os.rename(vault / "page.md", vault / "moved.md")
    done = sync.apply([str(vault / "page.md"), str(vault / "moved.md")])
    assert done.renamed == [("page/page", "page/moved")]
    assert [v.key for v in service.history("page/moved")] == ["page", "page", "moved"]

    os.rename(vault / "dir", vault / "folder")
    done = sync.apply([str(vault / "dir"), str(vault / "folder")])
    assert done.renamed == [("page/dir/inner", "page/folder/inner")]

    (vault / "moved.md").unlink()
    done = sync.apply([str(vault / "moved.md")])
    assert done.retired == ["page/moved"]
    assert not service.get("page/moved").is_current

    (vault / "bad.md").write_bytes(b"\xff")
    done = sync.apply([str(vault / "bad.md")])
    assert [p.path for p in done.problems] == ["bad.md"]
    assert done.written == []


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_commits_in_one_second_and_merged_branches_keep_one_forward_line(
    service: Service, tmp_path: Path
) -> None:
    """Two commits in the same second are two versions a microsecond apart; a merged branch
    arrives as its merge commit (the first-parent line), at the merge's time."""
    r = Repo(tmp_path / "vault")
    r.write("p.md", "# P\n\none\n")
    r.commit("one", DAYS[0])
    r.write("p.md", "# P\n\ntwo\n")
    r.commit("two", DAYS[0])
    r.git("checkout", "-q", "-b", "side")
    r.write("p.md", "# P\n\nthree, on a branch\n")
    r.commit("side", DAYS[1])
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "merge side", "side", date=DAYS[2])
    import_history(service, r.root)
    chain = service.history("page/p")
    t0 = parse_time(DAYS[0])
    assert [(v.valid_from, v.data["git"]["message"]) for v in chain] == [
        (t0, "one"), (t0 + 1, "two"), (parse_time(DAYS[2]), "merge side"),
    ]
    assert chain[-1].body == "# P\n\nthree, on a branch\n"


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_commit_dated_before_its_parent_is_placed_after_it_so_the_past_reads_as_git_shows_it(
    service: Service, tmp_path: Path
) -> None:
    """A sweep found a commit dated before its parent placed only after its own page's
    latest version: as of the parent's time the graph showed the later commit's text, which
    `git show parent:p.md` does not. It is now placed after the commit before it, in one
    run and across runs, and the run says some commits were moved."""
    r = Repo(tmp_path / "vault")
    r.write("p.md", "# P\n\none\n")
    r.commit("one", DAYS[0])
    r.write("q.md", "# Q\n")
    r.commit("q arrives", DAYS[2])
    r.write("p.md", "# P\n\ntwo, from a skewed clock\n")
    r.commit("skewed", DAYS[1])
    summary = import_history(service, r.root)
    assert any("dated before" in p.message for p in summary.problems), summary.problems
    assert service.get("page/p", as_of=DAYS[2]).body == "# P\n\none\n"
    assert [v.valid_from for v in service.history("page/p")] == [
        parse_time(DAYS[0]), parse_time(DAYS[2]) + 1]
    # The same across runs: the line goes on after the newest commit imported.
    r.write("q.md", "# Q\n\nlater\n")
    r.commit("q again", "2024-03-20T09:00:00Z")
    import_history(service, r.root)
    r.write("p.md", "# P\n\nthree, skewed again\n")
    r.commit("skewed again", DAYS[0])
    import_history(service, r.root)
    assert service.get("page/p", as_of="2024-03-20T09:00:00Z").body.endswith("skewed clock\n")
    assert service.history("page/p")[-1].valid_from == parse_time("2024-03-20T09:00:00Z") + 1


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_stop_between_a_commits_writes_and_its_deletes_is_finished_by_the_next_run(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after a commit's versions were written but before its deletes retired: the next
    run retires them, at the commit's time, and adds nothing else."""
    import ryvem.application.vault_history as history

    r = Repo(tmp_path / "vault")
    r.write("keep.md", "# Keep\n")
    r.write("gone.md", "# Gone\n")
    r.commit("one", DAYS[0])
    r.write("keep.md", "# Keep\n\nedited\n")
    (r.root / "gone.md").unlink()
    r.commit("two", DAYS[1])

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(history, "_retire_at", interrupted)
        with pytest.raises(KeyboardInterrupt):
            import_history(service, r.root)
    assert service.get("page/gone").is_current
    again = import_history(service, r.root)
    assert (again.commits, again.created, again.superseded) == (0, 0, 0)
    gone = service.get("page/gone")
    assert gone.valid_to == parse_time(DAYS[1])
    assert len(service.history("page/keep")) == 2


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_committed_page_over_9_mib_is_reported_and_skipped_without_being_read(
    sqlite_repo: SqliteRepository, tmp_path: Path
) -> None:
    """A blob one byte over the page limit (8 MiB of body and 1 MiB of front matter) is not
    read: git's size says so first; the page is reported with its commit and skipped there,
    its later small version imports, and an over-size working-tree file is reported too."""
    limit = MAX_PAGE_FILE_BYTES
    r = Repo(tmp_path / "vault")
    r.write("big.md", "# Big\n\n" + "x" * (limit + 1 - len("# Big\n\n")))
    r.write("small.md", "# Small\n")
    first = r.commit("one", DAYS[0])
    r.write("big.md", "# Big\n\nNow small.\n")
    r.commit("two", DAYS[1])

    with GitFolder(r.root).blob_reader(limit=limit) as read:
        [oid] = [b for p, b in GitFolder(r.root).head_blobs().items() if p == "small.md"]
        assert read(oid) == b"# Small\n"
        old = r.git("rev-parse", f"{first}:big.md").strip()
        with pytest.raises(TooLarge) as caught:
            read(old)
        assert (caught.value.size, caught.value.limit) == (limit + 1, limit)
        assert read(oid) == b"# Small\n"  # the batch stays in step after a refusal

    service = Service(sqlite_repo)
    summary = import_history(service, r.root)
    assert summary.skipped == 1
    [problem] = [p for p in summary.problems if p.path == "big.md"]
    assert f"over {limit} bytes" in problem.message and first[:12] in problem.message
    assert [v.body for v in service.history("page/big")] == ["# Big\n\nNow small.\n"]
    assert service.get("page/small").title == "small"

    r.write("small.md", "# Small\n\n" + "y" * limit)  # uncommitted, over the limit
    again = import_history(service, r.root)
    [problem] = [p for p in again.problems if p.path == "small.md"]
    assert f"over {limit} bytes" in problem.message and again.skipped == 1
    assert [v.title for v in service.history("page/small")] == ["small"]


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_committed_file_name_that_is_not_utf8_is_named_as_such_and_skipped(
    service: Service, tmp_path: Path
) -> None:
    """A sweep read "caf\\udce9.md: title contains a lone surrogate": the problem is the file
    name. It says so, with the commit, and the other pages import."""
    r = Repo(tmp_path / "vault")
    r.write("ok.md", "# OK\n")
    (r.root / os.fsdecode(b"caf\xe9.md")).write_text("# Cafe\n", encoding="utf-8")
    commit = r.commit("two pages", DAYS[0])
    summary = import_history(service, r.root)
    named = [p.message for p in summary.problems if "caf" in p.path]
    assert f"its name is not valid UTF-8 (a page's key and title come from it) in commit " \
           f"{commit[:12]}; skipped" in named, summary.problems
    assert not any("surrogate" in p.message for p in summary.problems)
    assert service.get("page/ok").body == "# OK\n"


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_checkout_with_other_line_endings_adds_no_copy_of_the_committed_page(
    service: Service, tmp_path: Path
) -> None:
    """Under `*.md text eol=crlf` the checked-out file never equals HEAD's blob: every page
    got a second, "now" version saying the same without its commit. A page that says what
    its committed version says is left as the commit wrote it."""
    r = Repo(tmp_path / "vault")
    r.write(".gitattributes", "*.md text eol=crlf\n")
    r.write("a.md", "# A\n\nline one\nline two\n")
    r.commit("one page", DAYS[0])
    (r.root / "a.md").unlink()
    r.git("checkout", "--", "a.md")
    assert b"\r\n" in (r.root / "a.md").read_bytes()
    summary = import_history(service, r.root)
    assert (summary.created, summary.superseded, summary.working_tree) == (1, 0, 0)
    [v] = service.history("page/a")
    assert v.data["git"]["message"] == "one page"
    r.write("a.md", "# A\n\nline one, edited\n")  # a real edit is still written as now
    again = import_history(service, r.root)
    assert (again.superseded, again.working_tree) == (1, 1)


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_a_commit_dated_at_the_epoch_keeps_that_instant_even_after_a_pre_1970_version(
    service: Service, tmp_path: Path
) -> None:
    """Valid time is signed: the import took a time it did not know as 0, so a commit
    dated 1970-01-01T00:00:00Z was placed at …00.000001Z, after a page's 1965 version too."""
    service.write("page", "P", key="p", body="from a letter\n", valid_from="1965-03-01T12:00:00Z")
    r = Repo(tmp_path / "vault")
    r.write("p.md", "# P\n\nat the epoch\n")
    r.write("q.md", "# Q\n")
    r.commit("epoch", "1970-01-01T00:00:00Z")
    summary = import_history(service, r.root)
    assert not any("dated before" in p.message for p in summary.problems), summary.problems
    assert [v.valid_from for v in service.history("page/p")] == [
        parse_time("1965-03-01T12:00:00Z"), 0,
    ]
    assert service.get("page/q").valid_from == 0


PRE_1970 = ["1965-03-01T12:00:00Z", "1969-07-20T20:17:40Z", "1969-12-31T23:59:59Z"]


@pytest.mark.skipif(GIT is None, reason="no git binary")
def test_commits_dated_before_1970_import_at_their_own_signed_instants_in_order(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git refuses a date before 1970 ("invalid date format", and a commit object holding
    one fails fsck with badDateOverflow), so the real log's commit times are moved back to
    1965 and 1969 as it is read. Each commit keeps its instant, in one run and across runs
    (the line goes on from the placed time of the newest commit imported)."""
    r = Repo(tmp_path / "vault")
    r.write("p.md", "# P\n\none\n")
    r.write("gone.md", "# Gone\n")
    first = r.commit("one", DAYS[0])
    r.write("p.md", "# P\n\ntwo\n")
    (r.root / "gone.md").unlink()
    second = r.commit("two", DAYS[1])
    dated = {first: PRE_1970[0], second: PRE_1970[1]}
    real_log = GitFolder.log

    def log_before_1970(folder: GitFolder) -> list[Commit]:
        return [dataclasses.replace(c, time=parse_time(dated[c.id]) // 1_000_000)
                for c in real_log(folder)]

    monkeypatch.setattr(GitFolder, "log", log_before_1970)
    summary = import_history(service, r.root)
    assert not any("dated before" in p.message for p in summary.problems), summary.problems
    chain = service.history("page/p")
    assert [(v.valid_from, v.valid_to) for v in chain] == [
        (parse_time(PRE_1970[0]), parse_time(PRE_1970[1])), (parse_time(PRE_1970[1]), None),
    ]
    assert service.get("page/gone").valid_to == parse_time(PRE_1970[1])
    assert service.get("page/p", as_of="1966-01-01T00:00:00Z").body == "# P\n\none\n"
    r.write("p.md", "# P\n\nthree\n")
    dated[r.commit("three", DAYS[2])] = PRE_1970[2]
    again = import_history(service, r.root)
    assert (again.commits, again.superseded) == (1, 1)
    assert service.history("page/p")[-1].valid_from == parse_time(PRE_1970[2])
