# SPDX-License-Identifier: GPL-2.0
"""The tables of bench/report beside the cover letter's: what the
probes cost, the instruction window, the ping-pongs, the reference
rows."""
import statistics

from abreport import median, size_key

TREES = ("baseline", "patched")


def payloads(rows):
    return sorted({r["payload"] for r in rows}, key=size_key)


def ratio(a, b):
    return "%+.1f%%" % (100 * (a / b - 1)) if b > 0 and a == a else "-"


def probes_table(rows, probes, insn, pinsn):
    """The control: each kernel timed (and counted) once with the probes,
    against its pairs' medians without them."""
    o = ["## What the probes cost (the control pass against the pairs, 64K recv())", "",
         "One guest a state with the counters' probes set, against the median of"
         " that state's guests without them: a single control, so no interval.", "",
         "| payload | kernel | Gbit/s without | with probes | change |"
         " worker instructions/byte without | with probes | change |",
         "|---|---|---|---|---|---|---|---|"]
    for p in payloads(rows):
        for t in TREES:
            g0, g1 = median(rows, t, p, "64K", "gbps"), median(probes, t, p, "64K", "gbps")
            i0, i1 = (median(x, t, p, "64K", "ipb_worker") if x else float("nan")
                      for x in (insn, pinsn))
            o.append("| %s | %s | %.4f | %.4f | %s | %.2f | %.2f | %s |" % (
                p, t, g0, g1, ratio(g1, g0), i0, i1, ratio(i1, i0)))
    return o + [""]


def spread(rows, tree, p, field):
    """The interquartile range over the median of one point, in %."""
    vals = [float(r[field]) for r in rows if r["tree"] == tree and r["payload"] == p
            and r["recv"] == "64K" and r.get(field)]
    if len(vals) < 2:
        return "-"
    q = statistics.quantiles(vals, n=4, method="inclusive")
    return "%.1f%%" % (100 * (q[2] - q[0]) / statistics.median(vals))


def window_table(rows):
    """The receiver's window against the host's: what the guest's own work
    between points added, and its spread."""
    if not any(r.get("insn_worker_host") for r in rows):
        return []
    o = ["The window: the RX worker's instructions per byte between the receiver's"
         " marks and between the host's (which also hold the guest's work between"
         " points), with their spread (interquartile range over the median).", "",
         "| payload | kernel | receiver's window | spread | host's window | spread |",
         "|---|---|---|---|---|---|"]
    for p in payloads(rows):
        for t in TREES:
            o.append("| %s | %s | %.2f | %s | %.2f | %s |" % (
                p, t, median(rows, t, p, "64K", "ipb_worker"),
                spread(rows, t, p, "ipb_worker"),
                median(rows, t, p, "64K", "ipb_worker_host"),
                spread(rows, t, p, "ipb_worker_host")))
    return o + [""]


def rtt_table(rep, rows):
    o = ["## Ping-pong round trip (us), host to guest and back", "",
         "| size | requests | baseline median | patched median | change of the medians"
         " (95% CI) | mean (base/patch) | p99 (base/patch) |",
         "|---|---|---|---|---|---|---|"]
    for p in payloads(rows):
        m = {(t, f): median(rows, t, p, "rtt", f) for t in TREES
             for f in ("median_us", "mean_us", "p99_us")}
        o.append("| %s | %s | %.1f | %.1f | %s | %.1f/%.1f | %.1f/%.1f |" % (
            p, rows[0]["count"], m["baseline", "median_us"], m["patched", "median_us"],
            rep.cell(rep.change(rows, p, "rtt", "median_us", lower=True), "speed"),
            m["baseline", "mean_us"], m["patched", "mean_us"],
            m["baseline", "p99_us"], m["patched", "p99_us"]))
    return o + [""]


