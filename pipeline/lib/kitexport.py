# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/kitexport.py: a run's results for a QA dashboard (pipeline/results
# export): summary.json, one file a run (targets x trees x suites, the A/B
# verdicts with their regressions, the packages with their SHA-256 and
# lint verdicts, the kit's commit, the compiler and QEMU), and kcidb.json,
# the same run in KernelCI's KCIDB I/O shape (pipeline/lib/kitkcidb.py).
# Both are checked before they are written: summary.json against
# tests/data/summary.schema.json, kcidb.json by kitkcidb's check.

import functools
import hashlib
import json
import os
import subprocess

from kitresults import TOP, die, load, records, schema_errors

ORIGIN = "rxkit"


# Once a run: summary() and kcidb() both name the kit, the compiler and QEMU.
@functools.lru_cache(maxsize=None)
def first_line(cmd):
    """The first line a command (a tuple) prints."""
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""
    return out.split("\n", 1)[0].strip()


def kit_commit():
    return first_line(("git", "-C", TOP, "describe", "--always", "--dirty", "--abbrev=12"))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def targets():
    return sorted(t for t in os.listdir(os.path.join(TOP, "series"))
                  if os.path.isfile(os.path.join(TOP, "series", t, "base")))


def suites_of(out, target):
    """{tree folder: {suite: results}} of a target's results.json files."""
    found = {}
    top = os.path.join(out, target)
    for tree in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        d = os.path.join(top, tree)
        for s in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            p = os.path.join(d, s, "results.json")
            if os.path.isfile(p):
                found.setdefault(tree, {})[s] = load(p)
    return found


def run_records(out):
    """The stage records of the run under OUT (none without OUT/check)."""
    d = os.path.join(out, "check")
    return records(d) if os.path.isdir(d) else []


def stage_of(recs, name):
    return next((r for r in recs if r["stage"] == name), None)


def verdict_lines(rec):
    """The regressions, missing and mismatched suites an ab-verdict log names."""
    if not rec or not os.path.isfile(rec.get("log", "")):
        return []
    with open(rec["log"], errors="replace") as f:
        return [l.rstrip("\n") for l in f
                if l.startswith(("REGRESSION ", "KNOWN REGRESSION ", "MISSING ", "MISMATCH "))]


def packages_of(out, target):
    d = os.path.join(out, target, "packages")
    pk, lint = [], {}
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        p = os.path.join(d, f)
        if f.endswith((".deb", ".rpm")):
            pk.append({"file": f, "bytes": os.path.getsize(p), "sha256": sha256_file(p)})
        elif f in ("lintian.txt", "rpmlint.txt"):
            with open(p, errors="replace") as fh:
                lines = [l.strip() for l in fh if l.strip()]
            lint[f[:-4]] = lines[-1] if lines else ""
    return pk, lint


def totals(tests):
    c = {"passed": 0, "failed": 0, "skipped": 0, "known": 0}
    key = {"pass": "passed", "fail": "failed", "skip": "skipped", "xfail": "known"}
    for t in tests:
        for x in t.get("cases") or [t]:
            c[key[x["status"]]] += 1
    return c


def summary(out):
    recs = run_records(out)
    st = {"passed": 0, "failed": 0, "skipped": 0}
    for r in recs:
        st[{"pass": "passed", "fail": "failed", "skip": "skipped"}[r["status"]]] += 1
    s = {"kit": kit_commit(), "compiler": first_line(("gcc", "--version")),
         "qemu": first_line((os.environ.get("QEMU", "qemu-system-x86_64"), "--version")),
         "stages": st, "cpu_seconds": sum(r.get("cpu_seconds", 0) for r in recs),
         "targets": {}}
    for t in targets():
        found = suites_of(out, t)
        ab = stage_of(recs, "ab-verdict-" + t)
        pk, lint = packages_of(out, t)
        if not found and not ab and not pk:
            continue
        s["targets"][t] = {
            "trees": {tree: {name: dict(totals(r["tests"]), backend=r.get("backend", ""),
                                        kernel_release=r.get("kernel_release", ""))
                             for name, r in suites.items()}
                      for tree, suites in found.items()},
            "ab_verdict": {"status": ab["status"] if ab else "not run",
                           "findings": verdict_lines(ab)},
            "packages": pk, "lint": lint}
    return s


def export(argv):
    """summary.json and kcidb.json of the run under OUT, each checked."""
    from kitkcidb import kcidb, kcidb_errors  # it imports this module
    if len(argv) != 1:
        die("usage: export OUT")
    out = argv[0]
    s, k = summary(out), kcidb(out)
    bad = ["summary.json: " + e for e in schema_errors("summary", s)]
    bad += ["kcidb.json: " + e for e in kcidb_errors(k)]
    for e in bad:
        print("results: error: %s" % e)
    if bad:
        return 1
    for name, obj in (("summary.json", s), ("kcidb.json", k)):
        with open(os.path.join(out, name + ".tmp"), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(os.path.join(out, name + ".tmp"), os.path.join(out, name))
    print("%s: %d targets, %d stages; %s: %d checkouts, %d builds, %d tests, %d issues, %d incidents"
          % (os.path.join(out, "summary.json"), len(s["targets"]), sum(s["stages"].values()),
             os.path.join(out, "kcidb.json"), len(k["checkouts"]), len(k["builds"]),
             len(k["tests"]), len(k["issues"]), len(k["incidents"])))
    return 0
