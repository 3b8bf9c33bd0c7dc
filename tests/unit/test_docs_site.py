"""The shape issue 42 asks of the documentation: a short README and short site pages, each
page in the navigation (apart from the dated notes), and every README link resolving."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _nav_pages(items: list[object]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            for value in item.values():
                out += _nav_pages(value) if isinstance(value, list) else [str(value)]
        else:
            out.append(str(item))
    return out


def test_the_readme_is_a_landing_page_of_at_most_200_lines() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_every_page_outside_the_notes_is_in_the_navigation_and_at_most_400_lines() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!!python", "#"))
    nav = set(_nav_pages(config["nav"]))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")
             if p.relative_to(DOCS).parts[0] != "notes"}
    assert pages - nav == set(), "add these pages to mkdocs.yml's nav"
    assert nav - pages == set(), "the nav names pages that do not exist"
    long = {p: n for p in pages if (n := len((DOCS / p).read_text().splitlines())) > 400}
    assert long == {}, "split these pages"


def test_every_relative_link_and_picture_of_the_readme_names_a_file_that_exists() -> None:
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    relative = [t for t in targets if "://" not in t]
    assert len(relative) > 15
    missing = [t for t in relative if not (ROOT / t).exists()]
    assert missing == []
