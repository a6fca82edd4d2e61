#!/usr/bin/env bash
# Installs the Debian packages the test suite talks to, only when they are missing:
# Chromium (browser tests), PostgreSQL (persistence tests), OBS Studio + Xvfb + Mesa (OBS tests),
# ffmpeg (H.264 and ProRes re-encoding of exported video), systemd (systemd-analyze checks the
# documented service unit), libnss3-tools (certutil: Chromium trusts the local CA in the TLS test),
# melt (MLT renders the editors' timeline project in the timeline export's test), redis-server
# (the festival's fan-out between processes: tests start their own on loopback).
set -euo pipefail
packages=(chromium postgresql obs-studio xvfb libgl1-mesa-dri xauth ffmpeg systemd libnss3-tools
          melt redis-server)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing system packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
