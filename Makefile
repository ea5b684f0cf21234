# SPDX-License-Identifier: GPL-2.0
# vsock-rxkit: the two commands of the README and the stages behind them.
# The stages and what each waits for are in ci/stages.mk; the targets here
# are sets of them.  make -n check prints the plan.

TARGET ?= 7.3
export RXKIT_TARGET := $(TARGET)
RXKIT_OUT ?= $(CURDIR)/out
export RXKIT_OUT
# Stages side by side: a build beside a TCG guest keeps two cores busy.
JOBS ?= 2
# The tier whose stages ci/stages.mk lists: run, check or check-full.
TIER ?= check
KNOWN := $(patsubst series/%/base,%,$(wildcard series/*/base))
ifeq ($(filter $(TARGET),$(KNOWN)),)
$(error TARGET=$(TARGET) is not one of: $(KNOWN))
endif

include ci/stages.mk

# One stage (or a few) on their own: fresh records, their prerequisites
# only when these have none.
one.fetch := fetch-$(TARGET)
one.prepare := prepare-$(TARGET)
one.build := build-$(TARGET)-patched build-$(TARGET)-baseline
one.test := loopback-$(TARGET)-patched
one.vhost := nested-$(TARGET)-patched nested-$(TARGET)-baseline ab-verdict-$(TARGET)
one.series := series-$(TARGET)
one.package := package-$(TARGET)
one.repo := repo-$(TARGET)
one.packages := cleanroot-$(TARGET) $(foreach s,build deb rpm repo boot dep8 refusals rebuild,packages-$(s)-$(TARGET))
one.summary := summary-$(TARGET)
one.bench := $(call bench_builds,$(TARGET)) bench-$(TARGET) bench-slow-$(TARGET)
one.bench-slow := $(call bench_builds,$(TARGET)) bench-slow-$(TARGET)
one.bench-smoke := $(call bench_builds,$(TARGET)) bench-smoke-$(TARGET)
one.debug := build-$(TARGET)-debug loopback-$(TARGET)-debug virtio-$(TARGET)-debug
one.sockmap := $(call sockmap_set,$(TARGET)) $(call bpf_set,$(TARGET))
one.cloud := cloud-config-$(TARGET) $(call cloud_set,$(TARGET))
one.census := census-$(TARGET)
# Printed before the stages start: how long the cloud build should take.
pre.cloud := ci/build --estimate --flavour cloud $(TARGET)
full.debug := FULL=1
full.packages := FULL=1
ONE := $(patsubst one.%,%,$(filter one.%,$(.VARIABLES)))

.PHONY: all help run check check-full deps stages plan pipeline clean $(ONE)

all: help

help:
	@echo 'make run         fetch, patch, build, boot and test, package the $(TARGET) kernel'
	@echo 'make check       the test suite (.ci/run calls exactly this); KEEP=1 re-runs only'
	@echo '                 the stages that did not pass last time'
	@echo 'make check-full  make check plus the debug flavour, the kernels and guest suites of'
	@echo '                 every other target, the loaded nested suites, the -dbg and clean-root builds'
	@echo 'make plan        the plan: every stage, what it needs and waits for, its last duration'
	@echo 'make pipeline    the check-full graph as the GitLab pipeline (.gitlab-ci.yml, ci/gitlab),'
	@echo '                 run here by gitlab-ci-local: its estimate first, then every job'
	@echo '                 (hours on 2 cores; PIPELINE_JOBS="JOB...": those jobs alone)'
	@echo 'make $(ONE)'
	@echo '                 those stages alone (ci/stages.mk says which); make bench: the'
	@echo '                 benchmark of tests/bench.sh (the two kernels, 8 AB/BA pairs); make'
	@echo '                 bench-smoke: its smoke sweep (make check runs it); make bench-slow:'
	@echo '                 the slow-reader scenario of tests/bench_slow.sh (in make bench)'
	@echo '                 make sockmap: tests/vsock_sockmap.sh on the guest kernels (in make check)'
	@echo '                 and the kernel'"'"'s BPF selftests on the bpf flavour (in check-full)'
	@echo '                 make repo: the packages as a signed apt and dnf repository (ci/repo)'
	@echo '                 make cloud: the cloud flavour (Debian'"'"'s cloud configuration + vsock)'
	@echo '                 built and packaged in out/TARGET/cloud/ (in check-full; 78 min cold)'
	@echo '                 make census: every guest suite of make check, both trees, RUNS=N'
	@echo '                 times (10) with both cores busy; fails naming a case whose verdict varies'
	@echo 'TARGET=$(TARGET) ($(KNOWN)), JOBS=$(JOBS), RXKIT_CACHE, RXKIT_OUT, RXKIT_ACCEL=auto|kvm|tcg'
	@echo 'RXKIT_CHECK_TARGETS="6.1 6.12 6.18" (default: all; none): the other targets of make check'

deps:
	ci/deps

# The stages of $(TIER), through the sub-make: make check starts from an
# empty $(R) (KEEP=1: only the records that did not pass are removed).
# TARGET's tree first: make -j then starts its kernel build, the head of
# the longest chain, before the stages that do not wait for it (on a cold
# cache it started the other targets' fetches and the roots first).
stages: $(STAGES:%=$(R)/%.json)

run check check-full: deps
	$(if $(KEEP),tests/check --prune $(R),rm -rf $(R))
	@mkdir -p $(R) && touch $(R)/.started
	+@$(MAKE) --no-print-directory -k -j$(JOBS) TIER=$@ $(R)/prepare-$(TARGET).json
	+@$(MAKE) --no-print-directory -k -j$(JOBS) TIER=$@ stages
	@tests/check --since $(R)/.started $(R)

$(ONE): deps
	$(pre.$@)
	rm -f $(one.$@:%=$(R)/%.json)
	@mkdir -p $(R) && touch $(R)/.started
	+@$(MAKE) --no-print-directory -k -j$(JOBS) $(full.$@) STAGES='$(one.$@)' $(one.$@:%=$(R)/%.json)
	@tests/check --since $(R)/.started $(R)

# The plan of a tier as a table, without running anything.
plan:
	@$(MAKE) --no-print-directory -n -B TIER=$(TIER) stages | tests/check --plan

# The GitLab pipeline (ci/gitlab writes .gitlab-ci.yml from the graph of
# check-full) on this machine through gitlab-ci-local's shell executor,
# JOBS jobs at a time: the plan and the wall-time estimate first, the
# report of the records last (gitlab-ci-local's exit is not the verdict).
pipeline: deps
	ci/gitlab --check
	ci/gitlab --estimate
	rm -f $(if $(PIPELINE_JOBS),$(PIPELINE_JOBS:%=$(R)/%.json),$(R)/*.json)
	@mkdir -p $(R) && touch $(R)/.started
	-ci/gitlab --run --concurrency $(JOBS) $(PIPELINE_JOBS)
	@tests/check --since $(R)/.started $(R)

clean:
	rm -rf out
