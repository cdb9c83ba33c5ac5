# PLACEHOLDER on branch fail only, so that the launcher builds before lesson 12 lands: at the merge,
# keep core's lessons/12-failures/lesson.mk (branch l12), which ends with
# `-include lessons/12-failures/failures.mk` and so builds elastic_run as one of lesson 12's
# programs and has `make failures`. The rule here is the same program linked by hand against the
# reference's lesson 01; the include below brings `make failures` (L12_MAINS is unused here).
ELASTIC_RUN_PLACEHOLDER := $(O)/solutions/12-failures/elastic_run
$(ELASTIC_RUN_PLACEHOLDER): lessons/12-failures/elastic_run.c $(O)/solutions/01-trainer/lib01.a $(ORACLE_LIB) $(LIBDPC)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -Ilessons/01-trainer -o $@ $^ $(LDLIBS)
all: $(ELASTIC_RUN_PLACEHOLDER)
include lessons/12-failures/failures.mk
L12_MAINS :=
