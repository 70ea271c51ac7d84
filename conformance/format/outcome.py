"""The verdict a case or a test earns, and why a test did not run: the one list of each, with what follows.

`Outcome` members are strings (their JSON spelling), so a record read back compares equal to its member;
everything a layer needs to know about an outcome (how bad it is, whether it fails the run, its JUnit element,
its heat-map symbol) is a property here, never a list kept elsewhere.
"""
from __future__ import annotations

from ascendc_conformance.format.words import Word


class Outcome(Word):
    """A verdict, listed worst first (a test reports the worst of its cases; a merge keeps the worse)."""

    CRASHED = "crashed"
    TIMEOUT = "timeout"
    ERROR = "error"
    FAIL = "fail"
    MISSED_REJECT = "missed-reject"
    WRONG_RULE = "wrong-rule"   # rejected an illegal call naming only other rules (--strict-rules)
    FALSE_REJECT = "false-reject"
    FLAKY = "flaky"     # a failing answer that changed when the case was sent again (runner.flakes)
    KNOWN = "known"     # a test failing only with causes a baseline holds (--baseline); never a case's outcome
    WAIVED = "waived"
    DISPUTED = "disputed"
    NOT_SUPPORTED = "not-supported"
    PASS = "pass"
    SKIPPED = "skipped"   # a test that judged no case (see SkipReason); never a case's outcome

    @property
    def severity(self) -> int:
        """Lower is worse."""
        return _ORDER.index(self)

    @property
    def is_failure(self) -> bool:
        """Whether this verdict fails the run (known, disputed, waived, not-supported and skipped never do; flaky
        does unless the run allows it: --allow-flaky)."""
        return self in _FAILURES

    @property
    def junit_tag(self) -> str | None:
        """The JUnit child element of the test case: failure, error, skipped, or none for a pass."""
        return _JUNIT_TAG.get(self)

    def tally(self, allow_flaky: bool = False) -> str:
        """The word a test of this verdict is counted under, in the verdict line and in pytest's own summary
        (runner.plugin makes pytest count it so): "failed" for every verdict that fails the run (a flaky test
        does not under --allow-flaky: `allow_flaky`)."""
        if self is Outcome.FLAKY and allow_flaky:
            return "flaky"
        return "failed" if self.is_failure else _TALLY[self]

    @property
    def symbol(self) -> str:
        """The heat-map cell symbol."""
        return _SYMBOL[self]

    @classmethod
    def parse(cls, text: object, what: str | None = "verdict") -> Outcome:
        return super().parse(text, what)


_ORDER = tuple(Outcome)
_FAILURES = frozenset({Outcome.CRASHED, Outcome.TIMEOUT, Outcome.ERROR, Outcome.FAIL, Outcome.MISSED_REJECT,
                       Outcome.WRONG_RULE, Outcome.FALSE_REJECT, Outcome.FLAKY})
_JUNIT_TAG = {Outcome.FAIL: "failure", Outcome.MISSED_REJECT: "failure", Outcome.WRONG_RULE: "failure",
              Outcome.FALSE_REJECT: "failure", Outcome.FLAKY: "failure",
              Outcome.ERROR: "error", Outcome.TIMEOUT: "error", Outcome.CRASHED: "error",
              Outcome.SKIPPED: "skipped", Outcome.NOT_SUPPORTED: "skipped", Outcome.WAIVED: "skipped",
              Outcome.KNOWN: "skipped"}
_SYMBOL = {Outcome.PASS: "ok", Outcome.FAIL: "FAIL", Outcome.MISSED_REJECT: "MISS", Outcome.WRONG_RULE: "RULE",
           Outcome.FALSE_REJECT: "FREJ", Outcome.FLAKY: "FLAKY", Outcome.KNOWN: "K",
           Outcome.ERROR: "ERR", Outcome.TIMEOUT: "TIME", Outcome.CRASHED: "CRASH", Outcome.WAIVED: "W",
           Outcome.DISPUTED: "D", Outcome.NOT_SUPPORTED: "n/s", Outcome.SKIPPED: "skip"}
_TALLY = {Outcome.PASS: "passed", Outcome.DISPUTED: "disputed", Outcome.WAIVED: "waived", Outcome.KNOWN: "known",
          Outcome.NOT_SUPPORTED: "not supported", Outcome.SKIPPED: "skipped"}
FAILURES = _FAILURES


class SkipReason(Word):
    """Why a conformance test judged no case; the record's `skipped_reason` adds the details in words."""

    NOT_SUPPORTED = "not-supported"     # the target's hello excludes the product or API
    NOT_VALIDATING = "not-validating"   # an illegal case for a target that does not validate
    UNREACHABLE = "unreachable"         # a legal bound no path can reach under the product's capacities
    NEEDS_EXTENSION = "needs-extension"  # the cases need a case-format extension the target's hello lacks
    TYPE_ENFORCED = "type-enforced"      # the fault's value lies outside the field's C type, and the target is typed
    NOT_DECLARED = "not-declared"        # a harness rule's check the target's hello does not declare
    DECLARED_LIMIT = "declared-limit"    # a bound beyond a maximum the target declares (its own test checks that)
    NOT_VALIDATED = "not-validated"      # a fault of a rule the target's hello does not declare it validates (its kind)
    SUITE_ERROR = "suite-error"          # the suite could not draw or judge the test (Unsatisfiable, a suite bug):
                                         # its own error (exit 3), never the target's verdict

    @property
    def verdict(self) -> Outcome:
        """The verdict of a test skipped for this reason."""
        return Outcome.NOT_SUPPORTED if self is SkipReason.NOT_SUPPORTED else Outcome.SKIPPED


class Shown(Word):
    """Whether a rejection of an illegal call (or of one past a declared limit) was shown to be for the rule it
    breaks (docs/evidence.md): counted per test (results.jsonl `shown`) for the rule table, which counts a rule
    as covered only on a shown rejection or a missed one."""

    NAMED = "named"                                        # it named a rule the call breaks (the spec checks the claim)
    TWIN = "twin"                                          # its twin (the rule put right) was accepted
    NO_TWIN = "no twin"                                    # rejected, but the call has no twin the target was sent
    MASKED_FALSE_REJECT = "masked by a false rejection"    # the twin was refused too
    MASKED_WRONG_COPY = "masked by a wrong copy"           # the twin was accepted with the wrong bytes
    MASKED_NO_RESULT = "masked by no result"               # the twin's answer was no result (a timeout, a crash, ...)

    @property
    def shown(self) -> bool:
        """The rejection is evidence that the target checks the rule."""
        return self in (Shown.NAMED, Shown.TWIN)
