"""Coverage of a run against the spec: the path matrix, the rule table, the disputed points, the totals, and the
certification statement.

`build_coverage(results, spec)` gives a frozen `Coverage`:

- `cells`: one per documented product x (API, route) x dtype of the spec (every product, selected or not).
  A cell's `state` is the worst verdict of the legal tests of that path that ran, or "not selected" (the
  run did not select the product or API), "not run" (selected, but no test record: another shard, or a
  killed run), "not drawn" (selected, but the test was skipped), or "not-supported" (the target's hello
  excludes it).
- `rules`: every rule of the spec with legal hits (`hit:<rule>` tags), boundary hits (`boundary:<rule>:*`
  tags), illegal cases rejected / missed (pass / missed-reject counts of the illegal tests of that rule), those
  rejected naming only other rules (`other_rule`), how their rejections were shown to be for the rule (`shown`:
  named, twin, or masked: docs/evidence.md), and for a rule nothing exercised, why (REASONS). A case the target
  refused without evidence (a false rejection, a fault whose twin it refused) exercises nothing: a rule whose
  tests saw only such cases is not covered, its reason the word of its masking ("masked by a false rejection").
- `bits`: per field of every selected API, the bits the run's legal cases witnessed against the bits some legal
  call can witness, with why the others cannot (reports.bit_table).
- `disputes`: per disputed point with named alternatives, which of its readings the target followed on the
  cases that tell them apart (counts per reading and "none", one example's params each, a one-word summary),
  with the point's default, alternatives and the alternatives the reference cannot compute (and why).
- `verdicts` / `cases`: tests per verdict, judged cases per outcome.

`certify(results, coverage)` gives the `Certification` statement.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Collection, Iterable, Mapping

from ascendc_conformance.format.case import INT64
from ascendc_conformance.format.defaults import CERTIFICATION_PROFILE
from ascendc_conformance.format.exits import ExitCode
from ascendc_conformance.format.outcome import Outcome, Shown, SkipReason
from ascendc_conformance.judge.verdict import NONE
from ascendc_conformance.reports.against_baseline import against_baseline
from ascendc_conformance.reports.bit_table import BitRow, bit_rows
from ascendc_conformance.reports.model import FAILURE_VERDICTS, RunResults, TestResult, severity, worst
from ascendc_conformance.format.results import TestKind, thaw
from ascendc_conformance.format.tags import Tag, TagKind
from ascendc_conformance.spec.model import SEED, DisputePoint, Rule, Spec, Status

NOT_SELECTED = "not selected"
NOT_RUN = "not run"
NOT_DRAWN = "not drawn"
NOT_SUPPORTED = Outcome.NOT_SUPPORTED.value
# Cell states that are not verdicts of a test that ran, worst-to-best for display ordering.
NO_RESULT_STATES = (NOT_SUPPORTED, NOT_RUN, NOT_DRAWN, NOT_SELECTED)

REASON_UNSPECIFIED = "unspecified: never generated"
REASON_UNREACHABLE = "unreachable under the product's capacity"
REASON_NOT_SUPPORTED = "not supported by the target"
REASON_NOT_VALIDATING = "not supported by the target (it does not validate: illegal cases are not sent)"
REASON_NOT_SELECTED = "not selected in this run"
REASON_KILLED = "not run: the run ended before its tests"
REASON_NOT_DRAWN = "not drawn in this profile"
REASON_INSEPARABLE = "inseparable from "   # + the rule ids the spec names
REASON_NEEDS_EXTENSION = "not sent: the cases need a case-format extension the target does not announce"
REASON_TYPE_ENFORCED = "type-enforced: its faults' values lie outside the field's C type, which the typed target cannot be given"
REASON_NOT_DECLARED = "not sent: a harness rule the target does not declare that it checks (limits.checks_regions)"
REASON_DECLARED_LIMIT = "not sent: beyond a limit the target declares (its limit test checks the rejection)"
REASON_NOT_VALIDATED = "not certified: the target does not declare that it validates rules of this kind (hello validates)"
REASON_SUITE_ERROR = "not judged: the suite's own error (the run exits 3)"
REASON_NOT_SHOWN = "not shown: "   # + the Shown word of the rejections that did not show the rule's check
REASONS = (REASON_UNSPECIFIED, REASON_UNREACHABLE, REASON_NOT_SUPPORTED, REASON_NOT_VALIDATING, REASON_NOT_SELECTED,
           REASON_KILLED, REASON_NOT_DRAWN, REASON_NEEDS_EXTENSION)


def dtype_label(src_dtype: str, dst_dtype: str) -> str:
    return src_dtype if src_dtype == dst_dtype else f"{src_dtype}->{dst_dtype}"


@dataclass(frozen=True)
class Cell:
    """One documented product x API x route x dtype and what the run's legal tests of it found."""

    product: str
    api: str
    route: str               # "GM->VECIN"
    src_dtype: str
    dst_dtype: str
    state: str               # a verdict, or one of NO_RESULT_STATES
    verdicts: Mapping[str, int]   # legal tests of the path per verdict
    cases: Mapping[str, int]      # judged cases per outcome
    tests: tuple[str, ...]

    @property
    def dtype(self) -> str:
        return dtype_label(self.src_dtype, self.dst_dtype)

    @property
    def label(self) -> str:
        return f"{self.product}-{self.api}-{self.route}-{self.dtype}"

    @property
    def covered(self) -> bool:
        return self.state not in NO_RESULT_STATES and self.state != Outcome.SKIPPED

    def to_json(self) -> dict[str, Any]:
        return {"product": self.product, "api": self.api, "route": self.route, "src_dtype": self.src_dtype,
                "dst_dtype": self.dst_dtype, "dtype": self.dtype, "label": self.label, "state": self.state,
                "covered": self.covered, "verdicts": dict(self.verdicts), "cases": dict(self.cases),
                "tests": list(self.tests)}


