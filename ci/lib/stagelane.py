# SPDX-License-Identifier: GPL-2.0
# ci/lib/stagelane.py: the idle lane of each tier and target.  A row with
# "Lane: idle" needs no kernel: make check runs it in a make of its own,
# one stage at a time under nice -n 19, beside the tier's other stages
# (the main lane), so that it takes the cores the kernel builds leave idle
# instead of waiting for them (its After's HEAD holds only outside the
# lane).  Two makes must never start the same stage: a stage stays in the
# lane only while all it needs or waits for is in the lane too (or made
# before both lanes: TARGET's prepare and what that needs), and no stage
# of the main lane needs or waits for it.  Imported by ci/stagegen.

import re

from stagetable import TABLE, TIERS, die


def listed(all_st, tier, target):
    """The stages tier TIER lists for TARGET (its own, the other targets',
    its tail), by name, without the If rows (a make variable's)."""
    return [s for s in all_st if "If" not in s.row and (
        (s.t in (target, None) and tier in s.words("Tiers"))
        or (s.t not in (target, None) and tier in s.words("Others")))]


def skipped(s, tier, target):
    """The tier records s skipped (no prerequisites, nothing run)."""
    if tier == "check-full":
        return False
    return "Full" in s.row or ("Full-others" in s.row and s.t not in (target, None))


def make_edges(s, tier, target, known, names):
    """What s's rule needs and waits for when make's TIER and TARGET are
    these, with HEAD as in the idle lane for a Lane row (none)."""
    out = [w for w in s.words("Needs") if "$(" not in w]
    lane = "Lane" in s.row
    others = [t for t in known if t != target]
    for w in re.findall(r"cores\(([^)]*)\)|(\S+)", s.fill(s.row.get("After", ""))):
        for x in (w[0].split() if w[0] else [w[1]]):
            if x == "HEAD" or (x == "HEAD-if-other" and s.t != target):
                if not lane:
                    out.append("build-%s-patched" % target)
            elif x in ("HEAD-if-other", "@earlier"):
                continue
            elif "{EACH}" in x:
                out += [x.replace("{EACH}", t) for t in [target] + others if
                        x.replace("{EACH}", t) in names]
            elif "{KNOWN}" in x:
                out += [x.replace("{KNOWN}", t) for t in known if x.replace("{KNOWN}", t) in names]
            elif x.replace("{TARGET}", target) in names:
                out.append(x.replace("{TARGET}", target))
    return out


def closure(start, edges):
    seen, todo = set(), list(start)
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(edges.get(n, ()))
    return seen


def idle_lane(all_st, tier, target, known):
    """The stages of TIER for TARGET that run in the idle lane, in table
    order, and the Lane rows the main lane keeps (each with why)."""
    st = listed(all_st, tier, target)
    names = {s.name for s in st}
    tail = {s.name for s in st if "Last" in s.row}
    edges = {s.name: ([] if skipped(s, tier, target) else make_edges(s, tier, target, known, names))
             for s in st}
    before = closure(["prepare-%s" % target], edges)
    lane = {s.name for s in st if "Lane" in s.row and not skipped(s, tier, target)} - before
    kept = {}
    changed = True
    while changed:
        changed = False
        for n in sorted(lane):
            out = [e for e in edges[n] if e not in lane and e not in before]
            if out:
                lane.discard(n)
                kept[n], changed = "it waits for %s" % out[0], True
        for m in names - lane - tail:
            for e in edges[m]:
                if e in lane:
                    lane.discard(e)
                    kept[e], changed = "%s waits for it" % m, True
    return [s.name for s in st if s.name in lane], kept


def lane_lists(all_st, known):
    """idle.TIER.TARGET for make; make check's own lane must hold every
    Lane row it lists (a row that cannot be there is a wrong row)."""
    out = []
    for tier in TIERS:
        for t in known:
            lane, kept = idle_lane(all_st, tier, t, known)
            if tier == "check":
                line = {s.name: s.row["_line"] for s in all_st}
                for n, why in sorted(kept.items()):
                    die("%s:%d: stage %s has Lane: idle, but make check TARGET=%s runs it in "
                        "the main lane: %s" % (TABLE, line[n], n, t, why),
                        "drop its Lane, or the edge that keeps it out")
            out.append("idle.%s.%s := %s" % (tier, t, " ".join(lane)))
    return out
