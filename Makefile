# warpdrv: GNU make, C11, pkg-config for the four libraries.
#   make            build build/warpdrv and build/warpdrv-admin
#   make check      install missing build dependencies, build, run every test
#   make check SANITIZE=1   the same under AddressSanitizer and UBSan (in build/san)
#   make demo       the main job on the bundled sample volume
#   make fuzz       build the libFuzzer targets (clang)
#   make deps       install missing Debian build dependencies (or list them)
#   make install PREFIX=/usr/local DESTDIR=

VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libcurl openssl sqlite3 zlib
# Linked: all but libcurl, which catalog/fetch_curl.c loads (dlopen) when the
# first http(s) transfer starts; its headers still come from pkg-config.
LINK_PKGS := openssl sqlite3 zlib

ifeq ($(SANITIZE),1)
O ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
O ?= build
SANFLAGS :=
endif

# Recursive on purpose: pkg-config only runs once something is compiled, so
# `make deps` works on a machine that lacks the libraries.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS))
OPT ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral
# The test hooks (common/hooks.h: WARPDRV_NOW, crash injection, lock wait) are
# compiled into the programs in $(O), which the tests and benchmarks run, and
# left out of the ones `make install` installs (built in $(O)/release).
TEST_HOOKS ?= 1
CPPFLAGS += -I. -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DWD_VERSION='"$(VERSION)"' \
	-DWD_TEST_HOOKS=$(TEST_HOOKS)
CFLAGS_ALL = -std=c11 -pthread $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = -pthread $(SANFLAGS) $(LDFLAGS)

# The library: every folder below ui/, in the layer order of docs/architecture.md.
LIB_DIRS := common fs trust os2 pci netbench state license catalog installer session
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
UI_SRCS := $(filter-out ui/main.c ui/admin.c,$(wildcard ui/*.c))
BENCH_SRCS := $(wildcard bench/*.c)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/obj/%.o)
UI_OBJS := $(UI_SRCS:%.c=$(O)/obj/%.o)
BENCHES := $(BENCH_SRCS:bench/%.c=$(O)/bench/%)
TESTS := $(TEST_SRCS:tests/unit/%.c=$(O)/tests/%)
FUZZERS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)

all: $(O)/warpdrv $(O)/warpdrv-admin data $(BENCHES) $(O)/lost_unlink.so

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(O)/libwarpdrv.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The front end's own objects (options, tables, JSON, prompts), shared by the
# two programs and by the unit tests of the front end.
$(O)/libwarpdrv-ui.a: $(UI_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(O)/warpdrv: $(O)/obj/ui/main.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/warpdrv-admin: $(O)/obj/ui/admin.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $$($(PKG_CONFIG) --libs cmocka) $(PKG_LIBS) $(LDLIBS)

# Benchmark programs (bench/*.c), run by the bench/ scripts.
$(O)/bench/%: $(O)/obj/bench/%.o $(O)/libwarpdrv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) $(LDLIBS)
benches: $(BENCHES)

# The power-cut shim of the crash test (LD_PRELOAD; tests/shim/lost_unlink.c):
# built without the sanitizers, which must come first in a program's libraries.
$(O)/lost_unlink.so: tests/shim/lost_unlink.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

# Data the programs find beside themselves (keys, the bundled repository):
# later rules add to it.
data:

# Development key pairs, one per role, made once and never committed; then the
# bundled repository: every recipe in drivers/ packed, signed and indexed.
# `make repo VENDOR_FILES=DIR` packs the real vendor files found in DIR.
VENDOR_FILES ?=
ADMIN = $(O)/warpdrv-admin -q
data: $(O)/repo/INDEX
$(O)/keys/repo/dev.key $(O)/keys/license/dev.key: | $(O)/warpdrv-admin
	@mkdir -p $(dir $@)
	@$(ADMIN) keygen --out $(basename $@) >/dev/null
$(O)/repo/INDEX: $(O)/warpdrv-admin $(O)/keys/repo/dev.key $(O)/keys/license/dev.key $(wildcard drivers/*/*)
	@rm -rf $(O)/repo.new && mkdir -p $(O)/repo.new
	@for d in drivers/*/; do \
		$(ADMIN) pack $$d --key $(O)/keys/repo/dev.key --out $(O)/repo.new \
			$(if $(VENDOR_FILES),--vendor-files $(VENDOR_FILES)) || exit 1; done
	@$(ADMIN) index $(O)/repo.new --key $(O)/keys/repo/dev.key --serial $$(date +%s)
	@rm -rf $(O)/repo && mv $(O)/repo.new $(O)/repo
	@echo "bundled repository: $(O)/repo ($$(ls $(O)/repo | grep -c wdp) packages)"
repo:
	@rm -f $(O)/repo/INDEX
	@$(MAKE) --no-print-directory $(O)/repo/INDEX VENDOR_FILES=$(VENDOR_FILES)

# libFuzzer targets: the library built again with clang's fuzzer instrumentation.
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(O)/fuzzobj/%.o)
$(O)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<
$(O)/fuzz/%: $(O)/fuzzobj/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(PKG_LIBS)
fuzz: $(FUZZERS)

deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(O)

check: deps
	@$(MAKE) --no-print-directory all tests fuzz
	@sh tests/run.sh $(O)

tests: $(TESTS)

# The installed programs: their own objects, without the test hooks.
RELEASE_O := $(O)/release
release:
	@$(MAKE) --no-print-directory O=$(RELEASE_O) TEST_HOOKS=0 SANITIZE= \
		$(RELEASE_O)/warpdrv $(RELEASE_O)/warpdrv-admin

install: all release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/warpdrv $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(RELEASE_O)/warpdrv $(RELEASE_O)/warpdrv-admin $(DESTDIR)$(PREFIX)/bin/
	for d in keys repo; do if [ -d $(O)/$$d ]; then cp -R $(O)/$$d $(DESTDIR)$(PREFIX)/share/warpdrv/; fi; done
	rm -f $(DESTDIR)$(PREFIX)/share/warpdrv/keys/*/*.key
	install -m 0644 docs/warpdrv.1 docs/warpdrv-admin.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# The build folder given (O=..., or SANITIZE=1's build/san), and only it.
clean:
	rm -rf $(O)

.PHONY: all data repo deps check tests fuzz install release clean demo benches
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
