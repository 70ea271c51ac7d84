"""How far a conformance run is: tests done of those planned (per API), cases judged, failures so far.

On a terminal (`live`) one status line is rewritten in place; otherwise (CI logs) the same figures are printed
as a plain line at every tenth of the run and at least every `every` seconds while tests finish. A failing test
is always printed on a line of its own as soon as it is recorded. The class only formats and decides when to
write; the pytest glue (ascendc_conformance.runner.recorder) hands it the output functions and the records.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Callable, Mapping

from ascendc_conformance.format.results import TestRecord, format_params
from ascendc_conformance.format.outcome import FAILURES

PREFIX = "[ascendc]"
LIVE_INTERVAL = 0.1   # seconds between two rewrites of the live status line


class Progress:
    def __init__(self, write_line: Callable[[str], None], live: Callable[[str, bool], None] | None = None, *,
                 every: float = 60.0, clock: Callable[[], float] = time.monotonic):
        """`live(text, keep)` (a terminal) rewrites the status line in place, ending it when `keep`; without
        it, progress is printed line by line with `write_line`."""
        self._write_line, self._live = write_line, live
        self._every, self._clock = every, clock
        self._started = self._last_output = clock()
        self._api_of: dict[str, str] = {}
        self._planned: Counter[str] = Counter()
        self._done: Counter[str] = Counter()
        self._cases = 0
        self._failing = 0
        self._tenths_shown = 0

    def plan(self, apis_by_test: Mapping[str, str | None]) -> None:
        """The tests the run will record (test id -> API), once collection is known."""
        self._api_of = {test_id: api or "(any API)" for test_id, api in apis_by_test.items()}
        self._planned = Counter(self._api_of.values())

    @property
    def total(self) -> int:
        return sum(self._planned.values())

    def record(self, record: TestRecord) -> None:
        """A test finished: count it, print it if it failed, and show progress when it is time to."""
        api = self._api_of.get(record.test_id) or record.api or "(any API)"
        self._done[api] += 1
        self._cases += record.cases
        if record.verdict in FAILURES:
            self._failing += 1
            self._print(failure_line(record))
        self._show()

    def finish(self) -> None:
        """The run ended: print the final figures once (over the live status line, if any)."""
        if sum(self._done.values()):
            self._print(self.status(final=True))

    def status(self, final: bool = False) -> str:
        done, total = sum(self._done.values()), self.total
        share = f"{100 * done // total}% " if total else ""
        per_api = ", ".join(f"{api} {self._done[api]}/{count}" for api, count in self._planned.items())
        parts = [f"{PREFIX} {'done: ' if final else ''}{share}{done}/{total or '?'} tests",
                 f"{self._cases} cases", f"{self._failing} failing"]
        if per_api:
            parts.append(per_api)
        parts.append(_duration(self._clock() - self._started))
        return " | ".join(parts)

    def _show(self) -> None:
        now = self._clock()
        if self._live is not None:
            if now - self._last_output >= LIVE_INTERVAL:
                self._live(self.status(), False)
                self._last_output = now
            return
        done = sum(self._done.values())
        if done == self.total:   # finish() prints the final figures
            return
        tenths = 10 * done // self.total if self.total else 0
        if tenths > self._tenths_shown or now - self._last_output >= self._every:
            self._tenths_shown = max(tenths, self._tenths_shown)
            self._write_line(self.status())
            self._last_output = now

    def _print(self, text: str) -> None:
        """Lines of their own (in live mode: the first written over the status line, which reappears below)."""
        first, *rest = text.splitlines()
        if self._live is not None:
            self._live(first, True)
        else:
            self._write_line(first)
        for line in rest:
            self._write_line(line)


def failure_line(record: TestRecord) -> str:
    """A failing test: a line with its verdict, test id and the first line of its cause, in full (a target's
    own message in it is cut at TARGET_TEXT_CHARS by the judge), then a line with its failing case (operand
    addresses and dtypes, params)."""
    cause = (record.message.strip().splitlines() or ["(no message)"])[0]
    line = f"{PREFIX} {str(record.verdict).upper()} {record.test_id}: {cause}"
    case = format_params(record.case)
    return f"{line}\n{PREFIX}   case: {case}" if case else line


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
