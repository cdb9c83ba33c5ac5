#!/bin/sh
# 07-own.sh OBJECT: the sampler draws its permutation with PyTorch's generator and computes its
# lists itself (not with the grader's oracle order in common/data.c).
set -u
[ "${PHASE:-run}" = judge ] || exit 0 # reads the submission's objects: the judge's job
o=$1
[ -f "$o" ] || { echo "FAIL: $o was not built"; exit 1; }
syms=$(nm -u "$o" | awk '{print $NF}')
if echo "$syms" | grep -qE '^(data_order_|sampler_num_samples_ref)'; then
    echo "FAIL: sampler.c calls the grader's oracle ($(echo "$syms" | grep -E '^(data_order_|sampler_num_samples_ref)' | tr '\n' ' ')): compute the lists yourself"
    exit 1
fi
if ! echo "$syms" | grep -q '^mt19937_randperm$'; then
    echo "FAIL: sampler.c never calls mt19937_randperm: shuffled lists must come from PyTorch's generator (seed + epoch)"
    exit 1
fi
echo "sampler.c draws with mt19937_randperm and computes its lists itself"
