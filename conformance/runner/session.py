"""One conformance run inside pytest: the target, the selection from the spec, verdicts and their records.

The pytest plugin builds one `RunSession` per process (each xdist worker has its own target process); the
suite's tests hand each drawn case to `RunSession.check`, which asks the reference and the target, judges,
records, and raises `ConformanceFailure` when the target fails (after saving a replay file).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NoReturn

from hypothesis import target

from ascendc_conformance import reference
from ascendc_conformance.format import replay
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.answer import Answer
from ascendc_conformance.format.defaults import (CASE_TIMEOUT_S, HEAVY_CASES, PROFILES, RUN_SHRINK_SECONDS, SHRINK_SECONDS,
                                                 SMOKE_CASES, TARGET_TEXT_CHARS)
from ascendc_conformance.format.pack import Pack, PackedCase, open_pack
from ascendc_conformance.runner import options, waivers
from ascendc_conformance.runner.bits import BitWitnesses
from ascendc_conformance.runner.options import OptionError, RunOption
from ascendc_conformance.format.errors import ConformanceError, TargetStartError, did_you_mean
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.case import ResultStatus
from ascendc_conformance.format.results import Cause, TestKind, TestRecord, case_summary, freeze, params_size
from ascendc_conformance.targets import EXEC_SCHEME, Target, open_target
from ascendc_conformance.judge.packed import judge_packed
from ascendc_conformance.judge.verdict import RuleNaming, Verdict, judge
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Path as SpecPath, Reading, ShortRepr
from ascendc_conformance.strategies.boundaries import Boundary, boundaries
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.crossings import crossing_tests
from ascendc_conformance.strategies.faults import Expectation, Fault, faults
from ascendc_conformance.strategies.large import field_reaches
from ascendc_conformance.strategies.legal import contexts, select_paths
from ascendc_conformance.strategies.limits import Deviation, LimitProbe, deviations, probes
from ascendc_conformance.strategies.pinned import PinnedTest
from ascendc_conformance.strategies.smoke import RouteForm, Smoke, smoke_tests

if TYPE_CHECKING:   # gates imports this module
    from ascendc_conformance.runner.gates import Plan


SHRUNK_CAUSES = 2   # causes of one test shown to Hypothesis to shrink (see RunSession._plan_shrinking)
SKIP_CHARS = 1000   # the longest reason a skipped test records (JUnit shows it on every skipped test)
PACKED_KINDS = (TestKind.SMOKE, TestKind.LEGAL, TestKind.ILLEGAL, TestKind.BOUNDARY)
"""The tests a pack holds: all but the limit tests (their cases depend on the limits a target declares)."""


class ConformanceFailure(AssertionError):
    """The target failed a case; the message is the verdict, its diff and the replay command."""


class SuiteError(ConformanceError):
    """The suite itself misbehaved (e.g. a generated legal case the reference rejects): a bug to report."""


@dataclass(frozen=True)
class RunSettings:
    target: str
    products: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    profile: str = "ci"
    report_dir: Path | None = None
    report_details: bool = False                  # every test in full in report.json
    waivers_file: Path | None = None
    timeout: float = CASE_TIMEOUT_S
    shrink_seconds: float = SHRINK_SECONDS        # per failing test
    shrink_budget: float = RUN_SHRINK_SECONDS     # all failing tests of this process together
    reading: tuple[str, ...] = ()                 # --reading words: reading sets and POINT=ALT (none: the seed reading)
    rule_naming: RuleNaming = RuleNaming.KNOWN    # when a rejection naming only other rules is wrong-rule
    pack: Path | None = None                      # run the cases of this pack (format.pack), none drawn
    target_processes: int = 1                     # processes of an exec target

    @classmethod
    def from_options(cls, value: Callable[[RunOption], Any]) -> RunSettings:
        """The settings of the run options' values: `value(option)` as `run` parsed it or the plugin checked it."""
        values = {option.name: value(option) for option in options.OPTIONS}
        return cls(target=values["target"], products=tuple(values["product"]), apis=tuple(values["api"]),
                   profile=values["profile"], report_dir=Path(values["report"]).resolve() if values["report"] else None,
                   report_details=values["report_details"],
                   waivers_file=Path(values["waivers"]) if values["waivers"] else None, timeout=values["timeout"],
                   shrink_seconds=values["shrink_seconds"], shrink_budget=values["shrink_budget"],
                   reading=tuple(values["reading"]), rule_naming=_rule_naming(values),
                   pack=Path(values["pack"]) if values["pack"] else None, target_processes=values["target_processes"])


