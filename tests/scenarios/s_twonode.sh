# twonode: a "two-node" torchrun job on one machine. Two network namespaces
# made for it (fs-nI-ID), joined by a veth pair (10.213.1.1/30 in node 0's,
# .2 in node 1's; addresses only inside these two namespaces, lo up in
# both); each node is `feedscope run -o nodeI.db -- torchrun --nnodes 2
# --node_rank I --nproc_per_node 1 ... train.py --dist` started in its
# namespace (nsenter --net) and its own UTS namespace with its own hostname
# (unshare --uts), so each run file says a different host; gloo talks over
# the veth (GLOO_SOCKET_IFNAME), node 0 holds the rendezvous. An all_reduce
# after every step; 2 workers per rank, batch 2, a 20 ms step. Node 0's
# rank (0) reads warm .npy files; node 1's rank (1) reads 1 MiB files,
# cold, at 20 MB/s (a blkio read_bps rule in a cgroup only node 1's job is
# in): rank 1 waits for its data, rank 0 for rank 1 in the collective.
# Expected: storage_bandwidth, and the straggler named: rank 1 on node 1.
# With a report that merges run files (`feedscope report node0.db
# node1.db`, its "straggler" object) that is asserted on the merged report;
# with a report of one file only, on node 1's own report (its verdict, and
# its rank the one it speaks for), the merge's answer printed. Truth: each
# rank's own summary line (train.py), from each node's own stdout.
# Run with the hook off by its twin s_nohook_twonode.sh (no collectives:
# the merge aligns the clocks by wall clock alone).
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_b_input_slow
twin
command -v nsenter >/dev/null && command -v unshare >/dev/null && command -v hostname >/dev/null ||
	die "needs nsenter, unshare (util-linux) and hostname"
command -v ip >/dev/null || die "needs ip (iproute2)"

# node_pair: the two namespaces and the veth pair between them. Sets NS[],
# HOST[], ADDR[], IFACE[].
node_pair() {
	local id i
	id=$(echo "${FS_RUN_DIR##*.}$FS_SCEN" | cksum | cut -c1-6)
	NS=(fs-n0-$id fs-n1-$id) HOST=(fs-node0-$id fs-node1-$id)
	ADDR=(10.213.1.1 10.213.1.2) IFACE=(fsn0 fsn1)
	# the range must be ours alone: no address or route of the machine in it
	! ip -4 addr show | grep -q ' 10\.213\.1\.' && ! ip -4 route show | grep -q '^10\.213\.1\.' ||
		die "10.213.1.0/30 is already in use on this machine"
	for i in 0 1; do
		ledger netns "${NS[i]}"
		ip netns add "${NS[i]}" || die "ip netns add ${NS[i]}"
	done
	ip link add fsn0 netns "${NS[0]}" type veth peer name fsn1 netns "${NS[1]}" || die "veth pair"
	for i in 0 1; do
		ip -n "${NS[i]}" addr add "${ADDR[i]}/30" dev "${IFACE[i]}" || die "address in ${NS[i]}"
		ip -n "${NS[i]}" link set "${IFACE[i]}" up && ip -n "${NS[i]}" link set lo up || die "links up in ${NS[i]}"
	done
}

mount_data
cgroup pids blkio
read_limit bps 20000000
cold
warm "$DATA/npy"
node_pair
port=$((29500 + RANDOM % 400))
pids=()
for i in 0 1; do
	mkdir -p "$S/torchrun-logs$i"
	# a node: its network namespace only (nsenter keeps /sys and the
	# cgroup mounts, which `ip netns exec` would remount), its own hostname
	WRAP=(nsenter --net="/run/netns/${NS[i]}" unshare --uts sh -c 'hostname "$0" && exec "$@"' "${HOST[i]}")
	LAUNCH=(/usr/bin/torchrun --nnodes 2 --node_rank $i --nproc_per_node 1 --redirects 2 --tee 2
		--log_dir "$S/torchrun-logs$i" --master_addr "${ADDR[0]}" --master_port $port "$TRAIN")
	JOB_CGROUPS=("$CG_pids")
	[ $i = 1 ] && JOB_CGROUPS+=("$CG_blkio") # node 1's storage is slow
	GPU0_BUSY=""
	[ $i = 1 ] && GPU0_BUSY=$BUSY_DIR/node1.busy.1 # its one GPU is rank 1's (train.py: BUSY_FILE.1)
	GLOO_SOCKET_IFNAME=${IFACE[i]} GPU0_BUSY=$GPU0_BUSY record_start node$i "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy \
		--samples 100 --batch 2 --workers 2 --compute-ms 20 --dist --slow-rank 1 --slow-data "$DATA/big" --slow-format bin
	pids+=("$RECORD_PID")
