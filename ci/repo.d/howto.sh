# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/repo.d/howto.sh, sourced by ci/repo: the configuration files a user
# downloads and the INSTALL file of the repository, the lines a user types
# to add it and install the kernel, on Debian and on an RPM system.
# Reads uri, fpr, stage, REPO_LIB.
# shellcheck disable=SC2154

# suite_version SUITE: the Debian version of the release (ci/repo.d/suites).
suite_version() { awk -v s="$1" '$1 == s { print $2 }' "$REPO_LIB/suites"; }

# config TEMPLATE OUT SUITE: ci/repo.d/TEMPLATE.in with the URI, the
# fingerprint and the suite (- for none), as $stage/OUT.
config()
{
	local v
	v=$(suite_version "$3")
	sed -e "s|@URI@|${uri:-REPO_URI}|g" -e "s|@FPR@|$fpr|g" -e "s|@SUITE@|$3|g" \
		-e "s|@VERSION@|$v|g" "$REPO_LIB/$1.in" > "$stage/$2"
}

# deb_names DIR SUITE COMPONENT: what a user installs of that component:
# its metapackages of the kernel image (linux-image-NAME, NAME not a
# release), else its kernel images, and the DKMS package with the running
# kernel's headers; a name a line.
deb_names()
{
	local p="$1/deb/dists/$2/$3/binary-amd64/Packages" m
	[ -f "$p" ] || return 0
	m=$(sed -n 's/^Package: \(linux-image-[a-z][^ ]*\)$/\1/p' "$p" | grep -v -- '-dbg$' | sort -u)
	[ -n "$m" ] || m=$(sed -n 's/^Package: \(linux-image-[^ ]*\)$/\1/p' "$p" | grep -v -- '-dbg$' | sort -u)
	printf '%s\n' "$m" | sed '/^$/d'
	! grep -qx 'Package: vsock-rxkit-dkms' "$p" || printf '%s\n' 'linux-headers-$(uname -r)' vsock-rxkit-dkms
}

# rpm_names GLOB: the package names of the kernels (not their -devel or
# -dbg packages), one a line.
rpm_names()
{
	local f
	for f in $1; do
		[ -f "$f" ] && rpm -qp --qf '%{NAME}\n' "$f" 2>/dev/null
	done | grep -v -e '-dbg$' -e '-devel$' | sort -u
}

# howto_suite DIR SUITE: the lines of Debian's release SUITE.
howto_suite()
{
	local u="${uri:-REPO_URI}" m t v
	v=$(suite_version "$2")
	m=$(deb_names "$1" "$2" main | tr '\n' ' ')
	t=$(deb_names "$1" "$2" test | tr '\n' ' ')
	cat <<HOWTO

Debian $v ($2), as root:
  curl -fsSLo /usr/share/keyrings/vsock-rxkit-archive-keyring.gpg $u/vsock-rxkit-archive-keyring.gpg
  curl -fsSLo /etc/apt/sources.list.d/vsock-rxkit.sources $u/vsock-rxkit-$2.sources
HOWTO
	[ -z "$m" ] || echo "  apt-get update && apt-get install ${m% }"
	case "$m$t" in
	*linux-image-[a-z]*) echo "linux-image-vsockrx-*: apt upgrade follows the kit's releases, and GRUB boots the kit's kernel even beside a newer one (remove the package to boot the newest again)" ;;
	esac
	[ -n "$t" ] || return 0
	cat <<HOWTO
The kit's test-VM kernels (component test: QEMU guests, not a general-purpose machine):
  sed -i 's/^Components: main\$/Components: main test/' /etc/apt/sources.list.d/vsock-rxkit.sources
  apt-get update && apt-get install ${t% }
HOWTO
}

# howto DIR: the INSTALL text of the repository in DIR.
howto()
{
	local u="${uri:-REPO_URI}" s r
	r=$(rpm_names "$1/rpm/*.rpm" | tr '\n' ' ')
	echo "vsock-rxkit: kernels with the series \"vsock/virtio: reduce RX per-packet socket overhead\""
	echo "key: $fpr (gpg --show-keys vsock-rxkit-archive-key.asc shows it)"
	if [ -n "$uri" ]; then
		echo "address: $u"
	else
		echo "address: replace REPO_URI below and in the .sources and .repo files"
		echo "by the address of this folder (or publish it with ci/repo --uri URI)"
	fi
	for s in "$1"/deb/dists/*; do
		[ ! -d "$s" ] || howto_suite "$1" "${s##*/}"
	done
	if [ -n "$r" ]; then
		cat <<HOWTO

An RPM system with dnf, as root:
  rpm --import $u/vsock-rxkit-archive-key.asc
  curl -fsSLo /etc/yum.repos.d/vsock-rxkit.repo $u/vsock-rxkit.repo
  dnf install ${r% }
HOWTO
	fi
}
