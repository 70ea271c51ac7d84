"""fastjsonschema's checks (format.schemas.follows_schema, the `fast` extra) against jsonschema's: whatever it finds
valid, jsonschema finds valid (a malformed case, result or pack file is never let through unworded), and the
instances the suite writes it finds valid (so the fast path is the one taken). Without fastjsonschema every
instance goes to jsonschema, with the same answers."""
from __future__ import annotations

import copy
from typing import Any, Iterator

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format import schemas
from ascendc_conformance.format.case import Case, RecipeRegion
from ascendc_conformance.format.schemas import follows_schema, schema
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.format.fill import Fill
from ascendc_conformance.format.pack import PackedCase, PackedTest, digested
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import illegal_case, legal_case

pytest.importorskip("fastjsonschema")   # the test extra installs it

SPEC = load_spec()
LEGAL = Case.from_json(legal_case())
BY_RECIPE = Case(**{**LEGAL.__dict__, "memory": {name: RecipeRegion(region.address, Fill(7, region.size, True))
                                                 for name, region in LEGAL.memory.items()},
                    "tags": ("form:count",), "id": "t#0"})
EXPECTED = reference.expect(LEGAL, SPEC)
PACK_TEST = {"pack_format": 1, "test": "test_smoke[x]", "kind": "legal",   # a pack's test file, as write_pack has it
             **PackedTest(cases=(PackedCase(case=BY_RECIPE.to_json(recipes=True), points=(),
                                            expected=(({}, digested(EXPECTED)),)),),
                          bits={"DataCopy": {"count": (4,)}}, crossings={}).to_json()}

# (schema, $defs entry or None, instances the suite writes)
SUBJECTS = [
    ("case-v1", None, [legal_case(), illegal_case(), BY_RECIPE.to_json(recipes=True)]),
    ("result-v1", None, [EXPECTED.to_json(), EXPECTED.to_json(digests=True),
                         reference.expect(Case.from_json(illegal_case()), SPEC).to_json(), {"status": "error",
                                                                                           "message": "no"}]),
    ("pack-v1", "test", [PACK_TEST]),
]


def jsonschema_finds_valid(instance: Any, name: str, definition: str | None) -> bool:
    document = schema(name)
    root = document["$defs"][definition] if definition else document
    return not any(jsonschema.Draft202012Validator({**root, "$defs": document.get("$defs", {})})
                   .iter_errors(instance))


def places(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every place in a JSON value (the path of keys and indexes to it), the value itself first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(item, (*path, index))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.sampled_from([-1, 0, 1, 2**53, 2**64 - 1, 2**64])
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6) | st.sampled_from(["ab" * 32, "AB=C"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


@st.composite
def mutated(draw: st.DrawFn, instance: Any) -> Any:
    """`instance` with one place replaced, removed or given an extra key."""
    value = copy.deepcopy(instance)
    path = draw(st.sampled_from(list(places(value))[1:]))
    *parents, last = path
    container = value
    for step in parents:
        container = container[step]
    action = draw(st.sampled_from(["replace", "remove", "add"]))
    if action == "replace":
        container[last] = draw(json_values)
    elif action == "remove" and isinstance(container, dict):
        del container[last]
    elif isinstance(container[last], dict):
        container[last][draw(st.text(max_size=6))] = draw(json_values)
    return value


@pytest.mark.parametrize("name, definition, instances", SUBJECTS, ids=[name for name, _, _ in SUBJECTS])
def test_what_the_suite_writes_is_found_valid_by_both(name: str, definition: str | None, instances: list) -> None:
    for instance in instances:
        assert follows_schema(instance, name, definition) and jsonschema_finds_valid(instance, name, definition)


@pytest.mark.parametrize("name, definition, instances", SUBJECTS, ids=[name for name, _, _ in SUBJECTS])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_whatever_fastjsonschema_finds_valid_jsonschema_finds_valid(name: str, definition: str | None,
                                                                     instances: list, data: st.DataObject) -> None:
    instance = data.draw(mutated(data.draw(st.sampled_from(instances))))
    if follows_schema(instance, name, definition):
        assert jsonschema_finds_valid(instance, name, definition), instance


def test_without_fastjsonschema_jsonschema_answers_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schemas, "fastjsonschema", None)
    monkeypatch.setattr(schemas, "_fast_check", schemas._fast_check.__wrapped__)
    assert not follows_schema(legal_case(), "case-v1")
    assert Case.from_json(legal_case()) == LEGAL
    broken = legal_case()
    broken["memory"]["GM"]["address"] = -1
    with pytest.raises(CaseError, match=r"case\.memory\.GM\.address"):
        Case.from_json(broken)
    assert schemas.problem(PACK_TEST, "pack-v1", "test") is None
    assert "cases" in (schemas.problem({**PACK_TEST, "cases": 7}, "pack-v1", "test") or "")
