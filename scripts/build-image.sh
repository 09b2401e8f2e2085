#!/bin/sh
# build-image.sh builds the cosmostest server as a static binary (CGO_ENABLED=0) and a FROM scratch
# image of it, tagged $COSMOSTEST_IMAGE (default cosmoskit/cosmostest:dev). No base image is pulled,
# so it works with no registry reachable. Needs go and docker on PATH.
#
#   scripts/build-image.sh            # build and tag cosmoskit/cosmostest:dev
#   COSMOSTEST_IMAGE=me/ct:1 scripts/build-image.sh
set -eu

image="${COSMOSTEST_IMAGE:-cosmoskit/cosmostest:dev}"
root="$(cd "$(dirname "$0")/.." && pwd)"
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT INT TERM

echo "building static binary (GOOS=linux, CGO_ENABLED=0)"
(cd "$root" && CGO_ENABLED=0 GOOS=linux go build -ldflags="-s -w" -o "$ctx/cosmostest" ./cmd/cosmostest)
cp "$root/cmd/cosmostest/Dockerfile" "$ctx/Dockerfile"

# The legacy builder needs no buildx plugin and, for FROM scratch, no registry.
# Its deprecation notice goes to stderr, which is shown only if the build fails.
if docker buildx version >/dev/null 2>&1; then
	builder=1
else
	builder=0
fi
if ! DOCKER_BUILDKIT=$builder docker build --quiet --tag "$image" "$ctx" >"$ctx/build.log" 2>&1; then
	cat "$ctx/build.log" >&2
	echo "docker build of $image failed" >&2
	exit 1
fi
echo "built image $image"
