"""tuner: search the knobs of a transform-script template with Optuna.

Modules (Optuna's own split is the model):

* `tuner.space`       -- knobs of a template -> Optuna distributions
* `tuner.constraints` -- `// xlinalg.constraint:` pre-checks between knobs
* `tuner.candidate`   -- compile/check/time one candidate (runs in a child process)
* `tuner.worker`      -- isolation (child process, time limit) and the Optuna objective
* `tuner.storage`     -- storage URLs (SQLite default, journal files, PostgreSQL)
* `tuner.study`       -- create/resume studies, samplers, the trial loop
* `tuner.report`      -- trials as a pandas DataFrame
* `tuner.export`      -- the best schedule with every knob resolved

The tuner uses only xlinalg's public API; xlinalg never imports the tuner.
"""
