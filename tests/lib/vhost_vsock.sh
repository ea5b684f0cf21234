# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The hosts of tests/vsock_vhost_vsock.sh's guest under test: this machine when
# its /dev/vhost-vsock works, else an L1 guest (the baseline kernel) with
# kernel vhost-vsock, made by images/mknested.  Sourced by that suite alone,
# after tests/lib.sh; uses its art, host_out, kernel, accel, L1 and
# NESTED_TIMEOUT.
# shellcheck disable=SC2034,SC2154 # sets the suite's backend globals, reads its own

# host_vhost_usable: /dev/vhost-vsock opens for QEMU here.
host_vhost_usable()
{
	local pid=
	[ -c /dev/vhost-vsock ] || return 1
	timeout 10 "$QEMU" -nodefaults -display none -S -monitor none \
		-machine q35 -device vhost-vsock-pci,guest-cid=4294967 \
		> /dev/null 2>&1 &
	pid=$!
	sleep 2
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		return 0
	fi
	wait "$pid" 2>/dev/null || true
	return 1
}

# detect_host: mode (host or nested: RXKIT_VHOST_VSOCK_BACKEND, or auto),
# BACKEND (named in every run), BACKEND_SKIP (when set, the reason every
# test skips) and l1_o (the L1 kernel's build folder).
detect_host()
{
	BACKEND_SKIP=
	mode=${RXKIT_VHOST_VSOCK_BACKEND:-auto}
	case "$mode" in
	auto) if host_vhost_usable; then mode=host; else mode=nested; fi ;;
	host) host_vhost_usable || BACKEND_SKIP="RXKIT_VHOST_VSOCK_BACKEND=host: /dev/vhost-vsock missing or unusable for $QEMU" ;;
	nested) ;;
	*) die "RXKIT_VHOST_VSOCK_BACKEND must be auto, host or nested" ;;
	esac
	l1_o="$RXKIT_CACHE/src/$L1/o-guest"
	case "$mode" in
	host) BACKEND="vhost-vsock (this host's /dev/vhost-vsock)" ;;
	nested)
		BACKEND="vhost-vsock in a nested host (L1 $L1 kernel, QEMU $($QEMU --version | awk '{ print $4; exit }'))"
		if [ ! -f "$l1_o/arch/x86/boot/bzImage" ]; then
			BACKEND_SKIP="nested backend: no L1 kernel $l1_o; run: ci/build --tree ${L1#*/} ${L1%/*}"
		elif [ ! -f "$l1_o/drivers/vhost/vhost_vsock.ko" ]; then
			BACKEND_SKIP="nested backend: $l1_o has no vhost_vsock.ko (the L1 kernel needs CONFIG_VHOST_VSOCK=m)"
		fi ;;
	esac
}

# run_nested: boot L1 with job nested_l1 (NESTED_PLUGIN: a TCG plugin for
# L1's QEMU, images/mknested -p; NESTED_HOST_SAMPLES: a file for
# host_sampler's lines of L1's QEMU); its files come back on its
# protocol port and are split into host_out.
run_nested()
{
	local rc=0 sampler=
	"$RXKIT_TOP/images/mknested" ${NESTED_PLUGIN:+-p "$NESTED_PLUGIN"} "$l1_o" "$kernel" \
		"$art/initrd.cpio.gz" "$art/env" "$art/l1.cpio.gz" > "$art/mknested.log" 2>&1 || {
		sed 's/^/# /' "$art/mknested.log"
		return 1
	}
	rm -f "$art/l1.pid"
	if [ -n "${NESTED_HOST_SAMPLES:-}" ]; then
		host_sampler "$art/l1.pid" "$NESTED_HOST_SAMPLES" "$$" &
		sampler=$!
	fi
	guest_run -j "$NESTED_TIMEOUT" "$art/l1" "$l1_o/arch/x86/boot/bzImage" \
		"$art/l1.cpio.gz" nested_l1 "${accel%% *}" -m 3072 -pidfile "$art/l1.pid" \
		-name l1,debug-threads=on || rc=$?
	[ -z "$sampler" ] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true; }
	mkdir -p "$host_out"
	tr -d '\r' < "$art/l1/results.log" | awk -v dir="$host_out" '
		/^RXKIT: file-end/ { if (f) close(f); f = ""; next }
		/^RXKIT: file / { f = dir "/" $3; printf "" > f; next }
		f { sub(/^\| /, ""); print > f }'
	grep '^RXKIT: \(step\|guest\) ' "$art/l1/results.log" | tr -d '\r' \
		> "$host_out/steps.log"
	return "$rc"
}

