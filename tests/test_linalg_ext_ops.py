"""iree_linalg_ext: every op and attribute round-trips (ours, and through IREE's
`iree-opt` for the ops it still has in this syntax), and every verifier rule gives
its own clear message."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import xlinalg
from xlinalg.dialects.iree_linalg_ext.cases import VERIFY_CASES
from xlinalg.dialects.iree_linalg_ext.samples import SAMPLES
from xlinalg.errors import XlinalgError

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
    text = func("%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>", """
  iree_linalg_ext.unpack %b dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""")
    printed = str(xlinalg.parse(text))
    assert "inner_dims_pos = [1, 0]" in printed and " dims_pos" not in printed.replace("inner_dims_pos", "")


def test_role_attribute_round_trip() -> None:
    text = func("", """
  %c = arith.constant {role = #iree_linalg_ext.role<RHS>} 0 : index""")
    assert "#iree_linalg_ext.role<RHS>" in str(xlinalg.parse(text))


IREE_OPT = shutil.which("iree-opt")


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt is not installed")
def test_iree_opt_accepts_what_we_print() -> None:
    """One module with every op iree-opt knows; IREE re-prints it and we parse that back
    to the same text."""
    names = sorted(n for n, (_, _, iree) in CASES.items() if iree)
    text = "\n".join(func(CASES[n][0], CASES[n][1]).replace("@f(", f"@{n}(") for n in names)
    ours = str(xlinalg.parse(text))
    done = subprocess.run([IREE_OPT], input=ours, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert _same_ops(done.stdout, ours)


def _same_ops(a: str, b: str) -> bool:
    """The same sequence of iree_linalg_ext op lines, SSA names aside."""
    import re

    def lines(text: str) -> list[str]:
        module = str(xlinalg.parse(text))
        return [re.sub(r"%[\w#]+", "%_", ln.strip()) for ln in module.splitlines() if "iree_linalg_ext." in ln]

    return lines(a) == lines(b)


# ---------------------------------------------------------------- verifier
BAD = VERIFY_CASES


@pytest.mark.parametrize("args,body,message", BAD, ids=[m[:40] for _, _, m in BAD])
def test_verifier_messages(args: str, body: str, message: str) -> None:
    with pytest.raises(XlinalgError) as info:
        xlinalg.parse(func(args, body))
    assert message in str(info.value), str(info.value)
