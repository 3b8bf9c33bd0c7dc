"""Storage faults: a read-only file, folder or store; a full store. Clear errors, no damage."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import unavailable
from reliability.harness import RYVEM, Run, one_clean_line, ryvem, service, unprivileged
from reliability.invariants import assert_invariants, snapshot
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.errors import StoreFull


def seeded(db: Path) -> None:
    """A small store, closed cleanly (so no -wal/-shm files remain beside it)."""
    svc = service(db)
    svc.write("decision", "Cache in process", key="cache", body="Redis was overkill.")
    svc.write("decision", "Cache in Redis", key="cache", body="Latency matters after all.")
    svc.repo.close()
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


@contextmanager
def mode(path: Path, bits: int) -> Iterator[None]:
    old = stat.S_IMODE(path.stat().st_mode)
    path.chmod(bits)
    try:
        yield
    finally:
        path.chmod(old)


def reads_work_and_writes_fail(tmp_path: Path, db: Path) -> None:
    before = sorted(p.name for p in db.parent.iterdir())
    prefix = unprivileged()
    got = ryvem("graph", "--db", db, "get", "decision/cache", "--scope", "global", "--json",
                cwd=tmp_path, prefix=prefix)
    assert got.code == 0, got.err
    assert json.loads(got.out)["title"] == "Cache in Redis"
    hist = ryvem("graph", "--db", db, "history", "decision/cache", "--scope", "global", "--json",
                 cwd=tmp_path, prefix=prefix)
    assert hist.code == 0 and len(json.loads(hist.out)) == 2, hist.err
    found = ryvem("graph", "--db", db, "search", "latency", "--scope", "global", "--json",
                  cwd=tmp_path, prefix=prefix)
    assert found.code == 0 and len(json.loads(found.out)) == 1, found.err
    put = ryvem("graph", "--db", db, "put", "decision", "--title", "Cache nowhere",
                "--key", "cache", "--scope", "global", cwd=tmp_path, prefix=prefix)
    line = one_clean_line(put, 1)
    assert "read-only" in line and str(db) in line
    # A redaction of a text nothing holds writes nothing, so a read-only store answers it as a
    # writable one does (exit 0), where it used to refuse the write it would not make.
    absent = ryvem("graph", "--db", db, "redact", "no-such-secret-here", "--scope", "global",
                   cwd=tmp_path, prefix=prefix)
    assert absent.code == 0, absent.err
    assert absent.out.startswith("nothing in global holds that text; nothing was changed")
    # Checking a read-only store (a backup, a colleague's copy) for a pasted secret works; the
    # redaction itself is refused with the same one line and nothing is audited.
    dry = ryvem("graph", "--db", db, "redact", "in Redis", "--scope", "global", "--dry-run",
                "--json", cwd=tmp_path, prefix=prefix)
    assert dry.code == 0, dry.err
    assert (json.loads(dry.out)["versions"], json.loads(dry.out)["dry_run"]) == (1, True)
    real = ryvem("graph", "--db", db, "redact", "in Redis", "--scope", "global",
                 cwd=tmp_path, prefix=prefix)
    line = one_clean_line(real, 1)
    assert "read-only" in line and str(db) in line
    audit = ryvem("graph", "--db", db, "audit", "--json", cwd=tmp_path, prefix=prefix)
    assert audit.code == 0 and json.loads(audit.out) == [], audit.err
    assert sorted(p.name for p in db.parent.iterdir()) == before, "no stray files"


def test_a_read_only_database_file_can_be_read_but_not_written(tmp_path: Path) -> None:
    """A 0444 file: get/history/search work, put fails with one read-only line, no -wal/-shm."""
    db = tmp_path / "store" / "ryvem.db"
    seeded(db)
    before = snapshot(db)
    with mode(db, 0o444):
        reads_work_and_writes_fail(tmp_path, db)
    assert_invariants(db, before=before)
    assert snapshot(db) == before


def test_a_database_in_a_read_only_folder_can_be_read_but_not_written(tmp_path: Path) -> None:
    """A writable file in a 0555 folder (no room for -wal/-shm): reads work, writes fail clearly."""
    db = tmp_path / "store" / "ryvem.db"
    seeded(db)
    before = snapshot(db)
    with mode(db.parent, 0o555):
        reads_work_and_writes_fail(tmp_path, db)
    assert snapshot(db) == before
    assert_invariants(db, before=before)


def test_a_new_store_in_a_read_only_folder_fails_with_one_line_and_creates_nothing(
    tmp_path: Path,
) -> None:
    """`put` with --db in a read-only folder: exit 1, one read-only line, the folder stays empty."""
    folder = tmp_path / "locked"
    folder.mkdir()
    with mode(folder, 0o555):
        put = ryvem("graph", "--db", folder / "ryvem.db", "put", "decision", "--title", "T",
                    "--scope", "global", cwd=tmp_path, prefix=unprivileged())
        assert "read-only" in one_clean_line(put, 1)
    assert list(folder.iterdir()) == []


def test_a_store_opened_read_only_while_a_writer_works_sees_its_commits(tmp_path: Path) -> None:
    """Reading a read-only file that a writer has open (a -wal exists) reads its latest commit."""
    db = tmp_path / "ryvem.db"
    writer = service(db)
    writer.write("decision", "one", key="k")
    reader = Service(SqliteRepository.open(db, read_only=True))
    writer.write("decision", "two", key="k")
    assert reader.get("decision/k").title == "two"
    reader.repo.close()
    writer.repo.close()


def _limit_pages(repo: SqliteRepository, extra: int) -> None:
    """Test hook: cap the file at its current size plus ``extra`` pages (this connection only)."""
    conn = repo._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + extra}")


def test_a_full_store_rolls_the_write_back_and_takes_writes_again_once_there_is_room(
    tmp_path: Path,
) -> None:
    """At max_page_count a supersede fails with StoreFull, leaves no trace, and works later."""
    db = tmp_path / "ryvem.db"
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    old = svc.write("decision", "Cache in process", key="cache", body="small")
    before = snapshot(db)
    _limit_pages(repo, 2)
    big = " ".join(f"word{i}" for i in range(200_000))  # ~1.5 MB: far more than 2 pages
    with pytest.raises(StoreFull) as caught:
        svc.write("decision", "Cache in Redis", key="cache", body=big)
    assert "full" in caught.value.message and "\n" not in caught.value.message
    assert svc.get("decision/cache").id == old.id, "the supersede was rolled back whole"
    assert snapshot(db) == before
    assert_invariants(db, before=before)

    _limit_pages(repo, 100_000)
    new = svc.write("decision", "Cache in Redis", key="cache", body=big)
    assert [v.id for v in svc.history("decision/cache")] == [old.id, new.id]
    assert [h.id for h in svc.search("word199999")] == [new.id]
    repo.close()
    assert_invariants(db, before=before)


def test_a_write_the_file_system_refuses_fails_in_one_line_and_leaves_the_store_intact(
    tmp_path: Path,
) -> None:
    """A file-size limit (RLIMIT_FSIZE) refuses a big put: exit 1, one line, nothing written."""
    if shutil.which("prlimit") is None:
        unavailable("no prlimit to cap the file size")
    db = tmp_path / "ryvem.db"
    seeded(db)
    before = snapshot(db)
    body = " ".join(f"w{i}" for i in range(300_000)).encode()
    args = ("graph", "--db", db, "put", "decision", "--title", "Big", "--key", "big",
            "--scope", "global", "--body-file", "-")
    capped = ["prlimit", f"--fsize={db.stat().st_size}"]
    line = one_clean_line(ryvem(*args, cwd=tmp_path, prefix=capped, input=body), 1)
    assert "disk" in line
    assert snapshot(db) == before
    assert_invariants(db, before=before)
    assert ryvem(*args, cwd=tmp_path, input=body).code == 0, "with room, the same put works"


@pytest.mark.parametrize("verb", [["stats"], ["put", "task", "--title", "x"]])
def test_another_programs_sqlite_database_is_refused_in_one_line_and_left_byte_identical(
    tmp_path: Path, verb: list[str]
) -> None:
    """`--db` pointed at some other application's SQLite file (a typo, a tab-completed
    path) must not receive ryvem's schema nor be switched to WAL: it is not a ryvem store."""
    db = tmp_path / "app.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO orders (total) VALUES (9.5)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    line = one_clean_line(ryvem("graph", "--db", db, *verb, cwd=tmp_path), 1)
    assert "not a ryvem store" in line and str(db) in line
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"], "no -wal/-shm beside it"


