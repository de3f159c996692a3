#!/usr/bin/env python3
"""Every quantity a report shows in two places has one value.

    report_consistency.py REPORT_DIR...

For each report directory (report.json, report.md, details.md, summary.csv) it reads the
comparisons from report.json and finds every place the two Markdown files and the findings
show one of them: the
Verdict table, the Comparison table, the verdict sentences, the throughput, latency and
cost findings; and each run's figures in summary.csv against report.json.  Each is
compared with the JSON value at the precision it is printed with.  And no text is cut
short: every line, list item and table cell of report.md and details.md and every sentence of
report.json (findings, validity, verdicts, designs, methods) has its brackets closed
and does not end on a joiner ("runs 108, 109 and", "30 of 3" cut before its word).  Prints one line per
place checked that disagrees, and the count of places checked; exits 1 on any
disagreement, or when it found nothing to check.
"""
import csv
import json
import os
import re
import sys

PCT = r"([+-]?\d+(?:\.\d+)?)%"


def md_tables(md):
    """{title: [rows as lists of cells]} for every table of report.md."""
    tables, title, rows = {}, None, None
    for line in md.splitlines():
        if line.startswith("## ") or line.startswith("### "):
            title = line.lstrip("#").strip()
            rows = None
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if rows is None:
                rows = tables.setdefault(title, [])
                rows.append(cells)  # header
            elif not all(re.fullmatch(r"-+:?", c) for c in cells):
                rows.append(cells)
        else:
            rows = None if not line.strip() else rows
    return tables


def unesc(s):
    return s.replace("\\_", "_").replace("\\|", "|").replace("&lt;", "<").replace("&amp;", "&")


class Checker:
    def __init__(self, where):
        self.where, self.checked, self.bad = where, 0, []

    def same(self, what, shown, want, tol):
        self.checked += 1
        if shown is None or want is None or abs(shown - want) > tol:
            self.bad.append(f"{self.where}: {what}: shown {shown}, report.json {want}")

    def eq(self, what, shown, want):
        self.checked += 1
        if shown != want:
            self.bad.append(f"{self.where}: {what}: shown {shown!r}, report.json {want!r}")


def change_cell(cell):
    """'+20.8% ± 4.1% (real)' -> (20.8, 4.1, 'real', False); '-0.08 pp ± 0.02 pp (real)' ->
    (-0.08, 0.02, 'real', True); '+9.6% (n/a)' -> (9.6, None, 'n/a', False); the half-width
    written "± 4.1%" or "±4.1%"; the verdict's floor mark (noise†) as noise."""
    m = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)(%| pp)(?: ± ?(\d+(?:\.\d+)?)(?:%| pp))? "
                     r"\((real|noise|n/a)(?:, under the \d+% floor|†)?\)", cell)
    if not m:
        return None
    half = float(m.group(3)) if m.group(3) is not None else None
    return float(m.group(1)), half, m.group(4), m.group(2) == " pp"


def figures(cmp):
    """{column name as the tables head it: diff object} of a JSON comparison."""
    out = {"TPS": cmp["metrics"]["tps"], "avg": cmp["metrics"]["mean"],
           "p99": cmp["metrics"]["p99"], "99%": cmp["metrics"]["p99"],
           "error %": cmp["metrics"]["error"]}
    for src, d in cmp.get("cpu_per_request", {}).items():
        out[f"CPU/request {src}"] = d
    for src, d in cmp.get("memory", {}).items():
        out[f"memory {src}"] = d
    return out


def check_row(ck, what, header, row, cmp):
    figs = figures(cmp)
    for name, cell in zip(header, row):
        if name not in figs or name == "memory":
            continue
        d = figs[name]
        got = change_cell(unesc(cell))
        if got is None:
            continue
        val, half, verdict, points = got
        lo, hi = d["ci95"]
        # The interval's own means where it has one (the change is its centre), else the
        # cells' figures.
        has_ci = lo is not None and hi is not None and d.get("interval_mean_baseline") is not None
        a = d["interval_mean_baseline"] if has_ci else d["baseline"]
        v = d["interval_mean"] if has_ci else d["value"]
        if points:
            want = v - a
            ck.same(f"{what}, {name} (points)", val, want, 0.005 + 1e-6)
            want_half = (hi - lo) / 2 if lo is not None and hi is not None else None
            tol = 0.005 + 1e-3
        else:
            # change_pct carries 3 decimals; the table rounds it to 1.
            ck.same(f"{what}, {name} (%)", val, d.get("change_pct"), 0.05 + 1e-3)
            base = abs(a) if a else None
            want_half = (100 * (hi - lo) / 2 / base
                         if lo is not None and hi is not None and base else None)
            # report.json keeps 4 decimals of the interval's ends and of the baseline.
            tol = 0.05 + 1e-3 + ((100 + (want_half or 0)) * 0.5e-4 / base if base else 0)
        # The half-width shown is the verdict's own interval's (report.json's ci95).
        if half is not None or want_half is not None:
            ck.same(f"{what}, {name} \u00b1", half, want_half, tol)
        ck.eq(f"{what}, {name} verdict", verdict, d["verdict"])


