"""What a run records of bits (runner.witnessed_bits, results.jsonl `bits`) and how its tests are seeded (runner.seeds)."""
from __future__ import annotations

from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.results import TestRecord
from ascendc_conformance.runner.witnessed_bits import BitWitnesses
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


def test_a_test_record_keeps_its_bits_and_an_old_one_has_none():
    record = TestRecord.from_json({"test_id": "test_legal[x]", "kind": "legal", "verdict": "pass",
                                   "bits": {"DataCopy": {"srcGap": [2, 1]}}})
    assert record.to_json()["bits"] == {"DataCopy": {"srcGap": [1, 2]}}
    assert TestRecord.from_json({"test_id": "test_legal[x]", "kind": "legal", "verdict": "pass"}).bits == {}


def test_every_test_of_a_seeded_run_has_a_seed_of_its_own():
    """One seed for all tests would draw the same choices at the same places in every test of one shape."""
    assert test_seed(7, "test_legal[a]") == test_seed(7, "test_legal[a]")
    assert len({test_seed(7, "test_legal[a]"), test_seed(7, "test_legal[b]"), test_seed(8, "test_legal[a]")}) == 3
