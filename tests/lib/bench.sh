# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # sets virtio_run's kernel, initrd, art; reads the suite's
# The host side of the benchmark's suites, tests/bench.sh (the sweep) and
# tests/bench_slow.sh (the slow reader): their shared options, each state's
# initramfs, the senders and pingers of one guest's sweep, the samples of
# its lines, the reference rows, the counters per packet.  They read the
# suite's settings (target, out, points, rtts, slow, plugin, ptree, upto)
# and the run's (run, art, art_tools; k, order, st, pass: the pair, its
# order, the state and the pass of the guest running).

# bench_opt ARGS...: the options both suites take (parse_stage_args'
# extra_opt protocol: returns the words used, 0 when none).
pairs=
out=
backend=vhost-user
upto=
keep=
keep_set=
bench_opt()
{
	case "$1" in
	--pairs) opt_arg "a number" "$@"; pairs=$2; return 2 ;;
	--out) opt_arg "a folder" "$@"; out=$2; return 2 ;;
	--patches) opt_arg "a patch number" "$@"; upto=$2; return 2 ;;
	--keep) [ $# -ge 2 ] || die "--keep needs a folder (or '')"; keep=$2; keep_set=1; return 2 ;;
	esac
	return 0
}

# bench_needs: the tools and the backend both suites need (vhost-user:
# vhost-device-vsock; vhost-vsock: the kernel's, tests/lib/bench_nested.sh);
# a guest's job may take RXKIT_BENCH_JOB_TIMEOUT seconds (default 1800).
bench_needs()
{
	need "$QEMU" qemu-system-x86
	need gcc gcc
	need cpio cpio
	need gzip gzip
	VIRTIO_JOB_SECS=${RXKIT_BENCH_JOB_TIMEOUT:-1800}
	if [ "$backend" = vhost-vsock ]; then
		bench_nested_needs
		return
	fi
	detect_backend
	[ -z "$BACKEND_SKIP" ] || die "no backend: $BACKEND_SKIP"
}

# bench_settle DEFAULT_PAIRS OUT_NAME KEEP_SUFFIX: after the options: pairs
# checked, ptree (the patched state's tree), out (default
# $RXKIT_OUT/TARGET/OUT_NAME, emptied) and keep (default, when
# KEEP_SUFFIX is not '-': bench/TARGET/DATE-BACKENDKEEP_SUFFIX, BACKEND
# vhost-user or, tests/bench.sh --backend nested, vhost-vsock).
bench_settle()
{
	case "${pairs:=$1}" in
	''|*[!0-9]*|0) die "--pairs needs a positive number, not '$pairs'" ;;
	esac
	case "$upto" in
	'') ptree=patched ;;
	[1-9]|[1-9][0-9]) ptree=patched-$upto ;;
	*) die "--patches takes a patch number, not '$upto'" ;;
	esac
	[ -n "$out" ] || out="$(out_dir "$target")/$2${upto:+-p$upto}"
	[ -n "$keep_set" ] || [ "$3" = - ] ||
		keep="$RXKIT_TOP/bench/$target/$(date -u +%Y-%m-%d)-$backend$3${upto:+-patches-1-$upto}"
	rm -rf "$out"
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
}

# kv_row PREFIX: each line of "key=value ..." words on stdin as the CSV
# row PREFIX,value,value...
kv_row()
{
	awk -v pfx="$1" '{ row = pfx
		for (f = 1; f <= NF; f++) { split($f, v, "="); row = row "," v[2] }
		print row }'
}

# rtt_row LOG: a pinger's line as a row of OUT/rtt.csv, with the pair,
# order and state of the guest running.
rtt_row()
{
	grep -q '^rxkit-bench: ping ' "$1" 2>/dev/null ||
		{ echo "# no ping-pong result in $1"; return 1; }
	sed -n 's/^rxkit-bench: ping //p' "$1" | kv_row "$k,$order,$st" >> "$out/rtt.csv"
}

