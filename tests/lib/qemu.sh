# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# QEMU guests of the test scripts: the accelerator, booting a guest for one
# job, and the verdict of a run from its protocol log (the "RXKIT: ..."
# lines tests/guest/init writes to the second serial port) and its kernel
# log.  Sourced by tests/lib.sh; modelled on
# tools/testing/selftests/vsock/vmtest.sh.

readonly QEMU=qemu-system-x86_64
# Seconds for a boot to reach /init and for its job (tests/data/limits).
BOOT_TIMEOUT=$(limit boot) && JOB_TIMEOUT=$(limit job) || exit 2
readonly BOOT_TIMEOUT JOB_TIMEOUT
# vCPUs of every guest (-smp); the guest must bring up all of them
# (guest_verdict): the RX worker and a reader run in parallel only then.
readonly GUEST_SMP=${RXKIT_SMP:-2}
case "$GUEST_SMP" in
''|*[!0-9]*|0) die "RXKIT_SMP must be a number of vCPUs" ;;
esac
# The kernel log lines that fail a guest run: one extended regular
# expression a line, with comments (guest_dmesg_bad reads it every time).
readonly DMESG_BAD_FILE="$RXKIT_TOP/tests/data/dmesg-bad"
# The factors of the fixed waits the tests scale (tests/data/waits).
readonly TIME_SCALE_FILE="$RXKIT_TOP/tests/data/time-scale"

# time_scale RUN: the factor for a guest that runs as RUN (kvm, tcg,
# tcg-in-kvm, tcg-in-tcg: tests/data/time-scale), or RXKIT_TIME_SCALE.
time_scale()
{
	local f=
	if [ -n "${RXKIT_TIME_SCALE:-}" ]; then
		case "$RXKIT_TIME_SCALE" in
		*[!0-9]*|0*) die "RXKIT_TIME_SCALE must be a whole number from 1 to 1000" ;;
		esac
		[ "$RXKIT_TIME_SCALE" -le 1000 ] ||
			die "RXKIT_TIME_SCALE must be a whole number from 1 to 1000"
		printf '%s\n' "$RXKIT_TIME_SCALE"
		return
	fi
	f=$(awk -v run="$1" '$1 == run { print $2; exit }' "$TIME_SCALE_FILE")
	[ -n "$f" ] || die "$TIME_SCALE_FILE has no factor for '$1'"
	printf '%s\n' "$f"
}

qemu_accel_args()
{
	case "$1" in
	kvm) printf '%s\n' '-accel kvm -cpu host' ;;
	# No 5-level paging: the KASAN kernels of the debug flavour report a
	# wild-memory-access in rcu_is_watching() from an interrupt during
	# identify_cpu() on a 5-level direct map (early boot, before any vsock
	# code; 2 of 4 boots of 7.3.4 debug).  Every flavour gets the same CPU.
	tcg) printf '%s\n' '-accel tcg,thread=multi -cpu max,la57=off' ;;
	*) die "unknown accelerator '$1'" ;;
	esac
}

# wait_for FILE PATTERN SECS PID: wait until FILE has a line matching
# PATTERN; fails when SECS pass or PID ends first.
wait_for()
{
	local ticks=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$4" 2>/dev/null || return 1
		[ "$ticks" -lt $(($3 * 5)) ] || return 1
		sleep 0.2
		ticks=$((ticks + 1))
	done
}

# guest_run [-b BOOT_SECS] [-j JOB_SECS] [-a APPEND] DIR KERNEL INITRD JOB ACCEL
#           [QEMU ARGS...]
# Boots the guest (APPEND: more kernel parameters; rxkit.scale= the factor
# of its fixed waits for ACCEL: time_scale), runs JOB, collects
# DIR/serial.log (console) and DIR/results.log (protocol).  Returns 0 when
# the guest finished, 2 when it never reached /init within BOOT_SECS
# (default BOOT_TIMEOUT), 3 when the job overran JOB_SECS (default
# JOB_TIMEOUT).  The guest is always gone when this returns.  A boot that
# stopped short of /init without a kernel panic is infrastructure until
# it happens twice: the guest boots once more, the first attempt's logs
# kept in DIR/boot-1/, and a '# ' line says so.
guest_run()
{
	local rc=0 d= last=
	guest_boot "$@" || rc=$?
	[ "$rc" = 2 ] || return "$rc"
	d=$(guest_run_dir "$@")
	# A kernel that panicked said why it stopped: that is its failure.
	! grep -q 'Kernel panic' "$d/serial.log" || return "$rc"
	last=$(tr -d '\r' < "$d/serial.log" | grep . | tail -n 1)
	rm -rf "$d/boot-1"
	mkdir "$d/boot-1"
	mv "$d/serial.log" "$d/results.log" "$d/qemu.log" "$d/boot-1/"
	echo "# $(basename "$d"): the guest never reached /init (its console's last line: ${last:-none}); booting it once more (first attempt: $d/boot-1/)"
	rc=0
	guest_boot "$@" || rc=$?
	return "$rc"
}

