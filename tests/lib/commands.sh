# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The commands the kit's scripts run, found and matched to packages, for
# tests/commands.sh (commands_packaged).  Sourced after tests/lib/static.sh.
# shellcheck disable=SC2154 # work: the suite's

# commands_scan: tests/commands-scan (shfmt's parse of each script; its
# front ends in tests/commands_front.py) over the kit's host-side scripts:
# shell_files (tests/lib/static.sh) except the busybox guest's
# (tests/guest/, bench/guest/), tests/fixtures/, bench/fixtures/ and the maintainer scripts debian/*.in,
# which run on the installing system (their needs are the packages'
# Depends); the recipes of Makefile, debian/rules and every *.mk; the build
# sections of the RPM spec; RXKIT_COMMANDS_EXTRA.  Also writes
# $work/cmd.kit, the names of the kit's own executables; the scanner's
# errors into $work/cmd.err.
commands_scan()
{
	local f=
	kit_files > "$work/cmd.tracked" || return 1
	shell_list "$work/cmd.shell" || return 1
	grep -v '^tests/guest/\|^bench/guest/\|^tests/fixtures/\|^bench/fixtures/\|^debian/.*\.in$' "$work/cmd.shell" > "$work/cmd.files"
	grep -x 'Makefile\|GNUmakefile\|debian/rules\|.*\.mk' "$work/cmd.tracked" > "$work/cmd.make" || :
	(
		cd "$RXKIT_TOP" || exit 1
		while read -r f; do
			[ ! -x "$f" ] || echo "${f##*/}"
		done < "$work/cmd.tracked" > "$work/cmd.kit"
		# shellcheck disable=SC2046,SC2086
		tests/commands-scan $(cat "$work/cmd.files") ${RXKIT_COMMANDS_EXTRA:-} \
			--make $(cat "$work/cmd.make") --spec rpm/*.spec.in
	) > "$work/cmd.raw" 2> "$work/cmd.err" || return 1
	sort -u "$work/cmd.raw" > "$work/cmd.scan"
}

# commands_names: $work/cmd.names, "NAME FILE,FILE..." for each command the
# scan found, less the builtins, the kit's functions and its executables.
commands_names()
{
	local b=
	{
		for b in $SH_BUILTINS; do echo "drop $b"; done
		awk '$1 == "func" { print "drop", $2 }' "$work/cmd.scan"
		sed 's/^/drop /' "$work/cmd.kit"
		awk '$1 == "cmd"' "$work/cmd.scan"
	} | awk '$1 == "drop" { d[$2] = 1; next }
		!($2 in d) { f[$2] = f[$2] (f[$2] == "" ? "" : ",") $3 }
		END { for (n in f) print n, f[n] }' | sort > "$work/cmd.names"
}

# commands_ignore FILE: FILE's entries into $work/cmd.ignore; false, saying
# why, for an entry without a reason or one the scan no longer finds.
commands_ignore()
{
	local rc=0 n= why=
	grep -v '^[[:space:]]*\(#\|$\)' "$1" > "$work/cmd.ignore" 2>/dev/null || :
	while read -r n why; do
		[ -n "$why" ] || { echo "# ${1##*/}: '$n' has no reason"; rc=1; }
		grep -q "^$n " "$work/cmd.names" ||
			{ echo "# ${1##*/}: stale entry '$n': the scripts no longer run it"; rc=1; }
	done < "$work/cmd.ignore"
	return "$rc"
}

# commands_paths: $work/cmd.paths, "NAME PATH..." with each command's path
# as found (sbin too), its merged-/usr twin, then each link; NAME alone
# when it is no command here.
commands_paths()
{
	local n= f= p= c= i= l=
	while read -r n f; do
		# Debian's folders first: not a copy in /usr/local or ~.
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$n" 2>/dev/null) ||
			p=$(command -v "$n" 2>/dev/null) || p=
		c=
		i=0
		while [ -n "$p" ] && [ "$i" -lt 5 ]; do
			case "$p" in
			/*) ;;
			*) break ;;
			esac
			c="$c $p $(twin "$p")"
			[ -L "$p" ] || break
			l=$(readlink "$p")
			case "$l" in
			/*) p=$l ;;
			*) p="$(dirname "$p")/$l" ;;
			esac
			i=$((i + 1))
		done
		printf '%s %s\n' "$n" "$c"
	done < "$work/cmd.names" > "$work/cmd.paths"
}

# commands_packages: the owners of the paths ($work/cmd.owners, "PATH
# PKG..."), the allowed packages (cmd.deps: ci/deps), the hard
# dependencies of those and of the packages need calls name (cmd.pulled,
# "DEP PACKAGE"; "a | b" guarantees neither) and each owner's priority
# (cmd.prio).
commands_packages()
{
	# One dpkg -S for every path: "pkg[:arch][, pkg...]: path".
	# shellcheck disable=SC2046
	dpkg -S $(awk '{ for (i = 2; i <= NF; i++) print $i }' "$work/cmd.paths" | sort -u) \
		2>/dev/null | grep -v '^diversion ' |
		awk '{ i = index($0, ": "); p = substr($0, i + 2); l = substr($0, 1, i - 1)
			gsub(/:[a-z0-9_-]+/, "", l); gsub(/,/, "", l); print p, l }' > "$work/cmd.owners" || :
	if [ -n "${RXKIT_DEPS_LIST:-}" ]; then
		cat "$RXKIT_DEPS_LIST"
	else
		"$RXKIT_TOP/ci/deps" --list
	fi | awk 'NF { print $1 }' | sort -u > "$work/cmd.deps"
	# shellcheck disable=SC2046
	dpkg-query -W -f='${Package} ${Depends}, ${Pre-Depends}\n' $(cat "$work/cmd.deps") \
		$(awk '$1 == "need" { print $3 }' "$work/cmd.scan" | sort -u) 2>/dev/null |
		awk '{ p = $1; $1 = ""; n = split($0, d, ",")
			for (i = 1; i <= n; i++) {
				if (d[i] ~ /\|/) continue
				sub(/\(.*/, "", d[i]); sub(/:[a-z]+/, "", d[i]); gsub(/[ \t]/, "", d[i])
				if (d[i] != "") print d[i], p
			} }' | sort -u > "$work/cmd.pulled"
	# shellcheck disable=SC2046
	dpkg-query -W -f='${Package} ${Priority}\n' \
		$(awk '{ for (i = 2; i <= NF; i++) print $i }' "$work/cmd.owners" | sort -u) \
		2>/dev/null > "$work/cmd.prio" || :
}

