public import LiveConnectionRules

extension Rule.Judge {
    /// The model checker, in every reachable state of the machine: its properties are the
    /// catalogue's rules it can see without a clock (``ConnectionModel``'s `properties`).
    public static let checker = Rule.Judge(rawValue: "checker")
}
