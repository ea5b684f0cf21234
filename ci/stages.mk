# SPDX-License-Identifier: GPL-2.0
# ci/stages.mk: every stage of the pipeline and what it waits for, stated
# once.  Included by the Makefile; make run, make check, make check-full
# and the CI pipeline are sets of these stages (the tiers at the end).
#
# A stage is the file $(R)/NAME.json, made by ci/stage: it runs the
# stage's command when every stage it NEEDS passed, and records a skip
# with the reason otherwise.  AFTER lists stages it must not overlap
# (shared trees, caches or guests) without needing their success.  A
# stage whose record is newer than the records it waits for is not run
# again: make check starts from an empty $(R), make check KEEP=1 keeps
# the passed records and re-runs the rest.

R := $(RXKIT_OUT)/check
STAGE := ci/stage
# Kernel builds yield to the guests: TCG guests time their jobs (the
# stages that compile and boot no timed job: builds, package builds,
# refusals, error paths, the clean root).  The per-patch compiles of the
# series yield to the kernel builds, which the most stages wait for.
NICE := nice -n 10
NICE_SERIES := nice -n 15
# Durations of the last run ($(R)/../stage-times.mk, written by tests/check)
# for the plan (make -n).
-include $(RXKIT_OUT)/stage-times.mk

# $(call cores,STAGES): AFTER edges that only give the cores to the stages
# more wait for, on one machine (HEAD's, the debug and bpf builds after the
# guest builds).  Empty when make is asked with CORES= (ci/gitlab: jobs
# on runners of their own take no cores from each other).
CORES := 1
cores = $(if $(CORES),$(1))

# The head of the longest chain (build, packages, their suites): the
# stages that need nothing of it still start after it, so that it gets
# the cores first.  make -j starts the stages in the order of the tier's
# list as they become ready (ready at once: all of them before any that
# is ready later).
HEAD := $(call cores,build-$(TARGET)-patched)

# $(call stage,NAME,NEEDS,COMMAND[,AFTER])
define stage
$$(R)/$(1).json: $(foreach n,$(2),$$(R)/$(n).json) | $(foreach n,$(filter $(STAGES),$(4)),$$(R)/$(n).json)
	@$$(STAGE) $(1) $(2) -- $(3) # after: $(or $(filter $(STAGES),$(4)),-); last: $$(or $$(last.$(1)),?) s
endef

# $(call skipped,NAME,REASON): a stage this tier lists but does not run.
define skipped
$$(R)/$(1).json:
	@$$(STAGE) --skip '$(2)' $(1) -- true
endef

# The series of a target: fetched, applied with zero fuzz, then every
# patch applied, compiled with W=1 and checkpatch'ed on its own.
define series_stages
$(call stage,fetch-$(1),,ci/fetch $(1),$(if $(filter $(1),$(TARGET)),,$(HEAD)))
$(call stage,prepare-$(1),fetch-$(1),ci/prepare $(1))
$(call stage,series-$(1),prepare-$(1),$(NICE_SERIES) tests/series.sh $(1),build-$(1)-patched)
endef

# The kernels of a target and the guest suites on them.  The baseline
# builds after the patched kernel (which more stages wait for): its
# compiles are then ccache hits of the patched build's, where two cold
# builds side by side compile everything twice.  The suites: loopback, the
# vhost-user device (vhost-device-vsock), kernel vhost-vsock in a nested
# host (whose L1 is the baseline kernel), and the A/B verdict.  The two
# nested suites share the cached L1 QEMU bundle: one after the other.
define kernel_stages
$(call stage,build-$(1)-patched,prepare-$(1),$(NICE) ci/build --tree patched $(1))
$(call stage,build-$(1)-baseline,prepare-$(1),$(NICE) ci/build --tree baseline $(1),build-$(1)-patched)
$(call stage,loopback-$(1)-patched,build-$(1)-patched,tests/vsock_loopback.sh --tree patched $(1))
$(call stage,loopback-$(1)-baseline,build-$(1)-baseline,tests/vsock_loopback.sh --tree baseline $(1))
$(call stage,virtio-$(1)-patched,build-$(1)-patched,tests/vsock_vhost_user.sh --tree patched $(1))
$(call stage,virtio-$(1)-baseline,build-$(1)-baseline,tests/vsock_vhost_user.sh --tree baseline $(1))
$(call stage,nested-$(1)-patched,build-$(1)-patched build-$(1)-baseline,tests/vsock_nested.sh --tree patched $(1))
$(call stage,nested-$(1)-baseline,build-$(1)-baseline,tests/vsock_nested.sh --tree baseline $(1),nested-$(1)-patched)
$(call stage,ab-verdict-$(1),build-$(1)-patched build-$(1)-baseline,tests/ab-verdict $(1),$(foreach s,loopback virtio nested sockmap,$(s)-$(1)-patched $(s)-$(1)-baseline))
endef

