"""Which bug classes explain one failing case: the hypotheses (reference.hypotheses) whose twin of the call
reproduces exactly what the target did.

What the target did is an ok answer with its memory, a rejection naming rules, or a failure outright (its own
error result, a crash, a malformed answer such as one with regions the case lacks). A hypothesis reproduces:

- an ok answer to a legal call when the regions its twin leaves (reference.prediction.Image) are the answered
  ones byte for byte, but where the twin reads from outside the case (those bytes are unknown: they must hold
  neither the right bytes nor the old ones beyond chance, CHANCE_MATCHES) and where it clobbers (anything);
- an ok answer to an illegal call (a missed rejection) the same way, when the target with that bug accepts the
  call: a rule it does not check, a twin that is legal (a count not rounded down moves what a legal call would);
- a rejection of a legal call when a target with the bug refuses it: the twin breaks rules (its accesses
  leave the regions, its misread field is out of range) or the bug is a too-strict validator; a rejection that
  names only rules of the spec must name one of those;
- an error or a crash on a legal call when the twin's accesses leave the case's regions (the miscomputed copy
  overran).

Of the hypotheses that reproduce the answer, those needing the fewest unknown bytes are kept: a twin that says
every byte exactly beats one that leaves bytes to chance. Each distinct twin is computed once, and only those
that change the call; a case the reference answers ok costs nothing here (diagnosis runs on failures only).

`FailingAnswer` is one failing answer held against hypotheses: `explained_by(hypothesis)` asks one (cheap: one
twin, the runner's first question about a new failing case of a test whose cause is already known),
`diagnose()` the whole catalogue of the case's API. `diagnose` and `explains` are the one-shot forms.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.case import Case, Region, Result, ResultStatus, memory_of
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.hypotheses import Hypothesis, Kind, catalogue
from ascendc_conformance.reference.misreading import Twin, TwinKey
from ascendc_conformance.reference.prediction import Image, Probe
from ascendc_conformance.spec.model import Reading, Spec

CHANCE_MATCHES = 4   # bytes read from outside the case that may equal the right ones by chance (or 1 in 16)

Actual = Result | AnswerKind
"""What the target did: its result (ok, rejected, or its own error), or the kind of an answer that is not one
(crashed, timeout, a malformed answer: AnswerKind.ERROR)."""


def actual_of(answer: Answer) -> Actual:
    """What the target did, as diagnosis holds it against the twins."""
    return answer.result if answer.kind is AnswerKind.RESULT and answer.result is not None else answer.kind


@dataclass(frozen=True)
class Explanation:
    """A hypothesis that reproduces the answer, in words with the call's values, and how many of the answer's
    bytes it explains only as read from outside the case."""

    hypothesis: Hypothesis
    words: str
    unknown: int = 0


@dataclass(frozen=True)
class Diagnosis:
    """The hypotheses that reproduce one failing answer, simplest first (empty: none does). `complete` is False
    when only some hypotheses were asked (the runner asks a failing case first whether its test's known cause
    explains it): the others may explain it too."""

    explanations: tuple[Explanation, ...] = ()
    complete: bool = True

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(explanation.hypothesis.id for explanation in self.explanations)

    @property
    def simplest(self) -> Explanation | None:
        return self.explanations[0] if self.explanations else None

    def __bool__(self) -> bool:
        return bool(self.explanations)

    def describe(self) -> str:
        """What a failure's message adds: the simplest explanation, and how many others fit alike."""
        if not self.explanations:
            return ""
        others = len(self.explanations) - 1
        alike = f" (and {others} other hypothes{'i' if others == 1 else 'e'}s alike)" if others else ""
        return f"diagnosis: {self.explanations[0].words}{alike}"

    def to_json(self) -> dict[str, Any]:
        """As a verdict's JSON keeps it: the simplest hypothesis, its words, the others' ids."""
        simplest = self.simplest
        return {"hypothesis": simplest.hypothesis.id if simplest else None, "words": simplest.words if simplest else "",
                "others": [explanation.hypothesis.id for explanation in self.explanations[1:]],
                "complete": self.complete}


def diagnose(case: Case, expected: Result, actual: Actual, spec: Spec, reading: Reading) -> Diagnosis:
    """The hypotheses that reproduce `actual`, what the target did with `case`, where the reference expects
    `expected` under `reading` (ok or rejected; any other expectation, or a timeout, is explained by none)."""
    failing = FailingAnswer.of(case, expected, actual, spec, reading)
    return failing.diagnose() if failing is not None else Diagnosis()


def explains(hypothesis: Hypothesis, case: Case, expected: Result, actual: Actual, spec: Spec,
             reading: Reading) -> bool:
    """Whether this one hypothesis reproduces `actual` (as `diagnose` has it, without comparing it with the
    others): the predicate that keeps a shrunk case showing its cause's hypothesis."""
    failing = FailingAnswer.of(case, expected, actual, spec, reading)
    return failing is not None and failing.explained_by(hypothesis)


