# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/packages.sh: what the package suites (tests/packages_*.sh)
# share: their command line and folders, the packages of this tree, the
# lint reports and the external module build.  Sourced after ci/lib.sh and
# tests/lib.sh by a suite that has set TEST_NAMES, TEST_DESCS and usage().
#
# The packages: a test that needs them calls need_packages, which gives it
# deb, hdeb, rpmf and drpm, the .deb and .rpm packages (revision 1) of the
# patched guest kernel in $RXKIT_OUT/TARGET/packages.  Those there serve
# when they are complete (both formats, the source packages, the lint
# reports, the ccache counts) and newer than the kernel and the kit's
# packaging files; otherwise ci/package builds them, once a suite run.  If
# that fails, every test that needs them SKIPs and says why.
#
# SKIP_REASON is run_tests' (tests/lib.sh), --this-run the build suite's.
# shellcheck disable=SC2034,SC2120

# pkg_setup "$@": the suites' command line, [-l] [-t NAME]... [-T NAME]...
# [TARGET] (parse_stage_args of ci/lib/args.sh: -l lists $TEST_NAMES with
# their $TEST_DESCS, -t NAME runs NAME, -T NAME leaves it out; TESTS is
# what they chose), and the options of a suite that defines pkg_opt
# (parse_stage_args' extra_opt protocol).
# Sets target, art (the artefacts of every package suite:
# $RXKIT_OUT/TARGET/packages-test; each suite removes its own files,
# pkg_art_clean), work (a scratch folder, removed with its roots' mounts on
# exit) and pins RXKIT_PKG_TMP: every package build of the run stages in
# the same folder (the reproducible test compares two of them).
pkg_setup()
{
	extra_opt()
	{
		! command -v pkg_opt > /dev/null || { pkg_opt "$@"; return $?; }
		return 0
	}
	parse_stage_args tests "$@"
	: "${target:=$RXKIT_TARGET}"
	load_base "$target"
	art="$(out_dir "$target")/packages-test"
	mkdir -p "$art"
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/rxkit-packages.XXXXXX")
	RXKIT_PKG_TMP=$(pkg_tmp)
	export RXKIT_PKG_TMP
	trap pkg_cleanup EXIT
	trap 'exit 1' HUP INT TERM
}

# pkg_opt_packaged OPTION...: the pkg_opt of a suite of the packaged
# kernel alone: --tree patched and --flavour guest are taken (as
# results_begin's reproducer.sh names them), any other tree or flavour
# refused.
pkg_opt_packaged()
{
	case "$1" in
	--tree|--flavour)
		opt_arg "a value" "$@"
		case "$1 $2" in
		"--tree patched"|"--flavour guest") return 2 ;;
		esac
		die "$1 $2: only the patched tree's guest flavour is packaged" ;;
	esac
	return 0
}

# dkms_excluded_said: dkms's output on stdin says the package's
# BUILD_EXCLUSIVE kept it from building (dkms 3.0 says it on one line,
# 3.2, Debian 13's, folds it over two).
dkms_excluded_said()
{
	tr '\n' ' ' | grep -q 'BUILD_EXCLUSIVE directive *which does not match this kernel'
}

pkg_cleanup()
{
	local m
	for m in "$work"/*/proc "$work"/*/sys "$work"/*/dev; do
		! mountpoint -q "$m" 2>/dev/null || umount -l "$m"
	done
	rm -rf "$work"
}

# pkg_need_kernel: the patched guest kernel ci/build built, or die.  Sets o
# (its build folder), rel (its release), kernel (its image) and rpm_name,
# rpm_version (the RPM's, as ci/package names it).
pkg_need_kernel()
{
	local mark
	o="$(src_root "$target")/patched/o-guest"
	kernel="$o/arch/x86/boot/bzImage"
	[ -f "$o/include/config/kernel.release" ] && [ -f "$kernel" ] ||
		die "no built patched kernel of $target; run: ci/build --tree patched $target"
	rel=$(cat "$o/include/config/kernel.release")
	mark=$(release_mark patched)
	rpm_name=kernel$meta
	rpm_version=$(printf '%s\n' "${rel%"$mark"}" | tr - '~')
}

pkg_need_root()
{
	[ "$(id -u)" = 0 ] || die "the package tests need root (chroot, dpkg --root, mount)"
}

# pkg_art_clean NAME...: remove this suite's artefacts of an earlier run.
pkg_art_clean()
{
	local n
	for n in "$@"; do
		rm -rf "${art:?}/$n"
	done
}

# pkg_run: the tests -t and -T chose, in KTAP, in the suite's order
# (TEST_NAMES', whatever order -t names them in: a root is installed
# before it is used and removed last).
pkg_run()
{
	echo "# $target${rel:+: $rel}; work folder $work; package staging $RXKIT_PKG_TMP; artefacts $art"
	# shellcheck disable=SC2086
	run_tests $TESTS
}

# pkg REVISION OUT [OPTION...]: ci/package of revision REVISION into OUT
# (an RXKIT_OUT); its log is $art/package-REVISION-NAME.log (NAME: OUT's
# last component), the end of which a failure prints.
pkg()
{
	local rev="$1" out="$2" log
	shift 2
	log="$art/package-$rev-${out##*/}.log"
	RXKIT_OUT=$out RXKIT_PKG_REVISION=$rev "$RXKIT_TOP/ci/package" "$@" "$target" \
		> "$log" 2>&1 || { tail -n 20 "$log" | sed 's/^/# /'; return 1; }
}

