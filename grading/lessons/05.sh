# Lesson 05 — DDP: buckets and overlap (90 points). Sourced by grading/grade.
C="$PROGS/grading/check05"
check buckets 10 60 "bucket assignment: reverse order, >= in every bucket, a 1 MiB (2^20) first bucket only for an unset bucket_cap_mb; the GPT's layouts; generated layouts" -- "$C" buckets
check launch 10 60 "launch in bucket order once complete, pre-divided by N, with d->launch and no waiting in the hook; no_sync launches nothing" -- "$C" launch
check ranks1 10 180 "1 rank, caps tiny/unset/huge: equivalent; buckets in order" -- sh "$GRADING/lessons/05-train.sh" 1 --clip 0
check ranks2 10 180 "2 ranks, differently initialised: broadcast, equivalent, one all-reduce per bucket" -- sh "$GRADING/lessons/05-train.sh" 2 --clip 0
check ranks3 10 180 "3 ranks: equivalent, traffic" -- sh "$GRADING/lessons/05-train.sh" 3 --clip 0
check ranks4 10 180 "4 ranks: equivalent, traffic" -- sh "$GRADING/lessons/05-train.sh" 4 --clip 0
check gpt 10 180 "gpt-tiny on 3 ranks, bucket_cap_mb 0.005 (buckets of several of a block's tensors): equivalent, buckets in order, one all-reduce per bucket" -- sh "$GRADING/lessons/ddp-train.sh" "$PROGS/05-ddp/train_ddp" 3 4 0.005 --model gpt-tiny --clip 0
check overlap 20 240 "overlap under an emulated link: buckets launched during backward, no wait in the hook, all-reduces concurrent with backward compute; step <= 1.25 max(compute, comm)" -- sh "$GRADING/lessons/05-overlap.sh"