# The debug flavour (kconfig/flavours/debug: lockdep, KASAN,
# DEBUG_OBJECTS) of a target's patched kernel; any report fails.  The byte
# checks move less data: KASAN under TCG moves 256 MiB in about 90 s.
# make check-full and make debug: its kernel is a full compile of its own
# (no ccache shared with the guest flavour), 40 min on a cold cache beside
# the other stages of make check, which then took over 90 min.
debug_why := the debug flavour is a full compile of its own (40 min cold on 2 cores): make check-full or make debug
define debug_run
$(call stage,build-$(1)-debug,prepare-$(1),$(NICE) ci/build --tree patched --flavour debug $(1),$(call cores,build-$(1)-patched))
$(call stage,loopback-$(1)-debug,build-$(1)-debug,tests/vsock_loopback.sh --tree patched --flavour debug $(1))
$(call stage,virtio-$(1)-debug,build-$(1)-debug,env RXKIT_VHOST_USER_H2G_BYTES=32M RXKIT_VHOST_USER_H2G_STREAM_BYTES=8M tests/vsock_vhost_user.sh --tree patched --flavour debug $(1))
endef
define debug_skip
$(call skipped,build-$(1)-debug,$(debug_why))
$(call skipped,loopback-$(1)-debug,$(debug_why))
$(call skipped,virtio-$(1)-debug,$(debug_why))
endef
debug_stages = $(if $(FULL),$(call debug_run,$(1)),$(call debug_skip,$(1)))

# The BPF sockmap hand-off (issue 14) of a target, in two parts.  The
# kit's hand-off test (tests/rxkit-sockmap.c: a vsock socket in and out of
# a sockmap while records flow, over loopback and through the virtio
# device) needs only BPF_SYSCALL, which the guest flavour has
# (kconfig/bpf.config): it runs on the guest kernels of both trees, and
# ab-verdict-T compares it with the other guest suites (make check for
# TARGET).  The vsock cases of the kernel's own BPF selftests (test_progs)
# need the kernel's BTF (DEBUG_INFO_BTF, kconfig/bpf-selftests.config):
# the bpf flavour, a compile of its own with debug info (845 s here after
# the guest kernel's cold compile, 1629 of 1876 compiles missed; make
# check on a fresh machine took over 90 min with it) after the guest
# builds, its baseline build then ccache hits, and their A/B verdict
# (make check-full for every target with the vsock sockmap, make sockmap).
define sockmap_stages
$(call stage,sockmap-$(1)-patched,build-$(1)-patched,tests/vsock_sockmap.sh --tree patched --flavour guest $(1))
$(call stage,sockmap-$(1)-baseline,build-$(1)-baseline,tests/vsock_sockmap.sh --tree baseline --flavour guest $(1))
$(call stage,build-$(1)-bpf-patched,prepare-$(1),$(NICE) ci/build --tree patched --flavour bpf $(1),$(call cores,build-$(1)-patched build-$(1)-baseline))
$(call stage,build-$(1)-bpf-baseline,prepare-$(1),$(NICE) ci/build --tree baseline --flavour bpf $(1),build-$(1)-bpf-patched)
$(call stage,bpf-selftests-$(1)-patched,build-$(1)-bpf-patched,env RXKIT_SOCKMAP_TESTS=bpf_selftests tests/vsock_sockmap.sh --tree patched --flavour bpf $(1))
$(call stage,bpf-selftests-$(1)-baseline,build-$(1)-bpf-baseline,env RXKIT_SOCKMAP_TESTS=bpf_selftests tests/vsock_sockmap.sh --tree baseline --flavour bpf $(1))
$(call stage,ab-verdict-$(1)-bpf,build-$(1)-bpf-patched build-$(1)-bpf-baseline,tests/ab-verdict --flavour bpf $(1),bpf-selftests-$(1)-patched bpf-selftests-$(1)-baseline)
endef
sockmap_set = sockmap-$(1)-patched sockmap-$(1)-baseline
bpf_set = build-$(1)-bpf-patched build-$(1)-bpf-baseline \
	bpf-selftests-$(1)-patched bpf-selftests-$(1)-baseline ab-verdict-$(1)-bpf