# pkg_file OUT REVISION image|headers|meta|hmeta|rpm|devel: the path of
# that package of this tree in OUT (an RXKIT_OUT), there or not (meta,
# hmeta: the metapackages of the image and the headers).
pkg_file()
{
	local p="$1/$target/packages"
	case "$3" in
	image) printf '%s\n' "$p/linux-image-${rel}_$rel-${2}_amd64.deb" ;;
	headers) printf '%s\n' "$p/linux-headers-${rel}_$rel-${2}_amd64.deb" ;;
	meta) printf '%s\n' "$p/linux-image${meta}_$rel-${2}_amd64.deb" ;;
	hmeta) printf '%s\n' "$p/linux-headers${meta}_$rel-${2}_amd64.deb" ;;
	rpm) printf '%s\n' "$p/$rpm_name-$rpm_version-$2.x86_64.rpm" ;;
	devel) printf '%s\n' "$p/$rpm_name-devel-$rpm_version-$2.x86_64.rpm" ;;
	esac
}

# The kit's files a package build reads besides the kernel tree.
readonly PKG_INPUTS="debian rpm kconfig ci/package ci/package.d ci/lib/kconfig.sh ci/lib/series.sh \
ci/kconfig-check ci/extmod-tree"

# pkg_fresh: true when this tree's packages in $RXKIT_OUT can serve (see
# the top); else print why not.
pkg_fresh()
{
	local p="$RXKIT_OUT/$target/packages" s="$RXKIT_OUT/$target/source" f oldest newer
	set -- "$(pkg_file "$RXKIT_OUT" 1 image)" "$(pkg_file "$RXKIT_OUT" 1 headers)" \
		"$(pkg_file "$RXKIT_OUT" 1 meta)" "$(pkg_file "$RXKIT_OUT" 1 hmeta)" \
		"$(pkg_file "$RXKIT_OUT" 1 rpm)" "$(pkg_file "$RXKIT_OUT" 1 devel)" \
		"$s/linux-rxkit_$rel-1.dsc" "$s/rpm/$rpm_name.spec" "$p/ccache.txt" \
		"$p/lintian.txt" "$p/rpmlint.txt"
	for f in "$@"; do
		[ -f "$f" ] || { echo "no $f"; return 1; }
	done
	for f in "$p/lintian.txt" "$p/rpmlint.txt"; do
		tail -n 1 "$f" | grep -q '^exit [0-9][0-9]*$' ||
			{ echo "$f is no lint report: $(tail -n 1 "$f")"; return 1; }
	done
	oldest=$(ls -t "$@" | tail -n 1)
	[ -z "$(find "$kernel" -newer "$oldest")" ] ||
		{ echo "$oldest is older than the kernel $kernel"; return 1; }
	# shellcheck disable=SC2086
	newer=$(cd "$RXKIT_TOP" && find $PKG_INPUTS -type f -newer "$oldest" 2>/dev/null | head -n 1)
	[ -z "$newer" ] || { echo "$newer is newer than $oldest"; return 1; }
}

pkg_state=	# '' (not looked at yet), reused, built, or why there are none
deb='' hdeb='' rpmf='' drpm='' mdeb='' mhdeb=''
# The metapackages' name after linux-image (ci/package.d/identity.sh).
meta=$(release_mark patched | sed 's/[0-9]*$//')

# pkg_set: deb, hdeb, mdeb, mhdeb, rpmf, drpm = this tree's packages in
# $RXKIT_OUT.
pkg_set()
{
	deb=$(pkg_file "$RXKIT_OUT" 1 image)
	hdeb=$(pkg_file "$RXKIT_OUT" 1 headers)
	rpmf=$(pkg_file "$RXKIT_OUT" 1 rpm)
	drpm=$(pkg_file "$RXKIT_OUT" 1 devel)
	mdeb=$(pkg_file "$RXKIT_OUT" 1 meta)
	mhdeb=$(pkg_file "$RXKIT_OUT" 1 hmeta)
}

