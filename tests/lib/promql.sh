# promql.sh - PromQL from the integration tests that run a real Prometheus
# (sourced after integration.sh; $PY, and $P2 the server's port, set by the
# test). Writes pq.py in the test's directory.
#   pq QUERY              the value of the query's first sample ("none" without one)
#   poll_eq QUERY WANT [WHO]  wait (at most 30 s) until QUERY gives WANT exactly;
#                         else fail, saying WHO expected it ("expected" by default)
cat >pq.py <<'PYEOF'
import json, sys, urllib.parse, urllib.request
u = "http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], urllib.parse.urlencode({"query": sys.argv[2]}))
r = json.load(urllib.request.urlopen(u, timeout=10))
res = r["data"]["result"] if r.get("status") == "success" else []
print(res[0]["value"][1] if res else "none")
PYEOF
pq() { $PY pq.py "$P2" "$1"; }
poll_eq() {
	local got
	for _ in $(seq 60); do
		got=$(pq "$1")
		[ "$got" = "$2" ] && return 0
		sleep 0.5
	done
	fail "$1 = $got, ${3:-expected} $2"
}