def _rule_naming(values: dict[str, Any]) -> RuleNaming:
    """The policy --strict-rules or --lenient-rules names (the default without either); both: an OptionError."""
    if values["strict_rules"] and values["lenient_rules"]:
        raise OptionError(options.named("lenient_rules"), "contradicts --strict-rules; give one of them")
    return (RuleNaming.STRICT if values["strict_rules"] else RuleNaming.LENIENT if values["lenient_rules"]
            else RuleNaming.KNOWN)


@dataclass(repr=False)
class CauseRecord(ShortRepr):
    """One distinct cause of a test's failures: its smallest failing case so far (what the reports show and its
    replay file holds), how many judged cases showed it, and whether the run shrinks it."""

    cause: Cause
    index: int                   # 1 for the test's first cause, 2 for the next one found, ...
    verdict: Verdict             # on the smallest failing case
    summary: dict                # that case's case_summary
    size: tuple[int, int]        # how big that case is (_size)
    text: str = ""               # the verdict, its diff and the replay command
    cases: int = 0               # judged cases of this cause (the shrinker's candidates not counted)
    shrinking: bool = False      # raised for Hypothesis to shrink (see RunSession.check)
    replay: str | None = None
    replay_command: str | None = None

    def __repr__(self) -> str:
        return f"CauseRecord({self.cause.label})"

    def to_json(self) -> dict:
        return {"cause": self.cause.to_json(), "verdict": self.verdict.outcome.value, "message": self.verdict.message,
                "diff": self.verdict.diff, "replay": self.replay, "replay_command": self.replay_command,
                "case": self.summary, "cases": self.cases}


