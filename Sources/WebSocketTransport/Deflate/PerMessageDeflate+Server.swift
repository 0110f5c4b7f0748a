/// The server's side of the negotiation (RFC 7692 §5, §7.1): which offer it takes and
/// what it answers.
///
/// ```swift
/// let settings = try PerMessageDeflate(serverMaxWindowBits: 12)
/// let acceptance = settings.answer(to: request)          // nil: no valid offer, no compression
/// acceptance?.response.headerValue                       // "permessage-deflate; server_max_window_bits=12"
/// acceptance?.agreed                                     // what both ends now use
/// ```
///
/// The server takes the first `permessage-deflate` offer that follows §7.1 (§5: a client
/// lists fallbacks in order of preference), and every such offer can be honoured: we
/// compress with any window 8...15, with or without context takeover. An offer that breaks
/// §7.1 (an unknown or repeated parameter, a value on a flag, a window outside 8...15) is
/// declined by leaving it out of the answer, as §7.1 prescribes, and the connection opens
/// uncompressed: nothing about compression ever fails a handshake. The server's own
/// options only tighten the agreement: each window the smaller of both ends' limits,
/// each no-context-takeover flag set if either end wants it.
extension PerMessageDeflate {
    /// An accepted offer: what both ends now use, and the answer that tells the client.
    package struct Acceptance: Hashable, Sendable {
        package var agreed: DeflateParameters
        /// The `Sec-WebSocket-Extensions` entry of the 101 response.
        package var response: WebSocketExtension
    }

    /// The answer to a client's upgrade request; nil declines (no offer, or none valid).
    ///
    /// A header that is not even list syntax is declined too: compression is optional, so
    /// the connection opens without it rather than failing.
    package func answer(to request: UpgradeRequest) -> Acceptance? {
        guard let offers = try? WebSocketExtension.parse(request.values(of: "sec-websocket-extensions")) else {
            return nil
        }
        return answer(to: offers)
    }

    /// The answer to the client's offers, in its order of preference; nil declines them all.
    package func answer(to offers: [WebSocketExtension]) -> Acceptance? {
        for offer in offers where offer.name.lowercased() == Self.extensionName {
            // §7.1: an offer with a parameter not defined for it, an invalid value or a repeated
            // name is declined; a later fallback may still be valid.
            guard let spelled = try? DeflateHeaderParameters(offer.parameters) else { continue }
            return accept(spelled)
        }
        return nil
    }

    private func accept(_ offer: DeflateHeaderParameters) -> Acceptance {
        let serverBits = min(offer.serverMaxWindowBits ?? 15, serverMaxWindowBits ?? 15)
        // Without client_max_window_bits in its offer, the client may use any window (§7.1.2.2).
        let clientBits =
            offer.clientMaxWindowBitsGiven ? min(offer.clientMaxWindowBits ?? 15, clientMaxWindowBits ?? 15) : 15
        let agreed = DeflateParameters(
            serverMaxWindowBits: serverBits, clientMaxWindowBits: clientBits,
            serverNoContextTakeover: offer.serverNoContextTakeover || serverNoContextTakeover,
            // The client's offer only hints it (§7.1.1.2); answering makes it binding, so our
            // inflater may start every message afresh.
            clientNoContextTakeover: offer.clientNoContextTakeover || clientNoContextTakeover)
        var parameters: [WebSocketExtension.Parameter] = []
        if agreed.serverNoContextTakeover { parameters.append(.init("server_no_context_takeover")) }
        if agreed.clientNoContextTakeover { parameters.append(.init("client_no_context_takeover")) }
        // An offered server_max_window_bits must be answered, with the same or a smaller value (§7.1.2.1).
        if offer.serverMaxWindowBits != nil || serverBits < 15 {
            parameters.append(.init("server_max_window_bits", String(serverBits)))
        }
        // Never named unless offered (§7.1.2.2): clientBits is below 15 only then.
        if clientBits < 15 { parameters.append(.init("client_max_window_bits", String(clientBits))) }
        return Acceptance(
            agreed: agreed, response: WebSocketExtension(name: Self.extensionName, parameters: parameters))
    }
}
