"""Where a run's wall time goes: a benchmark-only pytest plugin, and the split of a run it measured.

`run_timed(argv, workdir)` runs a command (an `ascendc-conformance run ...`) with this module loaded as a pytest
plugin in every pytest process of it (`PYTEST_PLUGINS`, which xdist's workers inherit), each process writing
the wall-clock timestamps and CPU seconds of its phases (pytest's own hooks: configure, collection, the first
and last test, sessionfinish, exit) into a file of its own. `split` turns those into the run's phases:

- start-up: the command's launch to the controlling process's session start (Python, imports, the spec, the
  target started, the plugin's selection);
- collection per worker: each pytest process's collection (under xdist, each worker's own start before it too);
- tests: from the first test started to the last one finished, and the tests' own durations summed;
- controlling process: its CPU seconds while the tests run (under xdist: receiving and recording every
  test's report; with one process it is the worker itself);
- reports: the controlling process's sessionfinish to its unconfigure (results, verdict, report files);
- exit: its unconfigure to the command's exit (the target closed, the interpreter's own teardown).

Only the standard library and pytest: benchmarks/scaling.py uses it on a machine with nothing but the installed
package.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import pytest

DIRECTORY_VARIABLE = "ASCENDC_BENCH_TIMELINE_DIR"
"""Where each pytest process of a timed run writes its timeline (one JSON file per process id)."""
HERE = Path(__file__).resolve().parent


# --- the plugin (loaded in every pytest process of a timed run) -------------------------------------------------------

def _now() -> dict[str, float]:
    return {"wall": time.time(), "cpu": time.process_time()}


_marks: dict[str, Any] = {"imported": _now(), "tests": 0, "test_seconds": 0.0, "reports": 0}


def _process_started() -> float | None:
    """When this process started (wall clock, from /proc, to 10 ms; None elsewhere): xdist's workers start long
    after the controlling process, and their imports come before this plugin's."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


@pytest.hookimpl(tryfirst=True)   # before the suite's plugin starts the run: that is the configure phase
def pytest_configure(config: Any) -> None:
    _marks["role"] = "worker" if hasattr(config, "workerinput") else "controller"
    _marks["configured"] = _now()


def pytest_sessionstart(session: Any) -> None:
    _marks["session_started"] = _now()


def pytest_collectstart(collector: Any) -> None:
    _marks.setdefault("collection_started", _now())


def pytest_collection_finish(session: Any) -> None:
    _marks["collection_finished"] = _now()


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _marks.setdefault("first_test", _now())


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    _marks["last_test"] = _now()
    _marks["tests"] += 1


def pytest_runtest_logreport(report: Any) -> None:
    """In a worker (or a run of one process): the tests' own time; in the controlling process under xdist: the
    reports it receives, and when the first and the last arrived."""
    _marks["reports"] += 1
    _marks.setdefault("first_report", _now())
    _marks["last_report"] = _now()
    if _marks.get("role") != "controller" or not _is_distributed():
        _marks["test_seconds"] += getattr(report, "duration", 0.0)


def _is_distributed() -> bool:
    return _marks.get("distributed", False)


@pytest.hookimpl(tryfirst=True)   # before the recorder writes the results and the reports
def pytest_sessionfinish(session: Any) -> None:
    _marks["session_finishing"] = _now()
    _marks["distributed"] = _is_distributed()


@pytest.hookimpl(optionalhook=True)   # only with xdist
def pytest_xdist_setupnodes(config: Any, specs: Any) -> None:
    _marks["distributed"] = True


def pytest_unconfigure(config: Any) -> None:
    """The last hook: the reports are written (the recorder writes them at sessionfinish, which ran before)."""
    directory = os.environ.get(DIRECTORY_VARIABLE)
    if not directory:
        return
    _marks["unconfigured"] = _now()
    _marks["started"] = _process_started()
    _marks["pid"] = os.getpid()
    Path(directory, f"{os.getpid()}.json").write_text(json.dumps(_marks))




