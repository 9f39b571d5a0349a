"""A Ray run's driver watched from outside (training.alphazero.supervise): when Ray ends the
trainer at once (its only local node died), the command still says what happened and how to
go on."""

from __future__ import annotations

import json
import sys

from training.alphazero import supervise


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_ended_by_ray_gets_a_line_naming_the_last_checkpoint(tmp_path, capsys):
    ck = tmp_path / "checkpoints" / "iter_00007"
    ck.mkdir(parents=True)
    (ck / "checkpoint.json").write_text(json.dumps({"iteration": 7}))
    cmd = _child(
        "import sys; print('(raylet) Raylet is terminated.', file=sys.stderr); sys.exit(1)"
    )
    assert supervise.run_child([], tmp_path, "vtrl alphazero", cmd) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(
        "vtrl alphazero: the run stopped without a word of its own (exit status 1"
    )
    assert "its last checkpoint is iteration 7" in err and err.endswith(
        "with --resume to go on from it"
    )


def test_before_any_checkpoint_it_says_to_start_again(tmp_path, capsys):
    assert supervise.run_child([], tmp_path, "p", _child("import os; os._exit(1)")) == 1
    assert (
        "holds no checkpoint yet: rerun the same command without --resume"
        in capsys.readouterr().err
    )


def test_the_child_s_own_outcomes_pass_through_with_no_second_line(tmp_path, capsys):
    for code, want in ((0, 0), (supervise.HANDLED, 1), (2, 2), (130, 130)):
        assert (
            supervise.run_child([], tmp_path, "p", _child(f"import sys; sys.exit({code})")) == want
        )
    assert capsys.readouterr().err == ""


def test_the_child_knows_it_is_the_child(tmp_path):
    env = f"os.environ[{supervise.CHILD_ENV!r}]"
    code = f"import os, sys; sys.exit(0 if {env} == str(os.getppid()) else 5)"
    assert supervise.run_child([], tmp_path, "p", _child(code)) == 0