# guest_run_dir [-b S] [-j S] [-a A] DIR ...: DIR.
guest_run_dir()
{
	while :; do
		case "$1" in
		-b|-j|-a) shift 2 ;;
		*) printf '%s\n' "$1"; return ;;
		esac
	done
}

# guest_boot: one boot of guest_run (same arguments).
guest_boot()
{
	local boot_secs="$BOOT_TIMEOUT" job_secs="$JOB_TIMEOUT" append=
	local dir= kernel= initrd= job= accel= pid= ticks=0 rc=0 done_ticks=0
	while :; do
		case "$1" in
		-b) boot_secs=$2; shift 2 ;;
		-j) job_secs=$2; shift 2 ;;
		-a) append=" $2"; shift 2 ;;
		*) break ;;
		esac
	done
	dir=$1 kernel=$2 initrd=$3 job=$4 accel=$5
	shift 5
	append=" rxkit.scale=$(time_scale "$accel")$append"
	mkdir -p "$dir"
	: > "$dir/serial.log"
	: > "$dir/results.log"
	echo "$GUEST_SMP" > "$dir/smp"
	# shellcheck disable=SC2046
	$QEMU -nodefaults -display none -no-reboot -monitor none \
		-machine q35 $(qemu_accel_args "$accel") -smp "$GUEST_SMP" -m 1024 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 rxkit.job=$job$append" \
		-serial "file:$dir/serial.log" -serial "file:$dir/results.log" \
		"$@" > "$dir/qemu.log" 2>&1 &
	pid=$!
	while ! grep -q '^RXKIT: init' "$dir/results.log" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rc=2
			break
		fi
		if [ "$ticks" -ge $((boot_secs * 5)) ]; then
			rc=2
			break
		fi
		sleep 0.2
		ticks=$((ticks + 1))
	done
	ticks=0
	while [ "$rc" = 0 ] && kill -0 "$pid" 2>/dev/null; do
		if [ "$ticks" -ge $((job_secs * 5)) ]; then
			rc=3
			break
		fi
		# Finished but still up (reboot failed?): 2 s of grace.
		if grep -q '^RXKIT: done' "$dir/results.log" 2>/dev/null; then
			done_ticks=$((done_ticks + 1))
			[ "$done_ticks" -lt 10 ] || break
		fi
		sleep 0.2
		ticks=$((ticks + 1))
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	return "$rc"
}

# guest_job_rc DIR: the job's exit code from the protocol, or 255.
guest_job_rc()
{
	local rc=
	rc=$(sed -n 's/^RXKIT: rc \([0-9]*\).*/\1/p' "$1/results.log" | tail -n 1)
	printf '%s\n' "${rc:-255}"
}

# dmesg_bad_re: the patterns of DMESG_BAD_FILE as one extended regular
# expression (their alternation).
dmesg_bad_re()
{
	local re=
	[ -f "$DMESG_BAD_FILE" ] || die "$DMESG_BAD_FILE missing"
	re=$(grep -Ev '^[[:space:]]*(#|$)' "$DMESG_BAD_FILE" | paste -sd '|' -)
	[ -n "$re" ] || die "$DMESG_BAD_FILE lists no pattern"
	printf '%s\n' "$re"
}

# guest_dmesg_bad DIR: print the kernel log lines that fail a run (from the
# guest's own dmesg dump and from the serial console).
guest_dmesg_bad()
{
	local re=
	re=$(dmesg_bad_re) || return 1
	{
		sed -n '/^RXKIT: dmesg-begin/,/^RXKIT: dmesg-end/p' "$1/results.log"
		cat "$1/serial.log"
	} | tr -d '\r' | grep -E "$re" | sort -u
}

