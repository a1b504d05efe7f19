"""`import _bootstrap` before the sibling scripts and xlinalg: puts this repository (its
`xlinalg` and `tuner`, not an installed copy: a worktree measures its own code) and
`scripts/` first on `sys.path`.

Python finds this module because it puts a script's own directory on `sys.path`; isort
keeps `import _bootstrap` first among the non-standard imports.
"""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
sys.path[:0] = [str(ROOT), str(SCRIPTS)]
