"""Failures grouped by cause: one group per hypothesis that explains them, across tests, routes, dtypes and
verdicts; the failures no hypothesis explains keep the grouping key they came with.

`group_failures` is a pure function of the failures (each a stable key, the ids of the hypotheses that
reproduce it, judge.diagnosis, and the key it falls back to) and of the hypotheses' rank:

1. Greedy set cover: the hypothesis that explains the most failures not yet grouped forms the next group, of
   all the ungrouped failures it explains (ties: the simplest by rank); repeated until every explained failure
   is in a group. A single bug's failures are then one group, whatever else explains some of them alike
   (a field kept in 7 bits explains its 255s and its 128s; read as 0 only the 128s).
2. A group names the simplest hypothesis (lowest rank) among all that explain every one of its failures, and
   lists the others: with only failures at 4096, a field kept in 12 bits and one read as 0 both fit, and the
   narrower is named.
3. The failures no hypothesis explains are grouped by their fallback key (today's diff-class cause).

Groups come in order of size (ties: by the named hypothesis' rank), the fallback groups after them.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Sequence


@dataclass(frozen=True)
class Failure:
    """One failing case (or test) to group: `key` identifies it, `hypotheses` are the ids that reproduce it
    (judge.diagnosis; empty for none), `fallback` is the key it is grouped by when none does."""

    key: Hashable
    hypotheses: frozenset[str]
    fallback: Hashable = None


@dataclass(frozen=True)
class CauseGroup:
    """One cause: the failures (`members`, by key, in the order given) that the `named` hypothesis explains, with
    the `alternatives` that explain every one of them too (simplest first); or, with `named` None, the failures
    no hypothesis explains that share the `fallback` key."""

    members: tuple[Hashable, ...]
    named: str | None = None
    alternatives: tuple[str, ...] = ()
    fallback: Hashable = None


def group_failures(failures: Iterable[Failure], rank: Callable[[str], Any]) -> tuple[CauseGroup, ...]:
    """Every failure in exactly one group (see the module's doc); `rank(id)` orders hypotheses, simplest lowest,
    and must be a total order (reference.hypotheses.Hypothesis.rank is). ValueError for a key given twice."""
    failures = list(failures)
    keys = [failure.key for failure in failures]
    if len(set(keys)) != len(keys):
        repeated = next(key for key, count in Counter(keys).items() if count > 1)
        raise ValueError(f"failure key {repeated!r} given more than once: each failure needs a key of its own")
    groups = _explained([f for f in failures if f.hypotheses], rank)
    groups.sort(key=lambda group: (-len(group.members), rank(str(group.named))))   # each explained group names one
    return tuple(groups) + _by_fallback([f for f in failures if not f.hypotheses])


def _explained(failures: Sequence[Failure], rank: Callable[[str], Any]) -> list[CauseGroup]:
    groups, left = [], list(failures)
    while left:
        counts = Counter(hypothesis for failure in left for hypothesis in failure.hypotheses)
        best = min(counts, key=lambda hypothesis: (-counts[hypothesis], rank(hypothesis)))
        members = [failure for failure in left if best in failure.hypotheses]
        common = frozenset.intersection(*(failure.hypotheses for failure in members))
        named, *others = sorted(common, key=rank)
        groups.append(CauseGroup(tuple(failure.key for failure in members), named, tuple(others)))
        left = [failure for failure in left if best not in failure.hypotheses]
    return groups


def _by_fallback(failures: Sequence[Failure]) -> tuple[CauseGroup, ...]:
    grouped: dict[Hashable, list[Hashable]] = {}
    for failure in failures:
        grouped.setdefault(failure.fallback, []).append(failure.key)
    return tuple(CauseGroup(tuple(members), fallback=fallback) for fallback, members in grouped.items())
