# SPDX-License-Identifier: GPL-2.0
# Host-side helpers of the test scripts: KTAP output and QEMU guests.
# Sourced after ci/lib.sh; modelled on tools/testing/selftests/vsock/vmtest.sh.

readonly KSFT_PASS=0
readonly KSFT_FAIL=1
readonly KSFT_SKIP=4
readonly QEMU=qemu-system-x86_64
readonly BOOT_TIMEOUT=${RXKIT_BOOT_TIMEOUT:-60}
readonly JOB_TIMEOUT=${RXKIT_JOB_TIMEOUT:-600}
# vCPUs of every guest (-smp); the guest must bring up all of them
# (guest_verdict): the RX worker and a reader run in parallel only then.
readonly GUEST_SMP=${RXKIT_SMP:-2}
case "$GUEST_SMP" in
''|*[!0-9]*|0) die "RXKIT_SMP must be a number of vCPUs" ;;
esac
# vsock_test's control-channel timeout in the kit's builds of the tree's
# test programs (tests/mkinitramfs says why; vsock_test's own is 10 s).
readonly CONTROL_TIMEOUT=${RXKIT_CONTROL_TIMEOUT:-60}
case "$CONTROL_TIMEOUT" in
''|*[!0-9]*) die "RXKIT_CONTROL_TIMEOUT must be a number of seconds" ;;
esac
# Kernel log lines that fail a guest run (vmtest.sh checks Oops and vsock
# warnings; we also refuse WARN, BUG, lockdep and KASAN reports).
# Lockdep's own boot lines ("RCU lockdep checking is enabled") are not
# reports: its reports are the WARNING/BUG lines and the phrases below.
readonly DMESG_BAD='WARNING:|BUG:|Oops|general protection fault|Kernel panic|KASAN:|UBSAN:|KCSAN:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|lockdep is turned off|DEBUG_LOCKS_WARN_ON|ODEBUG:|INFO: task .* blocked|vsock.*(error|warn)'

ktap_n=0
ktap_pass=0
ktap_fail=0
ktap_skip=0

ktap_header()
{
	printf 'TAP version 13\n1..%s\n' "$1"
}

# ktap_result RC NAME [REASON]
ktap_result()
{
	ktap_n=$((ktap_n + 1))
	case "$1" in
	"$KSFT_PASS") ktap_pass=$((ktap_pass + 1)); printf 'ok %s %s\n' "$ktap_n" "$2" ;;
	"$KSFT_SKIP") ktap_skip=$((ktap_skip + 1)); printf 'ok %s %s # SKIP %s\n' "$ktap_n" "$2" "${3:-}" ;;
	*) ktap_fail=$((ktap_fail + 1)); printf 'not ok %s %s\n' "$ktap_n" "$2" ;;
	esac
}

ktap_finish()
{
	printf '# Totals: pass:%s fail:%s xfail:0 xpass:0 skip:%s error:0\n' \
		"$ktap_pass" "$ktap_fail" "$ktap_skip"
	[ "$ktap_fail" -eq 0 ]
}

# diag CMD...: run CMD, its output as KTAP diagnostics; CMD's exit status.
diag()
{
	_dg_out=$(mktemp "${TMPDIR:-/tmp}/rxkit-diag.XXXXXX")
	_dg_rc=0
	"$@" > "$_dg_out" 2>&1 || _dg_rc=$?
	sed 's/^/# /' "$_dg_out"
	rm -f "$_dg_out"
	return "$_dg_rc"
}

# check_subset VAR: every name in $TESTS (a subset the user set in VAR) is
# one of $ALL_TESTS, or die naming VAR.
check_subset()
{
	for _cs in $TESTS; do
		case " $ALL_TESTS " in
		*" $_cs "*) ;;
		*) die "unknown test '$_cs' in $1 (known: $ALL_TESTS)" ;;
		esac
	done
}

