#!/usr/bin/env bash
# Secrets stay on the machine they were typed on.  A marker secret sits in every place a
# test puts one: an Authorization header, another header named by the scenario's `redact`
# key, a --set header, URL userinfo (which makes soak send with libcurl), a query
# parameter, a body fed from ${env:...} and a literal one in the body, a commented-out
# cookie line, the command line of a real JVM (-Ddb.password=) and of the server
# (--db-password), both sampled by collectors, and a collector's pattern copied from ps.  The run is one agent of a group, merged
# and reported on; a file as an older soak wrote it (secrets stored as given) is reported
# on and merged too; so is a failure reason, an error sample, an import and a study's
# command that quote a value of a name the scenario's (the study's, the import's) own
# `redact` names.  The marker must be in none of the files soak writes (raw bytes,
# the WAL mid-run included) and in none of its output, while the server's log shows that
# every secret reached it.  New files are 0600 (directories 0700) under umask 022, and
# --file-mode 0644 shares them.  A variable that is not set is FILE:LINE, exit 2; a
# message quoting an ${env:...} value shows ${env:NAME}; a run stored redacted is not
# resumed from its text.  Load-free: no rate, latency or CPU bound.
. "$(dirname "$0")/lib.sh"
umask 022

M=mk$$x$RANDOM                 # every marker starts with it
IN=$T/in O=$T/out              # what the test writes (and the server's log) / what soak writes
mkdir -p "$IN" "$O"
export SOAK_IT_SECRET=${M}body # the body's password, from the environment

spawn "$IN/server.log" python3 "$TOP/tests/it/secret_server.py" --port 0 --log "$IN/requests.log" \
  --db-password "${M}srv"
SRV_PID=$SPAWNED_PID
line=$(wait_line "$IN/server.log" 'listening on 127\.0\.0\.1:[0-9]+' 15) ||
  { fail "the test server starts" "$(cat "$IN/server.log")"; exit 1; }
