"""What a run records of bits (runner.witnessed_bits, results.jsonl `bits`) and how its tests are seeded (runner.seeds)."""
from __future__ import annotations

from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.results import TestRecord
from ascendc_conformance.format.pack import PackedTest
from ascendc_conformance.runner.witnessed_bits import BitWitnesses, as_reach
from ascendc_conformance.runner.seeds import test_seed
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import sentinel, typed_case

SPEC = load_spec()


def _case(**params) -> Case:
    return typed_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 0),
                     {"blockCount": 3, "blockLen": 5, "srcGap": 6, "dstGap": 0, **params},
                     {"GM": sentinel(2048, 1), "UB": sentinel(1024, 2)})


def test_a_bit_is_noted_once_per_process_and_only_for_legal_cases():
    witnesses = BitWitnesses(SPEC, SPEC.seed_reading)
    first, second, rejected = {}, {}, {}
    witnesses.note(rejected, _case(), Result(ResultStatus.REJECTED))
    witnesses.note(first, _case(), Result(ResultStatus.OK))
    witnesses.note(second, _case(srcGap=7), Result(ResultStatus.OK))
    assert rejected == {}
    assert first == {"DataCopy": {"blockCount": {0, 1}, "blockLen": {0, 2}, "srcGap": {1, 2}}}
    assert second == {"DataCopy": {"srcGap": {0}}}   # bits 1 and 2 of 7 were witnessed already


def test_a_packs_stored_reach_notes_what_noting_each_case_notes():
    """What `pack build` stores of a test (every bit its cases witness, noted in a BitWitnesses of the test's own)
    noted at once (`note_known`) gives a process the same test record and the same bits seen as noting each of
    its cases, whatever the process had seen before."""
    cases = [(_case(), Result(ResultStatus.OK)), (_case(srcGap=7, blockLen=9), Result(ResultStatus.OK)),
             (_case(blockCount=64), Result(ResultStatus.REJECTED))]
    build = BitWitnesses(SPEC, SPEC.seed_reading)
    bits, crossings = {}, {}
    for case, expected in cases:
        build.note(bits, case, expected)
        build.note_crossings(crossings, case, expected)
    stored = PackedTest(cases=(), bits=as_reach(bits), crossings=as_reach(crossings))
    assert stored.bits == {"DataCopy": {"blockCount": (0, 1), "blockLen": (0, 2, 3), "srcGap": (0, 1, 2)}}
    for earlier in ([], [(_case(srcGap=2), Result(ResultStatus.OK))]):
        each, at_once = BitWitnesses(SPEC, SPEC.seed_reading), BitWitnesses(SPEC, SPEC.seed_reading)
        for witnesses in (each, at_once):
            for case, expected in earlier:
                witnesses.note({}, case, expected)
        one_by_one, known = ({}, {}), ({}, {})
        for case, expected in cases:
            each.note(one_by_one[0], case, expected)
            each.note_crossings(one_by_one[1], case, expected)
        at_once.note_known(*known, stored)
        assert known == one_by_one and (at_once.seen, at_once.crossed) == (each.seen, each.crossed)
        # the bits seen before (those of blockCount 3, blockLen 5, srcGap 2) are not noted again
        assert known[0] == ({"DataCopy": {"blockLen": {3}, "srcGap": {0, 2}}} if earlier else
                            {"DataCopy": {"blockCount": {0, 1}, "blockLen": {0, 2, 3}, "srcGap": {0, 1, 2}}})
    assert PackedTest.from_json(stored.to_json()) == stored
    assert PackedTest.from_json({"cases": []}).bits is None   # a pack built before the reach was stored


def test_a_test_record_keeps_its_bits_and_an_old_one_has_none():
    record = TestRecord.from_json({"test_id": "test_legal[x]", "kind": "legal", "verdict": "pass",
                                   "bits": {"DataCopy": {"srcGap": [2, 1]}}})
    assert record.to_json()["bits"] == {"DataCopy": {"srcGap": [1, 2]}}
    assert TestRecord.from_json({"test_id": "test_legal[x]", "kind": "legal", "verdict": "pass"}).bits == {}


def test_every_test_of_a_seeded_run_has_a_seed_of_its_own():
    """One seed for all tests would draw the same choices at the same places in every test of one shape."""
    assert test_seed(7, "test_legal[a]") == test_seed(7, "test_legal[a]")
    assert len({test_seed(7, "test_legal[a]"), test_seed(7, "test_legal[b]"), test_seed(8, "test_legal[a]")}) == 3