# results_begin ART SCRIPT SUBSET_VAR: before a guest suite runs, write
# ART/reproducer.sh (re-runs this suite with the same tree, flavour,
# target, cache and accelerator; an argument picks one test through the
# suite's SUBSET_VAR) and start the per-test record of ART/results.json.
results_begin()
{
	RESULTS_ART=$1
	RESULTS_SUITE=$2
	RESULTS_TSV="$1/results.tsv"
	: > "$RESULTS_TSV"
	{
		echo "#!/bin/sh"
		echo "# Re-runs $2 exactly as $(date -u '+%Y-%m-%d %H:%M UTC') did;"
		echo "# an argument (a test name) runs that test alone instead."
		echo "set -eu"
		printf 'cd %s\n' "$RXKIT_TOP"
		printf 'export RXKIT_CACHE=%s RXKIT_OUT=%s RXKIT_ACCEL=%s\n' \
			"$RXKIT_CACHE" "$RXKIT_OUT" "${accel:-${RXKIT_ACCEL:-auto}}"
		[ -z "${RXKIT_VSOCK_BACKEND:-}" ] ||
			printf 'export RXKIT_VSOCK_BACKEND=%s\n' "$RXKIT_VSOCK_BACKEND"
		printf 'export %s="${1:-%s}"\n' "$3" "$TESTS"
		printf 'exec tests/%s --tree %s --flavour %s %s\n' "$2" "$tree" "$flavour" "$target"
	} > "$1/reproducer.sh"
	chmod +x "$1/reproducer.sh"
}

json_str()
{
	printf '%s' "$1" | awk 'BEGIN { ORS = "" } {
		gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, " ")
		print (NR > 1 ? "\\n" : "") $0 }'
}

# results_end [BACKEND]: ART/results.json of the suite that results_begin
# started: target, release, backend, accelerator, each test with status and
# seconds, and the cases of its KTAP subtests (ART/*/cases.ktap).
results_end()
{
	_re_j="$RESULTS_ART/results.json"
	{
		printf '{\n  "suite": "%s",\n' "$(json_str "$RESULTS_SUITE")"
		printf '  "target": "%s",\n  "tree": "%s",\n' "$(json_str "$target")" "$tree"
		printf '  "kernel_release": "%s",\n' "$(json_str "$release")"
		printf '  "backend": "%s",\n' "$(json_str "${1:-loopback}")"
		printf '  "accelerator": "%s",\n' "$(json_str "${accel:-none}")"
		printf '  "reproducer": "%s",\n  "tests": [' "$(json_str "$RESULTS_ART/reproducer.sh")"
		_re_sep=
		while IFS="$(printf '\t')" read -r _re_n _re_rc _re_s _re_why; do
			case "$_re_rc" in
			"$KSFT_PASS") _re_st=pass ;;
			"$KSFT_SKIP") _re_st=skip ;;
			*) _re_st=fail ;;
			esac
			printf '%s\n    {"name": "%s", "status": "%s", "seconds": %s' \
				"$_re_sep" "$(json_str "$_re_n")" "$_re_st" "$_re_s"
			[ -z "$_re_why" ] || printf ', "reason": "%s"' "$(json_str "$_re_why")"
			if [ -f "$RESULTS_ART/$_re_n/cases.ktap" ]; then
				printf ', "cases": ['
				sed -n 's/^    \(not ok\|ok\) [0-9]* \(.*\)$/\1\t\2/p' \
					"$RESULTS_ART/$_re_n/cases.ktap" | awk -F '\t' '
				{
					st = $1 == "ok" ? "pass" : "fail"; name = $2; why = ""
					if (match(name, / # SKIP ?/)) {
						why = substr(name, RSTART + RLENGTH)
						name = substr(name, 1, RSTART - 1); st = "skip"
					}
					gsub(/\\/, "\\\\", name); gsub(/"/, "\\\"", name)
					gsub(/\\/, "\\\\", why); gsub(/"/, "\\\"", why)
					sep = (NR > 1) ? ", " : ""
					extra = (why == "") ? "" : ", \"reason\": \"" why "\""
					printf "%s{\"name\": \"%s\", \"status\": \"%s\"%s}", sep, name, st, extra
				}'
				printf ']'
			fi
			printf '}'
			_re_sep=,
		done < "$RESULTS_TSV"
		printf '\n  ]\n}\n'
	} > "$_re_j"
}

