"""What a target's rejection proves: an answer judged with the evidence of the case's counterfactual twin
(issue 25; docs/evidence.md has the judgment table this module implements).

A rejection naming a spec rule the case breaks (under the reading it is credited to) is a claim the spec checks:
it needs no twin. Any other rejection a verdict would credit — of an illegal call (a fault test's pass), of a
legal call that another reading of a disputed point makes illegal (`disputed`), of a call past a limit the target
declares — is credited only if the target accepts the case's *twin*, the same case with only the thing in
question put right (strategies.twins). A rejection naming no rule, an id the spec does not know or free text
is judged alike: the twin decides. `judge_with_evidence` asks for a twin only where the verdict hinges on it
(`question_for`), through the caller's `ask` (the runner sends the twin to the target: runner.twins); every
other answer is judged as before (judge.verdict.judge).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable, Sequence

from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.outcome import Outcome, Shown
from ascendc_conformance.format.words import Word
from ascendc_conformance.judge.diagnosis import diagnose as diagnosed_by
from ascendc_conformance.judge.verdict import NONE, RuleNaming, Verdict, judge
from ascendc_conformance.reference import points_of
from ascendc_conformance.spec.model import Reading, Spec
from ascendc_conformance.strategies.limits import Deviation


class Phrasing(Word):
    """How a rejection is worded, as far as the judgment goes."""

    BROKEN = "broken"   # it names a spec rule the case breaks under a reading that rejects it
    OTHER = "other"     # it names only spec rules, none of which the case breaks under any computable reading
    SILENT = "silent"   # it names no rule, an id the spec does not know (a target's own name), or only free text


class Proof(Word):
    """What the twin's answer proves about the case's rejection."""

    ACCEPTED = "accepted"         # T+: the twin was accepted with the right bytes: the rejection is for the thing put right
    WRONG_BYTES = "wrong-bytes"   # T≠: accepted, with other bytes than any tolerated reading's
    REFUSED = "refused"           # T−: the twin was refused too: the rejection is not evidence
    NO_TWIN = "no-twin"           # T∅: no twin (unfixable, or on a path the target's hello excludes)
    NO_RESULT = "no-result"       # T!: the twin's answer is no result (a timeout, a crash, a malformed answer, an error)


@dataclass(frozen=True)
class Question:
    """What a twin must put right: the rule an illegal call breaks (`rule`), the disputed point by which another
    reading makes a legal call illegal (`point`), or the declared limit a limit probe lies past (`limit`)."""

    rule: str | None = None
    point: str | None = None
    limit: Deviation | None = None

    def describe(self) -> str:
        if self.limit is not None:
            return self.limit.limit.label
        return self.rule or f"the disputed point {self.point}"


@dataclass(frozen=True)
class Evidence:
    """The twin's answer, as the judgment needs it: what it proves, the twin in words (what it puts right and
    changes) or why there is none, and — when the twin's own verdict is a failure — the twin, its expected
    result and that verdict (the case and replay file of the failure the test records)."""

    proof: Proof
    words: str
    put_right: tuple[str, ...] = ()   # the rules (or the declared limit) the twin puts right
    twin: Case | None = None
    expected: Result | None = None
    verdict: Verdict | None = None

    @classmethod
    def of(cls, words: str, put_right: tuple[str, ...], twin: Case, expected: Result, verdict: Verdict) -> "Evidence":
        """The evidence of a twin judged as the legal case it is (its verdict against its expected result)."""
        proof = _PROOF.get(verdict.outcome, Proof.NO_RESULT)
        if proof is Proof.ACCEPTED:   # nothing of it is needed again: keep the evidence small (it is cached)
            return cls(proof, words, put_right)
        return cls(proof, words, put_right, twin, expected, verdict)


_PROOF = {Outcome.PASS: Proof.ACCEPTED, Outcome.DISPUTED: Proof.ACCEPTED, Outcome.FAIL: Proof.WRONG_BYTES,
          Outcome.FALSE_REJECT: Proof.REFUSED}
"""A twin's verdict -> what it proves (accepted with another tolerated reading's bytes is accepted: the bytes
concern another point than the one put right); any other verdict is no result."""

_MASKED = {Proof.REFUSED: Shown.MASKED_FALSE_REJECT, Proof.WRONG_BYTES: Shown.MASKED_WRONG_COPY,
           Proof.NO_RESULT: Shown.MASKED_NO_RESULT}

Ask = Callable[[Question], Evidence]
"""Sends the twin a question asks for (the case's) and gives its evidence (runner.twins)."""


def phrasing(expected: Result, others: Sequence[tuple[Reading, Result]], actual: Result, spec: Spec) -> Phrasing:
    """How `actual`, a rejection, is worded for a case whose result is `expected` under the run's reading and
    `others` under the other readings it is compared with."""
    named = actual.rules
    rejecting = [expected] + [result for _, result in others]
    if any(rule in result.rules for result in rejecting if result.status is ResultStatus.REJECTED for rule in named):
        return Phrasing.BROKEN
    return Phrasing.OTHER if named and all(rule in spec.rules for rule in named) else Phrasing.SILENT


def question_for(case: Case, expected: Result, others: Sequence[tuple[Reading, Result]], answer: Answer, *,
                 spec: Spec, reading: Reading, rule_naming: RuleNaming, rule: str | None = None,
                 limit: Deviation | None = None) -> Question | None:
    """The twin the verdict on `answer` hinges on, or None when it needs none: an answer that is not a rejection,
    a rejection of a call no reading makes illegal (a false rejection whatever it names), one naming a rule the
    case breaks (the spec checks the claim), one naming other spec rules (wrong-rule, or a false rejection) but
    under --lenient-rules, and one whose wording --strict-rules fails. `rule`: the rule a fault test breaks;
    `limit`: a limit probe's declared limit (every rejection of it needs a twin)."""
    actual = answer.result
    if answer.kind is not AnswerKind.RESULT or actual is None or actual.status is not ResultStatus.REJECTED:
        return None
    if limit is not None:
        return Question(limit=limit)
    wording = phrasing(expected, others, actual, spec)
    if wording is Phrasing.BROKEN or (wording is Phrasing.OTHER and rule_naming is not RuleNaming.LENIENT):
        return None
    if expected.status is ResultStatus.REJECTED:
        if rule_naming is RuleNaming.STRICT and actual.rules:   # an id the spec does not know: wrong-rule
            return None
        return Question(rule=rule if rule in expected.rules else expected.rules[0])
    point = _point_in_question(expected, others, reading, spec)
    return Question(point=point) if point is not None else None


def _point_in_question(expected: Result, others: Sequence[tuple[Reading, Result]], reading: Reading,
                       spec: Spec) -> str | None:
    """Of a call legal under the run's reading, the disputed point by which another reading rejects it (the
    first, in the order of the points the case depends on); None when no reading rejects it."""
    depends = points_of(expected.depends_on, spec)
    for other, result in others:
        if result.status is ResultStatus.REJECTED:
            differing = [point for point in depends if other.alternative(point) != reading.alternative(point)]
            if differing:
                return differing[0]
    return None


def judge_with_evidence(case: Case, expected: Result, answer: Answer, hello: Hello, *, spec: Spec, reading: Reading,
                        others: Sequence[tuple[Reading, Result]] = (), rule_naming: RuleNaming = RuleNaming.KNOWN,
                        rule: str | None = None, limit: Deviation | None = None, ask: Ask,
                        diagnose: bool = True, detail: bool = True) -> Verdict:
    """The verdict on `answer` as judge.verdict.judge gives it, with a rejection credited only for what it
    proves: where the verdict hinges on the case's twin (`question_for`), the twin is asked for (`ask`) and the
    judgment table of docs/evidence.md applied. `rule`: the rule a fault test breaks; `limit`: a limit probe's
    declared limit (`expected` then the rejection the probe must get). A failing verdict carries its diagnosis
    (judge.diagnosis) on the case it is shown on (the twin's, when the verdict is the twin's answer), unless
    `diagnose` is False (the runner diagnoses selectively: runner.diagnosing); its diff as judge gives it with
    `detail`."""
    verdict = _with_evidence(case, expected, answer, hello, spec=spec, reading=reading, others=others,
                             rule_naming=rule_naming, rule=rule, limit=limit, ask=ask, detail=detail)
    what_it_did = verdict.what_it_did
    if not diagnose or not verdict.is_failure or verdict.expected is None or what_it_did is None:
        return verdict
    shown = verdict.twin_case if verdict.twin_case is not None else case
    return verdict.diagnosed(diagnosed_by(shown, verdict.expected, what_it_did, spec, reading))


def _with_evidence(case: Case, expected: Result, answer: Answer, hello: Hello, *, spec: Spec, reading: Reading,
                   others: Sequence[tuple[Reading, Result]], rule_naming: RuleNaming, rule: str | None,
                   limit: Deviation | None, ask: Ask, detail: bool) -> Verdict:
    """The verdict of judge_with_evidence, undiagnosed."""
    question = question_for(case, expected, others, answer, spec=spec, reading=reading, rule_naming=rule_naming,
                            rule=rule, limit=limit)
    if question is None:
        verdict = judge(case, expected, answer, hello, spec=spec, reading=reading, others=others,
                        rule_naming=rule_naming, diagnose=False, detail=detail)
        credited = verdict.outcome is Outcome.PASS and expected.status is ResultStatus.REJECTED
        return replace(verdict, shown=Shown.NAMED) if credited else verdict
    evidence = ask(question)
    verdict = judge(case, expected, answer, hello, spec=spec, reading=reading, others=others, rule_naming=rule_naming,
                    credited=evidence.proof is Proof.ACCEPTED, diagnose=False, detail=detail)
    return _weighed(verdict, evidence, question, expected, spec)


def _weighed(verdict: Verdict, evidence: Evidence, question: Question, expected: Result, spec: Spec) -> Verdict:
    """The verdict of a rejection whose credit hinged on `evidence` (the table's columns T+, T≠, T−, T∅, T!)."""
    thing = question.describe()
    if expected.status is ResultStatus.OK:   # a legal call another reading makes illegal (row B)
        return _weighed_legal(verdict, evidence, thing, spec)
    if evidence.proof is Proof.ACCEPTED:
        return replace(verdict, shown=Shown.TWIN, twin=evidence.words,
                       message=f"{verdict.message}; its twin ({evidence.words}) was accepted: the rejection is "
                               f"for {thing}")
    if evidence.proof is Proof.NO_TWIN:   # nothing to blame, nothing to credit: the rule's check is not shown
        return replace(verdict, shown=Shown.NO_TWIN, twin=evidence.words, points=MappingProxyType({}),
                       message=f"{verdict.message}; not shown to be for {thing}: {evidence.words}")
    assert evidence.verdict is not None, "a twin that was sent has its verdict"
    shown, twin = _MASKED[evidence.proof], evidence.verdict
    return replace(twin, shown=shown, twin=evidence.words, twin_case=evidence.twin,
                   points=MappingProxyType({point: NONE for point in verdict.points}),
                   message=f"on the twin ({evidence.words}) of a call it rejected {_wording(verdict)}: {twin.message}; "
                           f"the check of {thing} is not shown ({shown.value})")


def _weighed_legal(verdict: Verdict, evidence: Evidence, thing: str, spec: Spec) -> Verdict:
    """A rejection of a call legal under the run's reading that another reading makes illegal: disputed only if
    its twin was accepted (judge credited it then); a false rejection otherwise, the point counted `none` when the
    twin was refused or answered other bytes, not counted without a twin; the twin's own verdict when it gave no
    result. A twin that had to put right the rules of several points (every reading must accept it: a dstGap
    case with an L0A destination the vendor's alignment refuses) shows that the rejection is for one of them,
    not which: the readings table counts none of them (judge leaves a point out when the readings the answer
    matches disagree on it)."""
    if evidence.proof is Proof.ACCEPTED:
        points = sorted({point for rule in evidence.put_right if rule in spec.rules
                         and (point := spec.rule(rule).dispute) is not None})
        which = (f"one of {', '.join(points)} (its twin puts them right at once: not shown which)"
                 if len(points) > 1 else thing)
        return replace(verdict, twin=evidence.words,
                       message=f"{verdict.message}; its twin ({evidence.words}) was accepted: the rejection is for {which}")
    if evidence.proof is Proof.NO_TWIN:
        return replace(verdict, twin=evidence.words, points=MappingProxyType({}),
                       message=f"{verdict.message}; no evidence that the rejection is for {thing}: {evidence.words}")
    assert evidence.verdict is not None, "a twin that was sent has its verdict"
    twin = evidence.verdict
    if evidence.proof is Proof.NO_RESULT:
        return replace(twin, twin=evidence.words, twin_case=evidence.twin,
                       message=f"on the twin ({evidence.words}) of a call it rejected {_wording(verdict)}: {twin.message}")
    what = "refused too" if evidence.proof is Proof.REFUSED else f"accepted with other bytes ({twin.message})"
    return replace(verdict, twin=evidence.words,
                   message=f"{verdict.message}; its twin ({evidence.words}) was {what}: the rejection is not for {thing}")


def _wording(verdict: Verdict) -> str:
    actual = verdict.actual
    if actual is None or not actual.rules:
        return "naming no rule"
    # a target's ids are its text, cut; short here: the twin's own message that follows cites them again
    return "citing " + clip(", ".join(actual.rules), TARGET_TEXT_CHARS // 5)
