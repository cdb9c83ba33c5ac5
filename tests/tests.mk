# tests/ — cmocka unit tests (tests/unit/test_*.c), shell tests (tests/sh/*.sh), the seeded-bug
# catalogue (tests/bugs/). `make test` runs them all through tests/run.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
# Unit tests may use any reference lesson library (linked last lesson first) and the check helpers.
REF_LIBS := $(foreach l,$(call reverse,$(LESSONS)),$(O)/solutions/$(L$(l)_NAME)/lib$(l).a)
REF_INCS := $(foreach l,$(LESSONS),-Ilessons/$(L$(l)_NAME)) -Igrading/checks -Igrading -Icommon/oracle

$(O)/tests/%.o: tests/unit/%.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,$(REF_INCS))
$(O)/tests/%: $(O)/tests/%.o $(CHECKLIB) $(REF_LIBS) $(ORACLE_LIB) $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

.PHONY: test-build
test-build: all $(UNIT_BINS) $(DATASET)

# Small programs the shell tests drive.
TEST_PROGS := $(patsubst tests/progs/%.c,$(O)/tests/progs/%,$(wildcard tests/progs/*.c))
$(O)/tests/progs/%.o: tests/progs/%.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
$(O)/tests/progs/%: $(O)/tests/progs/%.o $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
test-build: $(TEST_PROGS)

# Test objects are made by a chain of pattern rules (.c -> .o -> program), so make would delete them
# as intermediates after the first build, and the next make (whose .d files now name them) would
# compile them all again.
.SECONDARY: $(addsuffix .o,$(UNIT_BINS) $(TEST_PROGS))

# The long sweep of equiv's tolerances (tests/sh/equiv-sweep.sh; `make test` runs its short form):
# the reference DDP (ring, tree) and FSDP over seeds x world sizes 1-5 x batch sizes — no false
# failures allowed. SEEDS=n widens it (default 6: 252 configurations, about 15 minutes on 2 cores).
.PHONY: test-equiv-sweep
test-equiv-sweep: test-build
	EQUIV_SWEEP=full sh tests/sh/equiv-sweep.sh

# The switch transport alone (make test runs it too, as tests/sh/comm_switch.sh): the comm seam's
# tests with every message through grading/switch, its log against the seam's counters, a rank that
# dies, a switch that goes away, forged frames. About 25 s on 2 cores.
.PHONY: test-switch
test-switch: all $(O)/tests/test_mpi_comm $(O)/tests/progs/switch_probe $(O)/tests/progs/comm_probe
	@O=$(O) sh tests/sh/comm_switch.sh

# Just the quizzes' tests (make test runs them too): grading/quiz and grade-all's quiz columns.
.PHONY: test-quiz
test-quiz: all
	@sh tests/sh/quiz.sh && sh tests/sh/quiz_grade_all.sh

# The timing checks under load (not part of `make test`: about 10 minutes on 2 cores): the
# reference must keep full marks in lessons 00, 05, 09, 10 and 11, and in lesson 12's restarts, while
# another grader and a busy loop per core run beside it.
.PHONY: test-load
test-load:
	@$(MAKE) --no-print-directory -s grader-ready
	@sh tests/load.sh 00 05 09 10 11 12 --times 2

# The reference under the sanitizers (tests/sanitize.sh; not part of `make test`): ASan + UBSan over
# the unit tests, the shell tests and the graders of lessons 01, 05 and 08 (build-asan/), TSan over
# the DDP and FSDP trainers on 2-4 ranks (build-tsan/). Any report fails. 2.5 to 6 minutes here.
.PHONY: test-sanitize
test-sanitize:
	@sh common/mk/deps.sh
	@sh tests/sanitize.sh

# The seeded-bug catalogue under ASan+UBSan (tests/bugs/sanitize.sh; `make test` runs its --subset):
# every bug graded from build-asan/, and any sanitizer report whose top frame is outside the
# student's files fails: given code must stop a student's mistake with one line, not crash on it.
# About 7 minutes on 2 quiet cores (163 bugs: 427 s, 2026-12-04), longer under load.
.PHONY: test-bugs-sanitize
test-bugs-sanitize:
	@sh common/mk/deps.sh
	@sh tests/bugs/sanitize.sh

# The GPU checks (tests/gpu/check.sh) packed for a GPU machine without the course's packages
# (tests/gpu/bundle.sh): build/gpu-bundle/ and build/gpu-bundle.tar.gz, whose run.sh OUTDIR runs them
# without building anything. tests/gpu/bundle-selftest.sh (in make test) runs its CPU part here.
.PHONY: gpu-bundle
gpu-bundle: test-build
	@sh tests/gpu/bundle.sh $(O)/gpu-bundle

# The student release tested whole (tests/sh/student_release.sh with RELEASE_FULL=1): every lesson's
# skeleton and reference self-graded in a release with the repository hidden. make test runs the same
# test on a subset of the lessons.
.PHONY: test-release
test-release: test-build
	@RELEASE_FULL=1 TESTS=student_release sh tests/run
