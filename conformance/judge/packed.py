"""Judging an answer to a case of a pack, whose expected memory images are stored as SHA-256 digests.

The pack gives the expected result of its case under each computable reading of the points it depends on
(format.pack), with each expected region as the digest of its bytes. The answer is judged by the one judge
(judge.verdict.judge, through judge.evidence) with every region — expected and answered — stood in for by its digest: equal digests
are equal bytes, so a pass, a rejection and which reading an answer follows come out as a profile run has
them, without the reference. A verdict that needs the bytes themselves — a memory diff, a failure's replay
file, a disputed verdict's message — is worked out again from the case by the reference, as a profile run
does; so every verdict is the one a profile run gives the same case and answer.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Region, Result, ResultStatus, digest_of
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.pack import PackedCase, digested
from ascendc_conformance.judge.diff import same_memory
from ascendc_conformance.judge.evidence import Ask, Question, judge_with_evidence, question_for
from ascendc_conformance.judge.verdict import RuleNaming, Verdict
from ascendc_conformance.reference import Others
from ascendc_conformance.spec.model import Reading, Spec


def expectations(expected: Result, others: Others) -> tuple[tuple[str, ...], tuple[tuple[Mapping[str, str], Mapping[str, Any]], ...]]:
    """What a pack stores of a case's expected results (reference.expect_readings: under the seed reading and
    every other computable one): the disputed points they depend on, and each result digested under its
    choices of those points (the seed reading's first, with no choices). `pack build` writes it; a pack run
    whose id is not pinned checks the stored one against it (runner.pack_check)."""
    points = tuple(dict.fromkeys(point for other, _ in others for point in other.choices))
    stored = ((MappingProxyType({}), digested(expected)),
              *((MappingProxyType(dict(other.choices)), digested(result)) for other, result in others))
    return points, stored


def stored_expected(packed: PackedCase, reading: Reading, spec: Spec) -> tuple[Result, Others]:
    """The expected result under `reading` and under every other combination of the readings of the case's
    points, as reference.expect_readings orders them, from the pack: each expected region's bytes stood in for
    by its digest (`by_digest`). Worked out once for the case a run is judging (the twin's question and the
    verdict ask for it in turn)."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is packed and last[1] is reading and last[2] is spec:
        return last[3]
    found = _stored_expected(packed, reading, spec)
    _LAST = (packed, reading, spec, found)
    return found


_LAST: tuple[PackedCase, Reading, Spec, tuple[Result, Others]] | None = None
"""The last case's (held, so compared by identity): a pack run judges its cases one at a time."""


def _stored_expected(packed: PackedCase, reading: Reading, spec: Spec) -> tuple[Result, Others]:
    seed = spec.seed_reading

    def under(other: Reading) -> Result:
        result = packed.result({point: other.alternative(point) for point in packed.points
                                if other.alternative(point) != seed.alternative(point)})
        if result is None:
            raise ValueError(f"case {packed.case.get('id')}: the pack has no expected result under {other.label}")
        return _stored(result)
    others = spec.other_readings(packed.points, reading) if packed.points else []
    return under(reading), [(other, under(other)) for other in others]


def judge_packed(packed: PackedCase, case: Case, answer: Answer, hello: Hello, *, reading: Reading,
                 rule_naming: RuleNaming, spec: Spec, rule: str | None, ask: Ask, in_full: Callable[[], Answer],
                 diagnose: bool = True, detail: bool = True) -> tuple[Verdict, Result, Answer]:
    """The verdict on the target's answer to a pack's case (its materialized `case`), the expected result it was
    judged against (with its bytes when the reference had to work them out), and the answer judged: `answer`,
    or, where it gave its regions' digests (Answer.digests) and the verdict needs their bytes (a failure, a
    disputed case), the answer `in_full` gets by sending the case again asking for the bytes. A rejection is
    credited as in a profile run (judge.evidence): its twin, derived from the case, is asked for (`ask`) where
    the verdict hinges on it, and judged against the reference (a pack stores no twins). `rule`: the rule the
    case's test is about. A failing verdict is diagnosed unless `diagnose` is False, and carries its diff unless
    `detail` is False (as judge.evidence.judge_with_evidence)."""
    expected, others = stored_expected(packed, reading, spec)
    answered = by_digest(answer)
    if not _differs(expected, answered):
        verdict = judge_with_evidence(case, expected, answered, hello, reading=reading, others=others,
                                      rule_naming=rule_naming, spec=spec, rule=rule, ask=ask, diagnose=False)
        if not verdict.is_failure and verdict.outcome is not Outcome.DISPUTED:   # its actual: the answer's result
            actual = answer.result
            return (verdict if verdict.actual is actual else replace(verdict, actual=actual)), expected, answer
    if answer.digests:
        answer = in_full()
    expected, others = reference.expect_readings(case, spec, reading)
    return judge_with_evidence(case, expected, answer, hello, reading=reading, others=others, rule_naming=rule_naming,
                               spec=spec, rule=rule, ask=ask, diagnose=diagnose, detail=detail), expected, answer


def twin_question(packed: PackedCase, case: Case, answer: Answer, *, reading: Reading, rule_naming: RuleNaming,
                  spec: Spec, rule: str | None) -> Question | None:
    """The twin the verdict on the answer to a pack's case hinges on (None: none), from the pack's expected
    results: a pack run sends the twins of a test's cases at once (runner.pack_run)."""
    expected, others = stored_expected(packed, reading, spec)
    return question_for(case, expected, others, answer, spec=spec, reading=reading, rule_naming=rule_naming,
                        rule=rule)


def _stored(result: Mapping[str, Any]) -> Result:
    """A stored expected result, each region's digest standing in for its bytes."""
    memory = None if "memory" not in result else MappingProxyType({
        name: Region(region["address"], bytes.fromhex(region["sha256"])) for name, region in result["memory"].items()})
    return Result(ResultStatus(result["status"]), memory=memory, rules=tuple(result.get("rules", ())),
                  message=result.get("message", ""), depends_on=tuple(result.get("depends_on", ())))


def _differs(expected: Result, answered: Answer) -> bool:
    """An ok answer (its regions by digest) to a case expected ok whose memory is not the expected one: its
    diff needs the bytes."""
    result = answered.result
    return (expected.status is ResultStatus.OK and answered.kind is AnswerKind.RESULT and result is not None
            and result.status is ResultStatus.OK and result.memory is not None and expected.memory is not None
            and not same_memory(result.memory, expected.memory))


def by_digest(answer: Answer) -> Answer:
    """An ok answer with each region's digest standing in for its bytes (Answer.digests); any other answer as it
    is."""
    result = answer.result
    if answer.kind is not AnswerKind.RESULT or result is None or result.memory is None or answer.digests:
        return answer
    memory = {name: Region(region.address, digest_of(region.data)) for name, region in result.memory.items()}
    return replace(answer, result=replace(result, memory=MappingProxyType(memory)), digests=True)
