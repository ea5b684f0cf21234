# SPDX-License-Identifier: GPL-2.0
"""The committed benchmark runs (bench/runs/TARGET/RUN, the slow-reader
runs aside) and the cover letter's figures (bench/data/cover-letter), as
bench/summary reads them."""
import glob
import os

from abreport import derive, load, timed_with_probes

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COVER = os.path.join(TOP, "bench", "data", "cover-letter")


def runs():
    dirs = [d for d in glob.glob(os.path.join(TOP, "bench", "runs", "*", "*"))
            if os.path.exists(os.path.join(d, "samples.csv"))]
    return sorted(dirs, key=lambda d: (target_key(os.path.basename(os.path.dirname(d))),
                                       os.path.basename(d)))


def target_key(t):
    """Newest kernel line first: 7.3 before 6.18 before 6.12."""
    return [-int(x) for x in t.split(".")]


def rows_of(d, name):
    """The rows of D's NAME.csv, with bench/report's derived fields."""
    rows = load(os.path.join(d, name + ".csv"), empty_ok=name != "samples")
    derive(rows, rows)
    return rows


def pick(target, probed, backend="vhost-user"):
    """The newest run of TARGET on BACKEND (all patches, every payload
    or, vhost-vsock, any) timed with the probes set, or with nothing
    attached."""
    found = None
    tail = "*-vhost-vsock*" if backend == "vhost-vsock" else "*-" + backend
    for d in sorted(glob.glob(os.path.join(TOP, "bench", "runs", target, tail))):
        if timed_with_probes(rows_of(d, "samples")) == probed:
            found = d
    return found


def what(d):
    return "probes set" if timed_with_probes(rows_of(d, "samples")) else "nothing attached"


def cover_letter():
    """bench/data/cover-letter: payload -> (throughput, cycles/B)."""
    cover = {}
    with open(COVER) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                p, tput, cyc = line.rstrip("\n").split("\t")
                cover[p] = (tput, cyc)
    return cover
