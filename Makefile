# Data-parallel training from scratch in C — build, test, grade, demo.
#
#   make            build everything this machine can build (probes once, prints what it found)
#   make demo       the main job: train, compare, plot (installs missing packages first)
#   make test       every test; last line "N passed, N failed" (installs missing packages first)
#   make test-hostile  the whole hostile-submission catalogue against the grader (make test runs a subset)
#   make test-load     the timing lessons' reference graded under load (another grader + busy loops)
#   make test-equiv-sweep  the reference over 252 configurations: equivalence never fails correct code
#   make test-release  a student release tested whole: every lesson self-graded, solutions/ hidden
#   make grade LESSON=01      grade your lessons/ (see grading/README.md)
#   make quiz       build grading/quiz NN, the lessons' self-check quizzes (make test-quiz tests them)
#   make bench      benchmarks: ratios against baselines run alternately in the same run (5 pairs: the
#                   median and its spread, no ratio on a loaded machine; BENCH_ANY_LOAD=1 forces one)
#                   BENCH_QUICK=1: the short form (about 10 s, one pair: no measurement). The labs, bench and demo run your
#                   lessons' code once no DP_TODO() is left in them, else the reference (they say which);
#                   LAB_STACK=reference|own forces one side (common/mk/lab_build.sh)
#   make stragglers lesson 10's straggler lab: DDP's step under seeded jitter on 1-8 ranks vs the model
#   make lengths    lesson 10's variable-length lab: cut to the longest, padded, grouped by length
#   make topology   lesson 11's lab: flat ring (block, spread) vs hierarchical on 2x2, 2x4, 4x2 vs the model
#   make failures   lesson 12's lab: a 4-rank run loses a rank and finishes on 3 (its verdict), and the
#                   work lost to seeded failures against the checkpoint interval vs Young-Daly's
#   make gpu-bundle build/gpu-bundle.tar.gz: the GPU checks prebuilt, with the libraries and Open MPI
#                   they need, for a GPU machine that cannot build (its run.sh OUTDIR runs them)
#   make skeletons  regenerate lessons/ student files from solutions/
#   make format     reformat every C file in the course's style (.clang-format); make format-check
#                   only lists the files that differ (make test checks it too)
#   make student-release OUT=dir  the course for students: no solutions/, a compiled reference instead
#                   (grading/README.md, "Handing out the course")
#   make site       build/site/index.html: the course as a website (MkDocs Material; quizzes in WebAssembly)
#   make test-site  the site in headless Chromium: pages, search, phones, figures, links, quizzes
#   make deps       install the Debian packages the course needs
#   make compdb     write compile_commands.json for editors
#   make clean      remove build/ (the next make probes again)
#
#   make SANITIZE=address,undefined   an ASan+UBSan build into build-asan/ (any report aborts)
#   make SANITIZE=thread              a ThreadSanitizer build into build-tsan/
#   make test-sanitize  the reference's tests and graders under ASan+UBSan, the DDP and FSDP
#                       trainers under TSan; fails on any report (tests/sanitize.sh)
#   make test-bugs      the whole seeded-bug catalogue (make test grades a representative fifth)
#   make test-bugs-sanitize  the seeded-bug catalogue graded under ASan+UBSan: a report whose top
#                       frame is outside the student's files fails (tests/bugs/sanitize.sh)
#
# Variables: O=build dir, NO_MPI=1 NO_CUDA=1 NO_NCCL=1 (skip optional parts), STACK=own (lessons
# link your own earlier lessons instead of the reference ones; in a student release the reference is
# the compiled one, grading/reference/), REF=dir (the reference solutions' sources), SUB=dir SUB_O=dir (build a
# submission tree; used by the grader). SANITIZE=list (-fsanitize=list; O defaults to build-asan
# or build-tsan, never build/). CFLAGS=... and LDLIBS=... on the command line are ADDED after the
# course's own flags (make CFLAGS=-O0 builds with -O2 ... -O0, i.e. unoptimised, and still -Werror);
# a CFLAGS in the environment is ignored, as distributions set one for their own packaging.

