#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/bench_tools.sh: the tools of the benchmark suite on this machine:
# the A/B statistics (bench/src/rxkit-stats.c) unit-tested and run on a
# case computed by hand; the receiver, sender and ping-pong
# (bench/src/rxkit-bench.c) over a Unix socket (the suite's reference
# row), counting and checking every byte; the TCG plugin (bench/mkplugin)
# in a QEMU; the kit's C checkpatch --strict clean.  KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=bench_tools
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/bench/lib/bench_tools.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="build unit cli_example cli_lower_is_better cli_refusals rx_counts rx_detects_corruption tx_retries slow_reader cycles ping_pong insn_plugin checkpatch"
readonly TEST_DESCS="rxkit-stats and rxkit-bench build with -Wall -Wextra -Werror:\
rxkit-stats --self-test passes, its tests as subtests:\
rxkit-stats gives the result bench/fixtures/bench-stats computes by hand, and inconclusive where the interval holds 0:\
rxkit-stats -l (lower is better) calls the same rise worse and its rises losses:\
rxkit-stats refuses too few pairs and bad lines with exit 2, saying why:\
rxkit-bench rx checks every byte and counts recv() as the cover letter does, a slow reader too:\
a stream with a wrong byte (found at its offset) or cut short fails the receiver:\
tx -R retries until the receiver listens and gives up after -R seconds with nobody there:\
the slow reader marks its progress and sleeps in its slow phase alone, the sender paces its writes:\
rx -C counts CPU 0's cycles where a counter exists and says why not where none does:\
ping-pong checks every echo and reports count, mean, median and p99:\
the TCG plugin (bench/mkplugin) counts each vCPU's instructions between the host's marks and between a guest's (a boot sector's loop of 100000, exact), and QEMU given it without arguments does not start:\
bench/src/*.c, tests/rxkit-vsock.c and tests/sockmap/*.[ch] are checkpatch --strict clean"
readonly FIX="$RXKIT_TOP/bench/fixtures/bench-stats"

