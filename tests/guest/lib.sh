# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Helpers of the guest jobs (sourced from /rxkit/lib.sh inside the guest).

# skips JOB: the --skip options of /rxkit/skip/JOB (tests/guest/skip/).
skips()
{
	[ -f "/rxkit/skip/$1" ] || return 0
	awk '!/^#/ && NF { printf " --skip=%s", $1 }' "/rxkit/skip/$1"
}

# scaled N: N times the guest's RXKIT_TIME_SCALE (tests/guest/init sets it
# from rxkit.scale=; 1 without), for a wait that emulation can overrun.
scaled()
{
	echo $(($1 * ${RXKIT_TIME_SCALE:-1}))
}

# wait_listen PORT: wait up to 10 s (scaled) for a TCP listener on PORT.
wait_listen()
{
	local i=0 n=
	n=$(scaled 100)
	while ! netstat -ltn 2>/dev/null | grep -q ":$1 "; do
		i=$((i + 1))
		[ "$i" -lt "$n" ] || return 1
		sleep 0.1
	done
}

# server_start PROG PORT ARG...: PROG --mode=server ARG... with its control
# socket on PORT, in the background (output /tmp/server.log, pid srv_pid);
# returns once that socket listens, 1 (with the server's output) when it
# never does.
server_start()
{
	local prog="$1" port="$2"
	shift 2
	"$prog" --mode=server --control-port="$port" "$@" > /tmp/server.log 2>&1 &
	srv_pid=$!
	wait_listen "$port" && return 0
	echo "$prog server never listened on $port"
	kill "$srv_pid" 2>/dev/null
	sed 's/^/server: /' /tmp/server.log
	return 1
}

# server_finish: wait for server_start's server; print its exit code and
# output, prefixed "server: "; return its exit code.
server_finish()
{
	local rc=0
	wait "$srv_pid"
	rc=$?
	echo "server: exit $rc"
	sed 's/^/server: /' /tmp/server.log
	return "$rc"
}

# loopback_pair PROG PORT JOB: PROG (vsock_test, vsock_diag_test) as server
# and client in this guest over the loopback transport: peer CID 1
# (VMADDR_CID_LOCAL), control channel on 127.0.0.1:PORT, as
# test_vm_loopback in tools/testing/selftests/vsock/vmtest.sh.  The
# client's output first, then the server's, prefixed "server: ".
loopback_pair()
{
	local rc=0
	server_start "$1" "$2" --peer-cid=1 || return 1
	# shellcheck disable=SC2046
	"$1" --mode=client --control-host=127.0.0.1 --peer-cid=1 \
		--control-port="$2" $(skips "$3")
	rc=$?
	server_finish && [ "$rc" -eq 0 ]
}
