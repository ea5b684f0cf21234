# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# tests/lib/image_vm.sh, sourced by the suites that boot the kit's VM image
# (images/mkimage) through the firmware with a job disk: tests/packages_boot.sh
# and tests/dkms_boot.sh.  One QEMU run a suite, its disk in snapshot mode;
# the second, read-only disk (label RXKITJOB, made with mke2fs -d) holds
# the job the image's rxkit-job.service runs after multi-user.target, one
# step a boot (images/vm/run, run-dkms).  The job reports on the second
# serial port ("RXKIT: " lines, the protocol log $pr).
#
# The suite sets art, work, pr, accel, VM_TIMEOUT and vm_image_args
# (images/mkimage's arguments), and defines vm_job DIR, which fills the job
# disk's folder (run, env and what the job installs) and returns a KSFT
# code.  vm_job may set vm_qemu_args (more QEMU words: a device),
# vm_begin (a function called before each QEMU run), vm_tick (one called
# each second while the VM runs: a host side that follows the protocol
# log) and vm_end (one called once the VM stopped); tests/lib/
# image_virtio.sh sets all four.  A run whose kernel oopsed as QEMU's TCG
# makes it (tcg_fault) runs once more, and says so.
# The suite's state (art, work, pr, accel, VM_TIMEOUT):
# shellcheck disable=SC2154

# The vsock jobs of the kit's test initramfs a job runs on Debian's
# configuration (its transports are modules there).
readonly VSOCK_JOBS="vsock_diag_test_loopback vsock_test_loopback"
# Console lines of a boot that cannot go on (stop the VM there).
readonly VM_STUCK='Kernel panic|^\(initramfs\) |Dropping to a shell'
# The VM's memory (a memory backend of the same size shares it with a
# vhost-user device).
readonly VM_MEM=1024M

vm_state=	# '' (not run yet), ok, or why there is no run
vm_qemu_args= vm_begin= vm_tick= vm_end=

# vm_run: the VM run of the suite, once; a KSFT code (vm_job's SKIP: its
# SKIP_REASON says why).
vm_run()
{
	local img g k t0 f rc=0
	case "$vm_state" in
	ok) return "$KSFT_PASS" ;;
	?*) echo "# $vm_state"; return "$KSFT_FAIL" ;;
	esac
	vm_state="the job disk could not be made"
	g="$work/job"
	rm -rf "$g"
	mkdir -p "$g"
	vm_job "$g" || { rc=$?; [ "$rc" != "$KSFT_SKIP" ] || vm_state=; return "$rc"; }
	vm_state="images/mkimage failed (log: $art/mkimage.log)"
	# shellcheck disable=SC2086 # the suite's arguments
	img=$("$RXKIT_TOP/images/mkimage" $vm_image_args 2> "$art/mkimage.log") ||
		{ tail -n 5 "$art/mkimage.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	sed 's/^/# /' "$art/mkimage.log"
	vm_state="the job disk could not be made"
	# Sized by its content: the cloud flavour's repository alone holds a
	# 400 MiB -dbg package.  An eighth more and 64 MiB for ext4's own.
	k=$(du -sk "$g" | cut -f1)
	mke2fs -q -t ext4 -L RXKITJOB -d "$g" "$work/job.raw" "$(( k + k / 8 + 65536 ))k" > "$art/mke2fs.log" 2>&1 ||
		{ cat "$art/mke2fs.log"; return "$KSFT_FAIL"; }
	t0=$(date +%s)
	echo "# image $img; job disk $(du -sk "$g" | cut -f1) KiB; VM started ($accel, -smp $GUEST_SMP, time scale $(time_scale "$accel"))"
	vm_boot "$img" || rc=$?
	if [ "$rc" = 4 ] && f=$(tcg_fault "$art/serial.log"); then
		echo "# infrastructure: the guest's kernel oopsed on an int3 in early boot, untainted, before /init:"
		echo "$f" | sed 's/^/#   /'
		echo "# QEMU's multi-threaded TCG ran a breakpoint that a static key's patching had taken back (tcg_fault); the VM runs again, once (first console: $art/serial.1.log)"
		mv "$art/serial.log" "$art/serial.1.log"
		mv "$pr" "$pr.1"
		rc=0
		vm_boot "$img" || rc=$?
	fi
	tr -d '\r' < "$pr" > "$pr.txt"
	echo "# VM run: $(( $(date +%s) - t0 )) s; boots: $(grep '^RXKIT: boot ' "$pr.txt" | cut -d' ' -f3- | paste -sd, -)"
	vm_state=ok
	case "$rc" in
	3) echo "# the VM overran ${VM_TIMEOUT}s and was stopped (console: $art/serial.log)" ;;
	4) echo "# the guest's kernel could not go on: $(tr -d '\r' < "$art/serial.log" | grep -E "$VM_STUCK" | head -n 1)" ;;
	esac
	grep -q '^RXKIT: done' "$pr.txt" || {
		echo "# the guest did not finish its steps; console's end:"
		tr -d '\r' < "$art/serial.log" | tail -n 15 | awk '{ print "#   " $0 }'
	}
}