# run_tests NAME...: run test_NAME for each, in KTAP; a test prints its own
# diagnostics as '# ' lines and sets SKIP_REASON before returning KSFT_SKIP.
run_tests()
{
	# Test functions share the shell's globals: names here are private.
	ktap_header $#
	for _rt_name in "$@"; do
		SKIP_REASON=
		_rt_rc=0
		_rt_t0=$(date +%s)
		"test_$_rt_name" || _rt_rc=$?
		ktap_result "$_rt_rc" "$_rt_name" "$SKIP_REASON"
		[ -z "${RESULTS_TSV:-}" ] ||
			printf '%s\t%s\t%s\t%s\n' "$_rt_name" "$_rt_rc" \
				"$(( $(date +%s) - _rt_t0 ))" "$SKIP_REASON" >> "$RESULTS_TSV"
	done
	ktap_finish
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

# guest_run [-b BOOT_SECS] [-j JOB_SECS] [-a APPEND] DIR KERNEL INITRD JOB ACCEL
#           [QEMU ARGS...]
# Boots the guest (APPEND: more kernel parameters), runs JOB, collects DIR/serial.log (console) and
# DIR/results.log (protocol).  Returns 0 when the guest finished, 2 when it
# never reached /init within BOOT_SECS (default BOOT_TIMEOUT), 3 when the
# job overran JOB_SECS (default JOB_TIMEOUT).  The guest is always gone when
# this returns.
guest_run()
{
	_bto=$BOOT_TIMEOUT _jto=$JOB_TIMEOUT _app=
	while :; do
		case "$1" in
		-b) _bto=$2; shift 2 ;;
		-j) _jto=$2; shift 2 ;;
		-a) _app=" $2"; shift 2 ;;
		*) break ;;
		esac
	done
	_dir=$1 _kernel=$2 _initrd=$3 _job=$4 _accel=$5
	shift 5
	mkdir -p "$_dir"
	: > "$_dir/serial.log"
	: > "$_dir/results.log"
	echo "$GUEST_SMP" > "$_dir/smp"
	# shellcheck disable=SC2046
	$QEMU -nodefaults -display none -no-reboot -monitor none \
		-machine q35 $(qemu_accel_args "$_accel") -smp "$GUEST_SMP" -m 1024 \
		-kernel "$_kernel" -initrd "$_initrd" \
		-append "console=ttyS0 panic=-1 rxkit.job=$_job$_app" \
		-serial "file:$_dir/serial.log" -serial "file:$_dir/results.log" \
		"$@" > "$_dir/qemu.log" 2>&1 &
	_pid=$!
	_t=0
	_rc=0
	while ! grep -q '^RXKIT: init' "$_dir/results.log" 2>/dev/null; do
		if ! kill -0 "$_pid" 2>/dev/null; then
			_rc=2
			break
		fi
		if [ "$_t" -ge $((_bto * 5)) ]; then
			_rc=2
			break
		fi
		sleep 0.2
		_t=$((_t + 1))
	done
	_t=0
	_done=0
	while [ "$_rc" = 0 ] && kill -0 "$_pid" 2>/dev/null; do
		if [ "$_t" -ge $((_jto * 5)) ]; then
			_rc=3
			break
		fi
		# Finished but still up (reboot failed?): 2 s of grace.
		if grep -q '^RXKIT: done' "$_dir/results.log" 2>/dev/null; then
			_done=$((_done + 1))
			[ "$_done" -lt 10 ] || break
		fi
		sleep 0.2
		_t=$((_t + 1))
	done
	kill "$_pid" 2>/dev/null || true
	wait "$_pid" 2>/dev/null || true
	return "$_rc"
}

