#!/usr/bin/env bash
# The Debian package (debian/), as `make check-deb` runs it (TAP lines, then a summary):
#  1. dpkg-buildpackage -us -uc -b on a copy of the tree (the build cleans the tree it runs
#     in); debian/changelog's version must be VERSION's;
#  2. the package: its Depends cover every library its programs link (what
#     ${shlibs:Depends} is for), its files are where Debian's tools look for them;
#  3. lintian, clean at the error level (the warnings and notes are printed as comments);
#  4. in a fresh Debian 12 made by tools/fresh-debian.sh --run (debootstrap minbase, in a
#     chroot: nothing of this machine's packages, so a missing Depends shows), the last
#     stage of deploy/k8s/Containerfile installs it (its COPY and RUN lines, as commands),
#     tests/pkg/in_chroot.sh runs soak run against soak-regserver with the collectors, the
#     self-test study and soak report, then purges the package and what the install line
#     added, and compares the machine's files before and after.
# Why a chroot and not `dpkg -i` here: this machine has every library already (a missing
# Depends would not show), other sessions use its dpkg and apt at the same time, and its
# files change under them (no before/after comparison would hold).
#   tests/pkg/test_deb.sh [--build-only]     --build-only: steps 1 to 3 (make deb)
# The package, its .changes, .buildinfo and debug symbols are left in build/deb/.
# Needs root (the chroot) and the `package` profile of tools/deps.sh.
. "$(dirname "$0")/../it/lib.sh"
build_only=0
[ "${1:-}" = --build-only ] && build_only=1
[ "$(id -u)" -eq 0 ] || { fail "setup" "needs root (dpkg-buildpackage here runs as root; the chroot)"; exit 1; }
out_dir=$TOP/build/deb
version=$(cat "$TOP/VERSION")
arch=$(dpkg --print-architecture)
deb=soak_${version}_$arch.deb
timing=()

check_eq "debian/changelog's version is VERSION's" \
  "$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)" "$version"

# 1. The build, on a copy: the tree's files as git sees them (tracked, and new ones not
# ignored), else everything but build output.
src=$T/src/soak
mkdir -p "$src"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$TOP" && git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$src")
else
  (cd "$TOP" && tar --exclude=./build --exclude=./bin -cf - .) | tar -C "$src" -xf -
fi
s=$SECONDS
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
timing+=("dpkg-buildpackage $((SECONDS - s)) s")
check_eq "dpkg-buildpackage -us -uc -b" "$rc" 0
[ "$rc" -eq 0 ] || { tail -n 40 "$T/build.log" | sed 's/^/# /'; done_testing; exit; }
check "it made $deb" test -f "$T/src/$deb"
mkdir -p "$out_dir"
rm -f "$out_dir"/soak*_"$version"_"$arch".*
cp "$T/src/"soak*_"$version"_"$arch".* "$out_dir/"

