# Brook entry points. Needs only make, bash, java 17, curl and go (preinstalled);
# Maven comes through ./mvnw, buf and grpcurl through scripts/install-tools.sh.
#   make build   build broker/target/brook.jar (only when sources changed)
#   make run     build, then start a broker: gRPC on localhost:7070, data in ./data
#   make test    everything CI runs (scripts/test-all.sh), with a timing summary
#   make test-full  make test, with franz-go's whole list of broker tests instead of its quick list
#                (docs/KAFKA.md says which are expected to fail on Brook today, and why)
#   make clean   ./mvnw clean

SHELL := /bin/bash
MVNW  := ./mvnw
JAR   := broker/target/brook.jar

# Everything the jar is built from: the poms and all files under the modules'
# src/ trees (Java, .proto, resources), never the generated target/ trees.
SOURCES := pom.xml $(shell find protocol client-java broker -path '*/target' -prune -o \
             -type f \( -name pom.xml -o -path '*/src/*' \) -print)

.PHONY: all build run test test-full clean

all: build

build: $(JAR)

# touch: the jar plugin may keep an unchanged jar's old timestamp, which would
# make every later `make build` run Maven again.
$(JAR): $(SOURCES)
	$(MVNW) -B -q -DskipTests package
	@test -f $@ || { echo "make: $(MVNW) package did not produce $@" >&2; exit 1; }
	@touch $@

run: build
	exec bin/brook broker

test:
	bash scripts/test-all.sh

test-full:
	KGO_LIST=broker bash scripts/test-all.sh

clean:
	$(MVNW) -q clean
