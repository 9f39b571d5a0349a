"""Planning balance studies: how many games, when to stop, how much seeds differ (no I/O).

Three questions a study's figures cannot answer on their own:

- **How many games?** `games_for_seat_edge` / `power_seat_edge`: the games a study needs to
  detect a seat whose win share is 1/P + edge, with the power asked for, by the test the study
  reports: the seat's Wilson 95% interval excluding 1/P. That interval is the inversion of the
  one-sample score test of the seat's share against 1/P (z = (share - 1/P) / sqrt(p0 q0 / n)), so
  "the interval excludes 1/P" and "the score test rejects at two-sided alpha" are the same event
  (`seat_test_rejects`). At 2 players, with no ties, it is also the study's chi-square test of
  equal shares (chi2 = z^2); at more players that test is an omnibus over every seat
  (`power_equal_shares`, `games_for_equal_shares`, noncentral chi-square). For a rules variant
  compared deal by deal (training.balance.paired), `pairs_for_paired_edge` / `power_paired_edge`
  give the deal pairs McNemar's test of one seat's win flips needs (Connor 1987, or the exact
  binomial test the study reports).
- **When to stop?** `SequentialSeatTest`: a study played in batches, looked at after each, that
  stops once a seat's anytime-valid confidence sequence excludes 1/P (an edge), or every seat's
  lies within 1/P +- tolerance (fair within the tolerance); the error rates hold however many
  looks are taken.
- **How much do seeds differ?** `replicate_summary`: several tournament seeds (different deals)
  of one study, the between-seed Student-t interval next to the pooled within-seed one, and a
  test of whether the seeds differ more than independent games would.

Assumptions, said once: the closed forms treat games as independent Bernoulli draws of "this
seat won"; a shared win (1/k) has less variance than a win or a loss, so ties make them
conservative. A tournament plays every deal once per seat rotation, and the rotations of one deal
share it: where they are correlated the study's within-seed interval is too narrow and a planned
size too small by the design effect (`design_effect` estimates it from a study, the planners take
it as `design_effect=`). The sequential test avoids the question by taking one observation per
deal (the mean over its games), which are independent by construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance.results import (
    BetweenSeeds,
    DesignEffect,
    Dispersion,
    PooledShare,
    ReplicateSeat,
    ReplicateSummary,
    SeatLook,
    SeedShare,
)

C_BET = 0.5  # the largest bet is C_BET / m (or / (1 - m)): a factor never below 1 - C_BET
THETA = 0.5  # hedged capital: half on "the mean is above m", half on "below"
DECISIONS = ("continue", "edge", "fair", "undecided")


# --- checks ------------------------------------------------------------------------------------
def _check_players(players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 2:
        raise ValueError(f"players must be an integer >= 2, got {players!r}")
    return int(players)


def _check_level(alpha: float, power: float | None = None) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if power is not None and not alpha < power < 1.0:
        raise ValueError(f"power must be in (alpha, 1) = ({alpha}, 1), got {power}")


def _seat_shares(edge: float, players: int) -> tuple[float, float]:
    """(p0, p1): the fair share 1/P and the seat's share 1/P + edge, refused outside (0, 1)."""
    p0 = 1.0 / _check_players(players)
    if not (-p0 < edge < 1.0 - p0) or edge == 0.0:
        raise ValueError(
            f"edge must be nonzero and in (-1/P, 1 - 1/P) = ({-p0:.4g}, {1 - p0:.4g}) at "
            f"{players} players (the seat's win share 1/P + edge strictly between 0 and 1); "
            f"got {edge}"
        )
    return p0, p0 + edge


def _check_deff(design_effect: float) -> None:
    if not (design_effect > 0.0 and math.isfinite(design_effect)):
        raise ValueError(f"design_effect must be a positive number, got {design_effect}")


