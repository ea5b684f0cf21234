# SPDX-License-Identifier: GPL-2.0
# tests/commands.awk: the commands a set of shell scripts run, for the
# commands_packaged test of tests/commands.sh.
#
#   awk -f tests/commands.awk -f tests/commands-make.awk type=sh FILE... \
#       type=make debian/rules type=spec rpm/FILE.spec.in
#
# This file is the shell lexer; tests/commands-make.awk the front ends
# that turn makefile and spec lines into shell for it.
#
# type=sh (the default): POSIX sh.  type=make: the recipe lines (and the
# $(shell ...) calls) of a makefile, make's variables expanded where they
# are defined in the file, $(MAKE) as make.  type=spec: the build sections
# of an RPM spec (%prep %build %install %check %clean; the scriptlets run
# on the installing system), macros and @KEY@ fields as opaque words.
#
# Output, sorted by the caller:
#   cmd NAME FILE        FILE runs NAME (a word at a command position)
#   func NAME FILE       FILE defines the shell function NAME
#   need TOOL PKG FILE   FILE calls "need TOOL PKG" (ci/lib.sh)
#   dyn $VAR FILE        FILE runs $VAR, a variable without a literal value
#   warn FILE MESSAGE    the lexer lost track in FILE
#
# A lexer, not a parser.  It knows quotes (single-quoted text is never
# scanned: awk and sed programs), $( ), ` `, ${ }, $(( )), here-documents
# (a quoted one is skipped, an unquoted one scanned for $( ) and ` `),
# comments, redirections, case patterns, the reserved words, function
# definitions, and the commands whose argument is a command (env, exec,
# command, xargs, nice, nohup, sudo, fakeroot, setsid, timeout N, find
# -exec).  A command given by a variable ($QEMU) is the literal value(s)
# assigned to that variable anywhere in the files.

BEGIN {
	split("if then else elif fi do done case esac while until for { } !", _k, " ")
	for (_i in _k) KW[_k[_i]] = 1
	split("fi done } esac", _k, " ")
	for (_i in _k) CLOSER[_k[_i]] = 1
	split("env exec command xargs nice nohup sudo fakeroot setsid", _k, " ")
	for (_i in _k) WRAP[_k[_i]] = 0
	WRAP["timeout"] = 1
	NAMERE = "^[a-z][a-z0-9._+-]*$"
	ASSIGNRE = "^[A-Za-z_][A-Za-z0-9_]*="
	OPAQUE = "\002"
	type = "sh"
}

FNR == 1 { newfile() }

{
	line = $0
	if (hdon) { heredoc_line(line); next }
	if (type == "make") { make_line(line); next }
	if (type == "spec") { spec_line(line); next }
	scan(line "\n")
}

END {
	newfile()
	for (k in OUT) {
		split(k, f, SUBSEP)
		if (f[1] == "var") {
			n = split(VALS[f[2]], v, " ")
			for (j = 1; j <= n; j++)
				if (v[j] ~ NAMERE) print "cmd", v[j], f[3]
			if (n == 0) print "dyn", "$" f[2], f[3]
		} else if (f[1] == "need" && f[2] ~ /^\$/) {
			n = split(VALS[substr(f[2], 2)], v, " ")
			for (j = 1; j <= n; j++) {
				print "need", v[j], f[3], f[4]
				print "cmd", v[j], f[4]
			}
			if (n == 0) print "dyn", f[2], f[4]
		} else if (f[1] == "need") {
			print "need", f[2], f[3], f[4]
			print "cmd", f[2], f[4]
		} else {
			print f[1], f[2], f[3]
		}
	}
}

function emit(a, b, c, d)
{
	if (d != "") OUT[a, b, c, d] = 1
	else OUT[a, b, c] = 1
}

# The previous file must have ended at the top level.
function newfile()
{
	if (file != "" && (sp != 0 || sq || cs != 0 || hdon))
		emit("warn", file, "ends inside a construct (level " sp " " T[sp] ", quote " sq ", case " cs ", here-document " hdon ")")
	file = FILENAME
	sp = 0; T[0] = "c"; resetw(0); resetcmd(0)
	sq = 0; cs = 0; nhd = 0; hdi = 0; hdon = 0
	sect = ""
	split("", MKV)
	mkcont = 0; mkinrec = 0; mkvcont = 0; mkvname = ""
}

function resetw(l) { W[l] = ""; LIT[l] = 1; Q[l] = 0; QS[l] = -1 }

# setq: the word has a quoted part from here on.
function setq() { if (!Q[sp]) { Q[sp] = 1; QS[sp] = length(W[sp]) } }

# isassign W: NAME=... with NAME= unquoted.
function isassign(w) { return w ~ ASSIGNRE && (!Q[sp] || QS[sp] >= index(w, "=")) }

