#!/usr/bin/env python3
"""The figures of a JMeter result file, computed straight from it, for checking what
`soak import jmeter` recorded.  Independent of soak's C code: Python's csv and XML parsers,
and HdrHistogram's percentile rule written out again here.

  jtl_figures.py FILE [--from MS] [--to MS] [--interval MS]

Samples are placed by their end (timeStamp + elapsed), as the import does; --from/--to keep
those ending in [from, to).  Prints one JSON object: requests, errors, answered (numeric
response code), error classes, p50/p90/p95/p99/max and mean of elapsed over the answered
samples in ms as soak reports them (HDR, 3 significant digits, microseconds), the
allThreads values seen with the first end of a sample at each, and with --interval the
requests per interval start.
"""
import csv
import json
import sys
import xml.etree.ElementTree as ET

DEFAULT_2_13 = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage",
                "threadName", "dataType", "success", "bytes", "grpThreads", "allThreads",
                "Latency"]


def samples(path):
    """(end_ms, elapsed_ms, success, code, all_threads) of each top-level sample."""
    with open(path, "rb") as f:
        head = f.read(64).lstrip()
    if head.startswith(b"<"):
        # Top-level samples are the root's children; nested ones belong to them.
        root = ET.parse(path).getroot()
        for el in root:
            if el.tag in ("sample", "httpSample"):
                ts, t = int(el.get("ts")), int(el.get("t"))
                yield ts + t, t, el.get("s") == "true", el.get("rc", ""), int(el.get("na", -1))
        return
    with open(path, newline="") as f:
        first = f.readline()
        f.seek(0)
        if "timeStamp" in first:
            rows = csv.DictReader(f)
        else:
            rows = csv.DictReader(f, fieldnames=DEFAULT_2_13)
        for r in rows:
            ts, t = int(r["timeStamp"]), int(r["elapsed"])
            yield ts + t, t, r["success"] == "true", r["responseCode"], int(r["allThreads"])


def highest_equivalent_us(v):
    """HdrHistogram (1 us .. 1 h, 3 digits: 2048 sub-buckets): the top of v's bucket."""
    shift = max(0, v.bit_length() - 11)
    return ((v >> shift) << shift) + (1 << shift) - 1


def percentile(sorted_us, p):
    """HdrHistogram_c's rule: rank = (int)(p/100 * n + 0.5), at least 1."""
    n = len(sorted_us)
    r = p / 100 * n + 0.5
    rank = n if r >= n else int(r)
    rank = max(rank, 1)
    return highest_equivalent_us(sorted_us[rank - 1])


def error_class(code):
    if code.isdigit():
        c = int(code)
        return "http_5xx" if 500 <= c < 600 else "http_4xx" if 400 <= c < 500 else "other_status"
    if "ConnectException" in code:
        return "connect_refused"
    return "other"


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    lo, hi, interval = -1, 2**62, 0
    while args:
        k, v = args.pop(0), int(args.pop(0))
        if k == "--from":
            lo = v
        elif k == "--to":
            hi = v
        elif k == "--interval":
            interval = v
    n = errs = 0
    lat, classes, threads, per_iv, first_end = [], {}, set(), {}, {}
    for end, t, ok, code, na in samples(path):
        if not lo <= end < hi:
            continue
        n += 1
        threads.add(na)
        first_end[na] = min(end, first_end.get(na, end))
        if interval:
            k = end // interval * interval
            per_iv[k] = per_iv.get(k, 0) + 1
        if not ok:
            errs += 1
            c = error_class(code)
            classes[c] = classes.get(c, 0) + 1
        if code.isdigit():
            lat.append(t * 1000)
    lat.sort()
    out = {"requests": n, "errors": errs, "answered": len(lat), "classes": classes,
           "threads": sorted(threads),
           "first_end": {str(k): v for k, v in sorted(first_end.items())}}
    if lat:
        for p in (50, 90, 95, 99):
            out["p%d_ms" % p] = "%.3f" % (percentile(lat, p) / 1000)
        out["max_ms"] = "%.3f" % (highest_equivalent_us(lat[-1]) / 1000)
        out["mean_ms"] = "%.3f" % (sum(lat) / len(lat) / 1000)
    if interval:
        out["per_interval"] = {str(k): v for k, v in sorted(per_iv.items())}
    json.dump(out, sys.stdout, sort_keys=True)
    print()


main()