# vm_boot IMG: one QEMU run of IMG and the job disk until the guest powers
# off; 3 when it overran VM_TIMEOUT, 4 when its kernel could not go on
# (a panic, initramfs-tools' rescue shell: the run stops there).
vm_boot()
{
	local pid t0 rc=0
	[ -z "$vm_begin" ] || "$vm_begin"
	: > "$art/serial.log"
	: > "$pr"
	t0=$(date +%s)
	# shellcheck disable=SC2046,SC2086 # words
	$QEMU -nodefaults -display none -monitor none -machine q35 \
		$(qemu_accel_args "$accel") -smp "$GUEST_SMP" -m "$VM_MEM" \
		-drive "file=$1,format=raw,if=virtio,snapshot=on" \
		-drive "file=$work/job.raw,format=raw,if=virtio,readonly=on" \
		-serial "file:$art/serial.log" -serial "file:$pr" $vm_qemu_args \
		> "$art/qemu.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(date +%s)" -ge $((t0 + VM_TIMEOUT)) ]; then
			rc=3
		elif tr -d '\r' < "$art/serial.log" | grep -Eq "$VM_STUCK"; then
			rc=4
		fi
		if [ "$rc" != 0 ]; then
			kill "$pid" 2>/dev/null || true
			break
		fi
		[ -z "$vm_tick" ] || "$vm_tick"
		sleep 1
	done
	wait "$pid" 2>/dev/null || true
	[ -z "$vm_end" ] || "$vm_end"
	return "$rc"
}

# tcg_fault LOG: the oops of LOG (a console) that multi-threaded TCG
# makes, not the kernel: an int3 trap where no breakpoint was set, in a
# swapper task (early boot: PID 1 before it runs /init, or an idle task)
# of a kernel no module tainted.  A static key's text_poke_bp() took its
# int3 back and synchronised every CPU, and QEMU's other vCPU still ran
# the old code (seen with Debian's 6.12 and 7.3.4, nothing of the kit
# loaded; boots without a root did not show it: the CHANGELOG counts).
# Prints the oops's two lines; false for any other console.
tcg_fault()
{
	tr -d '\r' < "$1" | awk '
		/Oops: int3/ { o = $0; n = NR; next }
		o != "" && NR <= n + 2 && /Comm: swapper\/[0-9]+ Not tainted/ {
			print o; print; found = 1; exit
		}
		END { exit !found }'
}

# boot_block STEP: the protocol lines of that step's boot.
boot_block()
{
	awk -v s="$1" '/^RXKIT: boot / { on = ($3 == s) } on' "$pr.txt"
}

# job_block STEP JOB: the protocol lines of JOB in STEP's boot, from its
# "RXKIT: job" line to its "RXKIT: rc" line.
job_block()
{
	boot_block "$1" | sed -n "/^RXKIT: job $2\$/,/^RXKIT: rc/p"
}