# guest_job_rc DIR: the job's exit code from the protocol, or 255.
guest_job_rc()
{
	_r=$(sed -n 's/^RXKIT: rc \([0-9]*\).*/\1/p' "$1/results.log" | tail -n 1)
	printf '%s\n' "${_r:-255}"
}

# guest_dmesg_bad DIR: print the kernel log lines that fail a run (from the
# guest's own dmesg dump and from the serial console).
guest_dmesg_bad()
{
	{
		sed -n '/^RXKIT: dmesg-begin/,/^RXKIT: dmesg-end/p' "$1/results.log"
		cat "$1/serial.log"
	} | tr -d '\r' | grep -E "$DMESG_BAD" | sort -u
}

# pick_accel KERNEL INITRD DIR: kvm if a bounded probe boot under KVM works,
# tcg otherwise; the decision and its reason go to stderr.
pick_accel()
{
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
	_prc=0
	guest_run -b 20 -j 20 "$3" "$1" "$2" probe kvm || _prc=$?
	if [ "$_prc" = 0 ] && grep -q '^RXKIT: done' "$3/results.log"; then
		log "accelerator: KVM (probe boot finished)" >&2
		printf 'kvm\n'
	else
		log "accelerator: TCG (KVM probe boot failed, rc=$_prc: $(tail -n 1 "$3/qemu.log" 2>/dev/null); log: $3)" >&2
		printf 'tcg\n'
	fi
}

