#!/usr/bin/env bash
# Builds real Redis 8.6 and Valkey 9.1 server binaries from Debian's source packages
# (experimental / sid), verified against the .dsc checksums, cached by flavour and version.
# Optionally unpacks Valkey 8.0 from bookworm-backports (binary package, dpkg -x, no install).
#
# stdout: one line per server, "<flavour> <version> <path-to-binary>"; everything else goes to
# stderr. Exit status is non-zero when a wanted server cannot be fetched, verified or built.
# See README.md beside this file.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: build-servers.sh [--refresh] [--offline] [--no-valkey8] [--rebuild]
  --refresh     run apt-get update even when the private package lists are fresh
  --offline     no network: print the newest cached build of each wanted series
  --no-valkey8  skip the optional Valkey 8.0 binary package from bookworm-backports
  --rebuild     rebuild even when a cached binary for the version exists
environment:
  RESPIRE_SERVER_CACHE       cache directory (default: $HOME/.cache/respire-servers)
  RESPIRE_DEBIAN_MIRROR      Debian archive URI (default: taken from the system's apt sources)
  RESPIRE_APT_MAX_AGE_HOURS  reuse package lists younger than this (default: 12)
  RESPIRE_BUILD_JOBS         make -j value (default: 2)
EOF
}

REFRESH=0 OFFLINE=0 VALKEY8=1 REBUILD=0
for arg in "$@"; do
  case "$arg" in
    --refresh) REFRESH=1 ;;
    --offline) OFFLINE=1 ;;
    --no-valkey8) VALKEY8=0 ;;
    --rebuild) REBUILD=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done

CACHE="${RESPIRE_SERVER_CACHE:-$HOME/.cache/respire-servers}"
APT_DIR="$CACHE/apt"
SRC_DIR="$CACHE/src"
BUILD_DIR="$CACHE/build"
LOG_DIR="$CACHE/logs"
JOBS="${RESPIRE_BUILD_JOBS:-2}"
MAX_AGE_HOURS="${RESPIRE_APT_MAX_AGE_HOURS:-12}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# flavour | source package | preferred suite | wanted upstream series
WANTED=(
  "redis|redis|experimental|8.6"
  "valkey|valkey|sid|9.1"
)
SUITES=(experimental sid)