# check_boot STEP RELEASE: the boot of STEP ran RELEASE (any release of
# Debian's cloud kernel for "debian") with every vCPU and reached
# multi-user.target; says what systemd reports.
check_boot()
{
	local b u m
	b=$(boot_block "$1")
	[ -n "$b" ] || { echo "# no boot of step '$1' (protocol: $pr)"; return 1; }
	u=$(printf '%s\n' "$b" | sed -n 's/^RXKIT: boot [a-z]* //p')
	printf '%s\n' "$b" | grep -E '^RXKIT: (system|failed-unit) ' | sed 's/^RXKIT: /# /'
	m=$(printf '%s\n' "$b" | sed -n 's/^RXKIT: multi-user-us \([0-9]*\)$/\1/p')
	echo "# step $1: uname -r $u; multi-user.target reached ${m:+$((m / 1000000)) s after the kernel started}"
	case "$2" in
	debian) case "$u" in *-cloud-amd64) ;; *) echo "# not Debian's cloud kernel"; return 1 ;; esac ;;
	*) [ "$u" = "$2" ] || { echo "# not $2"; return 1; } ;;
	esac
	printf '%s\n' "$b" | grep -qx 'RXKIT: multi-user active' ||
		{ echo "# multi-user.target is not active"; return 1; }
	printf '%s\n' "$b" | grep -qx "RXKIT: cpus $GUEST_SMP" ||
		{ echo "# the guest did not bring up $GUEST_SMP vCPUs"; return 1; }
}

# apt_ok STEP: the apt-get of STEP's boot exited 0; its output else.
apt_ok()
{
	local b
	b=$(boot_block "$1")
	printf '%s\n' "$b" | sed -n '/^RXKIT: apt-begin/,/^RXKIT: apt-end/p' > "$art/apt-$1.log"
	printf '%s\n' "$b" | grep -qx 'RXKIT: apt-rc 0' &&
		! printf '%s\n' "$b" | grep -q '^RXKIT: apt-rc [^0]' && return 0
	echo "# apt-get failed in step $1:"
	tail -n 12 "$art/apt-$1.log" | sed 's/^/#   /'
	return 1
}


# uapi_payload: a build folder of the patched tree with its UAPI headers
# and test payload (images/mktests) alone, for a guest whose kernel was
# not built here for the guest suites (Debian's, the cloud flavour's);
# prints it, for guest_tree.
uapi_payload()
{
	local src u
	src="$(src_root "$target")/patched"
	u="$src/o-uapi"
	[ -d "$src" ] || die "no patched tree of $target; run: ci/prepare $target"
	make -s -C "$src" O="$u" headers_install > "$work/uapi.log" 2>&1 ||
		{ cat "$work/uapi.log" >&2; die "make headers_install of the patched $target tree failed"; }
	"$RXKIT_TOP/images/mktests" "$src" "$u" > "$work/mktests.log" 2>&1 ||
		{ cat "$work/mktests.log" >&2; die "images/mktests $src $u failed"; }
	printf '%s\n' "$u"
}

# guest_tree DIR O: the kit's test initramfs of build folder O (its test
# payload: the guest build's, or uapi_payload's) unpacked into DIR,
# busybox's links made, with the skip lists of TARGET's vsock jobs
# ($VSOCK_JOBS) for the image's Debian kernel configuration.
guest_tree()
{
	local i j
	mkdir -p "$1"
	i=$(ensure_initramfs "$2") || return "$KSFT_FAIL"
	gzip -dc "$i" | (cd "$1" && cpio -id --quiet) || return "$KSFT_FAIL"
	chroot "$1" /bin/busybox --install -s /bin || return "$KSFT_FAIL"
	for j in $VSOCK_JOBS; do
		skip_list "$j" "$target" > "$1/rxkit/skip/$j"
	done
}

# job_repo REPO DIR SUITE COMPONENT: ci/repo's publication REPO copied to
# DIR for the job, with the sources file the job installs
# (DIR/vsock-rxkit.sources, what images/vm/run and run-dkms read): the
# published one of SUITE, COMPONENT added when it is not main (as INSTALL
# says for the test-VM kernels).
job_repo()
{
	local c=main
	[ "$4" = main ] || c="main $4"
	[ -f "$1/vsock-rxkit-$3.sources" ] || { echo "# $1 has no suite $3 (vsock-rxkit-$3.sources)"; return 1; }
	cp -R "$1" "$2"
	sed "s|^Components: main\$|Components: $c|" "$1/vsock-rxkit-$3.sources" > "$2/vsock-rxkit.sources"
}
