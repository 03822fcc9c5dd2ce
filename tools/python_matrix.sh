#!/usr/bin/env bash
# The CPython matrix: 3.11-3.13 from pyenv (or whatever python3.X is on PATH),
# 3.14 and 3.15 from a Debian sid chroot, and a free-threaded 3.13 built there.
#
#   tools/python_matrix.sh setup            build the chroot (a few minutes; root)
#   tools/python_matrix.sh test VERSION ... run pytest on VERSION (3.11 ... 3.15, 3.13t)
#   tools/python_matrix.sh table            run the suite on every version, print a table
#
# The chroot lives in $COWARRAY_CHROOT (default /var/tmp/cowarray-sid). Each
# version gets a virtual environment there with the test dependencies from
# PyPI; the project itself is bind-mounted read-write at /src.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${COWARRAY_CHROOT:-/var/tmp/cowarray-sid}
mirror=${COWARRAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the semantics tests need; scipy, sklearn and torch have no wheels for
# every new release, and the tests that use them skip without them.
test_deps=(pytest hypothesis numpy typing_extensions)
# JAX publishes wheels for the newest CPython it supports: tests/transforms run
# there too (3.14 today), and skip where JAX has none.
jax_versions=(3.14)
# setuptools compiles the optional C helper in place for each interpreter
# (hatch_build.py; the tests import the package from the source tree).
build_deps=(setuptools)

chroot_versions=(3.14 3.15 3.13t)

log() { printf '== %s\n' "$*" >&2; }
# The host's pip settings name folders that the chroot does not have.
unset PIP_FIND_LINKS PIP_CERT PIP_CONFIG_FILE

setup_chroot() {
  if [ -x "$root/usr/bin/python3.15" ] && [ -f "$root/.cowarray-ready" ]; then
    log "chroot ready at $root"; return
  fi
  command -v debootstrap >/dev/null || { apt-get update -qq; apt-get install -y -qq debootstrap; }
  if [ ! -x "$root/bin/sh" ]; then
    log "debootstrap sid into $root"
    debootstrap --variant=minbase sid "$root" "$mirror" >/dev/null
  fi
  mount_all
  log "apt-get install the Pythons"
  # A mirror snapshot may be older than its Release file's validity window.
  local apt=(apt-get -qq -o Acquire::Check-Valid-Until=false)
  echo "deb-src $mirror sid main" >"$root/etc/apt/sources.list.d/src.list"
  chroot "$root" "${apt[@]}" update
  chroot "$root" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends \
    ca-certificates python3.14 python3.14-venv python3.14-dev python3.15 python3.15-venv \
    python3.15-dev gcc g++ make dpkg-dev libssl-dev libffi-dev zlib1g-dev libbz2-dev \
    liblzma-dev libsqlite3-dev libexpat1-dev libmpdec-dev >/dev/null
  mount_all  # again: the trust store, now that ca-certificates is installed
  build_free_threaded
  for v in "${chroot_versions[@]}"; do make_venv "$v"; done
  touch "$root/.cowarray-ready"
}

# Debian ships no free-threaded interpreter: build one from Debian's python3.13
# source package with --disable-gil (about ten minutes on two cores).
build_free_threaded() {
  [ -x "$root/opt/python3.13t/bin/python3.13t" ] && return
  log "build python3.13t (--disable-gil) from Debian's python3.13 source"
  chroot "$root" /bin/sh -ec '
    apt="apt-get -qq -o Acquire::Check-Valid-Until=false"
    mkdir -p /build && cd /build
    if ! ls python3.13_*.dsc >/dev/null 2>&1; then
      # the index may list versions the mirror no longer has: take the first it serves
      for v in $(apt-cache showsrc python3.13 | sed -n "s/^Version: //p"); do
        $apt --download-only source "python3.13=$v" >/dev/null 2>&1 && break
      done
    fi
    # The upstream source (the .orig tarball): Debian'"'"'s patches make site.py
    # look for dist-packages, which a virtual environment does not have.
    if [ ! -d src ]; then mkdir src; tar -xf python3.13_*.orig.tar.xz -C src --strip-components=1; fi
    cd src
    ./configure -q --disable-gil --prefix=/opt/python3.13t --without-ensurepip >/dev/null
    make -s -j"$(nproc)" >/dev/null 2>&1
    make -s altinstall >/dev/null 2>&1'
}

mount_all() {
  mkdir -p "$root/src"
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
  # /src is this checkout, whichever one ran last (CI runs in a fresh clone)
  if mountpoint -q "$root/src"; then umount "$root/src"; fi
  mount --bind "$here" "$root/src"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  # The host's trust store: pip in the chroot reaches the package index the
  # way the host does (through whatever certificate authority the host trusts).
  if [ -f "$root/usr/sbin/update-ca-certificates" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  fi
}

interpreter() {  # the chroot's binary for VERSION
  case "$1" in
    *t) echo "/opt/python${1}/bin/python${1}" ;;
    *) echo "/usr/bin/python$1" ;;
  esac
}

