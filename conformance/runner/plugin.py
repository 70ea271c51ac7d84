"""The conformance run inside pytest: profiles, header, the suite's parameters, sharding, test records.

Activated by the entry point (ascendc_conformance.plugin) when `--ascendc-target` is given: `activate` adds
the conformance suite (runner/suite) to the collection and registers this module's hooks; `ascendc-conformance
run` wraps exactly this. Each test's record is attached to
its teardown report here, in whichever process ran it; the controlling process's RunRecorder
(ascendc_conformance.runner.recorder) writes results, progress and reports from those reports.
"""
from __future__ import annotations

import gc
import importlib
import sys
import zlib
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from types import ModuleType
from typing import Generator, Iterator

import pytest
from _pytest.runner import pytest_make_collect_report as collect_report
from hypothesis import HealthCheck, Phase, settings

if sys.version_info < (3, 11):   # Python 3.10: pytest and Hypothesis depend on the backport there
    from exceptiongroup import BaseExceptionGroup

from ascendc_conformance.format import wire
from ascendc_conformance.format.defaults import PROFILES
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.runner import budgets, options, seeds
from ascendc_conformance.runner.options import OptionError
from ascendc_conformance.format.text import terminal as inert
from ascendc_conformance.runner.recorder import (MACHINE_FAULT_ATTRIBUTE, RECORD_ATTRIBUTE, SUITE_ERROR_ATTRIBUTE,
                                                 VERDICT_ATTRIBUTE, Reporter, RunRecorder)
from ascendc_conformance.runner.checker import Checker, ConformanceFailure
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.selection import param_id
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.determinism import without_local_constants

SUITE_DIR = Path(__file__).resolve().parent / "suite"
DRAWN_TESTS, PACK_TESTS = SUITE_DIR / "test_conformance.py", SUITE_DIR / "test_pack.py"
"""The suite's two test modules, of the same tests: one draws the cases (a profile run), one takes a pack's."""
PACKAGE_DIR = SUITE_DIR.parents[1]   # ascendc_conformance installed; conformance/ in a source checkout
SESSION_KEY = pytest.StashKey[RunSession]()
RECORD_KEY = pytest.StashKey[str]()   # on a test item: its finished record, as JSON text
FAULT_KEY = pytest.StashKey[str]()    # on a test item: a file its process could not write (errors.MachineFault)


def _register_profiles() -> None:
    """One Hypothesis profile per run profile, built on Hypothesis's own defaults rather than on whatever
    profile is current: under a CI variable (CI, GITHUB_ACTIONS, ...) Hypothesis loads its `ci` profile, whose
    derandomize=True would silently replace the run's --seed with a per-test constant."""
    for name, examples in PROFILES.items():
        settings.register_profile(
            f"ascendc-{name}", parent=settings.get_profile("default"), derandomize=False,
            max_examples=examples, deadline=None, database=None, print_blob=False,
            # no explain phase: the lines it would point at are the suite's own, not the target's
            phases=[phase for phase in Phase if phase != Phase.explain],
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                                   HealthCheck.function_scoped_fixture, HealthCheck.large_base_example])


_register_profiles()


@dataclass(frozen=True)
class StartedRun:
    """A run whose options `ascendc-conformance run` checked, and whose target it started, before pytest:
    passed to pytest.main as a plugin, it is taken over by `activate` rather than started a second time."""

    session: RunSession


def _settings(config: pytest.Config) -> RunSettings:
    """The run's settings from the plugin's options, each value checked (OptionError) as `run` checks it."""
    options.SEED.value(config.getoption("hypothesis_seed", None))   # the seed must be one `run --seed` takes
    return RunSettings.from_options(lambda option: option.value(config.getoption(option.plugin_dest)))


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _session(config: pytest.Config, spec: Spec) -> RunSession:
    """The run's session, started: the one `run` started if its settings are these, else a new one under
    `spec`. Any problem with the options, the target or its hello is a usage error naming the plugin's option
    (the target, if it was started, stopped: nothing it started outlives the refusal)."""
    session = None
    try:
        settings = _settings(config)
        started = next((plugin.session for plugin in config.pluginmanager.get_plugins()
                        if isinstance(plugin, StartedRun) and plugin.session.settings == settings), None)
        if started is not None:
            return started
        session = RunSession(settings, spec)
        session.start(controller=not _is_worker(config))
    except OptionError as error:
        if session is not None:
            session.close()
        raise pytest.UsageError(inert(error.text(error.option.plugin_flag))) from None
    return session


