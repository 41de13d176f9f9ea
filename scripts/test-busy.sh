#!/usr/bin/env bash
# npm run test:busy: the end-to-end tests on a busy machine, beside four CPU hogs (a Node
# spinner each, at the tests' own priority), as on a 2-core machine running other work (a
# load average of about 10 there broke 50 tests that passed on a quiet one). The
# hogs are this script's children, stopped by their pids when it ends, however it ends. The
# tests judge measured figures against what the run itself measured (send lag, the machine
# busy) or a stated tolerance, and a knee against a limit the test set, so they must pass here
# too. The last line: `N passed, N failed, N skipped`.
set -uo pipefail
cd "$(dirname "$0")/.."
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT TERM
for _ in 1 2 3 4; do
  node -e 'for (;;) {}' &
  hogs+=("$!")
done
echo "test:busy: four CPU hogs running (pids ${hogs[*]})"
LAB_TEST_SETS="e2e" bash scripts/test.sh "$@"