PORT=${line##*:}

# A real JVM whose command line carries the password; it only sleeps (single-file source).
printf 'class Sleep { public static void main(String[] a) throws Exception {\n  Thread.sleep(Long.parseLong(a[0]) * 1000); } }\n' >"$IN/Sleep.java"
spawn "$IN/jvm.log" java -Xmx32m -Ddb.password="${M}jvm" -Dsoak.it.case=$$ "$IN/Sleep.java" 120

cat >"$IN/secret.ini" <<EOF
[scenario]
name        = secrets
label       = secrets
concurrency = 2
duration    = 3s
interval    = 1s
think_time  = 50ms
redact      = X-Tenant

[request]
method  = POST
url     = http://tester:${M}user@127.0.0.1:$PORT/register?api_key=${M}query&page=1
header  = Authorization: Bearer ${M}hdr
header  = X-Tenant: ${M}tenant
header  = Content-Type: application/x-www-form-urlencoded
; header = Cookie: session=${M}cookie
body    = username=u\${seq}&password=\${env:SOAK_IT_SECRET}&token=${M}token
expect_status = 201

[collect.jvm]
pid_match = soak\.it\.case=$$
every     = 1s

[collect.srv]
pid_match = secret_server\.py
every     = 1s

; a pattern copied from ps, password and all (it matches nothing)
[collect.ps]
pid_match = soak-it-none-$$.*-Ddb\.password=${M}pat
every     = 1s

; a pattern with a value of the header the scenario's redact key names
[collect.ps2]
pid_match = soak-it-none-$$.*X-Tenant=${M}tpat
every     = 1s
EOF

# Every soak command's output goes to $IN/NAME.out and .err (checked for the marker at the end).
soak check --set "request.header=X-Api-Key: ${M}set" "$IN/secret.ini" >"$IN/check.out" 2>"$IN/check.err"
check_eq "soak check accepts the scenario" "$?" 0
check "... its plan shows the URL redacted" \
  grep -q "POST http://tester:\[redacted\]@127.0.0.1:$PORT/register?api_key=\[redacted\]&page=1" \
  "$IN/check.out"

# A study's commands as soak check shows them: ${env:...} as written, --db-password redacted.
cat >"$IN/study.ini" <<EOF
[study]
name        = secrets study
scenario    = secret.ini
rounds      = 1
redact      = X-Study-Key
before_each = printf %s \${env:SOAK_IT_SECRET} >/dev/null
[target.a]
start = echo url=http://127.0.0.1:$PORT/register --db-password ${M}start X-Study-Key=${M}study
EOF
soak check "$IN/study.ini" >"$IN/study-check.out" 2>"$IN/study-check.err"
check_eq "soak check accepts the study" "$?" 0
check "... it shows before_each as written" \
  grep -qF 'before each run: printf %s ${env:SOAK_IT_SECRET} >/dev/null' "$IN/study-check.out"
check "... and the start command redacted" grep -q -- '--db-password \[redacted\] ' "$IN/study-check.out"

# --- the run: agent 1 of 1, so that its file is an agent's and the merge folds it ----------
spawn "$IN/run.err" soak run --db "$O/agent.db" --agent 1/1 --group secrets --start-in 1s \
  --set "request.header=X-Api-Key: ${M}set" "$IN/secret.ini"
RUN_PID=$SPAWNED_PID
# Mid-run, the database and its WAL as they are on disk.
if wait_line "$IN/run.err" 'step 1/1 .* steady ' 30 >/dev/null; then
  ls "$O"/agent.db* >"$IN/midrun.files"
  check "mid-run: the WAL is there to be read" test -s "$O/agent.db-wal"
  if grep -qa "$M" "$O"/agent.db*; then
    fail "mid-run: no marker in the database or its WAL" "$(grep -la "$M" "$O"/agent.db*)"
  else
    ok "mid-run: no marker in the database or its WAL ($(tr '\n' ' ' <"$IN/midrun.files"))"
  fi
else
  fail "the run reaches its measured window" "$(tail -5 "$IN/run.err")"
fi
wait_for 30 bash -c "! kill -0 $RUN_PID 2>/dev/null"
wait "$RUN_PID"
check_eq "the run ends well" "$?" 0
cp "$IN/run.err" "$IN/run.stderr.err"

soak runs --db "$O/agent.db" --json --all >"$IN/runs.out" 2>"$IN/runs.err"
soak merge -o "$O/merged.db" "$O/agent.db" >"$IN/merge.out" 2>"$IN/merge.err"
check_eq "soak merge folds the agent's file" "$?" 0
soak report "$O/merged.db" -o "$O/report" >"$IN/report.out" 2>"$IN/report.err"
check_eq "soak report on the merged file" "$?" 0

# --- what was stored: the names stay, the values are gone -----------------------------------
q() { sql "$O/agent.db" "$1"; }
scen=$(q "SELECT scenario FROM runs WHERE id = 1")
check "runs.scenario: the Authorization header's value redacted, its scheme kept" \
  grep -q '^header  = Authorization: Bearer \[redacted\]$' <<<"$scen"
check "runs.scenario: the header named by 'redact' redacted" grep -q 'X-Tenant: \[redacted\]' <<<"$scen"
check "runs.scenario: the URL's password and api_key redacted" \
  grep -q "tester:\[redacted\]@127.0.0.1:$PORT/register?api_key=\[redacted\]&page=1" <<<"$scen"
check "runs.scenario: \${env:...} stays as written, a literal token goes" \
  grep -q 'password=${env:SOAK_IT_SECRET}&token=\[redacted\]' <<<"$scen"
check "runs.scenario: the commented-out cookie redacted" grep -q '^; header = Cookie: \[redacted\]$' <<<"$scen"
check "runs.scenario: the --set header redacted" \
  grep -q '^;   --set request.header=X-Api-Key: \[redacted\]$' <<<"$scen"
check_eq "runs.url" "$(q "SELECT url FROM runs WHERE id = 1")" \
  "http://tester:[redacted]@127.0.0.1:$PORT/register?api_key=[redacted]&page=1"
check_eq "the run was sent with libcurl (userinfo in the URL)" "$(q "SELECT client FROM runs WHERE id = 1")" curl
jvm=$(q "SELECT value FROM run_env WHERE source = 'jvm' AND key = 'cmdline'")
check "run_env: the JVM's -Ddb.password= redacted ($jvm)" \
  grep -q -- "-Ddb.password=\[redacted\] -Dsoak.it.case=$$ " <<<"$jvm"
check_eq "run_env: the JVM is known as one" "$(q "SELECT count(*) FROM run_env WHERE source = 'jvm' AND key = 'heap_max'")" 1
ev=$(q "SELECT detail FROM events WHERE source = 'ps' AND kind = 'procs_missing' LIMIT 1")
check "soak-procstat's event quotes its pattern redacted ($ev)" \
  grep -q -- "-Ddb\\\\.password=\[redacted\]'" <<<"$ev"
srv=$(q "SELECT value FROM run_env WHERE source = 'srv' AND key = 'cmdline'")
check "run_env: the server's --db-password redacted ($srv)" \
  grep -q -- "--db-password \[redacted\]" <<<"$srv"

# --- the server received every secret ------------------------------------------------------
R=$IN/requests.log
check "the server got the Authorization header" grep -q "^Authorization: Bearer ${M}hdr" "$R"
check "the server got the header named by 'redact'" grep -q "^X-Tenant: ${M}tenant" "$R"
check "the server got the --set header" grep -q "^X-Api-Key: ${M}set" "$R"
check "the server got the query parameter" grep -q "api_key=${M}query&page=1" "$R"
check "the server got the body's \${env:...} password and its token" \
  grep -q "password=${M}body&token=${M}token" "$R"
basic=$(grep -m1 -o 'Basic [A-Za-z0-9+/=]*' "$R" | cut -d' ' -f2 | base64 -d 2>/dev/null)
check_eq "the server got the URL's userinfo (as Basic authentication)" "$basic" "tester:${M}user"

# --- an older soak's file: secrets stored as given -------------------------------------------
cp "$O/agent.db" "$O/old.db"
sql "$O/old.db" "UPDATE runs SET scenario = scenario || '
header = Authorization: Bearer ${M}old1', url = 'http://u:${M}old2@h/', uuid = 'old-run',
  agent_group = NULL, agent_index = NULL, agent_count = NULL;
UPDATE run_env SET value = value || ' --db-password ${M}old3' WHERE key = 'cmdline';
INSERT INTO interval_errors(run_id, step_idx, start_ms, class, count, sample)
  SELECT run_id, step_idx, start_ms, 'other', 1, 'answer {\"token\": \"${M}old4\"}'
  FROM intervals WHERE run_id = 1 LIMIT 1;"
check "the old file holds the markers (the test's own doing)" grep -qa "${M}old3" "$O/old.db"
soak report "$O/old.db" -o "$O/old-report" --no-plots >"$IN/old-report.out" 2>"$IN/old-report.err"
check_eq "soak report on the old file" "$?" 0
check "... it prints the JVM's command line redacted" \
  grep -q -- '| jvm: command line | java -Xmx32m -Ddb\.password=\\\[redacted\\\] ' "$O/old-report/details.md"
soak merge -o "$O/old-merged.db" "$O/old.db" >"$IN/old-merge.out" 2>"$IN/old-merge.err"
check_eq "soak merge of the old file" "$?" 0
check_eq "... the merged copy holds its scenario and command lines redacted" \
  "$(sql "$O/old-merged.db" "SELECT count(*) FROM runs WHERE scenario LIKE
     '%Authorization: Bearer [redacted]' AND url = 'http://u:[redacted]@h/'")/$(sql "$O/old-merged.db" \
     "SELECT count(*) FROM run_env WHERE value LIKE '%--db-password [redacted]'")" 1/2
# The old file is the test's own: out of the directory checked below.
mv "$O/old.db" "$IN/old.db"
rm -f "$O"/old.db-*

# A run stored redacted cannot be resumed from its text (it would send "[redacted]").
cp "$O/agent.db" "$IN/resume.db"
sql "$IN/resume.db" "UPDATE runs SET status = 'running', pid = 1, pid_start = 1,
  agent_group = NULL, agent_index = NULL, agent_count = NULL WHERE id = 1"
soak run --db "$IN/resume.db" --resume 1 >"$IN/resume.out" 2>"$IN/resume.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "stored with its secrets redacted: give its file" "$IN/resume.err"; then
  ok "resuming from the redacted text is refused: $(cat "$IN/resume.err")"
else
  fail "resuming from the redacted text is refused" "exit $rc: $(cat "$IN/resume.err")"
fi

# --- the run's own names, wherever its text goes (issue 45) -----------------------------------
# A failure reason that quotes the header the scenario's redact key names, stored as an
# older soak stored it: the report and a merge show it redacted with the run's own names.
cp "$O/agent.db" "$IN/reason.db"
sql "$IN/reason.db" "UPDATE runs SET status = 'failed', uuid = 'reason-run', agent_group = NULL,
  agent_index = NULL, agent_count = NULL, reason = 'HTTP 401 for X-Tenant: ${M}reason'"
soak report "$IN/reason.db" -o "$O/reason-report" --no-plots >"$IN/reason-report.out" 2>"$IN/reason-report.err"
check_eq "soak report on a run whose reason quotes a secret" "$?" 0
check "... it shows the reason, redacted" \
  grep -q 'X-Tenant: \[redacted\]' "$O/reason-report/report.json"
soak merge -o "$O/reason-merged.db" "$IN/reason.db" >"$IN/reason-merge.out" 2>"$IN/reason-merge.err"
check_eq "... and merges it" "$?" 0
rm -f "$IN"/reason.db-*
# An error sample that quotes an answer holding that header's value (/echo sends it back).
soak run -q --db "$O/echo.db" --url "http://127.0.0.1:$PORT/echo" -H "X-Tenant: ${M}echo" \
  --set 'request.expect_body=^never' -c 1 -d 1s --interval 1s --set scenario.redact=X-Tenant \
  >"$IN/echo.out" 2>"$IN/echo.err"
check "an error sample quoting the answer: stored redacted with the run's names" \
  test "$(sql "$O/echo.db" "SELECT count(*) FROM interval_errors WHERE sample LIKE '%X-Tenant: [redacted]%'")" -ge 1
grep -q "^X-Tenant: ${M}echo" "$R" && ok "... the server got it" || fail "... the server got it"
# A JMeter file whose failure messages quote it: soak import --redact.
printf 'timeStamp,elapsed,label,responseCode,responseMessage,success,failureMessage,allThreads\n' >"$IN/jm.jtl"
for i in $(seq 0 19); do
  printf '17961000%05d,5,reg,401,X-Tenant: %simport rejected,false,,1\n' $((i * 500)) "$M" >>"$IN/jm.jtl"
done
soak import jmeter "$IN/jm.jtl" --label imported --redact X-Tenant --interval 1s --db "$O/import.db" \
  >"$IN/import.out" 2>"$IN/import.err"
check_eq "soak import jmeter --redact X-Tenant" "$?" 0
check "... its error samples are stored redacted" \
  test "$(sql "$O/import.db" "SELECT count(*) FROM interval_errors WHERE sample LIKE '%[redacted]%'")" -ge 1
check "... the study's own redact name: its start command redacted" \
  grep -q -- 'X-Study-Key=\[redacted\]' "$IN/study-check.out"

# --- mistakes -----------------------------------------------------------------------------
env -u SOAK_IT_SECRET soak check "$IN/secret.ini" >"$IN/unset.out" 2>"$IN/unset.err"
rc=$?
check_eq "an unset variable: exit 2" "$rc" 2
check_eq "... named at its line" "$(cat "$IN/unset.err")" \
  "soak check: $IN/secret.ini:17: body: \${env:SOAK_IT_SECRET} is not set in the environment"
SOAK_IT_METHOD=${M}meth soak check --set 'request.method=${env:SOAK_IT_METHOD}' "$IN/secret.ini" \
  >"$IN/method.out" 2>"$IN/method.err"
check_eq "a bad value from the environment: exit 2" "$?" 2
check "... the message shows \${env:NAME}, not the value" \
  grep -q "method: '\${env:SOAK_IT_METHOD}' is not an HTTP method" "$IN/method.err"

# --- the marker is nowhere soak wrote ------------------------------------------------------
stop_pid "$SRV_PID"
found=$(grep -rla "$M" "$O" "$IN"/*.out "$IN"/*.err 2>/dev/null)
if [ -z "$found" ]; then
  ok "no marker in any file soak wrote ($(find "$O" -type f | wc -l) files) nor in its output"
else
  fail "no marker in any file soak wrote nor in its output" "$(for f in $found; do echo "$f: $(grep -oa "$M[a-z0-9]*" "$f" | sort -u | tr '\n' ' ')"; done)"
fi

# --- modes ---------------------------------------------------------------------------------
mode() { stat -c %a "$1"; }
check_eq "agent file 0600 (umask 022)" "$(mode "$O/agent.db")" 600
check_eq "merged file 0600" "$(mode "$O/merged.db")" 600
check_eq "report directory 0700" "$(mode "$O/report")" 700
others=$(find "$O/report" "$O/old-report" -type f ! -perm 600 | head -3)
check_eq "every report file 0600 (gnuplot's pictures too)" "$others" ""
check "... pictures were drawn" bash -c "ls '$O'/report/img/*.svg >/dev/null"
soak --file-mode 0644 report "$O/merged.db" -o "$O/shared" --no-plots >"$IN/shared.out" 2>&1
check_eq "--file-mode 0644: report.md" "$(mode "$O/shared/report.md")" 644
check_eq "--file-mode 0644: its directory" "$(mode "$O/shared")" 755
SOAK_FILE_MODE=0640 soak merge -o "$O/group.db" "$O/agent.db" >"$IN/group.out" 2>&1
check_eq "SOAK_FILE_MODE=0640: a merged file" "$(mode "$O/group.db")" 640
