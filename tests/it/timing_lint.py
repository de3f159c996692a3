#!/usr/bin/env python3
"""No check of how long something took on this machine (issue 41).

A test that compares an elapsed time with a bound passes on the machine it was written on
and fails on a slower or a busier one: speed belongs in bench/, where figures are printed
side by side and nothing passes or fails; a hang is the suite's own timeout's business.

This reads every shell suite of tests/it/ and prints one line per check that reads the
shell's clock: a `check*`, `ok`, `fail` or `if` line whose words use a clock ($SECONDS,
$EPOCHSECONDS, $EPOCHREALTIME, `date +%s...`), a function of the file that reads one
(`ms() { date +%s%3N; }`), or a variable assigned from any of these (followed through
assignments).  Clock readings may still mark when something happened: to find a
database's rows around a signal, or in `check_order` (lib.sh), which checks that moments
came in an order (a run's end after its lock was taken plus the busy timeout, no sample
after a kill): an order holds on any machine, an elapsed time under a bound does not.
A figure that reads the clock without being a speed (a CPU share: ticks over the span
they were counted in) is said so in a comment line above its check, `# not a speed:
WHY`, which a reviewer reads.

    timing_lint.py TOP [FILE...]     prints `FILE:LINE: ...` lines; nothing when clean
"""
import os
import re
import sys

CLOCK = re.compile(r"\$\{?(?:EPOCHSECONDS|EPOCHREALTIME|SECONDS)\b|\(\(\s*SECONDS\b|"
                   r"\bSECONDS\s*-|date\s+\+%s")
ASSIGN = re.compile(r"(?:^|[\s;(&|])(?:local\s+|export\s+|readonly\s+)?([A-Za-z_]\w*)=(\S.*)")
FUNC = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(\)\s*\{(.*)")
CHECKS = re.compile(r"(?:^|[\s;&|({])(?:check\w*|ok|fail|if|while|until)\s")


WAIVER = "# not a speed:"
HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_]\w*)['\"]?")


def logical_lines(text):
    """(first line number, joined text) for each command, continuations joined; a command
    under a comment line that starts with WAIVER and gives a reason is left out, and so is
    the text of a here-document."""
    out, buf, first, waived, heredoc = [], "", 0, False, None
    for n, line in enumerate(text.splitlines(), 1):
        if heredoc is not None:  # a here-document's text is data, not commands
            if line.strip() == heredoc:
                heredoc = None
            continue
        m = HEREDOC.search(line)
        if m:
            heredoc = m.group(1)
        if line.strip().startswith(WAIVER) and len(line.strip()) > len(WAIVER) + 10:
            waived = True
            continue
        if not buf:
            first = n
        stripped = line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        buf += stripped
        if not waived:
            out.append((first, buf))
        elif buf.strip():
            waived = False
        buf = ""
    if buf:
        out.append((first, buf))
    return out


def clock_names(lines):
    """Functions that read the clock, and for each line the variables whose latest value
    (assigned on an earlier line) came from the clock, followed through assignments."""
    funcs = set()
    for _, text in lines:
        m = FUNC.match(text)
        if m and CLOCK.search(m.group(2)):
            funcs.add(m.group(1))
    names, live = set(), []
    for _, text in lines:
        live.append(frozenset(names))
        for m in ASSIGN.finditer(text):
            if m.group(1) == "SECONDS":
                continue
            if reads_clock(m.group(2), funcs, names):
                names.add(m.group(1))
            else:
                names.discard(m.group(1))
    return funcs, live


def reads_clock(text, funcs, names):
    if CLOCK.search(text):
        return True
    for f in funcs:
        if re.search(r"\$\(\s*" + f + r"\b", text):
            return True
    for v in names:
        if re.search(r"\$\{?" + v + r"\b", text) or re.search(r"\(\(.*\b" + v + r"\b", text):
            return True
    return False


def lint(path, shown):
    with open(path, encoding="utf-8") as f:
        lines = logical_lines(f.read())
    funcs, live = clock_names(lines)
    bad = []
    for (n, text), names in zip(lines, live):
        if FUNC.match(text) or not CHECKS.search(text):
            continue
        if re.match(r"\s*(?:echo|printf|check_order)\b", text):
            continue
        if reads_clock(text, funcs, names):
            bad.append(f"{shown}:{n}: a check reads the clock (an elapsed time against a "
                       "bound is a speed check: move it to bench/ or check what the time stood for)")
    return bad


def main():
    top = sys.argv[1]
    files = sys.argv[2:] or sorted(
        os.path.join(top, "tests/it", f) for f in os.listdir(os.path.join(top, "tests/it"))
        if f.endswith(".sh") and f != "lib.sh")
    for path in files:
        for line in lint(path, os.path.relpath(path, top)):
            print(line)


if __name__ == "__main__":
    main()
