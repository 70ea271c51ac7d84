"""runner.twins: a twin is sent once per process (its evidence cached by the twin's content), not at all on a
path the target's hello excludes, and a pack test's twins go out together through execute_many."""
from __future__ import annotations

from typing import Iterable, Iterator

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.judge.evidence import Proof, Question
from ascendc_conformance.runner.twins import Twins
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import make_case, sentinel

SPEC = load_spec()
READING = SPEC.reading([])
LOADDATA = {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 3, "ifTranspose": False,
            "addrMode": 0}


def gap_case(dst_gap: int = 3) -> Case:
    """LoadData2D A1 -> A2 half on atlas-training with dstGap != 0 (D24 must-be-zero refuses it)."""
    return Case.from_json(make_case("LoadData2D", "atlas-training", ("A1", "half", 0), ("A2", "half", 0),
                                    {**LOADDATA, "dstGap": dst_gap}, {"L1": sentinel(4096, 1), "L0A": sentinel(8192, 2)}))


class Counting:
    """A target answering as the reference does (refusing every call when `refuses`), counting what it is sent."""

    def __init__(self, hello: dict | None = None, refuses: bool = False) -> None:
        self.hello = Hello.from_dict({"name": "counting", "validates": True, **(hello or {})})
        self.refuses, self.sent, self.batches = refuses, 0, 0

    def execute(self, case: Case) -> Answer:
        self.sent += 1
        result = Result.rejected((), "no") if self.refuses else reference.expect(case, SPEC)
        return Answer(kind=AnswerKind.RESULT, result=result)

    def execute_many(self, cases: Iterable[Case]) -> Iterator[tuple[Case, Answer]]:
        self.batches += 1
        return ((case, self.execute(case)) for case in list(cases))

    def supports(self, product: str, api: str, **path: object) -> bool:
        return self.hello.supports(product, api, **path)

    def handles(self, extensions: frozenset[str]) -> bool:
        return extensions <= set(self.hello.extensions)


def twins_of(target: Counting) -> Twins:
    return Twins(spec=SPEC, reading=READING, target=target, limits=target.hello.limits)   # type: ignore[arg-type]


def test_the_same_twin_is_sent_once_and_its_evidence_kept() -> None:
    target = Counting()
    twins = twins_of(target)
    question = Question(point="D24")
    first = twins.ask(question, gap_case())
    again = twins.ask(question, gap_case())
    assert first.proof is again.proof is Proof.ACCEPTED and "dstGap 3 -> 0" in first.words
    assert target.sent == twins.sent == 1
    twins.ask(question, gap_case(dst_gap=5))   # another case: another twin (its bytes are seeded from the case)
    assert target.sent == 2


def test_a_refused_twin_is_evidence_of_nothing() -> None:
    target = Counting(refuses=True)
    evidence = twins_of(target).ask(Question(point="D24"), gap_case())
    assert evidence.proof is Proof.REFUSED and evidence.verdict is not None and evidence.twin is not None
    assert evidence.verdict.outcome == "false-reject" and dict(evidence.twin.params)["dstGap"] == 0


def test_a_twin_on_a_path_the_hello_excludes_is_not_sent() -> None:
    target = Counting({"excludes": [{"api": "LoadData2D", "product": "atlas-training"}]})
    evidence = twins_of(target).ask(Question(point="D24"), gap_case())
    assert evidence.proof is Proof.NO_TWIN and "excludes" in evidence.words and target.sent == 0


def test_a_pack_tests_twins_go_out_together_once() -> None:
    target = Counting()
    twins = twins_of(target)
    asked = [(Question(point="D24"), gap_case(gap)) for gap in (3, 4, 5, 3)]
    twins.prefetch(asked)
    assert target.batches == 1 and target.sent == 3   # the fourth is the first's twin
    assert all(twins.ask(question, case).proof is Proof.ACCEPTED for question, case in asked)
    assert target.sent == 3
