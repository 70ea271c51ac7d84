"""Which cause of its test a failing case belongs to: the hypothesis that explains it (issue 26), or, where none
does, its diff-class cause (format.results.Cause) as before.

A test's causes are keyed by the hypothesis that explains their cases (judge.diagnosis), across the verdicts a
bug earns: a wrong copy, an error from a copy that overran and a missed rejection of one count not rounded down
are one cause. Each cause keeps, simplest first, the hypotheses that explain every case of it asked so far
(`CauseRecord.hypotheses`); the first of them names it. What a failing case costs is bounded:

1. a known cause first, cheaply: the named hypothesis of each explained cause of the test is asked alone (one
   twin); the first that explains the case takes it. Of the cases a test draws (not the shrinker's candidates),
   the first NARROWED_CASES of each cause also ask its other hypotheses and keep those that explain them too (a
   field kept in 7 bits explains blockLen 256 as well as 8 bits do, not 300);
2. otherwise the case is a new kind of failure and its API's whole catalogue is asked (judge.diagnosis.diagnose, a few
   ms): a cause whose hypotheses it shares takes it, narrowed to those (its name may change: blockLen 256 read
   as 0, then 300 shows it kept in 8 bits); else it founds a cause named by its simplest explanation; if nothing
   explains it, its diff-class cause takes it — and after UNEXPLAINED_TRIES such cases of one diff-class cause
   the test stops asking for it;
3. when the test ends, a cause Hypothesis shrank (to the smallest case its named hypothesis still explains) is
   tried once more with the hypothesis's field at the smallest value that shows it (`demonstration`: blockLen
   kept in 8 bits, blockLen 256; Hypothesis's shrinker, working on the draws, may stop at 511), and each
   explained cause's smallest case is diagnosed once: the hypotheses that explain it (`shown_by`) tell the
   reports which hypothesis a cause's replay demonstrates, and its words name the cause with that case's values
   ("blockLen kept in 8 bits (256 read as 0)").

A passing case costs nothing here. The causes of every test are grouped across the run by reports.causes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.replay import Demonstrated
from ascendc_conformance.format.results import Cause
from ascendc_conformance.judge.diagnosis import Diagnosis, Explanation, FailingAnswer
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.hypotheses import Hypothesis, hypothesis
from ascendc_conformance.runner.records import CauseRecord, CheckRecord
from ascendc_conformance.spec.model import Reading, Spec

NARROWED_CASES = 4      # drawn cases of a cause that ask all its hypotheses again (narrowing them)
UNEXPLAINED_TRIES = 3   # failing cases of one diff-class cause diagnosed (none explained) before the test stops asking


@dataclass(frozen=True)
class Attribution:
    """The cause a failing case belongs to, what was found of the case (None: nothing asked) and, for a cause it
    founds, the hypotheses that explain it, simplest first."""

    cause: Cause
    diagnosis: Diagnosis | None = None
    hypotheses: tuple[str, ...] = ()


class Diagnoser:
    """Attributes the failing cases of a run's tests to causes, under its spec and reading (see the module doc)."""

    def __init__(self, spec: Spec, reading: Reading) -> None:
        self.spec, self.reading = spec, reading

    def attribute(self, record: CheckRecord, case: Case, expected: Result, verdict: Verdict, fallback: Cause, *,
                  drawn: bool) -> Attribution:
        """The cause of one failing case of the test (`fallback`: its diff-class cause); `drawn`: one of the
        cases the test draws, not a shrinker's candidate."""
        if verdict.outcome is Outcome.FLAKY:   # what a changing answer got wrong is chance, not a bug class
            return Attribution(fallback)
        actual = verdict.what_it_did
        failing = FailingAnswer.of(case, expected, actual, self.spec, self.reading) if actual is not None else None
        if failing is None:   # a timeout, a rejection for another rule, an answer no bug class makes
            return Attribution(fallback)
        explained = [state for state in record.causes.values() if state.hypotheses]
        for state in explained:
            named = self._hypothesis(state.hypotheses[0])
            if failing.explained_by(named):
                if drawn and state.narrowed < NARROWED_CASES and len(state.hypotheses) > 1:
                    state.narrowed += 1
                    state.hypotheses = tuple(name for name in state.hypotheses
                                             if failing.explained_by(self._hypothesis(name)))
                explanation = Explanation(named, named.describe(failing.probe.call))
                return Attribution(state.cause, Diagnosis((explanation,), complete=False))
        if record.unexplained[fallback] >= UNEXPLAINED_TRIES:
            return Attribution(fallback)
        diagnosis = failing.diagnose()
        if not diagnosis:
            record.unexplained[fallback] += 1
            return Attribution(fallback, diagnosis)
        found = diagnosis.ids
        for state in explained:
            if found & set(state.hypotheses):   # the same bug: its named hypothesis did not explain this case
                state.hypotheses = tuple(name for name in state.hypotheses if name in found)
                state.title = self._hypothesis(state.hypotheses[0]).title
                return Attribution(state.cause, diagnosis)
        simplest = diagnosis.explanations[0].hypothesis
        cause = Cause.explained(verdict.outcome, case.api, simplest.id, simplest.title)
        return Attribution(cause, diagnosis, tuple(explanation.hypothesis.id for explanation in diagnosis.explanations))

    def demonstration(self, state: CauseRecord) -> Case | None:
        """The cause's smallest case with its named hypothesis's field at the smallest value that shows it, where
        that is smaller and the call stays legal (the regions, sized for the larger value, still hold it); None
        where there is nothing to pin (no field hypothesis, a struct member's field, an illegal call)."""
        if not state.hypotheses or state.expected.status is not ResultStatus.OK:
            return None
        named = self._hypothesis(state.hypotheses[0])
        value, params = named.smallest, state.case.params
        if value is None:
            return None
        pinned = {field: value for field in named.fields
                  if type(params.get(field)) is int and params[field] > value}   # plain int fields, not bools
        if not pinned:
            return None
        candidate = replace(state.case, params=MappingProxyType({**params, **pinned}))
        legal = all(reference.expect(candidate, self.spec, reading=reading).status is ResultStatus.OK
                    for reading in {self.spec.seed_reading, self.reading})
        return candidate if legal else None

    def shows(self, state: CauseRecord, case: Case, expected: Result, verdict: Verdict) -> bool:
        """Whether a failing verdict on `case` is the cause's: its named hypothesis explains it."""
        actual = verdict.what_it_did
        failing = FailingAnswer.of(case, expected, actual, self.spec, self.reading) \
            if verdict.is_failure and actual is not None and state.hypotheses else None
        return failing is not None and failing.explained_by(self._hypothesis(state.hypotheses[0]))

    def finish(self, record: CheckRecord) -> None:
        """The test ended: each explained cause's smallest case diagnosed once (`shown_by`, `words`)."""
        for state in record.causes.values():
            if not state.hypotheses:
                continue
            actual = state.verdict.what_it_did
            failing = FailingAnswer.of(state.case, state.expected, actual, self.spec, self.reading) \
                if actual is not None else None
            if failing is None:
                continue
            shown = failing.diagnose().ids | {name for name in state.hypotheses
                                             if failing.explained_by(self._hypothesis(name))}
            state.shown_by = tuple(sorted(shown, key=lambda name: self._hypothesis(name).rank))
            state.words = self._hypothesis(state.hypotheses[0]).describe(failing.probe.call)

    def replay_hypothesis(self, state: CauseRecord) -> Demonstrated | None:
        """What a cause's replay file says its smallest case demonstrates: its named hypothesis, with that case's
        values (None for a cause no hypothesis explains)."""
        if not state.hypotheses:
            return None
        named = self._hypothesis(state.hypotheses[0])
        return Demonstrated(id=named.id, title=named.title,
                            words=named.describe(resolve(state.case, self.spec, self.reading)))

    def _hypothesis(self, name: str) -> Hypothesis:
        return hypothesis(self.spec, name)
