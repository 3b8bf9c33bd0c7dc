"""Bodies rendered for the export: markdown in, safe HTML out."""

from __future__ import annotations

import pytest

from ryvem.export.markdown import is_safe_url, render_body


def test_markdown_renders_headings_lists_emphasis_code_and_tables() -> None:
    """Ordinary markdown becomes the HTML a reader expects."""
    html = render_body("# Title\n\n* one\n* **two**\n\n`x < y`\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<h1>Title</h1>" in html
    assert "<li><strong>two</strong></li>" in html
    assert "<code>x &lt; y</code>" in html
    assert "<td>1</td>" in html


@pytest.mark.parametrize(
    "body",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a>',
        "<iframe src='https://example.com'></iframe>",
        "<svg onload=alert(1)>",
        "line <b onmouseover=alert(1)>inline</b> html",
    ],
)
def test_raw_html_in_a_body_is_escaped_into_text(body: str) -> None:
    """No tag from the body survives: every `<` arrives as `&lt;`."""
    html = render_body(body)
    assert "&lt;" in html
    for tag in ("<script", "<img", "<a ", "<iframe", "<svg", "<b "):
        assert tag not in html


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        " javascript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "//evil.example/x",
        "javascript&#58;alert(1)",
    ],
)
def test_links_with_unsafe_schemes_stay_plain_text(url: str) -> None:
    """A link whose destination is not http(s), mailto or relative is not a link."""
    html = render_body(f"[click](<{url}>) and [again]({url}) and <{url}>")
    assert "href" not in html, html


@pytest.mark.parametrize(
    "url", ["https://example.com/a?b=1#c", "http://x.test", "mailto:a@b.test", "notes/x.md", "#top"]
)
def test_links_with_safe_schemes_become_anchors(url: str) -> None:
    """http, https, mailto and relative destinations are kept as links."""
    assert is_safe_url(url)
    assert 'href="' in render_body(f"[go]({url})")


def test_outside_links_open_in_a_new_tab_without_an_opener() -> None:
    """An outside link cannot reach back into the page that opened it."""
    html = render_body("[go](https://example.com)")
    assert 'target="_blank"' in html and 'rel="noopener noreferrer"' in html


def test_an_image_becomes_a_link_and_is_never_loaded() -> None:
    """`![alt](src)` is a link labelled with its alt text: the page makes no request."""
    html = render_body("![a diagram](https://example.com/d.png)")
    assert "<img" not in html
    assert '<a class="img" href="https://example.com/d.png"' in html and ">a diagram</a>" in html
    assert "href" not in render_body("![bad](javascript:alert(1))")


def test_wikilinks_link_to_the_entity_they_resolve_to_or_show_as_dangling() -> None:
    """`[[target|alias]]` names its node by entity id; an unresolved one is marked."""
    html = render_body("See [[Cache|the cache]], [[missing]] and `[[in code]]`.", {"cache": "E1"})
    assert '<a class="wikilink" href="#" data-entity="E1">the cache</a>' in html
    assert '<span class="wikilink dangling" title="unresolved link">missing</span>' in html
    assert "<code>[[in code]]</code>" in html


def test_a_wikilink_with_a_position_or_heading_links_to_its_page() -> None:
    """`[[CHANGELOG@L12c42]]` and `[[CHANGELOG#Top]]` name the CHANGELOG page, as in the graph."""
    html = render_body("[[CHANGELOG@L12c42]] and [[CHANGELOG#Top|top]]", {"changelog": "E1"})
    assert '<a class="wikilink" href="#" data-entity="E1">CHANGELOG@L12c42</a>' in html
    assert '<a class="wikilink" href="#" data-entity="E1">top</a>' in html


def test_a_wikilink_label_is_escaped() -> None:
    """Markup inside a wikilink is text, like everywhere else."""
    html = render_body("[[x|<img src=x onerror=alert(1)>]]", {"x": "E\"1"})
    assert "<img" not in html and "&lt;img" in html
    assert 'data-entity="E&quot;1"' in html


def test_an_empty_body_renders_nothing() -> None:
    """Whitespace is not a body."""
    assert render_body("  \n ") == ""