usage()
{
	cat <<USAGE
usage: bench/bench_tools.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The tools of the benchmark suite.  checkpatch is TARGET's (default:
$RXKIT_TARGET; ci/fetch must have fetched it): scripts/checkpatch.pl
--strict of bench/src/*.c, tests/rxkit-vsock.c and tests/sockmap/*.[ch].

-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test; those of rxkit-stats
         and rxkit-bench need build before them: -t build too)
-T NAME  do not run NAME (may repeat)
USAGE
}
parse_stage_args 'tests' "$@"
: "${target:=$RXKIT_TARGET}"
load_base "$target"
need gcc gcc
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-bench-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stats="$work/rxkit-stats"
bench="$work/rxkit-bench"

# need_stats, need_bench: the tool, built by the build test.
need_stats()
{
	[ -x "$stats" ] && return 0
	SKIP_REASON="rxkit-stats did not build"
	return "$KSFT_SKIP"
}
need_bench()
{
	[ -x "$bench" ] && return 0
	SKIP_REASON="rxkit-bench did not build"
	return "$KSFT_SKIP"
}

test_build()
{
	local t rc=0
	for t in rxkit-stats rxkit-bench; do
		gcc -O2 -Wall -Wextra -Werror -o "$work/$t" "$RXKIT_TOP/bench/src/$t.c" -lm \
			> "$work/build.log" 2>&1 || { sed 's/^/# /' "$work/build.log"; rc=1; }
	done
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# The unit tests of the C (its --self-test, KTAP), as subtests.
test_unit()
{
	local rc=0
	need_stats || return $?
	"$stats" --self-test > "$work/unit.ktap" || rc=$?
	sed 's/^/    /' "$work/unit.ktap"
	grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' "$work/unit.ktap" ||
		{ echo "# the self-test passed no test, or failed one"; rc=1; }
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# bench/fixtures/bench-stats/pairs computes its result by hand; then r = ln 1.1,
# ln 0.9, 0: mean -0.00335, sd 0.100377, half width 4.303 * sd / sqrt(3), ci95
# -22.33%,+27.89%: inconclusive; a win, a loss, a tie: N = 2, p = min(1, 6/4).
test_cli_example()
{
	need_stats || return $?
	"$stats" "$FIX/pairs" > "$work/out" || { echo "# rxkit-stats failed"; return "$KSFT_FAIL"; }
	sed 's/^/# /' "$work/out"
	diff -u "$FIX/expected" "$work/out" > "$work/diff" || { sed 's/^/# /' "$work/diff"; return "$KSFT_FAIL"; }
	printf 'AB 100 110\nBA 100 90\nAB 100 100\n' | "$stats" > "$work/out" || return "$KSFT_FAIL"
	grep -q '^change=-0.33% ci95=-22.33%,+27.89% .* verdict=inconclusive wins=1/2 sign_p=1$' "$work/out" ||
		{ sed 's/^/# /' "$work/out"; return "$KSFT_FAIL"; }
}

# -l: the same rise is worse, 0 wins of 4 (p = 2/2^4); halvings win (2/2^2).
test_cli_lower_is_better()
{
	need_stats || return $?
	"$stats" -l "$FIX/pairs" > "$work/out" || return "$KSFT_FAIL"
	grep -q ' verdict=worse wins=0/4 sign_p=0.125$' "$work/out" || { sed 's/^/# /' "$work/out"; return "$KSFT_FAIL"; }
	printf 'AB 10 5\nBA 10 5\n' | "$stats" -l > "$work/out" || return "$KSFT_FAIL"
	grep -q '^change=-50.00% ci95=-50.00%,-50.00% .* verdict=better wins=2/2 sign_p=0.5$' "$work/out" ||
		{ sed 's/^/# /' "$work/out"; return "$KSFT_FAIL"; }
}

# expect_refusal INPUT PATTERN: rxkit-stats exits 2 saying PATTERN.
expect_refusal()
{
	local rc=0
	printf "$1" | "$stats" > "$work/out" 2> "$work/err" || rc=$?
	if [ "$rc" != 2 ] || ! grep -q "$2" "$work/err"; then
		echo "# input '$1': exit $rc, not 2 with '$2':"
		sed 's/^/#   /' "$work/err"
		return 1
	fi
	echo "# refused: $(cat "$work/err")"
}

test_cli_refusals()
{
	local rc=0
	need_stats || return $?
	expect_refusal 'AB 1 2\n' '1 pairs: at least 2 are needed' || rc=1
	expect_refusal 'AB 1 2\nXY 1 2\n' 'line 2: want' || rc=1
	expect_refusal 'AB 1 2\nBA 0 2\n' 'line 2: want .* positive' || rc=1
	expect_refusal '# nothing\n' '0 pairs' || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# rx_line ADDR RXOPTS -- TX...: rxkit-bench rx on ADDR (a Unix socket of
# the work folder) and the sender TX... once it listens; the receiver's
# result line in $work/rx, its exit code returned.
rx_line()
{
	local addr="$1" rxopts="$2" pid rc=0
	shift 3
	rm -f "$work/rx" "$work/rx.out"
	# shellcheck disable=SC2086
	"$bench" rx -t 60 $rxopts "$addr" > "$work/rx.out" 2>&1 &
	pid=$!
	wait_for "$work/rx.out" listening 10 "$pid" || :
	"$@" || echo "# the sender exited $?"
	wait "$pid" || rc=$?
	grep '^rxkit-bench: rx bytes=' "$work/rx.out" > "$work/rx" || sed 's/^/# /' "$work/rx.out"
	sed 's/^/# /' "$work/rx"
	return "$rc"
}

# Every byte arrives, is checked, and recv() is called once a SIZE read
# plus once for EOF (as the cover letter's recv() column counts): 64 KiB in
# 64-byte reads is 1025 calls; a slow reader (-d) gets the same bytes.
test_rx_counts()
{
	local s="unix:$work/rx.sock" rc=0
	need_bench || return $?
	rx_line "$s" "-r 64 -n 64K" -- "$bench" tx -w 64 -n 64K "$s" || rc=1
	grep -q ' bytes=65536 .* recv_calls=1025 errors=0 first_bad=-1 result=ok$' "$work/rx" || rc=1
	rx_line "$s" "-n 8M" -- "$bench" tx -n 8M "$s" || rc=1
	grep -q ' bytes=8388608 .* errors=0 .* result=ok$' "$work/rx" || rc=1
	rx_line "$s" "-r 4K -d 100 -n 1M" -- "$bench" tx -w 4K -n 1M "$s" || rc=1
	grep -q ' bytes=1048576 .* recv_calls=257 errors=0 .* result=ok$' "$work/rx" || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# The slow-reader scenario's options: the reader marks its progress after
# every recv() (-m: "rxkit rx BYTES", the last the whole stream) and sleeps
# only in its slow phase (-S: 20 sleeps of 5 ms here, then none: well under
# the 4 s that 800 sleeps would take); the sender pauses between its
# writes (-p: 100 writes, 2 ms each, at least 200 ms).
test_slow_reader()
{
	local s="unix:$work/rx.sock" rc=0 t0 ms
	need_bench || return $?
	: > "$work/marks"
	t0=$(date +%s%N)
	rx_line "$s" "-r 160 -d 5000 -S 3200 -m $work/marks -n 128000" -- \
		"$bench" tx -w 160 -n 128000 "$s" || rc=1
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# 800 reads of 160 bytes, the first 20 slow: $ms ms; $(wc -l < "$work/marks") marks, the last '$(tail -n 1 "$work/marks")'"
	grep -q ' bytes=128000 .* recv_calls=801 errors=0 .* result=ok$' "$work/rx" || rc=1
	[ "$(wc -l < "$work/marks")" = 800 ] && [ "$(tail -n 1 "$work/marks")" = "rxkit rx 128000" ] || rc=1
	[ "$ms" -ge 100 ] && [ "$ms" -lt 2000 ] || rc=1
	t0=$(date +%s%N)
	rx_line "$s" "-n 16000" -- "$bench" tx -w 160 -p 2000 -n 16000 "$s" || rc=1
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# 100 writes with 2 ms pauses: $ms ms"
	grep -q ' bytes=16000 .* result=ok$' "$work/rx" || rc=1
	[ "$ms" -ge 200 ] || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# cycles: bench/lib/bench_tools.sh.

# A stream with one wrong byte, and one cut short of -n, fail with exit 1;
# the wrong byte is found at its offset.
test_rx_detects_corruption()
{
	local s="unix:$work/rx.sock" rc=0 r=0
	need_bench || return $?
	need python3 python3
	rx_line "$s" "-n 1000" -- python3 -c '
import socket, sys
b = bytearray((i * 7 + 3) % 251 for i in range(1000))
b[700] ^= 1
c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); c.sendall(b); c.close()' "$work/rx.sock" || r=$?
	[ "$r" = 1 ] || { echo "# a corrupt stream: exit $r, not 1"; rc=1; }
	grep -q ' errors=1 first_bad=700 result=fail$' "$work/rx" || rc=1
	r=0
	rx_line "$s" "-n 2000" -- "$bench" tx -n 1000 "$s" || r=$?
	[ "$r" = 1 ] || { echo "# a short stream: exit $r, not 1"; rc=1; }
	grep -q ' bytes=1000 .* errors=0 .* result=fail$' "$work/rx" || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# The sender may start first: -R retries until the receiver listens (the
# host starts each point's sender while the guest readies its receiver);
# with nobody listening it gives up after -R seconds, exit 2.
test_tx_retries()
{
	local s="unix:$work/late.sock" pid rc=0 r=0 t0
	need_bench || return $?
	rm -f "$work/late.sock"
	"$bench" tx -t 60 -R 20 -n 1M "$s" > "$work/tx.out" 2>&1 &
	pid=$!
	sleep 1
	"$bench" rx -t 60 -n 1M "$s" > "$work/rx.out" 2>&1 || rc=1
	wait "$pid" || rc=1
	grep '^rxkit-bench: rx bytes' "$work/rx.out" | sed 's/^/# /'
	grep -q ' bytes=1048576 .* result=ok$' "$work/rx.out" || rc=1
	t0=$(date +%s)
	"$bench" tx -t 60 -R 2 -n 1M "unix:$work/nobody.sock" > "$work/tx.out" 2>&1 || r=$?
	echo "# nobody listening: exit $r after $(( $(date +%s) - t0 )) s: $(cat "$work/tx.out")"
	[ "$r" = 2 ] && [ $(( $(date +%s) - t0 )) -ge 2 ] || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# Every echo checked; the statistics line has count, mean, median, p99.
test_ping_pong()
{
	local s="unix:$work/pp.sock" pid rc=0
	need_bench || return $?
	"$bench" pong -t 60 "$s" > "$work/pong.out" 2>&1 &
	pid=$!
	wait_for "$work/pong.out" listening 10 "$pid" || :
	"$bench" ping -t 60 -s 4K -n 500 "$s" > "$work/ping.out" 2>&1 || rc=1
	wait "$pid" || rc=1
	sed 's/^/# /' "$work/ping.out"
	grep -q '^rxkit-bench: ping count=500 size=4096 mean_us=[0-9.]* median_us=[0-9.]* p99_us=[0-9.]* min_us=[0-9.]* max_us=[0-9.]*$' \
		"$work/ping.out" || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# insn_plugin: bench/lib/bench_tools.sh.

test_checkpatch()
{
	local cp f rc=0
	cp="$(src_root "$target")/pristine/scripts/checkpatch.pl"
	[ -f "$cp" ] || { SKIP_REASON="no fetched $target tree for checkpatch.pl (ci/fetch $target)"; return "$KSFT_SKIP"; }
	need perl perl
	for f in "$RXKIT_TOP"/bench/src/*.c "$RXKIT_TOP/tests/rxkit-vsock.c" \
		"$RXKIT_TOP"/tests/sockmap/*.[ch]; do
		if perl "$cp" --strict --no-tree --no-summary --quiet -f "$f" > "$work/cp" 2>&1; then
			echo "# ${f#"$RXKIT_TOP"/}: clean"
		else
			echo "# ${f#"$RXKIT_TOP"/}:"
			sed 's/^/#   /' "$work/cp"
			rc=1
		fi
	done
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
