"""Helpers the test files share: parsing in xlinalg's context, the dominance check of
lowered IR, the tiny tuner payload/space, running the `xlinalg` command (in a child
interpreter or in this process) and opening the studies it writes, and upstream's
`iree-opt` (the skip marker of the tests that need it, and running it).

Imported as `from support import ...` (pytest puts `tests/` on `sys.path`, as for
`linalg_table_cases`)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import numpy as np
import optuna
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.parser import Parser

from xlinalg.lowering.abi import LoweredModule, MemRefArg, ScalarArg
from xlinalg.host import host_cpu_name, host_has_feature
from xlinalg.dialects.context import make_context

REPO = Path(__file__).resolve().parent.parent

needs_pipeline = pytest.mark.skipif(
    importlib.util.find_spec("xlinalg.lowering.pipeline") is None,
    reason="the lowering pipeline (xlinalg.lowering.pipeline) is not in the tree yet",
)

# ---------------------------------------------------------------- upstream iree-opt

IREE_OPT: str | None = shutil.which("iree-opt")
"""Upstream MLIR as IREE ships it (`iree-opt`, dev dependency iree-base-compiler), or None."""

_NO_IREE_OPT = "iree-opt (iree-base-compiler) is not installed"

needs_iree = pytest.mark.skipif(IREE_OPT is None, reason=_NO_IREE_OPT)

needs_avx512 = pytest.mark.skipif(
    not host_has_feature("avx512f"),
    reason="asserts the machine code of register blocks sized for AVX-512 (32 zmm registers, "
    "16 f32 lanes); this host has no AVX-512F",
)

SPILL_FREE_CPUS = frozenset({"znver4"})
"""LLVM CPU models on which the register blocks of the templates were measured free of
spills: register allocation follows the CPU's scheduling model, and e.g. skylake-avx512
spills a zmm register or a few in some of these blocks (checked by emulating its CPU name
and features through llvmlite)."""


def spills_are_checked() -> bool:
    """Whether this host's CPU model is one the no-spill assertions were measured on."""
    return host_has_feature("avx512f") and host_cpu_name() in SPILL_FREE_CPUS


def require_iree_opt() -> str:
    """The path of iree-opt, or skip the rest of the test (for a test that checks ours
    first and upstream after: `needs_iree` would skip all of it)."""
    if IREE_OPT is None:
        pytest.skip(_NO_IREE_OPT)
    return IREE_OPT


