# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # sets virtio_run's kernel, initrd, art; reads the suite's
# The host side of tests/bench.sh, sourced by it alone: each state's
# initramfs, the senders and pingers of one guest's sweep, the samples of
# its lines, the reference rows, the counters per packet.  They read the
# suite's settings (target, out, points, rtts, plugin, ptree, upto) and the
# run's (run, art, art_tools; k, order, st, pass: the pair, its order, the
# state and the pass of the guest running).

# kv_row PREFIX: each line of "key=value ..." words on stdin as the CSV
# row PREFIX,value,value...
kv_row()
{
	awk -v pfx="$1" '{ row = pfx
		for (f = 1; f <= NF; f++) { split($f, v, "="); row = row "," v[2] }
		print row }'
}

# tree_of STATE: the tree of a state (patched: patched-N with --patches).
tree_of() { [ "$1" = patched ] && echo "$ptree" || echo "$1"; }
# bench_o STATE: the bench flavour's build folder of STATE's tree.
bench_o() { printf '%s/%s/o-bench\n' "$(src_root "$target")" "$(tree_of "$1")"; }

# state_setup TREE [insn]: the kernel of TREE and its initramfs,
# $out/TREE[-insn]/initrd.cpio.gz, with rxkit-bench, the counters and the
# points in it (the instructions pass: no ping-pongs).
state_setup()
{
	local s o a
	s="$(src_root "$target")/$(tree_of "$1")"
	o=$(bench_o "$1")
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		die "no $1 kernel of the bench flavour; run:${upto:+ ci/prepare --upto $upto $target;} ci/build --tree $(tree_of "$1") --flavour bench $target"
	a="$out/$1${2:+-$2}"
	mkdir -p "$a/tools/rxkit"
	gcc -static -O2 -Wall -I"$o/usr/include" -o "$a/tools/rxkit/rxkit-bench" \
		"$RXKIT_TOP/tests/bench/rxkit-bench.c" > "$a/bench-build.log" 2>&1 ||
		{ cat "$a/bench-build.log" >&2; die "building tests/bench/rxkit-bench.c failed"; }
	cp "$RXKIT_TOP/tests/guest/bench-counters" "$a/tools/rxkit/"
	printf 'BENCH_PORT=%s\nBENCH_RX_CPU=0\nBENCH_IRQ_CPU=1\nBENCH_POINTS="%s"\n' \
		"$PORT" "$points" > "$a/tools/rxkit/bench.env"
	printf 'BENCH_RTT_PORT=%s\nBENCH_RTT="%s"\n' "$RTT_PORT" \
		"$([ -n "${2:-}" ] || for p in $rtts; do printf '%s ' "${p%%:*}"; done)" \
		>> "$a/tools/rxkit/bench.env"
	tools_initrd "$s" "$o" "$a"
}

# send_points DIR: the host side of one guest's sweep, point after point
# (each sender waits for its receiver: -R), then the ping-pongs; in the
# instructions pass ($pass insn) the plugin's marks around each point and
# no ping-pongs.
send_points()
{
	local i=0 p size bytes recv marks=
	# The marks' FIFO read-write: never blocks, whether QEMU reads or not.
	[ "$pass" != insn ] || { exec 9<>"$art/insn.fifo"; marks=1; }
	for p in $points; do
		IFS=: read -r size bytes recv <<-EOF
		$p
		EOF
		[ -z "$marks" ] || echo "begin $i" >&9
		"$art_tools/rxkit-bench" tx -t 600 -R 300 -w "$size" -n "$bytes" \
			"vhu:$run/vm.vsock:$((PORT + i))" >> "$1/host.log" 2>&1 ||
			{ echo "# point $i: the sender exited $?"; return 1; }
		[ -z "$marks" ] || echo "end $i" >&9
		i=$((i + 1))
	done
	[ -z "$marks" ] || return 0
	i=0
	for p in $rtts; do
		"$art_tools/rxkit-bench" ping -t 600 -R 300 -s "${p%%:*}" -n "${p#*:}" \
			"vhu:$run/vm.vsock:$((RTT_PORT + i))" > "$1/ping-$i.log" 2>&1 ||
			{ echo "# ping-pong $i: the pinger exited $?"; cat "$1/ping-$i.log"; return 1; }
		# The pair, order and state of this guest (the loop below).
		sed -n 's/^rxkit-bench: ping //p' "$1/ping-$i.log" | kv_row "$k,$order,$st" \
			>> "$out/rtt.csv"
		i=$((i + 1))
	done
}

# samples PAIR ORDER TREE DIR [INSN_LOG]: the guest's "RXKIT: bench" lines
# as CSV rows, with the instructions of the RX worker's and the reader's
# vCPUs between the point's marks (the plugin's INSN_LOG: to insn.csv;
# without one, empty, to samples.csv).
samples()
{
	tr -d '\r' < "$4/results.log" | awk -v pair="$1" -v order="$2" -v tree="$3" \
		-v w="vcpu1" -v r="vcpu0" -v insn="$5" '
		BEGIN {
			while (insn != "" && (getline l < insn) > 0) {
				n = split(l, f, " ")
				for (k = 3; k <= n; k++) { split(f[k], kv, "="); c[f[1], f[2], kv[1]] = kv[2] }
			}
		}
		function delta(i, cpu) {
			if (!(("begin", i, cpu) in c) || !(("end", i, cpu) in c)) return ""
			return c["end", i, cpu] - c["begin", i, cpu]
		}
		$1 == "RXKIT:" && $2 == "bench" {
			row = pair "," order "," tree "," $3
			for (i = 4; i <= NF; i++) { split($i, f, "="); row = row "," f[2] }
			print row "," delta($3, w) "," delta($3, r)
		}' >> "$out/$([ -n "${5:-}" ] && echo insn || echo samples).csv"
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
	virtio_run bench_ref || rc=1
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

# per_packet TREE COLUMN: COLUMN's count over the RW packets' (-1: none).
per_packet()
{
	awk -F, -v t="$1" -v c="$2" 'NR > 1 && $3 == t && $5 == 64 && $6 == "64K" {
		n += $15; v += $(c) } END { printf "%.3f\n", n ? v / n : -1 }' "$out/samples.csv"
}