# ktap_from_vsock_test LOG [SKIPLIST]: the per-case lines of vsock_test /
# vsock_diag_test ("N - name...ok", where a case may print diagnostics
# between its name and its verdict) as indented KTAP subtests.  A case
# without a verdict (the program died in it) is "not ok".
ktap_from_vsock_test()
{
	tr -d '\r' < "$1" | grep -v '^server: ' | awk -v skiplist="${2:-/dev/null}" '
		BEGIN {
			while ((getline l < skiplist) > 0) {
				if (l ~ /^#/ || l !~ /[^ ]/) continue
				id = l; sub(/ .*/, "", id); r = l; sub(/^[^ ]* /, "", r)
				why[id] = r
			}
		}
		function close_case(verdict) {
			if (!open) return
			if (verdict == "ok") res[n] = "ok " n " " name
			else if (verdict == "skipped") res[n] = "ok " n " " name " # SKIP " ((n - 1) in why ? why[n - 1] : "skipped by the test itself")
			else res[n] = "not ok " n " " name
			open = 0
		}
		/^[0-9]+ - / {
			close_case("")
			n++; open = 1
			line = $0
			sub(/^[0-9]+ - /, "", line)
			name = line; sub(/\.\.\..*$/, "", name)
			rest = line; sub(/^[^.]*(\.[^.]+)*\.\.\./, "", rest)
			if (index(line, "...") && rest ~ /(^|\.\.\.)ok$/) close_case("ok")
			else if (index(line, "...") && rest ~ /skipped$/) close_case("skipped")
			else if (index(line, "...") && rest != "") note[n] = note[n] "    # " rest "\n"
			next
		}
		open && /^(ok|skipped)$/ { close_case($0); next }
		open && /ok$/ && !/^RXKIT:/ { note[n] = note[n] "    # " substr($0, 1, length($0) - 2) "\n"; close_case("ok"); next }
		open && !/^RXKIT:/ { note[n] = note[n] "    # " $0 "\n"; next }
		END {
			close_case("")
			print "    1.." n
			for (i = 1; i <= n; i++) printf "%s    %s\n", note[i], res[i]
		}'
}

# ensure_initramfs SRC O: O/rxkit-initramfs.cpio.gz, rebuilt when the guest
# files or the kernel are newer (tests/mkinitramfs); prints its path.
ensure_initramfs()
{
	_ird="$2/rxkit-initramfs.cpio.gz"
	# By content: a checkout or a copy can make the guest files older
	# than an initramfs built from other ones.
	_ist=$( (cd "$RXKIT_TOP" && find tests/guest tests/mkinitramfs -type f | sort |
		xargs sha256sum; echo "control timeout $CONTROL_TIMEOUT") |
		sha256sum | cut -d' ' -f1)
	# One builder a build folder: suites may run side by side.
	(
		flock 9
		if [ ! -f "$_ird" ] || [ "$(cat "$_ird.stamp" 2>/dev/null)" != "$_ist" ] ||
		   [ -n "$(find "$2/arch/x86/boot/bzImage" -newer "$_ird" 2>/dev/null)" ]; then
			"$RXKIT_TOP/tests/mkinitramfs" "$1" "$2" >&2 || exit 1
			echo "$_ist" > "$_ird.stamp"
		fi
	) 9> "$2/.rxkit-initramfs.lock" || return 1
	printf '%s\n' "$_ird"
}

# vsock_cases NAME LOG SKIPLIST RC: the cases of one vsock_test-style
# client run (LOG: its output) as KTAP subtests, also in ART/NAME/cases.ktap
# ($art); returns the KSFT code: RC (the run's own verdict) unless no case
# ran at all, which fails.
vsock_cases()
{
	mkdir -p "$art/$1"
	ktap_from_vsock_test "$2" "$3" | tee "$art/$1/cases.ktap"
	_vc_ok=$(grep '^    ok ' "$art/$1/cases.ktap" | grep -vc '# SKIP' || true)
	_vc_skip=$(grep -c '^    ok .*# SKIP' "$art/$1/cases.ktap" || true)
	_vc_bad=$(grep -c '^    not ok ' "$art/$1/cases.ktap" || true)
	echo "# $1: $_vc_ok cases passed, $_vc_bad failed, $_vc_skip skipped"
	if [ "$4" = 0 ] && [ "$_vc_ok" -eq 0 ]; then
		echo "# $1: no test case ran"
		return "$KSFT_FAIL"
	fi
	[ "$4" = 0 ] || return "$KSFT_FAIL"
	[ "$_vc_bad" -eq 0 ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

# skip_list JOB TARGET [FLAVOUR]: the skip list of JOB, "ID REASON" lines:
# tests/guest/skip/JOB (every target), JOB.TARGET (test ids differ between
# trees) and JOB.TARGET.FLAVOUR (e.g. the slower debug kernels).
skip_list()
{
	for _sl in "$1" "$1.$2" "$1.$2.${3:-guest}"; do
		_sl="$RXKIT_TOP/tests/guest/skip/$_sl"
		[ ! -f "$_sl" ] || grep -v '^#' "$_sl" | grep '[^ ]' || true
	done
}

# skip_files ART TARGET FLAVOUR JOB...: ART/tools/rxkit/skip/JOB for each
# JOB (skip_list), which tools_initrd packs over the initramfs's own.
skip_files()
{
	_sf_art=$1 _sf_t=$2 _sf_f=$3
	shift 3
	mkdir -p "$_sf_art/tools/rxkit/skip"
	for _sf_j in "$@"; do
		skip_list "$_sf_j" "$_sf_t" "$_sf_f" > "$_sf_art/tools/rxkit/skip/$_sf_j"
	done
}

# tools_initrd SRC O ART: ART/initrd.cpio.gz, the kit initramfs of the tree
# plus the data mover (tests/rxkit-vsock.c, static, built against O's UAPI
# headers) as a second cpio archive: /rxkit/rxkit-vsock, with whatever else
# the caller put under ART/tools/rxkit/ (e.g. skip/JOB, which replaces the
# kit initramfs's list).  The same binary serves the host side:
# ART/tools/rxkit/rxkit-vsock.
tools_initrd()
{
	need gcc gcc
	need cpio cpio
	need gzip gzip
	_ti_base=$(ensure_initramfs "$1" "$2") || return 1
	mkdir -p "$3/tools/rxkit"
	gcc -static -O2 -Wall -I"$2/usr/include" -o "$3/tools/rxkit/rxkit-vsock" \
		"$RXKIT_TOP/tests/rxkit-vsock.c" > "$3/tools/build.log" 2>&1 || {
		cat "$3/tools/build.log" >&2
		die "building tests/rxkit-vsock.c failed"
	}
	(cd "$3/tools" && find rxkit | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 > "$3/tools.cpio.gz"
	cat "$_ti_base" "$3/tools.cpio.gz" > "$3/initrd.cpio.gz"
}

# guest_test_setup "$@": the command line shared by the guest test scripts,
# [--tree patched|baseline] [--flavour NAME] [TARGET] (the caller defines
# usage()).  Sets tree, flavour, target, suffix (release mark), src, o,
# kernel, release and variant (artefact folder: TREE, or TREE-FLAVOUR
# for a flavour other than guest), and checks that the kernel is built.
guest_test_setup()
{
	tree=patched
	flavour=guest
	target=
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		--tree) [ $# -ge 2 ] || die "--tree needs a value"; tree=$2; shift ;;
		--flavour) [ $# -ge 2 ] || die "--flavour needs a name"; flavour=$2; shift ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*) target=$1 ;;
		esac
		shift
	done
	: "${target:=$RXKIT_TARGET}"
	load_base "$target"
	case "$tree" in
	patched|baseline) suffix=$(release_mark "$tree") ;;
	*) die "--tree must be patched or baseline" ;;
	esac
	need "$QEMU" qemu-system-x86
	src="$(src_root "$target")/$tree"
	o="$src/o-$flavour"
	# Artefacts of a flavour other than the guest one stay apart.
	variant=$tree
	[ "$flavour" = guest ] || variant="$tree-$flavour"
	kernel="$o/arch/x86/boot/bzImage"
	[ -f "$kernel" ] || die "$kernel missing; run: ci/build --tree $tree $target"
	release=$(cat "$o/include/config/kernel.release")
}

# twin PATH: the other name of PATH under Debian's merged /usr.
twin()
{
	case "$1" in
	/usr/bin/*|/usr/sbin/*) printf '%s\n' "${1#/usr}" ;;
	/bin/*|/sbin/*) printf '/usr%s\n' "$1" ;;
	esac
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
	_gc=$(guest_cpu_count "$2")
	[ "$_gc" = "$4" ] && return 0
	echo "# $1: the guest brought up ${_gc:-an unknown number of} of $4 vCPUs (-smp $4); serial log: $3"
	tr -d '\r' < "$3" | grep -E 'nr_cpu_ids|smp: Brought up|Processors:' | sed 's/^/#   /'
	return 1
}

# guest_verdict NAME DIR RC JOBSECS: the KSFT verdict of one finished
# guest_run (RC its return code): boot, job time, kernel log and the
# guest job's exit code, each failure explained in '# ' lines.
guest_verdict()
{
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
	_gv_bad=$(guest_dmesg_bad "$2")
	if [ -n "$_gv_bad" ]; then
		echo "# $1: kernel log reports problems:"
		printf '%s\n' "$_gv_bad" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	_gv_rc=$(guest_job_rc "$2")
	if [ "$_gv_rc" != 0 ]; then
		echo "# $1: guest job exited $_gv_rc; last lines:"
		sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$2/results.log" | tr -d '\r' |
			tail -n 8 | sed 's/^/#   guest: /'
		return "$KSFT_FAIL"
	fi
	return "$KSFT_PASS"
}
