# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The initramfs of the guests: the kit initramfs of a built tree
# (images/mkinitramfs, rebuilt when its inputs change) and the per-suite
# archive of the data mover and the suite's files on top of it.  Sourced
# by tests/lib.sh.

# The files of tests/data/ the guest jobs read (images/mkinitramfs packs
# them as /rxkit/data/NAME).
readonly GUEST_DATA="h2g-shapes"

# ensure_initramfs SRC O: O/rxkit-initramfs.cpio.gz, rebuilt when the guest
# files or the kernel are newer (images/mkinitramfs); prints its path.
ensure_initramfs()
{
	local ird="$2/rxkit-initramfs.cpio.gz" sum= d=
	# By content: a checkout or a copy can make the guest files older
	# than an initramfs built from other ones.
	sum=$( (cd "$RXKIT_TOP" && { find tests/guest bench/guest images/mkinitramfs -type f
		echo images/waits; echo tests/data/waits; echo tests/rxkit-time-scale.h
		for d in $GUEST_DATA; do echo "tests/data/$d"; done; } | sort |
		xargs sha256sum) |
		sha256sum | cut -d' ' -f1)
	# One builder a build folder: suites may run side by side.
	(
		flock 9
		if [ ! -f "$ird" ] || [ "$(cat "$ird.stamp" 2>/dev/null)" != "$sum" ] ||
		   [ -n "$(find "$2/arch/x86/boot/bzImage" -newer "$ird" 2>/dev/null)" ]; then
			"$RXKIT_TOP/images/mkinitramfs" "$1" "$2" >&2 || exit 1
			echo "$sum" > "$ird.stamp"
		fi
	) 9> "$2/.rxkit-initramfs.lock" || return 1
	printf '%s\n' "$ird"
}

# tools_initrd SRC O ART [TOOL...]: ART/initrd.cpio.gz, the kit initramfs
# of the tree plus the data mover (tests/rxkit-vsock.c, static, built
# against O's UAPI headers) as a second cpio archive: /rxkit/rxkit-vsock,
# with whatever else the caller put under ART/tools/rxkit/ (e.g. skip/JOB,
# which replaces the kit initramfs's list).  The same binary serves the
# host side: ART/tools/rxkit/rxkit-vsock.  Each TOOL (e.g.
# sockmap/rxkit-sockmap) is a program of tests/DIR/Makefile, built the
# same way, with the tree's kselftest harness (SRC/tools/testing/selftests):
# /rxkit/NAME.
tools_initrd()
{
	local src="$1" o="$2" art="$3" base= tool=
	shift 3
	need gcc gcc
	need make make
	need cpio cpio
	need gzip gzip
	base=$(ensure_initramfs "$src" "$o") || return 1
	mkdir -p "$art/tools/rxkit"
	gcc -static -O2 -Wall -I"$o/usr/include" -o "$art/tools/rxkit/rxkit-vsock" \
		"$RXKIT_TOP/tests/rxkit-vsock.c" > "$art/tools/build.log" 2>&1 || {
		cat "$art/tools/build.log" >&2
		die "building tests/rxkit-vsock.c failed"
	}
	for tool in "$@"; do
		make -s -C "$RXKIT_TOP/tests/${tool%/*}" OUTPUT="$art/tools/rxkit" \
			UAPI="$o/usr/include" SELFTESTS="$src/tools/testing/selftests" \
			"$art/tools/rxkit/${tool##*/}" >> "$art/tools/build.log" 2>&1 || {
			cat "$art/tools/build.log" >&2
			die "building ${tool##*/} (tests/${tool%/*}/Makefile) failed"
		}
	done
	(cd "$art/tools" && find rxkit | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 > "$art/tools.cpio.gz"
	cat "$base" "$art/tools.cpio.gz" > "$art/initrd.cpio.gz"
}
