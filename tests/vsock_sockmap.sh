#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_sockmap.sh: a vsock stream socket handed to a BPF sockmap and
# back while records flow, over the loopback transport and through the
# host's virtio device in a QEMU guest of a kit-built kernel
# (tests/sockmap/rxkit-sockmap.c: the sockmap hand-off test), and the vsock cases
# of the kernel's own BPF selftests.
# KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=vsock_sockmap
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"
. "$RXKIT_TOP/tests/lib/sockmap.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="checkpatch sockmap_loopback sockmap_virtio sockmap_nomem bpf_selftests"
readonly TEST_DESCS="scripts/checkpatch.pl --strict of tests/sockmap/*.[ch]:tests/sockmap/rxkit-sockmap.c over the loopback transport, its cases as subtests (SKIP without BPF_SYSCALL):the same through the virtio device and back through rxkit-vsock uds-relay, so the receiver gets the RX worker's batches, and where the series batches one of two or more packets ran beside the cases (tracefs counts; SKIP without the daemon):the kit's read_skb() fix with every allocation under virtio_transport_read_skb() failing for a while, over loopback, no byte lost (patched trees, the bpf flavour's fault injection):the vsock cases of the kernel's own BPF selftests (test_progs, tests/data/bpf-selftests), each a subtest (SKIP without the kernel's BTF)"
readonly GUEST_CID=3
# sockmap_virtio: the guest's sender connects to host port RELAY_PORT;
# rxkit-vsock uds-relay joins it to guest port RELAY_LPORT, where S is.
readonly RELAY_PORT=5300 RELAY_LPORT=5301
# The jobs of tests/sockmap/rxkit-sockmap.c and test_progs (bpf_selftests):
# their exit code 1 is a failed case,
# which handoff_cases and bpf_selftests judge (guest_verdict).
readonly HARNESS_JOBS="sockmap_loopback sockmap_virtio sockmap_nomem bpf_selftests"
# The loop's size in the guest (--rounds, --phase-ms; empty: the defaults
# of tests/sockmap/rxkit-sockmap.c, 12 rounds of 60 ms phases) and
# --run-known-defects (1: a known defect's failure stays a failure).
ROUNDS= PHASE_MS= RUN_KNOWN=0
# The known defects of the BPF selftests' vsock cases (bpf_selftests).
readonly BPF_DEFECTS="$RXKIT_TOP/tests/data/bpf-selftests-defects"

usage()
{
	cat <<USAGE
usage: tests/vsock_sockmap.sh [--tree patched|baseline] [--flavour NAME]
       [--rounds N] [--phase-ms MS] [--run-known-defects]
       [-l] [-t NAME]... [-T NAME]... [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) built
with FLAVOUR (default: guest, which has BPF_SYSCALL; bpf, which also has
the BTF the kernel's BPF selftests need: kconfig/flavours/bpf) and run
its tests (-l lists them; -t NAME runs NAME, -T NAME leaves it out; each
may repeat).
Artefacts (serial logs, protocol logs, KTAP, results.json, reproducer.sh):
\$RXKIT_OUT/TARGET/TREE/sockmap/ (TREE-FLAVOUR/ for another flavour)
--rounds N, --phase-ms MS: the hand-off loop's rounds and phase length
  (default 12 and 60).
--run-known-defects: a case failing as a known defect of
  tests/data/sockmap-defects says is a failure, not XFAIL.
Environment: RXKIT_ACCEL=auto|kvm|tcg.
Limits: boot and job of tests/data/limits.
USAGE
}

# extra_opt ARG...: this suite's options (parse_stage_args).
extra_opt()
{
	case "$1" in
	--rounds|--phase-ms)
		opt_arg "a number" "$@"
		case "$2" in
		''|*[!0-9]*) die "$1 needs a number, not '$2'" ;;
		esac
		if [ "$1" = --rounds ]; then ROUNDS=$2; else PHASE_MS=$2; fi
		return 2 ;;
	--run-known-defects) RUN_KNOWN=1; return 1 ;;
	esac
	return 0
}

guest_test_setup "$@"
art="$(out_dir "$target")/$variant/sockmap"
rm -rf "$art"
mkdir -p "$art"
# The kernel's own reason to skip the guest: no bpf() system call.
bpf_missing=
grep -q '^CONFIG_BPF_SYSCALL=y' "$o/.config" ||
	bpf_missing="the $flavour kernel has no CONFIG_BPF_SYSCALL (the bpf flavour has it: kconfig/bpf.config)"
