#!/usr/bin/env bash
# Builds and runs a frame-decoder fuzzer (libFuzzer + AddressSanitizer).
#
# Usage: Fuzz/run.sh [RUNS] [client|server]   (default 1000000 executions of the client-role
#        fuzzer; `server` fuzzes the server role: client-masked frames, mirrored against the
#        client role; extra libFuzzer flags via FUZZ_FLAGS)
# Crashing inputs are written to Fuzz/artifacts/; the corpus grows in Fuzz/corpus/ (client)
# or Fuzz/corpus-server/ (server).
# -malloc_limit_mb=64 turns any allocation over 64 MiB into a crash: the decoder must not
# trust a length header (a 2^62-byte announcement is a few bytes of input).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
role=${2:-client}
case "$role" in
  client) target=DecoderFuzzer corpus=Fuzz/corpus ;;
  server) target=ServerDecoderFuzzer corpus=Fuzz/corpus-server ;;
  *) echo "usage: Fuzz/run.sh [RUNS] [client|server]" >&2; exit 64 ;;
esac
build=Fuzz/.build
mkdir -p "$build" "$corpus" Fuzz/artifacts
features=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault -swift-version 6)
# LiveConnection (CloseCode, Message, …) as a plain library; the codec is compiled into the fuzzer
# itself so that only its code carries the coverage instrumentation.
swiftc -parse-as-library -module-name LiveConnection "${features[@]}" -O \
  -emit-module -emit-module-path "$build/LiveConnection.swiftmodule" \
  -emit-library -static -o "$build/libLiveConnection.a" $(find Sources/LiveConnection -name '*.swift')
codec=Sources/WebSocketTransport/Codec
if [ "${PLANTED:-0}" = 1 ]; then
  # Self-check: a copy of the codec with a planted partial-input bug (a 64-bit length read
  # before its 8 bytes have arrived). The fuzzer must find it; see docs/transport.md.
  mkdir -p "$build/planted"
  cp "$codec"/*.swift "$build/planted/"
  sed -i 's/guard bytes.count >= 10 else { return nil }/guard bytes.count >= 4 else { return nil }/' "$build/planted/FrameHeader.swift"
  grep -q "bytes.count >= 4 else" "$build/planted/FrameHeader.swift" || { echo "planting failed"; exit 1; }
  codec="$build/planted"
elif [ "${PLANTED:-0}" = mask ]; then
  # Self-check for the server role: the mask key restarts at every partial read instead of
  # carrying its phase across them. `Fuzz/run.sh RUNS server` must find it; see docs/serve.md.
  mkdir -p "$build/planted"
  cp "$codec"/*.swift "$build/planted/"
  sed -i 's/let phase = unmaskedPayloadBytes % 4/let phase = 0/' "$build/planted/FrameDecoder.swift"
  grep -q "let phase = 0" "$build/planted/FrameDecoder.swift" || { echo "planting failed"; exit 1; }
  codec="$build/planted"
fi
swiftc -sanitize=fuzzer,address -parse-as-library -module-name "$target" "${features[@]}" -O \
  -I "$build" -L "$build" -lLiveConnection -I Sources/CZlib -lz \
  "$codec/FrameDecoder.swift" "$codec/FrameHeader.swift" "$codec/Opcode.swift" "$codec/UTF8Validator.swift" \
  "$codec/ClosePayload.swift" "$codec/ProtocolFailure.swift" "$codec/FrameEncoder.swift" \
  Sources/WebSocketTransport/Deflate/MessageInflater.swift "Fuzz/$target.swift" \
  -o "$build/$target" 2>&1 | grep -v "Cannot export local symbol" || true
"$build/$target" -runs="$runs" -malloc_limit_mb=64 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix=Fuzz/artifacts/ ${FUZZ_FLAGS:-} "$corpus"
