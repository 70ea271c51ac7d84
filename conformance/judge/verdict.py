"""Judging one answer of a target against the reference's expected result.

`judge(case, expected, answer, hello, spec=, reading=, others=)` gives a `Verdict`: pass, fail (with a structured
memory diff), missed-reject, false-reject, error, timeout, crashed, or disputed. "not-supported" and "waived"
are outcomes the runner assigns without calling judge. What a rejection that names no broken rule proves is
decided by its counterfactual twin (judge.evidence, which calls judge with `credited`): judge alone credits such
a rejection with no reading.

A case whose expected outcome depends on disputed points is judged against the run's reading (`expected`)
and, through `others`, against every other combination of the computable readings of those points:
matching the run's reading is a pass; matching another reading that agrees with the run's on every point the
run names (--reading) is `disputed`, naming the reading followed (reported apart, never a failure); matching
only readings that differ on a named point, or none, is the ordinary failure verdict, with the diff against
the run's reading and the readings followed or compared in the message. Under the default (seed) reading the
run names no point, so any named reading is disputed; a run that certifies `--reading devkit` fails a target
that follows the seed on a point devkit names. `points` says, per point the case discriminates,
which of its readings the answer followed ("none" when it matched no reading).

An answer that is not a result at all (timeout, crash, malformed answer, or the target's own
``{"status": "error"}``) keeps its own outcome even on a disputed case: no reading of any rule makes a
crash or a hang the documented behaviour.

A failing verdict carries its diagnosis (judge.diagnosis): the bug classes that reproduce the answer, the
simplest named in its message. The runner asks for it selectively (runner.diagnosing) and judges with
`diagnose=False`. It works out a memory diff only for the failures it shows too (`detail=False`: the
verdict is the same, without its diff, and its message says "memory differs" alone; judged again in full
where it is shown).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.outcome import Outcome, Shown
from ascendc_conformance.format.words import Word
from ascendc_conformance.judge.diff import Diff, diff_case, format_diff, same_memory
from ascendc_conformance.judge.diagnosis import Actual, Diagnosis, actual_of, diagnose as diagnosed_by
from ascendc_conformance.spec.model import Reading, Spec

NONE = "none"        # the name `points` gives a point on which the answer matched no reading
MEMORY_DIFFERS = "memory differs"   # how a message of a legal call answered with other bytes begins


class RuleNaming(Word):
    """How the rules a target's rejection of an illegal call names are judged (`--strict-rules`,
    `--lenient-rules`); a rejection naming no rule is credited only by its twin (judge.evidence), whatever the
    policy."""

    KNOWN = "known"      # default: naming only rule ids of the spec, none of which the call breaks, is wrong-rule
    STRICT = "strict"    # naming no rule the call breaks is wrong-rule, whatever ids it names
    LENIENT = "lenient"  # any rejection passes; one naming only other rules is counted as such

    def wrong(self, named: "NamedRules | None") -> bool:
        """Whether a rejection whose named rules are `named` earns wrong-rule under this policy."""
        if named is NamedRules.OTHER_KNOWN:
            return self is not RuleNaming.LENIENT
        return named is NamedRules.OTHER_UNKNOWN and self is RuleNaming.STRICT


class NamedRules(Word):
    """What the rules a rejection of an illegal call names say about the rules the call breaks."""

    BROKEN = "broken"                 # one of them is a rule the call breaks
    OTHER_KNOWN = "other-known"       # all are rules of the spec the call does not break
    OTHER_UNKNOWN = "other-unknown"   # none is broken, and some id is not a rule of the spec (a target's own name)


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The judge's word on one answer: its outcome, a message, and what it was judged on."""

    outcome: Outcome
    message: str
    expected: Result | None            # the reference's result under the run's reading (None: the suite's own error)
    actual: Result | None = None       # the target's result (None: it gave none, or was not asked)
    diff: Diff | None = None           # a legal call answered with other bytes: where they differ
    depends_on: tuple[str, ...] = ()
    reading: str | None = None        # the run's reading (label), on a case that depends on disputed points
    followed: str | None = None       # a disputed verdict: the reading (label) the answer matched instead
    points: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))   # point -> reading followed
    named_rule: NamedRules | None = None   # a rejection of an illegal call that names rules: what they are
    diagnosis: Diagnosis | None = None     # a failure: the hypotheses that explain it (None: not asked)
    shown: Shown | None = None             # a rejection of an illegal call: whether it was shown to be for its rule
    twin: str | None = None                # the counterfactual twin the verdict weighed, in words (judge.evidence)
    twin_case: Case | None = None          # the twin, when the verdict is its answer's (a fault masked by it)
    fill_wrong: bool = False               # a pack's case failed as sent by its regions' fill recipes and passed
                                           # as sent in bytes: the target's region-fill is wrong (runner.checker)

    @property
    def other_rule(self) -> bool:
        """The target rejected an illegal call for other rules than the ones it breaks."""
        return self.named_rule in (NamedRules.OTHER_KNOWN, NamedRules.OTHER_UNKNOWN)

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome is Outcome.SKIPPED:
            raise ValueError(f"not a case outcome: {self.outcome!r}")

    @property
    def is_failure(self) -> bool:
        """The target failed the case (a disputed, waived or unsupported case is never a failure)."""
        return self.outcome.is_failure

    @property
    def what_it_did(self) -> Actual | None:
        """What the target did, as a diagnosis holds it against the hypotheses: its result, or the kind of an
        answer that was none (None: it was not asked, or the suite could not judge)."""
        if self.actual is not None:
            return self.actual
        return next((kind for kind in AnswerKind if kind is not AnswerKind.RESULT and kind.outcome is self.outcome),
                    None) if self.expected is not None else None

    def diagnosed(self, diagnosis: Diagnosis | None) -> "Verdict":
        """The verdict carrying `diagnosis`, its message naming the simplest explanation."""
        if diagnosis is None:
            return self
        first, newline, rest = self.message.partition("\n")   # after the first line (not after a stderr tail)
        message = f"{first}; {diagnosis.describe()}{newline}{rest}" if diagnosis else self.message
        return replace(self, diagnosis=diagnosis, message=message)

    def to_json(self) -> dict[str, Any]:
        """The verdict as a replay file keeps it (the results it was judged on are kept beside it)."""
        data: dict[str, Any] = {"outcome": self.outcome.value, "message": self.message,
                                "diff": self.diff.to_json() if self.diff else None, "depends_on": list(self.depends_on)}
        if self.reading is not None:
            data.update(reading=self.reading, followed=self.followed, points=dict(self.points))
        if self.named_rule is not None:
            data["named_rule"] = self.named_rule.value
        if self.diagnosis:
            data["diagnosis"] = self.diagnosis.to_json()
        if self.shown is not None:
            data["shown"] = self.shown.value
        if self.twin is not None:
            data["twin"] = self.twin
        return data

    def describe(self) -> str:
        """The outcome, the message and, when there is one, the rendered diff."""
        text = f"{self.outcome}: {self.message}"
        return f"{text}\n{format_diff(self.diff)}" if self.diff else text


