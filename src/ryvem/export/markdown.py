"""Node bodies as HTML, rendered once at export time, safe to put in the page as-is.

Bodies are untrusted text. The renderer is markdown-it (CommonMark plus tables and
strikethrough) with raw HTML *disabled*, so ``<script>`` or ``<img onerror=…>`` in a body
arrives as visible text. Link destinations keep only ``http``, ``https``, ``mailto`` and
relative URLs (``javascript:``, ``data:``, ``vbscript:``, ``file:`` and protocol-relative
``//host`` links are left as plain text). Images are never loaded — the page makes no
network request — so ``![alt](src)`` becomes a link to ``src`` labelled with its alt text.
``[[wikilinks]]`` become in-page links to the node they resolve to (``data-entity``), or a
"dangling" marker when they resolve to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from ryvem.domain.controls import HIDDEN, visible
from ryvem.domain.links import normalize, split_anchor

__all__ = ["SAFE_SCHEMES", "is_safe_url", "render_body", "shown"]

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")  # browsers drop these inside a URL


# What the CLI shows as escapes (ryvem.cli.text): C0 controls but tab, newline and carriage
# return (text layout), DEL, C1 controls, the bidi overrides and isolates. In the page they
# would be invisible bytes that ride along when a person copies the text into a terminal
# (an OSC 52 clipboard write, an OSC 8 link), or reorder what the panel appears to say.
_INVISIBLE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{HIDDEN}]")


def shown(text: str) -> str:
    """``text`` with every control and bidi override written as a visible escape
    (``\\x1b``, ``\\u202e``), as ``ryvem graph get`` prints it."""
    return _INVISIBLE.sub(visible, text)


def is_safe_url(url: str) -> bool:
    """True for http(s), mailto and relative URLs; false for every other scheme."""
    cleaned = _IGNORED.sub("", url)
    if cleaned.startswith(("//", "\\\\", "/\\", "\\/")):
        return False  # protocol-relative: another host
    m = _SCHEME.match(cleaned)
    if m is None:
        # No scheme, but a colon before any path character still reads as one to a browser.
        head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
        return ":" not in head
    return m.group(1).lower() in SAFE_SCHEMES


def _wikilink(state: StateInline, silent: bool) -> bool:
    """``[[target|alias]]`` and ``![[embed]]`` as one ``wikilink`` token."""
    pos = state.pos
    src = state.src
    start = pos + 1 if src.startswith("![[", pos) else pos
    if not src.startswith("[[", start):
        return False
    end = src.find("]]", start + 2)
    if end < 0:
        return False
    inner = src[start + 2 : end]
    if not inner.strip() or "\n" in inner or "[" in inner or "]" in inner:
        return False
    if not silent:
        target, _, alias = inner.replace("\\|", "|").partition("|")
        page, _ = split_anchor(target)
        token = state.push("wikilink", "", 0)
        token.meta = {"target": normalize(page), "label": (alias or target).strip()}
    state.pos = end + 2
    return True


def _make_renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = is_safe_url  # type: ignore[method-assign]  # markdown-it's documented hook
    md.inline.ruler.before("link", "wikilink", _wikilink)

    def link_open(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        tok = tokens[idx]
        href = str(tok.attrGet("href") or "")
        if not href.startswith("#"):
            tok.attrSet("target", "_blank")
            tok.attrSet("rel", "noopener noreferrer")
        return self.renderToken(tokens, idx, options, env)

    def image(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        tok = tokens[idx]
        alt = self.renderInlineAsText(tok.children or [], options, env) or "image"
        src = str(tok.attrGet("src") or "")
        if not src:
            return f'<span class="img">{escape(alt)}</span>'
        return (
            f'<a class="img" href="{escape(src)}" target="_blank" rel="noopener noreferrer">'
            f"{escape(alt)}</a>"
        )

    def wikilink(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        meta = tokens[idx].meta
        links: Mapping[str, str] = env.get("links", {})
        entity = links.get(meta["target"])
        label = escape(meta["label"])
        if entity is None:
            return f'<span class="wikilink dangling" title="unresolved link">{label}</span>'
        return f'<a class="wikilink" href="#" data-entity="{escape(entity)}">{label}</a>'

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    md.add_render_rule("wikilink", wikilink)
    return md


_MD = _make_renderer()


def render_body(body: str, links: Mapping[str, str] | None = None) -> str:
    """The body as safe HTML; ``links`` maps a normalised wikilink target to an entity id."""
    if not body.strip():
        return ""
    env: dict[str, Any] = {"links": dict(links or {})}
    html: str = _MD.render(body, env)
    # After rendering, so a [[wikilink]] still resolves as the store resolved it; an escape
    # (ASCII) never needs HTML escaping, in text or in an attribute.
    return shown(html)
