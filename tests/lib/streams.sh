# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The result lines of the data mover (tests/rxkit-vsock.c), one a stream:
#   rxkit-vsock: MODE [shape=NAME] stream=S bytes=N expected=N errors=E
#                first_bad=OFF ms=T mibps=R result=ok|fail|sent [end=...]
# checked stream by stream, as diagnostics.  Sourced by tests/lib.sh.

# result_field LINE KEY: the value of KEY=value in a rxkit-vsock result line.
result_field()
{
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# check_streams FILE MODE N BYTES WHO: FILE holds N rxkit-vsock "MODE"
# lines, one a stream id 0..N-1, each with BYTES bytes and result=ok
# (receiver: every byte checked) or result=sent (sender); prints their
# numbers as diagnostics (WHO: guest or host).
check_streams()
{
	local lines= ok=0 ids= ms=0 l= id= result= bytes= m= want= got=
	lines=$(tr -d '\r' < "$1" | grep "^rxkit-vsock: $2 .*stream=" || true)
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		id=$(result_field "$l" stream)
		result=$(result_field "$l" result)
		bytes=$(result_field "$l" bytes)
		m=$(result_field "$l" ms)
		if [ "$result" = sent ]; then
			echo "# $5 stream $id: sent $bytes bytes in $m ms, $(result_field "$l" mibps) MiB/s"
		else
			echo "# $5 stream $id: $bytes of $(result_field "$l" expected) bytes, $(result_field "$l" errors) bad (first at $(result_field "$l" first_bad)), $m ms, $(result_field "$l" mibps) MiB/s: $result"
		fi
		case "$result" in
		ok|sent) [ "$bytes" != "$4" ] || { ok=$((ok + 1)); ids="$ids $id"; } ;;
		esac
		[ -z "$m" ] || [ "$m" -le "$ms" ] || ms=$m
	done <<EOF
$lines
EOF
	want=$(awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf " %d", i }')
	# shellcheck disable=SC2086
	got=$(printf '%s\n' $ids | sort -n | awk 'NF { printf " %s", $1 }')
	if [ "$ok" != "$3" ] || [ "$got" != "$want" ]; then
		echo "# $5: $ok of $3 streams complete (ids:${got:- none}, expected$want)"
		return 1
	fi
	if [ "$3" -gt 1 ]; then
		echo "# $5: $3 streams, $(awk -v n="$3" -v b="$4" -v ms="$ms" 'BEGIN { printf "%.1f", ms ? n * b / 1048576 / (ms / 1000) : 0 }') MiB/s aggregate"
	fi
}

bytes_of()
{
	awk -v s="$1" 'BEGIN {
		n = s + 0; u = substr(s, length(s))
		if (u == "K") n *= 1024; else if (u == "M") n *= 1048576
		else if (u == "G") n *= 1073741824
		printf "%d\n", n }'
}

# check_prefix FILE SHAPE N SENT: N receiver lines of SHAPE, each a correct
# prefix (result=ok under -p) of at most SENT bytes that ended in EOF or a
# reset.
check_prefix()
{
	local lines= ok=0 l=
	lines=$(tr -d '\r' < "$1" | grep "^rxkit-vsock: recv shape=$2 stream=" || true)
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		echo "# guest $2 stream $(result_field "$l" stream): $(result_field "$l" bytes) of $4 sent bytes, end=$(result_field "$l" end), $(result_field "$l" errors) bad: $(result_field "$l" result)"
		[ "$(result_field "$l" result)" = ok ] && [ "$(result_field "$l" bytes)" -le "$4" ] &&
			ok=$((ok + 1))
	done <<EOF
$lines
EOF
	[ "$ok" = "$3" ] || { echo "# guest $2: $ok of $3 streams a correct prefix"; return 1; }
}
