#!/usr/bin/env bash
# Every Debian package that `make`, `make demo` and `make check` need is in the tools/deps.sh
# profile that installs it: headers and pkg-config modules of every program make builds,
# every command the recipes, the demo and the tests run, the jars of the Java build
# (tests/it/deps_check.py says how it finds them).  Then the check proves it can fail: on a
# copy of deps.sh without libjansson-dev in the build profile (a header and a module), one
# without gnuplot in the demo profile (a command a C program runs), one without postgresql in
# the demo profile (a command a script runs through a variable and a function), one
# without bash-completion in the check profile (a file a test sources), two without
# debhelper and lintian in the package profile (what debian/control's Build-Depends name,
# a command) and one without libclang-rt-dev in the check profile (what a compiler links).
. "$(dirname "$0")/lib.sh"
checker=$TOP/tests/it/deps_check.py
# The goals are `make`, `make demo` and `make check` as a newcomer types them: under
# `make check SANITIZE=...` the checker must still read the plain build (bin/, not
# build/san/bin/), whose make variables SANITIZE in the environment would change.
unset SANITIZE
shfmt --version >/dev/null || { fail "setup" "shfmt is missing (tools/deps.sh check installs it)"; exit 1; }

# The tree as it is: the checker's own lines are this suite's.
python3 "$checker" --index-cache "$T/apt.idx" --save "$T/needs.json" >"$T/tree.out" 2>&1
rc=$?
cat "$T/tree.out"
case "$rc" in
  0) ;;
  1) _failures=$((_failures + 1)) ;;  # its `not ok` lines above say what is missing
  *) fail "deps_check ran" "status $rc" ;;
esac
check "deps_check looked at every goal's programs and commands" \
  grep -q '^ok - demo profile covers every command it runs' "$T/tree.out"
# `make check` and `make demo` build through a sub-make (`$(MAKE) -jN all ...`): the checker
# must follow it to the programs, as it follows prerequisites.
for goal in check demo; do
  check "deps_check follows $goal's sub-make to bin/soak's sources" \
    grep -q "^ok - $goal profile covers bin/soak: headers and pkg-config modules" "$T/tree.out"
done
check "deps_check follows check's sub-make to the unit tests" \
  grep -q '^ok - check profile covers build/rel/tests/test_sched: headers' "$T/tree.out"

# The same answer on a fresh machine.  A fresh Debian on which `make check` installed its
# profile has the base (required, essential) and the check profile's closure, nothing else:
# judged with this machine's other packages hidden, every line must be the same.
python3 "$checker" --index-cache "$T/apt.idx" --load "$T/needs.json" --fresh-status "$T/fresh.status" >/dev/null 2>&1
n_fresh=$(grep -c '^Package: ' "$T/fresh.status")
n_here=$(dpkg-query -W -f='${db:Status-Status}\n' | grep -cx installed)
check "the fresh machine's view hides what is installed here outside the profiles ($n_fresh of $n_here)" \
  test "$n_fresh" -gt 50 -a "$n_fresh" -lt "$n_here"
python3 "$checker" --index-cache "$T/apt.idx" --load "$T/needs.json" --status "$T/fresh.status" >"$T/fresh.out" 2>&1
check_eq "judged as on a fresh machine: the same lines as here" \
  "$(grep -E '^(ok|not ok) ' "$T/fresh.out" | sort | md5sum)" \
  "$(grep -E '^(ok|not ok) ' "$T/tree.out" | sort | md5sum)"
# ... and the view is what catches a profile that `make check` judges but does not install
# (the package profile was so until lintian and debootstrap failed on a fresh machine).
sed 's/^  check) want=.*/  check) want=("${build[@]}" "${check[@]}") ;;/' "$TOP/tools/deps.sh" \
  >"$T/deps-check-only.sh"
python3 "$checker" --index-cache "$T/apt.idx" --deps "$T/deps-check-only.sh" --load "$T/needs.json" \
  --fresh-status "$T/fresh-no-package.status" >/dev/null 2>&1
python3 "$checker" --index-cache "$T/apt.idx" --deps "$T/deps-check-only.sh" --load "$T/needs.json" \
  --status "$T/fresh-no-package.status" >"$T/no-package.out" 2>&1
