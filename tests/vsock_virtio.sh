#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_virtio.sh: the virtio-vsock transport of a kit-built kernel in
# a QEMU guest, with a host-side backend.  Without /dev/vhost-vsock on the
# host the backend is the rust-vmm vhost-device-vsock daemon behind QEMU's
# vhost-user-vsock-pci (tests/vhost-user-backend installs it): the host
# side of every connection is then a Unix socket.  KTAP on stdout; exit 0
# (all passed or skipped), 1 (a failure).
#
# Tests a backend cannot carry are SKIP with the reason, never PASS; the
# kernel under test is never patched to hide a backend's defect.
set -eu
PROG=vsock_virtio
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="boot_device host_to_guest host_to_guest_streams host_to_guest_shapes guest_to_host guest_to_host_64k vsock_test_host"
readonly TESTS="${RXKIT_VIRTIO_TESTS:-$ALL_TESTS}"
readonly GUEST_CID=3
# Host-to-guest sizes: payload bytes a stream.
readonly H2G_BYTES=${RXKIT_VIRTIO_H2G_BYTES:-256M}
readonly H2G_STREAM_BYTES=${RXKIT_VIRTIO_H2G_STREAM_BYTES:-64M}

usage()
{
	cat <<USAGE
usage: tests/vsock_virtio.sh [--tree patched|baseline] [--flavour NAME] [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) with a
virtio-vsock device and run:
$(for t in $TESTS; do echo "  $t"; done)
Backend: /dev/vhost-vsock (not implemented yet: all SKIP), else the
vhost-user daemon vhost-device-vsock (tests/vhost-user-backend --install);
none: all SKIP with the reason.
Artefacts: \$RXKIT_OUT/TARGET/TREE/virtio-vhost-user/ (serial, protocol,
daemon and host-side logs, KTAP, results.json, reproducer.sh).
Environment: RXKIT_ACCEL=auto|kvm|tcg, RXKIT_BOOT_TIMEOUT, RXKIT_JOB_TIMEOUT,
  RXKIT_VSOCK_BACKEND=auto|vhost-user (vhost-user: use the daemon even
  where /dev/vhost-vsock exists), RXKIT_VIRTIO_H2G_BYTES (default 256M),
  RXKIT_VIRTIO_H2G_STREAM_BYTES (default 64M, four streams),
  RXKIT_VIRTIO_RUN_KNOWN_DEFECTS=1 (run the tests the backend is known not
  to carry instead of skipping them; their real result is reported),
  RXKIT_VIRTIO_TESTS="NAME..." (a subset of the tests above).
USAGE
}

guest_test_setup "$@"
check_subset RXKIT_VIRTIO_TESTS
need gcc gcc
need cpio cpio
need gzip gzip

# Backend detection: BACKEND names it in every run; BACKEND_SKIP, when set,
# is the reason every test skips.
BACKEND=none
BACKEND_SKIP=
BACKEND_VERSION=
daemon=
case "${RXKIT_VSOCK_BACKEND:-auto}" in
auto|vhost-user) ;;
*) die "RXKIT_VSOCK_BACKEND must be auto or vhost-user" ;;
esac
if [ -c /dev/vhost-vsock ] && [ "${RXKIT_VSOCK_BACKEND:-auto}" = auto ]; then
	BACKEND=vhost-vsock
	BACKEND_SKIP="backend vhost-vsock (/dev/vhost-vsock): not implemented in tests/vsock_virtio.sh yet (RXKIT_VSOCK_BACKEND=vhost-user uses vhost-device-vsock instead)"
elif daemon=$(command -v vhost-device-vsock 2>/dev/null); then
	BACKEND_VERSION=$("$daemon" --version 2>/dev/null | awk '{ print $NF; exit }')
	BACKEND="vhost-device-vsock ${BACKEND_VERSION:-?} (vhost-user, $daemon)"
	$QEMU -device help 2>/dev/null | grep -q '"vhost-user-vsock-pci"' ||
		BACKEND_SKIP="backend $BACKEND: $QEMU has no vhost-user-vsock-pci device"
else
	BACKEND_SKIP="no virtio-vsock backend: no /dev/vhost-vsock and no vhost-device-vsock daemon (install it: tests/vhost-user-backend --install)"
