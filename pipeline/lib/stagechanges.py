# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/stagechanges.py: the kit's tracked files that are not its
# documentation (pipeline/stage-table: the Documentation paragraph), as the
# fewest rules:changes globs of .gitlab-ci.yml.  A change none of them
# matches is a change of documentation alone: its pipeline runs the jobs of
# the stages with a Docs field, and no other.  Imported by pipeline/stagegen
# (--changes).

import fnmatch
import subprocess

from stagetable import TABLE, TOP, die


def pmatch(path, pat):
    """PATH matches PAT component by component (a * stays in its folder),
    as GitLab's File.fnmatch with FNM_PATHNAME."""
    a, b = path.split("/"), pat.split("/")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(a, b))


def tracked():
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        die("git ls-files failed in %s" % TOP, "run pipeline/stagegen in the kit's git checkout")
    return sorted(p for p in out.split("\0") if p)


def covering(files, pats, prefix=""):
    """Globs for every file of FILES (all under PREFIX) that no pattern of
    PATS matches: a folder without documentation as one FOLDER/**/*, the
    others file by file and folder by folder."""
    out, folders = [], {}
    for f in files:
        rest = f[len(prefix):]
        if "/" in rest:
            folders.setdefault(rest.split("/", 1)[0], []).append(f)
        elif not any(pmatch(f, p) for p in pats):
            out.append(f)
    for d, sub in sorted(folders.items()):
        if any(pmatch(f, p) for f in sub for p in pats):
            out.extend(covering(sub, pats, prefix + d + "/"))
        else:
            out.append(prefix + d + "/**/*")
    return out


def code_globs(rows):
    docs = [r for r in rows if "Documentation" in r]
    if not docs:
        die("%s: no Documentation paragraph" % TABLE,
            "name the kit's documentation in one (a documentation-only change runs the Docs jobs)")
    pats, line = docs[0]["Documentation"].split(), docs[0]["_line"]
    files = tracked()
    for p in pats:
        if not any(pmatch(f, p) for f in files):
            die("%s:%d: Documentation: '%s' is no file of the kit" % (TABLE, line, p),
                "name tracked files (a * stays in its folder)")
    return covering(files, pats)
