"""The `xlinalg` command line.

    xlinalg opt PAYLOAD [--schedule S] [--knob name=value ...] [--split-input-file]
                [--transform-interpreter] [-p NAME[,NAME...]] [--verify-diagnostics]
    xlinalg run PAYLOAD [--schedule S] [--knob name=value ...] [--entry F] [--check] [--repeats N]
    xlinalg run/opt PAYLOAD --schedule-db [DIR]      (the tuned schedule for the payload's ops)
    xlinalg tune PAYLOAD --space SPACE [--trials N] [--timeout 8h] [--storage URL] [--study NAME]
                 [--sampler tpe|random|grid|cmaes|nsga2] [--objectives time,compile] [--seed N]
                 [--workers N] [--out DIR] [--schedule-db DIR] [--rerank K]
    xlinalg tune JOB.toml [--timeout 8h] [--workers N] ...   (many kernels, see tuner.jobs)
    xlinalg worker --storage URL --study NAME [--trials N] [--timeout S] [--cpu CORE]
    xlinalg report [--storage URL] --study NAME [--csv F] [--parquet F] [--top K] [--plots DIR]
    xlinalg export [--storage URL] --study NAME -o FILE [--as-constants]

Every user error prints one line (with file:line:col where there is one) to
stderr and exits with code 1; usage errors exit with code 2; `--debug` shows the
traceback instead. The tuner is imported only by the commands that need it.

`opt` takes mlir-opt's options for IR-in/IR-out tests (tests/filecheck/): the chunks of
`--split-input-file`, the embedded schedule of `--transform-interpreter`, the registered
passes of `-p`, and the `// expected-error` comments of `--verify-diagnostics`.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)

import xlinalg
from xlinalg.coverage.table import print_coverage
from xlinalg.coverage.transform import print_transform_coverage
from xlinalg.dialects.context import make_context
from xlinalg.errors import ParseFailure, VerifyFailure, XlinalgError
from xlinalg.ir.diagnostics import location_of
from xlinalg.ir.parsing import LocatingParser
from xlinalg.ir.passes import PASSES, lookup_pass

DEFAULT_STORAGE = "sqlite:///results/xlinalg.db"  # same as tuner.storage.DEFAULT_STORAGE
DEFAULT_OUT = "results"
DEFAULT_SCHEDULE_DB = os.path.join("results", "schedules")  # = tuner.schedule_db.DEFAULT_DB


class UsageError(Exception):
    """Bad command-line usage detected after parsing (exit code 2)."""


# --------------------------------------------------------------------------- helpers


def _existing(path: str, what: str) -> Path:
    """`path` as a `Path` (so the compiler reads it as a file and names it in locations)."""
    if not os.path.exists(path):
        raise XlinalgError(f"{what} file '{path}' does not exist")
    if os.path.isdir(path):
        raise XlinalgError(f"{what} '{path}' is a directory, not a file")
    return Path(path)


def _read(path: str, what: str) -> str:
    return _existing(path, what).read_text(encoding="utf-8")


def _parse_value(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, (int, float, bool, str, tuple, list)) else text


def _knobs(items: Sequence[str] | None) -> dict[str, Any] | None:
    if not items:
        return None
    knobs: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--knob expects NAME=VALUE, got '{item}'")
        knobs[name.strip()] = _parse_value(value.strip())
    return knobs


def _sizes(items: Sequence[str] | None) -> dict[str, int] | None:
    if not items:
        return None
    sizes: dict[str, int] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or ":" not in key:
            raise UsageError(f"--size expects ARG:DIM=N, got '{item}'")
        try:
            sizes[key.strip()] = int(value)
        except ValueError:
            raise UsageError(f"--size expects an integer size, got '{item}'") from None
    return sizes


def _out(text: str = "") -> None:
    print(text, flush=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


# --------------------------------------------------------------------------- opt's input

_SPLIT_MARKER = "// -----"
"""Separates the modules of a `--split-input-file` input (and of the output), as upstream."""


@dataclass(frozen=True)
class _Chunk:
    """One module of the input: its text, preceded by as many empty lines as there are lines
    before it in the file, so that every location names the line of the whole file."""

    text: str
    first_line: int


def _split_input(text: str) -> list[_Chunk]:
    """`--split-input-file`: the chunks of `text` between lines `// -----`."""
    lines = text.splitlines(keepends=True)
    chunks: list[_Chunk] = []
    start = 0
    for index, line in enumerate(lines):
        if line.strip() == _SPLIT_MARKER:
            chunks.append(_Chunk("\n" * start + "".join(lines[start:index]), start + 1))
            start = index + 1
    chunks.append(_Chunk("\n" * start + "".join(lines[start:]), start + 1))
    return chunks


def _parse_located(text: str, name: str) -> ModuleOp:
    """The verified module of `text`; every op located at `name:line:col`."""
    try:
        module = LocatingParser(make_context(), text, name).parse_module()
    except ParseError as err:
        raise ParseFailure(err.msg, str(err.span.get_location())) from None
    _verify_located(module)
    return module


def _verify_located(module: ModuleOp, what: str | None = None) -> None:
    """Verify `module`; a failure names the op that does not verify, at its location (or at
    the nearest enclosing op's: an op a transform created has none)."""
    try:
        module.verify()
    except VerifyException as err:
        culprit = _failing_op(module) or module
        location = None
        op: Operation | None = culprit
        while op is not None and location is None:
            location = location_of(op)
            op = op.parent_op()
        prefix = f"{what}: " if what else ""
        raise VerifyFailure(f"{prefix}op does not verify: {err}", location) from None


def _failing_op(op: Operation) -> Operation | None:
    """The first op under `op` (nested ops first, as xDSL verifies) that does not verify."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if (found := _failing_op(child)) is not None:
                    return found
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException:
        return op
    return None


# --------------------------------------------------------------------------- opt's pipeline

_TRANSFORM_INTERPRETER = "transform-interpreter"


class _PipelineAction(argparse.Action):
    """Collects `--transform-interpreter` and `-p` in command-line order (as mlir-opt runs
    its pass options): `(kind, value)` pairs in `args.pipeline`."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        items.append((self.const, values if isinstance(values, str) else ""))
        setattr(namespace, self.dest, items)


@dataclass(frozen=True)
class _Step:
    """One step of `opt`'s pipeline."""

    label: str
    run: Callable[[ModuleOp], None]


def _pipeline(items: Sequence[tuple[str, str]]) -> list[_Step]:
    steps: list[_Step] = []
    for kind, value in items:
        if kind == _TRANSFORM_INTERPRETER:
            steps.append(_Step("--transform-interpreter", _interpret_embedded))
        else:
            steps += _pass_steps(value)
    return steps


def _interpret_embedded(module: ModuleOp) -> None:
    """`--transform-interpreter`: apply the `@__transform_main` embedded in `module`, which
    stays in the output (as upstream's pass leaves it). The interpreter runs a copy of the
    script: applying the module's own script would erase it afterwards."""
    xlinalg.apply_schedule(module, module.clone())


def _pass_steps(spec: str) -> list[_Step]:
    """`-p NAME[,NAME{option=value ...}...]`: passes of the registry (`xlinalg.ir.passes`)."""
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as err:
        raise UsageError(f"-p: cannot read the pass list '{spec}': {err}") from None
    steps: list[_Step] = []
    for arg_spec in specs:
        pass_class = lookup_pass(arg_spec.name)
        if pass_class is None:
            raise UsageError(
                f"unknown pass '{arg_spec.name}'; the passes are: {', '.join(sorted(PASSES))}"
            )
        try:
            # under the class's own name: a registered alias (licm) is not the class's name
            pass_ = pass_class.from_spec(ArgSpec(pass_class.name, arg_spec.parameters))
        except (ValueError, TypeError) as err:
            raise UsageError(f"bad options for pass '{arg_spec.name}': {err}") from None
        steps.append(_Step(f"pass '{arg_spec.name}'", functools.partial(_run_pass, pass_)))
    return steps


def _run_pass(pass_: ModulePass, module: ModuleOp) -> None:
    try:
        pass_.apply(make_context(), module)
    except DiagnosticException as err:
        raise XlinalgError(f"pass '{pass_.name}' failed: {err}") from None


# --------------------------------------------------------------------------- opt's diagnostics

_EXPECTED = re.compile(
    r"expected-(error|warning|remark|note) *(?:@([+-][0-9]+|above|below))? *\{\{(.*)\}\}\s*$"
)


@dataclass(frozen=True)
class _Expected:
    """An `// expected-error {{message}}` of a `--verify-diagnostics` input."""

    kind: str
    line: int
    message: str
    directive: str  # file:line:col of the comment


def _expected_diagnostics(chunk: _Chunk, name: str) -> list[_Expected]:
    """The expected diagnostics written in `chunk`, as mlir-opt reads them: on the comment's
    line, `@+N` / `@-N` lines away, `@below` / `@above` on the nearest line below / above
    that has no `expected-` comment."""
    lines = chunk.text.splitlines()
    designated = {index for index, line in enumerate(lines) if _EXPECTED.search(line)}
    first = chunk.first_line - 1
    found: list[_Expected] = []
    for index, line in enumerate(lines):
        match = _EXPECTED.search(line)
        if match is None:
            continue
        kind, where, message = match.groups()
        directive = f"{name}:{index + 1}:{match.start() + 1}"
        if where == "below":
            target = next((i for i in range(index + 1, len(lines)) if i not in designated), None)
        elif where == "above":
            target = next((i for i in range(index - 1, first - 1, -1) if i not in designated), None)
        else:
            target = index + int(where or 0)
        if target is None or not first <= target < len(lines):
            raise XlinalgError(f"expected-{kind} points at no line of the input", directive)
        found.append(_Expected(kind, target + 1, message, directive))
    return found


def _check_diagnostics(expected: Sequence[_Expected], error: Exception | None, name: str) -> bool:
    """Compare the error a chunk produced (xlinalg stops at the first) with the expected
    ones; print each mismatch as mlir-opt does. True when they match."""
    produced = None
    if isinstance(error, XlinalgError):
        line = _line_of(error.location)
        produced = next(
            (
                e
                for e in expected
                if e.kind == "error" and e.line == line and e.message in error.message
            ),
            None,
        )
    ok = True
    if error is not None and produced is None:
        where = error.location if isinstance(error, XlinalgError) and error.location else name
        message = (
            error.message
            if isinstance(error, XlinalgError)
            else _message(error).removeprefix("error: ")
        )
        print(f"{where}: error: unexpected error: {message}", file=sys.stderr)
        ok = False
    for item in expected:
        if item is not produced:
            print(
                f'{item.directive}: error: expected {item.kind} "{item.message}" was not produced',
                file=sys.stderr,
            )
            ok = False
    return ok


def _line_of(location: str | None) -> int | None:
    """The line of a `file:line:col` location."""
    parts = (location or "").rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


# --------------------------------------------------------------------------- opt / run


def _from_schedule_db(args: argparse.Namespace, payload: Path) -> None:
    """`--schedule-db [DIR]`: use the stored schedule for this payload's op signature and
    CPU as `--schedule` (reporting the payload ops that have none)."""
    if getattr(args, "schedule_db", None) is None:
        return
    if args.schedule is not None:
        raise UsageError("--schedule-db picks the schedule: do not give --schedule too")
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner.schedule_db import lookup  # noqa: PLC0415

    found = lookup(args.schedule_db, payload)
    if found.schedule is None:
        print(
            f"schedule-db: no tuned schedule in {args.schedule_db} for these payload ops "
            f"(running untransformed): {'; '.join(found.untuned)}",
            file=sys.stderr,
        )
        return
    speed = found.meta.get("gflops")
    detail = f", {speed:.2f} GFLOP/s when tuned" if isinstance(speed, (int, float)) else ""
    print(
        f"schedule-db: using {found.schedule} (study '{found.meta.get('study', '?')}'{detail})",
        file=sys.stderr,
    )
    args.schedule = str(found.schedule)


def cmd_opt(args: argparse.Namespace) -> int:
    payload = _existing(args.payload, "payload")
    knobs = _knobs(args.knob)
    _from_schedule_db(args, payload)
    if args.schedule is None and knobs:
        raise UsageError("--knob needs --schedule")
    schedule = _existing(args.schedule, "schedule") if args.schedule is not None else None
    steps = _pipeline(getattr(args, "pipeline", None) or [])
    text = payload.read_text(encoding="utf-8")
    chunks = _split_input(text) if args.split_input_file else [_Chunk(text, 1)]
    name = str(payload)
    debug = bool(getattr(args, "debug", False))
    outputs: list[str] = []
    ok = True
    for chunk in chunks:
        expected = _expected_diagnostics(chunk, name) if args.verify_diagnostics else []
        error: Exception | None = None
        try:
            outputs.append(str(_opt_chunk(chunk.text, name, schedule, knobs, steps)))
        except Exception as err:
            if debug or not (args.split_input_file or args.verify_diagnostics):
                raise
            outputs.append("")
            error = err
        if args.verify_diagnostics:
            ok = _check_diagnostics(expected, error, name) and ok
        elif error is not None:
            print(_message(error), file=sys.stderr)
            ok = False
    _out(f"\n{_SPLIT_MARKER}\n".join(outputs))
    return 0 if ok else 1


def _opt_chunk(
    text: str,
    name: str,
    schedule: Path | None,
    knobs: dict[str, Any] | None,
    steps: Sequence[_Step],
) -> ModuleOp:
    """Parse one module, apply `--schedule` then the pipeline's steps, verifying after each."""
    module = _parse_located(text, name)
    if schedule is not None:
        module = xlinalg.apply_schedule(module, schedule, knobs=knobs)
        # What we print must be valid IR (upstream's interpreter pass verifies too).
        _verify_located(module, "transformed payload")
    for step in steps:
        step.run(module)
        _verify_located(module, f"payload after {step.label}")
    return module


def cmd_run(args: argparse.Namespace) -> int:
    payload = _existing(args.payload, "payload")
    knobs = _knobs(args.knob)
    _from_schedule_db(args, payload)
    schedule = _existing(args.schedule, "schedule") if args.schedule is not None else None
    if schedule is None and knobs:
        raise UsageError("--knob needs --schedule")
    kernel = xlinalg.compile(payload, schedule=schedule, entry=args.entry, knobs=knobs)
    _out(f"entry:   @{kernel.entry}  (compiled in {kernel.compile_seconds:.2f} s)")
    arrays = kernel.make_inputs(seed=args.seed, sizes=_sizes(args.size))
    if args.check:
        result = kernel.check(*arrays)
        if not result.ok:
            print(
                f"error: wrong result: {result.message} (max rel error {result.max_rel_error:.3g})",
                file=sys.stderr,
            )
            return 1
        _out(f"check:   ok, max rel error {result.max_rel_error:.3g} vs the NumPy reference")
    timing_kwargs: dict[str, Any] = {}
    if args.repeats is not None:
        # exactly N timing samples: the harness's min_repeats = max_repeats = N
        parameters = inspect.signature(kernel.time).parameters.values()
        if not any(
            p.kind is inspect.Parameter.VAR_KEYWORD or p.name == "max_repeats" for p in parameters
        ):
            raise UsageError("--repeats is not supported by this build's timing harness")
        timing_kwargs = {"min_repeats": args.repeats, "max_repeats": args.repeats}
    timing = kernel.time(*arrays, **timing_kwargs)
    flops = kernel.flops(*arrays)
    inner = getattr(timing, "inner_loops", 1)
    _out(
        f"time:    median {_ms(timing.median_s)}  min {_ms(timing.min_s)}  "
        f"cv {timing.cv * 100:.2f}%  ({timing.repeats} repeats x {inner} inner loops)"
    )
    if timing.median_s > 0:
        _out(f"perf:    {flops / timing.median_s / 1e9:.2f} GFLOP/s  ({flops} flop)")
    return 0


# --------------------------------------------------------------------------- tuning


def _kernel_from_args(args: argparse.Namespace) -> Any:
    """The single kernel of `xlinalg tune PAYLOAD --space SPACE`, validated."""
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner import study as tuner_study  # noqa: PLC0415
    from tuner.jobs import KernelJob  # noqa: PLC0415
    from tuner.space import load_space  # noqa: PLC0415

    if args.space is None:
        raise UsageError("--space is required (unless PAYLOAD is a .toml job file)")
    payload = _read(args.payload, "payload")
    space = _read(args.space, "search space")
    xlinalg.parse(Path(args.payload), "payload")  # a malformed payload fails here, not per trial
    load_space(space, path=args.space, name=args.space)
    trials = args.trials
    if trials is None and args.timeout is None and args.sampler != "grid":
        trials = tuner_study.DEFAULT_TRIALS
    return KernelJob(
        payload_path=args.payload,
        space_path=args.space,
        payload=payload,
        space=space,
        study=args.study or tuner_study.default_study_name(args.payload, args.space),
        trials=trials,
        time_s=None,
        sampler=args.sampler,
        seed=args.seed,
        objectives=tuple(args.objectives.split(",")),
        entry=args.entry,
    )


def cmd_tune(args: argparse.Namespace) -> int:
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner import session  # noqa: PLC0415
    from tuner.jobs import load_job, parse_duration  # noqa: PLC0415
    from tuner.study import DEFAULT_TRIALS, SAMPLERS  # noqa: PLC0415

    timeout_s = parse_duration(args.timeout) if args.timeout is not None else None
    storage = args.storage
    if args.payload.endswith(".toml"):
        if args.space is not None or args.study is not None:
            raise UsageError("--space and --study come from the job file")
        job = load_job(args.payload, args.trials or DEFAULT_TRIALS, SAMPLERS)
        kernels = job.kernels
        storage = storage or job.storage
    else:
        kernels = [_kernel_from_args(args)]
    options = session.Options(
        storage=session.pick_storage(storage, args.workers),
        workers=args.workers,
        timeout_s=timeout_s,
        out_dir=args.out,
        schedule_db=None if args.no_schedule_db else args.schedule_db,
        warm_start=not args.no_warm_start,
        rerank_k=args.rerank,
        rerank_rounds=args.rerank_rounds,
        time_limit_s=args.time_limit,
        sizes=_sizes(args.size),
        timing={"max_total_s": args.timing_budget} if args.timing_budget else None,
    )
    return session.tune(kernels, options)


def cmd_worker(args: argparse.Namespace) -> int:
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner import session  # noqa: PLC0415
    from tuner import study as tuner_study  # noqa: PLC0415
    from tuner.jobs import parse_duration  # noqa: PLC0415

    if args.cpu is not None:
        session.pin_to_cpu(args.cpu)  # before the first candidate forks
    study, search_space, info = tuner_study.attach(args.storage, args.study, seed=args.seed)
    n_trials = args.trials if args.trials is not None else info.n_trials
    done = tuner_study.counted_trials(study)
    where = f" on core {args.cpu}" if args.cpu is not None else ""
    _out(
        f"joined study '{args.study}' in {args.storage}{where}: "
        f"{done} trial(s) done, budget {n_trials}"
    )
    timeout_s = parse_duration(args.timeout) if args.timeout is not None else None
    progress = session.Progress(args.study, n_trials, timeout_s, done)
    try:
        ran = tuner_study.run(
            study,
            search_space,
            info,
            n_trials=n_trials,
            timeout_s=timeout_s,
            on_trial=progress,
            storage_url=args.storage,
        )
    except KeyboardInterrupt:
        _out("interrupted: the trial being measured was abandoned (it does not count)")
        return 130
    finally:
        progress.close()
    if args.quiet:
        _out(f"worker{where}: ran {ran} trial(s)")
        return 0
    options = session.Options(storage=args.storage, out_dir=None, schedule_db=None, rerank_k=0)
    return session.finish(study, args.storage, options)


def cmd_report(args: argparse.Namespace) -> int:
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner.errors import TunerError  # noqa: PLC0415
    from tuner.report import format_table, trials_dataframe  # noqa: PLC0415
    from tuner.results import hosts  # noqa: PLC0415

    storage = args.storage or DEFAULT_STORAGE
    frame = trials_dataframe(storage, args.study)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    if args.parquet:
        try:
            frame.to_parquet(args.parquet, index=False)
        except ImportError as err:
            raise TunerError(f"cannot write parquet: {str(err).splitlines()[0]}") from None
    written = [path for path in (args.csv, args.parquet) if path]
    skipped: list[str] = []
    if args.plots:
        # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
        from tuner.plots import write_plots  # noqa: PLC0415
        from tuner.study import load  # noqa: PLC0415

        paths, skipped = write_plots(load(storage, args.study), args.plots)
        written += paths
    ok = int((frame["status"] == "ok").sum()) if not frame.empty else 0
    _out(f"study '{args.study}' in {storage}: {len(frame)} trial(s), {ok} ok")
    measured_on = hosts(frame) if not frame.empty else []
    if len(measured_on) > 1:
        print(
            f"warning: trials were measured on {len(measured_on)} different hosts "
            f"({'; '.join(measured_on)}): their times are not comparable",
            file=sys.stderr,
        )
    _out(format_table(frame, args.top))
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner.study import load as load_study  # noqa: PLC0415

    best = load_study(storage, args.study).user_attrs.get("best")
    if isinstance(best, dict) and "trial" in best:
        _out(
            f"best after re-ranking: trial {best['trial']} "
            f"({best.get('method', '')}, {best.get('rounds', '?')} rounds)"
        )
    for path in written:
        _out(f"wrote {path}")
    for note in skipped:
        _out(f"skipped {note}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
    from tuner.export import best_schedule  # noqa: PLC0415

    storage = args.storage or DEFAULT_STORAGE
    text = best_schedule(storage, args.study, as_constants=args.as_constants)
    if args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    folder = os.path.dirname(args.output)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def cmd_ops(args: argparse.Namespace) -> int:
    """Coverage tables generated from the code and the test-suite's case lists."""
    if args.transform:
        print_transform_coverage()
    else:
        print_coverage()
    return 0


# --------------------------------------------------------------------------- parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'")
    return value


def build_parser() -> argparse.ArgumentParser:
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show Python tracebacks for errors",
    )
    parser = argparse.ArgumentParser(
        prog="xlinalg",
        parents=[debug],
        description="Compile, run and autotune Linalg kernels on the CPU.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    opt = commands.add_parser("opt", parents=[debug], help="print the transformed IR")
    opt.add_argument("payload", help="payload .mlir file")
    opt.add_argument("--schedule", help="transform script to apply")
    opt.add_argument(
        "--knob",
        action="append",
        metavar="NAME=VALUE",
        help="value of a knob of the schedule (repeatable)",
    )
    opt.add_argument(
        "--schedule-db",
        nargs="?",
        const=DEFAULT_SCHEDULE_DB,
        metavar="DIR",
        help="use the tuned schedule stored for this payload's ops and CPU "
        f"(default DIR {DEFAULT_SCHEDULE_DB})",
    )
    opt.add_argument(
        "--split-input-file",
        action="store_true",
        help=f"process each chunk between lines '{_SPLIT_MARKER}' as its own module "
        "(the outputs are separated by the same lines)",
    )
    opt.add_argument(
        "--transform-interpreter",
        dest="pipeline",
        action=_PipelineAction,
        nargs=0,
        const=_TRANSFORM_INTERPRETER,
        help="apply the transform.named_sequence @__transform_main embedded in the input",
    )
    opt.add_argument(
        "-p",
        "--passes",
        dest="pipeline",
        action=_PipelineAction,
        const="passes",
        metavar="NAME[,NAME...]",
        help="run passes by name, in order (NAME{option=value} gives options); "
        "these and --transform-interpreter run in command-line order",
    )
    opt.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check the errors against the input's '// expected-error {{...}}' comments",
    )
    opt.set_defaults(func=cmd_opt, pipeline=None)

    ops = commands.add_parser(
        "ops", parents=[debug], help="coverage table of the linalg ops (or transform ops)"
    )
    ops.add_argument(
        "--transform", action="store_true", help="the Transform dialect's ops instead of linalg's"
    )
    ops.set_defaults(func=cmd_ops)

    run = commands.add_parser(
        "run", parents=[debug], help="compile, check against NumPy and time a kernel"
    )
    run.add_argument("payload")
    run.add_argument("--schedule")
    run.add_argument("--knob", action="append", metavar="NAME=VALUE")
    run.add_argument(
        "--schedule-db",
        nargs="?",
        const=DEFAULT_SCHEDULE_DB,
        metavar="DIR",
        help="use the tuned schedule stored for this payload's ops and CPU",
    )
    run.add_argument("--entry", help="function to run (default: the payload's only one)")
    run.add_argument("--check", action="store_true", help="compare with the NumPy reference")
    run.add_argument("--repeats", type=_positive_int, help="timing repeats")
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    run.add_argument(
        "--size",
        action="append",
        metavar="ARG:DIM=N",
        help="size of a dynamic dimension (repeatable)",
    )
    run.set_defaults(func=cmd_run)

    tune = commands.add_parser(
        "tune", parents=[debug], help="search a schedule template (one payload or a job file)"
    )
    tune.add_argument("payload", help="payload .mlir file, or a .toml job file of kernels")
    tune.add_argument("--space", help="schedule template with tune knobs")
    tune.add_argument(
        "--trials",
        type=_positive_int,
        help="trial budget of the study (default 40, or the whole grid with "
        "--sampler grid; a resumed run counts the trials already done)",
    )
    tune.add_argument(
        "--timeout",
        metavar="DURATION",
        help="stop after this long (8h, 90m, 45s...); a job's kernels share it",
    )
    tune.add_argument(
        "--storage",
        help=f"Optuna storage URL (default {DEFAULT_STORAGE}; "
        "with --workers: journal:results/xlinalg.journal)",
    )
    tune.add_argument("--study", help="study name (default PAYLOAD_STEM-SPACE_STEM)")
    tune.add_argument(
        "--sampler", choices=("tpe", "random", "grid", "cmaes", "nsga2"), default="tpe"
    )
    tune.add_argument(
        "--objectives",
        default="time",
        choices=("time", "time,compile"),
        help="time,compile: multi-objective (runtime vs compile time, NSGA-II)",
    )
    tune.add_argument("--seed", type=int, default=0, help="sampler and input seed")
    tune.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="measuring processes on this machine, one pinned core each",
    )
    tune.add_argument(
        "--out", default=DEFAULT_OUT, help="folder for the best schedule (default results/)"
    )
    tune.add_argument(
        "--schedule-db",
        default=DEFAULT_SCHEDULE_DB,
        metavar="DIR",
        help=f"schedule database (default {DEFAULT_SCHEDULE_DB})",
    )
    tune.add_argument(
        "--no-schedule-db",
        action="store_true",
        help="do not store the best schedule in the database",
    )
    tune.add_argument(
        "--no-warm-start",
        action="store_true",
        help="do not enqueue the schedules of the nearest shapes first",
    )
    tune.add_argument(
        "--rerank",
        type=int,
        default=3,
        metavar="K",
        help="re-time the top K interleaved at the end (0/1: off; default 3)",
    )
    tune.add_argument("--rerank-rounds", type=_positive_int, default=7, metavar="R")
    tune.add_argument("--entry")
    tune.add_argument(
        "--time-limit",
        type=_positive_float,
        default=120.0,
        metavar="S",
        help="per-candidate time limit in seconds (default 120)",
    )
    tune.add_argument(
        "--timing-budget",
        type=_positive_float,
        metavar="S",
        help="seconds of timing repeats per candidate (default: the harness's)",
    )
    tune.add_argument("--size", action="append", metavar="ARG:DIM=N")
    tune.set_defaults(func=cmd_tune)

    worker = commands.add_parser(
        "worker", parents=[debug], help="join an existing study and run trials"
    )
    worker.add_argument("--storage", required=True)
    worker.add_argument("--study", required=True)
    worker.add_argument("--trials", type=_positive_int, help="budget (default: the study's own)")
    worker.add_argument("--timeout", metavar="DURATION")
    worker.add_argument("--seed", type=int, default=None)
    worker.add_argument(
        "--cpu", type=int, metavar="CORE", help="pin this worker (and its candidates) to one core"
    )
    worker.add_argument(
        "--quiet", action="store_true", help="no summary at the end (used by tune --workers)"
    )
    worker.set_defaults(func=cmd_worker)

    report = commands.add_parser("report", parents=[debug], help="trials, best first")
    report.add_argument("--storage")
    report.add_argument("--study", required=True)
    report.add_argument("--csv", metavar="FILE")
    report.add_argument("--parquet", metavar="FILE")
    report.add_argument("--top", type=_positive_int, metavar="K")
    report.add_argument(
        "--plots", metavar="DIR", help="write history.png, importance.png and knobs.png into DIR"
    )
    report.set_defaults(func=cmd_report)

    export = commands.add_parser(
        "export", parents=[debug], help="write the best schedule with every knob resolved"
    )
    export.add_argument("--storage")
    export.add_argument("--study", required=True)
    export.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="output file ('-' for stdout)"
    )
    export.add_argument(
        "--as-constants", action="store_true", help="inline knobs as transform.param.constant"
    )
    export.set_defaults(func=cmd_export)
    return parser


def _message(err: BaseException) -> str:
    if isinstance(err, XlinalgError):
        return str(err)
    if isinstance(err, OSError):
        reason = err.strerror or str(err)
        return f"error: {err.filename}: {reason}" if err.filename else f"error: {reason}"
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return (
        f"error: internal error: {type(err).__name__}{': ' + text if text else ''} "
        "(rerun with --debug for a traceback)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    if args.command in ("tune", "worker", "report", "export"):
        # deferred: the tuner (Optuna, SQLAlchemy) loads only for the commands using it
        import optuna  # noqa: PLC0415

        optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        return int(args.func(args))
    except UsageError as err:
        parser.print_usage(sys.stderr)
        print(f"xlinalg: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as err:
        if debug:
            raise
        print(_message(err), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