fi
case "$BACKEND" in
vhost-vsock) kind=vhost-vsock ;;
*) kind=vhost-user ;;
esac

art="$(out_dir "$target")/$variant/virtio-$kind"
rm -rf "$art"
mkdir -p "$art"
printf '%s\n' "$BACKEND" > "$art/backend"

tool="$art/tools/rxkit/rxkit-vsock"
initrd="$art/initrd.cpio.gz"
if [ -z "$BACKEND_SKIP" ]; then
	tools_initrd "$src" "$o" "$art"
	accel=$(pick_accel "$kernel" "$initrd" "$art/accel-probe")
else
	accel=none
fi
printf '%s\n' "$accel" > "$art/accel"
results_begin "$art" vsock_virtio.sh RXKIT_VIRTIO_TESTS

# Unix sockets (daemon control socket, uds_path) live in a short private
# folder: sun_path holds 108 bytes.
run=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-vu.XXXXXX")
daemon_pid=
host_pid=
guest_pid=
qemu_pidfile=
cleanup()
{
	if [ -n "$guest_pid" ] && [ -f "$qemu_pidfile" ]; then
		kill "$(cat "$qemu_pidfile")" 2>/dev/null || true
	fi
	for _p in $host_pid $guest_pid $daemon_pid; do
		kill "$_p" 2>/dev/null || true
	done
	rm -rf "$run"
}

# backend_defect TEST: the reason the backend cannot carry TEST, if it is a
# known defect of this backend version (empty otherwise).
backend_defect()
{
	case "$kind:$1" in
	vhost-user:guest_to_host_64k) ;;
	*) return 0 ;;
	esac
	# vhost-device-vsock up to 0.3.0 (newest checked).
	[ "$(printf '%s\n%s\n' "${BACKEND_VERSION:-0}" 0.3.0 | sort -V | tail -n 1)" = 0.3.0 ] ||
		return 0
	echo "vhost-device-vsock ${BACKEND_VERSION:-?} stalls on guest-to-host writes above ~32 KiB: the guest sends a non-linear skb over several descriptors and the daemon accepts one (backend defect; RXKIT_VIRTIO_RUN_KNOWN_DEFECTS=1 runs it)"
}

# skip_unless_backend TEST: return KSFT_SKIP with the reason when the
# backend cannot run TEST; 0 otherwise.
skip_unless_backend()
{
	if [ -n "$BACKEND_SKIP" ]; then
		SKIP_REASON=$BACKEND_SKIP
		return "$KSFT_SKIP"
	fi
	_why=$(backend_defect "$1")
	if [ -n "$_why" ] && [ "${RXKIT_VIRTIO_RUN_KNOWN_DEFECTS:-0}" != 1 ]; then
		SKIP_REASON=$_why
		return "$KSFT_SKIP"
	fi
	[ -z "$_why" ] || echo "# $1: known backend defect, run anyway: $_why"
	return 0
}

# wait_for FILE PATTERN SECS PID: wait until FILE has a line matching
# PATTERN; fails when SECS pass or PID ends first.
wait_for()
{
	_w=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$4" 2>/dev/null || return 1
		[ "$_w" -lt $(($3 * 5)) ] || return 1
		sleep 0.2
		_w=$((_w + 1))
	done
}

# start_daemon DIR: a fresh vhost-device-vsock for one guest.
start_daemon()
{
	rm -f "$run/vhost.sock" "$run/vm.vsock" "$run"/vm.vsock_*
	"$daemon" --vm "guest-cid=$GUEST_CID,socket=$run/vhost.sock,uds-path=$run/vm.vsock" \
		> "$1/daemon.log" 2>&1 &
	daemon_pid=$!
	_w=0
	while [ ! -S "$run/vhost.sock" ]; do
		kill -0 "$daemon_pid" 2>/dev/null || { daemon_pid=; return 1; }
		[ "$_w" -lt 50 ] || return 1
		sleep 0.1
		_w=$((_w + 1))
	done
}

stop_daemon()
{
	[ -n "$daemon_pid" ] || return 0
	kill "$daemon_pid" 2>/dev/null || true
	wait "$daemon_pid" 2>/dev/null || true
	daemon_pid=
}

