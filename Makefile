# Thin wrapper over CMake. `make demo` and `make test` are the README's two commands.
BUILD    ?= build
JOBS     ?= 2
RAW_DATA ?= ../shared/data
export RAW_DATA

# Debian packages the project builds and runs with (checked with dpkg, installed with apt-get as root).
DEB_PACKAGES := build-essential cmake libeigen3-dev nlohmann-json3-dev libgtest-dev libopenblas-dev libopenblas-openmp-dev libblis-openmp-dev \
                zlib1g-dev python3-matplotlib fonts-wqy-microhei pkg-config libsentencepiece-dev sentencepiece \
                libopenmpi-dev openmpi-bin

.PHONY: all deps build test demo gradcheck smoke clean format figures tables

all: build

deps:
	@bash tools/deps.sh $(DEB_PACKAGES)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

gradcheck: build
	$(BUILD)/bin/twin_gradcheck

demo: build
	bash tools/demo.sh

# Figures and tables from the committed run folders (results/runs/) alone: no build, no data needed.
PLOT_PYTHON ?= /usr/bin/python3
figures:
	$(PLOT_PYTHON) plots/make_figures.py

tables:
	$(PLOT_PYTHON) plots/make_tables.py

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')
