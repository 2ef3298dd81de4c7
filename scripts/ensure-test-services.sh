#!/usr/bin/env bash
# Makes sure PostgreSQL (127.0.0.1:5432, trust auth) and Redis (127.0.0.1:6379) are running,
# installing them from Debian's packages when missing. Fails loudly when they cannot be had:
# integration tests never skip for a missing server.
set -euo pipefail

have_pg() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
have_redis() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_updated=0
apt_install() {
  [ $apt_updated -eq 1 ] || { $SUDO apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

if ! have_pg; then
  command -v pg_ctlcluster >/dev/null || apt_install postgresql postgresql-contrib
  version=$(ls /etc/postgresql | sort -V | tail -1)
  conf=/etc/postgresql/$version/main
  if ! grep -q "promptpix-ci" "$conf/pg_hba.conf" 2>/dev/null; then
    # Trust on loopback, as on the project's machines.
    $SUDO sed -i '1i host all all 127.0.0.1/32 trust # promptpix-ci\nhost all all ::1/128 trust # promptpix-ci\nlocal all all trust # promptpix-ci' "$conf/pg_hba.conf"
  fi
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main restart
  for _ in $(seq 1 30); do have_pg && break; sleep 1; done
fi
have_pg || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }

if ! have_redis; then
  command -v redis-server >/dev/null || apt_install redis-server
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp --logfile /tmp/promptpix-redis.log
  for _ in $(seq 1 30); do have_redis && break; sleep 1; done
fi
have_redis || { echo "Redis is not reachable on 127.0.0.1:6379" >&2; exit 1; }
# Chromium for the page script's browser tests (packages/embed-client): playwright-core drives
# Debian's build, since `npx playwright install` cannot download browsers on these machines.
if [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
fi
[ -x /usr/bin/chromium ] || { echo "Chromium is not installed at /usr/bin/chromium" >&2; exit 1; }
# kubectl for the Kubernetes manifest test, which renders infra/ with `kubectl kustomize` (KUBECTL
# overrides the path). Debian's kubectl is far too old for the kustomize v5 features infra/ uses.
kubectl_bin=${KUBECTL:-kubectl}
kubectl_path=$(command -v "$kubectl_bin" || true)
if [ -z "$kubectl_path" ]; then
  echo "kubectl ($kubectl_bin) is not installed: the Kubernetes manifest test needs kubectl 1.27 or later (kustomize v5) on PATH, or KUBECTL set to its path" >&2
  exit 1
fi
kustomize_major=$("$kubectl_path" version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\([0-9]*\)\..*/\1/p')
if [ "${kustomize_major:-0}" -lt 5 ]; then
  echo "kubectl at $kubectl_path embeds kustomize ${kustomize_major:-of unknown version}: the Kubernetes manifest test needs kubectl 1.27 or later (kustomize v5)" >&2
  exit 1
fi
echo "test services: PostgreSQL and Redis are up, Chromium is installed, kubectl is $kubectl_path ($("$kubectl_path" version --client 2>/dev/null | tr '\n' ' ' | sed 's/ $//'))"
