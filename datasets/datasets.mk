# datasets/ — the word-list builder and the default dataset.
DATASET_TOOLS := $(O)/datasets/build_words
DATA_DIR := $(O)/data
DATASET := $(DATA_DIR)/words-train.tok $(DATA_DIR)/words-val.tok
WORDS ?= /usr/share/dict/words

$(O)/datasets/build_words.o: datasets/build_words.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
$(O)/datasets/build_words: $(O)/datasets/build_words.o $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# One run writes both files: a pattern rule with two targets tells make so (an explicit rule with
# two targets would be two rules, and make -j ran build_words twice at once over the same files).
$(DATA_DIR)/%-train.tok $(DATA_DIR)/%-val.tok: $(O)/datasets/build_words
	$(O)/datasets/build_words --words $(WORDS) --out-dir $(DATA_DIR) --name $*

# The committed test fixture is rebuilt from the committed word sample (a test checks they agree).
FIXTURE_WORDS := datasets/fixtures/words.txt
.PHONY: dataset fixture
dataset: $(DATASET)
fixture: $(O)/datasets/build_words
	$(O)/datasets/build_words --words $(FIXTURE_WORDS) --out-dir datasets/fixtures --name tiny
	$(O)/datasets/build_words --words datasets/fixtures/micro-words.txt --out-dir datasets/fixtures --name micro
