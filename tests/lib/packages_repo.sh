# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/packages_repo.sh: the repository, the private apt states and
# dnf roots of tests/packages_repo.sh, and its refusal checks.  Sourced
# after tests/lib/packages.sh (work, art, target, rel, deb, rpmf, rpm_name).
# shellcheck disable=SC2034,SC2154 # the suite's variables, both ways

readonly REFUSALS="$RXKIT_TOP/tests/data/repo-refusals"
readonly STANDIN_SPEC="$RXKIT_TOP/tests/data/rpm-base-standin.spec"
# A fingerprint no key has.
readonly fpr0=0000000000000000000000000000000000000000

repo_cleanup()
{
	[ ! -d "$work/other-gnupg" ] || GNUPGHOME="$work/other-gnupg" gpgconf --kill gpg-agent 2>/dev/null || :
	pkg_cleanup
}
trap repo_cleanup EXIT

repo_state=	# '' (not made yet), ok, or why there is none
fpr= keyid= rsuite= rcomp=

# repo_placed LOG 1|2: the suite (1) or the component (2) that ci/repo's
# LOG says this target's packages went to.
repo_placed()
{
	sed -n "s/^repo: $target: .* (suite \([a-z]*\), component \([a-z]*\))\$/\\$2/p" "$1"
}

# make_repo: ci/repo published the packages of this tree in
# $RXKIT_OUT/repo with the kit's key (fpr, keyid: its fingerprint and long
# key id; rsuite, rcomp: the suite and component of the packages), once a
# run.  A KSFT code: SKIP (no packages; SKIP_REASON says
# why), FAIL (repo_state says why).
# A suite of another flavour's packages sets bflavour (ci/package made
# them: they are not rebuilt here).
make_repo()
{
	local fl="${bflavour:-guest}"
	case "$repo_state" in
	ok) return "$KSFT_PASS" ;;
	?*) return "$KSFT_FAIL" ;;
	esac
	[ "$fl" != guest ] || need_packages || return $?
	repo_state="ci/repo failed (log: $art/ci-repo.log)"
	"$RXKIT_TOP/ci/repo" --flavour "$fl" "$target" > "$art/ci-repo.log" 2>&1 ||
		{ tail -n 15 "$art/ci-repo.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	sed 's/^/# /' "$art/ci-repo.log"
	repo_state="ci/repo named no signing key (log: $art/ci-repo.log)"
	fpr=$(sed -n 's/^repo: signing key \([0-9A-F]\{40\}\) .*/\1/p' "$art/ci-repo.log")
	[ -n "$fpr" ] || return "$KSFT_FAIL"
	keyid=$(printf '%s\n' "$fpr" | cut -c25-)
	repo_state="ci/repo named no suite and component (log: $art/ci-repo.log)"
	rsuite=$(repo_placed "$art/ci-repo.log" 1)
	rcomp=$(repo_placed "$art/ci-repo.log" 2)
	[ -n "$rsuite" ] && [ -n "$rcomp" ] || return "$KSFT_FAIL"
	repo_state=ok
}

# need_repo: the repository of make_repo, or SKIP.
need_repo()
{
	local rc=0
	make_repo || rc=$?
	[ "$rc" != 0 ] || return 0
	[ "$rc" = "$KSFT_SKIP" ] || SKIP_REASON="no repository: $repo_state"
	return "$KSFT_SKIP"
}

other_fpr=