# The targets whose line has the vsock sockmap (6.4 and later): those
# whose series refuses no tree for having it (series/6.1/refuse names
# net/vmw_vsock/vsock_bpf.c: series/6.1 is for trees without it).
sockmap_targets = $(foreach t,$(1),$(if $(wildcard series/$(t)/refuse),,$(t)))

# The cloud flavour (kconfig/flavours/cloud, issue 15): Debian's cloud
# configuration of the target with the vsock fragments, built and packaged
# (DEB, RPM, -dbg).  Its build is a full compile of a distribution kernel
# with debug info (hours cold here: ci/build --estimate), so make check
# runs only its configuration (tests/cloud_config.sh: Debian's files
# fetched and checked against their pins, the flavour resolved and diffed
# against Debian's, a foreign change refused); make check-full and make
# cloud build and package it, after the guest builds.  Its fetches of
# Debian's files update the private apt states ci/fetch updates: after
# every fetch stage.
define cloud_stages
$(call stage,cloud-config-$(1),prepare-$(1),tests/cloud_config.sh $(1),$(HEAD) $(foreach t,$(KNOWN),fetch-$(t)))
$(call stage,build-$(1)-cloud,prepare-$(1),$(NICE) ci/build --tree patched --flavour cloud $(1),$(call cores,build-$(1)-patched build-$(1)-baseline) cloud-config-$(1))
$(call stage,package-$(1)-cloud,build-$(1)-cloud,$(NICE) ci/package --flavour cloud $(1))
$(call stage,cloud-boot-$(1)-patched,package-$(1)-cloud vm-image-$(call debian_image,$(1)),tests/packages_boot.sh --tree patched --flavour cloud $(1))
$(call stage,cloud-boot-$(1)-baseline,prepare-$(1) vm-image-$(call debian_image,$(1)),tests/packages_boot.sh --tree baseline --flavour cloud $(1),package-$(1)-cloud)
$(call stage,ab-verdict-$(1)-cloud,package-$(1)-cloud,tests/ab-verdict --flavour cloud $(1),cloud-boot-$(1)-patched cloud-boot-$(1)-baseline)
endef
# The cloud kernel installed from the kit's repository and booted in the
# VM image, and Debian's own kernel of the same version (series/T/debian-
# kernel, ci/debian-kernel) the same way: the A/B a Debian user makes.
# Only the targets that pin Debian's kernel have the boots, in the VM image
# of the Debian release that kernel is for (its pin's "image" line; a
# stage vm-image-RELEASE of each such release, cached by content as
# vm-image).
cloud_set = build-$(1)-cloud package-$(1)-cloud $(if $(wildcard series/$(1)/debian-kernel),vm-image-$(call debian_image,$(1)) cloud-boot-$(1)-patched cloud-boot-$(1)-baseline ab-verdict-$(1)-cloud)
debian_image = $(shell sed -n 's/^image //p' series/$(1)/debian-kernel 2>/dev/null)
image_releases := $(sort $(foreach t,$(KNOWN),$(call debian_image,$(t))))

