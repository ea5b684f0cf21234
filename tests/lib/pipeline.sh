# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The helpers of tests/pipeline.sh: the isolated chain's verdicts and
# artefacts, a clone of the kit whose changes a merge request's pipeline
# is listed for, a package for the registry test.  Sourced by that suite.
# shellcheck disable=SC2154 # work, target: the suite's

# isolated_chain STATE: the verdicts of the chain's jobs in STATE, then
# the suite without its build's test payload.
isolated_chain()
{
	local st="$1" j= rec=
	for j in "fetch-$target" "prepare-$target" "build-$target-patched" "loopback-$target-patched"; do
		rec=$(job_file "$st" "$j" "out/check/$j.json")
		if [ "$("$RXKIT_TOP/pipeline/results" status "$rec" 2>/dev/null)" != pass ]; then
			echo "# $j did not pass apart: $("$RXKIT_TOP/pipeline/results" reason "$rec" 2>&1)"
			grep -v 'remote\|origin\|symbolic\|still running' "$work/isolated.log" | tail -n 20 | sed 's/^/#   /'
			return "$KSFT_FAIL"
		fi
		[ -s "$(job_file "$st" "$j" "out/junit/$j.xml")" ] ||
			{ echo "# $j left no JUnit report among its artefacts"; return "$KSFT_FAIL"; }
		echo "# $j: pass, $("$RXKIT_TOP/pipeline/results" get "$rec" seconds) s"
	done
	j="loopback-$target-patched"
	grep -q "artefacts $st/builds/[^ ]*/out/$target/patched/loopback" "$(job_file "$st" "$j" "out/check/$j.log")" ||
		{ echo "# the suite did not run in its job's own folder"; return "$KSFT_FAIL"; }
	isolated_without "$st" "$j" "$(job_file "$st" "build-$target-patched" \
		".rxkit-cache/src/$target/patched/o-guest/rxkit-tests")" 'rxkit-tests: no test payload'
}

