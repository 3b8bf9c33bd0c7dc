"""Threats: an attacker who controls memory content, a vault folder, or MCP arguments.

Each test plays one row of issue 18 through the real console scripts (``ryvem`` via
tests/support/cli.py, ``ryvem-mcp`` via the MCP SDK's own stdio client) with hostile variants,
and checks that untrusted text stays text and that paths stay where they belong: nothing
outside the store and the export folder is read into memory or written.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import StdioServerParameters

from conftest import unavailable
from integration.test_mcp_server import RYVEM_MCP, Server, _params, _session, serve
from support.cli import RYVEM, Cli, Result, assert_fails

# What no stored text may put on a terminal: ESC (CSI, OSC 52 clipboard, OSC 8 links), BEL,
# the one-byte C1 CSI, DEL, carriage return and backspace (overwrite what was printed), and
# the bidi overrides and isolates (reorder what a line says).
RAW = ["\x1b", "\x07", "\x9b", "\x9d", "\x7f", "\r", "\x08", "\u202e", "\u2066", "\u2069"]
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
OSC8 = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
CSI = "\x1b[2J\x1b[31mred\x1b[0m"
C1_CSI = "\x9b2J"
BIDI = "\u202eevil\u202c \u2066iso\u2069"
HOSTILE_BODY = f"start {OSC52} {OSC8} {CSI} {C1_CSI} {BIDI} back\rspace\x08 del\x7f end"


def assert_inert(text: str) -> None:
    """No raw control, C1 or bidi character reaches the terminal."""
    for c in RAW:
        assert c not in text, f"raw U+{ord(c):04X} in output: {text!r}"


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path, tmp_path / "data")


def private_device(folder: Path) -> Path:
    """A character device of the test's own (/dev/null's numbers) inside ``folder``.

    Never the system's /dev/null: on code that replaces what --out names, a test run as root
    would replace the machine's /dev/null with a regular file.
    """
    path = folder / "null-device"
    if not path.exists():
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            unavailable("creating a device node needs CAP_MKNOD")
    return path


# --- paths: export --out ---------------------------------------------------------------
def test_export_never_replaces_or_writes_through_a_symlink(cli: Cli, tmp_path: Path) -> None:
    """A link to a regular file, a dangling link, a link to a device or folder: refused, exit 2.

    The link stays a link and its target is untouched (policy: ryvem never writes through a
    link, so a planted link cannot aim the export at ~/.bashrc or /dev/stdout).
    """
    cli.ok("put", "decision", "--title", "t", "--key", "k", "--scope", "global")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    links = {
        "to-file.html": victim,
        "dangling.html": tmp_path / "missing.html",
        "to-device.html": private_device(tmp_path),
        "to-folder.html": tmp_path,
    }
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
        assert_fails(cli("export", "--out", name), 2, "symbolic link")
        assert (tmp_path / name).is_symlink() and os.readlink(tmp_path / name) == str(target)
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "missing.html").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    ("where", "code", "fragment"),
    [("folder", 2, "is a folder"), ("/tmp", 2, "is a folder"), ("device", 2, "device"),
     ("fifo", 2, "device or special file"), ("/proc/version", 2, "is read-only")],
)
def test_export_refuses_a_folder_device_or_special_file_with_one_line(
    cli: Cli, tmp_path: Path, where: str, code: int, fragment: str
) -> None:
    """A folder, /tmp, a device, a FIFO and /proc/version: one error line, nothing replaced."""
    if where == "folder":
        (tmp_path / "folder").mkdir()
    if where == "fifo":
        os.mkfifo(tmp_path / "fifo")
    if where == "device":
        where = private_device(tmp_path).name
    before = Path(where).read_text() if where == "/proc/version" else None
    assert_fails(cli("export", "--out", where), code, fragment)
    if before is not None:
        assert Path("/proc/version").read_text() == before
    assert not any((tmp_path / n).is_file() for n in ("folder", "fifo", "null-device"))


def test_export_writes_a_regular_file_atomically_and_json_names_it(
    cli: Cli, tmp_path: Path
) -> None:
    """A page exported before is replaced whole; --json prints the path (README: every verb)."""
    cli.ok("export", "--out", "g.html")
    cli.ok("put", "task", "--title", "Written after the first export", "--key", "later")
    got = cli.json("export", "--out", "g.html")
    assert got == {"type": "export", "path": str((tmp_path / "g.html").resolve()), "scope": "*"}
    assert (tmp_path / "g.html").read_text().startswith("<!DOCTYPE html>")
    assert "Written after the first export" in (tmp_path / "g.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["g.html"]


# --- MCP: a real stdio client ----------------------------------------------------------
@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as p:
        yield p


@pytest.fixture(scope="module")
def mcp(portal: BlockingPortal, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("threats-mcp")
    with serve(portal, home, home / "data") as s:
        s.ok("memory_write", kind="decision", title="Seed", key="seed", scope="global")
        yield s


BAD_OUT = [
    "../escape.html", "ABSOLUTE", "sub/x.html", "~/.bashrc", ".bashrc", "..", ".", "",
    "a\\b.html", "a\nb.html", "x.txt", "graph", "\x1b]52;c;x\x07.html", "a\u202e.html",
    "x" * 300 + ".html",
]


@pytest.mark.parametrize("out", BAD_OUT, ids=[repr(o)[:30] for o in BAD_OUT])
def test_graph_export_accepts_only_a_plain_html_file_name(mcp: Server, out: str) -> None:
    """Paths, .., hidden names, control characters or other suffixes are a tool error."""
    exports = mcp.data_dir / "exports"
    absolute = mcp.data_dir.parent / "abs.html"  # never a system path, even on unsafe code
    out = str(absolute) if out == "ABSOLUTE" else out
    before = sorted(p.name for p in exports.iterdir()) if exports.exists() else []
    message = mcp.error("graph_export", out=out)
    assert "graph_export" in message and "out" in message
    after = sorted(p.name for p in exports.iterdir()) if exports.exists() else []
    assert after == before
    assert not (mcp.data_dir.parent / "escape.html").exists()
    assert not absolute.exists()


def test_graph_export_writes_only_into_the_export_folder_and_refuses_a_planted_link(
    mcp: Server, tmp_path: Path
) -> None:
    """The default is $RYVEM_DATA_DIR/exports/graph.html; a link planted there is refused."""
    default = Path(mcp.ok("graph_export"))
    assert default == (mcp.data_dir / "exports" / "graph.html").resolve()
    assert (default.parent.stat().st_mode & 0o777) == 0o700
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=/usr/bin\n")
    (default.parent / "planted.html").symlink_to(victim)
    assert "symbolic link" in mcp.error("graph_export", out="planted.html")
    assert victim.read_text() == "export PATH=/usr/bin\n"


def test_the_export_folder_is_chosen_by_whoever_starts_the_server(
    portal: BlockingPortal, tmp_path: Path
) -> None:
    """RYVEM_EXPORT_DIR, and `ryvem-mcp --export-dir DIR` over it, decide where pages land."""
    by_env = tmp_path / "by-env"
    with serve(portal, tmp_path, tmp_path / "data", RYVEM_EXPORT_DIR=str(by_env)) as s:
        assert Path(s.ok("graph_export", out="a.html")) == (by_env / "a.html").resolve()
    by_flag = tmp_path / "by-flag"
    params: StdioServerParameters = _params(
        tmp_path, tmp_path / "data", RYVEM_EXPORT_DIR=str(by_env)
    ).model_copy(update={"args": ["--export-dir", str(by_flag)]})
    with portal.wrap_async_context_manager(_session(params, tmp_path / "flag.log")) as session:
        s = Server(portal, session, tmp_path / "data")
        assert Path(s.ok("graph_export", out="b.html")) == (by_flag / "b.html").resolve()
    assert sorted(p.name for p in by_env.iterdir()) == ["a.html"]


def test_unknown_arguments_are_a_tool_error_naming_them_and_write_nothing(mcp: Server) -> None:
    """memory_write with `bdoy` and `scoep` (typos) writes nothing and names both."""
    before = mcp.count()
    message = mcp.error("memory_write", kind="decision", title="t", key="typo", bdoy="lost",
                        scoep="board:x")
    assert "'bdoy'" in message and "'scoep'" in message and "unknown argument" in message
    # and says what was likely meant, and what the tool takes, so an agent fixes it at once
    assert "(did you mean 'body', 'scope'?)" in message
    assert message.endswith("; the tool takes kind, title, key, scope, body, data, valid_from")
    assert mcp.count() == before
    assert "no node" in mcp.error("memory_get", ref="decision/typo", scope="global")
    for tool, args in {
        "memory_get": {"ref": "decision/seed", "as_off": "2020-01-01"},
        "memory_search": {"query": "seed"},
        "memory_history": {"ref": "decision/seed", "limt": 1},
        "memory_retire": {"ref": "decision/seed", "reson": "x"},
        "memory_link": {"from_ref": "seed", "to_ref": "seed", "rel": "about", "dat": {}},
        "memory_unlink": {"from_ref": "seed", "to_ref": "seed", "rel": "about", "x": 1},
        "graph_export": {"path": "elsewhere.html"},
    }.items():
        message = mcp.error(tool, **args)
        assert "unknown argument" in message and "; the tool takes " in message, tool
    searched = mcp.error("memory_search", query="seed")
    assert "did you mean" not in searched  # nothing close: the names are the hint
    assert searched.split("; the tool takes ")[1].startswith("text, ")
    assert mcp.ok("memory_get", ref="decision/seed")["valid_to"] is None  # retire refused
    assert mcp.ok("memory_navigate", op="links", ref="seed", dept=3) == []


def test_every_tool_schema_says_additional_properties_false(mcp: Server) -> None:
    tools = mcp.portal.call(mcp.session.list_tools).tools
    assert tools and all(t.input_schema.get("additionalProperties") is False for t in tools)


@pytest.mark.parametrize("title", ["a\nb", "a\rb", "a\tb", f"Hi{OSC52}", "x\x9by", "x\x7f",
                                   "x\u202ey", "x\u2066y", "x\u2069y"])
def test_a_title_with_control_characters_is_refused_by_both_faces(
    cli: Cli, mcp: Server, title: str
) -> None:
    """Titles are one line of plain text: the CLI exits 2, MCP is a tool error; keys alike."""
    assert_fails(cli("put", "decision", "--title", title, "--scope", "global"), 2, "title")
    assert_fails(cli("put", "decision", "--title", "ok", "--key", title, "--scope", "global"),
                 2, "key")
    assert "title" in mcp.error("memory_write", kind="decision", title=title, scope="global")
    assert "key" in mcp.error("memory_write", kind="decision", title="ok", key=title)
    assert cli.json("stats")["current_rows"] == 0


# --- text: stored content never drives the terminal --------------------------------------
def test_hostile_bodies_data_and_reasons_print_escaped_and_json_stays_exact(cli: Cli) -> None:
    """get, search, history, links, retire, stats: no raw ESC/BEL/C1/bidi; --json is exact."""
    body = HOSTILE_BODY + "\n[[target]]\nsecond line\ttabbed"
    cli.ok("put", "decision", "--title", "Hostile", "--key", "evil", "--scope", "global",
           "--body-file", "-", "--data", json.dumps({"k\x1b]52;": OSC8}), input=body)
    cli.ok("put", "page", "--title", "Target", "--key", "target", "--scope", "global")
    shown = cli.ok("get", "decision/evil", "--scope", "global")
    assert_inert(shown.out)
    assert "\\x1b]52;c;" in shown.out and "second line\ttabbed" in shown.out
    assert cli.json("get", "decision/evil")["body"] == body
    assert cli.json("get", "decision/evil")["data"] == {"k\x1b]52;": OSC8}
    assert_inert(cli.ok("search", "start").out)
    assert_inert(cli.ok("links", "target", "--backlinks").out)
    retired = cli.ok("retire", "decision/evil", "--reason", f"because {OSC52}{BIDI}")
    assert_inert(retired.out)
    assert_inert(cli.ok("history", "decision/evil").out)
    assert cli.json("history", "decision/evil")[-1]["retired_reason"] == f"because {OSC52}{BIDI}"
    assert_inert(cli.ok("stats").out)


def test_errors_naming_hostile_input_are_escaped(cli: Cli, tmp_path: Path) -> None:
    """An error quoting the caller's text (a ref, a scope, a rel, a path) shows it escaped."""
    (tmp_path / "plain").write_text("a file, so no folder can be made below it")
    for args in (["get", f"x{OSC52}"], ["get", "x", "--scope", f"board:{CSI}"],
                 ["link", "a", "b", "--rel", f"r{OSC8}"], ["get", f"\u202e{C1_CSI}"],
                 ["search", "--kind", f"k{OSC52}"], ["import", f"/nowhere/{OSC52}{BIDI}"],
                 ["put", "task", "--title", "t", "--scope", "global", "--body-file",
                  f"/nowhere/{OSC8}"], ["export", "--out", f"plain/{CSI}.html"]):
        r = cli(*args)
        assert r.code != 0 and r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
        assert_inert(r.err)


