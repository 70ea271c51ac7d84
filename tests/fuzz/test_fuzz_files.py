"""Fuzzing every file the suite reads — spec files (through `spec check`), replay files (through `replay`),
results files (through the reports) and waiver files — with mutations of valid files: a value swapped for
another type, a key deleted, NaN, 1e400, a huge integer, nesting 100 deep, an alias bomb, a byte that is not
UTF-8, a NUL byte.

Each loader either reads the file (and then loses nothing of it: every test record reaches the report, every
report renders and report.json follows its schema) or refuses it with the project's own error, on one line
naming the file (and the line, for results). No other exception escapes. Seeded and bounded (derandomized,
a few dozen examples per loader): a few seconds each.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from ascendc_conformance import reference
from ascendc_conformance.cli.main import build_parser, main
from ascendc_conformance.format import replay
from ascendc_conformance.format.case import Result, ResultStatus
from ascendc_conformance.reports import ReportError, load_results, write_all
from ascendc_conformance.reports.render_json import validate_report
from ascendc_conformance.runner.waivers import WaiverError, load as load_waivers
from ascendc_conformance.spec.loader import SPEC_DIR, load_spec
from tests.helpers.casebuild import sentinel, typed_case

FUZZ = settings(max_examples=40, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SPEC = load_spec()
RULES = SPEC.rules
build_parser()   # imports every verb now: the run's Hypothesis profiles are registered outside any @settings

# --- mutations --------------------------------------------------------------------------------------------------------

NAN, INF, DEEP = "__nan__", "__1e400__", "__deep__"   # placeholders, written out as raw text after dumping
ALIAS_BOMB = "bomb_a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"bomb_{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefghi", "bcdefghij"))
REPLACEMENTS = (None, True, -1, 0, 10**30, 1.5, "", "x" * 300, [], {}, [1, "a"], {"k": 1}, NAN, INF, DEEP)


def paths_of(value: Any, path: tuple = ()) -> list[tuple]:
    """Every key path of a JSON-like document, the document's own () first."""
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths_of(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths_of(child, path + (index,))
    return found


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> tuple[Any, tuple]:
    """A deep copy of `document` with one value at a drawn path replaced by another type, or deleted."""
    copy = json.loads(json.dumps(document))
    paths = paths_of(copy)
    path = paths[draw(st.integers(1, len(paths) - 1))] if len(paths) > 1 else ()
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    if draw(st.booleans()) and path:   # delete
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(st.sampled_from(REPLACEMENTS))
    return copy, path


def as_json(document: Any) -> bytes:
    text = json.dumps(document)
    return text.replace(f'"{NAN}"', "NaN").replace(f'"{INF}"', "1e400").replace(
        f'"{DEEP}"', "[" * 100 + "]" * 100).encode()


def as_yaml(document: Any) -> bytes:
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=10_000)
    return text.replace(f"'{NAN}'", ".nan").replace(f"'{INF}'", "1e400").replace(
        f"'{DEEP}'", "[" * 100 + "]" * 100).encode()


@st.composite
def spoiled(draw: st.DrawFn, raw: bytes) -> bytes:
    """`raw` with a byte that is not UTF-8 or a NUL byte inserted, or unchanged."""
    kind = draw(st.sampled_from(["none", "latin-1", "nul"]))
    if kind == "none":
        return raw
    at = draw(st.integers(0, len(raw)))
    return raw[:at] + (b"\xe9" if kind == "latin-1" else b"\x00") + raw[at:]


def one_line(message: str, prefix: str) -> None:
    assert message.startswith(prefix) and "\n" not in message and "Traceback" not in message, message


