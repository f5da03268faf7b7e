#!/usr/bin/env bash
# Fails when a C++ file of the project is not as clang-format (.clang-format)
# writes it. Fix with: scripts/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/mlprof-format.$$; then
  grep -E "^[^ ].*(warning|error):" /tmp/mlprof-format.$$ | head -20
  echo "format: $(grep -c 'warning:\|error:' /tmp/mlprof-format.$$) places differ from clang-format; run scripts/check_format.sh --fix"
  rm -f /tmp/mlprof-format.$$
  exit 1
fi
rm -f /tmp/mlprof-format.$$
echo "format: ${#files[@]} files clean"
