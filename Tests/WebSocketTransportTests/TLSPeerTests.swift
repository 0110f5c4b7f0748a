import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// A throwaway CA and two server certificates, made with the `openssl` command at test time.
struct TestCertificates {
    let directory: URL
    var caPEM: String { (try? String(contentsOf: directory.appendingPathComponent("ca.pem"), encoding: .utf8)) ?? "" }
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func make() async throws -> TestCertificates {
        try await offPool { try makeBlocking() }
    }

    private static func makeBlocking() throws -> TestCertificates {
        let directory = try ScratchDirectory.fresh("livecerts")
        let script = """
            set -e
            key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
            openssl req -x509 $key -keyout ca.key -out ca.pem -days 2 -subj "/CN=LiveConnection Test CA"
            for name in good wronghost; do
              openssl req $key -keyout $name.key -out $name.csr -subj "/CN=$name"
            done
            printf "subjectAltName=IP:127.0.0.1,DNS:localhost\\n" > good.ext
            printf "subjectAltName=DNS:other.example\\n" > wronghost.ext
            for name in good wronghost; do
              openssl x509 -req -in $name.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $name.pem -days 2 -extfile $name.ext
            done
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runGated()
        guard process.waitForExit(within: .seconds(60)).succeeded else { throw PeerServer.PeerError.certificates }
        return TestCertificates(directory: directory)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite(
    "Transport over TLS (wss://) against the Python websockets server", .waitsOnPeers, PeerServer.enabledTrait,
    .timeLimit(.minutes(2))
)
struct TLSPeerTests {
    @Test(
        "echoes over wss:// when the test CA is trusted, by IP address and by host name",
        arguments: ["127.0.0.1", "localhost"])
    func echo(host: String) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await PeerServer.start(
            "echo_server.py", ["--tls", certificates.path("good.pem"), certificates.path("good.key")])
        defer { server.stop() }
        let transport = WebSocketTransport(
            configuration: .init(
                connectTimeout: peerConnectTimeout, tls: TLSConfiguration(trusting: [certificates.caPEM])))
        let url = try #require(URL(string: "wss://\(host):\(server.port)/"))
        let connection = try await transport.open(Endpoint(url: url))
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        try await connection.send(.text("over TLS"))
        try await connection.send(.binary(big))
        #expect(try await connection.receive() == .message(.text("over TLS")))
        #expect(try await connection.receive() == .message(.binary(big)))
        try await connection.send(.text("!close 4001 bye"))
        #expect(try await connection.receive() == .closed(code: .tokenExpired, reason: "bye"))
    }

    @Test("refuses a certificate from an untrusted CA, saying why")
    func untrusted() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await PeerServer.start(
            "echo_server.py", ["--tls", certificates.path("good.pem"), certificates.path("good.key")])
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                Endpoint(url: server.url("/", secure: true)))
        }
        guard case .tls(let detail) = error else {
            Issue.record("expected a TLS error, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("certificate verification failed"), "\(detail)")
    }

    @Test("refuses a trusted certificate issued for another host")
    func wrongHost() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await PeerServer.start(
            "echo_server.py", ["--tls", certificates.path("wronghost.pem"), certificates.path("wronghost.key")])
        defer { server.stop() }
        let transport = WebSocketTransport(
            configuration: .init(
                connectTimeout: peerConnectTimeout, tls: TLSConfiguration(trusting: [certificates.caPEM])))
        let error = await #expect(throws: TransportError.self) {
            try await transport.open(Endpoint(url: server.url("/", secure: true)))
        }
        guard case .tls(let detail) = error else {
            Issue.record("expected a TLS error, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("mismatch"), "\(detail)")
    }

    @Test("refuses PEM text with no certificate in it")
    func badPEM() async throws {
        let server = try await SharedPeers.echo
        let transport = WebSocketTransport(
            configuration: .init(
                connectTimeout: peerConnectTimeout, tls: TLSConfiguration(trusting: ["not a certificate"])))
        await #expect(throws: TransportError.tls("no certificate found in a trusted PEM")) {
            try await transport.open(Endpoint(url: server.url("/", secure: true)))
        }
    }
}
