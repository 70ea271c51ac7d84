"""judge.grouping: failures grouped by the hypothesis that explains them. Properties, over failures Hypothesis
draws: every failure is in exactly one group; a group's named hypothesis explains every one of its failures and
is the simplest that does (its alternatives explain them all too); the failures no hypothesis explains keep their
fallback key; the groups do not depend on the order of the failures; one hypothesis planted in every failure
collapses them into one group."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ascendc_conformance.judge.grouping import Failure, group_failures

HYPOTHESES = ("a", "b", "c", "d", "e", "f")   # ranked alphabetically: "a" is the simplest


def rank(name: str) -> str:
    return name


@st.composite
def failures(draw, planted: str | None = None) -> list[Failure]:
    count = draw(st.integers(0, 25))
    found = []
    for key in range(count):
        explained = draw(st.frozensets(st.sampled_from(HYPOTHESES), max_size=4))
        found.append(Failure(key, explained | ({planted} if planted else frozenset()), draw(st.sampled_from("xyz"))))
    return found


@given(failures())
def test_every_failure_is_in_exactly_one_group(failed: list[Failure]) -> None:
    members = [key for group in group_failures(failed, rank) for key in group.members]
    assert sorted(members) == sorted(f.key for f in failed)


@given(failures())
def test_a_group_names_the_simplest_hypothesis_explaining_all_its_failures(failed: list[Failure]) -> None:
    by_key = {f.key: f for f in failed}
    for group in group_failures(failed, rank):
        explained = [by_key[key].hypotheses for key in group.members]
        if group.named is None:
            assert all(not hypotheses for hypotheses in explained)
            assert {by_key[key].fallback for key in group.members} == {group.fallback}
            continue
        common = frozenset.intersection(*explained)
        assert group.named in common and set(group.alternatives) == common - {group.named}
        assert group.named == min(common, key=rank) and list(group.alternatives) == sorted(group.alternatives, key=rank)


@given(failures())
def test_the_hypothesis_explaining_the_most_failures_forms_the_first_group(failed: list[Failure]) -> None:
    groups = [g for g in group_failures(failed, rank) if g.named is not None]
    if groups:
        most = max(sum(name in f.hypotheses for f in failed) for name in HYPOTHESES)
        assert len(groups[0].members) == most


@given(failures(), st.randoms(use_true_random=False))
def test_the_groups_do_not_depend_on_the_order_of_the_failures(failed: list[Failure], random) -> None:
    shuffled = list(failed)
    random.shuffle(shuffled)

    def formed(given: list[Failure]) -> set:
        return {(g.named, g.alternatives, g.fallback, frozenset(g.members)) for g in group_failures(given, rank)}
    assert formed(shuffled) == formed(failed)


@given(failures(planted="f"))
def test_one_hypothesis_explaining_every_failure_makes_one_group(failed: list[Failure]) -> None:
    groups = group_failures(failed, rank)
    assert len(groups) == (1 if failed else 0)
    if failed:
        assert "f" in {groups[0].named, *groups[0].alternatives}


def test_a_narrower_hypothesis_explaining_alike_is_named_and_the_others_listed() -> None:
    failed = [Failure(1, frozenset({"kept-in-12", "read-as-0"})), Failure(2, frozenset({"kept-in-12", "read-as-0"}))]
    [group] = group_failures(failed, {"kept-in-12": 0, "read-as-0": 1}.__getitem__)
    assert (group.named, group.alternatives, group.members) == ("kept-in-12", ("read-as-0",), (1, 2))


def test_a_key_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="failure key 1 given more than once"):
        group_failures([Failure(1, frozenset()), Failure(1, frozenset({"a"}))], rank)
