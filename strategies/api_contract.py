"""The contract of the strategies' per-API modules (strategies/apis/<name>.py, one per spec/<name>.yaml).

Generation is generic wherever the spec's data suffices: addresses and regions (strategies.layout), the
ranges of every field (strategies.context), the faults of the rule kinds route, dtype, form, range, multiple,
alignment, bounds and capacity (strategies.faults), the boundary pairs of range rules (strategies.boundaries).
What differs per API is in its module, an `ApiStrategies`: how its legal parameters are drawn so that the call
fits the product's memories (`draw_params`, `reachable`, `smallest_params`), which bytes any call touches
(`footprint`), what a field needs to have an effect (`field_effect`: boundary tests pin it beside a bound,
strategies.bit_reach beside a value with one bit set), and the edits that break its relation rules and draw the
cases its disputed semantics decide (`RELATION_FAULTS`, `semantic_faults`), each as `FaultPlan`s that
strategies.faults turns into fault tests, how a call breaking one of those rules is put right (`RELATION_TWINS`,
`semantic_twin`: the counterfactual twins of strategies.twins), and the calls on which its derived byte offsets
cross the widths at which they overflow (`crossing_pins`, strategies.crossings).
`module_for(api)` finds the module of an API and checks it against the contract.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from hypothesis import strategies as st

from ascendc_conformance.spec.implementations import implementation
from ascendc_conformance.spec.model import Api, Rule
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.layout import Extents


@dataclass
class Draft:
    """A case under construction (deliberately mutable: fault edits change it before strategies.cases finishes
    it into a Case)."""

    ctx: PathContext
    params: dict[str, Any]
    extents: Extents
    addresses: dict[str, int]
    spans: dict[str, tuple[int, int]]
    tags: list[str] = dc_field(default_factory=list)


Edit = Callable[[st.DrawFn, Draft], None]
"""edit(draw, draft) changes a legal draft in place so that it breaks a rule (Hypothesis's `draw` for choices).
A module-level function (given its arguments with functools.partial) pickles, so that the selection's tests are
kept in the cache every process of a run reads (spec.derived); a closure works too, the selection is then worked
out in every process."""


@dataclass(frozen=True)
class FaultPlan:
    """One way of breaking one rule of an API: cases drawn on `contexts` as legal drafts with `pinned`
    parameters, then changed by `edit` (none: the pins alone break it, or the draft is legal and its outcome
    is what a disputed reading decides). strategies.faults turns each plan into the fault test
    `test_illegal[<rule>:<variant>]`."""

    variant: str
    contexts: tuple[PathContext, ...]
    edit: Edit | None = None
    pinned: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class FieldEffect:
    """What a call of a path needs for one field to have an effect on the bytes it moves: `pins` for other
    fields (two bursts for a gap, two repeats for a stride), and `floor`, the field's smallest legal value
    under them (a destination row stride no shorter than the row)."""

    pins: Mapping[str, int] = dc_field(default_factory=lambda: MappingProxyType({}))
    floor: int = 0


FaultPlanner = Callable[[Rule, Sequence[PathContext]], "list[FaultPlan]"]
"""planner(rule, contexts) -> the plans that break `rule` on (some of) `contexts`, the rule's documented paths
of the selection in every form. A case of a plan must break exactly that rule: strategies.cases.settle re-sizes
a draft after an edit, and tests/meta/test_single_faults.py checks every plan with the rule ignored."""


TwinPlanner = Callable[[Rule, PathContext, Mapping[str, Any]], "dict[str, Any] | None"]
"""planner(rule, ctx, params) -> the parameters of the call with `rule` (one of the API's own: a relation, or a
semantics rule a disputed reading makes a call illegal by) put right, every other field as it was where it can
stay: values on which every computable reading of the rule agrees the call is legal (strategies.twins builds
the counterfactual twin of a rejected case from them, re-sizes and places it). None: no such parameters (the
outcome of the rule is left open, or none of the API's values makes the readings agree)."""


def no_twin(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> None:
    """The TwinPlanner of a relation rule whose outcome the documents leave open (status unspecified): no call is
    made legal by putting it right, since no call breaking it is ever judged."""
    return None


def never_generated(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    """The FaultPlanner of a relation rule whose outcome the documents leave open (status unspecified): such
    calls are never generated, legal or illegal."""
    return []


@runtime_checkable
class ApiStrategies(Protocol):
    """What generation needs of one API (a module of strategies/apis; its functions at module level)."""

    RELATION_FAULTS: Mapping[str, FaultPlanner]
    """Every `check` name the API's relation rules use (spec/<api>.yaml `rules[].check`) -> its FaultPlanner;
    a planner may return no plan (the rule cannot be broken alone on the selection)."""

    RELATION_TWINS: Mapping[str, TwinPlanner]
    """Every `check` name the API's relation rules use -> its TwinPlanner: how a call breaking the relation is
    put right (the counterfactual twin of a fault of it, strategies.twins); `no_twin` for an unspecified one."""

    def semantic_twin(self, rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """For one of the API's `semantics` rules: the parameters with the rule's disputed point put right, values
        on which every computable reading of it agrees the call is legal (LoadData2D's D24: dstGap 0); None when
        no reading of the rule makes a call illegal (the readings differ only in the bytes they move), or when
        the API cannot say (a TwinPlanner)."""

    def draw_params(self, draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict[str, Any], Extents]:
        """Legal parameters for `ctx` (every field of its form), with the `pinned` fields at their given value,
        sized so that the call fits the product's memories and the GM window (layout.fits), and the bytes the
        call touches. A field of `ctx.relaxed` is free of its range (a fault pins a value outside it). Raises
        strategies.context.Unreachable when the pins cannot be met (then `reachable` says False)."""

    def reachable(self, ctx: PathContext, pinned: Mapping[str, int]) -> bool:
        """Whether some legal call of `ctx` with the `pinned` values fits the product's memories: decides
        where a boundary value or a faulty range value can be drawn. Must agree with `draw_params`."""

    def footprint(self, ctx: PathContext, params: Mapping[str, Any]) -> Extents:
        """The bytes any call with `params` touches, legal or not (a faulty negative stride reaches below the
        operand's start), relative to each operand's start, under the default reading (with the other
        reading's destination bytes where a disputed point writes more)."""

    def field_effect(self, ctx: PathContext, field: str) -> FieldEffect | None:
        """What `field` (a parameter, or `<param>.<member>` of an array of structs) needs to have an effect on
        what a call of `ctx` moves: the values to pin for other fields (pins that `draw_params` and
        `reachable` take) and the field's smallest legal value under them; None when it has none on `ctx`
        (not a field of ctx's form, or one the product ignores). A value with a bit set, pinned with these,
        witnesses the bit where it fits (strategies.bit_reach asks the reference)."""

    def smallest_params(self, ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, Any] | None:
        """The smallest parameters of `ctx` with the `pinned` values, memories disregarded, to say by how many
        bytes an unreachable boundary overruns a buffer; None when the module cannot say (the report then
        names the conflict without figures)."""

    def semantic_faults(self, rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
        """For one of the API's `semantics` rules (a disputed point that decides what a legal call moves): plans
        of legal cases on which the readings of the point move different bytes. [] when none applies."""

    def crossing_pins(self, ctx: PathContext, quantity: str, width: int) -> list[Mapping[str, int]]:
        """For a derived quantity of the API (spec/<api>.yaml `derived`, by name), the pins (as `draw_params`
        takes them) of the smallest calls of `ctx` on which it reaches 2^width bytes, one per way of getting
        there (a slice far from its tensor start, or two slices far apart), memories disregarded: where they
        fit, strategies.crossings checks on the reference. [] when ctx's form does not compute the quantity."""


def module_for(api: Api) -> ApiStrategies:
    """The strategies module of `api` (spec/<name>.yaml -> strategies/apis/<name>.py), checked against
    ApiStrategies and the check names of the API's relation rules; ImplementationError names the file to write
    or what it lacks (a member, or a planner for a relation rule's check in RELATION_FAULTS or RELATION_TWINS)."""
    return implementation("ascendc_conformance.strategies.apis", api, ApiStrategies, ("RELATION_FAULTS", "RELATION_TWINS"))
