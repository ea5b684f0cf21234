# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Paths of this machine's commands.  Sourced by tests/lib.sh.

# twin PATH: the other name of PATH under Debian's merged /usr.
twin()
{
	case "$1" in
	/usr/bin/*|/usr/sbin/*) printf '%s\n' "${1#/usr}" ;;
	/bin/*|/sbin/*) printf '/usr%s\n' "$1" ;;
	esac
}
