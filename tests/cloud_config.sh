#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/cloud_config.sh: the cloud flavour's configuration without its
# build: Debian's cloud configuration of every target fetched and checked
# against its pin (series/TARGET/cloud), TARGET's flavour resolved on it
# and compared with it (ci/cloud-diff), and a change beyond the vsock
# symbols and the key file names refused.  KTAP on stdout.
set -eu
PROG=cloud_config
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="pins pin_tampered debian_kernel debian_kernel_tampered resolve diff_refuses foreign_fragment_refused"
readonly TEST_DESCS="every target's Debian cloud configuration fetched and checked against its pin, of the pinned line and version:\
a tampered cached .deb of the pin is not cached offline, a tampered unpacked file is replaced:\
Debian's own kernel of each target that pins one is fetched and checked, of its configuration's version:\
a tampered cached package of Debian's kernel is called not cached offline:\
the flavour on Debian's file sets every requested symbol and changes none but the allowed ones:\
ci/cloud-diff refuses a symbol flipped outside the vsock and key symbols, naming it, and passes a vsock one:\
a fragment beyond vsock and keys in the flavour stops ci/build before the build"

usage()
{
	cat <<USAGE
usage: tests/cloud_config.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The cloud flavour's configuration (kconfig/flavours/cloud) of TARGET
(default: $RXKIT_TARGET; its patched tree, ci/prepare's), not its build.
The resolution runs as ci/build --config-only with a copy of the flavour
named cloud-check (build folder o-cloud-check, removed afterwards; its
diffs in \$RXKIT_OUT/TARGET/cloud-check/), never in the cloud build's
folder.

-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test; pin_tampered,
         debian_kernel_tampered and diff_refuses use what pins,
         debian_kernel and resolve make: -t those too)
-T NAME  do not run NAME (may repeat)
USAGE
}
parse_stage_args 'tests' "$@"
: "${target:=$RXKIT_TARGET}"
load_base "$target"
src="$(src_root "$target")/patched"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-cloud-config.XXXXXX")
trap 'rm -rf "$work" "$src/o-cloud-check" "$src/o-cloud-check-ref"' EXIT INT TERM
art="$(out_dir "$target")/cloud-check"

# need_tree: TARGET's patched tree, or SKIP.
need_tree()
{
	[ -d "$src" ] && return 0
	SKIP_REASON="no patched $target tree (ci/prepare $target)"
	return "$KSFT_SKIP"
}

# Every target's pin: the package fetched (or cached) and the file checked
# by ci/cloud-config; the file is a configuration of the pinned line, and
# of the very version of series/TARGET/base when the line is the target's.
test_pins()
{
	local t pin line ver head rc=0
	for t in $(known_targets); do
		pin="$RXKIT_TOP/series/$t/cloud"
		"$RXKIT_TOP/ci/cloud-config" "$t" > "$work/pin-$t.log" 2>&1 ||
			{ echo "# ci/cloud-config $t failed:"; sed 's/^/#   /' "$work/pin-$t.log"; rc=1; continue; }
		line=$(sed -n 's/^line=//p' "$pin")
		ver=$(sed -n 's/^version=//p' "$RXKIT_TOP/series/$t/base")
		head=$(sed -n '3s/^# Linux\/x86 \([0-9.]*\) Kernel Configuration$/\1/p' "$(cloud_file "$t")")
		case "$head" in
		"$line".*) ;;
		*) echo "# $t: the file configures Linux '$head', not the $line line"; rc=1; continue ;;
		esac
		if [ "$line" = "$t" ] && [ "$head" != "$ver" ]; then
			echo "# $t: Debian's file is of $head, the sources of $ver"
			rc=1
		elif [ "$line" != "$t" ]; then
			grep -q "^cloud-config: fallback: .*$line line's file" "$work/pin-$t.log" ||
				{ echo "# $t: the $line fallback was not said"; rc=1; }
			echo "# $t: fallback to Debian's $line file (Linux $head)"
		else
			echo "# $t: Debian's Linux $head file, the sources' version"
		fi
	done
	return "$rc"
}

# A package that is not the pinned one is never used: with --offline, a
# tampered cached .deb is "not cached", and a tampered unpacked file is
# replaced by the pinned one.
test_pin_tampered()
{
	local c deb f rc=0
	c="$work/cache"
	deb=$(sed -n 's/^package=//p;s/^package_version=//p' "$RXKIT_TOP/series/$target/cloud" | paste -sd_)
	deb="$RXKIT_CACHE/dl/${deb}_amd64.deb"
	[ -f "$deb" ] || { SKIP_REASON="${deb##*/} not cached (the pins test fetches it)"; return "$KSFT_SKIP"; }
	mkdir -p "$c/dl" "$c/cloud/$target"
	cp "$deb" "$c/dl/"
	f="$c/cloud/$target/config.amd64_none_cloud-amd64"
	sed 's/^CONFIG_VSOCKETS=m$/CONFIG_VSOCKETS=y/' "$(cloud_file "$target")" > "$f"
	RXKIT_CACHE="$c" "$RXKIT_TOP/ci/cloud-config" --offline "$target" > "$work/t1.log" 2>&1 ||
		{ echo "# the tampered file was not replaced:"; sed 's/^/#   /' "$work/t1.log"; rc=1; }
	cmp -s "$f" "$(cloud_file "$target")" || { echo "# $f is not the pinned file"; rc=1; }
	printf 'x' >> "$c/dl/${deb##*/}"
	rm -f "$f"
	if RXKIT_CACHE="$c" "$RXKIT_TOP/ci/cloud-config" --offline "$target" > "$work/t2.log" 2>&1; then
		echo "# a tampered ${deb##*/} was used"
		rc=1
	else
		grep -q 'is not cached' "$work/t2.log" || { echo "# no reason given:"; sed 's/^/#   /' "$work/t2.log"; rc=1; }
		sed -n '1s/^/#   /p' "$work/t2.log"
	fi
	[ ! -f "$f" ] || { echo "# a file was unpacked from the tampered package"; rc=1; }
	return "$rc"
}

