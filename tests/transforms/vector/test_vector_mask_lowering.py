"""`vector.mask` with a passthru and masked reductions, lowered as upstream (mask → select
with the passthru; reduction of `select(mask, source, neutral)`), run against NumPy on
odd sizes; `structured.vectorize` with vector sizes on reductions (the multi_reduction runs
under the iteration-space mask, as iree-opt emits it)."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.arith import SelectOp
from xlinalg.dialects.vector import MaskOp
from xlinalg.errors import TransformFailure, VerifyFailure
from xlinalg.transforms.vector.lower_mask import lower_mask_ops

from support import needs_iree, parse_module, run_iree_opt

RNG = np.random.default_rng(7)

PASSTHRU_READ = """func.func @f(%A: memref<{r}x{n}xf32>, %P: memref<{r}x16xf32>, %O: memref<{r}x16xf32>) {{
  %c0 = arith.constant 0 : index
  %cr = arith.constant {rows} : index
  %cn = arith.constant {n} : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %cr, %cn : vector<{r}x16xi1>
  %p = vector.transfer_read %P[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{r}x16xf32>, vector<{r}x16xf32>
  %v = vector.mask %m, %p {{ vector.transfer_read %A[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{r}x{n}xf32>, vector<{r}x16xf32> }} : vector<{r}x16xi1> -> vector<{r}x16xf32>
  vector.transfer_write %v, %O[%c0, %c0] {{in_bounds = [true, true]}} : vector<{r}x16xf32>, memref<{r}x16xf32>
  return
}}
"""


@pytest.mark.parametrize(("r", "rows", "n"), [(3, 3, 13), (3, 2, 13), (1, 1, 5), (2, 1, 16)])
def test_masked_read_with_passthru(r: int, rows: int, n: int) -> None:
    kernel = xlinalg.compile(PASSTHRU_READ.format(r=r, rows=rows, n=n), entry="f")
    a = RNG.standard_normal((r, n)).astype(np.float32)
    p = RNG.standard_normal((r, 16)).astype(np.float32)
    out = np.full((r, 16), np.nan, np.float32)
    kernel(a, p, out)
    want = p.copy()
    want[:rows, :n] = a[:rows, :n]
    np.testing.assert_array_equal(out, want)


def test_passthru_becomes_a_select_with_a_vector_condition() -> None:
    module = parse_module(PASSTHRU_READ.format(r=3, rows=2, n=13))
    lower_mask_ops(module)
    module.verify()
    assert not any(isinstance(op, MaskOp) for op in module.walk())
    selects = [op for op in module.walk() if isinstance(op, SelectOp)]
    assert len(selects) == 1
    assert selects[0].is_per_lane


ELEMENTWISE = """func.func @f(%A: memref<16xf32>, %B: memref<16xf32>, %P: memref<16xf32>, %O: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 11 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %n : vector<16xi1>
  %a = vector.transfer_read %A[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %b = vector.transfer_read %B[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %p = vector.transfer_read %P[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %s = vector.mask %m, %p { arith.addf %a, %b : vector<16xf32> } : vector<16xi1> -> vector<16xf32>
  vector.transfer_write %s, %O[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}
"""


def test_masked_elementwise_with_passthru() -> None:
    kernel = xlinalg.compile(ELEMENTWISE, entry="f")
    a, b, p = (RNG.standard_normal(16).astype(np.float32) for _ in range(3))
    out = np.zeros(16, np.float32)
    kernel(a, b, p, out)
    np.testing.assert_array_equal(out, np.where(np.arange(16) < 11, a + b, p))


REDUCTION_1D = """func.func @f(%A: memref<16x{t}>, %Acc: memref<1x{t}>, %O: memref<1x{t}>) {{
  %c0 = arith.constant 0 : index
  %n = arith.constant {n} : index
  %pad = arith.constant {zero} : {t}
  %m = vector.create_mask %n : vector<16xi1>
  %a = vector.transfer_read %A[%c0], %pad {{in_bounds = [true]}} : memref<16x{t}>, vector<16x{t}>
  %acc = memref.load %Acc[%c0] : memref<1x{t}>
  %r = vector.mask %m {{ vector.reduction <{kind}>, %a, %acc : vector<16x{t}> into {t} }} : vector<16xi1> -> {t}
  memref.store %r, %O[%c0] : memref<1x{t}>
  return
}}
"""

_NUMPY = {
    "add": np.add,
    "mul": np.multiply,
    "maximumf": np.maximum,
    "minimumf": np.minimum,
    "maxnumf": np.fmax,
    "minnumf": np.fmin,
    "maxsi": np.maximum,
    "minsi": np.minimum,
    "maxui": np.maximum,
    "minui": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}
_FLOAT_KINDS = ["add", "mul", "maximumf", "minimumf", "maxnumf", "minnumf"]
_INT_KINDS = ["add", "mul", "maxsi", "minsi", "maxui", "minui", "and", "or", "xor"]


def _operand(t: str, shape) -> np.ndarray:
    if t == "f32":
        # lanes past the mask are huge: any leak into the result shows
        return (RNG.standard_normal(shape) * 0.3 + 1.0).astype(np.float32)
    dtype = {"i32": np.int32, "ui32": np.uint32}[t]
    return RNG.integers(1, 1000, shape).astype(dtype)


def _poison_tail(a: np.ndarray, n: int, t: str) -> None:
    a[..., n:] = 1e30 if t == "f32" else (-7 if t == "i32" else 0)


@pytest.mark.parametrize(
    ("kind", "t"), [(k, "f32") for k in _FLOAT_KINDS] + [(k, "i32") for k in _INT_KINDS]
)
@pytest.mark.parametrize("n", [1, 11])
def test_masked_vector_reduction(kind: str, t: str, n: int) -> None:
    zero = "0.0" if t == "f32" else "0"
    kernel = xlinalg.compile(REDUCTION_1D.format(t=t, n=n, kind=kind, zero=zero), entry="f")
    a = _operand(t, 16)
    _poison_tail(a, n, t)
    acc = _operand(t, 1)
    out = np.zeros(1, a.dtype)
    kernel(a, acc, out)
    fn = _NUMPY[kind]
    view = a.view(np.uint32) if kind in ("maxui", "minui") else a
    want = fn.reduce(view[:n], initial=None)
    want = np.array(fn(acc.view(view.dtype)[0], want)).astype(view.dtype)  # wraps as i32
    got = out.view(view.dtype)[0]
    if t == "f32":
        np.testing.assert_allclose(got, want, rtol=1e-5)
    else:
        assert got == want


MULTI = """func.func @f(%A: memref<{r}x{c}xf32>, %Acc: memref<{r}xf32>, %O: memref<{r}xf32>) {{
  %c0 = arith.constant 0 : index
  %cr = arith.constant {rows} : index
  %cc = arith.constant {cols} : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %cr, %cc : vector<{r}x{c}xi1>
  %a = vector.transfer_read %A[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{r}x{c}xf32>, vector<{r}x{c}xf32>
  %acc = vector.transfer_read %Acc[%c0], %pad {{in_bounds = [true]}} : memref<{r}xf32>, vector<{r}xf32>
  %x = vector.mask %m {{ vector.multi_reduction <{kind}>, %a, %acc [{dim}] : vector<{r}x{c}xf32> to vector<{r}xf32> }} : vector<{r}x{c}xi1> -> vector<{r}xf32>
  vector.transfer_write %x, %O[%c0] {{in_bounds = [true]}} : vector<{r}xf32>, memref<{r}xf32>
  return
}}
"""


@pytest.mark.parametrize("kind", ["add", "mul", "maximumf", "minnumf"])
@pytest.mark.parametrize(("r", "c", "rows", "cols"), [(4, 16, 3, 13), (3, 8, 3, 1)])
def test_masked_multi_reduction(kind: str, r: int, c: int, rows: int, cols: int) -> None:
    kernel = xlinalg.compile(
        MULTI.format(r=r, c=c, rows=rows, cols=cols, kind=kind, dim=1), entry="f"
    )
    a = _operand("f32", (r, c))
    a[rows:, :] = 1e30
    a[:, cols:] = 1e30
    acc = _operand("f32", r)
    out = np.zeros(r, np.float32)
    kernel(a, acc, out)
    fn = _NUMPY[kind]
    want = fn(acc[:rows], fn.reduce(a[:rows, :cols], axis=1))
    np.testing.assert_allclose(out[:rows], want, rtol=1e-5)
    # rows past the mask reduce nothing: their accumulator comes back
    np.testing.assert_array_equal(out[rows:], acc[rows:])


PASSTHRU_MULTI = MULTI.format(r=4, c=16, rows=3, cols=13, kind="add", dim=1).replace(
    "vector.mask %m {", "vector.mask %m, %acc {"
)
PASSTHRU_SCALAR = REDUCTION_1D.format(t="f32", n=3, kind="add", zero="0.0").replace(
    "vector.mask %m {", "vector.mask %m, %acc {"
)


@pytest.mark.parametrize(
    ("text", "name"),
    [(PASSTHRU_SCALAR, "vector.reduction"), (PASSTHRU_MULTI, "vector.multi_reduction")],
)
def test_passthru_on_a_reduction_does_not_verify(text: str, name: str) -> None:
    """Upstream's MaskableOpInterface: a reduction supports no passthru (a scalar one has
    no lanes, and the reduced lanes are the neutral element's): the IR does not verify."""
    assert "vector.mask %m, %acc {" in text
    with pytest.raises(
        VerifyFailure,
        match=f"doesn't expect a passthru argument for this maskable operation '{name}'",
    ):
        xlinalg.compile(text, entry="f")


@needs_iree
@pytest.mark.parametrize("text", [PASSTHRU_SCALAR, PASSTHRU_MULTI])
def test_iree_opt_refuses_a_passthru_on_a_reduction(text: str) -> None:
    proc = run_iree_opt(text)
    assert proc.returncode != 0
    assert "doesn't expect a passthru argument for this maskable operation" in proc.stderr
    # without the passthru both verify
    plain = text.replace("vector.mask %m, %acc {", "vector.mask %m {")
    assert run_iree_opt(plain).returncode == 0


REDUCE = """func.func @r(%A: memref<{m}x{n}xf32>, %O: memref<{m}xf32>) {{
  linalg.reduce ins(%A : memref<{m}x{n}xf32>) outs(%O : memref<{m}xf32>) dimensions = [1]
    (%a: f32, %o: f32) {{
      %s = {op} %a, %o : f32
      linalg.yield %s : f32
    }}
  return
}}
"""
SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %r vector_sizes [16, 32] : !transform.any_op
    transform.yield
  }
}
"""
_REDUCE_OPS = {
    "add": "arith.addf",
    "mul": "arith.mulf",
    "maximumf": "arith.maximumf",
    "minimumf": "arith.minimumf",
}


@pytest.mark.parametrize("kind", list(_REDUCE_OPS))
@pytest.mark.parametrize(("m", "n"), [(13, 21), (16, 5), (1, 32)])
def test_vectorize_reduction_with_non_dividing_sizes(kind: str, m: int, n: int) -> None:
    payload = REDUCE.format(m=m, n=n, op=_REDUCE_OPS[kind])
    kernel = xlinalg.compile(payload, SCHEDULE, entry="r")
    a = _operand("f32", (m, n))
    if kind == "maximumf":
        a = -a  # all negative: a zero leaking in from the padding would show
    o = _operand("f32", m)
    want = _NUMPY[kind](o, _NUMPY[kind].reduce(a, axis=1))
    kernel(a, o)
    np.testing.assert_allclose(o, want, rtol=1e-5)


@needs_iree
def test_vectorized_reduction_matches_iree_opt_structure() -> None:
    payload = REDUCE.format(m=13, n=21, op="arith.mulf")
    proc = run_iree_opt(payload + SCHEDULE, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    ours = str(xlinalg.apply_schedule(payload, SCHEDULE))

    def masked_ops(text: str) -> list[str]:
        out = []
        for line in text.split("module attributes")[0].splitlines():
            if "vector.mask" in line:
                inner = line.split("{", 1)[1].split()[0]
                out.append(inner + " " + line.rsplit(":", 1)[1].strip())
        return out

    assert masked_ops(ours) == masked_ops(proc.stdout)
    # and iree-opt reads what we print
    check = run_iree_opt(ours)
    assert check.returncode == 0, check.stderr


def test_vectorize_failure_modes_unchanged() -> None:
    payload = REDUCE.format(m=13, n=21, op="arith.addf")
    with pytest.raises(TransformFailure, match="smaller than the static size"):
        xlinalg.apply_schedule(payload, SCHEDULE.replace("[16, 32]", "[8, 32]"))
    with pytest.raises(TransformFailure, match="expected 2 vector sizes"):
        xlinalg.apply_schedule(payload, SCHEDULE.replace("[16, 32]", "[16]"))


MASKEDLOAD = """func.func @f(%A: memref<16xf32>, %P: memref<16xf32>, %O: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 9 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %n : vector<16xi1>
  %p = vector.transfer_read %P[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %v = vector.maskedload %A[%c0], %m, %p : memref<16xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  vector.transfer_write %v, %O[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}
"""


def test_maskedload_with_a_vector_pass_through() -> None:
    """Not a splat: the masked-off lanes are selected from the pass-through."""
    kernel = xlinalg.compile(MASKEDLOAD, entry="f")
    a, p = (RNG.standard_normal(16).astype(np.float32) for _ in range(2))
    out = np.zeros(16, np.float32)
    kernel(a, p, out)
    np.testing.assert_array_equal(out, np.where(np.arange(16) < 9, a, p))


RELU = """#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%A: memref<{m}x{n}xf32>, %O: memref<{m}x{n}xf32>) {{
  linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}} ins(%A : memref<{m}x{n}xf32>) outs(%O : memref<{m}x{n}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %s = arith.select %c, %a, %z : f32
    linalg.yield %s : f32
  }}
  return
}}
"""


@pytest.mark.parametrize(
    ("m", "n", "sizes"),
    [(13, 21, "vector_sizes [16, 32]"), (16, 32, ""), (1, 7, "vector_sizes [1, 16]")],
)
def test_vectorize_body_with_compare_and_select(m: int, n: int, sizes: str) -> None:
    """The body's cmpf/select become vector compares and a per-lane select."""
    schedule = SCHEDULE.replace("linalg.reduce", "linalg.generic").replace(
        "vector_sizes [16, 32]", sizes
    )
    kernel = xlinalg.compile(RELU.format(m=m, n=n), schedule, entry="relu")
    a = RNG.standard_normal((m, n)).astype(np.float32)
    out = np.zeros_like(a)
    kernel(a, out)
    np.testing.assert_array_equal(out, np.maximum(a, 0))
