"""Parsing the HTML report in tests: section texts, element ids, references."""
from __future__ import annotations

from html.parser import HTMLParser


class Sections(HTMLParser):
    """Collects element ids, the text inside each <section id=...>, and every src/href/style value."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.stack: list[tuple[str, str | None]] = []
        self.text: dict[str, list[str]] = {}
        self.refs: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        section = attrs.get("id") if tag == "section" else None
        if tag not in ("br", "meta", "input", "img", "link", "hr"):
            self.stack.append((tag, section))
        for key in ("src", "href"):
            if key in attrs:
                self.refs.append((tag, key, attrs[key] or ""))
        if tag == "style":
            self._in_style = True

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)
        for _, section in self.stack:
            if section:
                self.text.setdefault(section, []).append(data)

    def section(self, name: str) -> str:
        return "".join(self.text.get(name, []))