log() { printf 'build-servers: %s\n' "$*" >&2; }
die() { printf 'build-servers: ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE" "$APT_DIR" "$SRC_DIR" "$BUILD_DIR" "$LOG_DIR"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "another build-servers run holds $CACHE/.lock; waiting"
  flock 9
fi

# ---------------------------------------------------------------------------------------------
# The Debian mirror: from the system's apt sources, never hard-coded.
# ---------------------------------------------------------------------------------------------
system_codename() {
  # shellcheck disable=SC1091
  (. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
}

# Prints "URI" of the first enabled `deb`/`deb-src` source that serves the system's release
# (suite == codename, not a -security archive).
debian_mirror() {
  if [[ -n "${RESPIRE_DEBIAN_MIRROR:-}" ]]; then
    printf '%s\n' "${RESPIRE_DEBIAN_MIRROR%/}"
    return
  fi
  local codename
  codename="$(system_codename)"
  local files=()
  [[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  local f
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] && files+=("$f")
  done
  for f in "${files[@]}"; do
    case "$f" in
      *.sources)
        # deb822: stanzas separated by blank lines; "Enabled: no" disables one.
        awk -v want="$codename" '
          function flush() {
            if (uris != "" && enabled != "no" && types ~ /(^|[ \t])deb(-src)?([ \t]|$)/) {
              n = split(suites, s, /[ \t]+/)
              for (i = 1; i <= n; i++) if (s[i] == want) { split(uris, u, /[ \t]+/); print u[1]; exit }
            }
            uris = ""; suites = ""; types = ""; enabled = ""
          }
          /^[ \t]*#/ { next }
          /^[ \t]*$/ { flush(); next }
          tolower($1) == "uris:"    { sub(/^[^:]*:[ \t]*/, ""); uris = $0; next }
          tolower($1) == "suites:"  { sub(/^[^:]*:[ \t]*/, ""); suites = $0; next }
          tolower($1) == "types:"   { sub(/^[^:]*:[ \t]*/, ""); types = $0; next }
          tolower($1) == "enabled:" { sub(/^[^:]*:[ \t]*/, ""); enabled = tolower($0); next }
          END { flush() }
        ' "$f"
        ;;
      *)
        # one-line: deb [options] URI suite components...
        awk -v want="$codename" '
          /^[ \t]*#/ { next }
          $1 == "deb" || $1 == "deb-src" {
            i = 2
            if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
            if ($(i + 1) == want) { print $i; exit }
          }
        ' "$f"
        ;;
    esac
  done | grep -v -- '-security' | head -n 1 | sed 's:/*$::'
}

# ---------------------------------------------------------------------------------------------
# Private apt configuration: own sources, lists and cache under $APT_DIR.
# ---------------------------------------------------------------------------------------------
APT_CONF="$APT_DIR/apt.conf"
write_apt_config() {
  local mirror="$1"
  mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" \
    "$APT_DIR/preferences.d"
  : >"$APT_DIR/sources.list"
  {
    echo "# written by build-servers.sh; mirror taken from the system's apt sources"
    echo "Types: deb-src"
    echo "URIs: $mirror"
    echo "Suites: ${SUITES[*]}"
    echo "Components: main"
    echo "Signed-By: $KEYRING"
    if [[ "$VALKEY8" == 1 ]]; then
      echo
      echo "Types: deb"
      echo "URIs: $mirror"
      echo "Suites: $(system_codename)-backports"
      echo "Components: main"
      echo "Architectures: $(dpkg --print-architecture)"
      echo "Signed-By: $KEYRING"
    fi
  } >"$APT_DIR/sources.list.d/respire-servers.sources"
  cat >"$APT_CONF" <<EOF
Dir::Etc::SourceList "$APT_DIR/sources.list";
Dir::Etc::SourceParts "$APT_DIR/sources.list.d";
Dir::Etc::Preferences "$APT_DIR/preferences";
Dir::Etc::PreferencesParts "$APT_DIR/preferences.d";
Dir::State::Lists "$APT_DIR/lists";
Dir::Cache "$APT_DIR/cache";
Dir::Cache::Archives "$APT_DIR/cache/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
}

apt_get() { apt-get -c "$APT_CONF" -q "$@"; }
apt_cache() { apt-cache -c "$APT_CONF" "$@"; }

lists_are_fresh() {
  local stamp="$APT_DIR/lists/.respire-updated"
  [[ -f "$stamp" ]] || return 1
  [[ "$(cat "$stamp")" == "$(sha256sum <"$APT_DIR/sources.list.d/respire-servers.sources")" ]] || return 1
  local age=$(($(date +%s) - $(stat -c %Y "$stamp")))
  ((age < MAX_AGE_HOURS * 3600))
}

apt_update() {
  if [[ "$REFRESH" == 0 ]] && lists_are_fresh; then
    log "private package lists are younger than ${MAX_AGE_HOURS} h; not updating (--refresh forces it)"
    return
  fi
  log "apt-get update (private configuration: $APT_CONF)"
  local out
  if ! out="$(apt_get update 2>&1)"; then
    printf '%s\n' "$out" >&2
    die "apt-get update failed"
  fi
  # apt-get update exits 0 even when a source could not be fetched; treat that as fatal.
  if grep -E '^(W|E): (Failed to fetch|Some index files failed)' <<<"$out" >&2; then
    die "apt-get update could not fetch every index (see above)"
  fi
  sha256sum <"$APT_DIR/sources.list.d/respire-servers.sources" >"$APT_DIR/lists/.respire-updated"
}

# ---------------------------------------------------------------------------------------------
# Version choice
# ---------------------------------------------------------------------------------------------
upstream_of() { # 5:8.6.2-1 → 8.6.2 ; 9.1.2+dfsg-1 → 9.1.2
  local v="${1#*:}"
  v="${v%-*}"
  v="${v%%[+~]*}"
  printf '%s' "$v"
}

newest() { # newest Debian version among stdin lines
  local best="" v
  while read -r v; do
    [[ -z "$v" ]] && continue
    if [[ -z "$best" ]] || dpkg --compare-versions "$v" gt "$best"; then best="$v"; fi
  done
  printf '%s' "$best"
}

# Prints "<debian-version> <suite>" for the version to build of a source package.
choose_version() {
  local pkg="$1" suite="$2" series="$3"
  # madison: " redis | 5:8.6.2-1 | http://.../debian experimental/main Sources"
  local rows
  rows="$(apt_cache madison "$pkg" 2>/dev/null | awk -F'|' '$3 ~ /Sources[ \t]*$/ {
      gsub(/[ \t]/, "", $2); n = split($3, p, /[ \t]+/); for (i = 1; i <= n; i++) if (p[i] !~ /:/ && p[i] ~ /^[^\/]+\/[^\/]+$/) { split(p[i], s, "/"); print $2, s[1] } }')"
  [[ -n "$rows" ]] || return 1
  local version pick=""
  # 1. wanted series in the preferred suite; 2. wanted series anywhere; 3. newest anywhere.
  version="$(awk -v s="$suite" '$2 == s { print $1 }' <<<"$rows" | while read -r v; do
      [[ "$(upstream_of "$v")" == "$series".* ]] && echo "$v"; done | newest)"
  if [[ -z "$version" ]]; then
    version="$(awk '{ print $1 }' <<<"$rows" | while read -r v; do
        [[ "$(upstream_of "$v")" == "$series".* ]] && echo "$v"; done | newest)"
    [[ -n "$version" ]] && pick="not in $suite; taking the $series.x another suite carries"
  fi
  if [[ -z "$version" ]]; then
    version="$(awk '{ print $1 }' <<<"$rows" | newest)"
    pick="no $series.x in any suite; taking the newest available"
  fi
  local where
  where="$(awk -v v="$version" '$1 == v { print $2 }' <<<"$rows" | sort -u | paste -sd, -)"
  if [[ -n "$pick" ]]; then
    log "NOTE: $pkg $series.x: $pick: $version ($where)"
  fi
  printf '%s %s\n' "$version" "$where"
}

