"""Sending a failing case again before its failure is reported: a target whose answer changes is `flaky`.

A failure says what the target does with a case; it stands only if the target does it again. The checker
(runner.checker) hands a failing verdict here with the answer it was judged on, in a profile run and a pack run
alike, for the first failing case of each behaviour in a test (a later case failing so after the behaviour stood
re-sending is not: Checker._confirmed): the case is sent again up to RESENDS times (RESENDS_AFTER_LOSS after a
timeout or a crash, each try costing a timeout or a restart), and the first answer that behaves otherwise than
the first one (another kind or status, other bytes, other rules named) makes the verdict `flaky`, whose message
shows both answers. A target that answers the same every time keeps its verdict. A flaky failure is never shrunk
(which bytes go wrong is chance), and its cause is its API (format.results.Cause.of).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Hashable

from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.defaults import RESENDS, RESENDS_AFTER_LOSS, TARGET_TEXT_CHARS
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.judge.packed import by_digest
from ascendc_conformance.judge.verdict import Verdict

LOST = (AnswerKind.TIMEOUT, AnswerKind.CRASHED)   # answers whose every try costs a timeout or a restart


def confirmed(verdict: Verdict, answer: Answer, send_again: Callable[[], Answer],
              judge_again: Callable[[Answer], Verdict]) -> Verdict:
    """`verdict` (a failure, judged on `answer`) if the target answers the same when the case is sent again
    (`send_again`), else the verdict flaky showing the first answer and the first one that differed, each
    judged in full by `judge_again` (`verdict` may lack its diff: judge.verdict's `detail`)."""
    first = behaviour(answer)
    for attempt in range(1, 1 + (RESENDS_AFTER_LOSS if answer.kind in LOST else RESENDS)):
        again = send_again()
        if behaviour(again) != first:
            return flaky(judge_again(answer), judge_again(again), attempt)
    return verdict


def behaviour(answer: Answer) -> Hashable:
    """What an answer says the target did: its kind, and for a result its status, memory and the rules it named
    (not its message, nor how long it took: a malformed answer's message names its request's id, which differs
    from send to send)."""
    result = answer.result
    if answer.kind is not AnswerKind.RESULT or result is None:
        return answer.kind
    memory = tuple(sorted((key, region.address, region.data) for key, region in (result.memory or {}).items()))
    return answer.kind, result.status, memory, tuple(sorted(result.rules))


def flaky(first: Verdict, again: Verdict, attempt: int) -> Verdict:
    """The verdict flaky: the first answer's verdict (its diff kept) with both answers' verdicts in the message."""
    return replace(first, outcome=Outcome.FLAKY, diagnosis=None,
                   message=f"the target answered this case differently when it was sent again (try {attempt + 1}): "
                           f"first answer: {first.outcome}: {clip(first.message, TARGET_TEXT_CHARS)} | "
                           f"answer {attempt + 1}: {again.outcome}: {clip(again.message, TARGET_TEXT_CHARS)}")


def same_digests(digested: Answer, answer: Answer) -> bool:
    """Whether `answer` behaves as the answer `digested` (its regions by their digests, Answer.digests) said."""
    return behaviour(by_digest(answer)) == behaviour(digested)


def digests_disagree(verdict: Verdict, digested: Answer, again: Answer) -> Verdict:
    """The verdict flaky: the target answered a case with its regions' digests (`digested`), and, sent it again
    asking for the bytes, with an answer (`again`, judged `verdict`) that those digests are not of."""
    lead = ("the target's SHA-256 digests of its answer to this case are not those of the bytes it answered when "
            "the case was sent again asking for them" if again.kind is AnswerKind.RESULT else
            "the target answered this case differently when it was sent again asking for its bytes")
    return replace(verdict, outcome=Outcome.FLAKY, diagnosis=None,
                   message=f"{lead} (try 2): first answer: {_said(digested)} | answer 2: {verdict.outcome}: "
                           f"{clip(verdict.message, TARGET_TEXT_CHARS)}")


def _said(answer: Answer) -> str:
    """An answer in a few words: its kind, or its status and, by digest, its regions."""
    result = answer.result
    if answer.kind is not AnswerKind.RESULT or result is None:
        return answer.kind.value
    regions = ", ".join(f"{name} sha256 {region.data.hex()[:16]}…" for name, region in (result.memory or {}).items())
    return f"{result.status.value}" + (f" ({regions})" if regions else "")

