/* Flat layouts (views into one array) and memory accounting. */
#include "testutil.h"

#include "flat.h"
#include "mem.h"

static void layout_offsets(void **state) {
    (void)state;
    flat_layout_t l;
    flat_layout_init(&l);
    assert_int_equal(flat_layout_add(&l, "w", 2, (size_t[]){3, 4}), 0);
    assert_int_equal(flat_layout_add(&l, "b", 1, (size_t[]){3}), 1);
    assert_int_equal(flat_layout_add(&l, "e", 1, (size_t[]){0}), 2);
    assert_int_equal(flat_layout_add(&l, "x", 3, (size_t[]){2, 1, 5}), 3);
    assert_int_equal(l.views[1].offset, 12);
    assert_int_equal(l.views[2].offset, 15);
    assert_int_equal(l.views[3].offset, 15);
    assert_int_equal(l.views[3].numel, 10);
    assert_int_equal(l.numel, 25);
    assert_int_equal(flat_layout_find(&l, "x"), 3);
    assert_int_equal(flat_layout_find(&l, "y"), -1);
    float base[25];
    assert_ptr_equal(flat_at(&l, base, 1), base + 12);
    flat_layout_free(&l);
}

static void memory_peaks(void **state) {
    (void)state;
    mem_t m;
    mem_init(&m);
    mem_add(&m, MEM_PARAMS, 100);
    mem_add(&m, MEM_GATHERED, 50);
    mem_sub(&m, MEM_GATHERED, 50);
    mem_add(&m, MEM_GATHERED, 30);
    mem_add(&m, MEM_ACTIVATIONS, 1000);
    assert_int_equal(m.cur[MEM_GATHERED], 30);
    assert_int_equal(m.peak[MEM_GATHERED], 50);
    assert_int_equal(m.peak_model, 150); /* params + gathered at their joint peak */
    assert_int_equal(m.cur_model, 130);
    assert_int_equal(m.peak_total, 1130);
    assert_string_equal(mem_cat_name(MEM_OPTIM), "optim");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_offsets),
        cmocka_unit_test(memory_peaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