# --- timing a run -----------------------------------------------------------------------------------------------------

def run_timed(argv: Sequence[str], workdir: Path | str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `argv` with the timeline plugin in every pytest process: its wall seconds, its exit status, the CPU
    seconds of it and its children, and the split of its time (`split`). The command must succeed."""
    environment = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory() as directory:
        environment[DIRECTORY_VARIABLE] = directory
        environment["PYTEST_PLUGINS"] = ",".join(filter(None, [environment.get("PYTEST_PLUGINS"), "timeline"]))
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), environment.get("PYTHONPATH")]))
        launched = time.time()
        before = os.times()
        done = subprocess.run(list(argv), cwd=workdir, env=environment, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        ended = time.time()
        after = os.times()
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
        timelines = [json.loads(path.read_text()) for path in Path(directory).glob("*.json")]
    return {"seconds": round(ended - launched, 2),
            "cpu_seconds": round(after.children_user + after.children_system
                                 - before.children_user - before.children_system, 2),
            "split": split(timelines, launched, ended)}


def split(timelines: list[dict[str, Any]], launched: float, ended: float) -> dict[str, Any]:
    """The phases of one run from its processes' timelines (see the module's docstring), in seconds."""
    controller = next(t for t in timelines if t["role"] == "controller")
    workers = [t for t in timelines if t["role"] == "worker"] or [controller]

    def wall(marks: dict[str, Any], start: str, end: str) -> float:
        return round(marks[end]["wall"] - marks[start]["wall"], 2)

    def cpu(marks: dict[str, Any], start: str, end: str) -> float:
        return round(marks[end]["cpu"] - marks[start]["cpu"], 2)

    tested = [w for w in workers if "first_test" in w]
    first = min(w["first_test"]["wall"] for w in tested)
    last = max(w["last_test"]["wall"] for w in tested)
    phases = {
        "start_up": round(controller["session_started"]["wall"] - launched, 2),
        "collection": [{"imports": round(w["configured"]["wall"] - (w["started"] or w["imported"]["wall"]), 2),
                        "imports_cpu": w["configured"]["cpu"],
                        "configure": wall(w, "configured", "session_started"),
                        "configure_cpu": cpu(w, "configured", "session_started"),
                        "collect": wall(w, "collection_started", "collection_finished"),
                        "collect_cpu": cpu(w, "collection_started", "collection_finished")} for w in workers],
        "until_first_test": round(first - launched, 2),
        "tests": {"span": round(last - first, 2), "sum": round(sum(w["test_seconds"] for w in workers), 2),
                  "cpu": round(sum(cpu(w, "first_test", "last_test") for w in tested), 2),
                  "count": sum(w["tests"] for w in workers)},
        "reports": wall(controller, "session_finishing", "unconfigured"),
        "exit": round(ended - controller["unconfigured"]["wall"], 2),
        "after_last_test": round(ended - last, 2)}
    if controller is not workers[0]:   # under xdist: what the controlling process spent on the tests' reports
        phases["controller_cpu_during_tests"] = round(
            controller["last_report"]["cpu"] - controller["first_report"]["cpu"], 2)
        phases["controller_cpu"] = cpu(controller, "imported", "unconfigured")
    phases["fixed"] = round(phases["until_first_test"] + phases["after_last_test"], 2)
    return phases


def fit(seconds: dict[int, float]) -> dict[str, float]:
    """T(w) = fixed + work / w by least squares over the workers counts measured (two or more)."""
    xs = [1 / w for w in seconds]
    ys = list(seconds.values())
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    spread = sum((x - mean_x) ** 2 for x in xs)
    work = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread
    return {"fixed": round(mean_y - work * mean_x, 2), "work": round(work, 2)}


if __name__ == "__main__":   # python timeline.py ARGV...: the split of one command's run, as JSON
    print(json.dumps(run_timed(sys.argv[1:], os.getcwd()), indent=2))
