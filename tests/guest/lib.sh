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

# loopback_pair PROG PORT JOB: PROG (vsock_test, vsock_diag_test) as server
# and client in this guest over the loopback transport: peer CID 1
# (VMADDR_CID_LOCAL), control channel on 127.0.0.1:PORT, as
# test_vm_loopback in tools/testing/selftests/vsock/vmtest.sh.  The
# client's output first, then the server's, prefixed "server: ".
loopback_pair()
{
	"$1" --mode=server --peer-cid=1 --control-port="$2" > /tmp/server.log 2>&1 &
	_server=$!
	if ! wait_listen "$2"; then
		echo "$1 server never listened on $2"
		sed 's/^/server: /' /tmp/server.log
		return 1
	fi
	# shellcheck disable=SC2046
	"$1" --mode=client --control-host=127.0.0.1 --peer-cid=1 \
		--control-port="$2" $(skips "$3")
	_rc=$?
	wait "$_server"
	_src=$?
	echo "server: exit $_src"
	sed 's/^/server: /' /tmp/server.log
	[ "$_rc" -eq 0 ] && [ "$_src" -eq 0 ]
}
