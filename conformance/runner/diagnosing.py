"""Which cause of its test a failing case belongs to: the hypothesis that explains it (issue 26), or, where none
does, its diff-class cause (format.results.Cause) as before.

A test's causes are keyed by the hypothesis that explains their cases (judge.diagnosis), across the verdicts a
bug earns: a wrong copy, an error from a copy that overran and a missed rejection of one count not rounded down
are one cause. Each cause keeps, simplest first, the hypotheses that explain every case of it asked so far
(`CauseRecord.hypotheses`); the first of them names it. What a failing case costs is bounded:

0. a pack's case that fails sent by its regions' fill recipes and passes sent in bytes (Verdict.fill_wrong) is
   the target's region-fill: one cause of its API (FILL_HYPOTHESIS), whatever the diff; nothing is asked;
1. a known cause first, cheaply: the named hypothesis of each explained cause of the test is asked alone (one
   twin); the first that explains the case takes it. Of the cases a test draws (not the shrinker's candidates),
   the first NARROWED_CASES of each cause also ask its other hypotheses and keep those that explain them too (a
   field kept in 7 bits explains blockLen 256 as well as 8 bits do, not 300);
2. otherwise the case is a new kind of failure and its API's whole catalogue is asked (judge.diagnosis.diagnose, a few
   ms), the hypotheses that show on a case the test saw pass put last (`CheckRecord.passed`, its first
   PASSES_KEPT: a target with that bug would have answered it otherwise; demoted, not refuted, as a hypothesis
   need not model every guard of a bug: blockCount read one less shows on one burst, a loop bound off by one
   may not): a cause whose hypotheses it shares takes it, narrowed to those (its name may change: blockLen 256
   read as 0, then 300 shows it kept in 8 bits); else it founds a cause named by its simplest explanation; if
   nothing explains it, its diff-class cause takes it — and after UNEXPLAINED_TRIES such cases of one
   diff-class cause the test stops asking for it. Where the hypotheses it shares with a cause leave out its own
   simplest one (two bugs, or one broader bug?), the target is asked (`ask`, at most QUESTIONS a test): the
   case with that hypothesis's fields just short of the smallest value that shows it, a legal call the simplest
   one says is moved right and some shared ones say is not, and that no other cause's named hypothesis shows
   on (that bug would answer for them). Moved right, it refutes those that said otherwise, and the case founds
   a cause of its own (a target refusing blockCount and blockLen above 255 is not one bug "blockCount read as
   0": it moves blockCount 255 right); moved otherwise, it is the cause's broader bug only where nothing but
   the shared hypotheses said so (where "blockCount refused above 127" did too, it may be a second bound).
   Without that evidence (a shrinker's candidate, no question, none left) the case founds a cause of its own:
   two causes the run may group again by a hypothesis they share (reports.causes) are a smaller error than one
   named by what two bugs share;
3. when the test ends, a cause Hypothesis shrank (to the smallest case its named hypothesis still explains) is
   tried once more with the hypothesis's field at the smallest value that shows it (`demonstration`: blockLen
   kept in 8 bits, blockLen 256; Hypothesis's shrinker, working on the draws, may stop at 511), and each
   explained cause's smallest case is diagnosed once: the hypotheses that explain it (`shown_by`) tell the
   reports which hypothesis a cause's replay demonstrates, and its words name the cause with that case's values
   ("blockLen kept in 8 bits (256 read as 0)"). Before that, a cause of several hypotheses puts last those
   that show on a case the test saw pass, then asks the target the questions that split them most evenly
   (`settle`): blockCount refused above 255 asks blockCount 255, which "blockCount read as 0" and "refused above
   127" say is refused; moved right, it drops them, so that the reports cannot group two bugs under one of them
   across tests.

A passing case costs a place in its test's list, for the first PASSES_KEPT (runner.records). The causes of every
test are grouped across the run by reports.causes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable, Sequence, TypeVar

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.replay import Demonstrated
from ascendc_conformance.format.results import Cause
from ascendc_conformance.judge.diagnosis import Diagnosis, Explanation, FailingAnswer
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.hypotheses import Hypothesis, hypothesis, shows_on
from ascendc_conformance.reference.prediction import Probe
from ascendc_conformance.runner.records import CauseRecord, CheckRecord
from ascendc_conformance.spec.model import Reading, Spec

T = TypeVar("T")
NARROWED_CASES = 4      # drawn cases of a cause that ask all its hypotheses again (narrowing them)
UNEXPLAINED_TRIES = 3   # failing cases of one diff-class cause diagnosed (none explained) before the test stops asking
QUESTIONS = 8           # questions a test's diagnosis asks the target at most (steps 2 and 3 of the module doc)
FILL_HYPOTHESIS = "region-fill:other-bytes"
FILL_TITLE = "region-fill makes other bytes than the recipe"
"""The cause of a pack's failing case that passes sent in bytes (Verdict.fill_wrong): not a bug class of the call,
so none of reference.hypotheses; one cause per API, whatever the verdicts and diffs its cases show."""

Ask = Callable[[Case], "bool | None"]
"""Sends a legal case to the target: whether it moved it as the reference does; None when it gave no result to
weigh (a timeout, a crash, an error): the test then asks nothing more."""


@dataclass(frozen=True)
class Attribution:
    """The cause a failing case belongs to, what was found of the case (None: nothing asked) and, for a cause it
    founds, the hypotheses that explain it, simplest first."""

    cause: Cause
    diagnosis: Diagnosis | None = None
    hypotheses: tuple[str, ...] = ()
    refuted: frozenset[str] = frozenset()   # hypotheses of the case a question to the target refuted


@dataclass(frozen=True)
class _Answer:
    """What the target's answer to a question about a new kind of failure showed (Diagnoser._asked)."""

    refuted: frozenset[str]   # the hypotheses that predicted otherwise
    broader: bool       # it is one broader bug of the cause it shares hypotheses with


