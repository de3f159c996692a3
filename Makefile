# soak — GNU make, pkg-config.  `make` builds bin/; `make check` runs every test;
# `make check SANITIZE=address,undefined` the same under ASan/UBSan; `make demo`, `make bench`;
# `make install` / `make uninstall` (PREFIX, DESTDIR, ...: see "installing" below);
# `make check-deb` builds the Debian package, lints it and tries it in a fresh Debian.
# Missing Debian packages are installed by tools/deps.sh (as root) before anything builds
# (DEPS=no: never; debian/rules says so, a package build must not install packages).

.DEFAULT_GOAL := all
.SECONDARY:
SHELL := /bin/bash

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CC ?= cc
ifeq ($(origin CC),default)
CC := cc
endif

# A sanitizer build lives in its own tree so its objects never mix with the plain ones.
ifneq ($(SANITIZE),)
BUILD := build/san
BIN := build/san/bin
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1
else
BUILD := build/rel
BIN := bin
SANFLAGS :=
OPT := -O2
endif

PKGS := libcurl libpcre2-8 inih libmicrohttpd sqlite3 zlib openssl libnghttp2 libxcrypt
WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wwrite-strings \
        -Wformat=2 -Wvla -Werror
CPPFLAGS += -Icommon -Isoak -I$(BUILD)/gen -D_GNU_SOURCE -DSOAK_VERSION='"$(VERSION)"'
CFLAGS ?= $(OPT) -g
CFLAGS += -std=gnu11 $(WARN) $(SANFLAGS) -pthread -MMD -MP
LDFLAGS += $(SANFLAGS) -pthread

# pkg-config is asked only once the dependency check has run (deps may install it).
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Node's http-parser (the lean HTTP driver's response parser) has no pkg-config file.
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lhttp_parser -lm
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# --- sources -----------------------------------------------------------------------------
COMMON_SRC := $(sort $(wildcard common/*.c common/*/*.c))
# soak/: the commands at the top (main.c, cmd_*.c), the subsystems in folders (which may hold
# rooms, folders of their own); imports run one way: commands -> report/, run/, import/;
# report/ -> history/; all -> store/ -> scenario/ -> engine/ -> common/
# (tests/it/test_layout.sh).
SOAK_DIRS := engine scenario store run history report import
SOAK_SRC := $(sort $(filter-out soak/main.c,$(wildcard soak/*.c $(SOAK_DIRS:%=soak/%/*.c) \
                                                       $(SOAK_DIRS:%=soak/%/*/*.c))))
