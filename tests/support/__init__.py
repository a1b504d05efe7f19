"""Helpers the test files share (`from support import ...`: pytest puts `tests/` on
`sys.path`, see `pythonpath` in pyproject.toml): the repository's root, parsing in xlinalg's
context, upstream's `iree-opt` (the skip marker of the tests that need it, and running it),
the host checks of the machine-code tests, the tiny tuner payload/space, running the
`xlinalg` command (in a child interpreter or in this process) and opening the studies it
writes, and running work on several Python threads.

The modules of this package hold what the tests of one subject share (`support.transform`,
`support.lowering`, ...); a test file imports only these and the code under test."""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import optuna
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser

from xlinalg.cli import main as cli_main
from xlinalg.dialects.context import make_context
from xlinalg.host import host_cpu_name, host_has_feature
from xlinalg.interpreter import parse_module as parse_schedule

REPO = Path(__file__).resolve().parents[2]

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
    module = parse_schedule(GENERALIZE_SCHEDULE, "schedule.mlir")
    return next(op for op in module.walk() if op.name == "transform.structured.generalize")


# ---------------------------------------------------------------- tuner


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
    code = cli_main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    return captured.out


def load_cli_study(cwd: Path, name: str) -> optuna.Study:
    """The study `name` in the default storage `xlinalg tune` uses under `cwd`."""
    return optuna.load_study(study_name=name, storage=f"sqlite:///{cwd}/results/xlinalg.db")


def run_in_threads(work: Callable[[int], None], count: int) -> None:
    """`work(i)` on `count` Python threads at once; re-raises the first exception one raised."""
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            work(index)
        except BaseException as err:  # re-raised in the calling thread
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


# ---------------------------------------------------------------- scripts


def load_script(name: str) -> ModuleType:
    """The module of `scripts/<name>.py` (the scripts import each other by name, so their
    folder goes on `sys.path`, once)."""
    scripts = str(REPO / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)
