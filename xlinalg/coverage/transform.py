"""Coverage of the Transform dialect spec, generated from the code.

- implemented: the op class is registered in one of `TRANSFORM_DIALECTS` and
  the interpreter has an implementation for it (`TRANSFORM_IMPLS`);
- tests: the test files whose module-level `TESTED_OPS` list names the op
  (read from the test sources with `ast`, nothing is imported).

`print_transform_coverage()` prints the table as Markdown (used for the README).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from xdsl.ir import Operation

from xlinalg.dialects.transform import TRANSFORM_DIALECTS
from xlinalg.interpreter import TRANSFORM_IMPLS

# The 73 ops of the spec ([002], LLVM-17 era), in its order. Where upstream
# renamed an op, RENAMED maps the spec name to the op name we register.
SPEC_OPS: tuple[str, ...] = (
    "transform.alternatives",
    "transform.cast",
    "transform.foreach",
    "transform.get_closest_isolated_parent",
    "transform.get_consumers_of_result",
    "transform.get_defining_op",
    "transform.get_producer_of_operand",
    "transform.get_result",
    "transform.include",
    "transform.merge_handles",
    "transform.named_sequence",
    "transform.pdl_match",
    "transform.print",
    "transform.replicate",
    "transform.sequence",
    "transform.split_handles",
    "transform.with_pdl_patterns",
    "transform.yield",
    "transform.affine.simplify_bounded_affine_ops",
    "transform.bufferization.empty_tensor_to_alloc_tensor",
    "transform.bufferization.one_shot_bufferize",
    "transform.gpu.map_forall_to_blocks",
    "transform.gpu.map_nested_forall_to_threads",
    "transform.loop.get_parent_for",
    "transform.loop.coalesce",
    "transform.loop.outline",
    "transform.loop.peel",
    "transform.loop.pipeline",
    "transform.loop.unroll",
    "transform.memref.multibuffer",
    "transform.structured.bufferize_to_allocation",
    "transform.structured.convert_conv2d_to_img2col",
    "transform.structured.decompose",
    "transform.structured.fuse_into_containing_op",
    "transform.structured.fuse",
    "transform.structured.generalize",
    "transform.structured.hoist_pad",
    "transform.structured.hoist_redundant_tensor_subsets",
    "transform.structured.hoist_redundant_vector_transfers",
    "transform.structured.interchange",
    "transform.structured.lower_pack",
    "transform.structured.lower_unpack",
    "transform.structured.masked_vectorize",
    "transform.structured.match",
    "transform.structured.multitile_sizes",
    "transform.structured.pack_greedily",
    "transform.structured.pack",
    "transform.structured.pack_transpose",
    "transform.structured.pad",
    "transform.structured.promote",
    "transform.structured.replace",
    "transform.structured.rewrite_in_destination_passing_style",
    "transform.structured.scalarize",
    "transform.structured.split",
    "transform.structured.split_reduction",
    "transform.structured.tile",
    "transform.structured.tile_reduction_using_forall",
    "transform.structured.tile_reduction_using_scf",
    "transform.structured.tile_to_forall_op",
    "transform.structured.tile_to_scf_for",
    "transform.structured.vectorize",
    "transform.vector.apply_rank_reducing_subview_patterns",
    "transform.vector.apply_transfer_permutation_patterns",
    "transform.vector.lower_broadcast",
    "transform.vector.lower_contraction",
    "transform.vector.lower_mask",
    "transform.vector.lower_multi_reduction",
    "transform.vector.lower_outerproduct",
    "transform.vector.lower_shape_cast",
    "transform.vector.lower_transfer",
    "transform.vector.lower_transpose",
    "transform.vector.split_transfer_full_partial",
    "transform.vector.transfer_to_scf",
)

RENAMED: dict[str, str] = {
    "transform.split_handles": "transform.split_handle",
    "transform.structured.tile": "transform.structured.tile_using_for",
    "transform.structured.tile_to_scf_for": "transform.structured.tile_using_for",
    "transform.structured.tile_to_forall_op": "transform.structured.tile_using_forall",
}
"""Spec name -> current upstream name (the spec spelling parses to the latter).
Ops whose legacy spelling is registered as its own op class are not listed."""


@dataclass(frozen=True)
class CoverageRow:
    op: str
    in_spec: bool
    implemented: bool
    tests: tuple[str, ...]


def transform_op_classes() -> dict[str, type[Operation]]:
    """Every transform op class registered in `TRANSFORM_DIALECTS`, by name."""
    classes: dict[str, type[Operation]] = {}
    for dialect in TRANSFORM_DIALECTS:
        for op in dialect.operations:
            if op.name.startswith("transform."):
                classes[op.name] = op
    return classes


def tests_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "tests"


def tested_ops(directory: Path | None = None) -> dict[str, list[str]]:  # noqa: PT028  (not a test)
    """op name -> test files whose module-level `TESTED_OPS` list names it."""
    directory = directory or tests_dir()
    found: dict[str, list[str]] = {}
    if not directory.is_dir():
        return found
    for path in sorted(directory.rglob("test_*.py"), key=lambda p: p.name):
        try:
            tree = ast.parse(path.read_text())
        except SyntaxError:
            continue
        for node in tree.body:
            target = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            if not (isinstance(target, ast.Name) and target.id == "TESTED_OPS"):
                continue
            if isinstance(value, ast.List | ast.Tuple):
                for element in value.elts:
                    if isinstance(element, ast.Constant) and isinstance(element.value, str):
                        found.setdefault(element.value, []).append(path.name)
    return found


def coverage_table(directory: Path | None = None) -> list[CoverageRow]:
    """One row per spec op, then one per extra (non-spec) registered op."""
    classes = transform_op_classes()
    tested = tested_ops(directory)

    def implemented(name: str) -> bool:
        cls = classes.get(name)
        if cls is None:
            return False
        if name == "transform.yield" or name.startswith("transform.apply_patterns."):
            return True  # terminators and pattern descriptors run inside their parent op
        return cls in TRANSFORM_IMPLS

    rows: list[CoverageRow] = []
    for spec_name in SPEC_OPS:
        renamed = RENAMED.get(spec_name)
        name = renamed if renamed is not None and renamed in classes else spec_name
        tests = tuple(sorted(set(tested.get(name, []) + tested.get(spec_name, []))))
        rows.append(CoverageRow(spec_name, True, implemented(name), tests))
    spec_names = {RENAMED.get(n, n) for n in SPEC_OPS} | set(SPEC_OPS)
    for name in sorted(classes):
        if name in spec_names:
            continue
        if name in RENAMED and RENAMED[name] in classes:
            continue  # legacy spellings parsed into their current op
        rows.append(
            CoverageRow(name, False, implemented(name), tuple(sorted(set(tested.get(name, [])))))
        )
    return rows


def format_transform_coverage(directory: Path | None = None) -> str:
    rows = coverage_table(directory)
    spec = [r for r in rows if r.in_spec]
    done = sum(r.implemented for r in spec)
    tested = sum(bool(r.tests) for r in spec)
    lines = [
        f"Spec ops implemented: {done}/{len(spec)}; with tests: {tested}/{len(spec)}.",
        "",
        "| op | spec | implemented | tests |",
        "|---|---|---|---|",
    ]
    for row in rows:
        shown = row.op
        if row.op in RENAMED:
            shown = f"{row.op} (now {RENAMED[row.op]})"
        lines.append(
            f"| `{shown}` | {'yes' if row.in_spec else 'extra'} | "
            f"{'yes' if row.implemented else 'no'} | {', '.join(row.tests) or '-'} |"
        )
    return "\n".join(lines)


def print_transform_coverage(directory: Path | None = None) -> None:
    """Print the coverage table (Markdown) to stdout."""
    print(format_transform_coverage(directory))


__all__ = [
    "RENAMED",
    "SPEC_OPS",
    "CoverageRow",
    "coverage_table",
    "format_transform_coverage",
    "print_transform_coverage",
    "tested_ops",
    "transform_op_classes",
]
