#!/usr/bin/env bash
# `soak hlog` on the reference interval logs: the MANIFEST figures in text and --json,
# tag and time-range selection, and the exit status and messages for bad input.
. "$(dirname "$0")/lib.sh"

data=$TOP/tests/data/hdr
v2=$data/jHiccup-2.0.7S.logV2.hlog
tagged=$data/tagged-Log.logV2.hlog

# json_field JSON-LINE FIELD: prints one field (python3 is a test dependency; jq may be absent).
json_field() {
  python3 -c 'import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(json.dumps(v) if isinstance(v,(list,dict)) or v is None else v)' "$1" "$2"
}
# text_field OUTPUT NAME: the first word after "  NAME" in the text form.
text_field() { printf '%s\n' "$1" | awk -v n="$2" 'substr($0, 3, length(n) + 1) == n " " { sub("^  " n " +", ""); print $1; exit }'; }

out=$(soak hlog "$v2"); rc=$?
check_eq "text exit status" "$rc" 0
check_eq "text intervals" "$(text_field "$out" intervals)" 62
check_eq "text total count" "$(text_field "$out" "total count")" 48761
check_eq "text start time" "$(text_field "$out" "start time")" 2015-09-09T15:24:39.474Z
check "text start epoch seconds" grep -q '(1441812279.474 s since epoch)' <<<"$out"
check_eq "text p50" "$(text_field "$out" p50)" 327935
check_eq "text p99.9" "$(text_field "$out" p99.9)" 1745879039
check_eq "text max" "$(text_field "$out" max)" 1796210687
check "text max in ms" grep -qE '^  max +1796210687 +\(1796\.211 ms\)$' <<<"$out"
check "text mean" grep -qE '^  mean +67632018\.54[0-9] +\(67\.632 ms\)$' <<<"$out"

j=$(soak hlog --json "$v2")
check_eq "json file" "$(json_field "$j" file)" "$v2"
check_eq "json intervals" "$(json_field "$j" intervals)" 62
check_eq "json total_count" "$(json_field "$j" total_count)" 48761
check_eq "json start_time_s" "$(json_field "$j" start_time_s)" 1441812279.474
check_eq "json p50" "$(json_field "$j" p50)" 327935
check_eq "json p999" "$(json_field "$j" p999)" 1745879039
check_eq "json max" "$(json_field "$j" max)" 1796210687
check_eq "json tags" "$(json_field "$j" tags)" '[""]'
check_range "json mean" "$(json_field "$j" mean)" 67632018.53 67632018.55
check_eq "json dropped" "$(json_field "$j" dropped)" 0

j=$(soak hlog --json --from 5 --to 20 "$v2")
check_eq "range 5..20 intervals" "$(json_field "$j" intervals)" 15
check_eq "range 5..20 total" "$(json_field "$j" total_count)" 11664
check_eq "range 5..20 p999" "$(json_field "$j" p999)" 1536163839
check_eq "range 5..20 max" "$(json_field "$j" max)" 1544552447
j=$(soak hlog --json --from 40 --to 60 "$v2")
check_eq "range 40..60 intervals" "$(json_field "$j" intervals)" 20
check_eq "range 40..60 total" "$(json_field "$j" total_count)" 15830
check_eq "range 40..60 p999" "$(json_field "$j" p999)" 1779433471
check_eq "range 40..60 max" "$(json_field "$j" max)" 1796210687
j=$(soak hlog --json --from 62 "$v2")
check_eq "range from 62 is empty" "$(json_field "$j" intervals)/$(json_field "$j" total_count)" 0/0

# The tagged file: untagged series by default, one tag, or every series.
j=$(soak hlog --json "$tagged")
check_eq "tagged default: untagged intervals" "$(json_field "$j" intervals)" 21
check_eq "tagged default: total" "$(json_field "$j" total_count)" 16145
check_eq "tagged tags" "$(json_field "$j" tags)" '["", "A"]'
j=$(soak hlog --json --tag A "$tagged")
check_eq "tag A intervals" "$(json_field "$j" intervals)" 21
check_eq "tag A p999" "$(json_field "$j" p999)" 1536163839
j=$(soak hlog --json --tag '*' "$tagged")
check_eq "all tags intervals" "$(json_field "$j" intervals)" 42
check_eq "all tags total" "$(json_field "$j" total_count)" 32290
check_eq "all tags p50" "$(json_field "$j" p50)" 344319
check_eq "all tags max" "$(json_field "$j" max)" 1544552447
j=$(soak hlog --json --tag nosuch "$tagged")
check_eq "unknown tag selects nothing" "$(json_field "$j" intervals)" 0

# Two files: one JSON line each, in order.
check_eq "two files, two lines" "$(soak hlog --json "$v2" "$tagged" | wc -l)" 2
check "text of two files names both" bash -c "soak hlog '$v2' '$tagged' | grep -qx '$tagged'"

# Bad input.
bad=$T/bad.hlog
{ head -n 6 "$v2"; echo "7.133,0.999,0.459,HISTFAAAAEJ42pN*"; tail -n 2 "$v2"; } >"$bad"
err=$(soak hlog "$bad" 2>&1 >/dev/null); rc=$?
check_eq "bad file exit status" "$rc" 2
check_eq "bad file message" "$err" "$bad:7: bad histogram: bad base64 character '*' at offset 15"
err=$(soak hlog "$T/missing.hlog" 2>&1 >/dev/null); rc=$?
check_eq "missing file exit status" "$rc" 2
check_eq "missing file message" "$err" "soak hlog: cannot open '$T/missing.hlog': No such file or directory"
out=$(soak hlog --json "$T/missing.hlog" "$v2" 2>/dev/null); rc=$?
check_eq "a bad file among good ones: status 2" "$rc" 2
check_eq "a bad file among good ones: the good one printed" "$(json_field "$out" intervals)" 62
printf 'not,a,histogram\n' >"$T/text.hlog"
err=$(soak hlog "$T/text.hlog" 2>&1 >/dev/null); rc=$?
check_eq "not a log: status" "$rc" 2
check_eq "not a log: message" "$err" "$T/text.hlog:1: expected START,LENGTH,MAX,HISTOGRAM (4 fields), got 3"

soak hlog >/dev/null 2>&1; check_eq "no file: usage status" "$?" 2
soak hlog --bogus "$v2" >/dev/null 2>&1; check_eq "unknown option: status" "$?" 2
err=$(soak hlog --from x "$v2" 2>&1); rc=$?
check_eq "bad --from status" "$rc" 2
check_eq "bad --from message" "$err" "soak hlog: bad --from 'x': expected seconds >= 0"
soak hlog --from 9 --to 3 "$v2" >/dev/null 2>&1; check_eq "--from after --to: status" "$?" 2
out=$(soak hlog --help); rc=$?
check_eq "--help status" "$rc" 0
check "--help documents --tag '*'" grep -q -- "--tag '\*'" <<<"$out"

done_testing
