#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_repo.sh: the signed repositories of ci/repo, used as a
# user uses them, and refused when altered.  KTAP on stdout; exit 0 (all
# passed or skipped), 1 (a failure).
#
# ci/repo publishes the packages of TARGET into $RXKIT_OUT/repo with the
# kit's key.  apt (a private state: Dir::State, Dir::Etc, Dir::Cache under
# the work folder, the dpkg status of images/mkrootfs's root, so that the
# kernel's Depends are installed) reads it with Signed-By the published
# keyring and downloads the kernel; a tampered InRelease, a tampered .deb
# and another key are refused.  dnf (--installroot, gpgcheck=1,
# repo_gpgcheck=1; tests/data/rpm-base-standin.spec stands in for the
# distribution's base packages) installs the kernel package; a tampered
# package, an unsigned one, unsigned metadata and another key are refused.
# What apt and dnf must say: tests/data/repo-refusals.  --key and
# --keyring sign with the key they name.
set -eu
PROG=packages_repo
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="repo_publish apt_install apt_tampered apt_wrong_key dnf_install \
dnf_tampered dnf_unsigned dnf_wrong_key repo_keys"
readonly TEST_DESCS="ci/repo publishes the packages as built, its indexes and the RPMs signed by the kit's key:\
apt-get update and install from the repository with Signed-By its keyring, no warning:\
apt refuses a tampered InRelease, then a tampered .deb:\
apt refuses the repository with another key's keyring:\
dnf imports the key from gpgkey= and installs the kernel package:\
dnf and rpm -K refuse the kernel package with its payload changed:\
dnf refuses the unsigned package in a repository of signed metadata:\
dnf with another key as gpgkey= refuses repomd.xml, then the package:\
ci/repo --keyring and --key sign with that key, bad keys and options refused"

usage()
{
	cat <<USAGE
usage: tests/packages_repo.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The signed apt and dnf repositories ci/repo makes of the packages of
TARGET (default: $RXKIT_TARGET; the packages are ci/package's, built when
those in \$RXKIT_OUT/TARGET/packages/ are missing or stale).  -l lists
the tests; -t NAME runs NAME, -T NAME leaves it out (each may repeat; they
run in the order -l lists).
Every test but repo_keys needs the repository repo_publish makes in
\$RXKIT_OUT/repo (it is made for whichever test comes first) and SKIPs,
saying why, without it.  The key: the kit's (\$RXKIT_CACHE/repo-key).
Artefacts (ci/repo's output, apt's and dnf's): \$RXKIT_OUT/TARGET/packages-test/repo/
Environment: RXKIT_PKG_TMP (ci/package's staging folder).
USAGE
}

pkg_setup "$@"
# After pkg_setup: its EXIT trap (repo_cleanup) needs work and ends with
# pkg_cleanup's.
. "$RXKIT_TOP/tests/lib/packages_repo.sh"
pkg_need_kernel
pkg_need_root
need gpg gpg
need gpg-agent gpg-agent
need gpgv gpgv
need apt-get apt
need dnf dnf
need rpm rpm
need rpmbuild rpm
need createrepo_c createrepo-c
need dpkg-deb dpkg
pkg_art_clean repo
art="$art/repo"
mkdir -p "$art"

# pool_path INDEX FILE: FILE's path in the pool, as INDEX names it.
pool_path() { sed -n "s|^Filename: \(pool/.*/${2##*/}\)\$|\1|p" "$1"; }

test_repo_publish()
{
	local rc=0 r d f n p
	make_repo || return $?
	r="$RXKIT_OUT/repo"
	d="deb/dists/$rsuite"
	p="$r/$d/$rcomp/binary-amd64/Packages"
	for f in "$d/InRelease" "$d/Release.gpg" "$d/$rcomp/binary-amd64/Packages.gz" "$d/main/binary-amd64/Packages.gz" \
		 rpm/repodata/repomd.xml.asc vsock-rxkit-archive-keyring.gpg vsock-rxkit-archive-key.asc \
		 "vsock-rxkit-$rsuite.sources" vsock-rxkit.repo INSTALL; do
		[ -e "$r/$f" ] || { echo "# $f missing"; rc=1; }
	done
	# Each signature with the published key alone.
	for f in "$d/InRelease" "$d/Release.gpg $d/Release" "rpm/repodata/repomd.xml.asc rpm/repodata/repomd.xml"; do
		# shellcheck disable=SC2086 # a signature and what it signs
		(cd "$r" && gpgv --status-fd 1 --keyring ./vsock-rxkit-archive-keyring.gpg $f) \
			> "$art/gpgv.log" 2>&1 || { echo "# gpgv ${f%% *}: $(tail -n 1 "$art/gpgv.log")"; rc=1; }
		grep -q "^\[GNUPG:\] VALIDSIG $fpr " "$art/gpgv.log" ||
			{ echo "# ${f%% *} is not signed by $fpr"; rc=1; }
	done
	echo "# InRelease, Release.gpg, repomd.xml.asc: good signatures of $fpr"
	# The published packages are the built ones, in the component of the
	# guest flavour (ci/repo.d/components); the RPMs signed.
	for f in "$deb" "$hdeb" "$mdeb" "$mhdeb"; do
		n=$(pool_path "$p" "$f")
		[ -n "$n" ] || { echo "# the $rcomp index of $rsuite lacks ${f##*/}"; rc=1; continue; }
		case "$n" in
		"pool/$rcomp/"*) ;;
		*) echo "# ${f##*/} is in $n, not in the pool of $rcomp"; rc=1 ;;
		esac
		cmp -s "$f" "$r/deb/$n" || { echo "# ${f##*/} not in the pool as built"; rc=1; }
	done
	echo "# suite $rsuite, component $rcomp: the packages as built, metapackages $(dpkg-deb -f "$mdeb" Package) and $(dpkg-deb -f "$mhdeb" Package)"
	for f in "$rpmf" "$drpm"; do
		n=$(rpm -qp --qf '%{RSAHEADER:pgpsig}' "$r/rpm/${f##*/}" 2>/dev/null) || n=
		echo "# ${f##*/}: $n"
		case "$n" in
		*"Key ID $(printf '%s\n' "$fpr" | cut -c25- | tr A-F a-f)") ;;
		*) echo "# ${f##*/} is not signed by $fpr"; rc=1 ;;
		esac
	done
	if ! grep -q "^  apt-get update && apt-get install $(dpkg-deb -f "$mdeb" Package)\$" "$r/INSTALL" ||
	   ! grep -q "^  curl .* REPO_URI/vsock-rxkit-$rsuite.sources\$" "$r/INSTALL" ||
	   ! grep -q "^  dnf install $rpm_name\$" "$r/INSTALL" ||
	   ! grep -q "^key: $fpr " "$r/INSTALL"; then
		echo "# INSTALL lacks the install lines of $(dpkg-deb -f "$mdeb" Package) from $rsuite and of $rpm_name, or the key"
		rc=1
	fi
	return "$rc"
}

