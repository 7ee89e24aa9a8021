# The tracer's per-socket accounting end to end (feedscope run, then the
# peers table read with sqlite3): tests/trace/peers.c moves known bytes over
# TCP, UDP and Unix sockets on 127.0.0.1 and a path of its own; each
# (pid, thread, local endpoint, peer endpoint) row holds exactly those
# bytes, the listeners are there, the peers sums equal the io_classes
# socket sums, the job's output (results and errno of failing calls) is the
# same untraced, and src/analysis/load/peers.c calls every connection between
# the job's own sockets collective. --hash-paths hides Unix socket names
# and keeps IP addresses.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/trace/lib.sh"
need_cmd sqlite3
PROG=$TRACE_PROGS/peers
REPORT=$FEEDSCOPE_BUILD/tests/peers_report
[ -x "$PROG" ] || fail "no $PROG"
[ -x "$REPORT" ] || fail "no $REPORT"

mkdir -p plain traced
untraced "$PROG" "$PWD/plain" >plain.out 2>plain.err || fail "untraced run failed: $(cat plain.err)"
expect_status 0 "$FEEDSCOPE" run -q -o a.db -- "$PROG" "$PWD/traced" >traced.out 2>traced.err
cmp -s plain.out traced.out || fail "the job's output differs under the tracer: $(diff plain.out traced.out)"
grep -q 'errno_kept=0' traced.out && fail "errno changed by a successful call: $(cat traced.out)"

port() { awk -v k="$1" '$1 == k { print $2 }' traced/ports; }
srv=$(port tcp_server) cli=$(port tcp_client) ua=$(port udp_a) ub=$(port udp_b) upath=$(port unix_path)
[ -n "$srv" ] && [ -n "$cli" ] && [ -n "$ua" ] && [ -n "$ub" ] && [ -n "$upath" ] || fail "ports: $(cat traced/ports)"
# a Unix path is kept to its first 55 bytes (docs/schema.md): the test
# directory's name may be longer than that (the ASan pass's is)
upath=$(printf '%.55s' "$upath")
pid=$(q a.db "SELECT DISTINCT pid FROM peers")
[ "$(echo "$pid" | wc -l)" = 1 ] || fail "peers rows of more than one process: $pid"