# pick_accel KERNEL INITRD DIR: kvm if a bounded probe boot under KVM works,
# tcg otherwise; the decision and its reason go to stderr.
pick_accel()
{
	local rc=0
	case "${RXKIT_ACCEL:-auto}" in
	tcg|kvm) printf '%s\n' "$RXKIT_ACCEL"; return ;;
	auto) ;;
	*) die "RXKIT_ACCEL must be auto, kvm or tcg" ;;
	esac
	if [ ! -w /dev/kvm ]; then
		log "accelerator: TCG (no usable /dev/kvm)" >&2
		printf 'tcg\n'
		return
	fi
	guest_boot -b 20 -j 20 "$3" "$1" "$2" probe kvm || rc=$?
	if [ "$rc" = 0 ] && grep -q '^RXKIT: done' "$3/results.log"; then
		log "accelerator: KVM (probe boot finished)" >&2
		printf 'kvm\n'
	else
		log "accelerator: TCG (KVM probe boot failed, rc=$rc: $(tail -n 1 "$3/qemu.log" 2>/dev/null); log: $3)" >&2
		printf 'tcg\n'
	fi
}

# guest_cpu_count RESULTS: the processors the guest's /proc/cpuinfo
# counted (its init's "RXKIT: cpus" line in the protocol log RESULTS).
guest_cpu_count()
{
	sed -n 's/^RXKIT: cpus \([0-9]*\).*/\1/p' "$1" | tail -n 1
}

# guest_cpus NAME RESULTS SERIAL N: the guest of protocol log RESULTS
# brought up N vCPUs, or say what it had (and SERIAL's kernel lines on it).
guest_cpus()
{
	local n=
	n=$(guest_cpu_count "$2")
	[ "$n" = "$4" ] && return 0
	echo "# $1: the guest brought up ${n:-an unknown number of} of $4 vCPUs (-smp $4); serial log: $3"
	tr -d '\r' < "$3" | grep -E 'nr_cpu_ids|smp: Brought up|Processors:' | sed 's/^/#   /'
	return 1
}

# guest_verdict NAME DIR RC JOBSECS: the KSFT verdict of one finished
# guest_run (RC its return code): boot, job time, kernel log and the
# guest job's exit code (but a harness job's 1: HARNESS_JOBS), each
# failure explained in '# ' lines.
guest_verdict()
{
	local bad= rc=
	case "$3" in
	0) ;;
	2) echo "# $1: guest never reached /init within ${BOOT_TIMEOUT}s (serial log: $2/serial.log)"
	   tail -n 5 "$2/serial.log" | sed 's/^/#   /'
	   return "$KSFT_FAIL" ;;
	3) echo "# $1: job overran ${4}s (serial log: $2/serial.log)"
	   return "$KSFT_FAIL" ;;
	*) echo "# $1: guest_run returned $3"
	   return "$KSFT_FAIL" ;;
	esac
	guest_cpus "$1" "$2/results.log" "$2/serial.log" "$(cat "$2/smp")" || return "$KSFT_FAIL"
	bad=$(guest_dmesg_bad "$2") || return "$KSFT_FAIL"
	if [ -n "$bad" ]; then
		echo "# $1: kernel log reports problems:"
		printf '%s\n' "$bad" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	rc=$(guest_job_rc "$2")
	# A kselftest harness job (HARNESS_JOBS, set by its suite) exits 1
	# when a case failed: its cases are judged one by one by the suite
	# (a known defect's failure is XFAIL there), not by the exit code.
	case " ${HARNESS_JOBS:-} " in
	*" $1 "*)
		if [ "$rc" = 1 ]; then
			echo "# $1: the harness exited 1 (a case failed); its cases say which"
			rc=0
		fi ;;
	esac
	if [ "$rc" != 0 ]; then
		echo "# $1: guest job exited $rc; last lines:"
		sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$2/results.log" | tr -d '\r' |
			tail -n 8 | sed 's/^/#   guest: /'
		return "$KSFT_FAIL"
	fi
	return "$KSFT_PASS"
}
