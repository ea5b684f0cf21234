# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # sets the suite's backend globals, reads its run's
# The kernel's vhost-vsock as the backend of bench/bench.sh (--backend
# nested): the host of tests/vsock_vhost_vsock.sh (this machine when its
# /dev/vhost-vsock works, else the nested L1 guest of images/mknested),
# whose bench/guest/bench-host sends each point over AF_VSOCK.  Unlike
# vhost-device-vsock, which reads the sender's Unix stream in large reads,
# vhost-vsock hands the guest one packet a write: 64-byte writes arrive as
# 64-byte packets, the cover letter's small-packet case.  Sourced after
# tests/lib.sh and bench/lib/bench.sh; uses their run's k, order, st, art,
# kernel, initrd, points, rtts, accel, out.

. "$RXKIT_TOP/tests/lib/vhost_vsock.sh"

# bench_nested_needs: the host (mode: host or nested), its BACKEND; dies
# with the reason when none serves.  L1: the target's baseline guest
# kernel, as in tests/vsock_vhost_vsock.sh (RXKIT_VHOST_VSOCK_L1).
bench_nested_needs()
{
	L1=${RXKIT_VHOST_VSOCK_L1:-$target/baseline}
	detect_host
	[ -z "$BACKEND_SKIP" ] || die "no backend: $BACKEND_SKIP"
	NESTED_TIMEOUT=$((VIRTIO_JOB_SECS + 1200))
}

# nested_sweep: one guest's sweep and ping-pongs behind vhost-vsock, its
# protocol log as ART/bench_rx/results.log (virtio_run's place), the
# ping-pongs' lines into OUT/rtt.csv.
nested_sweep()
{
	local rc=0 j=0 p pongs=
	host_out="$art/host"
	# The ping-pongs are the plain pass's alone (the guest's echoes too).
	[ "$pass" != plain ] || pongs=$rtts
	ln -sf "$initrd" "$art/initrd.cpio.gz"
	cat > "$art/env" <<-ENV
	VH_HOST=bench-host
	VH_SMP=$GUEST_SMP
	VH_MEM=768
	VH_STEP_TIMEOUT=$VIRTIO_JOB_SECS
	BH_POINTS='$gpoints'
	BH_RTT='$pongs'
	BH_PORT=$PORT
	BH_RTT_PORT=$RTT_PORT
	ENV
	if [ "$mode" = nested ]; then
		run_nested || rc=$?
	else
		# shellcheck disable=SC1091,SC2046
		(set -a; . "$art/env"; VH_PROGS=$art_tools VH_CID=$((1000 + $$ % 60000))
		exec timeout "$NESTED_TIMEOUT" "$RXKIT_TOP/bench/guest/bench-host" "$QEMU" \
			"$kernel" "$initrd" "$host_out" $(qemu_accel_args "$accel")) \
			> "$art/host.log" 2>&1 || rc=$?
		grep '^RXKIT: \(step\|guest\) ' "$art/host.log" > "$host_out/steps.log" || true
	fi
	mkdir -p "$art/bench_rx"
	cp "$host_out/guest.results.log" "$art/bench_rx/results.log" 2>/dev/null ||
		{ echo "# the guest under test never ran (logs: $art)"; return 1; }
	cp "$host_out/guest.serial.log" "$art/bench_rx/serial.log" 2>/dev/null || true
	sed 's/^/# host: /' "$host_out/steps.log"
	for p in $pongs; do
		rtt_row "$host_out/ping-$j.log" || rc=1
		j=$((j + 1))
	done
	[ "$(host_step points)" = 0 ] && { [ -z "$pongs" ] || [ "$(host_step rtt)" = 0 ]; } || rc=1
	return "$rc"
}
