# nohook_epoch_start: the epoch_start scenario (s_epoch_start.sh) recorded
# with the hook off (--no-hook): no steps, no loader configuration; the
# epoch boundaries come from the DataLoader workers' restarts and the GPU's
# idle gaps around them. The same construction and the same truth (the
# job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_epoch_start.sh"
