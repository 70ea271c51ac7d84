"""The wire extensions (docs/target-protocol.md, "Wire extensions"): a request's regions given by their fill recipes
(`region-fill`) make the bytes the recipes make, and are sent so only to a target announcing it and only where the
recipe is known; an answer's regions given by their SHA-256 (`region-digest`) are read as their digests, asked for
only of a target announcing it, and a malformed digest is an error naming the region."""
from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.format.case import (DIGEST, REGION_DIGEST, REGION_FILL, Case, RecipeRegion, Region, Result,
                                             digest_of)
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.format.fill import Fill, filled_bytes
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.targets import exec_target
from ascendc_conformance.targets.base import read_result
from ascendc_conformance.targets.exec_target import ExecTarget
from tests.helpers.casebuild import legal_case

SPEC = load_spec()
SERVE = [sys.executable, "-m", "ascendc_conformance.targets.serve"]


def with_recipes(case: Case, seeds: tuple[int, ...], half_nan_to_inf: bool = False) -> Case:
    """`case` with each region's bytes made by a fill recipe of the same size (its recipe known, as a pack's)."""
    memory = {}
    for (name, region), seed in zip(case.memory.items(), seeds):
        fill = Fill(seed, len(region.data), half_nan_to_inf)
        memory[name] = Region(region.address, filled_bytes(fill, region.address), fill=fill)
    return Case(**{**case.__dict__, "memory": memory})


LEGAL = Case.from_json(legal_case())


@given(seeds=st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)), half=st.booleans())
def test_a_region_sent_by_its_recipe_is_read_as_the_same_bytes(seeds: tuple[int, int], half: bool) -> None:
    case = with_recipes(LEGAL, seeds, half)
    sent = case.to_json(recipes=True)
    assert all(set(region) == {"address", "fill"} for region in sent["memory"].values()), sent["memory"]
    read = Case.from_json(sent)
    assert read == case and all(read.memory[name].data == case.memory[name].data for name in case.memory)
    assert all("data" in region for region in case.to_json()["memory"].values())   # recipes only when asked


def test_a_case_in_bytes_is_the_same_case_sent_without_its_recipes() -> None:
    """The twin that tells a wrong region-fill from a wrong call (runner.checker): equal to its case, every region
    sent as its bytes even where recipes are asked for."""
    case = with_recipes(LEGAL, (3, 4))
    twin = case.in_bytes()
    assert case.by_recipe and not twin.by_recipe and twin == case
    assert all(set(region) == {"address", "data"} for region in twin.to_json(recipes=True)["memory"].values())
    assert Case.from_json(twin.to_json(recipes=True)) == case


def test_a_packs_region_is_made_only_when_its_bytes_are_read_and_equals_the_bytes_it_makes() -> None:
    fill = Fill(99, 4096)
    region = RecipeRegion(64, fill)
    assert region.size == 4096 and region.end == 64 + 4096 and region.contains(64, 4160)
    assert region.to_json(recipe=True) == {"address": 64, "fill": fill.to_json()}
    assert "data" not in vars(region)   # nothing above made the bytes
    plain = Region(64, filled_bytes(fill, 64))
    assert region == plain and plain == region and hash(region) == hash(plain) and region.data == plain.data
    assert region != Region(64, bytes(4096)) and region != Region(0, plain.data)


def test_a_region_whose_recipe_is_unknown_is_sent_as_its_bytes() -> None:
    assert all(set(region) == {"address", "data"} for region in LEGAL.to_json(recipes=True)["memory"].values())


@pytest.mark.parametrize("fill, words", [
    ({"seed": -1, "size": 64, "half_nan_to_inf": False}, "case.memory.GM"),
    ({"seed": 1, "size": 64}, "case.memory.GM"),
    ("zeros", "case.memory.GM"),
])
def test_a_malformed_recipe_is_a_case_error_naming_the_region(fill: Any, words: str) -> None:
    sent = legal_case()
    sent["memory"]["GM"] = {"address": 0, "fill": fill}
    with pytest.raises(CaseError) as raised:
        Case.from_json(sent)
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_a_region_with_neither_bytes_nor_recipe_is_refused() -> None:
    sent = legal_case()
    sent["memory"]["GM"] = {"address": 0}
    with pytest.raises(CaseError, match=r"case\.memory\.GM"):
        Case.from_json(sent)


def ok_answer(case: Case, regions: dict[str, dict]) -> dict:
    return {"status": "ok", "memory": regions}


def test_an_answer_by_digest_is_read_as_the_digests() -> None:
    expected = reference.expect(LEGAL, SPEC)
    by_digest = {name: {"address": region.address, DIGEST: digest_of(region.data).hex()}
                 for name, region in expected.memory.items()}
    result = read_result(LEGAL, ok_answer(LEGAL, by_digest), digests=True)
    assert {name: region.data for name, region in result.memory.items()} == \
        {name: digest_of(region.data) for name, region in expected.memory.items()}
    # bytes are accepted for a digest too (a target may answer so), and read as their digest
    as_bytes = read_result(LEGAL, expected.to_json(), digests=True)
    assert as_bytes == result


@pytest.mark.parametrize("value", ["AB" * 32, "ab" * 31, 7, None])
def test_a_malformed_digest_is_an_error_naming_the_region(value: Any) -> None:
    expected = reference.expect(LEGAL, SPEC).to_json(digests=True)
    expected["memory"]["GM"][DIGEST] = value
    problem = read_result(LEGAL, expected, digests=True)
    assert isinstance(problem, str) and "'GM'" in problem and "64 lowercase hex digits" in problem, problem


