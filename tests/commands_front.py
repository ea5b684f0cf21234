# SPDX-License-Identifier: GPL-2.0
"""tests/commands_front.py: the makefile and RPM spec front ends of
tests/commands-scan: the shell text make and rpmbuild would run, for
shfmt to parse.  read() of each gives [(LINE, TEXT)]: each shell line with
the line of the file it comes from."""

import re


class Make:
    """A makefile's shell: each recipe line (and its continuations) with
    the file's variables expanded, and the text of each $(shell ...)."""

    REF = re.compile(r"\$[({][^$(){}]*[)}]")
    DEF = re.compile(r"(export[ \t]+|[^:#=]*:[ \t]*)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*(::|:|\?|\+)?=")

    def __init__(self):
        self.vars, self.calls = {}, []

    def expand(self, s, n, depth=0):
        """s with make's references expanded: $(MAKE) as make, a variable
        of the file by its value, anything else an opaque word; $$ as $."""
        s = s.replace("$$", "\x01")
        # Automatic variables first: a computed name, $(one.$@), is opaque.
        s = re.sub(r"\$[@<^*?%+|]", "_mk_", s)
        m = self.REF.search(s)
        while m:
            inner = m.group()[2:-1]
            if inner == "MAKE":
                r = "make"
            elif re.match(r"shell[ \t]", inner):
                self.calls.append((n, re.sub(r"^shell[ \t]+", "", inner).replace("\x01", "$")))
                r = "_mk_"
            elif inner in self.vars and depth < 8:
                r = self.expand(self.vars[inner], n, depth + 1)
            else:
                r = "_mk_"
            s = s[:m.start()] + r + s[m.end():]
            m = self.REF.search(s)
        return re.sub(r"\$[A-Za-z]", "_mk_", s).replace("\x01", "$")

    def recipe(self, n, lines):
        """A recipe line and its continuations, from line n: expanded as
        one (a make function's call may span them), the shell's lines."""
        out = self.expand("\n".join(lines), n).split("\n")
        return [(min(n + i, n + len(lines) - 1), t) for i, t in enumerate(out)]

    def read(self, text):
        cont = inrec = vcont = False
        vname, rec, recipes = None, [], []
        for n, line in enumerate(text.split("\n"), 1):
            if vcont:
                # An assignment's value goes on (the line may start with a tab).
                vcont = line.endswith("\\")
                if vname:
                    self.vars[vname] += " " + re.sub(r"[ \t]*\\$", "", line.lstrip(" \t"))
                self.expand(line, n)
            elif line.startswith("\t") or cont:
                cont = line.endswith("\\")
                line = line[1:] if line.startswith("\t") else line
                rec.append(line if inrec else line.lstrip("@+-"))
                inrec = cont
                if not cont:
                    recipes.append((n - len(rec) + 1, rec))
                    rec = []
            elif not re.match(r"[ \t]*#", line):
                inrec = False
                vcont, vname = line.endswith("\\"), None
                m = self.DEF.match(line)
                if m:
                    vname = m.group(2)
                    self.vars[vname] = re.sub(r"[ \t]*\\$", "", line[m.end():].lstrip(" \t"))
                self.expand(line, n)
            else:
                inrec = False
        if rec:
            recipes.append((n - len(rec) + 1, rec))
        # Expanded when all is read, as make runs them: with every variable.
        lines = [x for n, r in recipes for x in self.recipe(n, r)]
        return lines + self.calls


class Spec:
    """An RPM spec's shell: its build sections, macros as opaque words,
    and the text of each %(...)."""

    BUILD = re.compile(r"%(prep|build|install|check|clean)([ \t]|$)")
    OTHER = re.compile(r"%(package|description|files|changelog|pre|post|preun|postun|"
                       r"pretrans|posttrans|trigger[a-z]*|verifyscript)([ \t]|$)")

    def read(self, text):
        lines, calls, sh = [], [], False
        for n, line in enumerate(text.split("\n"), 1):
            if self.BUILD.match(line) or self.OTHER.match(line):
                sh = self.BUILD.match(line) is not None
                continue
            line = line.replace("%%", "\x01")
            m = re.search(r"%\([^()]*\)", line)
            while m:
                calls.append((n, m.group()[2:-1].replace("\x01", "%")))
                line = line[:m.start()] + "_rpm_" + line[m.end():]
                m = re.search(r"%\([^()]*\)", line)
            if not sh or re.match(r"%[a-z]", line):
                continue
            while re.search(r"%\{[^{}]*\}", line):
                line = re.sub(r"%\{[^{}]*\}", "_rpm_", line)
            line = re.sub(r"%[A-Za-z_][A-Za-z0-9_]*", "_rpm_", line)
            line = re.sub(r"@[A-Z_]+@", "_at_", line).replace("\x01", "%")
            lines.append((n, line))
        return lines + calls
