# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/sockmap.sh, sourced by tests/vsock_sockmap.sh: the verdicts of
# its guest jobs of tests/sockmap/rxkit-sockmap.c, from their protocol
# logs: the cases as subtests with the known defects (tests/lib/known.sh)
# and the RX batches that ran beside them.
# The suite's state (art, tree, target, release, RUN_KNOWN):
# shellcheck disable=SC2154

# excused [--ran] LOG RAW KTAP [LIST]: RAW's cases into KTAP, each
# failure that LOG shows as a known defect of LIST (known_defects; default
# tests/data/sockmap-defects) as XFAIL, none with --run-known-defects;
# false when known_defects refused.
excused()
{
	local ran=
	[ "$1" != --ran ] || { ran=$1; shift; }
	if [ "$RUN_KNOWN" = 1 ]; then
		cp "$2" "$3"
	else
		known_defects ${ran:+"$ran"} "$1" "$2" "$tree" "$target" ${4:+"$4"} > "$3"
	fi
}

# handoff_cases JOB [--ran]: the harness's cases of JOB's guest run as
# subtests, a known defect's failure as XFAIL (tests/data/sockmap-defects;
# not with --run-known-defects); KSFT_FAIL when one failed otherwise, none
# ran, a listed defect names no case (with --ran, for a job of some of the
# cases: none that ran), or the guest ran another kernel.
handoff_cases()
{
	local d="$art/$1" ok=0 bad=0 xf=0 got= rc=0
	sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$d/results.log" > "$d/job.log"
	ktap_from_harness "$d/job.log" > "$d/cases.raw"
	excused ${2:+"$2"} "$d/job.log" "$d/cases.raw" "$d/cases.ktap" || rc=$KSFT_FAIL
	cat "$d/cases.ktap"
	ok=$(grep -c '^    ok ' "$d/cases.ktap" || true)
	xf=$(grep -c '^    ok .* # XFAIL ' "$d/cases.ktap" || true)
	bad=$(grep -c '^    not ok ' "$d/cases.ktap" || true)
	echo "# $1: $((ok - xf)) cases passed or skipped, $xf failed as known defects (XFAIL), $bad failed"
	got=$(sed -n 's/^RXKIT: init //p' "$d/results.log" | tr -d '\r')
	if [ -n "$got" ] && [ "$got" != "$release" ]; then
		echo "# uname -r is '$got', built '$release'"
		rc=$KSFT_FAIL
	fi
	if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
		echo "# $1: no case ran"
		rc=$KSFT_FAIL
	fi
	[ "$bad" -eq 0 ] || rc=$KSFT_FAIL
	return "$rc"
}

# rx_batches LOG: the RX batches beside the cases (the job's
# "rxkit-batches:" line, tests/guest/jobs/sockmap_virtio): where the series
# batches, one of two or more packets must have held the socket lock
# during the flows; false when none did or the guest counted nothing.
rx_batches()
{
	local l= p= b= big=0 n=
	l=$(tr -d '\r' < "$1" | sed -n 's/^rxkit-batches: //p' | tail -n 1)
	if [ -z "$l" ]; then
		echo "# no rxkit-batches line from the guest (tracefs and kprobe events: kconfig/bench-probes.config)"
		return 1
	fi
	p=${l#packets=}
	p=${p%% *}
	b=${l#*batches=}
	case "$b" in
	-) echo "# RX worker: $p RW packets; this tree has no RX batching (no virtio_transport_rx_batch_finish())"
	   return 0 ;;
	none) echo "# RX worker: $p RW packets, and no RX batch held a socket lock"
	   return 1 ;;
	esac
	for n in $(echo "$b" | tr ',' ' '); do
		[ "${n%%:*}" -lt 2 ] || big=$((big + ${n#*:}))
	done
	echo "# RX worker: $p RW packets; batches that held a socket lock, packets:count, $b"
	[ "$big" -gt 0 ] || { echo "# no RX batch of two or more packets ran beside the hand-off"; return 1; }
}
