"""core.cores: the cores other processes leave free, and the threads chosen from them."""

import pytest

from core import cores


def test_other_load_is_the_machines_busy_time_less_this_process():
    # 2 cores for 1 s: 2.0 CPU seconds in all, 1.8 busy, 0.8 of them this process's
    assert cores.other_load(1.8, 2.0, 0.8, 2) == pytest.approx(1.0)
    assert cores.other_load(0.5, 2.0, 0.5, 2) == 0.0  # only this process
    assert cores.other_load(0.4, 2.0, 0.5, 2) == 0.0  # tick rounding never goes negative
    assert cores.other_load(1.0, 0.0, 0.0, 2) == 0.0


@pytest.mark.parametrize(
    "free, most, want",
    [(None, 2, 2), (2.0, 2, 2), (1.6, 2, 2), (1.4, 2, 1), (1.0, 2, 1), (0.0, 2, 1), (3.9, 2, 2)],
)
def test_threads_follow_the_free_cores_between_one_and_the_most(free, most, want):
    assert cores.threads_for_free(free, most) == want


def test_free_cores_from_two_samples(monkeypatch):
    machine = iter([(100.0, 400.0), (102.0, 402.0), (102.1, 402.1), (103.9, 404.1)])
    own = iter([10.0, 10.5, 10.5, 11.0])
    monkeypatch.setattr(cores, "machine_cpu_seconds", lambda: next(machine))
    monkeypatch.setattr(cores.time, "process_time", lambda: next(own))
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 2)
    free = cores.FreeCores()
    # 1 s on 2 cores, all of it busy, 0.5 s this process's: others 1.5 cores, 0.5 left free
    assert free.update() == pytest.approx(0.5)
    assert free.update() is None  # 0.05 s: too short to say; the sample before is kept
    # from (102.0, 402.0, 10.5): 1.05 s, 1.9 busy, 0.5 own -> others 1.333 cores
    assert free.update() == pytest.approx(2 - 1.4 / 1.05)


def test_nothing_known_without_proc_stat(monkeypatch):
    monkeypatch.setattr(cores, "machine_cpu_seconds", lambda: None)
    assert cores.FreeCores().update() is None


def test_a_steady_choice_changes_only_when_the_new_value_lasts():
    s = cores.Steady(2, runs=3)
    # a load hovering near a threshold: 1, 2, 1, 2, ... never changes it
    assert [s.propose(v) for v in (1, 2, 1, 1, 2)] == [2] * 5
    assert [s.propose(1) for _ in range(3)] == [2, 2, 1]  # three in a row: it changes
    assert s.propose(2) == 1 and s.propose(3) == 1 and s.propose(2) == 1  # a new run each time
    assert [s.propose(3) for _ in range(3)] == [1, 1, 3]
    with pytest.raises(ValueError, match="runs must be >= 1"):
        cores.Steady(1, runs=0)
