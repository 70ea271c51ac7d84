"""report.html from the report document: one self-contained file (inline CSS, no JavaScript, no external assets,
fonts or links), rendered with Jinja2 from reports/templates/report.html.j2.

Sections (element ids), in page order: certification (an outcome banner `outcome`, key figures `figures`, then
the statement), heatmap (one table per product of the spec, rows API + route, columns dtypes, cells coloured by
the worst verdict; the selected products first, the others folded in a <details> `heatmap-unselected`), failures
(an index linking to `failure-<n>`, each a <details> with its diff and replay command, the first FAILURES_OPEN
unfolded), baseline (with `run --baseline`: every cause new, known, fixed or not re-checked), rules (rows
`rule-<id>`), bits (the bit coverage, rows `bits-<API>-<field>`), disputed, waivers (`waivers-used`,
`waivers-unmatched`), totals, run, and notes when there are any. Every value is HTML-escaped (Jinja's autoescape),
and control characters (of a target's text) are written as escapes (format.text): none reaches a terminal that
shows the file.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from ascendc_conformance.format.text import terminal
from ascendc_conformance.reports.bit_table import BITS_COLUMNS, BITS_INTRO, row_cells
from ascendc_conformance.reports.coverage import (NO_RESULT_STATES, READINGS_COLUMNS, READINGS_INTRO, STATE_SYMBOLS,
                                                  matrix_tables, reading_rows)
from ascendc_conformance.reports.model import VERDICT_ORDER

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE = "report.html.j2"


# Failures shown unfolded; the rest are folded (<details>) so that a run with hundreds of failures keeps the
# rule table within reach. The index above them links to every one.
FAILURES_OPEN = 10


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)


def render_html(doc: dict[str, Any]) -> str:
    coverage = doc["coverage"]
    tests, cases = doc["verdicts"]["tests"], doc["verdicts"]["cases"]
    verdict_names = [v for v in VERDICT_ORDER if v in tests or v in cases]
    verdict_names += [v for v in list(tests) + list(cases) if v not in verdict_names]
    symbols = {state: STATE_SYMBOLS[state] for state in (*VERDICT_ORDER, *NO_RESULT_STATES) if state in STATE_SYMBOLS}
    return terminal(_environment().get_template(TEMPLATE).render(
        doc=doc, run=doc["run"], cert=doc["certification"], coverage=coverage, tables=matrix_tables(coverage),
        symbols=symbols, verdict_names=verdict_names, failures_open=FAILURES_OPEN,
        failure_anchor={f["test_id"]: f"failure-{index}" for index, f in enumerate(doc["failures"], start=1)},
        readings_intro=READINGS_INTRO, readings_columns=READINGS_COLUMNS, readings=reading_rows(coverage["disputed"]),
        bits_intro=BITS_INTRO, bits_columns=BITS_COLUMNS, bits=[row_cells(row) for row in coverage.get("bits", ())],
        bits_summary=coverage.get("bits_summary")))
