# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/stagecarry.py: what each stage's job carries on a runner of
# its own, from the roles of pipeline/stage-table: its artefacts (its
# Produces paths of roles carried as artefacts) and the commands it runs
# first to remake what it consumes of roles carried by remaking.
# Imported by pipeline/stagegen (--carry), read by pipeline/lib/gitlab.awk.

import os

from stagetable import ROLES, area, edges, instances, role_paths

# The project-relative homes .gitlab-ci.yml gives the cache and the results.
CACHE_REL, OUT_REL = ".rxkit-cache", "out"


def ancestors(s, named):
    """The stages s needs or waits for, followed through theirs."""
    seen, todo = set(), list(edges(s))
    while todo:
        n = todo.pop()
        if n in named and n not in seen:
            seen.add(n)
            todo.extend(edges(named[n]))
    return seen


def producer(path, s, named):
    """The stage before s whose Produces has PATH (or an alternative of it)."""
    for n in sorted(ancestors(s, named)):
        made = role_paths(named[n], "Produces")
        if any(path in (p, *p.split("|")) for _, p in made):
            return named[n]
    return None


def remakes(s, named, out, seen):
    """Append to OUT the stages to run again, in order, so that s's
    consumed paths of remade roles are there: each producer after what it
    consumes of such roles."""
    for role, path in role_paths(s, "Consumes"):
        if ROLES[role].get("Carry", "artefact") != "remake":
            continue
        p = producer(path, s, named)
        if p is None or p.name in seen:
            continue
        seen.add(p.name)
        remakes(p, named, out, seen)
        out.append(p)


def artefacts(s):
    """s's Produces paths of roles carried as artefacts, project-relative:
    a file under the results, the folder it is in (area); alternatives
    each."""
    out = []
    for role, path in role_paths(s, "Produces"):
        if ROLES[role].get("Carry", "artefact") != "artefact":
            continue
        for alt in path.split("|"):
            a = area(alt) if alt.startswith(OUT_REL + "/") else alt
            if a not in out:
                out.append(a)
    # A path inside another one's folder goes with it.
    return [a for a in out if not any(a.startswith(b + "/") for b in out)]


def carry(rows, known):
    """Lines "NAME<TAB>artefact<TAB>PATH", "NAME<TAB>registry<TAB>PATH" and
    "NAME<TAB>remake<TAB>STAGE<TAB>RUNNER<TAB>COMMAND" for every stage
    (RUNNER: the remade stage's, or -)."""
    saved = {k: os.environ.get(k) for k in ("RXKIT_CACHE", "RXKIT_OUT")}
    os.environ.update(RXKIT_CACHE=CACHE_REL, RXKIT_OUT=OUT_REL)
    try:
        all_st = instances([r for r in rows if "Stage" in r], known)
        named = {x.name: x for x in all_st}
        lines = []
        for s in all_st:
            if "$(" in s.name:
                continue
            for a in artefacts(s):
                lines.append("%s\tartefact\t%s" % (s.name, a))
            for role, path in role_paths(s, "Produces"):
                if ROLES[role].get("Carry") == "registry":
                    lines.append("%s\tregistry\t%s" % (s.name, path))
            todo = []
            remakes(s, named, todo, set())
            for p in todo:
                lines.append("%s\tremake\t%s\t%s\t%s" % (s.name, p.name, p.row.get("Runner", "-"),
                                                        p.fill(p.row["Command"])))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return lines
