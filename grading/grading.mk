# grading/ — the grader's tools (supervise, report, equiv) and the per-lesson checks.
GRADING_TOOLS := $(ORACLE_LIB) $(O)/grading/supervise $(O)/grading/report $(O)/grading/equiv $(O)/grading/statcheck $(O)/grading/overlap \
	$(O)/grading/similarity $(O)/grading/switch
CHECKLIB := $(O)/grading/libcheck.a

$(O)/grading/%.o: grading/%.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
$(O)/grading/supervise: $(O)/grading/supervise.o
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^
# the message switch graded runs send through (grading/switch.c; its wire: common/switch_wire.h)
$(O)/grading/switch: $(O)/grading/switch.o
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^
$(O)/grading/report: $(O)/grading/report.o
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcjson
# grade-all's plagiarism report: plain C, no library (see grading/similarity.c)
$(O)/grading/similarity: $(O)/grading/similarity.o
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^
$(O)/grading/overlap: $(O)/grading/overlap.o $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(O)/grading/statcheck: $(O)/grading/statcheck.o $(O)/grading/switchlog.o
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcjson
$(O)/grading/equiv: $(O)/grading/equiv.o $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(O)/grading/checks/checklib.o: grading/checks/checklib.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
$(O)/grading/checks/switchcheck.o: grading/checks/switchcheck.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,-Igrading)
# the GPT's float64 oracle reads only gpt.h's given types (the layout, the sizes): one build serves
# every tree's checks and the unit tests
$(O)/grading/checks/gpt_oracle.o: grading/checks/gpt_oracle.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,-Ilessons/01-trainer)
$(ORACLE_LIB): $(O)/common/oracle/sampler_oracle.o
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^
$(CHECKLIB): $(O)/grading/checks/checklib.o $(O)/grading/checks/switchcheck.o $(O)/grading/switchlog.o $(O)/grading/checks/gpt_oracle.o
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

# checkNN for a tree built into $(2): grading/checks/checkNN.c + that tree's lesson NN library. A
# lesson may have more check programs, checkNN_part.c (lesson 10's check10_noise), each linked the same.
# $(1)=NN or NN_part $(2)=out dir
check_lesson = $(firstword $(subst _, ,$(1)))
define check_rules
$(2)/grading/check$(1).o: grading/checks/check$(1).c $$(BUILD_DEPS)
	$$(call compile_c,$$@,$$<,-Igrading/checks -Igrading -Icommon/oracle $$($(call check_lesson,$(1))_$(2)_INC))
$(2)/grading/check$(1): $(2)/grading/check$(1).o $$(if $$(filter 03 04,$(1)),$(2)/grading/allreduce_check$(1).o) $$(CHECKLIB) $$($(call check_lesson,$(1))_$(2)_LIB) $$($(call check_lesson,$(1))_$(2)_STACK) $$(ORACLE_LIB) $$(LIBDPC) $$($(call check_lesson,$(1))_$(2)_BIN_DEPS)
	$$(call say,LD,$$@)
	$$(Q)$$(CC) $$(CFLAGS) -o $$@ $$(filter-out %.txt,$$^) $$(LDLIBS)
$(2)/grading/allreduce_check$(1).o: grading/checks/allreduce_check.c $$(BUILD_DEPS)
	$$(call compile_c,$$@,$$<,-Igrading/checks $$($(1)_$(2)_INC))
GRADING_CHECKS_$(2) += $(2)/grading/check$(1)
CHECK_$(call check_lesson,$(1))_$(2) += $(2)/grading/check$(1)
endef
CHECK_LESSONS := $(patsubst grading/checks/check%.c,%,$(wildcard grading/checks/check[0-9]*.c))
ifeq ($(HAVE_REF),1)
$(foreach l,$(CHECK_LESSONS),$(eval $(call check_rules,$(l),$(O)/solutions)))
endif
$(foreach l,$(CHECK_LESSONS),$(eval $(call check_rules,$(l),$(O)/lessons)))
ifdef SUB
$(foreach l,$(CHECK_LESSONS),$(eval $(call check_rules,$(l),$(SUB_O))))
endif

