import COpenSSL
public import LiveConnection

/// A server's TLS identity: its certificate chain and private key, loaded into one OpenSSL
/// context that every accepted connection shares.
///
/// ```swift
/// let tls = try TLSServerContext(certificateChainFile: "server.pem", privateKeyFile: "server.key")
/// let server = try WebSocketServer(configuration: .init(port: 8443, tls: tls), handler: EchoHandler())
/// ```
///
/// Loading fails at once, with OpenSSL's reason, for a missing or unreadable file, a key
/// that does not match the certificate, or anything else OpenSSL refuses — not at the
/// first connection. TLS 1.2 is the minimum, as for the client.
public final class TLSServerContext: Sendable {
    /// Unchecked: an `SSL_CTX` is safe to share between threads once configured, and it is
    /// never changed after `init`.
    private struct Context: @unchecked Sendable { var pointer: OpaquePointer }
    private let context: Context

    public init(certificateChainFile: String, privateKeyFile: String) throws(TransportError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw .tls("cannot create a TLS context: \(TLSStream.openSSLErrors())")
        }
        _ = liveconnection_ssl_ctx_set_min_tls12(context)
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1 else {
            let reason = TLSStream.openSSLErrors()
            SSL_CTX_free(context)
            throw .tls("cannot load the certificate chain \(certificateChainFile): \(reason)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            let reason = TLSStream.openSSLErrors()
            SSL_CTX_free(context)
            throw .tls("cannot load the private key \(privateKeyFile): \(reason)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            let reason = TLSStream.openSSLErrors()
            SSL_CTX_free(context)
            throw .tls("the private key does not match the certificate: \(reason)")
        }
        self.context = Context(pointer: context)
    }

    deinit { SSL_CTX_free(context.pointer) }

    /// A new server session on this context (the caller owns and frees it).
    func makeSession() -> OpaquePointer? { SSL_new(context.pointer) }
}
