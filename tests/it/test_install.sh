#!/usr/bin/env bash
# `make install` and `make uninstall`: the files go where the GNU directory variables say,
# and the installed tool needs nothing of the source tree.  That is checked as a user would
# meet it, in a private mount namespace (the machine's own view does not change): the
# DESTDIR's /usr/local is mounted over /usr/local, the source tree is hidden under an empty
# tmpfs, PATH holds only system directories, and from a folder of its own the installed
# soak runs the installed self-test scenario against the installed soak-regserver (its
# collectors found beside it), runs the installed A/A study (whose targets are the
# installed regserver.sh), and writes a report with pictures (gnuplot scripts built in);
# man finds the pages, bash-completion the completion, systemd-analyze accepts the units.
# Then an install under another PREFIX rewrites the paths the units and scenarios name,
# and `make uninstall` leaves nothing of soak behind.  (The Debian package is built and
# tried by `make check-deb`, too slow for `make check`; here only its version is checked.)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { fail "setup" "needs root (unshare -m, mount)"; exit 1; }
D=$T/dest
# make of the tree, on its own (not the job server of the `make check` that runs this).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" --no-print-directory "$@"; }

check "the programs are built (make install would not build them here)" mk -q install-build
# The Debian package (make deb) takes its version from debian/changelog: it must be VERSION.
check_eq "debian/changelog's version is VERSION's" \
  "$(sed -n '1s/^soak (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")" "$(cat "$TOP/VERSION")"