# ---------------------------------------------------------------------------------------------
# Fetch, verify, build
# ---------------------------------------------------------------------------------------------
# Checks every file of the .dsc's Checksums-Sha256 field with sha256sum; dies on any mismatch.
verify_dsc() {
  local dsc="$1" dir
  dir="$(dirname "$dsc")"
  local listing
  listing="$(awk '
      /^Checksums-Sha256:/ { on = 1; next }
      on && /^[ \t]/ { print $1 "  " $3; next }
      on { exit }
    ' "$dsc")"
  [[ -n "$listing" ]] || die "$dsc has no Checksums-Sha256 field"
  grep -q '\.orig\.tar\.' <<<"$listing" || die "$dsc lists no upstream (.orig.tar.*) tarball"
  local out
  if ! out="$(cd "$dir" && sha256sum --check --strict <<<"$listing" 2>&1)"; then
    printf '%s\n' "$out" >&2
    die "CHECKSUM MISMATCH for $(basename "$dsc"): the files above do not match the .dsc; refusing to build"
  fi
  while read -r line; do log "sha256 ok: $line"; done <<<"$out"
}

# Downloads the source package into $SRC_DIR/<pkg>_<version>/ (once), verifies it; prints the
# path of the upstream tarball.
fetch_source() {
  local pkg="$1" version="$2"
  local dir="$SRC_DIR/${pkg}_${version//:/%3a}"
  local dsc_name="${pkg}_${version#*:}.dsc"
  # Always through apt, also when the files are already here: apt checks them against the
  # signed Sources index and fetches again what does not match.
  mkdir -p "$dir"
  log "apt-get source --download-only $pkg=$version"
  if ! (cd "$dir" && apt_get source --download-only "$pkg=$version" >&2); then
    die "apt-get source $pkg=$version failed"
  fi
  [[ -f "$dir/$dsc_name" ]] || die "no $dsc_name after apt-get source"
  verify_dsc "$dir/$dsc_name"
  local orig
  orig="$(awk '/^Checksums-Sha256:/ { on = 1; next } on && /^[ \t]/ { print $3; next } on { exit }' \
    "$dir/$dsc_name" | grep -E '\.orig\.tar\.[a-z0-9]+$' | head -n 1)"
  printf '%s\n' "$dir/$orig"
}

