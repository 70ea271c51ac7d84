"""Reports of a conformance run: coverage, certification statement, and report.json / junit.xml / report.md /
report.html, all rendered from one report document built from results.jsonl.

    from ascendc_conformance.reports import write_all
    written = write_all(report_dir)        # reads <report_dir>/results.jsonl, writes the four reports there

`write_all(report_dir, results=None)` -> {"json": Path, "junit": Path, "md": Path, "html": Path}. Pass
`results` (a RunResults, e.g. merged shards from `load_results(dir1, dir2)`) to report something other than
the results.jsonl of `report_dir`. `render(fmt, results, report_dir)` gives one format's text.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from ascendc_conformance.format.errors import MachineFault
from ascendc_conformance.format.files import write_atomic

from ascendc_conformance.reports.model import ReportError, RunResults, TestResult, load_results, merge
from ascendc_conformance.reports.render_json import build_report, render_json
from ascendc_conformance.reports.render_junit import render_junit
from ascendc_conformance.reports.render_md import render_md
from ascendc_conformance.reports.render_html import render_html
from ascendc_conformance.reports.verdict import verdict_lines
from ascendc_conformance.spec.model import Spec

FORMATS: dict[str, str] = {"json": "report.json", "junit": "junit.xml", "md": "report.md", "html": "report.html"}

__all__ = ["FORMATS", "ReportError", "RunResults", "TestResult", "build_document", "load_results", "merge",
           "render", "render_document", "verdict_lines", "write_all", "write_text"]


def _renderer(fmt: str) -> Callable[[dict[str, Any]], str]:
    if fmt == "json":
        return render_json
    if fmt == "junit":
        return render_junit
    if fmt == "md":
        return render_md
    if fmt == "html":
        return render_html
    raise ReportError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")


def build_document(results: RunResults, report_dir: str | os.PathLike[str] | None = None, *, spec: Spec,
                   details: bool = False) -> dict[str, Any]:
    """The report document (report.json content) of `results` against `spec`; replay paths relative to
    `report_dir`; every test in full with `details` (else the tests that did not fail are summarised)."""
    return build_report(results, spec=spec, report_dir=report_dir, details=details)


def render_document(fmt: str, doc: dict[str, Any]) -> str:
    """One format's text from a report document."""
    return _renderer(fmt)(doc)


def render(fmt: str, results: RunResults, report_dir: str | os.PathLike[str] | None = None, *, spec: Spec) -> str:
    """One format's text (json, junit, md or html) of `results` against `spec`."""
    renderer = _renderer(fmt)
    return renderer(build_document(results, report_dir, spec=spec))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write atomically (format.files.write_atomic): a reader never sees half a report. MachineFault naming the
    file when the machine will not let it be written (a full disk, a read-only file system, ...)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_atomic(path, text.encode("utf-8"))
    except OSError as error:
        raise MachineFault(path, error) from None


def write_all(report_dir: str | os.PathLike[str], results: RunResults | None = None, *, spec: Spec,
              formats: tuple[str, ...] = tuple(FORMATS), details: bool = False) -> dict[str, Path]:
    """Write report.json, junit.xml, report.md and report.html into `report_dir`, from `results` or else from
    `<report_dir>/results.jsonl`, against `spec`. Returns {format: path}. Raises ReportError if there are no
    usable results."""
    report_dir = Path(report_dir)
    if results is None:
        results = load_results(report_dir)
    doc = build_document(results, report_dir, spec=spec, details=details)
    return {fmt: write_text(report_dir / FORMATS[fmt], _renderer(fmt)(doc)) for fmt in formats}
