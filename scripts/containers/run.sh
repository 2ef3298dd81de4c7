#!/usr/bin/env bash
# One command, on a machine of this project's kind (Debian 12, root, the npm registry and Debian's
# packages reachable): builds the images, then starts the stack and proves it
# (docs/operating/building.md). The report is printed and kept in $PROMPTPIX_CONTAINERS_DIR.
#
#   sudo scripts/containers/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/containers/build-images.sh
source scripts/containers/prerequisites.sh
report=$WORK_DIR/last-run.md
npx tsx scripts/containers/prove-stack.ts | tee "$report"
echo "report: $report" >&2
