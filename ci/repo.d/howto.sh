# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/repo.d/howto.sh, sourced by ci/repo: the INSTALL file of the
# repository, the lines a user types to add it and install the kernel, on
# Debian and on an RPM system.  Reads uri, fpr.
# shellcheck disable=SC2154

# howto_names GLOB: the package names of the kernels in the repository
# (not their headers, -devel or -dbg packages), one a line.
howto_names()
{
	local f n
	for f in $1; do
		[ -f "$f" ] || continue
		case "${f##*/}" in
		*.deb) n=$(dpkg-deb -f "$f" Package) ;;
		*) n=$(rpm -qp --qf '%{NAME}' "$f" 2>/dev/null) ;;
		esac
		case "$n" in
		*-dbg|*-devel) ;;
		*) echo "$n" ;;
		esac
	done | sort -u
}

# howto DIR: the INSTALL text of the repository in DIR (the kernels' or the
# DKMS package's, with the headers of the running kernel dkms builds for).
howto()
{
	local u="${uri:-REPO_URI}" d r
	d=$(howto_names "$1/deb/pool/main/linux-image-*.deb" | tr '\n' ' ')
	[ -n "$d" ] || ! ls "$1"/deb/pool/main/vsock-rxkit-dkms_*.deb > /dev/null 2>&1 ||
		d='linux-headers-$(uname -r) vsock-rxkit-dkms '
	r=$(howto_names "$1/rpm/*.rpm" | tr '\n' ' ')
	echo "vsock-rxkit: kernels with the series \"vsock/virtio: reduce RX per-packet socket overhead\""
	echo "key: $fpr (gpg --show-keys vsock-rxkit-archive-key.asc shows it)"
	if [ -n "$uri" ]; then
		echo "address: $u"
	else
		echo "address: replace REPO_URI below and in vsock-rxkit.sources and vsock-rxkit.repo"
		echo "by the address of this folder (or publish it with ci/repo --uri URI)"
	fi
	if [ -n "$d" ]; then
		cat <<HOWTO

Debian 12 or later, as root:
  curl -fsSLo /usr/share/keyrings/vsock-rxkit-archive-keyring.gpg $u/vsock-rxkit-archive-keyring.gpg
  curl -fsSLo /etc/apt/sources.list.d/vsock-rxkit.sources $u/vsock-rxkit.sources
  apt-get update && apt-get install ${d% }
HOWTO
	fi
	if [ -n "$r" ]; then
		cat <<HOWTO

An RPM system with dnf, as root:
  rpm --import $u/vsock-rxkit-archive-key.asc
  curl -fsSLo /etc/yum.repos.d/vsock-rxkit.repo $u/vsock-rxkit.repo
  dnf install ${r% }
HOWTO
	fi
}
