"""Benchmarks of the reference, the strategies, the exec protocol and the CI run (issue 6).

    python benchmarks/run.py              # a table
    python benchmarks/run.py --json       # one JSON object
    python benchmarks/run.py --skip-run   # without the CLI runs (exec_vs_inprocess, ci_profile_seconds,
                                          # time_to_first_failure_s, failing_run_ratio, catalogue_caught,
                                          # xdist_speedup, peak_rss_mb: printed as null / skipped)
    python benchmarks/run.py --details FILE   # also write every raw timing behind the figures to FILE (JSON)
    python benchmarks/run.py --catalogue-seeds N  # catalogue_caught over the seeds 1..N (default 4)
    python benchmarks/run.py --packs-only     # only the certification packs: pack_vs_profile, pack_unpinned_vs_pinned,
                                              # pack_exec_vs_inprocess, pack_cases_per_s, pack_sizes_mib
    python benchmarks/run.py --skip-full-pack # without building the full pack (its size)
    python benchmarks/run.py --scaling-only   # only ci_fixed_seconds (where a ci run's time goes, T(w) fitted)
                                              # and exec_runner_us_per_case

Every figure is a median over repeated measurements (time.perf_counter). The code measured is the installed
package `ascendc_conformance` (run `python3 -m pip install .` in this working tree first).
See BENCHMARKS.md for what each key means and the figures measured on the project machine.
"""
from __future__ import annotations

import argparse
import re
import resource
import shlex
import hashlib
import json
import os
import platform
import statistics
import subprocess
import tempfile
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]   # the benchmark helpers, and the catalogue of buggy targets (tests/)

import numpy as np  # noqa: E402
from tabulate import tabulate  # noqa: E402

import cases  # noqa: E402
import naive_peer  # noqa: E402
import timeline  # noqa: E402
from ascendc_conformance import reference  # noqa: E402
from ascendc_conformance.format import cache  # noqa: E402
from ascendc_conformance.format.case import Case, ResultStatus  # noqa: E402
from ascendc_conformance.judge.diagnosis import actual_of, diagnose  # noqa: E402
from ascendc_conformance.judge.verdict import judge  # noqa: E402
from ascendc_conformance.spec.loader import load_spec  # noqa: E402
from ascendc_conformance.strategies.faults import faults  # noqa: E402
from ascendc_conformance.strategies.legal import legal_cases, select_paths  # noqa: E402
from ascendc_conformance.strategies.sample import draw  # noqa: E402
from ascendc_conformance.format.outcome import FAILURES as FAILING  # noqa: E402
from ascendc_conformance.targets import open_target  # noqa: E402
from ascendc_conformance.targets.reference_target import ReferenceImpl  # noqa: E402
from tests.fixtures.buggy import targets as buggy_targets  # noqa: E402

