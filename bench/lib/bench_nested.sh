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
# ping-pongs' lines into OUT/rtt.csv, the samples of where the host ran
# it into OUT/l1.csv (and, nested, where this machine ran L1's vCPU threads
# into OUT/host.csv); in the plugin's passes, the plugin in the QEMU of
# the guest under test (L1's: images/mknested -p), its log ART/insn.log.
nested_sweep()
{
	local rc=0 j=0 p pongs= bh_plugin=
	host_out="$art/host"
	# The ping-pongs are the plain pass's alone (the guest's echoes too).
	[ "$pass" != plain ] || pongs=$rtts
	NESTED_PLUGIN=
	case "$pass" in
	*insn)
		bh_plugin=$plugin
		[ "$mode" = host ] || { NESTED_PLUGIN=$plugin; bh_plugin=/rxkit/librxkit-insn.so; } ;;
	esac
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
	BH_PLUGIN=$bh_plugin
	ENV
	if [ "$mode" = nested ]; then
		NESTED_HOST_SAMPLES="$art/host-samples.log"
		run_nested || rc=$?
		host_rows "$NESTED_HOST_SAMPLES" >> "$out/host.csv" ||
			{ echo "# no samples of L1's vCPU threads in $NESTED_HOST_SAMPLES"; rc=1; }
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
	if [ -n "$bh_plugin" ]; then
		cp "$host_out/insn.log" "$art/insn.log" 2>/dev/null ||
			{ echo "# the plugin left no insn.log (L1's QEMU: $host_out/guest.qemu.log)"; rc=1; }
	fi
	l1_rows "$host_out/l1.log" >> "$out/l1.csv" ||
		{ echo "# no samples of the host in $host_out/l1.log"; rc=1; }
	for p in $pongs; do
		rtt_row "$host_out/ping-$j.log" || rc=1
		j=$((j + 1))
	done
	[ "$(host_step points)" = 0 ] && { [ -z "$pongs" ] || [ "$(host_step rtt)" = 0 ]; } || rc=1
	return "$rc"
}

# l1_rows LOG: bench-host's samples (LOG) as rows of OUT/l1.csv, a row per
# point (its place; 0: the warm-up) and CPU or task of the host that ran
# the guest (L1): wall seconds and the host's load at the point's end,
# the CPU a task was last on, the busy seconds of each during the point.
# 1 without samples.
l1_rows()
{
	[ -s "$1" ] || return 1
	awk -v pfx="$k,$order,$st,$pass" '
		$3 == "uptime" { up[$1, $2] = $4 }
		$3 == "load" { load[$2] = $4 }
		$3 ~ /^cpu[0-9]/ { v[$1, $2, $3] = $4 + $5 + $6 + $9 + $10 + $11
			at[$1, $2, $3] = substr($3, 4); what[$3] = $3; id[$3] = "-"; n[$2, $3] = 1 }
		$3 == "task" { v[$1, $2, $4] = $6 + $7; at[$1, $2, $4] = $5
			what[$4] = $8; id[$4] = $4; n[$2, $4] = 1 }
		END {
			for (x in n) {
				split(x, f, SUBSEP); i = f[1]; t = f[2]
				if (!(("begin", i, t) in v) || !(("end", i, t) in v)) continue
				printf "%s,%s,%.2f,%s,%s,%s,%s,%.2f\n", pfx, i, up["end", i] - up["begin", i],
					load[i], what[t], id[t], at["end", i, t],
					(v["end", i, t] - v["begin", i, t]) / 100
			}
		}' "$1" | sort -t, -k5,5n -k8,8
}

# host_rows LOG: host_sampler's lines (LOG) of L1's QEMU as rows of
# OUT/host.csv, a row per vCPU thread of L1 over the guest's whole run
# (L1's boot included): the seconds sampled, the samples in which the
# thread was busy, its busy seconds, the CPUs of this machine it was on
# in those samples ("CPU:percent" words), how often it moved between
# them, and the percentage of them in which another vCPU thread of L1
# was busy on its CPU.  1 without samples.
host_rows()
{
	[ -s "$1" ] || return 1
	awk -v pfx="$k,$order,$st,$pass" -v hz="$(getconf CLK_TCK)" '
		$5 ~ /^CPU_[0-9]+\/(TCG|KVM)$/ {
			if (!($1 in seen)) { seen[$1] = 1; at[++nt] = $1 }
			cpu[$1, $5] = $3; tk[$1, $5] = $4; names[$5] = 1
			if ($3 > maxc) maxc = $3
		}
		function busy(a, b, n) { return ((a, n) in tk) && ((b, n) in tk) && tk[b, n] > tk[a, n] }
		END {
			if (nt < 2) exit 1
			for (i = 2; i <= nt; i++) {
				a = at[i - 1]; b = at[i]
				for (n in names) {
					if (!busy(a, b, n)) continue
					ticks[n] += tk[b, n] - tk[a, n]; act[n]++; on[n, cpu[b, n]]++
					if (cpu[b, n] != cpu[a, n]) moves[n]++
					for (m in names)
						if (m != n && busy(a, b, m) && cpu[b, m] == cpu[b, n]) { shared[n]++; break }
				}
			}
			for (n in names) {
				w = ""
				for (c = 0; c <= maxc; c++)
					if (on[n, c]) w = w (w == "" ? "" : " ") c ":" int(100 * on[n, c] / act[n] + 0.5)
				printf "%s,%s,%.0f,%d,%.2f,%s,%d,%.0f\n", pfx, n, at[nt] - at[1], act[n],
					ticks[n] / hz, w == "" ? "-" : w, moves[n], act[n] ? 100 * shared[n] / act[n] : 0
			}
		}' "$1" | sort -t, -k5,5
}
