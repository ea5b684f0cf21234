# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# bench/lib/bench_report.sh: the tests of bench/bench_report.sh of the
# sweep's own code on made-up rows: the order of points (order_check),
# the nested host's samples (l1_rows' table), this machine's samples of
# L1 (host_rows), the chosen payloads (sweep_points).  Sourced by
# bench/bench_report.sh after bench/lib/bench_sweep.sh and
# bench_nested.sh; uses its work, stats, report, expect and row.
# shellcheck disable=SC2034,SC2154 # the suite's work and FIX; sweep globals set for the code under test

# ordered_run DIR [SEED]: a made-up run of two pairs and the control over
# three points, each guest warmed up, a pair's guests in point_order's
# order of the pair (SEED: of that one for both pairs), the control's in
# the file's.
ordered_run()
{
	local k st pass gp i p
	points="64:1M:64K 4K:1M:64K 64K:1M:64K"
	mkdir -p "$1"
	echo "pair,order,tree,pass,probes,boot_id,guest_load,host_load,seconds,warmup" > "$1/guests.csv"
	for pass in samples insn probes; do
		head -n 1 "$FIX/samples.csv" > "$1/$pass.csv"
	done
	for k in 1 2 control; do
		gp=$points
		[ "$k" = control ] || gp=$(point_order "${2:-$k}")
		for st in baseline patched; do
			for pass in $([ "$k" = control ] && echo probes || echo "samples insn"); do
				echo "$k,AB,$st,$pass,0,b,0/0/0,0,1,ok" >> "$1/guests.csv"
				i=1
				for p in $gp; do
					echo "$k,AB,$st,$i,${p%%:*},${p##*:},1048576,1,0,0,0,0,-1,ok" >> "$1/$pass.csv"
					i=$((i + 1))
				done
			done
		done
	done
}

# order_rejects NAME WHY EDIT [SEED]: order_check refuses the made-up run
# after EDIT (a command run in its folder) with a line matching WHY.
order_rejects()
{
	ordered_run "$work/$1" "${4:-}"
	(cd "$work/$1" && $3)
	order_check 3 "$work/$1/guests.csv" "$work/$1"/samples.csv "$work/$1"/insn.csv \
		"$work/$1"/probes.csv > "$work/$1.out" &&
		{ echo "# $1: accepted"; return 1; }
	expect "$work/$1.out" "$1" "$2"
}

# The wrong sweeps, each an edit of a good run's rows.
edit() { sed -i "$2" "$1"; }
no_warmup() { edit guests.csv '2s/,ok$/,/'; }
failed_warmup() { edit guests.csv '/^2,AB,patched,insn,/s/,ok$/,bad/'; }
# pair 1's baseline: place 2 the payload of place 1.
twice()
{
	awk -F, -v OFS=, '$1 == 1 && $3 == "baseline" { if ($4 == 1) p = $5; if ($4 == 2) $5 = p } 1' \
		samples.csv > s && mv s samples.csv
}
missing() { edit insn.csv '/^2,AB,patched,3,/d'; }
# pair 1's patched guest, places 1 and 2 swapped.
state_order() { edit insn.csv 's/^1,AB,patched,1,/x/; s/^1,AB,patched,2,/1,AB,patched,1,/; s/^x/1,AB,patched,2,/'; }

