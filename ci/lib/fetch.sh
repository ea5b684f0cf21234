# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ci/lib/fetch.sh: the pristine tree of ci/fetch: the free space unpacking
# it needs, the unpacking (atomic), its version and its FETCHED record.
# Sourced by ci/fetch once it has set srcdir and MIN_FREE_MB.
# shellcheck disable=SC2154 # srcdir is ci/fetch's

# check_space DIR: die unless the file system of DIR has MIN_FREE_MB MiB
# free, what unpacking a kernel tree needs.
check_space()
{
	local free=
	free=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$free" -ge "$MIN_FREE_MB" ] ||
		die "no space left: $1 has $free MiB free, unpacking a kernel tree needs $MIN_FREE_MB MiB"
}

# tree_version DIR: VERSION.PATCHLEVEL.SUBLEVEL from a kernel Makefile.
tree_version()
{
	awk -F' = ' '/^VERSION =/ { v = $2 } /^PATCHLEVEL =/ { p = $2 }
		/^SUBLEVEL =/ { s = $2; print v "." p "." s; exit }' "$1/Makefile"
}

# unpack TARBALL SHA: extract into pristine/, atomically.
unpack()
{
	local tarlog= free=
	check_space "$srcdir"
	log "unpacking $(basename "$1")"
	rm -rf "$srcdir/pristine.tmp"
	mkdir "$srcdir/pristine.tmp"
	# The log goes elsewhere: the cache may be the file system that is full.
	tarlog=$(mktemp "${TMPDIR:-/tmp}/rxkit-tar.XXXXXX")
	tar -xf "$1" -C "$srcdir/pristine.tmp" --strip-components=1 2>"$tarlog" || {
		free=$(df -Pm "$srcdir" | awk 'NR == 2 { print $4 }')
		rm -rf "$srcdir/pristine.tmp"
		if grep -q 'No space left' "$tarlog"; then
			rm -f "$tarlog"
			die "no space left on $srcdir while unpacking $1 ($free MiB free after cleanup)"
		fi
		cat "$tarlog" >&2
		rm -f "$tarlog"
		die "cannot unpack $1 (truncated or corrupt?)"
	}
	rm -f "$tarlog"
	[ -f "$srcdir/pristine.tmp/Makefile" ] || {
		rm -rf "$srcdir/pristine.tmp"
		die "$1 is not a kernel source tarball (no top-level Makefile)"
	}
	rm -rf "$srcdir/pristine" "$srcdir/FETCHED"
	mv "$srcdir/pristine.tmp" "$srcdir/pristine"
}

# record KEY=VALUE...: the FETCHED record of what was unpacked.
record()
{
	printf '%s\n' "$@" > "$srcdir/FETCHED.tmp"
	mv "$srcdir/FETCHED.tmp" "$srcdir/FETCHED"
}

# cached_sha: the SHA-256 of the tarball pristine/ was unpacked from.
cached_sha()
{
	[ -f "$srcdir/FETCHED" ] && [ -d "$srcdir/pristine" ] &&
		sed -n 's/^sha256=//p' "$srcdir/FETCHED"
}
