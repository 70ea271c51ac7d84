"""format.replay: a saved replay file loads back; a malformed one is one ReplayError line naming the file, the
field and what it accepts, and `replay` exits 2 on it without a traceback."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.cli.main import main
from ascendc_conformance.format import replay
from ascendc_conformance.format.outcome import Outcome
from tests.helpers.casebuild import make_case, sentinel


def saved_case() -> dict:
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"GM": sentinel(64, 1), "UB": sentinel(64, 2)})


def saved_file(directory: Path) -> Path:
    case = Case.from_json(saved_case())
    expected = reference.expect(case, load_spec())
    return replay.save(directory, "test_legal[atlas-a2-DataCopy-GM->VECIN-half]", case, expected, Result(ResultStatus.OK),
                       {"outcome": "fail", "message": "memory differs", "reading": "seed"}, "reference")


def test_a_saved_file_loads_back(tmp_path: Path) -> None:
    loaded = replay.load(saved_file(tmp_path))
    assert loaded == replay.Replay(case=Case.from_json(saved_case()), test_id="test_legal[atlas-a2-DataCopy-GM->VECIN-half]",
                                   outcome=Outcome.FAIL, reading="seed")


def _set(path: tuple, value):
    def edit(data: dict) -> None:
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value
    return edit


@pytest.mark.parametrize("edit, words", [
    (_set(("verdict",), [1]), "'verdict': expected object or null, got list [1]"),
    (_set(("case",), None), "'case': expected object, got NoneType None"),
    (_set(("case", "params"), "x"), "case.params: 'x' is not of type 'object'"),
    (_set(("case", "memory", "UB", "data"), "@@"), "case.memory.UB.data is not valid base64"),
    (_set(("verdict", "outcome"), 5), "'verdict.outcome': expected string, got int 5"),
    (_set(("verdict", "outcome"), "great"), "'verdict.outcome': unknown verdict 'great'; expected one of crashed"),
    (_set(("verdict", "reading"), 3), "'verdict.reading': expected string or null, got int 3"),
    (_set(("replay_format",), 2), "'replay_format': 2 is not one of: 1"),
    (_set(("test_id",), ["t"]), "'test_id': expected string, got list ['t']"),
])
def test_each_malformed_field_is_named(tmp_path: Path, edit, words) -> None:
    path = saved_file(tmp_path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(replay.ReplayError) as raised:
        replay.load(path)
    assert str(raised.value).startswith(f"{path}: {words}") and "\n" not in str(raised.value), raised.value


@pytest.mark.parametrize("raw, words", [
    (b"", "not JSON"),
    (b"[]", "not a replay file (expected an object with 'case')"),
    (b'{"case": ' + b"[" * 1000 + b"]" * 1000 + b"}", "JSON nested deeper than 64 levels"),
    (b'{"case": {}, "x": NaN}', "NaN is not JSON"),
    (b'{"case": {}, "x": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at line 1"),
])
def test_each_malformed_file_is_one_line(tmp_path: Path, raw: bytes, words: str) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(raw)
    with pytest.raises(replay.ReplayError, match=f"^{path}: ") as raised:
        replay.load(path)
    assert words in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("edit, words", [
    (_set(("verdict", "reading"), "D99=x"), "'verdict.reading': unknown disputed point 'D99'"),
    (_set(("case", "product"), "atlas-zz"), "unknown product 'atlas-zz'"),
    (lambda data: data["case"]["params"].pop("dstGap"), "match no parameter form of DataCopy"),
])
def test_replay_refuses_a_case_or_reading_the_suite_cannot_judge(tmp_path: Path, capsys, edit, words) -> None:
    """What only the spec can tell (a reading, a product, the parameters of a form): exit 2, one line."""
    path = saved_file(tmp_path)
    data = copy.deepcopy(json.loads(path.read_text()))
    edit(data)
    path.write_text(json.dumps(data))
    assert main(["replay", str(path), "--target", "reference"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ascendc-conformance: error: {path}: ") and words in err and err.count("\n") == 1, err


def test_a_packs_regions_are_saved_as_their_recipes_without_being_made(tmp_path: Path) -> None:
    """A pack's case carries its regions' recipes: each is saved as its recipe, large or small, whatever regions
    were made since, and its bytes are not made to save it; read back, each region keeps its recipe (`replay`
    sends it so to a target announcing region-fill, as the run did)."""
    from ascendc_conformance.format.case import RecipeRegion
    from ascendc_conformance.format.fill import LARGE_FILL_BYTES, Fill
    plain = Case.from_json(saved_case())
    large = RecipeRegion(0, Fill(5, LARGE_FILL_BYTES))
    case = Case(**{**plain.__dict__, "memory": {"GM": large, "UB": RecipeRegion(0, Fill(6, 64))}})
    path = replay.save(tmp_path, "test_legal[x]", case, Result(ResultStatus.OK), None,
                       {"outcome": "fail", "message": "memory differs", "reading": "seed"}, "reference")
    saved = json.loads(path.read_text())["case"]["memory"]
    assert saved == {"GM": {"address": 0, "fill": Fill(5, LARGE_FILL_BYTES).to_json()},
                     "UB": {"address": 0, "fill": Fill(6, 64).to_json()}}
    assert "data" not in vars(large)
    loaded = replay.load(path).case
    assert loaded == case and {name: region.fill for name, region in loaded.memory.items()} == {
        "GM": Fill(5, LARGE_FILL_BYTES), "UB": Fill(6, 64)}