@dataclass(frozen=True)
class RuleRow:
    id: str
    api: str | None
    kind: str
    status: str
    citation: str                       # the document's title and its table or section
    citation_source: str                # the seed file (or note) it is in
    description: str
    products: tuple[str, ...]
    dispute: str | None
    legal_hits: int
    boundary_hits: int
    rejected: int
    missed: int
    other_rule: int                     # illegal cases rejected naming only rules they do not break
    shown: Mapping[str, int]            # rejections of its illegal tests per Shown word (how, or whether, shown)
    illegal_counts: Mapping[str, int]   # every outcome of the rule's illegal tests (cases)
    disputed_cases: int                 # cases of any test that told the readings of this rule's point apart
    failures: int                       # tests about this rule (illegal or boundary) with a failure verdict
    tests: tuple[str, ...]              # tests about this rule (rule == id)
    reason: str | None                  # why nothing exercised the rule; None when covered

    @property
    def covered(self) -> bool:
        return self.reason is None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "api": self.api, "kind": self.kind, "status": self.status, "citation": self.citation,
                "citation_source": self.citation_source,
                "description": self.description, "products": list(self.products), "dispute": self.dispute,
                "legal_hits": self.legal_hits, "boundary_hits": self.boundary_hits, "rejected": self.rejected,
                "missed": self.missed, "other_rule": self.other_rule, "shown": dict(self.shown),
                "illegal_counts": dict(self.illegal_counts),
                "disputed_cases": self.disputed_cases, "failures": self.failures, "tests": list(self.tests),
                "covered": self.covered, "reason": self.reason}


NOT_EXERCISED, MIXED = "not exercised", "mixed"


@dataclass(frozen=True)
class DisputeRow:
    """Which reading of one disputed point the target follows: `counts` per reading of the point (SEED for
    its default, an alternative's name, NONE for an answer that matched no reading) over the cases that
    discriminate the point, and the params of one such case per reading."""

    point: str
    title: str
    default: str
    alternatives: Mapping[str, str]
    uncomputable: Mapping[str, str]     # alternative -> why the reference cannot compute it
    rules: tuple[str, ...]              # the spec's rules of this point
    run_reading: str                    # the reading of this point the run judged under
    counts: Mapping[str, int]
    examples: Mapping[str, Mapping[str, Any]]
    tests: tuple[str, ...]
    reason: str | None = None           # why no case told its readings apart (None when one did)

    @property
    def summary(self) -> str:
        """One word: the reading followed (SEED or an alternative's name), MIXED, NONE or NOT_EXERCISED."""
        followed = [name for name, n in self.counts.items() if n]
        if not followed:
            return NOT_EXERCISED
        return followed[0] if len(followed) == 1 else MIXED

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, "title": self.title, "default": self.default, "reason": self.reason,
                "alternatives": dict(self.alternatives), "uncomputable": dict(self.uncomputable),
                "rules": list(self.rules), "run_reading": self.run_reading, "counts": dict(self.counts),
                "examples": {name: thaw(params) for name, params in self.examples.items()},
                "summary": self.summary, "tests": list(self.tests)}


@dataclass(frozen=True)
class Coverage:
    products: tuple[str, ...]           # every product of the spec, in spec order
    selected_products: tuple[str, ...]
    selected_apis: tuple[str, ...]
    cells: tuple[Cell, ...]
    rules: tuple[RuleRow, ...]
    disputes: tuple[DisputeRow, ...]
    verdicts: Mapping[str, int]
    cases: Mapping[str, int]
    notes: tuple[str, ...] = ()
    bits: tuple[BitRow, ...] = ()       # bit coverage per field of every selected API (reports.bit_table)

    def cells_of(self, product: str) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.product == product)

    def covered_paths(self) -> set[str]:
        return {c.label for c in self.cells if c.covered}

    def product_summary(self, product: str) -> dict[str, Any]:
        cells = self.cells_of(product)
        states: dict[str, int] = {}
        for cell in cells:
            states[cell.state] = states.get(cell.state, 0) + 1
        return {"product": product, "selected": product in self.selected_products, "paths": len(cells),
                "covered": sum(c.covered for c in cells),
                "failing": sum(c.state in FAILURE_VERDICTS for c in cells),
                "states": {s: states[s] for s in sorted(states, key=_state_rank)}}

    def paths_summary(self) -> dict[str, Any]:
        selected = [c for c in self.cells if c.state != NOT_SELECTED]
        return {"documented": len(self.cells), "selected": len(selected), "covered": sum(c.covered for c in self.cells),
                "failing": sum(c.state in FAILURE_VERDICTS for c in self.cells)}

    def rules_summary(self) -> dict[str, Any]:
        """How many rules were exercised; the others counted and named per reason."""
        reasons: dict[str, list[str]] = {}
        for row in self.rules:
            if row.reason:
                reasons.setdefault(row.reason, []).append(row.id)
        return {"total": len(self.rules), "covered": sum(r.covered for r in self.rules),
                "uncovered": {reason: len(ids) for reason, ids in reasons.items()}, "uncovered_rules": reasons}