test_points_ordered()
{
	local rc=0
	ordered_run "$work/ordered"
	order_check 3 "$work/ordered/guests.csv" "$work/ordered"/samples.csv \
		"$work/ordered"/insn.csv "$work/ordered"/probes.csv || { echo "# a good run refused"; rc=1; }
	order_rejects no_warmup '^# guest 1 baseline samples: no warm-up first (none)' no_warmup || rc=1
	order_rejects failed_warmup '^# guest 2 patched insn: no warm-up first (bad)' failed_warmup || rc=1
	order_rejects twice '^# 1 baseline .*samples.csv: [0-9K]*/64K twice' twice || rc=1
	order_rejects missing '^# 2 patched .*insn.csv: 2 points, not 3' missing || rc=1
	order_rejects state_order '^# 1 patched .*insn.csv: another order than its pair' state_order || rc=1
	order_rejects one_order '^# all 2 pairs in one order' : 1 || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

test_l1_placement()
{
	local rc=0
	# Pair 1's baseline: two points of 10 s (the warm-up's huge counts
	# must not show); vCPU 0 busy 5 s a point, vCPU 1 10 s, on one L1 CPU
	# at the second point; the vhost worker 2 s; L1's CPUs 8 s and 9 s.
	report l1 "{ echo pair,order,tree,pass,place,seconds,host_load,what,id,cpu,busy_s
		for i in 0 1 2; do
			b=\$(( i ? 1 : 1000 ))
			echo 1,AB,baseline,plain,\$i,10,\$(( i + 1 )).50,CPU_0/TCG,7,0,\$(( 5 * b ))
			echo 1,AB,baseline,plain,\$i,10,\$(( i + 1 )).50,CPU_1/TCG,8,\$(( i == 1 )),\$(( 10 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,vhost-6,9,1,\$(( 2 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,cpu0,-,0,\$(( 8 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,cpu1,-,1,\$(( 9 * b ))
		done; } > l1.csv" || return "$KSFT_FAIL"
	expect "$work/l1.md" "the table" '^## Where the nested host ran each guest' || rc=1
	expect "$work/l1.md" "L1's CPUs" 'L1 has 2 CPUs' || rc=1
	expect "$work/l1.md" "the guest's row" '^| 1 | baseline | plain | 20.0 | 3.50 | 50% | 100% | 20% | 85% | 1/2 |$' || rc=1
	report fix || return "$KSFT_FAIL"
	! grep -q '^## Where the nested host' "$work/fix.md" || { echo "# a table without l1.csv"; rc=1; }
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# test_host_placement: host_rows on made-up host_sampler lines (USER_HZ
# 100): in three seconds vCPU 0 busy on CPUs 0, 1, 1 and vCPU 1 on 0, 1,
# 0, so on one CPU in the first two and apart in the third; QEMU's main
# thread left out.
test_host_placement()
{
	local rc=0
	printf '%s\n' "100 7 0 0 qemu-system-x86" "100 8 0 0 CPU_0/TCG" "100 9 1 0 CPU_1/TCG" \
		"101 7 1 900 qemu-system-x86" "101 8 0 100 CPU_0/TCG" "101 9 0 50 CPU_1/TCG" \
		"102 8 1 200 CPU_0/TCG" "102 9 1 150 CPU_1/TCG" \
		"103 8 1 300 CPU_0/TCG" "103 9 0 250 CPU_1/TCG" > "$work/host.log"
	(k=2 order=BA st=patched pass=insn; host_rows "$work/host.log") > "$work/host.rows" ||
		{ echo "# host_rows failed"; rc=1; }
	printf '%s\n' "2,BA,patched,insn,CPU_0/TCG,3,3,3.00,0:33 1:67,1,67" \
		"2,BA,patched,insn,CPU_1/TCG,3,3,2.50,0:67 1:33,3,67" | diff - "$work/host.rows" |
		sed 's/^/# /' | grep . && rc=1
	: > "$work/empty.log"
	(k=1 order=AB st=baseline pass=plain; host_rows "$work/empty.log") && { echo "# rows without samples"; rc=1; }
	report host "{ echo pair,order,tree,pass,thread,seconds,busy_samples,busy_s,cpus,moves,shared_pct
		cat '$work/host.rows'; } > host.csv" || return "$KSFT_FAIL"
	expect "$work/host.md" "the table" "^## Where this machine ran the nested host's vCPUs" || rc=1
	expect "$work/host.md" "vCPU 1's row" '^| 2 | patched | insn | 3 | CPU 1/TCG | 3 | 2.50 | 0:67 1:33 | 3 | 67% |$' || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# test_payloads_chosen: bench.sh's --payloads (sweep_points) and the
# report of a sweep of one payload.
test_payloads_chosen()
{
	local rc=0 pts=
	pts=$(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 4 64) || rc=1
	[ "$pts" = "64:256K:64K 64:256K:64 " ] || { echo "# --payloads 64: '$pts'"; rc=1; }
	pts=$(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 2 4K,64K) || rc=1
	[ "$pts" = "4K:128M:64K 4K:128M:4K 64K:128M:64K " ] || { echo "# --payloads 4K,64K: '$pts'"; rc=1; }
	(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 4 512) \
		> /dev/null 2> "$work/payloads.err" && { echo "# 512 accepted for the nested sweep"; rc=1; }
	expect "$work/payloads.err" "the refusal" \
		"error: --payloads: this sweep has no payload '512' .*; run: --payloads with some of: 64,256,1K,4K,64K$" || rc=1
	report one "for f in samples.csv probes.csv; do awk -F, 'NR == 1 || \$5 == 64' \$f > x && mv x \$f; done" ||
		{ sed 's/^/# /' "$work/one.err"; return "$KSFT_FAIL"; }
	row "$work/one.md" 64 | grep -q '^| 64 | ' || { echo "# no 64B row"; rc=1; }
	row "$work/one.md" 4K | grep -q . && { echo "# a 4K row in a 64B sweep"; rc=1; }
	sed -n '/^## Per received RW packet/,/^## /p' "$work/one.md" | grep -q '^| 64 | baseline | [0-9]' ||
		{ echo "# no counter row at 64B"; rc=1; }
	return "$rc"
}
