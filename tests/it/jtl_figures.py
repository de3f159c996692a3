#!/usr/bin/env python3
"""The figures of a JMeter result file, computed straight from it, for checking what
`soak import jmeter` recorded.  Independent of soak's C code: Python's csv, gzip and XML
parsers, and HdrHistogram's and JMeter 2.13's percentile rules written out again here.

  jtl_figures.py FILE [--from MS] [--to MS] [--interval MS] [--windows FROM:TO,...]

Samples are placed by their end (timeStamp + elapsed), as the import does; --from/--to keep
those ending in [from, to).  Prints one JSON object:
  requests, errors, error classes, and over every sample's elapsed (failed ones too, as
  JMeter counts them) p50/p90/p95/p99/max and mean in ms as soak reports them (HDR, 3
  significant digits, microseconds);
  "jmeter": JMeter 2.13's Aggregate Report TOTAL row over the same samples (samples,
  average, median, 90/95/99 % lines, min, max, error fraction, throughput), by its rules:
  the mean cut to a whole ms, percentiles at Math.round(count * (double)(P f / 100 f));
  the allThreads values seen with the first end of a sample at each;
  "origin": the earliest sample start; with --interval the requests per interval, the
  intervals starting at the origin, a last remainder under half an interval joining the
  one before (keys: interval starts, ms); with --windows, "windows": the figures of the
  samples ending in each [FROM, TO), in order (one reading of the file for them all).
"""
import csv
import gzip
import io
import json
import math
import struct
import sys
import xml.etree.ElementTree as ET

DEFAULT_2_13 = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage",
                "threadName", "dataType", "success", "bytes", "grpThreads", "allThreads",
                "Latency"]


def open_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def samples(path):
    """(start_ms, end_ms, elapsed_ms, success, code, all_threads) of each top-level sample."""
    text = open_text(path)
    if text.lstrip().startswith("<"):
        # Top-level samples are the root's children; nested ones belong to them.
        root = ET.fromstring(text)
        for el in root:
            if el.tag in ("sample", "httpSample"):
                ts, t = int(el.get("ts")), int(el.get("t"))
                yield ts, ts + t, t, el.get("s") == "true", el.get("rc", ""), int(el.get("na", -1))
        return
    f = io.StringIO(text, newline="")
    first = f.readline()
    f.seek(0)
    if "timeStamp" in first:
        rows = csv.DictReader(f)
    else:
        rows = csv.DictReader(f, fieldnames=DEFAULT_2_13)
    for r in rows:
        ts, t = int(r["timeStamp"]), int(r["elapsed"])
        yield ts, ts + t, t, r["success"] == "true", r["responseCode"], int(r["allThreads"])


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


def java_float_percent(p):
    """JMeter's percent: Float.parseFloat("90") / 100 in float, widened to double."""
    return struct.unpack("f", struct.pack("f", p / 100.0))[0]


def jmeter_point(sorted_ms, percent):
    """StatCalculator.getPercentPoint: target = Math.round(count * percent), the first value
    whose cumulative count reaches it."""
    n = len(sorted_ms)
    if percent >= 1.0:
        return sorted_ms[-1]
    x = n * percent
    target = math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)
    return sorted_ms[max(target, 1) - 1]


def error_class(code):
    if code.isdigit():
        c = int(code)
        return "http_5xx" if 500 <= c < 600 else "http_4xx" if 400 <= c < 500 else "other_status"
    if "ConnectException" in code:
        return "connect_refused"
    return "other"


def figures(rows):
    """requests, errors, classes, HDR percentiles and JMeter's TOTAL row of rows."""
    n = errs = 0
    lat, ms, classes, threads, first_end = [], [], {}, set(), {}
    first_start, last_end = None, None
    for start, end, t, ok, code, na in rows:
        n += 1
        threads.add(na)
        first_end[na] = min(end, first_end.get(na, end))
        first_start = start if first_start is None else min(first_start, start)
        last_end = end if last_end is None else max(last_end, end)
        if not ok:
            errs += 1
            c = error_class(code)
            classes[c] = classes.get(c, 0) + 1
        lat.append(t * 1000)
        ms.append(t)
    lat.sort()
    ms.sort()
    out = {"requests": n, "errors": errs, "classes": classes, "threads": sorted(threads),
           "first_end": {str(k): v for k, v in sorted(first_end.items())}}
    if lat:
        for p in (50, 90, 95, 99):
            out["p%d_ms" % p] = "%.3f" % (percentile(lat, p) / 1000)
        out["max_ms"] = "%.3f" % (highest_equivalent_us(lat[-1]) / 1000)
        out["mean_ms"] = "%.3f" % (sum(lat) / len(lat) / 1000)
        span = last_end - first_start
        out["jmeter"] = {
            "samples": n, "average": int(sum(ms) / n), "median": jmeter_point(ms, 0.5),
            "p90": jmeter_point(ms, java_float_percent(90)),
            "p95": jmeter_point(ms, java_float_percent(95)),
            "p99": jmeter_point(ms, java_float_percent(99)),
            "min": ms[0], "max": ms[-1], "error_frac": errs / n,
            "rate": n / span * 1000 if span > 0 else None}
    return out


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    lo, hi, interval, windows = -1, 2**62, 0, []
    while args:
        k, v = args.pop(0), args.pop(0)
        if k == "--from":
            lo = int(v)
        elif k == "--to":
            hi = int(v)
        elif k == "--interval":
            interval = int(v)
        elif k == "--windows":
            windows = [tuple(int(x) for x in w.split(":")) for w in v.split(",") if w]
    every = list(samples(path))
    origin = min(s[0] for s in every)
    end_all = max(s[1] for s in every) + 1
    kept = [s for s in every if lo <= s[1] < hi]
    out = figures(kept)
    out["origin"] = origin
    if windows:
        out["windows"] = [figures([s for s in every if a <= s[1] < b]) for a, b in windows]
    if interval:
        count = max(1, -(-(end_all - origin) // interval))
        if count >= 2 and (end_all - origin - (count - 1) * interval) * 2 < interval:
            count -= 1
        per_iv = {}
        for s in kept:
            k = min((s[1] - origin) // interval, count - 1) * interval + origin
            per_iv[k] = per_iv.get(k, 0) + 1
        out["per_interval"] = {str(k): v for k, v in sorted(per_iv.items())}
        out["intervals"] = count
    json.dump(out, sys.stdout, sort_keys=True)
    print()


main()