test_apt_install()
{
	local a v
	need_repo || return $?
	a=$(apt_state install "$RXKIT_OUT/repo" "$RXKIT_OUT/repo/vsock-rxkit-archive-keyring.gpg") || return 1
	apt_in "$a" update > "$art/apt-update.log" 2>&1 || { sed 's/^/# /' "$art/apt-update.log"; return 1; }
	if grep -q '^[WE]:' "$art/apt-update.log"; then
		grep '^[WE]:' "$art/apt-update.log" | sed 's/^/# /'
		return 1
	fi
	echo "# apt-get update: $(grep -c '^Get:' "$art/apt-update.log") files, no warning"
	# Through the metapackages, as INSTALL says.
	apt_in "$a" install -s "linux-image$meta" "linux-headers$meta" > "$art/apt-simulate.log" 2>&1 ||
		{ sed 's/^/# /' "$art/apt-simulate.log"; return 1; }
	grep '^Inst ' "$art/apt-simulate.log" | sed 's/^/# /'
	v=$(sed -n "s/^Inst linux-image-$rel (\([^ ]*\) vsock-rxkit:$rsuite \[amd64\])\$/\1/p" "$art/apt-simulate.log")
	[ "$v" = "$rel-1" ] || { echo "# apt would not install linux-image-$rel $rel-1 from vsock-rxkit's $rsuite"; return 1; }
	apt_in "$a" install -y --download-only "linux-image$meta" "linux-headers$meta" \
		> "$art/apt-download.log" 2>&1 || { tail -n 20 "$art/apt-download.log" | sed 's/^/# /'; return 1; }
	if grep -q '^[WE]:' "$art/apt-download.log"; then
		grep '^[WE]:' "$art/apt-download.log" | sed 's/^/# /'
		return 1
	fi
	cmp "$deb" "$a/cache/archives/${deb##*/}" && cmp "$hdeb" "$a/cache/archives/${hdeb##*/}" || return 1
	echo "# downloaded, hashes checked against the signed index: ${deb##*/} ${hdeb##*/}"
}

