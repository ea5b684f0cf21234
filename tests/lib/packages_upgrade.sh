# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/packages_upgrade.sh, sourced by tests/packages_rebuild.sh after
# tests/lib/packages_repo.sh: the upgrade through the kit's repository, as
# a user meets it.  ci/repo publishes revision 1 (this tree's packages)
# into a repository of the test's own; apt installs it through the
# metapackages in a Debian root (images/mkrootfs's, chroot), dnf in an
# installroot; ci/repo adds revision 2 (ci/package at RXKIT_PKG_REVISION=2,
# test_revision's build); apt-get upgrade and dnf upgrade move to it, and
# revision 1 is still published and installable (a downgrade to it).
# shellcheck disable=SC2034,SC2154 # the suite's variables, both ways

up_out="$work/out-upgrade"
uart="$art/upgrade"
uroot="$work/upgrade-root"
readonly UP_SRC=/srv/rxkit-repo

in_up() { chroot "$uroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# up_apt LOG ARG...: apt-get ARG... in the root, whose only source is the
# kit's repository; its output in $uart/LOG, the end of it shown when it
# fails.
up_apt()
{
	local l="$uart/$1"
	shift
	in_up apt-get -q -y -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=/etc/rxkit-sources.d \
		"$@" > "$l" 2>&1 || { tail -n 15 "$l" | sed 's/^/# /'; return 1; }
}

# up_root: the Debian root of the apt half, /proc mounted.
up_root()
{
	local t
	mkdir -p "$uart"
	t=$(rootfs "$uart/mkrootfs.log") || return 1
	mkdir -p "$uroot"
	tar -C "$uroot" -xf "$t"
	mount -t proc proc "$uroot/proc"
	mkdir -p "$uroot/etc/rxkit-sources.d"
}

# up_publish REV OUT: revision REV of this tree's packages (in OUT, an
# RXKIT_OUT) added by ci/repo to the test's repository, which the root
# reads at $UP_SRC (the suite's sources file, components main and test,
# as INSTALL says for the test-VM kernels).
up_publish()
{
	local p="$up_out/$target/packages" k f s
	rm -rf "$p"
	mkdir -p "$p"
	for k in image headers meta hmeta rpm devel; do
		f=$(pkg_file "$2" "$1" "$k")
		[ -f "$f" ] || { echo "# no ${f##*/}"; return 1; }
		cp "$f" "$p/"
	done
	RXKIT_OUT=$up_out "$RXKIT_TOP/ci/repo" "$target" > "$uart/repo-$1.log" 2>&1 ||
		{ tail -n 15 "$uart/repo-$1.log" | sed 's/^/# /'; return 1; }
	s=$(repo_placed "$uart/repo-$1.log" 1)
	rm -rf "$uroot$UP_SRC"
	cp -R "$up_out/repo" "$uroot$UP_SRC"
	cp "$up_out/repo/vsock-rxkit-archive-keyring.gpg" "$uroot/usr/share/keyrings/"
	sed -e "s|REPO_URI|file:$UP_SRC|" -e 's/^Components: main$/Components: main test/' \
		"$up_out/repo/vsock-rxkit-$s.sources" > "$uroot/etc/rxkit-sources.d/vsock-rxkit.sources"
	echo "# revision $1 published (suite $s): $(grep -c '^Package: ' "$up_out/repo/deb/dists/$s/test/binary-amd64/Packages") .debs in the index, $(ls "$up_out"/repo/rpm/*.rpm | wc -l) RPMs"
}

# up_versions WANT: the versions apt installed in the root (image,
# headers, both metapackages) are all WANT.
up_versions()
{
	local p v rc=0
	for p in "linux-image-$rel" "linux-headers-$rel" "linux-image$meta" "linux-headers$meta"; do
		v=$(in_up dpkg-query -W -f '${Version}' "$p" 2> /dev/null) || v=none
		[ "$v" = "$1" ] || { echo "# $p: $v installed, not $1"; rc=1; }
	done
	[ "$rc" = 1 ] || echo "# installed: linux-image-$rel, linux-headers-$rel and the metapackages, $1"
	return "$rc"
}

# up_dnf ROOT NAME ARG...: dnf ARG... in the installroot ROOT (dnf_root's),
# its output in $uart/dnf-NAME.log; the versions of the kernel package
# installed there, in order.
up_dnf()
{
	local d="$1" l="$uart/dnf-$2.log"
	shift 2
	dnf_in "$d" --refresh "$@" > "$l" 2>&1 || { tail -n 15 "$l" | sed 's/^/# /' >&2; return 1; }
	rpm --root "$d/root" -q --qf '%{VERSION}-%{RELEASE}\n' "$rpm_name" | sort -V | paste -sd' ' -
}

# up_step1: revision 1 published; apt installs it through the
# metapackages, dnf the kernel package.
up_step1()
{
	local v
	up_publish 1 "$RXKIT_OUT" || return 1
	up_apt update-1.log update || return 1
	up_apt install.log install "linux-image$meta" "linux-headers$meta" || return 1
	up_versions "$rel-1" || return 1
	ud=$(RXKIT_OUT=$up_out dnf_root upgrade "$up_out/repo/rpm" "$up_out/repo/vsock-rxkit-archive-key.asc" 1) ||
		return 1
	v=$(up_dnf "$ud" install install "$rpm_name") || return 1
	echo "# dnf install: $rpm_name $v"
	[ "$v" = "$rpm_version-1" ]
}

# up_step2: revision 2 published; apt-get upgrade and dnf upgrade move to it.
up_step2()
{
	local v
	up_publish 2 "$work/out3" || return 1
	up_apt update-2.log update || return 1
	up_apt upgrade.log upgrade || return 1
	grep '^Unpacking ' "$uart/upgrade.log" | sed 's/^/# apt-get upgrade: /'
	up_versions "$rel-2" || return 1
	# An install-only package (installonlypkg(kernel), as Fedora's
	# kernels): dnf upgrade installs the new one beside the running one.
	v=$(up_dnf "$ud" upgrade upgrade "$rpm_name") || return 1
	echo "# dnf upgrade: $rpm_name $v installed (install-only: the new beside the old)"
	[ "$v" = "$rpm_version-1 $rpm_version-2" ]
}

# up_step3: revision 1 is still published beside revision 2: apt
# installs it again, dnf into an empty root.
up_step3()
{
	local v1="$rel-1" v2="$rel-2" v d
	in_up apt-cache -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=/etc/rxkit-sources.d \
		madison "linux-image-$rel" > "$uart/madison.log" 2>&1
	sed 's/^/# /' "$uart/madison.log"
	grep -q " $v1 " "$uart/madison.log" && grep -q " $v2 " "$uart/madison.log" ||
		{ echo "# the repository does not offer both $v1 and $v2"; return 1; }
	up_apt downgrade.log install --allow-downgrades "linux-image$meta=$v1" "linux-headers$meta=$v1" \
		"linux-image-$rel=$v1" "linux-headers-$rel=$v1" || return 1
	up_versions "$v1" || return 1
	d=$(RXKIT_OUT=$up_out dnf_root upgrade-2 "$up_out/repo/rpm" "$up_out/repo/vsock-rxkit-archive-key.asc" 1) ||
		return 1
	v=$(up_dnf "$d" install-1 install "$rpm_name-$rpm_version-1") || return 1
	echo "# dnf install of revision 1 into an empty root: $rpm_name $v"
	[ "$v" = "$rpm_version-1" ]
}

ud=

test_upgrade()
{
	need_packages || return $?
	[ -f "$(pkg_file "$work/out3" 2 meta)" ] && [ -f "$(pkg_file "$work/out3" 2 rpm)" ] || {
		SKIP_REASON="no packages of revision 2 (the test revision builds them: run it with -t revision)"
		return "$KSFT_SKIP"
	}
	up_root || return "$KSFT_FAIL"
	up_step1 || return "$KSFT_FAIL"
	up_step2 || return "$KSFT_FAIL"
	up_step3 || return "$KSFT_FAIL"
}