# The kernel's own selftests (bpf_selftests): test_progs of this tree with
# the vsock cases that apply to it, as /rxkit/bpf/ of the initrd.
bpf_skip= bpf_failed=
case " $TESTS " in
*" bpf_selftests "*)
	if [ -n "$bpf_missing" ]; then
		bpf_skip=$bpf_missing
	elif ! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$o/.config"; then
		bpf_skip="the $flavour kernel has no BTF (CONFIG_DEBUG_INFO_BTF), against which test_progs' programs are built: the bpf flavour has it (kconfig/bpf-selftests.config; make sockmap, make check-full)"
	elif [ -z "$("$RXKIT_TOP/images/mkbpftests" --cases "$src" "$o")" ]; then
		bpf_skip="no vsock case of the kernel's BPF selftests applies to $release (tests/data/bpf-selftests)"
	elif d=$("$RXKIT_TOP/images/mkbpftests" "$src" "$o" 2> "$art/bpf-build.log"); then
		mkdir -p "$art/tools/rxkit/bpf"
		strip -o "$art/tools/rxkit/bpf/test_progs" "$d/test_progs"
		cp "$d/filters" "$d/toolchain" "$art/tools/rxkit/bpf/"
	else
		bpf_failed="images/mkbpftests failed: $(tail -n 1 "$art/bpf-build.log")"
	fi ;;
esac
tools_initrd "$o" "$art" sockmap/rxkit-sockmap
detect_backend
run=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-sm.XXXXXX")
daemon_pid= host_pid= guest_pid= qemu_pidfile= relay_pid=
initrd="$art/initrd.cpio.gz"
accel=$(pick_accel "$kernel" "$initrd" "$art/accel-probe")
printf '%s\n' "$accel" > "$art/accel"
results_begin "$art" vsock_sockmap.sh

