# The GPU bundle (make gpu-bundle) works without this machine's packages: its CPU part, in a sandbox
# that hides them, and run.sh's rules (tests/gpu/bundle-selftest.sh prints the PASS/FAIL lines).
. "$(dirname "$0")/lib.sh"
sh tests/gpu/bundle-selftest.sh
