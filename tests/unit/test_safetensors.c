/* safetensors: round trip, and every kind of damage refused with a reason. */
#include "testutil.h"

#include "safetensors.h"
#include "util.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "%s/dpc-st-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", dir, name); }

static void write_sample(const char *path) {
    float a[6] = {1, 2, 3, 4, 5, 6};
    int64_t b[2] = {-7, 1LL << 40};
    st_writer_t *w = st_writer_new();
    st_writer_add(w, "a", DT_F32, 2, (size_t[]){2, 3}, a);
    st_writer_add(w, "b", DT_I64, 1, (size_t[]){2}, b);
    st_writer_add(w, "empty", DT_F32, 1, (size_t[]){0}, a);
    st_writer_meta(w, "step", "42");
    char err[256];
    assert_int_equal(st_writer_save(w, path, err, sizeof err), 0);
    st_writer_free(w);
}

static void round_trip(void **state) {
    (void)state;
    char p[512], err[256];
    path_of(p, sizeof p, "ok.safetensors");
    write_sample(p);
    st_file_t f;
    assert_int_equal(st_load(p, &f, err, sizeof err), 0);
    const st_tensor_t *a = st_find(&f, "a"), *b = st_find(&f, "b"), *e = st_find(&f, "empty");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(e);
    assert_int_equal(a->ndim, 2);
    assert_int_equal(a->shape[1], 3);
    assert_int_equal(((const float *)a->data)[5], 6);
    assert_true(((const int64_t *)b->data)[1] == (1LL << 40));
    assert_int_equal(e->numel, 0);
    assert_string_equal(st_meta(&f, "step"), "42");
    assert_non_null(st_meta(&f, "crc32"));
    assert_null(st_find(&f, "nope"));
    /* the header is 8-byte aligned so the data can be read in place */
    uint64_t hlen = 0;
    for (int i = 0; i < 8; i++) hlen |= (uint64_t)f.buf[i] << (8 * i);
    assert_int_equal(hlen % 8, 0);
    st_close(&f);
}

/* Damage a copy of the sample file and expect st_load to refuse it, naming the problem. */
static void expect_refused(void (*damage)(unsigned char *, size_t *), const char *needle) {
    char p[512], q[512], err[256];
    path_of(p, sizeof p, "src.safetensors");
    path_of(q, sizeof q, "bad.safetensors");
    write_sample(p);
    copy_damaged(p, q, damage);
    st_file_t s;
    err[0] = 0;
    assert_int_equal(st_load(q, &s, err, sizeof err), -1);
    if (!strstr(err, needle)) fail_msg("error '%s' does not mention '%s'", err, needle);
    assert_non_null(strstr(err, "bad.safetensors"));
}

static void truncate_data(unsigned char *b, size_t *n) { (void)b, *n -= 5; }
static void flip_data_bit(unsigned char *b, size_t *n) { b[*n - 3] ^= 0x10; }
static void break_json(unsigned char *b, size_t *n) { (void)n, b[8] = 'x'; }
static void huge_header(unsigned char *b, size_t *n) { (void)n, b[5] = 0x7f; }
static void tiny_file(unsigned char *b, size_t *n) { (void)b, *n = 4; }

static void corrupt_files_refused(void **state) {
    (void)state;
    expect_refused(truncate_data, "truncated");
    expect_refused(flip_data_bit, "checksum mismatch");
    expect_refused(break_json, "header checksum mismatch");
    expect_refused(huge_header, "not a safetensors file");
    expect_refused(tiny_file, "not a safetensors file");
    st_file_t s;
    char err[256];
    assert_int_equal(st_load("/nonexistent/x.safetensors", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "not found"));
}

/* Numeric metadata: digits only, within the bound; anything else names the file, the key and the range. */
static void meta_numbers_strict(void **state) {
    (void)state;
    char p[512], err[256];
    path_of(p, sizeof p, "meta.safetensors");
    const char *bad[] = {"abc", "12x", "-1", "", " 1", "1e3", "99999999999999999999", "43"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        float a = 1;
        st_writer_t *w = st_writer_new();
        st_writer_add(w, "a", DT_F32, 1, (size_t[]){1}, &a);
        st_writer_meta(w, "step", bad[i]);
        assert_int_equal(st_writer_save(w, p, err, sizeof err), 0);
        st_writer_free(w);
        st_file_t f;
        assert_int_equal(st_load(p, &f, err, sizeof err), 0);
        uint64_t v = 7;
        assert_int_equal(st_meta_u64(&f, p, "step", 42, &v, err, sizeof err), -1);
        assert_int_equal(v, 7);
        if (!strstr(err, "meta.safetensors") || !strstr(err, "'step'") || !strstr(err, "0 to 42"))
            fail_msg("'%s' refused as '%s'", bad[i], err);
        assert_int_equal(st_meta_u64(&f, p, "absent", 42, &v, err, sizeof err), -1);
        st_close(&f);
    }
    write_sample(p);
    st_file_t f;
    uint64_t v = 0;
    assert_int_equal(st_load(p, &f, err, sizeof err), 0);
    assert_int_equal(st_meta_u64(&f, p, "step", 42, &v, err, sizeof err), 0);
    assert_int_equal(v, 42);
    st_close(&f);
}

/* A directory as the target says so (it said "disk full?"); the temporaries of dead writers of the
 * same target go, those of live processes (even not ours) stay. */
static void save_targets(void **state) {
    (void)state;
    char p[512], err[256], dead[600], live[600], other[600];
    path_of(p, sizeof p, "sub");
    assert_int_equal(mkdir(p, 0700), 0);
    float a = 1;
    st_writer_t *w = st_writer_new();
    st_writer_add(w, "a", DT_F32, 1, (size_t[]){1}, &a);
    assert_int_equal(st_writer_save(w, p, err, sizeof err), -1);
    if (!strstr(err, "is a directory")) fail_msg("a directory as the target: '%s'", err);
    pid_t child = fork();
    if (child == 0) _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child);
    path_of(p, sizeof p, "ck.safetensors");
    snprintf(dead, sizeof dead, "%s.tmp.%d", p, (int)child);
    snprintf(live, sizeof live, "%s.tmp.%d", p, (int)getppid());
    snprintf(other, sizeof other, "%s/other.safetensors.tmp.%d", dir, (int)child);
    const char *made[] = {dead, live, other};
    for (int i = 0; i < 3; i++) fclose(fopen(made[i], "w"));
    assert_int_equal(st_writer_save(w, p, err, sizeof err), 0);
    st_writer_free(w);
    assert_int_equal(access(dead, F_OK), -1);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(corrupt_files_refused),
        cmocka_unit_test(meta_numbers_strict),
        cmocka_unit_test(save_targets),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
