# SPDX-License-Identifier: GPL-2.0
# vsock-rxkit: the two commands of the README and the stages behind them.
# The stages and what each waits for are pipeline/stage-table's rows (made into
# pipeline/stages.gen.mk by pipeline/stagegen); the targets here are sets of them.  make -n check prints the plan.

TARGET ?= 7.3
export RXKIT_TARGET := $(TARGET)
RXKIT_OUT ?= $(CURDIR)/out
export RXKIT_OUT
# Stages side by side: a build beside a TCG guest keeps two cores busy.
JOBS ?= 2
# The tier whose stages pipeline/stage-table lists: run, check or check-full.
TIER ?= check
KNOWN := $(patsubst series/%/base,%,$(wildcard series/*/base))
ifeq ($(filter $(TARGET),$(KNOWN)),)
$(error TARGET=$(TARGET) is not one of: $(KNOWN))
endif

include pipeline/stages.gen.mk

# The groups (make GROUP: those stages alone, fresh records, their
# prerequisites only when these have none, in their After order:
# group-needs) are pipeline/stage-table's.
ONE := $(GROUPS)
one = $(group.$(1).$(TARGET))

.PHONY: all help run check check-full deps stages scheduled plan pipeline mail clean $(ONE)

all: help

help:
	@echo 'make run         fetch, patch, build, boot and test, package the $(TARGET) kernel'
	@echo 'make check       the test suite (.ci/run calls exactly this); KEEP=1 re-runs only'
	@echo '                 the stages that did not pass last time'
	@echo 'make check-full  make check plus the debug flavour, the kernels and guest suites of'
	@echo '                 every other target, the loaded nested suites, the -dbg and clean-root builds'
	@echo 'make plan        the plan: every stage, what it needs and waits for, its last duration'
	@echo 'make pipeline    the check-full graph as the GitLab pipeline (.gitlab-ci.yml, pipeline/gitlab),'
	@echo '                 run here by gitlab-ci-local: its estimate first, then every job'
	@echo '                 (hours on 2 cores; PIPELINE_JOBS="JOB...": those jobs alone)'
	@echo 'make mail        the kit'"'"'s fix and its selftest as a series for netdev, in'
	@echo '                 out/$(TARGET)/mail/ (ci/mail; never sent; RXKIT_MAINTAINER the sender)'
	@echo 'make GROUP       the stages of GROUP alone (pipeline/stage-table; make -n GROUP lists them):'
	@printf '%s\t%s\n' $(foreach g,$(GROUPS),'$(g)' '$(subst ','"'"',$(group-help.$(g)))') | \
		awk -F '\t' '{ g[NR] = $$1; h[NR] = $$2; if (length($$1) > w) w = length($$1) } \
			END { for (i = 1; i <= NR; i++) printf "  %-" w "s %s\n", g[i], h[i] }'
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

# The stages of no tier that a GitLab schedule runs (pipeline/stage-table:
# Schedule): pipeline/gitlab's graph has them too.
scheduled: $(SCHEDULED:%=$(R)/%.json)

run check check-full: deps
	$(if $(KEEP),pipeline/check --prune $(R),rm -rf $(R))
	@mkdir -p $(R) && touch $(R)/.started
	+@$(MAKE) --no-print-directory -k -j$(JOBS) TIER=$@ $(R)/prepare-$(TARGET).json
	+@$(MAKE) --no-print-directory -k -j$(JOBS) TIER=$@ stages
	@pipeline/check --since $(R)/.started $(R)

$(ONE): deps
	@[ -n "$(strip $(call one,$@))" ] || { echo "make: error: group $@ has no stage for TARGET=$(TARGET) (pipeline/stage-table: When); run: make help" >&2; exit 2; }
	$(group-before.$@)
	rm -f $(patsubst %,$(R)/%.json,$(call one,$@))
	@mkdir -p $(R) && touch $(R)/.started
	+@$(MAKE) --no-print-directory -k -j$(JOBS) $(group-full.$@) STAGES='$(strip $(call one,$@) $(group-needs.$@.$(TARGET)))' $(patsubst %,$(R)/%.json,$(call one,$@))
	@pipeline/check --since $(R)/.started $(R)

# The plan of a tier as a table, without running anything.
plan:
	@$(MAKE) --no-print-directory -n -B TIER=$(TIER) stages | pipeline/check --plan

# The GitLab pipeline (pipeline/gitlab writes .gitlab-ci.yml from the graph of
# check-full) on this machine through gitlab-ci-local's shell executor,
# JOBS jobs at a time: the plan and the wall-time estimate first, the
# report of the records last (gitlab-ci-local's exit is not the verdict).
pipeline: deps
	pipeline/gitlab --check
	pipeline/gitlab --estimate
	rm -f $(if $(PIPELINE_JOBS),$(PIPELINE_JOBS:%=$(R)/%.json),$(R)/*.json)
	@mkdir -p $(R) && touch $(R)/.started
	-ci/gitlab --run --concurrency $(JOBS) $(PIPELINE_JOBS)
	@pipeline/check --since $(R)/.started $(R)

# The kit's own fix and its selftest as a patch series for netdev, checked
# and ready for git send-email; nothing is sent.
mail:
	ci/mail $(TARGET)

clean:
	rm -rf out
