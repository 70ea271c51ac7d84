"""format.limits: what a hello may declare of its limits, parsed strictly; the hello schema describes it."""
from __future__ import annotations

import jsonschema
import pytest

from ascendc_conformance.format.answer import Hello
from ascendc_conformance.format.schemas import schema
from ascendc_conformance.format.limits import DeclaredAlignment, DeclaredMaximum, Limits
from ascendc_conformance.targets.reference_target import REFERENCE_HELLO
from tests.fixtures.buggy import targets as buggy
from tests.fixtures.targets import py_fakes

DECLARING = {"name": "sim", "validates": True,
             "limits": {"typed": True, "checks_regions": True,
                        "alignments": [{"api": "LoadData2D", "memory": "L1", "bytes": 512}],
                        "maxima": [{"api": "DataCopy", "field": "blockCount", "max": 100}]}}


def test_limits_are_parsed_and_answer_for_an_operand_and_a_field():
    limits = Hello.from_dict(DECLARING).limits
    assert limits.typed and limits.checks_regions
    assert limits.alignment("LoadData2D", "src", "A1", "L1") == 512 and limits.alignment("LoadData2D", "dst", "A2", "L0A") == 1
    assert limits.alignment("DataCopy", "src", "A1", "L1") == 1
    assert limits.maximum("DataCopy", "atlas-a2", "blockCount") == 100 and limits.maximum("DataCopy", "atlas-a2", "blockLen") is None
    assert limits.without(limits.maxima[0]).maxima == () and limits.deviations == (*limits.alignments, *limits.maxima)
    assert Hello.from_dict({"name": "n", "validates": True}).limits == Limits()


@pytest.mark.parametrize("limits, words", [
    ("yes", "must be an object"),
    ({"typed": "yes"}, "\"limits\".typed must be true or false"),
    ({"speed": 1}, "unknown key(s) 'speed'"),
    ({"alignments": {"bytes": 512}}, "alignments must be a list"),
    ({"alignments": [{"bytes": 500}]}, "bytes must be a power of two"),
    ({"alignments": [{"bytes": 64, "memory": "UB", "position": "VECIN"}]}, "memory or position, not both"),
    ({"alignments": [{"bytes": 64, "operand": "both"}]}, "operand must be src or dst"),
    ({"maxima": [{"field": "blockCount"}]}, "missing max"),
    ({"maxima": [{"field": "blockCount", "max": -1}]}, "max must be a non-negative integer"),
    ({"maxima": [{"field": 3, "max": 1}]}, "field must be a string"),
])
def test_a_malformed_declaration_is_one_error_naming_the_key(limits, words):
    with pytest.raises(ValueError) as raised:
        Hello.from_dict({"name": "n", "validates": True, "limits": limits})
    assert words in str(raised.value) and 'hello answer "limits"' in str(raised.value)


def test_the_hello_schema_accepts_the_suites_hellos_and_the_declarations():
    validator = jsonschema.Draft202012Validator(schema("hello-v1"))
    hellos = [REFERENCE_HELLO, DECLARING, buggy.DeclaresStricterLoadDataAlignment().hello(), buggy.TypedTarget().hello(),
              py_fakes.ReferenceDeclaringLimits().hello(), py_fakes.OnlyGmToVecin().hello()]
    for hello in hellos:
        validator.validate(hello)
        Hello.from_dict(hello)
    assert not validator.is_valid({**DECLARING, "limits": {"alignments": [{"bytes": 64, "memory": "UB", "position": "A1"}]}})


def test_labels_name_what_is_declared():
    assert DeclaredAlignment(512, api="LoadData2D", memory="L1").label == "LoadData2D L1 512-B aligned"
    assert DeclaredMaximum("blockCount", 100, api="DataCopy").label == "DataCopy blockCount <= 100"