# other_key: another key than the kit's, made once a run in
# $work/other-gnupg; exported to $work/other.gpg, other.asc and other.sec
# (its secret key); other_fpr its fingerprint.
other_key()
{
	local g="$work/other-gnupg"
	[ -z "$other_fpr" ] || return 0
	mkdir -m 700 "$g"
	GNUPGHOME=$g gpg --batch --quiet --passphrase '' --quick-gen-key \
		"vsock-rxkit tests: not the repository key" rsa3072 sign never || return 1
	GNUPGHOME=$g gpg --batch --export > "$work/other.gpg"
	GNUPGHOME=$g gpg --batch --export --armor > "$work/other.asc"
	GNUPGHOME=$g gpg --batch --export-secret-keys > "$work/other.sec"
	other_fpr=$(GNUPGHOME=$g gpg --batch --with-colons --list-secret-keys 2> /dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
	echo "# another key: $other_fpr"
}

# apt_state NAME REPO KEYRING: a private apt state (printed: its folder)
# whose only source is the published vsock-rxkit-SUITE.sources, REPO_URI
# made copy:REPO (apt copies the files into its cache), Signed-By KEYRING
# and the component of the packages added (INSTALL's sed, for test), and
# whose dpkg status is that of images/mkrootfs's root.
apt_state()
{
	local a="$work/apt-$1" t c=main
	[ "$rcomp" = main ] || c="main $rcomp"
	if [ ! -f "$work/dpkg-status" ]; then
		t=$(rootfs "$art/mkrootfs.log") || return 1
		tar -xOf "$t" ./var/lib/dpkg/status > "$work/dpkg-status" || return 1
	fi
	mkdir -p "$a/etc/sources.list.d" "$a/etc/preferences.d" "$a/state/lists/partial" "$a/cache/archives/partial"
	sed -e "s|REPO_URI|copy:$2|" -e "s|^Signed-By: .*|Signed-By: $3|" \
		-e "s|^Components: main\$|Components: $c|" \
		"$RXKIT_OUT/repo/vsock-rxkit-$rsuite.sources" > "$a/etc/sources.list.d/vsock-rxkit.sources"
	printf '%s\n' "$a"
}

# apt_in DIR ARG...: apt-get ARG... in the state of apt_state.
apt_in()
{
	local a="$1"
	shift
	apt-get -o Dir::Etc="$a/etc" -o Dir::Etc::sourcelist=/dev/null \
		-o Dir::Etc::sourceparts="$a/etc/sources.list.d" -o Dir::State="$a/state" \
		-o Dir::State::status="$work/dpkg-status" -o Dir::Cache="$a/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Languages=none "$@"
}

# standin_repo: a dnf repository of tests/data/rpm-base-standin.spec's
# package (what a distribution's base repository gives the kernel
# package) in $work/standin/repo, made once a run.
standin_repo()
{
	local s="$work/standin"
	[ ! -d "$s/repo/repodata" ] || return 0
	mkdir -p "$s/repo"
	rpmbuild -bb --define "_topdir $s/top" "$STANDIN_SPEC" > "$art/standin-rpmbuild.log" 2>&1 ||
		{ tail -n 10 "$art/standin-rpmbuild.log" | sed 's/^/# /'; return 1; }
	cp "$s"/top/RPMS/noarch/*.rpm "$s/repo/"
	createrepo_c --quiet "$s/repo"
}

# dnf_root NAME REPO KEY REPO_GPGCHECK: an empty root for dnf --installroot
# (printed: its folder) whose repositories are the published
# vsock-rxkit.repo with baseurl REPO, gpgkey KEY and repo_gpgcheck
# REPO_GPGCHECK, and the stand-in's (no signature).
dnf_root()
{
	local d="$work/dnf-$1"
	standin_repo || return 1
	mkdir -p "$d/root" "$d/repos"
	printf '[main]\ngpgcheck=1\n' > "$d/dnf.conf"
	sed -e "s|^baseurl=.*|baseurl=file://$2|" -e "s|^gpgkey=.*|gpgkey=file://$3|" \
		-e "s|^repo_gpgcheck=.*|repo_gpgcheck=$4|" \
		"$RXKIT_OUT/repo/vsock-rxkit.repo" > "$d/repos/vsock-rxkit.repo"
	printf '[rxkit-rpm-base-standin]\nname=stand-in of the base packages\nbaseurl=file://%s\ngpgcheck=0\n' \
		"$work/standin/repo" > "$d/repos/standin.repo"
	printf '%s\n' "$d"
}

# dnf_in DIR ARG...: dnf -y ARG... into DIR/root.  No scriptlets: the
# root is empty (no /bin/sh); tests/packages_rpm.sh runs them.
dnf_in()
{
	local d="$1"
	shift
	dnf -y --config "$d/dnf.conf" --installroot "$d/root" --releasever 1 \
		--setopt=reposdir="$d/repos" --setopt=cachedir="$d/cache" \
		--setopt=skip_if_unavailable=False --setopt=install_weak_deps=False \
		--setopt=tsflags=noscripts "$@"
}

# flip FILE: 5 bytes of FILE, 100 kB before its end (a package's
# compressed payload), changed.
flip()
{
	local s
	s=$(stat -c %s "$1")
	cp "$1" "$work/flip.orig"
	printf 'RXKIT' | dd of="$1" bs=1 seek=$((s - 100000)) conv=notrunc 2> /dev/null
	! cmp -s "$1" "$work/flip.orig" || { echo "# flip: $1 unchanged"; return 1; }
}

# refused CASE LOG COMMAND...: COMMAND fails and its output (LOG) has a
# line for every pattern tests/data/repo-refusals gives CASE.
refused()
{
	local c="$1" l="$2" rc=0 p n=0 bad=0
	shift 2
	"$@" > "$l" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		echo "# $c: $1 succeeded, expected a refusal (log: $l)"
		return 1
	fi
	while IFS='	' read -r n p; do
		case "$n" in
		"$c") ;;
		*) continue ;;
		esac
		p=$(printf '%s\n' "$p" | sed -e "s|@KEYID@|$keyid|g" -e "s|@RPM@|${rpmf##*/}|g" \
			-e "s|@NAME@|$rpm_name|g")
		if grep -q -- "$p" "$l"; then
			echo "# $c (exit $rc): $(grep -m 1 -- "$p" "$l" | cut -c1-200)"
		else
			echo "# $c (exit $rc): no line matches '$p'"
			bad=1
		fi
	done < "$REFUSALS"
	grep -q "^$c	" "$REFUSALS" || { echo "# $c: no pattern in $REFUSALS"; return 1; }
	[ "$bad" = 0 ] || { tail -n 15 "$l" | sed 's/^/#   /'; return 1; }
}

# expect_die OUT PATTERN ci/repo ARG...: ci/repo (with another key's
# GNUPGHOME, RXKIT_OUT=OUT) fails with "repo: error: PATTERN".
expect_die()
{
	local o="$1" p="$2" c="$3" l="$art/ci-repo-error.log" rc=0
	shift 3
	GNUPGHOME="$work/other-gnupg" RXKIT_OUT="$o" "$RXKIT_TOP/$c" "$@" > "$l" 2>&1 || rc=$?
	if [ "$rc" != 0 ] && grep -q "^repo: error: .*$p" "$l"; then
		echo "# $c $*: refused: $(grep '^repo: error: ' "$l")"
		return 0
	fi
	echo "# $c $*: exit $rc, expected 'repo: error: ...$p':"
	sed 's/^/#   /' "$l"
	return 1
}