def run_list(phrase):
    """'runs 1-4, 11 and 17-20 (warm-up: 1)' or 'run 3 (warm-up)' -> the run keys."""
    phrase = re.sub(r" \(warm-up[^)]*\)$", "", phrase)
    m = re.fullmatch(r"runs? (.+)", phrase)
    if not m:
        return None
    keys = []
    for item in re.split(r", | and ", m.group(1)):
        a, _, b = item.partition("-")
        if b and a.isdigit() and b.isdigit():
            keys += [str(k) for k in range(int(a), int(b) + 1)]
        else:
            keys.append(item)
    return keys


def check_connection_ranges(ck, fnd, text, runs):
    """'a new connection every A-B requests' and 'only A-B requests per connection' are
    the range of requests / new connections over the label's keep-alive runs that held
    (50 or more a connection) and those that did not, from report.json's figures."""
    held, lost = [], []
    for r in runs:
        f = r["figures"]
        if r["label"] != fnd["label"] or r["connection"] == "close" or not f["requests"]:
            continue
        if f["new_connections"]:
            per = f["requests"] / f["new_connections"]
            (held if per >= 50 else lost).append(per)
    for what, pat, want, dec in (("held", r"a new connection every (\d+)(?:-(\d+))? requests", held, 0),
                                 ("lost", r"only (\d+\.\d)(?:-(\d+\.\d))? requests per connection", lost, 1)):
        m = re.search(pat, text)
        if not want and not m:
            continue
        if not want or not m:
            ck.bad.append(f"connections {fnd['label']} {what}: shown {bool(m)}, report.json {len(want)} runs")
            continue
        tol = 0.5 * 10 ** -dec + 1e-6
        ck.same(f"connections {fnd['label']} {what}: lowest", float(m.group(1)), min(want), tol)
        ck.same(f"connections {fnd['label']} {what}: highest", float(m.group(2) or m.group(1)), max(want), tol)


def check_cost_ranges(ck, fnd, text, runs):
    """Each clause 'at LOAD, SRC: LO-HI ms of CPU per request in RUNS, memory A-B MB on
    average and at most P MB' gives the range of report.json's runs[].cost over RUNS."""
    clause = (r"at [^,;]+, (?:not compared, )?(\S+): (\d+\.\d+)(?:-(\d+\.\d+))? ms of CPU per "
              r"(?:request|iteration) in (runs? (?:[0-9:-]+(?:, | and ))*[0-9:-]+(?: \(warm-up[^)]*\))?)"
              r"(?:, memory (\d+\.\d+)(?:-(\d+\.\d+))? MB on average and at most (\d+\.\d+) MB)?(?=;|\.$)")
    for m in re.finditer(clause, text):
        keys = run_list(m.group(4))
        costs = [runs[k]["cost"] for k in keys or [] if k in runs and runs[k].get("cost")]
        what = f"cost finding {fnd['label']} {m.group(4)}"
        if not keys or len(costs) != len(keys):
            ck.bad.append(f"{what}: runs without a cost in report.json")
            continue
        cpu = [c["cpu_ms_per_request"] for c in costs]
        ck.same(f"{what}: lowest CPU per request", float(m.group(2)), min(cpu), 0.0005 + 1e-4)
        ck.same(f"{what}: highest", float(m.group(3) or m.group(2)), max(cpu), 0.0005 + 1e-4)
        if m.group(5):
            mem = [c["memory_mb"] for c in costs]
            ck.same(f"{what}: lowest memory", float(m.group(5)), min(mem), 0.05 + 1e-3)
            ck.same(f"{what}: highest memory", float(m.group(6) or m.group(5)), max(mem), 0.05 + 1e-3)
            ck.same(f"{what}: peak memory", float(m.group(7)),
                    max(c["memory_peak_mb"] for c in costs), 0.05 + 1e-3)