make_venv() {
  local v=$1 venv="/opt/venv-$1"
  [ -f "$root$venv/.ready" ] && return
  log "venv for $v"
  rm -rf "$root$venv"
  chroot "$root" "$(interpreter "$v")" -m venv "$venv"
  chroot "$root" "$venv/bin/python" -m pip install -q --upgrade pip
  # Wheels only: a release without a wheel for this interpreter (a
  # free-threaded one, say) falls back to the newest that has one, instead of
  # a source build that needs a toolchain from outside the registries.
  chroot "$root" "$venv/bin/python" -m pip install -q --only-binary=:all: "${test_deps[@]}"
  touch "$root$venv/.ready"
}

# The C helper for this interpreter, compiled in place (a failed compile is
# no error: the package runs without it, and the tests say which they ran).
build_helper() {
  local python=$1 src=$2
  $python -c "import setuptools" 2>/dev/null || $python -m pip install -q "${build_deps[@]}" >&2
  $python "$src/hatch_build.py" >&2  # (it compiles next to itself, from any folder)
}

run_tests() {
  local v=$1; shift
  case "$v" in
    3.11 | 3.12 | 3.13)
      local py="" found
      # pyenv's own build first (its shims answer for versions not selected)
      found=$(pyenv versions --bare 2>/dev/null | grep "^$v\." | tail -1 || true)
      [ -n "$found" ] && py="$(pyenv root)/versions/$found/bin/python"
      [ -x "$py" ] || py=$(command -v "python$v" || true)
      if [ -z "$py" ] || ! "$py" -c "" 2>/dev/null; then
        echo "no python$v on this machine (pyenv or PATH)"; return 1
      fi
      local venv="${COWARRAY_VENV_DIR:-/var/tmp}/cowarray-venv-$v"
      if [ ! -f "$venv/.ready" ]; then
        rm -rf "$venv"
        "$py" -m venv "$venv"
        "$venv/bin/python" -m pip install -q "${test_deps[@]}"
        touch "$venv/.ready"
      fi
      build_helper "$venv/bin/python" "$here"
      (cd "$here" && "$venv/bin/python" -m pytest -p no:cacheprovider "$@")
      ;;
    *)
      [ -f "$root/opt/venv-$v/.ready" ] || setup_chroot
      mount_all
      build_helper "chroot $root /opt/venv-$v/bin/python" /src
      if [[ " ${jax_versions[*]} " == *" $v "* ]] &&
        ! chroot "$root" "/opt/venv-$v/bin/python" -c "import jax" 2>/dev/null; then
        log "jax for $v (tests/transforms)"
        chroot "$root" "/opt/venv-$v/bin/python" -m pip install -q --only-binary=:all: "jax>=0.6"
      fi
      chroot "$root" /bin/sh -c "cd /src && exec /opt/venv-$v/bin/python -m pytest -p no:cacheprovider \"\$@\"" sh "$@"
      ;;
  esac
}

case "${1:-}" in
  setup) setup_chroot ;;
  test) shift; v=$1; shift; run_tests "$v" "$@" ;;
  table)
    shift
    printf '| CPython | result |\n|---|---|\n'
    for v in 3.11 3.12 3.13 "${chroot_versions[@]}"; do
      line=$(run_tests "$v" -q "$@" 2>&1 | tail -1 || true)
      printf '| %s | %s |\n' "$v" "$line"
    done
    ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
