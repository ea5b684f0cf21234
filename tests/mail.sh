#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/mail.sh: ci/mail (make mail), the kit's fix and its selftest as a
# series for netdev: what it writes, that it applies to the pristine tree,
# that checkpatch.pl's verdict and a sender netdev cannot answer stop it,
# and that doc/reports/read-skb-fix-netdev.txt is what it writes.  KTAP
# on stdout; exit 0 or 1.
set -eu
PROG=mail.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly TEST_NAMES="writes applies checkpatch_fails refuses_sender report_current"
readonly TEST_DESCS="a cover letter and the patches of ci/mail.d/patches, each with the series' code, the sender's From and Signed-off-by, To and Cc, and nothing of the kit's:git apply --check of the written patches on the whole pristine tree:a patch checkpatch.pl --strict finds fault with stops ci/mail, naming it:a sender in a reserved domain, one not 'Name <address>' and none at all are refused:doc/reports/read-skb-fix-netdev.txt is what ci/mail --report writes"
readonly SENDER='A. Sender <sender@example.org>'
readonly REPORT="$RXKIT_TOP/doc/reports/read-skb-fix-netdev.txt"

usage()
{
	cat <<USAGE
usage: tests/mail.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

$(test_usage)
TARGET   whose series and pristine tree (default $RXKIT_TARGET)
USAGE
}

suite_options "$@"
shift "$SUITE_SHIFT"
target=${1:-$RXKIT_TARGET}
sdir=$(target_dir "$target")
pristine="$(src_root "$target")/pristine"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-mail.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
patches=$(grep -v '^[[:space:]]*\(#\|$\)' "$RXKIT_TOP/ci/mail.d/patches")

# mail DIR [ARG...]: ci/mail's series for the target into DIR (the
# output in DIR.log); its exit status.
mail()
{
	local d="$1"
	shift
	RXKIT_MAINTAINER=${RXKIT_MAINTAINER-$SENDER} "$RXKIT_TOP/ci/mail" -o "$d" "$@" "$target" \
		> "$d.log" 2>&1
}

need_tree()
{
	[ -f "$pristine/scripts/checkpatch.pl" ] && return 0
	SKIP_REASON="no pristine tree of $target; run: ci/prepare $target"
	return 1
}

# code PATCH: the lines its diff removes and adds, file by file (where
# the series has prerequisites in front, line numbers and context differ).
code() { sed -n '/^diff --git /,$p' "$1" | sed '/^-- $/,$d' | grep '^[-+]'; }

test_writes()
{
	local rc="$KSFT_PASS" i=0 p= f=
	need_tree || return "$KSFT_SKIP"
	mail "$work/w" || { sed 's/^/# /' "$work/w.log"; return "$KSFT_FAIL"; }
	grep -q '^Subject: \[PATCH net 0/2\]' "$work/w/0000-cover-letter.patch" ||
		{ echo "# the cover letter is not [PATCH net 0/2]"; rc=$KSFT_FAIL; }
	for p in $patches; do
		i=$((i + 1))
		f=$(ls "$work/w/000$i-"*.patch)
		if [ "$(code "$f")" != "$(code "$sdir/$p")" ]; then
			echo "# ${f##*/}: its code is not series/$target/$p's"
			rc=$KSFT_FAIL
		fi
		if ! grep -q "^From: \"A. Sender\" <sender@example.org>" "$f" ||
		   ! grep -q "^Signed-off-by: $SENDER$" "$f" || ! grep -q '^To: ' "$f" ||
		   ! grep -q '^Cc: ' "$f" || ! sed '/^$/q' "$f" | grep -q 'netdev@vger[.]kernel[.]org'; then
			echo "# ${f##*/}: From:, Signed-off-by:, To: or Cc: (with netdev) not as expected"
			rc=$KSFT_FAIL
		fi
		if sed '/^---$/,$d' "$f" | grep -n 'vsock-rxkit\|[.]invalid\|^Stable-dep-of:'; then
			echo "# ${f##*/}: the kit's own lines are in the message"
			rc=$KSFT_FAIL
		fi
		echo "# ${f##*/}: series/$target/$p"
	done
	return "$rc"
}

