#!/usr/bin/env bash
# Executes one notebook headless; exit status 1 when a cell raises or the tools are missing.
#   run_notebook.sh NOTEBOOK.ipynb OUTPUT_DIR   (RENTSIM, RENTSIM_SCENARIOS, RENTSIM_NOTEBOOK_OUT from the environment)
set -euo pipefail
notebook=$1 out=$2
# Debian's jupyter and kernel run /usr/bin/python3, which has the Debian packages; put it first
# for anything the notebook starts.
export PATH=/usr/bin:$PATH
command -v jupyter-nbconvert >/dev/null ||
  { echo "run_notebook: jupyter-nbconvert is missing: install jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib (make deps)" >&2; exit 1; }
mkdir -p "$out"
# The notebook's own folder as its working directory, as in Jupyter.
cd "$(dirname "$notebook")"
# PYDEVD_DISABLE_FILE_VALIDATION: the kernel's debugger otherwise warns on every start.
PYDEVD_DISABLE_FILE_VALIDATION=1 jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=120 \
  --ExecutePreprocessor.kernel_name=python3 --output-dir "$out" "$(basename "$notebook")"