# pkg_build: ci/package of this tree into $RXKIT_OUT (revision 1, linted);
# sets deb, hdeb, mdeb, mhdeb, rpmf, drpm and pkg_state.
pkg_build()
{
	local f
	pkg_state="ci/package failed (log: $art/package-1-${RXKIT_OUT##*/}.log)"
	pkg 1 "$RXKIT_OUT" || return 1
	pkg_set
	for f in "$deb" "$hdeb" "$mdeb" "$mhdeb" "$rpmf" "$drpm"; do
		[ -f "$f" ] || {
			echo "# a package is missing: '$f'"
			pkg_state="ci/package made no ${f##*/}"
			return 1
		}
	done
	pkg_state=built
}

# need_packages [--this-run]: deb, hdeb, mdeb, mhdeb, rpmf, drpm set (see the top), or
# SKIP_REASON set and KSFT_SKIP returned.  --this-run: packages that this
# run built (in its staging folder), not those of an earlier run.
need_packages()
{
	local why=
	case "$pkg_state" in
	built) return 0 ;;
	reused) [ "${1:-}" = --this-run ] || return 0
		why="this test compares two package builds of this run" ;;
	'') if [ "${1:-}" = --this-run ]; then
		why="this test compares two package builds of this run"
	    elif why=$(pkg_fresh); then
		pkg_set
		pkg_state=reused
		echo "# the packages of an earlier run: $RXKIT_OUT/$target/packages (newer than the kernel and the packaging files)"
		return 0
	    fi ;;
	*) SKIP_REASON="no packages: $pkg_state"; return "$KSFT_SKIP" ;;
	esac
	echo "# building the packages (ci/package): $why"
	pkg_build && return 0
	SKIP_REASON="no packages: $pkg_state"
	return "$KSFT_SKIP"
}

# rootfs LOG [OPTION]: the path of images/mkrootfs's tarball (its standard
# output), what it did in LOG.
rootfs()
{
	"$RXKIT_TOP/images/mkrootfs" ${2:+"$2"} 2> "$1" || { sed 's/^/# /' "$1"; return 1; }
}

# lint_report REPORT: ci/package's report (lintian.txt, rpmlint.txt) of
# the packages says exit 0.
lint_report()
{
	local r
	need_packages || return $?
	r="$RXKIT_OUT/$target/packages/$1"
	cp "$r" "$art/"
	tail -n 30 "$r" | sed 's/^/# /'
	[ "$(tail -n 1 "$r")" = "exit 0" ]
}

# extmod ROOT TREE [CHROOT]: build a one-file module against ROOT/TREE (the
# installed headers; the build link of /lib/modules/REL must lead there),
# inside ROOT with its own make and gcc when CHROOT is given, else with the
# host's.  Log: $art/extmod-ROOTNAME.log.
extmod()
{
	local l m log v
	l=$(readlink "$1/lib/modules/$rel/build") || { echo "# no /lib/modules/$rel/build link"; return 1; }
	[ "$l" = "$2" ] || { echo "# build link points to $l, not $2"; return 1; }
	m="$1/tmp/rxkit-extmod"
	mkdir -p "$m"
	cat > "$m/rxkit_hello.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/vm_sockets.h>

static int __init rxkit_hello_init(void)
{
	pr_info("rxkit_hello: VMADDR_CID_HOST is %u\n", VMADDR_CID_HOST);
	return 0;
}
module_init(rxkit_hello_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vsock-rxkit external module build test");
EOF
	echo 'obj-m := rxkit_hello.o' > "$m/Makefile"
	log="$art/extmod-${1##*/}.log"
	if [ -n "${3:-}" ]; then
		chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			make -C "/lib/modules/$rel/build" M=/tmp/rxkit-extmod modules > "$log" 2>&1
	else
		make -C "$1$2" M="$m" modules > "$log" 2>&1
	fi || { tail -n 15 "$log" | sed 's/^/# /'; return 1; }
	v=$(modinfo -F vermagic "$m/rxkit_hello.ko")
	echo "# rxkit_hello.ko built against $2${3:+ inside the root (its gcc: $(chroot "$1" gcc -dumpfullversion))}: vermagic $v"
	rm -rf "$m"
	case "$v" in
	"$rel "*) ;;
	*) echo "# vermagic is not that of $rel"; return 1 ;;
	esac
}
