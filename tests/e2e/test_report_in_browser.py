"""report.html in a real browser (issue 29, item 7): headless Chromium (Debian's `chromium` package) driven by
Playwright for Python opens the HTML report of a run against a buggy target whose answers hold markup, and checks
that the page renders (its sections, the verdict, the failures and their diffs), that every in-page link leads to
an element, that nothing is wider than a 1400-px window or than its container, that the target's `<script>` and
`onerror` run nothing, and that the page loads nothing but itself. A second test shows each check failing on a
page that breaks it, so that none can pass vacuously.

Without Chromium or Playwright the tests are skipped, saying what is missing; where the environment variable CI is
set they fail instead (.ci/run installs both)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from markupsafe import escape

from tests.fixtures.buggy.targets import MarkupInAnswers

ROOT = Path(__file__).resolve().parents[2]
TARGET = "python:tests.fixtures.buggy.targets:MarkupAndDstGapIgnored"
WIDTH = 1400
# Chromium without a sandbox (a container), a GPU, a first-run dialog or any traffic of its own.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
SECTIONS = ("certification", "heatmap", "failures", "rules", "bits", "disputed", "waivers", "totals", "run")

# Every <a href> of the page that is not "#id" of an element of the page (the report links nowhere else).
BROKEN_LINKS = """() => [...document.querySelectorAll('a[href]')]
    .map(a => a.getAttribute('href'))
    .filter(href => !href.startsWith('#') || document.getElementById(decodeURIComponent(href.slice(1))) === null)"""

# What is wider than it may be, at most 20: the page wider than the window; an element reaching out of its parent's
# box to the left or right, unless the parent clips or scrolls it (overflow-x other than visible); an element whose
# content is wider than its own box (scrollWidth > clientWidth), which also catches a scroll box hiding part of
# its content. Half a pixel of rounding is allowed.
OVERFLOWS = """() => {
    const problems = [];
    const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
        (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '');
    const page = document.documentElement;
    if (page.scrollWidth > window.innerWidth) problems.push(`the page is ${page.scrollWidth} px wide`);
    for (const el of document.body.querySelectorAll('*')) {
        const own = el.getBoundingClientRect();
        const parent = el.parentElement;
        if (own.width > 0 && getComputedStyle(parent).overflowX === 'visible') {
            const box = parent.getBoundingClientRect();
            if (own.right > box.right + 0.5 || own.left < box.left - 0.5)
                problems.push(`${name(el)} spans ${Math.round(own.left)}-${Math.round(own.right)} px, outside ` +
                              `${name(parent)} at ${Math.round(box.left)}-${Math.round(box.right)} px`);
        }
        if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 0.5)
            problems.push(`${name(el)} holds ${el.scrollWidth} px of content in ${el.clientWidth} px`);
        if (problems.length >= 20) break;
    }
    return problems;
}"""


def require_chromium() -> str:
    """Chromium's path, once Playwright for Python imports; else a skip naming what is missing, or a failure where
    the environment variable CI is set (there the test must run: .ci/run installs both)."""
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("Playwright for Python (pip install playwright, or the test extra: pip install '.[test]')")
    executable = shutil.which("chromium")
    if executable is None:
        missing.append("Chromium (Debian: apt-get install chromium)")
    if missing:
        reason = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, where it must run (.ci/run installs both)", pytrace=False)
        pytest.skip(reason)
    return executable


@pytest.fixture(scope="module")
def chromium() -> Iterator:
    """Headless Chromium under Playwright (see require_chromium)."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Visit:
    """One page opened at 1400 x 900 with every <details> open (all content laid out), and what it did: the
    dialogs it opened and the requests it made."""

    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url, wait_until="networkidle")
        self.page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def ran_script(self) -> bool:
        return self.page.evaluate("window.__pwned") is not None or bool(self.dialogs)

    def close(self) -> None:
        self.page.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """report.html of a quick run of DataCopy on atlas-a2 against a target that rejects the count form with
    markup in its words and ignores dstGap: failures of two causes, diffs, a heat map with failing cells."""
    out = tmp_path_factory.mktemp("report")
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", TARGET, "--product",
                           "atlas-a2", "--api", "DataCopy", "--profile", "quick", "--seed", "1", "--shrink-seconds",
                           "1", "--report", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    return out / "report.html"


