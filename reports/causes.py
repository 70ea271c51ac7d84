"""The causes of a run: every cause of every failing test (results.jsonl `causes`), grouped across tests by the
hypothesis that explains them (judge.grouping), the causes no hypothesis explains by their diff-class cause.

Each test records its causes with the hypotheses that explain every case of each (`hypotheses`, simplest first),
those that explain its smallest case (`shown_by`) and that case's words (runner.diagnosing). Grouping is done
here, from those records, so that it spans the tests of every xdist worker and of every merged shard: per API,
the hypothesis that explains the most causes not yet grouped forms the next group, named by the simplest
hypothesis that explains all of its members (the others that do are its `alternatives`). A group's smallest
case is the smallest of its members' that its named hypothesis explains.

A hypothesis that one accepted call of its API refutes (`every call refused`: Kind.refuted_by_an_accepted_call)
is weighed by the whole run, which a test cannot see: where the run saw a call of the API accepted
(`accepted_apis`: a passing legal or boundary case, any answer moving bytes, a rejection's twin accepted), it is
dropped from every cause of the API — a cause it alone explained is its diff-class cause again (`fallback`) —, so
that two refusal bugs are not merged into one; where the run saw none, it names the group it explains before any narrower hypothesis (a target
refusing every call is one cause, however each test's own cases happen to show it: "dimValue refused above 7",
"burstLen ignored").

Groups come by the number of failing tests they explain, most first, ties by their worst verdict (the verdict
line's first cause is the first group), then by the named hypothesis's rank.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ascendc_conformance.format.outcome import Outcome, Shown
from ascendc_conformance.format.results import Cause, TestKind, TestRecord, params_size
from ascendc_conformance.judge.grouping import Failure, group_failures
from ascendc_conformance.reference.hypotheses import Rank, rank_of, refuted_by_an_accepted_call, title_of
from ascendc_conformance.reports.model import severity
from ascendc_conformance.spec.model import Spec


@dataclass(frozen=True)
class Member:
    """One cause of one failing test, as results.jsonl and report.json list it (`entry`: its "cause", "verdict",
    "case", "replay_command", "hypotheses", "shown_by", "words", ...)."""

    test_id: str
    entry: Mapping[str, Any]
    refuted: frozenset[str] = frozenset()   # hypotheses of it the run refutes

    @property
    def cause(self) -> Cause:
        """Its cause as the test recorded it; its diff-class cause where the run refutes every hypothesis of it."""
        if self.entry.get("hypotheses") and not self.hypotheses and self.entry.get("fallback"):
            return Cause.from_json(self.entry["fallback"])
        return Cause.from_json(self.entry["cause"])

    @property
    def hypotheses(self) -> tuple[str, ...]:
        """The hypotheses that explain every case of it, simplest first, but those the run refutes."""
        return tuple(name for name in self.entry.get("hypotheses") or () if name not in self.refuted)

    @property
    def size(self) -> int:
        """How big its smallest case is, by its parameters (no case: as big as can be)."""
        case = self.entry.get("case")
        return params_size(case.get("params")) if case else 2**63


@dataclass(frozen=True)
class RunCause:
    """One cause of the run: its members (causes of failing tests), the cause they share (a named hypothesis's,
    or the diff-class cause of the members no hypothesis explains), the other hypotheses that explain every
    member alike, and its smallest member."""

    cause: Cause
    members: tuple[Member, ...]
    smallest: Member
    alternatives: tuple[str, ...] = ()

    @property
    def tests(self) -> tuple[str, ...]:
        """The failing tests it explains, each once, in the order given."""
        return tuple(dict.fromkeys(member.test_id for member in self.members))

    @property
    def verdicts(self) -> tuple[str, ...]:
        """The verdicts of its members' cases, worst first."""
        found = {str(verdict) for member in self.members
                 for verdict in member.entry.get("verdicts") or (member.entry.get("verdict") or member.cause.verdict.value,)}
        return tuple(sorted(found, key=severity))

    @property
    def words(self) -> str:
        """The cause in words with its smallest case's values where they name its hypothesis ("blockLen kept in
        8 bits (256 read as 0)"), else its title or label."""
        named = self.smallest.hypotheses[:1] == (self.cause.hypothesis,) and self.smallest.entry.get("words")
        return f"{self.cause.api} / {named}" if named else self.cause.label

    def to_json(self) -> dict[str, Any]:
        """As report.json's failure_groups lists it."""
        hypothesis = {"id": self.cause.hypothesis, "title": self.cause.title, "words": self.words,
                      "alternatives": list(self.alternatives)} if self.cause.hypothesis else None
        return {"cause": self.cause.to_json(), "count": len(self.tests), "tests": list(self.tests),
                "verdicts": list(self.verdicts), "hypothesis": hypothesis}


