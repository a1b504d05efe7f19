"""xlinalg's public Python API: parse, apply a schedule, compile to native code, check, time.

Everything the tuner, the CLI, benchmarks and users need goes through here:

    k = xlinalg.compile(payload, schedule=None, entry=None, knobs=None)
    k(*arrays)            # memref arguments are written in place
    k.time(*arrays)       # Timing(median_s, min_s, cv, repeats, inner_loops)
    k.check(*arrays)      # CheckResult against the NumPy reference of the original payload
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, f64, i64
from xdsl.dialects.func import FuncOp
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.utils.exceptions import ParseError, VerifyException

from xlinalg.backend.aligned import aligned
from xlinalg.backend.gc_pause import gc_paused
from xlinalg.backend.jit import JitModule
from xlinalg.backend.timing import time_native
from xlinalg.dialects.context import make_context
from xlinalg.errors import ParseFailure, VerifyFailure, XlinalgError
from xlinalg.flops import arith_ops_per_point, has_flop_formula, op_flops
from xlinalg.host import host_info as info
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter import apply_schedule as interpret
from xlinalg.ir.parsing import LocatingParser
from xlinalg.ir.stage_times import stage
from xlinalg.lowering.abi import FunctionSignature, LoweredModule, MemRefArg
from xlinalg.lowering.default_mmt4d_schedule import materialize_remaining_encodings
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.reference import CheckResult, compare, run_function
from xlinalg.transforms.transform.knobs import list_knobs as knobs_of
from xlinalg.transforms.transform.knobs import resolve_knobs as resolve
from xlinalg.transforms.transform.static_params import fold_static_params

Source = str | Path | ModuleOp


# --------------------------------------------------------------------------- text
def read_source(source: str | Path, what: str = "input") -> tuple[str, str]:
    """(text, name) of MLIR given as a path or as text. A missing file is a clear error."""
    if isinstance(source, Path) or (
        "\n" not in source and "{" not in source and source.strip().endswith(".mlir")
    ):
        path = Path(source)
        try:
            return path.read_text(), str(path)
        except FileNotFoundError:
            raise XlinalgError(f"{what} file '{path}' does not exist") from None
        except OSError as err:
            raise XlinalgError(f"cannot read {what} file '{path}': {err.strerror}") from None
    return str(source), f"<{what}>"


def parse(source: Source, what: str = "input") -> ModuleOp:
    """Parse MLIR text (or a path to it) into a verified `ModuleOp`.

    Malformed text raises `ParseFailure` with `file:line:col`; IR that does not verify
    raises `VerifyFailure`.
    """
    if isinstance(source, ModuleOp):
        return source
    text, name = read_source(source, what)
    return _parse_text(text, name).clone()


@lru_cache(maxsize=32)
def _parse_text(text: str, name: str) -> ModuleOp:
    """The verified module of `text` (keyed by the text itself, so an edited payload or
    schedule is parsed again); callers get clones, never this instance. A tuning run
    compiles the same payload and schedule text for every candidate."""
    try:
        module = LocatingParser(make_context(), text, name).parse_module()
    except ParseError as err:
        location = str(err.span.get_location())
        raise ParseFailure(err.msg, location) from None
    verify(module, name)
    return module


def verify(module: ModuleOp, name: str = "<input>") -> None:
    try:
        module.verify()
    except VerifyException as err:
        raise VerifyFailure(f"op does not verify: {err}", name) from None


# --------------------------------------------------------------------------- schedules
ExtraBindings = Sequence[Sequence[Any]] | Callable[[ModuleOp], Sequence[Sequence[Any]]]
"""Values of the entry sequence's block arguments after the payload root (the spec's
`extraMappings`), one list per argument: payload ops, payload values or param
attributes (a Python int/float becomes an i64/f64 param). A callable receives the parsed
payload module and returns the lists (for payloads given as text)."""


def apply_schedule(
    module: Source,
    schedule: Source,
    knobs: Mapping[str, Any] | None = None,
    *,
    extra_bindings: ExtraBindings = (),
    expensive_checks: bool = True,
) -> ModuleOp:
    """Apply a transform script to a payload (in place when given a ModuleOp); returns the payload.

    `extra_bindings` bind the entry sequence's arguments after the payload root (see
    `ExtraBindings`); `expensive_checks=False` turns off the full handle-invalidation
    tracking (the spec's optional expensive checks; on by default here).
    """
    payload = parse(module, "payload")
    script = parse(schedule, "schedule")
    return interpret(
        payload,
        script,
        knobs or {},
        extra_bindings=_resolve_bindings(extra_bindings, payload),
        expensive_checks=expensive_checks,
    )


def _resolve_bindings(bindings: ExtraBindings, payload: ModuleOp) -> list[list[Any]]:
    if callable(bindings):
        bindings = bindings(payload)
    resolved: list[list[Any]] = []
    for index, group in enumerate(bindings):
        if isinstance(group, Operation | SSAValue | Attribute | int | float | str):
            raise XlinalgError(
                f"extra binding #{index} must be a list of payload ops, values or params, "
                f"not a single {type(group).__name__}"
            )
        items: list[Any] = []
        for item in group:
            if isinstance(item, bool) or not isinstance(
                item, Operation | SSAValue | Attribute | int | float
            ):
                raise XlinalgError(
                    f"extra binding #{index} holds a {type(item).__name__}: expected payload "
                    "ops, payload values, attributes or numbers"
                )
            if isinstance(item, int):
                items.append(IntegerAttr(item, i64))
            elif isinstance(item, float):
                items.append(FloatAttr(item, f64))
            else:
                items.append(item)
        resolved.append(items)
    return resolved


def _translate_bindings(
    bindings: ExtraBindings, source: ModuleOp, clone: ModuleOp
) -> ExtraBindings:
    """`bindings` naming ops/values of `source`, renamed to the same ops/values of `clone`."""
    if callable(bindings):
        return bindings
    ops = dict(zip(source.walk(), clone.walk()))
    values: dict[SSAValue, SSAValue] = {}
    for op, twin in ops.items():
        values.update(zip(op.results, twin.results))
        for region, twin_region in zip(op.regions, twin.regions):
            for block, twin_block in zip(region.blocks, twin_region.blocks):
                values.update(zip(block.args, twin_block.args))

    def rename(item: Any) -> Any:
        if isinstance(item, Operation):
            return ops.get(item, item)
        if isinstance(item, SSAValue):
            return values.get(item, item)
        return item

    return [
        [rename(item) for item in group] if not isinstance(group, Operation | SSAValue) else group
        for group in bindings
    ]


def list_knobs(schedule: Source) -> list[Any]:
    """The `transform.tune.knob`s / `transform.tune.alternatives` of a schedule template."""
    return knobs_of(parse(schedule, "schedule"))


def resolve_knobs(schedule: Source, values: Mapping[str, Any], as_constants: bool = False) -> str:
    """The schedule text with every knob resolved to `values` (upstream tune-extension form).

    With `as_constants=True` the result is meant for upstream tools without the tune
    extension (iree-opt): knobs become `transform.param.constant`s, alternatives are
    inlined, and constants feeding sizes that upstream takes only as static values or
    handles (`transform.structured.pack`'s `packed_sizes`) are folded into the op's
    static list (`transforms/transform/static_params.py`)."""
    script = resolve(parse(schedule, "schedule").clone(), values, as_constants=as_constants)
    if as_constants:
        fold_static_params(script)
    return str(script)


def host_info() -> dict[str, Any]:
    return info()


def _has_transform_ops(module: ModuleOp) -> bool:
    return any(op.name.startswith("transform.") for op in module.walk())


def public_functions(module: ModuleOp) -> list[FuncOp]:
    return [
        op
        for op in module.ops
        if isinstance(op, FuncOp)
        and op.body.blocks
        and (op.sym_visibility is None or op.sym_visibility.data == "public")
    ]


def choose_entry(module: ModuleOp, entry: str | None) -> str:
    names = [f.sym_name.data for f in public_functions(module)]
    if entry is not None:
        if entry not in names:
            raise XlinalgError(
                f"no function '@{entry}' in the payload (functions: {', '.join(names) or 'none'})"
            )
        return entry
    if len(names) == 1:
        return names[0]
    if not names:
        raise XlinalgError("the payload defines no public func.func with a body to run")
    raise XlinalgError(
        f"the payload defines several functions ({', '.join(names)}); choose one with --entry"
    )


# --------------------------------------------------------------------------- kernel
@dataclass
class Kernel:
    """A compiled entry function of a payload, callable on NumPy arrays."""

    entry: str
    signature: FunctionSignature
    payload: ModuleOp  # the original payload (the reference runs on it)
    module: ModuleOp  # the payload after the schedule, before lowering
    lowered: LoweredModule
    compile_seconds: float
    _jit: Any = field(repr=False)
    _fn: Any = field(repr=False)

    def __call__(self, *args: Any) -> Any:
        return self._fn(*args)

    def time(self, *args: Any, **options: Any):
        return time_native(self._fn, *args, **options)

    # ---- inputs ----
    def make_inputs(self, seed: int = 0, sizes: Mapping[str, int] | None = None) -> list[Any]:
        """Random arguments matching the signature, 64-byte aligned (`backend/aligned.py`).

        Dynamic dims come from `sizes` ("arg:dim" -> n)."""
        rng = np.random.default_rng(seed)
        sizes = dict(sizes or {})
        out: list[Any] = []
        for index, spec in enumerate(self.signature.args):
            if isinstance(spec, MemRefArg):
                shape = []
                for dim, extent in enumerate(spec.shape):
                    key = f"{index}:{dim}"
                    if extent is None and key not in sizes:
                        raise XlinalgError(
                            f"argument #{index} of @{self.entry} has a dynamic dimension {dim}; "
                            f"give its size (e.g. --size {key}=128)"
                        )
                    shape.append(sizes[key] if extent is None else extent)
                out.append(aligned(random_array(rng, tuple(shape), spec.dtype)))
            else:
                out.append(random_array(rng, (), spec.dtype)[()])
        return out

    # ---- reference ----
    def reference(self, *args: Any) -> list[Any]:
        """Run the NumPy reference of the original payload on copies of `args`; returns the args after."""
        return self._run_reference(*args)[0]

    def _run_reference(self, *args: Any) -> tuple[list[Any], list[Any]]:
        """(args after, results) of the NumPy reference run on copies of `args`."""
        copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        results = run_function(self.payload, self.entry, copies)
        return copies, list(results)

    def check(self, *args: Any):
        """Run kernel and reference on copies of `args`; compare every memref argument and
        every returned array (tensor results)."""
        got = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        returned = self(*got)
        want, want_results = self._run_reference(*args)
        got_results = list(returned) if isinstance(returned, tuple) else [returned]
        length = self.reduction_length(*args)
        worst: CheckResult | None = None
        pairs = [(f"argument #{i}", g, w) for i, (g, w) in enumerate(zip(got, want))]
        if any(isinstance(r, MemRefArg) for r in self.signature.all_results):
            pairs += [
                (f"result #{i}", g, w) for i, (g, w) in enumerate(zip(got_results, want_results))
            ]
        for where, g, w in pairs:
            if not isinstance(g, np.ndarray):
                continue
            result = compare(g, np.asarray(w), dtype=g.dtype, reduction_length=length)
            if not result.ok:
                return CheckResult(False, result.max_rel_error, f"{where}: {result.message}")
            if worst is None or result.max_rel_error > worst.max_rel_error:
                worst = result
        return (
            worst if worst is not None else CheckResult(True, 0.0, "no memref arguments to compare")
        )

    # ---- cost model ----
    def _loop_ranges(self, op: Any, args: Sequence[Any]) -> list[int]:
        ranges: list[int | None] = list(op.get_static_loop_ranges())
        known = _all_known(ranges)
        if known is not None:
            return known
        func = next(f for f in public_functions(self.payload) if f.sym_name.data == self.entry)
        arg_of = {value: index for index, value in enumerate(func.body.block.args)}
        for value, amap in zip(op.get_operands_in_order(), op.get_indexing_maps()):
            index = arg_of.get(value)
            if index is None or index >= len(args) or not isinstance(args[index], np.ndarray):
                continue
            for position, expr in enumerate(amap.results):
                if isinstance(expr, AffineDimExpr) and ranges[expr.position] is None:
                    ranges[expr.position] = args[index].shape[position]
        if any(r is None for r in ranges):
            # Operands computed inside the function (tensor payloads): ask the reference.
            ranges = self._observed_ranges(args).get(op, ranges)
        known = _all_known(ranges)
        if known is None:
            raise XlinalgError(f"cannot infer the loop ranges of '{op.name}' from the arguments")
        return known

    def _observed_ranges(self, args: Sequence[Any]) -> dict[Any, list[int | None]]:
        """Loop ranges of every structured op, seen by running the reference on copies of `args`."""

        seen: dict[Any, list[int | None]] = {}

        def observe(op: Any, operands: list[Any]) -> None:
            ranges: list[int | None] = [None] * op.get_num_loops()
            for value, amap in zip(operands, op.get_indexing_maps()):
                for position, expr in enumerate(amap.results):
                    if isinstance(expr, AffineDimExpr) and np.ndim(value) > position:
                        ranges[expr.position] = np.shape(value)[position]
            seen[op] = ranges

        copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        run_function(self.payload, self.entry, copies, observer=observe)
        return seen

    def _structured_ops(self) -> list[Any]:
        func = next(f for f in public_functions(self.payload) if f.sym_name.data == self.entry)
        return [op for op in func.walk() if isinstance(op, StructuredOpInterface)]

    def flops(self, *args: Any) -> int:
        """Arithmetic operations of the payload's linalg ops (2·M·N·K for a matmul) and of
        its non-structured ops (per-op formulas: `xlinalg/flops.py`)."""
        total = 0
        for op in self._structured_ops():
            per_point = arith_ops_per_point(op)
            ranges = self._loop_ranges(op, args)
            total += per_point * int(np.prod(ranges, dtype=np.int64))
        func = next(f for f in public_functions(self.payload) if f.sym_name.data == self.entry)
        return total + sum(op_flops(op) for op in func.walk() if has_flop_formula(op))

    def reduction_length(self, *args: Any) -> int:
        longest = 1
        for op in self._structured_ops():
            ranges = self._loop_ranges(op, args)
            length = 1
            for extent, kind in zip(ranges, op.get_iterator_types()):
                if kind == IteratorType.REDUCTION:
                    length *= extent
            longest = max(longest, length)
        return longest


def _all_known(ranges: Sequence[int | None]) -> list[int] | None:
    """`ranges` if none of them is unknown (None), else None."""
    known = [r for r in ranges if r is not None]
    return known if len(known) == len(ranges) else None


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        low, high = max(info.min, -8), min(info.max, 8)
        return rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


@gc_paused()
def compile(
    payload: Source,
    schedule: Source | None = None,
    entry: str | None = None,
    knobs: Mapping[str, Any] | None = None,
    *,
    extra_bindings: ExtraBindings = (),
    expensive_checks: bool = True,
    verify_transformed: bool = False,
    timings: dict[str, float] | None = None,
) -> Kernel:
    """Apply `schedule` (with `knobs`) to `payload`, lower it to LLVM, JIT it for the host CPU.

    `extra_bindings` / `expensive_checks` are passed to `apply_schedule`; bindings naming
    ops or values of a `ModuleOp` payload are renamed to the compiled copy's. `timings`
    receives the seconds of every stage (`xlinalg.ir.stage_times`).

    The user's IR is verified where it enters (payload and schedule text when parsed, a
    `ModuleOp` payload here). The payload the schedule produced comes from xlinalg's own
    rewrites: it is verified before lowering only with `verify_transformed=True` (a
    `VerifyFailure` then), and otherwise only when lowering or JIT compilation fails, so
    that a transform leaving invalid IR still ends in a `VerifyFailure` naming the op
    rather than in a lowering error (the tuner checks every kernel against NumPy)."""
    start = time.perf_counter()
    with stage(timings, "parse-payload"):
        module = parse(payload, "payload")
    with stage(timings, "clone-payload"):
        if isinstance(payload, ModuleOp):
            verify(payload, "payload")  # text payloads were verified when parsed
            module = module.clone()
            extra_bindings = _translate_bindings(extra_bindings, payload, module)
        has_embedded = _has_transform_ops(module)
        original = module.clone()  # the reference runs on the payload as written
        if has_embedded:
            _strip_transform_ops(original)
    with stage(timings, "apply-schedule"):
        if schedule is not None:
            apply_schedule(
                module,
                schedule,
                knobs,
                extra_bindings=extra_bindings,
                expensive_checks=expensive_checks,
            )
        elif has_embedded:
            interpret(
                module,
                module,
                dict(knobs or {}),
                extra_bindings=_resolve_bindings(extra_bindings, module),
                expensive_checks=expensive_checks,
            )
        elif knobs:
            raise XlinalgError("knob values were given but there is no schedule to apply them to")
        elif extra_bindings:
            raise XlinalgError("extra bindings were given but there is no schedule to bind them to")
    with stage(timings, "materialize-encodings"):  # encodings the schedule left: host tiles
        materialize_remaining_encodings(module)
    entry = choose_entry(module, entry)
    if verify_transformed:
        with stage(timings, "verify-transformed"):
            verify(module, "transformed payload")
    with stage(timings, "clone-transformed"):
        transformed = module.clone()
    try:
        lowered = lower_to_llvm(module, timings)
        if entry not in lowered.functions:
            raise XlinalgError(f"function '@{entry}' was not lowered")
        jit = JitModule(lowered, timings=timings)
        fn = jit.function(entry)
    except Exception:
        if not verify_transformed:
            verify(transformed, "transformed payload")  # the cause when it does not verify
        raise
    seconds = time.perf_counter() - start
    return Kernel(entry, lowered.functions[entry], original, transformed, lowered, seconds, jit, fn)


def _strip_transform_ops(module: ModuleOp) -> None:
    for op in list(module.ops):
        if op.name.startswith("transform."):
            op.detach()
            op.erase()
    module.attributes.pop("transform.with_named_sequence", None)
