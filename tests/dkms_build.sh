#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/dkms_build.sh: the vsock-rxkit-dkms package (ci/dkms) of a target
# built and installed by Debian's dkms against Debian's own kernel of the
# target's ABI, as on a user's machine.  KTAP on stdout; exit 0 (all
# passed or skipped), 1 (a failure).
#
# The pinned packages of series/TARGET/debian-headers (ci/debian-kernel
# --headers: the kernel image, whose modules the package replaces, its
# headers and kbuild) and the package are unpacked into a folder that a
# private mount namespace lays over /usr (overlayfs, writes kept in the
# work folder), with a folder of its own on /var/lib/dkms: dkms, depmod
# and modinfo then see a machine with that kernel and the package
# installed, and nothing of the host's changes.  For a kernel of another
# Debian release than the host's (the pin's image line: Debian 13's
# kbuild tools need its libc), the folder is that release's root
# (images/mkrootfs --dkms) and the commands run chrooted into it.  The
# modules are not loaded here: that is the VM's part.
set -eu
PROG=dkms_build
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l); they run in this order, each on the
# state the one before left.
readonly TEST_NAMES="dkms_package dkms_build dkms_install dkms_patched dkms_signed dkms_refused dkms_remove"
readonly TEST_DESCS="ci/dkms makes the source and binary package, lintian --pedantic clean, dkms.conf under /usr/src:\
dkms builds for Debian's kernel exactly the family's modules Debian builds, modpost resolving every symbol:\
dkms installs them into updates/dkms, where depmod finds them first, each with the kit's version and the kernel's vermagic:\
the installed modules are the series' code (its batch receive, exported) and Debian's are not:\
each module is signed with dkms's machine owner key (Debian's own are Debian's):\
for a kernel of another ABI dkms builds nothing and says so, and the package's postinst names the ABI:\
dkms remove takes the modules out and depmod finds Debian's again"

usage()
{
	cat <<USAGE
usage: tests/dkms_build.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Build and install the vsock-rxkit-dkms package of TARGET (default:
$RXKIT_TARGET, which needs series/TARGET/debian-headers; ci/fetch must have
fetched its tree) with Debian's dkms against Debian's kernel and headers
pinned there, in a private mount namespace (-l lists the tests; -t NAME
runs NAME, -T NAME leaves it out; each may repeat).  Needs root (the mount
namespace).
Artefacts (the package, dkms's make.log): \$RXKIT_OUT/TARGET/dkms-test/
USAGE
}

pkg_setup "$@"
pkg_need_root
need dkms dkms
need unshare util-linux
need modinfo kmod
need openssl openssl
art="$(out_dir "$target")/dkms-test"
rm -rf "$art"
mkdir -p "$art"
rel=$("$RXKIT_TOP/ci/debian-kernel" --headers --release "$target") || exit 1
abi=$("$RXKIT_TOP/ci/debian-kernel" --headers --abi "$target") || exit 1
dist=$("$RXKIT_TOP/ci/debian-kernel" --headers --image "$target") || exit 1
debs=$("$RXKIT_TOP/ci/debian-kernel" --headers "$target") || die "ci/debian-kernel --headers $target failed"
root="$work/root"
mkdir -p "$root" "$work/upper" "$work/owork" "$work/var-dkms"
# usr: where the machine's writes to /usr land, seen from here.
usr="$work/upper"
if [ "$dist" != "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" ]; then
	need chroot coreutils
	tarball=$("$RXKIT_TOP/images/mkrootfs" --dkms "$dist") || die "images/mkrootfs --dkms $dist failed"
	tar -C "$root" -xf "$tarball" || die "cannot unpack $tarball"
	usr="$root/usr"
fi

# in_machine COMMAND...: COMMAND in a mount namespace where /var/lib/dkms
# is the work folder's and /usr the unpacked packages over the host's, or
# (another release) chrooted into its root with them unpacked.
in_machine()
{
	if [ "$usr" = "$root/usr" ]; then
		unshare -m sh -c 'mount --bind "$2" "$1/var/lib/dkms" && mount -t proc proc "$1/proc" &&
			mount --bind /dev "$1/dev" && r=$1 && shift 2 && exec chroot "$r" "$@"' \
			sh "$root" "$work/var-dkms" "$@"
		return
	fi
	unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$1/usr:/usr,upperdir=$2,workdir=$3" /usr &&
		mount --bind "$4" /var/lib/dkms && shift 4 && exec "$@"' \
		sh "$root" "$work/upper" "$work/owork" "$work/var-dkms" "$@"
}

# plain_ko MODULE TAG: MODULE, or an uncompressed copy of it in the work
# folder, named with TAG (nm reads only .ko); prints the path.
plain_ko()
{
	local c="$work/plain-$2-${1##*/}"
	case "$1" in
	*.ko) printf '%s\n' "$1"; return 0 ;;
	*.ko.xz) xz -dc "$1" > "${c%.xz}" ;;
	*.ko.zst) zstd -qdc "$1" > "${c%.zst}" ;;
	*.ko.gz) gzip -dc "$1" > "${c%.gz}" ;;
	*) echo "# $1: not a module" >&2; return 1 ;;
	esac || return 1
	printf '%s\n' "${c%.*}"
}

