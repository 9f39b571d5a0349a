"""Worker processes that end with the driver that started them (the process pools of
tournaments, evaluate and balance studies; the compiling children of core.compile): a worker
whose driver is gone, however it went (SIGKILL, the out-of-memory killer), exits instead of
waiting, or working, for ever."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent ends
WATCH_SECONDS = 0.5  # how often a worker's watchdog thread checks its parent


def die_with_driver(driver: int) -> None:
    """A process-pool worker's initializer (`initargs=(os.getpid(),)` from the driver): end this
    worker when the driver that started it ends, however it ends (SIGKILL and the out-of-memory
    killer included), instead of waiting on its pipe for ever. On Linux the kernel kills it with
    the driver (prctl PR_SET_PDEATHSIG, through ctypes); everywhere a daemon thread checks every
    WATCH_SECONDS that its parent is still the driver (an orphan's parent changes) and exits
    otherwise. A driver that died before this ran is caught at once."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # no libc or no prctl: the thread
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != driver:
        os._exit(1)
    threading.Thread(target=_watch_driver, args=(driver,), name="watch-driver", daemon=True).start()


def _watch_driver(driver: int) -> None:
    while os.getppid() == driver:
        time.sleep(WATCH_SECONDS)
    os._exit(1)  # the driver is gone: nobody will read what this worker plays