# 2. What is in it.
dpkg-deb -x "$T/src/$deb" "$T/x"
depends=$(dpkg-deb -f "$T/src/$deb" Depends)
echo "# Depends: $depends"
# Each library a program links comes from a package the Depends name.
missing=""
for f in "$T"/x/usr/bin/*; do
  for lib in $(objdump -p "$f" | awk '$1 == "NEEDED" { print $2 }'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|64bit|\(libc6,/ { print $NF; exit }')
    [ -n "$path" ] || { missing+=" $lib(not found)"; continue; }
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
    grep -qE "(^|, )$pkg( |,|$)" <<<"$depends" || missing+=" $(basename "$f"):$lib($pkg)"
  done
done
check_eq "Depends (\${shlibs:Depends}) name the package of every library the programs link" "$missing" ""
check "it recommends gnuplot (soak report's pictures)" \
  grep -q 'gnuplot' <<<"$(dpkg-deb -f "$T/src/$deb" Recommends)"
for f in usr/bin/soak usr/bin/soak-procstat usr/bin/soak-gclog usr/bin/soak-regserver \
  usr/share/man/man1/soak.1.gz usr/share/man/man1/soak-run.1.gz usr/share/man/man5/soak-scenario.5.gz \
  usr/share/bash-completion/completions/soak lib/systemd/system/soak-procstat@.service \
  usr/share/soak/scenarios/selftest-study.ini usr/share/soak/targets/regserver/regserver.sh \
  usr/share/soak/deploy/slurm/submit.sh usr/share/doc/soak/copyright; do
  check "the package has /$f" test -e "$T/x/$f"
done
check_eq "a man page for every page of man/" \
  "$(ls "$T"/x/usr/share/man/man[15]/*.gz | wc -l)" "$(ls "$TOP"/man/*.[15] | wc -l)"
check "the units run /usr/bin's collectors" \
  grep -q '^ExecStart=/usr/bin/soak-procstat ' "$T/x/lib/systemd/system/soak-procstat@.service"
check_eq "no maintainer script enables or starts anything" \
  "$(dpkg-deb --ctrl-tarfile "$T/src/$deb" | tar -t | grep -c 'post\|pre')" 0

# 3. lintian.
s=$SECONDS
lintian --fail-on error --display-info "$T/src/soak_${version}_$arch.changes" >"$T/lintian.out" 2>&1
rc=$?
timing+=("lintian $((SECONDS - s)) s")
check_eq "lintian --fail-on error" "$rc" 0
grep -E '^[EWIXP]: ' "$T/lintian.out" | sed 's/^/# lintian: /'
check_eq "lintian reports no error" "$(grep -c '^E: ' "$T/lintian.out")" 0

if [ "$build_only" -eq 0 ]; then
  # 4. A fresh Debian: the Containerfile's last stage as commands, then in_chroot.sh.
  w=$T/work
  mkdir -p "$w"
  cp "$T/src/$deb" "$TOP/tests/pkg/in_chroot.sh" "$w/"
  cf=$TOP/deploy/k8s/Containerfile
  # Logical lines (continuations joined), from the last FROM on.
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$cf" | awk '/^FROM /{ n = NR } { line[NR] = $0 } END {
      for (i = n + 1; i <= NR; i++) print line[i] }' >"$T/stage"
  {
    echo "# deploy/k8s/Containerfile's last stage, as commands"
    while read -r kw a b c; do
      case "$kw" in
        COPY)
          # COPY --from=build /src/soak_*.deb DEST: the package this test built.
          [ "${a#--from=}" != "$a" ] && case "$deb" in $(basename "$b")) echo "mkdir -p '$c' && cp '/root/work/$deb' '$c'" ;; esac ;;
        RUN) echo "$a $b $c" ;;
      esac
    done <"$T/stage"
  } >"$w/install.sh"
  sed 's/^/# install.sh: /' "$w/install.sh"
  check "the Containerfile's last stage copies the package and installs it" \
    grep -q "cp '/root/work/$deb'" "$w/install.sh"
  check "... and its entry point is the package's soak" grep -qx 'ENTRYPOINT \["/usr/bin/soak"\]' "$T/stage"
  s=$SECONDS
  "$TOP/tools/fresh-debian.sh" --run "$w" "bash in_chroot.sh" >"$T/fresh.out" 2>&1
  rc=$?
  timing+=("fresh Debian: install, use, remove $((SECONDS - s)) s")
  check_eq "tools/fresh-debian.sh --run ran in_chroot.sh" "$rc" 0
  v() { sed -n "s/^$1=//p" "$T/fresh.out" | head -n 1; }
  check_eq "the Containerfile's install line installs the package" "$(v install | cut -d' ' -f1)" 0
  check_eq "dpkg: soak installed" "$(v status)" "install ok installed $version"
  check_eq "the programs on PATH" "$(v which)" \
    "/usr/bin/soak /usr/bin/soak-procstat /usr/bin/soak-gclog /usr/bin/soak-regserver"
  check_eq "soak --version" "$(v version | cut -d' ' -f1)" 0
  check_eq "soak run (the installed selftest.ini) against soak-regserver" "$(v run)" 0
  check "it sent requests" test "$(v requests)" -gt 0
  check "the collectors beside soak sampled regserver and the host" \
    awk -v c="$(v collected)" 'BEGIN { split(c, x, " "); exit !(x[1] > 0 && x[2] > 0) }'
  check_eq "soak study (the installed self-test study)" "$(v study)" 0
  check_eq "soak report" "$(v report)" 0
  check "soak report drew pictures (gnuplot from the install line)" \
    awk -v c="$(v svgs)" 'BEGIN { split(c, x, " "); exit !(x[1] > 3 && x[2] == "html=yes") }'
  check_eq "the man pages are in /usr/share/man" "$(v man)" \
    "/usr/share/man/man1/soak-run.1.gz /usr/share/man/man5/soak-scenario.5.gz "
  check_eq "the completion (and its links) are in bash-completion's folder" "$(v completion)" \
    "/usr/share/bash-completion/completions/soak /usr/share/bash-completion/completions/soak-procstat "
  check_eq "the units run /usr/bin's collectors" "$(v units)" \
    "ExecStart=/usr/bin/soak-procstat ExecStart=/usr/bin/soak-gclog "
  check "the scenarios and the deploy scripts are in /usr/share/soak" \
    test "$(v share)" = "$(ls "$TOP"/scenarios/*.ini | wc -l) submit"
  check "soak was there while installed" test "$(v installed_soak_paths)" -gt 40
  check_eq "apt-get purge soak" "$(v purge)" 0
  check_eq "apt-get autoremove --purge" "$(v autoremove)" 0
  check_eq "no package is left that was not there before" "$(v pkgs_left)" ""
  check_eq "no path naming soak is left" "$(v soak_paths)" 0
  check_eq "none of the package's files is left" "$(v package_files_left)" 0
  check_eq "no file is left that was not there before" "$(v files_left)" 0
  check_eq "no file that was there before is gone" "$(v files_gone)" 0
  grep -E '^file_(left|gone)=' "$T/fresh.out" | sed 's/^/# /'
  grep -q '^install=0' "$T/fresh.out" || grep -v '^[a-z_]*=' "$T/fresh.out" | tail -n 30 | sed 's/^/# /'
  echo "# in the chroot: install $(v install | cut -d' ' -f2) s, use $(v use) s, remove $(v remove) s"
fi
echo "# seconds: ${timing[*]}"
echo "# the package: $out_dir/$deb"
done_testing
