# Threads blocked in metadata system calls, told apart from threads blocked
# reading data, without the I/O tracer (proc column blocked_meta, meta
# job.meta_calls), on both paths of thread states. A real ext4 on a loop
# device, mounted afresh for each run (cold dentries, inodes and data),
# reads throttled to 300 IO/s by a blkio rule of the job's own cgroup. The
# job runs two threads at once: one stat()s files of a directory tree, one
# pread()s 4 KiB at random from a big file; each times its own calls and
# prints the seconds. The thread-seconds feedscope puts in D inside
# metadata calls must match the stat thread's, and the rest of D the read
# thread's.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd losetup
need_cmd mkfs.ext4
need_cmd /usr/bin/python3
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"

truncate -s 200M img && mkfs.ext4 -q -F img || fail "mkfs.ext4"
dev=$(losetup -f --show img) || fail "losetup"
mkdir m
cg=/sys/fs/cgroup/blkio/feedscope-metacalls-$$
cleanup() {
	mountpoint -q m && umount m
	if [ -d "$cg" ]; then
		while read -r p; do kill -9 "$p" 2>/dev/null; done <"$cg/cgroup.procs"
		rmdir "$cg" 2>/dev/null || { sleep 0.5; rmdir "$cg"; }
	fi
	losetup -d "$dev"
}
trap cleanup EXIT
mount "$dev" m || fail "mount"
mkdir m/tree && (cd m/tree && for i in $(seq 0 79); do
	mkdir "$i" && for j in $(seq 0 39); do echo "$i $j" >"$i/$j"; done
done) || fail "tree"
head -c 48M /dev/urandom >m/big || fail "big file"
umount m || fail "umount"
mkdir "$cg" || fail "mkdir $cg"
echo "$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ') 300" >"$cg/blkio.throttle.read_iops_device" || fail "iops rule"

cat >job.py <<'EOF'
import os, random, sys, threading, time
root, secs = sys.argv[1], 3.0
spent = {}

def stats():
    t_in, n, t_end = 0.0, 0, time.perf_counter() + secs
    for d in range(80):
        for j in range(40):
            if time.perf_counter() >= t_end:
                break
            a = time.perf_counter()
            os.stat(os.path.join(root, "tree", str(d), str(j)))
            t_in += time.perf_counter() - a
            n += 1
    spent["stat"] = (t_in, n)

def reads():
    fd = os.open(os.path.join(root, "big"), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    t_in, n, t_end = 0.0, 0, time.perf_counter() + secs
    while time.perf_counter() < t_end:
        off = random.randrange(0, (48 << 20) // 4096) * 4096
        a = time.perf_counter()
        os.pread(fd, 4096, off)
        t_in += time.perf_counter() - a
        n += 1
    spent["read"] = (t_in, n)

th = [threading.Thread(target=f) for f in (stats, reads)]
for t in th:
    t.start()
for t in th:
    t.join()
print("stat_s=%.3f stats=%d read_s=%.3f reads=%d" % (spent["stat"] + spent["read"]))
EOF

for st in bpf proc; do
	mount -o ro "$dev" m || fail "mount ro"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	record_states "$st" "$st.db" "$st.out" sh -c 'echo $$ >"$0/cgroup.procs" || exit 9
		exec /usr/bin/python3 job.py "$1"' "$cg" "$TEST_TMP/m"
	umount m || fail "umount"
	cat "$st.out"
	read -r stat_s read_s <<EOF
$(sed 's/[a-z_]*=//g' "$st.out" | awk '{ print $1, $3 }')
EOF
	[ "$(q "$st.db" "SELECT value FROM meta WHERE key = 'job.meta_calls'")" = "$st" ] ||
		fail "$st: meta job.meta_calls: $(q "$st.db" "SELECT value FROM meta WHERE key = 'job.meta_calls'")"
	# thread-seconds: BPF rows hold mean threads over the tick, /proc rows counts at it
	read -r d_meta d_all <<EOF
$(q "$st.db" "SELECT sum(p.blocked_meta * k.dt_s), sum(p.blocked_io * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t WHERE p.role = 'main'" | tr '|' ' ')
EOF
	d_data=$(awk -v a="$d_all" -v b="$d_meta" 'BEGIN { print a - b }')
	echo "$st: in D inside metadata calls ${d_meta} s (the job's stat calls: ${stat_s} s); in D otherwise ${d_data} s (its reads: ${read_s} s)"
	# Both threads spend nearly all of their 3 s blocked. The BPF path
	# accounts each switch; /proc samples each thread 30 times.
	tol=0.15
	[ "$st" = proc ] && tol=0.3
	approx "$d_meta" "$stat_s" "$tol" || fail "$st: metadata D $d_meta s, the job's stat calls took $stat_s s"
	approx "$d_data" "$read_s" "$tol" || fail "$st: data D $d_data s, the job's reads took $read_s s"
	awk -v s="$stat_s" -v r="$read_s" 'BEGIN { exit !(s > 1.5 && r > 1.5) }' ||
		fail "$st: the job did not block for long (stat $stat_s s, read $read_s s): no throttle?"
done
exit 0