function resetcmd(l)
{
	CMD[l] = 1; RED[l] = 0; HD[l] = 0; WR[l] = -1; WC[l] = ""; ND[l] = 0; CN[l] = ""
}

function push(t)
{
	sp++
	T[sp] = t
	resetw(sp)
	resetcmd(sp)
	AD[sp] = 0
}

# pop: close the current level, its text becomes part of the word around it.
function pop(   c)
{
	c = sp
	sp--
	if (T[c] == "d") {
		W[sp] = W[sp] W[c]
		if (!LIT[c]) LIT[sp] = 0
		Q[sp] = 1
	} else if (T[c] == "p" && W[c] ~ /^[A-Za-z_][A-Za-z0-9_]*$/) {
		W[sp] = W[sp] "$" W[c]
	} else {
		W[sp] = W[sp] OPAQUE
		LIT[sp] = 0
	}
}

function inpat() { return cs > 0 && CSP[cs] == sp && CST[cs] == "pat" }

# dollar S I: a $ or ` at S[I] in any level but a single quote; returns the
# index of the last character consumed.
function dollar(s, i,   c, c2, nm)
{
	c = substr(s, i, 1)
	if (c == "`") {
		if (T[sp] == "b") { endword(); endcmd(); pop() }
		else push("b")
		return i
	}
	c2 = substr(s, i + 1, 1)
	if (c2 == "(") {
		if (substr(s, i + 2, 1) == "(") { push("a"); return i + 2 }
		push("c")
		return i + 1
	}
	if (c2 == "{") { push("p"); return i + 1 }
	if (c2 ~ /[A-Za-z_]/) {
		nm = substr(s, i + 1)
		match(nm, /^[A-Za-z_][A-Za-z0-9_]*/)
		W[sp] = W[sp] "$" substr(nm, 1, RLENGTH)
		return i + RLENGTH
	}
	if (c2 ~ /[0-9@*#?$!-]/) {
		W[sp] = W[sp] OPAQUE
		LIT[sp] = 0
		return i + 1
	}
	W[sp] = W[sp] c
	return i
}

function scan(s,   i, n, c, c2, t)
{
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (sq) {
			if (c == "'") sq = 0
			else W[sp] = W[sp] c
			continue
		}
		t = T[sp]
		if (c == "\\") {
			c2 = substr(s, i + 1, 1)
			i++
			if (c2 != "\n" && t != "a") { setq(); W[sp] = W[sp] c2 }
			continue
		}
		if (t == "d" || t == "h") {
			if (c == "\"" && t == "d") pop()
			else if (c == "$" || c == "`") i = dollar(s, i)
			else W[sp] = W[sp] c
			continue
		}
		if (t == "p") {
			if (c == "}") pop()
			else if (c == "\"") push("d")
			else if (c == "'" && T[sp - 1] != "d") sq = 1
			else if (c == "$" || c == "`") i = dollar(s, i)
			else W[sp] = W[sp] c
			continue
		}
		if (t == "a") {
			if (c == "(") AD[sp]++
			else if (c == ")") {
				if (AD[sp] > 0) AD[sp]--
				else { i++; pop() }
			} else if (c == "$" || c == "`") i = dollar(s, i)
			continue
		}
		# A command level: the top, $( ), ( ) or ` `.
		if (c == " " || c == "\t") { endword(); continue }
		if (c == "\n") {
			endword()
			if (!inpat()) endcmd()
			if (nhd > hdi) hdon = 1
			continue
		}
		if (c == "#" && W[sp] == "" && !Q[sp]) { i = n - 1; continue }
		if (c == "'") { sq = 1; setq(); continue }
		if (c == "\"") { setq(); push("d"); continue }
		if (c == "$" || c == "`") { i = dollar(s, i); continue }
		if (inpat()) {
			if (c == "|") { endword(); continue }
			if (c != ")") {
				if (c != "(" || W[sp] != "") W[sp] = W[sp] c
				continue
			}
			endword()
			# The end of a pattern, or "esac)" closing a $( ).
			if (inpat()) { CST[cs] = "body"; resetcmd(sp); continue }
		}
		if (c == ";") {
			endword(); endcmd()
			c2 = substr(s, i + 1, 1)
			if (c2 == ";") {
				i++
				if (cs > 0 && CSP[cs] == sp) CST[cs] = "pat"
			} else if (c2 == "&") i++
			continue
		}
		if (c == "&" || c == "|") {
			endword(); endcmd()
			if (substr(s, i + 1, 1) == c) i++
			continue
		}
		if (c == "<" || c == ">") {
			if (W[sp] ~ /^[0-9]+$/ && !Q[sp]) resetw(sp)
			endword()
			c2 = substr(s, i + 1, 1)
			if (c == "<" && c2 == "<") {
				i++
				HD[sp] = 1
				if (substr(s, i + 1, 1) == "-") { i++; HD[sp] = 2 }
			} else if (c2 == "&" || c2 == ">" || c2 == "|" || (c == "<" && c2 == ">"))
				i++
			RED[sp] = 1
			continue
		}
		if (c == "(") {
			if (W[sp] != "" && CMD[sp] && !RED[sp]) {
				# name(): a function definition.
				emit("func", W[sp], file)
				resetw(sp)
				if (substr(s, i + 1, 1) == ")") i++
				continue
			}
			endword()
			push("c")
			continue
		}
		if (c == ")") {
			endword(); endcmd()
			if (sp > 0 && T[sp] == "c") pop()
			continue
		}
		W[sp] = W[sp] c
	}
}