SHELL := /bin/sh
.DEFAULT_GOAL := all
comma := ,
SANITIZE ?=
ifneq ($(SANITIZE),)
O ?= build-$(if $(filter thread,$(subst $(comma), ,$(SANITIZE))),tsan,asan)
# grading/grade and tests/run read the build dir and the sanitizer from the environment (an O given
# on the command line is exported by make itself).
export O SANITIZE
endif
O ?= build
NO_MPI ?= 0
NO_CUDA ?= 0
NO_NCCL ?= 0
export NO_MPI NO_CUDA NO_NCCL

CONFIG := $(O)/config.mk
# A student release (make student-release) has no tests/ (they carry the reference's code): there
# every test goal prints one line and fails (below).
HAVE_TESTS := $(wildcard tests/tests.mk)
TEST_GOALS := test test-site test-build test-hostile test-bugs test-sanitize test-bugs-sanitize test-load test-equiv-sweep test-release test-quiz gpu-bundle
NOPROBE_GOALS := deps clean help site test-site skeletons format format-check test demo test-sanitize test-bugs-sanitize student-release $(if $(HAVE_TESTS),,$(TEST_GOALS))
PROBE := $(filter-out $(NOPROBE_GOALS),$(or $(MAKECMDGOALS),all))
ifneq ($(PROBE),)
-include $(CONFIG)
ifneq ($(PROBED_FLAGS),$(NO_MPI)$(NO_CUDA)$(NO_NCCL))
$(CONFIG): FORCE
endif
endif
$(CONFIG): common/mk/configure.sh
	@sh common/mk/configure.sh $@
FORCE:

# ---- compilers and flags ----------------------------------------------------------------------
CC := $(or $(MPICC),cc)
# -Wshadow: an inner k, i or n that hides an outer one is a classic wrong-index bug in this course's
# loops. -Wmissing-prototypes: a non-static function must be declared in a header (or made static),
# so a signature that drifts from its header is caught. -Wstrict-prototypes: f() is f(void).
# Sanitizer builds (SANITIZE=...) use the same list, and so does every tree (a submission too).
WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers -Wshadow -Wmissing-prototypes -Wstrict-prototypes
# The user's additions (command line only, see the header), kept apart and appended last so that
# they win (-O0 after -O2). CFLAGS itself is then overridden with the whole set: every compile and
# link line, here and in the included .mk files, uses $(CFLAGS).
USER_CFLAGS := $(if $(filter command line,$(origin CFLAGS)),$(CFLAGS))
USER_LDLIBS := $(if $(filter command line,$(origin LDLIBS)),$(LDLIBS))
# -fno-math-errno and -fno-trapping-math: nothing reads errno after a math call or the FP exception
# flags, and without them a loop that calls sqrtf or picks between two floats cannot be vectorised
# (the values computed are the same; -ffp-contract=off keeps every multiply and add rounded apart).
DPC_CFLAGS := -std=c11 -O2 -ftree-vectorize -fvect-cost-model=dynamic -fno-math-errno -fno-trapping-math -g -ffp-contract=off -pthread $(WARN) -MMD -MP -Icommon $(BLAS_CFLAGS)
ifeq ($(HAVE_MPI),1)
DPC_CFLAGS += -DDPC_HAVE_MPI
endif
ifeq ($(HAVE_CUDA),1)
DPC_CFLAGS += -DDPC_HAVE_CUDA -I$(CUDA_HOME)/include
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lcublas -lstdc++
endif
ifeq ($(HAVE_NCCL),1)
DPC_CFLAGS += -DDPC_HAVE_NCCL
CUDA_LIBS += -lnccl
endif
# Sanitizers instrument the C code only (compile and link lines: both use CFLAGS); CUDA sources
# are compiled by nvcc without them, so a CUDA build links, uninstrumented on the device side.
# -fno-sanitize-recover: the first UBSan report aborts the program (a test cannot miss it). ASan
# beside the CUDA runtime needs ASAN_OPTIONS=protect_shadow_gap=0 (tests/sanitize.sh sets it).
ifneq ($(SANITIZE),)
DPC_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
override CFLAGS := $(DPC_CFLAGS)$(if $(USER_CFLAGS), $(USER_CFLAGS))
NVCCFLAGS := -O2 -g -std=c++17 -MMD -MP -Icommon -Xcompiler -Wall,-Wextra,-Werror \
	-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
