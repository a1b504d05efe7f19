"""PNG plots of a study with Optuna's matplotlib visualisation.

* `history.png`    -- optimisation history (median time of every trial, best so far);
* `importance.png` -- parameter importance (fANOVA) of the knobs for the runtime;
* `knobs.png`      -- runtime per knob value (Optuna's slice plot, one panel per knob).

Multi-objective studies are plotted on their first objective (runtime).
"""

from __future__ import annotations

import os
import warnings

import optuna
from optuna.exceptions import ExperimentalWarning

from tuner.study import trial_time


def write_plots(study: optuna.Study, out_dir: str) -> tuple[list[str], list[str]]:
    """Write the plots into `out_dir`; returns (written paths, notes on skipped plots)."""
    # deferred: matplotlib (heavy, and set to its Agg backend first) only when plotting
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna.visualization import matplotlib as oplt

    os.makedirs(out_dir, exist_ok=True)
    target = trial_time if len(study.directions) > 1 else None
    name = "median time (s)"
    plots = (
        (
            "history.png",
            lambda: oplt.plot_optimization_history(study, target=target, target_name=name),
        ),
        (
            "importance.png",
            lambda: oplt.plot_param_importances(study, target=target, target_name=name),
        ),
        ("knobs.png", lambda: oplt.plot_slice(study, target=target, target_name=name)),
    )
    written: list[str] = []
    skipped: list[str] = []
    for filename, draw in plots:
        path = os.path.join(out_dir, filename)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExperimentalWarning)
                axes = draw()
        except (ValueError, RuntimeError) as err:  # e.g. too few trials for importances
            skipped.append(f"{filename}: {str(err).splitlines()[0]}")
            continue
        figure = axes.flat[0].figure if hasattr(axes, "flat") else axes.figure
        panels = len(axes.flat) if hasattr(axes, "flat") else 1
        figure.set_size_inches(max(8.0, 4.5 * panels + 1.5), 5)
        with warnings.catch_warnings():  # colour bars do not take part in tight_layout
            warnings.simplefilter("ignore", UserWarning)
            figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    return written, skipped
