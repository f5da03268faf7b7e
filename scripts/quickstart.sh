#!/usr/bin/env bash
# Quick start, command 1: install dependencies, build mlprof and its Python
# module, and run its main job (`mlprof summary`) on the bundled two-rank
# example trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target mlprof mlprof_python
# `import mlprof`: build/python on python3's path (a .pth file in the user's
# site-packages; delete it to undo).
py=$(sed -n 's/^_\?Python_EXECUTABLE:[A-Z]*=//p' build/CMakeCache.txt | head -1)
site=$("${py:-python3}" -m site --user-site)
mkdir -p "$site"
echo "$PWD/build/python" >"$site/mlprof-build.pth"
echo "quickstart: 'import mlprof' works in ${py:-python3} (build/python, through $site/mlprof-build.pth)" >&2
./build/mlprof summary examples/two_rank
