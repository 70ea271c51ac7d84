"""Defaults every layer shares, each written once (standard library only: the lazy plugin reads them)."""

CASE_TIMEOUT_S = 10.0
"""How long a target may take over one case before the verdict is `timeout` (and an exec target restarts), and an
exec target over each start (its hello)."""

SHRINK_SECONDS = 10.0
"""How long Hypothesis may shrink one failing test before its smallest failing case so far is reported."""

RUN_SHRINK_SECONDS = 30.0
"""How long a run (each process of it) may spend shrinking all its failing tests together; past it, failures
are reported as drawn. With SHRINK_SECONDS it keeps a failing run close to the time of a passing one."""

PROFILES = {"quick": 3, "ci": 10, "full": 100}
"""Hypothesis examples per conformance test, per profile; only `full` may call itself a certification run."""

DEFAULT_PROFILE = "ci"

RESENDS = 2
"""How many more times a case the target failed is sent before the failure is reported (in a profile run and a
pack run alike): an answer that changes makes the verdict `flaky` (runner.flakes)."""

RESENDS_AFTER_LOSS = 1
"""How many more times a case the target timed out or crashed on is sent: each try costs a timeout or a restart."""

SMOKE_CASES = 2
"""Cases of one smoke test (never shrunk): the simplest one, and one drawn like every other case."""

CERTIFICATION_PROFILE = "full"
"""The one profile whose conforming run may be called a certification run."""

TARGET_TEXT_CHARS = 1000
"""How much of any text a target sends (a rejection's message, a rule name, an error, its stderr tail) the
suite stores in results.jsonl and the reports and prints; the rest is cut, saying how much (bounded.clip)."""

REPLAY_TEXT_CHARS = 16 * 1024
"""How much of a target's text a replay file keeps: its message once (one replay file per cause of a test), up to
this cap."""
