#!/usr/bin/env bash
# The documentation cannot drift: every command block of README.md and docs/tutorial.md
# runs here, as a reader would type it, in a folder of its own, with soak and
# soak-regserver (bin/regserver under its installed name) on the PATH and free ports
# for the documented 8080 and 8081; where the text quotes what a command prints, the
# output must say it (numbers and durations may differ).  A block that cannot run here
# says why in its first line (```sh needs=java: tests/it/docs_check.py knows the
# reasons).  Then every link of the README, docs/, HACKING.md and bench/README.md must
# lead to a file and heading that exist, and every page the README and docs/ name as
# soak-COMMAND(1) must exist in man/.  The README's picture shows the figures of the study
# database committed beside it, and its caption quotes them.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/bin" "$T/work"
ln -s "$BIN/regserver" "$T/bin/soak-regserver"
export PATH="$T/bin:$BIN:$PATH"
# The documents' own ports, and the free ones put in for them.
map="8080:$(free_port),8081:$(free_port)"
echo "# ports: $map"

cd "$TOP" || exit 1
python3 tests/it/docs_check.py run "$T/work" "$map" README.md docs/tutorial.md
check "the README's first run left its report" test -s "$T/work/README/report/report.html"
check "... and the scenario file it saved runs" \
  bash -c "cd '$T/work/README' && soak check first.ini >/dev/null"
check "the tutorial's study left its report" test -s "$T/work/tutorial/study-report/report.json"

python3 tests/it/docs_check.py links README.md docs/*.md HACKING.md bench/README.md
# soak-run(1), soak-scenario(5): each page named exists.
missing=$(grep -ohE '\bsoak(-[a-z]+)?\([15]\)' README.md docs/*.md HACKING.md bench/README.md |
  sort -u | sed -E 's/^(.*)\(([15])\)$/man\/\1.\2/' | while read -r f; do [ -f "$f" ] || echo "$f"; done)
check_eq "every man page the documents name exists" "$missing" ""
# The README's picture (tools/readme-picture.sh) shows the figures of the study database
# committed beside it, rendered again here; among them a difference called real with an
# interval under ±10 % and a figure that is noise; its caption quotes cells of that table.
pic=docs/img/report-first-screen
soak report "$pic.db" -o "$T/picture" --no-plots >/dev/null 2>&1
check_eq "the README's picture: its figures are those of its database, rendered now" \
  "$(bash tools/readme-picture.sh --figures "$T/picture")" "$(jq . "$pic.json")"
figs='[.verdict[].figures[]]'
check_range "... a difference called real with an interval under ±10 %" \
  "$(jq "$figs | map(select(.verdict == \"real\" and .half < 10)) | length" "$pic.json")" 1 99
check_range "... and a figure that is noise" \
  "$(jq "$figs | map(select(.verdict == \"noise\")) | length" "$pic.json")" 1 99
quoted=$(sed -n '/^!\[.*report-first-screen/,/^## /p' README.md | grep -oE '[+-]?[0-9.]+% ±[0-9.]+% \([a-z]+\)')
check_range "... its caption quotes figures" "$(grep -c . <<<"$quoted")" 2 99
while IFS= read -r q && [ -n "$q" ]; do
  check "... the caption's '$q' is in the picture's table" grep -qF -- "$q" <(jq -r '.table[]' "$pic.json")
done <<<"$quoted"
# The README is the front page: short, and the first run within its first 60 lines.
check_range "README.md is a front page (lines)" "$(wc -l <README.md)" 1 200
check_range "... its first soak run --url within the first 60 lines" \
  "$(grep -n -m1 '^soak run --url' README.md | cut -d: -f1)" 1 60

done_testing