mk install DESTDIR="$D" >"$T/install.out" 2>&1
check_eq "make install DESTDIR=... exits 0" "$?" 0
(cd "$D" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$T/files"
P=usr/local
for f in bin/soak bin/soak-procstat bin/soak-gclog bin/soak-perf bin/soak-regserver; do
  check "$P/$f is installed, executable" test -x "$D/$P/$f" -a -f "$D/$P/$f"
done
check_eq "the programs: soak, the collectors (soak-perf too) and soak-regserver (not the monitor)" \
  "$(grep -c "^$P/bin/" "$T/files")" 5
check_eq "a man page for each page of man/" \
  "$(grep -c "^$P/share/man/man[15]/soak.*\.[15]$" "$T/files")" "$(ls "$TOP"/man/*.[15] | wc -l)"
check "soak-scenario(5) in man5" grep -qx "$P/share/man/man5/soak-scenario.5" "$T/files"
check "the completion, and a link for each other program" \
  test -f "$D/$P/share/bash-completion/completions/soak" -a \
  "$(readlink "$D/$P/share/bash-completion/completions/soak-procstat")" = soak -a \
  "$(readlink "$D/$P/share/bash-completion/completions/soak-regserver")" = soak
check_eq "every scenario and frame file" \
  "$(grep -c "^$P/share/soak/scenarios/" "$T/files")" \
  "$(ls "$TOP"/scenarios/*.ini "$TOP"/scenarios/frames/* | wc -l)"
check "the systemd template units" test -f "$D/$P/lib/systemd/system/soak-procstat@.service" -a \
  -f "$D/$P/lib/systemd/system/soak-gclog@.service"
check "the deploy files, scripts executable" test -x "$D/$P/share/soak/deploy/slurm/submit.sh" -a \
  -f "$D/$P/share/soak/deploy/k8s/Containerfile" -a -f "$D/$P/share/soak/deploy/systemd/app.env.example"
check "the study targets' script" test -x "$D/$P/share/soak/targets/regserver/regserver.sh"
check "README in the doc folder" test -f "$D/$P/share/doc/soak/README.md"
check "... with the documents it links to" bash -c "cd '$D/$P/share/doc/soak' && test -f docs/tutorial.md && test -f docs/img/report-first-screen.png && ! grep -o '](docs/[^)#]*' README.md | cut -c3- | while read -r f; do test -e \"\$f\" || echo \"\$f\"; done | grep ."
check_eq "nothing else" "$(grep -vc "^$P/\(bin\|share/man\|share/bash-completion\|share/soak\|share/doc/soak\|lib/systemd/system\)/" "$T/files")" 0
# No installed file names the source tree (the binaries without their debug sections: those
# name where they were compiled, which nothing reads at run time).
: >"$T/tree-refs"
while read -r f; do
  g=$D/$f
  if [ "$(head -c 4 "$g" | od -An -c | tr -d ' ')" = 177ELF ]; then
    strip -o "$T/stripped" "$g" && g=$T/stripped
  fi
  grep -qF "$TOP" "$g" && echo "$f" >>"$T/tree-refs"
done < <(grep -v "^$P/share/bash-completion/completions/soak-" "$T/files")
check_eq "no installed file names the source tree" "$(tr '\n' ' ' <"$T/tree-refs")" ""

# The installed tool alone: the tree hidden, the DESTDIR at its prefix.
mkdir -p "$T/run"
cat >"$T/inside.sh" <<'EOF'
set -u
top=$1 dest=$2 run=$3
mount --make-rprivate / 2>/dev/null
mount --bind "$dest/usr/local" /usr/local || { echo "setup: bind /usr/local failed"; exit 1; }
mount -t tmpfs -o size=1m soak-hidden "$top" || { echo "setup: hiding the tree failed"; exit 1; }
cd "$run" || exit 1
export PATH=/usr/local/bin:/usr/bin:/bin TMPDIR=$run HOME=$run
unset BIN TOP SOAK_DB SOAK_PLOTS SOAK_GNUPLOT
echo "tree_files=$(ls -A "$top" | wc -l)"
echo "soak=$(command -v soak)"
soak --version >version.out 2>&1; echo "version=$?"
# The self-test scenario against soak-regserver (started by the installed study script):
# its collectors come from beside soak.
targets=/usr/local/share/soak/targets/regserver/regserver.sh
eval "$("$targets" start "$run/reg" --latency 1 | grep -E '^(pid|url)=')"
soak run -q --db run.db --set "request.url=$url" \
  --set scenario.duration=2s --set scenario.warmup=0s --set scenario.concurrency=2 \
  --set collect.app.pid_match= --set "collect.app.pid=$pid" \
  /usr/local/share/soak/scenarios/selftest.ini >run.out 2>&1
echo "run=$?"
"$targets" stop "$run/reg"
# The A/A study: its targets start the installed regserver through the installed script.
soak study -q --db study.db --set scenario.duration=1s --set scenario.warmup=0s \
  --set scenario.concurrency=2 /usr/local/share/soak/scenarios/selftest-study.ini >study.out 2>&1
echo "study=$?"
soak report study.db -o rep >report.out 2>&1; echo "report=$?"
echo "svgs=$(ls rep/img/*.svg 2>/dev/null | wc -l)"
echo "man=$(man -w soak-run 2>&1)"
echo "man5=$(man -w 5 soak-scenario 2>&1)"
bash -c '. /usr/share/bash-completion/bash_completion && __load_completion soak && complete -p soak' \
  >comp.out 2>&1
echo "completion=$(cat comp.out)"
mkdir -p units
for u in soak-procstat soak-gclog; do cp "/usr/local/lib/systemd/system/$u@.service" "units/$u@app.service"; done
systemd-analyze verify units/soak-procstat@app.service units/soak-gclog@app.service >units.out 2>&1
echo "units=$?"
EOF
timeout 300 unshare -m bash "$T/inside.sh" "$TOP" "$D" "$T/run" >"$T/inside.out" 2>&1
check_eq "the namespace ran to its end" "$?" 0
v() { sed -n "s/^$1=//p" "$T/inside.out"; }
check_eq "the source tree is hidden" "$(v tree_files)" 0
check_eq "soak is the installed one" "$(v soak)" /usr/local/bin/soak
check_eq "soak --version" "$(v version)" 0
check_eq "soak run of the installed selftest.ini" "$(v run)" 0
check_eq "the run recorded intervals" \
  "$(sql "$T/run/run.db" "SELECT COUNT(*) > 0 FROM intervals WHERE run_id = 1")" 1
check_eq "the installed collectors sampled regserver and the host" \
  "$(sql "$T/run/run.db" "SELECT COUNT(DISTINCT source) FROM samples WHERE source IN ('app', 'host') AND metric IN ('cpu_pct', 'cpu_user_pct')")" 2
check_eq "soak study of the installed selftest-study.ini" "$(v study)" 0
check_eq "the study ran 8 runs of a and b, all done" \
  "$(sql "$T/run/study.db" "SELECT COUNT(*) || ' ' || GROUP_CONCAT(DISTINCT label) || ' ' || SUM(status = 'done') FROM runs")" "8 a,b 8"
check_eq "soak report" "$(v report)" 0
check "the report drew pictures (gnuplot scripts built in)" test "$(v svgs)" -gt 3
check "report.html and report.md" test -s "$T/run/rep/report.html" -a -s "$T/run/rep/report.md"
check_eq "man finds soak-run(1) under the prefix" "$(v man)" /usr/local/share/man/man1/soak-run.1
check_eq "man finds soak-scenario(5)" "$(v man5)" /usr/local/share/man/man5/soak-scenario.5
check_eq "bash-completion loads the completion from the prefix" "$(v completion)" "complete -F _soak soak"
check_eq "systemd-analyze verify accepts the installed units" "$(v units)" 0
grep -q '^units=0' "$T/inside.out" || sed 's/^/# /' "$T/run/units.out"
for f in run study report; do
  grep -q "^$f=0" "$T/inside.out" || sed 's/^/# /' "$T/run/$f.out"
done
check "nothing is left running in the study's folders" \
  test ! -e "$T/run/soak-selftest-a/regserver.pid" -a ! -e "$T/run/soak-selftest-b/regserver.pid"

# Another prefix: the units and the scenarios name where things went.
D2=$T/opt
mk install DESTDIR="$D2" PREFIX=/opt/soak >"$T/install2.out" 2>&1
check_eq "make install PREFIX=/opt/soak" "$?" 0
check "the units run /opt/soak/bin's collectors" \
  grep -q '^ExecStart=/opt/soak/bin/soak-procstat ' "$D2/opt/soak/lib/systemd/system/soak-procstat@.service"
check "the units point at the installed README" \
  grep -q '^Documentation=file:///opt/soak/share/soak/deploy/systemd/README.md' "$D2/opt/soak/lib/systemd/system/soak-gclog@.service"
check "overnight.ini's crontab line names the installed soak and scenario" \
  grep -q '/opt/soak/bin/soak run .*/opt/soak/share/soak/scenarios/overnight.ini' "$D2/opt/soak/share/soak/scenarios/overnight.ini"
check_eq "no /usr/local path is left in the units and scenarios" \
  "$(grep -rl '/usr/local/\(bin\|share/soak\)' "$D2/opt/soak/share/soak/scenarios" "$D2/opt/soak/lib" | wc -l)" 0
check "BINDIR and MANDIR on their own" mk install DESTDIR="$T/sep" PREFIX=/usr BINDIR=/usr/games MANDIR=/usr/man
check "... put the programs and the pages there" test -x "$T/sep/usr/games/soak" -a -f "$T/sep/usr/man/man1/soak.1"

# make uninstall: nothing of soak is left (the standard directories stay).
mk uninstall DESTDIR="$D"
check_eq "make uninstall exits 0" "$?" 0
check_eq "no file is left" "$(find "$D" \( -type f -o -type l \) | wc -l)" 0
check_eq "no folder of soak's is left" "$(find "$D" -name '*soak*' | wc -l)" 0
mk uninstall DESTDIR="$D2" PREFIX=/opt/soak
check_eq "make uninstall PREFIX=/opt/soak leaves no file" "$(find "$D2" \( -type f -o -type l \) | wc -l)" 0
done_testing
