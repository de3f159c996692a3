"""deps_shell: the commands a shell script runs, from its syntax tree (shfmt --to-json).

Command positions only: the first word of each simple command, after assignments and after
wrappers that run their arguments (exec, timeout, runuser, env, setsid, ...) and the script's
own functions that run "$@" past their leading arguments.  Words are resolved from the
script's assignments, `for` lists and ${VAR:-default}s, and from the idioms paths are made of
($(dirname "$0"), $(cd DIR && pwd), $(command -v X)); a word that names a script of the tree is
followed (and `. FILE` shares its functions and variables).  Used by deps_check.py.
"""

import fnmatch
import json
import os
import re
import subprocess


def run(cmd, cwd=None, env=None, check=False, stdin=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit("deps_check: %s failed: %s" % (" ".join(cmd), p.stderr.strip()))
    return p


# Bash's own commands and keywords: never a package's.
BUILTINS = set("""
. : [ [[ alias bg bind break builtin caller case cd command compgen complete compopt continue
declare dirs disown do done echo elif else enable esac eval exec exit export false fc fg fi for
function getopts hash help history if in jobs kill let local logout mapfile popd printf pushd
pwd read readarray readonly return select set shift shopt source suspend test then time times
trap true type typeset ulimit umask unalias unset until wait while
""".split())
# The allow-list: command words that look external but are not.  Empty today: the scripts'
# functions, bash's builtins and the programs make builds are recognised from the tree.
ALLOW = set()

UNKNOWN = "\0"  # a part of a word only known at run time
# Commands whose arguments name more needs: what a compiler links, what pkg-config reads.
TOOLS_RE = re.compile(r"^(cc|c99|gcc(-\d+)?|clang(-\d+)?|pkg-config)$")


def shfmt_parse(text, name):
    p = run(["shfmt", "-ln", "bash", "--to-json"], stdin=text)
    if p.returncode != 0:
        raise SystemExit("deps_check: shfmt cannot parse %s: %s" % (name, p.stderr.strip()))
    return json.loads(p.stdout)


_OPS = {}


def op(name):
    """shfmt's number for an operator (its JSON has numbers, which a new version may change):
    learnt once from a parse of a line that holds each one."""
    if not _OPS:
        ast = shfmt_parse(": ${a-b} ${a:-b} ${a=b} ${a:=b}\np && q\np || q\n", "(operators)")
        args = ast["Stmts"][0]["Cmd"]["Args"][1:]
        for key, a in zip(("-", ":-", "=", ":="), args):
            _OPS[key] = a["Parts"][0]["Exp"]["Op"]
        _OPS["&&"] = ast["Stmts"][1]["Cmd"]["Op"]
        _OPS["||"] = ast["Stmts"][2]["Cmd"]["Op"]
    return _OPS[name]


def nodes(o, typ):
    """Every dict of Type typ under o, in source order."""
    return index(o).get(typ, [])


def index(o, out=None):
    """One walk of an AST: Type -> [nodes]."""
    if out is None:
        out = {}
    stack = [o]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            t = x.get("Type")
            if t:
                out.setdefault(t, []).append(x)
            stack.extend(reversed([v for k, v in x.items() if isinstance(v, (dict, list))]))
        elif isinstance(x, list):
            stack.extend(reversed(x))
    return out


def line_of(o):
    return o.get("Pos", {}).get("Line", 0)


class Script:
    """One shell text (a file or a recipe line): its AST, functions, assignments."""

    def __init__(self, path, text, name, cwd):
        self.path = path          # absolute path of the file, None for a recipe line
        self.name = name          # for messages: tests/it/lib.sh or Makefile:140
        self.cwd = cwd            # where relative command paths start
        self.ast = shfmt_parse(text, name)
        idx = index(self.ast)
        self.calls = idx.get("CallExpr", [])    # every simple command, in source order
        self.funcs = {}           # function name -> FuncDecl
        self.assigns = {}         # variable -> [Word]
        for f in idx.get("FuncDecl", []):
            self.funcs[f["Name"]["Value"]] = f
        for o in self.calls:
            for a in o.get("Assigns") or []:
                self.add_assign(a)
        for o in idx.get("DeclClause", []):
            for a in o.get("Args") or []:
                if a.get("Name"):
                    self.add_assign(a)
        for o in idx.get("WordIter", []):
            self.assigns.setdefault(o["Name"]["Value"], []).extend(o.get("Items") or [])
        for o in idx.get("ParamExp", []):   # : "${X:=default}"
            e = o.get("Exp")
            if e and e.get("Op") in (op("="), op(":=")) and e.get("Word"):
                self.assigns.setdefault(o["Param"]["Value"], []).append(e["Word"])

    def add_assign(self, a):
        if a.get("Value") is not None and not a.get("Append"):
            self.assigns.setdefault(a["Name"]["Value"], []).append(a["Value"])


# Programs that run a command given in their arguments: name -> (options that take a value,
# positional arguments before the command).
WRAPPERS = {
    "exec": ({"-a"}, 0), "nohup": (set(), 0), "setsid": (set(), 0), "time": ({"-o", "-f"}, 0),
    "nice": ({"-n"}, 0), "timeout": ({"-s", "--signal", "-k", "--kill-after"}, 1),
    "env": ({"-u", "-C", "--unset", "--chdir"}, 0), "runuser": ({"-u", "-g", "-G", "-s"}, 0),
    "sudo": ({"-u", "-g"}, 0), "xargs": ({"-n", "-P", "-I", "-d", "-L", "-s", "-E"}, 0),
    "stdbuf": (set(), 0), "chroot": (set(), 1), "unshare": (set(), 0), "strace": ({"-o"}, 0),
    "taskset": (set(), 1), "flock": ({"-w", "-E"}, 1), "ionice": ({"-c", "-n"}, 0),
}


class Commands:
    """The command words of shell texts, resolved; scripts of the tree are followed."""

    def __init__(self, top, tracked, programs):
        self.top = top
        self.tracked = tracked          # repo files (relative paths)
        self.programs = programs        # basenames of what make builds -> make target
        self.found = []                 # (profile, who, name-or-path, kind)
        self.unresolved = []            # (profile, who, text)
        self.tools = []                 # (profile, who, tool, [argument words])
        self.runs_programs = {}         # profile -> set of make targets run
        self.system_parsed = {}         # system file sourced -> its function names
        self.scripts_reached = {}       # profile -> set of repo scripts
        self.parsed = {}
        self.analyses = {}              # id(Script) -> what it runs

    # --- words -> possible strings ---------------------------------------------------------
    def values(self, word, ctx, depth=0):
        if word is None:
            return [""]
        parts = word.get("Parts") if "Parts" in word else [word]
        res = [""]
        for p in parts:
            alts = self.part(p, ctx, depth)
            res = [a + b for a in res for b in alts][:16]
        return res

    def part(self, p, ctx, depth):
        t = p.get("Type")
        if t == "Lit":
            return [p["Value"].replace("\\", "")]
        if t == "SglQuoted":
            return [p["Value"]]
        if t == "DblQuoted":
            return self.values({"Parts": p.get("Parts") or []}, ctx, depth)
        if t == "ParamExp":
            return self.param(p, ctx, depth)
        if t == "CmdSubst":
            return self.cmdsubst(p, ctx, depth)
        return [UNKNOWN]

    def param(self, p, ctx, depth):
        name = p["Param"]["Value"]
        if p.get("Length") or p.get("Excl") or p.get("Repl") or p.get("Slice"):
            return [UNKNOWN]
        e = p.get("Exp")
        if e and e.get("Op") not in (op("-"), op(":-"), op("="), op(":=")):
            return [UNKNOWN]
        if name in ("0", "BASH_SOURCE") and ctx["script"].path:
            return [ctx["script"].path]
        vals = []
        if depth < 6 and name not in ctx["visiting"]:
            ctx["visiting"].add(name)
            for s in ctx["scripts"]:
                for w in s.assigns.get(name, []):
                    vals += self.values(w, ctx, depth + 1)
            ctx["visiting"].discard(name)
        known = [v for v in vals if UNKNOWN not in v]
        if e and e.get("Word") and not known:
            return self.values(e["Word"], ctx, depth + 1)
        return list(dict.fromkeys(known or vals or [UNKNOWN]))

    def cmdsubst(self, p, ctx, depth):
        """$(dirname X), $(cd X && pwd), $(command -v X || ...): the idioms paths are made of."""
        stmts = p.get("Stmts") or []
        if len(stmts) != 1:
            return [UNKNOWN]
        cmd = stmts[0].get("Cmd") or {}
        if cmd.get("Type") == "BinaryCmd" and cmd.get("Op") == op("&&"):
            x, y = cmd["X"].get("Cmd") or {}, cmd["Y"].get("Cmd") or {}
            if self.argv0(x, ctx) == "cd" and self.argv0(y, ctx) == "pwd" and len(x["Args"]) == 2:
                return [os.path.normpath(v) if UNKNOWN not in v else UNKNOWN
                        for v in self.values(x["Args"][1], ctx, depth + 1)]
        if cmd.get("Type") == "BinaryCmd" and cmd.get("Op") == op("||"):
            out = []
            for side in (cmd["X"].get("Cmd") or {}, cmd["Y"].get("Cmd") or {}):
                out += self.cmdsubst({"Stmts": [{"Cmd": side}]}, ctx, depth)
            return out
        if cmd.get("Type") == "CallExpr":
            a = cmd.get("Args") or []
            if self.argv0(cmd, ctx) == "dirname" and len(a) == 2:
                return [os.path.dirname(v) if UNKNOWN not in v else UNKNOWN
                        for v in self.values(a[1], ctx, depth + 1)]
            if self.argv0(cmd, ctx) == "command" and len(a) == 3 and \
                    self.values(a[1], ctx) == ["-v"]:
                return self.values(a[2], ctx, depth + 1)
        return [UNKNOWN]

    def argv0(self, call, ctx):
        a = call.get("Args") or []
        if call.get("Type") != "CallExpr" or not a:
            return None
        v = self.values(a[0], ctx)
        return v[0] if len(v) == 1 else None

    # --- files of the tree -------------------------------------------------------------------
    def repo_files(self, value, ctx):
        """Tree files a resolved word may name (UNKNOWN parts match anything)."""
        if UNKNOWN not in value:
            base = ctx["script"].cwd if not value.startswith("/") else "/"
            p = os.path.normpath(os.path.join(base, value))
            rel = os.path.relpath(p, self.top)
            return [rel] if rel in self.tracked else []
        pat = value.replace(UNKNOWN, "*")
        pat = re.sub(r"(^|/)\.\.?(?=/)", "", pat)
        pat = "*" + pat.lstrip("*") if not pat.startswith("/") else pat
        hits = sorted(f for f in self.tracked if fnmatch.fnmatch("/" + f, pat) or
                      fnmatch.fnmatch(os.path.join(self.top, f), pat))
        if len(hits) > 1 and ctx["script"].path:
            here = os.path.relpath(os.path.dirname(ctx["script"].path), self.top)
            near = [f for f in hits if os.path.dirname(f) == here]
            hits = near or hits
        return hits

    def is_shell(self, rel):
        try:
            with open(os.path.join(self.top, rel), "rb") as f:
                head = f.read(200).decode("utf-8", "replace")
        except OSError:
            return False
        first = head.split("\n", 1)[0]
        return rel.endswith(".sh") or re.match(r"#!.*\b(ba|da)?sh\b", first) is not None \
            or "shellcheck shell=" in head

    def load(self, rel):
        if rel not in self.parsed:
            path = os.path.join(self.top, rel)
            with open(path, encoding="utf-8") as f:
                self.parsed[rel] = Script(path, f.read(), rel, self.top)
        return self.parsed[rel]

    # --- the walk ----------------------------------------------------------------------------
    def unit(self, script):
        """A script with everything it sources (shared functions and variables)."""
        group, todo = [], [script]
        while todo:
            s = todo.pop()
            if s in group:
                continue
            group.append(s)
            ctx = {"script": s, "scripts": [s] + group, "visiting": set()}
            for call in s.calls:
                if self.argv0(call, ctx) in (".", "source") and len(call["Args"]) >= 2:
                    for v in self.values(call["Args"][1], ctx):
                        for rel in self.repo_files(v, ctx):
                            todo.append(self.load(rel))
        return group

    def wrappers_of(self, group):
        """Functions of the unit that run their arguments ("$@" in command position):
        name -> how many leading arguments they shift away first."""
        out = {}
        for _ in range(2):
            for s in group:
                for name, f in s.funcs.items():
                    ctx = {"script": s, "scripts": group, "visiting": set(), "wrappers": out,
                           "funcs": set()}
                    body = nodes(f["Body"], "CallExpr")
                    for call in body:
                        k = self.command_index(call.get("Args") or [], ctx)
                        a = call.get("Args") or []
                        if k is not None and k < len(a) and is_all_args(a[k]):
                            shifts = 0
                            for c in body:
                                if self.argv0(c, ctx) == "shift":
                                    n = self.values(c["Args"][1], ctx) if len(c["Args"]) > 1 \
                                        else ["1"]
                                    shifts += int(n[0]) if n[0].isdigit() else 1
                            out[name] = shifts
        return out

    def command_index(self, args, ctx):
        """Index of the word that is the command run, after wrappers; None when none is."""
        i = 0
        while i < len(args):
            vals = self.values(args[i], ctx)
            w = os.path.basename(vals[0]) if len(vals) == 1 else None
            if w in ctx.get("wrappers", {}):
                i += 1 + ctx["wrappers"][w]
                continue
            if w == "command":
                nxt = self.values(args[i + 1], ctx) if i + 1 < len(args) else []
                if nxt and nxt[0] in ("-v", "-V"):
                    return None
                i += 1
                continue
            if w == "ip" and i + 2 < len(args) and \
                    [self.values(a, ctx)[0] for a in args[i + 1:i + 3]] == ["netns", "exec"]:
                i += 4
                continue
            if w in WRAPPERS:
                ctx.setdefault("wrapper_words", []).append((args[i], w))
                takes, positional = WRAPPERS[w]
                j = i + 1
                while j < len(args):
                    v = self.values(args[j], ctx)[0]
                    if v == "--":
                        j += 1
                        break
                    if w == "env" and "=" in v and not v.startswith("-"):
                        j += 1
                        continue
                    if not v.startswith("-") or v == "-":
                        break
                    j += 2 if v in takes else 1
                j += positional
                if j >= len(args):
                    return None
                i = j
                continue
            return i
        return None

    def scan(self, script, profile):
        """Records every command a script (with what it sources and runs) runs for profile."""
        res = self.analyze(script)
        reached = self.scripts_reached.setdefault(profile, set())
        reached |= res["members"]
        for who, name, kind in res["found"]:
            self.found.append((profile, who, name, kind))
        for who, text in res["unresolved"]:
            self.unresolved.append((profile, who, text))
        for who, tool, words in res["tools"]:
            self.tools.append((profile, who, tool, words))
        if res["programs"]:
            self.runs_programs.setdefault(profile, set()).update(res["programs"])
        for rel in res["follow"]:
            if rel not in reached:
                self.scan(self.load(rel), profile)

    def analyze(self, script):
        """What a script runs, whatever the profile: cached per script."""
        key = id(script)
        if key in self.analyses:
            return self.analyses[key]
        res = {"found": [], "unresolved": [], "programs": set(), "follow": [],
               "members": set(), "tools": []}
        self.analyses[key] = res
        group = self.unit(script)
        for s in group:
            if s.path:
                res["members"].add(os.path.relpath(s.path, self.top))
        wrappers = self.wrappers_of(group)
        funcs = set()
        for s in group:
            funcs |= set(s.funcs)
            funcs |= self.system_funcs(s, group)
        for s in group:
            ctx = {"script": s, "scripts": group, "visiting": set(), "wrappers": wrappers}
            for call in s.calls:
                args = call.get("Args") or []
                ctx["wrapper_words"] = []
                k = self.command_index(args, ctx)
                who = "%s:%d" % (s.name, line_of(call)) if s.path else s.name
                # `. /usr/share/bash-completion/bash_completion`: a system file it sources.
                if self.argv0(call, ctx) in (".", "source") and len(args) >= 2:
                    for v in self.values(args[1], ctx):
                        if UNKNOWN not in v and v.startswith("/") and \
                                not os.path.normpath(v).startswith(self.top + "/"):
                            res["found"].append((who, os.path.normpath(v), "sourced"))
                for _, w in ctx["wrapper_words"]:
                    self.command([w], res, who, funcs, ctx, None, None)
                if k is not None:
                    self.command(self.values(args[k], ctx), res, who, funcs, ctx,
                                 args[k + 1:], args[k])
        return res

    def system_funcs(self, script, group):
        """The functions of the system files a script sources (bash-completion's
        _init_completion and _filedir): called, they are no commands.  Their own commands
        are the package's business, not looked at."""
        out = set()
        ctx = {"script": script, "scripts": group, "visiting": set()}
        for call in script.calls:
            args = call.get("Args") or []
            if self.argv0(call, ctx) not in (".", "source") or len(args) < 2:
                continue
            for v in self.values(args[1], ctx):
                if UNKNOWN in v or not v.startswith("/") or \
                        os.path.normpath(v).startswith(self.top + "/") or not os.path.isfile(v):
                    continue
                if v not in self.system_parsed:
                    try:
                        with open(v, encoding="utf-8", errors="replace") as f:
                            self.system_parsed[v] = set(Script(v, f.read(), v, self.top).funcs)
                    except (OSError, SystemExit):
                        self.system_parsed[v] = set()
                out |= self.system_parsed[v]
        return out

    def command(self, vals, res, who, funcs, ctx, script_args, word):
        for v in vals:
            if v == "" or (UNKNOWN in v and v.replace(UNKNOWN, "") == ""):
                if word is not None and not is_all_args(word):
                    res["unresolved"].append((who, word_text(word)))
                continue
            base = os.path.basename(v)
            if UNKNOWN not in v and "/" not in v:
                if v in BUILTINS or v in funcs or v in ALLOW:
                    continue
                if v in self.programs:
                    res["programs"].add(self.programs[v])
                    continue
                if v in ("bash", "sh", "dash") and script_args:
                    self.follow_shell_args(script_args, res, ctx)
                if script_args is not None and TOOLS_RE.match(v):
                    words = [w for a in script_args for w in self.values(a, ctx)[0].split()]
                    res["tools"].append((who, v, words))
                res["found"].append((who, v, "command"))
                continue
            files = self.repo_files(v, ctx)
            # Run as a command, a script must be executable (lib.sh files are only sourced).
            shells = [f for f in files if self.is_shell(f) and
                      os.access(os.path.join(self.top, f), os.X_OK)]
            if shells:
                res["follow"] += shells
                continue
            if files:
                continue   # a file of the tree that is no script (python, java source)
            if UNKNOWN not in v and v.startswith("/") and \
                    not os.path.normpath(v).startswith(self.top + "/"):
                # One of ours where `make install` puts it (PREFIX/bin/soak-regserver).
                if base in self.programs:
                    res["programs"].add(self.programs[base])
                    continue
                res["found"].append((who, os.path.normpath(v), "path"))
                continue
            if base in self.programs and UNKNOWN not in base:
                res["programs"].add(self.programs[base])
                continue
            res["unresolved"].append((who, v.replace(UNKNOWN, "$?")))

    def follow_shell_args(self, args, res, ctx):
        """bash FILE: follow FILE when it is a script of the tree."""
        for a in args:
            v = self.values(a, ctx)
            if v and v[0].startswith("-"):
                if v[0] == "-c":
                    return
                continue
            for x in v:
                res["follow"] += [f for f in self.repo_files(x, ctx) if self.is_shell(f)]
            return


def is_all_args(word):
    parts = word.get("Parts") or []
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts") or []
    return len(parts) == 1 and parts[0].get("Type") == "ParamExp" and \
        parts[0]["Param"]["Value"] in ("@", "*")


def word_text(word):
    out = []
    for p in nodes(word, "Lit"):
        out.append(p["Value"])
    for p in nodes(word, "ParamExp"):
        out.append("$" + p["Param"]["Value"])
    return "".join(out) or "?"