test_checkpatch()
{
	local cp=
	cp="$(src_root "$target")/pristine/scripts/checkpatch.pl"
	[ -f "$cp" ] || cp="$src/scripts/checkpatch.pl"
	need perl perl
	if perl "$cp" --strict --no-tree --no-summary --quiet \
		-f "$RXKIT_TOP"/tests/sockmap/*.[ch] > "$art/checkpatch.log" 2>&1; then
		echo "# tests/sockmap/*.[ch]: checkpatch --strict clean ($target's)"
		return "$KSFT_PASS"
	fi
	sed 's/^/# /' "$art/checkpatch.log"
	return "$KSFT_FAIL"
}

test_bpf_selftests()
{
	local job=bpf_selftests grc=0 rc=0 f= n=0
	if [ -n "$bpf_skip" ]; then
		SKIP_REASON=$bpf_skip
		return "$KSFT_SKIP"
	fi
	sed 's/^/# /' "$art/bpf-build.log"
	if [ -n "$bpf_failed" ]; then
		echo "# $bpf_failed"
		return "$KSFT_FAIL"
	fi
	sed 's/^/# toolchain: /' "$art/tools/rxkit/bpf/toolchain"
	guest_run "$art/$job" "$kernel" "$initrd" "$job" "$accel" || grc=$?
	sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$art/$job/results.log" | tr -d '\r' > "$art/$job/job.log"
	ktap_from_test_progs "$art/$job/job.log" > "$art/$job/cases.raw"
	harness_from_test_progs "$art/$job/job.log" > "$art/$job/checks.log"
	excused "$art/$job/checks.log" "$art/$job/cases.raw" "$art/$job/cases.ktap" \
		"$BPF_DEFECTS" || rc=$KSFT_FAIL
	cat "$art/$job/cases.ktap"
	grep '^Summary:' "$art/$job/job.log" | sed 's/^/# test_progs: /' || true
	# Every filter selected a subtest of this tree (the data file is
	# checked against the tree, not trusted).
	while read -r f; do
		n=$(sed -n 's/^    \(not \)\{0,1\}ok [0-9]* //p' "$art/$job/cases.raw" |
			sed 's/ # SKIP$//' | while read -r name; do
				# shellcheck disable=SC2254
				case "$name" in $f) echo x ;; esac
			done | wc -l)
		echo "# $f: $n subtests"
		[ "$n" -gt 0 ] || rc=$KSFT_FAIL
	done < "$art/tools/rxkit/bpf/filters"
	# test_progs exits 1 when a test failed (HARNESS_JOBS): each failed
	# test must have a failed subtest, judged above.
	for f in $(tr -d '\r' < "$art/$job/job.log" | sed -n 's/^#[0-9]* *\([^ /:]*\):FAIL$/\1/p' | sort -u); do
		grep -Eq "^    (not ok [0-9]+ $f/|ok [0-9]+ $f/.* # XFAIL )" "$art/$job/cases.ktap" ||
			{ echo "# $f failed outside its subtests"; rc=$KSFT_FAIL; }
	done
	guest_verdict "$job" "$art/$job" "$grc" "$JOB_TIMEOUT" || rc=$?
	! grep -q '^    not ok ' "$art/$job/cases.ktap" || rc=$KSFT_FAIL
	return "$rc"
}

# The loop's size, on the guest's command line.
handoff_append()
{
	local a=
	[ -z "$ROUNDS" ] || a="rxkit.sockmap_rounds=$ROUNDS"
	[ -z "$PHASE_MS" ] || a="${a:+$a }rxkit.sockmap_ms=$PHASE_MS"
	printf '%s\n' "$a"
}

test_sockmap_loopback()
{
	local job=sockmap_loopback append= grc=0 rc=0
	if [ -n "$bpf_missing" ]; then
		SKIP_REASON=$bpf_missing
		return "$KSFT_SKIP"
	fi
	append=$(handoff_append)
	guest_run ${append:+-a "$append"} "$art/$job" "$kernel" "$initrd" \
		"$job" "$accel" || grc=$?
	handoff_cases "$job" || rc=$?
	guest_verdict "$job" "$art/$job" "$grc" "$JOB_TIMEOUT" || rc=$?
	return "$rc"
}

# The case quiet.partial_head_nomem of tests/sockmap/rxkit-sockmap.c: the pull of the
# kit's fix (series/TARGET/0000-*-skip-the-bytes-already-read-in-read_skb)
# made to fail by the kernel's fault injection (kconfig/fault-inject.config).
test_sockmap_nomem()
{
	local job=sockmap_nomem grc=0 rc=0
	if [ -n "$bpf_missing" ]; then
		SKIP_REASON=$bpf_missing
		return "$KSFT_SKIP"
	fi
	if [ "$tree" != patched ] ||
	   ! ls "$RXKIT_TOP/series/$target"/0000-*-skip-the-bytes-already-read-in-read_skb.patch > /dev/null 2>&1; then
		SKIP_REASON="the $tree tree of $target has no pull in read_skb() to fail (the kit's fix, series/$target/0000-*, is in patched trees)"
		return "$KSFT_SKIP"
	fi
	if ! grep -q '^CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=y' "$o/.config"; then
		SKIP_REASON="the $flavour kernel has no stack-filtered fault injection (the bpf flavour has it: kconfig/fault-inject.config; make sockmap, make check-full)"
		return "$KSFT_SKIP"
	fi
	guest_run "$art/$job" "$kernel" "$initrd" "$job" "$accel" || grc=$?
	handoff_cases "$job" --ran || rc=$?
	guest_verdict "$job" "$art/$job" "$grc" "$JOB_TIMEOUT" || rc=$?
	return "$rc"
}

# The relay of sockmap_virtio, before the guest boots.
relay_start()
{
	"$art/tools/rxkit/rxkit-vsock" uds-relay "$run/vm.vsock" "$RELAY_PORT" \
		"$RELAY_LPORT" > "$1/relay.log" 2>&1 &
	relay_pid=$!
	wait_for "$1/relay.log" '^RXKIT: ready' 10 "$relay_pid"
}

test_sockmap_virtio()
{
	local job=sockmap_virtio rc=0 v=0
	if [ -n "$bpf_missing" ]; then
		SKIP_REASON=$bpf_missing
		return "$KSFT_SKIP"
	fi
	skip_unless_backend sockmap_virtio || return $?
	echo "# backend: $BACKEND; host port $RELAY_PORT relayed to guest port $RELAY_LPORT"
	VIRTIO_APPEND="$(handoff_append) rxkit.sockmap_via=2:$RELAY_PORT:$RELAY_LPORT" \
		VIRTIO_JOB_SECS=$JOB_TIMEOUT virtio_run "$job" relay_start || v=$?
	kill "$relay_pid" 2>/dev/null || true
	wait "$relay_pid" 2>/dev/null || true
	relay_pid=
	sed 's/^/# relay: /' "$art/$job/relay.log"
	handoff_cases "$job" || rc=$?
	rx_batches "$art/$job/job.log" || rc=$KSFT_FAIL
	[ "$v" = 0 ] || rc=$v
	return "$rc"
}

echo "# $target/$variant: $release, accelerator $accel, time scale $(time_scale "$accel"), artefacts $art"
# shellcheck disable=SC2086
{
	trap 'kill $relay_pid 2>/dev/null; cleanup' EXIT
	trap 'exit 130' INT TERM
	rc=0
	run_tests $TESTS || rc=$?
	echo "$rc" > "$art/rc"
} | tee "$art/results.ktap"
results_end loopback
exit "$(cat "$art/rc")"
