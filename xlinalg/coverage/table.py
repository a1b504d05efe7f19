"""The op coverage table: op → parse, verify, generalize, run, tiled, derived from the code.

Every column of a table op is read from the case lists of
`xlinalg.coverage.linalg_samples`, the very lists the test-suite parametrizes over
(`tests/test_linalg_table*.py`), so a row claims only what its tests run:

- parse: custom, generic and tensor forms round-trip (`ROUND_TRIP_OPS`); `+iree` when
  the op is also round-tripped through upstream's `iree-opt` and its generalization
  compared with upstream's (maps, iterators, payload ops, values); `,not-iree` for the
  28 ops IREE 3.13's `iree-opt` does not register (`samples.NOT_UPSTREAM`: the 6 legacy
  ops, `select` and the 21 named unary/binary elementwise ops), which
  `tests/dialects/linalg/test_linalg_not_upstream.py` checks op by op (iree-opt: "custom op
  'linalg.<name>' is unknown"): those round-trip through our parser and printer only;
- verify: how many verifier rules are tested with their message (`verify_cases`);
- generalize: element types in which generalize ≡ named was evaluated (`GENERALIZE_CASES`);
- run: element types compiled to native code and checked against NumPy (`RUN_CASES`);
- tiled: element types tiled with non-dividing sizes, compiled and checked (`TILED_CASES`).

Other op families (hand-written linalg ops, LinalgExt) add their rows with `register`,
from the case lists their own tests use.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from xlinalg.coverage import linalg_ext_cases as ext_cases
from xlinalg.coverage import linalg_handwritten_cases as handwritten_cases
from xlinalg.coverage import linalg_samples as samples
from xlinalg.coverage.rows import COLUMNS, NOT_IREE, CoverageRow

_SOURCES: list[Callable[[], Iterable[CoverageRow]]] = []


def register(source: Callable[[], Iterable[CoverageRow]]) -> None:
    """Add a function producing the rows of another op family (called when printing)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def _types(cases: Iterable[tuple[str, str]], name: str) -> str:
    found = [elt for op, elt in cases if op == name]
    return ",".join(found) if found else "-"


def table_rows() -> list[CoverageRow]:
    """The rows of the named ops of the op table."""
    rows = []
    for name in samples.TABLE_OPS:
        parse = "-"
        if name in samples.ROUND_TRIP_OPS:
            parse = NOT_IREE if name in samples.NOT_UPSTREAM else "yes+iree"
        rules = len(samples.verify_cases(name))
        rows.append(
            CoverageRow(
                f"linalg.{name}",
                parse,
                f"{rules} rules" if rules else "-",
                _types(samples.GENERALIZE_CASES, name),
                _types(samples.RUN_CASES, name),
                _types(samples.TILED_CASES, name),
            )
        )
    return rows


def register_op_families() -> None:
    """Register the rows of the hand-written linalg ops and of `iree_linalg_ext`."""
    register(handwritten_cases.coverage_rows)
    register(ext_cases.coverage_rows)


def coverage_rows() -> list[CoverageRow]:
    register_op_families()
    rows = table_rows()
    for source in _SOURCES:
        rows.extend(source())
    return rows


def format_coverage(rows: Iterable[CoverageRow] | None = None) -> str:
    """The table as aligned text (with a one-line legend)."""
    rows = list(coverage_rows() if rows is None else rows)
    cells = [COLUMNS] + [(r.op, r.parse, r.verify, r.generalize, r.run, r.tiled) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append(
        "parse: custom/generic/tensor round trips (+iree: also through upstream iree-opt, "
        "generalization equal to upstream's; not-iree: iree-opt 3.13 does not register the op, "
        "so ours only); verify: verifier rules tested; generalize/run/"
        "tiled: element types tested (bf16 runs as ml_dtypes.bfloat16); n/a: generalize does "
        "not apply (not a structured op: a silenceable failure, as upstream); (materialized): "
        "tiled as the pack/mmt4d/unpack it materializes into (no tiling interface of its own, as "
        "in IREE 3.13); n/a (folds): becomes constants."
    )
    return "\n".join(lines) + "\n"


def print_coverage(file: TextIO = sys.stdout) -> None:
    """Print the coverage table (for `xlinalg ops`)."""
    file.write(format_coverage())


__all__ = [
    "coverage_rows",
    "format_coverage",
    "print_coverage",
    "register",
    "register_op_families",
    "table_rows",
]