def test_a_digest_not_asked_for_is_an_error() -> None:
    problem = read_result(LEGAL, reference.expect(LEGAL, SPEC).to_json(digests=True))
    assert isinstance(problem, str) and '"data"' in problem and DIGEST not in problem, problem


def test_a_region_with_neither_bytes_nor_digest_names_both() -> None:
    answer = reference.expect(LEGAL, SPEC).to_json(digests=True)
    del answer["memory"]["UB"][DIGEST]
    problem = read_result(LEGAL, answer, digests=True)
    assert isinstance(problem, str) and "'UB'" in problem and '"data"' in problem and f'"{DIGEST}"' in problem


def sent_messages(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Every message the exec targets send from now on."""
    sent: list[dict] = []
    original = exec_target._Process.send

    def send(process: Any, message: dict) -> None:
        sent.append(message)
        original(process, message)
    monkeypatch.setattr(exec_target._Process, "send", send)
    return sent


def test_a_target_announcing_both_gets_recipes_and_answers_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = sent_messages(monkeypatch)
    cases = [with_recipes(LEGAL, (seed, seed + 1)) for seed in range(1, 4)] + [LEGAL]
    with ExecTarget([*SERVE, "reference"]) as target:
        assert {REGION_FILL, REGION_DIGEST} <= set(target.hello.extensions)
        answers = list(target.execute_many(cases, digests=True))
        full = target.execute(cases[0])
    for case, answer in answers:
        expected = reference.expect(case, SPEC)
        assert answer.kind is AnswerKind.RESULT and answer.digests
        assert {name: region.data for name, region in answer.result.memory.items()} == \
            {name: digest_of(region.data) for name, region in expected.memory.items()}
    assert not full.digests and full.result == reference.expect(cases[0], SPEC)
    executes = [message for message in sent if message["op"] == "execute"]
    assert [message.get("digest") for message in executes] == [DIGEST] * 4 + [None]
    assert [sorted(next(iter(m["case"]["memory"].values()))) for m in executes] == \
        [["address", "fill"]] * 3 + [["address", "data"], ["address", "fill"]]


@pytest.mark.parametrize("served", [["--bytes-only", "reference"],
                                    ["python:tests.fixtures.buggy.targets:DataCopyDstGapIgnored"]])
def test_a_target_announcing_neither_gets_bytes_and_answers_bytes(monkeypatch: pytest.MonkeyPatch,
                                                                   served: list[str]) -> None:
    sent = sent_messages(monkeypatch)
    case = with_recipes(LEGAL, (5, 6))
    with ExecTarget([*SERVE, *served]) as target:
        assert not {REGION_FILL, REGION_DIGEST} & set(target.hello.extensions)
        [(_, answer)] = list(target.execute_many([case], digests=True))
    assert not answer.digests and answer.result == reference.expect(case, SPEC)
    [message] = [message for message in sent if message["op"] == "execute"]
    assert "digest" not in message and all("data" in region for region in message["case"]["memory"].values())


def test_serve_refuses_a_digest_it_does_not_know() -> None:
    from ascendc_conformance.targets.serve import _handle
    from ascendc_conformance.targets.reference_target import ReferenceImpl
    answer = _handle(ReferenceImpl(SPEC), "reference", {"op": "execute", "case": legal_case(), "digest": "md5"})
    assert answer["status"] == "error" and "'sha256'" in answer["message"]


def test_serve_bytes_only_refuses_a_digest_request_and_a_wrong_command_line() -> None:
    from ascendc_conformance.targets.serve import _handle
    from ascendc_conformance.targets.reference_target import ReferenceImpl
    answer = _handle(ReferenceImpl(SPEC), "reference", {"op": "execute", "case": legal_case(), "digest": DIGEST},
                     bytes_only=True)
    assert answer["status"] == "error" and "--bytes-only" in answer["message"]
    done = subprocess.run([*SERVE, "--bytes", "reference"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "unknown option '--bytes'" in done.stderr \
        and "--bytes-only" in done.stderr, done.stderr



def test_digests_and_bytes_that_disagree_make_the_case_flaky_in_the_right_words() -> None:
    from ascendc_conformance.format.answer import Answer
    from ascendc_conformance.format.outcome import Outcome
    from ascendc_conformance.judge.packed import by_digest
    from ascendc_conformance.judge.verdict import Verdict
    from ascendc_conformance.runner import flakes
    expected = reference.expect(LEGAL, SPEC)
    right = Answer(kind=AnswerKind.RESULT, result=expected)
    digests = by_digest(right)
    assert digests.digests and flakes.same_digests(digests, right)
    wrong = Answer(kind=AnswerKind.RESULT, result=Result.ok({name: Region(region.address, bytes(region.size))
                                                            for name, region in expected.memory.items()}))
    lost = Answer(kind=AnswerKind.TIMEOUT, message="no answer within 10 s")
    assert not flakes.same_digests(digests, wrong) and not flakes.same_digests(digests, lost)
    for again, lead in ((wrong, "SHA-256 digests of its answer"), (lost, "differently when it was sent again")):
        verdict = flakes.digests_disagree(Verdict(outcome=Outcome.FAIL, message="memory differs", expected=expected),
                                          digests, again)
        assert verdict.outcome is Outcome.FLAKY and lead in verdict.message and "first answer: ok (GM sha256" in \
            verdict.message and "\n" not in verdict.message, verdict.message
