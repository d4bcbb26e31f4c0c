#!/usr/bin/env python3
"""Reads the timing of every SQuAD fine-tuning run in Lambda's deeplearning-benchmark logs
and writes, per run, its steady step time and the warm-up its reported throughput includes.

Lambda's benchmark runs DeepLearningExamples' run_squad.py with --max_steps=100 and
--num_train_epochs=2.0 (the command line at the top of every log). run_squad.py times its
whole training loop (train_start to time_to_train) and reports
    training_sequences_per_second = train_batch_size x max_steps x GPUs / time_to_train.
The loop breaks once global_step > max_steps, so it runs min(max_steps + 1, 2 x steps per
epoch) steps; its time holds them and the one-time cost of the first steps. tqdm prints the
elapsed time after each step of the first epoch ("Iteration: ...| n/N [mm:ss<..."), so

    steady_step_s = (elapsed at the last step - elapsed at step 10) / (steps between them)
    warmup_s      = time_to_train - steps_run x steady_step_s

(tqdm's elapsed has a resolution of 1 s, over 20 steps or more.) A run whose system also
gives rows of measured.csv is marked `in_measured_csv` = 1; the warm-up fit uses the others.

Usage: import_lambda_squad.py CLONE MEASURED_CSV > lambda-squad-warmup.csv
where CLONE is a git clone of lambdal/deeplearning-benchmark.
"""
import csv
import re
import subprocess
import sys

LOG = re.compile(r"pytorch/(results(?:_v2)?)/([^/]+)/PyTorch_(bert_(?:base|large))_squad_(FP16|FP32)/[^/]+\.txt$")
E2E = re.compile(r"e2e_train_time : ([\d.]+)\s+training_sequences_per_second : ([\d.]+)")
TICK = re.compile(r"Iteration:\s+\d+%\S*\s*\|\s*(\d+)/(\d+) \[([\d:]+)<")


def git(clone, *args):
    return subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def seconds(clock):
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total


def systems_in(measured_csv):
    found = set()
    with open(measured_csv, newline="") as f:
        for row in csv.DictReader(f):
            found.update(re.findall(r"results(?:_v2)?/([^/ ]+)/", row["source"] + " " + row["notes"]))
    return found


def main():
    clone, measured_csv = sys.argv[1], sys.argv[2]
    commit = git(clone, "rev-parse", "HEAD").strip()[:10]
    validated = systems_in(measured_csv)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["log", "system", "model", "precision", "gpus", "batch_per_gpu", "steps_per_epoch", "steps_run",
                  "time_to_train_s", "reported_per_s", "steady_step_s", "warmup_s", "in_measured_csv"])
    for path in git(clone, "ls-tree", "-r", "--name-only", "HEAD").split():
        m = LOG.match(path)
        if not m:
            continue
        text = git(clone, "show", "HEAD:" + path)
        e2e = E2E.search(text)
        batch = re.search(r"--train_batch_size=(\d+)", text)
        if not e2e or not batch:
            continue  # the run did not finish
        procs = re.search(r"nproc_per_node=(\d+)", text)
        gpus = int(procs.group(1)) if procs else 1
        first_epoch, last = [], -1
        for done, _, clock in TICK.findall(text):
            if int(done) < last:
                break
            first_epoch.append((int(done), seconds(clock)))
            last = int(done)
        ticks = [t for t in first_epoch if t[0] >= 10]
        if len(ticks) < 2 or ticks[-1][0] - ticks[0][0] < 20:
            continue  # too few steps to time
        steady = (ticks[-1][1] - ticks[0][1]) / (ticks[-1][0] - ticks[0][0])
        per_epoch = int(TICK.search(text).group(2))
        steps_run = min(101, 2 * per_epoch)
        time_to_train = float(e2e.group(1))
        out.writerow([f"lambdal/deeplearning-benchmark@{commit}:{path}", m.group(2), m.group(3).replace("_", "-"),
                      m.group(4).lower(), gpus, int(batch.group(1)), per_epoch, steps_run, f"{time_to_train:.3f}",
                      f"{float(e2e.group(2)):.2f}", f"{steady:.4f}", f"{time_to_train - steps_run * steady:.3f}",
                      int(m.group(2) in validated)])


if __name__ == "__main__":
    main()
