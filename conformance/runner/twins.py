"""Counterfactual twins sent to a run's target: the evidence judge.evidence asks for (issue 25; docs/evidence.md).

`Twins.ask(question, case)` derives the twin the question asks for (strategies.twins: the fault's rule, the
disputed point or the declared limit put right), sends it, and judges the target's answer as the legal case the
twin is. The evidence is cached by the twin's content: the same twin is sent once per process (Hypothesis replays
and shrinks the same cases; a pack's cases share twins). A twin on a path the target's hello excludes, or one
needing a case-format extension it does not announce, is not sent: no evidence, so no credit. `prefetch` sends the
twins of many cases at once (a pack test's, through the target's execute_many: pipelined behind exec:).
`Accepted` keeps the legal cases the target accepted, for the fault tests to keep looking on.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Generic, Hashable, Iterable, TypeVar

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer
from ascendc_conformance.format.case import Case, ResultStatus
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.outcome import Outcome, Shown
from ascendc_conformance.format.tags import Tag, TagKind
from ascendc_conformance.judge.evidence import Evidence, Proof, Question
from ascendc_conformance.judge.verdict import Verdict, judge
from ascendc_conformance.spec.model import Reading, Spec
from ascendc_conformance.strategies.twins import NoTwin, Twin, twin_for_fault, twin_for_limit, twin_for_point
from ascendc_conformance.targets import Target

KEPT = 1024   # twins (and their evidence) a process keeps: enough for every replay of a test's cases

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class _Kept(Generic[Key, Value]):
    """The last KEPT entries, the least recently used dropped first."""

    def __init__(self) -> None:
        self._entries: OrderedDict[Key, Value] = OrderedDict()

    def get(self, key: Key) -> Value | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: Key, value: Value) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > KEPT:
            self._entries.popitem(last=False)


class Twins:
    """The twins a run sends its target, under its spec, reading and the limits the target declares."""

    def __init__(self, *, spec: Spec, reading: Reading, target: Target, limits: Limits) -> None:
        self.spec, self.reading, self.target, self.limits = spec, reading, target, limits
        self._derived: _Kept[tuple[Question, str], Twin | Evidence] = _Kept()   # (question, case digest) -> twin
        self._evidence: _Kept[str, Evidence] = _Kept()   # twin digest -> the evidence of its answer
        self.sent = 0   # twins sent to the target

    def ask(self, question: Question, case: Case) -> Evidence:
        """The evidence of `case`'s twin for `question`: its answer judged (sent once per twin), or why there
        is none."""
        twin = self._twin(question, case)
        if isinstance(twin, Evidence):
            return twin
        digest = twin.case.digest()
        evidence = self._evidence.get(digest)
        if evidence is None:
            self.sent += 1
            evidence = self._judged(twin, self.target.execute(twin.case))
            self._evidence.put(digest, evidence)
        return replace(evidence, words=twin.describe(), put_right=twin.put_right)

    def prefetch(self, asked: Iterable[tuple[Question, Case]]) -> None:
        """Send the twins of `asked` not sent yet, all at once (behind exec:, several in flight), so that `ask`
        finds their evidence."""
        pending: dict[str, Twin] = {}
        for question, case in asked:
            twin = self._twin(question, case)
            if isinstance(twin, Twin) and self._evidence.get(digest := twin.case.digest()) is None:
                pending.setdefault(digest, twin)
        twins = list(pending.items())
        answers = self.target.execute_many(twin.case for _, twin in twins)
        try:
            for (digest, twin), (_, answer) in zip(twins, answers):
                self.sent += 1
                self._evidence.put(digest, self._judged(twin, answer))
        finally:
            answers.close()

    def _twin(self, question: Question, case: Case) -> Twin | Evidence:
        """The twin to send, or the evidence that there is none to send (no credit either way)."""
        key = (question, case.digest())
        found = self._derived.get(key)
        if found is None:
            found = self._derive(question, case)
            self._derived.put(key, found)
        return found

    def _derive(self, question: Question, case: Case) -> Twin | Evidence:
        spec, limits = self.spec, self.limits
        if question.limit is not None:
            twin = twin_for_limit(spec, case, question.limit.limit, limits)
        elif question.point is not None:
            twin = twin_for_point(spec, case, question.point, limits)
        else:
            assert question.rule is not None, "a question names a rule, a point or a limit"
            twin = twin_for_fault(spec, case, spec.rule(question.rule), limits)
        if isinstance(twin, NoTwin):
            return Evidence(Proof.NO_TWIN, twin.describe())
        call = twin.case
        form = next((tag.subject for tag in map(Tag.parse, call.tags) if tag and tag.kind is TagKind.FORM), None)
        path = f"{call.product} {call.api} {call.src.position}->{call.dst.position} {call.src.dtype}"
        if not self.target.supports(call.product, call.api, src=call.src.position, dst=call.dst.position,
                                    dtype=call.src.dtype, dst_dtype=call.dst.dtype, form=form):
            return Evidence(Proof.NO_TWIN, f"its twin ({twin.describe()}) lies on {path}, which the target's "
                                           "hello excludes: not sent, no evidence")
        if not self.target.handles(frozenset(call.extensions)):
            return Evidence(Proof.NO_TWIN, f"its twin ({twin.describe()}) needs the case-format extension(s) "
                                           f"{', '.join(call.extensions)}, which the target does not announce")
        return twin

    def _judged(self, twin: Twin, answer: Answer) -> Evidence:
        """The target's answer to a twin judged as the legal case the twin is, under the run's reading."""
        expected, others = reference.expect_readings(twin.case, self.spec, self.reading)
        if expected.status is not ResultStatus.OK:   # legal under every reading but a path-only point's: not this one
            return Evidence(Proof.NO_TWIN, f"its twin ({twin.describe()}) is {expected.status} under the run's "
                                           f"reading {self.reading.label}: {expected.message}")
        verdict = judge(twin.case, expected, answer, self.target.hello, spec=self.spec, reading=self.reading,
                        others=others, diagnose=False)   # a failure it masks is diagnosed as the case's (Checker._record)
        return Evidence.of(twin.describe(), twin.put_right, twin.case, expected, verdict)


PER_PATH = 8   # accepted legal cases kept per path and form (a fault needs one to be built on: a few give variety)


class Accepted:
    """The legal cases the target accepted, at most PER_PATH per path and form (as the legal tests, run first,
    find them), and the (product, API) pairs on which it refused a legal call (a legal test's case, or a twin):
    what a fault test of those pairs keeps looking on (strategies.accepted.fault_on, runner.gates), so that one
    systematic false rejection cannot mask a missing check."""

    def __init__(self) -> None:
        self._cases: dict[tuple[str, str], dict[tuple[str, ...], list[Case]]] = {}
        self._refused: set[tuple[str, str]] = set()

    def note(self, case: Case, answer: Answer, verdict: Verdict, *, legal: bool) -> None:
        """Keep `case` if it is legal (`legal`: a case of a legal test) and was accepted; remember a refusal."""
        pair = (case.product, case.api)
        if verdict.outcome is Outcome.FALSE_REJECT or verdict.shown is Shown.MASKED_FALSE_REJECT:
            self._refused.add(pair)
        result = answer.result
        if not legal or result is None or result.status is not ResultStatus.OK:
            return
        path = tuple(sorted(text for text in case.tags
                            if (tag := Tag.parse(text)) is not None and tag.kind in (TagKind.PATH, TagKind.FORM)))
        kept = self._cases.setdefault(pair, {}).setdefault(path, [])
        if len(kept) < PER_PATH:
            kept.append(case)

    def refused(self, product: str, api: str) -> bool:
        """Whether the target refused a legal call of the product and API."""
        return (product, api) in self._refused

    def of(self, product: str, api: str) -> tuple[Case, ...]:
        """The accepted legal cases of the product and API."""
        return tuple(case for cases in self._cases.get((product, api), {}).values() for case in cases)
