#!/usr/bin/env bash
# Every user-facing error of the commands, word for word, with its exit status: bad usage
# of soak and each subcommand, bad databases, bad scenarios and overrides, and the options
# of soak-procstat, soak-gclog and regserver.  Messages read `program: lower-case message
# with 'quoted' subject`; usage errors exit 2, runtime failures 3; --help exits 0 and
# prints to stdout only.
. "$(dirname "$0")/lib.sh"

# err NAME STATUS MESSAGE CMD...: CMD exits STATUS and its stderr starts with MESSAGE (one
# line; a usage line may follow), with nothing on stdout.
err() {
  local name=$1 want=$2 msg=$3 rc
  shift 3
  "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  check_eq "$name: exit $want" "$rc" "$want"
  check_eq "$name: message" "$(head -n 1 "$T/err")" "$msg"
  check_eq "$name: nothing on stdout" "$(head -c 200 "$T/out")" ""
}
# usage_err NAME MESSAGE USAGE CMD...: as err with status 2, the usage line following.
usage_err() {
  local name=$1 msg=$2 usage=$3
  shift 3
  err "$name" 2 "$msg" "$@"
  check_eq "$name: the usage line follows" "$(sed -n 2p "$T/err" | cut -c 1-${#usage})" "$usage"
}
# helps NAME PATTERN CMD...: CMD exits 0 with PATTERN on stdout and nothing on stderr.
helps() {
  local name=$1 pat=$2 rc
  shift 2
  "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  check_eq "$name: exit 0" "$rc" 0
  check "$name: help on stdout" grep -q -- "$pat" "$T/out"
  check_eq "$name: nothing on stderr" "$(cat "$T/err")" ""
}

# --- soak ------------------------------------------------------------------------------------
soak >"$T/out" 2>"$T/err"
check_eq "soak alone: exit 2" "$?" 2
check_eq "soak alone: usage on stderr" "$(head -n 1 "$T/err")" "usage: soak COMMAND [ARGS]"
usage_err "soak frob" "soak: unknown command 'frob'" "usage: soak COMMAND" soak frob
usage_err "soak --frob" "soak: unknown option '--frob'" "usage: soak COMMAND" soak --frob
helps "soak --help" "^commands:" soak --help
helps "soak help" "^commands:" soak help
helps "soak -h" "^commands:" soak -h
schema=$(soak --version | sed -n 's/^soak [^ ]* (schema \([0-9]*\),.*/\1/p')
check "soak --version: version and schema" test -n "$schema"

for cmd in run check runs report hlog merge; do
  helps "soak $cmd --help" "^usage: soak $cmd" soak "$cmd" --help
  usage_err "soak $cmd --frob" "soak $cmd: unknown option '--frob'" "usage: soak $cmd " soak "$cmd" --frob
done
usage_err "soak run --db (no value)" "soak run: option '--db' needs a value" "usage: soak run " soak run --db
usage_err "soak check --set (no value)" "soak check: option '--set' needs a value" "usage: soak check " soak check --set
usage_err "soak runs --db (no value)" "soak runs: option '--db' needs a value" "usage: soak runs " soak runs --db
usage_err "soak report -o (no value)" "soak report: option '-o' needs a value" "usage: soak report " soak report -o
usage_err "soak hlog --tag (no value)" "soak hlog: option '--tag' needs a value" "usage: soak hlog " soak hlog --tag
usage_err "soak merge -o (no value)" "soak merge: option '-o' needs a value" "usage: soak merge " soak merge -o
usage_err "soak check -x" "soak check: unknown option '-x'" "usage: soak check " soak check -x

# --- soak run: arguments -----------------------------------------------------------------------
start_regserver --quiet
URL=$REG_URL/health
printf '[scenario]\nduration = 2s\n[request]\nurl = %s\n' "$URL" >"$T/ok.ini"
usage_err "run without a scenario" "soak run: no scenario given" "usage: soak run " soak run
for v in 0 257 abc 3x ""; do
  err "run --threads '$v'" 2 "soak run: --threads: expected 1..256, not '$v'" soak run --threads "$v" "$T/ok.ini"
done
err "run --loop kqueue" 2 "soak run: --loop: expected poll, epoll or auto, not 'kqueue'" \
  soak run --loop kqueue "$T/ok.ini"
err "run --set without '='" 2 "soak run: --set foo: expected SECTION.KEY=VALUE" soak run --set foo "$T/ok.ini"
err "run --set without a section" 2 "soak run: --set label=x: expected SECTION.KEY=VALUE" \
  soak run --set label=x "$T/ok.ini"
