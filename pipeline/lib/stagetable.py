# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/stagetable.py: pipeline/stage-table read: its paragraphs, their checks,
# the stage instances over the targets, their paths.  Imported by
# pipeline/stagegen.

import os
import re
import sys

PROG = "stagegen"
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = "pipeline/stage-table"
TIERS = ("run", "check", "check-full")
FIELDS = {"Stage", "Trees", "When", "If", "Needs", "After", "Last", "Tiers",
          "Others", "Groups", "Groups-unless-PATCHES", "Full", "Full-unless", "Full-others", "Nice",
          "Runner", "Schedule", "Docs", "Documentation", "Image",
          "Command", "Does", "Consumes", "Produces", "Gitlab", "Group", "Help", "Before",
          "Role", "Parts", "Carry"}
# How a job on a runner of its own gets what a role's paths hold: its
# needs' artefacts, or by running again the stages that make it; or no
# job reads it, and its maker puts it into a registry of the project:
# the package registry (registry: pipeline/registry) or, an image, the
# container registry (image: its command copies it there).
CARRIES = ("artefact", "remake", "registry", "image")
# The roles of Consumes and Produces (a "Role:" paragraph each), by name:
# check_rows fills it.
ROLES = {}
# The stages of .gitlab-ci.yml a row's Gitlab may name.
GITLAB_STAGES = ("fetch", "prepare", "build", "test", "package", "verdict", ".post")
# The top-level keywords of .gitlab-ci.yml: a job of that name is none.
GITLAB_WORDS = {"stages", "variables", "default", "workflow", "include", "image",
                "services", "cache", "before_script", "after_script", "pages"}


def die(what, remedy):
    sys.stderr.write("%s: error: %s; run: %s\n" % (PROG, what, remedy))
    sys.exit(2)


def paragraphs(path):
    """The table's paragraphs: dicts of field -> value (continuation lines
    joined with one space), each with the line it starts on."""
    paras, cur, key = [], None, None
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                cur = key = None
                continue
            if line[0] in " \t":
                if key is None:
                    die("%s:%d: a continuation line outside a field" % (path, n),
                        "indent it under a field of its paragraph")
                cur[key] += " " + line.strip()
                continue
            k, sep, v = line.partition(":")
            if not sep or k not in FIELDS:
                die("%s:%d: unknown field '%s'" % (path, n, k),
                    "see the field list at the top of %s" % path)
            if cur is None:
                cur = {"_line": n}
                paras.append(cur)
            if k in cur:
                die("%s:%d: field %s given twice" % (path, n, k), "keep one")
            cur[k], key = v.strip(), k
    return paras


def targets():
    d = os.path.join(TOP, "series")
    return sorted(t for t in os.listdir(d) if os.path.isfile(os.path.join(d, t, "base")))


def image(t, pin="debian-kernel"):
    try:
        with open(os.path.join(TOP, "series", t, pin)) as f:
            for line in f:
                if line.startswith("image "):
                    return line.split()[1]
    except FileNotFoundError:
        pass
    return None


PREDICATES = ("sockmap", "debian-kernel", "dkms", "dkms-debian12")


def holds(pred, t, row):
    if pred == "sockmap":
        return not os.path.exists(os.path.join(TOP, "series", t, "refuse"))
    if pred == "debian-kernel":
        return image(t) is not None
    if pred == "dkms":
        return os.path.exists(os.path.join(TOP, "series", t, "debian-headers"))
    if pred == "dkms-debian12":
        return image(t, "debian-headers") == "bookworm"
    die("%s:%d: unknown predicate '%s'" % (TABLE, row["_line"], pred),
        "use one of " + " ".join(PREDICATES))


class Stage:
    """One instance of a row: the row's fields with {T}, {TREE} and
    {IMAGE} filled in."""

    def __init__(self, row, t, tree):
        self.row, self.t = row, t
        self.sub = {"{T}": t or "", "{TREE}": tree or "",
                    "{IMAGE}": (image(t) if t else None) or ""}
        self.name = self.fill(row["Stage"])

    def full(self):
        """Its Full reason, unless its Full-unless holds for its target."""
        u = self.row.get("Full-unless")
        if u and self.t and holds(u, self.t, self.row):
            return ""
        return self.fill(self.row.get("Full", ""))

    def fill(self, s):
        for k, v in self.sub.items():
            s = s.replace(k, v)
        return s

    def words(self, field):
        return self.fill(self.row.get(field, "")).split()


def instances(rows, known):
    """Every row's instances, in table order (a row over {T} for each
    target its When holds for, over {TREE} for each of its Trees)."""
    out = []
    for r in rows:
        over_t = "{T}" in r["Stage"] or "{IMAGE}" in r["Stage"]
        for t in (known if over_t else [None]):
            if t and "When" in r and not holds(r["When"], t, r):
                continue
            for tree in (r["Trees"].split() if "Trees" in r else [None]):
                out.append(Stage(r, t, tree))
    return out


def by_name(all_st, name):
    """The instance NAME is, and the substitutions that make it (an If row's
    $(VAR) is a number in its name)."""
    for s in all_st:
        if s.name == name:
            return s, {}
        if "$(" in s.name:
            pat = re.escape(s.name).replace(re.escape("$(PATCHES)"), "(?P<PATCHES>[0-9]+)")
            m = re.fullmatch(pat, name)
            if m:
                return s, {"$(PATCHES)": m.group("PATCHES")}
    die("no stage '%s' in %s" % (name, TABLE), "pipeline/stagegen --names")


