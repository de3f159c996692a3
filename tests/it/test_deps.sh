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
python3 "$checker" --save "$T/needs.json" >"$T/tree.out" 2>&1
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

# without PROFILE PACKAGE REGEX [ARGS...]: runs the checker on a copy of deps.sh whose PROFILE
# lacks PACKAGE; it must fail with a `not ok` line matching REGEX.  Sets OUT (its output).
without() {
  local prof=$1 pkg=$2 re=$3 copy=$T/deps-no-$2.sh
  shift 3
  OUT=$T/no-$pkg.out
  sed "/^$prof=(/,/)/ s/\(^\|[ (]\)$pkg\([ )]\|\$\)/\1\2/" "$TOP/tools/deps.sh" >"$copy"
  check_eq "the copy's $prof profile lacks $pkg" \
    "$(bash "$copy" --list "$prof" | grep -c "^$pkg\$")" 0
  python3 "$checker" --deps "$copy" "$@" >"$OUT" 2>&1
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