def test_a_hostile_vault_prints_escaped_warnings_and_one_line_titles(
    cli: Cli, tmp_path: Path
) -> None:
    """A file name with ESC warns escaped; a heading with controls becomes a clean title."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / f"name{OSC52}.md").write_text("# x\n")
    (vault / "heading.md").write_text(f"# Head{OSC52}ing \u202eevil\n\nbody {CSI}\n")
    r = cli.ok("import", str(vault), "--scope", "global", "--title-from", "heading")
    assert_inert(r.out + r.err)
    assert "warning: name\\x1b]52;" in r.err
    assert cli.json("get", "page/heading")["title"] == "Head ]52;c;cm0gLXJmIH4= ing evil"


# --- import reads only the vault's own regular files -------------------------------------
def test_import_skips_symlinks_that_leave_the_vault_with_a_warning(
    cli: Cli, tmp_path: Path
) -> None:
    """Links to a secret outside, to /etc/passwd, to a folder outside, dangling: skipped.

    A link to another page inside the vault is read; nothing from outside reaches the store.
    """
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\nTOKEN=hunter2\n")
    (tmp_path / "outside" / "more.md").write_text("# More\nTOKEN=hunter3\n")
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "home.md").write_text("# Home\n")
    (vault / "secret.md").symlink_to(secret)
    (vault / "passwd.md").symlink_to("/etc/passwd")
    (vault / "sub" / "up.md").symlink_to("../../outside/secret.md")
    (vault / "linked-dir").symlink_to(tmp_path / "outside")
    (vault / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (vault / "alias.md").symlink_to(vault / "home.md")
    r = cli.ok("import", str(vault), "--scope", "global")
    warned = r.err
    for name in ("secret.md", "passwd.md", "sub/up.md"):
        assert f"warning: {name}: is a symlink to a file outside the vault; skipped" in warned
    assert "warning: linked-dir: is a symlinked folder; not followed" in warned
    keys = sorted(h["title"] for h in cli.json("search", "--scope", "global", "--limit", "1000"))
    assert keys == ["alias", "home"]  # home and alias (a link inside the vault), by file name
    # No stored word came from outside (lexical: hybrid would add pages near in meaning).
    assert cli.json("search", "hunter2", "--all-scopes", "--mode", "lexical") == []
    assert cli.json("search", "root", "--all-scopes", "--mode", "lexical") == []
    assert cli("get", "page/passwd", "--scope", "global").code == 1


# --- unique refs -------------------------------------------------------------------------
def test_walk_output_names_each_node_by_a_ref_that_resolves_to_exactly_it(cli: Cli) -> None:
    """Two nodes keyed `cache` print as decision/cache and task/cache, an unkeyed node as its
    id, a node in another scope with that scope; typed back, each resolves to exactly it."""
    b = ("--scope", "board:x")
    cli.ok("put", "decision", "--key", "cache", "--title", "D", *b)
    cli.ok("put", "task", "--key", "cache", "--title", "T", *b)
    loose = cli.ok("put", "note", "--title", "Loose", *b).out.strip()
    cli.ok("put", "page", "--key", "g", "--title", "Global G", "--scope", "global")
    cli.ok("put", "page", "--key", "hub", "--title", "Hub", "--body", "see [[g]]", *b)
    cli.ok("link", "hub", "decision/cache", "--rel", "about", *b)
    cli.ok("link", "hub", "task/cache", "--rel", "about", *b)
    cli.ok("link", "hub", loose, "--rel", "about", *b)
    lines = cli.ok("links", "hub", *b).lines
    assert sorted(lines) == sorted(["decision/cache", "task/cache", loose])
    titles = {line: cli.json("get", line, *b)["title"] for line in lines}
    assert titles == {"decision/cache": "D", "task/cache": "T", loose: "Loose"}
    walked = cli.ok("links", "hub", "--all-scopes", *b).lines
    assert "page/g --scope global" in walked
    for line in walked:
        ref, *rest = line.split()
        assert cli("get", ref, *(rest or b)).code == 0, line
    assert cli.json("get", "page/g", "--scope", "global")["title"] == "Global G"


# --- the low rows ------------------------------------------------------------------------
@pytest.mark.parametrize("verb", [["get"], ["history"], ["retire"], ["links"],
                                  ["link", "x", "--rel", "about"]])
def test_a_non_utf8_ref_is_a_clear_error_exit_2(cli: Cli, verb: list[str]) -> None:
    """`caf\\xe9` as argv bytes: one line, exit 2, never UnicodeEncodeError."""
    args = [verb[0], "caf\udce9", *verb[1:]]
    assert_fails(cli(*args), 2, "lone surrogate")


@pytest.mark.parametrize("mode", [[], ["--mode", "lexical"], ["--mode", "semantic"],
                                  ["--mode", "hybrid"]])
def test_a_non_utf8_search_text_is_the_same_clear_error_exit_2_in_every_mode(
    cli: Cli, mode: list[str]
) -> None:
    """Undecodable argv bytes in a search: one line, exit 2, in every mode (it was an
    internal error from the tokenizer in hybrid and semantic, and a silent listing of
    recent rows in lexical mode)."""
    for text in ("caf\udce9", "\udcff\udcfe", "\udcff cache"):
        assert_fails(cli("search", text, *mode), 2, "the search text contains a lone surrogate")


@pytest.mark.parametrize("limit", ["0", "-1", "1001", "1000000"])
def test_search_limit_outside_1_to_1000_exits_2(cli: Cli, limit: str) -> None:
    r = cli("search", "--limit", limit)
    assert r.code == 2 and "Traceback" not in r.err and r.err.startswith("error: ")
    assert cli("search", "--limit", "1000").code == 0


@pytest.mark.parametrize("verb", [["get", "k"], ["search"], ["links", "k"]])
def test_an_empty_as_of_is_an_error_not_now(cli: Cli, verb: list[str]) -> None:
    cli.ok("put", "decision", "--key", "k", "--title", "t", "--scope", "global")
    assert_fails(cli(*verb, "--as-of", "", "--scope", "global"), 2, "ISO 8601")


def test_the_rel_hint_suggests_rel_names_not_kind_names(cli: Cli) -> None:
    r = cli("link", "a", "b", "--rel", "Bad Rel")
    assert_fails(r, 2, "'implements'")
    assert "'decision'" not in r.err


def test_linking_from_an_old_versions_id_is_refused_not_moved_to_the_current_one(
    cli: Cli,
) -> None:
    """An edge joins current nodes: an old version's id is a Conflict naming the current id."""
    g = ("--scope", "global")
    old = cli.ok("put", "decision", "--key", "a", "--title", "v1", *g).out.strip()
    new = cli.ok("put", "decision", "--key", "a", "--title", "v2", *g).out.strip()
    cli.ok("put", "task", "--key", "b", "--title", "b", *g)
    for args in (["link", old, "task/b"], ["link", "task/b", old], ["unlink", old, "task/b"]):
        assert_fails(cli(*args, "--rel", "about", *g), 1, f"the current version is {new}")
    assert cli.json("stats")["rels"].get("about") is None
    assert cli.ok("link", new, "task/b", "--rel", "about", *g).code == 0


