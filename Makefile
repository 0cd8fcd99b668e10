# Thin wrapper over CMake. `make demo` and `make test` are the README's two commands.
BUILD    ?= build
JOBS     ?= 2
RAW_DATA ?= ../shared/data
export RAW_DATA

# Debian packages the project builds and runs with (checked with dpkg, installed with apt-get as root).
DEB_PACKAGES := build-essential cmake libeigen3-dev nlohmann-json3-dev libgtest-dev libopenblas-dev libopenblas-openmp-dev libblis-openmp-dev libdnnl-dev libgoogle-perftools-dev \
                zlib1g-dev python3-matplotlib fonts-wqy-microhei pkg-config libsentencepiece-dev sentencepiece \
                libopenmpi-dev openmpi-bin python3-jieba lld python3-optuna python3-psycopg2 postgresql

.PHONY: all deps build test test-sanitize demo gradcheck smoke clean format figures tables fuzz rescore data

all: build

deps:
	@bash tools/deps.sh $(DEB_PACKAGES)

# Extra CMake options for a first configure, e.g. CMAKE_ARGS=-DTW_WERROR=ON (what .ci/run uses).
CMAKE_ARGS ?=
$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

gradcheck: build
	$(BUILD)/bin/twin_gradcheck

# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (gcc), in its own build folder.
# Open MPI's own allocations are not ours: its leak reports are suppressed (tests/sanitize/lsan.supp).
# -g1 (line tables, no variable info) still gives the reports' stacks file:line, and compiles a fifth faster
# than -g (core/rnn/atr.cc: 7.6 -> 6.0 CPU-s; its object 2.7 -> 0.8 MB).
SAN_BUILD ?= build-sanitize
test-sanitize: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DTW_SANITIZE=ON
	cmake --build $(SAN_BUILD) -j$(JOBS)
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j$(JOBS) $(SAN_CTEST_ARGS)

# libFuzzer targets for every C++ reader (tests/fuzz/README.md): built with Debian's clang-14 in build-fuzz,
# each run FUZZ_SECONDS from the committed seeds, then the mutation fuzzer of the Python data_prep readers
# (tests/fuzz/fuzz_prep.py) for FUZZ_SECONDS per reader; findings in fuzz-findings/ (git-ignored); fails on any.
FUZZ_SECONDS ?= 60
fuzz:
	bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) fuzz-findings

# The demo builds only the LM binary it runs (not the tests or the double-precision core), so training starts
# within minutes of a fresh clone.
demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target lm
	bash tools/demo.sh

# Figures and tables from the committed run folders (results/runs/) alone: no build, no data needed.
# Your own runs: make figures RUNS=/work/runs OUT=my_figures, make tables RUNS=/work/runs OUT=my_tables (OUT is
# created; README.md's cells table is rewritten only by the default call). One figure of one run:
# plots/make_figures.py --only fig3 --run DIR; any set of run folders compared: plots/compare.py RUN...
PLOT_PYTHON ?= /usr/bin/python3
RUNS ?= results/runs
OUT ?=
figures:
	$(PLOT_PYTHON) plots/make_figures.py --runs $(RUNS) $(if $(OUT),--out $(OUT))

tables:
	$(if $(OUT),mkdir -p $(OUT) &&) $(PLOT_PYTHON) plots/make_tables.py --runs $(RUNS) $(if $(OUT),--out $(OUT) --no-readme)

# Every corpus of RAW_DATA the suite's experiments and `make rescore` read, prepared into data/ (each script
# checks its corpus's published counts and stops, naming the file, if one is missing): 1.6 minutes on 2026-12-07's 2 cores.
DATA_PREP := ptb.py sst.py snli.py ner.py "cws.py --protocol all" nmt.py docs.py "glove.py --all" \
             "glove.py data/20ng data/imdb" squad.py
data:
	@for s in $(DATA_PREP); do echo "data_prep/$$s"; $(PLOT_PYTHON) data_prep/$$s || exit 1; done

# Every committed run that keeps its outputs re-scored from them and the prepared references (data/, from
# data_prep/); fails naming the run and metric on any difference, lists the runs that keep no outputs.
rescore:
	$(PLOT_PYTHON) plots/rescore.py

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

# experiments/KEYS.md, the reference of every experiment key, from the task binaries' own key tables
# (--print-keys); the ctest entry `keys_md` fails while the committed file differs.
.PHONY: keys
keys: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target lm nmt cws ner snli classify rc
	/usr/bin/python3 tools/keys_md.py --bin $(BUILD)/bin

# The README's table of bad inputs (between its bad-inputs markers), rewritten from what the task binaries
# answer now; the ctest entry `bad_inputs` fails while the table differs (tests/bad_inputs/).
.PHONY: bad-input-table
bad-input-table: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target lm nmt cws ner snli classify rc speed
	/usr/bin/python3 tests/bad_inputs/run_bad_inputs.py --bin-dir $(BUILD)/bin --write-readme