# Builds <flavour>-server from the upstream tarball, installs it into the cache.
build_server() {
  local flavour="$1" version="$2" tarball="$3" dest="$4"
  local binary="${flavour}-server"
  local work="$BUILD_DIR/$flavour-$version"
  local logfile="$LOG_DIR/$flavour-$version.log"
  rm -rf "$work"
  mkdir -p "$work"
  tar -xf "$tarball" -C "$work" --strip-components=1
  [[ -f "$work/src/Makefile" ]] || die "$tarball does not look like a $flavour source tree"
  log "building $flavour $version (make -j$JOBS BUILD_TLS=no MALLOC=libc $binary; log: $logfile)"
  local start=$SECONDS
  # Only the server binary: no modules, no CLI/benchmark. nice: the machine is shared.
  if ! nice -n 10 make -C "$work/src" -j"$JOBS" BUILD_TLS=no MALLOC=libc "$binary" >"$logfile" 2>&1; then
    tail -n 40 "$logfile" >&2
    log "build of $flavour $version FAILED (full log: $logfile)"
    return 1
  fi
  local took=$((SECONDS - start))
  local reported
  reported="$("$work/src/$binary" --version)" || { log "$work/src/$binary --version failed"; return 1; }
  [[ "$reported" == *"v=$version "* ]] || log "WARNING: $binary reports '$reported' (expected v=$version)"
  mkdir -p "$dest/bin"
  install -m 0755 "$work/src/$binary" "$dest/bin/$binary.tmp"
  mv -f "$dest/bin/$binary.tmp" "$dest/bin/$binary"
  {
    echo "flavour=$flavour"
    echo "version=$version"
    echo "source=$(basename "$tarball")"
    echo "sha256=$(sha256sum "$tarball" | cut -d' ' -f1)"
    echo "make=make -j$JOBS BUILD_TLS=no MALLOC=libc $binary"
    echo "build_seconds=$took"
    echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "reports=$reported"
  } >"$dest/BUILD-INFO"
  rm -rf "$work"
  log "built $flavour $version in ${took}s"
}

# Newest cached build of a series (for --offline): prints "<version> <path>".
newest_cached() {
  local flavour="$1" series="$2" best="" d v
  for d in "$CACHE/$flavour-$series".*/bin/"$flavour-server"; do
    [[ -x "$d" ]] || continue
    v="${d#"$CACHE/$flavour-"}"
    v="${v%%/*}"
    if [[ -z "$best" ]] || dpkg --compare-versions "$v" gt "$best"; then best="$v"; fi
  done
  [[ -n "$best" ]] && printf '%s %s\n' "$best" "$CACHE/$flavour-$best/bin/$flavour-server"
}