# row WHERE : "read_bytes write_bytes calls" of the one row matching
row() {
	local n
	n=$(q a.db "SELECT count(*) FROM peers WHERE $1")
	[ "$n" = 1 ] || fail "$n peers rows where $1; table: $(q a.db 'SELECT * FROM peers')"
	q a.db "SELECT read_bytes || ' ' || write_bytes || ' ' || calls FROM peers WHERE $1"
}
want() { # WHERE EXPECTED
	local got
	got=$(row "$1")
	case "$got" in $2) ;; *) fail "peers where $1: got '$got', expected '$2'" ;; esac
}
tcp="family = 'inet' AND kind = 'peer' AND local_addr = '127.0.0.1' AND peer_addr = '127.0.0.1'"
# the client, main thread: sent 123457, read 654321
want "$tcp AND thread = 'main' AND local_port = $cli AND peer_port = $srv" "654321 123457 *"
# the accepted socket, in the server thread: the other way round
want "$tcp AND thread = 'other' AND local_port = $srv AND peer_port = $cli" "123457 654321 *"
want "kind = 'listen' AND family = 'inet' AND local_addr = '127.0.0.1' AND local_port = $srv AND thread IS NULL AND calls IS NULL" ""
# UDP: a connected to b, 3 datagrams of 1000 bytes; b never connected
want "kind = 'peer' AND family = 'inet' AND local_port = $ua AND peer_port = $ub AND thread = 'main'" "0 3000 3"
want "kind = 'unconnected' AND family = 'inet' AND local_port = $ub AND peer_addr IS NULL AND peer_port IS NULL" "3000 0 3"
# Unix: the client sendmsg()s 7777 and reads 555; the accepted socket the other way
want "family = 'unix' AND kind = 'peer' AND local_addr = '(unnamed)' AND peer_addr = '$upath' AND local_port IS NULL" "555 7777 *"
want "family = 'unix' AND kind = 'peer' AND local_addr = '$upath' AND peer_addr = '(unnamed)'" "7777 555 *"
want "family = 'unix' AND kind = 'listen' AND local_addr = '$upath' AND calls IS NULL" ""
# the socketpair: a failed recv (EAGAIN: a call, no bytes), 10 written, 10 read
want "family = 'unix' AND local_addr = '(unnamed)' AND peer_addr = '(unnamed)'" "10 10 3"
# every socket data call is in exactly one peers row: the sums are
# io_classes' socket sums, whose calls also count the 11 close()s of
# sockets (3 TCP, 2 UDP, 3 Unix, the socketpair's 2, the unconnected TCP
# socket's 1; the read after that close fails with EBADF: not counted)
for col in read_bytes write_bytes calls; do
	a=$(q a.db "SELECT sum($col) FROM peers WHERE pid = $pid")
	b=$(q a.db "SELECT sum($col) - (CASE '$col' WHEN 'calls' THEN 11 ELSE 0 END) FROM io_classes
		WHERE pid = $pid AND class = 'socket'")
	[ "$a" = "$b" ] || fail "peers $col $a, io_classes socket $col $b"
done
[ "$(q a.db "SELECT count(*) FROM peers WHERE calls > 0 AND (read_s IS NULL OR write_s IS NULL OR first_t IS NULL)")" = 0 ] ||
	fail "a row without times: $(q a.db 'SELECT * FROM peers')"

# the classification: every connection here is between the job's own sockets
"$REPORT" a.db >classes.txt || fail "peers_report failed"
grep '^row' classes.txt | grep ' peer ' | grep -v ' collective ' | grep -v ' ipc ' &&
	fail "a connection between the job's own sockets not called collective: $(cat classes.txt)"
[ "$(grep -c '^row.* peer .* collective ' classes.txt)" = 5 ] || fail "5 collective rows expected: $(cat classes.txt)"
grep -q "^proc 0 $pid data=0+0 " classes.txt || fail "data traffic where there is none: $(cat classes.txt)"

# 300 connections in turn, 10 bytes each way: more pairs than the tracer's
# 256 entries. The exact pairs take 192 entries (with the listener), then
# each side's pairs are folded over the port that varies (the client's
# local port, the accepted sockets' peer port): every byte kept, no
# "(other peers)", all of it collective.
expect_status 0 "$FEEDSCOPE" run -q -o m.db -- "$PROG" many 300 >many.out
sides="SELECT thread, sum(read_bytes), sum(write_bytes), sum(calls) FROM peers WHERE kind = 'peer' GROUP BY thread"
[ "$(q m.db "$sides" | tr '\n' ' ')" = "main|3000|3000|600 other|3000|3000|600 " ] ||
	fail "300 connections: $(q m.db "$sides")"
[ "$(q m.db "SELECT count(*) FROM peers")" = 194 ] ||
	fail "$(q m.db 'SELECT count(*) FROM peers') rows, expected 194: 191 exact pairs and the listener (192 entries), 2 folded"
[ "$(q m.db "SELECT count(*) FROM peers WHERE thread = 'main' AND local_port IS NULL AND peer_port IS NOT NULL")" = 1 ] &&
	[ "$(q m.db "SELECT count(*) FROM peers WHERE thread = 'other' AND peer_port IS NULL AND local_port IS NOT NULL")" = 1 ] ||
	fail "folded rows: $(q m.db "SELECT * FROM peers WHERE local_port IS NULL OR peer_port IS NULL")"
[ "$(q m.db "SELECT count(*) FROM peers WHERE kind = 'other'")" = 0 ] || fail "pairs lost in (other peers)"
"$REPORT" m.db >mclasses.txt || fail "peers_report failed"
grep '^row .* peer ' mclasses.txt | grep -v ' collective ' && fail "a connection of the job to itself not collective"

# --hash-paths: the Unix socket's path is hashed, IP addresses stay
expect_status 0 "$FEEDSCOPE" run -q --hash-paths -o h.db -- "$PROG" "$PWD/traced" >/dev/null
[ "$(q h.db "SELECT count(*) FROM peers WHERE local_addr LIKE '%/%' OR peer_addr LIKE '%/%'")" = 0 ] ||
	fail "--hash-paths left a socket path: $(q h.db 'SELECT * FROM peers')"
[ "$(q h.db "SELECT count(*) FROM peers WHERE local_addr = '127.0.0.1'")" -ge 4 ] || fail "--hash-paths hid IP addresses"
"$REPORT" h.db >hclasses.txt || fail "peers_report failed"
[ "$(grep -c '^row.* peer .* collective ' hclasses.txt)" = 5 ] || fail "hashed paths still match: $(cat hclasses.txt)"
echo "peers: TCP 123457/654321, UDP 3000, Unix 7777/555 bytes found as sent"
