# nohook_twonode: the two-node job (s_twonode.sh) recorded with the hook off
# (--no-hook) on both nodes: no steps, no collectives; the same
# construction, the same truth (each rank's own account) and the same
# straggler (rank 1 on node 1) expected.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_twonode.sh"
