#!/usr/bin/env bash
# Bash completion (completion/soak.bash) under Debian's bash-completion, driven as bash
# drives it (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT, then _soak): commands (also
# after `soak --file-mode MODE`), each command's options read from its --help (every
# command's, as man_check reads them), option values (choices, files, folders, modes),
# scenario files, and run ids and labels from `soak runs` of the database given with --db
# or as a DB argument.
. "$(dirname "$0")/lib.sh"
BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || { fail "setup" "$BC is missing (tools/deps.sh check installs bash-completion)"; exit 1; }

# A folder to complete in: scenarios, databases, logs, other files.
mkdir -p "$T/w/sub"
cd "$T/w" || exit 1
printf '[scenario]\nduration = 1m\nlabel = x\n[request]\nurl = http://127.0.0.1:1/\n' >a.ini
cp a.ini b.ini
: >notes.txt
: >gc.hlog
# A database with three runs: two JMeter results imported (labels tomcat9, tomcat 10) and
# one of them marked interrupted, so that --resume offers it alone.
{
  echo 'timeStamp,elapsed,label,responseCode,success,allThreads'
  for i in $(seq 0 40); do echo "$((1700000000000 + i * 100)),$((20 + i % 7)),register,201,true,5"; done
} >r.jtl
soak import jmeter r.jtl --label tomcat9 --interval 1s --db s.db >/dev/null 2>&1
soak import jmeter r.jtl --label 'tomcat 10' --name second --interval 1s --db s.db >/dev/null 2>&1
soak import jmeter r.jtl --label tomcat9 --name third --interval 1s --db s.db >/dev/null 2>&1
sqlite3 s.db "UPDATE runs SET status = 'interrupted' WHERE id = 2"
check_eq "the database holds three runs" "$(sqlite3 s.db 'SELECT COUNT(*) FROM runs')" 3
cp s.db other.db

