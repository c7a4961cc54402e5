# warpdrv: GNU make, C11, pkg-config for the four libraries.
#   make            build build/warpdrv and build/warpdrv-admin
#   make check      install missing build and test dependencies, build with
#                   -Werror, run every test
#   make check SANITIZE=1   the same under AddressSanitizer and UBSan (in build/san)
#   make demo       the main job on the bundled sample volume
#   make fuzz       build the libFuzzer targets (clang)
#   make deps       install missing Debian packages the build and `make demo` need
#   make test-deps  install missing Debian packages the tests add
#   make install PREFIX=/usr/local DESTDIR= [DEV_KEYS=1];  make uninstall
#   make KEYS=DIR   build with a vendor's keys (docs/building.md)
#   make deb        the Debian packages (debian/), checked with lintian
#   make distro-check   two builds compared byte for byte, a distribution's
#                   flags running the demo, the packages run from a scratch root
#
# CPPFLAGS, CFLAGS and LDFLAGS are the user's (a distribution's hardening
# flags): they are added after the project's own, which live in WD_*FLAGS.
# WERROR=1 adds -Werror (the default of `make check`; never of a plain build).

VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
# The transfer helper's folder (warpdrv finds it beside itself first).
LIBEXECDIR ?= $(PREFIX)/libexec
HELPERDIR = $(LIBEXECDIR)/warpdrv
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/warpdrv
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/vendor-completions
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libcurl openssl sqlite3 zlib libguestfs libxml-2.0 libseccomp
# Linked: all but libguestfs, which session/guestfs_lib.c loads (dlopen) when a
# disk image is first opened (--disk, --vm); its headers still come from
# pkg-config, and a package names it itself (debian/control). libcurl (and
# libseccomp, its sandbox) is linked only into the transfer helper,
# warpdrv-fetch (xfer/warpdrv_fetch.c), which warpdrv starts on its first
# transfer. The linked libraries are found
# by dpkg-shlibdeps.
LINK_PKGS := openssl sqlite3 zlib libxml-2.0

ifeq ($(SANITIZE),1)
O ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# ASan intercepts the XDR functions libguestfs calls, and finds the real ones
# when the program starts: libguestfs, loaded later with dlopen, would reach
# an interceptor with nothing behind it. The sanitized programs link libtirpc
# (libguestfs's XDR) from the start where it is installed.
TIRPC := $(shell $(CC) -print-file-name=libtirpc.so.3)
comma := ,
SANLIBS := $(if $(filter /%,$(TIRPC)),-Wl$(comma)--no-as-needed $(TIRPC) -Wl$(comma)--as-needed)
else
O ?= build
SANFLAGS :=
SANLIBS :=
endif

# Recursive on purpose: pkg-config only runs once something is compiled, so
# `make deps` works on a machine that lacks the libraries.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS))
CURL_LIBS = $(shell $(PKG_CONFIG) --libs libcurl libseccomp)
OPT ?= -O2 -g
WERROR ?= 0
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral \
	$(if $(filter 1,$(WERROR)),-Werror)
# The test hooks (common/hooks.h: WARPDRV_NOW, crash injection, lock wait) are
# compiled into the programs in $(O), which the tests and benchmarks run, and
# left out of the ones `make install` installs (built in $(O)/release).
TEST_HOOKS ?= 1
WD_CPPFLAGS = -I. -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DWD_VERSION='"$(VERSION)"' \
	-DWD_LIBEXECDIR='"$(HELPERDIR)"' -DWD_TEST_HOOKS=$(TEST_HOOKS)
