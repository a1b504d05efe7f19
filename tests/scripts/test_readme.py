"""The README's generated coverage tables match what the code and its tests cover today."""

from __future__ import annotations

import subprocess
import sys

from support import REPO


def test_readme_coverage_tables_are_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "update_readme_coverage.py"), "--check"],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
