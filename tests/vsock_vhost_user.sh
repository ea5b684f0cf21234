#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_vhost_user.sh: the virtio-vsock transport of a kit-built
# kernel in a QEMU guest, with a vhost-user backend: the rust-vmm
# vhost-device-vsock daemon behind QEMU's vhost-user-vsock-pci
# (tests/vhost-user-backend installs it); the host side of every
# connection is then a Unix socket.  The kernel's own vhost-vsock is
# tests/vsock_vhost_vsock.sh's.  KTAP on stdout; exit 0 (all passed or
# skipped), 1 (a failure).
#
# Tests a backend cannot carry are SKIP with the reason, never PASS; the
# kernel under test is never patched to hide a backend's defect (the known
# ones: tests/data/backend-defects).
set -eu
PROG=vsock_vhost_user
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="boot_device host_to_guest host_to_guest_streams host_to_guest_shapes guest_to_host guest_to_host_64k vsock_test_host"
readonly TEST_DESCS="the guest boots with the virtio-vsock device and its driver binds:one stream host to guest, every byte checked:four streams host to guest at once:host to guest in the write and read shapes of tests/data/h2g-shapes:one stream guest to host, every byte checked:guest to host in 64 KiB writes:the tree's vsock_test between host and guest (skipped with its reason, as the backend gives the host no AF_VSOCK)"
readonly GUEST_CID=3
# Host-to-guest sizes by flavour (a stream; each of four streams).
readonly BYTES_FILE="$RXKIT_TOP/tests/data/h2g-bytes"
# The shapes of host_to_guest_shapes (the guest job reads the same file).
readonly SHAPES_FILE="$RXKIT_TOP/tests/data/h2g-shapes"
# The settings of this suite, which reproducer.sh repeats.
readonly SETTINGS="RXKIT_VHOST_USER_BACKEND"
# --run-known-defects (1: run the tests the backend is known not to carry).
RUN_BACKEND_DEFECTS=0

