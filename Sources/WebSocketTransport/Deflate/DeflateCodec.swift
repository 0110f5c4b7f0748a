package import LiveConnection

/// The compressor and the decompressor one end of a permessage-deflate connection uses.
///
/// ```swift
/// // A client: compresses what it sends to the server, inflates what the server sends.
/// let codec = try DeflateCodec(agreed, sending: .clientToServer)
/// ```
///
/// Role-neutral: a server passes `.serverToClient`.
package struct DeflateCodec: Sendable {
    /// What both ends agreed.
    package let parameters: DeflateParameters
    package let deflater: MessageDeflater
    package let inflater: MessageInflater

    /// Fails with `reset(errno: "ENOMEM")` if zlib cannot allocate its streams.
    package init(
        _ parameters: DeflateParameters, sending direction: DeflateParameters.Direction, level: Int = 6,
        memoryLevel: Int = 8
    ) throws(TransportError) {
        let receiving: DeflateParameters.Direction = direction == .clientToServer ? .serverToClient : .clientToServer
        guard let deflater = parameters.makeDeflater(for: direction, level: level, memoryLevel: memoryLevel),
            let inflater = parameters.makeInflater(for: receiving)
        else { throw .reset(errno: "ENOMEM") }
        self.parameters = parameters
        self.deflater = deflater
        self.inflater = inflater
    }
}
