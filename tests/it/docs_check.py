#!/usr/bin/env python3
"""The documentation cannot drift (tests/it/test_docs.sh).

    docs_check.py run WORK PORTMAP DOC...   runs every command block of each DOC
    docs_check.py links FILE...             every link names a file and anchor that exist

run: each DOC's fenced blocks in order.  A block opened with ```sh runs; one opened with
```sh needs=WHY[,WHY] is not run and says why (WHY one of NEEDS below: what this machine's
test cannot have).  A ```text output block right after a block is what the text says that
block prints: each of its lines (but a line "...") must come out, in order, with every
number standing for any number, any run of spaces for any other, and a line that ends in
" ..." for every line that starts so.  A DOC's blocks run
in one bash (set -e; what a block starts in the background lives until the DOC's last
block) in WORK/<DOC's name>, with the ports of PORTMAP ("8080:41234,8081:41235") put in
for the documented ones in commands and in quoted output.  Prints TAP lines
(ok / not ok) and exits 0; tests/run.sh counts them.

links: every [text](target) of the Markdown files whose target is not a URL names a file
or folder that exists, and its #anchor (if any) a heading of that file, as GitHub makes
anchors: lower case, punctuation dropped, spaces as hyphens.
"""
import os
import re
import subprocess
import sys

NEEDS = {
    "root": "installs or writes outside its folder",
    "java": "the servlet containers and PostgreSQL of make demo",
    "long": "runs for minutes or hours (make demo, make check, an overnight soak)",
    "cluster": "a Slurm or Kubernetes cluster",
    "hosts": "other machines",
    "cron": "a crontab",
}
TIMEOUT_S = 150  # one DOC's blocks, all together


def blocks(path):
    """[(line, info, text)] of the fenced blocks of a Markdown file."""
    out, cur = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"^```(.*)$", line.rstrip("\n"))
            if m and cur is None:
                cur = (n, m.group(1).strip(), [])
            elif m and cur is not None:
                out.append((cur[0], cur[1], "".join(cur[2])))
                cur = None
            elif cur is not None:
                cur[2].append(line)
    return out


def ports(text, portmap):
    for doc, real in portmap:
        text = re.sub(r"(?<!\d)%s(?!\d)" % doc, real, text)
    return text


DUR = r"(?:\d+(?:[.,]\d+)?(?:us|ms|s|m|h|d))+"


def word_pattern(word):
    """A quoted word: a duration ("18s3ms", "5.3ms") stands for any duration, any other
    number in it for any number."""
    if re.fullmatch(DUR, word):
        return DUR
    return "".join(r"\d+(?:[.,]\d+)*" if t[:1].isdigit() else re.escape(t)
                   for t in re.split(r"(\d+(?:[.,]\d+)*)", word) if t)


def line_pattern(line):
    """A quoted output line as a regex, word by word, any run of spaces for any other; a
    line that ends in " ..." is the start of the line it quotes."""
    words, tail = line.split(), r"\s*$"
    if len(words) > 1 and words[-1] == "...":
        words, tail = words[:-1], ""
    return re.compile(r"^\s*" + r"\s+".join(word_pattern(w) for w in words) + tail)


def quoted_in(expected, actual):
    """The first expected line not found in order in actual, or None."""
    lines = actual.splitlines()
    i = 0
    for want in expected.splitlines():
        if not want.strip() or want.strip() == "...":
            continue
        pat = line_pattern(want)
        while i < len(lines) and not pat.match(lines[i]):
            i += 1
        if i == len(lines):
            return want
        i += 1
    return None


def run_doc(doc, work, portmap):
    name = os.path.splitext(os.path.basename(doc))[0]
    wd = os.path.join(work, name)
    os.makedirs(wd, exist_ok=True)
    runs, script = [], ["set -e", "cd " + sh_quote(wd)]
    bl = blocks(doc)
    for k, (line, info, text) in enumerate(bl):
        words = info.split()
        if not words or words[0] not in ("sh", "bash"):
            continue
        needs = [w[6:] for w in words[1:] if w.startswith("needs=")]
        where = f"{doc}:{line}"
        if needs:
            why = [w for n in needs for w in n.split(",")]
            bad = [w for w in why if w not in NEEDS]
            if bad:
                print(f"not ok - {where}: unknown needs={','.join(bad)} (known: {', '.join(NEEDS)})")
            else:
                print(f"ok - {where}: not run here # SKIP needs {', '.join(NEEDS[w] for w in why)}")
            continue
        out = os.path.join(wd, f".block-{line}.out")
        expect = None
        if k + 1 < len(bl) and bl[k + 1][1].split()[:2] == ["text", "output"]:
            expect = ports(bl[k + 1][2], portmap)
        runs.append((where, out, expect))
        script.append(f"exec >{sh_quote(out)} 2>&1")
        script.append(f"echo {sh_quote(where)} >{sh_quote(wd)}/.block")
        script.append(ports(text, portmap))
    script.append(f"exec >{sh_quote(wd)}/.end 2>&1")
    script.append("echo done")
    script.append("kill $(jobs -p) 2>/dev/null || true; wait || true")
    with open(os.path.join(wd, ".script.sh"), "w") as f:
        f.write("\n".join(script) + "\n")
    try:
        p = subprocess.run(["bash", os.path.join(wd, ".script.sh")], cwd=wd, timeout=TIMEOUT_S,
                           start_new_session=True)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    done = os.path.exists(os.path.join(wd, ".end"))
    stopped = open(os.path.join(wd, ".block")).read().strip() if os.path.exists(os.path.join(wd, ".block")) else ""
    for where, out, expect in runs:
        text = open(out).read() if os.path.exists(out) else None
        if text is None:
            print(f"not ok - {where}: not reached (the doc's blocks stopped at {stopped})")
            continue
        if not done and where == stopped:
            print(f"not ok - {where}: failed (status {rc}); its output:")
            print("".join("# " + l + "\n" for l in text.splitlines()[-30:]), end="")
            continue
        print(f"ok - {where} runs")
        if expect is not None:
            miss = quoted_in(expect, text)
            if miss is None:
                print(f"ok - {where}: prints what the text quotes")
            else:
                print(f"not ok - {where}: does not print what the text quotes: {miss.strip()!r}")
                print("".join("# " + l + "\n" for l in text.splitlines()[-30:]), end="")
    if done and rc != 0:
        print(f"not ok - {doc}: its blocks ended with status {rc}")


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings."""
    out, seen, fence = set(), {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if fence or not m:
                continue
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower().replace("`", "")).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


def links(files):
    for md in files:
        bad, n = [], 0
        text = open(md).read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code is not a link
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            n += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if not os.path.exists(full):
                bad.append(f"{target}: no such file")
            elif anchor and (not full.endswith(".md") or anchor not in anchors(full)):
                bad.append(f"{target}: no such heading")
        if bad:
            print(f"not ok - {md}: {len(bad)} of {n} links lead nowhere: {'; '.join(bad)}")
        else:
            print(f"ok - {md}: its {n} links lead somewhere")


def main():
    if sys.argv[1] == "run":
        work, pm = sys.argv[2], [tuple(x.split(":")) for x in sys.argv[3].split(",") if x]
        for doc in sys.argv[4:]:
            run_doc(doc, work, pm)
    elif sys.argv[1] == "links":
        links(sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
