"""Finding the module that implements an API of the spec in a layer, and checking it against that layer's contract.

The spec lists the APIs (one YAML file each); the reference and the strategies each implement every API in a
module named after its spec file (`Api.module`): spec/datacopy.yaml -> reference/apis/datacopy.py and
strategies/apis/datacopy.py. Each layer states what such a module must provide as a `typing.Protocol` (its
contract); `implementation` imports the module for an API and refuses, with a message naming the file to write
and the members it lacks, a module that is missing or does not satisfy the contract. So an API is added by
its YAML and one module per layer, and a mistake shows when the module is first needed, not as an
AttributeError deep inside a run.
"""
from __future__ import annotations

import importlib
import inspect
from functools import lru_cache
from typing import Any

from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.spec.model import Api


class ImplementationError(ConformanceError):
    """The module implementing an API in a layer is missing or does not satisfy the layer's contract."""


def contract_members(contract: type) -> dict[str, Any]:
    """The members a contract (a Protocol class) asks for: name -> its function, or None for a data member."""
    members: dict[str, Any] = {name: None for name in getattr(contract, "__annotations__", {})}
    for name, value in vars(contract).items():
        if not name.startswith("_") and callable(value):
            members[name] = value
    return members


def contract_problems(module: Any, contract: type) -> list[str]:
    """What `module` lacks to satisfy `contract`: missing members, and functions whose parameters differ
    (by name and order) from the contract's."""
    problems = []
    for name, wanted in contract_members(contract).items():
        if not hasattr(module, name):
            problems.append(f"no {name}")
            continue
        if wanted is None:
            continue
        found = getattr(module, name)
        if not callable(found):
            problems.append(f"{name} is not a function")
            continue
        expected = [p for p in inspect.signature(wanted).parameters if p != "self"]
        try:
            actual = list(inspect.signature(found).parameters)
        except (TypeError, ValueError):
            continue
        if actual != expected:
            problems.append(f"{name}({', '.join(actual)}) should take ({', '.join(expected)})")
    return problems


def implementation(package: str, api: Api, contract: type, checks_members: str | tuple[str, ...]) -> Any:
    """The module `<package>.<api.module>`, checked against `contract`, whose mapping(s) `checks_members` must
    each hold every `check` name the API's relation rules use; ImplementationError if it is missing or lacks a
    member. Cached: a run asks for the same module for every case."""
    members = (checks_members,) if isinstance(checks_members, str) else checks_members
    return _checked(package, api.module, api.name, api.file, contract, members, api.relation_checks)


@lru_cache(maxsize=None)
def _checked(package: str, module_name: str, api_name: str, spec_file: str, contract: type,
             checks_members: tuple[str, ...], checks: frozenset[str]) -> Any:
    name = f"{package}.{module_name}"
    where = f"{name.removeprefix('ascendc_conformance.').replace('.', '/')}.py"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise ImplementationError(f"spec/{spec_file} defines the API {api_name}, but there is no module {name}: "
                                  f"write {where} implementing {contract.__module__}.{contract.__qualname__}") from None
    problems = contract_problems(module, contract)
    if problems:
        raise ImplementationError(f"{name} (the {api_name} API of spec/{spec_file}) does not satisfy "
                                  f"{contract.__qualname__}: {'; '.join(problems)}")
    for checks_member in checks_members:
        missing = sorted(checks - set(getattr(module, checks_member)))
        if missing:
            raise ImplementationError(f"{name}.{checks_member} lacks the check(s) {', '.join(missing)} that the "
                                      f"relation rules of spec/{spec_file} name")
    return module
