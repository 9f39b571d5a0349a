import numpy as np
import pytest

from core import ActionSpace, Layout, StateFormatError, compute_returns
from core.rng import rng_below, rng_next, rng_seed
from core.serialize import from_bytes, to_bytes


def test_rng_is_deterministic_and_uniform_enough():
    a = np.zeros(4, dtype=np.int64)
    b = np.zeros(4, dtype=np.int64)
    rng_seed(a, 0, 7, 0, 0)
    rng_seed(b, 0, 7, 0, 0)
    xs = [rng_next(a, 0) for _ in range(100)]
    assert xs == [rng_next(b, 0) for _ in range(100)]
    assert all(0 <= x < 2**32 for x in xs)
    counts = np.bincount([rng_below(a, 0, 6) for _ in range(6000)], minlength=6)
    assert counts.min() > 850 and counts.max() < 1150
    c = np.zeros(4, dtype=np.int64)
    rng_seed(c, 0, 8, 0, 0)
    assert [rng_next(c, 0) for _ in range(5)] != xs[:5]


def test_layout_offsets_and_validation():
    lay = Layout("g", 3, [("a", (2,), 0, 5, False, ""), ("b", (2, 3), -1, 1, True, "")])
    assert lay.size == 8 and lay.offset("b") == 2
    s = np.zeros(8, dtype=np.int64)
    lay.validate(s)
    s[3] = 2
    with pytest.raises(StateFormatError, match="segment 'b'"):
        lay.validate(s)
    with pytest.raises(StateFormatError):
        lay.validate(np.zeros(7, dtype=np.int64))


def test_per_seat_segments_are_marked_and_a_bad_mark_refused():
    lay = Layout("g", 1, [("a", (4,), 0, 5, False, ""), ("b", (), 0, 1, False, "")], ("a",))
    assert lay.segments["a"].per_seat and not lay.segments["b"].per_seat
    for bad in ("b", "c"):  # a scalar has no seat axis; no such segment
        with pytest.raises(ValueError, match=f"per_seat names '{bad}'"):
            Layout("g", 1, [("a", (4,), 0, 5, False, ""), ("b", (), 0, 1, False, "")], (bad,))


def test_serialize_round_trip_and_refusals():
    lay = Layout("g", 1, [("a", (3,), 0, 9, False, "")])
    s = np.array([1, 2, 3], dtype=np.int64)
    data = to_bytes(lay, "abc", s)
    assert np.array_equal(from_bytes(lay, "abc", data), s)
    with pytest.raises(StateFormatError, match="rules data"):
        from_bytes(lay, "abd", data)
    with pytest.raises(StateFormatError, match="not a saved state"):
        from_bytes(lay, "abc", b"XXXX" + data[4:])
    with pytest.raises(StateFormatError, match="version"):
        from_bytes(Layout("g", 2, [("a", (3,), 0, 9, False, "")]), "abc", data)
    with pytest.raises(StateFormatError, match="for game"):
        from_bytes(Layout("h", 1, [("a", (3,), 0, 9, False, "")]), "abc", data)
    with pytest.raises(StateFormatError, match="bytes"):
        from_bytes(lay, "abc", data[:-8])


def test_action_space_codec():
    sp = ActionSpace("g", 1, [("x", (), ""), ("y", (3, 2), "")])
    assert sp.n == 7
    assert sp.encode("y", 2, 1) == 6
    assert sp.decode(6) == ("y", (2, 1))
    assert sp.decode(0) == ("x", ())


def test_returns_kinds():
    s = np.array([10, 12, 12])
    tb = np.array([[0], [1], [1]])
    assert list(compute_returns(s, tb, "win_loss", 10)) == [-1, 0, 0]
    tb2 = np.array([[0], [2], [1]])
    assert list(compute_returns(s, tb2, "win_loss", 10)) == [-1, 1, -1]
    assert list(compute_returns(s, tb, "rank", 10)) == [-1, 0.5, 0.5]
    assert np.allclose(compute_returns(s, tb, "margin", 10), [-0.2, 0, 0])
    with pytest.raises(ValueError, match="allowed"):
        compute_returns(s, tb, "bogus", 1)


def _plain_pick(mask, words):
    """The draw pick_legal promises, written out in Python: one rng_below over the number of
    non-zero entries, then the r-th of them in index order."""
    nz = np.flatnonzero(mask)
    if nz.size == 0:
        return -1
    return int(nz[rng_below(words, 0, nz.size)])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64])
@pytest.mark.parametrize("strided", [False, True])
def test_pick_legal_draws_the_plain_loops_index(dtype, strided):
    """8-entries-at-a-time scan (contiguous one-byte masks) and entry loop (others) both give
    the plain draw, for every length 0..40, sparse and dense masks, and bytes other than 0/1."""
    from core.agents import pick_legal

    gen = np.random.default_rng(7)
    for length in range(41):
        for density in (0.05, 0.3, 1.0):
            raw = (gen.random(2 * length) < density).astype(np.int64)
            if dtype != np.bool_:
                raw *= gen.integers(1, 4, size=raw.size)  # any non-zero byte counts as legal
            full = raw.astype(dtype)
            mask = full[::2] if strided else full[:length]
            w1 = np.zeros(4, dtype=np.int64)
            rng_seed(w1, 0, length, 3, 5)
            w2 = w1.copy()
            for _ in range(3):
                assert pick_legal(mask, w1) == _plain_pick(mask, w2)
                np.testing.assert_array_equal(w1, w2)  # the same number of draws


def test_first_set_finds_the_lowest_non_zero_entry():
    from core.maskbits import first_set

    gen = np.random.default_rng(3)
    for length in range(1, 60):
        mask = (gen.random(length) < 0.1).astype(np.int8) * 2
        want = int(np.flatnonzero(mask)[0]) if mask.any() else 0
        assert first_set(mask, length) == want
