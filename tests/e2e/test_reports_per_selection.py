"""Reports render for every selection a run can make: each API alone, each product alone, one shard.

A run restricted to DataCopySlice once failed while writing its reports (slice params are nested lists of
objects, which a disputed point's example kept as read-only views): every format is rendered here from a
real run of the reference, and report.json is validated against its schema.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.reports.render_json import validate_report
from ascendc_conformance.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
REPORT_FILES = ("results.jsonl", "report.json", "junit.xml", "report.md", "report.html")
SPEC = load_spec()


def _first_product(api: str) -> str:
    return next(path.product for path in SPEC.paths(api=api))


SELECTIONS = {
    **{f"api-{api}": ["--api", api, "--product", _first_product(api)] for api in SPEC.apis},
    "product-atlas-training": ["--product", "atlas-training"],
    "shard-2-of-3": ["--product", "atlas-a2", "--api", "DataCopySlice", "--api", "DataCopyNz2Nd", "--shard", "2/3"],
}


@pytest.mark.parametrize("selection", SELECTIONS.values(), ids=SELECTIONS.keys())
def test_every_report_format_is_written_for_the_selection(tmp_path, selection):
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", "reference",
                           "--profile", "quick", "--seed", "1", "--report", str(tmp_path), *selection],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr
    for name in REPORT_FILES:
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0, name
    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    # a shard alone is one part of a run: incomplete until its siblings are merged in; a quick run of a selection
    # leaves reachable bits untested (too few cases, or other products): it conforms on what was run, naming them
    # leaves reachable bits untested when its cases are too few or other products reach them: it then conforms on
    # what was run, naming them, and only a run that leaves none untested conforms plainly
    certification = report["certification"]
    conforms = "conforms on what was run" if certification["untested"] else "conforms"
    assert certification["outcome"] == ("incomplete" if "--shard" in selection else conforms)
    assert bool(certification["untested"]) is ("Untested: " in certification["text"])
    # `report DIR` regenerates the same set from results.jsonl alone
    again = subprocess.run([sys.executable, "-m", "ascendc_conformance", "report", str(tmp_path), "--out",
                            str(tmp_path / "again")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert {p.name for p in (tmp_path / "again").iterdir()} >= set(REPORT_FILES[1:])