# A tampered InRelease (its signed text altered), then a tampered .deb in
# the pool of a copy of the repository (its index, the kernel's .deb).
test_apt_tampered()
{
	local c a f
	need_repo || return $?
	c="$work/apt-tampered"
	mkdir -p "$c/deb"
	cp -R "$RXKIT_OUT/repo/deb/dists" "$c/deb/"
	f=$(pool_path "$c/deb/dists/$rsuite/$rcomp/binary-amd64/Packages" "$deb")
	mkdir -p "$c/deb/${f%/*}"
	cp "$RXKIT_OUT/repo/deb/$f" "$c/deb/$f"
	sed -i 's/^Label: vsock-rxkit$/Label: vsock-rxkix/' "$c/deb/dists/$rsuite/InRelease"
	a=$(apt_state tampered "$c" "$RXKIT_OUT/repo/vsock-rxkit-archive-keyring.gpg") || return 1
	refused apt_badsig "$art/apt-badsig.log" apt_in "$a" update || return 1
	cp "$RXKIT_OUT/repo/deb/dists/$rsuite/InRelease" "$c/deb/dists/$rsuite/"
	apt_in "$a" update > "$art/apt-update-2.log" 2>&1 || { sed 's/^/# /' "$art/apt-update-2.log"; return 1; }
	f="$c/deb/$f"
	flip "$f"
	refused apt_deb "$art/apt-deb.log" apt_in "$a" install -y --download-only "linux-image-$rel"
}

test_apt_wrong_key()
{
	local a
	need_repo || return $?
	other_key || return 1
	a=$(apt_state wrong-key "$RXKIT_OUT/repo" "$work/other.gpg") || return 1
	refused apt_nokey "$art/apt-nokey.log" apt_in "$a" update
}

test_dnf_install()
{
	local d k
	need_repo || return $?
	d=$(dnf_root install "$RXKIT_OUT/repo/rpm" "$RXKIT_OUT/repo/vsock-rxkit-archive-key.asc" 1) || return 1
	dnf_in "$d" install "$rpm_name" > "$art/dnf-install.log" 2>&1 ||
		{ tail -n 20 "$art/dnf-install.log" | sed 's/^/# /'; return 1; }
	k=$(printf '%s\n' "$fpr" | sed 's/..../& /g; s/ $//')
	grep -q "^ Fingerprint: $k\$" "$art/dnf-install.log" ||
		{ echo "# dnf did not import the key $fpr (log: $art/dnf-install.log)"; return 1; }
	echo "# dnf imported the key $fpr from gpgkey= and installed:"
	rpm --root "$d/root" -qa --qf '%{NAME}-%{VERSION}-%{RELEASE} %{SIGPGP:pgpsig}%{RSAHEADER:pgpsig}\n' |
		sed 's/^/#   /'
	[ "$(rpm --root "$d/root" -q --qf '%{VERSION}-%{RELEASE}' "$rpm_name")" = "$rpm_version-1" ] ||
		{ echo "# $rpm_name $rpm_version-1 is not installed in the root"; return 1; }
	[ -f "$d/root/lib/modules/$rel/vmlinuz" ] || { echo "# /lib/modules/$rel/vmlinuz missing"; return 1; }
}

# The kernel package with bytes of its payload changed, in a copy of the
# repository (its index, the kernel package): the index untouched (dnf's checksum), then indexed anew
# without a signature (repo_gpgcheck) and with repo_gpgcheck off
# (gpgcheck: the package's own signature; rpm -K says which digest).
test_dnf_tampered()
{
	local c d k f
	need_repo || return $?
	c="$work/dnf-tampered"
	k="$RXKIT_OUT/repo/vsock-rxkit-archive-key.asc"
	mkdir -p "$c"
	cp -R "$RXKIT_OUT/repo/rpm/repodata" "$RXKIT_OUT/repo/rpm/${rpmf##*/}" "$c/"
	f="$c/${rpmf##*/}"
	flip "$f"
	d=$(dnf_root tampered "$c" "$k" 1) || return 1
	refused dnf_checksum "$art/dnf-checksum.log" dnf_in "$d" install "$rpm_name" || return 1
	rm -rf "$c/repodata"
	createrepo_c --quiet "$c"
	d=$(dnf_root tampered-2 "$c" "$k" 1) || return 1
	refused dnf_repomd_unsigned "$art/dnf-repomd-unsigned.log" dnf_in "$d" install "$rpm_name" || return 1
	d=$(dnf_root tampered-3 "$c" "$k" 0) || return 1
	refused dnf_payload "$art/dnf-payload.log" dnf_in "$d" install "$rpm_name" || return 1
	mkdir -p "$work/rpmdb"
	rpm --dbpath "$work/rpmdb" --import "$k"
	refused rpmk_payload "$art/rpmk-payload.log" rpm --dbpath "$work/rpmdb" -Kv "$f"
}

