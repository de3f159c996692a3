#!/usr/bin/env bash
# Every Debian package that `make`, `make demo` and `make check` need is in the tools/deps.sh
# profile that installs it: headers and pkg-config modules of every program make builds,
# every command the recipes, the demo and the tests run, the jars of the Java build
# (tests/it/deps_check.py says how it finds them).  Then the check proves it can fail: on a
# copy of deps.sh without libjansson-dev in the build profile (a header and a module), one
# without gnuplot in the demo profile (a command a C program runs), one without postgresql in
# the demo profile (a command a script runs through a variable and a function) and one
# without libclang-rt-dev in the check profile (what a compiler links).
. "$(dirname "$0")/lib.sh"
checker=$TOP/tests/it/deps_check.py
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

# A build profile without libjansson-dev: bin/monitor's jansson.h must be caught, by a full
# run of the checker (extraction and all).
sed '/^build=(/,/)/ s/ libjansson-dev//' "$TOP/tools/deps.sh" >"$T/deps-nojansson.sh"
check_eq "the copy's build profile lacks libjansson-dev" \
  "$(bash "$T/deps-nojansson.sh" --list build | grep -c '^libjansson-dev$')" 0
python3 "$checker" --deps "$T/deps-nojansson.sh" >"$T/nojansson.out" 2>&1
check_eq "without libjansson-dev: deps_check fails" "$?" 1
check "without libjansson-dev: names bin/monitor, jansson.h, the package and the profile" \
  grep -qE "^not ok - build: bin/monitor includes /usr/include/jansson\.h from libjansson-dev, which is not in the build profile" \
  "$T/nojansson.out"

# A demo profile without gnuplot: `soak report` runs it (soak/report_plot.c's execl).
sed '/^demo=(/,/)/ s/gnuplot-nox //' "$TOP/tools/deps.sh" >"$T/deps-nognuplot.sh"
check_eq "the copy's demo profile lacks gnuplot-nox" \
  "$(bash "$T/deps-nognuplot.sh" --list demo | grep -c '^gnuplot-nox$')" 0
python3 "$checker" --deps "$T/deps-nognuplot.sh" --load "$T/needs.json" >"$T/nognuplot.out" 2>&1
check_eq "without gnuplot-nox in demo: deps_check fails" "$?" 1
check "without gnuplot-nox in demo: names the command, the package and the profile" \
  grep -qE "^not ok - demo: soak/report_plot\.c:[0-9]+ \(run by bin/soak\) runs 'gnuplot' .* from gnuplot-nox, which is not in the demo profile" \
  "$T/nognuplot.out"
check_eq "without gnuplot-nox in demo: check is still covered" \
  "$(grep -c "^not ok - check:" "$T/nognuplot.out")" 0

# A demo profile without postgresql: targets/db/postgres.sh runs "$PGBIN/pg_ctl" through its
# as_owner function (runuser ... -- "$@"), reached from tools/demo.sh via the Makefile recipe.
sed '/^demo=(/,/)/ s/ postgresql / /' "$TOP/tools/deps.sh" >"$T/deps-nopg.sh"
check_eq "the copy's demo profile lacks postgresql" \
  "$(bash "$T/deps-nopg.sh" --list demo | grep -c '^postgresql$')" 0
python3 "$checker" --deps "$T/deps-nopg.sh" --load "$T/needs.json" >"$T/nopg.out" 2>&1
check_eq "without postgresql in demo: deps_check fails" "$?" 1
check "without postgresql in demo: names pg_ctl in targets/db/postgres.sh and postgresql-15" \
  grep -qE "^not ok - demo: targets/db/postgres\.sh:[0-9]+ runs 'pg_ctl' \(/usr/lib/postgresql/15/bin/pg_ctl\) from postgresql-15, which is not in the demo profile" \
  "$T/nopg.out"

# A check profile without libclang-rt-dev: clang -fsanitize=fuzzer in tests/fuzz/run.sh links
# its runtimes (clang only recommends the package; this is how a fresh machine failed).
sed '/^check=(/,/)/ s/ libclang-rt-dev / /' "$TOP/tools/deps.sh" >"$T/deps-nort.sh"
check_eq "the copy's check profile lacks libclang-rt-dev" \
  "$(bash "$T/deps-nort.sh" --list check | grep -c '^libclang-rt-dev$')" 0
python3 "$checker" --deps "$T/deps-nort.sh" --load "$T/needs.json" >"$T/nort.out" 2>&1
check_eq "without libclang-rt-dev in check: deps_check fails" "$?" 1
check "without libclang-rt-dev in check: names the fuzzer runtime tests/fuzz/run.sh links" \
  grep -qE "^not ok - check: tests/fuzz/run\.sh:[0-9]+ links /.*/libclang_rt\.fuzzer-x86_64\.a \(clang\) from libclang-rt-[0-9]+-dev, which is not in the check profile" \
  "$T/nort.out"
done_testing
