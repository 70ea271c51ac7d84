"""The command line: `spec paths|rules|disputes|check`, `expect FILE|-`, --help and --version, errors.

Everything runs in-process through ascendc_conformance.cli.main.main with capsys, except one subprocess test of
`python -m conformance spec paths --json`.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import strategies as st

import ascendc_conformance
from ascendc_conformance.format.case import Case
from ascendc_conformance.cli import main as cli
from ascendc_conformance.cli.main import main
from ascendc_conformance.spec.loader import SPEC_DIR, load_spec
from ascendc_conformance.strategies.sample import draw
from tests.helpers.casebuild import expect_json, illegal_case, legal_case, make_case, sentinel

ROOT = Path(__file__).resolve().parents[2]
PATH_KEYS = {"product", "api", "src", "dst", "src_dtype", "dst_dtype", "forms", "src_memory", "dst_memory",
             "citation", "depends_on"}


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- top level -------------------------------------------------------------------------------------

def test_top_level_help_lists_the_verbs(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "Ascend C" in out and "spec" in out and "expect" in out and "examples:" in out


def test_version(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and ascendc_conformance.__version__ in out


def test_no_verb_prints_help_and_fails(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run(capsys)
    assert code == 2 and out == "" and "spec" in err


def test_unknown_verb_is_a_usage_error(capsys: pytest.CaptureFixture) -> None:
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and "frobnicate" in err


def test_commands_are_modules_with_register() -> None:
    import importlib

    assert "ascendc_conformance.cli.commands.spec_cmd" in cli.COMMANDS and "ascendc_conformance.cli.commands.expect_cmd" in cli.COMMANDS
    for name in cli.COMMANDS:
        assert callable(importlib.import_module(name).register)


@pytest.mark.parametrize("verb", [["spec"], ["spec", "paths"], ["spec", "rules"], ["spec", "disputes"],
                                  ["spec", "check"], ["expect"]])
def test_help_of_every_verb(capsys: pytest.CaptureFixture, verb: list[str]) -> None:
    code, out, _ = run(capsys, *verb, "--help")
    assert code == 0
    assert f"ascendc-conformance {' '.join(verb)}" in out  # usage line names the verb
    assert "examples:" in out and f"ascendc-conformance {' '.join(verb)}" in out.split("examples:", 1)[1]


def test_closed_stdout_is_not_a_traceback(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from ascendc_conformance.cli.commands import spec_cmd

    def closed(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(spec_cmd, "write_json", closed)
    code, _, err = run(capsys, "spec", "disputes", "--json")
    assert code == 1 and "Traceback" not in err


# --- spec paths / rules / disputes -----------------------------------------------------------------

def test_spec_paths_json(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run(capsys, "spec", "paths", "--json")
    assert code == 0 and err == ""
    records = json.loads(out)
    assert isinstance(records, list) and len(records) == len(load_spec().paths())
    assert all(set(record) == PATH_KEYS for record in records)


def test_spec_rules_json_has_every_rule(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "spec", "rules", "--json")
    assert code == 0
    records = json.loads(out)
    spec = load_spec()
    assert [r["id"] for r in records] == list(spec.rules)
    for record in records:
        assert {"id", "api", "kind", "status", "products", "citation"} <= set(record)
        rule = spec.rule(record["id"])
        assert record == {**rule.to_json(), **{k: v for k, v in record.items() if k.startswith("dispute_")}}
        if rule.dispute:
            point = spec.disputes[rule.dispute]
            assert record["dispute_default"] == point.default
            assert record["dispute_alternatives"] == dict(point.alternatives)
        else:
            assert "dispute_default" not in record


def test_spec_rules_filters(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "spec", "rules", "--json", "--api", "LoadData2D", "--status", "disputed", "--kind", "range")
    assert code == 0
    records = json.loads(out)
    expected = [r.id for r in load_spec().rules.values()
                if r.api == "LoadData2D" and r.status == "disputed" and r.kind == "range"]
    assert expected and [r["id"] for r in records] == expected
    code, out, _ = run(capsys, "spec", "rules", "--json", "--api", "common")
    assert code == 0 and {r["api"] for r in json.loads(out)} == {None}
    code, out, _ = run(capsys, "spec", "rules", "--json", "--product", "910A", "--api", "LoadData2D")
    assert "LoadData2D-dstGap-training-D24" in {r["id"] for r in json.loads(out)}
    code, out, _ = run(capsys, "spec", "rules", "--json", "--product", "910B", "--api", "LoadData2D")
    assert "LoadData2D-dstGap-training-D24" not in {r["id"] for r in json.loads(out)}


@pytest.mark.parametrize("option, value", [("--status", "maybe"), ("--kind", "sizes"), ("--api", "Nope"),
                                           ("--product", "910Z")])
def test_spec_rules_unknown_filter(capsys: pytest.CaptureFixture, option: str, value: str) -> None:
    code, out, err = run(capsys, "spec", "rules", option, value)
    assert code == 2 and out == "" and value in err and "valid" in err and "Traceback" not in err


def test_spec_rules_table(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "spec", "rules", "--api", "DataCopy")
    assert code == 0
    assert "DataCopy-blockCount-max" in out and "Memory-bounds" not in out
    assert f"{len(load_spec().apis['DataCopy'].rules)} rules" in out


def test_spec_disputes(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "spec", "disputes", "--json")
    assert code == 0
    records = json.loads(out)
    spec = load_spec()
    assert [r["id"] for r in records] == list(spec.disputes)
    d1 = next(r for r in records if r["id"] == "D1")
    assert d1["default"] == spec.disputes["D1"].default and "devkit" in d1["alternatives"]
    assert "DataCopy-blockCount-min" in d1["rules"] and d1["computed"] == ["devkit"] and d1["uncomputable"] == {}
    d15 = next(r for r in records if r["id"] == "D15")
    assert d15["computed"] == [] and d15["uncomputable"]["vendor-floor"] == spec.disputes["D15"].uncomputable["vendor-floor"]
    code, out, _ = run(capsys, "spec", "disputes")
    assert code == 0 and "D28" in out and f"{len(records)} disputed points" in out
    assert "(not computed:" in out and "devkit: D1=devkit" in out


def test_spec_dir(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    for path in SPEC_DIR.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    nz2nd = tmp_path / "datacopy_nz2nd.yaml"
    nz2nd.write_text(nz2nd.read_text(encoding="utf-8").replace("products: [atlas-a3, atlas-a2], routes: [[VECOUT, GM]]",
                                                                "products: [atlas-a3], routes: [[VECOUT, GM]]"),
                     encoding="utf-8")
    code, out, _ = run(capsys, "spec", "paths", "--json", "--api", "DataCopyNz2Nd", "--spec-dir", str(tmp_path))
    assert code == 0 and {r["product"] for r in json.loads(out)} == {"atlas-a3"}
    code, _, err = run(capsys, "spec", "paths", "--spec-dir", str(tmp_path / "nowhere"))
    assert code == 2 and "not a directory" in err


def test_broken_spec_dir_is_a_clean_error(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    for path in SPEC_DIR.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "dtypes.yaml").write_text("kind: dtypes\ndtypes: [\n", encoding="utf-8")
    code, out, err = run(capsys, "spec", "rules", "--spec-dir", str(tmp_path))
    assert code == 2 and out == ""
    assert "dtypes.yaml" in err and "not valid YAML" in err and "Traceback" not in err


# --- spec check ------------------------------------------------------------------------------------

def test_spec_check_ok(capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run(capsys, "spec", "check")
    spec = load_spec()
    assert code == 0
    assert out.startswith("spec OK:")
    assert f"{len(spec.rules)} rules" in out and f"{len(spec.paths())} paths" in out and spec.digest in out


def test_spec_check_override_ok(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    copy = tmp_path / "common.yaml"
    copy.write_text((SPEC_DIR / "common.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(capsys, "spec", "check", str(copy))
    assert code == 0 and out.startswith("spec OK:")


def test_spec_check_broken_file(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    broken = tmp_path / "datacopy.yaml"
    text = (SPEC_DIR / "datacopy.yaml").read_text(encoding="utf-8")
    broken.write_text(text.replace("field: srcGap, min: 0, max: 65535", "field: srcGap, min: 7000, max: 6535", 1),
                      encoding="utf-8")
    line = next(n for n, l in enumerate(broken.read_text(encoding="utf-8").splitlines(), 1) if "min: 7000" in l)
    code, out, err = run(capsys, "spec", "check", str(broken))
    assert code == 1
    assert f"datacopy.yaml:{line} at 'rules." in out and "min 7000 > max 6535" in out
    assert "1 issue" in out and "Traceback" not in out + err


def test_spec_check_sees_in_place_edits(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """The loader's cache must not hide an edit made between two checks of the same path."""
    path = tmp_path / "common.yaml"
    text = (SPEC_DIR / "common.yaml").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    assert run(capsys, "spec", "check", str(path))[0] == 0
    path.write_text(text.replace("kind: common", "kind: commons", 1), encoding="utf-8")
    code, out, _ = run(capsys, "spec", "check", str(path))
    assert code == 1 and "common.yaml" in out and "'commons'" in out
    path.write_text(text, encoding="utf-8")
    assert run(capsys, "spec", "check", str(path))[0] == 0


