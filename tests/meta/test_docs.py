"""The documentation holds together: every relative link of README.md, docs/*.md and the examples' READMEs leads to
a file of the repository, and a link with a #fragment to a heading of that file (GitHub's anchors); README.md, the
page a newcomer reads first, stays within 16 KB."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").glob("*/README.md")])
README_BYTES = 16 * 1024

FENCED = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text without its code blocks and code spans, where brackets are code, not links."""
    return CODE.sub("", FENCED.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: its text (links and code marks dropped) in lower case, every character but
    letters, digits, spaces, '-' and '_' removed, spaces turned into '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings; a repeated heading gets -1, -2, … as on GitHub."""
    seen: dict[str, int] = {}
    names = set()
    for heading in HEADING.findall(FENCED.sub("", page.read_text(encoding="utf-8"))):
        name = anchor(heading)
        count = seen.get(name, 0)
        names.add(name if count == 0 else f"{name}-{count}")
        seen[name] = count + 1
    return names


def links_in(text: str) -> list[str]:
    """The targets of the relative links and images of a Markdown text (http:, https:, mailto: lead elsewhere)."""
    return [target for target in LINK.findall(prose(text)) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def links(page: Path) -> list[str]:
    return links_in(page.read_text(encoding="utf-8"))


def test_the_checks_read_links_and_headings_as_github_does() -> None:
    assert anchor("The exec protocol (pinned, protocol 1)") == "the-exec-protocol-pinned-protocol-1"
    assert anchor("A target's text is capped") == "a-targets-text-is-capped"
    assert anchor("A `python:` target") == "a-python-target"
    assert links_in("See [x](a.md#b), `[not](c.md)`, ![img](d.png), [web](https://e.org).\n```\n[no](f.md)\n```") \
        == ["a.md#b", "d.png"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or not linked.is_relative_to(ROOT):
            broken.append(f"{target}: no file {linked}")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"{target}: no heading with anchor #{fragment} in {linked.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    assert set((ROOT / "docs").glob("*.md")) <= linked


def test_the_readme_stays_short() -> None:
    size = (ROOT / "README.md").stat().st_size
    assert size <= README_BYTES, f"README.md is {size} bytes; move reference material to docs/ (at most {README_BYTES})"