def judge(case: Case, expected: Result, answer: Answer, hello: Hello, *, spec: Spec, reading: Reading | None = None,
          others: Sequence[tuple[Reading, Result]] = (), rule_naming: RuleNaming = RuleNaming.KNOWN,
          credited: bool = False, diagnose: bool = True, detail: bool = True) -> Verdict:
    """The verdict on `answer` (what the target did with `case`) against the reference's `expected` result
    under the run's `reading` (default: the seed reading), and against `others` — (reading, expected result)
    under every other reading the case is compared with (reference.expect_readings).

    A rejection of an illegal call that names rules records what they are (`named_rule`); naming only rules
    the call does not break is the failing verdict wrong-rule as `rule_naming` says (by default when every id
    is a rule of the spec). A rejection matches another reading only if it names a rule that reading makes the
    case break, or if it is `credited`: its counterfactual twin, the thing in question put right, was accepted
    (judge.evidence decides); a rejection for an unrelated rule, or one naming none without that evidence,
    is the ordinary verdict.

    Raises ValueError for a case that must not be judged: an expected "unspecified" (or "error") result,
    which the suite never generates, and an expected rejection put to a target that does not validate (the
    runner skips such cases).

    A failing verdict carries its diagnosis (judge.diagnosis), unless `diagnose` is False; a legal call answered
    with other bytes its diff, unless `detail` is False (then its message is MEMORY_DIFFERS alone).
    """
    verdict = _judge(case, expected, answer, hello, spec=spec, reading=reading, others=others, rule_naming=rule_naming,
                     credited=credited, detail=detail)
    if not diagnose or not verdict.is_failure:
        return verdict
    return verdict.diagnosed(diagnosed_by(case, expected, actual_of(answer), spec, reading or spec.seed_reading))