_CANDIDATES: dict[tuple[str, str, bool, bool], tuple[Hypothesis, ...]] = {}


def _candidates(spec: Spec, api: str, legal: bool, answered_ok: bool) -> tuple[Hypothesis, ...]:
    """The hypotheses of the API whose kind can explain this kind of failure (see _Match.may_explain)."""
    key = (spec.digest, api, legal, answered_ok)
    if key not in _CANDIDATES:
        _CANDIDATES[key] = tuple(hypothesis for hypothesis in catalogue(spec, api)
                                 if _kind_may_explain(hypothesis.kind, legal, answered_ok))
    return _CANDIDATES[key]


def _kind_may_explain(kind: Kind, legal: bool, answered_ok: bool) -> bool:
    """A missing check explains only a missed rejection, a too-strict validator only a false one."""
    if kind.accepts_illegal_calls:
        return not legal and answered_ok
    if kind.refuses_legal_calls:
        return legal and not answered_ok
    return True


class FailingAnswer:
    """One failing answer to hold twins against; what each twin (by key) makes of it is worked out once."""

    def __init__(self, probe: Probe, expected: Result, actual: Actual, answered: Mapping[str, Region] | None,
                 differing: tuple[int, int] | None) -> None:
        self.probe, self.expected, self.actual = probe, expected, actual
        self.answered = answered     # the memory of an ok answer (None: the target did not answer ok)
        self.differing = differing   # the lowest and highest absolute byte an ok answer has otherwise
        self._fits: dict[TwinKey, int | None] = {}

    @classmethod
    def of(cls, case: Case, expected: Result, actual: Actual, spec: Spec,
           reading: Reading) -> "FailingAnswer | None":
        """The answer to hold twins against; None where no hypothesis can explain it: an expectation other than ok
        or rejected, a timeout, an ok answer whose regions are not the case's or that changed memory other than
        the destination's, a right answer."""
        if expected.status not in (ResultStatus.OK, ResultStatus.REJECTED) or actual is AnswerKind.TIMEOUT:
            return None
        call, differing, answered = resolve(case, spec, reading), None, None
        if isinstance(actual, Result) and actual.status is ResultStatus.OK:
            answered = actual.memory
            if answered is None or set(answered) != set(case.memory):
                return None
            right = expected.memory or case.memory
            if any(answered[key].address != region.address or len(answered[key].data) != len(region.data)
                   or (answered[key] != region and memory_of(key) != call.dst_memory)
                   for key, region in right.items()):
                return None   # regions shaped otherwise, or bytes changed outside the destination's memory
            differing = _differing(answered, right)
            if differing is None and expected.status is ResultStatus.OK:
                return None   # the right answer: nothing to explain
        return cls(Probe(call), expected, actual, answered, differing)

    @property
    def legal(self) -> bool:
        return self.expected.status is ResultStatus.OK

    @property
    def answered_ok(self) -> bool:
        return self.answered is not None

    def may_explain(self, hypothesis: Hypothesis) -> bool:
        """Whether the hypothesis is of this API (or any) and its kind can explain this kind of failure."""
        return (hypothesis.api in (None, self.probe.call.api.name)
                and _kind_may_explain(hypothesis.kind, self.legal, self.answered_ok))

    def explained_by(self, hypothesis: Hypothesis) -> bool:
        """Whether this one hypothesis reproduces the answer."""
        if not self.may_explain(hypothesis):
            return False
        twin = hypothesis.twin(self.probe)
        return twin is not None and self._fit(twin) is not None

    def diagnose(self) -> Diagnosis:
        """Every hypothesis of the catalogue of the case's API that reproduces the answer, those needing the fewest
        unknown bytes, simplest first."""
        found: list[tuple[int, Hypothesis]] = []
        call = self.probe.call
        for hypothesis in _candidates(call.spec, call.api.name, self.legal, self.answered_ok):
            twin = hypothesis.twin(self.probe)
            unknown = self._fit(twin) if twin is not None else None
            if unknown is not None:
                found.append((unknown, hypothesis))
        if not found:
            return Diagnosis()
        fewest = min(unknown for unknown, _ in found)
        return Diagnosis(tuple(Explanation(hypothesis, hypothesis.describe(call), unknown)
                               for unknown, hypothesis in found if unknown == fewest))

    def _fit(self, twin: Twin) -> int | None:
        key = twin.key
        if key not in self._fits:
            self._fits[key] = self._reproduces(twin)
        return self._fits[key]

    def _reproduces(self, twin: Twin) -> int | None:
        """The answer's bytes the twin explains only as unknown, if it reproduces the answer; else None."""
        probe = self.probe
        if not probe.changes(twin):
            return None
        if self.answered is not None:
            if not self.legal and probe.refusal_of(twin) is not None:
                return None
            if not self._within_reach(twin) or not self._agrees_where_it_differs(twin, self.answered):
                return None
            return _unknown_bytes(self.answered, probe.call.case.memory,
                                  (self.expected.memory or probe.call.case.memory), probe.image(twin))
        if not self.legal:
            return None
        if isinstance(self.actual, Result) and self.actual.status is ResultStatus.REJECTED:
            refusal = probe.refusal_of(twin)
            return 0 if refusal is not None and _names_consistently(self.actual.rules, refusal, probe) else None
        return 0 if probe.overruns(twin) else None

    def _within_reach(self, twin: Twin) -> bool:
        """Whether every byte the answer has otherwise lies where the call or its twin writes (cheap: spans)."""
        if self.differing is None:
            return True
        reach = [span for span in (self.probe.writes(self.probe.itself), self.probe.writes(twin)) if span is not None]
        if not reach:
            return False
        low, high = self.differing
        return min(span.start for span in reach) <= low and high < max(span.stop for span in reach)

    def _agrees_where_it_differs(self, twin: Twin, answer: Mapping[str, Region]) -> bool:
        """Whether the twin leaves the answer's bytes where a wrong twin most likely shows (it can say cheaply):
        at the lowest and highest address where the answer differs, at the first and last byte the twin writes
        and the bytes just outside them, at the first and last byte the call writes. Most twins that do not
        reproduce the answer fail here, before their whole image is computed."""
        answered = {key: region for key, region in answer.items()
                    if memory_of(key) == self.probe.call.dst_memory}
        addresses = list(self.differing or ())
        for span, margin in ((self.probe.writes(twin), 1), (self.probe.writes(self.probe.itself), 0)):
            if span is not None:
                addresses += [span.start - margin, span.start, span.stop - 1, span.stop - 1 + margin]
        for address in dict.fromkeys(addresses):
            got = _first_byte(answered, address)
            predicted = self.probe.byte_at(twin, address) if got is not None else None
            if predicted is not None and predicted != got:
                return False
        return True


