"""The progress display of a run (ascendc_conformance.runner.progress): when it writes, and what a line says."""
from __future__ import annotations

from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.runner.progress import Progress, failure_line
from ascendc_conformance.format.results import TestRecord


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def passing(test_id: str, cases: int = 10) -> TestRecord:
    return TestRecord(test_id=test_id, kind="legal", verdict="pass", cases=cases)


PLAN = {f"t{i}": ("DataCopy" if i < 15 else "LoadData2D") for i in range(20)}


def test_lines_mode_prints_at_every_tenth_and_a_final_line() -> None:
    lines: list[str] = []
    progress = Progress(lines.append, every=1e9, clock=Clock())
    progress.plan(PLAN)
    for test_id in PLAN:
        progress.record(passing(test_id))
    progress.finish()
    assert [line.split(" tests")[0] for line in lines] == [
        f"[ascendc] {share}% {done}/20" for share, done in zip(range(10, 100, 10), range(2, 20, 2))
    ] + ["[ascendc] done: 100% 20/20"]
    assert lines[-1].startswith("[ascendc] done: 100% 20/20 tests | 200 cases | 0 failing | "
                                "DataCopy 15/15, LoadData2D 5/5 | ")


def test_lines_mode_also_prints_when_the_interval_passes() -> None:
    lines: list[str] = []
    clock = Clock()
    progress = Progress(lines.append, every=30.0, clock=clock)
    progress.plan({f"t{i}": "DataCopy" for i in range(1000)})
    progress.record(passing("t0"))
    assert lines == []
    clock.now = 31.0
    progress.record(passing("t1"))
    assert lines == ["[ascendc] 0% 2/1000 tests | 20 cases | 0 failing | DataCopy 2/1000 | 31s"]


def test_a_failure_is_printed_at_once_with_its_first_message_line() -> None:
    lines: list[str] = []
    progress = Progress(lines.append, every=1e9, clock=Clock())
    progress.plan({f"t{i}": "DataCopy" for i in range(100)})
    progress.record(TestRecord(test_id="t0", kind="legal", verdict="fail", cases=1,
                               message="memory differs: 4 bytes\nmore detail"))
    progress.record(TestRecord(test_id="t1", kind="legal", verdict="disputed", cases=3, message="depends on D1"))
    assert lines == ["[ascendc] FAIL t0: memory differs: 4 bytes"]
    progress.finish()
    assert " | 1 failing | " in lines[-1]


def test_live_mode_rewrites_one_line_and_keeps_failures_and_the_end() -> None:
    shown: list[tuple[str, bool]] = []
    clock = Clock()
    progress = Progress(lambda line: shown.append((line, True)), lambda text, keep: shown.append((text, keep)),
                        clock=clock)
    progress.plan({"a": "DataCopy", "b": "DataCopy", "c": "DataCopy"})
    clock.now = 1.0
    progress.record(passing("a"))
    progress.record(passing("b"))            # within the rewrite interval: not shown
    progress.record(TestRecord(test_id="c", kind="illegal", verdict="missed-reject", cases=1, message="accepted"))
    progress.finish()
    assert [(text.split(" tests")[0], keep) for text, keep in shown] == [
        ("[ascendc] 33% 1/3", False), ("[ascendc] MISSED-REJECT c: accepted", True), ("[ascendc] done: 100% 3/3", True)]


def test_a_run_with_no_test_prints_nothing_at_the_end() -> None:
    lines: list[str] = []
    Progress(lines.append).finish()
    assert lines == []


SUMMARY = {"product": "atlas-training", "api": "LoadData2D", "route": "GM->A1", "src_dtype": "half",
           "dst_dtype": "half", "src_address": 4096, "dst_address": 32, "params": {"repeatTimes": 1, "dstGap": 3}}


def test_a_failure_line_shows_the_targets_whole_message_and_the_case_with_its_addresses() -> None:
    """The target's message in full (up to the cap), not cut at ~150 characters; a second line with the
    failing case, its operand addresses and dtypes (an alignment failure is about them)."""
    reason = "operands must be 512-byte aligned; " + "the A1 buffer at 0x20 is not " * 20 + "THE END"
    assert 150 < len(reason) < TARGET_TEXT_CHARS
    record = TestRecord(test_id="t0", kind="legal", verdict="false-reject", cases=1, case=SUMMARY,
                        message=f'the target rejected a legal call, citing X (target says: "{reason}")\nmore')
    first, second = failure_line(record).splitlines()
    assert first.startswith("[ascendc] FALSE-REJECT t0: the target rejected") and first.endswith('THE END")')
    assert second == ("[ascendc]   case: LoadData2D atlas-training GM->A1 half src@0x1000 dst@0x20 "
                      "{repeatTimes=1, dstGap=3}")


def test_live_mode_writes_a_failures_case_line_below_it() -> None:
    shown: list[tuple[str, bool]] = []
    progress = Progress(lambda line: shown.append((line, True)), lambda text, keep: shown.append((text, keep)),
                        clock=Clock())
    progress.plan({"a": "LoadData2D"})
    progress.record(TestRecord(test_id="a", kind="legal", verdict="fail", cases=1, message="differs", case=SUMMARY))
    assert shown[:2] == [("[ascendc] FAIL a: differs", True), ("[ascendc]   case: " + failure_line(
        TestRecord(test_id="a", kind="legal", verdict="fail", case=SUMMARY)).split("case: ")[1], True)]
