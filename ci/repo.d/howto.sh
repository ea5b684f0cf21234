# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/repo.d/howto.sh, sourced by ci/repo: the lines a user types to add the
# repository and install the kernel, on Debian and on an RPM system.
# Reads repo, uri, fpr.
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

howto()
{
	local u="${uri:-REPO_URI}" d r
	d=$(howto_names "$repo/deb/pool/main/linux-image-*.deb" | tr '\n' ' ')
	r=$(howto_names "$repo/rpm/*.rpm" | tr '\n' ' ')
	echo "repo: published $repo, signed with the key $fpr"
	if [ -n "$uri" ]; then
		echo "repo: users reach it as $u"
	else
		echo "repo: serve it (a web server, file://) and replace REPO_URI below and in"
		echo "repo: vsock-rxkit.sources and vsock-rxkit.repo by its address (or: ci/repo --uri URI)"
	fi
	cat <<HOWTO
repo: on Debian 12 or later, as root:
  curl -fsSLo /usr/share/keyrings/vsock-rxkit-archive-keyring.gpg $u/vsock-rxkit-archive-keyring.gpg
  curl -fsSLo /etc/apt/sources.list.d/vsock-rxkit.sources $u/vsock-rxkit.sources
  apt-get update && apt-get install ${d% }
repo: on an RPM system with dnf, as root:
  rpm --import $u/vsock-rxkit-archive-key.asc
  curl -fsSLo /etc/yum.repos.d/vsock-rxkit.repo $u/vsock-rxkit.repo
  dnf install ${r% }
repo: the key's fingerprint (gpg --show-keys vsock-rxkit-archive-key.asc) must be $fpr
HOWTO
}