# --- the seat-advantage test --------------------------------------------------------------------
def seat_test_rejects(wins, games, players: int, alpha: float = 0.05):
    """The two-sided one-sample score test of a seat's win share against 1/P at level alpha
    (vectorised over wins and games): True where |wins/games - p0| > z sqrt(p0 q0 / games).
    At alpha 0.05 this is exactly "the seat's Wilson 95% interval excludes 1/P", the study's
    reported figure (the Wilson interval is the set of p0 this test keeps)."""
    p0 = 1.0 / _check_players(players)
    _check_level(alpha)
    wins = np.asarray(wins, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    z = sps.norm.isf(alpha / 2)
    return np.abs(wins / games - p0) > z * np.sqrt(p0 * (1 - p0) / games)


def power_seat_edge(
    n: int, edge: float, players: int, alpha: float = 0.05, design_effect: float = 1.0
) -> float:
    """Power of the score test (seat_test_rejects) after n games when the seat's share is
    1/P + edge: the normal approximation with the null variance p0 q0 in the critical value and
    the true variance p1 q1 around the estimate, both tails. `design_effect` divides n (games
    correlated within a deal count less than independent ones)."""
    p0, p1 = _seat_shares(edge, players)
    _check_level(alpha)
    _check_deff(design_effect)
    if n <= 0:
        raise ValueError(f"n must be a positive number of games, got {n}")
    m = n / design_effect
    z = sps.norm.isf(alpha / 2)
    s0, s1 = math.sqrt(p0 * (1 - p0)), math.sqrt(p1 * (1 - p1))
    d = abs(edge) * math.sqrt(m)
    return float(sps.norm.cdf((d - z * s0) / s1) + sps.norm.cdf((-d - z * s0) / s1))


def games_for_seat_edge(
    edge: float,
    players: int,
    power: float = 0.8,
    alpha: float = 0.05,
    design_effect: float = 1.0,
) -> int:
    """Games a study needs for the score test (the seat's Wilson interval excluding 1/P) to
    find a seat whose share is 1/P + edge with the power asked for at two-sided alpha:
    n = design_effect * (z_{1-alpha/2} sqrt(p0 q0) + z_{power} sqrt(p1 q1))^2 / edge^2,
    rounded up to a multiple of `players` (a study's --games is one)."""
    p0, p1 = _seat_shares(edge, players)
    _check_level(alpha, power)
    _check_deff(design_effect)
    za, zb = sps.norm.isf(alpha / 2), sps.norm.ppf(power)
    n = design_effect * (za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))) ** 2
    n /= edge * edge
    return int(math.ceil(n / players - 1e-9)) * players


def _omnibus_lambda(edge: float, players: int) -> float:
    """Noncentrality per game of the chi-square test of equal shares when one seat wins
    1/P + edge and the others share the rest equally: sum (p_i - p0)^2 / p0 = edge^2 P^2/(P-1)."""
    return edge * edge * players * players / (players - 1)


def power_equal_shares(n: int, edge: float, players: int, alpha: float = 0.05) -> float:
    """Power of the study's chi-square test of equal seat shares (P - 1 df) after n games when
    one seat wins 1/P + edge and the others share the rest equally (noncentral chi-square with
    noncentrality n edge^2 P^2 / (P - 1)). At 2 players it is the score test's power to first
    order; at more it is lower for the same n (the test spreads over every seat)."""
    _seat_shares(edge, players)
    _check_level(alpha)
    df = players - 1
    crit = sps.chi2.isf(alpha, df)
    return float(sps.ncx2.sf(crit, df, n * _omnibus_lambda(edge, players)))


def games_for_equal_shares(
    edge: float, players: int, power: float = 0.8, alpha: float = 0.05
) -> int:
    """Games for the chi-square test of equal shares (power_equal_shares) to reach `power`,
    a multiple of `players`."""
    _seat_shares(edge, players)
    _check_level(alpha, power)
    df = players - 1
    crit = sps.chi2.isf(alpha, df)
    lo, hi = 1e-6, 1e3  # noncentrality: power rises with it
    while sps.ncx2.sf(crit, df, hi) < power:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if sps.ncx2.sf(crit, df, mid) < power else (lo, mid)
    n = hi / _omnibus_lambda(edge, players)
    return int(math.ceil(n / players - 1e-9)) * players


