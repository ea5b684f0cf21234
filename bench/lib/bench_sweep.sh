# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # sets virtio_run's kernel, initrd, art; reads the suite's
# The sweep of bench/bench.sh, after bench/lib/bench.sh: one guest of a
# pass (guest_pass), the senders and pingers of its sweep, its samples, the
# reference rows, the counters per packet.  They read the suite's settings
# (target, out, points, warmup, rtts, plugin, passes) and the run's (run,
# art, art_tools; k, order, gpoints, st, pass: the pair, its order, its
# guests' points, the state and the pass of the guest running).

# guest_pass PASS: one guest of state $st for PASS (plain, insn, probes,
# probes-insn: the plugin's passes end in insn), its rows into
# csv_of PASS, its boot id, load, probes and warm-up result into
# guests.csv, a KTAP line.  The guest runs $gpoints in their order
# (rxkit.points= on its command line; the host sends them in that order).
guest_pass()
{
	local t0 secs rc=0 insn_log= load
	kernel="$(bench_o "$st")/arch/x86/boot/bzImage"
	initrd="$out/$st$(pass_suffix "$1")/initrd.cpio.gz"
	art="$out/pair-$k-$st$(pass_suffix "$1")"
	pass=$1
	mkdir -p "$art"
	t0=$(date +%s)
	read -r load _ < /proc/loadavg
	VIRTIO_QEMU_ARGS=
	VIRTIO_APPEND="rxkit.points=$(echo "$gpoints" | tr -s ' ' ,)"
	case "$1" in
	*insn)
		# Behind vhost-vsock, the QEMU of the guest under test is
		# bench-host's, which loads the plugin (bench/lib/bench_nested.sh).
		insn_log=$art/insn.log
		if [ "$backend" = vhost-user ]; then
			rm -f "$art/insn.fifo"
			mkfifo "$art/insn.fifo"
			VIRTIO_QEMU_ARGS="-plugin $plugin,fifo=$art/insn.fifo,out=$insn_log"
		fi ;;
	esac
	if [ "$backend" = vhost-user ]; then
		virtio_run bench_rx '' send_points || rc=$?
	else
		nested_sweep || rc=$?
	fi
	[ -z "$insn_log" ] || exec 9>&-
	secs=$(($(date +%s) - t0))
	samples "$k" "$order" "$st" "$art/bench_rx" "$(csv_of "$1")" "$insn_log"
	tr -d '\r' < "$art/bench_rx/results.log" 2>/dev/null | awk -v pfx="$k,$order,$st,$1" \
		-v load="$load" -v secs="$secs" '
		$2 == "bench-probes" { probes = $3 }
		$2 == "bench-warmup" { for (i = 4; i <= NF; i++) if ($i ~ /^result=/) warm = substr($i, 8) }
		$2 == "bench-guest" { split($3, b, "="); split($4, l, "=")
			id = b[2]; gl = l[2]; gsub(/,/, "/", gl) }
		END { printf "%s,%s,%s,%s,%s,%s,%s\n", pfx, probes, id, gl, load, secs, warm }' \
		>> "$out/guests.csv"
	done_runs=$((done_runs + 1))
	echo "# pair $k ($order) $st, $1: $(grep -c "^$k,$order,$st," "$out/$(csv_of "$1")") points in $secs s; $((nruns - done_runs)) runs left"
	ktap_result "$rc" "pair_${k}_${st}$(pass_suffix "$1" | tr - _)"
}

# send_points DIR: the host side of one guest's sweep, its points
# ($gpoints) one after another (each sender waits for its receiver: -R),
# then, in the plain pass alone, the ping-pongs; in the instructions
# passes ($pass *insn) the plugin's marks around each point.
send_points()
{
	local i=0 p size bytes recv marks=
	# The marks' FIFO read-write: never blocks, whether QEMU reads or not.
	case "$pass" in *insn) exec 9<>"$art/insn.fifo"; marks=1 ;; esac
	for p in $gpoints; do
		IFS=: read -r size bytes recv _ <<-EOF
		$p
		EOF
		[ -z "$marks" ] || echo "begin $i" >&9
		"$art_tools/rxkit-bench" tx -t 600 -R 300 -w "$size" -n "$bytes" \
			"vhu:$run/vm.vsock:$((PORT + i))" >> "$1/host.log" 2>&1 ||
			{ echo "# point $i: the sender exited $?"; return 1; }
		[ -z "$marks" ] || echo "end $i" >&9
		i=$((i + 1))
	done
	[ "$pass" = plain ] || return 0
	i=0
	for p in $rtts; do
		"$art_tools/rxkit-bench" ping -t 600 -R 300 -s "${p%%:*}" -n "${p#*:}" \
			"vhu:$run/vm.vsock:$((RTT_PORT + i))" > "$1/ping-$i.log" 2>&1 ||
			{ echo "# ping-pong $i: the pinger exited $?"; cat "$1/ping-$i.log"; return 1; }
		rtt_row "$1/ping-$i.log" || return 1
		i=$((i + 1))
	done
}

