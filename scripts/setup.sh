#!/usr/bin/env bash
# Installs mlprof's build and test dependencies from Debian 12 (bookworm)
# packages. Versions tested: simdjson 3.0.1, libdeflate 1.14, zlib 1.2.13,
# zstd 1.5.4, CLI11 2.1.2, fmt 9.1.0, Abseil 20220623 (InlinedVector), toml++ 3.3.0 (planner model files),
# SQLite 3.40.1 (`mlprof sql`, `export --sqlite`), libxlsxwriter 1.1.4 (report.xlsx; openpyxl 3.0.9 reads
# it back in the tests),
# GoogleTest 1.12.1, Google Benchmark
# 1.7.1, clang 14 (fuzzing only). CMake checks the minimum versions.
#   scripts/setup.sh         build + test dependencies
#   scripts/setup.sh --ci    also clang + libFuzzer for sanitizer/fuzz runs, clang-format
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libsimdjson-dev libdeflate-dev zlib1g-dev libzstd-dev
      libcli11-dev libfmt-dev libabsl-dev libtomlplusplus-dev libsqlite3-dev libxlsxwriter-dev
      libgtest-dev libgmock-dev libbenchmark-dev python3 python3-openpyxl)
if [ "${1:-}" = "--ci" ]; then pkgs+=(clang clang-format libclang-rt-14-dev python3 time); fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
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
echo "setup: done"
