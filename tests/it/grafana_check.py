#!/usr/bin/env python3
"""Checks a Grafana dashboard's PromQL against a live Prometheus: every panel target's
expression and every template variable's query, with Grafana's variables filled in as
Grafana would ($__rate_interval, the dashboard's own variables as "all"), evaluated at one
instant, must be valid and return data.  Prints one TAP line per expression.

    grafana_check.py PROMETHEUS_URL UNIX_TIME RATE_INTERVAL DASHBOARD.json [YAML...]

YAML files (provisioning examples) are read too and must be Grafana provisioning files
(apiVersion 1, with datasources or providers).
"""
import json
import re
import sys
import urllib.parse
import urllib.request

failures = 0


def tap(ok, name, detail=""):
    global failures
    if ok:
        print(f"ok - {name}")
    else:
        failures += 1
        print(f"not ok - {name}: {detail}")


def query(base, expr, at):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": at})
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:  # a bad expression: 400 with its error
        body = json.load(e)
    if body.get("status") != "success":
        return None, body.get("error", "no answer")
    return body["data"]["result"], None


def fill(expr, rate_interval, variables):
    expr = expr.replace("$__rate_interval", rate_interval)
    expr = expr.replace("$__interval", rate_interval)
    for v in variables:
        expr = expr.replace("${%s}" % v, ".*").replace("$" + v, ".*")
    return expr


def main():
    base, at, rate_interval, path = sys.argv[1:5]
    dash = json.load(open(path))
    variables = [v["name"] for v in dash.get("templating", {}).get("list", [])]
    tap(dash.get("uid") and dash.get("title"), "dashboard has a uid and a title")
    n = 0
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q.strip())
        if not m:
            tap(False, f"variable {v['name']}", f"unknown query '{q}'")
            continue
        res, err = query(base, fill(m.group(1), rate_interval, variables), at)
        tap(res and all(m.group(2) in r["metric"] for r in res),
            f"variable ${v['name']}: {q} has values", err or "no series with that label")
    for p in dash["panels"]:
        for t in p.get("targets", []):
            n += 1
            expr = fill(t["expr"], rate_interval, variables)
            res, err = query(base, expr, at)
            name = f"panel '{p['title']}' {t['refId']}: returns data"
            tap(bool(res), name, err or f"no data for {expr}")
            ds = t.get("datasource", p.get("datasource", {}))
            if ds.get("uid") != "${datasource}":
                tap(False, f"panel '{p['title']}' {t['refId']} uses the datasource variable",
                    str(ds))
    tap(n >= 10, f"the dashboard has its panels ({n} expressions)")
    for y in sys.argv[5:]:
        try:
            import yaml
            doc = yaml.safe_load(open(y))
            ok = doc.get("apiVersion") == 1 and ("datasources" in doc or "providers" in doc)
            tap(ok, f"{y.rsplit('/', 1)[-1]} is a Grafana provisioning file", str(doc)[:200])
        except Exception as e:  # noqa: BLE001 - any failure to read is the test's failure
            tap(False, f"{y} reads as YAML", str(e))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
