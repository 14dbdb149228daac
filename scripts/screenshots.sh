#!/usr/bin/env bash
# Regenerates every picture of docs/images/ that the README shows, from the bundled sample:
# the main window scenarios of stallscope-screenshots (app/screenshots/) and the PDF report's
# first two pages. No display needed (Qt's offscreen platform); poppler-utils and the fonts come
# from scripts/install-deps.sh.
#   scripts/screenshots.sh [BUILD_DIR]     (default build/dev, configured already)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
session=resources/sample.stallscope
images=docs/images
cmake --build "$build" --target stallscope stallscope-screenshots
export QT_QPA_PLATFORM=offscreen
for scenario in $("$build/app/screenshots/stallscope-screenshots" --list); do
  "$build/app/screenshots/stallscope-screenshots" "$scenario" "$session" "$images/$scenario.png"
  echo "$images/$scenario.png"
done
# The report's findings page (3) and its stalled step (4) at 60 dpi: 496 x 702 pixels for A4.
report=$(mktemp --suffix=.pdf)
trap 'rm -f "$report"' EXIT
"$build/app/stallscope" --report "$report" --force "$session" # mktemp made it
pdftoppm -png -r 60 -f 3 -l 3 -singlefile "$report" "$images/report-findings"
pdftoppm -png -r 60 -f 4 -l 4 -singlefile "$report" "$images/report-step"
echo "$images/report-findings.png $images/report-step.png"
