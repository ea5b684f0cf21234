# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/kitkcidb.py: a run's results in KernelCI's KCIDB I/O shape
# (schema v5.3: checkouts, builds, tests, issues, incidents; pipeline/results
# export writes it as kcidb.json) and the kit's own check of a report
# against what that schema documents (required and known fields, id and
# origin patterns, statuses, test paths, references): kcidb-io, KernelCI's
# validator, is not in Debian.

import hashlib
import os
import re

from kitexport import (ORIGIN, first_line, kit_commit, run_records, sha256_file,
                       stage_of, suites_of, targets)
from kitresults import TOP, die, load

MESSAGE_ID = "20261010142247.99223-1-physicalmtea@gmail.com"
KCIDB_VERSION = {"major": 5, "minor": 3}
# KCIDB's objects: their known fields, the required ones first.
KCIDB_FIELDS = {
    "checkouts": (("id", "origin"),
                  ("tree_name", "git_repository_url", "git_commit_hash", "git_commit_name",
                   "git_commit_tags", "git_commit_message", "git_repository_branch",
                   "git_repository_branch_tip", "patchset_files", "patchset_hash",
                   "message_id", "comment", "start_time", "origin_builds_finish_time",
                   "origin_tests_finish_time", "log_url", "log_excerpt", "valid", "misc")),
    "builds": (("checkout_id", "id", "origin"),
               ("comment", "start_time", "duration", "architecture", "command", "compiler",
                "input_files", "output_files", "config_name", "config_url", "log_url",
                "log_excerpt", "status", "misc")),
    "tests": (("build_id", "id", "origin"),
              ("environment", "path", "comment", "log_url", "log_excerpt", "status",
               "number", "start_time", "duration", "input_files", "output_files", "misc")),
    "issues": (("id", "version", "origin"),
               ("categories", "report_url", "report_subject", "culprit", "comment", "misc")),
    "incidents": (("id", "origin", "issue_id", "issue_version"),
                  ("build_id", "test_id", "present", "comment", "misc")),
}
STATUSES = ("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP")
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "xfail": "FAIL"}
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
ID_RE = re.compile(r"^[a-z0-9_]+:[^\0]*$")
PATH_RE = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")
SHA256_RE = re.compile(r"^$|^[0-9a-f]{64}$")
# The references between objects: FIELD of KIND names an object of LIST.
REFS = (("builds", "checkout_id", "checkouts"), ("tests", "build_id", "builds"),
        ("incidents", "issue_id", "issues"), ("incidents", "test_id", "tests"),
        ("incidents", "build_id", "builds"))



def slug(name):
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "case"


def patchset_hash(target):
    """KCIDB's patchset hash of series/TARGET: the SHA-256 of each patch's
    SHA-256, a line each, in order."""
    d = os.path.join(TOP, "series", target)
    with open(os.path.join(d, "series")) as f:
        names = [l.split()[0] for l in f if l.strip() and not l.startswith("#")]
    lines = "".join(sha256_file(os.path.join(d, n)) + "\n" for n in names)
    return hashlib.sha256(lines.encode()).hexdigest()


def kcidb(out):
    recs = run_records(out)
    kit = kit_commit()
    compiler = first_line(("gcc", "--version"))
    d = {"version": dict(KCIDB_VERSION), "checkouts": [], "builds": [], "tests": [],
         "issues": [], "incidents": []}
    issues = {}
    for t in targets():
        for tree, suites in suites_of(out, t).items():
            base = tree.split("-", 1)[0]
            flavour = tree.split("-", 1)[1] if "-" in tree else "guest"
            co = "%s:%s-%s-%s" % (ORIGIN, t, base, kit)
            if not any(c["id"] == co for c in d["checkouts"]):
                prep = stage_of(recs, "prepare-" + t)
                c = {"id": co, "origin": ORIGIN, "tree_name": "linux-" + t,
                     "patchset_hash": patchset_hash(t) if base == "patched" else "",
                     "comment": "Linux %s, %s (vsock-rxkit %s)" % (t, base, kit),
                     "misc": {"kit": kit, "tree": base}}
                if base == "patched":
                    c["message_id"] = MESSAGE_ID
                if prep:
                    c["valid"] = prep["status"] == "pass"
                d["checkouts"].append(c)
            bid = "%s:%s-%s-%s" % (ORIGIN, t, tree, kit)
            b = {"id": bid, "checkout_id": co, "origin": ORIGIN, "architecture": "x86_64",
                 "compiler": compiler, "config_name": flavour}
            brec = stage_of(recs, "build-%s-%s" % (t, base) if flavour == "guest"
                            else "build-%s-%s-%s" % (t, flavour, base))
            if brec:
                b["status"] = STATUS.get(brec["status"], "MISS")
                b["duration"] = brec["seconds"]
            d["builds"].append(b)
            for name, r in suites.items():
                env = {"comment": "%s, %s" % (r.get("backend", ""), r.get("accelerator", ""))}
                for test in r["tests"]:
                    path = "vsock.%s.%s" % (slug(name), slug(test["name"]))
                    x = {"id": "%s:%s" % (bid, path), "build_id": bid, "origin": ORIGIN,
                         "path": path, "status": STATUS[test["status"]],
                         "duration": test.get("seconds", 0), "environment": env}
                    if test.get("reason"):
                        x["comment"] = test["reason"][:1000]
                    d["tests"].append(x)
                    seen = set()
                    for c in test.get("cases") or []:
                        p = path + "." + slug(c["name"])
                        while p in seen:
                            p += "_"
                        seen.add(p)
                        x = {"id": "%s:%s" % (bid, p), "build_id": bid, "origin": ORIGIN,
                             "path": p, "status": STATUS[c["status"]], "environment": env,
                             "misc": {"case": c["name"]}}
                        if c.get("reason"):
                            x["comment"] = c["reason"][:1000]
                        d["tests"].append(x)
                        if c["status"] == "xfail":
                            known(d, issues, x, c.get("reason", ""))
    return d


