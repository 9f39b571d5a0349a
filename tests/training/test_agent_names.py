"""Short display names for agents named by path (training.agents.names)."""

from __future__ import annotations

from training.agents.names import display_name, entrant_labels, short_path


def test_a_path_shows_as_its_folder_and_a_generic_name_with_its_parent():
    assert short_path("/home/me/runs/s3/ppo-village-4p") == "ppo-village-4p"
    assert short_path("runs/cond-troyes/final/") == "cond-troyes/final"
    assert short_path("/x/run/checkpoints/iter_00040") == "checkpoints/iter_00040"
    assert short_path("C:\\runs\\mine\\model") == "mine/model"


def test_a_spec_keeps_everything_but_its_paths():
    assert display_name("/home/me/runs/s3/ppo-village-4p") == "ppo-village-4p"
    assert display_name("az:/home/me/runs/x/final,sims=0") == "az:x/final,sims=0"
    spec = "restrict:forbid=market,agent=/a/b/net"
    assert display_name(spec) == "restrict:forbid=market,agent=net"
    for spec in ("mcts:iters=100", "az:az-3p,sims=0", "heuristic", "py:pkg.mod:make"):
        assert display_name(spec) == spec


def test_labels_are_distinct_copies_numbered_and_clashing_names_keep_their_spec():
    specs = ["/a/x/model", "/b/x/model", "mcts", "mcts", "/c/run"]
    assert entrant_labels(specs) == ["/a/x/model", "/b/x/model", "mcts#1", "mcts#2", "run"]
