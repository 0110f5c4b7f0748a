import COpenSSL
package import LiveConnection

package import typealias LiveConnection.Mutex

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS over a ``TCPSocket`` through the system OpenSSL, with memory BIOs.
///
/// OpenSSL only ever sees memory buffers; the bytes between those buffers and the socket
/// are moved here, with the same non-blocking reads and writes and reactor waits as plain
/// TCP. That keeps one I/O path for ws:// and wss://, lets writes use `MSG_NOSIGNAL`
/// (OpenSSL's socket BIO would raise SIGPIPE on a reset), and means no OpenSSL call ever
/// blocks. An `SSL` object is not safe for concurrent use, so every call into it happens
/// under one lock; the lock is never held across a wait.
package final class TLSStream: ByteStream {
    /// Unchecked because OpenSSL's pointers are not `Sendable`: they are only touched inside `engine`'s lock.
    private struct Engine: @unchecked Sendable {
        var ssl: OpaquePointer
        var incoming: OpaquePointer  // network → OpenSSL
        var outgoing: OpaquePointer  // OpenSSL → network
        /// Ciphertext taken from OpenSSL but not yet accepted by the socket.
        var pending: [UInt8] = []
    }

    private let socket: TCPSocket
    private let engine: Mutex<Engine>

    private init(socket: TCPSocket, engine: Engine) {
        self.socket = socket
        self.engine = Mutex(engine)
    }

    deinit {
        engine.withLock { SSL_free($0.ssl) }  // frees both BIOs too
    }

    /// Connects TLS over `socket`, verifying the certificate chain and `host`.
    package static func handshake(
        over socket: TCPSocket, host: String, configuration: TLSConfiguration, until deadline: ContinuousClock.Instant
    ) async throws(TransportError) -> TLSStream {
        let context = try makeContext(configuration)
        defer { SSL_CTX_free(context) }
        guard let ssl = SSL_new(context), let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem())
        else {
            throw .tls("cannot create a TLS session: \(openSSLErrors())")
        }
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_connect_state(ssl)
        if isIPAddress(host) {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = liveconnection_ssl_set_tlsext_host_name(ssl, host)
            _ = SSL_set1_host(ssl, host)
        }
        let stream = TLSStream(socket: socket, engine: Engine(ssl: ssl, incoming: incoming, outgoing: outgoing))
        try await stream.runHandshake(until: deadline)
        return stream
    }

    /// Accepts TLS over `socket` as a server, with the certificate and key in `context`.
    package static func accept(
        over socket: TCPSocket, context: TLSServerContext, until deadline: ContinuousClock.Instant
    )
        async throws(TransportError) -> TLSStream
    {
        guard let ssl = context.makeSession(), let incoming = BIO_new(BIO_s_mem()),
            let outgoing = BIO_new(BIO_s_mem())
        else {
            throw .tls("cannot create a TLS session: \(openSSLErrors())")
        }
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_accept_state(ssl)
        let stream = TLSStream(socket: socket, engine: Engine(ssl: ssl, incoming: incoming, outgoing: outgoing))
        try await stream.runHandshake(until: deadline)
        return stream
    }

    private static func makeContext(_ configuration: TLSConfiguration) throws(TransportError) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tls("cannot create a TLS context: \(openSSLErrors())")
        }
        _ = liveconnection_ssl_ctx_set_min_tls12(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if configuration.trustsSystemRoots { _ = SSL_CTX_set_default_verify_paths(context) }
        let store = SSL_CTX_get_cert_store(context)
        for pem in configuration.trustedCertificatesPEM {
            var added = 0
            // The BIO gets its own copy of the PEM. `BIO_new_mem_buf` would keep pointing
            // into the array after `withUnsafeBytes` returns, and optimized builds free the
            // array there: OpenSSL then parsed freed memory as the trust store.
            guard let bio = BIO_new(BIO_s_mem()) else {
                SSL_CTX_free(context)
                throw .tls("cannot create a memory BIO: \(openSSLErrors())")
            }
            defer { BIO_free(bio) }
            let bytes = Array(pem.utf8)
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32(clamping: $0.count)) }
            guard written == bytes.count else {
                SSL_CTX_free(context)
                throw .tls("cannot load a trusted PEM of \(bytes.count) bytes into OpenSSL")
            }
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                _ = X509_STORE_add_cert(store, certificate)
                X509_free(certificate)
                added += 1
            }
            ERR_clear_error()  // the loop ends on a "no start line" error, which is expected
            guard added > 0 else {
                SSL_CTX_free(context)
                throw .tls("no certificate found in a trusted PEM")
            }
        }
        return context
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    private enum Step {
        case done
        case needsInput
        case needsOutput
        case failed(TransportError)
    }

    private func runHandshake(until deadline: ContinuousClock.Instant) async throws(TransportError) {
        while true {
            let step: Step = engine.withLock { engine in
                // OpenSSL's error queue is per thread, and tasks move between threads: an error
                // left by another connection would make SSL_get_error misreport this call.
                ERR_clear_error()
                let result = SSL_do_handshake(engine.ssl)
                let code = SSL_get_error(engine.ssl, result)
                if let failure = Self.flush(&engine, socket) { return .failed(failure) }
                if result == 1 { return engine.pending.isEmpty ? .done : .needsOutput }
                switch code {
                case SSL_ERROR_WANT_READ: return engine.pending.isEmpty ? .needsInput : .needsOutput
                case SSL_ERROR_WANT_WRITE: return .needsOutput
                default:
                    let verify = SSL_get_verify_result(engine.ssl)
                    if verify != X509_V_OK {
                        let reason = String(cString: X509_verify_cert_error_string(Int(verify)))
                        ERR_clear_error()
                        return .failed(.tls("certificate verification failed: \(reason)"))
                    }
                    return .failed(.tls("handshake failed: \(Self.openSSLErrors())"))
                }
            }
            switch step {
            case .done: return
            case .failed(let error): throw error
            case .needsOutput: try await socket.waitUntil(.writable, deadline: deadline)
            case .needsInput:
                switch try feed() {
                case .transferred: continue
                case .wouldBlock: try await socket.waitUntil(.readable, deadline: deadline)
                case .endOfStream: throw .tls("the peer closed the connection during the TLS handshake")
                case .failed(let code): throw .reset(errno: errnoName(code))
                }
            }
        }
    }

    /// Moves ciphertext from the socket into OpenSSL.
    private func feed() throws(TransportError) -> IOAttempt {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let attempt = socket.tryReceive(into: &chunk)
        if case .transferred(let count) = attempt {
            engine.withLock { engine in
                _ = chunk.withUnsafeBytes { BIO_write(engine.incoming, $0.baseAddress, Int32(count)) }
            }
        }
        return attempt
    }

    /// Moves OpenSSL's output to `pending` and as much of it as the socket takes; nil unless the socket failed.
    private static func flush(_ engine: inout Engine, _ socket: TCPSocket) -> TransportError? {
        let available = Int(liveconnection_bio_pending(engine.outgoing))
        if available > 0 {
            var chunk = [UInt8](repeating: 0, count: available)
            let count = chunk.withUnsafeMutableBytes { BIO_read(engine.outgoing, $0.baseAddress, Int32(available)) }
            if count > 0 { engine.pending += chunk[..<Int(count)] }
        }
        while !engine.pending.isEmpty {
            switch socket.trySend(engine.pending[...]) {
            case .transferred(let count): engine.pending.removeFirst(count)
            case .wouldBlock, .endOfStream: return nil
            case .failed(let code): return .reset(errno: errnoName(code))
            }
        }
        return nil
    }

    private enum ReadStep {
        case data([UInt8])
        case endOfStream
        case needsInput
        case failed(TransportError)
    }

    package func read(maximum: Int, until deadline: ContinuousClock.Instant?) async throws(TransportError) -> [UInt8] {
        while true {
            let step: ReadStep = engine.withLock { engine in
                ERR_clear_error()
                var count: Int32 = 0
                let buffer = [UInt8](unsafeUninitializedCapacity: maximum) { storage, initialized in
                    count = SSL_read(engine.ssl, storage.baseAddress, Int32(maximum))
                    initialized = Int(max(count, 0))
                }
                let code = SSL_get_error(engine.ssl, count)
                // Reading may produce output (TLS 1.3 key updates); it goes out best-effort.
                if let failure = Self.flush(&engine, socket) { return .failed(failure) }
                if count > 0 { return .data(buffer) }
                switch code {
                case SSL_ERROR_WANT_READ: return .needsInput
                case SSL_ERROR_ZERO_RETURN: return .endOfStream
                default: return .failed(.tls("read failed: \(Self.openSSLErrors())"))
                }
            }
            switch step {
            case .data(let bytes): return bytes
            case .endOfStream: return []
            case .failed(let error): throw error
            case .needsInput:
                switch try feed() {
                case .transferred: continue
                case .wouldBlock: try await socket.waitUntil(.readable, deadline: deadline)
                case .endOfStream: return []
                case .failed(let code): throw .reset(errno: errnoName(code))
                }
            }
        }
    }

    package func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant?) async throws(TransportError) {
        let written: TransportError? = engine.withLock { engine in
            ERR_clear_error()
            // In slices: SSL_write takes an Int32 length, and a message can be larger.
            var offset = 0
            while offset < bytes.count {
                let length = min(bytes.count - offset, 1 << 20)
                let count = bytes.withUnsafeBytes { SSL_write(engine.ssl, $0.baseAddress! + offset, Int32(length)) }
                // A memory BIO takes everything at once; anything else is a broken session.
                guard count == Int32(length) else { return .tls("write failed: \(Self.openSSLErrors())") }
                offset += length
            }
            return Self.flush(&engine, socket)
        }
        if let written { throw written }
        while true {
            let outcome: (done: Bool, failure: TransportError?) = engine.withLock { engine in
                let failure = Self.flush(&engine, socket)
                return (engine.pending.isEmpty, failure)
            }
            if let failure = outcome.failure { throw failure }
            if outcome.done { return }
            try await socket.waitUntil(.writable, deadline: deadline)
        }
    }

    package func shutdown() {
        socket.shutdown()
    }

    package func shutdownWrite() {
        socket.shutdownWrite()
    }

    package func reset() {
        socket.reset()
    }

    static func openSSLErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown error" : messages.joined(separator: "; ")
    }
}
