# SPDX-License-Identifier: GPL-2.0
# vsock-rxkit: the two commands of the README, and the stages behind them.

TARGET ?= 7.3
export RXKIT_TARGET := $(TARGET)

.PHONY: all run check check-full deps fetch prepare build test vhost series packages package summary clean help

all: help

help:
	@echo 'make run      fetch, patch, build, boot and test, package the $(TARGET) kernel'
	@echo 'make check    the test suite (.ci/run calls exactly this)'
	@echo 'make check-full  make check plus the nested vhost-vsock suite and the debug flavour of every other target'
	@echo 'make vhost    vsock_test both ways over real vhost-vsock (nested host here) for patched and baseline, and the A/B verdict'
	@echo 'make deps|fetch|prepare|build|test|package   one stage'
	@echo 'make series   per-patch apply, W=1 compile and checkpatch of series/$$TARGET'
	@echo 'make packages install, boot, upgrade, remove the .deb and .rpm (tests/packages.sh)'
	@echo 'TARGET=$(TARGET) (series/*), RXKIT_CACHE, RXKIT_OUT, RXKIT_ACCEL=auto|kvm|tcg'
	@echo 'RXKIT_CHECK_TARGETS="6.1 6.12 6.18" (default: all; none): the other targets of make check'

run: deps
	ci/fetch $(TARGET)
	ci/prepare $(TARGET)
	ci/build $(TARGET)
	tests/vsock_loopback.sh --tree patched $(TARGET)
	tests/vsock_loopback.sh --tree baseline $(TARGET)
	tests/vsock_virtio.sh --tree patched $(TARGET)
	tests/vsock_virtio.sh --tree baseline $(TARGET)
	ci/package $(TARGET)
	ci/summary $(TARGET)

check: deps
	tests/check $(TARGET)

check-full: deps
	RXKIT_CHECK_FULL=1 tests/check $(TARGET)

deps:
	ci/deps

fetch prepare build package summary:
	ci/$@ $(TARGET)

test:
	tests/vsock_loopback.sh --tree patched $(TARGET)

vhost:
	tests/vsock_vhost.sh --tree patched $(TARGET)
	tests/vsock_vhost.sh --tree baseline $(TARGET)
	tests/ab-verdict $(TARGET)

series:
	tests/series.sh $(TARGET)

packages:
	tests/packages.sh $(TARGET)

clean:
	rm -rf out