# family: the modules of the family in Debian's image (the copy
# test_dkms_package takes), by name, sorted.
family()
{
	ls "$work/debian" | sed 's|\.ko.*||' | sort
}

test_dkms_package()
{
	local d
	RXKIT_OUT="$work/out" "$RXKIT_TOP/ci/dkms" "$target" > "$art/ci-dkms.log" 2>&1 ||
		{ tail -n 15 "$art/ci-dkms.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	d="$work/out/$target/dkms"
	cp "$d"/*.deb "$d"/*.dsc "$d/lintian.txt" "$art/"
	deb=$(ls "$d"/vsock-rxkit-dkms_*_all.deb)
	ver=$(dpkg-deb -f "$deb" Version)
	dver=${ver%-*}
	echo "# ${deb##*/}: $(du -k "$deb" | cut -f1) KiB; source $(cat "$d"/*.orig.tar.xz "$d"/*.debian.tar.xz | wc -c) bytes"
	tail -n 1 "$d/lintian.txt" | grep -qx 'exit 0' ||
		{ echo "# lintian --pedantic:"; sed 's/^/#   /' "$d/lintian.txt"; return "$KSFT_FAIL"; }
	grep -v '^exit\|^running with root' "$d/lintian.txt" | sed 's/^/# lintian: /'
	# tar keeps a release root's /lib link (dpkg-deb -x made it a folder).
	for f in "$debs"/*.deb "$deb"; do
		dpkg-deb --fsys-tarfile "$f" | tar -C "$root" -x --keep-directory-symlink ||
			return "$KSFT_FAIL"
	done
	# Merged /usr: Debian 12's image ships /lib/modules, which is
	# /usr/lib/modules (a release's root has the /lib link already).
	if [ ! -L "$root/lib" ] && [ -d "$root/lib/modules" ]; then
		mkdir -p "$root/usr/lib"
		mv "$root/lib/modules" "$root/usr/lib/modules"
	fi
	# The kernel installed: its postinst's depmod (dkms 3.2 leaves a
	# kernel without modules.dep alone).
	in_machine depmod -a "$rel" || { echo "# depmod -a $rel failed"; return "$KSFT_FAIL"; }
	# Debian's modules of the family as its package ships them (dkms 3.2
	# moves them aside on install, and back on remove).
	mkdir -p "$work/debian"
	(cd "$root/usr/lib/modules/$rel/kernel" &&
		cp net/vmw_vsock/*.ko* drivers/vhost/vhost_vsock.ko* "$work/debian/") || return "$KSFT_FAIL"
	[ -f "$root/usr/src/vsock-rxkit-$dver/dkms.conf" ] ||
		{ echo "# no /usr/src/vsock-rxkit-$dver/dkms.conf in ${deb##*/}"; return "$KSFT_FAIL"; }
}