def _state_rank(state: str) -> tuple[int, int]:
    if state in NO_RESULT_STATES:
        return (1, NO_RESULT_STATES.index(state))
    return (0, severity(state))


def state_rank(state: str) -> tuple[int, int]:
    """Sort key of a cell state: verdicts worst first, then the no-result states."""
    return _state_rank(state)


def _count(counter: dict[str, Any], key: str, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n


def _sorted_counts(counts: dict[str, Any]) -> Mapping[str, int]:
    return MappingProxyType({k: counts[k] for k in sorted(counts, key=severity)})


def build_coverage(results: RunResults, spec: Spec) -> Coverage:
    """The coverage of `results` against `spec`."""
    all_products = tuple(p.id for p in spec.products)
    notes: list[str] = []
    if results.spec_digest != spec.digest:
        notes.append(f"the run used spec {results.spec_digest}; coverage is computed against spec {spec.digest}")
    selected_products = _resolve_products(spec, results.products, notes) or all_products
    selected_apis = tuple(a for a in results.apis if a in spec.apis) or tuple(spec.apis)
    unknown_apis = [a for a in results.apis if a not in spec.apis]
    if unknown_apis:
        notes.append(f"the run selected API(s) the spec does not document: {', '.join(unknown_apis)}")

    cells = _cells(spec, results, selected_products, selected_apis, notes)
    # a selected path with no test record: the run stopped early (-x), was killed, or a shard is missing
    incomplete = results.killed or any(cell.state == NOT_RUN for cell in cells)
    rules = _rules(spec, results, selected_products, selected_apis, incomplete)
    disputes = _disputes(spec, results, {row.id: row for row in rules})
    return Coverage(products=all_products, selected_products=selected_products, selected_apis=selected_apis,
                    cells=tuple(cells), rules=tuple(rules), disputes=tuple(disputes),
                    verdicts=MappingProxyType(results.verdict_counts()), cases=MappingProxyType(results.case_counts()),
                    notes=tuple(notes), bits=bit_rows(results, spec, selected_products, selected_apis))


def _resolve_products(spec: Spec, names: Iterable[str], notes: list[str]) -> tuple[str, ...]:
    resolved = []
    for name in names:
        product_id = spec.resolve_product(name)
        if product_id is None:
            notes.append(f"the run selected product {name!r}, which the spec does not document")
        elif product_id not in resolved:
            resolved.append(product_id)
    return tuple(resolved)


def _cells(spec: Spec, results: RunResults, products: Collection[str], apis: Collection[str],
           notes: list[str]) -> list[Cell]:
    legal: dict[tuple[Any, ...], list[TestResult]] = {}
    for test in results.tests:
        if test.kind is TestKind.LEGAL and test.product and test.api and test.route and test.src_dtype:
            key = (test.product, test.api, test.route, test.src_dtype, test.dst_dtype or test.src_dtype)
            legal.setdefault(key, []).append(test)
    cells = []
    seen = set()
    order = {product.id: i for i, product in enumerate(spec.products)}
    for path in sorted(spec.paths(), key=lambda p: (order.get(p.product, 99), p.api, p.src, p.dst)):
        route = f"{path.src}->{path.dst}"
        key = (path.product, path.api, route, path.src_dtype, path.dst_dtype)
        seen.add(key)
        tests = legal.get(key, [])
        verdicts: dict[str, int] = {}
        cases: dict[str, int] = {}
        for test in tests:
            _count(verdicts, test.verdict)
            for outcome, n in test.counts.items():
                _count(cases, outcome, n)
        ran = [t.verdict for t in tests if t.ran]
        if ran:
            state = worst(ran)
        elif path.product not in products or path.api not in apis:
            state = NOT_SELECTED if not tests else (NOT_SUPPORTED if _unsupported(tests) else NOT_DRAWN)
        elif not tests:
            state = NOT_RUN
        elif _unsupported(tests):
            state = NOT_SUPPORTED
        else:
            state = NOT_DRAWN
        cells.append(Cell(path.product, path.api, route, path.src_dtype, path.dst_dtype, state or NOT_RUN,
                          _sorted_counts(verdicts), _sorted_counts(cases), tuple(t.test_id for t in tests)))
    stray = [t.test_id for key, tests in legal.items() if key not in seen for t in tests]
    if stray:
        notes.append(f"{len(stray)} legal test(s) name paths the spec does not document (e.g. {stray[0]})")
    return cells


def _unsupported(tests: list[TestResult]) -> bool:
    return any(t.verdict == Outcome.NOT_SUPPORTED or t.skip is SkipReason.NOT_SUPPORTED for t in tests)


def _rules(spec: Spec, results: RunResults, products: Collection[str], apis: Collection[str],
           incomplete: bool = False) -> list[RuleRow]:
    hits: dict[str, int] = {}
    bounds: dict[str, int] = {}
    disputed: dict[str, int] = {}
    about: dict[str, list[TestResult]] = {}
    for test in results.tests:
        for text, n in test.tags.items():
            tag = Tag.parse(text)
            if tag is not None and tag.kind is TagKind.HIT:
                _count(hits, tag.subject, n)
            elif tag is not None and tag.kind is TagKind.BOUNDARY:
                _count(bounds, tag.subject, n)
        for point, seen in test.disputed.items():
            _count(disputed, point, sum(seen.values()))
        if test.rule:
            about.setdefault(test.rule, []).append(test)
    rows = []
    for rule in spec.rules.values():
        tests = about.get(rule.id, [])
        illegal: dict[str, int] = {}
        shown: dict[str, int] = {}
        for test in tests:
            if test.kind is TestKind.ILLEGAL:
                for outcome, n in test.counts.items():
                    _count(illegal, outcome, n)
                for word, n in test.shown.items():
                    _count(shown, word, n)
        exercised = hits.get(rule.id, 0) + bounds.get(rule.id, 0) + sum(_exercising(t) for t in tests)
        reason = _inseparable(rule, tests) or (None if exercised else _not_shown(tests) or
                                                _reason(rule, tests, results, products, apis, incomplete))
        rows.append(RuleRow(
            id=rule.id, api=rule.api, kind=rule.kind, status=rule.status, citation=spec.cite(rule.citation),
            citation_source=rule.citation.source,
            description=rule.description, products=tuple(rule.products), dispute=rule.dispute,
            legal_hits=hits.get(rule.id, 0), boundary_hits=bounds.get(rule.id, 0), rejected=illegal.get(Outcome.PASS, 0),
            missed=illegal.get(Outcome.MISSED_REJECT, 0), illegal_counts=_sorted_counts(illegal),
            shown=_sorted_counts(shown),
            other_rule=sum(t.other_rule for t in tests if t.kind is TestKind.ILLEGAL),
            disputed_cases=disputed.get(rule.dispute, 0) if rule.dispute else 0, failures=sum(t.is_failure for t in tests),
            tests=tuple(t.test_id for t in tests), reason=reason))
    return rows


def _exercising(test: TestResult) -> int:
    """The cases of a test about a rule that exercised it: not those the target refused without evidence (a
    legal call's false rejection, a fault's rejection whose twin it refused or could not be shown: Shown)."""
    unshown = sum(n for word, n in test.shown.items() if not Shown(word).shown)
    refused = test.counts.get(Outcome.FALSE_REJECT, 0)
    return max(0, test.cases - max(unshown, refused))


def _not_shown(tests: list[TestResult]) -> str | None:
    """"not shown: <word>" for a rule whose tests judged cases, none of which showed its check (the commonest
    masking word; "masked by a false rejection" when its tests' only cases were false rejections)."""
    unshown: dict[str, int] = {}
    for test in tests:
        for word, n in test.shown.items():
            if not Shown(word).shown:
                _count(unshown, word, n)
        if test.counts.get(Outcome.FALSE_REJECT, 0) and not test.shown:
            _count(unshown, Shown.MASKED_FALSE_REJECT.value, test.counts[Outcome.FALSE_REJECT])
    if not unshown:
        return None
    return REASON_NOT_SHOWN + max(sorted(unshown), key=lambda word: unshown[word])


def _inseparable(rule: Rule, tests: list[TestResult]) -> str | None:
    """"inseparable from <rules>" when every fault test of the rule that ran is a variant the spec calls
    inseparable: its rejections may be for those rules, so they do not count as covering this one."""
    variants = {t.variant for t in tests if t.kind is TestKind.ILLEGAL and t.ran}
    entries = [rule.inseparable_variant(variant) if variant is not None else None
               for variant in sorted(variants, key=lambda v: v or "")]
    known = [entry for entry in entries if entry is not None]
    if not entries or len(known) < len(entries):
        return None
    return REASON_INSEPARABLE + ", ".join(dict.fromkeys(r for entry in known for r in entry.from_rules))


def _selected(rule: Rule, products: Collection[str], apis: Collection[str]) -> bool:
    return (rule.api is None or rule.api in apis) and bool(set(rule.products) & set(products))


def _reason(rule: Rule, tests: list[TestResult], results: RunResults, products: Collection[str],
            apis: Collection[str], incomplete: bool = False) -> str:
    if rule.status is Status.UNSPECIFIED:
        return REASON_UNSPECIFIED
    if not _selected(rule, products, apis):
        return REASON_NOT_SELECTED
    if _unsupported(tests):
        return REASON_NOT_SUPPORTED
    if any(t.skip is SkipReason.SUITE_ERROR for t in tests):
        return REASON_SUITE_ERROR
    if any(t.skip is SkipReason.NOT_VALIDATING for t in tests):
        return REASON_NOT_VALIDATING
    if any(t.skip is SkipReason.NOT_VALIDATED for t in tests):
        return REASON_NOT_VALIDATED
    if any(t.kind is TestKind.BOUNDARY and t.skip is SkipReason.UNREACHABLE for t in tests):
        return REASON_UNREACHABLE
    if any(t.skip is SkipReason.NEEDS_EXTENSION for t in tests):
        return REASON_NEEDS_EXTENSION
    for reason, words in ((SkipReason.TYPE_ENFORCED, REASON_TYPE_ENFORCED), (SkipReason.NOT_DECLARED, REASON_NOT_DECLARED),
                          (SkipReason.DECLARED_LIMIT, REASON_DECLARED_LIMIT)):
        if any(t.skip is reason for t in tests):
            return words
    if (results.killed or incomplete) and not tests:
        return REASON_KILLED
    return REASON_NOT_DRAWN


def _disputes(spec: Spec, results: RunResults, rules: Mapping[str, "RuleRow"]) -> list[DisputeRow]:
    """One row per disputed point with named alternatives, in the spec's order."""
    counts: dict[str, dict[str, int]] = {}
    examples: dict[str, dict[str, Mapping[str, Any]]] = {}
    tests: dict[str, list[str]] = {}
    for test in results.tests:
        for point_id, followed in test.disputed.items():
            for name, n in followed.items():
                _count(counts.setdefault(point_id, {}), name, n)
            for name, params in test.dispute_examples.get(point_id, {}).items():
                examples.setdefault(point_id, {}).setdefault(name, params)
            tests.setdefault(point_id, []).append(test.test_id)
    rows = []
    for point in spec.disputes.values():
        if not point.alternatives:
            continue
        names = [SEED, *point.effects, NONE]   # an uncomputable alternative is never followed: see `uncomputable`
        seen = counts.get(point.id, {})
        rows.append(DisputeRow(
            point=point.id, title=point.title, default=point.default,
            alternatives=MappingProxyType(dict(point.alternatives)), uncomputable=MappingProxyType(dict(point.uncomputable)),
            rules=tuple(rule.id for rule in spec.rules.values() if rule.dispute == point.id),
            run_reading=results.reading_choices.get(point.id, SEED),
            counts=MappingProxyType({name: seen.get(name, 0) for name in names if name in seen or name != NONE}),
            examples=MappingProxyType({name: examples[point.id][name] for name in names
                                       if name in examples.get(point.id, {})}),
            tests=tuple(tests.get(point.id, ())),
            reason=_unexercised(point, [rules[r] for r in rules if rules[r].dispute == point.id], seen)))
    return rows


def _unexercised(point: DisputePoint, rows: list["RuleRow"], seen: Mapping[str, int]) -> str | None:
    """Why no case of the run told the readings of a point apart: none of its alternatives can be computed,
    its rules' own reasons, or that the cases of its rules never made the readings differ."""
    if any(seen.values()):
        return None
    if not point.effects:
        return "the reference computes none of its alternatives (see 'not computed')"
    if not rows:
        return "no rule of the spec names this point"
    reasons = [f"{row.id}: {row.reason}" for row in rows if row.reason]
    if reasons:
        return "; ".join(reasons)
    return f"its rules' cases ran ({', '.join(row.id for row in rows)}) but none made its readings differ"


# --- certification statement -------------------------------------------------------------------------

UNTESTED_WITHOUT_INT64 = ("Untested: GM address bits 53-63. The target's hello does not announce the int64 extension "
                          "(it reads 64-bit integers exactly), so no integer it was sent lies beyond +-(2^53-1), as "
                          "I-JSON readers require (docs/target-protocol.md)")
"""The certification statement's line on what a target without the int64 case-format extension is not tested on."""

CONFORMS = "conforms"
CONFORMS_WITHIN = "conforms within declared limits"   # conforms, but the target declares limits stricter than the spec
EXIT_STATUSES = {ExitCode.FAILED: "pytest saw a failure the results do not record: a test that errored inside the "
                                  "suite, or an xdist worker that crashed",
                 2: "interrupted (a run before exit code 130)",
                 ExitCode.SUITE: "the suite could not finish: the machine would not let it write, or its own internal "
                                 "error",
                 ExitCode.PLUGIN_USAGE: "usage error", ExitCode.NO_TESTS: "no tests collected",
                 ExitCode.INTERRUPTED: "interrupted (SIGINT)"}
DOES_NOT_CONFORM = "does not conform"
INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class Certification:
    target: str
    suite_version: str
    spec_digest: str
    profile: str
    seed: int | None
    hypothesis_versions: tuple[str, ...]   # the Hypothesis releases that drew the cases (the seed needs them)
    reading: str                     # the reading of the disputed points the run judged under
    products: tuple[str, ...]        # selected products with at least one legal test that ran
    apis: tuple[str, ...]            # selected APIs with at least one legal test that ran
    unsupported: tuple[str, ...]     # "product/API" pairs the target's hello excludes wholly (no path covered)
    outcome: str                     # CONFORMS, CONFORMS_WITHIN, DOES_NOT_CONFORM or INCOMPLETE
    is_certification: bool
    summary: str                     # one sentence on the outcome
    scope: str                       # "This is a certification run ..." / "This is not a certification run ..."
    remarks: tuple[str, ...] = ()
    failing_tests: int = 0
    tests: int = 0
    cases: int = 0
    pairs: tuple[Mapping[str, Any], ...] = ()  # per selected product/API: paths x dtypes documented, covered, excluded
    declared_limits: tuple[Mapping[str, Any], ...] = ()   # the target's declared deviations from the spec, with their rules
    typed: bool = False                         # the target declares itself typed (limits.typed)
    checks_regions: bool = False                # it declares that it checks the case's regions (limits.checks_regions)
    type_enforced: int = 0                      # fault tests not sent to it as typed
    pack: str | None = None                     # the id of the certification pack the cases came from
    exact_int64: bool = True                    # it announces that it reads 64-bit integers exactly (int64)
    known_tests: int = 0                        # tests failing only with causes of the run's baseline

    @property
    def cases_from(self) -> str:
        """What fixed the cases: the pack (its id), or the seed with the Hypothesis release that drew them."""
        if self.pack is not None:
            return f"pack {self.pack}"
        seed = str(self.seed) if self.seed is not None else "not fixed (random)"
        if self.seed is not None and self.hypothesis_versions:
            seed += f" (Hypothesis {', '.join(self.hypothesis_versions)})"
        return f"seed {seed}"

    @property
    def lines(self) -> tuple[str, ...]:
        return (f"Target: {self.target}",
                f"Suite: ascendc-conformance {self.suite_version}; spec digest {self.spec_digest}; "
                f"profile {self.profile}; {self.cases_from}",
                f"Reading of the disputed points: {self.reading}",
                "Covered (paths x dtypes whose legal tests ran, of those documented): "
                + (", ".join(f"{p['product']}/{p['api']} {p['covered']} of {p['documented']}" for p in self.pairs
                             if p["covered"]) or "none"),
                *(("Excluded by the target's hello: "
                   + ", ".join(f"{p['product']}/{p['api']} " + ("all" if not p["covered"] else str(p["excluded"]))
                               for p in self.pairs if p["excluded"]),) if any(p["excluded"] for p in self.pairs) else ()),
                *(f"Declared limit: {limit['text']}" for limit in self.declared_limits),
                *((f"Typed: the target holds each field in its C type; the {self.type_enforced} fault tests of values "
                   "outside it were not sent",) if self.typed else ()),
                *(() if self.checks_regions else ("The target does not declare that it checks accesses against the "
                                                  "case's regions: the harness rule Memory-bounds was not tested",)),
                *(() if self.exact_int64 else (UNTESTED_WITHOUT_INT64,)),
                f"Outcome: {self.outcome}. {self.summary}",
                self.scope,
                *self.remarks)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "suite_version": self.suite_version, "spec_digest": self.spec_digest,
                "profile": self.profile, "seed": self.seed, "hypothesis_versions": list(self.hypothesis_versions),
                "reading": self.reading, "products": list(self.products),
                "apis": list(self.apis), "pairs": [dict(pair) for pair in self.pairs],
                "unsupported": list(self.unsupported), "outcome": self.outcome,
                "is_certification": self.is_certification, "summary": self.summary, "scope": self.scope,
                "remarks": list(self.remarks), "failing_tests": self.failing_tests, "tests": self.tests,
                "cases": self.cases, "declared_limits": [thaw(limit) for limit in self.declared_limits],
                "typed": self.typed, "checks_regions": self.checks_regions, "type_enforced": self.type_enforced,
                "pack": self.pack, "exact_int64": self.exact_int64, "known_tests": self.known_tests, "text": self.text}