# job_file STATE JOB PATH: PATH among JOB's artefacts in STATE (gitlab-ci-local
# names the folder for the job with what a container name cannot hold,
# such as the dot of 7.3, encoded).
job_file()
{
	local f=
	for f in "$1"/artifacts/*/"$3"; do
		[ ! -e "$f" ] || { printf '%s\n' "$f"; return 0; }
	done
	printf '%s\n' "$1/artifacts/$2/$3"
}

# isolated_without STATE JOB ARTEFACT WHY: JOB, run alone again without
# ARTEFACT of a need, fails, its record saying WHY.
isolated_without()
{
	local rec= log=
	[ -e "$3" ] || { echo "# no artefact ${3#"$1"/} to take out"; return "$KSFT_FAIL"; }
	rm -rf "$3"
	"$RXKIT_TOP/pipeline/isolate" --state "$1" --alone "$2" > "$work/without.log" 2>&1 || :
	rec=$(job_file "$1" "$2" "out/check/$2.json") log=${rec%.json}.log
	if [ "$("$RXKIT_TOP/pipeline/results" status "$rec" 2>/dev/null)" != fail ] ||
	   ! grep -q -- "$4" "$log"; then
		echo "# without ${3#"$1"/artifacts/}, $2 did not fail saying '$4':"
		tail -n 5 "$log" 2>&1 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	echo "# without ${3#"$1"/artifacts/}: $2 failed: $(grep -- "$4" "$log" | head -n 1)"
}

# change_clone DIR: a clone of the kit in DIR with the work tree's changes
# committed, and its origin/main that commit (the base of a change).
change_clone()
{
	git clone -q "$RXKIT_TOP" "$1" 2> "$work/clone.err" ||
		{ echo "# git clone of the kit failed: $(tail -n 1 "$work/clone.err")"; return 1; }
	git -C "$RXKIT_TOP" diff --binary HEAD > "$work/tree.diff"
	[ ! -s "$work/tree.diff" ] || git -C "$1" apply "$work/tree.diff" ||
		{ echo "# the work tree's changes do not apply to the clone"; return 1; }
	git -C "$1" -c user.name=rxkit -c user.email=rxkit@localhost commit -q -a --allow-empty -m base &&
		git -C "$1" update-ref refs/remotes/origin/main HEAD
}

# changed_runs DIR FILE WANT WHAT: with a line added to FILE of the clone
# DIR (the only change against its origin/main), pipeline/gitlab --changed
# lists exactly the jobs WANT.
changed_runs()
{
	local got
	git -C "$1" checkout -q -- .
	echo "# a change" >> "$1/$2"
	got=$(cd "$1" && ./pipeline/gitlab --changed 2> "$work/changed.err" | sort -u) ||
		{ echo "# $4: pipeline/gitlab --changed failed:"; sed 's/^/#   /' "$work/changed.err"; return 1; }
	[ "$got" = "$3" ] || {
		echo "# $4 ($2): $(printf '%s\n' "$got" | grep -c .) jobs, not the $(printf '%s\n' "$3" | grep -c .) expected:"
		printf '%s\n' "$got" > "$work/got" && printf '%s\n' "$3" > "$work/want"
		diff "$work/want" "$work/got" | grep '^[<>]' | head -n 8 | sed 's/^/#   /'
		return 1
	}
	echo "# $4 ($2): $(printf '%s\n' "$got" | grep -c .) jobs"
}

# tiny_deb DIR: a Debian package of one file, built in DIR; its path.
tiny_deb()
{
	mkdir -p "$1/pkg/DEBIAN" "$1/pkg/usr/lib/debug"
	head -c 300000 /dev/urandom > "$1/pkg/usr/lib/debug/vmlinux"
	printf '%s\n' "Package: rxkit-test-dbg" "Version: 7.3.4-1+rxkit2" "Architecture: amd64" \
		"Maintainer: rxkit <rxkit@localhost>" "Description: the registry test's package" > "$1/pkg/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$1/pkg" "$1/rxkit-test-dbg_7.3.4-1+rxkit2_amd64.deb" > /dev/null ||
		{ echo "# dpkg-deb could not build the test package"; return 1; }
	printf '%s\n' "$1/rxkit-test-dbg_7.3.4-1+rxkit2_amd64.deb"
}

# registry_checks DIR DEB: pipeline/registry against the server of DIR/srv.
registry_checks()
{
	local n=0 api got="$1/srv/42/rxkit-test-dbg/7.3.4-1+rxkit2/${2##*/}"
	while [ ! -s "$1/srv/port" ]; do
		n=$((n + 1)); [ "$n" -le 50 ] || { echo "# the registry server did not start:"; sed 's/^/#   /' "$1/server.log"; return 1; }
		sleep 0.2
	done
	api="http://127.0.0.1:$(cat "$1/srv/port")/api/v4"
	env -u CI_JOB_TOKEN "$RXKIT_TOP/pipeline/registry" "$2" > "$1/none.out" 2>&1 &&
		grep -q 'not uploaded' "$1/none.out" && [ ! -e "$1/srv/42" ] ||
		{ echo "# outside a GitLab job:"; sed 's/^/#   /' "$1/none.out"; return 1; }
	CI_JOB_TOKEN=job-token CI_API_V4_URL="$api" CI_PROJECT_ID=42 \
		"$RXKIT_TOP/pipeline/registry" "$2" > "$1/up.out" 2>&1 && cmp -s "$2" "$got" ||
		{ echo "# the upload did not arrive as ${got#"$1"/srv/}:"; sed 's/^/#   /' "$1/up.out"; return 1; }
	echo "# $(tail -n 1 "$1/up.out")"
	! CI_JOB_TOKEN=another CI_API_V4_URL="$api" CI_PROJECT_ID=42 \
		"$RXKIT_TOP/pipeline/registry" "$2" > "$1/bad.out" 2>&1 && grep -q 'HTTP 401' "$1/bad.out" ||
		{ echo "# a wrong token was not refused:"; sed 's/^/#   /' "$1/bad.out"; return 1; }
	echo "# $(grep 'HTTP 401' "$1/bad.out")"
	! CI_JOB_TOKEN=job-token CI_API_V4_URL="$api" CI_PROJECT_ID=42 \
		"$RXKIT_TOP/pipeline/registry" "$1/linux-image-*-dbg_*.deb" > "$1/miss.out" 2>&1 &&
		grep -q 'no such file' "$1/miss.out" ||
		{ echo "# a pattern no file matches was not refused:"; sed 's/^/#   /' "$1/miss.out"; return 1; }
	echo "# $(cat "$1/miss.out")"
}