# The nested verdicts again with every core busy, as on a shared runner
# (artefacts apart, in $(RXKIT_OUT)/loaded).  The flake census (make
# census, in no tier): every guest suite of make check, both trees,
# RUNS times (default 10) under that load, each case's verdicts counted.
define loaded_stages
$(call stage,census-$(1),build-$(1)-patched build-$(1)-baseline packages-build-$(1) vm-image,tests/census $(if $(RUNS),-n $(RUNS)) $(1))
$(call stage,nested-$(1)-patched-loaded,build-$(1)-patched build-$(1)-baseline,env RXKIT_OUT=$(RXKIT_OUT)/loaded tests/under-load tests/vsock_nested.sh --tree patched $(1),nested-$(1)-baseline)
$(call stage,nested-$(1)-baseline-loaded,build-$(1)-baseline,env RXKIT_OUT=$(RXKIT_OUT)/loaded tests/under-load tests/vsock_nested.sh --tree baseline $(1),nested-$(1)-patched-loaded)
endef

# The packages of a target (make run: ci/package alone).  The clean-root
# test runs the stages on a Debian base root, ci/package last: the
# packages are built there once (from the source packages through the
# ccache the kernel build filled, as a buildd builds them) and published;
# the build suite checks them (--reuse: a second build here cost 5.5 min
# of both cores), the Debian and RPM suites install, boot, upgrade and
# remove them, the repository suite publishes them (ci/repo) and installs
# from the signed repositories with apt and dnf, the boot suite installs
# the kernel from that repository in a Debian VM image (tests/mkimage:
# systemd, GRUB) and reboots into it and back (after the repository
# suite: both publish $RXKIT_OUT/repo).  make run and make repo:
# ci/repo after ci/package.  ci/package stages one build of a target at a time (its
# lock): the suites that build (deb's upgrade, rebuild) run one after
# another; the refusals stage apart.  The rebuilds (check-full): a second
# build, byte-identical, the -dbg package and the clean build root
# (compiles without ccache hits).  The DEP-8 suite (check-full): the
# source package's own debian/tests run by autopkgtest in the kit's VM
# image, after the boot suite on one machine (both TCG guests).
define package_stages
$(call stage,package-$(1),build-$(1)-patched,ci/package $(1))
$(call stage,repo-$(1),package-$(1),ci/repo $(1))
$(call stage,packages-build-$(1),cleanroot-$(1),tests/packages_build.sh --reuse $(1))
$(call stage,packages-deb-$(1),packages-build-$(1) rootfs,tests/packages_deb.sh $(1))
$(call stage,packages-rpm-$(1),packages-build-$(1) rootfs,tests/packages_rpm.sh $(1))
$(call stage,packages-repo-$(1),packages-build-$(1) rootfs,tests/packages_repo.sh $(1))
$(call stage,packages-boot-$(1),packages-build-$(1) vm-image,tests/packages_boot.sh $(1),packages-repo-$(1))
$(call stage,packages-refusals-$(1),prepare-$(1),$(NICE) tests/packages_refusals.sh $(1),$(HEAD))
$(if $(FULL),$(call stage,packages-dep8-$(1),packages-build-$(1),tests/packages_dep8.sh $(1),$(call cores,packages-boot-$(1))),$(call skipped,packages-dep8-$(1),the DEP-8 test of the source package under autopkgtest-virt-qemu (three TCG boots, the source unpacked and the vsock tests built in the guest): make check-full or make packages))
$(if $(FULL),$(call stage,packages-rebuild-$(1),packages-build-$(1) rootfs,$(NICE) tests/packages_rebuild.sh $(1),packages-deb-$(1)),$(call skipped,packages-rebuild-$(1),reproducible (a second package build) and deb_dbg and deb_clean_build (a full compile each): make check-full or make packages))
$(call stage,cleanroot-$(1),rootfs-base,$(NICE) tests/cleanroot.sh $(1),build-$(1)-patched)
endef