def run_iree_opt(
    source: str | Path, *flags: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`iree-opt FLAGS` on `source` (MLIR text, read from stdin, or the path of a file);
    never raises on a nonzero exit: the caller looks at `returncode` and `stderr`."""
    assert IREE_OPT is not None, "a test running iree-opt is marked @needs_iree"
    if isinstance(source, Path):
        return subprocess.run(
            [IREE_OPT, *flags, str(source)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    return subprocess.run(
        [IREE_OPT, *flags, "-"],
        input=source,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def iree_opt(source: str | Path, *flags: str) -> str:
    """What `iree-opt FLAGS` prints for `source`; fails the test with its errors if it
    rejects it."""
    done = run_iree_opt(source, *flags)
    assert done.returncode == 0, done.stderr[:4000]
    return done.stdout


def parse_module(text: str, allow_unregistered: bool = False) -> ModuleOp:
    """Parse and verify MLIR text in xlinalg's context (xDSL's own exceptions propagate)."""
    ctx = make_context()
    ctx.allow_unregistered = allow_unregistered
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


GENERALIZE_SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.generalize %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def generalize_transform_op() -> Operation:
    """The `transform.structured.generalize` op of GENERALIZE_SCHEDULE, parsed as the
    interpreter parses a schedule file named schedule.mlir (located at schedule.mlir:3:5)."""
    from xlinalg.interpreter import parse_module as parse_schedule

    module = parse_schedule(GENERALIZE_SCHEDULE, "schedule.mlir")
    return next(op for op in module.walk() if op.name == "transform.structured.generalize")


def assert_dominance(module: ModuleOp) -> None:
    """Every operand is defined before its use (in its block or an enclosing one).

    xDSL's verifier does not check dominance. Multi-block (cf) regions are
    checked loosely: any value of the region is visible in all its blocks.
    """

    def check(region: Region, visible: frozenset[SSAValue]) -> None:
        if len(region.blocks) > 1:
            everything = {a for b in region.blocks for a in b.args}
            everything |= {r for b in region.blocks for o in b.ops for r in o.results}
            visible = visible | everything
        for block in region.blocks:
            scope = set(visible) | set(block.args)
            for op in block.ops:
                for value in op.operands:
                    assert value in scope, f"'{op.name}' uses a value that does not dominate it"
                for inner in op.regions:
                    check(inner, frozenset(scope))
                scope |= set(op.results)

    check(module.body, frozenset())


# ---------------------------------------------------------------- llvmlite runner

_CTYPES: dict[np.dtype[Any], Any] = {
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.bool_): ctypes.c_bool,
}


@functools.cache
def _initialize_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    # libm (`expf`, `powf`, `tanhf`, ... that math ops become) and compiler helpers
    for lib in ("m", "gcc_s"):
        path = ctypes.util.find_library(lib)
        if path is not None:
            llvm.load_library_permanently(path)


def memref_args(array: np.ndarray, base: np.ndarray | None = None) -> list[Any]:
    """Expanded descriptor of `array` (a view into `base`, whose data pointer is passed)."""
    base = array if base is None else base
    item = array.itemsize
    offset = (array.__array_interface__["data"][0] - base.ctypes.data) // item
    ptr = ctypes.c_void_p(base.ctypes.data)
    return [ptr, ptr, offset, *array.shape, *(s // item for s in array.strides)]


class LlvmliteModule:
    """A lowered module compiled with llvmlite directly (host CPU, opt=2, MCJIT) and
    called through ctypes with memref descriptors expanded as in `xlinalg/lowering/abi.py`,
    so the tests using it depend on the lowering only (not on `xlinalg.backend`)."""

    def __init__(self, lowered: LoweredModule) -> None:
        _initialize_llvm()
        module = llvm.parse_assembly(lowered.llvm_ir)
        module.verify()
        target = llvm.Target.from_triple(llvm.get_process_triple())
        # the host CPU, so that f32<->f16 conversions are instructions (F16C), not libgcc calls
        tm = target.create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=2
        )
        self.engine = llvm.create_mcjit_compiler(module, tm)
        self.engine.finalize_object()
        self.lowered = lowered

    def function(self, name: str) -> Callable[..., Any]:
        """`name` as a Python callable: NumPy arrays for memrefs (or `(view, base)` to pass
        a view with an offset into `base`), Python numbers for scalars."""
        sig = self.lowered.functions[name]
        params: list[Any] = []
        for spec in sig.args:
            if isinstance(spec, MemRefArg):
                rank = len(spec.shape)
                params += [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * rank)
            else:
                params.append(_CTYPES[np.dtype(spec.dtype)])
        restype = None if sig.result is None else _CTYPES[np.dtype(sig.result.dtype)]
        cfunc = ctypes.CFUNCTYPE(restype, *params)(self.engine.get_function_address(name))

        def call(*args: Any) -> Any:
            assert self.engine is not None  # the closure keeps the engine (and its code) alive
            flat: list[Any] = []
            for spec, value in zip(sig.args, args, strict=True):
                if isinstance(spec, MemRefArg):
                    if isinstance(value, tuple):  # (view, base)
                        flat += memref_args(value[0], value[1])
                    else:
                        assert isinstance(value, np.ndarray) and value.dtype == spec.dtype
                        flat += memref_args(value)
                else:
                    assert isinstance(spec, ScalarArg)
                    flat.append(value)
            return cfunc(*flat)

        return call


# ---------------------------------------------------------------- tuner


def bmm_payload(b: int, m: int, n: int, k: int) -> str:
    """A memref linalg.batch_matmul payload @f: (b x m x k) * (b x k x n) -> (b x m x n), f32."""
    a, bt, c = (f"memref<{b}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @f(%A: {a}, %B: {bt}, %C: {c}) {{
  linalg.batch_matmul ins(%A, %B : {a}, {bt}) outs(%C : {c})
  func.return
}}
"""