# virtio_run JOB [BEFORE [AFTER_READY]]: boot a guest with the virtio-vsock
# device for JOB.  BEFORE (a function) runs once the daemon is up, before
# the boot; AFTER_READY once the guest printed "RXKIT: ready" (both get the
# artefact folder; their failure fails the run).  guest_run runs in the
# background meanwhile (-pidfile lets cleanup find QEMU).  Diagnostics as
# '# ' lines; returns the KSFT code of boot + job + host side + kernel log.
virtio_run()
{
	_d="$art/$1"
	mkdir -p "$_d"
	_hrc=0
	start_daemon "$_d" || {
		echo "# $1: $BACKEND did not come up (log: $_d/daemon.log)"
		sed 's/^/#   /' "$_d/daemon.log"
		stop_daemon
		return "$KSFT_FAIL"
	}
	[ -z "${2:-}" ] || "$2" "$_d" || _hrc=$?
	qemu_pidfile="$_d/qemu.pid"
	guest_run -j 300 "$_d" "$kernel" "$initrd" "$1" "$accel" \
		-pidfile "$qemu_pidfile" \
		-object memory-backend-memfd,id=mem0,size=1024M,share=on \
		-numa node,memdev=mem0 \
		-chardev "socket,id=vsock0,path=$run/vhost.sock" \
		-device vhost-user-vsock-pci,chardev=vsock0 &
	guest_pid=$!
	if [ -n "${3:-}" ] && [ "$_hrc" = 0 ]; then
		if wait_for "$_d/results.log" '^RXKIT: ready' $((BOOT_TIMEOUT + 60)) "$guest_pid"; then
			"$3" "$_d" || _hrc=$?
		else
			echo "# $1: the guest never reported 'RXKIT: ready'"
			_hrc=1
		fi
	fi
	_grc=0
	wait "$guest_pid" || _grc=$?
	guest_pid=
	rm -f "$qemu_pidfile"
	stop_daemon
	if [ -n "$host_pid" ]; then
		# A host-side listener: 10 s to finish, then it is stopped (the
		# guest never came, or its stream never ended).
		_w=0
		while kill -0 "$host_pid" 2>/dev/null && [ "$_w" -lt 50 ]; do
			sleep 0.2
			_w=$((_w + 1))
		done
		kill "$host_pid" 2>/dev/null || true
		wait "$host_pid" 2>/dev/null || _hrc=$?
		host_pid=
	fi
	_v=0
	guest_verdict "$1" "$_d" "$_grc" 300 || _v=$?
	if [ "$_v" = 0 ] && [ "$_hrc" != 0 ]; then
		echo "# $1: host side exited $_hrc"
		_v=$KSFT_FAIL
	fi
	if [ "$_v" != 0 ]; then
		tail -n 4 "$_d/host.log" 2>/dev/null | sed 's/^/#   host: /'
		tail -n 4 "$_d/daemon.log" 2>/dev/null | sed 's/^/#   daemon: /'
	fi
	return "$_v"
}

