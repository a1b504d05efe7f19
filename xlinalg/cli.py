"""The `xlinalg` command line.

    xlinalg opt PAYLOAD [--schedule S] [--knob name=value ...]
    xlinalg run PAYLOAD [--schedule S] [--knob name=value ...] [--entry F] [--check] [--repeats N]
    xlinalg tune PAYLOAD --space SPACE [--trials N|--timeout S] [--storage URL] [--study NAME]
                 [--sampler tpe|random|grid|cmaes] [--seed N] [--workers N] [--out DIR]
    xlinalg worker --storage URL --study NAME [--trials N] [--timeout S]
    xlinalg report [--storage URL] --study NAME [--csv F] [--parquet F] [--top K] [--plots DIR]
    xlinalg export [--storage URL] --study NAME -o FILE [--as-constants]

Every user error prints one line (with file:line:col where there is one) to
stderr and exits with code 1; usage errors exit with code 2; `--debug` shows the
traceback instead. The tuner is imported only by the commands that need it.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlinalg.errors import XlinalgError

if TYPE_CHECKING:
    import optuna
    from optuna.trial import FrozenTrial

DEFAULT_STORAGE = "sqlite:///results/xlinalg.db"  # same as tuner.storage.DEFAULT_STORAGE
DEFAULT_OUT = "results"


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


# --------------------------------------------------------------------------- opt / run


def cmd_opt(args: argparse.Namespace) -> int:
    import xlinalg

    payload = _existing(args.payload, "payload")
    knobs = _knobs(args.knob)
    if args.schedule is None:
        if knobs:
            raise UsageError("--knob needs --schedule")
        module = xlinalg.parse(payload)
    else:
        schedule = _existing(args.schedule, "schedule")
        module = xlinalg.apply_schedule(xlinalg.parse(payload), schedule, knobs=knobs)
    _out(str(module))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import xlinalg

    payload = _existing(args.payload, "payload")
    knobs = _knobs(args.knob)
    schedule = _existing(args.schedule, "schedule") if args.schedule is not None else None
    if schedule is None and knobs:
        raise UsageError("--knob needs --schedule")
    kernel = xlinalg.compile(payload, schedule=schedule, entry=args.entry, knobs=knobs)
    _out(f"entry:   @{kernel.entry}  (compiled in {kernel.compile_seconds:.2f} s)")
    arrays = kernel.make_inputs(seed=args.seed, sizes=_sizes(args.size))
    if args.check:
        result = kernel.check(*arrays)
        if not result.ok:
            print(f"error: wrong result: {result.message} "
                  f"(max rel error {result.max_rel_error:.3g})", file=sys.stderr)
            return 1
        _out(f"check:   ok, max rel error {result.max_rel_error:.3g} vs the NumPy reference")
    timing_kwargs: dict[str, Any] = {}
    if args.repeats is not None:
        # exactly N timing samples: the harness's min_repeats = max_repeats = N
        parameters = inspect.signature(kernel.time).parameters.values()
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD or p.name == "max_repeats"
                   for p in parameters):
            raise UsageError("--repeats is not supported by this build's timing harness")
        timing_kwargs = {"min_repeats": args.repeats, "max_repeats": args.repeats}
    timing = kernel.time(*arrays, **timing_kwargs)
    flops = kernel.flops(*arrays)
    inner = getattr(timing, "inner_loops", 1)
    _out(f"time:    median {_ms(timing.median_s)}  min {_ms(timing.min_s)}  "
         f"cv {timing.cv * 100:.2f}%  ({timing.repeats} repeats x {inner} inner loops)")
    if timing.median_s > 0:
        _out(f"perf:    {flops / timing.median_s / 1e9:.2f} GFLOP/s  ({flops} flop)")
    return 0


# --------------------------------------------------------------------------- tuning


def _knob_text(trial: FrozenTrial) -> str:
    import json

    values = trial.params
    text = trial.user_attrs.get("knobs")
    if isinstance(text, str):
        try:
            values = json.loads(text)
        except ValueError:
            pass
    return " ".join(f"{k}={v}" for k, v in values.items())


class _Progress:
    """One line per finished trial: count/budget, number, status, GFLOP/s, best so far."""

    def __init__(self, budget: int | None) -> None:
        self.budget = budget
        self.lock = threading.Lock()

    def __call__(self, study: optuna.Study, trial: FrozenTrial) -> None:
        from tuner.study import best_trial, counted_trials

        with self.lock:
            done = counted_trials(study)
            total = f"/{self.budget}" if self.budget is not None else ""
            status = str(trial.user_attrs.get("status", trial.state.name.lower()))
            knobs = _knob_text(trial)
            if status == "ok":
                detail = (f"{trial.user_attrs.get('gflops', 0.0):8.2f} GFLOP/s  "
                          f"{_ms(float(trial.value or 0.0)):>10}")
            else:
                detail = str(trial.user_attrs.get("error", ""))[:70]
            if "duplicate_of" in trial.user_attrs:
                detail += f" (same knobs as trial {trial.user_attrs['duplicate_of']})"
            best = best_trial(study)
            best_text = (f"best {best.user_attrs.get('gflops', 0.0):.2f} GFLOP/s (trial "
                         f"{best.number})" if best is not None else "best -")
            _out(f"[{done:>3}{total}] trial {trial.number:<3} {status:<17} {detail}  "
                 f"| {best_text} | {knobs}")


def _run_parallel(workers: int, body: Callable[[], int]) -> None:
    if workers <= 1:
        body()
        return
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            body()
        except BaseException as err:  # noqa: BLE001 - re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=guarded, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def _finish(study: optuna.Study, storage: str, out_dir: str | None) -> int:
    from tuner.export import best_schedule
    from tuner.study import best_trial, counted_trials

    trials = study.get_trials(deepcopy=False)
    statuses: dict[str, int] = {}
    for trial in trials:
        key = str(trial.user_attrs.get("status", trial.state.name.lower()))
        statuses[key] = statuses.get(key, 0) + 1
    summary = ", ".join(f"{count} {name}" for name, count in sorted(statuses.items()))
    _out()
    _out(f"study:    {study.study_name}")
    _out(f"storage:  {storage}")
    _out(f"trials:   {counted_trials(study)} ({summary})")
    best = best_trial(study)
    if best is None:
        print(f"error: no candidate of study '{study.study_name}' compiled, checked and ran; "
              f"see: xlinalg report --storage {storage} --study {study.study_name}",
              file=sys.stderr)
        return 1
    knobs = _knob_text(best)
    _out(f"best:     trial {best.number}: {best.user_attrs.get('gflops', 0.0):.2f} GFLOP/s, "
         f"median {_ms(float(best.value or 0.0))}  ({knobs})")
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in study.study_name)
        path = os.path.join(out_dir, f"{safe}.best.mlir")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(best_schedule(storage, study.study_name))
        _out(f"schedule: {path}")
    storage_flag = "" if storage == DEFAULT_STORAGE else f" --storage {storage}"
    _out(f"report:   xlinalg report{storage_flag} --study {study.study_name}")
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    from tuner import study as tuner_study

    import xlinalg

    payload = _read(args.payload, "payload")
    space = _read(args.space, "search space")
    xlinalg.parse(Path(args.payload), "payload")  # a malformed payload fails here, not per trial
    name = args.study or tuner_study.default_study_name(args.payload, args.space)
    storage = args.storage or DEFAULT_STORAGE
    n_trials = args.trials
    if n_trials is None and args.timeout is None:
        n_trials = tuner_study.DEFAULT_TRIALS
    study, search_space = tuner_study.setup(
        storage, name, payload, space,
        payload_name=args.payload, space_name=args.space, space_path=args.space,
        entry=args.entry, sampler=args.sampler, seed=args.seed, n_trials=n_trials,
        time_limit_s=args.time_limit, sizes=_sizes(args.size),
        timing={"max_total_s": args.timing_budget} if args.timing_budget else None,
    )
    if args.sampler == "grid" and args.trials is None and args.timeout is None:
        n_trials = search_space.size()  # the whole grid
        study.set_user_attr("n_trials", n_trials)
    info = tuner_study.StudyInfo.of(study)
    done = tuner_study.counted_trials(study)
    free = ", ".join(f"{k.name}{list(k.options)}" for k in search_space.free) or "none"
    _out(f"study '{name}' in {storage}: {done} trial(s) already done; "
         f"{len(search_space.free)} knob(s), {search_space.size()} configuration(s), "
         f"{len(search_space.constraints)} constraint(s)")
    _out(f"knobs: {free}")
    progress = _Progress(n_trials)
    in_flight = tuner_study.InFlight()
    _run_parallel(args.workers, lambda: tuner_study.run(
        study, search_space, info, n_trials=n_trials, timeout_s=args.timeout,
        on_trial=progress, in_flight=in_flight))
    return _finish(study, storage, args.out)


def cmd_worker(args: argparse.Namespace) -> int:
    from tuner import study as tuner_study

    study, search_space, info = tuner_study.attach(args.storage, args.study, seed=args.seed)
    n_trials = args.trials if args.trials is not None else info.n_trials
    _out(f"joined study '{args.study}' in {args.storage}: "
         f"{tuner_study.counted_trials(study)} trial(s) done, budget {n_trials}")
    tuner_study.run(study, search_space, info, n_trials=n_trials, timeout_s=args.timeout,
                    on_trial=_Progress(n_trials))
    return _finish(study, args.storage, None)


def cmd_report(args: argparse.Namespace) -> int:
    from tuner.errors import TunerError
    from tuner.report import format_table, trials_dataframe

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
    if args.plots:
        from tuner.plots import write_plots
        from tuner.report import knob_columns

        written += write_plots(frame, knob_columns(frame), args.plots, args.study)
    ok = int((frame["status"] == "ok").sum()) if not frame.empty else 0
    _out(f"study '{args.study}' in {storage}: {len(frame)} trial(s), {ok} ok")
    _out(format_table(frame, args.top))
    for path in written:
        _out(f"wrote {path}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from tuner.export import best_schedule

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
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show Python tracebacks for errors")
    parser = argparse.ArgumentParser(
        prog="xlinalg", parents=[debug],
        description="Compile, run and autotune Linalg kernels on the CPU.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    opt = commands.add_parser("opt", parents=[debug], help="print the transformed IR")
    opt.add_argument("payload", help="payload .mlir file")
    opt.add_argument("--schedule", help="transform script to apply")
    opt.add_argument("--knob", action="append", metavar="NAME=VALUE",
                     help="value of a knob of the schedule (repeatable)")
    opt.set_defaults(func=cmd_opt)

    run = commands.add_parser("run", parents=[debug],
                              help="compile, check against NumPy and time a kernel")
    run.add_argument("payload")
    run.add_argument("--schedule")
    run.add_argument("--knob", action="append", metavar="NAME=VALUE")
    run.add_argument("--entry", help="function to run (default: the payload's only one)")
    run.add_argument("--check", action="store_true", help="compare with the NumPy reference")
    run.add_argument("--repeats", type=_positive_int, help="timing repeats")
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    run.add_argument("--size", action="append", metavar="ARG:DIM=N",
                     help="size of a dynamic dimension (repeatable)")
    run.set_defaults(func=cmd_run)

    tune = commands.add_parser("tune", parents=[debug], help="search a schedule template")
    tune.add_argument("payload")
    tune.add_argument("--space", required=True, help="schedule template with tune knobs")
    budget = tune.add_mutually_exclusive_group()
    budget.add_argument("--trials", type=_positive_int,
                        help="trial budget of the study (default 40, or the whole grid with "
                        "--sampler grid; a resumed run counts the trials already done)")
    budget.add_argument("--timeout", type=_positive_float, help="stop after S seconds")
    tune.add_argument("--storage", help=f"Optuna storage URL (default {DEFAULT_STORAGE})")
    tune.add_argument("--study", help="study name (default PAYLOAD_STEM-SPACE_STEM)")
    tune.add_argument("--sampler", choices=("tpe", "random", "grid", "cmaes"), default="tpe")
    tune.add_argument("--seed", type=int, default=0, help="sampler and input seed")
    tune.add_argument("--workers", type=_positive_int, default=1,
                      help="candidates measured concurrently (more than 1 perturbs timings)")
    tune.add_argument("--out", default=DEFAULT_OUT,
                      help="folder for the best schedule (default results/)")
    tune.add_argument("--entry")
    tune.add_argument("--time-limit", type=_positive_float, default=120.0, metavar="S",
                      help="per-candidate time limit in seconds (default 120)")
    tune.add_argument("--timing-budget", type=_positive_float, metavar="S",
                      help="seconds of timing repeats per candidate (default: the harness's)")
    tune.add_argument("--size", action="append", metavar="ARG:DIM=N")
    tune.set_defaults(func=cmd_tune)

    worker = commands.add_parser("worker", parents=[debug],
                                 help="join an existing study and run trials")
    worker.add_argument("--storage", required=True)
    worker.add_argument("--study", required=True)
    worker.add_argument("--trials", type=_positive_int,
                        help="budget (default: the study's own)")
    worker.add_argument("--timeout", type=_positive_float)
    worker.add_argument("--seed", type=int, default=None)
    worker.set_defaults(func=cmd_worker)

    report = commands.add_parser("report", parents=[debug], help="trials, best first")
    report.add_argument("--storage")
    report.add_argument("--study", required=True)
    report.add_argument("--csv", metavar="FILE")
    report.add_argument("--parquet", metavar="FILE")
    report.add_argument("--top", type=_positive_int, metavar="K")
    report.add_argument("--plots", metavar="DIR",
                        help="write history.svg and knobs.svg into DIR")
    report.set_defaults(func=cmd_report)

    export = commands.add_parser("export", parents=[debug],
                                 help="write the best schedule with every knob resolved")
    export.add_argument("--storage")
    export.add_argument("--study", required=True)
    export.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="output file ('-' for stdout)")
    export.add_argument("--as-constants", action="store_true",
                        help="inline knobs as transform.param.constant")
    export.set_defaults(func=cmd_export)
    return parser


def _message(err: BaseException) -> str:
    if isinstance(err, XlinalgError):
        return str(err)
    if isinstance(err, OSError):
        reason = err.strerror or str(err)
        return f"error: {err.filename}: {reason}" if err.filename else f"error: {reason}"
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f"error: internal error: {type(err).__name__}{': ' + text if text else ''} " \
           "(rerun with --debug for a traceback)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    if args.command in ("tune", "worker", "report", "export"):
        import optuna

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
