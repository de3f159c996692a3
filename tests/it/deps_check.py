#!/usr/bin/env python3
"""deps_check: does every Debian package that `make`, `make demo` and `make check` need come
from the tools/deps.sh profile that installs it?

    tests/it/deps_check.py [--top DIR] [--deps FILE] [-v]

Prints TAP lines (`ok - ...`, `not ok - ...`) and `# ...` notes; exits 1 when a line is
`not ok`, 2 when it cannot run (no shfmt, no make, ...).  --deps checks another copy of
tools/deps.sh (tests/it/test_deps.sh uses that to prove that a missing package is caught).

Goals and the profile that must cover them: `make` (all) -> build, `make demo` -> demo,
`make check` -> check, `make check-deb` -> package.  A package covers a need when it is in the
profile (`deps.sh --list P`), pulled in by one that is (the Depends/Pre-Depends closure, from
Debian's metadata: `apt-cache dumpavail` once, the installed record where a package is
installed; an alternative is the one apt takes on a fresh machine), or is Priority required /
Essential (every debootstrap minbase has those).  What else is installed here decides
nothing: `--fresh-status FILE` writes the dpkg status of a fresh machine on which `make
check` installed its profile, and `--status FILE` judges as if that were this machine's
(tests/it/test_deps.sh compares the two answers).

Everything is extracted from the tree as it is; nothing here lists the project's needs:
 * rules: make's own database (`make -pRrq`), walked from each goal through explicit and
   pattern rules; the .c files reached are each program's sources.
 * headers: `$(CC) -M` with the Makefile's CPPFLAGS, PKG_CFLAGS and CFLAGS (`make -s
   print-VAR`); each header outside the tree -> its package (`dpkg -S`, after readlink -f).
   The C files the tests compile themselves (tests/it/*.c, tests/fuzz/*.c) count for check.
 * pkg-config modules: each `pkg-config` a recipe runs through $(shell ...), and the modules
   those require -> the .pc file's package.
 * commands: the command words of the recipes and of every script they run, parsed with
   shfmt (a real shell parser): command positions only, through wrappers (exec, timeout,
   runuser, env, setsid, ...) and through the scripts' own functions that run "$@".
   Variables are resolved from the scripts' assignments and defaults (JAVA=${JAVA:-java});
   a word that names a script of the tree is followed.  tests/run.sh, tests/it/*.sh and
   tests/fuzz/run.sh are roots for check (tests/run.sh runs them from a glob).
 * the commands the project's programs run: the argv[0] of exec*() calls and the first word
   of popen()/system() in their C sources (gnuplot for `soak report`).
 * what compilers link: each cc/gcc/clang call of a recipe or script, asked for its link plan
   (-### for crt files and sanitizer/fuzzer runtimes, -print-file-name for -lNAME); the
   modules of each pkg-config call in a script.
 * the Java build: targets/servlet/build.sh traced (bash -x, a stand-in javac) for the files
   it reads from the system (the jars).
 * the Debian package: where a goal's scripts run dpkg-buildpackage, every package
   debian/control's Build-Depends name (debhelper runs in debian/rules, out of sight).
 * files the scripts source from the system (`. /usr/share/bash-completion/bash_completion`).
"""

import argparse
import fnmatch
import json
import os
import pickle
import re
import shlex
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from deps_shell import UNKNOWN, Commands, Script, run

GOALS = [("all", "build"), ("demo", "demo"), ("check", "check"), ("check-deb", "package")]
# Scripts `make check` runs that no recipe names literally (tests/run.sh globs them).
CHECK_ROOTS = ["tests/run.sh", "tests/it/test_*.sh", "tests/fuzz/run.sh"]
# C files the tests compile themselves (test_report.sh: cc; tests/fuzz/run.sh: clang).
CHECK_C = ["tests/it/*.c", "tests/fuzz/fuzz_*.c"]

# ------------------------------------------------------------------ Debian packages

def parse_rel(field):
    """A Depends-style field -> list of alternatives lists of bare package names."""
    out = []
    for group in field.split(","):
        alts = []
        for a in group.split("|"):
            a = a.strip()
            if not a:
                continue
            name = re.split(r"[\s(\[]", a, 1)[0]
            alts.append(name.split(":", 1)[0])
        if alts:
            out.append(alts)
    return out


def records(text):
    """Debian control records (a Packages index, a dpkg status file) -> dicts of the fields
    deps_check reads, continuation lines folded."""
    keep = ("Package", "Status", "Priority", "Essential", "Depends", "Pre-Depends", "Provides")
    for rec in text.split("\n\n"):
        f, cur = {}, None
        for line in rec.split("\n"):
            if line[:1] in (" ", "\t"):
                if cur:
                    f[cur] += " " + line.strip()
                continue
            k, _, v = line.partition(":")
            cur = k if k in keep else None
            if cur:
                f[k] = v.strip()
        if "Package" in f:
            yield f