@dataclass(repr=False)
class CheckRecord(ShortRepr):
    """What one conformance test saw over all its cases (mutable: filled in while Hypothesis runs).

    `result()` is the frozen `TestRecord` written to results.jsonl; the test's subject (product, API, path,
    rule...) is set once, by `describe`, with TestRecord's field names. `budget` is the number of cases the
    test draws (its settings' max_examples): calls past it are Hypothesis's shrinking."""

    test_id: str
    kind: TestKind
    budget: int
    subject: dict[str, str] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    tags: Counter = field(default_factory=Counter)
    disputed: dict = field(default_factory=dict)           # point -> Counter of the readings followed
    dispute_examples: dict = field(default_factory=dict)   # point -> reading -> params of its first case
    causes: dict[Cause, CauseRecord] = field(default_factory=dict)   # every distinct cause, first found first
    failing: dict[str, Cause] = field(default_factory=dict)   # digest of every failing case seen -> its cause
    error: Verdict | None = None      # the suite could not judge the test
    waiver: dict | None = None
    skip: SkipReason | None = None
    skipped_reason: str | None = None
    other_rule: int = 0
    calls: int = 0                    # cases handed to RunSession.check
    plan: Plan | None = None          # what the test sends (runner.gates), worked out on its first case
    started: float = field(default_factory=time.monotonic)
    shrink_started: float | None = None   # when the first call past the budget came
    bits: dict = field(default_factory=dict)   # API -> field -> bits its cases witnessed first in this process
    crossings: dict = field(default_factory=dict)   # API -> derived quantity -> widths its cases crossed first

    def __repr__(self) -> str:
        return f"CheckRecord({self.test_id})"

    def describe(self, **subject: str | None) -> None:
        unknown = set(subject) - set(TestRecord.SUBJECT)
        if unknown:
            raise TypeError(f"not a subject field of a test record: {', '.join(sorted(unknown))}")
        self.subject.update(subject)

    @property
    def rule(self) -> str | None:
        return self.subject.get("rule")

    @property
    def ranked_causes(self) -> list[CauseRecord]:
        """The causes, worst verdict first (the test's own verdict), then in the order they were found."""
        return sorted(self.causes.values(), key=lambda state: (state.verdict.outcome.severity, state.index))

    @property
    def failure(self) -> Verdict | None:
        """The verdict of the worst cause (or the suite's error); None for a test that has not failed."""
        if self.error is not None:
            return self.error
        return self.ranked_causes[0].verdict if self.causes else None

    @property
    def failure_text(self) -> str:
        """What the test fails with: every cause, each with its verdict, diff and replay command."""
        texts = [state.text for state in self.ranked_causes]
        if len(texts) < 2:
            return "".join(texts)
        return f"{len(texts)} distinct causes:\n" + "\n\n".join(f"({i}) {text}" for i, text in enumerate(texts, 1))

    @property
    def verdict(self) -> Outcome:
        """The worst outcome of its cases and causes (skipped if it judged none); error if the suite failed."""
        if self.error is not None:
            return Outcome.ERROR
        outcomes = [Outcome(outcome) for outcome in self.counts] + [c.verdict.outcome for c in self.causes.values()]
        if self.skip is not None and not outcomes:
            return self.skip.verdict
        return min(outcomes, key=lambda o: o.severity, default=Outcome.SKIPPED)

    @property
    def timed_out(self) -> bool:
        """A case of the test timed out: it sends no more."""
        return any(cause.verdict is Outcome.TIMEOUT for cause in self.causes)

    def skipped(self, reason: SkipReason, detail: str) -> str:
        """Record why this test judges no case (in at most SKIP_CHARS); the text to pass to pytest.skip."""
        self.skip, self.skipped_reason = reason, clip(f"{reason}: {detail}", SKIP_CHARS)
        return self.skipped_reason

    def add(self, verdict: Verdict, case: dict) -> None:
        """Count a judged case of the test's budget (the shrinker's candidates are not counted)."""
        self.counts[verdict.outcome] += 1
        self.other_rule += verdict.other_rule
        self.tags.update(case.get("tags", []))
        for point, name in verdict.points.items():
            self.disputed.setdefault(point, Counter())[name] += 1
            self.dispute_examples.setdefault(point, {}).setdefault(name, case["params"])

    def novelty(self, case: dict) -> float:
        """How unlike the test's failing cases a case is (for Hypothesis's targeting, once the test failed):
        its route or dtypes differing from every one's count 4, and each parameter whose magnitude (bit
        length) differs from that parameter in every one counts 1."""
        summary = case_summary(case)
        others = [state.summary for state in self.causes.values()]
        score = 4.0 * all((summary["route"], summary["src_dtype"], summary["dst_dtype"]) !=
                          (other["route"], other["src_dtype"], other["dst_dtype"]) for other in others)
        for name, value in summary["params"].items():
            if isinstance(value, int) and all(_bits(other["params"].get(name)) != _bits(value) for other in others):
                score += 1
        return score

    def suite_error(self, message: str) -> None:
        """The test stopped on something other than the target's answer (a suite bug, a target that cannot be
        started, a Hypothesis health check): recorded as an error, never as a pass. The message is cut to
        TARGET_TEXT_CHARS: an exception's text may quote what a target sent."""
        self.error = Verdict(outcome=Outcome.ERROR, expected={},
                             message=f"the suite could not judge this test: {clip(message, TARGET_TEXT_CHARS)}")

    def result(self) -> TestRecord:
        failure = self.failure
        ranked = self.ranked_causes
        first = ranked[0] if ranked else None
        return TestRecord(
            test_id=self.test_id, kind=self.kind, verdict=self.verdict, **self.subject,
            counts=freeze(dict(self.counts)), cases=sum(self.counts.values()), tags=freeze(dict(self.tags)),
            disputed=freeze({point: dict(seen) for point, seen in self.disputed.items()}),
            dispute_examples=freeze(self.dispute_examples),
            message=failure.message if failure else (self.skipped_reason or ""),
            diff=freeze(failure.diff) if failure and failure.diff else None,
            replay=first.replay if first else None, replay_command=first.replay_command if first else None,
            duration_s=round(time.monotonic() - self.started, 3),
            waiver=freeze(self.waiver) if self.waiver else None, skip=self.skip,
            skipped_reason=self.skipped_reason, other_rule=self.other_rule,
            case=freeze(first.summary) if first else None,
            causes=freeze([state.to_json() for state in ranked]),
            bits=freeze({api: {name: sorted(found) for name, found in fields.items()} for api, fields in self.bits.items()}),
            crossings=freeze({api: {name: sorted(found) for name, found in quantities.items()}
                              for api, quantities in self.crossings.items()}))


def _bits(value) -> int:
    return abs(value).bit_length() if isinstance(value, int) else -1


def _size(case: dict) -> tuple[int, int]:
    """How big a case is, for choosing a cause's smallest: the sum of its integer parameters, then their text."""
    return params_size(case.get("params")), len(json.dumps(case.get("params"), sort_keys=True))


def _identity(case: dict, packed: PackedCase | None) -> str:
    """What tells a case from another: a pack's case by its id, a drawn one by its content."""
    return packed.case["id"] if packed is not None else hashlib.sha256(json.dumps(case, sort_keys=True).encode()).hexdigest()


def _past_limit(deviation: Deviation) -> dict:
    """What a case past a declared limit must get: a rejection (for whatever rule the target names)."""
    return {"status": ResultStatus.REJECTED.value, "rules": list(deviation.rules),
            "message": f"past the limit the target declares: {deviation.text}"}