class Diagnoser:
    """Attributes the failing cases of a run's tests to causes, under its spec and reading (see the module doc)."""

    def __init__(self, spec: Spec, reading: Reading) -> None:
        self.spec, self.reading = spec, reading

    def attribute(self, record: CheckRecord, case: Case, expected: Result, verdict: Verdict,
                  fallback: Callable[[], Cause], *, drawn: bool, ask: Ask | None = None) -> Attribution:
        """The cause of one failing case of the test (`fallback()`: its diff-class cause, worked out only where
        no hypothesis of a cause of the test explains the case); `drawn`: one of the cases the test draws, not a
        shrinker's candidate, whose doubts may be asked of the target (`ask`)."""
        if verdict.outcome is Outcome.FLAKY:   # what a changing answer got wrong is chance, not a bug class
            return Attribution(fallback())
        if verdict.fill_wrong:   # not the call's bytes: the target's own fill of a recipe (runner.checker)
            return Attribution(Cause.explained(verdict.outcome, case.api, FILL_HYPOTHESIS, FILL_TITLE))
        actual = verdict.what_it_did
        failing = FailingAnswer.of(case, expected, actual, self.spec, self.reading) if actual is not None else None
        if failing is None:   # a timeout, a rejection for another rule, an answer no bug class makes
            return Attribution(fallback())
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
        if record.unexplained[fallback()] >= UNEXPLAINED_TRIES:
            return Attribution(fallback())
        diagnosis = failing.diagnose()
        contradicted = self._contradicted(record, set(diagnosis.ids))
        diagnosis = replace(diagnosis, explanations=_consistent_first(
            diagnosis.explanations, contradicted, lambda explanation: explanation.hypothesis.id))
        if not diagnosis:
            record.unexplained[fallback()] += 1
            return Attribution(fallback(), diagnosis)
        found, own = set(diagnosis.ids), diagnosis.explanations[0].hypothesis
        refuted: set[str] = set()
        for state in explained:
            shared = found & set(state.hypotheses)
            if shared and own.id not in shared:   # two bugs, or one broader? only the target can tell
                answer = (self._asked(record, case, own, found - {own.id}, shared, ask, self._others(record, state))
                          if drawn and ask is not None else None)
                if answer is not None:
                    refuted |= answer.refuted - {own.id}
                    found -= refuted
                    shared -= refuted
                if answer is None or not answer.broader:   # no evidence of one broader bug: a cause of its own
                    continue
            if shared:   # the same bug: its named hypothesis did not explain this case
                state.hypotheses = tuple(name for name in state.hypotheses if name in shared)
                state.title = self._hypothesis(state.hypotheses[0]).title
                return Attribution(state.cause, diagnosis)
        if refuted:
            diagnosis = replace(diagnosis, explanations=tuple(explanation for explanation in diagnosis.explanations
                                                              if explanation.hypothesis.id not in refuted))
        simplest = diagnosis.explanations[0].hypothesis   # `own`: a question never refutes it
        cause = Cause.explained(verdict.outcome, case.api, simplest.id, simplest.title)
        return Attribution(cause, diagnosis, tuple(explanation.hypothesis.id for explanation in diagnosis.explanations),
                           frozenset(refuted))

    def _asked(self, record: CheckRecord, case: Case, own: Hypothesis, others: set[str], shared: set[str], ask: Ask,
               confounders: tuple[Hypothesis, ...]) -> "_Answer | None":
        """Ask the question `own` raises (`question`) about the case's other explanations `others`, some of which
        (`shared`) a cause of the test has: moved right, it refutes those that say it is not; moved otherwise, `own`
        and those that say it is, and it shows one broader bug where only shared hypotheses said so (where another
        of the case's explanations did too, the case may be a second bug that refuses the question as well). None
        when nothing was answered: there is no question (or one that `confounders`, the test's other bugs, would
        answer for them), none of `shared` says otherwise than `own`, the test asked QUESTIONS already, or the
        target gave no result."""
        if record.questions >= QUESTIONS or record.timed_out:
            return None
        question = self.question(case, own, confounders)
        if question is None:
            return None
        probe = self._probe(question)
        doubting = {name for name in others if shows_on(self._hypothesis(name), probe)}
        if not doubting & shared:
            return None
        refuted = self._answered(record, question, own.id, others, doubting, ask)
        if not refuted:
            return None
        return _Answer(refuted=frozenset(refuted), broader=own.id in refuted and doubting <= shared)

    def _contradicted(self, record: CheckRecord, names: set[str]) -> set[str]:
        """Those of the hypotheses `names` that show on a case the test saw the target pass (`CheckRecord.passed`):
        a target with that bug would have answered it otherwise."""
        if not record.passed:
            return set()
        probes = [self._probe(case) for case in record.passed]
        return {name for name in names if any(shows_on(self._hypothesis(name), probe) for probe in probes)}

    @staticmethod
    def _answered(record: CheckRecord, question: Case, own: str, others: set[str], doubting: set[str],
                  ask: Ask) -> set[str]:
        """Ask `question` (counted): moved right, it refutes `doubting`; moved otherwise, `own` and the rest of
        `others`. No result to weigh refutes nothing and ends the test's questions (a target that hangs or
        crashes costs one of them, not QUESTIONS)."""
        record.questions += 1
        moved_right = ask(question)
        if moved_right is None:
            record.questions = QUESTIONS
            return set()
        return doubting if moved_right else {own} | (others - doubting)

    def question(self, case: Case, own: Hypothesis, confounders: tuple[Hypothesis, ...] = ()) -> Case | None:
        """`case` with `own`'s fields just short of the smallest value that shows it, where that is smaller and the
        call stays legal and does not show `own`: what a target whose bug is `own` moves right (None: none, or
        one that shows one of `confounders`, the named hypotheses of the test's other causes: a target with that
        bug as well would move it otherwise whatever `own` says, and the answer would refute the wrong ones)."""
        value = own.smallest
        if value is None or value < 1:
            return None
        params = case.params
        short = {field: value - 1 for field in own.fields
                 if type(params.get(field)) is int and params[field] >= value}   # plain int fields, not bools
        if not short:
            return None
        question = replace(case, params=MappingProxyType({**params, **short}))
        if not self._legal(question):
            return None
        probe = self._probe(question)
        if any(shows_on(hypothesis, probe) for hypothesis in (own, *confounders)):
            return None
        return question

    def _probe(self, case: Case) -> Probe:
        """The case under hypotheses, as the run's reading resolves it (reference.hypotheses.shows_on)."""
        return Probe(resolve(case, self.spec, self.reading))

    def _legal(self, case: Case) -> bool:
        """Legal under the seed reading and the run's (what a test's legal cases are drawn and judged under)."""
        return all(reference.expect(case, self.spec, reading=reading).status is ResultStatus.OK
                   for reading in {self.spec.seed_reading, self.reading})

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
        return candidate if self._legal(candidate) else None

    def settle(self, record: CheckRecord, ask: Ask) -> None:
        """The test ended: each explained cause of several hypotheses puts those that show on a case the test saw
        pass last (the simplest of the others names it), then asks the target questions about them
        (`_best_question`) and keeps those the answers agree with, until one is left, no question tells the rest
        apart, or the test asked QUESTIONS (blockLen 16384 and srcGap 65535 refused: blockLen 1 is moved right,
        which refutes every srcGap bound and blockCount read as 0; then blockLen bounds are halved)."""
        for state in record.causes.values():
            if len(state.hypotheses) > 1:   # the simplest the test's passes leave named first
                contradicted = self._contradicted(record, set(state.hypotheses))
                state.hypotheses = _consistent_first(state.hypotheses, contradicted, str)
                state.title = self._hypothesis(state.hypotheses[0]).title
            showing: dict[str, tuple[Case | None, frozenset[str]]] = {}   # what each question is, who doubts it
            while len(state.hypotheses) > 1 and record.questions < QUESTIONS and not record.timed_out:
                chosen = self._best_question(state, showing, self._others(record, state))
                if chosen is None:
                    break
                own, question, doubting = chosen
                if not self._refute(state, self._answered(record, question, own.id,
                                                          set(state.hypotheses) - {own.id}, doubting, ask)):
                    break

    def _refute(self, state: CauseRecord, refuted: set[str]) -> bool:
        """Drop the `refuted` hypotheses of the cause (renamed by the simplest left); whether any went. Evidence
        that refutes every one of them is not taken: one no hypothesis predicts (a changing target?)."""
        kept = tuple(name for name in state.hypotheses if name not in refuted)
        if len(kept) in (0, len(state.hypotheses)):
            return False
        state.hypotheses, state.refuted = kept, state.refuted | refuted
        state.title = self._hypothesis(kept[0]).title
        return True

    def _others(self, record: CheckRecord, state: CauseRecord) -> tuple[Hypothesis, ...]:
        """The named hypotheses of the test's other explained causes: bugs a question must not show."""
        return tuple(self._hypothesis(other.hypotheses[0]) for other in record.causes.values()
                     if other is not state and other.hypotheses)

    def _best_question(self, state: CauseRecord, showing: dict[str, tuple[Case | None, frozenset[str]]],
                       confounders: tuple[Hypothesis, ...]) -> tuple[Hypothesis, Case, set[str]] | None:
        """Of the questions the cause's hypotheses raise (the named one's, and per field those of the lowest and
        the median smallest showing value), the one that splits them most evenly into those that say the target
        gets it wrong and the others (whatever the answer, it refutes many): the hypothesis asking, its question
        and the first; None where none splits them. `showing` keeps, per hypothesis asking, its question and
        the hypotheses that show on it (worked out once a cause: the shrinking list is asked again); no question
        that one of `confounders` shows on (`question`)."""
        hypotheses = [self._hypothesis(name) for name in state.hypotheses]
        by_field: dict[str, list[Hypothesis]] = {}
        for candidate in hypotheses:
            if candidate.smallest is not None and candidate.fields:
                by_field.setdefault(candidate.fields[0], []).append(candidate)
        candidates = [hypotheses[0]]
        for family in by_field.values():
            family.sort(key=lambda hypothesis: hypothesis.smallest or 0)
            candidates += [family[0], family[len(family) // 2]]
        best: tuple[int, Hypothesis, Case, set[str]] | None = None
        for candidate in dict.fromkeys(candidates):
            if candidate.id not in showing:
                question = self.question(state.case, candidate, confounders)
                probe = self._probe(question) if question is not None else None
                showing[candidate.id] = (question, frozenset() if probe is None else frozenset(
                    other.id for other in hypotheses if other is not candidate and shows_on(other, probe)))
            question, shown = showing[candidate.id]
            if question is None:
                continue
            doubting = set(shown & set(state.hypotheses))
            split = min(len(doubting), len(hypotheses) - 1 - len(doubting))
            if doubting and (best is None or split > best[0]):
                best = (split, candidate, question, doubting)
        return None if best is None else best[1:]

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
            shown = (failing.diagnose().ids | {name for name in state.hypotheses
                                               if failing.explained_by(self._hypothesis(name))}) - state.refuted
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


def _consistent_first(items: Sequence[T], contradicted: set[str], name: Callable[[T], str]) -> tuple[T, ...]:
    """`items` (hypotheses or explanations by them, simplest first) with those whose hypothesis a passing case of
    the test contradicts after the others, each part in its order."""
    return tuple(sorted(items, key=lambda item: name(item) in contradicted))
