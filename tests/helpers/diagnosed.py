"""Typed inputs of judge.diagnosis from the dicts today's judge works with: a result v1 dict as a format Result
(Result.from_json cannot resolve the schema's reference to case-v1 yet), a target's Answer as what it did."""
from __future__ import annotations

from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.case import Result, ResultStatus, decode_memory
from ascendc_conformance.judge.diagnosis import Actual


def result_of(data: dict) -> Result:
    """A result v1 dict (the reference's or a target's) as a Result."""
    status = ResultStatus(data["status"])
    memory = decode_memory("result.memory", data["memory"]) if "memory" in data else None
    return Result(status, memory=memory, rules=tuple(data.get("rules", ())), message=data.get("message", ""),
                  depends_on=tuple(data.get("depends_on", ())))


def actual_of(answer: Answer) -> Actual:
    """What the target did: its result, or the kind of an answer that is not one."""
    return result_of(answer.result) if answer.kind is AnswerKind.RESULT else answer.kind
