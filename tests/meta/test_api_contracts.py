"""Every API of the spec has a reference module and a strategies module that satisfy their layer's contract,
and the contract check refuses a module that does not (so a new API's mistake is one clear error at load)."""
from __future__ import annotations

import types
from dataclasses import replace

import pytest

from ascendc_conformance.reference import api_contract as reference_contract
from ascendc_conformance.spec.implementations import ImplementationError, contract_problems, implementation
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies import api_contract as strategies_contract

SPEC = load_spec()
CONTRACTS = {"reference": (reference_contract, reference_contract.ApiReference, "RELATIONS"),
             "strategies": (strategies_contract, strategies_contract.ApiStrategies, "RELATION_FAULTS")}


@pytest.mark.parametrize("layer", CONTRACTS)
@pytest.mark.parametrize("api", SPEC.apis)
def test_every_api_module_satisfies_its_layers_contract(api, layer):
    contract_module, contract, checks = CONTRACTS[layer]
    module = contract_module.module_for(SPEC.apis[api])
    assert module.__name__.endswith(f".apis.{SPEC.apis[api].module}")
    assert contract_problems(module, contract) == []
    assert isinstance(module, contract)
    assert SPEC.apis[api].relation_checks <= set(getattr(module, checks))


def _fake(**members) -> types.ModuleType:
    module = types.ModuleType("fake")
    module.__dict__.update(members)
    return module


def test_a_module_lacking_a_member_or_with_other_parameters_is_refused():
    good = reference_contract.module_for(SPEC.apis["DataCopy"])
    members = {"RELATIONS": {}, "MISREADINGS": (), "plan": good.plan, "locate": good.locate,
               "bit_flips": good.bit_flips, "read_as": good.read_as, "derived": good.derived}
    contract = reference_contract.ApiReference
    assert contract_problems(_fake(**members), contract) == []
    without_locate = {name: member for name, member in members.items() if name != "locate"}
    assert contract_problems(_fake(**without_locate), contract) == ["no locate"]
    problems = contract_problems(_fake(**{**members, "locate": lambda element, call: ""}), contract)
    assert problems == ["locate(element, call) should take (call, dst_element)"]
    without_relations = {name: member for name, member in members.items() if name != "RELATIONS"}
    assert contract_problems(_fake(**without_relations), contract) == ["no RELATIONS"]
    without_misreadings = {name: member for name, member in members.items() if name not in ("MISREADINGS", "read_as")}
    assert contract_problems(_fake(**without_misreadings), contract) == ["no MISREADINGS", "no read_as"]


def test_a_missing_module_or_check_is_an_error_naming_the_file_to_write():
    toy = replace(SPEC.apis["DataCopy"], name="Toy", file="toy.yaml")
    with pytest.raises(ImplementationError, match=r"spec/toy.yaml defines the API Toy, but there is no module "
                                                   r"ascendc_conformance.reference.apis.toy: write reference/apis/toy.py"):
        reference_contract.module_for(toy)
    with pytest.raises(ImplementationError, match="strategies/apis/toy.py"):
        strategies_contract.module_for(toy)
    extra = replace(SPEC.apis["LoadData2D"], rules=SPEC.apis["LoadData2D"].rules
                    + (replace(SPEC.rule("LoadData2D-transpose-route"), id="LoadData2D-new", check="new_check"),))
    with pytest.raises(ImplementationError, match="RELATIONS lacks the check.s. new_check"):
        implementation("ascendc_conformance.reference.apis", extra, reference_contract.ApiReference, "RELATIONS")


def test_a_strategies_module_needs_a_fault_planner_and_a_twin_planner_for_every_relation(monkeypatch):
    """Each relation rule's check needs a FaultPlanner (RELATION_FAULTS) and a TwinPlanner (RELATION_TWINS): the
    error names the mapping that lacks it."""
    extra = replace(SPEC.apis["LoadData2D"], rules=SPEC.apis["LoadData2D"].rules
                    + (replace(SPEC.rule("LoadData2D-transpose-route"), id="LoadData2D-new", check="new_check"),))
    members = ("RELATION_FAULTS", "RELATION_TWINS")
    with pytest.raises(ImplementationError, match="RELATION_FAULTS lacks the check.s. new_check"):
        implementation("ascendc_conformance.strategies.apis", extra, strategies_contract.ApiStrategies, members)
    module = strategies_contract.module_for(SPEC.apis["LoadData2D"])
    monkeypatch.setitem(module.RELATION_FAULTS, "new_check", strategies_contract.never_generated)
    with pytest.raises(ImplementationError, match="RELATION_TWINS lacks the check.s. new_check"):
        implementation("ascendc_conformance.strategies.apis", extra, strategies_contract.ApiStrategies, members)
    monkeypatch.setitem(module.RELATION_TWINS, "new_check", strategies_contract.no_twin)
    assert implementation("ascendc_conformance.strategies.apis", extra, strategies_contract.ApiStrategies,
                          members) is module
