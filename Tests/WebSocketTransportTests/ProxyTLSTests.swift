import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// The proxy over TLS: wss:// to its clients, wss:// to the upstream, trust as the client's.
@Suite("Fault proxy over TLS", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ProxyTLSTests {
    @Test("wss:// on both links relays both ways; an upstream whose CA is not trusted is an error at start")
    func bothLinks() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let identity = try TLSServerContext(
            certificateChainFile: certificates.path("good.pem"), privateKeyFile: certificates.path("good.key"))
        let trust = TLSConfiguration(trusting: [certificates.caPEM], trustsSystemRoots: false)
        try await ServerHarness.with(.init(tls: identity)) { server in
            let upstream = URL(string: "wss://127.0.0.1:\(server.port)/")!
            try await ProxyHarness.with(
                upstream: upstream,
                configure: {
                    $0.tls = identity
                    $0.upstreamTLS = trust
                }
            ) { proxy in
                try await proxy.checkUpstream()
                let transport = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout, tls: trust))
                let client = try await transport.open(
                    Endpoint(url: URL(string: "wss://127.0.0.1:\(proxy.port)/?client=a")!))
                #expect(try await ProxyHarness.echoes(client, "over TLS twice"))
                proxy.close(.client("a"), code: 4003, reason: "forbidden")
                #expect(try await client.receive() == .closed(code: 4003, reason: "forbidden"))
            }
            // Trusting only the system's roots, the proxy refuses the test CA's certificate at start.
            try await ProxyHarness.with(upstream: upstream) { proxy in
                await #expect {
                    try await proxy.checkUpstream()
                } throws: { error in
                    if case .tls = error as? TransportError { true } else { false }
                }
            }
        }
    }
}