def test_an_unreadable_vault_folder_is_reported_and_retire_missing_keeps_its_pages(
    tmp_path: Path,
) -> None:
    """A folder the importer cannot list is not an empty folder: it is a warning, and
    `--retire-missing` must not retire the pages it holds; an unreadable DIR is exit 2."""
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "top.md").write_text("# Top\n", encoding="utf-8")
    (vault / "sub" / "inner.md").write_text("# Inner\n", encoding="utf-8")
    args = ("graph", "import", vault, "--scope", "board:v", "--retire-missing", "--no-embed")
    first = ryvem(*args, cwd=tmp_path)
    assert first.code == 0 and "2 created" in first.out, first.err
    prefix = unprivileged()
    with mode(vault / "sub", 0):
        again = ryvem(*args, cwd=tmp_path, prefix=prefix)
    assert again.code == 0, again.err
    assert "sub/: cannot read folder: Permission denied" in again.err
    assert "0 retired" in again.out
    with mode(vault, 0):
        line = one_clean_line(ryvem(*args, cwd=tmp_path, prefix=prefix), 2)
    assert "cannot read" in line and "Permission denied" in line
    got = ryvem("graph", "get", "page/sub/inner", "--scope", "board:v", "--json", cwd=tmp_path)
    assert got.code == 0 and json.loads(got.out)["valid_to"] is None, got.err