# samples PAIR ORDER TREE DIR CSV [INSN_LOG]: the guest's "RXKIT: bench"
# lines as rows of $out/CSV, with the instructions of the RX worker's and
# the reader's vCPUs between the receiver's marks around its receive loop
# (gbegin/gend I), then between the host's around the sender (begin/end
# I: the guest's work between points too); from the plugin's INSN_LOG,
# without one empty.
samples()
{
	tr -d '\r' < "$4/results.log" | awk -v pair="$1" -v order="$2" -v tree="$3" \
		-v w="vcpu1" -v r="vcpu0" -v insn="${6:-}" '
		BEGIN {
			while (insn != "" && (getline l < insn) > 0) {
				n = split(l, f, " ")
				for (k = 3; k <= n; k++) { split(f[k], kv, "="); c[f[1], f[2], kv[1]] = kv[2] }
			}
		}
		function delta(b, e, i, cpu) {
			if (!((b, i, cpu) in c) || !((e, i, cpu) in c)) return ""
			return c[e, i, cpu] - c[b, i, cpu]
		}
		$1 == "RXKIT:" && $2 == "bench" {
			row = pair "," order "," tree "," $3
			for (i = 4; i <= NF; i++) { split($i, f, "="); row = row "," f[2] }
			print row "," delta("gbegin", "gend", $3, w) "," delta("gbegin", "gend", $3, r) \
				"," delta("begin", "end", $3, w) "," delta("begin", "end", $3, r)
		}' >> "$out/$5"
}

# The reference rows: the same tools over a Unix socket on this host, and
# over the loopback transport inside a guest of the patched kernel (no
# device): what they reach where the series is not in the path.
ref_rows()
{
	local i=0 p size bytes recv pid rc=0
	echo "kind,point,payload,recv,bytes,seconds,gbps,mibps,recv_calls,errors,first_bad,result" \
		> "$out/ref.csv"
	for p in $points; do
		IFS=: read -r size bytes recv <<-EOF
		$p
		EOF
		rm -f "$run/ref.sock"
		"$art_tools/rxkit-bench" rx -t 600 -r "$recv" -L 1 -n "$bytes" "unix:$run/ref.sock" \
			> "$out/ref/unix-$i.log" 2>&1 &
		pid=$!
		"$art_tools/rxkit-bench" tx -t 600 -R 30 -w "$size" -n "$bytes" "unix:$run/ref.sock" \
			>> "$out/ref/unix-$i.log" 2>&1 || rc=1
		wait "$pid" || rc=1
		sed -n 's/^rxkit-bench: rx //p' "$out/ref/unix-$i.log" | awk -v pfx="unix-host,$i,$size,$recv" '{
			row = pfx; for (f = 1; f <= NF; f++) { split($f, v, "="); row = row "," v[2] }
			print row }' >> "$out/ref.csv"
		i=$((i + 1))
	done
	kernel="$(bench_o patched)/arch/x86/boot/bzImage"
	initrd="$out/patched/initrd.cpio.gz"
	art="$out/ref"
	VIRTIO_APPEND=
	# No device in use: the loopback transport (a vhost-user daemon
	# beside it, or, with the kernel's vhost-vsock, none).
	if [ "$backend" = vhost-user ]; then
		virtio_run bench_ref || rc=1
	else
		guest_run -j "$VIRTIO_JOB_SECS" "$art/bench_ref" "$kernel" "$initrd" bench_ref "$accel" || rc=1
	fi
	tr -d '\r' < "$art/bench_ref/results.log" | awk '$1 == "RXKIT:" && $2 == "bench-ref" {
		row = "loopback-guest," $3
		for (i = 4; i <= NF; i++) { split($i, f, "="); row = row "," f[2] }
		print row }' >> "$out/ref.csv"
	[ "$(grep -c '^unix-host,.*,ok$' "$out/ref.csv")" = "$npts" ] ||
		{ echo "# the Unix-socket reference did not verify every point"; rc=1; }
	[ "$(grep -c '^loopback-guest,.*,ok$' "$out/ref.csv")" = "$npts" ] ||
		{ echo "# the loopback reference did not verify every point"; rc=1; }
	return "$rc"
}