# The benchmark of a target (make bench; tests/bench.sh): the guest
# flavour's kernels (it carries the kprobe events of the per-packet
# counters), then the sweep in AB/BA pairs.  make check runs the smoke
# sweep (three payloads, two pairs): its assertions are the counters and
# the bytes, never the time.  The slow-reader scenario (make bench,
# make bench-slow: tests/bench_slow.sh) after the sweep.  PATCHES=N (make
# bench): the patched state is the posting's patches 1 to N (ci/prepare
# --upto N: the tree patched-N, built after the patched tree, from its
# ccache).  BENCH_BACKEND=vhost-vsock (make bench): the sweep behind the kernel's
# vhost-vsock (tests/bench.sh --backend; the slow reader stays on
# vhost-user).
bench_opts = $(if $(PATCHES),--patches $(PATCHES))
bench_builds = build-$(1)-baseline $(if $(PATCHES),build-$(1)-patched-$(PATCHES),build-$(1)-patched)
define bench_stages
$(if $(PATCHES),$(call stage,prepare-$(1)-upto,prepare-$(1),ci/prepare --upto $(PATCHES) $(1)))
$(if $(PATCHES),$(call stage,build-$(1)-patched-$(PATCHES),prepare-$(1)-upto,$(NICE) ci/build --tree patched-$(PATCHES) $(1),build-$(1)-patched))
$(call stage,bench-$(1),$(call bench_builds,$(1)),tests/bench.sh $(bench_opts) $(if $(BENCH_BACKEND),--backend $(BENCH_BACKEND)) $(1))
$(call stage,bench-smoke-$(1),$(call bench_builds,$(1)),tests/bench.sh --smoke $(bench_opts) $(1))
$(call stage,bench-slow-$(1),$(call bench_builds,$(1)),tests/bench_slow.sh $(bench_opts) $(1),bench-$(1))
endef

# The stages of the tiers, in the order make should start them: the
# longest chain first (build, packages, clean root), then the guests, the
# error paths and the kit's own checks.
run_set = fetch-$(1) prepare-$(1) build-$(1)-patched build-$(1)-baseline \
	loopback-$(1)-patched loopback-$(1)-baseline virtio-$(1)-patched \
	virtio-$(1)-baseline package-$(1) repo-$(1) summary-$(1)
kernel_set = build-$(1)-patched build-$(1)-baseline build-$(1)-debug \
	loopback-$(1)-patched loopback-$(1)-baseline virtio-$(1)-patched \
	virtio-$(1)-baseline nested-$(1)-patched nested-$(1)-baseline \
	ab-verdict-$(1) loopback-$(1)-debug virtio-$(1)-debug bench-smoke-$(1)
check_set = fetch-$(1) prepare-$(1) build-$(1)-patched rootfs rootfs-base vm-image \
	cleanroot-$(1) packages-build-$(1) build-$(1)-baseline build-$(1)-debug \
	packages-deb-$(1) packages-rpm-$(1) packages-repo-$(1) packages-boot-$(1) packages-dep8-$(1) nested-$(1)-patched nested-$(1)-baseline virtio-$(1)-patched \
	virtio-$(1)-baseline loopback-$(1)-patched loopback-$(1)-baseline \
	loopback-$(1)-debug virtio-$(1)-debug ab-verdict-$(1) \
	packages-refusals-$(1) packages-rebuild-$(1) errors-build errors-tools \
	series-$(1) bench-smoke-$(1) static commands shellcheck timing bench-tools \
	errors-fetch pipeline cloud-config-$(1) \
	$(foreach t,$(call sockmap_targets,$(1)),$(call sockmap_set,$(t)))
OTHERS := $(filter-out $(TARGET) none,$(or $(RXKIT_CHECK_TARGETS),$(KNOWN)))
ifeq ($(TIER),run)
STAGES := $(call run_set,$(TARGET))
else ifeq ($(TIER),check)
STAGES := $(call check_set,$(TARGET)) \
	$(foreach t,$(OTHERS),fetch-$(t) prepare-$(t) series-$(t))