check_eq "make check without the package profile: deps_check fails on the fresh view" "$?" 1
check "... naming lintian as named by the package profile but not installed by make check" \
  grep -qE "^not ok - package: tests/pkg/test_deb\.sh:[0-9]+ runs 'lintian' .* from lintian, which the package profile names but .make check. does not install" "$T/no-package.out"

# without PROFILE PACKAGE REGEX [ARGS...]: runs the checker on a copy of deps.sh whose PROFILE
# lacks PACKAGE; it must fail with a `not ok` line matching REGEX.  Sets OUT (its output).
without() {
  local prof=$1 pkg=$2 re=$3 copy=$T/deps-no-$2.sh
  shift 3
  OUT=$T/no-$pkg.out
  sed "/^$prof=(/,/)/ s/\(^\|[ (]\)$pkg\([ )]\|\$\)/\1\2/" "$TOP/tools/deps.sh" >"$copy"
  check_eq "the copy's $prof profile lacks $pkg" \
    "$(bash "$copy" --list "$prof" | grep -c "^$pkg\$")" 0
  python3 "$checker" --index-cache "$T/apt.idx" --deps "$copy" "$@" >"$OUT" 2>&1
  check_eq "without $pkg in $prof: deps_check fails" "$?" 1
  check "without $pkg in $prof: a not ok line names what needs it, the package and the profile" \
    grep -qE "^not ok - $re" "$OUT"
}

# The build profile without libjansson-dev: bin/monitor's jansson.h, by a full run of the
# checker (extraction and all).
without build libjansson-dev \
  "build: bin/monitor includes /usr/include/jansson\.h from libjansson-dev, which is not in the build profile"
# The demo profile without gnuplot: `soak report` runs it (soak/report/write/report_plot.c's execl).
without demo gnuplot-nox \
  "demo: soak/report/write/report_plot\.c:[0-9]+ \(run by bin/soak\) runs 'gnuplot' .* from gnuplot-nox, which is not in the demo profile" \
  --load "$T/needs.json"
check_eq "without gnuplot-nox in demo: check is still covered" "$(grep -c "^not ok - check:" "$OUT")" 0
# The demo profile without postgresql: targets/db/postgres.sh runs "$PGBIN/pg_ctl" through its
# as_owner function (runuser ... -- "$@"), reached from tools/demo.sh via the Makefile recipe.
without demo postgresql \
  "demo: targets/db/postgres\.sh:[0-9]+ runs 'pg_ctl' \(/usr/lib/postgresql/15/bin/pg_ctl\) from postgresql-15, which is not in the demo profile" \
  --load "$T/needs.json"
# The check profile without bash-completion: tests/it/test_completion.sh sources its
# bash_completion (a file, not a command).
without check bash-completion \
  "check: tests/it/test_completion\.sh:[0-9]+ sources /usr/share/bash-completion/bash_completion from bash-completion, which is not in the check profile" \
  --load "$T/needs.json"
# The package profile (make check-deb) without debhelper: dpkg-buildpackage runs
# debian/rules, whose dh comes from debian/control's Build-Depends (debhelper-compat).
without package debhelper \
  "package: tests/pkg/test_deb\.sh:[0-9]+ runs dpkg-buildpackage: debian/control's Build-Depends name debhelper-compat from debhelper, which is not in the package profile" \
  --load "$T/needs.json"
# ... and without lintian, a command tests/pkg/test_deb.sh runs.
without package lintian \
  "package: tests/pkg/test_deb\.sh:[0-9]+ runs 'lintian' .* from lintian, which is not in the package profile" \
  --load "$T/needs.json"
# The check profile without libclang-rt-dev: clang -fsanitize=fuzzer in tests/fuzz/run.sh links
# its runtimes (clang only recommends the package; this is how a fresh machine failed).
without check libclang-rt-dev \
  "check: tests/fuzz/run\.sh:[0-9]+ links /.*/libclang_rt\.fuzzer-x86_64\.a \(clang\) from libclang-rt-[0-9]+-dev, which is not in the check profile" \
  --load "$T/needs.json"
done_testing