override LDLIBS := $(BLAS_LIBS) -lcjson $(CUDA_LIBS) -lm -lpthread$(if $(USER_LDLIBS), $(USER_LDLIBS))
# Student files whose lesson says so (LNN_STUDENT_CFLAGS := $(WNARROW) in its lesson.mk: the lessons
# whose code is chunk, shard and sampler index arithmetic — 04, 07, 08) are also compiled with every
# implicit conversion that may change a value as an error: size_t or int64_t into int or unsigned (an
# offset or a size that wraps past 2^31 or 2^32 elements, which no test can allocate), a float or
# double into an integer (a ceil computed in floating point), double into float. Sign conversions
# (int rank times size_t chunk) are left out: they are everywhere in correct code, and -Wsign-compare
# (in -Wextra) already rejects an int loop index compared with a size_t bound. Not caught: an
# unsigned index compared with a size_t bound (no narrowing happens), and explicit casts. The flags
# apply in every tree (the reference, lessons/, a submission): the reference and the skeletons pass them.
WNARROW := -Wconversion -Wno-sign-conversion

# Objects depend on the probe results and on the flags: change either and they are rebuilt. The
# stamp is written by a recipe, so only a build that runs rewrites it: not make -n (which still
# lists what new flags would rebuild), and not the goals that skip the probe (test, demo, help...),
# whose flags lack the probed ones and would otherwise make the next plain make rebuild everything.
FLAGS_STAMP := $(O)/flags.txt
FLAGS_LINE := $(CC) $(CFLAGS) $(NVCCFLAGS) $(WNARROW)
ifneq ($(PROBE),)
ifneq ($(strip $(shell cat $(FLAGS_STAMP) 2>/dev/null)),$(strip $(FLAGS_LINE)))
$(FLAGS_STAMP): FORCE
endif
endif
$(FLAGS_STAMP):
	@mkdir -p $(@D)
	@printf '%s\n' '$(FLAGS_LINE)' > $@
BUILD_DEPS := $(CONFIG) $(FLAGS_STAMP)

# Quiet by default: "CC file" per compile; V=1 prints the full commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

# Every compile also writes a compile_commands.json fragment next to its object (make compdb).
# $(1)=object $(2)=source $(3)=extra flags
define compile_c
	@mkdir -p $(dir $(1))
	@printf '{"directory":"%s","file":"%s","output":"%s","command":"%s"},\n' \
		"$(CURDIR)" "$(2)" "$(1)" "$(CC) $(CFLAGS) $(3) -c $(2) -o $(1)" > $(1).json
	$(call say,CC,$(2))
	$(Q)$(CC) $(CFLAGS) $(3) -c $(2) -o $(1)
endef

# The same for CUDA sources, with nvcc.
define compile_cu
	@mkdir -p $(dir $(1))
	@printf '{"directory":"%s","file":"%s","output":"%s","command":"%s"},\n' \
		"$(CURDIR)" "$(2)" "$(1)" "$(NVCC) $(NVCCFLAGS) $(3) -c $(2) -o $(1)" > $(1).json
	$(call say,NVCC,$(2))
	$(Q)$(NVCC) $(NVCCFLAGS) $(3) -c $(2) -o $(1)
endef