# sweep_points COLUMN [PAYLOADS]: the points of POINTS_FILE's COLUMN (2
# FULL, 3 SMOKE, 4 NESTED) as "PAYLOAD:BYTES:RECV" words, each payload
# into a 64 KiB recv() and into one of its own size (once for 64K);
# PAYLOADS (comma-separated): only those, each one the column measures.
sweep_points()
{
	local all= x= p=
	# PAYLOAD:BYTES of every payload the column measures, in the file's order.
	all=$(awk -v col="$1" '!/^#/ && NF && $col != "-" && $1 !~ /^warmup:/ {
		printf "%s%s:%s", s, $1, $col; s = " " }' "$POINTS_FILE")
	[ -n "$all" ] || die "no points in $POINTS_FILE"
	for p in $(echo "$2" | tr , ' '); do
		case " $all" in
		*" $p:"*) ;;
		*) die "--payloads: this sweep has no payload '$p' in $POINTS_FILE; run: --payloads with some of: $(echo "$all" | sed 's/:[^ ]*//g; s/ /,/g')" ;;
		esac
	done
	for x in $all; do
		p=${x%%:*}
		case ",${2:-$p}," in
		*",$p,"*) printf '%s:64K ' "$x"; [ "$p" = 64K ] || printf '%s:%s ' "$x" "$p" ;;
		esac
	done
	echo
}

# packet_checks: the KTAP lines of the counts per received RW packet at
# 64-byte writes into a 64 KiB recv(), each state's in the control's
# probes pass: about one lock and one lookup a packet on the baseline, at
# most half of one on the patched kernel (batches of up to 64).
packet_checks()
{
	local lock_b= lookup_b= lock_p= lookup_p= rc=0
	lock_b=$(per_packet baseline 16)
	lookup_b=$(per_packet baseline 17)
	lock_p=$(per_packet patched 16)
	lookup_p=$(per_packet patched 17)
	echo "# 64B into 64K, a packet: baseline $lock_b locks, $lookup_b lookups; patched $lock_p locks, $lookup_p lookups"
	awk -v l="$lock_b" -v u="$lookup_b" 'BEGIN { exit !(l >= 0.8 && u >= 0.8) }' ||
		{ echo "# the baseline does not take a lock and a lookup a packet: the counters are wrong"; rc=1; }
	ktap_result "$rc" baseline_one_lock_a_packet
	rc=0
	awk -v l="$lock_p" -v u="$lookup_p" 'BEGIN { exit !(l >= 0 && l <= 0.5 && u >= 0 && u <= 0.5) }' ||
		{ echo "# the patched kernel does not batch: $lock_p locks, $lookup_p lookups a packet"; rc=1; }
	ktap_result "$rc" patched_batches
}

# per_packet TREE COLUMN: COLUMN's count over the RW packets' in the
# control's probes pass (-1: none).
per_packet()
{
	awk -F, -v t="$1" -v c="$2" 'NR > 1 && $3 == t && $5 == 64 && $6 == "64K" {
		n += $15; v += $(c) } END { printf "%.3f\n", n ? v / n : -1 }' "$out/probes.csv"
}

# point_order SEED: $points in the order of the pair SEED, a Fisher-Yates
# shuffle driven by the Park-Miller generator from SEED (exact in awk's
# doubles: every awk gives the same order).
point_order()
{
	printf '%s\n' $points | awk -v x="$1" '{ p[n++] = $0 }
		END {
			for (i = n - 1; i > 0; i--) {
				x = (x * 16807) % 2147483647
				j = x % (i + 1); t = p[i]; p[i] = p[j]; p[j] = t
			}
			for (i = 0; i < n; i++) printf "%s ", p[i]
		}'
}

# order_check NPTS GUESTS CSV...: every guest of GUESTS (guests.csv)
# warmed up first (warm-up ok), and swept NPTS points, each once, at the
# places 1 to NPTS of the rows of the CSVs (the point column); the guests
# of a pair (both states, every pass) in one order, and the pairs not all
# in one.  Says what is wrong; 1 then.
order_check()
{
	local n=$1
	shift
	awk -F, -v n="$n" '
		FNR == 1 { next }
		FILENAME ~ /guests.csv$/ {
			if ($10 != "ok") bad["guest " $1 " " $3 " " $4 ": no warm-up first (" ($10 == "" ? "none" : $10) ")"]
			next
		}
		{
			g = $1 " " $3 " " FILENAME
			if ((g, $4) in at) bad[g ": place " $4 " twice"]
			if (++seen[g, $5 "/" $6] > 1) bad[g ": " $5 "/" $6 " twice"]
			at[g, $4] = $5 "/" $6; pair[g] = $1; cnt[g]++
			# The order of a pair: that of its first guest in the files.
			if (!($1 in first)) first[$1] = g
		}
		END {
			for (g in cnt) {
				if (cnt[g] != n) bad[g ": " cnt[g] " points, not " n]
				o = ""
				for (i = 1; i <= n; i++) o = o " " ((g, i) in at ? at[g, i] : "-")
				ord[g] = o
			}
			for (g in cnt)
				if (ord[g] != ord[first[pair[g]]]) bad[g ": another order than its pair"]
			for (p in first)
				if (p != "control") { np++; orders[ord[first[p]]] = 1 }
			for (o in orders) no++
			if (np > 1 && n > 1 && no < 2) bad["all " np " pairs in one order"]
			for (b in bad) { print "# " b; rc = 1 }
			exit rc
		}' "$@"
}
