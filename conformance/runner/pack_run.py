"""A test of a pack run: the pack's cases of the test that its plan lets through, sent to the target at once
and each judged through the run's checker (runner.checker).

A profile run draws a test's cases on the paths the target implements and within the limits it declares; a
pack's cases were drawn for every path and without limits. So a case is sent only if its path is among the
plan's (runner.gates), it needs no case-format extension the target does not announce (a pack is drawn against
the reference, which handles them all: sparse-memory legal cases), it lies within the target's declared
limits, and — for a target that does not validate, or does not declare that it validates the rules the case
breaks (hello `validates` by kind or rule id) — it is not to be rejected under the run's reading. A test none of
whose cases can be sent is skipped for why; one that sends some records why the others were not (its
skipped_reason).

Twins (docs/evidence.md) work as in a profile run: a twin is derived from its case, deterministically, so a pack
need not store it; where a verdict hinges on one, the twins of a test's cases are sent at once, after its cases'
answers (behind exec:, several in flight), and judged against the reference. A pack run does not keep looking
with faults built on accepted cases (that needs drawing): a masked check is reported as not shown.

A target speaking the wire extensions (docs/target-protocol.md) is sent each case's regions as their fill
recipes and asked for its answers' regions as their digests: a region's bytes are made by the runner, and sent
and answered in full, only where a verdict needs them (judge.packed: a failure, a disputed case).
"""
from __future__ import annotations

from collections import Counter
from typing import Generator, Iterator

import pytest

from ascendc_conformance.format.answer import Answer
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.format.pack import PackedCase, PackedTest
from ascendc_conformance.format.tags import Tag, TagKind
from ascendc_conformance.judge.evidence import Question
from ascendc_conformance.judge.packed import stored_expected, twin_question
from ascendc_conformance.runner.checker import not_validated
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.limits import beyond
from ascendc_conformance.targets import Target

REASONS = (SkipReason.DECLARED_LIMIT, SkipReason.NOT_VALIDATING, SkipReason.NOT_VALIDATED, SkipReason.NEEDS_EXTENSION,
           SkipReason.NOT_SUPPORTED)
"""Why a case of a pack is not sent, in the order a test none of whose cases is sent names them."""


ContextKey = tuple[str, str, str, str, str, str, str]
"""(product, API, source and destination position, source and destination dtype, form): a path context."""


def _key_of_case(case: Case) -> ContextKey:
    form = next((tag.subject for tag in map(Tag.parse, case.tags) if tag and tag.kind is TagKind.FORM), "")
    return (case.product, case.api, case.src.position, case.dst.position, case.src.dtype, case.dst.dtype, form)


def _key_of_context(ctx: PathContext) -> ContextKey:
    return (ctx.product.id, ctx.api.name, ctx.src, ctx.dst, ctx.src_dtype.name, ctx.dst_dtype.name, ctx.form)


def _why_not(run: RunSession, plan: Plan, paths: dict[ContextKey, PathContext], packed: PackedCase) -> SkipReason | None:
    """Why the case is not sent to the target (None: it is)."""
    call = packed.call
    ctx = paths.get(_key_of_case(call))
    if ctx is None:
        return SkipReason.NOT_SUPPORTED
    if not run.target.handles(call.requires):
        return SkipReason.NEEDS_EXTENSION
    if beyond(call, ctx, run.limits, plan.pinned) is not None:
        return SkipReason.DECLARED_LIMIT
    if run.target.hello.validation.narrowed or not run.target.hello.validates:
        expected, _ = stored_expected(packed, run.reading, run.spec)
        unchecked = not_validated(run.target.hello, expected, run.spec, run.reading)
        if unchecked is not None:
            return unchecked[0]
    return None


def sendable(run: RunSession, record: CheckRecord, plan: Plan, cases: list[PackedCase]) -> list[PackedCase]:
    """The cases the test sends; the test skipped when none (for the first reason of REASONS that held)."""
    paths = {_key_of_context(ctx): ctx for ctx in plan.contexts}
    chosen: list[PackedCase] = []
    left_out: Counter[SkipReason] = Counter()
    for packed in cases:
        reason = _why_not(run, plan, paths, packed)
        if reason is None:
            chosen.append(packed)
        else:
            left_out[reason] += 1
    if not left_out:
        return chosen
    reason = next(reason for reason in REASONS if left_out[reason])
    detail = (f"{sum(left_out.values())} of the pack's {len(cases)} case(s) not sent: "
              + ", ".join(f"{n} {_WORDS[why]}" for why, n in left_out.items()))
    if not chosen:
        pytest.skip(record.skipped(reason, detail))
    record.skipped(reason, detail)
    return chosen