# host_sampler PIDFILE OUT PARENT: once a second while PARENT lives, a
# line to OUT for each thread of the process PIDFILE names (when there is
# one: it starts late, and may start twice): this machine's uptime, the
# thread's id, the CPU it last ran on, its user and system ticks, its name
# (spaces as '_': "CPU_0/TCG").
host_sampler()
{
	local pid=
	while kill -0 "$3" 2>/dev/null; do
		pid=$(cat "$1" 2>/dev/null) || pid=
		[ -z "$pid" ] || [ ! -d "/proc/$pid/task" ] ||
			awk -v up="$(cut -d' ' -f1 /proc/uptime)" '{
				name = $0; sub(/^[0-9]+ \(/, "", name); sub(/\) [A-Za-z] .*$/, "", name)
				rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
				gsub(/ /, "_", name); print up, $1, f[37], f[12] + f[13], name
			}' /proc/"$pid"/task/*/stat >> "$2" 2>/dev/null || true
		sleep 1
	done
}

# run_host: this machine is the host.
run_host()
{
	local rc=0
	mkdir -p "$art/progs"
	gzip -dc "$art/initrd.cpio.gz" | (cd "$art/progs" &&
		cpio -id --quiet rxkit/vsock_test rxkit/vsock_diag_test)
	cp "$art/tools/rxkit/rxkit-vsock" "$art/progs/rxkit/"
	# shellcheck disable=SC1091
	. "$art/env"
	# shellcheck disable=SC2046
	env VH_PROGS="$art/progs/rxkit" VH_CID=$((1000 + $$ % 60000)) \
		VH_SKIP_VT_CLIENT="$VH_SKIP_VT_CLIENT" VH_SKIP_VT_SERVER="$VH_SKIP_VT_SERVER" \
		VH_SKIP_DG_CLIENT="$VH_SKIP_DG_CLIENT" VH_SKIP_DG_SERVER="$VH_SKIP_DG_SERVER" \
		VH_TIME_SCALE="$VH_TIME_SCALE" \
		timeout "$NESTED_TIMEOUT" "$RXKIT_TOP/tests/guest/vhost-host" \
		"$QEMU" "$kernel" "$art/initrd.cpio.gz" "$host_out" \
		$(qemu_accel_args "$accel") > "$art/host.log" 2>&1 || rc=$?
	grep '^RXKIT: \(step\|guest\) ' "$art/host.log" > "$host_out/steps.log" || true
	return "$rc"
}

# host_step NAME: the host side's exit code of step NAME (255: none).
host_step()
{
	local rc=
	rc=$(awk -v n="$1" '$2 == "step" && $3 == n { print $5 }' "$host_out/steps.log" | tail -n 1)
	echo "${rc:-255}"
}

# guest_step NAME: the guest side's exit code of step NAME (255: none).
guest_step()
{
	local rc=
	rc=$(tr -d '\r' < "$host_out/guest.results.log" 2>/dev/null |
		awk -v n="$1" '$2 == "step" && $3 == n { print $5 }' | tail -n 1)
	echo "${rc:-255}"
}

# guest_section NAME: the guest's output of step NAME.
guest_section()
{
	tr -d '\r' < "$host_out/guest.results.log" |
		sed -n "/^RXKIT: step-begin $1\$/,/^RXKIT: step $1 rc/p"
}