SPEC = load_spec()
JSON_REFERENCE = ReferenceImpl(SPEC)   # the reference on case v1 dicts: what a python: target or `serve` pays
SMALL_BYTES = 1024
LOOP_BYTES = 64 * 1024
GOALS = {"reference_vs_memcpy": "<= 2", "reference_small_case_us": "<= 50", "reference_vs_loop": ">= 100",
         "exec_vs_inprocess": "<= 2", "generation_cases_per_s": "-", "ci_profile_seconds": "<= 60",
         "xdist_speedup": ">= 1.7", "peak_rss_mb": "<= 1024", "plugin_overhead_ms": "<= 20",
         "time_to_first_failure_s": "median <= 5, max <= 15", "failing_run_ratio": "<= 1.5",
         "diagnosis_us_per_failing_case": "- (failing_run_ratio <= 1.5 once the judge diagnoses)",
         "catalogue_caught": "every (bug, seed)", "pack_vs_profile": "<= 0.2", "pack_exec_vs_inprocess": "<= 1.5",
         "pack_cases_per_s": "-", "pack_sizes_mib": "ci <= 5 MB, full <= 50 MB", "pack_unpinned_vs_pinned": "-",
         "ci_fixed_seconds": "<= 5", "exec_runner_us_per_case": "<= 300 (all cases)", "pack_build_speedup": ">= 1.6 (2 workers)"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def median_time(fn: Callable[[], Any], *, repeats: int, number: int = 1) -> float:
    """Median over `repeats` of the seconds one call of fn takes (each sample times `number` calls)."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def batch_for(seconds_per_call: float, target: float = 0.02) -> int:
    return max(1, int(target / max(seconds_per_call, 1e-7)))


def timed(fn: Callable[[], Any], repeats: int) -> float:
    """Median seconds per call, calls batched to ~20 ms per sample."""
    return interleaved([fn], repeats)[0]


def interleaved(fns: list[Callable[[], Any]], repeats: int) -> list[float]:
    """Median seconds per call of each fn, sampled in turns (so that a change in the machine's load hits
    every fn alike), calls batched to ~20 ms per sample."""
    batches = []
    for fn in fns:
        start = time.perf_counter()
        fn()
        batches.append(batch_for(time.perf_counter() - start))
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, number, out in zip(fns, batches, samples):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            out.append((time.perf_counter() - start) / number)
    return [statistics.median(out) for out in samples]


# --- 1. reference vs the memcpy floor -----------------------------------------------------------------------

def reference_vs_memcpy(repeats: int, details: dict) -> dict:
    """Marginal seconds per byte moved of reference.expect (a Case: legality, plan, bounds, overlap, move)
    between a ~1 KiB case and the largest case of the API's widest path, over that of a numpy copy."""
    out = {}
    for api in cases.APIS:
        small, large = cases.build(api, SMALL_BYTES, seed=1), cases.build(api, cases.largest_bytes(api), seed=2)
        b_small, b_large = cases.moved_bytes(api, small), cases.moved_bytes(api, large)
        c_small, c_large = Case.from_json(small), Case.from_json(large)
        assert reference.expect(c_small, SPEC).status == "ok" and reference.expect(c_large, SPEC).status == "ok"
        a_small = np.frombuffer(np.random.default_rng(0).bytes(b_small), dtype=np.uint8)
        a_large = np.frombuffer(np.random.default_rng(0).bytes(b_large), dtype=np.uint8)
        t_small, t_large, m_small, m_large = interleaved(
            [lambda: reference.expect(c_small, SPEC), lambda: reference.expect(c_large, SPEC), a_small.copy, a_large.copy],
            repeats)
        e_small, e_large = interleaved([lambda: JSON_REFERENCE.execute(small), lambda: JSON_REFERENCE.execute(large)],
                                       repeats)
        per_byte_ref = (t_large - t_small) / (b_large - b_small)
        per_byte_copy = (m_large - m_small) / (b_large - b_small)
        per_byte_expect = (e_large - e_small) / (b_large - b_small)
        out[api] = round(per_byte_ref / per_byte_copy, 2)
        details.setdefault("reference_vs_memcpy", {})[api] = {
            "path": cases.widest(api).label, "small_bytes": b_small, "large_bytes": b_large,
            "evaluate_small_us": round(t_small * 1e6, 1), "evaluate_large_us": round(t_large * 1e6, 1),
            "copy_small_us": round(m_small * 1e6, 2), "copy_large_us": round(m_large * 1e6, 2),
            "evaluate_ps_per_byte": round(per_byte_ref * 1e12, 1), "copy_ps_per_byte": round(per_byte_copy * 1e12, 1),
            "expect_small_us": round(e_small * 1e6, 1), "expect_large_us": round(e_large * 1e6, 1),
            "expect_vs_memcpy": round(per_byte_expect / per_byte_copy, 1)}
        log(f"  reference_vs_memcpy {api}: {out[api]}")
    return out


# --- 2. small cases, whole entry point ------------------------------------------------------------------------

def small_cases(api: str, count: int = 48) -> list[dict]:
    """Distinct legal cases moving at most 1 KiB: every size in whole granules, several seeds each."""
    granule = cases.granule(api)
    sizes = list(range(granule, SMALL_BYTES + 1, granule))
    return [cases.build(api, sizes[i % len(sizes)], seed=100 + i) for i in range(count)]


def reference_small_case_us(repeats: int, details: dict) -> dict:
    """Microseconds per reference.expect(case, spec) on distinct small cases, what a run pays the reference per
    case: legality, plan, bounds and overlap checks, move. The details add `json_us`, the same on case v1 dicts
    (schema check, decoding, encoding: what a python: target or `serve` pays)."""
    out = {}
    for api in cases.APIS:
        batch = small_cases(api)
        parsed = [Case.from_json(case) for case in batch]
        assert all(reference.expect(case, SPEC).status == "ok" for case in parsed)

        def run() -> None:
            for case in parsed:
                reference.expect(case, SPEC)
        per_case = median_time(run, repeats=repeats) / len(batch)
        out[api] = round(per_case * 1e6, 1)

        def run_json() -> None:
            for case in batch:
                JSON_REFERENCE.execute(case)
        details.setdefault("reference_small_case_us", {})[api] = {
            "cases": len(batch), "max_bytes": max(cases.moved_bytes(api, c) for c in batch),
            "json_us": round(median_time(run_json, repeats=repeats) / len(batch) * 1e6, 1)}
        log(f"  reference_small_case_us {api}: {out[api]}")
    return out


# --- 3. the naive peer ------------------------------------------------------------------------------------------

def reference_vs_loop(repeats: int, details: dict) -> dict:
    """At 64 KiB moved: the naive per-element loop (on decoded bytearrays) over reference.expect (on the
    Case, legality included). Both sides without the case codec; the codec-inclusive ratio (naive_peer.expect
    vs the reference on case v1 dicts, base64 on both sides) is in the details."""
    out = {}
    for api in cases.APIS:
        case = cases.build(api, LOOP_BYTES, seed=3)
        assert naive_peer.expect(case) == JSON_REFERENCE.execute(case), f"the naive peer disagrees on {api}"
        parsed = Case.from_json(case)
        regions = naive_peer.decode(case)   # the call rewrites the same bytes each time
        t_loop = median_time(lambda: naive_peer.run(case, regions), repeats=max(3, repeats // 4))
        t_ref = timed(lambda: reference.expect(parsed, SPEC), repeats)
        t_loop_json = median_time(lambda: naive_peer.expect(case), repeats=max(3, repeats // 4))
        t_ref_json = timed(lambda: JSON_REFERENCE.execute(case), repeats)
        out[api] = round(t_loop / t_ref, 1)
        details.setdefault("reference_vs_loop", {})[api] = {
            "bytes": cases.moved_bytes(api, case), "loop_ms": round(t_loop * 1e3, 2),
            "evaluate_us": round(t_ref * 1e6, 1), "loop_expect_ms": round(t_loop_json * 1e3, 2),
            "reference_expect_us": round(t_ref_json * 1e6, 1), "expect_ratio": round(t_loop_json / t_ref_json, 1)}
        log(f"  reference_vs_loop {api}: {out[api]}")
    return out


# --- 4. exec protocol vs in-process -------------------------------------------------------------------------------

def drawn_cases(api: str, count: int, seed: int) -> list[Case]:
    """`count` legal cases of one API drawn by the strategies under a fixed Hypothesis seed."""
    return draw(legal_cases(SPEC, select_paths(SPEC, apis=[api])), count, seed, keep=lambda case: case)


def exec_protocol_overhead(repeats: int, details: dict, per_api: int = 25) -> None:
    """Target side only (details): the same drawn cases (seed 6) executed through open_target("reference")
    and through open_target("exec:python3 -m ascendc_conformance.targets.serve reference"), median wall time of the
    loop over all cases (the server's start and hello excluded, measured apart)."""
    batch = [case for api in cases.APIS for case in drawn_cases(api, per_api, seed=6)]
    command = f"exec:{sys.executable} -m ascendc_conformance.targets.serve reference"
    start = time.perf_counter()
    remote = open_target(command, SPEC)
    started = time.perf_counter() - start
    local = open_target("reference", SPEC)
    try:
        answers_local = [local.execute(case) for case in batch]
        answers_remote = [remote.execute(case) for case in batch]
        assert [a.result for a in answers_local] == [a.result for a in answers_remote], "exec and in-process differ"

        def run(target) -> Callable[[], None]:
            return lambda: [target.execute(case) for case in batch]
        t_local = median_time(run(local), repeats=repeats)
        t_remote = median_time(run(remote), repeats=repeats)
    finally:
        remote.close()
        local.close()
    total_bytes = sum(len(region.data) for case in batch for region in case.memory.values())
    details["exec_target_side"] = {"cases": len(batch), "case_region_mib": round(total_bytes / 2**20, 1),
                                   "inprocess_s": round(t_local, 3), "exec_s": round(t_remote, 3),
                                   "ratio": round(t_remote / t_local, 2), "exec_start_s": round(started, 3)}
    log(f"  exec target side only: {t_remote / t_local:.2f}")


def _cli_env() -> dict:
    """The environment of the CLI runs: this one, without a PYTHONPATH that could shadow the installed package."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def exec_vs_inprocess(details: dict, repeats: int = 2, seed: int = 6, product: str = "910B") -> float:
    """Wall time of `python -m conformance run --target T --profile quick --seed 6 --product 910B` with
    T = exec:python3 -m ascendc_conformance.targets.serve reference over T = reference (the same seed, so the same
    cases), runs alternated, median of `repeats` each. The whole run is timed: process start, generation,
    expected results, the target, judging."""
    targets = {"inprocess": "reference", "exec": f"exec:{sys.executable} -m ascendc_conformance.targets.serve reference"}
    samples: dict[str, list[float]] = {name: [] for name in targets}
    for _ in range(repeats):
        for name, target in targets.items():
            argv = [sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--profile", "quick",
                    "--seed", str(seed), "--product", product]
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=ROOT, env=_cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
            samples[name].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    medians = {name: statistics.median(values) for name, values in samples.items()}
    details["exec_vs_inprocess"] = {"command": f"run --target T --profile quick --seed {seed} --product {product}",
                                    "seconds": {name: [round(v, 2) for v in values] for name, values in samples.items()}}
    log(f"  exec_vs_inprocess: {medians['exec'] / medians['inprocess']:.2f} {details['exec_vs_inprocess']}")
    return round(medians["exec"] / medians["inprocess"], 2)


# --- 5. generation ---------------------------------------------------------------------------------------------------

def generation_cases_per_s(repeats: int, details: dict, count: int = 60) -> dict:
    """Legal cases per second drawn by strategies.legal.legal_cases over all of an API's paths (Hypothesis
    generate phase only, fixed seeds, the test body only collects the case)."""
    out = {}
    for api in cases.APIS:
        samples = []
        for r in range(repeats):
            start = time.perf_counter()
            drawn = drawn_cases(api, count, seed=r)
            samples.append(len(drawn) / (time.perf_counter() - start))
        out[api] = round(statistics.median(samples), 1)
        log(f"  generation_cases_per_s {api}: {out[api]}")
    details["generation_cases_per_s"] = {"cases_per_sample": count, "samples": repeats}
    return out


# --- 5b. diagnosing a failing case -------------------------------------------------------------------------------------

def diagnosis_us_per_failing_case(repeats: int, details: dict, legal: int = 60, per_fault: int = 2) -> dict:
    """Microseconds judge.diagnosis.diagnose takes per failing case, over the catalogue of buggy targets: for each
    bug (but the reading followers, which fail nothing), `legal` legal cases and `per_fault` cases of every fault
    of its product and API (fixed seeds), the failing ones diagnosed `repeats` times each; the median over the
    bugs of each bug's median, and the worst bug's."""
    spec = SPEC
    pools: dict[tuple[str, str], list[Case]] = {}
    per_bug: dict[str, dict] = {}
    for bug in buggy_targets.CATALOGUE:
        if issubclass(bug, buggy_targets.ReadingFollower):
            continue
        product, api, _ = bug.SHOWS_IN
        if (product, api) not in pools:
            fault_cases = [case for fault in faults(spec, [product], [api])
                           for case in draw(fault.strategy(), per_fault, 2, keep=lambda case: case)]
            pools[product, api] = draw(legal_cases(spec, select_paths(spec, [product], [api])), legal, 1,
                                       keep=lambda case: case) + fault_cases
        failing = []
        with open_target(f"python:tests.fixtures.buggy.targets:{bug.__name__}", spec) as target:
            for case in pools[product, api]:
                expected = reference.expect(case, spec)
                if expected.status not in (ResultStatus.OK, ResultStatus.REJECTED):
                    continue
                answer = target.execute(case)
                if judge(case, expected, answer, target.hello, spec=spec).is_failure:
                    failing.append((case, expected, actual_of(answer)))
        if not failing:
            continue
        seconds = median_time(lambda: [diagnose(c, e, a, spec, spec.seed_reading) for c, e, a in failing],
                              repeats=repeats)
        per_bug[bug.__name__] = {"failing_cases": len(failing), "us": round(seconds / len(failing) * 1e6)}
        log(f"  {bug.__name__}: {per_bug[bug.__name__]}")
    details["diagnosis_us_per_failing_case"] = per_bug
    worst = max(per_bug, key=lambda name: per_bug[name]["us"])
    return {"median": statistics.median(info["us"] for info in per_bug.values()), "max": per_bug[worst]["us"],
            "worst": worst, "failing_cases": sum(info["failing_cases"] for info in per_bug.values())}


# --- 6. the CI profile run ---------------------------------------------------------------------------------------------

def _tree_rss_kib(root_pid: int) -> int:
    """Resident KiB of a process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as f:
                pages = int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = pages * (os.sysconf("SC_PAGE_SIZE") // 1024)
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def ci_run(workers: int, seed: int, target: str = "reference") -> dict:
    """Wall time, exit code and peak resident memory (whole process tree, sampled every 0.1 s) of
    `python -m ascendc_conformance run --target T --profile ci --seed N [--workers W]` over all products."""
    argv = [sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--profile", "ci",
            "--seed", str(seed), "--workers", str(workers)]
    env = _cli_env()
    peak = [0]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss_kib(process.pid))
            done.wait(0.1)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = process.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    summary = [line for line in output.splitlines() if " in " in line and ("passed" in line or "failed" in line)]
    return {"workers": workers, "seconds": round(elapsed, 1), "exit": process.returncode,
            "peak_rss_mb": round(peak[0] / 1024, 1), "summary": summary[-1] if summary else output[-500:]}


def ci_fixed_seconds(details: dict, seed: int, workers: tuple[int, ...] = (1, 2), repeats: int = 1) -> dict:
    """Where a `ci` run's wall time goes (benchmarks/timeline.py: start-up, each worker's collection, the
    controlling process, the tests, the reports), at each of `workers`, runs alternated; and the fit of
    T(w) = fixed + work / w over the medians. The runs find the selection in the cache (format.cache: any run
    of the same code has put it there); one more run at the most workers starts from an empty cache, as the first
    run of new code on a machine does (`cold_cache`: its wall seconds and its measured fixed part)."""
    argv = [sys.executable, "-m", "ascendc_conformance", "run", "--target", "reference", "--profile", "ci",
            "--seed", str(seed), "--progress", "off"]
    runs: dict[int, list[dict]] = {count: [] for count in workers}
    for _ in range(repeats):
        for count in workers:
            runs[count].append(timeline.run_timed(argv + ["--workers", str(count)], ROOT, _cli_env()))
            log(f"  {count} worker(s): {runs[count][-1]}")
    with tempfile.TemporaryDirectory() as empty:
        cold = timeline.run_timed(argv + ["--workers", str(max(workers))], ROOT,
                                  {**_cli_env(), cache.CACHE_VARIABLE: empty})
    seconds = {count: statistics.median(run["seconds"] for run in samples) for count, samples in runs.items()}
    details["ci_fixed_seconds"] = {"runs": {str(count): samples for count, samples in runs.items()},
                                   "cold_cache": cold, "loadavg": os.getloadavg()}
    return {**{f"workers_{count}": round(value, 1) for count, value in seconds.items()}, **timeline.fit(seconds),
            "cold_cache": {"workers": max(workers), "seconds": cold["seconds"], "fixed": cold["split"]["fixed"]}}


# --- 7. the plugin's cost to unrelated pytest runs ----------------------------------------------------------------------

UNRELATED_TEST = "def test_unrelated():\n    assert 1 + 1 == 2\n"


def plugin_overhead_ms(repeats: int, details: dict) -> float:
    """What the installed plugin adds to a pytest run that has nothing to do with the suite: the median over
    `repeats` pairs of runs (alternated) of `python -m pytest -q test_unrelated.py` minus the same run with
    `-p no:ascendc`, in milliseconds, from a temporary directory holding one trivial test. Each run is
    measured by the CPU time (user + system) of its process: the wall time of a 1.5-s pytest start varies by
    tens of milliseconds from run to run on this machine, more than the figure itself (the wall times are in
    the details)."""
    samples: dict[str, list[float]] = {"with": [], "without": []}
    walls: dict[str, list[float]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "test_unrelated.py").write_text(UNRELATED_TEST)
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_unrelated.py"]
        for _ in range(repeats):
            for name, extra in (("with", []), ("without", ["-p", "no:ascendc"])):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run(base + extra, cwd=directory, env=_cli_env(), capture_output=True, text=True)
                walls[name].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                samples[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                if done.returncode != 0:
                    raise RuntimeError(f"{' '.join(base + extra)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    differences = [a - b for a, b in zip(samples["with"], samples["without"])]
    details["plugin_overhead_ms"] = {f"{name}_{kind}": [round(v * 1000, 1) for v in values]
                                     for kind, source in (("cpu", samples), ("wall", walls))
                                     for name, values in source.items()}
    figure = round(statistics.median(differences) * 1000, 1)
    log(f"  plugin_overhead_ms: {figure}")
    return figure


# --- 8. failing targets: time to the first failure, and the cost of a failing run ------------------------------------

EXEC_BUGGY = ROOT / "tests" / "fixtures" / "buggy" / "exec_buggy.py"
FAILURE_LINE = re.compile(r"^\[ascendc\] (%s) " % "|".join(re.escape(o.value.upper()) for o in FAILING))


def _catalogue() -> list[str]:
    """The names of the project's buggy targets (tests/fixtures/buggy/targets.py), without the ones that
    follow another reading of the disputed points (not bugs: they fail no test under the seed reading)."""
    return [bug.__name__ for bug in buggy_targets.CATALOGUE if not issubclass(bug, buggy_targets.ReadingFollower)]


def _buggy_target(name: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(EXEC_BUGGY), name])


def first_failure_seconds(target: str, seed: int) -> float | None:
    """Seconds from starting `run --target T --profile ci` over every product and API to the first line that
    reports a failing test (the run is then stopped); None if the run ends without one."""
    argv = [sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--profile", "ci",
            "--seed", str(seed), "--progress", "lines"]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=ROOT, env=_cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    assert process.stdout is not None
    try:
        for line in process.stdout:
            if FAILURE_LINE.match(line):
                return time.perf_counter() - start
        return None
    finally:
        process.kill()
        process.wait()


def time_to_first_failure_s(details: dict, seed: int) -> dict:
    """Over the catalogue of buggy targets, each served over exec: the median and the maximum of the seconds
    to the first reported failure of a `ci` run."""
    seconds = {}
    for name in _catalogue():
        seconds[name] = first_failure_seconds(_buggy_target(name), seed)
        log(f"  {name}: {seconds[name]}")
    details["time_to_first_failure_s"] = {name: None if s is None else round(s, 2) for name, s in seconds.items()}
    found = [s for s in seconds.values() if s is not None]
    missed = [name for name, s in seconds.items() if s is None]
    if missed:
        log(f"  no failure reported for: {', '.join(missed)}")
    return {"median": round(statistics.median(found), 2), "max": round(max(found), 2), "missed": len(missed)}


def failing_run_ratio(details: dict, seed: int) -> float:
    """Wall time of a whole `ci` run of the catalogue's worst target (the one failing the most tests) over
    that of the reference, both behind exec:."""
    failing: dict[str, int] = {}
    for name in _catalogue():   # quick runs on one product to find the worst target
        with tempfile.TemporaryDirectory() as directory:
            subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", _buggy_target(name),
                            "--profile", "quick", "--product", "atlas-a2", "--seed", str(seed), "--progress", "off",
                            "--report", directory],
                           cwd=ROOT, env=_cli_env(), capture_output=True, text=True)
            records = [json.loads(line) for line in Path(directory, "results.jsonl").read_text().splitlines()]
            failing[name] = sum(1 for r in records if r["record"] == "test" and r["verdict"] in FAILING)
    worst = max(failing, key=lambda name: failing[name])
    reference_target = f"exec:{sys.executable} -m ascendc_conformance.targets.serve reference"
    runs = {"reference": ci_run(1, seed, reference_target), worst: ci_run(1, seed, _buggy_target(worst))}
    details["failing_run_ratio"] = {"failing_tests_quick": failing, "worst": worst, "runs": runs}
    ratio = runs[worst]["seconds"] / runs["reference"]["seconds"]
    log(f"  failing_run_ratio: {ratio:.2f} ({worst}: {runs[worst]['seconds']} s, reference over exec: "
        f"{runs['reference']['seconds']} s)")
    return round(ratio, 2)


def catalogue_caught(details: dict, seeds: int) -> str:
    """For each seed 1..`seeds` and each bug of the catalogue, a `ci` run of the tests where the bug shows (its
    SHOWS_IN, as tests/e2e/test_buggy_catalogue.py runs seed 7 only): how many (bug, seed) pairs earned the
    bug's verdict. Not a timing: whether catching a narrow bug depends on luck of the draw."""
    def caught(bug: type, seed: int) -> bool:
        product, api, keyword = bug.SHOWS_IN
        with tempfile.TemporaryDirectory() as directory:
            subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                            f"python:tests.fixtures.buggy.targets:{bug.__name__}", "--product", product, "--api", api,
                            "-k", keyword, "--profile", "ci", "--seed", str(seed), "--shrink-seconds", "1", "-x",
                            "--progress", "off", "--report", directory],
                           cwd=ROOT, env=_cli_env(), capture_output=True, text=True)
            records = [json.loads(line) for line in Path(directory, "results.jsonl").read_text().splitlines()]
        return any(r["record"] == "test" and r["verdict"] == bug.VERDICT for r in records)

    pairs = [(bug, seed) for bug in buggy_targets.CATALOGUE for seed in range(1, seeds + 1)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda pair: caught(*pair), pairs))
    missed = [f"{bug.__name__}@{seed}" for (bug, seed), hit in zip(pairs, results) if not hit]
    details["catalogue_caught"] = {"seeds": seeds, "missed": missed}
    if missed:
        log(f"  not caught: {', '.join(missed)}")
    return f"{len(pairs) - len(missed)}/{len(pairs)}"