def known(d, issues, test, reason):
    """An issue for a known defect (its reason, without the trees and count
    the kit appends) and the incident of TEST failing as it."""
    why = re.sub(r" \[[a-z0-9@.,-]*\]( \{\d+\})?$", "", reason)
    iid = "%s:known-%s" % (ORIGIN, hashlib.sha256(why.encode()).hexdigest()[:16])
    if iid not in issues:
        issues[iid] = {"id": iid, "version": 1, "origin": ORIGIN, "comment": why[:1000]}
        d["issues"].append(issues[iid])
    d["incidents"].append({"id": "%s:incident-%s" % (ORIGIN, test["id"].split(":", 1)[1]),
                           "origin": ORIGIN,
                           "issue_id": iid, "issue_version": 1, "test_id": test["id"],
                           "build_id": test["build_id"], "present": True})


def kcidb_errors(d):
    """What of a KCIDB report D does not meet the schema's documented rules."""
    errs = []
    v = d.get("version")
    if not isinstance(v, dict) or v.get("major") != KCIDB_VERSION["major"] or \
            not 0 <= v.get("minor", 0) <= KCIDB_VERSION["minor"]:
        errs.append("version: %r is not {major: %d, minor: 0..%d}"
                    % (v, KCIDB_VERSION["major"], KCIDB_VERSION["minor"]))
    for k in set(d) - set(KCIDB_FIELDS) - {"version"}:
        errs.append("%s: not a KCIDB list" % k)
    ids = {}
    for kind, (req, opt) in KCIDB_FIELDS.items():
        ids[kind] = set()
        for i, o in enumerate(d.get(kind, [])):
            where = "%s/%d" % (kind, i)
            errs += ["%s: no %s" % (where, f) for f in req if f not in o]
            errs += ["%s: unknown field %s" % (where, f) for f in o if f not in req + opt]
            errs += ["%s: %s is null" % (where, f) for f in o if o[f] is None]
            for f in ("id", "checkout_id", "build_id", "test_id", "issue_id"):
                if f in o and not (isinstance(o[f], str) and ID_RE.match(o[f])):
                    errs.append("%s: %s %r is not ORIGIN:ID" % (where, f, o[f]))
            if "origin" in o and not (isinstance(o["origin"], str) and ORIGIN_RE.match(o["origin"])):
                errs.append("%s: origin %r is not [a-z0-9_]+" % (where, o["origin"]))
            if "status" in o and o["status"] not in STATUSES:
                errs.append("%s: status %r is none of %s" % (where, o["status"], ", ".join(STATUSES)))
            if "path" in o and not (isinstance(o["path"], str) and PATH_RE.match(o["path"])):
                errs.append("%s: path %r is not dot-separated [a-zA-Z0-9_-]+" % (where, o["path"]))
            if "patchset_hash" in o and not SHA256_RE.match(str(o["patchset_hash"])):
                errs.append("%s: patchset_hash is neither empty nor a SHA-256" % where)
            for f in ("version", "issue_version"):
                if f in o and not (isinstance(o[f], int) and o[f] >= 0):
                    errs.append("%s: %s %r is not a whole number" % (where, f, o[f]))
            if o.get("id") in ids[kind]:
                errs.append("%s: id %s twice" % (where, o["id"]))
            ids[kind].add(o.get("id"))
    for kind, f, target in REFS:
        for i, o in enumerate(d.get(kind, [])):
            if f in o and o[f] not in ids[target]:
                errs.append("%s/%d: %s %s names no object of %s" % (kind, i, f, o[f], target))
    return errs


def kcidb_check(argv):
    if len(argv) != 1:
        die("usage: kcidb-check FILE")
    errs = kcidb_errors(load(argv[0]))
    for e in errs:
        print("results: error: %s: %s" % (argv[0], e))
    return 1 if errs else 0