# ---------------------------------------------------------------------------------------------
# Valkey 8.0 from bookworm-backports, unpacked into the cache (never installed system-wide)
# ---------------------------------------------------------------------------------------------
valkey8() {
  local suite
  suite="$(system_codename)-backports"
  local version
  version="$(apt_cache madison valkey-server 2>/dev/null |
    awk -F'|' -v s="$suite" '$3 ~ s"/" && $3 ~ /Packages/ { gsub(/[ \t]/, "", $2); print $2 }' | newest)"
  if [[ -z "$version" ]]; then
    log "Valkey 8.0: not available: $suite carries no valkey-server package"
    return 0
  fi
  local upstream
  upstream="$(upstream_of "$version")"
  [[ "$upstream" == 8.0.* ]] ||
    log "NOTE: $suite carries valkey-server $version, not 8.0.x; taking it"
  local dest="$CACHE/valkey-$upstream"
  if [[ "$REBUILD" == 0 && -x "$dest/bin/valkey-server" ]] && "$dest/bin/valkey-server" --version >/dev/null 2>&1; then
    log "valkey $upstream ($suite binary package): cached"
    printf 'valkey %s %s\n' "$upstream" "$dest/bin/valkey-server"
    return 0
  fi
  local debs="$SRC_DIR/valkey-debs_${version//:/%3a}"
  rm -rf "$debs" "$dest.tmp"
  mkdir -p "$debs"
  # valkey-server's /usr/bin/valkey-server is a link into valkey-tools (as with Debian's redis).
  local pkgs=(valkey-server valkey-tools)
  log "apt-get download ${pkgs[*]} ($version from $suite)"
  if ! (cd "$debs" && apt_get download "${pkgs[@]/%/=$version}" >&2); then
    log "Valkey 8.0: not available: apt-get download failed"
    return 0
  fi
  # Would it install cleanly? Every Depends outside these two packages should already be installed
  # (versions are not compared; ldd and --version below decide). adduser, debconf and
  # init-system-helpers serve only the maintainer scripts, which dpkg-deb -x never runs.
  local missing=() dep
  local deb
  for deb in "$debs"/*.deb; do
    while read -r dep; do
      [[ -z "$dep" ]] && continue
      # an alternative group "a | b" is satisfied by any member
      local ok=0 alt name
      IFS='|' read -ra alts <<<"$dep"
      for alt in "${alts[@]}"; do
        name="$(awk '{ print $1 }' <<<"$alt")"
        name="${name%%:*}"
        case "$name" in valkey-server | valkey-tools | adduser | debconf | init-system-helpers) ok=1 ;; esac
        if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed'; then ok=1; fi
        [[ "$ok" == 1 ]] && break
      done
      [[ "$ok" == 1 ]] || missing+=("$dep")
    done < <(dpkg-deb -f "$deb" Pre-Depends Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' | sed 's/^ *//; s/ *$//')
  done
  mkdir -p "$dest.tmp"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dest.tmp/root"; done
  local real="$dest.tmp/root/usr/bin/valkey-server"
  if [[ ! -e "$real" ]]; then
    log "Valkey 8.0: not usable: the packages contain no usr/bin/valkey-server"
    rm -rf "$dest.tmp"
    return 0
  fi
  local unresolved
  unresolved="$(ldd "$(readlink -f "$real")" 2>&1 | grep 'not found' || true)"
  if [[ -n "$unresolved" ]]; then
    log "Valkey 8.0: does not install cleanly: shared libraries missing on this system:"
    log "$unresolved"
    ((${#missing[@]})) && log "unsatisfied Depends: ${missing[*]}"
    rm -rf "$dest.tmp"
    return 0
  fi
  ((${#missing[@]})) && log "NOTE: valkey $upstream: Depends not installed here (not needed to run the binary): ${missing[*]}"
  mkdir -p "$dest.tmp/bin"
  ln -s "../root/usr/bin/$(basename "$(readlink -f "$real")")" "$dest.tmp/bin/valkey-server"
  local reported
  if ! reported="$("$dest.tmp/bin/valkey-server" --version 2>&1)"; then
    log "Valkey 8.0: does not run: $reported"
    rm -rf "$dest.tmp"
    return 0
  fi
  {
    echo "flavour=valkey"
    echo "version=$upstream"
    echo "source=binary packages ${pkgs[*]} $version ($suite), unpacked with dpkg-deb -x"
    echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "reports=$reported"
  } >"$dest.tmp/BUILD-INFO"
  rm -rf "$dest"
  mv "$dest.tmp" "$dest"
  log "valkey $upstream unpacked from $suite"
  printf 'valkey %s %s\n' "$upstream" "$dest/bin/valkey-server"
}

# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------
failed=0
results=()

if [[ "$OFFLINE" == 1 ]]; then
  for entry in "${WANTED[@]}"; do
    IFS='|' read -r flavour _pkg _suite series <<<"$entry"
    if line="$(newest_cached "$flavour" "$series")"; then
      results+=("$flavour $line")
    else
      log "no cached $flavour $series.x build (run without --offline first)"
      failed=1
    fi
  done
  if [[ "$VALKEY8" == 1 ]] && line="$(newest_cached valkey 8.0)"; then results+=("valkey $line"); fi
  printf '%s\n' "${results[@]}"
  exit "$failed"
fi

MIRROR="$(debian_mirror)"
[[ -n "$MIRROR" ]] || die "found no Debian mirror for '$(system_codename)' in /etc/apt/sources.list{,.d}; set RESPIRE_DEBIAN_MIRROR"
log "Debian mirror (from the system's apt sources): $MIRROR"
[[ -r "$KEYRING" ]] || die "$KEYRING missing (apt-get install debian-archive-keyring)"
write_apt_config "$MIRROR"
apt_update

for entry in "${WANTED[@]}"; do
  IFS='|' read -r flavour pkg suite series <<<"$entry"
  if ! choice="$(choose_version "$pkg" "$suite" "$series")"; then
    log "ERROR: no source package '$pkg' in ${SUITES[*]}"
    failed=1
    continue
  fi
  read -r debversion where <<<"$choice"
  version="$(upstream_of "$debversion")"
  dest="$CACHE/$flavour-$version"
  if [[ "$REBUILD" == 0 && -x "$dest/bin/$flavour-server" ]] && "$dest/bin/$flavour-server" --version >/dev/null 2>&1; then
    log "$flavour $version ($pkg $debversion, $where): cached"
    results+=("$flavour $version $dest/bin/$flavour-server")
    continue
  fi
  log "$flavour $version: source package $pkg $debversion ($where)"
  tarball="$(fetch_source "$pkg" "$debversion")"
  if build_server "$flavour" "$version" "$tarball" "$dest"; then
    results+=("$flavour $version $dest/bin/$flavour-server")
  else
    failed=1
  fi
done

if [[ "$VALKEY8" == 1 ]]; then
  if line="$(valkey8)" && [[ -n "$line" ]]; then results+=("$line"); fi
fi

((${#results[@]})) && printf '%s\n' "${results[@]}"
exit "$failed"