# --- 9. certification packs ----------------------------------------------------------------------------------------------

SERVED_REFERENCE = f"exec:{sys.executable} -m ascendc_conformance.targets.serve reference"
"""The reference over exec, speaking the wire extensions (a pack's regions by recipe, answers by digest)."""
SERVED_REFERENCE_BYTES = f"exec:{sys.executable} -m ascendc_conformance.targets.serve --bytes-only reference"
"""The reference over exec speaking bytes only, as a target without the wire extensions."""


def build_pack(directory: Path, profile: str, seed: int, workers: int = 1, products: tuple[str, ...] = (),
               verify: bool = True) -> dict:
    """`pack build --profile P --seed N --workers W [--product P]...` (default: every product) and every API into
    `directory`: build seconds, size, cases, pack id. With `verify`, `pack verify` then, untimed (see below)."""
    start = time.perf_counter()
    chosen = [argument for product in products for argument in ("--product", product)]
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "build", "--profile", profile,
                           "--seed", str(seed), "--workers", str(workers), "--out", str(directory), *chosen], cwd=ROOT,
                          env=_cli_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pack build --profile {profile} exited {done.returncode}:\n{done.stderr[-2000:]}")
    seconds = round(time.perf_counter() - start, 1)
    if verify:   # the checks of its test files, which a machine does once per pack id (format.cache.checked):
        # done here, untimed, so that every timed run finds them done as every run of a pack but its first does
        subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "verify", str(directory)], cwd=ROOT,
                       env=_cli_env(), capture_output=True, check=True)
    manifest = json.loads((directory / "manifest.json").read_text())
    size = sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())
    return {"profile": profile, "id": hashlib.sha256((directory / "manifest.json").read_bytes()).hexdigest(),
            "build_s": seconds, "bytes": size,
            "mib": round(size / 2**20, 2), "mb": round(size / 1e6, 2), "tests": manifest["counts"]["tests"],
            "cases": manifest["counts"]["cases"], "files": len(manifest["files"]) + 1,
            "pack_id": done.stdout.split()[1]}