test_dkms_build()
{
	local t0 s log
	in_machine dkms add -m vsock-rxkit -v "$dver" > "$art/dkms-add.log" 2>&1 ||
		{ sed 's/^/# /' "$art/dkms-add.log"; return "$KSFT_FAIL"; }
	t0=$(date +%s)
	in_machine dkms build -m vsock-rxkit -v "$dver" -k "$rel" > "$art/dkms-build.log" 2>&1 || {
		tail -n 20 "$art/dkms-build.log" | sed 's/^/# /'
		tail -n 20 "$work/var-dkms/vsock-rxkit/$dver/build/make.log" 2>/dev/null | sed 's/^/# make.log: /'
		return "$KSFT_FAIL"; }
	s=$(( $(date +%s) - t0 ))
	log="$work/var-dkms/vsock-rxkit/$dver/$rel/x86_64/log/make.log"
	[ -f "$log" ] || { echo "# dkms kept no make.log (${log#"$work/"})"; return "$KSFT_FAIL"; }
	cp "$log" "$art/make.log"
	echo "# dkms build for $rel: $s s"
	family > "$work/family"
	(cd "$work/var-dkms/vsock-rxkit/$dver/$rel/x86_64/module" && ls -- *.ko*) | sed 's/\.ko.*//' | sort > "$work/built"
	diff "$work/family" "$work/built" > "$work/built.diff" ||
		{ echo "# built (+) against Debian's family (-):"; sed 's/^/#   /' "$work/built.diff"; return "$KSFT_FAIL"; }
	echo "# built: $(tr '\n' ' ' < "$work/built")"
	! grep -n 'WARNING:' "$log" | sed 's/^/# make.log: /' | grep . || return "$KSFT_FAIL"
}

test_dkms_install()
{
	local m f v vm rc=0
	in_machine dkms install -m vsock-rxkit -v "$dver" -k "$rel" > "$art/dkms-install.log" 2>&1 ||
		{ tail -n 20 "$art/dkms-install.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	modversion=$(sed -n 's/^#define VSOCKRX_MODULE_VERSION "\(.*\)"$/\1/p' "$root/usr/src/vsock-rxkit-$dver/rxkit-modversion.h")
	[ -n "$modversion" ] || { echo "# no VSOCKRX_MODULE_VERSION in rxkit-modversion.h"; return "$KSFT_FAIL"; }
	for m in $(cat "$work/family"); do
		f=$(in_machine modinfo -k "$rel" -n "$m") || { echo "# modinfo -k $rel $m failed"; rc=1; continue; }
		v=$(in_machine modinfo -k "$rel" -F version "$m")
		vm=$(in_machine modinfo -k "$rel" -F vermagic "$m")
		case "$f" in
		"/lib/modules/$rel/updates/dkms/$m.ko"*|"/usr/lib/modules/$rel/updates/dkms/$m.ko"*) ;;
		*) echo "# $m: depmod finds $f, not updates/dkms"; rc=1 ;;
		esac
		[ "$v" = "$modversion" ] || { echo "# $m: version '$v', not '$modversion'"; rc=1; }
		case "$vm" in
		"$rel "*) ;;
		*) echo "# $m: vermagic '$vm' is not $rel's"; rc=1 ;;
		esac
	done
	echo "# $(wc -l < "$work/family") modules in updates/dkms, version $modversion"
	return "$rc"
}

# defines FILE SYMBOL: FILE (a module) defines SYMBOL and exports it.
defines()
{
	nm "$1" | grep -q " T $2\$" && nm "$1" | grep -q " [rR] __ksymtab_$2\$\| [A-Za-z] __export_symbol_$2\$"
}

test_dkms_patched()
{
	local ours theirs sym=virtio_transport_recv_pkt_batch
	need nm binutils
	ours=$(plain_ko "$(ls "$usr/lib/modules/$rel/updates/dkms/vmw_vsock_virtio_transport_common.ko"*)" ours) ||
		return "$KSFT_FAIL"
	theirs=$(plain_ko "$(ls "$work/debian/vmw_vsock_virtio_transport_common.ko"*)" debian) ||
		return "$KSFT_FAIL"
	defines "$ours" "$sym" || { echo "# the installed module does not export $sym"; return "$KSFT_FAIL"; }
	! nm "$theirs" | grep -q " $sym\$" || { echo "# Debian's module has $sym too"; return "$KSFT_FAIL"; }
	echo "# $sym: exported by the installed module, absent from Debian's"
}

