#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_sockmap.sh: a vsock stream socket handed to a BPF sockmap and
# back while records flow, over the loopback transport in a QEMU guest of
# a kit-built kernel (tests/rxkit-sockmap.c: issue 14's hand-off test).
# KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=vsock_sockmap
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="checkpatch sockmap_loopback bpf_selftests"
readonly TESTS="${RXKIT_SOCKMAP_TESTS:-$ALL_TESTS}"
# The loop's size in the guest (tests/rxkit-sockmap.c; empty: its own
# defaults, 12 rounds of 60 ms phases).
readonly ROUNDS="${RXKIT_SOCKMAP_ROUNDS:-}"
readonly PHASE_MS="${RXKIT_SOCKMAP_MS:-}"

usage()
{
	cat <<USAGE
usage: tests/vsock_sockmap.sh [--tree patched|baseline] [--flavour NAME] [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) built
with FLAVOUR (default: bpf, kconfig/flavours/bpf) and run:
  checkpatch        scripts/checkpatch.pl --strict of tests/rxkit-sockmap.c
  sockmap_loopback  tests/rxkit-sockmap.c over the loopback transport (its
                    cases as subtests; SKIP when the kernel has no BPF_SYSCALL)
  bpf_selftests     the vsock cases of the kernel's own BPF selftests
                    (test_progs of the tree, tests/mkbpftests; the cases:
                    tests/data/bpf-selftests), each a subtest
Artefacts (serial logs, protocol logs, KTAP, results.json, reproducer.sh):
\$RXKIT_OUT/TARGET/TREE-FLAVOUR/sockmap/ (TREE/ for the guest flavour)
Environment: RXKIT_ACCEL=auto|kvm|tcg, RXKIT_BOOT_TIMEOUT, RXKIT_JOB_TIMEOUT,
  RXKIT_SOCKMAP_TESTS="NAME..." (a subset of the tests above),
  RXKIT_SOCKMAP_ROUNDS, RXKIT_SOCKMAP_MS (the loop's rounds and phase length).
USAGE
}

# The bpf flavour unless --flavour says otherwise (the last one counts).
guest_test_setup --flavour bpf "$@"
check_subset RXKIT_SOCKMAP_TESTS
for v in "$ROUNDS" "$PHASE_MS"; do
	case "$v" in
	*[!0-9]*) die "RXKIT_SOCKMAP_ROUNDS and RXKIT_SOCKMAP_MS must be numbers" ;;
	esac
done
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
	elif [ -z "$("$RXKIT_TOP/tests/mkbpftests" --cases "$src" "$o")" ]; then
		bpf_skip="no vsock case of the kernel's BPF selftests applies to $release (tests/data/bpf-selftests)"
	elif d=$("$RXKIT_TOP/tests/mkbpftests" "$src" "$o" 2> "$art/bpf-build.log"); then
		mkdir -p "$art/tools/rxkit/bpf"
		strip -o "$art/tools/rxkit/bpf/test_progs" "$d/test_progs"
		cp "$d/filters" "$d/toolchain" "$art/tools/rxkit/bpf/"
	else
		bpf_failed="tests/mkbpftests failed: $(tail -n 1 "$art/bpf-build.log")"
	fi ;;
esac
tools_initrd "$src" "$o" "$art" rxkit-sockmap
initrd="$art/initrd.cpio.gz"
accel=$(pick_accel "$kernel" "$initrd" "$art/accel-probe")
printf '%s\n' "$accel" > "$art/accel"
results_begin "$art" vsock_sockmap.sh RXKIT_SOCKMAP_TESTS \
	RXKIT_SOCKMAP_ROUNDS RXKIT_SOCKMAP_MS

test_checkpatch()
{
	local cp=
	cp="$(src_root "$target")/pristine/scripts/checkpatch.pl"
	[ -f "$cp" ] || cp="$src/scripts/checkpatch.pl"
	need perl perl
	if perl "$cp" --strict --no-tree --no-summary --quiet \
		-f "$RXKIT_TOP/tests/rxkit-sockmap.c" > "$art/checkpatch.log" 2>&1; then
		echo "# tests/rxkit-sockmap.c: checkpatch --strict clean ($target's)"
		return "$KSFT_PASS"
	fi
	sed 's/^/# /' "$art/checkpatch.log"
	return "$KSFT_FAIL"
}