def ref_table(rows, ref):
    """The reference rows: the same tools where the series is not in the
    path (a Unix socket on the host; loopback in a patched guest)."""
    o = ["## Reference: the same tools without the device (Gbit/s)", "",
         "| payload | recv() | Unix socket (host) | loopback (guest, patched) |"
         " device baseline | device patched |", "|---|---|---|---|---|---|"]
    for r in ref:
        if r["kind"] != "unix-host":
            continue
        lo = [x for x in ref if x["kind"] == "loopback-guest" and x["point"] == r["point"]]
        o.append("| %s | %s | %.4f | %s | %.4f | %.4f |" % (
            r["payload"], r["recv"], float(r["gbps"]),
            "%.4f" % float(lo[0]["gbps"]) if lo else "-",
            median(rows, "baseline", r["payload"], r["recv"], "gbps"),
            median(rows, "patched", r["payload"], r["recv"], "gbps")))
    return o + [""]


def l1_kind(what):
    """A row of l1.csv as one of the table's columns (QEMU names its vCPU
    threads "CPU N/TCG"; the vhost worker is vhost-PID), or None."""
    if what in ("CPU_0/TCG", "CPU_1/TCG"):
        return "vcpu" + what[4]
    if what.startswith("vhost-"):
        return "vhost"
    return "l1cpu" if what.startswith("cpu") else None


def l1_table(l1):
    """Where the nested host (L1) ran each guest over its points (the
    warm-up, place 0, left out): the busy share of each of the guest's
    vCPU threads and of the vhost worker, of L1's CPUs, and how many
    points ended with both vCPU threads on one L1 CPU."""
    guests, ncpu = {}, len({r["what"] for r in l1 if l1_kind(r["what"]) == "l1cpu"})
    for r in l1:
        if r["place"] == "0":
            continue
        g = guests.setdefault((r["pair"], r["tree"], r["pass"]),
                              {"secs": {}, "busy": {}, "cpu": {}, "load": 0.0})
        g["secs"][r["place"]] = float(r["seconds"])
        g["load"] = max(g["load"], float(r["host_load"]))
        kind = l1_kind(r["what"])
        if kind:
            g["busy"][kind] = g["busy"].get(kind, 0.0) + float(r["busy_s"])
        if kind in ("vcpu0", "vcpu1"):
            g["cpu"][r["place"], kind] = r["cpu"]
    o = ["## Where the nested host ran each guest (l1.csv)", "",
         "Busy seconds over the points' seconds (the warm-up left out); L1 has %d CPUs." % ncpu,
         "", "| pair | kernel | pass | seconds | L1 load (max) | vCPU 0 | vCPU 1 | vhost worker"
         " | L1's CPUs | points with both vCPUs on one CPU |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (pair, tree, ps), g in sorted(guests.items(), key=lambda x: (
            x[0][0] == "control", x[0][0].zfill(4), x[0][1], x[0][2])):
        secs = sum(g["secs"].values())
        share = ["%.0f%%" % (100 * g["busy"][k] / (secs * (ncpu if k == "l1cpu" else 1)))
                 if k in g["busy"] and secs else "-" for k in ("vcpu0", "vcpu1", "vhost", "l1cpu")]
        one = sum(1 for p in g["secs"] if g["cpu"].get((p, "vcpu0")) is not None
                  and g["cpu"].get((p, "vcpu0")) == g["cpu"].get((p, "vcpu1")))
        o.append("| %s | %s | %s | %.1f | %.2f | %s | %d/%d |" % (
            pair, tree, ps, secs, g["load"], " | ".join(share), one, len(g["secs"])))
    return o + [""]


def host_table(host):
    """Where this machine ran the nested host's vCPU threads over each
    guest's whole run (host.csv: bench/lib/bench_nested.sh's host_rows)."""
    o = ["## Where this machine ran the nested host's vCPUs (host.csv)", "",
         "Sampled once a second over each guest's whole run, L1's boot included."
         " CPUs: this machine's CPU a vCPU thread of L1 was on in the samples"
         " it was busy (CPU:%); moves: changes of CPU between those samples;"
         " shared: the % of them in which another vCPU thread of L1 was busy on"
         " the same CPU.", "",
         "| pair | kernel | pass | seconds | thread | busy samples | busy s | CPUs | moves | shared |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(host, key=lambda r: (r["pair"] == "control", r["pair"].zfill(4),
                                         r["tree"], r["pass"], r["thread"])):
        o.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%% |" % (
            r["pair"], r["tree"], r["pass"], r["seconds"], r["thread"].replace("_", " "),
            r["busy_samples"], r["busy_s"], r["cpus"], r["moves"], r["shared_pct"]))
    return o + [""]
