# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/kitjunit.py: stage records as JUnit XML (pipeline/results junit),
# for GitLab's test report.  A suite's stage record names the
# results.json files it made; each case there is a testcase of its own,
# named by the case, with the diagnostics the program printed in it as
# the failure's text, so that a failing vsock_test case is found by its
# name, not as "vsock_test" with no message.

import os
from xml.sax.saxutils import escape, quoteattr

from kitresults import die, load

# A case's status in JUnit's words: a known defect's failure (xfail) is
# reported skipped, its reason saying so.
STATUS = {"pass": "pass", "fail": "fail", "skip": "skip", "xfail": "skip"}


def suite_tests(r):
    """The tests of the results.json files stage record R names, by name."""
    by_name = {}
    for path in r.get("results", []):
        if os.path.exists(path):
            for t in load(path).get("tests", []):
                by_name[t["name"]] = t
    return by_name


def testcases(r):
    """The testcases of stage record R: (classname, name, status, reason,
    seconds or None)."""
    tests = r.get("tests") or [{"name": r["stage"], "status": r["status"],
                                "reason": r.get("reason", "")}]
    full = suite_tests(r)
    out = []
    for t in tests:
        s = full.get(t["name"], {})
        cases = s.get("cases") or []
        for c in cases:
            why = c.get("reason", "")
            if c["status"] == "xfail":
                why = "known defect (XFAIL): " + why
            out.append(("%s.%s" % (r["stage"], t["name"]), c["name"],
                        STATUS[c["status"]], why, None))
        # The test itself when it has no cases, or failed without one.
        if not cases or (t["status"] == "fail" and
                         not any(c["status"] == "fail" for c in cases)):
            out.append((r["stage"], t["name"], t["status"],
                        t.get("reason") or s.get("reason", ""), s.get("seconds")))
    if r["status"] == "fail" and not any(c[2] == "fail" for c in out):
        out.append((r["stage"], r["stage"], "fail", r.get("reason", ""), None))
    return out


def testcase_xml(c, fallback):
    cls, name, status, why, secs = c
    why = why or fallback
    head = '    <testcase classname=%s name=%s%s>' % (
        quoteattr(cls), quoteattr(name), "" if secs is None else ' time="%d"' % secs)
    first = why.split("\n", 1)[0]
    if status == "fail":
        return head + '<failure message=%s>%s</failure></testcase>' % (quoteattr(first), escape(why))
    if status == "skip":
        return head + '<skipped message=%s/></testcase>' % quoteattr(why)
    return head + "</testcase>"


def junit(argv):
    if not argv:
        die("usage: junit FILE...")
    suites = []
    for path in argv:
        stage = os.path.basename(path)[:-5] if path.endswith(".json") else path
        if os.path.exists(path):
            r = load(path)
        else:
            r = {"stage": stage, "status": "fail", "seconds": 0, "tests": [],
                 "reason": "no record %s: the job ended before pipeline/stage wrote it" % path}
        suites.append((r, testcases(r)))
    n = sum(len(cs) for _, cs in suites)
    nf = sum(1 for _, cs in suites for c in cs if c[2] == "fail")
    ns = sum(1 for _, cs in suites for c in cs if c[2] == "skip")
    print('<?xml version="1.0" encoding="UTF-8"?>')
    print('<testsuites name="vsock-rxkit" tests="%d" failures="%d" skipped="%d">' % (n, nf, ns))
    for r, cs in suites:
        print('  <testsuite name=%s tests="%d" failures="%d" skipped="%d" time="%s">'
              % (quoteattr(r["stage"]), len(cs), sum(1 for c in cs if c[2] == "fail"),
                 sum(1 for c in cs if c[2] == "skip"), r.get("seconds") or 0))
        for c in cs:
            print(testcase_xml(c, r.get("reason") or ""))
        print("  </testsuite>")
    print("</testsuites>")
    return 0