# --- the paired (variant) comparison ------------------------------------------------------------
def flip_share(changed_share: float, players: int, flips_per_change: float | None = None) -> float:
    """The share of deal pairs in which one seat's win flips (won under one rules data, not the
    other: McNemar's discordant pairs) from the share whose play changes at all (what a paired
    study reports as "changed"). `flips_per_change`: the share of changed pairs whose result for
    the seat flips; by default as if a changed game were a fresh one, 2 p0 (1 - p0) with p0 = 1/P
    (0.5 at 2 players). A change late in a game flips less; a pilot study's McNemar table
    (base_only + variant_only over pairs) measures the flip share directly."""
    p0 = 1.0 / _check_players(players)
    if not 0.0 < changed_share <= 1.0:
        raise ValueError(f"changed share must be in (0, 1], got {changed_share}")
    f = 2 * p0 * (1 - p0) if flips_per_change is None else flips_per_change
    if not 0.0 < f <= 1.0:
        raise ValueError(f"flips per change must be in (0, 1], got {f}")
    return changed_share * f


def _paired_check(edge: float, flips: float, alpha: float, power: float | None = None) -> float:
    _check_level(alpha, power)
    if not 0.0 < flips <= 1.0:
        raise ValueError(f"flip share must be in (0, 1], got {flips}")
    if edge == 0.0 or abs(edge) >= flips:
        raise ValueError(
            f"the win-share difference must be nonzero and smaller in size than the share of "
            f"pairs whose result flips ({flips:.4g}): every flip moves it by 1/pairs at most; "
            f"got {edge}"
        )
    return (1.0 + edge / flips) / 2  # flip balance: the share of flips toward the variant


def power_paired_edge(
    pairs: int, edge: float, flips: float, alpha: float = 0.05, exact: bool = False
) -> float:
    """Power of McNemar's test of one seat's win flips over `pairs` deal pairs when the variant
    changes its win share by `edge` and its result flips in a share `flips` of the pairs (flip
    balance (1 + edge / flips) / 2 toward the variant).

    exact=False: the normal approximation of the test without continuity correction,
    Phi((|edge| sqrt(n) - z sqrt(flips)) / sqrt(flips - edge^2)) (Connor, Biometrics 1987).
    exact=True: the exact conditional binomial test the study reports (training.balance.paired
    .mcnemar: b of the b + c flips at 1/2), summed over the number of flips; it is conservative,
    so its power is a little lower."""
    pi = _paired_check(edge, flips, alpha)
    if pairs <= 0:
        raise ValueError(f"pairs must be positive, got {pairs}")
    if not exact:
        z = sps.norm.isf(alpha / 2)
        s = math.sqrt(flips - edge * edge)
        d = abs(edge) * math.sqrt(pairs)
        return float(
            sps.norm.cdf((d - z * math.sqrt(flips)) / s)
            + sps.norm.cdf((-d - z * math.sqrt(flips)) / s)
        )
    n = int(pairs)
    dd = np.arange(n + 1)
    pd = sps.binom.pmf(dd, n, flips)
    keep = pd > 1e-14
    dd, pd = dd[keep], pd[keep]
    # a(D): the largest count with P(Binom(D, 1/2) <= a) <= alpha / 2 (-1: none); the two-sided
    # exact test at 1/2 rejects when the variant's flips are <= a or >= D - a
    a = sps.binom.ppf(alpha / 2, dd, 0.5)
    a = np.where(sps.binom.cdf(a, dd, 0.5) <= alpha / 2, a, a - 1)
    rej = sps.binom.cdf(a, dd, pi) + sps.binom.sf(dd - a - 1, dd, pi)
    rej = np.where(a >= 0, rej, 0.0)
    return float(np.clip((pd * rej).sum(), 0.0, 1.0))


def pairs_for_paired_edge(
    edge: float, flips: float, power: float = 0.8, alpha: float = 0.05, exact: bool = False
) -> int:
    """Deal pairs McNemar's test needs (power_paired_edge): exact=False the closed form
    n = (z_{1-alpha/2} sqrt(flips) + z_{power} sqrt(flips - edge^2))^2 / edge^2 (Connor 1987);
    exact=True the first n from there up at which the exact test reaches the power."""
    _paired_check(edge, flips, alpha, power)
    za, zb = sps.norm.isf(alpha / 2), sps.norm.ppf(power)
    n = (za * math.sqrt(flips) + zb * math.sqrt(flips - edge * edge)) ** 2 / (edge * edge)
    n = max(int(math.ceil(n - 1e-9)), 2)
    if exact:
        while power_paired_edge(n, edge, flips, alpha, exact=True) < power:
            n += 1
    return n


