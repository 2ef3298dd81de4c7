# Sourced by the container scripts: a Docker engine and debootstrap from Debian's packages, the
# engine started when none runs, and the shared settings. Needs root.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  echo "containers: run as root (dockerd, debootstrap and chroot need it)" >&2
  exit 1
fi

# Debian's docker.io client (/usr/bin/docker) speaks to Debian's engine; a newer client elsewhere
# on PATH may want a buildx plugin this machine does not have.
DOCKER=${DOCKER:-/usr/bin/docker}
need=()
[ -x "$DOCKER" ] && command -v dockerd > /dev/null || need+=(docker.io)
command -v debootstrap > /dev/null || need+=(debootstrap)
command -v strip > /dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  echo "containers: installing ${need[*]} from Debian's packages" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" > /dev/null
fi

if ! "$DOCKER" info > /dev/null 2>&1; then
  echo "containers: starting dockerd (log: /var/log/promptpix-dockerd.log)" >&2
  nohup dockerd > /var/log/promptpix-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do "$DOCKER" info > /dev/null 2>&1 && break; sleep 0.5; done
  "$DOCKER" info > /dev/null
fi

export DOCKER_BUILDKIT=1
# Node: the current LTS line (24, "Krypton"); its official Linux binary is on the npm registry.
NODE_VERSION=${NODE_VERSION:-24.21.0}
NPM_VERSION=${NPM_VERSION:-11.19.1}
WORK_DIR=${PROMPTPIX_CONTAINERS_DIR:-/var/tmp/promptpix-containers}
TAG=$(node -p "require('./package.json').version")
BUILD_BASE=promptpix-base/node-build:$NODE_VERSION
RUNTIME_BASE=promptpix-base/node-runtime:$NODE_VERSION
# Every image of ours carries it (docker/Dockerfile sets it too), so a run removes only our leftovers.
OUR_LABEL=org.opencontainers.image.vendor=promptpix
mkdir -p "$WORK_DIR"
