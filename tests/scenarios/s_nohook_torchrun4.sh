# nohook_torchrun4: the 4-rank torchrun scenario (s_torchrun4.sh) recorded
# with the hook off (--no-hook): no steps, no collectives, no loader
# configuration; the same construction, the same truth (the job's own
# account) and the same straggler (rank 2) expected.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_torchrun4.sh"