def shown_pair(d):
    """(baseline, value) a sentence quotes for a figure: its interval's own means where it
    has an interval (the change then is the interval's centre), else the cells' figures."""
    lo, hi = d["ci95"]
    if lo is not None and hi is not None and d.get("interval_mean_baseline") is not None:
        return d["interval_mean_baseline"], d["interval_mean"]
    return d["baseline"], d["value"]


def check_centres(ck, cmps):
    """One estimate, one interval: every change report.json gives is the centre of the
    interval beside it, relative to the interval's own baseline."""
    for i, c in enumerate(cmps):
        figs = {"tps": c["metrics"]["tps"], "mean": c["metrics"]["mean"],
                "p99": c["metrics"]["p99"], "error": c["metrics"]["error"]}
        for src, d in c.get("cpu_per_request", {}).items():
            figs[f"cpu_per_request.{src}"] = d
        for src, d in c.get("memory", {}).items():
            figs[f"memory.{src}"] = d
        for name, d in figs.items():
            lo, hi = d["ci95"]
            base = d.get("interval_mean_baseline")
            if lo is None or hi is None or not base or d.get("change_pct") is None:
                continue
            centre = 100 * (lo + hi) / 2 / abs(base)
            # 4 decimals of the ends and of the baseline, 3 of the change.
            tol = 1e-3 + 100 * 1e-4 / abs(base) * (1 + abs(centre) / 100)
            ck.same(f"comparison {i} {name}: change_pct is its interval's centre",
                    d["change_pct"], centre, tol)


# A text that stops where a list or a clause goes on: "and", "or", "of", a comma, a
# semicolon or an open bracket as its last word, with or without a full stop after it.
CUT_END = re.compile(r"(?:,|;|\(|\[| and| or| of| than| the)\.?$")


def check_cut(ck, what, text, sentence=False):
    """One place of text: its brackets close and it ends as written (a sentence with its
    full stop)."""
    ck.checked += 1
    t = re.sub(r"`[^`]*`", "``", unesc(text)).strip()
    if t.endswith("…"):
        return  # shortened on purpose, and marked so (a profile's frame name)
    if t.count("(") != t.count(")") or t.count("[") != t.count("]") or text.count("`") % 2:
        ck.bad.append(f"{ck.where}: {what}: brackets left open (cut short?): {text[-80:]!r}")
    elif CUT_END.search(t):
        ck.bad.append(f"{ck.where}: {what}: ends on a joiner (cut short?): {text[-80:]!r}")
    elif sentence and not re.search(r"[.!?]\)?$", t):
        ck.bad.append(f"{ck.where}: {what}: no full stop (cut short?): {text[-80:]!r}")


def check_no_cut(ck, files, j):
    """Every line, item and cell of report.md and details.md, every sentence of report.json."""
    for name, md in files:
        for n, line in enumerate(md.splitlines(), 1):
            if line.startswith("|"):
                for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]:
                    if c.strip():
                        check_cut(ck, f"{name}:{n} cell", c.strip())
            elif line.strip() and not line.startswith(("```", "![", "<")):
                check_cut(ck, f"{name}:{n}", line.strip().lstrip("-* ").rstrip())
    texts = [("finding", f.get("text", "")) for f in j.get("findings", [])]
    texts += [("validity", v.get("text", "")) for v in j.get("validity", [])]
    texts += [("verdict", v.get("sentence", "")) for v in j.get("verdict", [])]
    texts += [("verdict memory", v.get("memory", "")) for v in j.get("verdict", [])]
    texts += [("design", s.get("design", "")) for s in j.get("studies", [])]
    texts += [("method", c.get("method", "")) for c in j.get("comparisons", [])]
    for what, t in texts:
        if t:
            check_cut(ck, f"report.json {what}", t, what != "verdict memory")


