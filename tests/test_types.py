"""mypy over the whole package, as it is imported (``creepnet.protocol``, …): zero errors.

The folders map to subpackages through pyproject's package-dir, which mypy cannot follow, so the
check runs on a temporary tree of links that gives every module its real name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "engine", "node", "cli")


def test_mypy_finds_no_error_in_the_package(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api", reason="mypy comes with the test extras")
    (tmp_path / "creepnet").mkdir()
    for name in PACKAGES:
        (tmp_path / "creepnet" / name).symlink_to(ROOT / name, target_is_directory=True)
    arguments = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
                 str(ROOT / ".mypy_cache"), "--namespace-packages", "--explicit-package-bases",
                 "-p", "creepnet"]  # fmt: skip
    import os

    here = Path.cwd()
    os.chdir(tmp_path)  # mypy names modules from the current folder
    try:
        report, errors, status = api.run(arguments)
    finally:
        os.chdir(here)
    assert status == 0, report + errors