# The source folder's path stays out of the objects (reproducible builds).
WD_CFLAGS = -std=c11 -pthread $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -ffile-prefix-map=$(CURDIR)=.
WD_LDFLAGS = -pthread $(SANFLAGS) $(SANLIBS)
ALL_CPPFLAGS = $(WD_CPPFLAGS) $(CPPFLAGS)
CFLAGS_ALL = $(WD_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(WD_LDFLAGS) $(LDFLAGS)

# The library: every folder below ui/, in the layer order of docs/architecture.md.
LIB_DIRS := common fs xfer trust os2 pci netbench state license catalog txn installer session
HELPER_SRC := xfer/warpdrv_fetch.c
LIB_SRCS := $(filter-out $(HELPER_SRC),$(foreach d,$(LIB_DIRS),$(sort $(wildcard $(d)/*.c))))
UI_SRCS := $(filter-out ui/main.c ui/admin.c,$(sort $(wildcard ui/*.c)))
BENCH_SRCS := $(wildcard bench/*.c)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/obj/%.o)
UI_OBJS := $(UI_SRCS:%.c=$(O)/obj/%.o)
BENCHES := $(BENCH_SRCS:bench/%.c=$(O)/bench/%)
TESTS := $(TEST_SRCS:tests/unit/%.c=$(O)/tests/%) $(O)/tests/test_pci_plain
FUZZERS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)

all: $(O)/warpdrv $(O)/warpdrv-admin $(O)/warpdrv-fetch data $(BENCHES) $(O)/lost_unlink.so

# Every object is rebuilt when the flags change (another CFLAGS, WERROR=1).
FLAGS_LINE = $(CC) $(ALL_CPPFLAGS) $(CFLAGS_ALL) | $(LDFLAGS_ALL)
$(O)/flags: FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(subst ','\'',$(FLAGS_LINE))' ]; then \
		printf '%s\n' '$(subst ','\'',$(FLAGS_LINE))' >$@; fi

$(O)/obj/%.o: %.c $(O)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(O)/libwarpdrv.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The front end's own objects (options, tables, JSON, prompts), shared by the
# two programs and by the unit tests of the front end.
$(O)/libwarpdrv-ui.a: $(UI_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

LINK_INPUTS = $(filter-out $(O)/flags,$^)
$(O)/warpdrv: $(O)/obj/ui/main.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a $(O)/flags
	$(CC) $(LDFLAGS_ALL) -o $@ $(LINK_INPUTS) $(PKG_LIBS) $(LDLIBS)

$(O)/warpdrv-admin: $(O)/obj/ui/admin.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a $(O)/flags
	$(CC) $(LDFLAGS_ALL) -o $@ $(LINK_INPUTS) $(PKG_LIBS) $(LDLIBS)

# The transfer helper: libcurl, libseccomp and the library's common/ and xfer/ only.
$(O)/warpdrv-fetch: $(O)/obj/xfer/warpdrv_fetch.o $(O)/libwarpdrv.a $(O)/flags
	$(CC) $(LDFLAGS_ALL) -o $@ $(LINK_INPUTS) $(CURL_LIBS) $(LDLIBS)

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $$($(PKG_CONFIG) --libs cmocka) $(PKG_LIBS) $(LDLIBS)

# The pci.ids tests again on the scanner's plain line search (memchr), the
# one a machine without SSE2 builds (pci/pci_ids.c).
$(O)/obj/pci/pci_ids_plain.o: pci/pci_ids.c $(O)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -DWD_PCI_PLAIN $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(O)/tests/test_pci_plain: $(O)/obj/tests/unit/test_pci.o $(O)/obj/pci/pci_ids_plain.o \
		$(O)/libwarpdrv-ui.a $(O)/libwarpdrv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $$($(PKG_CONFIG) --libs cmocka) $(PKG_LIBS) $(LDLIBS)

# Benchmark programs (bench/*.c), run by the bench/ scripts.
$(O)/bench/%: $(O)/obj/bench/%.o $(O)/libwarpdrv.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) $(LDLIBS)
benches: $(BENCHES) $(O)/bench/no_flush.so

# bench/install.sh's flush-less run of warpdrv (LD_PRELOAD; bench/shim/no_flush.c),
# built without the sanitizers, as the crash test's shim below.
$(O)/bench/no_flush.so: bench/shim/no_flush.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g $(WARN) -fPIC -shared -o $@ $<

# The power-cut shim of the crash test (LD_PRELOAD; tests/shim/lost_unlink.c):
# built without the sanitizers, which must come first in a program's libraries.
$(O)/lost_unlink.so: tests/shim/lost_unlink.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g $(WARN) -fPIC -shared -o $@ $< -ldl

# Data the programs find beside themselves (keys, the bundled repository):
# later rules add to it.
data:

# The keys the built programs trust ($(O)/keys: repo/*.pub, license/*.pub and
# the list of revoked keys). `make KEYS=DIR` takes the vendor's public keys from
# DIR and signs the bundled repository with the private repository key
# REPO_KEY (default: the one DIR/repo/*.key; its .pub must lie beside it and be
# one of DIR/repo/*.pub). Without KEYS the build makes development key pairs,
# one per role, once per build folder, never committed; $(O)/keys/DEVELOPMENT
# marks them, `warpdrv --version` says so, and `make install` leaves them out
# unless DEV_KEYS=1 (docs/building.md).
KEYS ?=
REPO_KEY ?= $(if $(KEYS),$(firstword $(wildcard $(KEYS)/repo/*.key)))
SIGN_KEY = $(if $(KEYS),$(REPO_KEY),$(O)/keys/repo/dev.key)
KEYS_ORIGIN := $(if $(KEYS),vendor $(abspath $(KEYS)) $(abspath $(REPO_KEY)),development)
DEV_KEYS ?= 0
# The bundled index's serial and date: SOURCE_DATE_EPOCH, else the last
# commit's date, else now (a source tree without its history).
ifeq ($(SOURCE_DATE_EPOCH),)
SOURCE_DATE_EPOCH := $(or $(shell git -C $(CURDIR) log -1 --format=%ct 2>/dev/null),$(shell date +%s))
endif
VENDOR_FILES ?=
ADMIN = $(O)/warpdrv-admin -q
data: $(O)/repo/INDEX
$(O)/keys.origin: FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(KEYS_ORIGIN)' ]; then echo '$(KEYS_ORIGIN)' >$@; fi
$(O)/keys/.made: $(O)/keys.origin $(if $(KEYS),$(wildcard $(KEYS)/*/*.pub $(KEYS)/revoked) $(REPO_KEY)) | $(O)/warpdrv-admin
	@rm -rf $(O)/keys && mkdir -p $(O)/keys/repo $(O)/keys/license
ifneq ($(KEYS),)
	@for r in repo license; do \
		ls $(KEYS)/$$r/*.pub >/dev/null 2>&1 || { echo "KEYS=$(KEYS): no $$r/*.pub" \
			"(the vendor's public $$r keys; docs/building.md)" >&2; exit 2; }; \
		cp $(KEYS)/$$r/*.pub $(O)/keys/$$r/; done
	@if [ -f $(KEYS)/revoked ]; then cp $(KEYS)/revoked $(O)/keys/; fi
	@[ -n "$(REPO_KEY)" ] && [ -f "$(REPO_KEY)" ] || { echo "KEYS=$(KEYS): no private" \
		"repository key to sign the bundled repository with: put it in $(KEYS)/repo/" \
		"or name it with REPO_KEY=FILE (docs/building.md)" >&2; exit 2; }
	@pub=$(basename $(REPO_KEY)).pub; ok=; for p in $(KEYS)/repo/*.pub; do \
		cmp -s "$$pub" "$$p" && ok=1; done; [ -n "$$ok" ] || { echo "REPO_KEY=$(REPO_KEY):" \
		"its public half $$pub is not one of $(KEYS)/repo/*.pub: the programs would not" \
		"trust the repository it signs" >&2; exit 2; }
else
	@$(ADMIN) keygen --out $(O)/keys/repo/dev >/dev/null
	@$(ADMIN) keygen --out $(O)/keys/license/dev >/dev/null
	@printf '%s\n' "Development keys, made by this build: their private halves (*.key)" \
		"are in the build folder. A program that trusts them trusts anyone who has" \
		"that folder. Build with a vendor's keys for distribution: make KEYS=DIR" \
		"(docs/building.md)." >$(O)/keys/DEVELOPMENT
	@echo "$(O)/keys: development keys (make KEYS=DIR builds with a vendor's)"
endif
	@touch $@
# The bundled repository: every recipe in drivers/ packed, signed and indexed.
# `make repo VENDOR_FILES=DIR` packs the real vendor files found in DIR.
$(O)/repo/INDEX: $(O)/warpdrv-admin $(O)/keys/.made $(wildcard drivers/*/*)
	@rm -rf $(O)/repo.new && mkdir -p $(O)/repo.new
	@for d in $(sort $(wildcard drivers/*/)); do \
		$(ADMIN) pack $$d --key $(SIGN_KEY) --out $(O)/repo.new \
			$(if $(VENDOR_FILES),--vendor-files $(VENDOR_FILES)) || exit 1; done
	@# the bundled index never expires for warpdrv (its own data); its expires
	@# line is set far off so that warpdrv-admin verify says so too
	@SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(ADMIN) index $(O)/repo.new --key $(SIGN_KEY) \
		--serial $(SOURCE_DATE_EPOCH) --expires 36500d
	@WARPDRV_NOW=$$(date -u -d @$(SOURCE_DATE_EPOCH) +%F) $(ADMIN) verify $(O)/repo.new/INDEX \
		--keys $(O)/keys
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
	$(FUZZ_CC) $(WD_CPPFLAGS) $(FUZZ_FLAGS) $(WARN) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<
$(O)/fuzz/%: $(O)/fuzzobj/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(PKG_LIBS)
fuzz: $(FUZZERS)

deps:
	@sh scripts/deps.sh build

test-deps:
	@sh scripts/deps.sh test

demo: deps
	@$(MAKE) --no-print-directory all
	@KEYS=$(KEYS) sh scripts/demo.sh $(O)

# The developers' and CI's builds: -Werror unless told WERROR=0.
CHECK_WERROR = $(if $(filter command line,$(origin WERROR)),$(WERROR),1)
check: deps test-deps
	@$(MAKE) --no-print-directory all tests fuzz WERROR=$(CHECK_WERROR)
	@sh tests/run.sh $(O)

tests: $(TESTS)

# The installed programs: their own objects, without the test hooks.
RELEASE_O := $(O)/release
release:
	@$(MAKE) --no-print-directory O=$(RELEASE_O) TEST_HOOKS=0 SANITIZE= \
		$(RELEASE_O)/warpdrv $(RELEASE_O)/warpdrv-admin $(RELEASE_O)/warpdrv-fetch

# The data: the public keys and the repository signed with them; those of a
# development-key build only with DEV_KEYS=1. Man pages, completions and the
# documents the man pages name go beside the programs.
SHARE = $(DESTDIR)$(DATADIR)/warpdrv
USER_DOCS := docs/setup.md docs/config-files.md docs/recovery.md docs/repository.md \
	docs/subscription.md docs/formats.md docs/bench.md docs/building.md docs/threat-model.md \
	docs/os2-facts.md docs/json.md
install: all release
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0755 $(RELEASE_O)/warpdrv $(RELEASE_O)/warpdrv-admin $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(HELPERDIR)
	install -m 0755 $(RELEASE_O)/warpdrv-fetch $(DESTDIR)$(HELPERDIR)/
	@if [ -f $(O)/keys/DEVELOPMENT ] && [ "$(DEV_KEYS)" != 1 ]; then \
		echo "make install: this build trusts development keys; they and the repository" \
		"signed with them are not installed (DEV_KEYS=1 installs them; make KEYS=DIR" \
		"builds with a vendor's keys: docs/building.md)"; \
	else \
		set -e; install -d $(SHARE)/keys/repo $(SHARE)/keys/license $(SHARE)/repo; \
		install -m 0644 $(O)/keys/repo/*.pub $(SHARE)/keys/repo/; \
		install -m 0644 $(O)/keys/license/*.pub $(SHARE)/keys/license/; \
		for f in revoked DEVELOPMENT; do if [ -f $(O)/keys/$$f ]; then \
			install -m 0644 $(O)/keys/$$f $(SHARE)/keys/; fi; done; \
		install -m 0644 $(O)/repo/* $(SHARE)/repo/; \
	fi
	for m in warpdrv warpdrv-admin; do sed -e 's|/usr/share/doc/warpdrv|$(DOCDIR)|g' \
		-e 's|/usr/share/warpdrv|$(DATADIR)/warpdrv|g' \
		-e 's|/usr/libexec/warpdrv|$(HELPERDIR)|g' docs/$$m.1 \
		>$(DESTDIR)$(MANDIR)/man1/$$m.1 && chmod 0644 $(DESTDIR)$(MANDIR)/man1/$$m.1; done
	sed -e 's|/usr/share/doc/warpdrv|$(DOCDIR)|g' docs/warpdrv.conf.5 \
		>$(DESTDIR)$(MANDIR)/man5/warpdrv.conf.5 && chmod 0644 $(DESTDIR)$(MANDIR)/man5/warpdrv.conf.5
	install -m 0644 $(USER_DOCS) LICENSE $(DESTDIR)$(DOCDIR)/
	install -m 0644 completion/warpdrv.bash $(DESTDIR)$(BASHCOMPDIR)/warpdrv
	install -m 0644 completion/warpdrv.bash $(DESTDIR)$(BASHCOMPDIR)/warpdrv-admin
	install -m 0644 completion/_warpdrv $(DESTDIR)$(ZSHCOMPDIR)/_warpdrv

# What `make install` installed, and the folders it made that are left empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/warpdrv $(DESTDIR)$(BINDIR)/warpdrv-admin \
		$(DESTDIR)$(HELPERDIR)/warpdrv-fetch \
		$(DESTDIR)$(MANDIR)/man1/warpdrv.1 $(DESTDIR)$(MANDIR)/man1/warpdrv-admin.1 \
		$(DESTDIR)$(MANDIR)/man5/warpdrv.conf.5 \
		$(DESTDIR)$(BASHCOMPDIR)/warpdrv $(DESTDIR)$(BASHCOMPDIR)/warpdrv-admin \
		$(DESTDIR)$(ZSHCOMPDIR)/_warpdrv
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(USER_DOCS)) LICENSE)
	rm -rf $(SHARE)/keys $(SHARE)/repo
	-rmdir $(SHARE) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(HELPERDIR) 2>/dev/null

# The Debian packages (debian/), built with dpkg-buildpackage from a copy of
# the tracked files in $(O)/deb/src, then checked with lintian; the .deb files
# land in $(O)/deb. tests/e2e/test_distro.sh installs them into a scratch root.
deb:
	@rm -rf $(O)/deb && mkdir -p $(O)/deb/src
	@git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C $(O)/deb/src
	cd $(O)/deb/src && $(if $(KEYS),WARPDRV_KEYS=$(abspath $(KEYS))) dpkg-buildpackage -us -uc -b \
		>../build.log 2>&1 || \
		{ tail -40 ../build.log; exit 1; }
	@ls $(O)/deb/*.deb
	-cd $(O)/deb && lintian --info *.changes

# The slow half of tests/e2e/test_distro.sh (CI): two builds from clean clones
# compared byte for byte, a build with a distribution's flags running the demo,
# and the Debian packages installed into a scratch root and run.
distro-check:
	@$(MAKE) --no-print-directory all WERROR=$(CHECK_WERROR)
	@WD=$(abspath $(O))/warpdrv WDA=$(abspath $(O))/warpdrv-admin WARPDRV_SRC=$(CURDIR) \
		WARPDRV_BUILD=$(abspath $(O)) WARPDRV_DISTRO_SLOW=1 bash tests/e2e/test_distro.sh | \
		tee $(O)/distro-check.log; ! grep -q '^FAIL' $(O)/distro-check.log

# The build folder given (O=..., or SANITIZE=1's build/san), and only it.
clean:
	rm -rf $(O)

.PHONY: all data repo deps test-deps check tests fuzz install uninstall release clean demo benches deb distro-check FORCE
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
