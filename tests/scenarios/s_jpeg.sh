# jpeg: real JPEG decode: 200 photo-like 960x720 JPEGs (gen_data.py --jpeg,
# warm in the page cache), each decoded by PIL and put through torchvision
# transforms (RandomResizedCrop 224, flip, ToTensor, Normalize) in 2
# workers held to half a core by a cpu cgroup quota; batch 10, 15 ms step.
# Needs python3-torchvision and python3-pil (installed if missing).
# Run with the hook off by its twin s_nohook_jpeg.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect cpu_preprocess job_b_input
twin

need_py PIL python3-pil
need_py torchvision python3-torchvision
"$PY" "$SCEN_DIR/gen_data.py" --jpeg "$S/jpg" 200 || die "gen_data.py --jpeg"
warm "$S/jpg"
cgroup cpu
cg_set cpu cpu.cfs_period_us 100000
cg_set cpu cpu.cfs_quota_us 50000
record run "${HOOK_OPTS[@]}" -- --data "$S/jpg" --format jpeg --samples 300 --batch 10 --workers 2 \
	--compute-ms 15
verdict run
show job_b_busy job_b_input gpu_util cg_throttled cg_quota wk_R wk_D wk_cpu cpu_busy input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "cg_throttled >= 20" "the quota holds the decode"
need "wk_cpu >= 18" "workers use their share of the half-core quota"
need "wk_R >= 0.5" "workers running"
finish
