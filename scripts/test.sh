#!/usr/bin/env bash
# npm test: lint and the unit tests side by side (no process started, as many workers as
# cores), then the end-to-end tests (*.e2e.test.js: the real CLI, deployments, browsers), six at a time
# (jest.config.js). Each step runs even when one before failed, so one run says everything;
# the last line is `N passed, N failed, N skipped` for all of them (test-output/summary.txt,
# read by .ci/run). The container and cluster suites are .ci/run's (npm run test:containers,
# test:cluster).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-output
rm -f test-output/leftovers.txt test-output/failures-lint.txt test-output/failures-leftovers.txt
# The run's token: every process the suite starts carries it, so the check at the end finds
# what was left running (test/leftovers.js).
LAB_TEST_RUN=${LAB_TEST_RUN:-$(node -p "require('./test/leftovers').newToken()")}
export LAB_TEST_RUN
rc=0
passed=0
failed=0
skipped=0
count() {
  local sp sf ss
  read -r sp _ sf _ ss _ < test-output/summary.txt
  passed=$((passed + sp))
  failed=$((failed + sf))
  skipped=$((skipped + ${ss:-0}))
}

# Which steps (LAB_TEST_SETS, default all: lint unit e2e); npm run test:busy runs the last.
sets=" ${LAB_TEST_SETS:-lint unit e2e} "

# Lint: ESLint, Prettier, no import cycle between lab/'s folders, and the library's types
# (TypeScript over a file that uses them, test/lab/api/types.check.ts), four checks. Each is one
# process on one core, so they run side by side with each other and with the unit tests
# (about 30 s of lint, then 30 s of unit tests, one after the other; bench/README.md): their
# words are kept apart and said once all have ended, in the order below.
lint=()
if [[ $sets == *" lint "* ]]; then
  # (The programs themselves, not through npx: each pid is the check's own, for the trap below.)
  bin=node_modules/.bin
  lint=("$bin/eslint ." "$bin/prettier --check --log-level warn ." "node scripts/import-cycles.js" "$bin/tsc -p test/lab/api/tsconfig.json")
fi
lint_out=test-output/lint
rm -rf "$lint_out"
lint_pids=()
# (Stopped with the run, by their pids, if it ends before them: Ctrl-C, a kill.)
trap '[ ${#lint_pids[@]} -eq 0 ] || kill "${lint_pids[@]}" 2>/dev/null' EXIT
# Ctrl-C (or a TERM): jest ends with its workers, but not what a test had started and not yet
# taken down (a deployment between a test's deploy and its afterAll; CI run L, stopped so,
# left a pm2 daemon and a replica up). First each deployment of the suite's scratch folders is
# taken down by the lab's own `down` (its control groups and store folders too, which stopping
# its processes leaves: CI run M); then what still carries the run's token is stopped and
# named (test/leftovers.js), and the run ends 130, the results so far kept in test-output/.
interrupted() {
  trap - INT TERM
  echo "npm test: interrupted; stopping what the tests left running" >&2
  local state
  for state in "${TMPDIR:-/tmp}/lab-tests-$LAB_TEST_RUN-"*/{,*/}state.json; do
    [ -f "$state" ] && [ -f lab/cli/index.js ] || continue
    timeout 60 node lab/cli down --state-dir "$(dirname "$state")" >&2 || true
  done
  node test/leftovers.js >&2 || true
  exit 130
}
trap interrupted INT TERM
if [ ${#lint[@]} -gt 0 ]; then
  mkdir -p "$lint_out"
  for i in "${!lint[@]}"; do
    ${lint[$i]} > "$lint_out/$i.log" 2>&1 &
    lint_pids+=($!)
  done
fi
# (Called after the unit tests, or at once without them: every check waited for, its words
# said, counted like a test.)
lint_done() {
  for i in "${!lint_pids[@]}"; do
    local check_rc=0
    wait "${lint_pids[$i]}" || check_rc=$?
    cat "$lint_out/$i.log"
    if [ "$check_rc" -eq 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      rc=1
      echo "lint failed: ${lint[$i]}" | tee -a test-output/failures-lint.txt
    fi
  done
  lint_pids=()
  rm -rf "$lint_out"
}

# (Unit tests start no process: as many workers as cores. The end-to-end ones keep the
# configured count, most of their time spent waiting on the processes they start.)
for project in unit e2e; do
  [[ $sets == *" $project "* ]] || continue
  # (Lint's checks, which ran beside the unit tests, end before the end-to-end ones start:
  # those judge rates and latencies beside each other, never beside lint.)
  [ "$project" = e2e ] && lint_done
  rm -f test-output/summary.txt "test-output/files-$project.json"
  workers=()
  [ "$project" = unit ] && workers=(--maxWorkers=100%)
  LAB_TESTS=$project npx --no-install jest "${workers[@]}" "$@" || rc=1
  if [ -f test-output/summary.txt ]; then count; else failed=$((failed + 1)); rc=1; fi
done
lint_done

# Last: nothing of the suite's may still run (one more check, counted like a test).
if node test/leftovers.js; then passed=$((passed + 1)); else failed=$((failed + 1)); rc=1; fi

echo "$passed passed, $failed failed, $skipped skipped" > test-output/summary.txt
cat test-output/summary.txt
exit "$rc"