# bash-completion and ours, loaded into this shell once (so that the --help of each
# program is read once, as in an interactive shell); bash-completion wants no `set -u`.
set +u
. "$BC"
. "$TOP/completion/soak.bash"
# comp WORD... : completes the last word of the line "WORD..." as bash would (or word
# $CWORD, with the cursor at its end); sets GOT to the candidates sorted, one a line (the
# line's first word is the program as typed).
comp() {
  local cw=${CWORD:-$(($# - 1))}
  COMP_WORDS=("$@") COMP_CWORD=$cw
  COMP_LINE="${*:1:cw+1}" COMP_POINT=${#COMP_LINE}
  COMP_LINE="$*" COMPREPLY=()
  _soak "$1" "${COMP_WORDS[cw]}" "${COMP_WORDS[cw - 1]}" 2>>"$T/comp.err"
  GOT=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort)
}
# has NAME WANT WORD...: each word of WANT is among the candidates.
has() {
  local name=$1 want=$2 w miss=""
  shift 2
  comp "$@"
  for w in $want; do grep -qxF -- "$w" <<<"$GOT" || miss+=" $w"; done
  if [ -z "$miss" ]; then ok "$name"; else fail "$name" "missing:$miss; got: $(tr '\n' ' ' <<<"$GOT")"; fi
}
# is NAME WANT WORD...: the candidates are exactly WANT (space-separated, sorted).
is() {
  local name=$1 want=$2
  shift 2
  comp "$@"
  check_eq "$name" "$(tr '\n' ' ' <<<"$GOT" | sed 's/ $//')" "$want"
}

is "soak <TAB>: the commands soak --help lists" \
  "calibrate check history hlog import merge profile report run runs study" soak ''
is "soak r<TAB>" "report run runs" soak r
is "soak --<TAB>" "--file-mode --help --version" soak --
is "soak --file-mode <TAB>: modes" "0600 0640 0644 0660 0664 0666" soak --file-mode ''
is "soak --file-mode=06<TAB> (split at =)" "0600 0640 0644 0660 0664 0666" soak --file-mode=06
is "soak --file-mode 0640 r<TAB>: the commands after the mode" "report run runs" soak --file-mode 0640 r
is "soak --file-mode=0640 run --con<TAB>" "--concurrency --connection" soak --file-mode=0640 run --con
has "soak run --<TAB>: options from its --help" \
  "--db --set --url --concurrency --rate --find-max-rate --resume --json --agent --client" soak run --
is "soak run --con<TAB>" "--concurrency --connection" soak run --con
# Every option soak run --help prints as its own: the same rule as the man page check.
want=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import man_check as m
print(" ".join(sorted(m.help_options(sys.stdin.read())[0])))' "$TOP/tests/it" < <(soak run --help))
comp soak run -
check_eq "soak run -<TAB>: exactly the options man_check finds in soak run --help" \
  "$(tr '\n' ' ' <<<"$GOT" | sed 's/ $//')" "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ' | sed 's/ $//')"
# And of every other command soak --help lists (one python3 for all: it starts slowly).
while read -r c want; do
  comp soak "$c" -
  check_eq "soak $c -<TAB>: exactly the options man_check finds in soak $c --help" \
    "$(tr '\n' ' ' <<<"$GOT" | sed 's/ $//')" "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ' | sed 's/ $//')"
done < <(python3 -c 'import subprocess, sys; sys.path.insert(0, sys.argv[1]); import man_check as m
for c in m.commands(subprocess.run(["soak", "--help"], capture_output=True, text=True).stdout):
    if c != "run":
        h = subprocess.run(["soak", c, "--help"], capture_output=True, text=True)
        print(c, " ".join(sorted(m.help_options(h.stdout + h.stderr)[0])))' "$TOP/tests/it")
has "soak merge -<TAB>: its own options, not soak run's named in its text" "-o --output" soak merge -
comp soak merge -
check "soak merge -<TAB> leaves out --agent (a soak run option its --help names)" \
  bash -c '! grep -qx -- --agent <<<"$1"' _ "$GOT"
is "soak run --client <TAB>: the choices --help shows" "auto curl lean" soak run --client ''
is "soak run --connection=<TAB> (split at =)" "close keepalive" soak run --connection=
is "soak import jmeter x --timestamp <TAB>" "end start" soak import jmeter r.jtl --timestamp ''
is "soak run <TAB>: scenario files and folders" "a.ini b.ini sub" soak run ''
is "soak check --set scenario.label=x <TAB>" "a.ini b.ini sub" soak check --set scenario.label=x ''
is "soak run a.ini --set <TAB>: the keys of the scenarios on the line" \
  "request.url= scenario.duration= scenario.label=" soak run a.ini --set ''
is "soak report <TAB>: databases" "other.db s.db sub" soak report ''
is "soak runs --db <TAB>: databases" "other.db s.db sub" soak runs --db ''
is "soak run --db <TAB>: databases" "other.db s.db sub" soak run --db ''
is "soak report -o <TAB>: folders" "sub" soak report -o ''
is "soak run --junit <TAB>: files" "a.ini b.ini gc.hlog notes.txt other.db r.jtl s.db sub" \
  soak run --junit ''
is "soak history <TAB>: databases" "other.db s.db sub" soak history ''
is "soak hlog <TAB>: .hlog files" "gc.hlog sub" soak hlog ''
is "soak import <TAB>" "jmeter nmon" soak import ''
is "soak import jmeter <TAB>: result files" "r.jtl sub" soak import jmeter ''
# Run ids and labels: soak runs --json of the --db given.
is "soak run --db s.db --resume <TAB>: the runs not done" "2" soak run --db s.db --resume ''
CWORD=3 is "soak run --resume <TAB> --db s.db (the db after the cursor)" "2" \
  soak run --resume '' --db s.db
is "soak report --db s.db --runs <TAB>: every run" "1 2 3" soak report --db s.db --runs ''
is "soak report s.db --runs 1,<TAB>: the list's next element" "1,1 1,2 1,3" soak report s.db --runs 1,
is "soak report s.db other.db --runs <TAB>: K:ID of each file" "1:1 1:2 1:3 2:1 2:2 2:3" \
  soak report s.db other.db --runs ''
is "soak report s.db --label <TAB>: labels (one with a blank)" "tomcat 10 tomcat9" soak report s.db --label ''
is "soak history other.db --label <TAB>: labels of its DB argument" "tomcat 10 tomcat9" \
  soak history other.db --label ''
is "soak profile other.db --against <TAB>: labels of its DB argument" "tomcat 10 tomcat9" \
  soak profile other.db --against ''
is "soak --file-mode 0640 report s.db --runs <TAB>: after the mode too" "1 2 3" \
  soak --file-mode 0640 report s.db --runs ''
SOAK_DB=$T/w/s.db is "soak run --resume <TAB> with \$SOAK_DB" "2" soak run --resume ''
is "soak run --resume <TAB> with no database: nothing (and none made)" "" soak run --db none.db --resume ''
check "completing did not create none.db" test ! -e none.db
# The collectors and the server: their own --help.
has "soak-procstat --<TAB>" "--db --source --match --host --every --memory-limit" soak-procstat --
is "soak-procstat --pidfile <TAB>: files" "a.ini b.ini gc.hlog notes.txt other.db r.jtl s.db sub" \
  soak-procstat --pidfile ''
has "soak-gclog --<TAB>" "--follow --import --summary --pid-match" soak-gclog --
has "soak-perf --<TAB>" "--db --source --run --step --hz --keep" soak-perf --
has "soak-regserver --<TAB> (regserver's --help)" "--port --latency --capacity" "$BIN/regserver" --
is "soak run --threads <TAB>: a number, no files" "" soak run --threads ''

# Loaded on demand by bash-completion from its completions folder, for each program name.
mkdir -p "$T/share/bash-completion/completions"
cp "$TOP/completion/soak.bash" "$T/share/bash-completion/completions/soak"
for n in soak-procstat soak-gclog soak-perf soak-regserver; do ln -s soak "$T/share/bash-completion/completions/$n"; done
for n in soak soak-procstat soak-gclog soak-perf soak-regserver; do
  out=$(XDG_DATA_DIRS=$T/share BASH_COMPLETION_USER_DIR=$T/none bash -c \
    '. "$1"; __load_completion "$2" && complete -p "$2"' _ "$BC" "$n" 2>&1)
  check_eq "bash-completion finds the completion of $n" "$out" "complete -F _soak $n"
done
check "completing printed no error" test ! -s "$T/comp.err"
set -u
done_testing
