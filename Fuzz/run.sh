#!/usr/bin/env bash
# Builds and runs the frame-decoder fuzzer (libFuzzer + AddressSanitizer).
#
# Usage: Fuzz/run.sh [RUNS]        (default 1000000 executions; extra libFuzzer flags via FUZZ_FLAGS)
# Crashing inputs are written to Fuzz/artifacts/; the corpus grows in Fuzz/corpus/.
# -malloc_limit_mb=64 turns any allocation over 64 MiB into a crash: the decoder must not
# trust a length header (a 2^62-byte announcement is a few bytes of input).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
build=Fuzz/.build
mkdir -p "$build" Fuzz/corpus Fuzz/artifacts
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
fi
swiftc -sanitize=fuzzer,address -parse-as-library -module-name DecoderFuzzer "${features[@]}" -O \
  -I "$build" -L "$build" -lLiveConnection -I Sources/CZlib -lz \
  "$codec/FrameDecoder.swift" "$codec/FrameHeader.swift" "$codec/Opcode.swift" "$codec/UTF8Validator.swift" \
  "$codec/ClosePayload.swift" "$codec/ProtocolFailure.swift" Sources/WebSocketTransport/Deflate/MessageInflater.swift \
  Fuzz/DecoderFuzzer.swift \
  -o "$build/decoder-fuzzer" 2>&1 | grep -v "Cannot export local symbol" || true
"$build/decoder-fuzzer" -runs="$runs" -malloc_limit_mb=64 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix=Fuzz/artifacts/ ${FUZZ_FLAGS:-} Fuzz/corpus