err "run --set of an unknown section" 2 "soak run: --set nosuch.key=1: unknown section [nosuch]" \
  soak run --set nosuch.key=1 "$T/ok.ini"
err "run --set of an unknown key" 2 "soak run: --set scenario.colour: unknown key 'colour' in [scenario]" \
  soak run --set scenario.colour=red "$T/ok.ini"
err "run --set of a bad value" 2 "soak run: --set scenario.duration: duration: bad duration '2x': unknown unit 'x' (use ms, s, m, h or d)" \
  soak run --set scenario.duration=2x "$T/ok.ini"
err "quick options without --url" 2 "soak run: quick options need --url (or give scenario files)" soak run -c 5 -d 2s
err "--url and a scenario file" 2 "soak run: give scenario files or --url, not both" soak run --url "$URL" "$T/ok.ini"
err "run -c 0" 2 "soak run: (command line):3: concurrency: 0 is outside 1..100000" soak run --url "$URL" -c 0
err "run --url ftp://" 2 "soak run: (command line):7: url: 'ftp://x' must start with http:// or https://" \
  soak run --url ftp://x
err "run --connection bogus" 2 "soak run: (command line):3: connection: expected keepalive or close, not 'bogus'" \
  soak run --url "$URL" --connection bogus
err "run of a missing file" 2 "soak run: cannot open '$T/none.ini': No such file or directory" soak run "$T/none.ini"
printf '[scenario]\nduration = 2s\nconcurency = 3\n[request]\nurl = %s\n' "$URL" >"$T/typo.ini"
err "run of a file with a typo" 2 "soak run: $T/typo.ini:3: unknown key 'concurency' in [scenario]" soak run "$T/typo.ini"
err "an unreachable target" 3 "soak run: (command line): cannot reach the target 127.0.0.1:1 (http://127.0.0.1:1/): Connection refused" \
  soak run -q --db "$T/x.db" --url http://127.0.0.1:1/ -d 2s
check "an unreachable target: no database written" test ! -e "$T/x.db"

# --- bad databases -------------------------------------------------------------------------------
mkdir -p "$T/adir"
echo "not a database, only text" >"$T/text.db"
sql "$T/newer.db" "PRAGMA user_version = $((schema + 1)); CREATE TABLE t(x);"
newer="was written by a newer soak (schema $((schema + 1)); this soak knows up to $schema): upgrade soak to read it"
for cmd in runs report; do
  db() { if [ "$cmd" = runs ]; then echo --db "$1"; else echo "$1"; fi; }
  # shellcheck disable=SC2046 # db prints an option and its value
  err "$cmd of a missing file" 2 "soak $cmd: cannot open '$T/none.db': No such file or directory" soak "$cmd" $(db "$T/none.db")
  # shellcheck disable=SC2046
  err "$cmd of a directory" 2 "soak $cmd: cannot open '$T/adir': Is a directory" soak "$cmd" $(db "$T/adir")
  # shellcheck disable=SC2046
  err "$cmd of a text file" 2 "soak $cmd: cannot read '$T/text.db' as a soak database: file is not a database" \
    soak "$cmd" $(db "$T/text.db")
  # shellcheck disable=SC2046
  err "$cmd of a newer schema" 2 "soak $cmd: '$T/newer.db' $newer" soak "$cmd" $(db "$T/newer.db")
done
check "runs of a missing file: not created" test ! -e "$T/none.db"
err "run into a directory" 3 "soak run: cannot open '$T/adir': Is a directory" soak run -q --db "$T/adir" --url "$URL" -d 2s
err "run into a text file" 3 "soak run: cannot read '$T/text.db' as a soak database: file is not a database" \
  soak run -q --db "$T/text.db" --url "$URL" -d 2s
err "run into a newer schema" 3 "soak run: '$T/newer.db' $newer" soak run -q --db "$T/newer.db" --url "$URL" -d 2s
check_eq "run into a newer schema: file untouched" "$(sql "$T/newer.db" 'PRAGMA user_version')" $((schema + 1))
usage_err "runs with an argument" "soak runs: unexpected argument 'extra'" "usage: soak runs " soak runs extra

