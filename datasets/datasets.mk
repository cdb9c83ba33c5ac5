# datasets/ — the word-list builder and the default dataset; the fortune corpus the GPT trains on.
DATASET_TOOLS := $(O)/datasets/build_words $(O)/datasets/build_fortunes $(O)/datasets/tok_entropy
DATA_DIR := $(O)/data
DATASET := $(DATA_DIR)/words-train.tok $(DATA_DIR)/words-val.tok
WORDS ?= /usr/share/dict/words

$(O)/datasets/%.o: datasets/%.c $(BUILD_DEPS)
	$(call compile_c,$@,$<,)
.SECONDARY: $(DATASET_TOOLS:%=%.o)
$(O)/datasets/%: $(O)/datasets/%.o $(LIBDPC)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# One run writes both files: a pattern rule with two targets tells make so (an explicit rule with
# two targets would be two rules, and make -j ran build_words twice at once over the same files).
$(DATA_DIR)/%-train.tok $(DATA_DIR)/%-val.tok: $(O)/datasets/build_words
	$(O)/datasets/build_words --words $(WORDS) --out-dir $(DATA_DIR) --name $*

# The fortune corpus (datasets/README.md). The builder writes both files; val is made with train.
FORTUNES ?= /usr/share/games/fortunes
CORPUS := $(DATA_DIR)/fortunes-train.tok $(DATA_DIR)/fortunes-val.tok
$(DATA_DIR)/fortunes-train.tok: $(O)/datasets/build_fortunes
	$(O)/datasets/build_fortunes --dir $(FORTUNES) --out-dir $(DATA_DIR) --name fortunes
$(DATA_DIR)/fortunes-val.tok: $(DATA_DIR)/fortunes-train.tok
	@:

# The committed test fixture is rebuilt from the committed word sample (a test checks they agree).
FIXTURE_WORDS := datasets/fixtures/words.txt
.PHONY: dataset fixture
dataset: $(DATASET) $(CORPUS)
fixture: $(O)/datasets/build_words
	$(O)/datasets/build_words --words $(FIXTURE_WORDS) --out-dir datasets/fixtures --name tiny
	$(O)/datasets/build_words --words datasets/fixtures/micro-words.txt --out-dir datasets/fixtures --name micro