usage()
{
	cat <<USAGE
usage: tests/vsock_vhost_user.sh [--tree patched|baseline] [--flavour NAME]
       [--run-known-defects] [-l] [-t NAME]... [-T NAME]... [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) with a
virtio-vsock device and run its tests (-l lists them; -t NAME runs NAME,
-T NAME leaves it out; each may repeat).  The bytes sent host to guest
are the flavour's line of tests/data/h2g-bytes.
Backend: the vhost-user daemon vhost-device-vsock
(tests/vhost-user-backend --install); with /dev/vhost-vsock and
RXKIT_VHOST_USER_BACKEND=auto, all SKIP (the kernel's vhost-vsock is
tests/vsock_vhost_vsock.sh's); no daemon: all SKIP with the reason.
Artefacts: \$RXKIT_OUT/TARGET/TREE/vhost-user/ (serial, protocol,
daemon and host-side logs, KTAP, results.json, reproducer.sh).
--run-known-defects: run the tests the backend is known not to carry
  (tests/data/backend-defects) instead of skipping them; their real
  result is reported.
Environment: RXKIT_ACCEL=auto|kvm|tcg,
  RXKIT_VHOST_USER_BACKEND=auto|vhost-user (vhost-user: use the daemon
  even where /dev/vhost-vsock exists).
Limits: boot and job of tests/data/limits.
USAGE
}

# extra_opt ARG...: this suite's option (parse_stage_args).
extra_opt()
{
	[ "$1" = --run-known-defects ] || return 0
	RUN_BACKEND_DEFECTS=1
	return 1
}

guest_test_setup "$@"
[ -f "$SHAPES_FILE" ] || die "$SHAPES_FILE missing"
[ -f "$BYTES_FILE" ] || die "$BYTES_FILE missing"
# shellcheck disable=SC2046 # the two sizes of the flavour's line
set -- $(awk -v f="$flavour" '!/^#/ && NF == 3 && ($1 == f || $1 == "*") { print $2, $3; exit }' "$BYTES_FILE")
[ $# -eq 2 ] || die "$BYTES_FILE has no line for flavour $flavour nor '*'"
readonly H2G_BYTES=$1 H2G_STREAM_BYTES=$2
need gcc gcc
need cpio cpio
need gzip gzip

detect_backend

art="$(out_dir "$target")/$variant/vhost-user"
rm -rf "$art"
mkdir -p "$art"
printf '%s\n' "$BACKEND" > "$art/backend"

tool="$art/tools/rxkit/rxkit-vsock"
initrd="$art/initrd.cpio.gz"
if [ -z "$BACKEND_SKIP" ]; then
	tools_initrd "$o" "$art"
	accel=$(pick_accel "$kernel" "$initrd" "$art/accel-probe")
else
	accel=none
fi
printf '%s\n' "$accel" > "$art/accel"
# shellcheck disable=SC2086
results_begin "$art" vsock_vhost_user.sh $SETTINGS

# Unix sockets (daemon control socket, uds_path) live in a short private
# folder: sun_path holds 108 bytes.
run=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-vu.XXXXXX")
daemon_pid=
host_pid=
guest_pid=
qemu_pidfile=

test_boot_device()
{
	local r="$art/virtio_probe/results.log" got= cid=
	skip_unless_backend boot_device || return $?
	echo "# backend: $BACKEND"
	virtio_run virtio_probe || return $?
	got=$(tr -d '\r' < "$r" | sed -n 's/^RXKIT: init //p')
	echo "# booted $got ($accel)"
	[ "$got" = "$release" ] || { echo "# uname -r is '$got', built '$release'"; return "$KSFT_FAIL"; }
	case "$got" in
	*"$suffix") ;;
	*) echo "# release '$got' lacks the $tree mark '$suffix'"; return "$KSFT_FAIL" ;;
	esac
	tr -d '\r' < "$r" | sed -n 's/^RXKIT: virtio-vsock /# device: /p'
	tr -d '\r' < "$r" | grep -q '^RXKIT: virtio-vsock .* driver=vmw_vsock_virtio_transport' ||
		{ echo "# no virtio-vsock device bound to vmw_vsock_virtio_transport"; return "$KSFT_FAIL"; }
	cid=$(tr -d '\r' < "$r" | sed -n 's/^RXKIT: cid //p')
	echo "# guest CID $cid (daemon configured $GUEST_CID)"
	[ "$cid" = "$GUEST_CID" ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

# Host side of the host-to-guest tests: STREAMS streams of h2g_bytes to the
# port the guest announced, through the daemon's Unix socket.
h2g_send()
{
	local ready= port= n=
	ready=$(tr -d '\r' < "$1/results.log" | grep '^RXKIT: ready' | head -n 1)
	port=$(result_field "$ready" port)
	n=$(result_field "$ready" streams)
	echo "# host: CONNECT $port through $run/vm.vsock, $n stream(s) of $h2g_bytes bytes"
	"$tool" -t 240 uds-send "$run/vm.vsock" "$port" "$n" "$h2g_bytes" 0 \
		> "$1/host.log" 2>&1
}

# h2g JOB BYTES: the host-to-guest test of JOB.
h2g()
{
	local t0= rc=0 n=
	h2g_bytes=$(bytes_of "$2")
	echo "# backend: $BACKEND"
	t0=$(date +%s)
	virtio_run "$1" "" h2g_send || rc=$?
	echo "# $1: $(( $(date +%s) - t0 )) s wall (boot included)"
	n=$(result_field "$(tr -d '\r' < "$art/$1/results.log" | grep '^RXKIT: ready' | head -n 1)" streams)
	[ -n "$n" ] || return "$KSFT_FAIL"
	check_streams "$art/$1/host.log" uds-send "$n" "$h2g_bytes" host || rc=$KSFT_FAIL
	check_streams "$art/$1/results.log" recv "$n" "$h2g_bytes" guest || rc=$KSFT_FAIL
	return "$rc"
}

test_host_to_guest()
{
	skip_unless_backend host_to_guest || return $?
	h2g virtio_h2g "$H2G_BYTES"
}

test_host_to_guest_streams()
{
	skip_unless_backend host_to_guest_streams || return $?
	h2g virtio_h2g_streams "$H2G_STREAM_BYTES"
}

# shapes: the lines of SHAPES_FILE, "SHAPE PORT STREAMS BYTES CHUNK SENDER
# RECEIVER..." (SENDER '-': none).
shapes()
{
	grep -Ev '^[[:space:]]*(#|$)' "$SHAPES_FILE"
}

# Host side of host_to_guest_shapes: every shape at once, as concurrent
# senders through the daemon (their packets interleave in the guest's RX
# queue).
shapes_send()
{
	local pids= shape= port= n= bytes= chunk= sender= p= rc=0
	while read -r shape port n bytes chunk sender _; do
		[ "$sender" != - ] || sender=
		"$tool" -t 240 -s "$shape" ${sender:+"$sender"} uds-send "$run/vm.vsock" \
			"$port" "$n" "$bytes" "$chunk" < /dev/null > "$1/host-$shape.log" 2>&1 &
		pids="$pids $!"
	done <<EOF
$(shapes)
EOF
	for p in $pids; do
		wait "$p" || rc=1
	done
	return "$rc"
}

test_host_to_guest_shapes()
{
	local t0= rc=0 d="$art/virtio_h2g_shapes" size=
	local shape= port= n= bytes= chunk= sender=
	skip_unless_backend host_to_guest_shapes || return $?
	echo "# backend: $BACKEND"
	t0=$(date +%s)
	virtio_run virtio_h2g_shapes "" shapes_send || rc=$?
	echo "# virtio_h2g_shapes: $(( $(date +%s) - t0 )) s wall (boot included)"
	while read -r shape port n bytes chunk sender _; do
		size=$(bytes_of "$bytes")
		if [ "$sender" = -a ]; then
			size=$((size / 2))
			check_streams "$d/host-$shape.log" "uds-send shape=$shape" "$n" "$size" host ||
				rc=$KSFT_FAIL
			check_prefix "$d/results.log" "$shape" "$n" "$size" || rc=$KSFT_FAIL
			continue
		fi
		check_streams "$d/host-$shape.log" "uds-send shape=$shape" "$n" "$size" host ||
			rc=$KSFT_FAIL
		check_streams "$d/results.log" "recv shape=$shape" "$n" "$size" guest ||
			rc=$KSFT_FAIL
	done <<EOF
$(shapes)
EOF
	return "$rc"
}

# Host side of the guest-to-host tests: a listener on the path the daemon
# connects to for the job's port (uds_path_PORT), started before the boot.
g2h_port=
g2h_listen()
{
	"$tool" -t 280 -r uds-recv "$run/vm.vsock_$g2h_port" 1 0 > "$1/host.log" 2>&1 &
	host_pid=$!
	wait_for "$1/host.log" '^RXKIT: ready' 10 "$host_pid"
}

# g2h JOB PORT: the guest-to-host test of JOB (16 MiB, see the job).
g2h()
{
	local t0= rc=0
	echo "# backend: $BACKEND"
	g2h_port=$2
	t0=$(date +%s)
	virtio_run "$1" g2h_listen || rc=$?
	echo "# $1: $(( $(date +%s) - t0 )) s wall (boot included)"
	tr -d '\r' < "$art/$1/results.log" | grep '^rxkit-vsock: send ' |
		sed 's/^rxkit-vsock: /# guest: /'
	check_streams "$art/$1/host.log" uds-recv 1 16777216 host || rc=$KSFT_FAIL
	return "$rc"
}

test_guest_to_host()
{
	skip_unless_backend guest_to_host || return $?
	g2h virtio_g2h 5100
}

test_guest_to_host_64k()
{
	skip_unless_backend guest_to_host_64k || return $?
	g2h virtio_g2h_64k 5101
}

# The kernel's vsock_test between host and guest needs AF_VSOCK on both
# ends; a vhost-user backend gives the host a Unix socket.
test_vsock_test_host()
{
	skip_unless_backend vsock_test_host || return $?
	SKIP_REASON="vsock_test needs AF_VSOCK on the host side (CID 2); backend $BACKEND offers the host a Unix socket ('CONNECT <port>' protocol) and no SEQPACKET, so vsock_test cannot run between host and guest here"
	return "$KSFT_SKIP"
}

echo "# $target/$variant: $release, accelerator $accel, time scale $(time_scale "$accel"), backend $BACKEND, artefacts $art"
# shellcheck disable=SC2086
{
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	rc=0
	run_tests $TESTS || rc=$?
	echo "$rc" > "$art/rc"
} | tee "$art/results.ktap"
results_end "$BACKEND"
exit "$(cat "$art/rc")"