# Debian's own kernel of each target that pins it (series/T/debian-kernel,
# the cloud flavour's A/B baseline): ci/debian-kernel fetches (or finds
# cached) and checks every package; each .deb is the package and version
# of its pin, and the kernel is the version of Debian's configuration
# (series/T/cloud), so that the A/B compares one configuration.
test_debian_kernel()
{
	local t pin d n rc=0 ver cver
	for t in $(known_targets); do
		pin="$RXKIT_TOP/series/$t/debian-kernel"
		[ -f "$pin" ] || { echo "# $t: Debian's kernel not pinned (no cloud A/B for $t)"; continue; }
		d=$("$RXKIT_TOP/ci/debian-kernel" "$t" 2> "$work/dk-$t.log") ||
			{ echo "# ci/debian-kernel $t failed:"; sed 's/^/#   /' "$work/dk-$t.log"; rc=1; continue; }
		n=0
		while read -r k p v _; do
			[ "$k" = deb ] || continue
			n=$((n + 1))
			set -- "$d/${p}_${v}"_*.deb
			if [ ! -f "$1" ] || [ "$(dpkg-deb -f "$1" Package)" != "$p" ] ||
			   [ "$(dpkg-deb -f "$1" Version)" != "$v" ]; then
				echo "# $t: no .deb of $p $v in $d"
				rc=1
			fi
		done < "$pin"
		[ "$(find "$d" -name '*.deb' | wc -l)" = "$n" ] || { echo "# $t: $d holds other packages than the $n pinned"; rc=1; }
		ver=$(sed -n 's/^deb linux-image-[^ ]* \([^ ]*\) .*/\1/p' "$pin")
		cver=$(sed -n 's/^package_version=//p' "$RXKIT_TOP/series/$t/cloud")
		[ "$ver" = "$cver" ] || { echo "# $t: Debian's kernel $ver, its configuration $cver"; rc=1; }
		echo "# $t: $("$RXKIT_TOP/ci/debian-kernel" --release "$t") $ver, $n packages checked"
	done
	return "$rc"
}

# A tampered cached package of Debian's kernel is never used: --offline
# calls it not cached.
test_debian_kernel_tampered()
{
	local c d f
	[ -f "$RXKIT_TOP/series/$target/debian-kernel" ] ||
		{ SKIP_REASON="series/$target pins no Debian kernel"; return "$KSFT_SKIP"; }
	d="$RXKIT_CACHE/debian-kernel/$target"
	ls "$d"/linux-image-*.deb > /dev/null 2>&1 ||
		{ SKIP_REASON="Debian's $target kernel not cached (the debian_kernel test fetches it)"; return "$KSFT_SKIP"; }
	c="$work/dk-cache"
	mkdir -p "$c/debian-kernel"
	cp -R "$d" "$c/debian-kernel/"
	f=$(ls "$c/debian-kernel/$target"/linux-image-*.deb)
	printf 'x' >> "$f"
	if RXKIT_CACHE="$c" "$RXKIT_TOP/ci/debian-kernel" --offline "$target" > "$work/dk-t.log" 2>&1; then
		echo "# a tampered ${f##*/} was used"
		return 1
	fi
	grep -q "^debian-kernel: error: --offline and ${f##*/} is not cached" "$work/dk-t.log" ||
		{ echo "# no reason given:"; sed 's/^/#   /' "$work/dk-t.log"; return 1; }
	sed -n '1s/^/#   /p' "$work/dk-t.log"
}

# cloud_check_flavour [FRAGMENT]: kconfig/flavours/cloud as cloud-check (and
# FRAGMENT), resolved by ci/build --config-only; its log in $work/build.log.
cloud_check_flavour()
{
	local f
	mkdir -p "$work/flavour"
	f="$work/flavour/cloud-check"
	cp "$RXKIT_TOP/kconfig/flavours/cloud" "$f"
	[ -z "${1:-}" ] || { cp "$1" "$work/flavour/"; echo "${1##*/}" >> "$f"; }
	"$RXKIT_TOP/ci/build" --config-only --tree patched --flavour "$f" "$target" > "$work/build.log" 2>&1
}

