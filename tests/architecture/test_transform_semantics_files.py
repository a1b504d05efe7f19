"""Every transform op's semantics is in the interpreter module named as its definition module:
`xlinalg/dialects/transform/X.py` defines ops, `xlinalg/interpreter/ops/X.py` applies them."""

from __future__ import annotations

import xlinalg.interpreter  # noqa: F401  (registers every op's semantics)
from xlinalg.dialects.transform import TRANSFORM_DIALECTS
from xlinalg.interpreter.registry import PATTERN_SETS, TRANSFORM_IMPLS


def _stem(module: str) -> str:
    return module.rsplit(".", 1)[-1]


def test_each_op_is_applied_in_the_module_named_as_its_definition() -> None:
    ours = {
        op: apply for op, apply in TRANSFORM_IMPLS.items() if op.__module__.startswith("xlinalg.")
    }  # (tests register test ops too)
    assert len(ours) > 60
    mismatched = sorted(
        f"{op.name}: defined in {op.__module__}, applied in {apply.__module__}"
        for op, apply in ours.items()
        if _stem(op.__module__) != _stem(apply.__module__)
        or not op.__module__.startswith("xlinalg.dialects.transform.")
        or not apply.__module__.startswith("xlinalg.interpreter.ops.")
    )
    assert mismatched == []


def test_each_pattern_descriptor_is_applied_in_the_module_named_as_its_definition() -> None:
    assert len(PATTERN_SETS) > 15
    mismatched = []
    for op, pattern_set in PATTERN_SETS.items():
        fns = [f for f in (pattern_set.patterns, pattern_set.rewrite) if f is not None]
        mismatched += [
            f"{op.name}: {f.__module__}" for f in fns if _stem(f.__module__) != _stem(op.__module__)
        ]
    assert mismatched == []


#: the spec's spellings that parse into their current upstream op (never in the IR)
PARSED_AS_ANOTHER_OP = {
    "transform.split_handles",
    "transform.structured.tile",
    "transform.structured.tile_to_scf_for",
}


def test_every_op_of_the_transform_dialects_has_semantics() -> None:
    ops = [
        op
        for dialect in TRANSFORM_DIALECTS
        for op in dialect.operations
        if not op.name.startswith(("pdl.", "transform.yield"))
        and op.name not in PARSED_AS_ANOTHER_OP
    ]
    missing = sorted(op.name for op in ops if op not in TRANSFORM_IMPLS and op not in PATTERN_SETS)
    assert missing == []
