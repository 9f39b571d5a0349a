"""A Ray run watched from outside its driver process.

When the only node of a local Ray instance dies, Ray ends the driver process at once (exit status
1 after its own log lines; no Python exception reaches the trainer). So with `--backend ray` the
trainer runs its iterations in a child process of the same command (`python -m
training.alphazero`, the same arguments) and this parent, which holds no Ray connection, says
what happened when the child ends without a word of its own: the run folder's last checkpoint
and that `--resume` goes on from it. The child's own errors (a task lost too often, a bad
setting) are printed by the child, which then exits with HANDLED. The child ends with its parent
however the parent ends (core.workers.die_with_driver), so a killed command leaves nothing
training.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from training.agents.az_agent import SIDECAR, checkpoint_dir

CHILD_ENV = "VTRL_ALPHAZERO_PARENT"  # in the child: its parent's process id
HANDLED = 3  # the child's exit status once it printed its own error line


def is_child() -> bool:
    """True in the child: it trains, it does not supervise."""
    return bool(os.environ.get(CHILD_ENV))


def end_with_parent() -> None:
    """In the child: end when the parent ends, however it ends."""
    from core.workers import die_with_driver

    die_with_driver(int(os.environ[CHILD_ENV]))


def resume_point(root: Path) -> Path:
    """The network a run folder goes on from: of `final/` and `checkpoints/iter_*`, the one of the
    latest iteration (a run stopped before its end leaves checkpoints newer than the `final/` of
    an earlier part); CheckpointError if the folder holds none."""
    found = [root / "final"] if (root / "final" / SIDECAR).is_file() else []
    found += [p.parent for p in (root / "checkpoints").glob(f"iter_*/{SIDECAR}")]
    if not found:
        return checkpoint_dir(root)  # its error names what a run folder should hold

    def iteration(folder: Path) -> int:
        try:
            return int(json.loads((folder / SIDECAR).read_text())["iteration"])
        except (OSError, ValueError, KeyError, TypeError):
            return -1  # unreadable: load_network refuses it if it is the only one

    return max(found, key=lambda f: (iteration(f), f.name != "final"))


def last_checkpoint(out: Path) -> str:
    """Words for the checkpoint `--resume` would go on from in the run folder `out`."""
    try:
        folder = resume_point(out)
        it = int(json.loads((folder / SIDECAR).read_text())["iteration"])
    except Exception:  # noqa: BLE001 - no readable checkpoint: say so, whatever the cause
        return f"{out} holds no checkpoint yet: rerun the same command without --resume"
    return (
        f"its last checkpoint is iteration {it} ({folder}): rerun the same command with "
        "--resume to go on from it"
    )


def run_child(argv: list[str], out: Path, prog: str, command: list[str] | None = None) -> int:
    """Run the trainer (`command`, default: this Python, `-m training.alphazero`, then `argv`)
    as a child process and return the command's exit status: 0 done; 1 it failed (a line of
    ours on stderr either way); 2 and 130 as the child gave them (a usage error, interrupted)."""
    cmd = command or [sys.executable, "-m", "training.alphazero", *argv]
    child = subprocess.Popen(cmd, env={**os.environ, CHILD_ENV: str(os.getpid())})
    while True:
        try:
            rc = child.wait()
            break
        except KeyboardInterrupt:  # the child got the same interrupt: let it save and stop
            continue
    if rc in (0, 2, 130):
        return rc
    if rc == HANDLED:
        return 1
    print(
        f"{prog}: the run stopped without a word of its own (exit status {rc}; the lines above "
        f"are Ray's: when the only node of a local Ray instance dies, Ray ends the trainer at "
        f"once); {last_checkpoint(out)}",
        file=sys.stderr,
    )
    return 1
