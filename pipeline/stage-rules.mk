# SPDX-License-Identifier: GPL-2.0
# pipeline/stage-rules.mk: the generic rules of a stage and of a tier, included
# by the generated pipeline/stages.gen.mk between its lists and its stages (the
# stages themselves are pipeline/stage-table's rows).
#
# A stage is the file $(R)/NAME.json, made by pipeline/stage: it runs the
# stage's command when every stage it NEEDS passed, and records a skip
# with the reason otherwise.  AFTER lists stages it must not overlap
# (shared trees, caches or guests) without needing their success.  A
# stage whose record is newer than the records it waits for is not run
# again: make check starts from an empty $(R), make check KEEP=1 keeps
# the passed records and re-runs the rest.

R := $(RXKIT_OUT)/check
STAGE := pipeline/stage
# Durations of the last run ($(R)/../stage-times.mk, written by pipeline/check)
# for the plan (make -n).
-include $(RXKIT_OUT)/stage-times.mk

# $(call cores,STAGES): AFTER edges that only give the cores to the stages
# more wait for, on one machine.  Empty when make is asked with CORES=
# (pipeline/gitlab: jobs on runners of their own take no cores from each other).
CORES := 1
cores = $(if $(CORES),$(1))

# The head of the longest chain (build, packages, their suites): the
# stages that need nothing of it still start after it, so that it gets
# the cores first.  make -j starts the stages in the order of the tier's
# list as they become ready (ready at once: all of them before any that
# is ready later).
HEAD := $(call cores,build-$(TARGET)-patched)

# A tier: TARGET's stages, then each other target's, then those that
# close it (pipeline/stage-table's Tiers, Others and Last).  check-full runs the
# stages that other tiers record as skipped (their Full reason).
OTHERS := $(filter-out $(TARGET) none,$(or $(RXKIT_CHECK_TARGETS),$(KNOWN)))
ifeq ($(TIER),check-full)
FULL := 1
endif
STAGES := $(tier.$(TIER).$(TARGET)) $(foreach t,$(OTHERS),$(others.$(TIER).$(t))) \
	$(tail.$(TIER).$(TARGET))

# The benchmark's patched state: the posting's patches 1 to PATCHES.
bench_opts = $(if $(PATCHES),--patches $(PATCHES))
debug_why := the debug flavour is a full compile of its own (pipeline/stage-times.ref: build-T-debug): make check-full or make debug

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