# The flavour on Debian's file: every requested symbol set, the kit's
# changes none but kconfig/cloud-allowed's, debug info, BTF and module
# signing as the issue asks, the release -cloud-amd64.
test_resolve()
{
	local o rc=0 s
	need_tree || return $?
	if ! cloud_check_flavour; then
		echo "# ci/build --config-only failed:"
		tail -n 20 "$work/build.log" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	o="$src/o-cloud-check"
	for s in CONFIG_DEBUG_INFO=y CONFIG_DEBUG_INFO_BTF=y CONFIG_MODULE_SIG_ALL=y \
		 'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"' 'CONFIG_SYSTEM_TRUSTED_KEYS=""' \
		 CONFIG_VSOCKETS=m CONFIG_VIRTIO_VSOCKETS=m CONFIG_VHOST_VSOCK=m; do
		grep -qx "$s" "$o/.config" || { echo "# the resolved .config lacks $s"; rc=1; }
	done
	grep -qx -- '-vsockrx[0-9]*-cloud-amd64' "$o/localversion-rxkit" ||
		{ echo "# release mark '$(cat "$o/localversion-rxkit")'"; rc=1; }
	[ -s "$art/config.diff" ] || { echo "# no $art/config.diff"; rc=1; }
	grep -A1 "^the cloud flavour's changes" "$art/config.report" | grep -qx '  none' ||
		grep -A20 "^the cloud flavour's changes" "$art/config.report" | grep -q '^  [A-Z].*(\(vsock\|key\|release\): ' ||
		{ echo "# the kit's changes are not none or allowed ones:"; sed 's/^/#   /' "$art/config.report"; rc=1; }
	echo "# $(grep -c . "$art/config.diff") lines of diffconfig against Debian's, $(grep -c . "$art/config-kit.diff") the kit's; $(sed -n 's/^olddefconfig of .*: \([0-9]*\) symbols$/\1/p' "$art/config.report") symbols this toolchain resolves otherwise"
	return "$rc"
}

# ci/cloud-diff itself: a .config with a symbol flipped outside the vsock
# and key symbols is refused, naming it; one with a vsock symbol flipped
# passes.
test_diff_refuses()
{
	local o d
	o="$src/o-cloud-check"
	[ -f "$o/.config" ] && [ -f "$o-ref/.config" ] ||
		{ SKIP_REASON="no resolved configuration (the resolve test makes it)"; return "$KSFT_SKIP"; }
	d="$work/diff"
	sed 's/^CONFIG_VIRTIO_BLK=m$/CONFIG_VIRTIO_BLK=y/' "$o/.config" > "$work/foreign.config"
	if "$RXKIT_TOP/ci/cloud-diff" --src "$src" --debian "$(cloud_file "$target")" --ref "$o-ref/.config" \
		--config "$work/foreign.config" --out "$d" > "$work/d1.log" 2>&1; then
		echo "# VIRTIO_BLK m -> y was not refused"
		return "$KSFT_FAIL"
	fi
	grep -q 'VIRTIO_BLK: m -> y REFUSED' "$work/d1.log" ||
		{ echo "# the refusal does not name VIRTIO_BLK:"; sed 's/^/#   /' "$work/d1.log"; return "$KSFT_FAIL"; }
	grep 'REFUSED\|error' "$work/d1.log" | sed 's/^/#   /'
	sed 's/^CONFIG_VSOCKETS_DIAG=m$/CONFIG_VSOCKETS_DIAG=y/' "$o/.config" > "$work/vsock.config"
	"$RXKIT_TOP/ci/cloud-diff" --src "$src" --debian "$(cloud_file "$target")" --ref "$o-ref/.config" \
		--config "$work/vsock.config" --out "$d" > "$work/d2.log" 2>&1 ||
		{ echo "# a vsock symbol's change was refused:"; sed 's/^/#   /' "$work/d2.log"; return "$KSFT_FAIL"; }
	grep -q 'VSOCKETS_DIAG: m -> y (vsock: ' "$work/d2.log" ||
		{ echo "# the vsock change is not reported"; return "$KSFT_FAIL"; }
}

# The whole path: a fragment beyond vsock and keys in the flavour (the
# configuration in the image, IKCONFIG: off in Debian's, no dependencies)
# stops ci/build before the build.
test_foreign_fragment_refused()
{
	need_tree || return $?
	printf '# Not the cloud flavour'"'"'s business.\nCONFIG_IKCONFIG=y\n' > "$work/foreign.config"
	if cloud_check_flavour "$work/foreign.config"; then
		echo "# ci/build accepted a flavour with CONFIG_IKCONFIG=y"
		return "$KSFT_FAIL"
	fi
	grep -q 'IKCONFIG: n -> y REFUSED' "$work/build.log" &&
		grep -q 'build: error: .*changes outside kconfig/cloud-allowed\|cloud-diff: error: ' "$work/build.log" ||
		{ echo "# ci/build failed for another reason:"; tail -n 10 "$work/build.log" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
	grep 'cloud-diff: error' "$work/build.log" | sed 's/^/#   /'
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
