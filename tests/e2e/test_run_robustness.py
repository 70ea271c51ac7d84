"""A run owns its report directory and ends well whatever happens to it (issue 28, items 3, 5, 6, 7): a second run
into a directory in use is refused naming the holder; SIGINT ends a run with 130 after writing what it has; a
directory a killed run left with a cut line takes a new run and `report DIR` reads it (exit 0); a target whose
restarts hang costs a quick run seconds, not a timeout per case; a target's ANSI and HTML text is inert on the
terminal and in every report."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from ascendc_conformance.format.exits import ExitCode
from ascendc_conformance.runner.report_lock import LOCK_FILE
from tests.fixtures.targets.py_fakes import HostileText
from tests.helpers.processes import left_running, recorded

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fixtures" / "targets"
SELECTION = ["--product", "atlas-a2", "--api", "DataCopy", "--profile", "quick", "--seed", "1"]
COMMAND = [sys.executable, "-m", "ascendc_conformance"]


def cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def exec_target(script: str, *args: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(FAKES / script), *args])


def records(report: Path) -> list[dict]:
    """Every line of results.jsonl, each a whole JSON record (json.loads fails on a cut one)."""
    return [json.loads(line) for line in (report / "results.jsonl").read_text().splitlines()]


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.1)


def test_a_second_run_is_refused_naming_the_holder_and_sigint_ends_the_first_with_130(tmp_path: Path) -> None:
    report = tmp_path / "report"
    slow = exec_target("fake_echo.py", "--validates", "--delay", "0.02")
    first = subprocess.Popen([*COMMAND, "run", "--target", slow, *SELECTION, "--report", str(report)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             # SIGINT as a terminal sends it, whatever the test runner's own disposition of it
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(lambda: (report / "results.jsonl").is_file() and len(records(report)) > 5, 120,
                 "the first run records tests")
        second = cli("run", "--target", "reference", *SELECTION, "--report", str(report))
        assert second.returncode == ExitCode.USAGE and second.stdout == ""
        assert second.stderr.startswith(f"ascendc-conformance: error: --report: {report} is the report directory "
                                        f"of another run, which is still running (pid {first.pid} on ")
        # the holder's command, its interpreter by name (python, python3: whichever ran it)
        assert " -m ascendc_conformance run --target 'exec:" in second.stderr and second.stderr.count("\n") == 1
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=120)
    finally:
        first.kill()
    assert first.returncode == ExitCode.INTERRUPTED, out[-3000:] + err[-3000:]
    written = records(report)   # every line whole
    tests = [r for r in written if r["record"] == "test"]
    assert written[0]["record"] == "run" and tests and written[-1] == {**written[-1], "record": "end",
                                                                        "exit_status": ExitCode.INTERRUPTED}
    assert (report / "report.md").is_file() and "Traceback" not in out + err
    document = json.loads((report / "report.json").read_text())
    assert document["run"]["exit_status"] == ExitCode.INTERRUPTED and not document["certification"]["is_certification"]
    assert len(document["tests"]) == len(tests)
    assert (report / LOCK_FILE).read_text() == ""   # released: the next run may take the directory
    assert cli("run", "--target", "reference", *SELECTION, "-k", "smoke", "--report", str(report)).returncode == 0


def test_a_run_into_a_directory_a_killed_run_left_then_report(tmp_path: Path) -> None:
    """The killed run's last line is cut (tests/data/reports/killed); the next run's records start on a fresh
    line, and `report DIR` reports that run, noting the cut line and the earlier run."""
    report = tmp_path / "report"
    shutil.copytree(ROOT / "tests/data/reports/killed", report)
    done = cli("run", "--target", "reference", *SELECTION, "-k", "smoke", "--report", str(report))
    assert done.returncode == 0, done.stdout[-3000:]
    lines = (report / "results.jsonl").read_text().splitlines()
    assert lines[3].endswith('"test_id": "te') and json.loads(lines[4])["record"] == "run"
    again = cli("report", str(report))
    assert again.returncode == 0, again.stderr
    assert f"{report / 'results.jsonl'}:4: an unfinished record" in again.stderr
    assert "holds 2 runs (the report directory was reused); reporting the last one" in again.stderr
    document = json.loads((report / "report.json").read_text())
    assert document["run"]["profile"] == "quick" and document["run"]["exit_status"] == 0


def test_a_target_whose_restarts_hang_finishes_a_quick_run_in_bounded_time(tmp_path: Path) -> None:
    """It crashes on its first case and every restart hangs before its hello: three restarts time out (1 s each),
    then every remaining case of the run is answered at once. Before, each case waited 30 s for a hello."""
    target = exec_target("fake_restart_hang.py", "--state", str(tmp_path / "started"))
    started = time.monotonic()
    done = cli("run", "--target", target, *SELECTION, "--timeout", "1", "--report", str(tmp_path / "report"),
               timeout=300)
    elapsed = time.monotonic() - started
    assert done.returncode == ExitCode.FAILED, done.stdout[-3000:]
    assert elapsed < 120, f"{elapsed:.0f} s"
    tests = [r for r in records(tmp_path / "report") if r["record"] == "test"]
    given_up = [t for t in tests if "the target failed to start 3 times in a row" in t["message"]]
    assert len(tests) > 300 and len(given_up) > 300 and {t["verdict"] for t in given_up} == {"timeout"}


def test_the_timeout_bounds_the_first_hello_of_a_run(tmp_path: Path) -> None:
    target = exec_target("fake_restart_hang.py", "--state", str(tmp_path / "s"), "--hang-first")
    started = time.monotonic()
    done = cli("run", "--target", target, *SELECTION, "--timeout", "1", timeout=60)
    assert done.returncode == ExitCode.USAGE and "failed its hello: no answer within 1 s" in done.stderr
    assert time.monotonic() - started < 20


def test_a_refused_plugin_run_leaves_no_process_of_its_target(tmp_path: Path) -> None:
    """The plugin refuses a report directory that is a file after the target started: the target is stopped,
    with the detached grandchild it left holding its pipes (before, both outlived the pytest run)."""
    pids, report = tmp_path / "pids", tmp_path / "a-file"
    report.write_text("")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           f"--ascendc-target={exec_target('fake_detached.py', '--pids', str(pids))}",
                           f"--ascendc-report={report}"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 4 and f"--ascendc-report: {report} is a file" in done.stderr, done.stderr
    assert recorded(pids) and not left_running(recorded(pids))


TERMINAL_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # what a terminal would obey (tab and newline aside)


def outside_code(markdown: str) -> str:
    """report.md without its fenced blocks and code spans, where text is literal whatever it holds."""
    fences = re.compile(r"^(`{3,})\n.*?\n\1$", re.S | re.M)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", fences.sub("", markdown))


def test_a_targets_ansi_and_html_text_is_inert_on_the_terminal_and_in_every_report(tmp_path: Path) -> None:
    target = "python:tests.fixtures.targets.py_fakes:HostileText"
    report = tmp_path / "report"
    done = cli("run", "--target", target, *SELECTION, "-k", "test_legal and half", "--report", str(report))
    assert done.returncode == ExitCode.FAILED, done.stdout[-3000:]
    assert "FALSE-REJECT" in done.stdout and "\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m" in done.stdout
    assert not TERMINAL_ACTIVE.search(done.stdout + done.stderr)
    # a plain pytest run prints each failure's text (its longrepr) instead
    plain = subprocess.run([sys.executable, "-m", "pytest", f"--ascendc-target={target}", "--ascendc-product=atlas-a2",
                            "--ascendc-api=DataCopy", "--ascendc-profile=quick", "--hypothesis-seed=1", "-k",
                            "test_legal and VECIN and half", "-p", "no:cacheprovider"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                           timeout=600)
    assert plain.returncode == 1 and "<script>alert(1)</script>" in plain.stdout, plain.stdout[-3000:]
    assert not TERMINAL_ACTIVE.search(plain.stdout + plain.stderr)

    files = {name: (report / name).read_text(encoding="utf-8") for name in
             ("report.md", "junit.xml", "report.html", "report.json", "results.jsonl")}
    for name, text in files.items():
        assert not TERMINAL_ACTIVE.search(text.replace("\r", "")), name
    markdown = files["report.md"]
    prose = outside_code(markdown)
    # causes are named by their diagnosed bug class now, not by the target's words: its text shows in the failures'
    # fenced blocks (below), and nothing of it is live in the prose (tests/unit/test_inert_text.py escapes prose)
    for html in ("<script", "<img", "</table>"):
        assert html not in prose
    assert HostileText.TEXT.replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\x9b", "\\x9b").replace(
        "\r", "\\x0d") in markdown   # verbatim in the failure's fenced block
    table = [line for line in markdown.split("## Failures by cause")[1].split("##")[0].splitlines() if line.startswith("|")]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
    assert len(table) >= 3 and cells == {7}, table   # the target's pipes split no cell
    junit = ET.fromstring(files["junit.xml"].encode())
    texts = [element.text for element in junit.iter("failure")]
    assert texts and all("<script>alert(1)</script>" in text for text in texts)   # text, not markup
    assert "<script>" not in files["junit.xml"] and "<script>" not in files["report.html"]
