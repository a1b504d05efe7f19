"""Verify-time rules of transform.named_sequence / transform.include (spec §named_sequence,
upstream's verifier): recursion, unknown callee, operand/result types and counts, effect
annotations, the `transform.with_named_sequence` attribute, top-level placement. Each
message is compared with the reason iree-opt gives for the same text where it is installed."""

from __future__ import annotations

import re

import pytest

import xlinalg
from xlinalg.errors import TransformFailure, VerifyFailure

from support import needs_iree, run_iree_opt

TESTED_OPS = ["transform.include", "transform.named_sequence"]


def module(body: str, attrs: str = " attributes {transform.with_named_sequence}") -> str:
    return f"module{attrs} {{\n{body}\n}}\n"


ANY = "!transform.any_op"
IDENTITY = f"""
  transform.named_sequence @id(%x: {ANY} {{transform.readonly}}) -> {ANY} {{
    transform.yield %x : {ANY}
  }}"""


def caller(call: str, arg_type: str = ANY) -> str:
    return f"""
  transform.named_sequence @__transform_main(%x: {arg_type} {{transform.readonly}}) {{
    {call}
    transform.yield
  }}"""


CASES = {
    "recursion": (
        module(f"""
  transform.named_sequence @rec(%x: {ANY} {{transform.readonly}}) {{
    transform.include @rec2 failures(propagate) (%x) : ({ANY}) -> ()
    transform.yield
  }}
  transform.named_sequence @rec2(%x: {ANY} {{transform.readonly}}) {{
    transform.include @rec failures(suppress) (%x) : ({ANY}) -> ()
    transform.yield
  }}"""),
        r"recursion not allowed in named sequences \(@rec -> @rec2 -> @rec\)",
        "recursion not allowed in named sequences",
    ),
    "self recursion": (
        module(f"""
  transform.named_sequence @me(%x: {ANY} {{transform.readonly}}) {{
    transform.include @me failures(propagate) (%x) : ({ANY}) -> ()
    transform.yield
  }}"""),
        r"recursion not allowed in named sequences \(@me -> @me\)",
        "recursion not allowed in named sequences",
    ),
    "unknown callee": (
        module(
            IDENTITY + caller(f"transform.include @nope failures(propagate) (%x) : ({ANY}) -> ()")
        ),
        "@nope does not reference a named transform sequence",
        "does not reference a named transform sequence",
    ),
    "operand type": (
        module(
            IDENTITY
            + caller(
                '%r = transform.include @id failures(propagate) (%x) : (!transform.op<"func.func">) -> '
                + ANY,
                '!transform.op<"func.func">',
            )
        ),
        (
            r"operand type mismatch: expected operand type !transform.any_op, but provided "
            r'!transform.op<"func.func"> for operand number 0'
        ),
        "operand type mismatch",
    ),
    "operand count": (
        module(
            IDENTITY
            + caller(
                f"%r = transform.include @id failures(propagate) (%x, %x) : ({ANY}, {ANY}) -> {ANY}"
            )
        ),
        "incorrect number of operands for callee @id: it takes 1, 2 given",
        None,  # iree-opt 3.13 crashes on this input
    ),
    "result type": (
        module(
            IDENTITY
            + caller(
                f"%r = transform.include @id failures(propagate) (%x) : ({ANY}) -> !transform.any_value"
            )
        ),
        "type of result #0 must implement the same transform dialect interface as the corresponding callee result",
        "type of result #0 must implement the same transform dialect interface",
    ),
    "result count": (
        module(
            IDENTITY + caller(f"transform.include @id failures(propagate) (%x) : ({ANY}) -> ()")
        ),
        "incorrect number of results for callee @id: it yields 1, 0 expected",
        "incorrect number of results for callee",
    ),
    "missing effect": (
        module(
            f"""
  transform.named_sequence @bare(%x: {ANY}) {{
    transform.yield
  }}"""
            + caller(f"transform.include @bare failures(propagate) (%x) : ({ANY}) -> ()")
        ),
        r"argument #0 of @bare must be marked \{transform.readonly\} or \{transform.consumed\}",
        "memory effects on operands to be specified",
    ),
    "consumed but not marked": (
        module(f"""
  transform.named_sequence @t(%x: {ANY} {{transform.readonly}}) {{
    %a, %b = transform.structured.tile_using_for %x tile_sizes [4] : ({ANY}) -> ({ANY}, {ANY})
    transform.yield
  }}"""),
        "@t: argument #0 is consumed in the body but is not marked as such",
        "is consumed in the body but is not marked as such",
    ),
    "no with_named_sequence": (
        module(
            f"""
  transform.named_sequence @a(%x: {ANY} {{transform.readonly}}) {{
    transform.yield
  }}""",
            attrs="",
        ),
        "expects the parent symbol table to have the 'transform.with_named_sequence' attribute",
        "expects the parent symbol table to have the 'transform.with_named_sequence' attribute",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejected_at_verify_time(case: str) -> None:
    text, ours, _ = CASES[case]
    with pytest.raises(VerifyFailure, match=ours):
        xlinalg.parse(text, "schedule")


@needs_iree
@pytest.mark.parametrize("case", list(CASES))
def test_upstream_rejects_the_same_text(case: str) -> None:
    text, _, theirs = CASES[case]
    done = run_iree_opt(text)
    assert done.returncode != 0, done.stdout
    assert theirs is None or theirs in done.stderr, done.stderr


def test_named_sequence_nested_in_a_transform_op_is_rejected() -> None:
    text = module(f"""
  transform.sequence failures(propagate) {{
  ^bb0(%r: {ANY}):
    transform.named_sequence @inner(%x: {ANY} {{transform.readonly}}) {{
      transform.yield
    }}
  }}""")
    with pytest.raises(VerifyFailure, match="cannot be defined inside another transform op"):
        xlinalg.parse(text, "schedule")


PAYLOAD = """
func.func @f(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
"""


def test_include_result_may_narrow_the_handle_type() -> None:
    """Upstream accepts a result of the same kind of handle; the payload type is checked at run time."""
    narrow = module(
        IDENTITY
        + caller(
            f'%r = transform.include @id failures(propagate) (%x) : ({ANY}) -> !transform.op<"func.func">'
        )
    )
    xlinalg.parse(narrow, "schedule")

    with pytest.raises(TransformFailure, match=re.escape("func.func")):
        xlinalg.apply_schedule(PAYLOAD, narrow)


def test_valid_includes_verify_and_run() -> None:
    """A diamond of includes (shared callee, no cycle), consumed arguments forwarded."""
    schedule = module(f"""
  transform.named_sequence @leaf(%x: {ANY} {{transform.readonly}}) -> {ANY} {{
    %p = transform.get_parent_op %x <op_name = "func.func"> : ({ANY}) -> {ANY}
    transform.yield %p : {ANY}
  }}
  transform.named_sequence @left(%x: {ANY} {{transform.readonly}}) -> {ANY} {{
    %p = transform.include @leaf failures(propagate) (%x) : ({ANY}) -> {ANY}
    transform.yield %p : {ANY}
  }}
  transform.named_sequence @tile(%x: {ANY} {{transform.consumed}}) {{
    %a, %b = transform.structured.tile_using_for %x tile_sizes [4] : ({ANY}) -> ({ANY}, {ANY})
    transform.yield
  }}
  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{
    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}
    %f1 = transform.include @left failures(propagate) (%mm) : ({ANY}) -> {ANY}
    %f2 = transform.include @leaf failures(propagate) (%mm) : ({ANY}) -> {ANY}
    transform.annotate %f1 "seen" : {ANY}
    transform.include @tile failures(propagate) (%mm) : ({ANY}) -> ()
    transform.yield
  }}""")
    out = xlinalg.apply_schedule(PAYLOAD, schedule)
    text = str(out)
    assert "seen" in text
    assert "scf.for" in text
