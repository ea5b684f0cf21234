# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/kitresults.py: the kit's results written and read: the stage
# record of a command (record), a guest suite's results.json (suite), the
# KTAP they are made from, and the schemas both must meet
# (tests/data/*.schema.json).  Imported by pipeline/results, their one
# writer and reader.

import json
import os
import re
import sys

PROG = "results"
KSFT_SKIP = 4
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = {"stage": "tests/data/stage-record.schema.json",
           "suite": "tests/data/results.schema.json",
           "summary": "tests/data/summary.schema.json"}
# A KTAP result line at the top level (subtests are indented).
RESULT = re.compile(r"^(not ok|ok) (\d+) ?(.*?)(?: # (SKIP|TODO)\b ?(.*))?$")
# A subtest of a guest job's cases.ktap: its verdict and the rest
# (tests/lib/cases.sh writes XFAIL for a known defect's failure).
CASE = re.compile(r"^    (not ok|ok) \d+ (.*)$")
# How many diagnostic lines of a failed case its reason keeps.
DIAG_LINES = 10


def die(msg):
    sys.stderr.write("%s: error: %s\n" % (PROG, msg))
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))


def ktap_tests(text):
    """The top-level results of KTAP text: [{name, status, reason}]."""
    tests = []
    for line in text.splitlines():
        m = RESULT.match(line)
        if not m:
            if line.startswith("Bail out!"):
                tests.append({"name": "bail-out", "status": "fail",
                              "reason": line})
            continue
        t = {"name": m.group(3).strip(), "status": "pass"}
        if m.group(1) == "not ok":
            t["status"] = "fail"
        elif m.group(4) == "SKIP":
            t["status"] = "skip"
            t["reason"] = (m.group(5) or "").strip()
        tests.append(t)
    return tests


def last_error(text):
    """The last 'PROG: error: ...' line of a log, else its last line."""
    lines = [l for l in text.splitlines() if l.strip()]
    for l in reversed(lines):
        if ": error: " in l:
            return l.strip()
    return lines[-1].strip() if lines else ""


def record(argv):
    if len(argv) < 4:
        die("usage: record NAME RC SECONDS LOG [--skip REASON] [--fail REASON] [--command CMD] [--cpu SECONDS] [--results FILE]...")
    name, rc, secs, log = argv[0], int(argv[1]), int(argv[2]), argv[3]
    opts = dict(zip(argv[4::2], argv[5::2]))
    r = {"stage": name, "command": opts.get("--command", ""),
         "exit": rc, "seconds": secs, "log": log, "tests": []}
    if "--cpu" in opts:
        r["cpu_seconds"] = int(opts["--cpu"])
    # The results.json files the stage made (pipeline/stage: its Produces), one
    # "--results PATH" each.
    made = [v for k, v in zip(argv[4::2], argv[5::2]) if k == "--results"]
    if made:
        r["results"] = made
    if "--skip" in opts:
        r.update(status="skip", reason=opts["--skip"], exit=None)
        json.dump(r, sys.stdout, indent=1)
        print()
        return 0
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        text = ""
    tests = ktap_tests(text) if re.search(r"^(KTAP|TAP) version", text, re.M) else []
    r["tests"] = tests
    if "--fail" in opts:
        r.update(status="fail", reason=opts["--fail"])
    elif tests:
        failed = any(t["status"] == "fail" for t in tests)
        if failed:
            r["status"] = "fail"
        elif rc != 0:
            r["status"] = "fail"
            r["reason"] = "exited %d without a failed test" % rc
        else:
            r["status"] = "pass"
    elif re.search(r"^(KTAP|TAP) version", text, re.M):
        r.update(status="fail", reason="ran no test")
    elif rc == 0:
        r["status"] = "pass"
    elif rc == KSFT_SKIP:
        r.update(status="skip", reason=last_error(text) or "exit 4")
    else:
        r.update(status="fail", reason=last_error(text))
    json.dump(r, sys.stdout, indent=1)
    print()
    return 0


def counts(tests):
    c = {"pass": 0, "fail": 0, "skip": 0}
    for t in tests:
        c[t["status"]] = c.get(t["status"], 0) + 1
    return c


def stage_counts(r):
    """A suite counts its tests (plus one failure when it died without
    one); any other stage counts as one test."""
    if r.get("tests"):
        c = counts(r["tests"])
        if r["status"] == "fail" and c["fail"] == 0:
            c["fail"] = 1
        return c
    c = {"pass": 0, "fail": 0, "skip": 0}
    c[r["status"]] = 1
    return c