# ---- common/ ----------------------------------------------------------------------------------
COMMON_SRCS := $(filter-out %.cu,$(wildcard common/*.c))
COMMON_OBJS := $(patsubst common/%.c,$(O)/common/%.o,$(COMMON_SRCS))
COMMON_CU := $(wildcard common/*.cu)
ifeq ($(HAVE_CUDA),1)
COMMON_OBJS += $(patsubst common/%.cu,$(O)/common/%.cu.o,$(COMMON_CU))
endif
LIBDPC := $(O)/common/libdpc.a
# The oracle of PyTorch's DistributedSampler (common/oracle/sampler_oracle.h): the reference
# trainer's --order sampler uses it, and the grader judges lesson 07 against it. Its own archive,
# linked before libdpc.a into every program, and not one a student file may call (grading/grade's
# forbidden-call check allows libdpc.a's functions and the lessons', not this one's).
ORACLE_LIB := $(O)/common/oracle/liboracle.a

$(O)/common/%.o: common/%.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
$(O)/common/%.cu.o: common/%.cu $(BUILD_DEPS)
	$(call compile_cu,$@,$<,)
$(LIBDPC): $(COMMON_OBJS)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

# ---- lessons -----------------------------------------------------------------------------------
# Each lessons/NN-name/lesson.mk declares, for lesson NN:
#   LNN_NAME    directory name            LNN_SRCS    library sources (no main)
#   LNN_STUDENT the student's files       LNN_MAINS   sources with a main(), one program each
#   LNN_USES    earlier lessons it links  (their reference build, or yours with STACK=own)
#   LNN_CU      CUDA sources, compiled with nvcc into the library when the CUDA Toolkit is found
# Everything of lesson NN but the student's files is given: it lives in lessons/NN-name/ beside the
# lesson text and is compiled once, into $(O)/given/. A "tree" supplies the student's files: REF (the
# reference solutions, solutions/ by default; a student release has none), lessons/ (you), or any
# submission directory the grader points at. Each tree's libNN.a is the given objects + its own.
#
# The compiled reference (a student release, made by grading/student-release): REF_LIB holds the
# reference's student objects, stripped, one archive per lesson, in two variants built from the same
# source: cpu/ (built without the CUDA Toolkit) and, where nvcc was present, cuda/ (device_step.c and
# the kernels differ). Without reference sources the reference tree is made of those objects
# instead: everything that links the reference (your lessons' earlier lessons, the grader's judge,
# the quizzes, the labs) works in a release as in the repository.
REF ?= solutions
REF_LIB ?= grading/reference
HAVE_REF_SRC := $(if $(wildcard $(REF)/*/*.c),1)
REF_LIB_VARIANT := $(if $(filter 1,$(HAVE_CUDA)),cuda,cpu)
REF_LIB_DIR := $(REF_LIB)/$(REF_LIB_VARIANT)
HAVE_REF_LIB := $(if $(HAVE_REF_SRC),,$(if $(wildcard $(REF_LIB_DIR)/*/lib*.a),1))
HAVE_REF := $(or $(HAVE_REF_SRC),$(HAVE_REF_LIB))
ifeq ($(HAVE_REF_SRC)$(HAVE_REF_LIB)$(REF_LIB_VARIANT),cuda)
ifneq ($(wildcard $(REF_LIB)/cpu/*/lib*.a),)
$(error the compiled reference in $(REF_LIB)/ has no CUDA objects (the release was made where nvcc was missing), and this machine builds CUDA: build with make NO_CUDA=1)
endif
endif
LESSONS :=
include $(sort $(wildcard lessons/*/lesson.mk))

is_student = $(filter $(2),$(L$(1)_STUDENT))
# $(1)=lesson $(2)=out dir of a tree $(3)=source: where its object is (given ones are shared)
obj_of = $(if $(call is_student,$(1),$(3)),$(2)/$(L$(1)_NAME),$(O)/given/$(L$(1)_NAME))/$(patsubst %.cu,%.cu.o,$(patsubst %.c,%.o,$(3)))
lesson_inc = -Ilessons/$(L$(1)_NAME) $(foreach u,$(L$(1)_USES),-Ilessons/$(L$(u)_NAME))
lesson_cu_srcs = $(if $(filter 1,$(HAVE_CUDA)),$(L$(1)_CU))

# The given files of lesson $(1), compiled once.
define lesson_given
$$(foreach s,$$(filter-out $$(L$(1)_STUDENT),$$(L$(1)_SRCS) $$(L$(1)_MAINS)),$$(eval $$(call given_obj,$(1),$$(s),compile_c)))
$$(foreach s,$$(filter-out $$(L$(1)_STUDENT),$$(call lesson_cu_srcs,$(1))),$$(eval $$(call given_obj,$(1),$$(s),compile_cu)))
endef
define given_obj
$$(call obj_of,$(1),,$(2)): lessons/$$(L$(1)_NAME)/$(2) $$(BUILD_DEPS)
	$$(call $(3),$$@,$$<,$$(call lesson_inc,$(1)) -Icommon/oracle)
endef

# $(1)=lesson $(2)=tree $(3)=out dir $(4)=out dir of the stack (where LNN_USES libraries come from)
# $(5)=extra prerequisites of the tree's student objects $(6)=extra prerequisites of its programs
# $(7)=how its student objects are made: student_obj (compiled from the tree), ref_lib_obj (taken
# from the compiled reference)
define lesson_tree
$(1)_$(3)_DIR := $(3)/$$(L$(1)_NAME)
$(1)_$(3)_INC := $$(call lesson_inc,$(1))
$(1)_$(3)_LIB := $$($(1)_$(3)_DIR)/lib$(1).a
$(1)_$(3)_STACK := $$(foreach u,$$(call reverse,$$(L$(1)_USES)),$(4)/$$(L$$(u)_NAME)/lib$$(u).a)
$$(foreach s,$$(filter $$(L$(1)_STUDENT),$$(L$(1)_SRCS) $$(L$(1)_MAINS)),$$(eval $$(call $(or $(7),student_obj),$(1),$(2),$(3),$$(s),compile_c,$(5))))
$$(foreach s,$$(filter $$(L$(1)_STUDENT),$$(call lesson_cu_srcs,$(1))),$$(eval $$(call $(or $(7),student_obj),$(1),$(2),$(3),$$(s),compile_cu,$(5))))
$$($(1)_$(3)_LIB): $$(foreach s,$$(L$(1)_SRCS) $$(call lesson_cu_srcs,$(1)),$$(call obj_of,$(1),$(3),$$(s)))
	@rm -f $$@
	$$(call say,AR,$$@)
	$$(Q)ar rcs $$@ $$^
$$(foreach m,$$(L$(1)_MAINS),$$(eval $$(call lesson_bin,$(1),$(3),$$(m),$(6))))
$(1)_$(3)_BIN_DEPS := $(6)
TREE_$(3) += $$($(1)_$(3)_LIB) $$(patsubst %.c,$$($(1)_$(3)_DIR)/%,$$(L$(1)_MAINS))
endef

# A student file of a tree: $(1)=lesson $(2)=tree $(3)=out $(4)=source $(5)=compile_c|compile_cu
# $(6)=extra prerequisites. It also gets its lesson's LNN_STUDENT_CFLAGS (C only), in every tree,
# and is rebuilt when lesson.mk changes.
define student_obj
$$(call obj_of,$(1),$(3),$(4)): $(2)/$$(L$(1)_NAME)/$(4) $$(BUILD_DEPS) lessons/$$(L$(1)_NAME)/lesson.mk $(6)
	$$(call $(5),$$@,$$<,$$($(1)_$(3)_INC) $$(if $$(filter compile_c,$(5)),$$(L$(1)_STUDENT_CFLAGS)))
endef

# A student object of the compiled reference: the archive's member of the same name (the archive
# holds only the reference's student objects; the given ones are compiled here as in every tree).
# $(1)=lesson $(3)=out $(4)=source $(6)=extra prerequisites
define ref_lib_obj
$$(call obj_of,$(1),$(3),$(4)): $$(REF_LIB_DIR)/$$(L$(1)_NAME)/lib$(1).a $(6)
	@mkdir -p $$(@D)
	$$(call say,AR-X,$$@)
	$$(Q)cd $$(@D) && ar x $$(abspath $$<) $$(@F) && touch $$(@F)
endef

# $(1)=lesson $(2)=out $(3)=main source $(4)=extra prerequisites (a stack stamp), not linked
define lesson_bin
$$($(1)_$(2)_DIR)/$(patsubst %.c,%,$(3)): $$(call obj_of,$(1),$(2),$(3)) $$($(1)_$(2)_LIB) $$($(1)_$(2)_STACK) $$(ORACLE_LIB) $$(LIBDPC) $(4)
	$$(call say,LD,$$@)
	$$(Q)$$(CC) $$(CFLAGS) -o $$@ $$(filter-out %.txt,$$^) $$(LDLIBS)
endef

reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))

# The reference tree is built into $(O)/solutions whatever REF is; a stamp naming where its student
# objects come from (REF's path, or the compiled reference's) makes a change of REF (grading/grade
# --reference DIR) rebuild them. A new compiled reference is newer than the objects taken from it.
REF_ORIGIN := $(if $(HAVE_REF_LIB),compiled $(abspath $(REF_LIB_DIR)),$(abspath $(REF)))
REF_STAMP := $(O)/solutions/ref.txt
ifneq ($(PROBE),)
ifneq ($(strip $(shell cat $(REF_STAMP) 2>/dev/null)),$(REF_ORIGIN))
$(REF_STAMP): FORCE
endif
endif
$(REF_STAMP):
	@mkdir -p $(@D)
	@printf '%s\n' '$(REF_ORIGIN)' > $@

# Your lessons link the reference's earlier lessons (STACK=reference, the default wherever there is a
# reference: the repository, or a release's compiled one), or your own (STACK=own; the only choice
# without a reference). A stamp of the choice and of the reference's origin is a prerequisite of
# every program of lessons/: changing STACK, REF or the compiled reference relinks them, and only them.
STACK ?= $(if $(HAVE_REF),reference,own)
LESSON_STACK_O := $(if $(filter own,$(STACK)),$(O)/lessons,$(O)/solutions)
STACK_LINE := $(if $(filter own,$(STACK)),your own earlier lessons (STACK=own),$(if $(HAVE_REF_LIB),the compiled reference's earlier lessons ($(REF_LIB_DIR)/; STACK=own links your own),the reference's earlier lessons ($(REF)/; STACK=own links your own)))
STACK_STAMP := $(O)/lessons/stack.txt
ifneq ($(PROBE),)
ifneq ($(strip $(shell cat $(STACK_STAMP) 2>/dev/null)),$(strip $(STACK) $(REF_ORIGIN)))
$(STACK_STAMP): FORCE
endif
endif
$(STACK_STAMP):
	@mkdir -p $(@D)
	@printf '%s\n' '$(STACK) $(REF_ORIGIN)' > $@
$(foreach l,$(LESSONS),$(eval $(call lesson_given,$(l))))
ifeq ($(HAVE_REF_SRC),1)
$(foreach l,$(LESSONS),$(eval $(call lesson_tree,$(l),$(REF),$(O)/solutions,$(O)/solutions,$(REF_STAMP))))
else ifeq ($(HAVE_REF_LIB),1)
$(foreach l,$(LESSONS),$(eval $(call lesson_tree,$(l),$(REF_LIB_DIR),$(O)/solutions,$(O)/solutions,$(REF_STAMP),,ref_lib_obj)))
endif
$(foreach l,$(LESSONS),$(eval $(call lesson_tree,$(l),lessons,$(O)/lessons,$(LESSON_STACK_O),,$(STACK_STAMP))))
ifdef SUB
SUB_O ?= $(O)/sub
# SUB_STACK: a directory of prebuilt reference libraries (NN-name/libNN.a) the grader stages for
# the sandbox, where the rest of the reference build is hidden; they have no rules here.
SUB_STACK_O := $(if $(filter own,$(STACK)),$(SUB_O),$(or $(SUB_STACK),$(O)/solutions))
$(foreach l,$(LESSONS),$(eval $(call lesson_tree,$(l),$(SUB),$(SUB_O),$(SUB_STACK_O))))
endif

# The reference's student objects alone (grading/student-release archives them).
REF_STUDENT_OBJS := $(foreach l,$(LESSONS),$(foreach s,$(filter $(L$(l)_STUDENT),$(L$(l)_SRCS) $(call lesson_cu_srcs,$(l))),$(call obj_of,$(l),$(O)/solutions,$(s))))
.PHONY: ref-objects
ref-objects: $(REF_STUDENT_OBJS)

# ---- datasets, grading, tests -----------------------------------------------------------------
include datasets/datasets.mk
include grading/grading.mk
ifneq ($(HAVE_TESTS),)
include tests/tests.mk
endif

# ---- top-level targets --------------------------------------------------------------------------
.PHONY: all sub deps demo test test-hostile test-bugs grade bench skeletons student-release format format-check compdb clean help FORCE

# demo and test work as the first command on a fresh machine: install what is missing, then build.
ifneq ($(HAVE_TESTS),)
test:
	@sh common/mk/deps.sh
	@$(MAKE) --no-print-directory test-build
	@sh tests/run
test-hostile:
	@sh common/mk/deps.sh
	@$(MAKE) --no-print-directory -s grader-ready
	@sh tests/hostile/check.sh
test-bugs:
	@sh common/mk/deps.sh
	@$(MAKE) --no-print-directory -s grader-ready
	@BUGS_CASES=all TESTS=bugs- sh tests/run
else
# Non-zero: a test goal that checked nothing must not pass for one (make test && hand-in, a CI job).
$(TEST_GOALS):
	@echo "make $@: the student release has no tests (they hold the reference's code); check your lessons with grading/grade NN (a self-check against the compiled reference)" >&2; exit 2
endif
demo:
	@sh common/mk/deps.sh
	@$(MAKE) --no-print-directory demo-run
# REF=dir on the command line (a student release has no solutions/) is the grader's --reference.
grade:
	@$(MAKE) --no-print-directory -s grader-ready
	@grading/grade $(LESSON)$(if $(filter command line,$(origin REF)), --reference '$(REF)')

# The word-list dataset too, so every lesson command runs after a plain make (where the word list is
# not installed, the programs point to make dataset, which says what to install).
all: $(LIBDPC) $(if $(HAVE_REF),$(QUIZ)) $(TREE_$(O)/solutions) $(TREE_$(O)/lessons) $(DATASET_TOOLS) $(GRADING_TOOLS) \
	$(GRADING_CHECKS_$(O)/solutions) $(GRADING_CHECKS_$(O)/lessons) $(if $(wildcard $(WORDS)),$(DATASET)) \
	$(if $(wildcard $(FORTUNES)),$(CORPUS))
	@echo "make: $(O)/lessons/ link $(STACK_LINE)"

sub: $(LIBDPC) $(TREE_$(O)/solutions) $(GRADING_TOOLS) $(GRADING_CHECKS_$(O)/solutions) \
	$(TREE_$(SUB_O)) $(GRADING_CHECKS_$(SUB_O))

deps:
	@sh common/mk/deps.sh
	@if sh site/mkdocs/venv.sh $(O)/mkdocs-venv >/dev/null; then \
		echo "deps: MkDocs for make site in $(O)/mkdocs-venv (from PyPI, pinned by site/mkdocs/requirements.txt)"; \
	else echo "deps: note: MkDocs could not come from PyPI (offline?): make site tries again" >&2; fi

skeletons:
	@[ -f grading/mkskel ] || { echo "make skeletons: the student release has no grading/mkskel (nor solutions/): its lessons/ are the skeletons already" >&2; exit 2; }
	@sh grading/mkskel $(REF) lessons

student-release:
	@sh grading/student-release "$(OUT)"

# The one C style (common/mk/format.sh): format also carries the seeded-bug patches over the reformat
# of solutions/ and regenerates the skeletons; format-check writes nothing and fails on a difference.
format:
	@sh common/mk/format.sh
format-check:
	@sh common/mk/format.sh --check

compdb: all
	@{ echo '['; find $(O) -name '*.o.json' -exec cat {} + | sed '$$ s/,$$//'; echo ']'; } \
		> compile_commands.json
	@echo "wrote compile_commands.json ($$(grep -c '"file"' compile_commands.json) files)"

clean:
	rm -rf $(O) compile_commands.json

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# The demo (see common/mk/demo.sh).
.PHONY: demo-run
demo-run: all $(DATASET) $(CORPUS)
	@sh common/mk/demo.sh

# Benchmarks (see common/mk/bench.sh): ratios against baselines run alternately in the same run.
bench: all
	@sh common/mk/bench.sh

# The straggler lab of lesson 10 (see lessons/10-limits/straggler_lab.sh): out/stragglers/
.PHONY: stragglers
stragglers: all
	@sh lessons/10-limits/straggler_lab.sh out/stragglers

# The topology lab of lesson 11 (see lessons/11-topology/lab.sh): out/topology/
.PHONY: topology
topology: all
	@sh lessons/11-topology/lab.sh out/topology

# The failures lab of lesson 12 (see lessons/12-failures/failures_lab.sh): out/failures/
.PHONY: failures
failures: all
	@sh lessons/12-failures/failures_lab.sh out/failures

# The variable-length lab of lesson 10 (see lessons/10-limits/length_lab.sh): out/lengths/
.PHONY: lengths
lengths: all $(DATASET)
	@sh lessons/10-limits/length_lab.sh out/lengths

# The scaling labs: lesson 09's (see lessons/09-scaling/lab.sh) into out/scaling/, then lesson 10's
# three (stragglers, lengths, the critical batch size) into their own folders under out/
.PHONY: scaling
scaling: all $(DATASET)
	@sh lessons/09-scaling/lab.sh out/scaling && sh lessons/09-scaling/lr_lab.sh out/scaling
	@sh lessons/10-limits/straggler_lab.sh out/stragglers
	@sh lessons/10-limits/length_lab.sh out/lengths
	@sh lessons/10-limits/critical_batch.sh out/critical-batch

# Lesson 10's critical batch size: a batch-size sweep against the noise scale DDP measures (see
# lessons/10-limits/critical_batch.sh): out/critical-batch/
.PHONY: critical-batch
critical-batch: all
	@sh lessons/10-limits/critical_batch.sh out/critical-batch

# The course as a website (site/mkdocs/build.sh): $(O)/site/index.html, built with MkDocs and its
# Material theme (search, contents per page, light/dark, a phone menu, TeX by KaTeX), opened from the
# disk; the lessons' figures from out/; the quizzes grading/quiz's own program compiled to
# WebAssembly. It never runs the demo. MkDocs comes pinned from PyPI into $(O)/mkdocs-venv the first
# time (site/mkdocs/venv.sh).
.PHONY: site test-site
site:
	@O=$(O) sh site/mkdocs/build.sh $(O)/site
ifneq ($(HAVE_TESTS),)
# The site in headless Chromium (tests/site/test.sh): pages, contents, search, phones, figures,
# tables, links, quizzes against grading/quiz; each check also shown failing on a planted defect
test-site: site
	@sh tests/site/test.sh $(O)/site
endif
