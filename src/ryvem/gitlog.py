"""Reading a folder's git history through the ``git`` binary (the vault's ``--git-history``).

Every call runs ``git`` directly (never a shell) with a fixed argument list and reads
NUL-separated output, so no path, name or message is ever parsed as anything but data. The
repository is only read: ``GIT_OPTIONAL_LOCKS=0`` keeps git from refreshing the index, no
command that writes is run, and the user's hooks, pagers, external diff and text conversion
drivers are never invoked (``--no-ext-diff``, ``--no-textconv``, ``core.fsmonitor=false``).

:func:`parse_log` is pure (bytes in, commits out) and is what the tests pin; :class:`GitFolder`
runs the commands. Paths are relative to the folder (``--relative``), so a vault that is a
sub-folder of its repository sees only its own files; commits are the first-parent line of
HEAD, oldest first, each with its changes against its first parent (a merge brings the
merged branch's changes in as one commit, at the merge's time).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ryvem.errors import InvalidInput, RyvemError
from ryvem.safefile import TooLarge

__all__ = [
    "LOG_FORMAT", "Change", "Commit", "GitFolder", "GitUnavailable", "git_blob_id", "parse_log",
]

_MARK = b"ryvem-commit"
# A commit's header: the marker, then id, committer time (unix seconds), author name and
# email, author date and committer date (ISO 8601 strict), and the raw message.
LOG_FORMAT = "%x00ryvem-commit%x00%H%x00%ct%x00%an%x00%ae%x00%aI%x00%cI%x00%B"
_HEADER_FIELDS = 7
_RAW = re.compile(
    rb"^:(?P<old_mode>[0-7]{6}) (?P<new_mode>[0-7]{6}) (?P<old>[0-9a-f]+) (?P<new>[0-9a-f]+) "
    rb"(?P<status>[A-Z])(?P<score>[0-9]*)$"
)
_REGULAR = {"100644", "100755"}
_TIMEOUT = 600  # seconds for one git command (a very large repository's log)


class GitUnavailable(InvalidInput):
    """No ``git`` binary, or the folder is not inside a git working tree."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file a commit touched. ``path`` is the file after the commit (for ``D`` the file
    that was deleted), ``old_path`` the one before a rename. ``blob`` is the file's object
    id after the commit (None when deleted, or when it is not a regular file)."""

    status: str  # A, M, D, R, T (type change) — C is never asked for
    path: str
    old_path: str | None = None
    blob: str | None = None
    old_blob: str | None = None
    regular: bool = True  # a regular file after the commit (not a symlink or submodule)


@dataclass(frozen=True, slots=True)
class Commit:
    id: str
    time: int  # committer time, unix seconds
    author: str
    email: str
    authored: str  # ISO 8601
    committed: str  # ISO 8601
    message: str
    changes: tuple[Change, ...] = ()


class _Malformed(RyvemError):
    pass


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _path(raw: bytes) -> str:
    """A path as git gave it; bytes that are not UTF-8 become lone surrogates (which the
    node's key validation then refuses, so such a file is reported, never mis-named)."""
    return raw.decode("utf-8", "surrogateescape")


def parse_log(raw: bytes) -> list[Commit]:
    """The commits of ``git log -z --raw --no-abbrev --format=LOG_FORMAT`` output, in order.

    The output is split at NULs. A marker token opens a commit and is followed by exactly
    the header's fields; a ``:modes ids status`` token is followed by one path (two for a
    rename), which are consumed as paths whatever they hold, so no path or message can be
    taken for a marker or a change.
    """
    tokens = raw.split(b"\0")
    commits: list[Commit] = []
    head: list[bytes] | None = None
    changes: list[Change] = []
    i = 0

    def flush() -> None:
        if head is not None:
            cid, ct, an, ae, ad, cd, msg = head
            try:
                when = int(ct)
            except ValueError:
                raise _Malformed(f"git log gave a commit time {ct!r}") from None
            commits.append(Commit(
                id=_text(cid), time=when, author=_text(an), email=_text(ae),
                authored=_text(ad), committed=_text(cd), message=_text(msg).strip(),
                changes=tuple(changes),
            ))

    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == _MARK:
            flush()
            head = tokens[i : i + _HEADER_FIELDS]
            if len(head) != _HEADER_FIELDS:
                raise _Malformed("git log's output ended inside a commit header")
            i += _HEADER_FIELDS
            changes = []
            continue
        m = _RAW.match(token.lstrip(b"\n"))
        if m is None:
            if token.strip(b"\n") == b"":
                continue
            raise _Malformed(f"unexpected git log output: {token[:60]!r}")
        if head is None:
            raise _Malformed("git log listed a change before any commit")
        status = m["status"].decode()
        paths = 2 if status in ("R", "C") else 1
        if i + paths > len(tokens):
            raise _Malformed("git log's output ended inside a change")
        names = [_path(t) for t in tokens[i : i + paths]]
        i += paths
        new_mode = m["new_mode"].decode()
        zero = set(m["new"].decode()) == {"0"}
        changes.append(Change(
            status=status,
            path=names[-1],
            old_path=names[0] if paths == 2 else None,
            blob=None if zero or new_mode not in _REGULAR else m["new"].decode(),
            old_blob=None if set(m["old"].decode()) == {"0"} else m["old"].decode(),
            regular=new_mode in _REGULAR,
        ))
    flush()
    return commits


def git_blob_id(content: bytes, object_format: str = "sha1") -> str:
    """The object id git gives a file with these bytes (no clean filters applied)."""
    h = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
    h.update(b"blob %d\0" % len(content))
    h.update(content)
    return h.hexdigest()


class GitFolder:
    """A folder inside a git working tree, read with the ``git`` binary."""

    def __init__(self, folder: str | Path, *, git: str | None = None) -> None:
        self.folder = Path(folder)
        found = git or shutil.which("git")
        if found is None:
            raise GitUnavailable("--git-history needs the git binary, and none is on PATH")
        self.git = found
        self._env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_OPTIONAL_LOCKS": "0",  # read only: never refresh the index
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "LC_ALL": "C",
        }
        inside = self._run("rev-parse", "--is-inside-work-tree", check=False)
        if inside.returncode != 0 or inside.stdout.strip() != b"true":
            why = _text(inside.stderr).strip().splitlines()
            told = why[0] if why else ""
            extra = "" if not told or "not a git repository" in told else f" (git: {told})"
            raise GitUnavailable(f"not inside a git working tree: {folder}{extra}")
        self.object_format = _text(
            self._run("rev-parse", "--show-object-format").stdout
        ).strip() or "sha1"

    def _run(
        self, *args: str, check: bool = True, input: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        argv = [self.git, "-c", "core.fsmonitor=false", "-c", "core.quotepath=off",
                "-C", str(self.folder), *args]
        try:
            done = subprocess.run(
                argv, env=self._env, input=input, capture_output=True, timeout=_TIMEOUT,
                check=False,
            )
        except OSError as e:
            raise GitUnavailable(f"cannot run git: {e.strerror or e}") from None
        except subprocess.TimeoutExpired:
            raise RyvemError(f"git {args[0]} took longer than {_TIMEOUT} s") from None
        if check and done.returncode != 0:
            why = _text(done.stderr).strip().splitlines()
            raise RyvemError(f"git {args[0]} failed: {why[-1] if why else done.returncode}")
        return done

    def has_commits(self) -> bool:
        found = self._run("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        return found.returncode == 0

    def is_shallow(self) -> bool:
        return self._run("rev-parse", "--is-shallow-repository").stdout.strip() == b"true"

    def log(self) -> list[Commit]:
        """The first-parent commits of HEAD that touched files in the folder, oldest first."""
        if not self.has_commits():
            return []
        out = self._run(
            "log", "--reverse", "--first-parent", "--diff-merges=first-parent", "--relative",
            "-z", "--raw", "--no-abbrev", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
            "--no-show-signature", "--encoding=UTF-8", f"--format={LOG_FORMAT}", "HEAD",
            "--", ".",
        ).stdout
        return parse_log(out)

    def head_blobs(self) -> dict[str, str]:
        """The object id of each regular file below the folder at HEAD (paths relative)."""
        if not self.has_commits():
            return {}
        out = self._run("ls-tree", "-r", "-z", "HEAD", "--", ".").stdout
        blobs: dict[str, str] = {}
        for entry in out.split(b"\0"):
            if not entry:
                continue
            meta, _, name = entry.partition(b"\t")
            mode, kind, oid = meta.split(b" ")
            if kind == b"blob" and mode.decode() in _REGULAR:
                blobs[_path(name)] = oid.decode()
        return blobs

    @contextmanager
    def blob_reader(self, limit: int | None = None) -> Iterator[Callable[[str], bytes]]:
        """A function reading one blob's contents by id, through one ``git cat-file --batch``
        kept open for the block.

        With ``limit``, each blob's size is asked first (``git cat-file --batch-check``, kept
        open too) and a blob over ``limit`` bytes raises :class:`~ryvem.safefile.TooLarge`
        without its contents being read: a huge committed page never fills the memory.
        """
        proc = self._cat_file("--batch")
        check = self._cat_file("--batch-check") if limit is not None else None
        stdin, stdout = proc.stdin, proc.stdout
        assert stdin is not None and stdout is not None

        def header(p: subprocess.Popen[bytes], oid: str) -> int:
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write(oid.encode() + b"\n")
            p.stdin.flush()
            fields = p.stdout.readline().split()
            if len(fields) != 3 or fields[1] != b"blob":
                raise RyvemError(f"git cat-file has no blob {oid}")
            return int(fields[2])

        def read(oid: str) -> bytes:
            if not re.fullmatch(r"[0-9a-f]{40,64}", oid):
                raise RyvemError(f"not a git object id: {oid!r}")
            if check is not None and limit is not None and (size := header(check, oid)) > limit:
                raise TooLarge(size, limit)
            size = header(proc, oid)
            data = stdout.read(size)
            stdout.read(1)  # the newline after the contents
            return data

        try:
            yield read
        finally:
            for p in (proc, check):
                if p is not None and p.stdin is not None and p.stdout is not None:
                    p.stdin.close()
                    p.stdout.close()
                    p.wait(timeout=30)

    def _cat_file(self, mode: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [self.git, "-C", str(self.folder), "cat-file", mode],
            env=self._env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
