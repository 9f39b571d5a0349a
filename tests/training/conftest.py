import pytest

pytest.importorskip("sb3_contrib")