# --- soak check, hlog, merge ----------------------------------------------------------------------
usage_err "check without a file" "soak check: no scenario given" "usage: soak check " soak check
err "check of a missing file" 2 "soak check: cannot open '$T/none.ini': No such file or directory" soak check "$T/none.ini"
err "check of a directory" 2 "soak check: '$T/adir' is not a scenario file (a directory)" soak check "$T/adir"
printf '[scenario]\nduration = 2s\n\0[request]\n' >"$T/nul.ini"
err "check of a binary file" 2 "soak check: $T/nul.ini:1: not a text file (contains NUL bytes)" soak check "$T/nul.ini"
err "check of a file with a typo" 2 "soak check: $T/typo.ini:3: unknown key 'concurency' in [scenario]" soak check "$T/typo.ini"
usage_err "hlog without a file" "soak hlog: no file given" "usage: soak hlog " soak hlog
err "hlog of a missing file" 2 "soak hlog: cannot open '$T/none.hlog': No such file or directory" soak hlog "$T/none.hlog"
usage_err "merge without -o" "soak merge: missing -o OUT.db" "usage: soak merge " soak merge "$T/x.db"
usage_err "merge without inputs" "soak merge: no input databases" "usage: soak merge " soak merge -o "$T/m.db"

# --- soak-procstat -------------------------------------------------------------------------------
P=soak-procstat
helps "$P --help" "^usage: soak-procstat" $P --help
err "$P --frob" 2 "$P: unknown option '--frob'" $P --frob
err "$P --db (no value)" 2 "$P: option '--db' needs a value" $P --db
err "$P without --db" 2 "$P: missing --db (see --help)" $P --source app --host
err "$P without --source" 2 "$P: missing --source (see --help)" $P --db "$T/p.db" --host
err "$P with nothing to sample" 2 "$P: nothing to sample: give --pid, --pidfile, --match or --host" $P --db "$T/p.db" --source app
err "$P --every 50ms" 2 "$P: --every must be at least 100ms, not '50ms'" $P --db "$T/p.db" --source app --host --every 50ms
err "$P --pid abc" 2 "$P: bad pid 'abc'" $P --db "$T/p.db" --source app --pid abc
err "$P --match '('" 2 "$P: bad pattern '(': missing closing parenthesis at offset 1" $P --db "$T/p.db" --source app --match '('
err "$P --pid and --match" 2 "$P: give one of --pid, --pidfile, --match, not several" $P --db "$T/p.db" --source app --match x --pid 3
err "$P with an argument" 2 "$P: unexpected argument 'extra'" $P --db "$T/p.db" --source app --host extra
err "$P into a directory" 3 "$P: cannot open '$T/adir': Is a directory" $P --db "$T/adir" --source app --host --for 1s
check "$P: no database written on usage errors" test ! -e "$T/p.db"

# --- soak-gclog ----------------------------------------------------------------------------------
G=soak-gclog
helps "$G --help" "^usage: soak-gclog" $G --help
usage_err "$G --frob" "$G: unknown option '--frob'" "usage: soak-gclog" $G --frob
usage_err "$G --db (no value)" "$G: option '--db' needs a value" "usage: soak-gclog" $G --db
err "$G without input" 2 "$G: need --db, --source and either --import FILE... or --follow FILE (see --help)" $G --db "$T/g.db"
err "$G --every 0s" 2 "$G: --every: must be positive, not '0s'" $G --db "$T/g.db" --source app --every 0s --follow "$T/gc.log"
err "$G --for 1x" 2 "$G: --for: bad duration '1x': unknown unit 'x' (use ms, s, m, h or d)" \
  $G --db "$T/g.db" --source app --for 1x --follow "$T/gc.log"
err "$G --log-level loud" 2 "$G: bad --log-level 'loud'" $G --log-level loud
err "$G --jvm-start x" 2 "$G: bad --jvm-start 'x': expected epoch ms" $G --jvm-start x
err "$G --run -1" 2 "$G: bad --run '-1'" $G --run -1
err "$G of a missing file" 2 "$G: cannot open '$T/none.log': No such file or directory" $G --db "$T/g.db" --source app --import "$T/none.log"
check "$G: no database written on usage errors" test ! -e "$T/g.db"

# --- regserver -----------------------------------------------------------------------------------
R=regserver
helps "$R --help" "^usage: regserver" $R --help
try="try 'regserver --help'"
for a in "--frob|unknown option '--frob'" "--port|option '--port' needs a value" \
  "--port 99999|bad --port '99999': expected an integer 0..65535" \
  "--latency -1|bad --latency '-1': expected milliseconds 0..3600000" \
  "--latency 1x|--latency: bad duration '1x': unknown unit 'x' (use ms, s, m, h or d)" \
  "--error-rate 2|--error-rate: bad percentage '2': expected e.g. 1%, 0.5% or a fraction 0..1" \
  "--threads 0|bad --threads '0': expected an integer 1..256" "extra|unexpected argument 'extra'"; do
  # shellcheck disable=SC2086 # the options are words
  usage_err "$R ${a%%|*}" "$R: ${a#*|}" "$try" $R ${a%%|*}
done

done_testing