def quietly(argv: list[str]) -> tuple[int, str]:
    """main(argv) with its output captured: (exit code, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


# --- spec files -------------------------------------------------------------------------------------------------------

SPEC_FILES = ("dtypes.yaml", "products.yaml", "loaddata2d.yaml", "disputes.yaml")
ISSUE = re.compile(r"^[\w.-]+\.yaml(:\d+)?( at '[^\n]*')?: \S")


@st.composite
def spec_files(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(SPEC_FILES))
    document = yaml.safe_load((SPEC_DIR / name).read_text(encoding="utf-8"))
    if draw(st.integers(0, 9)) == 0:
        return name, ((SPEC_DIR / name).read_text(encoding="utf-8") + ALIAS_BOMB).encode()
    changed, _ = draw(mutated(document))
    return name, draw(spoiled(as_yaml(changed)))


@FUZZ
@given(spec_files())
def test_spec_check_refuses_a_mutated_spec_file_issue_by_issue(drawn: tuple[str, bytes]) -> None:
    """`spec check FILE` exits 0 or 1; on 1 every issue is one line `file:line at 'key': message`."""
    name, raw = drawn
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(raw)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["spec", "check", str(path)])
    lines = out.getvalue().splitlines()
    assert code in (0, 1), lines
    if code == 1:
        assert lines[-1].startswith("spec check failed: ") and lines[:-1], lines
        for line in lines[:-1]:
            assert ISSUE.match(line), line
    else:
        assert lines[-1].startswith("spec OK: "), lines


# --- replay files -----------------------------------------------------------------------------------------------------

def valid_replay(directory: Path) -> Path:
    case = typed_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                      {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                      {"GM": sentinel(64, 1), "UB": sentinel(64, 2)})
    return replay.save(directory, "test_legal[atlas-a2-DataCopy-GM->VECIN-half]", case, reference.expect(case, SPEC),
                       Result(ResultStatus.OK), {"outcome": "fail", "message": "memory differs", "reading": "seed"},
                       "reference")


@FUZZ
@given(st.data())
def test_replay_refuses_a_mutated_replay_file_in_one_line(data: st.DataObject) -> None:
    """`replay FILE --target reference` exits 0 or 1 (the case ran) or 2 with one line naming the file."""
    with tempfile.TemporaryDirectory() as directory:
        path = valid_replay(Path(directory))
        changed, _ = data.draw(mutated(json.loads(path.read_text())))
        path.write_bytes(data.draw(spoiled(as_json(changed))))
        try:
            replay.load(path)
        except replay.ReplayError as error:
            one_line(str(error), f"{path}: ")
        code, err = quietly(["replay", str(path), "--target", "reference"])
    assert code in (0, 1, 2), err
    if code == 2:
        assert err.count("\n") == 1, err
        one_line(err.rstrip("\n"), f"ascendc-conformance: error: {path}: ")


# --- results files ----------------------------------------------------------------------------------------------------

RUN = {"record": "run", "started": "2024-05-01T10:00:00+00:00", "target": "reference", "hello": {"name": "ref"},
       "suite_version": "0.1.0", "spec_digest": load_spec().digest, "profile": "ci", "seed": "7",
       "products": ["atlas-a2"], "apis": ["DataCopy"], "reading": "seed", "reading_choices": {}, "shard": None,
       "workers": 1, "machine": {"node": "box", "hypothesis": "6.0"}, "waivers": [],
       "command": "ascendc-conformance run --target reference"}
TESTS = [
    {"record": "test", "test_id": "test_legal[atlas-a2-DataCopy-GM->VECIN-half]", "kind": "legal",
     "product": "atlas-a2", "api": "DataCopy", "route": "GM->VECIN", "src_dtype": "half", "dst_dtype": "half",
     "rule": None, "variant": None, "verdict": "pass", "counts": {"pass": 10}, "cases": 10,
     "tags": {"path:atlas-a2-DataCopy-GM->VECIN-half": 10, "hit:DataCopy-blockCount-max": 10}, "disputed": {},
     "dispute_examples": {}, "message": "", "diff": None, "replay": None, "replay_command": None,
     "duration_s": 0.5, "waiver": None, "skip": None, "skipped_reason": None, "case": None, "other_rule": 0},
    {"record": "test", "test_id": "test_legal[atlas-a2-DataCopy-GM->VECIN-float]", "kind": "legal",
     "product": "atlas-a2", "api": "DataCopy", "route": "GM->VECIN", "src_dtype": "float", "dst_dtype": "float",
     "rule": None, "variant": None, "verdict": "fail", "counts": {"pass": 3, "fail": 1}, "cases": 4,
     "tags": {"path:atlas-a2-DataCopy-GM->VECIN-float": 4}, "disputed": {}, "dispute_examples": {},
     "message": "memory differs: 4 bytes in 1 run (wrong-value)",
     "diff": {"differing_bytes": 4, "total_runs": 1, "bytes_by_class": {"wrong-value": 4},
              "runs_by_class": {"wrong-value": 1}, "truncated": False,
              "runs": [{"region": "UB", "start": 64, "stop": 68, "class": "wrong-value", "differing": 4,
                        "expected": "00 3c", "actual": "00 00", "location": "dst element 0"}]},
     "replay": "replays/float.json", "replay_command": "ascendc-conformance replay replays/float.json --target x",
     "duration_s": 0.7, "waiver": None, "skip": None, "skipped_reason": None, "other_rule": 0,
     "case": {"product": "atlas-a2", "api": "DataCopy", "route": "GM->VECIN", "src_dtype": "float",
              "dst_dtype": "float", "src_address": 0, "dst_address": 64,
              "params": {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0}}},
    {"record": "test", "test_id": "test_illegal[DataCopy-blockCount-min:below]", "kind": "illegal",
     "product": None, "api": "DataCopy", "route": None, "src_dtype": None, "dst_dtype": None,
     "rule": "DataCopy-blockCount-min", "variant": "below", "verdict": "disputed", "counts": {"disputed": 5},
     "cases": 5, "tags": {"fault:DataCopy-blockCount-min": 5}, "disputed": {"D1": {"seed": 3, "devkit": 2}},
     "dispute_examples": {"D1": {"seed": {"blockCount": 0}, "devkit": {"blockCount": 0, "blockLen": 0}}},
     "message": "depends on D1", "diff": None, "replay": None, "replay_command": None, "duration_s": 0.2,
     "waiver": {"rule": "DataCopy-blockCount-min", "test": None, "reason": "r", "link": "l"}, "skip": None,
     "skipped_reason": None, "case": None, "other_rule": 0},
]
END = {"record": "end", "finished": "2024-05-01T10:30:00+00:00", "exit_status": 1}
RECORDS = [RUN, *TESTS, END]


@FUZZ
@given(st.data())
def test_a_mutated_results_file_is_reported_in_full_or_refused_naming_its_line(data: st.DataObject) -> None:
    """Read: every test record is in the results, and all four reports render (report.json valid). Refused:
    one ReportError line naming the mutated line."""
    index = data.draw(st.integers(0, len(RECORDS) - 1))
    changed, _ = data.draw(mutated(RECORDS[index]))
    lines = [as_json(record) for record in RECORDS]
    lines[index] = data.draw(spoiled(as_json(changed)))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "results.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        try:
            results = load_results(directory)
        except ReportError as error:
            one_line(str(error), f"{path}:")
            assert str(error).startswith(f"{path}:{index + 1}: ") or "no run record" in str(error), error
            return
        lost_kind = index in range(1, len(TESTS) + 1) and changed.get("record") != "test"   # now another kind
        assert len(results.tests) + len(results.duplicates) == len(TESTS) - lost_kind, (results.tests, changed)
        written = write_all(directory, results, spec=SPEC)
        validate_report(json.loads(written["json"].read_text(encoding="utf-8")))


# --- waiver files -----------------------------------------------------------------------------------------------------

WAIVERS = [{"rule": "DataCopy-dstGap-range", "reason": "clamps dstGap", "link": "TRACK-1"},
           {"test": "test_legal[atlas-a2-DataCopy-GM->VECIN-half]", "reason": "flaky", "link": "TRACK-2"}]


@st.composite
def waiver_files(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return (yaml.safe_dump(WAIVERS) + ALIAS_BOMB.replace("bomb_", "- bomb_")).encode()
    changed, _ = draw(mutated(WAIVERS))
    return draw(spoiled(as_yaml(changed)))


@FUZZ
@given(waiver_files())
def test_a_mutated_waiver_file_is_loaded_or_refused_in_one_line(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "waivers.yaml"
        path.write_bytes(raw)
        try:
            waivers = load_waivers(path, RULES)
        except WaiverError as error:
            one_line(str(error), f"{path}")
            return
    assert all(isinstance(w.reason, str) and isinstance(w.link, str) and (w.rule in RULES or isinstance(w.test, str))
               for w in waivers), waivers
