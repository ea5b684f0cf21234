# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# tests/lib/image_virtio.sh, sourced after tests/lib/image_vm.sh and
# tests/lib/vhost_user.sh by a suite whose VM image run carries a
# virtio-vsock device (tests/dkms_boot.sh): vhost-device-vsock behind
# QEMU's vhost-user-vsock-pci, one daemon for the whole run (the guest's
# reboots keep it).  In each boot that runs it, the guest job virtio_h2g
# listens on port 5000 and says "RXKIT: ready"; the host then sends it
# one stream through the daemon, every byte checked by the guest: the
# guest's virtio RX path, the one the series changes.
#
# Guest to host is not among them: with vhost-device-vsock 0.3.0 serving
# a guest that had rebooted, the guest's connect() to the host timed out
# in most boots, on Debian's modules and the package's alike, and a host
# listener up from the VM's start took a connection in the first boot,
# before any job ran, that carried no data.
# tests/vsock_vhost_user.sh, whose daemon never sees a reboot, tests that
# direction.
# The suite's state (art, work, pr) and vhost_user.sh's (run, daemon) read;
# GUEST_CID, VIRTIO_JOBS and image_vm.sh's hooks set for the others:
# shellcheck disable=SC2154,SC2034

readonly GUEST_CID=3
# What the guest job takes (tests/guest/jobs/virtio_h2g: port 5000, the
# length from the stream's header).
readonly VIRTIO_BYTES=16777216 VIRTIO_H2G_PORT=5000
readonly VIRTIO_JOBS="virtio_h2g"

run= daemon_pid=
virtio_on= virtio_art= virtio_sent=0 virtio_send_pids=

# virtio_start O: the backend, the data mover built against build folder
# O's UAPI headers ($virtio_art/rxkit-vsock, for the guest tree too); sets
# image_vm.sh's hooks and virtio_on.  False, with BACKEND_SKIP saying
# why, without a backend.
virtio_start()
{
	detect_backend
	[ -z "$BACKEND_SKIP" ] || return 1
	virtio_art="$art/virtio"
	mkdir -p "$virtio_art"
	mover "$1" "$virtio_art/rxkit-vsock" "$virtio_art/build.log"
	run=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-vu.XXXXXX")
	start_daemon "$virtio_art" || {
		BACKEND_SKIP="$BACKEND did not come up (log: $virtio_art/daemon.log)"
		virtio_stop
		return 1
	}
	vm_qemu_args="-object memory-backend-memfd,id=mem0,size=$VM_MEM,share=on"
	vm_qemu_args="$vm_qemu_args -numa node,memdev=mem0"
	vm_qemu_args="$vm_qemu_args -chardev socket,id=vsock0,path=$run/vhost.sock"
	vm_qemu_args="$vm_qemu_args -device vhost-user-vsock-pci,chardev=vsock0"
	vm_begin=virtio_begin
	vm_tick=virtio_tick
	vm_end=virtio_stop
	virtio_on=1
}

# virtio_begin: before each QEMU run (image_vm.sh runs the VM again after
# a TCG fault), a daemon and no stream sent yet.
virtio_begin()
{
	mkdir -p "$run"
	[ -n "$daemon_pid" ] || start_daemon "$virtio_art" ||
		echo "# $BACKEND did not come up again (log: $virtio_art/daemon.log)"
	virtio_sent=0
}

# virtio_tick: a stream to the guest for each new "RXKIT: ready" of
# virtio_h2g in the protocol log.
virtio_tick()
{
	local n
	n=$(tr -d '\r' < "$pr" | grep -c "^RXKIT: ready port=$VIRTIO_H2G_PORT " || true)
	while [ "$virtio_sent" -lt "$n" ]; do
		virtio_sent=$((virtio_sent + 1))
		"$virtio_art/rxkit-vsock" -t 240 uds-send "$run/vm.vsock" "$VIRTIO_H2G_PORT" 1 \
			"$VIRTIO_BYTES" 0 > "$virtio_art/host-h2g-$virtio_sent.log" 2>&1 &
		virtio_send_pids="$virtio_send_pids $!"
	done
	return 0
}

# virtio_stop: the host's senders ended, the daemon stopped, its folder
# gone (virtio_begin makes it again).
virtio_stop()
{
	local p
	for p in $virtio_send_pids; do
		wait "$p" 2>/dev/null || true
	done
	virtio_send_pids=
	stop_daemon
	[ -z "$run" ] || rm -rf "$run"
}

# virtio_check STEP N: boot STEP (the N-th to run the job) had the virtio
# transport loaded, and the host's N-th stream arrived whole, every byte
# checked by the guest.
virtio_check()
{
	local b="$work/virtio-$1.log" h="$virtio_art/host-h2g-$2.log" rc=0
	boot_block "$1" > "$b"
	grep -q '^RXKIT: module vmw_vsock_virtio_transport ' "$b" ||
		{ echo "# $1: vmw_vsock_virtio_transport is not loaded"; rc=1; }
	job_block "$1" virtio_h2g > "$b.h2g"
	if [ -f "$h" ]; then
		check_streams "$h" uds-send 1 "$VIRTIO_BYTES" "$1: host" || rc=1
	else
		echo "# $1: the guest never said it was ready; its job:"
		sed 's/^/#   /' "$b.h2g"
		rc=1
	fi
	check_streams "$b.h2g" recv 1 "$VIRTIO_BYTES" "$1: guest" || rc=1
	return "$rc"
}