def _judge(case: Case, expected: Result, answer: Answer, hello: Hello, *, spec: Spec, reading: Reading | None,
           others: Sequence[tuple[Reading, Result]], rule_naming: RuleNaming, credited: bool,
           detail: bool) -> Verdict:
    """The verdict without its diagnosis (see judge)."""
    status = expected.status
    if status is ResultStatus.UNSPECIFIED:
        raise ValueError("the reference leaves this case unspecified (rules "
                         f"{', '.join(expected.rules)}); such cases are never generated or judged")
    if status not in (ResultStatus.OK, ResultStatus.REJECTED):
        raise ValueError(f"the reference answered {status.value!r} for this case ({expected.message}); "
                         "only cases expected ok or rejected can be judged")
    if status is ResultStatus.REJECTED and not hello.validates:
        raise ValueError(f"target {hello.name!r} does not validate (hello validates: false); "
                         "skip cases whose expected outcome is a rejection")
    reading = reading or spec.seed_reading
    depends = expected.depends_on
    judged = partial(Verdict, expected=expected, depends_on=depends, reading=reading.label if depends else None)
    actual = answer.result
    if answer.kind is not AnswerKind.RESULT or actual is None:
        return judged(outcome=answer.kind.outcome, message=_answer_message(answer))
    judged = partial(judged, actual=actual)
    if actual.status is ResultStatus.ERROR:
        message = clip(actual.message or "(no message)", TARGET_TEXT_CHARS)
        return judged(outcome=Outcome.ERROR, message=f"the target answered status error: {message}")
    outcome, message, diff = _against(case, expected, actual, reading, spec, detail)
    named = _named_rule(expected, actual, spec)
    judged = partial(judged, diff=diff, named_rule=named)
    if rule_naming.wrong(named):
        outcome, message = Outcome.WRONG_RULE, (f"the target rejected the illegal call citing "
                                                f"{_list(actual.rules)}, none of the rules it breaks: "
                                                + "; ".join(_describe(spec, rule) for rule in expected.rules))
    if not depends:
        return judged(outcome=outcome, message=message)
    results = {reading: expected, **dict(others)}
    matched = {other: _matches(result, actual, credited) for other, result in results.items()}
    matched[reading] = outcome is Outcome.PASS
    judged = partial(judged, points=_points_followed(results, matched, reading))
    if outcome is Outcome.PASS:
        return judged(outcome=outcome, message=f"{message} (under the run's reading {reading.label})")
    followers = [other for other, _ in others if matched[other]]
    # The points the run names (--reading) are what it certifies: following another reading of one of them
    # fails; only a reading that agrees on every named point is disputed, i.e. reported apart.
    tolerated = [other for other in followers
                 if all(other.alternative(point) == reading.alternative(point) for point in reading.choices)]
    disputed = _disputed(spec, depends)
    if tolerated:
        followed = tolerated[0]
        return judged(outcome=Outcome.DISPUTED, followed=followed.label,
                      message=f"the target follows the reading {followed.label}, not the run's reading "
                              f"{reading.label} ({disputed}); under the run's reading: {outcome}: {message}")
    if followers:
        certified = ", ".join(f"{point}={reading.alternative(point)}" for point in reading.choices
                              if followers[0].alternative(point) != reading.alternative(point))
        return judged(outcome=outcome, followed=followers[0].label,
                      message=f"{message}; the target follows the reading {followers[0].label}, but this run "
                              f"certifies {certified} ({disputed})")
    compared = ", ".join(r.label for r in matched)
    return judged(outcome=outcome,
                  message=f"{message}; the answer matches none of the readings compared ({compared}; {disputed})")


def _named_rule(expected: Result, actual: Result, spec: Spec) -> NamedRules | None:
    """What the rules a rejection of an illegal call names are; None when it names none (or it is not such a
    rejection)."""
    named = actual.rules
    if expected.status is not ResultStatus.REJECTED or actual.status is not ResultStatus.REJECTED or not named:
        return None
    if any(rule in expected.rules for rule in named):
        return NamedRules.BROKEN
    return NamedRules.OTHER_KNOWN if all(rule in spec.rules for rule in named) else NamedRules.OTHER_UNKNOWN


def _matches(expected: Result, actual: Result, credited: bool) -> bool:
    """Whether the answer is what `expected` says: the same memory for ok; for a rejection, a rejection
    naming one of the rules `expected` says the call breaks, or one its twin credits (`credited`)."""
    if expected.status is ResultStatus.REJECTED:
        return actual.status is ResultStatus.REJECTED and (
            credited or any(rule in expected.rules for rule in actual.rules))
    return expected.status is ResultStatus.OK and actual.status is ResultStatus.OK and _same_memory(expected, actual)


def _same_memory(a: Result, b: Result) -> bool:
    return a.memory is not None and b.memory is not None and same_memory(a.memory, b.memory)