def test_spec_check_missing_file(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    code, out, err = run(capsys, "spec", "check", str(tmp_path / "nope.yaml"))
    assert code == 2 and "nope.yaml" in err and "Traceback" not in err


def test_spec_check_refuses_two_files_of_one_name(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """Each FILE replaces the packaged file of its name: of two, one would be dropped without a word."""
    for directory in ("a", "b"):
        (tmp_path / directory).mkdir()
        (tmp_path / directory / "common.yaml").write_text((SPEC_DIR / "common.yaml").read_text(encoding="utf-8"),
                                                          encoding="utf-8")
    code, _, err = run(capsys, "spec", "check", str(tmp_path / "a" / "common.yaml"), str(tmp_path / "b" / "common.yaml"))
    assert code == 2 and "two FILES of one name" in err and "Traceback" not in err


# --- expect ----------------------------------------------------------------------------------------

def test_expect_file(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    case = legal_case()
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    code, out, _ = run(capsys, "expect", str(path))
    assert code == 0
    assert json.loads(out) == expect_json(case)
    assert json.loads(out)["status"] == "ok"
    assert "\n  " in out  # pretty-printed


def half_to_float_case() -> dict:
    """C1 -> C2 half -> float, one 64-B block: depends on D13 (source or destination bytes)."""
    return make_case("DataCopy", "atlas-a2", ("C1", "half", 0), ("C2", "float", 0),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"L1": sentinel(256, 4), "BT": sentinel(256, 5)})


def test_expect_under_a_reading_and_every_reading(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    from ascendc_conformance.format.case import Case

    path = tmp_path / "case.json"
    path.write_text(json.dumps(half_to_float_case()), encoding="utf-8")
    reading = load_spec().reading(["D13=destination-bytes"])
    code, out, _ = run(capsys, "expect", "--reading", "D13=destination-bytes", str(path))
    assert code == 0 and json.loads(out) == expect_json(half_to_float_case(), reading=reading)
    assert json.loads(out) != expect_json(half_to_float_case())   # the readings move different bytes
    code, out, _ = run(capsys, "expect", "--readings", str(path))
    shown = json.loads(out)
    assert code == 0 and shown["reading"] == "seed" and shown["points"] == ["D13"]
    assert [(o["reading"], o["status"], o["same_as"]) for o in shown["outcomes"]] == \
        [("seed", "ok", None), ("D13=destination-bytes", "ok", None)]
    code, out, err = run(capsys, "expect", "--reading", "D13=source", str(path))
    assert code == 2 and out == "" and "unknown alternative 'source' of D13" in err and "Traceback" not in err


def test_run_with_an_unknown_reading_is_a_clean_error(capsys: pytest.CaptureFixture) -> None:
    code, out, err = run(capsys, "run", "--target", "reference", "--reading", "D7=dstgap-64")
    assert code == 2 and "unknown alternative 'dstgap-64' of D7" in err and "Traceback" not in out + err


def test_expect_file_with_an_invalid_case(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_text(json.dumps({**legal_case(), "api": "Memcpy"}), encoding="utf-8")
    code, out, _ = run(capsys, "expect", str(path))
    assert code == 1 and json.loads(out)["status"] == "error"


@pytest.mark.parametrize("content, phrase", [
    (None, "no such case file"), (b"{not json", "not JSON (Expecting property name"),
    (b"[" * 100_000, "JSON nested deeper than 64 levels"), (b"\xff{}", "not UTF-8 text (byte 0xff"),
    (b'{"case_format": NaN}', "NaN is not JSON"), (b"\0\0", "holds a NUL character"),
])
def test_expect_unreadable_file(capsys: pytest.CaptureFixture, tmp_path: Path, content: bytes | None, phrase: str) -> None:
    path = tmp_path / "case.json"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(capsys, "expect", str(path))
    assert code == 2 and out == ""
    assert str(path) in err and phrase in err and "Traceback" not in err


def test_expect_stream(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [json.dumps(legal_case()), "{this is not json", "", json.dumps(illegal_case())]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "expect", "-")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 3 and len(out.splitlines()) == 3
    assert results[0] == expect_json(legal_case()) and results[0]["status"] == "ok"
    assert results[1]["status"] == "error" and "line 2" in results[1]["message"]
    assert results[2]["status"] == "rejected" and "DataCopy-route" in results[2]["rules"]
    assert all(" " not in line.split('"message"')[0] for line in out.splitlines())  # compact


def test_expect_stream_malformed_lines(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    bad_case = {**legal_case(), "product": "atlas-z9"}
    lines = ["[1, 2]", "   ", json.dumps(bad_case), '"text"', json.dumps(legal_case())]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines)))  # no final newline
    code, out, _ = run(capsys, "expect", "-")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in results] == ["error", "error", "error", "ok"]
    assert "line 1" in results[0]["message"] and "object" in results[0]["message"]
    assert "line 3" in results[1]["message"] and "atlas-z9" in results[1]["message"]
    assert "line 4" in results[2]["message"]


def test_expect_stream_answers_every_line_through_the_bounded_loader(capsys, monkeypatch) -> None:
    """A line nested 100,000 deep, with NaN, or of NUL bytes gets an error result naming it; the stream goes on."""
    raw = b"\n".join([b"[" * 100_000, b'{"case_format": NaN}', b"\0" * 16, json.dumps(legal_case()).encode()])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw + b"\n"), encoding="utf-8"))
    code, out, err = run(capsys, "expect", "-")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["status"] for r in results] == ["error", "error", "error", "ok"]
    assert [r["message"] for r in results[:3]] == ["line 1: JSON nested deeper than 64 levels",
                                                   "line 2: NaN is not JSON (JSON has no NaN or Infinity)",
                                                   "line 3: holds a NUL character (at offset 0); expected JSON text"]
    assert "Traceback" not in err


