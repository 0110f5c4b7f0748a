/// The last `capacity` records of an unbounded stream, with the count of all of them.
///
/// ```swift
/// var log = RecentRecords<String>(capacity: 2)
/// log.append("a"); log.append("b"); log.append("c")
/// Array(log)          // ["b", "c"]
/// log.total           // 3
/// log.since(1)        // ["b", "c"]: the records from position 1 on that are still kept
/// ```
///
/// What a server records of its clients must not grow with what they send: a reader that
/// follows the stream by position (`since(_:)`) gets what is still kept and can tell from
/// ``total`` and ``dropped`` how much it missed.
public struct RecentRecords<Element: Sendable>: Sendable, RandomAccessCollection {
    public let capacity: Int
    private var storage: [Element] = []
    /// Where the oldest kept record is in `storage` once it is full.
    private var head = 0
    /// Records ever appended.
    public private(set) var total = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a record needs room for one entry")
        self.capacity = capacity
    }

    /// Records appended and no longer kept.
    public var dropped: Int { total - storage.count }

    public mutating func append(_ element: Element) {
        total += 1
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// The records from stream position `position` (0 is the first ever appended) on, as far
    /// as they are still kept.
    public func since(_ position: Int) -> [Element] {
        let first = Swift.max(position, dropped)
        guard first < total else { return [] }
        return (first - dropped..<count).map { self[$0] }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public subscript(position: Int) -> Element { storage[(head + position) % storage.count] }
}