def _git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir()
    return root


def test_ryvem_json_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo")
    uuid = "3f2b9c0e-8d7a-4c1e-9b5a-2e4f6a8c0d1b"
    (repo / "ryvem.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"repo": uuid}).encode())
    c = Cli(repo, tmp_path / "data")
    assert c.json("put", "decision", "--title", "t")["scope"] == f"repo:{uuid}"


def test_a_dangling_symlink_ryvem_json_is_a_clear_error_not_try_again(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo")
    (repo / "ryvem.json").symlink_to(tmp_path / "gone.json")
    c = Cli(repo, tmp_path / "data")
    for _ in range(2):
        r = c("put", "decision", "--title", "t")
        assert_fails(r, 2, "symbolic link to a missing file")
        assert "try again" not in r.err
    assert not (tmp_path / "gone.json").exists()


def test_racing_first_writers_only_the_one_that_wrote_ryvem_json_says_so(
    tmp_path: Path,
) -> None:
    """Six first puts race for ryvem.json: one writes it and says so, five adopt it quietly.

    The test holds the minters' flock on the repository folder until every racer has looked
    (each has left its temporary file), so all six really race.
    """
    repo = _git_repo(tmp_path / "repo")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env["RYVEM_DATA_DIR"] = str(tmp_path / "data")
    subprocess.run([str(RYVEM), "graph", "stats"], cwd=repo, env=env, check=True,
                   capture_output=True)  # create the store first: the race is on ryvem.json
    folder = os.open(repo, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        procs = [
            subprocess.Popen([str(RYVEM), "graph", "put", "task", "--title", f"t{i}"],
                             cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
            for i in range(6)
        ]
        deadline = time.monotonic() + 120
        while len(list(repo.glob(".ryvem.json.*.tmp"))) < 6:
            assert time.monotonic() < deadline, "the racers never reached the lock"
            assert all(p.poll() is None for p in procs), "a racer ended before the lock"
            time.sleep(0.05)
    finally:
        os.close(folder)  # releases the flock: now they race
    results = [Result(p.wait(120), *p.communicate()) for p in procs]
    assert all(r.code == 0 for r in results), [r.err for r in results]
    assert sum("wrote" in r.err for r in results) == 1
    assert len({r.out for r in results}) == 6


def test_a_retired_nodes_edges_stay_open_hidden_from_links_until_it_is_revived(cli: Cli) -> None:
    """Retiring b leaves a→b open (stats counts it) but `links` no longer reaches b; reviving
    b brings the edge back. The export's side panel agrees (tests/browser)."""
    g = ("--scope", "global")
    cli.ok("put", "task", "--key", "a", "--title", "a", *g)
    cli.ok("put", "task", "--key", "b", "--title", "b", *g)
    cli.ok("link", "task/a", "task/b", "--rel", "about", *g)
    assert cli.ok("links", "task/a", *g).lines == ["task/b"]
    cli.ok("retire", "task/b", *g)
    assert cli.ok("links", "task/a", *g).lines == []
    assert cli.ok("links", "task/a", "--backlinks", *g).lines == []
    assert cli.json("stats")["rels"] == {"about": 1}  # documented: the edge stays open
    cli.ok("put", "task", "--key", "b", "--title", "b again", *g)
    assert cli.ok("links", "task/a", *g).lines == ["task/b"]


def test_both_commands_print_their_version() -> None:
    from ryvem import __version__

    for cmd in (RYVEM, RYVEM_MCP):
        p = subprocess.run([str(cmd), "--version"], capture_output=True, text=True, timeout=60,
                           check=False)
        assert p.returncode == 0 and p.stdout.strip().endswith(__version__), p.stderr


def test_put_help_shows_wikilinks_instead_of_eating_them_as_markup(cli: Cli) -> None:
    out = cli.ok("put", "--help").out
    assert "[[wikilinks]]" in out and "; [] become" not in out
