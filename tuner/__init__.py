"""tuner: search the knobs of a transform-script template with Optuna.

Modules (Optuna's own split is the model):

* `tuner.space`       -- knobs of a template -> Optuna distributions
* `tuner.constraints` -- `// xlinalg.constraint:` pre-checks between knobs
* `tuner.candidate`   -- compile/check/time one candidate (runs in a child process)
* `tuner.worker`      -- isolation (child process, time limit) and the Optuna objective
* `tuner.storage`     -- storage URLs (SQLite default, journal files, PostgreSQL), heartbeat
* `tuner.liveness`    -- RUNNING trials of dead worker processes: failed and retried
* `tuner.budget`      -- the exact trial budget shared by all workers (a cross-process lock)
* `tuner.study`       -- create/resume studies, samplers, the trial loop
* `tuner.jobs`        -- job files (many kernels), durations, the global time budget split
* `tuner.session`     -- `xlinalg tune`: kernels in turn, worker processes, Ctrl-C, finish
* `tuner.rerank`      -- paired, interleaved re-timing of the top-K at the end
* `tuner.schedule_db` -- best schedules keyed by op signature and CPU
* `tuner.warm_start`  -- a new study first measures the nearest shapes' schedules
* `tuner.results`     -- trials of one or many studies as a pandas DataFrame
* `tuner.report`      -- one study's trials, best first, as a table
* `tuner.plots`       -- PNG plots with Optuna's matplotlib visualisation
* `tuner.export`      -- the best schedule with every knob resolved

The tuner uses only xlinalg's public API; xlinalg never imports the tuner.
"""
