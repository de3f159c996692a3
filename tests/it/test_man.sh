#!/usr/bin/env bash
# The man pages (man/): each renders with no warning under `groff -ww` and `man -l`, every
# command `soak --help` lists has its page, and every option each program's --help prints is
# in its page (tests/it/man_check.py says how).  Then the check proves it can fail: a page
# that lost an option, a soak whose `run --help` gained one and whose command list gained
# one (`--pcap`, `replay`: neither exists), a page with a groff mistake.
. "$(dirname "$0")/lib.sh"
checker=$TOP/tests/it/man_check.py
pages=(--page "soak-procstat=$BIN/soak-procstat" --page "soak-gclog=$BIN/soak-gclog"
       --page "soak-regserver=$BIN/regserver" --page "soak-perf=$BIN/soak-perf")

# The pages as they are: the checker's own lines are this suite's.
python3 "$checker" --man "$TOP/man" --soak "$BIN/soak" "${pages[@]}" >"$T/tree.out" 2>&1
rc=$?
cat "$T/tree.out"
[ "$rc" -eq 1 ] && _failures=$((_failures + 1))
[ "$rc" -gt 1 ] && fail "man_check ran" "status $rc"
check_eq "a page for each program and each of soak's commands, plus soak(1) and soak-scenario(5)" \
  "$(cd "$TOP/man" && ls | tr '\n' ' ')" \
  "soak-calibrate.1 soak-check.1 soak-gclog.1 soak-history.1 soak-hlog.1 soak-import.1 soak-merge.1 soak-perf.1 soak-procstat.1 soak-profile.1 soak-regserver.1 soak-report.1 soak-run.1 soak-runs.1 soak-scenario.5 soak-study.1 soak.1 "

# without: runs the checker on a copy; it must fail with a `not ok` line matching REGEX.
#   without NAME REGEX MANDIR SOAK PAGE    (PAGE: the one page to look at)
without() {
  local name=$1 re=$2 out=$T/$RANDOM.out
  python3 "$checker" --man "$3" --soak "$4" "${pages[@]}" --render "$5" --only "$5" >"$out" 2>&1
  check_eq "$name: man_check fails" "$?" 1
  check "$name: a not ok line says what" grep -qE "^not ok - $re" "$out" ||
    sed 's/^/# /' "$out"
}

# soak-runs.1 without its --json item.
cp -r "$TOP/man" "$T/man1"
awk '/^\.TP$/ { tp = $0; next } tp != "" { if ($0 == ".B \\-\\-json") { tp = ""; skip = 1; next }
     print tp; tp = "" } skip && /^\.TP$/ { skip = 0 } !skip { print }' \
  "$TOP/man/soak-runs.1" >"$T/man1/soak-runs.1"
check "the copy of soak-runs.1 lost the --json item" \
  test "$(grep -c 'json' "$T/man1/soak-runs.1")" -lt "$(grep -c 'json' "$TOP/man/soak-runs.1")"
without "a page without an option" \
  "soak runs --json .*soak-runs\.1" "$T/man1" "$BIN/soak" soak-runs.1

# A soak with a new option and a new command, neither documented.
cat >"$T/soak" <<EOF
#!/usr/bin/env bash
case "\$*" in
  --help) "$BIN/soak" --help | sed '/^commands:/a\\  replay   send a recorded capture again' ;;
  "run --help") "$BIN/soak" run --help; echo '  --pcap FILE            record the run as a capture' ;;
  "replay --help") echo 'usage: soak replay [--db FILE] CAPTURE'; echo '  --db FILE  the database' ;;
  *) exec "$BIN/soak" "\$@" ;;
esac
EOF
chmod +x "$T/soak"
check "the stand-in soak lists replay" grep -q '^  replay ' <("$T/soak" --help)
without "an option in run --help that soak-run.1 lacks" \
  "soak run --pcap .*soak-run\.1" "$TOP/man" "$T/soak" soak-run.1
without "a command without a page" "soak replay has a page: soak-replay\.1 is missing" \
  "$TOP/man" "$T/soak" soak-replay.1

# A page with a groff mistake (an unknown request).
cp -r "$TOP/man" "$T/man2"
printf '.TP\n.BX nonsense\n' >>"$T/man2/soak-merge.1"
without "a page groff warns about" "soak-merge\.1 renders with no warning" "$T/man2" "$BIN/soak" \
  soak-merge.1
done_testing