def _first_byte(answered: Mapping[str, Region], address: int) -> int | None:
    for region in answered.values():
        if region.address <= address < region.end:
            return region.data[address - region.address]
    return None


def _differing(answered: Mapping[str, Region], expected: Mapping[str, Region]) -> tuple[int, int] | None:
    """The lowest and highest absolute byte address at which the answered regions (shaped as the expected ones)
    differ from the expected (None: nowhere)."""
    low: int | None = None
    high = 0
    for key, region in answered.items():
        other = expected[key]
        if region.data == other.data:
            continue
        where = np.flatnonzero(np.frombuffer(region.data, dtype=np.uint8) != np.frombuffer(other.data, dtype=np.uint8))
        first, last = region.address + int(where[0]), region.address + int(where[-1])
        low, high = (first, last) if low is None else (min(low, first), max(high, last))
    return None if low is None else (low, high)


def _names_consistently(named: tuple[str, ...], refusal: frozenset[str], probe: Probe) -> bool:
    """A rejection is consistent with a predicted refusal when it names no rule, a rule of the target's own
    (not in the spec), or one of the rules predicted."""
    rules = probe.call.spec.rules
    return not named or any(rule not in rules for rule in named) or bool(refusal & set(named))


def _unknown_bytes(answered: Mapping[str, Region], before: Mapping[str, Region], expected: Mapping[str, Region],
                   image: Image) -> int | None:
    """How many answered bytes the image has as unknown, if the answer agrees with it (None if not): every
    region holds the image's bytes but where they are unknown or loose; an unknown byte holds neither the right
    one nor the one there before the call, but by chance (a twin that makes every byte unknown must not explain
    a copy that got most of them right, or a target that wrote nothing)."""
    total = 0
    for key, predicted in image.memory.items():
        got = answered.get(key)
        if got is None or got.address != predicted.address or len(got.data) != len(predicted.data):
            return None
        unknown, loose = image.unknown.get(key), image.loose.get(key)
        if unknown is not None and not unknown.any():
            unknown = None
        if unknown is None and loose is None:
            if got.data != predicted.data:
                return None
            continue
        free = (unknown if unknown is not None else False) | (loose if loose is not None else False)
        got_bytes, want = np.frombuffer(got.data, dtype=np.uint8), np.frombuffer(predicted.data, dtype=np.uint8)
        if not np.array_equal(got_bytes[~free], want[~free]):
            return None
        if unknown is None:
            continue
        count = int(unknown.sum())
        for other in (expected.get(key, before[key]), before[key]):
            matches = int(np.count_nonzero(got_bytes[unknown] == np.frombuffer(other.data, dtype=np.uint8)[unknown]))
            if matches > max(CHANCE_MATCHES, count // 16):
                return None
        total += count
    return total