class _DiskFillsDuringVacuum(SqliteRepository):
    """A store whose cleanup after a rewrite fails as a full disk makes VACUUM fail (it
    needs about a second copy of the file): the rewrite itself is a real commit."""

    full = True

    def scrub(self, progress: Any = None) -> None:
        if self.full:
            raise StoreFull(f"{self.location}: database or disk is full")
        super().scrub(progress)


def test_a_cleanup_that_fails_after_a_redaction_says_the_rewrite_is_committed_and_audited(
    tmp_path: Path,
) -> None:
    """The cleanup's error went through the store's usual mapping, which says a full disk
    rolled the transaction back: a person read "nothing was written" about a redaction that
    was committed and audited. It now says what was done and what failed."""
    from ryvem.application.forget import Actor
    from ryvem.errors import CleanupIncomplete

    repo = _DiskFillsDuringVacuum.open(tmp_path / "ryvem.db")
    svc = Service(repo)
    svc.write("task", "Rotate sk-live-0123456789", key="rotate")
    svc.write("task", "Call ACME back", key="acme")
    with pytest.raises(CleanupIncomplete) as caught:
        svc.redact("sk-live-0123456789", reason="leak", actor=Actor("ana", "cli"))
    [entry] = svc.audit()
    assert caught.value.message == (
        f"redacted and audited 1 version(s) and 0 edge(s) (audit {entry.id}); the cleanup did "
        f"not finish: {repo.location}: database or disk is full; until it does, the old text "
        "may remain in the store's free pages or write-ahead log: the cleanup stays pending, "
        "run the same redaction again once the cause is fixed (it finishes the cleanup even "
        "when nothing is left to rewrite)")
    assert svc.get("task/rotate").title == "Rotate [redacted]"
    with pytest.raises(CleanupIncomplete, match=r"^purged and audited 1 version\(s\) and 0 "):
        svc.purge("task/acme", reason="asked to")
    assert svc.get("task/acme").erased == "purged" and len(svc.audit()) == 2
    # Running it again finishes the cleanup, though nothing is left to rewrite (a sweep found
    # the re-run said "nothing was changed" with the text still in the file). Still failing,
    # it says so; once the disk has room, it cleans, audits nothing, and is done.
    assert repo.cleanup_pending()
    with pytest.raises(CleanupIncomplete, match=r"^nothing holds the text any more; the clean"):
        svc.redact("sk-live-0123456789", reason="again", actor=Actor("ana", "cli"))
    repo.full = False
    again = svc.redact("sk-live-0123456789", reason="again")
    assert again.found_nothing and again.finished_cleanup  # and says so
    assert not repo.cleanup_pending() and len(svc.audit()) == 2
    purged = svc.purge("task/acme", reason="again")  # nothing pending: no scrub
    assert purged.found_nothing and not purged.finished_cleanup
    repo.close()


# A real full disk: a small tmpfs in a mount namespace of its own (nothing shows outside it),
# sized so the redaction's rewrite fits and the cleanup's VACUUM (a second copy of the store
# in the write-ahead log) does not; then grown, as a user frees space. The shell runs the real
# CLI three times inside the namespace and leaves each run's output, and the store, outside.
_IN_A_SMALL_DISK = r"""
set -e
mount -t tmpfs -o size="$SIZE" tmpfs "$DISK"
cp "$SRC" "$DISK/ryvem.db"
run() { set +e; "$RYVEM" graph --db "$DISK/ryvem.db" redact "$SECRET" --all-scopes \
        >"$OUT/$1.out" 2>"$OUT/$1.err"; echo $? >"$OUT/$1.rc"; set -e; }
run full
run still-full
mount -o remount,size=64m "$DISK"
run room
cp "$DISK"/ryvem.db* "$OUT/store/"
"""