# The package as ci/package built it (unsigned) in a repository whose
# metadata is signed by the kit's key.
test_dnf_unsigned()
{
	local c d
	need_repo || return $?
	c="$work/dnf-unsigned"
	mkdir -p "$c"
	cp "$rpmf" "$c/"
	createrepo_c --quiet "$c"
	d=$(dnf_root unsigned "$c" "$RXKIT_OUT/repo/vsock-rxkit-archive-key.asc" 0) || return 1
	refused dnf_unsigned "$art/dnf-unsigned.log" dnf_in "$d" install "$rpm_name"
}

# gpgkey= another key: repomd.xml's signature, then (repo_gpgcheck off)
# the package's.
test_dnf_wrong_key()
{
	local d
	need_repo || return $?
	other_key || return 1
	d=$(dnf_root wrong-key "$RXKIT_OUT/repo/rpm" "$work/other.asc" 1) || return 1
	refused dnf_repomd_badsig "$art/dnf-repomd-badsig.log" dnf_in "$d" install "$rpm_name" || return 1
	d=$(dnf_root wrong-key-2 "$RXKIT_OUT/repo/rpm" "$work/other.asc" 0) || return 1
	refused dnf_nokey "$art/dnf-nokey.log" dnf_in "$d" install "$rpm_name"
}

# ci/repo --keyring FILE and --key KEYID sign with that key (into their
# own RXKIT_OUT, the kernel packages of this one); a key that is not there,
# a keyring with no secret key, both options at once and a target without
# packages are refused.
test_repo_keys()
{
	local rc=0 o how
	need_packages || return $?
	other_key || return 1
	for how in keyring key; do
		o="$work/out-$how"
		mkdir -p "$o/$target/packages"
		ln -s "$deb" "$rpmf" "$o/$target/packages/"
		case "$how" in
		keyring) RXKIT_OUT=$o "$RXKIT_TOP/ci/repo" --keyring "$work/other.sec" "$target" ;;
		key) GNUPGHOME="$work/other-gnupg" RXKIT_OUT=$o "$RXKIT_TOP/ci/repo" --key "$other_fpr" "$target" ;;
		esac > "$art/ci-repo-$how.log" 2>&1 || { tail -n 15 "$art/ci-repo-$how.log" | sed 's/^/# /'; rc=1; continue; }
		if ! gpgv --status-fd 1 --keyring "$work/other.gpg" "$o"/repo/deb/dists/*/InRelease 2>&1 |
			grep -q "^\[GNUPG:\] VALIDSIG $other_fpr " ||
		   ! cmp -s "$work/other.gpg" "$o/repo/vsock-rxkit-archive-keyring.gpg" ||
		   ! rpm -qp --qf '%{RSAHEADER:pgpsig}' "$o/repo/rpm/${rpmf##*/}" 2>/dev/null |
			grep -qi "Key ID $(printf '%s\n' "$other_fpr" | cut -c25-)\$"; then
			echo "# ci/repo --$how: the repository is not signed by $other_fpr, or exports another key"
			rc=1
			continue
		fi
		echo "# ci/repo --$how: InRelease and the RPMs signed by $other_fpr, which it exports"
	done
	o="$work/out-keyring"
	expect_die "$o" "--key $fpr0: no such secret key" ci/repo --key "$fpr0" "$target" || rc=1
	expect_die "$o" "holds no secret key" ci/repo --keyring "$work/other.gpg" "$target" || rc=1
	expect_die "$o" "exclude each other" ci/repo --key "$other_fpr" --keyring "$work/other.sec" "$target" || rc=1
	expect_die "$work/out-empty" "no packages of $target in " ci/repo "$target" || rc=1
	return "$rc"
}

pkg_run
