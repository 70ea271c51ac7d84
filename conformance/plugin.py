"""The pytest11 entry point `ascendc`, loaded by every pytest run where the suite is installed.

It registers the run options and nothing else: it imports only pytest and the standard library, so that an
unrelated pytest run pays almost nothing (benchmark key `plugin_overhead_ms`). Given `--ascendc-target`, it
loads the spec and the conformance runner (ascendc_conformance.runner.plugin) and hands it the spec and the
report writer; another `--ascendc-*` option without a target, or an empty target, is a usage error (it would
run no conformance test, and the session would pass).
"""
from __future__ import annotations

import pytest

from ascendc_conformance.runner import options


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_to_pytest(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    problem = options.plugin_problem(lambda option: config.getoption(option.plugin_dest))
    if problem is not None:   # a conformance option that would run nothing: CI must not go green on it
        raise pytest.UsageError(problem)
    if not config.getoption(options.TARGET.plugin_dest):
        return
    # Imported here, not at the top: only a conformance run pays for numpy, Hypothesis, the spec and reports.
    from ascendc_conformance.runner import plugin as runner
    from ascendc_conformance.spec.loader import load_spec

    if hasattr(config, "workerinput"):   # an xdist worker: its controlling process alone writes the reports
        runner.activate(config, reporter=None, spec=load_spec())
    else:
        from ascendc_conformance import reports
        runner.activate(config, reporter=reports, spec=load_spec())
