"""PNG plots of a study with Optuna's matplotlib visualisation.

* `history.png`    -- optimisation history (median time of every trial, best so far);
* `importance.png` -- parameter importance (fANOVA) of the knobs for the runtime;
* `knobs.png`      -- runtime per knob value (Optuna's slice plot, one panel per knob).

Multi-objective studies are plotted on their first objective (runtime).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import optuna
from optuna.exceptions import ExperimentalWarning
from optuna.trial import FrozenTrial

from tuner.study import trial_time


def write_plots(study: optuna.Study, out_dir: str) -> tuple[list[str], list[str]]:
    """Write the plots into `out_dir`; returns (written paths, notes on skipped plots)."""
    # deferred: matplotlib (heavy, and set to its Agg backend first) only when plotting
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415
    from optuna.visualization import matplotlib as oplt  # noqa: PLC0415

    os.makedirs(out_dir, exist_ok=True)
    target = _runtime if len(study.directions) > 1 else None
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
        # one Axes, or an array of them (the slice plot: one panel per knob)
        first = axes.flat[0] if isinstance(axes, np.ndarray) else axes
        panels = axes.size if isinstance(axes, np.ndarray) else 1
        figure = first.figure
        assert isinstance(figure, Figure)  # the plot's own top-level figure
        figure.set_size_inches(max(8.0, 4.5 * panels + 1.5), 5)
        with warnings.catch_warnings():  # colour bars do not take part in tight_layout
            warnings.simplefilter("ignore", UserWarning)
            figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    return written, skipped


def _runtime(trial: FrozenTrial) -> float:
    """The runtime of a trial of a multi-objective study: the plots are of completed
    trials only, which have their objective values."""
    value = trial_time(trial)
    assert value is not None
    return value