def main():
    total, bad = 0, []
    for rd in sys.argv[1:]:
        with open(f"{rd}/report.json") as f:
            j = json.load(f)
        with open(f"{rd}/report.md") as f:
            md = f.read()
        details = ""
        if os.path.exists(f"{rd}/details.md"):  # the detail tables (report.md links them)
            with open(f"{rd}/details.md") as f:
                details = f.read()
        ck = Checker(rd)
        check_no_cut(ck, [("report.md", md), ("details.md", details)], j)
        tables = {**md_tables(details), **md_tables(md)}
        cmps = j["comparisons"]
        check_centres(ck, cmps)
        comp = tables.get("Comparison", [])
        at_of = {}
        if comp:
            header, rows = comp[0], comp[1:]
            ck.eq("Comparison table rows", len(rows), len(cmps))
            for i, (row, cmp) in enumerate(zip(rows, cmps)):
                at = unesc(row[0])
                at_of[i] = at
                ck.eq(f"Comparison row {i} label", unesc(row[1]), cmp["label"])
                check_row(ck, f"Comparison row {i}", header, row, cmp)
        verdict = tables.get("Verdict", [])
        where = {(cmps[i]["label"], at): cmps[i] for i, at in at_of.items()}
        # The verdict's at may be the level alone ("30 users"; its runs are in the note):
        # then the row is the one of the label's verdict comparisons at that level.
        for v in j["verdict"]:
            for k in ("comparison", "rate_comparison"):
                i = v.get(k)
                if i is not None and i in at_of:
                    where.setdefault((v["label"], at_of[i].split(" (")[0]), cmps[i])
        if verdict:
            header, rows = verdict[0], verdict[1:]
            # Each row is a label at a level: capacity, and efficiency at a fixed rate.
            for row in rows:
                label, at = unesc(row[0]), unesc(row[1])
                if label.endswith(" (baseline)"):
                    continue
                c = where.get((label, at))
                if c is None:
                    ck.bad.append(f"{rd}: Verdict row {label} at {at}: no such comparison")
                    continue
                check_row(ck, f"Verdict row {label} at {at}", header, row, c)
            for v in j["verdict"]:
                if v["comparison"] is None:
                    continue
                c = cmps[v["comparison"]]
                # The verdict's CPU per request in report.json is that comparison's.
                for src, d in v["cpu_ms_per_request"].items():
                    ck.same(f"verdict {v['label']} cpu_ms_per_request.{src}", d["value"],
                            c["cpu_per_request"][src]["value"], 1e-4)
                # Its sentence: TPS change and CPU per request changes.
                s = v["sentence"]
                t = c["metrics"]["tps"]
                pct = t.get("change_pct")
                m = re.search(r"serves (\d+(?:\.\d+)?)% (more|fewer) requests per second", s)
                if m:
                    ck.same(f"sentence {v['label']} TPS", float(m.group(1)) * (1 if m.group(2) == "more" else -1), pct, 0.05 + 1e-3)
                    ck.eq(f"sentence {v['label']} TPS verdict", "real", t["verdict"])
                m = re.search(r"within noise \(" + PCT + r"\)", s)
                if m:
                    ck.same(f"sentence {v['label']} TPS", float(m.group(1)), pct, 0.05 + 1e-3)
                    ck.eq(f"sentence {v['label']} TPS verdict", "noise", t["verdict"])
                for m in re.finditer(r"(\d+(?:\.\d+)?)% (more|less) CPU per request on (\S+) \(real\)", s):
                    d = c["cpu_per_request"][m.group(3)]
                    want = d.get("change_pct")
                    ck.same(f"sentence {v['label']} CPU {m.group(3)}", float(m.group(1)) * (1 if m.group(2) == "more" else -1), want, 0.05 + 1e-3)
                    ck.eq(f"sentence {v['label']} CPU {m.group(3)} verdict", "real", d["verdict"])
                # The stated resolution is the verdict's own interval.
                res = c.get("resolve", {}).get("tps", {})
                m = re.search(r"resolves TPS to ±(\d+(?:\.\d+)?)%", s)
                if m or res.get("half_pct") is not None:
                    ck.same(f"sentence {v['label']} resolution", float(m.group(1)) if m else None,
                            res.get("half_pct"), 0.05 + 1e-3)
                    lo, hi = t["ci95"]
                    ck.same(f"{v['label']} resolution is the TPS interval", res.get("half_pct"),
                            100 * (hi - lo) / 2 / abs(shown_pair(t)[0]), 1e-2)
        # Findings: every comparison they quote, by where it was and which label.
        for fnd in j["findings"]:
            text = fnd["text"]
            if fnd["kind"] == "throughput":
                for m in re.finditer(r"at ([^;:]+?\)) (\d+(?:\.\d+)?) vs (\d+(?:\.\d+)?) TPS \(([^,]+), (real|noise|n/a)\)", text):
                    c = where.get((fnd["label"], m.group(1)))
                    if c is None:
                        ck.bad.append(f"{rd}: throughput finding quotes no comparison: at {m.group(1)}")
                        continue
                    t = c["metrics"]["tps"]
                    tb, tv = shown_pair(t)
                    ck.same(f"throughput finding {fnd['label']} at {m.group(1)}", float(m.group(2)), tv, 0.05 + 1e-3)
                    ck.same(f"throughput finding {fnd['label']} at {m.group(1)} baseline", float(m.group(3)), tb, 0.05 + 1e-3)
                    ck.eq(f"throughput finding {fnd['label']} verdict", m.group(5), t["verdict"])
            if fnd["kind"] == "latency":
                for m in re.finditer(r"at ([^;:]+?\)) mean (\d+(?:\.\d+)?) ms vs (\d+(?:\.\d+)?) ms \([^,]+, (real|noise|n/a)\), p99 (\d+(?:\.\d+)?) ms vs (\d+(?:\.\d+)?) ms \([^,]+, (real|noise|n/a)\)", text):
                    c = where.get((fnd["label"], m.group(1)))
                    if c is None:
                        continue
                    mean, p99 = c["metrics"]["mean"], c["metrics"]["p99"]
                    tol = lambda x: 0.005 + 1e-3 if x < 10 else 0.05 + 1e-3
                    mb, mv = shown_pair(mean)
                    pb, pv = shown_pair(p99)
                    ck.same(f"latency finding {fnd['label']} mean", float(m.group(2)), mv, tol(mv))
                    ck.same(f"latency finding {fnd['label']} mean baseline", float(m.group(3)), mb, tol(mb))
                    ck.eq(f"latency finding {fnd['label']} mean verdict", m.group(4), mean["verdict"])
                    ck.same(f"latency finding {fnd['label']} p99", float(m.group(5)), pv, tol(pv))
                    ck.eq(f"latency finding {fnd['label']} p99 verdict", m.group(7), p99["verdict"])
            if fnd["kind"] == "connections":
                check_connection_ranges(ck, fnd, text, j["runs"])
            if fnd["kind"] == "cost":
                check_cost_ranges(ck, fnd, text, {r["key"]: r for r in j["runs"]})
                m = re.search(r"against \S+ at (.+?\)) \(the verdict's compared runs\): (.*)\.$", text)
                if not m:
                    continue
                c = where.get((fnd["label"], m.group(1)))
                if c is None:
                    ck.bad.append(f"{rd}: cost finding quotes no comparison: at {m.group(1)}")
                    continue
                for x in re.finditer(r"(\S+) (\d+\.\d+)x the CPU per request \((\d+\.\d+) vs (\d+\.\d+) ms, [^,]+, (real|noise|n/a)\)", m.group(2)):
                    d = c["cpu_per_request"][x.group(1)]
                    db, dv = shown_pair(d)
                    ck.same(f"cost finding {fnd['label']} {x.group(1)}", float(x.group(3)), dv, 0.0005 + 1e-4)
                    ck.same(f"cost finding {fnd['label']} {x.group(1)} baseline", float(x.group(4)), db, 0.0005 + 1e-4)
                    ck.eq(f"cost finding {fnd['label']} {x.group(1)} verdict", x.group(5), d["verdict"])
        # Each run's figures: summary.csv against report.json (one-step runs).
        with open(f"{rd}/summary.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        for run in j["runs"]:
            steps = [r for r in rows if r["run"] == run["key"]]
            if len(steps) != 1 or not steps[0]["tps"]:
                continue
            ck.same(f"run {run['key']} TPS in summary.csv", float(steps[0]["tps"]), run["figures"]["tps"], 0.0005 + 1e-6)
            ck.same(f"run {run['key']} error % in summary.csv", float(steps[0]["error_pct"]), run["figures"]["error_pct"], 0.00005 + 1e-6)
        total += ck.checked
        bad += ck.bad
        print(f"# {rd}: {ck.checked} places checked, {len(ck.bad)} disagree")
    for b in bad:
        print(b)
    if bad or total == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