test_applies()
{
	local f=
	need_tree || return "$KSFT_SKIP"
	[ -d "$work/w" ] || mail "$work/w" || { sed 's/^/# /' "$work/w.log"; return "$KSFT_FAIL"; }
	for f in "$work"/w/000[1-9]-*.patch; do
		(cd "$pristine" && git apply --check "$f") 2>&1 | sed 's/^/# /'
		(cd "$pristine" && git apply --check "$f") 2> /dev/null || return "$KSFT_FAIL"
		echo "# ${f##*/} applies to $pristine"
	done
}

# kit_copy: what ci/mail reads, in $work/kit.
kit_copy()
{
	rm -rf "$work/kit"
	mkdir -p "$work/kit/series"
	cp -r "$RXKIT_TOP/ci" "$work/kit/ci"
	cp -r "$sdir" "$work/kit/series/$target"
}

# refused WHAT PATTERN: the last ci/mail run failed, saying PATTERN.
refused()
{
	sed 's/^/#   /' "$work/r.log"
	if grep -q "$2" "$work/r.log" && [ ! -e "$work/r" ]; then
		echo "# $1: refused"
		return 0
	fi
	echo "# $1: not refused with '$2', or it wrote the series"
	return 1
}

# The fix without its Signed-off-by: line.
test_checkpatch_fails()
{
	need_tree || return "$KSFT_SKIP"
	kit_copy
	sed -i '/^Signed-off-by: /d' "$work/kit/series/$target/$(echo "$patches" | head -n 1)"
	RXKIT_MAINTAINER=$SENDER "$work/kit/ci/mail" -o "$work/r" "$target" > "$work/r.log" 2>&1 &&
		{ echo "# ci/mail passed a patch without Signed-off-by:"; return "$KSFT_FAIL"; }
	refused "no Signed-off-by:" 'error: checkpatch.pl --strict: 0001-' || return "$KSFT_FAIL"
}

test_refuses_sender()
{
	local rc="$KSFT_PASS" who= want=
	need_tree || return "$KSFT_SKIP"
	while IFS='|' read -r who want; do
		RXKIT_MAINTAINER=$who mail "$work/r" && rc=$KSFT_FAIL
		refused "'$who'" "$want" || rc=$KSFT_FAIL
	done <<EOF
Kit <maintainers@vsock-rxkit.invalid>|a reserved domain, netdev cannot answer it
Kit <kit@host.example>|a reserved domain, netdev cannot answer it
sender@example.org|is not 'Name <address>'
EOF
	# No RXKIT_MAINTAINER and no git identity.
	mkdir -p "$work/home"
	env -u RXKIT_MAINTAINER HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
		"$RXKIT_TOP/ci/mail" -o "$work/r" "$target" > "$work/r.log" 2>&1 && rc=$KSFT_FAIL
	refused "no sender" "no sender: RXKIT_MAINTAINER and git's user.name" || rc=$KSFT_FAIL
	return "$rc"
}

test_report_current()
{
	local rt=
	rt=$(sed -n '1s/.* writes for \([^ ]*\) (ci\/mail)[.]$/\1/p' "$REPORT")
	[ "$rt" = "$target" ] || {
		SKIP_REASON="${REPORT#"$RXKIT_TOP"/} is the series of ${rt:-no target}, not of $target"
		return "$KSFT_SKIP"
	}
	need_tree || return "$KSFT_SKIP"
	mail "$work/rep" --report "$work/report" || { sed 's/^/# /' "$work/rep.log"; return "$KSFT_FAIL"; }
	if ! diff -u "$REPORT" "$work/report" > "$work/diff"; then
		sed 's/^/# /' "$work/diff" | head -n 40
		echo "# ${REPORT#"$RXKIT_TOP"/} is not current; run: RXKIT_MAINTAINER='$SENDER' ci/mail --report ${REPORT#"$RXKIT_TOP"/} $target"
		return "$KSFT_FAIL"
	fi
	echo "# ${REPORT#"$RXKIT_TOP"/} is current"
}

# shellcheck disable=SC2086
run_tests $TESTS
