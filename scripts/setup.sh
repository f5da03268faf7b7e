#!/usr/bin/env bash
# Installs mlprof's build and test dependencies from Debian 12 (bookworm)
# packages. Versions tested: simdjson 3.0.1, libdeflate 1.14, zlib 1.2.13,
# zstd 1.5.4, CLI11 2.1.2, fmt 9.1.0, Abseil 20220623 (InlinedVector), toml++ 3.3.0 (planner model files),
# SQLite 3.40.1 (`mlprof sql`, `export --sqlite`), libxlsxwriter 1.1.4 (report.xlsx; openpyxl 3.0.9 reads
# it back in the tests), Chromium (the report.html browser test), and from npm Apache ECharts at the
# version web/package.json pins (web/package-lock.json; embedded in report.html at build time),
# pybind11 2.10.3 with python3-dev 3.11 (the Python module), pandas 1.5.3 and pytest 7.2.1 (its tests),
# OpenMPI 4.1.4 (`mpirun -n K mlprof summary DIR`),
# GoogleTest 1.12.1, Google Benchmark
# 1.7.1, clang 14 (fuzzing only). CMake checks the minimum versions.
#   scripts/setup.sh         build + test dependencies
#   scripts/setup.sh --ci    also clang + libFuzzer for sanitizer/fuzz runs, clang-format
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential cmake ninja-build pkg-config
      libsimdjson-dev libdeflate-dev zlib1g-dev libzstd-dev
      libcli11-dev libfmt-dev libabsl-dev libtomlplusplus-dev libsqlite3-dev libxlsxwriter-dev
      libgtest-dev libgmock-dev libbenchmark-dev python3 python3-openpyxl chromium
      python3-dev pybind11-dev python3-pandas python3-pytest libopenmpi-dev openmpi-bin)
if [ "${1:-}" = "--ci" ]; then pkgs+=(clang clang-format libclang-rt-14-dev python3 time); fi
command -v npm >/dev/null || pkgs+=(npm)

# The web assets (npm registry, pinned by web/package-lock.json).
web_assets() {
  local want have
  want=$(sed -n 's/.*"echarts": *"\([^"]*\)".*/\1/p' web/package.json)
  have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' web/node_modules/echarts/package.json 2>/dev/null | head -1 || true)
  if [ "$have" = "$want" ]; then return 0; fi
  echo "setup: installing ECharts $want from npm (web/node_modules)"
  (cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  web_assets
  echo "setup: all dependencies present"
  exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
web_assets
echo "setup: done"
