"""A target's text is inert wherever it is shown (issue 28, item 6): on a terminal every control character but line
feed and tab is an escape; in report.md plain text has its HTML and Markdown escaped and code spans hold anything
literally."""
from __future__ import annotations

import pytest

from ascendc_conformance.format.text import terminal
from ascendc_conformance.reports.render_md import Code, _cell, _code, _escape


@pytest.mark.parametrize("text, shown", [
    ("\x1b[2J", "\\x1b[2J"),                       # clear the screen
    ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),      # retitle the window (OSC ... BEL)
    ("\x9b31m", "\\x9b31m"),                         # a C1 CSI
    ("ok\rFAIL", "ok\\x0dFAIL"),                     # overwrite the line
    ("a\u202eb", "a\\u202eb"),                       # reorder it (a right-to-left override)
    ("\x00\x7f", "\\x00\\x7f"),
    ("line\n\tindented é → ✓", "line\n\tindented é → ✓"),   # kept
])
def test_terminal_text_shows_every_control_character_as_an_escape(text: str, shown: str) -> None:
    assert terminal(text) == shown


def test_markdown_text_is_escaped_and_code_is_literal() -> None:
    hostile = "<script>x</script><img src=x onerror=y></table>|a|`b` *c* [d](e) &"
    assert _escape(hostile) == ("&lt;script&gt;x&lt;/script&gt;&lt;img src=x onerror=y&gt;&lt;/table&gt;\\|a\\|\\`b\\` "
                                "\\*c\\* \\[d\\](e) &amp;")
    assert _escape("two\nlines\r") == "two lines"
    assert _code("a `b` c") == "``a `b` c``" and _code("`x`") == "`` `x` ``" and _code("p|q") == "`p|q`"
    assert _cell(Code("p|q")) == "`p\\|q`" and _cell("p|q") == "p\\|q"
