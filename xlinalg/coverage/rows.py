"""One row of the op coverage table (`xlinalg ops`): what the tests show of one op."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CoverageRow:
    op: str
    parse: str
    verify: str
    generalize: str
    run: str
    tiled: str


COLUMNS = ("op", "parse", "verify", "generalize", "run", "tiled")
#: the parse cell of an op iree-opt does not know (round trips through ours only)
NOT_IREE = "yes,not-iree"

__all__ = ["COLUMNS", "NOT_IREE", "CoverageRow"]
