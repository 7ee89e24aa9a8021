# feedscope-binary: unused (the sanitizer pass skips this test)
# The zero-code PyTorch hook with real torch, against a receiving socket bound
# by the test (tests/python/test_torch_hook.py): the import hook leaves other
# imports alone and chains the sitecustomize it shadows; loader names and
# configuration in meta; epochs and steps exactly (break, persistent
# workers); feedscope.watch() taking a loader over; torch.save as a
# checkpoint phase; DataLoader subclasses; a failing hook swallowed with one
# warning.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
"$PY" "$PYTESTS/test_torch_hook.py" || fail "test_torch_hook.py"
exit 0