def activate(config: pytest.Config, reporter: Reporter | None, spec: Spec) -> None:
    """Start the run of `--ascendc-target` under `spec` and register this module's hooks for it.

    `reporter` writes the reports from results.jsonl and the verdict line at the end of the run; the reports
    layer sits above the runner, so the entry point passes it in (None in an xdist worker, whose controlling
    process writes them).
    """
    session = _session(config, spec)
    config.stash[SESSION_KEY] = session
    if not _is_worker(config):
        assert reporter is not None, "the controlling process writes the reports"
        config.pluginmanager.register(RunRecorder(config, session, reporter), "ascendc-recorder")
    _load_run_profile(session)
    # Hypothesis imports libcst when a test fails; its deprecation warnings say nothing about the target
    config.addinivalue_line("filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")
    if not any(Path(arg.split("::")[0]).resolve().is_relative_to(SUITE_DIR) for arg in config.args):
        config.args.append(str(SUITE_DIR))
    config.pluginmanager.register(sys.modules[__name__], "ascendc-run")


class SuiteModule(pytest.Module):
    """The suite's test module, imported by its package name.

    pytest names a test file after the directories above it that hold an __init__.py. Installed, that is
    ascendc_conformance/runner/suite; from a source checkout (an editable install) it is conformance/runner/suite,
    the repository's folder, which is another package's name in a project that has its own `conformance`
    package. Module._getobj, how pytest obtains a module's object, is private pytest API: should it change,
    tests/e2e/test_shadowed_packages.py fails."""

    def _getobj(self) -> ModuleType:
        return importlib.import_module(f"{__package__}.suite.{self.path.stem}")


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The suite's folder and the package folders above it as plain directories: as Packages, pytest would
    import their __init__.py by path, under the folders' names."""
    if SUITE_DIR.is_relative_to(path) and path.is_relative_to(PACKAGE_DIR):
        return pytest.Dir.from_parent(parent, path=path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    if module_path.parent == SUITE_DIR:
        return SuiteModule.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport | None:
    """The suite's test modules collected in full under --lf; pytest's cache plugin then keeps their tests that
    failed last time, as it does a user's own. Without this it skips them: once a file of the user's own holds
    a last failure, --lf skips every file that is not a last failure's path under the root directory, and the
    suite's files lie outside it (their tests' ids are relative to the suite's folder). pytest's own collection
    is private API: should it change, tests/e2e/test_plugin_traps.py fails."""
    if isinstance(collector, SuiteModule) and collector.config.getoption("lf", False):
        return collect_report(collector)
    return None


def _load_run_profile(session: RunSession) -> None:
    """The Hypothesis settings of the run's profile, and draws blind to the constants of the modules this process
    imported (strategies.determinism: the same cases for the same seed, whatever the target's module)."""
    settings.load_profile(f"ascendc-{session.profile}")
    without_local_constants()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Load the run's profile again once every plugin is configured: Hypothesis's own plugin loads
    --hypothesis-profile at configure time, perhaps after `activate`, and would otherwise replace the number
    of cases, the seeding and the health checks the run's verdicts rest on (the recorder warns about it)."""
    run = session.config.stash.get(SESSION_KEY, None)
    if run is not None:
        _load_run_profile(run)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze the objects made before the tests (gc.freeze): the modules, the spec, the selection and pytest's
    items live as long as the run, and every full collection of the cyclic garbage collector would walk them
    again (measured: more than half of the collector's time in a pack run). What the tests make is collected as
    before."""
    if session.config.stash.get(SESSION_KEY, None) is not None:
        gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the run's target, and freeze the objects of the run (gc.freeze): it is over, and nothing it made is
    garbage worth finding. Collecting them again costs a second or two at the end of every run's process —
    pytest collects five times over at its cleanup (to report exceptions raised in finalizers), the interpreter
    once more at exit — and frees nothing before the process ends."""
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()
        gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Of the suite's two test modules, the one of the run: a pack's, or the one drawing the cases."""
    session = config.stash.get(SESSION_KEY, None)
    if session is not None and collection_path in (DRAWN_TESTS, PACK_TESTS):
        return collection_path != (PACK_TESTS if session.pack is not None else DRAWN_TESTS)
    return None


FIXTURES = {TestKind.SMOKE: "ascendc_smoke", TestKind.LEGAL: "ascendc_path", TestKind.ILLEGAL: "ascendc_fault",
            TestKind.BOUNDARY: "ascendc_boundary", TestKind.LIMIT: "ascendc_limit"}
"""The fixture that hands each suite test function (`test_<kind>`) the item it checks."""


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> list[pytest.Item] | None:
    """No test at all of a suite test function the selection gives nothing to (test_limit for a target that
    declares no limits): pytest would make an empty parametrisation a skipped test, and deselecting it would
    end every run with an unexplained "1 deselected"."""
    session = collector.config.stash.get(SESSION_KEY, None)
    kind = next((kind for kind in TestKind if name == f"test_{kind.value}"), None)
    if session is None or not isinstance(collector, SuiteModule) or kind is None:
        return None
    return None if any(session.selection.tests(kind)) else []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    session = metafunc.config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    for kind, fixture in FIXTURES.items():
        if fixture in metafunc.fixturenames:
            items = [item for _, _, item in session.selection.tests(kind)]
            metafunc.parametrize(fixture, items, ids=[param_id(item) for item in items])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    items[:] = _interleaved(session, items)
    shard = config.getoption("ascendc_shard", None)
    if shard:
        index, count = options.parse_shard(shard)
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            (keep if zlib.crc32(item.nodeid.split("::")[-1].encode()) % count == index - 1 else drop).append(item)
        items[:] = keep
        config.hook.pytest_deselected(items=drop)
    _locate(items)


def _locate(items: list[pytest.Item]) -> None:
    """Work out each item's location (file, line, name: pytest keeps it once asked) now, in one go: asked when
    each test starts, between the work of two tests, it costs about five times as much CPU (5 % of a pack run's
    tests' CPU, py-spy at 2fb2b97)."""
    for item in items:
        _ = item.location


def _interleaved(session: RunSession, items: list[pytest.Item]) -> list[pytest.Item]:
    """The conformance tests in run order: the smoke phase first, then the full tests taken one API at a time
    in turn, so that a bug in any API shows early; each API's heavy tests (strategies.pinned: its large-region
    and crossing tests, the only ones that show a field kept in too few bits or an offset computed in 32 bits)
    first among its full tests, its others in their order. Other items (a user's own tests in the same pytest
    run) keep their place at the end."""
    planned, heavy = session.selection.planned, session.selection.heavy
    phases: dict[bool, dict[str, list[pytest.Item]]] = {True: {}, False: {}}
    others = []
    for item in items:
        name = item.nodeid.rsplit("::", 1)[-1]
        if name not in planned:
            others.append(item)
            continue
        kind, subject = planned[name]
        phases[kind is TestKind.SMOKE].setdefault(subject.get("api") or "", []).append(item)
    for tests in phases[False].values():
        tests.sort(key=lambda item: item.nodeid.rsplit("::", 1)[-1] not in heavy)   # stable: the others keep their order
    ordered = [item for smoke in (True, False)
               for round_ in zip_longest(*phases[smoke].values()) for item in round_ if item is not None]
    return ordered + others


def _target_failures(error: BaseException) -> bool:
    """Whether `error` is a target's failure raised for shrinking, or a group of nothing else."""
    if isinstance(error, BaseExceptionGroup):
        return all(_target_failures(member) for member in error.exceptions)
    return isinstance(error, ConformanceFailure)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """A conformance test draws from a seed of its own, derived from --hypothesis-seed (runner.seeds), as many
    cases as its budget (runner.budgets: fewer for a heavy test); a pack run's tests draw nothing."""
    session = item.config.stash.get(SESSION_KEY, None)
    if session is not None and session.pack is None and item.name in session.selection.planned:
        selection = session.selection
        if item.name in selection.heavy and isinstance(item, pytest.Function):
            budgets.draw_at_most(item, selection.budget(item.name, selection.planned[item.name][0]))
        seeds.seed_item(item, item.config.getoption("hypothesis_seed", None))


@pytest.fixture(scope="session")
def ascendc_run(request: pytest.FixtureRequest) -> RunSession:
    """The run (one per session: set up once, not per test)."""
    session = request.config.stash.get(SESSION_KEY, None)
    if session is None:
        pytest.skip("no --ascendc-target given")
    return session


@pytest.fixture
def ascendc_record(request: pytest.FixtureRequest, ascendc_run: RunSession) -> Iterator[CheckRecord]:
    """The test's record; when the test ends (passed, failed or skipped) it is kept on the item, and travels
    to the controlling process on the teardown report (see ascendc_conformance.runner.recorder)."""
    kind, _ = ascendc_run.selection.planned[request.node.name]
    baseline = ascendc_run.baseline
    record = CheckRecord(test_id=request.node.name, kind=kind,
                         budget=ascendc_run.selection.budget(request.node.name, kind),
                         heavy=request.node.name in ascendc_run.selection.heavy,
                         known=baseline.keys if baseline is not None else frozenset())
    yield record
    ascendc_run.checker.finished(record)
    request.node.stash[RECORD_KEY] = wire.json_line(record.result().to_json()).decode("ascii")
    if ascendc_run.checker.machine_fault is not None:   # a replay file it could not write: the run stops (recorder)
        request.node.stash[FAULT_KEY] = str(ascendc_run.checker.machine_fault)


def _as_verdict(item: pytest.Item, report: pytest.TestReport, record: CheckRecord) -> None:
    """pytest's outcome of a conformance test as its verdict has it, and the verdict on the report (the recorder
    counts the test under its verdict's word: Outcome.tally): a test failing only with causes the baseline
    holds, or flaky under --allow-flaky, does not fail the session; a test that judged no case is skipped."""
    verdict = record.verdict
    setattr(report, VERDICT_ATTRIBUTE, verdict.value)
    allow_flaky = item.config.stash[SESSION_KEY].settings.allow_flaky
    allowed = verdict is Outcome.KNOWN or (verdict is Outcome.FLAKY and allow_flaky)
    if report.failed and allowed:
        reason = f"{verdict}: {record.failure_text.splitlines()[0] if record.causes else ''}"
    elif report.passed and verdict in (Outcome.SKIPPED, Outcome.NOT_SUPPORTED):
        reason = record.skipped_reason or verdict.value
    else:
        return
    report.outcome = "skipped"
    report.longrepr = (str(item.path), (item.location[1] or 0) + 1, f"Skipped: {inert(reason)}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                                            pytest.TestReport]:
    report = yield
    if call.when == "call" and report.failed and call.excinfo is not None:
        record = getattr(item, "funcargs", {}).get("ascendc_record")
        if record is not None and record.causes and _target_failures(call.excinfo.value):
            # the target's failures (one, or Hypothesis's group of several causes): every cause with its
            # verdict, diff and replay command, in one failure; no traceback, no ExceptionGroup
            report.longrepr = inert(record.failure_text)
        elif record is not None:    # not the target's failure: the suite could not draw or judge (exit 3)
            record.suite_error(f"{call.excinfo.typename}: {call.excinfo.value}")
            setattr(report, SUITE_ERROR_ATTRIBUTE, True)     # its traceback is the suite's bug report: keep it
    elif call.when == "call" and report.passed:
        record = getattr(item, "funcargs", {}).get("ascendc_record")
        failure = Checker.unraised_failure(record) if record is not None else None
        if failure is not None:                            # a failure reported as drawn: the test fails all the same
            report.outcome, report.longrepr = "failed", inert(failure)
    if call.when == "call":
        record = getattr(item, "funcargs", {}).get("ascendc_record")
        if record is not None:
            _as_verdict(item, report, record)
    if call.when == "teardown" and RECORD_KEY in item.stash:
        setattr(report, RECORD_ATTRIBUTE, item.stash[RECORD_KEY])
    if call.when == "teardown" and FAULT_KEY in item.stash:
        setattr(report, MACHINE_FAULT_ATTRIBUTE, item.stash[FAULT_KEY])
    return report