ACCEPTING_KINDS = (TestKind.LEGAL, TestKind.BOUNDARY)   # tests whose passing cases are calls the target accepted
MOVING = (Outcome.FAIL, Outcome.MISSED_REJECT)         # verdicts on calls the target accepted, moving bytes wrongly
TWIN_ACCEPTED = (Shown.TWIN, Shown.MASKED_WRONG_COPY)   # a rejection's twin the target accepted (docs/evidence.md)


def accepted_apis(tests: Iterable[TestRecord]) -> frozenset[str]:
    """The APIs of which the run saw the target accept a call: a passing case of a legal or boundary test, a case
    of any test answered ok with the wrong bytes or in place of a rejection, or the twin of a rejected one."""
    return frozenset(test.api for test in tests if test.api and (
        (test.kind in ACCEPTING_KINDS and test.counts.get(Outcome.PASS.value, 0) > 0)
        or any(test.counts.get(outcome.value, 0) > 0 for outcome in MOVING)
        or any(test.shown.get(shown.value, 0) > 0 for shown in TWIN_ACCEPTED)))


def run_causes(members: Iterable[Member], spec: Spec, accepted: Collection[str]) -> tuple[RunCause, ...]:
    """The causes of the run (see the module doc); `accepted`: the APIs of which the run saw a call accepted
    (`accepted_apis`)."""
    by_api: dict[str, dict[int, Member]] = {}
    for index, member in enumerate(members):
        by_api.setdefault(member.cause.api, {})[index] = member
    found: list[RunCause] = []
    for api, keyed in by_api.items():
        if api in accepted:
            keyed = {index: _weighed(member, spec) for index, member in keyed.items()}
        failures = [Failure(index, frozenset(member.hypotheses), member.cause.key) for index, member in keyed.items()]
        for group in group_failures(failures, _ranking(spec, refusing_first=api not in accepted)):
            grouped = tuple(keyed[index] for index in group.members if isinstance(index, int))
            found.append(_run_cause(grouped, group.named, group.alternatives, spec))
    return tuple(sorted(found, key=lambda cause: (-len(cause.tests), severity(cause.verdicts[0]), cause.cause.label)))


def _ranking(spec: Spec, *, refusing_first: bool) -> Callable[[str], tuple[bool, Rank]]:
    """Hypotheses by rank; with `refusing_first` (the run saw no call of the API accepted), those an accepted call
    would refute before all others."""
    return lambda name: (not (refusing_first and refuted_by_an_accepted_call(spec, name)), rank_of(spec, name))


def _weighed(member: Member, spec: Spec) -> Member:
    """The member without the hypotheses that an accepted call of its API refutes."""
    refuted = frozenset(name for name in member.entry.get("hypotheses") or ()
                        if refuted_by_an_accepted_call(spec, name))
    return Member(member.test_id, member.entry, refuted) if refuted else member


def _run_cause(members: tuple[Member, ...], named: str | None, alternatives: tuple[str, ...], spec: Spec) -> RunCause:
    if named is None:
        smallest = min(members, key=lambda member: (member.size, member.test_id))
        return RunCause(smallest.cause, members, smallest)
    showing = [member for member in members if named in (member.entry.get("shown_by") or ())] or list(members)
    smallest = min(showing, key=lambda member: (member.size, member.test_id))
    worst = min((member.cause.verdict for member in members), key=lambda outcome: outcome.severity)
    cause = Cause.explained(worst, smallest.cause.api, named, title_of(spec, named))
    return RunCause(cause, members, smallest, alternatives)

