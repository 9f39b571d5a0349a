"""How `ray_backend.session` starts Ray, with a stand-in for the ray module (no Ray needed): no
address means a new local instance, whatever RAY_ADDRESS says; an address joins that cluster;
an initialised Ray is used as it is."""

from __future__ import annotations

import pytest

from training.arena import ray_backend as rb


class FakeRay:
    def __init__(self, initialized=False):
        self.initialized = initialized
        self.calls: list[dict] = []
        self.shutdowns = 0

    def is_initialized(self):
        return self.initialized

    def init(self, **kw):
        self.calls.append(kw)

    def shutdown(self):
        self.shutdowns += 1


@pytest.fixture
def fake(monkeypatch):
    ray = FakeRay()
    monkeypatch.setattr(rb, "import_ray", lambda: ray)
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")  # a cluster the user did not ask for
    return ray


def test_no_address_starts_a_new_local_instance(fake):
    with rb.session(workers=3) as ray:
        assert ray is fake
    assert [(c["address"], c["num_cpus"]) for c in fake.calls] == [("local", 3)]
    assert fake.shutdowns == 1


def test_an_address_joins_that_cluster(fake):
    with rb.session(address="auto"):
        pass
    assert fake.calls[0]["address"] == "auto" and "num_cpus" not in fake.calls[0]


def test_an_initialised_ray_is_used_and_left_running(monkeypatch):
    ray = FakeRay(initialized=True)
    monkeypatch.setattr(rb, "import_ray", lambda: ray)
    with rb.session():
        pass
    assert ray.calls == [] and ray.shutdowns == 0
