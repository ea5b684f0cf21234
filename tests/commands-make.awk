# SPDX-License-Identifier: GPL-2.0
# tests/commands-make.awk: the makefile and RPM spec front ends of
# tests/commands.awk (loaded with it: awk -f tests/commands.awk -f
# tests/commands-make.awk ...): make_line and spec_line turn a line of a
# makefile's recipes or a spec's build sections into shell for scan().

# A makefile: make's references expanded (variables of the file by their
# value, $(MAKE) as make, anything else an opaque word), $$ as $.
function make_expand(s, depth,   st, ln, inner, r)
{
	gsub(/\$\$/, "\001", s)
	# Automatic variables first: a computed name, $(one.$@), is opaque.
	gsub(/\$[@<^*?%+|]/, "_mk_", s)
	while (match(s, /\$[({][^$(){}]*[)}]/)) {
		st = RSTART; ln = RLENGTH
		inner = substr(s, st + 2, ln - 3)
		if (inner == "MAKE") r = "make"
		else if (inner ~ /^shell[ \t]/) {
			sub(/^shell[ \t]+/, "", inner)
			gsub(/\001/, "$", inner)
			scan(inner "\n")
			r = "_mk_"
		} else if ((inner in MKV) && depth < 8) r = make_expand(MKV[inner], depth + 1)
		else r = "_mk_"
		s = substr(s, 1, st - 1) r substr(s, st + ln)
	}
	gsub(/\$[A-Za-z]/, "_mk_", s)
	gsub(/\001/, "$", s)
	return s
}

function make_line(l,   nm, v)
{
	# The continuation of a line that is no recipe (it may start with a
	# tab): an assignment's value goes on.
	if (mkvcont) {
		mkvcont = (l ~ /\\$/)
		v = l; sub(/^[ \t]+/, "", v); sub(/[ \t]*\\$/, "", v)
		if (mkvname != "") MKV[mkvname] = MKV[mkvname] " " v
		make_expand(l, 0)
		return
	}
	if (l ~ /^\t/ || mkcont) {
		mkcont = (l ~ /\\$/)
		sub(/^\t/, "", l)
		if (!mkinrec) sub(/^[@+-]+/, "", l)
		mkinrec = mkcont
		scan(make_expand(l, 0) "\n")
		return
	}
	mkinrec = 0
	if (l ~ /^[ \t]*#/) return
	mkvcont = (l ~ /\\$/)
	mkvname = ""
	# NAME = VALUE (also :=, ::=, ?=, +=, export NAME = ..., and the
	# target-specific TARGET: NAME = VALUE): recorded, $(shell) run.
	if (match(l, /^(export[ \t]+|[^:#=]*:[ \t]*)?[A-Za-z_][A-Za-z0-9_]*[ \t]*(::|:|\?|\+)?=/)) {
		nm = substr(l, 1, RLENGTH)
		sub(/^(export[ \t]+|[^:#=]*:[ \t]*)/, "", nm)
		sub(/[ \t]*(::|:|\?|\+)?=$/, "", nm)
		MKV[nm] = substr(l, RLENGTH + 1)
		sub(/^[ \t]+/, "", MKV[nm])
		sub(/[ \t]*\\$/, "", MKV[nm])
		mkvname = nm
	}
	make_expand(l, 0)
}

# An RPM spec: the shell of the build sections; %(...) of the preamble.
function spec_line(l,   m, st, ln)
{
	if (l ~ /^%(prep|build|install|check|clean)([ \t]|$)/) { sect = "sh"; return }
	if (l ~ /^%(package|description|files|changelog|pre|post|preun|postun|pretrans|posttrans|trigger[a-z]*|verifyscript)([ \t]|$)/) {
		sect = ""
		return
	}
	gsub(/%%/, "\001", l)
	while (match(l, /%\([^()]*\)/)) {
		st = RSTART; ln = RLENGTH
		m = substr(l, st + 2, ln - 3)
		gsub(/\001/, "%", m)
		scan(m "\n")
		l = substr(l, 1, st - 1) "_rpm_" substr(l, st + ln)
	}
	if (sect != "sh" || l ~ /^%[a-z]/) return
	while (match(l, /%\{[^{}]*\}/))
		l = substr(l, 1, RSTART - 1) "_rpm_" substr(l, RSTART + RLENGTH)
	gsub(/%[A-Za-z_][A-Za-z0-9_]*/, "_rpm_", l)
	gsub(/@[A-Z_]+@/, "_at_", l)
	gsub(/\001/, "%", l)
	scan(l "\n")
}