def check_expectation(rule: str | None, expected: dict, expectation: Expectation) -> None:
    """Guard against suite bugs (SuiteError): a legal case must be ok, a single fault of `rule` rejected with
    exactly that rule, a disputed case depend on it (`expected`: the result under the seed reading, which
    generation follows)."""
    status = expected["status"]
    if expectation in (Expectation.LEGAL, Expectation.PAST_LIMIT):   # a case of a path, a bound, a limit
        if status != ResultStatus.OK:
            raise SuiteError(f"suite bug: a generated legal case is {status} by the reference: {expected.get('message')}")
    elif expectation is Expectation.REJECT:
        if status != ResultStatus.REJECTED or list(expected["rules"]) != [rule]:
            raise SuiteError(f"suite bug: a single fault of {rule} gave {status} {expected.get('rules')}")
    elif rule not in expected.get("depends_on", ()):
        raise SuiteError(f"suite bug: a case for {rule} does not depend on it: {expected}")


_FAILURE_CLASSES: dict[Cause, type] = {}


def _raise_cause(state: CauseRecord) -> NoReturn:
    """Raise the cause's failure for Hypothesis to shrink: one class per cause, raised from this one line, so
    that Hypothesis tells causes apart (and shrinks each) by the exception's class and nothing else."""
    failure = _FAILURE_CLASSES.setdefault(state.cause, type("ConformanceFailure", (ConformanceFailure,),
                                                            {"__module__": __name__}))
    raise failure(state.text)


def _subject(context: PathContext) -> dict[str, str]:
    """What a hello's `implements` / `excludes` entries and Hello.supports look at in a path context."""
    return {"product": context.product.id, "api": context.api.name, "src": context.src, "dst": context.dst,
            "dtype": context.src_dtype.name, "dst_dtype": context.dst_dtype.name, "form": context.form}


def param_id(item: SpecPath | Fault | Boundary | Smoke | LimitProbe) -> str:
    """The pytest parameter id of the test that checks `item` (test_legal[<id>], test_illegal[<id>], ...)."""
    return item.label if isinstance(item, SpecPath) else item.id