function endword(   w)
{
	w = W[sp]
	if (w == "" && !Q[sp]) return
	if (inpat()) {
		if (w == "esac" && !Q[sp]) { cs--; CMD[sp] = 0 }
	} else if (RED[sp]) {
		if (HD[sp]) {
			nhd++
			HDD[nhd] = w; HDQ[nhd] = Q[sp]; HDS[nhd] = (HD[sp] == 2)
			HD[sp] = 0
		}
		RED[sp] = 0
	} else if (CMD[sp]) {
		cmdword(w)
	} else {
		argword(w)
	}
	resetw(sp)
}

function endcmd()
{
	if (ND[sp] >= 3) emit("need", NA1[sp], NA2[sp], file)
	resetcmd(sp)
}

# assign W: NAME=VALUE; a literal value that may name a command is kept.
function assign(w,   nm, v)
{
	nm = w
	sub(/=.*/, "", nm)
	v = substr(w, length(nm) + 2)
	if (LIT[sp] && v ~ NAMERE && (" " VALS[nm] " ") !~ (" " v " "))
		VALS[nm] = VALS[nm] (VALS[nm] == "" ? "" : " ") v
}

function cmdword(w,   name, v, n, j, vv)
{
	if (isassign(w)) { assign(w); return }
	if (!Q[sp] && (w in KW)) {
		if (w == "case") { cs++; CSP[cs] = sp; CST[cs] = "head"; CMD[sp] = 0 }
		else if (w == "esac") { if (cs > 0 && CSP[cs] == sp) cs--; CMD[sp] = 0 }
		else if (w == "for" || (w in CLOSER)) CMD[sp] = 0
		return
	}
	CMD[sp] = 0
	name = ""
	if (w ~ /^\$[A-Za-z_][A-Za-z0-9_]*$/) {
		v = substr(w, 2)
		if (!(v in VALS)) { emit("var", v, file); return }
		n = split(VALS[v], vv, " ")
		for (j = 2; j <= n; j++) emit("cmd", vv[j], file)
		name = vv[1]
	} else if (LIT[sp] && w !~ /[$\002]/) {
		name = w
		if (name ~ /^\/(usr\/)?s?bin\/[^\/]+$/) sub(/.*\//, "", name)
	}
	CN[sp] = name
	if (name !~ NAMERE) return
	emit("cmd", name, file)
	if (name in WRAP) { WR[sp] = WRAP[name]; WC[sp] = name }
	if (name == "need") ND[sp] = 1
}

function argword(w)
{
	if (cs > 0 && CSP[cs] == sp && CST[cs] == "head") {
		if (w == "in" && !Q[sp]) CST[cs] = "pat"
		return
	}
	if (ND[sp]) {
		ND[sp]++
		if (ND[sp] == 2) NA1[sp] = w
		else if (ND[sp] == 3) NA2[sp] = w
	}
	if (CN[sp] == "find" && w ~ /^-(exec|execdir|ok|okdir)$/) {
		WR[sp] = 0; WC[sp] = "find"
		return
	}
	if (WR[sp] >= 0) {
		if (w ~ /^-/) {
			if (WC[sp] == "command" && w ~ /^-[vV]/) WR[sp] = -1
			return
		}
		if (w ~ ASSIGNRE) return
		if (WR[sp] > 0) { WR[sp]--; return }
		WR[sp] = -1
		CMD[sp] = 1
		cmdword(w)
		return
	}
	# readonly NAME=VALUE, local, export
	if (isassign(w)) assign(w)
}

function heredoc_line(l,   base)
{
	if (HDS[hdi + 1]) sub(/^\t+/, "", l)
	if (l == HDD[hdi + 1]) {
		hdi++
		if (hdi == nhd) { hdon = 0; nhd = 0; hdi = 0 }
		return
	}
	if (HDQ[hdi + 1]) return
	# Unquoted: $( ) and ` ` run.
	base = sp
	push("h")
	scan(l "\n")
	sp = base
	sq = 0
}