def matmul_payload(n: int) -> str:
    """A `func.func @matmul` on n x n f32 memrefs: one `linalg.generic` C += A * B."""
    t = f"memref<{n}x{n}xf32>"
    return f"""\
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @matmul(%A: {t}, %B: {t}, %C: {t}) {{
  linalg.generic {{indexing_maps = [#mA, #mB, #mC],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %B : {t}, {t}) outs(%C : {t}) {{
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }}
  return
}}
"""


# the 16x16 matmul most tuner tests measure
PAYLOAD = matmul_payload(16)

# two knobs tied by a constraint: 2 x 3 points, of which 4 are valid
SPACE = """\
// xlinalg.constraint: tile_m % reg_m == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [4, 8] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [1, 2, 3] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, 8, 0]
      : (!transform.any_op, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %r, %rl = transform.structured.tile_using_for %t tile_sizes [%rm, 0, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def write_tuner_files(directory: Path, payload: str = PAYLOAD, space: str = SPACE) -> Path:
    """`mm.mlir` and `space.mlir` in `directory`; returns `directory`."""
    (directory / "mm.mlir").write_text(payload)
    (directory / "space.mlir").write_text(space)
    return directory


def cli_command(*args: str) -> list[str]:
    """The argv of `xlinalg ARGS...` run by this interpreter."""
    return [sys.executable, "-m", "xlinalg.cli", *args]


def cli_env(**extra: str) -> dict[str, str]:
    """This process's environment with the repository importable, plus `extra`."""
    return {**os.environ, "PYTHONPATH": str(REPO), **extra}


def run_cli(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`xlinalg ARGS...` in a child interpreter in `cwd` (never raises on a nonzero exit)."""
    return subprocess.run(
        cli_command(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=timeout,
        check=False,
    )


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command in this process (faster than a new interpreter); returns its stdout."""
    from xlinalg.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    return captured.out


def load_cli_study(cwd: Path, name: str) -> optuna.Study:
    """The study `name` in the default storage `xlinalg tune` uses under `cwd`."""
    return optuna.load_study(study_name=name, storage=f"sqlite:///{cwd}/results/xlinalg.db")


def run_in_threads(work: Callable[[int], None], count: int) -> None:
    """`work(i)` on `count` Python threads at once; re-raises the first exception one raised."""
    import threading

    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            work(index)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def matmul_before_cleanup(n: int = 128) -> ModuleOp:
    """examples/matmul_512.mlir at n³ with matmul_vectorize.mlir's schedule, lowered to the
    point where the pipeline runs its cleanup (loops, vector unroll, lower-affine): the
    input on which the cleanup passes are checked against xDSL's."""
    from xlinalg.api import apply_schedule
    from xlinalg.transforms.affine.lower_affine import LowerAffinePass
    from xlinalg.lowering.pipeline import lower_to_loops
    from xlinalg.lowering.vector_to_llvm import VectorUnrollTo1DPass

    knobs = {
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 64,
        "reg_m": 4,
        "reg_n": 16,
        "reg_k": 2,
        "cache_order": 0,
        "unroll_k": 1,
        "peel": 0,
    }
    payload = (REPO / "examples" / "matmul_512.mlir").read_text().replace("512", str(n))
    module = apply_schedule(
        parse_module(payload), (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text(), knobs
    )
    lower_to_loops(module)
    VectorUnrollTo1DPass().apply(make_context(), module)
    LowerAffinePass().apply(make_context(), module)
    return module