class RunSession:
    def __init__(self, settings: RunSettings):
        self.settings = settings
        self.spec = load_spec()
        self.waivers_used: Counter = Counter()
        self._target: Target | None = None
        self._shrunk_causes: set[tuple] = set()   # Cause.shrink_key of every failure shrunk so far
        self.shrink_spent = 0.0                   # seconds spent shrinking, over every finished test

    def start(self) -> None:
        """Check everything the run was given, in the order a user would fix it, and start the target: an
        OptionError naming the option at fault, before any test runs (the entry points show it as a usage
        error). Option values (timeout, shard, ...) were checked as they were parsed (runner.options)."""
        checks = (("pack", self._check_pack), ("product", lambda: self.products), ("api", lambda: self.apis),
                  ("reading", lambda: self.reading), ("waivers", lambda: self.waivers),
                  ("target_processes", self._check_processes), ("target", lambda: self.target),
                  ("target", self._check_something_runs), ("report", self._check_report_dir))
        for name, check in checks:
            try:
                check()
            except OptionError:
                raise
            except TargetStartError as error:
                tail = f"target stderr (tail):\n{error.stderr_tail}" if error.stderr_tail else ""
                raise OptionError(options.named(name), error.message, tail) from None
            except ConformanceError as error:
                raise OptionError(options.named(name), str(error)) from None

    @cached_property
    def waivers(self) -> tuple[waivers.Waiver, ...]:
        """The run's waivers (WaiverError for a file that cannot be used)."""
        return waivers.load(self.settings.waivers_file, self.spec.rules) if self.settings.waivers_file else ()

    @cached_property
    def reading(self) -> Reading:
        """The reading the run certifies under (ReadingError for words naming no known point or alternative)."""
        return self.spec.reading(self.settings.reading)

    @cached_property
    def witnesses(self) -> BitWitnesses:
        """The bits of the parameters this process's legal cases witness (runner.bits)."""
        return BitWitnesses(self.spec, self.reading)

    @property
    def target(self) -> Target:
        if self._target is None:
            self._target = open_target(self.settings.target, timeout=self.settings.timeout,
                                       processes=self.settings.target_processes)
        return self._target

    @cached_property
    def pack(self) -> Pack | None:
        """The pack the run takes its cases from (None: a profile run draws them); PackError for a pack that is
        missing, malformed or does not match its hashes."""
        return open_pack(self.settings.pack) if self.settings.pack is not None else None

    @property
    def profile(self) -> str:
        """The profile the run's cases come from: the pack's, or --profile."""
        return self.pack.profile if self.pack is not None else self.settings.profile

    def _check_pack(self) -> None:
        """A pack fixes the selection (no --product or --api beside it) and must come from this suite's spec and
        name only tests the suite has (OptionError, ConformanceError)."""
        pack = self.pack
        if pack is None:
            return
        selection = f"products {', '.join(pack.products) or 'all'}, APIs {', '.join(pack.apis) or 'all'}"
        for name, given in (("product", self.settings.products), ("api", self.settings.apis)):
            if given:
                raise OptionError(options.named(name), f"{', '.join(given)}: the pack {pack.directory} fixes the "
                                                       f"selection ({selection}); run a part of it with -k")
        if pack.spec_digest != self.spec.digest:
            raise ConformanceError(f"{pack.directory} was built from spec {pack.spec_digest} (ascendc-conformance "
                                   f"{pack.manifest['suite_version']}); this suite's spec is {self.spec.digest}: run "
                                   "the pack with the release that built it, or build a pack with this one")
        known = {test_id for test_id, _, _ in self._items(*PACKED_KINDS)}
        unknown = [test_id for test_id in pack.tests if test_id not in known]
        if unknown:
            raise ConformanceError(f"{pack.directory}: {len(unknown)} test(s) of the pack are not tests of this "
                                   f"suite's selection ({selection}), e.g. {unknown[0]}; build the pack with this release")

    def _check_processes(self) -> None:
        if self.settings.target_processes > 1 and not self.settings.target.startswith(EXEC_SCHEME):
            raise ConformanceError(f"{self.settings.target_processes}: only an exec: target runs in processes of its "
                                   f"own; {self.settings.target!r} runs in this one (serve it over exec: "
                                   "`exec:python -m ascendc_conformance.targets.serve ...`)")

    def idle_capabilities(self) -> list[str]:
        """The hello's `implements` / `excludes` entries that match no documented path of the spec: a misspelt
        entry would otherwise quietly make tests not-supported (or leave them in)."""
        hello = self.target.hello
        subjects = [_subject(c) for c in contexts(self.spec, self.spec.paths())]
        return [f"{kind}[{index}] {dict(entry.keys)}"
                for kind, entries in (("implements", hello.implements or ()), ("excludes", hello.excludes))
                for index, entry in enumerate(entries) if not any(entry.matches(s) for s in subjects)]

    def _check_something_runs(self) -> None:
        """A hello that leaves no test of a selection to run (every one would be not-supported, e.g. an
        `implements` matching nothing) is refused: such a run would pass having checked nothing. An empty
        selection is not the hello's doing."""
        selected = [*contexts(self.spec, self.paths), *(c for item in (*self.faults, *self.boundaries)
                                                         for c in item.contexts)]
        hello = self.target.hello
        if not selected or any(hello.supports(**_subject(c)) for c in selected):
            return
        declared = {key: hello.raw[key] for key in ("products", "apis", "implements", "excludes") if key in hello.raw}
        hints = [f"its {key} {name!r} is none of the spec's{did_you_mean(name, known)}"
                 for key, names, known in (("products", hello.products, [p.id for p in self.spec.products]),
                                           ("apis", hello.apis, self.spec.apis))
                 for name in names or () if name not in known]
        hints += [f"{entry} matches no documented path" for entry in self.idle_capabilities()]
        selection = f"products {', '.join(self.products or ('all',))}; APIs {', '.join(self.apis or ('all',))}"
        raise ConformanceError(clip(f"the target's hello leaves nothing of the selection ({selection}) to run: "
                                    + "".join(f"{hint}; " for hint in hints) + f"it declares {json.dumps(declared)}",
                                    TARGET_TEXT_CHARS))

    def _check_report_dir(self) -> None:
        directory = self.settings.report_dir
        if directory is None:
            return
        if directory.exists() and not directory.is_dir():
            raise ConformanceError(f"{directory} is a file; expected a directory for the reports")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConformanceError(f"cannot create the report directory {directory}: "
                                   f"{error.strerror or error}") from None
        if not os.access(directory, os.W_OK | os.X_OK):
            raise ConformanceError(f"cannot write into the report directory {directory}")

    def close(self) -> None:
        if self._target is not None:
            self._target.close()
            self._target = None

    @cached_property
    def products(self) -> tuple[str, ...] | None:
        """The selected product ids (None: all); ConformanceError for a name that is no product id or alias."""
        ids = [p.id for p in self.spec.products]
        aliases = [alias for p in self.spec.products for alias in p.aliases]
        names = self.pack.products if self.pack is not None else self.settings.products
        for name in names:
            if self.spec.resolve_product(name) is None:
                raise ConformanceError(f"unknown product {name!r}{did_you_mean(name, ids + aliases)}; expected a "
                                       f"product id ({', '.join(ids)}) or an alias ({', '.join(aliases)})")
        return tuple(dict.fromkeys(self.spec.product(p).id for p in names)) or None

    @cached_property
    def apis(self) -> tuple[str, ...] | None:
        """The selected APIs (None: all); ConformanceError for a name that is no API of the spec."""
        names = self.pack.apis if self.pack is not None else self.settings.apis
        for name in names:
            if name not in self.spec.apis:
                raise ConformanceError(f"unknown API {name!r}{did_you_mean(name, self.spec.apis)}; expected one of "
                                       f"{', '.join(self.spec.apis)}")
        return tuple(dict.fromkeys(names)) or None

    @cached_property
    def paths(self):
        return select_paths(self.spec, self.products, self.apis)

    @cached_property
    def faults(self) -> list[Fault]:
        return faults(self.spec, self.products, self.apis)

    @cached_property
    def boundaries(self) -> list[Boundary | PinnedTest]:
        """The bounds' tests, and the pinned tests of top bits in large regions and of crossings."""
        bounds = boundaries(self.spec, self.products, self.apis)
        return (bounds + field_reaches(self.spec, self.products, self.apis, bounds)
                + crossing_tests(self.spec, self.products, self.apis))

    @property
    def limits(self) -> Limits:
        """The limits the target declares in its hello (format.limits)."""
        return self.target.hello.limits

    @cached_property
    def deviations(self) -> list[Deviation]:
        """The target's declared limits stricter than the spec on the selection, with the rules they deviate from."""
        return deviations(self.spec, self.limits, self.paths)

    @cached_property
    def limit_probes(self) -> list[LimitProbe]:
        """A test of each deviation: cases just past it, which the target must reject (none in a pack run: they
        depend on the target's declared limits, a pack's cases do not)."""
        return probes(self.spec, self.limits, self.paths) if self.pack is None else []

    @cached_property
    def smoke(self) -> list[Smoke]:
        return smoke_tests(self.spec, self.paths, self.faults, self.boundaries)

    @classmethod
    def subject(cls, item: SpecPath | Fault | Boundary | Smoke | LimitProbe) -> dict[str, str | None]:
        """The TestRecord subject fields of the test that checks `item`: a documented path, a fault, a bound,
        or one smoke case of a route and form (or of a fault or bound)."""
        if isinstance(item, Smoke):
            if isinstance(item.item, RouteForm):
                first = item.item.first
                return {"product": first.product.id, "api": first.api.name, "route": f"{first.src}->{first.dst}",
                        "variant": first.form}
            return cls.subject(item.item)
        if isinstance(item, Fault):
            return {"rule": item.rule.id, "variant": item.variant, "api": item.contexts[0].api.name}
        if isinstance(item, Boundary):
            return {"rule": item.rule.id, "variant": f"{item.side}={item.legal_value}", "api": item.rule.api}
        if isinstance(item, PinnedTest):
            return {"rule": item.rule, "variant": item.variant, "api": item.api}
        if isinstance(item, LimitProbe):
            return {"rule": next(iter(item.deviation.rules), None), "variant": item.limit.label,
                    "api": item.contexts[0].api.name}
        return {"product": item.product, "api": item.api, "route": f"{item.src}->{item.dst}",
                "src_dtype": item.src_dtype, "dst_dtype": item.dst_dtype}

    def tests(self, *kinds: TestKind) -> Iterator[tuple[str, TestKind, SpecPath | Fault | Boundary | Smoke | LimitProbe]]:
        """(test id, kind, item) of every conformance test of these kinds (default: all) the run makes, in run
        order before interleaving: the selection's, or those of the pack (a limit test's item needs the
        target's hello)."""
        for test_id, kind, item in self._items(*kinds):
            if self.pack is None or test_id in self.pack.tests:
                yield test_id, kind, item

    def _items(self, *kinds: TestKind) -> Iterator[tuple[str, TestKind, SpecPath | Fault | Boundary | Smoke | LimitProbe]]:
        items = {TestKind.SMOKE: lambda: self.smoke, TestKind.LEGAL: lambda: self.paths,
                 TestKind.ILLEGAL: lambda: self.faults, TestKind.BOUNDARY: lambda: self.boundaries,
                 TestKind.LIMIT: lambda: self.limit_probes}
        for kind in kinds or tuple(items):
            for item in items[kind]():
                yield f"test_{kind}[{param_id(item)}]", kind, item

    def budget(self, test_id: str, kind: TestKind) -> int:
        """The cases a test judges: its pack's, or its profile's (the calls past them are Hypothesis's shrinking)."""
        if self.pack is not None:
            return self.pack.tests[test_id].cases
        if kind is TestKind.SMOKE:
            return SMOKE_CASES
        return HEAVY_CASES[self.settings.profile] if test_id in self.heavy else PROFILES[self.settings.profile]

    @cached_property
    def heavy(self) -> frozenset[str]:
        """The ids of the tests whose every case is heavy (strategies.pinned): they draw HEAVY_CASES cases."""
        return frozenset(test_id for test_id, _, item in self._items(TestKind.BOUNDARY) if isinstance(item, PinnedTest))

    @cached_property
    def planned(self) -> dict[str, tuple[TestKind, dict[str, str | None]]]:
        """Test id -> (kind, subject) of every conformance test the selection makes (before sharding)."""
        return {test_id: (kind, self.subject(item)) for test_id, kind, item in self.tests()}

    def check(self, record: CheckRecord, case: dict, expectation: Expectation = Expectation.LEGAL,
              deviation: Deviation | None = None, *, packed: PackedCase | None = None,
              answer: Answer | None = None) -> None:
        """Run one case on the target, judge it, record it; raise the failure of its cause if the target failed
        and that cause is to be shrunk. A case of a pack (`packed`) comes with the target's `answer` (a pack
        test sends its cases at once: runner.pack_run) and is judged against the pack's expected results; it
        is never shrunk.

        One failure never hides another: after a test's first failure it keeps sending the cases of its budget
        (steering Hypothesis towards cases unlike the failing ones) and records every distinct cause, each
        with its smallest case and replay file. A failing run stays bounded: only the first failure of each
        cause in the run is shrunk (see `_plan_shrinking`), within --shrink-seconds per test and
        --shrink-budget per run; past the budget the shrinker's candidates are not sent, and the smallest
        failing case of a cause is never sent again (Hypothesis replays it at the end: its verdict is known,
        and a target that hung on it would cost another timeout). After a timeout the test sends nothing
        more. Cases are always drawn in full, so that Hypothesis sees the same data generation on every run."""
        record.calls += 1
        digest = _identity(case, packed) if record.failing else None   # hashed only once a case has failed
        known = record.failing.get(digest) if digest is not None else None
        if known is not None:
            state = record.causes[known]
            if state.shrinking:
                _raise_cause(state)
            return
        if record.causes and packed is None:
            target(record.novelty(case), label="unlike the failing cases")
        generating = record.calls <= record.budget
        if not generating and record.shrink_started is None:
            record.shrink_started = time.monotonic()
        if record.timed_out:
            return
        if not generating and (not any(state.shrinking for state in record.causes.values())
                               or self._shrink_budget_spent(record)):
            return
        state = self._run(record, case, expectation, digest, counted=generating, deviation=deviation, packed=packed,
                          answer=answer)
        if state is not None and state.shrinking:
            del case   # Hypothesis keeps the traceback of every failing shrink candidate: no case data in it
            _raise_cause(state)

    @staticmethod
    def unraised_failure(record: CheckRecord) -> str | None:
        """The failures of a test that Hypothesis saw pass (none was raised: every cause was reported as
        drawn): the runner fails the test with them when Hypothesis is done."""
        return record.failure_text if record.causes else None

    def _shrink_budget_spent(self, record: CheckRecord) -> bool:
        assert record.shrink_started is not None
        spent = time.monotonic() - record.shrink_started
        return spent > self.settings.shrink_seconds or self.shrink_spent + spent > self.settings.shrink_budget

    def finished(self, record: CheckRecord) -> None:
        """A test ended: add the time it spent shrinking to the run's shrink budget."""
        if record.shrink_started is not None:
            self.shrink_spent += time.monotonic() - record.shrink_started

    def _run(self, record: CheckRecord, case: dict, expectation: Expectation, digest: str | None, counted: bool,
             deviation: Deviation | None, packed: PackedCase | None, answer: Answer | None) -> CauseRecord | None:
        """Ask the reference and the target (or take the pack's expected results and the target's answer), judge
        and record; the failing cause's record if the target failed."""
        naming = self.settings.rule_naming
        if packed is not None:
            verdict, expected = judge_packed(packed, case, answer, self.target.hello, reading=self.reading,
                                             rule_naming=naming, spec=self.spec)
        else:
            expected, others = reference.expect_readings(case, self.reading)
            # cases are generated legal or single-faulted under the seed reading: check them against it
            check_expectation(record.rule, expected if not self.reading.choices else reference.expect(case),
                              expectation)
            if expectation is Expectation.PAST_LIMIT:   # legal by the spec; the target said it would reject it
                expected, others, naming = _past_limit(deviation), (), RuleNaming.LENIENT
            if expected["status"] == ResultStatus.REJECTED and not self.target.hello.validates:
                # e.g. a disputed rule illegal under the run's reading: skipped like every other illegal case
                record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false) "
                                                          f"and the case is illegal under the reading {self.reading.label}")
                return None
            verdict = judge(case, expected, self.target.execute(case), self.target.hello, reading=self.reading,
                            others=others, rule_naming=naming, spec=self.spec)
        if verdict.is_failure:
            verdict = self._waived(record, verdict, expected)
        if counted:
            record.add(verdict, case)
            self.witnesses.note(record.bits, case, expected)
            self.witnesses.note_crossings(record.crossings, case, expected)
        if not verdict.is_failure:
            return None
        summary = case_summary(case)
        # the rule a fault breaks is the cause of a missed or wrong rejection; a disputed case's other failures
        # (a wrong copy, a false rejection) are the target's behaviour on a call legal under the run's reading
        misjudged = verdict.outcome not in (Outcome.FAIL, Outcome.FALSE_REJECT)
        cause = Cause.of(verdict.outcome, summary, verdict.diff, verdict.actual,
                         record.rule if expectation is not Expectation.LEGAL and misjudged else None,
                         verdict.misread.label if verdict.misread else "")
        record.failing[digest or _identity(case, packed)] = cause
        state = record.causes.get(cause)
        size = _size(case)
        if state is None:
            state = record.causes[cause] = CauseRecord(cause=cause, index=len(record.causes) + 1, verdict=verdict,
                                                       summary=summary, size=size)
            self._plan_shrinking(record, state)
        elif size >= state.size:
            state.cases += counted
            return state
        state.cases += counted
        state.verdict, state.summary, state.size = verdict, summary, size
        self._save_replay(record, state, case, expected)
        state.text = f"{verdict.describe()}\nreplay: {state.replay_command or '(no --ascendc-report dir)'}"
        return state

    def _plan_shrinking(self, record: CheckRecord, state: CauseRecord) -> None:
        """Shrink only the first failure of each cause in the run, at most SHRUNK_CAUSES of one test (Hypothesis
        shrinks each cause it is shown, and its shrinking costs draws even where the target is no longer
        asked), while the run's budget lasts, and never a hang or a crash (each try costs a timeout or a
        restart). The other causes are reported with their smallest drawn case."""
        if record.kind is TestKind.SMOKE:   # never shrunk (two cases): the cause's first full test shrinks it
            return
        key = state.cause.shrink_key
        shrunk_here = sum(other.shrinking for other in record.causes.values())
        state.shrinking = (self.pack is None and key not in self._shrunk_causes and shrunk_here < SHRUNK_CAUSES
                           and self.shrink_spent < self.settings.shrink_budget
                           and state.cause.verdict not in (Outcome.TIMEOUT, Outcome.CRASHED))
        self._shrunk_causes.add(key)

    def _waived(self, record: CheckRecord, verdict: Verdict, expected: dict) -> Verdict:
        rules = [r for r in (record.rule, *expected.get("rules", ()), *expected.get("depends_on", ())) if r]
        for waiver in self.waivers:
            if waiver.matches(record.test_id, rules):
                self.waivers_used[waiver] += 1
                record.waiver = waiver.to_json()
                return replace(verdict, outcome=Outcome.WAIVED,
                               message=f"{verdict.outcome} waived ({waiver.reason}; {waiver.link}): {verdict.message}")
        return verdict

    def _save_replay(self, record: CheckRecord, state: CauseRecord, case: dict, expected: dict) -> None:
        if self.settings.report_dir is None:
            return
        name = record.test_id if state.index == 1 else f"{record.test_id}~cause{state.index}"
        path = replay.save(self.settings.report_dir / "replays", name, case, expected, state.verdict.actual,
                           state.verdict.to_json(), self.settings.target)
        state.replay = str(path.relative_to(self.settings.report_dir))
        state.replay_command = replay.command(path, self.settings.target)
