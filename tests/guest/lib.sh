# SPDX-License-Identifier: GPL-2.0
# Helpers of the guest jobs (sourced from /rxkit/lib.sh inside the guest).

# skips JOB: the --skip options of /rxkit/skip/JOB (tests/guest/skip/).
skips()
{
	[ -f "/rxkit/skip/$1" ] || return 0
	awk '!/^#/ && NF { printf " --skip=%s", $1 }' "/rxkit/skip/$1"
}

# wait_listen PORT: wait up to 10 s for a TCP listener on PORT.
wait_listen()
{
	_i=0
	while ! netstat -ltn 2>/dev/null | grep -q ":$1 "; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || return 1
		sleep 0.1
	done
}

# server_start PROG PORT ARG...: PROG --mode=server ARG... with its control
# socket on PORT, in the background (output /tmp/server.log, pid srv_pid);
# returns once that socket listens, 1 (with the server's output) when it
# never does.
server_start()
{
	_ss_prog=$1 _ss_port=$2
	shift 2
	"$_ss_prog" --mode=server --control-port="$_ss_port" "$@" > /tmp/server.log 2>&1 &
	srv_pid=$!
	wait_listen "$_ss_port" && return 0
	echo "$_ss_prog server never listened on $_ss_port"
	kill "$srv_pid" 2>/dev/null
	sed 's/^/server: /' /tmp/server.log
	return 1
}

# server_finish: wait for server_start's server; print its exit code and
# output, prefixed "server: "; return its exit code.
server_finish()
{
	wait "$srv_pid"
	_sf_rc=$?
	echo "server: exit $_sf_rc"
	sed 's/^/server: /' /tmp/server.log
	return "$_sf_rc"
}

# loopback_pair PROG PORT JOB: PROG (vsock_test, vsock_diag_test) as server
# and client in this guest over the loopback transport: peer CID 1
# (VMADDR_CID_LOCAL), control channel on 127.0.0.1:PORT, as
# test_vm_loopback in tools/testing/selftests/vsock/vmtest.sh.  The
# client's output first, then the server's, prefixed "server: ".
loopback_pair()
{
	server_start "$1" "$2" --peer-cid=1 || return 1
	# shellcheck disable=SC2046
	"$1" --mode=client --control-host=127.0.0.1 --peer-cid=1 \
		--control-port="$2" $(skips "$3")
	_rc=$?
	server_finish && [ "$_rc" -eq 0 ]
}
