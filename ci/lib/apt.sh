# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The private apt state of ci/fetch, one per Debian suite, under the cache:
# the system's apt sources are read for the mirror URI (mirror_for, in
# ci/lib.sh) and never modified.  Sourced after load_base (BASE_SUITE), or
# without a BASE_SUITE by apt_fetch_pinned's callers (it names its suite).

APT_DIR="$RXKIT_CACHE/apt/${BASE_SUITE:-}"

apt_private()
{
	apt-get -q \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::Etc::sourcelist="$APT_DIR/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::Cache="$APT_DIR/cache" \
		-o APT::Get::List-Cleanup=0 \
		-o Debug::NoLocking=1 "$@"
}

apt_cache_private()
{
	apt-cache \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::Etc::sourcelist="$APT_DIR/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::Cache="$APT_DIR/cache" "$@"
}

# apt_setup: the sources of BASE_SUITE (binary and source, signed by the
# Debian archive keyring) and their indexes, updated.
apt_setup()
{
	local uri= keyring=
	need apt-get apt
	uri=$(mirror_for "$BASE_SUITE")
	[ -n "$uri" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d} to derive the $BASE_SUITE URI from"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring missing; install the Debian package 'debian-archive-keyring'"
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
	printf 'deb [signed-by=%s] %s %s main\ndeb-src [signed-by=%s] %s %s main\n' \
		"$keyring" "$uri" "$BASE_SUITE" "$keyring" "$uri" "$BASE_SUITE" \
		> "$APT_DIR/sources.list"
	log "updating private apt state for $BASE_SUITE (system sources untouched)"
	apt_private update >"$APT_DIR/update.log" 2>&1 || {
		cat "$APT_DIR/update.log" >&2
		die "apt-get update of $BASE_SUITE failed"
	}
}

# newest_version PACKAGE: the newest version of binary PACKAGE there.
newest_version()
{
	apt_cache_private madison "$1" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		sort -V | tail -n 1
}

# apt_fetch_pinned SUITE DIR PACKAGE VERSION SHA256 [OFFLINE]: the .deb of
# PACKAGE VERSION in DIR (apt-get download's name: the epoch's colon as
# %3a, architecture amd64 or all), on stdout.  A copy there whose SHA-256
# is the pin's is taken as it is; else (unless OFFLINE is 1) it comes
# through SUITE's private apt state (its indexes updated once in the shell
# that calls it: a command substitution is a shell of its own), and a
# download of another SHA-256 is removed and refused.  APT_PIN_FILE: the
# file of the pin, named in the errors.  Used by ci/deps (ci/deps-newer),
# ci/cloud-config and ci/debian-kernel.
apt_fetch_pinned()
{
	local suite="$1" dir="$2" p="$3" v="$4" sha="$5" offline="${6:-0}"
	local b f got
	b="$dir/${p}_$(printf '%s' "$v" | sed 's/:/%3a/')"
	for f in "${b}_amd64.deb" "${b}_all.deb"; do
		[ -f "$f" ] && [ "$(sha256_of "$f")" = "$sha" ] && { printf '%s\n' "$f"; return 0; }
	done
	if [ "$offline" = 1 ]; then
		f="${b}_amd64.deb"
		[ ! -f "${b}_all.deb" ] || f="${b}_all.deb"
		die "--offline and ${f##*/} is not cached (or not the pinned one)"
	fi
	BASE_SUITE=$suite APT_DIR="$RXKIT_CACHE/apt/$suite"
	if [ "${APT_FETCH_READY:-}" != "$suite" ]; then
		apt_setup >&2
		APT_FETCH_READY=$suite
	fi
	mkdir -p "$dir"
	rm -f "${b}_amd64.deb" "${b}_all.deb"
	log "downloading $p $v from $suite" >&2
	(cd "$dir" && apt_private download "$p=$v") > "$dir/download.log" 2>&1 || {
		cat "$dir/download.log" >&2
		die "apt-get download $p=$v from $suite failed (there: $(newest_version "$p"))${APT_PIN_FILE:+; pin another in $APT_PIN_FILE}"
	}
	f="${b}_amd64.deb"
	[ -f "$f" ] || f="${b}_all.deb"
	[ -f "$f" ] || die "apt-get download made no ${b##*/}_{amd64,all}.deb"
	got=$(sha256_of "$f")
	[ "$got" = "$sha" ] || {
		rm -f "$f"
		die "${f##*/}: SHA-256 mismatch (got $got, pinned $sha${APT_PIN_FILE:+ in $APT_PIN_FILE})"
	}
	printf '%s\n' "$f"
}