class Dpkg:
    """What Debian's metadata says of packages: the same answer on a fresh machine and on a
    used one.  The archive's records (`apt-cache dumpavail`, one process) and, for a package
    installed here, its installed record (the dpkg status file); what else happens to be
    installed here never decides a closure, an alternative or the base.  status: another dpkg
    status file to read as this machine's (a fresh machine's view, --status)."""

    def __init__(self, status="/var/lib/dpkg/status", cache=None):
        self.raw = {}         # name -> its record's fields (parsed by info when asked)
        self.pkgs = {}        # name -> {"deps": [[alt...]...], "required": bool}
        self.provides = {}    # virtual name -> [real packages that provide it], sorted
        self.installed = set()
        self.raw = self.archive(cache)
        with open(status, encoding="utf-8", errors="replace") as fh:
            for f in records(fh.read()):
                if f.get("Status", "").endswith(" installed"):
                    self.raw[f["Package"]] = f
                    self.installed.add(f["Package"])
        for name, f in self.raw.items():
            if "Provides" in f:
                for alts in parse_rel(f["Provides"]):
                    for v in alts:
                        self.provides.setdefault(v, []).append(name)
        for v in self.provides:
            self.provides[v].sort()
        # A fresh Debian has its required and essential packages (debootstrap's minbase).
        self.base = {n for n, f in self.raw.items()
                     if f.get("Priority") == "required" or f.get("Essential") == "yes"}
        self.unknown = set()

    @staticmethod
    def archive(cache):
        """The archive's records: `apt-cache dumpavail`, or a cache an earlier run wrote."""
        if cache and os.path.exists(cache):
            with open(cache, "rb") as f:
                return pickle.load(f)
        out = {}
        for f in records(run(["apt-cache", "dumpavail"], check=True).stdout):
            out.setdefault(f["Package"], f)
        if cache:
            with open(cache, "wb") as f:
                pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
        return out

    def info(self, name):
        if name not in self.pkgs:
            f = self.raw.get(name)
            if f is None:
                self.unknown.add(name)
                f = {}
            self.pkgs[name] = {"deps": parse_rel(f.get("Depends", "")) +
                               parse_rel(f.get("Pre-Depends", ""))}
        return self.pkgs[name]

    def pick(self, alts, prefer):
        """The alternative apt takes on a fresh machine: one the same install names (the
        profile, the base), else the first real package, else the first of its providers."""
        for a in alts:
            if a in prefer:
                return [a]
            for v in self.provides.get(a, []):
                if v in prefer:
                    return [v]
        for a in alts:
            if a in self.raw:
                return [a]
            if self.provides.get(a):
                return self.provides[a][:1]
        return alts[:1]

    def closure(self, names):
        prefer = set(names)
        return reach(names, lambda n: [p for alts in self.info(n)["deps"]
                                       for p in self.pick(alts, prefer)])

    def fresh_status(self, keep, status="/var/lib/dpkg/status"):
        """This machine's dpkg status with only the packages in keep: what a fresh machine
        has once the profiles are installed (tests/it/test_deps.sh hides the rest so)."""
        with open(status, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        out = []
        for rec in text.split("\n\n"):
            m = re.match(r"Package: (\S+)", rec)
            if m and m.group(1) in keep:
                out.append(rec.strip("\n"))
        return "\n\n".join(out) + "\n"


def usr_variants(p):
    """Bookworm ships some files under /bin, /sbin, /lib while they live in /usr (usrmerge)."""
    out = [p]
    m = re.match(r"/usr(/(?:s?bin|lib\w*)/.*)", p)
    if m:
        out.append(m.group(1))
    elif re.match(r"/(?:s?bin|lib\w*)/", p):
        out.append("/usr" + p)
    return out


def alternatives_of(p):
    """The names of the alternatives a symlink chain passes through (/etc/alternatives/X)."""
    names, seen = [], set()
    while os.path.islink(p) and p not in seen:
        seen.add(p)
        t = os.readlink(p)
        p = os.path.normpath(os.path.join(os.path.dirname(p), t))
        if p.startswith("/etc/alternatives/"):
            names.append(os.path.basename(p))
    return names


class Owners:
    """Which installed packages own a file: dpkg -S on the path, its readlink -f, their
    usrmerge twins and every alternative of an /etc/alternatives link; one dpkg -S for all."""

    def __init__(self):
        self.cands = {}   # path -> [candidate paths]
        self.map = {}     # candidate path -> set of packages

    def add(self, path):
        if path in self.cands:
            return
        c = usr_variants(path) + usr_variants(os.path.realpath(path))
        for alt in alternatives_of(path):
            p = run(["update-alternatives", "--list", alt])
            for a in p.stdout.split():
                c += usr_variants(a) + usr_variants(os.path.realpath(a))
        self.cands[path] = list(dict.fromkeys(c))

    def resolve(self):
        todo = sorted({c for cs in self.cands.values() for c in cs} - set(self.map))
        for i in range(0, len(todo), 500):
            out = run(["dpkg", "-S"] + todo[i:i + 500]).stdout
            for line in out.splitlines():
                if line.startswith("diversion ") or ": " not in line:
                    continue
                pk, path = line.split(": ", 1)
                self.map.setdefault(path, set()).update(
                    x.strip().split(":", 1)[0] for x in pk.split(","))

    def of(self, path):
        s = set()
        for c in self.cands.get(path, []):
            s |= self.map.get(c, set())
        return s

    def main(self, path):
        """The package to name in a message: the owner of the file itself."""
        for c in usr_variants(os.path.realpath(path)) + usr_variants(path):
            if self.map.get(c):
                return sorted(self.map[c])[0]
        s = self.of(path)
        return sorted(s)[0] if s else None


# ------------------------------------------------------------------ make

class Make:
    """make's database: variables, explicit and pattern rules; a small expander for recipes."""

    def __init__(self, top):
        self.top = top
        out = run(["make", "-pRrq", "-f", "Makefile", "__deps_check_no_such_goal__"],
                  cwd=top).stdout
        self.vars = {}    # name -> (flavour, value)
        self.rules = {}   # target -> {"prereqs": [...], "recipe": [...], "line": N}
        self.patterns = []
        section, cur = None, None
        for line in out.splitlines():
            if line.startswith("# ") and line[2:] in ("Variables", "Implicit Rules", "Files",
                                                      "Directories", "VPATH Search Paths",
                                                      "Pattern-specific Variable Values"):
                section, cur = line[2:], None
                continue
            if section == "Variables":
                m = re.match(r"^([^#\s][^\s]*) (:=|::=|=) (.*)$", line)
                if m:
                    self.vars[m.group(1)] = ("simple" if m.group(2) != "=" else "recursive",
                                             m.group(3))
                continue
            if section not in ("Implicit Rules", "Files"):
                continue
            if line.startswith("\t") and cur is not None:
                cur["recipe"].append(line[1:])
                continue
            m = re.match(r"^#  recipe to execute \(from '.*', line (\d+)\):", line)
            if m and cur is not None:
                cur["line"] = int(m.group(1))
                continue
            if not line or line.startswith("#"):
                if not line:
                    cur = None
                continue
            m = re.match(r"^([^:\s][^:]*?)::?(?!=)\s*(.*)$", line)
            if not m:
                continue
            target, pre = m.group(1).strip(), m.group(2)
            pre = pre.replace("|", " ").split()
            cur = {"target": target, "prereqs": pre, "recipe": [], "line": 0}
            if "%" in target:
                self.patterns.append(cur)
            else:
                self.rules[target] = cur
        self.phony = set(self.rules.get(".PHONY", {}).get("prereqs", []))

    def print_vars(self, names):
        """Values as make itself expands them (make -s print-VAR)."""
        p = run(["make", "-s"] + ["print-" + n for n in names], cwd=self.top)
        lines = p.stdout.splitlines()
        if p.returncode != 0 or len(lines) != len(names):
            raise SystemExit("deps_check: make -s print-VAR failed (the Makefile needs its "
                             "print-% helper): " + p.stderr.strip())
        return dict(zip(names, lines))

    # --- expansion of recipe text -------------------------------------------------------
    def expand(self, s, auto, mods, depth=0):
        if depth > 20:
            return ""
        out, i = [], 0
        while i < len(s):
            c = s[i]
            if c != "$" or i + 1 >= len(s):
                out.append(c)
                i += 1
                continue
            n = s[i + 1]
            if n == "$":
                out.append("$")
                i += 2
            elif n in "({":
                j, level, close = i + 2, 1, ")" if n == "(" else "}"
                while j < len(s) and level:
                    if s[j] == n:
                        level += 1
                    elif s[j] == close:
                        level -= 1
                    j += 1
                out.append(self.call(s[i + 2:j - 1], auto, mods, depth))
                i = j
            else:
                out.append(self.var(n, auto, mods, depth))
                i += 2
        return "".join(out)

    def call(self, body, auto, mods, depth):
        m = re.match(r"([a-z-]+)[ \t]+(.*)$", body, re.S)
        if m and m.group(1) in ("if", "filter", "filter-out", "abspath", "realpath", "shell",
                                "sort", "strip", "wildcard", "patsubst", "subst", "dir",
                                "notdir", "call", "foreach", "addprefix", "addsuffix", "info",
                                "warning", "error", "firstword", "word", "words", "basename"):
            fn, args = m.group(1), split_commas(m.group(2))
            ex = lambda k: self.expand(args[k], auto, mods, depth + 1) if k < len(args) else ""
            if fn == "if":
                return ex(1) if ex(0).strip() else ex(2)
            if fn in ("filter", "filter-out"):
                pats, words = ex(0).split(), ex(1).split()
                hit = lambda w: any(re.fullmatch(re.escape(p).replace("%", ".*"), w)
                                    for p in pats)
                return " ".join(w for w in words if hit(w) == (fn == "filter"))
            if fn in ("abspath", "realpath"):
                return " ".join(os.path.normpath(os.path.join(self.top, w))
                                for w in ex(0).split())
            if fn in ("sort", "strip"):
                return " ".join(ex(0).split())
            if fn == "shell":
                words = self.expand(m.group(2), auto, mods, depth + 1).split()
                for k, w in enumerate(words):
                    if w == "pkg-config":
                        for x in words[k + 1:]:
                            if re.search(r"[<>|;&]", x):
                                break
                            if not x.startswith("-"):
                                mods.add(x)
                return ""
            return ""
        name = self.expand(body, auto, mods, depth + 1)
        return self.var(name, auto, mods, depth)

    def var(self, name, auto, mods, depth):
        if name in auto:
            return auto[name]
        if len(name) == 2 and name[1] in "DF" and name[0] in auto:
            v = auto[name[0]]
            return os.path.dirname(v) if name[1] == "D" else os.path.basename(v)
        if name not in self.vars:
            return ""
        flavour, value = self.vars[name]
        return value if flavour == "simple" else self.expand(value, auto, mods, depth + 1)

    # --- walking the rules ---------------------------------------------------------------
    @staticmethod
    def submake_goals(line):
        """The goals of each `make ...` command of a recipe line (options, their arguments
        and VAR=value assignments left out); [] for a make run on another directory or
        Makefile (-C, -f), whose goals are not this Makefile's."""
        goals = []
        for m in re.finditer(r"(?:^|&&|\|\||;|\()\s*(?:\S*/)?make((?:\s+[^;&|()]+)?)", line):
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                continue
            mine, i = [], 0
            while i < len(words):
                w = words[i]
                if w in ("-C", "-f", "--file", "--makefile", "--directory") or \
                        re.match(r"^-[Cf].|^--(file|makefile|directory)=", w):
                    mine = None
                    break
                if w in ("-I", "-o", "-W", "--include-dir", "--old-file", "--what-if"):
                    i += 2
                    continue
                if not w.startswith("-") and "=" not in w:
                    mine.append(w)
                i += 1
            goals += mine or []
        return goals

    def walk(self, goal):
        """-> (c_files {path: label}, recipes [(label, target, line, [expanded lines], mods)])"""
        cfiles, recipes, seen = {}, [], set()
        todo = [(goal, goal)]
        while todo:
            node, label = todo.pop(0)
            if node in seen:
                continue
            seen.add(node)
            if node != goal and node not in self.phony and (label == goal or label in self.phony):
                label = node
            rule = self.rules.get(node)
            prereqs = list(rule["prereqs"]) if rule else []
            recipe, line, stem = (rule["recipe"], rule["line"], "") if rule else ([], 0, "")
            if not recipe:
                for pat in self.patterns:
                    rx = "^" + re.escape(pat["target"]).replace("%", "(.*)", 1) + "$"
                    mm = re.match(rx, node)
                    if mm:
                        stem = mm.group(1)
                        prereqs += [p.replace("%", stem) for p in pat["prereqs"]]
                        recipe, line = pat["recipe"], pat["line"]
                        break
            if node.endswith(".c") and os.path.isfile(os.path.join(self.top, node)):
                cfiles.setdefault(node, label)
            if recipe:
                # Automatic variables name files, never a command: fixed words keep the
                # recipe text the same for every object, so it is parsed once.
                auto = {"@": "TARGET", "<": "PREREQ", "^": "PREREQS", "+": "PREREQS",
                        "*": "STEM", "?": "PREREQS"}
                mods = set()
                text = "\n".join(recipe)
                logical = re.split(r"(?<!\\)\n", text)
                lines = []
                for lg in logical:
                    ex = self.expand(lg, auto, mods).lstrip()
                    ex = re.sub(r"^[@+-]+", "", ex).strip()
                    if ex:
                        lines.append(ex)
                recipes.append((label, node, line, lines, mods))
                # A recipe that runs make on goals of this Makefile (`$(MAKE) -j2 all`)
                # needs what those goals need, as prerequisites would.
                for ex in lines:
                    prereqs += self.submake_goals(ex)
            for p in prereqs:
                todo.append((p, label))
        return cfiles, recipes


def split_commas(s):
    """Make function arguments: split on commas outside parentheses."""
    out, level, cur = [], 0, []
    for c in s:
        if c in "({":
            level += 1
        elif c in ")}":
            level -= 1
        if c == "," and level == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


# ------------------------------------------------------------------ C sources

EXEC_RES = [
    re.compile(r"\bexecl[ep]?\s*\(\s*[^,;]+,\s*\"([^\"/\s]+)\""),    # execl(path, "argv0", ...)
    re.compile(r"\bexec[lv]p\s*\(\s*\"([^\"\s]+)\""),                # execlp("name", ...)
    re.compile(r"\bposix_spawnp\s*\([^,]+,\s*\"([^\"\s]+)\""),
    re.compile(r"\b(?:popen|system)\s*\(\s*\"([^\"\s]+)"),
]


def c_exec_commands(top, files):
    """(file:line, command) for the commands the C sources run by a literal name."""
    out = []
    for rel in files:
        try:
            text = open(os.path.join(top, rel), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for rx in EXEC_RES:
            for m in rx.finditer(text):
                out.append(("%s:%d" % (rel, text.count("\n", 0, m.start()) + 1),
                            os.path.basename(m.group(1))))
    return out


# ------------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", default=os.path.normpath(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "..")))
    ap.add_argument("--deps", help="the deps.sh to judge (default: the tree's)")
    ap.add_argument("--save", help="write what was extracted to this file")
    ap.add_argument("--load", help="judge what an earlier --save extracted (no extraction)")
    ap.add_argument("--status", default="/var/lib/dpkg/status",
                    help="the dpkg status file to read as this machine's installed packages")
    ap.add_argument("--fresh-status", metavar="FILE",
                    help="write the status of a fresh machine on which `make check` installed "
                         "its profile (the base and the check profile's closure), then judge")
    ap.add_argument("--index-cache", metavar="FILE",
                    help="keep the archive's records in FILE for the next run (a test's runs)")
    ap.add_argument("-v", action="store_true", help="list every need and its package")
    a = ap.parse_args()
    top = os.path.realpath(a.top)
    deps = a.deps or os.path.join(top, "tools/deps.sh")
    for tool in ("shfmt", "make", "dpkg", "pkg-config"):
        if run(["sh", "-c", "command -v " + tool]).returncode != 0:
            print("not ok - deps_check needs %s" % tool)
            return 2

    profiles = {}
    for _, prof in GOALS:
        p = run(["bash", deps, "--list", prof])
        if p.returncode != 0:
            print("not ok - %s --list %s failed: %s" % (deps, prof, p.stderr.strip()))
            return 2
        profiles[prof] = p.stdout.split()

    dpkg = Dpkg(a.status, a.index_cache)
    if a.fresh_status:
        keep = dpkg.closure(set(profiles["check"]) | dpkg.base)
        with open(a.fresh_status, "w") as f:
            f.write(dpkg.fresh_status(keep, a.status))
    if a.load:
        with open(a.load) as f:
            x = json.load(f)
        owners = Owners()
        owners.cands = x["cands"]
        owners.map = {k: set(v) for k, v in x["map"].items()}
        needs, failures, unresolved = x["needs"], x["failures"], x["unresolved"]
    else:
        needs, failures, unresolved, owners = extract(top, dpkg)
    if a.save:
        with open(a.save, "w") as f:
            json.dump({"needs": needs, "failures": failures, "unresolved": unresolved,
                       "cands": owners.cands,
                       "map": {k: sorted(v) for k, v in owners.map.items()}}, f)
    return judge(top, deps, profiles, needs, failures, unresolved, owners, dpkg, a.v)


def extract(top, dpkg):
    """-> (needs [(profile, who, what, path, note)], failures, unresolved, owners)"""
    owners = Owners()
    mk = Make(top)
    v = mk.print_vars(["CC", "CPPFLAGS", "PKG_CFLAGS", "CFLAGS", "PKGS", "PROGRAMS",
                       "INSTALL_PROGS"])
    cflags = [f for f in split_flags(v["CFLAGS"])
              if re.match(r"-(std=|D|U|I|pthread|include)", f)]
    cppflags = split_flags(v["CPPFLAGS"]) + split_flags(v["PKG_CFLAGS"]) + cflags
    tracked = tree_files(top)
    programs = {os.path.basename(p): p for p in v["PROGRAMS"].split()}
    # `make install` names some of them otherwise (regserver:soak-regserver).
    for pair in v["INSTALL_PROGS"].split():
        built, _, installed = pair.partition(":")
        if installed and built in programs:
            programs[installed] = programs[built]

    needs = []        # (profile, who, what, path or None, note)
    failures = []
    cmds = Commands(top, tracked, programs)
    recipe_scripts = {}   # (Makefile line, expanded text) -> Script
    c_labels = []         # (profile, program, C file)
    pc_cache = {}
    for goal, prof in GOALS:
        cfiles, recipes = mk.walk(goal)
        mods_by_label = {}
        for label, target, line, lines, mods in recipes:
            mods_by_label.setdefault(label, set()).update(mods)
            for text in lines:
                if (line, text) not in recipe_scripts:
                    recipe_scripts[(line, text)] = Script(None, text, "Makefile:%d (%s)" % (
                        line, target), top)
                cmds.scan(recipe_scripts[(line, text)], prof)
        by_label = {}
        for c, label in cfiles.items():
            by_label.setdefault(label, []).append(c)
        if prof == "check":
            for g in CHECK_C:
                for c in sorted(f for f in tracked if fnmatch.fnmatch(f, g)):
                    label = os.path.dirname(c) + "/*.c (compiled by the tests)"
                    by_label.setdefault(label, []).append(c)
                    mods_by_label.setdefault(label, set()).update(v["PKGS"].split())
        for label, files in sorted(by_label.items()):
            for c in files:
                c_labels.append((prof, label, c))
        for label, mods in sorted(mods_by_label.items()):
            for mod in sorted(pc_closure(mods, failures, label, pc_cache)):
                path = pc_path(mod, pc_cache)
                if not path:
                    failures.append("%s: pkg-config module %s not found on this machine" %
                                    (label, mod))
                    continue
                owners.add(path)
                needs.append((prof, label, "module", path, "pkg-config " + mod))
    # Headers: one cc -M over every C file (a rule per file), then each program's share.
    headers = c_headers(v["CC"] or "cc", cppflags, sorted({c for _, _, c in c_labels}), top,
                        failures)
    for prof, label, c in c_labels:
        for h in headers.get(c, []):
            owners.add(h)
            needs.append((prof, label, "header", h, "includes"))
    for g in CHECK_ROOTS:
        for rel in sorted(f for f in tracked if fnmatch.fnmatch(f, g)):
            cmds.scan(cmds.load(rel), "check")

    # The commands the project's programs run (exec in their C sources), for every profile
    # whose scripts run that program.
    for prof, progs in sorted(cmds.runs_programs.items()):
        for prog in sorted(progs):
            srcs = sorted(mk.walk(prog)[0])
            for where, name in c_exec_commands(top, srcs):
                cmds.found.append((prof, "%s (run by %s)" % (where, prog), name, "command"))

    # What the recipes' and scripts' compilers link (crt files, sanitizer and fuzzer
    # runtimes, -l libraries) and the modules their pkg-config calls read.
    link_cache = {}
    for prof, who, tool, words in cmds.tools:
        if tool == "pkg-config":
            mods = [w for w in words if not w.startswith("-") and UNKNOWN not in w and
                    not re.search(r"[<>|;&$]", w)]
            for mod in sorted(pc_closure(mods, failures, who, pc_cache)):
                path = pc_path(mod, pc_cache)
                if path:
                    owners.add(path)
                    needs.append((prof, who, "module", path, "pkg-config " + mod))
            continue
        for path in link_inputs(tool, words, link_cache, failures, who):
            owners.add(path)
            needs.append((prof, who, "link", path, tool))

    # Java: the files targets/servlet/build.sh reads, for the profiles that run it.
    jb = "targets/servlet/build.sh"
    java_profiles = sorted(p for p, s in cmds.scripts_reached.items() if jb in s)
    if java_profiles:
        for path in java_build_files(top, jb, failures):
            owners.add(path)
            for prof in java_profiles:
                needs.append((prof, jb, "file", path, "reads"))

    for prof, who, name, kind in cmds.found:
        path = name if kind in ("path", "sourced") else which(name)
        if path is None:
            failures.append("%s: %s runs '%s', which no installed package provides" % (
                prof, who, name))
            continue
        if kind == "sourced" and not os.path.exists(path):
            failures.append("%s: %s sources %s, which no installed package provides" % (
                prof, who, name))
            continue
        owners.add(path)
        needs.append((prof, who, "sourced" if kind == "sourced" else "command", path,
                      os.path.basename(name)))

    # debian/control's Build-Depends, for the profiles whose scripts build the package.
    builders = sorted({(prof, who) for prof, who, name, kind in cmds.found
                       if kind == "command" and name == "dpkg-buildpackage"})
    if builders:
        provides = dpkg.provides
        for name in build_depends(top, failures):
            key = "package:" + name
            owners.cands[key] = [key]
            owners.map[key] = {name} | set(provides.get(name, []))
            for prof in sorted({p for p, _ in builders}):
                who = [w for p, w in builders if p == prof][0]
                needs.append((prof, who, "package", key, name))
    owners.resolve()

    return needs, failures, [list(u) for u in cmds.unresolved], owners


def judge(top, deps, profiles, needs, failures, unresolved, owners, dpkg, verbose):
    """Prints the TAP lines; 1 when a need is not covered.  A file counts as owned by the
    packages dpkg.installed has (another status file hides the rest)."""
    failures = list(failures)
    covered = {}
    for prof, pkgs in profiles.items():
        covered[prof] = dpkg.closure(set(pkgs) | dpkg.base)
    for name in sorted(dpkg.unknown & {p for ps in profiles.values() for p in ps}):
        failures.append("tools/deps.sh lists %s, which apt does not know" % name)

    results = {}   # (profile, group) -> [count, [failures]]
    reported = set()
    for prof, who, what, path, note in needs:
        group = (prof, who) if what in ("header", "module") and "/" in who and ":" not in who \
            else (prof, what)
        r = results.setdefault(group, [set(), []])
        r[0].add(path)
        owned = owners.of(path)
        got = owned if what == "package" else owned & dpkg.installed
        ok = bool(got & covered[prof])
        if verbose:
            print("# %s: %s %s %s -> %s" % (prof, who, note, path, ", ".join(sorted(got))
                                            or "no package"))
        if ok:
            continue
        key = (prof, who if what != "command" else note, path)
        if key in reported:
            continue
        reported.add(key)
        pkg = owners.main(path)
        item = {"header": "includes %s" % path,
                "module": "links %s (%s)" % (note, path),
                "file": "reads %s" % path,
                "link": "links %s (%s)" % (path, note),
                "command": "runs '%s' (%s)" % (note, path),
                "sourced": "sources %s" % path,
                "package": "runs dpkg-buildpackage: debian/control's Build-Depends name %s" %
                           note}[what]
        if owned & covered[prof]:
            r[1].append("%s: %s %s from %s, which the %s profile names but `make check` does "
                        "not install (tools/deps.sh check)" % (
                            prof, who, item, sorted(owned & covered[prof])[0], prof))
        elif pkg is None:
            r[1].append("%s: %s %s, which no installed package owns" % (prof, who, item))
        else:
            r[1].append("%s: %s %s from %s, which is not in the %s profile of %s nor "
                        "pulled in by it, nor required" % (prof, who, item, pkg, prof,
                                                             os.path.relpath(deps, top)
                                                             if deps.startswith(top) else deps))
    bad = len(failures)
    for f in failures:
        print("not ok - " + f)
    for (prof, who), (n, fails) in sorted(results.items()):
        label = {"command": "every command it runs", "file": "the Java build's system files",
                 "link": "what the compilers link", "module": "the modules scripts ask pkg-config for",
                 "sourced": "the system files scripts source",
                 "package": "debian/control's Build-Depends"}
        what = label.get(who, who + ": headers and pkg-config modules")
        if fails:
            for f in fails:
                print("not ok - " + f)
            bad += len(fails)
        else:
            print("ok - %s profile covers %s (%d checked)" % (prof, what, len(n)))
    unres = sorted({(p, w, t) for p, w, t in unresolved})
    if unres:
        print("# %d command words are only known at run time (not checked), e.g. %s" % (
            len(unres), "; ".join("%s %s" % (w, t) for _, w, t in unres[:3])))
        if verbose:
            for p, w, t in unres:
                print("#   %s: %s %s" % (p, w, t))
    return 1 if bad else 0




def build_depends(top, failures):
    """The packages debian/control's Build-Depends name: each group's first alternative,
    without versions, architectures or build profiles."""
    path = os.path.join(top, "debian", "control")
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        failures.append("dpkg-buildpackage is run, but %s cannot be read: %s" % (path, e))
        return []
    fields, cur = {}, None
    for line in text.split("\n\n")[0].splitlines():
        if line[:1] in (" ", "\t") and cur:
            fields[cur] += " " + line.strip()
        elif ":" in line:
            cur, val = line.split(":", 1)
            fields[cur] = val.strip()
    out = []
    for f in ("Build-Depends", "Build-Depends-Arch", "Build-Depends-Indep"):
        for alts in parse_rel(re.sub(r"<[^>]*>", "", fields.get(f, ""))):
            out.append(alts[0])
    return out


def tree_files(top):
    """The tree's own files (relative paths): what make, git and the tests leave aside is not
    looked at.  No git needed: a tarball of the tree works too."""
    out = set()
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in ("build", "bin", "demo", "report", ".git")]
        dirs[:] = [x for x in dirs if not x.startswith(".") or x == ".ci"]
        for f in files:
            out.add(os.path.normpath(os.path.join(rel, f)))
    return out


def split_flags(s):
    return shlex.split(s)


def reach(start, step):
    """Everything reachable from start through step(x) -> iterable."""
    seen, todo = set(), list(start)
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(step(x))
    return seen


def pc_closure(mods, failures, label, cache):
    """The modules and every module they require (pkg-config needs their .pc files too)."""
    def requires(m):
        if m not in cache:
            p = run(["pkg-config", "--print-requires", "--print-requires-private", m])
            cache[m] = None if p.returncode != 0 else \
                [l.split()[0] for l in p.stdout.splitlines() if l.strip()]
        if cache[m] is None:
            failures.append("%s: pkg-config module %s not found on this machine" % (label, m))
        return cache[m] or []
    return reach(mods, requires)


def pc_path(mod, cache):
    """The .pc file of a module ('' when pkg-config does not know it)."""
    if ("path", mod) not in cache:
        cache[("path", mod)] = run(["pkg-config", "--path", mod]).stdout.strip()
    return cache[("path", mod)]


def link_inputs(tool, words, cache, failures, who):
    """The system files a compiler driver links with these flags: its own -### plan (crt
    files, sanitizer and fuzzer runtimes) and -lNAME found by -print-file-name."""
    if "-c" in words or "-E" in words or "-M" in words:
        return []
    flags = tuple(w for w in words if UNKNOWN not in w and
                  re.match(r"-(f|l|pthread$|static|shared$|m|nostd|rtlib|stdlib)", w))
    key = (tool, flags)
    if key in cache:
        return cache[key]
    out = set()
    with tempfile.TemporaryDirectory(prefix="deps-link.") as tmp:
        src = os.path.join(tmp, "a.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        # TMPDIR: the driver's own temporary files are named in the plan, keep them in tmp.
        p = run([tool, "-###"] + [f for f in flags if not f.startswith("-l")] +
                [src, "-o", os.path.join(tmp, "a.out")], env=dict(os.environ, TMPDIR=tmp))
        for line in p.stderr.splitlines():
            if not line.startswith(" "):
                continue   # the plan's command lines start with a blank
            for tok in shlex.split(line):
                path = os.path.normpath(tok)
                if not tok.startswith("/") or path.startswith(tmp):
                    continue
                if os.path.isfile(path):
                    out.add(path)
                elif re.search(r"\.(a|o|so)$", path):
                    failures.append("%s: %s %s links %s, which is not on this machine" % (
                        who, tool, " ".join(flags), path))
    for lib in (f[2:] for f in flags if f.startswith("-l")):
        for name in ("lib%s.so" % lib, "lib%s.a" % lib):
            path = run([tool, "-print-file-name=" + name]).stdout.strip()
            if path.startswith("/") and os.path.exists(path):
                out.add(os.path.normpath(path))
                break
        else:
            failures.append("%s: %s links -l%s, which is not on this machine" % (who, tool, lib))
    cache[key] = sorted(out)
    return cache[key]


def c_headers(cc, flags, files, top, failures):
    """C file -> the system headers it includes (cc -M: one rule per input file)."""
    p = run([cc, "-M"] + flags + files, cwd=top)
    if p.returncode != 0:
        for line in p.stderr.splitlines():
            if "error" in line:
                failures.append("cannot preprocess here (%s): %s" % (cc, line.strip()))
    out = {}
    text = p.stdout.replace("\\\n", " ")
    for line in text.splitlines():
        if ":" not in line:
            continue
        deps = line.split(":", 1)[1].split()
        if not deps:
            continue
        out[deps[0]] = sorted(h for h in set(deps[1:]) if h.startswith("/") and
                              not h.startswith(top + "/") and not h.endswith(".c"))
    return out


def which(name):
    """Where a fresh Debian finds a command: the system directories, never /usr/local or a
    user's PATH (a pyenv shim is no package)."""
    for d in ("/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        p = os.path.join(d, name)
        if os.path.exists(p) and os.access(p, os.X_OK):
            return p
    return None


def java_build_files(top, script, failures):
    """The system files the Java build reads: its xtrace, with a stand-in javac."""
    with tempfile.TemporaryDirectory(prefix="deps-java.") as tmp:
        javac = os.path.join(tmp, "javac")
        with open(javac, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(javac, 0o755)
        env = dict(os.environ, JAVAC=javac, PS4="+ ")
        p = run(["bash", "-x", os.path.join(top, script), os.path.join(tmp, "out")], env=env)
        if p.returncode != 0:
            failures.append("%s does not run here with a stand-in javac: %s" % (
                script, p.stderr.strip().splitlines()[-1:]))
        out = set()
        for line in p.stderr.splitlines():
            if not line.startswith("+"):
                continue
            for m in re.finditer(r"/[^\s:'\"=]+", line):
                path = m.group(0)
                if path.startswith((tmp, top + "/", "/dev/", "/proc/", "/tmp/")) or \
                        path == top or not os.path.isfile(path):
                    continue
                out.add(path)
        return sorted(out)


if __name__ == "__main__":
    sys.exit(main())