def pack_build_speedup(details: dict, seed: int, workers: int = 2, repeats: int = 2) -> float:
    """Wall time of `pack build --profile ci` (every product and API) in one process over that with `workers`
    processes, alternated, medians of `repeats`; the packs must be the same (pack id)."""
    builds: dict[int, list[dict]] = {1: [], workers: []}
    for _ in range(repeats):
        for count in builds:
            with tempfile.TemporaryDirectory() as directory:
                builds[count].append(build_pack(Path(directory) / "pack", "ci", seed, count, verify=False))
            log(f"  pack build, {count} worker(s): {builds[count][-1]['build_s']} s")
    ids = {build["pack_id"] for runs in builds.values() for build in runs}
    if len(ids) != 1:
        raise RuntimeError(f"pack build with 1 and {workers} workers built different packs: {sorted(ids)}")
    seconds = {count: statistics.median(build["build_s"] for build in runs) for count, runs in builds.items()}
    details["pack_build_speedup"] = {"workers": workers, "seconds": {str(count): [build["build_s"] for build in runs]
                                                                     for count, runs in builds.items()}}
    return round(seconds[1] / seconds[workers], 2)


def _run_seconds(args: list[str]) -> float:
    """Wall time of one `python -m ascendc_conformance run ARGS --progress off` (it must pass)."""
    argv = [sys.executable, "-m", "ascendc_conformance", "run", *args, "--progress", "off"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=_cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return elapsed


LARGE_TESTS = "not large and not crossing"
"""The -k expression leaving out the large-region and crossing tests, whose cases move up to 32 MiB each."""


def exec_runner_us_per_case(details: dict, seed: int, repeats: int = 3, product: str = "atlas-a2") -> dict:
    """Microseconds of the runner's own CPU per case of a pack run behind exec: a `ci` pack of one product
    (seed N, its id pinned) run against the reference served over exec (one target process, one pytest process),
    the CPU seconds of the runner's process from its first test to its last (benchmarks/timeline.py; the target's
    process is not counted) over the cases run; the median of `repeats` runs. `all_cases`: the whole pack;
    `without_large_regions`: without its large-region and crossing tests (26 tests, 52 cases of up to 32 MiB
    each, whose bytes are most of the pack's: their per-byte cost would otherwise set the figure). `wire`: the
    served reference speaking the wire extensions; `bytes`: the same with --bytes-only."""
    with tempfile.TemporaryDirectory() as directory:
        pack = Path(directory) / "pack"
        built = build_pack(pack, "ci", seed, products=(product,))
        tests = json.loads((pack / "manifest.json").read_text())["tests"]
        cases = {"all_cases": sum(test["cases"] for test in tests),
                 "without_large_regions": sum(test["cases"] for test in tests
                                              if "large" not in test["id"] and "crossing" not in test["id"])}
        targets = {"wire": SERVED_REFERENCE, "bytes": SERVED_REFERENCE_BYTES}
        runs: dict[str, dict[str, list[dict]]] = {wire: {name: [] for name in cases} for wire in targets}
        for _ in range(repeats):
            for wire, target in targets.items():
                argv = [sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--pack", str(pack),
                        "--pack-id", built["id"], "--progress", "off"]
                runs[wire]["all_cases"].append(timeline.run_timed(argv, ROOT, _cli_env()))
                runs[wire]["without_large_regions"].append(timeline.run_timed(argv + ["-k", LARGE_TESTS], ROOT,
                                                                              _cli_env()))
    per_case = {wire: {name: [run["split"]["tests"]["cpu"] / cases[name] * 1e6 for run in samples]
                       for name, samples in by_name.items()} for wire, by_name in runs.items()}
    details["exec_runner_us_per_case"] = {"product": product, "cases": cases, "runs": runs,
                                          "us_per_case": {wire: {name: [round(value, 1) for value in values]
                                                                 for name, values in by_name.items()}
                                                          for wire, by_name in per_case.items()}}
    log(f"  exec_runner_us_per_case: {per_case}")
    return {wire: {name: round(statistics.median(values), 1) for name, values in by_name.items()}
            for wire, by_name in per_case.items()}


def pack_runs(details: dict, seed: int, repeats: int, full: bool) -> dict:
    """The `ci` pack of every product and API (seed N) run against the reference in-process (its id pinned by
    --pack-id: `pack_vs_profile`, as issue 30 defines it; and not: the unpinned run re-derives every expected
    result first, `pack_unpinned_vs_pinned`), against the same reference
    served over exec with one and with two target processes, and the `ci` profile run of the same selection and
    seed in-process: wall times of whole CLI runs, alternated, medians of `repeats` each. With `full`, the `full`
    pack is built too, for its size."""
    with tempfile.TemporaryDirectory() as directory:
        packs = {"ci": build_pack(Path(directory) / "ci", "ci", seed)}
        log(f"  ci pack: {packs['ci']}")
        if full:
            packs["full"] = build_pack(Path(directory) / "full", "full", seed)
            log(f"  full pack: {packs['full']}")
        pack = str(Path(directory) / "ci")
        runs = {"profile": ["--target", "reference", "--profile", "ci", "--seed", str(seed)],
                "pack": ["--target", "reference", "--pack", pack],
                "pack_pinned": ["--target", "reference", "--pack", pack, "--pack-id", packs["ci"]["id"]],
                "pack_exec_1": ["--target", SERVED_REFERENCE, "--pack", pack],
                "pack_exec_2": ["--target", SERVED_REFERENCE, "--pack", pack, "--target-processes", "2"],
                "pack_exec_2_bytes": ["--target", SERVED_REFERENCE_BYTES, "--pack", pack, "--target-processes", "2"]}
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(repeats):
            for name, args in runs.items():
                samples[name].append(_run_seconds(args))
                log(f"  {name}: {samples[name][-1]:.1f} s")
    medians = {name: statistics.median(values) for name, values in samples.items()}
    cases = packs["ci"]["cases"]
    exec_best = min(medians["pack_exec_1"], medians["pack_exec_2"])
    details["pack_runs"] = {"packs": packs, "seconds": {name: [round(v, 2) for v in values]
                                                        for name, values in samples.items()},
                            "loadavg": os.getloadavg()}
    return {"pack_vs_profile": round(medians["pack_pinned"] / medians["profile"], 2),   # expectations trusted
            "pack_exec_vs_inprocess": {"processes_1": round(medians["pack_exec_1"] / medians["pack"], 2),
                                       "processes_2": round(medians["pack_exec_2"] / medians["pack"], 2),
                                       "processes_2_bytes_only": round(medians["pack_exec_2_bytes"] / medians["pack"],
                                                                       2)},
            "pack_cases_per_s": {"inprocess": round(cases / medians["pack"], 1),
                                 "exec": round(cases / exec_best, 1)},
            "pack_sizes_mib": {name: info["mib"] for name, info in packs.items()},
            "pack_unpinned_vs_pinned": round(medians["pack"] / medians["pack_pinned"], 2)}


# --- driver ---------------------------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--skip-run", action="store_true",
                        help="skip the CLI runs (ci profile, exec vs in-process, buggy targets)")
    parser.add_argument("--repeats", type=int, default=15, help="samples per median (default 15)")
    parser.add_argument("--seed", type=int, default=1, help="Hypothesis seed of the ci profile runs")
    parser.add_argument("--catalogue-seeds", type=int, default=4, metavar="N",
                        help="catalogue_caught over the seeds 1..N (default 4)")
    parser.add_argument("--details", metavar="FILE", help="write the raw timings behind every figure to FILE")
    parser.add_argument("--skip-full-pack", action="store_true",
                        help="do not build the full pack (several minutes): pack_sizes_mib gives the ci pack only")
    parser.add_argument("--packs-only", action="store_true", help="measure only the certification packs' keys")
    parser.add_argument("--scaling-only", action="store_true",
                        help="measure only where a ci run's time goes and the runner's CPU per exec case")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    details: dict[str, Any] = {"machine": {"python": platform.python_version(), "numpy": np.__version__,
                                           "cpus": os.cpu_count(), "platform": platform.platform(),
                                           "loadavg_at_start": os.getloadavg()}}
    results: dict[str, Any] = {}
    if args.scaling_only:
        log("ci profile run split into its phases ...")
        results["ci_fixed_seconds"] = ci_fixed_seconds(details, args.seed)
        log("runner CPU per exec case ...")
        results["exec_runner_us_per_case"] = exec_runner_us_per_case(details, args.seed)
        return _report(args, results, details, started)
    if args.packs_only:
        log("certification packs: build, pack runs against the profile run ...")
        results = pack_runs(details, args.seed, repeats=2, full=not args.skip_full_pack)
        results["pack_build_speedup"] = pack_build_speedup(details, args.seed)
        return _report(args, results, details, started)
    log("reference vs memcpy ...")
    results["reference_vs_memcpy"] = reference_vs_memcpy(args.repeats, details)
    log("small cases ...")
    results["reference_small_case_us"] = reference_small_case_us(args.repeats, details)
    log("naive peer ...")
    results["reference_vs_loop"] = reference_vs_loop(args.repeats, details)
    log("exec protocol, target side ...")
    exec_protocol_overhead(max(3, args.repeats // 3), details)
    log("generation ...")
    results["generation_cases_per_s"] = generation_cases_per_s(3, details)
    log("plugin overhead on unrelated pytest runs ...")
    results["plugin_overhead_ms"] = plugin_overhead_ms(args.repeats, details)
    log("diagnosing the catalogue's failing cases ...")
    results["diagnosis_us_per_failing_case"] = diagnosis_us_per_failing_case(3, details)
    if args.skip_run:
        results["time_to_first_failure_s"] = results["failing_run_ratio"] = results["catalogue_caught"] = None
    else:
        log("time to the first failure, buggy catalogue over exec ...")
        results["time_to_first_failure_s"] = time_to_first_failure_s(details, args.seed)
        log("a failing run against a passing one ...")
        results["failing_run_ratio"] = failing_run_ratio(details, args.seed)
        log(f"the catalogue under seeds 1-{args.catalogue_seeds} ...")
        results["catalogue_caught"] = catalogue_caught(details, args.catalogue_seeds)
    if args.skip_run:
        results["exec_vs_inprocess"] = None
        results["ci_profile_seconds"] = results["xdist_speedup"] = results["peak_rss_mb"] = None
        results["ci_fixed_seconds"] = results["exec_runner_us_per_case"] = None
        details["ci_runs"] = "skipped (--skip-run)"
        for key in ("pack_vs_profile", "pack_exec_vs_inprocess", "pack_cases_per_s", "pack_sizes_mib",
                    "pack_unpinned_vs_pinned", "pack_build_speedup"):
            results[key] = None
    else:
        log("exec vs in-process runs ...")
        results["exec_vs_inprocess"] = exec_vs_inprocess(details)
        runs = []
        for workers in (1, 2):
            log(f"ci profile run, {workers} worker(s) ...")
            runs.append(ci_run(workers, args.seed))
            log(f"  {runs[-1]}")
        results["ci_profile_seconds"] = {f"workers_{run['workers']}": run["seconds"] for run in runs}
        results["xdist_speedup"] = round(runs[0]["seconds"] / runs[1]["seconds"], 2)
        log("ci profile run split into its phases ...")
        results["ci_fixed_seconds"] = ci_fixed_seconds(details, args.seed)
        log("runner CPU per exec case ...")
        results["exec_runner_us_per_case"] = exec_runner_us_per_case(details, args.seed)
        results["peak_rss_mb"] = {f"workers_{run['workers']}": run["peak_rss_mb"] for run in runs}
        details["ci_runs"] = runs
        log("certification packs: build, pack runs against the profile run ...")
        results.update(pack_runs(details, args.seed, repeats=2, full=not args.skip_full_pack))
        results["pack_build_speedup"] = pack_build_speedup(details, args.seed)
    return _report(args, {key: results[key] for key in GOALS}, details, started)


def _report(args: argparse.Namespace, results: dict, details: dict, started: float) -> int:
    """Print the results (a table, or JSON) and write the details."""
    details["benchmark_seconds"] = round(time.perf_counter() - started, 1)
    details["machine"]["loadavg_at_end"] = os.getloadavg()
    if args.details:
        Path(args.details).write_text(json.dumps({"results": results, "details": details}, indent=2) + "\n")
    if args.json:
        print(json.dumps(results))
    else:
        print(table(results))
    return 0


def table(results: dict) -> str:
    rows = []
    for key, value in results.items():
        if isinstance(value, dict):
            for sub, figure in value.items():
                rows.append([key, sub, figure, GOALS[key]])
        else:
            rows.append([key, "", "skipped" if value is None else value, GOALS[key]])
    return tabulate(rows, headers=["key", "api / runs", "median", "goal"])


if __name__ == "__main__":
    sys.exit(main())
