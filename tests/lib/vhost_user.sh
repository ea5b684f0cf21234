# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The vhost-user backend of tests/vsock_vhost_user.sh: vhost-device-vsock
# found and started for each guest, and the guest run with QEMU's
# vhost-user-vsock-pci device.  Sourced by that suite alone, after
# tests/lib.sh; uses its art, run (a short private folder: sun_path holds
# 108 bytes), kernel, initrd, accel and GUEST_CID.
# shellcheck disable=SC2034,SC2154 # sets the suite's backend globals, reads its own

# detect_backend: BACKEND names it in every run; BACKEND_SKIP, when set,
# is the reason every test skips.  BACKEND_NAME and BACKEND_VERSION pick
# its known defects; daemon is vhost-device-vsock's path.
detect_backend()
{
	BACKEND=none
	BACKEND_SKIP=
	BACKEND_NAME=vhost-device-vsock
	BACKEND_VERSION=
	daemon=
	case "${RXKIT_VHOST_USER_BACKEND:-auto}" in
	auto|vhost-user) ;;
	*) die "RXKIT_VHOST_USER_BACKEND must be auto or vhost-user" ;;
	esac
	if [ -c /dev/vhost-vsock ] && [ "${RXKIT_VHOST_USER_BACKEND:-auto}" = auto ]; then
		BACKEND=vhost-vsock
		BACKEND_SKIP="backend vhost-vsock (/dev/vhost-vsock): the kernel's vhost-vsock is tests/vsock_vhost_vsock.sh's (RXKIT_VHOST_USER_BACKEND=vhost-user uses vhost-device-vsock here instead)"
	elif daemon=$(command -v vhost-device-vsock 2>/dev/null); then
		BACKEND_VERSION=$("$daemon" --version 2>/dev/null | awk '{ print $NF; exit }')
		BACKEND="vhost-device-vsock ${BACKEND_VERSION:-?} (vhost-user, $daemon)"
		$QEMU -device help 2>/dev/null | grep -q '"vhost-user-vsock-pci"' ||
			BACKEND_SKIP="backend $BACKEND: $QEMU has no vhost-user-vsock-pci device"
	else
		BACKEND_SKIP="no virtio-vsock backend: no /dev/vhost-vsock and no vhost-device-vsock daemon (install it: tests/vhost-user-backend --install)"
	fi
}

# cleanup: the guest, the host side and the daemon stopped; run removed.
cleanup()
{
	local p=
	if [ -n "$guest_pid" ] && [ -f "$qemu_pidfile" ]; then
		kill "$(cat "$qemu_pidfile")" 2>/dev/null || true
	fi
	for p in $host_pid $guest_pid $daemon_pid; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$run"
}

# skip_unless_backend TEST: return KSFT_SKIP with the reason when the
# backend cannot run TEST (none, or a known defect of its version:
# tests/data/backend-defects; RUN_BACKEND_DEFECTS=1, the suite's
# --run-known-defects, runs it anyway); 0 otherwise.
skip_unless_backend()
{
	local why=
	if [ -n "$BACKEND_SKIP" ]; then
		SKIP_REASON=$BACKEND_SKIP
		return "$KSFT_SKIP"
	fi
	why=$(backend_defect "$BACKEND_NAME" "$BACKEND_VERSION" "$1")
	[ -z "$why" ] ||
		why="$BACKEND_NAME ${BACKEND_VERSION:-?} $why (backend defect; --run-known-defects runs it)"
	if [ -n "$why" ] && [ "${RUN_BACKEND_DEFECTS:-0}" != 1 ]; then
		SKIP_REASON=$why
		return "$KSFT_SKIP"
	fi
	[ -z "$why" ] || echo "# $1: known backend defect, run anyway: $why"
	return 0
}

# start_daemon DIR: a fresh vhost-device-vsock for one guest.
start_daemon()
{
	local ticks=0
	rm -f "$run/vhost.sock" "$run/vm.vsock" "$run"/vm.vsock_*
	"$daemon" --vm "guest-cid=$GUEST_CID,socket=$run/vhost.sock,uds-path=$run/vm.vsock" \
		> "$1/daemon.log" 2>&1 &
	daemon_pid=$!
	while [ ! -S "$run/vhost.sock" ]; do
		kill -0 "$daemon_pid" 2>/dev/null || { daemon_pid=; return 1; }
		[ "$ticks" -lt 50 ] || return 1
		sleep 0.1
		ticks=$((ticks + 1))
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
# VIRTIO_QEMU_ARGS: more QEMU arguments (words; bench/bench.sh's plugin);
# VIRTIO_APPEND: more kernel command line (tests/vsock_sockmap.sh).
virtio_run()
{
	local d="$art/$1" hrc=0 grc=0 v=0 ticks=0
	mkdir -p "$d"
	start_daemon "$d" || {
		echo "# $1: $BACKEND did not come up (log: $d/daemon.log)"
		sed 's/^/#   /' "$d/daemon.log"
		stop_daemon
		return "$KSFT_FAIL"
	}
	[ -z "${2:-}" ] || "$2" "$d" || hrc=$?
	qemu_pidfile="$d/qemu.pid"
	# shellcheck disable=SC2086 # VIRTIO_QEMU_ARGS: words
	guest_run -j "${VIRTIO_JOB_SECS:-300}" ${VIRTIO_APPEND:+-a "$VIRTIO_APPEND"} \
		"$d" "$kernel" "$initrd" "$1" "$accel" \
		-pidfile "$qemu_pidfile" \
		-object memory-backend-memfd,id=mem0,size=1024M,share=on \
		-numa node,memdev=mem0 \
		-chardev "socket,id=vsock0,path=$run/vhost.sock" \
		-device vhost-user-vsock-pci,chardev=vsock0 ${VIRTIO_QEMU_ARGS:-} &
	guest_pid=$!
	if [ -n "${3:-}" ] && [ "$hrc" = 0 ]; then
		if wait_for "$d/results.log" '^RXKIT: ready' $((BOOT_TIMEOUT + 60)) "$guest_pid"; then
			"$3" "$d" || hrc=$?
		else
			echo "# $1: the guest never reported 'RXKIT: ready'"
			hrc=1
		fi
	fi
	wait "$guest_pid" || grc=$?
	guest_pid=
	rm -f "$qemu_pidfile"
	stop_daemon
	if [ -n "$host_pid" ]; then
		# A host-side listener: 10 s to finish, then it is stopped (the
		# guest never came, or its stream never ended).
		while kill -0 "$host_pid" 2>/dev/null && [ "$ticks" -lt 50 ]; do
			sleep 0.2
			ticks=$((ticks + 1))
		done
		kill "$host_pid" 2>/dev/null || true
		wait "$host_pid" 2>/dev/null || hrc=$?
		host_pid=
	fi
	guest_verdict "$1" "$d" "$grc" "${VIRTIO_JOB_SECS:-300}" || v=$?
	if [ "$v" = 0 ] && [ "$hrc" != 0 ]; then
		echo "# $1: host side exited $hrc"
		v=$KSFT_FAIL
	fi
	if [ "$v" != 0 ]; then
		tail -n 4 "$d/host.log" 2>/dev/null | sed 's/^/#   host: /'
		tail -n 4 "$d/daemon.log" 2>/dev/null | sed 's/^/#   daemon: /'
	fi
	return "$v"
}
