#!/usr/bin/env python3
"""man_check: do the man pages keep up with the programs?

    tests/it/man_check.py --man DIR --soak PROGRAM [--page NAME=PROGRAM]... [--render PAGE]...
                          [--only PAGE]...

Prints TAP lines (`ok - ...`, `not ok - ...`); exits 1 when a line is `not ok`.

 * Every page in DIR (*.1, *.5; or only the --render ones, `--render none`: none)
   renders with no warning: `groff -ww -man` (at any width) and `man --warnings=w -l` (at 80
   columns: what lintian runs) print nothing.
 * (--only PAGE: the options of these pages only, for a quicker look.)
 * The commands: `soak --help` lists them; each has its page DIR/soak-COMMAND.1, which
   soak(1) names as soak-COMMAND(1).
 * The options: every option that `soak --help`, `soak COMMAND --help` and `PROGRAM
   --help` (--page soak-procstat=bin/soak-procstat) print as one of theirs is an item of
   the page's OPTIONS section: it is on a line of that section (subsections included) that
   starts with an option, as `.TP` tags render; an option only named in a sentence of the
   page does not count.  An option --help only names in a sentence (`(soak run --agent
   K/N)` in soak merge's, `(nmon -T)` in soak import's: another program's) must appear
   somewhere in the page.  So a page cannot fall behind its program's --help.
Options are the words --name and -x (not -Xlog:gc and the like: a single-dash option is
one letter).  One of the program's own: in the usage lines (`usage:` and the indented
lines after it), or, elsewhere, first on its line (after blanks and `[`), after two
blanks, `: ` or `] [`, or right after another option (`-c, --concurrency`,
`--find-max-rate --slo`).  completion/soak.bash offers the options by the same rule.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z](?![\w]))")


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def help_text(argv):
    p = run(argv + ["--help"])
    return p.returncode, p.stdout + p.stderr


def help_options(text):
    """-> (own, mentions): the options --help prints as the program's own, and the others."""
    items, mentions = set(), set()
    usage = False
    for line in text.splitlines():
        usage = line.startswith("usage:") or (usage and line[:1] in (" ", "\t"))
        prev_end = None
        for m in OPTION.finditer(line):
            before = line[:m.start()]
            own = usage or before.strip() in ("", "[") or \
                re.search(r"(  |: |\] )\[?$", before) is not None or \
                (prev_end is not None and re.fullmatch(r",? ", line[prev_end:m.start()]))
            (items if own else mentions).add(m.group(1))
            prev_end = m.end()
    return items, mentions - items


def commands(text):
    """The command names `soak --help` lists under `commands:`."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("commands:"):
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
            if not m:
                break
            out.append(m.group(1))
    return out


_rendered = {}


def render(page):
    """groff -ww's run of the page: the page as plain text, lines as wide as they come (no
    wrapping of a tag line), and its warnings.  -> CompletedProcess, once per page."""
    if page not in _rendered:
        env = dict(os.environ, LC_ALL="C")
        _rendered[page] = run(["groff", "-ww", "-man", "-Tascii", "-rLL=250n", "-P-cbou", page],
                              env=env)
    return _rendered[page]


def option_items(text):
    """Options on the item lines of the OPTIONS section (up to the next section)."""
    items, inside = set(), False
    for line in text.splitlines():
        if re.match(r"^[A-Z]", line):
            inside = line.strip() == "OPTIONS"
            continue
        if inside and re.match(r"^\s+-", line):
            items.update(OPTION.findall(line))
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--man", required=True)
    ap.add_argument("--soak", required=True)
    ap.add_argument("--page", action="append", default=[],
                    help="NAME=PROGRAM: the page NAME.1 documents PROGRAM")
    ap.add_argument("--render", action="append",
                    help="check only these pages' rendering (none: no page)")
    ap.add_argument("--only", action="append",
                    help="check only these pages' options (soak-run.1)")
    a = ap.parse_args()
    bad = 0

    def ok(name):
        print("ok - " + name)

    def not_ok(name):
        nonlocal bad
        bad += 1
        print("not ok - " + name)

    pages = sorted(glob.glob(os.path.join(a.man, "*.[15]")))
    if not pages:
        not_ok("no man pages in %s" % a.man)
        return 1
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")

    def warnings(page):
        return render(page), run(["man", "--warnings=w", "-l", page], env=env)

    if a.render:
        pages = [p for p in pages if os.path.basename(p) in a.render]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(warnings, pages))
    for page, (w, m) in zip(pages, results):
        name = os.path.basename(page)
        msgs = (w.stderr + m.stderr).strip()
        if w.returncode == 0 and m.returncode == 0 and not msgs and m.stdout.strip():
            ok("%s renders with no warning (groff -ww, man --warnings=w -l)" % name)
        else:
            not_ok("%s renders with no warning (groff -ww, man --warnings=w -l): %s" % (
                name, msgs.replace("\n", " | ") or "exit %d/%d" % (w.returncode, m.returncode)))

    # (page, program argv, what to call it in messages)
    checks = []
    rc, top = help_text([a.soak])
    if rc != 0:
        not_ok("soak --help exits 0 (got %d)" % rc)
        return 1
    cmds = commands(top)
    if not cmds:
        not_ok("soak --help lists commands")
        return 1
    checks.append(("soak.1", [a.soak], "soak"))
    main_page = os.path.join(a.man, "soak.1")
    main_text = render(main_page).stdout if os.path.exists(main_page) else ""
    for c in cmds:
        page = "soak-%s.1" % c
        if not os.path.exists(os.path.join(a.man, page)):
            not_ok("soak %s has a page: %s is missing" % (c, page))
            continue
        checks.append((page, [a.soak, c], "soak " + c))
        if re.search(r"(?<![\w-])soak-%s\(1\)" % re.escape(c), main_text):
            ok("soak(1) names soak-%s(1)" % c)
        else:
            not_ok("soak(1) names soak-%s(1)" % c)
    for spec in a.page:
        name, _, prog = spec.partition("=")
        checks.append((name + ".1", [prog], name))
    if a.only:
        checks = [c for c in checks if c[0] in a.only]

    def gather(check):
        page, argv, _ = check
        path = os.path.join(a.man, page)
        if not os.path.exists(path):
            return None
        return help_text(argv) + (render(path).stdout,)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        gathered = list(pool.map(gather, checks))
    for (page, argv, who), got in zip(checks, gathered):
        if got is None:
            not_ok("%s has a page: %s is missing" % (who, page))
            continue
        rc, text, rendered = got
        if rc != 0:
            not_ok("%s --help exits 0 (got %d)" % (who, rc))
            continue
        items, mentions = help_options(text)
        have = option_items(rendered)
        words = set(OPTION.findall(rendered))
        missing = sorted(o for o in items if o not in have)
        unnamed = sorted(o for o in mentions if o not in words)
        if not items and not mentions:
            not_ok("%s --help prints options" % who)
            continue
        for o in missing:
            not_ok("%s %s (an item of its --help) is an item of %s's OPTIONS" % (who, o, page))
        for o in unnamed:
            not_ok("%s %s (named in its --help) appears in %s" % (who, o, page))
        if not missing and not unnamed:
            ok("every option %s --help prints is in %s (%d items, %d named)" % (
                who, page, len(items), len(mentions)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
