#!/usr/bin/python3
"""Checks Kubernetes manifests without a cluster, with what Debian ships: python3-kubernetes
(the official client's generated API models) and python3-yaml.

Each document is read into the model of its kind (V1Job, V1ConfigMap, ...) by the client's
own deserializer, which refuses a missing required field or a value of the wrong type, and
written back: a field the model does not know (a typo such as `completion` or
`restartpolicy`) is dropped on the way, so any key of the file that did not come back is an
error.  Then what deploy/k8s relies on: the agents' Job is Indexed with completions =
parallelism = N, --agents and SOAK_AGENTS say N too, pods are never restarted, and the merge
Job mounts the same claim.  Prints `FILE: ok` or `FILE: DOC: what is wrong`; exit 1 on any
error.  (Debian's kubectl, package kubernetes-client, validates only against a live API
server; the client's models are the schema that ships without one.)

    /usr/bin/python3 deploy/k8s/validate.py deploy/k8s/study.yaml
"""
import re
import sys

import yaml
from kubernetes import client

MODELS = {
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("v1", "Service"): "V1Service",
    ("batch/v1", "Job"): "V1Job",
}


def lost_keys(orig, back, path):
    """Keys of orig that did not survive the round trip through the model."""
    errs = []
    if isinstance(orig, dict):
        if not isinstance(back, dict):
            return ["%s: expected an object" % path]
        for k, v in orig.items():
            if k not in back:
                errs.append("%s.%s: unknown field" % (path, k))
            else:
                errs += lost_keys(v, back[k], "%s.%s" % (path, k))
    elif isinstance(orig, list):
        if not isinstance(back, list) or len(back) != len(orig):
            return ["%s: expected a list" % path]
        for i, (a, b) in enumerate(zip(orig, back)):
            errs += lost_keys(a, b, "%s[%d]" % (path, i))
    return errs


def env_of(container):
    return {e.name: e.value for e in (container.env or []) if e.value is not None}


def check_agents(job):
    """The Indexed Job of the agents."""
    errs, spec = [], job.spec
    if spec.completion_mode != "Indexed":
        errs.append("spec.completionMode: must be Indexed (JOB_COMPLETION_INDEX gives K)")
    if spec.completions is None or spec.completions != spec.parallelism:
        errs.append("spec.completions (%s) and spec.parallelism (%s) must be equal: every agent "
                    "runs at once" % (spec.completions, spec.parallelism))
    if spec.template.spec.restart_policy != "Never":
        errs.append("spec.template.spec.restartPolicy: must be Never")
    for c in spec.template.spec.containers:
        text = " ".join((c.command or []) + (c.args or []))
        env = env_of(c)
        m = re.search(r"--agents\s+\"?\$?\{?(\w+)", text)
        if "--agent auto" not in text:
            errs.append("container %s: runs no `soak run --agent auto`" % c.name)
        if not m:
            errs.append("container %s: --agents N is missing" % c.name)
            continue
        n = env.get(m.group(1), m.group(1))
        if str(n) != str(spec.completions):
            errs.append("container %s: --agents %s disagrees with completions %s"
                        % (c.name, n, spec.completions))
    return errs


def claims(job):
    return {v.persistent_volume_claim.claim_name for v in job.spec.template.spec.volumes or []
            if v.persistent_volume_claim}


def main(paths):
    api = client.ApiClient()
    bad = 0
    for path in paths:
        errs, jobs = [], []
        try:
            docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print("%s: %s" % (path, e))
            bad += 1
            continue
        for i, doc in enumerate(docs, 1):
            where = "document %d (%s %s)" % (i, doc.get("kind"), doc.get("metadata", {}).get("name"))
            model = MODELS.get((doc.get("apiVersion"), doc.get("kind")))
            if not model:
                errs.append("%s: unknown apiVersion/kind" % where)
                continue
            try:
                obj = api._ApiClient__deserialize(doc, model)
            except (ValueError, TypeError) as e:
                errs.append("%s: %s" % (where, e))
                continue
            back = api.sanitize_for_serialization(obj)
            errs += ["%s: %s" % (where, e) for e in lost_keys(doc, back, doc["kind"])]
            if doc["kind"] == "Job":
                jobs.append((where, obj))
        indexed = [(w, j) for w, j in jobs if j.spec.completion_mode == "Indexed"]
        for where, job in indexed:
            errs += ["%s: %s" % (where, e) for e in check_agents(job)]
        if jobs and not indexed:
            errs.append("no Indexed Job of agents")
        shared = set.intersection(*[claims(j) for _, j in jobs]) if jobs else set()
        if len(jobs) > 1 and not shared:
            errs.append("the Jobs share no persistent volume claim: the merge cannot see the "
                        "agents' files")
        for e in errs:
            print("%s: %s" % (path, e))
        if not errs:
            print("%s: ok (%d documents)" % (path, len(docs)))
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: validate.py MANIFEST.yaml...")
    sys.exit(main(sys.argv[1:]))