# field LINE KEY: the value of KEY=value in a rxkit-vsock result line.
field()
{
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# check_streams FILE MODE N BYTES WHO: FILE holds N rxkit-vsock "MODE"
# lines, one a stream id 0..N-1, each with BYTES bytes and result=ok
# (receiver: every byte checked) or result=sent (sender); prints their
# numbers as diagnostics (WHO: guest or host).
check_streams()
{
	_lines=$(tr -d '\r' < "$1" | grep "^rxkit-vsock: $2 .*stream=" || true)
	_ok=0
	_ids=
	_ms=0
	while IFS= read -r _l; do
		[ -n "$_l" ] || continue
		_s=$(field "$_l" stream)
		_r=$(field "$_l" result)
		_b=$(field "$_l" bytes)
		_m=$(field "$_l" ms)
		if [ "$_r" = sent ]; then
			echo "# $5 stream $_s: sent $_b bytes in $_m ms, $(field "$_l" mibps) MiB/s"
		else
			echo "# $5 stream $_s: $_b of $(field "$_l" expected) bytes, $(field "$_l" errors) bad (first at $(field "$_l" first_bad)), $_m ms, $(field "$_l" mibps) MiB/s: $_r"
		fi
		case "$_r" in
		ok|sent) [ "$_b" != "$4" ] || { _ok=$((_ok + 1)); _ids="$_ids $_s"; } ;;
		esac
		[ -z "$_m" ] || [ "$_m" -le "$_ms" ] || _ms=$_m
	done <<EOF
$_lines
EOF
	_want=$(awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf " %d", i }')
	# shellcheck disable=SC2086
	_got=$(printf '%s\n' $_ids | sort -n | awk 'NF { printf " %s", $1 }')
	if [ "$_ok" != "$3" ] || [ "$_got" != "$_want" ]; then
		echo "# $5: $_ok of $3 streams complete (ids:${_got:- none}, expected$_want)"
		return 1
	fi
	if [ "$3" -gt 1 ]; then
		echo "# $5: $3 streams, $(awk -v n="$3" -v b="$4" -v ms="$_ms" 'BEGIN { printf "%.1f", ms ? n * b / 1048576 / (ms / 1000) : 0 }') MiB/s aggregate"
	fi
}

bytes_of()
{
	awk -v s="$1" 'BEGIN {
		n = s + 0; u = substr(s, length(s))
		if (u == "K") n *= 1024; else if (u == "M") n *= 1048576
		else if (u == "G") n *= 1073741824
		printf "%d\n", n }'
}

