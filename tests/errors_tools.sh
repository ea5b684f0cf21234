#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/errors_tools.sh: the kit's checking tools find what they are there
# to find: the A/B verdict a regression, pipeline/summary stale results, the
# commands check an unpackaged command, the clean-root test the package a
# failed stage lacked, pipeline/gitlab a pipeline that is not the stage graph,
# images/mkbpftests a kernel it cannot build the BPF selftests for, ci/repo
# a flavour it has no packages of (and one format alone).  Each runs on
# self-made input in a private folder; KTAP on stdout.
set -eu
PROG=errors_tools
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/errors.sh"
. "$RXKIT_TOP/tests/lib/errors_verdict.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="ab_regression sockmap_known_defects summary_stale commands_unpackaged cleanroot_scan pipeline_refused bpftests_refused repo_flavour suite_options_refused tcg_fault"
readonly TEST_DESCS="pipeline/ab-verdict fails regressions, a missing suite and a pair of two backends, names known defects apart, passes identical results:\
a sockmap case failing as a listed defect is XFAIL on the trees listed only, a stale entry refused:\
pipeline/summary fails results older than the kernel they claim, naming the suite to rerun:\
tests/commands.sh fails a script running a command ci/deps does not install, naming its package:\
tests/cleanroot.sh --scan names the Debian package of each command a log says was not found:\
pipeline/gitlab refuses a stale .gitlab-ci.yml, a stage map out of order and a need naming no job:\
images/mkbpftests refuses a vmlinux without BTF and a tree no case of the BPF selftests applies to:\
ci/repo refuses an unknown or unpackaged flavour and an unknown suite, puts each flavour in its suite and component, keeps earlier versions:\
a suite's own options are checked, and its descriptions counted; tests/packages_boot.sh names the cloud A/B's other side debian (--tree baseline, and --tree debian of the guest flavour, are refused with the command to run); tests/vsock_sockmap.sh refuses a --rounds or --phase-ms that is no number:\
tests/lib/image_vm.sh's tcg_fault takes the recorded early int3 oops of Debian's 6.12 under TCG for QEMU's, and refuses an int3 after /init, one with a module loaded, another early oops and a console without one"

usage()
{
	cat <<USAGE
usage: tests/errors_tools.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Error-path tests of the A/B verdict, pipeline/summary, tests/commands.sh,
tests/cleanroot.sh, pipeline/gitlab, images/mkbpftests, ci/repo and the
suites' own options (TARGET, default $RXKIT_TARGET: the kernel
summary_stale dates results against).

$(test_usage)
USAGE
}
errors_setup "$@"

