"""Text from outside the suite, made inert where it is shown: a target's messages, rule names and stderr, the test
ids and notes of a results file. On a terminal a control character is printed as an escape (`\\x1b`), never
obeyed: an ESC[2J cannot clear the screen, an OSC sequence cannot retitle the window, a carriage return cannot
overwrite the suite's own line, a bidirectional override cannot reorder it. Line feeds and tabs are kept
(a verdict's diff spans lines). report.md escapes Markdown and HTML itself (reports.render_md), junit.xml and
report.html are escaped by their writers.
"""
from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but tab and line feed, DEL, C1 controls (a CSI on its own: U+009B), and the bidirectional
embeddings, overrides and isolates."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text: str) -> str:
    """`text` with every control character but line feed and tab written as an escape (`\\x1b[2J`)."""
    return _CONTROL.sub(_escape, text)
