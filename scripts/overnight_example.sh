#!/usr/bin/env bash
# A small multi-kernel tuning job, run the way you leave one overnight:
#
#   scripts/overnight_example.sh            # or: BUDGET=8h WORKERS=2 scripts/overnight_example.sh
#
# * three matmul shapes (256, 384, 512; generated from examples/matmul_512.mlir) in one
#   job file, sharing a global time budget (BUDGET, default 10m; 8h for a real night);
# * WORKERS measuring processes (default: 1), each pinned to its own core, on a journal
#   file when WORKERS > 1 (else SQLite);
# * detached with nohup, output in results/overnight/tune.log: closing the terminal does
#   not stop it; if the machine reboots or the job is killed, rerun this script -- the
#   studies resume, no finished trial is lost;
# * in the morning: the summary at the end of the log, one report + PNG plots per
#   study, the best schedules in results/ and in the schedule database
#   results/schedules/ (used by `xlinalg run/opt PAYLOAD --schedule-db`).
#
# FOREGROUND=1 runs it in the foreground (Ctrl-C stops cleanly and saves everything).
set -euo pipefail
cd "$(dirname "$0")/.."

BUDGET="${BUDGET:-10m}"
WORKERS="${WORKERS:-1}"
TRIALS="${TRIALS:-30}"
DIR=results/overnight
mkdir -p "$DIR"

for n in 256 384; do  # more shapes of the same kernel
  sed "s/512/$n/g" examples/matmul_512.mlir > "$DIR/matmul_$n.mlir"
done
cp examples/matmul_512.mlir "$DIR/matmul_512.mlir"

if [ "$WORKERS" -gt 1 ]; then STORAGE="journal:$DIR/studies.journal"; else STORAGE="sqlite:///$DIR/studies.db"; fi

cat > "$DIR/job.toml" <<TOML
# paths are relative to this file
[defaults]
space = "../../search_spaces/matmul_tile.mlir"
trials = $TRIALS
sampler = "tpe"

[[kernel]]          # the smallest first: its best schedule warm-starts the others
payload = "matmul_256.mlir"
study = "overnight-mm256"

[[kernel]]
payload = "matmul_384.mlir"
study = "overnight-mm384"

[[kernel]]
payload = "matmul_512.mlir"
study = "overnight-mm512"
TOML

run_job() {
  xlinalg tune "$DIR/job.toml" --storage "$STORAGE" --timeout "$BUDGET" --workers "$WORKERS" \
    --out "$DIR/best"
  for study in overnight-mm256 overnight-mm384 overnight-mm512; do
    xlinalg report --storage "$STORAGE" --study "$study" --top 5 --plots "$DIR/plots/$study" \
      --csv "$DIR/$study.csv" || true
  done
  echo "done: $(date)"
}

if [ "${FOREGROUND:-0}" = 1 ]; then
  run_job 2>&1 | tee -a "$DIR/tune.log"
else
  export -f run_job
  export DIR STORAGE BUDGET WORKERS
  nohup bash -c run_job >> "$DIR/tune.log" 2>&1 &
  echo "tuning in the background (pid $!): tail -f $DIR/tune.log"
fi
