# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The command line and the kernel of a guest suite.  Sourced by
# tests/lib.sh.
# shellcheck disable=SC2034,SC2154 # the variables are the suite's

# guest_test_setup "$@": the command line shared by the guest test scripts,
# [--tree patched|baseline] [--flavour NAME] [-l] [-t NAME]... [-T NAME]...
# [TARGET] (parse_stage_args of ci/lib/args.sh; the caller defines usage(),
# TEST_NAMES and TEST_DESCS; TESTS is what -t and -T chose).  Sets tree, flavour, target,
# suffix (release mark), src, o, kernel, release and variant (artefact
# folder: TREE, or TREE-FLAVOUR for a flavour other than guest), and checks
# that the kernel is built.
guest_test_setup()
{
	parse_stage_args 'tree=patched flavour=guest tests' "$@"
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
	[ -f "$kernel" ] || die "$kernel missing; run: ci/build --tree $tree$([ "$flavour" = guest ] || echo " --flavour $flavour") $target"
	release=$(cat "$o/include/config/kernel.release")
}
