#!/usr/bin/env bash
# The GPU check, on a machine with a CUDA GPU: run from the repository root with
# rlx-cuda/gpu-check/build/gpu-check.tar.xz carried (made by pack.sh); it unpacks to /tmp/rlx-gpu-check.
# Writes probe.txt, tests.txt, figures.md, the ONNX conformance report, nvidia-smi's view and the whole log
# under $OUT (or rlx-cuda/gpu-check/out). Exit 2: no usable CUDA device (probe.txt says why);
# 1: a test failed; 3: the build folder is missing.
# Usage: rlx-cuda/gpu-check/run.sh [tests|figures|dry-run]   (default: tests and figures; dry-run: the tests
# even without a device, where they skip: a check of the packed JDK and class path on any machine)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
build=$here/build/stage # where pack.sh left it (a local run)
if [ ! -x "$build/jdk/bin/java" ]; then
    build=/tmp/rlx-gpu-check
    if [ ! -x "$build/jdk/bin/java" ]; then
        if [ ! -f "$here/build/gpu-check.tar.xz" ]; then
            echo "no $here/build/gpu-check.tar.xz: run rlx-cuda/gpu-check/pack.sh and carry it" >&2
            exit 3
        fi
        mkdir -p "$build"
        if command -v xz > /dev/null; then
            xz -dc "$here/build/gpu-check.tar.xz" | tar -C "$build" -xf -
        else # no xz: Python's lzma reads it too
            python3 -c 'import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])' \
                "$here/build/gpu-check.tar.xz" "$build"
        fi
    fi
fi
if [ -d "$build/onnx-testdata/data/node" ]; then
    export RLX_ONNX_TESTDATA=$build/onnx-testdata/data
fi
export RLX_CACHE_DIR=${RLX_CACHE_DIR:-/tmp/rlx-cache}
(nvidia-smi || true) > "$out/nvidia-smi.txt" 2>&1
# Where the libraries the backend binds are on this machine (it cannot fetch any: NVRTC and cuBLAS must be here).
{ (ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvrtc|libcublas|libnvidia-ml') || true
  timeout 30 find /usr /opt /lib /lib64 \( -name 'libnvrtc*.so*' -o -name 'libcublas*.so*' -o -name 'libcuda.so*' \) 2>/dev/null | head -40
} > "$out/libraries.txt"
"$build/jdk/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xmx24g \
    -cp "$build/lib/*" dev.rlx.cuda.GpuCheck "$out" "$@" 2>&1 | tee "$out/log.txt"
exit "${PIPESTATUS[0]}"
