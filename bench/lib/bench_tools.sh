# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# bench/lib/bench_tools.sh: the tests of bench/bench_tools.sh that need
# more than the tools: the cycles counter (cycles) and the TCG plugin
# (insn_plugin); the suite lists and runs them.  Sourced after
# tests/lib.sh by bench/bench_tools.sh, whose work folder and tools
# (need_bench, $bench) they use.
# shellcheck disable=SC2034,SC2154 # work and bench are the suite's, SKIP_REASON run_tests'

# test_cycles: rx -C counts CPU 0's cycles over the transfer where this
# machine has a cycles counter (a "cpu" PMU in /sys/bus/event_source, and
# root), and says why not where it has none (a VM without a virtual PMU,
# a TCG guest): never a silent line, never a zero count.
test_cycles()
{
	local s="unix:$work/rx.sock" rc=0 line=
	need_bench || return $?
	rx_line "$s" "-C 0 -n 8M" -- "$bench" tx -n 8M "$s" || rc=1
	grep -q ' bytes=8388608 .* errors=0 .* result=ok$' "$work/rx" || rc=1
	line=$(grep '^rxkit-bench: cycles ' "$work/rx.out")
	echo "# ${line:-no cycles line}"
	if ls -d /sys/bus/event_source/devices/cpu* > /dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		echo "$line" | grep -q '^rxkit-bench: cycles cpu=0 count=[1-9][0-9]*$' || rc=1
	else
		echo "# no cycles counter here: the reason expected"
		echo "$line" | grep -q '^rxkit-bench: cycles cpu=0 count=- reason=perf_event_open: .' || rc=1
	fi
	"$bench" rx -C -1 "$s" > "$work/refused" 2>&1 && rc=1
	grep -q "error: -C needs a CPU number, got '-1'" "$work/refused" || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# boot_sector FILE: a 512-byte boot sector that marks a loop of 100000
# instructions the way rxkit-bench rx marks its receive loop (a 0x67
# prefix makes the mark's nopl a 32-bit addressed one in real mode), then
# halts:
#   cli; gbegin; mov $100000, %ecx; 1: addr32 loop 1b; gend; 2: hlt; jmp 2b
boot_sector()
{
	{
		printf '\372\147\017\037\204\000\001\122\130\113'
		printf '\146\271\240\206\001\000\147\342\375'
		printf '\147\017\037\204\000\002\122\130\113\364\353\375'
		head -c $((510 - 31)) /dev/zero
		printf '\125\252'
	} > "$1"
}

# plugin_qemu NAME [QEMU ARGS...]: QEMU with the plugin, its marks FIFO
# open on fd 9, in the background ($q); the log in $work/NAME.log.
plugin_qemu()
{
	local name="$1"
	shift
	rm -f "$work/$name.fifo"
	mkfifo "$work/$name.fifo"
	"$QEMU" -accel tcg -smp 2 -m 64 -display none -nodefaults -no-reboot \
		-plugin "$so,fifo=$work/$name.fifo,out=$work/$name.log" "$@" > "$work/qemu.log" 2>&1 &
	q=$!
	exec 9<>"$work/$name.fifo"
}

# The TCG plugin (bench/mkplugin) in a QEMU without a kernel (SeaBIOS
# polls on vCPU 0, vCPU 1 waits for its start-up IPI): a line a mark with
# a count per vCPU, vCPU 0's growing between the host's marks, one at
# exit; a boot sector's marks around a loop of 100000 instructions count
# that loop (and the two blocks around it: at most 10 more); a QEMU given
# the plugin without its arguments refuses to start.
test_insn_plugin()
{
	local so q rc=0 b e n
	need "$QEMU" qemu-system-x86
	need mkfifo coreutils
	so=$("$RXKIT_TOP/bench/mkplugin" 2> "$work/mkplugin.log") || {
		sed 's/^/# /' "$work/mkplugin.log"
		return "$KSFT_FAIL"
	}
	plugin_qemu insn
	sleep 1
	echo begin >&9
	sleep 1
	echo end >&9
	sleep 0.5
	kill "$q" 2>/dev/null || rc=1
	wait "$q" || :
	exec 9>&-
	sed 's/^/# /' "$work/insn.log"
	b=$(sed -n 's/^begin vcpu0=\([0-9]*\) vcpu1=[0-9]*$/\1/p' "$work/insn.log")
	e=$(sed -n 's/^end vcpu0=\([0-9]*\) vcpu1=[0-9]*$/\1/p' "$work/insn.log")
	[ -n "$b" ] && [ -n "$e" ] && [ "$e" -gt "$b" ] ||
		{ echo "# no growing vcpu0 count between the marks"; rc=1; }
	grep -q '^exit vcpu0=[0-9]* vcpu1=[0-9]*$' "$work/insn.log" ||
		{ echo "# no exit line"; rc=1; }
	boot_sector "$work/boot.img"
	plugin_qemu guest -drive "file=$work/boot.img,format=raw,if=ide"
	n=0
	while ! grep -qs '^gend 0 ' "$work/guest.log" && [ "$n" -lt 40 ]; do
		sleep 0.5
		n=$((n + 1))
	done
	kill "$q" 2>/dev/null
	wait "$q" || :
	exec 9>&-
	sed 's/^/# /' "$work/guest.log"
	b=$(sed -n 's/^gbegin 0 vcpu0=\([0-9]*\) .*/\1/p' "$work/guest.log")
	e=$(sed -n 's/^gend 0 vcpu0=\([0-9]*\) .*/\1/p' "$work/guest.log")
	[ -n "$b" ] && [ -n "$e" ] && [ $((e - b)) -ge 100000 ] && [ $((e - b)) -le 100010 ] ||
		{ echo "# the boot sector's marks do not hold its 100000 instructions: ${b:-no gbegin 0}, ${e:-no gend 0}"; rc=1; }
	if timeout 20 "$QEMU" -accel tcg -display none -nodefaults -plugin "$so" \
		> "$work/refused.log" 2>&1; then
		echo "# QEMU started with the plugin without fifo= and out="
		rc=1
	fi
	grep -q 'rxkit-insn: error: needs fifo=PATH,out=FILE' "$work/refused.log" ||
		{ echo "# no error from the plugin:"; sed 's/^/#   /' "$work/refused.log"; rc=1; }
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}