# commands_report IGNORE: $work/cmd.report, a line for each command: "# "
# and why it may be run, or "BAD " and what is wrong; and for each need
# call whose package lacks the tool.
commands_report()
{
	awk -v need="$work/cmd.scan" -v ign="$work/cmd.ignore" -v deps="$work/cmd.deps" \
	    -v pulled="$work/cmd.pulled" -v prio="$work/cmd.prio" -v owners="$work/cmd.owners" \
	    -v names="$work/cmd.names" -v list="${RXKIT_DEPS_LIST:-ci/deps}" -v ign_name="${1##*/}" '
		BEGIN {
			while ((getline l < ign) > 0) { split(l, a, " "); r = l; sub(/^[^ \t]*[ \t]+/, "", r); why[a[1]] = r }
			while ((getline l < deps) > 0) listed[l] = 1
			while ((getline l < pulled) > 0) {
				split(l, a, " ")
				if ((a[2] in listed) && !(a[1] in by)) by[a[1]] = a[2]
				dep[a[2], a[1]] = 1
			}
			while ((getline l < prio) > 0) { split(l, a, " "); pr[a[1]] = a[2] }
			while ((getline l < owners) > 0) { n = split(l, a, " "); for (i = 2; i <= n; i++) own[a[1]] = own[a[1]] " " a[i] }
			while ((getline l < names) > 0) { split(l, a, " "); files[a[1]] = a[2] }
			while ((getline l < need) > 0) { split(l, a, " "); if (a[1] == "need") needs[a[2]] = needs[a[2]] " " a[3] ":" a[4] }
		}
		# ok PKG: why PKG may be used, or "".
		function ok(p) {
			if (pr[p] == "required" || pr[p] == "important") return "priority " pr[p]
			if (p in listed) return "in " list
			if (p in by) return "note: Depends of " by[p] " (in " list ")"
			return ""
		}
		{
			nm = $1; path = ""; pk = ""
			for (i = 2; i <= NF; i++) if (own[$i] != "") { path = $i; pk = substr(own[$i], 2); break }
			if (NF == 1) {
				if (nm in why) { print "# " nm ": not a command here; in " ign_name ": " why[nm]; next }
				print "BAD " nm ": not a command on this machine (run by " files[nm] "): install it, or, when the scan took a word for a command, say why in the ignore file"
				next
			}
			if (pk == "") {
				if (nm in why) { print "# " nm ": " $2 ", of no package; in " ign_name ": " why[nm]; next }
				print "BAD " nm ": " $2 " belongs to no Debian package (run by " files[nm] ")"
				next
			}
			n = split(pk, ps, " "); reason = ""; which = ps[1]
			for (i = 1; i <= n && reason == ""; i++) { reason = ok(ps[i]); if (reason != "") which = ps[i] }
			if (nm in why) reason = (reason == "" ? "" : reason "; ") "in " ign_name ": " why[nm]
			if (reason == "")
				print "BAD " nm ": " path " (" which "), run by " files[nm] ": not in " list ", not priority required/important, no Depends of a listed package: add \"" which "  " files[nm] "\" to ci/deps"
			else
				print "# " nm ": " path " (" which "): " reason
			# need TOOL PKG: PKG has TOOL, or directly depends on its package.
			m = split(needs[nm], nd, " ")
			for (i = 1; i <= m; i++) {
				split(nd[i], q, ":")
				if ((" " pk " ") ~ (" " q[1] " ")) continue
				for (j = 1; j <= n; j++) if ((q[1], ps[j]) in dep) break
				if (j <= n)
					print "# note: " q[2] ": need " nm " " q[1] ": " path " is in " ps[j] ", which " q[1] " depends on"
				else
					print "BAD " q[2] ": need " nm " " q[1] ", but " path " is in " pk
			}
		}' "$work/cmd.paths" > "$work/cmd.report"
}