def _points_followed(results: Mapping[Reading, Result], matched: Mapping[Reading, bool],
                     run: Reading) -> Mapping[str, str]:
    """Per disputed point the case discriminates (two of its readings give different results): the one
    reading of it the answer is consistent with, or NONE when the answer matched no reading at all. When
    several alternatives match but give this case the run's own result (D28's two alternatives concern two
    different memories: a case on one cannot tell the run's reading from the other), the answer is counted
    for the run's reading; a point on which the matching readings still disagree is left out."""
    followed = {}
    for point in sorted({point for reading in results for point in reading.choices}):
        if not any(a.alternative(point) != b.alternative(point) and not _same_result(results[a], results[b])
                   for a in results for b in results):
            continue
        matching = [reading for reading, ok in matched.items() if ok]
        consistent = {reading.alternative(point) for reading in matching}
        if not consistent:
            followed[point] = NONE
        elif len(consistent) == 1:
            followed[point] = consistent.pop()
        elif matched.get(run) and all(_same_result(results[reading], results[run]) for reading in matching):
            followed[point] = run.alternative(point)
    return MappingProxyType(followed)


def _same_result(a: Result, b: Result) -> bool:
    return a.status is b.status and (a.status is not ResultStatus.OK or _same_memory(a, b))


def _against(case: Case, expected: Result, actual: Result, reading: Reading, spec: Spec,
             detail: bool) -> tuple[Outcome, str, Diff | None]:
    """(outcome, message, diff) of the answer against one expected result (under `reading`; no diff unless
    `detail`)."""
    got = actual.status
    if expected.status is ResultStatus.OK:
        if got is ResultStatus.OK:
            assert expected.memory is not None and actual.memory is not None   # an ok result has its memory
            if same_memory(expected.memory, actual.memory):
                return Outcome.PASS, "memory matches the reference", None
            if not detail:
                return Outcome.FAIL, MEMORY_DIFFERS, None
            diff = diff_case(case, expected.memory, actual.memory, spec, reading)
            first = diff.runs[0]
            where = f": {first.misplaced}" if first.misplaced else f" at {first.location}" if first.location else ""
            return Outcome.FAIL, (f"{MEMORY_DIFFERS}: {_count(diff.differing_bytes, 'byte')} in {_count(diff.total_runs, 'run')} "
                            f"({', '.join(diff.classes)}); first: {first.region} [{first.start}, {first.stop}) "
                            f"{first.kind}{where}"), diff
        if got is ResultStatus.REJECTED:
            return Outcome.FALSE_REJECT, (f"the target rejected a legal call, citing {_list(actual.rules)}"
                                    f"{_quoted(actual.message)}"), None
        return Outcome.FAIL, (f"the target answered {got.value!r} for a legal call, citing {_list(actual.rules)}"
                        f"{_quoted(actual.message)}"), None
    ours = expected.rules
    if got is ResultStatus.REJECTED:
        named = actual.rules
        if not named:
            return Outcome.PASS, f"rejected as expected (the target named no rule; the suite's: {_list(ours)})", None
        common = [rule for rule in named if rule in ours]
        if common:
            return Outcome.PASS, f"rejected as expected, citing {_list(common)}", None
        return Outcome.PASS, (f"rejected as expected, but the target cited {_list(named)}, none of the suite's rules "
                        f"({_list(ours)})"), None
    return Outcome.MISSED_REJECT, (f"the target answered {got.value!r} for an illegal call; it breaks "
                             + "; ".join(_describe(spec, rule) for rule in ours)
                             + _quoted(expected.message, "reference")), None


def _answer_message(answer: Answer) -> str:
    message = f"{answer.kind.value}: {answer.message or '(no message)'}"
    if answer.stderr_tail:
        tail = answer.stderr_tail[-TARGET_TEXT_CHARS:]
        message += f"\nstderr tail:\n{tail}"
    return message


def _disputed(spec: Spec, depends: tuple[str, ...]) -> str:
    return "the expected outcome depends on " + "; ".join(_describe(spec, rule, dispute=True) for rule in depends)


def _describe(spec: Spec, rule_id: str, dispute: bool = False) -> str:
    """'<id> (<description>)', with the dispute point when asked, from the spec; the bare id if unknown."""
    rule = spec.rules.get(rule_id)
    if rule is None:
        return rule_id
    point = f"{rule.dispute}, " if dispute and rule.dispute else ""
    return f"{rule_id} ({point}{rule.status}: {rule.description})" if dispute else f"{rule_id} ({rule.description})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _list(rules: Any) -> str:
    """Rule ids, a target's among them: cut to TARGET_TEXT_CHARS."""
    return clip(", ".join(rules), TARGET_TEXT_CHARS) if rules else "no rule"


def _quoted(message: Any, who: str = "target") -> str:
    """A message, a target's among them: in full up to TARGET_TEXT_CHARS."""
    return f' ({who} says: "{clip(message, TARGET_TEXT_CHARS)}")' if message else ""