def records(d, since=None):
    """The stage records of folder D (newer than file SINCE), in the order
    they were written."""
    t0 = os.path.getmtime(since) if since else 0
    rs = []
    for f in os.listdir(d):
        p = os.path.join(d, f)
        if f.endswith(".json") and os.path.getmtime(p) >= t0:
            r = load(p)
            r["_mtime"] = os.path.getmtime(p)
            rs.append(r)
    return sorted(rs, key=lambda r: (r["_mtime"], r["stage"]))


def read_text(path):
    """A file's text as it is (a CR stays a CR); bytes that are not UTF-8
    become U+FFFD, so that whatever a guest printed stays valid JSON."""
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


def cases_of(path):
    """The subtests of a cases.ktap: [{name, status[, reason]}]; a SKIP
    directive makes it skipped, an XFAIL one on an "ok" line a known
    defect's failure (xfail); a failed case's reason is the diagnostics
    the program printed in it (the "    # " lines before its verdict, the
    last DIAG_LINES of them)."""
    out, notes = [], []
    for line in read_text(path).split("\n"):
        if line.startswith("    # "):
            notes.append(line[6:].rstrip())
            continue
        m = CASE.match(line)
        if not m:
            continue
        ok, text = m.group(1) == "ok", m.group(2)
        c = {"name": text, "status": "pass" if ok else "fail"}
        if not ok and notes:
            c["reason"] = "\n".join(notes[-DIAG_LINES:])
        notes = []
        for word, status in ((" # SKIP", "skip"), (" # XFAIL", "xfail")):
            i = text.find(word)
            if i >= 0 and (ok or status == "skip"):
                c = {"name": text[:i], "status": status,
                     "reason": text[i + len(word):].lstrip(" ")}
                break
        out.append(c)
    return out


def suite(argv):
    """ART/results.json of a guest suite from ART/results.tsv (NAME, KSFT
    code, seconds, reason: the rest of the line) and each test's
    ART/NAME/cases.ktap."""
    if not argv or argv[0].startswith("-"):
        die("usage: suite ART --suite S --target T --tree T --release R --backend B --accelerator A")
    art, opts = argv[0], dict(zip(argv[1::2], argv[2::2]))
    r = {k: opts.get("--" + k, "") for k in ("suite", "target", "tree")}
    r["kernel_release"] = opts.get("--release", "")
    r["backend"] = opts.get("--backend", "loopback")
    r["accelerator"] = opts.get("--accelerator", "none")
    r["reproducer"] = os.path.join(art, "reproducer.sh")
    r["tests"] = []
    for line in read_text(os.path.join(art, "results.tsv")).split("\n"):
        if not line:
            continue
        f = line.split("\t", 3) + ["", "", ""]
        t = {"name": f[0], "status": {"0": "pass", str(KSFT_SKIP): "skip"}.get(f[1], "fail"),
             "seconds": int(f[2]) if f[2].isdigit() else 0}
        if f[3]:
            t["reason"] = f[3]
        cases = os.path.join(art, f[0], "cases.ktap")
        if os.path.isfile(cases):
            t["cases"] = cases_of(cases)
        r["tests"].append(t)
    tmp = os.path.join(art, "results.json.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        json.dump(r, out, indent=2, ensure_ascii=False)
        out.write("\n")
    os.replace(tmp, os.path.join(art, "results.json"))
    return 0


def schema_errors(kind, r):
    """What of record R does not meet the schema of KIND (stage or suite)."""
    import jsonschema
    with open(os.path.join(TOP, SCHEMAS[kind])) as f:
        v = jsonschema.Draft7Validator(json.load(f))
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
            for e in sorted(v.iter_errors(r), key=lambda e: list(e.absolute_path))]


def validate(argv):
    """Every results.json and stage record under each PATH meets its schema."""
    n, bad = 0, 0
    for p in argv:
        for root, _, files in os.walk(p):
            for f in files:
                if f == "results.json":
                    kind = "suite"
                elif root.rstrip("/").endswith("/check") and f.endswith(".json"):
                    kind = "stage"
                else:
                    continue
                path = os.path.join(root, f)
                for e in schema_errors(kind, load(path)):
                    sys.stderr.write("%s: error: %s: %s\n" % (PROG, path, e))
                    bad += 1
                n += 1
    print("%d result files meet their schema%s" % (n, "" if not bad else ", %d errors" % bad))
    return 0 if n and not bad else 1
