"""The controlling process's side of a conformance run (never an xdist worker's): results, progress, waivers.

Each conformance test's record travels on its teardown report (attribute `ascendc_record`, set by the plugin
in the process that ran the test; xdist carries report attributes to the controller). The recorder, which the
plugin registers only in the controlling process, writes the run record of results.jsonl when the session
starts, each test record as its report arrives (so a killed run keeps every finished test), and the end record
and the reports when the session ends. On the way it shows progress, collects the waivers that matched (on
any worker) and records a test whose xdist worker died as "crashed", so that no test goes unrecorded.

What the machine does to the run is the run's, never the target's: a file it cannot write (results.jsonl,
a replay file a test could not save, a report: a full disk, a read-only file system) stops the run after the
test at hand, on one line naming the file, with exit code 3 (format.exits); a SIGINT ends it with 130. Either
way every record already written stays, and the end record and reports are written if the disk allows.
Everything printed passes through format.text.terminal: a target's text cannot drive the terminal.
"""
from __future__ import annotations

import datetime
import json
import platform
import shlex
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol, Sequence

import hypothesis
import pytest

import ascendc_conformance
from ascendc_conformance.format import results
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.errors import ConformanceError, MachineFault
from ascendc_conformance.format.exits import ExitCode
from ascendc_conformance.format.text import terminal as inert
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.defaults import PROFILES, TARGET_TEXT_CHARS
from ascendc_conformance.runner.progress import PREFIX, Progress, failure_line
from ascendc_conformance.format.results import TestRecord
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.spec.model import Reading, Spec, Status

RECORD_ATTRIBUTE = "ascendc_record"   # on a teardown report: the test's record, as JSON text
SUITE_ERROR_ATTRIBUTE = "ascendc_suite_error"   # on a call report: the test failed on the suite's own error
MACHINE_FAULT_ATTRIBUTE = "ascendc_machine_fault"   # on a teardown report: a file its process could not write
VERDICT_ATTRIBUTE = "ascendc_verdict"   # on a call report: the test's verdict (what pytest counts it as)
LETTERS = {"passed": ".", "failed": "F", "skipped": "s", "not supported": "n", "disputed": "d", "waived": "w",
           "known": "k", "flaky": "f"}
"""The progress letter of a conformance test counted under each Outcome.tally word (pytest's dots)."""


class Reporter(Protocol):
    """What the run needs of the reports layer, which sits above it (the entry point passes the module in)."""

    def write_all(self, report_dir: Path, *, spec: Spec, details: bool) -> Mapping[str, Path]:
        """Write the reports of report_dir/results.jsonl there against `spec` (every test in full with
        `details`); {format: file written}."""

    def verdict_lines(self, run: Mapping[str, Any], tests: Sequence[Mapping[str, Any]], exit_status: int,
                      report_dir: Path | None, *, spec: Spec) -> list[str]:
        """The verdict of the run, from its run record and test records, against `spec`."""


XDIST_CRASH_PHASE = "???"             # the `when` of the report xdist makes for a test whose worker died


