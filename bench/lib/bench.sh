# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034,SC2154 # sets virtio_run's kernel, initrd, art; reads the suite's
# The host side of the benchmark's suites, bench/bench.sh (the sweep) and
# bench/bench_slow.sh (the slow reader): their shared options, the
# environment, each state's initramfs (bench/lib/bench_sweep.sh: the
# sweep's guests).  They read the suite's settings (target, out, points,
# rtts, slow, ptree, patches).

# bench_opt ARGS...: the options both suites take (parse_stage_args'
# extra_opt protocol: returns the words used, 0 when none).
pairs=
out=
backend=vhost-user
patches=
keep=
keep_set=
bench_opt()
{
	case "$1" in
	--pairs) opt_arg "a number" "$@"; pairs=$2; return 2 ;;
	--out) opt_arg "a folder" "$@"; out=$2; return 2 ;;
	--patches) opt_arg "a patch number" "$@"; patches=$2; return 2 ;;
	--keep) [ $# -ge 2 ] || die "--keep needs a folder (or '')"; keep=$2; keep_set=1; return 2 ;;
	esac
	return 0
}

# bench_needs: the tools and the backend both suites need (vhost-user:
# vhost-device-vsock; vhost-vsock: the kernel's, bench/lib/bench_nested.sh);
# a guest's job may take the limit bench-job of tests/data/limits.
bench_needs()
{
	need "$QEMU" qemu-system-x86
	need gcc gcc
	need cpio cpio
	need gzip gzip
	VIRTIO_JOB_SECS=$(limit bench-job) || exit 2
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
# KEEP_SUFFIX is not '-': bench/runs/TARGET/DATE-BACKENDKEEP_SUFFIX, BACKEND
# vhost-user or, bench/bench.sh --backend nested, vhost-vsock).
bench_settle()
{
	case "${pairs:=$1}" in
	''|*[!0-9]*|0) die "--pairs needs a positive number, not '$pairs'" ;;
	esac
	case "$patches" in
	'') ptree=patched ;;
	[1-9]|[1-9][0-9]) ptree=patched-$patches ;;
	*) die "--patches takes a patch number, not '$patches'" ;;
	esac
	[ -n "$out" ] || out="$(out_dir "$target")/$2${patches:+-p$patches}"
	[ -n "$keep_set" ] || [ "$3" = - ] ||
		keep="$RXKIT_TOP/bench/runs/$target/$(date -u +%Y-%m-%d)-$backend$3${patches:+-patches-1-$patches}"
	# A reference run names the kit's commit: a dirty tree has none.
	[ -z "$keep" ] || git -C "$RXKIT_TOP" diff --quiet HEAD -- 2>/dev/null ||
		die "the kit's tree has uncommitted changes, and a kept run must name its commit; run: git commit (or --keep '' to keep nothing)"
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
	echo "patched: $(cat "$(bench_o patched)/include/config/kernel.release")${patches:+ (patches 1-$patches of the posting)}"
	echo "backend: $BACKEND"
	echo "accelerator: $accel"
	echo "host cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) cores)"
	echo "host load: $(cut -d' ' -f1-3 /proc/loadavg) (each guest's: guests.csv)"
	echo "qemu: $("$QEMU" --version | head -n 1)"
	echo "compiler: $(gcc --version | head -n 1)"
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

# state_setup TREE PASS: the kernel of TREE and its initramfs for PASS,
# $out/TREE[-PASS]/initrd.cpio.gz (plain: none), with rxkit-bench, the
# counters and the points in it; the probes passes set the counters'
# probes (BENCH_PROBES=1), and only the plain pass has the ping-pongs.
state_setup()
{
	local o a
	o=$(bench_o "$1")
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		die "no $1 kernel; run:${patches:+ ci/prepare --patches $patches $target;} ci/build --tree $(tree_of "$1") $target"
	a="$out/$1$(pass_suffix "$2")"
	mkdir -p "$a/tools/rxkit"
	gcc -static -O2 -Wall -I"$o/usr/include" -o "$a/tools/rxkit/rxkit-bench" \
		"$RXKIT_TOP/bench/src/rxkit-bench.c" > "$a/bench-build.log" 2>&1 ||
		{ cat "$a/bench-build.log" >&2; die "building bench/src/rxkit-bench.c failed"; }
	cp "$RXKIT_TOP/bench/guest/bench-counters" "$RXKIT_TOP/bench/guest/bench-irq" \
		"$RXKIT_TOP/bench/guest/bench-trace" "$a/tools/rxkit/"
	printf 'BENCH_PORT=%s\nBENCH_RX_CPU=0\nBENCH_IRQ_CPU=1\nBENCH_POINTS="%s"\n' \
		"$PORT" "$points" > "$a/tools/rxkit/bench.env"
	printf 'BENCH_RTT_PORT=%s\nBENCH_RTT="%s"\nBENCH_SLOW="%s"\nBENCH_PROBES=%s\n' "$RTT_PORT" \
		"$([ "$2" != plain ] || for p in $rtts; do printf '%s ' "${p%%:*}"; done)" \
		"${slow:-}" "$(case $2 in probes*) echo 1 ;; *) echo 0 ;; esac)" >> "$a/tools/rxkit/bench.env"
	tools_initrd "$o" "$a"
}

# pass_suffix PASS: the suffix of PASS's folders ("" for plain, else -PASS).
pass_suffix() { [ "$1" = plain ] || echo "-$1"; }
# csv_of PASS: the file of PASS's rows in $out.
csv_of()
{
	case "$1" in
	plain) echo samples.csv ;;
	*) echo "$1.csv" ;;
	esac
}