# --- clustering by deal -------------------------------------------------------------------------
def design_effect(values, groups) -> DesignEffect:
    """How much the games of one deal (its seat rotations, line-ups) count as fewer than
    independent games: the intraclass correlation rho of `values` (e.g. seat 0's win share per
    game) within `groups` (e.g. GameStats.deal_seeds) by one-way analysis of variance, and the
    design effect 1 + (m0 - 1) rho (m0: the mean group size, adjusted for unequal sizes). A
    design effect of P means the P rotations of a deal are as good as one game. None figures
    when there is no spread or fewer than two groups."""
    v = np.asarray(values, dtype=np.float64)
    _, inv, sizes = np.unique(np.asarray(groups), return_inverse=True, return_counts=True)
    k, n = sizes.size, v.size
    none = DesignEffect(None, None, int(k), int(n))
    if k < 2 or n <= k:
        return none
    means = np.bincount(inv, weights=v) / sizes
    ssb = float((sizes * (means - v.mean()) ** 2).sum())
    ssw = float(((v - means[inv]) ** 2).sum())
    msb, msw = ssb / (k - 1), ssw / (n - k)
    m0 = (n - (sizes**2).sum() / n) / (k - 1)
    if msb + (m0 - 1) * msw <= 0.0:
        return none
    rho = (msb - msw) / (msb + (m0 - 1) * msw)
    return DesignEffect(float(rho), float(1 + (m0 - 1) * rho), int(k), int(n), float(m0))