class RunRecorder:
    def __init__(self, config: pytest.Config, run: RunSession, reporter: Reporter):
        self.config, self.run, self.reporter = config, run, reporter
        self.matched_waivers: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []          # every test's record, as results.jsonl has it
        self.run_record: dict[str, Any] = {}
        self.verdict: list[str] = []           # printed when pytest is done (after its own summary)
        self.progress: Progress | None = None
        self.failed: set[str] = set()          # conformance tests pytest saw fail (in any phase)
        self.others: set[str] = set()          # the session's other tests (a user's own): pytest's, not the verdict's
        self.session: pytest.Session | None = None
        self.fault: str | None = None          # the file the run could not write: it stops, exit code 3
        self.interrupted = False               # SIGINT: exit code 130
        self.results_writable = True           # no line of results.jsonl failed to be written

    # --- start ------------------------------------------------------------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session
        self.progress = self._make_progress()
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            for line in self.header_lines():
                terminal.write_line(inert(line))
        for message in self._warnings():
            self._write(f"{PREFIX} WARNING {message}")
            self.config.issue_config_time_warning(pytest.PytestWarning(message), stacklevel=2)
        settings = self.run.settings
        seed = self._seed()
        self.run_record = {
            "record": "run", "started": _now(), "target": settings.target, "hello": dict(self.run.target.hello.raw),
            "suite_version": ascendc_conformance.__version__, "spec_digest": self.run.spec.digest, "profile": self.run.profile,
            "seed": seed, "pack": self._pack(), "products": list(self.run.products or []), "apis": list(self.run.apis or []),
            "reading": self.run.reading.label, "reading_choices": dict(self.run.reading.choices),
            "shard": self.config.getoption("ascendc_shard", None),
            "workers": getattr(self.config.option, "numprocesses", None) or 1,
            "machine": {"node": platform.node(), "python": platform.python_version(),
                        "platform": platform.platform(), "hypothesis": hypothesis.__version__},
            "waivers": [w.to_json() for w in self.run.waivers], "command": self._command(seed),
            "declared_limits": [deviation.to_json() for deviation in self.run.selection.deviations],
            "entry": self.run.entry.value, "allow_flaky": settings.allow_flaky,
            "baseline": self.run.baseline.to_json() if self.run.baseline is not None else None,
            "strict_baseline": settings.strict_baseline, "validation": self._validation()}
        self._append(self.run_record)

    def _append(self, record: dict[str, Any]) -> None:
        """Append a record to results.jsonl (if the run keeps one); a line the machine will not let it write
        stops the run (exit code 3), the lines written before kept."""
        report_dir = self.run.settings.report_dir
        if report_dir is None or not self.results_writable:
            return
        try:
            results.append(report_dir, record)
        except OSError as error:   # no more lines: the next would follow one the disk may have cut
            self.results_writable = False
            self._stop(str(MachineFault(report_dir / results.RESULTS_FILE, error)))

    def _stop(self, fault: str) -> None:
        """The run cannot go on writing its files: say so on one line and stop after the test at hand (the
        process running tests is asked to, xdist's controller or pytest's own loop)."""
        if self.fault is not None:
            return
        self.fault = fault
        self._write(f"{PREFIX} STOPPED: {fault}")
        scheduler = self.config.pluginmanager.get_plugin("dsession")   # xdist's controller loop
        if scheduler is not None:
            scheduler.shouldstop = fault
        if self.session is not None:
            self.session.shouldstop = fault

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """A SIGINT (Ctrl-C) ended the run: in this process (a KeyboardInterrupt itself), or in an xdist worker
        (xdist stops the run saying so). Not a stop that was asked for (`_stop`; -x under xdist), which pytest
        reports the same way."""
        error = excinfo.value
        if type(error) is KeyboardInterrupt or "keyboard-interrupt" in str(error):
            self.interrupted = True

    def _validation(self) -> dict[str, Any]:
        """What the target declares it validates (hello `validates`) and, of the rules the selection's fault tests
        break (the harness rule aside: limits.checks_regions), the kinds and ids it does not: what the
        certification does not certify."""
        hello = self.run.target.hello
        tested = {(fault.rule.id, fault.rule.kind.value) for fault in self.run.selection.faults
                  if fault.rule.status is not Status.HARNESS and fault.rule.illegal_by_default}
        declared = hello.validation.to_json() if hello.validates else False
        return {"declared": declared,
                "not_certified": hello.validation.not_certified(tested) if hello.validates else
                {"kinds": sorted({kind for _, kind in tested}), "rules": sorted(rule for rule, _ in tested)}}

    def _warnings(self) -> list[str]:
        """What in the run's set-up does not do what its author may think."""
        warnings = [f"hello {entry} matches no documented path of the spec (check its spelling): tests it was "
                    "meant to select or exclude are not affected by it" for entry in self.run.idle_capabilities()]
        baseline = self.run.baseline
        if baseline is not None and (baseline.suite_version, baseline.spec_digest) != (
                ascendc_conformance.__version__, self.run.spec.digest):
            warnings.append(f"the baseline {baseline.source} was written by ascendc-conformance "
                            f"{baseline.suite_version} from spec {baseline.spec_digest} (this run: "
                            f"{ascendc_conformance.__version__}, spec {self.run.spec.digest}): its causes are "
                            "matched by key all the same; a cause whose key changed between releases shows as new")
        profile = self.config.getoption("hypothesis_profile", None)
        if profile:
            warnings.append(f"--hypothesis-profile {profile} is not used: every test of this pytest session runs "
                            f"under the conformance run's settings (profile {self.run.profile})")
        return warnings

    def _pack(self) -> dict[str, Any] | None:
        """What the run record says of the pack: its summary, and whether its id was pinned (--pack-id: its
        stored expectations trusted) or not (every one re-derived by the reference before the first case)."""
        pack = self.run.pack
        return None if pack is None else {**pack.summary(), "pinned": self.run.settings.pack_id is not None}

    def header_lines(self) -> list[str]:
        """What the run is: the suite, the target and its hello, the spec, profile, seed and selection."""
        run, settings = self.run, self.run.settings
        hello = run.target.hello
        if run.pack is not None:   # the pack fixes the cases: no seed draws them
            pack = run.pack.summary()
            cases = (f"pack {pack['id']} ({run.pack.directory}: profile {pack['profile']}, {pack['tests']} tests, "
                     f"{pack['cases']} cases, drawn with seed {pack['seed']} by Hypothesis {pack['hypothesis']}; "
                     + ("id pinned by --pack-id: its expected results as stored)" if settings.pack_id is not None else
                        "id not pinned: every expected result was worked out again by the reference)"))
        else:
            seed = self._seed()
            # a seed fixes the cases only together with the Hypothesis release that draws them
            drawn = f"{seed} (Hypothesis {hypothesis.__version__})" if seed is not None else \
                f"random (pass {self.run.entry.flag('seed')} to fix it)"
            cases = f"profile {run.profile} ({PROFILES[run.profile]} cases per test); seed {drawn}"
        selection = f"products {_names(run.products)}; apis {_names(run.apis)}"
        if run.baseline is not None:
            selection += f"; baseline {run.baseline.source} ({len(run.baseline.causes)} cause(s))"
        shard = self.config.getoption("ascendc_shard", None)
        keyword = self.config.getoption("keyword", None)
        selection += (f"; shard {shard}" if shard else "") + (f"; -k {keyword!r}" if keyword else "")
        return [f"{PREFIX} ascendc-conformance {ascendc_conformance.__version__}: target {settings.target} "
                f"(hello: {clip(json.dumps(hello.raw, sort_keys=True), TARGET_TEXT_CHARS)})",
                f"{PREFIX} spec {run.spec.digest}; {cases}; {selection}",
                f"{PREFIX} reading {_reading(run.reading)}"]

    def _seed(self) -> int | None:
        """The Hypothesis seed that draws the run's cases (None: a random one, or a pack run, which draws none)."""
        return self.config.getoption("hypothesis_seed", None) if self.run.pack is None else None

    def _command(self, seed: int | None) -> str:
        """The `run` command line that repeats this run's selection (with its seed)."""
        settings = self.run.settings
        words = ["ascendc-conformance", "run", "--target", settings.target]
        if settings.pack is not None:
            words += ["--pack", str(settings.pack)]
        else:
            words += ["--profile", settings.profile]
            words += [word for product in settings.products for word in ("--product", product)]
            words += [word for api in settings.apis for word in ("--api", api)]
        if self.run.reading.choices:
            words += ["--reading", self.run.reading.label]
        if seed is not None:
            words += ["--seed", str(seed)]
        shard = self.config.getoption("ascendc_shard", None)
        if shard:
            words += ["--shard", shard]
        return shlex.join(words)

    def _make_progress(self) -> Progress | None:
        mode = self.config.getoption("ascendc_progress")
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if mode == "off" or terminal is None:
            return None
        if not (mode == "live" or (mode == "auto" and terminal.isatty())):
            return Progress(self._write)

        def live(text: str, keep: bool) -> None:
            terminal.rewrite(inert(text), erase=True)
            if keep:
                terminal.write("\n")
        return Progress(self._write, live)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:   # under xdist the controller collects nothing: the workers say what they collected
            self._plan(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        if self.progress is not None and not self.progress.total:
            self._plan(ids)

    def _plan(self, node_ids: Iterable[str]) -> None:
        if self.progress is None:
            return
        planned = self.run.selection.planned
        names = (node_id.rsplit("::", 1)[-1] for node_id in node_ids)
        self.progress.plan({name: planned[name][1].get("api") for name in names if name in planned})

    # --- while tests run ----------------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport,
                                 config: pytest.Config) -> tuple[str, str, str] | None:
        """pytest counts a conformance test under its verdict's word (Outcome.tally: passed, disputed, waived,
        known, not supported, skipped, failed), so that its summary line agrees with the verdict line. With
        progress shown and no -v, conformance tests print no dots: the progress line says it all (the words
        stay, for the short summary at the end)."""
        if not self._is_conformance(report.nodeid):
            return None
        quiet = self.progress is not None and config.get_verbosity() <= 0
        verdict = getattr(report, VERDICT_ATTRIBUTE, None)
        if report.when == "call" and verdict is not None and not report.failed:
            word = Outcome(verdict).tally(self.run.settings.allow_flaky)
            return word, "" if quiet else LETTERS[word], word.upper()
        if not quiet:
            return None
        if report.passed and report.when != "call":
            return "", "", ""
        if report.failed and report.when != "call":
            return "error", "", "ERROR"
        return report.outcome, "", report.outcome.upper()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self._is_conformance(report.nodeid):
            self.others.add(report.nodeid)
        elif report.failed:
            self.failed.add(report.nodeid)
        if getattr(report, SUITE_ERROR_ATTRIBUTE, False) and self.config.getoption("tbstyle") == "no":
            self._write(f"{PREFIX} the suite's own error in {report.nodeid}:\n{report.longreprtext}")
        text = getattr(report, RECORD_ATTRIBUTE, None)
        if text is not None:
            self._recorded(TestRecord.from_json(json.loads(text), report.nodeid))
        elif report.when == XDIST_CRASH_PHASE and report.failed and self._is_conformance(report.nodeid):
            name = report.nodeid.rsplit("::", 1)[-1]
            kind, subject = self.run.selection.planned[name]
            self._recorded(TestRecord(test_id=name, kind=kind, verdict=Outcome.CRASHED, **subject,
                                      message=f"{report.longrepr} (the process running the target died: "
                                              "every case of this test is lost; xdist started a new worker)"))
        fault = getattr(report, MACHINE_FAULT_ATTRIBUTE, None)
        if fault is not None:
            self._stop(fault)

    def _is_conformance(self, node_id: str) -> bool:
        return node_id.rsplit("::", 1)[-1] in self.run.selection.planned

    def _recorded(self, record: TestRecord) -> None:
        self.records.append(record.to_json())
        self._append(self.records[-1])
        if record.waiver is not None:
            self.matched_waivers.append(results.thaw(record.waiver))
        if self.progress is not None:
            self.progress.record(record)
        elif record.verdict.is_failure:
            self._write(failure_line(record))

    def _write(self, text: str) -> None:
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(inert(text))

    # --- end ------------------------------------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.progress is not None:
            self.progress.finish()
        for waiver in self.run.waivers:
            if waiver.to_json() not in self.matched_waivers:
                self.config.issue_config_time_warning(pytest.PytestWarning(
                    f"waiver matched nothing: {waiver.rule or waiver.test} ({waiver.reason}; {waiver.link})"),
                    stacklevel=2)
        report_dir = self.run.settings.report_dir
        ran = not self._nothing_ran(int(exitstatus))
        self._append({"record": "end", "finished": _now(), "exit_status": self._exit_status(int(exitstatus))})
        if report_dir is not None and ran:
            try:
                written = self.reporter.write_all(report_dir, spec=self.run.spec,
                                                  details=self.run.settings.report_details)
            except MachineFault as fault:
                print(inert(f"\nreports not written: {fault}; once the machine allows it, write them with "
                            f"`ascendc-conformance report {report_dir}`"))
                self._stop(str(fault))
            except ConformanceError as error:  # reports never change the run's verdict; they can be regenerated
                print(f"\nreports not written: {inert(str(error))}; regenerate with `ascendc-conformance report "
                      f"{report_dir}`")
            else:
                print(f"\nreports: {', '.join(str(path) for path in written.values())}")
        status = self._exit_status(int(exitstatus))
        if status not in (int(exitstatus), pytest.ExitCode.OK):   # 3, 130, or --strict-baseline failing a pass
            session.exitstatus = status
        if not ran:
            return
        try:
            self.verdict = self.reporter.verdict_lines(self.run_record, self.records, status, report_dir,
                                                       spec=self.run.spec)
        except ConformanceError as error:   # the run's records are the suite's own: only its own bug lands here
            self.verdict = [f"{PREFIX} VERDICT: not worked out ({error}); see the reports"]
        if self.others:
            self.verdict.append(f"{PREFIX} the verdict counts the {len(self.records)} conformance test(s) only; "
                                f"the session's {len(self.others)} other test(s) are pytest's (its summary above)")
        suite_errors = self._suite_errors
        if suite_errors:
            first = suite_errors[0]
            self.verdict.append(clip(f"{PREFIX} SUITE ERROR (exit {ExitCode.SUITE}): the suite could not finish "
                                     f"{len(suite_errors)} test(s), its own error, not the target's: "
                                     f"{first['test_id']}: {first.get('skipped_reason') or ''}", TARGET_TEXT_CHARS))
        if self.fault is not None:
            self.verdict.append(f"{PREFIX} STOPPED: {self.fault}")

    def _nothing_ran(self, pytest_status: int) -> bool:
        """A session that was never meant to run the tests (--collect-only) or ended in a usage error before it
        could (a -k expression pytest cannot parse): pytest's own output says it all, without a verdict."""
        return bool(self.config.option.collectonly) or pytest_status == pytest.ExitCode.USAGE_ERROR

    @property
    def _suite_errors(self) -> list[dict[str, Any]]:
        """The records of the tests the suite itself could not draw or judge (skip reason suite-error)."""
        return [record for record in self.records if record.get("skip") == SkipReason.SUITE_ERROR]

    def _exit_status(self, pytest_status: int) -> int:
        """The conformance run's own exit status: 3 for a run stopped by the machine, 130 for one interrupted by
        SIGINT; otherwise pytest's, but of the conformance tests only (a user's own failing test is pytest's
        business, never the verdict's), and 1 when --strict-baseline finds a cause of the baseline fixed (the
        baseline is to be refreshed)."""
        if self.fault is not None:
            return ExitCode.SUITE
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if pytest_status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return pytest_status
        if self._suite_errors:   # a test the suite could not draw or judge: the run could not finish
            return ExitCode.SUITE
        baseline = self.run.baseline
        stale = (self.run.settings.strict_baseline and baseline is not None
                 and baseline.fixed(TestRecord.from_json(record) for record in self.records))
        return int(pytest.ExitCode.TESTS_FAILED if self.failed or stale else pytest.ExitCode.OK)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """The verdict, last: after pytest's own tally, which lumps not-supported tests with skips."""
        for line in self.verdict:
            print(inert(line))


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _reading(reading: Reading) -> str:
    """The reading in force: its label and the alternatives it takes."""
    chosen = ", ".join(f"{point}={name}" for point, name in reading.choices.items())
    return f"{reading.label}: {chosen or 'every point takes its default'}"


def _names(names: Iterable[str] | None) -> str:
    return ",".join(names) if names else "all"