# bench_environment COMMAND: the lines of OUT/environment that every run
# of the benchmark's suites has (the kernels, backend, accelerator, CPU,
# kit commit, pairs).
bench_environment()
{
	echo "command: $1"
	echo "target: $target"
	echo "baseline: $(cat "$(bench_o baseline)/include/config/kernel.release")"
	echo "patched: $(cat "$(bench_o patched)/include/config/kernel.release")${upto:+ (patches 1-$upto of the posting)}"
	echo "backend: $BACKEND"
	echo "accelerator: $accel"
	echo "host cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) cores)"
	echo "kit: $(git -C "$RXKIT_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "pairs: $pairs"
}

# bench_start: once both states' initramfs are made, the accelerator, the
# host's tools, the run folder, and the cleanup of the guests, daemons and
# senders the run starts.
bench_start()
{
	accel=$(pick_accel "$(bench_o baseline)/arch/x86/boot/bzImage" "$out/baseline/initrd.cpio.gz" \
		"$out/accel-probe")
	art_tools="$out/baseline/tools/rxkit"
	run=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-bench.XXXXXX")
	daemon_pid=
	host_pid=
	guest_pid=
	qemu_pidfile=
	trap cleanup EXIT
	trap 'exit 130' INT TERM
}

# tree_of STATE: the tree of a state (patched: patched-N with --patches).
tree_of() { [ "$1" = patched ] && echo "$ptree" || echo "$1"; }
# bench_o STATE: the guest flavour's build folder of STATE's tree (the
# flavour carries the counters' kprobe events: kconfig/bench-probes.config).
bench_o() { printf '%s/%s/o-guest\n' "$(src_root "$target")" "$(tree_of "$1")"; }

# state_setup TREE [insn]: the kernel of TREE and its initramfs,
# $out/TREE[-insn]/initrd.cpio.gz, with rxkit-bench, the counters and the
# points in it (the instructions pass: no ping-pongs).
state_setup()
{
	local s o a
	s="$(src_root "$target")/$(tree_of "$1")"
	o=$(bench_o "$1")
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		die "no $1 kernel; run:${upto:+ ci/prepare --upto $upto $target;} ci/build --tree $(tree_of "$1") $target"
	a="$out/$1${2:+-$2}"
	mkdir -p "$a/tools/rxkit"
	gcc -static -O2 -Wall -I"$o/usr/include" -o "$a/tools/rxkit/rxkit-bench" \
		"$RXKIT_TOP/tests/bench/rxkit-bench.c" > "$a/bench-build.log" 2>&1 ||
		{ cat "$a/bench-build.log" >&2; die "building tests/bench/rxkit-bench.c failed"; }
	cp "$RXKIT_TOP/tests/guest/bench-counters" "$RXKIT_TOP/tests/guest/bench-irq" \
		"$RXKIT_TOP/tests/guest/bench-trace" "$a/tools/rxkit/"
	printf 'BENCH_PORT=%s\nBENCH_RX_CPU=0\nBENCH_IRQ_CPU=1\nBENCH_POINTS="%s"\n' \
		"$PORT" "$points" > "$a/tools/rxkit/bench.env"
	printf 'BENCH_RTT_PORT=%s\nBENCH_RTT="%s"\nBENCH_SLOW="%s"\n' "$RTT_PORT" \
		"$([ -n "${2:-}" ] || for p in $rtts; do printf '%s ' "${p%%:*}"; done)" \
		"${slow:-}" >> "$a/tools/rxkit/bench.env"
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
		rtt_row "$1/ping-$i.log" || return 1
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

# per_packet TREE COLUMN: COLUMN's count over the RW packets' (-1: none).
per_packet()
{
	awk -F, -v t="$1" -v c="$2" 'NR > 1 && $3 == t && $5 == 64 && $6 == "64K" {
		n += $15; v += $(c) } END { printf "%.3f\n", n ? v / n : -1 }' "$out/samples.csv"
}