else ifeq ($(TIER),check-full)
FULL := 1
STAGES := $(call check_set,$(TARGET)) \
	nested-$(TARGET)-patched-loaded nested-$(TARGET)-baseline-loaded \
	$(call cloud_set,$(TARGET)) \
	$(foreach t,$(OTHERS),fetch-$(t) prepare-$(t) series-$(t) $(call kernel_set,$(t))) \
	$(foreach t,$(call sockmap_targets,$(OTHERS)),$(call sockmap_set,$(t))) \
	$(foreach t,$(call sockmap_targets,$(TARGET) $(OTHERS)),$(call bpf_set,$(t)))
endif
# Every tier ends with the check of every result file it wrote and their
# table (target x suite x tree).
STAGES += results-json results-table

# The stages themselves.
# The clean root's base beside the first build, not after it: the clean
# root (the packages' chain) is then ready the moment that build is, and
# make starts it first (made ready later, it waited behind every guest
# suite: 23 min into make check).  Cached, it takes a second; cold, a
# debootstrap of the base system.
$(eval $(call stage,rootfs,,tests/mkrootfs))
$(eval $(call stage,rootfs-base,,tests/mkrootfs --base,rootfs))
# The Debian VM image of the boot suite (tests/mkimage: the base root plus
# Debian's cloud kernel and GRUB), made beside the kernel builds; cached,
# it takes seconds.
$(eval $(call stage,vm-image,rootfs-base,tests/mkimage))
$(foreach d,$(image_releases),$(eval $(call stage,vm-image-$(d),,tests/mkimage --suite $(d),rootfs-base)))
# The kit itself: the series against the posting and each other, every
# command packaged, shellcheck; the error paths of the stages (each with
# private caches, next to the trees it reads).
$(eval $(call stage,static,,tests/static.sh $(TARGET),$(foreach t,$(TARGET) $(OTHERS),prepare-$(t)) $(HEAD)))
$(eval $(call stage,commands,,tests/commands.sh,$(HEAD)))
$(eval $(call stage,shellcheck,,tests/shellcheck.sh,$(HEAD)))
# The fixed waits of the programs the guests run against their inventory
# in every prepared tree, the scaled rewrite compiled with TARGET's UAPI
# headers (after its build), the census's table on fixtures.
$(eval $(call stage,timing,,tests/timing.sh $(TARGET),$(foreach t,$(TARGET) $(OTHERS),prepare-$(t)) $(HEAD)))
# The GitLab pipeline (ci/gitlab): .gitlab-ci.yml is the graph's, resolves
# in gitlab-ci-local, and one of its jobs runs there.
$(eval $(call stage,pipeline,,tests/pipeline.sh,$(HEAD)))
# The benchmarks' tools on this machine, and the C style (checkpatch of
# TARGET's tree).
$(eval $(call stage,bench-tools,,tests/bench_tools.sh $(TARGET),fetch-$(TARGET) $(HEAD)))
$(eval $(call stage,errors-fetch,,tests/errors_fetch.sh $(TARGET),fetch-$(TARGET) $(HEAD)))
$(eval $(call stage,errors-build,,$(NICE) tests/errors_build.sh $(TARGET),build-$(TARGET)-patched build-$(TARGET)-baseline series-$(TARGET)))
$(eval $(call stage,errors-tools,,tests/errors_tools.sh $(TARGET),build-$(TARGET)-patched))
$(foreach t,$(KNOWN),$(eval $(call series_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call kernel_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call debug_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call loaded_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call sockmap_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call cloud_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call package_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call bench_stages,$(t))))
$(foreach t,$(KNOWN),$(eval $(call stage,summary-$(t),,ci/summary $(t),$(filter-out summary-$(t) results-json results-table,$(STAGES)))))
$(eval $(call stage,results-json,,tests/results validate $(RXKIT_OUT),$(filter-out results-json results-table,$(STAGES))))
$(eval $(call stage,results-table,,tests/results table $(RXKIT_OUT),$(filter-out results-table,$(STAGES))))