def certify(results: RunResults, coverage: Coverage) -> Certification:
    """The certification statement: who was tested with what, and whether it conforms."""
    tests = len(results.tests)
    cases = sum(t.cases for t in results.tests)
    failing = [t for t in results.tests if results.fails_run(t)]
    known = [t for t in results.tests if t.verdict is Outcome.KNOWN]
    allowed = [t for t in results.tests if t.is_failure and not results.fails_run(t)]   # flaky, --allow-flaky
    baseline = against_baseline(results)
    ran = [c for c in coverage.cells if c.covered]
    products = tuple(p for p in coverage.selected_products if any(c.product == p for c in ran))
    apis = tuple(a for a in coverage.selected_apis if any(c.api == a for c in ran))
    pairs = []
    for product in coverage.selected_products:
        for api in coverage.selected_apis:
            cells = [c for c in coverage.cells if c.product == product and c.api == api]
            if cells:
                pairs.append(MappingProxyType({"product": product, "api": api, "documented": len(cells),
                                               "covered": sum(c.covered for c in cells),
                                               "excluded": sum(c.state == NOT_SUPPORTED for c in cells)}))
    unsupported = [f"{p['product']}/{p['api']}" for p in pairs if p["excluded"] and not p["covered"]]
    verdicts = coverage.verdicts
    remarks: list[str] = []
    extras = []
    for verdict, words in ((Outcome.DISPUTED, f"disputed (the target followed another reading than "
                                              f"{results.reading}; reported apart, counted neither for nor against)"),
                           (Outcome.WAIVED, "waived (known failures accepted by a waiver)"),
                           (Outcome.NOT_SUPPORTED, "not supported by the target")):
        if verdicts.get(verdict):
            extras.append(f"{verdicts[verdict]} {words}")
    if allowed:
        extras.append(f"{len(allowed)} flaky (the target answered a failing case differently when it was sent "
                      f"again; allowed by {results.flag('allow_flaky')}, not counted as failures)")
    missing_shards = results.missing_shards
    exit_status = results.exit_status
    if failing or known:
        outcome = DOES_NOT_CONFORM
        counts = Counter(t.verdict.value for t in failing + known)
        summary = (f"{len(failing) + len(known)} of {tests} tests have a failure verdict "
                   f"({', '.join(f'{n} {v}' for v, n in counts.items())}).")
        if known:
            summary += (f" The {len(known)} known one(s) fail only with causes the run's baseline holds, which do not "
                        "fail the run.")
    elif results.killed:
        outcome = INCOMPLETE
        summary = f"No failure verdict in the {tests} tests recorded, but the run did not finish."
    elif missing_shards:
        outcome = INCOMPLETE
        summary = f"No failure verdict in {tests} tests, but shard(s) {', '.join(missing_shards)} are missing."
    elif tests == 0 or not ran:
        outcome = INCOMPLETE
        summary = "No conformance test judged any case."
    elif exit_status not in (0, None) and not (exit_status == 1 and baseline is not None and baseline.stale):
        outcome = INCOMPLETE
        summary = (f"No failure verdict in {tests} tests, but the run ended with pytest exit status {exit_status}"
                   f" ({EXIT_STATUSES.get(exit_status, 'an unknown status')}).")
    else:
        outcome = CONFORMS_WITHIN if results.declared_limits else CONFORMS
        summary = f"No failure verdict in {tests} tests ({cases} cases)."
        if results.declared_limits:
            summary += (f" Within the {len(results.declared_limits)} limit(s) the target declares, stricter than the "
                        "spec (each listed with the rule it deviates from): "
                        + ("the pack's cases beyond them were not sent (the limits themselves untested)." if results.pack
                           else "its legal cases were drawn within them, and it rejected the cases past them."))
    if extras:
        summary += " Also: " + "; ".join(extras) + "."
    unchecked = not_certified_words(results)
    if unchecked:
        summary += f" {unchecked}"
    profile = results.profile
    if results.killed:
        is_certification = False
        if profile == CERTIFICATION_PROFILE:
            scope = ("This is not a certification run: the run was killed before it finished "
                     "(no end record in results.jsonl).")
        else:
            scope = f"This is not a certification run (profile {profile})."
            remarks.append("The run was killed before it finished (no end record in results.jsonl).")
    elif profile != CERTIFICATION_PROFILE:
        is_certification = False
        scope = f"This is not a certification run (profile {profile})."
    elif missing_shards:
        is_certification = False
        scope = f"This is not a certification run: shard(s) {', '.join(missing_shards)} of the run are missing."
    elif allowed:
        is_certification = False
        scope = (f"This is not a certification run: {len(allowed)} flaky test(s) were allowed "
                 f"({results.flag('allow_flaky')}), so "
                 "what the target does on their cases is not settled.")
    elif exit_status not in (0, 1, None):
        is_certification = False
        scope = (f"This is not a certification run: the run did not complete (pytest exit status {exit_status}: "
                 f"{EXIT_STATUSES.get(exit_status, 'an unknown status')}).")
    elif results.pack and not results.pack.get("pinned"):
        is_certification = False
        scope = (f"This is not a certification run: the pack id was not pinned (--pack-id), so nothing ties pack "
                 f"{results.pack['id']} to the one its certifier published; its expected results were worked out "
                 "again by the reference, but not its manifest's claim to have been built from profile full.")
    else:
        is_certification = True
        scope = ("This is a certification run (profile full"
                 + (f", pack {results.pack['id']})." if results.pack else ")."))
    not_run = sum(c.state == NOT_RUN for c in coverage.cells)
    if not_run and not results.killed and not missing_shards:
        selected = coverage.paths_summary()["selected"]
        remarks.append(f"{not_run} of {selected} selected paths × dtypes have no test record: the run stopped before "
                       f"them (e.g. -x / --exitfirst after the first failure).")
    if results.pack:
        if not results.pack.get("pinned") and profile != CERTIFICATION_PROFILE:
            remarks.append("The pack id was not pinned (--pack-id): its expected results were worked out again by "
                           "the reference before the first case.")
        if results.declared_limits:
            remarks.append("A pack holds no limit tests (test_limit: cases just past each limit the target declares, "
                           "which it must reject): a profile run (`run --profile full`) tests the declared limits.")
    elif results.seed is None:
        remarks.append(f"The seed was not fixed: pass {results.flag('seed')} to make the run reproducible.")
    if len(results.shards) > 1:
        remarks.append(f"Merged from {len(results.shards)} results files"
                       + (f" (shards {', '.join(s.shard for s in results.shards if s.shard)})."
                          if any(s.shard for s in results.shards) else "."))
    if results.spec_digest != "(unknown)" and coverage.notes and any("spec" in n for n in coverage.notes):
        remarks.extend(n for n in coverage.notes if n.startswith("the run used spec"))
    return Certification(target=results.target, suite_version=results.suite_version, spec_digest=results.spec_digest,
                         profile=profile, seed=results.seed, hypothesis_versions=results.hypothesis_versions,
                         reading=results.reading, products=products, apis=apis, pairs=tuple(pairs),
                         unsupported=tuple(unsupported), outcome=outcome, is_certification=is_certification,
                         summary=summary, scope=scope, remarks=tuple(remarks), failing_tests=len(failing), tests=tests,
                         cases=cases, declared_limits=results.declared_limits, typed=results.limits.typed,
                         checks_regions=results.limits.checks_regions,
                         type_enforced=sum(t.skip is SkipReason.TYPE_ENFORCED for t in results.tests),
                         pack=results.pack["id"] if results.pack else None,
                         exact_int64=INT64 in (results.hello.get("extensions") or ()), known_tests=len(known))


