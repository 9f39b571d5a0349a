"""Golden seeded playthrough: a behaviour change shows as a diff against the checked-in log.

Regenerate (after an intended rules change) with:
    python -m core.play --game village --players 4 --seed 0 \
        > tests/village/golden_village_4p_seed0.txt
"""

import difflib
from pathlib import Path

from core.play import play_log

GOLDEN = Path(__file__).with_name("golden_village_4p_seed0.txt")


def test_golden_playthrough_matches():
    lines = "\n".join(play_log("village", 4, 0, 0)[0]).splitlines()
    want = GOLDEN.read_text().splitlines()
    if lines != want:
        diff = "\n".join(list(difflib.unified_diff(want, lines, "golden", "now", lineterm=""))[:60])
        raise AssertionError("golden playthrough changed:\n" + diff)