def test_expect_stream_non_utf8_line(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = b"\xff\xfe\n" + json.dumps(legal_case()).encode() + b"\n"
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run(capsys, "expect", "-")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["status"] for r in results] == ["error", "ok"]
    assert "line 1" in results[0]["message"] and "UTF-8" in results[0]["message"]


# --- the real command ------------------------------------------------------------------------------

def test_python_m_conformance_spec_paths_json() -> None:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "spec", "paths", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    assert len(records) == len(load_spec().paths())
    assert all(set(record) == PATH_KEYS for record in records)


def test_sample_prints_cases_with_their_expected_result(capsys) -> None:
    assert main(["sample", "--api", "LoadData2D", "--product", "910B", "--route", "GM-A1", "--dtype", "half",
                 "-n", "4", "--seed", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 4 and len({json.dumps(line["case"], sort_keys=True) for line in lines}) == 4
    for line in lines:
        case = line["case"]
        assert (case["api"], case["product"], case["src"]["position"], case["dst"]["position"],
                case["src"]["dtype"]) == ("LoadData2D", "atlas-a2", "GM", "A1", "half")
        assert line["expected"] == expect_json(case) and line["expected"]["status"] == "ok"
    assert main(["sample", "--api", "LoadData2D", "--product", "910B", "--route", "GM->A1", "--dtype", "half",
                 "-n", "4", "--seed", "3"]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == lines   # same seed, same cases


def test_sample_never_prints_a_case_twice(capsys) -> None:
    """Hypothesis may draw a case twice (`sample -n 12` once printed one twice): only distinct cases are
    printed, as many as asked when there are that many, fewer when the selection has fewer."""
    assert main(["sample", "--api", "DataCopy", "--product", "atlas-a2", "-n", "12", "--seed", "0"]) == 0
    cases = [json.dumps(json.loads(line)["case"], sort_keys=True) for line in capsys.readouterr().out.splitlines()]
    assert len(cases) == len(set(cases)) == 12
    one, other = Case.from_json(legal_case()), Case.from_json(illegal_case())
    two = draw(st.sampled_from([one, other]), 5, seed=1, keep=lambda case: case)
    assert sorted(two, key=repr) == sorted([one, other], key=repr)


def test_sample_of_an_illegal_rule_gives_rejected_single_faults(capsys) -> None:
    assert main(["sample", "--api", "DataCopy", "--product", "atlas-a2", "--illegal", "DataCopy-blockCount-max",
                 "-n", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(line["expected"]["status"] == "rejected"
                         and line["expected"]["rules"] == ["DataCopy-blockCount-max"] for line in lines)


def test_sample_says_what_matched_nothing(capsys) -> None:
    assert main(["sample", "--api", "DataCopy", "--product", "910B", "--route", "GM-L0A"]) == 2
    assert "no documented DataCopy path on atlas-a2 matches route GM-L0A" in capsys.readouterr().err
    assert main(["sample", "--api", "DataCopy", "--product", "910B", "--illegal", "No-such-rule"]) == 2
    assert "no rule 'No-such-rule'" in capsys.readouterr().err
