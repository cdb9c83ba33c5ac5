// lesson: 04
// base: solutions
// append: tree.c
// score: 0
// expect: an ifunc resolver: tree_helper_premain
// why: an ifunc's resolver is code the loader runs before main and before every constructor, with no .init_array for the vetting to see: a constructor by another name (here it only counts the processes it ran in; with libc reached by address it could do anything before the check starts)
int tree_premain_runs;
typedef int (*tree_helper_fn)(int);
static int tree_helper_impl(int x) { return x + 1; }
static tree_helper_fn tree_helper_resolve(void) {
    tree_premain_runs++; /* ran before main */
    return tree_helper_impl;
}
int tree_helper_premain(int x) __attribute__((ifunc("tree_helper_resolve")));
/* a pointer to it in data: the loader must resolve it at start, whether or not anything calls it */
int (*tree_helper_ptr)(int) = tree_helper_premain;
