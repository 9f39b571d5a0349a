"""In-state random numbers (DESIGN D3): xoshiro128** on four 32-bit words kept in int64 entries.

All arithmetic stays below 2**63, so the compiled code and plain Python (NUMBA_DISABLE_JIT=1)
produce identical streams on every platform.
"""

from __future__ import annotations

from core.jit import jit

M32 = 0xFFFFFFFF
RNG_WORDS = 4


@jit(inline=True)
def _rotl(x, k):
    return ((x << k) & 0xFFFFFFFF) | (x >> (32 - k))


@jit
def rng_next(state, off):
    """Advance the generator stored at state[off:off+4]; return a uniform 32-bit integer."""
    s0 = state[off]
    s1 = state[off + 1]
    s2 = state[off + 2]
    s3 = state[off + 3]
    result = (_rotl((s1 * 5) & 0xFFFFFFFF, 7) * 9) & 0xFFFFFFFF
    t = (s1 << 9) & 0xFFFFFFFF
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 11)
    state[off] = s0
    state[off + 1] = s1
    state[off + 2] = s2
    state[off + 3] = s3
    return result


@jit
def rng_below(state, off, n):
    """A uniform integer in [0, n) for 1 <= n < 2**31 (multiply-shift; bias below 2**-20)."""
    return (rng_next(state, off) * n) >> 32


@jit
def _mix32(x):
    x = ((x >> 16) ^ x) & 0xFFFFFFFF
    x = (x * 0x45D9F3B) & 0xFFFFFFFF
    x = ((x >> 16) ^ x) & 0xFFFFFFFF
    x = (x * 0x45D9F3B) & 0xFFFFFFFF
    x = ((x >> 16) ^ x) & 0xFFFFFFFF
    return x


@jit
def rng_seed(state, off, a, b, c):
    """Seed the four words from three non-negative integers (each reduced to 32 bits)."""
    a &= 0xFFFFFFFF
    b &= 0xFFFFFFFF
    c &= 0xFFFFFFFF
    x = 0x9E3779B9
    for i in range(4):
        x = _mix32((x + a + 0x7F4A7C15 * (i + 1)) & 0xFFFFFFFF)
        x = _mix32(x ^ b)
        x = _mix32((x + c) & 0xFFFFFFFF)
        state[off + i] = x
    if state[off] == 0 and state[off + 1] == 0 and state[off + 2] == 0 and state[off + 3] == 0:
        state[off] = 1


def split_seed(seed: int) -> tuple[int, int, int]:
    """Reduce any Python integer seed to three 32-bit words."""
    if seed is None:
        raise ValueError("seed must be an integer")
    s = int(seed) & ((1 << 96) - 1)
    return s & M32, (s >> 32) & M32, (s >> 64) & M32
