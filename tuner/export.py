"""The best schedule of a study, as a transform script with every knob resolved."""

from __future__ import annotations

import xlinalg
from tuner.errors import TunerError
from tuner.study import StudyInfo, best_trial, load, trial_time


def export_schedule(space: str, values: dict[str, object], as_constants: bool = False) -> str:
    """`space` (a search space's text) with its knobs resolved to `values`.

    With `as_constants=True` the result is meant for upstream tools without the tune
    extension (iree-opt): knobs become `transform.param.constant`s, alternatives are
    inlined, and constants feeding sizes that upstream takes only as static values or
    handles (`transform.structured.pack`'s `packed_sizes`) are folded into the op's
    static list (`static_params.py`).
    """
    return xlinalg.resolve_knobs(space, values, as_constants=as_constants)


def best_schedule(
    storage: str, study_name: str, as_constants: bool = False, header: bool = True
) -> str:
    """The study's space template with the knob values of its fastest checked trial.

    Knobs print in upstream's resolved form (`transform.tune.knob<"tile_m"> = 16 from
    options = [...]`); with `as_constants=True` they become `transform.param.constant`
    with the sizes upstream requires static folded in (`export_schedule`: for tools
    without the tune extension, such as iree-opt). `header` adds a comment line naming the
    study, the trial and its speed.
    """
    study = load(storage, study_name)
    info = StudyInfo.of(study)
    best = best_trial(study)  # the re-ranking's winner when there was one
    if best is None:
        raise TunerError(f"study '{study_name}' has no successful trial yet")
    space = info.load_space()
    values = space.values_from_params(best.params, ordinal=info.sampler == "cmaes")
    text = export_schedule(info.space, values, as_constants=as_constants)
    if not header:
        return text
    gflops = best.user_attrs.get("gflops")
    speed = f", {gflops:.2f} GFLOP/s" if isinstance(gflops, (int, float)) else ""
    cpu = best.user_attrs.get("cpu") or study.user_attrs.get("cpu") or ""
    on = f" on {cpu}" if cpu else ""
    line = (
        f"// xlinalg: best schedule of study '{study_name}' "
        f"(trial {best.number}, median {(trial_time(best) or 0.0) * 1e3:.4g} ms{speed}{on})\n"
    )
    return line + (text if text.endswith("\n") else text + "\n")