# pipeline/summary reports results older than the kernel they claim as stale,
# with the command that reruns their suite, and fails, instead of passing
# them on.
test_summary_stale()
{
	local b= o="$work/summary-out"
	b="$(src_root "$target")/patched/o-guest/arch/x86/boot/bzImage"
	[ -f "$b" ] || { SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	mkdir -p "$o/$target/patched/loopback"
	printf '%s\n' '{"suite": "vsock_loopback.sh", "accelerator": "tcg", "tests": [' \
		'{"name": "boot_release", "status": "pass", "seconds": 1}]}' \
		> "$o/$target/patched/loopback/results.json"
	printf 'exec tests/vsock_loopback.sh --tree patched %s\n' "$target" \
		> "$o/$target/patched/loopback/reproducer.sh"
	touch -r "$b" -d '-1 hour' "$o/$target/patched/loopback/results.json"
	if RXKIT_OUT="$o" "$RXKIT_TOP/pipeline/summary" "$target" > "$work/summary.out" 2>&1; then
		echo "# pipeline/summary passed stale results"
		return "$KSFT_FAIL"
	fi
	grep -q '^  loopback: stale: results older than the patched kernel (rerun its suite: tests/vsock_loopback.sh ' "$work/summary.out" ||
		{ echo "# no stale mark:"; sed 's/^/#   /' "$work/summary.out"; return "$KSFT_FAIL"; }
	sed -n '/loopback: stale/s/^/#   /p' "$work/summary.out"
}

# The commands_packaged test of tests/commands.sh fails on a script that
# runs a command of a package ci/deps does not install, and names the
# package: a script running rsync, checked against the ci/deps list less
# rsync (rsync, priority optional, is there for the kernel's
# headers_install).  A name that is no command and a stale ignore entry
# fail it too.
test_commands_unpackaged()
{
	local c="$work/cmds" rc=0 knob=
	# A setting no file names: made here, so that this file does not.
	knob=$(echo rxkit_not_a_setting | tr a-z A-Z)
	command -v rsync >/dev/null 2>&1 ||
		{ SKIP_REASON="rsync not installed (make deps)"; return "$KSFT_SKIP"; }
	case "$(dpkg-query -W -f='${Priority}' rsync 2>/dev/null)" in
	required|important) SKIP_REASON="rsync has priority required/important here"; return "$KSFT_SKIP" ;;
	esac
	mkdir -p "$c"
	# shellcheck disable=SC2016 # the script's own $1 and $2
	printf '#!/bin/sh\nrsync -a "$1/" "$2/"\nrxkit-no-such-tool --version\n: "${%s:-}"\n' "$knob" > "$c/inject.sh"
	"$RXKIT_TOP/ci/deps" --list | grep -v '^rsync ' > "$c/deps"
	{ cat "$RXKIT_TOP/tests/commands.ignore"; echo 'rxkit-gone-tool stale on purpose'; } \
		> "$c/ignore"
	RXKIT_COMMANDS_EXTRA="$c/inject.sh" \
	RXKIT_DEPS_LIST="$c/deps" RXKIT_COMMANDS_IGNORE="$c/ignore" \
		"$RXKIT_TOP/tests/commands.sh" > "$work/cmds.ktap" 2>&1 || rc=$?
	grep '^not ok\|^ok\|# not ok: \|stale' "$work/cmds.ktap" | sed 's/^/#   /'
	if grep -q '^ok 1 commands_packaged # SKIP' "$work/cmds.ktap"; then
		SKIP_REASON=$(sed -n 's/^ok 1 commands_packaged # SKIP //p' "$work/cmds.ktap")
		return "$KSFT_SKIP"
	fi
	[ "$rc" != 0 ] && expect_in "$work/cmds.ktap" '^not ok 1 commands_packaged$' "the check passed (exit $rc)" || return "$KSFT_FAIL"
	# The scripts that run it: the injected one, and the kit's own (ci/build).
	grep -q "^# not ok: rsync: .*(rsync), run by $c/inject.sh[,:].*add \"rsync  $c/inject.sh[^\"]*\" to ci/deps$" "$work/cmds.ktap" ||
		{ echo "# rsync and its package not named"; return "$KSFT_FAIL"; }
	expect_in "$work/cmds.ktap" "^# not ok: rxkit-no-such-tool: not a command on this machine (run by $c/inject.sh)" "the unknown command not reported" || return "$KSFT_FAIL"
	expect_in "$work/cmds.ktap" "stale entry 'rxkit-gone-tool'" "the stale ignore entry not reported" || return "$KSFT_FAIL"
	expect_in "$work/cmds.ktap" "^# $knob: used by $c/inject.sh but not in doc/settings.md" \
		"a setting doc/settings.md does not name not reported" || return "$KSFT_FAIL"
	expect_in "$work/cmds.ktap" '^not ok 2 settings_documented$' "settings_documented passed" || return "$KSFT_FAIL"
	# With ci/deps as it is, rsync is allowed.
	RXKIT_COMMANDS_EXTRA="$c/inject.sh" \
		"$RXKIT_TOP/tests/commands.sh" > "$work/cmds2.ktap" 2>&1 || :
	grep -q '^# rsync: .*(rsync): in ci/deps$' "$work/cmds2.ktap" ||
		{ echo "# rsync not accepted through ci/deps:"; grep rsync "$work/cmds2.ktap" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
}

# The clean-root test's diagnosis of a failed stage: each way a missing
# command shows in a log (the shell's, make's, env's, need's) is named with
# the package that provides it here.
test_cleanroot_scan()
{
	local tp=
	cat > "$work/scan.log" <<'LOG'
  HDRINST usr/include/linux/vm_sockets.h
/bin/sh: 1: rsync: not found
make[2]: *** [Makefile:1536: headers_install] Error 127
images/mkinitramfs: line 9: cpio: command not found
make[1]: gzip: No such file or directory
env: 'qemu-system-x86_64': No such file or directory
build: error: 'bison' not found; install the Debian package 'bison' (make deps)
package: | dpkg-checkbuilddeps: error: Unmet build dependencies: build-essential:native debhelper-compat (= 13)
LOG
	"$RXKIT_TOP/tests/cleanroot.sh" --scan "$work/scan.log" > "$work/scan.out" 2>&1 ||
		{ sed 's/^/# /' "$work/scan.out"; return "$KSFT_FAIL"; }
	cat "$work/scan.out"
	expect_in "$work/scan.out" "build dependency 'build-essential'; Debian package: build-essential;" "the unmet build dependency build-essential not named" || return "$KSFT_FAIL"
	for tp in rsync:rsync cpio:cpio gzip:gzip qemu-system-x86_64:qemu-system-x86 bison:bison; do
		grep -q "not in the clean root: '${tp%%:*}'; Debian package: ${tp#*:};" "$work/scan.out" ||
			{ echo "# ${tp%%:*} (package ${tp#*:}) not named"; return "$KSFT_FAIL"; }
	done
	[ "$(wc -l < "$work/scan.out")" = 7 ] || { echo "# expected 7 missing packages"; return "$KSFT_FAIL"; }
}

# pipeline/gitlab refuses a .gitlab-ci.yml that is not what it writes (a job
# gone), a stage map that puts a stage before one it needs, and (through
# gitlab-ci-local, when ci/deps installed it) a need that names no job.
test_pipeline_refused()
{
	local g="$RXKIT_TOP/pipeline/gitlab" y="$work/gitlab-ci.yml"
	awk '/^results-table:/ { skip = 1 } /^$/ { skip = 0 } !skip' "$RXKIT_TOP/.gitlab-ci.yml" > "$y"
	expect_fail "$work/stale.err" "^gitlab: error: $y is stale: .*run pipeline/gitlab" \
		"$g" --check "$y" || return "$KSFT_FAIL"
	"$RXKIT_TOP/pipeline/stagegen" --gitlab-stages | sed 's/^\(ab-verdict-[0-9.]*\) verdict /\1 fetch /' > "$work/stages"
	expect_fail "$work/order.err" "^gitlab: error: stage ab-verdict-[0-9.]+ \(GitLab stage fetch\) needs build-[0-9.]+-patched of the later GitLab stage build$" \
		env RXKIT_GITLAB_STAGES="$work/stages" "$g" --output "$work/order.yml" || return "$KSFT_FAIL"
	[ ! -e "$work/order.yml" ] || { echo "# a refused graph left $work/order.yml"; return "$KSFT_FAIL"; }
	[ -x "$RXKIT_CACHE/npm/node_modules/.bin/gitlab-ci-local" ] || {
		SKIP_REASON="gitlab-ci-local not installed (ci/deps): the dangling need not checked"
		return "$KSFT_SKIP"
	}
	sed 's/^  needs: \[prepare-7.3\]$/  needs: [prepare-7.3, no-such-job]/' "$RXKIT_TOP/.gitlab-ci.yml" > "$y"
	grep -q no-such-job "$y" || { echo "# no need to make dangling in .gitlab-ci.yml"; return "$KSFT_FAIL"; }
	expect_fail "$work/dangling.err" "^gitlab: error: gitlab-ci-local refused $y" \
		"$g" --validate "$y" || return "$KSFT_FAIL"
	expect_in "$work/dangling.err" "no-such-job" "gitlab-ci-local's reason (the dangling need) not shown" ||
		return "$KSFT_FAIL"
}

# standin OUT FOLDER NAME VERSION: a stand-in .deb NAME VERSION in
# OUT/TARGET/FOLDER/packages (ci/repo reads the folder, not the contents).
standin()
{
	local p="$work/standin-$3-$4" d="$1/$target/$2/packages"
	mkdir -p "$p/DEBIAN" "$d"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: vsock-rxkit <rxkit@localhost>\nDescription: stand-in\n' \
		"$3" "$4" > "$p/DEBIAN/control"
	rm -f "$d"/*.deb
	dpkg-deb -b "$p" "$d/${3}_${4}_amd64.deb" > /dev/null || { echo "# dpkg-deb -b failed"; return 1; }
}

# index_has REPO SUITE COMPONENT "NAME VERSION"...: the suite's index of
# that component lists each, InRelease verifies with the published key.
index_has()
{
	local r="$1" s="$2" c="$3" v
	shift 3
	gpgv --keyring "$r/vsock-rxkit-archive-keyring.gpg" "$r/deb/dists/$s/InRelease" > "$work/repo.gpgv" 2>&1 ||
		{ echo "# $s's InRelease does not verify:"; sed 's/^/#   /' "$work/repo.gpgv"; return 1; }
	awk '/^Package: / { p = $2 } /^Version: / { print p, $2 }' "$r/deb/dists/$s/$c/binary-amd64/Packages" > "$work/index"
	for v in "$@"; do
		grep -qx "$v" "$work/index" || { echo "# the $c index of $s lacks $v:"; sed 's/^/#   /' "$work/index"; return 1; }
	done
}

# ci/repo: an unknown flavour, one without packages and a Debian release
# without a suite are refused with the command that helps; .deb packages
# alone (stand-ins, a key made in a private cache) give signed apt suites
# and no dnf repository; each flavour's packages land in the suite of the
# release they are for and in its component (ci/repo.d/components); an
# earlier version stays beside the new one, and INSTALL names the
# component's packages.
test_repo_flavour()
{
	local o="$work/repo-out" c="$work/repo-cache" r s h v
	expect_fail "$work/repo1.err" "^repo: error: --flavour nope: no kconfig/flavours/nope$" \
		env RXKIT_OUT="$o" RXKIT_CACHE="$c" "$RXKIT_TOP/ci/repo" --flavour nope "$target" || return "$KSFT_FAIL"
	expect_fail "$work/repo2.err" "^repo: error: no packages of $target in $o/$target/cloud/packages; run: ci/package --flavour cloud $target$" \
		env RXKIT_OUT="$o" RXKIT_CACHE="$c" "$RXKIT_TOP/ci/repo" --flavour cloud "$target" || return "$KSFT_FAIL"
	standin "$o" cloud linux-image-rxkit-standin 1 || return "$KSFT_FAIL"
	expect_fail "$work/repo4.err" "^repo: error: $target: no suite for the Debian release 'sid' \\(ci/repo.d/suites\\); run: ci/repo --suite CODENAME $target$" \
		env RXKIT_OUT="$o" RXKIT_CACHE="$c" "$RXKIT_TOP/ci/repo" --flavour cloud --suite sid "$target" || return "$KSFT_FAIL"
	s=$(sed -n 's/^image //p' "$(target_dir "$target")/debian-kernel" 2>/dev/null) || s=
	h=$(. /etc/os-release && echo "$VERSION_CODENAME")
	: "${s:=$h}"
	r="$o/repo"
	for v in 1 2; do
		standin "$o" cloud linux-image-rxkit-standin "$v" || return "$KSFT_FAIL"
		RXKIT_OUT="$o" RXKIT_CACHE="$c" "$RXKIT_TOP/ci/repo" --flavour cloud "$target" > "$work/repo3.log" 2>&1 ||
			{ echo "# ci/repo --flavour cloud failed:"; sed 's/^/#   /' "$work/repo3.log"; return "$KSFT_FAIL"; }
	done
	expect_in "$work/repo3.log" "no .rpm package among those of: $target" "the missing format not said" ||
		return "$KSFT_FAIL"
	[ ! -e "$r/rpm" ] && [ ! -e "$r/vsock-rxkit.repo" ] || { echo "# $r has a dnf repository"; return "$KSFT_FAIL"; }
	index_has "$r" "$s" main "linux-image-rxkit-standin 1" "linux-image-rxkit-standin 2" || return "$KSFT_FAIL"
	echo "# cloud: suite $s, component main, versions 1 and 2 both indexed, InRelease verified"
	standin "$o" . linux-image-rxkit-guest-standin 1 || return "$KSFT_FAIL"
	RXKIT_OUT="$o" RXKIT_CACHE="$c" "$RXKIT_TOP/ci/repo" "$target" > "$work/repo5.log" 2>&1 ||
		{ echo "# ci/repo failed:"; sed 's/^/#   /' "$work/repo5.log"; return "$KSFT_FAIL"; }
	index_has "$r" "$h" test "linux-image-rxkit-guest-standin 1" || return "$KSFT_FAIL"
	index_has "$r" "$s" main "linux-image-rxkit-standin 1" "linux-image-rxkit-standin 2" || return "$KSFT_FAIL"
	echo "# guest: suite $h, component test; the cloud suite still has both versions"
	expect_in "$r/INSTALL" "^  curl .* REPO_URI/vsock-rxkit-$s.sources$" "INSTALL names no sources file of $s" ||
		return "$KSFT_FAIL"
	expect_in "$r/INSTALL" "apt-get install linux-image-rxkit-standin$" "INSTALL names no apt-get install of the package" ||
		return "$KSFT_FAIL"
	expect_in "$r/INSTALL" "apt-get install linux-image-rxkit-guest-standin$" "INSTALL names no apt-get install of the test kernel" ||
		return "$KSFT_FAIL"
	! grep -q 'dnf install' "$r/INSTALL" || { echo "# INSTALL has a dnf line without a dnf repository"; return "$KSFT_FAIL"; }
	GNUPGHOME="$c/repo-key" gpgconf --kill gpg-agent 2> /dev/null || :
}

# images/mkbpftests refuses a vmlinux without BTF (and builds nothing), and
# a tree none of tests/data/bpf-selftests applies to (TARGET's tree with
# its vsock cases taken out).
test_bpftests_refused()
{
	local m="$RXKIT_TOP/images/mkbpftests" src= t="$work/bpftree"
	src="$(src_root "$target")/patched"
	[ -d "$src/tools/testing/selftests/bpf/prog_tests" ] || {
		SKIP_REASON="no prepared $target tree (ci/prepare $target)"
		return "$KSFT_SKIP"
	}
	mkdir -p "$work/nobtf"
	cp /bin/true "$work/nobtf/vmlinux"
	expect_fail "$work/nobtf.err" "^mkbpftests: error: $work/nobtf/vmlinux has no BTF: build the bpf flavour" \
		"$m" "$src" "$work/nobtf" || return "$KSFT_FAIL"
	[ ! -e "$work/nobtf/bpf-selftests" ] || { echo "# a refused build left $work/nobtf/bpf-selftests"; return "$KSFT_FAIL"; }
	mkdir -p "$t/tools/testing/selftests/bpf/prog_tests"
	cp "$src/tools/testing/selftests/bpf/Makefile" "$t/tools/testing/selftests/bpf/"
	echo 'void test_sockmap_basic(void) {}' > "$t/tools/testing/selftests/bpf/prog_tests/sockmap_basic.c"
	[ -z "$("$m" --cases "$t" "$work/nobtf")" ] || { echo "# a case applies to a tree without vsock cases"; return "$KSFT_FAIL"; }
	objcopy --add-section .BTF=/dev/null "$work/nobtf/vmlinux" "$work/nobtf/vmlinux.btf" &&
		mv "$work/nobtf/vmlinux.btf" "$work/nobtf/vmlinux"
	expect_fail "$work/nocase.err" "^mkbpftests: error: no case of .*/tests/data/bpf-selftests applies to $t" \
		"$m" "$t" "$work/nobtf" || return "$KSFT_FAIL"
	# A tree of the target whose selftests the kit's own no longer fit.
	[ -n "$(selftest_patches "$target")" ] || return "$KSFT_PASS"
	t="$work/$target/bent"
	mkdir -p "$t/tools/testing/selftests/bpf/prog_tests" "$t/tools/testing/selftests/bpf/progs"
	cp "$src/tools/testing/selftests/bpf/Makefile" "$t/tools/testing/selftests/bpf/"
	for f in $(selftest_files "$target"); do
		echo 'void test_sockmap_basic(void) {}' > "$t/$f"
	done
	expect_fail "$work/bent.err" "^mkbpftests: error: series/$target/selftests/.* does not apply to $target's tree with zero fuzz" \
		"$m" --cases "$t" "$work/nobtf"
}

# tests/packages_boot.sh: the other side of the cloud flavour's A/B is
# Debian's own kernel, --tree debian; the old name and a guest flavour of
# it are refused before anything is built or booted.
test_suite_options_refused()
{
	local b="$RXKIT_TOP/tests/packages_boot.sh" s="$RXKIT_TOP/tests/vsock_sockmap.sh"
	expect_fail "$work/cloud1.err" "^packages_boot: error: --tree baseline: .*run: tests/packages_boot.sh --tree debian --flavour cloud$" \
		"$b" --tree baseline --flavour cloud 7.3 || return "$KSFT_FAIL"
	expect_fail "$work/cloud2.err" "^packages_boot: error: --tree debian: .*run: tests/packages_boot.sh --tree debian --flavour cloud 7.3$" \
		"$b" --tree debian 7.3 || return "$KSFT_FAIL"
	expect_fail "$work/rounds.err" "^vsock_sockmap: error: --rounds needs a number, not '12x'$" \
		"$s" --rounds 12x 7.3 || return "$KSFT_FAIL"
	expect_fail "$work/ms.err" "^vsock_sockmap: error: --phase-ms needs a number$" \
		"$s" --phase-ms || return "$KSFT_FAIL"
	split_suite "the first:the second" || return "$KSFT_FAIL"
	expect_fail "$work/split.err" "^split.sh: error: TEST_DESCS has 3 descriptions for 2 tests; run: tests/split.sh -l, " \
		split_suite "the first:the second: split" || return "$KSFT_FAIL"
}

# shellcheck disable=SC2086
run_tests $TESTS
