# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/repo.d/key.sh, sourced by ci/repo: the key that signs the repository.
# --key KEYID (a secret key of the caller's gpg, GNUPGHOME or ~/.gnupg),
# --keyring FILE (a file with an unprotected secret key, as gpg
# --export-secret-keys writes it), else the kit's own, made on first use in
# $RXKIT_CACHE/repo-key (ci/repo.d/key.conf; no passphrase: whoever can
# read that folder can sign as the repository).
# Reads key_id, keyring, REPO_LIB; sets GNUPGHOME (exported), fpr, tmpgpg.
# shellcheck disable=SC2154

tmpgpg=

# key_cleanup: the temporary gpg home gone, the kit key's agent stopped.
key_cleanup()
{
	[ -z "$tmpgpg" ] || { GNUPGHOME=$tmpgpg gpgconf --kill gpg-agent 2>/dev/null || :; rm -rf "$tmpgpg"; }
	[ "${GNUPGHOME:-}" != "$RXKIT_CACHE/repo-key" ] || gpgconf --kill gpg-agent 2>/dev/null || :
}

# conf FILE KEY: the value of KEY in a KEY=VALUE data file of ci/repo.d.
conf() { sed -n "s/^$2=//p" "$REPO_LIB/$1"; }

# first_secret: the fingerprint of GNUPGHOME's first secret key (or of
# KEYID's), empty without one.
first_secret()
{
	gpg --batch --with-colons --list-secret-keys ${1:+"$1"} 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}

# kit_key: GNUPGHOME and fpr of the kit's key, generated when there is none.
kit_key()
{
	local d="$RXKIT_CACHE/repo-key" t
	GNUPGHOME=$d
	export GNUPGHOME
	# One run with this key at a time, whatever its RXKIT_OUT: each stops
	# the key's gpg-agent when it ends.
	mkdir -p "$RXKIT_CACHE"
	exec 8> "$d.lock"
	flock 8
	[ -f "$d/fingerprint" ] && fpr=$(cat "$d/fingerprint") && [ -n "$fpr" ] && return 0
	t=$(mktemp -d "$d.XXXXXX")
	chmod 700 "$t"
	log "no repository key yet: generating one ($(conf key.conf algo)) in $d"
	GNUPGHOME=$t gpg --batch --quiet --passphrase '' --quick-gen-key \
		"$(conf key.conf userid)" "$(conf key.conf algo)" sign "$(conf key.conf expire)" ||
		{ rm -rf "$t"; die "gpg --quick-gen-key failed"; }
	GNUPGHOME=$t first_secret > "$t/fingerprint"
	GNUPGHOME=$t gpgconf --kill gpg-agent 2>/dev/null || :
	mv -T "$t" "$d" || { rm -rf "$t"; die "cannot rename $t to $d"; }
	fpr=$(cat "$d/fingerprint")
	[ -n "$fpr" ] || die "no fingerprint in $d/fingerprint"
	log "generated the repository key $fpr"
}

# signing_key: GNUPGHOME (exported) and fpr, the key that signs.
signing_key()
{
	if [ -n "$keyring" ]; then
		[ -f "$keyring" ] || die "--keyring $keyring: no such file"
		tmpgpg=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-repo-gpg.XXXXXX")
		GNUPGHOME=$tmpgpg
		export GNUPGHOME
		gpg --batch --quiet --import "$keyring" 2> "$tmpgpg/import.log" ||
			{ sed 's/^/  /' "$tmpgpg/import.log" >&2; die "--keyring $keyring: gpg --import failed"; }
		fpr=$(first_secret)
		[ -n "$fpr" ] || die "--keyring $keyring holds no secret key (gpg --export-secret-keys writes one)"
	elif [ -n "$key_id" ]; then
		: "${GNUPGHOME:=$HOME/.gnupg}"
		export GNUPGHOME
		fpr=$(first_secret "$key_id")
		[ -n "$fpr" ] || die "--key $key_id: no such secret key in $GNUPGHOME"
	else
		kit_key
	fi
}

# sign_file FILE OUT [--armor] --detach-sign|--clearsign: OUT, FILE signed.
sign_file()
{
	local f="$1" out="$2"
	shift 2
	gpg --batch --yes --quiet --local-user "$fpr" --digest-algo SHA512 --output "$out" "$@" "$f" ||
		die "gpg could not sign $f with $fpr"
}