def test_the_report_renders_links_fits_and_runs_no_target_script(chromium, report: Path) -> None:
    visit = Visit(chromium, report)
    page = visit.page
    try:
        # It renders: every section with its heading, the verdict, both causes, failures with their diffs.
        for section in SECTIONS:
            assert page.locator(f"section#{section} > h2").is_visible(), section
        assert page.locator("#outcome .outcome").inner_text().lower() == "does not conform"
        causes = page.locator("#failure-groups tr").all_inner_texts()[1:]
        assert len(causes) == 2, causes
        # each group named by its diagnosed bug class: the markup target refuses the count form, and ignores dstGap
        assert any("false-reject" in cause and "count refused above 3" in cause for cause in causes), causes
        assert any("dstGap ignored (read as 0)" in cause for cause in causes), causes
        assert page.locator("details.failure").count() > 100
        assert page.locator("details.failure pre.diff").count() > 50
        heat = page.locator("table.heat[data-product=atlas-a2]").inner_text()
        assert "FAIL" in heat and "FREJ" in heat

        # Every in-page link leads to an element; there are links to follow (the index, the causes' cases).
        assert page.locator("a[href^='#']").count() > 100
        assert page.evaluate(BROKEN_LINKS) == []

        # Nothing is wider than the window or than its container.
        assert page.evaluate(OVERFLOWS) == []

        # The target's markup is shown as text and runs nothing; the page has no script and loads nothing else.
        text = page.locator("body").text_content()
        assert MarkupInAnswers.MARKUP in text and MarkupInAnswers.RULE in text
        assert "buggy-MarkupAndDstGapIgnored" in page.locator("#run").text_content()   # its hello, name in markup
        assert page.evaluate("document.scripts.length") == 0
        assert not visit.ran_script(), (page.evaluate("window.__pwned"), visit.dialogs)
        assert visit.requests == [visit.url]
    finally:
        visit.close()


def test_the_checks_catch_what_they_check(chromium, tmp_path: Path) -> None:
    """A page with a link to nowhere, a cell wider than the window and the target's markup unescaped fails each
    check: the checks above can fail."""
    page_file = tmp_path / "spoiled.html"
    page_file.write_text(
        "<!DOCTYPE html><html><body><a href='#nowhere'>to nowhere</a><a href='#here'>here</a><p id='here'>x</p>"
        f"<table><tr><td><code style='white-space: nowrap'>{'x' * 400}</code></td></tr></table>"
        f"<p>{MarkupInAnswers.MARKUP}</p></body></html>", encoding="utf-8")
    visit = Visit(chromium, page_file)
    try:
        assert visit.page.evaluate(BROKEN_LINKS) == ["#nowhere"]
        problems = visit.page.evaluate(OVERFLOWS)
        assert any(problem.startswith("the page is") for problem in problems), problems
        assert any(problem.startswith("table spans") for problem in problems), problems
        assert visit.ran_script() and visit.dialogs == ["pwned"]
        assert len(visit.requests) > 1   # the <img src=x> was fetched
    finally:
        visit.close()
    # The same markup escaped as the report escapes it (Jinja2's autoescape, markupsafe) runs nothing.
    page_file.write_text(f"<!DOCTYPE html><p>{escape(MarkupInAnswers.MARKUP)}</p>", encoding="utf-8")
    visit = Visit(chromium, page_file)
    try:
        assert not visit.ran_script() and visit.requests == [visit.url]
    finally:
        visit.close()


def test_without_chromium_it_skips_saying_so_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs .*Chromium \(Debian: apt-get install chromium\)"):
        require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set, where it must run"):
        require_chromium()
