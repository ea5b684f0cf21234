# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The private apt state of ci/fetch, one per Debian suite, under the cache:
# the system's apt sources are read for the mirror URI (mirror_for, in
# ci/lib.sh) and never modified.  Sourced after load_base (BASE_SUITE).

APT_DIR="$RXKIT_CACHE/apt/$BASE_SUITE"

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
