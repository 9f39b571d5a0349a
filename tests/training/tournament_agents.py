"""User agents (`py:tournament_agents:...`) for the tournament tests: the documented protocol
(factory(game_name, players, seed) -> object with act(state, legal_mask, seat))."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import numpy as np

KILL_FILE_ENV = "TOURNAMENT_TEST_KILL_FILE"


class FirstLegal:
    """Always the lowest legal action id."""

    name = "first-legal"
    fingerprint = "first-legal v1"

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.resets: list[int] = []

    def reset(self, seed: int) -> None:
        self.resets.append(seed)

    def act(self, state, legal_mask, seat) -> int:
        return int(np.flatnonzero(legal_mask)[0])


def first_legal(game_name, players, seed):
    return FirstLegal(seed)


class Killer(FirstLegal):
    """Plays like FirstLegal; in a worker process (never the test's own), when the file named by
    $TOURNAMENT_TEST_KILL_FILE holds this agent's seed (so the test picks the game), removes it
    and kills its own process with SIGKILL (as an out-of-memory killer would), once."""

    name = "killer"
    fingerprint = "killer v1"

    def act(self, state, legal_mask, seat) -> int:
        path = os.environ.get(KILL_FILE_ENV)
        if path and multiprocessing.parent_process() is not None:
            try:
                with open(path) as f:
                    if f.read().strip() != str(self.seed):
                        return super().act(state, legal_mask, seat)
                os.remove(path)
            except FileNotFoundError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().act(state, legal_mask, seat)


def killer(game_name, players, seed):
    return Killer(seed)


DRIVER_PID_ENV = "TOURNAMENT_TEST_DRIVER_PID"


class RayKiller(Killer):
    """Killer for Ray workers (started by Ray, not by multiprocessing): a worker is any process
    but the one whose pid is in $TOURNAMENT_TEST_DRIVER_PID. Ray workers inherit the environment
    the test set before ray.init, so the kill file's name is fixed for the module."""

    name = "ray-killer"
    fingerprint = "ray-killer v1"

    def act(self, state, legal_mask, seat) -> int:
        driver = os.environ.get(DRIVER_PID_ENV)
        path = os.environ.get(KILL_FILE_ENV)
        if driver and driver != str(os.getpid()) and path:
            try:
                with open(path) as f:
                    hit = f.read().strip() == str(self.seed)
                if hit:
                    os.remove(path)
                    os.kill(os.getpid(), signal.SIGKILL)
            except FileNotFoundError:
                pass
        return FirstLegal.act(self, state, legal_mask, seat)


def ray_killer(game_name, players, seed):
    return RayKiller(seed)


class Cheater:
    name = "cheater"

    def act(self, state, legal_mask, seat) -> int:
        illegal = np.flatnonzero(~legal_mask)
        # where every action is legal (a small game's first move), an id past the last action
        return int(illegal[0]) if len(illegal) else len(legal_mask)


def cheater(game_name, players, seed):
    return Cheater()


def broken(game_name, players, seed):
    raise RuntimeError("no weights here")


not_callable = 3


class Interrupter(FirstLegal):
    """Plays like FirstLegal; raises KeyboardInterrupt (as Ctrl-C does) in the game where its
    seed equals the contents of $TOURNAMENT_TEST_KILL_FILE, once (the file is removed)."""

    name = "interrupter"
    fingerprint = "interrupter v1"

    def act(self, state, legal_mask, seat) -> int:
        path = os.environ.get(KILL_FILE_ENV)
        if path and os.path.exists(path):
            with open(path) as f:
                hit = f.read().strip() == str(self.seed)
            if hit:
                os.remove(path)
                raise KeyboardInterrupt
        return super().act(state, legal_mask, seat)


def interrupter(game_name, players, seed):
    return Interrupter(seed)


GATE_DIR_ENV = "TOURNAMENT_TEST_GATE_DIR"
GATE_SECONDS = 180.0  # the most a gated agent waits (a test that never opens the gate still ends)


class Gated(FirstLegal):
    """Plays like FirstLegal; before its first move writes a file named by its process id into
    the folder $TOURNAMENT_TEST_GATE_DIR, then waits until a file `open` appears there (at most
    GATE_SECONDS). A test sees which processes are inside a game and decides when they go on."""

    name = "gated"
    fingerprint = "gated v1"

    def act(self, state, legal_mask, seat) -> int:
        folder = os.environ.get(GATE_DIR_ENV)
        if folder:
            with open(os.path.join(folder, f"pid-{os.getpid()}"), "w") as f:
                f.write(str(os.getppid()))
            gate = os.path.join(folder, "open")
            end = time.monotonic() + GATE_SECONDS
            while not os.path.exists(gate) and time.monotonic() < end:
                time.sleep(0.05)
        return super().act(state, legal_mask, seat)


def gated(game_name, players, seed):
    return Gated(seed)


class Clocked(FirstLegal):
    """Plays like FirstLegal but declares, as the user agent protocol allows, that its play
    depends on the machine (an agent that thinks until a deadline would)."""

    name = "clocked"
    fingerprint = "clocked v1"
    machine_dependent = True


def clocked(game_name, players, seed):
    return Clocked(seed)