PROCSTAT_SRC := $(sort $(wildcard collectors/procstat*.c))
PERF_SRC := $(sort $(wildcard collectors/perf*.c))
GCLOG_SRC := $(sort $(wildcard collectors/gclog*.c))
REGSERVER_SRC := $(sort $(wildcard targets/regserver/*.c))
MONITOR_SRC := $(sort $(wildcard targets/monitor/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
SQL_FILES := $(sort $(wildcard sql/[0-9]*.sql)) sql/views.sql sql/roles.txt
PLOT_FILES := $(sort $(wildcard plots/*.gp))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
COMMON_OBJ := $(call obj,$(COMMON_SRC)) $(BUILD)/obj/gen/sql_embed.o
SOAK_OBJ := $(call obj,$(SOAK_SRC)) $(BUILD)/obj/gen/plots_embed.o
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

PROGRAMS := $(BIN)/soak $(BIN)/soak-procstat $(BIN)/soak-gclog $(BIN)/soak-perf $(BIN)/regserver
ifneq ($(MONITOR_SRC),)
PROGRAMS += $(BIN)/monitor
endif

DEPS ?= yes
ifeq ($(DEPS),no)
DEPS_STAMP :=
else
DEPS_STAMP := build/.deps-build
endif

.PHONY: all check unit it demo bench fuzz clean deps deps-check deps-demo deps-bench java \
        format install install-build uninstall deb check-deb deps-package
all: $(PROGRAMS)

# --- dependencies (Debian packages) ------------------------------------------------------
ifneq ($(DEPS_STAMP),)
$(DEPS_STAMP): tools/deps.sh
	$(Q)tools/deps.sh build
	$(Q)mkdir -p build && touch $@
endif
deps: $(DEPS_STAMP)
# Every other profile holds the build's packages: one apt session installs both (a fresh
# machine's `make demo` ran two, each with its own `apt-get update`), and the stamp then
# says the build's are there.
deps-check deps-demo deps-bench deps-package:
	$(Q)tools/deps.sh $(@:deps-%=%)
	$(Q)$(if $(DEPS_STAMP),mkdir -p build && touch $(DEPS_STAMP))

# --- objects and programs ----------------------------------------------------------------
# Text the binaries carry (migrations, views, the schema's roles, gnuplot scripts) becomes C
# at build time.
$(BUILD)/gen/sql_embed.c: $(SQL_FILES) tools/embed.sh
	$(Q)mkdir -p $(@D)
	$(Q)tools/embed.sh sql $(SQL_FILES) > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/plots_embed.c: $(PLOT_FILES) tools/embed.sh
	$(Q)mkdir -p $(@D)
	$(Q)tools/embed.sh plots $(PLOT_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c | $(DEPS_STAMP)
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

# The regserver keeps its frame pointers: a CPU profile of it (soak-perf, which unwinds by
# them) then names every caller of a frame, as a profile of a JVM run with
# -XX:+PreserveFramePointer does.
$(call obj,$(REGSERVER_SRC)): CFLAGS += -fno-omit-frame-pointer

$(BUILD)/libcommon.a: $(COMMON_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/libsoak.a: $(SOAK_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN)/soak: $(BUILD)/obj/soak/main.o $(BUILD)/libsoak.a $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(BIN)/soak-procstat: $(call obj,$(PROCSTAT_SRC)) $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(BIN)/soak-perf: $(call obj,$(PERF_SRC)) $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(BIN)/soak-gclog: $(call obj,$(GCLOG_SRC)) $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(BIN)/regserver: $(call obj,$(REGSERVER_SRC)) $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(BIN)/monitor: $(call obj,$(MONITOR_SRC)) $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(shell pkg-config --libs jansson 2>/dev/null)

# Unit tests link the soak modules and the common library (never soak's main).
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(BUILD)/libsoak.a $(BUILD)/libcommon.a
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

# --- Java targets (servlet, embedded Tomcat launcher); only the tests and the demo need them
java:
	$(Q)targets/servlet/build.sh build/java

# --- tests -------------------------------------------------------------------------------
# Every suite prints TAP-style `ok`/`not ok` lines; tests/run.sh sums them into the final
# `N passed, N failed` line.  TESTS=pattern runs a subset (e.g. TESTS=hdr).
# The build before the tests runs on every core unless make was given -j already.
JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
check: deps-check
	$(Q)$(MAKE) --no-print-directory $(JOBS) all $(UNIT_BINS) java
	$(Q)BIN=$(abspath $(BIN)) UNIT_DIR=$(abspath $(BUILD)/tests) SANITIZE=$(SANITIZE) \
	    tests/run.sh $(TESTS)
unit: all $(UNIT_BINS)
	$(Q)BIN=$(abspath $(BIN)) UNIT_DIR=$(abspath $(BUILD)/tests) tests/run.sh --unit $(TESTS)
it: deps-check all java
	$(Q)BIN=$(abspath $(BIN)) UNIT_DIR=$(abspath $(BUILD)/tests) tests/run.sh --it $(TESTS)

# --- the main job ------------------------------------------------------------------------
DEMO_TARGET ?= containers
demo: deps-demo
	$(Q)$(MAKE) --no-print-directory $(JOBS) all
	$(Q)$(if $(filter regserver,$(DEMO_TARGET)),,$(MAKE) -s java &&) \
	    BIN=$(abspath $(BIN)) tools/demo.sh $(DEMO_TARGET)

bench: deps-bench all
	$(Q)for b in bench/*.sh; do echo "== $$b"; BIN=$(abspath $(BIN)) $$b || exit 1; done

# --- installing ----------------------------------------------------------------------------
# GNU directory variables (upper case; the lower-case GNU names work as well):
#   make install PREFIX=/usr DESTDIR=/tmp/stage
# installs the commands, the man pages, the bash completion, the systemd template units of
# the collectors and, under PKGDATADIR, the example scenarios, the study target script and
# the deploy files.  Nothing installed reads the source tree: the SQL and the gnuplot
# scripts are built into the binaries, soak runs the collectors from its own directory, a
# scenario's files are relative to the scenario.  The units and the scenarios' comments
# name the default prefix's paths (/usr/local/bin, /usr/local/share/soak); they are
# rewritten to BINDIR and PKGDATADIR as they are installed.  The test servers: regserver
# is installed as soak-regserver (a known-answer target to check a load generator with, and
# what the self-test study runs); the framed-TCP monitor is not (it stands in for one
# particular in-house server and needs jansson).
prefix ?= /usr/local
PREFIX ?= $(prefix)
exec_prefix ?= $(PREFIX)
BINDIR ?= $(if $(bindir),$(bindir),$(exec_prefix)/bin)
DATAROOTDIR ?= $(if $(datarootdir),$(datarootdir),$(PREFIX)/share)
DATADIR ?= $(if $(datadir),$(datadir),$(DATAROOTDIR))
PKGDATADIR ?= $(DATADIR)/soak
MANDIR ?= $(if $(mandir),$(mandir),$(DATAROOTDIR)/man)
DOCDIR ?= $(if $(docdir),$(docdir),$(DATAROOTDIR)/doc/soak)
BASHCOMPDIR ?= $(DATAROOTDIR)/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA ?= $(INSTALL) -m 644

# What is installed: programs (built name -> installed name), man pages, completion.
INSTALL_PROGS := soak soak-procstat soak-gclog soak-perf regserver:soak-regserver
MAN1 := $(sort $(wildcard man/*.1))
MAN5 := $(sort $(wildcard man/*.5))
COMPLETION_LINKS := soak-procstat soak-gclog soak-perf soak-regserver
# The deploy files: the Slurm scripts run from where they are installed; validate.py is
# data (run as `/usr/bin/python3 validate.py`: python3 is no dependency of soak's).
DEPLOY_SCRIPTS := deploy/slurm/submit.sh deploy/slurm/agent.sbatch deploy/slurm/merge.sbatch
DEPLOY_FILES := deploy/slurm/README.md deploy/k8s/README.md deploy/k8s/Containerfile \
        deploy/k8s/study.yaml deploy/k8s/validate.py deploy/systemd/README.md \
        deploy/systemd/app.env.example deploy/systemd/db.env.example
UNITS := deploy/systemd/soak-procstat@.service deploy/systemd/soak-gclog@.service
SCENARIO_FILES := $(sort $(wildcard scenarios/*.ini))
# The documents the README links to, installed beside it (DOCDIR/docs/).
DOC_FILES := $(sort $(wildcard docs/*.md))
DOC_IMAGES := $(sort $(wildcard docs/img/*.png))
FRAME_FILES := $(sort $(wildcard scenarios/frames/*))
# The default prefix's paths in installed text, rewritten to where things really go.
RELOCATE := sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/soak/|$(PKGDATADIR)/|g'

install-build: $(foreach p,$(INSTALL_PROGS),$(BIN)/$(firstword $(subst :, ,$(p))))

install: install-build
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DOCDIR)/docs/img \
	    $(DESTDIR)$(PKGDATADIR)/scenarios/frames $(DESTDIR)$(PKGDATADIR)/targets/regserver \
	    $(addprefix $(DESTDIR)$(PKGDATADIR)/deploy/,slurm k8s systemd)
	$(Q)$(foreach p,$(INSTALL_PROGS),$(INSTALL_PROGRAM) $(BIN)/$(firstword $(subst :, ,$(p))) \
	    $(DESTDIR)$(BINDIR)/$(lastword $(subst :, ,$(p))) &&) true
	$(Q)$(INSTALL_DATA) $(MAN1) $(DESTDIR)$(MANDIR)/man1
	$(Q)$(INSTALL_DATA) $(MAN5) $(DESTDIR)$(MANDIR)/man5
	$(Q)$(INSTALL_DATA) completion/soak.bash $(DESTDIR)$(BASHCOMPDIR)/soak
	$(Q)$(foreach l,$(COMPLETION_LINKS),ln -sf soak $(DESTDIR)$(BASHCOMPDIR)/$(l) &&) true
	$(Q)$(foreach u,$(UNITS),$(RELOCATE) $(u) >$(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(u)) && \
	    chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(u)) &&) true
	$(Q)$(foreach f,$(SCENARIO_FILES),$(RELOCATE) $(f) >$(DESTDIR)$(PKGDATADIR)/$(f) && \
	    chmod 644 $(DESTDIR)$(PKGDATADIR)/$(f) &&) true
	$(Q)$(INSTALL_DATA) $(FRAME_FILES) $(DESTDIR)$(PKGDATADIR)/scenarios/frames
	$(Q)$(INSTALL_PROGRAM) targets/regserver/regserver.sh $(DESTDIR)$(PKGDATADIR)/targets/regserver
	$(Q)$(foreach f,$(DEPLOY_SCRIPTS),$(INSTALL_PROGRAM) $(f) $(DESTDIR)$(PKGDATADIR)/$(f) &&) true
	$(Q)$(foreach f,$(DEPLOY_FILES),$(INSTALL_DATA) $(f) $(DESTDIR)$(PKGDATADIR)/$(f) &&) true
	$(Q)$(INSTALL_DATA) README.md $(DESTDIR)$(DOCDIR)
	$(Q)$(INSTALL_DATA) $(DOC_FILES) $(DESTDIR)$(DOCDIR)/docs
	$(Q)$(INSTALL_DATA) $(DOC_IMAGES) $(DESTDIR)$(DOCDIR)/docs/img

# Removes what install installed (PKGDATADIR and DOCDIR are soak's own: wholly).
uninstall:
	$(Q)rm -f $(foreach p,$(INSTALL_PROGS),$(DESTDIR)$(BINDIR)/$(lastword $(subst :, ,$(p)))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
	    $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,soak $(COMPLETION_LINKS)) \
	    $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))
	$(Q)rm -rf $(DESTDIR)$(PKGDATADIR) $(DESTDIR)$(DOCDIR)

# The Debian package, built from a copy of the tree (dpkg-buildpackage cleans the tree it
# builds in), into build/deb/; check-deb also lints it and installs it into a fresh Debian
# made by tools/fresh-debian.sh, runs it there and removes it (tests/pkg/test_deb.sh).
deb: deps-package
	$(Q)tests/pkg/test_deb.sh --build-only
check-deb: deps-package
	$(Q)mkdir -p build && tests/pkg/test_deb.sh 2>&1 | tee build/check-deb.log; \
	    rc=$${PIPESTATUS[0]}; echo "$$(grep -c '^ok ' build/check-deb.log) passed," \
	    "$$(grep -c '^not ok ' build/check-deb.log) failed"; exit $$rc

FUZZ_SECONDS ?= 60
fuzz: deps-check
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh fuzz

format:
	$(Q)clang-format -i $(wildcard common/*.[ch] common/*/*.[ch] soak/*.[ch] $(SOAK_DIRS:%=soak/%/*.[ch]) \
	    $(SOAK_DIRS:%=soak/%/*/*.[ch]) collectors/*.[ch] targets/*/*.[ch] tests/unit/*.c)

clean:
	rm -rf build bin

# `make -s print-VAR` prints VAR as make expands it: tests/it/deps_check.py reads the build's
# flags and programs this way instead of repeating them.
print-%:
	@:$(info $($*))

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
