"""Print the lowest allowed version of every base and [train] dependency, one `name==floor` line
each: the constraints of CI's lowest-versions step (pip install -c FILE). A dependency without a
lower bound is an error, since its floor could not be tested. Needs Python 3.11+ (tomllib)."""

import re
import sys
from pathlib import Path

import tomllib

project = tomllib.loads(
    Path(__file__).resolve().parent.parent.joinpath("pyproject.toml").read_text()
)["project"]
bad = []
for req in project["dependencies"] + project["optional-dependencies"]["train"]:
    m = re.match(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)$", req.strip())
    name, spec = m.group(1), m.group(3)
    floor = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", spec)
    if floor is None:
        bad.append(name)
        continue
    print(f"{name}=={floor.group(1)}")
if bad:
    sys.exit(f"no lower bound (>=) on {', '.join(bad)} in pyproject.toml")