# What the grader needs built for lesson NN of the submission (make SUB=dir SUB_O=dir sub-NN). It
# runs in the sandbox, where the reference build is read-only and lesson NN's part of it hidden:
# grading/grade makes grader-ready first, so nothing here may depend on the reference lessons.
# The benchmark programs (bench_*.c) are left out: no check runs them, and linking one more program
# into every graded submission is time a class's grading spends for nothing.
define sub_lesson
.PHONY: sub-$(1)
sub-$(1): $$(LIBDPC) $$(GRADING_TOOLS) $$($(1)_$(SUB_O)_LIB) $$(patsubst %.c,$$($(1)_$(SUB_O)_DIR)/%,$$(filter-out bench_%,$$(L$(1)_MAINS))) $$(CHECK_$(1)_$(SUB_O))
endef
ifdef SUB
$(foreach l,$(LESSONS),$(eval $(call sub_lesson,$(l))))
endif

# The reference build the grader itself relies on (the judge links the reference: none, no grading).
.PHONY: grader-ready
grader-ready: $(LIBDPC) $(GRADING_TOOLS) $(TREE_$(O)/solutions) $(GRADING_CHECKS_$(O)/solutions)
ifneq ($(HAVE_REF),1)
	@echo "grading needs the reference solutions, and there are none at $(REF)/ nor a compiled reference at $(REF_LIB_DIR)/: give their folder, REF=dir (grading/grade --reference dir)" >&2; exit 2
endif

# grading/quiz: the lessons' self-check quizzes (grading/quizzes/qNN.c, one file a lesson), linked with
# the reference lessons as the judge is, so that every answer comes from the course's own code. The
# registry of quizzes is generated from the qNN.c files present: a new lesson's quiz is one new file.
# It needs the reference (a student release has none: make quiz says so).
QUIZ_SRCS := $(sort $(wildcard grading/quizzes/q[0-9]*.c))
QUIZ_LESSONS := $(patsubst grading/quizzes/q%.c,%,$(QUIZ_SRCS))
QUIZ := $(O)/grading/quiz
QUIZ_REGISTRY := $(O)/grading/quizzes/quiz_lessons.h
QUIZ_REGISTRY_LINE := \#define QUIZ_LESSONS $(foreach l,$(QUIZ_LESSONS),QUIZ_LESSON($(l)))
ifneq ($(PROBE),)
ifneq ($(strip $(shell cat $(QUIZ_REGISTRY) 2>/dev/null)),$(strip $(QUIZ_REGISTRY_LINE)))
$(QUIZ_REGISTRY): FORCE
endif
endif
$(QUIZ_REGISTRY):
	@mkdir -p $(@D)
	@printf '%s\n' '$(QUIZ_REGISTRY_LINE)' > $@
$(O)/grading/quizzes/quiz.o: grading/quizzes/quiz.c $(QUIZ_REGISTRY) $(BUILD_DEPS)
	$(call compile_c,$@,$<,-Igrading/quizzes -Igrading -Icommon/oracle -I$(O)/grading/quizzes)
$(O)/grading/quizzes/quiz_q.o: grading/quizzes/quiz_q.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,-Igrading/quizzes)
# a lesson's questions see its own headers first, then every lesson's (lesson 09's cost model times
# the all-reduces of earlier lessons)
define quiz_rules
$(O)/grading/quizzes/q$(1).o: grading/quizzes/q$(1).c $$(BUILD_DEPS)
	$$(call compile_c,$$@,$$<,-Igrading/quizzes -Igrading -Icommon/oracle $$(if $$(L$(1)_NAME),$$(call lesson_inc,$(1))) $$(foreach l,$$(LESSONS),-Ilessons/$$(L$$(l)_NAME)))
endef
$(foreach l,$(QUIZ_LESSONS),$(eval $(call quiz_rules,$(l))))
QUIZ_REF_LIBS := $(foreach l,$(call reverse,$(LESSONS)),$($(l)_$(O)/solutions_LIB))
$(QUIZ): $(O)/grading/quizzes/quiz.o $(O)/grading/quizzes/quiz_q.o $(patsubst %,$(O)/grading/quizzes/q%.o,$(QUIZ_LESSONS)) \
		$(QUIZ_REF_LIBS) $(ORACLE_LIB) $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
.PHONY: quiz
quiz: $(if $(HAVE_REF),$(QUIZ) $(O)/grading/report)
ifneq ($(HAVE_REF),1)
	@echo "the quizzes compute their answers with the reference solutions, and there are none at $(REF)/ nor a compiled reference at $(REF_LIB_DIR)/: give their folder, REF=dir grading/quiz NN" >&2; exit 2
endif
