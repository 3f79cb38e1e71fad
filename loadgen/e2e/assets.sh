#!/bin/sh
# assets.sh prepares what controller-runtime's envtest needs to start a real
# API server, the way controller authors run their integration tests:
# a directory (printed on stdout, for KUBEBUILDER_ASSETS) holding
# kube-apiserver and etcd.
#
#  - kube-apiserver is built from the k8s.io/kubernetes module through the
#    module proxy: a scratch module requires k8s.io/kubernetes and sends every
#    k8s.io/* staging module to its release of the same minor (kubernetes'
#    own go.mod points them at ./staging, which a dependency cannot use).
#    About 12 minutes on 2 cores the first time; cached afterwards.
#  - etcd is Debian's etcd-server package, installed with apt-get if missing.
#
# Everything lands in E2E_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/queuelab/e2e),
# so a second run costs nothing. Progress goes to stderr.
set -eu

K8S_VERSION=${K8S_VERSION:-v1.37.2}
STAGING_VERSION=${STAGING_VERSION:-v0.${K8S_VERSION#v1.}}
CACHE=${E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/queuelab/e2e}
ASSETS=$CACHE/assets-$K8S_VERSION
GO=${GO:-go}

log() { echo "e2e-assets: $*" >&2; }

mkdir -p "$ASSETS"

if [ ! -x "$ASSETS/etcd" ]; then
	if ! command -v etcd >/dev/null 2>&1; then
		log "installing Debian's etcd-server"
		if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
		$SUDO apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq etcd-server >&2
	fi
	ln -sf "$(command -v etcd)" "$ASSETS/etcd"
fi

if [ ! -x "$ASSETS/kube-apiserver" ]; then
	mod=$CACHE/build-$K8S_VERSION
	mkdir -p "$mod"
	log "building kube-apiserver $K8S_VERSION in $mod (about 12 minutes on 2 cores the first time)"
	gomod=$(cd "$mod" && GOFLAGS=-mod=mod $GO mod download -json "k8s.io/kubernetes@$K8S_VERSION" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
	{
		echo "module queuelab.local/e2e-apiserver"
		echo
		echo "go $($GO env GOVERSION | sed 's/^go\([0-9]*\.[0-9]*\).*/\1/')"
		echo
		echo "require k8s.io/kubernetes $K8S_VERSION"
		echo
		# kubernetes' go.mod replaces each staging module with ./staging/src/k8s.io/NAME.
		sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/.*#replace \1 => \1 '"$STAGING_VERSION"'#p' "$gomod"
	} > "$mod/go.mod"
	cat > "$mod/tools.go" <<'GOEOF'
//go:build tools

// Package tools pins the kube-apiserver command into this scratch module's graph.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GOEOF
	v=$K8S_VERSION
	minor=$(echo "$v" | cut -d. -f2)
	ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$v -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
	(cd "$mod" && GOFLAGS=-mod=mod $GO mod tidy -e >&2 &&
		GOFLAGS=-mod=mod $GO build -trimpath -ldflags "$ldflags" -o "$ASSETS/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2)
	mv "$ASSETS/kube-apiserver.tmp" "$ASSETS/kube-apiserver"
	log "built $ASSETS/kube-apiserver"
fi

echo "$ASSETS"
