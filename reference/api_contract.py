"""The contract of the reference's per-API modules (reference/apis/<name>.py, one per spec/<name>.yaml).

Everything the reference does that is the same for every API (resolving a case, the rule kinds route, dtype,
form, range, multiple and alignment, memory bounds and capacity, moving the bytes of a plan, whether a bit of a
parameter has an effect) is generic. What differs per API is in its module: how the parameters turn into element
indices (`plan`), the API's relation rules (`RELATIONS`, keyed by the `check` names its spec file uses), how a
destination element is named in a diff (`locate`), how one bit of a parameter is cleared so that the call
stays legal (`bit_flips`), the byte offsets its calls compute (`derived`), how a field a target misreads changes
the call (`read_as`), and the API's own bug classes (`MISREADINGS`, reference.hypotheses). `module_for(api)`
finds the module of an API and checks it against `ApiReference`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.misreading import Misreading, Read
from ascendc_conformance.reference.transfer import Transfer
from ascendc_conformance.spec.implementations import implementation
from ascendc_conformance.spec.model import Api, Rule

Relation = Callable[[Call, Rule], "str | None"]
"""A relation check: given a call and its `relation` rule, a sentence describing the breach, or None when the
rule holds. It may assume the call resolved (names and parameter types are right) but not that any other rule
holds: a fault case breaks exactly one rule, and the check of another rule must then answer None."""


@runtime_checkable
class ApiReference(Protocol):
    """What the reference needs of one API (a module of this package; its functions at module level)."""

    RELATIONS: Mapping[str, Relation]
    """Every `check` name the API's relation rules use (spec/<api>.yaml `rules[].check`) -> its Relation."""

    MISREADINGS: Sequence[Misreading]
    """The API's own bug classes, as reference.hypotheses names them: a gap measured start to start, a count
    rounded up, a field in the wrong unit... (the generic ones, a field kept in too few bits, read as signed,
    ignored or off by one, come from `read_as`). May be empty."""

    def plan(self, call: Call) -> Transfer:
        """The elements the call moves: source and destination element indices (from each operand's start) in
        one-to-one order, as a Transfer (an affine Grid where possible), with the disputed rules whose
        readings decide the bytes (`depends_on`). Called only on calls that break no static rule (or whose
        broken rules a caller ignores on purpose: then it must still answer, e.g. nothing to move); it never
        answers "cannot"."""

    def locate(self, call: Call, dst_element: int) -> str:
        """Words naming the part of the call that writes destination element `dst_element` (counted from
        the destination's start): "burst 1 (of 2), element 5". An element the call does not write is said
        to be so (the diff asks only about written ones, but must not crash on others)."""

    def bit_flips(self, call: Call, field: str, bit: int) -> list[dict[str, Any]]:
        """The parameters of the calls that differ from `call` in bit `bit` of `field` (a parameter, or
        `<param>.<member>` of an array of structs, e.g. `srcSliceInfo.stride`): the bit cleared where the
        call sets it, one per place the field occurs (each dimension of a slice), with the parameters that
        legality ties to the field moved along (a slice's endIndex with its startIndex); [] where the bit is
        not set. reference.bit_witness judges each one: a legal call that moves other bytes witnesses the bit.
        `reference.bit_witness.scalar_flips` does it for plain parameters."""

    def derived(self, call: Call) -> Mapping[str, int]:
        """The largest value each derived quantity of the API (spec/<api>.yaml `derived`: a burst's, a fractal's,
        a slice element's or a row's byte offset from its operand's start) takes over the accesses of `call`,
        by the quantity's name; a quantity the call's form does not compute (or a call that moves nothing) is
        left out. reference.crossings compares it with 2^width for each of the quantity's widths."""

    def read_as(self, call: Call, field: str, read: Read) -> dict[str, Any] | None:
        """The parameters of the call as a target that reads every value of `field` through `read` has them
        (a field kept in 8 bits: `value & 0xFF`): `field` is a parameter, or `<Struct>.<member>` for that member
        in every array of that struct (`SliceInfo.stride`, both operands, every dimension); the parameters that
        legality ties to it move along as in `bit_flips` (a slice's endIndex keeps its slice count). None where
        no value of the field reads otherwise. `reference.misreading.scalar_read_as` does it for plain
        parameters."""


def module_for(api: Api) -> ApiReference:
    """The reference module of `api` (spec/<name>.yaml -> reference/apis/<name>.py), checked against
    ApiReference and the check names of the API's relation rules; ImplementationError names the file to write
    or what it lacks."""
    return implementation("ascendc_conformance.reference.apis", api, ApiReference, "RELATIONS")
