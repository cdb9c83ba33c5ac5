// lesson: 07
// base: solutions
// append: sampler.c
// score: 0
// expect: FORBIDDEN
// why: calls the grader's DistributedSampler oracle (common/oracle/sampler_oracle.c, linked into every program) instead of computing the sizes
size_t sampler_num_samples_ref(size_t len, int replicas, int drop_last);
size_t hostile_num_samples(size_t len, int replicas, int drop_last);
size_t hostile_num_samples(size_t len, int replicas, int drop_last) {
    return sampler_num_samples_ref(len, replicas, drop_last);
}