# oci_registry DIR: Debian's docker-registry (the distribution registry
# GitLab's container registry is made from) on 127.0.0.1, over TLS with a
# certificate of its own (DIR/cert.pem) and a password (user rxkit,
# password job-password); its port in DIR/port, its pid in DIR/pid.
oci_registry()
{
	local port n=0
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1/key.pem" -out "$1/cert.pem" -days 1 \
		-subj /CN=rxkit-test-registry -addext subjectAltName=IP:127.0.0.1 2> /dev/null &&
	htpasswd -Bbn rxkit job-password > "$1/htpasswd" 2> /dev/null ||
		{ echo "# openssl or htpasswd failed"; return 1; }
	printf '%s\n' "version: 0.1" "log: {level: warn}" \
		"storage: {filesystem: {rootdirectory: $1/store}}" \
		"http: {addr: 127.0.0.1:$port, tls: {certificate: $1/cert.pem, key: $1/key.pem}}" \
		"auth: {htpasswd: {realm: rxkit-test, path: $1/htpasswd}}" > "$1/config.yml"
	docker-registry serve "$1/config.yml" > "$1/server.log" 2>&1 &
	echo $! > "$1/pid"
	until curl -s -o /dev/null --cacert "$1/cert.pem" "https://127.0.0.1:$port/v2/"; do
		n=$((n + 1)); [ "$n" -le 50 ] || { echo "# docker-registry did not start:"; sed 's/^/#   /' "$1/server.log"; return 1; }
		sleep 0.2
	done
	echo "$port" > "$1/port"
}

# image_push_checks DIR: images/mkjobimage against the registry of DIR
# (oci_registry), with a one-layer image in the job image's place (the
# archive of its key in RXKIT_OUT, which it then does not build); a
# wrong password stops it at the registry's answer, before it would
# build or size the image.
image_push_checks()
{
	local d="$1" key ref img
	key=$("$RXKIT_TOP/images/mkjobimage" --key)
	img="$d/out/job-image/rxkit-job-$key.oci.tar"
	mkdir -p "$d/out/job-image"
	head -c 100000 /dev/urandom > "$d/payload"
	umoci init --layout "$d/lay" && umoci new --image "$d/lay:rxkit-job" &&
	umoci insert --image "$d/lay:rxkit-job" "$d/payload" /rxkit-payload > /dev/null &&
	tar -C "$d/lay" -cf "$img" . || { echo "# umoci could not make the test image"; return 1; }
	ref="127.0.0.1:$(cat "$d/port")/rxkit/vsock-rxkit/rxkit-job:$key"
	mkjobimage_as "$d" job-password > "$d/push.out" 2>&1 && grep -q "^mkjobimage: pushed $ref\$" "$d/push.out" ||
		{ echo "# the image was not pushed as $ref:"; sed 's/^/#   /' "$d/push.out"; return 1; }
	[ "$(SSL_CERT_FILE="$d/cert.pem" skopeo inspect --raw --creds rxkit:job-password "docker://$ref" | sha256sum)" = \
	  "$(skopeo inspect --raw "oci-archive:$img:rxkit-job" | sha256sum)" ] ||
		{ echo "# the registry's manifest of $ref is not the archive's"; return 1; }
	echo "# $(grep pushed "$d/push.out"), its manifest the archive's byte for byte"
	mkjobimage_as "$d" job-password > "$d/again.out" 2>&1 && grep -q "is in the registry already" "$d/again.out" &&
		! grep -q pushed "$d/again.out" ||
		{ echo "# a second run did not find the tag:"; sed 's/^/#   /' "$d/again.out"; return 1; }
	echo "# $(grep 'already' "$d/again.out")"
	! mkjobimage_as "$d" wrong > "$d/bad.out" 2>&1 &&
		grep -q "error: the registry did not answer for $ref: .*unauthorized" "$d/bad.out" &&
		! grep -q 'MiB$' "$d/bad.out" ||
		{ echo "# a wrong password was not refused before the build:"; sed 's/^/#   /' "$d/bad.out"; return 1; }
	echo "# $(grep error "$d/bad.out")"
}

# mkjobimage_as DIR PASSWORD: images/mkjobimage as a GitLab job of project
# rxkit/vsock-rxkit with the registry of DIR.
mkjobimage_as()
{
	RXKIT_OUT="$1/out" SSL_CERT_FILE="$1/cert.pem" CI_REGISTRY_USER=rxkit CI_REGISTRY_PASSWORD="$2" \
		CI_REGISTRY_IMAGE="127.0.0.1:$(cat "$1/port")/rxkit/vsock-rxkit" "$RXKIT_TOP/images/mkjobimage"
}