done
# bounded: a rendezvous that never completes would otherwise wait for ever
for ((k = 0; k < 900; k++)); do
	kill -0 "${pids[0]}" 2>/dev/null || kill -0 "${pids[1]}" 2>/dev/null || break
	sleep 0.1
done
[ $k -lt 900 ] || die "the two nodes did not finish within 90 s (rendezvous over the veth?): $(tail -2 "$S/node1.err")"
record_wait node0 "${pids[0]}"
record_wait node1 "${pids[1]}"

for i in 0 1; do
	h=$("$PY" -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key = ?", ("hostname",)).fetchone()[0])' \
		"$S/node$i.db" 2>/dev/null)
	[ "$h" = "${HOST[i]}" ] || die "node$i.db says hostname '$h', not ${HOST[i]}"
done
# each node's own report, then the merge of both (if report takes several files)
DEVICE=$DATA_DEV verdict node0
node0_verdict=${EV[verdict]}
DEVICE=$DATA_DEV verdict node1
node1_verdict=${EV[verdict]} node1_rank=${EV[fs_trainer_rank]}
merged=""
if "$FEEDSCOPE" report --format json "$S/node0.db" "$S/node1.db" >"$S/merged.json" 2>"$S/merged.err" &&
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not isinstance(d.get("straggler"), dict))' \
		"$S/merged.json"; then
	merged=yes
	say "merge: feedscope report node0.db node1.db: $("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
c, k = d.get("clock") or {}, d.get("skew") or {}
us = lambda x: "%.0f us" % (x * 1e6) if isinstance(x, (int, float)) else "unknown"
clock = ("%s, corrected by up to %s from %s collective ends, +- %s" % (c.get("basis"),
         us(c.get("max_correction_s")), c.get("collective_ends"), us(c.get("uncertainty_s")))
         if c.get("collective_ends") else "%s only, uncertainty %s" % (c.get("basis"), us(c.get("uncertainty_s"))))
print("verdict %s; clock %s; step-end skew median %s, p95 %s"
      % (d["verdict"]["primary"], clock, us(k.get("median_s")), us(k.get("p95_s"))))' "$S/merged.json")"
else
	say "merge: not there yet (feedscope report node0.db node1.db: $(head -c 300 "$S/merged.err" | head -1))"
fi
rep=(--rank-report "${HOST[0]}=$S/node0.json" --rank-report "${HOST[1]}=$S/node1.json")
if [ -n "$merged" ]; then
	expect_straggler 1 "${HOST[1]}"
	rep=(--report "$S/merged.json" "${rep[@]}")
else
	expect_straggler 1 # node 1's own report speaks for its rank (the only one it has)
	rep=(--report "$S/node1.json" "${rep[@]}")
fi
EV=()
while IFS='=' read -r k v; do EV[$k]=$v; done < <("$PY" "$SCEN_DIR/evidence.py" "$S/node1.db" --device "$DATA_DEV" \
	--job-out "$S/node0.out" --job-out "$S/node1.out" "${rep[@]}")
[ ${#EV[@]} -gt 0 ] || die "evidence.py failed"
EV[job_slow_mbps]=$(grep '^train: .* rank=1 ' "$S/node1.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["total_s"] > 0) printf "%.2f", v["samples"] * 1048576 / v["total_s"] / 1e6; else print "nan" }')
say "per file: node0.db ${HOST[0]} verdict $node0_verdict; node1.db ${HOST[1]} verdict $node1_verdict (speaks for rank $node1_rank)"
show job_ranks job_slow_rank job_b_input_slow job_coll_share_r0 job_slow_mbps gpu_util disk_mbps disk_util wk_D input_bound
twin_check
need "job_ranks >= 2" "two ranks, one per node"
need "job_slow_rank >= 1" "rank 1 (node 1) is the slow one"
need "job_b_input_slow >= 0.6" "the slow rank is input-bound"
need "job_coll_share_r0 >= 0.5" "rank 0 (node 0) waits for it in the collective"
need "job_slow_mbps >= 12" "rank 1 reads at about the limit (20 MB/s)"
need "job_slow_mbps <= 21" "rank 1 reads no faster than the limit (20 MB/s)"
# rank 0's share in collectives for the buckets table: from the report
# that has rank 0 (the merge, else node 0's own)
EV[fs_coll_r0]=${EV[r0_fs_coll]:-nan}
# without a merge, the verdict checked is node 1's own report's
[ -n "$merged" ] || EV[verdict]=$node1_verdict
result merged "${merged:-no}"
result node0_verdict "$node0_verdict"
result node1_verdict "$node1_verdict"
finish
