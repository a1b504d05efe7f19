"""iree_linalg_ext: every op and attribute round-trips (ours, and through IREE's
`iree-opt` for the ops it still has in this syntax), and every verifier rule gives
its own clear message."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import VERIFY_CASES
from xlinalg.coverage.linalg_ext_samples import SAMPLES
from xlinalg.coverage.rows import NOT_IREE
from xlinalg.coverage.table import coverage_rows
from xlinalg.errors import XlinalgError

from support import needs_iree, run_iree_opt

CASES = SAMPLES


def func(args: str, body: str) -> str:
    return f"func.func @f({args}) {{{body}\n  return\n}}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    args, body, _ = CASES[name]
    printed = str(xlinalg.parse(func(args, body)))
    again = str(xlinalg.parse(printed))
    assert printed == again
    # the op keeps its upstream spelling (no generic form)
    assert '"iree_linalg_ext.' not in printed


def test_legacy_dims_pos_is_normalized() -> None:
    text = func(
        "%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""",
    )
    printed = str(xlinalg.parse(text))
    assert "inner_dims_pos = [1, 0]" in printed
    assert " dims_pos" not in printed.replace("inner_dims_pos", "")


def test_role_attribute_round_trip() -> None:
    text = func(
        "",
        """
  %c = arith.constant {role = #iree_linalg_ext.role<RHS>} 0 : index""",
    )
    assert "#iree_linalg_ext.role<RHS>" in str(xlinalg.parse(text))


@needs_iree
def test_iree_opt_accepts_what_we_print() -> None:
    """One module with every op iree-opt knows; IREE re-prints it and we parse that back
    to the same text."""
    names = sorted(n for n, (_, _, iree) in CASES.items() if iree)
    text = "\n".join(func(CASES[n][0], CASES[n][1]).replace("@f(", f"@{n}(") for n in names)
    ours = str(xlinalg.parse(text))
    done = run_iree_opt(ours)
    assert done.returncode == 0, done.stderr
    assert _same_ops(done.stdout, ours)


@needs_iree
def test_iree_opt_does_not_know_the_other_ops() -> None:
    """The ops whose coverage row says `not-iree` really are unknown to IREE 3.13 (moved
    to other dialects or removed there): in generic form iree-opt reports each as an
    unregistered operation, while a registered op (scan) fails its verifier instead."""
    not_iree = sorted(
        row.op
        for row in coverage_rows()
        if row.op.startswith("iree_linalg_ext.") and row.parse == NOT_IREE
    )
    assert {
        "iree_linalg_ext.reverse",
        "iree_linalg_ext.pack",
        "iree_linalg_ext.unpack",
        "iree_linalg_ext.set_encoding",
    } <= set(not_iree)
    for op in [*not_iree, "iree_linalg_ext.scan"]:
        text = f'func.func @f() {{\n  "{op}"() : () -> ()\n  return\n}}\n'
        done = run_iree_opt(text)
        assert done.returncode != 0, op
        unknown = f"unregistered operation '{op}'" in done.stderr
        assert unknown == (op != "iree_linalg_ext.scan"), (op, done.stderr)


def _same_ops(a: str, b: str) -> bool:
    """The same sequence of iree_linalg_ext op lines, SSA names aside."""

    def lines(text: str) -> list[str]:
        module = str(xlinalg.parse(text))
        return [
            re.sub(r"%[\w#]+", "%_", ln.strip())
            for ln in module.splitlines()
            if "iree_linalg_ext." in ln
        ]

    return lines(a) == lines(b)


# ---------------------------------------------------------------- verifier
BAD = VERIFY_CASES


@pytest.mark.parametrize(("args", "body", "message"), BAD, ids=[m[:40] for _, _, m in BAD])
def test_verifier_messages(args: str, body: str, message: str) -> None:
    with pytest.raises(XlinalgError) as info:
        xlinalg.parse(func(args, body))
    assert message in str(info.value), str(info.value)


# ---------------------------------------------------------------- attention, IREE 3.13 spelling
_ATT_ARGS = "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x3xf32>, %o: memref<2x8x3xf32>, %s: f32"
_MAPS = (
    "[affine_map<(b, m, n, k1, k2) -> (b, m, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, k1)>, "
    "affine_map<(b, m, n, k1, k2) -> ({v})>, affine_map<(b, m, n, k1, k2) -> ()>, "
    "affine_map<(b, m, n, k1, k2) -> (b, m, n)>]"
)


def _iree_attention(maps: str, region: str = "%x", v_type: str = "memref<2x6x3xf32>") -> str:
    return func(
        _ATT_ARGS.replace("memref<2x6x3xf32>", v_type),
        f"""
  iree_linalg_ext.attention <indexing_maps = {maps}> ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, {v_type}, f32) outs(%o : memref<2x8x3xf32>) {{
  ^bb0(%x: f32):
    iree_linalg_ext.yield {region} : f32
  }}""",
    )


def test_attention_iree_spelling_is_seed_spelling() -> None:
    """IREE's maps with V (batch, n, k2) are seed 004's transpose_v; both spellings print alike."""
    seed = func(
        _ATT_ARGS.replace("memref<2x6x3xf32>", "memref<2x3x6xf32>"),
        """
  iree_linalg_ext.attention {transpose_v = true} ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x3x6xf32>, f32) outs(%o : memref<2x8x3xf32>)""",
    )
    iree = _iree_attention(_MAPS.format(v="b, n, k2"), v_type="memref<2x3x6xf32>")
    assert str(xlinalg.parse(seed)) == str(xlinalg.parse(iree))
    (op,) = [o for o in xlinalg.parse(iree).walk() if o.name == "iree_linalg_ext.attention"]
    assert op.is_transpose_v  # type: ignore[attr-defined]
    plain = xlinalg.parse(_iree_attention(_MAPS.format(v="b, k2, n")))
    (op,) = [o for o in plain.walk() if o.name == "iree_linalg_ext.attention"]
    assert not op.is_transpose_v  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _iree_attention(_MAPS.format(v="b, k2, n"), region="%s"),
            "only the identity score modification",
        ),
        (_iree_attention(_MAPS.format(v="b, k2, m")), "unsupported attention indexing maps"),
        (
            _iree_attention(
                _MAPS.format(v="b, k2, n")[:-1] + ", affine_map<(b, m, n, k1, k2) -> (b, m, k2)>]"
            ),
            "masked attention",
        ),
    ],
)
def test_attention_iree_spelling_errors(text: str, message: str) -> None:
    with pytest.raises(XlinalgError, match=message):
        xlinalg.parse(text)


@needs_iree
def test_attention_iree_output_runs() -> None:
    """What iree-opt prints for our attention parses back and computes softmax(QK^T s)V."""
    printed = str(xlinalg.parse(_iree_attention(_MAPS.format(v="b, k2, n"))))
    done = run_iree_opt(printed)
    assert done.returncode == 0, done.stderr
    kernel = xlinalg.compile(done.stdout)
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 8, 4), (2, 6, 4), (2, 6, 3)))
    o = np.zeros((2, 8, 3), np.float32)
    kernel(q, k, v, o, np.float32(0.5))
    s = q.astype(np.float64) @ k.transpose(0, 2, 1) * 0.5
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(o, (p / p.sum(-1, keepdims=True)) @ v, rtol=1e-5, atol=1e-6)
