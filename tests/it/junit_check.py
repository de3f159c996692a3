#!/usr/bin/env python3
"""Reads a JUnit XML file the way a CI system does and checks it against the JUnit schema
the common CI systems accept (the one of Jenkins' JUnit plugin and Maven Surefire's
reports, stated as rules below), then prints what it holds as JSON for the test to assert:

  {"tests": N, "failures": N, "errors": N, "skipped": N,
   "suites": [{"name", "tests", "failures", "errors", "skipped", "properties": {...},
               "cases": [{"classname", "name", "time", "kind": "passed|failure|error|
                          skipped", "type", "message", "text", "out"}]}]}

Exit status 1 with the rule broken on stderr when the file does not conform.

    junit_check.py FILE
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

# Attributes each element may carry (required ones in the second set).
ATTRS = {
    "testsuites": ({"name", "tests", "failures", "errors", "disabled", "time"}, set()),
    "testsuite": ({"name", "tests", "failures", "errors", "skipped", "disabled", "time",
                   "timestamp", "hostname", "id", "package", "file", "log", "url", "version"},
                  {"name", "tests"}),
    "properties": (set(), set()),
    "property": ({"name", "value"}, {"name", "value"}),
    "testcase": ({"name", "classname", "time", "assertions", "status", "file", "line"},
                 {"name"}),
    "skipped": ({"message", "type"}, set()),
    "failure": ({"message", "type"}, set()),
    "error": ({"message", "type"}, set()),
    "system-out": (set(), set()),
    "system-err": (set(), set()),
}
# Children, in the order the schema's sequences allow: (name, at most) pairs.
SEQ = {
    "testsuites": [("testsuite", None)],
    "testsuite": [("properties", 1), ("testcase", None), ("system-out", 1), ("system-err", 1)],
    "properties": [("property", None)],
    "property": [],
    "testcase": [("skipped", 1), ("error", None), ("failure", None), ("system-out", None),
                 ("system-err", None)],
    "skipped": [], "failure": [], "error": [], "system-out": [], "system-err": [],
}
INT = re.compile(r"^[0-9]+$")
DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?$")
DATETIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$")


class Bad(Exception):
    pass


def check(el, path):
    """Checks el and its subtree against ATTRS and SEQ."""
    tag = el.tag
    where = f"{path}/{tag}"
    if tag not in ATTRS:
        raise Bad(f"{where}: element not in the schema")
    allowed, required = ATTRS[tag]
    for a in el.attrib:
        if a not in allowed:
            raise Bad(f"{where}: attribute '{a}' not in the schema")
    for a in required:
        if a not in el.attrib:
            raise Bad(f"{where}: required attribute '{a}' missing")
    for a in ("tests", "failures", "errors", "skipped", "disabled"):
        if a in el.attrib and not INT.match(el.attrib[a]):
            raise Bad(f"{where}: {a}='{el.attrib[a]}' is not a non-negative integer")
    if "time" in el.attrib and not DECIMAL.match(el.attrib["time"]):
        raise Bad(f"{where}: time='{el.attrib['time']}' is not a decimal of seconds")
    if "timestamp" in el.attrib and not DATETIME.match(el.attrib["timestamp"]):
        raise Bad(f"{where}: timestamp='{el.attrib['timestamp']}' is not YYYY-MM-DDThh:mm:ss")
    seq, pos, count = SEQ[tag], 0, 0
    for child in el:
        while pos < len(seq) and seq[pos][0] != child.tag:
            pos, count = pos + 1, 0
        if pos == len(seq):
            raise Bad(f"{where}: <{child.tag}> not allowed here (or out of order)")
        count += 1
        if seq[pos][1] is not None and count > seq[pos][1]:
            raise Bad(f"{where}: more than {seq[pos][1]} <{child.tag}>")
        check(child, where)
    if not seq and tag in ("property",) and (el.text or "").strip():
        raise Bad(f"{where}: no text allowed")


def case_of(tc):
    kind, node = "passed", None
    for k in ("failure", "error", "skipped"):
        n = tc.find(k)
        if n is not None:
            kind, node = k, n
            break
    out = tc.find("system-out")
    return {
        "classname": tc.get("classname"),
        "name": tc.get("name"),
        "time": float(tc.get("time", "0")),
        "kind": kind,
        "type": node.get("type") if node is not None else None,
        "message": node.get("message") if node is not None else None,
        "text": (node.text or "") if node is not None else None,
        "out": out.text if out is not None else None,
    }


def main():
    tree = ET.parse(sys.argv[1])
    root = tree.getroot()
    check(root, "")
    suites = [root] if root.tag == "testsuite" else list(root)
    res = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "suites": []}
    for s in suites:
        cases = [case_of(tc) for tc in s.findall("testcase")]
        counts = {
            "tests": len(cases),
            "failures": sum(c["kind"] == "failure" for c in cases),
            "errors": sum(c["kind"] == "error" for c in cases),
            "skipped": sum(c["kind"] == "skipped" for c in cases),
        }
        for k, v in counts.items():
            if k in s.attrib and int(s.attrib[k]) != v:
                raise Bad(f"testsuite '{s.get('name')}': {k}={s.attrib[k]} but {v} cases")
        props = {p.get("name"): p.get("value") for p in s.findall("properties/property")}
        res["suites"].append({"name": s.get("name"), **counts, "properties": props,
                              "cases": cases})
        for k, v in counts.items():
            res[k] += v
    if root.tag == "testsuites":
        for k in ("tests", "failures", "errors"):
            if k in root.attrib and int(root.attrib[k]) != res[k]:
                raise Bad(f"testsuites: {k}={root.attrib[k]} but the suites hold {res[k]}")
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    try:
        main()
    except (Bad, ET.ParseError) as e:
        print(f"junit_check: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
