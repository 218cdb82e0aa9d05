# shellcheck shell=bash
# The helpers of the receiver's script tests (test/t_receiver*.sh), sourced
# after ct_script_init, with $receiver the program and $work the scratch.

expect() { # expect WHAT ACTUAL EXPECTED
	[ "$2" = "$3" ] || fail "$1: expected \"$3\", got \"$2\""
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_receiver VAR OPTIONS...: a receiver on a free port of 127.0.0.1;
# VAR gets its base URL, VAR_pid its process id.  Waits for /ready.
start_receiver() {
	local var=$1 port pid i
	shift
	port=$(free_port)
	"$receiver" --listen "127.0.0.1:$port" "$@" >>"$work/receiver.log" 2>&1 &
	pid=$!
	ct_at_exit "kill $pid"
	for i in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready")" = 200 ] && break
		kill -0 "$pid" 2>/dev/null || fail "the receiver did not start: $(tail -n 5 "$work/receiver.log")"
		[ "$i" -lt 100 ] || fail "the receiver was not ready after 10 s: $(tail -n 5 "$work/receiver.log")"
		sleep 0.1
	done
	printf -v "$var" 'http://127.0.0.1:%s' "$port"
	printf -v "${var}_pid" '%s' "$pid"
}

# post URL [CURL ARGS...]: the status; the reply's body in $work/body, headers in $work/headers
post() {
	local url=$1
	shift
	curl -sg -o "$work/body" -D "$work/headers" -w '%{http_code}' "$@" "$url"
}
