"""`pack build`: the cases of a run drawn once, with their expected results, and written as a pack.

Each test of the selection (smoke, legal, illegal, boundary: every test of a profile run but the limit tests,
which depend on the target's hello) draws its cases as a profile run against the reference would — the same
test ids, the same plan (runner.gates) and strategy objects, the profile's number of cases, each test drawing
from its own seed derived from --seed and its id (runner.seeds) — outside pytest. Each case is checked by the reference as a run checks it (a legal case
is ok, a single fault rejected for exactly its rule), and kept with its regions' fill recipes and its expected
result under every computable reading of the disputed points it depends on (format.pack). Each test keeps too
every bit and crossing its cases reach under the seed reading (runner.witnessed_bits), which a run pinning the
pack's id takes from it instead of asking the reference case by case.

With several workers, processes draw the tests (each test from its own seed, whichever process draws it) and this
one writes them in the selection's order: the same pack, byte for byte, as one process builds.
"""
from __future__ import annotations

import itertools
import shlex
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator

import hypothesis
import pytest

import ascendc_conformance
from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.fill import Recipes, recording
from ascendc_conformance.format.pack import (TESTS_DIR, Pack, PackedCase, PackedTest, PackTest, check_new_directory,
                                             recipe_case, write_pack)
from ascendc_conformance.judge.packed import expectations
from ascendc_conformance.format.pack_doc import format_text
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.runner import gates, options, seeds
from ascendc_conformance.runner.options import OptionError
from ascendc_conformance.runner.checker import check_expectation
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.selection import PACKED_KINDS, Item, subject
from ascendc_conformance.runner.witnessed_bits import BitWitnesses, as_reach
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.faults import Expectation
from ascendc_conformance.strategies.pinned import PinnedTest
from ascendc_conformance.strategies.sample import draw

BUILT_AGAINST = "reference"
"""The target whose plan the cases are drawn by: it implements, validates and handles everything."""


@dataclass(frozen=True)
class BuildSettings:
    profile: str
    seed: int
    products: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        """The `pack build` command line that builds the same pack (with the same Hypothesis release)."""
        words = ["ascendc-conformance", "pack", "build", "--profile", self.profile, "--seed", str(self.seed)]
        words += [word for product in self.products for word in ("--product", product)]
        words += [word for api in self.apis for word in ("--api", api)]
        return shlex.join(words + ["--out", "DIR"])


def packed(case: Case, spec: Spec, recipes: Recipes, test_id: str, index: int, rule: str | None,
           expectation: Expectation) -> tuple[PackedCase, Result]:
    """A drawn case as a pack keeps it: checked by the reference as a run checks it (SuiteError for a suite
    bug), its regions as recipes, its expected result under the seed reading and every other computable
    reading of the points it depends on; and its expected result under the seed reading."""
    expected, others = reference.expect_readings(case, spec)
    check_expectation(rule, expected, expectation)
    points, stored = expectations(expected, others)
    return PackedCase(case=recipe_case(case, recipes, test_id, index), points=points, expected=stored), expected


def _test_cases(session: RunSession, test_id: str, kind: TestKind, item: Item, seed: int) -> PackedTest:
    """The cases of one test, with every bit and crossing they reach under the seed reading (the pack's):
    none for a test a run against the reference skips (a bound no path reaches)."""
    record = CheckRecord(test_id=test_id, kind=kind, budget=0)
    record.describe(**subject(item))
    if isinstance(item, PinnedTest):   # for any target: a large region where a path has one (strategies.pinned)
        item = item.for_every_target()
    try:
        plan = gates.plan(session, record, item)
    except pytest.skip.Exception:
        return PackedTest(cases=(), bits=MappingProxyType({}), crossings=MappingProxyType({}))
    index = itertools.count()
    reach = BitWitnesses(session.spec, session.spec.seed_reading)   # this test's own: every bit its cases witness
    with recording() as recipes:
        def keep(case: Case) -> PackedCase:
            kept, expected = packed(case, session.spec, recipes, test_id, next(index), record.rule, plan.expectation)
            reach.note(record.bits, case, expected)
            reach.note_crossings(record.crossings, case, expected)
            recipes.clear()
            return kept
        cases = draw(plan.strategy, session.selection.budget(test_id, kind), seeds.test_seed(seed, test_id), keep)
    return PackedTest(cases=tuple(cases), bits=as_reach(record.bits), crossings=as_reach(record.crossings))


