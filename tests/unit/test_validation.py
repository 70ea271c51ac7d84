"""Declaring what is validated, by rule kind or rule id (hello `validates`, format.validation; issue 25 item 4)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import jsonschema
import pytest

from ascendc_conformance.format.answer import Hello
from ascendc_conformance.format.schemas import schema
from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.format.validation import Validation, rule_kinds
from ascendc_conformance.runner import gates
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.twins import Accepted
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import RuleKind
from ascendc_conformance.strategies.faults import faults
from tests.fixtures.buggy.adversaries import ValidatesSomeKinds

SPEC = load_spec()
NARROW = {"kinds": ["range", "alignment", "capacity"], "rules": ["LoadData2D-transpose-route"]}


def test_true_false_and_a_narrower_declaration():
    assert Hello.from_dict({"name": "n", "validates": True}).validates_rule("LoadData2D-route", "route")
    assert not Hello.from_dict({"name": "n", "validates": False}).validates_rule("DataCopy-blockCount-max", "range")
    hello = Hello.from_dict({"name": "n", "validates": NARROW})
    assert hello.validates and hello.validation.narrowed
    assert hello.validates_rule("DataCopy-blockCount-max", "range")
    assert hello.validates_rule("LoadData2D-transpose-route", "relation")       # named by id
    assert not hello.validates_rule("LoadData2D-transpose-dtype", "relation")
    assert not hello.validates_rule("LoadData2D-route", "route")
    assert hello.validation.to_json() == {"kinds": ["alignment", "capacity", "range"],
                                          "rules": ["LoadData2D-transpose-route"]}
    assert Validation.from_json(hello.validation.to_json()) == hello.validation
    assert hello.validation.unknown_rules(SPEC.rules) == ()
    assert Validation.from_json({"rules": ["LoadData2D-transpose-rout"]}).unknown_rules(SPEC.rules) == \
        ("LoadData2D-transpose-rout",)


def test_what_is_not_certified():
    narrow = Validation.from_json(NARROW)
    tested = [("DataCopy-blockCount-max", "range"), ("LoadData2D-route", "route"),
              ("LoadData2D-transpose-route", "relation"), ("LoadData2D-transpose-dtype", "relation")]
    assert narrow.not_certified(tested) == {"kinds": ["relation", "route"],
                                            "rules": ["LoadData2D-route", "LoadData2D-transpose-dtype"]}
    assert Validation.everything().not_certified(tested) == {"kinds": [], "rules": []}


@pytest.mark.parametrize("validates, words", [
    (None, '"validates" as true or false, or as an object with "kinds"'),
    ("yes", '"validates" as true or false'),
    ({}, '"validates" is an empty object'),
    ({"kind": ["range"]}, "unknown key(s) 'kind'"),
    ({"kinds": "range"}, '"validates".kinds must be a list of non-empty strings'),
    ({"kinds": ["rang"]}, "unknown rule kind 'rang' (did you mean range?)"),
    ({"rules": [""]}, '"validates".rules must be a list of non-empty strings'),
    ({"kinds": [], "rules": []}, "names no kind and no rule; say false"),
])
def test_a_malformed_declaration_is_one_line_naming_the_field(validates, words):
    with pytest.raises(ValueError) as raised:
        Hello.from_dict({"name": "n", "validates": validates})
    message = str(raised.value)
    assert words in message and "\n" not in message and 'hello answer' in message


def test_the_hello_schema_lists_the_spec_rule_kinds_and_agrees_with_the_parser():
    assert set(rule_kinds()) == {kind.value for kind in RuleKind}
    validator = jsonschema.Draft202012Validator(schema("hello-v1"))
    for validates in (True, False, NARROW, {"rules": ["X"]}, {"kinds": ["route"]}):
        validator.validate({"name": "n", "validates": validates})
        Hello.from_dict({"name": "n", "validates": validates})
    for validates in ("yes", {}, {"kind": ["range"]}, {"kinds": ["rang"]}, {"rules": [""]}):
        assert not validator.is_valid({"name": "n", "validates": validates}), validates
    validator.validate(ValidatesSomeKinds().hello())


def test_every_skip_reason_is_in_the_report_schema():
    test = schema_of_report()["$defs"]["test"]["properties"]["skip"]["enum"]
    assert set(test) == {reason.value for reason in SkipReason} | {None}


def schema_of_report() -> dict:
    from importlib.resources import files
    return json.loads(files("ascendc_conformance.reports").joinpath("schema/report-v1.schema.json").read_text())


def _skip(hello: Hello, fault) -> SkipReason | None:
    target = SimpleNamespace(hello=hello, supports=hello.supports, handles=lambda ext: ext <= set(hello.extensions))
    run = SimpleNamespace(spec=SPEC, limits=hello.limits, target=target, checker=SimpleNamespace(accepted=Accepted()))
    record = CheckRecord(f"test_illegal[{fault.id}]", TestKind.ILLEGAL, budget=1)
    try:
        gates.plan(run, record, fault)
    except pytest.skip.Exception:
        return record.skip
    return None


def test_the_fault_tests_of_rules_not_validated_are_not_sent():
    hello = Hello.from_dict(ValidatesSomeKinds().hello())
    by_id = {fault.id: fault for fault in faults(SPEC, ["atlas-a2"], ["LoadData2D"])}
    for fault_id in ("LoadData2D-route:undocumented-route", "LoadData2D-dtype:undocumented-dtype",
                     "LoadData2D-transpose-route:transpose_route"):
        assert _skip(hello, by_id[fault_id]) is SkipReason.NOT_VALIDATED, fault_id
    for fault_id in ("LoadData2D-repeatTimes-max:above", "Memory-capacity:LoadData2D:over-capacity",
                     "Memory-bounds:LoadData2D:region-missing",          # the harness rule: limits.checks_regions
                     "LoadData2D-dst-align-l0:misaligned@atlas-a2",      # legal by default: which reading it follows
                     "LoadData2D-sid-zero:above@atlas-a2"):
        assert _skip(hello, by_id[fault_id]) is None, fault_id
    everything = Hello.from_dict({**ValidatesSomeKinds().hello(), "validates": True})
    assert _skip(everything, by_id["LoadData2D-route:undocumented-route"]) is None