def _small_disk(tmp_path: Path, src: Path, secret: str) -> dict[str, tuple[int, str, str]]:
    """Each run's (exit code, stdout, stderr) and the store's files in ``tmp_path/out/store``."""
    if shutil.which("unshare") is None:
        unavailable("no unshare to mount a small tmpfs")
    ns = ["unshare", "--mount"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount"]
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    (out / "store").mkdir(parents=True)
    probe = subprocess.run([*ns, "mount", "-t", "tmpfs", "tmpfs", str(disk)],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        unavailable(f"cannot mount a tmpfs here: {probe.stderr.decode(errors='replace')}")
    size = src.stat().st_size * 4 // 3  # room for the rewrite, not for a second copy
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")} | {
        "SIZE": str(size), "DISK": str(disk), "SRC": str(src), "OUT": str(out),
        "RYVEM": str(RYVEM), "SECRET": secret, "RYVEM_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([*ns, "sh", "-c", _IN_A_SMALL_DISK], env=env, cwd=tmp_path,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return {name: (int((out / f"{name}.rc").read_text()), (out / f"{name}.out").read_text(),
                   (out / f"{name}.err").read_text()) for name in ("full", "still-full", "room")}


def test_a_redaction_whose_cleanup_finds_the_disk_full_says_what_was_done_and_what_is_pending(
    tmp_path: Path,
) -> None:
    """Issue 39: with room for the rewrite but not for the cleanup, the message said both
    "redacted and audited" and "nothing was written" (the full disk's usual words, about a
    committed redaction), and a rerun on the still-full disk did not say a cleanup was
    pending. Behaviour was right and stays so: exit 1, and a rerun with room finishes."""
    secret = "sk-live-0123456789"
    src = tmp_path / "seed.db"
    svc = service(src)
    for i in range(2000):
        svc.write("task", f"Task {i}", key=f"t{i}", body=f"filler text {i} " * 40
                  + (secret if i == 5 else ""))
    svc.repo.close()
    runs = _small_disk(tmp_path, src, secret)
    db = tmp_path / "disk" / "ryvem.db"

    code, _, err = runs["full"]
    line = one_clean_line(Run(code, "", err), 1)
    assert line.startswith("error: redacted and audited 1 version(s) and 0 edge(s) (audit "), line
    assert f"; the cleanup did not finish: {db} is full: no room left for the write" in line
    assert "the cleanup stays pending, run the same redaction again" in line
    assert "nothing was written" not in line

    code, _, err = runs["still-full"]
    line = one_clean_line(Run(code, "", err), 1)
    assert line.startswith(
        "error: nothing holds the text any more; the cleanup an earlier redaction or purge "
        f"left pending was tried again and did not finish: {db} is full"), line
    assert "the cleanup stays pending" in line and "nothing was written" not in line

    code, out, err = runs["room"]
    assert code == 0, err
    assert out.startswith("nothing in any scope holds that text; nothing was changed; an "
                          "earlier cleanup of the store's files was finished"), out
    store = tmp_path / "out" / "store"
    held = [p.name for p in store.iterdir() if secret.encode() in p.read_bytes()]
    assert held == [], f"the secret's bytes remain in {held}"
    audit = ryvem("graph", "--db", store / "ryvem.db", "audit", "--json", cwd=tmp_path)
    assert audit.code == 0 and len(json.loads(audit.out)) == 1, audit.err


def test_a_store_deleted_under_an_open_handle_refuses_writes_instead_of_losing_them(
    tmp_path: Path,
) -> None:
    """SQLite writes on into an unlinked file: a server whose store was deleted (or replaced
    by a restore) reported every later write as done, and they vanished when it stopped.
    Writes are refused now, in one line, until the store is opened anew."""
    from ryvem.errors import BackendUnavailable

    db = tmp_path / "data" / "dev.db"
    repo = SqliteRepository.open(db)
    svc = Service(repo)
    svc.write("decision", "Before", key="before")
    for p in db.parent.iterdir():
        p.unlink()
    with pytest.raises(BackendUnavailable) as caught:
        svc.write("decision", "After", key="after")
    assert caught.value.message == (
        f"{db} was deleted or replaced after this process opened it; nothing was written: "
        "start again to open the store at that path anew")
    repo.close()
    replaced = SqliteRepository.open(db)  # a new store there: the handle on it writes
    Service(replaced).write("decision", "Anew", key="anew")
    replaced.close()