# --- anytime-valid confidence sequences ---------------------------------------------------------
def plugin_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets of Waudby-Smith and Ramdas (JRSSB 2023, "Estimating means of
    bounded random variables by betting"), along the last axis of x in [0, 1]:
    lambda_t = sqrt(2 log(2 / alpha) / (sigma2_{t-1} t log(1 + t))), where sigma2_t =
    (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1) and mu_t = (1/2 + sum_{i<=t} x_i) / (t + 1).
    lambda_t uses only x_1..x_{t-1}, which is what makes the capital a martingale."""
    x = np.asarray(x, dtype=np.float64)
    t = np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    mu = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    s2 = (0.25 + np.cumsum((x - mu) ** 2, axis=-1)) / (t + 1)
    prev = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), s2[..., :-1]], axis=-1)
    return np.sqrt(2 * math.log(2 / alpha) / (prev * t * np.log1p(t)))


def log_capitals(x: np.ndarray, bets: np.ndarray, m) -> tuple[np.ndarray, np.ndarray]:
    """log K+_t(m) and log K-_t(m) after each observation (cumulative along the last axis):
    K+ = prod (1 + min(lambda, C/m) (x - m)) bets that the mean is above m, K- = prod
    (1 - min(lambda, C/(1-m)) (x - m)) that it is below. Under mean m both are nonnegative
    martingales starting at 1; K+ falls and K- rises with m (every factor does), so the m they
    reject form two tails and the confidence set is an interval. m broadcasts against x[..., :1]."""
    m = np.asarray(m, dtype=np.float64)
    lp = np.minimum(bets, C_BET / np.maximum(m, 1e-12))
    lm = np.minimum(bets, C_BET / np.maximum(1.0 - m, 1e-12))
    up = np.cumsum(np.log1p(lp * (x - m)), axis=-1)
    down = np.cumsum(np.log1p(-lm * (x - m)), axis=-1)
    return up, down


def _threshold(alpha: float) -> float:
    """Reject m when the hedged capital max(THETA K+, (1 - THETA) K-) reaches 1 / alpha; it is
    at most THETA K+ + (1 - THETA) K-, a martingale from 1, so by Ville's inequality a true m is
    ever rejected with probability at most alpha, at any number of looks."""
    return math.log(1 / (alpha * THETA))  # THETA = 1/2 on both sides


def confidence_sequence(x: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """The hedged-capital (betting) confidence sequence of the mean of x in [0, 1] after all of
    x, at level 1 - alpha, valid at any stopping time: [lo, hi] where lo is the largest m with
    log K+(m) past the threshold and hi the smallest with log K-(m) past it (bisection: each is
    monotone in m). (0, 1) for no observations."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return 0.0, 1.0
    bets = plugin_bets(x, alpha)
    thr = _threshold(alpha)

    def up(m):
        return log_capitals(x, bets, m)[0][-1] >= thr

    def down(m):
        return log_capitals(x, bets, m)[1][-1] >= thr

    lo = 0.0
    if up(1e-12):
        a, b = 1e-12, 1.0  # up(a) rejected, up(b) never (the factor at m = 1 is <= 1)
        for _ in range(50):
            mid = 0.5 * (a + b)
            a, b = (mid, b) if up(mid) else (a, mid)
        lo = a
    hi = 1.0
    if down(1 - 1e-12):
        a, b = 0.0, 1 - 1e-12
        for _ in range(50):
            mid = 0.5 * (a + b)
            a, b = (a, mid) if down(mid) else (mid, b)
        hi = b
    return lo, hi


def _decide(excl0: np.ndarray, excl_band: np.ndarray) -> np.ndarray:
    """Decision codes over the tested seats (last axis): 1 "edge" where any seat's sequence
    excludes 1/P, else 2 "fair" where every seat's excludes everything outside 1/P +- tolerance,
    else 0 "continue"."""
    edge = excl0.any(axis=-1)
    fair = excl_band.all(axis=-1) & ~edge
    return np.where(edge, 1, np.where(fair, 2, 0))


def _seat_alpha(alpha: float, tested: int) -> float:
    return alpha / tested  # Bonferroni over the tested seats: a union bound, valid at any look


def _band_rejected(x, bets, p0, tolerance, thr):
    """Whether every mean outside (p0 - tol, p0 + tol) is rejected, on the tested seats: K+ at
    p0 - tol (then every m below it too) and K- at p0 + tol (every m above it too)."""
    lo_ok = log_capitals(x, bets, p0 - tolerance)[0] >= thr
    hi_ok = log_capitals(x, bets, p0 + tolerance)[1] >= thr
    return lo_ok & hi_ok


@dataclass
class Look:
    """One look of a sequential study: the games and deals seen so far, a row per tested seat
    (its win share, anytime-valid interval, fixed-n Wilson interval), and the decision."""

    look: int
    games: int
    units: int
    seats: list[SeatLook]
    decision: str
    tolerance: float
    alpha: float
    players: int

    def level(self) -> str:
        """The intervals' confidence: simultaneous over the tested seats when there are several
        (each seat's at 1 - alpha / seats)."""
        k = len(self.seats)
        return f"anytime-valid {1 - self.alpha:.0%}" + (
            f", simultaneous over {k} seats" if k > 1 else ""
        )

    def line(self) -> str:
        parts = [
            f"seat {r.seat} {r.share:.3f} [{r.lo:.3f}, {r.hi:.3f}] (fixed-n Wilson "
            f"[{r.wilson_lo:.3f}, {r.wilson_hi:.3f}])"
            for r in self.seats
        ]
        return (
            f"look {self.look}: {self.games} games ({self.units} deals); win share "
            f"({self.level()}): " + "; ".join(parts) + f" -> {self.decision}"
        )

    def verdict(self) -> str:
        p0 = 1.0 / self.players
        n = f"{self.games} games, {self.units} deals"
        if self.decision == "edge":
            bad = [r for r in self.seats if r.lo > p0 or r.hi < p0]
            what = "; ".join(
                f"seat {r.seat} wins {'more' if r.lo > p0 else 'less'} than 1/"
                f"{self.players}: {r.share:.3f} [{r.lo:.3f}, {r.hi:.3f}]"
                for r in bad
            )
            return f"EDGE FOUND after {n}: {what} ({self.level()})"
        if self.decision == "fair":
            return (
                f"FAIR within +-{self.tolerance:g} after {n}: every tested seat's interval "
                f"({self.level()}) lies within {p0:.3f} +- {self.tolerance:g}"
            )
        if self.decision == "undecided":
            return (
                f"UNDECIDED at the cap of {n}: no seat's interval excludes {p0:.3f}, and not "
                f"every one lies within +-{self.tolerance:g} of it (the intervals stay valid if "
                "the study is continued)"
            )
        return f"continue after {n}"


@dataclass
class SequentialSeatTest:
    """Sequential seat-advantage test for a study played in batches.

    Each observation is one deal: the mean of a seat's win share over that deal's games (its
    seat rotations and line-ups), a number in [0, 1] with mean the seat's share; deals are
    dealt independently, so the observations are independent whatever the correlation between
    a deal's games. For every tested seat a hedged-capital betting confidence sequence
    (Waudby-Smith and Ramdas 2023; plugin_bets, log_capitals) is kept at level alpha / (seats
    tested) (Bonferroni); it covers the seat's true share at every look at once, so looking
    after every batch and stopping on what is seen keeps the error rates:

    - "edge": some seat's sequence excludes 1/P (a false edge: probability <= alpha);
    - "fair": every tested seat's sequence lies within 1/P +- tolerance (wrongly calling a seat
      with a larger edge fair: probability <= alpha);
    - "undecided": neither by the last batch (`update(..., last=True)`, the game cap).

    `seat`: the seat to test (default every seat; at 2 players seat 0 alone, since the two
    shares add up to 1)."""

    players: int
    tolerance: float
    alpha: float = 0.05
    seat: int | None = None
    # the state: observations (one row per deal, or game), games and wins, looks, deals seen
    xs: list[np.ndarray] = field(default_factory=list, init=False, repr=False)
    games: int = field(default=0, init=False)
    wins: np.ndarray = field(default_factory=lambda: np.zeros(0), init=False, repr=False)
    looks: list[Look] = field(default_factory=list, init=False, repr=False)
    seen: set = field(default_factory=set, init=False, repr=False)

    def __post_init__(self):
        p = _check_players(self.players)
        _check_level(self.alpha)
        if not 0.0 < self.tolerance < 1.0 / p:
            raise ValueError(
                f"tolerance must be in (0, 1/P) = (0, {1 / p:.4g}) at {p} players, got "
                f"{self.tolerance}"
            )
        if self.seat is not None and not 0 <= self.seat < p:
            raise ValueError(f"seat must be in 0..{p - 1}, got {self.seat}")
        self.wins = np.zeros(p)

    @property
    def tested(self) -> list[int]:
        if self.seat is not None:
            return [self.seat]
        return [0] if self.players == 2 else list(range(self.players))

    @property
    def decision(self) -> str:
        return self.looks[-1].decision if self.looks else "continue"

    def update(self, win_shares, groups=None, last: bool = False) -> Look:
        """Add a batch of games, `win_shares` (B, P) rows (1 a win, 1/k a win shared by k, 0),
        and look. `groups`: each row's deal (e.g. GameStats.deal_seeds): the rows of one deal
        become one observation, in order of first appearance; a deal must arrive in one batch.
        Without groups every game is its own observation. `last`: the game cap is reached."""
        if self.decision != "continue":
            raise ValueError(f"the test has already stopped ({self.decision})")
        ws = np.asarray(win_shares, dtype=np.float64)
        if ws.ndim != 2 or ws.shape[1] != self.players or ws.shape[0] == 0:
            raise ValueError(f"win_shares must be (games, {self.players}) rows, got {ws.shape}")
        if ws.min() < 0.0 or ws.max() > 1.0:
            raise ValueError("win shares must lie in [0, 1]")
        if groups is None:
            obs = ws
        else:
            g = np.asarray(groups)
            if g.shape != (ws.shape[0],):
                raise ValueError("groups must give one deal per row")
            keys, first, inv = np.unique(g, return_index=True, return_inverse=True)
            again = self.seen.intersection(keys.tolist())
            if again:
                raise ValueError(f"deal(s) {sorted(again)[:3]} already seen in an earlier batch")
            self.seen.update(keys.tolist())
            sums = np.zeros((keys.size, self.players))
            np.add.at(sums, inv, ws)
            obs = (sums / np.bincount(inv)[:, None])[np.argsort(first)]
        self.xs.append(obs)
        self.games += ws.shape[0]
        self.wins += ws.sum(axis=0)
        return self._look(last)

    def _look(self, last: bool) -> Look:
        x = np.concatenate(self.xs)[:, self.tested].T  # (seats, units)
        a = _seat_alpha(self.alpha, len(self.tested))
        p0 = 1.0 / self.players
        bets = plugin_bets(x, a)
        thr = _threshold(a)
        up, down = log_capitals(x, bets, p0)
        excl0 = (up[:, -1] >= thr) | (down[:, -1] >= thr)
        band = _band_rejected(x, bets, p0, self.tolerance, thr)[:, -1]
        code = int(_decide(excl0, band))
        decision = DECISIONS[code] if code or not last else "undecided"
        rows = []
        for i, s in enumerate(self.tested):
            lo, hi = confidence_sequence(x[i], a)
            wlo, whi = wilson_interval(float(self.wins[s]), self.games)
            share = float(self.wins[s] / self.games)
            rows.append(SeatLook(s, share, lo, hi, wlo, whi, self.games, int(x.shape[1])))
        look = Look(
            len(self.looks) + 1, self.games, int(x.shape[1]), rows, decision,
            self.tolerance, self.alpha, self.players,
        )  # fmt: skip
        self.looks.append(look)
        return look


# --- replicates ---------------------------------------------------------------------------------
def replicate_summary(
    win_shares: list[np.ndarray], seeds: list[int] | None = None
) -> ReplicateSummary:
    """Seat win shares over K replicates of a study (tournament seeds: different deals), each a
    (G_k, P) array of win shares. Per seat:

    - per seed: the share with its Wilson 95% interval and N;
    - "between": the mean of the K seed shares with a Student-t 95% interval (K - 1 df): what
      the seeds say, whatever the dependence between a seed's games;
    - "pooled": every game of every seed as one sample, Wilson 95% (the within-seed assumption of
      independent games, as a single study reports it);
    - "dispersion": the seeds' spread against what independent games would give, the chi-square
      homogeneity statistic sum_k G_k (share_k - pooled)^2 / (pooled (1 - pooled)) on K - 1 df,
      its ratio to K - 1 and p-value (a small p: the seeds differ more than the within-seed
      interval allows; ties make it conservative)."""
    arrs = [np.asarray(w, dtype=np.float64) for w in win_shares]
    k = len(arrs)
    if k < 2:
        raise ValueError(f"replicates need at least 2 seeds, got {k}")
    p = arrs[0].shape[1]
    if any(a.ndim != 2 or a.shape[1] != p or a.shape[0] == 0 for a in arrs):
        raise ValueError("every replicate must be a nonempty (games, players) array")
    seeds = list(range(k)) if seeds is None else list(seeds)
    g = np.array([a.shape[0] for a in arrs], dtype=np.float64)
    wins = np.stack([a.sum(axis=0) for a in arrs])  # (K, P)
    t = float(sps.t.ppf(0.975, k - 1))
    rows = []
    for s in range(p):
        share = wins[:, s] / g
        per_seed = []
        for i in range(k):
            lo, hi = wilson_interval(float(wins[i, s]), int(g[i]))
            per_seed.append(SeedShare(seeds[i], float(share[i]), lo, hi, int(g[i])))
        m, sd = float(share.mean()), float(share.std(ddof=1))
        h = t * sd / math.sqrt(k)
        pooled = float(wins[:, s].sum() / g.sum())
        plo, phi = wilson_interval(float(wins[:, s].sum()), int(g.sum()))
        v = pooled * (1 - pooled)
        chi2 = float((g * (share - pooled) ** 2).sum() / v) if v > 0 else None
        dispersion = Dispersion(
            chi2=chi2,
            df=k - 1,
            ratio=None if chi2 is None else chi2 / (k - 1),
            p=None if chi2 is None else float(sps.chi2.sf(chi2, k - 1)),
        )
        rows.append(
            ReplicateSeat(
                seat=s,
                per_seed=per_seed,
                between=BetweenSeeds(m, m - h, m + h, sd, k),
                pooled=PooledShare(pooled, plo, phi, int(g.sum())),
                dispersion=dispersion,
            )
        )
    return ReplicateSummary(seeds, p, int(g.sum()), rows)