def role_paths(s, field, extra=None):
    """(ROLE, PATH) of each ROLE=PATH word of FIELD, filled in and with the
    environment's $RXKIT_CACHE and $RXKIT_OUT; a role with Parts stands
    for PATH/PART of each of its parts.  Every ROLE is declared (check_rows)."""
    out = []
    for w in s.words(field):
        role, sep, path = w.partition("=")
        if not sep or not path.startswith(("$RXKIT_CACHE/", "$RXKIT_OUT/")):
            die("%s:%d: %s of %s: '%s' is not ROLE=PATH under $RXKIT_CACHE or $RXKIT_OUT"
                % (TABLE, s.row["_line"], field, s.name, w), "mend the row")
        for k, v in (extra or {}).items():
            path = path.replace(k, v)
        path = os.path.expandvars(path)
        parts = ROLES[role].get("Parts", "").split()
        out.extend((role, path + "/" + p) for p in parts) if parts else out.append((role, path))
    return out


def paths(s, field, extra=None):
    """The paths of FIELD (role_paths)."""
    return [p for _, p in role_paths(s, field, extra)]


def area(path):
    """The part of $RXKIT_OUT a Produces path reaches: the path, or the
    folder of a file (but a file of $RXKIT_OUT itself alone)."""
    folder, last = path.rsplit("/", 1)
    if ("." in last or "*" in last) and folder != os.path.expandvars("$RXKIT_OUT"):
        return folder
    return path


def edges(s):
    """The stage names s needs or waits for, as the table writes them for
    TARGET = s's target (HEAD and {TARGET} are that target's)."""
    t = s.t or ""
    words = re.findall(r"cores\(([^)]*)\)|(\S+)", s.fill(s.row.get("After", "")))
    out = s.words("Needs")
    for inner, w in words:
        for x in (inner.split() if inner else [w]):
            x = x.replace("{TARGET}", t).replace("{EACH}", t).replace("{KNOWN}", t)
            out.append("build-%s-patched" % t if x in ("HEAD", "HEAD-if-other") else x)
    return out


def check_rows(rows):
    seen = set()
    for r in rows:
        if "Stage" in r:
            if "Command" not in r:
                die("%s:%d: stage %s has no Command" % (TABLE, r["_line"], r["Stage"]),
                    "give it one")
            for w in r.get("Tiers", "").split() + r.get("Others", "").split():
                if w not in TIERS:
                    die("%s:%d: unknown tier '%s'" % (TABLE, r["_line"], w),
                        "use one of " + " ".join(TIERS))
            if "Full-unless" in r:
                if "Full" not in r:
                    die("%s:%d: stage %s: Full-unless without a Full" % (TABLE, r["_line"], r["Stage"]),
                        "give it the Full reason the predicate lifts")
                if r["Full-unless"] not in PREDICATES:
                    die("%s:%d: stage %s: unknown predicate '%s'" % (TABLE, r["_line"], r["Stage"],
                        r["Full-unless"]), "use one of " + " ".join(PREDICATES))
            for k in ("Full", "Full-others"):
                if "'" in r.get(k, ""):
                    die("%s:%d: stage %s: a quote in its %s reason (the skip record quotes it)"
                        % (TABLE, r["_line"], r["Stage"], k), "word the reason without one")
            key = r["Stage"]
            if r.get("Gitlab", "test") not in GITLAB_STAGES:
                die("%s:%d: stage %s: unknown GitLab stage '%s'" % (TABLE, r["_line"], key, r["Gitlab"]),
                    "use one of " + " ".join(GITLAB_STAGES))
            if "Schedule" in r and (r.get("Tiers") or r.get("Others")
                                    or not re.fullmatch(r"[a-z][a-z0-9-]*", r["Schedule"])):
                die("%s:%d: stage %s: a Schedule is a word, for a stage of no tier"
                    % (TABLE, r["_line"], key), "drop its Tiers and Others, or its Schedule")
            if r.get("Runner", "privileged") != "privileged":
                die("%s:%d: stage %s: unknown runner '%s'" % (TABLE, r["_line"], key, r["Runner"]),
                    "use privileged, or no Runner")
            if r.get("Image", "base") != "base":
                die("%s:%d: stage %s: unknown Image '%s'" % (TABLE, r["_line"], key, r["Image"]),
                    "use base, or no Image")
            if "Docs" in r and "Schedule" in r:
                die("%s:%d: stage %s: Docs and a Schedule (a scheduled job runs on no change)"
                    % (TABLE, r["_line"], key), "drop one")
            if key in GITLAB_WORDS:
                die("%s:%d: stage %s: a GitLab keyword, so no job name" % (TABLE, r["_line"], key),
                    "name it for what it checks")
        elif "Role" in r:
            key = "role " + r["Role"]
            if r.get("Carry", "artefact") not in CARRIES:
                die("%s:%d: role %s: unknown Carry '%s'" % (TABLE, r["_line"], r["Role"], r["Carry"]),
                    "use one of " + " ".join(CARRIES))
            ROLES[r["Role"]] = r
        elif "Documentation" in r:
            key = "the documentation"
        else:
            key = "group " + r.get("Group", "?")
        if key in seen:
            die("%s:%d: %s declared twice" % (TABLE, r["_line"], key), "keep one row")
        seen.add(key)
    for r in rows:
        for field in ("Consumes", "Produces"):
            for w in r.get(field, "").split():
                if w.partition("=")[0] not in ROLES:
                    die("%s:%d: %s of %s: no role '%s'" % (TABLE, r["_line"], field, r["Stage"],
                                                           w.partition("=")[0]),
                        "declare it in a Role paragraph of %s" % TABLE)
        for w in r.get("Consumes", "").split():
            how = ROLES[w.partition("=")[0]].get("Carry")
            if how in ("registry", "image"):
                die("%s:%d: stage %s consumes %s, which no job gets (Carry %s)"
                    % (TABLE, r["_line"], r["Stage"], w.partition("=")[0], how),
                    "carry that role as an artefact")