def not_certified_words(results: RunResults) -> str:
    """The statement's sentence on what it does not certify: the rule kinds and ids of the selection's faults the
    target does not declare it validates (hello `validates`); empty when it declares every one."""
    missed = results.not_certified
    if not missed["rules"]:
        return ""
    kinds = f"rule kind(s) {', '.join(missed['kinds'])}: " if missed["kinds"] else ""
    return (f"Not certified, as the target does not declare that it validates them (hello validates): {kinds}"
            f"{len(missed['rules'])} rule(s), {', '.join(missed['rules'])}.")


# --- grouping of the report's matrix (plain JSON) for the renderers ------------------------------------

STATE_SYMBOLS = {**{outcome.value: outcome.symbol for outcome in Outcome}, NOT_DRAWN: "·", NOT_RUN: "?",
                 NOT_SELECTED: "–"}


def matrix_tables(coverage: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's coverage matrix as one table per product (every product of the spec, in spec order):
    {"product", "display_name", "selected", "summary", "dtypes": [column labels],
     "rows": [{"api", "route", "cells": [cell dict | None per column], "state": worst state of the row}]}."""
    products = {p["id"]: p for p in coverage["products"]}
    order = {name: i for i, name in enumerate(coverage.get("dtypes", ()))}

    def rank(dtype: str) -> tuple[int, str]:
        return (order.get(dtype, len(order)), dtype)

    tables: dict[str, dict[str, Any]] = {}
    for product in coverage["products"]:
        tables[product["id"]] = {"product": product["id"], "display_name": product["display_name"],
                                 "selected": product["selected"], "summary": product, "dtypes": [], "rows": {}}
    for cell in coverage["matrix"]:
        table = tables.setdefault(cell["product"], {
            "product": cell["product"], "display_name": cell["product"], "selected": False,
            "summary": products.get(cell["product"], {}), "dtypes": [], "rows": {}})
        if cell["dtype"] not in table["dtypes"]:
            table["dtypes"].append(cell["dtype"])
        table["rows"].setdefault((cell["api"], cell["route"]), {})[cell["dtype"]] = cell
    result = []
    for table in tables.values():
        # same-dtype columns first, converting pairs after them, each in the order of the spec's dtypes
        dtypes = sorted(table["dtypes"], key=lambda d: ("->" in d, *(rank(part) for part in d.split("->"))))
        rows = []
        for (api, route), cells in sorted(table["rows"].items()):
            states = [c["state"] for c in cells.values()]
            rows.append({"api": api, "route": route, "cells": [cells.get(d) for d in dtypes],
                         "state": min(states, key=state_rank) if states else NOT_SELECTED})
        result.append({**table, "dtypes": dtypes, "rows": rows})
    return result


# --- the "which reading does the target follow" table, one wording for every renderer --------------------

READINGS_INTRO = ("Per disputed point, the cases whose outcome differs between its readings, by the reading the target's "
                  "answer matched (seed = the default; none = no reading); a case that follows another reading than "
                  "the run's is `disputed`, reported apart; one that matches none is a failure.")
READINGS_COLUMNS = ("point", "title", "run's reading", "cases per reading", "example (params)", "target follows",
                    "not computed")


def reading_rows(disputed: list[dict[str, Any]]) -> list[list[str]]:
    """The readings table as plain text cells (READINGS_COLUMNS), from report.json's coverage.disputed."""
    rows = []
    for d in disputed:
        counts = ", ".join(f"{name} {n}" for name, n in d["counts"].items())
        examples = "; ".join(f"{name}: {json.dumps(params, sort_keys=True)}" for name, params in d["examples"].items())
        missing = "; ".join(f"{name}: {why}" for name, why in d["uncomputable"].items())
        follows = d["summary"] + (f" ({d['reason']})" if d.get("reason") else "")
        rows.append([d["point"], d["title"], d["run_reading"], counts, examples or "–", follows, missing or "–"])
    return rows
