# SPDX-License-Identifier: GPL-2.0
"""The parts of bench/report that read samples and say what they
show: the CSV loading, the medians, the paired change of rxkit-stats and
the words of a cell.  Every change cell counts itself (Report.intervals),
so the report can name how many distinct 95% intervals it shows."""
import csv
import os
import statistics
import subprocess
import sys

PROG = "bench-report"
# rxkit-stats's verdicts, in the words of each kind of measure.
WORDS = {
    "speed": {"better": "faster", "worse": "slower"},
    "cost": {"better": "fewer", "worse": "more"},
}


def verdict_word(c, kind):
    """rxkit-stats's verdict of change C in KIND's words."""
    return WORDS[kind].get(c["verdict"], c["verdict"])


def timed_with_probes(rows):
    """The timed rows carry counts: the run set the counters' probes while
    it timed (the method before the control pass)."""
    return any(r.get("lock") for r in rows)


def die(msg):
    sys.stderr.write("%s: error: %s\n" % (PROG, msg))
    sys.exit(2)


def size_key(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def load(path, empty_ok=False):
    if empty_ok and not os.path.exists(path):
        return []
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    if not rows and not empty_ok:
        die("%s: no samples" % path)
    return rows


def median(rows, tree, payload, recv, field, per=None):
    vals = []
    for r in rows:
        if r["tree"] == tree and r["payload"] == payload and r["recv"] == recv \
                and r.get(field, "") != "":
            v = float(r[field])
            if per:
                n = float(r[per] or 0)
                if not n:
                    continue
                v /= n
            vals.append(v)
    return statistics.median(vals) if vals else float("nan")


def derive(rows, insn):
    """Throughput from the bytes and seconds, not the printed Gbit/s (4
    decimals: 0.0000 at the nested backend's 64B point); cycles and
    instructions per byte."""
    for r in rows:
        b = float(r["bytes"])
        if float(r["seconds"]) > 0:
            r["gbps"] = "%.9g" % (b * 8 / float(r["seconds"]) / 1e9)
        r["cpb"] = "%.6f" % (float(r["cycles"]) / b) if r.get("cycles") and b else ""
    for r in insn:
        b = float(r["bytes"])
        for who in ("worker", "reader", "worker_host"):
            v = r.get("insn_" + who)
            r["ipb_" + who] = "%.6f" % (float(v) / b) if v and b else ""


def by_pair(rows, payload, recv):
    """{pair: {tree: row}} of one point."""
    by = {}
    for r in rows:
        if r["payload"] == payload and r["recv"] == recv:
            by.setdefault(r["pair"], {})[r["tree"]] = r
    return by


class Report:
    """The run's rxkit-stats, and what its cells said: how many intervals,
    which pairs lacked a state."""

    def __init__(self, stats):
        self.stats = stats
        self.intervals = set()
        self.incomplete = set()
        self.key = None

    def change(self, rows, payload, recv, field, lower=False):
        """rxkit-stats over the complete pairs of one point (both states,
        the field set): its key=value output, None when under two."""
        self.key = (payload, recv, field)
        lines = []
        for pair, trees in sorted(by_pair(rows, payload, recv).items()):
            got = [trees.get(t, {}).get(field, "") for t in ("baseline", "patched")]
            if "" in got:
                self.incomplete.add("pair %s at %s/%s (%s)" % (
                    pair, payload, recv, ", ".join(
                        "no %s" % t for t, v in zip(("baseline", "patched"), got) if v == "")))
                continue
            lines.append("%s %s %s" % (trees["baseline"]["order"], *got))
        out = subprocess.run([self.stats] + (["-l"] if lower else []),
                             input="\n".join(lines) + "\n", capture_output=True, text=True)
        if out.returncode:
            return None
        res = {}
        for line in out.stdout.splitlines():
            words = line.split()
            side = words[0] if words[0] in ("baseline", "patched") else ""
            for w in words[1:] if side else words:
                k, _, v = w.partition("=")
                res[side + "_" + k if side else k] = v
        return res

    def cell(self, c, kind):
        """A change cell: the change, its CI and the verdict in KIND's
        words, the orders' means and the sign test.  Counts the interval
        of the last change() once, however many tables show it."""
        if not c:
            return "too few pairs"
        self.intervals.add(self.key)
        lo, hi = c["ci95"].split(",")
        word = verdict_word(c, kind)
        return "%s [%s, %s] %s; AB %s, BA %s; wins %s, sign p %s" % (
            c["change"], lo, hi, word, c["ab_change"], c["ba_change"],
            c.get("wins", "?"), c.get("sign_p", "?"))

    def notes(self):
        """The closing lines: multiplicity, and the incomplete pairs."""
        o = ["## How to read the changes", "",
             "%d distinct intervals above, each at 95%% on its own, without a correction for"
             " multiplicity: about %.1f of them would exclude zero by chance alone"
             " if nothing changed.  \"inconclusive\": the interval contains zero."
             " The sign test counts the pairs the patched kernel won (two-sided;"
             " with n pairs it cannot go below 2/2^n)." % (
                 len(self.intervals), len(self.intervals) * 0.05), ""]
        if self.incomplete:
            o += ["Pairs left out of a change (a state has no sample): " +
                  "; ".join(sorted(self.incomplete)) + ".", ""]
        return "\n".join(o) + "\n"