test_boot_device()
{
	skip_unless_backend boot_device || return $?
	echo "# backend: $BACKEND"
	virtio_run virtio_probe || return $?
	_r="$art/virtio_probe/results.log"
	got=$(tr -d '\r' < "$_r" | sed -n 's/^RXKIT: init //p')
	echo "# booted $got ($accel)"
	[ "$got" = "$release" ] || { echo "# uname -r is '$got', built '$release'"; return "$KSFT_FAIL"; }
	case "$got" in
	*"$suffix") ;;
	*) echo "# release '$got' lacks the $tree mark '$suffix'"; return "$KSFT_FAIL" ;;
	esac
	tr -d '\r' < "$_r" | sed -n 's/^RXKIT: virtio-vsock /# device: /p'
	tr -d '\r' < "$_r" | grep -q '^RXKIT: virtio-vsock .* driver=vmw_vsock_virtio_transport' ||
		{ echo "# no virtio-vsock device bound to vmw_vsock_virtio_transport"; return "$KSFT_FAIL"; }
	cid=$(tr -d '\r' < "$_r" | sed -n 's/^RXKIT: cid //p')
	echo "# guest CID $cid (daemon configured $GUEST_CID)"
	[ "$cid" = "$GUEST_CID" ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

# Host side of the host-to-guest tests: STREAMS streams of h2g_bytes to the
# port the guest announced, through the daemon's Unix socket.
h2g_send()
{
	_rl=$(tr -d '\r' < "$1/results.log" | grep '^RXKIT: ready' | head -n 1)
	_port=$(field "$_rl" port)
	_n=$(field "$_rl" streams)
	echo "# host: CONNECT $_port through $run/vm.vsock, $_n stream(s) of $h2g_bytes bytes"
	"$tool" -t 240 uds-send "$run/vm.vsock" "$_port" "$_n" "$h2g_bytes" 0 \
		> "$1/host.log" 2>&1
}

# h2g JOB BYTES: the host-to-guest test of JOB.
h2g()
{
	h2g_bytes=$(bytes_of "$2")
	echo "# backend: $BACKEND"
	_t0=$(date +%s)
	_rc=0
	virtio_run "$1" "" h2g_send || _rc=$?
	echo "# $1: $(( $(date +%s) - _t0 )) s wall (boot included)"
	_n=$(field "$(tr -d '\r' < "$art/$1/results.log" | grep '^RXKIT: ready' | head -n 1)" streams)
	[ -n "$_n" ] || return "$KSFT_FAIL"
	check_streams "$art/$1/host.log" uds-send "$_n" "$h2g_bytes" host || _rc=$KSFT_FAIL
	check_streams "$art/$1/results.log" recv "$_n" "$h2g_bytes" guest || _rc=$KSFT_FAIL
	return "$_rc"
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

# The shapes of tests/guest/jobs/virtio_h2g_shapes, host side:
# SHAPE PORT STREAMS BYTES CHUNK [SENDER OPTION]
readonly SHAPES="small_writes 5010 1 8M 1-576
rcvlowat 5011 1 32M 0
tiny_rcvbuf 5012 1 4M 1-576
interleaved_small 5013 8 1M 1-576
peer_abort 5014 4 8M 0 -a"

# Host side of host_to_guest_shapes: every shape at once, as concurrent
# senders through the daemon (their packets interleave in the guest's RX
# queue).
shapes_send()
{
	_pids=
	while read -r _shape _port _n _bytes _chunk _opt; do
		"$tool" -t 240 -s "$_shape" ${_opt:+"$_opt"} uds-send "$run/vm.vsock" \
			"$_port" "$_n" "$_bytes" "$_chunk" > "$1/host-$_shape.log" 2>&1 &
		_pids="$_pids $!"
	done <<EOF
$SHAPES
EOF
	_src=0
	for _p in $_pids; do
		wait "$_p" || _src=1
	done
	return "$_src"
}

# check_prefix FILE SHAPE N SENT: N receiver lines of SHAPE, each a correct
# prefix (result=ok under -p) of at most SENT bytes that ended in EOF or a
# reset.
check_prefix()
{
	_lines=$(tr -d '\r' < "$1" | grep "^rxkit-vsock: recv shape=$2 stream=" || true)
	_ok=0
	while IFS= read -r _l; do
		[ -n "$_l" ] || continue
		echo "# guest $2 stream $(field "$_l" stream): $(field "$_l" bytes) of $4 sent bytes, end=$(field "$_l" end), $(field "$_l" errors) bad: $(field "$_l" result)"
		[ "$(field "$_l" result)" = ok ] && [ "$(field "$_l" bytes)" -le "$4" ] &&
			_ok=$((_ok + 1))
	done <<EOF
$_lines
EOF
	[ "$_ok" = "$3" ] || { echo "# guest $2: $_ok of $3 streams a correct prefix"; return 1; }
}

test_host_to_guest_shapes()
{
	skip_unless_backend host_to_guest_shapes || return $?
	echo "# backend: $BACKEND"
	_t0=$(date +%s)
	_rc=0
	virtio_run virtio_h2g_shapes "" shapes_send || _rc=$?
	echo "# virtio_h2g_shapes: $(( $(date +%s) - _t0 )) s wall (boot included)"
	_d="$art/virtio_h2g_shapes"
	while read -r _shape _port _n _bytes _chunk _opt; do
		# check_streams uses _b itself: the sizes go in their own names.
		_sz=$(bytes_of "$_bytes")
		if [ "$_opt" = -a ]; then
			_sz=$((_sz / 2))
			check_streams "$_d/host-$_shape.log" "uds-send shape=$_shape" "$_n" "$_sz" host ||
				_rc=$KSFT_FAIL
			check_prefix "$_d/results.log" "$_shape" "$_n" "$_sz" || _rc=$KSFT_FAIL
			continue
		fi
		check_streams "$_d/host-$_shape.log" "uds-send shape=$_shape" "$_n" "$_sz" host ||
			_rc=$KSFT_FAIL
		check_streams "$_d/results.log" "recv shape=$_shape" "$_n" "$_sz" guest ||
			_rc=$KSFT_FAIL
	done <<EOF
$SHAPES
EOF
	return "$_rc"
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
	echo "# backend: $BACKEND"
	g2h_port=$2
	_t0=$(date +%s)
	_rc=0
	virtio_run "$1" g2h_listen || _rc=$?
	echo "# $1: $(( $(date +%s) - _t0 )) s wall (boot included)"
	tr -d '\r' < "$art/$1/results.log" | grep '^rxkit-vsock: send ' |
		sed 's/^rxkit-vsock: /# guest: /'
	check_streams "$art/$1/host.log" uds-recv 1 16777216 host || _rc=$KSFT_FAIL
	return "$_rc"
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

echo "# $target/$variant: $release, accelerator $accel, backend $BACKEND, artefacts $art"
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