_WORDS = {SkipReason.NOT_SUPPORTED: "on paths the target's hello excludes",
          SkipReason.DECLARED_LIMIT: "beyond the limits the target declares (a profile run draws cases within them)",
          SkipReason.NOT_VALIDATING: "to be rejected, by a target that does not validate",
          SkipReason.NOT_VALIDATED: "to be rejected for rules the target does not declare that it validates",
          SkipReason.NEEDS_EXTENSION: "needing a case-format extension the target's hello does not announce"}


def check_pack_test(run: RunSession, record: CheckRecord, plan: Plan) -> None:
    """Send the test's cases that its plan lets through, all at once, and check each answer in turn; a timeout
    ends the test (the cases after it are not judged). A case whose verdict hinges on its twin is checked after
    the others, once the twins of all such cases have been sent at once. The bits and crossings of the test's
    cases are those its pack stores where the run trusts them (`_stored_reach_trusted`)."""
    assert run.pack is not None, "a pack test runs in a pack run"
    stored = run.pack.read_test(record.test_id)
    chosen = sendable(run, record, plan, list(stored.cases))
    trusted = _stored_reach_trusted(run, stored)
    if trusted:
        run.checker.take_stored_reach(record)
    try:
        _check_cases(run, record, plan, chosen)
    finally:
        if trusted:
            run.checker.stored_reach_taken(record, stored)


def _stored_reach_trusted(run: RunSession, stored: PackedTest) -> bool:
    """Whether a test's bits and crossings are taken from its pack (format.pack.PackedTest): stored there, under the
    run's reading, in a pack whose id the run pins (an unpinned pack's are not checked, so not believed)."""
    assert run.pack is not None
    return (run.settings.pack_id is not None and stored.bits is not None and stored.crossings is not None
            and run.pack.built["reading"] == run.reading.label)


def _check_cases(run: RunSession, record: CheckRecord, plan: Plan, chosen: list[PackedCase]) -> None:
    answers = _Answers(run.target, chosen)
    waiting: list[tuple[Question, PackedCase, Case, Answer]] = []
    try:
        for packed, case, answer in answers:
            question = twin_question(packed, case, answer, reading=run.reading, rule_naming=run.settings.rule_naming,
                                     spec=run.spec, rule=record.rule)
            if question is not None:
                waiting.append((question, packed, case, answer))
                continue
            run.checker.check(record, case, plan, packed=packed, answer=answer, resend=answers.resend)
            if record.timed_out:
                return
    finally:
        answers.close()
    run.checker.twins.prefetch((question, case) for question, _, case, _ in waiting)
    for _, packed, case, answer in waiting:   # nothing in flight now: a failing one is sent again directly
        run.checker.check(record, case, plan, packed=packed, answer=answer)
        if record.timed_out:
            return


class _Answers:
    """The target's answers to a pack test's cases, in order, several in flight (Target.execute_many); and a
    case sent again in between (a failing one, runner.flakes) once nothing is in flight, so that no answer is
    taken for another's: the answers then in flight are dropped, and their cases sent again afterwards."""

    def __init__(self, target: Target, cases: list[PackedCase]) -> None:
        self.target, self.cases = target, cases
        self.taken = 0   # cases whose answer was handed out
        self._stream: Generator[tuple[Case, Answer], None, None] | None = None

    def __iter__(self) -> Iterator[tuple[PackedCase, Case, Answer]]:
        while self.taken < len(self.cases):
            started = self.taken
            self._stream = self.target.execute_many((packed.materialize() for packed in self.cases[self.taken:]),
                                                    digests=True)   # judged by digest: bytes asked for if needed
            for case, answer in self._stream:   # ends early when `resend` closed it: the next one starts
                self.taken += 1
                yield self.cases[self.taken - 1], case, answer
            if self.taken == started:   # a stream that answered nothing is not started again
                return

    def resend(self, case: Case) -> Answer:
        self.close()
        return self.target.execute(case)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