test_dkms_signed()
{
	local cn m s rc=0
	[ -f "$work/var-dkms/mok.pub" ] || { echo "# dkms made no mok.pub"; return "$KSFT_FAIL"; }
	cn=$(openssl x509 -inform DER -in "$work/var-dkms/mok.pub" -noout -subject -nameopt multiline |
		sed -n 's/^ *commonName *= *//p')
	for m in $(cat "$work/family"); do
		s=$(in_machine modinfo -k "$rel" -F signer "$m")
		[ "$s" = "$cn" ] || { echo "# $m: signer '$s', not dkms's key '$cn'"; rc=1; }
	done
	s=$(modinfo -F signer "$work/debian/vsock.ko"*)
	[ -n "$s" ] || { echo "# Debian's vsock has no signer"; rc=1; }
	[ "$s" != "$cn" ] || { echo "# Debian's vsock is signed with the same key"; rc=1; }
	echo "# signer: $cn (Debian's: $s)"
	return "$rc"
}

test_dkms_refused()
{
	local other="${abi%-*}-999-cloud-amd64" rc=0 x p
	case "$abi" in
	*-*) ;;
	*) other="$abi.999-cloud-amd64" ;;
	esac
	if in_machine dkms build -m vsock-rxkit -v "$dver" -k "$other" \
		--kernelsourcedir "/usr/src/linux-headers-$rel" > "$art/dkms-other.log" 2>&1; then
		echo "# dkms built for $other"; return "$KSFT_FAIL"
	else
		x=$?
	fi
	[ "$x" = 77 ] || { echo "# dkms build for $other: exit $x, not 77 (excluded)"; rc=1; }
	dkms_excluded_said < "$art/dkms-other.log" ||
		{ echo "# no BUILD_EXCLUSIVE message:"; sed 's/^/#   /' "$art/dkms-other.log"; rc=1; }
	[ ! -e "$work/var-dkms/vsock-rxkit/$dver/$other" ] || { echo "# a build for $other was left"; rc=1; }
	dpkg-deb -e "$deb" "$work/control"
	sed -n '1,/^#DEBHELPER#/p' "$work/control/postinst" | grep -v '^#DEBHELPER#' > "$work/postinst-head"
	p=$(sh "$work/postinst-head" configure 2>&1)
	case "$(uname -r)" in
	"$abi"-*) echo "# the host runs $abi: the postinst's message is not checked" ;;
	*) printf '%s\n' "$p" | grep -q "built only for Debian's $abi kernels; $(uname -r) keeps its own" ||
		{ echo "# the postinst did not name the ABI: '$p'"; rc=1; } ;;
	esac
	echo "# $other: dkms exit $x; $(sed -n '/BUILD_EXCLUSIVE/p' "$art/dkms-other.log" | head -n 1)"
	return "$rc"
}

test_dkms_remove()
{
	local f
	in_machine dkms remove -m vsock-rxkit -v "$dver" --all > "$art/dkms-remove.log" 2>&1 ||
		{ tail -n 10 "$art/dkms-remove.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	[ -z "$(ls "$usr/lib/modules/$rel/updates/dkms" 2>/dev/null)" ] ||
		{ echo "# left in updates/dkms: $(ls "$usr/lib/modules/$rel/updates/dkms")"; return "$KSFT_FAIL"; }
	f=$(in_machine modinfo -k "$rel" -n vsock)
	case "$f" in
	"/lib/modules/$rel/kernel/net/vmw_vsock/vsock.ko"*|"/usr/lib/modules/$rel/kernel/net/vmw_vsock/vsock.ko"*) echo "# vsock: $f" ;;
	*) echo "# vsock after removal: $f, not Debian's"; return "$KSFT_FAIL" ;;
	esac
}

pkg_run