# ktap_from_harness LOG: the kselftest harness's KTAP in a job's output as
# indented subtests (its plan, results and diagnostics).
ktap_from_harness()
{
	tr -d '\r' < "$1" | awk '
		/^TAP version/ { on = 1; next }
		on && /^(1\.\.[0-9]+|ok |not ok |# )/ { print "    " $0 }'
}

# ktap_from_test_progs LOG: test_progs' subtest lines ("#N/M test/sub:OK",
# SKIP, FAIL) as indented KTAP subtests, numbered in their order.
ktap_from_test_progs()
{
	tr -d '\r' < "$1" | awk '
		/^#[0-9]+\/[0-9]+ / {
			sub(/^#[0-9]+\/[0-9]+ +/, "")
			st = $0; sub(/.*:/, "", st)
			name = $0; sub(/:[A-Z]+$/, "", name)
			n++
			if (st == "OK") print "    ok " n " " name
			else if (st == "SKIP") print "    ok " n " " name " # SKIP"
			else print "    not ok " n " " name
		}
		END { print "    1.." n+0 }'
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
	ktap_from_test_progs "$art/$job/job.log" | tee "$art/$job/cases.ktap"
	grep '^Summary:' "$art/$job/job.log" | sed 's/^/# test_progs: /' || true
	# Every filter selected a subtest of this tree (the data file is
	# checked against the tree, not trusted).
	while read -r f; do
		n=$(sed -n 's/^    \(not \)\{0,1\}ok [0-9]* //p' "$art/$job/cases.ktap" |
			sed 's/ # SKIP$//' | while read -r name; do
				# shellcheck disable=SC2254
				case "$name" in $f) echo x ;; esac
			done | wc -l)
		echo "# $f: $n subtests"
		[ "$n" -gt 0 ] || rc=$KSFT_FAIL
	done < "$art/tools/rxkit/bpf/filters"
	guest_verdict "$job" "$art/$job" "$grc" "$JOB_TIMEOUT" || rc=$?
	! grep -q '^    not ok ' "$art/$job/cases.ktap" || rc=$KSFT_FAIL
	return "$rc"
}

test_sockmap_loopback()
{
	local job=sockmap_loopback append= got= ok=0 bad=0 grc=0 rc=0
	if [ -n "$bpf_missing" ]; then
		SKIP_REASON=$bpf_missing
		return "$KSFT_SKIP"
	fi
	[ -z "$ROUNDS" ] || append="rxkit.sockmap_rounds=$ROUNDS"
	[ -z "$PHASE_MS" ] || append="${append:+$append }rxkit.sockmap_ms=$PHASE_MS"
	guest_run ${append:+-a "$append"} "$art/$job" "$kernel" "$initrd" \
		"$job" "$accel" || grc=$?
	sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$art/$job/results.log" > "$art/$job/job.log"
	ktap_from_harness "$art/$job/job.log" | tee "$art/$job/cases.ktap"
	ok=$(grep -c '^    ok ' "$art/$job/cases.ktap" || true)
	bad=$(grep -c '^    not ok ' "$art/$job/cases.ktap" || true)
	echo "# $job: $ok cases passed or skipped, $bad failed"
	guest_verdict "$job" "$art/$job" "$grc" "$JOB_TIMEOUT" || rc=$?
	got=$(sed -n 's/^RXKIT: init //p' "$art/$job/results.log" | tr -d '\r')
	if [ -n "$got" ] && [ "$got" != "$release" ]; then
		echo "# uname -r is '$got', built '$release'"
		rc=$KSFT_FAIL
	fi
	if [ "$grc" = 0 ] && [ "$ok" -eq 0 ]; then
		echo "# $job: no case ran"
		rc=$KSFT_FAIL
	fi
	[ "$bad" -eq 0 ] || rc=$KSFT_FAIL
	return "$rc"
}

echo "# $target/$variant: $release, accelerator $accel, artefacts $art"
# shellcheck disable=SC2086
{ rc=0; run_tests $TESTS || rc=$?; echo "$rc" > "$art/rc"; } | tee "$art/results.ktap"
results_end loopback
exit "$(cat "$art/rc")"
