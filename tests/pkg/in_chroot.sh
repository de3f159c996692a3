#!/bin/bash
# Runs inside a fresh Debian 12 (tools/fresh-debian.sh --run, from tests/pkg/test_deb.sh),
# in /root/work, which holds the package (soak_*.deb) and install.sh: the last stage of
# deploy/k8s/Containerfile as commands (its COPY of the package, its RUN lines).
# It installs soak that way, uses it as a user would (soak run against soak-regserver with
# the collectors, the self-test study, soak report with pictures, the man pages and the
# completion where they belong), removes it with apt, and compares the machine's files
# before and after.  Prints key=value lines for test_deb.sh to judge.
set -u
cd /root/work || exit 1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive HOME=/root/work/home
mkdir -p home run
t=$SECONDS
# The files of the machine, but what apt, dpkg and the logs keep for themselves, the caches
# and this test's own folders.
snapshot() {
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
    -o -path /root/work -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
    -o -path /var/log -o -path /etc/ld.so.cache \) -prune -o -print | sort
}
snapshot >before.files
dpkg-query -W -f='${Package}\n' | sort >before.pkgs

bash -e install.sh >install.out 2>&1
echo "install=$? $((SECONDS - t))"
dpkg-query -W -f='${Status} ${Version}\n' soak 2>&1 | sed 's/^/status=/'
dpkg -L soak >soak.files 2>/dev/null
echo "which=$(command -v soak) $(command -v soak-procstat) $(command -v soak-gclog) $(command -v soak-regserver)"
soak --version >version.out 2>&1
echo "version=$? $(head -c 60 version.out)"

cd run || exit 1
t=$SECONDS
# soak-regserver, started by the package's study script; the installed self-test scenario
# against it: soak starts /usr/bin's collectors for it.
targets=/usr/share/soak/targets/regserver/regserver.sh
eval "$("$targets" start "$PWD/reg" --latency 1 | grep -E '^(pid|url)=')"
soak run -q --db run.db --set "request.url=$url" \
  --set scenario.duration=3s --set scenario.warmup=0s --set scenario.concurrency=2 \
  --set collect.app.pid_match= --set "collect.app.pid=$pid" \
  /usr/share/soak/scenarios/selftest.ini >run.out 2>&1
echo "run=$?"
soak runs --db run.db --json >runs.json 2>&1
echo "runs=$?"
echo "requests=$(sed -n 's/.*"requests": \([0-9]*\).*/\1/p' runs.json | head -n 1)"
# The collectors' figures, in the report: regserver's process (source app) and the host.
soak report run.db -o rep1 --no-plots >rep1.out 2>&1
echo "collected=$(grep -c '"source": "app"' rep1/report.json) $(grep -c '"host_cpu_pct": [0-9]' rep1/report.json)"
"$targets" stop "$PWD/reg"
# The A/A study of the package's examples: /usr/share/soak/targets starts /usr/bin's server.
TMPDIR=$PWD soak study -q --db study.db --set scenario.duration=1s --set scenario.warmup=0s \
  --set scenario.concurrency=2 /usr/share/soak/scenarios/selftest-study.ini >study.out 2>&1
echo "study=$?"
soak report study.db -o rep >report.out 2>&1
echo "report=$?"
echo "svgs=$(ls rep/img/*.svg 2>/dev/null | wc -l) html=$(test -s rep/report.html && echo yes)"
echo "use=$((SECONDS - t))"
cd /root/work || exit 1

# Where Debian's tools look for what the package brings.
echo "man=$(ls /usr/share/man/man1/soak-run.1.gz /usr/share/man/man5/soak-scenario.5.gz 2>&1 | tr '\n' ' ')"
echo "completion=$(ls -L /usr/share/bash-completion/completions/soak /usr/share/bash-completion/completions/soak-procstat 2>&1 | tr '\n' ' ')"
echo "units=$(grep -h '^ExecStart=' /lib/systemd/system/soak-procstat@.service /lib/systemd/system/soak-gclog@.service | cut -d' ' -f1 | tr '\n' ' ')"
echo "share=$(ls /usr/share/soak/scenarios/*.ini | wc -l) $(test -x /usr/share/soak/deploy/slurm/submit.sh && echo submit)"

t=$SECONDS
snapshot >installed.files
# Removal as apt does it; then what the install line added for soak alone (the packages it
# named besides soak, that the machine did not have) and what apt pulled in for them.
apt-get purge -y soak >purge.out 2>&1
echo "purge=$?"
named=$(grep -o 'install [^&]*' install.sh | tr ' ' '\n' | grep -v '^-\|^install$\|\.deb$\|^/' | sort -u)
extra=$(comm -13 before.pkgs <(printf '%s\n' $named | sort -u) | tr '\n' ' ')
[ -n "$extra" ] && apt-get purge -y $extra >>purge.out 2>&1
apt-get autoremove --purge -y >>purge.out 2>&1
echo "autoremove=$?"
echo "remove=$((SECONDS - t))"
snapshot >after.files
dpkg-query -W -f='${Package}\n' | sort >after.pkgs
echo "pkgs_left=$(comm -13 before.pkgs after.pkgs | tr '\n' ' ')"
echo "files_left=$(comm -13 before.files after.files | wc -l)"
comm -13 before.files after.files | head -n 20 | sed 's/^/file_left=/'
echo "files_gone=$(comm -23 before.files after.files | wc -l)"
comm -23 before.files after.files | head -n 20 | sed 's/^/file_gone=/'
echo "soak_paths=$(grep -c soak after.files)"
echo "package_files_left=$(while read -r f; do [ -f "$f" ] && echo "$f"; done <soak.files | wc -l)"
echo "installed_soak_paths=$(grep -c soak installed.files)"
