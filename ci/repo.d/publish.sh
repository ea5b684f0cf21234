# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/repo.d/publish.sh, sourced by ci/repo: the repository's database and
# its publication.  The .debs are kept by aptly (Debian's package) in
# $db/aptly, a local repository per suite and component (SUITE-COMPONENT),
# which holds every version added to it; the signed RPMs are kept in
# $db/rpm.  Each run publishes all of it anew into $stage: one apt suite
# per Debian release with its components, signed by aptly through gpg;
# one dnf repository of every RPM, its metadata by createrepo_c.
# Reads db, stage, fpr, GNUPGHOME, REPO_LIB.
# shellcheck disable=SC2154

# apt_ly ARG...: aptly on the repository's database.
apt_ly() { aptly -config="$db/aptly.conf" "$@"; }

# aptly_run WHAT ARG...: apt_ly ARG..., its output in $stage/aptly.log,
# shown when it fails.
aptly_run()
{
	local what="$1"
	shift
	apt_ly "$@" > "$stage/aptly.log" 2>&1 ||
		{ sed 's/^/  /' "$stage/aptly.log" >&2; die "aptly could not $what (database $db)"; }
}

# db_init: the database's folders and aptly's configuration (its root,
# the external gpg that signs with GNUPGHOME's key, amd64 alone).
db_init()
{
	mkdir -p "$db/aptly" "$db/rpm"
	printf '{"rootDir": "%s", "gpgProvider": "gpg2", "architectures": ["amd64"]}\n' \
		"$db/aptly" > "$db/aptly.conf"
}

# add_debs SUITE COMPONENT FILE...: the .debs into the local repository
# SUITE-COMPONENT.  The same package, version and architecture again
# replaces the one there (a rebuild); other versions stay.  A new suite
# gets a local repository for every component of ci/repo.d/components,
# so that each suite has them all and a sources line of any finds it.
add_debs()
{
	local r="$1-$2" c
	for c in $(awk '!/^#/ && NF { print $2 }' "$REPO_LIB/components" | sort -u); do
		apt_ly repo show "$1-$c" > /dev/null 2>&1 ||
			aptly_run "create the repository $1-$c" repo create -distribution="$1" -component="$c" "$1-$c"
	done
	shift 2
	aptly_run "add $* to $r" repo add -force-replace "$r" "$@"
}

# add_rpms FILE...: signed copies of the RPMs in $db/rpm (the same file
# name again replaces the one there; other versions stay).
add_rpms()
{
	local t="$stage/rpm-new"
	mkdir -p "$t"
	cp "$@" "$t/"
	# Debian's rpm names /usr/bin/gpg2, which Debian does not have.
	rpmsign --define "_gpg_path $GNUPGHOME" --define "_gpg_name $fpr" \
		--define "__gpg $(command -v gpg)" --define "_gpg_sign_cmd_extra_args --batch" \
		--addsign "$t"/*.rpm > "$stage/rpmsign.log" 2>&1 ||
		{ sed 's/^/  /' "$stage/rpmsign.log" >&2; die "rpmsign failed"; }
	mv "$t"/*.rpm "$db/rpm/"
	rmdir "$t"
}

# db_suites: the suites the database has packages for, one a line.
db_suites() { apt_ly repo list -raw | sed 's/-[^-]*$//' | sort -u; }

# publish_deb: every suite of the database, with all its components,
# signed, into $stage/deb (hard links into aptly's public tree).
publish_deb()
{
	local s repos comps a
	a=$(conf archive.conf origin)
	for s in $(db_suites); do
		repos=$(apt_ly repo list -raw | grep "^$s-[^-]*\$" | tr '\n' ' ')
		comps=$(printf '%s\n' $repos | sed "s/^$s-//" | paste -sd, -)
		! apt_ly publish list -raw | grep -qx ". $s" ||
			aptly_run "drop the publication of $s" publish drop "$s"
		# shellcheck disable=SC2086 # the suite's repositories
		aptly_run "publish $s" publish repo -batch -gpg-key="$fpr" -distribution="$s" \
			-component="$comps" -origin="$a" -label="$(conf archive.conf label)" \
			-skip-contents -skip-bz2 $repos
		log "suite $s: components $comps, $(cat "$db/aptly/public/dists/$s"/*/binary-amd64/Packages |
			grep -c '^Package: ') packages"
	done
	[ -d "$db/aptly/public/dists" ] || return 0
	cp -al "$db/aptly/public" "$stage/deb"
}

# publish_rpm: every RPM of the database in $stage/rpm, its metadata, and
# repomd.xml's detached signature (dnf's repo_gpgcheck).
publish_rpm()
{
	local d="$stage/rpm"
	ls "$db"/rpm/*.rpm > /dev/null 2>&1 || return 0
	mkdir -p "$d"
	cp -l "$db"/rpm/*.rpm "$d/"
	createrepo_c --quiet "$d" || die "createrepo_c failed"
	sign_file "$d/repodata/repomd.xml" "$d/repodata/repomd.xml.asc" --armor --detach-sign
	log "dnf repository: $(ls "$d"/*.rpm | wc -l) packages"
}

# verify SIGNATURE [FILE]: gpgv checks it with the published key alone.
verify()
{
	gpgv --keyring "$stage/vsock-rxkit-archive-keyring.gpg" "$@" > "$stage/gpgv.log" 2>&1 ||
		{ sed 's/^/  /' "$stage/gpgv.log" >&2; die "gpgv of $1 failed"; }
}

# check_repo: every signature verifies with the published public key alone.
check_repo()
{
	local b db_k
	for b in "$stage"/deb/dists/*; do
		[ -d "$b" ] || continue
		verify "$b/InRelease"
		verify "$b/Release.gpg" "$b/Release"
	done
	if [ -d "$stage/rpm" ]; then
		verify "$stage/rpm/repodata/repomd.xml.asc" "$stage/rpm/repodata/repomd.xml"
		db_k="$stage/rpmdb"
		mkdir -p "$db_k"
		rpm --dbpath "$db_k" --import "$stage/vsock-rxkit-archive-key.asc"
		rpm --dbpath "$db_k" -K "$stage"/rpm/*.rpm > "$stage/rpmk.log" 2>&1 ||
			{ sed 's/^/  /' "$stage/rpmk.log" >&2; die "rpm -K of the signed packages failed"; }
		# rpm -K says "digests signatures OK" only when a signature checked.
		if grep -v ': digests signatures OK$' "$stage/rpmk.log" | grep -q .; then
			sed 's/^/  /' "$stage/rpmk.log" >&2
			die "a package is not signed with $fpr"
		fi
	fi
	rm -rf "$stage/rpmdb" "$stage/gpgv.log" "$stage/rpmk.log" "$stage/rpmsign.log" "$stage/aptly.log"
}
