# The data network told apart from the traffic between ranks, on a real
# job: torchrun, 2 ranks, gloo all_reduce of 256 KiB after every batch,
# each rank's DataLoader worker fetching its samples from an HTTP server on
# 127.0.0.1 that is not part of the job (tests/scenarios/http_samples.py,
# started outside feedscope run). src/analysis/load/peers.c must call every
# byte to or from the HTTP server's port data, and everything between the
# ranks and the launcher's store collective; the HTTP bytes found are the
# bodies sent plus one response header per sample.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/trace/lib.sh"
need_cmd sqlite3
need_torch
[ -x /usr/bin/torchrun ] || skip "needs /usr/bin/torchrun (python3-torch)"
REPORT=$FEEDSCOPE_BUILD/tests/peers_report
[ -x "$REPORT" ] || fail "no $REPORT"
SAMPLES=12 KIB=64

http_port=$((18000 + RANDOM % 2000)) store_port=$((29500 + RANDOM % 400))
"$PY" "$FEEDSCOPE_TOP/tests/scenarios/http_samples.py" --addr 127.0.0.1 --port "$http_port" --sample-kib $KIB \
	--ready "$PWD/ready" --lifetime-s 120 >http.log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 100); do [ -f ready ] && break; sleep 0.1; done
[ -f ready ] || fail "the HTTP server did not start: $(cat http.log)"

expect_status 0 "$FEEDSCOPE" run -q -o t.db -- /usr/bin/torchrun --nproc_per_node 2 --redirects 2 --tee 2 \
	--log_dir "$PWD/logs" --master_addr 127.0.0.1 --master_port $store_port \
	"$FEEDSCOPE_TOP/tests/trace/peers_dist.py" "http://127.0.0.1:$http_port" $SAMPLES $KIB >job.out 2>job.err
body=$((SAMPLES * KIB * 1024))
for r in 0 1; do
	grep -q "peers_dist: rank=$r body_bytes=$body all_reduces=$SAMPLES" job.out || fail "rank $r: $(cat job.out job.err)"
done
"$REPORT" t.db >classes.txt || fail "peers_report failed"

# every connection to the HTTP server is data, and nothing else is
grep "^row .* 127.0.0.1:$http_port " classes.txt | grep -v ' data ' && fail "HTTP traffic not called data"
grep '^row .* data ' classes.txt | grep -v " 127.0.0.1:$http_port " && fail "data that is not the HTTP server's"
# the HTTP bytes: each sample is one connection (HTTP/1.0), the body and one header
read -r n rd wr <<EOF
$(awk -v p="127.0.0.1:$http_port" '$1 == "row" && $7 == p { n++; r += $9; w += $10 } END { print n + 0, r + 0, w + 0 }' classes.txt)
EOF
[ "$n" = $((2 * SAMPLES)) ] || fail "$n connections to the HTTP server, expected $((2 * SAMPLES)): $(cat classes.txt)"
[ "$rd" -ge $((2 * body)) ] && [ "$rd" -le $((2 * body + 2 * SAMPLES * 1024)) ] ||
	fail "HTTP bytes read $rd: expected the bodies ($((2 * body))) plus a header of under 1 KiB per sample"
[ "$wr" -gt 0 ] && [ "$wr" -le $((2 * SAMPLES * 1024)) ] || fail "HTTP bytes written (the requests): $wr"
# the ranks' gloo traffic: collective, at least 2 x 12 all_reduces of 256 KiB each way
coll=$(awk '$1 == "row" && $8 == "collective" { s += $9 } END { print s + 0 }' classes.txt)
[ "$coll" -ge $((2 * SAMPLES * 262144)) ] || fail "collective bytes read $coll, expected >= $((2 * SAMPLES * 262144))"
# and the store's port is collective on both sides
grep "^row [0-9]* [0-9]* [a-z]* peer .*:$store_port " classes.txt | grep -v ' collective ' && fail "store traffic not collective"
grep -q "^row [0-9]* [0-9]* [a-z]* peer .*:$store_port .* collective " classes.txt || fail "no store traffic seen: $(cat classes.txt)"
# per process: the data is in the two loader workers
[ "$(grep -c '^proc .* data=[1-9]' classes.txt)" = 2 ] || fail "data in other than the 2 workers: $(grep '^proc' classes.txt)"
echo "torch: HTTP read $rd bytes for $((2 * body)) bytes of bodies ($n connections); collective read $coll bytes"