def _session(settings: BuildSettings, spec: Spec) -> RunSession:
    return RunSession(RunSettings(target=BUILT_AGAINST, products=settings.products, apis=settings.apis,
                                  profile=settings.profile), spec)


_worker: tuple[BuildSettings, RunSession, list[tuple[str, TestKind, Item]]] | None = None
"""In a worker process of a parallel build: its settings, its session and the selection's tests."""


def _start_worker(settings: BuildSettings) -> None:
    """A worker process of a parallel build: the packaged spec (the build's own, checked by `build`: a Spec is not
    sent between processes) and the same selection as the building process."""
    global _worker
    session = _session(settings, load_spec())
    _worker = (settings, session, list(session.selection.tests(*PACKED_KINDS)))


def _drawn_in_worker(index: int) -> dict[str, Any]:
    """The selection's test number `index`, as the pack writes it."""
    assert _worker is not None, "started by _start_worker"
    settings, session, tests = _worker
    return _test_cases(session, *tests[index], settings.seed).to_json()


def _drawn_in_processes(settings: BuildSettings, count: int, workers: int) -> Iterator[PackedTest]:
    """The selection's `count` tests, in order, drawn by `workers` processes."""
    with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(settings,)) as pool:
        # small chunks: tests differ a lot in cost, and a worker that finishes early takes the next one
        for drawn in pool.map(_drawn_in_worker, range(count), chunksize=max(1, min(8, count // (workers * 16)))):
            yield PackedTest.from_json(drawn)


def build(settings: BuildSettings, spec: Spec, out: Path,
          progress: Callable[[int, int, str], None] | None = None, workers: int = 1) -> Pack:
    """Draw the selection's tests of `spec` (in `workers` processes) and write the pack into `out` (new or
    empty); ConformanceError for an unknown product or API, PackError for an unusable output directory."""
    session = _session(settings, spec)
    for name in ("product", "api"):   # an unknown name is a usage error naming the option
        try:
            getattr(session, f"{name}s")
        except ConformanceError as error:
            raise OptionError(options.named(name), str(error)) from None
    if workers > 1 and spec.digest != load_spec().digest:   # the workers load the packaged spec
        raise OptionError(options.named("workers"), f"{workers}: the worker processes draw from the packaged spec "
                                                    f"{load_spec().digest}, not this build's {spec.digest}; use 1")
    products, apis = session.products, session.apis
    check_new_directory(out)
    tests = list(session.selection.tests(*PACKED_KINDS))
    width = len(str(len(tests)))

    packed_tests: Iterable[PackedTest] = (
        _drawn_in_processes(settings, len(tests), workers) if workers > 1 and len(tests) > 1
        else (_test_cases(session, test_id, kind, item, settings.seed) for test_id, kind, item in tests))

    def drawn() -> Iterator[tuple[PackTest, PackedTest]]:
        for number, ((test_id, kind, item), packed_test) in enumerate(zip(tests, packed_tests), start=1):
            if progress is not None:
                progress(number, len(tests), test_id)
            yield (PackTest(id=test_id, kind=kind.value, subject=subject(item),
                            cases=len(packed_test.cases), file=f"{TESTS_DIR}/{number:0{width}d}.json.gz"), packed_test)

    header = {"suite_version": ascendc_conformance.__version__, "spec_digest": session.spec.digest,
              "built": {"profile": settings.profile, "seed": settings.seed, "hypothesis": hypothesis.__version__,
                        "products": list(products or ()), "apis": list(apis or ()),
                        "reading": session.spec.seed_reading.label, "command": settings.command, "fill": "splitmix64"}}
    try:
        return write_pack(out, header=header, tests=drawn(), format_text=format_text(header))
    finally:
        session.close()
