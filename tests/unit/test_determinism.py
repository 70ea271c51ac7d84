"""strategies.determinism: a seed draws the same cases whatever local modules the process imported (a `python:`
target's, the user's conftest, an editable install of the suite), which Hypothesis would otherwise mix into its
draws. Each draw runs in a fresh interpreter: the constants Hypothesis finds are a property of the process."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOCAL_MODULE = "LIMITS = [" + ", ".join(str(value) for value in [*range(1, 600), *range(3, 70000, 997)]) + "]\n"
"""A local module as a target's or a conftest's: integer constants in the ranges the suite draws from."""

INTEGERS = """
from hypothesis import Phase, given, seed, settings, strategies as st
drawn = []

@seed(5)
@settings(max_examples=400, database=None, phases=[Phase.generate], derandomize=False)
@given(st.integers(0, 70000))
def collect(value):
    drawn.append(value)

collect()
print(json.dumps(drawn))
"""

SUITE_CASES = """
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.legal import legal_cases, select_paths
from ascendc_conformance.strategies.sample import draw
spec = load_spec()
print(json.dumps(draw(legal_cases(spec, select_paths(spec, ["atlas-a2"], ["DataCopy"])), 60, seed=3,
                      keep=lambda case: case.digest())))
"""


def drawn(tmp_path: Path, body: str, *, local: bool, blind: bool) -> list:
    """What `body` prints in a fresh interpreter, with the local module imported first or not, and
    without_local_constants() called first or not."""
    (tmp_path / "target_module.py").write_text(LOCAL_MODULE)
    prologue = ["import json, sys", f"sys.path.insert(0, {str(tmp_path)!r})"]
    if local:
        prologue.append("import target_module")
    if blind:
        prologue += ["from ascendc_conformance.strategies.determinism import without_local_constants",
                     "without_local_constants()"]
    done = subprocess.run([sys.executable, "-c", "\n".join(prologue) + "\n" + body], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_hypothesis_mixes_a_local_modules_constants_into_its_draws(tmp_path: Path) -> None:
    """The control: without the suite's fix, importing a module of constants changes what a seed draws (should a
    Hypothesis release stop doing so, this fails and strategies/determinism.py can go)."""
    plain, mixed = drawn(tmp_path, INTEGERS, local=False, blind=False), drawn(tmp_path, INTEGERS, local=True, blind=False)
    assert plain != mixed
    assert set(mixed) - set(plain) & set(range(3, 70000, 997))


def test_without_local_constants_a_seed_draws_the_same_whatever_was_imported(tmp_path: Path) -> None:
    assert drawn(tmp_path, INTEGERS, local=True, blind=True) == drawn(tmp_path, INTEGERS, local=False, blind=True)


def test_the_suites_draws_are_blind_to_local_constants(tmp_path: Path) -> None:
    """strategies.sample.draw (pack build, `sample`) applies the fix itself: the same legal cases for the same
    seed with a target's module imported or not (a run applies it with its profile: runner.plugin)."""
    cases = drawn(tmp_path, SUITE_CASES, local=True, blind=False)
    assert len(cases) == 60 and cases == drawn(tmp_path, SUITE_CASES, local=False, blind=False)
