# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The initramfs of the guests: the kit initramfs of a built tree
# (tests/mkinitramfs, rebuilt when its inputs change) and the per-suite
# archive of the data mover and the suite's files on top of it.  Sourced
# by tests/lib.sh.

# vsock_test's control-channel timeout in the kit's builds of the tree's
# test programs (tests/mkinitramfs says why; vsock_test's own is 10 s).
readonly CONTROL_TIMEOUT=${RXKIT_CONTROL_TIMEOUT:-60}
case "$CONTROL_TIMEOUT" in
''|*[!0-9]*) die "RXKIT_CONTROL_TIMEOUT must be a number of seconds" ;;
esac
# The files of tests/data/ the guest jobs read (tests/mkinitramfs packs
# them as /rxkit/data/NAME).
readonly GUEST_DATA="h2g-shapes"

# ensure_initramfs SRC O: O/rxkit-initramfs.cpio.gz, rebuilt when the guest
# files or the kernel are newer (tests/mkinitramfs); prints its path.
ensure_initramfs()
{
	local ird="$2/rxkit-initramfs.cpio.gz" sum= d=
	# By content: a checkout or a copy can make the guest files older
	# than an initramfs built from other ones.
	sum=$( (cd "$RXKIT_TOP" && { find tests/guest tests/mkinitramfs -type f
		for d in $GUEST_DATA; do echo "tests/data/$d"; done; } | sort |
		xargs sha256sum; echo "control timeout $CONTROL_TIMEOUT") |
		sha256sum | cut -d' ' -f1)
	# One builder a build folder: suites may run side by side.
	(
		flock 9
		if [ ! -f "$ird" ] || [ "$(cat "$ird.stamp" 2>/dev/null)" != "$sum" ] ||
		   [ -n "$(find "$2/arch/x86/boot/bzImage" -newer "$ird" 2>/dev/null)" ]; then
			"$RXKIT_TOP/tests/mkinitramfs" "$1" "$2" >&2 || exit 1
			echo "$sum" > "$ird.stamp"
		fi
	) 9> "$2/.rxkit-initramfs.lock" || return 1
	printf '%s\n' "$ird"
}

# tools_initrd SRC O ART: ART/initrd.cpio.gz, the kit initramfs of the tree
# plus the data mover (tests/rxkit-vsock.c, static, built against O's UAPI
# headers) as a second cpio archive: /rxkit/rxkit-vsock, with whatever else
# the caller put under ART/tools/rxkit/ (e.g. skip/JOB, which replaces the
# kit initramfs's list).  The same binary serves the host side:
# ART/tools/rxkit/rxkit-vsock.
tools_initrd()
{
	local base=
	need gcc gcc
	need cpio cpio
	need gzip gzip
	base=$(ensure_initramfs "$1" "$2") || return 1
	mkdir -p "$3/tools/rxkit"
	gcc -static -O2 -Wall -I"$2/usr/include" -o "$3/tools/rxkit/rxkit-vsock" \
		"$RXKIT_TOP/tests/rxkit-vsock.c" > "$3/tools/build.log" 2>&1 || {
		cat "$3/tools/build.log" >&2
		die "building tests/rxkit-vsock.c failed"
	}
	(cd "$3/tools" && find rxkit | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 > "$3/tools.cpio.gz"
	cat "$base" "$3/tools.cpio.gz" > "$3/initrd.cpio.gz"
}
