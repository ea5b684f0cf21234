# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The initramfs of the guests: the kit initramfs of a built tree
# (images/mkinitramfs, rebuilt when its inputs change) and the per-suite
# archive of the data mover and the suite's files on top of it.  Sourced
# by tests/lib.sh.

# The files of tests/data/ the guest jobs read (images/mkinitramfs packs
# them as /rxkit/data/NAME).
readonly GUEST_DATA="h2g-shapes"

# tests_stamp: the hash of the kit files a test payload (images/mktests)
# is built with: the scaling of the fixed waits and its inventory.
tests_stamp()
{
	(cd "$RXKIT_TOP" && sha256sum images/mktests images/waits tests/data/waits \
		tests/rxkit-time-scale.h) | sha256sum | cut -d' ' -f1
}

# build_remedy O: the ci/build command that makes build folder O
# ($RXKIT_CACHE/src/TARGET/TREE/o-FLAVOUR).
build_remedy()
{
	local f="${1##*/o-}" tree= target=
	tree=$(basename "$(dirname "$1")")
	target=$(basename "$(dirname "$(dirname "$1")")")
	printf 'ci/build --tree %s%s %s\n' "$tree" \
		"$([ "$f" = guest ] || echo " --flavour $f")" "$target"
}

# payload_current O: O's test payload (images/mktests) is there and was
# built with these kit files, or an error naming the build that makes it.
payload_current()
{
	[ -x "$1/rxkit-tests/bin/vsock_test" ] ||
		die "$1/rxkit-tests: no test payload (the build's output); run: $(build_remedy "$1")"
	[ "$(cat "$1/rxkit-tests/STAMP" 2>/dev/null)" = "$(tests_stamp)" ] ||
		die "$1/rxkit-tests was built with other waits (tests/data/waits, images/waits, images/mktests); run: $(build_remedy "$1")"
}

# ensure_initramfs O: O/rxkit-initramfs.cpio.gz, rebuilt when the guest
# files, the test payload or the kernel are newer (images/mkinitramfs);
# prints its path.
ensure_initramfs()
{
	local ird="$1/rxkit-initramfs.cpio.gz" sum= d=
	payload_current "$1"
	# By content: a checkout or a copy can make the guest files older
	# than an initramfs built from other ones.
	sum=$( (cd "$RXKIT_TOP" && { find tests/guest bench/guest images/mkinitramfs -type f
		for d in $GUEST_DATA; do echo "tests/data/$d"; done; } | sort |
		xargs sha256sum; sha256sum "$1"/rxkit-tests/bin/*) |
		sha256sum | cut -d' ' -f1)
	# One builder a build folder: suites may run side by side.
	(
		flock 9
		if [ ! -f "$ird" ] || [ "$(cat "$ird.stamp" 2>/dev/null)" != "$sum" ] ||
		   [ -n "$(find "$1/arch/x86/boot/bzImage" -newer "$ird" 2>/dev/null)" ]; then
			"$RXKIT_TOP/images/mkinitramfs" "$1" >&2 || exit 1
			echo "$sum" > "$ird.stamp"
		fi
	) 9> "$1/.rxkit-initramfs.lock" || return 1
	printf '%s\n' "$ird"
}

# mover O FILE LOG: the data mover (tests/rxkit-vsock.c) built static
# against build folder O's UAPI headers as FILE (one binary serves guest
# and host); dies with LOG's content when it does not build.
mover()
{
	mkdir -p "${2%/*}"
	gcc -static -O2 -Wall -I"$1/usr/include" -o "$2" \
		"$RXKIT_TOP/tests/rxkit-vsock.c" > "$3" 2>&1 || {
		cat "$3" >&2
		die "building tests/rxkit-vsock.c failed"
	}
}

# tools_initrd O ART [TOOL...]: ART/initrd.cpio.gz, the kit initramfs
# of build folder O plus the data mover (tests/rxkit-vsock.c, static, built
# against O's UAPI headers) as a second cpio archive: /rxkit/rxkit-vsock,
# with whatever else the caller put under ART/tools/rxkit/ (e.g. skip/JOB,
# which replaces the kit initramfs's list).  The same binary serves the
# host side: ART/tools/rxkit/rxkit-vsock.  Each TOOL (e.g.
# sockmap/rxkit-sockmap) is a program of tests/DIR/Makefile, built the
# same way, with the tree's kselftest harness (O/rxkit-tests/selftests):
# /rxkit/NAME.
tools_initrd()
{
	local o="$1" art="$2" base= tool=
	shift 2
	need gcc gcc
	need make make
	need cpio cpio
	need gzip gzip
	base=$(ensure_initramfs "$o") || return 1
	mover "$o" "$art/tools/rxkit/rxkit-vsock" "$art/tools/build.log"
	for tool in "$@"; do
		make -s -C "$RXKIT_TOP/tests/${tool%/*}" OUTPUT="$art/tools/rxkit" \
			UAPI="$o/usr/include" SELFTESTS="$o/rxkit-tests/selftests" \
			"$art/tools/rxkit/${tool##*/}" >> "$art/tools/build.log" 2>&1 || {
			cat "$art/tools/build.log" >&2
			die "building ${tool##*/} (tests/${tool%/*}/Makefile) failed"
		}
	done
	(cd "$art/tools" && find rxkit | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 > "$art/tools.cpio.gz"
	cat "$base" "$art/tools.cpio.gz" > "$art/initrd.cpio.gz"
}
